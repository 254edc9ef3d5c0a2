#include "bpf/prog_profiler.h"
#include "bpf/leader.h"
#include "bpf/probe.h"
#include "events/event_parse.h"
#include "prog_profiler.skel.h"
#include "util/log.h"
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct prog_profiler {
	struct leader leaders[CGPERF_MAX_EVENTS];
	int nr_events;
	int nr_possible;
	struct prog_profiler_bpf **skels; /* one per target attached */
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

static int failed(int err, const char *what, char *reason, size_t len)
{
	snprintf(reason, len, "%s: %s", what, strerror(-err));
	return err;
}

/* The target's main function as its BTF names it (what fentry attaches
 * to), or why it has none. */
static int target_function(int fd, char *ret_name, size_t len, uint32_t *ret_type, char *reason,
			   size_t rlen)
{
	struct bpf_prog_info info = { 0 };
	struct bpf_func_info fi = { 0 };
	__u32 info_len = sizeof(info);
	const struct btf_type *t;
	struct btf *btf;

	if (bpf_obj_get_info_by_fd(fd, &info, &info_len) < 0)
		return failed(-errno, "cannot read its info", reason, rlen);
	*ret_type = info.type;
	if (!info.jited_prog_len) {
		snprintf(reason, rlen, "not JIT-ed (a trampoline calls JIT-ed code only)");
		return -EOPNOTSUPP;
	}
	if (!info.btf_id || !info.nr_func_info) {
		snprintf(reason, rlen, "no BTF function info (loaded without BTF)");
		return -EOPNOTSUPP;
	}
	info = (struct bpf_prog_info){ .nr_func_info = 1,
				       .func_info_rec_size = sizeof(fi),
				       .func_info = (__u64)(unsigned long)&fi };
	info_len = sizeof(info);
	if (bpf_obj_get_info_by_fd(fd, &info, &info_len) < 0)
		return failed(-errno, "cannot read its BTF function info", reason, rlen);
	btf = btf__load_from_kernel_by_id(info.btf_id);
	if (!btf)
		return failed(-errno, "cannot read its BTF", reason, rlen);
	t = btf__type_by_id(btf, fi.type_id);
	if (!t || !btf_is_func(t)) {
		snprintf(reason, rlen, "its BTF function info names no function");
		btf__free(btf);
		return -EOPNOTSUPP;
	}
	snprintf(ret_name, len, "%s", btf__name_by_offset(btf, t->name_off));
	btf__free(btf);
	return 0;
}

/* A failed load or attach, by what the kernel said. */
static enum prof_failure classify(int err, uint32_t type, const char *stage, char *reason,
				  size_t len)
{
	if (probe_refused(err)) {
		snprintf(reason, len, "trampolines unavailable: %s fentry/fexit on it failed: %s",
			 stage, strerror(-err));
		return PROF_REFUSED;
	}
	if (type == BPF_PROG_TYPE_TRACING && err == -EINVAL) {
		snprintf(reason, len,
			 "a tracing program, and this kernel refuses fentry on one (no nested "
			 "tracing attach): %s",
			 strerror(-err));
		return PROF_TARGET;
	}
	snprintf(reason, len, "cgperf's profiler program failed %s it: %s", stage, strerror(-err));
	return PROF_REJECTED;
}

static int load_on(struct prog_profiler *p, int fd, const char *func, uint32_t type,
		   struct prog_profiler_bpf **ret, enum prof_failure *ret_why, char *reason,
		   size_t len)
{
	struct prog_profiler_bpf *skel = prog_profiler_bpf__open();
	const char *stage = "loading";
	int r;

	if (!skel) {
		r = -errno;
		*ret_why = classify(r, type, "opening", reason, len);
		return r;
	}
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
		*ret_why = classify(r, type, stage, reason, len);
		prog_profiler_bpf__destroy(skel);
		return r;
	}
	*ret = skel;
	return 0;
}

/* A detached target's index, else a new one (the array grown). */
static int free_slot(struct prog_profiler *p)
{
	for (int i = 0; i < p->nr; i++)
		if (!p->skels[i])
			return i;
	if (p->nr == p->cap) {
		int cap = p->cap ? 2 * p->cap : 8;
		void *n = realloc(p->skels, cap * sizeof(*p->skels));

		if (!n)
			return -ENOMEM;
		p->skels = n;
		p->cap = cap;
	}
	return p->nr;
}

int prog_profiler_attach(struct prog_profiler *p, uint32_t id, int *ret_idx,
			 enum prof_failure *ret_why, char *reason, size_t len)
{
	struct prog_profiler_bpf *skel = NULL;
	char func[128];
	uint32_t type = 0;
	int fd, r, slot;

	slot = free_slot(p);
	if (slot < 0) {
		*ret_why = PROF_REJECTED;
		return failed(slot, "no memory", reason, len);
	}
	fd = bpf_prog_get_fd_by_id(id);
	if (fd < 0) {
		*ret_why = PROF_TARGET;
		return failed(-errno, "cannot open it", reason, len);
	}
	r = target_function(fd, func, sizeof(func), &type, reason, len);
	if (r < 0) {
		*ret_why = PROF_TARGET;
	} else {
		log_info("BPF program %u: loading fentry/fexit on its function '%s'", (unsigned)id,
			 func);
		r = load_on(p, fd, func, type, &skel, ret_why, reason, len);
	}
	/* The links hold the target from here on. */
	close(fd);
	if (r < 0)
		return r;
	log_info("BPF program %u: counting events inside it", (unsigned)id);
	p->skels[slot] = skel;
	if (slot == p->nr)
		p->nr++;
	*ret_idx = slot;
	return 0;
}

void prog_profiler_detach(struct prog_profiler *p, int idx)
{
	if (!p || idx < 0 || idx >= p->nr || !p->skels[idx])
		return;
	prog_profiler_bpf__destroy(p->skels[idx]);
	p->skels[idx] = NULL;
}

int prog_profiler_read(const struct prog_profiler *p, int idx, struct prof_counts *ret)
{
	struct prof_counts sum = { 0 };
	__u32 zero = 0;

	if (idx < 0 || idx >= p->nr || !p->skels[idx])
		return -EINVAL;
	if (bpf_map_lookup_elem(bpf_map__fd(p->skels[idx]->maps.accum), &zero, p->percpu) < 0)
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
		prog_profiler_bpf__destroy(p->skels[i]); /* NULL: detached */
	for (int i = 0; i < p->nr_events; i++)
		leader_release(&p->leaders[i]);
	free(p->skels);
	free(p->percpu);
	free(p);
}
