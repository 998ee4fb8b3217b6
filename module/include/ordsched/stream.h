/* SPDX-License-Identifier: GPL-2.0 */
/* ordsched: serial streams over a shared workqueue. Include <ordsched.h>. */
#ifndef _ORDSCHED_STREAM_H
#define _ORDSCHED_STREAM_H

#include <linux/list.h>
#include <linux/spinlock_types.h>
#include <linux/types.h>
#include <linux/workqueue.h>

/* ------------------------------------------------------------------------
 * Serial streams
 *
 * A stream is a FIFO of intrusive items that run one at a time, in the
 * order they were queued, on a shared workqueue: items of one stream never
 * overlap, items of different streams run in parallel. A stream has no
 * thread and no workqueue of its own; it is a few dozen bytes embedded in
 * the caller's structure, so thousands of them cost no more than their
 * items.
 *
 * Streams belong to a stream set, which names the workqueue, the drain
 * budget (after that many items a drain requeues itself, so one busy
 * stream cannot own a worker) and keeps the counters and the debugfs
 * directory shared by its streams. A NULL set is ordsched's default set:
 * ordsched's own unbound workqueue and the default budget.
 *
 * Contexts: queue and cancel in any context, hard interrupt included
 * (not NMI: they take the stream's lock); init in any context but NMI;
 * flush, destroy and the set's create and destroy in process context.
 * Items run in process context in a worker of the set's workqueue and
 * may sleep.
 * Ordering: stores before ordsched_stream_queue() are visible to the
 * item; an item sees everything the earlier items of its stream stored.
 * Lifecycle: as every part of ordsched (see <ordsched.h>): flush waits
 * for the items queued before it, killably; destroy drains.
 */

struct ordsched_stream;
struct ordsched_stream_item;
struct ordsched_stream_set;

/**
 * typedef ordsched_stream_fn - the work of one stream item
 * @item: the item passed to ordsched_stream_queue()
 *
 * Runs in process context, in a worker of the stream set's workqueue,
 * with no ordsched lock held: it may sleep, but while it does its stream
 * makes no progress (other streams do). The stream does not touch @item
 * once this function has been called: it may free @item or queue it
 * again, on this stream or another.
 */
typedef void (*ordsched_stream_fn)(struct ordsched_stream_item *item);

/**
 * struct ordsched_stream_item - one item of a stream, embedded by the caller
 * @node: the stream's link; empty while the item is not queued
 * @fn: what to run
 * @stream: the stream the item is queued on, NULL while it is not
 * @debug_stream: on a kernel with debug objects only, the stream the item
 *	is queued on, so that one freed while queued can be taken back
 *
 * Initialize with ordsched_stream_item_init(). The fields are the
 * stream's while the item is queued.
 */
struct ordsched_stream_item {
	struct list_head node;
	ordsched_stream_fn fn;
	struct ordsched_stream *stream;
#ifdef CONFIG_DEBUG_OBJECTS
	struct ordsched_stream *debug_stream;
#endif
};

/**
 * struct ordsched_stream - a serial stream, embedded by the caller
 * @lock: protects @items
 * @busy: a drain is scheduled or running (changed under @lock)
 * @items: the items queued and not started, oldest first
 * @drain: runs the items, on the set's workqueue
 * @set: the stream set
 *
 * All fields are private to ordsched. Initialize with
 * ordsched_stream_init(), tear down with ordsched_stream_destroy().
 * The whole per-stream cost is this structure: 64 bytes on x86-64
 * without lock debugging, plus 32 per queued item (in the caller's item;
 * 40 with debug objects).
 */
struct ordsched_stream {
	/* Guards @items; raw, as queueing comes from hard irqs even on RT. */
	raw_spinlock_t lock;
	bool busy;
	struct list_head items;
	struct work_struct drain;
	struct ordsched_stream_set *set;
};

/**
 * struct ordsched_stream_set_params - how to build a stream set
 * @name: names its debugfs folder, "<name>.<id>" (copied, at most 31
 *	bytes, a '/' there as '_'; NULL: the kind's name)
 * @wq: the workqueue the drains run on (NULL: ordsched's own unbound
 *	workqueue); not a BH one (WQ_BH), as items may sleep
 * @budget: most items one drain runs before it requeues itself (0: the
 *	default, 32)
 */
struct ordsched_stream_set_params {
	const char *name;
	struct workqueue_struct *wq;
	unsigned int budget;
};

/**
 * struct ordsched_stream_stats - what the streams of a set have done
 * @queued: items queued, the barriers of flushes included (destroy
 *	queues none)
 * @ran: items run, barriers included
 * @cancelled: items removed by ordsched_stream_cancel()
 * @drains: drains scheduled (a stream went from idle to busy)
 * @requeues: drains that used up the budget and requeued themselves
 */
struct ordsched_stream_stats {
	u64 queued;
	u64 ran;
	u64 cancelled;
	u64 drains;
	u64 requeues;
};

/**
 * ordsched_stream_set_create() - build a stream set
 * @params: the parameters; NULL for all defaults
 *
 * Context: process context, may sleep.
 * Return: the set, or ERR_PTR(-ENOMEM).
 */
struct ordsched_stream_set *
ordsched_stream_set_create(const struct ordsched_stream_set_params *params);

/**
 * ordsched_stream_set_destroy() - free a stream set
 * @set: the set (NULL or an ERR_PTR() is ignored)
 *
 * Every stream of the set must have been destroyed: a set that still has
 * streams is reported with a warning and leaked rather than freed under
 * them.
 *
 * Context: process context, may sleep.
 */
void ordsched_stream_set_destroy(struct ordsched_stream_set *set);

/**
 * ordsched_stream_set_get_stats() - read the counters of a stream set
 * @set: the set (NULL: the default set)
 * @stats: where to store them
 *
 * The counters are per CPU and summed here: each is exact once the set's
 * streams are idle. A drain adds the items it ran to @ran when it stops
 * or requeues, not one by one: after a flush returns, @ran may still
 * miss the items of the drain under way (the flush's barrier among
 * them); once the set's streams are destroyed it misses none.
 *
 * Context: any context.
 */
void ordsched_stream_set_get_stats(const struct ordsched_stream_set *set,
				   struct ordsched_stream_stats *stats);

/**
 * ordsched_stream_init() - prepare a stream
 * @stream: the stream, not on the stack (its drain is a work item,
 *	initialized with INIT_WORK())
 * @set: the stream set it belongs to (NULL: ordsched's default set)
 *
 * Each init counts the stream in @set until its ordsched_stream_destroy():
 * pair them one to one (an idle stream initialized again, to move it to
 * another set, is destroyed first), or ordsched_stream_set_destroy()
 * finds the set still in use.
 *
 * Context: any context but NMI.
 */
void ordsched_stream_init(struct ordsched_stream *stream,
			  struct ordsched_stream_set *set);

/**
 * ordsched_stream_destroy() - drain and tear down a stream
 * @stream: the stream
 *
 * Items still queued are run, not cancelled, including items that items
 * queue while destroy waits; destroy returns once the stream is idle and
 * its drain has let go of it (the drain's function may still be on its
 * way out, touching neither the stream nor its set). When it returns,
 * nothing runs an item of @stream and
 * nothing will: the module that owns the items may unload, and the
 * stream's memory is the caller's. To drop pending items instead, cancel
 * them first, and let those cancels return: nobody may queue or cancel
 * from outside the stream's items once destroy is called (a cancel still
 * running may use the stream and its set). Must not be called from an
 * item of @stream, nor where ordsched_stream_flush() must not be.
 *
 * Context: process context, may sleep.
 */
void ordsched_stream_destroy(struct ordsched_stream *stream);

/**
 * ordsched_stream_item_init() - prepare an item
 * @item: the item
 * @fn: what to run when the item's turn comes
 *
 * Call once before the item is first queued; an item that has run (or was
 * cancelled) may be queued again without another init.
 *
 * Context: any context.
 */
void ordsched_stream_item_init(struct ordsched_stream_item *item,
			       ordsched_stream_fn fn);

/**
 * ordsched_stream_queue() - queue an item at the end of a stream
 * @stream: the stream
 * @item: the item, initialized
 *
 * The item runs after every item queued on @stream before it, and before
 * every item queued after it, in a worker of the stream's workqueue (see
 * &typedef ordsched_stream_fn). Stores before the call are visible to the
 * item's function; also when this returns false as the item was still
 * queued: the run that follows sees them, as with queue_work().
 *
 * As with queue_work(), an item still queued, on this stream or another,
 * is left where it is: of queueings of one item that race, on one stream
 * or several, one queues it. Once the item has started (or was
 * cancelled) it may be queued again, on any stream.
 *
 * Context: any context, hard interrupt included; not NMI.
 * Return: true, or false if @item was already queued.
 */
bool ordsched_stream_queue(struct ordsched_stream *stream,
			   struct ordsched_stream_item *item);

/**
 * ordsched_stream_cancel() - remove an item that has not started
 * @stream: the stream
 * @item: an item, initialized
 *
 * Either the item is removed before it started, and this returns true and
 * the item will not run, or it has started (or run, or was never queued,
 * or is queued on another stream, where it stays), and this returns
 * false. An item is never both run and reported
 * cancelled. Cancel does not wait for a running item.
 *
 * Context: any context, hard interrupt included; not NMI.
 * Return: true if the item was removed.
 */
bool ordsched_stream_cancel(struct ordsched_stream *stream,
			    struct ordsched_stream_item *item);

/**
 * ordsched_stream_flush() - wait until the items queued so far have run
 * @stream: the stream
 *
 * Queues a barrier item and waits for it: every item queued before the
 * call has run (or was cancelled) when this returns 0. Items queued later
 * are not waited for. An idle stream returns at once. The wait is
 * killable: an item that never returns would otherwise hold the caller
 * forever. Must not be called from an item of @stream, nor from an item of
 * another stream whose drain holds what @stream's drain waits for (the
 * only worker of an ordered @wq, or the last of its max_active): the
 * barrier would wait behind the caller.
 *
 * Context: process context, may sleep.
 * Return: 0, or -EINTR if a fatal signal came first (the barrier is then
 * withdrawn or waited for; earlier items may still be pending).
 */
int ordsched_stream_flush(struct ordsched_stream *stream);

#endif /* _ORDSCHED_STREAM_H */
