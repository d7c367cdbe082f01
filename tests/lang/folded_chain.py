#!/usr/bin/env python3
"""The call chains two folded files share down to a frame: every line of
both must be "frame;frame;... VALUE" (VALUE a positive integer); each
stack that contains FRAME is cut after it, and the chains found in both
files are printed, "in both: CHAIN" a line (exit 0), or "no chain in
both" (exit 1).  For comparing two captures of one workload, whose
samples differ but whose call structure does not.
  folded_chain.py FRAME A.folded B.folded"""

import re
import sys

LINE = re.compile(r"^(\S(?:.*\S)?) ([1-9][0-9]*)$")


def chains(path, frame):
    found = set()
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            m = LINE.match(line.rstrip("\n"))
            if not m:
                sys.exit("%s:%d: not a folded line: %r" % (path, n, line))
            frames = m.group(1).split(";")
            if frame in frames:
                found.add(";".join(frames[:frames.index(frame) + 1]))
    return found


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    both = chains(sys.argv[2], sys.argv[1]) & chains(sys.argv[3], sys.argv[1])
    for c in sorted(both):
        print("in both: " + c)
    if not both:
        print("no chain in both")
        sys.exit(1)


if __name__ == "__main__":
    main()
