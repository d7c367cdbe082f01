/* Subcommand entry points: each returns the process exit status
 * (0 ok, 1 failure, 2 usage; `-- CMD` runs pass the command's status). */
#ifndef STACKSCOPE_CMD_CMDS_H
#define STACKSCOPE_CMD_CMDS_H

int cmd_profile(int argc, char **argv);
int cmd_offcpu(int argc, char **argv);
int cmd_syscalls(int argc, char **argv);
int cmd_flamegraph(int argc, char **argv);
int cmd_graph(int argc, char **argv);
/* also `stackscope -e PROGRAM`, with argv[0] the program name */
int cmd_run(int argc, char **argv);
/* `stackscope -l [PATTERN]`, `-lv PROBE`: the language's probes */
int cmd_list(int argc, char **argv);

#endif
