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

# --- fuzz targets (make fuzz-targets; FUZZ_TEST_SECONDS each) --------------
if [ -z "$FILTER" ] || [[ fuzz == *"$FILTER"* ]]; then
	FZ=${FUZZ_BUILD:-build-fuzz}
	FZ=$(cd "$ROOT" && mkdir -p "$FZ" && cd "$FZ" && pwd)
	if [ -f "$FZ/.skip" ] || ! ls "$FZ"/fuzz_* >/dev/null 2>&1; then
		line="skip fuzz: $(cat "$FZ/.skip" 2>/dev/null || echo "no fuzz targets built (make fuzz-targets)")"
		echo "$line"
		count_line "$line"
	else
		for t in "$FZ"/fuzz_*; do
			n=${t##*/fuzz_}
			mkdir -p "$FZ/corpus/$n"
			if "$t" -max_total_time="${FUZZ_TEST_SECONDS:-5}" -max_len=65536 \
				-artifact_prefix="$FZ/" "$FZ/corpus/$n" "$FZ/seeds/$n" >"$FZ/$n.log" 2>&1; then
				line="ok fuzz/$n"
			else
				line="FAIL fuzz/$n: crashed, see $FZ/$n.log and $FZ/crash-*"
			fi
			echo "$line"
			count_line "$line"
		done
	fi
fi

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
	# the language's directive cases (tests/lang/*.test, tests/lang/runner.py)
	while IFS= read -r line; do
		echo "$line"
		count_line "$line"
	done < <(python3 "$ROOT/tests/lang/runner.py" --binary "${STACKSCOPE_LANG_BIN:-$SS}" --filter "$FILTER" 2>&1)
fi

if [ ${#FAILURES[@]} -gt 0 ]; then
	echo "failed: ${FAILURES[*]}"
fi
echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
[ "$FAILED" = 0 ]
