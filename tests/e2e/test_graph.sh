# End-to-end tests of `stackscope graph` on tests/workloads/graph/graph_wl.c
# (its header comment lists the calls it makes).  Trees are compared after
# normalising what varies from run to run: thread ids become T1, T2, ...
# (one block per thread, blocks sorted by their text), CPUs and durations
# become C and D, addresses 0xADDR.
GW=$WL/graph

# normalise FILE: per-thread blocks, stable, without run-specific values
normalise() {
	grep -v '^#' "$1" | awk '
		match($0, /^ *[0-9]+ +[0-9]+\) /) {
			tid = $1
			rest = substr($0, RLENGTH + 1)
			sub(/^ *[0-9]+\.[0-9]+ us /, "D ", rest)
			sub(/^ +\|/, "  |", rest)
			if (!(tid in seen)) { seen[tid] = ++n; order[n] = tid }
			lines[tid] = lines[tid] rest "\n"
			next
		}
		{ print "UNPARSED: " $0 }
		END { for (i = 1; i <= n; i++) printf "%s%c", lines[order[i]], 0 }' |
		sort -z | tr -d '\0' | sed -E 's/0x[0-9a-f]{5,}/0xADDR/g'
}

expected_O0() {
	cat <<'TREE'
  |  main(argc=1, argv=0xADDR) {
  |    run_all(round=1) {
D |      scale(v=7, factor=6) = 42;
D |      widths(a=-3, b=-300, c=-70000, d=200, e=60000, f=4000000000) = 3999989897;
D |      is_even(v=10) = true;
D |      is_even(v=7) = false;
D |      initial(s="graph") = 'g';
D |      shout(msg="say \"hi\"\n", c=GREEN) = 10;
D |      shout(msg="xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"..., c=BLUE) = 102;
D |      mix(c=GREEN, k=1) = BLUE;
D |      mix(c=BLUE, k=5) = 7;
D |      average(a=1.5, b=2.25) = ?(double);
D |      halve(x=5) = ?(float);
  |      manhattan(p=0xADDR) {
D |        absval(v=-3) = 3;
D |        absval(v=4) = 4;
D |      } = 7; /* manhattan */
D |      area(r=?(struct rect), unit=?(int)) = 60;
D |      sum8(a=1, b=2, c=3, d=4, e=5, f=6, g=?(int), h=?(int)) = 36;
D |      neg(x=5) = -5;
D |      big() = 18446744073709551615;
D |      nothing();
  |      factorial(n=5) {
  |        factorial(n=4) {
  |          factorial(n=3) {
  |            factorial(n=2) {
D |              factorial(n=1) = 1;
D |            } = 2; /* factorial */
D |          } = 6; /* factorial */
D |        } = 24; /* factorial */
D |      } = 120; /* factorial */
  |      try_dive(n=3) {
  |        dive(n=3) {
  |          dive(n=2) {
  |            dive(n=1) {
  |              dive(n=0); /* no return: longjmp, exception or lost event */
  |            } /* dive: no return: longjmp, exception or lost event */
  |          } /* dive: no return: longjmp, exception or lost event */
  |        } /* dive: no return: longjmp, exception or lost event */
D |      } = 3; /* try_dive */
D |      scale(v=1, factor=2) = 2;
D |    } /* run_all */
D |  } = 0; /* main */
TREE
	for id in 1 2; do
		cat <<TREE
  |  worker(arg=0x$id) {
  |    thread_body(id=$id) {
D |      scale(v=$id, factor=100) = ${id}00;
  |      factorial(n=3) {
  |        factorial(n=2) {
D |          factorial(n=1) = 1;
D |        } = 2; /* factorial */
D |      } = 6; /* factorial */
  |      quit_thread(code=$id); /* no return: thread exited */
  |    } /* thread_body: no return: thread exited */
  |  } /* worker: no return: thread exited */
TREE
	done
}

# expected_O0 in the block order of normalise: per thread, sorted by text
want_O0() {
	{ expected_O0 | sed -n '1,/} = 0; \/\* main \*\//p'; expected_O0 | sed '1,/} = 0; \/\* main \*\//d'; } |
		awk '/^  \|  (main|worker)\(/ { n++ } { b[n] = b[n] $0 "\n" } END { for (i = 1; i <= n; i++) printf "%s%c", b[i], 0 }' |
		sort -z | tr -d '\0'
}

test_tree_with_arguments_recursion_longjmp_threads() {
	timeout 60 "$SS" graph --func '*' -o out.txt -- "$GW/graph_wl" 2>err.txt ||
		fail "graph exited $?: $(cat err.txt)"
	normalise out.txt >got.txt
	want_O0 >want.txt
	diff -u want.txt got.txt >diff.txt || fail "tree differs: $(head -30 diff.txt)"
	grep -q '^stackscope graph: 46 calls traced, 23 functions probed, 23 with DWARF signatures, 0 lost events' err.txt ||
		fail "summary: $(cat err.txt)"
	grep -q ', 0 functions on 5-byte nops (fast path)' err.txt || fail "fast path count: $(cat err.txt)"
}

# The same program built -pg -mfentry -mnop-mcount: every function but
# nothing() begins with a 5-byte nop, after endbr64 in the -fcf-protection
# build.  Probed there, the tree is the plain build's to the byte
# (arguments read at the nop, the late probe's doubles, returns), and
# nothing() keeps the probe on its first instruction.
test_nop_entry_builds_give_the_same_tree() {
	want_O0 >want.txt
	for b in graph_wl.nop5 graph_wl.cet; do
		timeout 60 "$SS" graph --func '*' -o "$b.txt" -- "$GW/$b" 2>"$b.err" ||
			fail "$b: graph exited $?: $(cat "$b.err")"
		normalise "$b.txt" >"$b.got"
		diff -u want.txt "$b.got" >diff.txt || fail "$b: tree differs: $(head -30 diff.txt)"
		grep -q '^stackscope graph: 46 calls traced, 23 functions probed, 23 with DWARF signatures, 0 lost events, .*, 22 functions on 5-byte nops (fast path)' "$b.err" ||
			fail "$b: summary: $(cat "$b.err")"
	done
}

# bytes FILE_OR_MEM ADDR N: N bytes at ADDR, in hex, space-separated
bytes_at() { dd if="$1" bs=1 skip="$2" count="$3" iflag=skip_bytes 2>/dev/null | od -An -tx1 | xargs; }

# On the 5-byte nop the kernel replaces the breakpoint by a call into its
# trampoline (optimized uprobes); after the run the nop is back.
test_nop_probe_becomes_a_call_and_is_restored() {
	local bin=$GW/graph_bench.nop5 addr pid
	addr=$(nm "$bin" | awk '$3 == "small" { print $1 }')
	[ -n "$addr" ] || fail "no symbol small in $bin"
	[ "$(bytes_at "$bin" $((0x$addr - 0x400000)) 5)" = "0f 1f 44 00 00" ] || fail "not a nop5 build"
	"$bin" 2000000000 &
	pid=$!
	wait_for "runs_exe $pid '$bin'"
	"$SS" graph -p $pid --func small -o out.txt 2>err.txt &
	ss=$!
	# the breakpoint goes in (cc), then the first call has the kernel
	# patch it into a call (e8) to its trampoline
	first_byte() { bytes_at /proc/$pid/mem $((0x$addr)) 1; }
	wait_for '[ "$(first_byte)" = e8 ] || ! kill -0 $ss 2>/dev/null' 30
	first=$(first_byte)
	kill -INT $ss
	wait $ss
	rc=$?
	after=$(bytes_at /proc/$pid/mem $((0x$addr)) 5)
	kill $pid
	wait $pid 2>/dev/null
	[ $rc = 0 ] || fail "graph exit $rc: $(cat err.txt)"
	grep -q ', 1 functions on 5-byte nops (fast path)' err.txt || fail "summary: $(cat err.txt)"
	[ "$first" = e8 ] || fail "small() begins with $first while traced, not a call (e8)"
	[ "$after" = "0f 1f 44 00 00" ] || fail "small() begins with $after after the run"
	grep -qE '\|  small\(x=[0-9]+\) = [0-9]+;$' out.txt || fail "no calls: $(head -3 out.txt)"
}

test_O2_unreadable_values_are_marked_not_guessed() {
	timeout 60 "$SS" graph --func '*' -o out.txt -- "$GW/graph_wl.O2" 2>err.txt ||
		fail "graph exited $?: $(cat err.txt)"
	normalise out.txt >got.txt
	for want in \
		'|      average(a=?(double), b=?(double)) = ?(double);' \
		'|      halve(x=?(float)) = ?(float);' \
		'|      widths(a=-3, b=-300, c=-70000, d=200, e=60000, f=4000000000) = 3999989897;' \
		'|      neg(x=5) = -5;' \
		'|      mix(c=BLUE, k=5) = 7;' \
		'|      shout(msg="say \"hi\"\n", c=GREEN) = 10;' \
		'|      area(r=?(struct rect), unit=?(int)) = 60;' \
		'|      } = 7; /* manhattan */' \
		'|      } = 3; /* try_dive */' \
		'|      scale(v=1, factor=2) = 2;'; do
		grep -qF -- "$want" got.txt || fail "missing: $want"
	done
}

test_stripped_binary_shows_raw_registers() {
	timeout 60 "$SS" graph --func '*' -o out.txt -- "$GW/graph_wl.nodebug" 2>err.txt ||
		fail "graph exited $?: $(cat err.txt)"
	grep -q 'graph_wl.nodebug: 23 of 23 functions without a DWARF signature (no debug information): raw registers shown' err.txt ||
		fail "no warning: $(cat err.txt)"
	normalise out.txt >got.txt
	grep -qE '^D \|      scale\(rdi=0x7, rsi=0x6, rdx=0x[0-9a-fA-Z]+, rcx=0x[0-9a-fA-Z]+, r8=0x[0-9a-fA-Z]+, r9=0x[0-9a-fA-Z]+\) = rax=0x2a;$' got.txt ||
		fail "scale line: $(grep scale got.txt | head -2)"
	grep -qF '  |      manhattan(rdi=0xADDR' got.txt || fail "manhattan not open"
	grep -qE '^D \|        absval\(rdi=0xADDR, ' got.txt || fail "absval not nested"
	grep -qF 'dive: no return: longjmp' got.txt || fail "longjmp not marked"
}

test_pattern_matching_nothing_is_an_error() {
	timeout 30 "$SS" graph --func 'no_such_*' -- "$GW/graph_wl" >out.txt 2>err.txt && fail "accepted"
	grep -q "^stackscope: --func no_such_\*: no function matches in .*graph_wl$" err.txt ||
		fail "message: $(cat err.txt)"
	[ ! -s out.txt ] || fail "output written: $(head -2 out.txt)"
	timeout 30 "$SS" graph --func 'nolib.so:x' -- "$GW/graph_wl" 2>err.txt && fail "missing library accepted"
	grep -q 'library nolib.so: not found' err.txt || fail "message: $(cat err.txt)"
}

test_kernel_function_refused_in_one_line() {
	timeout 30 "$SS" graph --func kernel:vfs_read -- "$GW/graph_wl" >out.txt 2>err.txt
	rc=$?
	if grep -q 'fentry works here' err.txt; then
		skip "this kernel allows fentry"
	fi
	[ $rc = 1 ] || fail "exit $rc"
	[ "$(wc -l <err.txt)" = 1 ] || fail "not one line: $(cat err.txt)"
	grep -q '^stackscope: kernel function vfs_read: fentry refused by this kernel (EPERM); kernel functions cannot be traced here$' err.txt ||
		fail "message: $(cat err.txt)"
	# with a user function too, it carries on
	timeout 30 "$SS" graph --func kernel:vfs_read --func scale -o out.txt -- "$GW/graph_wl" 2>err.txt ||
		fail "exit $? with a user function too"
	grep -q 'scale(v=7, factor=6) = 42;' out.txt || fail "no user calls: $(head -3 out.txt)"
}

test_json_trace_events() {
	timeout 60 "$SS" graph --func '*' --format json -o out.json -- "$GW/graph_wl" 2>err.txt ||
		fail "graph exited $?: $(cat err.txt)"
	head -1 out.json | grep -q '^{"traceEvents":\[$' || fail "head: $(head -1 out.json)"
	grep -q '"ph":"X","name":"scale","ts":[0-9]*\.[0-9]*,"pid":[0-9]*,"tid":[0-9]*,"dur":[0-9.]*,"args":{"cpu":[0-9]*,"v":"7","factor":"6","return":"42"}}' out.json ||
		fail "scale event: $(grep scale out.json | head -1)"
	[ "$(grep -c '"ph":"B"' out.json)" = "$(grep -c '"ph":"E"' out.json)" ] || fail "B and E unbalanced"
	grep -q '"no_return":"thread exited"' out.json || fail "no thread exit"
	grep -q '"ph":"M","name":"thread_name","pid":[0-9]*,"tid":[0-9]*,"args":{"name":"graph_wl"}}' out.json ||
		fail "no thread name: $(grep '"ph":"M"' out.json | head -3)"
	# fields by phase, B/E balance, strict nesting per thread, every track named
	python3 "$ROOT/tests/trace_check.py" out.json --min-events 40 --require-names >check.txt ||
		fail "trace_check: $(head -5 check.txt)"
}

test_depth_min_duration_no_args_notrace() {
	timeout 60 "$SS" graph --func '*' --depth 2 -o d.txt -- "$GW/graph_wl" 2>/dev/null || fail "exit $?"
	normalise d.txt >d.norm
	grep -qF 'D |    run_all(round=1);' d.norm || fail "--depth 2: run_all not a leaf: $(head -3 d.norm)"
	! grep -q scale d.norm || fail "--depth 2 shows deeper calls"
	timeout 60 "$SS" graph --func '*' --min-duration 10000000 -o m.txt -- "$GW/graph_wl" 2>/dev/null || fail "exit $?"
	[ "$(grep -vc '^#' m.txt)" = 0 ] || fail "--min-duration 10 s shows: $(grep -v '^#' m.txt | head -3)"
	timeout 60 "$SS" graph --func 'scale' --func 'manhattan' --func 'absval' --no-args -o n.txt -- "$GW/graph_wl" 2>/dev/null || fail "exit $?"
	normalise n.txt >n.norm
	grep -qxF 'D |  scale();' n.norm || fail "--no-args: $(head -3 n.norm)"
	grep -qxF 'D |  } /* manhattan */' n.norm || fail "--no-args close: $(cat n.norm)"
	timeout 60 "$SS" graph --func '*' --notrace 'factorial' --notrace 'd*' -o t.txt -- "$GW/graph_wl" 2>/dev/null || fail "exit $?"
	! grep -qE 'factorial| dive\(' t.txt || fail "--notrace kept them"
	grep -q 'try_dive(n=3) = 3;' t.txt || fail "try_dive gone: $(grep try t.txt)"
}

test_shared_library_function() {
	timeout 60 "$SS" graph --func 'libc.so.6:pthread_create' --func worker -o out.txt -- "$GW/graph_wl" 2>err.txt ||
		fail "exit $?: $(cat err.txt)"
	[ "$(grep -c 'pthread_create(rdi=0x' out.txt)" = 2 ] || fail "pthread_create calls: $(cat out.txt)"
	grep -q 'libc.so.6: 1 of 1 functions without a DWARF signature' err.txt || fail "$(cat err.txt)"
}

test_running_process_and_clean_detach() {
	"$GW/graph_bench" 2000000000 &
	pid=$!
	# its functions are looked up in the executable it runs: after the exec
	wait_for "runs_exe $pid '$GW/graph_bench'"
	timeout 30 "$SS" graph -p $pid --func small -d 1 -o out.txt 2>err.txt
	rc=$?
	kill -0 $pid 2>/dev/null || fail "the traced process died"
	# perf-event uprobes of any process still on the workload's file
	perf_after=$(bpftool perf list 2>/dev/null | grep -cE "uprobe .*(/proc/$pid/exe|graph_bench)" || true)
	multi_after=$(graph_multi_links)
	kill $pid
	wait $pid 2>/dev/null
	[ $rc = 0 ] || fail "exit $rc: $(cat err.txt)"
	grep -qE '^ *[0-9]+ +[0-9]+\) +[0-9.]+ us \|  small\(x=[0-9]+\) = [0-9]+;$' out.txt ||
		fail "no small() calls: $(head -3 out.txt)"
	[ "$perf_after" = 0 ] || fail "uprobes left attached: $perf_after"
	[ "$multi_after" = 0 ] || fail "uprobe multi-links left: $multi_after"
}

# uprobe multi-links (bpftool names them by type number on this release)
# whose program is one of graph's
graph_multi_links() {
	bpftool link list 2>/dev/null | awk '/^[0-9]+: (type 12|uprobe_multi) / { print $4 }' |
		while read -r prog; do bpftool prog show id "$prog" 2>/dev/null; done |
		grep -cE 'name on_(entry|entry_str|exit|late) ' || true
}

# At the 1000-function limit, stopping detaches every probe at once: one
# by one, each uprobe waits for the kernel (over a minute for 1000).
test_sigint_with_a_thousand_probes() {
	sleep 120 &
	pid=$!
	wait_for "runs_exe $pid $(command -v sleep)"
	"$SS" graph -v -p $pid --func 'libc:[a-f]*' -o out.txt 2>err.txt &
	ss=$!
	wait_for "grep -q 'uprobes attached' err.txt || ! kill -0 $ss 2>/dev/null" 120
	grep -q 'uprobes attached' err.txt || fail "graph did not attach: $(grep -v '^libbpf' err.txt | tail -5)"
	n=$(sed -n 's/.* \([0-9]*\) uprobes attached.*/\1/p' err.txt)
	[ "${n:-0}" -ge 500 ] || fail "only ${n:-0} uprobes: $(tail -3 err.txt)"
	kill -INT $ss
	wait_for "! kill -0 $ss 2>/dev/null" 30
	wait $ss
	rc=$?
	kill $pid
	[ $rc = 0 ] || fail "exit $rc: $(tail -3 err.txt)"
	grep -q '^stackscope graph: .* functions probed' err.txt || fail "no closing line: $(tail -3 err.txt)"
	[ "$(graph_multi_links)" = 0 ] || fail "uprobe multi-links left"
}

test_exit_status_and_signals() {
	timeout 30 "$SS" graph --func scale -o out.txt -- "$GW/graph_wl" 7 2>/dev/null
	[ $? = 7 ] || fail "exit status not passed through"
	"$SS" graph --func small -o sig.txt -- "$GW/graph_bench" 2000000000 2>err.txt &
	pid=$!
	# its first call traced and on its way to the output
	wait_for "writing $pid 'small(x=0) = 1;'"
	kill -INT $pid
	wait $pid
	rc=$?
	# the command's status: killed by the SIGINT passed on, or (when it
	# ignores SIGINT, as a background job of a script does) by the SIGTERM
	# that follows it, or its own when it ended first
	case $rc in 0 | 130 | 143) ;; *) fail "exit $rc after SIGINT" ;; esac
	grep -q '^stackscope graph: [1-9][0-9]* calls traced' err.txt || fail "no summary: $(cat err.txt)"
	grep -q 'small(x=0) = 1;' sig.txt || fail "no output after SIGINT: $(head -3 sig.txt)"
	timeout 30 "$SS" graph --func x -p 999999999 2>err.txt && fail "missing pid accepted"
	grep -q 999999999 err.txt || fail "message: $(cat err.txt)"
}

# -v: each program's runs (the kernel's run-time statistics) and graph's
# own CPU per call
test_verbose_costs() {
	timeout 60 "$SS" graph -v --func small -o out.txt -- "$GW/graph_bench.nop5" 1000 2>err.txt ||
		fail "exit $?: $(grep -v '^libbpf' err.txt | tail -3)"
	grep -q 'no BPF run-time statistics' err.txt && skip "$(grep 'no BPF run-time' err.txt)"
	grep -qE '^stackscope: BPF program on_entry: 1000 runs, [0-9]+ ns each$' err.txt ||
		fail "entry: $(grep 'BPF program' err.txt)"
	grep -qE '^stackscope: BPF program on_exit: 1000 runs, [0-9]+ ns each$' err.txt ||
		fail "exit: $(grep 'BPF program' err.txt)"
	! grep -q 'BPF program on_late' err.txt || fail "a late program ran: $(grep on_late err.txt)"
	grep -qE '^stackscope: graph in user space: [0-9.]+ s CPU while tracing, [0-9]+ ns per call$' err.txt ||
		fail "user space: $(grep -v '^libbpf' err.txt | tail -5)"
	grep -q '^stackscope: 2 uprobes attached .*; 1 of 1 functions on a 5-byte nop$' err.txt ||
		fail "attach line: $(grep attached err.txt)"
}
