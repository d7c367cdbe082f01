/* Function signatures from DWARF: for the function entered at a given
 * address, its parameters (names, types, and where each can be read at a
 * uprobe: an integer argument register at entry, or a stack slot a little
 * later), its return type and whether rax holds it.  Placement follows
 * the SysV x86-64 calling convention; whatever it cannot place for sure
 * is marked unreadable with the reason, never guessed. */
#ifndef STACKSCOPE_SYM_DWFUNC_H
#define STACKSCOPE_SYM_DWFUNC_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum dwtype_kind {
	DWT_VOID,
	DWT_SINT,	/* signed integer of size 1, 2, 4, 8 */
	DWT_UINT,
	DWT_BOOL,
	DWT_CHAR,	/* a character type of size 1 */
	DWT_ENUM,
	DWT_PTR,	/* any pointer or reference, printed in hex */
	DWT_STR,	/* char * / const char *: the string it points to */
	DWT_FLOAT,	/* float (4) or double (8) */
	DWT_AGG,	/* struct, union or class by value */
	DWT_OTHER,	/* anything else (long double, _Complex, __int128 ...) */
};

struct dwenum {
	int64_t value;
	char *name;
};

/* A type as far as rendering needs it.  Owned by its dwfunc. */
struct dwtype {
	enum dwtype_kind kind;
	unsigned size;		/* bytes */
	bool is_signed;		/* DWT_CHAR, DWT_ENUM */
	char *name;		/* C spelling: "const char *", "enum color" */
	struct dwenum *enums;	/* DWT_ENUM: its enumerators */
	size_t nenums;
};

enum dwloc {
	DWLOC_NONE,	/* not readable here: see why */
	DWLOC_REG,	/* integer argument register `index` (0 rdi .. 5 r9) at entry;
			 * for a return value: rax */
	DWLOC_LATE,	/* late read `index` (see dwfunc.late) */
};

struct dwparam {
	char *name;		/* "" when DWARF has none */
	struct dwtype type;
	enum dwloc loc;
	int index;
	const char *why;	/* DWLOC_NONE: "passed on the stack", ... (static) */
};

/* A read done by the late probe: size bytes at DWARF register reg + off. */
struct dwread {
	int reg;
	unsigned size;
	int64_t off;
};

#define DWFUNC_LATE_MAX 4

struct dwfunc {
	char *name;
	uint64_t addr;		/* entry, link-time virtual address */
	struct dwparam *params;
	size_t nparams;
	bool varargs;		/* ... after the named parameters */
	struct dwtype ret;	/* DWT_VOID for void */
	enum dwloc ret_loc;	/* DWLOC_REG (rax) or DWLOC_NONE */
	const char *ret_why;
	/* the late probe: at late_addr (0 = none), reads late[0..nlate) */
	uint64_t late_addr;
	struct dwread late[DWFUNC_LATE_MAX];
	int nlate;
};

struct dwfuncs;

/* The DWARF of the ELF file at path (or of its separate debug file, found
 * by build id or .gnu_debuglink as libdwfl does).  NULL with errno set:
 * ENODATA when the file has no DWARF, else the error. */
struct dwfuncs *dwfuncs_open(const char *path);
/* Number of functions with code that the DWARF describes. */
size_t dwfuncs_count(const struct dwfuncs *d);
/* The signature of the function whose entry is at vaddr; NULL with errno
 * ENOENT when no DWARF function starts there.  Freed with dwfunc_free. */
struct dwfunc *dwfuncs_describe(struct dwfuncs *d, uint64_t vaddr);
/* A DW_TAG_subprogram with code starts at vaddr. */
bool dwfuncs_has_entry(const struct dwfuncs *d, uint64_t vaddr);
void dwfunc_free(struct dwfunc *f);
void dwfuncs_free(struct dwfuncs *d);

#endif
