# Fixtures for the unit tests, built into $(BUILD)/fixtures/ by `make
# fixtures`.  Included by the top Makefile; also works on its own:
#   make -f tests/fixtures.mk fixtures BUILD=build
#
# From tests/fixtures/symbols.c (see test_sym.c for what is checked):
#   symbols-pie        PIE, fixed build id 0123...4567
#   symbols-stripped   symbols-pie stripped; its .symtab is in
#                      debug/.build-id/01/23...67.debug (debug root: debug/)
#   symbols-linked     no build id, stripped, found via .gnu_debuglink in
#                      .debug/symbols-linked.debug (CRC checked)
#   symbols-nopie      -no-pie executable
#   libsymbols.so      shared library
#   symbols-nosyms     no build id, stripped, no debug file
#   symbols-entry      no build id, stripped, its entry point ss_entry
#                      without CFI (like ld.so's _start)
#   symbols-trunc      first 1000 bytes of symbols-pie
#   symbols-garbage    ELF magic followed by text; symbols-text: plain text
# Ground truth, from binutils, for NAME in pie nopie linked lib entry:
#   NAME.nm    "name vaddr size" of each t/T symbol (hex)
#   NAME.load  "offset vaddr filesz" of each PT_LOAD (hex)
#   NAME.plt   "name vaddr" of each NAME@plt entry objdump shows

BUILD ?= build
CC ?= cc

SYMFIX_DIR     := $(BUILD)/fixtures
SYMFIX_SRC     := tests/fixtures/symbols.c
SYMFIX_CFLAGS  := -O1 -g -fno-omit-frame-pointer
SYMFIX_BUILDID := 0123456789abcdef0123456789abcdef01234567
SYMFIX_DEBUG   := $(SYMFIX_DIR)/debug/.build-id/$(shell echo $(SYMFIX_BUILDID) | cut -c1-2)/$(shell echo $(SYMFIX_BUILDID) | cut -c3-).debug

SYMFIX_BINS := $(addprefix $(SYMFIX_DIR)/, symbols-pie symbols-stripped \
	symbols-linked symbols-nopie libsymbols.so symbols-nosyms symbols-entry \
	symbols-trunc symbols-garbage symbols-text libmany.so)
SYMFIX_TRUTH := $(foreach n,pie nopie linked lib entry,$(addprefix $(SYMFIX_DIR)/$(n),.nm .load .plt))

.PHONY: fixtures
fixtures: $(SYMFIX_BINS) $(SYMFIX_DEBUG) $(SYMFIX_TRUTH)

# libmany.so: 260,000 one-byte functions f0..f259999, more than a binary's
# table holds (ELFSYMS_MAX_SYMS)
$(SYMFIX_DIR)/libmany.so:
	@mkdir -p $(@D)
	awk 'BEGIN { print ".text"; for (i = 0; i < 260000; i++) \
		printf ".globl f%d\n.type f%d,@function\nf%d: ret\n.size f%d,1\n", i, i, i, i }' >$@.s
	$(CC) -shared -nostdlib $@.s -o $@
	rm -f $@.s

$(SYMFIX_DIR)/symbols-pie: $(SYMFIX_SRC)
	@mkdir -p $(@D)
	$(CC) $(SYMFIX_CFLAGS) -fPIE -pie -Wl,--build-id=0x$(SYMFIX_BUILDID) $< -o $@

$(SYMFIX_DEBUG): $(SYMFIX_DIR)/symbols-pie
	@mkdir -p $(@D)
	objcopy --only-keep-debug $< $@

$(SYMFIX_DIR)/symbols-stripped: $(SYMFIX_DIR)/symbols-pie
	strip --strip-all $< -o $@

$(SYMFIX_DIR)/symbols-linked.full: $(SYMFIX_SRC)
	@mkdir -p $(@D)
	$(CC) $(SYMFIX_CFLAGS) -fPIE -pie -Wl,--build-id=none $< -o $@

$(SYMFIX_DIR)/.debug/symbols-linked.debug: $(SYMFIX_DIR)/symbols-linked.full
	@mkdir -p $(@D)
	objcopy --only-keep-debug $< $@

$(SYMFIX_DIR)/symbols-linked: $(SYMFIX_DIR)/symbols-linked.full $(SYMFIX_DIR)/.debug/symbols-linked.debug
	strip --strip-all $< -o $@.tmp
	objcopy --add-gnu-debuglink=$(SYMFIX_DIR)/.debug/symbols-linked.debug $@.tmp $@
	rm -f $@.tmp

$(SYMFIX_DIR)/symbols-nopie: $(SYMFIX_SRC)
	@mkdir -p $(@D)
	$(CC) $(SYMFIX_CFLAGS) -fno-pie -no-pie $< -o $@

$(SYMFIX_DIR)/libsymbols.so: $(SYMFIX_SRC)
	@mkdir -p $(@D)
	$(CC) $(SYMFIX_CFLAGS) -DFIXTURE_LIB -fPIC -shared $< -o $@

$(SYMFIX_DIR)/symbols-nosyms: $(SYMFIX_DIR)/symbols-linked.full
	strip --strip-all $< -o $@

$(SYMFIX_DIR)/symbols-entry.full: $(SYMFIX_SRC)
	@mkdir -p $(@D)
	$(CC) $(SYMFIX_CFLAGS) -DFIXTURE_ENTRY -fPIE -pie -Wl,--build-id=none -Wl,-e,ss_entry $< -o $@

$(SYMFIX_DIR)/symbols-entry: $(SYMFIX_DIR)/symbols-entry.full
	strip --strip-all $< -o $@

$(SYMFIX_DIR)/symbols-trunc: $(SYMFIX_DIR)/symbols-pie
	head -c 1000 $< > $@

$(SYMFIX_DIR)/symbols-garbage:
	@mkdir -p $(@D)
	{ printf '\177ELF\002\001\001\000'; seq 1 3000; } > $@

$(SYMFIX_DIR)/symbols-text:
	@mkdir -p $(@D)
	seq 1 3000 > $@

# ground truth
$(SYMFIX_DIR)/lib.%: SYMFIX_BIN = $(SYMFIX_DIR)/libsymbols.so
$(SYMFIX_DIR)/pie.%: SYMFIX_BIN = $(SYMFIX_DIR)/symbols-pie
$(SYMFIX_DIR)/nopie.%: SYMFIX_BIN = $(SYMFIX_DIR)/symbols-nopie
$(SYMFIX_DIR)/linked.%: SYMFIX_BIN = $(SYMFIX_DIR)/symbols-linked.full
$(SYMFIX_DIR)/entry.%: SYMFIX_BIN = $(SYMFIX_DIR)/symbols-entry.full

$(SYMFIX_DIR)/lib.nm $(SYMFIX_DIR)/lib.load $(SYMFIX_DIR)/lib.plt: $(SYMFIX_DIR)/libsymbols.so
$(SYMFIX_DIR)/pie.nm $(SYMFIX_DIR)/pie.load $(SYMFIX_DIR)/pie.plt: $(SYMFIX_DIR)/symbols-pie
$(SYMFIX_DIR)/nopie.nm $(SYMFIX_DIR)/nopie.load $(SYMFIX_DIR)/nopie.plt: $(SYMFIX_DIR)/symbols-nopie
$(SYMFIX_DIR)/linked.nm $(SYMFIX_DIR)/linked.load $(SYMFIX_DIR)/linked.plt: $(SYMFIX_DIR)/symbols-linked.full
$(SYMFIX_DIR)/entry.nm $(SYMFIX_DIR)/entry.load $(SYMFIX_DIR)/entry.plt: $(SYMFIX_DIR)/symbols-entry.full

$(SYMFIX_DIR)/%.nm:
	nm -S --defined-only $(SYMFIX_BIN) | awk 'NF == 4 && ($$3 == "T" || $$3 == "t") { print $$4, $$1, $$2 }' > $@.tmp
	mv $@.tmp $@

$(SYMFIX_DIR)/%.load:
	readelf -lW $(SYMFIX_BIN) | awk '$$1 == "LOAD" { print $$2, $$3, $$5 }' > $@.tmp
	mv $@.tmp $@

$(SYMFIX_DIR)/%.plt:
	objdump -d -j .plt -j .plt.sec $(SYMFIX_BIN) 2>/dev/null | \
		awk '/^[0-9a-f]+ <.*@plt>:$$/ { gsub(/[<>:]/, "", $$2); print $$2, $$1 }' > $@.tmp
	mv $@.tmp $@

# Hostile .gnu_debuglink names (test_debugfile.c), in $(SYMFIX_DIR)/dlink/:
#   target.debug       the DWARF of graph_wl.O2 (the debug file to not reach)
#   sub/dotdot         graph_wl.nodebug linking "../target.debug"
#   sub/fifo           linking "fifo.debug", a FIFO beside it
#   sub/symlink        linking "symlink.debug", a symlink to ../target.debug
#   sub/plain          linking "plain.debug", a copy of target.debug (found)
#   sub/esyms-symlink  symbols-nosyms linking "esyms.debug", a symlink to
#                      the real .debug/symbols-linked.debug
DLINK_DIR := $(SYMFIX_DIR)/dlink
DLINK_BIN := $(WLDIR)/graph/graph_wl.nodebug
fixtures: $(DLINK_DIR)/stamp

$(DLINK_DIR)/stamp: $(WLDIR)/graph/graph_wl.O2 $(DLINK_BIN) $(SYMFIX_DIR)/symbols-nosyms \
		$(SYMFIX_DIR)/.debug/symbols-linked.debug tests/fixtures/debuglink.py
	rm -rf $(DLINK_DIR)
	mkdir -p $(DLINK_DIR)/sub
	objcopy --only-keep-debug $(WLDIR)/graph/graph_wl.O2 $(DLINK_DIR)/target.debug
	cp $(DLINK_DIR)/target.debug $(DLINK_DIR)/sub/plain.debug
	tests/fixtures/debuglink.py $(DLINK_BIN) $(DLINK_DIR)/sub/dotdot ../target.debug $(DLINK_DIR)/target.debug
	tests/fixtures/debuglink.py $(DLINK_BIN) $(DLINK_DIR)/sub/fifo fifo.debug $(DLINK_DIR)/target.debug
	mkfifo $(DLINK_DIR)/sub/fifo.debug
	tests/fixtures/debuglink.py $(DLINK_BIN) $(DLINK_DIR)/sub/symlink symlink.debug $(DLINK_DIR)/target.debug
	ln -s ../target.debug $(DLINK_DIR)/sub/symlink.debug
	tests/fixtures/debuglink.py $(DLINK_BIN) $(DLINK_DIR)/sub/plain plain.debug $(DLINK_DIR)/target.debug
	tests/fixtures/debuglink.py $(SYMFIX_DIR)/symbols-nosyms $(DLINK_DIR)/sub/esyms-symlink esyms.debug \
		$(SYMFIX_DIR)/.debug/symbols-linked.debug
	ln -s ../../.debug/symbols-linked.debug $(DLINK_DIR)/sub/esyms.debug
	touch $@

# Decompression bombs (test_debugfile.c), from graph_wl.O2 (DWARF):
#   zbomb-forged   .debug_info SHF_COMPRESSED claiming 1 GiB, holding 1 KiB
#   zbomb-real     .debug_info inflating to 96 MiB of zeros (~100 KB file)
#   zbomb-frame    chain.debugframe whose .debug_frame claims 1 GiB
fixtures: $(SYMFIX_DIR)/zbomb-forged $(SYMFIX_DIR)/zbomb-real $(SYMFIX_DIR)/zbomb-frame
$(SYMFIX_DIR)/zbomb-forged: $(WLDIR)/graph/graph_wl.O2 tests/fixtures/zbomb.py
	tests/fixtures/zbomb.py $< $@ .debug_info 1073741824 1024
$(SYMFIX_DIR)/zbomb-real: $(WLDIR)/graph/graph_wl.O2 tests/fixtures/zbomb.py
	tests/fixtures/zbomb.py $< $@ .debug_info 100663296 100663296
$(SYMFIX_DIR)/zbomb-frame: $(WLDIR)/unwind/chain.debugframe tests/fixtures/zbomb.py
	tests/fixtures/zbomb.py $< $@ .debug_frame 1073741824 1024

# unwind-longfde.so: one function whose FDE has 100,000 rows (400 KB of
# valid CFI: .cfi_adjust_cfa_offset after each push/pop)
fixtures: $(SYMFIX_DIR)/unwind-longfde.so
$(SYMFIX_DIR)/unwind-longfde.so:
	@mkdir -p $(@D)
	{ echo '.text'; echo '.globl longfde'; echo '.type longfde,@function'; echo 'longfde:'; \
	  echo '.cfi_startproc'; \
	  echo '.rept 50000'; echo 'push %rbx'; echo '.cfi_adjust_cfa_offset 8'; \
	  echo 'pop %rbx'; echo '.cfi_adjust_cfa_offset -8'; echo '.endr'; \
	  echo 'ret'; echo '.cfi_endproc'; echo '.size longfde,.-longfde'; } > $@.s
	$(CC) -nostdlib -shared $@.s -o $@
	rm -f $@.s

# Inlined functions (test_srcline.c), from tests/workloads/inline/inline_chain.c:
#   inline-chain       -O2 -g (clang: no .debug_aranges), fixed build id
#   inline-chain.a2l   binutils' truth for every instruction of outer:
#                      "@ OFFSET" (file offset), then `addr2line -f -i`'s
#                      "FUNC FILE:LINE", innermost first
#   inline-chain.gcc   the same built by gcc (with .debug_aranges), and
#   inline-chain.gcc.a2l
INLFIX_SRC := tests/workloads/inline/inline_chain.c
fixtures: $(SYMFIX_DIR)/inline-chain.a2l $(SYMFIX_DIR)/inline-chain.gcc.a2l
$(SYMFIX_DIR)/inline-chain: $(INLFIX_SRC)
	@mkdir -p $(@D)
	$(CLANG) -O2 -g -Wl,--build-id=0x$(SYMFIX_BUILDID) $< -o $@
$(SYMFIX_DIR)/inline-chain.gcc: $(INLFIX_SRC)
	@mkdir -p $(@D)
	gcc -O2 -g $< -o $@
$(SYMFIX_DIR)/%.a2l: $(SYMFIX_DIR)/%
	objdump -d --no-show-raw-insn $< | awk '/^[0-9a-f]+ <outer>:$$/ { on = 1; next } /^$$/ { on = 0 } \
		on && /^ *[0-9a-f]+:/ { sub(":", "", $$1); print $$1 }' > $@.addrs
	readelf -lW $< | awk '$$1 == "LOAD" { print $$2, $$3, $$5 }' | \
	while read -r o v f; do \
		while read -r a; do \
			if [ $$((0x$$a)) -ge $$((v)) ] && [ $$((0x$$a)) -lt $$((v + f)) ]; then \
				printf '@ %x\n' $$((0x$$a - v + o)); \
				addr2line -f -i -e $< 0x$$a | paste -d' ' - -; \
			fi; \
		done < $@.addrs; \
	done > $@.tmp
	rm -f $@.addrs
	mv $@.tmp $@

# DWARF shared through a dwz alt file (test_debugfile.c), in
# $(SYMFIX_DIR)/dwz/: a and b, graph_wl.c at -O0 -g twice, whose common
# DIEs and strings `dwz -m` moved to common.debug (named by its base name
# in their .gnu_debugaltlink, beside them); hostile/ holds a copy of a
# whose alt link names "../common.debug".  Without dwz (Debian's dwz, the
# test group of scripts/deps.sh) nothing is made and the test says skipped.
DWZ_DIR := $(SYMFIX_DIR)/dwz
fixtures: $(DWZ_DIR)/stamp

$(DWZ_DIR)/stamp: tests/workloads/graph/graph_wl.c
	rm -rf $(DWZ_DIR)
	mkdir -p $(DWZ_DIR)
	if command -v dwz >/dev/null; then \
		$(CC) -O0 -g -o $(DWZ_DIR)/a $< && \
		$(CC) -O0 -g -DDWZ_COPY_B -o $(DWZ_DIR)/b $< && \
		cd $(DWZ_DIR) && dwz -m common.debug -M common.debug a b && \
		mkdir hostile && objcopy --dump-section .gnu_debugaltlink=link a link.tmp && \
		python3 -c 'import sys; d = open("link", "rb").read(); \
			open("link.bad", "wb").write(b"../common.debug\0" + d[d.index(b"\0") + 1:])' && \
		objcopy --update-section .gnu_debugaltlink=link.bad a hostile/a && \
		rm link link.bad link.tmp; \
	fi
	touch $@
