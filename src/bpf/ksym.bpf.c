// SPDX-License-Identifier: GPL-2.0
/* Names kernel addresses: user space writes up to KSYM_BATCH addresses
 * and their number into .bss and runs the program once (BPF_PROG_TEST_RUN);
 * each comes back as the kernel's own "%pS": "name+0xOFF/0xSIZE [module]",
 * or the bare address when no symbol holds it.  Never attached. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "bpf/ksym.h"

char LICENSE[] SEC("license") = "GPL";

__u64 addrs[KSYM_BATCH];
__u32 nr;
char names[KSYM_BATCH][KSYM_TEXT];

static long name_one(__u32 i, void *ctx)
{
	__u64 a;

	if (i >= KSYM_BATCH)
		return 1;
	a = addrs[i];
	bpf_snprintf(names[i], KSYM_TEXT, "%pS", &a, sizeof(a));
	return 0;
}

SEC("raw_tp")
int name_addrs(void *ctx)
{
	bpf_loop(nr < KSYM_BATCH ? nr : KSYM_BATCH, name_one, NULL, 0);
	return 0;
}
