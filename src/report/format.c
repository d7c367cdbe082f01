#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "common.h"
#include "report/format.h"

static const char *const names[] = {
	[REPORT_FOLDED] = "folded",
	[REPORT_SVG] = "svg",
	[REPORT_TEXT] = "text",
	[REPORT_JSON] = "json",
	[REPORT_PPROF] = "pprof",
	[REPORT_TRACE] = "trace",
};

/* The order a usage error lists the accepted formats in: each command's
 * own default first ("expected svg or folded", "expected text or json"). */
static const enum report_format listed[] = {
	REPORT_SVG, REPORT_FOLDED, REPORT_TEXT, REPORT_JSON, REPORT_PPROF, REPORT_TRACE,
};

const char *report_format_name(enum report_format f)
{
	return (unsigned)f < ARRAY_SIZE(names) ? names[f] : "?";
}

int report_format_parse(const char *name, unsigned accepted, enum report_format *out)
{
	char expected[128] = "";
	size_t len = 0;
	int n = 0, seen = 0;

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		if ((accepted & REPORT_MASK(i)) && !strcmp(name, names[i])) {
			*out = (enum report_format)i;
			return 0;
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(listed); i++)
		n += !!(accepted & REPORT_MASK(listed[i]));
	for (size_t i = 0; i < ARRAY_SIZE(listed) && len < sizeof(expected); i++) {
		if (!(accepted & REPORT_MASK(listed[i])))
			continue;
		seen++;
		len += snprintf(expected + len, sizeof(expected) - len, "%s%s",
				seen == 1 ? "" : seen == n ? " or " : ", ", names[listed[i]]);
	}
	msg("--format %s: expected %s", name, expected);
	return -EINVAL;
}

enum report_format report_format_for_path(const char *path, unsigned accepted,
					  enum report_format dflt)
{
	static const struct { const char *suffix; enum report_format f; } by_name[] = {
		{ ".svg", REPORT_SVG }, { ".pb.gz", REPORT_PPROF }, { ".pprof", REPORT_PPROF },
	};
	size_t len = path ? strlen(path) : 0;

	for (size_t i = 0; i < ARRAY_SIZE(by_name); i++) {
		size_t n = strlen(by_name[i].suffix);

		if ((accepted & REPORT_MASK(by_name[i].f)) && len > n &&
		    !strcmp(path + len - n, by_name[i].suffix))
			return by_name[i].f;
	}
	return dflt;
}
