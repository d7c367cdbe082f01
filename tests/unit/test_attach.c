/* The attach helpers with plain arguments, against the real kernel: a
 * program fd made here (a counter of this process's hits) on a tracefs
 * tracepoint, a raw tracepoint and a uprobe on a function of this binary;
 * each counts exactly this process's events while attached, nothing once
 * the session detached.  Needs root (skipped otherwise). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include "common.h"
#include "trace/attach.h"
#include "trace/features.h"
#include "trace/session.h"
#include "test.h"

#define INSN(c, d, s, o, i) ((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), \
						.off = (o), .imm = (i) })

/* if (current tgid == tgid) counts[0]++; return 0 */
static int counter_prog(enum bpf_prog_type type, int map_fd, __u32 tgid)
{
	struct bpf_insn p[] = {
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_current_pid_tgid),
		INSN(BPF_ALU64 | BPF_RSH | BPF_K, BPF_REG_0, 0, 0, 32),
		INSN(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_0, 0, 9, (int)tgid),
		INSN(BPF_ST | BPF_MEM | BPF_W, BPF_REG_10, 0, -4, 0),	/* key 0 */
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_10, 0, 0),
		INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, -4),
		INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD, 0, map_fd),
		INSN(0, 0, 0, 0, 0),
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem),
		INSN(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 2, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_1, 0, 0, 1),
		INSN(BPF_STX | BPF_ATOMIC | BPF_DW, BPF_REG_0, BPF_REG_1, 0, BPF_ADD),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	return bpf_prog_load(type, "ss_count", "GPL", p, ARRAY_SIZE(p), NULL);
}

static uint64_t count(int map_fd)
{
	__u32 key = 0;
	__u64 v = 0;

	bpf_map_lookup_elem(map_fd, &key, &v);
	return v;
}

__attribute__((noinline)) int attach_test_target(int x)
{
	__asm__ volatile("" ::: "memory");
	return x + 1;
}

/* The file offset of a function of this process, from /proc/self/maps. */
static int self_offset(const void *fn, char *path, size_t size, uint64_t *off)
{
	unsigned long long start, end, pgoff, a = (uintptr_t)fn;
	char line[512], perms[8], file[400];
	FILE *f = fopen("/proc/self/maps", "re");
	int err = -ENOENT;

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %399s", &start, &end, perms, &pgoff,
			   file) == 5 && a >= start && a < end) {
			snprintf(path, size, "%s", file);
			*off = a - start + pgoff;
			err = 0;
			break;
		}
	}
	if (f)
		fclose(f);
	return err;
}

struct rig {
	struct session *s;
	int map, prog;
};

static bool rig_open(struct rig *r, enum bpf_prog_type type)
{
	struct session_opts o = { .name = "test" };

	r->map = bpf_map_create(BPF_MAP_TYPE_ARRAY, "ss_counts", 4, 8, 1, NULL);
	r->prog = r->map >= 0 ? counter_prog(type, r->map, getpid()) : -1;
	r->s = r->prog >= 0 ? session_new(&o) : NULL;
	return r->s != NULL;
}

static void rig_close(struct rig *r)
{
	session_free(r->s);
	if (r->prog >= 0)
		close(r->prog);
	if (r->map >= 0)
		close(r->map);
}

TEST(attach_tracepoint_uprobe_raw_tracepoint_count_exactly)
{
	struct rig r = { .map = -1, .prog = -1 };
	char path[400];
	uint64_t off = 0;
	int sink = 0;

	if (geteuid() != 0)
		SKIP("loading BPF programs needs root");
	/* a tracefs tracepoint */
	CHECK(rig_open(&r, BPF_PROG_TYPE_TRACEPOINT));
	if (r.s) {
		CHECK_INT(attach_tracepoint(r.s, r.prog, "syscalls", "sys_enter_getppid"), 0);
		for (int i = 0; i < 10; i++)
			getppid();
		CHECK_INT(count(r.map), 10);	/* once per call: not once per CPU */
		session_detach(r.s);
		getppid();
		CHECK_INT(count(r.map), 10);
		CHECK(attach_tracepoint(r.s, r.prog, "syscalls", "no_such_event") == -ENOENT);
		CHECK(attach_tracepoint(r.s, r.prog, "..", "syscalls") == -EINVAL);
	}
	rig_close(&r);
	/* a uprobe at a file offset, for this process */
	CHECK(rig_open(&r, BPF_PROG_TYPE_KPROBE));
	CHECK_INT(self_offset((void *)attach_test_target, path, sizeof(path), &off), 0);
	if (r.s) {
		CHECK_INT(attach_uprobe(r.s, r.prog, path, off, getpid(), 0, false, "test"), 0);
		for (int i = 0; i < 7; i++)
			sink += attach_test_target(i);
		CHECK_INT(count(r.map), 7);
		session_detach(r.s);
		sink += attach_test_target(0);
		CHECK_INT(count(r.map), 7);
	}
	rig_close(&r);
	/* a raw tracepoint */
	CHECK(rig_open(&r, BPF_PROG_TYPE_RAW_TRACEPOINT));
	if (r.s) {
		CHECK_INT(attach_raw_tracepoint(r.s, r.prog, "sys_enter"), 0);
		getppid();
		CHECK(count(r.map) >= 1);
		session_detach(r.s);
	}
	rig_close(&r);
	CHECK(sink > 0);
}

TEST(features_probed_on_this_kernel)
{
	if (geteuid() != 0)
		SKIP("probing program types needs root");
	CHECK_INT(feature_probe(FEATURE_RINGBUF), 0);
	CHECK_INT(feature_probe(FEATURE_TP_BTF), 0);
	CHECK_INT(feature_probe(FEATURE_UPROBE_MULTI), 0);	/* Linux 6.6 and later */
	/* cached: asked twice, the same answer */
	CHECK_INT(feature_probe(FEATURE_TP_BTF), feature_probe(FEATURE_TP_BTF));
	/* fentry is refused on the machines this runs on, allowed elsewhere:
	 * either way a definite answer, never a crash */
	int f = feature_probe(FEATURE_FENTRY);
	CHECK(f == 0 || f == -EPERM || f == -EACCES || f == -EOPNOTSUPP || f == -EINVAL);
	CHECK(feature_fentry_on("no_such_function_here") == -ENOENT);
	CHECK_STR(feature_name(FEATURE_FENTRY), "fentry");
}
