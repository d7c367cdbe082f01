# End-to-end tests of `stackscope syscalls` on tests/workloads/sysc_wl,
# which makes known syscalls directly (see its header).

# durations FILE: the duration in seconds of each finished call ("(+S.s)")
durations() { sed -nE 's/^[0-9:.]+ \(\+([0-9.]+)s\) .*/\1/p' "$1"; }

# norm FILE: the calls without time, duration, comm[pid/tid] and cpu
norm() {
	sed -E 's/^[0-9:.]+ (\(\+[^)]*\) )?[^ ]*\[[0-9/]+\] (cpu[0-9]+ )?//' "$1"
}

# the workload's own part: from its first call on DIR to the end
own_part() { norm "$1" | sed -n "\\|$2/data|,\$p"; }

test_known_calls_line_by_line() {
	mkdir d
	D=$T/d
	timeout 60 "$SS" syscalls -s 200 -o out.txt -- "$WL/sysc_wl" "$D" 3 2>err.txt ||
		fail "syscalls exited $?: $(cat err.txt)"
	own_part out.txt "$D" | sed -E -e 's/^getppid\(\) = [0-9]+$/getppid() = PPID/' \
		-e 's/^(ioctl\(3, TCGETS, )0x[0-9a-f]+/\1ADDR/' >got.txt
	cat >want.txt <<-EOF
	openat(AT_FDCWD, "$D/data", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0644) = 3
	write(3, "hello, stackscope\n", 18) = 18
	close(3) = 0
	openat(AT_FDCWD, "$D/data", O_RDONLY) = 3
	read(3, "hello, stackscope\n", 64) = 18
	fstat(3, {st_mode=S_IFREG|0644, st_size=18, ...}) = 0
	close(3) = 0
	openat(AT_FDCWD, "$D/nope", O_RDONLY) = -1 ENOENT (No such file or directory)
	nanosleep({tv_sec=0, tv_nsec=20000000}, NULL) = 0
	pipe2([3, 4], O_CLOEXEC) = 0
	poll([{fd=3, events=POLLIN}, {fd=4, events=POLLOUT}], 2, 0) = 1 ([{fd=4, revents=POLLOUT}])
	epoll_create1(EPOLL_CLOEXEC) = 5
	epoll_ctl(5, EPOLL_CTL_ADD, 4, {events=EPOLLOUT, data={u32=4, u64=4}}) = 0
	epoll_wait(5, [{events=EPOLLOUT, data={u32=4, u64=4}}], 8, 0) = 1
	prctl(PR_GET_NAME, "sysc_wl") = 0
	ioctl(3, TCGETS, ADDR) = -1 ENOTTY (Inappropriate ioctl for device)
	getppid() = PPID
	getppid() = PPID
	getppid() = PPID
	unlinkat(AT_FDCWD, "$D/data", 0) = 0
	exit_group(0) = ?
	+++ exited with 0 +++
	EOF
	diff want.txt got.txt >diff.txt || fail "lines differ: $(cat diff.txt | head -20)"
	# the first line is the command's execve: nothing of the gate before it
	head -1 out.txt | grep -q "execve(\"$WL/sysc_wl\", \[\"$WL/sysc_wl\", \"$D\", \"3\"\]" ||
		fail "first line: $(head -1 out.txt)"
	grep -q '^stackscope syscalls: [0-9]* records, 0 lost' err.txt || fail "summary: $(cat err.txt)"
}

# Entry and exit in one program, told apart by raw tracepoint cookies
# (6.10+), and the two programs of an older kernel: the same lines.
test_one_program_or_two_same_lines() {
	mkdir d
	D=$T/d
	timeout 60 "$SS" syscalls -v -s 200 -o one.txt -- "$WL/sysc_wl" "$D" 3 2>err1.txt ||
		fail "syscalls exited $?: $(cat err1.txt)"
	grep -q 'feature raw tracepoint cookie: yes' err1.txt ||
		fail "this kernel's raw tracepoints take cookies: $(grep feature err1.txt)"
	STACKSCOPE_FEATURES_OFF="raw tracepoint cookie" timeout 60 "$SS" syscalls -v -s 200 -o two.txt \
		-- "$WL/sysc_wl" "$D" 3 2>err2.txt || fail "syscalls (two programs) exited $?: $(cat err2.txt)"
	grep -q 'feature raw tracepoint cookie: turned off' err2.txt || fail "not turned off: $(cat err2.txt)"
	for f in one two; do
		own_part $f.txt "$D" | sed -E -e 's/^getppid\(\) = [0-9]+$/getppid() = PPID/' \
			-e 's/^(ioctl\(3, TCGETS, )0x[0-9a-f]+/\1ADDR/' >$f.own
	done
	[ "$(wc -l <one.own)" -ge 20 ] || fail "too few lines: $(cat one.own)"
	diff one.own two.own >diff.txt || fail "lines differ: $(head -20 diff.txt)"
}

test_formats_read_only_for_calls_shown() {
	mkdir d
	timeout 60 "$SS" syscalls -v -s 200 -o out.txt -- "$WL/sysc_wl" "$T/d" 1 2>err.txt ||
		fail "syscalls exited $?: $(cat err.txt)"
	# a text line reads the format of a syscall shown when its decoder
	# does not say how to show every argument (once, at its first
	# record); the kernel's hundreds of others are never read
	shown=$(norm out.txt | sed -n 's/^\([a-z0-9_]*\)(.*/\1/p' | grep -v '^syscall_[0-9]*$' | sort -u | wc -l)
	counts=$(sed -n 's/^stackscope: \([0-9]*\) syscall formats read, \([0-9]*\) syscalls decoded without theirs$/\1 \2/p' err.txt)
	read=${counts% *} without=${counts#* }
	[ "$shown" -ge 15 ] || fail "only $shown syscalls shown: $(head -3 out.txt)"
	[ -n "$counts" ] && [ $((read + without)) = "$shown" ] ||
		fail "$read formats read, $without without, for $shown syscalls shown: $(cat err.txt)"
	[ "$without" -ge 1 ] || fail "every format read: $(cat err.txt)"
	# JSON names every argument: each shown syscall's format is read
	timeout 60 "$SS" syscalls -v --format json -s 200 -o out.json -- "$WL/sysc_wl" "$T/d" 1 2>err.txt ||
		fail "syscalls --format json exited $?: $(cat err.txt)"
	shown=$(python3 -c 'import json,sys; print(len({json.loads(l)["syscall"] for l in open(sys.argv[1]) if l.strip() and "syscall" in json.loads(l) and not json.loads(l)["syscall"].startswith("syscall_")}))' out.json)
	grep -q "^stackscope: $shown syscall formats read, 0 syscalls decoded without theirs\$" err.txt ||
		fail "json: $shown syscalls shown: $(cat err.txt)"
	# -c decodes no call: none read
	timeout 60 "$SS" syscalls -c -v -o cnt.txt -- "$WL/sysc_wl" "$T/d" 1 2>err.txt ||
		fail "syscalls -c exited $?: $(cat err.txt)"
	grep -q '^stackscope: 0 syscall formats read, 0 syscalls decoded without theirs$' err.txt ||
		fail "-c: $(cat err.txt)"
}

test_line_prefix() {
	mkdir d
	timeout 60 "$SS" syscalls -e nanosleep -o out.txt -- "$WL/sysc_wl" "$T/d" 1 2>/dev/null ||
		fail "syscalls exited $?"
	grep -Eq '^[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6} \(\+[0-9]+\.[0-9]{6}s\) sysc_wl\[([0-9]+)/\1\] cpu[0-9]+ nanosleep\(' out.txt ||
		fail "no 'HH:MM:SS.us (+S.us) comm[pid/tid] cpuN' line: $(head -2 out.txt)"
	# a 20 ms sleep: at least that long, however much longer
	d=$(durations out.txt | head -1)
	awk -v d="$d" 'BEGIN { exit !(d >= 0.02) }' || fail "nanosleep of 20 ms lasted $d s"
}

test_follow_children() {
	mkdir d
	timeout 60 "$SS" syscalls -f -s 200 -o out.txt -- "$WL/sysc_wl" "$T/d" 1 fork 2>/dev/null ||
		fail "syscalls -f exited $?"
	parent=$(grep -m1 -o 'sysc_wl\[[0-9]*/' out.txt | tr -dc 0-9)
	line=$(grep "openat(AT_FDCWD, \"$T/d/child\"" out.txt) || fail "the child's openat is missing"
	child=$(echo "$line" | grep -o 'sysc_wl\[[0-9]*/' | tr -dc 0-9)
	[ "$child" != "$parent" ] || fail "child call under the parent's pid: $line"
	echo "$line" | grep -q '= -1 ENOENT' || fail "child's open: $line"
	grep -q "sysc_wl\[$child\] +++ exited with 3 +++" out.txt || fail "child's exit status missing"
	grep -q "wait4($child, " out.txt || fail "parent's wait4 missing"
	# without -f, only the command itself
	timeout 60 "$SS" syscalls -s 200 -o nof.txt -- "$WL/sysc_wl" "$T/d" 1 fork 2>/dev/null ||
		fail "syscalls exited $?"
	! grep -q "$T/d/child" nof.txt || fail "child traced without -f"
	grep -q 'wait4(' nof.txt || fail "parent's wait4 missing without -f"
}

test_summary_counts_exact() {
	mkdir d
	timeout 60 "$SS" syscalls -c -e getppid,nanosleep,pipe2,unlinkat -o out.txt -- "$WL/sysc_wl" "$T/d" 1234 \
		2>/dev/null || fail "syscalls -c exited $?"
	[ "$(awk '$NF == "getppid" { print $(NF-1) }' out.txt)" = 1234 ] || fail "getppid: $(grep getppid out.txt)"
	[ "$(awk '$NF == "nanosleep" { print $(NF-1) }' out.txt)" = 1 ] || fail "nanosleep: $(grep nanosleep out.txt)"
	[ "$(awk '$NF == "pipe2" { print $(NF-1) }' out.txt)" = 1 ] || fail "pipe2: $(grep pipe2 out.txt)"
	[ "$(awk '$NF == "total" { print $(NF-2) }' out.txt)" = 1237 ] || fail "total: $(grep total out.txt)"
	# sorted by time (the seconds column), and the 20 ms nanosleep took
	# at least that
	awk '/^---/ { part++; next } part == 1 { if (NR > 3 && $2 > last) bad = 1; last = $2 } END { exit bad }' out.txt ||
		fail "not sorted by time: $(cat out.txt)"
	awk '$NF == "nanosleep" { exit !($2 >= 0.02) }' out.txt || fail "nanosleep: $(grep nanosleep out.txt)"
	# errors counted: the failing open
	timeout 60 "$SS" syscalls -c -e openat -o err.txt -- "$WL/sysc_wl" "$T/d" 1 2>/dev/null || fail "exited $?"
	[ "$(awk '$NF == "openat" { print $(NF-1) }' err.txt)" -ge 1 ] || fail "openat errors: $(cat err.txt)"
}

test_json_lines_parse() {
	mkdir d
	timeout 60 "$SS" syscalls --format json -s 200 -o out.json -- "$WL/sysc_wl" "$T/d" 2 2>/dev/null ||
		fail "syscalls exited $?"
	python3 - "$T/d" out.json <<-'EOF' || fail "JSON check failed"
	import json, sys
	d, path = sys.argv[1], sys.argv[2]
	recs = [json.loads(l) for l in open(path)]
	calls = [r for r in recs if r["type"] == "syscall"]
	nope = [r for r in calls if r["syscall"] == "openat" and d + "/nope" in r["args"][1]["value"]]
	assert len(nope) == 1, nope
	n = nope[0]
	assert n["errno"] == "ENOENT" and n["ret"] == -2, n
	assert n["args"][2]["value"] == "O_RDONLY" and n["args"][0]["value"] == "AT_FDCWD", n
	assert n["args"][0]["raw"] == 2**32 - 100 or n["args"][0]["raw"] == 2**64 - 100, n
	assert isinstance(n["duration_ns"], int) and n["pid"] == n["tid"] and n["comm"] == "sysc_wl", n
	w = [r for r in calls if r["syscall"] == "write"][0]
	assert w["args"][1]["value"] == '"hello, stackscope\\n"' and w["ret"] == 18, w
	ex = [r for r in recs if r["type"] == "exit"]
	assert ex and ex[-1]["exit_code"] == 0, ex
	EOF
}

test_trace_events() {
	mkdir d
	# two processes (fork, -f), then three threads blocking in syscalls
	timeout 60 "$SS" syscalls --format trace -f -s 200 -o out.json -- "$WL/sysc_wl" "$T/d" 2 fork \
		2>err.txt || fail "syscalls exited $?: $(cat err.txt)"
	python3 "$ROOT/tests/trace_check.py" out.json --min-events 20 --require-names >check.txt ||
		fail "trace_check: $(head -5 check.txt)"
	python3 - "$T/d" out.json <<-'EOF' || fail "trace content check failed"
	import json, sys
	d, path = sys.argv[1], sys.argv[2]
	ev = json.load(open(path))["traceEvents"]
	x = [e for e in ev if e["ph"] == "X"]
	nope = [e for e in x if e["name"] == "openat" and d + "/nope" in e["args"]["call"]]
	assert len(nope) == 1, nope
	n = nope[0]
	assert n["args"]["errno"] == "ENOENT" and n["args"]["return"] == -2 and n["dur"] > 0, n
	assert n["args"]["call"].endswith(' O_RDONLY) = -1 ENOENT (No such file or directory)'), n
	child = [e for e in x if e["name"] == "openat" and d + "/child" in e["args"]["call"]]
	assert len(child) == 1 and child[0]["pid"] != n["pid"], child
	names = {(e["pid"], e["name"]): e["args"]["name"] for e in ev if e["ph"] == "M"}
	assert names[(n["pid"], "process_name")] == "sysc_wl", names
	assert any(e["name"] == "exit_group" and e["args"]["no_return"] for e in x), "no exit_group"
	EOF
	timeout 60 "$SS" syscalls --format trace -o thr.json -- "$WL/offcpu_wl" 2>err.txt >/dev/null ||
		fail "syscalls exited $?: $(cat err.txt)"
	python3 "$ROOT/tests/trace_check.py" thr.json --min-events 20 --require-names >check.txt ||
		fail "trace_check (threads): $(head -5 check.txt)"
	[ "$(grep -c '"ph":"M","name":"thread_name"' thr.json)" -ge 3 ] ||
		fail "threads: $(grep '"ph":"M"' thr.json)"
	# the checker itself: a partial overlap, an unclosed B, a field missing
	cat >bad.json <<-'EOF'
	{"traceEvents":[{"ph":"X","name":"a","ts":1.000,"pid":1,"tid":1,"dur":2.000},
	{"ph":"X","name":"b","ts":2.000,"pid":1,"tid":1,"dur":2.000},
	{"ph":"B","name":"c","ts":9.000,"pid":1,"tid":2},{"ph":"X","name":"d","ts":1,"pid":1}],
	"otherData":{"clock":"CLOCK_MONOTONIC"}}
	EOF
	! python3 "$ROOT/tests/trace_check.py" bad.json >check.txt || fail "bad trace accepted"
	grep -q "'b' \[2000, 4000\] overlaps 'a' \[1000, 3000\] partially" check.txt &&
		grep -q "B 'c' at 9000 ns never closed" check.txt && grep -q ': no dur, tid' check.txt ||
		fail "checker: $(cat check.txt)"
	# -c writes no calls
	! "$SS" syscalls -c --format trace -- true 2>err.txt || fail "-c with trace accepted"
	grep -q 'exclude each other' err.txt || fail "$(cat err.txt)"
}

test_flood_loss_is_counted_exactly() {
	mkdir d
	N=300000
	# the workload removes d/data after its last getppid: until then the
	# reader stalls, the pipe fills and the 4 KiB ring buffer overflows
	: >d/data
	timeout 120 "$SS" syscalls --buffer-size 4K -e getppid -- "$WL/sysc_wl" "$T/d" $N 2>err.txt |
		(wait_for "[ ! -e d/data ]" 100; cat) >out.txt
	calls=$(grep -c ' getppid() = ' out.txt)
	exits=$(grep -c '+++ exited with 0 +++' out.txt)
	inline=$(awk '/^\.\.\. [0-9]+ records lost \.\.\.$/ { n += $2 } END { print n + 0 }' out.txt)
	summary=$(sed -n 's/^stackscope syscalls: \([0-9]*\) records, \([0-9]*\) lost.*/\1 \2/p' err.txt)
	[ "$inline" -gt 0 ] || fail "no record lost, the reader stalled until the last call: $(cat err.txt)"
	# N calls and the process's exit record
	[ $((calls + exits + inline)) = $((N + 1)) ] ||
		fail "delivered $calls calls + $exits exits + lost $inline != $N + 1"
	[ "$summary" = "$calls $inline" ] || fail "summary '$summary' vs $calls delivered, $inline lost"
	grep -q "records lost by syscall:.* getppid $((N - calls))\b" err.txt ||
		fail "per-syscall loss: $(cat err.txt)"
}

test_storm_no_loss_at_defaults() {
	# 8 threads, 500,000 getppid() calls at once: every one delivered
	timeout 300 "$SS" syscalls -f -o out.txt -- "$WL/sysc_storm" 8 62500 2>err.txt ||
		fail "syscalls exited $?: $(cat err.txt)"
	grep -q '^stackscope syscalls: [0-9]* records, 0 lost records' err.txt ||
		fail "records lost: $(cat err.txt)"
	calls=$(grep -c ' getppid() = ' out.txt)
	[ "$calls" = 500000 ] || fail "$calls getppid() lines, not 500000"
	threads=$(grep ' getppid() = ' out.txt | sed -E 's/.*\[[0-9]+\/([0-9]+)\].*/\1/' | sort -u | wc -l)
	[ "$threads" = 8 ] || fail "getppid() from $threads threads, not 8"
	grep -q 'sysc_storm\[[0-9]*\] +++ exited with 0 +++' out.txt || fail "no exit line"
}

test_failed_only() {
	mkdir d
	timeout 60 "$SS" syscalls --failed -s 200 -o out.txt -- "$WL/sysc_wl" "$T/d" 1 2>/dev/null ||
		fail "syscalls exited $?"
	grep -q "openat(AT_FDCWD, \"$T/d/nope\", O_RDONLY) = -1 ENOENT" out.txt || fail "failing open missing"
	bad=$(grep -v ' = -1 E' out.txt | grep -v '+++ exited' | head -3)
	[ -z "$bad" ] || fail "successful calls with --failed: $bad"
}

test_min_duration() {
	mkdir d
	timeout 60 "$SS" syscalls --min-duration 10000 -o out.txt -- "$WL/sysc_wl" "$T/d" 100 2>/dev/null ||
		fail "syscalls exited $?"
	grep -q 'nanosleep(' out.txt || fail "the 20 ms nanosleep is missing"
	# of the hundred getppid calls and the rest, only those that lasted
	# 10 ms (a busy machine may stretch one) are kept
	short=$(durations out.txt | awk '$1 < 0.01' | head -3)
	[ -z "$short" ] || fail "calls under 10 ms kept: $short"
}

test_syscall_filter() {
	mkdir d
	timeout 60 "$SS" syscalls -e openat,close -s 200 -o out.txt -- "$WL/sysc_wl" "$T/d" 1 2>/dev/null ||
		fail "syscalls exited $?"
	other=$(norm out.txt | grep -Ev '^(openat|close)\(|^\+\+\+' | head -3)
	[ -z "$other" ] || fail "other calls with -e openat,close: $other"
	grep -q "$T/d/nope" out.txt || fail "openat missing"
	timeout 60 "$SS" syscalls -e '%file' -s 200 -o cls.txt -- "$WL/sysc_wl" "$T/d" 1 2>/dev/null ||
		fail "syscalls -e %file exited $?"
	grep -q 'unlinkat(' cls.txt || fail "%file without unlinkat"
	! grep -q 'getppid(' cls.txt || fail "%file with getppid"
	"$SS" syscalls -e no_such_call -- true 2>err.txt && fail "unknown syscall accepted"
	grep -q 'no_such_call: no such syscall' err.txt || fail "message: $(cat err.txt)"
}

test_attach_to_running_process() {
	bash -c 'while :; do : >tick; sleep 0.05; done' &
	pid=$!
	"$SS" syscalls -p $pid -o out.txt 2>err.txt &
	ss=$!
	wait_for "tracing_live $ss"
	# the loop creates it again while traced
	rm -f tick
	wait_for "[ -e tick ]"
	kill -INT $ss
	wait $ss || fail "syscalls exited $?: $(cat err.txt)"
	kill $pid
	grep -q "openat(AT_FDCWD, \"tick\", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3" out.txt ||
		fail "the shell's redirection open is missing: $(head -3 out.txt)"
	! grep -v "\[$pid/$pid\]" out.txt | grep -q '^[0-9]' || fail "other processes traced"
}

test_open_and_resumed_calls() {
	mkfifo go early
	# blocks in clock_nanosleep once released, after tracing started:
	# still open at the end
	(read -r _ <go; exec sleep 30) &
	pid=$!
	# ... and one blocked in read(2) before tracing started: seen when
	# it returns
	exec 3<>early
	head -c 2 <&3 >/dev/null &
	early=$!
	wait_for "runs_exe $early $(command -v head) && in_syscall $early 0"
	"$SS" syscalls -p $pid,$early -o out.txt 2>err.txt &
	ss=$!
	wait_for "tracing_live $ss"
	echo >go
	echo x >&3
	# the early read returned (head exited) and the sleep is under way
	wait_for "exited $early && runs_exe $pid $(command -v sleep) && in_syscall $pid 230"
	kill -INT $ss
	wait $ss || fail "syscalls exited $?: $(cat err.txt)"
	kill $pid
	grep -q "sleep\[$pid/$pid\] cpu[0-9]* clock_nanosleep(.* = ? <unfinished ...>" out.txt ||
		fail "blocked call not shown: $(cat out.txt)"
	grep -q "head\[$early/$early\] cpu[0-9]* read(0, .*) = 2 <entered before tracing began>" out.txt ||
		fail "call entered before tracing not shown: $(cat out.txt)"
}

test_user_stack_with_k() {
	mkdir d
	timeout 60 "$SS" syscalls -k -e nanosleep -o out.txt -- "$WL/sysc_wl" "$T/d" 1 2>err.txt ||
		fail "syscalls -k exited $?: $(cat err.txt)"
	sed -n '/nanosleep(/,/^[0-9]/p' out.txt >stack.txt
	grep -q '^ > main$' stack.txt || fail "no main in the stack: $(cat stack.txt)"
	grep -q '^ > syscall$' stack.txt || fail "no libc syscall() frame: $(cat stack.txt)"
	grep -q '^ > __libc_start_main' stack.txt || fail "stack not complete: $(cat stack.txt)"
}

test_exit_status_and_errors() {
	timeout 30 "$SS" syscalls -o /dev/null -- sh -c 'exit 7' 2>/dev/null
	[ $? = 7 ] || fail "exit status not passed through"
	"$SS" syscalls -p 999999 -- 2>err.txt && fail "missing pid accepted"
	grep -q '999999' err.txt || fail "message: $(cat err.txt)"
	"$SS" syscalls -s 5000 -- true 2>err.txt && fail "-s 5000 accepted"
	"$SS" syscalls -- /no/such/cmd 2>err.txt && fail "missing command accepted"
	grep -q "cannot run '/no/such/cmd'" err.txt || fail "message: $(cat err.txt)"
}

test_lines_match_strace() {
	command -v strace >/dev/null || skip "strace not installed (scripts/deps.sh test)"
	command -v python3 >/dev/null || skip "python3 not installed (scripts/deps.sh test)"
	# 26 programs of the base system, each traced by both; at least 99%
	# of strace's lines have an identical line once pids, pointers, times
	# and random bytes are normalised (tests/strace_compare.py)
	timeout 600 python3 "$ROOT/tests/strace_compare.py" "$SS" "$T" --min 99 >cmp.txt 2>&1 ||
		fail "$(grep -E '^(total|share)|:.*stackscope' cmp.txt | head -5; tail -8 cmp.txt)"
	grep -q 'stackscope: ' cmp.txt && fail "records lost: $(grep 'stackscope: ' cmp.txt | head -3)"
	true
}
