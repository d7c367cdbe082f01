/* uprobe:PATH|LIB:FUNC[+OFFSET] and uretprobe:...: BPF_PROG_TYPE_KPROBE
 * programs on uprobe perf events; ctx is the traced thread's struct
 * pt_regs.  FUNC is a glob over the binary's function symbols, chosen
 * as graph chooses its functions (sym/funcsel): a function is probed only
 * where an FDE or a DWARF subprogram confirms its start as an instruction
 * boundary, and a +OFFSET inside it only with --unsafe (nothing here
 * decodes instructions).  LIB is a library name ("libc") found in the
 * maps of the -p process, else in the standard library directories (as
 * bpftrace finds it in the system's); a name without '/' that is no
 * library is a program looked up in PATH. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <gelf.h>
#include <libelf.h>
#include "common.h"
#include "lang/probe_int.h"
#include "sym/dwfunc.h"
#include "sym/elfsyms.h"
#include "sym/funcsel.h"
#include "trace/attach.h"

/* x86-64 struct pt_regs: where each register is saved */
enum {
	REG_R9 = 64, REG_R8 = 72, REG_AX = 80, REG_CX = 88, REG_DX = 96, REG_SI = 104,
	REG_DI = 112, REG_IP = 128, REG_SP = 152,
};
static const uint32_t arg_regs[] = { REG_DI, REG_SI, REG_DX, REG_CX, REG_R8, REG_R9 };

static bool is_elf(const char *path)
{
	unsigned char m[4];
	int fd = open_regular(path, NULL);
	bool ok;

	if (fd < 0)
		return false;
	ok = read(fd, m, 4) == 4 && !memcmp(m, "\177ELF", 4);
	close(fd);
	return ok;
}

static const char *const lib_dirs[] = {
	"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib",
	"/usr/lib", "/usr/local/lib",
};

/* The best file answering to name in dir: an ELF file, the shortest name
 * ("libc.so.6" over "libc.so.6.bak"), never a linker script ("libc.so"). */
static int from_dir(const char *dir, const char *name, char *out, size_t size)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char best[NAME_MAX + 1] = "", path[PATH_MAX];
	int scanned = 0;

	if (!d)
		return -ENOENT;
	while ((e = readdir(d)) && scanned++ < 100000) {
		if (!funcsel_lib_matches(e->d_name, name) || !strstr(e->d_name, ".so"))
			continue;
		if (best[0] && strlen(e->d_name) >= strlen(best))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (is_elf(path))
			snprintf(best, sizeof(best), "%s", e->d_name);
	}
	closedir(d);
	if (!best[0] || snprintf(out, size, "%s/%s", dir, best) >= (int)size)
		return -ENOENT;
	return 0;
}

static int from_path(const char *name, char *out, size_t size)
{
	const char *p = getenv("PATH");

	if (!p || !*p)
		p = "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin";
	while (*p) {
		size_t len = strcspn(p, ":");

		if (len && snprintf(out, size, "%.*s/%s", (int)len, p, name) < (int)size &&
		    !access(out, X_OK) && is_elf(out))
			return 0;
		p += len + (p[len] == ':');
	}
	return -ENOENT;
}

int uprobe_find_lib(const char *name, pid_t pid, char *out, size_t size)
{
	char lib[256];

	if (!*name)
		return -ENOENT;
	if (strchr(name, '/')) {
		if (snprintf(out, size, "%s", name) >= (int)size)
			return -ENAMETOOLONG;
		return access(name, R_OK) ? -errno : 0;
	}
	if (pid > 0)
		return funcsel_lib_from_maps(pid, name, out, size);
	for (size_t i = 0; i < ARRAY_SIZE(lib_dirs); i++)
		if (!from_dir(lib_dirs[i], name, out, size))
			return 0;
	/* "c" -> libc, as the linker's -lc */
	if (strncmp(name, "lib", 3) && snprintf(lib, sizeof(lib), "lib%s", name) < (int)sizeof(lib))
		for (size_t i = 0; i < ARRAY_SIZE(lib_dirs); i++)
			if (!from_dir(lib_dirs[i], lib, out, size))
				return 0;
	return from_path(name, out, size);
}

/* How many function symbols of es the glob matches. */
static size_t count_matches(const struct elfsyms *es, const char *glob)
{
	struct elfsym_info si;
	size_t n = 0;

	for (size_t i = 0; i < elfsyms_count(es); i++)
		if (!elfsyms_symbol(es, i, &si) && si.func && probes_glob(glob, si.name))
			n++;
	return n;
}

/* Calls fn for every defined function symbol of path's .symtab and
 * .dynsym, aliases included (sym/elfsyms keeps one name per address:
 * getpid is libc's __getpid there) until fn returns nonzero; that value,
 * 0, or -errno. */
static int each_elf_func(const char *path, int (*fn)(void *ctx, const char *name, uint64_t addr),
			 void *ctx)
{
	int fd = open_regular(path, NULL), ret = 0;
	Elf_Scn *scn = NULL;
	Elf *e;

	if (fd < 0)
		return fd;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	while (e && !ret && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t n;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
			continue;
		n = d->d_size / sh.sh_entsize;
		for (size_t i = 0; i < n && !ret; i++) {
			GElf_Sym sym;
			const char *sn;

			if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    sym.st_shndx == SHN_UNDEF || !sym.st_value)
				continue;
			sn = elf_strptr(e, sh.sh_link, sym.st_name);
			if (sn && *sn)
				ret = fn(ctx, sn, sym.st_value);
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return ret;
}

struct addr_of {
	const char *name;
	uint64_t addr;
};

static int match_name(void *ctx, const char *name, uint64_t addr)
{
	struct addr_of *a = ctx;

	if (strcmp(name, a->name))
		return 0;
	a->addr = addr;
	return 1;
}

/* The address of function name in path, aliases included: 0 or -ENOENT. */
static int elf_func_addr(const char *path, const char *name, uint64_t *addr)
{
	struct addr_of a = { name, 0 };

	if (each_elf_func(path, match_name, &a) != 1)
		return -ENOENT;
	*addr = a.addr;
	return 0;
}

static bool parse_addr(const char *s, uint64_t *out)
{
	char *end;

	if (!isdigit((unsigned char)s[0]))
		return false;
	errno = 0;
	*out = strtoull(s, &end, 0);
	return !errno && !*end;
}

static int add_point(struct lang_points *out, const struct lang_attach *at, const char *path,
		     const char *func, uint64_t addr, uint64_t off)
{
	char name[PATH_MAX + 300];
	struct lang_point *pt;

	snprintf(name, sizeof(name), "%s:%s:%s", lang_provider_name(at->provider), path, func);
	if (at->has_offset && at->offset)
		snprintf(name + strlen(name), sizeof(name) - strlen(name), "+%" PRIu64, at->offset);
	pt = lang_points_add(out, at, name);
	if (!pt)
		return -ENOMEM;
	pt->target = strdup(path);
	pt->func = strdup(func);
	if (!pt->target || !pt->func)
		return -ENOMEM;
	pt->prog_type = BPF_PROG_TYPE_KPROBE;
	pt->addr = addr;
	pt->offset = off;
	return 0;
}

static int up_expand(struct lang_probes *pr, const struct lang_attach *at, struct lang_points *out)
{
	const struct lang_probes_opts *o = probes_opts(pr);
	char path[PATH_MAX];
	pid_t pid = o->npids ? o->pids[0] : 0;
	struct elfsyms *es;
	struct funcsel fs;
	const char *alias = NULL;
	char *pats[1];
	uint64_t addr;
	int err;

	/* the launched command by its name (uprobe:myprog:main -- ./myprog) */
	if (o->cmd_path && !strchr(at->target, '/') && funcsel_lib_matches(o->cmd_path, at->target) &&
	    snprintf(path, sizeof(path), "%s", o->cmd_path) < (int)sizeof(path))
		err = 0;
	else
		err = uprobe_find_lib(at->target, pid, path, sizeof(path));
	if (err)
		return probes_error(pr, at, -ENOENT, "%s: %s: %s", at->text, at->target,
				    strchr(at->target, '/') ? strerror(-err) :
				    pid ? "no such library in the process's mappings" :
				    "no such library or program");
	es = elfsyms_open(path);
	if (!es)
		return probes_error(pr, at, -errno, "%s: %s: cannot read its symbols: %s", at->text,
				    path, strerror(errno));
	if (at->has_offset && at->offset && !o->unsafe) {
		elfsyms_free(es);
		return probes_error(pr, at, -EINVAL, "%s: offset %" PRIu64 " into %s may not be an "
				    "instruction boundary (nothing here decodes instructions); "
				    "--unsafe places it anyway", at->text, at->offset, at->func);
	}
	if (parse_addr(at->func, &addr)) {
		/* an address: the start of a function symbol (confirmed below) */
		uint64_t off, sym_off = 0;
		const char *sym = NULL;

		if (!elfsyms_vaddr_to_off(es, addr, &off))
			sym = elfsyms_lookup(es, off, &sym_off);
		if (!sym || (sym_off && !o->unsafe)) {
			elfsyms_free(es);
			return probes_error(pr, at, -EINVAL, "%s: 0x%" PRIx64 " is %s; --unsafe "
					    "places it anyway", at->text, addr,
					    sym ? "not a function's start" : "in no function of the file");
		}
		if (sym_off) {
			elfsyms_free(es);
			return add_point(out, at, path, at->func, addr, off);
		}
		pats[0] = (char *)sym;
	} else if (count_matches(es, at->func)) {
		pats[0] = (char *)at->func;
	} else {
		/* an alias of a function known by another name (getpid: __getpid) */
		uint64_t off, sym_off = 1;
		const char *sym = NULL;

		if (!strpbrk(at->func, "*?[") && !elf_func_addr(path, at->func, &addr) &&
		    !elfsyms_vaddr_to_off(es, addr, &off))
			sym = elfsyms_lookup(es, off, &sym_off);
		if (!sym || sym_off) {
			elfsyms_free(es);
			return probes_error(pr, at, -ENOENT, "%s: no function %s in %s", at->text,
					    at->func, path);
		}
		pats[0] = (char *)sym;
		alias = at->func;
	}
	err = funcsel_resolve(&fs, path, 0, pats, 1, NULL, 0, o->unsafe);
	elfsyms_free(es);
	if (err) {
		funcsel_free(&fs);
		return probes_error(pr, at, err, "%s: %s", at->text,
				    err == -E2BIG ? "too many functions match" : strerror(-err));
	}
	if (!fs.nfuncs)
		err = probes_error(pr, at, -EINVAL, "%s: no function start in %s could be confirmed "
				   "as an instruction boundary; --unsafe probes them anyway",
				   at->text, path);
	for (size_t i = 0; i < fs.nfuncs && !err; i++) {
		const struct funcsel_func *fn = &fs.funcs[i];
		uint64_t off = at->has_offset ? at->offset : 0;

		err = add_point(out, at, path, alias ? alias : fn->name, fn->addr + off, fn->off + off);
	}
	funcsel_free(&fs);
	return err;
}

static int up_argn(const struct lang_point *pt, unsigned n, struct lang_field_access *acc)
{
	if (n >= ARRAY_SIZE(arg_regs))
		return -ENOENT;
	acc->kind = LANG_ACC_INT;
	acc->base = LANG_BASE_REGS;
	acc->offset = arg_regs[n];
	acc->size = 8;
	acc->user = true;
	snprintf(acc->ctype, sizeof(acc->ctype), "u64");
	return 0;
}

/* bpftrace's spelling of a C type: no space before a '*' ("const char*",
 * "char**"), as its -lv lists them. */
static void bt_type_name(const char *name, char *out, size_t size)
{
	size_t n = 0;

	if (!name)
		name = "?";
	for (; *name && n + 1 < size; name++)
		if (!(*name == ' ' && name[1] == '*'))
			out[n++] = *name;
	out[n] = '\0';
}

/* How a value of DWARF type t in the register at offset reg is read:
 * integers by their width and sign, char * as a string pointer, other
 * pointers as integers.  0, or -EOPNOTSUPP with *why. */
static int type_access(const struct dwtype *t, uint32_t reg, struct lang_field_access *acc,
		       const char **why)
{
	acc->base = LANG_BASE_REGS;
	acc->offset = reg;
	acc->user = true;
	bt_type_name(t->name, acc->ctype, sizeof(acc->ctype));
	switch (t->kind) {
	case DWT_SINT: case DWT_UINT: case DWT_BOOL: case DWT_CHAR: case DWT_ENUM:
		if (t->size != 1 && t->size != 2 && t->size != 4 && t->size != 8)
			break;
		acc->kind = LANG_ACC_INT;
		/* the register's low bytes (x86-64 leaves the rest undefined) */
		acc->size = t->size;
		acc->is_signed = t->kind == DWT_SINT || ((t->kind == DWT_CHAR ||
							 t->kind == DWT_ENUM) && t->is_signed);
		return 0;
	case DWT_STR:
		acc->kind = LANG_ACC_STR_PTR;
		acc->size = 8;
		return 0;
	case DWT_PTR:
		acc->kind = LANG_ACC_PTR;
		acc->size = 8;
		return 0;
	default:
		break;
	}
	*why = t->kind == DWT_FLOAT ? "a floating-point value (in an SSE register)" :
	       t->kind == DWT_AGG ? "a struct or union by value" :
	       t->kind == DWT_VOID ? "void" : "of a type not read";
	return -EOPNOTSUPP;
}

/* A DWARF-typed parameter as a register read at entry. */
static int param_access(const struct dwparam *p, struct lang_field_access *acc, const char **why)
{
	if (p->loc != DWLOC_REG || p->index < 0 || p->index >= (int)ARRAY_SIZE(arg_regs)) {
		*why = p->type.kind == DWT_FLOAT ? "a floating-point value (in an SSE register)" :
		       p->type.kind == DWT_AGG ? "a struct or union by value" :
		       p->loc == DWLOC_LATE ? "read only after the function's prologue" :
		       p->why ? p->why : "not in a register at entry";
		return -EOPNOTSUPP;
	}
	return type_access(&p->type, arg_regs[p->index], acc, why);
}

struct up_priv {
	struct dwfunc *fn;
	int err;		/* the DWARF could not be read */
	bool said;		/* and that was said */
};

static void up_free(void *p)
{
	struct up_priv *u = p;

	if (u)
		dwfunc_free(u->fn);
	free(u);
}

/* The DWARF signature of the function at pt, cached in pt->priv; NULL
 * with u->err when the file has no DWARF or none for the function. */
static const struct dwfunc *up_load(struct lang_point *pt)
{
	struct up_priv *u = pt->priv;
	struct dwfuncs *d;

	if (u)
		return u->fn;
	u = calloc(1, sizeof(*u));
	if (!u)
		return NULL;
	pt->priv = u;
	errno = 0;
	d = dwfuncs_open(pt->target);
	if (!d) {
		u->err = errno ? -errno : -ENODATA;
		return NULL;
	}
	u->fn = dwfuncs_describe(d, pt->addr);
	if (!u->fn)
		u->err = -ENOENT;
	dwfuncs_free(d);
	return u->fn;
}

/* up_load(), the error said once. */
static const struct dwfunc *up_signature(struct lang_probes *pr, struct lang_point *pt)
{
	const struct dwfunc *fn = up_load(pt);
	struct up_priv *u = pt->priv;

	if (fn || !u || u->said)
		return fn;
	u->said = true;
	if (u->err == -ENODATA)
		probes_error(pr, pt->at, u->err, "%s: %s has no DWARF to name the arguments "
			     "(build it with -g): use arg0..arg5", pt->name, pt->target);
	else if (u->err == -ENOENT)
		probes_error(pr, pt->at, u->err, "%s: the DWARF of %s describes no function at "
			     "0x%" PRIx64 "; use arg0..arg5", pt->name, pt->target, pt->addr);
	else
		probes_error(pr, pt->at, u->err, "%s: the DWARF of %s cannot be read (%s): use "
			     "arg0..arg5", pt->name, pt->target, strerror(-u->err));
	return NULL;
}

/* retval: rax, typed by the function's DWARF return type when the file
 * has DWARF (a short's -5 is -5, a bool 0 or 1, a char * a string
 * pointer); else, or for a type not read from rax, the whole register. */
static int up_retval(const struct lang_point *cpt, struct lang_field_access *acc)
{
	struct lang_point *pt = (struct lang_point *)cpt;
	const struct dwfunc *fn;
	const char *why;

	if (pt->provider != LANG_P_URETPROBE)
		return -ENOENT;
	fn = up_load(pt);
	if (fn && fn->ret_loc == DWLOC_REG && !type_access(&fn->ret, REG_AX, acc, &why))
		return 0;
	memset(acc, 0, sizeof(*acc));
	acc->kind = LANG_ACC_INT;
	acc->base = LANG_BASE_REGS;
	acc->offset = REG_AX;
	acc->size = 8;
	acc->is_signed = true;
	acc->user = true;
	snprintf(acc->ctype, sizeof(acc->ctype), "u64");
	return 0;
}

static int up_field(struct lang_probes *pr, const struct lang_point *cpt, const char *field,
		    struct lang_field_access *acc)
{
	struct lang_point *pt = (struct lang_point *)cpt;
	const struct dwfunc *fn;
	const char *why = NULL;
	int err;

	if (pt->provider == LANG_P_URETPROBE)
		return probes_error(pr, pt->at, -EOPNOTSUPP, "%s: a uretprobe has no args (the "
				    "registers are the caller's again): use retval", pt->name);
	if (pt->at && pt->at->has_offset && pt->at->offset)
		return probes_error(pr, pt->at, -EOPNOTSUPP, "%s: args are read at the function's "
				    "entry, not at an offset into it", pt->name);
	fn = up_signature(pr, pt);
	if (!fn)
		return ((struct up_priv *)pt->priv) ? ((struct up_priv *)pt->priv)->err : -ENOMEM;
	for (size_t i = 0; i < fn->nparams; i++) {
		if (!fn->params[i].name || strcmp(fn->params[i].name, field))
			continue;
		err = param_access(&fn->params[i], acc, &why);
		if (err)
			return probes_error(pr, pt->at, err, "%s: args.%s cannot be read: %s",
					    pt->name, field, why);
		return 0;
	}
	return -ENOENT;
}

static int up_attach(struct session *s, struct lang_probes *pr, const struct lang_point *pt,
		     int prog_fd)
{
	const struct lang_probes_opts *o = probes_opts(pr);
	bool ret = pt->provider == LANG_P_URETPROBE;
	int err = 0;

	if (!o->npids)
		return attach_uprobe(s, prog_fd, pt->target, pt->offset, -1, pt->index, ret,
				     pt->name);
	for (int i = 0; i < o->npids && !err; i++)
		err = attach_uprobe(s, prog_fd, pt->target, pt->offset, o->pids[i], pt->index, ret,
				    pt->name);
	return err;
}

/* A list of names (copies), for listing. */
struct names {
	char **v;
	size_t n, cap;
};

/* 0 or -ENOMEM; at most a million names */
static int names_add(struct names *l, const char *name)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 1024;
		char **v;

		if (cap > 1000000)
			return 0;
		v = realloc(l->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n] = strdup(name);
	if (!l->v[l->n])
		return -ENOMEM;
	l->n++;
	return 0;
}

static int names_add_cb(void *ctx, const char *name, uint64_t addr)
{
	return names_add(ctx, name);
}

static void names_free(struct names *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "    TYPE NAME" per parameter of function name, as args.NAME reads it */
static void list_params(FILE *f, struct dwfuncs *dw, const char *path, const char *name)
{
	struct dwfunc *fn;
	uint64_t addr;

	if (elf_func_addr(path, name, &addr))
		return;
	fn = dwfuncs_describe(dw, addr);
	for (size_t i = 0; fn && i < fn->nparams; i++) {
		char t[256];

		bt_type_name(fn->params[i].type.name, t, sizeof(t));
		fprintf(f, "    %s %s\n", t,
			fn->params[i].name && *fn->params[i].name ? fn->params[i].name : "?");
	}
	dwfunc_free(fn);
}

/* "uprobe:TARGET:GLOB": the functions of TARGET */
static int up_list(struct lang_probes *pr, FILE *f, const char *pattern, bool verbose, bool ret)
{
	const struct lang_probes_opts *o = probes_opts(pr);
	const char *prov = ret ? "uretprobe:" : "uprobe:";
	char target[PATH_MAX], path[PATH_MAX], name[PATH_MAX + 300];
	const char *colon;
	struct elfsyms *es;
	struct elfsym_info si;
	struct names nl = { 0 };
	struct dwfuncs *dw = NULL;
	int count = 0;

	if (strncmp(pattern, prov, strlen(prov)))
		return 0;	/* no file named: nothing to list */
	colon = strchr(pattern + strlen(prov), ':');
	if (!colon || (size_t)(colon - pattern) - strlen(prov) >= sizeof(target))
		return 0;
	snprintf(target, sizeof(target), "%.*s", (int)(colon - pattern - strlen(prov)),
		 pattern + strlen(prov));
	if (strpbrk(target, "*?["))
		return 0;
	if (uprobe_find_lib(target, o->npids ? o->pids[0] : 0, path, sizeof(path))) {
		msg("-l: %s: no such library or program", target);
		return -ENOENT;
	}
	es = elfsyms_open(path);
	if (!es) {
		msg("-l: %s: cannot read its symbols: %s", path, strerror(errno));
		return -errno;
	}
	/* elfsyms' names (a separate debug file's too) and every alias of
	 * the file's own tables, once each, in name order */
	for (size_t i = 0; i < elfsyms_count(es); i++)
		if (!elfsyms_symbol(es, i, &si) && si.func && names_add(&nl, si.name))
			goto nomem;
	if (each_elf_func(path, names_add_cb, &nl) == -ENOMEM)
		goto nomem;
	if (nl.n > 1)
		qsort(nl.v, nl.n, sizeof(*nl.v), str_cmp);
	/* -lv: the parameters the DWARF gives, when there is DWARF */
	dw = verbose ? dwfuncs_open(path) : NULL;
	for (size_t i = 0; i < nl.n; i++) {
		if (i && !strcmp(nl.v[i], nl.v[i - 1]))
			continue;
		snprintf(name, sizeof(name), "%s%s:%s", prov, target, nl.v[i]);
		if (!probes_glob(pattern, name))
			continue;
		fprintf(f, "%s%s:%s\n", prov, path, nl.v[i]);
		count++;
		if (dw)
			list_params(f, dw, path, nl.v[i]);
	}
	dwfuncs_free(dw);
	names_free(&nl);
	elfsyms_free(es);
	return count;
nomem:
	names_free(&nl);
	dwfuncs_free(dw);
	elfsyms_free(es);
	msg("-l: out of memory");
	return -ENOMEM;
}

static int uprobe_list(struct lang_probes *pr, FILE *f, const char *pattern, bool verbose)
{
	return up_list(pr, f, pattern, verbose, false);
}

static int uretprobe_list(struct lang_probes *pr, FILE *f, const char *pattern, bool verbose)
{
	return up_list(pr, f, pattern, verbose, true);
}

const struct lang_provider_ops lang_uprobe_ops = {
	.provider = LANG_P_UPROBE, .expand = up_expand, .field = up_field, .argn = up_argn,
	.retval = up_retval, .attach = up_attach, .list = uprobe_list, .free_priv = up_free,
};
const struct lang_provider_ops lang_uretprobe_ops = {
	.provider = LANG_P_URETPROBE, .expand = up_expand, .field = up_field, .argn = up_argn,
	.retval = up_retval, .attach = up_attach, .list = uretprobe_list, .free_priv = up_free,
};
