/* The one escaper of the text outputs (see text.h). */
#include <string.h>
#include "report/text.h"

/* Length of the valid UTF-8 sequence at s (at most n bytes) that is not a
 * C1 control; 0 when it is one, or invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	unsigned int cp;

	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0;
	len = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	if (len > n)
		return 0;
	cp = s[0] & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* overlong, surrogates, past U+10FFFF, C1 controls */
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp <= 0x9f))
		return 0;
	return len;
}

void text_put_n(FILE *f, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;

	while (p < end) {
		const unsigned char *q = p;
		size_t len;

		while (q < end && *q >= 0x20 && *q < 0x7f)
			q++;
		fwrite(p, 1, (size_t)(q - p), f);
		if (q == end)
			break;
		len = *q >= 0x80 ? utf8_len(q, (size_t)(end - q)) : 0;
		if (len) {
			fwrite(q, 1, len, f);
			p = q + len;
		} else {
			fprintf(f, "\\x%02x", *q);
			p = q + 1;
		}
	}
}

void text_put(FILE *f, const char *s)
{
	text_put_n(f, s, strlen(s));
}
