/* The language's probe providers: one small vtable per probe type, in its
 * own file (lang/probe_*.c), the way ply's providers are.  For the code
 * generator and the runtime they answer:
 *
 *   - which concrete attach points a written probe stands for (globs
 *     expanded over tracefs's events, vmlinux BTF, a binary's symbols),
 *   - what program to load for each (type, expected attach type, BTF id),
 *   - where args.FIELD / argN / retval live in the program's context and
 *     how to load them (struct lang_field_access),
 *   - how to attach a loaded program fd on the session (trace/attach.h),
 *   - and why a probe type cannot work on this kernel (probed at run time,
 *     never by version), with the nearest alternative that does.
 *
 * Life of a run:
 *
 *   pr = lang_probes_new(&opts);             tracefs/BTF opened lazily
 *   check.resolve_field = lang_probes_resolve_field; check.ctx = pr;
 *   lang_check(prog, &check);                args.FIELD typed
 *   for each probe, each attach point:
 *       lang_probes_expand(pr, at, &pts, &n) concrete points (owned by pr)
 *       for each point: lang_probes_field()/argn()/retval() while emitting,
 *                       load with pt->prog_type/attach_type/attach_btf_id,
 *                       lang_probes_attach(s, pr, pt, prog_fd)
 *   lang_probes_free(pr)                     after session_detach()
 *
 * Errors: -errno, said once.  When opts.prog is set, errors about a
 * written probe are recorded there (lang_errorf: "FILE:LINE:COL: ..."
 * with the source line and a caret, printed with lang_print_errors());
 * otherwise they are said with msg(). */
#ifndef STACKSCOPE_LANG_PROVIDER_H
#define STACKSCOPE_LANG_PROVIDER_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <linux/bpf.h>
#include "lang/ast.h"
#include "sym/usdt.h"

struct sc_spec;
struct sc_info;

struct session;
struct btf;
struct lang_probes;

/* ---- field access: what the code generator emits ------------------- */

/* Where the value lives, relative to the program's context register
 * (r1 at entry; keep it in a callee-saved register):
 *
 *   LANG_BASE_CTX   tracepoint: ctx points at the raw trace record (the
 *                   format file's offsets, common_* fields at 0..7);
 *                   tp_btf and raw_tracepoint: ctx is an array of u64,
 *                   argument i at offset 8*i.  Scalars are read with a
 *                   direct load: LDX_MEM(size) dst = *(ctx + offset).
 *   LANG_BASE_REGS  uprobe/uretprobe (and kprobe): ctx is a struct
 *                   pt_regs; offset is a register's slot (x86-64 ABI:
 *                   arg0..5 = rdi rsi rdx rcx r8 r9, retval = rax,
 *                   ip).  LDX_MEM(DW) dst = *(ctx + offset). */
enum lang_acc_base {
	LANG_BASE_CTX,
	LANG_BASE_REGS,
	/* syscall:NAME:return: the entry's saved record (struct
	 * lang_sys_saved), copied to the start of the program's scratch
	 * variables by the prologue: LDX_MEM(DW) from *(FP vars) + offset. */
	LANG_BASE_SAVED,
};

/* What the value is, and so what to emit:
 *
 *   LANG_ACC_INT        an integer of size 1, 2, 4 or 8 bytes: load it with
 *                       that size, then sign-extend to 64 bits when
 *                       is_signed (LSH 64-8*size; ARSH 64-8*size), else
 *                       it is already zero-extended.  Type: int.
 *   LANG_ACC_PTR        a pointer (size 8), loaded as LANG_ACC_INT,
 *                       unsigned.  Dereferencing it (str(), buf(), *p)
 *                       reads with bpf_probe_read_user* when user, else
 *                       bpf_probe_read_kernel*.  Type: int (as bpftrace:
 *                       printf("%p"), str(args.filename)).
 *   LANG_ACC_STR_PTR    a char pointer (char *, const char *): as
 *                       LANG_ACC_PTR; str(x) copies the string with
 *                       bpf_probe_read_{user,kernel}_str(dst,
 *                       max_strlen, ptr) by user.  Type: int.
 *   LANG_ACC_STR_ARRAY  char[size] inline in the context: a string.
 *                       Copy min(size, max_strlen) bytes into a zeroed
 *                       buffer with bpf_probe_read_kernel(dst, n, ctx +
 *                       offset) (a constant offset on the ctx pointer
 *                       given to a helper is allowed), then force a NUL
 *                       at the last byte.  Type: string.
 *   LANG_ACC_STR_DATALOC tracepoint __data_loc char[]: a u32 at ctx +
 *                       offset; its low 16 bits are where the string
 *                       starts, from ctx, its high 16 bits its length
 *                       with the NUL.  Emit: v = *(u32 *)(ctx + offset);
 *                       p = ctx + (v & 0xffff); n = v >> 16 clamped to
 *                       [1, max_strlen]; bpf_probe_read_kernel_str(dst,
 *                       n, p).  (Never load through p directly: the
 *                       verifier refuses a load from a moved ctx
 *                       pointer; a helper argument is fine.)  Type: string.
 *   LANG_ACC_ARRAY      elem[array_len] inline, each elem_size bytes,
 *                       is_signed for the elements: args.f[i] loads
 *                       element i (bounds-checked against array_len) as
 *                       LANG_ACC_INT.  Type: extern (indexable only).
 *   LANG_ACC_RECORD     a struct or union by value (BTF): not a value by
 *                       itself.  Type: extern.
 *   LANG_ACC_USDT       a USDT argument (usdt, sym/usdt.h): a constant;
 *                       a register of the pt_regs at ctx (its low bytes,
 *                       or bits 8..15 for %ah); or usdt.size bytes of
 *                       user memory at register + index * scale +
 *                       displacement (bpf_probe_read_user) -- then
 *                       truncated to usdt.size bytes, sign-extended when
 *                       usdt.is_signed.  Type: int.
 *
 * ctype is how the format file or BTF spells the type ("const char *",
 * "pid_t", "char[16]"), for -lv and messages. */
enum lang_acc_kind {
	LANG_ACC_INT,
	LANG_ACC_PTR,
	LANG_ACC_STR_PTR,
	LANG_ACC_STR_ARRAY,
	LANG_ACC_STR_DATALOC,
	LANG_ACC_ARRAY,
	LANG_ACC_RECORD,
	LANG_ACC_USDT,
	/* A user char pointer (size 8) given as a string (syscall probes:
	 * the arguments the decoders capture as a path or a string): the
	 * pointer loaded as LANG_ACC_PTR, then bpf_probe_read_user_str(dst,
	 * max_strlen, ptr) into a zeroed buffer.  Type: string. */
	LANG_ACC_USTR,
};

struct lang_field_access {
	enum lang_acc_kind kind;
	enum lang_acc_base base;
	uint32_t offset;		/* bytes from ctx */
	uint32_t size;			/* bytes: the scalar's, the char array's, the whole array's */
	uint32_t elem_size, array_len;	/* LANG_ACC_ARRAY */
	bool is_signed;
	bool user;			/* pointers into user memory (syscall arguments, uprobes) */
	uint32_t btf_id;		/* rawtracepoint: the argument's BTF type id (vmlinux), else 0 */
	char ctype[64];
	struct usdt_arg usdt;		/* LANG_ACC_USDT */
};

/* The checker's type for an access: int, string or extern (above). */
struct lang_type lang_access_type(const struct lang_field_access *acc);

/* ---- syscall probes ------------------------------------------------- */

/* What a syscall:NAME:entry|return point's program needs beyond its
 * context (lang_point.priv, lang_cg_point.sys).  A return point's one
 * program is attached to both sys_enter_EVENT and sys_exit_EVENT: its
 * prologue tells them apart by the attachment's cookie
 * (LANG_SYS_COOKIE_ENTRY at entry: a tracepoint program may not read the
 * record's common_type), saves a struct lang_sys_saved keyed by
 * (pid_tgid, program) at entry (nothing in it depends on the point: the
 * points of a glob share one program unless its code uses args, call...),
 * and at exit takes it back (a call whose entry it did not see is not
 * run) before the probe's block. */
struct lang_sys_point {
	int nr;				/* the syscall number */
	bool ret;			/* a return probe */
	uint32_t enter_type;		/* the id of syscalls/sys_enter_EVENT */
	char event[64];			/* "newstat" for stat: the tracefs name */
	unsigned strsize;		/* `call`: the cut of strings and buffers (-s 32) */
	struct sc_spec *spec;		/* `call`: what the decoders capture, per argument */
	const struct sc_info *si;	/* names and types (syscall/decode.h) */
};

/* The cookie of a return point's attachment at sys_enter_EVENT. */
#define LANG_SYS_COOKIE_ENTRY 1

/* Layout of the saved entry (LANG_BASE_SAVED offsets). */
struct lang_sys_saved {
	uint64_t enter_ns;
	uint64_t args[6];
	int64_t ret;			/* at exit, from the sys_exit record */
	/* the saved map's key, built here: (pid_tgid, the program's index) */
	uint64_t key_tid, key_prog;
};
#define LANG_SYS_SAVED_VALUE 56		/* bytes of the map's value: enter_ns, args */

/* `call` is rendered as `stackscope syscalls` renders a call by default
 * (-s 32); a path or a captured buffer longer than LANG_SYS_CAP bytes is
 * cut there (the syscalls command reads a path whole). */
#define LANG_SYS_STRSIZE 32
#define LANG_SYS_CAP 256

/* sys_enter_* records: args[i] at 16 + 8 * i; sys_exit_*: ret at 16
 * (struct syscall_trace_enter / _exit, after the 8-byte trace_entry and
 * the int syscall number).  A return point's program reads them with
 * bpf_probe_read_kernel(): the kernel refuses to attach a program whose
 * direct context loads go past an event's record, and one program serves
 * records of two sizes. */
#define LANG_SYS_ARG_OFF(i) (16u + 8u * (unsigned)(i))
#define LANG_SYS_RET_OFF 16

/* ---- concrete attach points ---------------------------------------- */

/* One concrete attach point after glob expansion; owned by the struct
 * lang_probes that made it, valid until lang_probes_free().
 *
 * `probe` is name; `func` is func (uprobes: the symbol; tracepoints: the
 * event).  Points of one written glob differ in those two strings: load
 * the program once per point with them as constants, or (uprobes) attach
 * with cookie = index and read bpf_get_attach_cookie(). */
struct lang_point {
	const struct lang_attach *at;	/* as written */
	enum lang_provider provider;
	char *name;			/* "tracepoint:syscalls:sys_enter_openat",
					 * "uprobe:/usr/lib/x86_64-linux-gnu/libc.so.6:malloc",
					 * "profile:hz:99", "BEGIN" */
	char *target;			/* tracepoint: SUB; uprobe: the file; else NULL */
	char *func;			/* tracepoint, rawtracepoint: EVENT; uprobe: the
					 * symbol; software/hardware: the event; else NULL */
	uint64_t index;			/* among the points of its attach point: the cookie */

	/* what to load (bpf_prog_load) */
	enum bpf_prog_type prog_type;
	enum bpf_attach_type attach_type;	/* expected_attach_type (tp_btf: BPF_TRACE_RAW_TP) */
	uint32_t attach_btf_id;		/* tp_btf: id of btf_trace_EVENT in vmlinux BTF */
	bool btf_args;			/* rawtracepoint through tp_btf: args typed; else arg0..N only */
	unsigned nargs;			/* rawtracepoint: arguments the event has (arg0..nargs-1) */

	/* uprobes */
	uint64_t addr;			/* link-time address of func + offset */
	uint64_t offset;		/* file offset the probe is placed at */

	/* perf events: profile, interval, software, hardware */
	uint32_t perf_type;		/* PERF_TYPE_SOFTWARE, PERF_TYPE_HARDWARE */
	uint64_t perf_config;
	uint64_t perf_period;		/* events (or Hz when perf_freq) */
	bool perf_freq;
	bool perf_one_cpu;		/* interval: the first online CPU only */

	void *priv;			/* the provider's (the event's fields, the BTF proto) */
};

/* ---- the providers ------------------------------------------------- */

struct lang_points {
	struct lang_point **v;
	size_t n, cap;
};

/* One per probe type (lang/probe_*.c).  NULL members: the provider has
 * no such thing (-ENOENT from the lang_probes_* wrappers). */
struct lang_provider_ops {
	enum lang_provider provider;
	/* The concrete points of at, each added with lang_points_add(); 0 or
	 * -errno (said: probes_error()). */
	int (*expand)(struct lang_probes *pr, const struct lang_attach *at,
		      struct lang_points *out);
	/* args.FIELD: 0, -ENOENT (no such field, not said), -errno (said). */
	int (*field)(struct lang_probes *pr, const struct lang_point *pt, const char *field,
		     struct lang_field_access *acc);
	/* argN, retval: 0 or -ENOENT. */
	int (*argn)(const struct lang_point *pt, unsigned n, struct lang_field_access *acc);
	int (*retval)(const struct lang_point *pt, struct lang_field_access *acc);
	/* Attaches prog_fd at pt on the session: 0 or -errno (said). */
	int (*attach)(struct session *s, struct lang_probes *pr, const struct lang_point *pt,
		      int prog_fd);
	/* Lists what matches pattern (a glob over "TYPE:..."), with the
	 * arguments when verbose: the count listed, or -errno. */
	int (*list)(struct lang_probes *pr, FILE *f, const char *pattern, bool verbose);
	/* The provider's name and its priv destructor. */
	void (*free_priv)(void *priv);
};

/* The provider of p: never NULL for a valid enum lang_provider. */
const struct lang_provider_ops *lang_provider_get(enum lang_provider p);

/* ---- a run's providers ---------------------------------------------- */

struct lang_probes_opts {
	const pid_t *pids;		/* -p: uprobes bound to these, libraries from their maps */
	int npids;
	const char *cmd_path;		/* -c / --: the command's executable (its libraries) */
	bool unsafe;			/* uprobes at addresses not confirmed as function starts */
	struct lang_prog *prog;		/* errors about written probes go here (may be NULL) */
	/* for tests: a tracefs events directory and a BTF file to read
	 * instead of the kernel's (NULL: the kernel's) */
	const char *events_dir;
	const char *btf_path;
};

/* NULL with errno (ENOMEM).  Nothing is opened yet. */
struct lang_probes *lang_probes_new(const struct lang_probes_opts *o);
void lang_probes_free(struct lang_probes *pr);

/* The points of at (an array owned by pr): 0 or -errno (said).  A glob
 * that matches nothing is an error (-ENOENT). */
int lang_probes_expand(struct lang_probes *pr, const struct lang_attach *at,
		       struct lang_point ***pts, size_t *n);
/* Accesses of args.FIELD, argN and retval at pt: 0, -ENOENT. */
int lang_probes_field(struct lang_probes *pr, const struct lang_point *pt, const char *field,
		      struct lang_field_access *acc);
int lang_probes_argn(struct lang_probes *pr, const struct lang_point *pt, unsigned n,
		     struct lang_field_access *acc);
int lang_probes_retval(struct lang_probes *pr, const struct lang_point *pt,
		       struct lang_field_access *acc);
/* prog_fd at pt, every link and perf fd owned by s: 0 or -errno (said).
 * uprobes: once per -p pid (every process without -p). */
int lang_probes_attach(struct session *s, struct lang_probes *pr, const struct lang_point *pt,
		       int prog_fd);

/* lang_check_opts.resolve_field over the providers (ctx: a struct
 * lang_probes): the field's type at every point at expands to (it must
 * exist at all of them), or -ENOENT; other errors are recorded. */
int lang_probes_resolve_field(void *ctx, const struct lang_attach *at, const char *field,
			      struct lang_type *out);

/* lang_check_opts.kernel_btf over the providers: vmlinux BTF or NULL. */
void *lang_probes_kernel_btf(void *ctx);

/* stackscope -l [PATTERN] / -lv PROBE: what this kernel (and, for
 * uprobe:PATH:..., that binary) offers, one probe a line in bpftrace's
 * spelling; verbose adds "    TYPE NAME" per argument.  PATTERN NULL or
 * "" lists every provider; one without ':' matches any provider's
 * probes.  Returns the count listed or -errno (said). */
int lang_list_probes(FILE *f, const char *pattern, bool verbose, const struct lang_probes_opts *o);

/* ---- for the providers' files --------------------------------------- */

/* A new point of at, added to out: NULL on ENOMEM.  name is copied. */
struct lang_point *lang_points_add(struct lang_points *out, const struct lang_attach *at,
				   const char *name);
/* Says an error about at: recorded in opts.prog when there is one, else
 * msg().  Returns err. */
int probes_error(struct lang_probes *pr, const struct lang_attach *at, int err,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));
const struct lang_probes_opts *probes_opts(const struct lang_probes *pr);
/* The events directory of tracefs (opened, mounted privately, on first
 * use) or of opts.events_dir; NULL with errno (said). */
const char *probes_events_dir(struct lang_probes *pr);
/* vmlinux BTF (or opts.btf_path), loaded on first use; NULL with errno. */
struct btf *probes_btf(struct lang_probes *pr);
/* The syscalls of this kernel (syscall/table.h), read from the events
 * directory's syscalls/ on first use; NULL with errno (said). */
struct sc_table;
struct sc_table *probes_syscalls(struct lang_probes *pr);
/* fnmatch() of a glob against a name, '*', '?' and [...]: true on match. */
bool probes_glob(const char *glob, const char *name);

#endif
