/* SPDX-License-Identifier: GPL-2.0-only */
/* Event counts inside BPF programs where the kernel allows BPF trampolines
 * (cgperf stat -b, perf's bpf_prog_profiler): per target program an fentry
 * and an fexit program on its main function (bpf/prog_profiler.bpf.c), both
 * reading the session's events from the shared per-CPU perf_events; what
 * each event counted between a run's entry and its exit is summed per CPU.
 * While profiled, a target is held by the kernel for its trampoline: a
 * program its owner drops stays loaded (and runs no more) until it is
 * detached (prog_profiler_detach) or the profiler closed. */
#pragma once
#include "bpf/cgperf_shared.h"
#include "util/readings.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct event_spec;

/* Why a target is not profiled. Only PROF_TARGET is for good: the others
 * may pass (an attach later may work). */
enum prof_failure {
	PROF_TARGET, /* this program cannot take fentry: gone, no BTF function
	              * info, not JIT-ed, a tracing program where nested attach
	              * is refused */
	PROF_REFUSED, /* the kernel refuses the trampoline (probe_refused() errnos) */
	PROF_REJECTED, /* anything else: no memory, no fds (EMFILE), its trampoline
	                * busy (EBUSY: an freplace on the same function), cgperf's
	                * program rejected, ... */
};

/* KSYM_NAME_LEN: a BTF function name, NUL included. */
#define PROF_FUNC_MAX 512
#define PROF_REASON_MAX (PROF_FUNC_MAX + 160)

/* A target attached. */
struct prof_target {
	int idx; /* its index for reads and detach */
	char func[PROF_FUNC_MAX]; /* its main function, where fentry/fexit are */
};

/* Why an attach failed. */
struct prof_error {
	enum prof_failure why;
	char reason[PROF_REASON_MAX]; /* the cause, the kernel's errno text last */
};

/* A target's totals since it was attached: runs entered, runs counted
 * (entry and exit seen), each event's change inside those runs. */
struct prof_counts {
	uint64_t entries, runs;
	struct reading ev[CGPERF_MAX_EVENTS];
};

struct prog_profiler;

/* The shared leaders of nr events (1..CGPERF_MAX_EVENTS). */
int prog_profiler_open(const struct event_spec *events, int nr, struct prog_profiler **ret);
/* fentry/fexit on program id: 0 and ret, or -errno and err (why). Logs
 * nothing: the caller decides what is said. */
int prog_profiler_attach(struct prog_profiler *p, uint32_t id, struct prof_target *ret,
			 struct prof_error *err);
/* id is one of the profiler's own programs (an fentry or fexit attached
 * now): never a target. */
bool prog_profiler_owns(const struct prog_profiler *p, uint32_t id);
int prog_profiler_read(const struct prog_profiler *p, int idx, struct prof_counts *ret);
/* Close idx's fentry/fexit (its links and programs): the kernel holds the
 * target no more; idx may be given to a later attach. Detached or
 * out-of-range idx: nothing. */
void prog_profiler_detach(struct prog_profiler *p, int idx);
void prog_profiler_close(struct prog_profiler *p);
