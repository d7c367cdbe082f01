/* lang/parser: C's precedence and associativity at every level (read
 * back through the AST dump), every probe form, every statement, and
 * syntax errors at their exact line and column. */
#include "lang_test.h"

/* Each level against its neighbours, and associativity within it. */
static const struct lt_case precedence[] = {
	{ "1 + 2 * 3", "(+ int: 1 (* int: 2 int: 3))" },
	{ "1 * 2 + 3", "(+ (* int: 1 int: 2) int: 3)" },
	{ "1 - 2 - 3", "(- (- int: 1 int: 2) int: 3)" },
	{ "8 / 4 / 2", "(/ (/ int: 8 int: 4) int: 2)" },
	{ "7 % 3 * 2", "(* (% int: 7 int: 3) int: 2)" },
	{ "1 - 2 + 3", "(+ (- int: 1 int: 2) int: 3)" },
	{ "1 << 2 + 3", "(<< int: 1 (+ int: 2 int: 3))" },
	{ "1 + 2 << 3", "(<< (+ int: 1 int: 2) int: 3)" },
	{ "1 << 2 >> 3", "(>> (<< int: 1 int: 2) int: 3)" },
	{ "1 < 2 << 3", "(< int: 1 (<< int: 2 int: 3))" },
	{ "1 >> 2 >= 3", "(>= (>> int: 1 int: 2) int: 3)" },
	{ "1 <= 2 > 3", "(> (<= int: 1 int: 2) int: 3)" },
	{ "1 < 2 == 3 > 4", "(== (< int: 1 int: 2) (> int: 3 int: 4))" },
	{ "1 == 2 != 3", "(!= (== int: 1 int: 2) int: 3)" },
	{ "1 & 2 == 3", "(& int: 1 (== int: 2 int: 3))" },
	{ "1 != 2 & 3", "(& (!= int: 1 int: 2) int: 3)" },
	{ "1 & 2 & 3", "(& (& int: 1 int: 2) int: 3)" },
	{ "1 ^ 2 & 3", "(^ int: 1 (& int: 2 int: 3))" },
	{ "1 & 2 ^ 3", "(^ (& int: 1 int: 2) int: 3)" },
	{ "1 | 2 ^ 3", "(| int: 1 (^ int: 2 int: 3))" },
	{ "1 ^ 2 | 3", "(| (^ int: 1 int: 2) int: 3)" },
	{ "1 && 2 | 3", "(&& int: 1 (| int: 2 int: 3))" },
	{ "1 | 2 && 3", "(&& (| int: 1 int: 2) int: 3)" },
	{ "1 || 2 && 3", "(|| int: 1 (&& int: 2 int: 3))" },
	{ "1 && 2 || 3 && 4", "(|| (&& int: 1 int: 2) (&& int: 3 int: 4))" },
	{ "1 || 2 || 3", "(|| (|| int: 1 int: 2) int: 3)" },
	{ "1 || 2 ? 3 : 4", "(?: (|| int: 1 int: 2) int: 3 int: 4)" },
	{ "1 ? 2 : 3 ? 4 : 5", "(?: int: 1 int: 2 (?: int: 3 int: 4 int: 5))" },
	{ "1 ? 2 ? 3 : 4 : 5", "(?: int: 1 (?: int: 2 int: 3 int: 4) int: 5)" },
	{ "1 ? 2 : 3 + 4", "(?: int: 1 int: 2 (+ int: 3 int: 4))" },
	{ "1 + 2 > 3 && 4 | 5 ^ 6 & 7 == 8 << 9 * 10",
	  "(&& (> (+ int: 1 int: 2) int: 3) (| int: 4 (^ int: 5 (& int: 6 (== int: 7 "
	  "(<< int: 8 (* int: 9 int: 10)))))))" },
	{ "1 * 2 << 3 == 4 & 5 ^ 6 | 7 && 8 || 9",
	  "(|| (&& (| (^ (& (== (<< (* int: 1 int: 2) int: 3) int: 4) int: 5) int: 6) "
	  "int: 7) int: 8) int: 9)" },
	/* unary and postfix */
	{ "-1 + 2", "(+ (unop: - int: 1) int: 2)" },
	{ "!1 == 0", "(== (unop: ! int: 1) int: 0)" },
	{ "~1 & 2", "(& (unop: ~ int: 1) int: 2)" },
	{ "- -1", "(unop: - (unop: - int: 1))" },
	{ "!!1", "(unop: ! (unop: ! int: 1))" },
	{ "-$x++", "(unop: - (unop: ++ (post) variable: $x))" },
	{ "++$x * 2", "(* (unop: ++ (pre) variable: $x) int: 2)" },
	{ "$x-- - 1", "(- (unop: -- (post) variable: $x) int: 1)" },
	{ "$a - -$b", "(- variable: $a (unop: - variable: $b))" },
	{ "*$p + 1", "(+ (unop: * variable: $p) int: 1)" },
	{ "2 * *$p", "(* int: 2 (unop: * variable: $p))" },
	{ "&$x", "(unop: & variable: $x)" },
	{ "@x++ + 1", "(+ (unop: ++ (post) map: @x) int: 1)" },
	{ "(1 + 2) * 3", "(* (+ int: 1 int: 2) int: 3)" },
	{ "(int32)$x + 1", "(+ (cast: int32 variable: $x) int: 1)" },
	{ "(uint8)-1", "(cast: uint8 (unop: - int: 1))" },
	{ "(struct task_struct *)curtask->pid",
	  "(cast: struct task_struct * (field -> pid builtin: curtask))" },
	{ "((struct task_struct *)curtask)->pid",
	  "(field -> pid (cast: struct task_struct * builtin: curtask))" },
	{ "-args->x", "(unop: - (field -> x builtin: args))" },
	{ "args.filename", "(field . filename builtin: args)" },
	{ "args->filename", "(field -> filename builtin: args)" },
	{ "$t.0", "(field . 0 variable: $t)" },
	{ "curtask->parent->pid", "(field -> pid (field -> parent builtin: curtask))" },
	/* primaries */
	{ "@m[1, \"a\"]", "(map: @m int: 1 string: \"a\")" },
	{ "@m[$k][0]", "([] (map: @m variable: $k) int: 0)" },
	{ "@", "map: @" },
	{ "f(1, 2 + 3)", "(call: f int: 1 (+ int: 2 int: 3))" },
	{ "count()", "call: count" },
	{ "(1, \"a\", $x)", "(tuple int: 1 string: \"a\" variable: $x)" },
	{ "kstack", "builtin: kstack" },
	{ "kstack(perf, 5)", "(call: kstack identifier: perf int: 5)" },
	{ "$1 + $#", "(+ param: $1 param: $#)" },
	{ "comm == \"bash\"", "(== builtin: comm string: \"bash\")" },
	{ "0x10 + 1e3 + 1_000", "(+ (+ int: 16 int: 1000) int: 1000)" },
	{ "arg0 + arg12", "(+ builtin: arg0 builtin: arg12)" },
	{ "\"a\\tb\\x41\\101\\\\\"", "string: \"a\\tbAA\\\\\"" },
};

TEST(lang_parse_precedence)
{
	for (size_t i = 0; i < sizeof(precedence) / sizeof(precedence[0]); i++)
		LT_CHECK(lt_body(precedence[i].in, false), &precedence[i]);
}

static const struct lt_case statements[] = {
	{ "$x = 1;", "(= variable: $x int: 1)" },
	{ "@x += 2;", "(+= map: @x int: 2)" },
	{ "@x -= 2;", "(-= map: @x int: 2)" },
	{ "@x *= 2;", "(*= map: @x int: 2)" },
	{ "@x /= 2;", "(/= map: @x int: 2)" },
	{ "@x %= 2;", "(%= map: @x int: 2)" },
	{ "@x &= 2;", "(&= map: @x int: 2)" },
	{ "@x |= 2;", "(|= map: @x int: 2)" },
	{ "@x ^= 2;", "(^= map: @x int: 2)" },
	{ "@x <<= 2;", "(<<= map: @x int: 2)" },
	{ "$x >>= 2;", "(>>= variable: $x int: 2)" },
	{ "@m[1, 2] = count();", "(= (map: @m int: 1 int: 2) call: count)" },
	{ "@[kstack] = count();", "(= (map: @ builtin: kstack) call: count)" },
	{ "$x = 1 ? 2 : 3;", "(= variable: $x (?: int: 1 int: 2 int: 3))" },
	{ "$x = 1 + 2 * 3;", "(= variable: $x (+ int: 1 (* int: 2 int: 3)))" },
	{ "if (1) { $x = 1; }", "(if int: 1 (then (= variable: $x int: 1)))" },
	{ "if (1) { } else { }", "(if int: 1 then else)" },
	{ "if (1) { } else if (2) { } else { exit(); }",
	  "(if int: 1 then (else (if int: 2 then (else call: exit))))" },
	{ "while ($i < 3) { $i++; }",
	  "(while (< variable: $i int: 3) (body (unop: ++ (post) variable: $i)))" },
	{ "for ($i : 0..5) { print($i); }",
	  "(for variable: $i (range int: 0 int: 5) (body (call: print variable: $i)))" },
	{ "for ($i : 1+1..$n*2) { }",
	  "(for variable: $i (range (+ int: 1 int: 1) (* variable: $n int: 2)) body)" },
	{ "for ($kv : @m) { }", "(for variable: $kv map: @m body)" },
	{ "unroll(3) { @x++; }", "(unroll int: 3 (body (unop: ++ (post) map: @x)))" },
	{ "return;", "return" },
	{ "return 1;", "(return int: 1)" },
	{ "{ $x = 1; }", "(block (= variable: $x int: 1))" },
	{ "$x = 1; $y = 2", "(= variable: $x int: 1); (= variable: $y int: 2)" },
	{ "; ; $x = 1;;", "(= variable: $x int: 1)" },
	{ "while (1) { break; continue; }", "(while int: 1 (body break continue))" },
	{ "if (1) { } $x = 1", "(if int: 1 then); (= variable: $x int: 1)" },
	{ "printf(\"%s\\n\", comm);", "(call: printf string: \"%s\\n\" builtin: comm)" },
	{ "delete(@m[1]); clear(@m)", "(call: delete (map: @m int: 1)); (call: clear map: @m)" },
	{ "// a comment\n$x = 1; /* another\n */ $y = 2;",
	  "(= variable: $x int: 1); (= variable: $y int: 2)" },
};

TEST(lang_parse_statements)
{
	for (size_t i = 0; i < sizeof(statements) / sizeof(statements[0]); i++)
		LT_CHECK(lt_body(statements[i].in, false), &statements[i]);
}

/* The attach lines of "PROBES { }", joined by "; ". */
static const char *attach_lines(const char *probes)
{
	char src[512], *out = lt_buf();
	const char *d;

	snprintf(src, sizeof(src), "%s { }", probes);
	d = lt_run(src, false, NULL);
	if (!strncmp(d, "error: ", 7))
		return d;
	out[0] = 0;
	for (const char *l = strstr(d, "    attach: "); l; l = strstr(l + 1, "    attach: ")) {
		const char *nl = strchr(l, '\n');

		if (out[0])
			strcat(out, "; ");
		strncat(out, l + 4, (size_t)(nl - l - 4));
	}
	return out;
}

static const struct lt_case probes[] = {
	{ "BEGIN", "attach: BEGIN" },
	{ "END", "attach: END" },
	{ "kprobe:vfs_read", "attach: kprobe func=vfs_read" },
	{ "k:vfs_read+16", "attach: kprobe func=vfs_read offset=16" },
	{ "kprobe:btrfs:btrfs_sync_file", "attach: kprobe target=btrfs func=btrfs_sync_file" },
	{ "kr:vfs_*", "attach: kretprobe func=vfs_* wildcard" },
	{ "kretprobe:do_sys_open", "attach: kretprobe func=do_sys_open" },
	{ "uprobe:/bin/bash:readline", "attach: uprobe target=/bin/bash func=readline" },
	{ "u:libc:malloc+0x10", "attach: uprobe target=libc func=malloc offset=16" },
	{ "ur:/usr/lib/libc.so.6:free", "attach: uretprobe target=/usr/lib/libc.so.6 func=free" },
	{ "uretprobe:/bin/sh:*", "attach: uretprobe target=/bin/sh func=* wildcard" },
	{ "uprobe:\"/a b/x\":\"main\"", "attach: uprobe target=/a b/x func=main" },
	{ "tracepoint:sched:sched_switch", "attach: tracepoint target=sched event=sched_switch" },
	{ "t:syscalls:sys_enter_*", "attach: tracepoint target=syscalls event=sys_enter_* wildcard" },
	{ "rawtracepoint:sched_switch", "attach: rawtracepoint event=sched_switch" },
	{ "rt:vmlinux:sched_switch", "attach: rawtracepoint target=vmlinux event=sched_switch" },
	{ "usdt:/bin/x:prov:probe", "attach: usdt target=/bin/x provider=prov event=probe" },
	{ "U:/bin/x:probe", "attach: usdt target=/bin/x event=probe" },
	{ "profile:hz:99", "attach: profile unit=hz rate=99" },
	{ "p:ms:10", "attach: profile unit=ms rate=10" },
	{ "profile:s:1", "attach: profile unit=s rate=1" },
	{ "profile:us:500", "attach: profile unit=us rate=500" },
	{ "interval:s:1", "attach: interval unit=s rate=1" },
	{ "i:ms:100", "attach: interval unit=ms rate=100" },
	{ "interval:us:1_000", "attach: interval unit=us rate=1000" },
	{ "interval:hz:2", "attach: interval unit=hz rate=2" },
	{ "software:page-faults:100", "attach: software event=page-faults count=100" },
	{ "s:cs", "attach: software event=cs" },
	{ "hardware:cache-misses:1000000", "attach: hardware event=cache-misses count=1000000" },
	{ "h:cycles", "attach: hardware event=cycles" },
	{ "fentry:vfs_read", "attach: fentry func=vfs_read" },
	{ "fexit:vmlinux:vfs_read", "attach: fexit target=vmlinux func=vfs_read" },
	{ "kfunc:vfs_open", "attach: fentry func=vfs_open" },
	{ "fr:vfs_open", "attach: fexit func=vfs_open" },
	{ "watchpoint:0x10000000:8:rw", "attach: watchpoint addr=0x10000000 len=8 mode=rw" },
	{ "kprobe:a, kprobe:b,\n  t:c:d",
	  "attach: kprobe func=a; attach: kprobe func=b; attach: tracepoint target=c event=d" },
	{ "BEGIN,END", "attach: BEGIN; attach: END" },
};

TEST(lang_parse_probes)
{
	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
		LT_CHECK(attach_lines(probes[i].in), &probes[i]);
}

/* Whole programs, golden dumps. */
TEST(lang_parse_programs)
{
	CHECK_STR(lt_run("#!/usr/bin/env stackscope\n"
			 "config = { max_map_keys = 100; stack_mode = perf; license = \"GPL\" }\n"
			 "kprobe:vfs_read /pid / 2 == 1/ { @[kstack] = count(); }\n", false, NULL),
		  "program\n"
		  "  config\n"
		  "    max_map_keys\n"
		  "      int: 100\n"
		  "    stack_mode\n"
		  "      identifier: perf\n"
		  "    license\n"
		  "      string: \"GPL\"\n"
		  "  probe\n"
		  "    attach: kprobe func=vfs_read\n"
		  "    predicate\n"
		  "      ==\n"
		  "        /\n"
		  "          builtin: pid\n"
		  "          int: 2\n"
		  "        int: 1\n"
		  "    body\n"
		  "      =\n"
		  "        map: @\n"
		  "          builtin: kstack\n"
		  "        call: count\n");
	/* a predicate right after the probe, and a path with '/' in a uprobe */
	CHECK_STR(lt_sexp(lt_run("kprobe:f/pid/{}\nuprobe:/bin/sh:main /$1/ {}", false, NULL), 1),
		  "(probe attach: kprobe func=f (predicate builtin: pid) body); "
		  "(probe attach: uprobe target=/bin/sh func=main (predicate param: $1) body)");
	CHECK_STR(lt_sexp(lt_run("profile:hz:99{@[ustack]=count()}END{print(@)}", false, NULL), 1),
		  "(probe attach: profile unit=hz rate=99 (body (= (map: @ builtin: ustack) call: count))); "
		  "(probe attach: END (body (call: print map: @)))");
}

static const struct lt_case syntax_errors[] = {
	{ "BEGIN { $x = ; }", "error: t:1:14: expected an expression, found ';'" },
	{ "BEGIN { @x = 1 @y = 2; }",
	  "error: t:1:16: expected ';' or '}' after a statement, found map '@y'" },
	{ "BEGIN { 1 = 2; }", "error: t:1:11: '=' needs a variable ($x) or a map (@m) on its left" },
	{ "kprobe:f /pid == 1 { }",
	  "error: t:1:20: expected '/' closing the predicate, found '{'" },
	{ "foo:bar { }", "error: t:1:1: unknown probe type 'foo'" },
	{ "profile:hz:0 { }", "error: t:1:12: profile: the rate must be a positive integer, not '0'" },
	{ "profile:xx:99 { }", "error: t:1:9: profile: unknown unit 'xx' (hz, s, ms or us)" },
	{ "interval:s { }", "error: t:1:1: interval probes are interval:UNIT:N (UNIT hz, s, ms or us)" },
	{ "tracepoint:sched { }", "error: t:1:1: tracepoint probes are tracepoint:CATEGORY:EVENT" },
	{ "uprobe:readline { }", "error: t:1:1: uprobe probes are uprobe:PATH:FUNCTION[+OFFSET]" },
	{ "software:nope { }", "error: t:1:10: unknown software event 'nope'" },
	{ "watchpoint:0x1000:3:rw { }", "error: t:1:19: watchpoint: the length must be 1, 2, 4 or 8" },
	{ "kprobe:f+x { }",
	  "error: t:1:9: expected FUNCTION+OFFSET with a number as the offset" },
	{ "kretprobe:f+8 { }", "error: t:1:12: kretprobe probes take no offset" },
	{ "kprobe: { }", "error: t:1:8: empty part in probe 'kprobe:'" },
	{ "BEGIN { if (1) $x = 1; }", "error: t:1:16: expected '{', found variable '$x'" },
	{ "BEGIN {", "error: t:1:8: expected '}' before end of input" },
	{ "BEGIN { \"abc }", "error: t:1:9: unterminated string" },
	{ "\nBEGIN {\n  $x = 1 +;\n}", "error: t:3:11: expected an expression, found ';'" },
	{ "BEGIN {\n\t$x = 0x;\n}", "error: t:2:7: hexadecimal literal without digits" },
	{ "BEGIN { $x = 12ab; }", "error: t:1:16: invalid suffix 'ab' on integer literal" },
	{ "BEGIN { $x = 99999999999999999999; }", "error: t:1:14: integer literal too large" },
	{ "BEGIN { $x = 1e20; }", "error: t:1:14: integer literal too large" },
	{ "BEGIN { $x = 1__0; }", "error: t:1:15: '_' in a number must stand between digits" },
	{ "BEGIN { $x = \"\\q\"; }", "error: t:1:15: unknown escape sequence '\\q'" },
	{ "BEGIN { /* x ", "error: t:1:9: unterminated comment" },
	{ "", "error: t:1:1: no probes in the program" },
	{ "// only a comment\n", "error: t:2:1: no probes in the program" },
	{ "BEGIN { $x = 1 ? 2; }", "error: t:1:19: expected ':' in a ?: expression, found ';'" },
	{ "BEGIN { $x = (1, 2; }", "error: t:1:19: expected ')' after a tuple, found ';'" },
	{ "BEGIN { @x[] = 1; }", "error: t:1:12: expected a map key, found ']'" },
	{ "BEGIN { $a = $b = 1; }", "error: t:1:17: an assignment is a statement, not a value" },
	{ "BEGIN { # }", "error: t:1:9: unexpected character '#'" },
	{ "BEGIN { $ }", "error: t:1:9: expected a variable name after '$'" },
	{ "profile:hz:99, { }", "error: t:1:16: expected a probe, found '{'" },
	{ "kprobe:f { } }", "error: t:1:14: expected a probe, found '}'" },
	{ "kprobe:f\nkprobe:g { }", "error: t:2:1: expected '{', '/' or ',' after a probe, found probe 'kprobe:g'" },
	{ "BEGIN { for ($i : 1) { } }",
	  "error: t:1:19: a for loop runs over a range A..B or a map (@name)" },
	{ "BEGIN { for (i : 0..1) { } }",
	  "error: t:1:14: expected a variable after 'for (', found identifier 'i'" },
	{ "BEGIN { $x = (int32 1; }", "error: t:1:21: expected ')' after the type of a cast, found integer 1" },
	{ "BEGIN { $x = $y.; }", "error: t:1:17: expected a field name, found ';'" },
	{ "BEGIN { $x = (1)(2); }", "error: t:1:17: only a function name can be called" },
	{ "config = { a = 1 BEGIN { }", "error: t:1:18: expected ';' after a config value, found 'BEGIN'" },
	{ "BEGIN { $x = 08; }", "error: t:1:15: invalid digit '8' in octal literal" },
	{ "BEGIN { $0 = 1; }", "error: t:1:9: positional parameters are $1 to $999999" },
};

TEST(lang_parse_errors)
{
	for (size_t i = 0; i < sizeof(syntax_errors) / sizeof(syntax_errors[0]); i++)
		LT_CHECK(lt_run(syntax_errors[i].in, false, NULL), &syntax_errors[i]);
}

/* Nesting past LANG_MAX_DEPTH is an error, not a stack overflow. */
TEST(lang_parse_depth)
{
	static char src[40000];
	const char *r;
	size_t n = 0;

	n += (size_t)sprintf(src, "BEGIN { $x = ");
	for (int i = 0; i < 5000; i++)
		src[n++] = '(';
	src[n++] = '1';
	for (int i = 0; i < 5000; i++)
		src[n++] = ')';
	strcpy(src + n, "; }");
	r = lt_run(src, false, NULL);
	CHECK(strstr(r, "nesting too deep (more than 256 levels)") != NULL);
	n = (size_t)sprintf(src, "BEGIN { ");
	for (int i = 0; i < 3000; i++)
		n += (size_t)sprintf(src + n, "if (1) { ");
	CHECK(strstr(lt_run(src, false, NULL), "nesting too deep") != NULL);
	n = (size_t)sprintf(src, "BEGIN { $x = ");
	for (int i = 0; i < 5000; i++)
		src[n++] = '-';
	strcpy(src + n, "1; }");
	CHECK(strstr(lt_run(src, false, NULL), "nesting too deep") != NULL);
	n = (size_t)sprintf(src, "BEGIN { $x = ");
	for (int i = 0; i < 3000; i++)
		n += (size_t)sprintf(src + n, "(int8)");
	strcpy(src + n, "1; }");
	CHECK(strstr(lt_run(src, false, NULL), "nesting too deep") != NULL);
	/* 100 levels are fine */
	n = (size_t)sprintf(src, "BEGIN { $x = ");
	for (int i = 0; i < 100; i++)
		src[n++] = '(';
	src[n++] = '1';
	for (int i = 0; i < 100; i++)
		src[n++] = ')';
	strcpy(src + n, "; }");
	CHECK(strncmp(lt_run(src, false, NULL), "error", 5) != 0);
}

/* The message, the source line and a caret under the column. */
TEST(lang_error_caret)
{
	struct lang_prog *prog = lang_prog_new("x.bt", "BEGIN {\n\t@a = 1 +* ;\n}\n", 23);
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	CHECK(prog && lang_parse(prog) == -EINVAL);
	CHECK_INT(lang_error_count(prog), 1);
	lang_print_errors(f, prog);
	fclose(f);
	CHECK_STR(buf, "x.bt:2:12: expected an expression, found ';'\n"
		       "\t@a = 1 +* ;\n"
		       "\t          ^\n");
	free(buf);
	lang_prog_free(prog);
}
