# Hostile inputs: files and programs others wrote, met as root.

# -o onto a FIFO another user made: refused at once, in one line
test_output_fifo_of_another_user() {
	mkfifo out.fifo && chown nobody out.fifo || skip "cannot make a FIFO owned by nobody"
	timeout -s KILL 30 "$SS" profile -o "$T/out.fifo" -- touch ran 2>err.txt
	rc=$?
	[ $rc = 1 ] || fail "exit $rc (137: blocked on the FIFO): $(cat err.txt)"
	[ "$(cat err.txt)" = "stackscope: $T/out.fifo: a FIFO owned by uid 65534, not root or the caller: refused" ] ||
		fail "message: $(cat err.txt)"
	[ ! -e ran ] || fail "refused only after the capture"
}

# -o onto our own FIFO nobody reads: refused, not waited for
test_output_fifo_without_reader() {
	mkfifo out.fifo
	timeout -s KILL 30 "$SS" syscalls -o out.fifo -- true 2>err.txt
	rc=$?
	[ $rc = 1 ] || fail "exit $rc (137: blocked on the FIFO): $(cat err.txt)"
	grep -qx "stackscope: out.fifo: a FIFO with no reader" err.txt || fail "message: $(cat err.txt)"
}

# a reader that stops reading holds the writes, and SIGINT still ends the run
test_output_fifo_stalled_reader_sigint() {
	mkfifo out.fifo
	exec 3<>out.fifo	# a reader that never reads
	"$SS" syscalls -o out.fifo -- "$WL/syscall_heavy" 1 2>err.txt &
	pid=$!
	wait_for "tracing_live $pid"
	wait_for "child=\$(pgrep -x syscall_heavy -P $pid)"
	wait_for "exited $child" 30
	kill -INT $pid
	wait_for "exited $pid"
	exec 3<&-
}

# a process name and a symbol with terminal escapes reach the folded
# stacks escaped, never as raw control bytes
test_escapes_in_comm_and_symbol() {
	objcopy --redefine-sym leaf=$'leaf\e[2J' "$WL/fp_chain" "$T/fp_chain.esc" ||
		fail "objcopy failed"
	ln -s "$T/fp_chain.esc" $'\e[2Jevil'
	timeout -s KILL 60 "$SS" profile -F 999 -o out.folded -- "./"$'\e[2Jevil' 1 2>err.txt ||
		fail "profile exited $?: $(cat err.txt)"
	! LC_ALL=C grep -q $'[\x01-\x1f\x7f]' out.folded || fail "raw control bytes: $(head -c 300 out.folded | od -c | head)"
	grep -qF '\x1b[2Jevil;' out.folded || fail "no escaped comm: $(head -3 out.folded)"
	grep -qF 'leaf\x1b[2J' out.folded || fail "no escaped symbol: $(grep leaf out.folded | head -3)"
	# syscalls text: the line prefix's process name and -k's frames
	timeout -s KILL 60 "$SS" syscalls -k -e exit_group -o sc.txt -- "./"$'\e[2Jevil' 0.1 2>err.txt ||
		fail "syscalls exited $?: $(cat err.txt)"
	! LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' sc.txt || fail "raw control bytes: $(head -c 300 sc.txt | od -c | head)"
	grep -qE '^[0-9:.]+ \(\+[0-9.?]+s?\) \\x1b\[2Jevil\[[0-9/]+\] cpu[0-9]+ exit_group' sc.txt || fail "no escaped comm in syscalls: $(head -3 sc.txt)"
	# a path decoded from an argument: inside its quotes, as strace writes
	# it (octal), never raw
	: >$'f\e[2Jx'
	timeout -s KILL 60 "$SS" syscalls -e openat -o sp.txt -- cat "./"$'f\e[2Jx' 2>err.txt ||
		fail "syscalls exited $?: $(cat err.txt)"
	! LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' sp.txt || fail "raw control bytes: $(od -c sp.txt | head)"
	grep -qE '^[0-9:.]+ \(\+[0-9.]+s\) cat\[[0-9/]+\] cpu[0-9]+ openat\(AT_FDCWD, "\./f\\33\[2Jx", O_RDONLY\) = 3$' sp.txt ||
		fail "no quoted path as strace writes it: $(grep 'f\\33' sp.txt || tail -2 sp.txt)"
}

# a file the kernel refuses to execute (ENOEXEC) is not handed to /bin/sh
test_enoexec_not_run_by_shell() {
	printf 'touch %s/ran\n' "$T" >garbage	# no #!: sh would run it
	chmod +x garbage
	timeout -s KILL 60 "$SS" profile -o out.folded -- ./garbage 2>err.txt
	rc=$?
	[ $rc = 1 ] || fail "exit $rc: $(cat err.txt)"
	[ ! -e ran ] || fail "a shell ran ./garbage"
	grep -qxF "stackscope: ./garbage: not an executable the kernel accepts (Exec format error); run it through its interpreter: sh ./garbage" err.txt ||
		fail "message: $(cat err.txt)"
}

# a function symbol inside an instruction is not probed: the int3 would
# corrupt the instruction (midinsn exits 1 or crashes then)
test_probe_inside_instruction_refused() {
	timeout -s KILL 60 "$SS" graph --func '*' -o out.txt -- "$WL/graph/midinsn" 2>err.txt
	rc=$?
	[ $rc = 0 ] || fail "exit $rc (the program misbehaved under its probes): $(cat err.txt)"
	grep -q 'midinsn: load_mid at 0x[0-9a-f]*: not probed: no FDE or DWARF function starts there' err.txt ||
		fail "message: $(cat err.txt)"
	grep -q '^ *[0-9]* *[0-9]*) .*|    load(' out.txt || fail "load not traced: $(cat out.txt)"
}

# messages on stderr name files others chose: escaped too
test_escapes_in_messages() {
	timeout -s KILL 30 "$SS" profile -- "./"$'\e[2Jnope' 2>err.txt
	! LC_ALL=C grep -q $'[\x01-\x1f\x7f]' err.txt || fail "raw control bytes: $(od -c err.txt | head -3)"
	grep -qF "cannot run './\\x1b[2Jnope'" err.txt || fail "message: $(cat err.txt)"
}

# stdout a pipe whose reader stopped reading: SIGINT still ends the run
test_stdout_stalled_pipe_sigint() {
	mkfifo stall.fifo
	exec 3<>stall.fifo	# a reader that never reads
	"$SS" syscalls -- "$WL/syscall_heavy" 1 >&3 2>err.txt &
	pid=$!
	wait_for "tracing_live $pid"
	wait_for "child=\$(pgrep -x syscall_heavy -P $pid)"
	wait_for "exited $child" 30
	kill -INT $pid
	wait_for "exited $pid"
	exec 3<&-
}

# An output being written has no name until the run commits it: a killed
# run leaves no temporary behind, and the destination is untouched.
test_killed_run_leaves_no_temporary() {
	echo old >out.txt
	"$SS" syscalls -o out.txt -- sleep 30 2>err.txt &
	ss=$!
	wait_for "tracing_live $ss"
	kill -9 $ss
	wait $ss 2>/dev/null
	pkill -f "^sleep 30$" 2>/dev/null
	left=$(ls -A | grep -v '^out.txt$\|^err.txt$\|^\.why$\|^\.log$' || true)
	[ -z "$left" ] || fail "left behind: $left"
	[ "$(cat out.txt)" = old ] || fail "out.txt changed: $(head -2 out.txt)"
	# and a run that ends writes it whole
	timeout 60 "$SS" syscalls -e exit_group -o out.txt -- true 2>err.txt || fail "exit $?"
	grep -q '^.*exit_group(0)' out.txt || fail "out.txt: $(cat out.txt)"
	left=$(ls -A | grep -v '^out.txt$\|^err.txt$\|^\.why$\|^\.log$' || true)
	[ -z "$left" ] || fail "left behind after a clean run: $left"
}

# JIT code (anonymous memory) is named by the process's perf map, and the
# frames below it are found by a frame-pointer step, with the binary's
# tables or without (--unwind tables)
test_jit_frames_named_by_perf_map() {
	pids=
	trap 'rm -f $pids; kill $(jobs -p) 2>/dev/null' EXIT
	for mode in auto tables; do
		timeout 60 "$SS" profile -F 499 --per-pid --unwind $mode -o $mode.folded -- "$WL/jit/jit" 300 \
			2>err.txt || fail "profile exited $?: $(cat err.txt)"
		pids="$pids $(sed -n 's/^jit;\[pid \([0-9]*\)\];.*/\/tmp\/perf-\1.map/p' $mode.folded | sort -u)"
		good=$(samples $mode.folded '^jit;\[pid [0-9]+\];([^;]*;)*main;run_jit;jit_trampoline;jit_callback;jit_spin(;| )')
		[ "$good" -ge 20 ] || fail "--unwind $mode: $good samples under run_jit;jit_trampoline;jit_callback;jit_spin: $(sort -t' ' -k2 -nr $mode.folded | head -3)"
	done
}

# perf maps others could have planted are refused with one line each, and
# their names never shown: a symlink, one owned by another user, one too
# large; malformed lines are skipped and counted, the good ones used; a
# map owned by the process's own (non-root) user is read
test_jit_hostile_perf_maps() {
	names="symlink owner huge garbage own" maps=
	trap 'rm -f $maps /tmp/perf-target.$$; kill $(jobs -p) 2>/dev/null' EXIT
	for n in $names; do
		if [ $n = own ]; then
			setpriv --reuid=nobody --regid=nogroup --clear-groups "$WL/jit/jit" 300 gate >$n.out &
			wait_for "[ -e /tmp/perf-$!.map ]"
		else
			"$WL/jit/jit" 300 nomap gate >$n.out &
			wait_for "[ -s $n.out ]"
		fi
		eval "pid_$n=$!"
		maps="$maps /tmp/perf-$!.map"
	done
	read -r addr size <symlink.out
	echo "$addr $size SYMLINK_FOLLOWED" >/tmp/perf-target.$$
	ln -s /tmp/perf-target.$$ /tmp/perf-$pid_symlink.map
	read -r addr size <owner.out
	echo "$addr $size WRONG_OWNER" >/tmp/perf-$pid_owner.map
	chown nobody /tmp/perf-$pid_owner.map
	read -r addr size <huge.out
	echo "$addr $size HUGE_READ" >/tmp/perf-$pid_huge.map
	truncate -s 65M /tmp/perf-$pid_huge.map
	read -r addr size <garbage.out
	{
		printf 'zzzz 10 nothex\n1 2\n\x01\x02\x03\xff\n'	# 3 malformed
		printf 'ffffffffffffffffffff 1 overflow\n'	# and a 4th
		echo "$addr $size jit_trampoline"
	} >/tmp/perf-$pid_garbage.map
	"$SS" profile -F 499 --per-pid -p $(echo $pid_symlink,$pid_owner,$pid_huge,$pid_garbage,$pid_own) \
		-o out.folded 2>err.txt &
	local ss=$!
	wait_for "tracing_live $ss"
	for n in $names; do
		eval "p=\$pid_$n"
		wait_for "in_syscall $p 34"	# gated in pause()
		kill -USR1 $p
	done
	for n in $names; do
		eval "p=\$pid_$n"
		wait_for "grep -qx done $n.out" 60
	done
	kill -INT $ss
	wait $ss || fail "profile exited $?: $(cat err.txt)"
	! grep -qE 'SYMLINK_FOLLOWED|WRONG_OWNER|HUGE_READ' out.folded ||
		fail "a refused map was read: $(grep -E 'SYMLINK_FOLLOWED|WRONG_OWNER|HUGE_READ' out.folded | head -2)"
	grep -qxF "stackscope: /tmp/perf-$pid_symlink.map: a symlink: refused" err.txt || fail "symlink: $(cat err.txt)"
	grep -qxF "stackscope: /tmp/perf-$pid_owner.map: owned by uid 65534, not the process's (uid 0) or root: refused" err.txt ||
		fail "owner: $(cat err.txt)"
	grep -qxF "stackscope: /tmp/perf-$pid_huge.map: 68157440 bytes, more than the 64 MiB a perf map may have: refused" err.txt ||
		fail "huge: $(cat err.txt)"
	grep -qxF "stackscope: /tmp/perf-$pid_garbage.map: 4 malformed lines skipped, 0 past the 1000000 entries read" err.txt ||
		fail "garbage: $(cat err.txt)"
	for n in $names; do
		eval "p=\$pid_$n"
		case $n in garbage | own) jit=jit_trampoline ;; *) jit='\[unknown\]' ;; esac
		good=$(samples out.folded "^jit;\\[pid $p\\];([^;]*;)*main;run_jit;$jit;jit_callback;jit_spin(;| )")
		[ "$good" -ge 20 ] || fail "$n: $good samples under run_jit;$jit;jit_callback: $(grep "pid $p\]" out.folded | sort -t' ' -k2 -nr | head -3)"
	done
}
