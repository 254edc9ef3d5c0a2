// SPDX-License-Identifier: GPL-2.0-only
#include "bpf/prog_profiler.h"
#include "bpf/leader.h"
#include "bpf/probe.h"
#include "bpf/prog_stats.h"
#include "events/event_parse.h"
#include "prog_profiler.skel.h"
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One target's fentry/fexit (NULL: detached) and their program ids. */
struct prof_slot {
	struct prog_profiler_bpf *skel;
	uint32_t prog_ids[2];
};

struct prog_profiler {
	struct leader leaders[CGPERF_MAX_EVENTS];
	int nr_events;
	int nr_possible;
	struct prof_slot *slots; /* one per target attached */
	int nr, cap;
	struct cgperf_prof_accum *percpu; /* nr_possible values: a read's buffer */
};

int prog_profiler_open(const struct event_spec *events, int nr, struct prog_profiler **ret)
{
	struct prog_profiler *p;
	int r;

	if (nr < 1 || nr > CGPERF_MAX_EVENTS)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->nr_possible = libbpf_num_possible_cpus();
	p->percpu = p->nr_possible > 0 ? calloc(p->nr_possible, sizeof(*p->percpu)) : NULL;
	r = p->percpu ? leaders_acquire(events, nr, FOLLOWER_TP, p->leaders, NULL, 0) : -ENOMEM;
	if (r < 0) {
		free(p->percpu);
		free(p);
		return r;
	}
	p->nr_events = nr;
	*ret = p;
	return 0;
}

static int failed(int err, enum prof_failure why, const char *what, struct prof_error *ret)
{
	ret->why = why;
	snprintf(ret->reason, sizeof(ret->reason), "%s: %s", what, strerror(-err));
	return err;
}

/* A failure of the target itself, for good. */
static int unfit(const char *why, struct prof_error *ret)
{
	ret->why = PROF_TARGET;
	snprintf(ret->reason, sizeof(ret->reason), "%s", why);
	return -EOPNOTSUPP;
}

/* The target's main function as its BTF names it (what fentry attaches
 * to), or why it has none. */
static int target_function(int fd, char *ret_name, uint32_t *ret_type, struct prof_error *err)
{
	struct bpf_prog_info info = { 0 };
	struct bpf_func_info fi = { 0 };
	__u32 info_len = sizeof(info);
	const struct btf_type *t;
	struct btf *btf;
	bool is_func;

	if (bpf_obj_get_info_by_fd(fd, &info, &info_len) < 0)
		return failed(-errno, PROF_REJECTED, "cannot read its info", err);
	*ret_type = info.type;
	if (!info.jited_prog_len)
		return unfit("not JIT-ed (a trampoline calls JIT-ed code only)", err);
	if (!info.btf_id || !info.nr_func_info)
		return unfit("no BTF function info (loaded without BTF)", err);
	info = (struct bpf_prog_info){ .nr_func_info = 1,
				       .func_info_rec_size = sizeof(fi),
				       .func_info = (__u64)(unsigned long)&fi };
	info_len = sizeof(info);
	if (bpf_obj_get_info_by_fd(fd, &info, &info_len) < 0)
		return failed(-errno, PROF_REJECTED, "cannot read its BTF function info", err);
	btf = btf__load_from_kernel_by_id(info.btf_id);
	if (!btf)
		return failed(-errno, PROF_REJECTED, "cannot read its BTF", err);
	t = btf__type_by_id(btf, fi.type_id);
	is_func = t && btf_is_func(t); /* t lives in btf: asked before it is freed */
	if (is_func)
		snprintf(ret_name, PROF_FUNC_MAX, "%s", btf__name_by_offset(btf, t->name_off));
	btf__free(btf);
	return is_func ? 0 : unfit("its BTF function info names no function", err);
}

/* A failed load or attach on the target's function func, by what the
 * kernel said. */
static int classify(int err, uint32_t type, const char *stage, const char *func,
		    struct prof_error *ret)
{
	char what[PROF_FUNC_MAX + 96];

	if (probe_refused(err)) {
		snprintf(what, sizeof(what),
			 "trampolines unavailable: %s fentry/fexit on its function '%s' failed",
			 stage, func);
		return failed(err, PROF_REFUSED, what, ret);
	}
	if (type == BPF_PROG_TYPE_TRACING && err == -EINVAL)
		return failed(err, PROF_TARGET,
			      "a tracing program, and this kernel refuses fentry on one (no nested "
			      "tracing attach)",
			      ret);
	snprintf(what, sizeof(what), "cgperf's profiler program failed %s its function '%s'", stage,
		 func);
	return failed(err, PROF_REJECTED, what, ret);
}

static int load_on(struct prog_profiler *p, int fd, const char *func, uint32_t type,
		   struct prog_profiler_bpf **ret, struct prof_error *err)
{
	struct prog_profiler_bpf *skel = prog_profiler_bpf__open();
	const char *stage = "loading";
	int r;

	if (!skel)
		return classify(-errno, type, "opening", func, err);
	skel->rodata->nr_events = p->nr_events;
	/* The raw_tp twins are for tests only. */
	bpf_program__set_autoload(skel->progs.check_enter, false);
	bpf_program__set_autoload(skel->progs.check_exit, false);
	r = leaders_share_events(skel->obj, p->leaders, p->nr_events, p->nr_possible);
	if (!r)
		r = bpf_program__set_attach_target(skel->progs.prof_entry, fd, func);
	if (!r)
		r = bpf_program__set_attach_target(skel->progs.prof_exit_prog, fd, func);
	if (!r)
		r = prog_profiler_bpf__load(skel);
	if (!r) {
		stage = "attaching";
		r = prog_profiler_bpf__attach(skel);
	}
	if (r < 0) {
		prog_profiler_bpf__destroy(skel);
		return classify(r, type, stage, func, err);
	}
	*ret = skel;
	return 0;
}

/* A detached target's index, else a new one (the array grown). */
static int free_slot(struct prog_profiler *p)
{
	for (int i = 0; i < p->nr; i++)
		if (!p->slots[i].skel)
			return i;
	if (p->nr == p->cap) {
		int cap = p->cap ? 2 * p->cap : 8;
		void *n = realloc(p->slots, cap * sizeof(*p->slots));

		if (!n)
			return -ENOMEM;
		p->slots = n;
		p->cap = cap;
	}
	return p->nr;
}

/* The target with this id: its fd (closed by the caller), or why not. */
static int open_target(uint32_t id, struct prof_error *err)
{
	int fd = bpf_prog_get_fd_by_id(id);

	if (fd >= 0)
		return fd;
	return failed(-errno, errno == ENOENT ? PROF_TARGET : PROF_REJECTED, "cannot open it", err);
}

static int own_ids(struct prog_profiler_bpf *skel, uint32_t *ret_ids)
{
	int r = prog_stats_id_of(bpf_program__fd(skel->progs.prof_entry), &ret_ids[0]);

	return r ? r : prog_stats_id_of(bpf_program__fd(skel->progs.prof_exit_prog), &ret_ids[1]);
}

int prog_profiler_attach(struct prog_profiler *p, uint32_t id, struct prof_target *ret,
			 struct prof_error *err)
{
	struct prof_slot s = { 0 };
	struct prof_target t;
	uint32_t type = 0;
	int fd, r, slot;

	slot = free_slot(p);
	if (slot < 0)
		return failed(slot, PROF_REJECTED, "no memory", err);
	fd = open_target(id, err);
	if (fd < 0)
		return fd;
	r = target_function(fd, t.func, &type, err);
	if (r == 0)
		r = load_on(p, fd, t.func, type, &s.skel, err);
	/* The links hold the target from here on. */
	close(fd);
	if (r == 0 && (r = own_ids(s.skel, s.prog_ids)) < 0) {
		prog_profiler_bpf__destroy(s.skel);
		return failed(r, PROF_REJECTED, "cannot read the ids of cgperf's programs on it",
			      err);
	}
	if (r < 0)
		return r;
	p->slots[slot] = s;
	if (slot == p->nr)
		p->nr++;
	t.idx = slot;
	*ret = t;
	return 0;
}

bool prog_profiler_owns(const struct prog_profiler *p, uint32_t id)
{
	for (int i = 0; p && i < p->nr; i++)
		if (p->slots[i].skel &&
		    (p->slots[i].prog_ids[0] == id || p->slots[i].prog_ids[1] == id))
			return true;
	return false;
}

void prog_profiler_detach(struct prog_profiler *p, int idx)
{
	if (!p || idx < 0 || idx >= p->nr || !p->slots[idx].skel)
		return;
	prog_profiler_bpf__destroy(p->slots[idx].skel);
	p->slots[idx] = (struct prof_slot){ 0 };
}

int prog_profiler_read(const struct prog_profiler *p, int idx, struct prof_counts *ret)
{
	struct prof_counts sum = { 0 };
	__u32 zero = 0;

	if (idx < 0 || idx >= p->nr || !p->slots[idx].skel)
		return -EINVAL;
	if (bpf_map_lookup_elem(bpf_map__fd(p->slots[idx].skel->maps.accum), &zero, p->percpu) < 0)
		return -errno;
	for (int cpu = 0; cpu < p->nr_possible; cpu++) {
		const struct cgperf_prof_accum *v = &p->percpu[cpu];

		sum.entries += v->entries;
		sum.runs += v->runs;
		for (int n = 0; n < p->nr_events; n++)
			reading_add(&sum.ev[n], (const struct reading *)&v->ev[n]);
	}
	*ret = sum;
	return 0;
}

void prog_profiler_close(struct prog_profiler *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->nr; i++)
		prog_profiler_bpf__destroy(p->slots[i].skel); /* NULL: detached */
	for (int i = 0; i < p->nr_events; i++)
		leader_release(&p->leaders[i]);
	free(p->slots);
	free(p->percpu);
	free(p);
}
