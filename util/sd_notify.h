/* SPDX-License-Identifier: GPL-2.0-only */
/* systemd's service notification protocol (sd_notify(3)) without
 * libsystemd: "KEY=VALUE" lines in one datagram to the AF_UNIX socket named
 * by $NOTIFY_SOCKET (a path, or an abstract name after '@'). Outside a
 * Type=notify service the variable is unset and nothing is sent. */
#pragma once
#include <stdint.h>

/* Send state ("READY=1\nSTATUS=...") and wait until the socket takes it.
 * 0 when sent or when there is no socket; -errno when the send failed (the
 * caller goes on: a service manager that cannot be told is not a reason to
 * stop counting). */
int sd_notify_send(const char *state);
/* The watchdog interval systemd expects pings within ($WATCHDOG_USEC, for
 * this process when $WATCHDOG_PID names it or is unset); 0: none. */
uint64_t sd_watchdog_usec(void);
