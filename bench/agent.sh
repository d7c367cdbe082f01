#!/usr/bin/env bash
# bench/agent.sh BUILD_DIR — the continuous agent's own CPU next to perf's,
# system-wide at 99 Hz on a machine kept busy, in one run.
#
#   REPS=3 SECS=20 bench/agent.sh build
#   BASE=OTHER_BUILD bench/agent.sh build   # and another build's default, in turn
#
# The machine is kept busy by one CPU-bound `demo` per online CPU for the
# whole benchmark.  Then, REPS times, alternating which goes first:
#   - stackscope profile --every 10s -F 99 -o DIR/cpu-%s.pb.gz (system-wide;
#     every window symbolized, written as pprof, kept bounded), with user
#     stacks copied and unwound here (the default), then with --unwind fp
#     (walked and counted in the kernel);
#   - perf record -F 99 -a -g -o perf.data (system-wide; perf only writes
#     raw samples, it symbolizes nothing while it records).
#   - with BASE set: BASE/stackscope the same way, in both modes (another
#     build, e.g. the one before a change, measured in the same run).
# Each runs WARM seconds (start-up: reading /proc, the first unwind tables),
# then SECS seconds measured: the utime+stime the tool's process gained in
# them (/proc/PID/stat, every thread of it), as a percentage of one core.
# (perf record's own work at exit, build-ids, comes after the measured
# span; this perf aborts on SIGINT now and then, which does not matter.)
# The sampling itself runs in the timer interrupt of the sampled CPU and is
# accounted to whatever ran there, not to either tool: what is compared is
# what each tool's process costs on top.  Prints medians and the ratio.
# Reports numbers; exits non-zero only when it cannot run.
# shellcheck disable=SC2317
set -uo pipefail

usage() { echo "usage: [REPS=N] [SECS=S] [WARM=S] [BASE=BUILD_DIR] $0 BUILD_DIR" >&2; exit 2; }
[ $# -le 1 ] || usage
case "${1:-}" in -h|--help) usage ;; esac
BUILD=${1:-build}
REPS=${REPS:-3}
SECS=${SECS:-20}
WARM=${WARM:-5}
HZ=99
for v in "$REPS" "$SECS" "$WARM"; do
	case "$v" in '' | *[!0-9]* | 0) echo "REPS, SECS and WARM must be positive integers" >&2; exit 2 ;; esac
done

here=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "$BUILD" 2>/dev/null && pwd) || { echo "no build directory ${1:-build}" >&2; exit 1; }
SS=$BUILD/stackscope
BASE_SS=""
if [ -n "${BASE:-}" ]; then
	BASE_SS=$(cd "$BASE" 2>/dev/null && pwd)/stackscope
	[ -x "$BASE_SS" ] || { echo "no stackscope in BASE=$BASE" >&2; exit 1; }
fi
DEMO=$BUILD/tests/workloads/demo

# shellcheck source=bench/lib.sh
. "$here/lib.sh"
bench_require "$SS" "$DEMO"
bench_tools perf
CLK=$(getconf CLK_TCK)
NCPU=$(getconf _NPROCESSORS_ONLN)

# the load: one CPU-bound loop per CPU, for longer than the whole run
busy=()
for ((i = 0; i < NCPU; i++)); do
	"$DEMO" $(((WARM + SECS + 10) * REPS * 2 + 30)) >/dev/null 2>&1 &
	busy+=($!)
done
stop_busy() { kill "${busy[@]}" 2>/dev/null; wait "${busy[@]}" 2>/dev/null; }
trap 'stop_busy; cleanup' EXIT

# ticks PID: utime + stime of the process (all its threads), clock ticks
ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"; }

# measure NAME CMD...: runs CMD in the background, WARM s, then SECS s
# measured; appends "% of a core" to $tmp/NAME
measure() {
	local name=$1 pid t0 t1
	shift
	"$@" >"$tmp/$name.out" 2>"$tmp/$name.err" &
	pid=$!
	sleep "$WARM"
	kill -0 "$pid" 2>/dev/null || { echo "$name ended early: $(tail -3 "$tmp/$name.err")" >&2; return 1; }
	t0=$(ticks "$pid")
	sleep "$SECS"
	t1=$(ticks "$pid")
	kill -INT "$pid"
	wait "$pid"
	awk -v a="$t0" -v b="$t1" -v c="$CLK" -v s="$SECS" 'BEGIN { printf "%.3f\n", (b - a) / c / s * 100 }' \
		>>"$tmp/$name"
}

ss_run() {
	rm -rf "$tmp/w"
	mkdir "$tmp/w"
	measure ss "$SS" profile --every 10s -F "$HZ" -o "$tmp/w/cpu-%s.pb.gz" || return
	tail -1 "$tmp/ss.err" | sed 's/^/  default: /'
	rm -rf "$tmp/w"
	mkdir "$tmp/w"
	measure ssfp "$SS" profile --every 10s -F "$HZ" --unwind fp -o "$tmp/w/cpu-%s.pb.gz" || return
	tail -1 "$tmp/ssfp.err" | sed 's/^/  --unwind fp: /'
	[ -n "$BASE_SS" ] || return 0
	rm -rf "$tmp/w"
	mkdir "$tmp/w"
	measure base "$BASE_SS" profile --every 10s -F "$HZ" -o "$tmp/w/cpu-%s.pb.gz" || return
	tail -1 "$tmp/base.err" | sed 's/^/  BASE default: /'
	rm -rf "$tmp/w"
	mkdir "$tmp/w"
	measure basefp "$BASE_SS" profile --every 10s -F "$HZ" --unwind fp -o "$tmp/w/cpu-%s.pb.gz" ||
		return
	tail -1 "$tmp/basefp.err" | sed 's/^/  BASE --unwind fp: /'
}
perf_run() {
	measure perf "$PERF" record -q -F "$HZ" -a -g -o "$tmp/perf.data"
	rm -f "$tmp/perf.data"
}

echo "agent bench: $NCPU CPUs kept busy, $HZ Hz system-wide, $WARM s warm-up then $SECS s measured, $REPS repetitions"
for ((r = 1; r <= REPS; r++)); do
	if ((r % 2)) || [ -z "$PERF" ]; then
		ss_run || exit 1
		[ -z "$PERF" ] || perf_run || PERF=""
	else
		perf_run || PERF=""
		ss_run || exit 1
	fi
done

median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ss=$(median "$tmp/ss")
ssfp=$(median "$tmp/ssfp")
printf '%-52s %8s %% of one core (runs: %s)\n' "stackscope profile --every 10s (own CPU)" "$ss" "$(tr '\n' ' ' <"$tmp/ss")"
printf '%-52s %8s %% of one core (runs: %s)\n' "stackscope profile --every 10s --unwind fp (own CPU)" "$ssfp" "$(tr '\n' ' ' <"$tmp/ssfp")"
if [ -n "$BASE_SS" ]; then
	base=$(median "$tmp/base")
	basefp=$(median "$tmp/basefp")
	printf '%-52s %8s %% of one core (runs: %s)\n' "BASE profile --every 10s (own CPU)" "$base" "$(tr '\n' ' ' <"$tmp/base")"
	printf '%-52s %8s %% of one core (runs: %s)\n' "BASE profile --every 10s --unwind fp (own CPU)" "$basefp" "$(tr '\n' ' ' <"$tmp/basefp")"
	awk -v a="$ss" -v b="$base" -v f="$ssfp" -v g="$basefp" \
		'BEGIN { if (b > 0 && g > 0) printf "ratio to BASE: %.2f (default), %.2f (--unwind fp)\n", a / b, f / g }'
fi
if [ -n "$PERF" ] && [ -s "$tmp/perf" ]; then
	pf=$(median "$tmp/perf")
	printf '%-52s %8s %% of one core (runs: %s)\n' "perf record -F $HZ -a -g (own CPU)" "$pf" "$(tr '\n' ' ' <"$tmp/perf")"
	awk -v a="$ss" -v f="$ssfp" -v b="$pf" 'BEGIN { if (b > 0) printf "ratio to perf: %.2f (default), %.2f (--unwind fp)\n", a / b, f / b }'
fi
