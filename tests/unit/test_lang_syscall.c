/* lang/probe_syscall.c without root: syscall:NAME:entry|return points
 * over a fake tracefs events directory (globs, strace's names for renamed
 * events, no return for exit_group, the nearest names of an unknown one),
 * args.NAME typed from the description and the decoders' capture kinds,
 * and the `call` record's slots (lang/codegen.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "lang_test.h"
#include "bpf/syscalls.h"
#include "lang/codegen.h"
#include "lang/rec.h"
#include "lang/probe_int.h"
#include "lang/provider.h"
#include "syscall/decode.h"
#include "syscall/table.h"

#define NR_HDR "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"

static char events[PATH_MAX];

static void put_file(const char *rel, const char *text)
{
	lt_put_file(events, rel, text);
}

static const char *fake_events(void)
{
	if (events[0])
		return events;
	snprintf(events, sizeof(events), "/tmp/ss-test-sysevents.XXXXXX");
	if (!mkdtemp(events)) {
		events[0] = 0;
		return NULL;
	}
	put_file("syscalls/sys_enter_openat/format", NR_HDR
		 "\tfield:int dfd;\toffset:16;\tsize:8;\tsigned:0;\n"
		 "\tfield:const char * filename;\toffset:24;\tsize:8;\tsigned:0;\n"
		 "\tfield:int flags;\toffset:32;\tsize:8;\tsigned:0;\n"
		 "\tfield:umode_t mode;\toffset:40;\tsize:8;\tsigned:0;\n");
	put_file("syscalls/sys_enter_openat/id", "650\n");
	put_file("syscalls/sys_exit_openat/format", NR_HDR
		 "\tfield:long ret;\toffset:16;\tsize:8;\tsigned:1;\n");
	put_file("syscalls/sys_exit_openat/id", "649\n");
	put_file("syscalls/sys_enter_read/format", NR_HDR
		 "\tfield:unsigned int fd;\toffset:16;\tsize:8;\tsigned:0;\n"
		 "\tfield:char * buf;\toffset:24;\tsize:8;\tsigned:0;\n"
		 "\tfield:size_t count;\toffset:32;\tsize:8;\tsigned:0;\n");
	put_file("syscalls/sys_enter_read/id", "700\n");
	put_file("syscalls/sys_exit_read/format", NR_HDR
		 "\tfield:long ret;\toffset:16;\tsize:8;\tsigned:1;\n");
	put_file("syscalls/sys_exit_read/id", "699\n");
	put_file("syscalls/sys_enter_newstat/format", NR_HDR
		 "\tfield:const char * filename;\toffset:16;\tsize:8;\tsigned:0;\n"
		 "\tfield:struct stat * statbuf;\toffset:24;\tsize:8;\tsigned:0;\n");
	put_file("syscalls/sys_enter_newstat/id", "800\n");
	put_file("syscalls/sys_exit_newstat/format", NR_HDR
		 "\tfield:long ret;\toffset:16;\tsize:8;\tsigned:1;\n");
	put_file("syscalls/sys_exit_newstat/id", "799\n");
	put_file("syscalls/sys_enter_exit_group/format", NR_HDR
		 "\tfield:int error_code;\toffset:16;\tsize:8;\tsigned:0;\n");
	put_file("syscalls/sys_enter_exit_group/id", "900\n");
	put_file("syscalls/sys_exit_exit_group/format", NR_HDR
		 "\tfield:long ret;\toffset:16;\tsize:8;\tsigned:1;\n");
	put_file("syscalls/sys_exit_exit_group/id", "899\n");
	/* described but without an id: not offered */
	put_file("syscalls/sys_enter_getppid/format", NR_HDR);
	return events;
}

/* "N: name/enter_type ..." of the points of src's first attach point, or
 * "error: FIRST". */
static const char *expand(const char *src)
{
	static char out[4096];
	struct lang_prog *prog = lang_prog_new("t", src, strlen(src));
	struct lang_probes_opts o = { .prog = prog, .events_dir = fake_events() };
	struct lang_probes *pr;
	struct lang_point **pts;
	size_t n;
	int err;

	if (!prog || lang_parse(prog) || !prog->probes) {
		snprintf(out, sizeof(out), "parse: %s", prog && lang_error(prog, 0) ?
			 lang_error(prog, 0) : "?");
		lang_prog_free(prog);
		return out;
	}
	pr = lang_probes_new(&o);
	err = lang_probes_expand(pr, &prog->probes->attach[0], &pts, &n);
	if (err) {
		snprintf(out, sizeof(out), "error: %s", lang_error(prog, 0) ? lang_error(prog, 0) :
			 strerror(-err));
	} else {
		int len = snprintf(out, sizeof(out), "%zu:", n);

		for (size_t i = 0; i < n && len < (int)sizeof(out); i++) {
			const struct lang_sys_point *sp = pts[i]->priv;

			len += snprintf(out + len, sizeof(out) - len, " %s/%u%s", pts[i]->name,
					sp->enter_type, strcmp(sp->event, pts[i]->func) ?
					sp->event : "");
		}
	}
	lang_probes_free(pr);
	lang_prog_free(prog);
	return out;
}

TEST(syscall_points)
{
	CHECK_STR(expand("syscall:openat:return { }"), "1: syscall:openat:return/650");
	CHECK_STR(expand("syscall:openat:entry { }"), "1: syscall:openat:entry/650");
	/* strace's name, the kernel's event */
	CHECK_STR(expand("syscall:stat:entry { }"), "1: syscall:stat:entry/800newstat");
	/* exit_group has no return; getppid has no id here */
	CHECK_STR(expand("syscall:*:return { }"),
		  "3: syscall:read:return/700 syscall:stat:return/800newstat "
		  "syscall:openat:return/650");
	CHECK_STR(expand("syscall:*:entry { }"),
		  "4: syscall:read:entry/700 syscall:stat:entry/800newstat "
		  "syscall:exit_group:entry/900 syscall:openat:entry/650");
}

TEST(syscall_point_errors)
{
	CHECK_STR(expand("syscall:opnat:entry { }"),
		  "error: t:1:1: syscall:opnat:entry: no syscall 'opnat' on this kernel "
		  "(nearest: openat)");
	CHECK_STR(expand("syscall:zz*:entry { }"),
		  "error: t:1:1: syscall:zz*:entry: matches no syscall of this kernel");
	CHECK_STR(expand("syscall:exit_group:return { }"),
		  "error: t:1:1: syscall:exit_group:return: exit_group does not return "
		  "(use syscall:exit_group:entry)");
	CHECK(!strncmp(expand("syscall:openat { }"), "parse: ", 7));
	CHECK(strstr(expand("syscall:openat:exit { }"),
		     "syscall probes are syscall:NAME:entry or syscall:NAME:return"));
}

TEST(syscall_nearest_names)
{
	struct sc_table *t;
	char near[256], dir[PATH_MAX + 16];

	fake_events();
	snprintf(dir, sizeof(dir), "%s/syscalls", events);
	t = sc_table_load_dir(dir);
	CHECK(t != NULL);
	if (!t)
		return;
	sys_nearest(t, "reed", near, sizeof(near));
	CHECK_STR(near, "read");
	sys_nearest(t, "open", near, sizeof(near));
	CHECK_STR(near, "openat");
	sys_nearest(t, "completely_different", near, sizeof(near));
	CHECK_STR(near, "");
	sc_table_free(t);
}

TEST(syscall_arg_types)
{
	uint32_t size;
	bool sign;

	sys_arg_int("int", &size, &sign);
	CHECK(size == 4 && sign);
	sys_arg_int("unsigned int", &size, &sign);
	CHECK(size == 4 && !sign);
	sys_arg_int("pid_t", &size, &sign);
	CHECK(size == 4 && sign);
	sys_arg_int("size_t", &size, &sign);
	CHECK(size == 8 && !sign);
	sys_arg_int("loff_t", &size, &sign);
	CHECK(size == 8 && sign);
	sys_arg_int("umode_t", &size, &sign);
	CHECK(size == 8 && !sign);
}

static void access_of(const char *name, bool ret, const char *field, struct lang_field_access *acc,
		      int *err)
{
	struct sc_table *t;
	struct lang_sys_point sp = { .ret = ret, .strsize = LANG_SYS_STRSIZE };
	struct sc_spec spec;
	char dir[PATH_MAX + 16];

	fake_events();
	snprintf(dir, sizeof(dir), "%s/syscalls", events);
	t = sc_table_load_dir(dir);
	if (!t) {
		*err = -ENOMEM;
		return;
	}
	sp.nr = sc_table_lookup(t, name);
	sp.si = sc_table_get(t, sp.nr);
	sc_spec_for(sp.si, &spec);
	sp.spec = &spec;
	*err = sys_arg_access(&sp, field, acc);
	sc_table_free(t);
}

TEST(syscall_args_access)
{
	struct lang_field_access acc;
	int err;

	access_of("openat", false, "filename", &acc, &err);
	CHECK_INT(err, 0);
	CHECK(acc.kind == LANG_ACC_USTR && acc.base == LANG_BASE_CTX);
	CHECK_INT(acc.offset, 24);
	CHECK_INT(lang_access_type(&acc).kind, LANG_K_STR);
	access_of("openat", true, "filename", &acc, &err);
	CHECK(acc.kind == LANG_ACC_USTR && acc.base == LANG_BASE_SAVED);
	CHECK_INT(acc.offset, 16);	/* lang_sys_saved.args[1] */
	access_of("openat", true, "flags", &acc, &err);
	CHECK(acc.kind == LANG_ACC_INT && acc.size == 4 && acc.is_signed);
	CHECK_INT(acc.offset, 24);
	access_of("openat", false, "flags", &acc, &err);
	CHECK_INT(acc.offset, 32);
	CHECK_STR(acc.ctype, "int");
	/* an output buffer is a pointer, not a string */
	access_of("read", false, "buf", &acc, &err);
	CHECK(acc.kind == LANG_ACC_PTR && acc.user);
	CHECK_INT(lang_access_type(&acc).kind, LANG_K_INT);
	access_of("read", false, "count", &acc, &err);
	CHECK(acc.kind == LANG_ACC_INT && acc.size == 8 && !acc.is_signed);
	access_of("openat", false, "nosuch", &acc, &err);
	CHECK_INT(err, -ENOENT);
}

TEST(syscall_call_slots)
{
	struct sc_spec spec = { 0 };

	/* openat-like: a path in argument 1; read-like: a buffer out in 1 */
	spec.args[1].cap = SC_CAP_PATH;
	spec.args[3].cap = SC_CAP_BUF_OUT;
	spec.args[3].len_arg = 4;
	spec.args[4].cap = SC_CAP_STRV;	/* not captured by `call` */
	spec.args[5].cap = SC_CAP_STRUCT_OUT;
	spec.args[5].size = 4096;	/* too big for a slot */
	CHECK_INT(lang_cg_call_slot(&spec, 0), -1);
	CHECK_INT(lang_cg_call_slot(&spec, 1), 0);
	CHECK_INT(lang_cg_call_slot(&spec, 3), 1);
	CHECK_INT(lang_cg_call_slot(&spec, 4), -1);
	CHECK_INT(lang_cg_call_slot(&spec, 5), -1);
	CHECK_INT(lang_cg_call_size(&spec),
		  (long)(sizeof(struct lang_rec_call) + 2 * LANG_REC_CALL_CAP));
	/* poll-like: pollfds counted by argument 1, 8 bytes each */
	spec.args[0].cap = SC_CAP_ARRAY_INOUT;
	spec.args[0].len_arg = 1;
	spec.args[0].size = 8;
	CHECK_INT(lang_cg_call_slot(&spec, 0), 0);
	CHECK_INT(lang_cg_call_slot(&spec, 1), 1);
	CHECK_INT(lang_cg_call_array_max(&spec.args[0]), 32);	/* 256 bytes */
	spec.args[0].size = 12;		/* epoll_event */
	CHECK_INT(lang_cg_call_array_max(&spec.args[0]), 21);
	spec.args[0].size = 1;		/* capped at SC_ARRAY_MAX */
	CHECK_INT(lang_cg_call_array_max(&spec.args[0]), SC_ARRAY_MAX);
	spec.args[0].len_arg = SC_LEN_FIXED;	/* an input array needs its count */
	CHECK_INT(lang_cg_call_slot(&spec, 0), -1);
}
