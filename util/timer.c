// SPDX-License-Identifier: GPL-2.0-only
#include "util/timer.h"
#include <errno.h>
#include <sys/timerfd.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

void timer_rearm(int fd, double seconds, bool periodic)
{
	struct itimerspec its = { 0 };

	its.it_value.tv_sec = (time_t)seconds;
	its.it_value.tv_nsec = (long)((seconds - (time_t)seconds) * 1e9);
	/* An all-zero it_value would disarm the timer instead of firing now. */
	if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0)
		its.it_value.tv_nsec = 1;
	if (periodic)
		its.it_interval = its.it_value;
	timerfd_settime(fd, 0, &its, NULL);
}

int timer_relative(double seconds, bool periodic)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);

	if (fd < 0)
		return -errno;
	timer_rearm(fd, seconds, periodic);
	return fd;
}

void timer_arm_ms(int fd, long long ms)
{
	struct itimerspec its = { 0 };

	if (ms < 0)
		ms = 0;
	its.it_value.tv_sec = (time_t)(ms / 1000);
	its.it_value.tv_nsec = ms % 1000 * 1000000L + (ms == 0);
	timerfd_settime(fd, 0, &its, NULL);
}

void timer_disarm(int fd)
{
	struct itimerspec its = { 0 };

	timerfd_settime(fd, 0, &its, NULL);
}

bool timer_drain(int fd)
{
	uint64_t ticks;

	return read(fd, &ticks, sizeof(ticks)) == sizeof(ticks) && ticks > 0;
}
