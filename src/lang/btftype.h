/* Kernel types from vmlinux BTF for the checker: curtask's struct
 * task_struct, casts to struct pointers, and the members that p->field
 * and record.field read (lang/ast.h struct lang_deref). */
#ifndef STACKSCOPE_LANG_BTFTYPE_H
#define STACKSCOPE_LANG_BTFTYPE_H
#include <stdint.h>
#include "lang/ast.h"

struct btf;

/* The id of struct or union name ("task_struct", "struct task_struct",
 * "union X"), or 0. */
uint32_t lang_btf_record(const struct btf *btf, const char *name);

/* Member name of the struct or union record (anonymous members searched
 * too): how to read it (d: offset from the record's start, size, sign,
 * char array as a string, record by value) and its type (an integer, a
 * pointer to a record with t->btf_id set, a string, or a record: extern
 * with t->btf_id).  0, -ENOENT (no such member), -EOPNOTSUPP with *why
 * (a bit field, a type not read). */
int lang_btf_member(const struct btf *btf, uint32_t record, const char *name,
		    struct lang_deref *d, struct lang_type *t, const char **why);

/* "struct task_struct" for messages. */
const char *lang_btf_record_name(const struct btf *btf, uint32_t record);

#endif
