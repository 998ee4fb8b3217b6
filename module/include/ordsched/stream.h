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
 * Contexts: queue and cancel in any context, hard interrupt included;
 * init in any context; flush, destroy and the set's create and destroy
 * in process context. Items run in process context in a worker of the
 * set's workqueue and may sleep.
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
 * @debug_stream: on a kernel with debug objects only, the stream the item
 *	is queued on, so that one freed while queued can be taken back
 *
 * Initialize with ordsched_stream_item_init(). The fields are the
 * stream's while the item is queued.
 */
struct ordsched_stream_item {
	struct list_head node;
	ordsched_stream_fn fn;
#ifdef CONFIG_DEBUG_OBJECTS
	struct ordsched_stream *debug_stream;
#endif
};

/**
 * struct ordsched_stream - a serial stream, embedded by the caller
 * @lock: protects @items
 * @wip: work in progress: queueings not yet accounted for by a drain;
 *	non-zero while a drain is scheduled or running
 * @items: the items queued and not started, oldest first
 * @drain: runs the items, on the set's workqueue
 * @set: the stream set
 *
 * All fields are private to ordsched. Initialize with
 * ordsched_stream_init(), tear down with ordsched_stream_destroy().
 * The whole per-stream cost is this structure: 64 bytes on x86-64
 * without lock debugging, plus 24 per queued item (in the caller's item;
 * 32 with debug objects).
 */
struct ordsched_stream {
	/* Guards @items; raw, as queueing comes from hard irqs even on RT. */
	raw_spinlock_t lock;
	atomic_t wip;
	struct list_head items;
	struct work_struct drain;
	struct ordsched_stream_set *set;
};

/**
 * struct ordsched_stream_set_params - how to build a stream set
 * @name: shown in debugfs and tracepoints (copied; may be NULL)
 * @wq: the workqueue the drains run on (NULL: ordsched's own unbound
 *	workqueue)
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
 * @queued: items queued, the barriers of flushes and destroys included
 * @ran: items run, barriers included
 * @cancelled: items removed by ordsched_stream_cancel()
 * @drains: drains scheduled (a stream went from idle to busy)
 * @requeues: drains that used up the budget and requeued themselves
 * @rechecks: drains that found new items after emptying their stream
 *	(the race between the last item and a new queueing, won by the drain)
 */
struct ordsched_stream_stats {
	u64 queued;
	u64 ran;
	u64 cancelled;
	u64 drains;
	u64 requeues;
	u64 rechecks;
};

struct ordsched_stream_set *
ordsched_stream_set_create(const struct ordsched_stream_set_params *params);
void ordsched_stream_set_destroy(struct ordsched_stream_set *set);
void ordsched_stream_set_get_stats(const struct ordsched_stream_set *set,
				   struct ordsched_stream_stats *stats);

void ordsched_stream_init(struct ordsched_stream *stream,
			  struct ordsched_stream_set *set);
void ordsched_stream_destroy(struct ordsched_stream *stream);
void ordsched_stream_item_init(struct ordsched_stream_item *item,
			       ordsched_stream_fn fn);
bool ordsched_stream_queue(struct ordsched_stream *stream,
			   struct ordsched_stream_item *item);
bool ordsched_stream_cancel(struct ordsched_stream *stream,
			    struct ordsched_stream_item *item);
int ordsched_stream_flush(struct ordsched_stream *stream);

#endif /* _ORDSCHED_STREAM_H */
