#!/usr/bin/env python3
"""The shape of a program's output that prints stacks: what stays the same
from run to run and from bpftrace to stackscope.  Frame lines differ by
address, offset and depth (stackscope leaves the tracer's own frames out,
bpftrace 0.17 keeps some), so every run of frame lines becomes one line
that keeps its layout:

  "    vfs_read+12"               ->  "    <frames>"     (indent kept)
  "\\tffffffff8123 vfs_read+12"   ->  "\\t<addr> <frames>"  (perf mode)
  "ffffffff8123abcd"              ->  "<addr>"          (raw mode)

Everything else (the keys' other elements, counts, printf text, blank
lines) is kept byte for byte.  bpftrace's "Attaching N probes..." line
is dropped.  Reads stdin, writes stdout.
  stackmask.py < output > shape"""

import re
import sys

FRAME = re.compile(r"^( +)(\S+\+\d+|0x[0-9a-f]+)$")
PERF = re.compile(r"^\t[0-9a-f]+ (\S+\+\d+|0x[0-9a-f]+)( \(.*\))?$")
RAW = re.compile(r"^[0-9a-f]{8,16}$")
ATTACHING = re.compile(r"^Attaching \d+ probes?\.\.\.$")


def shape(lines):
    out, last = [], None
    for line in lines:
        if ATTACHING.match(line):
            continue
        m = FRAME.match(line)
        if m:
            s = m.group(1) + "<frames>"
        elif PERF.match(line):
            s = "\t<addr> <frames>"
        elif RAW.match(line):
            s = "<addr>"
        else:
            out.append(line)
            last = None
            continue
        if s != last:
            out.append(s)
        last = s
    return out


def main():
    data = sys.stdin.buffer.read().decode("utf-8", "replace")
    end = "\n" if data.endswith("\n") else ""
    lines = data[:-1].split("\n") if end else data.split("\n")
    sys.stdout.write("\n".join(shape(lines)) + end)


if __name__ == "__main__":
    main()
