/* The vDSO is not a file: it is the same image in every process of this
 * kernel, so ours is copied from memory into a memfd that libelf (symbols)
 * and the unwind-table builder (its .eh_frame) can read like a file. */
#ifndef STACKSCOPE_SYM_VDSO_H
#define STACKSCOPE_SYM_VDSO_H

/* A read-only fd of our vDSO image (created once, kept open), or -errno. */
int vdso_image_fd(void);

#endif
