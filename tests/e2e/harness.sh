#!/bin/bash
# Runs the test_* functions of one e2e file, each in its own temporary
# directory, printing "ok NAME", "FAIL NAME: why" or "skip NAME: why".
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

# Folded-stack helpers ------------------------------------------------------
# samples FILE AWK_COND: sum of counts of the lines matching
samples() { awk -v c="$2" '$0 ~ c { n += $NF } END { print n + 0 }' "$1"; }
# total FILE
total() { awk '{ n += $NF } END { print n + 0 }' "$1"; }

. "$FILE"

for t in $(declare -F | awk '{print $3}' | grep '^test_'); do
	name="$(basename "$FILE" .sh | sed 's/^test_//')/${t#test_}"
	[ -n "$FILTER" ] && [[ "$name" != *"$FILTER"* ]] && continue
	T=$(mktemp -d /tmp/stackscope-test.XXXXXX)
	export T
	( cd "$T" && set -u && "$t" ) >"$T/.log" 2>&1
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
