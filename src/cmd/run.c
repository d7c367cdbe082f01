/* stackscope run / stackscope -e: a program in the one-liner language
 * (bpftrace's dialect).  For now the front end only: parse, check and,
 * with --dump ast, print the tree; running needs the code generator. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common.h"
#include "cmd/cmds.h"
#include "lang/lang.h"

static const char usage_text[] =
"usage: stackscope run [--dump ast] [--unsafe] FILE [ARG...]\n"
"       stackscope -e PROGRAM [--dump ast] [--unsafe] [ARG...]\n"
"\n"
"Runs a program in bpftrace's language: probes with a predicate and\n"
"actions, maps, aggregations.  FILE may be - for standard input.  ARGs are\n"
"the positional parameters $1, $2, ... ($# their count).\n"
"\n"
"  -e PROGRAM     the program text\n"
"  --dump ast     print the checked syntax tree and stop\n"
"  --unsafe       allow system(), cat(), signal() and override()\n";

/* The whole of f into a new NUL-terminated buffer; -errno. */
static int read_all(FILE *f, char **out, size_t *len)
{
	size_t cap = 4096, n = 0, got;
	char *buf = malloc(cap), *nb;

	if (!buf)
		return -ENOMEM;
	while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
		n += got;
		if (n > LANG_MAX_SOURCE) {
			free(buf);
			return -EFBIG;
		}
		if (cap - n - 1 == 0) {
			nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
			cap *= 2;
		}
	}
	if (ferror(f)) {
		free(buf);
		return -EIO;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

/* A script as root must be one nobody else could have changed. */
static int read_script(const char *path, char **text, size_t *len)
{
	struct stat st;
	FILE *f;
	int fd, err;

	if (!strcmp(path, "-"))
		return read_all(stdin, text, len);
	fd = open_regular(path, &st);
	if (fd < 0) {
		msg("%s: %s", path, fd == -EINVAL ? "not a regular file" : strerror(-fd));
		return fd;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		msg("%s: refused: writable by others than its owner (chmod go-w %s)", path, path);
		close(fd);
		return -EPERM;
	}
	f = fdopen(fd, "r");
	if (!f) {
		err = -errno;
		close(fd);
		msg("%s: %s", path, strerror(-err));
		return err;
	}
	err = read_all(f, text, len);
	fclose(f);
	if (err)
		msg("%s: %s", path, err == -EFBIG ? "too large for a program" : strerror(-err));
	return err;
}

int cmd_run(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dump", required_argument, NULL, 'D' },
		{ "unsafe", no_argument, NULL, 'U' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct lang_check_opts opts = { 0 };
	const char *prog_text = NULL, *name;
	struct lang_prog *prog = NULL;
	char *text = NULL;
	size_t len;
	bool dump_ast = false;
	int c, ret = 1;

	optind = 1;
	while ((c = getopt_long(argc, argv, "e:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'e': prog_text = optarg; break;
		case 'D':
			if (strcmp(optarg, "ast")) {
				msg("--dump: unknown '%s' (ast)", optarg);
				return 2;
			}
			dump_ast = true;
			break;
		case 'U': opts.unsafe = true; break;
		case 'h': fputs(usage_text, stdout); return 0;
		default: fputs(usage_text, stderr); return 2;
		}
	}
	if (prog_text) {
		name = "-e";
		len = strlen(prog_text);
	} else {
		if (optind >= argc) {
			fputs(usage_text, stderr);
			return 2;
		}
		name = argv[optind++];
		if (read_script(name, &text, &len))
			return 1;
		prog_text = text;
		if (!strcmp(name, "-"))
			name = "stdin";
	}
	opts.nparams = argc - optind;
	opts.params = argv + optind;
	prog = lang_prog_new(name, prog_text, len);
	if (!prog) {
		msg("%s: %s", name, errno == EFBIG ? "too large for a program" : strerror(errno));
		goto free_text;
	}
	if (lang_parse(prog) || lang_check(prog, &opts)) {
		lang_print_errors(stderr, prog);
		goto free_prog;
	}
	if (dump_ast) {
		lang_dump_ast(stdout, prog);
		ret = fflush(stdout) ? 1 : 0;
		goto free_prog;
	}
	msg("code generation is not implemented yet (--dump ast shows the checked program)");
free_prog:
	lang_prog_free(prog);
free_text:
	free(text);
	return ret;
}
