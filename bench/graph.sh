#!/usr/bin/env bash
# shellcheck disable=SC2317  # functions run by lib.sh's bench_rounds look unreachable
# bench/graph.sh BUILD_DIR — per-call cost of tracing a function's entry
# and return: stackscope graph next to uftrace record (the same program
# built with -pg) and a bpftrace uprobe + uretprobe pair, in one run.
#
#   REPS=3 CALLS=1000000 bench/graph.sh build
#
# The workload is tests/workloads/graph/graph_bench N: main calls small()
# N times and nothing else (graph_bench.pg is the same source with -pg,
# for uftrace).  Each tool runs it with N = CALLS and with N = 1000, and
#   ns per call = (wall(CALLS) - wall(1000)) / (CALLS - 1000)
# so start-up, attaching, detaching and the tool's end-of-run work cancel
# out, and what remains is what every call costs while tracing:
#   stackscope graph --func small -o FILE -- graph_bench N
#       (uprobe + uretprobe, a ring-buffer record each, the text tree)
#   uftrace record -d DIR graph_bench.pg N
#       (mcount in the process, records to a per-thread buffer, no trap)
#   bpftrace -e 'uprobe:BIN:small { @s[tid] = nsecs; }
#       uretprobe:BIN:small { @ns = hist(nsecs - @s[tid]); delete(@s[tid]); }'
#       (the usual duration one-liner; aggregated in the kernel)
# REPS repetitions (default 3), tools interleaved, medians reported.
# Wall times are taken with `date +%s%N` around each run (the sub-second
# uftrace runs need better than /usr/bin/time's 10 ms).  The machine is
# noisy: read the ratios.  Exits 0 whatever it measures.
#
# Needs root and the build (`make`, `make workloads`, or `make bench`,
# which also installs uftrace and bpftrace).  A missing tool is skipped.
set -uo pipefail

usage() { echo "usage: [REPS=N] [CALLS=N] $0 BUILD_DIR" >&2; exit 2; }
[ $# -le 1 ] || usage
case "${1:-}" in -h|--help) usage ;; esac
BUILD=${1:-build}
REPS=${REPS:-3}
CALLS=${CALLS:-1000000}
SMALL=1000
case "$REPS" in '' | *[!0-9]* | 0) echo "REPS must be a positive integer" >&2; exit 2 ;; esac
case "$CALLS" in '' | *[!0-9]*) echo "CALLS must be an integer" >&2; exit 2 ;; esac
[ "$CALLS" -gt $((SMALL * 10)) ] || { echo "CALLS must be above $((SMALL * 10))" >&2; exit 2; }

here=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "$BUILD" 2>/dev/null && pwd) || { echo "no build directory ${1:-build}" >&2; exit 1; }
SS=$BUILD/stackscope
WL=$BUILD/tests/workloads/graph/graph_bench
WLPG=$BUILD/tests/workloads/graph/graph_bench.pg
BT_PROG="uprobe:$WL:small { @s[tid] = nsecs; } uretprobe:$WL:small { @ns = hist(nsecs - @s[tid]); delete(@s[tid]); }"

# shellcheck source=bench/lib.sh
. "$here/lib.sh"
bench_require "$SS" "$WL" "$WLPG"
bench_tools bpftrace
UFTRACE=$(command -v uftrace || true)
[ -n "$UFTRACE" ] || echo "skipped: uftrace missing (Debian package uftrace)"

# wall_run NAME N CMD...: one run, its wall time in seconds appended to
# results.NAME.N; a failed run is said and left out.
wall_run() {
	local name=$1 n=$2 t0 t1 rc; shift 2
	t0=$(date +%s%N)
	run_job "$@" </dev/null >"$tmp/$name.out" 2>"$tmp/$name.err"
	rc=$?
	t1=$(date +%s%N)
	if [ "$rc" != 0 ]; then
		echo "    $name N=$n: failed (exit $rc), left out:"
		grep -v RLIMIT_MEMLOCK "$tmp/$name.err" | tail -n 3 | sed 's/^/      /'
		return 1
	fi
	echo "$(( (t1 - t0) / 1000 ))" | awk '{ printf "%.6f\n", $1 / 1e6 }' >>"$tmp/results.$name.$n"
}

one() {	# TOOL N
	local t=$1 n=$2
	case $t in
	base) wall_run base "$n" "$WL" "$n" ;;
	ss)
		wall_run ss "$n" "$SS" graph --func small -o "$tmp/ss.txt" -- "$WL" "$n" || return
		# "stackscope graph: C calls traced, ..., L lost events, ..."
		[ "$n" = "$CALLS" ] && sed -n 's/^stackscope graph: \([0-9]*\) calls traced.* \([0-9]*\) lost events.*/\1 \2/p' \
			"$tmp/ss.err" >>"$tmp/results.ss.counts"
		rm -f "$tmp/ss.txt"
		;;
	uftrace)
		rm -rf "$tmp/uftrace.data"
		wall_run uftrace "$n" "$UFTRACE" record -d "$tmp/uftrace.data" "$WLPG" "$n" || return
		rm -rf "$tmp/uftrace.data"
		;;
	bt) wall_run bt "$n" "$BPFTRACE" -e "$BT_PROG" -c "$WL $n" ;;
	esac
}

tools="base ss"
[ -n "$UFTRACE" ] && tools="$tools uftrace"
[ -n "$BPFTRACE" ] && tools="$tools bt"
read -r -a tool_list <<<"$tools"
echo "stackscope graph bench: $(basename "$WL") $CALLS calls (and $SMALL), $REPS repetitions, tools interleaved: $tools"
both_sizes() {	# TOOL REP
	one "$1" "$SMALL"
	one "$1" "$CALLS"
}
bench_rounds both_sizes : "${tool_list[@]}"

declare -A ns wall
for t in base ss uftrace bt; do
	big=$(median <"$tmp/results.$t.$CALLS" 2>/dev/null || echo nan)
	small=$(median <"$tmp/results.$t.$SMALL" 2>/dev/null || echo nan)
	wall[$t]=$big
	if isnum "$big" && isnum "$small"; then
		ns[$t]=$(calc "($big - $small) * 1e9 / ($CALLS - $SMALL)")
	else
		ns[$t]=nan
	fi
done
for t in ss uftrace bt; do	# the tracer's own cost: minus the untraced call
	isnum "${ns[$t]}" && isnum "${ns[base]}" && ns[$t]=$(calc "${ns[$t]} - ${ns[base]}")
done

fmt_ns() { isnum "$1" && awk -v v="$1" 'BEGIN { printf(v < 100 ? "%.1f ns" : "%.0f ns", v) }' || echo n/a; }
row() { printf '%-34s %-12s %-12s %-12s %-12s\n' "$@"; }
echo
row metric stackscope uftrace bpftrace untraced
row "added per call (entry + return)" "$(fmt_ns "${ns[ss]}")" "$(fmt_ns "${ns[uftrace]}")" "$(fmt_ns "${ns[bt]}")" \
	"$(fmt_ns "${ns[base]}") (the call)"
row "wall, $CALLS calls" "$(fmt_ms "${wall[ss]}")" "$(fmt_ms "${wall[uftrace]}")" "$(fmt_ms "${wall[bt]}")" \
	"$(fmt_ms "${wall[base]}")"
vs_uftrace() { local r; r=$(fmt_r "$1" "${ns[uftrace]}"); [ "$r" = n/a ] && echo n/a || echo "${r}x"; }
row "vs uftrace" "$(vs_uftrace "${ns[ss]}")" "1x" "$(vs_uftrace "${ns[bt]}")" ""
echo
calls=$(col 1 "$tmp/results.ss.counts" | median)
lost=$(col 2 "$tmp/results.ss.counts" | sort -g | tail -n 1)
runs() { [ -s "$tmp/results.$1.$CALLS" ] && wc -l <"$tmp/results.$1.$CALLS" || echo 0; }
echo "Medians of $REPS repetitions (runs completed at $CALLS calls: untraced $(runs base), stackscope $(runs ss),"
echo "uftrace $(runs uftrace), bpftrace $(runs bt)); per call = (wall($CALLS) - wall($SMALL)) / $((CALLS - SMALL)),"
echo "less the untraced call's own cost.  stackscope traced $(fmt_n "$calls") calls (median), lost events at worst $(fmt_n "$lost")."
exit 0
