/* Function signatures from DWARF, through libdw (and libdwfl for finding
 * separate debug files).
 *
 * dwfuncs_open() indexes the entry address of every function with code
 * (one pass over the compile units' subprograms); dwfuncs_describe()
 * reads one function's parameters and types when it is probed. */
#include <dwarf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <gelf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include "common.h"
#include "sym/dwfunc.h"
#include "sym/dwopen.h"

#define NGPR 6			/* SysV x86-64 integer argument registers */
#define DWREG_RSP 7

struct fentry {
	uint64_t addr;
	Dwarf_Off die;		/* offset of the DW_TAG_subprogram */
};

struct dwfuncs {
	struct dwopen o;
	Dwfl_Module *mod;	/* o's */
	Dwarf *dw;
	struct fentry *funcs;	/* sorted by addr */
	size_t n, cap;
	int err;		/* while indexing */
};

static int add_func(Dwarf_Die *die, void *arg)
{
	struct dwfuncs *d = arg;
	Dwarf_Addr pc;

	if (dwarf_hasattr(die, DW_AT_declaration) || dwarf_func_inline(die) ||
	    dwarf_entrypc(die, &pc) || !pc)
		return DWARF_CB_OK;
	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 256;
		struct fentry *p = realloc(d->funcs, cap * sizeof(*p));

		if (!p) {
			d->err = ENOMEM;
			return DWARF_CB_ABORT;
		}
		d->funcs = p;
		d->cap = cap;
	}
	d->funcs[d->n++] = (struct fentry){ pc, dwarf_dieoffset(die) };
	return DWARF_CB_OK;
}

static int fentry_cmp(const void *a, const void *b)
{
	const struct fentry *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

struct dwfuncs *dwfuncs_open(const char *path)
{
	struct dwfuncs *d = calloc(1, sizeof(*d));
	Dwarf_Off off = 0, next;
	size_t hsize;
	int err;

	if (!d)
		return NULL;
	err = -dwopen(&d->o, path, -1);
	if (err)
		goto free_d;
	d->mod = d->o.mod;
	d->dw = d->o.dw;
	if (!d->dw) {
		err = ENODATA;
		goto free_d;
	}
	while (dwarf_nextcu(d->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(d->dw, off + hsize, &cu))
			dwarf_getfuncs(&cu, add_func, d, 0);
		if (d->err) {
			err = d->err;
			goto free_d;
		}
		off = next;
	}
	if (!d->n) {
		err = ENODATA;
		goto free_d;
	}
	qsort(d->funcs, d->n, sizeof(*d->funcs), fentry_cmp);
	return d;

free_d:
	dwfuncs_free(d);
	errno = err;
	return NULL;
}

size_t dwfuncs_count(const struct dwfuncs *d)
{
	return d ? d->n : 0;
}

void dwfuncs_free(struct dwfuncs *d)
{
	if (!d)
		return;
	dwopen_close(&d->o);
	free(d->funcs);
	free(d);
}

/* ---- types ---------------------------------------------------------------- */

/* The type DIE die's DW_AT_type refers to; false for none (void). */
static bool type_of(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(die, DW_AT_type, &a) && dwarf_formref_die(&a, out);
}

static void cat(char *buf, size_t size, const char *s)
{
	size_t n = strlen(buf);

	if (n < size)
		snprintf(buf + n, size - n, "%s", s);
}

/* The C spelling of type t (NULL = void), written into buf. */
static void type_name(Dwarf_Die *t, char *buf, size_t size, int depth)
{
	Dwarf_Die inner;
	const char *name;
	char tmp[256];

	if (!t) {
		cat(buf, size, "void");
		return;
	}
	if (depth > 16) {
		cat(buf, size, "...");
		return;
	}
	name = dwarf_diename(t);
	switch (dwarf_tag(t)) {
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		tmp[0] = 0;
		type_name(type_of(t, &inner) ? &inner : NULL, tmp, sizeof(tmp), depth + 1);
		cat(buf, size, tmp);
		cat(buf, size, dwarf_tag(t) == DW_TAG_pointer_type ? " *" : " &");
		return;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type: {
		const char *q = dwarf_tag(t) == DW_TAG_const_type ? "const" :
				dwarf_tag(t) == DW_TAG_volatile_type ? "volatile" : "restrict";
		bool has = type_of(t, &inner);

		tmp[0] = 0;
		type_name(has ? &inner : NULL, tmp, sizeof(tmp), depth + 1);
		if (has && dwarf_tag(&inner) == DW_TAG_pointer_type) {
			cat(buf, size, tmp);
			cat(buf, size, " ");
			cat(buf, size, q);
		} else {
			cat(buf, size, q);
			cat(buf, size, " ");
			cat(buf, size, tmp);
		}
		return;
	}
	case DW_TAG_structure_type:
		cat(buf, size, "struct ");
		break;
	case DW_TAG_union_type:
		cat(buf, size, "union ");
		break;
	case DW_TAG_class_type:
		cat(buf, size, "class ");
		break;
	case DW_TAG_enumeration_type:
		cat(buf, size, "enum ");
		break;
	case DW_TAG_subroutine_type:
		cat(buf, size, "function");
		return;
	case DW_TAG_array_type:
		tmp[0] = 0;
		type_name(type_of(t, &inner) ? &inner : NULL, tmp, sizeof(tmp), depth + 1);
		cat(buf, size, tmp);
		cat(buf, size, "[]");
		return;
	}
	cat(buf, size, name ? name : "{...}");
}

static unsigned type_size(Dwarf_Die *t)
{
	Dwarf_Word w;

	return dwarf_aggregate_size(t, &w) == 0 && w < (1u << 30) ? (unsigned)w : 0;
}

static int read_enums(Dwarf_Die *t, struct dwtype *out)
{
	Dwarf_Die c;
	size_t cap = 0;

	if (dwarf_child(t, &c) != 0)
		return 0;
	do {
		Dwarf_Attribute a;
		Dwarf_Sword sv;
		Dwarf_Word uv;
		int64_t v;
		const char *name = dwarf_diename(&c);

		if (dwarf_tag(&c) != DW_TAG_enumerator || !name ||
		    !dwarf_attr(&c, DW_AT_const_value, &a))
			continue;
		if (out->is_signed) {
			if (dwarf_formsdata(&a, &sv))
				continue;
			v = sv;
		} else {
			if (dwarf_formudata(&a, &uv))
				continue;
			v = (int64_t)uv;
		}
		if (out->nenums == cap) {
			struct dwenum *p;

			cap = cap ? cap * 2 : 8;
			p = realloc(out->enums, cap * sizeof(*p));
			if (!p)
				return -ENOMEM;
			out->enums = p;
		}
		out->enums[out->nenums].value = v;
		out->enums[out->nenums].name = strdup(name);
		if (!out->enums[out->nenums].name)
			return -ENOMEM;
		out->nenums++;
	} while (dwarf_siblingof(&c, &c) == 0);
	return 0;
}

static bool is_char_base(Dwarf_Die *t)
{
	Dwarf_Attribute a;
	Dwarf_Word enc;
	const char *name = dwarf_diename(t);

	if (dwarf_tag(t) != DW_TAG_base_type || type_size(t) != 1 ||
	    !dwarf_attr(t, DW_AT_encoding, &a) || dwarf_formudata(&a, &enc))
		return false;
	return (enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char) && name &&
	       !strcmp(name, "char");
}

/* Describes the type die's DW_AT_type names (die NULL or no type: void). */
static int describe_type(Dwarf_Die *die, struct dwtype *out)
{
	Dwarf_Die raw, t, pointee;
	Dwarf_Attribute a;
	Dwarf_Word enc;
	char name[256] = "";
	bool has = die && type_of(die, &raw);

	type_name(has ? &raw : NULL, name, sizeof(name), 0);
	out->name = strdup(name);
	if (!out->name)
		return -ENOMEM;
	if (!has) {
		out->kind = DWT_VOID;
		return 0;
	}
	if (dwarf_peel_type(&raw, &t) != 0) {
		out->kind = DWT_OTHER;
		return 0;
	}
	out->size = type_size(&t);
	switch (dwarf_tag(&t)) {
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
	case DW_TAG_ptr_to_member_type:
		out->size = 8;
		out->kind = DWT_PTR;
		if (dwarf_tag(&t) == DW_TAG_pointer_type && type_of(&t, &raw) &&
		    dwarf_peel_type(&raw, &pointee) == 0 && is_char_base(&pointee))
			out->kind = DWT_STR;
		return 0;
	case DW_TAG_enumeration_type:
		out->kind = DWT_ENUM;
		out->is_signed = false;
		if (type_of(&t, &raw) && dwarf_peel_type(&raw, &pointee) == 0 &&
		    dwarf_attr(&pointee, DW_AT_encoding, &a) && !dwarf_formudata(&a, &enc))
			out->is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
		return read_enums(&t, out);
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_class_type:
		out->kind = DWT_AGG;
		return 0;
	case DW_TAG_base_type:
		break;
	default:
		out->kind = DWT_OTHER;
		return 0;
	}
	if (!dwarf_attr(&t, DW_AT_encoding, &a) || dwarf_formudata(&a, &enc)) {
		out->kind = DWT_OTHER;
		return 0;
	}
	out->kind = DWT_OTHER;
	switch (enc) {
	case DW_ATE_boolean:
		if (out->size >= 1 && out->size <= 8)
			out->kind = DWT_BOOL;
		break;
	case DW_ATE_signed_char:
	case DW_ATE_unsigned_char:
		/* plain char is a character; signed/unsigned char (int8_t,
		 * uint8_t) are numbers far more often */
		if (out->size == 1 && is_char_base(&t)) {
			out->kind = DWT_CHAR;
			out->is_signed = enc == DW_ATE_signed_char;
		} else if (out->size == 1) {
			out->kind = enc == DW_ATE_signed_char ? DWT_SINT : DWT_UINT;
		}
		break;
	case DW_ATE_signed:
	case DW_ATE_unsigned:
	case DW_ATE_UTF:
		if (out->size == 1 || out->size == 2 || out->size == 4 || out->size == 8)
			out->kind = enc == DW_ATE_signed ? DWT_SINT : DWT_UINT;
		break;
	case DW_ATE_float:
		if (out->size == 4 || out->size == 8)
			out->kind = DWT_FLOAT;
		break;
	}
	return 0;
}

/* ---- where the arguments are ---------------------------------------------- */

/* The address a debugger stops at for func: past the prologue, where an
 * -O0 build has stored its arguments in their stack slots.  The first line
 * row marked prologue_end, else the second distinct row in the function;
 * 0 when the line table does not say.  The function's first row is not
 * always at its start: with -pg -mfentry gcc opens it after the entry's
 * nop (or call), before the prologue. */
static uint64_t after_prologue(Dwarf_Die *func, uint64_t low)
{
	Dwarf_Die cu;
	Dwarf_Lines *lines;
	Dwarf_Addr high, best = 0, first = 0, second = 0;
	size_t n;

	if (dwarf_highpc(func, &high) || !dwarf_diecu(func, &cu, NULL, NULL) ||
	    dwarf_getsrclines(&cu, &lines, &n))
		return 0;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;
		bool pe = false, stmt = false, end = false;

		if (!l || dwarf_lineaddr(l, &a) || a < low || a >= high)
			continue;
		dwarf_lineendsequence(l, &end);
		dwarf_linebeginstatement(l, &stmt);
		if (end || !stmt)
			continue;
		if (a > low && !dwarf_lineprologueend(l, &pe) && pe && (!best || a < best))
			best = a;
		if (!first || a < first) {
			second = first && first != a ? first : second;
			first = a;
		} else if (a != first && (!second || a < second)) {
			second = a;
		}
	}
	return best ? best : second;
}

/* The CFA at addr as register + offset, from .eh_frame or .debug_frame. */
static int cfa_at(struct dwfuncs *d, uint64_t addr, int *reg, int64_t *off)
{
	Dwarf_CFI *cfis[2];
	Dwarf_Addr bias;

	cfis[0] = dwfl_module_eh_cfi(d->mod, &bias);
	cfis[1] = dwfl_module_dwarf_cfi(d->mod, &bias);
	for (int i = 0; i < 2; i++) {
		Dwarf_Frame *fr = NULL;
		Dwarf_Op *ops;
		size_t nops;
		int ok = -ENOENT;

		if (!cfis[i] || dwarf_cfi_addrframe(cfis[i], addr, &fr))
			continue;
		if (!dwarf_frame_cfa(fr, &ops, &nops) && nops == 1) {
			if (ops[0].atom == DW_OP_bregx) {
				*reg = (int)ops[0].number;
				*off = (int64_t)ops[0].number2;
				ok = 0;
			} else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
				*reg = ops[0].atom - DW_OP_breg0;
				*off = (int64_t)ops[0].number;
				ok = 0;
			}
		}
		free(fr);
		if (!ok)
			return 0;
	}
	return -ENOENT;
}

/* Where a single-op location says a value is in memory at addr, as
 * register + offset: DW_OP_fbreg (with the function's frame base) or
 * DW_OP_bregN. */
static int memory_at(struct dwfuncs *d, Dwarf_Die *func, Dwarf_Attribute *loc, uint64_t addr,
		     int *reg, int64_t *off)
{
	Dwarf_Attribute fba;
	Dwarf_Op *ops, *fbops;
	size_t nops, nfb;

	if (dwarf_getlocation_addr(loc, addr, &ops, &nops, 1) != 1 || nops != 1)
		return -ENOENT;
	if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg15) {
		*reg = ops[0].atom - DW_OP_breg0;
		*off = (int64_t)ops[0].number;
		return 0;
	}
	if (ops[0].atom != DW_OP_fbreg || !dwarf_attr_integrate(func, DW_AT_frame_base, &fba) ||
	    dwarf_getlocation_addr(&fba, addr, &fbops, &nfb, 1) != 1 || nfb != 1)
		return -ENOENT;
	if (fbops[0].atom == DW_OP_call_frame_cfa) {
		if (cfa_at(d, addr, reg, off))
			return -ENOENT;
	} else if (fbops[0].atom >= DW_OP_breg0 && fbops[0].atom <= DW_OP_breg15) {
		*reg = fbops[0].atom - DW_OP_breg0;
		*off = (int64_t)fbops[0].number;
	} else if (fbops[0].atom >= DW_OP_reg0 && fbops[0].atom <= DW_OP_reg15) {
		*reg = fbops[0].atom - DW_OP_reg0;
		*off = 0;
	} else {
		return -ENOENT;
	}
	*off += (int64_t)ops[0].number;
	return 0;
}

static bool int_class(const struct dwtype *t)
{
	switch (t->kind) {
	case DWT_SINT: case DWT_UINT: case DWT_BOOL: case DWT_CHAR:
	case DWT_ENUM: case DWT_PTR: case DWT_STR:
		return t->size >= 1 && t->size <= 8;
	default:
		return false;
	}
}

/* Assigns each parameter its place under the SysV x86-64 convention.
 * Integer-class arguments of up to 8 bytes take rdi, rsi, rdx, rcx, r8,
 * r9 in order; floats take xmm registers (unreadable from a uprobe, so
 * they wait for a late read); aggregates over 16 bytes and long double
 * go to memory without taking a register; an aggregate of 16 bytes or
 * less may take registers depending on its fields, which is not modelled,
 * so every integer argument after it is left unreadable. */
static void place_params(struct dwfunc *f, bool hidden_ret)
{
	int gpr = hidden_ret ? 1 : 0;
	const char *unsure = NULL;

	for (size_t i = 0; i < f->nparams; i++) {
		struct dwparam *p = &f->params[i];
		const struct dwtype *t = &p->type;

		p->loc = DWLOC_NONE;
		if (int_class(t)) {
			if (unsure) {
				p->why = unsure;
			} else if (gpr < NGPR) {
				p->loc = DWLOC_REG;
				p->index = gpr++;
			} else {
				p->why = "passed on the stack";
			}
		} else if (t->kind == DWT_FLOAT) {
			p->why = "in an SSE register";
		} else if (t->kind == DWT_AGG && t->size > 16) {
			p->why = "passed in memory";
		} else if (t->kind == DWT_AGG) {
			p->why = "struct passed in registers";
			unsure = "after a struct passed by value";
		} else if (t->kind == DWT_OTHER && t->size == 16 && !strcmp(t->name, "long double")) {
			p->why = "passed on the stack";
		} else {
			p->why = "type not handled";
			unsure = "after an argument of a type not handled";
		}
	}
}

/* Late reads for the float arguments an -O0 build spills to the stack. */
static void place_late(struct dwfuncs *d, Dwarf_Die *func, struct dwfunc *f, Dwarf_Die *pdies)
{
	uint64_t at = 0;

	for (size_t i = 0; i < f->nparams; i++) {
		struct dwparam *p = &f->params[i];
		Dwarf_Attribute loc;
		int reg;
		int64_t off;

		if (p->type.kind != DWT_FLOAT || f->nlate == DWFUNC_LATE_MAX)
			continue;
		if (!at)
			at = after_prologue(func, f->addr);
		if (!at)
			return;
		if (!dwarf_attr_integrate(&pdies[i], DW_AT_location, &loc) ||
		    memory_at(d, func, &loc, at, &reg, &off))
			continue;
		f->late[f->nlate] = (struct dwread){ reg, p->type.size, off };
		p->loc = DWLOC_LATE;
		p->index = f->nlate++;
		p->why = NULL;
	}
	if (f->nlate)
		f->late_addr = at;
}

static int add_param(struct dwfunc *f, Dwarf_Die **pdies, size_t *cap, Dwarf_Die *c)
{
	const char *name = dwarf_diename(c);
	struct dwparam *p;

	if (f->nparams == *cap) {
		size_t nc = *cap ? *cap * 2 : 8;
		struct dwparam *np = realloc(f->params, nc * sizeof(*np));
		Dwarf_Die *nd;

		if (!np)
			return -ENOMEM;
		f->params = np;
		nd = realloc(*pdies, nc * sizeof(*nd));
		if (!nd)
			return -ENOMEM;
		*pdies = nd;
		*cap = nc;
	}
	p = &f->params[f->nparams];
	memset(p, 0, sizeof(*p));
	(*pdies)[f->nparams++] = *c;
	p->name = strdup(name ? name : "");
	if (!p->name)
		return -ENOMEM;
	return describe_type(c, &p->type);
}

/* The formal parameters of die, in order; with none there, those of the
 * abstract origin (an out-of-line copy of an inline function). */
static int read_params(struct dwfunc *f, Dwarf_Die *die, Dwarf_Die **pdies, size_t *cap)
{
	Dwarf_Die c, origin;
	Dwarf_Attribute a;
	int err;

	if (dwarf_child(die, &c) == 0) {
		do {
			if (dwarf_tag(&c) == DW_TAG_formal_parameter) {
				err = add_param(f, pdies, cap, &c);
				if (err)
					return err;
			} else if (dwarf_tag(&c) == DW_TAG_unspecified_parameters) {
				f->varargs = true;
			}
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	if (!f->nparams && !f->varargs && dwarf_attr(die, DW_AT_abstract_origin, &a) &&
	    dwarf_formref_die(&a, &origin))
		return read_params(f, &origin, pdies, cap);
	return 0;
}

bool dwfuncs_has_entry(const struct dwfuncs *d, uint64_t vaddr)
{
	size_t lo = 0, hi = d ? d->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->funcs[mid].addr < vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return d && lo < d->n && d->funcs[lo].addr == vaddr;
}

struct dwfunc *dwfuncs_describe(struct dwfuncs *d, uint64_t vaddr)
{
	size_t lo = 0, hi = d ? d->n : 0, cap = 0;
	Dwarf_Die die, *pdies = NULL;
	struct dwfunc *f;
	const char *name;
	int err;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->funcs[mid].addr < vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!d || lo == d->n || d->funcs[lo].addr != vaddr ||
	    !dwarf_offdie(d->dw, d->funcs[lo].die, &die)) {
		errno = ENOENT;
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->addr = vaddr;
	name = dwarf_diename(&die);
	f->name = strdup(name ? name : "");
	err = f->name ? read_params(f, &die, &pdies, &cap) : -ENOMEM;
	if (!err)
		err = describe_type(&die, &f->ret);
	if (err)
		goto fail;
	f->ret_loc = DWLOC_NONE;
	if (f->ret.kind == DWT_VOID)
		f->ret_why = NULL;
	else if (int_class(&f->ret))
		f->ret_loc = DWLOC_REG;
	else if (f->ret.kind == DWT_FLOAT)
		f->ret_why = "in an SSE register";
	else if (f->ret.kind == DWT_AGG && f->ret.size > 16)
		f->ret_why = "returned in memory";
	else if (f->ret.kind == DWT_AGG)
		f->ret_why = "struct returned in registers";
	else
		f->ret_why = "type not handled";
	place_params(f, f->ret.kind == DWT_AGG && f->ret.size > 16);
	place_late(d, &die, f, pdies);
	free(pdies);
	return f;

fail:
	free(pdies);
	dwfunc_free(f);
	errno = -err;
	return NULL;
}

static void type_free(struct dwtype *t)
{
	free(t->name);
	for (size_t i = 0; i < t->nenums; i++)
		free(t->enums[i].name);
	free(t->enums);
}

void dwfunc_free(struct dwfunc *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nparams; i++) {
		free(f->params[i].name);
		type_free(&f->params[i].type);
	}
	free(f->params);
	type_free(&f->ret);
	free(f->name);
	free(f);
}
