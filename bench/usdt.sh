#!/usr/bin/env bash
# bench/usdt.sh BUILD_DIR — USDT probes, stackscope next to bpftrace in one
# run (runs interleaved, medians and ratios): the cost per event of
#
#   usdt:WL:usdt_wl:regs { @ = sum(arg5); }
#
# while tests/workloads/usdt/usdt_wl fires that probe BENCH_CALLS times
# (default 100000; 8 arguments, in registers and on the stack), started
# by each tool with -c once attached: the workload's own time for its
# loop, traced minus untraced, divided by the calls (target: no more
# than bpftrace's).  Both tools' sums are checked
# against the value the workload passed (-2000000000 a call, modulo 2^64:
# bpftrace 0.17 prints it unsigned), so a tool that reads the argument
# wrong is said.
#
#   BENCH_REPS=5 BENCH_CALLS=100000 bench/usdt.sh build
#
# The machine is noisy (2 vCPUs shared): read the ratios.  Exits 0 whatever
# it measures, non-zero only when it cannot run.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
build=${1:-build}
SS=$build/stackscope
WL=$(cd "$build/tests/workloads/usdt" 2>/dev/null && pwd)/usdt_wl
bench_require "$SS" "$WL"
bench_tools bpftrace
[ -n "$BPFTRACE" ] || exit 0
REPS=${BENCH_REPS:-5}
CALLS=${BENCH_CALLS:-100000}
ulimit -l unlimited 2>/dev/null || true
bench_mount_tracefs bpftrace

run_job python3 - "$SS" "$BPFTRACE" "$WL" "$REPS" "$CALLS" <<'EOF'
import re, statistics, subprocess, sys

ss, bt, wl, reps, calls = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
prog = "usdt:%s:usdt_wl:regs { @ = sum(arg5); }" % wl
cmd = "%s spin %d" % (wl, calls)
# each tool starts the workload itself once every probe is attached (-c)
tools = [("stackscope", [ss, "-e", prog, "-c", cmd]), ("bpftrace", [bt, "-e", prog, "-c", cmd])]

def run(argv):
    """the workload's own time for its loop (ns), and the sum printed"""
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                       timeout=600)
    t = re.findall(r"^spin \d+ calls (\d+) ns$", r.stdout, re.M)
    m = re.findall(r"^@: (-?\d+)$", r.stdout, re.M)
    # bpftrace 0.17 prints the sum unsigned: compare modulo 2^64
    return int(t[-1]) if t else None, int(m[-1]) % (1 << 64) if m else None

def med(v):
    v = [x for x in v if x is not None]
    return statistics.median(v) if v else float("nan")

res = {name: {"t": [], "sum": []} for name, _ in tools}
base = []
for r in range(reps):
    order = tools if r % 2 == 0 else list(reversed(tools))
    base.append(run([wl, "spin", str(calls)])[0])
    for name, argv in order:
        t, s = run(argv)
        res[name]["t"].append(t)
        res[name]["sum"].append(s)

b = med(base)
want = (-2000000000 * calls) % (1 << 64)
print(f"untraced workload: {calls} usdt_wl:regs firings, median {b / 1e6:.1f} ms over {reps} runs")
print(f"{'':24}{'stackscope':>14}{'bpftrace':>14}{'ratio':>9}")
cost = {n: med([(t - b) / calls if t is not None else None for t in res[n]["t"]]) for n in res}
s, p = cost["stackscope"], cost["bpftrace"]
print(f"{'per event (8 args)':24}{s:>11.0f} ns{p:>11.0f} ns{s / p if p else float('nan'):>9.3f}")
for n in res:
    good = sum(1 for v in res[n]["sum"] if v == want)
    print(f"{n}: sum(arg5) right in {good} of {reps} runs (want {want}; got {res[n]['sum']})")
print("target: per event <= bpftrace: %s" % ("met" if s <= p else "NOT met"))
EOF
