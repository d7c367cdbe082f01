/* Rendering one traced argument or return value as text, the way the
 * call graph shows it: 42, -1, true, 'a', RED, 0x7ffd1234, NULL, 2.5,
 * "a string\n"..., ?(struct rect) for what cannot be shown. */
#ifndef STACKSCOPE_REPORT_GRAPH_VALUE_H
#define STACKSCOPE_REPORT_GRAPH_VALUE_H
#include <stddef.h>
#include <stdint.h>
#include "sym/dwfunc.h"

/* Room for any rendered value: a string of GRAPH_STR_MAX bytes, each
 * escaped as \xNN, with its quotes and "...". */
#define GRAPH_VALUE_MAX 1100

/* Renders a value of type t held in raw (the low t->size bytes matter)
 * into buf: integers, bool, char, enum names, pointers, floats (raw holds
 * their bytes), strings (str: the bytes copied from where raw points,
 * slen: their count with the NUL, < 0 unreadable, 0 not copied; cut at
 * str_size).  Strings and chars are quoted C-style, every byte outside
 * printable ASCII as \xNN. */
void graph_format_value(char *buf, size_t size, const struct dwtype *t, uint64_t raw,
			const char *str, int32_t slen, unsigned str_size);
/* A value that could not be read: "?(type)". */
void graph_format_unknown(char *buf, size_t size, const struct dwtype *t);

#endif
