// SPDX-License-Identifier: GPL-2.0
/*
 * reorder: the hand-written ticket sequencer a kernel engineer would write
 * instead of ordsched's seq, with the same shape: the producer takes a
 * ticket (an atomic add), does the work itself, parks the item in the
 * ticket's slot of a ring, and drains: whoever holds the drain lock runs
 * the serial steps of the slots filled from the next ticket on. No
 * workqueue and no hand-off: a drainer runs as long as items come ready,
 * 64 at a time, letting go of the lock and the CPU between them: the
 * simplest code that keeps the order without holding preemption off for
 * a whole run.
 *
 * A producer whose trylock fails leaves its item to the holder, which
 * looks at the next slot again after it unlocks: the parker stores its
 * slot, then (full barrier) tries the lock; the holder unlocks, then (full
 * barrier) loads the slot. One of them sees the other's store.
 *
 * The ring has a slot for every item in flight: the producers' windows
 * bound those (see ob_window_get()), so a ticket's slot is always free
 * when it is taken, and no producer waits for room.
 */
#include <linux/log2.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "ordered.h"

/* Serial steps one drainer runs before it lets go of the lock. */
#define OB_REORDER_BUDGET	64

struct ob_reorder {
	atomic64_t ticket ____cacheline_aligned_in_smp;
	spinlock_t lock ____cacheline_aligned_in_smp;
	/* The next ticket to serialize: under @lock. */
	u64 next;
	unsigned long mask;
	struct ob_item **slot;
};

static int ob_reorder_setup(struct ob_run *run)
{
	unsigned long slots = roundup_pow_of_two(run->producers *
						 run->window);
	struct ob_reorder *r = kzalloc(sizeof(*r), GFP_KERNEL);

	if (!r)
		return -ENOMEM;
	r->slot = kvcalloc(slots, sizeof(*r->slot), GFP_KERNEL);
	if (!r->slot) {
		kfree(r);
		return -ENOMEM;
	}
	spin_lock_init(&r->lock);
	r->mask = slots - 1;
	run->priv = r;
	return 0;
}

static void ob_reorder_teardown(struct ob_run *run)
{
	struct ob_reorder *r = run->priv;

	kvfree(r->slot);
	kfree(r);
}

/*
 * Run the serial steps of the ready slots from r->next on. The serial
 * step gets the ticket the producer took, not the drainer's count, so
 * that its order check holds this contender to the tickets too.
 */
static void ob_reorder_drain(struct ob_reorder *r)
{
	struct ob_item *item, **slot;
	unsigned int n;

	for (;;) {
		/* Pairs with the barrier of a parker whose trylock failed. */
		smp_mb();
		if (!READ_ONCE(r->slot[READ_ONCE(r->next) & r->mask]) ||
		    !spin_trylock(&r->lock))
			return;
		for (n = 0; n < OB_REORDER_BUDGET; n++) {
			slot = &r->slot[r->next & r->mask];
			/* Pairs with the release in ob_reorder_produce(). */
			item = smp_load_acquire(slot);
			if (!item)
				break;
			WRITE_ONCE(*slot, NULL);
			WRITE_ONCE(r->next, r->next + 1);
			ob_serial(item, item->ticket);
		}
		spin_unlock(&r->lock);
		if (n == OB_REORDER_BUDGET)
			cond_resched();
	}
}

static int ob_reorder_produce(struct ob_run *run, struct ob_item *item)
{
	struct ob_reorder *r = run->priv;
	u64 t = atomic64_fetch_inc(&r->ticket);

	ob_work(run, item);
	item->ticket = t;
	/* The work's stores, then the item: for the drainer. */
	smp_store_release(&r->slot[t & r->mask], item);
	ob_reorder_drain(r);
	return 0;
}

const struct ob_contender ob_reorder = {
	.name = "reorder",
	.setup = ob_reorder_setup,
	.teardown = ob_reorder_teardown,
	.produce = ob_reorder_produce,
};
