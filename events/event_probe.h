/* SPDX-License-Identifier: GPL-2.0-only */
/* Does this host support an event? A real perf_event_open() on one CPU. */
#pragma once
#include "events/event_parse.h"

/* Returns 0 if the event can be opened system-wide on an online CPU,
 * or a negative errno (-ENOENT/-EOPNOTSUPP/-EINVAL: not supported on this
 * host, -EACCES/-EPERM: permission). If msg is non-NULL, a one-line message
 * like "event 'cycles' is not supported on this host (no hardware PMU?)" is
 * written there. */
int event_probe(const struct event_spec *ev, char *msg, size_t msg_len);
