# The language's directive runner (tests/lang/runner.py) judges right:
# run against a stand-in binary whose output is known, every directive
# passes when it should and fails when it should.  Needs no root.

# fake_bin: a binary that prints "hello" (or $FAKE_OUT), then its
# arguments on stderr, sleeps $FAKE_SLEEP and exits $FAKE_RC
fake_bin() {
	cat >"$T/fakebin" <<'SH'
#!/bin/sh
printf '%b' "${FAKE_OUT:-hello\n}"
echo "args: $*" >&2
[ -n "${FAKE_SLEEP:-}" ] && sleep "$FAKE_SLEEP"
exit "${FAKE_RC:-0}"
SH
	chmod 755 "$T/fakebin"
}

# verdicts FILE: the runner's "ok/FAIL/skip NAME" words, one line each
verdicts() {
	python3 "$ROOT/tests/lang/runner.py" --binary "$T/fakebin" "$1" | awk '/^(ok|FAIL|skip) / { sub(":$", "", $2); print $1, $2 }'
}

test_lang_runner_verdicts() {
	fake_bin
	mkdir -p "$T/files"
	printf 'hello\n' >"$T/files/good.out"
	printf 'hullo\n' >"$T/files/bad.out"
	cat >"$T/r.test" <<'EOF2'
NAME expect_ok
PROG BEGIN { }
EXPECT hello
TIMEOUT 10

NAME expect_partial_line_fails
PROG BEGIN { }
EXPECT hell
TIMEOUT 10

NAME expect_stderr_too
PROG BEGIN { x }
EXPECT args: -e BEGIN { x }
TIMEOUT 10

NAME expect_order
PROG BEGIN { }
ENV FAKE_OUT=a\nb\n
EXPECT b
EXPECT a
TIMEOUT 10

NAME regex_ok
PROG BEGIN { }
EXPECT_REGEX ^hel+o$
TIMEOUT 10

NAME none_fails
PROG BEGIN { }
EXPECT_NONE ell
TIMEOUT 10

NAME none_regex_ok
PROG BEGIN { }
ENV FAKE_OUT=a\n\0040\0040\0040\0040bpf_prog_0123_on_x+1\n
EXPECT_NONE_REGEX ^ {4}bpf_prog_[0-9a-f]+_p\d+\+\d+$
TIMEOUT 10

NAME none_regex_fails
PROG BEGIN { }
ENV FAKE_OUT=a\n\0040\0040\0040\0040bpf_prog_0123_p0+1\n
EXPECT_NONE_REGEX ^ {4}bpf_prog_[0-9a-f]+_p\d+\+\d+$
TIMEOUT 10

NAME status_ok
PROG BEGIN { }
ENV FAKE_RC=3
RETURN_CODE 3
TIMEOUT 10

NAME status_fails
PROG BEGIN { }
ENV FAKE_RC=1
EXPECT hello
TIMEOUT 10

NAME file_ok
PROG BEGIN { }
EXPECT_FILE {{T}}/files/good.out
TIMEOUT 10

NAME timeout_fails
PROG BEGIN { }
ENV FAKE_SLEEP=30
EXPECT hello
TIMEOUT 1

NAME requires_false_skips
PROG BEGIN { }
EXPECT hello
REQUIRES false
TIMEOUT 10

NAME deferred_skips
PROG BEGIN { }
EXPECT hello
REQUIRES deferred: not here
TIMEOUT 10

NAME json_ok
PROG BEGIN { }
ENV FAKE_OUT={"type":"map","data":{"@":1}}\n
EXPECT_JSON {{T}}/files/want.json
TIMEOUT 10

NAME json_differs
PROG BEGIN { }
ENV FAKE_OUT={"type":"map","data":{"@":2}}\n
EXPECT_JSON {{T}}/files/want.json
TIMEOUT 10

NAME json_not_json
PROG BEGIN { }
EXPECT_JSON {{T}}/files/want.json
TIMEOUT 10
EOF2
	# EXPECT_FILE / EXPECT_JSON take no placeholders: absolute paths here
	sed -i "s|{{T}}/files|$T/files|" "$T/r.test"
	printf '{"data": {"@": 1}, "type": "map"}\n' >"$T/files/want.json"
	verdicts "$T/r.test" >"$T/got"
	cat >"$T/want" <<'EOF2'
ok lang/r/expect_ok
FAIL lang/r/expect_partial_line_fails
ok lang/r/expect_stderr_too
FAIL lang/r/expect_order
ok lang/r/regex_ok
FAIL lang/r/none_fails
ok lang/r/none_regex_ok
FAIL lang/r/none_regex_fails
ok lang/r/status_ok
FAIL lang/r/status_fails
ok lang/r/file_ok
FAIL lang/r/timeout_fails
skip lang/r/requires_false_skips
skip lang/r/deferred_skips
ok lang/r/json_ok
FAIL lang/r/json_differs
FAIL lang/r/json_not_json
EOF2
	diff "$T/want" "$T/got" >"$T/diff" || fail "runner verdicts differ: $(cat "$T/diff")"
}

test_lang_runner_refuses_bad_files() {
	fake_bin
	printf 'NAME no_timeout\nPROG BEGIN { }\nEXPECT x\n' >"$T/a.test"
	printf 'NAME x\nPROG BEGIN { }\nRUN true\nEXPECT x\nTIMEOUT 1\n' >"$T/b.test"
	printf 'NAME x\nFROB y\nTIMEOUT 1\n' >"$T/c.test"
	printf 'NAME x\nPROG BEGIN { }\nTIMEOUT 1\n' >"$T/d.test"
	for f in a b c d; do
		out=$(python3 "$ROOT/tests/lang/runner.py" --binary "$T/fakebin" "$T/$f.test")
		check '[ $? -ne 0 ]' "$f.test: the runner exited 0"
		case $out in "FAIL lang/$f: "*) ;; *) fail "$f.test: $out" ;; esac
	done
}

test_lang_test_files_parse() {
	# every committed directive file parses, and every case has a TIMEOUT
	fake_bin
	for f in "$ROOT"/tests/lang/*.test; do
		python3 - "$f" <<'PY' || fail "$f does not parse"
import sys
sys.path.insert(0, sys.argv[1].rsplit("/", 1)[0])
import runner
cases = runner.parse(sys.argv[1])
assert cases and all("TIMEOUT" in c for c in cases)
names = [c["NAME"] for c in cases]
assert len(names) == len(set(names)), "duplicate names"
PY
	done
}
