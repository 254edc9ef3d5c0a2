/* timerfd helpers for the poll loops of `cgperf stat` and the agent. */
#pragma once
#include <stdbool.h>

/* A non-blocking CLOCK_MONOTONIC timerfd firing after `seconds` (and every
 * `seconds` after that when periodic). Returns the fd or a negative errno. */
int timer_relative(double seconds, bool periodic);
