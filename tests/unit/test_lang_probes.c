/* lang/provider + probe_*.c without root: tracepoint format files
 * (well-formed and hostile), glob expansion over a fake tracefs events
 * directory, args.FIELD typed at check time, rawtracepoint arguments named
 * from a BTF file made here, software/hardware event names, perf-event
 * points, uprobe points on this binary, argN/retval accesses, -l. */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <bpf/btf.h>
#include "common.h"
#include "lang_test.h"
#include "lang/probe_int.h"
#include "lang/provider.h"

/* ---- format files ------------------------------------------------------ */

static const char openat_format[] =
	"name: sys_enter_openat\n"
	"ID: 650\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:int dfd;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:const char * filename;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:int flags;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:umode_t mode;\toffset:40;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"dfd: 0x%08lx, filename: 0x%08lx\", ((unsigned long)(REC->dfd)), "
	"((unsigned long)(REC->filename))\n";

static const char switch_format[] =
	"name: sched_switch\nID: 300\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[TASK_COMM_LEN];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:__data_loc char[] name;\toffset:56;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned long args[6];\toffset:64;\tsize:48;\tsigned:0;\n"
	"\tfield:u8 mac[6];\toffset:112;\tsize:6;\tsigned:0;\n"
	"\tfield:bool ok;\toffset:118;\tsize:1;\tsigned:1;\n"
	"\tfield:struct foo * ptr;\toffset:120;\tsize:8;\tsigned:0;\n"
	"\tfield:char ** argv;\toffset:128;\tsize:8;\tsigned:0;\n"
	"\tfield:__data_loc u8[] blob;\toffset:136;\tsize:4;\tsigned:0;\n"
	"print fmt: \"x\"\n";

static struct tp_format *parse(const char *s, bool user)
{
	return tp_format_parse(s, strlen(s), user);
}

TEST(tp_format_syscall_fields)
{
	struct tp_format *f = parse(openat_format, true);
	const struct tp_field *x;

	CHECK(f != NULL);
	if (!f)
		return;
	CHECK_INT(f->nfields, 9);
	x = tp_format_field(f, "common_pid");
	CHECK(x && x->acc.kind == LANG_ACC_INT && x->acc.offset == 4 && x->acc.size == 4 &&
	      x->acc.is_signed);
	x = tp_format_field(f, "__syscall_nr");
	CHECK(x && x->acc.offset == 8 && x->acc.size == 4 && x->acc.is_signed);
	/* "int" in an 8-byte slot: its low 4 bytes, signed as C says, whatever
	 * "signed:0" says */
	x = tp_format_field(f, "dfd");
	CHECK(x && x->acc.kind == LANG_ACC_INT && x->acc.offset == 16 && x->acc.size == 4 &&
	      x->acc.is_signed);
	x = tp_format_field(f, "filename");
	CHECK(x && x->acc.kind == LANG_ACC_STR_PTR && x->acc.offset == 24 && x->acc.size == 8 &&
	      x->acc.user && !x->acc.is_signed);
	CHECK_STR(x ? x->type : NULL, "const char *");
	CHECK_STR(x ? x->acc.ctype : NULL, "const char *");
	x = tp_format_field(f, "mode");	/* umode_t: an unsigned short */
	CHECK(x && x->acc.kind == LANG_ACC_INT && !x->acc.is_signed && x->acc.size == 2);
	x = tp_format_field(f, "flags");
	CHECK(x && x->acc.offset == 32 && x->acc.size == 4 && x->acc.is_signed);
	CHECK(tp_format_field(f, "nosuch") == NULL);
	CHECK(tp_format_field(f, "print") == NULL);
	free(f);
}

TEST(tp_format_strings_arrays_pointers)
{
	struct tp_format *f = parse(switch_format, false);
	const struct tp_field *x;

	CHECK(f != NULL);
	if (!f)
		return;
	x = tp_format_field(f, "prev_comm");
	CHECK(x && x->acc.kind == LANG_ACC_STR_ARRAY && x->acc.offset == 8 && x->acc.size == 16);
	CHECK_STR(x ? x->dims : NULL, "[16]");
	CHECK_STR(x ? x->acc.ctype : NULL, "char[16]");
	x = tp_format_field(f, "next_comm");	/* a symbolic length: the size says */
	CHECK(x && x->acc.kind == LANG_ACC_STR_ARRAY && x->acc.size == 16);
	x = tp_format_field(f, "prev_state");
	CHECK(x && x->acc.kind == LANG_ACC_INT && x->acc.size == 8 && x->acc.is_signed);
	x = tp_format_field(f, "prev_pid");
	CHECK(x && x->acc.is_signed && x->acc.size == 4);
	x = tp_format_field(f, "name");
	CHECK(x && x->acc.kind == LANG_ACC_STR_DATALOC && x->acc.offset == 56 && x->acc.size == 4 &&
	      !x->acc.is_signed);
	CHECK_STR(x ? x->type : NULL, "__data_loc char[]");
	x = tp_format_field(f, "blob");
	CHECK(x && x->acc.kind == LANG_ACC_RECORD);
	x = tp_format_field(f, "args");
	CHECK(x && x->acc.kind == LANG_ACC_ARRAY && x->acc.elem_size == 8 && x->acc.array_len == 6 &&
	      !x->acc.is_signed);
	x = tp_format_field(f, "mac");
	CHECK(x && x->acc.kind == LANG_ACC_ARRAY && x->acc.elem_size == 1 && x->acc.array_len == 6);
	x = tp_format_field(f, "ok");
	CHECK(x && x->acc.kind == LANG_ACC_INT && !x->acc.is_signed);
	x = tp_format_field(f, "ptr");
	CHECK(x && x->acc.kind == LANG_ACC_PTR && !x->acc.user);
	x = tp_format_field(f, "argv");	/* char **: a pointer, not a string */
	CHECK(x && x->acc.kind == LANG_ACC_PTR);
	free(f);
}

TEST(tp_format_hostile_input_is_bounded)
{
	static const char *const bad[] = {
		"",
		"format:\n",
		"\tfield:int;\toffset:8;\tsize:4;\tsigned:1;\n",			/* no name */
		"\tfield:int x\toffset:8;\tsize:4;\tsigned:1;\n",			/* no ';' */
		"\tfield:int x;\toffset:;\tsize:4;\tsigned:1;\n",			/* no number */
		"\tfield:int x;\toffset:8;\tsize:0;\tsigned:1;\n",			/* size 0 */
		"\tfield:int x;\toffset:4294967295;\tsize:8;\tsigned:1;\n",		/* past the record */
		"\tfield:int x;\toffset:18446744073709551615;\tsize:8;\tsigned:1;\n",
		"\tfield:int x;\toffset:65535;\tsize:4294967295;\tsigned:1;\n",
		"\tfield:int 9x;\toffset:8;\tsize:4;\tsigned:1;\n",			/* not a name */
		"\tfield: x;\toffset:8;\tsize:4;\tsigned:1;\n",			/* no type */
		"\tfield:int x[16;\toffset:8;\tsize:4;\tsigned:1;\n",
		"\tfield:int x;\toffset:8;\tsize:4",
		"print fmt: \tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n",
	};
	char *big, *p;
	struct tp_format *f;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		errno = 0;
		f = parse(bad[i], false);
		if (f)
			test_fail(__FILE__, __LINE__, "bad format %zu parsed into %zu fields", i,
				  f->nfields);
		else
			CHECK_INT(errno, EINVAL);
		free(f);
	}
	/* a name longer than any kept: left out, the rest kept */
	big = malloc(200000);
	if (!big)
		return;
	p = big + sprintf(big, "\tfield:int ");
	memset(p, 'a', 300);
	p += 300;
	p += sprintf(p, ";\toffset:8;\tsize:4;\tsigned:1;\n\tfield:int y;\toffset:12;\tsize:4;\tsigned:1;\n");
	f = tp_format_parse(big, (size_t)(p - big), false);
	CHECK(f && f->nfields == 1 && tp_format_field(f, "y"));
	free(f);
	/* thousands of fields: at most TP_MAX_FIELDS kept; duplicates once */
	p = big;
	for (int i = 0; i < 1000 && p - big < 190000; i++)
		p += sprintf(p, "\tfield:int f%d;\toffset:%d;\tsize:4;\tsigned:1;\n", i % 200, i * 4);
	f = tp_format_parse(big, (size_t)(p - big), false);
	CHECK(f && f->nfields == TP_MAX_FIELDS);
	CHECK(f && tp_format_field(f, "f0") && tp_format_field(f, "f0")->acc.offset == 0);
	free(f);
	/* a format past TP_MAX_FORMAT: only the first part read */
	memset(big, ' ', 199000);
	sprintf(big + 199000, "\tfield:int late;\toffset:8;\tsize:4;\tsigned:1;\n");
	f = tp_format_parse(big, strlen(big), false);
	CHECK(f == NULL);
	free(f);
	/* NUL bytes and control bytes inside a line */
	memcpy(big, "\tfield:int a\0b;\toffset:8;\tsize:4;\tsigned:1;\n\tfield:int c;\toffset:8;\tsize:4;\tsigned:1;\n", 87);
	f = tp_format_parse(big, 87, false);
	CHECK(f && tp_format_field(f, "c") && !tp_format_field(f, "a"));
	free(f);
	free(big);
}

/* ---- a fake tracefs events directory -------------------------------- */

static char events[PATH_MAX];

static void put_file(const char *rel, const char *text)
{
	lt_put_file(events, rel, text);
}

static const char *fake_events(void)
{
	if (events[0])
		return events;
	snprintf(events, sizeof(events), "/tmp/ss-test-events.XXXXXX");
	if (!mkdtemp(events)) {
		events[0] = 0;
		return NULL;
	}
	put_file("enable", "0\n");
	put_file("header_page", "x\n");
	put_file("syscalls/enable", "0\n");
	put_file("syscalls/sys_enter_openat/format", openat_format);
	put_file("syscalls/sys_enter_openat/id", "650\n");
	put_file("syscalls/sys_enter_openat2/format",
		 "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
		 "\tfield:const char * filename;\toffset:24;\tsize:8;\tsigned:0;\n");
	put_file("syscalls/sys_enter_read/format",
		 "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
		 "\tfield:unsigned int fd;\toffset:16;\tsize:8;\tsigned:0;\n");
	put_file("syscalls/sys_exit_openat/format",
		 "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
		 "\tfield:long ret;\toffset:16;\tsize:8;\tsigned:1;\n");
	put_file("sched/sched_switch/format", switch_format);
	put_file("sched/sched_wakeup/format",
		 "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n");
	put_file("kmem/kfree/format",
		 "\tfield:unsigned long call_site;\toffset:8;\tsize:8;\tsigned:0;\n");
	/* an event directory without a format: not an event */
	put_file("sched/broken/id", "1\n");
	return events;
}

/* The first attach point of src, parsed into *prog. */
static const struct lang_attach *attach_of(const char *src, struct lang_prog **prog)
{
	*prog = lang_prog_new("t", src, strlen(src));
	if (!*prog || lang_parse(*prog) || !(*prog)->probes) {
		test_fail(__FILE__, __LINE__, "%s does not parse", src);
		return NULL;
	}
	return &(*prog)->probes->attach[0];
}

/* "N: name name ..." of the points src's first attach point expands to,
 * or "error: FIRST". */
static const char *expand(const char *src, const char *btf_path)
{
	static char out[4096];
	struct lang_prog *prog;
	const struct lang_attach *at = attach_of(src, &prog);
	struct lang_probes_opts o = { .prog = prog, .events_dir = fake_events(),
				      .btf_path = btf_path };
	struct lang_probes *pr;
	struct lang_point **pts;
	size_t n;
	int err;

	if (!at) {
		lang_prog_free(prog);
		return "no attach point";
	}
	pr = lang_probes_new(&o);
	err = lang_probes_expand(pr, at, &pts, &n);
	if (err) {
		snprintf(out, sizeof(out), "error: %s", lang_error(prog, 0) ? lang_error(prog, 0) :
			 strerror(-err));
	} else {
		int len = snprintf(out, sizeof(out), "%zu:", n);

		for (size_t i = 0; i < n && len < (int)sizeof(out); i++)
			len += snprintf(out + len, sizeof(out) - len, " %s", pts[i]->name);
	}
	lang_probes_free(pr);
	lang_prog_free(prog);
	return out;
}

TEST(tp_globs_over_the_events_directory)
{
	if (!fake_events())
		SKIP("no temporary directory");
	CHECK_STR(expand("tracepoint:syscalls:sys_enter_openat { }", NULL),
		  "1: tracepoint:syscalls:sys_enter_openat");
	CHECK_STR(expand("tracepoint:syscalls:sys_enter_open* { }", NULL),
		  "2: tracepoint:syscalls:sys_enter_openat tracepoint:syscalls:sys_enter_openat2");
	CHECK_STR(expand("t:*:sched_* { }", NULL),
		  "2: tracepoint:sched:sched_switch tracepoint:sched:sched_wakeup");
	CHECK_STR(expand("tracepoint:sys*:sys_?xit_* { }", NULL),
		  "1: tracepoint:syscalls:sys_exit_openat");
	CHECK_STR(expand("tracepoint:*:* { }", NULL), "7: tracepoint:kmem:kfree "
		  "tracepoint:sched:sched_switch tracepoint:sched:sched_wakeup "
		  "tracepoint:syscalls:sys_enter_openat tracepoint:syscalls:sys_enter_openat2 "
		  "tracepoint:syscalls:sys_enter_read tracepoint:syscalls:sys_exit_openat");
	CHECK_STR(expand("tracepoint:sched:broken { }", NULL),
		  "error: t:1:1: tracepoint:sched:broken: no such tracepoint in this kernel "
		  "(stackscope -l 'tracepoint:sched:*' lists its category)");
	CHECK_STR(expand("tracepoint:nosuch:* { }", NULL),
		  "error: t:1:1: tracepoint:nosuch:*: matches no tracepoint of this kernel");
	CHECK_STR(expand("tracepoint:syscalls:enable { }", NULL),
		  "error: t:1:1: tracepoint:syscalls:enable: no such tracepoint in this kernel "
		  "(stackscope -l 'tracepoint:syscalls:*' lists its category)");
	CHECK_STR(expand("  tracepoint:\"..\":syscalls { }", NULL),
		  "error: t:1:3: tracepoint:\"..\":syscalls: not a tracepoint name");
}

/* "ok", or the first error of src checked with the providers' resolver. */
static const char *check_with(const char *src, const char *btf_path)
{
	static char out[1024];
	struct lang_prog *prog = lang_prog_new("t", src, strlen(src));
	struct lang_probes_opts o = { .prog = prog, .events_dir = fake_events(),
				      .btf_path = btf_path };
	struct lang_probes *pr = lang_probes_new(&o);
	struct lang_check_opts co = { .resolve_field = lang_probes_resolve_field, .ctx = pr };

	if (lang_parse(prog) || lang_check(prog, &co))
		snprintf(out, sizeof(out), "error: %s", lang_error(prog, 0));
	else
		snprintf(out, sizeof(out), "ok");
	lang_probes_free(pr);
	lang_prog_free(prog);
	return out;
}

/* The dump of src's first statement's folded AST, checked with the resolver. */
static const char *typed(const char *src)
{
	static char out[4096];
	struct lang_probes_opts o = { .events_dir = fake_events() };
	struct lang_probes *pr = lang_probes_new(&o);
	struct lang_check_opts co = { .resolve_field = lang_probes_resolve_field, .ctx = pr };
	const char *r = lt_run(src, true, &co);
	const char *body = strstr(r, "body\n");

	snprintf(out, sizeof(out), "%s", body ? body + 5 : r);
	lang_probes_free(pr);
	return out;
}

TEST(tp_args_typed_at_check_time)
{
	if (!fake_events())
		SKIP("no temporary directory");
	CHECK_STR(check_with("tracepoint:syscalls:sys_enter_openat { printf(\"%s %d\\n\", "
			     "str(args.filename), args->dfd); }", NULL), "ok");
	CHECK_STR(check_with("tracepoint:syscalls:sys_enter_openat { @[args.nosuch] = count(); }",
			     NULL),
		  "error: t:1:46: tracepoint:syscalls:sys_enter_openat has no argument 'nosuch'");
	/* a glob: the field must be at every match; the first without it is named */
	CHECK_STR(check_with("tracepoint:syscalls:sys_enter_open* { @[str(args.filename)] = count(); }",
			     NULL), "ok");
	CHECK_STR(check_with("tracepoint:syscalls:sys_enter_open* { @[args.dfd] = count(); }", NULL),
		  "error: t:1:1: tracepoint:syscalls:sys_enter_openat2 has no argument 'dfd' "
		  "(tracepoint:syscalls:sys_enter_open* matches it)");
	CHECK_STR(check_with("tracepoint:nosuch:event { @[args.x] = count(); }", NULL),
		  "error: t:1:1: tracepoint:nosuch:event: no such tracepoint in this kernel "
		  "(stackscope -l 'tracepoint:nosuch:*' lists its category)");
	/* common_* fields too */
	CHECK_STR(check_with("tracepoint:syscalls:sys_enter_openat { @[args.common_pid] = count(); }",
			     NULL), "ok");
	/* strings are strings, pointers and numbers are integers */
	CHECK(strstr(typed("tracepoint:sched:sched_switch { $c = args.prev_comm; }"),
		     "field . prev_comm :: string"));
	CHECK(strstr(typed("tracepoint:sched:sched_switch { $c = args->name; }"),
		     "field -> name :: string"));
	CHECK(strstr(typed("tracepoint:sched:sched_switch { $c = args.prev_pid + 1; }"),
		     "field . prev_pid :: int"));
	CHECK(strstr(typed("tracepoint:syscalls:sys_enter_openat { $p = args.filename; }"),
		     "field . filename :: int"));
	CHECK(strstr(typed("tracepoint:sched:sched_switch { $x = args.args[1]; }"),
		     "field . args :: extern"));
	/* a string field used as a number is the checker's error */
	CHECK(!strncmp(check_with("tracepoint:sched:sched_switch { $x = args.prev_comm + 1; }",
				  NULL), "error: t:1:", 11));
}

TEST(tp_list_like_bpftrace)
{
	struct lang_probes_opts o = { .events_dir = fake_events() };
	char *mem = NULL;
	size_t len = 0;
	FILE *f;
	int n;

	if (!fake_events())
		SKIP("no temporary directory");
	f = open_memstream(&mem, &len);
	n = lang_list_probes(f, "tracepoint:syscalls:sys_enter_openat", true, &o);
	fclose(f);
	CHECK_INT(n, 1);
	CHECK_STR(mem, "tracepoint:syscalls:sys_enter_openat\n"
		  "    int __syscall_nr\n"
		  "    int dfd\n"
		  "    const char * filename\n"
		  "    int flags\n"
		  "    umode_t mode\n");
	free(mem);
	f = open_memstream(&mem, &len);
	n = lang_list_probes(f, "t:sched:*", false, &o);
	fclose(f);
	CHECK_INT(n, 2);
	CHECK_STR(mem, "tracepoint:sched:sched_switch\ntracepoint:sched:sched_wakeup\n");
	free(mem);
	/* no provider named: any provider's names, "*:PATTERN" */
	f = open_memstream(&mem, &len);
	n = lang_list_probes(f, "sys_exit_*", false, &o);
	fclose(f);
	CHECK_INT(n, 1);
	CHECK_STR(mem, "tracepoint:syscalls:sys_exit_openat\n");
	free(mem);
	f = open_memstream(&mem, &len);
	n = lang_list_probes(f, "tracepoint:sched:sched_switch", true, &o);
	fclose(f);
	CHECK(mem && strstr(mem, "    char prev_comm[16]\n    pid_t prev_pid\n"));
	CHECK(mem && strstr(mem, "    __data_loc char[] name\n"));
	CHECK(mem && !strstr(mem, "common_"));
	free(mem);
	f = open_memstream(&mem, &len);
	n = lang_list_probes(f, "software:c*", false, &o);
	fclose(f);
	CHECK_STR(mem, "software:cpu-clock:\nsoftware:context-switches:\nsoftware:cpu-migrations:\n");
	free(mem);
	f = open_memstream(&mem, &len);
	n = lang_list_probes(f, "nosuchtype:*x", false, &o);
	fclose(f);
	free(mem);
	CHECK(n == -ENOENT || n >= 0);
}

TEST(list_patterns_spelled_out)
{
	char out[256];
	int p;

	CHECK_INT(probes_list_pattern("t:sched:*", out, sizeof(out), &p), 0);
	CHECK_STR(out, "tracepoint:sched:*");
	CHECK_INT(p, LANG_P_TRACEPOINT);
	CHECK_INT(probes_list_pattern("rt:sched_*", out, sizeof(out), &p), 0);
	CHECK_STR(out, "rawtracepoint:sched_*");
	CHECK_INT(probes_list_pattern("kfunc:vfs_*", out, sizeof(out), &p), 0);
	CHECK_STR(out, "fentry:vfs_*");
	CHECK_INT(probes_list_pattern("sched_sw*", out, sizeof(out), &p), 0);
	CHECK_STR(out, "*:sched_sw*");
	CHECK_INT(p, -1);
	CHECK_INT(probes_list_pattern(NULL, out, sizeof(out), &p), 0);
	CHECK_STR(out, "*");
	CHECK_INT(probes_list_pattern("", out, sizeof(out), &p), 0);
	CHECK_STR(out, "*");
	CHECK_INT(probes_list_pattern("*point:sched:*", out, sizeof(out), &p), 0);
	CHECK_STR(out, "*point:sched:*");
	CHECK_INT(probes_list_pattern("bogus:x", out, sizeof(out), &p), -ENOENT);
	CHECK_INT(probes_list_pattern("t:abcdefghijklmnopqrstuvwxyz", out, 10, &p), -ENAMETOOLONG);
}

/* ---- rawtracepoint arguments from a BTF file made here --------------- */

static char btf_file[PATH_MAX];

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

/* the fake events directory and BTF file go when the tests end */
__attribute__((destructor)) static void remove_fixtures(void)
{
	if (events[0])
		nftw(events, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	if (btf_file[0])
		unlink(btf_file);
}

/* Events: foo (its own __bpf_trace_foo names the arguments), bar_one (named
 * by its class __bpf_trace_bar_tpl; a decoy class with the same types and
 * a shorter common prefix is not chosen), baz (no function: arg0, arg1). */
static const char *fake_btf(void)
{
	struct btf *b;
	const void *raw;
	__u32 size;
	int t_int, t_uint, t_char, t_bool, t_long, t_vp, t_cc, t_ccp, t_task, t_taskp, p, fd;
	FILE *f;

	if (btf_file[0])
		return btf_file;
	b = btf__new_empty();
	if (!b)
		return NULL;
	t_int = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	t_uint = btf__add_int(b, "unsigned int", 4, 0);
	t_char = btf__add_int(b, "char", 1, BTF_INT_SIGNED);
	t_bool = btf__add_int(b, "_Bool", 1, BTF_INT_BOOL);
	t_long = btf__add_int(b, "long", 8, BTF_INT_SIGNED);
	t_vp = btf__add_ptr(b, 0);
	t_cc = btf__add_const(b, t_char);
	t_ccp = btf__add_ptr(b, t_cc);
	t_task = btf__add_struct(b, "task", 8);
	btf__add_field(b, "pid", t_int, 0, 0);
	t_taskp = btf__add_ptr(b, t_task);
	/* foo(void *, int, const char *, struct task *, long) */
	p = btf__add_func_proto(b, 0);
	btf__add_func_param(b, NULL, t_vp);
	btf__add_func_param(b, NULL, t_int);
	btf__add_func_param(b, NULL, t_ccp);
	btf__add_func_param(b, NULL, t_taskp);
	btf__add_func_param(b, NULL, t_long);
	btf__add_typedef(b, "btf_trace_foo", btf__add_ptr(b, p));
	p = btf__add_func_proto(b, 0);
	btf__add_func_param(b, "__data", t_vp);
	btf__add_func_param(b, "count", t_int);
	btf__add_func_param(b, "name", t_ccp);
	btf__add_func_param(b, "task", t_taskp);
	btf__add_func_param(b, "delta", t_long);
	btf__add_func(b, "__bpf_trace_foo", BTF_FUNC_STATIC, p);
	/* bar_one(void *, unsigned int, bool) of class bar_tpl */
	p = btf__add_func_proto(b, 0);
	btf__add_func_param(b, NULL, t_vp);
	btf__add_func_param(b, NULL, t_uint);
	btf__add_func_param(b, NULL, t_bool);
	btf__add_typedef(b, "btf_trace_bar_one", btf__add_ptr(b, p));
	p = btf__add_func_proto(b, 0);
	btf__add_func_param(b, "__data", t_vp);
	btf__add_func_param(b, "x", t_uint);
	btf__add_func_param(b, "y", t_bool);
	btf__add_func(b, "__bpf_trace_zzz", BTF_FUNC_STATIC, p);
	p = btf__add_func_proto(b, 0);
	btf__add_func_param(b, "__data", t_vp);
	btf__add_func_param(b, "len", t_uint);
	btf__add_func_param(b, "on", t_bool);
	btf__add_func(b, "__bpf_trace_bar_tpl", BTF_FUNC_STATIC, p);
	/* baz(void *, int, int): no function */
	p = btf__add_func_proto(b, 0);
	btf__add_func_param(b, NULL, t_vp);
	btf__add_func_param(b, NULL, t_int);
	btf__add_func_param(b, NULL, t_int);
	btf__add_func_param(b, NULL, t_int);
	btf__add_typedef(b, "btf_trace_baz", btf__add_ptr(b, p));
	raw = btf__raw_data(b, &size);
	snprintf(btf_file, sizeof(btf_file), "/tmp/ss-test-btf.XXXXXX");
	fd = raw ? mkstemp(btf_file) : -1;
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f || fwrite(raw, 1, size, f) != size) {
		btf_file[0] = 0;
		if (f)
			fclose(f);
		btf__free(b);
		return NULL;
	}
	fclose(f);
	btf__free(b);
	return btf_file;
}

TEST(rt_args_named_and_typed_from_btf)
{
	const char *path = fake_btf();
	struct btf *btf;
	struct rt_event ev;

	if (!path)
		SKIP("no temporary file");
	btf = btf__parse(path, NULL);
	CHECK(btf != NULL);
	if (!btf)
		return;
	CHECK_INT(rt_event_args(btf, "foo", &ev), 0);
	CHECK_INT(ev.nargs, 4);
	CHECK_STR(ev.args[0].name, "count");
	CHECK_STR(ev.args[0].ctype, "int");
	CHECK(ev.args[0].acc.kind == LANG_ACC_INT && ev.args[0].acc.offset == 0 &&
	      ev.args[0].acc.size == 4 && ev.args[0].acc.is_signed &&
	      ev.args[0].acc.base == LANG_BASE_CTX);
	CHECK_STR(ev.args[1].name, "name");
	CHECK_STR(ev.args[1].ctype, "const char *");
	CHECK(ev.args[1].acc.kind == LANG_ACC_STR_PTR && ev.args[1].acc.offset == 8 &&
	      ev.args[1].acc.size == 8 && !ev.args[1].acc.user);
	CHECK_STR(ev.args[2].name, "task");
	CHECK_STR(ev.args[2].ctype, "struct task *");
	CHECK(ev.args[2].acc.kind == LANG_ACC_PTR && ev.args[2].acc.offset == 16 &&
	      ev.args[2].acc.btf_id != 0);
	CHECK_STR(ev.args[3].name, "delta");
	CHECK(ev.args[3].acc.kind == LANG_ACC_INT && ev.args[3].acc.size == 8 &&
	      ev.args[3].acc.offset == 24 && ev.args[3].acc.is_signed);
	/* a class's names, the best-matching class */
	CHECK_INT(rt_event_args(btf, "bar_one", &ev), 0);
	CHECK_INT(ev.nargs, 2);
	CHECK_STR(ev.args[0].name, "len");
	CHECK(!ev.args[0].acc.is_signed && ev.args[0].acc.size == 4);
	CHECK_STR(ev.args[1].name, "on");
	CHECK(!ev.args[1].acc.is_signed && ev.args[1].acc.size == 1);
	/* no names: by position */
	CHECK_INT(rt_event_args(btf, "baz", &ev), 0);
	CHECK_INT(ev.nargs, 3);
	CHECK_STR(ev.args[0].name, "arg0");
	CHECK_STR(ev.args[2].name, "arg2");
	CHECK_INT(rt_event_args(btf, "nosuch", &ev), -ENOENT);
	CHECK_INT(rt_event_args(btf, "__bpf_trace_foo", &ev), -ENOENT);
	btf__free(btf);
}

TEST(rt_globs_and_fields_over_btf)
{
	const char *path = fake_btf();

	if (!path)
		SKIP("no temporary file");
	CHECK_STR(expand("rawtracepoint:foo { }", path), "1: rawtracepoint:foo");
	CHECK_STR(expand("rt:ba* { }", path), "2: rawtracepoint:bar_one rawtracepoint:baz");
	CHECK_STR(expand("rawtracepoint:nosuch { }", path),
		  "error: t:1:1: rawtracepoint:nosuch: no such event in BTF");
	CHECK_STR(expand("rawtracepoint:q* { }", path),
		  "error: t:1:1: rawtracepoint:q*: matches no event of this kernel");
	CHECK_STR(expand("rawtracepoint:mod:foo { }", path),
		  "error: t:1:1: rawtracepoint:mod:foo: events of module mod are not supported "
		  "(only the kernel's own: rawtracepoint:EVENT)");
	CHECK_STR(expand("rawtracepoint:foo { }", "/nonexistent/btf") + 0,
		  "error: t:1:1: rawtracepoint:foo: the kernel's BTF cannot be read (No such file "
		  "or directory): rawtracepoint needs it to name the arguments; try tracepoint:...");
	CHECK_STR(check_with("rawtracepoint:foo { @[str(args.name)] = sum(args.count); }", path),
		  "ok");
	CHECK_STR(check_with("rawtracepoint:foo { @ = args.len; }", path),
		  "error: t:1:29: rawtracepoint:foo has no argument 'len'");
	CHECK_STR(check_with("rawtracepoint:ba* { @ = args.arg0; }", path),
		  "error: t:1:1: rawtracepoint:bar_one has no argument 'arg0' "
		  "(rawtracepoint:ba* matches it)");
}

TEST(rt_list_verbose)
{
	const char *path = fake_btf();
	struct lang_probes_opts o = { .btf_path = path, .events_dir = fake_events() };
	char *mem = NULL;
	size_t len = 0;
	FILE *f;

	if (!path)
		SKIP("no temporary file");
	f = open_memstream(&mem, &len);
	CHECK_INT(lang_list_probes(f, "rawtracepoint:*", true, &o), 3);
	fclose(f);
	CHECK_STR(mem, "rawtracepoint:bar_one\n"
		  "    unsigned int len\n"
		  "    _Bool on\n"
		  "rawtracepoint:baz\n"
		  "    int arg0\n"
		  "    int arg1\n"
		  "    int arg2\n"
		  "rawtracepoint:foo\n"
		  "    int count\n"
		  "    const char * name\n"
		  "    struct task * task\n"
		  "    long delta\n");
	free(mem);
}

/* ---- perf events ----------------------------------------------------- */

TEST(software_and_hardware_event_names)
{
	const struct perf_event_name *e;

	e = perf_event_find(false, "cs");
	CHECK(e && e->config == PERF_COUNT_SW_CONTEXT_SWITCHES && e->period == 1000 &&
	      !strcmp(e->name, "context-switches"));
	e = perf_event_find(false, "cpu");
	CHECK(e && e->config == PERF_COUNT_SW_CPU_CLOCK && e->period == 1000000);
	e = perf_event_find(false, "faults");
	CHECK(e && e->config == PERF_COUNT_SW_PAGE_FAULTS && e->period == 100);
	e = perf_event_find(false, "major-faults");
	CHECK(e && e->config == PERF_COUNT_SW_PAGE_FAULTS_MAJ && e->period == 1);
	e = perf_event_find(false, "bpf-output");
	CHECK(e && e->config == PERF_COUNT_SW_BPF_OUTPUT);
	CHECK(perf_event_find(false, "cycles") == NULL);
	CHECK(perf_event_find(false, "") == NULL);
	e = perf_event_find(true, "cycles");
	CHECK(e && e->type == PERF_TYPE_HARDWARE && e->config == PERF_COUNT_HW_CPU_CYCLES);
	e = perf_event_find(true, "branches");
	CHECK(e && e->config == PERF_COUNT_HW_BRANCH_INSTRUCTIONS && e->period == 100000);
	CHECK(perf_event_find(true, "cpu-clock") == NULL);
	/* every name the parser accepts has an entry here */
	static const char *const sw[] = {
		"cpu-clock", "cpu", "task-clock", "page-faults", "faults", "context-switches", "cs",
		"cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
		"emulation-faults", "dummy", "bpf-output",
	};
	for (size_t i = 0; i < ARRAY_SIZE(sw); i++)
		CHECK(perf_event_find(false, sw[i]) != NULL);
}

/* "type config period freq one_cpu" of src's point */
static const char *perf_point(const char *src)
{
	static char out[256];
	struct lang_prog *prog;
	const struct lang_attach *at = attach_of(src, &prog);
	struct lang_probes_opts o = { .prog = prog };
	struct lang_probes *pr = lang_probes_new(&o);
	struct lang_point **pts;
	size_t n;

	if (at && !lang_probes_expand(pr, at, &pts, &n) && n == 1)
		snprintf(out, sizeof(out), "%s %u %llu %llu %s%s prog=%d", pts[0]->name,
			 pts[0]->perf_type, (unsigned long long)pts[0]->perf_config,
			 (unsigned long long)pts[0]->perf_period, pts[0]->perf_freq ? "freq" : "period",
			 pts[0]->perf_one_cpu ? " one-cpu" : "", pts[0]->prog_type);
	else
		snprintf(out, sizeof(out), "error: %s", lang_error(prog, 0));
	lang_probes_free(pr);
	lang_prog_free(prog);
	return out;
}

TEST(perf_event_points)
{
	CHECK_STR(perf_point("profile:hz:99 { }"), "profile:hz:99 1 0 99 freq prog=7");
	CHECK_STR(perf_point("p:ms:10 { }"), "profile:ms:10 1 0 10000000 period prog=7");
	CHECK_STR(perf_point("profile:us:250 { }"), "profile:us:250 1 0 250000 period prog=7");
	CHECK_STR(perf_point("interval:s:1 { }"), "interval:s:1 1 0 1000000000 period one-cpu prog=7");
	CHECK_STR(perf_point("i:ms:100 { }"), "interval:ms:100 1 0 100000000 period one-cpu prog=7");
	CHECK_STR(perf_point("interval:hz:4 { }"), "interval:hz:4 1 0 250000000 period one-cpu prog=7");
	CHECK_STR(perf_point("software:cs { }"), "software:context-switches:1000 1 3 1000 period prog=7");
	CHECK_STR(perf_point("s:faults:10 { }"), "software:page-faults:10 1 2 10 period prog=7");
	CHECK_STR(perf_point("software:cpu-clock { }"), "software:cpu-clock:1000000 1 0 1000000 period prog=7");
	CHECK(!strncmp(perf_point("profile:hz:99999999999 { }"), "error: t:1:1: profile:hz:99999999999: ", 38));
	CHECK_STR(perf_point("interval:s:99999999999999 { }"),
		  "error: t:1:1: interval:s:99999999999999: the period is too long");
}

/* ---- uprobes ------------------------------------------------------- */

__attribute__((noinline)) int probes_test_target(int x)
{
	__asm__ volatile("" ::: "memory");
	return x * 2;
}

__attribute__((noinline)) int probes_test_target2(int x)
{
	__asm__ volatile("" ::: "memory");
	return x * 3;
}

TEST(uprobe_points_on_this_binary)
{
	char exe[PATH_MAX], src[2 * PATH_MAX + 200], want[2 * PATH_MAX + 200];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *r;

	if (n <= 0)
		SKIP("no /proc/self/exe");
	exe[n] = 0;
	snprintf(src, sizeof(src), "uprobe:%s:probes_test_target { }", exe);
	snprintf(want, sizeof(want), "1: uprobe:%s:probes_test_target", exe);
	CHECK_STR(expand(src, NULL), want);
	snprintf(src, sizeof(src), "uretprobe:%s:probes_test_targe* { }", exe);
	snprintf(want, sizeof(want), "2: uretprobe:%s:probes_test_target uretprobe:%s:probes_test_target2",
		 exe, exe);
	r = expand(src, NULL);
	/* in address order: either may come first */
	CHECK(!strncmp(r, "2: ", 3) && strstr(r, ":probes_test_target2") &&
	      (strstr(r, ":probes_test_target ") || strstr(r, ":probes_test_target\0")));
	CHECK(strstr(r, want + 3) || strstr(r, "probes_test_target2 uretprobe:"));
	snprintf(src, sizeof(src), "uprobe:%s:probes_test_target+4 { }", exe);
	r = expand(src, NULL);
	CHECK(strstr(r, "offset 4 into probes_test_target may not be an instruction boundary") &&
	      strstr(r, "--unsafe"));
	snprintf(src, sizeof(src), "uprobe:%s:no_such_function_here { }", exe);
	snprintf(want, sizeof(want), "error: t:1:1: uprobe:%s:no_such_function_here: no function "
		 "no_such_function_here in %s", exe, exe);
	CHECK_STR(expand(src, NULL), want);
	CHECK_STR(expand("uprobe:/nonexistent/x:f { }", NULL),
		  "error: t:1:1: uprobe:/nonexistent/x:f: /nonexistent/x: No such file or directory");
	CHECK_STR(expand("uprobe:libno_such_library_here:f { }", NULL),
		  "error: t:1:1: uprobe:libno_such_library_here:f: libno_such_library_here: no such "
		  "library or program");
	/* the launched command by its file name */
	{
		struct lang_prog *prog;
		const struct lang_attach *at = attach_of("uprobe:unit-tests:probes_test_target { }",
							 &prog);
		struct lang_probes *pr = lang_probes_new(&(struct lang_probes_opts){
			.prog = prog, .cmd_path = exe });
		struct lang_point **pts;
		size_t np = 0;

		CHECK(at && !lang_probes_expand(pr, at, &pts, &np) && np == 1 &&
		      !strcmp(pts[0]->target, exe) && !strcmp(pts[0]->func, "probes_test_target"));
		lang_probes_free(pr);
		lang_prog_free(prog);
	}
	/* a library by name, as bpftrace finds it */
	r = expand("uprobe:libc:malloc { }", NULL);
	CHECK(!strncmp(r, "1: uprobe:/", 11) && strstr(r, "/libc.so.6:malloc"));
	/* an alias elfsyms names otherwise (getpid is __getpid's) */
	r = expand("uprobe:libc:getpid { }", NULL);
	CHECK(!strncmp(r, "1: uprobe:/", 11) && strstr(r, "/libc.so.6:getpid"));
	r = expand("ur:c:free { }", NULL);
	CHECK(!strncmp(r, "1: uretprobe:/", 14) && strstr(r, "/libc.so.6:free"));
}

TEST(uprobe_args_retval_in_pt_regs)
{
	char exe[PATH_MAX], src[2 * PATH_MAX + 200];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	static const unsigned want[] = { 112, 104, 96, 88, 72, 64 };	/* di si dx cx r8 r9 */
	struct lang_prog *prog;
	const struct lang_attach *at;
	struct lang_probes *pr;
	struct lang_point **pts;
	struct lang_field_access acc;
	size_t np;

	if (n <= 0)
		SKIP("no /proc/self/exe");
	exe[n] = 0;
	snprintf(src, sizeof(src), "uprobe:%s:probes_test_target, uretprobe:%s:probes_test_target { }",
		 exe, exe);
	at = attach_of(src, &prog);
	pr = lang_probes_new(&(struct lang_probes_opts){ .prog = prog });
	if (at && !lang_probes_expand(pr, &at[0], &pts, &np) && np == 1) {
		CHECK_INT(pts[0]->prog_type, BPF_PROG_TYPE_KPROBE);
		CHECK(pts[0]->offset != 0 && pts[0]->addr == (uint64_t)pts[0]->addr);
		for (unsigned i = 0; i < 6; i++) {
			CHECK_INT(lang_probes_argn(pr, pts[0], i, &acc), 0);
			CHECK(acc.base == LANG_BASE_REGS && acc.offset == want[i] && acc.size == 8 &&
			      acc.user && acc.kind == LANG_ACC_INT);
		}
		CHECK_INT(lang_probes_argn(pr, pts[0], 6, &acc), -ENOENT);
		CHECK_INT(lang_probes_retval(pr, pts[0], &acc), -ENOENT);
	} else {
		test_fail(__FILE__, __LINE__, "uprobe on this binary does not expand");
	}
	if (at && !lang_probes_expand(pr, &at[1], &pts, &np) && np == 1) {
		CHECK_INT(lang_probes_retval(pr, pts[0], &acc), 0);
		/* typed by the DWARF of this (-g) binary: an int in eax */
		CHECK(acc.base == LANG_BASE_REGS && acc.offset == 80 && acc.size == 4 &&
		      acc.is_signed && acc.kind == LANG_ACC_INT);
		CHECK_STR(acc.ctype, "int");
	} else {
		test_fail(__FILE__, __LINE__, "uretprobe on this binary does not expand");
	}
	lang_probes_free(pr);
	lang_prog_free(prog);
}

TEST(uprobe_find_lib_by_name)
{
	char out[PATH_MAX];

	CHECK_INT(uprobe_find_lib("libc", 0, out, sizeof(out)), 0);
	CHECK(strstr(out, "/libc.so.6") != NULL);
	CHECK_INT(uprobe_find_lib("libc.so.6", 0, out, sizeof(out)), 0);
	CHECK(strstr(out, "/libc.so.6") != NULL);
	/* this process's own mappings */
	CHECK_INT(uprobe_find_lib("libc", getpid(), out, sizeof(out)), 0);
	CHECK(strstr(out, "libc.so.6") != NULL);
	CHECK_INT(uprobe_find_lib("libnosuchlib", getpid(), out, sizeof(out)), -ENOENT);
	CHECK_INT(uprobe_find_lib("", 0, out, sizeof(out)), -ENOENT);
	/* a program from PATH */
	CHECK_INT(uprobe_find_lib("sh", 0, out, sizeof(out)), 0);
	CHECK(out[0] == '/');
}

/* ---- refusals --------------------------------------------------------- */

TEST(kernel_probes_refused_with_an_alternative)
{
	const char *r;
	bool have_kprobes = access("/sys/bus/event_source/devices/kprobe/type", F_OK) == 0;

	if (!fake_events())
		SKIP("no temporary directory");
	r = expand("kprobe:vfs_read { }", NULL);
	if (!have_kprobes)
		CHECK_STR(r, "error: t:1:1: kprobe:vfs_read: kprobes are not built into this kernel; "
			  "try tracepoint:syscalls:sys_enter_read or rawtracepoint:sys_enter");
	else
		CHECK(strstr(r, "try tracepoint:syscalls:sys_enter_read or rawtracepoint:sys_enter"));
	r = expand("kretprobe:do_sys_openat { }", NULL);
	CHECK(strstr(r, "try tracepoint:syscalls:sys_exit_openat or rawtracepoint:sys_exit") != NULL);
	r = expand("kprobe:kfree { }", NULL);
	CHECK(strstr(r, "; try tracepoint:kmem:kfree") != NULL);
	r = expand("kprobe:no_such_fn_here { }", NULL);
	CHECK(strstr(r, "try a tracepoint or rawtracepoint near it") != NULL);
	CHECK(strstr(expand("usdt:/bin/sh:probe { }", NULL),
		     "error: t:1:1: usdt:/bin/sh:probe: no probe *:probe in /bin/sh") != NULL);
}

/* ---- uprobe args from DWARF (the graph workload) -------------------- */

static const char *graph_wl(const char *name)
{
	static char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s/../tests/workloads/graph/%s", test_fixtures(), name);
	return buf;
}

TEST(uprobe_args_typed_from_dwarf)
{
	char src[PATH_MAX + 200], want[PATH_MAX + 300];
	const char *wl = graph_wl("graph_wl");
	struct lang_prog *prog;
	const struct lang_attach *at;
	struct lang_probes *pr;
	struct lang_point **pts;
	struct lang_field_access acc;
	const char *r;
	size_t n;

	if (access(wl, R_OK))
		SKIP("no %s (make workloads)", wl);
	snprintf(src, sizeof(src), "uprobe:%s:widths { }", wl);
	at = attach_of(src, &prog);
	pr = lang_probes_new(&(struct lang_probes_opts){ .prog = prog });
	if (at && !lang_probes_expand(pr, at, &pts, &n) && n == 1) {
		/* widths(signed char a, short b, long c, unsigned char d, unsigned short e,
		 * unsigned int f): rdi rsi rdx rcx r8 r9, each at its width */
		static const struct { const char *name; unsigned off, size; bool sgn; } w[] = {
			{ "a", 112, 1, true }, { "b", 104, 2, true }, { "c", 96, 8, true },
			{ "d", 88, 1, false }, { "e", 72, 2, false }, { "f", 64, 4, false },
		};
		for (size_t i = 0; i < ARRAY_SIZE(w); i++) {
			CHECK_INT(lang_probes_field(pr, pts[0], w[i].name, &acc), 0);
			if (acc.kind != LANG_ACC_INT || acc.base != LANG_BASE_REGS ||
			    acc.offset != w[i].off || acc.size != w[i].size || acc.is_signed != w[i].sgn)
				test_fail(__FILE__, __LINE__, "widths %s: kind %d base %d off %u size %u "
					  "signed %d", w[i].name, acc.kind, acc.base, acc.offset, acc.size,
					  acc.is_signed);
		}
		CHECK_INT(lang_probes_field(pr, pts[0], "nosuch", &acc), -ENOENT);
	} else {
		test_fail(__FILE__, __LINE__, "%s does not expand", src);
	}
	lang_probes_free(pr);
	lang_prog_free(prog);
	/* checked: strings are pointers str() reads, a double cannot be read */
	snprintf(src, sizeof(src), "uprobe:%s:shout { printf(\"%%s %%d\\n\", str(args.msg), args.c); }",
		 wl);
	CHECK_STR(check_with(src, NULL), "ok");
	snprintf(src, sizeof(src), "uprobe:%s:average { @ = args.a; }", wl);
	snprintf(want, sizeof(want), "error: t:1:1: uprobe:%s:average: args.a cannot be read: a "
		 "floating-point value (in an SSE register)", wl);
	CHECK_STR(check_with(src, NULL), want);
	snprintf(src, sizeof(src), "uprobe:%s:sum8 { @ = args.g; }", wl);
	CHECK(strstr(check_with(src, NULL), "args.g cannot be read: ") != NULL);
	snprintf(src, sizeof(src), "uprobe:%s:scale { @ = args.nosuch; }", wl);
	snprintf(want, sizeof(want), "error: t:1:%zu: uprobe:%s:scale has no argument 'nosuch'",
		 strlen(wl) + 25, wl);
	CHECK_STR(check_with(src, NULL), want);
	snprintf(src, sizeof(src), "uretprobe:%s:scale { @ = args.v; }", wl);
	CHECK(strstr(check_with(src, NULL), "a uretprobe has no args") != NULL);
	/* no DWARF: said, with the way out */
	snprintf(src, sizeof(src), "uprobe:%s:scale { @ = args.v; }", graph_wl("graph_wl.nodebug"));
	r = check_with(src, NULL);
	if (!strstr(r, "graph_wl.nodebug:scale: ") || !strstr(r, "graph_wl.nodebug has no DWARF to "
							"name the arguments (build it with -g): "
							"use arg0..arg5"))
		test_fail(__FILE__, __LINE__, "without DWARF: %s", r);
}

TEST(uprobe_list_verbose_from_dwarf)
{
	const char *wl = graph_wl("graph_wl");
	char pat[PATH_MAX + 100], want[PATH_MAX + 300];
	char *mem = NULL;
	size_t len = 0;
	FILE *f;

	if (access(wl, R_OK))
		SKIP("no %s (make workloads)", wl);
	snprintf(pat, sizeof(pat), "uprobe:%s:scale", wl);
	f = open_memstream(&mem, &len);
	CHECK_INT(lang_list_probes(f, pat, true, &(struct lang_probes_opts){ 0 }), 1);
	fclose(f);
	snprintf(want, sizeof(want), "uprobe:%s:scale\n    int v\n    int factor\n", wl);
	CHECK_STR(mem, want);
	free(mem);
}
