/* lang/check: scopes, map kinds settled over every probe, builtin
 * arity and argument kinds, probe-bound builtins, --unsafe. */
#include "lang_test.h"

/* "ok" or "error: FIRST" for src checked with opts. */
static const char *check_of(const char *src, const struct lang_check_opts *o)
{
	const char *r = lt_run(src, true, o);

	return strncmp(r, "error: ", 7) ? "ok" : r;
}

static const struct lt_case cases[] = {
	/* scopes */
	{ "BEGIN { $x = 1; $x = 2; }", "ok" },
	{ "BEGIN { if (1) { $x = 1; } $x = \"a\"; }", "ok" },
	{ "BEGIN { if (1) { $x = 1; } print($x); }", "error: t:1:34: undefined variable $x" },
	{ "BEGIN { $x = 1; if (1) { $x = 2; } print($x); }", "ok" },
	{ "BEGIN { $x = 1; } END { print($x); }", "error: t:1:31: undefined variable $x" },
	{ "kprobe:f /$x == 1/ { }", "error: t:1:11: undefined variable $x" },
	{ "BEGIN { $x = 1; $x = \"a\"; }",
	  "error: t:1:17: type mismatch for $x: assigning string, the variable holds int" },
	{ "BEGIN { $x += 1; }", "error: t:1:9: undefined variable $x" },
	{ "BEGIN { $s = \"a\"; $s++; }", "error: t:1:19: '++' needs an integer, $s holds string" },
	{ "BEGIN { $t = (1, \"a\"); $t = (\"b\", 2); }",
	  "error: t:1:24: type mismatch for $t: assigning (string, int), the variable holds (int, string)" },
	{ "BEGIN { for ($i : 0..10) { @s[$i] = $i; } }", "ok" },
	{ "BEGIN { for ($i : 0..10) { } print($i); }", "error: t:1:36: undefined variable $i" },
	{ "BEGIN { $i = 0; for ($i : 0..10) { } }",
	  "error: t:1:22: the loop variable $i already exists" },
	/* maps, over every probe */
	{ "kprobe:f { @a = count(); } kprobe:g { @a = sum(1); }",
	  "error: t:1:39: type mismatch for @a: assigning sum, the map holds count" },
	{ "BEGIN { @x = 1; @x = count(); }",
	  "error: t:1:17: type mismatch for @x: assigning count, the map holds int" },
	{ "BEGIN { @ = stats(1); @ = avg(1); }",
	  "error: t:1:23: type mismatch for @: assigning avg, the map holds stats" },
	{ "BEGIN { @a[1] = 1; @a[\"x\"] = 2; }",
	  "error: t:1:23: @a: key 1 is string here and int elsewhere" },
	{ "BEGIN { @a[1] = 1; @a[1, 2] = 2; }",
	  "error: t:1:20: @a is used with 2 keys here and 1 elsewhere" },
	{ "BEGIN { @a = 1; @a[1] = 2; }", "error: t:1:17: @a is used with 1 key here and 0 elsewhere" },
	{ "BEGIN { @a = 1; } END { @b = @a + 1; }", "ok" },
	{ "BEGIN { @b = @a; } END { @a = \"s\"; }", "ok" },
	{ "BEGIN { @b = @a; } END { @a = \"s\"; @b = 1; }",
	  "error: t:1:9: type mismatch for @b: assigning string, the map holds int" },
	{ "BEGIN { @b = @a; }", "error: t:1:14: undefined map @a: it is never assigned" },
	{ "BEGIN { @c = count(); @c += 1; }", "error: t:1:23: '+=' needs an integer, @c holds count" },
	{ "BEGIN { @c = count(); if (@c > 10) { exit(); } }", "ok" },
	{ "BEGIN { @h = hist(1); $x = @h + 1; }", "error: t:1:28: the hist in @h can only be printed" },
	{ "BEGIN { @h = lhist(1, 0, 100, 10); print(@h); clear(@h); zero(@h); }", "ok" },
	{ "BEGIN { delete(@m[1]); }", "error: t:1:16: undefined map @m: it is never assigned" },
	{ "BEGIN { @m[1] = 2; delete(@m[1]); @n = has_key(@m, 1); }", "ok" },
	{ "BEGIN { @m[1] = 2; delete(@m[\"a\"]); }",
	  "error: t:1:30: @m: key 1 is string here and int elsewhere" },
	{ "BEGIN { @x = 1; @x++; @y[comm]--; }", "ok" },
	{ "BEGIN { @x = (1, \"a\"); @x = (2, \"b\"); }", "ok" },
	{ "BEGIN { @x = (1, \"a\"); @x = (2, 3); }",
	  "error: t:1:24: type mismatch for @x: assigning (int, int), the map holds (int, string)" },
	{ "BEGIN { @m[1] = \"a\"; for ($kv : @m) { printf(\"%d %s\\n\", $kv.0, $kv.1); } }", "ok" },
	{ "BEGIN { @m[1] = \"a\"; for ($kv : @m) { $x = $kv.2; } }",
	  "error: t:1:47: a tuple of 2 has no element '2'" },
	{ "BEGIN { @[kstack, ustack(perf, 10), comm] = count(); }", "ok" },
	{ "BEGIN { @[count()] = 1; }", "error: t:1:11: count() must be assigned directly to a map: @name = count(...)" },
	/* builtin calls */
	{ "BEGIN { $x = count(); }",
	  "error: t:1:14: count() must be assigned directly to a map: @name = count(...)" },
	{ "BEGIN { @x = count(1); }", "error: t:1:14: count() takes 0 arguments, got 1" },
	{ "BEGIN { @x = hist(); }", "error: t:1:14: hist() takes 1 to 2 arguments, got 0" },
	{ "BEGIN { @x = lhist(1, 0, 10); }", "error: t:1:14: lhist() takes 4 arguments, got 3" },
	{ "BEGIN { @x = lhist(1, 0, $y, 1); }",
	  "error: t:1:26: lhist() takes an integer literal as argument 3" },
	{ "BEGIN { @x = sum(\"a\"); }",
	  "error: t:1:18: sum() takes an integer as argument 1, not string" },
	{ "BEGIN { printf(); }", "error: t:1:9: printf() takes at least 1 argument, got 0" },
	{ "BEGIN { printf(\"%d\\n\"); }",
	  "error: t:1:16: printf(): the format has 1 conversion for 0 arguments" },
	{ "BEGIN { printf(\"%d %% %s\\n\", 1); }",
	  "error: t:1:16: printf(): the format has 2 conversions for 1 argument" },
	{ "BEGIN { printf(\"%d\\n\", comm); }",
	  "error: t:1:24: printf(): conversion 1 wants an integer, not string" },
	{ "BEGIN { printf(\"%s %-5d %lu %x\\n\", comm, pid, nsecs, 255); }", "ok" },
	{ "BEGIN { printf(comm); }", "error: t:1:16: printf() takes a string literal as argument 1" },
	{ "BEGIN { $x = printf(\"a\"); }", "error: t:1:14: printf() has no value to use" },
	{ "BEGIN { foo(1); }", "error: t:1:9: unknown function 'foo'" },
	{ "BEGIN { $x = bar; }", "error: t:1:14: unknown identifier 'bar'" },
	{ "BEGIN { $x = pid(); }", "error: t:1:14: unknown function 'pid'" },
	{ "BEGIN { exit(1, 2); }", "error: t:1:9: exit() takes 0 to 1 arguments, got 2" },
	{ "BEGIN { clear(1); }",
	  "error: t:1:15: clear() takes a map (@name, without keys) as argument 1" },
	{ "BEGIN { @s[kstack(fast)] = count(); }",
	  "error: t:1:19: unknown stack mode 'fast' (bpftrace, perf or raw)" },
	{ "BEGIN { @s[kstack(5)] = count(); @t[ustack(raw)] = count(); }", "ok" },
	{ "BEGIN { $x = str(1, \"a\"); }",
	  "error: t:1:21: str() takes an integer as argument 2, not string" },
	{ "BEGIN { $x = ksym(1); $y = usym(2); $z = strftime(\"%H\", nsecs); time(\"%H\"); }", "ok" },
	{ "BEGIN { $x = kaddr(comm); }", "error: t:1:20: kaddr() takes a string literal as argument 1" },
	/* builtins bound to probe types */
	{ "kprobe:f { $x = retval; }",
	  "error: t:1:17: retval exists only in kretprobe, uretprobe, fexit and syscall:NAME:return probes" },
	{ "kretprobe:f, uretprobe:/bin/x:y { @ = hist(retval); }", "ok" },
	{ "kretprobe:f, kprobe:g { @ = hist(retval); }",
	  "error: t:1:34: retval exists only in kretprobe, uretprobe, fexit and syscall:NAME:return probes" },
	{ "BEGIN { $x = args.foo; }",
	  "error: t:1:14: args exists only in tracepoint, rawtracepoint, fentry, fexit, uprobe and syscall probes" },
	{ "tracepoint:a:b { @[str(args.filename)] = count(); $x = args->fd + 1; }", "ok" },
	{ "tracepoint:a:b { $x = arg0; }",
	  "error: t:1:23: arg0 exists only in kprobe, uprobe, usdt and rawtracepoint probes" },
	{ "kprobe:f { @[arg0, arg1] = count(); $p = (struct file *)arg0; $m = $p->f_mode; }", "ok" },
	{ "BEGIN { $x = comm.len; }", "error: t:1:18: a string has no field 'len'" },
	/* operators */
	{ "BEGIN { $x = comm == 1; }", "error: t:1:19: cannot compare string with int" },
	{ "BEGIN { if (comm == \"bash\") { exit(); } }", "ok" },
	{ "BEGIN { $x = comm + 1; }", "error: t:1:14: '+' needs an integer, not string" },
	{ "BEGIN { $x = comm < \"a\"; }", "error: t:1:19: '<' cannot order string values" },
	{ "BEGIN { $x = 1 ? \"a\" : 2; }", "error: t:1:16: the branches of ?: are string and int" },
	{ "BEGIN { $x = -comm; }", "error: t:1:15: unary '-' needs an integer, not string" },
	{ "BEGIN { if (comm) { } }", "error: t:1:13: an if condition needs an integer, not string" },
	{ "kprobe:f / comm / { }", "error: t:1:12: a predicate needs an integer, not string" },
	/* statements */
	{ "BEGIN { break; }", "error: t:1:9: break outside a loop" },
	{ "BEGIN { while (1) { if (1) { break; } continue; } }", "ok" },
	{ "BEGIN { unroll(101) { } }", "error: t:1:16: unroll's count must be from 1 to 100" },
	{ "BEGIN { $i = 1; unroll($i) { } }", "error: t:1:24: unroll's count must be an integer literal" },
	{ "BEGIN { unroll(5) { @x++; } }", "ok" },
	/* unsafe builtins without --unsafe */
	{ "BEGIN { system(\"ls\"); }", "error: t:1:9: system() needs --unsafe" },
	{ "BEGIN { cat(\"/etc/%s\", \"passwd\"); }", "error: t:1:9: cat() needs --unsafe" },
	{ "BEGIN { signal(\"KILL\"); }", "error: t:1:9: signal() needs --unsafe" },
	/* config */
	{ "config = { max_map_keys = 10; stack_mode = perf } BEGIN { }", "ok" },
	{ "config = { bogus = 1 } BEGIN { }", "error: t:1:12: unknown config key 'bogus'" },
};

TEST(lang_check_cases)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		LT_CHECK(check_of(cases[i].in, NULL), &cases[i]);
}

TEST(lang_check_unsafe)
{
	struct lang_check_opts o = { .unsafe = true };
	static const struct lt_case ok[] = {
		{ "BEGIN { system(\"ls %d\", pid); }", "ok" },
		{ "BEGIN { cat(\"/proc/%d/status\", pid); }", "ok" },
		{ "BEGIN { signal(9); signal(\"KILL\"); }", "ok" },
	};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		LT_CHECK(check_of(ok[i].in, &o), &ok[i]);
}

/* $N is an integer when its argument is one, a string otherwise; $# an integer. */
TEST(lang_check_params)
{
	char *params[] = { "42", "abc" };
	struct lang_check_opts o = { .nparams = 2, .params = params };
	const char *d = lt_run("BEGIN { @a = $1; @b = $2; @c = $3; @n = $#; }", true, &o);

	CHECK(strstr(d, "map: @a :: int") != NULL);
	CHECK(strstr(d, "map: @b :: string") != NULL);
	CHECK(strstr(d, "map: @c :: int") != NULL);
	CHECK(strstr(d, "map: @n :: int") != NULL);
	CHECK_STR(check_of("BEGIN { @x = $2 + 1; }", &o),
		  "error: t:1:14: '+' needs an integer, not string");
}

/* Kinds settle over every probe before any error is said: a map read in
 * an earlier probe takes the kind a later probe assigns. */
TEST(lang_check_fixpoint)
{
	const char *d = lt_run("BEGIN { @c = @b; } kprobe:f { @b = @a; } END { @a = (comm, 1); }",
			       true, NULL);

	CHECK(strstr(d, "map: @c :: (string, int)") != NULL);
	CHECK(strstr(d, "map: @b :: (string, int)") != NULL);
	d = lt_run("kprobe:f { @h[comm] = hist(arg0); @n[pid] = count(); $v = @n[1] * 2; }", true, NULL);
	CHECK(strstr(d, "map: @h :: hist") != NULL);
	CHECK(strstr(d, "call: hist :: hist") != NULL);
	CHECK(strstr(d, "(*|\n)") == NULL);
	CHECK(strstr(d, "variable: $v :: int") != NULL);
}

static int resolve(void *ctx, const struct lang_attach *at, const char *field,
		   struct lang_type *out)
{
	(void)ctx;
	(void)at;
	if (!strcmp(field, "filename")) {
		out->kind = LANG_K_STR;
		return 0;
	}
	return strcmp(field, "fd") ? -ENOENT : (out->kind = LANG_K_INT, 0);
}

/* The kernel's types come through the resolver hook. */
TEST(lang_check_resolver)
{
	struct lang_check_opts o = { .resolve_field = resolve };
	const char *d = lt_run("tracepoint:a:b { @[args.filename] = sum(args.fd); }", true, &o);

	CHECK(strstr(d, "field . filename :: string") != NULL);
	CHECK(strstr(d, "field . fd :: int") != NULL);
	CHECK_STR(check_of("tracepoint:a:b { $x = args.nope; }", &o),
		  "error: t:1:27: tracepoint:a:b has no argument 'nope'");
	CHECK_STR(check_of("tracepoint:a:b { $x = args.filename + 1; }", &o),
		  "error: t:1:27: '+' needs an integer, not string");
}
