#!/usr/bin/env python3
"""A loopback receiver that speaks Pyroscope's ingest API (POST /ingest),
for the protocol tests of `profile --push` (tests/e2e/test_push.sh): it
checks stackscope's side of the contract, not a server.

Every request is answered as --mode says, then its body is read with the
reference pprof reader (`go tool pprof -raw`) and one JSON line is
appended to --log: method, path, query, the X-Scope-OrgID and
Content-Type headers, the body's size, the status answered, whether pprof
read it, its samples (the sum of the first value), its Time line.

  ingest_receiver.py --port-file F | --port P  --log FILE  --dir DIR
                     [--mode ok | fail:N:CODE | refuse:CODE:MESSAGE | hang]

  ok           200 to all
  fail:N:CODE  CODE (e.g. 500) to the first N requests, then 200
  refuse:CODE:MESSAGE  CODE with MESSAGE as the body, to all
  hang         reads the request, logs it (status null), never answers
"""
import argparse
import http.server
import json
import os
import re
import subprocess
import threading
import urllib.parse

lock = threading.Lock()
seen = 0
stop = threading.Event()


def pprof_raw(path, godir):
    env = dict(os.environ, HOME=godir, GOCACHE=os.path.join(godir, "cache"),
               GOPATH=os.path.join(godir, "path"), GOFLAGS="-mod=mod")
    r = subprocess.run(["go", "tool", "pprof", "-raw", path], env=env,
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        return False, 0, None, r.stderr.strip()[:300]
    samples, time_line, in_samples = 0, None, False
    for line in r.stdout.splitlines():
        if line.startswith("Time: "):
            time_line = line[6:]
        if line == "Samples:":
            in_samples = True
            continue
        if in_samples:
            if line in ("Locations", "Mappings") or not line.strip():
                in_samples = False
                continue
            m = re.match(r"^\s+(\d+)(?:\s+\d+)*:", line)
            if m:
                samples += int(m.group(1))
    return True, samples, time_line, ""


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def do_POST(self):
        global seen
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n) if n else b""
        with lock:
            seen += 1
            idx = seen
        mode = self.server.mode
        status, answer = 200, b""
        if mode == "hang":
            # logged as it arrives: a second arrival means the client
            # gave the first up (the receiver never closes it)
            with lock:
                with open(self.server.log, "a") as f:
                    f.write(json.dumps({"n": idx, "status": None, "size": len(body)}) + "\n")
            stop.wait(120)
            return
        if mode.startswith("fail:"):
            _, count, code = mode.split(":")
            if idx <= int(count):
                status, answer = int(code), b"internal error (test)"
        elif mode.startswith("refuse:"):
            _, code, message = mode.split(":", 2)
            status, answer = int(code), message.encode()
        # one request per connection: the body is read by pprof after
        # the answer, and a client must not wait for that
        self.close_connection = True
        self.send_response(status)
        self.send_header("Connection", "close")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)
        self.wfile.flush()
        # checked after answering: the reader's time is not the client's
        path = os.path.join(self.server.dir, "body-%03d.pb.gz" % idx)
        with open(path, "wb") as f:
            f.write(body)
        ok, samples, time_line, err = pprof_raw(path, os.path.join(self.server.dir, "go"))
        url = urllib.parse.urlsplit(self.path)
        rec = {
            "n": idx, "method": "POST", "path": url.path,
            "query": dict(urllib.parse.parse_qsl(url.query, keep_blank_values=True)),
            "tenant": self.headers.get("X-Scope-OrgID"),
            "content_type": self.headers.get("Content-Type"),
            "size": len(body), "status": status, "pprof_ok": ok, "pprof_err": err,
            "samples": samples, "time": time_line,
        }
        with lock:
            with open(self.server.log, "a") as f:
                f.write(json.dumps(rec) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file")
    ap.add_argument("--log", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--mode", default="ok")
    a = ap.parse_args()
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    srv.daemon_threads = True
    srv.mode, srv.log, srv.dir = a.mode, a.log, a.dir
    open(a.log, "a").close()
    if a.port_file:
        with open(a.port_file + ".tmp", "w") as f:
            f.write(str(srv.server_address[1]))
        os.rename(a.port_file + ".tmp", a.port_file)
    try:
        srv.serve_forever()
    finally:
        stop.set()


if __name__ == "__main__":
    main()
