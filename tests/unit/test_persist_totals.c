/* The persistent session's totals map (agent/persist_totals.h), on a real
 * pinned BPF map: what a restarted agent reads back is every record's last
 * save or put, a put keeps its chunk's other entries, a save leaves no
 * chunk without a record, a map of another size is refused. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "agent/persist_totals.h"
#include "tests/lib/unit_skip.h"
#include <bpf/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NR_EVENTS 4
#define NR_RECORDS 40

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

static struct persist_totals *reopen(void)
{
	struct persist_totals *t;

	assert_int_equal(totals_open(dir, NR_EVENTS, 4096, &t), 0);
	assert_int_equal(totals_read(t), 0);
	return t;
}

static int map_elements(void)
{
	char p[160];
	uint64_t key, *prev = NULL;
	int fd, n = 0;

	snprintf(p, sizeof(p), "%s/totals", dir);
	fd = bpf_obj_get(p);
	assert_true(fd >= 0);
	while (bpf_map_get_next_key(fd, prev, &key) == 0) {
		prev = &key;
		n++;
	}
	close(fd);
	return n;
}

static void test_entry(void **state)
{
	struct record_set set = { 0 };
	struct cg_record *r = add(&set, 3), *other = add(&set, 4);
	unsigned char buf[1024];
	struct cg_record before;

	(void)state;
	assert_true(record_totals_size(NR_EVENTS) <= sizeof(buf));
	commit(r, RECORD_OUT_CSV, 5);
	commit(r, RECORD_OUT_SYSLOG, 6);
	r->removed = true;
	r->outputs_done = 1u << RECORD_OUT_CSV;
	record_totals_encode(r, NR_EVENTS, buf);
	/* Another record's entry, or other events: not applied. */
	before = *other;
	assert_int_equal(record_totals_apply(other, NR_EVENTS, buf), -ENOENT);
	assert_memory_equal(other, &before, sizeof(before));
	other->id = r->id;
	assert_int_equal(record_totals_apply(other, NR_EVENTS - 1, buf), -ENOENT);
	assert_int_equal(record_totals_apply(other, NR_EVENTS, buf), 0);
	assert_true(other->removed && other->outputs_done == 1u << RECORD_OUT_CSV);
	assert_true(other->out[RECORD_OUT_SYSLOG].seq == 1 &&
		    other->out[RECORD_OUT_SYSLOG].last_ns == 6000000000ULL);
	assert_memory_equal(other->out[RECORD_OUT_CSV].last, r->out[RECORD_OUT_CSV].last,
			    sizeof(struct reading) * NR_EVENTS);
	record_clear(&set);
}

static void test_save_put_read(void **state)
{
	struct record_set set = { 0 };
	struct persist_totals *t;
	struct cg_record *recs[NR_RECORDS + 2];

	(void)state;
	assert_int_equal(totals_open(dir, NR_EVENTS, 4096, &t), 0);
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

	/* The next save keeps only chunks with records: 0 .. 39 in some, 100
	 * and 101 in one; then only slots 0 and 39 are left. */
	t = reopen();
	assert_int_equal(totals_save(t, &set), 0);
	for (int i = 1; i < NR_RECORDS + 2; i++)
		if (i != NR_RECORDS - 1)
			record_remove(&set, recs[i]->id);
	assert_int_equal(totals_save(t, &set), 0);
	assert_int_equal(map_elements(), 1 + (NR_RECORDS - 1 >= 8));
	totals_free(t);
	t = reopen();
	assert_back(t, recs[0]);
	assert_back(t, recs[NR_RECORDS - 1]);
	totals_free(t);
	record_clear(&set);
}

static void test_other_size(void **state)
{
	struct persist_totals *t = NULL;

	(void)state;
	assert_int_equal(totals_open(dir, NR_EVENTS, 4096, &t), 0);
	totals_free(t);
	assert_int_equal(totals_open(dir, NR_EVENTS - 1, 4096, &t), -EPROTO);
	totals_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_entry),
		cmocka_unit_test(test_save_put_read),
		cmocka_unit_test(test_other_size),
	};
	char cmd[128];
	int r;

	snprintf(dir, sizeof(dir), "/sys/fs/bpf/cgperf-test-totals-%d", (int)getpid());
	if (mkdir(dir, 0700) < 0) {
		fprintf(stderr, "SKIP: cannot make %s: %s\n", dir, strerror(errno));
		return UNIT_SKIP_CODE;
	}
	r = cmocka_run_group_tests(tests, NULL, NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
	return unit_result(r);
}
