/* main -> lib_entry (libforge.so, found through LD_LIBRARY_PATH: the
 * genuine or the forged copy) for MS milliseconds of CPU time.
 * Usage: uselib MS */
#include <stdlib.h>

void lib_entry(double ms);

int main(int argc, char **argv)
{
	lib_entry(argc > 1 ? atof(argv[1]) : 300);
	return 0;
}
