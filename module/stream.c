// SPDX-License-Identifier: GPL-2.0
/*
 * Serial streams: FIFO streams of intrusive items multiplexed over a shared
 * workqueue, at most one drain per stream, no thread per stream.
 *
 * Each stream keeps its items on a list under a raw spinlock (interrupts
 * off, and raw so that hard interrupts may queue even on PREEMPT_RT; the
 * critical sections are a few pointer updates; cancel must unlink an item
 * from the middle, which rules out a lock-free stack) and one counter,
 * wip, the work in progress. Every queueing adds its item to the list and
 * then increments wip; the one that takes wip from 0 to 1 schedules the
 * drain. The drain remembers how much of wip it has accounted for
 * ("missed"), empties the list, and subtracts that amount: if the result
 * is 0 no queueing happened since it last looked, and it leaves; otherwise
 * it looks again. This closes the classic race between the drain running
 * its last item and a new queueing: either the queueing's increment comes
 * before the subtraction, and the drain sees a non-zero result and goes
 * around again (counted as a "recheck"), or it comes after, and it finds
 * wip at 0 and schedules a new drain. Only a 0 -> 1 transition schedules,
 * and only a result of 0 ends a drain, so there is never more than one.
 *
 * Fairness: after budget items a drain that still sees items requeues
 * itself at the back of the workqueue, with wip left non-zero so nobody
 * else schedules one meanwhile: one busy stream cannot own a worker.
 *
 * Cancel unlinks an item that has not started. It does not touch wip: the
 * drain only ever trusts the list, and wip only says whether to look.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/debugobjects.h>
#include <linux/err.h>
#include <linux/percpu.h>
#include <linux/sched/task_stack.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <ordsched.h>

#include "internal.h"
#include "trace.h"

#define STREAM_DEFAULT_BUDGET	32

struct ordsched_stream_set {
	struct workqueue_struct *wq;
	unsigned int budget;
	/* Streams initialized on this set and not yet destroyed. */
	atomic_t streams;
	/* Name, id, counters, debugfs; @stats is its counters, typed. */
	struct ordsched_instance inst;
	struct ordsched_stream_stats __percpu *stats;
};

ORDSCHED_COUNTERS(stream_counters, struct ordsched_stream_stats, 0,
		  "queued", "ran", "cancelled", "drains", "requeues",
		  "rechecks");

/* The set of streams initialized with a NULL set; see stream_default_init(). */
static struct ordsched_stream_set stream_default_set = {
	.budget = STREAM_DEFAULT_BUDGET,
};

#ifdef CONFIG_DEBUG_OBJECTS
/*
 * Debug objects: an item is tracked from its queueing until it starts or
 * is cancelled, and only then, so that an item that is not queued is plain
 * memory, on the stack or anywhere else, with no destroy to call. One
 * freed while queued is reported on a debug kernel and cancelled first:
 * cancel takes a raw spinlock with interrupts saved, which is safe in any
 * context memory can be freed in, and the free never comes from under the
 * stream's lock, which only ordsched holds. A double queue is not
 * reported: it is defined, ordsched_stream_queue() returns false as
 * queue_work() does. The items of delay tasks are not tracked here but as
 * their task (see delay.c), whose fixup takes the item back through the
 * task and so keeps the task's accounting right.
 */
static const struct debug_obj_descr stream_item_debug_descr;

static bool stream_item_fixup_free(void *addr, enum debug_obj_state state)
{
	struct ordsched_stream_item *item = addr;

	/*
	 * Active means queued: both change under the stream's lock. If
	 * cancel finds the item gone, it has started and is inactive, so
	 * debug objects do not come back to it.
	 */
	return state == ODEBUG_STATE_ACTIVE &&
	       ordsched_stream_cancel(item->debug_stream, item);
}

static const struct debug_obj_descr stream_item_debug_descr = {
	.name		= "ordsched_stream_item",
	.fixup_free	= stream_item_fixup_free,
};

/* @item is being queued on @stream, under its lock. */
static void stream_item_debug_activate(struct ordsched_stream *stream,
				       struct ordsched_stream_item *item,
				       bool track)
{
	item->debug_stream = track ? stream : NULL;
	if (!track)
		return;
	if (object_is_on_stack(item))
		debug_object_init_on_stack(item, &stream_item_debug_descr);
	else
		debug_object_init(item, &stream_item_debug_descr);
	debug_object_activate(item, &stream_item_debug_descr);
}

/* @item left its stream, under the stream's lock: no longer tracked. */
static void stream_item_debug_deactivate(struct ordsched_stream_item *item)
{
	if (!item->debug_stream)
		return;
	debug_object_deactivate(item, &stream_item_debug_descr);
	debug_object_free(item, &stream_item_debug_descr);
}
#else
static inline void stream_item_debug_activate(struct ordsched_stream *stream,
					      struct ordsched_stream_item *item,
					      bool track)
{
}

static inline void stream_item_debug_deactivate(struct ordsched_stream_item *item)
{
}
#endif

/* Take the oldest item; NULL if there is none or the budget is spent. */
static struct ordsched_stream_item *stream_pop(struct ordsched_stream *stream,
					       bool budget_spent, bool *more)
{
	struct ordsched_stream_item *item;

	raw_spin_lock_irq(&stream->lock);
	item = list_first_entry_or_null(&stream->items,
					struct ordsched_stream_item, node);
	*more = item && budget_spent;
	if (*more) {
		item = NULL;
	} else if (item) {
		list_del_init(&item->node);
		stream_item_debug_deactivate(item);
		/*
		 * Started: it may be queued again, here or elsewhere. Unlinked
		 * first: pairs with the claim in stream_queue().
		 */
		smp_store_release(&item->stream, NULL);
	}
	raw_spin_unlock_irq(&stream->lock);
	return item;
}

static void stream_drain_fn(struct work_struct *work)
{
	struct ordsched_stream *stream = container_of(work, struct ordsched_stream,
						      drain);
	struct ordsched_stream_set *set = stream->set;
	struct ordsched_stream_item *item;
	unsigned int n = 0, counted = 0;
	bool more;
	int missed;

	/*
	 * Account for the queueings seen so far. The acquire pairs with the
	 * fully ordered atomic_inc_return() in ordsched_stream_queue(): the
	 * items those queueings added are on the list when we look below.
	 */
	missed = atomic_read_acquire(&stream->wip);
	for (;;) {
		item = stream_pop(stream, n == set->budget, &more);
		if (item) {
			trace_ordsched_stream_run(set->inst.id, stream, item);
			item->fn(item);
			n++;
			continue;
		}
		/*
		 * Counted before the stream may go idle: the stats are
		 * exact once it is (stream.h).
		 */
		this_cpu_add(set->stats->ran, n - counted);
		counted = n;
		if (more) {
			/* wip stays non-zero: we are still the one drain. */
			this_cpu_inc(set->stats->requeues);
			queue_work(set->wq, &stream->drain);
			break;
		}
		/*
		 * Fully ordered: the list was seen empty before the
		 * subtraction. Pairs with the increment in
		 * ordsched_stream_queue(): if it came first, the result is
		 * non-zero and we look again; if not, that queueing sees 0
		 * and schedules the next drain.
		 */
		missed = atomic_sub_return(missed, &stream->wip);
		if (!missed)
			break;
		this_cpu_inc(set->stats->rechecks);
	}
	trace_ordsched_stream_drain(set->inst.id, stream, n, more);
}

void ordsched_stream_item_init(struct ordsched_stream_item *item,
			       ordsched_stream_fn fn)
{
	INIT_LIST_HEAD(&item->node);
	item->fn = fn;
	item->stream = NULL;
}
EXPORT_SYMBOL_GPL(ordsched_stream_item_init);

/*
 * Queue @item; @track: whether debug objects track it as a stream item
 * (not the items of delay tasks, tracked as their task).
 */
static bool stream_queue(struct ordsched_stream *stream,
			 struct ordsched_stream_item *item, bool track)
{
	struct ordsched_stream_set *set = stream->set;
	unsigned long flags;

	/*
	 * The claim: one queueing wins, whatever stream each names. Fully
	 * ordered: the previous start's unlinking (release) came before.
	 */
	if (cmpxchg(&item->stream, NULL, stream))
		return false;
	raw_spin_lock_irqsave(&stream->lock, flags);
	stream_item_debug_activate(stream, item, track);
	list_add_tail(&item->node, &stream->items);
	this_cpu_inc(set->stats->queued);
	trace_ordsched_stream_queue(set->inst.id, stream, item);
	/*
	 * Fully ordered, after the item was added. Pairs with the acquire
	 * and the atomic_sub_return() in stream_drain_fn(). Under the lock,
	 * as everything here that touches the stream: the item cannot start
	 * before we unlock, and once it has, its function may end the
	 * stream's life (destroy, free) while we would still be in here.
	 */
	if (atomic_inc_return(&stream->wip) == 1) {
		this_cpu_inc(set->stats->drains);
		queue_work(set->wq, &stream->drain);
	}
	raw_spin_unlock_irqrestore(&stream->lock, flags);
	return true;
}

/* For delay.c: a delay task's item, which debug objects track as the task. */
bool ordsched_stream_queue_untracked(struct ordsched_stream *stream,
				     struct ordsched_stream_item *item)
{
	return stream_queue(stream, item, false);
}

bool ordsched_stream_queue(struct ordsched_stream *stream,
			   struct ordsched_stream_item *item)
{
	return stream_queue(stream, item, true);
}
EXPORT_SYMBOL_GPL(ordsched_stream_queue);

bool ordsched_stream_cancel(struct ordsched_stream *stream,
			    struct ordsched_stream_item *item)
{
	struct ordsched_stream_set *set = stream->set;
	unsigned long flags;
	bool removed;

	raw_spin_lock_irqsave(&stream->lock, flags);
	/*
	 * Ours and on our list. Claimed but not on it yet: the queueing
	 * has not taken our lock, and comes after this cancel. The acquire
	 * pairs with the claim's cmpxchg, which read the release of the
	 * item's last start: its unlinking from the list it was on then is
	 * seen below, not a stale link into another stream's list.
	 */
	removed = smp_load_acquire(&item->stream) == stream &&
		  !list_empty(&item->node);
	if (removed) {
		list_del_init(&item->node);
		stream_item_debug_deactivate(item);
		/* Unlinked first: pairs with the claim in stream_queue(). */
		smp_store_release(&item->stream, NULL);
	}
	raw_spin_unlock_irqrestore(&stream->lock, flags);
	if (removed)
		this_cpu_inc(set->stats->cancelled);
	trace_ordsched_stream_cancel(set->inst.id, stream, item, removed);
	return removed;
}
EXPORT_SYMBOL_GPL(ordsched_stream_cancel);

struct stream_barrier {
	struct ordsched_stream_item item;
	struct completion done;
};

static void stream_barrier_fn(struct ordsched_stream_item *item)
{
	complete(&container_of(item, struct stream_barrier, item)->done);
}

/*
 * Queue a barrier and wait until it has run: every item queued before it
 * has run or was cancelled. Killable for flush; for destroy, which cannot
 * fail, as long as it takes, saying so in the log.
 */
static int stream_barrier(struct ordsched_stream *stream, bool killable)
{
	struct stream_barrier barrier;
	unsigned int waited = 0;

	init_completion(&barrier.done);
	ordsched_stream_item_init(&barrier.item, stream_barrier_fn);
	ordsched_stream_queue(stream, &barrier.item);
	if (killable) {
		if (!wait_for_completion_killable(&barrier.done))
			return 0;
		/* Take the barrier back; one that has started ends at once. */
		if (!ordsched_stream_cancel(stream, &barrier.item))
			wait_for_completion(&barrier.done);
		return -EINTR;
	}
	/* A timed wait: not a hung task while the log says why. */
	while (!wait_for_completion_timeout(&barrier.done, HZ)) {
		if (++waited % ORDSCHED_DESTROY_WARN_SECS == 0)
			pr_warn("destroying a stream of set %s: an item has not returned after %u s\n",
				stream->set->inst.name, waited);
	}
	return 0;
}

int ordsched_stream_flush(struct ordsched_stream *stream)
{
	might_sleep();
	/*
	 * wip is 0 only once a drain has seen the list empty after every
	 * queueing so far. The acquire pairs with the fully ordered
	 * atomic_sub_return() in stream_drain_fn(): the items' work is seen.
	 */
	if (!atomic_read_acquire(&stream->wip))
		return 0;
	return stream_barrier(stream, true);
}
EXPORT_SYMBOL_GPL(ordsched_stream_flush);

void ordsched_stream_init(struct ordsched_stream *stream,
			  struct ordsched_stream_set *set)
{
	raw_spin_lock_init(&stream->lock);
	atomic_set(&stream->wip, 0);
	INIT_LIST_HEAD(&stream->items);
	INIT_WORK(&stream->drain, stream_drain_fn);
	stream->set = set ?: &stream_default_set;
	atomic_inc(&stream->set->streams);
}
EXPORT_SYMBOL_GPL(ordsched_stream_init);

void ordsched_stream_destroy(struct ordsched_stream *stream)
{
	might_sleep();
	/* The acquire pairs with the drain's fully ordered subtraction. */
	while (atomic_read_acquire(&stream->wip))
		stream_barrier(stream, false);
	/*
	 * Idle: the last drain may still be on its way out of
	 * stream_drain_fn(); wait until it has left.
	 */
	cancel_work_sync(&stream->drain);
	atomic_dec(&stream->set->streams);
}
EXPORT_SYMBOL_GPL(ordsched_stream_destroy);

void ordsched_stream_set_get_stats(const struct ordsched_stream_set *set,
				   struct ordsched_stream_stats *stats)
{
	set = set ?: &stream_default_set;
	ordsched_instance_sum(&set->inst, (u64 *)stats);
}
EXPORT_SYMBOL_GPL(ordsched_stream_set_get_stats);

/* The lines of the debugfs "stats" file before the counters. */
static void stream_show(struct seq_file *m, struct ordsched_instance *inst)
{
	struct ordsched_stream_set *set =
		container_of(inst, struct ordsched_stream_set, inst);

	seq_printf(m, "streams: %d\nbudget: %u\nstream_bytes: %zu\n",
		   atomic_read(&set->streams), set->budget,
		   sizeof(struct ordsched_stream));
}

static int stream_set_init(struct ordsched_stream_set *set, const char *name)
{
	int ret = ordsched_instance_init(&set->inst, ORDSCHED_KIND_STREAM, name,
					 &stream_counters, stream_show);

	set->stats = set->inst.stats;
	return ret;
}

struct ordsched_stream_set *
ordsched_stream_set_create(const struct ordsched_stream_set_params *params)
{
	static const struct ordsched_stream_set_params defaults;
	const struct ordsched_stream_set_params *p = params ?: &defaults;
	struct ordsched_stream_set *set;

	set = kzalloc(sizeof(*set), GFP_KERNEL);
	if (!set)
		return ERR_PTR(-ENOMEM);
	set->wq = p->wq ?: ordsched_wq;
	set->budget = p->budget ?: STREAM_DEFAULT_BUDGET;
	atomic_set(&set->streams, 0);
	if (stream_set_init(set, p->name ?: "streams")) {
		kfree(set);
		return ERR_PTR(-ENOMEM);
	}
	return set;
}
EXPORT_SYMBOL_GPL(ordsched_stream_set_create);

void ordsched_stream_set_destroy(struct ordsched_stream_set *set)
{
	if (IS_ERR_OR_NULL(set))
		return;
	if (WARN(atomic_read(&set->streams),
		 "ordsched: stream set %s destroyed with %d streams\n",
		 set->inst.name, atomic_read(&set->streams)))
		return;
	ordsched_instance_exit(&set->inst);
	kfree(set);
}
EXPORT_SYMBOL_GPL(ordsched_stream_set_destroy);

/* Module init: the default set runs on ordsched's workqueue. */
int ordsched_stream_default_init(void)
{
	stream_default_set.wq = ordsched_wq;
	return stream_set_init(&stream_default_set, "default");
}

void ordsched_stream_default_exit(void)
{
	WARN_ON(atomic_read(&stream_default_set.streams));
	ordsched_instance_exit(&stream_default_set.inst);
}
