// SPDX-License-Identifier: GPL-2.0
/* The fentry program `graph` loads to find out whether this kernel lets
 * it trace a kernel function (the target is set before loading). */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

SEC("fentry")
int BPF_PROG(on_kentry)
{
	return 0;
}
