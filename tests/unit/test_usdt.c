/* Unit tests of sym/usdt: the operand parser (every form and width,
 * malformed strings) and the note reader on ELF images built here:
 * addresses to file offsets, semaphores, prelink's moved .stapsdt.base,
 * %rip-relative symbols, and malformed notes skipped while the good
 * ones around them are read. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>
#include <errno.h>
#include "sym/usdt.h"
#include "test.h"

static int parse(const char *s, struct usdt_arg *a)
{
	const char *why = NULL;

	return usdt_parse_arg(s, strlen(s), a, &why);
}

TEST(usdt_arg_constants)
{
	struct usdt_arg a;

	CHECK_INT(parse("-4@$5", &a), 0);
	CHECK_INT(a.kind, USDT_ARG_CONST);
	CHECK_INT(a.size, 4);
	CHECK(a.is_signed);
	CHECK_INT(a.value, 5);
	CHECK_INT(parse("-8@$-1000000000000", &a), 0);
	CHECK_INT(a.value, -1000000000000LL);
	CHECK_INT(parse("8@$18000000000000000000", &a), 0);
	CHECK((uint64_t)a.value == 18000000000000000000ULL);
	CHECK(!a.is_signed);
	CHECK_INT(parse("2@$0x10", &a), 0);
	CHECK_INT(a.value, 16);
}

TEST(usdt_arg_registers)
{
	static const struct {
		const char *s;
		int off, size, shift;
	} cases[] = {
		{ "8@%rax", 80, 8, 0 }, { "-4@%eax", 80, 4, 0 }, { "2@%ax", 80, 2, 0 },
		{ "1@%al", 80, 1, 0 }, { "-1@%ah", 80, 1, 8 }, { "1@%bh", 40, 1, 8 },
		{ "1@%dil", 112, 1, 0 }, { "-1@%sil", 104, 1, 0 }, { "2@%dx", 96, 2, 0 },
		{ "-2@%cx", 88, 2, 0 }, { "4@%r8d", 72, 4, 0 }, { "-4@%r9d", 64, 4, 0 },
		{ "-8@%r10", 56, 8, 0 }, { "2@%r11w", 48, 2, 0 }, { "1@%r12b", 24, 1, 0 },
		{ "1@%r13l", 16, 1, 0 }, { "8@%r15", 0, 8, 0 }, { "8@%rbp", 32, 8, 0 },
		{ "1@%bpl", 32, 1, 0 }, { "8@%rsp", 152, 8, 0 }, { "4@%esp", 152, 4, 0 },
		{ "4@%edi", 112, 4, 0 },
	};
	struct usdt_arg a;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CHECK_INT(parse(cases[i].s, &a), 0);
		CHECK_INT(a.kind, USDT_ARG_REG);
		CHECK_INT(a.reg, cases[i].off);
		CHECK_INT(a.reg_size, cases[i].size);
		CHECK_INT(a.reg_shift, cases[i].shift);
		CHECK_INT(a.is_signed, cases[i].s[0] == '-');
	}
}

TEST(usdt_arg_memory)
{
	struct usdt_arg a;

	CHECK_INT(parse("-4@-8(%rbp)", &a), 0);
	CHECK_INT(a.kind, USDT_ARG_MEM);
	CHECK_INT(a.size, 4);
	CHECK_INT(a.reg, 32);
	CHECK_INT(a.index, USDT_REG_NONE);
	CHECK_INT(a.value, -8);
	CHECK_INT(parse("8@(%rsp)", &a), 0);
	CHECK_INT(a.reg, 152);
	CHECK_INT(a.value, 0);
	CHECK_INT(parse("8@16(%rax,%rbx,8)", &a), 0);
	CHECK_INT(a.reg, 80);
	CHECK_INT(a.index, 40);
	CHECK_INT(a.scale, 8);
	CHECK_INT(a.value, 16);
	CHECK_INT(parse("2@(,%rcx,2)", &a), 0);
	CHECK_INT(a.reg, USDT_REG_NONE);
	CHECK_INT(a.index, 88);
	CHECK_INT(a.scale, 2);
	CHECK_INT(parse("4@0x10(%r8,%r9)", &a), 0);
	CHECK_INT(a.index, 64);
	CHECK_INT(a.scale, 1);
	CHECK_INT(a.value, 16);
	CHECK_INT(parse("-4@g_s32(%rip)", &a), 0);
	CHECK_INT(a.reg, USDT_REG_IP);
	CHECK(!strcmp(a.sym, "g_s32"));
	CHECK_INT(a.value, 0);
	CHECK_INT(parse("8@table+16(%rip)", &a), 0);
	CHECK(!strcmp(a.sym, "table"));
	CHECK_INT(a.value, 16);
	CHECK_INT(parse("8@table-8(%rip)", &a), 0);
	CHECK_INT(a.value, -8);
	CHECK_INT(parse("4@counter", &a), 0);
	CHECK_INT(a.reg, USDT_REG_NONE);
	CHECK(!strcmp(a.sym, "counter"));
}

TEST(usdt_arg_malformed)
{
	static const char *const bad[] = {
		"", "4", "4@", "@%eax", "-@%eax", "3@%eax", "16@%rax", "4@%foo", "4@%rip",
		"4@$x", "4@$", "4@$5x", "8f@%xmm0", "4@-8(%rbp", "4@-8(%rbp))", "4@8(%rip)",
		"4@(%rax,%rbx,3)", "4@(%rax,%rip)", "4@(%ax)", "4@%eax)", "4@123",
		"4@sym(%rax)", "4@(%rax,)", "4@--8(%rbp)", "4@99999999999999999999(%rax)",
	};
	struct usdt_arg a;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *why = NULL;

		if (usdt_parse_arg(bad[i], strlen(bad[i]), &a, &why) != -EINVAL || !why)
			test_fail(__FILE__, __LINE__, "\"%s\" was accepted", bad[i]);
	}
}

TEST(usdt_args_string)
{
	struct usdt_arg a[USDT_MAX_ARGS];
	const char *why = NULL;
	unsigned n = 99;

	CHECK_INT(usdt_parse_args("-4@%eax 8@-8(%rbp)  -4@$5\t8@16(%rax,%rbx,8)", a,
				  USDT_MAX_ARGS, &n, &why), 0);
	CHECK_INT(n, 4);
	CHECK_INT(a[0].kind, USDT_ARG_REG);
	CHECK_INT(a[1].kind, USDT_ARG_MEM);
	CHECK_INT(a[2].kind, USDT_ARG_CONST);
	CHECK_INT(a[3].scale, 8);
	CHECK_INT(usdt_parse_args("", a, USDT_MAX_ARGS, &n, &why), 0);
	CHECK_INT(n, 0);
	CHECK_INT(usdt_parse_args("4@$1 4@$2 4@$3", a, 2, &n, &why), -EINVAL);
	CHECK_INT(usdt_parse_args("4@$1 4@%nope", a, USDT_MAX_ARGS, &n, &why), -EINVAL);
	CHECK_INT(n, 0);
}

/* ---- ELF images ------------------------------------------------------ */

/* A little ELF64 file: code at 0x400000 (file 0..0x1000, R+X), data at
 * 0x601000 (file 0x1000..0x1100), sections .note.stapsdt (the notes
 * given), .stapsdt.base (at base_addr, when not 0), .symtab with "table"
 * at 0x601010. */
#define IMG_SIZE 0x1200
#define NOTES_AT 0x200

struct notes_buf {
	uint8_t b[0x500];
	size_t len;
};

static void note_add(struct notes_buf *nb, uint32_t descsz_override, uint64_t pc, uint64_t base,
		     uint64_t sem, const char *prov, const char *name, const char *args)
{
	uint8_t desc[512];
	size_t dl = 0;
	uint32_t hdr[3];

	memcpy(desc, &pc, 8);
	memcpy(desc + 8, &base, 8);
	memcpy(desc + 16, &sem, 8);
	dl = 24;
	memcpy(desc + dl, prov, strlen(prov) + 1);
	dl += strlen(prov) + 1;
	memcpy(desc + dl, name, strlen(name) + 1);
	dl += strlen(name) + 1;
	memcpy(desc + dl, args, strlen(args) + 1);
	dl += strlen(args) + 1;
	hdr[0] = 8;
	hdr[1] = descsz_override ? descsz_override : (uint32_t)dl;
	hdr[2] = 3;
	memcpy(nb->b + nb->len, hdr, 12);
	memcpy(nb->b + nb->len + 12, "stapsdt", 8);
	memcpy(nb->b + nb->len + 20, desc, dl);
	nb->len += 20 + ((hdr[1] + 3) & ~(size_t)3);
}

static uint8_t *image(const struct notes_buf *nb, uint64_t base_addr)
{
	static const char shstr[] = "\0.note.stapsdt\0.stapsdt.base\0.shstrtab\0.symtab\0.strtab";
	static const char str[] = "\0table";
	uint8_t *img = calloc(1, IMG_SIZE);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	Elf64_Phdr *ph = (Elf64_Phdr *)(img + 64);
	Elf64_Shdr *sh = (Elf64_Shdr *)(img + 0xa00);
	Elf64_Sym *sym = (Elf64_Sym *)(img + 0x980);

	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_EXEC;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = 64;
	eh->e_shoff = 0xa00;
	eh->e_ehsize = 64;
	eh->e_phentsize = sizeof(Elf64_Phdr);
	eh->e_phnum = 2;
	eh->e_shentsize = sizeof(Elf64_Shdr);
	eh->e_shnum = 6;
	eh->e_shstrndx = 3;
	ph[0] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = 0,
			      .p_vaddr = 0x400000, .p_filesz = 0x1000, .p_memsz = 0x1000 };
	ph[1] = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_W, .p_offset = 0x1000,
			      .p_vaddr = 0x601000, .p_filesz = 0x100, .p_memsz = 0x200 };
	memcpy(img + NOTES_AT, nb->b, nb->len);
	memcpy(img + 0x800, shstr, sizeof(shstr));
	memcpy(img + 0x900, str, sizeof(str));
	sym[1] = (Elf64_Sym){ .st_name = 1, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_OBJECT),
			      .st_shndx = 1, .st_value = 0x601010, .st_size = 32 };
	sh[1] = (Elf64_Shdr){ .sh_name = 1, .sh_type = SHT_NOTE, .sh_offset = NOTES_AT,
			      .sh_size = nb->len, .sh_addralign = 4 };
	sh[2] = (Elf64_Shdr){ .sh_name = 15, .sh_type = base_addr ? SHT_PROGBITS : SHT_NULL,
			      .sh_flags = SHF_ALLOC, .sh_addr = base_addr,
			      .sh_offset = base_addr ? base_addr - 0x400000 : 0, .sh_size = 1,
			      .sh_addralign = 1 };
	sh[3] = (Elf64_Shdr){ .sh_name = 29, .sh_type = SHT_STRTAB, .sh_offset = 0x800,
			      .sh_size = sizeof(shstr), .sh_addralign = 1 };
	sh[4] = (Elf64_Shdr){ .sh_name = 39, .sh_type = SHT_SYMTAB, .sh_offset = 0x980,
			      .sh_size = 2 * sizeof(Elf64_Sym), .sh_link = 5, .sh_info = 1,
			      .sh_entsize = sizeof(Elf64_Sym), .sh_addralign = 8 };
	sh[5] = (Elf64_Shdr){ .sh_name = 47, .sh_type = SHT_STRTAB, .sh_offset = 0x900,
			      .sh_size = sizeof(str), .sh_addralign = 1 };
	return img;
}

TEST(usdt_notes_read)
{
	struct notes_buf nb = { 0 };
	struct usdt_notes n;
	uint8_t *img;

	note_add(&nb, 0, 0x400500, 0x400f00, 0x601008, "prov", "one", "-4@%eax 8@table+8(%rip)");
	note_add(&nb, 0, 0x400600, 0x400f00, 0, "prov2", "two", "");
	img = image(&nb, 0x400f00);
	CHECK_INT(usdt_read_mem(img, IMG_SIZE, "img", &n), 0);
	CHECK_INT(n.n, 2);
	CHECK_INT(n.bad, 0);
	if (n.n == 2) {
		CHECK(!strcmp(n.v[0].provider, "prov") && !strcmp(n.v[0].name, "one"));
		CHECK_INT(n.v[0].pc, 0x400500);
		CHECK_INT(n.v[0].off, 0x500);
		CHECK_INT(n.v[0].sem, 0x601008);
		CHECK_INT(n.v[0].sem_off, 0x1008);
		CHECK_INT(n.v[0].nargs, 2);
		CHECK(!n.v[0].why);
		/* table + 8 from the probe's own address */
		CHECK_INT(n.v[0].arg[1].value, 0x601010 + 8 - 0x400500);
		CHECK(!strcmp(n.v[0].args, "-4@%eax 8@table+8(%rip)"));
		CHECK_INT(n.v[1].nargs, 0);
		CHECK_INT(n.v[1].sem, 0);
		CHECK_INT(n.v[1].sem_off, 0);
	}
	usdt_notes_free(&n);
	free(img);
}

TEST(usdt_notes_prelinked)
{
	struct notes_buf nb = { 0 };
	struct usdt_notes n;
	uint8_t *img;

	/* the note says .stapsdt.base was at 0x400e00; it is at 0x400f00 */
	note_add(&nb, 0, 0x400400, 0x400e00, 0x600f08, "p", "moved", "");
	img = image(&nb, 0x400f00);
	CHECK_INT(usdt_read_mem(img, IMG_SIZE, "img", &n), 0);
	CHECK_INT(n.n, 1);
	if (n.n == 1) {
		CHECK_INT(n.v[0].pc, 0x400500);
		CHECK_INT(n.v[0].off, 0x500);
		CHECK_INT(n.v[0].sem, 0x601008);
		CHECK_INT(n.v[0].sem_off, 0x1008);
	}
	usdt_notes_free(&n);
	free(img);
}

TEST(usdt_notes_malformed)
{
	struct notes_buf nb = { 0 };
	struct usdt_notes n;
	uint8_t *img;

	note_add(&nb, 0, 0x400100, 0, 0, "ok", "first", "");
	/* too short for three addresses */
	note_add(&nb, 20, 0x400100, 0, 0, "p", "short", "");
	/* a probe in the data, a semaphore in the code and one past the file */
	note_add(&nb, 0, 0x601000, 0, 0, "p", "pc_in_data", "");
	note_add(&nb, 0, 0x400100, 0, 0x400200, "p", "sem_in_code", "");
	note_add(&nb, 0, 0x400100, 0, 0x601180, "p", "sem_in_bss", "");
	/* empty provider */
	note_add(&nb, 0, 0x400100, 0, 0, "", "noprov", "");
	/* arguments that cannot be read: the probe stays, without them */
	note_add(&nb, 0, 0x400104, 0, 0, "ok", "badargs", "4@%xyz");
	note_add(&nb, 0, 0x400108, 0, 0, "ok", "nosym", "4@missing(%rip)");
	note_add(&nb, 0, 0x40010c, 0, 0, "ok", "last", "1@%al");
	img = image(&nb, 0);
	CHECK_INT(usdt_read_mem(img, IMG_SIZE, "img", &n), 0);
	CHECK_INT(n.bad, 5);
	CHECK_INT(n.n, 4);
	if (n.n == 4) {
		CHECK(!strcmp(n.v[0].name, "first"));
		CHECK(!strcmp(n.v[1].name, "badargs") && n.v[1].why && !n.v[1].nargs);
		CHECK(!strcmp(n.v[2].name, "nosym") && n.v[2].why && !n.v[2].nargs);
		CHECK(!strcmp(n.v[3].name, "last") && !n.v[3].why && n.v[3].nargs == 1);
	}
	usdt_notes_free(&n);
	/* a note whose strings run past its end */
	memset(&nb, 0, sizeof(nb));
	note_add(&nb, 0, 0x400100, 0, 0, "p", "cut", "4@$1");
	nb.b[nb.len - 4] = 'x';	/* the padding and terminator overwritten */
	nb.b[nb.len - 3] = 'x';
	nb.b[nb.len - 2] = 'x';
	nb.b[nb.len - 1] = 'x';
	free(img);
	img = image(&nb, 0);
	CHECK_INT(usdt_read_mem(img, IMG_SIZE, "img", &n), 0);
	CHECK_INT(n.n + n.bad, 1);
	for (size_t i = 0; i < n.n; i++)
		CHECK(strlen(n.v[i].args) < 8);
	usdt_notes_free(&n);
	free(img);
	/* not ELF at all */
	CHECK(usdt_read_mem("hello", 5, "junk", &n) < 0);
	CHECK_INT(n.n, 0);
}
