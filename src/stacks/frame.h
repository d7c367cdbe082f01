/* A frame of a stack as every part of the pipeline passes it on: the
 * symbolizer makes it, the stacks model keeps it, every writer reads it.
 * Beside its name it keeps where it was, so a writer that needs addresses
 * (pprof: one Location per module and address, a later symbolizer) needs
 * nothing new from capture. */
#ifndef STACKSCOPE_STACKS_FRAME_H
#define STACKSCOPE_STACKS_FRAME_H
#include <stdbool.h>
#include <stdint.h>

/* FRAME_MARK: synthetic frames such as "[truncated]", "[lost stack]" or a
 * "--" separator between a waker's stack and the blocked thread's.
 * FRAME_TASK: one process or thread of a FRAME_COMM, right under it, when
 * asked (--per-pid: "[pid 1234]", --per-thread: "[tid 1235]"). */
enum frame_kind { FRAME_USER, FRAME_KERNEL, FRAME_COMM, FRAME_MARK, FRAME_TASK };

/* The file a frame's code came from, as the kernel mapped it.  Kernel
 * frames have "[kernel.kallsyms]"; the vDSO "[vdso]". */
struct frame_module {
	const char *path;
	unsigned char build_id[20];
	unsigned int build_id_len;	/* 0: unknown */
};

/* Where in the source a frame's address is, from DWARF (sym/srcline).
 * file: the source file (NULL: unknown); line: 0 unknown.  inlined: the
 * frame's function was inlined into the frame right outside it (the one
 * before it in a root-first stack), at the same address: the symbolizer
 * gives an address whose code DWARF says was inlined several frames, the
 * function it was compiled in first, then each inlined one, innermost
 * last.  Writers by name show them as frames (as perf and FlameGraph
 * do); pprof makes them the Lines of one Location. */
struct frame_src {
	const char *file;
	unsigned int line;
	bool inlined;
};

/* One frame.  name is never NULL ("[unknown]" when nothing names it).
 * addr: the instruction address (user frames: the pc of the innermost
 * frame, a return address minus one for the others, so it lies inside
 * the call; kernel frames: as the kernel's stack walk gave it); for a
 * FRAME_COMM frame the process id (the pipeline's sample pid, so stacks
 * of two processes with one name stay apart by location and writers by
 * address can label them); for a FRAME_TASK frame the pid or tid it
 * names; 0 for FRAME_MARK frames and frames read from folded text.
 * module NULL: no mapping covers addr.  offset: addr's offset in the
 * module's file (kernel frames: addr itself).  src: its source line, for
 * user frames whose binary has DWARF. */
struct frame {
	const char *name;
	enum frame_kind kind;
	uint64_t addr;
	const struct frame_module *module;
	uint64_t offset;
	const struct frame_src *src;	/* NULL: nothing known */
};

#endif
