/* perf events: the online CPUs, and a sampling cpu-clock event per CPU. */
#ifndef STACKSCOPE_TRACE_PERF_H
#define STACKSCOPE_TRACE_PERF_H

/* Online CPU numbers (from /sys/devices/system/cpu/online) into a new
 * array; returns the count or -errno. */
int cpus_online(int **cpus);

/* A cpu-clock event on one CPU, all tasks, sampling at hz; disabled until
 * the caller attaches a program.  Returns the fd or -errno. */
int perf_cpu_clock_open(int cpu, long hz);

/* The highest rate the kernel currently accepts
 * (kernel.perf_event_max_sample_rate), or -errno. */
long perf_max_sample_rate(void);

#endif
