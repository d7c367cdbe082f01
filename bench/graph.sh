#!/usr/bin/env bash
# shellcheck disable=SC2317  # functions run by lib.sh's bench_rounds look unreachable
# bench/graph.sh BUILD_DIR — per-call cost of tracing a function's entry
# and return: stackscope graph on four builds of one program (plain, and
# three whose functions begin with nops), next to uftrace record (the -pg
# build) and a bpftrace uprobe + uretprobe pair, in one run; then where a
# traced call's time goes.
#
#   REPS=3 CALLS=1000000 [TOOLS="base ssn ..."] bench/graph.sh build
#
# The workload is tests/workloads/graph/graph_bench N: main calls small()
# N times and nothing else, built
#   graph_bench             -O2 -g: small() begins with lea (a trap and a
#                           single-step per entry probe)
#   graph_bench.nop5        + -pg -mfentry -mnop-mcount: a 5-byte nop first,
#                           which the kernel turns into a call to its
#                           uprobe trampoline (graph's fast path)
#   graph_bench.pfe         gcc -fpatchable-function-entry=5: five one-byte
#                           nops (emulated, a trap each, no fast path)
#   graph_bench.pfe.clang   the same by clang: one 5-byte nop (fast path)
#   graph_bench.pg          -pg, for uftrace record
# Each tool runs it with N = CALLS and with N = 1000, and
#   ns per call = (wall(CALLS) - wall(1000)) / (CALLS - 1000)
# so start-up, attaching, detaching and the tool's end-of-run work cancel
# out; the untraced call's own cost is subtracted.  Measured:
#   stackscope graph --func small -o FILE -- BUILD N   (each build)
#   uftrace record -d DIR graph_bench.pg N
#   bpftrace -e 'uprobe:BIN:small { @s[tid] = nsecs; }
#       uretprobe:BIN:small { @ns = hist(nsecs - @s[tid]); delete(@s[tid]); }'
#       (the usual duration one-liner; plain and nop5 builds)
# and, on the nop5 build, for the breakdown:
#   bpftrace 'uprobe:BIN:small { @ = count(); }'  (the entry probe alone)
#   the same with a count-only uretprobe too      (+ the return probe)
#   sysc_storm 1 N: N getppid() system calls      (one kernel round trip:
#       the optimized entry is one, the return trampoline another)
# After the timed rounds, REPS runs of `stackscope graph -v` on the nop5
# build give the BPF programs' run time (the kernel's statistics, which
# cost a little themselves, so not in the timed runs) and graph's own CPU
# per call; one run counts the uprobe (336) and uretprobe (335) system
# calls of the workload, which say whether the kernel took its fast paths.
# REPS repetitions (default 3), tools interleaved, medians reported;
# TOOLS runs only some of them (names as in one() below).
# Wall times are taken with `date +%s%N` around each run.  The machine is
# noisy: read the ratios.  Exits 0 whatever it measures.
#
# Needs root and the build (`make`, `make workloads`, or `make bench`,
# which also installs uftrace and bpftrace).  A missing tool is skipped.
set -uo pipefail

usage() { echo "usage: [REPS=N] [CALLS=N] [TOOLS=\"base sys ss ssn ssp ssc uftrace bt btn cnt1 cnt2\"] $0 BUILD_DIR" >&2; exit 2; }
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
GD=$BUILD/tests/workloads/graph
WL=$GD/graph_bench
WLN=$GD/graph_bench.nop5
WLP=$GD/graph_bench.pfe
WLC=$GD/graph_bench.pfe.clang
WLPG=$GD/graph_bench.pg
STORM=$BUILD/tests/workloads/sysc_storm
bt_pair() { echo "uprobe:$1:small { @s[tid] = nsecs; } uretprobe:$1:small { @ns = hist(nsecs - @s[tid]); delete(@s[tid]); }"; }

# shellcheck source=bench/lib.sh
. "$here/lib.sh"
bench_require "$SS" "$WL" "$WLN" "$WLP" "$WLC" "$WLPG" "$STORM"
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

# graph_run NAME BIN N: stackscope graph on BIN; at CALLS, "calls lost
# fast" from its closing line appended to results.NAME.counts
graph_run() {
	local name=$1 bin=$2 n=$3
	wall_run "$name" "$n" "$SS" graph --func small -o "$tmp/$name.txt" -- "$bin" "$n" || return
	# "stackscope graph: C calls traced, ..., L lost events, ..., F functions on 5-byte nops"
	[ "$n" = "$CALLS" ] && sed -n 's/^stackscope graph: \([0-9]*\) calls traced.* \([0-9]*\) lost events.* \([0-9]*\) functions on 5-byte nops.*/\1 \2 \3/p' \
		"$tmp/$name.err" >>"$tmp/results.$name.counts"
	rm -f "$tmp/$name.txt"
}

one() {	# TOOL N
	local t=$1 n=$2
	case $t in
	base) wall_run base "$n" "$WL" "$n" ;;
	sys) wall_run sys "$n" "$STORM" 1 "$n" ;;
	ss) graph_run ss "$WL" "$n" ;;
	ssn) graph_run ssn "$WLN" "$n" ;;
	ssp) graph_run ssp "$WLP" "$n" ;;
	ssc) graph_run ssc "$WLC" "$n" ;;
	uftrace)
		rm -rf "$tmp/uftrace.data"
		wall_run uftrace "$n" "$UFTRACE" record -d "$tmp/uftrace.data" "$WLPG" "$n" || return
		rm -rf "$tmp/uftrace.data"
		;;
	bt) wall_run bt "$n" "$BPFTRACE" -e "$(bt_pair "$WL")" -c "$WL $n" ;;
	btn) wall_run btn "$n" "$BPFTRACE" -e "$(bt_pair "$WLN")" -c "$WLN $n" ;;
	cnt1) wall_run cnt1 "$n" "$BPFTRACE" -e "uprobe:$WLN:small { @ = count(); }" -c "$WLN $n" ;;
	cnt2) wall_run cnt2 "$n" "$BPFTRACE" \
		-e "uprobe:$WLN:small { @ = count(); } uretprobe:$WLN:small { @r = count(); }" -c "$WLN $n" ;;
	esac
}

tools="base sys ss ssn ssp ssc"
[ -n "$UFTRACE" ] && tools="$tools uftrace"
[ -n "$BPFTRACE" ] && tools="$tools bt btn cnt1 cnt2"
if [ -n "${TOOLS:-}" ]; then	# a subset, e.g. TOOLS="base ssn btn cnt1 cnt2"
	for t in $TOOLS; do
		[[ " $tools " == *" $t "* ]] || { echo "TOOLS: $t is not one of: $tools" >&2; exit 2; }
	done
	tools=$TOOLS
fi
read -r -a tool_list <<<"$tools"
echo "stackscope graph bench: graph_bench builds, $CALLS calls (and $SMALL), $REPS repetitions, tools interleaved: $tools"
both_sizes() {	# TOOL REP
	one "$1" "$SMALL"
	one "$1" "$CALLS"
}
bench_rounds both_sizes : "${tool_list[@]}"

# ---- the breakdown runs (not timed) -----------------------------------------
echo "  breakdown: $REPS runs of stackscope graph -v on graph_bench.nop5"
for ((rep = 1; rep <= REPS; rep++)); do
	run_job "$SS" graph -v --func small -o "$tmp/v.txt" -- "$WLN" "$CALLS" </dev/null >/dev/null 2>"$tmp/v.err" || {
		echo "    graph -v failed: $(grep -v RLIMIT_MEMLOCK "$tmp/v.err" | tail -n 2)"
		continue
	}
	# "BPF program on_entry: N runs, X ns each", "... user space: ..., Y ns per call"
	sed -n 's/.*BPF program on_entry: .* \([0-9]*\) ns each/\1/p' "$tmp/v.err" >>"$tmp/results.bpf_entry"
	sed -n 's/.*BPF program on_exit: .* \([0-9]*\) ns each/\1/p' "$tmp/v.err" >>"$tmp/results.bpf_exit"
	sed -n 's/.*graph in user space: .* \([0-9]*\) ns per call/\1/p' "$tmp/v.err" >>"$tmp/results.user"
done
rm -f "$tmp/v.txt"
fastpath=""
if [ -n "$BPFTRACE" ]; then
	bench_mount_tracefs "counting the uprobe system calls"
	n=$((CALLS / 10))
	comm=$(basename "$WLN" | cut -c1-15)	# the kernel keeps 15 bytes of a name
	"$BPFTRACE" -e "tracepoint:raw_syscalls:sys_enter /comm == \"$comm\" && (args->id == 335 || args->id == 336)/ { @[args->id] = count(); }" \
		</dev/null >"$tmp/sc.out" 2>"$tmp/sc.err" &
	sc=$!
	# attached once it says so (bpftrace prints "Attaching N probes...")
	for _ in $(seq 300); do grep -q Attaching "$tmp/sc.out" 2>/dev/null && break; sleep 0.1; done
	"$SS" graph --func small -o "$tmp/sc.txt" -- "$WLN" "$n" </dev/null >/dev/null 2>&1
	kill -INT "$sc" 2>/dev/null
	wait "$sc" 2>/dev/null
	up=$(sed -n 's/^@\[336\]: //p' "$tmp/sc.out")
	ur=$(sed -n 's/^@\[335\]: //p' "$tmp/sc.out")
	fastpath="graph on graph_bench.nop5, $n calls: $(fmt_n "${up:-0}") uprobe system calls (the entry through the trampoline), $(fmt_n "${ur:-0}") uretprobe system calls (the return through the syscall trampoline)"
	rm -f "$tmp/sc.txt"
fi

# ---- figures -----------------------------------------------------------------
declare -A ns wall
for t in base sys ss ssn ssp ssc uftrace bt btn cnt1 cnt2; do
	big=$(median 2>/dev/null <"$tmp/results.$t.$CALLS" || echo nan)
	small=$(median 2>/dev/null <"$tmp/results.$t.$SMALL" || echo nan)
	wall[$t]=$big
	if isnum "$big" && isnum "$small"; then
		ns[$t]=$(calc "($big - $small) * 1e9 / ($CALLS - $SMALL)")
	else
		ns[$t]=nan
	fi
done
for t in ss ssn ssp ssc uftrace bt btn cnt1 cnt2; do	# the tracer's own cost: minus the untraced call
	isnum "${ns[$t]}" && isnum "${ns[base]}" && ns[$t]=$(calc "${ns[$t]} - ${ns[base]}")
done
for t in bpf_entry bpf_exit user; do ns[$t]=$(median 2>/dev/null <"$tmp/results.$t" || echo nan); done

fmt_ns() { isnum "$1" && awk -v v="$1" 'BEGIN { printf(v < 100 && v > -100 ? "%.1f ns" : "%.0f ns", v) }' || echo n/a; }
fmt_us() { isnum "$1" && awk -v v="$1" 'BEGIN { printf(v < 10000 && v > -10000 ? "%.2f us" : "%.1f us", v / 1000) }' || echo n/a; }
ratio() { local r; r=$(fmt_r "$1" "$2"); [ "$r" = n/a ] && echo n/a || echo "${r}x"; }
minus() { isnum "$1" && isnum "$2" && calc "$1 - $2" || echo nan; }
plus() { isnum "$1" && isnum "$2" && calc "$1 + $2" || echo nan; }
row() { printf '%-40s %-13s %-13s %-13s %-13s\n' "$@"; }
echo
echo "Added per call (entry + return), by build of graph_bench:"
row "" "plain (lea)" "-mnop-mcount" "gcc pfe=5" "clang pfe=5"
row "stackscope graph" "$(fmt_us "${ns[ss]}")" "$(fmt_us "${ns[ssn]}")" "$(fmt_us "${ns[ssp]}")" "$(fmt_us "${ns[ssc]}")"
row "  vs its plain build" "1x" "$(ratio "${ns[ssn]}" "${ns[ss]}")" "$(ratio "${ns[ssp]}" "${ns[ss]}")" "$(ratio "${ns[ssc]}" "${ns[ss]}")"
row "bpftrace uprobe+uretprobe (hist)" "$(fmt_us "${ns[bt]}")" "$(fmt_us "${ns[btn]}")" "" ""
row "  stackscope vs bpftrace" "$(ratio "${ns[ss]}" "${ns[bt]}")" "$(ratio "${ns[ssn]}" "${ns[btn]}")" "" ""
row "uftrace record (-pg build)" "$(fmt_us "${ns[uftrace]}")" "" "" ""
row "  stackscope vs uftrace" "$(ratio "${ns[ss]}" "${ns[uftrace]}")" "$(ratio "${ns[ssn]}" "${ns[uftrace]}")" "" ""
row "wall, $CALLS calls, stackscope" "$(fmt_ms "${wall[ss]}")" "$(fmt_ms "${wall[ssn]}")" "$(fmt_ms "${wall[ssp]}")" "$(fmt_ms "${wall[ssc]}")"
echo
echo "Where a traced call goes (graph_bench.nop5; per call):"
row2() { printf '%-70s %s\n' "$@"; }
row2 "the call itself, untraced" "$(fmt_ns "${ns[base]}")"
row2 "one system call (getppid), for scale" "$(fmt_ns "${ns[sys]}")"
row2 "entry probe: count-only uprobe (bpftrace)" "$(fmt_ns "${ns[cnt1]}")"
row2 "return probe: count-only uprobe+uretprobe minus the above" "$(fmt_ns "$(minus "${ns[cnt2]}" "${ns[cnt1]}")")"
row2 "graph's entry program (record into the ring buffer)" "$(fmt_ns "${ns[bpf_entry]}")"
row2 "graph's return program (record into the ring buffer)" "$(fmt_ns "${ns[bpf_exit]}")"
row2 "graph in all" "$(fmt_ns "${ns[ssn]}")"
row2 "  beyond the count-only pair (programs, ring buffer, reader)" "$(fmt_ns "$(minus "${ns[ssn]}" "${ns[cnt2]}")")"
row2 "  in system calls' worth" "$(fmt_r "${ns[ssn]}" "${ns[sys]}")"
row2 "graph in user space: ring buffer, tree, text (CPU, on another core)" "$(fmt_ns "${ns[user]}")"
[ -n "$fastpath" ] && { echo; echo "$fastpath"; }
echo
runs() { [ -s "$tmp/results.$1.$CALLS" ] && wc -l <"$tmp/results.$1.$CALLS" || echo 0; }
echo "Medians of $REPS repetitions (runs completed at $CALLS calls: untraced $(runs base), stackscope $(runs ss)/$(runs ssn)/$(runs ssp)/$(runs ssc),"
echo "uftrace $(runs uftrace), bpftrace $(runs bt)/$(runs btn)/$(runs cnt1)/$(runs cnt2)); per call = (wall($CALLS) - wall($SMALL)) / $((CALLS - SMALL)),"
echo "less the untraced call's own cost (not for the system call).  BPF program times: the kernel's run-time"
echo "statistics in separate graph -v runs.  stackscope runs at $CALLS calls (calls traced, lost events at worst, functions on the fast path):"
for t in ss ssn ssp ssc; do
	[ -s "$tmp/results.$t.counts" ] || continue
	echo "  $t: $(fmt_n "$(col 1 "$tmp/results.$t.counts" | median)") calls, $(col 2 "$tmp/results.$t.counts" | sort -g | tail -n 1) lost, $(col 3 "$tmp/results.$t.counts" | sort -g | tail -n 1) fast"
done
exit 0
