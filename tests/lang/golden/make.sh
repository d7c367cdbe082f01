#!/bin/bash
# Regenerates the golden outputs with the installed bpftrace (0.17.0, the
# Debian package): NAME.out is its text output, NAME.json its -f json
# output, for every NAME.bt here.  bpftrace's "Attaching N probes" line
# is left out (stackscope prints "Attached N probes" on stderr), and so
# are the blank lines of JSON output (every line of stackscope's JSON is
# an object).  The tests never run bpftrace: they read these files.
#   tests/lang/golden/make.sh [NAME...]
set -eu
cd "$(dirname "$0")"
ver=$(bpftrace --version)
[ "$ver" = "bpftrace v0.17.0" ] || { echo "make.sh: want bpftrace v0.17.0, have '$ver'" >&2; exit 1; }
names=("$@")
[ ${#names[@]} -gt 0 ] || names=($(ls *.bt | sed 's/\.bt$//'))
for n in "${names[@]}"; do
	timeout 60 bpftrace "$n.bt" 2>"/tmp/golden.$$.err" | sed '1{/^Attaching [0-9]* probes\{0,1\}\.\.\.$/d}' >"$n.out" ||
		{ echo "make.sh: $n failed: $(cat /tmp/golden.$$.err)" >&2; }
	timeout 60 bpftrace -f json "$n.bt" 2>>"/tmp/golden.$$.err" |
		grep -v '^{"type": "attached_probes"' | grep -v '^$' >"$n.json" || true
	if grep -v RLIMIT_MEMLOCK "/tmp/golden.$$.err" | grep -q .; then
		echo "make.sh: $n: $(grep -v RLIMIT_MEMLOCK /tmp/golden.$$.err)" >&2
	fi
done
rm -f "/tmp/golden.$$.err"
