// SPDX-License-Identifier: GPL-2.0
/*
 * Per-key order with rollups, side by side:
 *
 *	keyed	an ordsched keyed executor on ordsched's workqueue
 *	stripe	keys striped over @stripes ordered workqueues by hash; a
 *		rollup whose keys span several stripes queues a barrier on
 *		each, under one lock so that barriers never cross, and the
 *		last barrier to start runs the rollup while the others block
 *		their stripes (what a user of ordered workqueues must write)
 *
 * One bound producer per CPU submits @items tasks; producer p uses keys
 * of its own (a Zipf rank r, exponent 1 over @keys ranks, is key
 * r * P + p), so every key's order is its producer's order. One task in
 * 100 is a rollup over 4 distinct keys. A producer has at most
 * KB_WINDOW tasks not yet run. Each task does @work_ns of delay. Every
 * task checks, for each of its keys, that it is that key's next task;
 * the run fails otherwise. Measured: throughput and the
 * latency of rollups from submission to start, p50 and p99.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/hash.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <ordsched.h>

#include "bench.h"

#define KB_ROLLUP_KEYS	4
#define KB_ROLLUP_EVERY	100
#define KB_MAX_ITEMS	200000U
#define KB_MAX_KEYS	100000U
#define KB_MAX_STRIPES	256U
#define KB_MAX_WORK_NS	100000U
/*
 * Tasks a producer may have submitted and not yet run: without a bound
 * the rollup latency would measure the backlog of the whole run.
 */
#define KB_WINDOW	128
#define KB_MAX_PRODUCERS	64

struct kb_run;
struct kb_item;

/* One stripe's share of a rollup that spans several stripes. */
struct kb_bar {
	struct work_struct work;
	struct kb_item *item;
};

struct kb_item {
	struct kb_run *run;
	u64 key[KB_ROLLUP_KEYS];
	/* This task's place in each of its keys' order. */
	u32 idx[KB_ROLLUP_KEYS];
	u32 nr_keys;
	u32 producer;
	u64 t_submit;
	u32 lat_ns;
	union {
		struct {
			struct ordsched_keyed_task task;
			struct ordsched_keyed_token tok[KB_ROLLUP_KEYS];
		};
		struct {
			struct work_struct work;
			struct kb_bar bar[KB_ROLLUP_KEYS];
			atomic_t arrive;
			struct completion go;
		};
	};
};

struct kb_run {
	bool keyed;
	u32 items;
	u32 nr_keys;
	u32 stripes;
	u64 work_ns;
	unsigned int producers;
	struct kb_item *item;
	/* Next index per key, written only by that key's current task. */
	u32 *next;
	atomic_t ran;
	atomic_t inflight[KB_MAX_PRODUCERS];
	atomic_t error;
	u64 t_end;
	struct completion all_done;
	struct ordsched_keyed *kx;
	struct workqueue_struct **wq;
	/* Keeps multi-stripe barriers in one order on every stripe. */
	spinlock_t bar_lock;
};

static void kb_ran(struct kb_item *item)
{
	struct kb_run *run = item->run;
	u32 i;

	item->lat_ns = min_t(u64, ktime_get_ns() - item->t_submit, U32_MAX);
	for (i = 0; i < item->nr_keys; i++) {
		if (READ_ONCE(run->next[item->key[i]]) != item->idx[i])
			atomic_cmpxchg(&run->error, 0, -EILSEQ);
		WRITE_ONCE(run->next[item->key[i]], item->idx[i] + 1);
	}
	if (run->work_ns)
		ndelay(run->work_ns);
	/*
	 * Still ours: a task of the same key that started during the work
	 * (two of a key at once, which an executor must never allow) moved
	 * it on.
	 */
	for (i = 0; i < item->nr_keys; i++)
		if (READ_ONCE(run->next[item->key[i]]) != item->idx[i] + 1)
			atomic_cmpxchg(&run->error, 0, -EILSEQ);
	atomic_dec(&run->inflight[item->producer]);
	if (atomic_inc_return(&run->ran) == run->items) {
		run->t_end = ktime_get_ns();
		complete(&run->all_done);
	}
}

/* --- keyed ------------------------------------------------------------ */

static void kb_keyed_fn(struct ordsched_keyed_task *task)
{
	kb_ran(container_of(task, struct kb_item, task));
}

static int kb_keyed_submit(struct kb_run *run, struct kb_item *item)
{
	return ordsched_keyed_queue(run->kx, &item->task, item->key,
				    item->nr_keys) ? 0 : -EINVAL;
}

/* --- stripe ----------------------------------------------------------- */

static void kb_stripe_fn(struct work_struct *work)
{
	kb_ran(container_of(work, struct kb_item, work));
}

static void kb_bar_fn(struct work_struct *work)
{
	struct kb_item *item = container_of(work, struct kb_bar, work)->item;

	if (atomic_dec_and_test(&item->arrive)) {
		kb_ran(item);
		complete_all(&item->go);
		return;
	}
	/* Wake every second: a long wait is not a hung task. */
	while (!wait_for_completion_timeout(&item->go, HZ))
		;
}

static u32 kb_stripe(struct kb_run *run, u64 key)
{
	return hash_64(key, 32) % run->stripes;
}

static int kb_stripe_submit(struct kb_run *run, struct kb_item *item)
{
	u32 s[KB_ROLLUP_KEYS], n = 0, i, j;

	for (i = 0; i < item->nr_keys; i++) {
		u32 x = kb_stripe(run, item->key[i]);

		for (j = 0; j < n && s[j] != x; j++)
			;
		if (j == n)
			s[n++] = x;
	}
	if (n == 1) {
		INIT_WORK(&item->work, kb_stripe_fn);
		queue_work(run->wq[s[0]], &item->work);
		return 0;
	}
	atomic_set(&item->arrive, n);
	init_completion(&item->go);
	for (i = 0; i < n; i++) {
		INIT_WORK(&item->bar[i].work, kb_bar_fn);
		item->bar[i].item = item;
	}
	spin_lock(&run->bar_lock);
	for (i = 0; i < n; i++)
		queue_work(run->wq[s[i]], &item->bar[i].work);
	spin_unlock(&run->bar_lock);
	return 0;
}

/* --- setup ------------------------------------------------------------ */

static void kb_destroy(struct kb_run *run)
{
	u32 i;

	if (run->kx) {
		ordsched_keyed_flush(run->kx);
		ordsched_keyed_destroy(run->kx);
	}
	for (i = 0; run->wq && i < run->stripes; i++)
		if (run->wq[i])
			destroy_workqueue(run->wq[i]);
	kvfree(run->wq);
}

static int kb_create(struct kb_run *run)
{
	struct ordsched_keyed_params p = { .name = "bench", .hash_order = 12 };
	u32 i;

	if (run->keyed) {
		run->kx = ordsched_keyed_create(&p);
		if (IS_ERR(run->kx)) {
			int ret = PTR_ERR(run->kx);

			run->kx = NULL;
			return ret;
		}
		return 0;
	}
	run->wq = kvcalloc(run->stripes, sizeof(*run->wq), GFP_KERNEL);
	if (!run->wq)
		return -ENOMEM;
	for (i = 0; i < run->stripes; i++) {
		run->wq[i] = alloc_ordered_workqueue("ordsched_bench_k/%u", 0, i);
		if (!run->wq[i])
			return -ENOMEM;
	}
	return 0;
}

/* Zipf (exponent 1) over @n ranks: cumulative weights 2^32 / rank. */
static u64 *kb_zipf_table(u32 n)
{
	u64 *cum = kvmalloc_array(n, sizeof(*cum), GFP_KERNEL);
	u64 sum = 0;
	u32 r;

	if (!cum)
		return NULL;
	for (r = 0; r < n; r++) {
		sum += div_u64(1ULL << 32, r + 1);
		cum[r] = sum;
	}
	return cum;
}

static u32 kb_zipf(const u64 *cum, u32 n, u32 *rnd)
{
	u64 x;
	u32 lo = 0, hi = n - 1;

	*rnd ^= *rnd << 13;
	*rnd ^= *rnd >> 17;
	*rnd ^= *rnd << 5;
	x = mul_u64_u32_shr(cum[n - 1], *rnd, 32);
	while (lo < hi) {
		u32 mid = (lo + hi) / 2;

		if (cum[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The same items, keys and rollups for both contenders. */
static int kb_prepare(struct kb_run *run)
{
	u32 rnd = 2463534242U, i, j, k, tries;
	u64 *cum = kb_zipf_table(run->nr_keys);
	struct kb_item *item;

	if (!cum)
		return -ENOMEM;
	for (i = 0; i < run->items; i++) {
		u32 p = i % run->producers;

		item = &run->item[i];
		item->run = run;
		item->producer = p;
		item->nr_keys = i % KB_ROLLUP_EVERY == KB_ROLLUP_EVERY - 1 ?
				KB_ROLLUP_KEYS : 1;
		for (j = 0; j < item->nr_keys; j++) {
			for (tries = 0; tries < 1000; tries++) {
				u64 key = (u64)kb_zipf(cum, run->nr_keys, &rnd) *
					  run->producers + p;

				for (k = 0; k < j && item->key[k] != key; k++)
					;
				if (k == j) {
					item->key[j] = key;
					break;
				}
			}
			if (tries == 1000)
				break;
		}
		item->nr_keys = j;
		for (j = 0; j < item->nr_keys; j++)
			item->idx[j] = run->next[item->key[j]]++;
		if (run->keyed)
			ordsched_keyed_task_init(&item->task, kb_keyed_fn, NULL,
						 item->tok, KB_ROLLUP_KEYS);
	}
	memset(run->next, 0,
	       (size_t)run->nr_keys * run->producers * sizeof(*run->next));
	kvfree(cum);
	return 0;
}

static int kb_producer_fn(void *data, unsigned int idx)
{
	struct kb_run *run = data;
	struct kb_item *item;
	int ret;
	u32 i;

	for (i = idx; i < run->items; i += run->producers) {
		item = &run->item[i];
		/* Sleep, not spin: the workers need this CPU too. */
		while (atomic_read(&run->inflight[idx]) >= KB_WINDOW)
			usleep_range(20, 50);
		atomic_inc(&run->inflight[idx]);
		item->t_submit = ktime_get_ns();
		ret = run->keyed ? kb_keyed_submit(run, item) :
				   kb_stripe_submit(run, item);
		if (ret)
			return ret;
		if (!(i & 255))
			cond_resched();
	}
	return 0;
}

static int kb_measure(struct kb_run *run, struct bench_out *out)
{
	u64 wall, busy, rollups = 0;
	u32 *lat, i;
	int ret;

	ret = bench_measure(run->producers, kb_producer_fn, run, &run->all_done,
			    &run->t_end, &wall, &busy);
	if (!ret)
		ret = atomic_read(&run->error);
	if (ret)
		return ret;
	lat = kvmalloc_array(run->items / KB_ROLLUP_EVERY + 1, sizeof(*lat),
			     GFP_KERNEL);
	if (!lat)
		return -ENOMEM;
	for (i = 0; i < run->items; i++)
		if (run->item[i].nr_keys > 1)
			lat[rollups++] = run->item[i].lat_ns;
	bench_sort_u32(lat, rollups);
	bench_printf(out,
		     "keys contender=%s items=%u keys=%u stripes=%u producers=%u work_ns=%llu rollups=%llu ns=%llu busy_ns=%llu rollup_p50_ns=%u rollup_p99_ns=%u",
		     run->keyed ? "keyed" : "stripe", run->items, run->nr_keys,
		     run->keyed ? 0 : run->stripes, run->producers, run->work_ns,
		     rollups, wall, busy, bench_percentile(lat, rollups, 50),
		     bench_percentile(lat, rollups, 99));
	kvfree(lat);
	return 0;
}

static int kb_run_bench(const struct bench_args *args, struct bench_out *out)
{
	const char *name = bench_arg_str(args, "contender");
	u64 items, keys, stripes, work_ns;
	struct kb_run *run;
	int ret;

	if (!name || (strcmp(name, "keyed") && strcmp(name, "stripe")))
		return -ENOENT;
	ret = bench_arg_u64(args, "items", 20000, &items) ?:
	      bench_arg_u64(args, "keys", 1000, &keys) ?:
	      bench_arg_u64(args, "stripes", 16, &stripes) ?:
	      bench_arg_u64(args, "work_ns", 1000, &work_ns);
	if (ret)
		return ret;
	if (!items || items > KB_MAX_ITEMS || !keys || keys > KB_MAX_KEYS ||
	    keys < KB_ROLLUP_KEYS || !stripes || stripes > KB_MAX_STRIPES ||
	    work_ns > KB_MAX_WORK_NS)
		return -EINVAL;
	run = kzalloc(sizeof(*run), GFP_KERNEL);
	if (!run)
		return -ENOMEM;
	run->keyed = !strcmp(name, "keyed");
	run->items = items;
	run->nr_keys = keys;
	run->stripes = stripes;
	run->work_ns = work_ns;
	run->producers = min_t(unsigned int, num_online_cpus(),
			       KB_MAX_PRODUCERS);
	atomic_set(&run->ran, 0);
	atomic_set(&run->error, 0);
	init_completion(&run->all_done);
	spin_lock_init(&run->bar_lock);
	run->item = kvcalloc(items, sizeof(*run->item), GFP_KERNEL);
	run->next = kvcalloc((size_t)keys * run->producers, sizeof(*run->next),
			     GFP_KERNEL);
	ret = -ENOMEM;
	if (!run->item || !run->next)
		goto out;
	ret = kb_prepare(run) ?: kb_create(run);
	if (!ret)
		ret = kb_measure(run, out);
	kb_destroy(run);
out:
	kvfree(run->next);
	kvfree(run->item);
	kfree(run);
	return ret;
}

static const char *kb_contender_names(void)
{
	return "keyed stripe";
}

const struct bench_def bench_keys = {
	.name = "keys",
	.contenders = kb_contender_names,
	.run = kb_run_bench,
};
