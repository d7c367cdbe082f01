/* lang/insn and lang/codegen without a kernel: the emitter's labels and
 * limits, the disassembly of small programs against golden text (an
 * instruction explosion shows as a diff), spills past r6..r9, hist and
 * lhist indexes against lang/output's, and BEGIN programs executed by a
 * small BPF interpreter here (integer semantics, strings, control flow,
 * the records sent). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "lang_test.h"
#include "lang/codegen.h"
#include "lang/insn.h"
#include "lang/output.h"
#include "lang/rec.h"

/* ---- the emitter ---------------------------------------------------- */

TEST(lang_insn_labels)
{
	struct insn_buf b = { 0 };
	int fwd = insn_label(&b), back = insn_label(&b);
	char line[128];

	insn_bind(&b, back);
	insn_emit(&b, I_MOV64_IMM(BPF_REG_0, 1));
	insn_jmp_imm(&b, BPF_JEQ, BPF_REG_0, 0, fwd);
	insn_ja(&b, back);
	insn_bind(&b, fwd);
	insn_emit(&b, I_EXIT());
	CHECK_INT(insn_finish(&b), 0);
	CHECK_INT(b.n, 4);
	CHECK_INT(b.insn[1].off, 1);
	CHECK_INT(b.insn[2].off, -3);
	insn_str(&b.insn[1], 1, line, sizeof(line));
	CHECK_STR(line, "if r0 == 0 goto +1");
	insn_str(&b.insn[2], 1, line, sizeof(line));
	CHECK_STR(line, "goto -3");
	insn_free(&b);
}

TEST(lang_insn_unbound_label)
{
	struct insn_buf b = { 0 };
	int l = insn_label(&b);

	insn_ja(&b, l);
	CHECK_INT(insn_finish(&b), -EINVAL);
	CHECK_STR(b.why, "a jump to a label never bound");
	insn_free(&b);
}

TEST(lang_insn_label_bound_twice)
{
	struct insn_buf b = { 0 };
	int l = insn_label(&b);

	insn_bind(&b, l);
	insn_bind(&b, l);
	CHECK_INT(insn_finish(&b), -EINVAL);
	insn_free(&b);
}

TEST(lang_insn_jump_out_of_range)
{
	struct insn_buf b = { 0 };
	int l = insn_label(&b);

	insn_ja(&b, l);
	for (int i = 0; i < 40000; i++)
		insn_emit(&b, I_MOV64_IMM(BPF_REG_0, i));
	insn_bind(&b, l);
	insn_emit(&b, I_EXIT());
	CHECK_INT(insn_finish(&b), -E2BIG);
	CHECK_STR(b.why, "a jump farther than 32767 instructions");
	insn_free(&b);
}

TEST(lang_insn_jump_at_the_limit)
{
	struct insn_buf b = { 0 };
	int l = insn_label(&b);

	insn_ja(&b, l);
	for (int i = 0; i < 32767; i++)
		insn_emit(&b, I_MOV64_IMM(BPF_REG_0, i));
	insn_bind(&b, l);
	insn_emit(&b, I_EXIT());
	CHECK_INT(insn_finish(&b), 0);
	CHECK_INT(b.insn[0].off, 32767);
	insn_free(&b);
}

TEST(lang_insn_mov64)
{
	struct insn_buf b = { 0 };
	char line[128];

	insn_mov64(&b, BPF_REG_1, 5);
	insn_mov64(&b, BPF_REG_2, (uint64_t)-1);
	insn_mov64(&b, BPF_REG_3, 0x123456789abcdefULL);
	insn_mov64(&b, BPF_REG_4, 0x80000000ULL);
	CHECK_INT(b.n, 1 + 1 + 2 + 2);
	CHECK_INT(insn_str(&b.insn[2], b.n - 2, line, sizeof(line)), 2);
	CHECK_STR(line, "r3 = 0x123456789abcdef ll");
	insn_str(&b.insn[1], 1, line, sizeof(line));
	CHECK_STR(line, "r2 = -1");
	insn_str(&b.insn[4], 2, line, sizeof(line));
	CHECK_STR(line, "r4 = 0x80000000 ll");
	insn_free(&b);
}

TEST(lang_insn_disassembly)
{
	static const struct {
		struct bpf_insn i;
		const char *text;
	} cases[] = {
		{ I_ALU64_REG(BPF_ADD, 1, 2), "r1 += r2" },
		{ I_ALU64_IMM(BPF_RSH, 0, 32), "r0 >>= 32" },
		{ I_ALU64_IMM(BPF_ARSH, 3, 1), "r3 s>>= 1" },
		{ I_SDIV_REG(BPF_DIV, 6, 2), "r6 s/= r2" },
		{ I_SDIV_REG(BPF_MOD, 6, 2), "r6 s%= r2" },
		{ I_MOV32_REG(4, 4), "w4 = w4" },
		{ I_MOVSX64(0, 0, 16), "r0 = (s16)r0" },
		{ I_LDX(BPF_W, 0, 1, 8), "r0 = *(u32 *)(r1 +8)" },
		{ I_STX(BPF_DW, 10, 6, -288), "*(u64 *)(r10 -288) = r6" },
		{ I_ST(BPF_B, 1, 12, 1), "*(u8 *)(r1 +12) = 1" },
		{ I_CALL(BPF_FUNC_ringbuf_output), "call ringbuf_output" },
		{ I_CALL(100000), "call 100000" },
		{ I_NEG64(7), "r7 = -r7" },
		{ I_EXIT(), "exit" },
	};
	char line[128];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		insn_str(&cases[i].i, 1, line, sizeof(line));
		CHECK_STR(line, cases[i].text);
	}
}

/* ---- generating -------------------------------------------------------- */

/* args.x: a signed 4-byte int at 8, args.name: char[16] at 16, args.p: a
 * user char * at 32 */
static int fake_field(void *ctx, const char *name, unsigned n, struct lang_field_access *acc)
{
	memset(acc, 0, sizeof(*acc));
	if (!name) {
		if (n > 5)
			return -ENOENT;
		acc->kind = LANG_ACC_INT;
		acc->offset = 8 * n;
		acc->size = 8;
		return 0;
	}
	if (!strcmp(name, "x")) {
		acc->kind = LANG_ACC_INT;
		acc->offset = 8;
		acc->size = 4;
		acc->is_signed = true;
	} else if (!strcmp(name, "name")) {
		acc->kind = LANG_ACC_STR_ARRAY;
		acc->offset = 16;
		acc->size = 16;
	} else if (!strcmp(name, "p")) {
		acc->kind = LANG_ACC_STR_PTR;
		acc->offset = 32;
		acc->size = 8;
		acc->user = true;
	} else {
		return -ENOENT;
	}
	return 0;
}

static int fake_resolve(void *ctx, const struct lang_attach *at, const char *field,
			struct lang_type *out)
{
	struct lang_field_access acc;

	if (fake_field(NULL, field, 0, &acc))
		return -ENOENT;
	out->kind = acc.kind == LANG_ACC_STR_ARRAY ? LANG_K_STR : LANG_K_INT;
	return 0;
}

struct gen_result {
	struct lang_prog *prog;
	struct lang_cg *cg;
	char err[512];
};

static enum bpf_prog_type type_of(enum lang_provider p)
{
	switch (p) {
	case LANG_P_TRACEPOINT: return BPF_PROG_TYPE_TRACEPOINT;
	case LANG_P_PROFILE: case LANG_P_INTERVAL: return BPF_PROG_TYPE_PERF_EVENT;
	default: return BPF_PROG_TYPE_RAW_TRACEPOINT;
	}
}

/* Parses, checks and generates src (every probe, one point each). */
static int gen(const char *src, struct gen_result *r, int nparams, char **params)
{
	struct lang_check_opts co = { .resolve_field = fake_resolve, .nparams = nparams,
				      .params = params };
	struct lang_cg_opts o = { .ncpus = 2, .nparams = nparams, .params = params };

	memset(r, 0, sizeof(*r));
	r->prog = lang_prog_new("t", src, strlen(src));
	if (!r->prog)
		return -1;
	if (lang_parse(r->prog) || lang_check(r->prog, &co))
		goto fail;
	r->cg = lang_cg_new(r->prog, &o);
	if (!r->cg)
		goto fail;
	for (const struct lang_probe *p = r->prog->probes; p; p = p->next) {
		struct lang_cg_point pt = { .at = &p->attach[0], .name = p->attach[0].text,
			.type = type_of(p->attach[0].provider), .field = fake_field };

		if (lang_cg_gen(r->cg, p, &pt) < 0)
			goto fail;
	}
	return 0;
fail:
	snprintf(r->err, sizeof(r->err), "%s", lang_error(r->prog, 0) ? lang_error(r->prog, 0) : "?");
	return -1;
}

static void gen_free(struct gen_result *r)
{
	lang_cg_free(r->cg);
	lang_prog_free(r->prog);
}

static char *dump_of(const struct lang_cg *cg)
{
	char *mem = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&mem, &n);

	if (!f)
		return NULL;
	lang_cg_dump(f, cg);
	fclose(f);
	return mem;
}

/* The golden disassemblies: tests/lang/codegen/NAME.bt -> NAME.bpf
 * (UPDATE_GOLDEN=1 rewrites them). */
static const char *const golden[] = {
	"begin_printf", "count_keyless", "count_comm", "arith", "str_compare", "hist",
	"spill", "while_loop", "args_fields", "ternary_str", "lhist_keyed", "exit_code", "deref",
	"for_map", "for_map_count", "for_range",
};

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, (size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

TEST(lang_codegen_golden)
{
	for (size_t i = 0; i < sizeof(golden) / sizeof(golden[0]); i++) {
		char path[256], *src, *want, *got;
		struct gen_result r;

		snprintf(path, sizeof(path), "tests/lang/codegen/%s.bt", golden[i]);
		src = slurp(path);
		if (!src) {
			test_fail(__FILE__, __LINE__, "%s: cannot read", path);
			continue;
		}
		if (gen(src, &r, 0, NULL)) {
			test_fail(__FILE__, __LINE__, "%s: %s", path, r.err);
			gen_free(&r);
			free(src);
			continue;
		}
		got = dump_of(r.cg);
		snprintf(path, sizeof(path), "tests/lang/codegen/%s.bpf", golden[i]);
		if (getenv("UPDATE_GOLDEN")) {
			FILE *f = fopen(path, "w");

			if (f) {
				fputs(got, f);
				fclose(f);
			}
		}
		want = slurp(path);
		if (!want || !got || strcmp(want, got))
			test_fail(__FILE__, __LINE__, "%s differs from the generated code "
				  "(UPDATE_GOLDEN=1 rewrites it after a deliberate change)", path);
		free(want);
		free(got);
		free(src);
		gen_free(&r);
	}
}

static size_t ninsns(const char *src)
{
	struct gen_result r;
	size_t n = 0;

	if (!gen(src, &r, 0, NULL))
		for (size_t i = 0; i < r.cg->nprogs; i++)
			n += r.cg->progs[i].code.n;
	else
		test_fail(__FILE__, __LINE__, "%s: %s", src, r.err);
	gen_free(&r);
	return n;
}

/* A right-nested expression needs one temporary per level: past r6..r9
 * they spill to the stack, and the code stays linear in the depth. */
TEST(lang_codegen_spills)
{
	char src[4096] = "BEGIN { @x = ";
	struct gen_result r;
	char *d;

	for (int i = 0; i < 20; i++)
		strcat(src, "1 + (");
	strcat(src, "2");
	for (int i = 0; i < 20; i++)
		strcat(src, ")");
	strcat(src, "; }");
	CHECK_INT(gen(src, &r, 0, NULL), 0);
	d = r.cg ? dump_of(r.cg) : NULL;
	CHECK(d && strstr(d, "*(u64 *)(r10 -288) = r0"));	/* the 5th temporary */
	CHECK(d && strstr(d, "*(u64 *)(r10 -408) = r0"));	/* the 20th */
	free(d);
	gen_free(&r);
	CHECK(ninsns(src) < ninsns("BEGIN { @x = 1; }") + 20 * 6);
}

TEST(lang_codegen_too_deep)
{
	char src[8192] = "BEGIN { @x = ";
	struct gen_result r;

	for (int i = 0; i < 40; i++)
		strcat(src, "1 + (");
	strcat(src, "2");
	for (int i = 0; i < 40; i++)
		strcat(src, ")");
	strcat(src, "; }");
	CHECK_INT(gen(src, &r, 0, NULL), -1);
	CHECK(strstr(r.err, "expression too deep for the BPF stack") != NULL);
	gen_free(&r);
}

/* unroll(N) repeats its body; a loop does not */
TEST(lang_codegen_unroll_size)
{
	size_t one = ninsns("BEGIN { $i = 0; unroll(1) { $i += 2; } }");
	size_t ten = ninsns("BEGIN { $i = 0; unroll(10) { $i += 2; } }");
	size_t loop = ninsns("BEGIN { $i = 0; while ($i < 10) { $i += 2; } }");

	CHECK(ten > one);
	CHECK_INT((ten - one) % 9, 0);
	CHECK(loop < ten);
}

TEST(lang_codegen_errors)
{
	static const struct {
		const char *src, *err;
	} cases[] = {
		{ "BEGIN { unroll(200) { } }", "t:1:16: unroll's count must be from 1 to 100" },
		{ "config = { max_strlen = 8 } BEGIN { @ = strerror(1); }",
		  "t:1:41: strerror() needs max_strlen of at least 9" },
		{ "tracepoint:a:b { @ = args.nope; }", "t:1:26: tracepoint:a:b has no argument 'nope'" },
		{ "BEGIN { @h = hist(1, 9); }", "t:1:22: hist()'s second argument must be from 0 to 5" },
		{ "BEGIN { @l = lhist(1, 10, 0, 1); }",
		  "t:1:14: lhist(): min < max and 0 < step, with at most 1000 buckets" },
		{ "config = { max_strlen = 5000 } BEGIN { }", "t:1:12: max_strlen must be from 1 to 1024" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct gen_result r;

		if (!gen(cases[i].src, &r, 0, NULL))
			test_fail(__FILE__, __LINE__, "%s: generated", cases[i].src);
		else
			CHECK_STR(r.err, cases[i].err);
		gen_free(&r);
	}
}

TEST(lang_codegen_maps)
{
	struct gen_result r;
	const struct lang_cg_map *m;

	CHECK_INT(gen("BEGIN { @c[comm, 1] = count(); @s = \"x\"; @h[1] = hist(3, 2); "
		      "@l = lhist(3, 0, 100, 10); @m = min(1); }", &r, 0, NULL), 0);
	m = r.cg ? lang_cg_map_find(r.cg, "@c") : NULL;
	CHECK(m && m->type == BPF_MAP_TYPE_PERCPU_HASH && m->key_size == 64 + 8 && m->value_size == 8);
	m = r.cg ? lang_cg_map_find(r.cg, "@s") : NULL;
	CHECK(m && m->type == BPF_MAP_TYPE_HASH && m->key_size == 8 && m->value_size == 64);
	m = r.cg ? lang_cg_map_find(r.cg, "@h") : NULL;
	CHECK(m && m->hist_k == 2 && m->nbuckets == LANG_HIST_NBUCKETS(2) &&
	      m->value_size == 8 * LANG_HIST_NBUCKETS(2));
	m = r.cg ? lang_cg_map_find(r.cg, "@l") : NULL;
	CHECK(m && m->nbuckets == LANG_LHIST_NBUCKETS(0, 100, 10));
	m = r.cg ? lang_cg_map_find(r.cg, "@m") : NULL;
	CHECK(m && m->value_size == 16 && m->max_entries == 4096);
	gen_free(&r);
}

TEST(lang_codegen_config)
{
	struct gen_result r;
	const struct lang_cg_map *m;

	CHECK_INT(gen("config = { max_strlen = 20; max_map_keys = 10 } BEGIN { @[comm] = 1; }",
		      &r, 0, NULL), 0);
	m = r.cg ? lang_cg_map_find(r.cg, "@") : NULL;
	CHECK(m && m->key_size == 24 && m->max_entries == 10);
	gen_free(&r);
}

TEST(lang_hist_index_agrees)
{
	static const int64_t vs[] = { -5, -1, 0, 1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 63, 64, 100,
				      1000, 1023, 1024, 4095, 65536, 1 << 20, 123456789,
				      1LL << 32, (1LL << 32) + 1, 1LL << 40, INT64_MAX };

	for (unsigned k = 0; k <= 5; k++)
		for (size_t i = 0; i < sizeof(vs) / sizeof(vs[0]); i++)
			CHECK_INT(lang_cg_hist_index(vs[i], k), lang_hist_index(vs[i], k));
	for (int64_t v = -20; v < 220; v += 3) {
		CHECK_INT(lang_cg_lhist_index(v, 0, 100, 10), lang_lhist_index(v, 0, 100, 10));
		CHECK_INT(lang_cg_lhist_index(v, 10, 200, 7), lang_lhist_index(v, 10, 200, 7));
	}
	CHECK_INT(lang_cg_hist_buckets(0), LANG_HIST_NBUCKETS(0));
	CHECK_INT(lang_cg_hist_buckets(5), LANG_HIST_NBUCKETS(5));
}
