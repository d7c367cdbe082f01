/* USDT probes (<sys/sdt.h>): the .note.stapsdt notes of one ELF file,
 * read with libelf, and their argument strings parsed into a small spec
 * per argument that a BPF program can read from a uprobe's struct
 * pt_regs (x86-64).
 *
 * A note (type 3, owner "stapsdt") holds, in the file's word size: the
 * probe's address (pc), the link-time address of .stapsdt.base (base),
 * the semaphore's address (0: none), then provider\0 name\0 args\0.
 * When the file's .stapsdt.base section sits elsewhere than the note
 * says (prelink moved it), pc and the semaphore move by the same amount.
 * Each argument is "[-]SIZE@OPERAND" in the assembler's AT&T syntax:
 *
 *   -4@$5               a constant
 *   -4@%eax  1@%ah      a register of any width (%ah: bits 8..15 of rax)
 *   8@-8(%rbp)          memory at register + displacement
 *   8@16(%rax,%rbx,8)   memory at base + index * scale + displacement
 *   -4@sym+4(%rip)      memory at a symbol of the file (resolved here)
 *
 * Everything is bounded: notes, strings, arguments; a malformed note is
 * said once (naming the file) and skipped; an argument string that
 * cannot be read leaves the probe usable without its arguments (why
 * says what was wrong). */
#ifndef STACKSCOPE_SYM_USDT_H
#define STACKSCOPE_SYM_USDT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define USDT_MAX_ARGS 12	/* sys/sdt.h's most */
#define USDT_MAX_PROBES 65536	/* notes read from one file */
#define USDT_MAX_STR 1024	/* provider, name, argument string */

enum usdt_arg_kind {
	USDT_ARG_CONST,		/* value */
	USDT_ARG_REG,		/* the register at reg (+ reg_shift bits) */
	USDT_ARG_MEM,		/* size bytes at reg + index * scale + value */
};

/* Where a register is saved in x86-64's struct pt_regs (bytes). */
#define USDT_REG_NONE (-1)
#define USDT_REG_IP 128

/* One argument: the value's size (1, 2, 4, 8 bytes) and signedness, and
 * where it is. */
struct usdt_arg {
	enum usdt_arg_kind kind;
	uint8_t size;
	bool is_signed;
	int64_t value;		/* CONST: the value; MEM: the displacement */
	int16_t reg;		/* REG, MEM: the register's pt_regs offset, or
				 * USDT_REG_NONE (MEM with no base) */
	uint8_t reg_size;	/* REG: the register's width (bytes) */
	uint8_t reg_shift;	/* REG: 8 for %ah, %bh, %ch, %dh; else 0 */
	int16_t index;		/* MEM: the index register's offset, or USDT_REG_NONE */
	uint8_t scale;		/* MEM: 1, 2, 4 or 8 */
	char sym[128];		/* MEM at %rip: the symbol ("" when none); the
				 * note reader turns it into a displacement
				 * from the probe's address (value) */
};

struct usdt_probe {
	char *provider, *name;
	uint64_t pc;		/* link-time address of the probe's nop */
	uint64_t off;		/* file offset of pc: where the uprobe goes */
	uint64_t sem;		/* link-time address of the semaphore, or 0 */
	uint64_t sem_off;	/* its file offset (the kernel's ref_ctr_offset) */
	char *args;		/* the argument string as written */
	unsigned nargs;
	struct usdt_arg arg[USDT_MAX_ARGS];
	const char *why;	/* non-NULL: the arguments cannot be read (why) */
};

struct usdt_notes {
	struct usdt_probe *v;
	size_t n;
	size_t bad;		/* malformed notes skipped */
};

/* The USDT probes of the ELF file at path (a regular file, symlinks to
 * it followed as any reader would): 0 (no notes: n == 0) or -errno.
 * Malformed notes are skipped with one message naming path. */
int usdt_read(const char *path, struct usdt_notes *out);
/* The same from an ELF image in memory (size bytes); what names it in
 * messages.  For tests and the fuzzer. */
int usdt_read_mem(const void *image, size_t size, const char *what, struct usdt_notes *out);
void usdt_notes_free(struct usdt_notes *n);

/* Parses an argument string into at most max specs: 0 and the count in
 * *n, or -EINVAL with *why saying what is wrong (static text). */
int usdt_parse_args(const char *s, struct usdt_arg *args, unsigned max, unsigned *n,
		    const char **why);
/* One "[-]SIZE@OPERAND" (len bytes of s): 0 or -EINVAL with *why. */
int usdt_parse_arg(const char *s, size_t len, struct usdt_arg *a, const char **why);

#endif
