/* The instruction emitter and disassembler (see insn.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "lang/insn.h"

static void fail(struct insn_buf *b, int err, const char *why)
{
	if (!b->err) {
		b->err = err;
		b->why = why;
	}
}

static bool grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t ncap;
	void *np;

	if (need <= *cap)
		return true;
	ncap = *cap ? *cap * 2 : 256;
	while (ncap < need)
		ncap *= 2;
	np = realloc(*p, ncap * elem);
	if (!np)
		return false;
	*p = np;
	*cap = ncap;
	return true;
}

void insn_free(struct insn_buf *b)
{
	free(b->insn);
	free(b->pos);
	free(b->labels);
	free(b->fix);
	memset(b, 0, sizeof(*b));
}

void insn_emit(struct insn_buf *b, struct bpf_insn i)
{
	size_t cap;

	if (b->err)
		return;
	if (b->n >= INSN_MAX) {
		fail(b, -E2BIG, "more than a million instructions");
		return;
	}
	cap = b->cap;
	if (!grow((void **)&b->insn, &cap, b->n + 1, sizeof(*b->insn))) {
		fail(b, -ENOMEM, "out of memory");
		return;
	}
	if (cap != b->cap) {
		uint32_t *np = realloc(b->pos, cap * sizeof(*np));

		if (!np) {
			fail(b, -ENOMEM, "out of memory");
			return;
		}
		b->pos = np;
		b->cap = cap;
	}
	b->pos[b->n] = b->cur_pos;
	b->insn[b->n++] = i;
}

void insn_emit2(struct insn_buf *b, const struct bpf_insn i[2])
{
	insn_emit(b, i[0]);
	insn_emit(b, i[1]);
}

int insn_label(struct insn_buf *b)
{
	if (b->err)
		return 0;
	if (!grow((void **)&b->labels, &b->labels_cap, b->nlabels + 1, sizeof(*b->labels))) {
		fail(b, -ENOMEM, "out of memory");
		return 0;
	}
	b->labels[b->nlabels] = -1;
	return (int)b->nlabels++;
}

void insn_bind(struct insn_buf *b, int label)
{
	if (b->err)
		return;
	if (label < 0 || (size_t)label >= b->nlabels || b->labels[label] >= 0) {
		fail(b, -EINVAL, "a label bound twice");
		return;
	}
	b->labels[label] = (int32_t)b->n;
}

static void jump(struct insn_buf *b, struct bpf_insn i, int label)
{
	if (b->err)
		return;
	if (!grow((void **)&b->fix, &b->fix_cap, b->nfix + 1, sizeof(*b->fix))) {
		fail(b, -ENOMEM, "out of memory");
		return;
	}
	b->fix[b->nfix++] = (struct insn_fixup){ (uint32_t)b->n, label };
	insn_emit(b, i);
}

void insn_ja(struct insn_buf *b, int label)
{
	jump(b, (struct bpf_insn){ BPF_JMP | BPF_JA, 0, 0, 0, 0 }, label);
}

void insn_jmp_imm(struct insn_buf *b, int op, int reg, int32_t imm, int label)
{
	jump(b, (struct bpf_insn){ BPF_JMP | BPF_OP(op) | BPF_K, reg, 0, 0, imm }, label);
}

void insn_jmp_reg(struct insn_buf *b, int op, int dst, int src, int label)
{
	jump(b, (struct bpf_insn){ BPF_JMP | BPF_OP(op) | BPF_X, dst, src, 0, 0 }, label);
}

void insn_mov64(struct insn_buf *b, int reg, uint64_t v)
{
	if ((int64_t)v == (int32_t)v) {
		insn_emit(b, I_MOV64_IMM(reg, (int32_t)v));
		return;
	}
	insn_emit(b, (struct bpf_insn){ BPF_LD | BPF_DW | BPF_IMM, reg, 0, 0, (int32_t)(uint32_t)v });
	insn_emit(b, (struct bpf_insn){ 0, 0, 0, 0, (int32_t)(uint32_t)(v >> 32) });
}

void insn_ld_map(struct insn_buf *b, int reg, int fd)
{
	insn_emit(b, (struct bpf_insn){ BPF_LD | BPF_DW | BPF_IMM, reg, BPF_PSEUDO_MAP_FD, 0, fd });
	insn_emit(b, (struct bpf_insn){ 0, 0, 0, 0, 0 });
}

bool insn_label_used(const struct insn_buf *b, int label)
{
	for (size_t i = 0; i < b->nfix; i++)
		if (b->fix[i].label == label)
			return true;
	return false;
}

void insn_ld_func(struct insn_buf *b, int reg)
{
	insn_emit(b, (struct bpf_insn){ BPF_LD | BPF_DW | BPF_IMM, reg, BPF_PSEUDO_FUNC, 0, 0 });
	insn_emit(b, (struct bpf_insn){ 0, 0, 0, 0, 0 });
}

void insn_append(struct insn_buf *b, const struct insn_buf *src)
{
	uint32_t pos = b->cur_pos;

	if (!b->err && src->err)
		fail(b, src->err, src->why);
	for (size_t i = 0; i < src->n && !b->err; i++) {
		b->cur_pos = src->pos[i];
		insn_emit(b, src->insn[i]);
	}
	b->cur_pos = pos;
}

int insn_finish(struct insn_buf *b)
{
	for (size_t i = 0; i < b->nfix && !b->err; i++) {
		const struct insn_fixup *f = &b->fix[i];
		int32_t to = (size_t)f->label < b->nlabels ? b->labels[f->label] : -1;
		int64_t off;

		if (to < 0) {
			fail(b, -EINVAL, "a jump to a label never bound");
			break;
		}
		off = (int64_t)to - (int64_t)f->at - 1;
		if (off < INT16_MIN || off > INT16_MAX) {
			fail(b, -E2BIG, "a jump farther than 32767 instructions");
			break;
		}
		b->insn[f->at].off = (int16_t)off;
	}
	b->nfix = 0;
	return b->err;
}

/* ---- disassembly ---------------------------------------------------- */

#define HELPER_NAME(x) #x
static const char *const helper_names[] = { __BPF_FUNC_MAPPER(HELPER_NAME) };

const char *insn_helper_name(int id)
{
	if (id <= 0 || (size_t)id >= sizeof(helper_names) / sizeof(helper_names[0]))
		return NULL;
	return helper_names[id];
}

static const char *alu_op(int op)
{
	switch (op) {
	case BPF_ADD: return "+=";
	case BPF_SUB: return "-=";
	case BPF_MUL: return "*=";
	case BPF_DIV: return "/=";
	case BPF_OR: return "|=";
	case BPF_AND: return "&=";
	case BPF_LSH: return "<<=";
	case BPF_RSH: return ">>=";
	case BPF_MOD: return "%=";
	case BPF_XOR: return "^=";
	case BPF_MOV: return "=";
	case BPF_ARSH: return "s>>=";
	default: return "?=";
	}
}

static const char *jmp_op(int op)
{
	switch (op) {
	case BPF_JEQ: return "==";
	case BPF_JNE: return "!=";
	case BPF_JGT: return ">";
	case BPF_JGE: return ">=";
	case BPF_JLT: return "<";
	case BPF_JLE: return "<=";
	case BPF_JSGT: return "s>";
	case BPF_JSGE: return "s>=";
	case BPF_JSLT: return "s<";
	case BPF_JSLE: return "s<=";
	case BPF_JSET: return "&";
	default: return "?";
	}
}

static const char *size_name(int sz)
{
	switch (sz) {
	case BPF_B: return "u8";
	case BPF_H: return "u16";
	case BPF_W: return "u32";
	default: return "u64";
	}
}

int insn_str(const struct bpf_insn *i, size_t left, char *out, size_t size)
{
	int cls = BPF_CLASS(i->code), op = BPF_OP(i->code);
	const char *w = cls == BPF_ALU || cls == BPF_JMP32 ? "w" : "r";

	switch (cls) {
	case BPF_ALU:
	case BPF_ALU64:
		if (op == BPF_NEG)
			snprintf(out, size, "%s%d = -%s%d", w, i->dst_reg, w, i->dst_reg);
		else if (op == BPF_MOV && BPF_SRC(i->code) == BPF_X && i->off)
			snprintf(out, size, "%s%d = (s%d)%s%d", w, i->dst_reg, i->off, w, i->src_reg);
		else if (BPF_SRC(i->code) == BPF_X)
			snprintf(out, size, "%s%d %s%s %s%d", w, i->dst_reg, i->off ? "s" : "",
				 alu_op(op), w, i->src_reg);
		else
			snprintf(out, size, "%s%d %s %d", w, i->dst_reg, alu_op(op), i->imm);
		return 1;
	case BPF_LDX:
		snprintf(out, size, "r%d = *(%s *)(r%d %+d)", i->dst_reg, size_name(BPF_SIZE(i->code)),
			 i->src_reg, i->off);
		return 1;
	case BPF_STX:
		snprintf(out, size, "*(%s *)(r%d %+d) = r%d", size_name(BPF_SIZE(i->code)), i->dst_reg,
			 i->off, i->src_reg);
		return 1;
	case BPF_ST:
		snprintf(out, size, "*(%s *)(r%d %+d) = %d", size_name(BPF_SIZE(i->code)), i->dst_reg,
			 i->off, i->imm);
		return 1;
	case BPF_LD:
		if (i->code == (BPF_LD | BPF_DW | BPF_IMM) && left >= 2) {
			uint64_t v = (uint32_t)i[0].imm | (uint64_t)(uint32_t)i[1].imm << 32;

			if (i->src_reg == BPF_PSEUDO_MAP_FD)
				snprintf(out, size, "r%d = map[%d]", i->dst_reg, i->imm);
			else if (i->src_reg == BPF_PSEUDO_FUNC)
				snprintf(out, size, "r%d = func %+d", i->dst_reg, i->imm);
			else
				snprintf(out, size, "r%d = %#" PRIx64 " ll", i->dst_reg, v);
			return 2;
		}
		break;
	case BPF_JMP:
	case BPF_JMP32:
		if (op == BPF_CALL) {
			const char *n = insn_helper_name(i->imm);

			if (n)
				snprintf(out, size, "call %s", n);
			else
				snprintf(out, size, "call %d", i->imm);
			return 1;
		}
		if (op == BPF_EXIT) {
			snprintf(out, size, "exit");
			return 1;
		}
		if (op == BPF_JA) {
			snprintf(out, size, "goto %+d", i->off);
			return 1;
		}
		if (BPF_SRC(i->code) == BPF_X)
			snprintf(out, size, "if %s%d %s %s%d goto %+d", w, i->dst_reg, jmp_op(op), w,
				 i->src_reg, i->off);
		else
			snprintf(out, size, "if %s%d %s %d goto %+d", w, i->dst_reg, jmp_op(op), i->imm,
				 i->off);
		return 1;
	}
	snprintf(out, size, "(%02x) ?", i->code);
	return 1;
}

void insn_dump(FILE *f, const struct bpf_insn *insn, size_t n)
{
	insn_dump_range(f, insn, n, 0, n);
}

void insn_dump_range(FILE *f, const struct bpf_insn *insn, size_t n, size_t from, size_t to)
{
	char line[128];

	if (to > n)
		to = n;
	for (size_t i = from; i < to;) {
		int k = insn_str(&insn[i], n - i, line, sizeof(line));

		fprintf(f, "%4zu: %s\n", i, line);
		i += (size_t)k;
	}
}
