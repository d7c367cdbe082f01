/* for ($kv : @map) without a kernel: the parser's and checker's view
 * ($kv's type, the refusals), the generated program's shape (its body a
 * BPF function after the program, the address load pointing at it, every
 * jump inside its own function, each function ending in exit) and the
 * BTF blob the runtime loads for the callbacks. */
#include <linux/btf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "lang_test.h"
#include "lang/codegen.h"
#include "lang/insn.h"

/* "ok" or "error: FIRST" for src, checked. */
static const char *check_of(const char *src)
{
	const char *r = lt_run(src, true, NULL);

	return strncmp(r, "error: ", 7) ? "ok" : r;
}

static const struct lt_case check_cases[] = {
	{ "BEGIN { @m[1] = 2; for ($kv : @m) { print($kv); } }", "ok" },
	{ "BEGIN { @m[1] = \"a\"; for ($kv : @m) { printf(\"%d %s\\n\", $kv.0, $kv.1); } }", "ok" },
	{ "BEGIN { @m[1, \"a\"] = 2; for ($kv : @m) { printf(\"%d %s %d\\n\", $kv.0.0, $kv.0.1, $kv.1); } }",
	  "ok" },
	{ "BEGIN { @m[1] = count(); for ($kv : @m) { $x = $kv.1 + 1; } }", "ok" },
	{ "BEGIN { @m[1] = 1; for ($kv : @m) { if ($kv.1) { break; } continue; } }", "ok" },
	{ "BEGIN { @m[1] = 1; for ($kv : @m) { return; } }", "ok" },
	{ "BEGIN { @m[1] = 1; $n = 0; for ($kv : @m) { $n += $kv.1; } print($n); }", "ok" },
	{ "BEGIN { @h[1] = hist(2); for ($kv : @h) { } }",
	  "error: t:1:37: a for loop cannot iterate over @h: its values are hist() aggregations, which only print" },
	{ "BEGIN { @h[1] = lhist(2, 0, 10, 1); for ($kv : @h) { } }",
	  "error: t:1:48: a for loop cannot iterate over @h: its values are lhist() aggregations, which only print" },
	{ "BEGIN { @s[1] = stats(2); for ($kv : @s) { } }",
	  "error: t:1:38: a for loop cannot iterate over @s: its values are stats() aggregations, which only print" },
	{ "BEGIN { @ = 1; for ($kv : @) { } }",
	  "error: t:1:27: a for loop iterates over a map's keys: @ has none" },
	{ "BEGIN { for ($kv : @none) { } }", "error: t:1:20: undefined map @none: it is never assigned" },
	{ "BEGIN { @m[1] = 1; $kv = 1; for ($kv : @m) { } }",
	  "error: t:1:34: the loop variable $kv already exists" },
	{ "BEGIN { @m[1] = 1; for ($kv : @m) { $t = 1; } print($t); }",
	  "error: t:1:53: undefined variable $t" },
	{ "BEGIN { @m[1] = 1; for ($kv : @m) { } print($kv); }", "error: t:1:45: undefined variable $kv" },
	{ "BEGIN { @m[1] = 1; for ($kv : @m) { $x = $kv.2; } }",
	  "error: t:1:45: a tuple of 2 has no element '2'" },
};

TEST(lang_formap_check)
{
	for (size_t i = 0; i < sizeof(check_cases) / sizeof(check_cases[0]); i++)
		LT_CHECK(check_of(check_cases[i].in), &check_cases[i]);
}

/* $kv's type: (key, value), the keys a tuple when several; count, sum,
 * min, max and avg values one integer (their CPUs' values combined). */
TEST(lang_formap_kv_types)
{
	static const struct lt_case cases[] = {
		{ "BEGIN { @m[1] = \"s\"; for ($kv : @m) { } }", "variable: $kv :: (int, string)" },
		{ "BEGIN { @m[1, 2] = count(); for ($kv : @m) { } }", "variable: $kv :: ((int, int), int)" },
		{ "BEGIN { @m[\"k\"] = avg(3); for ($kv : @m) { } }", "variable: $kv :: (string, int)" },
		{ "BEGIN { @m[1] = max(3); for ($kv : @m) { } }", "variable: $kv :: (int, int)" },
		{ "BEGIN { @m[1] = (2, \"x\"); for ($kv : @m) { } }",
		  "variable: $kv :: (int, (int, string))" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *d = lt_run(cases[i].in, true, NULL), *v = strstr(d, "variable: $kv");
		char line[256] = "";

		if (v)
			snprintf(line, sizeof(line), "%.*s", (int)strcspn(v, "\n"), v);
		LT_CHECK(v ? line : d, &cases[i]);
	}
}

TEST(lang_formap_parse)
{
	static const struct lt_case cases[] = {
		{ "for ($kv : @m) { print($kv.1); }",
		  "(for variable: $kv map: @m (body (call: print (field . 1 variable: $kv))))" },
		{ "for ($kv : @m[1]) { }",
		  "error: t:1:20: a for loop runs over a range A..B or a map (@name)" },
		{ "for (@kv : @m) { }", "error: t:1:14: expected a variable after 'for (', found map '@kv'" },
		{ "for ($kv : @m) print($kv);", "error: t:1:24: expected '{', found identifier 'print'" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		LT_CHECK(lt_body(cases[i].in, false), &cases[i]);
}

/* ---- the generated program -------------------------------------------- */

struct fm_gen {
	struct lang_prog *prog;
	struct lang_cg *cg;
};

static int fm_gen(const char *src, struct fm_gen *r)
{
	struct lang_check_opts co = { 0 };
	struct lang_cg_opts o = { .ncpus = 2, .ncpus_possible = 4 };
	struct lang_attach at = { .provider = LANG_P_BEGIN, .text = "BEGIN" };
	struct lang_cg_point pt = { .at = &at, .name = "BEGIN", .type = BPF_PROG_TYPE_RAW_TRACEPOINT };

	memset(r, 0, sizeof(*r));
	r->prog = lang_prog_new("t", src, strlen(src));
	if (!r->prog || lang_parse(r->prog) || lang_check(r->prog, &co))
		return -1;
	r->cg = lang_cg_new(r->prog, &o);
	if (!r->cg)
		return -1;
	for (const struct lang_probe *p = r->prog->probes; p; p = p->next)
		if (lang_cg_gen(r->cg, p, &pt) < 0)
			return -1;
	return 0;
}

static void fm_free(struct fm_gen *r)
{
	lang_cg_free(r->cg);
	lang_prog_free(r->prog);
}

/* The function of p that instruction i is in: 0 the program, k the
 * k-th callback. */
static size_t func_of(const struct lang_cg_prog *p, size_t i)
{
	size_t f = 0;

	while (f < p->nfuncs && i >= p->funcs[f])
		f++;
	return f;
}

/* What the kernel checks of the layout: each function ends in exit or a
 * jump back, no jump leaves its function, every address load points at
 * a function's first instruction. */
static void check_layout(const struct lang_cg_prog *p, size_t want_funcs)
{
	size_t loads = 0;

	CHECK_INT(p->nfuncs, want_funcs);
	for (size_t f = 0; f <= p->nfuncs; f++) {
		size_t end = f < p->nfuncs ? p->funcs[f] : p->code.n;

		CHECK(end > 0 && p->code.insn[end - 1].code == (BPF_JMP | BPF_EXIT));
	}
	for (size_t i = 0; i < p->code.n; i++) {
		const struct bpf_insn *in = &p->code.insn[i];
		int cls = BPF_CLASS(in->code), op = BPF_OP(in->code);

		if (in->code == (BPF_LD | BPF_DW | BPF_IMM)) {
			if (in->src_reg == BPF_PSEUDO_FUNC) {
				size_t to = i + 1 + (size_t)(int64_t)in->imm;
				bool starts = false;

				for (size_t f = 0; f < p->nfuncs; f++)
					starts |= p->funcs[f] == to;
				CHECK(starts);
				loads++;
			}
			i++;
			continue;
		}
		if (cls == BPF_JMP && op != BPF_CALL && op != BPF_EXIT) {
			size_t to = i + 1 + (size_t)(int64_t)in->off;

			if (func_of(p, to) != func_of(p, i))
				test_fail(__FILE__, __LINE__, "insn %zu jumps to %zu, in another function", i, to);
		}
	}
	CHECK_INT(loads, want_funcs);
}

static size_t count_calls(const struct lang_cg_prog *p, int helper, size_t from, size_t to)
{
	size_t n = 0;

	for (size_t i = from; i < to && i < p->code.n; i++)
		n += p->code.insn[i].code == (BPF_JMP | BPF_CALL) && p->code.insn[i].imm == helper;
	return n;
}

TEST(lang_formap_layout)
{
	struct fm_gen r;

	if (fm_gen("BEGIN { @m[1] = 1; @n[2] = count(); $s = 0; "
		   "for ($a : @m) { for ($b : @n) { $s += $b.1; if ($s > 3) { return; } } break; } "
		   "for ($c : @m) { continue; } printf(\"%d\\n\", $s); }", &r)) {
		test_fail(__FILE__, __LINE__, "%s", lang_error(r.prog, 0) ? lang_error(r.prog, 0) : "?");
		fm_free(&r);
		return;
	}
	CHECK_INT(r.cg->nprogs, 1);
	if (r.cg->nprogs == 1) {
		const struct lang_cg_prog *p = &r.cg->progs[0];

		/* three loops, one nested: three callbacks after the program */
		check_layout(p, 3);
		if (p->nfuncs == 3) {
			/* the program calls the helper twice, the outer body once */
			CHECK_INT(count_calls(p, BPF_FUNC_for_each_map_elem, 0, p->funcs[0]), 2);
			CHECK_INT(count_calls(p, BPF_FUNC_for_each_map_elem, p->funcs[0], p->code.n), 1);
			/* the count map's value: every possible CPU's (4), in a loop */
			CHECK_INT(count_calls(p, BPF_FUNC_map_lookup_percpu_elem, p->funcs[0], p->code.n), 1);
		}
	}
	fm_free(&r);
}

/* Programs without for loops have no functions: their code is what it
 * was (a range loop is a bpf_loop() callback: lang_exec_range_*). */
TEST(lang_formap_none_without_loops)
{
	struct fm_gen r;

	if (!fm_gen("BEGIN { @m[1] = 1; $i = 0; while ($i < 2) { $i++; } unroll(2) { $i++; } }", &r) &&
	    r.cg->nprogs == 1) {
		CHECK_INT(r.cg->progs[0].nfuncs, 0);
		CHECK(r.cg->progs[0].funcs == NULL);
	} else {
		test_fail(__FILE__, __LINE__, "generation failed");
	}
	fm_free(&r);
}

TEST(lang_formap_dump)
{
	struct fm_gen r;
	char *mem = NULL;
	size_t n = 0;
	FILE *f;

	if (fm_gen("BEGIN { @m[1] = 1; for ($kv : @m) { } }", &r) || !(f = open_memstream(&mem, &n))) {
		test_fail(__FILE__, __LINE__, "generation failed");
		fm_free(&r);
		return;
	}
	lang_cg_dump(f, r.cg);
	fclose(f);
	CHECK(strstr(mem, "call for_each_map_elem\n") != NULL);
	CHECK(strstr(mem, "\nfunction p0_1 (callback):\n") != NULL);
	CHECK(strstr(mem, "r2 = func +") != NULL);
	free(mem);
	fm_free(&r);
}

/* ---- the BTF of the callbacks -------------------------------------------- */

static const char *btf_name(const char *strs, uint32_t len, uint32_t off)
{
	return off < len ? strs + off : "?";
}

TEST(lang_formap_btf)
{
	uint32_t size = 0, nfunc = 0;
	char *blob = lang_cg_btf(&size);
	const struct btf_header *h = (const void *)blob;
	const uint32_t *t, *end;
	const char *strs;
	uint32_t id = 0;

	if (!blob) {
		test_fail(__FILE__, __LINE__, "no blob");
		return;
	}
	CHECK_INT(h->magic, BTF_MAGIC);
	CHECK_INT(h->version, BTF_VERSION);
	CHECK_INT(h->hdr_len, sizeof(*h));
	CHECK_INT(size, h->hdr_len + h->str_off + h->str_len);
	CHECK_INT(h->type_off, 0);
	CHECK_INT(h->str_off, h->type_len);
	t = (const uint32_t *)(blob + h->hdr_len);
	end = (const uint32_t *)(blob + h->hdr_len + h->type_len);
	strs = blob + h->hdr_len + h->str_off;
	CHECK_INT(strs[0], 0);
	CHECK_INT(strs[h->str_len - 1], 0);
	while (t < end) {
		uint32_t kind = t[1] >> 24 & 0x1f, vlen = t[1] & 0xffff;

		id++;
		switch (kind) {
		case BTF_KIND_INT:
			CHECK_STR(btf_name(strs, h->str_len, t[0]), id == 7 ? "u64" : "int");
			CHECK_INT(t[2], id == 7 ? 8 : 4);
			t += 4;
			break;
		case BTF_KIND_PTR:
			CHECK_INT(t[2], 0);
			t += 3;
			break;
		case BTF_KIND_FUNC_PROTO:
			/* every parameter named (the kernel refuses a FUNC's
			 * unnamed ones) and a pointer, but bpf_loop's index */
			for (uint32_t k = 0; k < vlen; k++) {
				CHECK(t[3 + 2 * k] != 0);
				CHECK_INT(t[4 + 2 * k], id == 8 && k == 0 ? 7 : 2);
			}
			CHECK_INT(vlen, id == 3 ? 1 : id == 8 ? 2 : 4);
			t += 3 + 2 * vlen;
			break;
		case BTF_KIND_FUNC:
			nfunc++;
			if (id == LANG_CG_BTF_PROG) {
				CHECK_STR(btf_name(strs, h->str_len, t[0]), "prog");
				CHECK_INT(vlen, BTF_FUNC_GLOBAL);
			} else if (id == LANG_CG_BTF_CB) {
				CHECK_STR(btf_name(strs, h->str_len, t[0]), "for_each_cb");
				CHECK_INT(vlen, BTF_FUNC_STATIC);
				CHECK_INT(t[2], 5);
			} else {
				CHECK_INT(id, LANG_CG_BTF_LOOP_CB);
				CHECK_STR(btf_name(strs, h->str_len, t[0]), "loop_cb");
				CHECK_INT(vlen, BTF_FUNC_STATIC);
				CHECK_INT(t[2], 8);
			}
			t += 3;
			break;
		default:
			test_fail(__FILE__, __LINE__, "type %u: kind %u", id, kind);
			t = end;
		}
	}
	CHECK_INT(id, 9);
	CHECK_INT(nfunc, 3);
	free(blob);
}

/* A callback's frame slots are free again after it: many loops in one
 * probe do not run out of stack variables (31); past 64 loops, a
 * message saying so. */
TEST(lang_formap_many_loops)
{
	struct fm_gen r;

	if (fm_gen("BEGIN { @m[1] = 1; $a = 1; unroll(40) { for ($kv : @m) { $a += $kv.1; } } "
		   "printf(\"%d\\n\", $a); }", &r) || r.cg->nprogs != 1)
		test_fail(__FILE__, __LINE__, "%s", lang_error(r.prog, 0) ? lang_error(r.prog, 0) : "?");
	else
		check_layout(&r.cg->progs[0], 40);
	fm_free(&r);
	CHECK(fm_gen("BEGIN { @m[1] = 1; unroll(65) { for ($kv : @m) { } } }", &r) < 0);
	CHECK_STR(lang_error(r.prog, 0) ? lang_error(r.prog, 0) : "?",
		  "t:1:33: more than 64 for loops over maps in one probe (unroll() repeats them)");
	fm_free(&r);
}
