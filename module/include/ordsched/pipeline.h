/* SPDX-License-Identifier: GPL-2.0 */
/* ordsched: ordered execution on a workqueue. Include <ordsched.h>. */
#ifndef _ORDSCHED_PIPELINE_H
#define _ORDSCHED_PIPELINE_H

#include <linux/types.h>
#include <linux/workqueue.h>
#include <ordsched/seq.h>

/* ------------------------------------------------------------------------
 * Ordered execution on a workqueue
 *
 * A job's ticket is taken when it is queued; its parallel step runs on a
 * workqueue, and its serial step runs in queueing order through the
 * sequencer, in whichever thread completes the tail (a worker, or a
 * cancel): there is no workqueue hop on the in-order path. Every queued
 * job reaches its serial step exactly once, with the error its parallel
 * step returned, unless it was cancelled before its parallel step started.
 *
 * Contexts: queue in any context but hard interrupt; cancel in process or
 * softirq context with interrupts enabled (on PREEMPT_RT not with
 * preemption disabled or under a raw spinlock, as the sequencer's hand-ins
 * in <ordsched/seq.h>); queue_wait, flush, create and destroy in process
 * context. Parallel steps run in process context on the workqueue and may
 * sleep; serial steps run with bottom halves disabled and must not.
 * Ordering: stores before ordsched_pipeline_queue() are visible to both
 * steps of the job; a serial step sees everything earlier serial steps
 * stored.
 * Lifecycle: as every part of ordsched (see <ordsched.h>): flush waits for
 * the jobs queued before it, killably; destroy drains.
 */

struct ordsched_pipeline;

/**
 * struct ordsched_job - one job, embedded by the caller
 * @ticket: the job's place in the order (first: see pipeline.c)
 * @work: runs the parallel step
 * @item: orders the serial step
 * @pipeline: the pipeline the job was queued on
 * @err: what the parallel step returned
 *
 * All fields are the pipeline's; the caller reads @ticket and @err at most.
 * A job that was never queued must be zeroed before it is passed to
 * ordsched_pipeline_cancel() (embedded in memory from kzalloc(), say).
 */
struct ordsched_job {
	u64 ticket;
	struct work_struct work;
	struct ordsched_seq_item item;
	struct ordsched_pipeline *pipeline;
	int err;
};

/**
 * struct ordsched_pipeline_ops - the two steps of every job
 * @parallel: runs on the workqueue, in process context, may sleep, in any
 *	order and concurrently with other jobs' parallel steps. Returns 0 or
 *	a negative errno that is handed to @serial.
 * @serial: runs once per job in submission order, with bottom halves
 *	disabled: must not sleep. @err is what @parallel returned. The job is
 *	the caller's again once @serial has been called (it may be freed).
 */
struct ordsched_pipeline_ops {
	int (*parallel)(struct ordsched_job *job);
	void (*serial)(struct ordsched_job *job, int err);
};

/**
 * struct ordsched_pipeline_params - how to build a pipeline
 * @name: names its debugfs folder, "<name>.<id>" (copied, at most 31
 *	bytes, a '/' there as '_'; NULL: the kind's name)
 * @ops: the steps (required)
 * @wq: workqueue for the parallel steps and hand-offs (NULL: ordsched's
 *	own unbound workqueue); not a BH one (WQ_BH), as parallel steps may
 *	sleep
 * @ring_order: as in &struct ordsched_seq_params; the window is the most
 *	jobs in flight, counting each from its queueing until the serial
 *	steps of it and of every job queued before it have run (a job
 *	cancelled, or past its serial step, keeps its place in the window
 *	until then)
 * @budget: as in &struct ordsched_seq_params
 */
struct ordsched_pipeline_params {
	const char *name;
	const struct ordsched_pipeline_ops *ops;
	struct workqueue_struct *wq;
	unsigned int ring_order;
	unsigned int budget;
};

/**
 * ordsched_pipeline_create() - build a pipeline
 * @params: the parameters; @params->ops with both steps is required
 *
 * Context: process context, may sleep.
 * Return: the pipeline, or an ERR_PTR(): -EINVAL for NULL @params,
 * missing steps or a bad ring order, -ENOMEM.
 */
struct ordsched_pipeline *
ordsched_pipeline_create(const struct ordsched_pipeline_params *params);

/**
 * ordsched_pipeline_destroy() - drain and free a pipeline
 * @pl: the pipeline (NULL or an ERR_PTR() is ignored)
 *
 * Waits until every job queued has run both steps, including jobs that
 * serial steps queue while it waits, then frees the pipeline. When it
 * returns, nothing runs a step of @pl and nothing will: the module that
 * owns the steps may unload. Nobody may queue or cancel from outside the
 * steps once destroy is called.
 *
 * Context: process context, may sleep; not from a step of @pl.
 */
void ordsched_pipeline_destroy(struct ordsched_pipeline *pl);

/**
 * ordsched_pipeline_queue() - queue a job
 * @pl: the pipeline
 * @job: the job, embedded in the caller's structure; not on the stack
 *
 * The job's place in the order is taken now. Its parallel step is queued
 * on the pipeline's workqueue; its serial step follows those of every job
 * queued before it. Stores before the call are visible to both steps.
 *
 * Context: any context but hard interrupt.
 * Return: true, or false if the pipeline already has as many jobs in
 * flight as its window holds (as @ring_order counts them: the job is not
 * queued), or, on a kernel with debug objects, if the job's parallel step
 * has not returned yet (reported: a bug in the caller). A job queued
 * again once its parallel step has returned but before its serial step
 * ran is a bug too, which such a kernel catches only while the first
 * serial step is still waiting for its turn: this returns true, and the
 * second parallel step's hand-in to the sequencer is reported and
 * cancelled (that queueing gets no serial step); if the first serial
 * step ran meanwhile, the job gets two serial steps, unreported.
 */
bool ordsched_pipeline_queue(struct ordsched_pipeline *pl,
			     struct ordsched_job *job);

/**
 * ordsched_pipeline_queue_wait() - queue a job, sleeping for room
 * @pl: the pipeline
 * @job: the job, embedded in the caller's structure; not on the stack
 *
 * As ordsched_pipeline_queue(), but waits (killable) while the window is
 * full.
 *
 * Context: process context, may sleep; not from a step of @pl: the
 * step's own job holds the window's tail until it returns, and a worker
 * cannot be killed.
 * Return: 0, or -EINTR if a fatal signal came first (not queued), or, on
 * a kernel with debug objects, -EBUSY if the job's parallel step has not
 * returned yet (reported: a bug in the caller). A job queued again after
 * its parallel step returned and before its serial step ran is caught
 * later, as ordsched_pipeline_queue() says: this returns 0.
 */
int ordsched_pipeline_queue_wait(struct ordsched_pipeline *pl,
				 struct ordsched_job *job);

/**
 * ordsched_pipeline_cancel() - cancel a job whose parallel step has not started
 * @pl: the pipeline the job was queued on
 * @job: the job
 *
 * If the job's parallel step has not started, it is taken off the
 * workqueue, its place in the order is skipped, neither of its steps runs
 * and the job is the caller's again. Otherwise the job runs both steps as
 * usual. For a job in flight on @pl, either this returns true and the job
 * will not run, or it returns false and the job has run, is running or
 * will run its serial step: never both, never neither. A job not in
 * flight on @pl returns false and is left alone: one never queued (and
 * zeroed, see &struct ordsched_job), cancelled already, past its serial
 * step, or last queued on another pipeline. Either holds when a queueing
 * of the job (once its serial step has run) races with the cancel: the
 * cancel comes before it or after it. Does not wait for a running step.
 * If it cancels the job and the job's place is the tail, the caller goes
 * on to run the serial steps parked behind it, as ordsched_seq_cancel()
 * does.
 *
 * Context: process or softirq context, not hard interrupt and not with
 * interrupts disabled.
 * Return: true if the job was cancelled.
 */
bool ordsched_pipeline_cancel(struct ordsched_pipeline *pl,
			      struct ordsched_job *job);

/**
 * ordsched_pipeline_flush() - wait for the serial steps of queued jobs
 * @pl: the pipeline
 *
 * Returns once every job queued before the call has run its serial
 * step; jobs queued later are not waited for, but for the exception of
 * ordsched_seq_flush(): the drain that runs the last of those serial steps
 * may first run later ones already handed in (at most the sequencer's
 * budget). Killable, as ordsched_seq_flush().
 *
 * Context: process context, may sleep; not from a step of @pl: the
 * step's own job was queued before the call and cannot run its serial
 * step until the step returns, and a worker cannot be killed.
 * Return: 0, or -EINTR if a fatal signal came first.
 */
int ordsched_pipeline_flush(struct ordsched_pipeline *pl);

/**
 * ordsched_pipeline_seq() - the sequencer that orders a pipeline
 * @pl: the pipeline
 *
 * For statistics and ordsched_seq_tail(); taking tickets from it directly
 * would leave holes in the pipeline's order.
 *
 * Context: any context.
 * Return: the sequencer.
 */
struct ordsched_seq *ordsched_pipeline_seq(struct ordsched_pipeline *pl);

#endif /* _ORDSCHED_PIPELINE_H */
