/* USDT probes of known arguments (<sys/sdt.h>), fired in this order by
 * `usdt_wl [N]` (N rounds, default 1; 0: until killed, a round every
 * 10 ms):
 *
 *   usdt_wl:consts(5, -7, 300, -1000000000000)
 *       constant operands ($5 ...): sizes 4, 4, 4, 8
 *   usdt_wl:regs(u8 200, s8 -100, u16 60000, s16 -30000, u32 4000000000,
 *                s32 -2000000000, u64 18000000000000000000, s64 -9000000000000000000)
 *       every size signed and unsigned, in registers (%al/%bl, %ax, %eax,
 *       %rax ... whatever the compiler picks)
 *   usdt_wl:mems(the same eight values from memory: global variables,
 *       SYM(%rip) in a PIE, and a stack slot, N(%rsp)/N(%rbp))
 *   usdt_wl:asm(-1@%ah = -3, 8@8(%rax,%rbx,8) = 222, -4@-4(%rsp) = -44,
 *       2@%cx = 0xfffe)
 *       operand strings written by hand: the high-byte register, the
 *       indexed form, a negative displacement
 *   usdt_wl:twice(1), usdt_wl:twice(2): one probe inlined in two places,
 *       so two notes of one name with their own operands
 *   usdt_wl:round(ROUND), ROUND counting from 1
 *   usdt_wl2:round(ROUND): another provider, the same name
 *   usdt_lib:ping(ROUND, 4242) in libusdt_lib.so (usdt_lib.c), next to
 *       this program, found through its RUNPATH
 *   usdt_wl:gated(ROUND): the workload prints "gated enabled" or "gated
 *       disabled" a round, as USDT_WL_GATED_ENABLED() says (nonzero only
 *       while a probe is attached to it), then "lib enabled" or "lib
 *       disabled" as usdt_lib:ping's semaphore was
 * `usdt_wl spin N` only fires usdt_wl:regs N times, as fast as it can,
 * and prints "spin N calls NS ns" (CLOCK_MONOTONIC around the loop:
 * bench/usdt.sh).
 * Every probe has a semaphore (_SDT_HAS_SEMAPHORES is per file).
 *
 * Built with gcc -O2 by the build (tests/workloads/build.mk). */
#define _SDT_HAS_SEMAPHORES 1
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/sdt.h>

/* _SDT_HAS_SEMAPHORES gives every probe of the file a semaphore */
#define SEMAPHORE(p, n) unsigned short p##_##n##_semaphore __attribute__((section(".probes")))
SEMAPHORE(usdt_wl, consts);
SEMAPHORE(usdt_wl, regs);
SEMAPHORE(usdt_wl, mems);
SEMAPHORE(usdt_wl, asm);
SEMAPHORE(usdt_wl, round);
SEMAPHORE(usdt_wl2, round);
SEMAPHORE(usdt_wl, gated);
SEMAPHORE(usdt_wl, twice);
#define USDT_WL_GATED_ENABLED() __builtin_expect(usdt_wl_gated_semaphore, 0)

/* memory operands: globals the compiler must read from memory */
volatile uint8_t g_u8 = 200;
volatile int8_t g_s8 = -100;
volatile uint16_t g_u16 = 60000;
volatile int16_t g_s16 = -30000;
volatile uint32_t g_u32 = 4000000000u;
volatile int32_t g_s32 = -2000000000;
volatile uint64_t g_u64 = 18000000000000000000ull;
volatile int64_t g_s64 = -9000000000000000000ll;

static long table[4] = { 111, 222, 333, 444 };

int usdt_lib_ping(long round);

__attribute__((noinline)) static void fire_regs(uint8_t u8, int8_t s8, uint16_t u16, int16_t s16,
						uint32_t u32, int32_t s32, uint64_t u64, int64_t s64)
{
	DTRACE_PROBE8(usdt_wl, regs, u8, s8, u16, s16, u32, s32, u64, s64);
}

__attribute__((noinline)) static void fire_mems(void)
{
	/* a stack slot the compiler addresses by the stack or frame pointer */
	volatile int32_t local = -123456;

	STAP_PROBE9(usdt_wl, mems, g_u8, g_s8, g_u16, g_s16, g_u32, g_s32, g_u64, g_s64, local);
}

__attribute__((noinline)) static void fire_asm(void)
{
	/* -44 four bytes below the stack pointer at the probe, inside the
	 * 16 bytes taken from the stack; %ah = 0xfd; table[0 + 1] */
	__asm__ __volatile__(
		"sub $16, %%rsp\n\t"
		"movl $-44, 4(%%rsp)\n\t"
		"add $8, %%rsp\n\t"
		"mov $0xfd00, %%eax\n\t"
		"mov %0, %%rsi\n\t"
		"xor %%edi, %%edi\n\t"
		"mov $0xfffe, %%ecx\n\t"
		STAP_PROBE_ASM(usdt_wl, asm, -1@%%ah 8@8(%%rsi,%%rdi,8) -4@-4(%%rsp) 2@%%cx)
		"add $8, %%rsp\n\t"
		:: "r"(table) : "rax", "rsi", "rdi", "rcx", "memory");
}

static inline __attribute__((always_inline)) void twice(long v)
{
	DTRACE_PROBE1(usdt_wl, twice, v);
}

__attribute__((noinline)) static void round_once(long round)
{
	volatile uint8_t u8 = 200;
	volatile int8_t s8 = -100;
	volatile uint16_t u16 = 60000;
	volatile int16_t s16 = -30000;
	volatile uint32_t u32 = 4000000000u;
	volatile int32_t s32 = -2000000000;
	volatile uint64_t u64 = 18000000000000000000ull;
	volatile int64_t s64 = -9000000000000000000ll;
	int lib;

	DTRACE_PROBE4(usdt_wl, consts, 5, -7, 300, -1000000000000ll);
	fire_regs(u8, s8, u16, s16, u32, s32, u64, s64);
	fire_mems();
	fire_asm();
	twice(1);
	twice(2);
	DTRACE_PROBE1(usdt_wl, round, round);
	DTRACE_PROBE1(usdt_wl2, round, round);
	lib = usdt_lib_ping(round);
	DTRACE_PROBE1(usdt_wl, gated, round);
	printf("gated %s lib %s\n", USDT_WL_GATED_ENABLED() ? "enabled" : "disabled",
	       lib ? "enabled" : "disabled");
	fflush(stdout);
}

int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 1;
	struct timespec ten_ms = { 0, 10 * 1000 * 1000 };

	if (argc > 2 && !strcmp(argv[1], "spin")) {
		volatile int32_t s32 = -2000000000;
		struct timespec t0, t1;
		long n = atol(argv[2]);

		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (long i = 0; i < n; i++)
			fire_regs(200, -100, 60000, -30000, 4000000000u, s32, 1, -1);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		printf("spin %ld calls %lld ns\n", n, (long long)(t1.tv_sec - t0.tv_sec) * 1000000000LL +
		       (t1.tv_nsec - t0.tv_nsec));
		return 0;
	}

	for (long r = 1; !rounds || r <= rounds; r++) {
		round_once(r);
		if (!rounds || r < rounds)
			nanosleep(&ten_ms, NULL);
	}
	return 0;
}
