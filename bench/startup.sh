#!/usr/bin/env bash
# shellcheck disable=SC2317  # functions run by lib.sh's bench_rounds look unreachable
# bench/startup.sh BUILD_DIR — what stackscope costs around a command that
# does nothing: `profile -- /bin/true` and `syscalls -- /bin/true` next to
# /bin/true alone and `strace -f /bin/true`, whole commands, in one run.
#
#   REPS=5 BENCH_BASELINE=/usr/local/bin/stackscope bench/startup.sh build
#
# Commands (every output to /dev/null):
#   /bin/true
#   stackscope profile -o /dev/null -- /bin/true
#   stackscope syscalls -o /dev/null -- /bin/true
#   strace -f -o /dev/null /bin/true                 (skipped when missing)
#   BENCH_BASELINE=PATH: the two stackscope commands again with another
#       binary, say the last release (a before/after comparison in one run)
# With REPS repetitions (default 5), the commands interleaved inside each
# (the order rotates), each timed by hyperfine (median of 5 runs after 2
# warm-ups; /usr/bin/time, one run, when hyperfine is missing), it prints
# the median of each command's times, what profile adds to /bin/true, and
# syscalls' time over strace's, paired within each repetition, with the
# issue's targets: profile adds at most 30 ms; syscalls at most 2x strace.
# The machine is noisy: read the ratios; it exits 0 whatever it measures.
# Needs root (BPF), the build (`make`), /usr/bin/time; strace (Debian
# package strace) and hyperfine are optional.
set -uo pipefail

usage() { echo "usage: [REPS=N] [BENCH_BASELINE=PATH] $0 BUILD_DIR" >&2; exit 2; }
[ $# -le 1 ] || usage
case "${1:-}" in -h|--help) usage ;; esac
BUILD=${1:-build}
REPS=${REPS:-5}
case "$REPS" in '' | *[!0-9]* | 0) echo "REPS must be a positive integer" >&2; exit 2 ;; esac

here=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "$BUILD" 2>/dev/null && pwd) || { echo "no build directory ${1:-build}" >&2; exit 1; }
SS=$BUILD/stackscope
TRUE=/bin/true
[ -x "$SS" ] || { echo "missing $SS: run make" >&2; exit 1; }

# shellcheck source=bench/lib.sh
. "$here/lib.sh"
[ -x "$TIME" ] || { echo "missing $TIME (Debian package time): scripts/deps.sh bench" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "needs root (BPF programs, perf events)" >&2; exit 1; }
bench_tools hyperfine
STRACE=$(command -v strace || true)
[ -n "$STRACE" ] || echo "skipped: strace missing (Debian package strace)"
BASE=${BENCH_BASELINE:-}
[ -z "$BASE" ] || [ -x "$BASE" ] || { echo "BENCH_BASELINE=$BASE is not executable" >&2; exit 2; }

preflight stackscope "$SS" profile -o /dev/null -- "$TRUE" ||
	{ echo "stackscope itself fails: nothing to measure" >&2; exit 1; }

keys="true prof sysc"
[ -n "$STRACE" ] && keys="$keys strace"
[ -n "$BASE" ] && keys="$keys bprof bsysc"
read -r -a key_list <<<"$keys"
declare -A label=([true]="/bin/true" [prof]="stackscope profile" [sysc]="stackscope syscalls"
	[strace]="strace -f" [bprof]="baseline profile" [bsysc]="baseline syscalls")
cmd_of() {	# KEY -> the command, one word per line
	case $1 in
	true) printf '%s\n' "$TRUE" ;;
	prof) printf '%s\n' "$SS" profile -o /dev/null -- "$TRUE" ;;
	sysc) printf '%s\n' "$SS" syscalls -o /dev/null -- "$TRUE" ;;
	strace) printf '%s\n' "$STRACE" -f -o /dev/null "$TRUE" ;;
	bprof) printf '%s\n' "$BASE" profile -o /dev/null -- "$TRUE" ;;
	bsysc) printf '%s\n' "$BASE" syscalls -o /dev/null -- "$TRUE" ;;
	esac
}

# one KEY REP: "REP SECONDS" appended to results.KEY
one() {
	local k=$1 rep=$2 a line=""
	local -a cmd
	mapfile -t cmd < <(cmd_of "$k")
	if [ -n "$HYPERFINE" ]; then
		for a in "${cmd[@]}"; do line="$line $(q "$a")"; done
		if run_job "$HYPERFINE" -N --warmup 2 --runs 5 --style none \
			--export-json "$tmp/$k.$rep.json" -- "${line# }" </dev/null >/dev/null 2>"$tmp/$k.$rep.err"; then
			echo "$rep $(hf_medians "$tmp/$k.$rep.json")" >>"$tmp/results.$k"
			return 0
		fi
	elif run_job "$TIME" -f '%e' -o "$tmp/$k.$rep.time" "${cmd[@]}" </dev/null >/dev/null 2>"$tmp/$k.$rep.err"; then
		echo "$rep $(tail -n 1 "$tmp/$k.$rep.time")" >>"$tmp/results.$k"
		return 0
	fi
	echo "    ${label[$k]}, repetition $rep: failed, left out:"
	grep -v RLIMIT_MEMLOCK "$tmp/$k.$rep.err" | tail -n 3 | sed 's/^/      /'
	return 1
}
echo "start-up bench: $REPS repetitions, commands interleaved:"
bench_rounds one : "${key_list[@]}"

has() { case " $keys " in *" $1 "*) return 0 ;; esac; return 1; }
# A B: A's time minus B's (or A / B with "/"), per repetition, then the median
added() { paired "$1" 2 '(a - bb) * 1000' "$2" | median; }
ratio() { paired "$1" 2 'a / bb' "$2" | median; }
echo
printf '%-22s %-10s %-18s %s\n' command median "added to /bin/true" "/ strace -f"
for k in "${key_list[@]}"; do
	m=$(col 2 "$tmp/results.$k" | median)
	ad=- r=-
	[ "$k" = true ] || ad=$(awk -v v="$(added "$k" true)" 'BEGIN { printf "%.1f ms", v }')
	has strace && [ "$k" != true ] && r=$(fmt_r "$(ratio "$k" strace)" 1)x
	printf '%-22s %-10s %-18s %s\n' "${label[$k]}" "$(fmt_ms "$m")" "$ad" "$r"
done
echo
echo "Targets:"
pa=$(added prof true)
echo "  profile -- /bin/true adds $(awk -v v="$pa" 'BEGIN { printf "%.1f", v }') ms (target <= 30 ms):" \
	"$(awk -v v="$pa" 'BEGIN { print (v != "nan" && v + 0 <= 30 ? "PASS" : "MISS") }')"
if has strace; then
	sr=$(ratio sysc strace)
	echo "  syscalls -- /bin/true / strace -f /bin/true: $(fmt_r "$sr" 1) (target <= 2):" \
		"$(awk -v v="$sr" 'BEGIN { print (v != "nan" && v + 0 <= 2 ? "PASS" : "MISS") }')"
else
	echo "  syscalls against strace: skipped (strace not run)"
fi
echo
echo "Medians of $REPS repetitions, each $([ -n "$HYPERFINE" ] && echo "hyperfine's median of 5 runs" || echo "one $TIME run");"
echo "added and ratios paired within each repetition.  Load average now: $(cut -d' ' -f1-3 /proc/loadavg)."
exit 0
