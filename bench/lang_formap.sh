#!/usr/bin/env bash
# shellcheck disable=SC2317  # functions run by lib.sh's bench_rounds look unreachable
# bench/lang_formap.sh BUILD_DIR — the cost of for ($kv : @map): a loop of
# N getppid() calls (tests/workloads/sysc_wl DIR N, N = BENCH_CALLS,
# default 1000000) untraced, and with a program at each call's exit that
#   tp:    counts the call (the floor: a probe that does nothing else)
#   for:   sums the values of a map of K elements (BENCH_KEYS, default 16)
#          with for ($kv : @m) { $s += $kv.1; }
#          (bpf_for_each_map_elem, the body a callback function; the
#          kernel's walk visits every bucket of the hash map, so its cost
#          follows max_map_keys, 4096 by default, not the K elements)
#   for_k: the same with config = { max_map_keys = K }
#   while: sums the same map with $i = 0; while ($i < K) { $s += @m[$i]; $i++; }
#          (one map lookup per key, the keys known in advance)
# each launching the workload as its command, in one run.  bpftrace 0.17
# (the reference elsewhere) has no for over maps, so the peer here is the
# loop a bpftrace 0.17 user writes instead.
#
#   BENCH_REPS=5 BENCH_CALLS=1000000 BENCH_KEYS=16 bench/lang_formap.sh build
#
# With BENCH_REPS repetitions (default 5), interleaved (the order rotates),
# it prints the median wall time of each, the time added per call against
# the untraced run of the same repetition, and the ratio for / while of
# the time the loops add over the floor (for_k / while too).  Every run's sum and count are
# checked.  The machine is noisy: read the ratios.  Exits 0 whatever it
# measures (non-zero only when it cannot run at all).
# Needs root, /usr/bin/time, `make` and `make workloads`.
set -uo pipefail

usage() { echo "usage: [BENCH_REPS=N] [BENCH_CALLS=N] [BENCH_KEYS=N] $0 BUILD_DIR" >&2; exit 2; }
[ $# -le 1 ] || usage
case "${1:-}" in -h|--help) usage ;; esac
REPS=${BENCH_REPS:-5}
CALLS=${BENCH_CALLS:-1000000}
KEYS=${BENCH_KEYS:-16}
for v in REPS CALLS KEYS; do
	case "${!v}" in '' | *[!0-9]* | 0) echo "BENCH_$v must be a positive integer" >&2; exit 2 ;; esac
done
[ "$KEYS" -le 4096 ] || { echo "BENCH_KEYS must be at most 4096 (max_map_keys)" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "${1:-build}" 2>/dev/null && pwd) || { echo "no build directory ${1:-build}" >&2; exit 1; }
SS=$BUILD/stackscope
WL=$BUILD/tests/workloads/sysc_wl

# shellcheck source=bench/lib.sh
. "$here/lib.sh"
bench_require "$SS" "$WL"
wdir=$tmp/wl
mkdir -p "$wdir"

FILL="BEGIN { \$i = 0; while (\$i < $KEYS) { @m[\$i] = \$i; \$i++; } }"
AT='tracepoint:syscalls:sys_exit_getppid /pid == cpid/'
P_TP="$AT { @n = count(); }"
P_FOR="$FILL $AT { \$s = 0; for (\$kv : @m) { \$s += \$kv.1; } @s = \$s; @n = count(); }"
P_FOR_K="config = { max_map_keys = $KEYS } $P_FOR"
P_WHILE="$FILL $AT { \$s = 0; \$i = 0; while (\$i < $KEYS) { \$s += @m[\$i]; \$i++; } @s = \$s; @n = count(); }"
for p in P_TP P_FOR P_FOR_K P_WHILE; do
	preflight "$p" "$SS" -e "${!p}" -c "$WL $wdir 1000" ||
		{ echo "a program fails: nothing to measure" >&2; exit 1; }
done
tools="base tp for for_k while"

one() {
	local t=$1 rep=$2
	case $t in
	base) time_run base "$rep" "$WL" "$wdir" "$CALLS" ;;
	tp) time_run tp "$rep" "$SS" -e "$P_TP" -c "$WL $wdir $CALLS" ;;
	for) time_run for "$rep" "$SS" -e "$P_FOR" -c "$WL $wdir $CALLS" ;;
	for_k) time_run for_k "$rep" "$SS" -e "$P_FOR_K" -c "$WL $wdir $CALLS" ;;
	while) time_run while "$rep" "$SS" -e "$P_WHILE" -c "$WL $wdir $CALLS" ;;
	esac
}
echo "$CALLS getppid() calls, a map of $KEYS keys, $REPS repetitions"
# shellcheck disable=SC2086
bench_rounds one : $tools

# every run counted every call, and the loops summed every value
want=$((KEYS * (KEYS - 1) / 2))
for t in tp for for_k while; do
	for f in "$tmp"/$t.*.out; do
		[ -e "$f" ] || continue
		n=$(awk '/^@n: / { print $2 }' "$f")
		[ -n "$n" ] && [ "$n" -ge "$CALLS" ] || echo "  warning: $t counted '${n:-nothing}' in $(basename "$f")"
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
	for) label="for (\$kv : @m), $KEYS keys" ;;
	for_k) label="the same, max_map_keys = $KEYS" ;;
	while) label="while, @m[\$i], $KEYS keys" ;;
	esac
	printf '%-40s %10s %12s\n' "$label" "$(fmt_ms "$wall")" \
		"$([ "$t" = base ] && echo - || echo "$(fmt_n "$cost") ns")"
done
loop() { paired "$1" 2 'a - bb' tp | median; }
echo
echo "time the loop adds over the floor (medians):"
echo "  for / while:    $(fmt_r "$(loop for)" "$(loop while)")"
echo "  for_k / while:  $(fmt_r "$(loop for_k)" "$(loop while)")"
echo "  per element:    for $(fmt_n "$(calc "$(loop for) / $CALLS / $KEYS * 1e9")") ns," \
	"for_k $(fmt_n "$(calc "$(loop for_k) / $CALLS / $KEYS * 1e9")") ns," \
	"while $(fmt_n "$(calc "$(loop while) / $CALLS / $KEYS * 1e9")") ns"
exit 0
