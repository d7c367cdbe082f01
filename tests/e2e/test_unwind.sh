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

# expect_chain WORKLOAD LEAF CHAIN_REGEX [ARGS...] (PROFILE_ARGS: more
# profile options)
expect_chain() {
	local wl=$1 leaf=$2 re=$3
	shift 3
	# shellcheck disable=SC2086 # PROFILE_ARGS: more options, split
	timeout 60 "$SS" profile -v -F 999 ${PROFILE_ARGS:-} -o out.folded -- "$wl" "$@" 2>err.txt ||
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

# kernel_counts ERR: "KERNEL SNAPSHOTS FP_FRAMES" from the summary of an
# --unwind kernel run
kernel_counts() {
	sed -n 's/.* \([0-9]*\) stacks unwound in the kernel, \([0-9]*\) from snapshots, \([0-9]*\) frames by frame pointer,.*/\1 \2 \3/p' "$1"
}

# cpu_ticks PID: user+sys clock ticks the process has run
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }

# kernel_p_run WORKLOAD [PROFILE OPTIONS...]: profiles a running WORKLOAD
# (started here for 120 s) by -p with --unwind kernel until its process
# was loaded (-v says so) and it ran 50 ms of CPU more, then stops both;
# out.folded and err.txt are the run's
kernel_p_run() {
	local wl=$1 t0
	shift
	"$wl" 120 &
	wlpid=$!
	wait_for "runs_exe $wlpid $wl"
	"$SS" profile -v --unwind kernel -F 999 "$@" -p "$wlpid" -o out.folded 2>err.txt &
	sspid=$!
	wait_for "grep -q 'in-kernel unwinding: loaded pid $wlpid ' err.txt" 60
	t0=$(cpu_ticks "$wlpid")
	wait_for "[ \$((\$(cpu_ticks $wlpid) - t0)) -ge 5 ]" 60
	kill -INT "$sspid"
	wait "$sspid" || fail "profile exited $?: $(grep -v '^libbpf' err.txt)"
	kill "$wlpid"
	wait "$wlpid" 2>/dev/null
}

# expect_kernel_chain WORKLOAD LEAF CHAIN_REGEX [ARGS...]: the same
# complete chains with --unwind kernel (whichever way each stack went),
# the fallbacks in the summary
expect_kernel_chain() {
	PROFILE_ARGS="--unwind kernel ${PROFILE_ARGS:-}" expect_chain "$@"
	read -r k s f < <(kernel_counts err.txt)
	[ -n "$k" ] && [ -n "$s" ] && [ -n "$f" ] || fail "no in-kernel counts in the summary: $(tail -1 err.txt)"
}

test_kernel_unwinding_once_loaded() {
	# once the process is loaded, its samples are unwound in the kernel
	# (50 ms of its CPU after the load: ~50 samples at 999 Hz), with the
	# whole chain through libc
	kernel_p_run "$UW/chain.nofp"
	read -r k s f < <(kernel_counts err.txt)
	[ "${k:-0}" -ge 1 ] || fail "no stack unwound in the kernel after the load: $(grep in-kernel err.txt)"
	read -r full total < <(leaf_chains out.folded leaf "^chain.nofp;_start;__libc_start_main[^;]*;__libc_start_call_main;main;parent;child;leaf( |;)")
	[ "$total" -ge 1 ] && [ "$full" = "$total" ] || fail "$full of $total samples in leaf complete: $(sort -t' ' -k2 -n out.folded | tail -2 | cut -c1-300)"
}

test_kernel_unwinding_same_chains() {
	# the frame-pointer-less workloads, libc's qsort, a library through
	# its PLT, .debug_frame only, a signal frame: the chains of tables mode
	expect_kernel_chain "$UW/chain.nofp" leaf "${START}parent;child;leaf( |;)" 2
	expect_kernel_chain "$UW/qsort_cb" cmp_slow "${START}sort_many;(qsort|__qsort_r|qsort_r)[^ ]*;cmp_slow( |;)" 2
	expect_kernel_chain "$UW/uselib" lib_work "${START}call_into_lib;lib_entry;lib_work( |;)" 2
	expect_kernel_chain "$UW/chain.debugframe" leaf "main;parent;child;leaf( |;)" 2
	expect_kernel_chain "$UW/sighandler" handler_work "${START}wait_here;([^;]*;)*(__restore_rt|\[signal\]);on_alarm;handler_work( |;)" 2
}

test_kernel_unwinding_deeper_than_the_store_falls_back() {
	# 200 frames do not fit in a stored stack (127): copied and unwound
	# here, the whole chain, each counted as a fallback
	chain="${START}"
	for _ in $(seq 200); do chain="${chain}descend;"; done
	PROFILE_ARGS="--unwind kernel" expect_chain "$UW/recurse" bottom_spin "${chain}bottom_spin( |;)" 2 200
	read -r k s f < <(kernel_counts err.txt)
	deep=$(sed -n 's/.*table over capacity, \([0-9]*\) too deep;.*/\1/p' err.txt)
	[ -n "$deep" ] && [ "$s" -ge "$deep" ] || fail "the summary's $s fallbacks leave out ${deep:-the} deep stacks: $(grep in-kernel err.txt)"
}

test_kernel_unwinding_process_started_later() {
	# the launched shell forks the workload after the run began: its
	# process is loaded on its first miss (-v names it), its chains whole
	PROFILE_ARGS="--unwind kernel" expect_chain sh leaf "^chain.nofp;_start;__libc_start_main[^;]*;__libc_start_call_main;main;parent;child;leaf( |;)" -c "$UW/chain.nofp 2; true"
	wl=$(sed -n 's/.*in-kernel unwinding: loaded pid \([0-9]*\) .*/\1/p' err.txt | tail -n 1)
	[ -n "$wl" ] || fail "no process loaded: $(grep in-kernel err.txt)"
}

test_kernel_unwinding_tiny_row_capacity() {
	# libc's table cannot fit in 64 rows: stacks through it are copied
	# and unwound here, complete, and the run says so
	kernel_p_run "$UW/chain.nofp" --unwind-rows 64
	grep -q "did not fit in the 64 rows of --unwind-rows" err.txt || fail "no word of the full row array: $(cat err.txt)"
	read -r full total < <(leaf_chains out.folded leaf "^chain.nofp;_start;__libc_start_main[^;]*;__libc_start_call_main;main;parent;child;leaf( |;)")
	[ "$total" -ge 1 ] && [ "$full" = "$total" ] || fail "$full of $total samples in leaf complete: $(sort -t' ' -k2 -n out.folded | tail -2 | cut -c1-300)"
	read -r k s f < <(kernel_counts err.txt)
	cap=$(sed -n 's/.*pc outside its mappings, \([0-9]*\) table over capacity,.*/\1/p' err.txt)
	[ "${cap:-0}" -ge 1 ] || fail "over-capacity fallbacks not counted: $(grep in-kernel err.txt)"
	[ "$s" -ge "$cap" ] || fail "the summary's $s fallbacks leave out $cap over capacity"
	"$SS" profile --unwind-rows 0 -d 1 2>err.txt && fail "accepted --unwind-rows 0"
	grep -q 'unwind-rows 0' err.txt || fail "no message naming the bad capacity: $(cat err.txt)"
}

# ring_bytes ERR: "COPIES REQUESTS" bytes of a -v run's ring-buffer line
ring_bytes() {
	sed -n 's/.*ring buffers: [0-9]* bytes read, [0-9.]* per sample (\([0-9]*\) of stack copies, \([0-9]*\) of load requests).*/\1 \2/p' "$1"
}

test_ring_bytes_by_unwind_mode() {
	# what crosses the ring buffers: with frame pointers nothing; copies
	# at most --stack-size + its 64-byte header + the ring's 8 a snapshot,
	# at least the headers; in the kernel, only the fallbacks' copies
	# (the samples before the process was loaded at least) and the load
	# requests, 32 bytes each
	local per=$((16384 + 64 + 8)) c r k s f snaps
	timeout 60 "$SS" profile -v -F 999 --unwind fp -o out.folded -- "$UW/chain.nofp" 1 2>err.txt ||
		fail "profile exited $?: $(cat err.txt)"
	read -r c r < <(ring_bytes err.txt)
	[ "$c" = 0 ] && [ "$r" = 0 ] || fail "--unwind fp read ${c:-?} bytes of copies, ${r:-?} of requests: $(grep ring err.txt)"
	timeout 60 "$SS" profile -v -F 999 --unwind tables -o out.folded -- "$UW/chain.nofp" 1 2>err.txt ||
		fail "profile exited $?: $(cat err.txt)"
	read -r c r < <(ring_bytes err.txt)
	snaps=$(sed -n 's/.*: samples [0-9]* (\([0-9]*\) snapshots,.*/\1/p' err.txt)
	[ -n "$c" ] && [ "${snaps:-0}" -ge 1 ] || fail "no copies counted: $(grep -E 'ring|samples' err.txt)"
	[ "$c" -ge $((snaps * 72)) ] && [ "$c" -le $((snaps * per)) ] && [ "$r" = 0 ] ||
		fail "$c bytes for $snaps copies, $r of requests: $(grep ring err.txt)"
	kernel_p_run "$UW/chain.nofp"
	read -r c r < <(ring_bytes err.txt)
	read -r k s f < <(kernel_counts err.txt)
	snaps=$(sed -n 's/.*: samples [0-9]* (\([0-9]*\) snapshots,.*/\1/p' err.txt)
	[ -n "$c" ] && [ -n "$s" ] && [ -n "$snaps" ] || fail "no counts: $(grep -E 'ring|samples|in-kernel' err.txt)"
	[ "$snaps" -ge 1 ] && [ "$snaps" -le "$s" ] && [ "$c" -ge $((snaps * 72)) ] && [ "$c" -le $((snaps * per)) ] ||
		fail "$c bytes of copies for $snaps copies of $s fallbacks: $(grep -E 'ring|samples|in-kernel' err.txt)"
	[ "$r" -ge 32 ] && [ $((r % 32)) = 0 ] || fail "$r bytes of load requests: $(grep ring err.txt)"
}

# A continuous run waits before building a big binary's table, until
# walks have gone through it once per MiB of its executable mapping
# (chain.big: 6 MiB, so 6 walks), and then builds it on a thread of its
# own: its first stacks (5, and those unwound while the table was being
# built) are stepped without the table (chain.big has no frame pointers:
# cut short), counted; then the table is given to the unwinder, once, and
# every later stack is whole.
test_continuous_run_defers_a_big_binarys_table() {
	mkdir w
	timeout 60 "$SS" profile --unwind tables --every 1s -v -v -F 999 -o "$T/w/cpu-%s.pb.gz" -- "$UW/chain.big" 3 \
		2>err.txt || fail "profile exited $?: $(grep -v '^libbpf' err.txt | tail -5)"
	built=$(grep -c "unwind table of $UW/chain.big:" err.txt)
	[ "$built" = 1 ] || fail "chain.big's table built $built times: $(grep 'unwind table of' err.txt)"
	read -r frames stacks < <(sed -n 's/.* \([0-9]*\) frames of \([0-9]*\) stacks stepped while their binary.s table waited.*/\1 \2/p' err.txt)
	[ "${stacks:-0}" -ge 5 ] ||
		fail "stacks stepped while chain.big's table waited: ${stacks:-none} (5 or more expected): $(grep 'table waited' err.txt)"
	for f in w/*; do "$SS" flamegraph --format folded --sample-type samples "$f" || fail "$f: unreadable"; done >out.folded
	read -r full total < <(leaf_chains out.folded leaf "${START}parent;child;leaf( |;)")
	[ "$total" -ge 20 ] || fail "only $total samples in leaf: $(sort -t' ' -k2 -n out.folded | tail -3)"
	[ "$((total - full))" -le "$stacks" ] ||
		fail "$((total - full)) of $total samples in leaf lack the full chain, $stacks were stepped without the table: $(grep leaf out.folded | grep -Ev "${START}parent;child;leaf( |;)" | head -3)"
}
