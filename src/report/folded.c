/* Folded stacks writer and reader. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "report/folded.h"
#include "report/text.h"

#define KERNEL_SUFFIX "_[k]"
#define KERNEL_SUFFIX_LEN (sizeof(KERNEL_SUFFIX) - 1)

/* Writes name with ';' (the frame delimiter) as ':' and control
 * characters escaped (report/text.h). */
static void put_name(FILE *f, const char *name)
{
	const char *p = name;

	while (*p) {
		size_t n = strcspn(p, ";");

		text_put_n(f, p, n);
		p += n;
		if (!*p)
			break;
		fputc(':', f);
		p++;
	}
}

int report_folded_write(FILE *f, const struct stacks *s)
{
	size_t n = stacks_count(s);

	for (size_t i = 0; i < n; i++) {
		const struct stack_entry *e = stacks_get(s, i);
		uint64_t value = e->value;

		/* stacks that differ only by address are one line */
		while (i + 1 < n && stacks_same_names(e, stacks_get(s, i + 1))) {
			uint64_t v = stacks_get(s, ++i)->value;

			value = value + v < value ? UINT64_MAX : value + v;
		}
		for (unsigned int d = 0; d < e->depth; d++) {
			if (d)
				fputc(';', f);
			put_name(f, e->frames[d]->name);
			if (e->frames[d]->kind == FRAME_KERNEL)
				fputs(KERNEL_SUFFIX, f);
		}
		fprintf(f, " %" PRIu64 "\n", value);
		if (ferror(f))
			return -EIO;
	}
	if (fflush(f))
		return -errno;
	return ferror(f) ? -EIO : 0;
}

/* Parses the decimal digits [p, end) into *v; 0 or -EINVAL (not a number,
 * overflow). */
static int parse_u64(const char *p, const char *end, uint64_t *v)
{
	uint64_t x = 0;

	if (p == end)
		return -EINVAL;
	for (; p < end; p++) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		if (x > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return -EINVAL;
		x = x * 10 + (uint64_t)(*p - '0');
	}
	*v = x;
	return 0;
}

/* The reader's state across lines.  The previous line's stack is kept
 * (its bytes, where each of its frames ends, and the frames as interned):
 * a line sharing a prefix with it (sorted input shares most of every
 * line) takes those frames as they are, and only the frames after the
 * common prefix are split and interned. */
struct reader {
	struct stacks *s;
	struct frame *frames;	/* the line being added, then the previous one */
	size_t *ends;		/* frame i of the previous line: prev[ends[i]] is ';' or its end */
	const char **text;	/* the new frames' names in the line, to be interned */
	size_t *lens;
	const char **names;	/* and interned */
	size_t cap;		/* of frames, ends, text, lens and names */
	char *prev;		/* the previous line's stack text */
	size_t prev_len, prev_cap, prev_depth;
};

/* Length of the common prefix of a and b (n bytes each at most). */
static size_t common_prefix(const char *a, const char *b, size_t n)
{
	size_t i = 0;
	uint64_t x, y;

	for (; i + 8 <= n; i += 8) {
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			return i + (size_t)__builtin_ctzll(x ^ y) / 8;	/* little-endian */
	}
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

static int reader_grow(struct reader *r, size_t depth)
{
	size_t ncap = r->cap ? r->cap * 2 : 64;
	struct frame *nf;
	size_t *ne;

	while (ncap <= depth)
		ncap *= 2;
	nf = realloc(r->frames, ncap * sizeof(*nf));
	if (!nf)
		return -ENOMEM;
	r->frames = nf;
	ne = realloc(r->ends, ncap * sizeof(*ne));
	if (!ne)
		return -ENOMEM;
	r->ends = ne;
	ne = realloc(r->lens, ncap * sizeof(*ne));
	if (!ne)
		return -ENOMEM;
	r->lens = ne;
	for (int i = 0; i < 2; i++) {
		const char ***v = i ? &r->names : &r->text;
		const char **nv = realloc(*v, ncap * sizeof(**v));

		if (!nv)
			return -ENOMEM;
		*v = nv;
	}
	r->cap = ncap;
	return 0;
}

/* Splits one line [line, line + len) (no newline) into frames and adds
 * it.  Returns 0, 1 for a blank line, -EINVAL or -ENOMEM. */
static int parse_line(struct reader *r, const char *line, size_t len)
{
	while (len && (line[len - 1] == '\r' || line[len - 1] == ' ' || line[len - 1] == '\t'))
		len--;
	if (!len)
		return 1;
	if (memchr(line, '\0', len))
		return -EINVAL;

	/* The value: after the last blank. */
	size_t sp = len;
	while (sp && line[sp - 1] != ' ' && line[sp - 1] != '\t')
		sp--;
	if (!sp)
		return -EINVAL;
	uint64_t value;
	if (parse_u64(line + sp, line + len, &value))
		return -EINVAL;
	/* The stack ends where the run of blanks before the value starts. */
	sp--;
	while (sp && (line[sp - 1] == ' ' || line[sp - 1] == '\t'))
		sp--;
	if (!sp)
		return -EINVAL;

	/* Frames wholly inside the prefix shared with the previous line,
	 * their ';' included, are the previous line's; so is its last one
	 * when this line is the same or goes on from it with a ';'. */
	size_t n = sp < r->prev_len ? sp : r->prev_len;
	size_t common = r->prev_depth ? common_prefix(line, r->prev, n) : 0;
	bool whole = common == r->prev_len && (common == sp || line[common] == ';');
	size_t depth = 0, start = 0;
	while (depth < r->prev_depth && (r->ends[depth] < common || whole)) {
		start = r->ends[depth] + 1;
		depth++;
	}

	size_t reused = depth;
	/* (the same stack as the line before: nothing left to split) */
	for (const char *p = line + start, *end = line + sp; !depth || r->ends[depth - 1] != sp; ) {
		const char *semi = memchr(p, ';', (size_t)(end - p));
		size_t flen = (size_t)((semi ? semi : end) - p);
		enum frame_kind kind = FRAME_USER;

		if (depth == r->cap && reader_grow(r, depth))
			return -ENOMEM;
		r->ends[depth] = (size_t)(p - line) + flen;
		if (flen > KERNEL_SUFFIX_LEN &&
		    !memcmp(p + flen - KERNEL_SUFFIX_LEN, KERNEL_SUFFIX, KERNEL_SUFFIX_LEN)) {
			flen -= KERNEL_SUFFIX_LEN;
			kind = FRAME_KERNEL;
		}
		r->text[depth] = p;
		r->lens[depth] = flen;
		r->frames[depth++] = (struct frame){ .kind = kind };
		if (!semi)
			break;
		p = semi + 1;
	}
	if (depth > UINT32_MAX)
		return -EINVAL;
	if (stacks_intern_n(r->s, depth - reused, r->text + reused, r->lens + reused,
			    r->names + reused))
		return -ENOMEM;
	for (size_t i = reused; i < depth; i++)
		r->frames[i].name = r->names[i];

	/* This line becomes the previous one. */
	if (sp > r->prev_cap) {
		char *np = realloc(r->prev, sp);
		if (!np)
			return -ENOMEM;
		r->prev = np;
		r->prev_cap = sp;
	}
	memcpy(r->prev + common, line + common, sp - common);
	r->prev_len = sp;
	r->prev_depth = depth;
	return stacks_add_interned(r->s, r->frames, (unsigned int)depth, value);
}

/* Input is read in blocks of this size (more when a line is longer). */
#define READ_BLOCK (1 << 20)

int report_folded_read(FILE *f, struct stacks *s, size_t *bad_line)
{
	struct reader r = { .s = s };
	size_t cap = READ_BLOCK, have = 0, lineno = 0;
	char *buf;
	int err = 0, eof = 0;

	if (!f || !s)
		return -EINVAL;
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	while (!eof) {
		size_t got, pos = 0;

		if (have == cap) {	/* a line longer than the buffer */
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				err = -ENOMEM;
				goto out;
			}
			buf = nb;
			cap *= 2;
		}
		errno = 0;
		got = fread(buf + have, 1, cap - have, f);
		if (got < cap - have) {
			if (ferror(f)) {
				err = errno ? -errno : -EIO;
				goto out;
			}
			eof = 1;
		}
		have += got;
		for (;;) {
			const char *nl = memchr(buf + pos, '\n', have - pos);
			size_t len;

			if (!nl && !eof)
				break;
			len = nl ? (size_t)(nl - (buf + pos)) : have - pos;
			if (!nl && !len)
				break;
			lineno++;
			err = parse_line(&r, buf + pos, len);
			if (err < 0) {
				if (err == -EINVAL && bad_line)
					*bad_line = lineno;
				goto out;
			}
			err = 0;
			pos += len + !!nl;
			if (!nl)
				break;
		}
		memmove(buf, buf + pos, have - pos);
		have -= pos;
	}
out:
	free(buf);
	free(r.frames);
	free(r.ends);
	free(r.text);
	free(r.lens);
	free(r.names);
	free(r.prev);
	return err;
}
