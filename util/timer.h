/* SPDX-License-Identifier: GPL-2.0-only */
/* timerfd helpers for the poll loops of `cgperf stat` and the agent. */
#pragma once
#include <stdbool.h>

/* A non-blocking CLOCK_MONOTONIC timerfd firing after `seconds` (and every
 * `seconds` after that when periodic). Returns the fd or a negative errno. */
int timer_relative(double seconds, bool periodic);
/* (Re)arm fd the same way: first in `seconds`, then every `seconds` when
 * periodic. Pending expirations are cleared. */
void timer_rearm(int fd, double seconds, bool periodic);

/* (Re)arm timerfd fd to fire once, ms from now (0 or less: at once; an
 * all-zero value would disarm it instead). Pending expirations are cleared. */
void timer_arm_ms(int fd, long long ms);
/* Stop it (and clear expirations not read yet). */
void timer_disarm(int fd);
/* Read the expirations of a (non-blocking) timerfd: true if it fired. */
bool timer_drain(int fd);
