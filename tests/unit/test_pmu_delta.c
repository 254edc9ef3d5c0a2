// SPDX-License-Identifier: GPL-2.0-only
/* The PMU branch of the switch programs, in user space: pmu_delta()
 * (bpf/pmu_delta.h, the very function follower_reads.bpf.h and
 * leader.bpf.c run on every bpf_perf_event_read_value) on the cumulative
 * (counter, enabled, running) triples a multiplexed per-CPU perf_event
 * gives at a task's switches, then the follower's sum and reading_scale()
 * (util/readings.c), as every output scales. This host has no PMU that
 * multiplexes (msr/tsc is free-running: enabled == running), so this is
 * where enabled and running differ. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "bpf/pmu_delta.h"
#include "util/readings.h"

/* The kernel's rotation: 7 events on 4 general counters, the list rotated
 * every 4 ms (x86's perf_event_mux_interval_ms): each event is on the
 * counter in 4 slots of every 7. */
#define SLOT_NS 4000000ULL
#define SLOTS_ON 4
#define SLOTS 7
/* The event counts 13 per 5 ns while on a counter (2.6 GHz, as the TSC
 * here). */
#define RATE_NUM 13
#define RATE_DEN 5

/* Time on the counter from 0 to t. */
static uint64_t running_at(uint64_t t)
{
	uint64_t full = t / SLOT_NS, in_slot = t % SLOT_NS;
	uint64_t on = (full / SLOTS) * SLOTS_ON * SLOT_NS;

	for (uint64_t s = full - full % SLOTS; s < full; s++)
		if (s % SLOTS < SLOTS_ON)
			on += SLOT_NS;
	if (full % SLOTS < SLOTS_ON)
		on += in_slot;
	return on;
}

/* The per-CPU perf_event's cumulative triple at time t (it is enabled all
 * along: one per CPU for the whole host, as the leader opens it). */
static struct cgperf_reading triple_at(uint64_t t)
{
	uint64_t r = running_at(t);

	return (struct cgperf_reading){ r * RATE_NUM / RATE_DEN, t, r };
}

/* A deterministic walk of switch times: 50 µs .. 9 ms apart. */
static uint64_t next_gap(uint32_t *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return 50000 + (*seed >> 8) % 8950000;
}

static void add(struct reading *acc, const struct cgperf_reading *d)
{
	reading_add(acc, &(struct reading){ d->counter, d->enabled, d->running });
}

/* Switches on one CPU where the counted task runs every other interval:
 * at each switch the program reads the triple and the delta since the
 * previous read goes to the task switched out (only the counted one's
 * intervals are summed). Returns the task's run time; *acc its sum. */
static uint64_t run_switches(int n, struct reading *acc, int *not_counted)
{
	struct cgperf_reading prev = triple_at(0), now, d = { 0 };
	uint64_t t = 0, task_ns = 0;
	uint32_t seed = 38;

	*acc = (struct reading){ 0 };
	*not_counted = 0;
	for (int i = 0; i < n; i++) {
		uint64_t gap = next_gap(&seed);

		t += gap;
		now = triple_at(t);
		assert_int_equal(pmu_delta(&now, &prev, &d), 1);
		if (i % 2 == 0) {
			task_ns += gap;
			add(acc, &d);
			if (d.running == 0)
				(*not_counted)++;
		}
		prev = now;
	}
	return task_ns;
}

/* Multiplexed: scaled by enabled / running, the task's count is the rate
 * times its run time (exact here: the rate is constant), and the share on
 * the counter is the rotation's 4 of 7. */
static void test_multiplexed_scaled(void **state)
{
	struct reading acc;
	uint64_t task_ns, v, pct, want;
	int not_counted;

	task_ns = run_switches(2000, &acc, &not_counted);
	assert_int_equal(reading_scale(&acc, &v, &pct), READING_COUNTED);
	want = task_ns * RATE_NUM / RATE_DEN;
	/* Each interval's truncation costs under one count. */
	assert_in_range(v, want - 2000, want + 2000);
	/* 4 of 7 slots: 57.14 %, within what 1000 unaligned intervals give. */
	assert_in_range(pct, 5614, 5814);
	assert_true(acc.enabled == task_ns);
	/* The walk gives intervals wholly out of the counter: this is
	 * multiplexing. */
	assert_true(not_counted > 0);
	/* Unscaled, the count would be 4/7 of it: not what we have. */
	assert_true(acc.counter < want * 6 / 10);
}

/* One interval wholly between two of the event's slots: enabled, never on
 * a counter: unknown, not zero (perf's <not counted>). */
static void test_interval_off_counter(void **state)
{
	/* Slots 4..6 (16..28 ms) are off. */
	struct cgperf_reading a = triple_at(17 * 1000000ULL), b = triple_at(27 * 1000000ULL), d;
	uint64_t v;

	assert_int_equal(pmu_delta(&b, &a, &d), 1);
	assert_true(d.enabled == 10 * 1000000ULL && d.running == 0 && d.counter == 0);
	assert_int_equal(reading_scale(&(struct reading){ d.counter, d.enabled, d.running }, &v,
				       NULL),
			 READING_NOT_COUNTED);
}

/* A free-running event (msr/tsc): enabled == running, no scaling. */
static void test_free_running(void **state)
{
	struct cgperf_reading a = { 1000, 400, 400 }, b = { 3600, 1400, 1400 }, d;
	uint64_t v, pct;

	assert_int_equal(pmu_delta(&b, &a, &d), 1);
	assert_true(d.counter == 2600 && d.enabled == 1000 && d.running == 1000);
	assert_int_equal(reading_scale(&(struct reading){ d.counter, d.enabled, d.running }, &v,
				       &pct),
			 READING_COUNTED);
	assert_true(v == 2600 && pct == 10000);
}

/* The perf_event reopened after its CPU came back: it counts from zero
 * again, and the difference across the reopen is no count at all. */
static void test_reopened(void **state)
{
	struct cgperf_reading before = triple_at(900 * 1000000ULL), d = { 7, 7, 7 };
	struct cgperf_reading after = { 2600, 1000, 1000 };

	assert_int_equal(pmu_delta(&after, &before, &d), 0);
	assert_true(d.counter == 7 && d.enabled == 7 && d.running == 7);
	/* The counter alone behind (enabled ahead): refused too. */
	after = (struct cgperf_reading){ before.counter - 1, before.enabled + 5, before.running };
	assert_int_equal(pmu_delta(&after, &before, &d), 0);
	/* Running alone behind (a reopened event read soon after, counter and
	 * enabled already past the old readings): refused, or it would wrap. */
	after = (struct cgperf_reading){ before.counter + 5, before.enabled + 5, before.running - 1 };
	assert_int_equal(pmu_delta(&after, &before, &d), 0);
	/* Equal readings: a zero delta, not a refusal. */
	assert_int_equal(pmu_delta(&before, &before, &d), 1);
	assert_true(d.counter == 0 && d.enabled == 0 && d.running == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_multiplexed_scaled),
		cmocka_unit_test(test_interval_off_counter),
		cmocka_unit_test(test_free_running),
		cmocka_unit_test(test_reopened),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
