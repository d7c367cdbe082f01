/* Tracepoint format files (tracefs events/SUB/EVENT/format) parsed into
 * typed fields and the accesses the code generator emits: a parser over
 * text the kernel wrote, bounded (TP_MAX_FORMAT bytes, TP_MAX_FIELDS
 * fields, offsets within TP_MAX_RECORD), malformed lines skipped; no
 * dependency on tracefs itself, so the fuzzer and the unit tests feed it
 * any bytes. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "lang/probe_int.h"

static bool c_signed(const char *type)
{
	static const char *const s[] = {
		"int", "long", "short", "char", "signed", "s8", "s16", "s32", "s64", "__s8",
		"__s16", "__s32", "__s64", "pid_t", "ssize_t", "loff_t", "off_t", "long long",
		"int8_t", "int16_t", "int32_t", "int64_t", "time64_t", "ktime_t", "clockid_t",
		"timer_t", "key_serial_t", "mqd_t", "qid_t",
	};
	const char *t = type;

	if (!strncmp(t, "const ", 6))
		t += 6;
	if (!strncmp(t, "volatile ", 9))
		t += 9;
	if (!strncmp(t, "unsigned", 8) || strchr(t, '*'))
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(s); i++)
		if (!strcmp(t, s[i]))
			return true;
	return !strncmp(t, "signed ", 7) || !strncmp(t, "long ", 5) || !strncmp(t, "short ", 6);
}

/* The width of the common C integer types that syscall tracepoints put
 * in wider slots; 0 for others (the slot's size stands). */
static unsigned c_width(const char *type)
{
	static const struct {
		const char *name;
		unsigned width;
	} w[] = {
		{ "int", 4 }, { "signed int", 4 }, { "unsigned int", 4 }, { "unsigned", 4 },
		{ "pid_t", 4 }, { "uid_t", 4 }, { "gid_t", 4 }, { "u32", 4 }, { "s32", 4 },
		{ "__u32", 4 }, { "__s32", 4 }, { "key_t", 4 }, { "mqd_t", 4 },
		{ "clockid_t", 4 }, { "timer_t", 4 }, { "qid_t", 4 }, { "key_serial_t", 4 },
		{ "short", 2 }, { "unsigned short", 2 }, { "u16", 2 }, { "s16", 2 },
		{ "umode_t", 2 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(w); i++)
		if (!strcmp(type, w[i].name))
			return w[i].width;
	return 0;
}

static bool is_char(const char *type)
{
	const char *t = type;

	if (!strncmp(t, "const ", 6))
		t += 6;
	return !strcmp(t, "char") || !strcmp(t, "signed char");
}

static void trim(char *s)
{
	size_t n = strlen(s), i = 0;

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = 0;
	while (isspace((unsigned char)s[i]))
		i++;
	memmove(s, s + i, n - i + 1);
}

/* "field:const char * filename;	offset:24;	size:8;	signed:0;" */
static bool parse_field(const char *line, size_t len, bool user, struct tp_field *f)
{
	char decl[256], *end, *name;
	const char *p, *semi;
	unsigned long off, size, sgn;
	size_t dlen, nlen;

	memset(f, 0, sizeof(*f));
	if (memchr(line, '\0', len))
		return false;	/* not text */
	p = memmem(line, len, "field:", 6);
	if (!p)
		return false;
	p += 6;
	semi = memchr(p, ';', line + len - p);
	if (!semi || (size_t)(semi - p) >= sizeof(decl))
		return false;
	memcpy(decl, p, semi - p);
	decl[semi - p] = 0;
	{
		/* the numbers, each "key:N;" */
		char rest[256];
		size_t rl = (size_t)(line + len - semi);

		if (rl >= sizeof(rest))
			rl = sizeof(rest) - 1;
		memcpy(rest, semi, rl);
		rest[rl] = 0;
		p = strstr(rest, "offset:");
		if (!p)
			return false;
		errno = 0;
		off = strtoul(p + 7, &end, 10);
		if (errno || end == p + 7 || *end != ';')
			return false;
		p = strstr(rest, "size:");
		if (!p)
			return false;
		size = strtoul(p + 5, &end, 10);
		if (errno || end == p + 5 || *end != ';')
			return false;
		p = strstr(rest, "signed:");
		sgn = p ? strtoul(p + 7, NULL, 10) : 0;
	}
	if (!size || !range_ok(off, size, TP_MAX_RECORD))
		return false;
	trim(decl);
	/* dimensions after the name: "comm[16]" */
	dlen = strlen(decl);
	if (dlen && decl[dlen - 1] == ']') {
		char *open = strrchr(decl, '[');

		if (!open || strlen(open) >= sizeof(f->dims))
			return false;
		snprintf(f->dims, sizeof(f->dims), "%s", open);
		*open = 0;
		trim(decl);
		dlen = strlen(decl);
	}
	/* the name: the last identifier */
	nlen = 0;
	while (nlen < dlen && (isalnum((unsigned char)decl[dlen - 1 - nlen]) ||
			       decl[dlen - 1 - nlen] == '_'))
		nlen++;
	if (!nlen || nlen >= sizeof(f->name) || nlen == dlen)
		return false;
	name = decl + dlen - nlen;
	if (isdigit((unsigned char)name[0]))
		return false;
	snprintf(f->name, sizeof(f->name), "%s", name);
	*name = 0;
	trim(decl);
	if (!*decl || strlen(decl) >= sizeof(f->type))
		return false;
	snprintf(f->type, sizeof(f->type), "%s", decl);

	f->acc.base = LANG_BASE_CTX;
	f->acc.offset = off;
	f->acc.size = size;
	f->acc.is_signed = sgn || c_signed(f->type);
	if (snprintf(f->acc.ctype, sizeof(f->acc.ctype), "%s%s", f->type, f->dims) >=
	    (int)sizeof(f->acc.ctype))
		f->acc.ctype[sizeof(f->acc.ctype) - 2] = '~';	/* cut short: shown as such */
	if (!strncmp(f->type, "__data_loc", 10)) {
		/* a u32: offset (low 16) and length (high 16) of the data */
		f->acc.is_signed = false;
		f->acc.kind = strstr(f->type, "char") && size == 4 ? LANG_ACC_STR_DATALOC :
			      LANG_ACC_RECORD;
	} else if (f->dims[0]) {
		unsigned long n = strtoul(f->dims + 1, &end, 10);
		const char *base = f->type;

		if (is_char(base)) {
			f->acc.kind = LANG_ACC_STR_ARRAY;
		} else {
			/* the element size: the known integer types, else size / n */
			unsigned long esz = 0;

			if (*end == ']' && n && size % n == 0)
				esz = size / n;
			if (esz == 1 || esz == 2 || esz == 4 || esz == 8) {
				f->acc.kind = LANG_ACC_ARRAY;
				f->acc.elem_size = esz;
				f->acc.array_len = n;
			} else {
				f->acc.kind = LANG_ACC_RECORD;
			}
		}
	} else if (strchr(f->type, '*')) {
		char base[64];
		char *star;

		snprintf(base, sizeof(base), "%s", f->type);
		star = strchr(base, '*');
		*star = 0;
		trim(base);
		f->acc.kind = is_char(base) && !strchr(star + 1, '*') ? LANG_ACC_STR_PTR : LANG_ACC_PTR;
		f->acc.is_signed = false;
		f->acc.user = user;
		if (size != 8)
			f->acc.kind = LANG_ACC_RECORD;
	} else if (size == 1 || size == 2 || size == 4 || size == 8) {
		unsigned w = c_width(f->type);

		f->acc.kind = LANG_ACC_INT;
		/* "int dfd" in an 8-byte slot (syscall arguments): the value is
		 * the declared type's, in the slot's low bytes (little-endian),
		 * so AT_FDCWD reads as -100, not 4294967196 */
		if (w && w < size)
			f->acc.size = w;
		/* a bool is unsigned whatever "signed:" says */
		if (!strcmp(f->type, "bool") || !strcmp(f->type, "_Bool"))
			f->acc.is_signed = false;
	} else {
		f->acc.kind = LANG_ACC_RECORD;
	}
	return true;
}

struct tp_format *tp_format_parse(const char *text, size_t len, bool user)
{
	struct tp_format *fmt;
	const char *p = text, *end;

	if (len > TP_MAX_FORMAT)
		len = TP_MAX_FORMAT;
	end = text + len;
	fmt = calloc(1, sizeof(*fmt) + TP_MAX_FIELDS * sizeof(fmt->fields[0]));
	if (!fmt)
		return NULL;
	while (p < end && fmt->nfields < TP_MAX_FIELDS) {
		const char *nl = memchr(p, '\n', end - p);
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		struct tp_field *f = &fmt->fields[fmt->nfields];

		if (!strncmp(p, "print fmt:", 10 < l ? 10 : l) && l >= 10)
			break;
		if (parse_field(p, l, user, f) && !tp_format_field(fmt, f->name))
			fmt->nfields++;
		p += l + 1;
	}
	if (!fmt->nfields) {
		free(fmt);
		errno = EINVAL;
		return NULL;
	}
	return fmt;
}

const struct tp_field *tp_format_field(const struct tp_format *fmt, const char *name)
{
	for (size_t i = 0; i < fmt->nfields; i++)
		if (!strcmp(fmt->fields[i].name, name))
			return &fmt->fields[i];
	return NULL;
}
