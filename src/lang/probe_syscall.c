/* syscall:NAME:entry and syscall:NAME:return (globs over NAME): the
 * syscalls command's view of a call in the language.  Names are strace's
 * ("stat", not "newstat"), the syscalls of this kernel that tracefs
 * describes (syscall/table.h); args.NAME are typed from that description
 * and from the decoders' capture kinds (syscall/decode.h): an argument
 * the decoders capture as a path or a string is a string, other pointers
 * and integers are integers of the C type's width and sign.
 *
 * An entry point is a tracepoint program on syscalls/sys_enter_EVENT.  A
 * return point's program is attached to sys_enter_EVENT and
 * sys_exit_EVENT both; its prologue (codegen.c) saves the arguments and
 * the time at entry and takes them back at exit, so args.NAME, retval,
 * duration and `call` (rendered in user space by the decoders) are there
 * together (struct lang_sys_point). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common.h"
#include "lang/probe_int.h"
#include "syscall/decode.h"
#include "syscall/table.h"
#include "trace/attach.h"

static void sys_free(void *p)
{
	struct lang_sys_point *sp = p;

	if (sp)
		free(sp->spec);
	free(sp);
}

/* events/syscalls/sys_{enter,exit}_EVENT/id: > 0, or -errno. */
static int event_id(struct lang_probes *pr, const char *dir, const char *event)
{
	const char *events = probes_events_dir(pr);
	char path[1024], buf[32];
	ssize_t n;
	int fd, id;

	if (!events)
		return -errno;
	snprintf(path, sizeof(path), "%s/syscalls/sys_%s_%s/id", events, dir, event);
	fd = open_regular(path, NULL);
	if (fd < 0)
		return fd;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	id = atoi(buf);
	return id > 0 ? id : -EIO;
}

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[64], prev, tmp;

	if (la >= 63 || lb >= 63)
		return 64;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t best = prev + (a[i - 1] != b[j - 1]);

			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			tmp = row[j];
			row[j] = best;
			prev = tmp;
		}
	}
	return row[lb];
}

/* Up to 4 syscall names nearest to name (edit distance, then prefix),
 * comma-separated, into out: "" when none is near. */
void sys_nearest(struct sc_table *t, const char *name, char *out, size_t size)
{
	size_t best[4], nbest = 0, len = strlen(name), limit = len < 6 ? 2 : len / 3 + 1;
	int nrs[4];

	out[0] = 0;
	for (int nr = 0; nr < SC_NR_MAX; nr++) {
		const struct sc_info *si = sc_table_get(t, nr);
		size_t d;

		if (si->nargs < 0)
			continue;
		d = edit_distance(name, si->name);
		if (len >= 3 && !strncmp(si->name, name, len))
			d = d < 1 ? d : 1;	/* "open" -> "openat" */
		if (d > limit)
			continue;
		/* insertion into the sorted best few */
		size_t k = nbest < 4 ? nbest++ : 4;

		while (k > 0 && best[k - 1] > d) {
			if (k < 4) {
				best[k] = best[k - 1];
				nrs[k] = nrs[k - 1];
			}
			k--;
		}
		if (k < 4) {
			best[k] = d;
			nrs[k] = nr;
		}
	}
	for (size_t i = 0; i < nbest; i++) {
		size_t used = strlen(out);

		snprintf(out + used, size - used, "%s%s", i ? ", " : "",
			 sc_table_get(t, nrs[i])->name);
	}
}

static int sys_expand(struct lang_probes *pr, const struct lang_attach *at,
		      struct lang_points *out)
{
	struct sc_table *t = probes_syscalls(pr);
	bool ret = at->mode && !strcmp(at->mode, "return");
	int matched = 0, noret = -1;

	if (!t)
		return probes_error(pr, at, errno ? -errno : -ENOENT,
				    "%s: this kernel's syscalls cannot be read: %s", at->text,
				    strerror(errno ? errno : ENOENT));
	for (int nr = 0; nr < SC_NR_MAX; nr++) {
		const struct sc_info *si;
		struct lang_sys_point *sp;
		struct lang_point *pt;
		char name[160];
		int id;

		/* the name first: only the formats of the syscalls matched are read */
		if (!probes_glob(at->func, sc_table_name(t, nr)))
			continue;
		si = sc_table_get(t, nr);
		if (si->nargs < 0)
			continue;
		sp = calloc(1, sizeof(*sp));
		if (!sp || !(sp->spec = calloc(1, sizeof(*sp->spec)))) {
			sys_free(sp);
			return -ENOMEM;
		}
		sc_spec_for(si, sp->spec);
		if (ret && (sp->spec->flags & SC_SPEC_NORET)) {
			/* exit, exit_group: no return to probe */
			noret = nr;
			sys_free(sp);
			continue;
		}
		sp->nr = nr;
		sp->ret = ret;
		sp->si = si;
		sp->strsize = LANG_SYS_STRSIZE;
		snprintf(sp->event, sizeof(sp->event), "%s", sc_event_name(si->name));
		id = event_id(pr, "enter", sp->event);
		if (id < 0 || (ret && event_id(pr, "exit", sp->event) < 0)) {
			sys_free(sp);
			continue;	/* described but without its events: not offered */
		}
		sp->enter_type = (uint32_t)id;
		snprintf(name, sizeof(name), "syscall:%s:%s", si->name, ret ? "return" : "entry");
		pt = lang_points_add(out, at, name);
		if (!pt || !(pt->func = strdup(si->name))) {
			sys_free(sp);
			return -ENOMEM;
		}
		pt->priv = sp;
		pt->prog_type = BPF_PROG_TYPE_TRACEPOINT;
		matched++;
	}
	if (matched)
		return 0;
	if (noret >= 0)
		return probes_error(pr, at, -ENOENT, "%s: %s does not return (use syscall:%s:entry)",
				    at->text, sc_table_get(t, noret)->name,
				    sc_table_get(t, noret)->name);
	if (at->wildcard)
		return probes_error(pr, at, -ENOENT, "%s: matches no syscall of this kernel", at->text);
	{
		char near[256];

		sys_nearest(t, at->func, near, sizeof(near));
		return probes_error(pr, at, -ENOENT, "%s: no syscall '%s' on this kernel%s%s%s",
				    at->text, at->func, *near ? " (nearest: " : "", near,
				    *near ? ")" : "");
	}
}

/* The width and sign of a syscall argument's C type, as the kernel's
 * description spells it ("int", "unsigned int", "pid_t", "size_t"). */
void sys_arg_int(const char *type, uint32_t *size, bool *is_signed)
{
	static const char *const s32[] = { "int", "pid_t", "clockid_t", "key_t", "mqd_t",
		"timer_t", "rwf_t", "key_serial_t", "__s32", "s32" };
	static const char *const u32[] = { "unsigned int", "unsigned", "uid_t", "gid_t",
		"qid_t", "u32", "__u32", "old_uid_t", "old_gid_t" };
	static const char *const s64[] = { "long", "off_t", "loff_t", "ssize_t", "time_t",
		"__kernel_old_time_t", "__s64", "s64", "long long" };

	*size = 8;
	*is_signed = false;
	for (size_t i = 0; i < ARRAY_SIZE(s32); i++)
		if (!strcmp(type, s32[i])) {
			*size = 4;
			*is_signed = true;
			return;
		}
	for (size_t i = 0; i < ARRAY_SIZE(u32); i++)
		if (!strcmp(type, u32[i])) {
			*size = 4;
			return;
		}
	for (size_t i = 0; i < ARRAY_SIZE(s64); i++)
		if (!strcmp(type, s64[i])) {
			*is_signed = true;
			return;
		}
}

/* args.NAME at a point: its access, or -ENOENT. */
int sys_arg_access(const struct lang_sys_point *sp, const char *field,
		   struct lang_field_access *acc)
{
	const struct sc_info *si = sp->si;

	for (int i = 0; si->args && i < si->nargs && i < SC_ARGS; i++) {
		const char *type = si->args[i].type;
		int cap = sp->spec->args[i].cap;

		if (strcmp(si->args[i].name, field))
			continue;
		memset(acc, 0, sizeof(*acc));
		acc->base = sp->ret ? LANG_BASE_SAVED : LANG_BASE_CTX;
		acc->offset = sp->ret ? (uint32_t)offsetof(struct lang_sys_saved, args[i]) :
			      LANG_SYS_ARG_OFF(i);
		acc->user = true;
		acc->size = 8;
		snprintf(acc->ctype, sizeof(acc->ctype), "%s", type);
		if (cap == SC_CAP_PATH || cap == SC_CAP_STR)
			acc->kind = LANG_ACC_USTR;
		else if (strchr(type, '*'))
			acc->kind = LANG_ACC_PTR;
		else
			sys_arg_int(type, &acc->size, &acc->is_signed);
		return 0;
	}
	return -ENOENT;
}

static int sys_field(struct lang_probes *pr, const struct lang_point *pt, const char *field,
		     struct lang_field_access *acc)
{
	return sys_arg_access(pt->priv, field, acc);
}

static int sys_retval(const struct lang_point *pt, struct lang_field_access *acc)
{
	const struct lang_sys_point *sp = pt->priv;

	if (!sp->ret)
		return -ENOENT;
	acc->kind = LANG_ACC_INT;
	acc->base = LANG_BASE_SAVED;
	acc->offset = (uint32_t)offsetof(struct lang_sys_saved, ret);
	acc->size = 8;
	acc->is_signed = true;
	snprintf(acc->ctype, sizeof(acc->ctype), "long");
	return 0;
}

static int sys_attach(struct session *s, struct lang_probes *pr, const struct lang_point *pt,
		      int prog_fd)
{
	const struct lang_sys_point *sp = pt->priv;
	/* a return point's program tells its entry by the cookie (codegen.c) */
	int err = attach_tracepoint_cookie(s, prog_fd, (int)sp->enter_type,
					   sp->ret ? LANG_SYS_COOKIE_ENTRY : 0, pt->name);

	if (!err && sp->ret) {
		int id = event_id(pr, "exit", sp->event);

		if (id < 0) {
			msg("%s: syscalls/sys_exit_%s has no id in tracefs: %s", pt->name, sp->event,
			    strerror(-id));
			return id;
		}
		err = attach_tracepoint_id(s, prog_fd, id, pt->name);
	}
	return err;
}

static void list_args(FILE *f, const struct sc_info *si, const struct sc_spec *spec, bool ret)
{
	for (int i = 0; si->args && i < si->nargs && i < SC_ARGS; i++) {
		int cap = spec->args[i].cap;

		fprintf(f, "    %s %s%s\n", si->args[i].type, si->args[i].name,
			cap == SC_CAP_PATH || cap == SC_CAP_STR ? " (string)" : "");
	}
	if (ret)
		fputs("    long retval\n    u64 duration\n    string call\n", f);
}

static int sys_list(struct lang_probes *pr, FILE *f, const char *pattern, bool verbose)
{
	struct sc_table *t = probes_syscalls(pr);
	int count = 0;

	if (!t)
		return -errno;
	for (int nr = 0; nr < SC_NR_MAX; nr++) {
		const struct sc_info *si = sc_table_get(t, nr);
		struct sc_spec spec;
		char name[160];

		if (si->nargs < 0)
			continue;
		sc_spec_for(si, &spec);
		for (int r = 0; r < 2; r++) {
			if (r && (spec.flags & SC_SPEC_NORET))
				continue;
			snprintf(name, sizeof(name), "syscall:%s:%s", si->name, r ? "return" : "entry");
			if (!probes_glob(pattern, name))
				continue;
			fprintf(f, "%s\n", name);
			count++;
			if (verbose)
				list_args(f, si, &spec, r);
		}
	}
	return count;
}

const struct lang_provider_ops lang_syscall_ops = {
	.provider = LANG_P_SYSCALL,
	.expand = sys_expand,
	.field = sys_field,
	.retval = sys_retval,
	.attach = sys_attach,
	.list = sys_list,
	.free_priv = sys_free,
};
