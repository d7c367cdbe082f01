/* sym/debugfile: hostile .gnu_debuglink names reach no file outside the
 * allowed places, through either reader (dwfunc through libdwfl, elfsyms);
 * fixtures in build/fixtures/dlink (tests/fixtures.mk). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "test.h"
#include "sym/debugfile.h"
#include "sym/dwfunc.h"
#include "sym/elfsyms.h"

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
