/* The program object, its arena and errors, and the AST dump. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "lang/ast.h"
#include "lang/lexer.h"

/* ---- arena ---------------------------------------------------------- */

#define ARENA_BLOCK (64 * 1024)

struct lang_arena_block {
	struct lang_arena_block *next;
	size_t used, size;
	_Alignas(16) unsigned char data[];
};

void *lang_alloc(struct lang_arena *a, size_t size)
{
	struct lang_arena_block *b = a->head;
	void *p;

	size = (size + 15) & ~(size_t)15;
	if (!size)
		size = 16;
	if (!b || b->size - b->used < size) {
		size_t bsize = size > ARENA_BLOCK ? size : ARENA_BLOCK;

		b = malloc(sizeof(*b) + bsize);
		if (!b) {
			a->failed = true;
			return NULL;
		}
		b->used = 0;
		b->size = bsize;
		b->next = a->head;
		a->head = b;
	}
	p = b->data + b->used;
	b->used += size;
	memset(p, 0, size);
	return p;
}

char *lang_strndup(struct lang_arena *a, const char *s, size_t len)
{
	char *d = lang_alloc(a, len + 1);

	if (d)
		memcpy(d, s, len);
	return d;
}

void lang_arena_free(struct lang_arena *a)
{
	struct lang_arena_block *b = a->head, *next;

	for (; b; b = next) {
		next = b->next;
		free(b);
	}
	a->head = NULL;
}

/* ---- the program ---------------------------------------------------- */

struct lang_prog *lang_prog_new(const char *name, const char *text, size_t len)
{
	struct lang_prog *prog;

	if (len > LANG_MAX_SOURCE) {
		errno = EFBIG;
		return NULL;
	}
	prog = calloc(1, sizeof(*prog));
	if (!prog)
		return NULL;
	prog->errors_tail = &prog->errors;
	prog->name = lang_strndup(&prog->arena, name, strlen(name));
	prog->text = lang_strndup(&prog->arena, text, len);
	prog->len = len;
	if (!prog->name || !prog->text) {
		lang_prog_free(prog);
		errno = ENOMEM;
		return NULL;
	}
	return prog;
}

void lang_prog_free(struct lang_prog *prog)
{
	if (!prog)
		return;
	lang_arena_free(&prog->arena);
	free(prog);
}

#define MAX_ERRORS 20

void lang_errorf(struct lang_prog *prog, struct lang_pos pos, const char *fmt, ...)
{
	struct lang_error *e;
	char msg[256], *text;
	va_list ap;
	int n;

	if (prog->nerrors >= MAX_ERRORS) {
		prog->nerrors++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	n = snprintf(NULL, 0, "%s:%u:%u: %s", prog->name, pos.line, pos.col, msg);
	e = lang_alloc(&prog->arena, sizeof(*e));
	text = lang_alloc(&prog->arena, (size_t)n + 1);
	if (!e || !text) {
		prog->nerrors++;
		return;
	}
	snprintf(text, (size_t)n + 1, "%s:%u:%u: %s", prog->name, pos.line, pos.col, msg);
	e->text = text;
	e->pos = pos;
	*prog->errors_tail = e;
	prog->errors_tail = &e->next;
	prog->nerrors++;
}

size_t lang_error_count(const struct lang_prog *prog)
{
	return prog->nerrors;
}

const char *lang_error(const struct lang_prog *prog, size_t i)
{
	const struct lang_error *e = prog->errors;

	while (e && i--)
		e = e->next;
	return e ? e->text : NULL;
}

/* The source line and a caret under column col (1-based).  A line
 * longer than ERROR_WIDTH (a one-liner on the command line) is shown as
 * the ERROR_WIDTH columns around the error, "..." where it is cut. */
#define ERROR_WIDTH 100
static void print_window(FILE *f, const char *line, const char *eol, unsigned col)
{
	const char *at = line + (col ? col - 1 : 0), *from = line, *to = eol;
	bool cut_left, cut_right;

	if (at > eol)
		at = eol;
	if (eol - line > ERROR_WIDTH) {
		from = at - line > ERROR_WIDTH / 2 ? at - ERROR_WIDTH / 2 : line;
		to = eol - from > ERROR_WIDTH ? from + ERROR_WIDTH : eol;
	}
	cut_left = from > line;
	cut_right = to < eol;
	fprintf(f, "%s%.*s%s\n", cut_left ? "..." : "", (int)(to - from), from,
		cut_right ? "..." : "");
	if (cut_left)
		fputs("   ", f);
	/* tabs kept so the caret lines up under the column */
	for (const char *c = from; c < at; c++)
		fputc(*c == '\t' ? '\t' : ' ', f);
	fputs("^\n", f);
}

void lang_print_errors(FILE *f, const struct lang_prog *prog)
{
	size_t shown = 0;

	for (const struct lang_error *e = prog->errors; e; e = e->next, shown++) {
		const char *line = prog->text, *end = prog->text + prog->len, *eol;

		fprintf(f, "%s\n", e->text);
		for (unsigned l = 1; l < e->pos.line && line < end; l++) {
			const char *nl = memchr(line, '\n', (size_t)(end - line));
			line = nl ? nl + 1 : end;
		}
		eol = memchr(line, '\n', (size_t)(end - line));
		if (!eol)
			eol = end;
		if (line >= end && e->pos.line > 1)
			continue;
		print_window(f, line, eol, e->pos.col);
	}
	if (prog->nerrors > shown)
		fprintf(f, "%s: %zu more errors\n", prog->name, prog->nerrors - shown);
}

/* ---- names ---------------------------------------------------------- */

const char *lang_kind_name(enum lang_kind k)
{
	static const char *const names[] = {
		[LANG_K_NONE] = "unknown", [LANG_K_EXTERN] = "extern", [LANG_K_VOID] = "void",
		[LANG_K_INT] = "int", [LANG_K_STR] = "string", [LANG_K_BUF] = "buffer",
		[LANG_K_STACK] = "stack", [LANG_K_KSYM] = "ksym", [LANG_K_USYM] = "usym",
		[LANG_K_TIMESTAMP] = "timestamp", [LANG_K_TUPLE] = "tuple",
		[LANG_K_COUNT] = "count", [LANG_K_SUM] = "sum", [LANG_K_MIN] = "min",
		[LANG_K_MAX] = "max", [LANG_K_AVG] = "avg", [LANG_K_STATS] = "stats",
		[LANG_K_HIST] = "hist", [LANG_K_LHIST] = "lhist",
	};
	return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

const char *lang_provider_name(enum lang_provider p)
{
	static const char *const names[] = {
		[LANG_P_BEGIN] = "BEGIN", [LANG_P_END] = "END", [LANG_P_KPROBE] = "kprobe",
		[LANG_P_KRETPROBE] = "kretprobe", [LANG_P_UPROBE] = "uprobe",
		[LANG_P_URETPROBE] = "uretprobe", [LANG_P_TRACEPOINT] = "tracepoint",
		[LANG_P_RAWTRACEPOINT] = "rawtracepoint", [LANG_P_USDT] = "usdt",
		[LANG_P_PROFILE] = "profile", [LANG_P_INTERVAL] = "interval",
		[LANG_P_SOFTWARE] = "software", [LANG_P_HARDWARE] = "hardware",
		[LANG_P_FENTRY] = "fentry", [LANG_P_FEXIT] = "fexit",
		[LANG_P_WATCHPOINT] = "watchpoint", [LANG_P_SYSCALL] = "syscall",
	};
	return (unsigned)p < sizeof(names) / sizeof(names[0]) ? names[p] : "?";
}

/* ---- dump ----------------------------------------------------------- */

static void put_type(FILE *f, const struct lang_type *t)
{
	if (t->kind != LANG_K_TUPLE) {
		fputs(lang_kind_name(t->kind), f);
		return;
	}
	fputc('(', f);
	for (size_t i = 0; i < t->nelems; i++) {
		if (i)
			fputs(", ", f);
		put_type(f, &t->elems[i]);
	}
	fputc(')', f);
}

static void put_escaped(FILE *f, const char *s, size_t len)
{
	fputc('"', f);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '\n': fputs("\\n", f); break;
		case '\t': fputs("\\t", f); break;
		case '\r': fputs("\\r", f); break;
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		default:
			if (c < 0x20 || c >= 0x7f)
				fprintf(f, "\\x%02x", c);
			else
				fputc(c, f);
		}
	}
	fputc('"', f);
}

static void indent(FILE *f, int depth)
{
	fprintf(f, "%*s", depth * 2, "");
}

static void dump_node(FILE *f, const struct lang_node *n, int depth);

static void dump_list(FILE *f, const struct lang_node *n, int depth)
{
	for (size_t i = 0; i < n->n; i++)
		dump_node(f, n->list[i], depth);
}

/* A block's statements under a label line. */
static void dump_block(FILE *f, const char *label, const struct lang_node *blk, int depth)
{
	indent(f, depth);
	fprintf(f, "%s\n", label);
	if (blk)
		dump_list(f, blk, depth + 1);
}

static void dump_node(FILE *f, const struct lang_node *n, int depth)
{
	if (!n)
		return;
	/* an expression statement is shown as its expression */
	if (n->kind == LANG_N_EXPR) {
		dump_node(f, n->a, depth);
		return;
	}
	indent(f, depth);
	switch (n->kind) {
	case LANG_N_INT: fprintf(f, "int: %llu", (unsigned long long)n->num); break;
	case LANG_N_STR: fputs("string: ", f); put_escaped(f, n->str, n->len); break;
	case LANG_N_VAR: fprintf(f, "variable: %s", n->name); break;
	case LANG_N_MAP: fprintf(f, "map: %s", n->name); break;
	case LANG_N_PARAM: fprintf(f, "param: $%llu", (unsigned long long)n->num); break;
	case LANG_N_PARAMCOUNT: fputs("param: $#", f); break;
	case LANG_N_BUILTIN: fprintf(f, "builtin: %s", n->name); break;
	case LANG_N_IDENT: fprintf(f, "identifier: %s", n->name); break;
	case LANG_N_CALL: fprintf(f, "call: %s", n->name); break;
	case LANG_N_FIELD: fprintf(f, "field %s %s", lang_tok_name(n->op), n->name); break;
	case LANG_N_INDEX: fputs("[]", f); break;
	case LANG_N_UNARY: fprintf(f, "unop: %s", lang_tok_name(n->op)); break;
	case LANG_N_INCDEC:
		fprintf(f, "unop: %s (%s)", lang_tok_name(n->op), n->num ? "post" : "pre");
		break;
	case LANG_N_BINARY: fputs(lang_tok_name(n->op), f); break;
	case LANG_N_TERNARY: fputs("?:", f); break;
	case LANG_N_CAST: fprintf(f, "cast: %s", n->name); break;
	case LANG_N_TUPLE: fputs("tuple", f); break;
	case LANG_N_RANGE: fputs("range", f); break;
	case LANG_N_ASSIGN: fputs(lang_tok_name(n->op), f); break;
	case LANG_N_EXPR:
		break;
	case LANG_N_BLOCK: fputs("block\n", f); dump_list(f, n, depth + 1); return;
	case LANG_N_IF:
		fputs("if\n", f);
		dump_node(f, n->a, depth + 1);
		dump_block(f, "then", n->b, depth + 1);
		if (n->c && n->c->kind == LANG_N_IF) {
			indent(f, depth + 1);
			fputs("else\n", f);
			dump_node(f, n->c, depth + 2);
		} else if (n->c) {
			dump_block(f, "else", n->c, depth + 1);
		}
		return;
	case LANG_N_WHILE:
	case LANG_N_UNROLL:
		fputs(n->kind == LANG_N_WHILE ? "while\n" : "unroll\n", f);
		dump_node(f, n->a, depth + 1);
		dump_block(f, "body", n->b, depth + 1);
		return;
	case LANG_N_FOR:
		fputs("for\n", f);
		dump_node(f, n->a, depth + 1);
		dump_node(f, n->b, depth + 1);
		dump_block(f, "body", n->c, depth + 1);
		return;

	case LANG_N_RETURN: fputs("return", f); break;
	case LANG_N_BREAK: fputs("break", f); break;
	case LANG_N_CONTINUE: fputs("continue", f); break;
	}
	if (n->type.kind != LANG_K_NONE && n->kind != LANG_N_ASSIGN && n->kind != LANG_N_EXPR) {
		fputs(" :: ", f);
		put_type(f, &n->type);
	}
	fputc('\n', f);
	dump_node(f, n->a, depth + 1);
	dump_node(f, n->b, depth + 1);
	dump_node(f, n->c, depth + 1);
	dump_list(f, n, depth + 1);
}

static void dump_attach(FILE *f, const struct lang_attach *at)
{
	fprintf(f, "    attach: %s", lang_provider_name(at->provider));
	if (at->target)
		fprintf(f, " target=%s", at->target);
	if (at->ns)
		fprintf(f, " provider=%s", at->ns);
	if (at->func)
		fprintf(f, " %s=%s", at->provider == LANG_P_TRACEPOINT ||
			at->provider == LANG_P_RAWTRACEPOINT || at->provider == LANG_P_SOFTWARE ||
			at->provider == LANG_P_HARDWARE || at->provider == LANG_P_USDT ?
			"event" : "func", at->func);
	if (at->has_offset)
		fprintf(f, " offset=%llu", (unsigned long long)at->offset);
	if (at->unit)
		fprintf(f, " unit=%s", at->unit);
	if (at->provider == LANG_P_WATCHPOINT)
		fprintf(f, " addr=0x%llx len=%llu mode=%s", (unsigned long long)at->num,
			(unsigned long long)at->len, at->mode ? at->mode : "");
	else if (at->provider == LANG_P_SYSCALL)
		fprintf(f, " at=%s", at->mode ? at->mode : "");
	else if (at->num || at->unit)
		fprintf(f, " %s=%llu", at->unit ? "rate" : "count", (unsigned long long)at->num);
	if (at->wildcard)
		fputs(" wildcard", f);
	fputc('\n', f);
}

void lang_dump_ast(FILE *f, const struct lang_prog *prog)
{
	fputs("program\n", f);
	if (prog->config) {
		fputs("  config\n", f);
		for (const struct lang_config *c = prog->config; c; c = c->next) {
			fprintf(f, "    %s\n", c->key);
			dump_node(f, c->value, 3);
		}
	}
	for (const struct lang_probe *p = prog->probes; p; p = p->next) {
		fputs("  probe\n", f);
		for (size_t i = 0; i < p->nattach; i++)
			dump_attach(f, &p->attach[i]);
		if (p->pred) {
			fputs("    predicate\n", f);
			dump_node(f, p->pred, 3);
		}
		dump_block(f, "body", p->body, 2);
	}
}
