#!/usr/bin/env bash
# shellcheck disable=SC2317  # functions run by lib.sh's bench_rounds look unreachable
# bench/lang_syscall.sh BUILD_DIR — the cost of the language's syscall
# probes: a loop of N getppid() calls (tests/workloads/sysc_wl DIR N, N =
# BENCH_CALLS, default 1000000) untraced, and under
#   stackscope -e 'syscall:getppid:return { @ = count(); }'
#       (one program on sys_enter_getppid and sys_exit_getppid: the entry
#       saved in a hash map, taken back at exit; what args, duration and
#       call need)
#   stackscope -e 'tracepoint:syscalls:sys_exit_getppid { @ = count(); }'
#       (one program at exit only: the floor)
#   strace -c -e trace=getppid
# each launching the workload as its command, in one run.
#
#   BENCH_REPS=5 BENCH_CALLS=1000000 bench/lang_syscall.sh build
#
# With BENCH_REPS repetitions (default 5), interleaved (the order rotates),
# it prints the median wall time of each, the slowdown against the
# untraced run of the same repetition, the cost per call (wall added,
# divided by the calls: start-up included, so pessimistic) and the ratios:
# syscall probe / tracepoint, strace / syscall probe.  Each run's count is
# checked (at least N).  The machine is noisy: read the ratios.  Exits 0
# whatever it measures (non-zero only when it cannot run at all).
# Needs root, /usr/bin/time, `make` and `make workloads`; strace is optional.
set -uo pipefail

usage() { echo "usage: [BENCH_REPS=N] [BENCH_CALLS=N] $0 BUILD_DIR" >&2; exit 2; }
[ $# -le 1 ] || usage
case "${1:-}" in -h|--help) usage ;; esac
REPS=${BENCH_REPS:-5}
CALLS=${BENCH_CALLS:-1000000}
for v in REPS CALLS; do
	case "${!v}" in '' | *[!0-9]* | 0) echo "BENCH_$v must be a positive integer" >&2; exit 2 ;; esac
done
here=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "${1:-build}" 2>/dev/null && pwd) || { echo "no build directory ${1:-build}" >&2; exit 1; }
SS=$BUILD/stackscope
WL=$BUILD/tests/workloads/sysc_wl

# shellcheck source=bench/lib.sh
. "$here/lib.sh"
bench_require "$SS" "$WL"
STRACE=$(command -v strace || true)
[ -n "$STRACE" ] || echo "skipped: strace missing (Debian package strace)"
wdir=$tmp/wl
mkdir -p "$wdir"

P_SYS='syscall:getppid:return /pid == cpid/ { @ = count(); }'
P_TP='tracepoint:syscalls:sys_exit_getppid /pid == cpid/ { @ = count(); }'
preflight "syscall probe" "$SS" -e "$P_SYS" -c "$WL $wdir 1000" ||
	{ echo "the syscall probe itself fails: nothing to measure" >&2; exit 1; }
tools="base sys tp"
[ -z "$STRACE" ] || tools="$tools strace"

one() {
	local t=$1 rep=$2
	case $t in
	base) time_run base "$rep" "$WL" "$wdir" "$CALLS" ;;
	sys) time_run sys "$rep" "$SS" -e "$P_SYS" -c "$WL $wdir $CALLS" ;;
	tp) time_run tp "$rep" "$SS" -e "$P_TP" -c "$WL $wdir $CALLS" ;;
	strace) time_run strace "$rep" "$STRACE" -f -c -e trace=getppid -o "$tmp/strace.$rep.c" \
		"$WL" "$wdir" "$CALLS" ;;
	esac
}
echo "$CALLS getppid() calls, $REPS repetitions"
# shellcheck disable=SC2086
bench_rounds one : $tools

# every run counted every call
for t in sys tp; do
	for f in "$tmp"/$t.*.out; do
		[ -e "$f" ] || continue
		n=$(awk '/^@: / { print $2 }' "$f")
		[ -n "$n" ] && [ "$n" -ge "$CALLS" ] || echo "  warning: $t counted '${n:-nothing}' in $(basename "$f")"
	done
done

printf '\n%-34s %10s %10s %12s\n' tool "wall" slowdown "per call"
declare -A WALL
for t in $tools; do
	WALL[$t]=$(col 2 "$tmp/results.$t" | median)
	slow=$(paired "$t" 2 'a / bb' | median)
	cost=$(paired "$t" 2 "(a - bb) / $CALLS * 1e9" | median)
	case $t in
	base) label="untraced" ;;
	sys) label="stackscope syscall:getppid:return" ;;
	tp) label="stackscope tracepoint sys_exit" ;;
	strace) label="strace -c -e trace=getppid" ;;
	esac
	printf '%-34s %10s %10s %12s\n' "$label" "$(fmt_ms "${WALL[$t]}")" "$(fmt_x "$slow")" \
		"$([ "$t" = base ] && echo - || echo "$(fmt_n "$cost") ns")"
done
added() { paired "$1" 2 'a - bb' | median; }
echo
echo "ratios of the time added to the untraced run (medians):"
echo "  syscall probe / tracepoint:  $(fmt_r "$(added sys)" "$(added tp)")"
[ -z "$STRACE" ] || echo "  strace / syscall probe:      $(fmt_r "$(added strace)" "$(added sys)")"
exit 0
