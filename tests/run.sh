#!/bin/bash
# Runs every test: the unit tests, the documentation and installation
# checks (tests/doc), then the end-to-end tests (the real binary, as root,
# on the real kernel).  Ends with "N passed, N failed".
#   tests/run.sh [BUILD_DIR] [NAME_FILTER]
set -u
BUILD=${1:-build}
FILTER=${2:-}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "$ROOT" && cd "$BUILD" && pwd)
export BUILD ROOT
export SS="$BUILD/stackscope"
export WL="$BUILD/tests/workloads"

PASSED=0 FAILED=0 SKIPPED=0
FAILURES=()

count_line() {
	case "$1" in
	"ok "*) PASSED=$((PASSED + 1)) ;;
	"FAIL "*) FAILED=$((FAILED + 1)); FAILURES+=("${1#FAIL }") ;;
	"skip "*) SKIPPED=$((SKIPPED + 1)) ;;
	esac
}

# --- unit tests -----------------------------------------------------------
if [ -z "$FILTER" ] || [[ unit == *"$FILTER"* ]]; then
	while IFS= read -r line; do
		echo "$line"
		count_line "$line"
	done < <(cd "$ROOT" && FIXTURES="$BUILD/fixtures" "$BUILD/tests/unit-tests" 2>&1 | grep -v '^unit: ')
fi

# --- documentation and installation (no root) -----------------------------
for f in "$ROOT"/tests/doc/test_*.sh; do
	while IFS= read -r line; do
		echo "$line"
		count_line "$line"
	done < <(bash "$ROOT/tests/e2e/harness.sh" "$f" "$FILTER" 2>&1)
done

# --- end-to-end tests ------------------------------------------------------
if [ "$(id -u)" != 0 ]; then
	echo "skip e2e: the end-to-end tests load BPF programs and must run as root"
	SKIPPED=$((SKIPPED + 1))
else
	for f in "$ROOT"/tests/e2e/test_*.sh; do
		while IFS= read -r line; do
			echo "$line"
			count_line "$line"
		done < <(bash "$ROOT/tests/e2e/harness.sh" "$f" "$FILTER" 2>&1)
	done
fi

if [ ${#FAILURES[@]} -gt 0 ]; then
	echo "failed: ${FAILURES[*]}"
fi
echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
[ "$FAILED" = 0 ]
