// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the spreader: groups of varied sizes (empty ones, a huge one)
 * pulled lazily, jobs of a group exactly F apart while the producer keeps
 * up, every job dispatched once, at most F groups in hand, a producer that
 * runs dry and resumes, destroy with groups in hand.
 */
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <ordsched.h>

#include "ktest.h"
#include "suites.h"
#include "util.h"

struct sp_group;

struct sp_job {
	struct ordsched_spread_job job;
	struct sp_group *g;
	u8 dispatched;
};

struct sp_group {
	struct ordsched_spread_group group;
	u32 id;
	u32 n;
	struct sp_job jobs[];
};

#define SP_MAX_GROUPS	600
#define SP_HUGE		3000

/*
 * The producer and the log. The spreader calls back one call at a time,
 * so the callbacks need no locking; the test reads after a flush.
 */
struct sp_test {
	u32 sizes[SP_MAX_GROUPS];
	/* Groups the producer may hand out so far; then it is dry. */
	u32 allow;
	u32 next;
	/* Dispatch position at the first dry pull since allow last grew. */
	u32 dry_at;
	bool dry_seen;
	bool endless;
	/* Groups in hand (pulled, not released) and their peak. */
	u32 live, peak;
	u32 released, leftover_jobs, bad_release;
	/*
	 * The thread in ordsched_spread_destroy(), the groups it released
	 * itself, and callbacks that came from the work item after that.
	 */
	struct task_struct *destroyer;
	u32 by_destroyer, late;
	/* Kick this spreader from each @release destroy makes. */
	struct ordsched_spread *kick_on_release;
	/* Dispatch log: the group of the job at each position. */
	u32 *log;
	u32 pos, log_size;
	u64 total;
};

/* Group @id of @n jobs, each job knowing its group; NULL without memory. */
static struct sp_group *sp_group_alloc(u32 id, u32 n)
{
	struct sp_group *g = kzalloc(struct_size(g, jobs, n), GFP_KERNEL);
	u32 i;

	if (!g)
		return NULL;
	g->id = id;
	g->n = n;
	ordsched_spread_group_init(&g->group);
	for (i = 0; i < n; i++) {
		g->jobs[i].g = g;
		ordsched_spread_group_add(&g->group, &g->jobs[i].job);
	}
	return g;
}

static struct ordsched_spread_group *sp_pull(void *priv)
{
	struct sp_test *st = priv;
	struct sp_group *g;
	u32 n;

	st->late += !!READ_ONCE(st->by_destroyer);
	if (!st->endless && st->next == st->allow) {
		if (!st->dry_seen)
			st->dry_at = st->pos;
		st->dry_seen = true;
		return NULL;
	}
	n = st->endless ? 10 : st->sizes[st->next];
	g = sp_group_alloc(st->next, n);
	if (!g)
		return NULL;
	st->next++;
	st->total += n;
	st->peak = max(st->peak, ++st->live);
	return &g->group;
}

static void sp_dispatch(void *priv, struct ordsched_spread_job *job)
{
	struct sp_test *st = priv;
	struct sp_job *j = container_of(job, struct sp_job, job);

	st->late += !!READ_ONCE(st->by_destroyer);
	j->dispatched++;
	if (st->pos < st->log_size)
		st->log[st->pos] = j->g->id;
	st->pos++;
}

static void sp_release(void *priv, struct ordsched_spread_group *group)
{
	struct sp_test *st = priv;
	struct sp_group *g = container_of(group, struct sp_group, group);
	u32 i, left = 0;

	if (current == READ_ONCE(st->destroyer)) {
		WRITE_ONCE(st->by_destroyer, st->by_destroyer + 1);
		if (st->kick_on_release)
			ordsched_spread_kick(st->kick_on_release);
	} else {
		st->late += !!READ_ONCE(st->by_destroyer);
	}
	for (i = 0; i < g->n; i++) {
		left += !g->jobs[i].dispatched;
		/* Every job is either dispatched once or handed back. */
		st->bad_release += g->jobs[i].dispatched > 1 ||
				   (g->jobs[i].dispatched &&
				    !list_empty(&g->jobs[i].job.node));
	}
	st->leftover_jobs += left;
	st->released++;
	st->live--;
	kfree(g);
}

static const struct ordsched_spread_ops sp_ops = {
	.pull = sp_pull,
	.dispatch = sp_dispatch,
	.release = sp_release,
};

/*
 * Check the log from position @from to @to (exclusive): consecutive jobs
 * of a group dispatched before the producer ran dry are F apart.
 */
static void sp_check_spacing(struct ktest *t, struct sp_test *st, u32 f,
			     u32 from, u32 to)
{
	u32 *last, p, checked = 0, bad = 0;

	last = vmalloc(array_size(SP_MAX_GROUPS, sizeof(*last)));
	if (!KT_EXPECT(t, last))
		return;
	memset(last, 0xff, array_size(SP_MAX_GROUPS, sizeof(*last)));
	for (p = from; p < to; p++) {
		u32 g = st->log[p];

		if (last[g] != U32_MAX && p < st->dry_at) {
			checked++;
			if (p - last[g] != f && !bad++)
				ktest_diag(t, "group %u at %u and %u, F = %u",
					   g, last[g], p, f);
		}
		last[g] = p;
	}
	KT_EXPECT_EQ(t, bad, 0);
	KT_EXPECT(t, checked > 0);
	vfree(last);
}

static struct sp_test *sp_test_alloc(u32 seed)
{
	struct sp_test *st = vzalloc(sizeof(*st));
	u32 i, rnd = seed;

	if (!st)
		return NULL;
	/* 0 to 40 jobs, one in eight groups empty, group 5 huge. */
	for (i = 0; i < SP_MAX_GROUPS; i++)
		st->sizes[i] = kt_rand(&rnd) % 8 ? kt_rand(&rnd) % 41 : 0;
	st->sizes[5] = SP_HUGE;
	st->log_size = SP_MAX_GROUPS * 40 + SP_HUGE;
	st->log = vmalloc(array_size(st->log_size, sizeof(*st->log)));
	if (!st->log) {
		vfree(st);
		return NULL;
	}
	return st;
}

static void sp_test_free(struct sp_test *st)
{
	vfree(st->log);
	vfree(st);
}

/* Let the producer hand out up to @allow groups, kick, wait, check. */
static void sp_phase(struct ktest *t, struct ordsched_spread *sp,
		     struct sp_test *st, u32 f, u32 allow)
{
	u32 from = st->pos;

	st->allow = allow;
	st->dry_seen = false;
	ordsched_spread_kick(sp);
	ordsched_spread_flush(sp);
	KT_EXPECT(t, st->dry_seen);
	KT_EXPECT_EQ(t, st->live, 0);
	KT_EXPECT_EQ(t, st->next, allow);
	sp_check_spacing(t, st, f, from, st->pos);
}

static void spacing(struct ktest *t, u32 f, u32 budget)
{
	struct ordsched_spread_params p = {
		.name = "spacing", .ops = &sp_ops, .lanes = f,
		.budget = budget,
	};
	struct ordsched_spread_stats stats;
	struct ordsched_spread *sp;
	struct sp_test *st;
	u32 i, empty = 0;

	st = sp_test_alloc(0x51ed + f);
	if (!KT_EXPECT(t, st))
		return;
	p.priv = st;
	sp = ordsched_spread_create(&p);
	if (!KT_EXPECT(t, !IS_ERR(sp)))
		goto out;
	/* Two runs dry: the producer resumes after each. */
	sp_phase(t, sp, st, f, 200);
	sp_phase(t, sp, st, f, 350);
	sp_phase(t, sp, st, f, SP_MAX_GROUPS);

	KT_EXPECT_EQ(t, st->pos, st->total);
	KT_EXPECT_EQ(t, st->released, SP_MAX_GROUPS);
	KT_EXPECT_EQ(t, st->leftover_jobs, 0);
	KT_EXPECT_EQ(t, st->bad_release, 0);
	/* Memory in hand: at most F groups at any time. */
	KT_EXPECT(t, st->peak <= f);
	for (i = 0; i < SP_MAX_GROUPS; i++)
		empty += !st->sizes[i];
	ordsched_spread_get_stats(sp, &stats);
	KT_EXPECT_EQ(t, stats.groups, SP_MAX_GROUPS);
	KT_EXPECT_EQ(t, stats.empty_groups, empty);
	KT_EXPECT_EQ(t, stats.jobs, st->total);
	KT_EXPECT(t, stats.requeues > 0);
	/* Asked again only after a kick: one dry answer per phase. */
	KT_EXPECT_EQ(t, stats.empty_pulls, 3);
	KT_EXPECT_EQ(t, stats.kicks, 3);
	ktest_diag(t, "F = %u: %llu jobs in %u groups (%u empty)",
		   f, st->total, SP_MAX_GROUPS, empty);
	ktest_diag(t, "%llu runs, %llu requeues, the producer dry %llu times",
		   stats.runs, stats.requeues, stats.empty_pulls);
	ordsched_spread_destroy(sp);
out:
	sp_test_free(st);
}

static void spacing_f4(struct ktest *t)
{
	spacing(t, 4, 0);
}

/* An odd F and a budget that ends passes mid-round. */
static void spacing_f7_budget(struct ktest *t)
{
	spacing(t, 7, 10);
}

static void spacing_f1(struct ktest *t)
{
	spacing(t, 1, 3);
}

/*
 * An endless producer: destroy stops the spreader and hands back the
 * groups in hand, their undispatched jobs still on them, releasing them
 * itself once no callback can come from the work item. The lanes' groups
 * run out in step, so the stop may find from none to all 3 in hand: a
 * run that found none tests nothing of the hand-back and is run again.
 * Returns the groups destroy handed back.
 */
static unsigned int destroy_in_flight_once(struct ktest *t)
{
	struct ordsched_spread_params p = {
		.name = "endless", .ops = &sp_ops, .lanes = 3,
	};
	struct ordsched_spread *sp;
	unsigned int i, handed = 0;
	struct sp_test *st;

	st = sp_test_alloc(1);
	if (!KT_EXPECT(t, st))
		return 0;
	st->endless = true;
	p.priv = st;
	sp = ordsched_spread_create(&p);
	if (!KT_EXPECT(t, !IS_ERR(sp)))
		goto out;
	ordsched_spread_kick(sp);
	for (i = 0; i < 500 && READ_ONCE(st->pos) < 1000; i++)
		msleep(20);
	WRITE_ONCE(st->destroyer, current);
	ordsched_spread_destroy(sp);
	KT_EXPECT_EQ(t, st->late, 0);
	handed = st->by_destroyer;
	KT_EXPECT(t, st->pos >= 1000);
	KT_EXPECT_EQ(t, st->live, 0);
	KT_EXPECT_EQ(t, st->released, st->next);
	KT_EXPECT_EQ(t, st->pos + st->leftover_jobs, st->total);
	KT_EXPECT_EQ(t, st->bad_release, 0);
out:
	sp_test_free(st);
	return handed;
}

static void destroy_in_flight(struct ktest *t)
{
	unsigned int run, handed = 0;

	for (run = 0; run < 8 && !handed && !t->failed; run++)
		handed = destroy_in_flight_once(t);
	ktest_diag(t, "%u groups handed back by destroy, run %u", handed,
		   run);
	KT_EXPECT(t, handed > 0);
}

struct sp_blocker {
	struct work_struct work;
	struct completion go;
};

static void sp_blocker_fn(struct work_struct *work)
{
	struct sp_blocker *b = container_of(work, struct sp_blocker, work);

	wait_for_completion_timeout(&b->go, 10 * HZ);
}

/*
 * spread.h destroy: "a kick from those @release calls ... is ignored".
 * The stopped run had taken wip to 0, so such a kick queued the work item
 * of the spreader that destroy then freed. On an ordered workqueue held
 * by a blocker queued behind the run, that work is still pending at the
 * free (debug kernel: ODEBUG, free active work_struct; then KASAN in the
 * work). The budget never ends the run: it stops only for destroy. Three
 * rounds, as a stop may find no group in hand.
 */
static void destroy_release_kicks(struct ktest *t)
{
	struct ordsched_spread_params p = {
		.name = "kicked", .ops = &sp_ops, .lanes = 3,
		.budget = UINT_MAX,
	};
	struct ordsched_spread *sp;
	struct sp_blocker b;
	struct sp_test *st;
	int round, i;
	u32 back = 0;

	p.wq = alloc_ordered_workqueue("ordsched_test_spread", 0);
	if (!KT_EXPECT(t, p.wq))
		return;
	INIT_WORK_ONSTACK(&b.work, sp_blocker_fn);
	for (round = 0; round < 3; round++) {
		st = sp_test_alloc(round + 2);
		if (!KT_EXPECT(t, st))
			break;
		st->endless = true;
		p.priv = st;
		sp = ordsched_spread_create(&p);
		if (!KT_EXPECT(t, !IS_ERR(sp))) {
			sp_test_free(st);
			break;
		}
		ordsched_spread_kick(sp);
		for (i = 0; i < 500 && READ_ONCE(st->pos) < 1000; i++)
			msleep(20);
		init_completion(&b.go);
		KT_EXPECT(t, queue_work(p.wq, &b.work));
		WRITE_ONCE(st->destroyer, current);
		st->kick_on_release = sp;
		ordsched_spread_destroy(sp);
		complete(&b.go);
		flush_workqueue(p.wq);
		back += st->by_destroyer;
		KT_EXPECT_EQ(t, st->late, 0);
		KT_EXPECT_EQ(t, st->live, 0);
		KT_EXPECT_EQ(t, st->bad_release, 0);
		sp_test_free(st);
	}
	ktest_diag(t, "%u groups handed back by destroy, each kicking", back);
	KT_EXPECT(t, back > 0);
	destroy_work_on_stack(&b.work);
	destroy_workqueue(p.wq);
}

/*
 * A producer that kicks each time it answers dry, then has a group again:
 * the passes of one run after those kicks share its budget.
 */
struct sp_kicker {
	struct ordsched_spread *sp;
	u32 calls, made, jobs;
};

#define SP_KICKER_GROUPS	10
#define SP_KICKER_JOBS		3

static struct ordsched_spread_group *sp_kicker_pull(void *priv)
{
	struct sp_kicker *k = priv;
	struct sp_group *g;

	if (k->made == SP_KICKER_GROUPS)
		return NULL;
	if (k->calls++ % 2) {
		ordsched_spread_kick(k->sp);
		return NULL;
	}
	g = sp_group_alloc(k->made, SP_KICKER_JOBS);
	if (!g)
		return NULL;
	k->made++;
	return &g->group;
}

static void sp_kicker_dispatch(void *priv, struct ordsched_spread_job *job)
{
	((struct sp_kicker *)priv)->jobs++;
}

static void sp_kicker_release(void *priv, struct ordsched_spread_group *group)
{
	kfree(container_of(group, struct sp_group, group));
}

static const struct ordsched_spread_ops sp_kicker_ops = {
	.pull = sp_kicker_pull,
	.dispatch = sp_kicker_dispatch,
	.release = sp_kicker_release,
};

/*
 * "@budget: most jobs one run dispatches before it requeues itself",
 * also when the producer kicks during the run: one lane, a budget of 4,
 * groups of 3 with a dry answer and a kick between them. A run that
 * started its count afresh at each kick dispatched all 30 jobs.
 */
static void budget_spans_kicks(struct ktest *t)
{
	struct sp_kicker k = {};
	struct ordsched_spread_params p = {
		.name = "kicker", .ops = &sp_kicker_ops, .priv = &k,
		.lanes = 1, .budget = 4,
	};
	struct ordsched_spread_stats stats;

	k.sp = ordsched_spread_create(&p);
	if (!KT_EXPECT(t, !IS_ERR(k.sp)))
		return;
	ordsched_spread_kick(k.sp);
	KT_EXPECT_EQ(t, ordsched_spread_flush(k.sp), 0);
	ordsched_spread_get_stats(k.sp, &stats);
	KT_EXPECT_EQ(t, k.jobs, SP_KICKER_GROUPS * SP_KICKER_JOBS);
	KT_EXPECT_EQ(t, stats.jobs, k.jobs);
	KT_EXPECT(t, stats.jobs <= stats.runs * p.budget);
	KT_EXPECT(t, stats.requeues > 0);
	ktest_diag(t, "%llu jobs in %llu runs, %llu requeues",
		   stats.jobs, stats.runs, stats.requeues);
	ordsched_spread_destroy(k.sp);
}

static void bad_params(struct ktest *t)
{
	struct ordsched_spread_ops no_pull = { .dispatch = sp_dispatch,
					       .release = sp_release };
	struct ordsched_spread_params p = { .ops = &no_pull };

	KT_EXPECT_EQ(t, PTR_ERR(ordsched_spread_create(NULL)), -EINVAL);
	KT_EXPECT_EQ(t, PTR_ERR(ordsched_spread_create(&p)), -EINVAL);
	p.ops = &sp_ops;
	p.lanes = 1025;
	KT_EXPECT_EQ(t, PTR_ERR(ordsched_spread_create(&p)), -EINVAL);
}

static const struct ktest_case spread_cases[] = {
	KT_CASE(bad_params),
	KT_CASE(spacing_f1),
	KT_CASE(spacing_f4),
	KT_CASE(spacing_f7_budget),
	KT_CASE(destroy_in_flight),
	KT_CASE(destroy_release_kicks),
	KT_CASE(budget_spans_kicks),
	KT_END
};

const struct ktest_suite ordsched_spread_suite = KT_SUITE("spread", spread_cases);
