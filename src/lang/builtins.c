/* The one table of builtins: variables (pid, comm) and functions
 * (count(), printf()).  The checker reads arity, argument kinds, result
 * and flags from here; a new builtin is one line (and, later, one
 * generator in the code generator). */
#include <ctype.h>
#include <string.h>
#include "lang/ast.h"

#define V(name, res, fl) { name, LANG_BI_VAR, 0, 0, { 0 }, LANG_K_##res, fl }
#define F(name, lo, hi, res, fl, ...) \
	{ name, LANG_BI_FUNC, lo, hi, { __VA_ARGS__ }, LANG_K_##res, fl }
#define VARARGS 255

const struct lang_builtin lang_builtins[] = {
	/* variables */
	V("pid", INT, 0), V("tid", INT, 0), V("uid", INT, 0), V("gid", INT, 0),
	V("comm", STR, 0), V("cpu", INT, 0), V("ncpus", INT, 0), V("nsecs", INT, 0),
	V("elapsed", INT, 0), V("probe", STR, 0), V("func", STR, 0),
	V("retval", INT, LANG_BF_RET), V("argN", INT, LANG_BF_ARGN),
	V("args", EXTERN, LANG_BF_ARGS), V("cpid", INT, 0), V("curtask", EXTERN, 0),
	V("cgroup", INT, 0), V("username", STR, 0), V("rand", INT, 0),
	V("jiffies", INT, 0), V("numaid", INT, 0), V("sarg0", INT, 0),
	/* syscall:NAME:return: ns since the entry; the strace-style line */
	V("duration", INT, LANG_BF_SYSRET), V("call", STR, LANG_BF_SYSRET),
	/* both: a bare name or a call with a mode and a depth */
	{ "kstack", LANG_BI_BOTH, 0, 2, { LANG_A_STACKMODE, LANG_A_INTLIT }, LANG_K_STACK, 0 },
	{ "ustack", LANG_BI_BOTH, 0, 2, { LANG_A_STACKMODE, LANG_A_INTLIT }, LANG_K_STACK, 0 },
	/* aggregations: the value of a map element */
	F("count", 0, 0, COUNT, LANG_BF_AGG),
	F("sum", 1, 1, SUM, LANG_BF_AGG, LANG_A_INT),
	F("min", 1, 1, MIN, LANG_BF_AGG, LANG_A_INT),
	F("max", 1, 1, MAX, LANG_BF_AGG, LANG_A_INT),
	F("avg", 1, 1, AVG, LANG_BF_AGG, LANG_A_INT),
	F("stats", 1, 1, STATS, LANG_BF_AGG, LANG_A_INT),
	F("hist", 1, 2, HIST, LANG_BF_AGG, LANG_A_INT, LANG_A_INTLIT),
	F("lhist", 4, 4, LHIST, LANG_BF_AGG, LANG_A_INT, LANG_A_INTLIT, LANG_A_INTLIT,
	  LANG_A_INTLIT),
	/* maps */
	F("delete", 1, 2, VOID, LANG_BF_NOVALUE, LANG_A_MAPELEM, LANG_A_ANY),
	F("clear", 1, 1, VOID, LANG_BF_NOVALUE, LANG_A_MAP),
	F("zero", 1, 1, VOID, LANG_BF_NOVALUE, LANG_A_MAP),
	F("has_key", 2, VARARGS, INT, 0, LANG_A_MAP, LANG_A_ANY),
	F("len", 1, 1, INT, 0, LANG_A_MAP),
	F("print", 1, 3, VOID, LANG_BF_NOVALUE, LANG_A_ANY, LANG_A_INTLIT, LANG_A_INTLIT),
	/* output */
	F("printf", 1, VARARGS, VOID, LANG_BF_NOVALUE | LANG_BF_FORMAT,
	  LANG_A_STRLIT, LANG_A_ANY),
	F("errorf", 1, VARARGS, VOID, LANG_BF_NOVALUE | LANG_BF_FORMAT,
	  LANG_A_STRLIT, LANG_A_ANY),
	F("time", 0, 1, VOID, LANG_BF_NOVALUE, LANG_A_STRLIT),
	F("join", 1, 2, VOID, LANG_BF_NOVALUE, LANG_A_ANY, LANG_A_STRLIT),
	F("system", 1, VARARGS, VOID,
	  LANG_BF_UNSAFE | LANG_BF_NOVALUE | LANG_BF_FORMAT,
	  LANG_A_STRLIT, LANG_A_ANY),
	F("cat", 1, VARARGS, VOID,
	  LANG_BF_UNSAFE | LANG_BF_NOVALUE | LANG_BF_FORMAT,
	  LANG_A_STRLIT, LANG_A_ANY),
	/* values */
	F("str", 1, 2, STR, 0, LANG_A_ANY, LANG_A_INT),
	F("buf", 1, 2, BUF, 0, LANG_A_ANY, LANG_A_INT),
	F("ksym", 1, 1, KSYM, 0, LANG_A_INT),
	F("usym", 1, 1, USYM, 0, LANG_A_INT),
	F("kaddr", 1, 1, INT, 0, LANG_A_STRLIT),
	F("uaddr", 1, 1, INT, 0, LANG_A_STRLIT),
	F("reg", 1, 1, INT, 0, LANG_A_STRLIT),
	F("ntop", 1, 2, STR, 0, LANG_A_ANY, LANG_A_ANY),
	F("strftime", 2, 2, TIMESTAMP, 0, LANG_A_STRLIT, LANG_A_INT),
	F("strerror", 1, 1, STR, 0, LANG_A_INT),
	F("syscall_name", 1, 1, STR, 0, LANG_A_INT),
	F("strncmp", 3, 3, INT, 0, LANG_A_STR, LANG_A_STR, LANG_A_INTLIT),
	F("strcontains", 2, 2, INT, 0, LANG_A_STR, LANG_A_STR),
	F("cgroupid", 1, 1, INT, 0, LANG_A_STRLIT),
	F("path", 1, 2, STR, 0, LANG_A_ANY, LANG_A_INT),
	F("macaddr", 1, 1, STR, 0, LANG_A_ANY),
	F("sizeof", 1, 1, INT, 0, LANG_A_ANY),
	/* actions */
	F("exit", 0, 1, VOID, LANG_BF_NOVALUE, LANG_A_INT),
	F("signal", 1, 1, VOID, LANG_BF_NOVALUE | LANG_BF_UNSAFE, LANG_A_STRORINT),
	F("override", 1, 1, VOID, LANG_BF_NOVALUE | LANG_BF_UNSAFE, LANG_A_INT),
};

const size_t lang_nbuiltins = sizeof(lang_builtins) / sizeof(lang_builtins[0]);

const struct lang_builtin *lang_builtin_find(const char *name)
{
	/* arg0, arg1, ...: the one "argN" entry */
	if (!strncmp(name, "arg", 3) && isdigit((unsigned char)name[3])) {
		const char *p = name + 3;

		while (isdigit((unsigned char)*p))
			p++;
		if (*p || (name[3] == '0' && name[4]) || p - name > 5)
			return NULL;
		name = "argN";
	}
	for (size_t i = 0; i < lang_nbuiltins; i++)
		if (!strcmp(lang_builtins[i].name, name))
			return &lang_builtins[i];
	return NULL;
}
