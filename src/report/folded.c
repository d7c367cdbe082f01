/* Folded stacks writer and reader. */
#include <errno.h>
#include <inttypes.h>
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
			put_name(f, e->frames[d].name);
			if (e->frames[d].kind == FRAME_KERNEL)
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

/* Splits one line (modified in place) into frames and adds it.  *frames /
 * *cap is a buffer reused across lines.  Returns 0, 1 for a blank line,
 * -EINVAL or -ENOMEM. */
static int parse_line(struct stacks *s, char *line, size_t len,
		      struct frame **frames, size_t *cap)
{
	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r' ||
		       line[len - 1] == ' ' || line[len - 1] == '\t'))
		len--;
	line[len] = '\0';
	if (!len)
		return 1;

	char *sp = strrchr(line, ' ');
	char *tab = strrchr(line, '\t');
	if (tab && (!sp || tab > sp))
		sp = tab;
	if (!sp)
		return -EINVAL;
	uint64_t value;
	if (parse_u64(sp + 1, line + len, &value))
		return -EINVAL;
	/* The stack ends where the run of blanks before the value starts. */
	while (sp > line && (sp[-1] == ' ' || sp[-1] == '\t'))
		sp--;
	*sp = '\0';
	if (sp == line)
		return -EINVAL;

	size_t depth = 0;
	for (char *p = line;; ) {
		char *semi = strchr(p, ';');
		if (semi)
			*semi = '\0';
		if (depth == *cap) {
			size_t ncap = *cap ? *cap * 2 : 64;
			struct frame *nf = realloc(*frames, ncap * sizeof(*nf));
			if (!nf)
				return -ENOMEM;
			*frames = nf;
			*cap = ncap;
		}
		size_t n = strlen(p);
		enum frame_kind kind = FRAME_USER;
		if (n > KERNEL_SUFFIX_LEN && !strcmp(p + n - KERNEL_SUFFIX_LEN, KERNEL_SUFFIX)) {
			p[n - KERNEL_SUFFIX_LEN] = '\0';
			kind = FRAME_KERNEL;
		}
		(*frames)[depth++] = (struct frame){ p, kind };
		if (!semi)
			break;
		p = semi + 1;
	}
	if (depth > UINT32_MAX)
		return -EINVAL;
	return stacks_add(s, *frames, (unsigned int)depth, value);
}

int report_folded_read(FILE *f, struct stacks *s, size_t *bad_line)
{
	struct frame *frames = NULL;
	size_t cap = 0, lineno = 0, linecap = 0;
	char *line = NULL;
	ssize_t len;
	int err = 0;

	if (!f || !s)
		return -EINVAL;
	for (;;) {
		errno = 0;
		len = getline(&line, &linecap, f);
		if (len < 0)
			break;
		lineno++;
		err = parse_line(s, line, (size_t)len, &frames, &cap);
		if (err < 0) {
			if (err == -EINVAL && bad_line)
				*bad_line = lineno;
			goto out;
		}
		err = 0;
	}
	if (ferror(f))
		err = errno ? -errno : -EIO;
	else if (errno == ENOMEM) /* getline() fails so without an error flag */
		err = -ENOMEM;
out:
	free(line);
	free(frames);
	return err;
}
