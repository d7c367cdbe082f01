/* USDT notes and their argument strings (see usdt.h). */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gelf.h>
#include <libelf.h>
#include "common.h"
#include "sym/usdt.h"

/* x86-64 registers by every name: struct pt_regs offset, width, shift */
struct usdt_reg {
	const char *name;
	int16_t off;
	uint8_t size, shift;
};

enum {
	R15 = 0, R14 = 8, R13 = 16, R12 = 24, RBP = 32, RBX = 40, R11 = 48, R10 = 56, R9 = 64,
	R8 = 72, RAX = 80, RCX = 88, RDX = 96, RSI = 104, RDI = 112, RIP = USDT_REG_IP, RSP = 152,
};

#define LEGACY(q, l, off)						\
	{ "r" q "x", off, 8, 0 }, { "e" q "x", off, 4, 0 }, { q "x", off, 2, 0 },	\
	{ q "l", off, 1, 0 }, { q "h", off, 1, 8 }
#define PAIR(w, off)							\
	{ "r" w, off, 8, 0 }, { "e" w, off, 4, 0 }, { w, off, 2, 0 }, { w "l", off, 1, 0 }
#define NUMBERED(n, off)						\
	{ "r" n, off, 8, 0 }, { "r" n "d", off, 4, 0 }, { "r" n "w", off, 2, 0 },	\
	{ "r" n "b", off, 1, 0 }, { "r" n "l", off, 1, 0 }

static const struct usdt_reg regs[] = {
	LEGACY("a", "al", RAX), LEGACY("b", "bl", RBX), LEGACY("c", "cl", RCX),
	LEGACY("d", "dl", RDX),
	PAIR("si", RSI), PAIR("di", RDI), PAIR("bp", RBP), PAIR("sp", RSP),
	NUMBERED("8", R8), NUMBERED("9", R9), NUMBERED("10", R10), NUMBERED("11", R11),
	NUMBERED("12", R12), NUMBERED("13", R13), NUMBERED("14", R14), NUMBERED("15", R15),
	{ "rip", RIP, 8, 0 }, { "eip", RIP, 4, 0 },
};

/* "%NAME" at *s (len bytes left): the register, *s moved past it */
static const struct usdt_reg *parse_reg(const char **s, const char *end)
{
	const char *p = *s;
	size_t n = 0;

	if (p >= end || *p != '%')
		return NULL;
	p++;
	while (p + n < end && n < 8 && isalnum((unsigned char)p[n]))
		n++;
	for (size_t i = 0; i < ARRAY_SIZE(regs); i++)
		if (strlen(regs[i].name) == n && !strncmp(regs[i].name, p, n)) {
			*s = p + n;
			return &regs[i];
		}
	return NULL;
}

/* [-]NUM (decimal, 0x hex, 0 octal) at *s, at most 64 bits */
static bool parse_num(const char **s, const char *end, int64_t *out)
{
	char buf[32];
	const char *p = *s;
	size_t n = 0;
	char *stop;

	while (p + n < end && n < sizeof(buf) - 1 &&
	       (isalnum((unsigned char)p[n]) || (n == 0 && (p[n] == '-' || p[n] == '+'))))
		n++;
	if (!n || n == sizeof(buf) - 1)
		return false;
	memcpy(buf, p, n);
	buf[n] = 0;
	errno = 0;
	if (buf[0] == '-') {
		*out = strtoll(buf, &stop, 0);
	} else {
		/* 18000000000000000000 fits in 64 bits as unsigned */
		uint64_t u = strtoull(buf, &stop, 0);

		*out = (int64_t)u;
	}
	if (errno || *stop || !isdigit((unsigned char)buf[buf[0] == '-' || buf[0] == '+']))
		return false;
	*s = p + n;
	return true;
}

static bool sym_char(char c, bool first)
{
	return isalpha((unsigned char)c) || c == '_' || c == '.' || c == '$' ||
	       (!first && isdigit((unsigned char)c));
}

int usdt_parse_arg(const char *s, size_t len, struct usdt_arg *a, const char **why)
{
	const char *end = s + len, *p = s;
	const struct usdt_reg *r;
	int64_t size;

	memset(a, 0, sizeof(*a));
	a->reg = a->index = USDT_REG_NONE;
	a->is_signed = p < end && *p == '-';
	if (a->is_signed)
		p++;
	if (p >= end || !isdigit((unsigned char)*p)) {
		*why = "an argument does not start with its size";
		return -EINVAL;
	}
	size = *p++ - '0';
	if (p < end && isdigit((unsigned char)*p))
		size = size * 10 + (*p++ - '0');
	if (p < end && *p == 'f') {
		*why = "a floating-point argument (not read)";
		return -EINVAL;
	}
	if (size != 1 && size != 2 && size != 4 && size != 8) {
		*why = "an argument's size is not 1, 2, 4 or 8";
		return -EINVAL;
	}
	a->size = (uint8_t)size;
	if (p >= end || *p++ != '@') {
		*why = "an argument has no '@' after its size";
		return -EINVAL;
	}
	if (p < end && *p == '$') {
		p++;
		a->kind = USDT_ARG_CONST;
		if (!parse_num(&p, end, &a->value) || p != end) {
			*why = "a constant argument is not a number";
			return -EINVAL;
		}
		return 0;
	}
	if (p < end && *p == '%') {
		r = parse_reg(&p, end);
		if (!r || p != end || r->off == RIP) {
			*why = "an argument names no x86-64 register";
			return -EINVAL;
		}
		a->kind = USDT_ARG_REG;
		a->reg = r->off;
		a->reg_size = r->size;
		a->reg_shift = r->shift;
		return 0;
	}
	/* memory: [SYM][+-NUM] or NUM, then (BASE[,INDEX[,SCALE]]) */
	a->kind = USDT_ARG_MEM;
	a->scale = 1;
	if (p < end && sym_char(*p, true)) {
		size_t n = 0;

		while (p + n < end && sym_char(p[n], false))
			n++;
		if (n >= sizeof(a->sym)) {
			*why = "an argument's symbol name is too long";
			return -EINVAL;
		}
		memcpy(a->sym, p, n);
		a->sym[n] = 0;
		p += n;
		if (p < end && (*p == '+' || *p == '-') && !parse_num(&p, end, &a->value)) {
			*why = "an argument's symbol offset is not a number";
			return -EINVAL;
		}
	} else if (p < end && *p != '(' && !parse_num(&p, end, &a->value)) {
		*why = "an argument's displacement is not a number";
		return -EINVAL;
	}
	if (p == end) {
		/* an absolute address: a symbol (non-PIC code) */
		if (!a->sym[0]) {
			*why = "an argument is an absolute address";
			return -EINVAL;
		}
		return 0;
	}
	if (*p++ != '(') {
		*why = "an argument's memory operand is malformed";
		return -EINVAL;
	}
	if (p < end && *p == '%') {
		r = parse_reg(&p, end);
		if (!r || r->size < 4) {
			*why = "an argument's base register is not an address register";
			return -EINVAL;
		}
		a->reg = r->off;
	}
	if (p < end && *p == ',') {
		p++;
		r = parse_reg(&p, end);
		if (!r || r->size < 4 || r->off == RIP) {
			*why = "an argument's index register is not an address register";
			return -EINVAL;
		}
		a->index = r->off;
		if (p < end && *p == ',') {
			int64_t sc;

			p++;
			if (!parse_num(&p, end, &sc) || (sc != 1 && sc != 2 && sc != 4 && sc != 8)) {
				*why = "an argument's scale is not 1, 2, 4 or 8";
				return -EINVAL;
			}
			a->scale = (uint8_t)sc;
		}
	}
	if (p >= end || *p++ != ')' || p != end) {
		*why = "an argument's memory operand is malformed";
		return -EINVAL;
	}
	if (a->reg == RIP && !a->sym[0]) {
		*why = "an argument is %rip-relative without a symbol";
		return -EINVAL;
	}
	if (a->sym[0] && a->reg != RIP && a->reg != USDT_REG_NONE) {
		*why = "an argument adds a symbol to a register (not read)";
		return -EINVAL;
	}
	return 0;
}

int usdt_parse_args(const char *s, struct usdt_arg *args, unsigned max, unsigned *n,
		    const char **why)
{
	unsigned count = 0;

	*n = 0;
	for (;;) {
		size_t len;

		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		len = strcspn(s, " \t");
		if (count >= max) {
			*why = "more arguments than sys/sdt.h allows";
			return -EINVAL;
		}
		if (usdt_parse_arg(s, len, &args[count], why))
			return -EINVAL;
		count++;
		s += len;
	}
	*n = count;
	return 0;
}

/* ---- the notes ------------------------------------------------------ */

/* The file offset of vaddr in the file bytes of a PT_LOAD segment with
 * the flags (PF_X for code, PF_W for a semaphore): 0 or -ENOENT. */
static int vaddr_off(Elf *e, uint64_t vaddr, uint32_t flags, uint64_t *off)
{
	size_t n;

	if (elf_getphdrnum(e, &n))
		return -ENOENT;
	for (size_t i = 0; i < n && i < 4096; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    (ph.p_flags & flags) != flags)
			continue;
		if (vaddr >= ph.p_vaddr && vaddr - ph.p_vaddr < ph.p_filesz) {
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -ENOENT;
}

/* A symbol's value by name (.symtab, then .dynsym): 0 or -ENOENT. */
static int sym_value(Elf *e, const char *name, uint64_t *val)
{
	for (int pass = 0; pass < 2; pass++) {
		Elf_Scn *scn = NULL;

		while ((scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;
			Elf_Data *d;
			size_t n;

			if (!gelf_getshdr(scn, &sh) ||
			    sh.sh_type != (pass ? SHT_DYNSYM : SHT_SYMTAB) || !sh.sh_entsize ||
			    !(d = elf_getdata(scn, NULL)))
				continue;
			n = d->d_size / sh.sh_entsize;
			for (size_t i = 0; i < n && i < 10000000; i++) {
				GElf_Sym sym;
				const char *sn;

				if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
					continue;
				sn = elf_strptr(e, sh.sh_link, sym.st_name);
				if (sn && !strcmp(sn, name)) {
					*val = sym.st_value;
					return 0;
				}
			}
		}
	}
	return -ENOENT;
}

/* A NUL-terminated string of at most USDT_MAX_STR at *p (before end) */
static const char *take_str(const char **p, const char *end)
{
	const char *s = *p;
	const char *nul = memchr(s, 0, (size_t)(end - s));

	if (!nul || nul - s >= USDT_MAX_STR)
		return NULL;
	*p = nul + 1;
	return s;
}

static void probe_free(struct usdt_probe *p)
{
	free(p->provider);
	free(p->name);
	free(p->args);
}

void usdt_notes_free(struct usdt_notes *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->n; i++)
		probe_free(&n->v[i]);
	free(n->v);
	n->v = NULL;
	n->n = 0;
}

/* One note's description (desc, size bytes): 0, -EINVAL (*why said), or
 * -ENOMEM. */
static int read_note(Elf *e, int elfclass, const char *desc, size_t size, bool have_base,
		     uint64_t base_addr, struct usdt_probe *p, const char **why)
{
	size_t w = elfclass == ELFCLASS32 ? 4 : 8;
	const char *q = desc + 3 * w, *end = desc + size, *prov, *name, *args;
	uint64_t pc = 0, base = 0, sem = 0;

	memset(p, 0, sizeof(*p));
	if (size < 3 * w + 3) {
		*why = "a note too short for its addresses and names";
		return -EINVAL;
	}
	if (w == 8) {
		memcpy(&pc, desc, 8);
		memcpy(&base, desc + 8, 8);
		memcpy(&sem, desc + 16, 8);
	} else {
		uint32_t v[3];

		memcpy(v, desc, sizeof(v));
		pc = v[0];
		base = v[1];
		sem = v[2];
	}
	prov = take_str(&q, end);
	name = prov ? take_str(&q, end) : NULL;
	args = name && q < end ? take_str(&q, end) : name ? "" : NULL;
	if (!args || !*prov || !*name) {
		*why = "a note whose provider, name or arguments are not strings";
		return -EINVAL;
	}
	/* prelink moved the file: .stapsdt.base says by how much */
	if (have_base && base) {
		pc += base_addr - base;
		if (sem)
			sem += base_addr - base;
	}
	p->pc = pc;
	p->sem = sem;
	if (vaddr_off(e, pc, PF_X, &p->off)) {
		*why = "a probe address outside the file's code";
		return -EINVAL;
	}
	if (sem && (vaddr_off(e, sem, PF_W, &p->sem_off) || !p->sem_off)) {
		*why = "a semaphore outside the file's data";
		return -EINVAL;
	}
	p->provider = strdup(prov);
	p->name = strdup(name);
	p->args = strdup(args);
	if (!p->provider || !p->name || !p->args) {
		probe_free(p);
		return -ENOMEM;
	}
	if (usdt_parse_args(args, p->arg, USDT_MAX_ARGS, &p->nargs, &p->why)) {
		p->nargs = 0;
		return 0;
	}
	/* symbols: %rip-relative from the probe's own address, or absolute */
	for (unsigned i = 0; i < p->nargs; i++) {
		struct usdt_arg *a = &p->arg[i];
		uint64_t v;

		if (!a->sym[0])
			continue;
		if (sym_value(e, a->sym, &v)) {
			p->why = "an argument names a symbol the file does not define";
			p->nargs = 0;
			break;
		}
		a->value += (int64_t)(v - (a->reg == USDT_REG_IP ? pc : 0));
	}
	return 0;
}

static int read_elf(Elf *e, const char *what, struct usdt_notes *out)
{
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	size_t shstrndx, cap = 0;
	uint64_t base_addr = 0;
	bool have_base = false;
	const char *first = NULL;
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (!gelf_getehdr(e, &eh) || elf_getshdrstrndx(e, &shstrndx))
		return -ENOEXEC;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *sn;

		if (gelf_getshdr(scn, &sh) && (sn = elf_strptr(e, shstrndx, sh.sh_name)) &&
		    !strcmp(sn, ".stapsdt.base")) {
			have_base = true;
			base_addr = sh.sh_addr;
		}
	}
	while (!err && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t off = 0, next, name_off, desc_off;
		GElf_Nhdr nh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    !(d = elf_getdata(scn, NULL)) || !d->d_buf)
			continue;
		while (!err && off < d->d_size &&
		       (next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > off) {
			const char *why = NULL;
			struct usdt_probe *p;

			off = next;
			if (nh.n_type != 3 || nh.n_namesz != 8 ||
			    memcmp((char *)d->d_buf + name_off, "stapsdt", 8))
				continue;
			if (!range_ok(desc_off, nh.n_descsz, d->d_size)) {
				why = "a note larger than its section";
			} else if (out->n >= USDT_MAX_PROBES) {
				why = "more notes than are read from one file";
			} else {
				if (out->n == cap) {
					size_t ncap = cap ? cap * 2 : 64;
					void *v = realloc(out->v, ncap * sizeof(*out->v));

					if (!v) {
						err = -ENOMEM;
						break;
					}
					out->v = v;
					cap = ncap;
				}
				p = &out->v[out->n];
				err = read_note(e, eh.e_ident[EI_CLASS], (char *)d->d_buf + desc_off,
						nh.n_descsz, have_base, base_addr, p, &why);
				if (!err)
					out->n++;
				else if (err == -EINVAL)
					err = 0;
			}
			if (why) {
				out->bad++;
				if (!first)
					first = why;
			}
		}
	}
	if (out->bad)
		msg("usdt: %s: %zu malformed note%s skipped (%s)", what, out->bad,
		    out->bad == 1 ? "" : "s", first);
	if (err)
		usdt_notes_free(out);
	return err;
}

int usdt_read_mem(const void *image, size_t size, const char *what, struct usdt_notes *out)
{
	char *copy;
	Elf *e;
	int err;

	/* libelf may convert a memory image in place: read a copy */
	memset(out, 0, sizeof(*out));
	copy = malloc(size ? size : 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, image, size);
	elf_version(EV_CURRENT);
	e = elf_memory(copy, size);
	err = !e ? -ENOEXEC : elf_kind(e) == ELF_K_ELF ? read_elf(e, what, out) : -ENOEXEC;
	elf_end(e);
	free(copy);
	return err;
}

int usdt_read(const char *path, struct usdt_notes *out)
{
	int fd = open_regular(path, NULL), err;
	Elf *e;

	memset(out, 0, sizeof(*out));
	if (fd < 0)
		return fd;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e) {
		close(fd);
		return -ENOEXEC;
	}
	err = elf_kind(e) == ELF_K_ELF ? read_elf(e, path, out) : -ENOEXEC;
	elf_end(e);
	close(fd);
	return err;
}
