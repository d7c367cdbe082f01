# Wrong data on a busy machine: a pid handed to a new process during the
# run, a binary that forges another's build id.

# reuse VICTIM DECOY: runs VICTIM for 600 ms of CPU, then DECOY under the
# same pid once VICTIM is reaped; DECOY stays (paused) until the test ends
reuse() {
	"$WL/reuse/$1" 600 &
	local v=$!
	wait $v || fail "$1 exited $?"
	"$WL/reuse/pidreuse" $v "$WL/reuse/$2" 600 pause >"$2.pid" &
	wait_for "[ -s $2.pid ]" 30
	[ "$(cat "$2.pid")" = $v ] || fail "pidreuse: $(cat "$2.pid")"
	wait_for "runs_exe $v $WL/reuse/$2 && in_syscall $v 34"	# 34: pause
}

# A process that exited while a system-wide run lasts keeps its own names
# when its pid goes to another program: the samples are resolved against
# the mappings they ran under (without PIE the newcomer has other
# functions at the same addresses; with PIE, other addresses).
test_pid_reuse_keeps_the_dead_process_names() {
	# system-wide on a busy machine: small snapshots (the workloads' stacks
	# are shallow) so that few are lost to a full ring
	"$SS" profile -F 199 --stack-size 4096 -o out.folded 2>err.txt &
	local ss=$!
	wait_for "tracing_live $ss"
	reuse victim decoy
	reuse victim_pie decoy_pie
	kill -INT $ss
	wait $ss || fail "profile exited $?: $(cat err.txt)"
	# how many user stacks a busy machine loses to a full ring varies
	# (counted in the summary); those kept are the victim's own
	for v in victim victim_pie; do
		all=$(samples out.folded "^$v;")
		good=$(samples out.folded "^$v;([^;]*;)*main;victim_outer;victim_spin(;| )")
		[ "$good" -ge 1 ] || fail "$v: $good of $all samples under main;victim_outer;victim_spin: $(grep "^$v;" out.folded | sort -t' ' -k2 -nr | head -3); $(tail -1 err.txt)"
		! grep -q "^$v;.*decoy" out.folded || fail "$v named by the decoy: $(grep "^$v;.*decoy" out.folded | head -3)"
		! grep -qE "^$v;(\[truncated\];)?(\[unknown\];)*\[unknown\]( |;[^;]*_\[k\])" out.folded ||
			fail "$v: user stacks all [unknown]: $(grep -E "^$v;(\[truncated\];)?\[unknown\]" out.folded | head -3)"
	done
	kill $(cat decoy.pid decoy_pie.pid)
}

# A copy of a library with other names under the genuine one's build id
# (any user can write one) names only the frames of the process that maps
# it: a victim mapping the genuine file keeps its true names.  The forger
# runs first, so its copy is the first read.
test_forged_build_id_names_only_its_own_frames() {
	local fg=$WL/forge
	cp "$fg/uselib" forger && cp "$fg/uselib" victim || fail "cp"
	timeout 60 "$SS" profile -F 499 -o out.folded -- sh -c \
		"LD_LIBRARY_PATH=$fg/forged ./forger 300 && LD_LIBRARY_PATH=$fg/genuine ./victim 300" \
		2>err.txt || fail "profile exited $?: $(cat err.txt)"
	good=$(samples out.folded '^victim;([^;]*;)*main;lib_entry;true_work(;| )')
	[ "$good" -ge 20 ] || fail "victim: $good samples under main;lib_entry;true_work: $(grep '^victim;' out.folded | sort -t' ' -k2 -nr | head -3)"
	! grep -q '^victim;.*evil' out.folded || fail "the forged names in the victim: $(grep '^victim;.*evil' out.folded | head -3)"
	own=$(samples out.folded '^forger;([^;]*;)*main;lib_entry;evil_work(;| )')
	[ "$own" -ge 20 ] || fail "forger: $own samples under its own evil_work: $(grep '^forger;' out.folded | head -3)"
}

# A long run's memory follows what is live: with copies unwound here, a
# process that exits with no sample taken is forgotten; the exited
# processes kept are the sampled ones only (-v says how many of each).
# (Stacks unwound in the kernel are named at the trims, every 10 s, and
# the exited processes dropped then: tests/e2e/test_bounds.sh.)
test_churn_keeps_only_sampled_processes() {
	timeout 120 "$SS" profile --unwind tables -v -F 99 --per-pid -o out.folded -- \
		sh -c 'i=0; while [ $i -lt 300 ]; do /bin/true; i=$((i + 1)); done' 2>err.txt ||
		fail "profile exited $?: $(tail -3 err.txt)"
	line=$(grep '^stackscope: processes: ' err.txt) || fail "no processes line: $(cat err.txt)"
	exited=$(sed -n 's/.* kept, \([0-9]*\) of them exited.*/\1/p' <<<"$line")
	dropped=$(sed -n 's/.*(sampled), \([0-9]*\) dropped.*/\1/p' <<<"$line")
	sampled=$(sed -n 's/^[^;]*;\[pid \([0-9]*\)\];.*/\1/p' out.folded | sort -u | wc -l)
	[ -n "$exited" ] && [ -n "$dropped" ] || fail "line: $line"
	[ "$exited" -le "$sampled" ] || fail "$exited exited processes kept, $sampled sampled: $line"
	# the 300 children and sh, unless side-band records were lost
	grep -q 'records lost' err.txt ||
		[ "$dropped" -ge $((301 - sampled)) ] || fail "$dropped dropped, $sampled sampled: $line"
}
