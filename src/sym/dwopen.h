/* The DWARF of one ELF file, opened the one way every DWARF reader here
 * (dwfunc, srcline) opens it: through libdwfl, offline, with the debug
 * file finder of sym/debugfile (never libdwfl's own), after checking that
 * its compressed sections stay within bounds.  DWARF that dwz shares
 * with other files (.gnu_debugaltlink: DW_FORM_GNU_ref_alt, _strp_alt)
 * gets its alt file from the same finder (never libdw's own search). */
#ifndef STACKSCOPE_SYM_DWOPEN_H
#define STACKSCOPE_SYM_DWOPEN_H
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

/* An open binary: dwfl owns everything but the alt file; dw is NULL when
 * neither the file nor a debug file found for it has DWARF. */
struct dwopen {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf *dw;
	Dwarf_Addr bias;	/* dwfl addresses = link-time addresses + bias */
	/* dw's dwz alt file, owned here (NULL: none, or not found) */
	Dwarf *alt;
	Elf *alt_elf;
	int alt_fd;
};

/* Opens path (fd >= 0: that open file instead, taken in every case).
 * 0, or -errno: the open's, -EFBIG (compressed sections too big, said),
 * -EINVAL (not ELF), -ENOMEM; then d holds nothing.  A file without
 * DWARF opens, with d->dw NULL. */
int dwopen(struct dwopen *d, const char *path, int fd);
void dwopen_close(struct dwopen *d);

#endif
