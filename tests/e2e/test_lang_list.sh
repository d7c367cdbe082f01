# stackscope -l / -lv: the probes the language can use on this kernel and
# these binaries, in bpftrace -l's spelling.

# a tracepoint with its arguments, as bpftrace -lv prints them (common_*
# fields left out)
test_list_tracepoint_verbose() {
	"$SS" -lv tracepoint:syscalls:sys_enter_openat >out.txt 2>err.txt || fail "exit $?: $(cat err.txt)"
	printf '%s\n' "tracepoint:syscalls:sys_enter_openat" "    int __syscall_nr" "    int dfd" \
		"    const char * filename" "    int flags" "    umode_t mode" >want.txt
	diff -u want.txt out.txt >diff.txt || fail "$(cat diff.txt)"
	[ ! -s err.txt ] || fail "stderr: $(cat err.txt)"
}

# strings: char[N] and __data_loc char[] as the format says
test_list_tracepoint_strings() {
	"$SS" -lv tracepoint:sched:sched_switch >out.txt || fail "exit $?"
	grep -qx '    char prev_comm\[16\]' out.txt || fail "no prev_comm: $(cat out.txt)"
	grep -qx '    pid_t next_pid' out.txt || fail "no next_pid: $(cat out.txt)"
	"$SS" -lv tracepoint:sched:sched_process_exec >out.txt || fail "exit $?"
	grep -qx '    __data_loc char\[\] filename' out.txt || fail "no filename: $(cat out.txt)"
	! grep -q common_ out.txt || fail "common_ fields listed: $(cat out.txt)"
}

# a glob, and a short provider name; every line matches it
test_list_tracepoint_glob() {
	"$SS" -l 't:sched:sched_sw*' >out.txt || fail "exit $?"
	grep -qx 'tracepoint:sched:sched_switch' out.txt || fail "no sched_switch: $(cat out.txt)"
	! grep -v '^tracepoint:sched:sched_sw' out.txt || fail "lines outside the glob"
	# as many as the kernel has events in the category
	n=$("$SS" -l 'tracepoint:syscalls:sys_enter_*' | wc -l)
	[ "$n" -gt 100 ] || fail "only $n syscall entry tracepoints"
}

# tracefs mounted privately for the listing is gone afterwards.  Counted in
# a private mount namespace: other stackscope runs on the machine mount and
# unmount their own meanwhile, and those do not propagate into it.
test_list_leaves_no_mount() {
	unshare -m --propagation private sh -c '
		before=$(grep -c stackscope-tracefs /proc/self/mounts)
		umount /sys/kernel/tracing 2>/dev/null	# so that -l must mount its own
		"$1" -l "tracepoint:sched:*" >out.txt || exit 3
		after=$(grep -c stackscope-tracefs /proc/self/mounts)
		[ "$before" = "$after" ] || { grep stackscope-tracefs /proc/self/mounts; exit 4; }
	' sh "$SS" >err.txt 2>&1
	rc=$?
	[ $rc = 0 ] || fail "exit $rc: $(cat err.txt)"
	grep -qx tracepoint:sched:sched_switch out.txt || fail "nothing listed: $(cat out.txt)"
}

# rawtracepoint arguments named and typed from the kernel's BTF
test_list_rawtracepoint_verbose() {
	"$SS" -lv rawtracepoint:sched_switch >out.txt || fail "exit $?"
	printf '%s\n' "rawtracepoint:sched_switch" "    bool preempt" \
		"    struct task_struct * prev" "    struct task_struct * next" \
		"    unsigned int prev_state" >want.txt
	diff -u want.txt out.txt >diff.txt || fail "$(cat diff.txt)"
	"$SS" -lv 'rt:sys_enter' >out.txt || fail "exit $?"
	grep -qx '    long int id' out.txt || fail "sys_enter: $(cat out.txt)"
}

# a pattern without a provider matches every provider's names
test_list_any_provider() {
	"$SS" -l 'sched_switch' >out.txt || fail "exit $?"
	printf '%s\n' tracepoint:sched:sched_switch rawtracepoint:sched_switch >want.txt
	"$SS" -l 'rt:sched_s*' >names.txt || fail "exit $?"
	sort -c names.txt || fail "rawtracepoints not in name order: $(cat names.txt)"
	diff -u want.txt out.txt >diff.txt || fail "$(cat diff.txt)"
}

test_list_software() {
	"$SS" -l 'software:*' >out.txt || fail "exit $?"
	[ "$(wc -l <out.txt)" = 11 ] || fail "$(cat out.txt)"
	grep -qx 'software:cpu-clock:' out.txt || fail "no cpu-clock: $(cat out.txt)"
	grep -qx 'software:context-switches:' out.txt || fail "no context-switches"
}

# uprobe functions of a library by name, and of a process's mappings
test_list_uprobe_library() {
	"$SS" -l 'uprobe:libc:malloc' >out.txt || fail "exit $?"
	grep -qx 'uprobe:/.*/libc\.so\.6:malloc' out.txt || fail "$(cat out.txt)"
	[ "$(wc -l <out.txt)" = 1 ] || fail "$(cat out.txt)"
	# aliases too, in name order (getpid is __getpid's alias)
	"$SS" -l 'uprobe:libc:*getpid' >out.txt || fail "exit $?"
	grep -q ':__getpid$' out.txt && grep -q ':getpid$' out.txt || fail "aliases: $(cat out.txt)"
	sort -c out.txt || fail "not in name order: $(cat out.txt)"
	sleep 60 &
	pid=$!
	wait_for "grep -q libc /proc/$pid/maps"
	lib=$(awk '$6 ~ /libc\.so/ { print $6; exit }' /proc/$pid/maps)
	"$SS" -l -p $pid 'uretprobe:libc:free' >out.txt || fail "exit $?"
	kill $pid
	[ "$(cat out.txt)" = "uretprobe:$lib:free" ] || fail "$(cat out.txt), want uretprobe:$lib:free"
}

test_list_uprobe_binary() {
	"$SS" -l "uprobe:$WL/fp_chain:*" >out.txt || fail "exit $?"
	grep -qx "uprobe:$WL/fp_chain:leaf" out.txt || fail "no leaf: $(cat out.txt)"
	"$SS" -l "uprobe:/nonexistent/bin:*" >out.txt 2>err.txt && fail "exit 0"
	grep -qx 'stackscope: -l: /nonexistent/bin: no such library or program' err.txt ||
		fail "message: $(cat err.txt)"
}

test_list_errors() {
	"$SS" -l 'bogus:x' >out.txt 2>err.txt
	rc=$?
	[ $rc = 1 ] || fail "exit $rc"
	[ "$(cat err.txt)" = "stackscope: -l bogus:x: unknown probe type 'bogus'" ] || fail "$(cat err.txt)"
	"$SS" -l a b >/dev/null 2>&1
	[ $? = 2 ] || fail "two patterns: not a usage error"
	"$SS" -l --help | grep -q '^usage: stackscope -l' || fail "no usage"
}
