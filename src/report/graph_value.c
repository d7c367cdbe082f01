#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report/graph_value.h"

static void put_escaped(char *buf, size_t size, const char *s, size_t n, bool truncated)
{
	size_t o = 0;

	if (size < 8)
		return;
	buf[o++] = '"';
	for (size_t i = 0; i < n && o + 8 < size; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '"': o += snprintf(buf + o, size - o, "\\\""); break;
		case '\\': o += snprintf(buf + o, size - o, "\\\\"); break;
		case '\n': o += snprintf(buf + o, size - o, "\\n"); break;
		case '\t': o += snprintf(buf + o, size - o, "\\t"); break;
		case '\r': o += snprintf(buf + o, size - o, "\\r"); break;
		default:
			if (c < 0x20 || c >= 0x7f)
				o += snprintf(buf + o, size - o, "\\x%02x", c);
			else
				buf[o++] = (char)c;
		}
	}
	snprintf(buf + o, size - o, truncated ? "\"..." : "\"");
}

static void put_char(char *buf, size_t size, unsigned char c)
{
	char s[8];

	switch (c) {
	case '\'': snprintf(s, sizeof(s), "\\'"); break;
	case '\\': snprintf(s, sizeof(s), "\\\\"); break;
	case '\n': snprintf(s, sizeof(s), "\\n"); break;
	case '\t': snprintf(s, sizeof(s), "\\t"); break;
	case '\r': snprintf(s, sizeof(s), "\\r"); break;
	case 0: snprintf(s, sizeof(s), "\\0"); break;
	default:
		if (c < 0x20 || c >= 0x7f)
			snprintf(s, sizeof(s), "\\x%02x", c);
		else
			snprintf(s, sizeof(s), "%c", c);
	}
	snprintf(buf, size, "'%s'", s);
}

/* The shortest %g that reads back as the same value. */
static void put_double(char *buf, size_t size, double v, int maxprec)
{
	if (isnan(v) || isinf(v)) {
		snprintf(buf, size, "%g", v);
		return;
	}
	for (int p = 1; p <= maxprec; p++) {
		snprintf(buf, size, "%.*g", p, v);
		if (maxprec <= 9 ? (float)strtod(buf, NULL) == (float)v : strtod(buf, NULL) == v)
			return;
	}
}

static int64_t sign_extend(uint64_t raw, unsigned size)
{
	unsigned shift = size >= 8 ? 0 : 64 - 8 * size;

	return (int64_t)(raw << shift) >> shift;
}

static uint64_t zero_extend(uint64_t raw, unsigned size)
{
	return size >= 8 ? raw : raw & ((1ULL << (8 * size)) - 1);
}

void graph_format_unknown(char *buf, size_t size, const struct dwtype *t)
{
	snprintf(buf, size, "?(%s)", t->name ? t->name : "?");
}

void graph_format_value(char *buf, size_t size, const struct dwtype *t, uint64_t raw,
			const char *str, int32_t slen, unsigned str_size)
{
	int64_t sv;
	uint64_t uv;

	switch (t->kind) {
	case DWT_SINT:
		snprintf(buf, size, "%" PRId64, sign_extend(raw, t->size));
		return;
	case DWT_UINT:
		snprintf(buf, size, "%" PRIu64, zero_extend(raw, t->size));
		return;
	case DWT_BOOL:
		uv = zero_extend(raw, t->size);
		if (uv <= 1)
			snprintf(buf, size, "%s", uv ? "true" : "false");
		else
			snprintf(buf, size, "%" PRIu64, uv);
		return;
	case DWT_CHAR:
		put_char(buf, size, (unsigned char)raw);
		return;
	case DWT_ENUM:
		sv = t->is_signed ? sign_extend(raw, t->size) : (int64_t)zero_extend(raw, t->size);
		for (size_t i = 0; i < t->nenums; i++) {
			if (t->enums[i].value == sv) {
				snprintf(buf, size, "%s", t->enums[i].name);
				return;
			}
		}
		if (t->is_signed)
			snprintf(buf, size, "%" PRId64, sv);
		else
			snprintf(buf, size, "%" PRIu64, (uint64_t)sv);
		return;
	case DWT_STR:
		if (!raw) {
			snprintf(buf, size, "NULL");
		} else if (slen > 0 && str) {
			bool trunc = str_size && (unsigned)slen >= str_size;

			put_escaped(buf, size, str, strnlen(str, (size_t)slen), trunc);
		} else {
			snprintf(buf, size, "0x%" PRIx64 " <unreadable>", raw);
		}
		return;
	case DWT_PTR:
		if (!raw)
			snprintf(buf, size, "NULL");
		else
			snprintf(buf, size, "0x%" PRIx64, raw);
		return;
	case DWT_FLOAT:
		if (t->size == 4) {
			float f;
			uint32_t w = (uint32_t)raw;

			memcpy(&f, &w, sizeof(f));
			put_double(buf, size, f, 9);
		} else {
			double d;

			memcpy(&d, &raw, sizeof(d));
			put_double(buf, size, d, 17);
		}
		return;
	default:
		graph_format_unknown(buf, size, t);
	}
}
