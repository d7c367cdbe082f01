/* report/json: the one JSON string writer, to a FILE and into a buffer:
 * escapes, UTF-8 kept or escaped byte by byte, and cutting that never
 * splits an escape or a character. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include "test.h"
#include "report/json.h"

/* The literal json_write_string makes of s[0..len), in a static buffer. */
static const char *written(const char *s, size_t len)
{
	static char out[4096];
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	out[0] = 0;
	if (!f)
		return out;
	json_write_string(f, s, len);
	fclose(f);
	snprintf(out, sizeof(out), "%s", buf);
	free(buf);
	return out;
}

/* Bytes of a well-formed UTF-8 sequence at s, 0 if not one (written
 * apart from the module's, from the table in RFC 3629). */
static int utf8_ok(const unsigned char *s)
{
	unsigned cp, n;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (unsigned i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return (int)n;
}

/* Checks lit is exactly one valid JSON string literal whose text is
 * valid UTF-8, and reads it back into out: \u00XX as the byte XX, other
 * characters as their bytes.  Returns the length or -1. */
static long read_back(const char *lit, char *out, size_t size)
{
	const unsigned char *s = (const unsigned char *)lit;
	size_t o = 0;
	unsigned v;
	int n;

	if (*s++ != '"')
		return -1;
	while (*s != '"') {
		if (!*s || *s < 0x20 || *s == 0x7f || o + 4 > size)
			return -1;
		if (*s == '\\') {
			s++;
			switch (*s) {
			case '"': case '\\': case '/': out[o++] = (char)*s++; continue;
			case 'n': out[o++] = '\n'; s++; continue;
			case 't': out[o++] = '\t'; s++; continue;
			case 'r': out[o++] = '\r'; s++; continue;
			case 'u':
				if (sscanf((const char *)s + 1, "%4x", &v) != 1 || v > 0xff)
					return -1;
				for (int i = 1; i <= 4; i++)
					if (!strchr("0123456789abcdef", s[i]) || !s[i])
						return -1;
				out[o++] = (char)v;
				s += 5;
				continue;
			default:
				return -1;
			}
		}
		if (*s < 0x80) {
			out[o++] = (char)*s++;
			continue;
		}
		n = utf8_ok(s);
		if (!n)
			return -1;
		memcpy(out + o, s, n);
		o += n;
		s += n;
	}
	return s[1] ? -1 : (long)o;
}

static bool round_trips(const char *s, size_t len)
{
	char back[4096];
	long n = read_back(written(s, len), back, sizeof(back));

	return n == (long)len && !memcmp(back, s, len);
}

TEST(json_quote_backslash_controls)
{
	char all[33];

	CHECK_STR(written("plain text / 1", 14), "\"plain text / 1\"");
	CHECK_STR(written("a\"b\\c", 5), "\"a\\\"b\\\\c\"");
	CHECK_STR(written("\n\t\r", 3), "\"\\n\\t\\r\"");
	CHECK_STR(written("\b\f\v\x1b\x7f", 5), "\"\\u0008\\u000c\\u000b\\u001b\\u007f\"");
	/* NULs inside the length are characters too */
	CHECK_STR(written("a\0b", 3), "\"a\\u0000b\"");
	CHECK_STR(written("", 0), "\"\"");
	for (int i = 0; i < 32; i++)
		all[i] = (char)i;
	all[32] = 0x7f;
	CHECK(round_trips(all, sizeof(all)));
	CHECK(!strchr(written(all, sizeof(all)) + 1, '\x7f'));
	for (const char *p = written(all, sizeof(all)); *p; p++)
		CHECK((unsigned char)*p >= 0x20);
}

TEST(json_utf8_kept_whole)
{
	/* U+0080, é, U+07FF; U+0800, €, U+FFFF; U+10000, 😀, U+10FFFF */
	static const char ok[] = "\xc2\x80\xc3\xa9\xdf\xbf" "\xe0\xa0\x80\xe2\x82\xac\xef\xbf\xbf"
				 "\xf0\x90\x80\x80\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf";
	char want[sizeof(ok) + 2];

	snprintf(want, sizeof(want), "\"%s\"", ok);
	CHECK_STR(written(ok, sizeof(ok) - 1), want);
	CHECK_STR(written("caf\xc3\xa9\"", 6), "\"caf\xc3\xa9\\\"\"");
	CHECK(round_trips(ok, sizeof(ok) - 1));
}

TEST(json_invalid_utf8_as_bytes)
{
	/* stray continuation bytes, bytes never in UTF-8, a lead byte
	 * without its continuations (before ASCII, at the end) */
	CHECK_STR(written("\x80\xbf\xfe\xff", 4), "\"\\u0080\\u00bf\\u00fe\\u00ff\"");
	CHECK_STR(written("\xc3" "A", 2), "\"\\u00c3A\"");
	CHECK_STR(written("x\xe2\x82", 3), "\"x\\u00e2\\u0082\"");
	CHECK_STR(written("\xf0\x9f\x98", 3), "\"\\u00f0\\u009f\\u0098\"");
	/* overlong forms of '/', NUL and U+FFFF */
	CHECK_STR(written("\xc0\xaf", 2), "\"\\u00c0\\u00af\"");
	CHECK_STR(written("\xc1\xbf", 2), "\"\\u00c1\\u00bf\"");
	CHECK_STR(written("\xe0\x80\xaf", 3), "\"\\u00e0\\u0080\\u00af\"");
	CHECK_STR(written("\xf0\x80\x80\xaf", 4), "\"\\u00f0\\u0080\\u0080\\u00af\"");
	CHECK_STR(written("\xf0\x8f\xbf\xbf", 4), "\"\\u00f0\\u008f\\u00bf\\u00bf\"");
	/* surrogates U+D800, U+DFFF; past U+10FFFF; 5-byte leads */
	CHECK_STR(written("\xed\xa0\x80", 3), "\"\\u00ed\\u00a0\\u0080\"");
	CHECK_STR(written("\xed\xbf\xbf", 3), "\"\\u00ed\\u00bf\\u00bf\"");
	CHECK_STR(written("\xf4\x90\x80\x80", 4), "\"\\u00f4\\u0090\\u0080\\u0080\"");
	CHECK_STR(written("\xf5\x80\x80\x80", 4), "\"\\u00f5\\u0080\\u0080\\u0080\"");
	/* U+D7FF just below the surrogates is fine */
	CHECK_STR(written("\xed\x9f\xbf", 3), "\"\xed\x9f\xbf\"");
}

TEST(json_any_bytes_round_trip)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	char s[64];

	for (int round = 0; round < 2000; round++) {
		size_t len = round % sizeof(s);

		for (size_t i = 0; i < len; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			/* half the time only the bytes that make UTF-8 */
			s[i] = (char)(round & 1 ? x : 0x80 | (x & 0x7f) | (i % 3 ? 0 : 0x40));
		}
		if (!round_trips(s, len)) {
			CHECK(round_trips(s, len));
			break;
		}
	}
}

TEST(json_buffer_cut_never_splits)
{
	static const char s[] = "ab\"c\\d\n\x01\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xff" "end";
	const char *full = written(s, sizeof(s) - 1);
	size_t flen = strlen(full);
	char buf[256], back[256];

	CHECK_INT(json_format_string(buf, sizeof(buf), s, sizeof(s) - 1), flen);
	CHECK_STR(buf, full);
	for (size_t size = 0; size <= flen + 1; size++) {
		size_t n;

		memset(buf, 'Z', sizeof(buf));
		n = json_format_string(buf, size, s, sizeof(s) - 1);
		CHECK_INT(n, flen);
		if (size == 0) {
			CHECK(buf[0] == 'Z');
			continue;
		}
		CHECK(buf[size - 1] == 0 || strlen(buf) < size);
		CHECK(buf[size] == 'Z');
		if (size < 3) {
			CHECK_STR(buf, "");
			continue;
		}
		if (size > flen) {
			CHECK_STR(buf, full);
			continue;
		}
		/* a valid literal, a prefix of the whole one, cut at most one
		 * piece (6 bytes) short of the room there was */
		CHECK(read_back(buf, back, sizeof(back)) >= 0);
		n = strlen(buf);
		CHECK(n < size);
		CHECK(n + 6 >= size);
		CHECK(!strncmp(buf, full, n - 1));
	}
}
