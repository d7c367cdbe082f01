# Function-graph workloads (tests/workloads/graph), built with gcc:
#   graph_wl          -O0 -g: arguments spilled to the stack (doubles readable)
#   graph_wl.O2       -O2 -g: arguments only in registers
#   graph_wl.nodebug  graph_wl.O2 without DWARF (strip --strip-debug), symbols kept
#   graph_bench       -O2 -g, N calls to one small function (bench/graph.sh)
#   graph_bench.pg    the same with -pg, for uftrace record
#   midinsn           -no-pie, a function symbol inside an instruction
GRDIR := $(WLDIR)/graph
GRAPH_WORKLOADS := $(GRDIR)/graph_wl $(GRDIR)/graph_wl.O2 $(GRDIR)/graph_wl.nodebug \
	$(GRDIR)/graph_bench $(GRDIR)/graph_bench.pg $(GRDIR)/midinsn
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
