#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/sysmacros.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "common.h"
#include "trace/sideband.h"

#define SIDEBAND_PAGES 64	/* per CPU: 256 KiB */


/* A record as the kernel wrote it, copied, with its timestamp (the last
 * 8 bytes: sample_id_all with PERF_SAMPLE_TID | PERF_SAMPLE_TIME). */
struct record {
	uint64_t time;
	uint64_t seq;		/* arrival order, to keep the sort stable */
	struct perf_event_header *hdr;
};

struct sideband {
	int map_fd;
	struct perf_buffer *pb;
	struct record *recs;
	size_t n, cap;
	uint64_t lost;
	int err;		/* first allocation failure while reading */
};

struct mmap2_body {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	uint32_t maj, min;	/* never a build id: attr.build_id is not set */
	uint64_t ino, ino_generation;
	uint32_t prot, flags;
	char filename[];
};

struct task_body {
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

static enum bpf_perf_event_ret on_record(void *ctx, int cpu, struct perf_event_header *hdr)
{
	struct sideband *sb = ctx;
	struct perf_event_header *copy;

	switch (hdr->type) {
	case PERF_RECORD_LOST:
		/* u64 id, u64 lost */
		if (hdr->size >= sizeof(*hdr) + 16)
			sb->lost += ((uint64_t *)(hdr + 1))[1];
		return LIBBPF_PERF_EVENT_CONT;
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_COMM:
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		break;
	default:
		return LIBBPF_PERF_EVENT_CONT;
	}
	if (hdr->size < sizeof(*hdr) + 16)
		return LIBBPF_PERF_EVENT_CONT;
	if (sb->n == sb->cap) {
		size_t cap = sb->cap ? sb->cap * 2 : 1024;
		struct record *r = realloc(sb->recs, cap * sizeof(*r));

		if (!r) {
			sb->lost++;
			sb->err = -ENOMEM;
			return LIBBPF_PERF_EVENT_CONT;
		}
		sb->recs = r;
		sb->cap = cap;
	}
	copy = malloc(hdr->size);
	if (!copy) {
		sb->lost++;
		sb->err = -ENOMEM;
		return LIBBPF_PERF_EVENT_CONT;
	}
	memcpy(copy, hdr, hdr->size);
	memcpy(&sb->recs[sb->n].time, (char *)hdr + hdr->size - 8, 8);
	sb->recs[sb->n].seq = sb->n;
	sb->recs[sb->n].hdr = copy;
	sb->n++;
	return LIBBPF_PERF_EVENT_CONT;
}

static struct perf_buffer *open_buffers(struct sideband *sb)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
		.sample_id_all = 1,
		/* the clock of bpf_ktime_get_ns(): record times and the BPF
		 * side's gens name the same address spaces (bpf/procs.h) */
		.use_clockid = 1,
		.clockid = CLOCK_MONOTONIC,
		.mmap = 1,	/* the kernel emits mmap records only when this is set */
		.mmap2 = 1,	/* ... and then in the MMAP2 layout */
		.comm = 1,
		.comm_exec = 1,
		.task = 1,
		.watermark = 1,
		.wakeup_watermark = SIDEBAND_PAGES * 4096 / 4,
	};

	return perf_buffer__new_raw(sb->map_fd, SIDEBAND_PAGES, &attr, on_record, sb, NULL);
}

struct sideband *sideband_open(void)
{
	struct sideband *sb = calloc(1, sizeof(*sb));
	int ncpus = libbpf_num_possible_cpus(), err;

	if (!sb)
		return NULL;
	if (ncpus < 0) {
		err = ncpus;
		goto fail;
	}
	sb->map_fd = bpf_map_create(BPF_MAP_TYPE_PERF_EVENT_ARRAY, "sideband",
				    sizeof(int), sizeof(int), ncpus, NULL);
	if (sb->map_fd < 0) {
		err = -errno;
		goto fail;
	}
	/* The mmap records give the device and inode the kernel mapped, what
	 * the symbol and unwind caches know a file by (sym/symcache.h); not
	 * the build id (attr.build_id), which is what the file says. */
	sb->pb = open_buffers(sb);
	if (!sb->pb) {
		err = -errno;
		goto close_map;
	}
	return sb;

close_map:
	close(sb->map_fd);
fail:
	free(sb);
	errno = -err;
	return NULL;
}

int sideband_fd(const struct sideband *sb)
{
	return perf_buffer__epoll_fd(sb->pb);
}

static int sideband_read(struct sideband *sb)
{
	int err = perf_buffer__consume(sb->pb);

	return err < 0 ? err : sb->err;
}

uint64_t sideband_lost(const struct sideband *sb)
{
	return sb->lost;
}

static int cmp_record(const void *a, const void *b)
{
	const struct record *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int apply_mmap2(struct proctab *pt, const struct perf_event_header *hdr, uint64_t time)
{
	const struct mmap2_body *b = (const void *)(hdr + 1);
	size_t max = hdr->size - sizeof(*hdr) - sizeof(*b);
	struct mapping m = {
		.start = b->addr,
		.end = b->addr + b->len,
		.pgoff = b->pgoff,
		.path = b->filename,
	};

	if (hdr->size < sizeof(*hdr) + sizeof(*b) || !memchr(b->filename, 0, max))
		return 0;
	/* anonymous ("//anon": JIT code, named by perf maps), heap, stack */
	if ((b->filename[0] != '/' || b->filename[1] == '/') && strcmp(b->filename, "[vdso]"))
		return 0;
	/* Device and inode, always: no build id was asked for.  The misc
	 * bit that would say otherwise is not ours to trust: the kernel
	 * sets it on the record it shares among the events it writes an
	 * mmap to, for one that asked (another tool's), and leaves it set
	 * for the next (seen on 6.18). */
	m.id.dev = makedev(b->maj, b->min);	/* as st_dev has it */
	m.id.ino = b->ino;
	return proctab_mmap(pt, b->pid, &m, time);
}

static int sideband_apply(struct sideband *sb, struct proctab *pt)
{
	int err = 0;

	qsort(sb->recs, sb->n, sizeof(*sb->recs), cmp_record);
	for (size_t i = 0; i < sb->n && !err; i++) {
		const struct perf_event_header *hdr = sb->recs[i].hdr;
		const struct task_body *t = (const void *)(hdr + 1);
		uint64_t time = sb->recs[i].time;

		switch (hdr->type) {
		case PERF_RECORD_MMAP2:
			err = apply_mmap2(pt, hdr, time);
			break;
		case PERF_RECORD_COMM:
			if (hdr->misc & PERF_RECORD_MISC_COMM_EXEC)
				err = proctab_exec(pt, t->pid, time);
			break;
		case PERF_RECORD_FORK:
			if (t->pid != t->ppid)	/* a process, not a thread */
				err = proctab_fork(pt, t->ppid, t->pid, time);
			break;
		case PERF_RECORD_EXIT:
			if (t->pid == t->tid)	/* the process, not a thread */
				err = proctab_exit(pt, t->pid, time);
			break;
		}
	}
	for (size_t i = 0; i < sb->n; i++)
		free(sb->recs[i].hdr);
	sb->n = 0;
	return err;
}

void sideband_free(struct sideband *sb)
{
	if (!sb)
		return;
	for (size_t i = 0; i < sb->n; i++)
		free(sb->recs[i].hdr);
	free(sb->recs);
	perf_buffer__free(sb->pb);
	close(sb->map_fd);
	free(sb);
}

int sideband_sync(struct sideband *sb, struct proctab *pt)
{
	int err = sideband_read(sb);

	if (!err)
		err = sideband_apply(sb, pt);
	if (err)
		msg("side-band records: %s", strerror(-err));
	return err;
}
