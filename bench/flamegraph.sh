#!/usr/bin/env bash
# shellcheck disable=SC2317  # functions run by lib.sh's bench_rounds look unreachable
# bench/flamegraph.sh BUILD_DIR — stackscope flamegraph next to
# flamegraph.pl (and inferno-flamegraph when installed) rendering the same
# folded files to SVG, in one run.
#
#   REPS=3 FLAMEGRAPH_PL=~/FlameGraph/flamegraph.pl bench/flamegraph.sh build
#
# Inputs, made by bench/gen-folded.awk (the same every time):
#   large: 200000 distinct stacks, 10.9 million samples, about 84 MB;
#   small: 12000 stacks, 0.65 million samples, about 5 MB.
# Lines are in no particular order, so each tool sorts or hashes them itself.
# Tools (each writes its SVG to a file in this run's temporary directory):
#   stackscope flamegraph -o OUT.svg IN
#   BENCH_BASELINE=PATH: another stackscope binary, say the last release, the
#       same way (a before/after comparison in one run)
#   flamegraph.pl IN > OUT.svg: FLAMEGRAPH_PL=PATH, else flamegraph.pl on
#       PATH; Debian 12 has no package for it (a checkout of the FlameGraph
#       repository has it); skipped when missing
#   inferno-flamegraph IN > OUT.svg (Rust, cargo install inferno): when on PATH
# With REPS repetitions (default 3), the runs interleaved inside each (the
# order rotates from one repetition to the next), it prints per tool and
# input the median wall time, the median CPU time (user + sys), the peak
# memory (largest resident set, /usr/bin/time's %M) and the ratio of
# flamegraph.pl's median wall time to each tool's.  The targets of the
# issue are printed with the figures: on the large input at least 20x
# faster than flamegraph.pl, the small one under 0.1 s.  The machine is
# noisy: read the ratios; it exits 0 whatever it measures.
# flamegraph.pl takes 40 to 90 s on the large input here: about 5 minutes
# with the defaults.  Needs /usr/bin/time and the build (`make`); not root.
set -uo pipefail

usage() { echo "usage: [REPS=N] [FLAMEGRAPH_PL=PATH] [BENCH_BASELINE=PATH] $0 BUILD_DIR" >&2; exit 2; }
[ $# -le 1 ] || usage
case "${1:-}" in -h|--help) usage ;; esac
BUILD=${1:-build}
REPS=${REPS:-3}
case "$REPS" in '' | *[!0-9]* | 0) echo "REPS must be a positive integer" >&2; exit 2 ;; esac

here=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "$BUILD" 2>/dev/null && pwd) || { echo "no build directory ${1:-build}" >&2; exit 1; }
SS=$BUILD/stackscope
GEN=$here/gen-folded.awk
[ -x "$SS" ] || { echo "missing $SS: run make" >&2; exit 1; }
[ -r "$GEN" ] || { echo "missing $GEN" >&2; exit 1; }

# shellcheck source=bench/lib.sh
. "$here/lib.sh"
[ -x "$TIME" ] || { echo "missing $TIME (Debian package time): scripts/deps.sh bench" >&2; exit 1; }

PL=${FLAMEGRAPH_PL:-$(command -v flamegraph.pl || true)}
[ -n "$PL" ] && [ -r "$PL" ] || { PL=""; echo "skipped: flamegraph.pl missing (FLAMEGRAPH_PL=PATH; not packaged in Debian 12)"; }
INFERNO=$(command -v inferno-flamegraph || true)
[ -n "$INFERNO" ] || echo "skipped: inferno-flamegraph missing (not packaged in Debian 12)"
BASE=${BENCH_BASELINE:-}
[ -z "$BASE" ] || [ -x "$BASE" ] || { echo "BENCH_BASELINE=$BASE is not executable" >&2; exit 2; }

echo "generating the inputs (bench/gen-folded.awk)..."
awk -v stacks=200000 -v seed=1 -f "$GEN" >"$tmp/large.folded" || exit 1
awk -v stacks=12000 -v seed=1 -f "$GEN" >"$tmp/small.folded" || exit 1
describe() {	# FILE -> "N stacks, N samples, N MB"
	awk '{ s += $NF } END { printf "%d stacks, %.1f million samples", NR, s / 1e6 }' "$1"
	printf ', %s\n' "$(fmt_b "$(stat -c %s "$1")")"
}
echo "  large: $(describe "$tmp/large.folded")"
echo "  small: $(describe "$tmp/small.folded")"

tools="ss"
[ -n "$BASE" ] && tools="$tools base"
[ -n "$PL" ] && tools="$tools pl"
[ -n "$INFERNO" ] && tools="$tools inferno"
read -r -a tool_list <<<"$tools"
declare -A label=([ss]="stackscope flamegraph" [base]="baseline stackscope" [pl]="flamegraph.pl"
	[inferno]="inferno-flamegraph")

# one TOOL REP: both inputs; results.TOOL.INPUT gets "REP WALL CPU MAXRSS_KB"
one() {
	local t=$1 rep=$2 in out tf rc
	for in in large small; do
		out=$tmp/$t.$in.svg
		tf=$tmp/$t.$in.$rep.time
		case $t in
		ss) run_job "$TIME" -f '%e %U %S %M' -o "$tf" "$SS" flamegraph -o "$out" "$tmp/$in.folded" ;;
		base) run_job "$TIME" -f '%e %U %S %M' -o "$tf" "$BASE" flamegraph -o "$out" "$tmp/$in.folded" ;;
		pl) run_job "$TIME" -f '%e %U %S %M' -o "$tf" perl "$PL" "$tmp/$in.folded" >"$out" ;;
		inferno) run_job "$TIME" -f '%e %U %S %M' -o "$tf" "$INFERNO" "$tmp/$in.folded" >"$out" ;;
		esac </dev/null 2>"$tmp/$t.$in.err"
		rc=$?
		if [ "$rc" != 0 ] || [ ! -s "$out" ]; then
			echo "    ${label[$t]}, $in, repetition $rep: failed (exit $rc), left out:"
			tail -n 3 "$tmp/$t.$in.err" | sed 's/^/      /'
			continue
		fi
		tail -n 1 "$tf" | awk -v r="$rep" '{ printf "%s %s %.3f %s\n", r, $1, $2 + $3, $4 }' \
			>>"$tmp/results.$t.$in"
		[ "$rep" = 1 ] && [ "$in" = large ] && wc -c <"$out" >"$tmp/$t.svgsize"
		rm -f "$out"
	done
}
echo "flamegraph bench: $REPS repetitions, runs interleaved:"
bench_rounds one : "${tool_list[@]}"

row() { printf '%-24s %-6s %-10s %-10s %-11s %-18s %s\n' "$@"; }
echo
row tool input wall cpu "peak mem" "flamegraph.pl/it" runs
declare -A wall
for in in large small; do
	for t in "${tool_list[@]}"; do
		f=$tmp/results.$t.$in
		w=$(col 2 "$f" | median) c=$(col 3 "$f" | median) m=$(col 4 "$f" | sort -g | tail -n 1)
		wall[$t.$in]=$w
		r=n/a
		[ -n "$PL" ] && r=$(fmt_r "$(col 2 "$tmp/results.pl.$in" | median)" "$w")
		[ "$r" = n/a ] || r=${r}x
		row "${label[$t]}" "$in" "$(fmt_ms "$w")" "$(fmt_ms "$c")" \
			"$(isnum "$m" && fmt_b "$((m * 1024))" || echo n/a)" "$r" \
			"$([ -s "$f" ] && wc -l <"$f" || echo 0)/$REPS"
	done
done
echo
echo "Targets:"
if [ -n "$PL" ]; then
	r=$(fmt_r "${wall[pl.large]}" "${wall[ss.large]}")
	echo "  large input, flamegraph.pl wall / stackscope wall: $r (target >= 20):" \
		"$(awk -v r="$r" 'BEGIN { print (r + 0 >= 20 ? "PASS" : "MISS") }')"
else
	echo "  large input against flamegraph.pl: skipped (flamegraph.pl not run)"
fi
s=${wall[ss.small]}
echo "  small input, stackscope wall: $(fmt_ms "$s") (target < 100 ms):" \
	"$(awk -v s="$s" 'BEGIN { print (s + 0 < 0.1 ? "PASS" : "MISS") }')"
echo
echo "Medians of $REPS repetitions; wall and cpu (user + sys) from $TIME (10 ms steps), peak mem"
echo "the largest resident set of any repetition.  SVG size on the large input:" \
	"$(for t in "${tool_list[@]}"; do printf '%s %s; ' "${label[$t]}" "$(fmt_b "$(cat "$tmp/$t.svgsize" 2>/dev/null)")"; done)"
echo "(stackscope and flamegraph.pl both leave out frames narrower than 0.1 px; stackscope also"
echo "keeps the 30000 widest, so a browser opens the file quickly.)  Load average now: $(cut -d' ' -f1-3 /proc/loadavg)."
exit 0
