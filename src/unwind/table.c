/* Unwind tables: .eh_frame / .debug_frame through libdw's CFI API and
 * .sframe through sframe.c, compiled into sorted fixed-size rows.
 *
 * Every source first becomes a list of segments, a row plus the end of
 * the range it holds for.  DWARF FDEs are enumerated with
 * dwarf_next_cfi() (their address ranges decoded here, since libdw
 * leaves the pointer encodings to the caller), then each FDE's range is
 * walked with dwarf_cfi_addrframe(), which gives the rule and the
 * [start, end) it holds for.  Sources are merged in priority order, a
 * later one only filling addresses no earlier one covers; the merged
 * segments become rows, equal neighbours joined and gaps marked.
 *
 * The file is read with ELF_C_READ, not mmap, as in sym/elfsyms.c: a
 * binary truncated while we read it gives a read error, not SIGBUS. */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common.h"

#include "sym/debugfile.h"
#include "unwind/sframe.h"
#include "unwind/table.h"

_Static_assert(sizeof(struct unwind_row) == 16, "unwind_row must stay 16 bytes");

#ifndef SHT_GNU_SFRAME
#define SHT_GNU_SFRAME 0x6ffffff4
#endif

/* x86-64 DWARF register numbers */
#define DWREG_RBP 6
#define DWREG_RSP 7
#define DWREG_RA 16
#define RA_AT_CFA (-8)
/* offsetof(ucontext_t, uc_mcontext.gregs[REG_RSP]): glibc's __restore_rt
 * CFI reads the CFA from there (DW_OP_breg7 160; DW_OP_deref). */
#define UCONTEXT_RSP 160

struct unwind_table {
	char *name;
	struct unwind_row *rows;	/* sorted by pc; owned */
	size_t nrows;
	unsigned int sources;		/* enum unwind_source mask */
	unsigned int bad;
	uint64_t work;			/* CFA rows libdw interpreted */
};

/* A row and the end of the range it holds for: [row.pc, end). */
struct seg {
	struct unwind_row row;
	uint64_t end;
};

struct segs {
	struct seg *v;
	size_t n, cap;
};

/* The open file and the sections the table is built from (index 0:
 * absent). */
struct elfin {
	int fd;
	Elf *elf;
	const char *name;
	uint64_t fsize;
	uint64_t work;			/* CFA instructions/rows interpreted */
	uint64_t rows;			/* rows made */
	struct fde_starts *starts;	/* set: only FDE starts are collected */
	size_t cut;			/* FDEs whose rows were cut short */
	size_t eh_frame, debug_frame, sframe;
};

struct fde_starts {
	uint64_t *v;
	size_t n, cap;
};

/* One FDE of a DWARF CFI section, before its range is decoded. */
struct rawfde {
	Dwarf_Off cie;		/* section offset of its CIE */
	size_t loc;		/* section offset of initial_location */
	size_t end;		/* section offset of the FDE's end */
};

struct cie_enc {
	Dwarf_Off off;
	uint8_t enc;		/* FDE pointer encoding, DW_EH_PE_omit if unknown */
	Dwarf_CIE cie;		/* points into the section's data */
};

/* ---- segments ------------------------------------------------------ */

/* Zeroes what a rule does not use, so equal rules are equal rows. */
static void row_normalize(struct unwind_row *r)
{
	switch (r->cfa_rule) {
	case UNWIND_CFA_SP:
	case UNWIND_CFA_BP:
		if (r->bp_rule != UNWIND_REG_AT_CFA)
			r->bp_off = 0;
		break;
	case UNWIND_CFA_PLT:
		r->bp_rule = UNWIND_REG_SAME;
		break;
	default:
		r->cfa_off = 0;
		r->bp_off = 0;
		r->bp_rule = UNWIND_REG_SAME;
		break;
	}
}

static int segs_push(struct segs *s, const struct unwind_row *row, uint64_t end)
{
	if (end <= row->pc)
		return 0;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1024;
		struct seg *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n].row = *row;
	row_normalize(&s->v[s->n].row);
	s->v[s->n].end = end;
	s->n++;
	return 0;
}

static void segs_free(struct segs *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static int seg_cmp(const void *a, const void *b)
{
	const struct seg *x = a, *y = b;

	if (x->row.pc != y->row.pc)
		return x->row.pc < y->row.pc ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return 0;
}

/* Adds the segments of one source (cur, consumed) to the accepted ones
 * (acc, sorted, disjoint): cur is sorted, overlaps inside it go to the
 * segment starting first, and only what acc leaves uncovered is taken.
 * Returns the number of segments added or -ENOMEM. */
static long segs_merge(struct segs *acc, struct segs *cur)
{
	struct segs add = { 0 }, out = { 0 };
	uint64_t covered = 0;
	size_t j = 0, a, b;
	long err = 0;
	bool sorted = true;

	/* compilers write FDEs in address order: sorting is mostly a check */
	for (size_t i = 1; i < cur->n && sorted; i++)
		sorted = seg_cmp(&cur->v[i - 1], &cur->v[i]) <= 0;
	if (!sorted)
		qsort(cur->v, cur->n, sizeof(*cur->v), seg_cmp);
	if (!acc->n) {
		/* the first source: all of it is taken, overlaps cut in place */
		size_t w = 0;

		for (size_t i = 0; i < cur->n; i++) {
			struct seg c = cur->v[i];

			if (c.row.pc < covered)
				c.row.pc = covered;
			if (c.row.pc >= c.end)
				continue;
			covered = c.end;
			cur->v[w++] = c;
		}
		segs_free(acc);
		*acc = *cur;
		acc->n = w;
		memset(cur, 0, sizeof(*cur));
		return (long)w;
	}
	for (size_t i = 0; i < cur->n && !err; i++) {
		struct seg *c = &cur->v[i];
		uint64_t lo = c->row.pc > covered ? c->row.pc : covered;
		uint64_t hi = c->end;

		if (lo >= hi)
			continue;
		covered = hi;
		while (j < acc->n && acc->v[j].end <= lo)
			j++;
		for (size_t k = j; lo < hi && !err; k++) {
			uint64_t stop = hi;

			if (k < acc->n && acc->v[k].row.pc < hi)
				stop = acc->v[k].row.pc;
			if (stop > lo) {
				struct unwind_row r = c->row;

				r.pc = lo;
				err = segs_push(&add, &r, stop);
			}
			if (k >= acc->n || acc->v[k].row.pc >= hi)
				break;
			if (acc->v[k].end > lo)
				lo = acc->v[k].end;
		}
	}
	segs_free(cur);
	if (err)
		goto free_add;
	if (!add.n)
		return 0;
	out.cap = acc->n + add.n;
	out.v = malloc(out.cap * sizeof(*out.v));
	if (!out.v) {
		err = -ENOMEM;
		goto free_add;
	}
	for (a = 0, b = 0; a < acc->n || b < add.n;) {
		if (b == add.n || (a < acc->n && acc->v[a].row.pc < add.v[b].row.pc))
			out.v[out.n++] = acc->v[a++];
		else
			out.v[out.n++] = add.v[b++];
	}
	segs_free(acc);
	*acc = out;
	err = (long)add.n;
free_add:
	segs_free(&add);
	return err;
}

static int same_rule(const struct unwind_row *a, const struct unwind_row *b)
{
	return a->cfa_rule == b->cfa_rule && a->cfa_off == b->cfa_off &&
	       a->bp_rule == b->bp_rule && a->bp_off == b->bp_off;
}

/* Turns the accepted segments into the row array. */
static int table_fill(struct unwind_table *t, const struct segs *acc)
{
	const struct unwind_row none = { .cfa_rule = UNWIND_CFA_NONE };
	struct unwind_row *rows, *last = NULL;
	uint64_t end = 0;
	size_t n = 0;

	/* at most one row and one gap per segment, plus the final gap */
	rows = malloc((2 * acc->n + 1) * sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	for (size_t i = 0; i < acc->n; i++) {
		const struct seg *s = &acc->v[i];

		if (last && end == s->row.pc && same_rule(last, &s->row)) {
			end = s->end;
			continue;
		}
		if (last && end != s->row.pc) {
			rows[n] = none;
			rows[n++].pc = end;
		}
		rows[n] = s->row;
		last = &rows[n++];
		end = s->end;
	}
	if (last) {
		rows[n] = none;
		rows[n++].pc = end;
	}
	t->rows = realloc(rows, (n ? n : 1) * sizeof(*rows));
	if (!t->rows)
		t->rows = rows;
	t->nrows = n;
	return 0;
}

/* ---- DWARF CFI ----------------------------------------------------- */

/* Size of a DW_EH_PE format's value, 0 for LEB128, -1 if unknown. */
static int enc_size(uint8_t enc)
{
	switch (enc & 0x0f) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		return 8;
	case DW_EH_PE_udata2:
	case DW_EH_PE_sdata2:
		return 2;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		return 4;
	case DW_EH_PE_uleb128:
	case DW_EH_PE_sleb128:
		return 0;
	default:
		return -1;
	}
}

/* Reads one value in format enc (application bits ignored) from
 * [*p, end) and advances *p. */
static int read_enc_value(uint8_t enc, const uint8_t **p, const uint8_t *end, uint64_t *val)
{
	int size = enc_size(enc);
	uint64_t v = 0;

	if (size < 0)
		return -EINVAL;
	if (size == 0) {
		unsigned int shift = 0;
		uint8_t byte;

		do {
			if (*p >= end || shift > 63)
				return -EINVAL;
			byte = *(*p)++;
			v |= (uint64_t)(byte & 0x7f) << shift;
			shift += 7;
		} while (byte & 0x80);
		if ((enc & 0x0f) == DW_EH_PE_sleb128 && shift < 64 && (byte & 0x40))
			v |= ~(uint64_t)0 << shift;
		*val = v;
		return 0;
	}
	if (end - *p < size)
		return -EINVAL;
	for (int i = size - 1; i >= 0; i--)
		v = v << 8 | (*p)[i];
	if ((enc & 0x08) && size < 8 && (v >> (size * 8 - 1) & 1))
		v |= ~(uint64_t)0 << (size * 8);	/* sdata2, sdata4 */
	*p += size;
	*val = v;
	return 0;
}

/* The FDE pointer encoding of an .eh_frame CIE: its 'R' augmentation,
 * DW_EH_PE_absptr without one, DW_EH_PE_omit when the augmentation
 * cannot be parsed. */
static uint8_t cie_fde_encoding(const Dwarf_CIE *cie)
{
	const char *a = cie->augmentation;
	const uint8_t *p = cie->augmentation_data;
	const uint8_t *end = p ? p + cie->augmentation_data_size : NULL;
	uint64_t skip;

	if (!a || a[0] != 'z')
		return DW_EH_PE_absptr;
	if (!p)
		return DW_EH_PE_omit;
	for (a++; *a; a++) {
		switch (*a) {
		case 'R':
			return p < end ? *p : DW_EH_PE_omit;
		case 'L':
			if (p >= end)
				return DW_EH_PE_omit;
			p++;
			break;
		case 'P': {
			const uint8_t *q = p + 1;

			if (p >= end || read_enc_value(*p, &q, end, &skip))
				return DW_EH_PE_omit;
			p = q;
			break;
		}
		case 'S':	/* signal frame */
		case 'B':	/* aarch64 B key */
		case 'G':	/* MTE tagged frame */
			break;
		default:
			return DW_EH_PE_omit;
		}
	}
	return DW_EH_PE_absptr;
}

/* Decodes an FDE's [lo, hi).  loc points at its initial_location, at
 * virtual address loc_vaddr (for pc-relative pointers).  -ENOTSUP for
 * encodings that do not occur in x86-64 ELF files. */
static int fde_range(uint8_t enc, const uint8_t *loc, const uint8_t *end,
		     uint64_t loc_vaddr, uint64_t *lo, uint64_t *hi)
{
	const uint8_t *p = loc;
	uint64_t start, len;

	if (enc == DW_EH_PE_omit || (enc & DW_EH_PE_indirect))
		return -ENOTSUP;
	if (read_enc_value(enc, &p, end, &start) || read_enc_value(enc & 0x0f, &p, end, &len))
		return -EINVAL;
	switch (enc & 0x70) {
	case DW_EH_PE_absptr:
		break;
	case DW_EH_PE_pcrel:
		start += loc_vaddr;
		break;
	default:
		return -ENOTSUP;
	}
	*lo = start;
	*hi = start + len;
	return *hi < *lo ? -EINVAL : 0;
}

static const struct cie_enc *cie_find(const struct cie_enc *v, size_t n, Dwarf_Off off)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].off == off)
			return &v[mid];
		if (v[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Small integer of a DW_OP_litN / DW_OP_const1u op, -1 otherwise. */
static int op_lit(const Dwarf_Op *op)
{
	if (op->atom >= DW_OP_lit0 && op->atom <= DW_OP_lit31)
		return op->atom - DW_OP_lit0;
	if (op->atom == DW_OP_const1u)
		return (int)op->number;
	return -1;
}

/* "DW_OP_bregN off" (or bregx N off) for N = rsp or rbp. */
static int op_breg(const Dwarf_Op *op, int *reg, int64_t *off)
{
	if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
		*reg = op->atom - DW_OP_breg0;
		*off = (int64_t)op->number;
		return 1;
	}
	if (op->atom == DW_OP_bregx) {
		*reg = (int)op->number;
		*off = (int64_t)op->number2;
		return 1;
	}
	return 0;
}

/* The x86-64 PLT CFA expression as ld writes it:
 *   DW_OP_breg7 (rsp) K; DW_OP_breg16 (rip) 0; DW_OP_lit15; DW_OP_and;
 *   DW_OP_litT; DW_OP_ge; DW_OP_lit3; DW_OP_shl; DW_OP_plus
 * i.e. CFA = rsp + K + ((rip & 15) >= T ? 8 : 0). */
static int plt_expr(const Dwarf_Op *ops, size_t n, struct unwind_row *r)
{
	int reg, t;
	int64_t k, zero;

	if (n != 9 || !op_breg(&ops[0], &reg, &k) || reg != DWREG_RSP ||
	    !op_breg(&ops[1], &reg, &zero) || reg != DWREG_RA || zero != 0 ||
	    op_lit(&ops[2]) != 15 || ops[3].atom != DW_OP_and ||
	    (t = op_lit(&ops[4])) < 0 || t > 15 || ops[5].atom != DW_OP_ge ||
	    op_lit(&ops[6]) != 3 || ops[7].atom != DW_OP_shl || ops[8].atom != DW_OP_plus)
		return 0;
	if (k < INT32_MIN || k > INT32_MAX)
		return 0;
	r->cfa_rule = UNWIND_CFA_PLT;
	r->cfa_off = (int32_t)k;
	r->bp_off = (int16_t)t;
	return 1;
}

/* A register rule "saved at CFA + off", as dwarf_frame_register() gives
 * it: DW_OP_call_frame_cfa, then nothing, DW_OP_plus_uconst off or
 * DW_OP_consts off; DW_OP_plus. */
static int at_cfa(const Dwarf_Op *ops, size_t n, int64_t *off)
{
	if (n < 1 || ops[0].atom != DW_OP_call_frame_cfa)
		return 0;
	if (n == 1) {
		*off = 0;
		return 1;
	}
	if (n == 2 && ops[1].atom == DW_OP_plus_uconst) {
		*off = (int64_t)ops[1].number;
		return 1;
	}
	if (n == 3 && (ops[1].atom == DW_OP_consts || ops[1].atom == DW_OP_constu ||
		       op_lit(&ops[1]) >= 0) && ops[2].atom == DW_OP_plus) {
		*off = op_lit(&ops[1]) >= 0 ? op_lit(&ops[1]) : (int64_t)ops[1].number;
		return 1;
	}
	return 0;
}

/* The row of one libdw frame state (pc not set). */
static struct unwind_row frame_row(Dwarf_Frame *fr, bool signal)
{
	struct unwind_row r = { .cfa_rule = UNWIND_CFA_UNKNOWN };
	Dwarf_Op mem[3], *ops;
	size_t n;
	int64_t off;
	int reg;

	if (signal) {
		r.cfa_rule = UNWIND_CFA_SIGNAL;
		return r;
	}
	if (dwarf_frame_register(fr, DWREG_RA, mem, &ops, &n))
		return r;
	if (n == 0 && ops) {		/* undefined: the outermost frame */
		r.cfa_rule = UNWIND_CFA_UNDEF;
		return r;
	}
	if (!at_cfa(ops, n, &off) || off != RA_AT_CFA)
		return r;
	if (dwarf_frame_cfa(fr, &ops, &n) || n == 0)
		return r;
	if (n == 1 && op_breg(&ops[0], &reg, &off) &&
	    (reg == DWREG_RSP || reg == DWREG_RBP) && off >= INT32_MIN && off <= INT32_MAX) {
		r.cfa_rule = reg == DWREG_RSP ? UNWIND_CFA_SP : UNWIND_CFA_BP;
		r.cfa_off = (int32_t)off;
	} else if (plt_expr(ops, n, &r)) {
		return r;
	} else if (n == 2 && op_breg(&ops[0], &reg, &off) && reg == DWREG_RSP &&
		   off == UCONTEXT_RSP && ops[1].atom == DW_OP_deref) {
		r.cfa_rule = UNWIND_CFA_SIGNAL;
		return r;
	} else {
		return r;
	}
	if (dwarf_frame_register(fr, DWREG_RBP, mem, &ops, &n)) {
		r.bp_rule = UNWIND_REG_UNDEF;
	} else if (n == 0) {
		r.bp_rule = ops ? UNWIND_REG_UNDEF : UNWIND_REG_SAME;
	} else if (at_cfa(ops, n, &off) && off >= INT16_MIN && off <= INT16_MAX) {
		r.bp_rule = UNWIND_REG_AT_CFA;
		r.bp_off = (int16_t)off;
	} else {
		r.bp_rule = UNWIND_REG_UNDEF;
	}
	return r;
}

/* libdw runs an FDE's CFA program from its start for each address asked
 * (dwarf_cfi_addrframe), so row k of an FDE costs it k rows: one FDE of
 * 100,000 rows (400 KB of valid CFI) would cost 5e9.  Rows are built by
 * our own interpreter in one pass (cfa_rows); libdw serves only the FDEs
 * it does not take (CFA expressions: PLT stubs, signal trampolines), with
 * their rows bounded.  A binary gets at most BINARY_ROWS_MAX rows; past
 * them an FDE's remaining range is UNKNOWN (the unwinder stops there). */
#define FDE_LIBDW_ROWS_MAX 1024
#define BINARY_ROWS_MAX (4U << 20)
#define CFA_STACK_MAX 64

static bool use_libdw_only;

void unwind_table_set_libdw_only(bool on)
{
	use_libdw_only = on;
}

/* Walks [lo, hi) of one FDE through libdw, one segment per row. */
static int fde_rows_libdw(Dwarf_CFI *cfi, uint64_t lo, uint64_t hi, struct elfin *in,
			  struct segs *out)
{
	uint64_t pc = lo, k = 0;
	int err;

	while (pc < hi) {
		struct unwind_row r = { .cfa_rule = UNWIND_CFA_UNKNOWN };
		Dwarf_Frame *fr;
		Dwarf_Addr start, end;
		bool signal = false;

		if (++k > FDE_LIBDW_ROWS_MAX || in->rows >= BINARY_ROWS_MAX) {
			in->cut++;
			return segs_push(out, &(struct unwind_row){ .pc = pc,
					 .cfa_rule = UNWIND_CFA_UNKNOWN }, hi);
		}
		in->work += k;
		in->rows++;
		if (dwarf_cfi_addrframe(cfi, pc, &fr))
			/* CFI present but not usable from here on */
			return segs_push(out, &(struct unwind_row){ .pc = pc,
					 .cfa_rule = UNWIND_CFA_UNKNOWN }, hi);
		if (dwarf_frame_info(fr, &start, &end, &signal) < 0)
			end = hi;
		else
			r = frame_row(fr, signal);
		free(fr);
		if (end <= pc || end > hi)
			end = hi;
		r.pc = pc;
		err = segs_push(out, &r, end);
		if (err)
			return err;
		pc = end;
	}
	return 0;
}

/* ---- the one-pass CFA interpreter -------------------------------------- */

enum cfa_rule_kind { RULE_UNSPEC, RULE_UNDEF, RULE_SAME, RULE_OFFSET, RULE_OTHER };

struct reg_rule {
	uint8_t kind;
	int64_t off;		/* RULE_OFFSET: saved at CFA + off */
};

/* The rules a row is made of: the CFA (register + offset) and the rules
 * of the return address and rbp; other registers are not tracked. */
struct cfa_state {
	uint64_t cfa_reg;
	int64_t cfa_off;
	struct reg_rule ra, bp;
};

struct cfa_prog {
	const uint8_t *p, *end;
	int64_t daf;		/* data alignment factor */
	uint64_t caf;		/* code alignment factor */
};

static int read_uleb(struct cfa_prog *c, uint64_t *v)
{
	return read_enc_value(DW_EH_PE_uleb128, &c->p, c->end, v);
}

static int read_sleb(struct cfa_prog *c, int64_t *v)
{
	uint64_t u;

	if (read_enc_value(DW_EH_PE_sleb128, &c->p, c->end, &u))
		return -EINVAL;
	*v = (int64_t)u;
	return 0;
}

static struct reg_rule *tracked(struct cfa_state *st, uint64_t reg)
{
	return reg == DWREG_RA ? &st->ra : reg == DWREG_RBP ? &st->bp : NULL;
}

/* The row of state st, as frame_row() makes it from libdw's. */
static struct unwind_row state_row(const struct cfa_state *st)
{
	struct unwind_row r = { .cfa_rule = UNWIND_CFA_UNKNOWN };

	if (st->ra.kind == RULE_UNDEF) {
		r.cfa_rule = UNWIND_CFA_UNDEF;
		return r;
	}
	if (st->ra.kind != RULE_OFFSET || st->ra.off != RA_AT_CFA)
		return r;
	if ((st->cfa_reg != DWREG_RSP && st->cfa_reg != DWREG_RBP) ||
	    st->cfa_off < INT32_MIN || st->cfa_off > INT32_MAX)
		return r;
	r.cfa_rule = st->cfa_reg == DWREG_RSP ? UNWIND_CFA_SP : UNWIND_CFA_BP;
	r.cfa_off = (int32_t)st->cfa_off;
	switch (st->bp.kind) {
	case RULE_UNSPEC:
	case RULE_SAME:
		r.bp_rule = UNWIND_REG_SAME;
		break;
	case RULE_OFFSET:
		if (st->bp.off >= INT16_MIN && st->bp.off <= INT16_MAX) {
			r.bp_rule = UNWIND_REG_AT_CFA;
			r.bp_off = (int16_t)st->bp.off;
			break;
		}
		/* fall through */
	default:
		r.bp_rule = UNWIND_REG_UNDEF;
		break;
	}
	return r;
}

/* Runs the CFA program c from loc on state st, pushing one segment per
 * row of [loc, hi) to out (out NULL: a CIE's initial instructions, which
 * may not advance).  init is the state restore/restore_extended go back
 * to.  1 when the program uses what only libdw interprets (a CFA
 * expression, set_loc, an unknown opcode); 0 or -errno. */
static int cfa_run(struct cfa_prog *c, struct cfa_state *st, const struct cfa_state *init,
		   uint64_t lo, uint64_t hi, struct elfin *in, struct segs *out)
{
	struct cfa_state stack[CFA_STACK_MAX];
	struct unwind_row r;
	size_t depth = 0;
	uint64_t loc = lo, a, b;
	int64_t sv;
	int err;

	while (c->p < c->end) {
		uint8_t op = *c->p++, low = op & 0x3f;
		uint64_t adv = 0;
		struct reg_rule *rr;

		in->work++;
		switch (op & 0xc0) {
		case 0x40:		/* DW_CFA_advance_loc */
			adv = low;
			goto advance;
		case 0x80:		/* DW_CFA_offset */
			if (read_uleb(c, &a))
				return -EINVAL;
			if ((rr = tracked(st, low)))
				*rr = (struct reg_rule){ RULE_OFFSET, (int64_t)a * c->daf };
			continue;
		case 0xc0:		/* DW_CFA_restore */
			if ((rr = tracked(st, low)))
				*rr = low == DWREG_RA ? init->ra : init->bp;
			continue;
		}
		switch (op) {
		case DW_CFA_nop:
		case 0x2e:		/* DW_CFA_GNU_args_size */
			if (op && read_uleb(c, &a))
				return -EINVAL;
			continue;
		case DW_CFA_advance_loc1:
		case DW_CFA_advance_loc2:
		case DW_CFA_advance_loc4: {
			int n = op == DW_CFA_advance_loc1 ? 1 : op == DW_CFA_advance_loc2 ? 2 : 4;

			if (c->end - c->p < n)
				return -EINVAL;
			for (int i = n - 1; i >= 0; i--)
				adv = adv << 8 | c->p[i];
			c->p += n;
			goto advance;
		}
		case DW_CFA_offset_extended:
		case 0x2f:		/* DW_CFA_GNU_negative_offset_extended */
			if (read_uleb(c, &a) || read_uleb(c, &b))
				return -EINVAL;
			if ((rr = tracked(st, a)))
				*rr = (struct reg_rule){ RULE_OFFSET,
					(op == 0x2f ? -1 : 1) * (int64_t)b * c->daf };
			continue;
		case DW_CFA_offset_extended_sf:
			if (read_uleb(c, &a) || read_sleb(c, &sv))
				return -EINVAL;
			if ((rr = tracked(st, a)))
				*rr = (struct reg_rule){ RULE_OFFSET, sv * c->daf };
			continue;
		case DW_CFA_restore_extended:
		case DW_CFA_undefined:
		case DW_CFA_same_value:
			if (read_uleb(c, &a))
				return -EINVAL;
			if ((rr = tracked(st, a)))
				*rr = op == DW_CFA_undefined ? (struct reg_rule){ RULE_UNDEF, 0 } :
				      op == DW_CFA_same_value ? (struct reg_rule){ RULE_SAME, 0 } :
				      a == DWREG_RA ? init->ra : init->bp;
			continue;
		case DW_CFA_register:
		case DW_CFA_val_offset:
		case DW_CFA_val_offset_sf:
			if (read_uleb(c, &a) || read_uleb(c, &b))
				return -EINVAL;
			if ((rr = tracked(st, a)))
				*rr = (struct reg_rule){ RULE_OTHER, 0 };
			continue;
		case DW_CFA_expression:
		case DW_CFA_val_expression:
			if (read_uleb(c, &a) || read_uleb(c, &b) || b > (uint64_t)(c->end - c->p))
				return -EINVAL;
			c->p += b;
			if ((rr = tracked(st, a)))
				*rr = (struct reg_rule){ RULE_OTHER, 0 };
			continue;
		case DW_CFA_remember_state:
			if (depth == CFA_STACK_MAX)
				return 1;
			stack[depth++] = *st;
			continue;
		case DW_CFA_restore_state:
			if (!depth)
				return 1;
			*st = stack[--depth];
			continue;
		case DW_CFA_def_cfa:
			if (read_uleb(c, &a) || read_uleb(c, &b))
				return -EINVAL;
			st->cfa_reg = a;
			st->cfa_off = (int64_t)b;
			continue;
		case DW_CFA_def_cfa_sf:
			if (read_uleb(c, &a) || read_sleb(c, &sv))
				return -EINVAL;
			st->cfa_reg = a;
			st->cfa_off = sv * c->daf;
			continue;
		case DW_CFA_def_cfa_register:
			if (read_uleb(c, &a))
				return -EINVAL;
			st->cfa_reg = a;
			continue;
		case DW_CFA_def_cfa_offset:
			if (read_uleb(c, &a))
				return -EINVAL;
			st->cfa_off = (int64_t)a;
			continue;
		case DW_CFA_def_cfa_offset_sf:
			if (read_sleb(c, &sv))
				return -EINVAL;
			st->cfa_off = sv * c->daf;
			continue;
		default:		/* def_cfa_expression, set_loc, vendor ops */
			return 1;
		}
advance:
		if (!out)
			return 1;
		adv *= c->caf;
		if (!adv)
			continue;
		if (in->rows >= BINARY_ROWS_MAX)
			break;
		in->rows++;
		r = state_row(st);
		r.pc = loc;
		if (adv >= hi - loc)
			return segs_push(out, &r, hi);
		err = segs_push(out, &r, loc + adv);
		if (err)
			return err;
		loc += adv;
	}
	if (out && loc < hi) {
		r = (struct unwind_row){ .cfa_rule = UNWIND_CFA_UNKNOWN };
		if (in->rows >= BINARY_ROWS_MAX && c->p < c->end)
			in->cut++;
		else
			r = state_row(st);
		r.pc = loc;
		return segs_push(out, &r, hi);
	}
	return 0;
}

/* The rows of one FDE (at section offset loc .. end, CIE c) in one pass;
 * FDEs the interpreter does not take go to libdw. */
static int fde_rows(Dwarf_CFI *cfi, const struct cie_enc *c, const uint8_t *fde,
		    const uint8_t *fde_end, uint64_t lo, uint64_t hi, struct elfin *in,
		    struct segs *out)
{
	struct cfa_state init = { .ra = { RULE_UNSPEC, 0 }, .bp = { RULE_UNSPEC, 0 } }, st;
	struct cfa_prog prog = { c->cie.initial_instructions, c->cie.initial_instructions_end,
				 c->cie.data_alignment_factor, c->cie.code_alignment_factor };
	const char *aug = c->cie.augmentation;
	const uint8_t *p = fde;
	uint64_t skip;
	size_t n0 = out->n;
	int err;

	if (use_libdw_only || c->cie.return_address_register != DWREG_RA ||
	    (aug && strchr(aug, 'S')) || !prog.p || prog.end < prog.p)
		return fde_rows_libdw(cfi, lo, hi, in, out);
	/* initial_location, address_range, then the 'z' augmentation data */
	if (read_enc_value(c->enc, &p, fde_end, &skip) ||
	    read_enc_value(c->enc & 0x0f, &p, fde_end, &skip))
		return fde_rows_libdw(cfi, lo, hi, in, out);
	if (aug && aug[0] == 'z') {
		if (read_enc_value(DW_EH_PE_uleb128, &p, fde_end, &skip) ||
		    skip > (uint64_t)(fde_end - p))
			return fde_rows_libdw(cfi, lo, hi, in, out);
		p += skip;
	}
	err = cfa_run(&prog, &init, &init, lo, lo, in, NULL);
	if (err)
		return err < 0 ? err : fde_rows_libdw(cfi, lo, hi, in, out);
	st = init;
	prog.p = p;
	prog.end = fde_end;
	err = cfa_run(&prog, &st, &init, lo, hi, in, out);
	if (err > 0 || err == -EINVAL) {
		out->n = n0;		/* what libdw makes of it */
		return fde_rows_libdw(cfi, lo, hi, in, out);
	}
	return err;
}

/* Enumerates the FDEs of a CFI section (eh: .eh_frame, else .debug_frame)
 * and adds the rows of each to out.  -EINVAL when the section's structure
 * is broken. */
static int dwarf_collect(struct elfin *in, Elf_Scn *scn, bool eh, Dwarf_CFI *cfi,
			 struct segs *out)
{
	const unsigned char *ident = (const unsigned char *)elf_getident(in->elf, NULL);
	struct cie_enc *cies = NULL;
	struct rawfde *fdes = NULL;
	size_t ncies = 0, nfdes = 0, capc = 0, capf = 0;
	Dwarf_Off off = 0, next;
	Elf_Data *data;
	GElf_Shdr sh;
	int err = -EINVAL, ret;

	if (!ident || !gelf_getshdr(scn, &sh) || !(data = elf_getdata(scn, NULL)) || !data->d_buf)
		return -EINVAL;
	for (;;) {
		Dwarf_CFI_Entry e;

		ret = dwarf_next_cfi(ident, data, eh, off, &next, &e);
		if (ret > 0)
			break;
		if (ret < 0 || next <= off)
			goto free_lists;
		if (dwarf_cfi_cie_p(&e)) {
			if (ncies == capc) {
				struct cie_enc *v;

				capc = capc ? capc * 2 : 16;
				v = realloc(cies, capc * sizeof(*v));
				if (!v) {
					err = -ENOMEM;
					goto free_lists;
				}
				cies = v;
			}
			cies[ncies].off = off;
			cies[ncies].cie = e.cie;
			cies[ncies++].enc = eh ? cie_fde_encoding(&e.cie) : DW_EH_PE_absptr;
		} else {
			if (nfdes == capf) {
				struct rawfde *v;

				capf = capf ? capf * 2 : 256;
				v = realloc(fdes, capf * sizeof(*v));
				if (!v) {
					err = -ENOMEM;
					goto free_lists;
				}
				fdes = v;
			}
			fdes[nfdes].cie = e.fde.CIE_pointer;
			fdes[nfdes].loc = (size_t)(e.fde.start - (const uint8_t *)data->d_buf);
			fdes[nfdes++].end = (size_t)(e.fde.end - (const uint8_t *)data->d_buf);
		}
		off = next;
		if (off >= data->d_size)
			break;
	}
	err = 0;
	for (size_t i = 0; i < nfdes && !err; i++) {
		const struct cie_enc *c = cie_find(cies, ncies, fdes[i].cie);
		const uint8_t *base = data->d_buf;
		uint64_t lo, hi;

		if (!c || fdes[i].loc > fdes[i].end || fdes[i].end > data->d_size) {
			err = -EINVAL;
			break;
		}
		if (fde_range(c->enc, base + fdes[i].loc, base + fdes[i].end,
			      sh.sh_addr + fdes[i].loc, &lo, &hi))
			continue;
		/* lo 0: the FDE of a function the linker discarded */
		if (lo == 0 || lo == hi)
			continue;
		if (in->starts) {
			struct fde_starts *st = in->starts;

			if (st->n == st->cap) {
				size_t cap = st->cap ? st->cap * 2 : 256;
				uint64_t *v = realloc(st->v, cap * sizeof(*v));

				if (!v) {
					err = -ENOMEM;
					break;
				}
				st->v = v;
				st->cap = cap;
			}
			st->v[st->n++] = lo;
			continue;
		}
		err = fde_rows(cfi, c, base + fdes[i].loc, base + fdes[i].end, lo, hi, in, out);
	}
free_lists:
	free(cies);
	free(fdes);
	return err;
}

static int eh_frame_collect(struct elfin *in, struct segs *out)
{
	Dwarf_CFI *cfi = dwarf_getcfi_elf(in->elf);
	int err;

	if (!cfi)
		return -EINVAL;
	err = dwarf_collect(in, elf_getscn(in->elf, in->eh_frame), true, cfi, out);
	dwarf_cfi_end(cfi);
	return err;
}

static int debug_frame_collect(struct elfin *in, struct segs *out)
{
	Elf_Scn *scn = elf_getscn(in->elf, in->debug_frame);
	Dwarf *dw;
	Dwarf_CFI *cfi;
	GElf_Shdr sh;
	int err = -EINVAL;

	if (!scn)
		return -EINVAL;
	/* libdw inflates every compressed debug section it opens */
	if (debugfile_inflate_check(in->elf, in->fsize, in->name))
		return -EFBIG;
	dw = dwarf_begin_elf(in->elf, DWARF_C_READ, NULL);
	if (!dw)
		goto end_dwarf;
	cfi = dwarf_getcfi(dw);
	if (!cfi || !gelf_getshdr(scn, &sh))
		goto end_dwarf;
	/* libdw decompresses the debug sections it opens; be sure */
	if ((sh.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
		goto end_dwarf;
	err = dwarf_collect(in, scn, false, cfi, out);
end_dwarf:
	if (dw)
		dwarf_end(dw);
	return err;
}

/* ---- SFrame and signal trampolines --------------------------------- */

static int sframe_emit(void *ctx, const struct unwind_row *row, uint64_t end)
{
	return segs_push(ctx, row, end);
}

static int sframe_collect(struct elfin *in, struct segs *out)
{
	Elf_Scn *scn = elf_getscn(in->elf, in->sframe);
	Elf_Data *data;
	GElf_Shdr sh;

	if (!scn || !gelf_getshdr(scn, &sh) || !(data = elf_getdata(scn, NULL)))
		return -EINVAL;
	return sframe_parse(data->d_buf, data->d_size, sh.sh_addr, sframe_emit, out);
}

/* rt_sigreturn trampolines: glibc's __restore_rt (mov $15,%rax;
 * syscall) and musl's (mov $15,%eax; syscall). */
static const struct {
	const char *code;
	size_t len;
} sigreturn_code[] = {
	{ "\x48\xc7\xc0\x0f\x00\x00\x00\x0f\x05", 9 },
	{ "\xb8\x0f\x00\x00\x00\x0f\x05", 7 },
};
#define SIGRETURN_CODE_MAX 9
#define SCAN_CHUNK 16384

/* Adds a SIGNAL segment for each trampoline in the file bytes [off, off +
 * len), loaded at vaddr.  The segment also covers the byte before the
 * code: unwinders look up return address - 1, and a signal handler
 * returns to the trampoline's first byte.  Read errors end the scan
 * quietly (the file was checked to hold its sections). */
static int scan_sigreturn(int fd, uint64_t off, uint64_t vaddr, uint64_t len, struct segs *out)
{
	const size_t keep = SIGRETURN_CODE_MAX - 1;
	char buf[SCAN_CHUNK];
	uint64_t pos = 0;
	int err;

	while (pos < len) {
		size_t want = len - pos < sizeof(buf) ? (size_t)(len - pos) : sizeof(buf);
		ssize_t got = pread(fd, buf, want, (off_t)(off + pos));
		int last;
		size_t limit;

		if (got <= 0)
			return 0;
		last = pos + (uint64_t)got >= len || (size_t)got <= keep;
		/* a match starting in the last bytes is found in the next chunk */
		limit = last ? (size_t)got : (size_t)got - keep;
		for (size_t k = 0; k < sizeof(sigreturn_code) / sizeof(sigreturn_code[0]); k++) {
			const char *p = buf, *end = buf + got, *hit;

			while ((hit = memmem(p, (size_t)(end - p), sigreturn_code[k].code,
					     sigreturn_code[k].len)) && (size_t)(hit - buf) < limit) {
				uint64_t at = vaddr + pos + (uint64_t)(hit - buf);
				struct unwind_row r = { .pc = at - 1, .cfa_rule = UNWIND_CFA_SIGNAL };

				err = segs_push(out, &r, at + sigreturn_code[k].len);
				if (err)
					return err;
				p = hit + 1;
			}
		}
		if (last)
			break;
		pos += limit;
	}
	return 0;
}

/* Looks for signal trampolines in the parts of executable sections that
 * no CFI describes (acc: sorted, disjoint), so a binary whose trampoline
 * has no CFI (musl, static binaries) still unwinds through signal
 * frames, without reading the code CFI already covers. */
static int sigreturn_collect(struct elfin *in, const struct segs *acc, struct segs *out)
{
	Elf_Scn *scn = NULL;
	int err;

	while ((scn = elf_nextscn(in->elf, scn))) {
		uint64_t cur, b;
		size_t i = 0, hi = acc->n;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || !sh.sh_addr ||
		    sh.sh_addr + sh.sh_size < sh.sh_addr)
			continue;
		cur = sh.sh_addr;
		b = sh.sh_addr + sh.sh_size;
		/* first segment ending after the section start */
		while (i < hi) {
			size_t mid = i + (hi - i) / 2;

			if (acc->v[mid].end <= cur)
				i = mid + 1;
			else
				hi = mid;
		}
		while (cur < b) {
			uint64_t gap_end = i < acc->n && acc->v[i].row.pc < b ? acc->v[i].row.pc : b;

			if (gap_end > cur) {
				err = scan_sigreturn(in->fd, sh.sh_offset + (cur - sh.sh_addr), cur,
						     gap_end - cur, out);
				if (err)
					return err;
			}
			if (i >= acc->n || acc->v[i].row.pc >= b)
				break;
			if (acc->v[i].end > cur)
				cur = acc->v[i].end;
			i++;
		}
	}
	return 0;
}

/* ---- the file ------------------------------------------------------ */

/* Opens fd as an x86-64 executable or shared library, checks that its
 * section headers and section contents lie inside the file and finds the
 * CFI sections. */
static int elfin_open(struct elfin *in, int fd)
{
	size_t shnum, shstrndx;
	GElf_Ehdr eh;
	struct stat st;
	Elf_Scn *scn = NULL;

	memset(in, 0, sizeof(*in));
	in->fd = fd;
	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	in->fsize = (uint64_t)st.st_size;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	in->elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!in->elf || elf_kind(in->elf) != ELF_K_ELF || !gelf_getehdr(in->elf, &eh))
		return -EINVAL;
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
		return -EINVAL;
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != EM_X86_64)
		return -ENOTSUP;
	if (elf_getshdrnum(in->elf, &shnum) || elf_getshdrstrndx(in->elf, &shstrndx))
		return -EINVAL;
	if (!range_ok(eh.e_shoff, (uint64_t)shnum * eh.e_shentsize, in->fsize))
		return -EINVAL;
	while ((scn = elf_nextscn(in->elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			return -EINVAL;
		if (sh.sh_type == SHT_NOBITS)
			continue;
		if (!range_ok(sh.sh_offset, sh.sh_size, in->fsize))
			return -EINVAL;
		if (!sh.sh_size)
			continue;	/* an empty CFI section is no CFI */
		name = elf_strptr(in->elf, shstrndx, sh.sh_name);
		if (!name)
			continue;
		if (!strcmp(name, ".eh_frame") && !in->eh_frame)
			in->eh_frame = elf_ndxscn(scn);
		else if (!strcmp(name, ".debug_frame") && !in->debug_frame)
			in->debug_frame = elf_ndxscn(scn);
		else if ((!strcmp(name, ".sframe") || sh.sh_type == SHT_GNU_SFRAME) && !in->sframe)
			in->sframe = elf_ndxscn(scn);
	}
	return 0;
}

static int build(struct unwind_table *t, int fd, unsigned int sources)
{
	static const struct {
		unsigned int src;
		int (*collect)(struct elfin *in, struct segs *out);
	} order[] = {
		{ UNWIND_SRC_EH_FRAME, eh_frame_collect },
		{ UNWIND_SRC_DEBUG_FRAME, debug_frame_collect },
		{ UNWIND_SRC_SFRAME, sframe_collect },
	};
	struct segs acc = { 0 }, cur = { 0 };
	struct elfin in;
	int err;
	long added;

	if (!sources)
		sources = UNWIND_SRC_EH_FRAME | UNWIND_SRC_DEBUG_FRAME | UNWIND_SRC_SFRAME;
	memset(&in, 0, sizeof(in));
	err = elfin_open(&in, fd);
	if (err)
		goto end_elf;
	in.name = t->name;
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		size_t idx = order[i].src == UNWIND_SRC_EH_FRAME ? in.eh_frame :
			     order[i].src == UNWIND_SRC_DEBUG_FRAME ? in.debug_frame : in.sframe;

		if (!(sources & order[i].src) || !idx)
			continue;
		err = order[i].collect(&in, &cur);
		if (err == -ENOMEM)
			goto free_segs;
		if (err) {
			t->bad |= order[i].src;
			segs_free(&cur);
			continue;
		}
		added = segs_merge(&acc, &cur);
		if (added < 0) {
			err = (int)added;
			goto free_segs;
		}
		if (added)
			t->sources |= order[i].src;
	}
	if (!acc.n) {
		err = t->bad ? -EINVAL : -ENOENT;
		goto free_segs;
	}
	err = sigreturn_collect(&in, &acc, &cur);
	if (err)
		goto free_segs;
	added = segs_merge(&acc, &cur);
	if (added < 0) {
		err = (int)added;
		goto free_segs;
	}
	err = table_fill(t, &acc);
free_segs:
	t->work = in.work;
	if (in.cut)
		msg("%s: %zu functions' call-frame information is longer than is read "
		    "(%u rows per binary, %d per CFA expression function): the rest of them "
		    "is not unwound", t->name, in.cut, BINARY_ROWS_MAX, FDE_LIBDW_ROWS_MAX);
	segs_free(&cur);
	segs_free(&acc);
end_elf:
	if (in.elf)
		elf_end(in.elf);
	return err;
}

struct unwind_table *unwind_table_build_fd(int fd, const char *name, unsigned int sources)
{
	struct unwind_table *t;
	int err;

	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->name = strdup(name ? name : "");
	if (!t->name) {
		err = -ENOMEM;
		goto free_table;
	}
	err = build(t, fd, sources);
	if (err)
		goto free_table;
	return t;

free_table:
	unwind_table_free(t);
	errno = -err;
	return NULL;
}

struct unwind_table *unwind_table_build(const char *path, unsigned int sources)
{
	struct unwind_table *t;
	int fd, err;

	fd = open_regular(path, NULL);
	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	t = unwind_table_build_fd(fd, path, sources);
	err = errno;
	close(fd);
	errno = err;
	return t;
}

const struct unwind_row *unwind_table_find(const struct unwind_table *t, uint64_t pc)
{
	size_t lo = 0, hi;

	if (!t || !t->nrows || pc < t->rows[0].pc)
		return NULL;
	hi = t->nrows;
	/* invariant: rows[lo].pc <= pc, and rows[hi].pc > pc when hi < n */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->rows[mid].pc <= pc)
			lo = mid;
		else
			hi = mid;
	}
	return &t->rows[lo];
}

size_t unwind_table_rows(const struct unwind_table *t, const struct unwind_row **rows)
{
	if (rows)
		*rows = t ? t->rows : NULL;
	return t ? t->nrows : 0;
}

unsigned int unwind_table_sources(const struct unwind_table *t)
{
	return t ? t->sources : 0;
}

unsigned int unwind_table_bad_sources(const struct unwind_table *t)
{
	return t ? t->bad : 0;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int unwind_fde_starts(const char *path, uint64_t **starts, size_t *n)
{
	struct fde_starts st = { 0 };
	struct segs none = { 0 };
	struct elfin in;
	int fd, err;

	*starts = NULL;
	*n = 0;
	fd = open_regular(path, NULL);
	if (fd < 0)
		return fd;
	err = elfin_open(&in, fd);
	if (err)
		goto free_starts;
	in.name = path;
	in.starts = &st;
	if (in.eh_frame) {
		err = eh_frame_collect(&in, &none);
		if (err == -ENOMEM)
			goto free_starts;
	}
	if (in.debug_frame) {
		err = debug_frame_collect(&in, &none);
		if (err == -ENOMEM)
			goto free_starts;
	}
	if (st.n > 1)
		qsort(st.v, st.n, sizeof(*st.v), u64_cmp);
	*starts = st.v;
	*n = st.n;
	st.v = NULL;
	err = 0;
free_starts:
	free(st.v);
	segs_free(&none);
	if (in.elf)
		elf_end(in.elf);
	close(fd);
	return err;
}

uint64_t unwind_table_work(const struct unwind_table *t)
{
	return t ? t->work : 0;
}

const char *unwind_table_name(const struct unwind_table *t)
{
	return t ? t->name : NULL;
}

void unwind_table_free(struct unwind_table *t)
{
	if (!t)
		return;
	free(t->rows);
	free(t->name);
	free(t);
}
