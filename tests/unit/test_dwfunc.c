/* sym/dwfunc on the graph workloads (tests/workloads/graph/graph_wl.c):
 * names, types and where each argument is at a uprobe, at -O0 and -O2. */
#include <errno.h>
#include <stdlib.h>
#include "test.h"
#include "sym/dwfunc.h"
#include "sym/elfsyms.h"

static char *wl_path(const char *name)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf), "%s/../tests/workloads/graph/%s", test_fixtures(), name);
	return buf;
}

static uint64_t sym_addr(const struct elfsyms *es, const char *name)
{
	struct elfsym_info si;

	for (size_t i = 0; i < elfsyms_count(es); i++)
		if (!elfsyms_symbol(es, i, &si) && !strcmp(si.name, name))
			return si.addr;
	return 0;
}

static struct dwfunc *describe(const char *file, const char *func)
{
	struct elfsyms *es = elfsyms_open(wl_path(file));
	struct dwfuncs *d = dwfuncs_open(wl_path(file));
	struct dwfunc *f = NULL;

	CHECK(es && d);
	if (es && d) {
		f = dwfuncs_describe(d, sym_addr(es, func));
		if (!f)
			test_fail(__FILE__, __LINE__, "%s in %s: no DWARF function", func, file);
	}
	dwfuncs_free(d);
	elfsyms_free(es);
	return f;
}

TEST(dwfunc_integer_widths)
{
	static const char *names[] = { "a", "b", "c", "d", "e", "f" };
	static const int kinds[] = { DWT_SINT, DWT_SINT, DWT_SINT, DWT_UINT, DWT_UINT, DWT_UINT };
	static const unsigned sizes[] = { 1, 2, 8, 1, 2, 4 };
	struct dwfunc *f = describe("graph_wl.O2", "widths");

	if (!f)
		return;
	CHECK_STR(f->name, "widths");
	CHECK_INT(f->nparams, 6);
	for (size_t i = 0; i < 6 && i < f->nparams; i++) {
		CHECK_STR(f->params[i].name, names[i]);
		CHECK_INT(f->params[i].type.kind, kinds[i]);
		CHECK_INT(f->params[i].type.size, sizes[i]);
		CHECK_INT(f->params[i].loc, DWLOC_REG);
		CHECK_INT(f->params[i].index, i);
	}
	CHECK_STR(f->params[0].type.name, "signed char");
	CHECK_INT(f->ret.kind, DWT_UINT);
	CHECK_INT(f->ret_loc, DWLOC_REG);
	dwfunc_free(f);
}

TEST(dwfunc_strings_enums_bools)
{
	struct dwfunc *f = describe("graph_wl.O2", "shout");

	if (f) {
		CHECK_INT(f->nparams, 2);
		CHECK_INT(f->params[0].type.kind, DWT_STR);
		CHECK_STR(f->params[0].type.name, "const char *");
		CHECK_INT(f->params[1].type.kind, DWT_ENUM);
		CHECK_STR(f->params[1].type.name, "enum color");
		CHECK_INT(f->params[1].type.nenums, 3);
		if (f->params[1].type.nenums == 3) {
			CHECK_STR(f->params[1].type.enums[1].name, "GREEN");
			CHECK_INT(f->params[1].type.enums[1].value, 1);
		}
		CHECK_INT(f->params[1].index, 1);
		dwfunc_free(f);
	}
	f = describe("graph_wl.O2", "is_even");
	if (f) {
		CHECK_INT(f->ret.kind, DWT_BOOL);
		CHECK_STR(f->ret.name, "_Bool");
		dwfunc_free(f);
	}
	f = describe("graph_wl.O2", "initial");
	if (f) {
		CHECK_INT(f->ret.kind, DWT_CHAR);
		dwfunc_free(f);
	}
	f = describe("graph_wl.O2", "nothing");
	if (f) {
		CHECK_INT(f->nparams, 0);
		CHECK_INT(f->ret.kind, DWT_VOID);
		dwfunc_free(f);
	}
}

TEST(dwfunc_struct_by_value_and_stack_args)
{
	struct dwfunc *f = describe("graph_wl.O2", "area");

	if (f) {
		CHECK_INT(f->nparams, 2);
		CHECK_INT(f->params[0].type.kind, DWT_AGG);
		CHECK_STR(f->params[0].type.name, "struct rect");
		CHECK_INT(f->params[0].loc, DWLOC_NONE);
		/* what follows a small struct is not placed by guess */
		CHECK_INT(f->params[1].loc, DWLOC_NONE);
		dwfunc_free(f);
	}
	f = describe("graph_wl.O2", "sum8");
	if (f) {
		CHECK_INT(f->nparams, 8);
		CHECK_INT(f->params[5].loc, DWLOC_REG);
		CHECK_INT(f->params[6].loc, DWLOC_NONE);
		CHECK_STR(f->params[6].why, "passed on the stack");
		dwfunc_free(f);
	}
	f = describe("graph_wl.O2", "manhattan");
	if (f) {
		CHECK_INT(f->params[0].type.kind, DWT_PTR);
		CHECK_STR(f->params[0].type.name, "const struct point *");
		dwfunc_free(f);
	}
}

TEST(dwfunc_doubles_late_at_O0_only)
{
	struct dwfunc *f = describe("graph_wl", "average");

	if (f) {
		CHECK_INT(f->nparams, 2);
		CHECK_INT(f->params[0].type.kind, DWT_FLOAT);
		CHECK_INT(f->params[0].loc, DWLOC_LATE);
		CHECK_INT(f->params[1].loc, DWLOC_LATE);
		CHECK_INT(f->nlate, 2);
		CHECK(f->late_addr > f->addr);
		CHECK_INT(f->late[0].size, 8);
		CHECK_INT(f->ret_loc, DWLOC_NONE);
		dwfunc_free(f);
	}
	f = describe("graph_wl.O2", "average");
	if (f) {
		CHECK_INT(f->params[0].loc, DWLOC_NONE);
		CHECK_STR(f->params[0].why, "in an SSE register");
		CHECK_INT(f->nlate, 0);
		dwfunc_free(f);
	}
}

TEST(dwfunc_without_dwarf)
{
	CHECK(!dwfuncs_open(wl_path("graph_wl.nodebug")));
	CHECK_INT(errno, ENODATA);
}
