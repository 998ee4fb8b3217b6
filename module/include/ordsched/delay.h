/* SPDX-License-Identifier: GPL-2.0 */
/* ordsched: the hrtimer delayed scheduler. Include <ordsched.h>. */
#ifndef _ORDSCHED_DELAY_H
#define _ORDSCHED_DELAY_H

#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/rbtree.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <ordsched/stream.h>

/* ------------------------------------------------------------------------
 * The delayed scheduler
 *
 * "Run this task d nanoseconds from now", for many thousands of pending
 * tasks at nanosecond resolution. A scheduler keeps the tasks due soon
 * ordered by deadline and arms one hrtimer at the earliest; tasks due
 * later wait in coarse buckets, where queueing and cancelling cost O(1),
 * and move into the ordered set before they are due. When the hrtimer
 * fires, its callback hands a few due tasks over itself and a work item
 * hands over the rest, in batches, each to the task's target:
 *
 *	a workqueue	the task runs as a work item of its own;
 *	a serial stream	the task is queued on the stream when it is due, so
 *			it keeps the stream's order relative to the stream's
 *			other items (the RxJava delayed-schedule case);
 *	interrupt	the task runs in the scheduler's hrtimer callback,
 *			in hard interrupt, with no worker to wake for its
 *			run (a few per interrupt: more wait for the next
 *			one); but its hand-over is the work item's, as any
 *			task's, when more than four are due at once or a
 *			far bucket is being moved, so a worker that cannot
 *			run (a busy CPU under PREEMPT_RT, say) holds it
 *			back too.
 *
 * Guarantees: a task is never handed over before CLOCK_MONOTONIC reaches
 * its deadline (except by ordsched_delay_stop() in RUN mode, which runs
 * everything at once); every queueing is run exactly once or reported
 * cancelled exactly once (a modify that finds the task pending moves that
 * queueing, it does not add one); tasks are handed over in deadline
 * order, and tasks with the same deadline in queueing order (a moved task
 * counts as queued when it was moved), so on an ordered workqueue or on
 * one stream they run in that order; the interrupt tasks of a scheduler
 * always run in that order, one at a time. The order is the scheduler's,
 * across all its targets: a task that a modify moved while its worker
 * was starting it holds back every task that sorts after its new place,
 * interrupt tasks included, until that worker gives it back. The
 * scheduler keeps the places of four such tasks at once; with more, it
 * keeps the earliest place only, and every task after it, those moved
 * included, waits until all of them are given back.
 *
 * Slack: a task queued with slack may be handed over as late as its
 * deadline plus its slack (on top of the usual latency), so that tasks
 * with nearby deadlines share one wake-up; never earlier than its
 * deadline. Without a slack of its own a task takes the scheduler's.
 *
 * Contexts: queue, modify and cancel in any context, hard interrupt
 * included; task init in any context; cancel_sync, flush, stop, create
 * and destroy in process context. Tasks run in their target's context:
 * process context, in a worker, for a workqueue or a stream; hard
 * interrupt with interrupts off, also on PREEMPT_RT, for interrupt tasks.
 * Ordering: stores before ordsched_delay_queue() or a modify are visible
 * to the task.
 * One scheduler at a time: a task belongs to the scheduler it was last
 * queued to, whose locks guard it. Calls on a task that name different
 * schedulers must not overlap (their locks do not exclude each other):
 * queue a task to another scheduler only once every call on it that
 * names the previous one has returned, and the other way round. Calls
 * that name the same scheduler may overlap freely, as said below. A run
 * belongs to the scheduler that handed the task over: a function that
 * queues its own task on another scheduler goes on running unseen by
 * that one, whose cancel_sync of the task does not wait for it.
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
 * Runs in the target's context: process context for a workqueue and a
 * stream, so it may sleep (holding up the tasks behind it on an ordered
 * workqueue or on its stream), but softirq context on a BH workqueue
 * (WQ_BH), where it must not; hard interrupt with interrupts off, also on
 * PREEMPT_RT, for a task initialized by ordsched_delay_task_init_irq(),
 * so it must not sleep, nor take a spinlock_t or allocate or free memory
 * on PREEMPT_RT, where those sleep (and it holds up the scheduler's other
 * interrupt tasks). The task is the caller's again when this function is
 * called: it may free the task (where its context allows) or queue it
 * again.
 */
typedef void (*ordsched_delay_fn)(struct ordsched_delay_task *task);

/**
 * struct ordsched_delay_task - one delayed task, embedded by the caller
 * @deadline: when it is due, absolute CLOCK_MONOTONIC nanoseconds
 * @seq: queueing number, unique per scheduler: orders equal deadlines
 * @fn: what to run
 * @delay: the scheduler it was last queued to
 * @state: idle, pending (near or far), handed over, or moved while its
 *	target started it
 * @color: the flush generation it was queued in
 * @target: workqueue, stream or interrupt
 * @cancelling: a cancel_sync owns the task: queueings of it fail
 * @base: which lock of @delay guards the task: 0 the scheduler's own,
 *	1 + n far wheel n (that of the CPUs numbered n modulo the
 *	wheels), which holds the task or last held it;
 *	U16_MAX while the task changes hands between two of them
 * @slack: nanoseconds it may be handed over after its deadline
 * @wq: the workqueue target: @wq.work runs the task on @wq.wq
 * @stream: the stream target: @stream.item runs the task on
 *	@stream.stream
 * @word: the first word of the workqueue or stream target, kept while the
 *	task waits; unused by the interrupt target
 * @rb: while the task waits, its place in the near tree, ordered by
 *	@deadline, then @seq
 * @entry: while the task waits, its place in a list of far tasks (a
 *	bucket of the wheel); an interrupt task's, handed over, its place in
 *	the scheduler's list of due interrupt tasks
 *
 * A waiting task is not on its target, so @rb and @entry take the place of
 * what only the target uses: @wq.work's list entry and function, or
 * @stream.item's list node and function. They are set again when the task
 * is handed over. An interrupt task has no such fields: handed over, it
 * waits in a list of its scheduler by @entry. 80 bytes on x86-64 without
 * lock debugging.
 *
 * Initialize with ordsched_delay_task_init(),
 * ordsched_delay_task_init_stream() or ordsched_delay_task_init_irq(),
 * never while the task is queued nor while an ordsched_delay_cancel_sync()
 * of it runs: that call's claim on the task, which makes its queueings
 * fail, lives in the task, and initialized anew, the task forgets it (its
 * function, queueing it again, would then succeed, and the cancel_sync
 * could return with the task queued). All fields are private to ordsched;
 * read the deadline with ordsched_delay_task_deadline().
 */
struct ordsched_delay_task {
	ktime_t deadline;
	u64 seq;
	ordsched_delay_fn fn;
	struct ordsched_delay *delay;
	u8 state;
	u8 color:2;
	u8 target:2;
	u8 cancelling:1;
	u16 base;
	u32 slack;
	union {
		struct {
			struct work_struct work;
			struct workqueue_struct *wq;
		} wq;
		struct {
			struct ordsched_stream *stream;
			struct ordsched_stream_item item;
		} stream;
		struct {
			unsigned long word;
			union {
				struct rb_node rb;
				struct list_head entry;
			};
		};
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
 * enum ordsched_delay_queue_mode - what ordsched_delay_queue_range() does
 *	with a task that is already queued
 * @ORDSCHED_DELAY_QUEUE_NEW: leave it as it is and return false, as
 *	queue_delayed_work() does
 * @ORDSCHED_DELAY_QUEUE_MOD: move it to the new deadline and slack and
 *	return true, as mod_delayed_work() does
 */
enum ordsched_delay_queue_mode {
	ORDSCHED_DELAY_QUEUE_NEW,
	ORDSCHED_DELAY_QUEUE_MOD,
};

/**
 * enum ordsched_delay_cancel_mode - whether ordsched_delay_cancel_mode()
 *	waits
 * @ORDSCHED_DELAY_CANCEL_NOWAIT: take the task back if it has not started,
 *	in any context, as cancel_delayed_work() does
 * @ORDSCHED_DELAY_CANCEL_SYNC: also wait for a run of it that has started,
 *	refusing new queueings of it meanwhile, as
 *	cancel_delayed_work_sync() does; process context
 */
enum ordsched_delay_cancel_mode {
	ORDSCHED_DELAY_CANCEL_NOWAIT,
	ORDSCHED_DELAY_CANCEL_SYNC,
};

/* The @slack_ns of ordsched_delay_queue_range() that means the scheduler's. */
#define ORDSCHED_DELAY_SLACK_DEFAULT	U64_MAX

/**
 * struct ordsched_delay_params - how to build a delayed scheduler
 * @name: names its debugfs folder, "<name>.<id>" (copied, at most 31
 *	bytes, a '/' there as '_'; NULL: the kind's name)
 * @slack_ns: the slack of tasks queued without one of their own: how late
 *	after its deadline a task may be handed over, to share a wake-up with
 *	other timers and to gather nearby deadlines into one batch (0:
 *	exact; more than U32_MAX ns, about 4.3 s, counts as U32_MAX)
 * @cancelled: called, in process context, for each task that
 *	ordsched_delay_stop() or ordsched_delay_destroy() cancels (from the
 *	stop, or from the target's worker: see ordsched_delay_stop(); the
 *	worker of a BH workqueue (WQ_BH) runs it in softirq context, where
 *	it must not sleep, as the task's @fn); the task is the caller's
 *	again. It must not flush, stop or destroy the scheduler, nor
 *	cancel_sync one of its tasks: those wait for it (may be NULL)
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
 * @batches: wake-ups that handed tasks over (the hrtimer's, with the
 *	dispatch work it queued if more were due; or a stop's dispatch)
 * @dispatched: hand-overs of tasks to their target (a task taken back by a
 *	cancel and queued again counts again)
 * @direct: of those, tasks the hrtimer callback handed over itself, with
 *	no dispatch work in between
 * @max_batch: the most tasks one wake-up handed over
 * @rearms: times the hrtimer was started: when it was not armed (the
 *	first time, and after it fired) or for an earlier time than it was
 *	armed for
 * @armed: the latest time (CLOCK_MONOTONIC ns) the hrtimer is armed to fire
 *	at, KTIME_MAX when it is not armed. A cancel, or a move to a later
 *	deadline, leaves it armed: it fires, finds nothing due, and is armed
 *	again for the tasks left, if any wait (not while a dispatch is under
 *	way, unless an interrupt task is due)
 * @modified: modifies that found the task queued and moved it
 * @cancels: tasks cancelled, by ordsched_delay_cancel() or by a stop
 * @cancels_handed: of those, tasks taken back from their target
 * @ran: tasks whose function returned
 * @ran_irq: of those, interrupt tasks (run in the hrtimer callback)
 * @irq_deferred: interrupts that left due interrupt tasks to a later one,
 *	having run as many as one may
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
	u64 direct;
	u64 max_batch;
	u64 rearms;
	u64 armed;
	u64 modified;
	u64 cancels;
	u64 cancels_handed;
	u64 ran;
	u64 ran_irq;
	u64 irq_deferred;
	u64 run_early;
	u64 late[ORDSCHED_DELAY_LATE_BUCKETS];
};

/**
 * ordsched_delay_create() - build a delayed scheduler
 * @params: the parameters (NULL: all defaults)
 *
 * Context: process context, may sleep.
 * Return: the scheduler, or ERR_PTR(-ENOMEM).
 */
struct ordsched_delay *
ordsched_delay_create(const struct ordsched_delay_params *params);

/**
 * ordsched_delay_destroy() - stop and free a delayed scheduler
 * @d: the scheduler (NULL or an ERR_PTR() is ignored)
 *
 * Stops the scheduler in CANCEL mode if it is not stopped yet (see
 * ordsched_delay_stop(): pending tasks are reported to the @cancelled
 * callback, tasks handed over are waited for), then frees it. A module
 * may call this from its exit function with tasks pending: nothing is
 * left behind. Like the stop, it waits as long as that takes, without
 * logging.
 *
 * Context: process context, may sleep.
 */
void ordsched_delay_destroy(struct ordsched_delay *d);

/**
 * ordsched_delay_task_init() - prepare a task that runs on a workqueue
 * @task: the task, embedded in the caller's structure; not on the stack
 * @fn: what to run when the task is due
 * @wq: the workqueue to run it on (NULL: ordsched's own unbound
 *	workqueue); a BH one (WQ_BH) runs @fn in softirq context, where it
 *	must not sleep, and may run the scheduler's @cancelled there too
 *	(&struct ordsched_delay_params). On an ordered workqueue, tasks run
 *	in the order they are handed over: by deadline, ties in queueing
 *	order. It must outlive every queueing of the task, and must not be
 *	drained (drain_workqueue(), which destroy_workqueue() runs too)
 *	while one may be handed to it: a draining workqueue refuses work
 *	from outside, and the task would stay handed over for good (a
 *	cancel of it would spin for good)
 *
 * Must not be called while the task is queued, nor while an
 * ordsched_delay_cancel_sync() of it runs (&struct ordsched_delay_task).
 *
 * Context: any context.
 */
void ordsched_delay_task_init(struct ordsched_delay_task *task,
			      ordsched_delay_fn fn,
			      struct workqueue_struct *wq);

/**
 * ordsched_delay_task_init_stream() - prepare a task that runs on a stream
 * @task: the task, embedded in the caller's structure; not on the stack
 * @fn: what to run when the task is due
 * @stream: the stream: when due, the task is queued on it behind the
 *	items already there, and runs in the stream's order. Not NULL (that
 *	warns, and the task runs on ordsched's own workqueue instead)
 *
 * Must not be called while the task is queued, nor while an
 * ordsched_delay_cancel_sync() of it runs (&struct ordsched_delay_task).
 * The stream must outlive every queueing of the task.
 *
 * Context: any context.
 */
void ordsched_delay_task_init_stream(struct ordsched_delay_task *task,
				     ordsched_delay_fn fn,
				     struct ordsched_stream *stream);

/**
 * ordsched_delay_task_init_irq() - prepare a task that runs in hard interrupt
 * @task: the task, embedded in the caller's structure; not on the stack
 * @fn: what to run when the task is due: in the scheduler's hrtimer
 *	callback, in hard interrupt context with interrupts off, also on
 *	PREEMPT_RT; it must not sleep (on PREEMPT_RT that rules out
 *	spinlock_t and allocating or freeing memory too), and should be
 *	short (the tasks of a scheduler run there one at a time, in
 *	deadline order); an interrupt task it queues on the same
 *	scheduler due at once runs no sooner than the interrupt has lasted
 *	so far, and 5 microseconds at least, after the queueing, so that a
 *	task that queues itself again at once (a poll) leaves the CPU at
 *	least half its time
 *
 * Must not be called while the task is queued, nor while an
 * ordsched_delay_cancel_sync() of it runs (&struct ordsched_delay_task).
 *
 * Context: any context.
 */
void ordsched_delay_task_init_irq(struct ordsched_delay_task *task,
				  ordsched_delay_fn fn);

/**
 * ordsched_delay_queue_range() - queue or move a task, with its slack
 * @d: the scheduler
 * @task: the task, initialized
 * @when_ns: absolute CLOCK_MONOTONIC nanoseconds (as ktime_get_ns()); a
 *	time in the past is due at once, one beyond KTIME_MAX is clamped to
 *	it (never due; ordsched_delay_stop() still ends it)
 * @slack_ns: how late after @when_ns the task may be handed over, so that
 *	it shares a wake-up with nearby deadlines (0: as soon as due; more
 *	than U32_MAX ns, about 4.3 s, counts as U32_MAX);
 *	%ORDSCHED_DELAY_SLACK_DEFAULT: the scheduler's @slack_ns
 * @mode: %ORDSCHED_DELAY_QUEUE_NEW leaves a task that is already queued
 *	as it is; %ORDSCHED_DELAY_QUEUE_MOD moves it to @when_ns and
 *	@slack_ns; any other value warns, and nothing is done
 *
 * The task is handed to its target once CLOCK_MONOTONIC has reached
 * @when_ns, never before, and by @when_ns + @slack_ns on top of the usual
 * latency. Tasks are handed over in deadline order whatever their slack;
 * those given the same @when_ns in the order they were queued or moved.
 * Stores before the call are visible to the task.
 *
 * A queued task is one waiting for its deadline, or handed over and not
 * started. Moving it keeps its queueing: it still runs once, or is
 * cancelled once, at the new deadline; its place among tasks with the
 * same deadline is behind those already there. A task whose target is
 * just starting it is moved back from there: it does not run at its old
 * deadline. A task that has started is not queued: its function may
 * queue or move it.
 *
 * Nothing is done, and false returned, if the scheduler is stopped, if the
 * task is queued to another scheduler, or while an
 * ordsched_delay_cancel_sync() of it runs.
 *
 * Context: any context, hard interrupt included.
 * Return: in mode %ORDSCHED_DELAY_QUEUE_NEW, true if the task was queued,
 * false if it was already (it is left as it is) or nothing was done; in
 * mode %ORDSCHED_DELAY_QUEUE_MOD, true if the task was queued and has
 * been moved, false if it was not and has been queued now, or nothing was
 * done.
 */
bool ordsched_delay_queue_range(struct ordsched_delay *d,
				struct ordsched_delay_task *task, u64 when_ns,
				u64 slack_ns,
				enum ordsched_delay_queue_mode mode);

/**
 * ordsched_delay_cancel_mode() - cancel a task, and maybe wait for its run
 * @d: the scheduler the task was queued to
 * @task: the task
 * @mode: %ORDSCHED_DELAY_CANCEL_NOWAIT or %ORDSCHED_DELAY_CANCEL_SYNC; any
 *	other value warns and counts as %ORDSCHED_DELAY_CANCEL_NOWAIT
 *
 * A task waiting for its deadline is removed. A task already handed to its
 * target is taken back if the target has not started it yet. Either this
 * returns true and the task will not run, or the task has run, is running
 * or will run, and this returns false: never both, never neither. That is
 * per queueing, against its run: a queueing that another cancel, or a
 * stop in CANCEL mode, takes first is reported there, and this returns
 * false although the task does not run.
 * Cancelling a task never queued, or queued to a scheduler that still
 * exists but is not @d, returns false at once. A task a modify moved while
 * its target was starting it cannot be taken back before the target gives
 * it back: %ORDSCHED_DELAY_CANCEL_NOWAIT returns false then, and the task
 * runs at its new deadline (or, if a stop in CANCEL mode comes first, is
 * reported to its @cancelled).
 *
 * %ORDSCHED_DELAY_CANCEL_NOWAIT does not wait for a run that has started;
 * ordsched_delay_flush() does. %ORDSCHED_DELAY_CANCEL_SYNC does: it
 * returns once the task is neither queued, nor running, nor being
 * reported to @cancelled by a stop; a task moved while its target was
 * starting it is cancelled when the target gives it back. Until it
 * returns, queueings and modifies of the task fail, so a function that
 * queues its own task again ends too. Concurrent cancel_syncs of one task
 * take turns. Called from the task's own function, it cannot wait for
 * itself: it warns and returns without waiting. As for
 * cancel_work_sync(), the task must stay allocated until this returns: a
 * function, or a @cancelled callback of a stop, that frees its task must
 * not race a %ORDSCHED_DELAY_CANCEL_SYNC of that task.
 *
 * Context: %ORDSCHED_DELAY_CANCEL_NOWAIT: any context, hard interrupt
 * included. %ORDSCHED_DELAY_CANCEL_SYNC: process context, may sleep; not
 * from the task's own function, nor from a @cancelled callback of @d.
 * Return: true if the task was queued and has been cancelled before it
 * started.
 */
bool ordsched_delay_cancel_mode(struct ordsched_delay *d,
				struct ordsched_delay_task *task,
				enum ordsched_delay_cancel_mode mode);

/**
 * ordsched_delay_flush() - wait for the tasks queued so far
 * @d: the scheduler
 *
 * Returns once every task queued before the call has run (its function
 * returned) or been cancelled. Deadlines are kept: a flush waits for them
 * (use ordsched_delay_stop() to run them now). Tasks queued during the
 * flush, also by the tasks themselves, are not waited for, with two
 * exceptions. Concurrent flushes are serialized, and one that waits for
 * another to finish first also waits for the tasks queued meanwhile. And
 * after three killed flushes in a row, whose tasks are still pending, a
 * flush first waits for the oldest of those, and also for the tasks
 * queued meanwhile. The wait is killable: far deadlines are normal here,
 * and the caller may be told to give up.
 *
 * Context: process context, may sleep; not from a task of @d, nor from
 * its @cancelled.
 * Return: 0, or -EINTR if a fatal signal came first.
 */
int ordsched_delay_flush(struct ordsched_delay *d);

/**
 * ordsched_delay_stop() - refuse new tasks and end the pending ones
 * @d: the scheduler
 * @mode: %ORDSCHED_DELAY_RUN_PENDING hands every pending task over now,
 *	deadlines ignored; %ORDSCHED_DELAY_CANCEL_PENDING cancels them, each
 *	reported to the scheduler's @cancelled callback: from here for a task
 *	waiting for its deadline; from its target's worker for a task that a
 *	modify moved while its target was starting it (it does not run). Any
 *	other value warns and counts as %ORDSCHED_DELAY_CANCEL_PENDING
 *
 * From the start of the call, queueings and modifies fail (return false,
 * change nothing; also those of running tasks). Tasks already handed to
 * their target run in either mode, except the moved ones in CANCEL mode;
 * in RUN mode a moved one is handed over again from the place its move
 * took, in deadline order with the pending tasks.
 * Returns once every task queued before has run or been cancelled, and
 * every @cancelled call, a worker's included, has returned; it waits as
 * long as that takes, without logging. The scheduler is then idle, its
 * timer and work stopped; only ordsched_delay_destroy(),
 * ordsched_delay_get_stats() and further stops remain useful. A task's
 * function, or its @cancelled, must not call this on its own scheduler.
 *
 * Context: process context, may sleep.
 */
void ordsched_delay_stop(struct ordsched_delay *d,
			 enum ordsched_delay_stop_mode mode);

/**
 * ordsched_delay_get_stats() - what a scheduler has done
 * @d: the scheduler
 * @stats: filled in, one consistent snapshot
 *
 * Context: any context.
 */
void ordsched_delay_get_stats(struct ordsched_delay *d,
			      struct ordsched_delay_stats *stats);

/* now + @delay_ns, clamped to KTIME_MAX */
static inline u64 ordsched_delay_from_now(u64 delay_ns)
{
	u64 now = ktime_get_ns();

	return delay_ns > KTIME_MAX - now ? KTIME_MAX : now + delay_ns;
}

/**
 * ordsched_delay_queue_at() - run a task at an absolute time
 * @d: the scheduler
 * @task: the task, initialized
 * @when_ns: absolute CLOCK_MONOTONIC nanoseconds (as ktime_get_ns()); a
 *	time in the past is due at once, one beyond KTIME_MAX is clamped to
 *	it (never due; ordsched_delay_stop() still ends it)
 *
 * ordsched_delay_queue_range() with the scheduler's slack, mode
 * %ORDSCHED_DELAY_QUEUE_NEW: the task is handed to its target once
 * CLOCK_MONOTONIC has reached @when_ns, never before.
 *
 * Context: any context, hard interrupt included.
 * Return: true, or false if the task is already queued (it is left as it
 * is) or cannot be queued now (see ordsched_delay_queue_range()).
 */
static inline bool ordsched_delay_queue_at(struct ordsched_delay *d,
					   struct ordsched_delay_task *task,
					   u64 when_ns)
{
	return ordsched_delay_queue_range(d, task, when_ns,
					  ORDSCHED_DELAY_SLACK_DEFAULT,
					  ORDSCHED_DELAY_QUEUE_NEW);
}

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
 * Return: true, or false if the task is already queued or cannot be queued
 * now (see ordsched_delay_queue_at()).
 */
static inline bool ordsched_delay_queue(struct ordsched_delay *d,
					struct ordsched_delay_task *task,
					u64 delay_ns)
{
	return ordsched_delay_queue_at(d, task,
				       ordsched_delay_from_now(delay_ns));
}

/**
 * ordsched_delay_mod_at() - move a task to a new deadline, or queue it
 * @d: the scheduler
 * @task: the task, initialized
 * @when_ns: the new deadline, as for ordsched_delay_queue_at()
 *
 * As mod_delayed_work(): ordsched_delay_queue_range() with the
 * scheduler's slack, mode %ORDSCHED_DELAY_QUEUE_MOD. A task waiting for
 * its deadline, or handed over and not started, now waits for @when_ns
 * instead; any other task is queued for @when_ns.
 *
 * Context: any context, hard interrupt included.
 * Return: true if the task was queued and has been moved, false if it was
 * not and has been queued, or nothing could be done (see
 * ordsched_delay_queue_range()).
 */
static inline bool ordsched_delay_mod_at(struct ordsched_delay *d,
					 struct ordsched_delay_task *task,
					 u64 when_ns)
{
	return ordsched_delay_queue_range(d, task, when_ns,
					  ORDSCHED_DELAY_SLACK_DEFAULT,
					  ORDSCHED_DELAY_QUEUE_MOD);
}

/**
 * ordsched_delay_mod() - move a task to a new delay, or queue it
 * @d: the scheduler
 * @task: the task, initialized
 * @delay_ns: nanoseconds from now, clamped as for ordsched_delay_queue()
 *
 * As ordsched_delay_mod_at() for now + @delay_ns.
 *
 * Context: any context, hard interrupt included.
 * Return: as ordsched_delay_mod_at().
 */
static inline bool ordsched_delay_mod(struct ordsched_delay *d,
				      struct ordsched_delay_task *task,
				      u64 delay_ns)
{
	return ordsched_delay_mod_at(d, task,
				     ordsched_delay_from_now(delay_ns));
}

/**
 * ordsched_delay_cancel() - cancel a task that has not started
 * @d: the scheduler the task was queued to
 * @task: the task
 *
 * ordsched_delay_cancel_mode() in mode %ORDSCHED_DELAY_CANCEL_NOWAIT: a
 * task waiting for its deadline is removed, a task already handed to its
 * target is taken back if the target has not started it yet. It does not
 * wait for a run that has started; ordsched_delay_cancel_sync() does.
 *
 * Context: any context, hard interrupt included.
 * Return: true if the task was cancelled before it started: it will not
 * run; false if it was not queued, or has run, is running or will run.
 */
static inline bool ordsched_delay_cancel(struct ordsched_delay *d,
					 struct ordsched_delay_task *task)
{
	return ordsched_delay_cancel_mode(d, task,
					  ORDSCHED_DELAY_CANCEL_NOWAIT);
}

/**
 * ordsched_delay_cancel_sync() - cancel a task and wait for its run
 * @d: the scheduler the task was queued to
 * @task: the task
 *
 * As cancel_delayed_work_sync(): ordsched_delay_cancel_mode() in mode
 * %ORDSCHED_DELAY_CANCEL_SYNC. Cancels the task if it has not started and
 * returns only when it is neither queued nor running, also if its
 * function queues it again: queueings and modifies of @task fail
 * meanwhile (its function must not initialize it anew then: see
 * &struct ordsched_delay_task). The task is then the caller's, to free or
 * queue again.
 *
 * Context: process context, may sleep; not from @task's function, nor
 * from the function of a task of @d that freed its task where @task now
 * lives (the scheduler knows a running task by its address only, and
 * the call would take itself for @task's function: it would cancel
 * @task if queued, warn, and return without waiting for a run of @task).
 * Return: true if the task was queued and has been cancelled, false if it
 * was not queued (it may have been running).
 */
static inline bool ordsched_delay_cancel_sync(struct ordsched_delay *d,
					      struct ordsched_delay_task *task)
{
	return ordsched_delay_cancel_mode(d, task, ORDSCHED_DELAY_CANCEL_SYNC);
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
	return task->deadline;
}

#endif /* _ORDSCHED_DELAY_H */
