#!/bin/bash
# A long run under process churn, outside `make test`: the command under
# test (default: a system-wide `stackscope profile -F 99`) runs while
# ~50 processes a second start from ~200 distinct binaries (copies of one
# small program, each its own inode), for SOAK_MINUTES (default 30).  Its
# RSS and open descriptors are sampled every SOAK_EVERY seconds (default
# 10) and their slopes over the second half printed:
#   rss_slope_mb_per_min=X fd_slope_per_min=Y rss_first_mb=A rss_last_mb=B fds_first=C fds_last=D
# The target (issue: bounded long runs) is an RSS slope under 1 MB/min and
# flat descriptors.
#   scripts/soak.sh [BUILD_DIR]      (make soak)
#   SOAK_CMD='stackscope profile --every 60 -o /tmp/x.folded' scripts/soak.sh
# SOAK_CMD is run by bash; the process measured is the one it starts.
# SOAK_CMD_B, when set, is a second command measured side by side under
# the same churn (an older build, say): its columns and slopes follow,
# named with _b.
#   rss_b_slope_mb_per_min=X fd_b_slope_per_min=Y ...
# Last, the CPU each one used over the whole run (user + system):
#   cpu_s=X[ cpu_b_s=Y]
set -u
BUILD=${1:-build}
BUILD=$(cd "$BUILD" && pwd)
MINUTES=${SOAK_MINUTES:-30}
EVERY=${SOAK_EVERY:-10}
RATE=${SOAK_RATE:-50}
NBIN=${SOAK_BINARIES:-200}
DIR=$(mktemp -d /tmp/stackscope-soak.XXXXXX)
CMD=${SOAK_CMD:-"$BUILD/stackscope profile -F 99 -o $DIR/out.folded"}
SPIN=$BUILD/tests/workloads/reuse/victim	# spins MS ms of CPU, exits

[ -x "$SPIN" ] || { echo "soak: $SPIN missing (make workloads)" >&2; exit 1; }
for ((i = 0; i < NBIN; i++)); do cp "$SPIN" "$DIR/bin$i"; done

cleanup() {
	[ -n "${CHURN:-}" ] && kill "$CHURN" 2>/dev/null
	[ -n "${PID:-}" ] && kill -INT "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
	[ -n "${PID_B:-}" ] && kill -INT "$PID_B" 2>/dev/null && wait "$PID_B" 2>/dev/null
	rm -rf "$DIR"
}
trap cleanup EXIT

bash -c "exec $CMD" 2>"$DIR/err.txt" &
PID=$!
PID_B=
if [ -n "${SOAK_CMD_B:-}" ]; then
	bash -c "exec $SOAK_CMD_B" 2>"$DIR/err_b.txt" &
	PID_B=$!
fi
# the churn: RATE processes a second, round robin over the binaries
(
	i=0
	while :; do
		for ((k = 0; k < RATE / 10; k++)); do
			"$DIR/bin$((i % NBIN))" 1 &
			i=$((i + 1))
		done
		sleep 0.1
		wait
	done
) 2>/dev/null &
CHURN=$!

end=$((SECONDS + MINUTES * 60))
: >"$DIR/samples"
echo "# t_s rss_kb fds${PID_B:+ rss_b_kb fds_b}"
while [ $SECONDS -lt $end ] && kill -0 "$PID" 2>/dev/null; do
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$PID/status" 2>/dev/null)
	fds=$(ls "/proc/$PID/fd" 2>/dev/null | wc -l)
	b=
	[ -n "$PID_B" ] && b=" $(awk '/^VmRSS:/ { print $2 }' "/proc/$PID_B/status" 2>/dev/null) $(ls "/proc/$PID_B/fd" 2>/dev/null | wc -l)"
	[ -n "$rss" ] && echo "$SECONDS $rss $fds$b" | tee -a "$DIR/samples"
	sleep "$EVERY"
done
kill -0 "$PID" 2>/dev/null || { echo "soak: the command ended early: $(tail -3 "$DIR/err.txt")" >&2; exit 1; }
[ -z "$PID_B" ] || kill -0 "$PID_B" 2>/dev/null || { echo "soak: SOAK_CMD_B ended early: $(tail -3 "$DIR/err_b.txt")" >&2; exit 1; }
# least-squares slopes over the second half
slopes() {
	awk -v half=$((MINUTES * 30)) -v rc="$1" -v fc="$2" -v sfx="$3" '
	$1 >= half { n++; x += $1; y += $rc; f += $fc; xx += $1 * $1; xy += $1 * $rc; xf += $1 * $fc
		if (n == 1) { r0 = $rc; f0 = $fc } r1 = $rc; f1 = $fc }
	END {
		if (n < 2) { print "soak: too few samples"; exit 1 }
		d = n * xx - x * x
		printf "rss%s_slope_mb_per_min=%.3f fd%s_slope_per_min=%.3f rss%s_first_mb=%.1f rss%s_last_mb=%.1f fds%s_first=%d fds%s_last=%d\n",
			sfx, (n * xy - x * y) / d * 60 / 1024, sfx, (n * xf - x * f) / d * 60,
			sfx, r0 / 1024, sfx, r1 / 1024, sfx, f0, sfx, f1
	}' "$DIR/samples"
}
slopes 2 3 ""
[ -z "$PID_B" ] || slopes 4 5 _b
# utime + stime, fields 14 and 15 of /proc/PID/stat (after the comm's ")")
cpu_s() { sed 's/.*) //' "/proc/$1/stat" | awk -v hz="$(getconf CLK_TCK)" '{ printf "%.1f", ($12 + $13) / hz }'; }
echo "cpu_s=$(cpu_s "$PID")${PID_B:+ cpu_b_s=$(cpu_s "$PID_B")}"
