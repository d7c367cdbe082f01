/* The bundled demo / benchmark workload: a small "service" loop with a
 * few layers, so its flame graph has something to show.
 *   main -> serve -> handle_request -> parse_request -> tokenize
 *                                   -> compute -> checksum_block
 *                                              -> sort_values -> qsort (libc) -> cmp_values
 *                                   -> respond -> write(2) + read(2) on a pipe (kernel)
 * Usage: demo [SECONDS=4]  (ends by itself) */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NV 2048
static volatile unsigned long sink;
static int values[NV];
static char request[4096], response[16384];

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) int tokenize(const char *s)
{
	int n = 0;
	for (const char *p = s; *p; p++)
		n += (*p == ' ' || *p == '&');
	return n;
}

__attribute__((noinline)) int parse_request(void)
{
	int t = 0;
	for (int i = 0; i < 8; i++)
		t += tokenize(request);
	return t;
}

__attribute__((noinline)) unsigned long checksum_block(const int *v, int n)
{
	unsigned long h = 1469598103934665603UL;
	for (int r = 0; r < 24; r++)
		for (int i = 0; i < n; i++)
			h = (h ^ (unsigned)v[i]) * 1099511628211UL;
	return h;
}

__attribute__((noinline)) int cmp_values(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

__attribute__((noinline)) void sort_values(unsigned seed)
{
	for (int i = 0; i < NV; i++)
		values[i] = (int)((seed = seed * 1103515245 + 12345) >> 8);
	qsort(values, NV, sizeof(values[0]), cmp_values);
}

__attribute__((noinline)) unsigned long compute(unsigned seed)
{
	sort_values(seed);
	return checksum_block(values, NV);
}

/* fd[1] is written, fd[0] drained: the pipe never fills */
__attribute__((noinline)) void respond(const int *fd, unsigned long v)
{
	memset(response, (int)(v & 0x3f) + ' ', sizeof(response));
	for (int i = 0; i < 16; i++)
		if (write(fd[1], response, sizeof(response)) != sizeof(response) ||
		    read(fd[0], response, sizeof(response)) != sizeof(response))
			exit(1);
}

__attribute__((noinline)) void handle_request(const int *fd, unsigned seed)
{
	int t = parse_request();
	respond(fd, compute(seed + t));
}

__attribute__((noinline)) void serve(const int *fd, double end)
{
	for (unsigned seed = 1; now() < end; seed++)
		handle_request(fd, seed);
}

int main(int argc, char **argv)
{
	int fd[2];

	if (pipe(fd))
		return 1;
	for (size_t i = 0; i + 1 < sizeof(request); i++)
		request[i] = "GET /a?b=c&d=e HTTP/1.1 "[i % 24];
	serve(fd, now() + (argc > 1 ? atof(argv[1]) : 4.0));
	sink = 0;
	return 0;
}
