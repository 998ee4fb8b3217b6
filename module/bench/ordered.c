// SPDX-License-Identifier: GPL-2.0
/*
 * Ordered execution, side by side: producers on every CPU start items; each
 * item does W of work (one in 16, chosen by its identity, does ten times
 * as much, so completion order scrambles), then goes through one serial
 * step, in the order the contender gave it. The contenders differ only in
 * how they keep that order (ordered_*.c).
 *
 * The serial step is the same for everyone and trusts nothing: the places
 * in the order must come as 0, 1, 2, ... with none missing or repeated,
 * each item's result must be what its work computes (checked in O(log W)
 * by jumping the generator ahead), and every item must come exactly once.
 * A run that fails a check reports an error, not a number.
 *
 * Measured: wall time from the release of the producers to the last
 * serial step; CPU time of all CPUs over the run; per item, the time from
 * the producer starting it to its serial step (p50, p99); and the peak
 * reorder depth, the most items whose work was done but whose serial step
 * had not run, seen at the start of a serial step (the depth only shrinks
 * at serial steps, so that is where its peaks are).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/bits.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/hash.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "bench.h"
#include "ordered.h"

/* A 64-bit linear congruential generator (Knuth's MMIX constants). */
#define OB_LCG_MUL	6364136223846793005ULL
#define OB_LCG_INC	1442695040888963407ULL

#define OB_MAX_ITEMS	BIT(22)
#define OB_MAX_WINDOW	4096U
#define OB_MAX_WORK_NS	(10 * NSEC_PER_MSEC)

static const struct ob_contender *const ob_contenders[] = {
	&ob_seq,
	&ob_pipeline,
#if IS_ENABLED(CONFIG_PADATA)
	&ob_padata,
	&ob_padata_serial,
#endif
	&ob_reorder,
	&ob_owq,
	&ob_lock,
};

/* Work loops per millisecond on one CPU, measured at load. */
static u64 ob_loops_per_ms = 1;
static u64 ob_sink;

static u64 ob_lcg_run(u64 x, u64 n)
{
	while (n--)
		x = x * OB_LCG_MUL + OB_LCG_INC;
	return x;
}

/* What ob_lcg_run(@x, @n) returns, in O(log n) steps. */
static u64 ob_lcg_skip(u64 x, u64 n)
{
	u64 mul = OB_LCG_MUL, inc = OB_LCG_INC, acc_mul = 1, acc_inc = 0;

	for (; n; n >>= 1) {
		if (n & 1) {
			acc_mul *= mul;
			acc_inc = acc_inc * mul + inc;
		}
		inc *= mul + 1;
		mul *= mul;
	}
	return acc_mul * x + acc_inc;
}

static u64 ob_seed(u64 id)
{
	return id * GOLDEN_RATIO_64 + 1;
}

/* One item in 16 is slow: ten times the work. */
static u64 ob_loops(const struct ob_run *run, u64 id)
{
	return hash_64(id, 4) ? run->loops : run->loops * 10;
}

/**
 * ob_work() - the parallel work of one item
 * @run: the run
 * @item: the item
 *
 * Context: any; does not sleep.
 */
void ob_work(struct ob_run *run, struct ob_item *item)
{
	item->value = ob_lcg_run(ob_seed(item->id), ob_loops(run, item->id));
	this_cpu_inc(*run->done);
}

static void ob_fail(struct ob_run *run, int err, u64 at)
{
	if (!run->error) {
		run->error = err;
		run->error_at = at;
	}
}

static void ob_window_put(struct ob_run *run, struct ob_producer *p)
{
	/* Pairs with the barrier in prepare_to_wait(): see ob_window_get(). */
	if (atomic_dec_return(&p->inflight) == run->window / 2 &&
	    wq_has_sleeper(&p->wq))
		wake_up(&p->wq);
}

/* Only the producer raises inflight, so the fall to window / 2 is seen. */
static void ob_window_get(struct ob_run *run, struct ob_producer *p)
{
	if (atomic_read(&p->inflight) >= run->window) {
		p->waits++;
		wait_event_idle(p->wq,
				atomic_read(&p->inflight) <= run->window / 2);
	}
	atomic_inc(&p->inflight);
}

static void ob_note_depth(struct ob_run *run)
{
	u64 done = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		done += READ_ONCE(*per_cpu_ptr(run->done, cpu));
	/* This item is done and not counted as waiting. */
	if (done > run->serialized + 1 &&
	    done - run->serialized - 1 > run->peak_depth)
		run->peak_depth = done - run->serialized - 1;
}

/**
 * ob_serial() - the serial step, the same for every contender
 * @item: the item whose turn came
 * @seq: its place in the order, as the contender assigned it
 *
 * The contender guarantees that serial steps never overlap and that each
 * sees the previous one's stores.
 *
 * Context: any; does not sleep.
 */
void ob_serial(struct ob_item *item, u64 seq)
{
	struct ob_run *run = item->run;
	u64 now = ktime_get_ns();

	ob_note_depth(run);
	/*
	 * The contender's own numbering checks only that it counts; the
	 * order is checked against the producers': each one's items in the
	 * order it made them (a contender that numbered items as they
	 * finished would pass the first test, not the second).
	 */
	if (seq != run->next_seq || item->id < item->prod->next_id)
		ob_fail(run, -EILSEQ, run->next_seq);
	else if (item->value != ob_lcg_skip(ob_seed(item->id),
					    ob_loops(run, item->id)))
		ob_fail(run, -EBADMSG, seq);
	else if (__test_and_set_bit(item->id, run->seen))
		ob_fail(run, -EEXIST, seq);
	if (seq < run->items)
		run->lat[seq] = min_t(u64, now - item->t0, U32_MAX);
	run->next_seq = seq + 1;
	item->prod->next_id = item->id + 1;
	run->serialized++;
	ob_window_put(run, item->prod);
	if (run->serialized == run->items) {
		run->t_end = now;
		complete(&run->all_done);
	}
}

static int ob_producer_fn(void *data, unsigned int idx)
{
	struct ob_run *run = data;
	struct ob_producer *p = &run->prod[idx];
	struct ob_item *item = &run->item[idx * run->per_producer];
	u64 i;
	int ret;

	for (i = 0; i < run->per_producer; i++, item++) {
		ob_window_get(run, p);
		item->t0 = ktime_get_ns();
		ret = run->c->produce(run, item);
		if (ret)
			return ret;
		/* Let the kworkers of this CPU in, as any producer would. */
		cond_resched();
	}
	return 0;
}

static void ob_free(struct ob_run *run)
{
	bitmap_free(run->seen);
	kvfree(run->lat);
	free_percpu(run->done);
	kfree(run->prod);
	kvfree(run->item);
	kfree(run);
}

static struct ob_run *ob_alloc(const struct ob_contender *c, u64 items,
			       unsigned int producers, unsigned int window,
			       u64 work_ns)
{
	struct ob_run *run = kzalloc(sizeof(*run), GFP_KERNEL);
	u64 i;

	if (!run)
		return NULL;
	run->c = c;
	run->window = window;
	run->producers = producers;
	run->per_producer = DIV_ROUND_UP(items, producers);
	run->items = run->per_producer * producers;
	run->loops = div_u64(work_ns * ob_loops_per_ms, NSEC_PER_MSEC);
	init_completion(&run->all_done);

	run->item = kvcalloc(run->items, sizeof(*run->item), GFP_KERNEL);
	run->prod = kcalloc(producers, sizeof(*run->prod), GFP_KERNEL);
	run->done = alloc_percpu(u64);
	run->lat = kvcalloc(run->items, sizeof(*run->lat), GFP_KERNEL);
	run->seen = bitmap_zalloc(run->items, GFP_KERNEL);
	if (!run->item || !run->prod || !run->done || !run->lat || !run->seen) {
		ob_free(run);
		return NULL;
	}
	for (i = 0; i < producers; i++) {
		atomic_set(&run->prod[i].inflight, 0);
		init_waitqueue_head(&run->prod[i].wq);
	}
	for (i = 0; i < run->items; i++) {
		run->item[i].run = run;
		run->item[i].prod = &run->prod[div_u64(i, run->per_producer)];
		run->item[i].id = i;
	}
	return run;
}

/* Run the producers and wait for the last serial step. */
static int ob_measure(struct ob_run *run, unsigned int producers,
		      u64 *wall_ns, u64 *busy_ns)
{
	return bench_measure(producers, ob_producer_fn, run, &run->all_done,
			     &run->t_end, wall_ns, busy_ns);
}

static void ob_report(struct ob_run *run, unsigned int producers,
		      u64 work_ns, u64 wall_ns, u64 busy_ns,
		      struct bench_out *out)
{
	u64 waits = 0;
	unsigned int i;

	for (i = 0; i < run->producers; i++)
		waits += run->prod[i].waits;
	bench_sort_u32(run->lat, run->items);
	bench_printf(out,
		     "ordered contender=%s work_ns=%llu producers=%u items=%llu window=%u loops=%llu loops_per_ms=%llu ns=%llu busy_ns=%llu lat_p50_ns=%u lat_p99_ns=%u depth=%llu",
		     run->c->name, work_ns, producers, run->items, run->window,
		     run->loops, ob_loops_per_ms, wall_ns, busy_ns,
		     bench_percentile(run->lat, run->items, 50),
		     bench_percentile(run->lat, run->items, 99),
		     run->peak_depth);
	bench_printf(out, " window_waits=%llu", waits);
}

static const struct ob_contender *ob_find(const char *name)
{
	unsigned int i;

	for (i = 0; name && i < ARRAY_SIZE(ob_contenders); i++)
		if (!strcmp(ob_contenders[i]->name, name))
			return ob_contenders[i];
	return NULL;
}

static int ob_run_one(const struct ob_contender *c, u64 items,
		      unsigned int producers, unsigned int window, u64 work_ns,
		      struct bench_out *out)
{
	struct ob_run *run = ob_alloc(c, items, producers, window, work_ns);
	u64 wall_ns = 0, busy_ns = 0;
	int ret;

	if (!run)
		return -ENOMEM;
	ret = c->setup(run);
	if (ret)
		goto out_free;
	ret = ob_measure(run, producers, &wall_ns, &busy_ns);
	if (!ret && run->error)
		ret = run->error;
	if (!ret) {
		ob_report(run, producers, work_ns, wall_ns, busy_ns, out);
		if (c->report)
			c->report(run, out);
	}
	/* Drains whatever is still in flight, even after an error. */
	c->teardown(run);
	if (ret)
		bench_printf(out,
			     "ordered contender=%s work_ns=%llu error=%d at=%llu serialized=%llu of %llu",
			     c->name, work_ns, ret, run->error_at,
			     run->serialized, run->items);
out_free:
	ob_free(run);
	return ret;
}

static int ob_run_bench(const struct bench_args *args, struct bench_out *out)
{
	const struct ob_contender *c = ob_find(bench_arg_str(args, "contender"));
	u64 items, window, producers, work_ns;
	int ret;

	if (!c)
		return -ENOENT;
	ret = bench_arg_u64(args, "items", 10000, &items) ?:
	      bench_arg_u64(args, "window", 128, &window) ?:
	      bench_arg_u64(args, "producers", num_online_cpus(), &producers) ?:
	      bench_arg_u64(args, "work_ns", 0, &work_ns);
	if (ret)
		return ret;
	if (!items || items > OB_MAX_ITEMS || !window ||
	    window > OB_MAX_WINDOW || !producers ||
	    producers > 4 * num_online_cpus() || work_ns > OB_MAX_WORK_NS)
		return -EINVAL;
	return ob_run_one(c, items, producers, window, work_ns, out);
}

static const char *ob_contender_names(void)
{
	static char names[128];
	size_t len = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ob_contenders); i++)
		len += scnprintf(names + len, sizeof(names) - len, "%s%s",
				 i ? " " : "", ob_contenders[i]->name);
	return names;
}

/*
 * How fast one CPU runs the work loop: the best of five tries of at
 * least 10 ms each, since the host may steal time from any one of them.
 * Only the number of loops matters for fairness (every contender runs the
 * same); the benchmark's "single" contender measures the real rate.
 */
void bench_ordered_calibrate(void)
{
	u64 n = 1 << 12, best = 0, t, dt;
	int try;

	for (try = 0; try < 5; try++) {
		for (;;) {
			t = ktime_get_ns();
			/* Stored, so the loop is not optimized out. */
			WRITE_ONCE(ob_sink, ob_lcg_run(t, n));
			dt = ktime_get_ns() - t;
			if (dt >= 10 * NSEC_PER_MSEC)
				break;
			n *= 2;
		}
		best = max(best, div64_u64(n * NSEC_PER_MSEC, dt));
	}
	ob_loops_per_ms = max(best, 1ULL);
	pr_info("work loop: %llu loops per ms\n", ob_loops_per_ms);
}

const struct bench_def bench_ordered = {
	.name = "ordered",
	.contenders = ob_contender_names,
	.run = ob_run_bench,
};
