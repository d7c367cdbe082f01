#!/usr/bin/env python3
"""Checks a Chrome / Perfetto trace-event JSON file the way Perfetto reads it:

  - the document: an object with a "traceEvents" list;
  - every event has the fields its phase needs (X: name, ts, dur, pid,
    tid; B: name, ts, pid, tid; E: ts, pid, tid; M: name, pid, args.name
    for process_name / thread_name, and tid for thread_name);
  - per (pid, tid), in file order: every E closes an open B, none is left
    open;
  - per (pid, tid): the X and B/E slices nest strictly: two slices are
    either disjoint (touching is fine) or one holds the other whole.

usage: trace_check.py FILE [--min-events N] [--require-names]
  --require-names  every (pid, tid) with a slice has a thread_name and
                   its pid a process_name
Prints "ok: N events, T threads, S slices" or the problems found (at most
20) and exits 1."""
import json
import sys

PHASES = {
    "X": ("name", "ts", "dur", "pid", "tid"),
    "B": ("name", "ts", "pid", "tid"),
    "E": ("ts", "pid", "tid"),
    "M": ("name", "pid"),
    "i": ("name", "ts", "pid", "tid"),
    "I": ("name", "ts", "pid", "tid"),
}


def ns(v):
    """us in the file (three decimals) -> integer ns, exact"""
    return round(float(v) * 1000)


def check(doc, require_names=False):
    errs = []
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        return ["not an object with a traceEvents list"], 0, 0, 0
    events = doc["traceEvents"]
    open_b = {}       # (pid, tid) -> [(name, ts)]
    slices = {}       # (pid, tid) -> [(start, end, name)]
    procs, threads = set(), set()
    for i, e in enumerate(events):
        where = "event %d %s" % (i, json.dumps(e)[:160])
        if not isinstance(e, dict) or e.get("ph") not in PHASES:
            errs.append("%s: unknown phase" % where)
            continue
        ph = e["ph"]
        missing = [k for k in PHASES[ph] if k not in e]
        if missing:
            errs.append("%s: no %s" % (where, ", ".join(missing)))
            continue
        if ph == "M":
            if e["name"] in ("process_name", "thread_name"):
                name = (e.get("args") or {}).get("name")
                if not isinstance(name, str):
                    errs.append("%s: no args.name" % where)
                if e["name"] == "thread_name":
                    if "tid" not in e:
                        errs.append("%s: no tid" % where)
                    threads.add((e["pid"], e.get("tid")))
                else:
                    procs.add(e["pid"])
            continue
        if ph in ("i", "I"):
            continue
        key = (e["pid"], e["tid"])
        try:
            ts = ns(e["ts"])
            dur = ns(e["dur"]) if ph == "X" else 0
        except (TypeError, ValueError):
            errs.append("%s: ts or dur not a number" % where)
            continue
        if ts < 0 or dur < 0:
            errs.append("%s: negative ts or dur" % where)
            continue
        if ph == "X":
            slices.setdefault(key, []).append((ts, ts + dur, e["name"]))
        elif ph == "B":
            open_b.setdefault(key, []).append((e["name"], ts))
        else:
            stack = open_b.get(key)
            if not stack:
                errs.append("%s: E without an open B on its thread" % where)
                continue
            name, start = stack.pop()
            if "name" in e and e["name"] != name:
                errs.append("%s: E closes %r" % (where, name))
            if ts < start:
                errs.append("%s: E before its B" % where)
                continue
            slices.setdefault(key, []).append((start, ts, name))
    for key, stack in open_b.items():
        for name, start in stack:
            errs.append("pid %d tid %d: B %r at %d ns never closed" % (key[0], key[1], name, start))
    nslices = 0
    for key, sl in slices.items():
        nslices += len(sl)
        # outer first at equal starts
        sl.sort(key=lambda s: (s[0], -s[1]))
        stack = []
        for s in sl:
            while stack and stack[-1][1] <= s[0]:
                stack.pop()
            if stack and s[1] > stack[-1][1]:
                p = stack[-1]
                errs.append("pid %d tid %d: %r [%d, %d] overlaps %r [%d, %d] partially"
                            % (key[0], key[1], s[2], s[0], s[1], p[2], p[0], p[1]))
                continue
            stack.append(s)
        if require_names:
            if key not in threads:
                errs.append("pid %d tid %d: no thread_name" % key)
            if key[0] not in procs:
                errs.append("pid %d: no process_name" % key[0])
    return errs, len(events), len(slices), nslices


def main(argv):
    path, min_events, names = None, 0, False
    args = iter(argv[1:])
    for a in args:
        if a == "--min-events":
            min_events = int(next(args))
        elif a == "--require-names":
            names = True
        else:
            path = a
    if not path:
        print("usage: trace_check.py FILE [--min-events N] [--require-names]", file=sys.stderr)
        return 2
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print("%s: %s" % (path, e))
        return 1
    errs, n, nthreads, nslices = check(doc, names)
    if n < min_events:
        errs.append("%d events, expected at least %d" % (n, min_events))
    other = doc.get("otherData") if isinstance(doc, dict) else None
    if not isinstance(other, dict) or other.get("clock") != "CLOCK_MONOTONIC":
        errs.append("otherData does not say clock CLOCK_MONOTONIC")
    if errs:
        for e in errs[:20]:
            print("%s: %s" % (path, e))
        if len(errs) > 20:
            print("%s: ... %d more" % (path, len(errs) - 20))
        return 1
    print("ok: %d events, %d threads, %d slices" % (n, nthreads, nslices))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
