#!/bin/bash
# Runs the test_* functions of one e2e file, each in its own temporary
# directory, printing "ok NAME", "FAIL NAME: why" or "skip NAME: why".
# A test waits for a condition (wait_for), never for a fixed time, and
# asserts what holds on any machine: structure and exact values, never a
# share or a duration that depends on how busy the machine is.
#   harness.sh FILE [FILTER]
set -u
FILE=$1
FILTER=${2:-}
: "${SS:?}" "${WL:?}"

# fail MESSAGE: ends the current test as failed
fail() { echo "$*" >"$T/.why"; exit 1; }
# skip MESSAGE: ends the current test as skipped
skip() { echo "$*" >"$T/.why"; exit 77; }
# check COND MESSAGE...
check() { eval "$1" || fail "${*:2}"; }

# Waiting for a condition, never for a fixed time ----------------------------
# wait_for COND [SECONDS=20]: evaluates the shell condition COND every
# 0.05 s until it holds; fails the test when SECONDS (whole) pass first
wait_for() {
	local end=$((${EPOCHREALTIME/[.,]/} + ${2:-20} * 1000000))
	until eval "$1"; do
		[ "${EPOCHREALTIME/[.,]/}" -lt "$end" ] || fail "still not true after ${2:-20} s: $1"
		sleep 0.05
	done
}
# in_syscall TID NR: thread TID is blocked in system call NR (x86-64:
# 0 read, 7 poll, 230 clock_nanosleep)
in_syscall() { local nr _; read -r nr _ <"/proc/$1/syscall" 2>/dev/null && [ "$nr" = "$2" ]; }
# tracing_live PID: stackscope PID has attached its probes and waits for
# events.  Its main thread blocks in poll(2) only in the event loop
# (trace/loop.c), which starts after attaching and releasing the command.
tracing_live() { in_syscall "$1" 7; }
# runs_exe PID FILE: process PID has executed FILE (not only forked)
runs_exe() { [ "$(readlink "/proc/$1/exe" 2>/dev/null)" = "$(readlink -f "$2")" ]; }
# writing PID TEXT: the output stackscope PID is writing (-o FILE in this
# test's directory: a temporary renamed at the end, see report/output.h)
# holds TEXT so far
writing() {
	local f
	for f in /proc/"$1"/fd/*; do
		case $(readlink "$f") in "$T"/*) grep -qF -- "$2" "$f" 2>/dev/null && return 0 ;; esac
	done
	return 1
}
# exited PID: process PID has ended (a zombie not yet waited for included)
exited() { [ ! -e "/proc/$1" ] || grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }

# Folded-stack helpers ------------------------------------------------------
# samples FILE AWK_COND: sum of counts of the lines matching
samples() { awk -v c="$2" '$0 ~ c { n += $NF } END { print n + 0 }' "$1"; }
# total FILE
total() { awk '{ n += $NF } END { print n + 0 }' "$1"; }
# lost_stacks ERR_FILE: the "N lost stacks" of a stackscope summary line
lost_stacks() { sed -n 's/^stackscope [a-z]*: .* \([0-9]*\) lost stacks.*/\1/p' "$1"; }

. "$FILE"

for t in $(declare -F | awk '{print $3}' | grep '^test_'); do
	name="$(basename "$FILE" .sh | sed 's/^test_//')/${t#test_}"
	[ -n "$FILTER" ] && [[ "$name" != *"$FILTER"* ]] && continue
	T=$(mktemp -d /tmp/stackscope-test.XXXXXX)
	export T
	# background processes a test leaves (it failed while waiting) end with it
	( cd "$T" && set -u && trap 'kill $(jobs -p) 2>/dev/null' EXIT && "$t" ) >"$T/.log" 2>&1
	rc=$?
	case $rc in
	0) echo "ok $name" ;;
	77) echo "skip $name: $(cat "$T/.why" 2>/dev/null)" ;;
	*)
		echo "FAIL $name: $(cat "$T/.why" 2>/dev/null || echo "exit $rc")"
		sed 's/^/    | /' "$T/.log" | tail -n 15
		;;
	esac
	rm -rf "$T"
done
