/* Perf-event probes, BPF_PROG_TYPE_PERF_EVENT programs (ctx: struct
 * bpf_perf_event_data, whose first member is the sampled pt_regs):
 *
 *   profile:hz:N, profile:{s,ms,us}:N   software cpu-clock on every online CPU
 *   interval:{s,ms,us,hz}:N             software cpu-clock on one CPU
 *   software:EVENT[:COUNT]              a software event on every online CPU,
 *                                       every COUNT events (bpftrace's default)
 *   hardware:EVENT[:COUNT]              the same with a PMU counter, when the
 *                                       machine has one (tried at run time) */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <sys/syscall.h>
#include "common.h"
#include "lang/probe_int.h"
#include "trace/attach.h"
#include "trace/perf.h"
#include "trace/session.h"

/* bpftrace's names, aliases and default counts (bpftrace 0.17) */
static const struct perf_event_name software[] = {
	{ "cpu-clock", "cpu", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 1000000 },
	{ "task-clock", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 1000000 },
	{ "page-faults", "faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 100 },
	{ "context-switches", "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 1000 },
	{ "cpu-migrations", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, 1 },
	{ "minor-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, 100 },
	{ "major-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, 1 },
	{ "alignment-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS, 1 },
	{ "emulation-faults", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS, 1 },
	{ "dummy", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, 1 },
	{ "bpf-output", NULL, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT, 1 },
};

static const struct perf_event_name hardware[] = {
	{ "cpu-cycles", "cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 1000000 },
	{ "instructions", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 1000000 },
	{ "cache-references", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, 1000000 },
	{ "cache-misses", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, 1000000 },
	{ "branch-instructions", "branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
	  100000 },
	{ "branch-misses", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, 100000 },
	{ "bus-cycles", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES, 100000 },
	{ "frontend-stalls", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND,
	  1000000 },
	{ "backend-stalls", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND,
	  1000000 },
	{ "ref-cycles", NULL, PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, 1000000 },
};

const struct perf_event_name *perf_event_find(bool hw, const char *name)
{
	const struct perf_event_name *t = hw ? hardware : software;
	size_t n = hw ? ARRAY_SIZE(hardware) : ARRAY_SIZE(software);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(t[i].name, name) || (t[i].alias && !strcmp(t[i].alias, name)))
			return &t[i];
	return NULL;
}

/* profile and interval: the event's period in ns, or its rate */
static int clock_point(struct lang_probes *pr, const struct lang_attach *at,
		       struct lang_points *out, bool one_cpu)
{
	struct lang_point *pt;
	uint64_t mult;
	char name[128];

	if (!strcmp(at->unit, "hz"))
		mult = 0;
	else if (!strcmp(at->unit, "s"))
		mult = 1000000000ULL;
	else if (!strcmp(at->unit, "ms"))
		mult = 1000000ULL;
	else if (!strcmp(at->unit, "us"))
		mult = 1000ULL;
	else
		return probes_error(pr, at, -EINVAL, "%s: unknown unit '%s'", at->text, at->unit);
	if (mult && at->num > UINT64_MAX / mult)
		return probes_error(pr, at, -ERANGE, "%s: the period is too long", at->text);
	if (!mult && at->num > 1000000000ULL)
		return probes_error(pr, at, -ERANGE, "%s: more than 1e9 per second", at->text);
	snprintf(name, sizeof(name), "%s:%s:%llu", lang_provider_name(at->provider), at->unit,
		 (unsigned long long)at->num);
	pt = lang_points_add(out, at, name);
	if (!pt)
		return -ENOMEM;
	pt->prog_type = BPF_PROG_TYPE_PERF_EVENT;
	pt->perf_type = PERF_TYPE_SOFTWARE;
	pt->perf_config = PERF_COUNT_SW_CPU_CLOCK;
	pt->perf_one_cpu = one_cpu;
	if (mult) {
		pt->perf_period = at->num * mult;	/* cpu-clock counts ns */
	} else if (one_cpu) {
		/* interval:hz:N ticks at an exact period, not an adaptive rate */
		pt->perf_period = 1000000000ULL / at->num;
	} else {
		pt->perf_freq = true;
		pt->perf_period = at->num;
	}
	return 0;
}

static int profile_expand(struct lang_probes *pr, const struct lang_attach *at,
			  struct lang_points *out)
{
	if (!strcmp(at->unit, "hz")) {
		long max = perf_max_sample_rate();

		if (max > 0 && at->num > (uint64_t)max)
			return probes_error(pr, at, -EINVAL, "%s: above the kernel's highest sampling "
					    "rate, %ld Hz (kernel.perf_event_max_sample_rate)",
					    at->text, max);
	}
	return clock_point(pr, at, out, false);
}

static int interval_expand(struct lang_probes *pr, const struct lang_attach *at,
			   struct lang_points *out)
{
	return clock_point(pr, at, out, true);
}

static int perf_open_probe(uint32_t type, uint64_t config)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr), .type = type, .config = config, .disabled = 1,
		.sample_period = 1000000,
	};
	int *cpus, n, fd;

	n = cpus_online(&cpus);
	if (n <= 0)
		return n < 0 ? n : -ENODEV;
	fd = syscall(__NR_perf_event_open, &attr, -1, cpus[0], -1, PERF_FLAG_FD_CLOEXEC);
	free(cpus);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int event_expand(struct lang_probes *pr, const struct lang_attach *at,
			struct lang_points *out, bool hw)
{
	const struct perf_event_name *e = perf_event_find(hw, at->func);
	struct lang_point *pt;
	char name[128];
	int err;

	if (!e)
		return probes_error(pr, at, -ENOENT, "%s: unknown %s event '%s'", at->text,
				    hw ? "hardware" : "software", at->func);
	if (hw) {
		err = perf_open_probe(e->type, e->config);
		if (err)
			return probes_error(pr, at, err, "%s: this machine has no hardware counter "
					    "for %s (perf_event_open: %s); try software:cpu-clock "
					    "or profile:hz:99", at->text, e->name, strerror(-err));
	}
	snprintf(name, sizeof(name), "%s:%s:%llu", hw ? "hardware" : "software", e->name,
		 (unsigned long long)(at->num ? at->num : e->period));
	pt = lang_points_add(out, at, name);
	if (!pt)
		return -ENOMEM;
	pt->func = strdup(e->name);
	if (!pt->func)
		return -ENOMEM;
	pt->prog_type = BPF_PROG_TYPE_PERF_EVENT;
	pt->perf_type = e->type;
	pt->perf_config = e->config;
	pt->perf_period = at->num ? at->num : e->period;
	return 0;
}

static int software_expand(struct lang_probes *pr, const struct lang_attach *at,
			   struct lang_points *out)
{
	return event_expand(pr, at, out, false);
}

static int hardware_expand(struct lang_probes *pr, const struct lang_attach *at,
			   struct lang_points *out)
{
	return event_expand(pr, at, out, true);
}

static int perf_attach(struct session *s, struct lang_probes *pr, const struct lang_point *pt,
		       int prog_fd)
{
	int n;

	if (pt->perf_one_cpu) {
		int *cpus, ncpus, pfd, lfd, err;
		struct perf_event_attr attr = {
			.size = sizeof(attr), .type = pt->perf_type, .config = pt->perf_config,
			.freq = pt->perf_freq, .sample_period = pt->perf_period,
		};

		ncpus = cpus_online(&cpus);
		if (ncpus <= 0) {
			msg("%s: cannot list online CPUs: %s", pt->name,
			    strerror(ncpus ? -ncpus : ENODEV));
			return ncpus ? ncpus : -ENODEV;
		}
		pfd = syscall(__NR_perf_event_open, &attr, -1, cpus[0], -1, PERF_FLAG_FD_CLOEXEC);
		free(cpus);
		if (pfd < 0) {
			err = -errno;
			msg("%s: perf event: %s (%s)", pt->name, strerror(-err), bpf_hint(err));
			return err;
		}
		err = session_own_fd(s, pfd);
		if (err)
			return err;
		lfd = bpf_link_create(prog_fd, pfd, BPF_PERF_EVENT, NULL);
		if (lfd < 0) {
			err = -errno;
			msg("%s: attach failed: %s (%s)", pt->name, strerror(-err), bpf_hint(err));
			return err;
		}
		return session_own_fd(s, lfd);
	}
	n = attach_perf_cpus(s, prog_fd, pt->perf_type, pt->perf_config, pt->perf_freq,
			     pt->perf_period);
	return n < 0 ? n : 0;
}

static int list_table(FILE *f, const char *pattern, const char *prov,
		      const struct perf_event_name *t, size_t n)
{
	int count = 0;

	for (size_t i = 0; i < n; i++) {
		char name[128];

		/* bpftrace's spelling: the event and an empty count */
		snprintf(name, sizeof(name), "%s:%s:", prov, t[i].name);
		if (!probes_glob(pattern, name) &&
		    !(snprintf(name, sizeof(name), "%s:%s", prov, t[i].name) > 0 &&
		      probes_glob(pattern, name)))
			continue;
		fprintf(f, "%s:%s:\n", prov, t[i].name);
		count++;
	}
	return count;
}

static int software_list(struct lang_probes *pr, FILE *f, const char *pattern, bool verbose)
{
	return list_table(f, pattern, "software", software, ARRAY_SIZE(software));
}

static int hardware_list(struct lang_probes *pr, FILE *f, const char *pattern, bool verbose)
{
	/* only what this machine counts */
	if (perf_open_probe(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES))
		return 0;
	return list_table(f, pattern, "hardware", hardware, ARRAY_SIZE(hardware));
}

const struct lang_provider_ops lang_profile_ops = {
	.provider = LANG_P_PROFILE, .expand = profile_expand, .attach = perf_attach,
};
const struct lang_provider_ops lang_interval_ops = {
	.provider = LANG_P_INTERVAL, .expand = interval_expand, .attach = perf_attach,
};
const struct lang_provider_ops lang_software_ops = {
	.provider = LANG_P_SOFTWARE, .expand = software_expand, .attach = perf_attach,
	.list = software_list,
};
const struct lang_provider_ops lang_hardware_ops = {
	.provider = LANG_P_HARDWARE, .expand = hardware_expand, .attach = perf_attach,
	.list = hardware_list,
};
