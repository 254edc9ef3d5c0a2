/* SPDX-License-Identifier: GPL-2.0-only */
/* Pure formatting of cgperf's syslog messages: RFC 5424 with structured data
 * ("[cgperf@<PEN> name="value" ...]") or RFC 3164 with the same name="value"
 * pairs as the message text. Values are escaped and made valid UTF-8; names
 * are made valid SD-NAMEs; a record too large for one message is split into
 * parts that each repeat the identifying params. No I/O, no state.
 * See docs/SYSLOG.md for the exact rules. */
#pragma once
#include "config/config.h"
#include "util/buf.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* RFC 5424 SD-NAME: 1..32 printable US-ASCII characters except '=', ' ', ']', '"'. */
#define SYSLOG_SD_NAME_MAX 32
#define SYSLOG_SEVERITY_INFO 6

/* Append s as the inside of an RFC 5424 PARAM-VALUE: '"', '\' and ']' get a
 * backslash; bytes that are not valid UTF-8 and control characters (C0 and
 * DEL) become U+FFFD. NULL is "". Returns 0 or the buffer's error. */
int syslog_escape_value(struct buf *out, const char *s);

/* The SD-NAME for `name` followed by `suffix` (e.g. "_running_pct", or ""):
 * unchanged when that is valid, at most 32 characters and not one of
 * syslog_reserved_names; otherwise the name with invalid characters as '_',
 * cut so that "~" + 6 hex digits of its FNV-1a hash + suffix fit in 32.
 * Deterministic: the same name always maps to the same SD-NAME.
 * ret must hold SYSLOG_SD_NAME_MAX + 1 bytes. suffix must be valid and at
 * most 20 characters (-EINVAL otherwise). */
int syslog_param_name(const char *name, const char *suffix, char *ret);

/* Names cgperf uses for its own params (NULL-terminated); events never map
 * to one of these. */
extern const char *const syslog_reserved_names[];

struct syslog_header {
	enum syslog_format format;
	int facility; /* 0..23 */
	int severity; /* 0..7 */
	struct timespec time; /* CLOCK_REALTIME. RFC 5424: UTC with milliseconds;
	                        * RFC 3164: local time "Mmm dd hh:mm:ss" */
	/* HOSTNAME. NULL: RFC 5424 "-"; RFC 3164: omitted, as on the local
	 * /dev/log socket (syslog(3) and journald expect no hostname there). */
	const char *hostname;
	const char *app_name; /* APP-NAME / TAG */
	unsigned long procid; /* PROCID / [PID] */
	const char *msgid; /* RFC 5424 only; NULL: "-" */
	uint32_t enterprise_id; /* RFC 5424 SD-ID "cgperf@<enterprise_id>" */
};
/* Header fields are made valid as they are written: characters outside
 * printable US-ASCII (and, for the RFC 3164 TAG, ':' '[' ']') become '_',
 * HOSTNAME is cut at 255, APP-NAME at 48, MSGID at 32; an empty one is "-". */

struct syslog_param {
	const char *name; /* a valid SD-NAME (see syslog_param_name) */
	const char *value; /* any bytes; escaped here */
};

struct syslog_content {
	/* Identifying params, repeated in every part. When even one part with a
	 * single counter group would not fit, the longest of these values are
	 * cut (at a character boundary, never below 16 bytes) and a param
	 * truncated="name,name" says which. */
	const struct syslog_param *ids;
	size_t nr_ids;
	/* Counter params; `group` consecutive ones (value and running_pct of one
	 * event) always travel in the same part. Never cut. */
	const struct syslog_param *counters;
	size_t nr_counters;
	size_t group; /* >= 1 */
};

/* Called once per message, in order; a negative return stops formatting and
 * is returned by syslog_format_record(). */
typedef int (*syslog_emit_fn)(const char *msg, size_t len, void *userdata);

/* Format one record as one message of at most max_len bytes, or, when it does
 * not fit, as several whose identifying params are followed by
 * part="i/n". Returns the number of messages emitted, or -EINVAL (bad
 * facility/severity/group), -ERANGE (time not representable), -EMSGSIZE
 * (max_len too small even for the identifying params cut to 16 bytes and
 * one counter group), -ENOMEM, or the emit callback's error. */
int syslog_format_record(const struct syslog_header *h, const struct syslog_content *c,
			 size_t max_len, syslog_emit_fn emit, void *userdata);
