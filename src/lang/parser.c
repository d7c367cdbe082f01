/* The parser: recursive descent for statements and probes, precedence
 * climbing for expressions, with C's levels and associativity:
 *
 *   postfix  () [] . -> x++ x--
 *   unary    ! ~ - * & ++x --x (type)x          right to left
 *   * / %    + -    << >>    < <= > >=    == !=    &    ^    |    &&    ||
 *                                                   left to right
 *   ?:                                              right to left
 *   = += -= *= /= %= &= |= ^= <<= >>=               statements only (as in bpftrace)
 *
 * A predicate "/expr/" ends at the '/' that a '{' follows, so "a / b"
 * still divides inside it.  The first error stops the parse. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "lang/ast.h"
#include "lang/lexer.h"

struct parser {
	struct lang_prog *prog;
	struct lang_arena *arena;
	struct lang_lexer lx;
	struct lang_tok cur, peek;
	bool has_peek;
	bool in_pred;		/* a '/' before '{' ends the expression */
	bool failed;
	int depth;
};

/* ---- tokens and errors ---------------------------------------------- */

static void error_at(struct parser *p, struct lang_pos pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void error_at(struct parser *p, struct lang_pos pos, const char *fmt, ...)
{
	char buf[200];
	va_list ap;

	if (p->failed)
		return;
	p->failed = true;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	lang_errorf(p->prog, pos, "%s", buf);
}

/* How a token reads in a message: identifier 'foo', '+', end of input. */
static const char *describe(const struct lang_tok *t, char *buf, size_t size)
{
	switch (t->kind) {
	case LANG_TOK_IDENT: case LANG_TOK_VAR: case LANG_TOK_MAP: case LANG_TOK_PROBE:
		snprintf(buf, size, "%s '%.*s'", lang_tok_name(t->kind),
			 t->len > 40 ? 40 : (int)t->len, t->text);
		break;
	case LANG_TOK_INT:
		snprintf(buf, size, "integer %llu", (unsigned long long)t->num);
		break;
	case LANG_TOK_PARAM:
		snprintf(buf, size, "'$%llu'", (unsigned long long)t->num);
		break;
	case LANG_TOK_STR: case LANG_TOK_EOF:
		snprintf(buf, size, "%s", lang_tok_name(t->kind));
		break;
	default:
		snprintf(buf, size, "'%s'", lang_tok_name(t->kind));
	}
	return buf;
}

/* "expected WHAT, found TOKEN" at the current token. */
static void unexpected(struct parser *p, const char *what)
{
	char buf[80];

	if (p->cur.kind == LANG_TOK_ERROR)
		error_at(p, p->cur.pos, "%s", p->cur.text);
	else
		error_at(p, p->cur.pos, "expected %s, found %s", what,
			 describe(&p->cur, buf, sizeof(buf)));
}

static void advance(struct parser *p, enum lang_lex_mode mode)
{
	if (p->failed)
		return;
	if (p->has_peek) {
		p->cur = p->peek;
		p->has_peek = false;
	} else {
		p->cur = lang_lex(&p->lx, mode);
	}
	if (p->cur.kind == LANG_TOK_ERROR)
		error_at(p, p->cur.pos, "%s", p->cur.text);
}

/* The token after the current one, lexed as NORMAL. */
static const struct lang_tok *peek(struct parser *p)
{
	if (!p->has_peek) {
		p->peek = lang_lex(&p->lx, LEX_NORMAL);
		p->has_peek = true;
	}
	return &p->peek;
}

static bool accept(struct parser *p, enum lang_tok_kind k)
{
	if (p->failed || p->cur.kind != k)
		return false;
	advance(p, LEX_NORMAL);
	return true;
}

static bool expect(struct parser *p, enum lang_tok_kind k, const char *what)
{
	char buf[40];

	if (p->failed)
		return false;
	if (p->cur.kind != k) {
		snprintf(buf, sizeof(buf), "'%s'%s%s", lang_tok_name(k), what ? " " : "",
			 what ? what : "");
		unexpected(p, buf);
		return false;
	}
	advance(p, LEX_NORMAL);
	return true;
}

static bool enter(struct parser *p, struct lang_pos pos)
{
	if (++p->depth > LANG_MAX_DEPTH) {
		error_at(p, pos, "nesting too deep (more than %d levels)", LANG_MAX_DEPTH);
		return false;
	}
	return !p->failed;
}

static void leave(struct parser *p)
{
	p->depth--;
}

/* ---- nodes ---------------------------------------------------------- */

static struct lang_node *node(struct parser *p, enum lang_node_kind kind, struct lang_pos pos)
{
	struct lang_node *n = lang_alloc(p->arena, sizeof(*n));

	if (!n) {
		error_at(p, pos, "out of memory");
		return NULL;
	}
	n->kind = kind;
	n->pos = pos;
	return n;
}

/* Growable node lists in the arena (old arrays are left in it). */
static bool push(struct parser *p, struct lang_node *n, struct lang_node *item, size_t *cap)
{
	if (n->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 4;
		struct lang_node **l = lang_alloc(p->arena, ncap * sizeof(*l));

		if (!l) {
			error_at(p, item ? item->pos : n->pos, "out of memory");
			return false;
		}
		if (n->n)
			memcpy(l, n->list, n->n * sizeof(*l));
		n->list = l;
		*cap = ncap;
	}
	n->list[n->n++] = item;
	return true;
}

/* ---- expressions ---------------------------------------------------- */

static struct lang_node *parse_expr(struct parser *p);

static int binary_prec(enum lang_tok_kind k)
{
	switch (k) {
	case LANG_TOK_LOR: return 1;
	case LANG_TOK_LAND: return 2;
	case LANG_TOK_PIPE: return 3;
	case LANG_TOK_CARET: return 4;
	case LANG_TOK_AMP: return 5;
	case LANG_TOK_EQ: case LANG_TOK_NE: return 6;
	case LANG_TOK_LT: case LANG_TOK_LE: case LANG_TOK_GT: case LANG_TOK_GE: return 7;
	case LANG_TOK_SHL: case LANG_TOK_SHR: return 8;
	case LANG_TOK_PLUS: case LANG_TOK_MINUS: return 9;
	case LANG_TOK_STAR: case LANG_TOK_SLASH: case LANG_TOK_PERCENT: return 10;
	default: return 0;
	}
}

/* Type names a cast may use: (int32)x, (uint8 *)p, (struct task_struct *)p. */
static bool is_type_name(const char *s)
{
	static const char *const names[] = {
		"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
		"bool", "struct", "union", "enum",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i]))
			return true;
	return false;
}

/* After '(' on a type name: "TYPE [NAME] [*...] [[N]] )" then the operand. */
static struct lang_node *parse_cast(struct parser *p, struct lang_pos pos)
{
	char name[160];
	size_t len;
	struct lang_node *n;

	snprintf(name, sizeof(name), "%s", p->cur.text);
	if (!strcmp(name, "struct") || !strcmp(name, "union") || !strcmp(name, "enum")) {
		advance(p, LEX_NORMAL);
		if (p->cur.kind != LANG_TOK_IDENT) {
			unexpected(p, "a type name");
			return NULL;
		}
		len = strlen(name);
		snprintf(name + len, sizeof(name) - len, " %s", p->cur.text);
	}
	advance(p, LEX_NORMAL);
	if (p->cur.kind == LANG_TOK_STAR) {
		len = strlen(name);
		snprintf(name + len, sizeof(name) - len, " ");
	}
	while (p->cur.kind == LANG_TOK_STAR && !p->failed) {
		len = strlen(name);
		snprintf(name + len, sizeof(name) - len, "*");
		advance(p, LEX_NORMAL);
	}
	if (p->cur.kind == LANG_TOK_LBRACKET) {
		advance(p, LEX_NORMAL);
		if (p->cur.kind != LANG_TOK_INT) {
			unexpected(p, "an array length");
			return NULL;
		}
		len = strlen(name);
		snprintf(name + len, sizeof(name) - len, "[%llu]", (unsigned long long)p->cur.num);
		advance(p, LEX_NORMAL);
		if (!expect(p, LANG_TOK_RBRACKET, NULL))
			return NULL;
	}
	if (!expect(p, LANG_TOK_RPAREN, "after the type of a cast"))
		return NULL;
	n = node(p, LANG_N_CAST, pos);
	if (!n)
		return NULL;
	n->name = lang_strndup(p->arena, name, strlen(name));
	return n;
}

static struct lang_node *parse_unary(struct parser *p);

/* ( expr ) or a tuple ( a, b, ... ) */
static struct lang_node *parse_paren(struct parser *p, struct lang_pos pos)
{
	struct lang_node *e = parse_expr(p), *t;
	size_t cap = 0;

	if (!e)
		return NULL;
	if (p->cur.kind != LANG_TOK_COMMA) {
		return expect(p, LANG_TOK_RPAREN, NULL) ? e : NULL;
	}
	t = node(p, LANG_N_TUPLE, pos);
	if (!t || !push(p, t, e, &cap))
		return NULL;
	while (accept(p, LANG_TOK_COMMA)) {
		e = parse_expr(p);
		if (!e || !push(p, t, e, &cap))
			return NULL;
	}
	return expect(p, LANG_TOK_RPAREN, "after a tuple") ? t : NULL;
}

/* a, b, c ) -- the list of a call or of map keys, up to the closer */
static bool parse_args(struct parser *p, struct lang_node *n, enum lang_tok_kind close,
		       const char *what)
{
	size_t cap = 0;

	if (p->cur.kind == close) {
		advance(p, LEX_NORMAL);
		return true;
	}
	for (;;) {
		struct lang_node *e = parse_expr(p);

		if (!e || !push(p, n, e, &cap))
			return false;
		if (accept(p, LANG_TOK_COMMA))
			continue;
		return expect(p, close, what);
	}
}

static struct lang_node *parse_primary(struct parser *p)
{
	struct lang_tok t = p->cur;
	struct lang_node *n = NULL;

	switch (t.kind) {
	case LANG_TOK_INT:
		n = node(p, LANG_N_INT, t.pos);
		if (n)
			n->num = t.num;
		advance(p, LEX_NORMAL);
		return n;
	case LANG_TOK_STR:
		n = node(p, LANG_N_STR, t.pos);
		if (n)
			n->str = t.text, n->len = t.len;
		advance(p, LEX_NORMAL);
		return n;
	case LANG_TOK_VAR:
		n = node(p, LANG_N_VAR, t.pos);
		if (n)
			n->name = t.text;
		advance(p, LEX_NORMAL);
		return n;
	case LANG_TOK_PARAM:
		n = node(p, LANG_N_PARAM, t.pos);
		if (n)
			n->num = t.num;
		advance(p, LEX_NORMAL);
		return n;
	case LANG_TOK_PARAMCOUNT:
		n = node(p, LANG_N_PARAMCOUNT, t.pos);
		advance(p, LEX_NORMAL);
		return n;
	case LANG_TOK_MAP:
		n = node(p, LANG_N_MAP, t.pos);
		if (!n)
			return NULL;
		n->name = t.text;
		advance(p, LEX_NORMAL);
		if (accept(p, LANG_TOK_LBRACKET)) {
			if (p->cur.kind == LANG_TOK_RBRACKET) {
				unexpected(p, "a map key");
				return NULL;
			}
			if (!parse_args(p, n, LANG_TOK_RBRACKET, "after map keys"))
				return NULL;
		}
		return n;
	case LANG_TOK_IDENT:
		advance(p, LEX_NORMAL);
		if (p->cur.kind == LANG_TOK_LPAREN) {
			const struct lang_builtin *bi = lang_builtin_find(t.text);

			n = node(p, LANG_N_CALL, t.pos);
			if (!n)
				return NULL;
			n->name = t.text;
			n->bi = bi && bi->type != LANG_BI_VAR ? bi : NULL;
			advance(p, LEX_NORMAL);
			return parse_args(p, n, LANG_TOK_RPAREN, "after call arguments") ? n : NULL;
		}
		{
			const struct lang_builtin *bi = lang_builtin_find(t.text);

			n = node(p, bi && bi->type != LANG_BI_FUNC ? LANG_N_BUILTIN : LANG_N_IDENT,
				 t.pos);
			if (n) {
				n->name = t.text;
				n->bi = n->kind == LANG_N_BUILTIN ? bi : NULL;
			}
		}
		return n;
	case LANG_TOK_LPAREN:
		advance(p, LEX_NORMAL);
		if (p->cur.kind == LANG_TOK_IDENT && is_type_name(p->cur.text)) {
			struct lang_node *c;

			if (!enter(p, t.pos))
				return NULL;
			c = parse_cast(p, t.pos);
			if (c)
				c->a = parse_unary(p);
			leave(p);
			return c && c->a ? c : NULL;
		}
		return parse_paren(p, t.pos);
	default:
		unexpected(p, "an expression");
		return NULL;
	}
}

static struct lang_node *parse_postfix(struct parser *p)
{
	struct lang_node *e = parse_primary(p), *n;

	while (e && !p->failed) {
		struct lang_tok t = p->cur;

		switch (t.kind) {
		case LANG_TOK_DOT:
		case LANG_TOK_ARROW:
			advance(p, LEX_NORMAL);
			n = node(p, LANG_N_FIELD, t.pos);
			if (!n)
				return NULL;
			n->op = t.kind;
			n->a = e;
			if (p->cur.kind == LANG_TOK_IDENT) {
				n->name = p->cur.text;
			} else if (p->cur.kind == LANG_TOK_INT && t.kind == LANG_TOK_DOT) {
				char buf[24];	/* $tuple.0 */
				int len = snprintf(buf, sizeof(buf), "%llu",
						   (unsigned long long)p->cur.num);
				n->name = lang_strndup(p->arena, buf, (size_t)len);
				n->num = p->cur.num;
			} else {
				unexpected(p, "a field name");
				return NULL;
			}
			advance(p, LEX_NORMAL);
			e = n;
			break;
		case LANG_TOK_LBRACKET:
			advance(p, LEX_NORMAL);
			n = node(p, LANG_N_INDEX, t.pos);
			if (!n)
				return NULL;
			n->a = e;
			n->b = parse_expr(p);
			if (!n->b || !expect(p, LANG_TOK_RBRACKET, "after an index"))
				return NULL;
			e = n;
			break;
		case LANG_TOK_INC:
		case LANG_TOK_DEC:
			advance(p, LEX_NORMAL);
			n = node(p, LANG_N_INCDEC, e->pos);
			if (!n)
				return NULL;
			n->op = t.kind;
			n->num = 1;
			n->a = e;
			e = n;
			break;
		case LANG_TOK_LPAREN:
			error_at(p, t.pos, "only a function name can be called");
			return NULL;
		default:
			return e;
		}
	}
	return p->failed ? NULL : e;
}

static struct lang_node *parse_unary(struct parser *p)
{
	struct lang_tok t = p->cur;
	struct lang_node *n;

	switch (t.kind) {
	case LANG_TOK_NOT: case LANG_TOK_TILDE: case LANG_TOK_MINUS:
	case LANG_TOK_STAR: case LANG_TOK_AMP: case LANG_TOK_INC: case LANG_TOK_DEC:
		if (!enter(p, t.pos))
			return NULL;
		advance(p, LEX_NORMAL);
		n = node(p, t.kind == LANG_TOK_INC || t.kind == LANG_TOK_DEC ?
			 LANG_N_INCDEC : LANG_N_UNARY, t.pos);
		if (n) {
			n->op = t.kind;
			n->a = parse_unary(p);
		}
		leave(p);
		return n && n->a ? n : NULL;
	default:
		return parse_postfix(p);
	}
}

static struct lang_node *parse_binary(struct parser *p, int min_prec)
{
	struct lang_node *left = parse_unary(p);

	while (left && !p->failed) {
		struct lang_tok t = p->cur;
		int prec = binary_prec(t.kind);
		struct lang_node *n;

		if (!prec || prec < min_prec)
			break;
		/* the '/' that closes a predicate */
		if (p->in_pred && t.kind == LANG_TOK_SLASH && peek(p)->kind == LANG_TOK_LBRACE)
			break;
		advance(p, LEX_NORMAL);
		n = node(p, LANG_N_BINARY, t.pos);
		if (!n)
			return NULL;
		n->op = t.kind;
		n->a = left;
		n->b = parse_binary(p, prec + 1);	/* left associative */
		if (!n->b)
			return NULL;
		left = n;
	}
	return p->failed ? NULL : left;
}

static struct lang_node *parse_expr(struct parser *p)
{
	struct lang_node *cond, *n = NULL;
	struct lang_pos pos = p->cur.pos;

	if (!enter(p, pos))
		return NULL;
	cond = parse_binary(p, 1);
	if (cond && p->cur.kind == LANG_TOK_QUESTION) {
		n = node(p, LANG_N_TERNARY, p->cur.pos);
		advance(p, LEX_NORMAL);
		if (n) {
			n->a = cond;
			n->b = parse_expr(p);
			if (n->b && expect(p, LANG_TOK_COLON, "in a ?: expression"))
				n->c = parse_expr(p);	/* right associative */
			if (!n->c)
				n = NULL;
		}
	} else {
		n = cond;
	}
	leave(p);
	return p->failed ? NULL : n;
}

/* ---- statements ----------------------------------------------------- */

static struct lang_node *parse_block(struct parser *p, enum lang_lex_mode after);

static bool is_assign_op(enum lang_tok_kind k)
{
	return k >= LANG_TOK_ASSIGN && k <= LANG_TOK_SHR_ASSIGN;
}

/* "( expr )" of if, while, unroll */
static struct lang_node *parse_cond(struct parser *p, const char *what)
{
	struct lang_node *e;
	char buf[40];

	snprintf(buf, sizeof(buf), "after '%s'", what);
	if (!expect(p, LANG_TOK_LPAREN, buf))
		return NULL;
	e = parse_expr(p);
	snprintf(buf, sizeof(buf), "after the %s condition", what);
	if (!e || !expect(p, LANG_TOK_RPAREN, strcmp(what, "unroll") ? buf : "after the count"))
		return NULL;
	return e;
}

static struct lang_node *parse_if(struct parser *p)
{
	struct lang_node *n = node(p, LANG_N_IF, p->cur.pos);

	advance(p, LEX_NORMAL);
	if (!n || !(n->a = parse_cond(p, "if")) || !(n->b = parse_block(p, LEX_NORMAL)))
		return NULL;
	if (accept(p, LANG_TOK_ELSE)) {
		if (p->cur.kind == LANG_TOK_IF) {
			if (!enter(p, p->cur.pos))
				return NULL;
			n->c = parse_if(p);
			leave(p);
		} else {
			n->c = parse_block(p, LEX_NORMAL);
		}
		if (!n->c)
			return NULL;
	}
	return n;
}

static struct lang_node *parse_for(struct parser *p)
{
	struct lang_node *n = node(p, LANG_N_FOR, p->cur.pos), *src;

	advance(p, LEX_NORMAL);
	if (!n || !expect(p, LANG_TOK_LPAREN, "after 'for'"))
		return NULL;
	if (p->cur.kind != LANG_TOK_VAR) {
		unexpected(p, "a variable after 'for ('");
		return NULL;
	}
	n->a = node(p, LANG_N_VAR, p->cur.pos);
	if (!n->a)
		return NULL;
	n->a->name = p->cur.text;
	advance(p, LEX_NORMAL);
	if (!expect(p, LANG_TOK_COLON, "after the loop variable"))
		return NULL;
	src = parse_expr(p);
	if (!src)
		return NULL;
	if (p->cur.kind == LANG_TOK_DOTDOT) {
		struct lang_node *r = node(p, LANG_N_RANGE, src->pos);

		advance(p, LEX_NORMAL);
		if (!r)
			return NULL;
		r->a = src;
		r->b = parse_expr(p);
		if (!r->b)
			return NULL;
		src = r;
	} else if (src->kind != LANG_N_MAP || src->n) {
		error_at(p, src->pos, "a for loop runs over a range A..B or a map (@name)");
		return NULL;
	}
	n->b = src;
	if (!expect(p, LANG_TOK_RPAREN, "after the loop's range") ||
	    !(n->c = parse_block(p, LEX_NORMAL)))
		return NULL;
	return n;
}

/* A statement; *block_like tells whether it needs no ';' after it. */
/* `WORD (COND) { BLOCK }`: while and unroll. */
static struct lang_node *parse_cond_block(struct parser *p, enum lang_node_kind kind,
					  const char *word)
{
	struct lang_node *n = node(p, kind, p->cur.pos);

	advance(p, LEX_NORMAL);
	if (!n || !(n->a = parse_cond(p, word)) || !(n->b = parse_block(p, LEX_NORMAL)))
		return NULL;
	return n;
}

static struct lang_node *parse_stmt(struct parser *p, bool *block_like)
{
	struct lang_tok t = p->cur;
	struct lang_node *n, *e;

	*block_like = false;
	switch (t.kind) {
	case LANG_TOK_IF:
		*block_like = true;
		return parse_if(p);
	case LANG_TOK_WHILE:
		*block_like = true;
		return parse_cond_block(p, LANG_N_WHILE, "while");
	case LANG_TOK_FOR:
		*block_like = true;
		return parse_for(p);
	case LANG_TOK_UNROLL:
		*block_like = true;
		return parse_cond_block(p, LANG_N_UNROLL, "unroll");
	case LANG_TOK_LBRACE:
		*block_like = true;
		return parse_block(p, LEX_NORMAL);
	case LANG_TOK_RETURN:
		n = node(p, LANG_N_RETURN, t.pos);
		advance(p, LEX_NORMAL);
		if (n && p->cur.kind != LANG_TOK_SEMI && p->cur.kind != LANG_TOK_RBRACE &&
		    !(n->a = parse_expr(p)))
			return NULL;
		return n;
	case LANG_TOK_BREAK:
	case LANG_TOK_CONTINUE:
		n = node(p, t.kind == LANG_TOK_BREAK ? LANG_N_BREAK : LANG_N_CONTINUE, t.pos);
		advance(p, LEX_NORMAL);
		return n;
	default:
		break;
	}
	e = parse_expr(p);
	if (!e)
		return NULL;
	if (is_assign_op(p->cur.kind)) {
		struct lang_tok op = p->cur;

		if (e->kind != LANG_N_VAR && e->kind != LANG_N_MAP) {
			error_at(p, op.pos, "'%s' needs a variable ($x) or a map (@m) on its left",
				 lang_tok_name(op.kind));
			return NULL;
		}
		advance(p, LEX_NORMAL);
		n = node(p, LANG_N_ASSIGN, op.pos);
		if (!n)
			return NULL;
		n->op = op.kind;
		n->a = e;
		n->b = parse_expr(p);
		if (!n->b)
			return NULL;
		if (is_assign_op(p->cur.kind)) {
			error_at(p, p->cur.pos, "an assignment is a statement, not a value");
			return NULL;
		}
		return n;
	}
	n = node(p, LANG_N_EXPR, e->pos);
	if (n)
		n->a = e;
	return n;
}

/* { statements } -- the token after '}' is lexed in mode `after`. */
static struct lang_node *parse_block(struct parser *p, enum lang_lex_mode after)
{
	struct lang_node *blk;
	size_t cap = 0;

	if (p->failed)
		return NULL;
	if (p->cur.kind != LANG_TOK_LBRACE) {
		unexpected(p, "'{'");
		return NULL;
	}
	if (!enter(p, p->cur.pos))
		return NULL;
	blk = node(p, LANG_N_BLOCK, p->cur.pos);
	advance(p, LEX_NORMAL);
	while (blk && !p->failed && p->cur.kind != LANG_TOK_RBRACE) {
		bool block_like;
		struct lang_node *s;

		if (accept(p, LANG_TOK_SEMI))
			continue;
		if (p->cur.kind == LANG_TOK_EOF) {
			error_at(p, p->cur.pos, "expected '}' before end of input");
			break;
		}
		s = parse_stmt(p, &block_like);
		if (!s || !push(p, blk, s, &cap))
			break;
		if (block_like || p->cur.kind == LANG_TOK_RBRACE)
			continue;
		if (!accept(p, LANG_TOK_SEMI) && !p->failed)
			unexpected(p, "';' or '}' after a statement");
	}
	leave(p);
	if (p->failed)
		return NULL;
	advance(p, after);
	return blk;
}

/* ---- probes --------------------------------------------------------- */

static const struct {
	const char *name, *alias;
	enum lang_provider provider;
} providers[] = {
	{ "kprobe", "k", LANG_P_KPROBE }, { "kretprobe", "kr", LANG_P_KRETPROBE },
	{ "uprobe", "u", LANG_P_UPROBE }, { "uretprobe", "ur", LANG_P_URETPROBE },
	{ "tracepoint", "t", LANG_P_TRACEPOINT },
	{ "rawtracepoint", "rt", LANG_P_RAWTRACEPOINT }, { "usdt", "U", LANG_P_USDT },
	{ "profile", "p", LANG_P_PROFILE }, { "interval", "i", LANG_P_INTERVAL },
	{ "software", "s", LANG_P_SOFTWARE }, { "hardware", "h", LANG_P_HARDWARE },
	{ "fentry", "f", LANG_P_FENTRY }, { "fexit", "fr", LANG_P_FEXIT },
	{ "kfunc", NULL, LANG_P_FENTRY }, { "kretfunc", NULL, LANG_P_FEXIT },
	{ "watchpoint", "w", LANG_P_WATCHPOINT }, { "syscall", NULL, LANG_P_SYSCALL },
};

static const char *const software_events[] = {
	"cpu-clock", "cpu", "task-clock", "page-faults", "faults", "context-switches", "cs",
	"cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
	"emulation-faults", "dummy", "bpf-output",
};

static const char *const hardware_events[] = {
	"cpu-cycles", "cycles", "instructions", "cache-references", "cache-misses",
	"branch-instructions", "branches", "branch-misses", "bus-cycles",
	"frontend-stalls", "backend-stalls", "ref-cycles",
};

#define MAX_PIECES 6

struct piece {
	const char *s;		/* arena copy, quotes removed */
	unsigned col;
};

/* A decimal, 0x hex or 0 octal number filling s; false if not one. */
static bool parse_num(const char *s, uint64_t *out)
{
	struct lang_lexer lx;
	struct lang_arena a = { 0 };
	struct lang_tok t;
	bool ok;

	lang_lex_init(&lx, &a, s, strlen(s));
	t = lang_lex(&lx, LEX_NORMAL);
	ok = t.kind == LANG_TOK_INT && lang_lex(&lx, LEX_NORMAL).kind == LANG_TOK_EOF;
	*out = t.num;
	lang_arena_free(&a);
	return ok;
}

static bool in_list(const char *s, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s, list[i]))
			return true;
	return false;
}

/* FUNC+OFFSET: splits the offset off into at. */
static bool split_offset(struct parser *p, struct lang_attach *at, struct piece *pc)
{
	char *plus = strrchr(pc->s, '+');

	if (!plus)
		return true;
	if (at->provider != LANG_P_KPROBE && at->provider != LANG_P_UPROBE) {
		error_at(p, (struct lang_pos){ at->pos.line, pc->col + (unsigned)(plus - pc->s) },
			 "%s probes take no offset", lang_provider_name(at->provider));
		return false;
	}
	if (plus == pc->s || !parse_num(plus + 1, &at->offset)) {
		error_at(p, (struct lang_pos){ at->pos.line, pc->col + (unsigned)(plus - pc->s) },
			 "expected FUNCTION+OFFSET with a number as the offset");
		return false;
	}
	*plus = '\0';
	at->has_offset = true;
	return true;
}

static bool parse_attach(struct parser *p, struct lang_attach *at)
{
	struct piece pcs[MAX_PIECES];
	const char *text = p->cur.text, *q = text;
	size_t n = 0;
	enum lang_provider prov;
	bool found = false;
	struct lang_pos pos = p->cur.pos;

#define FAIL_AT(col, ...) do { \
		error_at(p, (struct lang_pos){ pos.line, (col) }, __VA_ARGS__); \
		return false; \
	} while (0)

	at->pos = pos;
	at->text = text;
	if (p->cur.kind == LANG_TOK_BEGIN || p->cur.kind == LANG_TOK_END) {
		at->provider = p->cur.kind == LANG_TOK_BEGIN ? LANG_P_BEGIN : LANG_P_END;
		return true;
	}
	/* split on ':' outside quotes */
	for (;;) {
		const char *start = q;
		char buf[4096];
		size_t len = 0;

		if (n == MAX_PIECES)
			FAIL_AT(pos.col + (unsigned)(q - text), "too many ':'-separated parts");
		while (*q && *q != ':') {
			if (*q == '"') {
				for (q++; *q && *q != '"'; q++)
					if (len < sizeof(buf) - 1)
						buf[len++] = *q;
				if (*q)
					q++;
				continue;
			}
			if (len < sizeof(buf) - 1)
				buf[len++] = *q;
			q++;
		}
		pcs[n].s = lang_strndup(p->arena, buf, len);
		pcs[n].col = pos.col + (unsigned)(start - text);
		if (!pcs[n].s)
			FAIL_AT(pos.col, "out of memory");
		if (strpbrk(pcs[n].s, "*?"))
			at->wildcard = true;
		n++;
		if (!*q)
			break;
		q++;
	}
	for (size_t i = 0; i < sizeof(providers) / sizeof(providers[0]); i++)
		if (!strcmp(pcs[0].s, providers[i].name) ||
		    (providers[i].alias && !strcmp(pcs[0].s, providers[i].alias))) {
			prov = providers[i].provider;
			found = true;
			break;
		}
	if (!found)
		FAIL_AT(pos.col, "unknown probe type '%s'", pcs[0].s);
	at->provider = prov;
	for (size_t i = 1; i < n; i++)
		if (!pcs[i].s[0])
			FAIL_AT(pcs[i].col, "empty part in probe '%s'", text);

	switch (prov) {
	case LANG_P_KPROBE: case LANG_P_KRETPROBE: case LANG_P_FENTRY: case LANG_P_FEXIT:
	case LANG_P_RAWTRACEPOINT:
		if (n < 2 || n > 3)
			FAIL_AT(pos.col, "%s probes are %s:[MODULE:]%s", lang_provider_name(prov),
				lang_provider_name(prov),
				prov == LANG_P_RAWTRACEPOINT ? "EVENT" : "FUNCTION");
		if (n == 3)
			at->target = pcs[1].s;
		if (!split_offset(p, at, &pcs[n - 1]))
			return false;
		at->func = pcs[n - 1].s;
		return true;
	case LANG_P_UPROBE: case LANG_P_URETPROBE:
		if (n != 3)
			FAIL_AT(pos.col, "%s probes are %s:PATH:FUNCTION[+OFFSET]",
				lang_provider_name(prov), lang_provider_name(prov));
		at->target = pcs[1].s;
		if (!split_offset(p, at, &pcs[2]))
			return false;
		at->func = pcs[2].s;
		return true;
	case LANG_P_TRACEPOINT:
		if (n != 3)
			FAIL_AT(pos.col, "tracepoint probes are tracepoint:CATEGORY:EVENT");
		at->target = pcs[1].s;
		at->func = pcs[2].s;
		return true;
	case LANG_P_USDT:
		if (n != 3 && n != 4)
			FAIL_AT(pos.col, "usdt probes are usdt:PATH:[PROVIDER:]NAME");
		at->target = pcs[1].s;
		if (n == 4)
			at->ns = pcs[2].s;
		at->func = pcs[n - 1].s;
		return true;
	case LANG_P_PROFILE: case LANG_P_INTERVAL: {
		static const char *const units[] = { "hz", "s", "ms", "us" };

		if (n != 3)
			FAIL_AT(pos.col, "%s probes are %s:UNIT:N (UNIT hz, s, ms or us)",
				lang_provider_name(prov), lang_provider_name(prov));
		if (!in_list(pcs[1].s, units, 4))
			FAIL_AT(pcs[1].col, "%s: unknown unit '%s' (hz, s, ms or us)",
				lang_provider_name(prov), pcs[1].s);
		if (!parse_num(pcs[2].s, &at->num) || !at->num)
			FAIL_AT(pcs[2].col, "%s: the rate must be a positive integer, not '%s'",
				lang_provider_name(prov), pcs[2].s);
		at->unit = pcs[1].s;
		return true;
	}
	case LANG_P_SOFTWARE: case LANG_P_HARDWARE:
		if (n != 2 && n != 3)
			FAIL_AT(pos.col, "%s probes are %s:EVENT[:COUNT]", lang_provider_name(prov),
				lang_provider_name(prov));
		if (prov == LANG_P_SOFTWARE ?
		    !in_list(pcs[1].s, software_events, sizeof(software_events) / sizeof(char *)) :
		    !in_list(pcs[1].s, hardware_events, sizeof(hardware_events) / sizeof(char *)))
			FAIL_AT(pcs[1].col, "unknown %s event '%s'", lang_provider_name(prov), pcs[1].s);
		at->func = pcs[1].s;
		if (n == 3 && (!parse_num(pcs[2].s, &at->num) || !at->num))
			FAIL_AT(pcs[2].col, "%s: the count must be a positive integer, not '%s'",
				lang_provider_name(prov), pcs[2].s);
		return true;
	case LANG_P_WATCHPOINT:
		if (n != 4)
			FAIL_AT(pos.col, "watchpoint probes are watchpoint:ADDRESS:LENGTH:MODE");
		if (!parse_num(pcs[1].s, &at->num))
			FAIL_AT(pcs[1].col, "watchpoint: '%s' is not an address", pcs[1].s);
		if (!parse_num(pcs[2].s, &at->len) ||
		    (at->len != 1 && at->len != 2 && at->len != 4 && at->len != 8))
			FAIL_AT(pcs[2].col, "watchpoint: the length must be 1, 2, 4 or 8");
		if (strspn(pcs[3].s, "rwx") != strlen(pcs[3].s))
			FAIL_AT(pcs[3].col, "watchpoint: the mode is made of r, w and x");
		at->mode = pcs[3].s;
		return true;
	case LANG_P_SYSCALL:
		if (n != 3 || (strcmp(pcs[2].s, "entry") && strcmp(pcs[2].s, "return")))
			FAIL_AT(pos.col, "syscall probes are syscall:NAME:entry or syscall:NAME:return");
		at->func = pcs[1].s;
		at->mode = pcs[2].s;
		return true;
	case LANG_P_BEGIN: case LANG_P_END:
		break;
	}
	return true;
#undef FAIL_AT
}

static bool wildcard_ok(enum lang_provider p)
{
	return p == LANG_P_KPROBE || p == LANG_P_KRETPROBE || p == LANG_P_UPROBE ||
	       p == LANG_P_URETPROBE || p == LANG_P_TRACEPOINT || p == LANG_P_RAWTRACEPOINT ||
	       p == LANG_P_USDT || p == LANG_P_FENTRY || p == LANG_P_FEXIT || p == LANG_P_SYSCALL;
}

static struct lang_probe *parse_probe(struct parser *p)
{
	struct lang_probe *pr = lang_alloc(p->arena, sizeof(*pr));
	size_t cap = 0;

	if (!pr) {
		error_at(p, p->cur.pos, "out of memory");
		return NULL;
	}
	pr->pos = p->cur.pos;
	for (;;) {
		struct lang_attach *at;

		if (p->cur.kind != LANG_TOK_PROBE && p->cur.kind != LANG_TOK_BEGIN &&
		    p->cur.kind != LANG_TOK_END) {
			unexpected(p, "a probe");
			return NULL;
		}
		if (pr->nattach == cap) {
			size_t ncap = cap ? cap * 2 : 2;
			struct lang_attach *l = lang_alloc(p->arena, ncap * sizeof(*l));

			if (!l) {
				error_at(p, p->cur.pos, "out of memory");
				return NULL;
			}
			if (pr->nattach)
				memcpy(l, pr->attach, pr->nattach * sizeof(*l));
			pr->attach = l;
			cap = ncap;
		}
		at = &pr->attach[pr->nattach++];
		if (!parse_attach(p, at))
			return NULL;
		if (at->wildcard && !wildcard_ok(at->provider)) {
			error_at(p, at->pos, "%s probes take no wildcards",
				 lang_provider_name(at->provider));
			return NULL;
		}
		advance(p, LEX_PROBE);
		if (p->cur.kind != LANG_TOK_COMMA)
			break;
		advance(p, LEX_PROBE);
	}
	if (p->cur.kind == LANG_TOK_SLASH) {
		advance(p, LEX_NORMAL);
		p->in_pred = true;
		pr->pred = parse_expr(p);
		p->in_pred = false;
		if (!pr->pred)
			return NULL;
		if (p->cur.kind != LANG_TOK_SLASH) {
			unexpected(p, "'/' closing the predicate");
			return NULL;
		}
		advance(p, LEX_NORMAL);
		if (p->cur.kind != LANG_TOK_LBRACE) {
			unexpected(p, "'{' after the predicate");
			return NULL;
		}
	} else if (p->cur.kind != LANG_TOK_LBRACE) {
		unexpected(p, "'{', '/' or ',' after a probe");
		return NULL;
	}
	pr->body = parse_block(p, LEX_PROBE);
	return pr->body ? pr : NULL;
}

/* config = { key = value; ... } */
static bool parse_config(struct parser *p)
{
	struct lang_config **tail = &p->prog->config;

	advance(p, LEX_NORMAL);
	if (!expect(p, LANG_TOK_ASSIGN, "after 'config'") ||
	    (p->cur.kind != LANG_TOK_LBRACE && (unexpected(p, "'{'"), true)))
		return false;
	advance(p, LEX_NORMAL);
	while (!p->failed && p->cur.kind != LANG_TOK_RBRACE) {
		struct lang_config *c;

		if (accept(p, LANG_TOK_SEMI))
			continue;
		if (p->cur.kind != LANG_TOK_IDENT) {
			unexpected(p, "a config key");
			return false;
		}
		c = lang_alloc(p->arena, sizeof(*c));
		if (!c) {
			error_at(p, p->cur.pos, "out of memory");
			return false;
		}
		c->pos = p->cur.pos;
		c->key = p->cur.text;
		advance(p, LEX_NORMAL);
		if (!expect(p, LANG_TOK_ASSIGN, "after a config key"))
			return false;
		switch (p->cur.kind) {
		case LANG_TOK_INT: case LANG_TOK_STR: case LANG_TOK_IDENT:
			c->value = node(p, p->cur.kind == LANG_TOK_INT ? LANG_N_INT :
					p->cur.kind == LANG_TOK_STR ? LANG_N_STR : LANG_N_IDENT,
					p->cur.pos);
			if (!c->value)
				return false;
			c->value->num = p->cur.num;
			c->value->str = c->value->name = p->cur.text;
			c->value->len = p->cur.len;
			break;
		default:
			unexpected(p, "a number, a string or a name as a config value");
			return false;
		}
		advance(p, LEX_NORMAL);
		*tail = c;
		tail = &c->next;
		if (p->cur.kind != LANG_TOK_RBRACE && !expect(p, LANG_TOK_SEMI, "after a config value"))
			return false;
	}
	if (p->failed)
		return false;
	advance(p, LEX_PROBE);
	return !p->failed;
}

int lang_parse(struct lang_prog *prog)
{
	struct parser p = { .prog = prog, .arena = &prog->arena };
	struct lang_probe **tail = &prog->probes;

	if (prog->parsed)
		return -EALREADY;
	prog->parsed = true;
	lang_lex_init(&p.lx, &prog->arena, prog->text, prog->len);
	if (memchr(prog->text, '\0', prog->len)) {
		const char *nul = memchr(prog->text, '\0', prog->len);
		struct lang_pos pos = { 1, 1 };

		for (const char *c = prog->text; c < nul; c++)
			if (*c == '\n')
				pos.line++, pos.col = 1;
			else
				pos.col++;
		error_at(&p, pos, "a NUL byte in the program");
		return -EINVAL;
	}
	advance(&p, LEX_PROBE);
	if (p.cur.kind == LANG_TOK_CONFIG && !parse_config(&p))
		return -EINVAL;
	while (!p.failed && p.cur.kind != LANG_TOK_EOF) {
		struct lang_probe *pr = parse_probe(&p);

		if (!pr)
			break;
		*tail = pr;
		tail = &pr->next;
	}
	if (!p.failed && !prog->probes)
		error_at(&p, p.cur.pos, "no probes in the program");
	return p.failed || prog->arena.failed ? -EINVAL : 0;
}
