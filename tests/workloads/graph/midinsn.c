/* A symbol table that lies: load_mid is a function symbol 2 bytes into
 * load's second instruction (a movabs of a data address; the first is
 * not it, or the uprobe at load would run it out of line from the
 * unmodified file).  A uprobe there
 * writes its int3 into that address, and load then reads through a
 * corrupted pointer: the program crashes.  Alone it exits 0. */
int counter = 7;

__asm__(".text\n"
	".globl load\n"
	".type load,@function\n"
	"load:\n"
	".cfi_startproc\n"
	"	nop\n"
	"	movabs $counter, %rax\n"
	"	movl (%rax), %eax\n"
	"	ret\n"
	".cfi_endproc\n"
	".size load, .-load\n"
	".globl load_mid\n"
	".type load_mid,@function\n"
	".set load_mid, load + 3\n"
	".size load_mid, 4\n");

int load(void);

int main(void)
{
	int sum = 0;

	for (int i = 0; i < 3; i++)
		sum += load();
	return sum == 21 ? 0 : 1;
}
