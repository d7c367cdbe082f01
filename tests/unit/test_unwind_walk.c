/* Unit tests of the user-space walk (src/unwind/unwind.c) on synthetic
 * stacks: one mapping with no table (every frame by frame pointer) and
 * return addresses in no mapping, as a new thread's first frame gives
 * (clone3's child preempted on its first return: the word above its sp
 * is whatever the reused stack held).  The in-kernel walker
 * (bpf/kunwind.bpf.h) keeps the same rule: a return address in no
 * mapping is kept only when one frame-pointer step from it reaches a
 * mapped pc (JIT code called from mapped code); else the chain ends
 * there, truncated. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "test.h"
#include "sym/proctab.h"
#include "sym/symcache.h"
#include "unwind/unwind.h"

#define WALK_PID 4194303u	/* above any pid the kernel gives (pid_max) */
#define BASE 0x7ffc00000000ULL	/* where the copy was taken: regs.sp */
#define MAPPED(off) (0x400000ULL + (off))
#define UNMAPPED(i) (0xdead0000ULL + (i) * 0x1000)

struct walk_fixture {
	struct proctab *pt;
	struct symcache *sc;
	struct unwinder *u;
	uint64_t stk[64];
};

static int fixture_open(struct walk_fixture *f)
{
	/* a file that is not there: mapped, but no table to read */
	static const char maps[] =
		"400000-401000 r-xp 00000000 00:00 0    /nonexistent/stackscope-walk-test\n";
	FILE *m = fmemopen((void *)maps, sizeof(maps) - 1, "r");

	memset(f, 0, sizeof(*f));
	f->pt = proctab_new();
	f->sc = symcache_new();
	if (!m || !f->pt || !f->sc || proctab_load_maps(f->pt, WALK_PID, m)) {
		if (m)
			fclose(m);
		return -1;
	}
	fclose(m);
	f->u = unwinder_new(f->pt, f->sc, UNWIND_AUTO);
	return f->u ? 0 : -1;
}

static void fixture_close(struct walk_fixture *f)
{
	unwinder_free(f->u);
	symcache_free(f->sc);
	proctab_free(f->pt);
}

/* A frame record at word i: saved bp (the record at word next, or 0) and
 * the return address above it. */
static void frame_at(struct walk_fixture *f, int i, int next, uint64_t ra)
{
	f->stk[i] = next ? BASE + next * 8 : 0;
	f->stk[i + 1] = ra;
}

static int walk(struct walk_fixture *f, uint64_t ip, int bp_word, uint64_t *ips, bool *trunc)
{
	struct unwind_regs regs = { .ip = ip, .sp = BASE, .bp = BASE + bp_word * 8 };

	return unwind_stack(f->u, WALK_PID, 0, &regs, f->stk, sizeof(f->stk), ips,
			    UNWIND_MAX_DEPTH, trunc);
}

TEST(unwind_walk_unmapped_return_address_ends_the_chain)
{
	uint64_t ips[UNWIND_MAX_DEPTH];
	struct walk_fixture f;
	bool trunc;
	int n;

	if (fixture_open(&f)) {
		CHECK(!"fixture");
		fixture_close(&f);
		return;
	}
	/* a chain of words that are no return addresses, each frame record
	 * pointing at the next: before, each became an [unknown] frame */
	for (int i = 0; i < 7; i++)
		frame_at(&f, 2 + 4 * i, i < 6 ? 6 + 4 * i : 0, UNMAPPED(i));
	n = walk(&f, MAPPED(0x100), 2, ips, &trunc);
	CHECK_INT(n, 1);
	CHECK_INT(ips[0], MAPPED(0x100));
	CHECK(trunc);

	/* the frame-pointer step from the bad address cannot be taken (its
	 * frame record is outside the copy): dropped too */
	frame_at(&f, 2, 1000, UNMAPPED(0));
	n = walk(&f, MAPPED(0x100), 2, ips, &trunc);
	CHECK_INT(n, 1);
	CHECK(trunc);

	/* ... or it ends the chain (a zero return address): not a frame
	 * a walk can vouch for either */
	frame_at(&f, 2, 6, UNMAPPED(0));
	frame_at(&f, 6, 0, 0);
	n = walk(&f, MAPPED(0x100), 2, ips, &trunc);
	CHECK_INT(n, 1);
	CHECK(trunc);
	fixture_close(&f);
}

TEST(unwind_walk_unmapped_code_called_from_mapped_code)
{
	uint64_t ips[UNWIND_MAX_DEPTH];
	struct walk_fixture f;
	bool trunc;
	int n;

	if (fixture_open(&f)) {
		CHECK(!"fixture");
		fixture_close(&f);
		return;
	}
	/* mapped -> JIT code (no mapping) -> mapped -> mapped, the end:
	 * the JIT frame stays, its caller reached by frame pointer */
	frame_at(&f, 2, 6, UNMAPPED(0));
	frame_at(&f, 6, 10, MAPPED(0x200));
	frame_at(&f, 10, 0, MAPPED(0x300));
	n = walk(&f, MAPPED(0x100), 2, ips, &trunc);
	CHECK_INT(n, 4);
	CHECK_INT(ips[1], UNMAPPED(0));
	CHECK_INT(ips[2], MAPPED(0x200));
	CHECK_INT(ips[3], MAPPED(0x300));
	CHECK(!trunc);

	/* a sample in JIT code: the pc itself is where the thread was, kept
	 * whatever the step from it gives */
	n = walk(&f, UNMAPPED(9), 6, ips, &trunc);
	CHECK_INT(n, 3);
	CHECK_INT(ips[0], UNMAPPED(9));
	CHECK_INT(ips[1], MAPPED(0x200));
	CHECK(!trunc);
	frame_at(&f, 6, 10, UNMAPPED(1));
	frame_at(&f, 10, 14, UNMAPPED(2));
	n = walk(&f, UNMAPPED(9), 6, ips, &trunc);
	CHECK_INT(n, 1);
	CHECK_INT(ips[0], UNMAPPED(9));
	CHECK(trunc);
	fixture_close(&f);
}
