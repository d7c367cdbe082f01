/* The lexer: see lexer.h.  Numbers are C's (0x hex, 0 octal) plus
 * bpftrace's 1_000 separators and 1e6 exponents, without suffixes;
 * strings take C's escapes. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "lang/lexer.h"

static const char *const tok_names[LANG_TOK_NKINDS] = {
	[LANG_TOK_EOF] = "end of input", [LANG_TOK_ERROR] = "error",
	[LANG_TOK_PROBE] = "probe", [LANG_TOK_IDENT] = "identifier",
	[LANG_TOK_VAR] = "variable", [LANG_TOK_MAP] = "map",
	[LANG_TOK_PARAM] = "positional parameter", [LANG_TOK_PARAMCOUNT] = "$#",
	[LANG_TOK_INT] = "integer", [LANG_TOK_STR] = "string",
	[LANG_TOK_IF] = "if", [LANG_TOK_ELSE] = "else", [LANG_TOK_WHILE] = "while",
	[LANG_TOK_FOR] = "for", [LANG_TOK_RETURN] = "return", [LANG_TOK_UNROLL] = "unroll",
	[LANG_TOK_CONFIG] = "config", [LANG_TOK_BREAK] = "break",
	[LANG_TOK_CONTINUE] = "continue", [LANG_TOK_BEGIN] = "BEGIN", [LANG_TOK_END] = "END",
	[LANG_TOK_LBRACE] = "{", [LANG_TOK_RBRACE] = "}", [LANG_TOK_LPAREN] = "(",
	[LANG_TOK_RPAREN] = ")", [LANG_TOK_LBRACKET] = "[", [LANG_TOK_RBRACKET] = "]",
	[LANG_TOK_SEMI] = ";", [LANG_TOK_COMMA] = ",", [LANG_TOK_COLON] = ":",
	[LANG_TOK_QUESTION] = "?", [LANG_TOK_DOT] = ".", [LANG_TOK_DOTDOT] = "..",
	[LANG_TOK_ARROW] = "->", [LANG_TOK_PLUS] = "+", [LANG_TOK_MINUS] = "-",
	[LANG_TOK_STAR] = "*", [LANG_TOK_SLASH] = "/", [LANG_TOK_PERCENT] = "%",
	[LANG_TOK_AMP] = "&", [LANG_TOK_PIPE] = "|", [LANG_TOK_CARET] = "^",
	[LANG_TOK_TILDE] = "~", [LANG_TOK_NOT] = "!", [LANG_TOK_SHL] = "<<",
	[LANG_TOK_SHR] = ">>", [LANG_TOK_LT] = "<", [LANG_TOK_LE] = "<=",
	[LANG_TOK_GT] = ">", [LANG_TOK_GE] = ">=", [LANG_TOK_EQ] = "==",
	[LANG_TOK_NE] = "!=", [LANG_TOK_LAND] = "&&", [LANG_TOK_LOR] = "||",
	[LANG_TOK_INC] = "++", [LANG_TOK_DEC] = "--", [LANG_TOK_ASSIGN] = "=",
	[LANG_TOK_ADD_ASSIGN] = "+=", [LANG_TOK_SUB_ASSIGN] = "-=",
	[LANG_TOK_MUL_ASSIGN] = "*=", [LANG_TOK_DIV_ASSIGN] = "/=",
	[LANG_TOK_MOD_ASSIGN] = "%=", [LANG_TOK_AND_ASSIGN] = "&=",
	[LANG_TOK_OR_ASSIGN] = "|=", [LANG_TOK_XOR_ASSIGN] = "^=",
	[LANG_TOK_SHL_ASSIGN] = "<<=", [LANG_TOK_SHR_ASSIGN] = ">>=",
};

const char *lang_tok_name(enum lang_tok_kind k)
{
	return (unsigned)k < LANG_TOK_NKINDS && tok_names[k] ? tok_names[k] : "?";
}

static const struct {
	const char *word;
	enum lang_tok_kind kind;
} keywords[] = {
	{ "if", LANG_TOK_IF }, { "else", LANG_TOK_ELSE }, { "while", LANG_TOK_WHILE },
	{ "for", LANG_TOK_FOR }, { "return", LANG_TOK_RETURN },
	{ "unroll", LANG_TOK_UNROLL }, { "config", LANG_TOK_CONFIG },
	{ "break", LANG_TOK_BREAK }, { "continue", LANG_TOK_CONTINUE },
	{ "BEGIN", LANG_TOK_BEGIN }, { "END", LANG_TOK_END },
};

/* Operators, longest first so that the first match is the longest. */
static const struct {
	const char *s;
	enum lang_tok_kind kind;
} ops[] = {
	{ "<<=", LANG_TOK_SHL_ASSIGN }, { ">>=", LANG_TOK_SHR_ASSIGN },
	{ "..", LANG_TOK_DOTDOT }, { "->", LANG_TOK_ARROW }, { "++", LANG_TOK_INC },
	{ "--", LANG_TOK_DEC }, { "+=", LANG_TOK_ADD_ASSIGN }, { "-=", LANG_TOK_SUB_ASSIGN },
	{ "*=", LANG_TOK_MUL_ASSIGN }, { "/=", LANG_TOK_DIV_ASSIGN },
	{ "%=", LANG_TOK_MOD_ASSIGN }, { "&=", LANG_TOK_AND_ASSIGN },
	{ "|=", LANG_TOK_OR_ASSIGN }, { "^=", LANG_TOK_XOR_ASSIGN },
	{ "<<", LANG_TOK_SHL }, { ">>", LANG_TOK_SHR }, { "<=", LANG_TOK_LE },
	{ ">=", LANG_TOK_GE }, { "==", LANG_TOK_EQ }, { "!=", LANG_TOK_NE },
	{ "&&", LANG_TOK_LAND }, { "||", LANG_TOK_LOR },
	{ "{", LANG_TOK_LBRACE }, { "}", LANG_TOK_RBRACE }, { "(", LANG_TOK_LPAREN },
	{ ")", LANG_TOK_RPAREN }, { "[", LANG_TOK_LBRACKET }, { "]", LANG_TOK_RBRACKET },
	{ ";", LANG_TOK_SEMI }, { ",", LANG_TOK_COMMA }, { ":", LANG_TOK_COLON },
	{ "?", LANG_TOK_QUESTION }, { ".", LANG_TOK_DOT }, { "+", LANG_TOK_PLUS },
	{ "-", LANG_TOK_MINUS }, { "*", LANG_TOK_STAR }, { "/", LANG_TOK_SLASH },
	{ "%", LANG_TOK_PERCENT }, { "&", LANG_TOK_AMP }, { "|", LANG_TOK_PIPE },
	{ "^", LANG_TOK_CARET }, { "~", LANG_TOK_TILDE }, { "!", LANG_TOK_NOT },
	{ "<", LANG_TOK_LT }, { ">", LANG_TOK_GT }, { "=", LANG_TOK_ASSIGN },
};

void lang_lex_init(struct lang_lexer *lx, struct lang_arena *arena,
		   const char *src, size_t len)
{
	lx->arena = arena;
	lx->src = lx->p = lx->line_start = src;
	lx->end = src + len;
	lx->line = 1;
	/* "#!/usr/bin/env stackscope" on the first line of a script */
	if (len >= 2 && src[0] == '#' && src[1] == '!')
		while (lx->p < lx->end && *lx->p != '\n')
			lx->p++;
}

static struct lang_pos pos_at(const struct lang_lexer *lx, const char *p)
{
	return (struct lang_pos){ lx->line, (unsigned)(p - lx->line_start) + 1 };
}

static struct lang_tok error_at(struct lang_lexer *lx, const char *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static struct lang_tok error_at(struct lang_lexer *lx, const char *at, const char *fmt, ...)
{
	struct lang_tok t = { .kind = LANG_TOK_ERROR, .pos = pos_at(lx, at) };
	char buf[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	t.text = lang_strndup(lx->arena, buf, strlen(buf));
	t.len = t.text ? strlen(t.text) : 0;
	if (!t.text)
		t.text = "out of memory";
	return t;
}

/* Whitespace and comments; an ERROR token for an unterminated comment. */
static bool skip_space(struct lang_lexer *lx, struct lang_tok *err)
{
	while (lx->p < lx->end) {
		char c = *lx->p;

		if (c == '\n') {
			lx->p++;
			lx->line++;
			lx->line_start = lx->p;
		} else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
			lx->p++;
		} else if (c == '/' && lx->p + 1 < lx->end && lx->p[1] == '/') {
			while (lx->p < lx->end && *lx->p != '\n')
				lx->p++;
		} else if (c == '/' && lx->p + 1 < lx->end && lx->p[1] == '*') {
			const char *start = lx->p;
			struct lang_pos pos = pos_at(lx, start);

			lx->p += 2;
			for (;;) {
				if (lx->p >= lx->end) {
					*err = error_at(lx, start, "unterminated comment");
					err->pos = pos;
					return false;
				}
				if (lx->p[0] == '*' && lx->p + 1 < lx->end && lx->p[1] == '/') {
					lx->p += 2;
					break;
				}
				if (*lx->p++ == '\n') {
					lx->line++;
					lx->line_start = lx->p;
				}
			}
		} else {
			break;
		}
	}
	return true;
}

static bool ident_start(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

static struct lang_tok word_tok(struct lang_lexer *lx, enum lang_tok_kind kind,
				const char *start, const char *text, size_t len)
{
	struct lang_tok t = { .kind = kind, .pos = pos_at(lx, start), .len = len };

	t.text = lang_strndup(lx->arena, text, len);
	if (!t.text)
		return error_at(lx, start, "out of memory");
	return t;
}

/* Providers whose attach points hold a path, where '/' is part of the word. */
static bool path_provider(const char *s, size_t n)
{
	static const char *const names[] = { "u", "ur", "uprobe", "uretprobe", "U", "usdt" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == n && !memcmp(names[i], s, n))
			return true;
	return false;
}

static struct lang_tok lex_probe(struct lang_lexer *lx)
{
	const char *start = lx->p, *colon = memchr(start, ':', (size_t)(lx->end - start));
	bool paths;

	/* the provider is what precedes the first ':' (if it is a word) */
	paths = false;
	if (colon) {
		const char *q = start;
		while (q < colon && ident_char(*q))
			q++;
		paths = q == colon && path_provider(start, (size_t)(colon - start));
	}
	while (lx->p < lx->end) {
		char c = *lx->p;

		if (c == '"') {
			const char *q = lx->p + 1;
			while (q < lx->end && *q != '"' && *q != '\n')
				q++;
			if (q >= lx->end || *q != '"')
				return error_at(lx, lx->p, "unterminated string");
			lx->p = q + 1;
			continue;
		}
		if (isspace((unsigned char)c) || c == ',' || c == '{' || c == '}' || c == ';' ||
		    (c == '/' && !paths) || c == '\0')
			break;
		lx->p++;
	}
	if (lx->p - start == 5 && !memcmp(start, "BEGIN", 5))
		return word_tok(lx, LANG_TOK_BEGIN, start, start, 5);
	if (lx->p - start == 3 && !memcmp(start, "END", 3))
		return word_tok(lx, LANG_TOK_END, start, start, 3);
	if (lx->p - start == 6 && !memcmp(start, "config", 6))
		return word_tok(lx, LANG_TOK_CONFIG, start, start, 6);
	return word_tok(lx, LANG_TOK_PROBE, start, start, (size_t)(lx->p - start));
}

static int digit_val(char c, int base)
{
	int v;

	if (c >= '0' && c <= '9')
		v = c - '0';
	else if (c >= 'a' && c <= 'f')
		v = c - 'a' + 10;
	else if (c >= 'A' && c <= 'F')
		v = c - 'A' + 10;
	else
		return -1;
	return v < base ? v : -1;
}

static struct lang_tok lex_number(struct lang_lexer *lx)
{
	const char *start = lx->p, *p = lx->p;
	uint64_t v = 0;
	int base = 10, d;
	bool any = false;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	} else if (p[0] == '0' && p + 1 < lx->end && isdigit((unsigned char)p[1])) {
		base = 8;
		p++;
	}
	for (; p < lx->end; p++) {
		if (*p == '_') {
			/* a separator stands between two digits */
			if (!any || p + 1 >= lx->end || digit_val(p[1], base) < 0) {
				lx->p = p + 1;
				return error_at(lx, p, "'_' in a number must stand between digits");
			}
			continue;
		}
		d = digit_val(*p, base);
		if (d < 0)
			break;
		if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base) {
			while (p < lx->end && ident_char(*p))
				p++;
			lx->p = p;
			return error_at(lx, start, "integer literal too large");
		}
		v = v * (uint64_t)base + (uint64_t)d;
		any = true;
	}
	if (base == 16 && !any) {
		lx->p = p;
		return error_at(lx, start, "hexadecimal literal without digits");
	}
	if (base == 8 && p < lx->end && isdigit((unsigned char)*p)) {
		lx->p = p + 1;
		return error_at(lx, p, "invalid digit '%c' in octal literal", *p);
	}
	if (base == 10 && p < lx->end && (*p == 'e' || *p == 'E') && p + 1 < lx->end &&
	    isdigit((unsigned char)p[1])) {
		unsigned e = 0;

		for (p++; p < lx->end && isdigit((unsigned char)*p); p++)
			if ((e = e * 10 + (unsigned)(*p - '0')) > 30)
				e = 30;
		while (e--) {
			if (v > UINT64_MAX / 10) {
				lx->p = p;
				return error_at(lx, start, "integer literal too large");
			}
			v *= 10;
		}
	}
	if (p < lx->end && ident_char(*p)) {
		const char *bad = p;
		while (p < lx->end && ident_char(*p))
			p++;
		lx->p = p;
		return error_at(lx, bad, "invalid suffix '%.*s' on integer literal",
				(int)(p - bad), bad);
	}
	lx->p = p;
	return (struct lang_tok){ .kind = LANG_TOK_INT, .pos = pos_at(lx, start), .num = v };
}

static struct lang_tok lex_string(struct lang_lexer *lx)
{
	const char *start = lx->p, *p = lx->p + 1;
	size_t cap = 0, n = 0;
	char *buf;
	struct lang_tok t;

	/* the unescaped text is never longer than the literal */
	for (const char *q = p; q < lx->end && *q != '"' && *q != '\n'; q++, cap++)
		if (*q == '\\' && q + 1 < lx->end)
			q++, cap++;
	buf = lang_alloc(lx->arena, cap + 1);
	if (!buf)
		return error_at(lx, start, "out of memory");
	for (;;) {
		char c;

		if (p >= lx->end || *p == '\n') {
			lx->p = p;
			return error_at(lx, start, "unterminated string");
		}
		c = *p++;
		if (c == '"')
			break;
		if (c != '\\') {
			buf[n++] = c;
			continue;
		}
		if (p >= lx->end) {
			lx->p = p;
			return error_at(lx, start, "unterminated string");
		}
		c = *p++;
		switch (c) {
		case 'n': buf[n++] = '\n'; break;
		case 't': buf[n++] = '\t'; break;
		case 'r': buf[n++] = '\r'; break;
		case 'a': buf[n++] = '\a'; break;
		case 'b': buf[n++] = '\b'; break;
		case 'f': buf[n++] = '\f'; break;
		case 'v': buf[n++] = '\v'; break;
		case 'e': buf[n++] = '\033'; break;
		case '\\': case '"': case '\'': case '?': buf[n++] = c; break;
		case 'x': {
			int v = 0, k = 0, d;

			while (k < 2 && p < lx->end && (d = digit_val(*p, 16)) >= 0)
				v = v * 16 + d, p++, k++;
			if (!k) {
				lx->p = p;
				return error_at(lx, p - 2, "\\x used with no following hex digits");
			}
			buf[n++] = (char)v;
			break;
		}
		default:
			if (c >= '0' && c <= '7') {
				int v = c - '0', k = 1;

				while (k < 3 && p < lx->end && *p >= '0' && *p <= '7')
					v = v * 8 + (*p++ - '0'), k++;
				if (v > 255) {
					lx->p = p;
					return error_at(lx, p - 4, "octal escape out of range");
				}
				buf[n++] = (char)v;
				break;
			}
			lx->p = p;
			if (isprint((unsigned char)c))
				return error_at(lx, p - 2, "unknown escape sequence '\\%c'", c);
			return error_at(lx, p - 2, "unknown escape sequence");
		}
	}
	lx->p = p;
	t = (struct lang_tok){ .kind = LANG_TOK_STR, .pos = pos_at(lx, start),
			       .text = buf, .len = n };
	return t;
}

struct lang_tok lang_lex(struct lang_lexer *lx, enum lang_lex_mode mode)
{
	struct lang_tok err;
	const char *start;
	char c;

	if (!skip_space(lx, &err))
		return err;
	start = lx->p;
	if (lx->p >= lx->end)
		return (struct lang_tok){ .kind = LANG_TOK_EOF, .pos = pos_at(lx, start) };
	c = *lx->p;
	if (mode == LEX_PROBE && !strchr(",{}/=;", c) && c != '\0')
		return lex_probe(lx);
	if (ident_start(c)) {
		while (lx->p < lx->end && ident_char(*lx->p))
			lx->p++;
		for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
			if (strlen(keywords[i].word) == (size_t)(lx->p - start) &&
			    !memcmp(keywords[i].word, start, (size_t)(lx->p - start)))
				return (struct lang_tok){ .kind = keywords[i].kind,
							  .pos = pos_at(lx, start),
							  .text = keywords[i].word,
							  .len = strlen(keywords[i].word) };
		return word_tok(lx, LANG_TOK_IDENT, start, start, (size_t)(lx->p - start));
	}
	if (isdigit((unsigned char)c))
		return lex_number(lx);
	if (c == '"')
		return lex_string(lx);
	if (c == '$') {
		const char *p = lx->p + 1;

		if (p < lx->end && *p == '#') {
			lx->p = p + 1;
			return (struct lang_tok){ .kind = LANG_TOK_PARAMCOUNT,
						  .pos = pos_at(lx, start) };
		}
		if (p < lx->end && isdigit((unsigned char)*p)) {
			uint64_t v = 0;

			for (; p < lx->end && isdigit((unsigned char)*p); p++)
				if ((v = v * 10 + (uint64_t)(*p - '0')) > 1000000)
					v = 1000000;
			lx->p = p;
			if (v == 0 || v >= 1000000)
				return error_at(lx, start, "positional parameters are $1 to $999999");
			return (struct lang_tok){ .kind = LANG_TOK_PARAM, .pos = pos_at(lx, start),
						  .num = v };
		}
		if (p < lx->end && ident_start(*p)) {
			while (p < lx->end && ident_char(*p))
				p++;
			lx->p = p;
			return word_tok(lx, LANG_TOK_VAR, start, start, (size_t)(p - start));
		}
		lx->p = p;
		return error_at(lx, start, "expected a variable name after '$'");
	}
	if (c == '@') {
		const char *p = lx->p + 1;

		while (p < lx->end && ident_char(*p))
			p++;
		lx->p = p;
		return word_tok(lx, LANG_TOK_MAP, start, start, (size_t)(p - start));
	}
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		size_t n = strlen(ops[i].s);

		if ((size_t)(lx->end - lx->p) >= n && !memcmp(lx->p, ops[i].s, n)) {
			lx->p += n;
			return (struct lang_tok){ .kind = ops[i].kind, .pos = pos_at(lx, start) };
		}
	}
	lx->p++;
	if (isprint((unsigned char)c))
		return error_at(lx, start, "unexpected character '%c'", c);
	return error_at(lx, start, "unexpected byte 0x%02x", (unsigned char)c);
}
