/* A BPF instruction emitter: a growing array of struct bpf_insn with
 * labels whose jumps are fixed up when the program is finished, the
 * source position each instruction came from (so that a verifier
 * rejection can name the construct), and a disassembler (--dump bpf,
 * golden tests).
 *
 *   struct insn_buf b = { 0 };
 *   int done = insn_label(&b);
 *   insn_emit(&b, BPF_MOV64_IMM(BPF_REG_0, 0));
 *   insn_jmp_imm(&b, BPF_JEQ, BPF_REG_1, 0, done);
 *   ...
 *   insn_bind(&b, done);
 *   if (insn_finish(&b)) ... b.err says why
 *
 * Errors stick: after the first one (out of memory, a jump out of
 * range, too many instructions) every call does nothing, insn_finish()
 * returns it and b.why names it. */
#ifndef STACKSCOPE_LANG_INSN_H
#define STACKSCOPE_LANG_INSN_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/bpf.h>

/* Instruction builders (the kernel's are not in its uapi headers). */
#define I_ALU64_REG(op, d, s) ((struct bpf_insn){ BPF_ALU64 | BPF_OP(op) | BPF_X, d, s, 0, 0 })
#define I_ALU64_IMM(op, d, imm) ((struct bpf_insn){ BPF_ALU64 | BPF_OP(op) | BPF_K, d, 0, 0, imm })
#define I_ALU32_IMM(op, d, imm) ((struct bpf_insn){ BPF_ALU | BPF_OP(op) | BPF_K, d, 0, 0, imm })
/* signed division and modulo (off 1) */
#define I_SDIV_REG(op, d, s) ((struct bpf_insn){ BPF_ALU64 | BPF_OP(op) | BPF_X, d, s, 1, 0 })
#define I_MOV64_REG(d, s) I_ALU64_REG(BPF_MOV, d, s)
#define I_MOV64_IMM(d, imm) I_ALU64_IMM(BPF_MOV, d, imm)
#define I_MOV32_REG(d, s) ((struct bpf_insn){ BPF_ALU | BPF_MOV | BPF_X, d, s, 0, 0 })
/* sign extension from 8, 16, 32 bits (movsx) */
#define I_MOVSX64(d, s, bits) ((struct bpf_insn){ BPF_ALU64 | BPF_MOV | BPF_X, d, s, bits, 0 })
#define I_LDX(sz, d, s, o) ((struct bpf_insn){ BPF_LDX | BPF_SIZE(sz) | BPF_MEM, d, s, o, 0 })
#define I_STX(sz, d, s, o) ((struct bpf_insn){ BPF_STX | BPF_SIZE(sz) | BPF_MEM, d, s, o, 0 })
#define I_ST(sz, d, o, imm) ((struct bpf_insn){ BPF_ST | BPF_SIZE(sz) | BPF_MEM, d, 0, o, imm })
#define I_CALL(id) ((struct bpf_insn){ BPF_JMP | BPF_CALL, 0, 0, 0, id })
#define I_EXIT() ((struct bpf_insn){ BPF_JMP | BPF_EXIT, 0, 0, 0, 0 })
#define I_NEG64(d) ((struct bpf_insn){ BPF_ALU64 | BPF_NEG, d, 0, 0, 0 })

/* The kernel's limit for a privileged program. */
#define INSN_MAX 1000000

struct insn_fixup {
	uint32_t at;		/* the jump */
	int label;
};

struct insn_buf {
	struct bpf_insn *insn;
	uint32_t *pos;		/* line << 16 | col of each instruction; 0 unknown */
	size_t n, cap;
	int32_t *labels;	/* label -> instruction index; -1 unbound */
	size_t nlabels, labels_cap;
	struct insn_fixup *fix;
	size_t nfix, fix_cap;
	uint32_t cur_pos;	/* what new instructions are tagged with */
	int err;		/* first error, -errno */
	const char *why;
};

void insn_free(struct insn_buf *b);
/* Appends one instruction (two for BPF_LD_IMM64: pass both). */
void insn_emit(struct insn_buf *b, struct bpf_insn i);
void insn_emit2(struct insn_buf *b, const struct bpf_insn i[2]);
/* A new label, bound later with insn_bind(). */
int insn_label(struct insn_buf *b);
void insn_bind(struct insn_buf *b, int label);
/* Jumps to a label: always, reg OP imm, reg OP reg (OP a BPF_J* code). */
void insn_ja(struct insn_buf *b, int label);
void insn_jmp_imm(struct insn_buf *b, int op, int reg, int32_t imm, int label);
void insn_jmp_reg(struct insn_buf *b, int op, int dst, int src, int label);
/* reg = a 64-bit constant (one instruction when it fits 32 bits signed). */
void insn_mov64(struct insn_buf *b, int reg, uint64_t v);
/* reg = the map whose fd is fd (BPF_PSEUDO_MAP_FD). */
void insn_ld_map(struct insn_buf *b, int reg, int fd);
/* Resolves every jump; 0 or the first error. */
int insn_finish(struct insn_buf *b);
/* Whether some jump emitted so far goes to label (before insn_finish()). */
bool insn_label_used(const struct insn_buf *b, int label);
/* reg = the address of a BPF function (BPF_PSEUDO_FUNC); its imm, the
 * distance to the function, is for the caller to set. */
void insn_ld_func(struct insn_buf *b, int reg);
/* Appends src's instructions (finished: jumps resolved) and their
 * source positions. */
void insn_append(struct insn_buf *b, const struct insn_buf *src);

/* One instruction as text ("r1 += 8", "if r0 == 0x0 goto +3", "call 1");
 * an LD_IMM64 reads both halves from i[0], i[1].  Returns how many slots
 * it took (1 or 2). */
int insn_str(const struct bpf_insn *i, size_t left, char *out, size_t size);
/* Every instruction, "%4u: text\n". */
void insn_dump(FILE *f, const struct bpf_insn *insn, size_t n);
/* Instructions from .. to - 1 of insn[0 .. n - 1], numbered from 0. */
void insn_dump_range(FILE *f, const struct bpf_insn *insn, size_t n, size_t from, size_t to);

/* The helper's name ("map_lookup_elem") or NULL. */
const char *insn_helper_name(int id);

#endif
