/* lang/kstack: which innermost kernel frames are the tracer's own. */
#include "test.h"
#include <stdint.h>
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


TEST(lang_stack_keys_merge_equal_printed_keys)
{
	/* two stack ids whose stacks differ past kstack(1)'s cut */
	struct lang_frame a[] = { F("__schedule"), F("schedule") };
	struct lang_frame b[] = { F("__schedule"), F("do_nanosleep") };
	struct lang_frame c[] = { F("vfs_read") };
	struct lang_val ka = { .kind = LANG_K_STACK, .frames = a, .nframes = 1 };
	struct lang_val kb = { .kind = LANG_K_STACK, .frames = b, .nframes = 1 };
	struct lang_val kc = { .kind = LANG_K_STACK, .frames = c, .nframes = 1 };
	struct lang_map_entry e[] = {
		{ &ka, { .kind = LANG_K_COUNT, .i = 3 } },
		{ &kc, { .kind = LANG_K_COUNT, .i = 1 } },
		{ &kb, { .kind = LANG_K_COUNT, .i = 4 } },
	};
	uint64_t h1[3] = { 1, 2, 3 }, h2[3] = { 10, 20, 30 };
	struct lang_map_entry h[] = {
		{ &ka, { .kind = LANG_K_HIST, .buckets = h1, .nbuckets = 3 } },
		{ &kb, { .kind = LANG_K_HIST, .buckets = h2, .nbuckets = 3 } },
	};
	struct lang_map_entry m[] = {
		{ &kb, { .kind = LANG_K_MIN, .is_signed = true, .i = 5 } },
		{ &ka, { .kind = LANG_K_MIN, .is_signed = true, .i = -2 } },
	};
	struct lang_val ia = { .kind = LANG_K_INT, .i = 7 };
	struct lang_map_entry ints[] = { { &ia, { .kind = LANG_K_COUNT, .i = 1 } },
					 { &ia, { .kind = LANG_K_COUNT, .i = 1 } } };

	CHECK_INT(lang_stack_keys_merge(e, 3), 2);
	CHECK(e[0].key == &ka && e[0].value.i == 7);
	CHECK(e[1].key == &kc && e[1].value.i == 1);
	CHECK_INT(lang_stack_keys_merge(h, 2), 1);
	CHECK(h1[0] == 11 && h1[1] == 22 && h1[2] == 33);
	CHECK_INT(lang_stack_keys_merge(m, 2), 1);
	CHECK(m[0].key == &kb && m[0].value.i == -2);
	/* keys without a stack are the kernel's own: left alone */
	CHECK_INT(lang_stack_keys_merge(ints, 2), 2);
}
