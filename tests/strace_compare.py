#!/usr/bin/env python3
"""Runs programs of the base system under `strace -ff` and under
`stackscope syscalls -f`, normalises what must differ between two runs
(pids, pointer values, times, random bytes, the environment's size) and
counts the strace lines that have an identical stackscope line.

    strace_compare.py STACKSCOPE WORKDIR [--min PERCENT] [--show N] [-v]

Prints one line per program ("ls -la: 203/207 (98.1%)"), the total share,
then the N most frequent strace lines without a twin (with -v, per
program).  Exits 1 when the total share is below --min."""
import argparse
import collections
import glob
import os
import re
import shutil
import subprocess
import sys

PY = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else "python3"


def programs(t):
    """(name, argv, setup): deterministic and brief; setup runs before
    each of the two runs, so both start from the same state."""
    clean = ["rm", "-rf", f"{t}/w"]
    return [
        ("ls -la", ["ls", "-la", "/etc/default"], None),
        ("cat", ["cat", "/etc/os-release"], None),
        ("sh pipeline", ["sh", "-c", "echo hello | wc -c"], None),
        ("python3", [PY, "-c", "import json, os; print(json.dumps(sorted(os.listdir('/etc/default'))))"], None),
        ("tar -cf", ["tar", "-cf", f"{t}/w/a.tar", "-C", "/etc", "default"],
         ["sh", "-c", f"rm -rf {t}/w && mkdir {t}/w"]),
        ("find", ["find", "/etc/default"], None),
        ("date", ["date", "-u", "-d", "@1700000000"], None),
        ("id", ["id"], None),
        ("true", ["true"], None),
        ("echo", ["sh", "-c", "echo hello"], None),
        ("stat", ["stat", "/etc/passwd"], None),
        ("head", ["head", "-n", "3", "/etc/passwd"], None),
        ("wc", ["wc", "-l", "/etc/passwd"], None),
        ("sort", ["sort", "/etc/shells"], None),
        ("uname", ["uname", "-a"], None),
        ("env", ["env"], None),
        ("basename", ["basename", "/usr/bin/ls"], None),
        ("readlink", ["readlink", "-f", "/usr/bin/python3"], None),
        ("touch+rm", ["sh", "-c", f"touch {t}/w/x && rm {t}/w/x"],
         ["sh", "-c", f"rm -rf {t}/w && mkdir {t}/w"]),
        ("mkdir", ["mkdir", f"{t}/w/d"], ["sh", "-c", f"rm -rf {t}/w && mkdir {t}/w"]),
        ("cp", ["cp", "/etc/hostname", f"{t}/w/c"], ["sh", "-c", f"rm -rf {t}/w && mkdir {t}/w"]),
        ("ls", ["ls", "/"], None),
        ("sh -c ls|sort", ["sh", "-c", "ls /etc/default | sort -r"], None),
        ("grep", ["grep", "-c", "root", "/etc/passwd"], None),
        ("dirname", ["dirname", "/usr/bin/ls"], None),
        # a pipe polled: select, poll, FIONBIO (not epoll: Python leaves
        # the upper half of its events' data to chance)
        ("python3 poll", [PY, "-c", "import select, os; r, w = os.pipe(); os.write(w, b'x'); "
                          "select.select([r], [w], [], 1); p = select.poll(); p.register(r); "
                          "p.register(w, select.POLLOUT); p.poll(0); "
                          "os.set_blocking(r, False)"], None),
    ]


PREFIX = re.compile(r"^\d\d:\d\d:\d\d\.\d+ (\(\+[^)]*\) )?\S*\[(\d+)(?:/(\d+))?\] (cpu\d+ )?")


def normalise(line, pids):
    # strace aligns results at column 40
    line = re.sub(r"\) {2,}= ", ") = ", line)
    line = re.sub(r"/\* \d+ vars \*/", "/* N vars */", line)
    # random bytes: getrandom's buffer
    line = re.sub(r'^getrandom\("(\\x[0-9a-f]{2})*"(\.\.\.)?', 'getrandom("RANDOM"', line)
    # times
    line = re.sub(r"(tv_sec|tv_nsec|tv_usec)=\d+", r"\1=N", line)
    line = re.sub(r"^(time\(\[?)\d+(\]?\) = )\d+ \([^)]*\)", r"\1N\2N", line)
    # the tracer is the first process's parent
    line = re.sub(r"^getppid\(\) = \d+$", "getppid() = PPID", line)
    # the machine's state: uptime, load, memory, processes
    line = re.sub(r"(uptime|loads|freeram|sharedram|bufferram|freeswap|procs|f_bfree|f_bavail|f_ffree)"
                  r"=(\[[^]]*\]|\d+)", r"\1=N", line)
    # address ranges read from /proc/PID/maps (ASLR)
    line = re.sub(r"\b[0-9a-f]{8,}-[0-9a-f]{8,}\b", "ADDR-ADDR", line)
    line = re.sub(r"\b[0-9a-f]{8,}-[0-9a-f]{0,7}\"\.\.\.", 'ADDR-"...', line)
    # pointers (and every long hex number: addresses, cookies)
    line = re.sub(r"0x[0-9a-f]{6,}", "0xADDR", line)
    if pids:
        line = re.sub(r"\b(%s)\b" % "|".join(sorted(pids, key=len, reverse=True)), "PID", line)
    return line.rstrip("\n")


def run_strace(argv, d, env):
    # stderr a file, as for stackscope, whose closing line is read there
    with open(f"{d}/st.err", "w") as err:
        subprocess.run(["strace", "-ff", "-o", f"{d}/st", "--"] + argv, env=env,
                       stdout=subprocess.DEVNULL, stderr=err, stdin=subprocess.DEVNULL)
    pids, lines = set(), []
    for f in sorted(glob.glob(f"{d}/st.[0-9]*")):
        pids.add(f.rsplit(".", 1)[1])
        with open(f, errors="replace") as fh:
            lines += fh.readlines()
    return pids, lines


def run_stackscope(ss, argv, d, env, extra):
    out = f"{d}/ss.txt"
    with open(f"{d}/ss.err", "w") as err:
        subprocess.run([ss, "syscalls", "-f", "-o", out] + extra + ["--"] + argv, env=env,
                       stdout=subprocess.DEVNULL, stderr=err, stdin=subprocess.DEVNULL)
    with open(f"{d}/ss.err") as err:
        errtext = err.read()
    pids, lines = set(), []
    with open(out, errors="replace") as fh:
        for line in fh:
            m = PREFIX.match(line)
            if not m:
                m2 = re.match(r"^\d\d:\d\d:\d\d\.\d+ \S*\[(\d+)\] ", line)
                if m2:
                    pids.add(m2.group(1))
                    lines.append(line[m2.end():])
                elif line.startswith("..."):
                    lines.append(line)
                continue
            pids.add(m.group(2))
            if m.group(3):
                pids.add(m.group(3))
            lines.append(line[m.end():])
    return pids, lines, errtext


def compare(ss, t, names, show, verbose, extra):
    env = dict(os.environ, LC_ALL="C.UTF-8")
    total = matched = 0
    missing_all = collections.Counter()
    for name, argv, setup in programs(t):
        if names and name not in names:
            continue
        if not shutil.which(argv[0]):
            print(f"{name}: {argv[0]} not installed, left out")
            continue
        d = f"{t}/{re.sub(r'[^a-z0-9]+', '_', name)}"
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        if setup:
            subprocess.run(setup, check=True)
        spids, slines = run_strace(argv, d, env)
        if setup:
            subprocess.run(setup, check=True)
        kpids, klines, err = run_stackscope(ss, argv, d, env, extra)
        if "0 lost records" not in err:
            print(f"{name}: stackscope: {err.strip()}")
        want = collections.Counter(normalise(l, spids) for l in slines)
        got = collections.Counter(normalise(l, kpids) for l in klines)
        n = sum(want.values())
        m = sum(min(c, got[l]) for l, c in want.items())
        total += n
        matched += m
        print(f"{name}: {m}/{n} ({100.0 * m / max(n, 1):.1f}%)")
        miss = collections.Counter({l: c - got[l] for l, c in want.items() if c > got[l]})
        missing_all.update(miss)
        if verbose:
            extra_got = collections.Counter({l: c - want[l] for l, c in got.items() if c > want[l]})
            for l, c in miss.most_common(show):
                print(f"   - {c}x {l}")
            for l, c in extra_got.most_common(show):
                print(f"   + {c}x {l}")
    share = 100.0 * matched / max(total, 1)
    print(f"total: {matched}/{total} ({share:.2f}%)")
    for l, c in missing_all.most_common(show):
        print(f"  {c}x {l}")
    return share


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("stackscope")
    ap.add_argument("workdir")
    ap.add_argument("--min", type=float, default=0.0)
    ap.add_argument("--show", type=int, default=20)
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("-s", dest="strsize")
    ap.add_argument("-v", action="store_true")
    a = ap.parse_args()
    extra = ["-s", a.strsize] if a.strsize else []
    share = compare(os.path.abspath(a.stackscope), os.path.abspath(a.workdir), a.only, a.show, a.v,
                    extra)
    if share < a.min:
        print(f"share {share:.2f}% below {a.min}%")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
