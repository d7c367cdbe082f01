/* lang/lexer: every token kind with its line and column, numbers
 * (0x, octal, 1e6, 1_000), strings with C escapes, comments, the probe
 * mode's words, and what is refused. */
#include "lang_test.h"
#include "lang/lexer.h"

/* Tokens of src as "KIND[=VALUE]@LINE:COL ..." up to the end or an error. */
static const char *lex_all(const char *src, enum lang_lex_mode mode)
{
	struct lang_arena a = { 0 };
	struct lang_lexer lx;
	char *out = lt_buf();
	size_t len = 0;

	out[0] = 0;
	lang_lex_init(&lx, &a, src, strlen(src));
	for (int i = 0; i < 200; i++) {
		struct lang_tok t = lang_lex(&lx, mode);
		char val[128] = "";

		switch (t.kind) {
		case LANG_TOK_IDENT: case LANG_TOK_VAR: case LANG_TOK_MAP: case LANG_TOK_PROBE:
		case LANG_TOK_ERROR:
			snprintf(val, sizeof(val), "=%s", t.text);
			break;
		case LANG_TOK_INT: case LANG_TOK_PARAM:
			snprintf(val, sizeof(val), "=%llu", (unsigned long long)t.num);
			break;
		case LANG_TOK_STR:
			snprintf(val, sizeof(val), "=");
			for (size_t k = 0; k < t.len && strlen(val) < 120; k++)
				snprintf(val + strlen(val), sizeof(val) - strlen(val),
					 (unsigned char)t.text[k] < 0x20 || (unsigned char)t.text[k] >= 0x7f ?
					 "<%02x>" : "%c", (unsigned char)t.text[k]);
			break;
		default:
			break;
		}
		len += (size_t)snprintf(out + len, 16384 - len, "%s%s%s@%u:%u", len ? " " : "",
					lang_tok_name(t.kind), val, t.pos.line, t.pos.col);
		if (t.kind == LANG_TOK_EOF || t.kind == LANG_TOK_ERROR)
			break;
	}
	lang_arena_free(&a);
	return out;
}

static const struct lt_case normal[] = {
	{ "foo _x9 $v @m @ $1 $42 $#",
	  "identifier=foo@1:1 identifier=_x9@1:5 variable=$v@1:9 map=@m@1:12 map=@@1:15 "
	  "positional parameter=1@1:17 positional parameter=42@1:20 $#@1:24 end of input@1:26" },
	{ "if else while for return unroll config break continue BEGIN END",
	  "if@1:1 else@1:4 while@1:9 for@1:15 return@1:19 unroll@1:26 config@1:33 break@1:40 "
	  "continue@1:46 BEGIN@1:55 END@1:61 end of input@1:64" },
	{ "{}()[];,:?. .. ->",
	  "{@1:1 }@1:2 (@1:3 )@1:4 [@1:5 ]@1:6 ;@1:7 ,@1:8 :@1:9 ?@1:10 .@1:11 ..@1:13 "
	  "->@1:16 end of input@1:18" },
	{ "+ - * / % & | ^ ~ !",
	  "+@1:1 -@1:3 *@1:5 /@1:7 %@1:9 &@1:11 |@1:13 ^@1:15 ~@1:17 !@1:19 end of input@1:20" },
	{ "<< >> < <= > >= == != && ||",
	  "<<@1:1 >>@1:4 <@1:7 <=@1:9 >@1:12 >=@1:14 ==@1:17 !=@1:20 &&@1:23 ||@1:26 "
	  "end of input@1:28" },
	{ "++ -- = += -= *= /= %= &= |= ^= <<= >>=",
	  "++@1:1 --@1:4 =@1:7 +=@1:9 -=@1:12 *=@1:15 /=@1:18 %=@1:21 &=@1:24 |=@1:27 "
	  "^=@1:30 <<=@1:33 >>=@1:37 end of input@1:40" },
	/* maximal munch */
	{ "a+++b", "identifier=a@1:1 ++@1:2 +@1:4 identifier=b@1:5 end of input@1:6" },
	{ "a<<=b>>c", "identifier=a@1:1 <<=@1:2 identifier=b@1:5 >>@1:6 identifier=c@1:8 end of input@1:9" },
	{ "$t.0 0..10", "variable=$t@1:1 .@1:3 integer=0@1:4 integer=0@1:6 ..@1:7 integer=10@1:9 "
	  "end of input@1:11" },
	/* numbers */
	{ "0 7 0x1f 0XFF 017 1e6 1_000 2E3 18446744073709551615",
	  "integer=0@1:1 integer=7@1:3 integer=31@1:5 integer=255@1:10 integer=15@1:15 "
	  "integer=1000000@1:19 integer=1000@1:23 integer=2000@1:29 "
	  "integer=18446744073709551615@1:33 end of input@1:53" },
	{ "1_000_000 0x_1", "integer=1000000@1:1 error='_' in a number must stand between digits@1:13" },
	{ "18446744073709551616", "error=integer literal too large@1:1" },
	{ "1e19 1e20", "integer=10000000000000000000@1:1 error=integer literal too large@1:6" },
	{ "10ms", "error=invalid suffix 'ms' on integer literal@1:3" },
	{ "1_", "error='_' in a number must stand between digits@1:2" },
	/* strings */
	{ "\"a\\nb\\t\\\"\\\\\"", "string=a<0a>b<09>\"\\@1:1 end of input@1:13" },
	{ "\"\\x41\\101\\0\\e\\a\"", "string=AA<00><1b><07>@1:1 end of input@1:17" },
	{ "\"\" \"x\"", "string=@1:1 string=x@1:4 end of input@1:7" },
	{ "\"a\nb\"", "error=unterminated string@1:1" },
	{ "\"\\z\"", "error=unknown escape sequence '\\z'@1:2" },
	{ "\"\\x\"", "error=\\x used with no following hex digits@1:2" },
	{ "\"\\777\"", "error=octal escape out of range@1:2" },
	/* comments and positions */
	{ "a // c\n  b /* x\ny */ c", "identifier=a@1:1 identifier=b@2:3 identifier=c@3:6 end of input@3:7" },
	{ "#!/bin/stackscope\nx", "identifier=x@2:1 end of input@2:2" },
	{ "x #!", "identifier=x@1:1 error=unexpected character '#'@1:3" },
	{ "/* never ends", "error=unterminated comment@1:1" },
	{ "\x01", "error=unexpected byte 0x01@1:1" },
	{ "$", "error=expected a variable name after '$'@1:1" },
	{ "\t\tx", "identifier=x@1:3 end of input@1:4" },
};

TEST(lang_lex_tokens)
{
	for (size_t i = 0; i < sizeof(normal) / sizeof(normal[0]); i++)
		LT_CHECK(lex_all(normal[i].in, LEX_NORMAL), &normal[i]);
}

/* Between probes, a probe is one word; '/' ends it except in the paths of
 * uprobe and usdt. */
static const struct lt_case probe_mode[] = {
	{ "kprobe:vfs_*, t:a:b /", "probe=kprobe:vfs_*@1:1 ,@1:13 probe=t:a:b@1:15 /@1:21 end of input@1:22" },
	{ "kprobe:f/pid/", "probe=kprobe:f@1:1 /@1:9 probe=pid@1:10 /@1:13 end of input@1:14" },
	{ "uprobe:/bin/bash:readline+0x10 {",
	  "probe=uprobe:/bin/bash:readline+0x10@1:1 {@1:32 end of input@1:33" },
	{ "BEGIN,END{", "BEGIN@1:1 ,@1:6 END@1:7 {@1:10 end of input@1:11" },
	{ "config = {", "config@1:1 =@1:8 {@1:10 end of input@1:11" },
	{ "u:\"/a b\":f {", "probe=u:\"/a b\":f@1:1 {@1:12 end of input@1:13" },
	{ "  // c\n\tprofile:hz:99{", "probe=profile:hz:99@2:2 {@2:15 end of input@2:16" },
};

TEST(lang_lex_probe_mode)
{
	for (size_t i = 0; i < sizeof(probe_mode) / sizeof(probe_mode[0]); i++)
		LT_CHECK(lex_all(probe_mode[i].in, LEX_PROBE), &probe_mode[i]);
}

/* Every token kind has a name, and every name but the classes is its spelling. */
TEST(lang_lex_names)
{
	for (int k = 0; k < LANG_TOK_NKINDS; k++)
		CHECK(k == LANG_TOK_QUESTION || strcmp(lang_tok_name((enum lang_tok_kind)k), "?") != 0);
	for (int k = LANG_TOK_LBRACE; k < LANG_TOK_NKINDS; k++) {
		const char *s = lang_tok_name((enum lang_tok_kind)k);
		const char *r = lex_all(s, LEX_NORMAL);
		char want[64];

		snprintf(want, sizeof(want), "%s@1:1 end of input@1:%zu", s, strlen(s) + 1);
		if (strcmp(r, want))
			test_fail(__FILE__, __LINE__, "%s lexes as %s", s, r);
	}
}
