#!/usr/bin/env bash
# bench/lang_list.sh BUILD_DIR — `stackscope -l`/`-lv` next to `bpftrace -l`/
# `-lv`, the whole process, interleaved in one run.
#
#   BENCH_REPS=7 bench/lang_list.sh build
#
# Both list from tracefs: it is mounted for the run in a private mount
# namespace (bpftrace does not mount it, and the machine may have it
# unmounted), so neither pays for a mount.  Cases:
#   tp-v   -lv tracepoint:syscalls:sys_enter_openat   (one format file)
#   tp-all -l 'tracepoint:*'                          (every event)
#   rt-v   -lv rawtracepoint:sched_switch             (BTF; bpftrace 0.17
#          has no rawtracepoint listing: stackscope alone)
# Prints, per case, the median wall ms of each tool over BENCH_REPS runs
# (the order alternates), and stackscope/bpftrace.  The machine is noisy:
# read the ratio.  Exits 0 whatever it measures.
set -uo pipefail

build=${1:-build}
SS=$(cd "$build" 2>/dev/null && pwd)/stackscope
reps=${BENCH_REPS:-7}
[ -x "$SS" ] || { echo "missing $SS: run make" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "needs root (tracefs, BTF)" >&2; exit 1; }
BPFTRACE=$(command -v bpftrace || true)
[ -n "$BPFTRACE" ] || echo "bpftrace missing (Debian package bpftrace): stackscope alone"

if [ -z "${LANG_LIST_BENCH_NS:-}" ]; then
	exec env LANG_LIST_BENCH_NS=1 unshare -m --propagation private "$0" "$@"
fi
mountpoint -q /sys/kernel/tracing || mount -t tracefs none /sys/kernel/tracing ||
	{ echo "cannot mount tracefs" >&2; exit 1; }

# ms CMD...: wall milliseconds of one run (output thrown away)
ms() {
	local t0 t1
	t0=$(date +%s%N)
	"$@" >/dev/null 2>&1
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000))
}
median() { sort -n | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "-" }'; }

run_case() {
	local name=$1 ss_args=$2 bt_args=$3 i a b
	: >"/tmp/lang_list.$$.a"
	: >"/tmp/lang_list.$$.b"
	for ((i = 0; i < reps; i++)); do
		if ((i % 2)); then
			[ -n "$bt_args" ] && [ -n "$BPFTRACE" ] && ms $BPFTRACE $bt_args >>"/tmp/lang_list.$$.b"
			ms "$SS" $ss_args >>"/tmp/lang_list.$$.a"
		else
			ms "$SS" $ss_args >>"/tmp/lang_list.$$.a"
			[ -n "$bt_args" ] && [ -n "$BPFTRACE" ] && ms $BPFTRACE $bt_args >>"/tmp/lang_list.$$.b"
		fi
	done
	a=$(median <"/tmp/lang_list.$$.a")
	b=$(median <"/tmp/lang_list.$$.b")
	rm -f "/tmp/lang_list.$$.a" "/tmp/lang_list.$$.b"
	if [ "$b" != - ] && [ "$b" -gt 0 ]; then
		printf '%-8s stackscope %6s ms   bpftrace %6s ms   ratio %s\n' "$name" "$a" "$b" \
			"$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", a / b }')"
	else
		printf '%-8s stackscope %6s ms\n' "$name" "$a"
	fi
}

echo "median wall of $reps runs each (private tracefs mount)"
run_case tp-v "-lv tracepoint:syscalls:sys_enter_openat" "-lv tracepoint:syscalls:sys_enter_openat"
run_case tp-all "-l tracepoint:*" "-l tracepoint:*"
run_case rt-v "-lv rawtracepoint:sched_switch" ""
exit 0
