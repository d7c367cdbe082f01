# Test workloads: built with frame pointers everywhere (including leaf
# functions) so their user stacks are complete with a frame-pointer walk.
WLDIR    := $(BUILD)/tests/workloads
WLFLAGS  := -O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -fno-inline -pthread
WORKLOADS := $(patsubst tests/workloads/%.c,$(WLDIR)/%,$(wildcard tests/workloads/*.c))

.PHONY: workloads
workloads: $(WORKLOADS)

$(WLDIR)/%: tests/workloads/%.c
	@mkdir -p $(@D)
	$(CLANG) $(WLFLAGS) $< -o $@

# Unwinding workloads (tests/workloads/unwind): distribution-style builds
# with no frame pointers, and variants whose only call-frame information
# is .sframe or .debug_frame, or gcc frame-pointer builds whose leaf
# functions set up no frame.
UWDIR := $(WLDIR)/unwind
NOFP  := gcc -O2 -g -fomit-frame-pointer -fno-inline
UNWIND_WORKLOADS := $(UWDIR)/chain.nofp $(UWDIR)/chain.gccfp $(UWDIR)/chain.sframe \
	$(UWDIR)/chain.debugframe $(UWDIR)/qsort_cb $(UWDIR)/uselib $(UWDIR)/libwork.so \
	$(UWDIR)/recurse $(UWDIR)/sighandler $(UWDIR)/libc_sleep $(UWDIR)/chain.big
workloads: $(UNWIND_WORKLOADS)

$(UWDIR)/chain.nofp: tests/workloads/fp_chain.c
	@mkdir -p $(@D)
	$(NOFP) $< -o $@
$(UWDIR)/chain.gccfp: tests/workloads/fp_chain.c
	@mkdir -p $(@D)
	gcc -O2 -g -fno-omit-frame-pointer -fno-inline $< -o $@
# gas writes .sframe; the .eh_frame of the program and its crt objects is
# then removed, so .sframe is all there is
$(UWDIR)/chain.sframe: tests/workloads/fp_chain.c
	@mkdir -p $(@D)
	$(NOFP) -Wa,--gsframe $< -o $@.tmp
	objcopy --remove-section .eh_frame --remove-section .eh_frame_hdr $@.tmp $@
	rm -f $@.tmp
# fp_chain with 6 MiB more code: a big binary (unwinder_defer_tables())
$(UWDIR)/chain.big: tests/workloads/fp_chain.c tests/workloads/unwind/pad6m.s
	@mkdir -p $(@D)
	$(NOFP) $^ -o $@
$(UWDIR)/chain.debugframe: tests/workloads/fp_chain.c
	@mkdir -p $(@D)
	$(NOFP) -fno-asynchronous-unwind-tables -fno-unwind-tables $< -o $@.tmp
	objcopy --remove-section .eh_frame --remove-section .eh_frame_hdr $@.tmp $@
	rm -f $@.tmp
$(UWDIR)/libwork.so: tests/workloads/unwind/libwork.c
	@mkdir -p $(@D)
	$(NOFP) -shared -fPIC $< -o $@
$(UWDIR)/uselib: tests/workloads/unwind/uselib.c $(UWDIR)/libwork.so
	$(NOFP) $< -o $@ -L$(UWDIR) -lwork -Wl,-rpath,'$$ORIGIN'
$(UWDIR)/%: tests/workloads/unwind/%.c
	@mkdir -p $(@D)
	$(NOFP) $< -o $@
# Inlined functions (tests/workloads/inline): -O2 so that always_inline
# functions leave their chain in DWARF only
INLDIR := $(WLDIR)/inline
workloads: $(INLDIR)/inline_chain
$(INLDIR)/%: tests/workloads/inline/%.c
	@mkdir -p $(@D)
	$(CLANG) -O2 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer $< -o $@
include tests/workloads/graph/build.mk

# Pid reuse (tests/workloads/reuse): one source built as a victim and a
# decoy, without PIE (the same addresses, other names) and with it, and
# the helper that hands a chosen pid to a new process.
RUDIR := $(WLDIR)/reuse
REUSE_WORKLOADS := $(RUDIR)/victim $(RUDIR)/decoy $(RUDIR)/victim_pie $(RUDIR)/decoy_pie \
	$(RUDIR)/pidreuse
workloads: $(REUSE_WORKLOADS)

$(RUDIR)/victim $(RUDIR)/decoy: $(RUDIR)/%: tests/workloads/reuse/spin.c
	@mkdir -p $(@D)
	$(CLANG) $(WLFLAGS) -fno-pie -no-pie -DROLE=$* $< -o $@
$(RUDIR)/victim_pie $(RUDIR)/decoy_pie: $(RUDIR)/%_pie: tests/workloads/reuse/spin.c
	@mkdir -p $(@D)
	$(CLANG) $(WLFLAGS) -fpie -pie -DROLE=$* $< -o $@
$(RUDIR)/pidreuse: tests/workloads/reuse/pidreuse.c
	@mkdir -p $(@D)
	$(CLANG) $(WLFLAGS) $< -o $@

# Build-id forgery (tests/workloads/forge): a library and a copy with
# other names under the same build id, and a program that uses either.
FGDIR := $(WLDIR)/forge
FORGE_BUILD_ID := 0x5eedf0e9e5eedf0e9e5eedf0e9e5eedf0e9e0001
workloads: $(FGDIR)/genuine/libforge.so $(FGDIR)/forged/libforge.so $(FGDIR)/uselib

$(FGDIR)/genuine/libforge.so $(FGDIR)/forged/libforge.so: $(FGDIR)/%/libforge.so: tests/workloads/forge/lib.c
	@mkdir -p $(@D)
	$(CLANG) $(WLFLAGS) -shared -fPIC -DROLE=$(if $(filter genuine,$*),true,evil) \
		-Wl,--build-id=$(FORGE_BUILD_ID) -Wl,-soname,libforge.so $< -o $@
$(FGDIR)/uselib: tests/workloads/forge/uselib.c $(FGDIR)/genuine/libforge.so
	$(CLANG) $(WLFLAGS) $< -o $@ -L$(FGDIR)/genuine -lforge

# A JIT in miniature (tests/workloads/jit): code in anonymous memory named
# by a perf map; built without frame pointers but with unwind tables (as
# distributions build), so only the jitted frame needs a frame-pointer step.
$(WLDIR)/jit/jit: tests/workloads/jit/jit.c
	@mkdir -p $(@D)
	$(NOFP) $< -o $@
workloads: $(WLDIR)/jit/jit

# USDT probes (tests/workloads/usdt): gcc -O2 so that the notes' operands
# are registers, memory by register and by %rip-relative symbol, and
# constants (<sys/sdt.h>: systemtap-sdt-dev)
USDTDIR := $(WLDIR)/usdt
workloads: $(USDTDIR)/usdt_wl
$(USDTDIR)/libusdt_lib.so: tests/workloads/usdt/usdt_lib.c
	@mkdir -p $(@D)
	gcc -O2 -g -fno-omit-frame-pointer -fPIC -shared $< -o $@
$(USDTDIR)/usdt_wl: tests/workloads/usdt/usdt_wl.c $(USDTDIR)/libusdt_lib.so
	gcc -O2 -g -fno-omit-frame-pointer -fno-inline $< -o $@ -L$(USDTDIR) -lusdt_lib \
		-Wl,-rpath,'$$ORIGIN'

