// SPDX-License-Identifier: GPL-2.0
/*
 * The delayed scheduler: one hrtimer, a timerqueue of deadlines, and a
 * work item that hands due tasks over to their targets in batches.
 * Lock order: d->lock, then the target's locks (workqueue pool, stream).
 *
 * Locking: d->lock protects the tree, the state of every task queued
 * to d, the timer bookkeeping and the counters. It is irq-safe because
 * the hrtimer callback takes it in hard interrupt, and raw because
 * queue and cancel may be called in hard interrupt, where a spinlock_t
 * sleeps on PREEMPT_RT. Nothing under it may sleep on RT either: it nests
 * only raw locks (hrtimer base, workqueue pool, stream), and the wake-up
 * of flushes, whose wait queue has a spinlock_t, is a work item queued
 * from under it (see delay_retire()). The hrtimer is only
 * started with the lock held, so the callback, under the lock too, can
 * tell whether somebody started it again while it ran.
 *
 * A task is in one of three states:
 *
 *	IDLE	not queued, started, or cancelled: the caller's
 *	PENDING	in the tree, waiting for its deadline
 *	HANDED	taken out of the tree and queued on its target
 *
 * PENDING becomes IDLE by a cancel or a CANCEL stop, and HANDED by the
 * dispatch work, which queues the task on its target in the same hold of
 * d->lock: there is no moment when a task is off the tree but not yet on
 * its target. HANDED becomes IDLE when the target starts the task (the
 * trampoline marks it IDLE before calling its function, which may queue
 * it again), or when a cancel, under d->lock, takes it back from the
 * target with cancel_work() or ordsched_stream_cancel(), which only
 * succeed if the target never started it. Whether the target has started
 * a task is decided under the target's own lock; everything else under
 * d->lock: each queueing ends exactly once, run or cancelled.
 *
 * Every queue_work() and cancel_work() of a task's work item happens under
 * d->lock. That is required, not a convenience: cancel_work() owns the
 * PENDING bit for a moment even when it finds nothing to cancel, and a
 * queue_work() that ran into it would return false and drop the task.
 *
 * The hard interrupt does O(1) work: it looks at the earliest deadline and
 * queues the dispatch work if it is due. The work hands due tasks over
 * DELAY_CHUNK per hold of the lock, which bounds the time with interrupts
 * off. Emptying the tree in the interrupt would be an O(n log n) loop with
 * interrupts off whenever many deadlines coincide.
 * While the dispatch work is queued or running it owns the timer: it arms
 * it for the earliest deadline left when it finishes.
 *
 * Never early: only the dispatch work decides that a task is due, by
 * comparing its deadline with ktime_get(); the timer only says when to look.
 *
 * Ties: timerqueue_add() puts a node after every node with the same expiry
 * (its comparison is a strict <), and tasks enter the tree under the lock
 * in the order of their sequence numbers, so equal deadlines leave the
 * tree in queueing order; a work item never runs concurrently with
 * itself, so the targets receive them in that order too.
 *
 * Flush uses colors, like workqueue flushes: a task takes the current
 * color when queued, inflight[color] counts queueings neither
 * finished nor cancelled, and a flush moves the color on and waits for
 * every other color to drain. It waits for exactly the tasks queued
 * before it, whatever comes later. A killed flush leaves its color still
 * draining; with four colors the next flush still has one of its own.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugobjects.h>
#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <ordsched.h>

#include "compat.h"
#include "internal.h"
#include "trace.h"

/* Tasks taken out of the tree per hold of the lock: bounds irq-off time. */
#define DELAY_CHUNK	32

#define DELAY_COLORS	4
#define DELAY_ALL_COLORS	(BIT(DELAY_COLORS) - 1)

enum delay_state {
	DELAY_IDLE,
	DELAY_PENDING,
	DELAY_HANDED,
};

enum delay_target {
	DELAY_TARGET_WQ,
	DELAY_TARGET_STREAM,
};

struct ordsched_delay {
	/* The tree, task states, timer bookkeeping, counters: see above. */
	raw_spinlock_t lock;
	struct timerqueue_head tree;
	struct hrtimer timer;
	/* The deadline the timer is armed for; KTIME_MAX when it is not. */
	ktime_t armed;
	u64 slack;
	/* The dispatch work is queued or running and will look again. */
	bool dispatching;
	/* New queueings are refused. */
	bool stopped;
	/* A RUN stop: every pending task is due now. */
	bool run_now;
	u8 color;
	u64 next_seq;
	u64 inflight[DELAY_COLORS];
	struct work_struct dispatch;
	/* Wakes @idle: wake_up() takes a spinlock_t, not under d->lock. */
	struct work_struct wake;
	wait_queue_head_t idle;
	/* Serializes flushes: each owns the color flip until drained. */
	struct mutex flush_mutex;
	void (*cancelled)(struct ordsched_delay_task *task);
	struct ordsched_delay_stats stats;
	/* Name, id, debugfs; the counters above are under d->lock. */
	struct ordsched_instance inst;
};

/*
 * Debug objects: a task is active from its queueing until it starts or is
 * cancelled. One freed or initialized again while active is reported on a
 * debug kernel and taken back first, so nothing touches its memory later.
 */
static const struct debug_obj_descr delay_task_debug_descr;
static bool delay_orphan_cancel(struct ordsched_delay *d,
				struct ordsched_delay_task *task);

static bool delay_task_fixup(void *addr, enum debug_obj_state state)
{
	struct ordsched_delay_task *task = addr;

	if (state != ODEBUG_STATE_ACTIVE)
		return false;
	if (task->delay && (ordsched_delay_cancel(task->delay, task) ||
			    delay_orphan_cancel(task->delay, task)))
		return true;
	/*
	 * Started, or not queued by ordsched at all: reported only. Left
	 * active, the free path would come back to it forever.
	 */
	debug_object_deactivate(task, &delay_task_debug_descr);
	return false;
}

static const struct debug_obj_descr delay_task_debug_descr = {
	.name		= "ordsched_delay_task",
	.fixup_init	= delay_task_fixup,
	.fixup_free	= delay_task_fixup,
};

static struct ordsched_delay_task *node_to_task(struct timerqueue_node *node)
{
	return container_of(node, struct ordsched_delay_task, node);
}

/*
 * A queueing ended, run or cancelled. When a color drains, the flushes
 * waiting for it are woken by d->wake: wake_up() takes the wait queue's
 * spinlock_t, which must not nest in the raw d->lock (it sleeps on RT),
 * and cannot simply follow the unlock either: the flush could see the
 * drain, return, and its caller free d before a late wake_up(). The work
 * item is flushed before d is freed.
 */
static void delay_retire(struct ordsched_delay *d, u8 color, u64 n)
{
	lockdep_assert_held(&d->lock);
	d->inflight[color] -= n;
	if (!d->inflight[color])
		queue_work(ordsched_wq, &d->wake);
}

static void delay_wake(struct work_struct *work)
{
	wake_up(&container_of(work, struct ordsched_delay, wake)->idle);
}

/* Are the queueings of every color in @colors (a bit mask) over? */
static bool delay_drained(struct ordsched_delay *d, unsigned int colors)
{
	bool drained = true;
	int c;

	/* Under the lock: inflight[] changes only under it. */
	raw_spin_lock_irq(&d->lock);
	for (c = 0; c < DELAY_COLORS; c++)
		if ((colors & BIT(c)) && d->inflight[c])
			drained = false;
	raw_spin_unlock_irq(&d->lock);
	return drained;
}

static void delay_arm(struct ordsched_delay *d, ktime_t expires)
{
	lockdep_assert_held(&d->lock);
	if (d->dispatching || expires >= d->armed)
		return;
	d->armed = expires;
	d->stats.rearms++;
	trace_ordsched_delay_arm(d->inst.id, expires, d->slack);
	hrtimer_start_range_ns(&d->timer, expires, d->slack, HRTIMER_MODE_ABS);
}

static void delay_kick(struct ordsched_delay *d)
{
	lockdep_assert_held(&d->lock);
	if (d->dispatching)
		return;
	d->dispatching = true;
	queue_work(ordsched_highpri_wq, &d->dispatch);
}

static enum hrtimer_restart delay_expire(struct hrtimer *timer)
{
	struct ordsched_delay *d = container_of(timer, struct ordsched_delay,
						timer);
	struct timerqueue_node *first;
	ktime_t now = ktime_get();
	unsigned long flags;
	bool due;

	raw_spin_lock_irqsave(&d->lock, flags);
	if (!hrtimer_is_queued(timer))
		d->armed = KTIME_MAX;
	d->stats.expiries++;
	first = timerqueue_getnext(&d->tree);
	due = first && first->expires <= now;
	if (due)
		delay_kick(d);
	else if (first)
		delay_arm(d, first->expires);	/* the earliest was cancelled */
	trace_ordsched_delay_expire(d->inst.id, now, d->stats.pending, due);
	raw_spin_unlock_irqrestore(&d->lock, flags);
	return HRTIMER_NORESTART;
}

/* Queue a due task on its target; from then on it may run and be freed. */
static void delay_hand_over(struct ordsched_delay *d,
			    struct ordsched_delay_task *task, ktime_t now)
{
	lockdep_assert_held(&d->lock);
	trace_ordsched_delay_dispatch(d->inst.id, task->seq, task->node.expires,
				      ktime_sub(now, task->node.expires));
	task->state = DELAY_HANDED;
	if (task->target == DELAY_TARGET_STREAM)
		ordsched_stream_queue_untracked(task->stream.stream,
						&task->stream.item);
	else
		queue_work(task->wq.wq, &task->wq.work);
}

/*
 * Hand over up to DELAY_CHUNK due tasks. The pass that finds fewer is the
 * last: it gives the timer back, armed for what is left.
 */
static unsigned int delay_dispatch_some(struct ordsched_delay *d, u64 *total)
{
	struct timerqueue_node *first = NULL;
	ktime_t now = ktime_get();
	unsigned int n = 0;

	raw_spin_lock_irq(&d->lock);
	while (n < DELAY_CHUNK && (first = timerqueue_getnext(&d->tree)) &&
	       (d->run_now || first->expires <= now)) {
		timerqueue_del(&d->tree, first);
		delay_hand_over(d, node_to_task(first), now);
		n++;
	}
	d->stats.pending -= n;
	d->stats.dispatched += n;
	*total += n;
	if (n < DELAY_CHUNK) {
		d->dispatching = false;
		if (*total) {
			d->stats.batches++;
			d->stats.max_batch = max(d->stats.max_batch, *total);
		}
		if (first)
			delay_arm(d, first->expires);
	}
	raw_spin_unlock_irq(&d->lock);
	return n;
}

static void delay_dispatch(struct work_struct *work)
{
	struct ordsched_delay *d = container_of(work, struct ordsched_delay,
						dispatch);
	u64 total = 0;

	while (delay_dispatch_some(d, &total) == DELAY_CHUNK)
		cond_resched();
}

static void delay_count_late(struct ordsched_delay *d, s64 late)
{
	lockdep_assert_held(&d->lock);
	if (late < 0)
		d->stats.run_early++;
	else
		d->stats.late[min_t(unsigned int, fls64(late),
				    ORDSCHED_DELAY_LATE_BUCKETS - 1)]++;
}

/* The target starts a task. */
static void delay_run(struct ordsched_delay_task *task)
{
	struct ordsched_delay *d = task->delay;
	ordsched_delay_fn fn = task->fn;
	s64 late = ktime_sub(ktime_get(), task->node.expires);
	unsigned long flags;
	u8 color;

	raw_spin_lock_irqsave(&d->lock, flags);
	color = task->color;
	task->state = DELAY_IDLE;
	debug_object_deactivate(task, &delay_task_debug_descr);
	delay_count_late(d, late);
	raw_spin_unlock_irqrestore(&d->lock, flags);

	fn(task);	/* may free or requeue @task: do not touch it again */

	raw_spin_lock_irqsave(&d->lock, flags);
	d->stats.ran++;
	delay_retire(d, color, 1);
	raw_spin_unlock_irqrestore(&d->lock, flags);
}

static void delay_work_fn(struct work_struct *work)
{
	delay_run(container_of(work, struct ordsched_delay_task, wq.work));
}

static void delay_stream_fn(struct ordsched_stream_item *item)
{
	delay_run(container_of(item, struct ordsched_delay_task, stream.item));
}

static void delay_task_init_common(struct ordsched_delay_task *task,
				   ordsched_delay_fn fn, u8 target)
{
	debug_object_init(task, &delay_task_debug_descr);
	memset(task, 0, sizeof(*task));
	timerqueue_init(&task->node);
	INIT_LIST_HEAD(&task->link);
	task->fn = fn;
	task->target = target;
}

/**
 * ordsched_delay_task_init() - prepare a task that runs on a workqueue
 * @task: the task, embedded in the caller's structure; not on the stack
 * @fn: what to run when the task is due
 * @wq: the workqueue to run it on (NULL: ordsched's own unbound
 *	workqueue). On an ordered workqueue, tasks run in the order they are
 *	handed over: by deadline, ties in queueing order.
 *
 * Must not be called while the task is queued.
 *
 * Context: any context.
 */
void ordsched_delay_task_init(struct ordsched_delay_task *task,
			      ordsched_delay_fn fn,
			      struct workqueue_struct *wq)
{
	delay_task_init_common(task, fn, DELAY_TARGET_WQ);
	task->wq.wq = wq ?: ordsched_wq;
	INIT_WORK(&task->wq.work, delay_work_fn);
}
EXPORT_SYMBOL_GPL(ordsched_delay_task_init);

/**
 * ordsched_delay_task_init_stream() - prepare a task that runs on a stream
 * @task: the task, embedded in the caller's structure; not on the stack
 * @fn: what to run when the task is due
 * @stream: the stream: when due, the task is queued on it behind the
 *	items already there, and runs in the stream's order
 *
 * Must not be called while the task is queued. The stream must outlive
 * every queueing of the task.
 *
 * Context: any context.
 */
void ordsched_delay_task_init_stream(struct ordsched_delay_task *task,
				     ordsched_delay_fn fn,
				     struct ordsched_stream *stream)
{
	delay_task_init_common(task, fn, DELAY_TARGET_STREAM);
	task->stream.stream = stream;
	ordsched_stream_item_init(&task->stream.item, delay_stream_fn);
}
EXPORT_SYMBOL_GPL(ordsched_delay_task_init_stream);

/**
 * ordsched_delay_queue_at() - run a task at an absolute time
 * @d: the scheduler
 * @task: the task, initialized
 * @when_ns: absolute CLOCK_MONOTONIC nanoseconds (as ktime_get_ns()); a
 *	time in the past is due at once, one beyond KTIME_MAX is clamped to
 *	it (never due; ordsched_delay_stop() still ends it)
 *
 * The task is handed to its target once CLOCK_MONOTONIC has reached
 * @when_ns, never before; with the scheduler's slack, it may be up to that
 * much later on top of the usual latency. Tasks given the same @when_ns
 * are handed over in the order they were queued. Stores before the call
 * are visible to the task.
 *
 * Context: any context, hard interrupt included.
 * Return: true, or false if the task is already queued (pending or handed
 * over and not started: it is left as it is, as by queue_delayed_work())
 * or the scheduler is stopped.
 */
bool ordsched_delay_queue_at(struct ordsched_delay *d,
			     struct ordsched_delay_task *task, u64 when_ns)
{
	ktime_t deadline = min_t(u64, when_ns, KTIME_MAX);
	unsigned long flags;
	bool queued = false;

	raw_spin_lock_irqsave(&d->lock, flags);
	if (likely(!d->stopped && task->state == DELAY_IDLE)) {
		debug_object_activate(task, &delay_task_debug_descr);
		queued = true;
		task->delay = d;
		task->seq = d->next_seq++;
		task->color = d->color;
		task->state = DELAY_PENDING;
		task->node.expires = deadline;
		d->inflight[task->color]++;
		d->stats.queued++;
		d->stats.pending++;
		d->stats.peak_pending = max(d->stats.peak_pending,
					    d->stats.pending);
		if (timerqueue_add(&d->tree, &task->node))
			delay_arm(d, deadline);
	}
	raw_spin_unlock_irqrestore(&d->lock, flags);
	return queued;
}
EXPORT_SYMBOL_GPL(ordsched_delay_queue_at);

/* @task will not run: it is the caller's again. */
static void delay_cancelled(struct ordsched_delay *d,
			    struct ordsched_delay_task *task, bool handed)
{
	lockdep_assert_held(&d->lock);
	task->state = DELAY_IDLE;
	debug_object_deactivate(task, &delay_task_debug_descr);
	d->stats.cancels++;
	d->stats.cancels_handed += handed;
	trace_ordsched_delay_cancel(d->inst.id, task->seq, handed);
	delay_retire(d, task->color, 1);
}

/*
 * Take a handed-over task back from its target, if it has not started.
 * Under d->lock, like every hand-over: cancel_work() briefly owns the
 * work's PENDING bit even when it fails, and a queue_work() that ran into
 * it would drop the task silently.
 */
static bool delay_target_cancel(struct ordsched_delay *d,
				struct ordsched_delay_task *task)
{
	lockdep_assert_held(&d->lock);
	if (task->target == DELAY_TARGET_STREAM)
		return ordsched_stream_cancel(task->stream.stream,
					      &task->stream.item);
	return cancel_work(&task->wq.work);
}

/**
 * ordsched_delay_cancel() - cancel a task that has not started
 * @d: the scheduler the task was queued to
 * @task: the task
 *
 * A task waiting for its deadline is removed. A task already handed to its
 * target is taken back if the target has not started it yet.
 * Either this returns true and the task will not run, or the task has
 * run, is running or will run, and this returns false: never both, never
 * neither. Cancel does not wait for a running task; ordsched_delay_flush()
 * does. Cancelling a task never queued, or queued to a scheduler
 * that still exists but is not @d, returns false.
 *
 * Context: any context, hard interrupt included.
 * Return: true if the task was cancelled before it started.
 */
bool ordsched_delay_cancel(struct ordsched_delay *d,
			   struct ordsched_delay_task *task)
{
	unsigned long flags;
	bool removed = false;

	raw_spin_lock_irqsave(&d->lock, flags);
	if (task->delay != d)
		goto unlock;
	if (task->state == DELAY_PENDING) {
		timerqueue_del(&d->tree, &task->node);
		d->stats.pending--;
		delay_cancelled(d, task, false);
		removed = true;
	} else if (task->state == DELAY_HANDED &&
		   delay_target_cancel(d, task)) {
		/* Only the target knows whether it has started the task. */
		delay_cancelled(d, task, true);
		removed = true;
	}
unlock:
	raw_spin_unlock_irqrestore(&d->lock, flags);
	return removed;
}
EXPORT_SYMBOL_GPL(ordsched_delay_cancel);

/*
 * For the debug objects fixup of a task freed while handed to a workqueue.
 * Freed memory's objects are fixed up newest first, so the workqueue's own
 * fixup may have cancelled the task's work before ours runs: the task is
 * then still HANDED but its work is neither pending nor running, and it
 * will never start. Count it cancelled, or every later flush of its
 * scheduler waits forever. work_busy() takes the pool's lock, after
 * d->lock as every hand-over does.
 */
static bool delay_orphan_cancel(struct ordsched_delay *d,
				struct ordsched_delay_task *task)
{
	unsigned long flags;
	bool orphan;

	raw_spin_lock_irqsave(&d->lock, flags);
	orphan = task->delay == d && task->state == DELAY_HANDED &&
		 task->target != DELAY_TARGET_STREAM &&
		 !work_busy(&task->wq.work);
	if (orphan)
		delay_cancelled(d, task, true);
	raw_spin_unlock_irqrestore(&d->lock, flags);
	return orphan;
}

/**
 * ordsched_delay_flush() - wait for the tasks queued so far
 * @d: the scheduler
 *
 * Returns once every task queued before the call has run (its function
 * returned) or been cancelled. Deadlines are kept: a flush waits for them
 * (use ordsched_delay_stop() to run them now). Tasks queued during the
 * flush, also by the tasks themselves, are not waited for. Concurrent
 * flushes are serialized. The wait is killable: far deadlines are normal
 * here, and the caller may be told to give up.
 *
 * Context: process context, may sleep; not from a task of @d.
 * Return: 0, or -EINTR if a fatal signal came first.
 */
int ordsched_delay_flush(struct ordsched_delay *d)
{
	unsigned int next, others;
	int ret;

	if (mutex_lock_killable(&d->flush_mutex))
		return -EINTR;
	next = (d->color + 1) % DELAY_COLORS;
	others = DELAY_ALL_COLORS & ~BIT(next);
	/* Left there by killed flushes: those tasks came before us too. */
	ret = wait_event_killable(d->idle, delay_drained(d, BIT(next)));
	if (!ret) {
		raw_spin_lock_irq(&d->lock);
		d->color = next;
		raw_spin_unlock_irq(&d->lock);
		ret = wait_event_killable(d->idle, delay_drained(d, others));
	}
	mutex_unlock(&d->flush_mutex);
	return ret ? -EINTR : 0;
}
EXPORT_SYMBOL_GPL(ordsched_delay_flush);

/* Cancel up to DELAY_CHUNK pending tasks; false once none is left. */
static bool delay_cancel_some(struct ordsched_delay *d)
{
	struct ordsched_delay_task *task, *next;
	struct timerqueue_node *first;
	unsigned int n = 0, per_color[DELAY_COLORS] = {};
	LIST_HEAD(batch);
	int c;

	raw_spin_lock_irq(&d->lock);
	while (n < DELAY_CHUNK && (first = timerqueue_getnext(&d->tree))) {
		task = node_to_task(first);
		timerqueue_del(&d->tree, first);
		task->state = DELAY_IDLE;
		debug_object_deactivate(task, &delay_task_debug_descr);
		d->stats.cancels++;
		trace_ordsched_delay_cancel(d->inst.id, task->seq, false);
		list_add_tail(&task->link, &batch);
		n++;
	}
	d->stats.pending -= n;
	raw_spin_unlock_irq(&d->lock);

	/* The callback may free the task: read what we need first. */
	list_for_each_entry_safe(task, next, &batch, link) {
		per_color[task->color]++;
		if (d->cancelled)
			d->cancelled(task);
	}
	/* Retired after the callbacks, so that a flush also waits for them. */
	raw_spin_lock_irq(&d->lock);
	for (c = 0; c < DELAY_COLORS; c++)
		if (per_color[c])
			delay_retire(d, c, per_color[c]);
	raw_spin_unlock_irq(&d->lock);
	return n > 0;
}

/**
 * ordsched_delay_stop() - refuse new tasks and end the pending ones
 * @d: the scheduler
 * @mode: %ORDSCHED_DELAY_RUN_PENDING hands every pending task over now,
 *	deadlines ignored; %ORDSCHED_DELAY_CANCEL_PENDING cancels them, each
 *	reported to the scheduler's @cancelled callback, called from here
 *
 * From the start of the call, queueings fail (return false; also
 * those of running tasks). Returns once every task queued before has
 * run or been cancelled: tasks already handed to their target run either
 * way. The scheduler is then idle, its timer and work stopped; only
 * ordsched_delay_destroy(), ordsched_delay_get_stats() and further stops
 * remain useful. A task's function must not call this on its own
 * scheduler.
 *
 * Context: process context, may sleep.
 */
void ordsched_delay_stop(struct ordsched_delay *d,
			 enum ordsched_delay_stop_mode mode)
{
	raw_spin_lock_irq(&d->lock);
	d->stopped = true;
	if (mode == ORDSCHED_DELAY_RUN_PENDING) {
		d->run_now = true;
		delay_kick(d);
	}
	raw_spin_unlock_irq(&d->lock);

	if (mode == ORDSCHED_DELAY_CANCEL_PENDING)
		while (delay_cancel_some(d))
			cond_resched();
	/*
	 * In RUN mode this waits for the targets to run every pending task:
	 * seconds for 100,000 under a debug kernel. Idle, not hung.
	 */
	wait_event_idle(d->idle, delay_drained(d, DELAY_ALL_COLORS));

	/* Nothing can be pending now, so nothing can arm or kick again. */
	hrtimer_cancel(&d->timer);
	flush_work(&d->dispatch);
	flush_work(&d->wake);
	raw_spin_lock_irq(&d->lock);
	d->armed = KTIME_MAX;
	raw_spin_unlock_irq(&d->lock);
}
EXPORT_SYMBOL_GPL(ordsched_delay_stop);

/**
 * ordsched_delay_get_stats() - what a scheduler has done
 * @d: the scheduler
 * @stats: filled in, one consistent snapshot
 *
 * Context: any context.
 */
void ordsched_delay_get_stats(struct ordsched_delay *d,
			      struct ordsched_delay_stats *stats)
{
	unsigned long flags;
	int c;

	raw_spin_lock_irqsave(&d->lock, flags);
	*stats = d->stats;
	stats->inflight = 0;
	for (c = 0; c < DELAY_COLORS; c++)
		stats->inflight += d->inflight[c];
	raw_spin_unlock_irqrestore(&d->lock, flags);
}
EXPORT_SYMBOL_GPL(ordsched_delay_get_stats);

/* The debugfs "stats" file: a snapshot taken under the lock. */
static void delay_show(struct seq_file *m, struct ordsched_instance *inst)
{
	struct ordsched_delay *d = container_of(inst, struct ordsched_delay,
						inst);
	struct ordsched_delay_stats *s;
	int i;

	/* Too big for the stack of a debugfs read. */
	s = kmalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return;
	ordsched_delay_get_stats(d, s);
	seq_printf(m, "queued: %llu\npending: %llu\npeak_pending: %llu\n",
		   s->queued, s->pending, s->peak_pending);
	seq_printf(m, "inflight: %llu\nexpiries: %llu\nrearms: %llu\n",
		   s->inflight, s->expiries, s->rearms);
	seq_printf(m, "batches: %llu\ndispatched: %llu\n", s->batches,
		   s->dispatched);
	seq_printf(m, "tasks_per_batch: %llu avg, %llu max\n",
		   s->batches ? div64_u64(s->dispatched, s->batches) : 0,
		   s->max_batch);
	seq_printf(m, "cancels: %llu (%llu after hand-over)\n", s->cancels,
		   s->cancels_handed);
	seq_printf(m, "ran: %llu\nrun_early: %llu\n", s->ran, s->run_early);
	seq_puts(m, "lateness_ns:\n");
	for (i = 0; i < ORDSCHED_DELAY_LATE_BUCKETS; i++) {
		if (!s->late[i])
			continue;
		if (i == ORDSCHED_DELAY_LATE_BUCKETS - 1)
			seq_printf(m, "  >= %llu: %llu\n", BIT_ULL(i - 1),
				   s->late[i]);
		else
			seq_printf(m, "  < %llu: %llu\n", BIT_ULL(i),
				   s->late[i]);
	}
	kfree(s);
}

/**
 * ordsched_delay_create() - build a delayed scheduler
 * @params: the parameters (NULL: all defaults)
 *
 * Context: process context, may sleep.
 * Return: the scheduler, or ERR_PTR(-ENOMEM).
 */
struct ordsched_delay *
ordsched_delay_create(const struct ordsched_delay_params *params)
{
	static const struct ordsched_delay_params defaults;
	struct ordsched_delay *d;

	if (!params)
		params = &defaults;
	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return ERR_PTR(-ENOMEM);
	raw_spin_lock_init(&d->lock);
	timerqueue_init_head(&d->tree);
	ordsched_hrtimer_setup(&d->timer, delay_expire, CLOCK_MONOTONIC,
			       HRTIMER_MODE_ABS);
	d->armed = KTIME_MAX;
	d->slack = params->slack_ns;
	INIT_WORK(&d->dispatch, delay_dispatch);
	INIT_WORK(&d->wake, delay_wake);
	init_waitqueue_head(&d->idle);
	mutex_init(&d->flush_mutex);
	d->cancelled = params->cancelled;
	if (ordsched_instance_init(&d->inst, ORDSCHED_KIND_DELAY, params->name,
				   NULL, delay_show)) {
		mutex_destroy(&d->flush_mutex);
		kfree(d);
		return ERR_PTR(-ENOMEM);
	}
	return d;
}
EXPORT_SYMBOL_GPL(ordsched_delay_create);

/**
 * ordsched_delay_destroy() - stop and free a delayed scheduler
 * @d: the scheduler (NULL or an ERR_PTR() is ignored)
 *
 * Stops the scheduler in CANCEL mode if it is not stopped yet (see
 * ordsched_delay_stop(): pending tasks are reported to the @cancelled
 * callback, tasks handed over are waited for), then frees it. A module
 * may call this from its exit function with tasks pending: nothing is
 * left behind.
 *
 * Context: process context, may sleep.
 */
void ordsched_delay_destroy(struct ordsched_delay *d)
{
	if (IS_ERR_OR_NULL(d))
		return;
	ordsched_delay_stop(d, ORDSCHED_DELAY_CANCEL_PENDING);
	ordsched_instance_exit(&d->inst);
	mutex_destroy(&d->flush_mutex);
	kfree(d);
}
EXPORT_SYMBOL_GPL(ordsched_delay_destroy);
