/* Unit tests of the pieces under the commands: string pool, the process
 * address-space table, safe output files, demangling, option parsing. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "test.h"
#include "common.h"
#include "strpool.h"
#include "report/output.h"
#include "sym/demangle.h"
#include "sym/perfmap.h"
#include "sym/proctab.h"
#include "sym/ksyms.h"
#include "sym/symbolize.h"
#include "unwind/unwind.h"
#include "stacks/stackagg.h"

/* In a child (the settings are the process's): after heap_prefault(),
 * an allocation below its size comes from the heap (not a mmap of its
 * own), in a mapping the kernel may back with transparent huge pages
 * (smaps: "THPeligible: 1"); 0 when so, 1 when not, 2+ on errors. */
static int prefaulted_child(size_t reserve, size_t block)
{
	char line[256], perms[5];
	uintptr_t lo, hi, at;
	int in = 0, heap = 0, eligible = -1;
	FILE *f;
	char *p;

	heap_prefault(reserve);
	p = malloc(block);
	if (!p)
		return 2;
	at = (uintptr_t)p + block / 2;
	f = fopen("/proc/self/smaps", "r");
	if (!f)
		return 3;
	while (fgets(line, sizeof(line), f)) {
		/* a mapping's first line: "lo-hi perms ..."; its fields follow */
		if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perms) == 3) {
			in = at >= lo && at < hi;
			if (in)
				heap = strstr(line, "[heap]") != NULL;
		} else if (in && sscanf(line, "THPeligible: %d", &eligible) == 1) {
			break;
		}
	}
	fclose(f);
	return heap && eligible == 1 ? 0 : 1;
}

static bool thp_on_request(void)
{
	char buf[128] = "";
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
	}
	return strstr(buf, "[always]") || strstr(buf, "[madvise]");
}

TEST(heap_prefault_puts_the_next_allocations_on_huge_pages)
{
	int status = -1;
	pid_t pid;

	if (!thp_on_request()) {
		SKIP("transparent huge pages are off on this system");
	}
#ifdef __SANITIZE_ADDRESS__
	SKIP("built with AddressSanitizer, whose allocator is not glibc's heap");
#endif
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0)
		_exit(prefaulted_child(12 << 20, 8 << 20));
	CHECK_INT(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status));
	/* 0: the 8 MiB block is in the heap, in a mapping eligible for THP */
	CHECK_INT(WEXITSTATUS(status), 0);
}

TEST(strpool_interns_once)
{
	struct strpool *sp = strpool_new();
	char buf[32];
	const char *a, *b;

	CHECK(sp);
	a = strpool_intern(sp, "main");
	strcpy(buf, "main");
	b = strpool_intern(sp, buf);
	CHECK(a == b);
	CHECK(a != buf);
	CHECK_STR(strpool_intern_len(sp, "mainly", 4), "main");
	CHECK(strpool_intern_len(sp, "mainly", 4) == a);
	/* many strings: the table grows and keeps every one */
	for (int i = 0; i < 5000; i++) {
		snprintf(buf, sizeof(buf), "sym%d", i);
		CHECK(strpool_intern(sp, buf) != NULL);
	}
	CHECK_INT(strpool_count(sp), 5001);
	CHECK_STR(strpool_intern(sp, "sym4321"), "sym4321");
	CHECK_INT(strpool_count(sp), 5001);
	strpool_free(sp);
	strpool_free(NULL);
}

TEST(strpool_intern_n_and_ids)
{
	struct strpool *sp = strpool_new();
	const char *text[200], *out[200], *again[200];
	size_t lens[200];
	char bufs[200][16];

	CHECK(sp);
	/* more than one batch, with repeats inside a batch and across them */
	for (int i = 0; i < 200; i++) {
		snprintf(bufs[i], sizeof(bufs[i]), "fn%dxyz", i % 70);
		text[i] = bufs[i];
		lens[i] = strlen(bufs[i]) - 3;	/* "fnN": not NUL-terminated there */
	}
	CHECK_INT(strpool_intern_n(sp, 200, text, lens, out), 0);
	CHECK_INT(strpool_count(sp), 70);
	for (int i = 0; i < 200; i++) {
		char want[16];

		snprintf(want, sizeof(want), "fn%d", i % 70);
		CHECK_STR(out[i], want);
		CHECK(out[i] == out[i % 70]);
		CHECK(out[i] == strpool_intern(sp, want));
		/* numbered in the order first interned */
		CHECK_INT(strpool_id(out[i]), i % 70);
		CHECK(strpool_get(sp, strpool_id(out[i])) == out[i]);
	}
	CHECK(strpool_get(sp, 70) == NULL);
	CHECK_INT(strpool_intern_n(sp, 200, text, lens, again), 0);
	CHECK(!memcmp(out, again, sizeof(out)));
	CHECK_INT(strpool_intern_n(sp, 0, text, lens, again), 0);
	CHECK_INT(strpool_count(sp), 70);
	strpool_free(sp);
}

TEST(stackagg_merges_equal_keys)
{
	struct stackagg *a = stackagg_new();
	uint64_t ips[] = { 0x401000, 0x402000, 0x403000 }, other[] = { 0x401000, 0x402000, 0x9 };
	struct stackagg_key k = { .pid = 7, .gen = 1, .comm = "worker", .kstack = 5 };
	struct stackagg_key kx = k;
	char waker[24] = "the waker";
	const struct stackagg_entry *e;

	CHECK(a);
	if (!a)
		return;
	kx.extra = waker;
	kx.extra_len = sizeof(waker);
	CHECK_INT(stackagg_add(a, &k, ips, 3, false, 2, 1), 0);
	CHECK_INT(stackagg_add(a, &k, ips, 3, false, 3, 1), 0);
	CHECK_INT(stackagg_add(a, &k, ips, 3, true, 1, 1), 0);	/* truncated: another */
	CHECK_INT(stackagg_add(a, &k, other, 3, false, 1, 1), 0);
	CHECK_INT(stackagg_add(a, &k, ips, 2, false, 1, 1), 0);	/* a prefix: another */
	CHECK_INT(stackagg_add(a, &kx, ips, 3, false, 4, 1), 0);
	CHECK_INT(stackagg_add(a, &kx, ips, 3, false, 4, 1), 0);
	CHECK_INT(stackagg_add(a, &k, NULL, 0, true, 1, 1), 0);
	/* many distinct stacks: the index grows and keeps every one */
	for (uint64_t i = 0; i < 3000; i++) {
		other[2] = i;
		CHECK_INT(stackagg_add(a, &k, other, 3, false, 1, 1), 0);
		CHECK_INT(stackagg_add(a, &k, other, 3, false, 1, 1), 0);
	}
	CHECK_INT(stackagg_count(a), 6 + 3000 - 1);	/* other[2] = 9 was there */
	e = stackagg_get(a, 0);
	CHECK(e && e->value == 5 && e->events == 2 && e->n == 3 && e->ips[2] == 0x403000 && !e->extra_len);
	CHECK_STR(e ? e->comm : NULL, "worker");
	e = stackagg_get(a, 4);
	CHECK(e && e->value == 8 && e->events == 2 && e->extra_len == sizeof(waker));
	CHECK_STR(e ? (const char *)e->extra : NULL, "the waker");
	e = stackagg_get(a, 5);
	CHECK(e && e->n == 0 && e->truncated && e->value == 1);
	CHECK(stackagg_get(a, stackagg_count(a)) == NULL);
	stackagg_free(a);
	stackagg_free(NULL);
}

static struct mapping map(uint64_t start, uint64_t end, uint64_t pgoff, const char *path)
{
	return (struct mapping){ .start = start, .end = end, .pgoff = pgoff, .path = path,
				 .id = { .dev = 1, .ino = 42 } };
}

TEST(proctab_generations_follow_exec)
{
	struct proctab *pt = proctab_new();
	struct mapping a = map(0x1000, 0x2000, 0, "/bin/sh");
	struct mapping b = map(0x1000, 0x3000, 0x1000, "/usr/bin/app");
	const struct mapping *m;
	/* a pid far above pid_max: /proc never has it */
	uint32_t pid = 0x7ffffff0;

	CHECK(pt);
	/* records at 100 and 200; the BPF side's gens a little later */
	CHECK_INT(proctab_exec(pt, pid, 100), 0);	/* sh */
	CHECK_INT(proctab_mmap(pt, pid, &a, 101), 0);
	CHECK_INT(proctab_exec(pt, pid, 200), 0);	/* app */
	CHECK_INT(proctab_mmap(pt, pid, &b, 201), 0);
	m = proctab_find(pt, pid, 102, 0x1800);
	CHECK(m && !strcmp(m->path, "/bin/sh"));
	m = proctab_find(pt, pid, 202, 0x1800);
	CHECK(m && !strcmp(m->path, "/usr/bin/app") && m->pgoff == 0x1000);
	CHECK(proctab_find(pt, pid, 102, 0x2800) == NULL);
	CHECK(proctab_find(pt, pid, 202, 0x2800) != NULL);
	/* a gen later than every record: the newest */
	m = proctab_find(pt, pid, 999, 0x1800);
	CHECK(m && !strcmp(m->path, "/usr/bin/app"));
	/* gen 0 (begun before tracing): the newest begun before it */
	proctab_set_traced_since(pt, 150);
	m = proctab_find(pt, pid, 0, 0x1800);
	CHECK(m && !strcmp(m->path, "/bin/sh"));
	proctab_free(pt);
}

TEST(proctab_newest_mapping_wins)
{
	struct proctab *pt = proctab_new();
	struct mapping a = map(0x1000, 0x5000, 0, "/old.so");
	struct mapping b = map(0x2000, 0x3000, 0, "/new.so");
	uint32_t pid = 0x7ffffff1;
	const struct mapping *m;

	proctab_exec(pt, pid, 10);
	proctab_mmap(pt, pid, &a, 11);
	proctab_mmap(pt, pid, &b, 12);
	m = proctab_find(pt, pid, 13, 0x2100);
	CHECK(m && !strcmp(m->path, "/new.so"));
	m = proctab_find(pt, pid, 13, 0x4100);
	CHECK(m && !strcmp(m->path, "/old.so"));
	proctab_free(pt);
}

TEST(proctab_many_processes_and_pid_0)
{
	struct proctab *pt = proctab_new();
	struct mapping a = map(0x1000, 0x2000, 0, "/bin/app");
	int found = 0;

	CHECK(pt);
	if (!pt)
		return;
	/* pids far above pid_max: /proc never has them */
	for (uint32_t pid = 0x7fff0000; pid < 0x7fff0000 + 2000; pid++) {
		a.pgoff = pid;
		proctab_exec(pt, pid, 10);
		proctab_mmap(pt, pid, &a, 11);
	}
	CHECK_INT(proctab_count(pt), 2000);
	for (uint32_t pid = 0x7fff0000; pid < 0x7fff0000 + 2000; pid++) {
		const struct mapping *m = proctab_find(pt, pid, 12, 0x1800);

		found += m && m->pgoff == pid;
	}
	CHECK_INT(found, 2000);
	/* pid 0 (the idle task) has no user space to record or find */
	CHECK(proctab_mmap(pt, 0, &a, 0) < 0);
	CHECK(proctab_find(pt, 0, 0, 0x1800) == NULL);
	CHECK_INT(proctab_count(pt), 2000);
	proctab_free(pt);
}

TEST(proctab_fork_copies_and_pid_reuse_keeps_the_dead)
{
	struct proctab *pt = proctab_new();
	struct mapping a = map(0x1000, 0x2000, 0, "/bin/parent");
	struct mapping c = map(0x8000, 0x9000, 0, "/lib/child-only.so");
	struct mapping d = map(0x1000, 0x2000, 0, "/bin/decoy");
	uint32_t parent = 0x7ffffff2, child = 0x7ffffff3;
	const struct mapping *m;

	proctab_exec(pt, parent, 10);
	proctab_mmap(pt, parent, &a, 11);
	CHECK_INT(proctab_fork(pt, parent, child, 20), 0);
	m = proctab_find(pt, child, 21, 0x1800);
	CHECK(m && !strcmp(m->path, "/bin/parent"));
	proctab_mmap(pt, child, &c, 22);
	/* the child's own mapping is not the parent's */
	CHECK(proctab_find(pt, parent, 12, 0x8800) == NULL);
	CHECK(proctab_find(pt, child, 21, 0x8800) != NULL);
	/* the pid is reused by a new fork of the parent, which runs another
	 * program: the dead child's samples (gen 21) keep its mappings */
	CHECK_INT(proctab_fork(pt, parent, child, 30), 0);
	CHECK(proctab_find(pt, child, 31, 0x8800) == NULL);
	CHECK(proctab_find(pt, child, 31, 0x1800) != NULL);
	CHECK_INT(proctab_exec(pt, child, 40), 0);
	proctab_mmap(pt, child, &d, 41);
	m = proctab_find(pt, child, 42, 0x1800);
	CHECK(m && !strcmp(m->path, "/bin/decoy"));
	m = proctab_find(pt, child, 21, 0x1800);
	CHECK(m && !strcmp(m->path, "/bin/parent"));
	CHECK(proctab_find(pt, child, 21, 0x8800) != NULL);
	proctab_free(pt);
}

TEST(proctab_late_fork_record_does_not_wipe_child)
{
	struct proctab *pt = proctab_new();
	struct mapping a = map(0x1000, 0x2000, 0, "/bin/parent");
	struct mapping c = map(0x8000, 0x9000, 0, "/bin/child");
	uint32_t parent = 0x7ffffff4, child = 0x7ffffff5;

	proctab_exec(pt, parent, 10);
	proctab_mmap(pt, parent, &a, 11);
	/* the child's exec and mmap were read (from another CPU) before
	 * the fork that created it */
	proctab_exec(pt, child, 30);
	proctab_mmap(pt, child, &c, 31);
	CHECK_INT(proctab_fork(pt, parent, child, 20), 0);
	CHECK(proctab_find(pt, child, 32, 0x8800) != NULL);
	CHECK(proctab_find(pt, child, 32, 0x1800) == NULL);
	/* between the fork and the exec, the parent's */
	CHECK(proctab_find(pt, child, 21, 0x1800) != NULL);
	/* a child mmap read before its fork moves to the fork's space */
	proctab_mmap(pt, 0x7ffffff6, &c, 55);
	CHECK_INT(proctab_fork(pt, parent, 0x7ffffff6, 50), 0);
	CHECK(proctab_find(pt, 0x7ffffff6, 51, 0x8800) != NULL);
	CHECK(proctab_find(pt, 0x7ffffff6, 51, 0x1800) != NULL);
	proctab_free(pt);
}

TEST(perfmap_parse_bounds_and_overlaps)
{
	static const char text[] =
		"1000 40 first\n"
		"0x2000 0x10 with spaces in it\r\n"
		"zzzz 10 nothex\n"
		"3000 0 empty\n"
		"ffffffffffffffff 10 wraps\n"
		"1ffffffffffffffff 1 too long a number\n"
		"4000 10\n"
		"\n"
		"1010 8 replaced later\n";
	size_t bad, over;
	struct perfmap *pm = perfmap_parse(text, sizeof(text) - 1, &bad, &over);
	char *big;
	uint64_t off;

	CHECK(pm);
	if (!pm)
		return;
	CHECK_INT(bad, 5);
	CHECK_INT(over, 0);
	CHECK_INT(perfmap_count(pm), 3);
	CHECK_STR(perfmap_lookup(pm, 0x1000, &off), "first");
	CHECK_INT(off, 0);
	/* the later line wins where they overlap */
	CHECK_STR(perfmap_lookup(pm, 0x1012, &off), "replaced later");
	CHECK_INT(off, 2);
	CHECK_STR(perfmap_lookup(pm, 0x1020, &off), "first");
	CHECK_STR(perfmap_lookup(pm, 0x200f, NULL), "with spaces in it");
	CHECK(perfmap_lookup(pm, 0x2010, NULL) == NULL);
	CHECK(perfmap_lookup(pm, 0xfff, NULL) == NULL);
	perfmap_free(pm);

	/* a name is cut at PERFMAP_MAX_NAME; no terminating newline needed */
	big = malloc(20 + 3 * PERFMAP_MAX_NAME);
	if (!big)
		return;
	memcpy(big, "5000 10 ", 8);
	memset(big + 8, 'n', 3 * PERFMAP_MAX_NAME);
	pm = perfmap_parse(big, 8 + 3 * PERFMAP_MAX_NAME, &bad, &over);
	CHECK(pm && bad == 0);
	if (pm)
		CHECK_INT(strlen(perfmap_lookup(pm, 0x5000, NULL)), PERFMAP_MAX_NAME);
	perfmap_free(pm);
	free(big);
}

TEST(perfmap_read_refuses_what_others_could_plant)
{
	char dir[] = "/tmp/stackscope-unit.XXXXXX", path[128], lnk[128], why[160];
	struct perfmap *pm;
	FILE *f;

	CHECK(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/perf-1.map", dir);
	snprintf(lnk, sizeof(lnk), "%s/perf-2.map", dir);
	f = fopen(path, "w");
	CHECK(f);
	if (!f)
		return;
	fputs("1000 10 jitted\n", f);
	fclose(f);
	/* ours (the test's uid), or root's: read */
	pm = perfmap_read(path, true, getuid(), why, sizeof(why));
	CHECK(pm && !why[0]);
	perfmap_free(pm);
	/* the owner is another uid than the process's */
	if (getuid() == 0) {
		pm = perfmap_read(path, true, 12345, why, sizeof(why));
		CHECK(pm);	/* root's file is always trusted */
		perfmap_free(pm);
	} else {
		pm = perfmap_read(path, true, getuid() + 1, why, sizeof(why));
		CHECK(!pm && strstr(why, "not the process's"));
	}
	CHECK(symlink(path, lnk) == 0);
	errno = 0;
	pm = perfmap_read(lnk, true, getuid(), why, sizeof(why));
	CHECK(!pm);
	CHECK_STR(why, "a symlink: refused");
	unlink(lnk);
	CHECK(link(path, lnk) == 0);
	pm = perfmap_read(path, true, getuid(), why, sizeof(why));
	CHECK(!pm);
	CHECK_STR(why, "2 hard links: refused");
	unlink(lnk);
	CHECK(truncate(path, PERFMAP_MAX_BYTES + 1) == 0);
	pm = perfmap_read(path, true, getuid(), why, sizeof(why));
	CHECK(!pm && strstr(why, "more than the 64 MiB a perf map may have: refused"));
	unlink(path);
	errno = 0;
	CHECK(!perfmap_read(path, true, getuid(), why, sizeof(why)));
	CHECK_INT(errno, ENOENT);
	CHECK(!why[0]);
	rmdir(dir);
}

TEST(proctab_reads_proc_of_live_process)
{
	struct proctab *pt = proctab_new();
	const struct mapping *m;

	/* our own code is mapped from our own executable */
	m = proctab_find(pt, getpid(), 0, (uint64_t)(uintptr_t)&proctab_find);
	CHECK(m != NULL);
	if (m) {
		char exe[4096];
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		CHECK(n > 0);
		exe[n > 0 ? n : 0] = 0;
		CHECK_STR(m->path, exe);
		CHECK(m->id.ino != 0);
	}
	CHECK_INT(proctab_load_proc(pt, 0x7ffffff9), -ESRCH);
	proctab_free(pt);
}

TEST(output_replaces_symlink_instead_of_following)
{
	char dir[] = "/tmp/stackscope-unit.XXXXXX", target[128], link[128];
	struct output o;
	struct stat st;
	char buf[32] = "";
	int fd;

	CHECK(mkdtemp(dir));
	snprintf(target, sizeof(target), "%s/target", dir);
	snprintf(link, sizeof(link), "%s/out", dir);
	fd = open(target, O_CREAT | O_WRONLY, 0600);
	CHECK(fd >= 0 && write(fd, "precious", 8) == 8);
	close(fd);
	CHECK(symlink(target, link) == 0);

	CHECK_INT(output_open(&o, link), 0);
	fputs("new data", o.f);
	CHECK_INT(output_close(&o, true), 0);

	fd = open(target, O_RDONLY);
	CHECK(fd >= 0 && read(fd, buf, sizeof(buf) - 1) == 8);
	close(fd);
	CHECK_STR(buf, "precious");
	CHECK(lstat(link, &st) == 0 && S_ISREG(st.st_mode));
	CHECK_INT(st.st_mode & 0777, 0644);

	/* an aborted output leaves the destination as it was */
	CHECK_INT(output_open(&o, target), 0);
	fputs("partial", o.f);
	CHECK_INT(output_close(&o, false), 0);
	fd = open(target, O_RDONLY);
	memset(buf, 0, sizeof(buf));
	CHECK(fd >= 0 && read(fd, buf, sizeof(buf) - 1) == 8);
	close(fd);
	CHECK_STR(buf, "precious");

	unlink(link);
	unlink(target);
	CHECK(rmdir(dir) == 0);	/* no temporary left behind */
}

TEST(output_to_device_or_fifo_is_written_in_place)
{
	char dir[] = "/tmp/stackscope-unit.XXXXXX", fifo[128], link[128], buf[16] = "";
	struct output o;
	struct stat st;
	int rfd;

	/* /dev/null stays the device (renaming over it would replace it) */
	CHECK_INT(output_open(&o, "/dev/null"), 0);
	fputs("x", o.f);
	CHECK_INT(output_close(&o, true), 0);
	CHECK(stat("/dev/null", &st) == 0 && S_ISCHR(st.st_mode));

	CHECK(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	snprintf(link, sizeof(link), "%s/link", dir);
	CHECK(mkfifo(fifo, 0600) == 0);
	CHECK(symlink(fifo, link) == 0);
	rfd = open(fifo, O_RDONLY | O_NONBLOCK);
	CHECK(rfd >= 0);
	CHECK_INT(output_open(&o, fifo), 0);
	fputs("in place", o.f);
	CHECK_INT(output_close(&o, true), 0);
	CHECK(read(rfd, buf, sizeof(buf) - 1) == 8);
	CHECK_STR(buf, "in place");
	/* a symlink to a device is not followed (think /tmp/x -> /dev/sda):
	 * it is replaced by a regular file */
	CHECK_INT(output_open(&o, link), 0);
	fputs("replaced", o.f);
	CHECK_INT(output_close(&o, true), 0);
	CHECK(read(rfd, buf, sizeof(buf) - 1) <= 0);
	close(rfd);
	CHECK(lstat(link, &st) == 0 && S_ISREG(st.st_mode));
	CHECK(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode));
	/* our own descriptors are the exception */
	CHECK_INT(output_open(&o, "/dev/stderr"), 0);
	CHECK(o.special);
	CHECK_INT(output_close(&o, true), 0);
	unlink(link);
	unlink(fifo);
	CHECK(rmdir(dir) == 0);
}

/* /dev/fd/N naming a regular file (stderr redirected to a file): the
 * data goes through the descriptor, nothing is renamed over /dev/fd. */
TEST(output_to_own_descriptor_on_a_file_writes_through_it)
{
	char path[] = "/tmp/stackscope-unit-fd.XXXXXX", name[32], buf[64] = "";
	int fd = mkstemp(path);
	struct output o;
	struct stat st;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	snprintf(name, sizeof(name), "/dev/fd/%d", fd);
	CHECK_INT(output_open(&o, name), 0);
	CHECK(o.special);
	fputs("through the fd", o.f);
	CHECK_INT(output_close(&o, true), 0);
	CHECK(lstat("/dev/stderr", &st) == 0 && S_ISLNK(st.st_mode));
	CHECK(pread(fd, buf, sizeof(buf) - 1, 0) == 14);
	CHECK_STR(buf, "through the fd");
	close(fd);
	unlink(path);
	/* not a descriptor number: an ordinary path, which cannot be made there */
	CHECK(output_open(&o, "/dev/fd/x") < 0);
}

TEST(output_into_missing_directory_fails_cleanly)
{
	struct output o;

	CHECK_INT(output_open(&o, "/nonexistent-dir/x.svg"), -ENOENT);
}

TEST(demangle_cxx_names)
{
	char *d = demangle("_ZN9pkgPolicyD1Ev");

	if (!d) {
		/* without a C++ runtime names stay mangled */
		CHECK(access("/usr/lib/x86_64-linux-gnu/libstdc++.so.6", F_OK) != 0);
		SKIP("no C++ runtime (libstdc++.so.6) here: names stay mangled");
	}
	CHECK_STR(d, "pkgPolicy::~pkgPolicy()");
	free(d);
	d = demangle("_Z3mulii");
	CHECK_STR(d, "mul(int, int)");
	free(d);
	CHECK(demangle("main") == NULL);
	CHECK(demangle("_Zgarbage!") == NULL);
}

TEST(parse_numbers_and_pids)
{
	long v;
	double d;
	pid_t *pids;
	char arg[64];

	CHECK_INT(parse_long("999", 1, 100000, &v), 0);
	CHECK_INT(v, 999);
	CHECK_INT(parse_long("0", 1, 10, &v), -EINVAL);
	CHECK_INT(parse_long("12x", 1, 100, &v), -EINVAL);
	CHECK_INT(parse_long("", 1, 100, &v), -EINVAL);
	CHECK_INT(parse_seconds("1.5", &d), 0);
	CHECK(d == 1.5);
	CHECK_INT(parse_seconds("-1", &d), -EINVAL);
	CHECK_INT(parse_seconds("abc", &d), -EINVAL);

	snprintf(arg, sizeof(arg), "%d,%d", getpid(), getppid());
	CHECK_INT(parse_pid_list(arg, &pids), 2);
	CHECK_INT(pids[0], getpid());
	free(pids);
	CHECK_INT(parse_pid_list("1,x", &pids), -EINVAL);
	CHECK_INT(parse_pid_list("999999999", &pids), -ESRCH);
}

TEST(kernel_stack_loses_tracer_frames_and_their_callees)
{
	char path[] = "/tmp/stackscope-kallsyms.XXXXXX";
	int fd = mkstemp(path);
	const char *text =
		"ffffffff81000000 T schedule\n"
		"ffffffff81000100 T __schedule\n"
		"ffffffff81000200 T __traceiter_sched_switch\n"
		"ffffffff81000300 T bpf_trace_run2\n"
		"ffffffff81000400 T __rcu_read_lock\n"
		"ffffffff81000500 T do_nanosleep\n"
		"ffffffffc0001000 t bpf_prog_6deef7357e7b4530_on_switch\t[bpf]\n";
	struct ksyms *ks;
	struct proctab *pt = proctab_new();
	struct symcache *sc = symcache_new();
	struct symbolizer *s;
	struct frame out[8];
	/* innermost first: a sample in rcu_read_lock called by the glue */
	uint64_t glue[] = { 0xffffffff81000410, 0xffffffff81000310, 0xffffffff81000210,
			    0xffffffff81000110, 0xffffffff81000010 };
	uint64_t prog[] = { 0xffffffffc0001010, 0xffffffff81000310, 0xffffffff81000210,
			    0xffffffff81000510 };
	uint64_t plain[] = { 0xffffffff81000510, 0xffffffff81000010 };
	int n;

	CHECK(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	ks = ksyms_load(path);
	unlink(path);
	CHECK(ks != NULL);
	if (!ks)
		return;
	s = symbolizer_new(pt, sc, ks, 0);
	n = symbolize_kernel(s, glue, 5, out);
	CHECK_INT(n, 2);
	CHECK_STR(out[0].name, "schedule");
	CHECK_STR(out[1].name, "__schedule");
	n = symbolize_kernel(s, prog, 4, out);
	CHECK_INT(n, 1);
	CHECK_STR(out[0].name, "do_nanosleep");
	n = symbolize_kernel(s, plain, 2, out);
	CHECK_INT(n, 2);
	CHECK_STR(out[0].name, "schedule");
	CHECK_STR(out[1].name, "do_nanosleep");
	/* a kernel frame keeps its address, in the kernel's module */
	CHECK(out[1].kind == FRAME_KERNEL);
	CHECK(out[1].addr == 0xffffffff81000510 && out[1].offset == out[1].addr);
	CHECK(out[1].module && !strcmp(out[1].module->path, "[kernel.kallsyms]"));
	CHECK_INT(symbolizer_stats(s)->tracer_dropped, 3 + 3);
	symbolizer_free(s);
	symcache_free(sc);
	ksyms_free(ks);
	proctab_free(pt);
}

TEST(user_frames_named_and_cached)
{
	struct proctab *pt = proctab_new();
	struct symcache *sc = symcache_new();
	struct symbolizer *s = symbolizer_new(pt, sc, NULL, 0);
	/* no such file: frames are named by module and offset */
	struct mapping m = map(0x10000, 0x20000, 0x1000, "/nonexistent/app");
	uint32_t pid = 0x7ffffff5;
	uint64_t ips[] = { 0x10010, 0x10020 | SYM_IP_SIGNAL, 0x10010, 0x90000 };
	struct frame out[4], first[4];

	CHECK(pt && sc && s);
	if (!pt || !sc || !s)
		goto out;
	proctab_exec(pt, pid, 0);
	proctab_mmap(pt, pid, &m, 0);
	for (int round = 0; round < 2; round++) {
		CHECK_INT(symbolize_user(s, pid, 1, ips, 4, out), 4);
		/* outermost first; a return address names the call before it */
		CHECK_STR(out[0].name, "[unknown]");
		CHECK_STR(out[1].name, "[app+0x100f]");
		CHECK_STR(out[2].name, "[signal]");
		CHECK_STR(out[3].name, "[app+0x1010]");
		/* each keeps where it was: the address looked up, the file, the offset */
		CHECK(out[0].addr == 0x90000 - 1 && out[0].module == NULL);
		CHECK(out[1].addr == 0x1000f && out[1].offset == 0x100f);
		CHECK(out[3].addr == 0x10010 && out[3].offset == 0x1010);
		CHECK(out[3].kind == FRAME_USER);
		CHECK(out[3].module && !strcmp(out[3].module->path, "/nonexistent/app"));
		CHECK(out[1].module == out[3].module);
		if (!round)
			memcpy(first, out, sizeof(out));
	}
	for (int i = 0; i < 4; i++)
		CHECK(out[i].name == first[i].name && out[i].module == first[i].module);
	CHECK_INT(symbolizer_stats(s)->frames, 8);
	CHECK_INT(symbolizer_stats(s)->unsymbolized, 6);
	/* the same address in another process is looked up there */
	CHECK_INT(symbolize_user(s, pid + 1, 1, ips, 1, out), 1);
	CHECK_STR(out[0].name, "[unknown]");
out:
	symbolizer_free(s);
	symcache_free(sc);
	proctab_free(pt);
}

/* Bounded long runs: an exited process is dropped two collections after
 * its exit record when no lookup found it; a sampled one is kept (its
 * looked-up mappings) until proctab_release() says its samples are named;
 * a live one stays. */
TEST(proctab_release_after_collections)
{
	struct proctab *pt = proctab_new();
	struct mapping a = map(0x1000, 0x2000, 0, "/usr/bin/sampled");
	struct mapping b = map(0x5000, 0x6000, 0, "/usr/bin/other");
	uint32_t sampled = 0x7ffffff1, unsampled = 0x7ffffff2, live = 0x7ffffff3;
	size_t procs, exited, dropped;

	CHECK(pt);
	proctab_forget_unsampled(pt);
	for (uint32_t pid = sampled; pid <= live; pid++) {
		CHECK_INT(proctab_exec(pt, pid, 10), 0);
		CHECK_INT(proctab_mmap(pt, pid, &a, 11), 0);
		CHECK_INT(proctab_mmap(pt, pid, &b, 12), 0);
	}
	CHECK(proctab_find(pt, sampled, 13, 0x1800) != NULL);
	CHECK(proctab_find(pt, live, 13, 0x1800) != NULL);
	CHECK_INT(proctab_exit(pt, sampled, 20), 0);
	CHECK_INT(proctab_exit(pt, unsampled, 20), 0);
	/* its last samples may still be in a buffer: two drains */
	CHECK_INT(proctab_release(pt), 0);
	CHECK_INT(proctab_collect(pt, false), 0);
	CHECK_INT(proctab_release(pt), 0);
	CHECK_INT(proctab_collect(pt, false), 0);
	CHECK_INT(proctab_collect(pt, false), 1);
	proctab_stats(pt, &procs, &exited, &dropped);
	CHECK_INT(procs, 2);
	CHECK_INT(exited, 1);
	CHECK_INT(dropped, 1);
	/* compacted: the mapping a lookup found stays, the other goes */
	CHECK(proctab_find(pt, sampled, 13, 0x1800) != NULL);
	CHECK(proctab_find(pt, sampled, 13, 0x5800) == NULL);
	/* its samples are named: it goes; the live one stays */
	CHECK_INT(proctab_release(pt), 1);
	proctab_stats(pt, &procs, &exited, &dropped);
	CHECK_INT(procs, 1);
	CHECK_INT(exited, 0);
	CHECK_INT(dropped, 2);
	CHECK(proctab_known(pt, live));
	CHECK(!proctab_known(pt, sampled));
	proctab_free(pt);
}

/* Streaming (every stack named as it arrives): an exited process goes
 * two collections after its exit, sampled or not; a pid reused by a new
 * fork before then is a live process again. */
TEST(proctab_forget_exited_streaming)
{
	struct proctab *pt = proctab_new();
	struct mapping a = map(0x1000, 0x2000, 0, "/usr/bin/sampled");
	uint32_t pid = 0x7ffffff4, reused = 0x7ffffff5, parent = 0x7ffffff6;
	size_t procs, exited, dropped;

	CHECK(pt);
	proctab_forget_exited(pt);
	CHECK_INT(proctab_exec(pt, parent, 5), 0);
	CHECK_INT(proctab_mmap(pt, parent, &a, 6), 0);
	CHECK_INT(proctab_fork(pt, parent, pid, 10), 0);
	CHECK_INT(proctab_fork(pt, parent, reused, 10), 0);
	CHECK(proctab_find(pt, pid, 11, 0x1800) != NULL);
	CHECK_INT(proctab_exit(pt, pid, 20), 0);
	CHECK_INT(proctab_exit(pt, reused, 20), 0);
	CHECK_INT(proctab_fork(pt, parent, reused, 30), 0);
	for (int i = 0; i < 3; i++)
		proctab_collect(pt, false);
	proctab_stats(pt, &procs, &exited, &dropped);
	CHECK_INT(procs, 2);
	CHECK_INT(exited, 0);
	CHECK_INT(dropped, 1);
	CHECK(!proctab_known(pt, pid));
	CHECK(proctab_find(pt, reused, 31, 0x1800) != NULL);
	proctab_free(pt);
}

/* A collection looks at the processes that exited, not at the whole
 * table: among a thousand live ones, the exited go on the same schedule;
 * a pid that exits, is forked anew and exits again goes once; and a
 * process kept until released (no forget mode then) is taken up again
 * when one is switched on. */
TEST(proctab_collect_among_many_live)
{
	struct proctab *pt = proctab_new();
	struct mapping a = map(0x1000, 0x2000, 0, "/usr/bin/sampled");
	uint32_t parent = 0x7fff0000, first = 0x7fff0001, nlive = 1000;
	uint32_t gone = first + nlive, again = gone + 1, kept = gone + 2;
	size_t procs, exited, dropped;

	CHECK(pt);
	CHECK_INT(proctab_exec(pt, parent, 5), 0);
	CHECK_INT(proctab_mmap(pt, parent, &a, 6), 0);
	for (uint32_t pid = first; pid <= kept; pid++)
		CHECK_INT(proctab_fork(pt, parent, pid, 10), 0);
	/* no forget mode yet: kept exits and stays until released */
	CHECK_INT(proctab_exit(pt, kept, 20), 0);
	for (int i = 0; i < 4; i++)
		CHECK_INT(proctab_collect(pt, false), 0);
	proctab_stats(pt, &procs, &exited, &dropped);
	CHECK_INT(procs, nlive + 4);
	CHECK_INT(exited, 1);
	proctab_forget_exited(pt);
	CHECK_INT(proctab_exit(pt, gone, 30), 0);
	CHECK_INT(proctab_exit(pt, again, 30), 0);
	CHECK_INT(proctab_fork(pt, parent, again, 31), 0);
	CHECK_INT(proctab_exit(pt, again, 32), 0);
	/* kept: taken up at once; gone and again: two whole drains first */
	CHECK_INT(proctab_collect(pt, false), 1);
	CHECK(!proctab_known(pt, kept));
	CHECK_INT(proctab_collect(pt, false), 0);
	CHECK_INT(proctab_collect(pt, false), 2);
	CHECK_INT(proctab_collect(pt, false), 0);
	proctab_stats(pt, &procs, &exited, &dropped);
	CHECK_INT(procs, nlive + 1);
	CHECK_INT(exited, 0);
	CHECK_INT(dropped, 3);
	for (uint32_t pid = first; pid < first + nlive; pid += 111)
		CHECK(proctab_find(pt, pid, 40, 0x1800) != NULL);
	CHECK(!proctab_known(pt, gone));
	CHECK(!proctab_known(pt, again));
	proctab_free(pt);
}

struct path_seen {
	size_t n;
	bool ok;
};

static void check_path(void *ctx, const struct mapping *m)
{
	struct path_seen *s = ctx;

	s->n++;
	s->ok &= !strcmp(m->path, "/usr/bin/kept");
}

/* Paths of dropped processes leave the pool when it is rebuilt; the kept
 * mappings' paths are the same strings after it. */
TEST(proctab_compact_paths_frees_dropped)
{
	struct proctab *pt = proctab_new();
	struct mapping kept = map(0x1000, 0x2000, 0, "/usr/bin/kept");
	uint32_t live = 0x7ffffff7;
	struct path_seen seen = { 0, true };
	char path[64];

	CHECK(pt);
	proctab_forget_exited(pt);
	CHECK_INT(proctab_exec(pt, live, 1), 0);
	CHECK_INT(proctab_mmap(pt, live, &kept, 2), 0);
	for (uint32_t i = 0; i < 500; i++) {
		struct mapping m = map(0x1000, 0x2000, 0, path);

		snprintf(path, sizeof(path), "/tmp/churn/bin%u", i);
		CHECK_INT(proctab_exec(pt, 0x70000000 + i, 10), 0);
		CHECK_INT(proctab_mmap(pt, 0x70000000 + i, &m, 11), 0);
		CHECK_INT(proctab_exit(pt, 0x70000000 + i, 12), 0);
	}
	for (int i = 0; i < 3; i++)
		proctab_collect(pt, false);
	CHECK_INT(proctab_count(pt), 1);
	CHECK_INT(proctab_compact_paths(pt), 500);
	/* nothing more to free: not rebuilt again */
	CHECK_INT(proctab_compact_paths(pt), 0);
	proctab_each_mapping(pt, check_path, &seen);
	CHECK_INT(seen.n, 1);
	CHECK(seen.ok);
	CHECK(!strcmp(proctab_find(pt, live, 3, 0x1800)->path, "/usr/bin/kept"));
	proctab_free(pt);
}

/* A process whose exit record was lost is found gone at a trim; a live
 * one (this test) is not. */
TEST(proctab_reap_lost_exits)
{
	struct proctab *pt = proctab_new();
	uint32_t gone = 0x7ffffff9, me = (uint32_t)getpid();
	size_t procs, exited, dropped;

	CHECK(pt);
	proctab_forget_exited(pt);
	CHECK_INT(proctab_exec(pt, gone, 1), 0);
	CHECK_INT(proctab_exec(pt, me, 1), 0);
	CHECK_INT(proctab_reap(pt), 1);
	CHECK_INT(proctab_reap(pt), 0);
	for (int i = 0; i < 3; i++)
		proctab_collect(pt, false);
	proctab_stats(pt, &procs, &exited, &dropped);
	CHECK_INT(procs, 1);
	CHECK_INT(dropped, 1);
	CHECK(proctab_known(pt, me));
	proctab_free(pt);
}
