// SPDX-License-Identifier: GPL-2.0-only
/* The persistent session's totals map (agent/persist_totals.h), on a real
 * pinned BPF map: what a restarted agent reads back is every record's last
 * save or put, a put keeps its chunk's other entries, a save leaves no
 * chunk without a record (also chunks only read back), a removed record's
 * entry is gone, a map of another size is refused, a missing one is not
 * made unless asked; maps of other outputs (another configuration, an
 * earlier cgperf's "totals" of every output) are read, the entry with the
 * later row wins output by output, and they are unpinned by the first save
 * after every blob is written (none of a record `unsaved`), those of
 * another size too. The entries' format and merge: test_readings. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "agent/persist_totals.h"
#include "tests/lib/rm_tree.h"
#include "tests/lib/unit_skip.h"
#include <bpf/bpf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NR_EVENTS 4
#define NR_RECORDS 40
#define CSV (1u << RECORD_OUT_CSV)
#define SYSLOG (1u << RECORD_OUT_SYSLOG)
/* The outputs test_save_put_read writes. */
#define OUTS (CSV | SYSLOG | 1u << RECORD_OUT_PROMETHEUS)

static char dir[96];

static struct cg_record *add(struct record_set *set, int slot)
{
	struct cg_identity ident = { .kind = CG_KIND_CONTAINER };
	struct cg_metadata meta = { 0 };
	char path[32];
	struct cg_record *r;

	snprintf(path, sizeof(path), "/pod/c%d", slot);
	r = record_add(set, 1000 + (uint64_t)slot, slot, path, &ident, &meta);
	assert_non_null(r);
	r->created_ns = 5000 + (uint64_t)slot;
	return r;
}

/* Output out of r wrote a row with totals made of (slot, k). */
static void commit(struct cg_record *r, enum record_output_id out, uint64_t k)
{
	struct reading t[NR_EVENTS];

	for (int i = 0; i < NR_EVENTS; i++)
		t[i] = (struct reading){ r->slot * 1000 + k * 10 + i, k, k };
	record_commit(r, out, t, NR_EVENTS, k * 1000000000ULL);
}

/* A fresh record of r's id and slot gets r's totals back from t. */
static void assert_back(const struct persist_totals *t, const struct cg_record *r)
{
	struct record_set set = { 0 };
	struct cg_record *b = add(&set, r->slot);

	b->id = r->id;
	assert_int_equal(totals_apply(t, b), 0);
	assert_int_equal(b->removed, r->removed);
	assert_int_equal(b->outputs_done, r->outputs_done);
	for (int o = 0; o < RECORD_MAX_OUTPUTS; o++) {
		assert_true(b->out[o].seq == r->out[o].seq &&
			    b->out[o].last_ns == r->out[o].last_ns);
		assert_memory_equal(b->out[o].last, r->out[o].last,
				    sizeof(struct reading) * NR_EVENTS);
	}
	record_clear(&set);
}

static struct persist_totals *reopen_outputs(uint32_t outputs)
{
	struct persist_totals *t;

	assert_int_equal(totals_open(dir, NR_EVENTS, outputs, 4096, true, &t), 0);
	assert_int_equal(totals_read(t), 0);
	return t;
}

static struct persist_totals *reopen(void)
{
	return reopen_outputs(OUTS);
}

static const char *pin(const char *name)
{
	static char p[160];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return p;
}

static int map_elements(void)
{
	uint64_t key, *prev = NULL;
	int fd, n = 0;

	fd = bpf_obj_get(pin("totals_7"));
	assert_true(fd >= 0);
	while (bpf_map_get_next_key(fd, prev, &key) == 0) {
		prev = &key;
		n++;
	}
	close(fd);
	return n;
}

static void test_save_put_read(void **state)
{
	struct record_set set = { 0 }, gone_set = { 0 };
	struct persist_totals *t;
	struct cg_record *recs[NR_RECORDS + 2], *gone;
	uint32_t per;

	(void)state;
	assert_int_equal(totals_open(dir, NR_EVENTS, OUTS, 4096, true, &t), 0);
	for (int i = 0; i < NR_RECORDS; i++) {
		recs[i] = add(&set, i);
		commit(recs[i], RECORD_OUT_CSV, 1 + i);
		commit(recs[i], RECORD_OUT_PROMETHEUS, 2 + i);
	}
	assert_int_equal(totals_save(t, &set), 0);
	/* After the save: one record's put (a removal's final row), and two
	 * new records in a chunk no save wrote, put one after the other. */
	commit(recs[5], RECORD_OUT_CSV, 99);
	recs[5]->removed = true;
	recs[5]->outputs_done = 1u << RECORD_OUT_CSV;
	assert_int_equal(totals_put(t, recs[5]), 0);
	recs[NR_RECORDS] = add(&set, 100);
	recs[NR_RECORDS + 1] = add(&set, 101);
	commit(recs[NR_RECORDS], RECORD_OUT_SYSLOG, 7);
	commit(recs[NR_RECORDS + 1], RECORD_OUT_SYSLOG, 8);
	assert_int_equal(totals_put(t, recs[NR_RECORDS]), 0);
	assert_int_equal(totals_put(t, recs[NR_RECORDS + 1]), 0);
	totals_free(t);

	t = reopen();
	for (int i = 0; i < NR_RECORDS + 2; i++)
		assert_back(t, recs[i]);
	/* A slot's entry is its record's only: another id there gets nothing. */
	recs[0]->id = 1;
	assert_int_equal(totals_apply(t, recs[0]), -ENOENT);
	recs[0]->id = 1000;
	totals_free(t);

	/* Chunks follow the records: a save after a read deletes the chunks
	 * that only the read knew; a removed record's entry is gone. */
	per = totals_slots_per_chunk(t = reopen());
	assert_true(per >= 2 && per < NR_RECORDS);
	for (int i = 1; i < NR_RECORDS + 2; i++)
		if (i != (int)per - 1 && i != (int)per)
			record_remove(&set, recs[i]->id);
	assert_int_equal(totals_save(t, &set), 0);
	assert_int_equal(map_elements(), 2); /* slots 0, per - 1 | per */
	record_remove(&set, 1000 + per);
	assert_int_equal(totals_save(t, &set), 0);
	assert_int_equal(map_elements(), 1);
	totals_free(t);
	t = reopen();
	assert_back(t, recs[0]);
	assert_back(t, recs[per - 1]);
	gone = add(&gone_set, (int)per); /* its chunk deleted */
	assert_int_equal(totals_apply(t, gone), -ENOENT);
	gone = add(&gone_set, 1); /* its chunk kept for slot 0's */
	assert_int_equal(totals_apply(t, gone), -ENOENT);
	record_clear(&gone_set);
	totals_free(t);
	record_clear(&set);
}

static void test_other_size(void **state)
{
	struct persist_totals *t = NULL;

	(void)state;
	assert_int_equal(totals_open(dir, NR_EVENTS, OUTS, 4096, true, &t), 0);
	totals_free(t);
	/* 8 events make chunks of another size (3 would not: ten entries of
	 * theirs fill a chunk as eight of 4 do; their entries say so). */
	assert_int_equal(totals_open(dir, READINGS_MAX_EVENTS, OUTS, 4096, true, &t), -EPROTO);
	assert_int_equal(totals_open(dir, READINGS_MAX_EVENTS, OUTS, 4096, false, &t), -EPROTO);
	assert_int_equal(totals_remove(dir, OUTS), 0);
	assert_int_equal(access(pin("totals_7"), F_OK), -1);
	/* Nothing pinned: opened without creating, nothing to read or save. */
	assert_int_equal(totals_open(dir, NR_EVENTS, OUTS, 4096, false, &t), 0);
	assert_int_equal(totals_read(t), -ENOENT);
	assert_int_equal(totals_save(t, &(struct record_set){ 0 }), -EBADF);
	totals_free(t);
	assert_int_equal(access(pin("totals_7"), F_OK), -1);
	totals_free(NULL);
}

/* Output o of a fresh record of r's id and slot, from t: seq. */
static uint64_t seq_back(const struct persist_totals *t, const struct cg_record *r,
			 enum record_output_id o)
{
	struct record_set set = { 0 };
	struct cg_record *b = add(&set, r->slot);
	uint64_t seq;

	b->id = r->id;
	totals_apply(t, b);
	seq = b->out[o].seq;
	record_clear(&set);
	return seq;
}

/* No totals map pinned in dir. */
static void unpin_all(void)
{
	for (uint32_t o = 0; o <= RECORD_ALL_OUTPUTS; o++)
		assert_int_equal(totals_remove(dir, o), 0);
}

/* The chunks held in memory follow the records: past the last one used,
 * they go (after the map lost them); a record there later gets a chunk of
 * its own again, empty but for it. */
static void test_shadow_follows_records(void **state)
{
	struct record_set set = { 0 }, gone_set = { 0 };
	struct persist_totals *t;
	struct cg_record *r[NR_RECORDS], *gone;
	uint32_t per;

	(void)state;
	unpin_all();
	t = reopen();
	per = totals_slots_per_chunk(t);
	for (int i = 0; i < NR_RECORDS; i++) {
		r[i] = add(&set, i);
		commit(r[i], RECORD_OUT_CSV, 1 + i);
	}
	assert_int_equal(totals_save(t, &set), 0);
	assert_int_equal(totals_chunks_held(t), (NR_RECORDS + per - 1) / per);
	for (int i = 1; i < NR_RECORDS; i++)
		record_remove(&set, 1000 + (uint64_t)i);
	assert_int_equal(totals_save(t, &set), 0);
	assert_int_equal(totals_chunks_held(t), 1);
	assert_int_equal(map_elements(), 1);
	r[1] = add(&set, (int)(3 * per) + 1);
	commit(r[1], RECORD_OUT_SYSLOG, 9);
	assert_int_equal(totals_put(t, r[1]), 0);
	assert_int_equal(totals_chunks_held(t), 4);
	assert_int_equal(map_elements(), 2);
	totals_free(t);
	t = reopen();
	assert_back(t, r[0]);
	assert_back(t, r[1]);
	/* The removed record once in that chunk left nothing behind. */
	gone = add(&gone_set, (int)(3 * per));
	assert_int_equal(totals_apply(t, gone), -ENOENT);
	totals_free(t);
	record_clear(&gone_set);
	record_clear(&set);
}

static void test_other_outputs(void **state)
{
	struct record_set set = { 0 };
	struct persist_totals *t;
	struct cg_record *r;

	(void)state;
	unpin_all();
	/* What an earlier cgperf pinned: every output's, as "totals", in
	 * chunks of 8 entries of 480 bytes at 4 events. */
	assert_int_equal(record_totals_size(NR_EVENTS, RECORD_ALL_OUTPUTS), 480);
	t = reopen_outputs(RECORD_ALL_OUTPUTS);
	r = add(&set, 3);
	commit(r, RECORD_OUT_CSV, 1);
	commit(r, RECORD_OUT_SYSLOG, 2);
	commit(r, RECORD_OUT_SYSLOG, 3);
	assert_int_equal(totals_save(t, &set), 0);
	totals_free(t);
	assert_int_equal(access(pin("totals"), F_OK), 0);

	/* This one, CSV only: reads it whole (syslog's too: the blob may be
	 * older), writes its own, and unpins the old map at its first save
	 * with every blob written. */
	t = reopen_outputs(CSV);
	assert_true(totals_others_pinned(t));
	assert_back(t, r);
	commit(r, RECORD_OUT_CSV, 4);
	assert_int_equal(totals_put(t, r), 0);
	assert_int_equal(access(pin("totals"), F_OK), 0);
	totals_free(t); /* a kill before any save: both are read */
	t = reopen_outputs(CSV);
	assert_int_equal(seq_back(t, r, RECORD_OUT_CSV), 2);
	assert_int_equal(seq_back(t, r, RECORD_OUT_SYSLOG), 2);
	r->unsaved = true; /* its blob not written yet: syslog's lives only there */
	assert_int_equal(totals_save(t, &set), 0);
	assert_int_equal(access(pin("totals"), F_OK), 0);
	r->unsaved = false;
	assert_int_equal(totals_save(t, &set), 0);
	assert_int_equal(access(pin("totals"), F_OK), -1);
	assert_int_equal(access(pin("totals_1"), F_OK), 0);
	assert_false(totals_others_pinned(t));
	totals_free(t);
	t = reopen_outputs(CSV);
	assert_int_equal(seq_back(t, r, RECORD_OUT_CSV), 2);
	assert_int_equal(seq_back(t, r, RECORD_OUT_SYSLOG), 0); /* not saved any more */
	totals_free(t);
	record_clear(&set);
}

/* Upgrade, kill, downgrade, upgrade: the earlier cgperf knows only
 * "totals" and leaves "totals_1" alone (moved aside while it runs here);
 * it adopted from an older blob, so its entry counts fewer rows than the
 * stale "totals_1", but its last row is later: it wins (seq alone would
 * bring back the stale totals and write the earlier cgperf's rows again). */
static void test_stale_map_loses(void **state)
{
	struct record_set set = { 0 }, old_set = { 0 };
	struct persist_totals *t;
	struct cg_record *r, *old;
	char aside[160];

	(void)state;
	unpin_all();
	r = add(&set, 7);
	old = add(&old_set, 7);
	commit(old, RECORD_OUT_CSV, 1); /* the blob both start from */
	r->out[RECORD_OUT_CSV] = old->out[RECORD_OUT_CSV];
	for (int k = 2; k < 6; k++)
		commit(r, RECORD_OUT_CSV, k); /* seq 5, last row at 5 s */
	t = reopen_outputs(CSV);
	assert_int_equal(totals_save(t, &set), 0);
	totals_free(t);
	snprintf(aside, sizeof(aside), "%s", pin("aside"));
	assert_int_equal(rename(pin("totals_1"), aside), 0);
	commit(old, RECORD_OUT_CSV, 8); /* seq 2, last row at 8 s */
	t = reopen_outputs(RECORD_ALL_OUTPUTS);
	assert_int_equal(totals_save(t, &old_set), 0);
	totals_free(t);
	assert_int_equal(rename(aside, pin("totals_1")), 0);

	t = reopen_outputs(CSV);
	assert_back(t, old);
	totals_free(t);
	record_clear(&set);
	record_clear(&old_set);
}

/* A map of other outputs and another size (other events): never read,
 * unpinned with the others. */
static void test_other_size_unpinned(void **state)
{
	struct record_set set = { 0 };
	struct persist_totals *t;

	(void)state;
	unpin_all();
	assert_int_equal(totals_open(dir, READINGS_MAX_EVENTS, CSV | SYSLOG, 4096, true, &t), 0);
	totals_free(t);
	t = reopen_outputs(CSV);
	assert_true(totals_others_pinned(t));
	add(&set, 1);
	assert_int_equal(totals_save(t, &set), 0);
	assert_int_equal(access(pin("totals_3"), F_OK), -1);
	totals_free(t);
	record_clear(&set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_save_put_read),
		cmocka_unit_test(test_other_size),
		cmocka_unit_test(test_other_outputs),
		cmocka_unit_test(test_stale_map_loses),
		cmocka_unit_test(test_other_size_unpinned),
		cmocka_unit_test(test_shadow_follows_records),
	};
	int r;

	snprintf(dir, sizeof(dir), "/sys/fs/bpf/cgperf-test-totals-%d", (int)getpid());
	if (mkdir(dir, 0700) < 0) {
		fprintf(stderr, "SKIP: cannot make %s: %s\n", dir, strerror(errno));
		return UNIT_SKIP_CODE;
	}
	r = cmocka_run_group_tests(tests, NULL, NULL);
	if (rm_tree_at(AT_FDCWD, dir, true) < 0)
		fprintf(stderr, "cannot remove %s\n", dir);
	return unit_result(r);
}
