#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include "trace/perf.h"

int cpus_online(int **cpus)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	int *v = NULL, n = 0, a, b;
	char sep;

	if (!f)
		return -errno;
	while (fscanf(f, "%d", &a) == 1) {
		b = a;
		sep = fgetc(f);
		if (sep == '-') {
			if (fscanf(f, "%d", &b) != 1)
				break;
			sep = fgetc(f);
		}
		for (int c = a; c <= b; c++) {
			int *nv = realloc(v, (n + 1) * sizeof(*v));
			if (!nv) {
				free(v);
				fclose(f);
				return -ENOMEM;
			}
			v = nv;
			v[n++] = c;
		}
		if (sep != ',')
			break;
	}
	fclose(f);
	if (!n) {
		free(v);
		return -ENOENT;
	}
	*cpus = v;
	return n;
}

int perf_cpu_clock_open(int cpu, long hz)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.freq = 1,
		.sample_freq = hz,
		.disabled = 1,
	};
	int fd = syscall(__NR_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

long perf_max_sample_rate(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "re");
	long v = -ENOENT;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -EINVAL;
		fclose(f);
	}
	return v;
}
