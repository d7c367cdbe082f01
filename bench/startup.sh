#!/usr/bin/env bash
# shellcheck disable=SC2317  # functions run by lib.sh's bench_rounds look unreachable
# bench/startup.sh BUILD_DIR — what stackscope costs around a command that
# does nothing: `profile -- /bin/true` and `syscalls -- /bin/true` next to
# /bin/true alone and their peers around it (strace, perf trace, perf
# record, bpftrace), whole commands, in one run.
#
#   REPS=5 BENCH_BASELINE=/usr/local/bin/stackscope bench/startup.sh build
#
# Commands (every output to /dev/null, or to this run's temporary directory):
#   /bin/true
#   stackscope profile -o /dev/null -- /bin/true
#   env STACKSCOPE_CACHE_DIR= stackscope profile ...   the same without the
#                                                    small kernel BTF's cache
#                                                    (a first start; env's
#                                                    own exec included)
#   stackscope syscalls -o /dev/null -- /bin/true
#   strace -f -o /dev/null /bin/true                 syscalls' peer
#   perf trace -o /dev/null -- /bin/true             syscalls' peer
#   perf record -F 99 -g -o FILE -- /bin/true        profile's peer
#   bpftrace -e 'profile:hz:99 { @[kstack, ustack] = count(); }' -c /bin/true
#                                                    profile's peer
#   (each peer skipped when missing: Debian packages strace, linux-perf,
#   bpftrace; scripts/deps.sh bench)
#   BENCH_BASELINE=PATH: the two stackscope commands again with another
#       binary, say the last release (a before/after comparison in one run)
# With REPS repetitions (default 5), the commands interleaved inside each
# (the order rotates), each timed by hyperfine (median of 5 runs after 2
# warm-ups, and its mean CPU, user + system; /usr/bin/time, one run, when
# hyperfine is missing), it prints the median of each command's wall and
# CPU times, what it adds to /bin/true, and each stackscope command's time
# over its peers' (syscalls: strace -f and perf trace; profile: perf
# record and bpftrace), paired within each repetition, with the issue's
# targets: profile adds at most 30 ms; syscalls at most 2x strace.
# The machine is noisy: read the ratios; it exits 0 whatever it measures.
# Needs root (BPF), the build (`make`), /usr/bin/time; the peers and
# hyperfine are optional.
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
PERF=$(command -v perf || true)
[ -n "$PERF" ] || echo "skipped: perf trace and perf record: perf missing (Debian package linux-perf)"
BPFTRACE=$(command -v bpftrace || true)
[ -n "$BPFTRACE" ] || echo "skipped: bpftrace missing (Debian package bpftrace)"
BASE=${BENCH_BASELINE:-}
[ -z "$BASE" ] || [ -x "$BASE" ] || { echo "BENCH_BASELINE=$BASE is not executable" >&2; exit 2; }
bench_private_home
# perf trace needs tracefs; stackscope mounts it privately when it is not
# mounted, and so starts a little faster here than on a machine without it
[ -z "$PERF" ] || bench_mount_tracefs "perf trace"
BT_PROG='profile:hz:99 { @[kstack, ustack] = count(); }'

preflight stackscope "$SS" profile -o /dev/null -- "$TRUE" ||
	{ echo "stackscope itself fails: nothing to measure" >&2; exit 1; }
[ -z "$PERF" ] || preflight "perf trace" "$PERF" trace -o /dev/null -- "$TRUE" || PTRACE_OFF=1
[ -z "$PERF" ] || preflight "perf record" "$PERF" record -q -F 99 -g -o "$tmp/perf.data" -- "$TRUE" ||
	PREC_OFF=1
[ -z "$BPFTRACE" ] || preflight bpftrace "$BPFTRACE" -e "$BT_PROG" -c "$TRUE" || BPFTRACE=""

keys="true prof profnc sysc"
[ -n "$STRACE" ] && keys="$keys strace"
[ -n "$PERF" ] && [ -z "${PTRACE_OFF:-}" ] && keys="$keys ptrace"
[ -n "$PERF" ] && [ -z "${PREC_OFF:-}" ] && keys="$keys prec"
[ -n "$BPFTRACE" ] && keys="$keys bpftrace"
[ -n "$BASE" ] && keys="$keys bprof bsysc"
read -r -a key_list <<<"$keys"
declare -A label=([true]="/bin/true" [prof]="stackscope profile" [profnc]="profile, no cache"
	[sysc]="stackscope syscalls"
	[strace]="strace -f" [ptrace]="perf trace" [prec]="perf record -g" [bpftrace]="bpftrace profile"
	[bprof]="baseline profile" [bsysc]="baseline syscalls")
cmd_of() {	# KEY -> the command, one word per line
	case $1 in
	true) printf '%s\n' "$TRUE" ;;
	prof) printf '%s\n' "$SS" profile -o /dev/null -- "$TRUE" ;;
	profnc) printf '%s\n' env STACKSCOPE_CACHE_DIR= "$SS" profile -o /dev/null -- "$TRUE" ;;
	sysc) printf '%s\n' "$SS" syscalls -o /dev/null -- "$TRUE" ;;
	strace) printf '%s\n' "$STRACE" -f -o /dev/null "$TRUE" ;;
	ptrace) printf '%s\n' "$PERF" trace -o /dev/null -- "$TRUE" ;;
	prec) printf '%s\n' "$PERF" record -q -F 99 -g -o "$tmp/perf.data" -- "$TRUE" ;;
	bpftrace) printf '%s\n' "$BPFTRACE" -e "$BT_PROG" -c "$TRUE" ;;
	bprof) printf '%s\n' "$BASE" profile -o /dev/null -- "$TRUE" ;;
	bsysc) printf '%s\n' "$BASE" syscalls -o /dev/null -- "$TRUE" ;;
	esac
}

# hyperfine's mean CPU time (user + system) of a run
hf_cpu() { awk -F: '/"user"|"system"/ { gsub(/[ ,]/, "", $2); c += $2 } END { printf "%.6f", c }' "$1"; }

# one KEY REP: "REP WALL CPU" (seconds) appended to results.KEY
one() {
	local k=$1 rep=$2 a line=""
	local -a cmd
	mapfile -t cmd < <(cmd_of "$k")
	if [ -n "$HYPERFINE" ]; then
		for a in "${cmd[@]}"; do line="$line $(q "$a")"; done
		if run_job "$HYPERFINE" -N --warmup 2 --runs 5 --style none \
			--export-json "$tmp/$k.$rep.json" -- "${line# }" </dev/null >/dev/null 2>"$tmp/$k.$rep.err"; then
			echo "$rep $(hf_medians "$tmp/$k.$rep.json") $(hf_cpu "$tmp/$k.$rep.json")" \
				>>"$tmp/results.$k"
			return 0
		fi
	elif run_job "$TIME" -f '%e %U %S' -o "$tmp/$k.$rep.time" "${cmd[@]}" </dev/null >/dev/null 2>"$tmp/$k.$rep.err"; then
		tail -n 1 "$tmp/$k.$rep.time" | awk -v r="$rep" '{ printf "%s %s %.6f\n", r, $1, $2 + $3 }' \
			>>"$tmp/results.$k"
		return 0
	fi
	echo "    ${label[$k]}, repetition $rep: failed, left out:"
	grep -v RLIMIT_MEMLOCK "$tmp/$k.$rep.err" | tail -n 3 | sed 's/^/      /'
	return 1
}
echo "start-up bench: $REPS repetitions, commands interleaved:"
bench_rounds one : "${key_list[@]}"

has() { case " $keys " in *" $1 "*) return 0 ;; esac; return 1; }
# A B [COL]: A's time minus B's, or A / B, per repetition, then the median
added() { paired "$1" "${3:-2}" '(a - bb) * 1000' "$2" | median; }
ratio() { paired "$1" "${3:-2}" 'a / bb' "$2" | median; }
# KEY PEER: "1.9x" (KEY's wall over PEER's), or - when either is missing
vs() { has "$1" && has "$2" && [ "$1" != "$2" ] && echo "$(fmt_r "$(ratio "$1" "$2")" 1)x" || echo -; }
echo
echo "Wall time (CPU: user + system), medians; ratios of wall times:"
printf '%-20s %-9s %-9s %-12s %-8s %-11s %-12s %s\n' command wall cpu "added wall" "/ strace" "/ perf tr." \
	"/ perf rec." "/ bpftrace"
for k in "${key_list[@]}"; do
	m=$(col 2 "$tmp/results.$k" | median)
	c=$(col 3 "$tmp/results.$k" | median)
	ad=-
	[ "$k" = true ] || ad=$(awk -v v="$(added "$k" true)" 'BEGIN { printf "%.1f ms", v }')
	case $k in
	sysc | bsysc | strace | ptrace) r1=$(vs "$k" strace) r2=$(vs "$k" ptrace) r3=- r4=- ;;
	prof | profnc | bprof | prec | bpftrace) r1=- r2=- r3=$(vs "$k" prec) r4=$(vs "$k" bpftrace) ;;
	*) r1=- r2=- r3=- r4=- ;;
	esac
	printf '%-20s %-9s %-9s %-12s %-8s %-11s %-12s %s\n' "${label[$k]}" "$(fmt_ms "$m")" \
		"$(fmt_ms "$c")" "$ad" "$r1" "$r2" "$r3" "$r4"
done
echo
echo "Targets:"
pa=$(added prof true)
echo "  profile -- /bin/true adds $(awk -v v="$pa" 'BEGIN { printf "%.1f", v }') ms (target <= 30 ms):" \
	"$(awk -v v="$pa" 'BEGIN { print (v != "nan" && v + 0 <= 30 ? "PASS" : "MISS") }')"
echo "  the same at a first start (no cached small kernel BTF; env's exec included):" \
	"$(awk -v v="$(added profnc true)" 'BEGIN { printf "%.1f", v }') ms"
if has strace; then
	sr=$(ratio sysc strace)
	echo "  syscalls -- /bin/true / strace -f /bin/true: $(fmt_r "$sr" 1) (target <= 2):" \
		"$(awk -v v="$sr" 'BEGIN { print (v != "nan" && v + 0 <= 2 ? "PASS" : "MISS") }')"
	echo "  the same in CPU time: $(fmt_r "$(ratio sysc strace 3)" 1)"
else
	echo "  syscalls against strace: skipped (strace not run)"
fi
echo
echo "Medians of $REPS repetitions, each $([ -n "$HYPERFINE" ] && echo "hyperfine's median of 5 runs (CPU: its mean)" || echo "one $TIME run");"
echo "added and ratios paired within each repetition.  Load average now: $(cut -d' ' -f1-3 /proc/loadavg)."
exit 0
