// SPDX-License-Identifier: GPL-2.0
/*
 * Every call whose kernel-doc allows hard interrupt ("any context"), made
 * from a hard-irq hrtimer (HRTIMER_MODE_REL_HARD, which stays in hard
 * interrupt on PREEMPT_RT too). On the debug kernel, lockdep with
 * PROVE_RAW_LOCK_NESTING reports any spinlock_t such a call takes, as
 * PREEMPT_RT would make it sleep; on the RT kernels the calls really run
 * there. The results are checked too: each call must have done its job.
 */
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/slab.h>
#include <ordsched.h>

#include "compat.h"
#include "suites.h"
#include "util.h"

/* ---- calling a function in hard interrupt ------------------------------ */

struct in_irq {
	struct hrtimer timer;
	void (*fn)(void *data);
	void *data;
	bool hardirq;
	atomic_t done;
};

static enum hrtimer_restart in_irq_timer(struct hrtimer *timer)
{
	struct in_irq *c = container_of(timer, struct in_irq, timer);

	c->hardirq = in_hardirq() && irqs_disabled();
	c->fn(c->data);
	atomic_set_release(&c->done, 1);
	return HRTIMER_NORESTART;
}

/*
 * Run a hard-irq hrtimer with @fn until it sets @done (it returns
 * HRTIMER_RESTART meanwhile, or not), then stop it.
 */
static void run_hard_timer(struct hrtimer *timer,
			   enum hrtimer_restart (*fn)(struct hrtimer *),
			   atomic_t *done)
{
	ordsched_hrtimer_setup(timer, fn, CLOCK_MONOTONIC,
			       HRTIMER_MODE_REL_HARD);
	hrtimer_start(timer, ns_to_ktime(15 * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_HARD);
	while (!atomic_read_acquire(done))
		usleep_range(200, 500);
	hrtimer_cancel(timer);
}

/* Run @fn(@data) once in hard interrupt; true if it really ran there. */
static bool run_in_hardirq(void (*fn)(void *data), void *data)
{
	struct in_irq *c;
	bool hardirq;

	/* Not on the stack: debugobjects wants timers there annotated. */
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return false;
	c->fn = fn;
	c->data = data;
	run_hard_timer(&c->timer, in_irq_timer, &c->done);
	hardirq = c->hardirq;
	kfree(c);
	return hardirq;
}

/* ---- every "any context" call of every part ---------------------------- */

struct all_apis {
	/* seq and pipeline */
	struct ordsched_seq *seq;
	struct ordsched_pipeline *pl;
	struct ordsched_seq_item items[2];
	u64 first, tail, ran_tickets[2];
	unsigned int seq_ran;
	struct ordsched_seq *pl_seq;
	/* streams */
	struct ordsched_stream stream, stream2;
	struct ordsched_stream_item sitem[2];
	atomic_t sran[2];
	bool scancelled;
	struct ordsched_stream_stats sstats;
	/* keyed */
	struct ordsched_keyed *kx;
	struct ordsched_keyed_task ktask;
	u64 live_keys;
	/* spread */
	struct ordsched_spread *sp;
	struct ordsched_spread_stats spstats;
	/* delay */
	struct ordsched_delay *d;
	struct ordsched_delay_task dtask[7];
	atomic_t dran[7];
	bool dret[7];
	bool dcancelled;
	struct ordsched_delay_stats dstats;
};

static struct all_apis *all_apis;

static void all_seq_fn(struct ordsched_seq_item *item, u64 ticket)
{
	struct all_apis *a = all_apis;

	if (a->seq_ran < 2)
		a->ran_tickets[a->seq_ran] = ticket;
	a->seq_ran++;
}

static void all_stream_fn(struct ordsched_stream_item *item)
{
	struct all_apis *a = all_apis;

	atomic_inc(&a->sran[item - a->sitem]);
}

static void all_keyed_fn(struct ordsched_keyed_task *task)
{
}

static int all_parallel(struct ordsched_job *job)
{
	return 0;
}

static void all_serial(struct ordsched_job *job, int err)
{
}

static const struct ordsched_pipeline_ops all_pipeline_ops = {
	.parallel = all_parallel,
	.serial = all_serial,
};

static struct ordsched_spread_group *all_pull(void *priv)
{
	return NULL;	/* always dry: the kick is what is tested */
}

static void all_dispatch(void *priv, struct ordsched_spread_job *job)
{
}

static void all_release(void *priv, struct ordsched_spread_group *group)
{
}

static const struct ordsched_spread_ops all_spread_ops = {
	.pull = all_pull,
	.dispatch = all_dispatch,
	.release = all_release,
};

static void all_delay_fn(struct ordsched_delay_task *task)
{
	struct all_apis *a = all_apis;

	atomic_inc(&a->dran[task - a->dtask]);
}

static void all_apis_irq(void *data)
{
	struct all_apis *a = data;
	int ret;

	ret = ordsched_seq_tickets(a->seq, 2, &a->first);
	if (ret)
		a->first = U64_MAX;
	a->tail = ordsched_seq_tail(a->seq);
	a->pl_seq = ordsched_pipeline_seq(a->pl);

	ordsched_stream_init(&a->stream2, NULL);
	ordsched_stream_item_init(&a->sitem[0], all_stream_fn);
	ordsched_stream_item_init(&a->sitem[1], all_stream_fn);
	ordsched_stream_queue(&a->stream, &a->sitem[0]);
	ordsched_stream_queue(&a->stream, &a->sitem[1]);
	a->scancelled = ordsched_stream_cancel(&a->stream, &a->sitem[1]);
	ordsched_stream_set_get_stats(NULL, &a->sstats);

	ordsched_keyed_task_init(&a->ktask, all_keyed_fn, NULL, NULL, 0);
	a->live_keys = ordsched_keyed_live_keys(a->kx);
	ordsched_keyed_get_stats(a->kx, &(struct ordsched_keyed_stats){});

	ordsched_spread_kick(a->sp);
	ordsched_spread_get_stats(a->sp, &a->spstats);

	ordsched_delay_task_init(&a->dtask[0], all_delay_fn, NULL);
	ordsched_delay_task_init(&a->dtask[1], all_delay_fn, NULL);
	ordsched_delay_task_init_stream(&a->dtask[2], all_delay_fn, &a->stream);
	ordsched_delay_task_init(&a->dtask[3], all_delay_fn, NULL);
	ordsched_delay_task_init(&a->dtask[4], all_delay_fn, NULL);
	ordsched_delay_task_init(&a->dtask[5], all_delay_fn, NULL);
	ordsched_delay_task_init_irq(&a->dtask[6], all_delay_fn);
	a->dret[0] = ordsched_delay_queue(a->d, &a->dtask[0], 1000);
	a->dret[1] = ordsched_delay_queue_at(a->d, &a->dtask[1], 0);
	a->dret[2] = ordsched_delay_queue(a->d, &a->dtask[2], 2000);
	/* Far away: the cancel that follows must win. */
	if (ordsched_delay_queue(a->d, &a->dtask[3], 3600 * NSEC_PER_SEC))
		a->dcancelled = ordsched_delay_cancel(a->d, &a->dtask[3]);
	/* Far away, then moved near: pending, so true. */
	if (ordsched_delay_queue_range(a->d, &a->dtask[4], U64_MAX, 1000,
				       ORDSCHED_DELAY_QUEUE_NEW))
		a->dret[3] = ordsched_delay_mod(a->d, &a->dtask[4], 1000);
	/* Idle: queued by the modify, which says false. */
	a->dret[4] = !ordsched_delay_mod_at(a->d, &a->dtask[5], 0);
	a->dret[5] = ordsched_delay_queue_range(a->d, &a->dtask[5], 0, 0,
						ORDSCHED_DELAY_QUEUE_MOD);
	/* An interrupt task, run by the scheduler's own hard-irq timer. */
	a->dret[6] = ordsched_delay_queue(a->d, &a->dtask[6], 3000);
	ordsched_delay_get_stats(a->d, &a->dstats);
}

static void every_api(struct ktest *t)
{
	struct ordsched_pipeline_params pp = { .ops = &all_pipeline_ops };
	struct ordsched_spread_params spp = { .ops = &all_spread_ops };
	struct ordsched_spread_stats spstats;
	struct all_apis *a;
	int i;

	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!KT_EXPECT(t, a))
		return;
	all_apis = a;
	a->seq = ordsched_seq_create(NULL);
	a->pl = ordsched_pipeline_create(&pp);
	a->kx = ordsched_keyed_create(NULL);
	a->sp = ordsched_spread_create(&spp);
	a->d = ordsched_delay_create(NULL);
	if (!KT_EXPECT(t, !IS_ERR(a->seq) && !IS_ERR(a->pl) &&
		       !IS_ERR(a->kx) && !IS_ERR(a->sp) && !IS_ERR(a->d)))
		goto out;
	ordsched_stream_init(&a->stream, NULL);

	KT_EXPECT(t, run_in_hardirq(all_apis_irq, a));

	/* The tickets taken in hard irq are handed in from here. */
	KT_EXPECT_EQ(t, a->first, 0);
	KT_EXPECT_EQ(t, a->tail, 0);
	for (i = 0; i < 2; i++)
		a->items[i].fn = all_seq_fn;
	if (a->first != U64_MAX) {
		ordsched_seq_queue(a->seq, a->first + 1, &a->items[1]);
		ordsched_seq_queue(a->seq, a->first, &a->items[0]);
		ordsched_seq_flush(a->seq);
		KT_EXPECT_EQ(t, a->seq_ran, 2);
		KT_EXPECT_EQ(t, a->ran_tickets[0], 0);
		KT_EXPECT_EQ(t, a->ran_tickets[1], 1);
	}
	KT_EXPECT(t, a->pl_seq);

	ordsched_delay_flush(a->d);
	ordsched_stream_flush(&a->stream);
	KT_EXPECT_EQ(t, atomic_read(&a->sran[0]), 1);
	/* Cancelled xor ran, exactly once. */
	KT_EXPECT_EQ(t, atomic_read(&a->sran[1]), !a->scancelled);
	for (i = 0; i < 7; i++)
		KT_EXPECT(t, a->dret[i]);
	KT_EXPECT(t, a->dcancelled);
	for (i = 0; i < 7; i++)
		KT_EXPECT_EQ(t, atomic_read(&a->dran[i]), i != 3);
	KT_EXPECT_EQ(t, a->dstats.queued, 7);
	KT_EXPECT_EQ(t, a->dstats.modified, 2);
	KT_EXPECT_EQ(t, a->dstats.cancels, 1);
	KT_EXPECT_EQ(t, a->live_keys, 0);

	ordsched_spread_flush(a->sp);
	ordsched_spread_get_stats(a->sp, &spstats);
	KT_EXPECT_EQ(t, spstats.kicks, 1);
	ordsched_stream_destroy(&a->stream2);
out:
	if (!IS_ERR_OR_NULL(a->d))
		ordsched_delay_destroy(a->d);
	ordsched_stream_destroy(&a->stream);
	if (!IS_ERR_OR_NULL(a->sp))
		ordsched_spread_destroy(a->sp);
	if (!IS_ERR_OR_NULL(a->kx))
		ordsched_keyed_destroy(a->kx);
	if (!IS_ERR_OR_NULL(a->pl))
		ordsched_pipeline_destroy(a->pl);
	if (!IS_ERR_OR_NULL(a->seq))
		ordsched_seq_destroy(a->seq);
	all_apis = NULL;
	kfree(a);
}

/* ---- delays submitted, cancelled and moved in hard irq, racing expiry -- */

#define RACE_TASKS	3000
/* A task is cancelled or moved this many ticks after its submission. */
#define RACE_LAG	3

struct race {
	struct hrtimer timer;
	struct ordsched_delay *d;
	struct ordsched_delay_task tasks[RACE_TASKS];
	atomic_t ran[RACE_TASKS];
	bool cancelled[RACE_TASKS];
	/* A modify found the task run and queued it again. */
	bool requeued[RACE_TASKS];
	int submit_err;
	unsigned int tick;
	u32 rnd;
	bool hardirq;
	atomic_t done;
};

static struct race *race_cur;

static void race_fn(struct ordsched_delay_task *task)
{
	struct race *r = race_cur;

	atomic_inc(&r->ran[task - r->tasks]);
}

static enum hrtimer_restart race_timer(struct hrtimer *timer)
{
	struct race *r = container_of(timer, struct race, timer);
	unsigned int i = r->tick++;

	r->hardirq = in_hardirq() && irqs_disabled();
	if (i < RACE_TASKS) {
		/* Due in 0 to 63 us: about as soon as the cancel comes. */
		if (!ordsched_delay_queue(r->d, &r->tasks[i],
					  (kt_rand(&r->rnd) & 63) * 1000))
			r->submit_err++;
	}
	if (i >= RACE_LAG && i - RACE_LAG < RACE_TASKS && (i & 1))
		r->cancelled[i - RACE_LAG] =
			ordsched_delay_cancel(r->d, &r->tasks[i - RACE_LAG]);
	if (i >= RACE_LAG && i - RACE_LAG < RACE_TASKS && (i & 3) == 2)
		r->requeued[i - RACE_LAG] =
			!ordsched_delay_mod(r->d, &r->tasks[i - RACE_LAG],
					    (kt_rand(&r->rnd) & 63) * 1000);
	if (i >= RACE_TASKS + RACE_LAG) {
		atomic_set_release(&r->done, 1);
		return HRTIMER_NORESTART;
	}
	hrtimer_forward_now(timer, ns_to_ktime(15 * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

static void delay_cancel_race_one(struct ktest *t, bool irq)
{
	unsigned int i, cancelled = 0, requeued = 0, wrong = 0;
	struct ordsched_delay_stats s;
	struct race *r;

	r = kvzalloc(sizeof(*r), GFP_KERNEL);
	if (!KT_EXPECT(t, r))
		return;
	race_cur = r;
	r->rnd = 0x2545f491;
	r->d = ordsched_delay_create(NULL);
	if (!KT_EXPECT(t, !IS_ERR(r->d)))
		goto out;
	/* On the per-CPU system_wq: they may run on the timer's CPU. */
	for (i = 0; i < RACE_TASKS; i++) {
		if (irq)
			ordsched_delay_task_init_irq(&r->tasks[i], race_fn);
		else
			ordsched_delay_task_init(&r->tasks[i], race_fn,
						 system_wq);
	}
	run_hard_timer(&r->timer, race_timer, &r->done);
	ordsched_delay_flush(r->d);

	for (i = 0; i < RACE_TASKS; i++) {
		cancelled += r->cancelled[i];
		requeued += r->requeued[i];
		if (atomic_read(&r->ran[i]) !=
		    !r->cancelled[i] + r->requeued[i])
			wrong++;
	}
	ordsched_delay_get_stats(r->d, &s);
	KT_EXPECT(t, r->hardirq);
	KT_EXPECT_EQ(t, r->submit_err, 0);
	KT_EXPECT_EQ(t, wrong, 0);
	KT_EXPECT_EQ(t, s.run_early, 0);
	KT_EXPECT_EQ(t, s.inflight, 0);
	KT_EXPECT_EQ(t, s.ran_irq, irq ? s.ran : 0);
	ktest_diag(t, "%u of %u cancelled in hard irq, the rest ran",
		   cancelled, RACE_TASKS);
	ktest_diag(t, "%llu moved in hard irq, %u queued again by a modify",
		   s.modified, requeued);
	ordsched_delay_destroy(r->d);
out:
	race_cur = NULL;
	kvfree(r);
}

static void delay_cancel_race(struct ktest *t)
{
	delay_cancel_race_one(t, false);
}

/* The same with interrupt tasks, run by the scheduler's hard-irq timer. */
static void delay_cancel_race_irq(struct ktest *t)
{
	delay_cancel_race_one(t, true);
}

static const struct ktest_case hardirq_cases[] = {
	KT_CASE(every_api),
	KT_CASE(delay_cancel_race),
	KT_CASE(delay_cancel_race_irq),
	KT_END
};

const struct ktest_suite ordsched_hardirq_suite = KT_SUITE("hardirq", hardirq_cases);
