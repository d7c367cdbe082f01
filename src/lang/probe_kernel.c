/* Probes the kernel may refuse: kprobe, kretprobe, fentry, fexit,
 * watchpoint.  Each is tried on this kernel at
 * run time, never decided by version: a kprobe perf event opened on the
 * function, fentry loaded on it (trace/features.h), a breakpoint event
 * opened on this process.  A refusal is one line with the kernel's reason
 * and the nearest probe that works here:
 *
 *   kprobe:vfs_read: kprobes are not built into this kernel; try
 *   tracepoint:syscalls:sys_enter_read or rawtracepoint:sys_enter
 *
 * Watchpoints work where the breakpoint event opens: a perf_event
 * program on a PERF_TYPE_BREAKPOINT event per -p process. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "common.h"
#include "lang/probe_int.h"
#include "trace/features.h"
#include "trace/session.h"

/* ---- nearest alternatives ------------------------------------------- */

static const char *const syscall_prefixes[] = {
	"__x64_sys_", "__ia32_sys_", "__se_sys_", "__do_sys_", "ksys_", "do_sys_", "sys_", "vfs_",
	"do_", "__sys_",
};

void kernel_alternative(struct lang_probes *pr, const char *func, bool ret, char *out,
			size_t size)
{
	char sub[256], ev[300];
	struct btf *btf;
	bool has_raw;

	/* a syscall's own tracepoint: vfs_read, ksys_read -> sys_enter_read */
	for (size_t i = 0; i < ARRAY_SIZE(syscall_prefixes); i++) {
		size_t n = strlen(syscall_prefixes[i]);

		if (strncmp(func, syscall_prefixes[i], n) || !func[n])
			continue;
		snprintf(ev, sizeof(ev), "sys_%s_%s", ret ? "exit" : "enter", func + n);
		if (!tp_find_event(pr, "syscalls", ev, sub, sizeof(sub))) {
			snprintf(out, size, "tracepoint:syscalls:%s or rawtracepoint:%s", ev,
				 ret ? "sys_exit" : "sys_enter");
			return;
		}
	}
	/* an event of the same name: kfree -> tracepoint:kmem:kfree */
	btf = probes_btf(pr);
	snprintf(ev, sizeof(ev), "btf_trace_%s", func);
	has_raw = btf && btf__find_by_name_kind(btf, ev, BTF_KIND_TYPEDEF) > 0;
	if (!tp_find_event(pr, NULL, func, sub, sizeof(sub))) {
		snprintf(out, size, "tracepoint:%s:%s%s%s", sub, func,
			 has_raw ? " or rawtracepoint:" : "", has_raw ? func : "");
		return;
	}
	if (has_raw) {
		snprintf(out, size, "rawtracepoint:%s", func);
		return;
	}
	snprintf(out, size, "a tracepoint or rawtracepoint near it (stackscope -l 'tracepoint:*' "
		 "and -l 'rawtracepoint:*' list this kernel's)");
}

/* ---- kprobe, kretprobe ---------------------------------------------- */

/* 0 when a kprobe on func opens here, else -errno: -ENODEV when the
 * kernel has no kprobe event source at all. */
static int kprobe_try(const char *func, bool ret)
{
	struct perf_event_attr attr = { .size = sizeof(attr) };
	char buf[64];
	int type, bit = 0, fd;
	FILE *f = fopen("/sys/bus/event_source/devices/kprobe/type", "re");

	if (!f)
		return -ENODEV;
	if (fscanf(f, "%d", &type) != 1)
		type = -1;
	fclose(f);
	if (type < 0)
		return -ENODEV;
	f = fopen("/sys/bus/event_source/devices/kprobe/format/retprobe", "re");
	if (f) {
		if (fgets(buf, sizeof(buf), f) && !strncmp(buf, "config:", 7))
			bit = atoi(buf + 7);
		fclose(f);
	}
	attr.type = type;
	attr.config = ret && bit >= 0 && bit < 64 ? 1ULL << bit : 0;
	attr.config1 = (uint64_t)(uintptr_t)func;	/* kprobe_func */
	fd = syscall(__NR_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int kprobe_expand(struct lang_probes *pr, const struct lang_attach *at,
			 struct lang_points *out)
{
	bool ret = at->provider == LANG_P_KRETPROBE;
	const char *kind = ret ? "kretprobes" : "kprobes";
	char alt[512];
	int err = at->wildcard ? -ENODEV : kprobe_try(at->func, ret);

	/* a glob: whether kprobes exist at all decides */
	if (at->wildcard && !access("/sys/bus/event_source/devices/kprobe/type", R_OK))
		err = 0;
	kernel_alternative(pr, at->func, ret, alt, sizeof(alt));
	if (err == -ENODEV)
		return probes_error(pr, at, -EOPNOTSUPP, "%s: %s are not built into this kernel; "
				    "try %s", at->text, kind, alt);
	if (err == -ENOENT || err == -EINVAL)
		return probes_error(pr, at, err, "%s: the kernel has no function %s it can probe "
				    "(%s); try %s", at->text, at->func, strerror(-err), alt);
	if (err)
		return probes_error(pr, at, err, "%s: %s refused by this kernel (%s); try %s",
				    at->text, kind, strerror(-err), alt);
	return probes_error(pr, at, -EOPNOTSUPP, "%s: %s are not supported by stackscope yet; "
			    "try %s", at->text, kind, alt);
}

/* ---- fentry, fexit -------------------------------------------------- */

static int fentry_expand(struct lang_probes *pr, const struct lang_attach *at,
			 struct lang_points *out)
{
	bool ret = at->provider == LANG_P_FEXIT;
	const char *kind = ret ? "fexit" : "fentry";
	char alt[512];
	int err = feature_probe(FEATURE_FENTRY);

	kernel_alternative(pr, at->func, ret, alt, sizeof(alt));
	if (err)
		return probes_error(pr, at, err, "%s: %s programs are refused by this kernel (%s); "
				    "try %s", at->text, kind, strerror(-err), alt);
	if (!at->wildcard) {
		err = feature_fentry_on(at->func);
		if (err == -ENOENT)
			return probes_error(pr, at, err, "%s: no function %s in the kernel's BTF; "
					    "try %s", at->text, at->func, alt);
		if (err)
			return probes_error(pr, at, err, "%s: refused by this kernel on %s (%s); "
					    "try %s", at->text, at->func, strerror(-err), alt);
	}
	return probes_error(pr, at, -EOPNOTSUPP, "%s: %s probes are not supported by stackscope "
			    "yet; try %s", at->text, kind, alt);
}

/* ---- watchpoint ----------------------------------------------------- */

static int bp_type(const char *mode)
{
	int t = 0;

	for (const char *m = mode; *m; m++)
		t |= *m == 'r' ? HW_BREAKPOINT_R : *m == 'w' ? HW_BREAKPOINT_W : HW_BREAKPOINT_X;
	/* the kernel takes r, w, rw or x alone */
	if ((t & HW_BREAKPOINT_X) && t != HW_BREAKPOINT_X)
		return -1;
	return t;
}

static int bp_open(uint64_t addr, uint64_t len, int type, pid_t pid)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr), .type = PERF_TYPE_BREAKPOINT, .bp_type = type,
		.bp_addr = addr, .bp_len = type == HW_BREAKPOINT_X ? sizeof(long) : len,
		.sample_period = 1, .wakeup_events = 1, .disabled = 1,
	};
	int fd = syscall(__NR_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static int wp_expand(struct lang_probes *pr, const struct lang_attach *at, struct lang_points *out)
{
	const struct lang_probes_opts *o = probes_opts(pr);
	static volatile uint64_t probe_word;
	struct lang_point *pt;
	char name[128];
	int type = bp_type(at->mode), fd;
	uint64_t hits;

	if (type < 0)
		return probes_error(pr, at, -EINVAL, "%s: the mode is r, w, rw or x", at->text);
	/* can this machine watch memory at all: a word of this process,
	 * written once; a machine (a VM) may open the event and never fire */
	fd = bp_open((uint64_t)(uintptr_t)&probe_word, 8, HW_BREAKPOINT_W, 0);
	if (fd < 0)
		return probes_error(pr, at, fd, "%s: this machine refuses hardware breakpoints "
				    "(perf_event_open: %s); try a uprobe on the function that "
				    "writes it", at->text, strerror(-fd));
	hits = 0;
	if (!ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		probe_word++;
		if (read(fd, &hits, sizeof(hits)) != sizeof(hits))
			hits = 0;
	}
	close(fd);
	if (!hits)
		return probes_error(pr, at, -EOPNOTSUPP, "%s: this machine's hardware breakpoints "
				    "never fire (one opened on a word written here counted "
				    "nothing); try a uprobe on the function that writes it",
				    at->text);
	if (!o->npids && !o->cmd_path)
		return probes_error(pr, at, -EINVAL, "%s: a watchpoint watches a process: give -p "
				    "PID or a command", at->text);
	snprintf(name, sizeof(name), "watchpoint:0x%" PRIx64 ":%" PRIu64 ":%s", at->num, at->len,
		 at->mode);
	pt = lang_points_add(out, at, name);
	if (!pt)
		return -ENOMEM;
	pt->prog_type = BPF_PROG_TYPE_PERF_EVENT;
	pt->perf_type = PERF_TYPE_BREAKPOINT;
	pt->perf_config = (uint64_t)type;
	pt->addr = at->num;
	pt->perf_period = 1;
	return 0;
}

static int wp_attach(struct session *s, struct lang_probes *pr, const struct lang_point *pt,
		     int prog_fd)
{
	const struct lang_probes_opts *o = probes_opts(pr);
	pid_t child = session_child(s);
	int n = o->npids ? o->npids : 1, err = 0;

	for (int i = 0; i < n && !err; i++) {
		pid_t pid = o->npids ? o->pids[i] : child;
		int fd, lfd;

		if (pid <= 0) {
			msg("%s: no process to watch", pt->name);
			return -ESRCH;
		}
		fd = bp_open(pt->addr, pt->at ? pt->at->len : 8, (int)pt->perf_config, pid);
		if (fd < 0) {
			msg("%s: process %d: %s", pt->name, (int)pid, strerror(-fd));
			return fd;
		}
		err = session_own_fd(s, fd);
		if (err)
			return err;
		lfd = bpf_link_create(prog_fd, fd, BPF_PERF_EVENT, NULL);
		if (lfd < 0) {
			err = -errno;
			msg("%s: attach failed: %s (%s)", pt->name, strerror(-err), bpf_hint(err));
			return err;
		}
		err = session_own_fd(s, lfd);
		if (!err && ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
			err = -errno;
	}
	return err;
}

const struct lang_provider_ops lang_kprobe_ops = {
	.provider = LANG_P_KPROBE, .expand = kprobe_expand,
};
const struct lang_provider_ops lang_kretprobe_ops = {
	.provider = LANG_P_KRETPROBE, .expand = kprobe_expand,
};
const struct lang_provider_ops lang_fentry_ops = {
	.provider = LANG_P_FENTRY, .expand = fentry_expand,
};
const struct lang_provider_ops lang_fexit_ops = {
	.provider = LANG_P_FEXIT, .expand = fentry_expand,
};
const struct lang_provider_ops lang_watchpoint_ops = {
	.provider = LANG_P_WATCHPOINT, .expand = wp_expand, .attach = wp_attach,
};
