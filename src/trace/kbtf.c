#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <linux/btf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "common.h"
#include "hashtab.h"
#include "trace/kbtf.h"
#include "trace/kbtfcache.h"

#define MEMFD_NAME "stackscope-core-btf"
#define MARK_EVERY 64		/* every 64th type's offset is kept */
#define MAX_DEPTH 64		/* embedded types nest no deeper */
#define MAX_BTF_SIZE (512UL << 20)

/* The kernel's BTF, mapped, with the offset of every 64th type: a type
 * is found from the mark before it, at most 63 types on. */
struct kview {
	const uint8_t *map;
	size_t size;
	const uint8_t *types;
	uint32_t types_len;
	const char *strs;
	uint32_t strs_len;
	uint32_t nr;		/* type ids 1..nr */
	uint32_t *marks;	/* marks[i]: offset of type i * 64 + 1 */
};

/* A kernel type copied: its id in the small BTF. */
struct copied {
	uint32_t kid, id;
};

struct kcopy {
	struct kview *kv;
	struct btf *out;
	struct htab *ids;	/* of struct copied, owned, by mix64(kid) */
	int void_ptr;		/* the one pointer type, once added */
};

static const char *kname(const struct kview *kv, uint32_t off)
{
	return off < kv->strs_len ? kv->strs + off : "";
}

/* Bytes type t takes in the type section, or -1 (unknown kind, or past
 * room). */
static long type_bytes(const struct btf_type *t, size_t room)
{
	size_t vlen = BTF_INFO_VLEN(t->info), n = sizeof(*t);

	if (room < sizeof(*t))
		return -1;
	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
		n += sizeof(uint32_t);
		break;
	case BTF_KIND_ARRAY:
		n += sizeof(struct btf_array);
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		n += vlen * sizeof(struct btf_member);
		break;
	case BTF_KIND_ENUM:
		n += vlen * sizeof(struct btf_enum);
		break;
	case BTF_KIND_ENUM64:
		n += vlen * sizeof(struct btf_enum64);
		break;
	case BTF_KIND_FUNC_PROTO:
		n += vlen * sizeof(struct btf_param);
		break;
	case BTF_KIND_DATASEC:
		n += vlen * sizeof(struct btf_var_secinfo);
		break;
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG:
		break;
	default:
		return -1;
	}
	return n <= room ? (long)n : -1;
}

static void kview_close(struct kview *kv)
{
	if (kv->map && kv->map != MAP_FAILED)
		munmap((void *)kv->map, kv->size);
	free(kv->marks);
	memset(kv, 0, sizeof(*kv));
}

/* Maps the kernel's BTF and checks its header. */
static int kview_open(struct kview *kv, const char *path)
{
	const struct btf_header *h;
	struct stat st;
	int fd, err = -EINVAL;

	memset(kv, 0, sizeof(*kv));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || st.st_size < (off_t)sizeof(*h) || (size_t)st.st_size > MAX_BTF_SIZE) {
		close(fd);
		return -EINVAL;
	}
	kv->size = st.st_size;
	kv->map = mmap(NULL, kv->size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (kv->map == MAP_FAILED) {
		err = -errno;
		kv->map = NULL;
		return err;
	}
	h = (const struct btf_header *)kv->map;
	if (h->magic != BTF_MAGIC || h->version != BTF_VERSION || h->hdr_len < sizeof(*h) ||
	    h->hdr_len > kv->size || h->type_off % 4 ||
	    (uint64_t)h->hdr_len + h->type_off + h->type_len > kv->size ||
	    (uint64_t)h->hdr_len + h->str_off + h->str_len > kv->size || !h->str_len)
		goto fail;
	kv->types = kv->map + h->hdr_len + h->type_off;
	kv->types_len = h->type_len;
	kv->strs = (const char *)kv->map + h->hdr_len + h->str_off;
	kv->strs_len = h->str_len;
	if (kv->strs[kv->strs_len - 1])
		goto fail;
	return 0;
fail:
	kview_close(kv);
	return err;
}

static const struct btf_type *ktype(const struct kview *kv, uint32_t id)
{
	uint32_t off;

	if (id == 0 || id > kv->nr)
		return NULL;
	off = kv->marks[(id - 1) / MARK_EVERY];
	for (uint32_t i = (id - 1) % MARK_EVERY; i > 0; i--)
		off += type_bytes((const struct btf_type *)(kv->types + off), kv->types_len - off);
	return (const struct btf_type *)(kv->types + off);
}

static bool copied_eq(const void *entry, const void *key)
{
	return ((const struct copied *)entry)->kid == *(const uint32_t *)key;
}

static int copied_get(const struct kcopy *k, uint32_t kid)
{
	const struct copied *c = htab_find(k->ids, mix64(kid), &kid, copied_eq);

	return c ? (int)c->id : -1;
}

static int copied_put(struct kcopy *k, uint32_t kid, int id)
{
	struct copied *c = malloc(sizeof(*c));

	if (!c)
		return -ENOMEM;
	*c = (struct copied){ kid, id };
	if (htab_insert(k->ids, mix64(kid), c)) {
		free(c);
		return -ENOMEM;
	}
	return 0;
}

/* A name for libbpf's writers: NULL for an anonymous type or member. */
static const char *opt_name(const char *s)
{
	return *s ? s : NULL;
}

static int copy_type(struct kcopy *k, uint32_t kid, int depth);

static int copy_members(struct kcopy *k, const struct btf_type *t, int depth)
{
	const struct btf_member *m = (const struct btf_member *)(t + 1);
	int vlen = BTF_INFO_VLEN(t->info), id, err = 0;
	bool kflag = BTF_INFO_KFLAG(t->info);
	int *types = calloc(vlen ? vlen : 1, sizeof(*types));

	if (!types)
		return -ENOMEM;
	/* every member's type first: libbpf adds fields to the last type */
	for (int i = 0; i < vlen && !err; i++) {
		types[i] = copy_type(k, m[i].type, depth + 1);
		if (types[i] < 0)
			err = types[i];
	}
	if (err) {
		free(types);
		return err;
	}
	id = BTF_INFO_KIND(t->info) == BTF_KIND_STRUCT
		     ? btf__add_struct(k->out, opt_name(kname(k->kv, t->name_off)), t->size)
		     : btf__add_union(k->out, opt_name(kname(k->kv, t->name_off)), t->size);
	for (int i = 0; i < vlen && id > 0 && !err; i++) {
		uint32_t off = kflag ? BTF_MEMBER_BIT_OFFSET(m[i].offset) : m[i].offset;
		uint32_t bits = kflag ? BTF_MEMBER_BITFIELD_SIZE(m[i].offset) : 0;

		err = btf__add_field(k->out, opt_name(kname(k->kv, m[i].name_off)), types[i], off,
				     bits);
	}
	free(types);
	return err ? err : id;
}

static int copy_enum(struct kcopy *k, const struct btf_type *t)
{
	const char *name = opt_name(kname(k->kv, t->name_off));
	int vlen = BTF_INFO_VLEN(t->info), id, err = 0;

	if (BTF_INFO_KIND(t->info) == BTF_KIND_ENUM) {
		const struct btf_enum *e = (const struct btf_enum *)(t + 1);

		id = btf__add_enum(k->out, name, t->size);
		for (int i = 0; i < vlen && id > 0 && !err; i++)
			err = btf__add_enum_value(k->out, kname(k->kv, e[i].name_off), e[i].val);
	} else {
		const struct btf_enum64 *e = (const struct btf_enum64 *)(t + 1);

		id = btf__add_enum64(k->out, name, t->size, BTF_INFO_KFLAG(t->info));
		for (int i = 0; i < vlen && id > 0 && !err; i++)
			err = btf__add_enum64_value(k->out, kname(k->kv, e[i].name_off),
						    (uint64_t)e[i].val_hi32 << 32 | e[i].val_lo32);
	}
	return err ? err : id;
}

/* The small BTF's id for kernel type kid, copied with what it embeds. */
static int copy_type(struct kcopy *k, uint32_t kid, int depth)
{
	const struct btf_type *t;
	const char *name;
	int id, inner;

	if (kid == 0)
		return 0;
	id = copied_get(k, kid);
	if (id >= 0)
		return id;
	if (depth > MAX_DEPTH)
		return -ELOOP;
	t = ktype(k->kv, kid);
	if (!t)
		return -EINVAL;
	name = kname(k->kv, t->name_off);
	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT:
		id = btf__add_int(k->out, name, t->size, BTF_INT_ENCODING(*(const uint32_t *)(t + 1)));
		break;
	case BTF_KIND_FLOAT:
		id = btf__add_float(k->out, name, t->size);
		break;
	case BTF_KIND_PTR:
		/* relocations never walk through a pointer */
		if (!k->void_ptr)
			k->void_ptr = btf__add_ptr(k->out, 0);
		return k->void_ptr;
	case BTF_KIND_FUNC_PROTO:
		/* only behind a pointer or a typedef of one */
		return 0;
	case BTF_KIND_ARRAY: {
		const struct btf_array *a = (const struct btf_array *)(t + 1);
		int elem = copy_type(k, a->type, depth + 1);
		int index = elem < 0 ? elem : copy_type(k, a->index_type, depth + 1);

		id = index < 0 ? index : btf__add_array(k->out, index, elem, a->nelems);
		break;
	}
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		id = copy_members(k, t, depth);
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		id = copy_enum(k, t);
		break;
	case BTF_KIND_FWD:
		id = btf__add_fwd(k->out, name, BTF_INFO_KFLAG(t->info) ? BTF_FWD_UNION
									 : BTF_FWD_STRUCT);
		break;
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		inner = copy_type(k, t->type, depth + 1);
		if (inner < 0)
			return inner;
		switch (BTF_INFO_KIND(t->info)) {
		case BTF_KIND_TYPEDEF:
			id = btf__add_typedef(k->out, name, inner);
			break;
		case BTF_KIND_VOLATILE:
			id = btf__add_volatile(k->out, inner);
			break;
		case BTF_KIND_CONST:
			id = btf__add_const(k->out, inner);
			break;
		case BTF_KIND_RESTRICT:
			id = btf__add_restrict(k->out, inner);
			break;
		default:
			id = btf__add_type_tag(k->out, name, inner);
		}
		break;
	default:
		return -EINVAL;
	}
	if (id < 0)
		return id;
	return copied_put(k, kid, id) ?: id;
}

/* The kinds a relocation's root can have, as one class each. */
static int root_class(int kind)
{
	switch (kind) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return 1;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		return 2;
	case BTF_KIND_TYPEDEF:
		return 3;
	}
	return 0;
}

struct root {
	int class;
	char name[];
};

struct root_key {
	int class;
	const char *name;
	size_t len;
};

static bool root_eq(const void *entry, const void *key)
{
	const struct root *r = entry;
	const struct root_key *k = key;

	return r->class == k->class && !strncmp(r->name, k->name, k->len) && !r->name[k->len];
}

static uint64_t root_hash(int class, const char *name, size_t len)
{
	return hash_bytes(name, len, class);
}

/* A bit per first two bytes of a name: most kernel names are passed over
 * without hashing them. */
#define FIRST2_WORDS ((1 << 16) / 64)

static unsigned int first2_bit(const char *name)
{
	return (uint8_t)name[0] << 8 | (uint8_t)name[1];
}

static void set_first2(uint64_t *bits, const char *name)
{
	bits[first2_bit(name) / 64] |= 1ULL << (first2_bit(name) % 64);
}

static bool has_first2(const uint64_t *bits, const char *name)
{
	return bits[first2_bit(name) / 64] >> (first2_bit(name) % 64) & 1;
}

/* The BTF section of an ELF object in memory, parsed; NULL if none. */
static struct btf *object_btf(const void *image, size_t size)
{
	struct btf *btf = NULL;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	Elf *e;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	e = elf_memory((char *)image, size);
	if (!e)
		return NULL;
	if (elf_getshdrstrndx(e, &shstrndx) == 0) {
		while ((scn = elf_nextscn(e, scn))) {
			const char *name;
			Elf_Data *d;
			GElf_Shdr sh;

			if (!gelf_getshdr(scn, &sh))
				break;
			name = elf_strptr(e, shstrndx, sh.sh_name);
			if (!name || strcmp(name, ".BTF"))
				continue;
			d = elf_getdata(scn, NULL);
			if (d && d->d_buf)
				btf = btf__new(d->d_buf, d->d_size);
			break;
		}
	}
	elf_end(e);
	return btf && !libbpf_get_error(btf) ? btf : NULL;
}

/* The names the object's BTF gives its structs, unions, enums and
 * typedefs, without a CO-RE flavour ("task_struct___old": task_struct),
 * and the first two bytes of each (a cheap test before the hash). */
static int object_roots(const struct btf *local, struct htab *roots, uint64_t *first2)
{
	for (uint32_t id = 1; id < btf__type_cnt(local); id++) {
		const struct btf_type *t = btf__type_by_id(local, id);
		const char *name = btf__name_by_offset(local, t->name_off), *flavour;
		int class = root_class(BTF_INFO_KIND(t->info));
		struct root_key key;
		struct root *r;
		uint64_t h;

		if (!class || !name || !*name)
			continue;
		flavour = strstr(name, "___");
		key = (struct root_key){ class, name, flavour ? (size_t)(flavour - name) : strlen(name) };
		h = root_hash(class, name, key.len);
		if (htab_find(roots, h, &key, root_eq))
			continue;
		r = malloc(sizeof(*r) + key.len + 1);
		if (!r)
			return -ENOMEM;
		r->class = class;
		memcpy(r->name, name, key.len);
		r->name[key.len] = 0;
		if (htab_insert(roots, h, r)) {
			free(r);
			return -ENOMEM;
		}
		set_first2(first2, name);
	}
	return 0;
}

/* One walk of the kernel's types: marks every 64th, and collects the ids
 * of those named as roots (all namesakes: libbpf weighs each as a
 * candidate), to be copied once the marks are all set. */
static int scan_types(struct kview *kv, struct htab *roots, const uint64_t *first2,
		      uint32_t **ids, size_t *nids)
{
	size_t mcap = 0, icap = 0;
	uint32_t off = 0;

	while (off < kv->types_len) {
		const struct btf_type *t = (const struct btf_type *)(kv->types + off);
		long n = type_bytes(t, kv->types_len - off);
		int class;

		if (n < 0)
			return -EINVAL;
		if (kv->nr % MARK_EVERY == 0) {
			if (kv->nr / MARK_EVERY >= mcap) {
				uint32_t *m = array_grow(kv->marks, &mcap, sizeof(*m));

				kv->marks = m;
				if (!m)
					return -ENOMEM;
			}
			kv->marks[kv->nr / MARK_EVERY] = off;
		}
		kv->nr++;
		off += n;
		class = root_class(BTF_INFO_KIND(t->info));
		if (class && t->name_off) {
			const char *name = kname(kv, t->name_off);
			struct root_key key = { class, name, 0 };

			if (!has_first2(first2, name))
				continue;
			key.len = strlen(name);
			if (!htab_find(roots, root_hash(class, name, key.len), &key, root_eq))
				continue;
			if (*nids == icap) {
				uint32_t *m = array_grow(*ids, &icap, sizeof(*m));

				*ids = m;
				if (!m)
					return -ENOMEM;
			}
			(*ids)[(*nids)++] = kv->nr;
		}
	}
	return 0;
}

int kbtf_for_object(const void *elf, size_t elf_size, const char *vmlinux, struct kbtf_custom *c)
{
	struct kcopy k = {};
	struct kview kv;
	struct btf *local = NULL;
	struct htab *roots = NULL;
	uint32_t *ids = NULL;
	size_t nids = 0;
	uint64_t *first2 = calloc(FIRST2_WORDS, sizeof(uint64_t));
	const void *raw;
	uint32_t size;
	int err;

	c->types = 0;
	err = kview_open(&kv, vmlinux ? vmlinux : KBTF_VMLINUX);
	if (err) {
		free(first2);
		return err;
	}
	local = object_btf(elf, elf_size);
	roots = htab_new(256);
	k.ids = htab_new(1024);
	k.kv = &kv;
	k.out = btf__new_empty();
	if (!local || !roots || !k.ids || !first2 || libbpf_get_error(k.out)) {
		err = local ? -ENOMEM : -EINVAL;
		goto out;
	}
	err = object_roots(local, roots, first2);
	if (!err)
		err = scan_types(&kv, roots, first2, &ids, &nids);
	for (size_t i = 0; i < nids && !err; i++) {
		int id = copy_type(&k, ids[i], 0);

		err = id < 0 ? id : 0;
	}
	if (err)
		goto out;
	raw = btf__raw_data(k.out, &size);
	if (!raw) {
		err = -ENOMEM;
		goto out;
	}
	if (c->fd >= 0) {
		/* kbtf_start()'s, named to libbpf already */
		err = write_all(c->fd, raw, size);
		if (err)
			goto out;
	} else {
		c->fd = memfd_with(MEMFD_NAME, raw, size);
		if (c->fd < 0) {
			err = c->fd;
			c->fd = -1;
			goto out;
		}
		snprintf(c->path, sizeof(c->path), "/proc/self/fd/%d", c->fd);
	}
	c->types = btf__type_cnt(k.out) - 1;
out:
	htab_free_all(roots);
	htab_free_all(k.ids);
	if (!libbpf_get_error(k.out))
		btf__free(k.out);
	btf__free(local);
	free(first2);
	free(ids);
	kview_close(&kv);
	return err;
}

/* Where the small BTF could not be made, the path the object names reads
 * the kernel's whole BTF instead: libbpf does as it did before (or fails,
 * naming it, without one).  Before the load. */
static void btf_for_load(struct kbtf_custom *c)
{
	int fd;

	if (c->cache_said[0])
		debug("small kernel BTF: %s", c->cache_said);
	if (!c->err) {
		debug("small kernel BTF: %d types%s", c->types, c->cached ? ", from the cache" : "");
		return;
	}
	if (c->fd < 0)
		return;
	fd = open(KBTF_VMLINUX, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || dup3(fd, c->fd, O_CLOEXEC) < 0)
		debug("%s: %s", KBTF_VMLINUX, strerror(errno));
	if (fd >= 0)
		close(fd);
	debug("small kernel BTF: %s; libbpf reads the whole of it", strerror(-c->err));
}

/* The job's maps made, those not taken yet here: returns once all are
 * (the other thread's last one included, awaited awake: one map's
 * creation at most, and an idle processor of a virtual machine can take
 * as long to wake up). */
static void make_maps(struct kbtf_custom *c)
{
	size_t i, n = c->job.nmaps;

	while ((i = __atomic_fetch_add(&c->next_map, 1, __ATOMIC_RELAXED)) < n) {
		if (map_premake(c->job.maps[i]))
			__atomic_add_fetch(&c->maps_late, 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&c->maps_made, 1, __ATOMIC_RELEASE);
	}
	while (__atomic_load_n(&c->maps_made, __ATOMIC_ACQUIRE) < n)
		sched_yield();
}

/* The small BTF into c->fd: the cache's, else made and kept there. */
static int small_btf(struct kbtf_custom *c)
{
	struct kbtf_cache kc;
	struct stat st;
	int err;

	if (!c->object || kbtf_cache_open(&kc, c->object, c->elf, c->elf_size)) {
		if (c->object)
			snprintf(c->cache_said, sizeof(c->cache_said), "no cache: %s", kc.why);
		return kbtf_for_object(c->elf, c->elf_size, NULL, c);
	}
	err = kbtf_cache_read(&kc, c->fd);
	if (err >= 0) {
		c->types = err;
		c->cached = true;
		kbtf_cache_close(&kc);
		return 0;
	}
	if (err != -ENOENT)
		snprintf(c->cache_said, sizeof(c->cache_said), "%s: not used: %s (made again)",
			 kc.name, strerror(-err));
	/* nothing half-written stays in the memfd */
	if (ftruncate(c->fd, 0) || lseek(c->fd, 0, SEEK_SET)) {
		err = -errno;
		kbtf_cache_close(&kc);
		return err;
	}
	err = kbtf_for_object(c->elf, c->elf_size, NULL, c);
	if (!err && !fstat(c->fd, &st)) {
		int werr = kbtf_cache_write(&kc, c->fd, (size_t)st.st_size);

		if (werr && !c->cache_said[0])
			snprintf(c->cache_said, sizeof(c->cache_said), "not kept in the cache: %s",
				 strerror(-werr));
		else if (!werr)
			snprintf(c->cache_said, sizeof(c->cache_said), "kept in the cache: %s",
				 kc.name);
	}
	kbtf_cache_close(&kc);
	return err;
}

static void *make_it(void *arg)
{
	struct kbtf_custom *c = arg;
	bool load;

	/* into kbtf_start()'s memfd only: the main thread reads c->fd */
	c->err = c->fd < 0 ? -EBADF : small_btf(c);
	if (!c->running)
		return NULL;	/* inline: no thread could start */
	pthread_mutex_lock(&c->mu);
	while (c->order == KBTF_AWAIT)
		pthread_cond_wait(&c->cv, &c->mu);
	load = c->order == KBTF_LOAD_HERE;
	pthread_mutex_unlock(&c->mu);
	if (load) {
		make_maps(c);
		btf_for_load(c);
		c->load_err = c->job.load(c->job.arg);
	}
	return NULL;
}

void kbtf_start(struct kbtf_custom *c, const char *object, const void *elf, size_t elf_size)
{
	sigset_t all, old;

	c->object = object;
	c->elf = elf;
	c->elf_size = elf_size;
	c->order = KBTF_AWAIT;
	pthread_mutex_init(&c->mu, NULL);
	pthread_cond_init(&c->cv, NULL);
	/* the memfd first: the object can be opened naming it before the
	 * thread has filled it (kbtf_use), and set up meanwhile */
	c->fd = memfd_create(MEMFD_NAME, MFD_CLOEXEC);
	if (c->fd >= 0)
		snprintf(c->path, sizeof(c->path), "/proc/self/fd/%d", c->fd);
	/* the thread takes no signal: they stay for the run's own handling
	 * (a signal the main thread blocks for its signalfd would otherwise
	 * go to this one, with its default action) */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	c->running = true;
	if (pthread_create(&c->thread, NULL, make_it, c)) {
		c->running = false;
		make_it(c);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* The thread ended: told to, unless it was given a load. */
static void wait_for_it(struct kbtf_custom *c)
{
	if (!c->running)
		return;
	pthread_mutex_lock(&c->mu);
	if (c->order == KBTF_AWAIT) {
		c->order = KBTF_END;
		pthread_cond_broadcast(&c->cv);
	}
	pthread_mutex_unlock(&c->mu);
	pthread_join(c->thread, NULL);
	c->running = false;
}

void kbtf_use(struct kbtf_custom *c, struct bpf_object_open_opts *opts)
{
	/* named now, read by libbpf at the load, after kbtf_ready() */
	if (c->fd >= 0)
		opts->btf_custom_path = c->path;
}

void kbtf_ready(struct kbtf_custom *c)
{
	wait_for_it(c);
	btf_for_load(c);
}

size_t kbtf_load_start(struct kbtf_custom *c, const struct kbtf_load *job)
{
	c->load_started = true;
	c->job = *job;
	c->next_map = c->maps_made = c->maps_late = 0;
	if (!c->running) {
		/* no thread (it could not start): all of it here */
		make_maps(c);
		btf_for_load(c);
		c->load_err = job->load(job->arg);
		return c->maps_late;
	}
	pthread_mutex_lock(&c->mu);
	c->order = KBTF_LOAD_HERE;
	pthread_cond_broadcast(&c->cv);
	pthread_mutex_unlock(&c->mu);
	make_maps(c);
	return __atomic_load_n(&c->maps_late, __ATOMIC_RELAXED);	/* all made */
}

int kbtf_load_wait(struct kbtf_custom *c)
{
	if (!c->load_started)
		return -EINVAL;
	wait_for_it(c);
	return c->load_err;
}

void kbtf_close(struct kbtf_custom *c)
{
	wait_for_it(c);
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}
