/* SPDX-License-Identifier: GPL-2.0 */
/* ordsched: the hrtimer delayed scheduler. Include <ordsched.h>. */
#ifndef _ORDSCHED_DELAY_H
#define _ORDSCHED_DELAY_H

#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/timerqueue.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <ordsched/stream.h>

/* ------------------------------------------------------------------------
 * The delayed scheduler
 *
 * "Run this task d nanoseconds from now", for many thousands of pending
 * tasks at nanosecond resolution. A scheduler keeps its tasks ordered by
 * deadline and arms one hrtimer at the earliest; when it fires, a work
 * item hands every task that is due to the task's target in one batch:
 *
 *	a workqueue	the task runs as a work item of its own;
 *	a serial stream	the task is queued on the stream when it is due, so
 *			it keeps the stream's order relative to the stream's
 *			other items (the RxJava delayed-schedule case).
 *
 * Guarantees: a task is never handed over before CLOCK_MONOTONIC reaches
 * its deadline (except by ordsched_delay_stop() in RUN mode, which runs
 * everything at once); every queueing is run exactly once or reported
 * cancelled exactly once; tasks with the same deadline are handed over in
 * queueing order, so on an ordered workqueue or on one stream they run
 * in that order.
 *
 * Contexts: queue and cancel in any context, hard interrupt included; task
 * init in any context; flush, stop, create and destroy in process context.
 * Tasks run in their target's context: process context, in a worker.
 * Ordering: stores before ordsched_delay_queue() are visible to the task.
 * Lifecycle: as every part of ordsched (see <ordsched.h>): flush waits for
 * the tasks queued before it, killably, deadlines kept; destroy cancels
 * the pending tasks (reporting each to @cancelled) and waits for those
 * handed over.
 */

struct ordsched_delay;
struct ordsched_delay_task;

/**
 * typedef ordsched_delay_fn - the work of one delayed task
 * @task: the task that is due
 *
 * Runs in the target's context: process context for both a workqueue and
 * a stream, so it may sleep (holding up the tasks behind it on an ordered
 * workqueue or on its stream). The task is the caller's again when this
 * function is called: it may free the task or queue it again.
 */
typedef void (*ordsched_delay_fn)(struct ordsched_delay_task *task);

/**
 * struct ordsched_delay_task - one delayed task, embedded by the caller
 * @node: its place in the deadline order; @node.expires is the deadline
 * @link: its place in a batch being cancelled by a stop
 * @seq: queueing number, unique per scheduler
 * @fn: what to run
 * @delay: the scheduler it was last queued to
 * @state: idle, pending or handed over
 * @color: the flush generation it was queued in
 * @target: workqueue or stream
 * @wq: the workqueue target: @wq.work runs the task on @wq.wq
 * @stream: the stream target: @stream.item runs the task on
 *	@stream.stream
 *
 * Initialize with ordsched_delay_task_init() or
 * ordsched_delay_task_init_stream(). All fields are private to ordsched;
 * read the deadline with ordsched_delay_task_deadline().
 */
struct ordsched_delay_task {
	struct timerqueue_node node;
	struct list_head link;
	u64 seq;
	ordsched_delay_fn fn;
	struct ordsched_delay *delay;
	u8 state;
	u8 color;
	u8 target;
	union {
		struct {
			struct work_struct work;
			struct workqueue_struct *wq;
		} wq;
		struct {
			struct ordsched_stream_item item;
			struct ordsched_stream *stream;
		} stream;
	};
};

/**
 * enum ordsched_delay_stop_mode - what ordsched_delay_stop() does with
 *	pending tasks
 * @ORDSCHED_DELAY_RUN_PENDING: hand them all over now, deadlines ignored
 * @ORDSCHED_DELAY_CANCEL_PENDING: cancel them all, reporting each to the
 *	scheduler's @cancelled callback
 */
enum ordsched_delay_stop_mode {
	ORDSCHED_DELAY_RUN_PENDING,
	ORDSCHED_DELAY_CANCEL_PENDING,
};

/**
 * struct ordsched_delay_params - how to build a delayed scheduler
 * @name: shown in debugfs and tracepoints (copied; may be NULL)
 * @slack_ns: how late the timer may fire to share a wake-up with other
 *	timers and to gather nearby deadlines into one batch (0: exact)
 * @cancelled: called, in process context, for each task that
 *	ordsched_delay_stop() or ordsched_delay_destroy() cancels; the task
 *	is the caller's again (may be NULL)
 */
struct ordsched_delay_params {
	const char *name;
	u64 slack_ns;
	void (*cancelled)(struct ordsched_delay_task *task);
};

#define ORDSCHED_DELAY_LATE_BUCKETS 40

/**
 * struct ordsched_delay_stats - what a delayed scheduler has done
 * @queued: tasks accepted by ordsched_delay_queue() and _queue_at()
 * @pending: tasks waiting for their deadline now
 * @peak_pending: the most that ever waited at once
 * @inflight: tasks queued and neither finished nor cancelled
 * @expiries: times the hrtimer fired
 * @batches: passes of the dispatch work that handed tasks over
 * @dispatched: tasks handed over to their target
 * @max_batch: the most tasks one pass handed over
 * @rearms: times the hrtimer was started for an earlier deadline
 * @cancels: tasks cancelled, by ordsched_delay_cancel() or by a stop
 * @cancels_handed: of those, tasks taken back from their target
 * @ran: tasks whose function returned
 * @run_early: tasks run before their deadline by a stop in RUN mode
 * @late: lateness (from deadline to start) of the other tasks: entry 0
 *	counts those late by 0 ns, entry i >= 1 those late by [2^(i-1), 2^i)
 *	ns; the last entry takes everything later
 */
struct ordsched_delay_stats {
	u64 queued;
	u64 pending;
	u64 peak_pending;
	u64 inflight;
	u64 expiries;
	u64 batches;
	u64 dispatched;
	u64 max_batch;
	u64 rearms;
	u64 cancels;
	u64 cancels_handed;
	u64 ran;
	u64 run_early;
	u64 late[ORDSCHED_DELAY_LATE_BUCKETS];
};

struct ordsched_delay *
ordsched_delay_create(const struct ordsched_delay_params *params);
void ordsched_delay_destroy(struct ordsched_delay *d);
void ordsched_delay_task_init(struct ordsched_delay_task *task,
			      ordsched_delay_fn fn,
			      struct workqueue_struct *wq);
void ordsched_delay_task_init_stream(struct ordsched_delay_task *task,
				     ordsched_delay_fn fn,
				     struct ordsched_stream *stream);
bool ordsched_delay_queue_at(struct ordsched_delay *d,
			     struct ordsched_delay_task *task, u64 when_ns);
bool ordsched_delay_cancel(struct ordsched_delay *d,
			   struct ordsched_delay_task *task);
int ordsched_delay_flush(struct ordsched_delay *d);
void ordsched_delay_stop(struct ordsched_delay *d,
			 enum ordsched_delay_stop_mode mode);
void ordsched_delay_get_stats(struct ordsched_delay *d,
			      struct ordsched_delay_stats *stats);

/**
 * ordsched_delay_queue() - run a task after a delay
 * @d: the scheduler
 * @task: the task, initialized
 * @delay_ns: nanoseconds from now; a deadline beyond KTIME_MAX is clamped
 *	to KTIME_MAX (never due; ordsched_delay_stop() still ends it)
 *
 * As ordsched_delay_queue_at() for now + @delay_ns: the task is handed to
 * its target once CLOCK_MONOTONIC has reached that time, never before.
 *
 * Context: any context, hard interrupt included.
 * Return: true, or false if the task is already queued or the scheduler is
 * stopped (see ordsched_delay_queue_at()).
 */
static inline bool ordsched_delay_queue(struct ordsched_delay *d,
					struct ordsched_delay_task *task,
					u64 delay_ns)
{
	u64 now = ktime_get_ns();

	return ordsched_delay_queue_at(d, task, delay_ns > KTIME_MAX - now ?
					       KTIME_MAX : now + delay_ns);
}

/**
 * ordsched_delay_task_deadline() - the deadline of a task's last queueing
 * @task: the task
 *
 * Context: any context.
 * Return: absolute CLOCK_MONOTONIC nanoseconds, KTIME_MAX if clamped.
 */
static inline u64 ordsched_delay_task_deadline(const struct ordsched_delay_task *task)
{
	return task->node.expires;
}

#endif /* _ORDSCHED_DELAY_H */
