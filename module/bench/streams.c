// SPDX-License-Identifier: GPL-2.0
/*
 * Many serial streams, side by side: N streams (10,000 by default) as
 *
 *	stream	ordsched serial streams, one stream set on ordsched's shared
 *		workqueue, a struct ordsched_stream per stream
 *	list	by hand: a lock, a list and a work item per stream, the
 *		work item queued on one shared unbound workqueue when its
 *		stream goes from idle to busy and draining the list; what
 *		a driver writes to avoid a workqueue per stream
 *	owq	one alloc_ordered_workqueue() per stream, what a driver with
 *		one ordered queue per client would write
 *
 * Measured: the time to create and to destroy the N streams; the memory
 * they take (the system's used memory before and after creating them,
 * over N: slab, pages, per-CPU, whatever the contender allocates); the
 * throughput of rounds items per stream queued by one bound producer per
 * CPU (a stream belongs to one producer, so its FIFO order is known) and
 * run with no work; and how many kworkers exist after the run compared
 * with before. Every item checks that it runs in its stream's order.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <ordsched.h>

#include "bench.h"

#define SB_MAX_STREAMS	100000U
#define SB_MAX_ROUNDS	1000U

struct sb_run;

struct sb_item {
	struct sb_run *run;
	u32 stream;
	u32 round;
	union {
		struct ordsched_stream_item si;
		struct work_struct work;
		struct list_head node;
	};
};

/* list: one stream, 56 bytes on x86-64 without lock debugging. */
struct sb_list {
	/* Guards @busy and @items. */
	spinlock_t lock;
	/* Its work item is queued or draining. */
	bool busy;
	struct list_head items;
	struct work_struct work;
};

struct sb_contender {
	const char *name;
	int (*create)(struct sb_run *run);
	void (*destroy)(struct sb_run *run);
	void (*queue)(struct sb_run *run, struct sb_item *item);
};

struct sb_run {
	const struct sb_contender *c;
	u32 streams;
	u32 rounds;
	unsigned int producers;
	/* Item (s, r) is item[r * streams + s]. */
	struct sb_item *item;
	/* Next round per stream; written by that stream's items only. */
	u32 *next;
	atomic_long_t ran;
	atomic_t error;
	u64 t_end;
	struct completion all_done;
	/* The contender's: stream set and streams, or workqueues. */
	struct ordsched_stream_set *set;
	struct ordsched_stream *stream;
	struct workqueue_struct **wq;
	/* list: the streams and their shared workqueue */
	struct sb_list *list;
	struct workqueue_struct *list_wq;
};

/* Every item, whatever runs it. */
static void sb_ran(struct sb_item *item)
{
	struct sb_run *run = item->run;

	if (run->next[item->stream] != item->round)
		atomic_cmpxchg(&run->error, 0, -EILSEQ);
	run->next[item->stream] = item->round + 1;
	if (atomic_long_inc_return(&run->ran) ==
	    (long)run->streams * run->rounds) {
		run->t_end = ktime_get_ns();
		complete(&run->all_done);
	}
}

/* --- stream ---------------------------------------------------------- */

static void sb_stream_fn(struct ordsched_stream_item *si)
{
	sb_ran(container_of(si, struct sb_item, si));
}

static int sb_stream_create(struct sb_run *run)
{
	struct ordsched_stream_set_params p = { .name = "bench" };
	u32 i;

	run->set = ordsched_stream_set_create(&p);
	if (IS_ERR(run->set))
		return PTR_ERR(run->set);
	run->stream = kvcalloc(run->streams, sizeof(*run->stream), GFP_KERNEL);
	if (!run->stream) {
		ordsched_stream_set_destroy(run->set);
		return -ENOMEM;
	}
	for (i = 0; i < run->streams; i++)
		ordsched_stream_init(&run->stream[i], run->set);
	return 0;
}

static void sb_stream_destroy(struct sb_run *run)
{
	u32 i;

	for (i = 0; i < run->streams; i++)
		ordsched_stream_destroy(&run->stream[i]);
	kvfree(run->stream);
	ordsched_stream_set_destroy(run->set);
}

static void sb_stream_queue(struct sb_run *run, struct sb_item *item)
{
	ordsched_stream_item_init(&item->si, sb_stream_fn);
	ordsched_stream_queue(&run->stream[item->stream], &item->si);
}

static const struct sb_contender sb_stream = {
	.name = "stream",
	.create = sb_stream_create,
	.destroy = sb_stream_destroy,
	.queue = sb_stream_queue,
};

/* --- list ------------------------------------------------------------ */

static void sb_list_fn(struct work_struct *work)
{
	struct sb_list *l = container_of(work, struct sb_list, work);
	struct sb_item *item;

	for (;;) {
		spin_lock(&l->lock);
		item = list_first_entry_or_null(&l->items, struct sb_item,
						node);
		if (!item) {
			l->busy = false;
			spin_unlock(&l->lock);
			return;
		}
		list_del(&item->node);
		spin_unlock(&l->lock);
		sb_ran(item);
	}
}

static int sb_list_create(struct sb_run *run)
{
	u32 i;

	run->list_wq = alloc_workqueue("ordsched_bench_list", WQ_UNBOUND, 0);
	if (!run->list_wq)
		return -ENOMEM;
	run->list = kvcalloc(run->streams, sizeof(*run->list), GFP_KERNEL);
	if (!run->list) {
		destroy_workqueue(run->list_wq);
		return -ENOMEM;
	}
	for (i = 0; i < run->streams; i++) {
		spin_lock_init(&run->list[i].lock);
		INIT_LIST_HEAD(&run->list[i].items);
		INIT_WORK(&run->list[i].work, sb_list_fn);
	}
	return 0;
}

static void sb_list_destroy(struct sb_run *run)
{
	/* Drains it: no work item runs on a stream once this returns. */
	destroy_workqueue(run->list_wq);
	kvfree(run->list);
}

/* A work item runs on one worker at a time: the stream's FIFO holds. */
static void sb_list_queue(struct sb_run *run, struct sb_item *item)
{
	struct sb_list *l = &run->list[item->stream];
	bool idle;

	spin_lock(&l->lock);
	list_add_tail(&item->node, &l->items);
	idle = !l->busy;
	l->busy = true;
	spin_unlock(&l->lock);
	if (idle)
		queue_work(run->list_wq, &l->work);
}

static const struct sb_contender sb_list = {
	.name = "list",
	.create = sb_list_create,
	.destroy = sb_list_destroy,
	.queue = sb_list_queue,
};

/* --- owq ------------------------------------------------------------- */

static void sb_owq_fn(struct work_struct *work)
{
	sb_ran(container_of(work, struct sb_item, work));
}

static void sb_owq_destroy_n(struct sb_run *run, u32 n)
{
	while (n--)
		destroy_workqueue(run->wq[n]);
	kvfree(run->wq);
}

static int sb_owq_create(struct sb_run *run)
{
	u32 i;

	run->wq = kvcalloc(run->streams, sizeof(*run->wq), GFP_KERNEL);
	if (!run->wq)
		return -ENOMEM;
	for (i = 0; i < run->streams; i++) {
		run->wq[i] = alloc_ordered_workqueue("ordsched_bench/%u", 0, i);
		if (!run->wq[i]) {
			sb_owq_destroy_n(run, i);
			return -ENOMEM;
		}
	}
	return 0;
}

static void sb_owq_destroy(struct sb_run *run)
{
	sb_owq_destroy_n(run, run->streams);
}

static void sb_owq_queue(struct sb_run *run, struct sb_item *item)
{
	INIT_WORK(&item->work, sb_owq_fn);
	queue_work(run->wq[item->stream], &item->work);
}

static const struct sb_contender sb_owq = {
	.name = "owq",
	.create = sb_owq_create,
	.destroy = sb_owq_destroy,
	.queue = sb_owq_queue,
};

static const struct sb_contender *const sb_contenders[] = {
	&sb_stream,
	&sb_list,
	&sb_owq,
};

/* --- the run --------------------------------------------------------- */

/* Producer @idx queues, round after round, the streams s = idx mod P. */
static int sb_producer_fn(void *data, unsigned int idx)
{
	struct sb_run *run = data;
	u32 r, s;

	for (r = 0; r < run->rounds; r++) {
		for (s = idx; s < run->streams; s += run->producers)
			run->c->queue(run, &run->item[r * run->streams + s]);
		cond_resched();
	}
	return 0;
}

static unsigned int sb_kworkers(void)
{
	struct task_struct *g, *t;
	unsigned int n = 0;

	rcu_read_lock();
	for_each_process_thread(g, t)
		if (!strncmp(t->comm, "kworker", 7))
			n++;
	rcu_read_unlock();
	return n;
}

static u64 sb_used_bytes(void)
{
	struct sysinfo si;

	si_meminfo(&si);
	return (u64)(si.totalram - si.freeram) * si.mem_unit;
}

static int sb_throughput(struct sb_run *run, u64 *wall_ns, u64 *busy_ns)
{
	return bench_measure(run->producers, sb_producer_fn, run, &run->all_done,
			     &run->t_end, wall_ns, busy_ns);
}

static int sb_measure(struct sb_run *run, struct bench_out *out)
{
	u64 t, create_ns, destroy_ns, mem, used, wall_ns, busy_ns;
	unsigned int kw_before, kw_after;
	int ret;

	mem = sb_used_bytes();
	t = ktime_get_ns();
	ret = run->c->create(run);
	if (ret)
		return ret;
	create_ns = ktime_get_ns() - t;
	used = sb_used_bytes();
	mem = used > mem ? used - mem : 0;

	kw_before = sb_kworkers();
	ret = sb_throughput(run, &wall_ns, &busy_ns);
	kw_after = sb_kworkers();

	t = ktime_get_ns();
	run->c->destroy(run);
	destroy_ns = ktime_get_ns() - t;
	if (!ret)
		ret = atomic_read(&run->error);
	if (ret)
		return ret;
	bench_printf(out,
		     "streams contender=%s streams=%u rounds=%u producers=%u items=%llu create_ns=%llu destroy_ns=%llu mem_bytes=%llu ns=%llu busy_ns=%llu kworkers_before=%u kworkers_after=%u",
		     run->c->name, run->streams, run->rounds, run->producers,
		     (u64)run->streams * run->rounds, create_ns, destroy_ns,
		     mem, wall_ns, busy_ns, kw_before, kw_after);
	return 0;
}

static void sb_free(struct sb_run *run)
{
	kvfree(run->next);
	kvfree(run->item);
	kfree(run);
}

static struct sb_run *sb_alloc(const struct sb_contender *c, u32 streams,
			       u32 rounds)
{
	struct sb_run *run = kzalloc(sizeof(*run), GFP_KERNEL);
	u64 n = (u64)streams * rounds;
	struct sb_item *item;
	u32 r, s;

	if (!run)
		return NULL;
	run->c = c;
	run->streams = streams;
	run->rounds = rounds;
	run->producers = num_online_cpus();
	atomic_long_set(&run->ran, 0);
	atomic_set(&run->error, 0);
	init_completion(&run->all_done);
	run->item = kvcalloc(n, sizeof(*run->item), GFP_KERNEL);
	run->next = kvcalloc(streams, sizeof(*run->next), GFP_KERNEL);
	if (!run->item || !run->next) {
		sb_free(run);
		return NULL;
	}
	item = run->item;
	for (r = 0; r < rounds; r++) {
		for (s = 0; s < streams; s++, item++) {
			item->run = run;
			item->stream = s;
			item->round = r;
		}
	}
	return run;
}

static int sb_run_bench(const struct bench_args *args, struct bench_out *out)
{
	const char *name = bench_arg_str(args, "contender");
	const struct sb_contender *c = NULL;
	u64 streams, rounds;
	struct sb_run *run;
	unsigned int i;
	int ret;

	for (i = 0; name && i < ARRAY_SIZE(sb_contenders); i++)
		if (!strcmp(sb_contenders[i]->name, name))
			c = sb_contenders[i];
	if (!c)
		return -ENOENT;
	ret = bench_arg_u64(args, "streams", 10000, &streams) ?:
	      bench_arg_u64(args, "rounds", 10, &rounds);
	if (ret)
		return ret;
	if (!streams || streams > SB_MAX_STREAMS || !rounds ||
	    rounds > SB_MAX_ROUNDS)
		return -EINVAL;
	run = sb_alloc(c, streams, rounds);
	if (!run)
		return -ENOMEM;
	ret = sb_measure(run, out);
	sb_free(run);
	return ret;
}

static const char *sb_contender_names(void)
{
	return "stream list owq";
}

const struct bench_def bench_streams = {
	.name = "streams",
	.contenders = sb_contender_names,
	.run = sb_run_bench,
};
