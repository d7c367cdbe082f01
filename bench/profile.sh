#!/usr/bin/env bash
# shellcheck disable=SC2317  # functions run by lib.sh's bench_rounds look unreachable
# bench/profile.sh BUILD_DIR — stackscope profile next to perf record -g and
# bpftrace, on the same CPU-bound workload, in one run.
#
#   REPS=5 bench/profile.sh build
#
# Measures, with REPS repetitions (default 5) interleaved tool by tool inside
# each repetition (the order rotates from one repetition to the next) so that
# the machine's noise is spread over all of them:
#   1. wall time of the whole run on `demo 4` (a CPU-bound loop that stops
#      itself after 4 s) at 999 Hz, as a ratio to the untraced workload.
#      As demo runs for a fixed time, not a fixed amount of work, this is the
#      tool's start-up and wind-down around the run; the slowdown of the
#      workload while it is sampled shows as less work done, not here;
#   2. the CPU time the profiler itself uses: user+sys of the whole tool run
#      minus user+sys of the untraced workload (same repetition);
#   3. the time from the end of sampling to a written SVG flame graph;
#   4. the time from launch until sampling is live, as a proxy: wall time of
#      `/bin/true` under each tool minus the untraced `/bin/true`.
# and prints medians and ratios.  The machine is noisy: read the ratios, not
# the absolute times, and do not treat this as a pass/fail test (it exits 0
# whatever it measures; non-zero only when it cannot run at all).
#
# Needs root (BPF, perf events), /usr/bin/time, and the build: `make` and
# `make workloads` (or `make bench`, which also installs perf, bpftrace and
# hyperfine).  A missing perf, bpftrace or hyperfine is skipped, not fatal.
set -uo pipefail

usage() { echo "usage: [REPS=N] $0 BUILD_DIR" >&2; exit 2; }
[ $# -le 1 ] || usage
case "${1:-}" in -h|--help) usage ;; esac
BUILD=${1:-build}
REPS=${REPS:-5}
HZ=999
SECS=4			# the workload's length: `demo 4`
case "$REPS" in '' | *[!0-9]* | 0) echo "REPS must be a positive integer" >&2; exit 2 ;; esac

here=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "$BUILD" 2>/dev/null && pwd) || { echo "no build directory ${1:-build}" >&2; exit 1; }
SS=$BUILD/stackscope
DEMO=$BUILD/tests/workloads/demo
TRUE=/bin/true
BT_PROG='profile:hz:999 /pid == cpid/ { @[kstack, ustack] = count(); }'


# shellcheck source=bench/lib.sh
. "$here/lib.sh"
bench_require "$SS" "$DEMO"

# ---- which tools are there --------------------------------------------------
bench_tools perf bpftrace hyperfine

bench_private_home

preflight stackscope "$SS" profile -F "$HZ" -o "$tmp/pre.svg" -- "$DEMO" 0.2 ||
	{ echo "stackscope itself fails: nothing to compare" >&2; exit 1; }
[ -z "$PERF" ] || preflight perf "$PERF" record -q -F "$HZ" -g -o "$tmp/pre.data" -- "$DEMO" 0.2 || PERF=""
[ -z "$BPFTRACE" ] || preflight bpftrace "$BPFTRACE" -e "$BT_PROG" -c "$DEMO 0.2" || BPFTRACE=""
rm -f "$tmp"/pre.*

tools="base ss"
[ -n "$PERF" ] && tools="$tools perf"
[ -n "$BPFTRACE" ] && tools="$tools bt"
read -r -a tool_list <<<"$tools"

# ---- metrics 1-3: the 4 s workload, REPS interleaved repetitions -----------
# Each run goes through `/usr/bin/time -f '%e %U %S'`: wall time (10 ms
# resolution, 0.25% of the run), and user+sys of the tool and every child it
# waited for, the workload included.  results.NAME gets "rep wall cpu" lines.
#
# About the CPU metric (2): a BPF program, like perf's own sampling, runs in
# the timer interrupt of the CPU it samples, i.e. in the workload's context
# when the workload is on that CPU, and that time is accounted to the
# workload's (sys, or user with tick-based accounting) time, not to the
# profiler's process.  And `demo` runs for a fixed wall time, so its user+sys
# stays ~4 s whatever the sampling steals from it.  The difference measured
# here is therefore the profiler's own process (reading buffers, symbolizing,
# writing the report, starting up) plus whatever kernel time it causes in its
# own context; the in-interrupt sampling cost is not in it, nor in metric 1.

# Metric 3 for perf: perf script | fold | stackscope flamegraph, together.
pp=$tmp/perf-to-svg.sh
cat >"$pp" <<EOF
#!/bin/bash
# \$1 = perf.data, \$2 = SVG to write
set -o pipefail
$(q "${PERF:-perf}") script -i "\$1" 2>>$(q "$tmp/perf-script.err") | awk -f $(q "$FOLD") >"\$2.folded" &&
	$(q "$SS") flamegraph -o "\$2" "\$2.folded"
EOF
perf_to_svg() {	# REP: time the conversion of that repetition's perf.data
	local rep=$1
	local data=$tmp/perf.$rep.data svg=$tmp/perf.$rep.svg
	time_conversion perf2svg "$rep" 1 "perf script + fold + render" "$pp" "$data" "$svg"
	rm -f "$data" "$svg" "$svg.folded"
}

one() {	# TOOL REP
	local t=$1 rep=$2 err
	case $t in
	base) time_run base "$rep" "$DEMO" "$SECS" ;;
	ss)
		# -v only adds a few lines on stderr, among them the report timing
		time_run ss "$rep" "$SS" profile -F "$HZ" -v -o "$tmp/ss.$rep.svg" -- "$DEMO" "$SECS" || return
		err=$tmp/ss.$rep.err
		sed -n 's/.*report written \([0-9.]*\) s after the end of capture.*/'"$rep"' \1/p' "$err" >>"$tmp/results.ss2svg"
		sed -n 's/^stackscope profile: \([0-9]*\) samples.*/'"$rep"' \1/p' "$err" >>"$tmp/results.ss.samples"
		rm -f "$tmp/ss.$rep.svg"
		;;
	perf)
		time_run perf "$rep" "$PERF" record -F "$HZ" -g -o "$tmp/perf.$rep.data" -- "$DEMO" "$SECS" || return
		sed -n 's/.*(\([0-9]*\) samples).*/'"$rep"' \1/p' "$tmp/perf.$rep.err" >>"$tmp/results.perf.samples"
		;;
	bt)	# bpftrace splits -c on spaces; its map printout goes to /dev/null
		time_run bt "$rep" "$BPFTRACE" -e "$BT_PROG" -c "$DEMO $SECS" ;;
	esac
}

echo "stackscope bench: $(basename "$DEMO") $SECS (CPU-bound, ends by itself) at $HZ Hz, $REPS repetitions, tools interleaved: $tools"
after_rep() {	# REP: perf.data conversions, after the rep's timed runs
	local rep=$1
	if [ -n "$PERF" ] && [ -s "$tmp/perf.$rep.data" ]; then
		perf_to_svg "$rep"
	fi
}
bench_rounds one after_rep "${tool_list[@]}"

declare -A wall cpu tosvg samples launch
for t in ss perf bt; do
	wall[$t]=$(paired "$t" 2 'a / bb' | median)
	cpu[$t]=$(paired "$t" 3 'a - bb' | median)
done
base_wall=$(col 2 "$tmp/results.base" | median)
base_cpu=$(col 3 "$tmp/results.base" | median)
tosvg[ss]=$(col 2 "$tmp/results.ss2svg" | median)
tosvg[perf]=$(col 2 "$tmp/results.perf2svg" | median)
samples[ss]=$(col 2 "$tmp/results.ss.samples" | median)
samples[perf]=$(col 2 "$tmp/results.perf.samples" | median)

# ---- metric 4: launch until sampling is live, with /bin/true ----------------
# Wall time of `/bin/true` under each tool minus untraced /bin/true.  This is
# an upper bound of the start-up latency: it also holds the tool's shutdown,
# which on a command this short can dominate (stackscope waits there for its
# /proc/kallsyms reader, which otherwise overlaps the run; perf 6.1 record
# waits for its BPF side-band thread, ~1 s unless --no-bpf-event).
echo "  launch overhead: /bin/true under each tool"
lcmds=("$TRUE" "$SS profile -F $HZ -o /dev/null -- $TRUE")
lnames=(true ss)
[ -n "$PERF" ] && { lcmds+=("$PERF record -q -F $HZ -g -o $(q "$tmp/true.data") -- $TRUE"); lnames+=(perf); }
[ -n "$BPFTRACE" ] && { lcmds+=("$BPFTRACE -e '$BT_PROG' -c $TRUE"); lnames+=(bt); }
declare -A lmed
if [ -n "$HYPERFINE" ]; then
	if run_job "$HYPERFINE" -N --warmup 2 --runs 10 --style none --export-json "$tmp/launch.json" \
		-- "${lcmds[@]}" </dev/null >/dev/null 2>"$tmp/launch.err"; then
		i=0
		while read -r m; do lmed[${lnames[$i]}]=$m; i=$((i + 1)); done < <(hf_medians "$tmp/launch.json")
	else
		echo "    hyperfine failed:"; tail -n 3 "$tmp/launch.err" | sed 's/^/      /'
	fi
else
	for i in "${!lcmds[@]}"; do
		: >"$tmp/launch.${lnames[$i]}"
		for ((r = 1; r <= 12; r++)); do	# 2 warm-up runs, 10 measured
			run_job "$TIME" -f '%e' -o "$tmp/l.time" bash -c "${lcmds[$i]}" </dev/null >/dev/null 2>&1 || continue
			[ "$r" -gt 2 ] && tail -n 1 "$tmp/l.time" >>"$tmp/launch.${lnames[$i]}"
		done
		lmed[${lnames[$i]}]=$(median <"$tmp/launch.${lnames[$i]}")
	done
fi
rm -f "$tmp/true.data"
for t in ss perf bt; do
	if isnum "${lmed[$t]:-}" && isnum "${lmed[true]:-}"; then
		launch[$t]=$(calc "${lmed[$t]} - ${lmed[true]}")
	else
		launch[$t]=nan
	fi
done

# ---- the table ---------------------------------------------------------------
row() { printf '%-34s %-12s %-12s %-12s %s\n' "$@"; }
echo
row metric stackscope perf bpftrace "ratio (ss/perf)"
row "wall, $SECS s workload @$HZ Hz" "$(fmt_x "${wall[ss]}")" "$(fmt_x "${wall[perf]}")" "$(fmt_x "${wall[bt]}")" \
	"$(fmt_r "${wall[ss]}" "${wall[perf]}")"
row "profiler CPU (user+sys - untraced)" "$(fmt_ms "${cpu[ss]}")" "$(fmt_ms "${cpu[perf]}")" "$(fmt_ms "${cpu[bt]}")" \
	"$(fmt_r "${cpu[ss]}" "${cpu[perf]}")"
row "end of sampling -> SVG written" "$(fmt_ms "${tosvg[ss]}")" "$(fmt_ms "${tosvg[perf]}")" "n/a" \
	"$(fmt_r "${tosvg[ss]}" "${tosvg[perf]}")"
row "launch overhead (/bin/true)" "$(fmt_ms "${launch[ss]}")" "$(fmt_ms "${launch[perf]}")" "$(fmt_ms "${launch[bt]}")" \
	"$(fmt_r "${launch[ss]}" "${launch[perf]}")"
row "samples captured" "$(fmt_n "${samples[ss]}")" "$(fmt_n "${samples[perf]}")" "n/a" \
	"$(fmt_r "${samples[ss]}" "${samples[perf]}")"
echo
runs() { [ -s "$tmp/results.$1" ] && wc -l <"$tmp/results.$1" || echo 0; }
echo "Medians of $REPS repetitions; runs completed: untraced $(runs base), stackscope $(runs ss), perf $(runs perf),"
echo "bpftrace $(runs bt).  Wall ratios and CPU differences are per repetition, against its untraced run"
echo "(untraced demo $SECS: median $(fmt_ms "$base_wall") wall, $(fmt_ms "$base_cpu") user+sys; /usr/bin/time, 10 ms steps)."
echo "Profiler CPU leaves out the in-interrupt sampling cost, charged to the workload (see the script)."
echo "End of sampling -> SVG: stackscope's own -v timing; perf: perf script | fold | stackscope flamegraph,"
echo "without perf record's own end-of-run work (so a lower bound for perf)."
echo "Launch overhead: $([ -n "$HYPERFINE" ] && echo hyperfine || echo "$TIME") medians of 10 runs of /bin/true under the tool minus"
echo "untraced /bin/true; it holds the tool's shutdown as well as its start-up."
if isnum "${wall[ss]}"; then
	awk -v v="${wall[ss]}" 'BEGIN { printf "stackscope wall overhead %.3fx: %s the 1.03x target\n", v, v <= 1.03 ? "within" : "ABOVE" }'
fi
exit 0
