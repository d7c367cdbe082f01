/* Reader of SFrame sections (.sframe, binutils' "Simple Frame" format,
 * versions 1 and 2), turned into unwind table rows.
 *
 * Only AMD64 little-endian sections are understood.  Every count and
 * offset is checked against the section size before it is used, so any
 * byte string can be passed in. */
#ifndef UNWIND_SFRAME_H
#define UNWIND_SFRAME_H

#include <stddef.h>
#include <stdint.h>

#include "unwind/table.h"

/* Parses the SFrame section data[0..size), loaded at sec_vaddr (its
 * sh_addr: function addresses are stored relative to the section), and
 * passes each row to emit, in address order within a function; the row
 * holds from row->pc up to end (exclusive, end > row->pc).  A nonzero
 * return from emit stops the parse and is returned.
 *
 * Returns 0; -EINVAL for anything malformed (magic, version, flags,
 * offsets or counts out of range, unknown FRE encodings, FREs out of
 * order or outside their function); -ENOTSUP for an ABI other than AMD64
 * little-endian; -E2BIG for a PCMASK function that would expand to more
 * than 65536 rows.  Rows emitted before an error stay emitted: a caller
 * that wants all or nothing drops them.
 *
 * Row shapes: CFA = rsp/rbp + offset (UNWIND_CFA_SP / UNWIND_CFA_BP),
 * rbp saved at CFA + offset or unchanged; an FRE without offsets (how
 * newer gas marks an undefined return address) becomes UNWIND_CFA_UNDEF;
 * a return address not at CFA - 8 gives UNWIND_CFA_UNKNOWN.  A PCMASK
 * function (pltN entries) with the x86-64 PLT shape becomes one
 * UNWIND_CFA_PLT row (see table.h); any other PCMASK function is
 * expanded into rows for each repetition block.  Version 1 FDEs have no
 * block size: it is taken as 16, the size of an x86-64 pltN entry, the
 * only PCMASK user in ld 2.40. */
int sframe_parse(const void *data, size_t size, uint64_t sec_vaddr,
		 int (*emit)(void *ctx, const struct unwind_row *row, uint64_t end),
		 void *ctx);

#endif
