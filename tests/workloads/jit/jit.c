/* A just-in-time compiler in miniature: code copied into anonymous
 * executable memory, named only by the perf map it writes
 * (/tmp/perf-PID.map, perf's format: "START SIZE name" in hex).  The
 * jitted function keeps a frame pointer and calls back into the program:
 * main -> run_jit -> jit_trampoline (JIT) -> jit_callback -> jit_spin,
 * for MS milliseconds of CPU time.  With "nomap" it writes no perf map
 * and prints "START SIZE" of the jitted code instead; with "gate" it
 * waits for SIGUSR1 before running it (blocked in pause()), then prints
 * "done" and waits for a signal that ends it.  The map stays when it exits, as JITs leave
 * theirs for the profilers that read them after.
 * Usage: jit MS [nomap] [gate] */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static double limit_ms;

static double cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

__attribute__((noinline)) void jit_spin(void)
{
	while (cpu_ms() < limit_ms)
		for (int i = 0; i < 10000; i++)
			sink += i;
}

__attribute__((noinline)) void jit_callback(void)
{
	jit_spin();
	sink++;
}

/* What a JIT emits for "call the function in rdi" with a frame:
 *   push %rbp; mov %rsp,%rbp; call *%rdi; pop %rbp; ret */
static const unsigned char trampoline[] = { 0x55, 0x48, 0x89, 0xe5, 0xff, 0xd7, 0x5d, 0xc3 };

__attribute__((noinline)) void run_jit(void (*code)(void (*)(void)))
{
	code(jit_callback);
	sink++;
}

static void on_usr1(int sig)
{
	(void)sig;
}

int main(int argc, char **argv)
{
	int map = 1, gate = 0;
	char path[64];
	void *mem;

	limit_ms = argc > 1 ? atof(argv[1]) : 300;
	for (int i = 2; i < argc; i++) {
		map &= strcmp(argv[i], "nomap") != 0;
		gate |= !strcmp(argv[i], "gate");
	}
	mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 1;
	/* somewhere inside the page, as a JIT's code heap has it */
	memcpy((char *)mem + 0x100, trampoline, sizeof(trampoline));
	if (mprotect(mem, 4096, PROT_READ | PROT_EXEC))
		return 1;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", getpid());
	if (map) {
		FILE *f = fopen(path, "w");

		if (!f)
			return 1;
		fprintf(f, "%lx %zx jit_trampoline\n", (unsigned long)mem + 0x100, sizeof(trampoline));
		fclose(f);
	} else {
		printf("%lx %zx\n", (unsigned long)mem + 0x100, sizeof(trampoline));
		fflush(stdout);
	}
	if (gate) {
		signal(SIGUSR1, on_usr1);
		pause();
	}
	run_jit((void (*)(void (*)(void)))((char *)mem + 0x100));
	if (gate) {
		printf("done\n");
		fflush(stdout);
		pause();
	}
	return 0;
}
