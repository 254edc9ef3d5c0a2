// SPDX-License-Identifier: GPL-2.0-only
#include "bpf/probe.h"
#include "bpf/cgperf_shared.h"
#include "probe_accum.skel.h"
#include "probe_fexit.skel.h"
#include "probe_target.skel.h"
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

#ifndef ENOTSUPP
#define ENOTSUPP 524 /* the kernel's internal "not supported", leaked to user space */
#endif

const char *follower_mode_key(enum follower_mode m)
{
	return m == FOLLOWER_FEXIT ? "fexit" : "tp";
}

const char *follower_mode_name(enum follower_mode m)
{
	return m == FOLLOWER_FEXIT
		       ? "fexit followers on a shared leader"
		       : "sched_switch followers on shared perf_events";
}

/* Tries of a sync that keeps finding another one running on its CPU. */
#define RUN_BUSY_TRIES 1000

int bpf_run_on_cpu(int prog_fd, int cpu)
{
	/* A raw_tp program takes its tracepoint arguments as u64s; the
	 * programs ignore them, but the kernel wants a well-formed context. */
	__u64 args[3] = { 0 };
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = args, .ctx_size_in = sizeof(args),
		    .flags = BPF_F_TEST_RUN_ON_CPU, .cpu = (__u32)cpu);

	/* A sync that ran inside another one on that CPU did nothing: again,
	 * once that one is done (it finishes when the IPI returns). */
	for (int tries = 0; tries < RUN_BUSY_TRIES; tries++) {
		if (bpf_prog_test_run_opts(prog_fd, &opts) < 0)
			return -errno;
		if (opts.retval != CGPERF_SYNC_BUSY)
			return 0;
		sched_yield();
	}
	return -EBUSY;
}

bool probe_refused(int err)
{
	return err == -EPERM || err == -ENOTSUPP || err == -EOPNOTSUPP;
}

/* Only the kernel's refusal says "trampolines unavailable": anything else
 * (a verifier rejection, say) is this probe failing, and says so. */
static void say_failed(char *reason, size_t len, const char *stage, int err)
{
	snprintf(reason, len, "%s: %s an fexit program failed: %s",
		 probe_refused(err) ? "trampolines unavailable" : "the fexit probe failed", stage,
		 strerror(-err));
}

static int probe_trampolines_uncached(char *reason, size_t len)
{
	struct probe_target_bpf *target = NULL;
	struct probe_fexit_bpf *fexit = NULL;
	int r;

	target = probe_target_bpf__open_and_load();
	if (!target) {
		r = -errno;
		snprintf(reason, len, "cannot load a raw_tp program: %s", strerror(-r));
		goto out;
	}
	fexit = probe_fexit_bpf__open();
	if (!fexit) {
		r = -errno;
		snprintf(reason, len, "cannot open the fexit probe: %s", strerror(-r));
		goto out;
	}
	r = bpf_program__set_attach_target(fexit->progs.probe_fexit,
					   bpf_program__fd(target->progs.probe_target),
					   "probe_target");
	if (r < 0) {
		snprintf(reason, len, "trampolines unavailable: cannot target a BPF program: %s",
			 strerror(-r));
		goto out;
	}
	r = probe_fexit_bpf__load(fexit);
	if (r < 0) {
		say_failed(reason, len, "loading", r);
		goto out;
	}
	r = probe_fexit_bpf__attach(fexit);
	if (r < 0) {
		say_failed(reason, len, "attaching", r);
		goto out;
	}
	snprintf(reason, len, "trampolines available");
	r = 0;
out:
	probe_fexit_bpf__destroy(fexit);
	probe_target_bpf__destroy(target);
	return r;
}

/* A probe's answer, found once per process. */
struct probe_cache {
	int result; /* 1: not probed yet */
	char reason[256];
};

static int probe_cached(struct probe_cache *c, int (*probe)(char *reason, size_t len), char *reason,
			size_t len)
{
	if (c->result == 1) {
		/* libbpf prints load failures on its own; a probe's failure is
		 * expected and explained by its reason, so keep it quiet. */
		libbpf_print_fn_t old = libbpf_set_print(NULL);
		c->result = probe(c->reason, sizeof(c->reason));
		libbpf_set_print(old);
	}
	if (reason)
		snprintf(reason, len, "%s", c->reason);
	return c->result;
}

int probe_trampolines(char *reason, size_t len)
{
	static struct probe_cache cache = { .result = 1 };

	return probe_cached(&cache, probe_trampolines_uncached, reason, len);
}

/* Linux 5.7 to 6.0 load a tracing program that uses a non-preallocated hash
 * (unless PREEMPT_RT) but WARN about it: a kernel taint, and a panic where
 * panic_on_warn is set. 6.1 allocates such maps' elements safely from any
 * context (bpf_mem_alloc) and dropped the check. So before 6.1 nothing is
 * loaded to ask. */
static bool kernel_allows_hash(char *reason, size_t len)
{
	struct utsname u;
	int major = 0, minor = 0;

	if (uname(&u) < 0 || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		snprintf(u.release, sizeof(u.release), "unknown");
	if (major > 6 || (major == 6 && minor >= 1))
		return true;
	snprintf(reason, len,
		 "per-CPU array (sized for every slot): kernel %s is older than 6.1, whose "
		 "tracing programs may use non-preallocated maps safely",
		 u.release);
	return false;
}

static int probe_accum_hash_uncached(char *reason, size_t len)
{
	struct probe_accum_bpf *skel;
	int r;

	if (!kernel_allows_hash(reason, len))
		return -EOPNOTSUPP;
	skel = probe_accum_bpf__open_and_load();
	r = skel ? 0 : -errno;

	if (r == 0)
		snprintf(reason, len, "per-CPU hash (a value per live slot)");
	else
		snprintf(reason, len,
			 "per-CPU array (sized for every slot): a tracing program with a "
			 "non-preallocated hash did not load: %s",
			 strerror(-r));
	probe_accum_bpf__destroy(skel);
	return r;
}

int probe_accum_hash(char *reason, size_t len)
{
	static struct probe_cache cache = { .result = 1 };

	return probe_cached(&cache, probe_accum_hash_uncached, reason, len);
}
