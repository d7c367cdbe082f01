/* Kernel types from vmlinux BTF for the checker (lang/btftype.h). */
#include <errno.h>
#include <string.h>
#include <bpf/btf.h>
#include "lang/btftype.h"

/* typedefs, const, volatile, restrict and type tags skipped */
static uint32_t skip_mods(const struct btf *btf, uint32_t id)
{
	for (int i = 0; i < 32 && id; i++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (!t)
			return 0;
		if (!btf_is_typedef(t) && !btf_is_mod(t) && !btf_is_type_tag(t))
			return id;
		id = t->type;
	}
	return 0;
}

uint32_t lang_btf_record(const struct btf *btf, const char *name)
{
	int id;

	if (!btf || !name)
		return 0;
	while (*name == ' ')
		name++;
	if (!strncmp(name, "struct ", 7)) {
		id = btf__find_by_name_kind(btf, name + 7, BTF_KIND_STRUCT);
	} else if (!strncmp(name, "union ", 6)) {
		id = btf__find_by_name_kind(btf, name + 6, BTF_KIND_UNION);
	} else {
		id = btf__find_by_name_kind(btf, name, BTF_KIND_STRUCT);
		if (id <= 0)
			id = btf__find_by_name_kind(btf, name, BTF_KIND_UNION);
	}
	return id > 0 ? (uint32_t)id : 0;
}

const char *lang_btf_record_name(const struct btf *btf, uint32_t record)
{
	const struct btf_type *t = btf ? btf__type_by_id(btf, record) : NULL;
	const char *n = t ? btf__name_by_offset(btf, t->name_off) : NULL;

	return n && *n ? n : "(anonymous)";
}

/* The member's type as a read: 0 or -EOPNOTSUPP with *why. */
static int type_read(const struct btf *btf, uint32_t id, struct lang_deref *d,
		     struct lang_type *t, const char **why)
{
	const struct btf_type *bt;

	id = skip_mods(btf, id);
	bt = id ? btf__type_by_id(btf, id) : NULL;
	*t = (struct lang_type){ .kind = LANG_K_INT };
	if (!bt) {
		*why = "of a type BTF does not describe";
		return -EOPNOTSUPP;
	}
	if (btf_is_int(bt) || btf_is_enum(bt) || btf_is_enum64(bt)) {
		if (bt->size != 1 && bt->size != 2 && bt->size != 4 && bt->size != 8) {
			*why = "an integer wider than 64 bits";
			return -EOPNOTSUPP;
		}
		d->size = bt->size;
		d->is_signed = btf_is_int(bt) ? (btf_int_encoding(bt) & BTF_INT_SIGNED) &&
						!(btf_int_encoding(bt) & BTF_INT_BOOL) :
			       btf_kflag(bt);
		return 0;
	}
	if (btf_is_ptr(bt)) {
		uint32_t p = skip_mods(btf, bt->type);
		const struct btf_type *pt = p ? btf__type_by_id(btf, p) : NULL;

		d->size = 8;
		if (pt && (btf_is_struct(pt) || btf_is_union(pt)))
			t->btf_id = p;
		return 0;
	}
	if (btf_is_array(bt)) {
		const struct btf_array *a = btf_array(bt);
		uint32_t e = skip_mods(btf, a->type);
		const struct btf_type *et = e ? btf__type_by_id(btf, e) : NULL;

		if (et && btf_is_int(et) && et->size == 1 && a->nelems) {
			d->size = a->nelems;
			d->str = true;
			t->kind = LANG_K_STR;
			return 0;
		}
		*why = "an array other than of char";
		return -EOPNOTSUPP;
	}
	if (btf_is_struct(bt) || btf_is_union(bt)) {
		d->record = true;
		d->size = bt->size;
		t->kind = LANG_K_EXTERN;
		t->btf_id = id;
		return 0;
	}
	*why = "of a type not read (a function, a float)";
	return -EOPNOTSUPP;
}

/* name in record at bit offset base (anonymous members searched, to a
 * bounded depth) */
static int find_member(const struct btf *btf, uint32_t record, const char *name, uint32_t base,
		       int depth, struct lang_deref *d, struct lang_type *t, const char **why)
{
	const struct btf_type *rt = btf__type_by_id(btf, record);
	const struct btf_member *m;
	int n;

	if (!rt || (!btf_is_struct(rt) && !btf_is_union(rt)) || depth > 8)
		return -ENOENT;
	m = btf_members(rt);
	n = btf_vlen(rt);
	for (int i = 0; i < n; i++, m++) {
		const char *mn = btf__name_by_offset(btf, m->name_off);
		uint32_t off = base + btf_member_bit_offset(rt, (uint32_t)i);

		if (mn && *mn) {
			if (strcmp(mn, name))
				continue;
			if (btf_member_bitfield_size(rt, (uint32_t)i) || off % 8) {
				*why = "a bit field";
				return -EOPNOTSUPP;
			}
			memset(d, 0, sizeof(*d));
			d->off = off / 8;
			return type_read(btf, m->type, d, t, why);
		} else {
			uint32_t sub = skip_mods(btf, m->type);
			int e = find_member(btf, sub, name, off, depth + 1, d, t, why);

			if (e != -ENOENT)
				return e;
		}
	}
	return -ENOENT;
}

int lang_btf_member(const struct btf *btf, uint32_t record, const char *name,
		    struct lang_deref *d, struct lang_type *t, const char **why)
{
	if (!btf || !record)
		return -ENOENT;
	return find_member(btf, record, name, 0, 0, d, t, why);
}
