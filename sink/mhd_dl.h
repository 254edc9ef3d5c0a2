/* SPDX-License-Identifier: GPL-2.0-only */
/* libmicrohttpd, opened when the Prometheus endpoint starts (util/dl_lib.h):
 * include this instead of <microhttpd.h>; the MHD_ calls below go through
 * the table mhd_dl_load() fills. Only sink/prom_http.c uses it. */
#pragma once
#include <microhttpd.h>

struct mhd_dl {
	__typeof__(MHD_start_daemon) *start_daemon;
	__typeof__(MHD_stop_daemon) *stop_daemon;
	__typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
	__typeof__(MHD_create_response_from_buffer_with_free_callback_cls)
		*create_response_from_buffer_with_free_callback_cls;
	__typeof__(MHD_add_response_header) *add_response_header;
	__typeof__(MHD_queue_response) *queue_response;
	__typeof__(MHD_destroy_response) *destroy_response;
	__typeof__(MHD_lookup_connection_value) *lookup_connection_value;
};

extern struct mhd_dl mhd_dl;

/* Open the library (once it worked, nothing more to do). 0, or -ELIBACC /
 * -ELIBBAD with dl_lib_error() saying why. */
int mhd_dl_load(void);

#define MHD_start_daemon (mhd_dl.start_daemon)
#define MHD_stop_daemon (mhd_dl.stop_daemon)
#define MHD_create_response_from_buffer (mhd_dl.create_response_from_buffer)
#define MHD_create_response_from_buffer_with_free_callback_cls \
	(mhd_dl.create_response_from_buffer_with_free_callback_cls)
#define MHD_add_response_header (mhd_dl.add_response_header)
#define MHD_queue_response (mhd_dl.queue_response)
#define MHD_destroy_response (mhd_dl.destroy_response)
#define MHD_lookup_connection_value (mhd_dl.lookup_connection_value)
