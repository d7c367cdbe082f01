#include <dlfcn.h>
#include <stddef.h>
#include <string.h>
#include "sym/demangle.h"

typedef char *(*cxa_demangle_fn)(const char *mangled, char *buf, size_t *len, int *status);

static cxa_demangle_fn load(void)
{
	static cxa_demangle_fn fn;
	static int tried;
	void *h;

	if (tried)
		return fn;
	tried = 1;
	h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
	if (h)
		fn = (cxa_demangle_fn)dlsym(h, "__cxa_demangle");
	return fn;
}

char *demangle(const char *name)
{
	cxa_demangle_fn fn;
	int status = 0;
	char *out;

	if (strncmp(name, "_Z", 2))
		return NULL;
	fn = load();
	if (!fn)
		return NULL;
	out = fn(name, NULL, NULL, &status);
	return status == 0 ? out : NULL;
}
