#!/usr/bin/env bash
# bench/lang.sh BUILD_DIR — the one-liner language, stackscope next to
# bpftrace in one run (runs interleaved, medians and ratios):
#
#   start-up  `-e 'BEGIN { exit(); }'`, the whole process: wall time and
#             peak RSS (targets: at most 1/10 of bpftrace's time and 20 ms;
#             RSS at most 1/5 of bpftrace's)
#   attach    from launch to "Attached N probes" (bpftrace: "Attaching N
#             probes...") for a tracepoint + interval program
#   per event `tracepoint:raw_syscalls:sys_enter { @[comm] = count(); }`
#             while a workload makes BENCH_CALLS getppid() calls (default
#             1000000): the workload's wall time traced minus untraced,
#             divided by the calls (target: no more than bpftrace's)
#   ustack    `tracepoint:raw_syscalls:sys_enter /comm == "sysc_wl"/
#             { @[ustack] = count(); }` the same way over BENCH_USTACK_CALLS
#             calls (default 200000): stackscope's default (a snapshot of
#             the user stack unwound in user space), stackscope's
#             ustack(fp) (the kernel's frame-pointer walk, as bpftrace's)
#             and bpftrace's ustack; ratios to bpftrace's
#
#   BENCH_REPS=5 BENCH_CALLS=1000000 bench/lang.sh build
#
# The machine is noisy (2 vCPUs shared): read the ratios.  Exits 0 whatever
# it measures, non-zero only when it cannot run.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib.sh
. "$here/lib.sh"
build=${1:-build}
SS=$build/stackscope
WL=$build/tests/workloads/sysc_wl
bench_require "$SS" "$WL"
bench_tools bpftrace
[ -n "$BPFTRACE" ] || exit 0
REPS=${BENCH_REPS:-5}
CALLS=${BENCH_CALLS:-1000000}
UCALLS=${BENCH_USTACK_CALLS:-200000}
ulimit -l unlimited 2>/dev/null || true
bench_mount_tracefs bpftrace

run_job python3 - "$SS" "$BPFTRACE" "$WL" "$REPS" "$CALLS" "$tmp" "$UCALLS" <<'EOF'
import os, signal, statistics, subprocess, sys, time

ss, bt, wl, reps, calls, tmp = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
ucalls = int(sys.argv[7])
tools = [("stackscope", [ss, "-q", "-e"], [ss, "-e"]), ("bpftrace", [bt, "-e"], ["stdbuf", "-oL", bt, "-e"])]

def startup(argv):
    """wall seconds of one whole run, and its peak RSS (KiB) from a second
    run under /usr/bin/time (the first one's rusage would count the
    forked Python before the exec)"""
    t0 = time.monotonic()
    rc = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    t = time.monotonic() - t0
    r = subprocess.run(["/usr/bin/time", "-f", "RSS %M"] + argv, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    rss = [int(l.split()[1]) for l in r.stderr.splitlines() if l.startswith("RSS ")]
    return t, rss[-1] if rss else None, rc

def until_attached(argv, marker, stream):
    """seconds from launch to the marker line; the process is then stopped"""
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE if stream == "out" else subprocess.DEVNULL,
                         stderr=subprocess.PIPE if stream == "err" else subprocess.DEVNULL, text=True)
    f = p.stdout if stream == "out" else p.stderr
    t = None
    for line in f:
        if marker in line:
            t = time.monotonic() - t0
            break
    p.send_signal(signal.SIGINT)
    try:
        p.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
    return t

def workload(n=None):
    d = os.path.join(tmp, "wl")
    os.makedirs(d, exist_ok=True)
    t0 = time.monotonic()
    subprocess.run([wl, d, str(n or calls)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.monotonic() - t0

def traced(argv, marker, stream, n=None):
    p = subprocess.Popen(argv, stdout=subprocess.PIPE if stream == "out" else subprocess.DEVNULL,
                         stderr=subprocess.PIPE if stream == "err" else subprocess.DEVNULL, text=True)
    f = p.stdout if stream == "out" else p.stderr
    ok = False
    for line in f:
        if marker in line:
            ok = True
            break
    t = workload(n) if ok else None
    p.send_signal(signal.SIGINT)
    try:
        p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
    return t

def med(v):
    v = [x for x in v if x is not None]
    return statistics.median(v) if v else float("nan")

res = {name: {"start": [], "rss": [], "attach": [], "event": []} for name, _, _ in tools}
base = []
attach_prog = "tracepoint:syscalls:sys_enter_openat { @ = count(); } interval:s:1 { @i = count(); }"
event_prog = "tracepoint:raw_syscalls:sys_enter { @[comm] = count(); }"
for r in range(reps):
    order = tools if r % 2 == 0 else list(reversed(tools))
    for name, quiet, loud in order:
        t, rss, rc = startup(quiet + ["BEGIN { exit(); }"])
        if rc == 0:
            res[name]["start"].append(t)
            res[name]["rss"].append(rss)
        marker, stream = ("Attached", "err") if name == "stackscope" else ("Attaching", "out")
        res[name]["attach"].append(until_attached(loud + [attach_prog], marker, stream))
    base.append(workload())
    for name, quiet, loud in order:
        marker, stream = ("Attached", "err") if name == "stackscope" else ("Attaching", "out")
        res[name]["event"].append(traced(loud + [event_prog], marker, stream))

b = med(base)
print(f"untraced workload: {calls} getppid() calls, median {b * 1000:.0f} ms over {reps} runs")

# user stacks: the snapshot (stackscope's default), the frame-pointer walk
# (stackscope's ustack(fp)), bpftrace's ustack (frame pointers)
uprog = 'tracepoint:raw_syscalls:sys_enter /comm == "sysc_wl"/ { @[%s] = count(); }'
ukinds = [("stackscope ustack", [ss, "-e", uprog % "ustack"], "Attached", "err"),
          ("stackscope ustack(fp)", [ss, "-e", uprog % "ustack(fp)"], "Attached", "err"),
          ("bpftrace ustack", ["stdbuf", "-oL", bt, "-e", uprog % "ustack"], "Attaching", "out")]
ures = {k[0]: [] for k in ukinds}
ubase = []
for r in range(reps):
    ubase.append(workload(ucalls))
    for name, argv, marker, stream in (ukinds if r % 2 == 0 else list(reversed(ukinds))):
        ures[name].append(traced(argv, marker, stream, ucalls))

print(f"{'':24}{'stackscope':>14}{'bpftrace':>14}{'ratio':>9}")
def row(label, key, scale, unit, fmt="{:.1f}"):
    s, p = med(res["stackscope"][key]), med(res["bpftrace"][key])
    print(f"{label:24}{fmt.format(s * scale) + ' ' + unit:>14}{fmt.format(p * scale) + ' ' + unit:>14}{s / p if p else float('nan'):>9.3f}")
    return s, p
s_start, p_start = row("BEGIN { exit(); }", "start", 1000, "ms")
s_rss, p_rss = row("  peak RSS", "rss", 1 / 1024, "MiB")
s_att, p_att = row("launch to attached", "attach", 1000, "ms")
for name in res:
    res[name]["cost"] = [(t - b) / calls if t is not None else None for t in res[name]["event"]]
print("traced workload runs (s):", {n: res[n]["event"] for n in res}, file=sys.stderr) if os.environ.get("BENCH_DEBUG") else None
s_ev, p_ev = row("per event (sys_enter)", "cost", 1e9, "ns", "{:.0f}")
ub = med(ubase)
ucost = {n: med([(t - ub) / ucalls if t is not None else None for t in ures[n]]) for n in ures}
print(f"per event with @[ustack] = count() over {ucalls} getppid() calls (untraced {ub * 1000:.0f} ms):")
for n in ures:
    bt_cost = ucost["bpftrace ustack"]
    print(f"  {n:24}{ucost[n] * 1e9:>10.0f} ns{ucost[n] / bt_cost if bt_cost else float('nan'):>9.3f}")
print("targets: start-up <= 1/10 of bpftrace and <= 20 ms: %s; RSS <= 1/5: %s; per event <= bpftrace: %s" % (
    "met" if s_start <= p_start / 10 and s_start <= 0.020 else "NOT met",
    "met" if s_rss <= p_rss / 5 else "NOT met",
    "met" if s_ev <= p_ev else "NOT met"))
EOF
