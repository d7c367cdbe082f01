/* Small helpers every module uses: messages, option parsing. */
#ifndef STACKSCOPE_COMMON_H
#define STACKSCOPE_COMMON_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

extern int verbose;

/* "stackscope: " + message + newline on stderr. */
void msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Only with -v. */
void debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Route libbpf's own messages through msg()/debug(). */
void libbpf_setup_print(void);

/* What to do about err (negative or positive errno) from loading or
 * attaching BPF programs, for the end of the message that names them:
 * root or the capabilities for EPERM/EACCES, the real open-file limit for
 * EMFILE/ENFILE, else the verifier log. */
const char *bpf_hint(int err);
/* For EMFILE and ENFILE (either sign): the limit reached, in words;
 * NULL for any other error. */
const char *fd_limit_hint(int err);

/* Makes the heap's next `bytes` of allocations land on transparent huge
 * pages (madvise MADV_HUGEPAGE, where the system allows them on request):
 * the first touch of a fresh page is a fault, and in a virtual machine
 * with shadow page tables a fill of the host's table too, dear enough
 * that copying the kernel's 5.5 MB BTF took 60-90 ms on 4 KiB pages and
 * 10-20 ms on 2 MiB ones.  A run's start touches megabytes of fresh
 * memory (BTF, symbol and unwind tables, the model of a read profile).
 * Blocks up to `bytes` come from the heap from then on, which keeps up to
 * twice that free for reuse.  Once per process, the largest asked. */
void heap_prefault(size_t bytes);

/* arr with room for twice *cap elements of size (64 at first); NULL
 * (arr freed) when out of memory. */
void *array_grow(void *arr, size_t *cap, size_t size);
/* Writes size bytes of data to fd (again after a short write or EINTR):
 * 0 or -errno. */
int write_all(int fd, const void *data, size_t size);
/* A memfd (close-on-exec) named name holding size bytes of data: its fd,
 * or -errno. */
int memfd_with(const char *name, const void *data, size_t size);

/* Monotonic time in seconds. */
double now_sec(void);

/* The sum over CPUs of entry idx of a BPF per-CPU array of u64
 * counters; 0 when it cannot be read. */
uint64_t percpu_sum(int map_fd, uint32_t idx);
struct bpf_map;
/* Creates an object's map m before its load, which then reuses it: a map
 * slow to create (a ring buffer's pages are zeroed) made while something
 * else is awaited.  No BTF type ids: for maps that need none (not task
 * storage, not maps with locks or timers).  0 or -errno, said under -v;
 * on failure libbpf creates it at the load as usual. */
int map_premake(struct bpf_map *m);
struct bpf_object;
/* The maps of obj that map_premake() can make (into out, at most max):
 * not made yet, not its global data (libbpf fills and freezes those),
 * not a map of maps or programs (filled at the load), not a storage
 * (needs its BTF).  How many there are (more than max: those past it
 * are not in out). */
size_t map_premake_list(struct bpf_object *obj, struct bpf_map **out, size_t max);

/* The entries of a BPF hash map keyed by a __u32 (a pid), counted by
 * walking its keys (at most max: a map changing under the walk cannot
 * keep it going). */
uint32_t map_count_u32(int map_fd, uint32_t max);
/* -v: how many processes the kernel side keeps now in the `gens` and
 * `targets` maps of bpf/procs.bpf.h (fds; the live processes it saw, not
 * every one). */
void say_proc_maps(int gens_fd, int targets_fd);

/* Parses "PID[,PID...]" into a new array; each pid must name a live
 * process.  Returns the count or -errno (message printed). */
int parse_pid_list(const char *arg, pid_t **out);
/* Parses a positive number within [min, max]; returns -EINVAL on junk. */
int parse_long(const char *arg, long min, long max, long *out);
int parse_seconds(const char *arg, double *out);

/* Opens a file to read that must be a regular file: O_NONBLOCK so a FIFO
 * or device put in its place cannot hang a run as root, then fstat (into
 * st when not NULL).  Returns the fd or -errno (-EINVAL: not regular). */
struct stat;
int open_regular(const char *path, struct stat *st);

/* off + size lies within total, without overflow. */
static inline bool range_ok(uint64_t off, uint64_t size, uint64_t total)
{
	return off <= total && size <= total - off;
}

/* The murmur3 finalizer: spreads every input bit over the output. */
static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

#endif
