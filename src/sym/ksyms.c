/* Kernel symbols: the running kernel's, named on demand (ksyms_kernel()),
 * or a whole kallsyms file (ksyms_load()).
 *
 * The real /proc/kallsyms has ~120-200k lines, which the kernel formats
 * one by one for the reader (~50 ms of system time), while a run names a
 * few hundred addresses: ksyms_kernel() asks the kernel about those only,
 * through a small BPF program (bpf/ksym.bpf.c) whose "%pS" is the kernel's
 * own symbol look-up, a batch of addresses per run of the program.
 *
 * A file is loaded without per-line work beyond a scan: the whole file is
 * read into one buffer, each kept line is cut in place (NULs written after
 * the name and the module), and struct ksym points into that buffer. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "common.h"
#include "hashtab.h"
#include "strpool.h"
#include "sym/ksyms.h"
#include "bpf/ksym.h"
#include "ksym.skel.h"

/* syms is sorted by addr with one entry per address; every string points
 * into buf, which holds the whole file. */
struct ksyms {
	struct ksym *syms;
	size_t n;
	char *buf;
	struct knames *live;	/* ksyms_kernel(): syms unused */
};

/* An address asked about and its symbol (sym.name NULL: none). */
struct kname {
	unsigned long ip;
	struct ksym sym;
};

/* The running kernel's names, asked for address by address. */
struct knames {
	struct ksym_bpf *skel;
	struct htab *byip;	/* of struct kname, owned */
	struct strpool *strs;	/* names and modules */
	struct ksyms *all;	/* /proc/kallsyms whole, once the program failed */
	bool all_tried;
	unsigned long asked;	/* program runs */
};

#define READ_CHUNK (1 << 20)

/* Reads all of fd into a NUL-terminated malloc'd buffer.  /proc files
 * report st_size 0, so this grows as it goes. */
static int read_all(int fd, char **bufp, size_t *lenp)
{
	struct stat st;
	size_t cap = 8 << 20, len = 0;
	char *buf, *nbuf;
	ssize_t r;
	int err;

	if (fstat(fd, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	if (st.st_size > 0 && (size_t)st.st_size + READ_CHUNK > cap)
		cap = (size_t)st.st_size + READ_CHUNK;
	buf = malloc(cap);
	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (cap - len < READ_CHUNK / 2) {
			nbuf = realloc(buf, cap * 2);
			if (!nbuf) {
				err = -ENOMEM;
				goto free_buf;
			}
			buf = nbuf;
			cap *= 2;
		}
		r = read(fd, buf + len, cap - len - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			goto free_buf;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	buf[len] = '\0';
	*bufp = buf;
	*lenp = len;
	return 0;

free_buf:
	free(buf);
	return err;
}

static inline int hex_digit(unsigned char c)
{
	if ((unsigned char)(c - '0') < 10)
		return c - '0';
	c |= 0x20;
	if ((unsigned char)(c - 'a') < 6)
		return c - 'a' + 10;
	return -1;
}

static int is_text_type(char t)
{
	return t == 't' || t == 'T' || t == 'w' || t == 'W';
}

/* Rank among aliases at one address: global over weak over local, then
 * fewer leading underscores ("schedule" over "__schedule_alias").  The
 * type letter sits two bytes before the name ("ffff... T name"). */
static int alias_rank(const struct ksym *k)
{
	char t = k->name[-2];
	int r = t == 'T' ? 0 : (t == 'W' || t == 'w') ? 1 : 2;
	int u = 0;

	while (k->name[u] == '_' && u < 8)
		u++;
	return r * 16 + u;
}

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* names point into one buffer: pointer order is file order */
	return x->name < y->name ? -1 : x->name > y->name;
}

/* Cuts the lines of buf in place into ks->syms.  Returns the number of
 * text symbols with a nonzero address in *nonzero. */
static int parse(struct ksyms *ks, char *buf, size_t len, size_t *nonzero)
{
	char *p = buf, *end = buf + len;
	size_t cap = len / 32 + 64;
	struct ksym *syms, *nsyms;

	syms = malloc(cap * sizeof(*syms));
	if (!syms)
		return -ENOMEM;
	*nonzero = 0;
	while (p < end) {
		char *eol = memchr(p, '\n', (size_t)(end - p));
		char *name, *tab, *mod = NULL;
		unsigned long addr = 0;
		int v;

		if (!eol)
			eol = end;
		while ((v = hex_digit((unsigned char)*p)) >= 0) {
			addr = addr << 4 | (unsigned long)v;
			p++;
		}
		/* "ADDR T NAME[\t[MODULE]]" */
		if (eol - p < 4 || p[0] != ' ' || p[2] != ' ' || !is_text_type(p[1]))
			goto next;
		name = p + 3;
		tab = memchr(name, '\t', (size_t)(eol - name));
		if (tab) {
			*tab = '\0';
			if (tab[1] == '[') {
				char *close = memchr(tab + 2, ']', (size_t)(eol - tab - 2));

				if (close) {
					*close = '\0';
					mod = tab + 2;
				}
			}
		} else {
			*eol = '\0';
		}
		if (!*name)
			goto next;
		if (ks->n == cap) {
			cap *= 2;
			nsyms = realloc(syms, cap * sizeof(*syms));
			if (!nsyms) {
				free(syms);
				return -ENOMEM;
			}
			syms = nsyms;
		}
		syms[ks->n++] = (struct ksym){ .addr = addr, .name = name, .module = mod };
		if (addr)
			(*nonzero)++;
next:
		p = eol + 1;
	}
	ks->syms = syms;
	return 0;
}

/* Sorts.  kallsyms lists vmlinux and the modules in address order and
 * appends BPF programs (ours among them, loaded before this runs) at
 * lower addresses than the last modules: sort only what follows the
 * sorted prefix and merge it in, instead of a full qsort (~12 ms). */
static void sort_syms(struct ksyms *ks)
{
	struct ksym *tail;
	size_t p, t, i, j, k;

	for (p = 1; p < ks->n; p++)
		if (ksym_cmp(&ks->syms[p - 1], &ks->syms[p]) > 0)
			break;
	if (p >= ks->n)
		return;
	t = ks->n - p;
	qsort(ks->syms + p, t, sizeof(*ks->syms), ksym_cmp);
	tail = malloc(t * sizeof(*tail));
	if (!tail) {
		qsort(ks->syms, ks->n, sizeof(*ks->syms), ksym_cmp);
		return;
	}
	memcpy(tail, ks->syms + p, t * sizeof(*tail));
	/* merge from the back: prefix syms[0, p) and tail[0, t) */
	i = p;
	j = t;
	k = ks->n;
	while (j > 0) {
		if (i > 0 && ksym_cmp(&ks->syms[i - 1], &tail[j - 1]) > 0)
			ks->syms[--k] = ks->syms[--i];
		else
			ks->syms[--k] = tail[--j];
	}
	free(tail);
}

/* Keeps the best-ranked symbol of each address. */
static void dedup(struct ksyms *ks)
{
	size_t i, out = 0;

	for (i = 0; i < ks->n; i++) {
		if (out && ks->syms[out - 1].addr == ks->syms[i].addr) {
			if (alias_rank(&ks->syms[i]) < alias_rank(&ks->syms[out - 1]))
				ks->syms[out - 1] = ks->syms[i];
			continue;
		}
		ks->syms[out++] = ks->syms[i];
	}
	ks->n = out;
}

struct ksyms *ksyms_load(const char *path)
{
	struct ksyms *ks;
	size_t len = 0, nonzero;
	int fd, err;

	ks = calloc(1, sizeof(*ks));
	if (!ks)
		return NULL;
	fd = open(path ? path : "/proc/kallsyms", O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		err = -errno;
		goto free_ks;
	}
	err = read_all(fd, &ks->buf, &len);
	close(fd);
	if (err)
		goto free_ks;
	err = parse(ks, ks->buf, len, &nonzero);
	if (err)
		goto free_ks;
	if (!ks->n) {
		err = -EINVAL;
		goto free_ks;
	}
	if (!nonzero) {
		/* kptr_restrict hides addresses from this user */
		err = -EPERM;
		goto free_ks;
	}
	sort_syms(ks);
	dedup(ks);
	return ks;

free_ks:
	ksyms_free(ks);
	errno = -err;
	return NULL;
}

/* ---- named on demand ------------------------------------------------- */

static bool kname_eq(const void *entry, const void *key)
{
	return ((const struct kname *)entry)->ip == *(const unsigned long *)key;
}

int ksym_parse_text(const char *text, unsigned long ip, struct ksym *k, char *name, size_t size,
		    char *module, size_t msize)
{
	const char *end = text + strlen(text), *plus, *open;
	unsigned long off;
	char *e;

	k->addr = ip;
	k->name = NULL;
	k->module = NULL;
	/* no symbol: the bare address */
	if (!*text || !strncmp(text, "0x", 2))
		return -ENOENT;
	if (end[-1] == ']' && (open = strstr(text, " [")) && open + 2 < end - 1) {
		snprintf(module, msize, "%.*s", (int)(end - 1 - (open + 2)), open + 2);
		k->module = module;
		end = open;
	}
	plus = memrchr(text, '+', (size_t)(end - text));
	if (plus && plus > text) {
		errno = 0;
		off = strtoul(plus + 1, &e, 16);
		if (!errno && e > plus + 1 && *e == '/' && off <= ip) {
			k->addr = ip - off;
			end = plus;
		}
	}
	/* else cut short: all of it is the name, at the address itself */
	snprintf(name, size, "%.*s", (int)(end - text), text);
	k->name = name;
	return 0;
}

/* Falls back to the whole file, once; false when that fails too. */
static bool read_all_kallsyms(struct knames *kn)
{
	if (!kn->all_tried) {
		kn->all_tried = true;
		kn->all = ksyms_load(NULL);
	}
	return kn->all != NULL;
}

/* Names the batch in one run of the program; false when it cannot run. */
static bool name_batch(struct knames *kn, struct kname **batch, unsigned int n)
{
	LIBBPF_OPTS(bpf_test_run_opts, to);
	char name[KSYM_TEXT], module[64];

	for (unsigned int i = 0; i < n; i++)
		kn->skel->bss->addrs[i] = batch[i]->ip;
	kn->skel->bss->nr = n;
	memset(kn->skel->bss->names, 0, n * KSYM_TEXT);
	if (bpf_prog_test_run_opts(bpf_program__fd(kn->skel->progs.name_addrs), &to)) {
		debug("naming kernel addresses: %s; reading /proc/kallsyms", strerror(errno));
		return false;
	}
	kn->asked++;
	for (unsigned int i = 0; i < n; i++) {
		struct kname *e = batch[i];
		char *text = kn->skel->bss->names[i];

		text[KSYM_TEXT - 1] = '\0';
		if (ksym_parse_text(text, e->ip, &e->sym, name, sizeof(name), module, sizeof(module)))
			continue;
		e->sym.name = strpool_intern(kn->strs, name);
		e->sym.module = e->sym.module ? strpool_intern(kn->strs, module) : NULL;
	}
	return true;
}

/* The cached entry of ip, or a new one added to batch (NULL: no memory). */
static struct kname *kname_get(struct knames *kn, unsigned long ip, struct kname **batch,
			       unsigned int *n)
{
	uint64_t h = mix64(ip);
	struct kname *e = htab_find(kn->byip, h, &ip, kname_eq);

	if (e)
		return e;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->ip = ip;
	if (htab_insert(kn->byip, h, e)) {
		free(e);
		return NULL;
	}
	batch[(*n)++] = e;
	return e;
}

void ksyms_want(const struct ksyms *ks, const uint64_t *ips, size_t n)
{
	struct knames *kn = ks ? ks->live : NULL;
	struct kname *batch[KSYM_BATCH];
	unsigned int nb = 0;

	if (!kn || kn->all)
		return;
	for (size_t i = 0; i < n; i++) {
		kname_get(kn, (unsigned long)ips[i], batch, &nb);
		if (nb == KSYM_BATCH || (nb && i + 1 == n)) {
			if (!name_batch(kn, batch, nb)) {
				read_all_kallsyms(kn);
				return;
			}
			nb = 0;
		}
	}
}

static const struct ksym *live_find(struct knames *kn, unsigned long addr)
{
	struct kname *batch[1], *e;
	unsigned int n = 0;

	if (!kn->all) {
		e = kname_get(kn, addr, batch, &n);
		if (e && (!n || name_batch(kn, batch, n)))
			return e->sym.name ? &e->sym : NULL;
		if (e && !read_all_kallsyms(kn))
			return NULL;
	}
	return kn->all ? ksyms_find(kn->all, addr) : NULL;
}

static void knames_free(struct knames *kn)
{
	if (!kn)
		return;
	htab_free_all(kn->byip);
	strpool_free(kn->strs);
	ksyms_free(kn->all);
	ksym_bpf__destroy(kn->skel);
	free(kn);
}

struct ksyms *ksyms_kernel(void)
{
	struct ksyms *ks = calloc(1, sizeof(*ks));
	struct knames *kn = calloc(1, sizeof(*kn));

	if (!ks || !kn)
		goto whole;
	kn->byip = htab_new(1024);
	kn->strs = strpool_new();
	if (!kn->byip || !kn->strs)
		goto whole;
	kn->skel = ksym_bpf__open_and_load();
	if (!kn->skel) {
		debug("the kernel-naming BPF program: %s; reading /proc/kallsyms", strerror(errno));
		goto whole;
	}
	ks->live = kn;
	return ks;

whole:
	knames_free(kn);
	free(ks);
	return ksyms_load(NULL);
}

unsigned long ksyms_asked(const struct ksyms *ks)
{
	return ks && ks->live ? ks->live->asked : 0;
}

/* ---- one file ---------------------------------------------------------- */

const struct ksym *ksyms_find(const struct ksyms *ks, unsigned long addr)
{
	size_t lo = 0, hi;

	if (!ks)
		return NULL;
	if (ks->live)
		return live_find(ks->live, addr);
	/* first index whose addr > addr */
	hi = ks->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &ks->syms[lo - 1] : NULL;
}

unsigned long ksyms_count(const struct ksyms *ks)
{
	if (ks && ks->live)
		return ks->live->all ? ksyms_count(ks->live->all) : htab_count(ks->live->byip);
	return ks ? ks->n : 0;
}

void ksyms_free(struct ksyms *ks)
{
	if (!ks)
		return;
	knames_free(ks->live);
	free(ks->syms);
	free(ks->buf);
	free(ks);
}

/* The listed names also match with a compiler clone suffix
 * (perf_event_overflow.isra.0). */
static const char *const tracer_prefixes[] = {
	"bpf_trace_run", "__traceiter_", "__bpf_trace_",
	"perf_trace_", "perf_swevent_", "__perf_swevent_", "perf_callchain",
	"bpf_get_stack", "__bpf_get_stack",
};
static const char *const tracer_names[] = {
	"bpf_overflow_handler", "__perf_event_overflow", "perf_event_overflow",
	"perf_prepare_sample", "get_perf_callchain", "___bpf_prog_run",
};

int ksym_is_tracer(const char *name)
{
	size_t i, n;

	if (!name)
		return 0;
	/* A JIT-ed program: "bpf_prog_" + 16 hex digits of its tag + "_" +
	 * name (plain "bpf_prog_load" and friends are kernel functions). */
	if (!strncmp(name, "bpf_prog_", 9)) {
		for (i = 9; i < 25; i++)
			if (!isxdigit((unsigned char)name[i]))
				break;
		if (i == 25 && (name[25] == '_' || name[25] == '\0'))
			return 1;
	}
	for (i = 0; i < sizeof(tracer_prefixes) / sizeof(tracer_prefixes[0]); i++)
		if (!strncmp(name, tracer_prefixes[i], strlen(tracer_prefixes[i])))
			return 1;
	for (i = 0; i < sizeof(tracer_names) / sizeof(tracer_names[0]); i++) {
		n = strlen(tracer_names[i]);
		if (!strncmp(name, tracer_names[i], n) && (name[n] == '\0' || name[n] == '.'))
			return 1;
	}
	return 0;
}
