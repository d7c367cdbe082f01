/* Unit tests of src/unwind/table.c and sframe.c.
 *
 * The fixtures (tests/unwind-fixtures.mk) are one source built several
 * ways; the ground truth is what binutils printed at build time:
 *   NAME.frames  readelf --debug-dump=frames-interp: every FDE row of
 *                .eh_frame and .debug_frame is looked up in the table
 *   NAME.sfd     objdump --sframe: every SFrame row likewise
 *   NAME.nm      "name vaddr size", NAME.plt "name vaddr"
 * The .sframe-only and .eh_frame-only tables of the same binary must
 * agree wherever both describe an address, and so must the .debug_frame
 * build with the .eh_frame one (same code, same addresses).
 *
 * libc.so.6 is built too: its __restore_rt (found through the restorer
 * glibc's sigaction() gives the kernel) must be a signal frame.  The
 * build time and row count are printed on stderr. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "test.h"
#include "unwind/sframe.h"
#include "unwind/table.h"

#define LIBC_PATH "/usr/lib/x86_64-linux-gnu/libc.so.6"
#define ALL_SOURCES (UNWIND_SRC_EH_FRAME | UNWIND_SRC_DEBUG_FRAME | UNWIND_SRC_SFRAME)

static struct unwind_table *build(const char *name, unsigned int sources)
{
	struct unwind_table *t = unwind_table_build(test_fixture(name), sources);

	if (!t)
		test_fail(__FILE__, __LINE__, "%s (sources %u): %s", name, sources,
			  strerror(errno));
	return t;
}

/* Whether the assembler made .sframe sections for the fixtures (gas
 * --gsframe, binutils >= 2.40); when not, marks the current test skipped
 * (test_skip) and its SFrame parts are left out. */
static int sframe_available(void)
{
	struct unwind_table *t = unwind_table_build(test_fixture("unwind-sframe"), UNWIND_SRC_SFRAME);
	int ok = t || errno != ENOENT;

	unwind_table_free(t);
	if (!ok)
		test_skip("SFrame parts: the fixtures have no .sframe (assembler without --gsframe)");
	return ok;
}

static const char *rule_name(int rule)
{
	static const char *names[] = { "SP", "BP", "PLT", "SIGNAL", "UNDEF", "UNKNOWN", "NONE" };

	return rule >= 0 && rule <= 6 ? names[rule] : "?";
}

/* ---- ground truth -------------------------------------------------- */

struct sym {
	char name[128];
	uint64_t vaddr, size;
};

struct syms {
	struct sym v[256];
	int n;
};

/* NAME.nm or NAME.plt (size 0); 0 when missing. */
static int syms_read(struct syms *s, const char *file)
{
	char line[512];
	FILE *f = fopen(test_fixture(file), "r");

	s->n = 0;
	if (!f)
		return 0;
	while (s->n < 256 && fgets(line, sizeof(line), f)) {
		struct sym *y = &s->v[s->n];

		y->size = 0;
		if (sscanf(line, "%127s %" SCNx64 " %" SCNx64, y->name, &y->vaddr, &y->size) >= 2)
			s->n++;
	}
	fclose(f);
	return 1;
}

static const struct sym *sym_find(const struct syms *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].name, name))
			return &s->v[i];
	return NULL;
}

/* One row of a readelf/objdump dump: the rule in the dump's words. */
struct trow {
	uint64_t loc;
	char cfa[32], bp[16], ra[16];
};

/* One FDE (readelf) or SFrame function (objdump); rows[first..first+n). */
struct tfde {
	uint64_t lo, hi;
	int sec;		/* enum unwind_source */
	int mask;		/* SFrame PCMASK: row locs are block offsets */
	int first, n;
};

struct dump {
	struct tfde f[256];
	int nf;
	struct trow r[2048];
	int nr;
};

static int hexlen(const char *s)
{
	return (int)strspn(s, "0123456789abcdef");
}

/* Splits line into whitespace-separated words. */
static int words(char *line, char **w, int max)
{
	int n = 0;

	char *save = NULL;

	for (char *tok = strtok_r(line, " \t\n", &save); tok && n < max;
	     tok = strtok_r(NULL, " \t\n", &save))
		w[n++] = tok;
	return n;
}

static void copy(char *dst, size_t size, const char *src)
{
	snprintf(dst, size, "%s", src);
}

/* Reads NAME.frames (readelf --debug-dump=frames-interp).  An FDE
 * without instructions prints no rows: it gets its CIE's initial row. */
static int frames_read(struct dump *d, const char *file)
{
	struct {
		uint64_t off;
		struct trow row;
	} cies[32];
	int ncies = 0, sec = 0, state = 0, ncols = 0, cie_row = 0;
	char line[1024], cols[24][16];
	FILE *f = fopen(test_fixture(file), "r");

	memset(d, 0, sizeof(*d));
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		struct trow r = { 0 };
		uint64_t off, len, id, cie, lo, hi;
		char kind[16], *w[24];
		struct tfde *fd;
		int n;

		/* CIE offsets are per section */
		if (strstr(line, "Contents of the .eh_frame section")) {
			sec = UNWIND_SRC_EH_FRAME;
			ncies = state = 0;
			continue;
		}
		if (strstr(line, "Contents of the .debug_frame section")) {
			sec = UNWIND_SRC_DEBUG_FRAME;
			ncies = state = 0;
			continue;
		}
		if (hexlen(line) == 8 &&
		    sscanf(line, "%" SCNx64 " %" SCNx64 " %" SCNx64 " %15s", &off, &len, &id, kind) == 4) {
			state = 0;
			if (!strcmp(kind, "CIE") && ncies < 32) {
				cies[ncies].off = off;
				memset(&cies[ncies].row, 0, sizeof(cies[ncies].row));
				ncies++;
				state = 1;
			} else if (!strcmp(kind, "FDE") && d->nf < 256 && d->nr < 2048 &&
				   strstr(line, "cie=") &&
				   sscanf(strstr(line, "cie="), "cie=%" SCNx64 " pc=%" SCNx64 "..%" SCNx64,
					  &cie, &lo, &hi) == 3) {
				fd = &d->f[d->nf++];
				*fd = (struct tfde){ lo, hi, sec, 0, d->nr, 0 };
				state = 2;
				cie_row = 0;
				for (int i = 0; i < ncies; i++) {
					if (cies[i].off == cie) {
						d->r[d->nr] = cies[i].row;
						d->r[d->nr++].loc = lo;
						fd->n = 1;
						cie_row = 1;
						break;
					}
				}
			}
			continue;
		}
		if (!strncmp(line, "   LOC", 6)) {
			ncols = words(line, w, 24);
			for (int i = 0; i < ncols; i++)
				copy(cols[i], sizeof(cols[i]), w[i]);
			continue;
		}
		if (hexlen(line) != 16 || !state)
			continue;
		if ((n = words(line, w, 24)) < 1)
			continue;
		r.loc = strtoull(w[0], NULL, 16);
		copy(r.bp, sizeof(r.bp), "u");
		copy(r.ra, sizeof(r.ra), "u");
		for (int i = 1; i < n && i < ncols; i++) {
			if (!strcmp(cols[i], "CFA"))
				copy(r.cfa, sizeof(r.cfa), w[i]);
			else if (!strcmp(cols[i], "rbp"))
				copy(r.bp, sizeof(r.bp), w[i]);
			else if (!strcmp(cols[i], "ra"))
				copy(r.ra, sizeof(r.ra), w[i]);
		}
		if (state == 1) {
			cies[ncies - 1].row = r;
			continue;
		}
		fd = &d->f[d->nf - 1];
		if (cie_row) {
			/* the FDE prints its own first row */
			d->r[fd->first] = r;
			cie_row = 0;
		} else if (d->nr < 2048) {
			d->r[d->nr++] = r;
			fd->n++;
		}
	}
	fclose(f);
	return 1;
}

/* Reads NAME.sfd (objdump --sframe). */
static int sfd_read(struct dump *d, const char *file)
{
	char line[1024];
	FILE *f = fopen(test_fixture(file), "r");

	memset(d, 0, sizeof(*d));
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *p = line + strspn(line, " "), *w[8];
		uint64_t pc, size;
		int idx;

		if (sscanf(p, "func idx [%d]: pc = 0x%" SCNx64 ", size = %" SCNu64, &idx, &pc, &size) == 3 &&
		    d->nf < 256) {
			d->f[d->nf] = (struct tfde){ pc, pc + size, UNWIND_SRC_SFRAME, 0, d->nr, 0 };
			d->nf++;
			continue;
		}
		if (!strncmp(p, "STARTPC[m]", 10) && d->nf)
			d->f[d->nf - 1].mask = 1;
		if (hexlen(p) != 16 || !d->nf || d->nr >= 2048 || words(p, w, 8) < 4)
			continue;
		d->r[d->nr] = (struct trow){ .loc = strtoull(w[0], NULL, 16) };
		copy(d->r[d->nr].cfa, sizeof(d->r[0].cfa), w[1]);
		copy(d->r[d->nr].bp, sizeof(d->r[0].bp), w[2]);
		copy(d->r[d->nr].ra, sizeof(d->r[0].ra), w[3]);
		d->nr++;
		d->f[d->nf - 1].n++;
	}
	fclose(f);
	return 1;
}

/* The expected row of a dump row; *loose set when only "not SP/BP/NONE"
 * can be checked (a DWARF expression). */
static struct unwind_row expect_row(const struct trow *tr, int sframe, int *loose)
{
	struct unwind_row r = { .cfa_rule = UNWIND_CFA_UNKNOWN };
	int off;

	*loose = 0;
	if (!sframe && !strcmp(tr->ra, "u")) {
		r.cfa_rule = UNWIND_CFA_UNDEF;
		return r;
	}
	if (sscanf(tr->cfa, sframe ? "sp+%d" : "rsp+%d", &off) == 1) {
		r.cfa_rule = UNWIND_CFA_SP;
		r.cfa_off = off;
	} else if (sscanf(tr->cfa, sframe ? "fp+%d" : "rbp+%d", &off) == 1) {
		r.cfa_rule = UNWIND_CFA_BP;
		r.cfa_off = off;
	} else {
		*loose = !strcmp(tr->cfa, "exp");
		return r;
	}
	if (sscanf(tr->bp, "c%d", &off) == 1) {
		r.bp_rule = UNWIND_REG_AT_CFA;
		r.bp_off = (int16_t)off;
	}
	return r;
}

static int row_eq(const struct unwind_row *a, const struct unwind_row *b)
{
	return a->cfa_rule == b->cfa_rule && a->cfa_off == b->cfa_off &&
	       a->bp_rule == b->bp_rule && a->bp_off == b->bp_off;
}

static void check_row_at(const struct unwind_table *t, uint64_t pc, const struct unwind_row *want,
			 int loose, const char *what, int line)
{
	const struct unwind_row *got = unwind_table_find(t, pc);

	if (!got) {
		test_fail(__FILE__, line, "%s %#" PRIx64 ": no row", what, pc);
		return;
	}
	if (loose) {
		if (got->cfa_rule == UNWIND_CFA_SP || got->cfa_rule == UNWIND_CFA_BP ||
		    got->cfa_rule == UNWIND_CFA_NONE)
			test_fail(__FILE__, line, "%s %#" PRIx64 ": %s for a DWARF expression",
				  what, pc, rule_name(got->cfa_rule));
		return;
	}
	if (!row_eq(got, want))
		test_fail(__FILE__, line, "%s %#" PRIx64 ": got %s%+d bp %d%+d, want %s%+d bp %d%+d",
			  what, pc, rule_name(got->cfa_rule), got->cfa_off, got->bp_rule, got->bp_off,
			  rule_name(want->cfa_rule), want->cfa_off, want->bp_rule, want->bp_off);
}

static int starts_fde(const struct dump *d, int sec, uint64_t pc)
{
	for (int i = 0; i < d->nf; i++)
		if ((d->f[i].sec & sec) && d->f[i].lo == pc)
			return 1;
	return 0;
}

/* Looks up every row of every FDE of the sections in sec at its first
 * and last address; checks a NONE row follows where nothing else starts.
 * Returns the number of rows checked. */
static int check_dump(const struct unwind_table *t, const struct dump *d, int sec,
		      const char *what, int line)
{
	int checked = 0;

	for (int i = 0; i < d->nf; i++) {
		const struct tfde *f = &d->f[i];

		if (!(f->sec & sec) || f->mask)
			continue;
		for (int k = 0; k < f->n; k++) {
			const struct trow *tr = &d->r[f->first + k];
			uint64_t end = k + 1 < f->n ? d->r[f->first + k + 1].loc : f->hi;
			int loose;
			struct unwind_row want = expect_row(tr, f->sec == UNWIND_SRC_SFRAME, &loose);

			check_row_at(t, tr->loc, &want, loose, what, line);
			check_row_at(t, end - 1, &want, loose, what, line);
			checked++;
		}
		if (!starts_fde(d, sec, f->hi)) {
			const struct unwind_row *r = unwind_table_find(t, f->hi);

			if (!r || r->cfa_rule != UNWIND_CFA_NONE)
				test_fail(__FILE__, line, "%s: no NONE row at FDE end %#" PRIx64,
					  what, f->hi);
		}
	}
	return checked;
}

/* Structural invariants every table keeps. */
static void check_invariants(const struct unwind_table *t, const char *what)
{
	const struct unwind_row *rows;
	size_t n = unwind_table_rows(t, &rows);

	if (!n) {
		test_fail(__FILE__, __LINE__, "%s: no rows", what);
		return;
	}
	CHECK_INT(rows[n - 1].cfa_rule, UNWIND_CFA_NONE);
	CHECK(unwind_table_find(t, rows[0].pc - 1) == NULL);
	CHECK(unwind_table_find(t, UINT64_MAX) == &rows[n - 1]);
	for (size_t i = 0; i < n; i++) {
		const struct unwind_row *r = &rows[i];

		if (i && rows[i - 1].pc >= r->pc)
			test_fail(__FILE__, __LINE__, "%s: row %zu not sorted", what, i);
		if (i && row_eq(&rows[i - 1], r))
			test_fail(__FILE__, __LINE__, "%s: rows %zu and %zu not merged", what, i - 1, i);
		if (r->cfa_rule > UNWIND_CFA_NONE || r->bp_rule > UNWIND_REG_UNDEF)
			test_fail(__FILE__, __LINE__, "%s: row %zu has bad rules", what, i);
		if (r->cfa_rule != UNWIND_CFA_SP && r->cfa_rule != UNWIND_CFA_BP &&
		    (r->bp_rule != UNWIND_REG_SAME ||
		     (r->cfa_rule != UNWIND_CFA_PLT && (r->cfa_off || r->bp_off))))
			test_fail(__FILE__, __LINE__, "%s: row %zu not normalized", what, i);
		if (unwind_table_find(t, r->pc) != r)
			test_fail(__FILE__, __LINE__, "%s: find(row %zu) is another row", what, i);
	}
}

/* CFA offset from sp of a PLT row at pc. */
static int plt_cfa(const struct unwind_row *r, uint64_t pc)
{
	return r->cfa_off + ((int)(pc & 15) >= r->bp_off ? 8 : 0);
}

/* ---- tests against binutils ---------------------------------------- */

static void check_frames_fixture(const char *name, unsigned int sources, int sec)
{
	static struct dump d;
	char file[256];
	struct unwind_table *t;

	snprintf(file, sizeof(file), "%s.frames", name);
	if (!frames_read(&d, file)) {
		test_fail(__FILE__, __LINE__, "%s missing (make fixtures)", file);
		return;
	}
	t = build(name, sources);
	if (!t)
		return;
	check_invariants(t, name);
	CHECK(check_dump(t, &d, sec, name, __LINE__) >= 20);
	CHECK_INT(unwind_table_sources(t), sec);
	CHECK_INT(unwind_table_bad_sources(t), 0);
	CHECK_STR(unwind_table_name(t), test_fixture(name));
	unwind_table_free(t);
}

TEST(unwind_eh_frame_matches_readelf)
{
	check_frames_fixture("unwind-eh", 0, UNWIND_SRC_EH_FRAME);
	check_frames_fixture("unwind-fp", 0, UNWIND_SRC_EH_FRAME);
	check_frames_fixture("libunwind-fix.so", 0, UNWIND_SRC_EH_FRAME);
	check_frames_fixture("unwind-gsframe", UNWIND_SRC_EH_FRAME, UNWIND_SRC_EH_FRAME);
}

TEST(unwind_debug_frame_matches_readelf)
{
	struct unwind_table *t;

	check_frames_fixture("unwind-debugframe", 0, UNWIND_SRC_DEBUG_FRAME);
	/* the fixture really is .debug_frame only */
	errno = 0;
	t = unwind_table_build(test_fixture("unwind-debugframe"), UNWIND_SRC_EH_FRAME);
	CHECK(!t && errno == ENOENT);
	unwind_table_free(t);
}

TEST(unwind_sframe_matches_objdump)
{
	static struct dump d;
	struct unwind_table *t;
	int plts = 0;

	if (!sframe_available())
		return;
	if (!sfd_read(&d, "unwind-gsframe.sfd") || !d.nf)
		SKIP("objdump --sframe printed nothing");
	t = build("unwind-sframe", 0);
	if (!t)
		return;
	check_invariants(t, "unwind-sframe");
	CHECK_INT(unwind_table_sources(t), UNWIND_SRC_SFRAME);
	CHECK(check_dump(t, &d, UNWIND_SRC_SFRAME, "unwind-sframe", __LINE__) >= 20);
	/* pltN entries: one PCMASK function, rows at block offsets */
	for (int i = 0; i < d.nf; i++) {
		const struct tfde *f = &d.f[i];

		if (!f->mask)
			continue;
		for (uint64_t pc = f->lo; pc < f->hi; pc++) {
			const struct unwind_row *r = unwind_table_find(t, pc);
			int want = 0;

			for (int k = 0; k < f->n; k++)
				if (d.r[f->first + k].loc <= (pc - f->lo) % 16)
					sscanf(d.r[f->first + k].cfa, "sp+%d", &want);
			CHECK(r && r->cfa_rule == UNWIND_CFA_PLT);
			if (r && r->cfa_rule == UNWIND_CFA_PLT)
				CHECK_INT(plt_cfa(r, pc), want);
		}
		plts++;
	}
	CHECK(plts >= 1);
	unwind_table_free(t);
}

/* The same binary's .eh_frame and .sframe, and the .debug_frame build:
 * equal rules at every address both describe. */
static int compare_tables(const struct unwind_table *a, const struct unwind_table *b,
			  const struct syms *fns, const char *what)
{
	int compared = 0;

	for (int i = 0; i < fns->n; i++) {
		const struct sym *s = &fns->v[i];

		if (strncmp(s->name, "unw_", 4) && strcmp(s->name, "main"))
			continue;
		for (uint64_t pc = s->vaddr; pc < s->vaddr + s->size; pc++) {
			const struct unwind_row *x = unwind_table_find(a, pc);
			const struct unwind_row *y = unwind_table_find(b, pc);

			if (!x || !y || x->cfa_rule == UNWIND_CFA_NONE || y->cfa_rule == UNWIND_CFA_NONE)
				continue;
			if (!row_eq(x, y))
				test_fail(__FILE__, __LINE__,
					  "%s: %s+%#" PRIx64 ": %s%+d bp %d%+d vs %s%+d bp %d%+d", what,
					  s->name, pc - s->vaddr, rule_name(x->cfa_rule), x->cfa_off,
					  x->bp_rule, x->bp_off, rule_name(y->cfa_rule), y->cfa_off,
					  y->bp_rule, y->bp_off);
			compared++;
		}
	}
	return compared;
}

TEST(unwind_sources_agree)
{
	struct unwind_table *eh = NULL, *sf = NULL, *sfonly = NULL, *df, *eh2;
	const struct unwind_row *r1, *r2;
	static struct syms fns, plt;
	size_t n1, n2;

	CHECK(syms_read(&fns, "unwind-gsframe.nm"));
	CHECK(syms_read(&plt, "unwind-gsframe.plt"));
	if (sframe_available()) {
		eh = build("unwind-gsframe", UNWIND_SRC_EH_FRAME);
		sf = build("unwind-gsframe", UNWIND_SRC_SFRAME);
		sfonly = build("unwind-sframe", 0);
	}
	if (eh && sf) {
		CHECK(compare_tables(eh, sf, &fns, "eh_frame vs sframe") > 300);
		/* every byte of the pltN entries */
		CHECK(plt.n >= 3);
		for (int i = 0; i < plt.n; i++) {
			for (uint64_t pc = plt.v[i].vaddr; pc < plt.v[i].vaddr + 16; pc++) {
				const struct unwind_row *x = unwind_table_find(eh, pc);
				const struct unwind_row *y = unwind_table_find(sf, pc);

				CHECK(x && y && row_eq(x, y) && x->cfa_rule == UNWIND_CFA_PLT);
			}
		}
	}
	if (sf && sfonly) {
		/* objcopy --remove-section .eh_frame leaves .sframe as it was */
		n1 = unwind_table_rows(sf, &r1);
		n2 = unwind_table_rows(sfonly, &r2);
		CHECK_INT(n1, n2);
		CHECK(n1 == n2 && !memcmp(r1, r2, n1 * sizeof(*r1)));
	}
	unwind_table_free(eh);
	unwind_table_free(sf);
	unwind_table_free(sfonly);

	CHECK(syms_read(&fns, "unwind-debugframe.nm"));
	df = build("unwind-debugframe", 0);
	eh2 = build("unwind-eh", 0);
	if (df && eh2)
		CHECK(compare_tables(eh2, df, &fns, "eh_frame vs debug_frame") > 300);
	unwind_table_free(df);
	unwind_table_free(eh2);
}

/* The largest rsp-based CFA offset inside a function. */
static int max_sp_cfa(const struct unwind_table *t, const struct sym *s)
{
	int max = 0;

	for (uint64_t pc = s->vaddr; pc < s->vaddr + s->size; pc++) {
		const struct unwind_row *r = unwind_table_find(t, pc);

		if (r && r->cfa_rule == UNWIND_CFA_SP && r->cfa_off > max)
			max = r->cfa_off;
	}
	return max;
}

TEST(unwind_mixed_sources)
{
	struct unwind_table *all, *eh, *ehsf;
	int sframe = sframe_available();
	const struct sym *b, *c, *leaf;
	const struct unwind_row *r;
	static struct dump d;
	struct syms fns;

	CHECK(syms_read(&fns, "unwind-mixed.nm"));
	b = sym_find(&fns, "unw_part_b");
	c = sym_find(&fns, "unw_part_c");
	leaf = sym_find(&fns, "unw_leaf");
	if (!b || !c || !leaf) {
		test_fail(__FILE__, __LINE__, "unwind-mixed.nm lacks unw_part_b/c or unw_leaf");
		return;
	}
	all = build("unwind-mixed", 0);
	eh = build("unwind-mixed", UNWIND_SRC_EH_FRAME);
	ehsf = build("unwind-mixed", UNWIND_SRC_EH_FRAME | UNWIND_SRC_SFRAME);
	if (!all || !eh || !ehsf)
		goto free_tables;
	check_invariants(all, "unwind-mixed");
	CHECK_INT(unwind_table_sources(all), sframe ? ALL_SOURCES : ALL_SOURCES & ~UNWIND_SRC_SFRAME);
	/* every row of all three sections, where they agree anyway */
	CHECK(frames_read(&d, "unwind-mixed.frames"));
	CHECK(check_dump(all, &d, UNWIND_SRC_EH_FRAME | UNWIND_SRC_DEBUG_FRAME, "unwind-mixed",
			 __LINE__) >= 20);
	if (sframe && sfd_read(&d, "unwind-mixed.sfd") && d.nf)
		CHECK(check_dump(all, &d, UNWIND_SRC_SFRAME, "unwind-mixed", __LINE__) >= 20);
	CHECK_INT(unwind_table_sources(eh), UNWIND_SRC_EH_FRAME);
	CHECK_INT(unwind_table_sources(ehsf),
		  UNWIND_SRC_EH_FRAME | (sframe ? UNWIND_SRC_SFRAME : 0));
	/* first instruction of each: CFA = rsp + 8 */
	r = unwind_table_find(all, b->vaddr);
	CHECK(!sframe || (r && r->cfa_rule == UNWIND_CFA_SP && r->cfa_off == 8));
	r = unwind_table_find(all, c->vaddr);
	CHECK(r && r->cfa_rule == UNWIND_CFA_SP && r->cfa_off == 8);
	/* inside: the sub for buf[64] / buf[96] */
	CHECK(!sframe || max_sp_cfa(all, b) > 64);
	CHECK(max_sp_cfa(all, c) > 96);
	/* only .eh_frame: neither is described */
	r = unwind_table_find(eh, b->vaddr);
	CHECK(!r || r->cfa_rule == UNWIND_CFA_NONE);
	r = unwind_table_find(eh, c->vaddr);
	CHECK(!r || r->cfa_rule == UNWIND_CFA_NONE);
	r = unwind_table_find(ehsf, b->vaddr);
	CHECK(!sframe || (r && r->cfa_rule == UNWIND_CFA_SP));
	r = unwind_table_find(ehsf, c->vaddr);
	CHECK(!r || r->cfa_rule == UNWIND_CFA_NONE);
	r = unwind_table_find(eh, leaf->vaddr);
	CHECK(r && r->cfa_rule == UNWIND_CFA_SP && r->cfa_off == 8);
free_tables:
	unwind_table_free(all);
	unwind_table_free(eh);
	unwind_table_free(ehsf);
}

/* The shapes unwind.c promises, looked up by symbol. */
TEST(unwind_frame_shapes)
{
	struct unwind_table *t, *fp;
	const struct sym *s;
	const struct unwind_row *r;
	struct syms fns, fpfns;
	int bp_rows = 0, pushes = 0, prev = 0;

	CHECK(syms_read(&fns, "unwind-eh.nm"));
	CHECK(syms_read(&fpfns, "unwind-fp.nm"));
	t = build("unwind-eh", 0);
	fp = build("unwind-fp", 0);
	if (!t || !fp)
		goto free_tables;
	if ((s = sym_find(&fns, "unw_leaf"))) {
		for (uint64_t pc = s->vaddr; pc < s->vaddr + s->size; pc++) {
			r = unwind_table_find(t, pc);
			CHECK(r && r->cfa_rule == UNWIND_CFA_SP && r->cfa_off == 8 &&
			      r->bp_rule == UNWIND_REG_SAME);
		}
	}
	if ((s = sym_find(&fns, "unw_bigframe"))) {
		CHECK(max_sp_cfa(t, s) >= 256 + 8);
		r = unwind_table_find(t, s->vaddr);
		CHECK(r && r->cfa_rule == UNWIND_CFA_SP && r->cfa_off == 8);
	}
	if ((s = sym_find(&fns, "unw_vla"))) {
		for (uint64_t pc = s->vaddr; pc < s->vaddr + s->size; pc++) {
			r = unwind_table_find(t, pc);
			if (r && r->cfa_rule == UNWIND_CFA_BP) {
				CHECK_INT(r->cfa_off, 16);
				CHECK_INT(r->bp_rule, UNWIND_REG_AT_CFA);
				CHECK_INT(r->bp_off, -16);
				bp_rows++;
			}
		}
		CHECK(bp_rows > 0);
	}
	if ((s = sym_find(&fns, "unw_saves"))) {
		/* the prologue: one push after another, 8 bytes each */
		for (uint64_t pc = s->vaddr; pc < s->vaddr + s->size; pc++) {
			r = unwind_table_find(t, pc);
			if (r && r->cfa_rule == UNWIND_CFA_SP && r->cfa_off == prev + 8 &&
			    (pc == s->vaddr || prev >= 8)) {
				pushes++;
				prev = r->cfa_off;
			}
		}
		CHECK(pushes >= 4);
	}
	/* -fno-omit-frame-pointer: after push %rbp; mov %rsp,%rbp every
	 * function but the leaf is rbp-based with rbp at CFA - 16 */
	if ((s = sym_find(&fpfns, "unw_bigframe"))) {
		bp_rows = 0;
		for (uint64_t pc = s->vaddr; pc < s->vaddr + s->size; pc++) {
			r = unwind_table_find(fp, pc);
			if (r && r->cfa_rule == UNWIND_CFA_BP && r->cfa_off == 16 &&
			    r->bp_rule == UNWIND_REG_AT_CFA && r->bp_off == -16)
				bp_rows++;
		}
		CHECK(bp_rows > (int)s->size / 2);
		r = unwind_table_find(fp, s->vaddr + 1);
		CHECK(r && r->cfa_rule == UNWIND_CFA_SP && r->cfa_off == 16 &&
		      r->bp_rule == UNWIND_REG_AT_CFA && r->bp_off == -16);
	}
free_tables:
	unwind_table_free(t);
	unwind_table_free(fp);
}

TEST(unwind_start_plt_sigtramp)
{
	static const char *names[] = { "unwind-eh", "unwind-fp", "libunwind-fix.so" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char file[256];
		struct unwind_table *t = build(names[i], 0);
		static struct syms fns, plt, secs;
		const struct sym *s;
		const struct unwind_row *r;

		if (!t)
			continue;
		snprintf(file, sizeof(file), "%s.nm", names[i]);
		CHECK(syms_read(&fns, file));
		snprintf(file, sizeof(file), "%s.plt", names[i]);
		CHECK(syms_read(&plt, file));
		/* _start: .cfi_undefined rip */
		if ((s = sym_find(&fns, "_start"))) {
			r = unwind_table_find(t, s->vaddr);
			CHECK(r && r->cfa_rule == UNWIND_CFA_UNDEF);
			r = unwind_table_find(t, s->vaddr + s->size - 1);
			CHECK(r && r->cfa_rule == UNWIND_CFA_UNDEF);
		} else {
			CHECK(strstr(names[i], ".so") != NULL);
		}
		/* pltN: CFA = rsp + 8 until the push at +6 is done (+11) */
		CHECK(plt.n >= 3);
		for (int k = 0; k < plt.n; k++) {
			uint64_t pc = plt.v[k].vaddr;

			r = unwind_table_find(t, pc);
			CHECK(r && r->cfa_rule == UNWIND_CFA_PLT);
			if (!r || r->cfa_rule != UNWIND_CFA_PLT)
				continue;
			CHECK_INT(r->cfa_off, 8);
			CHECK_INT(r->bp_off, 11);
			CHECK_INT(plt_cfa(r, pc), 8);
			CHECK_INT(plt_cfa(unwind_table_find(t, pc + 10), pc + 10), 8);
			CHECK_INT(plt_cfa(unwind_table_find(t, pc + 11), pc + 11), 16);
			CHECK_INT(plt_cfa(unwind_table_find(t, pc + 15), pc + 15), 16);
		}
		/* PLT0, entered with the index pushed: push GOT[1] (6 bytes),
		 * jmp *GOT[2] */
		snprintf(file, sizeof(file), "%s.secs", names[i]);
		CHECK(syms_read(&secs, file));
		if ((s = sym_find(&secs, ".plt"))) {
			r = unwind_table_find(t, s->vaddr);
			CHECK(r && r->cfa_rule == UNWIND_CFA_SP && r->cfa_off == 16);
			r = unwind_table_find(t, s->vaddr + 6);
			CHECK(r && r->cfa_rule == UNWIND_CFA_SP && r->cfa_off == 24);
		} else {
			test_fail(__FILE__, __LINE__, "%s: no .plt", names[i]);
		}
		/* the asm trampoline without CFI, found by its code */
		if ((s = sym_find(&fns, "unw_sigtramp"))) {
			r = unwind_table_find(t, s->vaddr);
			CHECK(r && r->cfa_rule == UNWIND_CFA_SIGNAL);
			r = unwind_table_find(t, s->vaddr - 1);
			CHECK(r && r->cfa_rule == UNWIND_CFA_SIGNAL);
			r = unwind_table_find(t, s->vaddr + 9);
			CHECK(r && r->cfa_rule == UNWIND_CFA_NONE);
		} else {
			test_fail(__FILE__, __LINE__, "%s: no unw_sigtramp", names[i]);
		}
		unwind_table_free(t);
	}
}

/* ---- libc ---------------------------------------------------------- */

struct kernel_sigaction {
	void *handler;
	unsigned long flags;
	void *restorer;
	uint64_t mask;
};

static void on_usr2(int sig)
{
	(void)sig;
}

/* Where glibc's sigaction() makes signal handlers return to: its
 * __restore_rt, read back from the kernel.  0 if not found. */
static uint64_t restorer_vaddr(char *lib, size_t size)
{
	struct sigaction sa = { .sa_handler = on_usr2 }, old;
	struct kernel_sigaction k = { 0 };
	Dl_info info;
	long rc;

	if (sigaction(SIGUSR2, &sa, &old))
		return 0;
	rc = syscall(SYS_rt_sigaction, SIGUSR2, NULL, &k, sizeof(k.mask));
	sigaction(SIGUSR2, &old, NULL);
	if (rc || !k.restorer || !dladdr(k.restorer, &info) || !info.dli_fname)
		return 0;
	snprintf(lib, size, "%s", info.dli_fname);
	if (memcmp(k.restorer, "\x48\xc7\xc0\x0f\x00\x00\x00\x0f\x05", 9))
		return 0;
	return (uint64_t)((char *)k.restorer - (char *)info.dli_fbase);
}

static int same_file(const char *a, const char *b)
{
	struct stat x, y;

	return !stat(a, &x) && !stat(b, &y) && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

TEST(unwind_libc)
{
	struct timespec t0, t1;
	struct unwind_table *t;
	const struct unwind_row *r;
	char lib[512] = "";
	uint64_t rt;
	double ms;
	size_t n;

	if (access(LIBC_PATH, R_OK))
		SKIP("no %s", LIBC_PATH);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	t = unwind_table_build(LIBC_PATH, 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (!t) {
		test_fail(__FILE__, __LINE__, "%s: %s", LIBC_PATH, strerror(errno));
		return;
	}
	ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	n = unwind_table_rows(t, NULL);
	fprintf(stderr, "  unwind: %s: %zu rows (%zu bytes) in %.1f ms\n", LIBC_PATH, n,
		n * sizeof(struct unwind_row), ms);
	CHECK(n > 1000);
	CHECK(unwind_table_sources(t) & UNWIND_SRC_EH_FRAME);
	check_invariants(t, "libc");

	rt = restorer_vaddr(lib, sizeof(lib));
	if (!rt || !same_file(lib, LIBC_PATH)) {
		test_skip("__restore_rt not checked: the restorer is not in %s (%s)",
			  LIBC_PATH, lib);
	} else {
		r = unwind_table_find(t, rt);
		CHECK(r && r->cfa_rule == UNWIND_CFA_SIGNAL);
		/* unwinders look up return address - 1 */
		r = unwind_table_find(t, rt - 1);
		CHECK(r && r->cfa_rule == UNWIND_CFA_SIGNAL);
	}
	unwind_table_free(t);
}

/* ---- malformed input ----------------------------------------------- */

TEST(unwind_bad_files)
{
	static const char *bad[] = {
		"unwind-trunc", "unwind-badeh", "unwind-sframe-badmagic",
		"unwind-sframe-hugefdes", "unwind-sframe-badfdeoff", "unwind-sframe-badfreoff",
		/* from tests/fixtures.mk */
		"symbols-garbage", "symbols-text",
	};
	int sframe = sframe_available();
	struct unwind_table *t;
	int fd;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (!sframe && strstr(bad[i], "sframe"))
			continue;
		if (access(test_fixture(bad[i]), R_OK)) {
			test_fail(__FILE__, __LINE__, "%s missing (make fixtures)", bad[i]);
			continue;
		}
		errno = 0;
		t = unwind_table_build(test_fixture(bad[i]), 0);
		if (t || errno != EINVAL)
			test_fail(__FILE__, __LINE__, "%s: %p, errno %d, want NULL, EINVAL", bad[i],
				  (void *)t, errno);
		unwind_table_free(t);
	}
	errno = 0;
	CHECK(!unwind_table_build(test_fixture("no-such-file"), 0) && errno == ENOENT);
	errno = 0;
	CHECK(!unwind_table_build(test_fixtures(), 0) && errno == EINVAL);
	errno = 0;
	CHECK(!unwind_table_build("/dev/null", 0) && errno == EINVAL);
	/* no CFI in what was asked for */
	errno = 0;
	CHECK(!unwind_table_build(test_fixture("unwind-sframe"), UNWIND_SRC_EH_FRAME) && errno == ENOENT);
	errno = 0;
	CHECK(!unwind_table_build(test_fixture("unwind-eh"), UNWIND_SRC_SFRAME) && errno == ENOENT);

	/* a bad .sframe next to a good .eh_frame is dropped, not fatal */
	fd = sframe ? open(test_fixture("unwind-gsframe-badsframe"), O_RDONLY | O_CLOEXEC) : -1;
	CHECK(!sframe || fd >= 0);
	if (fd >= 0) {
		t = unwind_table_build_fd(fd, "badsframe", 0);
		CHECK(t != NULL);
		CHECK_INT(unwind_table_sources(t), UNWIND_SRC_EH_FRAME);
		CHECK_INT(unwind_table_bad_sources(t), UNWIND_SRC_SFRAME);
		CHECK_STR(unwind_table_name(t), "badsframe");
		unwind_table_free(t);
		errno = 0;
		t = unwind_table_build_fd(fd, "badsframe", UNWIND_SRC_SFRAME);
		CHECK(!t && errno == EINVAL);
		CHECK(fcntl(fd, F_GETFD) != -1);	/* not closed */
		close(fd);
	}
	unwind_table_free(NULL);
	CHECK(unwind_table_find(NULL, 0) == NULL);
	CHECK_INT(unwind_table_rows(NULL, NULL), 0);
}

/* The raw .sframe section of a fixture, malloc'd; NULL if absent. */
static uint8_t *sframe_bytes(const char *name, size_t *size, uint64_t *vaddr)
{
	Elf_Scn *scn = NULL;
	uint8_t *out = NULL;
	size_t shstrndx;
	Elf *elf;
	int fd;

	elf_version(EV_CURRENT);
	fd = open(test_fixture(name), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		goto end;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *sname;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || !(sname = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(sname, ".sframe") || !(d = elf_getdata(scn, NULL)))
			continue;
		out = malloc(d->d_size);
		if (out) {
			memcpy(out, d->d_buf, d->d_size);
			*size = d->d_size;
			*vaddr = sh.sh_addr;
		}
		break;
	}
end:
	if (elf)
		elf_end(elf);
	close(fd);
	return out;
}

struct rowlog {
	struct unwind_row v[512];
	uint64_t end[512];
	int n;
	int bad_end;
};

static int log_row(void *ctx, const struct unwind_row *row, uint64_t end)
{
	struct rowlog *l = ctx;

	if (end <= row->pc)
		l->bad_end++;
	if (l->n < 512) {
		l->v[l->n] = *row;
		l->end[l->n++] = end;
	}
	return 0;
}

static int stop_row(void *ctx, const struct unwind_row *row, uint64_t end)
{
	return -1234;
}

static int parse(const uint8_t *p, size_t n, uint64_t vaddr, struct rowlog *l)
{
	memset(l, 0, sizeof(*l));
	return sframe_parse(p, n, vaddr, log_row, l);
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Rewrites a version 1 section (FDEs of 17 bytes right after a 28-byte
 * header, as ld 2.40 writes it) as version 2 (20-byte FDEs with
 * rep_size), function starts optionally relative to the FDE field. */
static size_t sframe_v1_to_v2(const uint8_t *in, size_t size, uint8_t *out, int pcrel)
{
	uint32_t nfdes = get32(in + 8), freoff = get32(in + 24);
	size_t fres = 28 + (size_t)freoff;

	if (in[7] || get32(in + 20) || freoff != nfdes * 17 || fres > size)
		return 0;
	memcpy(out, in, 28);
	out[2] = 2;
	if (pcrel)
		out[3] |= 0x4;
	put32(out + 24, nfdes * 20);
	for (uint32_t i = 0; i < nfdes; i++) {
		const uint8_t *f = in + 28 + i * 17;
		uint8_t *g = out + 28 + i * 20;
		int32_t start = (int32_t)get32(f);

		memcpy(g, f, 17);
		if (pcrel)
			put32(g, (uint32_t)(start - (int32_t)(28 + i * 20)));
		g[17] = (f[16] >> 4 & 1) ? 16 : 0;
		g[18] = g[19] = 0;
	}
	memcpy(out + 28 + nfdes * 20, in + fres, size - fres);
	return 28 + nfdes * 20 + (size - fres);
}

TEST(unwind_sframe_versions)
{
	static struct rowlog l1, l2;
	uint8_t *v1, *v2;
	size_t n, n2;
	uint64_t vaddr;

	if (!sframe_available())
		return;
	v1 = sframe_bytes("unwind-sframe", &n, &vaddr);
	if (!v1) {
		test_fail(__FILE__, __LINE__, "unwind-sframe: cannot read .sframe");
		return;
	}
	CHECK_INT(v1[2], 1);	/* what binutils 2.40 writes */
	CHECK_INT(parse(v1, n, vaddr, &l1), 0);
	CHECK(l1.n >= 30);
	CHECK_INT(l1.bad_end, 0);
	v2 = malloc(n + 4096);
	for (int pcrel = 0; pcrel <= 1 && v2; pcrel++) {
		n2 = sframe_v1_to_v2(v1, n, v2, pcrel);
		CHECK(n2 > 0);
		CHECK_INT(parse(v2, n2, vaddr, &l2), 0);
		CHECK_INT(l2.n, l1.n);
		CHECK(l1.n == l2.n && !memcmp(l1.v, l2.v, sizeof(l1.v[0]) * (size_t)l1.n) &&
		      !memcmp(l1.end, l2.end, sizeof(l1.end[0]) * (size_t)l1.n));
	}
	/* a version 2 PCMASK function whose blocks are not 16 bytes is not
	 * a PLT row but expanded, one row per FRE and block; block size 0
	 * is malformed */
	n2 = sframe_v1_to_v2(v1, n, v2, 0);
	for (uint32_t i = 0; v2 && n2 && i < get32(v2 + 8); i++) {
		uint8_t *g = v2 + 28 + i * 20;

		if (g[17] == 16) {
			g[17] = 32;
			CHECK_INT(parse(v2, n2, vaddr, &l2), 0);
			CHECK(l2.n > l1.n);
			g[17] = 0;
			CHECK_INT(parse(v2, n2, vaddr, &l2), -EINVAL);
			g[17] = 16;
		}
	}
	CHECK_INT(sframe_parse(v1, n, vaddr, stop_row, NULL), -1234);
	free(v2);
	free(v1);
}

TEST(unwind_sframe_malformed)
{
	static struct rowlog l;
	uint8_t *good, *p;
	size_t n;
	uint64_t vaddr;
	unsigned int seed = 12345;
	int results[4] = { 0 };
	size_t info;

	if (!sframe_available())
		return;
	good = sframe_bytes("unwind-sframe", &n, &vaddr);
	if (!good) {
		test_fail(__FILE__, __LINE__, "unwind-sframe: cannot read .sframe");
		return;
	}
	p = malloc(n);
	if (!p)
		goto free_good;
#define MUTATE(stmt, want)                                             \
	do {                                                           \
		memcpy(p, good, n);                                    \
		stmt;                                                  \
		CHECK_INT(parse(p, n, vaddr, &l), want);               \
	} while (0)
	MUTATE((void)0, 0);
	MUTATE(p[0] = 0, -EINVAL);				/* magic */
	MUTATE((p[0] = 0xde, p[1] = 0xe2), -ENOTSUP);		/* big-endian */
	MUTATE(p[2] = 0, -EINVAL);				/* version */
	MUTATE(p[2] = 3, -EINVAL);
	MUTATE(p[3] = 0x80, -EINVAL);				/* flags */
	MUTATE(p[3] |= 0x4, -EINVAL);				/* v2 flag in v1 */
	MUTATE(p[4] = 2, -ENOTSUP);				/* aarch64 */
	MUTATE(p[4] = 0x77, -EINVAL);
	MUTATE(put32(p + 8, 0x7fffffff), -EINVAL);		/* num_fdes */
	MUTATE(put32(p + 8, get32(p + 8) - 1), -EINVAL);	/* num_fres no longer adds up */
	MUTATE(put32(p + 12, get32(p + 12) + 1), -EINVAL);
	MUTATE(put32(p + 16, 0xffffffff), -EINVAL);		/* fre_len */
	MUTATE(put32(p + 16, get32(p + 16) - 1), -EINVAL);
	MUTATE(put32(p + 20, 0x7ffffff0), -EINVAL);		/* fdeoff */
	MUTATE(put32(p + 24, 0xfffffff0), -EINVAL);		/* freoff */
	MUTATE(p[7] = 200, -EINVAL);				/* auxhdr_len */
	MUTATE(put32(p + 28 + 8, 0xfffffff0), -EINVAL);		/* FDE 0 fre_off */
	MUTATE(put32(p + 28 + 12, 0xffffff), -EINVAL);		/* FDE 0 num_fres */
	MUTATE(p[28 + 16] |= 0x3, -EINVAL);			/* FRE type 3 */
	/* the info byte of FDE 0's first FRE: offset size 3, then 7 offsets */
	info = 28 + get32(good + 24) + get32(good + 28 + 8) + (1u << (good[28 + 16] & 0xf));
	CHECK(info < n);
	MUTATE(p[info] |= 0x60, -EINVAL);
	MUTATE(p[info] |= 0x0e, -EINVAL);
	/* every truncation */
	for (size_t len = 0; len < n; len++)
		if (parse(good, len, vaddr, &l) != -EINVAL)
			test_fail(__FILE__, __LINE__, "truncated to %zu: not EINVAL", len);
	CHECK_INT(sframe_parse(NULL, 0, 0, log_row, &l), -EINVAL);
	/* random damage: any result but a crash; rows always end after pc */
	for (int i = 0; i < 20000; i++) {
		int k = 1 + (int)(rand_r(&seed) % 4), err;

		memcpy(p, good, n);
		while (k--)
			p[rand_r(&seed) % n] ^= (uint8_t)(1u << (rand_r(&seed) % 8));
		err = parse(p, n, vaddr, &l);
		if (err != 0 && err != -EINVAL && err != -ENOTSUP && err != -E2BIG)
			test_fail(__FILE__, __LINE__, "mutation %d: %d", i, err);
		results[err == 0 ? 0 : err == -EINVAL ? 1 : err == -ENOTSUP ? 2 : 3]++;
		CHECK_INT(l.bad_end, 0);
	}
	CHECK(results[0] > 0 && results[1] > 0);
#undef MUTATE
	free(p);
free_good:
	free(good);
}

/* One FDE of 100,000 rows: libdw runs an FDE's program from its start for
 * each row asked (5e9 rows here); the interpreter makes every row in one
 * pass, its work linear in the rows. */
TEST(unwind_long_fde_one_pass)
{
	struct unwind_table *t = build("unwind-longfde.so", UNWIND_SRC_EH_FRAME);
	const struct unwind_row *rows, *r;
	size_t n;

	if (!t)
		return;
	n = unwind_table_rows(t, &rows);
	CHECK(n >= 100000);
	/* per row: one advance_loc and one def_cfa_offset */
	CHECK(unwind_table_work(t) <= 3 * 100000);
	r = n ? &rows[0] : NULL;
	CHECK(r && r->cfa_rule == UNWIND_CFA_SP && r->cfa_off == 8);
	r = n > 1 ? &rows[1] : NULL;
	CHECK(r && r->cfa_rule == UNWIND_CFA_SP && r->cfa_off == 16);
	r = n > 99999 ? &rows[99999] : NULL;
	CHECK(r && r->cfa_rule == UNWIND_CFA_SP && r->cfa_off == 16);
	unwind_table_free(t);
}

/* The interpreter makes the rows libdw makes, row for row, on libc and
 * on every fixture with CFI. */
TEST(unwind_interpreter_matches_libdw)
{
	static const char *const files[] = { LIBC_PATH, "/usr/lib/x86_64-linux-gnu/libstdc++.so.6",
		"/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", "unwind-eh", "unwind-fp",
		"unwind-debugframe", "unwind-mixed", "unwind-badeh", "unwind-trunc",
		"libunwind-fix.so", "symbols-pie", "libsymbols.so", "symbols-entry" };

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		const char *path = files[i][0] == '/' ? files[i] : test_fixture(files[i]);
		struct unwind_table *own, *ref;
		const struct unwind_row *a, *b;
		size_t na, nb;

		if (access(path, R_OK))
			continue;
		own = unwind_table_build(path, UNWIND_SRC_EH_FRAME | UNWIND_SRC_DEBUG_FRAME);
		unwind_table_set_libdw_only(true);
		ref = unwind_table_build(path, UNWIND_SRC_EH_FRAME | UNWIND_SRC_DEBUG_FRAME);
		unwind_table_set_libdw_only(false);
		if (!own || !ref) {
			CHECK(!own == !ref);
			unwind_table_free(own);
			unwind_table_free(ref);
			continue;
		}
		na = unwind_table_rows(own, &a);
		nb = unwind_table_rows(ref, &b);
		if (na != nb)
			test_fail(__FILE__, __LINE__, "%s: %zu rows, libdw %zu", path, na, nb);
		for (size_t j = 0; j < na && j < nb; j++)
			if (memcmp(&a[j], &b[j], sizeof(a[j]))) {
				test_fail(__FILE__, __LINE__, "%s: row %zu at 0x%llx: rule %d off %d bp %d/%d,"
					  " libdw: 0x%llx rule %d off %d bp %d/%d", path, j,
					  (unsigned long long)a[j].pc, a[j].cfa_rule, a[j].cfa_off,
					  a[j].bp_rule, a[j].bp_off, (unsigned long long)b[j].pc,
					  b[j].cfa_rule, b[j].cfa_off, b[j].bp_rule, b[j].bp_off);
				break;
			}
		unwind_table_free(own);
		unwind_table_free(ref);
	}
}
