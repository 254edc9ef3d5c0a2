/* SPDX-License-Identifier: GPL-2.0-only */
/* Libraries that only some commands need, opened when first needed
 * (dlopen) instead of linked: cairo (`cgperf plot`) and libmicrohttpd (the
 * Prometheus endpoint). Linked, their ~40 dependencies (X11, fontconfig,
 * gnutls, p11-kit, ...) were mapped and initialised in every cgperf process:
 * 4 MiB of the agent's 14.6 MiB RSS at 1000 cgroups (docs/PERFORMANCE.md).
 * Each user has a small table of function pointers (plot/cairo_dl.h,
 * sink/mhd_dl.h) filled by dl_lib_load(). */
#pragma once
#include <stdbool.h>
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
	bool loaded;
};

#define DL_LIB(soname, syms)                                          \
	{                                                             \
		soname, syms, sizeof(syms) / sizeof((syms)[0]), false \
	}

/* Open lib->soname and resolve every symbol into its addr, unless done
 * before (the library stays open for the process). Returns 0, -ELIBACC (the
 * library cannot be opened) or -ELIBBAD (a symbol is missing: the library
 * is closed again, the addresses cleared); dl_lib_error() then says what the
 * loader said. A failure is tried again at the next call (a reload after
 * the package was installed). */
int dl_lib_load(struct dl_lib *lib);
/* The loader's message for the last failed dl_lib_load(), or "". */
const char *dl_lib_error(void);
