# Six MiB of code no call-frame information describes (int3s that never
# run), linked after fp_chain.c: a binary whose executable mapping is
# big enough for a continuous run to wait before building its unwind
# table (unwind/unwind.h: unwinder_defer_tables()).
	.section .text.pad,"ax",@progbits
	.fill 6291456, 1, 0xcc
	.section .note.GNU-stack,"",@progbits
