# End-to-end tests of the pprof output (profile, offcpu, flamegraph) read
# back with the reference reader, `go tool pprof` (Debian golang-go), and
# of flamegraph reading pprof.  Every pprof a test writes is read by it.

# go tool pprof with its caches in the test's directory (go wants a
# writable home); skips the test when go is missing.
gopprof() {
	command -v go >/dev/null || skip "no go (golang-go: scripts/deps.sh test)"
	HOME="$T/go" GOCACHE="$T/go/cache" GOPATH="$T/go/path" GOFLAGS=-mod=mod \
		go tool pprof "$@" 2>"$T/gopprof.err"
}

# `go tool pprof -raw` output on stdin -> folded lines on stdout, one per
# sample, merged by name and sorted: frames root first, kernel frames (in
# the [kernel.kallsyms] mapping) with "_[k]", a location without lines
# named as stackscope names one ("[file+0xOFF]", "[unknown]"); the value
# is column $1 (0-based) of the sample's values.
raw_folded() {
	python3 -c '
import re, sys, collections
col = int(sys.argv[1])
sec = None; samples = []; locs = {}; maps = {}; cur = None
for line in sys.stdin:
    line = line.rstrip("\n")
    if line in ("Samples:", "Locations", "Mappings"):
        sec = line; cur = None; continue
    if sec == "Samples:":
        m = re.match(r"^\s+([-\d ]+):((?: \d+)*)\s*$", line)
        if m:
            samples.append(([int(v) for v in m.group(1).split()], [int(i) for i in m.group(2).split()]))
    elif sec == "Locations":
        m = re.match(r"^\s+(\d+): (0x[0-9a-f]+)(?: M=(\d+))?(?: (.*))?$", line)
        if m:
            cur = int(m.group(1))
            locs[cur] = [int(m.group(2), 16), m.group(3), []]
            rest = m.group(4)
        elif cur is not None and line.strip():
            rest = line.strip()
        else:
            continue
        if rest and rest.strip():
            rest = re.sub(r" s=\d+$", "", rest.strip())
            locs[cur][2].append(rest.rsplit(" ", 1)[0])
    elif sec == "Mappings":
        m = re.match(r"^(\d+): (0x[0-9a-f]+)/(0x[0-9a-f]+)/(0x[0-9a-f]+) (\S+)", line)
        if m:
            maps[m.group(1)] = (int(m.group(2), 16), int(m.group(4), 16), m.group(5))
out = collections.Counter()
for vals, ids in samples:
    frames = []
    for i in reversed(ids):
        addr, mid, lines = locs[i]
        mp = maps.get(mid)
        kern = mp is not None and mp[2].startswith("[kernel")
        if not lines:
            if mp is None or kern:
                lines = ["[unknown]"]
            else:
                lines = ["[%s+0x%x]" % (mp[2].rsplit("/", 1)[-1], addr - mp[0] + mp[1])]
        for name in reversed(lines):
            frames.append(name + ("_[k]" if kern else ""))
    out[";".join(frames)] += vals[col]
for k in sorted(out):
    if out[k]:
        print(k, out[k])
' "$1"
}

# Folded on stdin, merged by name and sorted like raw_folded's.
norm_folded() {
	awk '{ v = $NF; sub(/ [0-9]+$/, ""); n[$0] += v } END { for (k in n) print k, n[k] }' |
		LC_ALL=C sort
}

test_pprof_profile_chain() {
	timeout 60 "$SS" profile -F 999 -o out.pb.gz -- "$WL/fp_chain" 2 2>err.txt ||
		fail "profile exited $?: $(cat err.txt)"
	[ "$(head -c2 out.pb.gz | od -An -tx1 | tr -d ' ')" = 1f8b ] || fail "not gzip"
	gopprof -raw out.pb.gz >raw.txt || fail "go tool pprof -raw: $(cat gopprof.err)"
	grep -q '^PeriodType: cpu nanoseconds' raw.txt || fail "period type: $(head -5 raw.txt)"
	grep -q '^Period: 1001001$' raw.txt || fail "period: $(grep Period raw.txt)"
	grep -q '^samples/count cpu/nanoseconds' raw.txt || fail "sample types: $(grep -A1 Samples: raw.txt)"
	grep -q '^Duration: ' raw.txt || fail "no duration"
	# the run's start, as the wall clock had it (this test ran within the hour)
	start=$(sed -n 's/^Time: \([0-9-]* [0-9:.]*\) \([-+][0-9]*\) .*/\1 \2/p' raw.txt)
	age=$(($(date +%s) - $(date -d "${start:-none}" +%s 2>/dev/null || echo 0)))
	[ -n "$start" ] && [ "$age" -ge 0 ] && [ "$age" -lt 3600 ] ||
		fail "start time: $(grep '^Time' raw.txt)"
	# every value pair is (count, count * period)
	bad=$(awk '/^Samples:/ { s = 1; next } /^Locations/ { s = 0 }
		s && /^ +[0-9]+ +[0-9]+:/ { sub(":", "", $2); if ($1 * 1001001 != $2) print }' raw.txt)
	[ -z "$bad" ] || fail "values not count, count * period: $bad"
	raw_folded 0 <raw.txt >go.folded
	all=$(awk '/;leaf( |$)/' go.folded | total /dev/stdin)
	full=$(samples go.folded '^fp_chain;([^;]*;)*main;parent;child;leaf ')
	[ "$all" -ge 20 ] || fail "only $all samples in leaf: $(head -3 go.folded)"
	[ "$full" = "$all" ] || fail "leaf without main;parent;child;leaf: $(grep -v 'main;parent;child;leaf ' go.folded | head -2)"
	# labels: comm and the workload's pid on every sample
	gopprof -tags out.pb.gz >tags.txt || fail "go tool pprof -tags: $(cat gopprof.err)"
	grep -q 'fp_chain' tags.txt || fail "no comm label: $(cat tags.txt)"
	grep -Eq '^ *pid: Total' tags.txt || fail "no pid label: $(cat tags.txt)"
	nolabel=$(awk '/^Samples:/ { s = 1; next } /^Locations/ { s = 0 }
		s && /^ +[0-9]/ { if (p && !c) n++; p = 1; c = 0 } s && /comm:\[/ { c = 1 }
		END { if (p && !c) n++; print n + 0 }' raw.txt)
	[ "$nolabel" = 0 ] || fail "$nolabel samples without a comm label"
	# the leaf function in -top, and the binary's mapping with its build id
	gopprof -top out.pb.gz | grep -q ' leaf$' || fail "leaf not in -top"
	grep -Eq '^[0-9]+: 0x[0-9a-f]+/0x[0-9a-f]+/0x[0-9a-f]+ [^ ]*/fp_chain [0-9a-f]{40}' raw.txt ||
		fail "no fp_chain mapping with a build id: $(sed -n '/^Mappings/,$p' raw.txt)"
	# stackscope reads back what go reads
	"$SS" flamegraph --format folded --sample-type samples out.pb.gz | norm_folded >ss.folded ||
		fail "flamegraph could not read it back"
	diff go.folded ss.folded >d.txt || fail "go and stackscope read different stacks: $(head -5 d.txt)"
}

test_pprof_per_thread_labels() {
	timeout 60 "$SS" profile --per-thread -F 999 -o out.pb.gz -- "$WL/pingpong" 2>err.txt ||
		fail "profile exited $?: $(cat err.txt)"
	gopprof -tags out.pb.gz >tags.txt || fail "go tool pprof -tags: $(cat gopprof.err)"
	grep -Eq '^ *tid: Total' tags.txt || fail "no tid label: $(cat tags.txt)"
	grep -Eq '^ *thread_name: Total' tags.txt || fail "no thread_name label: $(cat tags.txt)"
	grep -q 'pingpong' tags.txt || fail "thread name: $(cat tags.txt)"
}

test_pprof_kernel_mapping_and_folded_agree() {
	# the same stacks as folded and (through flamegraph) as pprof agree
	# sample for sample, kernel frames included
	timeout 60 "$SS" profile -F 999 -o out.folded -- "$WL/syscall_heavy" 1 2>err.txt ||
		fail "profile exited $?"
	grep -q '_\[k\]' out.folded || fail "no kernel frames: $(head -2 out.folded)"
	"$SS" flamegraph -o out.pb.gz out.folded || fail "flamegraph -o out.pb.gz"
	gopprof -raw out.pb.gz >raw.txt || fail "go tool pprof -raw: $(cat gopprof.err)"
	grep -q '\[kernel.kallsyms\]' raw.txt || fail "no kernel mapping: $(sed -n '/^Mappings/,$p' raw.txt)"
	raw_folded 0 <raw.txt >go.folded
	norm_folded <out.folded >want.folded
	[ "$(total go.folded)" = "$(total want.folded)" ] ||
		fail "totals: pprof $(total go.folded), folded $(total want.folded)"
	diff want.folded go.folded >d.txt || fail "stacks differ: $(head -5 d.txt)"
	# and back to folded by stackscope itself
	"$SS" flamegraph --format folded out.pb.gz | norm_folded >back.folded
	diff want.folded back.folded >d.txt || fail "round trip differs: $(head -5 d.txt)"
}

# offcpu_waits RAW ERR: the waits (events/count) of an offcpu_wl run's
# pprof (ERR: its -v output): every blocked interval the kernel counted
# is a wait of some stack, or of the stacks under 0.5 us in all left out;
# main;sleeper;raw_nanosleep slept (3 times) in nanosleep(2)
offcpu_waits() {
	local naps all intervals tiny lost
	raw_folded 1 <"$1" >waits.folded
	all=$(total waits.folded)
	intervals=$(sed -n 's/.*switch-outs, \([0-9]*\) intervals counted.*/\1/p' "$2")
	tiny=$(sed -n 's/.*in all left out (\([0-9]*\) waits).*/\1/p' "$2")
	lost=$(sed -n 's/^stackscope offcpu: .* \([0-9]*\) lost blocked intervals.*/\1/p' "$2")
	[ "$lost" = 0 ] || fail "lost blocked intervals: $(tail -1 "$2")"
	[ -n "$intervals" ] && [ -n "$tiny" ] && [ "$((all + tiny))" = "$intervals" ] ||
		fail "$all waits in the pprof + ${tiny:-?} left out, ${intervals:-?} intervals counted: $(grep -E 'intervals' "$2")"
	naps=$(samples waits.folded '^offcpu_wl;([^;]*;)*main;sleeper;raw_nanosleep;([^;]*;)*do_nanosleep_\[k\]')
	[ "$naps" -ge 1 ] && [ "$naps" -le 3 ] ||
		fail "$naps waits in do_nanosleep under main;sleeper, not 1 to 3: $(grep -E 'sleeper|nanosleep' waits.folded)"
}

test_pprof_offcpu_waits_fp() {
	# waits counted in the kernel with frame-pointer stacks (the other
	# test: user stacks copied at syscall exit, counted here)
	timeout 60 "$SS" offcpu -v --unwind fp -o out.pb.gz -- "$WL/offcpu_wl" >wl.txt 2>err.txt ||
		fail "offcpu exited $?: $(cat err.txt)"
	gopprof -raw out.pb.gz >raw.txt || fail "go tool pprof -raw: $(cat gopprof.err)"
	offcpu_waits raw.txt err.txt
	# -top shows the default type, the time
	gopprof -top out.pb.gz >top.txt || fail "go tool pprof -top: $(cat gopprof.err)"
	grep -q '^Type: offcpu$' top.txt || fail "-top's type: $(head -3 top.txt)"
}

test_pprof_offcpu() {
	timeout 60 "$SS" offcpu -v -o out.pb.gz -- "$WL/offcpu_wl" >wl.txt 2>err.txt ||
		fail "offcpu exited $?: $(cat err.txt)"
	gopprof -raw out.pb.gz >raw.txt || fail "go tool pprof -raw: $(cat gopprof.err)"
	grep -q '^offcpu/nanoseconds\[dflt\] events/count$' raw.txt ||
		fail "sample types: $(grep -A1 Samples: raw.txt)"
	raw_folded 0 <raw.txt >go.folded
	offcpu_waits raw.txt err.txt
	# values are ns: the model's microseconds times 1000
	bad=$(awk '$NF % 1000' go.folded | head -2)
	[ -z "$bad" ] || fail "values not whole microseconds in ns: $bad"
	asleep=$(samples go.folded '^offcpu_wl;([^;]*;)*main;sleeper;raw_nanosleep;')
	[ "$asleep" -ge 900000000 ] || fail "only $asleep ns under main;sleeper;raw_nanosleep: $(head -3 go.folded)"
	"$SS" flamegraph out.pb.gz -o out.svg || fail "flamegraph of the pprof"
	grep -q 'data-unit="ns"' out.svg || fail "the SVG's unit: $(grep -o 'data-unit="[^"]*"' out.svg)"
	grep -q '<title>raw_nanosleep (' out.svg || fail "no raw_nanosleep frame in the SVG"
}

test_pprof_flamegraph_diff_and_inverted() {
	printf 'main;a;x 30\nmain;a 20\nmain;b 50\n' >before.folded
	printf 'main;a;x 70\nmain;a 10\nmain;b 10\nmain;c 10\n' >after.folded
	"$SS" flamegraph -o before.pb.gz before.folded || fail "flamegraph -o before.pb.gz"
	gopprof -raw before.pb.gz >/dev/null || fail "go tool pprof -raw: $(cat gopprof.err)"
	# inputs of either kind
	"$SS" flamegraph --diff before.pb.gz after.folded -o diff.svg || fail "--diff exited $?"
	grep -q '<title>x (70 samples, 70.00%, +40.00 points: was 30.00%)</title>' diff.svg ||
		fail "x's delta: $(grep -o '<title>x [^<]*' diff.svg)"
	grep -q '<title>b (10 samples, 10.00%, -40.00 points: was 50.00%)</title><rect [^>]*fill="#2828ff"' diff.svg ||
		fail "b: $(grep -o '<title>b [^/]*' diff.svg)"
	"$SS" flamegraph --inverted after.folded -o ice.svg || fail "--inverted exited $?"
	grep -q 'data-d="1"><title>x (70 samples' ice.svg || fail "x not under the root: $(grep -o 'data-d="1"><title>[^<]*' ice.svg)"
}

# `go tool pprof -raw` on stdin -> each Location's Lines on one row:
# "inner FILE:L | middle FILE:L | ...", innermost first
locs_rows() {
	awk '/^Locations/ { s = 1; next } /^Mappings/ { s = 0 }
		s && /^ +[0-9]+: 0x/ { if (row != "") print row; row = ""; $1 = ""; $2 = ""; $3 = "" }
		s { sub(/ s=[0-9]+$/, ""); gsub(/^ +/, ""); if ($0 != "") row = row (row == "" ? "" : " | ") $0 }
		END { if (row != "") print row }'
}

test_pprof_inlined_frames() {
	# inline_chain: main -> outer, with middle and inner inlined into
	# outer (DWARF's chain); the leaf Location has three Lines, innermost
	# first, with the workload's file and the lines marked in its source
	local src="$ROOT/tests/workloads/inline/inline_chain.c" mid out raw_lines
	timeout 60 "$SS" profile -F 999 -o out.pb.gz -- "$WL/inline/inline_chain" 1 2>err.txt ||
		fail "profile exited $?: $(cat err.txt)"
	mid=$(grep -n 'LINE_MIDDLE_CALL' "$src" | cut -d: -f1)
	out=$(grep -n 'LINE_OUTER_CALL' "$src" | cut -d: -f1)
	gopprof -raw out.pb.gz >raw.txt || fail "go tool pprof -raw: $(cat gopprof.err)"
	locs_rows <raw.txt >locs.txt
	raw_lines=$(grep -c "^inner $src:[0-9]* | middle $src:$mid | outer $src:$out\$" locs.txt)
	[ "$raw_lines" -ge 1 ] || fail "no Location inner | middle:$mid | outer:$out in $src: $(grep inner locs.txt | head -3)"
	# flamegraph reads them back and writes them again
	"$SS" flamegraph -o again.pb.gz out.pb.gz || fail "flamegraph -o again.pb.gz"
	gopprof -raw again.pb.gz | locs_rows >again.txt || fail "go tool pprof -raw: $(cat gopprof.err)"
	[ "$(grep -c "^inner $src:[0-9]* | middle $src:$mid | outer $src:$out\$" again.txt)" = "$raw_lines" ] ||
		fail "read and written again: $(grep inner again.txt | head -3)"
	# inner's own lines lie in its body
	first=$(grep -n 'LINE_INNER_FIRST' "$src" | cut -d: -f1)
	last=$(grep -n 'LINE_INNER_LAST' "$src" | cut -d: -f1)
	bad=$(grep -o "^inner $src:[0-9]*" locs.txt | sed 's/.*://' |
		awk -v f="$first" -v l="$last" '$1 < f || $1 > l')
	[ -z "$bad" ] || fail "inner at lines $bad, outside its body ($first-$last)"
	gopprof -traces out.pb.gz >traces.txt || fail "go tool pprof -traces: $(cat gopprof.err)"
	grep -A3 '  inner (inline)$' traces.txt | tr -s ' ' | tr '\n' ';' |
		grep -q 'inner (inline);[^;]*middle (inline); outer; main' ||
		fail "-traces: $(grep -A3 'inner' traces.txt | head -4)"
	grep -Eq '^[0-9]+: .*/inline_chain [0-9a-f]{40} \[FN\]\[FL\]\[LN\]\[IN\]' raw.txt ||
		fail "mapping flags: $(sed -n '/^Mappings/,$p' raw.txt)"
	# folded output shows them as frames, and agrees with the pprof
	raw_folded 0 <raw.txt >go.folded
	n=$(samples go.folded '^inline_chain;([^;]*;)*main;outer;middle;inner ')
	[ "$n" -ge 20 ] || fail "only $n samples in main;outer;middle;inner: $(head -3 go.folded)"
	"$SS" flamegraph --format folded --sample-type samples out.pb.gz | norm_folded >ss.folded
	diff go.folded ss.folded >d.txt || fail "go and stackscope read different stacks: $(head -5 d.txt)"
}
