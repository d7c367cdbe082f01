#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <gelf.h>
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

int dwopen(struct dwopen *d, const char *path, int fd)
{
	struct stat st;
	Elf *elf;
	int err;

	memset(d, 0, sizeof(*d));
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
	return 0;
}

void dwopen_close(struct dwopen *d)
{
	if (d->dwfl)
		dwfl_end(d->dwfl);
	memset(d, 0, sizeof(*d));
}
