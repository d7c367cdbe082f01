/* The syscall table: numbers and names, argument descriptions read from a
 * tracefs-like directory, and -e selection. */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "test.h"
#include "syscall/table.h"

static void write_format(const char *dir, const char *event, const char *fields)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, event);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/%s/format", dir, event);
	f = fopen(path, "w");
	if (!f)
		return;
	fprintf(f, "name: %s\nID: 1\nformat:\n"
		   "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		   "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		   "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n%s\n"
		   "print fmt: \"...\"\n", event, fields);
	fclose(f);
}

static struct sc_table *fake_table(char *dir)
{
	if (!mkdtemp(dir))
		return NULL;
	write_format(dir, "sys_enter_openat",
		     "\tfield:int dfd;\toffset:16;\tsize:8;\tsigned:0;\n"
		     "\tfield:const char * filename;\toffset:24;\tsize:8;\tsigned:0;\n"
		     "\tfield:int flags;\toffset:32;\tsize:8;\tsigned:0;\n"
		     "\tfield:umode_t mode;\toffset:40;\tsize:8;\tsigned:0;");
	write_format(dir, "sys_enter_newstat",
		     "\tfield:const char * filename;\toffset:16;\tsize:8;\tsigned:0;\n"
		     "\tfield:struct stat * statbuf;\toffset:24;\tsize:8;\tsigned:0;");
	write_format(dir, "sys_enter_getpid", "");
	write_format(dir, "sys_enter_no_such_call", "\tfield:int x;\toffset:16;\tsize:8;\tsigned:0;");
	return sc_table_load_dir(dir);
}

static void remove_dir(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		return;
}

TEST(systable_reads_kernel_descriptions)
{
	char dir[] = "/tmp/stackscope-unit.XXXXXX";
	struct sc_table *t = fake_table(dir);
	const struct sc_info *si;

	CHECK(t != NULL);
	if (!t)
		return;
	CHECK(sc_table_has_formats(t));
	/* nothing read before a syscall is asked for */
	CHECK_INT(sc_table_formats_read(t), 0);
	CHECK_STR(sc_table_name(t, 257), "openat");
	CHECK_INT(sc_table_formats_read(t), 0);
	si = sc_table_get(t, 257);
	CHECK_INT(sc_table_formats_read(t), 1);
	CHECK_STR(si->name, "openat");
	CHECK_INT(si->nargs, 4);
	CHECK_STR(si->args[0].name, "dfd");
	CHECK_STR(si->args[0].type, "int");
	CHECK_STR(si->args[1].name, "filename");
	CHECK_STR(si->args[1].type, "const char *");
	CHECK_STR(si->args[3].type, "umode_t");
	/* the kernel's newstat is strace's stat, number 4 */
	si = sc_table_get(t, 4);
	CHECK_STR(si->name, "stat");
	CHECK_INT(si->nargs, 2);
	CHECK_STR(si->args[1].type, "struct stat *");
	CHECK_STR(si->args[1].name, "statbuf");
	CHECK_INT(sc_table_get(t, 39)->nargs, 0);	/* getpid */
	CHECK(sc_table_get(t, 39)->args == NULL);	/* nothing to describe */
	CHECK_INT(sc_table_get(t, 0)->nargs, -1);	/* read: not described here */
	CHECK(sc_table_get(t, 0)->args == NULL);
	CHECK_STR(sc_table_get(t, 1000)->name, "syscall_1000");
	CHECK(sc_table_get(t, SC_NR_MAX) == NULL);
	/* each format once: openat, newstat, getpid (read's is missing) */
	sc_table_get(t, 257);
	CHECK_INT(sc_table_formats_read(t), 3);
	CHECK_INT(sc_table_lookup(t, "newstat"), 4);
	CHECK_INT(sc_table_lookup(t, "stat"), 4);
	CHECK_INT(sc_table_lookup(t, "uretprobe"), 335);
	CHECK_INT(sc_table_lookup(t, "bogus"), -1);
	sc_table_free(t);
	remove_dir(dir);
}

TEST(systable_selects_with_e)
{
	struct sc_table *t = sc_table_load_dir(NULL);
	static bool w[SC_NR_MAX];

	CHECK(t != NULL);
	if (!t)
		return;
	CHECK_INT(sc_table_select(t, NULL, w), 0);
	CHECK(w[0] && w[257] && w[SC_NR_MAX - 1]);
	memset(w, 0, sizeof(w));
	CHECK_INT(sc_table_select(t, "trace=openat,close", w), 0);
	CHECK(w[257] && w[3] && !w[0]);
	memset(w, 0, sizeof(w));
	CHECK_INT(sc_table_select(t, "!read", w), 0);
	CHECK(!w[0] && w[1]);
	CHECK_INT(sc_table_select(t, "openat,bogus", w), -EINVAL);
	sc_table_free(t);
}

TEST(systable_without_formats)
{
	struct sc_table *t = sc_table_load_dir("/nonexistent/stackscope-unit");
	struct sc_spec spec;

	CHECK(t != NULL);
	if (!t)
		return;
	CHECK(!sc_table_has_formats(t));
	CHECK_INT(sc_table_get(t, 257)->nargs, -1);
	CHECK_INT(sc_table_formats_read(t), 0);
	/* a decoder still says what to capture; a syscall without one has
	 * nothing captured when the kernel describes none */
	sc_table_spec(t, 257, &spec);
	CHECK_INT(spec.args[1].cap, SC_CAP_PATH);
	sc_table_spec(t, sc_table_lookup(t, "mount"), &spec);
	CHECK_INT(spec.args[0].cap, SC_CAP_NONE);
	sc_table_free(t);
}

/* The specs given to the BPF side before any format is read (decoders,
 * the built-in string arguments of the others) are those the running
 * kernel's formats give, for every syscall it describes. */
TEST(systable_builtin_specs_match_the_kernel)
{
	struct sc_table *t;
	int checked = 0;

	if (geteuid())
		SKIP("reading the kernel's syscall formats needs root");
	t = sc_table_load();
	CHECK(t != NULL);
	if (!t)
		return;
	if (!sc_table_has_formats(t)) {
		sc_table_free(t);
		SKIP("this kernel describes no syscalls in tracefs");
	}
	for (int nr = 0; nr < SC_NR_MAX; nr++) {
		struct sc_spec before, after;
		const struct sc_info *si;

		sc_table_spec(t, nr, &before);
		si = sc_table_get(t, nr);
		if (si->nargs < 0)
			continue;
		sc_spec_for(si, &after);
		if (memcmp(&before, &after, sizeof(before)))
			test_fail(__FILE__, __LINE__, "%s: the built-in spec differs from its format's",
				  si->name);
		checked++;
	}
	CHECK(checked > 300);
	CHECK_INT(sc_table_formats_read(t), checked);
	sc_table_free(t);
}
