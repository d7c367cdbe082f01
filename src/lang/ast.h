/* The language's AST, types, builtins table and arena: what the parser
 * builds, the checker annotates and the code generator will read.
 * Every node, string and list lives in the program's arena and dies
 * with lang_prog_free(). */
#ifndef STACKSCOPE_LANG_AST_H
#define STACKSCOPE_LANG_AST_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lang/lang.h"

/* 1-based line and column (in bytes) of a node's first character. */
struct lang_pos {
	unsigned line, col;
};

/* ---- arena ---------------------------------------------------------- */

struct lang_arena_block;
struct lang_arena {
	struct lang_arena_block *head;
	bool failed;			/* an allocation failed: results are partial */
};

/* Zeroed memory of size bytes, 16-aligned; NULL when out of memory. */
void *lang_alloc(struct lang_arena *a, size_t size);
char *lang_strndup(struct lang_arena *a, const char *s, size_t len);
void lang_arena_free(struct lang_arena *a);

/* ---- value kinds ---------------------------------------------------- */

enum lang_kind {
	LANG_K_NONE,		/* not known yet */
	LANG_K_EXTERN,		/* the kernel's to say (args, curtask fields): resolved later */
	LANG_K_VOID,		/* a call with no value (printf) */
	LANG_K_INT,
	LANG_K_STR,
	LANG_K_BUF,		/* buf() */
	LANG_K_STACK,		/* kstack, ustack */
	LANG_K_KSYM,		/* ksym() */
	LANG_K_USYM,		/* usym() */
	LANG_K_TIMESTAMP,	/* strftime() */
	LANG_K_TUPLE,
	/* map aggregations: only the value of a map element */
	LANG_K_COUNT,
	LANG_K_SUM,
	LANG_K_MIN,
	LANG_K_MAX,
	LANG_K_AVG,
	LANG_K_STATS,
	LANG_K_HIST,
	LANG_K_LHIST,
};

/* A value's type: a kind, the elements of a tuple. */
struct lang_type {
	enum lang_kind kind;
	size_t nelems;
	struct lang_type *elems;	/* arena */
	/* kernel types (vmlinux BTF): an INT that is a pointer to this
	 * struct or union, or an EXTERN that is one by value; 0 none */
	uint32_t btf_id;
};

/* How the checker says a dereference reads memory (*p, p->field,
 * record.field): size bytes at the base address + off. */
struct lang_deref {
	uint32_t off;
	uint32_t size;			/* 1, 2, 4, 8; a char array's length */
	bool is_signed;
	bool str;			/* a char array, read as a string */
	bool record;			/* a struct or union by value: an address only */
	bool kernel;			/* kernel memory whatever the probe (BTF types) */
};

const char *lang_kind_name(enum lang_kind k);

/* ---- builtins: the one table (builtins.c) ---------------------------- */

/* What a builtin's argument must be. */
enum lang_arg {
	LANG_A_ANY,
	LANG_A_INT,
	LANG_A_STR,		/* a string value */
	LANG_A_STRLIT,		/* a string literal */
	LANG_A_INTLIT,		/* an integer literal (or $N) */
	LANG_A_MAP,		/* @m, without keys */
	LANG_A_MAPELEM,		/* @m or @m[k...] */
	LANG_A_STACKMODE,	/* bpftrace, perf, raw: an identifier */
	LANG_A_STRORINT,
};

enum lang_builtin_type {
	LANG_BI_VAR,		/* a bare identifier: pid, comm */
	LANG_BI_FUNC,		/* a call: count(), printf() */
	LANG_BI_BOTH,		/* either: kstack, kstack(perf, 5) */
};

enum {
	LANG_BF_UNSAFE = 1 << 0,	/* refused without --unsafe */
	LANG_BF_AGG = 1 << 1,		/* must be the value assigned to a map */
	LANG_BF_RET = 1 << 2,		/* return probes only (retval) */
	LANG_BF_ARGS = 1 << 3,		/* probes with typed args (args) */
	LANG_BF_ARGN = 1 << 4,		/* probes with register args (arg0..) */
	LANG_BF_FORMAT = 1 << 6,	/* arg 0 is a printf format for the rest */
	LANG_BF_NOVALUE = 1 << 7,	/* a statement: its value cannot be used */
	LANG_BF_SYSRET = 1 << 8,	/* syscall:NAME:return probes only (duration, call) */
};

#define LANG_BI_MAXARGS 4
struct lang_builtin {
	const char *name;		/* "argN" stands for arg0, arg1, ... */
	enum lang_builtin_type type;
	unsigned char min_args, max_args;	/* max 255: unbounded (the rest LANG_A_ANY) */
	enum lang_arg args[LANG_BI_MAXARGS];	/* kinds of the first args */
	enum lang_kind result;		/* LANG_K_NONE: the argument's (max, min) */
	unsigned flags;			/* LANG_BF_* */
};

/* The entry for name, or NULL. */
const struct lang_builtin *lang_builtin_find(const char *name);
extern const struct lang_builtin lang_builtins[];
extern const size_t lang_nbuiltins;

/* ---- probes --------------------------------------------------------- */

enum lang_provider {
	LANG_P_BEGIN,
	LANG_P_END,
	LANG_P_KPROBE,
	LANG_P_KRETPROBE,
	LANG_P_UPROBE,
	LANG_P_URETPROBE,
	LANG_P_TRACEPOINT,
	LANG_P_RAWTRACEPOINT,
	LANG_P_USDT,
	LANG_P_PROFILE,
	LANG_P_INTERVAL,
	LANG_P_SOFTWARE,
	LANG_P_HARDWARE,
	LANG_P_FENTRY,
	LANG_P_FEXIT,
	LANG_P_WATCHPOINT,
	LANG_P_SYSCALL,
};

const char *lang_provider_name(enum lang_provider p);

/* One attach point, split by its provider's shape:
 *   kprobe:[MOD:]FUNC[+OFF]     target=MOD func=FUNC offset
 *   uprobe:PATH:FUNC[+OFF]      target=PATH func=FUNC offset (FUNC may be an address)
 *   tracepoint:CAT:EVENT        target=CAT func=EVENT
 *   rawtracepoint:[MOD:]EVENT   target=MOD func=EVENT
 *   usdt:PATH:[PROV:]NAME       target=PATH ns=PROV func=NAME
 *   profile:UNIT:N interval:UNIT:N   unit, num
 *   software:EVENT[:COUNT] hardware:...   func=EVENT num (0: the default)
 *   fentry:[MOD:]FUNC fexit:... target=MOD func=FUNC
 *   watchpoint:ADDR:LEN:MODE    num=ADDR len mode
 *   syscall:NAME:entry|return   func=NAME mode="entry" or "return" */
struct lang_attach {
	struct lang_pos pos;
	enum lang_provider provider;
	const char *text;		/* as written */
	const char *target, *ns, *func, *unit, *mode;	/* NULL when absent */
	uint64_t offset, num, len;
	bool has_offset, wildcard;
};

/* ---- nodes ---------------------------------------------------------- */

enum lang_node_kind {
	/* expressions */
	LANG_N_INT,		/* num */
	LANG_N_STR,		/* str, len (escapes resolved) */
	LANG_N_VAR,		/* name "$x" */
	LANG_N_MAP,		/* name "@m" or "@"; list = keys */
	LANG_N_PARAM,		/* $num */
	LANG_N_PARAMCOUNT,	/* $# */
	LANG_N_BUILTIN,		/* name, bi: pid, comm, kstack */
	LANG_N_IDENT,		/* name: an identifier not a builtin (perf, enum names) */
	LANG_N_CALL,		/* name, bi (NULL: not a builtin); list = args */
	LANG_N_FIELD,		/* a.name; op = LANG_TOK_DOT or LANG_TOK_ARROW */
	LANG_N_INDEX,		/* a[b] */
	LANG_N_UNARY,		/* op a: ! ~ - * & */
	LANG_N_INCDEC,		/* op a (op LANG_TOK_INC/DEC); num 1: postfix */
	LANG_N_BINARY,		/* a op b */
	LANG_N_TERNARY,		/* a ? b : c */
	LANG_N_CAST,		/* (name)a */
	LANG_N_TUPLE,		/* list */
	LANG_N_RANGE,		/* a..b (for loops only) */
	/* statements */
	LANG_N_ASSIGN,		/* a op b; op = LANG_TOK_ASSIGN or a compound one */
	LANG_N_EXPR,		/* a; */
	LANG_N_BLOCK,		/* list = statements */
	LANG_N_IF,		/* if (a) b else c; c a BLOCK, an IF or NULL */
	LANG_N_WHILE,		/* while (a) b */
	LANG_N_FOR,		/* for (a : b) c; b a RANGE or a MAP */
	LANG_N_UNROLL,		/* unroll (a) b */
	LANG_N_RETURN,		/* a or NULL */
	LANG_N_BREAK,
	LANG_N_CONTINUE,
};

struct lang_node {
	enum lang_node_kind kind;
	struct lang_pos pos;
	int op;				/* enum lang_tok_kind */
	const char *name;
	uint64_t num;
	const char *str;
	size_t len;
	struct lang_node *a, *b, *c;
	struct lang_node **list;
	size_t n;
	const struct lang_builtin *bi;
	struct lang_type type;		/* set by lang_check() */
	struct lang_deref deref;	/* set by lang_check(): *p (size), p->f, r.f (size != 0) */
};

/* probe[, probe...] [/pred/] { body } */
struct lang_probe {
	struct lang_pos pos;
	struct lang_attach *attach;
	size_t nattach;
	struct lang_node *pred;		/* NULL: none */
	struct lang_node *body;		/* a BLOCK */
	struct lang_probe *next;
};

/* config = { key = value; ... }: value an INT, STR or IDENT node. */
struct lang_config {
	struct lang_pos pos;
	const char *key;
	struct lang_node *value;
	struct lang_config *next;
};

/* One map's use, settled by the checker over every probe. */
struct lang_map {
	const char *name;
	struct lang_pos pos;		/* first use */
	long nkeys;			/* -1: not known yet */
	struct lang_type *keys;		/* nkeys */
	struct lang_type value;
	struct lang_map *next;
};

struct lang_error {
	char *text;			/* "FILE:LINE:COL: message" */
	struct lang_pos pos;
	struct lang_error *next;
};

struct lang_prog {
	struct lang_arena arena;
	const char *name;
	char *text;			/* NUL-terminated copy */
	size_t len;
	struct lang_config *config;
	struct lang_probe *probes;
	struct lang_map *maps;		/* after lang_check() */
	struct lang_error *errors, **errors_tail;
	size_t nerrors;
	bool parsed;
};

/* Records "NAME:LINE:COL: message" (at most a few dozen are kept). */
void lang_errorf(struct lang_prog *prog, struct lang_pos pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
