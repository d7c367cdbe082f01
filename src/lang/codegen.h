/* The code generator: a checked program (lang/ast.h) -> BPF programs,
 * the maps they use and the layouts of what they send to user space.
 *
 *   cg = lang_cg_new(prog, &opts);
 *   for each probe, for each concrete attach point:
 *           idx = lang_cg_gen(cg, probe, &point);   (-1: errors in prog)
 *   ... the runtime creates cg->maps[i] (fd in .fd), lang_cg_patch_fds(),
 *       loads cg->progs[i].code.insn, attaches, reads records (rec.h)
 *   lang_cg_free(cg);
 *
 * Map references are emitted as BPF_PSEUDO_MAP_FD loads whose imm is the
 * index in cg->maps until lang_cg_patch_fds() puts the fds in, so that a
 * dump (--dump bpf, golden tests) needs no kernel.
 *
 * Registers: r6..r9 hold the innermost expression temporaries, deeper
 * ones spill to stack slots (any expression depth works); ctx and the
 * program's scratch pointers live at fixed stack slots.  Values larger
 * than 8 bytes (strings, tuples, keys, records) live in the program's
 * own per-CPU scratch map: never shared between programs, because a
 * tracepoint program can be interrupted by a perf_event program on the
 * same CPU. */
#ifndef STACKSCOPE_LANG_CODEGEN_H
#define STACKSCOPE_LANG_CODEGEN_H
#include <stdbool.h>
#include <stdint.h>
#include <linux/bpf.h>
#include "lang/ast.h"
#include "lang/insn.h"
#include "lang/provider.h"

/* Limits of the generated code. */
#define LANG_CG_MAX_STRLEN 1024		/* max_strlen's ceiling */
#define LANG_CG_SCRATCH_MAX (30 * 1024)	/* one program's scratch, bytes */
#define LANG_CG_RINGBUF_SIZE (1u << 20)	/* default ring buffer, bytes */
#define LANG_CG_SNAP_RINGBUF_SIZE (8u << 20)	/* ... when records carry user stacks */
#define LANG_CG_MAX_HIST_K 5

struct lang_cg_opts {
	unsigned max_strlen;		/* 0: 64 (config max_strlen wins) */
	unsigned max_map_keys;		/* 0: 4096 (config max_map_keys wins) */
	uint32_t ringbuf_size;		/* 0: LANG_CG_RINGBUF_SIZE; a power of two */
	uint32_t ncpus;			/* the ncpus builtin */
	uint32_t ncpus_possible;	/* CPU ids a per-CPU map has values for; 0: ncpus */
	uint64_t start_ns;		/* CLOCK_MONOTONIC at start: elapsed */
	uint64_t cpid;			/* the cpid builtin */
	int nparams;			/* $1..$N, $# */
	char *const *params;
	bool no_bpf_loop;		/* the kernel has no bpf_loop(): range loops open-coded */
};

/* for ($i : A..B): at most this many iterations (bpf_loop()'s own limit) */
#define LANG_CG_RANGE_MAX (1 << 23)

/* One concrete attach point a program is generated for. */
struct lang_cg_point {
	const struct lang_attach *at;
	const char *name;		/* the `probe` builtin: "tracepoint:syscalls:sys_enter_openat" */
	const char *func;		/* the `func` builtin; NULL: name */
	enum bpf_prog_type type;
	/* Where args.NAME (name NULL: argN with n; "retval": retval) is, as
	 * the probe's provider says (lang/provider.h): 0 or -ENOENT.  NULL:
	 * the probe has none. */
	int (*field)(void *ctx, const char *name, unsigned n, struct lang_field_access *acc);
	void *ctx;
	/* syscall:NAME:entry|return (lang/provider.h); NULL otherwise */
	const struct lang_sys_point *sys;
};

enum lang_cg_map_role {
	LANG_CGM_USER,		/* a program's @map */
	LANG_CGM_RINGBUF,	/* every record to user space */
	LANG_CGM_STATE,		/* [0] exit flag, set by exit() */
	LANG_CGM_LOST,		/* per-CPU u64 per program: records the ring buffer refused */
	LANG_CGM_FULL,		/* per-CPU u64 per @map: updates refused (map full) */
	LANG_CGM_SCRATCH,	/* per-CPU, one program's */
	LANG_CGM_STACKS,	/* kstack/ustack ids */
	LANG_CGM_SNAP,		/* per-CPU, one program's: a record + a user stack copy */
	LANG_CGM_SYSENTRY,	/* syscall return probes: (pid_tgid, prog) -> the entry's
				 * time and arguments (struct lang_sys_saved) */
};

struct lang_cg_map {
	enum lang_cg_map_role role;
	enum bpf_map_type type;
	uint32_t key_size, value_size, max_entries;
	char name[16];
	const struct lang_map *m;	/* LANG_CGM_USER */
	struct lang_type key;		/* a tuple of the keys (nelems 0: none) */
	uint32_t hist_k;		/* HIST */
	int64_t lmin, lmax, lstep;	/* LHIST */
	uint32_t nbuckets;		/* HIST, LHIST */
	bool uagg;			/* keyed by a table-unwound ustack: aggregated by
					 * the runtime from LANG_CGS_UAGG records (the BPF
					 * map stays empty) */
	int fd;				/* the runtime's; -1 */
};

/* A piece of a record: a value of type at offset. */
struct lang_cg_arg {
	struct lang_type type;
	uint32_t off;
	int site;			/* strftime/ksym: the site of its format, -1 */
	int render;			/* LANG_CG_RENDER_*: an int the runtime turns into a string */
};

enum {
	LANG_CG_RENDER_NONE,
	LANG_CG_RENDER_STRERROR,	/* strerror(n) */
	LANG_CG_RENDER_SYSCALL,		/* syscall_name(n) */
	LANG_CG_RENDER_CALL,		/* `call`: a struct lang_rec_call -> the decoders' line */
};

/* What a record says beyond its header: one per call site. */
enum lang_cg_site_kind {
	LANG_CGS_PRINTF,
	LANG_CGS_PRINT_MAP,	/* print(@m, top, div) */
	LANG_CGS_PRINT_VAL,	/* print(value) */
	LANG_CGS_TIME,		/* time(fmt) */
	LANG_CGS_EXIT,		/* exit(code): args[0] */
	LANG_CGS_CLEAR,		/* clear(@m) */
	LANG_CGS_ZERO,		/* zero(@m) */
	LANG_CGS_STRFTIME,	/* a format only: args of other sites point here */
	LANG_CGS_ERRORF,
	LANG_CGS_JOIN,		/* join(argv[, delim]): LANG_CG_JOIN_MAX strings; fmt the delimiter */
	LANG_CGS_UAGG,		/* @map[...ustack...] op= value, for the runtime to
				 * aggregate: args[0] the key, args[1] the operand (hist,
				 * lhist: the bucket; count: 1) */
};

#define LANG_CG_JOIN_MAX 16

struct lang_cg_site {
	enum lang_cg_site_kind kind;
	struct lang_pos pos;
	const char *fmt;		/* PRINTF, TIME, STRFTIME (arena) */
	size_t fmtlen;
	struct lang_cg_arg *args;
	size_t nargs;
	uint32_t size;			/* the record's bytes, header included */
	int map;			/* PRINT_MAP, CLEAR, ZERO: index in maps */
	uint32_t top, div;
	bool snap;			/* a user-stack snapshot follows (rec.h) */
};

struct lang_cg_prog {
	const struct lang_probe *probe;
	const struct lang_cg_point *point;	/* NULL after the call */
	char name[16];
	enum bpf_prog_type type;
	struct insn_buf code;
	int scratch;			/* index in maps */
	int snap;			/* its snapshot buffer (a record being built with the
					 * user stack copy), index in maps; -1 none */
	int attach_count;		/* set by the runtime */
	/* BPF functions after the program (for ($kv : @map) bodies, called
	 * by bpf_for_each_map_elem, and for ($i : A..B) bodies, called by
	 * bpf_loop): where each starts in code */
	uint32_t *funcs;
	uint32_t *func_types;		/* each one's BTF: LANG_CG_BTF_CB or _LOOP_CB */
	size_t nfuncs;
};

struct lang_cg {
	struct lang_prog *prog;
	struct lang_cg_opts o;
	unsigned strlen;		/* string buffer bytes (a multiple of 8) */
	struct lang_cg_map *maps;
	size_t nmaps;
	struct lang_cg_prog *progs;
	size_t nprogs;
	struct lang_cg_site *sites;
	size_t nsites;
	int ringbuf, state, lost, full, stacks;	/* indexes in maps, -1 none */
	int sysentry;				/* LANG_CGM_SYSENTRY, -1 none */
	bool print_maps_on_exit;
	bool snap_used;			/* some ustack is table-unwound (not fp) */
};

struct lang_cg *lang_cg_new(struct lang_prog *prog, const struct lang_cg_opts *o);
void lang_cg_free(struct lang_cg *cg);
/* One program for probe p at pt: its index in cg->progs, or -1 with the
 * errors recorded in the program (lang_print_errors). */
int lang_cg_gen(struct lang_cg *cg, const struct lang_probe *p, const struct lang_cg_point *pt);
/* Map loads get the runtime's fds (maps[i].fd). */
void lang_cg_patch_fds(struct lang_cg *cg, struct lang_cg_prog *p);
/* Bytes a value of type t takes in a key, a value or a record. */
uint32_t lang_cg_size(const struct lang_cg *cg, const struct lang_type *t);
/* The user @map named name, or NULL. */
const struct lang_cg_map *lang_cg_map_find(const struct lang_cg *cg, const char *name);
/* A program with funcs is loaded with BTF function info: this blob
 * (malloc'ed, *size bytes) has the program's FUNC at type
 * LANG_CG_BTF_PROG and the callbacks' at LANG_CG_BTF_CB. */
#define LANG_CG_BTF_PROG 4
#define LANG_CG_BTF_CB 6
#define LANG_CG_BTF_LOOP_CB 9
void *lang_cg_btf(uint32_t *size);
/* "LINE:COL" of the source construct that produced instruction i. */
struct lang_pos lang_cg_insn_pos(const struct lang_cg_prog *p, size_t i);
/* The programs as text: "PROGRAM name (type)" then insn_dump(). */
void lang_cg_dump(FILE *f, const struct lang_cg *cg);

/* `call` (struct lang_rec_call): the data slot of argument arg under
 * spec, or -1 when its memory is not captured; the record's bytes. */
struct sc_spec;
int lang_cg_call_slot(const struct sc_spec *spec, int arg);
uint32_t lang_cg_call_size(const struct sc_spec *spec);
/* ... the elements of a counted array (SC_CAP_ARRAY_*) its slot holds */
struct sc_arg_spec;
uint32_t lang_cg_call_array_max(const struct sc_arg_spec *as);

/* hist()'s and lhist()'s bucket of v, as the generated code computes it
 * (bpftrace's). */
unsigned lang_cg_hist_index(int64_t v, unsigned k);
uint32_t lang_cg_hist_buckets(unsigned k);
unsigned lang_cg_lhist_index(int64_t v, int64_t min, int64_t max, int64_t step);

#endif
