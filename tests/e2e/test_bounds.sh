# Bounded long runs: a continuous profile (`profile --every`) under
# process churn keeps what the live processes and the last windows need,
# not what every process ever seen needed.  Counts, not RSS: the -v
# lines each window closes with ("bounds: N processes kept (E exited), D
# dropped; B binaries cached (X MiB), e evicted now, T in all") and the
# closing ones.  The churn goes in phases paced by windows, not by time:
# phase g runs copies of one program from group g only (each copy its
# own inode: a binary of its own for the caches) until two more windows
# have closed, so a group is idle for the SYMCACHE_IDLE_SWEEPS windows
# its binaries wait before eviction whatever the machine's speed.

VICTIM="$WL/reuse/victim"	# spins MS ms of CPU, exits
GROUPS_N=12 PER_GROUP=10

# bounds_field N: the Nth number of each window's "bounds:" line, one a line
bounds_field() { sed -n 's/^stackscope: bounds: //p' err.txt | tr -c '0-9.\n' ' ' | awk -v n="$1" '{ print $n }'; }

# released P WHEN: err.txt's closing counts say at least half of the P
# processes started were dropped WHEN, and under a quarter of them are
# kept exited at the end
released() {
	local p=$1 when=$2 named kept_exited
	named=$(sed -n 's/.* (\([0-9]*\) once their samples were named.*/\1/p' err.txt)
	kept_exited=$(sed -n 's/^stackscope: processes: [0-9]* kept, \([0-9]*\) of them exited.*/\1/p' err.txt)
	check '[ -n "$named" ] && [ "$named" -ge $((p / 2)) ]' \
		"${named:-no} of $p processes dropped $when (want at least half)"
	check '[ -n "$kept_exited" ] && [ "$kept_exited" -lt $((p / 4)) ]' \
		"${kept_exited:-no} exited processes kept at the end of $p"
}

# churn_until_two_trims MS ROUNDS: churn.sh, run as stackscope's command,
# starts copies c0..c9 of the victim (each spinning MS ms) five at a time
# until err.txt holds two "bounds:" lines (two trims) or ROUNDS rounds
# passed; it writes how many it started to `started`
churn_until_two_trims() {
	cat >churn.sh <<-EOF
	n=0 r=0
	while [ \$(grep -c '^stackscope: bounds:' err.txt) -lt 2 ] && [ \$r -lt $2 ]; do
		for ((k = 0; k < 5; k++)); do ./c\$(((r * 5 + k) % $PER_GROUP)) $1 & done
		wait
		n=\$((n + 5)) r=\$((r + 1))
	done
	echo \$n >started
	EOF
}

test_bounds_churn_windows() {
	local g i p
	for ((g = 0; g < GROUPS_N; g++)); do
		for ((i = 0; i < PER_GROUP; i++)); do cp "$VICTIM" "g$g-$i"; done
	done
	# the churn: stackscope is its parent; it notes processes started and
	# stackscope's descriptors halfway and at the end
	cat >churn.sh <<-EOF
	windows() { grep -c '^stackscope: bounds:' err.txt; }
	n=0
	for ((g = 0; g < $GROUPS_N; g++)); do
		w=\$((\$(windows) + 2)) r=0
		while [ \$(windows) -lt \$w ] && [ \$r -lt 400 ]; do
			for ((k = 0; k < 5; k++)); do ./g\$g-\$(((r * 5 + k) % $PER_GROUP)) 10 & done
			wait
			n=\$((n + 5)) r=\$((r + 1))
		done
		[ \$g -eq $((GROUPS_N / 2)) ] && ls /proc/\$PPID/fd | wc -l >fds_mid
	done
	ls /proc/\$PPID/fd | wc -l >fds_end
	echo \$n >started
	EOF
	"$SS" profile --every 1s -F 499 -v -o "$T/w-%s.pb.gz" -- bash churn.sh 2>err.txt ||
		fail "profile failed: $(tail -3 err.txt)"
	p=$(cat started)
	grep -E "^stackscope: (bounds|processes|caches)" err.txt | tail -4
	echo "started $p, fds $(cat fds_mid) -> $(cat fds_end)"
	local nwin evicted cached_max half fm fe
	nwin=$(grep -c '^stackscope: bounds:' err.txt)
	check '[ "$nwin" -ge $((2 * GROUPS_N)) ]' "$nwin windows for $GROUPS_N phases of two"
	# every churn process exited: its state went once its window was built
	released "$p" "after their window"
	# binaries: those of the last phases and the shell's, never all groups'
	half=$((nwin / 2))
	cached_max=$(bounds_field 4 | tail -n +$half | sort -n | tail -1)
	check '[ "$cached_max" -le $((5 * PER_GROUP + 15)) ]' \
		"$cached_max binaries cached in the second half ($((GROUPS_N * PER_GROUP)) copies used)"
	evicted=$(sed -n 's/^stackscope: caches: .*, \([0-9]*\) evicted (.*/\1/p' err.txt)
	check '[ -n "$evicted" ] && [ "$evicted" -ge "$PER_GROUP" ]' "$evicted binaries evicted"
	# descriptors: flat from the middle to the end
	fm=$(cat fds_mid) fe=$(cat fds_end)
	check '[ "$fe" -le $((fm + 2)) ]' "descriptors grew from $fm to $fe"
}

# One report at the end: the stacks of processes that exited are named
# at a trim (every 10 s) and their processes dropped; every sample is in
# the report once, with the names it had.  Both ways of unwinding: copies
# unwound here (tables), and the in-kernel unwinder (kernel), whose
# counts of exited processes are taken out of the kernel's map at the
# trim; both name the copies' spin with the same chain.
test_bounds_churn_one_report() {
	local i p total samples early named kept mode kstacks freed byname stacks
	for ((i = 0; i < PER_GROUP; i++)); do cp "$VICTIM" "c$i"; done
	# 60 ms of spin: long enough for the in-kernel unwinder to load some
	churn_until_two_trims 60 600
	for mode in tables kernel; do
		"$SS" profile --unwind $mode -F 499 -v -o out-$mode.folded -- bash churn.sh 2>err.txt ||
			fail "$mode: profile failed: $(tail -3 err.txt)"
		p=$(cat started)
		grep -E "^stackscope: (bounds|processes|caches|samples of exited)" err.txt | tail -5
		early=$(sed -n 's/.*, \([0-9]*\) stacks named early).*/\1/p' err.txt)
		check '[ -n "$early" ] && [ "$early" -gt 0 ]' "$mode: no stack named early ($p processes)"
		# their processes went then (those of the last 10 s stay for the report)
		if [ $mode = tables ]; then
			released "$p" "once their samples were named ($mode)"
		else
			# every exited process stays until a trim names its counts
			# (none is known unsampled before): those since the last one
			named=$(sed -n 's/.* (\([0-9]*\) once their samples were named.*/\1/p' err.txt)
			kept=$(sed -n 's/^stackscope: processes: [0-9]* kept, \([0-9]*\) of them exited.*/\1/p' err.txt)
			check '[ -n "$named" ] && [ "$named" -ge $((p / 2)) ]' \
				"kernel: ${named:-no} of $p processes dropped once their samples were named"
			check '[ -n "$kept" ] && [ $((4 * kept)) -lt "$named" ]' \
				"kernel: ${kept:-no} exited processes kept at the end, $named dropped"
		fi
		# every sample once: the report adds up to the closing line's count
		samples=$(sed -n 's/^stackscope profile: \([0-9]*\) samples,.*/\1/p' err.txt)
		total=$(total out-$mode.folded)
		check '[ "$total" = "$samples" ]' "$mode: the report holds $total samples of $samples"
		# named as they ran: the copies' spin under main, whatever their pid
		check '[ "$(samples out-$mode.folded "^c[0-9];.*main;victim_outer;victim_spin")" -gt 0 ]' \
			"$mode: no c*;...;main;victim_outer;victim_spin stack"
		# a stack freed from the store while a count still named it would
		# be a [lost user stack] that no counter counted
		check '[ "$(samples out-$mode.folded "\\[lost user stack\\]")" -le "$(lost_stacks err.txt)" ]' \
			"$mode: $(samples out-$mode.folded "\\[lost user stack\\]") samples under [lost user stack], $(lost_stacks err.txt) lost stacks counted"
		# the model holds each stack once by name, whatever process (pid,
		# load addresses) ran it: it grows with the distinct stacks, not
		# with the $p processes; one a folded line
		kept=$(sed -n 's/^stackscope: stacks model: \([0-9]*\) stacks kept by name, .*/\1/p' err.txt)
		byname=$(sed -n 's/^stackscope: stacks model: .*, \([0-9]*\) distinct by name, .*/\1/p' err.txt)
		stacks=$(sed -n 's/^stackscope profile: [0-9]* samples, \([0-9]*\) stacks,.*/\1/p' err.txt)
		check '[ -n "$kept" ] && [ "$kept" = "$byname" ] && [ "$kept" = "$stacks" ] &&
		       [ "$kept" -eq "$(wc -l <out-$mode.folded)" ]' \
			"$mode: stacks model: ${kept:-no} kept by name, ${byname:-no} distinct, ${stacks:-no} in the closing line, $(wc -l <out-$mode.folded) folded lines"
		# every trim's model was by name too: never more stacks than the end's
		check '[ "$(sed -n "s/.*; stacks model \([0-9]*\) stacks .*/\1/p" err.txt | sort -n | tail -1)" -le "${kept:-0}" ]' \
			"$mode: a trim's stacks model held more stacks than the report"
		# ... one chain from _start, never cut, the same in both modes
		grep '^c[0-9];.*;victim_spin[; ]' out-$mode.folded |
			sed 's/^c[0-9]*;//; s/;victim_spin[; ].*/;victim_spin/' | sort -u >chains-$mode
	done
	kstacks=$(sed -n 's/^stackscope: samples of exited processes named at trims: [0-9]* counted in the kernel (\([0-9]*\) with a user stack.*/\1/p' err.txt)
	check '[ -n "$kstacks" ] && [ "$kstacks" -gt 0 ]' \
		"kernel: no sample of an exited process unwound in the kernel named at a trim"
	freed=$(sed -n 's/^stackscope: stack store: .*, \([0-9]*\) user stacks of exited processes freed.*/\1/p' err.txt)
	check '[ -n "$freed" ] && [ "$freed" -gt 0 ]' "kernel: no user stack of an exited process freed from the store"
	check '[ "$(wc -l <chains-tables)" = 1 ] && cmp -s chains-tables chains-kernel' \
		"the spin's chains differ: tables $(cat chains-tables) / kernel $(cat chains-kernel)"
}

# A pprof report keeps stacks apart by location (addresses, the pid
# label): two processes of one program, one after the other, spinning the
# same stacks, are more stacks kept than distinct by name.
test_bounds_one_report_pprof_by_location() {
	local kept byname
	cp "$VICTIM" c0
	"$SS" profile -F 499 -v -o out.pb.gz -- bash -c './c0 200; ./c0 200' 2>err.txt ||
		fail "profile failed: $(tail -3 err.txt)"
	grep '^stackscope: stacks model:' err.txt
	kept=$(sed -n 's/^stackscope: stacks model: \([0-9]*\) stacks kept by location, .*/\1/p' err.txt)
	byname=$(sed -n 's/^stackscope: stacks model: .*, \([0-9]*\) distinct by name, .*/\1/p' err.txt)
	check '[ -n "$kept" ] && [ -n "$byname" ] && [ "$kept" -gt "$byname" ]' \
		"pprof's stacks model: ${kept:-no} kept by location, ${byname:-no} by name"
}

# offcpu, one report at the end: the waits of processes that exited
# (counted in the kernel, left pending, or unwound here) are named at a
# trim (every 10 s) and their processes dropped, as profile's are.
test_bounds_offcpu_churn() {
	local i p early
	for ((i = 0; i < PER_GROUP; i++)); do cp "$VICTIM" "c$i"; done
	churn_until_two_trims 10 600
	"$SS" offcpu -v -o out.folded -- bash churn.sh 2>err.txt ||
		fail "offcpu failed: $(tail -3 err.txt)"
	p=$(cat started)
	grep -E "^stackscope: (bounds|processes|caches)" err.txt | tail -4
	check '[ "$(grep -c "^stackscope: bounds:" err.txt)" -ge 2 ]' \
		"no trim released exited processes ($p processes started)"
	early=$(sed -n 's/.*, \([0-9]*\) stacks named early).*/\1/p' err.txt)
	check '[ -n "$early" ] && [ "$early" -gt 0 ]' "no wait named early ($p processes)"
	released "$p" "once their waits were named"
	# named as they waited: the copies' naps under main, whatever their pid
	check '[ "$(samples out.folded "^c[0-9];.*main;victim_outer;victim_spin")" -gt 0 ]' \
		"no c*;...;main;victim_outer;victim_spin stack: $(head -3 out.folded)"
}

# syscalls -k names each stack as it arrives: an exited process goes once
# its last records are read (-v's closing "processes:" line says so).
test_bounds_syscalls_stacks_churn() {
	local i p dropped kept_exited calls
	for ((i = 0; i < PER_GROUP; i++)); do cp "$VICTIM" "c$i"; done
	churn_until_two_trims 1 600
	# -v -v: a "bounds:" line at every trim, paced by the churn
	"$SS" syscalls -f -k -v -v -e exit_group -o sc.txt -- bash churn.sh 2>err.txt ||
		fail "syscalls failed: $(tail -3 err.txt)"
	p=$(cat started)
	grep -E "^stackscope: (processes|caches)" err.txt
	dropped=$(sed -n 's/^stackscope: processes: [0-9]* kept, [0-9]* of them exited (sampled), \([0-9]*\) dropped.*/\1/p' err.txt)
	kept_exited=$(sed -n 's/^stackscope: processes: [0-9]* kept, \([0-9]*\) of them exited.*/\1/p' err.txt)
	check '[ -n "$dropped" ] && [ "$dropped" -ge $((p / 2)) ]' \
		"${dropped:-no} processes of $p dropped after exiting (want at least half)"
	check '[ -n "$kept_exited" ] && [ "$kept_exited" -lt $((p / 4)) ]' \
		"${kept_exited:-no} exited processes kept at the end of $p"
	# every copy's exit_group, its stack named
	calls=$(grep -c '^[0-9:.]* (+[^)]*) c[0-9]\[[0-9/]*\] cpu[0-9]* exit_group(0)' sc.txt)
	check '[ "$calls" -eq "$p" ]' "$calls exit_group lines of c* for $p processes"
	check '[ "$(grep -c "^ > __libc_start_call_main$" sc.txt)" -ge "$calls" ]' \
		"$(grep -c "^ > __libc_start_call_main$" sc.txt) exit_group stacks named (through __libc_start_call_main) of $calls"
}

# The kernel side's per-process maps (bpf/procs.bpf.h: `gens`, `targets`)
# hold the live processes, not every one a run saw: a process's entries
# go when it is gone.  -v's "kernel maps:" line counts them at the end
# (walking the maps' keys); the last copies and the churn's shell may not
# be freed yet then, a few entries of the 100 processes started.
test_bounds_kernel_maps_churn() {
	local i cmd gens targets
	for ((i = 0; i < 5; i++)); do cp "$VICTIM" "c$i"; done
	cat >churn.sh <<-EOF
	for ((r = 0; r < 20; r++)); do
		for ((k = 0; k < 5; k++)); do ./c\$k 1 & done
		wait
	done
	EOF
	for cmd in "profile -F 99 -o out.folded" "offcpu -o out.folded" \
		   "syscalls -f -e exit_group -o out.txt"; do
		"$SS" $cmd -v -- bash churn.sh 2>err.txt || fail "$cmd failed: $(tail -3 err.txt)"
		grep '^stackscope: kernel maps:' err.txt
		gens=$(sed -n 's/^stackscope: kernel maps: \([0-9]*\) address spaces in gens.*/\1/p' err.txt)
		targets=$(sed -n 's/^stackscope: kernel maps: .*, \([0-9]*\) processes in targets.*/\1/p' err.txt)
		check '[ -n "$gens" ] && [ "$gens" -le 10 ]' "$cmd: ${gens:-no count of} gens entries after 100 processes"
		check '[ -n "$targets" ] && [ "$targets" -le 10 ]' "$cmd: ${targets:-no count of} targets entries after 100 processes"
	done
}
