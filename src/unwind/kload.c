#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include "common.h"
#include "hashtab.h"
#include "bpf/kunwind.h"
#include "sym/symcache.h"
#include "unwind/kload.h"
#include "unwind/table.h"
#include "unwind/unwind.h"

/* the BPF side reads unwind_row as its own struct kunwind_row */
_Static_assert(sizeof(struct unwind_row) == 16, "unwind_row is 16 bytes");
_Static_assert(UNWIND_CFA_SP == 0 && UNWIND_CFA_BP == 1 && UNWIND_CFA_PLT == 2 &&
		       UNWIND_CFA_SIGNAL == 3 && UNWIND_CFA_UNDEF == 4 && UNWIND_CFA_NONE == 6,
	       "kunwind.bpf.h's KU_CFA_* agree");
_Static_assert(UNWIND_REG_AT_CFA == 1 && UNWIND_REG_UNDEF == 2, "kunwind.bpf.h's KU_REG_*");

#define MAX_SEGS 16
#define MAX_PIDS 65536		/* pids remembered; all forgotten past it */
#define VDSO_DEV UINT64_MAX	/* the binary key of the vDSO */

/* One binary: where its rows are, and its PT_LOAD segments. */
struct binary {
	uint64_t dev, ino;
	uint32_t first, nrows;
	uint32_t kind;		/* enum kunwind_kind */
	int nsegs;
	struct kload_seg segs[MAX_SEGS];
};

/* One process as last loaded: a miss at a pc outside its mappings loads
 * it again; when that finds the same mappings, no file holds the pc. */
struct proc {
	uint32_t pid;
	uint64_t gen;
	uint64_t maps_hash;
	uint64_t seq;		/* when loaded (stats.loads then) */
	bool in_map;		/* its entry is in unwind_procs */
};

struct kload {
	struct kload_opts o;
	struct htab *binaries;	/* struct binary, by (dev, ino) */
	struct htab *procs;	/* struct proc, by pid */
	uint32_t next_row;
	struct kload_vma vmas[KUNWIND_MAX_MAPS + 1];
	struct kunwind_proc entry;
	struct kload_stats stats;
};

struct kload *kload_new(const struct kload_opts *o)
{
	struct kload *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	k->o = *o;
	k->binaries = htab_new(64);
	k->procs = htab_new(64);
	if (!k->binaries || !k->procs) {
		kload_free(k);
		errno = ENOMEM;
		return NULL;
	}
	return k;
}

void kload_free(struct kload *k)
{
	if (!k)
		return;
	htab_free_all(k->binaries);
	htab_free_all(k->procs);
	free(k);
}

const struct kload_stats *kload_stats(const struct kload *k)
{
	return &k->stats;
}

uint32_t kload_rows(const struct kload *k)
{
	return k->o.rows;
}

int kload_parse_maps(FILE *f, struct kload_vma *out, int max)
{
	char line[4096 + 512];
	int n = 0;

	while (n < max && fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off, ino;
		unsigned int major, minor;
		char perms[8];
		int pos = 0;
		char *path;
		size_t len;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end, perms, &off,
			   &major, &minor, &ino, &pos) != 7 || !pos)
			continue;
		if (strlen(perms) < 3 || perms[2] != 'x' || end <= start)
			continue;
		path = line + pos;
		len = strcspn(path, "\n");
		path[len] = 0;
		out[n] = (struct kload_vma){ .start = start, .end = end, .pgoff = off,
					     .dev = makedev(major, minor), .ino = ino };
		if (len >= sizeof(out[n].path))
			continue;	/* a name this long is not a file opened by it */
		memcpy(out[n].path, path, len + 1);
		n++;
	}
	return n;
}

int kload_bias(const struct kload_seg *segs, int nsegs, uint64_t start, uint64_t pgoff,
	       uint64_t *bias)
{
	/* a segment's mapping begins at its page (segments may share a
	 * page: the one that begins there), else one part of it */
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < nsegs; i++) {
			const struct kload_seg *s = &segs[i];
			uint64_t page = s->offset & ~4095ULL;

			if (pass == 0 ? page == pgoff
				      : page <= pgoff && pgoff < s->offset + s->filesz) {
				*bias = start - (pgoff - s->offset + s->vaddr);
				return 0;
			}
		}
	}
	return -ERANGE;
}

static bool binary_eq(const void *e, const void *key)
{
	const struct binary *b = e;
	const uint64_t *k = key;

	return b->dev == k[0] && b->ino == k[1];
}

static bool proc_eq(const void *e, const void *key)
{
	return ((const struct proc *)e)->pid == *(const uint32_t *)key;
}

static int read_segs(int fd, struct binary *b)
{
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	size_t n = 0;

	if (!e)
		return -EINVAL;
	if (elf_getphdrnum(e, &n))
		n = 0;
	for (size_t i = 0; i < n && b->nsegs < MAX_SEGS; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD)
			b->segs[b->nsegs++] = (struct kload_seg){ ph.p_offset, ph.p_vaddr, ph.p_filesz };
	}
	elf_end(e);
	return b->nsegs ? 0 : -EINVAL;
}

/* Rows into unwind_rows at k->next_row, in batches. */
static int place_rows(struct kload *k, const struct unwind_row *rows, size_t n)
{
	enum { BATCH = 4096 };
	__u32 keys[BATCH];

	for (size_t done = 0; done < n;) {
		__u32 count = n - done > BATCH ? BATCH : (__u32)(n - done);

		for (__u32 i = 0; i < count; i++)
			keys[i] = k->next_row + done + i;
		if (bpf_map_update_batch(k->o.rows_fd, keys, rows + done, &count, NULL)) {
			/* one by one where batches are not supported */
			for (__u32 i = 0; i < count; i++)
				if (bpf_map_update_elem(k->o.rows_fd, &keys[i], &rows[done + i], BPF_ANY))
					return -errno;
		}
		done += count;
	}
	return 0;
}

/* The binary of a mapping, its rows placed on first sight.  Its table is
 * the unwinder's (unwinder_table(): one per binary, cached with its
 * symbols), so the snapshots unwound in user space while a process is
 * not loaded yet do not build it a second time. */
static struct binary *binary_of(struct kload *k, uint32_t pid, const struct kload_vma *v)
{
	bool vdso = !strcmp(v->path, "[vdso]");
	uint64_t key[2] = { vdso ? VDSO_DEV : v->dev, vdso ? 0 : v->ino };
	uint64_t h = hash_bytes(key, sizeof(key), 0);
	struct binary *b = htab_find(k->binaries, h, key, binary_eq);
	const struct unwind_table *t = NULL;
	const struct unwind_row *rows;
	const char *why = "no call-frame table in it";
	char path[96];
	size_t n;
	int fd;

	if (b)
		return b;
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->dev = key[0];
	b->ino = key[1];
	b->kind = KUNWIND_FP;
	if (vdso) {
		/* the image starts at its mapping, at virtual address 0 */
		b->segs[0] = (struct kload_seg){ 0, 0, UINT64_MAX / 2 };
		b->nsegs = 1;
		t = unwinder_vdso_table(k->o.uw);
	} else {
		struct binary_id id = { .dev = v->dev, .ino = v->ino };
		struct stat st;

		/* the very file mapped, whatever its name leads to now */
		snprintf(path, sizeof(path), "/proc/%u/map_files/%" PRIx64 "-%" PRIx64, pid,
			 v->start, v->end);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			why = strerror(errno);
		else if (fstat(fd, &st) || !S_ISREG(st.st_mode) || read_segs(fd, b))
			why = "not a readable ELF file";
		else
			t = unwinder_table(k->o.uw, pid, v->path, v->start, v->end, &id, NULL);
		if (fd >= 0)
			close(fd);
	}
	n = t ? unwind_table_rows(t, &rows) : 0;
	if (!n) {
		/* not kept: a failure may pass (the mapping gone while the
		 * process exec'd, the file not readable yet), and one kept
		 * would leave every later process's stacks through the
		 * binary truncated for the rest of the run; the next load
		 * looks again */
		k->stats.no_table++;
		debug("in-kernel unwinding: no table for %s in pid %u (%s): by frame pointer", v->path,
		      pid, why);
		free(b);
		return NULL;
	} else if (n > k->o.rows - k->next_row) {
		b->kind = KUNWIND_SNAPSHOT;
		k->stats.over_capacity++;
	} else if (!place_rows(k, rows, n)) {
		b->kind = KUNWIND_TABLE;
		b->first = k->next_row;
		b->nrows = n;
		k->next_row += n;
		k->stats.binaries++;
		k->stats.rows += n;
	}
	if (htab_insert(k->binaries, h, b)) {
		free(b);
		return NULL;
	}
	return b;
}

static uint64_t gen_now(struct kload *k, uint32_t pid)
{
	__u64 gen = 0;

	if (bpf_map_lookup_elem(k->o.gens_fd, &pid, &gen))
		return 0;
	return gen;
}

/* unwind_procs is full: the entries of the processes gone (exited, or
 * in another address space since) are deleted, else the one loaded
 * longest ago (it is loaded again at its next sample).  keep is the pid
 * being loaded.  Returns how many were deleted. */
static size_t evict(struct kload *k, uint32_t keep)
{
	struct proc *p, *oldest = NULL;
	size_t pos = 0, n = 0;

	while ((p = htab_next(k->procs, &pos))) {
		if (!p->in_map || p->pid == keep)
			continue;
		if ((kill((pid_t)p->pid, 0) && errno == ESRCH) || gen_now(k, p->pid) != p->gen) {
			if (!bpf_map_delete_elem(k->o.procs_fd, &p->pid))
				n++;
			p->in_map = false;
		} else if (!oldest || p->seq < oldest->seq) {
			oldest = p;
		}
	}
	if (!n && oldest) {
		if (!bpf_map_delete_elem(k->o.procs_fd, &oldest->pid))
			n++;
		oldest->in_map = false;
	}
	if (!n) {
		/* entries of pids forgotten (past MAX_PIDS): any one */
		__u32 key;

		if (!bpf_map_get_next_key(k->o.procs_fd, NULL, &key) && key != keep &&
		    !bpf_map_delete_elem(k->o.procs_fd, &key))
			n++;
	}
	k->stats.evicted += n;
	if (!n)
		errno = E2BIG;
	return n;
}

int kload_process(struct kload *k, uint32_t pid, uint64_t gen, bool unmapped)
{
	struct kunwind_proc *e = &k->entry;
	struct proc *p;
	char path[64];
	uint64_t mh;
	FILE *f;
	int n;

	if (gen_now(k, pid) != gen) {
		k->stats.stale++;
		return -ESTALE;
	}
	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	f = fopen(path, "re");
	if (!f) {
		k->stats.failed++;
		return -errno;
	}
	n = kload_parse_maps(f, k->vmas, KUNWIND_MAX_MAPS + 1);
	fclose(f);
	/* an exec while reading: those were another address space's */
	if (gen_now(k, pid) != gen) {
		k->stats.stale++;
		return -ESTALE;
	}
	memset(e, 0, sizeof(*e));
	e->gen = gen;
	if (n > KUNWIND_MAX_MAPS) {
		n = KUNWIND_MAX_MAPS;
		e->flags |= KUNWIND_UNMAPPED_FP;
		k->stats.over_maps++;
	}
	mh = hash_bytes(k->vmas, n * sizeof(*k->vmas), gen);
	p = htab_find(k->procs, mix64(pid), &pid, proc_eq);
	/* loaded again at a pc outside the mappings, and they are the same:
	 * no file holds it (JIT code, or a bad frame): frame pointers */
	if (unmapped && p && p->gen == gen && p->maps_hash == mh)
		e->flags |= KUNWIND_UNMAPPED_FP;
	for (int i = 0; i < n; i++) {
		const struct kload_vma *v = &k->vmas[i];
		struct kunwind_map *m = &e->maps[e->n];
		struct binary *b = NULL;
		uint64_t bias;

		*m = (struct kunwind_map){ .start = v->start, .end = v->end, .kind = KUNWIND_FP };
		if (v->path[0] == '/' || !strcmp(v->path, "[vdso]"))
			b = binary_of(k, pid, v);
		if (b && b->kind != KUNWIND_FP &&
		    !kload_bias(b->segs, b->nsegs, v->start, v->pgoff, &bias)) {
			m->bias = bias;
			m->kind = b->kind;
			m->first = b->first;
			m->nrows = b->nrows;
		}
		e->n++;
	}
	if (bpf_map_update_elem(k->o.procs_fd, &pid, e, BPF_ANY) &&
	    (errno != E2BIG || !evict(k, pid) || bpf_map_update_elem(k->o.procs_fd, &pid, e, BPF_ANY)))
		return -errno;
	k->stats.loads++;
	debug("in-kernel unwinding: loaded pid %u (%d executable mappings%s)", pid, n,
	      e->flags & KUNWIND_UNMAPPED_FP ? ", other pcs by frame pointer" : "");
	if (!p) {
		if (htab_count(k->procs) >= MAX_PIDS) {
			htab_free_all(k->procs);
			k->procs = htab_new(64);
			if (!k->procs)
				return -ENOMEM;
		}
		p = calloc(1, sizeof(*p));
		if (!p || htab_insert(k->procs, mix64(pid), p)) {
			free(p);
			return -ENOMEM;
		}
	}
	*p = (struct proc){ .pid = pid, .gen = gen, .maps_hash = mh, .seq = k->stats.loads,
			    .in_map = true };
	return 0;
}

int kload_on_miss(void *ctx, void *data, size_t size)
{
	struct kload *k = ctx;
	struct kunwind_miss m;
	struct kunwind_proc *cur = &k->entry;

	k->stats.requests++;
	k->stats.request_bytes += 8 + ((size + 7) & ~(size_t)7);	/* with its header */
	if (size < sizeof(m))
		return 0;
	memcpy(&m, data, sizeof(m));
	/* a burst of misses before the load that answered them: load once */
	if (!bpf_map_lookup_elem(k->o.procs_fd, &m.pid, cur) && cur->gen == m.gen) {
		if (m.reason == KSTAT_NO_PROC || (cur->flags & KUNWIND_UNMAPPED_FP))
			return 0;
		for (__u32 i = 0; i < cur->n && i < KUNWIND_MAX_MAPS; i++)
			if (cur->maps[i].start <= m.pc && m.pc < cur->maps[i].end)
				return 0;
	}
	kload_process(k, m.pid, m.gen, m.reason == KSTAT_UNMAPPED);
	return 0;
}
