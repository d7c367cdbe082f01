/* The one-liner language (bpftrace's dialect): source text -> checked AST.
 *
 * A program is parsed and checked in one struct lang_prog, which owns
 * every node (one arena), the source text and the errors found.  Nothing
 * here keeps global state: two programs can be handled at once, and the
 * fuzzer feeds it arbitrary bytes.
 *
 *   prog = lang_prog_new(name, text, len);
 *   if (lang_parse(prog) || lang_check(prog, &opts))
 *           lang_print_errors(stderr, prog);
 *   else
 *           lang_dump_ast(stdout, prog);
 *   lang_prog_free(prog);
 *
 * The AST itself (for the code generator) is in lang/ast.h. */
#ifndef STACKSCOPE_LANG_LANG_H
#define STACKSCOPE_LANG_LANG_H
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct lang_prog;
struct lang_attach;
struct lang_type;

/* Programs larger than this are refused before lexing. */
#define LANG_MAX_SOURCE (1u << 20)
/* Nesting of expressions and blocks deeper than this is an error, so
 * that no input can exhaust the stack. */
#define LANG_MAX_DEPTH 256

struct lang_check_opts {
	bool unsafe;			/* system() and cat() allowed */
	int nparams;			/* $1..$nparams, from the command line */
	char *const *params;
	/* Kernel-dependent types: the type of args.FIELD (tracepoint format,
	 * BTF) for one attach point.  0 with *out set, or -ENOENT (the field
	 * does not exist: an error).  NULL leaves such fields unresolved. */
	int (*resolve_field)(void *ctx, const struct lang_attach *at,
			     const char *field, struct lang_type *out);
	void *ctx;
	/* vmlinux BTF (struct btf *, same ctx) for curtask, casts to struct
	 * pointers and p->field; NULL, or a NULL answer: none. */
	void *(*kernel_btf)(void *ctx);
};

/* A program named name (for messages: a path, "stdin", "-e") over a copy
 * of text[0..len).  NULL with errno set (ENOMEM). */
struct lang_prog *lang_prog_new(const char *name, const char *text, size_t len);
void lang_prog_free(struct lang_prog *prog);

/* Parses the program.  0, or -EINVAL with the errors recorded; the AST
 * is then partial and must not be checked. */
int lang_parse(struct lang_prog *prog);
/* Resolves scopes and types (see check.c).  0 or -EINVAL (errors recorded). */
int lang_check(struct lang_prog *prog, const struct lang_check_opts *opts);

/* The AST as indented text, one node a line (stable: golden tests). */
void lang_dump_ast(FILE *f, const struct lang_prog *prog);

size_t lang_error_count(const struct lang_prog *prog);
/* "FILE:LINE:COL: message" of error i. */
const char *lang_error(const struct lang_prog *prog, size_t i);
/* Every error: its line, then the source line and a caret under the column. */
void lang_print_errors(FILE *f, const struct lang_prog *prog);

#endif
