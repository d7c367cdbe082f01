#!/bin/sh
# make demo: profile the bundled workload for a few seconds -> flame.svg
set -eu
BUILD=${1:-build}
OUT=$(pwd)/flame.svg
echo "demo: profiling '$BUILD/tests/workloads/demo 4' (a small CPU-bound service loop) at 999 Hz ..."
"$BUILD/stackscope" profile -F 999 -o "$OUT" -- "$BUILD/tests/workloads/demo" 4
echo
echo "demo: wrote $OUT"
echo "      open it in a browser: xdg-open $OUT   (or file://$OUT)"
echo "      hover a frame for its share, click to zoom, Ctrl-F to search."
