/* Helpers of the language's unit tests: a program's AST dump or first
 * error as a string, and the dump folded into one S-expression line so
 * that a golden expectation fits on a line:
 *
 *   "1 + 2 * 3"  ->  "(+ int: 1 (* int: 2 int: 3))"
 *
 * A node with children is "(LINE child...)", a leaf is its LINE. */
#ifndef LANG_TEST_H
#define LANG_TEST_H
#include <errno.h>
#include <limits.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "test.h"
#include "lang/lang.h"
#include "lang/ast.h"

/* Writes text to root/rel, making rel's directories (a fake tracefs
 * events tree of a test). */
static inline void lt_put_file(const char *root, const char *rel, const char *text)
{
	char path[PATH_MAX + 100], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (slash = strchr(path + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = 0;
		mkdir(path, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* Results live in a ring of static buffers: the last 8 stay valid. */
static inline char *lt_buf(void)
{
	static char bufs[8][16384];
	static int next;

	return bufs[next++ % 8];
}

/* The dump of src (parsed; checked too when check), or "error: FIRST". */
static inline const char *lt_run(const char *src, bool check, const struct lang_check_opts *o)
{
	struct lang_prog *prog = lang_prog_new("t", src, strlen(src));
	struct lang_check_opts none = { 0 };
	char *out = lt_buf(), *mem = NULL;
	size_t n = 0;
	FILE *f;

	out[0] = 0;
	if (!prog)
		return "error: lang_prog_new failed";
	if (lang_parse(prog) || (check && lang_check(prog, o ? o : &none))) {
		snprintf(out, 16384, "error: %s", lang_error(prog, 0) ? lang_error(prog, 0) : "?");
		lang_prog_free(prog);
		return out;
	}
	f = open_memstream(&mem, &n);
	if (f) {
		lang_dump_ast(f, prog);
		fclose(f);
		snprintf(out, 16384, "%s", mem);
		free(mem);
	}
	lang_prog_free(prog);
	return out;
}

static inline int lt_level(const char *line)
{
	int n = 0;

	while (line[n] == ' ')
		n++;
	return n / 2;
}

/* Folds lines[*i..] at level lvl into out. */
static inline void lt_fold(char **lines, int nlines, int *i, char *out, size_t size)
{
	int lvl = lt_level(lines[*i]);
	const char *text = lines[*i] + lvl * 2;
	bool kids = *i + 1 < nlines && lt_level(lines[*i + 1]) > lvl;
	size_t len = strlen(out);

	snprintf(out + len, size - len, "%s%s", kids ? "(" : "", text);
	(*i)++;
	while (*i < nlines && lt_level(lines[*i]) > lvl) {
		len = strlen(out);
		snprintf(out + len, size - len, " ");
		lt_fold(lines, nlines, i, out, size);
	}
	if (kids) {
		len = strlen(out);
		snprintf(out + len, size - len, ")");
	}
}

/* The S-expressions of the lines of dump from the first line at indent
 * `from` (in levels), joined by "; " -- or dump itself if an error. */
static inline const char *lt_sexp(const char *dump, int from)
{
	char *copy, *lines[1024], *out = lt_buf();
	int n = 0, i = 0;

	if (!strncmp(dump, "error: ", 7))
		return dump;
	copy = strdup(dump);
	out[0] = 0;
	for (char *l = strtok(copy, "\n"); l && n < 1024; l = strtok(NULL, "\n"))
		if (lt_level(l) >= from || n)
			lines[n++] = l;
	/* the lines under "body" of the (one) probe */
	while (i < n && lt_level(lines[i]) >= from) {
		if (out[0])
			strncat(out, "; ", 16383 - strlen(out));
		lt_fold(lines, n, &i, out, 16384);
	}
	free(copy);
	return out;
}

/* The statements of "BEGIN { body }" as S-expressions. */
static inline const char *lt_body(const char *body, bool check)
{
	char src[4096];
	const char *d;

	snprintf(src, sizeof(src), "BEGIN { %s }", body);
	d = lt_run(src, check, NULL);
	if (!strncmp(d, "error: ", 7))
		return d;
	d = strstr(d, "    body\n");
	return d ? lt_sexp(d + 9, 3) : "(no body)";
}

/* A table row: input and expectation. */
struct lt_case {
	const char *in, *want;
};

#define LT_CHECK(got, c)                                                    \
	do {                                                                \
		const char *g_ = (got);                                     \
		if (strcmp(g_, (c)->want))                                  \
			test_fail(__FILE__, __LINE__, "%s\n    got:  %s\n    want: %s", \
				  (c)->in, g_, (c)->want);                  \
	} while (0)

#endif
