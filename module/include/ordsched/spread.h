/* SPDX-License-Identifier: GPL-2.0 */
/* ordsched: the spreader. Include <ordsched.h>. */
#ifndef _ORDSCHED_SPREAD_H
#define _ORDSCHED_SPREAD_H

#include <linux/list.h>
#include <linux/types.h>

struct workqueue_struct;

/* ------------------------------------------------------------------------
 * The spreader
 *
 * Jobs come in groups; jobs of one group contend with each other (they
 * touch the same data), jobs of different groups do not. The spreader
 * interleaves groups so that jobs of one group are dispatched far apart:
 * F lanes each hold one group, and a round-robin pass takes one job from
 * each lane in turn and dispatches it. A lane whose group is used up
 * pulls the next group from the producer, lazily: the spreader never holds
 * more than F groups, however many the producer has.
 *
 * While F or more groups are active, consecutive jobs of one group are
 * exactly F apart in dispatch order. When the producer runs dry the
 * lanes still holding groups go on (closer together), and a kick
 * resumes pulling once the producer has more.
 *
 * The spreader has no queue verb: it pulls. ordsched_spread_kick() tells
 * it the producer has groups again.
 * Contexts: kick in any context, hard interrupt included; flush, create
 * and destroy in process context. The callbacks run in process context in
 * the spreader's work item, one at a time, and may sleep.
 * Ordering: the groups a producer makes before a kick are seen by the
 * pull that follows it.
 * Lifecycle: as every part of ordsched (see <ordsched.h>): flush waits,
 * killably, until the producer is dry and every pulled job dispatched;
 * destroy lets the step under way finish, then hands the groups in hand
 * back through @release, their undispatched jobs still on them.
 */

struct ordsched_spread;

/**
 * struct ordsched_spread_job - one job, embedded by the caller
 * @node: on its group's list until dispatched
 */
struct ordsched_spread_job {
	struct list_head node;
};

/**
 * struct ordsched_spread_group - a group of jobs, embedded by the caller
 * @jobs: the jobs not yet dispatched, in the order they are dispatched
 *
 * Fill @jobs with ordsched_spread_group_add() before handing the group
 * out; an empty group is allowed (it is released at once).
 */
struct ordsched_spread_group {
	struct list_head jobs;
};

/**
 * struct ordsched_spread_ops - what the spreader calls
 * @pull: the next group, or NULL when the producer has none for now (call
 *	ordsched_spread_kick() when it has more)
 * @dispatch: dispatch one job: run it, queue it on a workqueue, a stream,
 *	a keyed executor... The job is the caller's from now on.
 * @release: the group is done with: every job of it has been dispatched,
 *	or the spreader is being destroyed and the jobs left on @jobs were
 *	not. The group is the caller's from now on.
 *
 * All three are called in process context, never two at a time for one
 * spreader, and may sleep (which stalls the spreader, not the system):
 * from the spreader's work item, except @release of the groups that
 * ordsched_spread_destroy() hands back, which runs in destroy's caller.
 * @priv is the one given at creation.
 */
struct ordsched_spread_ops {
	struct ordsched_spread_group *(*pull)(void *priv);
	void (*dispatch)(void *priv, struct ordsched_spread_job *job);
	void (*release)(void *priv, struct ordsched_spread_group *group);
};

/**
 * struct ordsched_spread_params - how to build a spreader
 * @name: names its debugfs folder, "<name>.<id>" (copied, at most 31
 *	bytes, a '/' there as '_'; NULL: the kind's name)
 * @ops: the callbacks (required)
 * @priv: passed to the callbacks
 * @lanes: F, the number of groups interleaved (0: default 4, at most
 *	1024)
 * @budget: most jobs one run dispatches before it requeues itself (0:
 *	default 64); groups pulled empty do not count, so a producer that
 *	hands out a long run of them keeps one run pulling
 * @wq: the workqueue the spreader runs on (NULL: ordsched's own unbound
 *	workqueue); not a BH one (WQ_BH), as the callbacks may sleep
 */
struct ordsched_spread_params {
	const char *name;
	const struct ordsched_spread_ops *ops;
	void *priv;
	unsigned int lanes;
	unsigned int budget;
	struct workqueue_struct *wq;
};

/**
 * struct ordsched_spread_stats - what a spreader has done
 * @groups: groups pulled, empty ones included
 * @empty_groups: groups that had no job
 * @jobs: jobs dispatched
 * @empty_pulls: times the producer had no group when a lane asked
 * @kicks: calls of ordsched_spread_kick()
 * @runs: runs of the spreader's work item
 * @requeues: runs that used up the budget and requeued themselves
 */
struct ordsched_spread_stats {
	u64 groups;
	u64 empty_groups;
	u64 jobs;
	u64 empty_pulls;
	u64 kicks;
	u64 runs;
	u64 requeues;
};

/**
 * ordsched_spread_create() - build a spreader
 * @params: the parameters; @params->ops is required
 *
 * The spreader starts idle: nothing is pulled before the first kick.
 *
 * Context: process context, may sleep.
 * Return: the spreader, or an ERR_PTR(): -EINVAL for NULL @params, missing
 * callbacks or more than 1024 lanes, -ENOMEM.
 */
struct ordsched_spread *
ordsched_spread_create(const struct ordsched_spread_params *params);

/**
 * ordsched_spread_destroy() - stop and free a spreader
 * @sp: the spreader (NULL or an ERR_PTR() is ignored)
 *
 * Stops without waiting for the producer to run dry. The step under way,
 * if any, is waited for: the pulls that look for one lane's group (and
 * the releases of empty groups among them), at most one @dispatch and the
 * @release of a group it used up. No callback runs from the work item
 * after that. Then the
 * groups still in the lanes are handed back through @release, called from
 * here, with the jobs not dispatched still on their lists. To dispatch
 * everything first, call ordsched_spread_flush(). The caller must have
 * stopped kicking; a kick from those @release calls (a producer that
 * kicks whenever it gets a group back) is ignored. The step under way is
 * waited for as long as it takes,
 * without logging.
 *
 * Context: process context, may sleep; not from a callback of @sp.
 */
void ordsched_spread_destroy(struct ordsched_spread *sp);

/**
 * ordsched_spread_kick() - tell the spreader the producer has groups
 * @sp: the spreader
 *
 * Starts the spreader, or makes it pull again after the producer ran dry.
 * Call it after the groups can be pulled.
 *
 * Context: any context, hard interrupt included.
 */
void ordsched_spread_kick(struct ordsched_spread *sp);

/**
 * ordsched_spread_flush() - wait until the spreader has nothing left to do
 * @sp: the spreader
 *
 * Returns once the spreader has stopped with every slot empty and the
 * producer dry when last asked: every job of every group pulled so far
 * has been dispatched. Groups the producer has without a kick since it
 * last answered NULL are not asked for (see ordsched_spread_kick()).
 * Kicks during the wait extend it. The wait is killable: a
 * producer that never runs dry would otherwise hold the caller forever.
 *
 * Context: process context, may sleep; not from a callback of @sp.
 * Return: 0, or -EINTR if a fatal signal came first.
 */
int ordsched_spread_flush(struct ordsched_spread *sp);

/**
 * ordsched_spread_get_stats() - read a spreader's counters
 * @sp: the spreader
 * @stats: where to store them
 *
 * Context: any context.
 */
void ordsched_spread_get_stats(const struct ordsched_spread *sp,
			       struct ordsched_spread_stats *stats);

/**
 * ordsched_spread_group_init() - prepare an empty group
 * @group: the group
 *
 * Context: any context.
 */
static inline void ordsched_spread_group_init(struct ordsched_spread_group *group)
{
	INIT_LIST_HEAD(&group->jobs);
}

/**
 * ordsched_spread_group_add() - append a job to a group not handed out yet
 * @group: the group
 * @job: the job
 *
 * Context: any context; the group must not be in the spreader's hands.
 */
static inline void ordsched_spread_group_add(struct ordsched_spread_group *group,
					     struct ordsched_spread_job *job)
{
	list_add_tail(&job->node, &group->jobs);
}

#endif /* _ORDSCHED_SPREAD_H */
