#!/usr/bin/env bash
# shellcheck disable=SC2317  # functions run by lib.sh's bench_rounds look unreachable
# bench/unwind.sh BUILD_DIR — stackscope profile next to perf record
# --call-graph dwarf, unwinding the user stacks of a program built without
# frame pointers, in one run.
#
#   REPS=5 bench/unwind.sh build
#
# The workload is tests/workloads/unwind/qsort_cb 4 (gcc -O2
# -fomit-frame-pointer: main -> sort_many -> qsort, in libc, which has no
# frame pointers either -> msort_with_tmp ... -> cmp_slow; it stops itself
# after 4 s), sampled at 999 Hz by
#   stackscope profile -F 999 -o X.folded -- CMD      (copies 16 KiB of stack
#       per sample into a ring buffer, unwound at once in user space)
#   perf record -F 999 --call-graph dwarf -o X.data -- CMD   (8 KiB copies,
#       written to perf.data, unwound later by perf script)
#   stackscope profile --unwind kernel ...   (the same tables walked inside
#       the kernel: only frame addresses stored; a process's first samples,
#       before its tables are loaded, copied as above)
#   perf record ... --call-graph dwarf,16384 (the same 16 KiB as stackscope;
#       PERF16=0 leaves it out)
# With REPS repetitions (default 5), tools interleaved inside each one (the
# order rotates from one repetition to the next) so that the machine's noise
# is spread over all of them, it measures:
#   1. the workload's slowdown, as profile.sh does: wall time of the whole run
#      as a ratio to the untraced workload, and the CPU time the profiler adds
#      (user+sys of the whole tool run minus the untraced run's).  qsort_cb
#      runs for a fixed wall time, not a fixed amount of work, and counts
#      nothing: the wall ratio is the tool's start-up and wind-down, and the
#      stack copies made in the sampling interrupt are charged to the
#      workload, whose user+sys stays ~4 s; neither metric holds them (see
#      time_run);
#   2. bytes: perf.data's size; stackscope writes nothing during the run, its
#      stack copies cross a ring buffer, from which they are unwound and
#      dropped: their volume is estimated (see mean_dyn_size), and both
#      tools' folded outputs are measured;
#   3. the time from the end of sampling to a folded file: stackscope's own
#      `report written X s after the end of capture` (-v); for perf,
#      `perf script | stackcollapse-perf.awk` into a file, timed together
#      (hyperfine, 3 runs, or /usr/bin/time once);
#   4. correctness: of the samples with cmp_slow on the stack, the share whose
#      folded stack also holds sort_many, i.e. unwound through qsort in libc
#      up to the program; and the share of all samples unwound up to _start.
# and prints medians and ratios.  The machine is noisy: read the ratios, not
# the absolute times; it exits 0 whatever it measures (non-zero only when it
# cannot run at all).
#
# Needs root (BPF, perf events), /usr/bin/time, and the build: `make` and
# `make workloads` (or `make bench`, which also installs perf and hyperfine).
# A missing perf or hyperfine is skipped, not fatal.
set -uo pipefail

usage() { echo "usage: [REPS=N] [PERF16=0] $0 BUILD_DIR" >&2; exit 2; }
[ $# -le 1 ] || usage
case "${1:-}" in -h|--help) usage ;; esac
BUILD=${1:-build}
REPS=${REPS:-5}
PERF16=${PERF16:-1}
HZ=999
SECS=4			# the workload's length: `qsort_cb 4`
SS_STACK=16384		# stackscope's default --stack-size
# One ring-buffer record is the stack bytes copied plus struct
# profile_snapshot (src/bpf/profile.h, 64 bytes) plus the ring buffer's own
# 8-byte record header.
SNAP_HDR=72
case "$REPS" in '' | *[!0-9]* | 0) echo "REPS must be a positive integer" >&2; exit 2 ;; esac

here=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "$BUILD" 2>/dev/null && pwd) || { echo "no build directory ${1:-build}" >&2; exit 1; }
SS=$BUILD/stackscope
WL=$BUILD/tests/workloads/unwind/qsort_cb


# shellcheck source=bench/lib.sh
. "$here/lib.sh"
bench_require "$SS" "$WL"
fsize() { stat -c %s -- "$1" 2>/dev/null; }

# ---- which tools are there --------------------------------------------------
bench_tools perf hyperfine

bench_private_home

preflight stackscope "$SS" profile -F "$HZ" -o "$tmp/pre.folded" -- "$WL" 0.2 ||
	{ echo "stackscope itself fails: nothing to compare" >&2; exit 1; }
[ -z "$PERF" ] || preflight perf "$PERF" record -q -F "$HZ" --call-graph dwarf -o "$tmp/pre.data" -- "$WL" 0.2 || PERF=""
rm -f "$tmp"/pre.*

tools="base ss ssk"
[ -n "$PERF" ] && tools="$tools perf"
[ -n "$PERF" ] && [ "$PERF16" != 0 ] && tools="$tools perf16"
read -r -a tool_list <<<"$tools"

# ---- the 4 s workload, REPS interleaved repetitions ------------------------
# Each run goes through `/usr/bin/time -f '%e %U %S'`: wall time (10 ms
# resolution, 0.25% of the run), and user+sys of the tool and every child it
# waited for, the workload included.  results.NAME gets "rep wall cpu" lines.
#
# About the CPU metric: a BPF program, like perf's own sampling, runs in the
# timer interrupt of the CPU it samples, i.e. in the workload's context when
# the workload is on that CPU, and that time is accounted to the workload's
# time, not to the profiler's process.  Here that is where both tools copy
# the user stack (up to 8 or 16 KiB a sample).  And qsort_cb runs for a fixed
# wall time, so its user+sys stays ~4 s whatever the sampling steals from it.
# The difference measured is therefore the profiler's own process (for
# stackscope: draining the ring buffer and unwinding every snapshot, then
# symbolizing and writing; for perf: writing perf.data, then its build-id
# pass) plus start-up, not the in-interrupt copies.

# Metric 3 for perf: perf script | fold into a file, together.
pp=$(perf_fold_script)
perf_to_folded() {	# NAME REP: time the conversion of that run's perf.data
	local name=$1 rep=$2 share
	local out=$tmp/$name.$rep.folded
	if time_conversion "$name.tofold" "$rep" 3 "perf script + fold ($name)" "$pp" \
		"$tmp/$name.$rep.data" "$out"; then
		echo "$rep $(fsize "$out")" >>"$tmp/results.$name.foldsize"
		share=$(chain_share "$out" | awk '$2 > 0')
		[ -n "$share" ] && echo "$rep $share" >>"$tmp/results.$name.chain"
	fi
	rm -f "$out"
}

# The size of stackscope's stack copies is not printed; it is the user
# stack from sp to the end of its mapping, at most --stack-size.  perf's
# dwarf records hold exactly that quantity ("dyn_size": what the kernel
# could copy from sp, at most the requested size), for the same workload
# with the same environment: with 16 KiB requested, their mean estimates
# stackscope's.  The kernel starts each process's stack at a random offset
# in its top pages, so this varies from run to run by up to 8 KiB: the mean
# of every perf dwarf,16384 run is taken, read with `perf report -D` (slow,
# after the repetition's timed runs).  Prints the mean, nothing when it
# cannot.
dd=$tmp/dyn-size.sh
cat >"$dd" <<EOF
#!/bin/bash
# \$1 = perf.data: prints the mean "ustack: size" of its samples
$(q "${PERF:-perf}") report -D -i "\$1" 2>/dev/null |
	awk '/^ *\.\.\. ustack: size / { v = \$4; sub(/,\$/, "", v); s += v; n++ }
		END { if (n > 0) printf "%.1f\n", s / n }'
EOF
mean_dyn_size() {	# PERF.DATA
	rm -f "$tmp/dyn"
	run_job bash "$dd" "$1" </dev/null >"$tmp/dyn" 2>/dev/null
	cat "$tmp/dyn" 2>/dev/null
}

one() {	# TOOL REP
	local t=$1 rep=$2 err
	case $t in
	base) time_run base "$rep" "$WL" "$SECS" ;;
	ss)
		# -v only adds a few lines on stderr, among them the report timing
		time_run ss "$rep" "$SS" profile -F "$HZ" -v -o "$tmp/ss.$rep.folded" -- "$WL" "$SECS" || return
		err=$tmp/ss.$rep.err
		sed -n 's/.*report written \([0-9.]*\) s after the end of capture.*/'"$rep"' \1/p' "$err" >>"$tmp/results.ss.tofold"
		sed -n 's/^stackscope profile: \([0-9]*\) samples.*/'"$rep"' \1/p' "$err" >>"$tmp/results.ss.samples"
		# "samples N (M snapshots, K not queued: ring full)"
		sed -n 's/.*: samples [0-9]* (\([0-9]*\) snapshots, \([0-9]*\) not queued.*/'"$rep"' \1 \2/p' "$err" >>"$tmp/results.ss.snap"
		# "unwound N snapshots (M more from the cache), F frames, P by frame pointer, T truncated; ..."
		sed -n 's/.*unwound \([0-9]*\) snapshots (\([0-9]*\) more from the cache), \([0-9]*\) frames, [0-9]* by frame pointer, \([0-9]*\) truncated.*/'"$rep"' \1 \2 \3 \4/p' \
			"$err" >>"$tmp/results.ss.unwound"
		echo "$rep $(fsize "$tmp/ss.$rep.folded")" >>"$tmp/results.ss.foldsize"
		local share
		share=$(chain_share "$tmp/ss.$rep.folded" | awk '$2 > 0')
		[ -n "$share" ] && echo "$rep $share" >>"$tmp/results.ss.chain"
		rm -f "$tmp/ss.$rep.folded"
		;;
	ssk)
		time_run ssk "$rep" "$SS" profile -F "$HZ" --unwind kernel -v -o "$tmp/ssk.$rep.folded" -- "$WL" "$SECS" || return
		err=$tmp/ssk.$rep.err
		sed -n 's/^stackscope profile: \([0-9]*\) samples.*/'"$rep"' \1/p' "$err" >>"$tmp/results.ssk.samples"
		# "..., N stacks unwound in the kernel, M from snapshots, ..."; "... K misses not told; L loads"
		sed -n 's/.* \([0-9]*\) stacks unwound in the kernel, \([0-9]*\) from snapshots,.*/'"$rep"' \1 \2/p' \
			"$err" >>"$tmp/results.ssk.kernel"
		local kshare
		kshare=$(chain_share "$tmp/ssk.$rep.folded" | awk '$2 > 0')
		[ -n "$kshare" ] && echo "$rep $kshare" >>"$tmp/results.ssk.chain"
		rm -f "$tmp/ssk.$rep.folded"
		;;
	perf | perf16)
		local cg=dwarf
		[ "$t" = perf16 ] && cg=dwarf,16384
		if ! time_run "$t" "$rep" "$PERF" record -F "$HZ" --call-graph "$cg" -o "$tmp/$t.$rep.data" -- "$WL" "$SECS"; then
			rm -f "$tmp/$t.$rep.data"	# a crashed run's file is not converted
			return
		fi
		sed -n 's/.*(\([0-9]*\) samples).*/'"$rep"' \1/p' "$tmp/$t.$rep.err" >>"$tmp/results.$t.samples"
		echo "$rep $(fsize "$tmp/$t.$rep.data")" >>"$tmp/results.$t.datasize"
		;;
	esac
}

echo "stackscope unwind bench: $(basename "$WL") $SECS (no frame pointers, ends by itself) at $HZ Hz, $REPS repetitions, tools interleaved: $tools"
after_rep() {	# REP: perf.data conversions, after the rep's timed runs
	local rep=$1 t d
	for t in perf perf16; do
		[ -s "$tmp/$t.$rep.data" ] || continue
		perf_to_folded "$t" "$rep"
		if [ "$t" = perf16 ]; then
			d=$(mean_dyn_size "$tmp/$t.$rep.data")
			[ -n "$d" ] && echo "$rep $d" >>"$tmp/results.perf16.dyn"
		fi
		rm -f "$tmp/$t.$rep.data"
	done
}
bench_rounds one after_rep "${tool_list[@]}"

declare -A wall cpu tofold samples datasize foldsize chain chaincnt whole
for t in ss ssk perf perf16; do
	wall[$t]=$(paired "$t" 2 'a / bb' | median)
	cpu[$t]=$(paired "$t" 3 'a - bb' | median)
	tofold[$t]=$(col 2 "$tmp/results.$t.tofold" | median)
	samples[$t]=$(col 2 "$tmp/results.$t.samples" | median)
	datasize[$t]=$(col 2 "$tmp/results.$t.datasize" | median)
	foldsize[$t]=$(col 2 "$tmp/results.$t.foldsize" | median)
	chain[$t]=$(col 2 "$tmp/results.$t.chain" | median)
	chaincnt[$t]=$(col 3 "$tmp/results.$t.chain" | median)
	whole[$t]=$(col 4 "$tmp/results.$t.chain" | median)
done
base_wall=$(col 2 "$tmp/results.base" | median)
base_cpu=$(col 3 "$tmp/results.base" | median)
snaps=$(col 2 "$tmp/results.ss.snap" | median)
ringfull=$(col 3 "$tmp/results.ss.snap" | median)
cache_hits=$(col 3 "$tmp/results.ss.unwound" | median)
truncated=$(col 5 "$tmp/results.ss.unwound" | median)
dyn=$(col 2 "$tmp/results.perf16.dyn" | median)
# ring_bytes: snapshots x (record header + stack bytes), the stack bytes
# estimated from perf's (see mean_dyn_size), else only the upper bound
ring_max=nan ring_est=nan
if isnum "$snaps"; then
	ring_max=$(awk -v s="$snaps" -v h="$SNAP_HDR" -v b="$SS_STACK" 'BEGIN { printf "%.0f\n", s * (h + b) }')
	isnum "$dyn" && ring_est=$(awk -v s="$snaps" -v h="$SNAP_HDR" -v d="$dyn" \
		'BEGIN { printf "%.0f\n", s * (h + int((d + 7) / 8) * 8) }')
fi

# bytes through the ring buffers per sample: the default's copies (the
# estimate above over its samples); --unwind kernel's copies (its fallbacks,
# at the same estimated size) and its load requests (32 B each at most, one
# per fallback: an upper bound) over its samples
kernel_n=$(col 2 "$tmp/results.ssk.kernel" | median)
kernel_snaps=$(col 3 "$tmp/results.ssk.kernel" | median)
per_ss=nan per_ssk=nan
isnum "$ring_est" && isnum "${samples[ss]}" &&
	per_ss=$(awk -v r="$ring_est" -v n="${samples[ss]}" 'BEGIN { printf "%.0f\n", r / n }')
if isnum "$kernel_snaps" && isnum "${samples[ssk]}"; then
	per_copy=$SS_STACK
	isnum "$dyn" && per_copy=$(awk -v d="$dyn" 'BEGIN { printf "%d\n", int((d + 7) / 8) * 8 }')
	per_ssk=$(awk -v f="$kernel_snaps" -v n="${samples[ssk]}" -v h="$SNAP_HDR" -v c="$per_copy" \
		'BEGIN { printf "%.0f\n", f * (h + c + 32) / n }')
fi

# ---- the table ---------------------------------------------------------------
row() { printf '%-36s %-13s %-13s %-16s %-10s %s\n' "$@"; }
echo
row metric stackscope "perf dwarf" "perf dwarf,16384" "ss/perf" "ss/perf16"
row "wall, $SECS s workload @$HZ Hz" "$(fmt_x "${wall[ss]}")" "$(fmt_x "${wall[perf]}")" "$(fmt_x "${wall[perf16]}")" \
	"$(fmt_r "${wall[ss]}" "${wall[perf]}")" "$(fmt_r "${wall[ss]}" "${wall[perf16]}")"
row "profiler CPU (user+sys - untraced)" "$(fmt_ms "${cpu[ss]}")" "$(fmt_ms "${cpu[perf]}")" "$(fmt_ms "${cpu[perf16]}")" \
	"$(fmt_r "${cpu[ss]}" "${cpu[perf]}")" "$(fmt_r "${cpu[ss]}" "${cpu[perf16]}")"
row "written during the run" "0 B" "$(fmt_b "${datasize[perf]}")" "$(fmt_b "${datasize[perf16]}")" "" ""
row "stack copies via ring buffer (est.)" "$(fmt_b "$ring_est")" "n/a" "n/a" "$(fmt_r "$ring_est" "${datasize[perf]}")" \
	"$(fmt_r "$ring_est" "${datasize[perf16]}")"
row "folded output" "$(fmt_b "${foldsize[ss]}")" "$(fmt_b "${foldsize[perf]}")" "$(fmt_b "${foldsize[perf16]}")" \
	"$(fmt_r "${foldsize[ss]}" "${foldsize[perf]}")" "$(fmt_r "${foldsize[ss]}" "${foldsize[perf16]}")"
row "end of sampling -> folded written" "$(fmt_ms "${tofold[ss]}")" "$(fmt_ms "${tofold[perf]}")" "$(fmt_ms "${tofold[perf16]}")" \
	"$(fmt_r "${tofold[ss]}" "${tofold[perf]}")" "$(fmt_r "${tofold[ss]}" "${tofold[perf16]}")"
row "samples captured" "$(fmt_n "${samples[ss]}")" "$(fmt_n "${samples[perf]}")" "$(fmt_n "${samples[perf16]}")" \
	"$(fmt_r "${samples[ss]}" "${samples[perf]}")" "$(fmt_r "${samples[ss]}" "${samples[perf16]}")"
row "cmp_slow samples" "$(fmt_n "${chaincnt[ss]}")" "$(fmt_n "${chaincnt[perf]}")" "$(fmt_n "${chaincnt[perf16]}")" "" ""
row "  with sort_many: whole chain" "$(fmt_pct "${chain[ss]}")" "$(fmt_pct "${chain[perf]}")" "$(fmt_pct "${chain[perf16]}")" \
	"" ""
row "all samples: stack up to _start" "$(fmt_pct "${whole[ss]}")" "$(fmt_pct "${whole[perf]}")" "$(fmt_pct "${whole[perf16]}")" \
	"" ""
echo
row "unwind mode" "auto (default)" "kernel" "" "kernel/auto" ""
row "wall, $SECS s workload @$HZ Hz" "$(fmt_x "${wall[ss]}")" "$(fmt_x "${wall[ssk]}")" "" "$(fmt_r "${wall[ssk]}" "${wall[ss]}")" ""
row "profiler CPU (user+sys - untraced)" "$(fmt_ms "${cpu[ss]}")" "$(fmt_ms "${cpu[ssk]}")" "" "$(fmt_r "${cpu[ssk]}" "${cpu[ss]}")" ""
row "ring-buffer bytes per sample (est.)" "$(fmt_b "$per_ss")" "$(fmt_b "$per_ssk")" "" "$(fmt_r "$per_ssk" "$per_ss")" ""
row "stacks unwound in the kernel" "0" "$(fmt_n "$kernel_n")" "" "" ""
row "  from copies (fallbacks)" "$(fmt_n "$snaps")" "$(fmt_n "$kernel_snaps")" "" "" ""
row "cmp_slow with sort_many" "$(fmt_pct "${chain[ss]}")" "$(fmt_pct "${chain[ssk]}")" "" "" ""
row "all samples: stack up to _start" "$(fmt_pct "${whole[ss]}")" "$(fmt_pct "${whole[ssk]}")" "" "" ""
echo
runs() { [ -s "$tmp/results.$1" ] && wc -l <"$tmp/results.$1" || echo 0; }
echo "Medians of $REPS repetitions; runs completed: untraced $(runs base), stackscope $(runs ss) (--unwind kernel $(runs ssk)), perf $(runs perf),"
echo "perf dwarf,16384 $(runs perf16) (perf conversions: $(runs perf.tofold) and $(runs perf16.tofold)).  Wall ratios and CPU"
echo "differences are per repetition, against its untraced run (untraced $(basename "$WL") $SECS: median"
echo "$(fmt_ms "$base_wall") wall, $(fmt_ms "$base_cpu") user+sys; /usr/bin/time, 10 ms steps).  Both leave out the stack"
echo "copies made in the sampling interrupt, charged to the workload (see the script)."
echo "Stack copies: stackscope keeps nothing on disk; $(fmt_n "$snaps") snapshots (median) crossed its ring buffer,"
if isnum "$ring_est"; then
	echo "at $(fmt_n "$dyn") stack bytes each on average (median of perf dwarf,16384's mean dyn_size per run on this"
	echo "workload, used as the estimate: -v does not print stackscope's) + $SNAP_HDR B of headers; at most"
	echo "$(fmt_b "$ring_max") at $SS_STACK B each."
else
	echo "at most $(fmt_b "$ring_max") at $SS_STACK B each + $SNAP_HDR B of headers (the actual copy size is not printed"
	echo "by -v, and perf dwarf,16384 was not there to estimate it)."
fi
echo "Snapshots not queued (ring full): $(fmt_n "$ringfull"); unwound from stackscope's snapshot cache: $(fmt_n "$cache_hits")."
echo "End of sampling -> folded: stackscope's own -v timing; perf: perf script | stackcollapse-perf.awk,"
echo "$([ -n "$HYPERFINE" ] && echo "hyperfine median of 3" || echo "$TIME, once"), without perf record's own end-of-run work (so a lower bound for perf)."
echo "Chain: samples with cmp_slow in their folded stack, and the share of them with sort_many before it;"
echo "up to _start: the share of all samples whose outermost frame is _start (not cut short).  stackscope -v"
echo "counted $(fmt_n "$truncated") truncated snapshots (median)."
if isnum "${tofold[ss]}" && isnum "${tofold[perf]}"; then
	awk -v s="${tofold[ss]}" -v p="${tofold[perf]}" -v ws="${wall[ss]}" -v wp="${wall[perf]}" \
		-v cs="${cpu[ss]}" -v cp="${cpu[perf]}" 'BEGIN {
		r = s > 0 ? p / s : 0
		printf "stackscope to folded output %s than perf dwarf (perf/stackscope %.1fx): %s the 5x target\n",
			(r >= 1 ? "faster" : "slower"), r, ((s > 0 && r >= 5) ? "meets" : "MISSES")
		if (ws != "nan" && wp != "nan")
			printf "stackscope wall overhead %.3fx vs perf %.3fx: %s\n", ws, wp,
				(ws <= wp ? "no more than perf" : "ABOVE perf")
		if (cs != "nan" && cp != "nan")
			printf "stackscope profiler CPU %.0f ms vs perf %.0f ms: %s\n", cs * 1000, cp * 1000,
				(cs <= cp ? "no more than perf" : "ABOVE perf")
	}'
fi
exit 0
