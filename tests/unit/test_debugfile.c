/* sym/debugfile: hostile .gnu_debuglink names reach no file outside the
 * allowed places, through either reader (dwfunc through libdwfl, elfsyms);
 * fixtures in build/fixtures/dlink (tests/fixtures.mk). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "test.h"
#include "sym/debugfile.h"
#include "sym/dwfunc.h"
#include "sym/elfsyms.h"
#include "unwind/table.h"

/* dwfuncs_open(dlink/sub/name) in a child that a FIFO cannot hang past
 * 20 s: 1 when it found DWARF, 0 when not, -1 when it hung or crashed. */
static int dwarf_found(const char *name)
{
	char rel[256];
	pid_t pid;
	int st;

	snprintf(rel, sizeof(rel), "dlink/sub/%s", name);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		struct dwfuncs *d;

		alarm(20);
		d = dwfuncs_open(test_fixture(rel));
		_exit(d ? 1 : 0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

TEST(debugfile_link_plain_found)
{
	CHECK_INT(dwarf_found("plain"), 1);
}

TEST(debugfile_link_dotdot_refused)
{
	CHECK_INT(dwarf_found("dotdot"), 0);
}

TEST(debugfile_link_fifo_no_hang)
{
	CHECK_INT(dwarf_found("fifo"), 0);
}

TEST(debugfile_link_symlink_not_followed)
{
	struct elfsyms *es;

	CHECK_INT(dwarf_found("symlink"), 0);
	es = elfsyms_open(test_fixture("dlink/sub/esyms-symlink"));
	CHECK(es);
	CHECK(!elfsyms_from_debug_file(es));
	elfsyms_free(es);
}

/* Owner root or the binary's; no symlink or ".." on the way. */
TEST(debugfile_open_beneath_rules)
{
	char dir[] = "/tmp/dbgfile.XXXXXX", path[512];
	int fd;

	if (!mkdtemp(dir)) {
		CHECK(0);
		return;
	}
	snprintf(path, sizeof(path), "%s/f.debug", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	CHECK(fd >= 0);
	close(fd);
	if (chown(path, 65534, 65534))
		test_skip("chown: %s", strerror(errno));
	else {
		CHECK_INT(debugfile_open_beneath(dir, "f.debug", 0), -EPERM);
		fd = debugfile_open_beneath(dir, "f.debug", 65534);
		CHECK(fd >= 0);
		if (fd >= 0)
			close(fd);
	}
	CHECK_INT(debugfile_open_beneath(dir, "../tmp/f.debug", 65534), -EINVAL);
	snprintf(path, sizeof(path), "%s/d", dir);
	CHECK_INT(symlink(".", path), 0);
	fd = debugfile_open_beneath(dir, "d/f.debug", 65534);
	CHECK(fd == -ENOTDIR || fd == -ELOOP);
	unlink(path);
	snprintf(path, sizeof(path), "%s/f.debug", dir);
	unlink(path);
	rmdir(dir);
}

/* fn(path) in a child: its result (0/1, or -1 if it crashed or hung) and
 * the child's peak memory in KiB in *rss_kib.  A 100 KB file must not
 * cost 100 MiB. */
static int in_child(int (*fn)(const char *), const char *path, long *rss_kib)
{
	struct rusage ru;
	pid_t pid;
	int st;

	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		alarm(60);
		_exit(fn(path));
	}
	if (wait4(pid, &st, 0, &ru) != pid || !WIFEXITED(st))
		return -1;
	*rss_kib = ru.ru_maxrss;
	return WEXITSTATUS(st);
}

/* 1 when dwfuncs_open refused the file as a bomb (EFBIG) */
static int dwarf_refused_big(const char *path)
{
	return !dwfuncs_open(path) && errno == EFBIG;
}

static int debug_frame_refused(const char *path)
{
	struct unwind_table *t = unwind_table_build(path, UNWIND_SRC_DEBUG_FRAME);

	return !t;
}

TEST(debugfile_inflate_bomb_skipped)
{
	long rss = 0;

	CHECK_INT(in_child(dwarf_refused_big, test_fixture("zbomb-real"), &rss), 1);
	CHECK(rss < 64 * 1024);
	CHECK_INT(in_child(dwarf_refused_big, test_fixture("zbomb-forged"), &rss), 1);
	CHECK_INT(in_child(debug_frame_refused, test_fixture("zbomb-frame"), &rss), 1);
	CHECK(rss < 64 * 1024);
}

/* dwz: the DIEs and strings two binaries share are in an alt file that
 * each names in .gnu_debugaltlink (DW_FORM_GNU_ref_alt, _strp_alt).  The
 * alt file is found by the one finder and given to libdw: widths()'s
 * parameters have their names and types (int8_t..uint32_t: base types
 * dwz moved).  An alt link with a "/" ("../common.debug") is not followed:
 * names that live in the alt file stay unknown. */
static struct dwfunc *dwz_describe(const char *rel, const char *func)
{
	struct elfsyms *es = elfsyms_open(test_fixture(rel));
	struct dwfuncs *d = dwfuncs_open(test_fixture(rel));
	struct dwfunc *f = NULL;
	struct elfsym_info si;

	CHECK(es && d);
	for (size_t i = 0; es && d && !f && i < elfsyms_count(es); i++)
		if (!elfsyms_symbol(es, i, &si) && !strcmp(si.name, func))
			f = dwfuncs_describe(d, si.addr);
	dwfuncs_free(d);
	elfsyms_free(es);
	return f;
}

TEST(debugfile_dwz_alt_found)
{
	static const char *names[] = { "a", "b", "c", "d", "e", "f" };
	static const unsigned sizes[] = { 1, 2, 8, 1, 2, 4 };
	struct dwfunc *f;

	if (access(test_fixture("dwz/common.debug"), F_OK))
		SKIP("no dwz fixture (Debian's dwz not installed when the fixtures were built)");
	for (int k = 0; k < 2; k++) {
		f = dwz_describe(k ? "dwz/b" : "dwz/a", "widths");
		CHECK(f);
		if (!f)
			continue;
		CHECK_STR(f->name, "widths");
		CHECK_INT(f->nparams, 6);
		for (size_t i = 0; i < 6 && i < f->nparams; i++) {
			CHECK(f->params[i].name && !strcmp(f->params[i].name, names[i]));
			CHECK_INT(f->params[i].type.size, sizes[i]);
		}
		dwfunc_free(f);
	}
}

TEST(debugfile_dwz_alt_dotdot_refused)
{
	struct dwfunc *f;
	bool named = false;

	if (access(test_fixture("dwz/common.debug"), F_OK))
		SKIP("no dwz fixture (Debian's dwz not installed when the fixtures were built)");
	f = dwz_describe("dwz/hostile/a", "widths");
	for (size_t i = 0; f && i < f->nparams; i++)
		named |= f->params[i].name && f->params[i].type.size;
	CHECK(!named);
	dwfunc_free(f);
}
