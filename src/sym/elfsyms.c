/* The function symbols of one ELF binary, looked up by file offset.
 *
 * Everything needed after opening is copied out of libelf (symbol names
 * into one arena), so the file is closed once elfsyms_open() returns.
 * Files are read with ELF_C_READ, not mmap: a binary truncated while we
 * read it then gives a read error instead of SIGBUS. */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common.h"

#include "sym/debugfile.h"
#include "sym/elfsyms.h"

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

#define BUILD_ID_MAX 64
#define PLT_ENTRY_SIZE 16

/* One function.  [addr, end) in link-time virtual addresses; end is
 * addr + st_size, or for a zero-size symbol the next symbol's start
 * bounded by its section's end.  name is an offset into names. */
struct esym {
	uint64_t addr;
	uint64_t end;
	size_t name;
	uint8_t sized;		/* st_size was nonzero */
	uint8_t bind;		/* 0 global, 1 weak, 2 local: aliases rank */
	uint8_t synthetic;	/* NAME@plt made from .rela.plt */
	uint8_t func;		/* some alias is an STT_FUNC with a size */
};

/* A PT_LOAD: file bytes [off, off + filesz) are loaded at vaddr. */
struct load {
	uint64_t off;
	uint64_t filesz;
	uint64_t vaddr;
};

/* syms sorted by addr, one per address; names holds their NUL-terminated
 * strings back to back.  All memory owned. */
struct elfsyms {
	char *name;
	struct esym *syms;
	size_t n, cap;
	char *names;
	size_t names_len, names_cap;
	struct load *loads;
	size_t nloads;
	unsigned char build_id[BUILD_ID_MAX];
	size_t build_id_len;
	int debug_file;
	uint64_t dev, ino;	/* of the file read (0/0: unknown) */
	bool capped;		/* more symbols than ELFSYMS_MAX_SYMS */
};

/* Per-section facts a symbol is checked against. */
struct secinfo {
	uint64_t addr;
	uint64_t size;
	uint64_t flags;
	uint32_t type;
	uint32_t link;
};

/* An open ELF file and what elfsyms reads from its section headers. */
struct elffile {
	int fd;
	int own_fd;
	Elf *elf;
	GElf_Ehdr ehdr;
	uint64_t fsize;
	dev_t dev;
	ino_t ino;
	struct secinfo *secs;
	size_t nsecs;
	size_t symtab, dynsym, debuglink, relplt, plt, pltsec; /* 0 = none */
	size_t ehframe, ehframe_hdr;
};

void elfsyms_set_debug_root(const char *dir)
{
	debugfile_set_root(dir);
}

static void elffile_close(struct elffile *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->own_fd && f->fd >= 0)
		close(f->fd);
	free(f->secs);
	memset(f, 0, sizeof(*f));
	f->fd = -1;
}

/* Opens fd as an ELF executable, shared library or debug file, checks
 * that its headers lie inside the file and records the sections elfsyms
 * reads.  -EINVAL for anything malformed. */
static int elffile_open(struct elffile *f, int fd, int own_fd)
{
	size_t shnum, phnum, shstrndx, i;
	struct stat st;
	int err;

	memset(f, 0, sizeof(*f));
	f->fd = fd;
	f->own_fd = own_fd;
	if (fstat(fd, &st)) {
		err = -errno;
		goto close_file;
	}
	if (!S_ISREG(st.st_mode)) {
		err = -EINVAL;
		goto close_file;
	}
	f->fsize = (uint64_t)st.st_size;
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	err = -EINVAL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		goto close_file;
	f->elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF || !gelf_getehdr(f->elf, &f->ehdr))
		goto close_file;
	if (f->ehdr.e_type != ET_EXEC && f->ehdr.e_type != ET_DYN)
		goto close_file;
	if (elf_getshdrnum(f->elf, &shnum) || elf_getphdrnum(f->elf, &phnum) ||
	    elf_getshdrstrndx(f->elf, &shstrndx))
		goto close_file;
	if (!range_ok(f->ehdr.e_phoff, (uint64_t)phnum * f->ehdr.e_phentsize, f->fsize) ||
	    !range_ok(f->ehdr.e_shoff, (uint64_t)shnum * f->ehdr.e_shentsize, f->fsize))
		goto close_file;
	f->secs = calloc(shnum ? shnum : 1, sizeof(*f->secs));
	if (!f->secs) {
		err = -ENOMEM;
		goto close_file;
	}
	f->nsecs = shnum;
	for (i = 1; i < shnum; i++) {
		Elf_Scn *scn = elf_getscn(f->elf, i);
		GElf_Shdr sh;
		const char *name;

		if (!scn || !gelf_getshdr(scn, &sh))
			goto close_file;
		if (sh.sh_type != SHT_NOBITS && !range_ok(sh.sh_offset, sh.sh_size, f->fsize))
			goto close_file;
		f->secs[i] = (struct secinfo){ sh.sh_addr, sh.sh_size, sh.sh_flags,
					       sh.sh_type, sh.sh_link };
		name = elf_strptr(f->elf, shstrndx, sh.sh_name);
		if (sh.sh_type == SHT_SYMTAB && !f->symtab)
			f->symtab = i;
		else if (sh.sh_type == SHT_DYNSYM && !f->dynsym)
			f->dynsym = i;
		if (!name || sh.sh_type == SHT_NOBITS)
			continue;
		if (!strcmp(name, ".gnu_debuglink"))
			f->debuglink = i;
		else if (!strcmp(name, ".rela.plt") || !strcmp(name, ".rel.plt"))
			f->relplt = i;
		else if (!strcmp(name, ".plt"))
			f->plt = i;
		else if (!strcmp(name, ".plt.sec"))
			f->pltsec = i;
		else if (!strcmp(name, ".eh_frame"))
			f->ehframe = i;
		else if (!strcmp(name, ".eh_frame_hdr"))
			f->ehframe_hdr = i;
	}
	return 0;

close_file:
	elffile_close(f);
	return err;
}

static Elf_Data *section_data(struct elffile *f, size_t idx, GElf_Shdr *sh)
{
	Elf_Scn *scn = elf_getscn(f->elf, idx);

	if (!scn || !gelf_getshdr(scn, sh) || sh->sh_type == SHT_NOBITS)
		return NULL;
	return elf_getdata(scn, NULL);
}

static int notes_build_id(Elf_Data *data, unsigned char *out, size_t *len)
{
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
		    memcmp((char *)data->d_buf + name_off, "GNU", 4))
			continue;
		if (!nh.n_descsz || nh.n_descsz > BUILD_ID_MAX)
			return -EINVAL;
		memcpy(out, (char *)data->d_buf + desc_off, nh.n_descsz);
		*len = nh.n_descsz;
		return 0;
	}
	return -ENOENT;
}

/* The GNU build id from the note sections, or without section headers
 * from the PT_NOTE segments. */
static int find_build_id(struct elffile *f, unsigned char *out, size_t *len)
{
	size_t i, phnum;
	GElf_Shdr sh;
	GElf_Phdr ph;
	Elf_Data *d;

	*len = 0;
	for (i = 1; i < f->nsecs; i++) {
		if (f->secs[i].type != SHT_NOTE)
			continue;
		d = section_data(f, i, &sh);
		if (d && !notes_build_id(d, out, len))
			return 0;
	}
	if (elf_getphdrnum(f->elf, &phnum))
		return -EINVAL;
	for (i = 0; i < phnum; i++) {
		if (!gelf_getphdr(f->elf, (int)i, &ph) || ph.p_type != PT_NOTE ||
		    !range_ok(ph.p_offset, ph.p_filesz, f->fsize))
			continue;
		d = elf_getdata_rawchunk(f->elf, (int64_t)ph.p_offset, ph.p_filesz,
					 ELF_T_NHDR);
		if (d && !notes_build_id(d, out, len))
			return 0;
	}
	return -ENOENT;
}

static int read_loads(struct elfsyms *es, struct elffile *f)
{
	size_t i, phnum;
	GElf_Phdr ph;

	if (elf_getphdrnum(f->elf, &phnum))
		return -EINVAL;
	es->loads = calloc(phnum ? phnum : 1, sizeof(*es->loads));
	if (!es->loads)
		return -ENOMEM;
	for (i = 0; i < phnum; i++) {
		if (!gelf_getphdr(f->elf, (int)i, &ph))
			return -EINVAL;
		if (ph.p_type != PT_LOAD || !ph.p_filesz)
			continue;
		es->loads[es->nloads++] = (struct load){ ph.p_offset, ph.p_filesz, ph.p_vaddr };
	}
	return es->nloads ? 0 : -EINVAL;
}

static int add_name(struct elfsyms *es, const char *name, const char *suffix, size_t *off)
{
	size_t n = strlen(name), m = suffix ? strlen(suffix) : 0;
	char *p;

	if (es->names_cap - es->names_len < n + m + 1) {
		size_t cap = es->names_cap ? es->names_cap : 4096;

		while (cap - es->names_len < n + m + 1)
			cap *= 2;
		p = realloc(es->names, cap);
		if (!p)
			return -ENOMEM;
		es->names = p;
		es->names_cap = cap;
	}
	p = es->names + es->names_len;
	memcpy(p, name, n);
	if (m)
		memcpy(p + n, suffix, m);
	p[n + m] = '\0';
	*off = es->names_len;
	es->names_len += n + m + 1;
	return 0;
}

static int add_sym(struct elfsyms *es, const struct esym *s, const char *name,
		   const char *suffix)
{
	if (es->n == es->cap) {
		size_t cap = es->cap ? es->cap * 2 : 256;
		struct esym *p = realloc(es->syms, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		es->syms = p;
		es->cap = cap;
	}
	es->syms[es->n] = *s;
	if (add_name(es, name, suffix, &es->syms[es->n].name))
		return -ENOMEM;
	es->n++;
	return 0;
}

/* Adds the function symbols of symbol table section idx of f: STT_FUNC,
 * STT_GNU_IFUNC and sized STT_NOTYPE, defined in an executable section.
 * Returns the number added or -errno. */
static int read_symtab(struct elfsyms *es, struct elffile *f, size_t idx)
{
	Elf_Data *data, *xdata = NULL;
	size_t i, n, added = 0, symsz;
	GElf_Shdr sh;

	data = section_data(f, idx, &sh);
	if (!data || sh.sh_link >= f->nsecs)
		return 0;
	symsz = gelf_fsize(f->elf, ELF_T_SYM, 1, EV_CURRENT);
	if (!symsz)
		return -EINVAL;
	/* extended section indices, for files with >= 0xff00 sections */
	for (i = 1; i < f->nsecs; i++) {
		if (f->secs[i].type == SHT_SYMTAB_SHNDX && f->secs[i].link == idx) {
			xdata = elf_getdata(elf_getscn(f->elf, i), NULL);
			break;
		}
	}
	n = data->d_size / symsz;
	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		Elf32_Word xndx = 0;
		const struct secinfo *sec;
		struct esym s = { 0 };
		const char *name;
		size_t shndx;
		int type, bind;

		if (!gelf_getsymshndx(data, xdata, (int)i, &sym, &xndx))
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		bind = GELF_ST_BIND(sym.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC &&
		    !(type == STT_NOTYPE && sym.st_size))
			continue;
		shndx = sym.st_shndx == SHN_XINDEX ? xndx : sym.st_shndx;
		if (sym.st_shndx == SHN_UNDEF || (sym.st_shndx >= SHN_LORESERVE &&
		    sym.st_shndx != SHN_XINDEX) || shndx >= f->nsecs)
			continue;
		sec = &f->secs[shndx];
		if (!(sec->flags & SHF_EXECINSTR))
			continue;
		s.addr = sym.st_value;
		if (f->ehdr.e_machine == EM_ARM)
			s.addr &= ~(uint64_t)1;	/* Thumb bit */
		if (!s.addr)
			continue;
		name = elf_strptr(f->elf, sh.sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		s.sized = sym.st_size != 0;
		if (s.sized)
			s.end = s.addr + sym.st_size < s.addr ? UINT64_MAX : s.addr + sym.st_size;
		else
			s.end = sec->addr + sec->size > s.addr ? sec->addr + sec->size : s.addr + 1;
		s.bind = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
		s.func = type == STT_FUNC && sym.st_size;
		/* one binary's table is bounded, whatever the file holds */
		if (es->n >= ELFSYMS_MAX_SYMS || es->names_len >= ELFSYMS_MAX_NAME_BYTES) {
			es->capped = true;
			continue;
		}
		if (add_sym(es, &s, name, NULL))
			return -ENOMEM;
		added++;
	}
	return added > INT_MAX ? INT_MAX : (int)added;
}

/* Synthetic NAME@plt symbols: the i-th .rela.plt relocation owns the
 * i-th PLT entry, in .plt.sec when the binary has one (IBT), else in
 * .plt after its header.  Only for the layouts known here. */
static int read_plt(struct elfsyms *es, struct elffile *f)
{
	uint64_t base, start, limit, hdr;
	size_t i, n, plt_idx;
	Elf_Data *rdata, *sdata;
	GElf_Shdr rsh, ssh;

	if (!f->relplt || (!f->plt && !f->pltsec))
		return 0;
	switch (f->ehdr.e_machine) {
	case EM_X86_64:
	case EM_386:
		hdr = f->pltsec ? 0 : 16;
		break;
	case EM_AARCH64:
		if (f->pltsec)
			return 0;
		hdr = 32;
		break;
	default:
		return 0;
	}
	plt_idx = f->pltsec ? f->pltsec : f->plt;
	start = f->secs[plt_idx].addr;
	limit = start + f->secs[plt_idx].size;
	base = start + hdr;
	rdata = section_data(f, f->relplt, &rsh);
	if (!rdata || !rsh.sh_entsize || rsh.sh_link >= f->nsecs)
		return 0;
	sdata = section_data(f, rsh.sh_link, &ssh);
	if (!sdata || ssh.sh_type != SHT_DYNSYM)
		return 0;
	n = rsh.sh_size / rsh.sh_entsize;
	for (i = 0; i < n; i++) {
		struct esym s = { .sized = 1, .bind = 0, .synthetic = 1 };
		uint64_t info;
		GElf_Sym sym;
		const char *name;

		if (rsh.sh_type == SHT_RELA) {
			GElf_Rela r;

			if (!gelf_getrela(rdata, (int)i, &r))
				break;
			info = r.r_info;
		} else {
			GElf_Rel r;

			if (!gelf_getrel(rdata, (int)i, &r))
				break;
			info = r.r_info;
		}
		s.addr = base + i * PLT_ENTRY_SIZE;
		s.end = s.addr + PLT_ENTRY_SIZE;
		if (s.end > limit || s.addr < base)
			break;
		/* IRELATIVE slots have no symbol */
		if (f->ehdr.e_ident[EI_CLASS] == ELFCLASS64 ? !GELF_R_SYM(info) : !ELF32_R_SYM(info))
			continue;
		if (!gelf_getsym(sdata, f->ehdr.e_ident[EI_CLASS] == ELFCLASS64 ?
				 (int)GELF_R_SYM(info) : (int)ELF32_R_SYM(info), &sym))
			continue;
		name = elf_strptr(f->elf, ssh.sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		if (add_sym(es, &s, name, "@plt"))
			return -ENOMEM;
	}
	return 0;
}

/* Reads the .gnu_debuglink name and CRC.  The name must be a plain file
 * name: it is joined to directories. */
static int read_debuglink(struct elffile *f, const char **name, uint32_t *crc)
{
	const unsigned char *b;
	GElf_Shdr sh;
	Elf_Data *d;
	size_t len, off;

	if (!f->debuglink)
		return -ENOENT;
	d = section_data(f, f->debuglink, &sh);
	if (!d || !d->d_buf || !d->d_size)
		return -ENOENT;
	b = d->d_buf;
	len = strnlen((const char *)b, d->d_size);
	off = (len + 4) & ~(size_t)3;
	if (!len || len == d->d_size || off + 4 > d->d_size || memchr(b, '/', len))
		return -EINVAL;
	if (f->ehdr.e_ident[EI_DATA] == ELFDATA2MSB)
		*crc = (uint32_t)b[off] << 24 | (uint32_t)b[off + 1] << 16 |
		       (uint32_t)b[off + 2] << 8 | b[off + 3];
	else
		*crc = (uint32_t)b[off + 3] << 24 | (uint32_t)b[off + 2] << 16 |
		       (uint32_t)b[off + 1] << 8 | b[off];
	*name = (const char *)b;
	return 0;
}

struct debug_try {
	struct elffile *dbg;
	const struct elffile *bin;
};

/* Takes fd as the debug file of bin when it is a different file of the
 * same machine with a .symtab (debugfile checked its place and id). */
static int take_debug_file(int fd, const char *path, void *arg)
{
	struct debug_try *t = arg;
	struct elffile *dbg = t->dbg;
	int err;

	err = elffile_open(dbg, fd, 1);
	if (err)
		return err;
	if ((dbg->dev == t->bin->dev && dbg->ino == t->bin->ino) || !dbg->symtab ||
	    dbg->ehdr.e_machine != t->bin->ehdr.e_machine ||
	    dbg->ehdr.e_ident[EI_CLASS] != t->bin->ehdr.e_ident[EI_CLASS]) {
		elffile_close(dbg);
		return -EINVAL;
	}
	return 0;
}

/* Finds the separate debug file of bin through debugfile_find(). */
static int open_debug_file(struct elffile *dbg, struct elffile *bin,
			   const struct elfsyms *es)
{
	struct debug_try t = { dbg, bin };
	struct debugref ref = { es->name, es->build_id, es->build_id_len, NULL, 0 };

	if (read_debuglink(bin, &ref.link, &ref.crc))
		ref.link = NULL;
	return debugfile_find(&ref, take_debug_file, &t);
}

static int underscores(const char *s)
{
	int n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* By address, then by name offset: integer compares only (the sort is
 * most of the load time of a big library); deterministic because name
 * offsets are unique. */
static int esym_cmp(const void *a, const void *b)
{
	const struct esym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

/* Nonzero when alias x is a better name than y: sized, real (not @plt),
 * global over weak over local, unversioned, fewer leading underscores,
 * shorter, then alphabetical. */
static int esym_better(const struct esym *x, const struct esym *y, const char *names)
{
	const char *xn = names + x->name, *yn = names + y->name;
	int d;

	if (x->sized != y->sized)
		return x->sized;
	if (x->synthetic != y->synthetic)
		return !x->synthetic;
	if (x->bind != y->bind)
		return x->bind < y->bind;
	d = (strchr(xn, '@') != NULL) - (strchr(yn, '@') != NULL);
	if (d)
		return d < 0;
	d = underscores(xn) - underscores(yn);
	if (d)
		return d < 0;
	d = (int)strlen(xn) - (int)strlen(yn);
	return d ? d < 0 : strcmp(xn, yn) < 0;
}

/* Sorts, keeps the best symbol per address and ends zero-size symbols
 * at the next one. */
static void finish_syms(struct elfsyms *es)
{
	size_t i, out = 0;
	struct esym *p;

	if (es->n > 1)
		qsort(es->syms, es->n, sizeof(*es->syms), esym_cmp);
	for (i = 0; i < es->n; i++) {
		if (out && es->syms[out - 1].addr == es->syms[i].addr) {
			uint8_t func = es->syms[out - 1].func | es->syms[i].func;

			if (esym_better(&es->syms[i], &es->syms[out - 1], es->names))
				es->syms[out - 1] = es->syms[i];
			es->syms[out - 1].func = func;
			continue;
		}
		es->syms[out++] = es->syms[i];
	}
	es->n = out;
	for (i = 0; i + 1 < es->n; i++)
		if (!es->syms[i].sized && es->syms[i + 1].addr < es->syms[i].end)
			es->syms[i].end = es->syms[i + 1].addr;
	if (es->n < es->cap) {
		p = realloc(es->syms, (es->n ? es->n : 1) * sizeof(*p));
		if (p) {
			es->syms = p;
			es->cap = es->n;
		}
	}
}

static uint32_t le32(const unsigned char *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Where the code at the entry point ends by .eh_frame: the end of the
 * FDE that covers entry, else the start of the next one; 0 when the
 * tables cannot tell.  Reads .eh_frame_hdr's search table in the layout
 * linkers write (initial locations as 4-byte offsets from the section,
 * sorted) and an FDE's range only when its pc_begin decodes, as a 4-byte
 * pc-relative value, to the table's location for it. */
static uint64_t entry_cfi_end(struct elffile *f, uint64_t entry)
{
	const unsigned char *h, *e;
	GElf_Shdr hsh, esh;
	Elf_Data *hd, *ed;
	uint64_t n, lo = 0, hi, start, fde, at;

	if (!f->ehframe_hdr || f->ehdr.e_ident[EI_DATA] != ELFDATA2LSB)
		return 0;
	hd = section_data(f, f->ehframe_hdr, &hsh);
	if (!hd || hd->d_size < 12)
		return 0;
	h = hd->d_buf;
	/* version 1; eh_frame_ptr 4 bytes; count udata4; table datarel sdata4 */
	if (h[0] != 1 || ((h[1] & 0x0f) != 0x03 && (h[1] & 0x0f) != 0x0b) ||
	    h[2] != 0x03 || h[3] != 0x3b)
		return 0;
	n = le32(h + 8);
	if (n > (hd->d_size - 12) / 8)
		return 0;
	h += 12;
	hi = n;
	while (lo < hi) {	/* lo: the first FDE starting after entry */
		uint64_t mid = lo + (hi - lo) / 2;

		if (hsh.sh_addr + (int32_t)le32(h + mid * 8) <= entry)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && f->ehframe) {
		start = hsh.sh_addr + (int32_t)le32(h + (lo - 1) * 8);
		fde = hsh.sh_addr + (int32_t)le32(h + (lo - 1) * 8 + 4);
		ed = section_data(f, f->ehframe, &esh);
		if (ed && fde >= esh.sh_addr && fde - esh.sh_addr + 16 <= ed->d_size) {
			e = (const unsigned char *)ed->d_buf + (fde - esh.sh_addr);
			at = fde + 8 + (int32_t)le32(e + 8);
			if (le32(e) != 0xffffffff && le32(e) >= 12 && le32(e + 4) && at == start &&
			    entry - start < le32(e + 12))
				return start + le32(e + 12);
		}
	}
	return lo < n ? hsh.sh_addr + (int32_t)le32(h + lo * 8) : 0;
}

/* Names the entry point "_start" when no symbol covers it: ld.so keeps
 * no .symtab and a stripped executable has no _start in .dynsym, yet a
 * process's first sample can land there (a timer interrupt taken during
 * execve is delivered at the first user instruction), and ld.so's own
 * start-up stacks begin there.  The name ends where the CFI says the
 * code ends or the next function starts, at the next symbol or at the
 * section's end; with no CFI to tell, it covers the entry address only. */
static int add_entry_name(struct elfsyms *es, struct elffile *f)
{
	struct esym s = { .addr = f->ehdr.e_entry, .sized = 1, .bind = 2 };
	size_t i, lo = 0, hi = es->n;
	uint64_t off, cfi_end;

	if (!s.addr || elfsyms_vaddr_to_off(es, s.addr, &off) || elfsyms_lookup(es, off, NULL))
		return 0;
	for (i = 1; i < f->nsecs; i++) {
		const struct secinfo *sec = &f->secs[i];

		if ((sec->flags & SHF_EXECINSTR) && sec->type != SHT_NOBITS &&
		    s.addr >= sec->addr && s.addr - sec->addr < sec->size) {
			s.end = sec->addr + sec->size;
			break;
		}
	}
	if (!s.end)
		return 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (es->syms[mid].addr <= s.addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < es->n && es->syms[lo].addr < s.end)
		s.end = es->syms[lo].addr;
	cfi_end = entry_cfi_end(f, s.addr);
	if (cfi_end <= s.addr)
		cfi_end = s.addr + 1;
	if (cfi_end < s.end)
		s.end = cfi_end;
	if (add_sym(es, &s, "_start", NULL))
		return -ENOMEM;
	/* add_sym appended it: move it to its place in address order */
	s = es->syms[es->n - 1];
	memmove(&es->syms[lo + 1], &es->syms[lo], (es->n - 1 - lo) * sizeof(s));
	es->syms[lo] = s;
	return 0;
}

struct elfsyms *elfsyms_open_fd(int fd, const char *name)
{
	struct elffile f, dbg = { .fd = -1 };
	struct elfsyms *es;
	int err, got = 0;
	struct stat st;

	es = calloc(1, sizeof(*es));
	if (!es)
		return NULL;
	es->name = strdup(name ? name : "");
	if (!es->name) {
		err = -ENOMEM;
		goto free_es;
	}
	err = elffile_open(&f, fd, 0);
	if (err)
		goto free_es;
	if (fstat(fd, &st) == 0) {
		es->dev = st.st_dev;
		es->ino = st.st_ino;
	}
	err = read_loads(es, &f);
	if (err)
		goto close_file;
	if (find_build_id(&f, es->build_id, &es->build_id_len))
		es->build_id_len = 0;
	if (f.symtab) {
		got = read_symtab(es, &f, f.symtab);
		if (got < 0) {
			err = got;
			goto close_file;
		}
	}
	if (!got && !open_debug_file(&dbg, &f, es)) {
		got = read_symtab(es, &dbg, dbg.symtab);
		elffile_close(&dbg);
		if (got < 0) {
			err = got;
			goto close_file;
		}
		es->debug_file = got > 0;
	}
	if (f.dynsym) {
		err = read_symtab(es, &f, f.dynsym);
		if (err < 0)
			goto close_file;
	}
	err = read_plt(es, &f);
	if (err)
		goto close_file;
	finish_syms(es);
	err = add_entry_name(es, &f);
	if (err)
		goto close_file;
	elffile_close(&f);
	if (es->capped)
		msg("%s: more function symbols than the %u (or %u MiB of names) a binary's table "
		    "holds: the rest left unnamed", es->name, ELFSYMS_MAX_SYMS,
		    ELFSYMS_MAX_NAME_BYTES >> 20);
	return es;

close_file:
	elffile_close(&f);
free_es:
	elfsyms_free(es);
	errno = -err;
	return NULL;
}

struct elfsyms *elfsyms_open(const char *path)
{
	struct elfsyms *es;
	int fd, err;

	fd = open_regular(path, NULL);
	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	es = elfsyms_open_fd(fd, path);
	err = errno;
	close(fd);
	errno = err;
	return es;
}

const char *elfsyms_name(const struct elfsyms *es)
{
	return es ? es->name : NULL;
}

const unsigned char *elfsyms_build_id(const struct elfsyms *es, size_t *len)
{
	if (!es || !es->build_id_len) {
		if (len)
			*len = 0;
		return NULL;
	}
	if (len)
		*len = es->build_id_len;
	return es->build_id;
}

int elfsyms_off_to_vaddr(const struct elfsyms *es, uint64_t off, uint64_t *vaddr)
{
	for (size_t i = 0; es && i < es->nloads; i++) {
		const struct load *l = &es->loads[i];

		if (off >= l->off && off - l->off < l->filesz) {
			*vaddr = off - l->off + l->vaddr;
			return 0;
		}
	}
	*vaddr = 0;
	return -ERANGE;
}

int elfsyms_vaddr_to_off(const struct elfsyms *es, uint64_t vaddr, uint64_t *off)
{
	for (size_t i = 0; es && i < es->nloads; i++) {
		const struct load *l = &es->loads[i];

		if (vaddr >= l->vaddr && vaddr - l->vaddr < l->filesz) {
			*off = vaddr - l->vaddr + l->off;
			return 0;
		}
	}
	*off = 0;
	return -ERANGE;
}

int elfsyms_symbol(const struct elfsyms *es, size_t i, struct elfsym_info *out)
{
	const struct esym *s;

	if (!es || i >= es->n)
		return -ERANGE;
	s = &es->syms[i];
	*out = (struct elfsym_info){
		.name = es->names + s->name,
		.addr = s->addr,
		.size = s->end - s->addr,
		.func = s->func && s->sized && !s->synthetic,
	};
	return 0;
}

/* How far back a lookup looks for a sized symbol that encloses smaller
 * ones (a function with local labels given sizes). */
#define ENCLOSING_SCAN 16

const char *elfsyms_lookup(const struct elfsyms *es, uint64_t off, uint64_t *sym_off)
{
	size_t lo = 0, hi, i, k;
	uint64_t va;

	if (!es || elfsyms_off_to_vaddr(es, off, &va))
		return NULL;
	hi = es->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (es->syms[mid].addr <= va)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo, k = 0; i > 0 && k < ENCLOSING_SCAN; i--, k++) {
		const struct esym *s = &es->syms[i - 1];

		if (va < s->end) {
			if (sym_off)
				*sym_off = va - s->addr;
			return es->names + s->name;
		}
	}
	return NULL;
}

size_t elfsyms_count(const struct elfsyms *es)
{
	return es ? es->n : 0;
}

int elfsyms_from_debug_file(const struct elfsyms *es)
{
	return es ? es->debug_file : 0;
}

bool elfsyms_same_file(const struct elfsyms *es, const struct stat *st)
{
	return (es->dev || es->ino) && (uint64_t)st->st_dev == es->dev &&
	       (uint64_t)st->st_ino == es->ino;
}

size_t elfsyms_bytes(const struct elfsyms *es)
{
	if (!es)
		return 0;
	return sizeof(*es) + strlen(es->name) + 1 + es->cap * sizeof(*es->syms) + es->names_cap +
	       es->nloads * sizeof(*es->loads);
}

void elfsyms_free(struct elfsyms *es)
{
	if (!es)
		return;
	free(es->name);
	free(es->syms);
	free(es->names);
	free(es->loads);
	free(es);
}
