// SPDX-License-Identifier: GPL-2.0
/*
 * Ordered execution on a workqueue: the padata replacement.
 *
 * A job takes its ticket when it is queued, runs its parallel step as a
 * work item, then hands itself to the sequencer. The worker that completes
 * the tail runs the serial steps, its own and those parked behind it, on
 * the spot: unlike padata, the in-order path costs no second workqueue hop
 * and no per-CPU reorder lists. A failed parallel step does not cancel
 * the ticket: the job reaches its serial step with the error, so every
 * queued job is seen exactly once, in order, and the owner can report and
 * free it there. Only ordsched_pipeline_cancel() skips a job, and only
 * one whose parallel step has not started: its ticket is cancelled.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/debugobjects.h>
#include <linux/err.h>
#include <linux/hardirq.h>
#include <linux/hash.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <ordsched.h>

#include "internal.h"

struct pipeline_stats {
	u64 queued;
	u64 parallel_failed;
	u64 cancelled;
};

ORDSCHED_COUNTERS(pipeline_counters, struct pipeline_stats, 0,
		  "queued", "parallel_failed", "cancelled");

struct ordsched_pipeline {
	struct ordsched_seq *seq;
	const struct ordsched_pipeline_ops *ops;
	struct workqueue_struct *wq;
	struct ordsched_instance inst;
	struct pipeline_stats __percpu *stats;
};

static bool pipeline_cancel(struct ordsched_pipeline *pl,
			    struct ordsched_job *job, bool defer);
static raw_spinlock_t *pipeline_job_lock(struct ordsched_job *job);

#ifdef CONFIG_DEBUG_OBJECTS
/*
 * Debug objects: a job is tracked from its queueing until its parallel
 * step hands its item to the sequencer, which tracks the item from there
 * until the serial step (see seq.c), or until it is cancelled. The object
 * is the job's @ticket: the job's start is its work item's, tracked by the
 * workqueue's own debug objects, and the item is the sequencer's.
 *
 * A job queued again while in flight is reported and not queued. One freed
 * while its parallel step has not started is reported and cancelled first,
 * where the context allows (process or softirq context with interrupts
 * on), without running other jobs' serial steps from the free path: a
 * worker goes on from its ticket. Otherwise, or if the step has started,
 * there is nothing to take back: the fixup poisons the item's function,
 * so that the parallel step, when it returns into pipeline_parallel(),
 * cancels the ticket instead of handing in freed memory. (If the step had
 * not started, the workqueue's fixup cancels it, and the ticket is never
 * handed in: destroy names it in the log.) On a KASAN kernel, the accesses
 * to the freed job are reported too.
 *
 * The work item's fixup would cancel the parallel step behind the job's
 * back and leave its ticket waiting forever: the job's must come first.
 * Debug objects visit freed memory a page at a time, upwards, and within
 * a page (a hash chain) the newest objects first. So @ticket comes before
 * @work in the job, for a job across a page boundary, and the job is
 * tracked anew once INIT_WORK() has tracked the work (the first time), for
 * one within a page.
 */
static_assert(offsetof(struct ordsched_job, ticket) <
	      offsetof(struct ordsched_job, work));
#define pipeline_debug_obj(job)	(&(job)->ticket)

static const struct debug_obj_descr pipeline_job_debug_descr;

static bool pipeline_job_fixup_free(void *addr, enum debug_obj_state state)
{
	struct ordsched_job *job = container_of(addr, struct ordsched_job,
						ticket);

	if (state != ODEBUG_STATE_ACTIVE)
		return false;
	if (!irqs_disabled() && !in_hardirq() &&
	    pipeline_cancel(job->pipeline, job, true))
		return true;
	WRITE_ONCE(job->item.fn, ordsched_seq_item_freed);
	/* Left active, debug objects would come back to it forever. */
	debug_object_deactivate(addr, &pipeline_job_debug_descr);
	return false;
}

/*
 * A job has no init function: memory that debug objects do not track is a
 * job never queued (or done with), which its activation starts tracking.
 * A job still tracked is active, and its activation is the one report of
 * a job queued twice, where an init before it would have made two.
 */
static bool pipeline_job_is_new(void *addr)
{
	return true;
}

static const struct debug_obj_descr pipeline_job_debug_descr = {
	.name			= "ordsched_job",
	.is_static_object	= pipeline_job_is_new,
	.fixup_free		= pipeline_job_fixup_free,
};

static bool __pipeline_job_debug_activate(struct ordsched_job *job)
{
	return !debug_object_activate(pipeline_debug_obj(job),
				      &pipeline_job_debug_descr);
}

/*
 * False if @job is still in flight. Under the job's lock, as the
 * re-tracking in pipeline_start() is: the job is untracked for a moment
 * there, and a second queueing of it (a bug) would otherwise find it new,
 * take a ticket and go on, both queueings answering true and one ticket
 * never handed in.
 */
static bool pipeline_job_debug_activate(struct ordsched_job *job)
{
	unsigned long flags;
	bool ok;

	raw_spin_lock_irqsave(pipeline_job_lock(job), flags);
	ok = __pipeline_job_debug_activate(job);
	raw_spin_unlock_irqrestore(pipeline_job_lock(job), flags);
	return ok;
}

/*
 * Out of line: a test holds a queueing between the two halves of
 * pipeline_job_debug_retrack() (promise_seq_test.c).
 */
static noinline void pipeline_job_debug_done(struct ordsched_job *job)
{
	debug_object_deactivate(pipeline_debug_obj(job),
				&pipeline_job_debug_descr);
	debug_object_free(pipeline_debug_obj(job), &pipeline_job_debug_descr);
}

/*
 * Newer than the work's tracking object: see above. Under the job's lock:
 * see pipeline_job_debug_activate().
 */
static void pipeline_job_debug_retrack(struct ordsched_job *job)
{
	pipeline_job_debug_done(job);
	__pipeline_job_debug_activate(job);
}

/* The job was reported freed while its parallel step ran. */
static bool pipeline_job_freed(struct ordsched_job *job)
{
	return READ_ONCE(job->item.fn) == ordsched_seq_item_freed;
}
#else
static inline bool pipeline_job_debug_activate(struct ordsched_job *job)
{
	return true;
}

static inline void pipeline_job_debug_done(struct ordsched_job *job)
{
}

static inline void pipeline_job_debug_retrack(struct ordsched_job *job)
{
}

static inline bool pipeline_job_freed(struct ordsched_job *job)
{
	return false;
}
#endif

static void pipeline_serial(struct ordsched_seq_item *item, u64 ticket)
{
	struct ordsched_job *job = container_of(item, struct ordsched_job, item);

	job->pipeline->ops->serial(job, job->err);
}

static void pipeline_parallel(struct work_struct *work)
{
	struct ordsched_job *job = container_of(work, struct ordsched_job, work);
	struct ordsched_pipeline *pl = job->pipeline;

	ordsched_fn_enter();
	job->err = pl->ops->parallel(job);
	if (job->err)
		this_cpu_inc(pl->stats->parallel_failed);
	/*
	 * Freed meanwhile, its tracking went with its memory: deactivating
	 * it would be a second report, of an object not tracked.
	 */
	if (unlikely(pipeline_job_freed(job))) {
		ordsched_seq_cancel(pl->seq, job->ticket);
	} else {
		pipeline_job_debug_done(job);
		ordsched_seq_queue(pl->seq, job->ticket, &job->item);
	}
	ordsched_fn_leave();
}

/*
 * A queueing of a job and a cancel of it take the job's lock, one of a
 * table hashed by the job's address: a job comes from its owner with no
 * field initialized. Interrupts off: either may come from softirq context
 * over the other.
 */
#define PIPELINE_JOB_LOCK_BITS	6

static struct {
	raw_spinlock_t lock;
} ____cacheline_aligned_in_smp pipeline_job_locks[1 << PIPELINE_JOB_LOCK_BITS] = {
	[0 ... (1 << PIPELINE_JOB_LOCK_BITS) - 1] = {
		.lock = __RAW_SPIN_LOCK_UNLOCKED(pipeline_job_locks.lock),
	},
};

static raw_spinlock_t *pipeline_job_lock(struct ordsched_job *job)
{
	return &pipeline_job_locks[hash_ptr(job, PIPELINE_JOB_LOCK_BITS)].lock;
}

/* @defer: from the free path, which must not run serial steps. */
static bool pipeline_cancel(struct ordsched_pipeline *pl,
			    struct ordsched_job *job, bool defer)
{
	unsigned long flags;
	bool taken;

	/*
	 * No queueing of the job runs under its lock, so a queueing that
	 * cancel_work() takes is one on @pl: ours, with what it stored
	 * before queue_work(). Nor may one meet cancel_work(), which holds
	 * the PENDING bit of a work not pending (not queued yet, or
	 * started) for a moment: INIT_WORK() in pipeline_start() would
	 * clear the bit under it, or queue_work() find it set and queue
	 * nothing.
	 */
	raw_spin_lock_irqsave(pipeline_job_lock(job), flags);
	taken = READ_ONCE(job->pipeline) == pl && cancel_work(&job->work);
	raw_spin_unlock_irqrestore(pipeline_job_lock(job), flags);
	if (!taken)
		return false;
	pipeline_job_debug_done(job);
	this_cpu_inc(pl->stats->cancelled);
	if (defer)
		ordsched_seq_cancel_nodrain(pl->seq, job->ticket);
	else
		ordsched_seq_cancel(pl->seq, job->ticket);
	return true;
}

static void pipeline_start(struct ordsched_pipeline *pl,
			   struct ordsched_job *job)
{
	unsigned long flags;

	job->item.fn = pipeline_serial;
	job->err = 0;
	this_cpu_inc(pl->stats->queued);
	raw_spin_lock_irqsave(pipeline_job_lock(job), flags);
	WRITE_ONCE(job->pipeline, pl);
	INIT_WORK(&job->work, pipeline_parallel);
	pipeline_job_debug_retrack(job);
	queue_work(pl->wq, &job->work);
	raw_spin_unlock_irqrestore(pipeline_job_lock(job), flags);
}

bool ordsched_pipeline_queue(struct ordsched_pipeline *pl,
			     struct ordsched_job *job)
{
	if (!pipeline_job_debug_activate(job))
		return false;
	if (ordsched_seq_ticket(pl->seq, &job->ticket)) {
		pipeline_job_debug_done(job);
		return false;
	}
	pipeline_start(pl, job);
	return true;
}
EXPORT_SYMBOL_GPL(ordsched_pipeline_queue);

int ordsched_pipeline_queue_wait(struct ordsched_pipeline *pl,
				 struct ordsched_job *job)
{
	int ret;

	if (!pipeline_job_debug_activate(job))
		return -EBUSY;
	ret = ordsched_seq_tickets_wait(pl->seq, 1, &job->ticket);
	if (ret)
		pipeline_job_debug_done(job);
	else
		pipeline_start(pl, job);
	return ret;
}
EXPORT_SYMBOL_GPL(ordsched_pipeline_queue_wait);

bool ordsched_pipeline_cancel(struct ordsched_pipeline *pl,
			      struct ordsched_job *job)
{
	return pipeline_cancel(pl, job, false);
}
EXPORT_SYMBOL_GPL(ordsched_pipeline_cancel);

int ordsched_pipeline_flush(struct ordsched_pipeline *pl)
{
	return ordsched_seq_flush(pl->seq);
}
EXPORT_SYMBOL_GPL(ordsched_pipeline_flush);

struct ordsched_seq *ordsched_pipeline_seq(struct ordsched_pipeline *pl)
{
	return pl->seq;
}
EXPORT_SYMBOL_GPL(ordsched_pipeline_seq);

struct ordsched_pipeline *
ordsched_pipeline_create(const struct ordsched_pipeline_params *params)
{
	struct ordsched_seq_params sp = {};
	struct ordsched_pipeline *pl;

	if (!params || !params->ops || !params->ops->parallel ||
	    !params->ops->serial)
		return ERR_PTR(-EINVAL);
	sp.name = params->name ?: "pipeline";
	sp.ring_order = params->ring_order;
	sp.budget = params->budget;
	sp.wq = params->wq;
	pl = kzalloc(sizeof(*pl), GFP_KERNEL);
	if (!pl)
		return ERR_PTR(-ENOMEM);
	if (ordsched_instance_init(&pl->inst, ORDSCHED_KIND_PIPELINE, sp.name,
				   &pipeline_counters, NULL)) {
		kfree(pl);
		return ERR_PTR(-ENOMEM);
	}
	pl->stats = pl->inst.stats;
	pl->seq = ordsched_seq_create(&sp);
	if (IS_ERR(pl->seq)) {
		int ret = PTR_ERR(pl->seq);

		ordsched_instance_exit(&pl->inst);
		kfree(pl);
		return ERR_PTR(ret);
	}
	pl->ops = params->ops;
	pl->wq = params->wq ?: ordsched_wq;
	return pl;
}
EXPORT_SYMBOL_GPL(ordsched_pipeline_create);

void ordsched_pipeline_destroy(struct ordsched_pipeline *pl)
{
	if (IS_ERR_OR_NULL(pl))
		return;
	/* Every job holds a ticket until its serial step has run. */
	ordsched_seq_destroy(pl->seq);
	ordsched_instance_exit(&pl->inst);
	kfree(pl);
}
EXPORT_SYMBOL_GPL(ordsched_pipeline_destroy);
