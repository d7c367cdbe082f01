# Shared by the bench/*.sh scripts (sourced, not run): process-group
# handling with cleanup on every exit, a private temporary directory
# ($tmp), and the number formatting of the result tables.
# shellcheck shell=bash
TIME=/usr/bin/time
FOLD=$here/stackcollapse-perf.awk

# bench_require FILE...: the built binaries and workloads, /usr/bin/time,
# the folding script, and root; exits with the reason otherwise.
bench_require() {
	local f
	for f in "$@"; do
		[ -x "$f" ] || { echo "missing $f: run make && make workloads (or make bench)" >&2; exit 1; }
	done
	[ -x "$TIME" ] || { echo "missing $TIME (Debian package time): scripts/deps.sh bench" >&2; exit 1; }
	[ -r "$FOLD" ] || { echo "missing $FOLD" >&2; exit 1; }
	[ "$(id -u)" = 0 ] || { echo "needs root (BPF programs, perf events)" >&2; exit 1; }
}

# bench_tools perf bpftrace hyperfine: sets PERF, BPFTRACE, HYPERFINE to
# the tools' paths (empty when missing, with a line saying so).
bench_tools() {
	local t
	for t in "$@"; do
		case $t in
		perf) PERF=$(command -v perf || true)
			[ -n "$PERF" ] || echo "skipped: perf missing (Debian package linux-perf)" ;;
		bpftrace) BPFTRACE=$(command -v bpftrace || true)
			[ -n "$BPFTRACE" ] || echo "skipped: bpftrace missing (Debian package bpftrace)" ;;
		hyperfine) HYPERFINE=$(command -v hyperfine || true)
			[ -n "$HYPERFINE" ] || echo "hyperfine missing (Debian package hyperfine): timing with $TIME instead (10 ms resolution)" ;;
		esac
	done
}

# ---- processes and temporary files -----------------------------------------
# Every measured command runs as a background job in a process group of its
# own (job control on), and the script waits for it: a signal to the script
# is then handled at once, and the trap ends the whole group (the timer, the
# profiler and the workload it launched).  Temporary files go to one mktemp
# directory removed at exit.
set -m
tmp=$(mktemp -d "${TMPDIR:-/tmp}/stackscope-bench.XXXXXX") || exit 1
job=""
# shellcheck disable=SC2317  # (called by the trap)
cleanup() {
	if [ -n "$job" ] && kill -TERM -- "-$job" 2>/dev/null; then
		for _ in 1 2 3 4 5 6 7 8 9 10; do	# up to 1 s to exit cleanly
			kill -0 -- "-$job" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL -- "-$job" 2>/dev/null
		wait "$job" 2>/dev/null
	fi
	job=""
	rm -rf "$tmp"
}
trap 'cleanup; unmount_tracefs' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

# run CMD... as its own process group and wait for it; returns its status
run_job() {
	"$@" &
	job=$!
	wait "$job"
	local rc=$?
	job=""
	return $rc
}

# preflight NAME CMD...: runs CMD once as a warm-up and check (this also
# fills perf's build-id cache, as a user's ~/.debug would be).  A tool that
# fails is skipped, with its message (returns 1).  perf 6.1 aborts at
# random at start-up (an assertion in util/build-id.c), more often while
# other BPF tools run: that failure is retried, up to 10 times.
preflight() {
	local name=$1 i; shift
	for ((i = 0; i < 10; i++)); do
		run_job "$@" </dev/null >/dev/null 2>"$tmp/preflight.$name.err" && return 0
		grep -q 'build-id\.c' "$tmp/preflight.$name.err" || break
		sleep 1
	done
	echo "skipped: $name fails here:"
	grep -v RLIMIT_MEMLOCK "$tmp/preflight.$name.err" | tail -n 3 | sed 's/^/    /'
	return 1
}

# bench_private_home: perf keeps a build-id cache in $HOME/.debug and reads
# $HOME/.perfconfig; a private HOME gives it the default configuration,
# keeps this run's cache from racing with other perf users of a shared
# machine, and leaves root's cache alone.  Every tool gets the same HOME,
# so the workload's environment is the same under each.
bench_private_home() {
	export HOME=$tmp/home
	mkdir -p "$HOME"
}

# bench_mount_tracefs WHAT: perf and bpftrace resolve tracepoints through
# tracefs, which stackscope does not need.  Mounted when missing (WHAT
# says for what), and unmounted at exit, after lib.sh's cleanup has ended
# the running job, which may hold tracefs files open.
TRACEFS=/sys/kernel/tracing
mounted_tracefs=""
bench_mount_tracefs() {
	mountpoint -q "$TRACEFS" && return 0
	if mount -t tracefs nodev "$TRACEFS" 2>"$tmp/mount.err"; then
		mounted_tracefs=1
		echo "mounted tracefs on $TRACEFS for $1 (unmounted at exit)"
	else
		echo "cannot mount tracefs on $TRACEFS ($1 will likely fail):"
		sed 's/^/    /' "$tmp/mount.err"
	fi
}
# shellcheck disable=SC2317  # (called by the trap)
unmount_tracefs() { [ -z "$mounted_tracefs" ] || umount "$TRACEFS" 2>/dev/null || true; }

# bench_rounds FN AFTER TOOL...: REPS repetitions of "FN TOOL REP" for
# every tool, interleaved, the order rotated by one each repetition so
# that no tool always runs first (or right after another); then "AFTER
# REP" (":" for nothing), which so disturbs none of the timed runs.
bench_rounds() {
	local fn=$1 after=$2 rep i t order; shift 2
	local -a list=("$@")
	local n=$#
	for ((rep = 1; rep <= REPS; rep++)); do
		order=""
		for ((i = 0; i < n; i++)); do
			order="$order ${list[$(((i + rep - 1) % n))]}"
		done
		echo "  repetition $rep/$REPS:$order"
		for t in $order; do
			"$fn" "$t" "$rep"
		done
		"$after" "$rep"
	done
}

# paired NAME COLUMN EXPR [BASE]: EXPR (a = NAME's value, bb = BASE's,
# default "base") for each repetition both have results for, one a line:
# every tool is compared with the untraced run of its own repetition.
paired() {
	local base=${4:-base}
	[ -s "$tmp/results.$1" ] && [ -s "$tmp/results.$base" ] || return 0
	awk -v c="$2" 'NR == FNR { b[$1] = $c; next } ($1 in b) { a = $c; bb = b[$1]; print '"$3"' }' \
		"$tmp/results.$base" "$tmp/results.$1"
}

# ---- small helpers ----------------------------------------------------------
median() {	# median of the numbers on stdin, or "nan" when there are none
	sort -g | awk '{ v[NR] = $1 }
		END {
			if (NR == 0) { print "nan"; exit }
			if (NR % 2) printf "%.6f\n", v[(NR + 1) / 2]
			else printf "%.6f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2
		}'
}
calc() { awk "BEGIN { x = $1; printf \"%.6f\n\", x }" 2>/dev/null || echo nan; }
isnum() { case "$1" in '' | nan | *[!0-9.eE+-]*) return 1 ;; esac; }
fmt_x() { isnum "$1" && awk -v v="$1" 'BEGIN { printf "%.2fx", v }' || echo n/a; }
fmt_r() {	# A B -> A/B, 2 decimals, or 2 significant digits under 0.1
	isnum "$1" && isnum "$2" && awk -v a="$1" -v b="$2" 'BEGIN {
		if (b > 0 && a >= 0) printf(a / b < 0.1 ? "%.2g" : "%.2f", a / b); else print "n/a" }' || echo n/a
}
fmt_ms() {	# seconds -> "4.6 ms" under 10 ms, else "123 ms"
	isnum "$1" || { echo n/a; return; }
	awk -v v="$1" 'BEGIN { ms = v * 1000; printf((ms < 10 && ms > -10) ? "%.1f ms" : "%.0f ms", ms) }'
}
fmt_n() { isnum "$1" && awk -v v="$1" 'BEGIN { printf "%.0f", v }' || echo n/a; }
fmt_b() {	# bytes -> "812 B", "9.1 KiB", "31.9 MiB"
	isnum "$1" || { echo n/a; return; }
	awk -v v="$1" 'BEGIN {
		if (v < 1024) printf "%.0f B", v
		else if (v < 1048576) printf "%.1f KiB", v / 1024
		else printf "%.1f MiB", v / 1048576 }'
}
fmt_pct() { isnum "$1" && awk -v v="$1" 'BEGIN { printf "%.2f%%", v * 100 }' || echo n/a; }
col() { awk '{ print $'"$1"' }' "$2" 2>/dev/null; }	# column N of a results file
# hyperfine medians, in command order, from its --export-json file
hf_medians() { awk -F: '/"median"/ { gsub(/[ ,]/, "", $2); print $2 }' "$1"; }
q() { printf '%q' "$1"; }

# time_run NAME REP CMD...: one timed run of CMD; its stdout in
# NAME.REP.out, stderr in NAME.REP.err, and "REP WALL CPU" appended to
# results.NAME.  A failed run is said and left out (returns 1).
time_run() {
	local name=$1 rep=$2 rc; shift 2
	local tf=$tmp/$name.$rep.time
	run_job "$TIME" -f '%e %U %S' -o "$tf" "$@" </dev/null >"$tmp/$name.$rep.out" 2>"$tmp/$name.$rep.err"
	rc=$?
	if [ "$rc" != 0 ]; then
		echo "    $name, repetition $rep: failed (exit $rc), left out:"
		grep -v RLIMIT_MEMLOCK "$tmp/$name.$rep.err" | tail -n 3 | sed 's/^/      /'
		return 1
	fi
	tail -n 1 "$tf" | awk -v r="$rep" '{ printf "%s %s %.3f\n", r, $1, $2 + $3 }' >>"$tmp/results.$name"
}

# time_conversion RESULTS REP RUNS LABEL SCRIPT DATA OUT: times "bash
# SCRIPT DATA OUT" (a perf.data conversion: hyperfine's median of RUNS,
# else one /usr/bin/time run) and appends "REP SECONDS" to results.RESULTS;
# a run that fails or writes nothing is said (LABEL) and left out
# (returns 1).
time_conversion() {
	local results=$1 rep=$2 runs=$3 label=$4 script=$5 data=$6 out=$7 t=""
	local tag=$results.$rep
	if [ -n "$HYPERFINE" ]; then
		run_job "$HYPERFINE" -N --runs "$runs" --style none --export-json "$tmp/pp.$tag.json" \
			-- "bash $(q "$script") $(q "$data") $(q "$out")" </dev/null >/dev/null 2>"$tmp/pp.$tag.err" &&
			t=$(hf_medians "$tmp/pp.$tag.json")
	else
		run_job "$TIME" -f '%e' -o "$tmp/pp.$tag.time" bash "$script" "$data" "$out" \
			</dev/null >/dev/null 2>"$tmp/pp.$tag.err" && t=$(tail -n 1 "$tmp/pp.$tag.time")
	fi
	if [ -n "$t" ] && [ -s "$out" ]; then
		echo "$rep $t" >>"$tmp/results.$results"
		return 0
	fi
	echo "    $label, repetition $rep: failed, left out"
	tail -n 3 "$tmp/pp.$tag.err" "$tmp/perf-script.err" 2>/dev/null | sed 's/^/      /'
	return 1
}

# perf_fold_script: writes $tmp/perf-to-folded.sh (perf script | fold, as
# one timed unit: $1 = perf.data, $2 = the folded file) and prints its path.
perf_fold_script() {
	local pp=$tmp/perf-to-folded.sh
	cat >"$pp" <<EOF
#!/bin/bash
set -o pipefail
$(q "${PERF:-perf}") script -i "\$1" 2>>$(q "$tmp/perf-script.err") | awk -f $(q "$FOLD") >"\$2"
EOF
	echo "$pp"
}

# chain_share FOLDED: of the unwind workload qsort_cb's folded stacks
# ("comm;outermost;...;innermost COUNT"; kernel frames end in _[k]),
# "whole cmp_slow_samples start_share user_frames": the share of the cmp_slow samples with sort_many before it, their
# number, the share of all samples whose outermost frame is _start, and
# the mean user frames per sample.  Nothing when there is no sample.
chain_share() {
	awk '{
		n = $NF; s = $0; sub(/ [0-9]+$/, "", s)
		k = split(s, f, ";"); sm = 0; all += n
		if (f[2] == "_start") start += n
		for (i = 2; i <= k; i++) if (f[i] !~ /_\[k\]$/) uf += n
		for (i = 1; i <= k; i++) {
			if (f[i] == "sort_many") sm = 1
			else if (f[i] == "cmp_slow") { cmp += n; if (sm) full += n; break }
		}
	}
	END { if (all > 0) printf "%.6f %d %.6f %.3f\n", (cmp > 0 ? full / cmp : 0), cmp, start / all, uf / all }' "$1"
}
