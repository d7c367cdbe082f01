#!/usr/bin/env bash
# shellcheck disable=SC2317  # functions run by lib.sh's bench_rounds look unreachable
# bench/lang_range.sh BUILD_DIR — for ($i : A..B) through bpf_loop() against
# the open-coded loop, at N iterations (BENCH_ITERS, default 16): a loop of
# C getppid() calls (tests/workloads/sysc_wl DIR C, C = BENCH_CALLS, default
# 1000000) untraced, and with a program at each call's exit that
#   tp:    counts the call (the floor: a probe that does nothing else)
#   open:  sums 0..N-1 in an open-coded loop ($i = 0; while ($i < N) {
#          $s += $i; $i++; }, the code for ($i : 0..N) is for constant
#          bounds at most 16 apart, or where the kernel has no bpf_loop)
#   loop:  sums them with $n = N; for ($i : 0..$n) { $s += $i; } (a bound
#          the compiler does not know: bpf_loop(), the body a callback)
# and the start-up (the verifier's work) of BEGIN { the same loop; exit(); }
#   ld_open, ld_loop: the whole run of stackscope, load to exit
# each in one run, interleaved.
#
#   BENCH_REPS=5 BENCH_CALLS=1000000 BENCH_ITERS=16 bench/lang_range.sh build
#
# It prints the median wall time of each, the time added per call against
# the untraced run of the same repetition, the ratio loop / open of the time
# the loops add over the floor, and ld_loop / ld_open.  Every run's sum and
# count are checked.  The machine is noisy: read the ratios.  Exits 0
# whatever it measures (non-zero only when it cannot run at all).
# Needs root, /usr/bin/time, `make` and `make workloads`.
set -uo pipefail

usage() { echo "usage: [BENCH_REPS=N] [BENCH_CALLS=N] [BENCH_ITERS=N] $0 BUILD_DIR" >&2; exit 2; }
[ $# -le 1 ] || usage
case "${1:-}" in -h|--help) usage ;; esac
REPS=${BENCH_REPS:-5}
CALLS=${BENCH_CALLS:-1000000}
ITERS=${BENCH_ITERS:-16}
for v in REPS CALLS ITERS; do
	case "${!v}" in '' | *[!0-9]* | 0) echo "BENCH_$v must be a positive integer" >&2; exit 2 ;; esac
done
[ "$ITERS" -le 100000 ] || { echo "BENCH_ITERS must be at most 100000" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "${1:-build}" 2>/dev/null && pwd) || { echo "no build directory ${1:-build}" >&2; exit 1; }
SS=$BUILD/stackscope
WL=$BUILD/tests/workloads/sysc_wl

# shellcheck source=bench/lib.sh
. "$here/lib.sh"
bench_require "$SS" "$WL"
wdir=$tmp/wl
mkdir -p "$wdir"

AT='tracepoint:syscalls:sys_exit_getppid /pid == cpid/'
OPEN="\$s = 0; \$i = 0; while (\$i < $ITERS) { \$s += \$i; \$i++; } @s = \$s;"
LOOP="\$s = 0; \$n = $ITERS; for (\$i : 0..\$n) { \$s += \$i; } @s = \$s;"
P_TP="$AT { @n = count(); }"
P_OPEN="$AT { $OPEN @n = count(); }"
P_LOOP="$AT { $LOOP @n = count(); }"
P_LD_OPEN="BEGIN { $OPEN exit(); }"
P_LD_LOOP="BEGIN { $LOOP exit(); }"
for p in P_TP P_OPEN P_LOOP; do
	preflight "$p" "$SS" -e "${!p}" -c "$WL $wdir 1000" ||
		{ echo "a program fails: nothing to measure" >&2; exit 1; }
done
tools="base tp open loop"
preflight ld_open "$SS" -e "$P_LD_OPEN" && tools="$tools ld_open"
preflight ld_loop "$SS" -e "$P_LD_LOOP" && tools="$tools ld_loop"

one() {
	local t=$1 rep=$2
	case $t in
	base) time_run base "$rep" "$WL" "$wdir" "$CALLS" ;;
	tp) time_run tp "$rep" "$SS" -e "$P_TP" -c "$WL $wdir $CALLS" ;;
	open) time_run open "$rep" "$SS" -e "$P_OPEN" -c "$WL $wdir $CALLS" ;;
	loop) time_run loop "$rep" "$SS" -e "$P_LOOP" -c "$WL $wdir $CALLS" ;;
	ld_open) time_run ld_open "$rep" "$SS" -e "$P_LD_OPEN" ;;
	ld_loop) time_run ld_loop "$rep" "$SS" -e "$P_LD_LOOP" ;;
	esac
}
echo "$CALLS getppid() calls, loops of $ITERS iterations, $REPS repetitions"
# shellcheck disable=SC2086
bench_rounds one : $tools

# every run counted every call, and the loops summed every value
want=$((ITERS * (ITERS - 1) / 2))
for t in tp open loop ld_open ld_loop; do
	for f in "$tmp/$t".*.out; do
		[ -e "$f" ] || continue
		case $t in ld_*) ;; *)
			n=$(awk '/^@n: / { print $2 }' "$f")
			[ -n "$n" ] && [ "$n" -ge "$CALLS" ] || echo "  warning: $t counted '${n:-nothing}' in $(basename "$f")"
		esac
		[ "$t" = tp ] && continue
		s=$(awk '/^@s: / { print $2 }' "$f")
		[ "$s" = "$want" ] || echo "  warning: $t summed '${s:-nothing}', not $want, in $(basename "$f")"
	done
done

printf '\n%-40s %10s %12s\n' tool "wall" "per call"
for t in $tools; do
	wall=$(col 2 "$tmp/results.$t" | median)
	cost=$(paired "$t" 2 "(a - bb) / $CALLS * 1e9" | median)
	case $t in
	base) label="untraced" ;;
	tp) label="count (the floor)" ;;
	open) label="open-coded, $ITERS iterations" ;;
	loop) label="bpf_loop, $ITERS iterations" ;;
	ld_open) label="start-up, open-coded" ;;
	ld_loop) label="start-up, bpf_loop" ;;
	esac
	printf '%-40s %10s %12s\n' "$label" "$(fmt_ms "$wall")" \
		"$(case $t in base | ld_*) echo - ;; *) echo "$(fmt_n "$cost") ns" ;; esac)"
done
loop() { paired "$1" 2 'a - bb' tp | median; }
echo
echo "time the loop adds over the floor (medians):"
echo "  loop / open:       $(fmt_r "$(loop loop)" "$(loop open)")"
echo "  per iteration:     open $(fmt_n "$(calc "$(loop open) / $CALLS / $ITERS * 1e9")") ns," \
	"loop $(fmt_n "$(calc "$(loop loop) / $CALLS / $ITERS * 1e9")") ns"
echo "start-up, ld_loop / ld_open: $(fmt_r "$(col 2 "$tmp/results.ld_loop" | median)" \
	"$(col 2 "$tmp/results.ld_open" | median)")"
exit 0
