/* Kernel stacks without the tracer's own frames (lang/kstack.h). */
#include <string.h>
#include "lang/kstack.h"

/* Functions by prefix: every function whose name starts so is glue. */
static const char *const glue_prefixes[] = {
	"bpf_prog_",		/* a JIT-ed program: bpf_prog_6deef7357e7b4530_p0 */
	"bpf_trampoline_",
	"bpf_dispatcher_",
	"__bpf_prog_run",
	"bpf_trace_run",	/* raw tracepoints: bpf_trace_run1 .. 12 */
	"__bpf_trace_",		/* their per-event wrappers */
	"__traceiter_",		/* a tracepoint's probe iterator */
	"__probestub_",
	"perf_trace_",		/* perf_trace_sched_switch, perf_trace_run_bpf_submit */
	"trace_event_raw_event_",
	"perf_syscall_",	/* perf_syscall_enter/exit: syscall tracepoints */
	"perf_call_bpf_",
	"perf_tp_event",
	"bpf_get_stack",	/* the helpers themselves: bpf_get_stackid_pe ... */
	"__bpf_get_stack",
	"bpf_overflow_handler",
	"kprobe_perf_func",
	"kretprobe_perf_func",
	"kprobe_dispatcher",
	"kretprobe_dispatcher",
	"kprobe_ftrace_handler",
	"uprobe_dispatcher",
	"uretprobe_dispatcher",
	"uprobe_perf_func",
	"__uprobe_perf_func",
};

/* ... and by exact name. */
static const char *const glue_names[] = {
	"trace_call_bpf",
	"bpf_get_stackid",
	"get_perf_callchain",
	"perf_callchain_kernel",
	"__perf_event_overflow",
	"perf_event_overflow",
	"perf_swevent_event",
	"perf_swevent_overflow",
	"do_perf_sw_event",
	"___perf_sw_event",
	"__perf_sw_event",
	"handler_chain",
};

bool lang_kstack_tracer_func(const char *name)
{
	if (!name)
		return false;
	for (size_t i = 0; i < sizeof(glue_prefixes) / sizeof(glue_prefixes[0]); i++)
		if (!strncmp(name, glue_prefixes[i], strlen(glue_prefixes[i])))
			return true;
	for (size_t i = 0; i < sizeof(glue_names) / sizeof(glue_names[0]); i++)
		if (!strcmp(name, glue_names[i]))
			return true;
	return false;
}

size_t lang_kstack_tracer_prefix(const struct lang_frame *fr, size_t n)
{
	size_t skip = 0;

	for (size_t i = 0; i < n; i++) {
		if (!fr[i].name)
			continue;	/* unnamed: glue only when named glue follows */
		if (!lang_kstack_tracer_func(fr[i].name))
			break;
		skip = i + 1;
	}
	return skip;
}
