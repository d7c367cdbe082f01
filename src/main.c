/* stackscope: where the time goes on Linux, and what a process is doing. */
#include <stdio.h>
#include <string.h>
#include "common.h"
#include "cmd/cmds.h"

#define STACKSCOPE_VERSION "0.1.0"

static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} commands[] = {
	{ "profile", cmd_profile, "sample on-CPU kernel + user stacks -> flame graph / folded" },
	{ "offcpu", cmd_offcpu, "time blocked, by kernel + user stack (and who woke it)" },
	{ "syscalls", cmd_syscalls, "one decoded line per syscall, like strace, without stopping it" },
	{ "graph", cmd_graph, "every call of chosen functions, nested, with DWARF arguments" },
	{ "run", cmd_run, "a program in bpftrace's language (also: stackscope -e PROGRAM)" },
	{ "flamegraph", cmd_flamegraph, "render folded stacks as an interactive SVG flame graph" },
};

static void usage(FILE *f)
{
	fputs("usage: stackscope COMMAND [OPTIONS] [-- CMD ARGS...]\n\ncommands:\n", f);
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
	fputs("\n`stackscope COMMAND --help` describes a command's options;\n"
	      "`stackscope -l [-v] [PATTERN]` lists the probes `run` programs can use.\n", f);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("stackscope %s\n", STACKSCOPE_VERSION);
		return 0;
	}
	/* a run's start reads megabytes (the kernel's BTF, symbol and
	 * unwind tables): on huge pages where the system allows them */
	heap_prefault(32 << 20);
	if (!strncmp(argv[1], "-e", 2))
		return cmd_run(argc, argv);
	/* bpftrace's order: options first (stackscope -q -e PROGRAM) */
	if (argv[1][0] == '-')
		for (int i = 2; i < argc && strcmp(argv[i], "--"); i++)
			if (!strncmp(argv[i], "-e", 2))
				return cmd_run(argc, argv);
	if (!strncmp(argv[1], "-l", 2))
		return cmd_list(argc, argv);
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	msg("unknown command '%s'", argv[1]);
	usage(stderr);
	return 2;
}
