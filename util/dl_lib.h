/* Libraries that only some commands need, opened when first needed
 * (dlopen) instead of linked: cairo (`cgperf plot`) and libmicrohttpd (the
 * Prometheus endpoint). Linked, their ~40 dependencies (X11, fontconfig,
 * gnutls, p11-kit, ...) were mapped and initialised in every cgperf process:
 * 4 MiB of the agent's 14.6 MiB RSS at 1000 cgroups (docs/PERFORMANCE.md).
 * Each user has a small table of function pointers (plot/cairo_dl.h,
 * sink/mhd_dl.h) filled by dl_lib_load(). */
#pragma once
#include <stddef.h>

struct dl_sym {
	const char *name;
	void **addr; /* where the address goes */
};

/* A library and the symbols the program takes from it. */
struct dl_lib {
	const char *soname;
	const struct dl_sym *syms;
	size_t nr_syms;
	int state; /* 1: not opened yet; else dl_lib_load()'s answer */
};

#define DL_LIB(soname, syms)                                      \
	{                                                         \
		soname, syms, sizeof(syms) / sizeof((syms)[0]), 1 \
	}

/* Open lib->soname and resolve every symbol into its addr, the first time
 * (the library stays open for the process); later calls give the first
 * answer. Returns 0, -ELIBACC (the library cannot be opened) or -ELIBBAD
 * (a symbol is missing; the library is closed again); dl_lib_error() then
 * says what the loader said. */
int dl_lib_load(struct dl_lib *lib);
/* The loader's message for the last failed dl_lib_load(), or "". */
const char *dl_lib_error(void);
