/* Attaching BPF programs, with plain arguments: a program fd and where.
 * Every link and perf event fd is handed to the session, which releases
 * them (newest first) when the run stops or fails; links are fd-owned, so
 * a killed stackscope leaves nothing attached.  Each failure is said once
 * here, naming the probe: "uprobe /usr/bin/x:0x1139: attach failed: why".
 * These are what the commands and the language's probe providers call. */
#ifndef STACKSCOPE_TRACE_ATTACH_H
#define STACKSCOPE_TRACE_ATTACH_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct session;

/* A perf event on every online CPU, all tasks, each running prog_fd:
 * type/config as perf_event_attr (PERF_TYPE_SOFTWARE,
 * PERF_COUNT_SW_CPU_CLOCK), sampling freq per second when freq, else every
 * period events.  Returns the number of CPUs or -errno. */
int attach_perf_cpus(struct session *s, int prog_fd, uint32_t type, uint64_t config, bool freq,
		     uint64_t n);

/* A uprobe (or uretprobe) at a file offset of path, for pid (-1: every
 * process), with a BPF cookie; what names it in messages ("libc:malloc"). */
int attach_uprobe(struct session *s, int prog_fd, const char *path, uint64_t offset, pid_t pid,
		  uint64_t cookie, bool retprobe, const char *what);

/* The same with a reference counter (a USDT semaphore): the kernel adds 1
 * to the u16 at file offset ref_ctr_offset of path in every process it
 * places the probe in, and takes it back when the probe goes (a killed
 * stackscope too); 0: none. */
int attach_uprobe_ref(struct session *s, int prog_fd, const char *path, uint64_t offset,
		      uint64_t ref_ctr_offset, pid_t pid, uint64_t cookie, bool retprobe,
		      const char *what);

/* Many uprobes (or uretprobes) in one file, in one link: offsets[i] with
 * cookies[i], for pid (-1: every process).  One release detaches them all
 * at once, where n separate uprobes wait for the kernel n times (tens of
 * milliseconds each).  prog_fd must have been loaded with expected attach
 * type ATTACH_UPROBE_MULTI (feature FEATURE_UPROBE_MULTI). */
#define ATTACH_UPROBE_MULTI 48		/* BPF_TRACE_UPROBE_MULTI */
int attach_uprobe_multi(struct session *s, int prog_fd, const char *path, const uint64_t *offsets,
			const uint64_t *cookies, size_t n, pid_t pid, bool retprobe,
			const char *what);

/* A tracefs tracepoint SUB:EVENT (perf event of PERF_TYPE_TRACEPOINT),
 * every process, every CPU; prog_fd a BPF_PROG_TYPE_TRACEPOINT program.
 * tracefs is opened (and mounted privately when it is not) for the id. */
int attach_tracepoint(struct session *s, int prog_fd, const char *sub, const char *event);
/* The same by the event's tracefs id, read by the caller (the language's
 * providers keep tracefs open over many tracepoints); what names it. */
int attach_tracepoint_id(struct session *s, int prog_fd, int id, const char *what);
/* ... with a BPF cookie the program reads with bpf_get_attach_cookie()
 * (one program on several events telling them apart). */
int attach_tracepoint_cookie(struct session *s, int prog_fd, int id, uint64_t cookie,
			     const char *what);

/* A program loaded as tp_btf (BPF_PROG_TYPE_TRACING, attach target set at
 * load) or raw_tracepoint (name given). */
int attach_tp_btf(struct session *s, int prog_fd, const char *what);
int attach_raw_tracepoint(struct session *s, int prog_fd, const char *name);
/* ... with a BPF cookie (feature FEATURE_RAW_TP_COOKIE): one program on
 * several raw tracepoints telling them apart. */
int attach_raw_tracepoint_cookie(struct session *s, int prog_fd, const char *name,
				 uint64_t cookie);

/* A libbpf program attached by its section (skeleton programs). */
struct bpf_program;
int attach_program(struct session *s, struct bpf_program *prog);

#endif
