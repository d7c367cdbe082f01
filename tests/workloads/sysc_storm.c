/* A syscall storm: THREADS threads each call getppid(2) CALLS times, all
 * at once (they start together on a barrier), then the process exits.
 * Usage: sysc_storm [THREADS=8] [CALLS=62500]
 * THREADS x CALLS getppid() calls in all, made directly, so no libc
 * cache can hide one. */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>

static pthread_barrier_t start;
static long calls;

static void *storm(void *arg)
{
	pthread_barrier_wait(&start);
	for (long i = 0; i < calls; i++)
		syscall(SYS_getppid);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 8;
	pthread_t t[64];

	calls = argc > 2 ? atol(argv[2]) : 62500;
	if (n < 1 || n > 64 || calls < 0)
		return 2;
	pthread_barrier_init(&start, NULL, n);
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, storm, NULL);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
