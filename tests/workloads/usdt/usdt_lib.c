/* libusdt_lib.so, for usdt_wl: one probe in a shared library,
 * usdt_lib:ping(ROUND, 4242), whose second operand is a static of the
 * library read %rip-relative (so its address moves with the library's
 * load address), with a semaphore in the library's own data.
 * usdt_lib_ping() returns whether that semaphore was set. */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

unsigned short usdt_lib_ping_semaphore __attribute__((section(".probes")));
static volatile int lib_value = 4242;

__attribute__((noinline)) int usdt_lib_ping(long round)
{
	DTRACE_PROBE2(usdt_lib, ping, round, lib_value);
	return usdt_lib_ping_semaphore != 0;
}
