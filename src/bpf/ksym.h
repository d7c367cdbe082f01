/* Layouts shared by ksym.bpf.c and the user side (sym/ksyms.c): kernel
 * addresses named by the kernel itself, a batch at a time, instead of
 * reading all of /proc/kallsyms for the few a run needs. */
#ifndef STACKSCOPE_BPF_KSYM_H
#define STACKSCOPE_BPF_KSYM_H

#define KSYM_BATCH 256		/* addresses named per run of the program */
#define KSYM_TEXT 256		/* bytes of "name+0xOFF/0xSIZE [module]" */

#endif
