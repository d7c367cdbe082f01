/* lang/kstack: which innermost kernel frames are the tracer's own. */
#include "test.h"
#include "lang/kstack.h"

#define F(n) { .addr = 0xffffffff81000000ull, .name = (n) }
#define NFR(a) (sizeof(a) / sizeof((a)[0]))

TEST(lang_kstack_tracer_funcs)
{
	static const char *const glue[] = {
		"bpf_prog_6deef7357e7b4530_p0", "bpf_trace_run2", "bpf_trace_run12",
		"__bpf_trace_sys_enter", "__traceiter_sched_process_exec", "perf_trace_sched_switch",
		"perf_trace_run_bpf_submit", "perf_syscall_enter", "perf_syscall_exit",
		"trace_event_raw_event_sched_switch", "trace_call_bpf", "__bpf_prog_run32",
		"bpf_get_stackid_pe", "bpf_overflow_handler", "__perf_event_overflow",
		"uprobe_dispatcher", "handler_chain",
	};
	static const char *const real[] = {
		"__schedule", "schedule", "syscall_trace_enter", "do_syscall_64", "bprm_execve",
		"vfs_read", "perf_event_open", "bpf_map_lookup_elem", "trace_hardirqs_on", "",
	};

	for (size_t i = 0; i < NFR(glue); i++)
		if (!lang_kstack_tracer_func(glue[i]))
			test_fail(__FILE__, __LINE__, "%s: not taken for glue", glue[i]);
	for (size_t i = 0; i < NFR(real); i++)
		if (lang_kstack_tracer_func(real[i]))
			test_fail(__FILE__, __LINE__, "%s: taken for glue", real[i]);
	CHECK(!lang_kstack_tracer_func(NULL));
}

TEST(lang_kstack_tracer_prefix_by_probe_type)
{
	/* as this kernel gives them: rawtracepoint:sys_enter */
	struct lang_frame rawtp[] = { F("bpf_prog_891a598a3e8b90ee_p0"), F("bpf_trace_run2"),
				      F("__bpf_trace_sys_enter"), F("syscall_trace_enter"),
				      F("do_syscall_64"), F("entry_SYSCALL_64_after_hwframe") };
	/* tracepoint:syscalls:sys_enter_openat, sched:sched_process_exec */
	struct lang_frame tp[] = { F("perf_syscall_enter"), F("syscall_trace_enter"),
				   F("do_syscall_64") };
	struct lang_frame exec[] = { F("__traceiter_sched_process_exec"), F("bprm_execve") };
	/* profile and tracepoint:sched:sched_switch: nothing to drop */
	struct lang_frame prof[] = { F("clear_page_erms"), F("bpf_prog_1_p0"), F("x") };
	/* a JIT-ed program kallsyms does not name, then named glue */
	struct lang_frame anon[] = { F(NULL), F("bpf_trace_run4"), F("__schedule") };
	/* unnamed frames alone are not glue */
	struct lang_frame unk[] = { F(NULL), F("vfs_read") };
	struct lang_frame all[] = { F("bpf_prog_1_p0"), F("bpf_trace_run1") };

	CHECK_INT(lang_kstack_tracer_prefix(rawtp, NFR(rawtp)), 3);
	CHECK_INT(lang_kstack_tracer_prefix(tp, NFR(tp)), 1);
	CHECK_INT(lang_kstack_tracer_prefix(exec, NFR(exec)), 1);
	CHECK_INT(lang_kstack_tracer_prefix(prof, NFR(prof)), 0);
	CHECK_INT(lang_kstack_tracer_prefix(anon, NFR(anon)), 2);
	CHECK_INT(lang_kstack_tracer_prefix(unk, NFR(unk)), 0);
	CHECK_INT(lang_kstack_tracer_prefix(all, NFR(all)), 2);
	CHECK_INT(lang_kstack_tracer_prefix(rawtp, 0), 0);
}

