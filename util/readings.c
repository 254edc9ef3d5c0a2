// SPDX-License-Identifier: GPL-2.0-only
#include "util/readings.h"

bool reading_delta(const struct reading *total, const struct reading *last,
		   struct reading *ret_delta)
{
	if (total->counter < last->counter || total->enabled < last->enabled ||
	    total->running < last->running) {
		*ret_delta = *total;
		return true;
	}
	*ret_delta = (struct reading){
		.counter = total->counter - last->counter,
		.enabled = total->enabled - last->enabled,
		.running = total->running - last->running,
	};
	return false;
}

void reading_add(struct reading *acc, const struct reading *d)
{
	acc->counter += d->counter;
	acc->enabled += d->enabled;
	acc->running += d->running;
}

enum reading_state reading_scale(const struct reading *d, uint64_t *ret_value,
				 uint64_t *ret_pct_x100)
{
	unsigned __int128 v;
	uint64_t value = 0, pct = 0;
	enum reading_state state;

	if (d->enabled == 0) {
		value = d->counter;
		state = READING_IDLE;
	} else {
		v = ((unsigned __int128)d->running * 10000 + d->enabled / 2) / d->enabled;
		pct = v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
		state = d->running ? READING_COUNTED : READING_NOT_COUNTED;
	}
	if (state == READING_COUNTED) {
		v = d->counter;
		/* Multiplexed: the counter ran only part of the enabled time;
		 * perf extrapolates the same way. */
		if (d->running < d->enabled)
			v = v * d->enabled / d->running;
		value = v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
	}
	if (ret_value)
		*ret_value = value;
	if (ret_pct_x100)
		*ret_pct_x100 = pct;
	return state;
}

enum reading_state reading_scale_f(const struct reading *d, double *ret_value, double *ret_pct)
{
	enum reading_state state = reading_scale(d, NULL, NULL);
	double value = 0, pct = 0;

	if (state == READING_IDLE)
		value = (double)d->counter;
	if (state != READING_IDLE)
		pct = 100.0 * (double)d->running / (double)d->enabled;
	if (state == READING_COUNTED) {
		value = (double)d->counter;
		if (d->running < d->enabled)
			value *= (double)d->enabled / (double)d->running;
	}
	if (ret_value)
		*ret_value = value;
	if (ret_pct)
		*ret_pct = pct;
	return state;
}

uint64_t readings_now_boot_ns(void)
{
	struct timespec now;

	clock_gettime(CLOCK_BOOTTIME, &now);
	return readings_timespec_ns(&now);
}

uint64_t readings_interval_ms(uint64_t from_ns, uint64_t to_ns)
{
	if (to_ns <= from_ns)
		return 0;
	return (to_ns - from_ns + 500000) / 1000000;
}

uint64_t readings_timespec_ns(const struct timespec *ts)
{
	if (ts->tv_sec < 0)
		return 0;
	return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec;
}

struct timespec readings_ns_timespec(uint64_t ns)
{
	return (struct timespec){ .tv_sec = (time_t)(ns / 1000000000u),
				  .tv_nsec = (long)(ns % 1000000000u) };
}
