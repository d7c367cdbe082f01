/* Per-binary unwind tables: a binary's call-frame information (.eh_frame,
 * .debug_frame, .sframe) compiled into one sorted array of fixed-size
 * rows, for unwinding user stacks of code built without frame pointers
 * from a copy of the top of the stack and the sampled ip, sp and bp.
 *
 * The row array has no pointers and fixed-width fields, so it can be
 * copied as is into a BPF array map for in-kernel unwinding.  Addresses
 * are the file's own virtual addresses (st_value / p_vaddr space): the
 * unwinder subtracts the mapping's load bias first.  x86-64 only. */
#ifndef UNWIND_TABLE_H
#define UNWIND_TABLE_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>

/* How the canonical frame address (CFA: the caller's sp after the
 * return) is found at a pc.  The return address is always at CFA - 8. */
enum unwind_cfa {
	UNWIND_CFA_SP = 0,	/* CFA = sp + cfa_off */
	UNWIND_CFA_BP = 1,	/* CFA = bp + cfa_off */
	/* x86-64 PLT stub: CFA = sp + cfa_off + ((pc & 15) >= bp_off ? 8 : 0).
	 * cfa_off is 8 and bp_off 11 for the classic lazy .plt entries
	 * (jmp *GOT; push $n; jmp .plt), other PLT flavours differ in
	 * bp_off.  bp is unchanged. */
	UNWIND_CFA_PLT = 2,
	/* Signal trampoline (__restore_rt: CIE augmentation 'S', a CFA read
	 * from the sigcontext, or the rt_sigreturn code bytes): the caller's
	 * registers are in the ucontext on the stack at sp. */
	UNWIND_CFA_SIGNAL = 3,
	/* No caller: the return address is undefined (_start, a thread's
	 * start function).  Unwinding ends cleanly. */
	UNWIND_CFA_UNDEF = 4,
	/* CFI exists here but is not expressible as a row (CFA from another
	 * register or an expression, return address not at CFA - 8, CFI
	 * libdw cannot evaluate): unwinding stops, the stack is truncated. */
	UNWIND_CFA_UNKNOWN = 5,
	/* No CFI here: the address lies after the end of a described range
	 * and before the next one. */
	UNWIND_CFA_NONE = 6,
};

/* Where the caller's rbp is. */
enum unwind_reg {
	UNWIND_REG_SAME = 0,	/* unchanged in this frame */
	UNWIND_REG_AT_CFA = 1,	/* saved at CFA + bp_off */
	UNWIND_REG_UNDEF = 2,	/* not recoverable (undefined, or a rule a
				 * row cannot express) */
};

/* One row: the rule from pc up to the next row's pc.  16 bytes, no
 * padding.  Only UNWIND_CFA_SP, _BP and _PLT use cfa_off; only bp_rule
 * UNWIND_REG_AT_CFA (and _PLT, see there) uses bp_off.  Unused fields are
 * 0 and bp_rule is UNWIND_REG_SAME for every CFA rule but _SP and _BP,
 * so equal rules compare equal field by field. */
struct unwind_row {
	uint64_t pc;		/* ELF virtual address */
	int32_t cfa_off;
	int16_t bp_off;
	uint8_t cfa_rule;	/* enum unwind_cfa */
	uint8_t bp_rule;	/* enum unwind_reg */
};

enum unwind_source {
	UNWIND_SRC_EH_FRAME = 1,
	UNWIND_SRC_DEBUG_FRAME = 2,
	UNWIND_SRC_SFRAME = 4,
};

struct unwind_table;

/* Builds the table of one ELF executable or shared library (x86-64).
 * sources is a mask of enum unwind_source restricting the sections read
 * (0: all).  Every address any read section describes gets a row; where
 * sections overlap, .eh_frame wins over .debug_frame, which wins over
 * .sframe.  A separate debug file is not looked for.
 *
 * The rows come out sorted by pc and strictly increasing, adjacent rows
 * with equal rules merged.  Where a described range ends and the next
 * does not start right there, a UNWIND_CFA_NONE row marks the gap; the
 * last row is always such a row.  Where no section describes an address
 * but an executable section holds the rt_sigreturn trampoline code (mov
 * $15,%rax; syscall), a UNWIND_CFA_SIGNAL row covers it and the byte
 * before it.
 *
 * A read section that turns out malformed is dropped when another one
 * gave rows (see unwind_table_bad_sources()).  NULL with errno set:
 * ENOENT when no read section exists or none describes any address,
 * EINVAL for a file that is not a well-formed ELF executable or shared
 * library, or when every read section is malformed, ENOTSUP for a
 * machine other than x86-64, ENOMEM, or the error of open(). */
struct unwind_table *unwind_table_build(const char *path, unsigned int sources);
/* Same from an open file; fd is neither closed nor kept.  name is only
 * for unwind_table_name(). */
struct unwind_table *unwind_table_build_fd(int fd, const char *name, unsigned int sources);
/* The row with the greatest pc <= pc: a UNWIND_CFA_NONE row for gaps and
 * past the end; NULL below the first row. */
const struct unwind_row *unwind_table_find(const struct unwind_table *t, uint64_t pc);
/* The sorted row array (valid until unwind_table_free()) and its length. */
size_t unwind_table_rows(const struct unwind_table *t, const struct unwind_row **rows);
/* Mask of enum unwind_source: the sections that supplied at least one row. */
unsigned int unwind_table_sources(const struct unwind_table *t);
/* Mask of enum unwind_source: sections that were present but malformed
 * and so not used. */
unsigned int unwind_table_bad_sources(const struct unwind_table *t);
const char *unwind_table_name(const struct unwind_table *t);
/* The CFA instructions (and, for FDEs left to libdw, rows) interpreted
 * to build t: linear in the size of the call-frame information. */
uint64_t unwind_table_work(const struct unwind_table *t);
/* Tests only: true builds every FDE through libdw (the reference the
 * one-pass interpreter is checked against). */
void unwind_table_set_libdw_only(bool on);
/* The sorted initial locations of the FDEs of path's .eh_frame and
 * .debug_frame (a function start known to be an instruction boundary).
 * 0 or -errno; *starts is the caller's to free. */
int unwind_fde_starts(const char *path, uint64_t **starts, size_t *n);
void unwind_table_free(struct unwind_table *t);

#endif
