#include <errno.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "common.h"
#include "report/text.h"

int verbose;

#define HUGE_PAGE (2UL << 20)

void heap_prefault(size_t bytes)
{
	static size_t done;
	uintptr_t from, to;
	char *p;

	if (bytes <= done || bytes > (1UL << 30))
		return;
	/* below this (the reserve itself too), blocks come from the heap,
	 * not a fresh mmap each; freed, they stay in it up to twice that */
	mallopt(M_MMAP_THRESHOLD, (int)(bytes + (1 << 20)));
	mallopt(M_TRIM_THRESHOLD, (int)(2 * bytes));
	p = malloc(bytes);
	if (!p)
		return;
	/* transparent huge pages where the system allows them on request:
	 * one fault, and one shadow-page-table fill in a virtual machine,
	 * per 2 MiB instead of per 4 KiB */
	from = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
	to = ((uintptr_t)p + bytes) & ~(uintptr_t)(HUGE_PAGE - 1);
	if (to > from && madvise((void *)from, to - from, MADV_HUGEPAGE))
		debug("huge pages for %zu MiB of heap: %s", bytes >> 20, strerror(errno));
	free(p);
	done = bytes;
}

void *array_grow(void *arr, size_t *cap, size_t size)
{
	void *n;

	*cap = *cap ? 2 * *cap : 64;
	n = realloc(arr, *cap * size);
	if (!n)
		free(arr);
	return n;
}

int map_premake(struct bpf_map *m)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = bpf_map__map_flags(m));
	int fd = bpf_map_create(bpf_map__type(m), bpf_map__name(m), bpf_map__key_size(m),
				bpf_map__value_size(m), bpf_map__max_entries(m), &o), err;

	err = fd < 0 ? -errno : bpf_map__reuse_fd(m, fd);
	if (fd >= 0)
		close(fd);	/* reuse_fd keeps a copy */
	if (err)
		debug("map %s made at the load: %s", bpf_map__name(m), strerror(-err));
	return err;
}

size_t map_premake_list(struct bpf_object *obj, struct bpf_map **out, size_t max)
{
	struct bpf_map *m;
	size_t n = 0;

	bpf_object__for_each_map(m, obj) {
		switch (bpf_map__type(m)) {
		case BPF_MAP_TYPE_ARRAY_OF_MAPS:
		case BPF_MAP_TYPE_HASH_OF_MAPS:
		case BPF_MAP_TYPE_PROG_ARRAY:
		case BPF_MAP_TYPE_STRUCT_OPS:
		case BPF_MAP_TYPE_TASK_STORAGE:
		case BPF_MAP_TYPE_INODE_STORAGE:
		case BPF_MAP_TYPE_SK_STORAGE:
		case BPF_MAP_TYPE_CGROUP_STORAGE:
			continue;
		default:
			break;
		}
		if (bpf_map__is_internal(m) || !bpf_map__autocreate(m) || bpf_map__fd(m) >= 0 ||
		    !bpf_map__max_entries(m))
			continue;
		if (n < max)
			out[n] = m;
		n++;
	}
	return n;
}

int write_all(int fd, const void *data, size_t size)
{
	const char *p = data;

	while (size) {
		ssize_t n = write(fd, p, size);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		size -= n;
	}
	return 0;
}

int memfd_with(const char *name, const void *data, size_t size)
{
	int fd = memfd_create(name, MFD_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = write_all(fd, data, size);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

/* "stackscope: " + the message with its control bytes escaped: messages
 * carry file, process and symbol names others chose. */
static void say(const char *fmt, va_list ap)
{
	char *buf;
	int n = vasprintf(&buf, fmt, ap);

	fputs("stackscope: ", stderr);
	if (n < 0)
		fputs(fmt, stderr);
	else
		text_put_n(stderr, buf, (size_t)n);
	fputc('\n', stderr);
	if (n >= 0)
		free(buf);
}

void msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
}

void debug(const char *fmt, ...)
{
	va_list ap;

	if (!verbose)
		return;
	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
}

/* libbpf reports at WARN what the caller handles and says in one line
 * itself (a refused program, a missing feature); its text, verifier logs
 * included, is shown with -v. */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!verbose || (level == LIBBPF_DEBUG && verbose < 2))
		return 0;
	fputs("libbpf: ", stderr);
	return vfprintf(stderr, fmt, ap);
}

void libbpf_setup_print(void)
{
	libbpf_set_print(libbpf_print);
}

const char *fd_limit_hint(int err)
{
	static char buf[128];
	struct rlimit rl;

	if (err < 0)
		err = -err;
	if (err != EMFILE && err != ENFILE)
		return NULL;
	if (!getrlimit(RLIMIT_NOFILE, &rl))
		snprintf(buf, sizeof(buf), "the limit is %llu open files (ulimit -n)%s",
			 (unsigned long long)rl.rlim_cur,
			 err == ENFILE ? ", and the system's is reached" : "");
	else
		snprintf(buf, sizeof(buf), "too many open files (ulimit -n)");
	return buf;
}

const char *bpf_hint(int err)
{
	const char *fds = fd_limit_hint(err);

	if (fds)
		return fds;
	if (err == -EPERM || err == EPERM || err == -EACCES || err == EACCES)
		return "run as root, or with CAP_BPF and CAP_PERFMON";
	return "-v shows the verifier log";
}

double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int parse_long(const char *arg, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_seconds(const char *arg, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v > 0) || v > 1e7)
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_pid_list(const char *arg, pid_t **out)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	pid_t *pids = NULL;
	int n = 0, err = 0;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		long v;
		pid_t *np;

		if (parse_long(tok, 1, 0x3fffffff, &v)) {
			msg("-p %s: '%s' is not a process id", arg, tok);
			err = -EINVAL;
			goto out;
		}
		if (kill((pid_t)v, 0) && errno == ESRCH) {
			msg("pid %ld: no such process", v);
			err = -ESRCH;
			goto out;
		}
		np = realloc(pids, (n + 1) * sizeof(*pids));
		if (!np) {
			err = -ENOMEM;
			goto out;
		}
		pids = np;
		pids[n++] = (pid_t)v;
	}
	if (!n) {
		msg("-p: no process id given");
		err = -EINVAL;
	}
out:
	free(copy);
	if (err) {
		free(pids);
		return err;
	}
	*out = pids;
	return n;
}

int open_regular(const char *path, struct stat *st)
{
	struct stat tmp;
	int fd, err;

	if (!st)
		st = &tmp;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, st)) {
		err = -errno;
		goto close_fd;
	}
	if (!S_ISREG(st->st_mode)) {
		err = -EINVAL;
		goto close_fd;
	}
	return fd;

close_fd:
	close(fd);
	return err;
}

uint32_t map_count_u32(int map_fd, uint32_t max)
{
	__u32 key, cur, n = 0;

	for (void *prev = NULL; n < max && !bpf_map_get_next_key(map_fd, prev, &key); prev = &cur) {
		cur = key;
		n++;
	}
	return n;
}

void say_proc_maps(int gens_fd, int targets_fd)
{
	struct bpf_map_info gi = {}, ti = {};
	__u32 len = sizeof(gi);

	if (!verbose || bpf_obj_get_info_by_fd(gens_fd, &gi, &len))
		return;
	len = sizeof(ti);
	if (bpf_obj_get_info_by_fd(targets_fd, &ti, &len))
		return;
	debug("kernel maps: %u address spaces in gens (of %u), %u processes in targets (of %u)",
	      map_count_u32(gens_fd, gi.max_entries), gi.max_entries,
	      map_count_u32(targets_fd, ti.max_entries), ti.max_entries);
}

uint64_t percpu_sum(int map_fd, uint32_t idx)
{
	int ncpu = libbpf_num_possible_cpus();
	__u64 vals[ncpu > 0 ? ncpu : 1], sum = 0;

	if (ncpu <= 0 || bpf_map_lookup_elem(map_fd, &idx, vals))
		return 0;
	for (int i = 0; i < ncpu; i++)
		sum += vals[i];
	return sum;
}
