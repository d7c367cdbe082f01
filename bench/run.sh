#!/usr/bin/env bash
# bench/run.sh BUILD_DIR — run every benchmark in bench/ (every bench/*.sh but
# this one), one after the other, each as `bench/NAME.sh BUILD_DIR`.
# `make bench` calls it after installing the compared tools and building.
# Benchmarks report numbers, they do not pass or fail: a non-zero exit here
# only means a benchmark could not run (missing build, crashed script).
set -uo pipefail

[ $# -le 1 ] || { echo "usage: $0 [BUILD_DIR]" >&2; exit 2; }
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
self=$(basename "$0")
failed=""
child=""
# On a signal, have the running benchmark clean up (it ends its processes
# and removes its files on TERM), wait for it, then stop.
stop() {
	if [ -n "$child" ]; then
		kill -TERM "$child" 2>/dev/null
		wait "$child" 2>/dev/null
	fi
	exit "$1"
}
trap 'stop 130' INT
trap 'stop 143' TERM HUP

for script in "$here"/*.sh; do
	[ -e "$script" ] || continue
	name=$(basename "$script")
	[ "$name" = "$self" ] && continue
	[ "$name" = lib.sh ] && continue	# sourced by the others
	echo "== bench/$name"
	bash "$script" "$build" &
	child=$!
	wait "$child"
	rc=$?
	child=""
	if [ "$rc" != 0 ]; then
		echo "== bench/$name could not run (exit $rc)"
		failed="$failed $name"
	fi
	echo
done

if [ -n "$failed" ]; then
	echo "bench: could not run:$failed" >&2
	exit 1
fi
