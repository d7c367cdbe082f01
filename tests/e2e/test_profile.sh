# End-to-end tests of `stackscope profile` on the workloads in
# tests/workloads (each ends by itself).  Structure and values are checked,
# never timings.
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
	[ "$all" -ge 300 ] || fail "only $all samples in leaf (expected ~2000)"
	[ $((full * 100)) -ge $((all * 95)) ] || fail "$full of $all leaf samples have main;parent;child;leaf"
	grep -q '^stackscope profile: [0-9]* samples, [0-9]* stacks, 0 lost samples, 0 lost stacks' err.txt ||
		fail "summary line: $(cat err.txt)"
}

test_kernel_frames_under_user_frames() {
	timeout 60 "$SS" profile -F 999 -o out.folded -- "$WL/syscall_heavy" 2 2>err.txt ||
		fail "profile exited $?"
	inreads=$(samples out.folded ';do_reads[; ]')
	withk=$(samples out.folded ';do_reads;[^ ]*_\[k\]')
	[ "$inreads" -ge 300 ] || fail "only $inreads samples under do_reads"
	[ $((withk * 100)) -ge $((inreads * 80)) ] || fail "$withk of $inreads do_reads samples have kernel frames"
	grep -q 'main;do_reads;raw_read;[^ ]*vfs_read_\[k\]' out.folded || fail "no read path kernel frames under main;do_reads;raw_read"
	! grep -Eq "$TRACER_RE" out.folded || fail "tracer frames: $(grep -Eo "$TRACER_RE[^;]*" out.folded | sort -u | head -3)"
}

test_no_tracer_frames_system_wide() {
	"$WL/syscall_heavy" 3 &
	timeout 60 "$SS" profile -F 499 -d 1.5 -K -o out.folded 2>err.txt || fail "profile exited $?"
	wait
	[ "$(total out.folded)" -ge 100 ] || fail "too few samples: $(total out.folded)"
	grep -E "$TRACER_RE" out.folded
	! grep -Eq "$TRACER_RE" out.folded || fail "tracer frames: $(grep -Eo "$TRACER_RE[^;]*" out.folded | sort -u | head -3)"
}

test_short_lived_children_symbolized() {
	timeout 60 "$SS" profile -F 999 -o out.folded -- "$WL/forker" 20 60 2>err.txt ||
		fail "profile exited $?: $(cat err.txt)"
	spin=$(samples out.folded '^forker;([^;]*;)*main;child_spin(;| )')
	all=$(samples out.folded '^forker;')
	# 20 x 60 ms at 999 Hz is ~1200 samples
	[ "$spin" -ge 600 ] || fail "only $spin samples in main;child_spin (of $all)"
	unk=$(samples out.folded '\[unknown\]|\[forker\+0x')
	[ $((unk * 100)) -le $((all * 2)) ] || fail "$unk of $all samples with unsymbolized frames"
}

test_pid_of_running_process() {
	"$WL/fp_chain" 4 &
	pid=$!
	sleep 0.3
	timeout 60 "$SS" profile -p "$pid" -d 1 -o out.folded 2>err.txt || fail "profile exited $?"
	kill "$pid" 2>/dev/null; wait
	[ "$(samples out.folded 'main;parent;child;leaf')" -ge 50 ] || fail "no leaf samples: $(head -3 out.folded)"
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
	"$SS" profile -o out.folded 2>err.txt &
	pid=$!
	sleep 1.5
	kill -INT $pid
	wait $pid
	rc=$?
	[ "$rc" = 0 ] || fail "exit $rc after SIGINT"
	[ -s out.folded ] || fail "no output after SIGINT"
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
	grep -q 'do_reads' u.folded || fail "-U output lacks user frames"
	! grep -q 'do_reads\|main' k.folded || fail "-K output has user frames"
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
