#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "common.h"
#include "trace/attach.h"
#include "trace/perf.h"
#include "trace/session.h"
#include "trace/tracefs.h"

static int perf_open(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	int fd = syscall(__NR_perf_event_open, attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* prog_fd on the perf event pfd (owned by the session from here on),
 * then the event enabled. */
static int link_perf(struct session *s, int prog_fd, int pfd, uint64_t cookie)
{
	LIBBPF_OPTS(bpf_link_create_opts, lo, .perf_event.bpf_cookie = cookie);
	int err, lfd;

	err = session_own_fd(s, pfd);
	if (err)
		return err;
	lfd = bpf_link_create(prog_fd, pfd, BPF_PERF_EVENT, &lo);
	if (lfd < 0)
		return -errno;
	err = session_own_fd(s, lfd);
	if (err)
		return err;
	if (ioctl(pfd, PERF_EVENT_IOC_ENABLE, 0))
		return -errno;
	return 0;
}

int attach_perf_cpus(struct session *s, int prog_fd, uint32_t type, uint64_t config, bool freq,
		     uint64_t n)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = type,
		.config = config,
		.freq = freq,
		.sample_period = n,	/* sample_freq when freq: the same field */
		.disabled = 1,
	};
	int *cpus, ncpus, err = 0;

	ncpus = cpus_online(&cpus);
	if (ncpus < 0) {
		msg("cannot list online CPUs: %s", strerror(-ncpus));
		return ncpus;
	}
	for (int i = 0; i < ncpus && !err; i++) {
		int pfd = perf_open(&attr, -1, cpus[i]);

		if (pfd < 0) {
			err = pfd;
			msg("perf event %u:%llu on CPU %d: %s (%s)", type, (unsigned long long)config,
			    cpus[i], strerror(-err), bpf_hint(err));
			break;
		}
		err = link_perf(s, prog_fd, pfd, 0);
		if (err)
			msg("perf_event program on CPU %d: attach failed: %s (%s)", cpus[i],
			    strerror(-err), bpf_hint(err));
	}
	free(cpus);
	return err ? err : ncpus;
}

/* The PMU type of uprobes, the config bit of a return probe and the
 * config shift of a reference counter's offset (-1: none), read from
 * sysfs once. */
static int uprobe_pmu(int *type, int *ret_bit, int *ref_shift)
{
	static int t = -1, bit = -1, ref = -1;
	char buf[64];
	FILE *f;

	if (t < 0) {
		f = fopen("/sys/bus/event_source/devices/uprobe/type", "re");
		if (!f)
			return -errno;
		if (fscanf(f, "%d", &t) != 1)
			t = -1;
		fclose(f);
		f = fopen("/sys/bus/event_source/devices/uprobe/format/retprobe", "re");
		if (f) {
			if (fgets(buf, sizeof(buf), f) && !strncmp(buf, "config:", 7))
				bit = atoi(buf + 7);
			fclose(f);
		}
		/* "config:32-63" (kernel 4.20) */
		f = fopen("/sys/bus/event_source/devices/uprobe/format/ref_ctr_offset", "re");
		if (f) {
			if (fgets(buf, sizeof(buf), f) && !strncmp(buf, "config:", 7))
				ref = atoi(buf + 7);
			fclose(f);
			if (ref < 1 || ref > 63)
				ref = -1;
		}
		if (t < 0 || bit < 0 || bit > 63) {
			t = -1;
			return -ENOENT;
		}
	}
	*type = t;
	*ret_bit = bit;
	*ref_shift = ref;
	return 0;
}

int attach_uprobe(struct session *s, int prog_fd, const char *path, uint64_t offset, pid_t pid,
		  uint64_t cookie, bool retprobe, const char *what)
{
	return attach_uprobe_ref(s, prog_fd, path, offset, 0, pid, cookie, retprobe, what);
}

int attach_uprobe_ref(struct session *s, int prog_fd, const char *path, uint64_t offset,
		      uint64_t ref_ctr_offset, pid_t pid, uint64_t cookie, bool retprobe,
		      const char *what)
{
	struct perf_event_attr attr = { .size = sizeof(attr) };
	int type = 0, bit = 0, ref = -1, pfd, err;

	err = uprobe_pmu(&type, &bit, &ref);
	if (err) {
		msg("%s %s: the kernel has no uprobe event source: %s",
		    retprobe ? "uretprobe" : "uprobe", what, strerror(-err));
		return err;
	}
	if (ref_ctr_offset && (ref < 0 || ref_ctr_offset >> (64 - ref))) {
		msg("%s %s: %s", retprobe ? "uretprobe" : "uprobe", what, ref < 0 ?
		    "this kernel's uprobes have no reference counter (semaphore)" :
		    "the semaphore's offset is too large for the kernel");
		return -EOPNOTSUPP;
	}
	attr.type = type;
	attr.config = retprobe ? 1ULL << bit : 0;
	if (ref_ctr_offset)
		attr.config |= ref_ctr_offset << ref;
	attr.config1 = (uint64_t)(uintptr_t)path;	/* uprobe_path */
	attr.config2 = offset;				/* probe_offset */
	/* every process: perf wants a CPU then, and any one will do */
	pfd = perf_open(&attr, pid > 0 ? pid : -1, pid > 0 ? -1 : 0);
	if (pfd < 0) {
		err = pfd;
	} else {
		err = link_perf(s, prog_fd, pfd, cookie);
	}
	if (err)
		msg("%s %s: attach failed: %s (%s)", retprobe ? "uretprobe" : "uprobe", what,
		    strerror(-err), bpf_hint(err));
	return err;
}

/* union bpf_attr's link_create for uprobe_multi (kernel 6.6), spelled out:
 * the system's linux/bpf.h may predate it. */
struct link_create_uprobe_multi {
	__u32 prog_fd, target_fd, attach_type, flags;
	__u64 path, offsets, ref_ctr_offsets, cookies;
	__u32 cnt, flags_multi, pid, pad;
};

int attach_uprobe_multi(struct session *s, int prog_fd, const char *path, const uint64_t *offsets,
			const uint64_t *cookies, size_t n, pid_t pid, bool retprobe,
			const char *what)
{
	struct link_create_uprobe_multi a = {
		.prog_fd = prog_fd,
		.attach_type = ATTACH_UPROBE_MULTI,
		.path = (uintptr_t)path,
		.offsets = (uintptr_t)offsets,
		.cookies = (uintptr_t)cookies,
		.cnt = n,
		.flags_multi = retprobe ? 1 : 0,	/* BPF_F_UPROBE_MULTI_RETURN */
		.pid = pid > 0 ? pid : 0,
	};
	int fd, err;

	fd = syscall(__NR_bpf, BPF_LINK_CREATE, &a, sizeof(a));
	if (fd < 0) {
		err = -errno;
		msg("%s %s (%zu probes in one link): attach failed: %s (%s)",
		    retprobe ? "uretprobes" : "uprobes", what, n, strerror(-err), bpf_hint(err));
		return err;
	}
	return session_own_fd(s, fd);
}

int attach_tracepoint_id(struct session *s, int prog_fd, int id, const char *what)
{
	return attach_tracepoint_cookie(s, prog_fd, id, 0, what);
}

int attach_tracepoint_cookie(struct session *s, int prog_fd, int id, uint64_t cookie,
			     const char *what)
{
	struct perf_event_attr attr = { .size = sizeof(attr), .type = PERF_TYPE_TRACEPOINT,
					.sample_period = 1, .wakeup_events = 1 };
	int pfd, err;

	attr.config = id;
	/* A program on a tracepoint runs for every task on every CPU, however
	 * many perf events carry it: one event (on CPU 0, as perf wants one)
	 * is the attachment, and a second would run the program twice. */
	pfd = perf_open(&attr, -1, 0);
	err = pfd < 0 ? pfd : link_perf(s, prog_fd, pfd, cookie);
	if (err)
		msg("tracepoint %s: attach failed: %s", what, strerror(-err));
	return err;
}

int attach_tracepoint(struct session *s, int prog_fd, const char *sub, const char *event)
{
	struct tracefs *t = tracefs_open();
	char what[256];
	int id;

	if (!t)
		return -errno;
	id = tracefs_event_id(t, sub, event);
	tracefs_close(t);
	if (id < 0) {
		msg("tracepoint %s:%s: %s", sub, event,
		    id == -ENOENT ? "no such tracepoint" : strerror(-id));
		return id;
	}
	snprintf(what, sizeof(what), "%s:%s", sub, event);
	return attach_tracepoint_id(s, prog_fd, id, what);
}

int attach_tp_btf(struct session *s, int prog_fd, const char *what)
{
	int fd = bpf_link_create(prog_fd, 0, BPF_TRACE_RAW_TP, NULL);

	if (fd < 0) {
		int err = -errno;

		msg("tp_btf %s: attach failed: %s", what, strerror(-err));
		return err;
	}
	return session_own_fd(s, fd);
}

int attach_raw_tracepoint(struct session *s, int prog_fd, const char *name)
{
	return attach_raw_tracepoint_cookie(s, prog_fd, name, 0);
}

int attach_raw_tracepoint_cookie(struct session *s, int prog_fd, const char *name,
				 uint64_t cookie)
{
	/* BPF_RAW_TRACEPOINT_OPEN's attribute as 6.10 has it (libbpf 1.1's
	 * bpf_raw_tracepoint_open() passes no cookie); a kernel before
	 * 6.10 takes it when the cookie is 0 */
	struct {
		__u64 name;
		__u32 prog_fd;
		__u32 pad;
		__u64 cookie;
	} attr = { .name = (uintptr_t)name, .prog_fd = prog_fd, .cookie = cookie };
	int fd = (int)syscall(__NR_bpf, BPF_RAW_TRACEPOINT_OPEN, &attr, sizeof(attr));

	if (fd < 0) {
		int err = -errno;

		msg("raw_tracepoint %s: attach failed: %s", name, strerror(-err));
		return err;
	}
	return session_own_fd(s, fd);
}

int attach_program(struct session *s, struct bpf_program *prog)
{
	struct bpf_link *l = bpf_program__attach(prog);

	if (!l) {
		int err = -errno;

		msg("%s %s: attach failed: %s", bpf_program__section_name(prog),
		    bpf_program__name(prog), strerror(-err));
		return err;
	}
	return session_own_link(s, l);
}
