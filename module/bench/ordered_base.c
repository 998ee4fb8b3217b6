// SPDX-License-Identifier: GPL-2.0
/*
 * The baselines of the ordered benchmark, what a user writes without
 * ordsched or padata:
 *
 *	owq	an ordered workqueue runs the work and the serial step of
 *		each item, in the order of queue_work(): the one worker
 *		numbers the items as it runs them (a lock around "take a
 *		number, queue", as before, only held the producers up)
 *	lock	one spinlock around read (take a number), process (the
 *		work), write (the serial step): the serial limit
 */
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "ordered.h"

struct ob_base {
	/* lock: the lock */
	spinlock_t lock;
	/* The next number: under the lock, or (owq) the one worker's. */
	u64 next;
	struct workqueue_struct *wq;
};

static int ob_base_setup(struct ob_run *run)
{
	struct ob_base *b = kzalloc(sizeof(*b), GFP_KERNEL);

	if (!b)
		return -ENOMEM;
	spin_lock_init(&b->lock);
	run->priv = b;
	return 0;
}

static void ob_base_teardown(struct ob_run *run)
{
	kfree(run->priv);
}

/* --- owq ------------------------------------------------------------- */

static void ob_owq_fn(struct work_struct *work)
{
	struct ob_item *item = container_of(work, struct ob_item, work);
	struct ob_base *b = item->run->priv;

	ob_work(item->run, item);
	/* An ordered workqueue runs one item at a time, in queueing order. */
	ob_serial(item, b->next++);
}

static int ob_owq_setup(struct ob_run *run)
{
	struct ob_base *b;
	int ret = ob_base_setup(run);

	if (ret)
		return ret;
	b = run->priv;
	b->wq = alloc_ordered_workqueue("ordsched_bench", 0);
	if (!b->wq) {
		ob_base_teardown(run);
		return -ENOMEM;
	}
	return 0;
}

static void ob_owq_teardown(struct ob_run *run)
{
	struct ob_base *b = run->priv;

	/* Drains the queue first. */
	destroy_workqueue(b->wq);
	ob_base_teardown(run);
}

static int ob_owq_produce(struct ob_run *run, struct ob_item *item)
{
	struct ob_base *b = run->priv;

	INIT_WORK(&item->work, ob_owq_fn);
	queue_work(b->wq, &item->work);
	return 0;
}

const struct ob_contender ob_owq = {
	.name = "owq",
	.setup = ob_owq_setup,
	.teardown = ob_owq_teardown,
	.produce = ob_owq_produce,
};

/* --- lock ------------------------------------------------------------ */

static int ob_lock_produce(struct ob_run *run, struct ob_item *item)
{
	struct ob_base *b = run->priv;

	spin_lock(&b->lock);
	ob_work(run, item);
	ob_serial(item, b->next++);
	spin_unlock(&b->lock);
	return 0;
}

const struct ob_contender ob_lock = {
	.name = "lock",
	.setup = ob_base_setup,
	.teardown = ob_base_teardown,
	.produce = ob_lock_produce,
};
