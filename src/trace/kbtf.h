/* The kernel's BTF cut down to what one BPF object's CO-RE relocations
 * can ask of it, so that libbpf never reads the whole of it.
 *
 * libbpf (1.1) resolves CO-RE relocations against the kernel's BTF,
 * which it reads whole from /sys/kernel/btf/vmlinux (about 5.5 MB),
 * copies and indexes: the largest part of a command's start-up.  Given
 * another BTF (bpf_object_open_opts.btf_custom_path) it reads that
 * instead, and needs the kernel's none at all when the object has no
 * program of BPF_PROG_TYPE_TRACING (tp_btf, fentry, iter) and no typed
 * ksym.
 *
 * The small BTF holds every struct, union, enum and typedef the object's
 * own BTF names, as the running kernel defines it (all of its kernel
 * namesakes), with what they embed (members that are structures, arrays,
 * integers, enums) copied whole: every access path a relocation can
 * take.  Pointers become void *: a relocation never walks through one
 * (each dereference is a relocation of its own, rooted at its own named
 * type), and libbpf takes any pointer member as compatible with any.
 *
 * The kernel's BTF is mapped, not read (Linux 6.16 and later map
 * /sys/kernel/btf/vmlinux read-only), and walked once.  Where it cannot
 * be mapped, kbtf_for_object() fails and the caller leaves libbpf to read
 * it as before.  What it makes is kept from one run to the next
 * (trace/kbtfcache.h): a start reads it back instead. */
#ifndef STACKSCOPE_KBTF_H
#define STACKSCOPE_KBTF_H
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

struct bpf_map;

/* The object's load handed to the thread that makes its small BTF
 * (kbtf_load_start()).  The maps listed are made first (map_premake()),
 * by the caller and by the thread once the BTF is made, whichever takes
 * each; then the thread loads while the caller goes on with what the
 * maps' descriptors are enough for. */
struct kbtf_load {
	struct bpf_map **maps;
	size_t nmaps;
	int (*load)(void *arg);	/* the skeleton's load: 0 or -errno */
	void *arg;
};

struct kbtf_custom {
	int fd;			/* a memfd holding the small BTF; -1: none */
	char path[32];		/* "/proc/self/fd/N": btf_custom_path */
	int types;		/* how many types it holds */
	/* kbtf_start(): made on a thread of its own meanwhile, or read
	 * from the cache (trace/kbtfcache.h) */
	const char *object;	/* the skeleton's name; NULL: no cache */
	const void *elf;
	size_t elf_size;
	bool cached;		/* read from the cache */
	char cache_said[192];	/* what the cache did, for -v */
	pthread_t thread;
	bool running;
	int err;
	/* what the thread does once the BTF is made, under mu: waits for
	 * an order; loads (job) or ends */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	enum { KBTF_AWAIT, KBTF_LOAD_HERE, KBTF_END } order;
	struct kbtf_load job;
	size_t next_map, maps_made;	/* of job.maps */
	size_t maps_late;	/* not made ahead: libbpf makes them at the load */
	int load_err;
	bool load_started;
};

/* The small BTF for the BPF object in elf (a skeleton's embedded ELF),
 * from the BTF at vmlinux (NULL: /sys/kernel/btf/vmlinux).  0, or -errno
 * with c->fd = -1; says nothing (the caller's fallback is silent too). */
int kbtf_for_object(const void *elf, size_t elf_size, const char *vmlinux,
		    struct kbtf_custom *c);

/* Starts making the small BTF on a thread (inline if none can start),
 * into a memfd made at once: a command calls it first thing (KBTF_START),
 * and its launch, the object's open and other set-up run meanwhile. */
void kbtf_start(struct kbtf_custom *c, const char *object, const void *elf, size_t elf_size);
struct bpf_object_open_opts;
/* Points opts at the memfd (btf_custom_path), filled or not yet: libbpf
 * reads it at the load, not at the open. */
void kbtf_use(struct kbtf_custom *c, struct bpf_object_open_opts *opts);
/* Waits for the small BTF, before the load (KBTF_LOAD).  Where it could
 * not be made, the memfd's descriptor is made the kernel's BTF file
 * itself, so libbpf reads the whole of it as before.  c stays open until
 * the object is loaded; kbtf_close() after (on every path: it waits). */
void kbtf_ready(struct kbtf_custom *c);
void kbtf_close(struct kbtf_custom *c);
/* Instead of kbtf_ready() and a load on the caller's thread: the load of
 * job on the thread making the small BTF, once job's maps are made (the
 * caller makes some of them here: this returns when all are); where no
 * thread could start, the whole load here.  Returns how many maps could
 * not be made ahead (libbpf makes those during the load: their
 * descriptors are not to be read before kbtf_load_wait()).
 * kbtf_load_wait() returns the load's result; kbtf_close() waits for it
 * too (on every path). */
size_t kbtf_load_start(struct kbtf_custom *c, const struct kbtf_load *job);
int kbtf_load_wait(struct kbtf_custom *c);

/* Not started, nothing to close: a struct kbtf_custom's initializer. */
#define KBTF_INIT { .fd = -1 }
/* kbtf_start() for skeleton NAME (NAME_bpf__elf_bytes). */
#define KBTF_START(name, kb)                                                      \
	({                                                                        \
		size_t kbtf_sz_;                                                  \
		const void *kbtf_elf_ = name##_bpf__elf_bytes(&kbtf_sz_);         \
                                                                                  \
		kbtf_start(kb, #name, kbtf_elf_, kbtf_sz_);                       \
	})
/* A skeleton's open (NAME_bpf__open) against the small BTF in kb, started
 * here unless KBTF_START did: KBTF_OPEN(syscalls, &kb); and its load,
 * once the small BTF is ready: KBTF_LOAD(syscalls, skel, &kb). */
#define KBTF_OPEN(name, kb)                                                       \
	({                                                                        \
		LIBBPF_OPTS(bpf_object_open_opts, kbtf_oo_);                      \
                                                                                  \
		if (!(kb)->elf)                                                   \
			KBTF_START(name, kb);                                     \
		kbtf_use(kb, &kbtf_oo_);                                          \
		name##_bpf__open_opts(&kbtf_oo_);                                 \
	})
#define KBTF_LOAD(name, skel, kb)                                                 \
	({                                                                        \
		kbtf_ready(kb);                                                   \
		name##_bpf__load(skel);                                           \
	})

#endif
