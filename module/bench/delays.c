// SPDX-License-Identifier: GPL-2.0
/*
 * Delayed tasks, side by side:
 *
 *	delay	an ordsched delayed scheduler: one hrtimer, a tree of
 *		the near deadlines, a wheel of the far ones, tasks
 *		handed to a workqueue when due
 *	delay-irq the same scheduler with interrupt tasks, run in its
 *		hrtimer callback: measured for lateness only (its queue
 *		and cancel are delay's)
 *	hrtimer	one hrtimer per task, what a driver wanting exact
 *		deadlines would write (its callback runs in hard interrupt)
 *	dwork	one delayed_work per task: the timer wheel, jiffy resolution
 *	hrwq	one hrtimer and one work item per task, the callback queueing
 *		the work on the same workqueue as delay's: the floor for any
 *		scheduler whose tasks run in process context, measured for
 *		lateness only (its cost is the hrtimer's)
 *
 * Three measurements, one per run:
 *
 * cost: with @pending tasks already waiting (deadlines spread over a
 * second, 1000 s from now, so that none fires during the run), the time of
 * @ops submissions each followed by its cancel, the time to fill up to
 * @pending and the time to cancel them all. Every cancel must succeed.
 *
 * cpus: the same, with one producer thread bound to each online CPU, each
 * doing @ops pairs on a task of its own, all released at once: the wall
 * time from their release until the last one is through. What one lock
 * per scheduler costs when every CPU submits; the per-CPU structures of
 * hrtimers and the timer wheel are the comparison.
 *
 * late: one task re-submitted @count times from its own function with a
 * delay of @delay_ns; each run records its lateness, from the deadline to
 * the moment the function starts. A delayed_work waits whole jiffies: it
 * is given the fewest jiffies that are never early, as msleep() does (the
 * delay rounded up, plus one for the partial jiffy already gone). A run of
 * the ordsched scheduler or of an hrtimer before its deadline fails the
 * run; an early delayed_work is counted.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <ordsched.h>

#include "bench.h"
#include "compat.h"

#define DB_MAX_PENDING	2000000U
#define DB_MAX_OPS	1000000U
#define DB_MAX_COUNT	10000U
/*
 * Far enough that a fill of 10^6 delayed_works on a debug kernel (over
 * 100 s under TCG) ends before the first one is due.
 */
#define DB_HORIZON_NS	(1000ULL * NSEC_PER_SEC)

struct db_run;

struct db_task {
	struct db_run *run;
	union {
		struct ordsched_delay_task dt;
		struct hrtimer timer;
		struct delayed_work dw;
		struct {
			struct hrtimer timer;
			struct work_struct work;
		} hw;
	};
};

struct db_contender {
	const char *name;
	/* Runs on an ordsched delayed scheduler, which the run creates. */
	bool ordsched;
	/* Memory per task: the structure a user embeds. */
	size_t size;
	void (*init)(struct db_run *run, struct db_task *t);
	int (*submit)(struct db_run *run, struct db_task *t, u64 when_ns);
	bool (*cancel)(struct db_run *run, struct db_task *t);
	/* Cancel and wait for a running callback: the task may be freed. */
	void (*sync)(struct db_run *run, struct db_task *t);
};

struct db_run {
	const struct db_contender *c;
	struct ordsched_delay *d;
	struct db_task *task;
	/* late: the samples, the deadline of the current submission. */
	u32 *late;
	u32 count;
	u32 done;
	u32 early;
	u64 delay_ns;
	u64 deadline;
	/*
	 * When the run began: delayed_work counts its relative delays from
	 * it, as a caller that knows its delay does, reading no clock per
	 * submission (nor do the others: absolute hrtimers, ordsched's
	 * jiffies).
	 */
	u64 epoch;
	int error;
	struct completion all_done;
};

/* One sample of the late run; false when the chain is over. */
static bool db_sample(struct db_run *run, u64 now)
{
	/* A cost run sets deadlines 1000 s away: a run there is a failure. */
	if (!run->late) {
		run->error = -EILSEQ;
		return false;
	}
	if (now < run->deadline) {
		run->early++;
		run->late[run->done] = 0;
	} else {
		run->late[run->done] = min_t(u64, now - run->deadline, U32_MAX);
	}
	if (++run->done < run->count)
		return true;
	complete(&run->all_done);
	return false;
}

/* --- delay ------------------------------------------------------------ */

static void db_delay_fn(struct ordsched_delay_task *dt)
{
	struct db_task *t = container_of(dt, struct db_task, dt);
	struct db_run *run = t->run;

	if (!db_sample(run, ktime_get_ns()))
		return;
	/* Set before queueing: the next run may start on another CPU. */
	run->deadline = ktime_get_ns() + run->delay_ns;
	if (!ordsched_delay_queue_at(run->d, dt, run->deadline)) {
		run->error = -EBUSY;
		complete(&run->all_done);
	}
}

static void db_delay_init(struct db_run *run, struct db_task *t)
{
	ordsched_delay_task_init(&t->dt, db_delay_fn, system_wq);
}

/* The function runs in the scheduler's hrtimer callback, hard irq. */
static void db_delay_irq_init(struct db_run *run, struct db_task *t)
{
	ordsched_delay_task_init_irq(&t->dt, db_delay_fn);
}

static int db_delay_submit(struct db_run *run, struct db_task *t, u64 when)
{
	return ordsched_delay_queue_at(run->d, &t->dt, when) ? 0 : -EBUSY;
}

static bool db_delay_cancel(struct db_run *run, struct db_task *t)
{
	return ordsched_delay_cancel(run->d, &t->dt);
}

static void db_delay_sync(struct db_run *run, struct db_task *t)
{
	ordsched_delay_cancel(run->d, &t->dt);
	ordsched_delay_flush(run->d);
}

static const struct db_contender db_delay = {
	.name = "delay",
	.ordsched = true,
	.size = sizeof(struct ordsched_delay_task),
	.init = db_delay_init,
	.submit = db_delay_submit,
	.cancel = db_delay_cancel,
	.sync = db_delay_sync,
};

static const struct db_contender db_delay_irq = {
	.name = "delay-irq",
	.ordsched = true,
	.size = sizeof(struct ordsched_delay_task),
	.init = db_delay_irq_init,
	.submit = db_delay_submit,
	.cancel = db_delay_cancel,
	.sync = db_delay_sync,
};

/* --- hrtimer ---------------------------------------------------------- */

static enum hrtimer_restart db_hrtimer_fn(struct hrtimer *timer)
{
	struct db_task *t = container_of(timer, struct db_task, timer);
	struct db_run *run = t->run;

	if (!db_sample(run, ktime_get_ns()))
		return HRTIMER_NORESTART;
	run->deadline = ktime_get_ns() + run->delay_ns;
	hrtimer_set_expires(timer, ns_to_ktime(run->deadline));
	return HRTIMER_RESTART;
}

static void db_hrtimer_init(struct db_run *run, struct db_task *t)
{
	ordsched_hrtimer_setup(&t->timer, db_hrtimer_fn, CLOCK_MONOTONIC,
			       HRTIMER_MODE_ABS);
}

static int db_hrtimer_submit(struct db_run *run, struct db_task *t, u64 when)
{
	hrtimer_start(&t->timer, ns_to_ktime(when), HRTIMER_MODE_ABS);
	return 0;
}

static bool db_hrtimer_cancel(struct db_run *run, struct db_task *t)
{
	return hrtimer_try_to_cancel(&t->timer) == 1;
}

static void db_hrtimer_sync(struct db_run *run, struct db_task *t)
{
	hrtimer_cancel(&t->timer);
}

static const struct db_contender db_hrtimer = {
	.name = "hrtimer",
	.size = sizeof(struct hrtimer),
	.init = db_hrtimer_init,
	.submit = db_hrtimer_submit,
	.cancel = db_hrtimer_cancel,
	.sync = db_hrtimer_sync,
};

/* --- hrwq ------------------------------------------------------------- */

static enum hrtimer_restart db_hrwq_timer(struct hrtimer *timer)
{
	struct db_task *t = container_of(timer, struct db_task, hw.timer);

	queue_work(system_wq, &t->hw.work);
	return HRTIMER_NORESTART;
}

static void db_hrwq_fn(struct work_struct *work)
{
	struct db_task *t = container_of(work, struct db_task, hw.work);
	struct db_run *run = t->run;

	if (!db_sample(run, ktime_get_ns()))
		return;
	run->deadline = ktime_get_ns() + run->delay_ns;
	hrtimer_start(&t->hw.timer, ns_to_ktime(run->deadline),
		      HRTIMER_MODE_ABS);
}

static void db_hrwq_init(struct db_run *run, struct db_task *t)
{
	ordsched_hrtimer_setup(&t->hw.timer, db_hrwq_timer, CLOCK_MONOTONIC,
			       HRTIMER_MODE_ABS);
	INIT_WORK(&t->hw.work, db_hrwq_fn);
}

static int db_hrwq_submit(struct db_run *run, struct db_task *t, u64 when)
{
	hrtimer_start(&t->hw.timer, ns_to_ktime(when), HRTIMER_MODE_ABS);
	return 0;
}

/* Not due yet (the only use outside late runs): the timer alone. */
static bool db_hrwq_cancel(struct db_run *run, struct db_task *t)
{
	return hrtimer_try_to_cancel(&t->hw.timer) == 1;
}

/*
 * Called once a late run's chain is over, or on tasks only ever armed far:
 * nothing re-arms the timer any more, the timer may still queue the work.
 */
static void db_hrwq_sync(struct db_run *run, struct db_task *t)
{
	hrtimer_cancel(&t->hw.timer);
	cancel_work_sync(&t->hw.work);
}

static const struct db_contender db_hrwq = {
	.name = "hrwq",
	.size = sizeof(((struct db_task *)0)->hw),
	.init = db_hrwq_init,
	.submit = db_hrwq_submit,
	.cancel = db_hrwq_cancel,
	.sync = db_hrwq_sync,
};

/* --- dwork ------------------------------------------------------------ */

/*
 * The jiffies of a delay of @ns, rounded up, as usecs_to_jiffies() does:
 * never early, as the timer wheel fires a timer in the tick after its
 * expiry (calc_index() rounds up by one unit of the level).
 */
static unsigned long db_jiffies(u64 ns)
{
	return DIV_ROUND_UP_ULL(ns, TICK_NSEC);
}

static void db_dwork_fn(struct work_struct *work)
{
	struct db_task *t = container_of(to_delayed_work(work), struct db_task,
					 dw);
	struct db_run *run = t->run;

	if (!db_sample(run, ktime_get_ns()))
		return;
	run->deadline = ktime_get_ns() + run->delay_ns;
	queue_delayed_work(system_wq, &t->dw, db_jiffies(run->delay_ns));
}

static void db_dwork_init(struct db_run *run, struct db_task *t)
{
	INIT_DELAYED_WORK(&t->dw, db_dwork_fn);
}

static int db_dwork_submit(struct db_run *run, struct db_task *t, u64 when)
{
	queue_delayed_work(system_wq, &t->dw,
			   db_jiffies(when > run->epoch ? when - run->epoch : 0));
	return 0;
}

static bool db_dwork_cancel(struct db_run *run, struct db_task *t)
{
	return cancel_delayed_work(&t->dw);
}

static void db_dwork_sync(struct db_run *run, struct db_task *t)
{
	cancel_delayed_work_sync(&t->dw);
}

static const struct db_contender db_dwork = {
	.name = "dwork",
	.size = sizeof(struct delayed_work),
	.init = db_dwork_init,
	.submit = db_dwork_submit,
	.cancel = db_dwork_cancel,
	.sync = db_dwork_sync,
};

static const struct db_contender *const db_contenders[] = {
	&db_delay,
	&db_hrtimer,
	&db_dwork,
	&db_hrwq,
	&db_delay_irq,
};

/* --- the runs --------------------------------------------------------- */

/* Deadlines spread over one second: the same sequence for everyone. */
static u64 db_next_deadline(u64 base, u32 *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 17;
	*state ^= *state << 5;
	return base + *state % NSEC_PER_SEC;
}

static int db_fill(struct db_run *run, u32 from, u32 to, u64 base, u32 *rnd)
{
	u32 i;
	int ret;

	for (i = from; i < to; i++) {
		ret = run->c->submit(run, &run->task[i],
				     db_next_deadline(base, rnd));
		if (ret)
			return ret;
		if (!(i & 1023))
			cond_resched();
	}
	return 0;
}

static int db_cancel_all(struct db_run *run, u32 from, u32 to)
{
	int ret = 0;
	u32 i;

	for (i = from; i < to; i++) {
		if (!run->c->cancel(run, &run->task[i]))
			ret = -EILSEQ;
		if (!(i & 1023))
			cond_resched();
	}
	return ret;
}

/* @ops submit+cancel pairs on one spare task, @pending already waiting. */
static int db_pairs(struct db_run *run, struct db_task *spare, u32 ops,
		    u64 base, u32 *rnd)
{
	u32 i;
	int ret;

	for (i = 0; i < ops; i++) {
		ret = run->c->submit(run, spare, db_next_deadline(base, rnd));
		if (ret)
			return ret;
		if (!run->c->cancel(run, spare))
			return -EILSEQ;
		if (!(i & 1023))
			cond_resched();
	}
	return 0;
}

static int db_check_stats(struct db_run *run, u64 submitted)
{
	struct ordsched_delay_stats st;

	if (!run->d)
		return 0;
	ordsched_delay_get_stats(run->d, &st);
	if (st.queued != submitted || st.cancels != submitted || st.ran ||
	    st.pending)
		return -EILSEQ;
	return 0;
}

/* @n tasks for @run, initialized for its contender. */
static int db_tasks_alloc(struct db_run *run, u32 n)
{
	u32 i;

	run->task = kvcalloc(n, sizeof(*run->task), GFP_KERNEL);
	if (!run->task)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		run->task[i].run = run;
		run->c->init(run, &run->task[i]);
	}
	return 0;
}

/*
 * Free @run's @n tasks and pass @ret on. On failure some may still be
 * armed: none may outlive its memory.
 */
static int db_tasks_free(struct db_run *run, u32 n, int ret)
{
	u32 i;

	for (i = 0; ret && i < n; i++)
		run->c->sync(run, &run->task[i]);
	kvfree(run->task);
	run->task = NULL;
	return ret;
}

static int db_cost(struct db_run *run, u32 pending, u32 ops,
		   struct bench_out *out)
{
	u64 base = ktime_get_ns() + DB_HORIZON_NS;
	u64 t0, fill_ns, pair_ns, drain_ns;
	u32 rnd = 2463534242U;
	int ret, ret2;

	run->epoch = base - DB_HORIZON_NS;
	ret = db_tasks_alloc(run, pending + 1);
	if (ret)
		return ret;
	t0 = ktime_get_ns();
	ret = db_fill(run, 0, pending, base, &rnd);
	fill_ns = ktime_get_ns() - t0;
	t0 = ktime_get_ns();
	if (!ret)
		ret = db_pairs(run, &run->task[pending], ops, base, &rnd);
	pair_ns = ktime_get_ns() - t0;
	t0 = ktime_get_ns();
	ret2 = db_cancel_all(run, 0, pending);
	drain_ns = ktime_get_ns() - t0;
	ret = db_tasks_free(run, pending + 1, ret ?: ret2 ?:
			    db_check_stats(run, (u64)pending + ops));
	if (ret)
		return ret;
	bench_printf(out,
		     "delays mode=cost contender=%s pending=%u ops=%u task_bytes=%zu fill_ns=%llu pair_ns=%llu drain_ns=%llu",
		     run->c->name, pending, ops, run->c->size, fill_ns,
		     pair_ns, drain_ns);
	return 0;
}

/* What the producers of a cpus run share; each has a spare task. */
struct db_cpus {
	struct db_run *run;
	struct db_task *spare;
	u64 base;
	u32 ops;
};

static int db_cpus_fn(void *data, unsigned int idx)
{
	struct db_cpus *cp = data;
	u32 rnd = 2463534242U + idx;

	return db_pairs(cp->run, &cp->spare[idx], cp->ops, cp->base, &rnd);
}

static int db_cpus(struct db_run *run, u32 pending, u32 ops,
		   struct bench_out *out)
{
	unsigned int cpus = num_online_cpus();
	struct bench_threads *th = NULL;
	struct db_cpus cp = {
		.run = run, .ops = ops,
		.base = ktime_get_ns() + DB_HORIZON_NS,
	};
	u32 rnd = 2463534242U;
	u64 t0, wall_ns = 0;
	int ret, ret2;

	run->epoch = cp.base - DB_HORIZON_NS;
	ret = db_tasks_alloc(run, pending + cpus);
	if (ret)
		return ret;
	cp.spare = &run->task[pending];
	ret = db_fill(run, 0, pending, cp.base, &rnd);
	if (!ret) {
		th = bench_threads_create(cpus, db_cpus_fn, &cp);
		ret = PTR_ERR_OR_ZERO(th);
	}
	if (!ret) {
		t0 = ktime_get_ns();
		bench_threads_go(th);
		ret = bench_threads_wait(th);
		wall_ns = ktime_get_ns() - t0;
	}
	ret2 = db_cancel_all(run, 0, pending);
	ret = db_tasks_free(run, pending + cpus, ret ?: ret2 ?:
			    db_check_stats(run, pending + (u64)ops * cpus));
	if (ret)
		return ret;
	bench_printf(out,
		     "delays mode=cpus contender=%s cpus=%u pending=%u ops=%u wall_ns=%llu",
		     run->c->name, cpus, pending, ops, wall_ns);
	return 0;
}

static int db_late(struct db_run *run, u64 delay_ns, u32 count,
		   struct bench_out *out)
{
	struct ordsched_delay_stats st = {};
	struct db_task *t;
	int ret;

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	run->late = kvcalloc(count, sizeof(*run->late), GFP_KERNEL);
	ret = -ENOMEM;
	if (!t || !run->late)
		goto out;
	t->run = run;
	run->c->init(run, t);
	run->count = count;
	run->delay_ns = delay_ns;
	run->epoch = ktime_get_ns();
	run->deadline = run->epoch + delay_ns;
	ret = run->c->submit(run, t, run->deadline);
	if (ret)
		goto out;
	/* Wake every second: a long run is not a hung task. */
	while (!wait_for_completion_timeout(&run->all_done, HZ))
		;
	run->c->sync(run, t);
	ret = run->error;
	if (!ret && run->early && run->c != &db_dwork)
		ret = -EILSEQ;
	if (ret)
		goto out;
	/* Hand-overs from the hrtimer callback save the dispatch work's hop. */
	if (run->d)
		ordsched_delay_get_stats(run->d, &st);
	bench_sort_u32(run->late, count);
	bench_printf(out,
		     "delays mode=late contender=%s delay_ns=%llu count=%u early=%u late_p50_ns=%u late_p99_ns=%u late_max_ns=%u dispatched=%llu direct=%llu",
		     run->c->name, delay_ns, count, run->early,
		     bench_percentile(run->late, count, 50),
		     bench_percentile(run->late, count, 99),
		     run->late[count - 1], st.dispatched, st.direct);
out:
	kvfree(run->late);
	kfree(t);
	return ret;
}

static int db_run_bench(const struct bench_args *args, struct bench_out *out)
{
	struct ordsched_delay_params p = { .name = "bench" };
	const char *name = bench_arg_str(args, "contender");
	const char *mode = bench_arg_str(args, "mode");
	u64 pending, ops, delay_ns, count;
	struct db_run run = { };
	unsigned int i;
	int ret;

	for (i = 0; name && i < ARRAY_SIZE(db_contenders); i++)
		if (!strcmp(db_contenders[i]->name, name))
			run.c = db_contenders[i];
	if (!run.c || !mode)
		return -ENOENT;
	ret = bench_arg_u64(args, "pending", 1000, &pending) ?:
	      bench_arg_u64(args, "ops", 10000, &ops) ?:
	      bench_arg_u64(args, "delay_ns", 50000, &delay_ns) ?:
	      bench_arg_u64(args, "count", 200, &count);
	if (ret)
		return ret;
	if (pending > DB_MAX_PENDING || !ops || ops > DB_MAX_OPS || !count ||
	    count > DB_MAX_COUNT || delay_ns > NSEC_PER_SEC)
		return -EINVAL;
	init_completion(&run.all_done);
	if (run.c->ordsched) {
		run.d = ordsched_delay_create(&p);
		if (IS_ERR(run.d))
			return PTR_ERR(run.d);
	}
	if (!strcmp(mode, "cost"))
		ret = db_cost(&run, pending, ops, out);
	else if (!strcmp(mode, "cpus"))
		ret = db_cpus(&run, pending, ops, out);
	else if (!strcmp(mode, "late"))
		ret = db_late(&run, delay_ns, count, out);
	else
		ret = -EINVAL;
	if (run.d)
		ordsched_delay_destroy(run.d);
	return ret;
}

static const char *db_contender_names(void)
{
	return "delay hrtimer dwork hrwq delay-irq";
}

const struct bench_def bench_delays = {
	.name = "delays",
	.contenders = db_contender_names,
	.run = db_run_bench,
};
