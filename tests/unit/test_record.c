// SPDX-License-Identifier: GPL-2.0-only
/* The agent's per-cgroup record (agent/record.c): the set and its order,
 * each output's last-written totals, held rows, and the persisted form. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "agent/record.h"

static struct cg_record *make_record(struct record_set *set, uint64_t id, const char *path)
{
	struct cg_identity ident = { .kind = CG_KIND_CONTAINER };
	struct cg_metadata meta = { 0 };
	struct cg_record *r;

	snprintf(ident.container_id, sizeof(ident.container_id), "%064x", (unsigned)id);
	snprintf(meta.container_name, sizeof(meta.container_name), "name,\"%u\"", (unsigned)id);
	r = record_add(set, id, (int)id % 100, path, &ident, &meta);
	assert_non_null(r);
	r->created_ns = 1000000000ULL;
	return r;
}

/* Each output's own base: a row CSV could not write is in its next one,
 * while syslog goes on from its own last message. */
static void test_record_outputs(void **state)
{
	struct record_set set = { 0 };
	struct cg_record *r = make_record(&set, 7, "/pod/c");
	struct reading t1[2] = { { 10, 100, 100 }, { 1, 100, 100 } };
	struct reading t2[2] = { { 30, 300, 300 }, { 4, 300, 300 } }, d[2];
	struct sink_record rec;

	record_row(r, RECORD_OUT_CSV, t1, 2, 3000000000ULL, d, &rec);
	assert_true(rec.interval_known && rec.interval_ms == 2000 && rec.seq == 1);
	assert_true(d[0].counter == 10 && d[1].counter == 1 && !rec.final);
	assert_string_equal(rec.cgroup->container_id, "000000000000");
	record_commit(r, RECORD_OUT_SYSLOG, t1, 2, 3000000000ULL); /* only syslog wrote it */
	record_row(r, RECORD_OUT_CSV, t2, 2, 4000000000ULL, d, &rec);
	assert_true(rec.interval_ms == 3000 && rec.seq == 1 && d[0].counter == 30);
	record_row(r, RECORD_OUT_SYSLOG, t2, 2, 4000000000ULL, d, &rec);
	assert_true(rec.interval_ms == 1000 && rec.seq == 2 && d[0].counter == 20 &&
		    d[1].counter == 3);
	/* The slot was recycled underneath (totals below the last): from zero. */
	record_commit(r, RECORD_OUT_SYSLOG, t2, 2, 4000000000ULL);
	record_row(r, RECORD_OUT_SYSLOG, t1, 2, 5000000000ULL, d, &rec);
	assert_true(d[0].counter == 10);
	r->removed = true;
	record_row(r, RECORD_OUT_CSV, t2, 2, 5000000000ULL, d, &rec);
	assert_true(rec.final);
	record_clear(&set);
}

/* Rows an output holds (sink.h SINK_HELD): the next row's delta starts at
 * the held one, but what is persisted (blob and totals) and what a failure
 * goes back to is the last row written; a written answer makes the held
 * rows written. */
static void test_record_held(void **state)
{
	struct record_set a = { 0 }, b = { 0 };
	struct cg_record *r = make_record(&a, 9, "/held"), *back;
	struct reading t1[2] = { { 10, 100, 100 }, { 1, 100, 100 } };
	struct reading t2[2] = { { 30, 300, 300 }, { 4, 300, 300 } };
	struct reading t3[2] = { { 60, 600, 600 }, { 9, 600, 600 } }, d[2];
	unsigned char blob[RECORD_BLOB_SIZE], buf[512];
	struct sink_record rec;

	(void)state;
	record_commit(r, RECORD_OUT_CSV, t1, 2, 3000000000ULL);
	assert_int_equal(record_hold_ready(r, RECORD_OUT_CSV), 0);
	record_hold(r, RECORD_OUT_CSV, t2, 2, 4000000000ULL);
	assert_true(r->held == 1u << RECORD_OUT_CSV);
	record_row(r, RECORD_OUT_CSV, t3, 2, 5000000000ULL, d, &rec);
	assert_true(d[0].counter == 30 && rec.interval_ms == 1000 && rec.seq == 3);
	assert_true(record_written(r, RECORD_OUT_CSV)->seq == 1);
	assert_memory_equal(record_written(r, RECORD_OUT_CSV)->last, t1, sizeof(t1));
	/* Persisted: the last row written. */
	assert_int_equal(record_encode(r, 2, 0, blob), 0);
	assert_int_equal(record_decode(&b, "/", blob, 2, 0, &back), 0);
	assert_true(back->out[RECORD_OUT_CSV].seq == 1 && !back->held);
	assert_memory_equal(back->out[RECORD_OUT_CSV].last, t1, sizeof(t1));
	record_clear(&b);
	record_totals_encode(r, 2, 1u << RECORD_OUT_CSV, buf);
	back = make_record(&b, 9, "/held");
	back->created_ns = r->created_ns;
	assert_int_equal(record_totals_apply(back, 2, 1u << RECORD_OUT_CSV, buf), 0);
	assert_memory_equal(back->out[RECORD_OUT_CSV].last, t1, sizeof(t1));
	record_clear(&b);
	/* A second held row keeps the first written one; a failure goes back
	 * to it (the next row counts from t1 again). */
	record_hold(r, RECORD_OUT_CSV, t3, 2, 5000000000ULL);
	record_held_answered(r, RECORD_OUT_CSV, false);
	assert_false(r->held);
	record_row(r, RECORD_OUT_CSV, t3, 2, 6000000000ULL, d, &rec);
	assert_true(d[0].counter == 50 && rec.interval_ms == 3000 && rec.seq == 2);
	/* Held, then written with the next row: that row is the base. */
	record_hold(r, RECORD_OUT_CSV, t2, 2, 4000000000ULL);
	record_held_answered(r, RECORD_OUT_CSV, true);
	record_commit(r, RECORD_OUT_CSV, t3, 2, 5000000000ULL);
	assert_true(!r->held && record_written(r, RECORD_OUT_CSV)->seq == 3);
	assert_memory_equal(record_written(r, RECORD_OUT_CSV)->last, t3, sizeof(t3));
	record_clear(&a);
}

static void test_record_set(void **state)
{
	struct record_set set = { 0 };

	for (uint64_t id = 1; id <= 500; id++)
		make_record(&set, id * 977, "/x");
	assert_null(record_add(&set, 977, 1, "/dup", &(struct cg_identity){ 0 },
			       &(struct cg_metadata){ 0 }));
	for (uint64_t id = 1; id <= 500; id += 2)
		record_remove(&set, id * 977);
	assert_int_equal(set.nr, 250);
	for (uint64_t id = 1; id <= 500; id++)
		assert_true((record_find(&set, id * 977) != NULL) == (id % 2 == 0));
	set.items[0]->removed = true;
	assert_int_equal(record_count_live(&set), 249);
	record_clear(&set);
	record_clear(&set); /* twice is fine */
}

/* A collection writes its rows in the set's order: insertion order, a
 * removed record's place taken by the last one. */
static void test_record_order(void **state)
{
	static const uint64_t after[] = { 1, 5, 3, 4 };
	struct record_set set = { 0 };

	for (uint64_t id = 1; id <= 5; id++)
		make_record(&set, id, "/x");
	record_remove(&set, 2);
	assert_int_equal(set.nr, 4);
	for (int i = 0; i < 4; i++)
		assert_true(set.items[i]->id == after[i]);
	record_remove(&set, 4); /* the last: nothing moves */
	assert_true(set.nr == 3 && set.items[2]->id == 3);
	record_clear(&set);
}

/* What a restarted agent reads back is what the last one had. */
static void test_record_persisted(void **state)
{
	struct record_set a = { 0 }, b = { 0 };
	struct cg_record *r = make_record(&a, 42, "/kubepods/pod-x/\n odd,\"path\""), *back;
	struct reading t[3] = { { 1, 2, 3 }, { 4, 5, 6 }, { 7, 8, 9 } };
	unsigned char blob[RECORD_BLOB_SIZE];
	char long_path[RECORD_BLOB_SIZE];

	r->created_real_ns = 1764676692000000000ULL;
	record_commit(r, RECORD_OUT_CSV, t, 3, 5000000000ULL);
	record_commit(r, RECORD_OUT_SYSLOG, t, 3, 6000000000ULL);
	record_commit(r, RECORD_OUT_SYSLOG, t, 3, 7000000000ULL);
	r->removed = true;
	r->outputs_done = 1u << RECORD_OUT_CSV;
	assert_int_equal(record_encode(r, 3, 0, blob), 0);
	assert_int_equal(record_decode(&b, "/", blob, 3, 0, &back), 0);
	assert_true(back->adopted && back->removed && back->id == 42 && back->slot == 42);
	assert_string_equal(back->path, r->path);
	assert_string_equal(back->view.container_name, "name,\"42\"");
	assert_true(back->created_ns == r->created_ns &&
		    back->created_real_ns == r->created_real_ns);
	assert_int_equal(back->outputs_done, 1u << RECORD_OUT_CSV);
	assert_true(back->out[RECORD_OUT_SYSLOG].seq == 2 &&
		    back->out[RECORD_OUT_SYSLOG].last_ns == 7000000000ULL);
	assert_memory_equal(back->out[RECORD_OUT_CSV].last, t, sizeof(t));
	/* Another event count, a record already there, garbage: refused. */
	assert_int_equal(record_decode(&b, "/", blob, 2, 0, &back), -EINVAL);
	assert_int_equal(record_decode(&b, "/", blob, 3, 0, &back), -EINVAL);
	memset(blob, 0xff, sizeof(blob));
	assert_int_equal(record_decode(&b, "/", blob, 3, 0, &back), -EINVAL);
	/* A path that does not fit is said, not cut. */
	memset(long_path, 'p', sizeof(long_path) - 1);
	long_path[0] = '/';
	long_path[sizeof(long_path) - 1] = '\0';
	r = make_record(&a, 43, long_path);
	assert_int_equal(record_encode(r, 3, 0, blob), -ENAMETOOLONG);
	record_clear(&a);
	record_clear(&b);
}

/* Runtime labels are kept with the keys' tag: read back under the same
 * keys, not under others (a changed config), not from a blob without them,
 * and left out (the record still kept) when they do not fit. */
static void test_record_labels(void **state)
{
	static const char keys[2][METADATA_LABEL_MAX] = { "app", "team" };
	static const char other[1][METADATA_LABEL_MAX] = { "app" };
	uint32_t tag = record_labels_tag(keys, 2);
	struct record_set a = { 0 }, b = { 0 };
	struct cg_record *r = make_record(&a, 7, "/docker/x"), *back;
	unsigned char blob[RECORD_BLOB_SIZE];
	char path[1500];

	(void)state;
	assert_int_equal(record_labels_tag(keys, 0), 0);
	assert_true(tag != 0 && tag != record_labels_tag(other, 1));
	snprintf(r->meta.labels[0], METADATA_LABEL_MAX, "web");
	snprintf(r->meta.labels[1], METADATA_LABEL_MAX, "blue");
	assert_int_equal(record_encode(r, 2, tag, blob), 0);
	assert_int_equal(record_decode(&b, "/", blob, 2, tag, &back), 0);
	assert_string_equal(back->meta.labels[0], "web");
	assert_string_equal(back->view.labels[1], "blue");
	record_clear(&b);
	assert_int_equal(record_decode(&b, "/", blob, 2, record_labels_tag(other, 1), &back), 0);
	assert_string_equal(back->meta.labels[0], "");
	record_clear(&b);
	/* Written without labels (tag 0, as an agent before them): none. */
	assert_int_equal(record_encode(r, 2, 0, blob), 0);
	assert_int_equal(record_decode(&b, "/", blob, 2, tag, &back), 0);
	assert_string_equal(back->meta.labels[0], "");
	record_clear(&b);
	/* A long path: the record fits, its labels do not. */
	memset(path, 'p', sizeof(path) - 1);
	path[0] = '/';
	path[sizeof(path) - 1] = '\0';
	r = make_record(&a, 8, path);
	for (int i = 0; i < METADATA_MAX_LABELS; i++)
		memset(r->meta.labels[i], 'v', METADATA_LABEL_MAX - 1);
	assert_int_equal(record_encode(r, 2, tag, blob), 0);
	assert_int_equal(record_decode(&b, "/", blob, 2, tag, &back), 0);
	assert_string_equal(back->path, path);
	assert_string_equal(back->meta.labels[0], "");
	record_clear(&a);
	record_clear(&b);
}

/* The totals saved apart (persist_totals.h): an entry is applied only to
 * its own record (id and created_ns), output by output where its last row is
 * as late or later, removed and outputs_done added. */
static void test_record_totals(void **state)
{
	struct record_set a = { 0 }, b = { 0 };
	struct cg_record *r = make_record(&a, 42, "/pod/c"), *back, before;
	struct reading t1[3] = { { 1, 2, 3 }, { 4, 5, 6 }, { 7, 8, 9 } };
	struct reading t2[3] = { { 11, 12, 13 }, { 14, 15, 16 }, { 17, 18, 19 } };
	unsigned char buf[1024];

	(void)state;
	assert_true(record_totals_size(3, RECORD_ALL_OUTPUTS) <= sizeof(buf));
	record_commit(r, RECORD_OUT_CSV, t1, 3, 5000000000ULL);
	record_commit(r, RECORD_OUT_SYSLOG, t1, 3, 6000000000ULL);
	record_commit(r, RECORD_OUT_SYSLOG, t2, 3, 7000000000ULL);
	r->removed = true;
	r->outputs_done = 1u << RECORD_OUT_CSV;
	record_totals_encode(r, 3, RECORD_ALL_OUTPUTS, buf);

	back = make_record(&b, 42, "/pod/c");
	assert_int_equal(record_totals_apply(back, 3, RECORD_ALL_OUTPUTS, buf), 0);
	assert_true(back->removed && back->outputs_done == 1u << RECORD_OUT_CSV);
	assert_true(back->out[RECORD_OUT_SYSLOG].seq == 2 &&
		    back->out[RECORD_OUT_SYSLOG].last_ns == 7000000000ULL);
	assert_memory_equal(back->out[RECORD_OUT_SYSLOG].last, t2, sizeof(t2));
	assert_memory_equal(back->out[RECORD_OUT_CSV].last, t1, sizeof(t1));
	record_clear(&b);

	/* Not its record (another id; the same cgroup counted anew), other
	 * events: untouched. */
	back = make_record(&b, 43, "/pod/c");
	before = *back;
	assert_int_equal(record_totals_apply(back, 3, RECORD_ALL_OUTPUTS, buf), -ENOENT);
	back->id = 42;
	back->created_ns++;
	assert_int_equal(record_totals_apply(back, 3, RECORD_ALL_OUTPUTS, buf), -ENOENT);
	back->created_ns--;
	assert_int_equal(record_totals_apply(back, 2, RECORD_ALL_OUTPUTS, buf), -ENOENT);
	back->id = 43;
	assert_memory_equal(back, &before, sizeof(before));
	record_clear(&b);

	/* An entry older than the blob for one output (CSV wrote two more
	 * rows, an older cgperf saving only blobs ran since): that output
	 * keeps the blob's; the others, and the flags, take the entry's. */
	back = make_record(&b, 42, "/pod/c");
	record_commit(back, RECORD_OUT_CSV, t1, 3, 5000000000ULL);
	record_commit(back, RECORD_OUT_CSV, t2, 3, 8000000000ULL);
	assert_int_equal(record_totals_apply(back, 3, RECORD_ALL_OUTPUTS, buf), 0);
	assert_true(back->out[RECORD_OUT_CSV].seq == 2 &&
		    back->out[RECORD_OUT_CSV].last_ns == 8000000000ULL);
	assert_memory_equal(back->out[RECORD_OUT_CSV].last, t2, sizeof(t2));
	assert_true(back->out[RECORD_OUT_SYSLOG].seq == 2 && back->removed);
	/* Flags are only ever added: a blob's removal stays. */
	r->removed = false;
	r->outputs_done = 0;
	record_totals_encode(r, 3, RECORD_ALL_OUTPUTS, buf);
	back->outputs_done = 1u << RECORD_OUT_SYSLOG;
	assert_int_equal(record_totals_apply(back, 3, RECORD_ALL_OUTPUTS, buf), 0);
	assert_true(back->removed && back->outputs_done == 1u << RECORD_OUT_SYSLOG);
	record_clear(&b);

	/* An entry of the CSV output only: smaller, and the other outputs
	 * keep what the record has (its blob's). */
	assert_int_equal(record_totals_size(3, 1u << RECORD_OUT_CSV) - record_totals_size(3, 0),
			 (record_totals_size(3, RECORD_ALL_OUTPUTS) - record_totals_size(3, 0)) /
				 RECORD_MAX_OUTPUTS);
	record_totals_encode(r, 3, 1u << RECORD_OUT_CSV, buf);
	back = make_record(&b, 42, "/pod/c");
	record_commit(back, RECORD_OUT_SYSLOG, t1, 3, 9000000000ULL);
	assert_int_equal(record_totals_apply(back, 3, 1u << RECORD_OUT_CSV, buf), 0);
	assert_true(back->out[RECORD_OUT_CSV].seq == 1 &&
		    back->out[RECORD_OUT_CSV].last_ns == 5000000000ULL);
	assert_memory_equal(back->out[RECORD_OUT_CSV].last, t1, sizeof(t1));
	assert_true(back->out[RECORD_OUT_SYSLOG].seq == 1 &&
		    back->out[RECORD_OUT_SYSLOG].last_ns == 9000000000ULL);
	record_clear(&b);

	/* Fewer rows but a later one (another history, an earlier cgperf
	 * that adopted from an older blob): the later row wins. */
	back = make_record(&b, 42, "/pod/c");
	record_commit(back, RECORD_OUT_CSV, t2, 3, 3000000000ULL);
	record_commit(back, RECORD_OUT_CSV, t2, 3, 4000000000ULL);
	assert_int_equal(record_totals_apply(back, 3, 1u << RECORD_OUT_CSV, buf), 0);
	assert_true(back->out[RECORD_OUT_CSV].seq == 1 &&
		    back->out[RECORD_OUT_CSV].last_ns == 5000000000ULL);
	assert_memory_equal(back->out[RECORD_OUT_CSV].last, t1, sizeof(t1));
	record_clear(&b);
	record_clear(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record_outputs),	 cmocka_unit_test(test_record_held),
		cmocka_unit_test(test_record_set),	 cmocka_unit_test(test_record_order),
		cmocka_unit_test(test_record_persisted), cmocka_unit_test(test_record_labels),
		cmocka_unit_test(test_record_totals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
