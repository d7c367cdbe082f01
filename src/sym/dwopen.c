#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <gelf.h>
#include <elfutils/libdwelf.h>
#include "common.h"
#include "sym/debugfile.h"
#include "sym/dwopen.h"

static char *debuginfo_path;

struct found_debug {
	int fd;
	char *path;
};

static int take_fd(int fd, const char *path, void *arg)
{
	struct found_debug *f = arg;

	f->fd = fd;
	f->path = strdup(path);
	return 0;
}

/* libdwfl's standard finder follows any .gnu_debuglink name (with "..",
 * onto a FIFO, through symlinks): the one debugfile_find() replaces it.
 * A debugaltlink name (a path) is not followed. */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			  Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	struct found_debug f = { -1, NULL };
	struct debugref ref = { file_name, NULL, 0, debuglink_file, debuglink_crc };
	GElf_Addr vaddr;
	int n;

	if (!file_name || (debuglink_file && strchr(debuglink_file, '/')))
		return -1;
	n = dwfl_module_build_id(mod, &ref.build_id, &vaddr);
	ref.build_id_len = n > 0 ? (size_t)n : 0;
	if (debugfile_find(&ref, take_fd, &f))
		return -1;
	*debuginfo_file_name = f.path;
	return f.fd;
}

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

/* dwz's alt file, named by dw's .gnu_debugaltlink (a name and the alt's
 * build id): found by debugfile's rules next to the file that holds dw
 * (the debug file found, else the binary) and given to libdw.  When none
 * is found, libdw is told there is none: its own search on first use of
 * an alt form would open the link's path as it is (any "..", symlink or
 * FIFO) and /usr/lib/debug/.build-id/ through symlinks.  (void *)-1 is
 * what libdw's dwarf_getalt() itself leaves after a search that found
 * nothing: "tried, none", freed by nobody. */
static void set_alt(struct dwopen *d, const char *path)
{
	struct found_debug f = { -1, NULL };
	const char *name, *mainfile = NULL, *debugfile = NULL;
	const void *id;
	ssize_t n = dwelf_dwarf_gnu_debugaltlink(d->dw, &name, &id);

	if (n <= 0)
		return;
	dwfl_module_info(d->mod, NULL, NULL, NULL, NULL, NULL, &mainfile, &debugfile);
	if (!debugfile_find_alt(debugfile ? debugfile : mainfile ? mainfile : path, name, id,
				(size_t)n, take_fd, &f)) {
		d->alt_fd = f.fd;
		d->alt_elf = elf_begin(f.fd, ELF_C_READ_MMAP, NULL);
		d->alt = d->alt_elf ? dwarf_begin_elf(d->alt_elf, DWARF_C_READ, NULL) : NULL;
		if (!d->alt)
			debug("%s: dwz alt file %s: no DWARF", path, f.path);
		free(f.path);
	}
	if (d->alt) {
		dwarf_setalt(d->dw, d->alt);
		return;
	}
	debug("%s: dwz alt file \"%s\" not found: what it holds stays unnamed", path, name);
	dwarf_setalt(d->dw, (Dwarf *)-1);
}

static void close_alt(struct dwopen *d)
{
	if (d->alt)
		dwarf_end(d->alt);
	if (d->alt_elf)
		elf_end(d->alt_elf);
	if (d->alt_fd >= 0)
		close(d->alt_fd);
}

int dwopen(struct dwopen *d, const char *path, int fd)
{
	struct stat st;
	Elf *elf;
	int err;

	memset(d, 0, sizeof(*d));
	d->alt_fd = -1;
	if (fd < 0)
		fd = open_regular(path, &st);
	else if (fstat(fd, &st))
		err = -errno, close(fd), fd = err;
	if (fd < 0)
		return fd;
	/* libdw would inflate the compressed debug sections whatever their
	 * claimed size */
	elf = elf_version(EV_CURRENT) != EV_NONE ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	err = elf ? debugfile_inflate_check(elf, (uint64_t)st.st_size, path) : 0;
	elf_end(elf);
	if (err) {
		close(fd);
		return err;
	}
	d->dwfl = dwfl_begin(&offline_callbacks);
	if (!d->dwfl) {
		close(fd);
		return -ENOMEM;
	}
	/* dwfl owns fd from here */
	d->mod = dwfl_report_offline(d->dwfl, path, path, fd);
	if (!d->mod || dwfl_report_end(d->dwfl, NULL, NULL)) {
		dwopen_close(d);
		return -EINVAL;
	}
	d->dw = dwfl_module_getdwarf(d->mod, &d->bias);
	if (d->dw)
		set_alt(d, path);
	return 0;
}

void dwopen_close(struct dwopen *d)
{
	if (d->dwfl)
		dwfl_end(d->dwfl);
	/* after its user */
	close_alt(d);
	memset(d, 0, sizeof(*d));
	d->alt_fd = -1;
}
