/* Workload for `stackscope graph`: every run makes exactly these calls
 * (tests/e2e/test_graph.sh compares the traced tree with them).
 *
 * main thread:
 *   main
 *     run_all(round=1)
 *       scale(v=7, factor=6) = 42
 *       widths(a=-3, b=-300, c=-70000, d=200, e=60000, f=4000000000) = 3999989897
 *       is_even(v=10) = true;  is_even(v=7) = false
 *       initial(s="graph") = 'g'
 *       shout(msg="say \"hi\"\n", c=GREEN) = 10;  shout(msg=<100 x's>, c=BLUE) = 102
 *       mix(c=GREEN, k=1) = BLUE;  mix(c=BLUE, k=5) = 7
 *       average(a=1.5, b=2.25) = 1.875;  halve(x=5) = 2.5
 *       manhattan(p=&{-3, 4}) { absval(v=-3) = 3; absval(v=4) = 4 } = 7
 *       area(r={2, 3}, unit=10) = 60        struct by value
 *       sum8(a..h = 1..8) = 36              g, h on the stack
 *       neg(x=5) = -5;  big() = 18446744073709551615;  nothing()
 *       factorial(n=5) { factorial(4) { ... factorial(1) = 1 ... } } = 120
 *       try_dive(n=3) { dive(n=3) { dive(2) { dive(1) { dive(0)
 *           longjmp } } } } = 3              dive never returns
 *       scale(v=1, factor=2) = 2            nesting intact after it
 *   two threads, concurrently: worker(arg) { thread_body(id=1|2) {
 *       scale(v=id, factor=100); factorial(n=3) {...};
 *       quit_thread(code=id) -> pthread_exit } }   none of the three returns
 * All functions are noinline/noipa so every call is a real call with the
 * standard convention.  Built with -pg -mfentry -mnop-mcount, every
 * function but nothing() begins with a 5-byte nop (after endbr64 with
 * -fcf-protection).  Ends by itself at once, with the exit status
 * argv[1] (default 0). */
#include <pthread.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEEP __attribute__((noinline, noipa, used))

enum color { RED, GREEN, BLUE };
struct point { int x, y; };
struct rect { int w, h; };

static jmp_buf env;
static volatile long sink;

KEEP int scale(int v, int factor) { return v * factor; }

KEEP unsigned long widths(signed char a, short b, long c, unsigned char d, unsigned short e,
			  unsigned int f)
{
	return (unsigned long)(a + b + c + d + e) + f;
}

KEEP bool is_even(long v) { return v % 2 == 0; }
KEEP char initial(const char *s) { return s[0]; }
KEEP size_t shout(const char *msg, enum color c) { return strlen(msg) + c; }
KEEP enum color mix(enum color c, int k) { return (enum color)(c + k); }
KEEP double average(double a, double b) { return (a + b) / 2; }
KEEP float halve(float x) { return x / 2; }
KEEP int absval(int v) { return v < 0 ? -v : v; }
KEEP int manhattan(const struct point *p) { return absval(p->x) + absval(p->y); }
KEEP int area(struct rect r, int unit) { return r.w * r.h * unit; }

KEEP long sum8(int a, int b, int c, int d, int e, int f, int g, int h)
{
	return a + b + c + d + e + f + g + h;
}

KEEP short neg(short x) { return -x; }
KEEP unsigned long long big(void) { return ~0ULL; }
/* no -pg instrumentation: no entry nop in the -mnop-mcount builds */
KEEP __attribute__((no_instrument_function)) void nothing(void) { sink++; }

KEEP long factorial(int n) { return n <= 1 ? 1 : n * factorial(n - 1); }

KEEP void dive(int n)
{
	if (n == 0)
		longjmp(env, 3);
	dive(n - 1);
	sink++;
}

KEEP int try_dive(int n)
{
	int r = setjmp(env);

	if (r)
		return r;
	dive(n);
	return 0;
}

KEEP void run_all(int round)
{
	static char xs[101];
	struct point p = { -3, 4 };
	struct rect r = { 2, 3 };

	memset(xs, 'x', 100);
	sink += scale(7, 6);
	sink += widths(-3, -300, -70000, 200, 60000, 4000000000u);
	sink += is_even(10) + is_even(7);
	sink += initial("graph");
	sink += shout("say \"hi\"\n", GREEN) + shout(xs, BLUE);
	sink += mix(GREEN, 1) + mix(BLUE, 5);
	sink += (long)average(1.5, 2.25) + (long)halve(5.0f);
	sink += manhattan(&p);
	sink += area(r, 10);
	sink += sum8(1, 2, 3, 4, 5, 6, 7, 8);
	sink += neg(5) + (long)big();
	nothing();
	sink += factorial(5);
	sink += try_dive(3);
	sink += scale(1, 2) + round;
}

KEEP void quit_thread(int code)
{
	pthread_exit((void *)(long)code);
}

KEEP int thread_body(int id)
{
	sink += scale(id, 100);
	sink += factorial(3);
	quit_thread(id);
	return 0;
}

KEEP void *worker(void *arg)
{
	thread_body((int)(long)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];

	run_all(1);
	for (long i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(i + 1)))
			return 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return argc > 1 ? atoi(argv[1]) : 0;
}
