# Function-graph workloads (tests/workloads/graph), built with gcc:
#   graph_wl          -O0 -g: arguments spilled to the stack (doubles readable)
#   graph_wl.O2       -O2 -g: arguments only in registers
#   graph_wl.nodebug  graph_wl.O2 without DWARF (strip --strip-debug), symbols kept
#   graph_bench       -O2 -g, N calls to one small function (bench/graph.sh)
#   graph_bench.pg    the same with -pg, for uftrace record
#   midinsn           -no-pie, a function symbol inside an instruction
# and the builds whose functions begin with a 5-byte nop (graph's fast path):
#   graph_wl.nop5     graph_wl with -pg -mfentry -mnop-mcount
#   graph_wl.cet      the same with -fcf-protection=full: endbr64, then the nop
#   graph_bench.nop5  graph_bench with -pg -mfentry -mnop-mcount
#   graph_bench.pfe   graph_bench with -fpatchable-function-entry=5 (gcc: five
#                     one-byte nops)
#   graph_bench.pfe.clang  the same with clang (one 5-byte nop)
# gcc has no -mnop-mcount for position-independent code, so those are
# compiled -fno-pie and linked -no-pie; they are linked without -pg, so
# no gmon.out is written and no profiling start-up code is added.
GRDIR := $(WLDIR)/graph
NOP5  := -pg -mfentry -mnop-mcount -fno-pie
GRAPH_WORKLOADS := $(GRDIR)/graph_wl $(GRDIR)/graph_wl.O2 $(GRDIR)/graph_wl.nodebug \
	$(GRDIR)/graph_bench $(GRDIR)/graph_bench.pg $(GRDIR)/midinsn \
	$(GRDIR)/graph_wl.nop5 $(GRDIR)/graph_wl.cet $(GRDIR)/graph_bench.nop5 \
	$(GRDIR)/graph_bench.pfe $(GRDIR)/graph_bench.pfe.clang
workloads: $(GRAPH_WORKLOADS)

$(GRDIR)/graph_wl: tests/workloads/graph/graph_wl.c
	@mkdir -p $(@D)
	gcc -O0 -g -pthread $< -o $@
$(GRDIR)/graph_wl.O2: tests/workloads/graph/graph_wl.c
	@mkdir -p $(@D)
	gcc -O2 -g -pthread $< -o $@
$(GRDIR)/graph_wl.nodebug: $(GRDIR)/graph_wl.O2
	strip --strip-debug $< -o $@
$(GRDIR)/graph_bench: tests/workloads/graph/graph_bench.c
	@mkdir -p $(@D)
	gcc -O2 -g $< -o $@
$(GRDIR)/graph_bench.pg: tests/workloads/graph/graph_bench.c
	@mkdir -p $(@D)
	gcc -O2 -g -pg $< -o $@
$(GRDIR)/midinsn: tests/workloads/graph/midinsn.c
	@mkdir -p $(@D)
	gcc -O1 -g0 -no-pie $< -o $@
$(GRDIR)/graph_wl.nop5: tests/workloads/graph/graph_wl.c
	@mkdir -p $(@D)
	gcc -O0 -g -pthread $(NOP5) -c $< -o $@.o
	gcc -no-pie -pthread $@.o -o $@
	rm -f $@.o
$(GRDIR)/graph_wl.cet: tests/workloads/graph/graph_wl.c
	@mkdir -p $(@D)
	gcc -O0 -g -pthread $(NOP5) -fcf-protection=full -c $< -o $@.o
	gcc -no-pie -pthread $@.o -o $@
	rm -f $@.o
$(GRDIR)/graph_bench.nop5: tests/workloads/graph/graph_bench.c
	@mkdir -p $(@D)
	gcc -O2 -g $(NOP5) -c $< -o $@.o
	gcc -no-pie $@.o -o $@
	rm -f $@.o
$(GRDIR)/graph_bench.pfe: tests/workloads/graph/graph_bench.c
	@mkdir -p $(@D)
	gcc -O2 -g -fpatchable-function-entry=5 $< -o $@
$(GRDIR)/graph_bench.pfe.clang: tests/workloads/graph/graph_bench.c
	@mkdir -p $(@D)
	$(CLANG) -O2 -g -Wno-unknown-attributes -fpatchable-function-entry=5 $< -o $@
