/* The in-kernel unwinder's mapping table builder (unwind/kload.c): the
 * executable mappings of /proc/PID/maps text and their load biases; the
 * one table per binary it shares with the user-space unwinder. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include "test.h"
#include "bpf/kunwind.h"
#include "sym/symcache.h"
#include "unwind/kload.h"
#include "unwind/table.h"
#include "unwind/unwind.h"

TEST(kload_parse_maps_executable_only)
{
	static const char text[] =
		"5581a000-5581b000 r--p 00000000 fd:01 1234                       /usr/bin/x y\n"
		"5581b000-5581c000 r-xp 00001000 fd:01 1234                       /usr/bin/x y\n"
		"7f00000000-7f00001000 rwxp 00000000 00:00 0 \n"
		"7f10028000-7f101bd000 r-xp 00028000 08:02 99                     /lib/libc.so.6 (deleted)\n"
		"garbage line\n"
		"7ffd1000-7ffd3000 r-xp 00000000 00:00 0                          [vdso]\n"
		"7ffd4000-7ffd3000 r-xp 00000000 00:00 0                          [backwards]\n";
	struct kload_vma v[8];
	FILE *f = fmemopen((void *)text, sizeof(text) - 1, "r");
	int n;

	CHECK(f != NULL);
	n = kload_parse_maps(f, v, 8);
	fclose(f);
	CHECK_INT(n, 4);
	CHECK_INT(v[0].start, 0x5581b000);
	CHECK_INT(v[0].end, 0x5581c000);
	CHECK_INT(v[0].pgoff, 0x1000);
	CHECK_INT(v[0].dev, makedev(0xfd, 1));
	CHECK_INT(v[0].ino, 1234);
	CHECK_STR(v[0].path, "/usr/bin/x y");
	CHECK_STR(v[1].path, "");	/* anonymous: frame pointers */
	CHECK_INT(v[1].start, 0x7f00000000);
	CHECK_STR(v[2].path, "/lib/libc.so.6 (deleted)");
	CHECK_INT(v[2].dev, makedev(8, 2));
	CHECK_STR(v[3].path, "[vdso]");

	/* at most max */
	f = fmemopen((void *)text, sizeof(text) - 1, "r");
	CHECK_INT(kload_parse_maps(f, v, 2), 2);
	fclose(f);
}

TEST(kload_bias_from_segments)
{
	/* a PIE: text at file offset 0x1000, vaddr 0x1000; a segment whose
	 * offset is not page-aligned (mapped from its page) */
	const struct kload_seg segs[] = {
		{ 0, 0, 0x800 }, { 0x1000, 0x1000, 0x2345 }, { 0x3e10, 0x4e10, 0x250 },
	};
	uint64_t bias = 0;

	CHECK_INT(kload_bias(segs, 3, 0x555555555000, 0x1000, &bias), 0);
	CHECK_INT(bias, 0x555555554000);
	/* the mapping of the unaligned segment starts at its page 0x3000 */
	CHECK_INT(kload_bias(segs, 3, 0x555555558000, 0x3000, &bias), 0);
	CHECK_INT(0x555555558000 - bias, 0x4000);
	/* a non-PIE executable: vaddr = bias 0 */
	const struct kload_seg exe[] = { { 0, 0x400000, 0x5000 } };
	CHECK_INT(kload_bias(exe, 1, 0x401000, 0x1000, &bias), 0);
	CHECK_INT(bias, 0);
	CHECK_INT(kload_bias(segs, 3, 0x1000, 0x9000, &bias), -ERANGE);
}

/* kload asks the unwinder for a binary's table (unwinder_table()), so a
 * binary both unwind: one build, whichever asks first, under any name
 * that leads to the same inode. */
TEST(kload_table_shared_with_unwinder)
{
	static const char libc[] = "/usr/lib/x86_64-linux-gnu/libc.so.6";
	char dir[] = "/tmp/stackscope-kload.XXXXXX", link[sizeof(dir) + 8];
	const struct unwind_table *t1, *t2, *t3;
	struct symcache *sc;
	struct unwinder *u;
	struct binary_id id;
	struct stat st;

	if (stat(libc, &st))
		SKIP("no %s", libc);
	id = (struct binary_id){ .dev = st.st_dev, .ino = st.st_ino };
	sc = symcache_new();
	u = unwinder_new(NULL, sc, UNWIND_KERNEL);
	CHECK(sc && u);
	if (!sc || !u)
		goto out;
	t1 = unwinder_table(u, 1, libc, 0x7f0000000000, 0x7f0000100000, &id, NULL);
	CHECK(t1 != NULL);
	CHECK(t1 && unwind_table_rows(t1, NULL) > 1000);
	CHECK_INT(unwinder_stats(u)->tables, 1);
	/* asked again (another mapping, another process): the same rows */
	t2 = unwinder_table(u, 2, libc, 0x7f1000000000, 0x7f1000100000, &id, NULL);
	CHECK(t2 == t1);
	/* under another name of the same file: still one binary */
	if (mkdtemp(dir)) {
		snprintf(link, sizeof(link), "%s/libc", dir);
		if (!symlink(libc, link)) {
			t3 = unwinder_table(u, 3, link, 0x7f2000000000, 0x7f2000100000, &id, NULL);
			CHECK(t3 == t1);
			unlink(link);
		}
		rmdir(dir);
	}
	CHECK_INT(unwinder_stats(u)->tables, 1);
	CHECK_INT(unwinder_stats(u)->no_table, 0);
	/* a different file under that identity is not given its table */
	id.ino ^= 1;
	CHECK(unwinder_table(u, 1, libc, 0x7f0000000000, 0x7f0000100000, &id, NULL) == NULL);
	CHECK_INT(unwinder_stats(u)->tables, 1);
out:
	unwinder_free(u);
	symcache_free(sc);
}

/* unwind_procs is allocated as it fills (no LRU): when full, kload makes
 * room by deleting the entry of a process gone, else the one loaded
 * longest ago.  Real maps and processes: root only. */
static pid_t idle_child(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		pause();
		_exit(0);
	}
	return pid;
}

static bool in_procs(int fd, pid_t pid)
{
	struct kunwind_proc e;
	__u32 key = (__u32)pid;

	return !bpf_map_lookup_elem(fd, &key, &e) && e.gen == 1;
}

TEST(kload_full_procs_map_evicts_gone_then_oldest)
{
	LIBBPF_OPTS(bpf_map_create_opts, noprealloc, .map_flags = BPF_F_NO_PREALLOC);
	int rows_fd, procs_fd, gens_fd;
	struct symcache *sc = NULL;
	struct unwinder *u = NULL;
	struct kload *k = NULL;
	pid_t c[4] = { 0 };
	__u64 gen = 1;

	if (geteuid())
		SKIP("BPF maps need root");
	rows_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, NULL, 4, 16, 1 << 16, NULL);
	procs_fd = bpf_map_create(BPF_MAP_TYPE_HASH, NULL, 4, sizeof(struct kunwind_proc), 2,
				  &noprealloc);
	gens_fd = bpf_map_create(BPF_MAP_TYPE_HASH, NULL, 4, 8, 16, NULL);
	if (rows_fd < 0 || procs_fd < 0 || gens_fd < 0)
		SKIP("cannot create BPF maps: %s", strerror(errno));
	sc = symcache_new();
	u = unwinder_new(NULL, sc, UNWIND_KERNEL);
	k = kload_new(&(struct kload_opts){ .uw = u, .rows_fd = rows_fd, .rows = 1 << 16,
					    .procs_fd = procs_fd, .gens_fd = gens_fd });
	CHECK(sc && u && k);
	for (int i = 0; i < 4; i++) {
		c[i] = idle_child();
		CHECK(c[i] > 0);
		__u32 key = (__u32)c[i];
		CHECK_INT(bpf_map_update_elem(gens_fd, &key, &gen, BPF_ANY), 0);
	}
	if (!k || c[0] <= 0 || c[1] <= 0 || c[2] <= 0 || c[3] <= 0)
		goto out;
	CHECK_INT(kload_process(k, c[0], 1, false), 0);
	CHECK_INT(kload_process(k, c[1], 1, false), 0);
	CHECK_INT(kload_stats(k)->evicted, 0);
	/* full: c[0] has exited, its entry goes */
	kill(c[0], SIGKILL);
	waitpid(c[0], NULL, 0);
	c[0] = 0;
	CHECK_INT(kload_process(k, c[2], 1, false), 0);
	CHECK_INT(kload_stats(k)->evicted, 1);
	CHECK(in_procs(procs_fd, c[1]) && in_procs(procs_fd, c[2]));
	/* full, every one alive: the one loaded longest ago (c[1]) goes */
	CHECK_INT(kload_process(k, c[3], 1, false), 0);
	CHECK_INT(kload_stats(k)->evicted, 2);
	CHECK(!in_procs(procs_fd, c[1]) && in_procs(procs_fd, c[2]) && in_procs(procs_fd, c[3]));
	CHECK_INT(kload_stats(k)->loads, 4);
out:
	for (int i = 0; i < 4; i++) {
		if (c[i] > 0) {
			kill(c[i], SIGKILL);
			waitpid(c[i], NULL, 0);
		}
	}
	kload_free(k);
	unwinder_free(u);
	symcache_free(sc);
	close(rows_fd);
	close(procs_fd);
	close(gens_fd);
}
