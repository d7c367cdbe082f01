#!/bin/bash
# Regenerates the shapes of stack outputs with the installed bpftrace
# (0.17.0): NAME.shape is bpftrace's text output of NAME.bt through
# ../../stackmask.py (frames differ from run to run; their layout does
# not).  Each program waits for one openat of a process named "cat": this
# script runs `cat /dev/null` once bpftrace has attached.  bpftrace needs
# tracefs at /sys/kernel/tracing, mounted here in a private mount
# namespace so the machine's mounts stay as they are.
#   tests/lang/golden/stacks/make.sh [NAME...]
set -eu
cd "$(dirname "$0")"
ver=$(bpftrace --version)
[ "$ver" = "bpftrace v0.17.0" ] || { echo "make.sh: want bpftrace v0.17.0, have '$ver'" >&2; exit 1; }
names=("$@")
[ ${#names[@]} -gt 0 ] || names=($(ls *.bt | sed 's/\.bt$//'))
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for n in "${names[@]}"; do
	# with this in its environment bpftrace says when it has attached
	__BPFTRACE_NOTIFY_PROBES_ATTACHED=1 unshare -m sh -c \
		'{ mountpoint -q /sys/kernel/tracing || mount -t tracefs tracefs /sys/kernel/tracing; } && exec timeout 60 bpftrace "$1"' \
		sh "$n.bt" >"$tmp/out" 2>"$tmp/err" &
	bt=$!
	while kill -0 "$bt" 2>/dev/null && ! grep -q '^__BPFTRACE_NOTIFY_PROBES_ATTACHED$' "$tmp/out"; do
		sleep 0.1
	done
	while kill -0 "$bt" 2>/dev/null; do cat /dev/null; sleep 0.2; done
	wait "$bt" || echo "make.sh: $n: bpftrace failed: $(grep -v RLIMIT_MEMLOCK "$tmp/err")" >&2
	grep -v '^__BPFTRACE_NOTIFY_PROBES_ATTACHED$' "$tmp/out" | python3 ../../stackmask.py >"$n.shape"
done
