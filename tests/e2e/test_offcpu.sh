# End-to-end tests of `stackscope offcpu` on tests/workloads/offcpu_wl:
# main -> sleeper sleeps 3 x 300 ms; pipe_reader blocks on a pipe until
# pipe_writer writes 400 ms later.  Folded values are microseconds.
# A sleep never ends early, so what was asked bounds a blocked time below
# (less 1 ms per wait for the on-CPU instants around it); how much longer
# it lasts depends on the machine, and the workload's own clock around
# each call bounds it above (it prints what it measured: wl.txt).
TRACER_RE='bpf_prog_[0-9a-f]+_on_[a-z_]+|bpf_trace_run|__traceiter_|__bpf_trace_'

# between VALUE LOW HIGH
between() { [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }
# measured FILE KEY: the sum of the workload's microseconds on line KEY
measured() { awk -v k="$2" '$1 == k { for (i = 2; i <= NF; i++) n += $i } END { print n + 0 }' "$1"; }
# measured_max FILE KEY, measured_min FILE KEY: its longest, shortest
measured_max() { awk -v k="$2" '$1 == k { for (i = 2; i <= NF; i++) if ($i > n) n = $i } END { print n + 0 }' "$1"; }
measured_min() { awk -v k="$2" '$1 == k { n = $2; for (i = 3; i <= NF; i++) if ($i < n) n = $i } END { print n + 0 }' "$1"; }

test_sleep_and_pipe_totals() {
	timeout 60 "$SS" offcpu -o out.folded -- "$WL/offcpu_wl" >wl.txt 2>err.txt || fail "offcpu exited $?: $(cat err.txt)"
	sleep_us=$(samples out.folded ';main;sleeper;raw_nanosleep;[^ ]*do_nanosleep_\[k\]')
	between "$sleep_us" 897000 "$(measured wl.txt sleeps_us)" ||
		fail "sleeper: $sleep_us us, want 900000 - 3 x 1 ms to $(measured wl.txt sleeps_us) (the workload's clock); workload: $(tr '\n' ' ' <wl.txt); summary: $(tail -1 err.txt); nanosleep stacks: $(grep -c nanosleep out.folded)"
	read_us=$(samples out.folded ';pipe_reader;raw_read;[^ ]*pipe_read_\[k\]')
	between "$read_us" 399000 "$(measured wl.txt read_us)" ||
		fail "pipe_reader: $read_us us, want 400000 - 1 ms to $(measured wl.txt read_us)"
	grep -q '^stackscope offcpu: [0-9]* blocked intervals, .* 0 lost blocked intervals, 0 lost stacks' err.txt ||
		fail "summary: $(cat err.txt)"
}

test_per_pid_frames() {
	timeout 60 "$SS" offcpu --per-pid -o out.folded -- "$WL/offcpu_wl" >/dev/null 2>err.txt ||
		fail "offcpu exited $?: $(cat err.txt)"
	bad=$(grep -vE '^[^;]+;\[pid [0-9]+\];' out.folded | head -3)
	[ -z "$bad" ] || fail "stacks without a pid frame: $(echo "$bad" | cut -c1-200)"
	# three threads of one process: one pid frame for the sleeper and the reader
	s=$(grep -oE '^[^;]+;\[pid [0-9]+\];([^;]*;)*main;sleeper' out.folded | cut -d';' -f2 | sort -u)
	r=$(grep -oE '^[^;]+;\[pid [0-9]+\];([^;]*;)*pipe_reader' out.folded | cut -d';' -f2 | sort -u)
	[ -n "$s" ] && [ "$s" = "$r" ] || fail "sleeper under '$s', pipe_reader under '$r'"
}

test_per_thread_frames() {
	timeout 60 "$SS" offcpu --per-thread -o out.folded -- "$WL/offcpu_wl" >/dev/null 2>err.txt ||
		fail "offcpu exited $?: $(cat err.txt)"
	bad=$(grep -vE '^[^;]+;\[tid [0-9]+\];' out.folded | head -3)
	[ -z "$bad" ] || fail "stacks without a tid frame: $(echo "$bad" | cut -c1-200)"
	s=$(grep -oE '^[^;]+;\[tid [0-9]+\];([^;]*;)*main;sleeper' out.folded | cut -d';' -f2 | sort -u)
	r=$(grep -oE '^[^;]+;\[tid [0-9]+\];([^;]*;)*pipe_reader' out.folded | cut -d';' -f2 | sort -u)
	[ "$(echo "$s" | wc -l)" = 1 ] && [ -n "$s" ] && [ -n "$r" ] && [ "$s" != "$r" ] ||
		fail "sleeper under '$s', pipe_reader under '$r'"
}

test_kernel_stacks_start_at_the_scheduler() {
	timeout 60 "$SS" offcpu -o out.folded -- "$WL/offcpu_wl" 2>/dev/null || fail "offcpu exited $?"
	! grep -Eq "$TRACER_RE" out.folded || fail "tracer frames: $(grep -Eo "$TRACER_RE[^;]*" out.folded | sort -u | head -3)"
	bad=$(grep -v '__schedule_\[k\] [0-9]*$' out.folded | head -2)
	[ -z "$bad" ] || fail "kernel stacks not ending at __schedule: $bad"
}

test_wakers_explain_the_pipe_wait() {
	timeout 60 "$SS" offcpu --wakers -o out.folded -- "$WL/offcpu_wl" >wl.txt 2>/dev/null || fail "offcpu exited $?"
	line=$(grep ';--;[^ ]*pipe_reader;' out.folded | sort -t' ' -k2 -n | tail -1)
	[ -n "$line" ] || fail "no waker;--;pipe_reader line: $(head -3 out.folded)"
	case "$line" in
	*pipe_writer\;raw_write\;*pipe_write_\[k\]*\;--\;*) ;;
	*) fail "the reader's waker is not the writer: $line" ;;
	esac
	v=${line##* }
	between "$v" 399000 "$(measured wl.txt read_us)" ||
		fail "woken wait $v us, want 400000 - 1 ms to $(measured wl.txt read_us)"
}

test_min_duration_removes_short_waits() {
	# the pipe wait is >= 399 ms; a 300 ms sleep is shorter than 350 ms
	# when the workload's clock says so (it may overrun on a busy machine)
	timeout 60 "$SS" offcpu -m 350000 -o out.folded -- "$WL/offcpu_wl" >wl.txt 2>/dev/null || fail "offcpu exited $?"
	grep -q ';pipe_reader;raw_read;[^ ]*pipe_read_\[k\]' out.folded || fail "the 400 ms pipe wait is gone"
	# each kept stack adds up waits of at least 350 ms
	short=$(awk '$NF < 350000' out.folded | head -3)
	[ -z "$short" ] || fail "waits under 350 ms kept with -m 350000: $short"
	if [ "$(measured_max wl.txt sleeps_us)" -lt 350000 ]; then
		! grep -q 'sleeper' out.folded || fail "300 ms sleeps kept with -m 350000"
	fi
	timeout 60 "$SS" offcpu -M 350000 -o max.folded -- "$WL/offcpu_wl" >wl.txt 2>/dev/null || fail "offcpu exited $?"
	! grep -q ';pipe_reader;raw_read;[^ ]*pipe_read_\[k\]' max.folded || fail "400 ms wait kept with -M 350000"
	if [ "$(measured_min wl.txt sleeps_us)" -le 350000 ]; then
		grep -q 'sleeper' max.folded || fail "300 ms sleeps gone with -M 350000"
	fi
}

test_kernel_threads_only() {
	# kcompactd alone wakes every 0.5 s
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
	# a copy under a name of its own (this test's pid in it: another
	# run of this suite on the machine is rightly seen, as any other
	# stackscope is)
	self=ss-self-$$
	cp "$SS" "./$self"
	"./$self" offcpu -o out.folded 2>err.txt &
	ss=$!
	wait_for "tracing_live $ss"
	# blocks (and wakes) while the capture runs, then ends it
	"$WL/offcpu_wl" >/dev/null
	kill -INT $ss
	wait $ss || fail "offcpu exited $?: $(cat err.txt)"
	! grep -q "^$self;" out.folded || fail "stackscope's own waits counted: $(grep "^$self;" out.folded | head -2 | cut -c1-200)"
	grep -q '^offcpu_wl;.*;main;sleeper;' out.folded || fail "the workload is missing system-wide: $(tail -1 err.txt)"
}

test_user_stacks_through_libc_without_frame_pointers() {
	# usleep -> clock_nanosleep in libc has no frame pointers: the user
	# stack is copied when the thread returns from the syscall and
	# unwound with the tables
	timeout 60 "$SS" offcpu -o out.folded -- "$WL/unwind/libc_sleep" >wl.txt 2>err.txt || fail "offcpu exited $?"
	us=$(samples out.folded '^libc_sleep;_start;__libc_start_main[^;]*;__libc_start_call_main;main;nap_in_libc;usleep;([^;]*;)*[^ ]*do_nanosleep_\[k\]')
	between "$us" 897000 "$(measured wl.txt sleeps_us)" ||
		fail "nap_in_libc via usleep: $us us, want 900000 - 3 x 1 ms to $(measured wl.txt sleeps_us): $(sort -t' ' -k2 -n out.folded | tail -2 | cut -c1-300); workload: $(tr '\n' ' ' <wl.txt); summary: $(grep -v '^libbpf' err.txt | tail -3 | tr '\n' ' ')"
	timeout 60 "$SS" offcpu --unwind fp -o fp.folded -- "$WL/unwind/libc_sleep" >wl.txt 2>/dev/null || fail "offcpu --unwind fp exited $?"
	# whatever the user stacks, the kernel ones hold every sleep
	between "$(samples fp.folded 'do_nanosleep')" 897000 "$(measured wl.txt sleeps_us)" ||
		fail "--unwind fp: $(samples fp.folded 'do_nanosleep') us in do_nanosleep, want 897000 to $(measured wl.txt sleeps_us)"
}

test_user_stacks_unwound_in_the_kernel() {
	# --unwind kernel: the same chains through libc, walked at switch-out
	# with the tables loaded on the process's first wait
	timeout 60 "$SS" offcpu -v --unwind kernel -o out.folded -- "$WL/unwind/libc_sleep" >wl.txt 2>err.txt ||
		fail "offcpu exited $?: $(cat err.txt)"
	us=$(samples out.folded '^libc_sleep;_start;__libc_start_main[^;]*;__libc_start_call_main;main;nap_in_libc;usleep;([^;]*;)*[^ ]*do_nanosleep_\[k\]')
	between "$us" 897000 "$(measured wl.txt sleeps_us)" ||
		fail "nap_in_libc via usleep: $us us, want 900000 - 3 x 1 ms to $(measured wl.txt sleeps_us): $(sort -t' ' -k2 -n out.folded | tail -2 | cut -c1-300); workload: $(tr '\n' ' ' <wl.txt); summary: $(grep -v '^libbpf' err.txt | tail -3 | tr '\n' ' ')"
	grep -q '^stackscope offcpu: .* 0 lost blocked intervals, 0 lost stacks' err.txt ||
		fail "summary: $(tail -1 err.txt)"
	# the waits of two threads started by libc's start_thread (no frame
	# pointers), taken by -p until the process was loaded (-v says so)
	# and ran 50 ms of CPU more: chains from clone3 down, walked in the
	# kernel, the fallbacks in the summary
	"$WL/pingpong" 100000000 &
	wl=$!
	wait_for "runs_exe $wl $WL/pingpong"
	"$SS" offcpu -v --unwind kernel -p "$wl" -o pp.folded 2>err.txt &
	ss=$!
	wait_for "grep -q 'in-kernel unwinding: loaded pid $wl ' err.txt" 60
	t0=$(awk '{ print $14 + $15 }' "/proc/$wl/stat")
	wait_for "[ \$((\$(awk '{ print \$14 + \$15 }' /proc/$wl/stat) - t0)) -ge 5 ]" 60
	kill -INT "$ss"
	wait "$ss" || fail "offcpu exited $?: $(grep -v '^libbpf' err.txt)"
	kill "$wl"
	wait "$wl" 2>/dev/null
	read -r k s < <(sed -n 's/.* \([0-9]*\) stacks unwound in the kernel, \([0-9]*\) from snapshots,.*/\1 \2/p' err.txt)
	[ "${k:-0}" -ge 1 ] || fail "no stack unwound in the kernel: $(grep -E 'in-kernel|offcpu:' err.txt)"
	[ -n "$s" ] || fail "fallbacks not in the summary: $(tail -1 err.txt)"
	# (waits flushed with the frame-pointer stack end at start_thread, as
	# in every mode: libc keeps no frame pointers)
	whole=$(samples pp.folded '^pingpong;clone3;start_thread;(ping|pong);raw_(read|write);')
	[ "$whole" -gt 0 ] || fail "no wait in ping/pong with the chain from clone3: $(grep -E ';(ping|pong);' pp.folded | head -2 | cut -c1-200)"
	! grep -E ';(ping|pong);' pp.folded | grep -q '\[truncated\]' ||
		fail "truncated chains: $(grep '\[truncated\]' pp.folded | head -2 | cut -c1-200)"
}

# A kernel without bpf_loop() (before 5.17): the in-kernel walk needs it,
# so --unwind auto copies the stacks; the same chains through libc.
test_without_bpf_loop_stacks_copied() {
	STACKSCOPE_FEATURES_OFF=bpf_loop timeout 60 "$SS" offcpu -v -o out.folded -- "$WL/unwind/libc_sleep" \
		>wl.txt 2>err.txt || fail "offcpu exited $?: $(grep -v '^libbpf' err.txt | tail -3)"
	grep -q 'unwind auto: no bpf_loop() in this kernel: stacks copied' err.txt ||
		fail "not said: $(grep -i 'unwind\|feature' err.txt | head -3)"
	us=$(samples out.folded '^libc_sleep;_start;__libc_start_main[^;]*;__libc_start_call_main;main;nap_in_libc;usleep;([^;]*;)*[^ ]*do_nanosleep_\[k\]')
	between "$us" 897000 "$(measured wl.txt sleeps_us)" ||
		fail "nap_in_libc via usleep: $us us, want 897000 to $(measured wl.txt sleeps_us); summary: $(tail -1 err.txt)"
	! grep -q 'in-kernel unwinding\|unwound in the kernel' err.txt ||
		fail "walked in the kernel: $(grep 'in-kernel\|unwound in the kernel' err.txt | head -2)"
}

test_launch_exit_status_and_errors() {
	timeout 30 "$SS" offcpu -o out.folded -- sh -c 'exit 5' 2>/dev/null
	[ $? = 5 ] || fail "exit status not passed through"
	timeout 30 "$SS" offcpu -p 999999999 -d 1 2>err.txt && fail "missing pid accepted"
	[ "$(wc -l <err.txt)" = 1 ] && grep -q 999999999 err.txt || fail "message: $(cat err.txt)"
	"$SS" offcpu -o sig.folded 2>/dev/null &
	pid=$!
	wait_for "tracing_live $pid"
	"$WL/offcpu_wl" >/dev/null
	kill -INT $pid
	wait $pid || fail "exit $? after SIGINT"
	grep -q '^offcpu_wl;.*;main;sleeper;' sig.folded || fail "the waits before SIGINT are not in the output: $(head -3 sig.folded)"
}

test_state_filter() {
	# nanosleep and a pipe read sleep interruptibly: --state sleep keeps
	# them, --state disk (uninterruptible) has none of them
	timeout 60 "$SS" offcpu --state sleep -o s.folded -- "$WL/offcpu_wl" >wl.txt 2>/dev/null || fail "exited $?"
	between "$(samples s.folded ';sleeper;')" 897000 "$(measured wl.txt sleeps_us)" ||
		fail "--state sleep: sleeper $(samples s.folded ';sleeper;') us, want 897000 to $(measured wl.txt sleeps_us)"
	timeout 60 "$SS" offcpu --state disk -o d.folded -- "$WL/offcpu_wl" 2>/dev/null || fail "exited $?"
	! grep -q 'sleeper\|pipe_reader' d.folded || fail "--state disk kept interruptible sleeps"
	"$SS" offcpu --state bogus -d 1 2>err.txt && fail "--state bogus accepted"
	grep -q bogus err.txt || fail "no message: $(cat err.txt)"
}
