/* Does this host support an event? Ask the kernel: open it system-wide on
 * one online CPU and close it again. Nothing is counted or kept. */
#include "events/event_probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CPU_ONLINE_PATH "/sys/devices/system/cpu/online"

static void set_msg(char *msg, size_t msg_len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void set_msg(char *msg, size_t msg_len, const char *fmt, ...) {
	va_list ap;

	if (!msg || msg_len == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, msg_len, fmt, ap);
	va_end(ap);
}

/* First CPU in the online list ("0-3,8-11" -> 0). CPU 0 can be offline on
 * some machines, so it is not assumed. */
static int first_online_cpu(int *ret_cpu) {
	FILE *f;
	int cpu = -1, n;

	f = fopen(CPU_ONLINE_PATH, "re");
	if (!f)
		return -errno;
	n = fscanf(f, "%d", &cpu);
	fclose(f);
	if (n != 1 || cpu < 0)
		return -EIO;
	*ret_cpu = cpu;
	return 0;
}

static int perf_event_open_fd(struct perf_event_attr *attr, int pid, int cpu) {
	long fd = syscall(SYS_perf_event_open, attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : (int)fd;
}

static void describe_failure(const struct event_spec *ev, int err, char *msg, size_t msg_len) {
	switch (err) {
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
	case EINVAL:
		if (ev->attr.type == PERF_TYPE_SOFTWARE)
			set_msg(msg, msg_len, "event '%s' is not supported by this kernel", ev->name);
		else
			set_msg(msg, msg_len, "event '%s' is not supported on this host (no hardware PMU?)",
				ev->name);
		break;
	case EACCES:
	case EPERM:
		set_msg(msg, msg_len,
			"no permission to open event '%s' (run as root or set kernel.perf_event_paranoid / CAP_PERFMON)",
			ev->name);
		break;
	default:
		set_msg(msg, msg_len, "cannot open event '%s': %s", ev->name, strerror(err));
		break;
	}
}

int event_probe(const struct event_spec *ev, char *msg, size_t msg_len) {
	struct perf_event_attr attr;
	int cpu = -1, fd, r; /* set by first_online_cpu(); -1 keeps gcc -O2 quiet */

	if (!ev) {
		set_msg(msg, msg_len, "no event to probe");
		return -EINVAL;
	}
	r = first_online_cpu(&cpu);
	if (r < 0) {
		set_msg(msg, msg_len, "cannot read %s: %s", CPU_ONLINE_PATH, strerror(-r));
		return r;
	}
	/* A copy: the kernel may write attr->size back (E2BIG), and the spec's
	 * attr is a shared key that must stay as parsed. */
	memcpy(&attr, &ev->attr, sizeof(attr));
	fd = perf_event_open_fd(&attr, -1, cpu);
	if (fd < 0) {
		describe_failure(ev, -fd, msg, msg_len);
		return fd;
	}
	close(fd);
	return 0;
}
