# libFuzzer targets (tests/fuzz/fuzz_*.c), built with clang
# -fsanitize=fuzzer,address,undefined into $(FUZZ_BUILD) with their own
# copies of the library objects.  Seed corpora come from the fixtures.
#   make fuzz-targets             build them (needs clang's libFuzzer)
#   make fuzz [FUZZ_SECONDS=60]   run each that long (make test: 5 s each,
#                                 through tests/run.sh, when they built)
FUZZ_BUILD   ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_CFLAGS  := -O1 -g -std=gnu11 -Isrc -I$(BUILD) -D_GNU_SOURCE -Wno-unused-parameter \
	-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_LIBSRCS := src/common.c src/hashtab.c src/strpool.c src/sym/elfsyms.c src/sym/debugfile.c \
	src/sym/dwfunc.c src/sym/dwopen.c src/sym/usdt.c src/sym/ksyms.c src/sym/perfmap.c src/sym/proctab.c src/unwind/table.c src/unwind/sframe.c \
	src/report/folded.c src/report/json.c src/report/stacks.c src/report/text.c \
	$(filter-out src/lang/probe_%.c src/lang/provider.c src/lang/runtime.c src/lang/flame.c,$(wildcard src/lang/*.c))
FUZZ_LIBOBJS := $(patsubst src/%.c,$(FUZZ_BUILD)/obj/%.o,$(FUZZ_LIBSRCS))
FUZZ_NAMES   := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_TARGETS := $(addprefix $(FUZZ_BUILD)/fuzz_,$(FUZZ_NAMES))

.PHONY: fuzz fuzz-targets fuzz-seeds
.SECONDARY: $(FUZZ_LIBOBJS)
fuzz-targets: $(FUZZ_TARGETS) fuzz-seeds

$(FUZZ_BUILD)/obj/%.o: src/%.c $(SKELS) $(wildcard src/*.h src/*/*.h)
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_BUILD)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_LIBOBJS)
	@mkdir -p $(@D)
	$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer $< $(FUZZ_LIBOBJS) -o $@ $(LDLIBS)

# seeds: the fixtures and workloads for the ELF readers, the running
# system's maps and kallsyms lines, folded stacks
FUZZ_SEEDS := $(FUZZ_BUILD)/seeds
fuzz-seeds: fixtures workloads
	rm -rf $(FUZZ_SEEDS)
	mkdir -p $(FUZZ_SEEDS)/elfsyms $(FUZZ_SEEDS)/unwind $(FUZZ_SEEDS)/dwfunc \
		$(FUZZ_SEEDS)/procfiles $(FUZZ_SEEDS)/folded $(FUZZ_SEEDS)/lang \
		$(FUZZ_SEEDS)/tpformat $(FUZZ_SEEDS)/usdt
	for f in $(SYMFIX_DIR)/symbols-pie $(SYMFIX_DIR)/symbols-stripped $(SYMFIX_DIR)/libsymbols.so \
		$(SYMFIX_DIR)/symbols-linked $(SYMFIX_DIR)/symbols-trunc; do \
		cp $$f $(FUZZ_SEEDS)/elfsyms/; done
	for f in $(SYMFIX_DIR)/unwind-*; do [ $$(stat -c %s $$f) -lt 100000 ] && \
		cp $$f $(FUZZ_SEEDS)/unwind/ || true; done
	cp $(WLDIR)/graph/graph_wl $(WLDIR)/graph/graph_wl.O2 $(FUZZ_SEEDS)/dwfunc/
	{ printf '\000'; cat /proc/self/maps; } > $(FUZZ_SEEDS)/procfiles/maps
	{ printf '\001'; head -n 300 /proc/kallsyms; } > $(FUZZ_SEEDS)/procfiles/kallsyms
	{ printf '\002'; printf '7f0000001000 40 jit_one\n0x7f0000001040 0x20 Interpreter\n7f0000001000 10 replaced code\n'; } > $(FUZZ_SEEDS)/procfiles/perfmap
	printf 'app;main;f;g 3\napp;main;k_[k] 1\n\n[unknown] 7\r\n' > $(FUZZ_SEEDS)/folded/a
	cp tests/fuzz/lang-corpus/* $(FUZZ_SEEDS)/lang/
	cp tests/fuzz/tpformat-corpus/* $(FUZZ_SEEDS)/tpformat/
	cp $(WLDIR)/usdt/usdt_wl $(WLDIR)/usdt/libusdt_lib.so $(FUZZ_SEEDS)/usdt/
	printf -- '-4@%%eax 8@-8(%%rbp) -4@$$5 8@16(%%rax,%%rbx,8) -1@%%ah 8@sym+8(%%rip)' > $(FUZZ_SEEDS)/usdt/args

# FUZZ_SECONDS each; a crash leaves its input in $(FUZZ_BUILD)/crash-*
fuzz:
	@scripts/deps.sh fuzz
	@$(MAKE) --no-print-directory fuzz-targets
	@for n in $(FUZZ_NAMES); do \
		mkdir -p $(FUZZ_BUILD)/corpus/$$n; \
		echo "fuzz $$n: $(FUZZ_SECONDS) s"; \
		$(FUZZ_BUILD)/fuzz_$$n -max_total_time=$(FUZZ_SECONDS) -max_len=65536 \
			-artifact_prefix=$(FUZZ_BUILD)/ $(FUZZ_BUILD)/corpus/$$n $(FUZZ_SEEDS)/$$n \
			2>$(FUZZ_BUILD)/$$n.log || { tail -40 $(FUZZ_BUILD)/$$n.log; exit 1; }; \
		tail -1 $(FUZZ_BUILD)/$$n.log; \
	done
