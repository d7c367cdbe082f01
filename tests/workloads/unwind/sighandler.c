/* Through a signal frame: main -> wait_here spins; a SIGALRM every 20 ms
 * runs on_alarm -> handler_work, which spins about 10 ms, so about half of
 * the samples are in handler_work on top of the signal frame on top of
 * wait_here.  Usage: sighandler [SECONDS=2] */
#include <signal.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

static volatile unsigned long sink;
static volatile int done;
static volatile sig_atomic_t waiting;	/* main is in wait_here */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void handler_work(void)
{
	double end = now() + 0.010;

	while (now() < end)
		for (int i = 0; i < 1000; i++)
			sink += i;
}

__attribute__((noinline)) void on_alarm(int sig)
{
	/* an alarm before main reached wait_here (a loaded machine may hold
	 * the process in setitimer() or atof() for longer than 20 ms) does
	 * nothing: handler_work always runs on top of wait_here */
	if (!waiting)
		return;
	handler_work();
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void wait_here(double end)
{
	waiting = 1;
	while (now() < end)
		for (int i = 0; i < 1000; i++)
			sink += i;
	/* nor after it: an alarm during exit() would run handler_work on
	 * top of the exit handlers */
	waiting = 0;
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval it = { { 0, 20000 }, { 0, 20000 } };
	/* the argument read before the timer is armed: on a loaded machine
	 * a first alarm could otherwise land in atof(), not wait_here() */
	double end = now() + (argc > 1 ? atof(argv[1]) : 2.0);

	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	wait_here(end);
	setitimer(ITIMER_REAL, &(struct itimerval){ 0 }, NULL);
	return 0;
}
