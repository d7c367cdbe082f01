#!/usr/bin/env bash
# shellcheck disable=SC2317  # functions run by lib.sh's bench_rounds look unreachable
# bench/offcpu.sh BUILD_DIR — stackscope offcpu next to perf record of
# sched:sched_switch with call graphs and a bpftrace sched_switch one-liner,
# on the same context-switch-heavy workload, in one run.
#
#   REPS=5 bench/offcpu.sh build
#
# The workload is tests/workloads/pingpong ROUNDS: two threads, pinned to
# one CPU, pass a byte back and forth over two pipes ROUNDS times (default
# 700000, about 2 s untraced on the 2-vCPU bench VM; ROUNDS=N changes it),
# i.e. about 2 x ROUNDS context switches out of the workload (unpinned, on
# an idle VM, every hand-off woke a halted vCPU: 20x slower, and dependent
# on the load elsewhere), each one seen by every tool:
#   stackscope offcpu -o X.folded -- CMD     (tp_btf sched_switch: kernel +
#       user stack at switch-out, blocked time added up in the kernel; the
#       user stack copied at syscall exit and unwound in user space)
#   stackscope offcpu --unwind kernel ...    (the same, the user stack
#       unwound inside the kernel at switch-out with the loaded tables)
#   perf record -e sched:sched_switch -g -o X.data -- CMD   (one record per
#       switch-out, with its call chain, written to perf.data)
#   bpftrace -e 'tracepoint:sched:sched_switch /pid == cpid/
#       { @[kstack, ustack] = count(); }' -c CMD   (counted in a BPF map)
# With REPS repetitions (default 5), tools interleaved inside each one (the
# order rotates from one repetition to the next) so that the machine's noise
# is spread over all of them, it measures:
#   1. the workload's slowdown: wall time of the whole run as a ratio to the
#      untraced workload.  pingpong does a fixed amount of work, so unlike
#      bench/profile.sh this holds the cost paid at every context switch,
#      plus the tool's start-up and wind-down;
#   2. the CPU time the tool adds: user+sys of the whole tool run minus the
#      untraced run's (see time_run for what this holds);
#   3. the time from the end of capture to a folded file: stackscope's own
#      `report written X s after the end of capture` (-v); for perf,
#      `perf script | stackcollapse-perf.awk` into a file (switch counts per
#      stack, not blocked time: perf.data has no durations without more
#      post-processing), timed together with hyperfine (1 run) or
#      /usr/bin/time;
#   4. the switch-outs each tool recorded (stackscope -v, perf's sample
#      count, the sum of bpftrace's map), and stackscope's lost blocked
#      intervals and lost stacks (its summary line).
# and prints medians and ratios.  The machine is noisy: read the ratios, not
# the absolute times; it exits 0 whatever it measures (non-zero only when it
# cannot run at all).
#
# Needs root (BPF, perf events), /usr/bin/time, and the build: `make` and
# `make workloads` (or `make bench`, which also installs perf, bpftrace and
# hyperfine).  A missing perf, bpftrace or hyperfine is skipped, not fatal.
# perf (and bpftrace's tracepoint) need tracefs for sched:sched_switch: when
# /sys/kernel/tracing is not mounted, this script mounts it
# (`mount -t tracefs nodev /sys/kernel/tracing`) and unmounts it at exit.
set -uo pipefail

usage() { echo "usage: [REPS=N] [ROUNDS=N] $0 BUILD_DIR" >&2; exit 2; }
[ $# -le 1 ] || usage
case "${1:-}" in -h|--help) usage ;; esac
BUILD=${1:-build}
REPS=${REPS:-5}
ROUNDS=${ROUNDS:-700000}	# round trips: about 2 s untraced on the bench VM
PRE_ROUNDS=20000		# the preflight runs
case "$REPS" in '' | *[!0-9]* | 0) echo "REPS must be a positive integer" >&2; exit 2 ;; esac
case "$ROUNDS" in '' | *[!0-9]* | 0) echo "ROUNDS must be a positive integer" >&2; exit 2 ;; esac

here=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "$BUILD" 2>/dev/null && pwd) || { echo "no build directory ${1:-build}" >&2; exit 1; }
SS=$BUILD/stackscope
WL=$BUILD/tests/workloads/pingpong	# absolute: bpftrace -c needs it
BT_PROG='tracepoint:sched:sched_switch /pid == cpid/ { @[kstack, ustack] = count(); }'


# shellcheck source=bench/lib.sh
. "$here/lib.sh"
bench_require "$SS" "$WL"

# ---- which tools are there --------------------------------------------------
bench_tools perf bpftrace hyperfine

{ [ -z "$PERF" ] && [ -z "$BPFTRACE" ]; } || bench_mount_tracefs "perf's and bpftrace's sched:sched_switch"

bench_private_home

preflight stackscope "$SS" offcpu -o "$tmp/pre.folded" -- "$WL" "$PRE_ROUNDS" ||
	{ echo "stackscope itself fails: nothing to compare" >&2; exit 1; }
[ -z "$PERF" ] || preflight perf "$PERF" record -q -e sched:sched_switch -g -o "$tmp/pre.data" -- "$WL" "$PRE_ROUNDS" ||
	PERF=""
[ -z "$BPFTRACE" ] || preflight bpftrace "$BPFTRACE" -e "$BT_PROG" -c "$WL $PRE_ROUNDS" || BPFTRACE=""
rm -f "$tmp"/pre.*

tools="base ss ssk"
[ -n "$PERF" ] && tools="$tools perf"
[ -n "$BPFTRACE" ] && tools="$tools bt"
read -r -a tool_list <<<"$tools"

# ---- the workload, REPS interleaved repetitions ----------------------------
# Each run goes through `/usr/bin/time -f '%e %U %S'`: wall time (10 ms
# resolution, 0.5% of the run), and user+sys of the tool and every child it
# waited for, the workload included.  results.NAME gets "rep wall cpu" lines.
#
# About the CPU metric: all three tools run their code at sched_switch, in
# the context of the thread leaving the CPU, i.e. mostly the workload's
# threads, and that time is charged to the workload's sys time.  As pingpong
# does a fixed amount of work, the difference measured here holds that
# in-kernel cost (stack walks, map updates, perf's ring-buffer writes), as
# well as the tool's own process (perf writing perf.data and its build-id
# pass; stackscope and bpftrace reading their maps, symbolizing and
# writing) and its start-up.  It leaves out work charged to other tasks:
# switches of the idle task, and perf's or stackscope's side-band records.

# Metric 3 for perf: perf script | fold into a file, together.
pp=$(perf_fold_script)
perf_to_folded() {	# REP: time the conversion of that repetition's perf.data
	local rep=$1
	time_conversion perf.tofold "$rep" 1 "perf script + fold" "$pp" "$tmp/perf.$rep.data" \
		"$tmp/perf.$rep.folded"
	rm -f "$tmp/perf.$rep.folded"
}

one() {	# TOOL REP
	local t=$1 rep=$2 err lost
	case $t in
	base) time_run base "$rep" "$WL" "$ROUNDS" ;;
	ss)
		# -v only adds a few lines on stderr, among them the report timing
		# and the capture's own counts
		time_run ss "$rep" "$SS" offcpu -v -o "$tmp/ss.$rep.folded" -- "$WL" "$ROUNDS" || return
		err=$tmp/ss.$rep.err
		sed -n 's/.*report written \([0-9.]*\) s after the end of capture.*/'"$rep"' \1/p' "$err" >>"$tmp/results.ss.tofold"
		sed -n 's/.* \([0-9]*\) switch-outs.*/'"$rep"' \1/p' "$err" >>"$tmp/results.ss.switches"
		# "stackscope offcpu: N blocked intervals, S stacks, L lost blocked intervals, K lost stacks, ..."
		sed -n 's/^stackscope offcpu: \([0-9]*\) blocked intervals, \([0-9]*\) stacks, \([0-9]*\) lost blocked intervals, \([0-9]*\) lost stacks.*/'"$rep"' \1 \2 \3 \4/p' \
			"$err" >>"$tmp/results.ss.summary"
		grep -E 'switch-outs|^stackscope offcpu:' "$err" >"$tmp/ss.last.err"
		rm -f "$tmp/ss.$rep.folded"
		;;
	ssk)
		time_run ssk "$rep" "$SS" offcpu --unwind kernel -v -o "$tmp/ssk.$rep.folded" -- "$WL" "$ROUNDS" || return
		err=$tmp/ssk.$rep.err
		# "..., N stacks unwound in the kernel, M from snapshots, ..."
		sed -n 's/.* \([0-9]*\) stacks unwound in the kernel, \([0-9]*\) from snapshots,.*/'"$rep"' \1 \2/p' \
			"$err" >>"$tmp/results.ssk.kernel"
		grep -E '^stackscope offcpu:' "$err" >"$tmp/ssk.last.err"
		rm -f "$tmp/ssk.$rep.folded"
		;;
	perf)
		if ! time_run perf "$rep" "$PERF" record -e sched:sched_switch -g -o "$tmp/perf.$rep.data" -- "$WL" "$ROUNDS"; then
			rm -f "$tmp/perf.$rep.data"	# a crashed run's file is not converted
			return
		fi
		err=$tmp/perf.$rep.err
		sed -n 's/.*(\([0-9]*\) samples).*/'"$rep"' \1/p' "$err" >>"$tmp/results.perf.switches"
		# "Processed N events and lost M chunks!" (only when it lost some)
		lost=$(sed -n 's/.*and lost \([0-9]*\) chunks.*/\1/p' "$err" | tail -n 1)
		echo "$rep ${lost:-0}" >>"$tmp/results.perf.lost"
		;;
	bt)	# bpftrace splits -c on spaces; the map it prints goes to bt.REP.out
		time_run bt "$rep" "$BPFTRACE" -e "$BT_PROG" -c "$WL $ROUNDS" || return
		# "]: N" closes each map entry: their sum is the switch-outs seen
		awk -v r="$rep" '/\]: [0-9]+$/ { s += $NF } END { if (s > 0) print r, s }' \
			"$tmp/bt.$rep.out" >>"$tmp/results.bt.switches"
		;;
	esac
	rm -f "$tmp/$t.$rep.out"
}

echo "stackscope offcpu bench: $(basename "$WL") $ROUNDS (context switches, fixed work), $REPS repetitions, tools interleaved: $tools"
after_rep() {	# REP: perf.data conversions, after the rep's timed runs
	local rep=$1
	if [ -n "$PERF" ] && [ -s "$tmp/perf.$rep.data" ]; then
		perf_to_folded "$rep"
	fi
	rm -f "$tmp/perf.$rep.data"
}
bench_rounds one after_rep "${tool_list[@]}"

declare -A wall cpu tofold switches twall
for t in ss ssk perf bt; do
	wall[$t]=$(paired "$t" 2 'a / bb' | median)
	cpu[$t]=$(paired "$t" 3 'a - bb' | median)
	twall[$t]=$(col 2 "$tmp/results.$t" | median)
	tofold[$t]=$(col 2 "$tmp/results.$t.tofold" | median)
	switches[$t]=$(col 2 "$tmp/results.$t.switches" | median)
done
base_wall=$(col 2 "$tmp/results.base" | median)
base_cpu=$(col 3 "$tmp/results.base" | median)
intervals=$(col 2 "$tmp/results.ss.summary" | median)
ss_stacks=$(col 3 "$tmp/results.ss.summary" | median)
lost_int_max=$(col 4 "$tmp/results.ss.summary" | sort -g | tail -n 1)
lost_stk_max=$(col 5 "$tmp/results.ss.summary" | sort -g | tail -n 1)
perf_lost_max=$(col 2 "$tmp/results.perf.lost" | sort -g | tail -n 1)

# ---- the table ---------------------------------------------------------------
row() { printf '%-38s %-12s %-12s %-12s %-9s %s\n' "$@"; }
echo
row metric stackscope perf bpftrace "ss/perf" "ss/bpftrace"
row "slowdown (wall / untraced wall)" "$(fmt_x "${wall[ss]}")" "$(fmt_x "${wall[perf]}")" "$(fmt_x "${wall[bt]}")" \
	"$(fmt_r "${wall[ss]}" "${wall[perf]}")" "$(fmt_r "${wall[ss]}" "${wall[bt]}")"
row "slowdown, --unwind kernel" "$(fmt_x "${wall[ssk]}")" "" "" \
	"$(fmt_r "${wall[ssk]}" "${wall[perf]}")" "$(fmt_r "${wall[ssk]}" "${wall[bt]}")"
row "tool CPU, --unwind kernel" "$(fmt_ms "${cpu[ssk]}")" "" "" \
	"$(fmt_r "${cpu[ssk]}" "${cpu[perf]}")" "$(fmt_r "${cpu[ssk]}" "${cpu[bt]}")"
row "wall of the traced run" "$(fmt_ms "${twall[ss]}")" "$(fmt_ms "${twall[perf]}")" "$(fmt_ms "${twall[bt]}")" \
	"$(fmt_r "${twall[ss]}" "${twall[perf]}")" "$(fmt_r "${twall[ss]}" "${twall[bt]}")"
row "tool CPU (user+sys - untraced)" "$(fmt_ms "${cpu[ss]}")" "$(fmt_ms "${cpu[perf]}")" "$(fmt_ms "${cpu[bt]}")" \
	"$(fmt_r "${cpu[ss]}" "${cpu[perf]}")" "$(fmt_r "${cpu[ss]}" "${cpu[bt]}")"
row "end of capture -> folded written" "$(fmt_ms "${tofold[ss]}")" "$(fmt_ms "${tofold[perf]}")" "n/a" \
	"$(fmt_r "${tofold[ss]}" "${tofold[perf]}")" ""
row "switch-outs recorded" "$(fmt_n "${switches[ss]}")" "$(fmt_n "${switches[perf]}")" "$(fmt_n "${switches[bt]}")" \
	"$(fmt_r "${switches[ss]}" "${switches[perf]}")" "$(fmt_r "${switches[ss]}" "${switches[bt]}")"
echo
runs() { [ -s "$tmp/results.$1" ] && wc -l <"$tmp/results.$1" || echo 0; }
echo "Medians of $REPS repetitions; runs completed: untraced $(runs base), stackscope $(runs ss), perf $(runs perf),"
echo "bpftrace $(runs bt) (perf conversions: $(runs perf.tofold)).  Slowdowns and CPU differences are per repetition,"
echo "against its untraced run (untraced $(basename "$WL") $ROUNDS: median $(fmt_ms "$base_wall") wall, $(fmt_ms "$base_cpu") user+sys;"
echo "/usr/bin/time, 10 ms steps).  Tool CPU holds the tracing done at each switch in the workload's context"
echo "(see the script)."
echo "End of capture -> folded: stackscope's own -v timing (blocked time per stack); perf: perf script |"
echo "stackcollapse-perf.awk ($([ -n "$HYPERFINE" ] && echo "hyperfine, 1 run" || echo "$TIME, once"); switch counts per stack, not time), without perf"
echo "record's own end-of-run work (so a lower bound for perf)."
echo "Switch-outs: stackscope -v's switch-outs, perf's samples, the sum of bpftrace's counts.  stackscope counted"
echo "$(fmt_n "$intervals") blocked intervals in $(fmt_n "$ss_stacks") stacks (medians); worst repetition: lost blocked"
echo "intervals $(fmt_n "$lost_int_max"), lost stacks $(fmt_n "$lost_stk_max"); perf's lost chunks $(fmt_n "$perf_lost_max")."
if [ -s "$tmp/ss.last.err" ]; then
	echo "stackscope -v, last repetition:"
	sed 's/^/    /' "$tmp/ss.last.err"
fi
if [ -s "$tmp/ssk.last.err" ]; then
	echo "stackscope --unwind kernel, last repetition (stacks unwound in the kernel / from copies, median of"
	echo "the repetitions: $(fmt_n "$(col 2 "$tmp/results.ssk.kernel" | median)") / $(fmt_n "$(col 3 "$tmp/results.ssk.kernel" | median)")):"
	sed 's/^/    /' "$tmp/ssk.last.err"
fi
if isnum "${wall[ssk]}"; then
	awk -v s="${wall[ssk]}" -v p="${wall[perf]}" -v b="${wall[bt]}" 'BEGIN {
		printf "stackscope --unwind kernel slowdown %.2fx", s
		if (p != "nan") printf ", perf %.2fx (%s)", p, (s <= p ? "no more than perf" : "ABOVE perf")
		if (b != "nan") printf ", bpftrace %.2fx (%s)", b, (s <= b ? "no more than bpftrace" : "ABOVE bpftrace")
		printf "\n"
	}'
fi
if isnum "${wall[ss]}"; then
	awk -v s="${wall[ss]}" -v p="${wall[perf]}" -v b="${wall[bt]}" 'BEGIN {
		printf "stackscope slowdown %.2fx", s
		if (p != "nan") printf ", perf %.2fx (%s)", p, (s <= p ? "no more than perf" : "ABOVE perf")
		if (b != "nan") printf ", bpftrace %.2fx (%s)", b, (s <= b ? "no more than bpftrace" : "ABOVE bpftrace")
		printf "\n"
	}'
fi
exit 0
