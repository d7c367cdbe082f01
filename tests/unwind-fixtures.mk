# Fixtures for the unwind-table unit tests (tests/unit/test_unwind.c),
# built into $(BUILD)/fixtures/ by `make fixtures`.  Included by the top
# Makefile; also works on its own:
#   make -f tests/unwind-fixtures.mk fixtures BUILD=build
#
# From tests/fixtures/unwind.c (see there for the frame shapes):
#   unwind-eh          -O2 -fomit-frame-pointer PIE: .eh_frame only
#   unwind-gsframe     the same assembled with --gsframe: .eh_frame + .sframe
#   unwind-sframe      unwind-gsframe without .eh_frame/.eh_frame_hdr
#   unwind-debugframe  -fno-asynchronous-unwind-tables -fno-unwind-tables -g,
#                      then .eh_frame (crt1's _start) removed: .debug_frame only
#   unwind-fp          -O2 -fno-omit-frame-pointer: rbp-based CFA rows
#   libunwind-fix.so   shared library (-O2 -fomit-frame-pointer) with a .plt
#   unwind-mixed       main objects with .eh_frame + .sframe, unw_part_b
#                      from an object with .sframe only, unw_part_c from
#                      one with .debug_frame only
# Malformed:
#   unwind-trunc            first 4096 bytes of unwind-eh
#   unwind-badeh            unwind-eh with the first CIE's length 0xffffffff
#   unwind-sframe-badmagic  unwind-sframe, SFrame magic zeroed
#   unwind-sframe-hugefdes  unwind-sframe, sfh_num_fdes 0x7fffffff
#   unwind-sframe-badfdeoff unwind-sframe, sfh_fdeoff 0x7ffffff0
#   unwind-sframe-badfreoff unwind-sframe, first FDE's FRE offset 0xfffffff0
#   unwind-gsframe-badsframe  unwind-gsframe, SFrame magic zeroed (the
#                           .eh_frame is still good)
# Ground truth, from binutils:
#   NAME.frames  readelf --debug-dump=frames-interp
#   NAME.sfd     objdump --sframe (unwind-gsframe, unwind-mixed)
#   NAME.nm      "name vaddr size" of each t/T symbol (hex)
#   NAME.plt     "name vaddr" of each NAME@plt entry objdump shows
#   NAME.secs    "name vaddr size" of each section (hex)

BUILD ?= build
CC ?= cc

UNWFIX_DIR    := $(BUILD)/fixtures
UNWFIX_SRC    := tests/fixtures/unwind.c
UNWFIX_CFLAGS := -O2 -fomit-frame-pointer -fasynchronous-unwind-tables
UNWFIX_NOCFI  := -O2 -fomit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables -g
# -Wa,--gsframe when the assembler can write .sframe (binutils >= 2.40);
# without it the SFrame fixtures have no .sframe and the tests skip.
# Recursive (=): only probed when a recipe needs it.
UNWFIX_GSFRAME = $(shell $(CC) -Wa,--gsframe -c -x c /dev/null -o /dev/null 2>/dev/null && echo -Wa,--gsframe)

UNWFIX_GOOD := unwind-eh unwind-gsframe unwind-sframe unwind-debugframe \
	unwind-fp libunwind-fix.so unwind-mixed
UNWFIX_BAD  := unwind-trunc unwind-badeh unwind-sframe-badmagic \
	unwind-sframe-hugefdes unwind-sframe-badfdeoff unwind-sframe-badfreoff \
	unwind-gsframe-badsframe
UNWFIX_TRUTH := $(foreach n,$(UNWFIX_GOOD),$(addprefix $(UNWFIX_DIR)/$(n),.frames .nm .plt .secs)) \
	$(UNWFIX_DIR)/unwind-gsframe.sfd $(UNWFIX_DIR)/unwind-mixed.sfd
UNWFIX_FILES := $(addprefix $(UNWFIX_DIR)/,$(UNWFIX_GOOD) $(UNWFIX_BAD)) $(UNWFIX_TRUTH)

.PHONY: fixtures
fixtures: $(UNWFIX_FILES)

# $(call unwfix_patch,FILE,SECTION,OFFSET,BYTES): overwrites the bytes at
# OFFSET (shell arithmetic) inside SECTION of FILE with BYTES (a printf
# format, octal escapes: /bin/sh's printf has no \x).  Nothing when FILE
# has no SECTION.
unwfix_patch = off=$$(readelf -SW $(1) | sed -n 's/^ *\[ *[0-9]*\] //p' | \
		awk '$$1 == "$(2)" { print $$4 }'); \
	if test -n "$$off"; then printf '$(4)' | \
		dd of=$(1) bs=1 seek=$$((0x$$off + $(3))) conv=notrunc status=none; fi

$(UNWFIX_DIR)/unwind-eh: $(UNWFIX_SRC)
	@mkdir -p $(@D)
	$(CC) $(UNWFIX_CFLAGS) -fPIE -pie $< -o $@

$(UNWFIX_DIR)/unwind-gsframe: $(UNWFIX_SRC)
	@mkdir -p $(@D)
	$(CC) $(UNWFIX_CFLAGS) $(UNWFIX_GSFRAME) -fPIE -pie $< -o $@
	readelf -SW $@ | grep -q ' \.sframe ' || echo "$@: the assembler made no .sframe" >&2

$(UNWFIX_DIR)/unwind-sframe: $(UNWFIX_DIR)/unwind-gsframe
	objcopy --remove-section .eh_frame --remove-section .eh_frame_hdr $< $@

$(UNWFIX_DIR)/unwind-debugframe: $(UNWFIX_SRC)
	@mkdir -p $(@D)
	$(CC) $(UNWFIX_NOCFI) -fPIE -pie $< -o $@.full
	objcopy --remove-section .eh_frame --remove-section .eh_frame_hdr $@.full $@
	rm -f $@.full

$(UNWFIX_DIR)/unwind-fp: $(UNWFIX_SRC)
	@mkdir -p $(@D)
	$(CC) -O2 -fno-omit-frame-pointer -fPIE -pie $< -o $@

$(UNWFIX_DIR)/libunwind-fix.so: $(UNWFIX_SRC)
	@mkdir -p $(@D)
	$(CC) $(UNWFIX_CFLAGS) -DUNWFIX_LIB -fPIC -shared $< -o $@

$(UNWFIX_DIR)/unwind-mixed: $(UNWFIX_SRC)
	@mkdir -p $(@D)
	$(CC) $(UNWFIX_CFLAGS) $(UNWFIX_GSFRAME) -DUNWFIX_MIXED -fPIE -c $< -o $@.a.o
	$(CC) $(UNWFIX_CFLAGS) $(UNWFIX_GSFRAME) -DUNWFIX_PART_B -fPIE -c $< -o $@.b.tmp.o
	objcopy --remove-section .eh_frame $@.b.tmp.o $@.b.o
	$(CC) $(UNWFIX_NOCFI) -DUNWFIX_PART_C -fPIE -c $< -o $@.c.o
	$(CC) -pie $@.a.o $@.b.o $@.c.o -o $@
	rm -f $@.a.o $@.b.o $@.b.tmp.o $@.c.o

$(UNWFIX_DIR)/unwind-trunc: $(UNWFIX_DIR)/unwind-eh
	head -c 4096 $< > $@

$(UNWFIX_DIR)/unwind-badeh: $(UNWFIX_DIR)/unwind-eh
	cp $< $@.tmp
	$(call unwfix_patch,$@.tmp,.eh_frame,0,\377\377\377\377)
	mv $@.tmp $@

$(UNWFIX_DIR)/unwind-sframe-badmagic: $(UNWFIX_DIR)/unwind-sframe
	cp $< $@.tmp
	$(call unwfix_patch,$@.tmp,.sframe,0,\000\000)
	mv $@.tmp $@

$(UNWFIX_DIR)/unwind-gsframe-badsframe: $(UNWFIX_DIR)/unwind-gsframe
	cp $< $@.tmp
	$(call unwfix_patch,$@.tmp,.sframe,0,\000\000)
	mv $@.tmp $@

$(UNWFIX_DIR)/unwind-sframe-hugefdes: $(UNWFIX_DIR)/unwind-sframe
	cp $< $@.tmp
	$(call unwfix_patch,$@.tmp,.sframe,8,\377\377\377\177)
	mv $@.tmp $@

$(UNWFIX_DIR)/unwind-sframe-badfdeoff: $(UNWFIX_DIR)/unwind-sframe
	cp $< $@.tmp
	$(call unwfix_patch,$@.tmp,.sframe,20,\360\377\377\177)
	mv $@.tmp $@

# The first FDE follows the 28-byte header (no auxiliary header, fdeoff 0
# as gas and ld write it); its FRE offset is at byte 8 of the FDE.
$(UNWFIX_DIR)/unwind-sframe-badfreoff: $(UNWFIX_DIR)/unwind-sframe
	cp $< $@.tmp
	$(call unwfix_patch,$@.tmp,.sframe,28 + 8,\360\377\377\377)
	mv $@.tmp $@

# Ground truth.  Static pattern rules: tests/fixtures.mk has a
# prerequisite-less $(BUILD)/fixtures/%.nm rule that would otherwise win.
UNWFIX_GOODP := $(addprefix $(UNWFIX_DIR)/,$(UNWFIX_GOOD))

$(addsuffix .frames,$(UNWFIX_GOODP)): %.frames: %
	readelf --debug-dump=frames-interp $< > $@.tmp 2>/dev/null
	mv $@.tmp $@

$(UNWFIX_DIR)/unwind-gsframe.sfd $(UNWFIX_DIR)/unwind-mixed.sfd: %.sfd: %
	objdump --sframe $< > $@.tmp 2>/dev/null || : > $@.tmp
	mv $@.tmp $@

$(addsuffix .nm,$(UNWFIX_GOODP)): %.nm: %
	nm -S --defined-only $< | awk 'NF == 4 && ($$3 == "T" || $$3 == "t") { print $$4, $$1, $$2 }' > $@.tmp
	mv $@.tmp $@

$(addsuffix .plt,$(UNWFIX_GOODP)): %.plt: %
	objdump -d -j .plt -j .plt.sec $< 2>/dev/null | \
		awk '/^[0-9a-f]+ <.*@plt>:$$/ { gsub(/[<>:]/, "", $$2); print $$2, $$1 }' > $@.tmp
	mv $@.tmp $@

$(addsuffix .secs,$(UNWFIX_GOODP)): %.secs: %
	readelf -SW $< | sed -n 's/^ *\[ *[0-9]*\] //p' | \
		awk '$$1 ~ /^\./ { print $$1, $$3, $$5 }' > $@.tmp
	mv $@.tmp $@
