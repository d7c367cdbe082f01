/* The language's lexer: hand-written, on demand, with a line and column
 * on every token.  Two modes: LEX_NORMAL inside predicates and blocks,
 * LEX_PROBE between probes at the top, where a probe is one word of
 * its own grammar ("uprobe:/bin/bash:readline", "kprobe:vfs_*"). */
#ifndef STACKSCOPE_LANG_LEXER_H
#define STACKSCOPE_LANG_LEXER_H
#include <stdint.h>
#include "lang/ast.h"

enum lang_tok_kind {
	LANG_TOK_EOF,
	LANG_TOK_ERROR,		/* text = the message */
	LANG_TOK_PROBE,		/* LEX_PROBE: an attach point, as written */
	LANG_TOK_IDENT,
	LANG_TOK_VAR,		/* $x */
	LANG_TOK_MAP,		/* @x or @ */
	LANG_TOK_PARAM,		/* $1: num */
	LANG_TOK_PARAMCOUNT,	/* $# */
	LANG_TOK_INT,		/* num */
	LANG_TOK_STR,		/* text, len: escapes resolved */
	/* keywords */
	LANG_TOK_IF, LANG_TOK_ELSE, LANG_TOK_WHILE, LANG_TOK_FOR, LANG_TOK_RETURN,
	LANG_TOK_UNROLL, LANG_TOK_CONFIG, LANG_TOK_BREAK, LANG_TOK_CONTINUE,
	LANG_TOK_BEGIN, LANG_TOK_END,
	/* punctuation */
	LANG_TOK_LBRACE, LANG_TOK_RBRACE, LANG_TOK_LPAREN, LANG_TOK_RPAREN,
	LANG_TOK_LBRACKET, LANG_TOK_RBRACKET, LANG_TOK_SEMI, LANG_TOK_COMMA,
	LANG_TOK_COLON, LANG_TOK_QUESTION, LANG_TOK_DOT, LANG_TOK_DOTDOT, LANG_TOK_ARROW,
	/* operators */
	LANG_TOK_PLUS, LANG_TOK_MINUS, LANG_TOK_STAR, LANG_TOK_SLASH, LANG_TOK_PERCENT,
	LANG_TOK_AMP, LANG_TOK_PIPE, LANG_TOK_CARET, LANG_TOK_TILDE, LANG_TOK_NOT,
	LANG_TOK_SHL, LANG_TOK_SHR, LANG_TOK_LT, LANG_TOK_LE, LANG_TOK_GT, LANG_TOK_GE,
	LANG_TOK_EQ, LANG_TOK_NE, LANG_TOK_LAND, LANG_TOK_LOR,
	LANG_TOK_INC, LANG_TOK_DEC,
	LANG_TOK_ASSIGN, LANG_TOK_ADD_ASSIGN, LANG_TOK_SUB_ASSIGN, LANG_TOK_MUL_ASSIGN,
	LANG_TOK_DIV_ASSIGN, LANG_TOK_MOD_ASSIGN, LANG_TOK_AND_ASSIGN, LANG_TOK_OR_ASSIGN,
	LANG_TOK_XOR_ASSIGN, LANG_TOK_SHL_ASSIGN, LANG_TOK_SHR_ASSIGN,
	LANG_TOK_NKINDS
};

/* The token's spelling ("+=", "if") or its class ("identifier"). */
const char *lang_tok_name(enum lang_tok_kind k);

struct lang_tok {
	enum lang_tok_kind kind;
	struct lang_pos pos;
	const char *text;	/* IDENT, VAR, MAP, PROBE, STR: arena copy; ERROR: message */
	size_t len;		/* of text */
	uint64_t num;		/* INT, PARAM */
};

enum lang_lex_mode { LEX_NORMAL, LEX_PROBE };

struct lang_lexer {
	struct lang_arena *arena;
	const char *src, *end, *p;
	unsigned line;
	const char *line_start;
};

/* src must stay alive and end with a NUL at src[len]. */
void lang_lex_init(struct lang_lexer *lx, struct lang_arena *arena,
		   const char *src, size_t len);
/* The next token; an ERROR token at the place of the bad input (the lexer
 * then goes on after it). */
struct lang_tok lang_lex(struct lang_lexer *lx, enum lang_lex_mode mode);

#endif
