# End-to-end tests of `stackscope profile` on the workloads in
# tests/workloads (each ends by itself).  Structure and values are checked,
# never timings: how many samples a workload gets depends on the CPU time
# the machine gives it, so counts are only asked to reach a floor a few
# milliseconds on a CPU give.
# The tracer's own frames: stackscope's programs (other BPF programs on the
# machine, e.g. systemd's, are legitimate kernel frames) and the glue that
# runs them.
TRACER_RE='bpf_prog_[0-9a-f]+_on_[a-z_]+|bpf_trace_run|__traceiter_|__bpf_trace_|perf_swevent|__perf_event_overflow|perf_event_overflow|bpf_overflow_handler'

# The innermost user frame of folded lines: the last frame without _[k].
leaf_lines() {
	awk -v f="$2" '{
		n = split($0, a, ";"); last = "";
		sub(/ [0-9]+$/, "", a[n]);
		for (i = 1; i <= n; i++) if (a[i] !~ /_\[k\]$/) last = a[i];
		if (last == f) print
	}' "$1"
}

test_fp_chain_full_stacks() {
	timeout 60 "$SS" profile -F 999 -o out.folded -- "$WL/fp_chain" 2 2>err.txt ||
		fail "profile exited $?: $(cat err.txt)"
	leaf_lines out.folded leaf >leaf.folded
	all=$(total leaf.folded)
	full=$(samples leaf.folded '^fp_chain;([^;]*;)*main;parent;child;leaf(;| )')
	# ~2000 on an idle machine; 20 ms on a CPU give 20
	[ "$all" -ge 20 ] || fail "only $all samples in leaf"
	[ "$full" = "$all" ] ||
		fail "$((all - full)) of $all leaf samples lack main;parent;child;leaf: $(grep -Ev 'main;parent;child;leaf(;| )' leaf.folded | head -2)"
	# a sample during a page fault that grows the stack cannot copy it:
	# its user stack is lost, and said so in the output and the summary
	# (the in-kernel unwinder's counts between: unwound there, from copies)
	grep -Eq '^stackscope profile: [0-9]+ samples, [0-9]+ stacks, ([^,]+, )*0 lost samples, [0-9]+ lost stacks' err.txt ||
		fail "summary line: $(cat err.txt)"
	marked=$(samples out.folded '\[lost (user|kernel) stack\]')
	[ "$(lost_stacks err.txt)" -ge "$marked" ] || fail "$marked samples with a lost stack, summary: $(cat err.txt)"
}

test_kernel_frames_under_user_frames() {
	# How many samples of a system call have kernel frames depends on the
	# machine: where a timer interrupt that arrives during the call is
	# taken only on the return to user mode (a 2-CPU VM), a fifth of them
	# land on the instruction after `syscall`, as with perf record.  Where
	# kernel frames are, and which, does not.
	timeout 60 "$SS" profile -F 999 -o out.folded -- "$WL/syscall_heavy" 2 2>err.txt ||
		fail "profile exited $?"
	inreads=$(samples out.folded ';do_reads[; ]')
	# ~2000 on an idle machine; 20 ms on a CPU give 20
	[ "$inreads" -ge 20 ] || fail "only $inreads samples under do_reads"
	# kernel frames only under (after) the user frames, in every stack
	mixed=$(awk '{ sub(/ [0-9]+$/, ""); n = split($0, a, ";"); k = 0
		for (i = 2; i <= n; i++) if (a[i] ~ /_\[k\]$/) k = 1; else if (k) { print; exit } }' out.folded)
	[ -z "$mixed" ] || fail "a user frame under kernel frames: $(echo "$mixed" | cut -c1-300)"
	# under raw_read, the kernel part is its own system call's: one that
	# names a system call names read (where the part starts is not
	# checked: the kernel's stack walk may stop early, e.g. in another
	# tool's BPF program)
	other=$(grep ';raw_read;' out.folded | grep -oE ';(__x64_sys_|__do_sys_|__se_sys_|ksys_)[a-z0-9_]+_\[k\]' |
		grep -v '_read_\[k\]$' | sort -u | head -3)
	[ -z "$other" ] || fail "other system calls under raw_read: $other"
	# and one reaches the read path from the system call entry
	grep -Eq '^syscall_heavy;([^;]*;)*main;do_reads;raw_read;entry_SYSCALL_64[a-z_]*_\[k\];([^;]*_\[k\];)*vfs_read_\[k\]' out.folded ||
		fail "no read path kernel frames under main;do_reads;raw_read: $(grep raw_read out.folded | sort -t' ' -k2 -n | tail -2)"
	! grep -Eq "$TRACER_RE" out.folded || fail "tracer frames: $(grep -Eo "$TRACER_RE[^;]*" out.folded | sort -u | head -3)"
}

test_no_tracer_frames_system_wide() {
	# the workload runs during the whole capture, however long loading takes
	"$WL/syscall_heavy" 30 &
	wl=$!
	wait_for "runs_exe $wl '$WL/syscall_heavy'"
	timeout 60 "$SS" profile -F 499 -d 1.5 -K -o out.folded 2>err.txt
	rc=$?
	kill $wl
	wait $wl
	[ $rc = 0 ] || fail "profile exited $rc"
	[ "$(samples out.folded '^syscall_heavy;')" -ge 1 ] || fail "the workload was not sampled: $(head -3 out.folded)"
	grep -E "$TRACER_RE" out.folded
	! grep -Eq "$TRACER_RE" out.folded || fail "tracer frames: $(grep -Eo "$TRACER_RE[^;]*" out.folded | sort -u | head -3)"
}

test_short_lived_children_symbolized() {
	timeout 60 "$SS" profile -F 999 -o out.folded -- "$WL/forker" 20 60 2>err.txt ||
		fail "profile exited $?: $(cat err.txt)"
	spin=$(samples out.folded '^forker;([^;]*;)*main;child_spin(;| )')
	all=$(samples out.folded '^forker;')
	# 20 x 60 ms at 999 Hz is ~1200 samples on an idle machine; 20 ms on a
	# CPU give 20
	[ "$spin" -ge 20 ] || fail "only $spin samples in main;child_spin (of $all)"
	# an exited child's addresses are still found in its mappings: no
	# user frame is [unknown] (a frame [forker+0x...] is in a mapping,
	# where the binary names nothing, e.g. the PLT header)
	unk=$(grep '^forker;' out.folded | grep -E ';\[unknown\](;| [0-9]+$)' | head -3)
	[ -z "$unk" ] || fail "user frames outside every mapping: $(echo "$unk" | cut -c1-300)"
}

test_per_pid_frames() {
	timeout 60 "$SS" profile --per-pid -F 999 -o out.folded -- "$WL/forker" 4 60 2>err.txt ||
		fail "profile exited $?: $(cat err.txt)"
	# every stack: comm;[pid N];...
	bad=$(grep -vE '^[^;]+;\[pid [0-9]+\];' out.folded | head -3)
	[ -z "$bad" ] || fail "stacks without a pid frame: $(echo "$bad" | cut -c1-200)"
	# the parent and its children apart, each child's spin under its own pid
	pids=$(grep -oE '^forker;\[pid [0-9]+\];([^;]*;)*child_spin' out.folded | cut -d';' -f2 | sort -u | wc -l)
	[ "$pids" -ge 2 ] || fail "child_spin under $pids pids: $(cut -d';' -f1,2 out.folded | sort | uniq -c)"
	# off by default
	timeout 60 "$SS" profile -F 999 -o def.folded -- "$WL/forker" 2 20 2>/dev/null || fail "exit $?"
	! grep -q ';\[pid ' def.folded || fail "pid frames without --per-pid"
}

test_per_thread_frames() {
	timeout 60 "$SS" profile --per-thread -F 999 -o out.folded -- "$WL/pingpong" 2>err.txt ||
		fail "profile exited $?: $(cat err.txt)"
	bad=$(grep -vE '^[^;]+;\[tid [0-9]+\];' out.folded | head -3)
	[ -z "$bad" ] || fail "stacks without a tid frame: $(echo "$bad" | cut -c1-200)"
	# ping and pong: two threads of one process, each under its own tid
	ping=$(grep -oE '^pingpong;\[tid [0-9]+\];([^;]*;)*ping(;| )' out.folded | cut -d';' -f2 | sort -u)
	pong=$(grep -oE '^pingpong;\[tid [0-9]+\];([^;]*;)*pong(;| )' out.folded | cut -d';' -f2 | sort -u)
	[ "$(echo "$ping" | wc -l)" = 1 ] && [ "$(echo "$pong" | wc -l)" = 1 ] && [ -n "$ping" ] &&
		[ "$ping" != "$pong" ] || fail "ping under '$ping', pong under '$pong'"
	# off by default: the same stacks without the frame
	timeout 60 "$SS" profile -F 999 -o def.folded -- "$WL/pingpong" 2>/dev/null || fail "exit $?"
	! grep -q ';\[tid ' def.folded || fail "tid frames without --per-thread"
}

test_pid_of_running_process() {
	"$WL/fp_chain" 30 &
	pid=$!
	# after the exec: before it, the pid is a copy of this shell
	wait_for "runs_exe $pid '$WL/fp_chain'"
	timeout 60 "$SS" profile -p "$pid" -d 1 -o out.folded 2>err.txt
	rc=$?
	kill "$pid"
	wait
	[ $rc = 0 ] || fail "profile exited $rc"
	# ~99 on an idle machine
	[ "$(samples out.folded 'main;parent;child;leaf')" -ge 1 ] || fail "no leaf samples: $(head -3 out.folded)"
	others=$(grep -vc '^fp_chain;' out.folded)
	[ "$others" = 0 ] || fail "$others lines from other processes"
}

test_exit_status_passed_through() {
	timeout 60 "$SS" profile -o out.folded -- sh -c 'exit 7' 2>err.txt
	rc=$?
	[ "$rc" = 7 ] || fail "exit status $rc, want 7"
}

test_missing_pid() {
	timeout 20 "$SS" profile -p 999999999 -d 1 2>err.txt >out.txt
	rc=$?
	[ "$rc" != 0 ] || fail "exit 0 for a missing pid"
	[ "$(wc -l <err.txt)" = 1 ] || fail "expected one line, got: $(cat err.txt)"
	grep -q '999999999' err.txt || fail "message does not name the pid: $(cat err.txt)"
}

test_missing_command() {
	timeout 20 "$SS" profile -- /nonexistent/cmd 2>err.txt >out.txt
	rc=$?
	[ "$rc" != 0 ] || fail "exit 0 for a missing command"
	[ "$(wc -l <err.txt)" = 1 ] || fail "expected one line, got: $(cat err.txt)"
	grep -q '/nonexistent/cmd' err.txt || fail "message does not name the command: $(cat err.txt)"
}

test_duration_system_wide() {
	timeout 30 "$SS" profile -d 1 -o out.folded 2>err.txt || fail "profile exited $?"
	[ -s out.folded ] || fail "empty output"
	grep -q '^stackscope profile: ' err.txt || fail "no summary"
}

test_sigint_writes_output() {
	"$SS" profile -F 999 -o out.folded 2>err.txt &
	pid=$!
	wait_for "tracing_live $pid"
	# sampled before the SIGINT: 1 ms on a CPU is enough
	"$WL/fp_chain" 0.3
	kill -INT $pid
	wait $pid
	rc=$?
	[ "$rc" = 0 ] || fail "exit $rc after SIGINT"
	grep -q '^fp_chain;.*main;parent;child;leaf' out.folded ||
		fail "the samples taken before SIGINT are not in the output: $(head -3 out.folded)"
}

# A launched command that survives the forwarded SIGINT (it ignores INT and
# TERM) no longer keeps stackscope waiting: the output is written, the
# command is killed after a grace period, and its status passed on.
test_sigint_with_a_command_that_ignores_it() {
	"$SS" profile -F 499 -o out.folded -- sh -c 'trap "" INT TERM; while :; do :; done' 2>err.txt &
	pid=$!
	wait_for "tracing_live $pid"
	wait_for "grep -q . /proc/$pid/task/*/children 2>/dev/null"
	kill -INT $pid
	# without the escalation this waits forever; 30 s is any machine's bound
	wait_for "! kill -0 $pid 2>/dev/null" 30
	wait $pid
	rc=$?
	[ "$rc" = 137 ] || fail "exit $rc, want 137 (the command's SIGKILL)"
	grep -q "'sh' still running .* after the signal: killed" err.txt || fail "no message: $(cat err.txt)"
	grep -q '^stackscope profile: .*wrote out.folded' err.txt || fail "no closing line: $(cat err.txt)"
	grep -q '^sh;' out.folded || fail "the command's samples are not in the output"
}

# Out of file descriptors is said as such, with the real limit, not as a
# matter of privileges.
test_output_refused_before_the_run() {
	# an output the end could not write is said before anything runs:
	# the command is never started, nothing is written, one line each
	local o
	mkdir adir
	for o in nodir/out.folded adir "$WL/fp_chain/out.folded"; do
		rm -f ran err.txt
		timeout 20 "$SS" profile -o "$o" -- touch ran 2>err.txt && fail "-o $o: exit 0"
		[ ! -e ran ] || fail "-o $o: the command ran"
		[ "$(wc -l <err.txt)" = 1 ] || fail "-o $o: $(cat err.txt)"
	done
	timeout 20 "$SS" profile -o nodir/out.folded -- true 2>err.txt
	grep -qx 'stackscope: nodir/out.folded: directory nodir: No such file or directory' err.txt || fail "$(cat err.txt)"
	timeout 20 "$SS" profile -o adir -- true 2>err.txt
	grep -qx 'stackscope: adir: is a directory' err.txt || fail "$(cat err.txt)"
	timeout 20 "$SS" syscalls -o nodir/out.txt -- true 2>err.txt && fail "syscalls: exit 0"
	grep -q 'nodir/out.txt: directory nodir: No such file' err.txt || fail "syscalls: $(cat err.txt)"
	# and a new file where the directory is, in it or here
	timeout 60 "$SS" profile -o adir/out.folded -- true 2>err.txt && [ -f adir/out.folded ] || fail "$(cat err.txt)"
	timeout 60 "$SS" profile -o here.folded -- true 2>err.txt && [ -f here.folded ] || fail "$(cat err.txt)"
}

test_fd_limit_named() {
	(ulimit -n 12; "$SS" profile -d 1 -o out.folded) 2>err.txt && fail "ran with 12 fds"
	grep -q 'Too many open files (the limit is 12 open files (ulimit -n))' err.txt ||
		fail "message: $(cat err.txt)"
	! grep -q 'root' err.txt || fail "blames privileges: $(cat err.txt)"
}

test_small_btf_cache() {
	# the small kernel BTF made at the first start and kept, read back at
	# the next: the same stacks; a directory nobody else may write (made
	# 0700), else not used and said; empty: no cache
	local dir=$PWD/cache f
	STACKSCOPE_CACHE_DIR=$dir timeout 60 "$SS" profile -v -F 499 -o a.folded -- "$WL/fp_chain" 1 2>err1.txt ||
		fail "first run exited $?: $(cat err1.txt)"
	grep -q 'small kernel BTF: kept in the cache: profile-[0-9a-f]*\.btf' err1.txt ||
		fail "not kept: $(grep 'kernel BTF' err1.txt)"
	[ "$(stat -c %a "$dir")" = 700 ] || fail "cache directory mode $(stat -c %a "$dir")"
	f=$(echo "$dir"/profile-*.btf)
	[ -f "$f" ] && [ "$(stat -c %a "$f")" = 600 ] || fail "cache file: $(ls -l "$dir")"
	STACKSCOPE_CACHE_DIR=$dir timeout 60 "$SS" profile -v -F 499 -o b.folded -- "$WL/fp_chain" 1 2>err2.txt ||
		fail "second run exited $?: $(cat err2.txt)"
	grep -q 'small kernel BTF: [0-9]* types, from the cache' err2.txt ||
		fail "not read back: $(grep 'kernel BTF' err2.txt)"
	for o in a.folded b.folded; do
		grep -Eq '^fp_chain;([^;]*;)*main;parent;child;leaf(;| )' "$o" || fail "no full chain in $o: $(head -3 "$o")"
	done
	# syscalls keeps its own, beside
	STACKSCOPE_CACHE_DIR=$dir timeout 60 "$SS" syscalls -v -o /dev/null -- /bin/true 2>err3.txt ||
		fail "syscalls exited $?: $(cat err3.txt)"
	[ "$(ls "$dir" | grep -c '^syscalls-.*\.btf$')" = 1 ] && [ "$(ls "$dir" | grep -c '^profile-')" = 1 ] ||
		fail "cache holds: $(ls "$dir")"
	# writable by others: not used, the run goes on
	chmod 777 "$dir"
	STACKSCOPE_CACHE_DIR=$dir timeout 60 "$SS" profile -v -o c.folded -- /bin/true 2>err4.txt ||
		fail "run with an untrusted cache exited $?: $(cat err4.txt)"
	grep -q "no cache: $dir: not used: .*mode 777" err4.txt || fail "untrusted cache not said: $(grep 'kernel BTF' err4.txt)"
	grep -q 'small kernel BTF: [0-9]* types$' err4.txt || fail "BTF not made: $(grep 'kernel BTF' err4.txt)"
	STACKSCOPE_CACHE_DIR= timeout 60 "$SS" profile -v -o c.folded -- /bin/true 2>err5.txt ||
		fail "run without a cache exited $?"
	grep -q 'no cache: STACKSCOPE_CACHE_DIR is empty' err5.txt || fail "$(grep 'kernel BTF' err5.txt)"
}

test_svg_output() {
	timeout 60 "$SS" profile -F 499 -o flame.svg -- "$WL/fp_chain" 1 2>err.txt || fail "profile exited $?"
	xmllint --noout flame.svg || fail "not well-formed XML"
	for f in leaf child parent main fp_chain; do
		grep -q ">$f<\|<title>$f " flame.svg || fail "frame $f missing from the SVG"
	done
}

test_user_only_and_kernel_only() {
	timeout 60 "$SS" profile -U -F 499 -o u.folded -- "$WL/syscall_heavy" 1 2>/dev/null || fail "-U exited $?"
	timeout 60 "$SS" profile -K -F 499 -o k.folded -- "$WL/syscall_heavy" 1 2>/dev/null || fail "-K exited $?"
	! grep -q '_\[k\]' u.folded || fail "-U output has kernel frames"
	grep -q 'main;do_reads' u.folded || fail "-U output lacks user frames"
	# every frame after the process name is a kernel one (a kernel
	# function may well have "main" in its name: sched_balance_domains)
	user=$(awk -F';' '{ for (i = 2; i <= NF; i++) { f = $i; sub(/ [0-9]+$/, "", f); if (f !~ /_\[k\]$/) { print; exit } } }' k.folded)
	[ -z "$user" ] || fail "-K output has user frames: $(echo "$user" | cut -c1-300)"
	grep -q '_\[k\]' k.folded || fail "-K output lacks kernel frames"
}

test_output_never_follows_symlink() {
	echo precious >target
	ln -s "$T/target" out.folded
	timeout 60 "$SS" profile -F 99 -o out.folded -- "$WL/fp_chain" 0.3 2>/dev/null || fail "profile exited $?"
	[ "$(cat target)" = precious ] || fail "wrote through the symlink"
	[ -f out.folded ] && [ ! -L out.folded ] || fail "output is not a regular file"
}

test_flamegraph_command_renders_folded() {
	printf 'a;b;c_[k] 3\na;d 5\n' >in.folded
	"$SS" flamegraph -o g.svg in.folded || fail "flamegraph exited $?"
	xmllint --noout g.svg || fail "not well-formed XML"
	grep -q '>d<\|<title>d ' g.svg || fail "frame d missing"
	printf 'a;b 3\nnot a stack line\n' >bad.folded
	"$SS" flamegraph -o g2.svg bad.folded 2>err.txt && fail "accepted a malformed line"
	grep -q 'bad.folded:2' err.txt || fail "error does not name the line: $(cat err.txt)"
}

# --unwind auto, the default: a command's user stacks are unwound in the
# kernel (the summary counts them), a system-wide run's are copied and
# unwound here (no such count: the in-kernel unwinder is not loaded)
test_unwind_auto_kernel_for_a_command_copies_system_wide() {
	timeout 60 "$SS" profile -F 999 -o out.folded -- "$WL/fp_chain" 1 2>err.txt ||
		fail "profile exited $?: $(cat err.txt)"
	grep -Eq '^stackscope profile: .*, [0-9]+ stacks unwound in the kernel, [0-9]+ from snapshots,' err.txt ||
		fail "a command's stacks not unwound in the kernel: $(tail -1 err.txt)"
	timeout 60 "$SS" profile -F 99 -d 1 -o all.folded 2>err.txt || fail "profile exited $?: $(cat err.txt)"
	grep -q '^stackscope profile: [0-9]* samples, ' err.txt && ! grep -q 'unwound in the kernel' err.txt ||
		fail "system-wide: $(tail -1 err.txt)"
	# a kernel without bpf_loop() (before 5.17): a command's stacks copied
	STACKSCOPE_FEATURES_OFF=bpf_loop timeout 60 "$SS" profile -v -F 999 -o nl.folded -- "$WL/fp_chain" 1 \
		2>err.txt || fail "profile exited $?: $(grep -v '^libbpf' err.txt | tail -3)"
	grep -q 'unwind auto: no bpf_loop() in this kernel: stacks copied' err.txt &&
		grep -q '^stackscope profile: [0-9]* samples, ' err.txt && ! grep -q 'unwound in the kernel' err.txt ||
		fail "without bpf_loop: $(grep -i 'unwind auto' err.txt) $(tail -1 err.txt)"
	grep -q ';main;' nl.folded || fail "without bpf_loop: no user stacks: $(head -3 nl.folded | cut -c1-200)"
}
