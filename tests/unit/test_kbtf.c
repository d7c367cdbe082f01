/* The small kernel BTF a BPF object's CO-RE relocations are resolved
 * against (trace/kbtf.c), checked against the running kernel's whole BTF
 * as libbpf reads it. */
#include <errno.h>
#include <fcntl.h>
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
#include "bpf/syscalls.h"
#include "syscalls.skel.h"
#include "profile.skel.h"

/* Member path "a.b.c" of struct root in btf: its bit offset and bitfield
 * size, summed along the path; -1 when something on it is missing. */
static long member_bits(const struct btf *btf, const char *root, const char *path, int *bits)
{
	char buf[128], *save = NULL, *name;
	int id = btf__find_by_name_kind(btf, root, BTF_KIND_STRUCT);
	long off = 0;

	*bits = 0;
	if (id < 0)
		return -1;
	snprintf(buf, sizeof(buf), "%s", path);
	for (name = strtok_r(buf, ".", &save); name; name = strtok_r(NULL, ".", &save)) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const struct btf_member *m;
		int i, n;

		while (btf_is_mod(t) || btf_is_typedef(t))
			t = btf__type_by_id(btf, id = t->type);
		if (!btf_is_composite(t))
			return -1;
		m = btf_members(t);
		n = btf_vlen(t);
		for (i = 0; i < n; i++)
			if (!strcmp(btf__name_by_offset(btf, m[i].name_off), name))
				break;
		if (i == n)
			return -1;
		off += btf_member_bit_offset(t, i);
		*bits = btf_member_bitfield_size(t, i);
		id = m[i].type;
	}
	return off;
}

static const struct {
	const char *root, *path;
} fields[] = {
	{ "task_struct", "tgid" },	  { "task_struct", "pid" },
	{ "task_struct", "start_time" },  { "task_struct", "exit_code" },
	{ "task_struct", "signal" },	  { "task_struct", "flags" },
	{ "task_struct", "in_execve" },	  { "task_struct", "comm" },
	{ "signal_struct", "live.counter" }, { "pt_regs", "sp" },
	{ "pt_regs", "orig_ax" },	  { "pt_regs", "r10" },
};

TEST(kbtf_small_btf_gives_the_kernels_offsets)
{
	size_t sz;
	const void *elf = profile_bpf__elf_bytes(&sz);
	struct kbtf_custom c = KBTF_INIT;
	struct btf *small = NULL, *full = NULL;
	int err = kbtf_for_object(elf, sz, NULL, &c), ptrs = 0;

	if (err == -ENOENT || err == -EACCES || err == -ENODEV)
		SKIP("no mappable /sys/kernel/btf/vmlinux here: %s", strerror(-err));
	CHECK_INT(err, 0);
	CHECK(c.fd >= 0);
	small = btf__parse(c.path, NULL);
	full = btf__load_vmlinux_btf();
	CHECK(!libbpf_get_error(small));
	CHECK(!libbpf_get_error(full));
	if (libbpf_get_error(small) || libbpf_get_error(full))
		goto out;
	CHECK_INT(btf__type_cnt(small) - 1, c.types);
	/* the few types the object names and what they embed */
	CHECK(c.types > 50 && c.types * 100 < (int)btf__type_cnt(full));
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		int sbits, fbits;
		long s = member_bits(small, fields[i].root, fields[i].path, &sbits);
		long f = member_bits(full, fields[i].root, fields[i].path, &fbits);

		if (s != f || sbits != fbits)
			fprintf(stderr, "  %s.%s: %ld:%d here, %ld:%d in the kernel's\n",
				fields[i].root, fields[i].path, s, sbits, f, fbits);
		CHECK(f >= 0);
		CHECK(s == f && sbits == fbits);
	}
	/* every pointer is void *: no relocation walks through one */
	for (unsigned int id = 1; id < btf__type_cnt(small); id++) {
		const struct btf_type *t = btf__type_by_id(small, id);

		if (btf_is_ptr(t)) {
			ptrs++;
			CHECK_INT(t->type, 0);
		}
	}
	CHECK_INT(ptrs, 1);
out:
	btf__free(small);
	btf__free(full);
	kbtf_close(&c);
	CHECK_INT(c.fd, -1);
}

/* A BPF object opened against the small BTF loads without libbpf
 * reading the kernel's (the relocations resolve; the verifier agrees). */
TEST(kbtf_object_loads_against_the_small_btf)
{
	struct kbtf_custom c = KBTF_INIT;
	struct syscalls_bpf *skel = KBTF_OPEN(syscalls, &c);
	int err;

	if (c.fd < 0)
		SKIP("no mappable /sys/kernel/btf/vmlinux here");
	CHECK(skel != NULL);
	if (!skel) {
		kbtf_close(&c);
		return;
	}
	bpf_program__set_autoload(skel->progs.flush_inflight, false);
	err = KBTF_LOAD(syscalls, skel, &c);
	kbtf_close(&c);
	if (err == -EPERM)
		SKIP("cannot load BPF programs here: needs root");
	CHECK_INT(err, 0);
	syscalls_bpf__destroy(skel);
}

/* Whatever it is given for the kernel's BTF, a clear -errno and no
 * custom path: the caller leaves libbpf to read the kernel's. */
TEST(kbtf_bad_kernel_btf_fails_cleanly)
{
	size_t sz;
	const void *elf = syscalls_bpf__elf_bytes(&sz);
	struct kbtf_custom c = KBTF_INIT;
	char head[4096], path[32];
	int fd, kfd, n;

	CHECK_INT(kbtf_for_object(elf, sz, "/nonexistent/vmlinux", &c), -ENOENT);
	CHECK_INT(c.fd, -1);
	/* not BTF at all */
	fd = memfd_with("kbtf-test", "\177ELF not btf at all, just bytes", 32);
	CHECK(fd >= 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	CHECK_INT(kbtf_for_object(elf, sz, path, &c), -EINVAL);
	CHECK_INT(c.fd, -1);
	close(fd);
	/* the kernel's, cut short: its sections run past the end */
	kfd = open("/sys/kernel/btf/vmlinux", O_RDONLY | O_CLOEXEC);
	if (kfd < 0)
		SKIP("no /sys/kernel/btf/vmlinux here");
	n = read(kfd, head, sizeof(head));
	close(kfd);
	CHECK(n > 64);
	fd = memfd_with("kbtf-test", head, n);
	CHECK(fd >= 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	CHECK_INT(kbtf_for_object(elf, sz, path, &c), -EINVAL);
	CHECK_INT(c.fd, -1);
	close(fd);
	/* the object has no BTF section: nothing to cut the kernel's to */
	CHECK(kbtf_for_object("\177ELF", 4, NULL, &c) < 0);
	CHECK_INT(c.fd, -1);
}

/* Made on the thread but failed (here: an object with no BTF): the path
 * the object was opened with, named before the thread ended, then reads
 * the kernel's whole BTF, as libbpf would have without it. */
TEST(kbtf_failed_thread_leaves_the_kernels_btf)
{
	struct kbtf_custom c = KBTF_INIT;
	struct stat want, got;
	char magic[2];
	int fd;

	if (stat("/sys/kernel/btf/vmlinux", &want))
		SKIP("no /sys/kernel/btf/vmlinux here");
	kbtf_start(&c, NULL, "\177ELF", 4);
	CHECK(c.fd >= 0);
	kbtf_ready(&c);
	CHECK(c.err < 0);
	fd = open(c.path, O_RDONLY | O_CLOEXEC);
	CHECK(fd >= 0);
	if (fd >= 0) {
		CHECK(fstat(fd, &got) == 0);
		CHECK(got.st_dev == want.st_dev && got.st_ino == want.st_ino);
		CHECK_INT(read(fd, magic, 2), 2);
		CHECK(magic[0] == (char)0x9f && magic[1] == (char)0xeb);
		close(fd);
	}
	kbtf_close(&c);
	CHECK_INT(c.fd, -1);
}
