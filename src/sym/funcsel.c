#include <errno.h>
#include <fnmatch.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common.h"
#include "sym/dwfunc.h"
#include "sym/funcsel.h"
#include "unwind/table.h"

/* Code the toolchain adds to every executable.  A wildcard never selects
 * it; _start and the .cold parts of split functions are never probed at
 * all: they are entered by a jump, not a call, and a return probe there
 * would take the caller's return address for theirs. */
static const char *const toolchain_funcs[] = {
	"_init", "_fini", "deregister_tm_clones", "register_tm_clones",
	"__do_global_dtors_aux", "frame_dummy", "__libc_csu_init", "__libc_csu_fini",
	"_dl_relocate_static_pie", "__x86.get_pc_thunk.*",
};

static bool never_probed(const char *name)
{
	return !strcmp(name, "_start") || strstr(name, ".cold");
}

static bool toolchain(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(toolchain_funcs); i++)
		if (!fnmatch(toolchain_funcs[i], name, 0))
			return true;
	return false;
}

static bool has_wildcard(const char *p)
{
	return strpbrk(p, "*?[") != NULL;
}

/* "LIB:GLOB" -> lib (allocated, or NULL for the executable) and glob. */
static int split_pattern(const char *pat, char **lib, const char **glob)
{
	const char *colon = strchr(pat, ':');

	*lib = NULL;
	*glob = pat;
	if (!colon)
		return 0;
	*lib = strndup(pat, colon - pat);
	*glob = colon + 1;
	return *lib ? 0 : -ENOMEM;
}

/* A library file name answers to name when they are equal, or when the
 * file name is name followed by "." or "-" (libc -> libc.so.6). */
bool funcsel_lib_matches(const char *path, const char *name)
{
	const char *base = strrchr(path, '/');
	size_t n = strlen(name);

	base = base ? base + 1 : path;
	if (strchr(name, '/'))
		return !strcmp(path, name);
	return !strcmp(base, name) || (!strncmp(base, name, n) && (base[n] == '.' || base[n] == '-'));
}

int funcsel_lib_from_maps(pid_t pid, const char *name, char *out, size_t size)
{
	char path[64], line[PATH_MAX + 256];
	FILE *f;
	int err = -ENOENT;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/');

		if (!p)
			continue;
		p[strcspn(p, "\n")] = 0;
		if (funcsel_lib_matches(p, name) && strlen(p) < size) {
			snprintf(out, size, "%s", p);
			err = 0;
			break;
		}
	}
	fclose(f);
	return err;
}

/* The DT_NEEDED names and the RUNPATH (else RPATH) of exe. */
static int read_dynamic(const char *exe, char ***needed, size_t *nneeded, char **runpath)
{
	Elf *elf;
	Elf_Scn *scn = NULL;
	int fd = open_regular(exe, NULL), err = 0;

	*needed = NULL;
	*nneeded = 0;
	*runpath = NULL;
	if (fd < 0)
		return fd;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf) {
		close(fd);
		return -EINVAL;
	}
	while ((scn = elf_nextscn(elf, scn)) && !err) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Dyn dyn;
			const char *s;

			if (!gelf_getdyn(d, (int)i, &dyn))
				break;
			if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_RUNPATH && dyn.d_tag != DT_RPATH)
				continue;
			s = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
			if (!s)
				continue;
			if (dyn.d_tag == DT_NEEDED) {
				char **p = realloc(*needed, (*nneeded + 1) * sizeof(*p));

				if (!p || !(p[*nneeded] = strdup(s))) {
					if (p)
						*needed = p;
					err = -ENOMEM;
					break;
				}
				*needed = p;
				(*nneeded)++;
			} else if (dyn.d_tag == DT_RUNPATH || !*runpath) {
				free(*runpath);
				*runpath = strdup(s);
			}
		}
		break;
	}
	elf_end(elf);
	close(fd);
	return err;
}

/* Looks for file in the colon-separated dirs ($ORIGIN = origin). */
static int search_dirs(const char *dirs, const char *origin, const char *file, char *out,
		       size_t size)
{
	while (dirs && *dirs) {
		size_t len = strcspn(dirs, ":");
		char dir[PATH_MAX];

		if (len >= 7 && !strncmp(dirs, "$ORIGIN", 7))
			snprintf(dir, sizeof(dir), "%s%.*s", origin, (int)(len - 7), dirs + 7);
		else
			snprintf(dir, sizeof(dir), "%.*s", (int)len, dirs);
		if (len && snprintf(out, size, "%s/%s", dir, file) < (int)size &&
		    access(out, R_OK) == 0)
			return 0;
		dirs += len + (dirs[len] == ':');
	}
	return -ENOENT;
}

static const char std_dirs[] =
	"/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:/lib64:/usr/lib64:/lib:/usr/lib:"
	"/usr/local/lib";

static int lib_from_needed(const char *exe, const char *name, char *out, size_t size)
{
	char **needed, *runpath, origin[PATH_MAX];
	const char *slash = strrchr(exe, '/');
	size_t n;
	int err;

	if (strchr(name, '/')) {
		snprintf(out, size, "%s", name);
		return access(name, R_OK) ? -errno : 0;
	}
	snprintf(origin, sizeof(origin), "%.*s", slash ? (int)(slash - exe) : 1,
		 slash ? exe : ".");
	err = read_dynamic(exe, &needed, &n, &runpath);
	if (err)
		return err;
	err = -ENOENT;
	/* a library the executable is linked with, else one named exactly
	 * (loaded with dlopen later) */
	for (size_t pass = 0; pass < 2 && err; pass++) {
		for (size_t i = 0; i <= n && err; i++) {
			const char *file = i < n ? needed[i] : name;

			if (pass == 0 ? (i == n || !funcsel_lib_matches(file, name)) : i < n)
				continue;
			if (!search_dirs(runpath, origin, file, out, size) ||
			    !search_dirs(getenv("LD_LIBRARY_PATH"), origin, file, out, size) ||
			    !search_dirs(std_dirs, origin, file, out, size))
				err = 0;
		}
	}
	for (size_t i = 0; i < n; i++)
		free(needed[i]);
	free(needed);
	free(runpath);
	return err;
}

/* The module for label (NULL: the executable), opened on first use. */
static int get_module(struct funcsel *fs, const char *exe, pid_t pid, const char *label)
{
	char path[PATH_MAX];
	struct funcsel_module *m;
	int err;

	for (size_t i = 0; i < fs->nmods; i++)
		if (label ? fs->mods[i].label && i && !strcmp(fs->mods[i].label, label) : i == 0)
			return (int)i;
	if (!label) {
		snprintf(path, sizeof(path), "%s", exe);
	} else {
		err = pid ? funcsel_lib_from_maps(pid, label, path, sizeof(path))
			  : lib_from_needed(exe, label, path, sizeof(path));
		if (err) {
			msg("library %s: not found %s", label,
			    pid ? "in the process's mappings" : "among the executable's libraries");
			return -ENOENT;
		}
	}
	m = realloc(fs->mods, (fs->nmods + 1) * sizeof(*m));
	if (!m)
		return -ENOMEM;
	fs->mods = m;
	m = &fs->mods[fs->nmods];
	memset(m, 0, sizeof(*m));
	m->path = strdup(path);
	m->label = strdup(label ? label : exe);
	m->es = elfsyms_open(path);
	if (!m->path || !m->label || !m->es) {
		err = errno ? -errno : -ENOMEM;
		msg("%s: cannot read its symbols: %s", path, strerror(-err));
		free(m->path);
		free(m->label);
		elfsyms_free(m->es);
		return err;
	}
	return (int)fs->nmods++;
}

static bool excluded(const struct funcsel *fs, size_t mod, const char *name, char **notrace,
		     int nnotrace)
{
	for (int i = 0; i < nnotrace; i++) {
		const char *colon = strchr(notrace[i], ':');
		const char *glob = colon ? colon + 1 : notrace[i];

		if (colon && (size_t)(colon - notrace[i]) == 6 && !strncmp(notrace[i], "kernel", 6))
			continue;
		if (colon && !(mod && !strncmp(fs->mods[mod].label, notrace[i], colon - notrace[i]) &&
			       !fs->mods[mod].label[colon - notrace[i]]))
			continue;
		if (!fnmatch(glob, name, 0))
			return true;
	}
	return false;
}

static int add_func(struct funcsel *fs, size_t mod, const struct elfsym_info *si, size_t *cap)
{
	uint64_t off;

	for (size_t i = 0; i < fs->nfuncs; i++)
		if (fs->funcs[i].module == mod && fs->funcs[i].addr == si->addr)
			return 0;
	if (elfsyms_vaddr_to_off(fs->mods[mod].es, si->addr, &off))
		return 0;
	if (fs->nfuncs == *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		struct funcsel_func *p = realloc(fs->funcs, c * sizeof(*p));

		if (!p)
			return -ENOMEM;
		fs->funcs = p;
		*cap = c;
	}
	fs->funcs[fs->nfuncs++] = (struct funcsel_func){ mod, si->name, si->addr, off, si->size,
							  off, false };
	return 0;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int func_cmp(const void *a, const void *b)
{
	const struct funcsel_func *x = a, *y = b;

	if (x->module != y->module)
		return x->module < y->module ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* A uprobe's int3 placed inside an instruction corrupts it: the traced
 * program crashes.  A symbol table can put a function anywhere, so a
 * start is probed only where an FDE of .eh_frame/.debug_frame or a DWARF
 * subprogram starts too (unless unsafe).  Drops the others from fs->funcs
 * (sorted) with a message; -ENOMEM. */
static int keep_boundaries(struct funcsel *fs, bool unsafe)
{
	size_t kept = 0, refused = 0;

	for (size_t m = 0; m < fs->nmods && !unsafe; m++) {
		struct dwfuncs *d = NULL;
		uint64_t *starts = NULL;
		size_t nstarts = 0;
		bool opened = false;

		for (size_t i = 0; i < fs->nfuncs; i++) {
			const struct funcsel_func *fn = &fs->funcs[i];

			if (fn->module != m)
				continue;
			if (!opened) {
				int err = unwind_fde_starts(fs->mods[m].path, &starts, &nstarts);

				if (err == -ENOMEM)
					return err;
				d = dwfuncs_open(fs->mods[m].path);
				opened = true;
			}
			if (bsearch(&fn->addr, starts, nstarts, sizeof(*starts), u64_cmp) ||
			    dwfuncs_has_entry(d, fn->addr)) {
				continue;
			}
			fs->funcs[i].off = UINT64_MAX;	/* refused */
			if (refused++ < 5)
				msg("%s: %s at 0x%" PRIx64 ": not probed: no FDE or DWARF function "
				    "starts there, so it may not be an instruction boundary "
				    "(--unsafe probes it anyway)", fs->mods[m].path, fn->name, fn->addr);
		}
		free(starts);
		dwfuncs_free(d);
	}
	if (refused > 5)
		msg("... and %zu more functions not probed for the same reason", refused - 5);
	for (size_t i = 0; i < fs->nfuncs; i++)
		if (fs->funcs[i].off != UINT64_MAX)
			fs->funcs[kept++] = fs->funcs[i];
	fs->nfuncs = kept;
	return 0;
}

/* The length of the nop (0f 1f /0, "nopl/nopw m", after 0x66 prefixes)
 * at code, or 0 when there is none (or it does not fit in n). */
static size_t nop_len(const uint8_t *code, size_t n)
{
	size_t i = 0, len;
	unsigned mod, rm;

	while (i < n && i < 4 && code[i] == 0x66)
		i++;
	if (i + 3 > n || code[i] != 0x0f || code[i + 1] != 0x1f || ((code[i + 2] >> 3) & 7))
		return 0;
	mod = code[i + 2] >> 6;
	rm = code[i + 2] & 7;
	len = i + 3;
	if (mod == 3)
		return 0;			/* a register operand: not the nop form */
	if (rm == 4) {				/* a SIB byte */
		if (len >= n)
			return 0;
		if (mod == 0 && (code[len] & 7) == 5)
			len += 4;		/* no base: disp32 */
		len++;
	} else if (mod == 0 && rm == 5) {
		len += 4;			/* rip-relative disp32 */
	}
	len += mod == 1 ? 1 : mod == 2 ? 4 : 0;
	return len <= n ? len : 0;
}

int funcsel_entry_nop5(const uint8_t *code, size_t n)
{
	static const uint8_t endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	size_t at = n >= 4 && !memcmp(code, endbr64, 4) ? 4 : 0;

	return nop_len(code + at, n - at) == 5 ? (int)at : -1;
}

/* Moves each function's probes onto the 5-byte nop it begins with, if
 * any, as its first bytes in the file say.  The kernel patches the nop
 * with a 5-byte call, which it does only within one page. */
static void find_entry_nops(struct funcsel *fs)
{
	long page = sysconf(_SC_PAGESIZE);

	for (size_t m = 0; m < fs->nmods; m++) {
		int fd = -1;

		for (size_t i = 0; i < fs->nfuncs; i++) {
			struct funcsel_func *fn = &fs->funcs[i];
			uint8_t code[9];
			ssize_t got;
			int at;

			if (fn->module != m)
				continue;
			if (fd < 0 && (fd = open_regular(fs->mods[m].path, NULL)) < 0)
				break;
			got = pread(fd, code, fn->size < sizeof(code) ? fn->size : sizeof(code),
				    (off_t)fn->off);
			at = got > 0 ? funcsel_entry_nop5(code, (size_t)got) : -1;
			if (at < 0 || (page > 5 && (fn->off + at) % page > (uint64_t)page - 5))
				continue;
			fn->probe_off = fn->off + at;
			fn->nop5 = true;
		}
		if (fd >= 0)
			close(fd);
	}
}

int funcsel_resolve(struct funcsel *fs, const char *exe, pid_t pid, char **funcs, int nfuncs,
		    char **notrace, int nnotrace, bool unsafe)
{
	size_t cap = 0;
	int err;

	memset(fs, 0, sizeof(*fs));
	err = get_module(fs, exe, pid, NULL);
	if (err < 0)
		return err;
	for (int p = 0; p < nfuncs; p++) {
		const char *glob;
		char *lib;
		size_t matched = 0, mod;
		struct elfsym_info si;

		err = split_pattern(funcs[p], &lib, &glob);
		if (err)
			return err;
		if (lib && !strcmp(lib, "kernel")) {
			char **k = realloc(fs->kernel, (fs->nkernel + 1) * sizeof(*k));

			free(lib);
			if (!k)
				return -ENOMEM;
			fs->kernel = k;
			fs->kernel[fs->nkernel++] = funcs[p];
			continue;
		}
		err = get_module(fs, exe, pid, lib);
		free(lib);
		if (err < 0)
			return err;
		mod = (size_t)err;
		for (size_t i = 0; i < elfsyms_count(fs->mods[mod].es); i++) {
			if (elfsyms_symbol(fs->mods[mod].es, i, &si) || !si.func ||
			    never_probed(si.name) || fnmatch(glob, si.name, 0) ||
			    (has_wildcard(glob) && toolchain(si.name)))
				continue;
			matched++;
			if (excluded(fs, mod, si.name, notrace, nnotrace))
				continue;
			err = add_func(fs, mod, &si, &cap);
			if (err)
				return err;
			if (fs->nfuncs > FUNCSEL_MAX) {
				msg("more than %d functions match (--func %s ...): narrow the patterns "
				    "or leave some out with --notrace", FUNCSEL_MAX, funcs[p]);
				return -E2BIG;
			}
		}
		if (!matched) {
			msg("--func %s: no function matches in %s", funcs[p], fs->mods[mod].path);
			return -ENOENT;
		}
	}
	if (fs->nfuncs > 1)
		qsort(fs->funcs, fs->nfuncs, sizeof(*fs->funcs), func_cmp);
	err = keep_boundaries(fs, unsafe);
	if (!err)
		find_entry_nops(fs);
	return err;
}

void funcsel_free(struct funcsel *fs)
{
	for (size_t i = 0; i < fs->nmods; i++) {
		free(fs->mods[i].path);
		free(fs->mods[i].label);
		elfsyms_free(fs->mods[i].es);
	}
	free(fs->mods);
	free(fs->funcs);
	free(fs->kernel);
	memset(fs, 0, sizeof(*fs));
}
