/* JSON string literals: the one way every JSON writer in stackscope
 * quotes a string, whatever bytes it holds.  The literal, quotes
 * included, is always valid JSON and valid UTF-8:
 *   - '"' and '\' are escaped with a backslash;
 *   - \n, \t and \r are written so; every other control character
 *     (below 0x20) and DEL (0x7f) is written \u00XX;
 *   - a well-formed UTF-8 sequence (shortest form, not a surrogate, at
 *     most U+10FFFF) is copied as it is;
 *   - any other byte (0x80 to 0xff outside such a sequence) is written
 *     \u00XX, XX being the byte.
 * Since a real U+0080..U+00FF in the input is well-formed UTF-8 and so
 * copied raw, a \u0080..\u00ff escape in the output always stands for one
 * raw byte of that value: the original bytes can be read back from the
 * JSON text.  (A decoded value shows those bytes as U+0080..U+00FF.) */
#ifndef STACKSCOPE_REPORT_JSON_H
#define STACKSCOPE_REPORT_JSON_H
#include <stddef.h>
#include <stdio.h>

/* Writes s[0..len) (NULs included) as a JSON string literal. */
void json_write_string(FILE *f, const char *s, size_t len);
/* The same for a NUL-terminated string. */
void json_write_cstring(FILE *f, const char *s);

/* The literal of s[0..len) into buf, NUL-terminated, like snprintf:
 * returns the length of the whole literal.  When that is size or more,
 * buf holds a shorter literal, still valid: as many whole characters and
 * escapes as fit, then the closing quote (an escape or a UTF-8 sequence
 * is never split).  size < 3 cannot hold a literal: buf gets "" then. */
size_t json_format_string(char *buf, size_t size, const char *s, size_t len);

#endif
