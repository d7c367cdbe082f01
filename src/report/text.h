/* Text outputs meet terminals: names others chose (process names, file
 * names, ELF symbols) are written with every control character escaped,
 * so none of their bytes can drive the terminal (ESC[2J...). */
#ifndef STACKSCOPE_REPORT_TEXT_H
#define STACKSCOPE_REPORT_TEXT_H
#include <stddef.h>
#include <stdio.h>

/* Writes the n bytes of s to f with each C0 control byte, DEL, C1 control
 * (U+0080..U+009F) and byte that is not part of valid UTF-8 written as
 * \xNN; everything else, backslashes included, as it is. */
void text_put_n(FILE *f, const char *s, size_t n);
/* The same for a NUL-terminated s. */
void text_put(FILE *f, const char *s);

#endif
