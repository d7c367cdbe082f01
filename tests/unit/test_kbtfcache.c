/* The small kernel BTFs kept from one run to the next (trace/kbtfcache.c)
 * and the load handed to the thread that makes them (trace/kbtf.c). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "test.h"
#include "common.h"
#include "trace/kbtf.h"
#include "trace/kbtfcache.h"
#include "bpf/syscalls.h"
#include "profile.skel.h"
#include "syscalls.skel.h"

/* A private directory for one test's cache, removed by rm_tree(). */
static char *test_dir(char *buf, size_t size)
{
	snprintf(buf, size, "/tmp/stackscope-kbtfcache-XXXXXX");
	return mkdtemp(buf);
}

static void rm_tree(const char *dir)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", dir);
}

static int count_files(const char *dir, const char *prefix)
{
	char cmd[512], line[64];
	FILE *p;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | grep -c '^%s' || true", dir, prefix);
	p = popen(cmd, "r");
	if (p && fgets(line, sizeof(line), p))
		n = atoi(line);
	if (p)
		pclose(p);
	return n;
}

static void write_file(const char *path, const void *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd >= 0) {
		CHECK_INT(write_all(fd, data, size), 0);
		close(fd);
	}
}

TEST(kbtf_build_id_from_notes)
{
	/* a note of another kind, then the GNU build id (4 bytes here) */
	unsigned char notes[] = {
		4, 0, 0, 0, 8, 0, 0, 0, 6, 0, 0, 0, 'X', 'e', 'n', 0, 1, 2, 3, 4, 5, 6, 7, 8,
		4, 0, 0, 0, 4, 0, 0, 0, 3, 0, 0, 0, 'G', 'N', 'U', 0, 0xde, 0xad, 0xbe, 0xef,
	};
	unsigned char id[64];
	char dir[64], path[128];

	if (!test_dir(dir, sizeof(dir)))
		SKIP("no temporary directory");
	snprintf(path, sizeof(path), "%s/notes", dir);
	write_file(path, notes, sizeof(notes));
	CHECK_INT(kbtf_kernel_build_id(path, id, sizeof(id)), 4);
	CHECK(!memcmp(id, "\xde\xad\xbe\xef", 4));
	/* too long for the caller's buffer */
	CHECK_INT(kbtf_kernel_build_id(path, id, 3), -EINVAL);
	/* cut inside the build id's note: none found, nothing read past */
	write_file(path, notes, sizeof(notes) - 2);
	CHECK_INT(kbtf_kernel_build_id(path, id, sizeof(id)), -ENOENT);
	/* a size that runs past the end */
	notes[4] = 0xff;
	notes[5] = 0xff;
	write_file(path, notes, sizeof(notes));
	CHECK_INT(kbtf_kernel_build_id(path, id, sizeof(id)), -ENOENT);
	CHECK_INT(kbtf_kernel_build_id("/nonexistent/notes", id, sizeof(id)), -ENOENT);
	rm_tree(dir);
}

/* Cache open for object, in dir; skips (returns false) on a kernel
 * without a build id. */
static bool open_in(struct kbtf_cache *c, const char *dir, const char *object, const void *elf,
		    size_t size)
{
	setenv(KBTF_CACHE_ENV, dir, 1);
	int err = kbtf_cache_open(c, object, elf, size);

	unsetenv(KBTF_CACHE_ENV);
	if (err && strstr(c->why, "build id"))
		return false;
	CHECK_INT(err, 0);
	return !err;
}

TEST(kbtf_cache_keeps_and_gives_back)
{
	size_t sz, sz2;
	const void *elf = profile_bpf__elf_bytes(&sz), *elf2 = syscalls_bpf__elf_bytes(&sz2);
	struct kbtf_custom made = KBTF_INIT;
	struct kbtf_cache c, c2;
	char dir[64], sub[96], name1[96];
	struct stat st;
	int fd, err, types;
	void *a = NULL, *b = NULL;

	if (!test_dir(dir, sizeof(dir)))
		SKIP("no temporary directory");
	/* made where missing, 0700 */
	snprintf(sub, sizeof(sub), "%s/cache", dir);
	err = kbtf_for_object(elf, sz, NULL, &made);
	if (err) {
		rm_tree(dir);
		SKIP("no small BTF here: %s", strerror(-err));
	}
	if (!open_in(&c, sub, "profile", elf, sz)) {
		kbtf_close(&made);
		rm_tree(dir);
		SKIP("no kernel build id here: %s", c.why);
	}
	CHECK(stat(sub, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700);
	CHECK(!strncmp(c.name, "profile-", 8) && strstr(c.name, ".btf"));
	fd = memfd_create("t", MFD_CLOEXEC);
	CHECK_INT(kbtf_cache_read(&c, fd), -ENOENT);
	CHECK(fstat(made.fd, &st) == 0);
	CHECK_INT(kbtf_cache_write(&c, made.fd, st.st_size), 0);
	types = kbtf_cache_read(&c, fd);
	CHECK_INT(types, made.types);
	/* the same bytes */
	a = malloc(st.st_size);
	b = malloc(st.st_size);
	CHECK(a && b && pread(made.fd, a, st.st_size, 0) == st.st_size &&
	      pread(fd, b, st.st_size, 0) == st.st_size && !memcmp(a, b, st.st_size));
	close(fd);
	snprintf(name1, sizeof(name1), "%s", c.name);
	/* another object: another file, the first kept */
	if (open_in(&c2, sub, "syscalls", elf2, sz2)) {
		CHECK(strcmp(c2.name, name1));
		CHECK_INT(kbtf_cache_write(&c2, made.fd, st.st_size), 0);
		kbtf_cache_close(&c2);
	}
	CHECK_INT(count_files(sub, "profile-"), 1);
	CHECK_INT(count_files(sub, "syscalls-"), 1);
	/* the same object built again (another image): replaces its file */
	if (open_in(&c2, sub, "profile", elf2, sz2)) {
		CHECK(strcmp(c2.name, name1));
		CHECK_INT(kbtf_cache_write(&c2, made.fd, st.st_size), 0);
		kbtf_cache_close(&c2);
	}
	CHECK_INT(count_files(sub, "profile-"), 1);
	CHECK_INT(count_files(sub, "syscalls-"), 1);
	kbtf_cache_close(&c);
	free(a);
	free(b);
	kbtf_close(&made);
	rm_tree(dir);
}

TEST(kbtf_cache_refuses_what_it_cannot_trust)
{
	size_t sz;
	const void *elf = profile_bpf__elf_bytes(&sz);
	struct kbtf_cache c;
	char dir[64], sub[96], link[96], path[256];
	int fd;

	if (!test_dir(dir, sizeof(dir)))
		SKIP("no temporary directory");
	snprintf(sub, sizeof(sub), "%s/cache", dir);
	if (!open_in(&c, sub, "profile", elf, sz)) {
		rm_tree(dir);
		SKIP("no kernel build id here: %s", c.why);
	}
	/* a file that is not BTF under the right name: not given back */
	snprintf(path, sizeof(path), "%s/%s", sub, c.name);
	write_file(path, "not btf, not btf, not btf, not btf", 34);
	fd = memfd_create("t", MFD_CLOEXEC);
	CHECK_INT(kbtf_cache_read(&c, fd), -EINVAL);
	CHECK_INT(lseek(fd, 0, SEEK_END), 0);
	/* writable by others: not read */
	CHECK(chmod(path, 0666) == 0);
	CHECK_INT(kbtf_cache_read(&c, fd), -EINVAL);
	/* a symbolic link in its place: not followed */
	unlink(path);
	CHECK(symlink("/sys/kernel/btf/vmlinux", path) == 0);
	CHECK(kbtf_cache_read(&c, fd) < 0);
	CHECK_INT(lseek(fd, 0, SEEK_END), 0);
	close(fd);
	kbtf_cache_close(&c);
	/* the directory writable by others: not used, and said why */
	CHECK(chmod(sub, 0777) == 0);
	setenv(KBTF_CACHE_ENV, sub, 1);
	CHECK_INT(kbtf_cache_open(&c, "profile", elf, sz), -EPERM);
	CHECK(strstr(c.why, "mode 777") != NULL);
	CHECK_INT(c.dirfd, -1);
	/* owned by another user */
	CHECK(chmod(sub, 0700) == 0);
	CHECK(chown(sub, 65534, 65534) == 0);
	CHECK_INT(kbtf_cache_open(&c, "profile", elf, sz), -EPERM);
	CHECK(strstr(c.why, "owned by uid 65534") != NULL);
	/* a symbolic link on the way, or as the directory itself */
	snprintf(link, sizeof(link), "%s/link", dir);
	CHECK(symlink(dir, link) == 0);
	snprintf(path, sizeof(path), "%s/cache", link);
	setenv(KBTF_CACHE_ENV, path, 1);
	CHECK(kbtf_cache_open(&c, "profile", elf, sz) < 0);
	CHECK(strstr(c.why, "symbolic link") != NULL);
	setenv(KBTF_CACHE_ENV, link, 1);
	CHECK(kbtf_cache_open(&c, "profile", elf, sz) < 0);
	/* relative, and empty (no cache) */
	setenv(KBTF_CACHE_ENV, "relative/dir", 1);
	CHECK_INT(kbtf_cache_open(&c, "profile", elf, sz), -EINVAL);
	setenv(KBTF_CACHE_ENV, "", 1);
	CHECK_INT(kbtf_cache_open(&c, "profile", elf, sz), -ENOENT);
	CHECK_INT(c.dirfd, -1);
	unsetenv(KBTF_CACHE_ENV);
	rm_tree(dir);
}

static pthread_t main_thread;
static int load_calls;
static bool load_elsewhere, maps_made;

static int fake_load(void *arg)
{
	struct profile_bpf *skel = arg;
	struct bpf_map *m;

	load_calls++;
	load_elsewhere = !pthread_equal(pthread_self(), main_thread);
	maps_made = true;
	bpf_object__for_each_map(m, skel->obj)
		if (!bpf_map__is_internal(m) && bpf_map__type(m) != BPF_MAP_TYPE_ARRAY_OF_MAPS &&
		    bpf_map__fd(m) < 0)
			maps_made = false;
	return -E2BIG;
}

/* The load on the thread of the small BTF: every map listed made before
 * it, the load run once, there, and its result handed back. */
TEST(kbtf_load_runs_on_the_btf_thread)
{
	struct kbtf_custom kb = KBTF_INIT;
	struct bpf_map *maps[64];
	struct profile_bpf *skel;
	size_t n;

	main_thread = pthread_self();
	load_calls = 0;
	/* (read by the thread: unset once it is over) */
	setenv(KBTF_CACHE_ENV, "", 1);
	skel = KBTF_OPEN(profile, &kb);
	CHECK(skel != NULL);
	if (!skel) {
		kbtf_close(&kb);
		unsetenv(KBTF_CACHE_ENV);
		return;
	}
	bpf_map__set_max_entries(skel->maps.unwind_rows, 16);
	n = map_premake_list(skel->obj, maps, 64);
	CHECK(n >= 10 && n <= 64);
	/* fewer places than maps: all counted, the first ones listed */
	CHECK_INT(map_premake_list(skel->obj, maps, 2), n);
	CHECK_INT(map_premake_list(skel->obj, maps, 64), n);
	CHECK_INT(kbtf_load_start(&kb, &(struct kbtf_load){ maps, n, fake_load, skel }), 0);
	for (size_t i = 0; i < n; i++)
		CHECK(bpf_map__fd(maps[i]) >= 0);
	CHECK_INT(kbtf_load_wait(&kb), -E2BIG);
	CHECK_INT(load_calls, 1);
	CHECK(load_elsewhere);
	CHECK(maps_made);
	kbtf_close(&kb);
	unsetenv(KBTF_CACHE_ENV);
	profile_bpf__destroy(skel);
}
