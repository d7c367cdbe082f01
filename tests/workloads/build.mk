# Test workloads: built with frame pointers everywhere (including leaf
# functions) so their user stacks are complete with a frame-pointer walk.
WLDIR    := $(BUILD)/tests/workloads
WLFLAGS  := -O1 -g -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -fno-inline
WORKLOADS := $(patsubst tests/workloads/%.c,$(WLDIR)/%,$(wildcard tests/workloads/*.c))

.PHONY: workloads
workloads: $(WORKLOADS)

$(WLDIR)/%: tests/workloads/%.c
	@mkdir -p $(@D)
	$(CLANG) $(WLFLAGS) $< -o $@
