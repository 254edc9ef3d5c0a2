// SPDX-License-Identifier: GPL-2.0-only
#include "bpf/accum.h"
#include "bpf/cgperf_shared.h"
#include "bpf/map_retry.h"
#include "bpf/probe.h"
#include "util/log.h"
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The map's per-CPU values are summed as struct reading. */
_Static_assert(sizeof(struct reading) == sizeof(struct cgperf_reading),
	       "sums are read as readings");

/* Slots read per batch lookup: at most this many, and at most this many
 * bytes of values (a slot's values come for every possible CPU: 12 KiB at
 * 128 CPUs x 4 events). A hash returns its live values in bucket order, an
 * array in slot order. */
#define READ_CHUNK 1024
#define READ_CHUNK_BYTES (1 << 20)

const char *accum_kind_name(enum accum_kind k)
{
	return k == ACCUM_HASH ? "per-CPU hash" : "per-CPU array";
}

int accum_choose(enum accum_request req, enum accum_kind *ret)
{
	char reason[256];
	int r;

	if (req == ACCUM_FORCE_ARRAY) {
		*ret = ACCUM_ARRAY;
		return 0;
	}
	r = probe_accum_hash(reason, sizeof(reason));
	if (r < 0 && req == ACCUM_FORCE_HASH) {
		log_error("hash accumulators requested but %s", reason);
		return -EOPNOTSUPP;
	}
	log_info("accumulators: %s", reason);
	*ret = r < 0 ? ACCUM_ARRAY : ACCUM_HASH;
	return 0;
}

/* Every accumulator map of kind: hash values follow the live slots. */
static enum bpf_map_type map_type(enum accum_kind kind)
{
	return kind == ACCUM_HASH ? BPF_MAP_TYPE_PERCPU_HASH : BPF_MAP_TYPE_PERCPU_ARRAY;
}

static __u32 map_flags(enum accum_kind kind)
{
	return kind == ACCUM_HASH ? BPF_F_NO_PREALLOC : 0;
}

void accum_configure(struct bpf_map *m, enum accum_kind kind, int max_slots, int nr_events)
{
	bpf_map__set_type(m, map_type(kind));
	bpf_map__set_map_flags(m, map_flags(kind));
	bpf_map__set_max_entries(m, max_slots);
	bpf_map__set_value_size(m, nr_events * sizeof(struct cgperf_reading));
}

int accum_create(enum accum_kind kind, int max_slots, int nr_events, int *ret_fd)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = map_flags(kind));
	int fd = bpf_map_create(map_type(kind), "accum_readings", sizeof(__u32),
				nr_events * sizeof(struct cgperf_reading), max_slots, &opts);

	if (fd < 0)
		return -errno;
	*ret_fd = fd;
	return 0;
}

int accum_init(struct accum *a, int fd, int nr_events, int max_slots)
{
	struct bpf_map_info info = { 0 };
	uint32_t len = sizeof(info);
	size_t value_size = nr_events * sizeof(struct cgperf_reading);
	int nr_possible = libbpf_num_possible_cpus();
	void *buf;

	if (nr_possible < 1)
		return nr_possible < 0 ? nr_possible : -EINVAL;
	if (bpf_obj_get_info_by_fd(fd, &info, &len) < 0)
		return -errno;
	if ((info.type != BPF_MAP_TYPE_PERCPU_ARRAY && info.type != BPF_MAP_TYPE_PERCPU_HASH) ||
	    info.key_size != sizeof(__u32) || info.value_size != value_size ||
	    (int)info.max_entries != max_slots)
		return -EPROTO;
	buf = calloc(nr_possible, value_size);
	if (!buf)
		return -ENOMEM;
	*a = (struct accum){
		.fd = fd,
		.kind = info.type == BPF_MAP_TYPE_PERCPU_HASH ? ACCUM_HASH : ACCUM_ARRAY,
		.nr_events = nr_events,
		.max_slots = max_slots,
		.nr_possible = nr_possible,
		.value_size = value_size,
		.buf = buf,
	};
	return 0;
}

void accum_free(struct accum *a)
{
	if (!a)
		return;
	free(a->buf);
	free(a->batch_keys);
	free(a->batch_values);
	a->buf = a->batch_keys = a->batch_values = NULL;
}

/* The batch buffers, kept for the session's life: room for chunk slots
 * (at least). */
static int batch_buffers(struct accum *a, int chunk)
{
	size_t per_slot = (size_t)a->nr_possible * a->value_size;

	if (a->batch_keys && chunk <= a->chunk)
		return 0;
	free(a->batch_keys);
	free(a->batch_values);
	a->batch_keys = calloc(chunk, sizeof(*a->batch_keys));
	a->batch_values = calloc(chunk, per_slot);
	a->chunk = a->batch_keys && a->batch_values ? chunk : 0;
	return a->chunk ? 0 : -ENOMEM;
}

static int write_zero(struct accum *a, int slot, __u64 flags)
{
	__u32 k = slot;

	memset(a->buf, 0, a->nr_possible * a->value_size);
	return map_update_retry(a->fd, &k, a->buf, flags);
}

int accum_make(struct accum *a, int slot)
{
	int r;

	if (a->kind == ACCUM_ARRAY)
		return 0;
	r = write_zero(a, slot, BPF_NOEXIST);
	return r == -EEXIST ? 0 : r;
}

int accum_clear(struct accum *a, int slot)
{
	__u32 k = slot;

	if (a->kind == ACCUM_ARRAY)
		return write_zero(a, slot, BPF_ANY);
	if (bpf_map_delete_elem(a->fd, &k) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}

int accum_clear_unused(struct accum *a, bool (*in_use)(void *ctx, int slot), void *ctx)
{
	int r = 0;

	/* Once per adoption: a syscall per slot (a hash's missing values are
	 * ENOENT, no error) is cheaper to get right than a walk that deletes. */
	for (int slot = 0; slot < a->max_slots; slot++) {
		int err = in_use(ctx, slot) ? 0 : accum_clear(a, slot);

		if (err < 0 && !r)
			r = err;
	}
	return r;
}

static void sum_percpu(const struct accum *a, const void *percpu, struct reading *out)
{
	memset(out, 0, a->value_size);
	for (int cpu = 0; cpu < a->nr_possible; cpu++) {
		const struct cgperf_reading *v =
			(const void *)((const char *)percpu + (size_t)cpu * a->value_size);
		for (int e = 0; e < a->nr_events; e++)
			reading_add(&out[e], (const struct reading *)&v[e]);
	}
}

int accum_read(struct accum *a, int slot, struct reading *ret_vals)
{
	__u32 k = slot;

	if (slot < 0 || slot >= a->max_slots)
		return -EINVAL;
	if (bpf_map_lookup_elem(a->fd, &k, a->buf) < 0) {
		if (errno != ENOENT || a->kind != ACCUM_HASH)
			return -errno;
		memset(a->buf, 0, a->nr_possible * a->value_size);
	}
	sum_percpu(a, a->buf, ret_vals);
	return 0;
}

/* One batch lookup from *token (NULL: the start); ret_done: no more after
 * these. Returns how many came, or -errno. */
static int read_chunk(struct accum *a, __u32 *token, bool first, __u32 want, __u32 *keys,
		      void *values, bool *ret_done)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u32 count = want;
	int err = bpf_map_lookup_batch(a->fd, first ? NULL : token, token, keys, values, &count,
				       &opts);

	if (err < 0 && errno != ENOENT)
		return -errno;
	*ret_done = err < 0 || count == 0;
	return (int)count;
}

/* Slots per batch: those in use, within READ_CHUNK and READ_CHUNK_BYTES. */
static int chunk_for(const struct accum *a, int nr_slots)
{
	size_t per_slot = (size_t)a->nr_possible * a->value_size;
	int by_bytes = READ_CHUNK_BYTES / per_slot > 0 ? (int)(READ_CHUNK_BYTES / per_slot) : 1;
	int chunk = nr_slots < READ_CHUNK ? nr_slots : READ_CHUNK;

	return chunk < by_bytes ? chunk : by_bytes;
}

int accum_read_all(struct accum *a, int nr_slots, struct reading *ret_vals)
{
	size_t per_slot = (size_t)a->nr_possible * a->value_size;
	bool done = false, first = true;
	__u32 token = 0;
	int seen = 0, r;

	if (nr_slots < 0 || nr_slots > a->max_slots)
		return -EINVAL;
	if (nr_slots == 0)
		return 0;
	r = batch_buffers(a, chunk_for(a, nr_slots));
	if (r < 0)
		return r;
	memset(ret_vals, 0, (size_t)nr_slots * a->value_size);
	/* An array's values past nr_slots are never read; a hash has values
	 * only for live slots, all of them below nr_slots. */
	while (!done && (a->kind == ACCUM_HASH || seen < nr_slots)) {
		__u32 want = a->kind == ACCUM_HASH || nr_slots - seen > a->chunk
				     ? (__u32)a->chunk
				     : (__u32)(nr_slots - seen);
		int n = read_chunk(a, &token, first, want, a->batch_keys, a->batch_values, &done);

		/* A hash bucket holds more values than a chunk (only with the
		 * tiny chunks of very many CPUs): a larger one, same bucket. */
		if (n == -ENOSPC && a->kind == ACCUM_HASH && a->chunk < a->max_slots) {
			r = batch_buffers(a, a->chunk * 2);
			if (r < 0)
				return r;
			continue;
		}
		if (n < 0)
			return n;
		first = false;
		seen += n;
		for (int i = 0; i < n; i++)
			if (a->batch_keys[i] < (__u32)nr_slots)
				sum_percpu(a, (char *)a->batch_values + i * per_slot,
					   ret_vals + (size_t)a->batch_keys[i] * a->nr_events);
	}
	return 0;
}
