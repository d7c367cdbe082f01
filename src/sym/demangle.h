/* C++ symbol demangling ("_ZN3foo3barEv" -> "foo::bar()"), through the
 * C++ runtime's own demangler, loaded on first use: stackscope needs no
 * C++ toolchain to build and keeps mangled names where the runtime is
 * absent. */
#ifndef STACKSCOPE_SYM_DEMANGLE_H
#define STACKSCOPE_SYM_DEMANGLE_H

/* A malloc'd demangled name, or NULL when name is not a mangled C++ name
 * or cannot be demangled. */
char *demangle(const char *name);

#endif
