#include <stdbool.h>
#include <string.h>
#include "report/json.h"

/* Longest piece of a literal for one input character: "\u00XX". */
#define PIECE_MAX 6

/* Bytes of the well-formed UTF-8 sequence at p (no overlongs, surrogates
 * or code points past U+10FFFF), 0 when it is not one. */
static size_t utf8_seq(const unsigned char *p, size_t avail)
{
	unsigned char c = p[0], lo = 0x80, hi = 0xbf;
	size_t n;

	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (avail < n || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* Bytes at the start of p[0..len) that are copied as they are. */
static size_t plain_run(const unsigned char *p, size_t len)
{
	size_t i = 0;

	while (i < len && p[i] >= 0x20 && p[i] < 0x7f && p[i] != '"' && p[i] != '\\')
		i++;
	return i;
}

/* The literal's piece for the character at p (not a plain byte): written
 * to out, its length in *outlen; returns the input bytes it stands for. */
static size_t piece(const unsigned char *p, size_t avail, char *out, size_t *outlen)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char c = p[0];
	size_t n;

	switch (c) {
	case '"':
	case '\\':
		out[0] = '\\';
		out[1] = (char)c;
		*outlen = 2;
		return 1;
	case '\n':
	case '\t':
	case '\r':
		out[0] = '\\';
		out[1] = c == '\n' ? 'n' : c == '\t' ? 't' : 'r';
		*outlen = 2;
		return 1;
	}
	if (c >= 0x80 && (n = utf8_seq(p, avail))) {
		memcpy(out, p, n);
		*outlen = n;
		return n;
	}
	/* a control character, DEL, or a byte that is not UTF-8 */
	memcpy(out, "\\u00", 4);
	out[4] = hex[c >> 4];
	out[5] = hex[c & 15];
	*outlen = 6;
	return 1;
}

void json_write_string(FILE *f, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	char out[PIECE_MAX];
	size_t i = 0, n, outlen;

	fputc('"', f);
	while (i < len) {
		n = plain_run(p + i, len - i);
		if (n) {
			fwrite(p + i, 1, n, f);
			i += n;
			continue;
		}
		i += piece(p + i, len - i, out, &outlen);
		fwrite(out, 1, outlen, f);
	}
	fputc('"', f);
}

void json_write_cstring(FILE *f, const char *s)
{
	json_write_string(f, s, strlen(s));
}

size_t json_format_string(char *buf, size_t size, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, o = 0, total = 1, outlen;
	bool full = size < 3;
	char out[PIECE_MAX];

	if (size)
		buf[0] = 0;
	if (!full)
		buf[o++] = '"';
	while (i < len) {
		size_t n = plain_run(p + i, len - i);
		const char *src = (const char *)p + i;

		if (n) {
			outlen = n;
			i += n;
		} else {
			i += piece(p + i, len - i, out, &outlen);
			src = out;
		}
		if (!full) {
			/* room for the closing quote and the NUL after it */
			size_t room = size - o - 2;

			if (n && outlen > room) {
				/* plain bytes: keep those that fit */
				memcpy(buf + o, src, room);
				o += room;
				full = true;
			} else if (outlen > room) {
				full = true;
			} else {
				memcpy(buf + o, src, outlen);
				o += outlen;
			}
		}
		total += outlen;
	}
	total++;
	if (size >= 3) {
		buf[o++] = '"';
		buf[o] = 0;
	}
	return total;
}
