// SPDX-License-Identifier: GPL-2.0-only
/* Does this host support an event? Ask the kernel: open it system-wide on
 * one online CPU and close it again. Nothing is counted or kept. */
#include "events/event_probe.h"
#include "events/perf_open.h"
#include "util/cpus.h"
#include <stdlib.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static void set_msg(char *msg, size_t msg_len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_msg(char *msg, size_t msg_len, const char *fmt, ...)
{
	va_list ap;

	if (!msg || msg_len == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, msg_len, fmt, ap);
	va_end(ap);
}

static void describe_failure(const struct event_spec *ev, int err, char *msg, size_t msg_len)
{
	switch (err) {
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
	case EINVAL:
		if (ev->attr.type == PERF_TYPE_SOFTWARE)
			set_msg(msg, msg_len, "event '%s' is not supported by this kernel",
				ev->name);
		else
			set_msg(msg, msg_len,
				"event '%s' is not supported on this host (no hardware PMU?)",
				ev->name);
		break;
	case EACCES:
	case EPERM:
		set_msg(msg, msg_len,
			"no permission to open event '%s' on every CPU (needs CAP_PERFMON or CAP_SYS_ADMIN, or kernel.perf_event_paranoid <= 0)",
			ev->name);
		break;
	default:
		set_msg(msg, msg_len, "cannot open event '%s': %s", ev->name, strerror(err));
		break;
	}
}

int event_probe(const struct event_spec *ev, char *msg, size_t msg_len)
{
	int *cpus = NULL, nr_cpus = 0, fd, r;

	if (!ev) {
		set_msg(msg, msg_len, "no event to probe");
		return -EINVAL;
	}
	/* The first online CPU: CPU 0 can be offline on some machines. */
	r = cpus_online(&cpus, &nr_cpus);
	if (r < 0) {
		set_msg(msg, msg_len, "cannot read the online CPUs: %s", strerror(-r));
		return r;
	}
	fd = perf_open(&ev->attr, -1, cpus[0]);
	free(cpus);
	if (fd < 0) {
		describe_failure(ev, -fd, msg, msg_len);
		return fd;
	}
	close(fd);
	return 0;
}
