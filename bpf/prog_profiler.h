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
#include <stddef.h>
#include <stdint.h>

struct event_spec;

/* Why a target is not profiled. */
enum prof_failure {
	PROF_TARGET, /* this program cannot take fentry: no BTF function info, not
	              * JIT-ed, a tracing program where nested attach is refused */
	PROF_REFUSED, /* the kernel refuses trampolines (probe_refused() errnos) */
	PROF_REJECTED, /* anything else: cgperf's program rejected, no memory, ... */
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
/* fentry/fexit on program id; ret_idx is its index for reads. On failure
 * ret_why and reason (the cause, the kernel's errno text last) say why. */
int prog_profiler_attach(struct prog_profiler *p, uint32_t id, int *ret_idx,
			 enum prof_failure *ret_why, char *reason, size_t len);
int prog_profiler_read(const struct prog_profiler *p, int idx, struct prof_counts *ret);
/* Close idx's fentry/fexit (its links and programs): the kernel holds the
 * target no more; idx may be given to a later attach. Detached or
 * out-of-range idx: nothing. */
void prog_profiler_detach(struct prog_profiler *p, int idx);
void prog_profiler_close(struct prog_profiler *p);
