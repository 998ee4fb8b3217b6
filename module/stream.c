// SPDX-License-Identifier: GPL-2.0
/*
 * Serial streams: FIFO streams of intrusive items multiplexed over a shared
 * workqueue, at most one drain per stream, no thread per stream.
 *
 * Each stream keeps its items on a list under a raw spinlock (interrupts
 * off, and raw so that hard interrupts may queue even on PREEMPT_RT; the
 * critical sections are a few pointer updates; cancel must unlink an item
 * from the middle, which rules out a lock-free stack) and one flag, busy:
 * a drain is scheduled or running. Both change only under the lock. A
 * queueing adds its item and, if the stream was not busy, makes it busy
 * and schedules the drain. The drain takes the items one at a time under
 * the lock, and the pop that finds the list empty clears busy in the same
 * critical section. This closes the classic race between the drain
 * running its last item and a new queueing: the queueing takes the lock
 * either before that pop, which then finds its item, or after it, and
 * then finds the stream idle and schedules a new drain. Only a queueing
 * that finds the stream idle schedules, and only the drain makes it idle,
 * so there is never more than one drain. (A counter of queueings, which
 * the drain subtracted once it had seen the list empty, did the same
 * lock-free; but cancels never gave their count back, so 2^32
 * queue-and-cancel pairs during one long item wrapped it to 0 and a
 * flush returned with the item still running.)
 *
 * Fairness: after budget items a drain that still sees items requeues
 * itself at the back of the workqueue, with busy left set so nobody else
 * schedules one meanwhile: one busy stream cannot own a worker.
 *
 * Cancel unlinks an item that has not started; busy is the drain's to
 * clear.
 *
 * Flush queues a barrier item and waits for it to run. Destroy queues
 * nothing: it waits for busy to clear, and the drain that clears it wakes
 * it, so no interleaving of the two can keep destroy looking.
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
#include <linux/wait_bit.h>
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
		  "queued", "ran", "cancelled", "drains", "requeues");

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

/*
 * Take the oldest item, and its function in *@fn: read while the item is
 * still ours, before it can be queued again, run elsewhere and freed.
 * NULL when there is none: the stream is idle from now on (the drain's
 * @ran items counted first, so that the stats are exact once it is, as
 * stream.h says); or when @budget_spent and there is one (*@more): the
 * stream stays busy.
 */
static struct ordsched_stream_item *stream_pop(struct ordsched_stream *stream,
					       bool budget_spent, bool *more,
					       unsigned int ran,
					       ordsched_stream_fn *fn)
{
	struct ordsched_stream_set *set = stream->set;
	struct ordsched_stream_item *item;

	raw_spin_lock_irq(&stream->lock);
	item = list_first_entry_or_null(&stream->items,
					struct ordsched_stream_item, node);
	*more = item && budget_spent;
	if (!item) {
		this_cpu_add(set->stats->ran, ran);
		/*
		 * Idle: after the items ran. Pairs with the acquire in
		 * ordsched_stream_flush() and _destroy(): their work is seen.
		 */
		smp_store_release(&stream->busy, false);
	} else if (*more) {
		this_cpu_add(set->stats->ran, ran);
		item = NULL;
	} else {
		*fn = item->fn;
		list_del_init(&item->node);
		stream_item_debug_deactivate(item);
		/*
		 * Started: it may be queued again, here or elsewhere. Unlinked
		 * first: pairs with the claim in stream_queue().
		 */
		smp_store_release(&item->stream, NULL);
		/*
		 * Before the function reads anything: pairs with the
		 * smp_mb() of a queueing that found the item still queued.
		 * Either it sees the item free and queues it again, or the
		 * stores it made before its call are seen by this run, as
		 * queue_work() promises when it returns false.
		 */
		smp_mb();
	}
	raw_spin_unlock_irq(&stream->lock);
	return item;
}

static void stream_drain_fn(struct work_struct *work)
{
	struct ordsched_stream *stream = container_of(work, struct ordsched_stream,
						      drain);
	struct ordsched_stream_set *set = stream->set;
	unsigned int id = set->inst.id, n = 0;
	struct ordsched_stream_item *item;
	ordsched_stream_fn fn;
	bool more;

	ordsched_fn_enter();
	while ((item = stream_pop(stream, n == set->budget, &more, n, &fn))) {
		trace_ordsched_stream_run(id, stream, item);
		fn(item);
		n++;
	}
	if (more) {
		/* busy stays set: we are still the one drain. */
		this_cpu_inc(set->stats->requeues);
		queue_work(set->wq, &stream->drain);
	} else {
		/*
		 * Idle: from the unlock in stream_pop() on, a destroy may
		 * free the stream and then its set, so nothing of either is
		 * touched here: wake_up_var() only hashes the address. The
		 * barrier orders the clearing of busy before the wait queue
		 * check, as wait_var_event() needs.
		 */
		smp_mb();
		wake_up_var(&stream->busy);
	}
	trace_ordsched_stream_drain(id, stream, n, more);
	ordsched_fn_leave();
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
 * The claim of @item for @stream: one queueing wins, whatever stream each
 * names. Fully ordered: the previous start's unlinking (release) came
 * before. Out of line, so that a test can hold a queueing right after its
 * claim (stream_test.c, refused_then_queued).
 */
static noinline bool stream_claim(struct ordsched_stream *stream,
				  struct ordsched_stream_item *item)
{
	while (cmpxchg(&item->stream, NULL, stream)) {
		/*
		 * Queued already, as the claim saw it; a failed cmpxchg
		 * orders nothing. Look again after a full barrier, which
		 * pairs with the one after a start's unlinking in
		 * stream_pop(): still queued, that start comes later and
		 * sees our stores; started meanwhile, claim again.
		 */
		smp_mb();
		if (READ_ONCE(item->stream))
			return false;
	}
	return true;
}

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
	 * Claimed and linked in one critical section: an item found claimed
	 * on this stream is on its list, ahead of whatever the finder queues
	 * next, and the stream is busy (a flush sees it). Claimed first and
	 * locked after, a queueing preempted in between left an item that
	 * a refused queueing took for queued, behind the next items and
	 * unseen by a flush.
	 */
	raw_spin_lock_irqsave(&stream->lock, flags);
	if (!stream_claim(stream, item)) {
		raw_spin_unlock_irqrestore(&stream->lock, flags);
		return false;
	}
	stream_item_debug_activate(stream, item, track);
	list_add_tail(&item->node, &stream->items);
	this_cpu_inc(set->stats->queued);
	trace_ordsched_stream_queue(set->inst.id, stream, item);
	/*
	 * Under the lock, as everything here that touches the stream: the
	 * item cannot start before we unlock, and once it has, its function
	 * may end the stream's life (destroy, free) while we would still be
	 * in here. queue_work() orders the item's adding before the drain.
	 */
	if (!stream->busy) {
		WRITE_ONCE(stream->busy, true);
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
	 * Ours, and so on our list: a queueing claims and links under our
	 * lock. The acquire pairs with the claim's cmpxchg, which read the
	 * release of the item's last start: its unlinking from the list it
	 * was on then is seen below, not a stale link into another stream's
	 * list.
	 */
	removed = smp_load_acquire(&item->stream) == stream &&
		  !list_empty(&item->node);
	if (removed) {
		list_del_init(&item->node);
		stream_item_debug_deactivate(item);
		/*
		 * Counted under the lock, as queued is: a stream idle once
		 * it is dropped, and destroyed, then reads queued == ran +
		 * cancelled (ran is added by the drain as it stops).
		 */
		this_cpu_inc(set->stats->cancelled);
		/* Unlinked first: pairs with the claim in stream_queue(). */
		smp_store_release(&item->stream, NULL);
	}
	raw_spin_unlock_irqrestore(&stream->lock, flags);
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
 * Idle only once a drain has seen the list empty after every queueing so
 * far.
 */
static bool stream_idle(struct ordsched_stream *stream)
{
	/* Pairs with the release in stream_pop(): the items' work is seen. */
	return !smp_load_acquire(&stream->busy);
}

int ordsched_stream_flush(struct ordsched_stream *stream)
{
	struct stream_barrier barrier;

	might_sleep();
	if (stream_idle(stream))
		return 0;
	/* A barrier: once it has run, so has every item queued before. */
	init_completion(&barrier.done);
	ordsched_stream_item_init(&barrier.item, stream_barrier_fn);
	ordsched_stream_queue(stream, &barrier.item);
	if (!wait_for_completion_killable(&barrier.done))
		return 0;
	/* Take the barrier back; one that has started ends at once. */
	if (!ordsched_stream_cancel(stream, &barrier.item))
		wait_for_completion(&barrier.done);
	return -EINTR;
}
EXPORT_SYMBOL_GPL(ordsched_stream_flush);

void ordsched_stream_init(struct ordsched_stream *stream,
			  struct ordsched_stream_set *set)
{
	raw_spin_lock_init(&stream->lock);
	stream->busy = false;
	INIT_LIST_HEAD(&stream->items);
	INIT_WORK(&stream->drain, stream_drain_fn);
	stream->set = set ?: &stream_default_set;
	atomic_inc(&stream->set->streams);
}
EXPORT_SYMBOL_GPL(ordsched_stream_init);

void ordsched_stream_destroy(struct ordsched_stream *stream)
{
	unsigned int waited = 0;

	might_sleep();
	/*
	 * Wait for idle, queueing nothing: a barrier per look would keep a
	 * destroy that preempts the drain's worker (a higher priority on
	 * its CPU) looking forever, each barrier waking it before the
	 * drain could see the list empty. A timed wait: not a hung task
	 * while the log says why.
	 */
	while (!wait_var_event_timeout(&stream->busy, stream_idle(stream),
				       HZ)) {
		if (++waited % ORDSCHED_DESTROY_WARN_SECS == 0)
			pr_warn("destroying a stream of set %s: an item has not returned after %u s\n",
				stream->set->inst.name, waited);
	}
	/*
	 * Idle: the last drain cleared busy under the lock, and may still
	 * hold it. Once it has let go, it touches neither the stream nor
	 * its set (stream_drain_fn()). Not cancel_work_sync(): that waits
	 * for the drain's function to return, and tells lockdep that we
	 * wait for a work of the class every stream's drain shares, which
	 * an item of another stream, allowed to destroy this one, runs in.
	 */
	raw_spin_lock_irq(&stream->lock);
	raw_spin_unlock_irq(&stream->lock);
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
	if (stream_set_init(set, p->name)) {
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
