/* libFuzzer entry: USDT notes (sym/usdt): arbitrary bytes as an ELF image
 * whose .note.stapsdt notes are read (every probe's arguments checked
 * against the bounds), and the same bytes as an argument string. */
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"
#include "common.h"
#include "sym/usdt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct usdt_arg args[USDT_MAX_ARGS];
	struct usdt_notes n;
	const char *why = NULL;
	unsigned nargs = 0;
	char *s;

	if (!usdt_read_mem(data, size, "fuzz", &n)) {
		if (n.n > USDT_MAX_PROBES)
			abort();
		for (size_t i = 0; i < n.n; i++) {
			const struct usdt_probe *p = &n.v[i];

			if (p->nargs > USDT_MAX_ARGS || (p->why && p->nargs) ||
			    strlen(p->provider) >= USDT_MAX_STR || strlen(p->name) >= USDT_MAX_STR ||
			    strlen(p->args) >= USDT_MAX_STR)
				abort();
		}
		usdt_notes_free(&n);
	}
	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;
	if (!usdt_parse_args(s, args, USDT_MAX_ARGS, &nargs, &why)) {
		for (unsigned i = 0; i < nargs; i++) {
			const struct usdt_arg *a = &args[i];

			if (nargs > USDT_MAX_ARGS || (a->size != 1 && a->size != 2 && a->size != 4 &&
						      a->size != 8) || a->reg > 160 || a->index > 160 ||
			    memchr(a->sym, 0, sizeof(a->sym)) == NULL)
				abort();
		}
	} else if (!why || nargs) {
		abort();
	}
	free(s);
	return 0;
}
