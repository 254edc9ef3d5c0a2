// SPDX-License-Identifier: GPL-2.0-only
#include "bpf/sync_skip.h"
#include "bpf/prog_maps.h"
#include "util/cpus.h"
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Where the fields read are in one CPU's value of prev_readings. */
struct hub_cpu_layout {
	__u32 ktime; /* last flush; 0: the hub never ran there */
	__u32 cur_pid; /* seen.cur_pid: the task last switched in (0: idle) */
	__u32 held_id; /* cgroup whose charges are held (0: none) */
	__u32 slots; /* held_slots[]: per session, its slots for held_id */
	__u32 slot_size, nr_sessions;
	__u32 slot_nr; /* within one: how many slots (0: it counts none) */
};

struct sync_skip {
	int map_fd;
	int nr_possible;
	__u32 value_size;
	size_t stride; /* one CPU's value in a lookup (value_size rounded up to 8) */
	struct hub_cpu_layout at;
	/* Where a CPU's value is in a lookup: its rank among the possible CPUs
	 * (-1: not possible). The possible list may have holes. */
	int rank[CPUS_MAX];
	char *first, *again; /* the two looks */
	bool *later; /* per CPU of a pass (up to nr_possible): left for the second look */
};

/* Every field of the hub's per-CPU state, and of the structs read in it,
 * that this build knows what it means for a sync. A hub whose state has any
 * other (a later build's, which may hold charges some other way) is synced
 * on every CPU. */
static const char *const known_fields[] = {
	"ktime", "owner", "owner_cgrp", "switches", "seen",	  "skip",    "held_id",
	"held_gen", "reads_owed", "held", "ev", "held_slots", "syncing", NULL,
};
static const char *const known_seen[] = { "cur",     "cur_sum", "cur_minflt", "cur_majflt",
					  "cur_pid", "pad",	NULL };
static const char *const known_slots[] = { "nr", "slot", NULL };

/* type_id through typedefs and qualifiers (NULL: none). */
static const struct btf_type *resolved(const struct btf *btf, __u32 type_id)
{
	int id = btf__resolve_type(btf, type_id);

	return id < 0 ? NULL : btf__type_by_id(btf, id);
}

/* type_id, resolved, if it is a struct. */
static const struct btf_type *struct_of(const struct btf *btf, __u32 type_id)
{
	const struct btf_type *t = resolved(btf, type_id);

	return t && btf_is_struct(t) ? t : NULL;
}

/* Byte offset and type of the member name of the struct type_id. */
static int member_of(const struct btf *btf, __u32 type_id, const char *name, __u32 *ret_off,
		     __u32 *ret_type)
{
	const struct btf_type *t = struct_of(btf, type_id);
	const struct btf_member *m;

	if (!t)
		return -EPROTO;
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		__u32 bits = btf_member_bit_offset(t, i);

		if (strcmp(btf__name_by_offset(btf, m->name_off), name) != 0)
			continue;
		if (bits % 8 || btf_member_bitfield_size(t, i))
			return -EPROTO;
		*ret_off = bits / 8;
		*ret_type = m->type;
		return 0;
	}
	return -EPROTO;
}

static bool known_field(const char *const *known, const char *name)
{
	for (; *known; known++)
		if (strcmp(name, *known) == 0)
			return true;
	return false;
}

/* The struct type_id has only the fields known (NULL-terminated). */
static int only_known_fields(const struct btf *btf, __u32 type_id, const char *const *known)
{
	const struct btf_type *t = struct_of(btf, type_id);
	const struct btf_member *m;

	if (!t)
		return -EPROTO;
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++)
		if (!known_field(known, btf__name_by_offset(btf, m->name_off)))
			return -EPROTO;
	return 0;
}

/* A member of this size (an integer read whole). */
static int scalar_of(const struct btf *btf, __u32 type_id, const char *name, __s64 size,
		     __u32 *ret_off)
{
	__u32 off, type;
	int r = member_of(btf, type_id, name, &off, &type);

	if (r == 0 && btf__resolve_size(btf, type) != size)
		r = -EPROTO;
	if (r == 0)
		*ret_off = off;
	return r;
}

/* held_slots: an array of per-session slot lists, each with its nr. */
static int slots_of(const struct btf *btf, __u32 value_id, struct hub_cpu_layout *at)
{
	const struct btf_type *t;
	__u32 type;
	__s64 size;
	int r = member_of(btf, value_id, "held_slots", &at->slots, &type);

	if (r < 0)
		return r;
	t = resolved(btf, type);
	if (!t || !btf_is_array(t) || !btf_array(t)->nelems)
		return -EPROTO;
	size = btf__resolve_size(btf, btf_array(t)->type);
	if (size <= 0)
		return -EPROTO;
	at->slot_size = (__u32)size;
	at->nr_sessions = btf_array(t)->nelems;
	r = only_known_fields(btf, btf_array(t)->type, known_slots);
	return r < 0 ? r : scalar_of(btf, btf_array(t)->type, "nr", 4, &at->slot_nr);
}

static int layout_of(const struct btf *btf, __u32 value_id, __u32 value_size,
		     struct hub_cpu_layout *ret)
{
	struct hub_cpu_layout at;
	__u32 seen = 0, seen_type = 0, pid = 0;
	int r = only_known_fields(btf, value_id, known_fields);

	if (r == 0)
		r = scalar_of(btf, value_id, "ktime", 8, &at.ktime);
	if (r == 0)
		r = scalar_of(btf, value_id, "held_id", 8, &at.held_id);
	if (r == 0)
		r = member_of(btf, value_id, "seen", &seen, &seen_type);
	if (r == 0)
		r = only_known_fields(btf, seen_type, known_seen);
	if (r == 0)
		r = scalar_of(btf, seen_type, "cur_pid", 4, &pid);
	if (r == 0)
		r = slots_of(btf, value_id, &at);
	if (r < 0)
		return r;
	at.cur_pid = seen + pid;
	if ((uint64_t)at.slots + (uint64_t)at.slot_size * at.nr_sessions > value_size)
		return -EPROTO;
	*ret = at;
	return 0;
}

static int map_layout(int map_fd, struct sync_skip *s)
{
	struct bpf_map_info mi = { 0 };
	__u32 len = sizeof(mi);
	struct btf *btf;
	int r;

	if (bpf_obj_get_info_by_fd(map_fd, &mi, &len) < 0)
		return -errno;
	if (!mi.btf_id || !mi.btf_value_type_id || mi.key_size != 4)
		return -EPROTO;
	btf = btf__load_from_kernel_by_id(mi.btf_id);
	if (!btf)
		return errno ? -errno : -EPROTO;
	r = layout_of(btf, mi.btf_value_type_id, mi.value_size, &s->at);
	btf__free(btf);
	s->value_size = mi.value_size;
	s->stride = ((size_t)mi.value_size + 7) & ~(size_t)7;
	return r;
}

/* Each possible CPU's rank; the list must have nr_possible of them (as the
 * lookups' buffers do). */
static int rank_possible(struct sync_skip *s, int nr_possible)
{
	int *cpus = NULL, nr = 0, r = cpus_possible(&cpus, &nr);

	if (r < 0)
		return r;
	for (int c = 0; c < CPUS_MAX; c++)
		s->rank[c] = -1;
	for (int i = 0; i < nr; i++)
		s->rank[cpus[i]] = i;
	free(cpus);
	return nr == nr_possible ? 0 : -ERANGE;
}

int sync_skip_open(int sync_prog_fd, int nr_possible, struct sync_skip **ret)
{
	struct sync_skip *s;
	int r;

	if (nr_possible < 1)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->map_fd = -1;
	s->nr_possible = nr_possible;
	r = rank_possible(s, nr_possible);
	if (r < 0) {
		free(s);
		return r;
	}
	r = prog_map_by_name(sync_prog_fd, "prev_readings", BPF_MAP_TYPE_PERCPU_ARRAY, &s->map_fd);
	if (r < 0) {
		free(s);
		return r;
	}
	r = map_layout(s->map_fd, s);
	if (r == 0) {
		s->first = calloc(nr_possible, s->stride);
		s->again = calloc(nr_possible, s->stride);
		s->later = calloc(nr_possible, sizeof(*s->later));
		r = s->first && s->again && s->later ? 0 : -ENOMEM;
	}
	if (r < 0) {
		sync_skip_free(s);
		return r;
	}
	*ret = s;
	return 0;
}

void sync_skip_free(struct sync_skip *s)
{
	if (!s)
		return;
	if (s->map_fd >= 0)
		close(s->map_fd);
	free(s->first);
	free(s->again);
	free(s->later);
	free(s);
}

static uint64_t u64_at(const char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t u32_at(const char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Idle (the last task switched in), and what is held counted by no
 * session: on_sync would add nothing there. */
static bool owes_nothing(const struct sync_skip *s, const char *v)
{
	const struct hub_cpu_layout *at = &s->at;

	if (!u64_at(v + at->ktime) || u32_at(v + at->cur_pid) != 0)
		return false;
	if (!u64_at(v + at->held_id))
		return true;
	for (__u32 i = 0; i < at->nr_sessions; i++)
		if (u32_at(v + at->slots + i * at->slot_size + at->slot_nr))
			return false;
	return true;
}

static int look(const struct sync_skip *s, char *buf)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(s->map_fd, &zero, buf) < 0 ? -errno : 0;
}

/* cpu's value in a look; NULL for a CPU the values do not cover. */
static const char *value_of(const struct sync_skip *s, const char *buf, int cpu)
{
	int at = cpu >= 0 && cpu < CPUS_MAX ? s->rank[cpu] : -1;

	return at >= 0 ? buf + (size_t)at * s->stride : NULL;
}

int sync_skip_run(struct sync_skip *s, const int *cpus, int nr, sync_cpu_fn fn, void *ctx,
		  int *ret_skipped)
{
	bool looked = look(s, s->first) == 0, relooked = false;
	int skipped = 0, r;

	for (int i = 0; i < nr; i++) {
		const char *v =
			looked && i < s->nr_possible ? value_of(s, s->first, cpus[i]) : NULL;
		bool later = v && owes_nothing(s, v);

		if (i < s->nr_possible)
			s->later[i] = later;
		if (!later && (r = fn(ctx, cpus[i])) < 0)
			return r;
		relooked |= later;
	}
	/* The second look, after the other CPUs' syncs (the caller's own CPU
	 * is among them: the caller runs there, unless it moved since). */
	relooked = relooked && look(s, s->again) == 0;
	for (int i = 0; i < nr && i < s->nr_possible; i++) {
		if (!s->later[i])
			continue;
		if (relooked && memcmp(value_of(s, s->first, cpus[i]),
				       value_of(s, s->again, cpus[i]), s->value_size) == 0) {
			skipped++;
			continue;
		}
		r = fn(ctx, cpus[i]);
		if (r < 0)
			return r;
	}
	*ret_skipped = skipped;
	return 0;
}
