# Protocol tests of the continuous profiler (`profile --every`): its side
# of Pyroscope's ingest API, against a loopback receiver of our own
# (tests/e2e/ingest_receiver.py, which reads every body with the reference
# pprof reader, `go tool pprof -raw`, and logs each request as a JSON
# line), and the window files of the -o pattern.  The windows of a run
# must add up to the run's own total (the kernel's sample counter in the
# closing line), none lost or counted twice.

RECV="$ROOT/tests/e2e/ingest_receiver.py"

gocheck() { command -v go >/dev/null || skip "no go (golang-go: scripts/deps.sh test)"; }

# start_receiver MODE [PORT]: the receiver in the background; RPORT its port
start_receiver() {
	gocheck
	rm -f port
	python3 "$RECV" --mode "$1" ${2:+--port "$2"} --port-file port --log req.log --dir "$T" \
		2>recv.err &
	RPID=$!
	wait_for '[ -s port ] || exited $RPID'
	[ -s port ] || fail "receiver did not start: $(cat recv.err)"
	RPORT=$(cat port)
}

# free_port: a port nothing listens on (bound, then let go)
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# item LABEL: N of "N LABEL" in the closing line of err.txt ("samples" is
# not "lost samples")
item() {
	grep '^stackscope profile:' err.txt | tr ',' '\n' |
		sed -n -E "s/^(.*: | )([0-9]+) $1\$/\2/p" | head -1
}

# requests: lines logged by the receiver
requests() { [ -s req.log ] && wc -l <req.log || echo 0; }

# pprof_samples FILE: the samples (first value) of a pprof, by the reference reader
pprof_samples() {
	HOME="$T/go" GOCACHE="$T/go/cache" go tool pprof -raw "$1" >"$T/raw.txt" 2>"$T/gopprof.err" ||
		return 1
	awk '/^Samples:/ { s = 1; next } /^(Locations|Mappings)/ { s = 0 }
	     s && /^ +[0-9]+( +[0-9]+)*:/ { n += $1 } END { print n + 0 }' "$T/raw.txt"
}

# check_windows [UNWIND]: the receiver's log against err.txt: every
# window pushed once, valid, named and labelled, windows back to back,
# their samples adding up to the run's
check_windows() {
	python3 - "$(hostname)" "$START" "$END" >check.txt 2>&1 <<'EOF' || fail "$(cat check.txt)"
import json, sys
host, start, end = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
reqs = [json.loads(l) for l in open("req.log")]
ok = [r for r in reqs if r["status"] == 200]
want_name = "svc.cpu{hostname=%s,env=test,team=a-b}" % host
for r in reqs:
    q = r["query"]
    assert r["path"] == "/ingest", r["path"]
    assert r["pprof_ok"], "body %d not a pprof: %s" % (r["n"], r["pprof_err"])
    assert q.get("name") == want_name, "name %r, expected %r" % (q.get("name"), want_name)
    assert q.get("format") == "pprof" and q.get("spyName") == "stackscope", q
    assert q.get("sampleRate") == "99", q
    assert r["tenant"] == "team-7", r["tenant"]
    assert r["content_type"] == "application/octet-stream", r["content_type"]
# each window once, in order, back to back, within the run
wins = sorted({(int(r["query"]["from"]), int(r["query"]["until"]), r["time"], r["samples"]) for r in ok})
assert len(wins) == len(ok), "a window pushed twice: %s" % ok
for a, b in zip(wins, wins[1:]):
    assert a[0] <= a[1] and b[0] <= b[1], (a, b)
    assert b[0] in (a[1] - 1, a[1]), "windows not back to back: until %d, next from %d" % (a[1], b[0])
assert wins[0][0] >= start - 1 and wins[-1][1] <= end + 1, (start, end, wins)
print(len(ok), sum(w[3] for w in wins))
EOF
	read -r pushed sum <check.txt
	[ "$pushed" = "$(item windows)" ] || fail "$pushed windows received, closing line: $(cat err.txt)"
	[ "$pushed" = "$(item pushed)" ] || fail "$pushed windows received, closing line: $(cat err.txt)"
	[ "$sum" = "$(item samples)" ] ||
		fail "the windows hold $sum samples, the run took $(item samples): $(cat err.txt)"
	[ "$(item 'lost samples')" = 0 ] || fail "samples lost: $(cat err.txt)"
}

push_args() {
	echo --push "http://127.0.0.1:$RPORT" --service svc --label env=test --label team=a-b \
		--tenant team-7 -F 99
}

# agent ARGS...: profile in the background (SPID), stderr to err.txt
agent() {
	"$SS" profile "$@" 2>err.txt &
	SPID=$!
}

# stop_agent: SIGINT, then its exit status must be 0
stop_agent() {
	kill -INT "$SPID"
	wait "$SPID" || fail "profile exited $?: $(cat err.txt)"
}

# Three windows and more, snapshots unwound in user space (the default
# system-wide), user stacks unwound in the kernel (--unwind kernel) and
# the frame-pointer walk (--unwind fp): each pushed once, with its
# from/until, name and labels, the samples adding up to the run's.  The
# run ends (SIGINT) once three windows arrived; its last is pushed too.
run_three_windows() {
	start_receiver ok
	START=$(date +%s)
	# shellcheck disable=SC2046
	agent --every 1s $(push_args) "$@"
	wait_for '[ "$(requests)" -ge 3 ]' 60
	stop_agent
	END=$(date +%s)
	wait_for "[ \$(requests) -ge \$(item windows) ]"
	[ "$(item windows)" -ge 4 ] || fail "fewer than 4 windows: $(cat err.txt)"
	check_windows
}

test_protocol_three_windows_snapshots() { run_three_windows; }
test_protocol_three_windows_kernel() { run_three_windows --unwind kernel; }
test_protocol_three_windows_fp() { run_three_windows --unwind fp; }

# The -o pattern: one valid pprof per window, adding up to the run.
test_protocol_window_files() {
	gocheck
	"$SS" profile --every 1s -d 3 -o "$T/w/cpu-%s.pb.gz" 2>err.txt
	rc=$?
	[ "$rc" = 2 ] && [ "$(wc -l <err.txt)" = 1 ] && grep -q "directory $T/w: No such file" err.txt ||
		fail "a missing directory: exit $rc: $(cat err.txt)"
	mkdir w
	agent --every 1s -o "$T/w/cpu-%s.pb.gz"
	wait_for '[ "$(ls w | wc -l)" -ge 3 ]' 60
	stop_agent
	n=$(ls w | wc -l)
	[ "$n" = "$(item windows)" ] && [ "$n" = "$(item written)" ] ||
		fail "$n files: $(ls w) for $(cat err.txt)"
	sum=0
	for f in w/*; do
		s=$(pprof_samples "$f") || fail "$f: $(cat gopprof.err)"
		sum=$((sum + s))
	done
	[ "$sum" = "$(item samples)" ] || fail "files hold $sum samples, the run $(item samples)"
}

# Server down at start: the windows wait in the queue, retried with
# back-off, and are delivered once it is up.
test_protocol_server_down_then_up() {
	gocheck
	P=$(free_port)
	agent --every 1s --push "http://127.0.0.1:$P"
	wait_for 'grep -q "push: .*Couldn.t connect" err.txt' 60
	start_receiver ok "$P"
	# delivered after the back-off, not only at exit
	wait_for '[ "$(requests)" -ge 2 ]' 60
	stop_agent
	wait_for "[ \$(requests) -ge \$(item pushed) ]"
	[ "$(item pushed)" = "$(item windows)" ] || fail "not all delivered: $(cat err.txt)"
	[ "$(requests)" = "$(item windows)" ] || fail "$(requests) requests: $(cat err.txt)"
	[ "$(item 'push failures')" -ge 1 ] && [ "$(item 'windows dropped')" = 0 ] ||
		fail "failures/drops: $(cat err.txt)"
}

# 500 twice, then 200: the windows are retried and all delivered once.
test_protocol_500_then_200() {
	start_receiver fail:2:500
	agent --every 1s --push "http://127.0.0.1:$RPORT"
	wait_for '[ "$(requests)" -ge 4 ]' 60
	stop_agent
	wait_for "[ \$(requests) -ge \$((\$(item windows) + 2)) ]"
	grep -q 'push: .*HTTP 500: internal error (test) (will retry)' err.txt || fail "500 not said: $(cat err.txt)"
	[ "$(item 'push failures')" = 2 ] && [ "$(item pushed)" = "$(item windows)" ] ||
		fail "closing line: $(cat err.txt)"
	sum=$(python3 -c 'import json, sys; r = [json.loads(l) for l in open("req.log")]
ok = [x for x in r if x["status"] == 200]
assert len({x["time"] for x in ok}) == len(ok), "a window twice"
print(sum(x["samples"] for x in ok))') || fail "request log: $(cat req.log)"
	[ "$sum" = "$(item samples)" ] || fail "$sum samples delivered, $(item samples) taken"
}

# A server that never answers: requests time out, the queue stays within
# its bound, the oldest windows are dropped and counted; sampling goes on
# (every window still written to its file).
test_protocol_server_hangs() {
	start_receiver hang
	mkdir w
	agent --every 1s --push "http://127.0.0.1:$RPORT" --push-queue 1 -o "$T/w/cpu-%s.pb.gz"
	# a second request: the first timed out (5 s), windows went on
	wait_for '[ "$(requests)" -ge 2 ] && [ "$(ls w | wc -l)" -ge 4 ]' 60
	stop_agent
	[ "$(item 'push time-outs')" -ge 1 ] || fail "no time-out counted: $(cat err.txt)"
	# said at most once a minute: the first of the time-out or the drops
	grep -q 'push: .*\(Timeout was reached\|queue full\)' err.txt || fail "not said: $(cat err.txt)"
	windows=$(item windows)
	[ "$(item pushed)" = 0 ] && [ "$(item 'windows dropped')" = "$windows" ] ||
		fail "every window should be dropped: $(cat err.txt)"
	[ "$(item 'push failures')" -ge 2 ] || fail "failures: $(cat err.txt)"
	[ "$(grep -c '"status": null' req.log)" = "$(requests)" ] || fail "a hanging receiver answered"
	n=$(ls w | wc -l)
	[ "$n" = "$windows" ] && [ "$(item written)" = "$windows" ] || fail "$n files: $(cat err.txt)"
	sum=0
	for f in w/*; do
		s=$(pprof_samples "$f") || fail "$f: $(cat gopprof.err)"
		sum=$((sum + s))
	done
	[ "$sum" = "$(item samples)" ] && [ "$(item 'lost samples')" = 0 ] ||
		fail "files hold $sum samples, the run $(item samples): $(cat err.txt)"
}

# 400: refused with the server's message, not retried.
test_protocol_400_reported() {
	start_receiver 'refuse:400:bad profile: no sample type "cpu" (test)'
	agent --every 1s --push "http://127.0.0.1:$RPORT"
	wait_for '[ "$(requests)" -ge 2 ]' 60
	stop_agent
	grep -q 'push: the window from [0-9:]* refused (not retried): HTTP 400: bad profile: no sample type "cpu" (test)' err.txt ||
		fail "the message: $(cat err.txt)"
	windows=$(item windows)
	wait_for "[ \$(requests) -ge $windows ]"
	[ "$(requests)" = "$windows" ] || fail "retried: $(requests) requests for $windows windows"
	[ "$(item 'windows refused')" = "$windows" ] && [ "$(item 'push failures')" = 0 ] ||
		fail "closing line: $(cat err.txt)"
}

# SIGHUP closes a window early; SIGTERM closes the last one and pushes it
# before exiting (windows of a minute: only the signals close them).
test_protocol_sighup_sigterm() {
	start_receiver ok
	agent --every 60s --push "http://127.0.0.1:$RPORT"
	wait_for "tracing_live $SPID" 60
	kill -HUP "$SPID"
	wait_for '[ "$(requests)" = 1 ]'
	kill -TERM "$SPID"
	wait "$SPID" || fail "profile exited $? after SIGTERM: $(cat err.txt)"
	wait_for '[ "$(requests)" = 2 ]'
	[ "$(item windows)" = 2 ] && [ "$(item pushed)" = 2 ] || fail "closing line: $(cat err.txt)"
	sum=$(python3 -c 'import json; print(sum(json.loads(l)["samples"] for l in open("req.log")))')
	[ "$sum" = "$(item samples)" ] || fail "$sum samples pushed, $(item samples) taken"
}

# Options: mistakes said in one line, exit 2.
test_protocol_bad_options() {
	for args in "--push http://x" "--every 0" "--every 1s" "--every 1s -o plain.pb.gz" \
		"--every 1s --push ftp://x" "--every 1s --push http://x --label 1a=b" \
		"--every 1s --push http://x --label a=b,c" "--every 1s -o x-%s --format svg"; do
		# shellcheck disable=SC2086
		"$SS" profile $args -d 1 2>err.txt
		rc=$?
		[ "$rc" = 2 ] || fail "profile $args: exit $rc: $(cat err.txt)"
		[ "$(wc -l <err.txt)" = 1 ] || fail "profile $args: $(cat err.txt)"
	done
}
