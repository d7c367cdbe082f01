# stackscope build.  `make` builds build/stackscope.
#   make demo   install dependencies, build, profile a bundled workload -> flame.svg
#   make test   install dependencies, build, run every test
#   make bench  install the compared tools, run bench/ (not part of test)
#   make install / uninstall   [PREFIX=/usr/local] [DESTDIR=]
#   make man    regenerate the committed man pages from man/*.scd (needs scdoc)
#   make test SANITIZE=1   the same, built with ASan+UBSan in build-asan
#   make fuzz   the libFuzzer targets of tests/fuzz, longer (FUZZ_SECONDS)

ifeq ($(SANITIZE),1)
BUILD    ?= build-asan
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
endif
BUILD    ?= build
CC       ?= cc
CLANG    ?= clang
BPFTOOL  ?= bpftool
ARCH     := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')

CFLAGS   ?= -O2 -g
CFLAGS   += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
            -Isrc -I$(BUILD) -D_GNU_SOURCE $(SANFLAGS)
# libbpf, libdw and what they need linked in from Debian's -dev packages'
# static archives: the dynamic loader then maps and relocates only libc,
# not six more shared libraries, at every start (`--version`: 9 -> 7 ms).
# Their symbols are not exported, so a library opened later (libcurl)
# still binds its own.
STATIC_LIBS ?= -lbpf -ldw -lelf -lz -llzma -lbz2
LDLIBS   += -Wl,-Bstatic $(STATIC_LIBS) -Wl,-Bdynamic -lpthread -ldl
BPFCFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -I$(BUILD) -Isrc -Wall -Wno-unused-function

SRCS     := $(filter-out %.bpf.c,$(wildcard src/*.c src/*/*.c))
OBJS     := $(patsubst src/%.c,$(BUILD)/obj/%.o,$(SRCS))
LIBOBJS  := $(filter-out $(BUILD)/obj/main.o $(BUILD)/obj/cmd/%,$(OBJS))
BPFSRCS  := $(wildcard src/bpf/*.bpf.c)
SKELS    := $(patsubst src/bpf/%.bpf.c,$(BUILD)/%.skel.h,$(BPFSRCS))

UNITSRCS := $(wildcard tests/unit/*.c)
UNITOBJS := $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%.o,$(UNITSRCS))

WLSRCS   := $(wildcard tests/workloads/*.c)

.PHONY: all deps demo test bench soak clean check-tests install uninstall man
all: $(BUILD)/stackscope

deps:
	@scripts/deps.sh build

$(BUILD)/vmlinux.h:
	@mkdir -p $(@D)
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@.tmp && mv $@.tmp $@

$(BUILD)/bpf/%.bpf.o: src/bpf/%.bpf.c $(BUILD)/vmlinux.h $(wildcard src/bpf/*.h)
	@mkdir -p $(@D)
	$(CLANG) $(BPFCFLAGS) -c $< -o $@
	llvm-strip -g $@

# kept (not deleted as intermediates): the fuzz objects include some too
.SECONDARY: $(SKELS)
$(BUILD)/%.skel.h: $(BUILD)/bpf/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $*_bpf > $@.tmp && mv $@.tmp $@

$(BUILD)/obj/%.o: src/%.c $(SKELS) $(wildcard src/*.h src/*/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/stackscope: $(OBJS)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

# ---- tests ----------------------------------------------------------------
$(BUILD)/tests/unit/%.o: tests/unit/%.c $(SKELS) $(wildcard tests/unit/*.h src/*.h src/*/*.h)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itests/unit -c $< -o $@

$(BUILD)/tests/unit-tests: $(UNITOBJS) $(LIBOBJS)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

include tests/workloads/build.mk
-include tests/fixtures.mk
-include tests/unwind-fixtures.mk
include tests/fuzz/build.mk

check-tests: $(BUILD)/stackscope $(BUILD)/tests/unit-tests workloads fixtures

# the fuzz targets run too when clang's libFuzzer is here (else a skip
# with the reason)
test:
	@scripts/deps.sh test
	@$(MAKE) --no-print-directory check-tests
	@mkdir -p $(FUZZ_BUILD)
	@if $(MAKE) --no-print-directory fuzz-targets >$(FUZZ_BUILD)/build.log 2>&1; then \
		rm -f $(FUZZ_BUILD)/.skip; \
	else \
		rm -f $(FUZZ_TARGETS); \
		echo "the fuzz targets did not build (clang with libFuzzer: scripts/deps.sh fuzz; $(FUZZ_BUILD)/build.log)" \
			>$(FUZZ_BUILD)/.skip; \
	fi
	@FUZZ_BUILD=$(FUZZ_BUILD) tests/run.sh $(BUILD)

demo:
	@scripts/deps.sh build
	@$(MAKE) --no-print-directory all workloads
	@scripts/demo.sh $(BUILD)

bench:
	@scripts/deps.sh bench
	@$(MAKE) --no-print-directory all workloads
	@bench/run.sh $(BUILD)

# a long churn run (not in `make test`): RSS and fd slopes of the command
# under test (SOAK_CMD, default system-wide profile) over SOAK_MINUTES (30)
soak:
	@scripts/deps.sh build
	@$(MAKE) --no-print-directory all workloads
	@scripts/soak.sh $(BUILD)

clean:
	rm -rf $(BUILD) $(FUZZ_BUILD)

# ---- install --------------------------------------------------------------
# The binary goes to bin, not sbin: flamegraph and `run --dump ast` need no
# root, and sbin is not in a user's PATH on Debian (bpftrace does the same).
# The pages are section 8 because the tracing commands need root.
PREFIX      ?= /usr/local
BINDIR      ?= $(PREFIX)/bin
MANDIR      ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
MANPAGES    := $(patsubst %.scd,%,$(wildcard man/*.8.scd))

install: $(BUILD)/stackscope
	install -D -m 755 $(BUILD)/stackscope $(DESTDIR)$(BINDIR)/stackscope
	for p in $(MANPAGES); do install -D -m 644 $$p $(DESTDIR)$(MANDIR)/man8/$${p#man/} || exit; done
	install -D -m 644 completion/stackscope.bash $(DESTDIR)$(BASHCOMPDIR)/stackscope

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/stackscope $(DESTDIR)$(BASHCOMPDIR)/stackscope \
		$(addprefix $(DESTDIR)$(MANDIR)/man8/,$(notdir $(MANPAGES)))
	rm -rf $(DESTDIR)/var/cache/stackscope

# The pages are committed, so building and installing need no scdoc.  The
# date is the page source's last commit, so regenerating changes nothing.
man:
	@scripts/deps.sh doc
	set -e; for p in $(MANPAGES); do \
		d=$$(git log -1 --format=%ct -- $$p.scd 2>/dev/null); \
		SOURCE_DATE_EPOCH=$${d:-$$(date +%s)} scdoc < $$p.scd > $$p.tmp; \
		awk -f man/tidy.awk $$p.tmp > $$p; rm $$p.tmp; \
	done
