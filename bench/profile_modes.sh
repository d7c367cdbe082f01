#!/usr/bin/env bash
# shellcheck disable=SC2317  # functions run by lib.sh's bench_rounds look unreachable
# bench/profile_modes.sh BUILD_DIR — `profile` at 999 Hz with each way of
# unwinding user stacks, next to perf record -g and bpftrace, on one
# program built without frame pointers, in one run.
#
#   REPS=5 ROUNDS=400 bench/profile_modes.sh build
#
# The workload is `qsort_cb -n ROUNDS` (tests/workloads/unwind: gcc -O2
# -fomit-frame-pointer; main -> sort_many -> qsort in libc, which has no
# frame pointers either -> msort_with_tmp ... -> cmp_slow): a fixed amount
# of work, after which it prints its own wall and CPU time (user+sys of
# the whole process).  Each tool launches it:
#   ss-kernel  stackscope profile --unwind kernel (the tables walked inside
#              the kernel; a process's first samples, before its tables are
#              loaded, copied)
#   ss-copy    stackscope profile --unwind tables (16 KiB of stack copied
#              per sample into a ring buffer, unwound in user space)
#   ss-fp      stackscope profile --unwind fp (the kernel's frame-pointer walk)
#   perf       perf record -F 999 -g (the same frame-pointer walk, samples
#              written to perf.data)
#   bpftrace   profile:hz:999 /pid == cpid/ { @[kstack, ustack] = count(); }
#              (the same walk, counted in a BPF map)
# With REPS repetitions (default 5), tools interleaved inside each one (the
# order rotates from one repetition to the next), it measures, as medians:
#   1. the workload's slowdown: its own CPU time and wall time for the fixed
#      work, as ratios to the untraced run of the same repetition.  The
#      sampling interrupt, where the BPF programs and perf's own sampling
#      run, is charged to the workload: this is where a copy or an unwind
#      per sample shows;
#   2. the tool's CPU: user+sys of the whole tool run (/usr/bin/time: the
#      tool and every child it waited for) minus the workload's own: the
#      tool's process from start-up to its report (for perf, writing
#      perf.data and its build-id pass, not perf script);
#   3. bytes per sample: stackscope's own count of what it read from its
#      ring buffers (-v; the rest of a sample stays in the kernel's maps),
#      perf.data's size over perf's samples; bpftrace keeps its stacks in
#      a map (0 through a ring buffer);
#   4. chain completeness: of the samples in cmp_slow, the share whose
#      folded stack also holds sort_many (unwound through libc's qsort up
#      to the program), the share of all samples that reach _start, and
#      the mean number of user frames a sample has.  bpftrace prints its
#      map after the workload has exited, so its user frames are bare
#      addresses: only their number is measured (it walks frame pointers
#      as perf -g does).
# The machine is noisy: read the ratios, not the absolute times; it exits 0
# whatever it measures (non-zero only when it cannot run at all).
#
# Needs root (BPF, perf events), /usr/bin/time, and the build: `make` and
# `make workloads` (or `make bench`, which also installs perf and bpftrace).
# A missing perf or bpftrace is skipped, not fatal.
set -uo pipefail

usage() { echo "usage: [REPS=N] [ROUNDS=N] $0 BUILD_DIR" >&2; exit 2; }
[ $# -le 1 ] || usage
case "${1:-}" in -h|--help) usage ;; esac
BUILD=${1:-build}
REPS=${REPS:-5}
ROUNDS=${ROUNDS:-400}
HZ=999
case "$REPS" in '' | *[!0-9]* | 0) echo "REPS must be a positive integer" >&2; exit 2 ;; esac
case "$ROUNDS" in '' | *[!0-9]* | 0) echo "ROUNDS must be a positive integer" >&2; exit 2 ;; esac

here=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "$BUILD" 2>/dev/null && pwd) || { echo "no build directory ${1:-build}" >&2; exit 1; }
SS=$BUILD/stackscope
WL=$BUILD/tests/workloads/unwind/qsort_cb
BT_PROG='profile:hz:999 /pid == cpid/ { @[kstack, ustack] = count(); }'

# shellcheck source=bench/lib.sh
. "$here/lib.sh"
bench_require "$SS" "$WL"
fsize() { stat -c %s -- "$1" 2>/dev/null; }

# bt_frames OUT: "samples user_frames_per_sample" of bpftrace's printout of
# @[kstack, ustack]: an entry is "@[", kernel frames, ", ", user frames,
# "]: COUNT".
bt_frames() {
	awk '/^@\[/ { user = 0; u = 0; if ($0 ~ /^@\[, *$/) user = 1; next }
		/^, *$/ { user = 1; next }
		/^\]: [0-9]+$/ { c = $2; all += c; uf += u * c; user = 0; next }
		user && NF { u++ }
		END { if (all > 0) printf "%d %.3f\n", all, uf / all }' "$1"
}

# ---- which tools are there --------------------------------------------------
bench_tools perf bpftrace

bench_private_home

preflight stackscope "$SS" profile -F "$HZ" -o "$tmp/pre.folded" -- "$WL" -n 2 ||
	{ echo "stackscope itself fails: nothing to compare" >&2; exit 1; }
[ -z "$PERF" ] || preflight perf "$PERF" record -q -F "$HZ" -g -o "$tmp/pre.data" -- "$WL" -n 2 || PERF=""
[ -z "$BPFTRACE" ] || preflight bpftrace "$BPFTRACE" -e "$BT_PROG" -c "$WL -n 2" || BPFTRACE=""
rm -f "$tmp"/pre.*

tools="base ss-kernel ss-copy ss-fp"
[ -n "$PERF" ] && tools="$tools perf"
[ -n "$BPFTRACE" ] && tools="$tools bpftrace"
read -r -a tool_list <<<"$tools"

# workload_line NAME REP: the workload's "qsort_cb: R rounds, W s wall, C s
# cpu" from that run's stderr, as "REP W C" into results.NAME.wl
workload_line() {
	sed -n 's/^qsort_cb: [0-9]* rounds, \([0-9.]*\) s wall, \([0-9.]*\) s cpu$/'"$2"' \1 \2/p' \
		"$tmp/$1.$2.err" >>"$tmp/results.$1.wl"
}

pp=$(perf_fold_script)
after_rep() {	# REP: perf.data -> folded (not timed), chains, then removed
	local rep=$1 share
	[ -s "$tmp/perf.$rep.data" ] || return 0
	if run_job bash "$pp" "$tmp/perf.$rep.data" "$tmp/perf.$rep.folded" </dev/null >/dev/null 2>&1; then
		share=$(chain_share "$tmp/perf.$rep.folded")
		[ -n "$share" ] && echo "$rep $share" >>"$tmp/results.perf.chain"
	fi
	rm -f "$tmp/perf.$rep.data" "$tmp/perf.$rep.folded"
}

one() {	# TOOL REP
	local t=$1 rep=$2 share mode
	case $t in
	base)
		time_run base "$rep" "$WL" -n "$ROUNDS" && workload_line base "$rep" ;;
	ss-*)
		mode=${t#ss-}
		[ "$mode" = copy ] && mode=tables
		time_run "$t" "$rep" "$SS" profile -F "$HZ" -v --unwind "$mode" -o "$tmp/$t.$rep.folded" \
			-- "$WL" -n "$ROUNDS" || return
		workload_line "$t" "$rep"
		# "ring buffers: N bytes read, X per sample (...)"
		sed -n 's/.*ring buffers: [0-9]* bytes read, \([0-9.]*\) per sample.*/'"$rep"' \1/p' \
			"$tmp/$t.$rep.err" >>"$tmp/results.$t.bps"
		sed -n 's/^stackscope profile: \([0-9]*\) samples.*/'"$rep"' \1/p' "$tmp/$t.$rep.err" \
			>>"$tmp/results.$t.samples"
		sed -n 's/.* \([0-9]*\) stacks unwound in the kernel, \([0-9]*\) from snapshots,.*/'"$rep"' \1 \2/p' \
			"$tmp/$t.$rep.err" >>"$tmp/results.$t.kernel"
		share=$(chain_share "$tmp/$t.$rep.folded")
		[ -n "$share" ] && echo "$rep $share" >>"$tmp/results.$t.chain"
		rm -f "$tmp/$t.$rep.folded"
		;;
	perf)
		if ! time_run perf "$rep" "$PERF" record -F "$HZ" -g -o "$tmp/perf.$rep.data" -- "$WL" -n "$ROUNDS"; then
			rm -f "$tmp/perf.$rep.data"
			return
		fi
		workload_line perf "$rep"
		local n
		n=$(sed -n 's/.*(\([0-9]*\) samples).*/\1/p' "$tmp/perf.$rep.err" | tail -n 1)
		if isnum "$n" && [ "$n" -gt 0 ]; then
			echo "$rep $n" >>"$tmp/results.perf.samples"
			echo "$rep $(awk -v b="$(fsize "$tmp/perf.$rep.data")" -v n="$n" 'BEGIN { printf "%.1f", b / n }')" \
				>>"$tmp/results.perf.bps"
		fi
		;;
	bpftrace)	# bpftrace splits -c on spaces
		time_run bpftrace "$rep" "$BPFTRACE" -o "$tmp/bt.$rep.out" -e "$BT_PROG" -c "$WL -n $ROUNDS" || return
		workload_line bpftrace "$rep"
		share=$(bt_frames "$tmp/bt.$rep.out")
		[ -n "$share" ] && echo "$rep $share" >>"$tmp/results.bpftrace.frames"
		rm -f "$tmp/bt.$rep.out"
		;;
	esac
}

echo "stackscope profile modes bench: $(basename "$WL") -n $ROUNDS (fixed work, no frame pointers) at $HZ Hz,"
echo "$REPS repetitions, tools interleaved: $tools"
bench_rounds one after_rep "${tool_list[@]}"

# per repetition against the untraced run of the same repetition:
# wlratio NAME COLUMN: the workload's column (2 wall, 3 cpu) over base's
wlratio() { paired "$1.wl" "$2" 'a / bb' base.wl | median; }
# toolcpu NAME: the whole run's user+sys minus the workload's own
toolcpu() {
	if [ ! -s "$tmp/results.$1" ] || [ ! -s "$tmp/results.$1.wl" ]; then
		echo nan
		return
	fi
	awk 'NR == FNR { w[$1] = $3; next } ($1 in w) { print $3 - w[$1] }' \
		"$tmp/results.$1.wl" "$tmp/results.$1" | median
}

declare -A slow_cpu slow_wall tcpu bps samples whole cmpn start frames
for t in ss-kernel ss-copy ss-fp perf bpftrace; do
	slow_cpu[$t]=$(wlratio "$t" 3)
	slow_wall[$t]=$(wlratio "$t" 2)
	tcpu[$t]=$(toolcpu "$t")
	bps[$t]=$(col 2 "$tmp/results.$t.bps" | median)
	samples[$t]=$(col 2 "$tmp/results.$t.samples" | median)
	whole[$t]=$(col 2 "$tmp/results.$t.chain" | median)
	cmpn[$t]=$(col 3 "$tmp/results.$t.chain" | median)
	start[$t]=$(col 4 "$tmp/results.$t.chain" | median)
	frames[$t]=$(col 5 "$tmp/results.$t.chain" | median)
done
[ -n "$BPFTRACE" ] && { bps[bpftrace]=0; samples[bpftrace]=$(col 2 "$tmp/results.bpftrace.frames" | median)
	frames[bpftrace]=$(col 3 "$tmp/results.bpftrace.frames" | median); }
kin=$(col 2 "$tmp/results.ss-kernel.kernel" | median)
kcopies=$(col 3 "$tmp/results.ss-kernel.kernel" | median)

# ---- the table ---------------------------------------------------------------
fmt_bps() { isnum "$1" && awk -v v="$1" 'BEGIN { printf(v < 1024 ? "%.0f B" : "%.1f KiB", v < 1024 ? v : v / 1024) }' || echo n/a; }
fmt_f() { isnum "$1" && awk -v v="$1" 'BEGIN { printf "%.1f", v }' || echo n/a; }
row() { printf '%-34s %-11s %-11s %-11s %-11s %-11s %s\n' "$@"; }
echo
row metric "ss kernel" "ss copies" "ss fp" "perf -g" bpftrace "kernel/copies"
row "workload CPU, vs untraced" "$(fmt_x "${slow_cpu[ss-kernel]}")" "$(fmt_x "${slow_cpu[ss-copy]}")" \
	"$(fmt_x "${slow_cpu[ss-fp]}")" "$(fmt_x "${slow_cpu[perf]}")" "$(fmt_x "${slow_cpu[bpftrace]}")" \
	"$(fmt_r "${slow_cpu[ss-kernel]}" "${slow_cpu[ss-copy]}")"
row "workload wall, vs untraced" "$(fmt_x "${slow_wall[ss-kernel]}")" "$(fmt_x "${slow_wall[ss-copy]}")" \
	"$(fmt_x "${slow_wall[ss-fp]}")" "$(fmt_x "${slow_wall[perf]}")" "$(fmt_x "${slow_wall[bpftrace]}")" \
	"$(fmt_r "${slow_wall[ss-kernel]}" "${slow_wall[ss-copy]}")"
row "tool CPU (run - workload's own)" "$(fmt_ms "${tcpu[ss-kernel]}")" "$(fmt_ms "${tcpu[ss-copy]}")" \
	"$(fmt_ms "${tcpu[ss-fp]}")" "$(fmt_ms "${tcpu[perf]}")" "$(fmt_ms "${tcpu[bpftrace]}")" \
	"$(fmt_r "${tcpu[ss-kernel]}" "${tcpu[ss-copy]}")"
row "bytes per sample" "$(fmt_bps "${bps[ss-kernel]}")" "$(fmt_bps "${bps[ss-copy]}")" \
	"$(fmt_bps "${bps[ss-fp]}")" "$(fmt_bps "${bps[perf]}")" "$(fmt_bps "${bps[bpftrace]}")" \
	"$(fmt_r "${bps[ss-kernel]}" "${bps[ss-copy]}")"
row "samples" "$(fmt_n "${samples[ss-kernel]}")" "$(fmt_n "${samples[ss-copy]}")" "$(fmt_n "${samples[ss-fp]}")" \
	"$(fmt_n "${samples[perf]}")" "$(fmt_n "${samples[bpftrace]}")" ""
row "cmp_slow samples" "$(fmt_n "${cmpn[ss-kernel]}")" "$(fmt_n "${cmpn[ss-copy]}")" "$(fmt_n "${cmpn[ss-fp]}")" \
	"$(fmt_n "${cmpn[perf]}")" "n/a" ""
row "  with sort_many: whole chain" "$(fmt_pct "${whole[ss-kernel]}")" "$(fmt_pct "${whole[ss-copy]}")" \
	"$(fmt_pct "${whole[ss-fp]}")" "$(fmt_pct "${whole[perf]}")" "n/a" ""
row "all samples: up to _start" "$(fmt_pct "${start[ss-kernel]}")" "$(fmt_pct "${start[ss-copy]}")" \
	"$(fmt_pct "${start[ss-fp]}")" "$(fmt_pct "${start[perf]}")" "n/a" ""
row "user frames per sample" "$(fmt_f "${frames[ss-kernel]}")" "$(fmt_f "${frames[ss-copy]}")" \
	"$(fmt_f "${frames[ss-fp]}")" "$(fmt_f "${frames[perf]}")" "$(fmt_f "${frames[bpftrace]}")" \
	"$(fmt_r "${frames[ss-kernel]}" "${frames[ss-copy]}")"
echo
runs() { [ -s "$tmp/results.$1.wl" ] && wc -l <"$tmp/results.$1.wl" || echo 0; }
echo "Medians of $REPS repetitions; runs completed: untraced $(runs base), kernel $(runs ss-kernel), copies $(runs ss-copy),"
echo "fp $(runs ss-fp), perf $(runs perf), bpftrace $(runs bpftrace).  Untraced: $(fmt_ms "$(col 3 "$tmp/results.base.wl" | median)") CPU,"
echo "$(fmt_ms "$(col 2 "$tmp/results.base.wl" | median)") wall for $ROUNDS rounds (the workload's own clocks)."
echo "--unwind kernel: $(fmt_n "$kin") stacks unwound in the kernel, $(fmt_n "$kcopies") copied (the samples before"
echo "the process was loaded); its bytes per sample are those copies and the load requests."
echo "perf's bytes are perf.data over its samples (headers, side-band records and build ids included)."
exit 0
