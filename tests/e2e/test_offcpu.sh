# End-to-end tests of `stackscope offcpu` on tests/workloads/offcpu_wl:
# main -> sleeper sleeps 3 x 300 ms; pipe_reader blocks on a pipe until
# pipe_writer writes 400 ms later.  Folded values are microseconds.
TRACER_RE='bpf_prog_[0-9a-f]+_on_[a-z_]+|bpf_trace_run|__traceiter_|__bpf_trace_'

# within VALUE WANT PERCENT
within() { awk -v v="$1" -v w="$2" -v p="$3" 'BEGIN { exit !(v >= w * (1 - p / 100) && v <= w * (1 + p / 100)) }'; }

test_sleep_and_pipe_totals() {
	timeout 60 "$SS" offcpu -o out.folded -- "$WL/offcpu_wl" 2>err.txt || fail "offcpu exited $?: $(cat err.txt)"
	sleep_us=$(samples out.folded ';main;sleeper;raw_nanosleep;[^ ]*do_nanosleep_\[k\]')
	within "$sleep_us" 900000 5 || fail "sleeper: $sleep_us us, want 900000 +-5%"
	read_us=$(samples out.folded ';pipe_reader;raw_read;[^ ]*pipe_read_\[k\]')
	within "$read_us" 400000 5 || fail "pipe_reader: $read_us us, want 400000 +-5%"
	grep -q '^stackscope offcpu: [0-9]* blocked intervals, .* 0 lost blocked intervals, 0 lost stacks' err.txt ||
		fail "summary: $(cat err.txt)"
}

test_kernel_stacks_start_at_the_scheduler() {
	timeout 60 "$SS" offcpu -o out.folded -- "$WL/offcpu_wl" 2>/dev/null || fail "offcpu exited $?"
	! grep -Eq "$TRACER_RE" out.folded || fail "tracer frames: $(grep -Eo "$TRACER_RE[^;]*" out.folded | sort -u | head -3)"
	bad=$(grep -v '__schedule_\[k\] [0-9]*$' out.folded | head -2)
	[ -z "$bad" ] || fail "kernel stacks not ending at __schedule: $bad"
}

test_wakers_explain_the_pipe_wait() {
	timeout 60 "$SS" offcpu --wakers -o out.folded -- "$WL/offcpu_wl" 2>/dev/null || fail "offcpu exited $?"
	line=$(grep ';--;[^ ]*pipe_reader;' out.folded | sort -t' ' -k2 -n | tail -1)
	[ -n "$line" ] || fail "no waker;--;pipe_reader line: $(head -3 out.folded)"
	case "$line" in
	*pipe_writer\;raw_write\;*pipe_write_\[k\]*\;--\;*) ;;
	*) fail "the reader's waker is not the writer: $line" ;;
	esac
	v=${line##* }
	within "$v" 400000 5 || fail "woken wait $v us, want 400000 +-5%"
}

test_min_duration_removes_short_waits() {
	timeout 60 "$SS" offcpu -m 350000 -o out.folded -- "$WL/offcpu_wl" 2>/dev/null || fail "offcpu exited $?"
	! grep -q 'sleeper' out.folded || fail "300 ms sleeps kept with -m 350000"
	grep -q 'pipe_reader' out.folded || fail "the 400 ms pipe wait is gone"
	timeout 60 "$SS" offcpu -M 350000 -o max.folded -- "$WL/offcpu_wl" 2>/dev/null || fail "offcpu exited $?"
	! grep -q 'pipe_reader' max.folded || fail "400 ms wait kept with -M 350000"
	grep -q 'sleeper' max.folded || fail "300 ms sleeps gone with -M 350000"
}

test_kernel_threads_only() {
	timeout 30 "$SS" offcpu -k -d 1 -o out.folded 2>/dev/null || fail "offcpu -k exited $?"
	[ -s out.folded ] || fail "no kernel thread blocked for a second?"
	# every frame after the thread name is a kernel frame
	user=$(awk -F';' '{ for (i = 2; i <= NF; i++) { f = $i; sub(/ [0-9]+$/, "", f); if (f !~ /_\[k\]$/) { print; exit } } }' out.folded)
	[ -z "$user" ] || fail "user frames with -k: $user"
	timeout 30 "$SS" offcpu -u -o u.folded -- "$WL/offcpu_wl" 2>/dev/null || fail "offcpu -u exited $?"
	grep -q sleeper u.folded || fail "-u lost the user threads"
	"$SS" offcpu -k -U -d 1 2>err.txt && fail "-k -U accepted"
	grep -q 'kernel threads have no user stacks' err.txt || fail "no reason given: $(cat err.txt)"
}

test_own_time_excluded() {
	# a copy under a name of its own: other stackscope runs on the
	# machine are rightly seen
	cp "$SS" ./ss-self
	"$WL/offcpu_wl" &
	timeout 30 ./ss-self offcpu -d 1 -o out.folded 2>/dev/null || fail "offcpu exited $?"
	wait
	! grep -q '^ss-self;' out.folded || fail "stackscope's own waits counted"
	grep -q '^offcpu_wl;' out.folded || fail "the workload is missing system-wide"
}

test_user_stacks_through_libc_without_frame_pointers() {
	# usleep -> clock_nanosleep in libc has no frame pointers: the user
	# stack is copied when the thread returns from the syscall and
	# unwound with the tables
	timeout 60 "$SS" offcpu -o out.folded -- "$WL/unwind/libc_sleep" 2>err.txt || fail "offcpu exited $?"
	us=$(samples out.folded '^libc_sleep;_start;__libc_start_main[^;]*;__libc_start_call_main;main;nap_in_libc;usleep;([^;]*;)*[^ ]*do_nanosleep_\[k\]')
	within "$us" 900000 5 || fail "nap_in_libc via usleep: $us us, want 900000 +-5%: $(sort -t' ' -k2 -n out.folded | tail -2 | cut -c1-300)"
	timeout 60 "$SS" offcpu --unwind fp -o fp.folded -- "$WL/unwind/libc_sleep" 2>/dev/null || fail "offcpu --unwind fp exited $?"
	[ "$(samples fp.folded 'do_nanosleep')" -ge 850000 ] || fail "--unwind fp lost the sleeps"
}

test_launch_exit_status_and_errors() {
	timeout 30 "$SS" offcpu -o out.folded -- sh -c 'sleep 0.2; exit 5' 2>/dev/null
	[ $? = 5 ] || fail "exit status not passed through"
	timeout 30 "$SS" offcpu -p 999999999 -d 1 2>err.txt && fail "missing pid accepted"
	[ "$(wc -l <err.txt)" = 1 ] && grep -q 999999999 err.txt || fail "message: $(cat err.txt)"
	"$SS" offcpu -o sig.folded 2>/dev/null &
	pid=$!
	sleep 1.5
	kill -INT $pid
	wait $pid || fail "exit $? after SIGINT"
	[ -s sig.folded ] || fail "no output after SIGINT"
}

test_state_filter() {
	# nanosleep and a pipe read sleep interruptibly: --state sleep keeps
	# them, --state disk (uninterruptible) has none of them
	timeout 60 "$SS" offcpu --state sleep -o s.folded -- "$WL/offcpu_wl" 2>/dev/null || fail "exited $?"
	within "$(samples s.folded ';sleeper;')" 900000 5 || fail "--state sleep: sleeper $(samples s.folded ';sleeper;') us"
	timeout 60 "$SS" offcpu --state disk -o d.folded -- "$WL/offcpu_wl" 2>/dev/null || fail "exited $?"
	! grep -q 'sleeper\|pipe_reader' d.folded || fail "--state disk kept interruptible sleeps"
	"$SS" offcpu --state bogus -d 1 2>err.txt && fail "--state bogus accepted"
	grep -q bogus err.txt || fail "no message: $(cat err.txt)"
}
