#!/bin/sh
# Install the Debian packages stackscope needs to build, test or benchmark.
# Idempotent: packages already installed are skipped and apt is not touched
# at all when nothing is missing.
#   scripts/deps.sh build   compiler, BPF toolchain, libraries
#   scripts/deps.sh test    build + what the tests use
#   scripts/deps.sh fuzz    test + clang's libFuzzer and sanitizer runtimes
#   scripts/deps.sh bench   build + the tools stackscope is compared against
#                           (and GNU time for /usr/bin/time)
#   scripts/deps.sh doc     scdoc, to regenerate the committed man pages
#                           (`make man`); building and installing need nothing
set -eu

build="make clang llvm bpftool libbpf-dev libelf-dev libdw-dev zlib1g-dev liblzma-dev libbz2-dev libcurl4-openssl-dev pkg-config systemtap-sdt-dev"
test="$build gcc binutils libxml2-utils python3 strace golang-go mandoc dwz"
fuzz="$test libclang-rt-dev"
bench="$build gcc linux-perf bpftrace hyperfine time strace uftrace"
doc="scdoc"

case "${1:-build}" in
build) want=$build ;;
test) want=$test ;;
fuzz) want=$fuzz ;;
bench) want=$bench ;;
doc) want=$doc ;;
*) echo "usage: $0 build|test|fuzz|bench|doc" >&2; exit 2 ;;
esac

missing=""
for p in $want; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages:$missing (run as root, or install them)" >&2
	exit 1
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
