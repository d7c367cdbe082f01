/* The language's providers against the real kernel (root; skipped
 * otherwise): small programs written here read args.FIELD, argN and
 * retval exactly where the providers' access descriptors say, are loaded
 * with the program type / attach type / BTF id the points give, attached
 * through lang_probes_attach() on a session, and must see this process's
 * known calls: openat(AT_FDCWD, "/tmp/...") through the tracepoint's dfd
 * and filename, getppid through rawtracepoint sys_enter's id (tp_btf),
 * arg0 and retval of a function of this binary, perf-event ticks. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include "common.h"
#include "lang/ast.h"
#include "lang/provider.h"
#include "trace/session.h"
#include "test.h"

#define INSN(c, d, s, o, i) ((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), \
						.off = (o), .imm = (i) })
#define MOV64_REG(d, s) INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define MOV64_IMM(d, i) INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define CALL(f) INSN(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define EXIT() INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

static const int sizes[] = { [1] = BPF_B, [2] = BPF_H, [4] = BPF_W, [8] = BPF_DW };

/* A program that, for this process only (and, when match_off >= 0, only
 * when the 8-byte ctx word at match_off equals match), looks up slot 0
 * of map (32 bytes), counts into [0], stores the value acc describes into
 * [8] (sign-extended when signed), and for a string pointer (str) copies
 * the string into [16..31]. */
struct prog_spec {
	int map;
	const struct lang_field_access *acc;
	const struct lang_field_access *str;
	int match_off;
	int match;
};

static int build(const struct prog_spec *sp, struct bpf_insn *p)
{
	int n = 0, j_out[8], nj = 0;

	p[n++] = MOV64_REG(BPF_REG_6, BPF_REG_1);
	p[n++] = CALL(BPF_FUNC_get_current_pid_tgid);
	p[n++] = INSN(BPF_ALU64 | BPF_RSH | BPF_K, BPF_REG_0, 0, 0, 32);
	j_out[nj++] = n;
	p[n++] = INSN(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_0, 0, 0, (int)getpid());
	if (sp->match_off >= 0) {
		p[n++] = INSN(BPF_LDX | BPF_MEM | BPF_DW, BPF_REG_1, BPF_REG_6, sp->match_off, 0);
		j_out[nj++] = n;
		p[n++] = INSN(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_1, 0, 0, sp->match);
	}
	p[n++] = INSN(BPF_ST | BPF_MEM | BPF_W, BPF_REG_10, 0, -4, 0);
	p[n++] = MOV64_REG(BPF_REG_2, BPF_REG_10);
	p[n++] = INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, -4);
	p[n++] = INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD, 0, sp->map);
	p[n++] = INSN(0, 0, 0, 0, 0);
	p[n++] = CALL(BPF_FUNC_map_lookup_elem);
	j_out[nj++] = n;
	p[n++] = INSN(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 0, 0);
	p[n++] = MOV64_REG(BPF_REG_7, BPF_REG_0);
	p[n++] = MOV64_IMM(BPF_REG_1, 1);
	p[n++] = INSN(BPF_STX | BPF_ATOMIC | BPF_DW, BPF_REG_7, BPF_REG_1, 0, BPF_ADD);
	if (sp->acc) {
		unsigned sh = 64 - 8 * sp->acc->size;

		p[n++] = INSN(BPF_LDX | BPF_MEM | sizes[sp->acc->size], BPF_REG_1, BPF_REG_6,
			      sp->acc->offset, 0);
		if (sp->acc->is_signed && sh) {
			p[n++] = INSN(BPF_ALU64 | BPF_LSH | BPF_K, BPF_REG_1, 0, 0, sh);
			p[n++] = INSN(BPF_ALU64 | BPF_ARSH | BPF_K, BPF_REG_1, 0, 0, sh);
		}
		p[n++] = INSN(BPF_STX | BPF_MEM | BPF_DW, BPF_REG_7, BPF_REG_1, 8, 0);
	}
	if (sp->str) {
		p[n++] = INSN(BPF_LDX | BPF_MEM | BPF_DW, BPF_REG_3, BPF_REG_6, sp->str->offset, 0);
		p[n++] = MOV64_REG(BPF_REG_1, BPF_REG_7);
		p[n++] = INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_1, 0, 0, 16);
		p[n++] = MOV64_IMM(BPF_REG_2, 16);
		p[n++] = CALL(sp->str->user ? BPF_FUNC_probe_read_user_str :
			      BPF_FUNC_probe_read_kernel_str);
	}
	for (int i = 0; i < nj; i++)
		p[j_out[i]].off = n - j_out[i] - 1;
	p[n++] = MOV64_IMM(BPF_REG_0, 0);
	p[n++] = EXIT();
	return n;
}

static char vlog[65536];

static int load(const struct lang_point *pt, const struct prog_spec *sp)
{
	struct bpf_insn p[64];
	int n = build(sp, p), fd;
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = pt->attach_type,
		    .attach_btf_id = pt->attach_btf_id, .log_buf = vlog, .log_size = sizeof(vlog),
		    .log_level = 0);

	fd = bpf_prog_load(pt->prog_type, "ss_probe_test", "GPL", p, n, &o);
	if (fd < 0) {
		int err = -errno;

		o.log_level = 1;
		fd = bpf_prog_load(pt->prog_type, "ss_probe_test", "GPL", p, n, &o);
		test_fail(__FILE__, __LINE__, "%s: load: %s\n%s", pt->name, strerror(-err), vlog);
		if (fd >= 0)
			close(fd);
		return err;
	}
	return fd;
}

struct slot {
	uint64_t count;
	int64_t value;
	char str[16];
};

static struct slot slot_of(int map)
{
	struct slot s = { 0 };
	__u32 key = 0;

	bpf_map_lookup_elem(map, &key, &s);
	return s;
}

/* The points of src's first attach point (pr's; prog kept in *prog). */
static struct lang_point **points(struct lang_probes **pr, struct lang_prog **prog,
				  const char *src, size_t *n, const struct lang_probes_opts *base)
{
	struct lang_probes_opts o = base ? *base : (struct lang_probes_opts){ 0 };
	struct lang_point **pts = NULL;

	*prog = lang_prog_new("t", src, strlen(src));
	o.prog = *prog;
	*pr = lang_probes_new(&o);
	*n = 0;
	if (!*prog || lang_parse(*prog) ||
	    lang_probes_expand(*pr, &(*prog)->probes->attach[0], &pts, n)) {
		test_fail(__FILE__, __LINE__, "%s: %s", src,
			  *prog && lang_error(*prog, 0) ? lang_error(*prog, 0) : "does not expand");
		return NULL;
	}
	return pts;
}

static struct session *new_session(void)
{
	struct session_opts o = { .name = "test" };

	return session_new(&o);
}

TEST(probes_tracepoint_fields_read_where_the_format_says)
{
	struct lang_probes *pr;
	struct lang_prog *prog;
	struct lang_field_access dfd, fname;
	struct session *s;
	struct lang_point **pts;
	struct slot sl;
	size_t n;
	int map, fd;

	if (geteuid() != 0)
		SKIP("loading BPF programs needs root");
	pts = points(&pr, &prog, "tracepoint:syscalls:sys_enter_openat { }", &n, NULL);
	map = bpf_map_create(BPF_MAP_TYPE_ARRAY, "ss_slot", 4, 32, 1, NULL);
	s = new_session();
	if (pts && n == 1 && map >= 0 && s) {
		CHECK_INT(pts[0]->prog_type, BPF_PROG_TYPE_TRACEPOINT);
		CHECK_INT(lang_probes_field(pr, pts[0], "dfd", &dfd), 0);
		CHECK_INT(lang_probes_field(pr, pts[0], "filename", &fname), 0);
		CHECK(fname.kind == LANG_ACC_STR_PTR && fname.user);
		CHECK_INT(lang_probes_field(pr, pts[0], "nosuch", &dfd) == -ENOENT, 1);
		lang_probes_field(pr, pts[0], "dfd", &dfd);
		fd = load(pts[0], &(struct prog_spec){ map, &dfd, &fname, -1, 0 });
		if (fd >= 0) {
			CHECK_INT(lang_probes_attach(s, pr, pts[0], fd), 0);
			for (int i = 0; i < 3; i++) {
				int f = openat(AT_FDCWD, "/tmp/ss-pr-nx", O_RDONLY);

				if (f >= 0)
					close(f);
			}
			sl = slot_of(map);
			CHECK_INT(sl.count, 3);
			CHECK_INT(sl.value, AT_FDCWD);	/* -100: signed */
			CHECK_STR(sl.str, "/tmp/ss-pr-nx");
			session_detach(s);
			close(open("/tmp/ss-pr-nx", O_RDONLY));
			CHECK_INT(slot_of(map).count, 3);
			close(fd);
		}
	}
	session_free(s);
	if (map >= 0)
		close(map);
	lang_probes_free(pr);
	lang_prog_free(prog);
}

TEST(probes_rawtracepoint_args_through_tp_btf)
{
	struct lang_probes *pr;
	struct lang_prog *prog;
	struct lang_field_access id, st;
	struct session *s;
	struct lang_point **pts;
	size_t n;
	int map, fd;

	if (geteuid() != 0)
		SKIP("loading BPF programs needs root");
	pts = points(&pr, &prog, "rawtracepoint:sys_enter { }", &n, NULL);
	map = bpf_map_create(BPF_MAP_TYPE_ARRAY, "ss_slot", 4, 32, 1, NULL);
	s = new_session();
	if (pts && n == 1 && map >= 0 && s) {
		/* this kernel allows tp_btf (features probed): typed arguments */
		CHECK_INT(pts[0]->prog_type, BPF_PROG_TYPE_TRACING);
		CHECK_INT(pts[0]->attach_type, BPF_TRACE_RAW_TP);
		CHECK(pts[0]->attach_btf_id > 0 && pts[0]->btf_args);
		CHECK_INT(pts[0]->nargs, 2);
		CHECK_INT(lang_probes_field(pr, pts[0], "id", &id), 0);
		CHECK(id.kind == LANG_ACC_INT && id.offset == 8 && id.size == 8 && id.is_signed);
		CHECK_INT(lang_probes_field(pr, pts[0], "regs", &st), 0);
		CHECK(st.kind == LANG_ACC_PTR && st.offset == 0 && st.btf_id > 0);
		/* only getppid's entries: the ctx word of id matched */
		fd = load(pts[0], &(struct prog_spec){ map, &id, NULL, 8, __NR_getppid });
		if (fd >= 0) {
			CHECK_INT(lang_probes_attach(s, pr, pts[0], fd), 0);
			for (int i = 0; i < 5; i++)
				getppid();
			CHECK_INT(slot_of(map).count, 5);
			CHECK_INT(slot_of(map).value, __NR_getppid);
			session_detach(s);
			close(fd);
		}
	}
	session_free(s);
	if (map >= 0)
		close(map);
	lang_probes_free(pr);
	lang_prog_free(prog);

	/* a 4-byte argument: loaded with its size at its slot (sched_switch's prev_state) */
	pts = points(&pr, &prog, "rawtracepoint:sched_switch { }", &n, NULL);
	map = bpf_map_create(BPF_MAP_TYPE_ARRAY, "ss_slot", 4, 32, 1, NULL);
	if (pts && n == 1 && map >= 0) {
		CHECK_INT(lang_probes_field(pr, pts[0], "prev_state", &st), 0);
		CHECK(st.kind == LANG_ACC_INT && st.size == 4 && st.offset == 24 && !st.is_signed);
		CHECK_INT(lang_probes_field(pr, pts[0], "prev", &id), 0);
		CHECK(id.kind == LANG_ACC_PTR && id.offset == 8);
		fd = load(pts[0], &(struct prog_spec){ map, &st, NULL, -1, 0 });
		CHECK(fd >= 0);
		if (fd >= 0)
			close(fd);
		/* argN too: arg0..arg3, no arg4 */
		CHECK_INT(lang_probes_argn(pr, pts[0], 3, &id), 0);
		CHECK_INT(lang_probes_argn(pr, pts[0], 4, &id), -ENOENT);
	}
	if (map >= 0)
		close(map);
	lang_probes_free(pr);
	lang_prog_free(prog);
}

__attribute__((noinline)) int probes_attach_target(int x)
{
	__asm__ volatile("" ::: "memory");
	return x + 1;
}

TEST(probes_uprobe_arg0_and_retval_from_pt_regs)
{
	char exe[PATH_MAX], src[PATH_MAX + 100];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct lang_probes *pr;
	struct lang_prog *prog;
	struct lang_field_access a0, rv;
	struct session *s;
	struct lang_point **pts;
	pid_t self = getpid();
	struct lang_probes_opts po = { .pids = &self, .npids = 1 };
	size_t n;
	int map, fd, sink = 0;

	if (geteuid() != 0)
		SKIP("loading BPF programs needs root");
	if (len <= 0)
		SKIP("no /proc/self/exe");
	exe[len] = 0;
	for (int ret = 0; ret < 2; ret++) {
		snprintf(src, sizeof(src), "%s:%s:probes_attach_target { }",
			 ret ? "uretprobe" : "uprobe", exe);
		pts = points(&pr, &prog, src, &n, &po);
		map = bpf_map_create(BPF_MAP_TYPE_ARRAY, "ss_slot", 4, 32, 1, NULL);
		s = new_session();
		if (pts && n == 1 && map >= 0 && s) {
			CHECK_INT(ret ? lang_probes_retval(pr, pts[0], &rv) :
				  lang_probes_argn(pr, pts[0], 0, &a0), 0);
			fd = load(pts[0], &(struct prog_spec){ map, ret ? &rv : &a0, NULL, -1, 0 });
			if (fd >= 0) {
				CHECK_INT(lang_probes_attach(s, pr, pts[0], fd), 0);
				sink += probes_attach_target(41);
				sink += probes_attach_target(41);
				CHECK_INT(slot_of(map).count, 2);
				CHECK_INT(slot_of(map).value, ret ? 42 : 41);
				session_detach(s);
				sink += probes_attach_target(1);
				CHECK_INT(slot_of(map).count, 2);
				close(fd);
			}
		}
		session_free(s);
		if (map >= 0)
			close(map);
		lang_probes_free(pr);
		lang_prog_free(prog);
	}
	CHECK(sink == 172);
}

__attribute__((noinline)) long probes_dwarf_target(signed char a, short b, int c, unsigned d)
{
	__asm__ volatile("" ::: "memory");
	return a + b + c + (long)d;
}

/* args.NAME of a uprobe, typed from this binary's DWARF: each read at its
 * width and sign from its entry register */
TEST(probes_uprobe_args_by_name_from_dwarf)
{
	static const struct { const char *name; int64_t want; } args[] = {
		{ "a", -5 }, { "b", -300 }, { "c", -70000 }, { "d", 4000000000LL },
	};
	char exe[PATH_MAX], src[PATH_MAX + 100];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	pid_t self = getpid();
	struct lang_probes_opts po = { .pids = &self, .npids = 1 };
	long sink = 0;

	if (geteuid() != 0)
		SKIP("loading BPF programs needs root");
	if (len <= 0)
		SKIP("no /proc/self/exe");
	exe[len] = 0;
	snprintf(src, sizeof(src), "uprobe:%s:probes_dwarf_target { }", exe);
	for (size_t i = 0; i < ARRAY_SIZE(args); i++) {
		struct lang_probes *pr;
		struct lang_prog *prog;
		struct lang_field_access acc;
		size_t n;
		struct lang_point **pts = points(&pr, &prog, src, &n, &po);
		struct session *s = new_session();
		int map = bpf_map_create(BPF_MAP_TYPE_ARRAY, "ss_slot", 4, 32, 1, NULL), fd;

		if (pts && map >= 0 && s && !lang_probes_field(pr, pts[0], args[i].name, &acc)) {
			fd = load(pts[0], &(struct prog_spec){ map, &acc, NULL, -1, 0 });
			if (fd >= 0) {
				CHECK_INT(lang_probes_attach(s, pr, pts[0], fd), 0);
				sink += probes_dwarf_target(-5, -300, -70000, 4000000000U);
				CHECK_INT(slot_of(map).count, 1);
				if (slot_of(map).value != args[i].want)
					test_fail(__FILE__, __LINE__, "args.%s read %lld, want %lld",
						  args[i].name, (long long)slot_of(map).value,
						  (long long)args[i].want);
				session_detach(s);
				close(fd);
			}
		} else {
			test_fail(__FILE__, __LINE__, "args.%s: %s", args[i].name,
				  prog && lang_error(prog, 0) ? lang_error(prog, 0) : "no access");
		}
		session_free(s);
		if (map >= 0)
			close(map);
		lang_probes_free(pr);
		lang_prog_free(prog);
	}
	CHECK(sink == 4 * (4000000000LL - 70305));
}

/* Waits (at most 5 s) for slot 0's count to reach want. */
static uint64_t wait_count(int map, uint64_t want)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	uint64_t c = 0;

	for (int i = 0; i < 500 && (c = slot_of(map).count) < want; i++)
		nanosleep(&ts, NULL);
	return c;
}

TEST(probes_perf_events_tick)
{
	static const char *const srcs[] = {
		"profile:hz:199 { }", "interval:ms:10 { }", "software:cpu-clock:1000000 { }",
		"software:context-switches:1 { }",
	};

	if (geteuid() != 0)
		SKIP("loading BPF programs needs root");
	for (size_t i = 0; i < ARRAY_SIZE(srcs); i++) {
		struct lang_probes *pr;
		struct lang_prog *prog;
		struct lang_point **pts;
		struct session *s = new_session();
		size_t n;
		int map = bpf_map_create(BPF_MAP_TYPE_ARRAY, "ss_slot", 4, 32, 1, NULL), fd;
		struct bpf_insn p[] = {
			INSN(BPF_ST | BPF_MEM | BPF_W, BPF_REG_10, 0, -4, 0),
			MOV64_REG(BPF_REG_2, BPF_REG_10),
			INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, -4),
			INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD, 0, map),
			INSN(0, 0, 0, 0, 0),
			CALL(BPF_FUNC_map_lookup_elem),
			INSN(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 2, 0),
			MOV64_IMM(BPF_REG_1, 1),
			INSN(BPF_STX | BPF_ATOMIC | BPF_DW, BPF_REG_0, BPF_REG_1, 0, BPF_ADD),
			MOV64_IMM(BPF_REG_0, 0),
			EXIT(),
		};

		pts = points(&pr, &prog, srcs[i], &n, NULL);
		if (pts && n == 1 && map >= 0 && s) {
			CHECK_INT(pts[0]->prog_type, BPF_PROG_TYPE_PERF_EVENT);
			fd = bpf_prog_load(BPF_PROG_TYPE_PERF_EVENT, "ss_tick", "GPL", p,
					   ARRAY_SIZE(p), NULL);
			CHECK(fd >= 0);
			if (fd >= 0) {
				CHECK_INT(lang_probes_attach(s, pr, pts[0], fd), 0);
				/* busy, then sleeping: ticks and switches both come */
				for (volatile unsigned long k = 0; k < 20000000; k++)
					;
				if (wait_count(map, 3) < 3)
					test_fail(__FILE__, __LINE__, "%s: %llu events in 5 s", srcs[i],
						  (unsigned long long)slot_of(map).count);
				session_detach(s);
				close(fd);
			}
		}
		session_free(s);
		if (map >= 0)
			close(map);
		lang_probes_free(pr);
		lang_prog_free(prog);
	}
}

static volatile uint64_t watched;

TEST(probes_refusals_and_watchpoints_decided_at_run_time)
{
	struct lang_probes *pr;
	struct lang_prog *prog;
	struct lang_point **pts;
	char src[128];
	pid_t self = getpid();
	struct lang_probes_opts po = { .pids = &self, .npids = 1 };
	size_t n;

	if (geteuid() != 0)
		SKIP("loading BPF programs needs root");
	/* fentry: refused here (EPERM), allowed elsewhere: either way one line
	 * with the nearest alternative, never a crash */
	prog = lang_prog_new("t", "fentry:vfs_read { }", 19);
	pr = lang_probes_new(&(struct lang_probes_opts){ .prog = prog });
	if (!lang_parse(prog)) {
		CHECK(lang_probes_expand(pr, &prog->probes->attach[0], &pts, &n) < 0);
		CHECK(lang_error(prog, 0) && !strncmp(lang_error(prog, 0), "t:1:1: fentry:vfs_read: ", 24) &&
		      strstr(lang_error(prog, 0), "; try tracepoint:syscalls:sys_enter_read or "
			     "rawtracepoint:sys_enter"));
	}
	lang_probes_free(pr);
	lang_prog_free(prog);
	/* hardware counters: where there are none, the alternative is named */
	prog = lang_prog_new("t", "hardware:cycles { }", 19);
	pr = lang_probes_new(&(struct lang_probes_opts){ .prog = prog });
	if (!lang_parse(prog) && lang_probes_expand(pr, &prog->probes->attach[0], &pts, &n))
		CHECK(lang_error(prog, 0) && strstr(lang_error(prog, 0), "try software:cpu-clock or "
						    "profile:hz:99"));
	lang_probes_free(pr);
	lang_prog_free(prog);
	/* a watchpoint on a word of this process, where breakpoints exist */
	snprintf(src, sizeof(src), "watchpoint:0x%lx:8:w { }", (unsigned long)(uintptr_t)&watched);
	prog = lang_prog_new("t", src, strlen(src));
	po.prog = prog;
	pr = lang_probes_new(&po);
	if (!lang_parse(prog) && !lang_probes_expand(pr, &prog->probes->attach[0], &pts, &n)) {
		struct session *s = new_session();
		int map = bpf_map_create(BPF_MAP_TYPE_ARRAY, "ss_slot", 4, 32, 1, NULL);
		int fd = load(pts[0], &(struct prog_spec){ map, NULL, NULL, -1, 0 });

		if (s && fd >= 0) {
			CHECK_INT(lang_probes_attach(s, pr, pts[0], fd), 0);
			for (int i = 0; i < 3; i++)
				watched += i;
			CHECK_INT(slot_of(map).count, 3);
			session_detach(s);
			watched = 0;
			CHECK_INT(slot_of(map).count, 3);
		}
		if (fd >= 0)
			close(fd);
		if (map >= 0)
			close(map);
		session_free(s);
	} else {
		CHECK(lang_error(prog, 0) && strstr(lang_error(prog, 0), "hardware breakpoints"));
	}
	lang_probes_free(pr);
	lang_prog_free(prog);
}
