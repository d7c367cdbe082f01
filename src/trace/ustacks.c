#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "sym/proctab.h"
#include "sym/symbolize.h"
#include "sym/symcache.h"
#include "trace/sideband.h"
#include "trace/ustacks.h"

struct ustacks {
	struct sideband *sb;
	struct proctab *pt;
	struct symcache *sc;
	struct unwinder *uw;
	struct symbolizer *sym;
};

void ustacks_free(struct ustacks *us)
{
	if (!us)
		return;
	symbolizer_free(us->sym);
	unwinder_free(us->uw);
	sideband_free(us->sb);
	symcache_free(us->sc);
	proctab_free(us->pt);
	free(us);
}

struct ustacks *ustacks_new(const pid_t *pids, int npids, bool launched)
{
	struct ustacks *us = calloc(1, sizeof(*us));
	int err;

	if (!us)
		return NULL;
	us->pt = proctab_new();
	us->sc = symcache_new();
	if (!us->pt || !us->sc)
		goto fail;
	us->sb = sideband_open();
	if (!us->sb) {
		msg("perf side-band events (mmap/fork/exec records): %s", strerror(errno));
		goto fail;
	}
	us->uw = unwinder_new(us->pt, us->sc, UNWIND_AUTO);
	us->sym = symbolizer_new(us->pt, us->sc, NULL, 0);
	if (!us->uw || !us->sym)
		goto fail;
	/* after the side-band is live, so nothing falls between the two */
	for (int i = 0; i < npids; i++)
		proctab_load_proc(us->pt, pids[i]);
	if (!npids && !launched)
		proctab_load_all(us->pt);
	return us;
fail:
	err = errno ? errno : ENOMEM;
	ustacks_free(us);
	errno = err;
	return NULL;
}

int ustacks_fd(const struct ustacks *us)
{
	return sideband_fd(us->sb);
}

void ustacks_service(struct ustacks *us)
{
	sideband_sync(us->sb, us->pt);
}

int ustacks_unwind(struct ustacks *us, uint32_t pid, uint32_t gen, const struct unwind_regs *regs,
		   const void *stack, size_t size, uint64_t *ips, int max, bool *truncated)
{
	return unwind_stack(us->uw, pid, gen, regs, stack, size, ips, max, truncated);
}

int ustacks_symbolize(struct ustacks *us, uint32_t pid, uint32_t gen, const uint64_t *ips, int n,
		      const char **names)
{
	return symbolize_user(us->sym, pid, gen, ips, n, names);
}
