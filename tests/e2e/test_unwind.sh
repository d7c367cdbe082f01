# End-to-end tests of user-stack unwinding without frame pointers: every
# workload in tests/workloads/unwind is profiled with the default
# --unwind auto, and every sample in its innermost function must carry
# the complete chain.  How many samples there are depends on the CPU time
# the machine gives the workload: ~2000 on an idle one, and the floor of
# 20 asks for 20 ms on a CPU.
UW="$WL/unwind"

# leaf_chains FOLDED LEAF CHAIN_REGEX: prints "full total" for the samples
# whose innermost user frame is LEAF
leaf_chains() {
	awk -v f="$2" -v re="$3" '{
		n = split($0, a, ";"); last = "";
		sub(/ [0-9]+$/, "", a[n]);
		for (i = 1; i <= n; i++) if (a[i] !~ /_\[k\]$/) last = a[i];
		if (last != f) next;
		total += $NF;
		if ($0 ~ re) full += $NF;
	} END { print full + 0, total + 0 }' "$1"
}

# expect_chain WORKLOAD LEAF CHAIN_REGEX [ARGS...]
expect_chain() {
	local wl=$1 leaf=$2 re=$3
	shift 3
	timeout 60 "$SS" profile -v -F 999 -o out.folded -- "$wl" "$@" 2>err.txt ||
		fail "profile exited $?: $(cat err.txt)"
	read -r full total < <(leaf_chains out.folded "$leaf" "$re")
	[ "$total" -ge 20 ] || fail "only $total samples in $leaf: $(sort -t' ' -k2 -n out.folded | tail -3)"
	[ "$full" = "$total" ] ||
		fail "$((total - full)) of $total samples in $leaf lack the full chain: $(grep "$leaf" out.folded | grep -Ev "$re" | sort -t' ' -k2 -n | tail -2 | cut -c1-300); $(grep -v "^libbpf" err.txt)"
}

# The bottom of a complete chain: _start -> __libc_start_main -> ... -> main
START='^[^;]+;_start;__libc_start_main[^;]*;__libc_start_call_main;main;'

test_no_frame_pointers_eh_frame() {
	expect_chain "$UW/chain.nofp" leaf "${START}parent;child;leaf( |;)" 2
}

test_sframe_only() {
	readelf -SW "$UW/chain.sframe" | grep -q '\.sframe' || skip "the assembler wrote no .sframe"
	expect_chain "$UW/chain.sframe" leaf "main;parent;child;leaf( |;)" 2
}

test_debug_frame_only() {
	expect_chain "$UW/chain.debugframe" leaf "main;parent;child;leaf( |;)" 2
}

test_gcc_frame_pointers_frameless_leaf() {
	expect_chain "$UW/chain.gccfp" leaf "${START}parent;child;leaf( |;)" 2
}

test_libc_callback_qsort() {
	expect_chain "$UW/qsort_cb" cmp_slow "${START}sort_many;(qsort|__qsort_r|qsort_r)[^ ]*;cmp_slow( |;)" 2
}

test_shared_library_through_plt() {
	expect_chain "$UW/uselib" lib_work "${START}call_into_lib;lib_entry;lib_work( |;)" 2
}

test_deep_recursion_200_frames() {
	chain="${START}"
	for _ in $(seq 200); do chain="${chain}descend;"; done
	expect_chain "$UW/recurse" bottom_spin "${chain}bottom_spin( |;)" 2 200
}

test_signal_handler_frames() {
	expect_chain "$UW/sighandler" handler_work "${START}wait_here;([^;]*;)*(__restore_rt|\[signal\]);on_alarm;handler_work( |;)" 2
}

test_fp_mode_still_available() {
	timeout 60 "$SS" profile --unwind fp -F 499 -o out.folded -- "$WL/fp_chain" 1 2>err.txt ||
		fail "profile exited $?"
	grep -q 'main;parent;child;leaf' out.folded || fail "no full chain with --unwind fp"
	"$SS" profile --unwind bogus -d 1 2>err.txt && fail "accepted --unwind bogus"
	grep -q 'bogus' err.txt || fail "no message naming the bad mode"
}

test_truncation_is_visible() {
	# 512 bytes of stack cannot hold 200 frames: the chain must be cut
	# with a visible [truncated] frame, never silently
	timeout 60 "$SS" profile --stack-size 512 -F 499 -o out.folded -- "$UW/recurse" 1 200 2>err.txt ||
		fail "profile exited $?"
	grep -q '^recurse;\[truncated\];' out.folded || fail "no [truncated] frame: $(head -2 out.folded)"
	! grep -q '^recurse;_start;.*bottom_spin' out.folded || fail "a complete chain from 512 bytes?"
}

test_every_stack_complete_in_many_small_functions() {
	# many short functions: samples land in prologues and epilogues
	# (after `pop %rbp` the CFI still names the popped slot), in libc's
	# qsort and in syscalls; every user stack must reach _start, the
	# binary's or ld.so's (the process's first instructions, where a
	# sample can be a single frame: a timer interrupt taken during execve
	# is delivered at the entry point); the launched command is sampled
	# from the end of its execve on, never in the launcher's image; one
	# during a page fault that grows the stack has lost it (the page to
	# copy is missing), which the summary counts
	timeout 60 "$SS" profile -F 999 -o out.folded -- "$WL/demo" 2 2>err.txt || fail "profile exited $?"
	all=$(samples out.folded '^demo;')
	# A sample inside ld.so's lazy-binding resolver is the one known
	# exception, marked [truncated]: its CFA is kept in %rbx, which
	# snapshots do not carry yet (README, "User stacks without frame pointers")
	ok_bottom="^demo;(_start[; ]|[^;]*_\\[k\\][; ]|\\[lost user stack\\];|\\[truncated\\];_dl_runtime_resolve)"
	lost=$(samples out.folded '^demo;\[lost user stack\];')
	[ "$(lost_stacks err.txt)" -ge "$lost" ] || fail "$lost samples with a lost user stack, summary: $(cat err.txt)"
	bad=$(awk -v re="$ok_bottom" '/^demo;/ && $0 !~ re { n += $NF } END { print n + 0 }' out.folded)
	[ "$all" -ge 20 ] || fail "only $all samples"
	[ "$bad" = 0 ] ||
		fail "$bad of $all samples do not reach _start: $(grep '^demo;' out.folded | grep -Ev "$ok_bottom" | head -3 | cut -c1-200)"
	# demo's own: samples of the launched command in execve, before its
	# name changes, are stackscope's copy's (its user stack unknown)
	! grep -v '^demo;\[truncated\];_dl_runtime_resolve' out.folded | grep -q '^demo;.*\[truncated\]' ||
		fail "truncated stacks: $(grep '^demo;.*\[truncated\]' out.folded | head -2 | cut -c1-200)"
}
