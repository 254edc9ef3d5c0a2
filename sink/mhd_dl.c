// SPDX-License-Identifier: GPL-2.0-only
/* libmicrohttpd's table (mhd_dl.h). */
#include "sink/mhd_dl.h"
#include "util/dl_lib.h"

struct mhd_dl mhd_dl;

#define SYM(f)                                \
	{                                     \
		"MHD_" #f, (void **)&mhd_dl.f \
	}

static const struct dl_sym syms[] = {
	SYM(start_daemon),
	SYM(stop_daemon),
	SYM(create_response_from_buffer),
	SYM(create_response_from_buffer_with_free_callback_cls),
	SYM(add_response_header),
	SYM(queue_response),
	SYM(destroy_response),
	SYM(lookup_connection_value),
};

static struct dl_lib lib = DL_LIB(CGPERF_MHD_SONAME, syms);

int mhd_dl_load(void)
{
	return dl_lib_load(&lib);
}
