// SPDX-License-Identifier: GPL-2.0-only
/* dlopen with a table of symbols (dl_lib.h). */
#include "util/dl_lib.h"
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>

static char last_error[256];

static void note_error(void)
{
	const char *e = dlerror();

	snprintf(last_error, sizeof(last_error), "%s", e ? e : "unknown error");
}

static int open_lib(const char *soname, const struct dl_sym *syms, size_t n)
{
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		note_error();
		return -ELIBACC;
	}
	for (size_t i = 0; i < n; i++) {
		*syms[i].addr = dlsym(h, syms[i].name);
		if (!*syms[i].addr) {
			note_error();
			for (size_t j = 0; j < i; j++)
				*syms[j].addr = NULL; /* none into a closed library */
			dlclose(h);
			return -ELIBBAD;
		}
	}
	return 0;
}

int dl_lib_load(struct dl_lib *lib)
{
	int r = lib->loaded ? 0 : open_lib(lib->soname, lib->syms, lib->nr_syms);

	lib->loaded = r == 0;
	return r;
}

const char *dl_lib_error(void)
{
	return last_error;
}
