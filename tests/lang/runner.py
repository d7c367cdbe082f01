#!/usr/bin/env python3
"""End-to-end cases of the language, in the spirit of bpftrace's runtime
tests: directive files tests/lang/*.test, one case a paragraph (cases are
separated by blank lines, '#' starts a comment line).

  NAME name            the case's name (required)
  PROG program         run BIN -e 'program' [ARGS]         } one of the two
  RUN command          a shell command; {{BIN}} is the binary }
  ARGS a b ...         positional parameters after PROG
  EXPECT text          a line of the output is exactly text (all EXPECT
                       lines are found, in their order)
  EXPECT_REGEX re      re (Python syntax) matches in the output (re.M)
  EXPECT_NONE text     no line of the output contains text
  EXPECT_NONE_REGEX re re matches nowhere in the output (re.M)
  EXPECT_FILE path     stdout is exactly the file (relative to tests/lang)
  EXPECT_JSON path     stdout's lines are the file's JSON objects, equal
                       once parsed (every line must parse)
  RETURN_CODE n        the exit status (default 0)
  TIMEOUT seconds      required: past it the case fails and is killed
  BEFORE command       started first (its pid is {{BEFORE_PID}}); the
                       case starts once it has executed its program
  AFTER command        started once the program's probes are attached
                       ("Attached N probes" / bpftrace's "Attaching ...");
                       {{PID}} is the program's pid (kill -INT {{PID}}
                       is the tutorial's Ctrl-C), {{OUT}} a file with the
                       output so far (to wait for a line before acting)
  REQUIRES command     the case is skipped unless command exits 0; two
                       special forms: "REQUIRES stackscope" (stackscope's
                       own CLI, messages, or language past bpftrace 0.17:
                       skipped with --binary bpftrace) and "REQUIRES deferred: why" (a feature
                       the language issue defers: always skipped)
  ENV K=V ...          environment of the program

A line starting with a space or a tab continues the directive above it
(after a newline, the first blank removed): programs on several lines.

A case whose stderr says "code generation is not implemented" (a
stackscope without its code generator), or whose run ends with status 2
and "invalid option" (an option not there yet), is skipped, saying so.

"The output" is stdout and stderr together (stdout first).  Substituted
everywhere: {{BIN}} (also {{BPFTRACE}}), {{RUN_FILE}} (what runs a
script file: "stackscope run", "bpftrace"), {{WL}} (the test workloads),
{{LANG}} (tests/lang), {{T}} (a private temporary directory), {{BEFORE_PID}};
in EXPECT, EXPECT_NONE, EXPECT_REGEX and EXPECT_NONE_REGEX too ({{WL}} and {{T}}; in a regex
{{T}} stands for itself, escaped).

Prints "ok lang/FILE/NAME", "FAIL lang/FILE/NAME: why" or "skip ...: why"
a case, as tests/run.sh counts them.

  runner.py [--binary PATH] [--filter TEXT] [-v] [FILE.test ...]

The binary is stackscope (build/stackscope, or $SS), or --binary /
$STACKSCOPE_LANG_BIN: with bpftrace the cases check themselves against
bpftrace 0.17 (bpftrace's "Attaching N probes..." line is left out of
stdout before EXPECT_FILE/EXPECT_JSON, as the golden files leave it).
"""

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DIRECTIVES = {
    "NAME", "PROG", "RUN", "ARGS", "EXPECT", "EXPECT_REGEX", "EXPECT_NONE", "EXPECT_NONE_REGEX",
    "EXPECT_FILE", "EXPECT_JSON", "RETURN_CODE", "TIMEOUT", "BEFORE", "AFTER",
    "REQUIRES", "ENV",
}
MULTI = {"EXPECT", "EXPECT_REGEX", "EXPECT_NONE", "EXPECT_NONE_REGEX", "REQUIRES", "ENV"}
ATTACHED = re.compile(r"^Attached \d+ probes?$", re.M)
# bpftrace says "Attaching N probes..." before attaching; with this in its
# environment it prints the line after (its own runtime tests' way)
BPFTRACE_NOTIFY = "__BPFTRACE_NOTIFY_PROBES_ATTACHED"
BPFTRACE_ATTACHED = re.compile(r"^" + BPFTRACE_NOTIFY + r"$", re.M)
# the most a case may print (a runaway program is cut there)
MAX_OUTPUT = 16 << 20
# what stackscope says while it has no code generator
NOT_YET = b"code generation is not implemented"
# ... and while an option the case uses is not there yet
NO_OPTION = re.compile(rb"(invalid|unrecognized) option[^\n]*|unknown command '-[^\n]*")


class CaseError(Exception):
    pass


def parse(path):
    """The cases of one file: a list of dicts, directive -> value (a list
    for the repeatable ones)."""
    cases, cur, lineno = [], None, 0
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for lineno, line in enumerate(lines + [""], 1):
        if line.startswith("#"):
            continue
        if not line.strip():
            if cur:
                cases.append(cur)
            cur = None
            continue
        if line[0] in " \t" and cur is not None and "_last" in cur:
            # a continuation of the directive above, after a newline
            last = cur["_last"]
            if last in MULTI:
                cur[last][-1] += "\n" + line[1:]
            else:
                cur[last] += "\n" + line[1:]
            continue
        word, _, rest = line.partition(" ")
        if word not in DIRECTIVES:
            raise CaseError("%s:%d: unknown directive %r" % (path, lineno, word))
        if cur is None:
            cur = {"_line": lineno}
        cur["_last"] = word
        if word in MULTI:
            cur.setdefault(word, []).append(rest)
        elif word in cur:
            raise CaseError("%s:%d: %s given twice" % (path, lineno, word))
        else:
            cur[word] = rest
    for c in cases:
        where = "%s:%d" % (path, c["_line"])
        if "NAME" not in c:
            raise CaseError(where + ": a case without NAME")
        if ("PROG" in c) == ("RUN" in c):
            raise CaseError(where + ": a case needs one of PROG and RUN")
        if "TIMEOUT" not in c:
            raise CaseError(where + ": %s has no TIMEOUT" % c["NAME"])
        if not any(k in c for k in ("EXPECT", "EXPECT_REGEX", "EXPECT_NONE",
                                    "EXPECT_NONE_REGEX", "EXPECT_FILE", "EXPECT_JSON",
                                    "RETURN_CODE")):
            raise CaseError(where + ": %s expects nothing" % c["NAME"])
        try:
            c["TIMEOUT"] = float(c["TIMEOUT"])
            c["RETURN_CODE"] = int(c.get("RETURN_CODE", "0"))
        except ValueError:
            raise CaseError(where + ": TIMEOUT and RETURN_CODE are numbers")
    return cases


class Runner:
    def __init__(self, binary, verbose):
        self.binary = binary
        self.is_bpftrace = os.path.basename(binary).startswith("bpftrace")
        self.verbose = verbose
        self.wl = os.environ.get("WL") or os.path.join(ROOT, "build", "tests", "workloads")

    def subst(self, text, tmp, before_pid=None):
        run_file = self.binary if self.is_bpftrace else self.binary + " run"
        text = text.replace("{{RUN_FILE}}", run_file)
        text = text.replace("{{BIN}}", self.binary).replace("{{BPFTRACE}}", self.binary)
        text = text.replace("{{WL}}", self.wl).replace("{{LANG}}", HERE).replace("{{T}}", tmp)
        if before_pid is not None:
            text = text.replace("{{BEFORE_PID}}", str(before_pid))
        return text

    def skip_reason(self, case, tmp):
        for req in case.get("REQUIRES", []):
            if req.strip() == "stackscope":
                if self.is_bpftrace:
                    return "stackscope only (its CLI, its messages, or language past bpftrace 0.17)"
                continue
            if req.startswith("deferred:"):
                return req
            if req.strip() == "tracefs":
                # stackscope mounts a private tracefs; bpftrace needs one mounted
                if self.is_bpftrace and not any(os.path.isdir(d) for d in (
                        "/sys/kernel/tracing/events", "/sys/kernel/debug/tracing/events")):
                    return "bpftrace needs tracefs mounted (/sys/kernel/tracing)"
                continue
            cmd = self.subst(req, tmp)
            try:
                rc = subprocess.call(cmd, shell=True, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, timeout=30)
            except subprocess.TimeoutExpired:
                rc = -1
            if rc != 0:
                return "requires: " + req
        return None

    @staticmethod
    def kill_group(p):
        if p and p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait()

    def start_before(self, cmd, deadline):
        """Starts BEFORE in its own process group; returns it once it has
        executed its program (no longer the shell)."""
        p = subprocess.Popen(["/bin/sh", "-c", "exec " + cmd], start_new_session=True,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        sh = os.path.realpath("/bin/sh")
        while time.monotonic() < deadline:
            try:
                exe = os.readlink("/proc/%d/exe" % p.pid)
            except OSError:
                exe = None
            if p.poll() is not None:
                raise CaseError("BEFORE ended before the case started (status %d)" % p.returncode)
            if exe and os.path.realpath(exe) != sh:
                return p
            time.sleep(0.01)
        self.kill_group(p)
        raise CaseError("BEFORE did not start its program in time")

    def run_case(self, case, tmp):
        deadline = time.monotonic() + case["TIMEOUT"]
        before = after = p = None
        env = dict(os.environ)
        attached_re = ATTACHED
        if self.is_bpftrace:
            env[BPFTRACE_NOTIFY] = "1"
            attached_re = BPFTRACE_ATTACHED
        outfile = open(os.path.join(tmp, ".output"), "wb")
        for item in case.get("ENV", []):
            for kv in item.split():
                k, _, v = kv.partition("=")
                env[k] = v
        try:
            if "BEFORE" in case:
                before = self.start_before(self.subst(case["BEFORE"], tmp), deadline)
            bpid = before.pid if before else None
            if "PROG" in case:
                argv = [self.binary, "-e", self.subst(case["PROG"], tmp, bpid)]
                if "ARGS" in case:
                    argv += self.subst(case["ARGS"], tmp, bpid).split()
                p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     stdin=subprocess.DEVNULL, cwd=tmp, env=env,
                                     start_new_session=True)
            else:
                p = subprocess.Popen(["/bin/sh", "-c", self.subst(case["RUN"], tmp, bpid)],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     stdin=subprocess.DEVNULL, cwd=tmp, env=env,
                                     start_new_session=True)
            out, err = bytearray(), bytearray()
            attached = threading.Event()
            lock = threading.Lock()

            def reader(stream, buf):
                while True:
                    chunk = stream.read1(65536) if hasattr(stream, "read1") else stream.read(65536)
                    if not chunk:
                        break
                    if len(buf) < MAX_OUTPUT:
                        buf += chunk
                        with lock:
                            outfile.write(chunk)
                            outfile.flush()
                    if not attached.is_set() and attached_re.search(buf.decode("utf-8", "replace")):
                        attached.set()

            threads = [threading.Thread(target=reader, args=(p.stdout, out), daemon=True),
                       threading.Thread(target=reader, args=(p.stderr, err), daemon=True)]
            for t in threads:
                t.start()
            timed_out = False
            while p.poll() is None:
                if "AFTER" in case and after is None and attached.is_set():
                    cmd = self.subst(case["AFTER"], tmp, bpid).replace("{{PID}}", str(p.pid))
                    cmd = cmd.replace("{{OUT}}", os.path.join(tmp, ".output"))
                    after = subprocess.Popen(["/bin/sh", "-c", cmd],
                                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                             cwd=tmp, env=env, start_new_session=True)
                if time.monotonic() > deadline:
                    timed_out = True
                    break
                attached.wait(0.01) if not attached.is_set() else time.sleep(0.01)
            if timed_out:
                try:
                    os.killpg(p.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
                try:
                    p.wait(2)
                except subprocess.TimeoutExpired:
                    pass
            self.kill_group(p)
            for t in threads:
                t.join(5)
            if timed_out:
                e = CaseError("timed out after %g s%s" % (
                    case["TIMEOUT"],
                    "" if attached.is_set() or "AFTER" not in case
                    else " (the probes were never reported attached, AFTER never ran)"))
                e.output = bytes(out) + bytes(err)
                raise e
            return p.returncode, bytes(out), bytes(err)
        finally:
            self.kill_group(before)
            self.kill_group(after)
            outfile.close()

    def clean_stdout(self, out):
        """stdout as the golden files hold it: without bpftrace's
        "Attaching N probes..." first line."""
        text = out.decode("utf-8", "surrogateescape")
        if self.is_bpftrace:
            text = re.sub(r"\AAttaching \d+ probes?\.\.\.\n", "", text)
            text = text.replace(BPFTRACE_NOTIFY + "\n", "", 1)
        return text

    def check(self, case, rc, out, err, tmp):
        case = dict(case)
        for k in ("EXPECT", "EXPECT_REGEX", "EXPECT_NONE", "EXPECT_NONE_REGEX"):
            if k in case:
                case[k] = [self.subst(v, tmp) if "REGEX" not in k
                           else self.subst(v, re.escape(tmp)) for v in case[k]]
        text = (out + err).decode("utf-8", "surrogateescape")
        lines = text.split("\n")
        if rc != case["RETURN_CODE"]:
            raise CaseError("exit status %d, want %d" % (rc, case["RETURN_CODE"]))
        pos = 0
        for want in case.get("EXPECT", []):
            want = want
            for i in range(pos, len(lines)):
                if lines[i] == want:
                    pos = i + 1
                    break
            else:
                raise CaseError("no line %r%s" % (want, " after the earlier EXPECT lines"
                                                  if pos else ""))
        for rx in case.get("EXPECT_REGEX", []):
            if not re.search(rx, text, re.M):
                raise CaseError("nothing matches /%s/" % rx)
        for bad in case.get("EXPECT_NONE", []):
            for line in lines:
                if bad in line:
                    raise CaseError("unexpected %r in line %r" % (bad, line))
        for rx in case.get("EXPECT_NONE_REGEX", []):
            m = re.search(rx, text, re.M)
            if m:
                raise CaseError("unexpected match of /%s/: %r" % (rx, m.group(0)))
        if "EXPECT_FILE" in case:
            path = os.path.join(HERE, case["EXPECT_FILE"])
            with open(path, encoding="utf-8", errors="surrogateescape") as f:
                want = f.read()
            got = self.clean_stdout(out)
            if got != want:
                raise CaseError("stdout differs from %s: %s" % (case["EXPECT_FILE"],
                                                                first_diff(got, want)))
        if "EXPECT_JSON" in case:
            path = os.path.join(HERE, case["EXPECT_JSON"])
            with open(path, encoding="utf-8") as f:
                want = [json.loads(l) for l in f.read().split("\n") if l]
            got = []
            body = self.clean_stdout(out)
            for n, line in enumerate(body.split("\n"), 1):
                if not line:
                    if self.is_bpftrace:
                        continue	# bpftrace prints blank lines before the maps
                    if n == len(body.split("\n")):
                        continue	# the last newline
                    raise CaseError("stdout line %d is empty, not JSON" % n)
                try:
                    obj = json.loads(line)
                except ValueError as e:
                    raise CaseError("stdout line %d is not JSON (%s): %r" % (n, e, line))
                # said once the probes are live, before or after BEGIN's
                # output: not part of what a golden file compares
                if obj.get("type") == "attached_probes":
                    continue
                got.append(obj)
            if got != want:
                for i, (g, w) in enumerate(zip(got, want)):
                    if g != w:
                        raise CaseError("JSON object %d is %s, want %s" % (
                            i + 1, json.dumps(g), json.dumps(w)))
                raise CaseError("%d JSON objects, want %d" % (len(got), len(want)))


def first_diff(got, want):
    i = 0
    while i < len(got) and i < len(want) and got[i] == want[i]:
        i += 1
    return "at byte %d: got %r, want %r" % (i, got[max(0, i - 20):i + 40],
                                             want[max(0, i - 20):i + 40])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", default=os.environ.get("STACKSCOPE_LANG_BIN"))
    ap.add_argument("--filter", default="")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    binary = args.binary or os.environ.get("SS") or os.path.join(ROOT, "build", "stackscope")
    if os.sep not in binary:
        binary = shutil.which(binary) or binary
    else:
        binary = os.path.abspath(binary)	# cases run in their own directory
    files = args.files or sorted(
        os.path.join(HERE, f) for f in os.listdir(HERE) if f.endswith(".test"))
    runner = Runner(binary, args.verbose)

    status = 0
    for path in files:
        suite = os.path.basename(path)[:-len(".test")] if path.endswith(".test") else path
        try:
            cases = parse(path)
        except (CaseError, OSError) as e:
            print("FAIL lang/%s: %s" % (suite, e))
            status = 1
            continue
        for case in cases:
            name = "lang/%s/%s" % (suite, case["NAME"].strip().replace(" ", "_"))
            if args.filter and args.filter not in name:
                continue
            tmp = tempfile.mkdtemp(prefix="stackscope-lang.")
            try:
                why = runner.skip_reason(case, tmp)
                if why:
                    print("skip %s: %s" % (name, why))
                    continue
                out = err = b""
                rc, out, err = runner.run_case(case, tmp)
                # a stackscope without the code generator: the case waits for it
                if not runner.is_bpftrace and NOT_YET in out + err:
                    print("skip %s: %s cannot run programs yet (%s)" % (
                        name, os.path.basename(binary), NOT_YET.decode()))
                    continue
                m = NO_OPTION.search(out + err)
                if not runner.is_bpftrace and rc == 2 and m and case["RETURN_CODE"] != 2:
                    print("skip %s: %s has no such option yet (%s)" % (
                        name, os.path.basename(binary), m.group(0).decode(errors="replace")))
                    continue
                runner.check(case, rc, out, err, tmp)
                print("ok " + name)
            except (CaseError, OSError) as e:
                print("FAIL %s: %s" % (name, e))
                status = 1
                tail = getattr(e, "output", out + err).decode("utf-8", "replace")
                tail = tail.rstrip("\n").split("\n")
                for line in tail[-15 if not args.verbose else 0:]:
                    print("    | " + line)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
            sys.stdout.flush()
    return status


if __name__ == "__main__":
    sys.exit(main())
