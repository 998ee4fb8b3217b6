// SPDX-License-Identifier: GPL-2.0
/*
 * The spreader: interleave lazily produced groups of jobs so that jobs of
 * one group are dispatched F apart.
 *
 * The spreader is one work item. Its state (the F lane slots, the slot
 * whose turn it is, whether the producer is dry) is touched by that work
 * item only, and the workqueue never runs one work item twice at once, so
 * it needs no lock, and the callbacks are never called concurrently.
 *
 * A pass visits the slots round robin. A slot with a group gives its next
 * job; an empty slot first pulls a group from the producer (releasing
 * empty groups at once and pulling again). A slot that gets nothing
 * because the producer is dry is skipped, and the producer is not asked
 * again until it kicks: the spreader remembers the kick count at the dry
 * answer. A group lives in one slot from its first job to
 * its last, and every visit to a slot whose group has jobs left
 * dispatches one, so while all F slots hold groups, consecutive jobs of a
 * group are exactly F apart. The slot and turn survive the budget's
 * requeue, so the spacing does too.
 *
 * Kicks and the work item meet in a work-in-progress counter, as in the
 * serial streams (stream.c): a kick increments it and schedules the work
 * on 0 -> 1; the work subtracts what it has accounted for once it has
 * nothing left to dispatch, and goes around again if a kick came in
 * meanwhile, which also moved the kick count past the dry answer. A kick
 * after a dry pull is therefore never lost.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/err.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <ordsched.h>

#include "internal.h"
#include "trace.h"

#define SPREAD_DEFAULT_LANES	4
#define SPREAD_MAX_LANES	1024
#define SPREAD_DEFAULT_BUDGET	64

struct ordsched_spread {
	const struct ordsched_spread_ops *ops;
	void *priv;
	struct workqueue_struct *wq;
	struct work_struct work;
	/* Kicks not yet accounted for by the work item. */
	atomic_long_t wip;
	/*
	 * Kicks ever; the producer was dry as of dry_kicks of them. Both
	 * counters long: 2^32 kicks during one run of the work item, which
	 * a callback that sleeps allows, wrapped an int to the value the
	 * run had seen (a lost kick, or a flush returning early).
	 */
	atomic_long_t kicks;
	/* Set by destroy: the work item stops at its next job. */
	bool stopping;
	/* The work item's own state: no lock, see the top comment. */
	bool dry;
	long dry_kicks;
	unsigned int turn;
	unsigned int nr_lanes;
	struct ordsched_spread_group **lanes;
	unsigned int budget;
	/* Flushers wait for wip to reach 0. */
	wait_queue_head_t waitq;
	/* Name, id, counters, debugfs; @stats is its counters, typed. */
	struct ordsched_instance inst;
	struct ordsched_spread_stats __percpu *stats;
};

ORDSCHED_COUNTERS(spread_counters, struct ordsched_spread_stats, 0,
		  "groups", "empty_groups", "jobs", "empty_pulls", "kicks", "runs",
		  "requeues");

/* Fill slot @i from the producer unless it is dry; false if still empty. */
static bool spread_fill(struct ordsched_spread *sp, unsigned int i)
{
	struct ordsched_spread_group *group;
	long kicks;

	for (;;) {
		/*
		 * Read before the pull, so a kick that comes while the
		 * producer answers NULL counts as after it. The acquire
		 * pairs with the barrier in ordsched_spread_kick(): a kick
		 * seen here comes with the groups made before it.
		 */
		kicks = atomic_long_read_acquire(&sp->kicks);
		/* Ask a dry producer again only after a kick. */
		if (sp->dry && kicks == sp->dry_kicks)
			return false;
		sp->dry = false;
		group = sp->ops->pull(sp->priv);
		if (!group) {
			sp->dry = true;
			sp->dry_kicks = kicks;
			this_cpu_inc(sp->stats->empty_pulls);
			trace_ordsched_spread_dry(sp->inst.id);
			break;
		}
		this_cpu_inc(sp->stats->groups);
		trace_ordsched_spread_pull(sp->inst.id, i, group);
		if (!list_empty(&group->jobs)) {
			sp->lanes[i] = group;
			return true;
		}
		this_cpu_inc(sp->stats->empty_groups);
		sp->ops->release(sp->priv, group);
	}
	return false;
}

/* Dispatch the next job of slot @i; false if the slot stays empty. */
static bool spread_one(struct ordsched_spread *sp, unsigned int i)
{
	struct ordsched_spread_group *group;
	struct ordsched_spread_job *job;
	bool last;

	if (!sp->lanes[i] && !spread_fill(sp, i))
		return false;
	group = sp->lanes[i];
	job = list_first_entry(&group->jobs, struct ordsched_spread_job, node);
	list_del_init(&job->node);
	last = list_empty(&group->jobs);
	if (last)
		sp->lanes[i] = NULL;
	trace_ordsched_spread_dispatch(sp->inst.id, i, job);
	sp->ops->dispatch(sp->priv, job);
	this_cpu_inc(sp->stats->jobs);
	/* After the dispatch: the job may live inside its group. */
	if (last)
		sp->ops->release(sp->priv, group);
	return true;
}

/*
 * Round robin over the slots until all of them came up empty in a row
 * (false) or the budget is spent with jobs left (true). *@n counts the
 * jobs of the whole run, its passes after a kick included.
 */
static bool spread_pass(struct ordsched_spread *sp, unsigned int *n)
{
	unsigned int empty = 0;

	while (empty < sp->nr_lanes) {
		if (READ_ONCE(sp->stopping))
			return false;
		if (*n == sp->budget)
			return true;
		if (spread_one(sp, sp->turn)) {
			(*n)++;
			empty = 0;
		} else {
			empty++;
		}
		sp->turn = (sp->turn + 1) % sp->nr_lanes;
	}
	return false;
}

static void spread_work_fn(struct work_struct *work)
{
	struct ordsched_spread *sp = container_of(work, struct ordsched_spread,
						  work);
	unsigned int n = 0;
	long missed;

	this_cpu_inc(sp->stats->runs);
	/*
	 * The acquire pairs with the fully ordered increment in
	 * ordsched_spread_kick(): the groups the producer made before
	 * kicking are there to pull.
	 */
	missed = atomic_long_read_acquire(&sp->wip);
	for (;;) {
		if (spread_pass(sp, &n)) {
			/* wip stays non-zero: no other run is scheduled. */
			this_cpu_inc(sp->stats->requeues);
			queue_work(sp->wq, &sp->work);
			return;
		}
		/*
		 * Nothing left to dispatch. Fully ordered; pairs with the
		 * increment in ordsched_spread_kick(): a kick after our dry
		 * pull either shows here, or finds 0 and schedules us.
		 */
		missed = atomic_long_sub_return(missed, &sp->wip);
		if (!missed)
			break;
	}
	wake_up_all(&sp->waitq);
}

void ordsched_spread_kick(struct ordsched_spread *sp)
{
	this_cpu_inc(sp->stats->kicks);
	/*
	 * Destroy under way: from @release of a group it hands back (the
	 * only kick allowed then), a queued work item would outlive @sp.
	 */
	if (READ_ONCE(sp->stopping))
		return;
	/*
	 * The producer's groups before the count: pairs with the acquire
	 * in spread_fill(). The count before wip: a pass that sees this
	 * kick in wip sees it in the count too.
	 */
	smp_mb__before_atomic();
	atomic_long_inc(&sp->kicks);
	/* Fully ordered; pairs with the acquire and the subtraction above. */
	if (atomic_long_inc_return(&sp->wip) == 1)
		queue_work(sp->wq, &sp->work);
}
EXPORT_SYMBOL_GPL(ordsched_spread_kick);

int ordsched_spread_flush(struct ordsched_spread *sp)
{
	might_sleep();
	/* The acquire pairs with the work item's fully ordered subtraction. */
	if (wait_event_killable(sp->waitq, !atomic_long_read_acquire(&sp->wip)))
		return -EINTR;
	return 0;
}
EXPORT_SYMBOL_GPL(ordsched_spread_flush);

void ordsched_spread_get_stats(const struct ordsched_spread *sp,
			       struct ordsched_spread_stats *stats)
{
	ordsched_instance_sum(&sp->inst, (u64 *)stats);
}
EXPORT_SYMBOL_GPL(ordsched_spread_get_stats);

/* The lines of the debugfs "stats" file before the counters. */
static void spread_show(struct seq_file *m, struct ordsched_instance *inst)
{
	struct ordsched_spread *sp = container_of(inst, struct ordsched_spread,
						  inst);

	seq_printf(m, "lanes: %u\nbudget: %u\nbusy: %d\n", sp->nr_lanes,
		   sp->budget, atomic_long_read(&sp->wip) != 0);
}

struct ordsched_spread *
ordsched_spread_create(const struct ordsched_spread_params *params)
{
	const struct ordsched_spread_ops *ops = params ? params->ops : NULL;
	unsigned int f = params && params->lanes ? params->lanes :
						     SPREAD_DEFAULT_LANES;
	struct ordsched_spread *sp;

	if (!ops || !ops->pull || !ops->dispatch || !ops->release ||
	    f > SPREAD_MAX_LANES)
		return ERR_PTR(-EINVAL);
	sp = kzalloc(sizeof(*sp), GFP_KERNEL);
	if (!sp)
		return ERR_PTR(-ENOMEM);
	sp->lanes = kcalloc(f, sizeof(*sp->lanes), GFP_KERNEL);
	if (!sp->lanes)
		goto err_free_sp;

	sp->ops = ops;
	sp->priv = params->priv;
	sp->wq = params->wq ?: ordsched_wq;
	INIT_WORK(&sp->work, spread_work_fn);
	atomic_long_set(&sp->wip, 0);
	atomic_long_set(&sp->kicks, 0);
	sp->nr_lanes = f;
	sp->budget = params->budget ?: SPREAD_DEFAULT_BUDGET;
	init_waitqueue_head(&sp->waitq);
	if (ordsched_instance_init(&sp->inst, ORDSCHED_KIND_SPREAD,
				   params->name, &spread_counters, spread_show))
		goto err_free_lanes;
	sp->stats = sp->inst.stats;
	return sp;

err_free_lanes:
	kfree(sp->lanes);
err_free_sp:
	kfree(sp);
	return ERR_PTR(-ENOMEM);
}
EXPORT_SYMBOL_GPL(ordsched_spread_create);

void ordsched_spread_destroy(struct ordsched_spread *sp)
{
	unsigned int i;

	if (IS_ERR_OR_NULL(sp))
		return;
	WRITE_ONCE(sp->stopping, true);
	/* Waits for a running pass and copes with its requeue. */
	cancel_work_sync(&sp->work);
	for (i = 0; i < sp->nr_lanes; i++) {
		if (sp->lanes[i])
			sp->ops->release(sp->priv, sp->lanes[i]);
	}
	ordsched_instance_exit(&sp->inst);
	kfree(sp->lanes);
	kfree(sp);
}
EXPORT_SYMBOL_GPL(ordsched_spread_destroy);
