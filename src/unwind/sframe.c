/* SFrame section reader (versions 1 and 2, AMD64).
 *
 * Layout (all little-endian here):
 *   header   magic u16 0xdee2, version u8, flags u8, abi_arch u8,
 *            cfa_fixed_fp_offset i8, cfa_fixed_ra_offset i8,
 *            auxhdr_len u8, num_fdes u32, num_fres u32, fre_len u32,
 *            fdeoff u32, freoff u32                       (28 bytes)
 *   aux header of auxhdr_len bytes
 *   FDEs     at 28 + auxhdr_len + fdeoff: num_fdes records of
 *            func_start i32, func_size u32, fre_off u32, num_fres u32,
 *            info u8                                  (v1: 17 bytes)
 *            + rep_size u8, padding u16               (v2: 20 bytes)
 *   FREs     at 28 + auxhdr_len + freoff, fre_len bytes: per FRE a start
 *            offset (u8/u16/u32 by the FDE's FRE type), an info byte,
 *            then 0..3 signed offsets of 1, 2 or 4 bytes.
 * func_start is relative to the start of the section, or with the v2
 * flag FDE_FUNC_START_PCREL to the func_start field itself.  FRE starts
 * are relative to the function start (PCINC) or, for PCMASK functions,
 * positions inside each repeated block of rep_size bytes. */
#include <errno.h>
#include <string.h>

#include "unwind/sframe.h"

#define SF_MAGIC 0xdee2
#define SF_HDR_SIZE 28
#define SF_FDE_V1_SIZE 17
#define SF_FDE_V2_SIZE 20
#define SF_ABI_AMD64_LE 3
#define SF_ABI_MAX 4			/* s390x, the last ABI defined */
#define SF_F_FDE_SORTED 0x1
#define SF_F_FRAME_POINTER 0x2
#define SF_F_FDE_FUNC_START_PCREL 0x4	/* v2 errata 1 */
#define SF_FDE_TYPE_PCMASK 1
#define SF_BASE_REG_SP 1
#define SF_V1_REP_SIZE 16		/* x86-64 pltN entry */
#define SF_MAX_EXPAND 65536
#define AMD64_RA_OFFSET (-8)

/* One FDE, decoded. */
struct sf_fde {
	uint64_t start;		/* function start, virtual address */
	uint32_t size;
	uint32_t fre_off;	/* into the FRE sub-section */
	uint32_t num_fres;
	uint8_t fre_type;	/* 0, 1, 2: start offsets of 1, 2, 4 bytes */
	uint8_t pcmask;
	uint8_t rep_size;
};

/* One FRE, decoded. */
struct sf_fre {
	uint32_t start;		/* offset in the function or block */
	struct unwind_row row;	/* pc not set */
};

/* The parse state: the section and its header fields that matter. */
struct sf {
	const uint8_t *p;
	size_t size;
	uint64_t vaddr;
	int version;
	uint8_t flags;
	int8_t fixed_fp;
	int8_t fixed_ra;
	uint32_t num_fdes, num_fres;
	size_t fdes;		/* section offset of the FDE sub-section */
	size_t fde_size;
	size_t fres;		/* section offset of the FRE sub-section */
	size_t fre_len;
	int (*emit)(void *ctx, const struct unwind_row *row, uint64_t end);
	void *ctx;
};

static uint32_t get_le(const uint8_t *p, size_t n)
{
	uint32_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

static int32_t get_sle(const uint8_t *p, size_t n)
{
	uint32_t v = get_le(p, n);

	if (n == 1)
		return (int8_t)v;
	if (n == 2)
		return (int16_t)v;
	return (int32_t)v;
}

static int read_header(struct sf *s)
{
	const uint8_t *p = s->p;
	uint64_t hdr, fdes_end, fres_end;
	uint8_t allowed;

	if (s->size < SF_HDR_SIZE)
		return -EINVAL;
	if (get_le(p, 2) != SF_MAGIC)
		/* 0xdee2 read big-endian: a foreign-endian section */
		return get_le(p, 2) == 0xe2de ? -ENOTSUP : -EINVAL;
	s->version = p[2];
	s->flags = p[3];
	if (s->version == 1)
		allowed = SF_F_FDE_SORTED | SF_F_FRAME_POINTER;
	else if (s->version == 2)
		allowed = SF_F_FDE_SORTED | SF_F_FRAME_POINTER | SF_F_FDE_FUNC_START_PCREL;
	else
		return -EINVAL;
	if (s->flags & ~allowed)
		return -EINVAL;
	if (p[4] != SF_ABI_AMD64_LE)
		return p[4] >= 1 && p[4] <= SF_ABI_MAX ? -ENOTSUP : -EINVAL;
	s->fixed_fp = (int8_t)p[5];
	s->fixed_ra = (int8_t)p[6];
	hdr = SF_HDR_SIZE + (uint64_t)p[7];
	s->num_fdes = get_le(p + 8, 4);
	s->num_fres = get_le(p + 12, 4);
	s->fre_len = get_le(p + 16, 4);
	s->fde_size = s->version == 1 ? SF_FDE_V1_SIZE : SF_FDE_V2_SIZE;
	/* 64-bit sums of 32-bit fields cannot wrap */
	fdes_end = hdr + get_le(p + 20, 4) + (uint64_t)s->num_fdes * s->fde_size;
	fres_end = hdr + get_le(p + 24, 4) + (uint64_t)s->fre_len;
	if (fdes_end > s->size || fres_end > s->size)
		return -EINVAL;
	s->fdes = hdr + get_le(p + 20, 4);
	s->fres = hdr + get_le(p + 24, 4);
	/* Every FRE takes at least two bytes. */
	if ((uint64_t)s->num_fres * 2 > s->fre_len)
		return -EINVAL;
	return 0;
}

static int read_fde(const struct sf *s, uint32_t i, struct sf_fde *f)
{
	const uint8_t *p = s->p + s->fdes + (size_t)i * s->fde_size;
	int64_t start = get_sle(p, 4);
	uint8_t info = p[16];

	if (s->flags & SF_F_FDE_FUNC_START_PCREL)
		start += (int64_t)(s->fdes + (size_t)i * s->fde_size);
	f->start = s->vaddr + (uint64_t)start;
	f->size = get_le(p + 4, 4);
	f->fre_off = get_le(p + 8, 4);
	f->num_fres = get_le(p + 12, 4);
	f->fre_type = info & 0xf;
	f->pcmask = (info >> 4 & 1) == SF_FDE_TYPE_PCMASK;
	f->rep_size = s->version == 1 ? SF_V1_REP_SIZE : p[17];
	if (f->fre_type > 2)
		return -EINVAL;
	if (f->pcmask && !f->rep_size)
		return -EINVAL;
	if (f->start + f->size < f->start)
		return -EINVAL;
	if (f->num_fres && f->fre_off >= s->fre_len)
		return -EINVAL;
	if (f->num_fres > s->num_fres)
		return -EINVAL;
	return 0;
}

/* Decodes the FRE at *off (into the FRE sub-section) and advances *off. */
static int read_fre(const struct sf *s, const struct sf_fde *f, size_t *off,
		    struct sf_fre *fre)
{
	static const size_t addr_sizes[] = { 1, 2, 4 };
	const uint8_t *p = s->p + s->fres;
	size_t asz = addr_sizes[f->fre_type], osz, n, need;
	int32_t offs[3];
	uint8_t info;
	int ra_tracked = s->fixed_ra == 0;
	int cfa_sp, idx;

	if (s->fre_len - *off < asz + 1)
		return -EINVAL;
	fre->start = get_le(p + *off, asz);
	info = p[*off + asz];
	cfa_sp = (info & 1) == SF_BASE_REG_SP;
	n = info >> 1 & 0xf;
	osz = info >> 5 & 3;
	if (osz == 3 || n > 3)
		return -EINVAL;
	osz = (size_t)1 << osz;
	need = asz + 1 + n * osz;
	if (s->fre_len - *off < need)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		offs[i] = get_sle(p + *off + asz + 1 + i * osz, osz);
	*off += need;

	memset(&fre->row, 0, sizeof(fre->row));
	if (n == 0) {
		/* newer gas: .cfi_undefined on the return address */
		fre->row.cfa_rule = UNWIND_CFA_UNDEF;
		return 0;
	}
	fre->row.cfa_rule = cfa_sp ? UNWIND_CFA_SP : UNWIND_CFA_BP;
	fre->row.cfa_off = offs[0];
	idx = 1;
	if (ra_tracked) {
		if (n < 2 || offs[1] != AMD64_RA_OFFSET) {
			fre->row = (struct unwind_row){ .cfa_rule = UNWIND_CFA_UNKNOWN };
			return 0;
		}
		idx = 2;
	} else if (s->fixed_ra != AMD64_RA_OFFSET) {
		fre->row = (struct unwind_row){ .cfa_rule = UNWIND_CFA_UNKNOWN };
		return 0;
	}
	if ((size_t)idx < n) {
		int32_t fp = offs[idx];

		if (idx + 1 < (int)n)
			return -EINVAL;	/* more offsets than CFA, RA, FP */
		if (fp >= INT16_MIN && fp <= INT16_MAX) {
			fre->row.bp_rule = UNWIND_REG_AT_CFA;
			fre->row.bp_off = (int16_t)fp;
		} else {
			fre->row.bp_rule = UNWIND_REG_UNDEF;
		}
	} else if (s->fixed_fp) {
		fre->row.bp_rule = UNWIND_REG_AT_CFA;
		fre->row.bp_off = s->fixed_fp;
	}
	return 0;
}

static int emit(const struct sf *s, const struct unwind_row *r, uint64_t pc, uint64_t end)
{
	struct unwind_row row = *r;

	row.pc = pc;
	return s->emit(s->ctx, &row, end);
}

/* A PCMASK function of 16-byte blocks at a 16-aligned address whose
 * rows are "sp + K from 0, sp + K + 8 from T": the x86-64 PLT rule. */
static int plt_shape(const struct sf_fde *f, const struct sf_fre *fres, struct unwind_row *row)
{
	if (f->rep_size != 16 || f->num_fres != 2 || f->start % 16)
		return 0;
	if (fres[0].row.cfa_rule != UNWIND_CFA_SP || fres[1].row.cfa_rule != UNWIND_CFA_SP ||
	    fres[0].row.bp_rule != UNWIND_REG_SAME || fres[1].row.bp_rule != UNWIND_REG_SAME)
		return 0;
	if (fres[0].start != 0 || fres[1].row.cfa_off != fres[0].row.cfa_off + 8)
		return 0;
	*row = (struct unwind_row){ .cfa_rule = UNWIND_CFA_PLT,
				    .cfa_off = fres[0].row.cfa_off,
				    .bp_off = (int16_t)fres[1].start };
	return 1;
}

/* Emits the rows of a PCMASK function: the FREs repeat in each block. */
static int emit_pcmask(const struct sf *s, const struct sf_fde *f,
		       const struct sf_fre *fres)
{
	uint64_t blocks = ((uint64_t)f->size + f->rep_size - 1) / f->rep_size;
	uint64_t end = f->start + f->size;
	struct unwind_row plt;
	int err;

	if (plt_shape(f, fres, &plt))
		return emit(s, &plt, f->start, end);
	if (blocks * f->num_fres > SF_MAX_EXPAND)
		return -E2BIG;
	for (uint64_t b = 0; b < blocks; b++) {
		uint64_t base = f->start + b * f->rep_size;

		for (uint32_t i = 0; i < f->num_fres; i++) {
			uint64_t lo = base + fres[i].start;
			uint64_t hi = i + 1 < f->num_fres ? base + fres[i + 1].start
							  : base + f->rep_size;

			if (hi > end)
				hi = end;
			if (lo >= hi)
				break;
			err = emit(s, &fres[i].row, lo, hi);
			if (err)
				return err;
		}
	}
	return 0;
}

/* The FREs of a PCMASK function are buffered (they are emitted once per
 * block); PCINC ones stream through a two-entry window. */
#define SF_MASK_FRES_MAX 64

static int parse_fde(const struct sf *s, const struct sf_fde *f)
{
	struct sf_fre mask[SF_MASK_FRES_MAX], cur = { 0 }, next;
	uint64_t end = f->start + f->size;
	uint32_t limit = f->pcmask ? f->rep_size : f->size;
	size_t off = f->fre_off;
	int err;

	if (f->pcmask && f->num_fres > SF_MASK_FRES_MAX)
		return -EINVAL;	/* a block is at most 255 bytes */
	for (uint32_t i = 0; i < f->num_fres; i++) {
		err = read_fre(s, f, &off, &next);
		if (err)
			return err;
		if (next.start >= limit && !(f->size == 0 && next.start == 0))
			return -EINVAL;
		if (i && next.start <= cur.start)
			return -EINVAL;
		if (f->pcmask) {
			mask[i] = next;
		} else if (i) {
			err = emit(s, &cur.row, f->start + cur.start, f->start + next.start);
			if (err)
				return err;
		}
		cur = next;
	}
	if (!f->num_fres || !f->size)
		return 0;
	if (f->pcmask)
		return emit_pcmask(s, f, mask);
	return emit(s, &cur.row, f->start + cur.start, end);
}

int sframe_parse(const void *data, size_t size, uint64_t sec_vaddr,
		 int (*emit_fn)(void *ctx, const struct unwind_row *row, uint64_t end),
		 void *ctx)
{
	struct sf s = { .p = data, .size = size, .vaddr = sec_vaddr,
			.emit = emit_fn, .ctx = ctx };
	uint64_t total = 0;
	int err;

	if (!data && size)
		return -EINVAL;
	err = read_header(&s);
	if (err)
		return err;
	for (uint32_t i = 0; i < s.num_fdes; i++) {
		struct sf_fde f;

		err = read_fde(&s, i, &f);
		if (err)
			return err;
		total += f.num_fres;
		if (total > s.num_fres)
			return -EINVAL;
		err = parse_fde(&s, &f);
		if (err)
			return err;
	}
	return total == s.num_fres ? 0 : -EINVAL;
}
