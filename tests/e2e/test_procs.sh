# End-to-end tests of the process tracking every tracing command shares
# (bpf/procs.bpf.h): a child that the full `targets` map cannot take is
# not followed, an address space (a fork, an exec) that the full `gens`
# map cannot time keeps an older one; both are said with their cause and
# counted in the closing line, never lost silently.  The maps are made
# small through STACKSCOPE_PROCS_MAPS (trace/session.c) so that a few
# processes fill them.

KIDS=12
SLEEP=$(command -v sleep)

# kids.sh N, run as stackscope's command: forks N children that all live
# at once (sleep), writes their pids to `kids`, waits for a line on the
# FIFO `go` (release_kids), then ends them and waits for them.  Nothing
# else forks: while, [, echo, read, kill and wait are the shell's own.
make_kids() {
	mkfifo go
	cat >kids.sh <<-'EOF'
	i=0 p=
	while [ $i -lt $1 ]; do sleep 1000 & p="$p $!"; i=$((i + 1)); done
	echo $p >kids
	read x <go
	kill $p
	wait
	EOF
}

# release_kids: once all the children have executed sleep (their exec
# seen, not only their fork), tells kids.sh to end them
release_kids() {
	local k
	wait_for '[ "$(wc -w <kids 2>/dev/null)" = "$KIDS" ]'
	for k in $(cat kids); do wait_for "runs_exe $k $SLEEP"; done
	echo go >go
}

# closing N LABEL: the N of item "N LABEL" of err.txt's closing line
# (stackscope NAME: N label, N label, ...), empty when absent
closing() {
	sed -n 's/^stackscope [a-z]*: //p' err.txt | tr ',' '\n' |
		sed -n "s/^ *\([0-9][0-9]*\) $1\$/\1/p"
}

# run_kids ENV COMMAND...: stackscope COMMAND -- sh kids.sh $KIDS with
# STACKSCOPE_PROCS_MAPS=ENV, its children released once they all run (and
# the shell condition $BEFORE_RELEASE holds, when set)
run_kids() {
	local env=$1 pid
	shift
	make_kids
	STACKSCOPE_PROCS_MAPS=$env timeout 60 "$SS" "$@" -- sh kids.sh "$KIDS" 2>err.txt &
	pid=$!
	[ -z "${BEFORE_RELEASE:-}" ] || wait_for "$BEFORE_RELEASE"
	release_kids
	wait "$pid" || fail "$1 exited $?: $(tail -3 err.txt)"
	cat err.txt
}

# Room for the shell and 4 children: the 8 others are not followed.  The
# syscalls output says which children were: every followed child has
# records (its execve), every other none.
test_children_not_followed_syscalls() {
	local seen n k
	run_kids targets=5 syscalls -f -o out.txt
	seen=0
	for k in $(cat kids); do grep -q "^[0-9:.]* .*\[$k/" out.txt && seen=$((seen + 1)); done
	n=$(closing "child processes not followed")
	check '[ "$seen" -le 4 ]' "$seen children traced with room for 4"
	check '[ -n "$n" ] && [ "$n" -eq $((KIDS - seen)) ]' \
		"closing line says ${n:-no} children not followed, $((KIDS - seen)) were not"
	check '[ "$n" -eq $((KIDS - 4)) ]' "$n children not followed, want $((KIDS - 4))"
	grep -q "^stackscope: $n child processes not followed: the targets map (5 processes) was full" \
		err.txt || fail "no message naming the targets map: $(cat err.txt)"
	check '! grep -q "not timed" err.txt' "address spaces not timed with gens twice targets"
}

# Room for 4 times: the shell's exec and the first 3 children's forks
# (their execs replace their entries); each of the 9 others has two
# address spaces not timed, its fork's and its exec's.
test_address_spaces_not_timed_syscalls() {
	local n k
	run_kids gens=4 syscalls -f -o out.txt
	n=$(closing "address spaces not timed")
	check '[ -n "$n" ] && [ "$n" -eq $((2 * (KIDS - 3))) ]' \
		"closing line says ${n:-no} address spaces not timed, want $((2 * (KIDS - 3)))"
	grep -q "^stackscope: $n address spaces (forks, execs) not timed: the gens map (4 processes)" \
		err.txt || fail "no message naming the gens map: $(cat err.txt)"
	check '[ -z "$(closing "child processes not followed")" ]' "children not followed"
	# every child followed: each has records
	for k in $(cat kids); do
		grep -q "^[0-9:.]* .*\[$k/" out.txt || fail "child $k has no records"
	done
}

# profile and offcpu say the same losses through the same helper
test_children_not_followed_profile() {
	local n g
	run_kids targets=8,gens=4 profile -o out.folded
	n=$(closing "child processes not followed")
	g=$(closing "address spaces not timed")
	# 7 children followed, the first 3 timed
	check '[ "$n" = $((KIDS - 7)) ]' "${n:-no} children not followed, want $((KIDS - 7))"
	check '[ "$g" = $((2 * (7 - 3))) ]' "${g:-no} address spaces not timed, want $((2 * (7 - 3)))"
}

test_children_not_followed_offcpu() {
	local n
	run_kids targets=5 offcpu -o out.folded
	n=$(closing "child processes not followed")
	check '[ "$n" = $((KIDS - 4)) ]' "${n:-no} children not followed, want $((KIDS - 4))"
}

# A continuous profile: said as it grows (when a window closes, at most
# once a minute, then at the end what grew since), while the run goes on,
# and counted at the end
test_children_not_followed_profile_every() {
	local n said
	BEFORE_RELEASE='grep -q "child processes not followed:" err.txt' \
		run_kids targets=5 profile --every 1s -o "$T/w-%s.pb.gz"
	n=$(closing "child processes not followed")
	check '[ "$n" = $((KIDS - 4)) ]' "${n:-no} children not followed, want $((KIDS - 4))"
	said=$(sed -n 's/^stackscope: \([0-9]*\) child processes not followed: .*/\1/p' err.txt | tail -1)
	check '[ "$said" = "$n" ]' "the last message says ${said:-nothing}, the closing line $n"
	ls w-*.pb.gz >/dev/null 2>&1 || fail "no window written"
}

# Nothing lost, nothing said
test_no_loss_no_item() {
	"$SS" syscalls -f -o out.txt -- sh -c 'sleep 0 & wait' 2>err.txt || fail "syscalls failed: $(cat err.txt)"
	check '! grep -q "not followed\|not timed" err.txt' "a loss said: $(cat err.txt)"
}

# Text the variable cannot hold is said, named, and the run goes on
test_bad_procs_maps_said() {
	STACKSCOPE_PROCS_MAPS=targets=0 "$SS" syscalls -c -- true 2>err.txt ||
		fail "syscalls failed: $(cat err.txt)"
	grep -q '^stackscope: STACKSCOPE_PROCS_MAPS: "targets=0": 0 is not a size' err.txt ||
		fail "not said: $(cat err.txt)"
	STACKSCOPE_PROCS_MAPS=pids=3 "$SS" syscalls -c -- true 2>err.txt ||
		fail "syscalls failed: $(cat err.txt)"
	grep -q '^stackscope: STACKSCOPE_PROCS_MAPS: "pids=3": expected targets=N,gens=N' err.txt ||
		fail "not said: $(cat err.txt)"
}
