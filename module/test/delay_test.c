// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the delayed scheduler: never early, exactly once and ties in
 * submission order under concurrent submitters; cancel storms; stop in
 * both modes; destroy and module unload with tasks pending; slack; delayed
 * tasks on serial streams keeping the streams' order.
 *
 * Deadlines are microseconds to milliseconds: timers are coarse and slow
 * under emulation, and the tests must finish in seconds. "Never early" is
 * checked against ktime_get() in the task itself.
 */
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/irq_work.h>
#include <linux/jiffies.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <ordsched.h>

#include "ktest.h"
#include "suites.h"
#include "util.h"

struct dt;

struct dt_task {
	struct ordsched_delay_task task;
	struct dt *dt;
	u64 order;
	atomic_t ran;
	atomic_t cancelled;
};

struct dt {
	struct ordsched_delay *d;
	struct dt_task *tasks;
	unsigned int n;
	unsigned int threads;
	struct workqueue_struct *wq;
	struct ordsched_stream *stream;
	u64 base;
	unsigned int spin;
	atomic64_t order;
	atomic_t early;
	atomic_t submit_errors;
};

static void dt_fn(struct ordsched_delay_task *task)
{
	struct dt_task *dtt = container_of(task, struct dt_task, task);
	struct dt *dt = dtt->dt;

	if (ktime_get() < ordsched_delay_task_deadline(task))
		atomic_inc(&dt->early);
	dtt->order = atomic64_inc_return(&dt->order);
	if (dt->spin)
		kt_spin(dt->spin);
	atomic_inc(&dtt->ran);
}

static void dt_cancelled(struct ordsched_delay_task *task)
{
	atomic_inc(&container_of(task, struct dt_task, task)->cancelled);
}

static int dt_alloc(struct ktest *t, struct dt *dt, unsigned int n,
		    const struct ordsched_delay_params *p)
{
	unsigned int i;

	dt->n = n;
	dt->threads = 2 * num_online_cpus();
	dt->tasks = vzalloc(array_size(n, sizeof(*dt->tasks)));
	if (!KT_EXPECT(t, dt->tasks))
		return -ENOMEM;
	dt->d = ordsched_delay_create(p);
	if (!KT_EXPECT(t, !IS_ERR(dt->d))) {
		vfree(dt->tasks);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		dt->tasks[i].dt = dt;
		if (dt->stream)
			ordsched_delay_task_init_stream(&dt->tasks[i].task,
							dt_fn, dt->stream);
		else
			ordsched_delay_task_init(&dt->tasks[i].task, dt_fn,
						 dt->wq);
	}
	return 0;
}

static void dt_free(struct dt *dt)
{
	ordsched_delay_destroy(dt->d);
	vfree(dt->tasks);
}

/* Every task ran exactly once, or was cancelled exactly once; not both. */
static void dt_check_once(struct ktest *t, struct dt *dt, bool may_cancel)
{
	unsigned int i, ran = 0, cancelled = 0, bad = 0;

	for (i = 0; i < dt->n; i++) {
		int r = atomic_read(&dt->tasks[i].ran);
		int c = atomic_read(&dt->tasks[i].cancelled);

		ran += r;
		cancelled += c;
		if (r + c != 1 || (c && !may_cancel)) {
			if (!bad++)
				ktest_diag(t, "task %u ran %d cancelled %d",
					   i, r, c);
		}
	}
	KT_EXPECT_EQ(t, bad, 0);
	ktest_diag(t, "%u tasks: %u ran, %u cancelled", dt->n, ran, cancelled);
}

static void dt_diag_stats(struct ktest *t, struct ordsched_delay *d)
{
	struct ordsched_delay_stats *s = kmalloc(sizeof(*s), GFP_KERNEL);
	u64 median = 0, seen = 0;
	int i;

	if (!s)
		return;
	ordsched_delay_get_stats(d, s);
	for (i = 0; i < ORDSCHED_DELAY_LATE_BUCKETS; i++) {
		seen += s->late[i];
		if (!median && seen * 2 >= s->ran - s->run_early && seen)
			median = i ? BIT_ULL(i) : 1;
	}
	ktest_diag(t, "peak pending %llu, %llu expiries, %llu rearms, %llu batches (max %llu)",
		   s->peak_pending, s->expiries, s->rearms, s->batches,
		   s->max_batch);
	ktest_diag(t, "%llu cancels (%llu after hand-over), %llu run early",
		   s->cancels, s->cancels_handed, s->run_early);
	ktest_diag(t, "median lateness < %llu ns", median);
	kfree(s);
}

/* ---- 100,000 tasks, random deadlines, concurrent submitters ------------ */

/* Half the tasks use run_after(), half run_at() on a coarse grid: ties. */
static int random_submitter(void *data, unsigned int idx)
{
	struct dt *dt = data;
	u32 rnd = 0x9e3779b9 * (idx + 1);
	unsigned int i;
	bool ok;

	for (i = idx; i < dt->n; i += dt->threads) {
		struct ordsched_delay_task *task = &dt->tasks[i].task;

		if (kt_rand(&rnd) & 1)
			ok = ordsched_delay_queue(dt->d, task,
						  kt_rand(&rnd) % 2000000);
		else
			ok = ordsched_delay_queue_at(dt->d, task, dt->base +
						     (kt_rand(&rnd) % 256) * 8000);
		if (!ok)
			atomic_inc(&dt->submit_errors);
		if (i % 256 == idx)
			cond_resched();
	}
	return 0;
}

struct dt_rec {
	u64 deadline;
	u64 seq;
	u64 order;
};

static int dt_rec_cmp(const void *a, const void *b)
{
	const struct dt_rec *x = a, *y = b;

	if (x->deadline != y->deadline)
		return x->deadline < y->deadline ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Tasks with the same deadline ran in submission order. */
static void dt_check_ties(struct ktest *t, struct dt *dt)
{
	struct dt_rec *rec = vmalloc(array_size(dt->n, sizeof(*rec)));
	unsigned int i, ties = 0, bad = 0;

	if (!KT_EXPECT(t, rec))
		return;
	for (i = 0; i < dt->n; i++) {
		rec[i].deadline = ordsched_delay_task_deadline(&dt->tasks[i].task);
		rec[i].seq = dt->tasks[i].task.seq;
		rec[i].order = dt->tasks[i].order;
	}
	sort(rec, dt->n, sizeof(*rec), dt_rec_cmp, NULL);
	for (i = 1; i < dt->n; i++) {
		if (rec[i].deadline != rec[i - 1].deadline)
			continue;
		ties++;
		if (rec[i].order < rec[i - 1].order && !bad++)
			ktest_diag(t, "deadline %llu: seq %llu ran after seq %llu",
				   rec[i].deadline, rec[i - 1].seq, rec[i].seq);
	}
	KT_EXPECT_EQ(t, bad, 0);
	KT_EXPECT(t, ties > dt->n / 4);
	ktest_diag(t, "%u tasks shared their deadline with the one before", ties);
	vfree(rec);
}

static void random_100k(struct ktest *t)
{
	struct ordsched_delay_params p = { .name = "random_100k" };
	struct dt dt = {};
	ktime_t start;

	/* Ordered: tasks run in the order they are handed over. */
	dt.wq = alloc_ordered_workqueue("ordsched_dt", 0);
	if (!KT_EXPECT(t, dt.wq))
		return;
	if (dt_alloc(t, &dt, kt_stress(100000), &p))
		goto out_wq;
	start = ktime_get();
	dt.base = start + 500 * NSEC_PER_USEC;
	KT_EXPECT_EQ(t, kt_run_threads(dt.threads, random_submitter, &dt), 0);
	ordsched_delay_flush(dt.d);
	ktest_diag(t, "submitted and ran in %lld us",
		   ktime_us_delta(ktime_get(), start));

	KT_EXPECT_EQ(t, atomic_read(&dt.submit_errors), 0);
	KT_EXPECT_EQ(t, atomic_read(&dt.early), 0);
	dt_check_once(t, &dt, false);
	dt_check_ties(t, &dt);
	dt_diag_stats(t, dt.d);
	dt_free(&dt);
out_wq:
	destroy_workqueue(dt.wq);
}

/* ---- cancel storms ----------------------------------------------------- */

/*
 * Each thread submits its share with short random delays and meanwhile
 * cancels random tasks of every thread: pending, handed over, running or
 * done. A slow target lets handed-over tasks pile up to be taken back.
 */
static int storm_thread(void *data, unsigned int idx)
{
	struct dt *dt = data;
	u32 rnd = 0x2545f491 * (idx + 1);
	unsigned int i;

	for (i = idx; i < dt->n; i += dt->threads) {
		struct dt_task *victim = &dt->tasks[kt_rand(&rnd) % dt->n];

		if (!ordsched_delay_queue(dt->d, &dt->tasks[i].task,
					  kt_rand(&rnd) % 300000))
			atomic_inc(&dt->submit_errors);
		if (ordsched_delay_cancel(dt->d, &victim->task))
			atomic_inc(&victim->cancelled);
		if (i % 128 == idx)
			cond_resched();
	}
	/* A second sweep finds the stragglers wherever they are. */
	for (i = idx; i < dt->n; i += dt->threads * 3) {
		if (ordsched_delay_cancel(dt->d, &dt->tasks[i].task))
			atomic_inc(&dt->tasks[i].cancelled);
	}
	return 0;
}

static void storm_run(struct ktest *t, struct dt *dt)
{
	struct ordsched_delay_params p = { .name = "storm" };
	struct ordsched_delay_stats s;

	dt->spin = 100;
	if (dt_alloc(t, dt, 10000, &p))
		return;
	KT_EXPECT_EQ(t, kt_run_threads(dt->threads, storm_thread, dt), 0);
	ordsched_delay_flush(dt->d);
	KT_EXPECT_EQ(t, atomic_read(&dt->submit_errors), 0);
	KT_EXPECT_EQ(t, atomic_read(&dt->early), 0);
	dt_check_once(t, dt, true);
	ordsched_delay_get_stats(dt->d, &s);
	KT_EXPECT_EQ(t, s.ran + s.cancels, dt->n);
	KT_EXPECT_EQ(t, s.inflight, 0);
	KT_EXPECT_EQ(t, s.pending, 0);
	KT_EXPECT(t, s.cancels > 0);
	KT_EXPECT(t, s.ran > 0);
	dt_diag_stats(t, dt->d);
	dt_free(dt);
}

static void cancel_storm_wq(struct ktest *t)
{
	struct dt dt = {};

	/* One worker: handed-over tasks queue up where cancel_work() finds them. */
	dt.wq = alloc_ordered_workqueue("ordsched_dt", 0);
	if (!KT_EXPECT(t, dt.wq))
		return;
	storm_run(t, &dt);
	destroy_workqueue(dt.wq);
}

static void cancel_storm_unbound(struct ktest *t)
{
	struct dt dt = {};	/* ordsched's own unbound workqueue */

	storm_run(t, &dt);
}

static void cancel_storm_stream(struct ktest *t)
{
	/* Not on the stack: a stream holds a work item. */
	struct ordsched_stream *stream = kzalloc(sizeof(*stream), GFP_KERNEL);
	struct dt dt = { .stream = stream };

	if (!KT_EXPECT(t, stream))
		return;
	ordsched_stream_init(stream, NULL);
	storm_run(t, &dt);
	ordsched_stream_destroy(stream);
	kfree(stream);
}

/* ---- stop in both modes ------------------------------------------------ */

/*
 * Most deadlines far ahead (beyond the slowest submission under a debug
 * kernel); one in eight due within a millisecond.
 */
static int stop_submitter(void *data, unsigned int idx)
{
	struct dt *dt = data;
	u32 rnd = 0x68e31da4 * (idx + 1);
	unsigned int i;
	s64 delay;

	for (i = idx; i < dt->n; i += dt->threads) {
		delay = kt_rand(&rnd) % 8 ? 60 * NSEC_PER_SEC +
			kt_rand(&rnd) % NSEC_PER_SEC : kt_rand(&rnd) % 1000000;
		if (!ordsched_delay_queue(dt->d, &dt->tasks[i].task, delay))
			atomic_inc(&dt->submit_errors);
		if (i % 256 == idx)
			cond_resched();
	}
	return 0;
}

static void stop_run(struct ktest *t, enum ordsched_delay_stop_mode mode)
{
	struct ordsched_delay_params p = {
		.name = "stop",
		.cancelled = dt_cancelled,
	};
	struct ordsched_delay_stats s;
	struct dt dt = {};
	ktime_t start;

	if (dt_alloc(t, &dt, kt_stress(100000), &p))
		return;
	KT_EXPECT_EQ(t, kt_run_threads(dt.threads, stop_submitter, &dt), 0);
	KT_EXPECT_EQ(t, atomic_read(&dt.submit_errors), 0);
	start = ktime_get();
	ordsched_delay_stop(dt.d, mode);
	ktest_diag(t, "stop took %lld us", ktime_us_delta(ktime_get(), start));

	/* Everything ended, and nothing more is accepted. */
	dt_check_once(t, &dt, mode == ORDSCHED_DELAY_CANCEL_PENDING);
	ordsched_delay_get_stats(dt.d, &s);
	KT_EXPECT_EQ(t, s.inflight, 0);
	KT_EXPECT_EQ(t, s.pending, 0);
	KT_EXPECT_EQ(t, s.ran + s.cancels, dt.n);
	if (mode == ORDSCHED_DELAY_RUN_PENDING)
		KT_EXPECT(t, s.run_early >= dt.n / 2);
	else
		KT_EXPECT(t, s.cancels >= dt.n / 2);
	KT_EXPECT(t, !ordsched_delay_queue(dt.d, &dt.tasks[0].task, 0));
	dt_diag_stats(t, dt.d);
	dt_free(&dt);
}

static void stop_run_100k(struct ktest *t)
{
	stop_run(t, ORDSCHED_DELAY_RUN_PENDING);
}

static void stop_cancel_100k(struct ktest *t)
{
	stop_run(t, ORDSCHED_DELAY_CANCEL_PENDING);
}

/* ---- destroy and module unload with tasks pending ---------------------- */

static struct ordsched_delay *owned_submit(unsigned int n, atomic_t *freed,
					   u64 far_ns)
{
	struct ordsched_delay_params p = {
		.name = "owned",
		.cancelled = kt_owned_fn,
	};
	struct ordsched_delay *d = ordsched_delay_create(&p);
	struct kt_owned_task *o;
	unsigned int i;

	if (IS_ERR(d))
		return d;
	for (i = 0; i < n; i++) {
		o = kmalloc(sizeof(*o), GFP_KERNEL);
		if (!o)
			break;
		o->freed = freed;
		ordsched_delay_task_init(&o->task, kt_owned_fn, NULL);
		/* A few run now: destroy waits for those, too. */
		if (!ordsched_delay_queue(d, &o->task, i % 16 ? far_ns : 0))
			kfree(o);
	}
	return d;
}

static void destroy_pending(struct ktest *t)
{
	atomic_t freed = ATOMIC_INIT(0);
	struct ordsched_delay *d = owned_submit(10000, &freed, NSEC_PER_SEC);

	if (!KT_EXPECT(t, !IS_ERR(d)))
		return;
	ordsched_delay_destroy(d);
	KT_EXPECT_EQ(t, atomic_read(&freed), 10000);
}

/* Left pending until the test module is unloaded. */
static struct ordsched_delay *unload_delay;
static atomic_t unload_freed = ATOMIC_INIT(0);
#define UNLOAD_TASKS 1000

static void unload_pending(struct ktest *t)
{
	unload_delay = owned_submit(UNLOAD_TASKS, &unload_freed,
				    3600 * NSEC_PER_SEC);
	if (!KT_EXPECT(t, !IS_ERR(unload_delay)))
		unload_delay = NULL;
}

/* Called from the test module's exit: frees every pending task. */
void ordsched_delay_test_exit(void)
{
	if (!unload_delay)
		return;
	ordsched_delay_destroy(unload_delay);
	WARN(atomic_read(&unload_freed) != UNLOAD_TASKS,
	     "delay.unload_pending: %d of %d tasks freed at unload\n",
	     atomic_read(&unload_freed), UNLOAD_TASKS);
}

/* ---- small cases ------------------------------------------------------- */

static void bad_args(struct ktest *t)
{
	/* Not on the stack: a task holds a work item. */
	struct ordsched_delay_task *tk = kcalloc(2, sizeof(*tk), GFP_KERNEL);
	struct ordsched_delay *d = ordsched_delay_create(NULL);
	struct ordsched_delay_stats s;

	if (!KT_EXPECT(t, tk && !IS_ERR(d)))
		goto out;
	ordsched_delay_task_init(&tk[0], dt_fn, NULL);
	ordsched_delay_task_init(&tk[1], dt_fn, NULL);
	KT_EXPECT(t, !ordsched_delay_cancel(d, &tk[0]));

	/* Overflowing deadlines are clamped, never wrapped into the past. */
	KT_EXPECT(t, ordsched_delay_queue(d, &tk[0], U64_MAX));
	KT_EXPECT_EQ(t, ordsched_delay_task_deadline(&tk[0]), KTIME_MAX);
	KT_EXPECT(t, !ordsched_delay_queue(d, &tk[0], 0));
	KT_EXPECT(t, !ordsched_delay_queue_at(d, &tk[0], 0));
	KT_EXPECT(t, ordsched_delay_cancel(d, &tk[0]));
	KT_EXPECT(t, !ordsched_delay_cancel(d, &tk[0]));
	KT_EXPECT(t, ordsched_delay_queue_at(d, &tk[0], U64_MAX));
	KT_EXPECT_EQ(t, ordsched_delay_task_deadline(&tk[0]), KTIME_MAX);
	KT_EXPECT(t, ordsched_delay_queue(d, &tk[1],
					  KTIME_MAX - ktime_get() + 1000));
	KT_EXPECT_EQ(t, ordsched_delay_task_deadline(&tk[1]), KTIME_MAX);

	ordsched_delay_get_stats(d, &s);
	KT_EXPECT_EQ(t, s.queued, 3);
	KT_EXPECT_EQ(t, s.pending, 2);
	KT_EXPECT_EQ(t, s.cancels, 1);
	/* A KTIME_MAX deadline never arms the timer. */
	KT_EXPECT_EQ(t, s.rearms, 0);

	ordsched_delay_stop(d, ORDSCHED_DELAY_CANCEL_PENDING);
	KT_EXPECT(t, !ordsched_delay_queue(d, &tk[0], 0));
	ordsched_delay_get_stats(d, &s);
	KT_EXPECT_EQ(t, s.cancels, 3);
	KT_EXPECT_EQ(t, s.inflight, 0);
out:
	ordsched_delay_destroy(d);
	ordsched_delay_destroy(NULL);
	ordsched_delay_destroy(ERR_PTR(-ENOMEM));
	kfree(tk);
}

/* Deadlines submitted in reverse run in deadline order; ties in FIFO. */
static void order_small(struct ktest *t)
{
	struct ordsched_delay_params p = { .name = "order" };
	struct dt dt = {};
	unsigned int i, from = 1;
	u64 base;

	dt.wq = alloc_ordered_workqueue("ordsched_dt", 0);
	if (!KT_EXPECT(t, dt.wq))
		return;
	if (dt_alloc(t, &dt, 400, &p))
		goto out_wq;
	base = ktime_get() + 20 * NSEC_PER_MSEC;
	/* Tasks 0..199: decreasing deadlines; 200..399: one deadline. */
	for (i = 0; i < 200; i++)
		KT_EXPECT(t, ordsched_delay_queue_at(dt.d, &dt.tasks[i].task,
						     base + (200 - i) * 1000));
	for (; i < 400; i++)
		KT_EXPECT(t, ordsched_delay_queue_at(dt.d, &dt.tasks[i].task,
						     base + 300000));
	/*
	 * Submitted so slowly that the first deadlines passed (a loaded
	 * debug kernel): the tasks due by then ran before the later ones
	 * with earlier deadlines were queued. Only the ties are checked.
	 */
	if (ktime_get() >= base) {
		/* What it checks still counts; the skip says it is not all. */
		ktest_skip(t, "slow submission: only the ties' order is checked");
		from = 201;
	}
	ordsched_delay_flush(dt.d);
	dt_check_once(t, &dt, false);
	KT_EXPECT_EQ(t, atomic_read(&dt.early), 0);
	for (i = from; i < 400; i++) {
		bool want = i < 200 ? dt.tasks[i].order < dt.tasks[i - 1].order :
			    dt.tasks[i].order > dt.tasks[i - 1].order;

		if (!KT_EXPECT(t, want || i == 200)) {
			ktest_diag(t, "task %u ran %llu-th", i, dt.tasks[i].order);
			break;
		}
	}
	dt_free(&dt);
out_wq:
	destroy_workqueue(dt.wq);
}

/* A flush waits for the deadlines submitted before it, not for later ones. */
static void flush_waits(struct ktest *t)
{
	struct ordsched_delay_params p = { .name = "flush" };
	struct dt dt = {};
	ktime_t start;

	if (dt_alloc(t, &dt, 2, &p))
		return;
	start = ktime_get();
	KT_EXPECT(t, ordsched_delay_queue(dt.d, &dt.tasks[0].task,
					  2 * NSEC_PER_MSEC));
	ordsched_delay_flush(dt.d);
	KT_EXPECT_EQ(t, atomic_read(&dt.tasks[0].ran), 1);
	KT_EXPECT(t, ktime_get() - start >= 2 * NSEC_PER_MSEC);

	/* Far away: the flush does not wait for it, a RUN stop runs it. */
	KT_EXPECT(t, ordsched_delay_queue(dt.d, &dt.tasks[1].task,
					  3600 * NSEC_PER_SEC));
	ordsched_delay_stop(dt.d, ORDSCHED_DELAY_RUN_PENDING);
	KT_EXPECT_EQ(t, atomic_read(&dt.tasks[1].ran), 1);
	KT_EXPECT_EQ(t, atomic_read(&dt.early), 1);
	dt_free(&dt);
}

/* A task that submits itself again: periodic tasks need nothing more. */
struct periodic {
	struct ordsched_delay_task task;
	struct ordsched_delay *d;
	u64 period;
	unsigned int runs;
	int last_err;
	bool early;
};

static void periodic_fn(struct ordsched_delay_task *task)
{
	struct periodic *pt = container_of(task, struct periodic, task);
	u64 next = ordsched_delay_task_deadline(task) + pt->period;

	if (ktime_get() < ordsched_delay_task_deadline(task))
		pt->early = true;
	pt->runs++;
	pt->last_err = ordsched_delay_queue_at(pt->d, task, next) ? 0 : -EBUSY;
}

static void periodic_resubmit(struct ktest *t)
{
	struct periodic *pt = kzalloc(sizeof(*pt), GFP_KERNEL);
	unsigned long until;
	unsigned int runs;

	if (!KT_EXPECT(t, pt))
		return;
	pt->d = ordsched_delay_create(NULL);
	if (!KT_EXPECT(t, !IS_ERR(pt->d)))
		goto out;
	pt->period = 500 * NSEC_PER_USEC;
	ordsched_delay_task_init(&pt->task, periodic_fn, NULL);
	KT_EXPECT(t, ordsched_delay_queue(pt->d, &pt->task, 0));
	msleep(20);
	/*
	 * About 40 runs by now; but a vCPU the host stalls holds its worker
	 * or its timer up: wait for the second run rather than fail.
	 */
	until = jiffies + 5 * HZ;
	while (READ_ONCE(pt->runs) < 2 && time_before(jiffies, until))
		usleep_range(500, 1000);
	/* Between runs the task is pending: a cancel removes it for good. */
	while (!ordsched_delay_cancel(pt->d, &pt->task))
		ordsched_delay_flush(pt->d);
	/* The run that submitted it again may still be returning. */
	ordsched_delay_flush(pt->d);
	runs = READ_ONCE(pt->runs);
	KT_EXPECT(t, runs >= 2);
	KT_EXPECT(t, !pt->early);
	KT_EXPECT_EQ(t, pt->last_err, 0);
	usleep_range(2000, 3000);
	KT_EXPECT_EQ(t, READ_ONCE(pt->runs), runs);
	ktest_diag(t, "%u runs of a 500 us period in 20 ms", runs);
	ordsched_delay_destroy(pt->d);
out:
	kfree(pt);
}

/*
 * 100 deadlines spread over 400 us, 10 ms ahead (near: in the tree), with
 * 2 ms of slack (@task_slack: each task's own, the scheduler's being 0)
 * share a few wake-ups, counted by the scheduler; none early. Submitted so slowly that
 * the first deadline passed (a loaded debug kernel), the tasks due by then
 * ran one by one as they came: the wake-ups are not counted.
 */
static void slack_batches(struct ktest *t, struct ordsched_delay_params *p,
			  bool task_slack)
{
	struct ordsched_delay_stats s;
	u64 base, slack = 2 * NSEC_PER_MSEC;
	struct dt dt = {};
	unsigned int i;
	bool slow;

	if (dt_alloc(t, &dt, 100, p))
		return;
	base = ktime_get() + 10 * NSEC_PER_MSEC;
	for (i = 0; i < dt.n; i++) {
		struct ordsched_delay_task *task = &dt.tasks[i].task;
		u64 when = base + i * 4000;
		bool queued;

		if (task_slack)
			queued = ordsched_delay_queue_range(dt.d, task, when, slack,
							    ORDSCHED_DELAY_QUEUE_NEW);
		else
			queued = ordsched_delay_queue_at(dt.d, task, when);
		KT_EXPECT(t, queued);
	}
	slow = ktime_get() >= base;
	ordsched_delay_flush(dt.d);
	dt_check_once(t, &dt, false);
	KT_EXPECT_EQ(t, atomic_read(&dt.early), 0);
	ordsched_delay_get_stats(dt.d, &s);
	if (slow)
		ktest_skip(t, "slow submission: wake-ups not counted");
	else
		KT_EXPECT(t, s.batches <= 10);
	ktest_diag(t, "100 deadlines in %llu batches, %llu expiries",
		   s.batches, s.expiries);
	dt_free(&dt);
}

/* The scheduler's slack. */
static void slack_coalesces(struct ktest *t)
{
	struct ordsched_delay_params p = {
		.name = "slack",
		.slack_ns = 2 * NSEC_PER_MSEC,
	};

	slack_batches(t, &p, false);
}

/* ---- modify ------------------------------------------------------------ */

/* Wait up to @ms for @dtt to have run @n times; true if it did. */
static bool dt_wait_ran(struct dt_task *dtt, int n, unsigned int ms)
{
	unsigned long end = jiffies + msecs_to_jiffies(ms);

	while (atomic_read(&dtt->ran) < n && time_before(jiffies, end))
		usleep_range(500, 1000);
	return atomic_read(&dtt->ran) >= n;
}

/*
 * Earlier, later, idle, stopped, another scheduler. Far deadlines are an
 * hour: a modify that does not move would leave the task there, and the
 * waits below (seconds) would see it.
 */
static void mod_basic(struct ktest *t)
{
	struct ordsched_delay_params p = { .name = "mod" };
	struct ordsched_delay *other = ordsched_delay_create(NULL);
	struct ordsched_delay_stats s;
	struct dt dt = {};
	u64 when;

	if (!KT_EXPECT(t, !IS_ERR(other)))
		return;
	if (dt_alloc(t, &dt, 4, &p))
		goto out;
	/* Earlier: from an hour to 1 ms. */
	KT_EXPECT(t, ordsched_delay_queue(dt.d, &dt.tasks[0].task,
					  3600 * NSEC_PER_SEC));
	when = ktime_get_ns() + NSEC_PER_MSEC;
	KT_EXPECT(t, ordsched_delay_mod_at(dt.d, &dt.tasks[0].task, when));
	KT_EXPECT_EQ(t, ordsched_delay_task_deadline(&dt.tasks[0].task), when);
	KT_EXPECT(t, dt_wait_ran(&dt.tasks[0], 1, 5000));

	/*
	 * Later: from 100 ms to an hour; then back, to see it did not run at
	 * the first deadline. (From 1 ms, a debug kernel under TCG ran it
	 * once before the modify came.)
	 */
	KT_EXPECT(t, ordsched_delay_queue(dt.d, &dt.tasks[1].task,
					  100 * NSEC_PER_MSEC));
	KT_EXPECT(t, ordsched_delay_mod(dt.d, &dt.tasks[1].task,
					3600 * NSEC_PER_SEC));
	msleep(150);
	KT_EXPECT_EQ(t, atomic_read(&dt.tasks[1].ran), 0);
	KT_EXPECT(t, ordsched_delay_mod(dt.d, &dt.tasks[1].task, 0));
	KT_EXPECT(t, dt_wait_ran(&dt.tasks[1], 1, 5000));

	/* Idle: a modify queues it and says it was not queued. */
	KT_EXPECT(t, !ordsched_delay_mod(dt.d, &dt.tasks[2].task, 0));
	KT_EXPECT(t, dt_wait_ran(&dt.tasks[2], 1, 5000));

	/* Queued to another scheduler: left alone. */
	KT_EXPECT(t, ordsched_delay_queue(other, &dt.tasks[3].task,
					  3600 * NSEC_PER_SEC));
	KT_EXPECT(t, !ordsched_delay_mod(dt.d, &dt.tasks[3].task, 0));
	KT_EXPECT(t, ordsched_delay_cancel(other, &dt.tasks[3].task));
	atomic_inc(&dt.tasks[3].cancelled);

	ordsched_delay_flush(dt.d);
	dt_check_once(t, &dt, true);
	KT_EXPECT_EQ(t, atomic_read(&dt.early), 0);
	ordsched_delay_get_stats(dt.d, &s);
	KT_EXPECT_EQ(t, s.queued, 3);
	KT_EXPECT_EQ(t, s.modified, 3);
	KT_EXPECT_EQ(t, s.ran, 3);
	KT_EXPECT_EQ(t, s.inflight, 0);

	/* Stopped: nothing is done, also to a pending task. */
	KT_EXPECT(t, ordsched_delay_queue(dt.d, &dt.tasks[0].task,
					  3600 * NSEC_PER_SEC));
	ordsched_delay_stop(dt.d, ORDSCHED_DELAY_CANCEL_PENDING);
	KT_EXPECT(t, !ordsched_delay_mod(dt.d, &dt.tasks[0].task, 0));
	KT_EXPECT(t, !ordsched_delay_mod(dt.d, &dt.tasks[1].task, 0));
	ordsched_delay_get_stats(dt.d, &s);
	KT_EXPECT_EQ(t, s.modified, 3);
	KT_EXPECT_EQ(t, s.queued, 4);
	dt_free(&dt);
out:
	ordsched_delay_destroy(other);
}

/* A task whose function blocks until released, to be caught running. */
struct blocker {
	struct ordsched_delay_task task;
	struct ordsched_delay *d;
	struct completion started;
	struct completion release;
	atomic_t runs;
	atomic_t running;
	bool finished;
	/* Queue itself again this many more times, and how that went. */
	int requeues;
	bool use_mod;
	int requeue_ok;
	int requeue_refused;
};

static void blocker_fn(struct ordsched_delay_task *task)
{
	struct blocker *b = container_of(task, struct blocker, task);

	atomic_inc(&b->running);
	WRITE_ONCE(b->finished, false);
	atomic_inc(&b->runs);
	complete(&b->started);
	wait_for_completion(&b->release);
	if (b->requeues > 0) {
		b->requeues--;
		if (b->use_mod ? !ordsched_delay_mod(b->d, task, 0) :
		    ordsched_delay_queue(b->d, task, 0))
			b->requeue_ok++;
		else
			b->requeue_refused++;
	}
	WRITE_ONCE(b->finished, true);
	atomic_dec(&b->running);
}

static struct blocker *blocker_new(struct ktest *t, struct ordsched_delay *d)
{
	struct blocker *b = kzalloc(sizeof(*b), GFP_KERNEL);

	if (!KT_EXPECT(t, b))
		return NULL;
	b->d = d;
	init_completion(&b->started);
	init_completion(&b->release);
	ordsched_delay_task_init(&b->task, blocker_fn, NULL);
	return b;
}

/* Releases a blocker after a while, from a work item. */
struct releaser {
	struct delayed_work dwork;
	struct blocker *b;
};

static void releaser_fn(struct work_struct *work)
{
	struct releaser *r = container_of(work, struct releaser, dwork.work);

	complete_all(&r->b->release);
}

/*
 * Modify a running task: it is not queued, so the modify queues it anew
 * and the function runs a second time; the first run is not disturbed.
 */
static void mod_running(struct ktest *t)
{
	struct ordsched_delay *d = ordsched_delay_create(NULL);
	struct blocker *b;

	if (!KT_EXPECT(t, !IS_ERR(d)))
		return;
	b = blocker_new(t, d);
	if (!b)
		goto out;
	KT_EXPECT(t, ordsched_delay_queue(d, &b->task, 0));
	wait_for_completion(&b->started);
	KT_EXPECT(t, !ordsched_delay_mod(d, &b->task, NSEC_PER_MSEC));
	/* Now pending: a second modify moves it. */
	KT_EXPECT(t, ordsched_delay_mod(d, &b->task, 2 * NSEC_PER_MSEC));
	complete_all(&b->release);
	ordsched_delay_flush(d);
	KT_EXPECT_EQ(t, atomic_read(&b->runs), 2);
out:
	ordsched_delay_destroy(d);
	kfree(b);
}

/*
 * Threads queue their share and modify random tasks of every thread to
 * new short deadlines while those expire: a modify that finds the task
 * pending moves its queueing, one that does not adds a queueing. Every
 * queueing runs exactly once, none early (the scheduler's own count, taken
 * under its lock against the deadline of the queueing that starts: the
 * function itself cannot tell, its task may be queued anew meanwhile).
 */
struct mod_storm {
	struct dt dt;
	atomic_t *queueings;
	atomic_t moved;
};

static int mod_storm_thread(void *data, unsigned int idx)
{
	struct mod_storm *ms = data;
	struct dt *dt = &ms->dt;
	u32 rnd = 0x6c078965 * (idx + 1);
	unsigned int i, v;

	for (i = idx; i < dt->n; i += dt->threads) {
		if (ordsched_delay_queue(dt->d, &dt->tasks[i].task,
					 kt_rand(&rnd) % 200000))
			atomic_inc(&ms->queueings[i]);
		v = kt_rand(&rnd) % dt->n;
		if (ordsched_delay_mod(dt->d, &dt->tasks[v].task,
				       kt_rand(&rnd) % 200000))
			atomic_inc(&ms->moved);
		else
			atomic_inc(&ms->queueings[v]);
		if (i % 128 == idx)
			cond_resched();
	}
	return 0;
}

static void mod_storm_run(struct ktest *t, struct mod_storm *ms)
{
	struct ordsched_delay_params p = { .name = "mod_storm" };
	struct ordsched_delay_stats s;
	unsigned int i, bad = 0, total = 0;

	ms->dt.spin = 100;
	if (dt_alloc(t, &ms->dt, 10000, &p))
		return;
	ms->queueings = vzalloc(array_size(ms->dt.n, sizeof(atomic_t)));
	if (!KT_EXPECT(t, ms->queueings))
		goto out;
	KT_EXPECT_EQ(t, kt_run_threads(ms->dt.threads, mod_storm_thread, ms),
		     0);
	ordsched_delay_flush(ms->dt.d);
	for (i = 0; i < ms->dt.n; i++) {
		int want = atomic_read(&ms->queueings[i]);
		int ran = atomic_read(&ms->dt.tasks[i].ran);

		total += want;
		if (ran != want && !bad++)
			ktest_diag(t, "task %u: %d queueings, ran %d", i, want,
				   ran);
	}
	KT_EXPECT_EQ(t, bad, 0);
	ordsched_delay_get_stats(ms->dt.d, &s);
	KT_EXPECT_EQ(t, s.queued, total);
	KT_EXPECT_EQ(t, s.ran, total);
	KT_EXPECT_EQ(t, s.modified, atomic_read(&ms->moved));
	KT_EXPECT_EQ(t, s.run_early, 0);
	KT_EXPECT_EQ(t, s.inflight, 0);
	KT_EXPECT(t, s.modified > 0);
	ktest_diag(t, "%u queueings, %llu moved", total, s.modified);
	dt_diag_stats(t, ms->dt.d);
	vfree(ms->queueings);
out:
	dt_free(&ms->dt);
}

static void mod_storm_wq(struct ktest *t)
{
	struct mod_storm ms = {};

	/* One worker: handed-over tasks wait where a modify takes them back. */
	ms.dt.wq = alloc_ordered_workqueue("ordsched_dt", 0);
	if (!KT_EXPECT(t, ms.dt.wq))
		return;
	mod_storm_run(t, &ms);
	destroy_workqueue(ms.dt.wq);
}

static void mod_storm_stream(struct ktest *t)
{
	struct ordsched_stream *stream = kzalloc(sizeof(*stream), GFP_KERNEL);
	struct mod_storm ms = { .dt.stream = stream };

	if (!KT_EXPECT(t, stream))
		return;
	ordsched_stream_init(stream, NULL);
	mod_storm_run(t, &ms);
	ordsched_stream_destroy(stream);
	kfree(stream);
}

/* ---- cancel_sync ------------------------------------------------------- */

/* Pending, idle, never queued, another scheduler's. */
static void cancel_sync_basic(struct ktest *t)
{
	struct ordsched_delay *other = ordsched_delay_create(NULL);
	struct ordsched_delay_stats s;
	struct dt dt = {};

	if (!KT_EXPECT(t, !IS_ERR(other)))
		return;
	if (dt_alloc(t, &dt, 2, NULL))
		goto out;
	KT_EXPECT(t, !ordsched_delay_cancel_sync(dt.d, &dt.tasks[0].task));
	KT_EXPECT(t, ordsched_delay_queue(dt.d, &dt.tasks[0].task,
					  3600 * NSEC_PER_SEC));
	KT_EXPECT(t, ordsched_delay_cancel_sync(dt.d, &dt.tasks[0].task));
	KT_EXPECT(t, !ordsched_delay_cancel_sync(dt.d, &dt.tasks[0].task));
	/* The task is the caller's again: it may be queued. */
	KT_EXPECT(t, ordsched_delay_queue(dt.d, &dt.tasks[0].task, 0));
	KT_EXPECT(t, dt_wait_ran(&dt.tasks[0], 1, 5000));

	KT_EXPECT(t, ordsched_delay_queue(other, &dt.tasks[1].task,
					  3600 * NSEC_PER_SEC));
	KT_EXPECT(t, !ordsched_delay_cancel_sync(dt.d, &dt.tasks[1].task));
	KT_EXPECT(t, ordsched_delay_cancel_sync(other, &dt.tasks[1].task));
	ordsched_delay_flush(dt.d);
	ordsched_delay_get_stats(dt.d, &s);
	KT_EXPECT_EQ(t, s.cancels, 1);
	KT_EXPECT_EQ(t, s.ran, 1);
	KT_EXPECT_EQ(t, s.inflight, 0);
	dt_free(&dt);
out:
	ordsched_delay_destroy(other);
}

/*
 * A running task: cancel_sync returns only after its function did. The
 * function is released 50 ms later from a work item; had cancel_sync not
 * waited, it would find the function unfinished whatever the speed.
 */
static void cancel_sync_waits(struct ktest *t)
{
	struct ordsched_delay *d = ordsched_delay_create(NULL);
	struct releaser *r = kzalloc(sizeof(*r), GFP_KERNEL);
	struct blocker *b = NULL;

	if (!KT_EXPECT(t, !IS_ERR(d) && r))
		goto out;
	b = blocker_new(t, d);
	if (!b)
		goto out;
	r->b = b;
	INIT_DELAYED_WORK(&r->dwork, releaser_fn);
	KT_EXPECT(t, ordsched_delay_queue(d, &b->task, 0));
	wait_for_completion(&b->started);
	schedule_delayed_work(&r->dwork, msecs_to_jiffies(50));
	/* Running, not queued: false, after the run. */
	KT_EXPECT(t, !ordsched_delay_cancel_sync(d, &b->task));
	KT_EXPECT(t, READ_ONCE(b->finished));
	KT_EXPECT_EQ(t, atomic_read(&b->running), 0);
	KT_EXPECT_EQ(t, atomic_read(&b->runs), 1);
	cancel_delayed_work_sync(&r->dwork);
out:
	if (!IS_ERR(d))
		ordsched_delay_destroy(d);
	kfree(b);
	kfree(r);
}

/*
 * cancel_sync from the task's own function cannot wait for itself: it
 * warns and returns (delay.h). Also while another cancel_sync of the task
 * holds the turn and waits for that very function: the call used to wait
 * for that one's turn first, and both threads hung. Two rounds, without
 * and with that other one; each warns once, on purpose.
 */
struct self_sync {
	struct ordsched_delay *d;
	struct ordsched_delay_task task;
	struct completion started, go, fn_done, other_done;
	bool self_removed, other_removed;
};

static void self_sync_fn(struct ordsched_delay_task *task)
{
	struct self_sync *ss = container_of(task, struct self_sync, task);

	complete(&ss->started);
	wait_for_completion_timeout(&ss->go, 5 * HZ);
	ss->self_removed = ordsched_delay_cancel_sync(ss->d, task);
	complete(&ss->fn_done);
}

static int self_sync_other(void *data)
{
	struct self_sync *ss = data;

	ss->other_removed = ordsched_delay_cancel_sync(ss->d, &ss->task);
	complete(&ss->other_done);
	return 0;
}

static void self_sync_round(struct ktest *t, struct self_sync *ss,
			    bool other)
{
	struct task_struct *th = NULL;
	unsigned long until;

	init_completion(&ss->started);
	init_completion(&ss->go);
	init_completion(&ss->fn_done);
	init_completion(&ss->other_done);
	ordsched_delay_task_init(&ss->task, self_sync_fn, NULL);
	KT_EXPECT(t, ordsched_delay_queue(ss->d, &ss->task, 0));
	if (!KT_EXPECT(t, wait_for_completion_timeout(&ss->started, 5 * HZ)))
		return;
	if (other) {
		th = kthread_run(self_sync_other, ss, "ordsched_selfsync");
		if (!KT_EXPECT(t, !IS_ERR(th))) {
			complete(&ss->go);
			wait_for_completion_timeout(&ss->fn_done, 5 * HZ);
			return;
		}
		get_task_struct(th);
		/* It claims the turn, then sleeps until the function returns. */
		until = jiffies + 5 * HZ;
		while (READ_ONCE(th->__state) != TASK_UNINTERRUPTIBLE &&
		       time_before(jiffies, until))
			usleep_range(100, 200);
		KT_EXPECT_EQ(t, READ_ONCE(th->__state), TASK_UNINTERRUPTIBLE);
		put_task_struct(th);
	}
	complete(&ss->go);
	KT_EXPECT(t, wait_for_completion_timeout(&ss->fn_done, 5 * HZ));
	KT_EXPECT(t, !ss->self_removed);
	if (other) {
		KT_EXPECT(t, wait_for_completion_timeout(&ss->other_done,
							 5 * HZ));
		/* Running, not queued: nothing taken back. */
		KT_EXPECT(t, !ss->other_removed);
	}
	KT_EXPECT_EQ(t, ordsched_delay_flush(ss->d), 0);
}

static void cancel_sync_self_warns(struct ktest *t)
{
	struct self_sync *ss = kzalloc(sizeof(*ss), GFP_KERNEL);
	struct ordsched_delay_stats st;

	if (!KT_EXPECT(t, ss))
		return;
	ss->d = ordsched_delay_create(NULL);
	if (!KT_EXPECT(t, !IS_ERR(ss->d)))
		goto out;
	self_sync_round(t, ss, false);
	self_sync_round(t, ss, true);
	ordsched_delay_get_stats(ss->d, &st);
	KT_EXPECT_EQ(t, st.ran, 2);
	KT_EXPECT_EQ(t, st.cancels, 0);
	ordsched_delay_destroy(ss->d);
out:
	kfree(ss);
}

/* Counts its runs: bad_modes_warn's task. */
static atomic_t bm_runs;

static void bm_fn(struct ordsched_delay_task *task)
{
	atomic_inc(&bm_runs);
}

/*
 * delay.h: a @mode that is none of the enum's values warns, and
 * queue_range does nothing (it queued the task, then answered false:
 * "nothing was done", a task its caller could free); cancel_mode counts
 * it as NOWAIT; stop as CANCEL_PENDING (it neither ran nor cancelled a
 * pending task, and waited for it for ever). A NULL stream warns at init
 * and the task runs on ordsched's workqueue (it oopsed in the timer).
 */
static void bad_modes_warn(struct ktest *t)
{
	struct ordsched_delay_task *tk = kcalloc(2, sizeof(*tk), GFP_KERNEL);
	struct ordsched_delay *d = ordsched_delay_create(NULL);
	u64 far = ktime_get_ns() + 1000 * NSEC_PER_SEC;
	enum ordsched_delay_cancel_mode bad_cancel = 7;
	enum ordsched_delay_queue_mode bad_queue = 7;
	enum ordsched_delay_stop_mode bad_stop = 7;
	struct ordsched_delay_stats s;
	int i;

	if (!KT_EXPECT(t, tk && !IS_ERR(d)))
		goto out;
	atomic_set(&bm_runs, 0);
	ordsched_delay_task_init(&tk[0], bm_fn, NULL);
	KT_EXPECT(t, !ordsched_delay_queue_range(d, &tk[0], far, 0, bad_queue));
	KT_EXPECT(t, !ordsched_delay_cancel(d, &tk[0]));
	KT_EXPECT(t, ordsched_delay_queue(d, &tk[0], far));
	KT_EXPECT(t, ordsched_delay_cancel_mode(d, &tk[0], bad_cancel));
	KT_EXPECT(t, !ordsched_delay_cancel(d, &tk[0]));

	ordsched_delay_task_init_stream(&tk[1], bm_fn, NULL);
	KT_EXPECT(t, ordsched_delay_queue(d, &tk[1], 0));
	for (i = 0; i < 500 && !atomic_read(&bm_runs); i++)
		msleep(20);
	KT_EXPECT_EQ(t, atomic_read(&bm_runs), 1);

	KT_EXPECT(t, ordsched_delay_queue(d, &tk[0], far));
	ordsched_delay_stop(d, bad_stop);
	ordsched_delay_get_stats(d, &s);
	KT_EXPECT_EQ(t, s.pending, 0);
	KT_EXPECT_EQ(t, atomic_read(&bm_runs), 1);
out:
	if (!IS_ERR_OR_NULL(d))
		ordsched_delay_destroy(d);
	kfree(tk);
}

/*
 * A function that queues its task again (with queue or with modify):
 * cancel_sync, called while it runs, makes the queueing fail and returns
 * with the task neither queued nor running; it stays so.
 */
static void cancel_sync_requeue_one(struct ktest *t, bool use_mod)
{
	struct ordsched_delay *d = ordsched_delay_create(NULL);
	struct releaser *r = kzalloc(sizeof(*r), GFP_KERNEL);
	struct ordsched_delay_stats s;
	struct blocker *b = NULL;
	bool removed;
	int runs;

	if (!KT_EXPECT(t, !IS_ERR(d) && r))
		goto out;
	b = blocker_new(t, d);
	if (!b)
		goto out;
	b->requeues = 1000;
	b->use_mod = use_mod;
	r->b = b;
	INIT_DELAYED_WORK(&r->dwork, releaser_fn);
	KT_EXPECT(t, ordsched_delay_queue(d, &b->task, 0));
	wait_for_completion(&b->started);
	schedule_delayed_work(&r->dwork, msecs_to_jiffies(50));
	/*
	 * The runs after the release go straight through. Usually the run
	 * that blocks is the only one and its queueing is refused; if this
	 * thread came late, a queueing it found pending is cancelled.
	 */
	removed = ordsched_delay_cancel_sync(d, &b->task);
	KT_EXPECT(t, READ_ONCE(b->finished));
	KT_EXPECT_EQ(t, atomic_read(&b->running), 0);
	if (!use_mod)
		KT_EXPECT(t, removed || b->requeue_refused == 1);
	runs = atomic_read(&b->runs);
	KT_EXPECT(t, !ordsched_delay_cancel(d, &b->task));
	usleep_range(10000, 20000);
	KT_EXPECT_EQ(t, atomic_read(&b->runs), runs);
	ordsched_delay_get_stats(d, &s);
	KT_EXPECT_EQ(t, s.inflight, 0);
	KT_EXPECT_EQ(t, s.pending, 0);
	KT_EXPECT_EQ(t, s.ran + s.cancels, s.queued);
	KT_EXPECT_EQ(t, s.ran, runs);
	KT_EXPECT_EQ(t, s.cancels, removed);
	ktest_diag(t, "%s: %d runs, %d requeued, %d refused",
		   use_mod ? "mod" : "queue", runs, b->requeue_ok,
		   b->requeue_refused);
	cancel_delayed_work_sync(&r->dwork);
out:
	if (!IS_ERR(d))
		ordsched_delay_destroy(d);
	kfree(b);
	kfree(r);
}

static void cancel_sync_requeue(struct ktest *t)
{
	cancel_sync_requeue_one(t, false);
	cancel_sync_requeue_one(t, true);
}

/*
 * Tasks due in 0-100 us, some requeueing themselves from their function,
 * each thread cancel_syncing its own tasks as they expire: right after
 * cancel_sync the task's function is not running and the task is not
 * queued. Every queueing ran or was cancelled exactly once. Shared: every
 * thread queues and cancel_syncs every task ("concurrent cancel_syncs of
 * one task take turns"), so another thread may queue one again as soon
 * as a cancel_sync returns: only the counts are checked there.
 */
struct cs_task {
	struct ordsched_delay_task task;
	struct ordsched_delay *d;
	atomic_t running;
	atomic_t ran;
	atomic_t queueings;
	atomic_t left;	/* requeues left for the function */
};

struct cs_storm {
	struct ordsched_delay *d;
	struct cs_task *tasks;
	unsigned int n;
	unsigned int threads;
	bool shared;
	atomic_t cancelled;
	atomic_t bad_running;
	atomic_t bad_queued;
};

static void cs_fn(struct ordsched_delay_task *task)
{
	struct cs_task *c = container_of(task, struct cs_task, task);

	atomic_inc(&c->running);
	atomic_inc(&c->ran);
	kt_spin(200);
	if (atomic_dec_if_positive(&c->left) >= 0 &&
	    ordsched_delay_queue(c->d, task, 20000))
		atomic_inc(&c->queueings);
	atomic_dec(&c->running);
}

static int cs_thread(void *data, unsigned int idx)
{
	struct cs_storm *cs = data;
	u32 rnd = 0x3c6ef372 * (idx + 1);
	unsigned int i, round, first = cs->shared ? 0 : idx;
	unsigned int step = cs->shared ? 1 : cs->threads;

	for (round = 0; round < 4; round++) {
		for (i = first; i < cs->n; i += step) {
			struct cs_task *c = &cs->tasks[i];

			atomic_set(&c->left, kt_rand(&rnd) % 4);
			if (ordsched_delay_queue(cs->d, &c->task,
						 kt_rand(&rnd) % 100000))
				atomic_inc(&c->queueings);
		}
		udelay(kt_rand(&rnd) % 100);
		for (i = first; i < cs->n; i += step) {
			struct cs_task *c = &cs->tasks[i];

			if (ordsched_delay_cancel_sync(cs->d, &c->task))
				atomic_inc(&cs->cancelled);
			if (cs->shared)
				continue;
			if (atomic_read(&c->running))
				atomic_inc(&cs->bad_running);
			if (ordsched_delay_cancel(cs->d, &c->task))
				atomic_inc(&cs->bad_queued);
			if (i % 64 == idx)
				cond_resched();
		}
	}
	return 0;
}

static void cancel_sync_storm_one(struct ktest *t, bool shared)
{
	struct ordsched_delay_params p = { .name = "cancel_sync_storm" };
	struct ordsched_delay_stats s;
	struct cs_storm cs = { .shared = shared };
	unsigned int i, queueings = 0, ran = 0;

	cs.n = shared ? 64 : 2000;
	cs.threads = 2 * num_online_cpus();
	cs.tasks = vzalloc(array_size(cs.n, sizeof(*cs.tasks)));
	if (!KT_EXPECT(t, cs.tasks))
		return;
	cs.d = ordsched_delay_create(&p);
	if (!KT_EXPECT(t, !IS_ERR(cs.d)))
		goto out;
	for (i = 0; i < cs.n; i++) {
		cs.tasks[i].d = cs.d;
		ordsched_delay_task_init(&cs.tasks[i].task, cs_fn, NULL);
	}
	KT_EXPECT_EQ(t, kt_run_threads(cs.threads, cs_thread, &cs), 0);
	ordsched_delay_flush(cs.d);
	for (i = 0; i < cs.n; i++) {
		queueings += atomic_read(&cs.tasks[i].queueings);
		ran += atomic_read(&cs.tasks[i].ran);
	}
	KT_EXPECT_EQ(t, atomic_read(&cs.bad_running), 0);
	KT_EXPECT_EQ(t, atomic_read(&cs.bad_queued), 0);
	KT_EXPECT_EQ(t, ran + atomic_read(&cs.cancelled), queueings);
	ordsched_delay_get_stats(cs.d, &s);
	KT_EXPECT_EQ(t, s.queued, queueings);
	KT_EXPECT_EQ(t, s.ran, ran);
	KT_EXPECT_EQ(t, s.cancels, atomic_read(&cs.cancelled));
	KT_EXPECT_EQ(t, s.inflight, 0);
	KT_EXPECT_EQ(t, s.run_early, 0);
	ktest_diag(t, "%u queueings: %u ran, %d cancelled by cancel_sync",
		   queueings, ran, atomic_read(&cs.cancelled));
	ordsched_delay_destroy(cs.d);
out:
	vfree(cs.tasks);
}

static void cancel_sync_storm(struct ktest *t)
{
	cancel_sync_storm_one(t, false);
}

static void cancel_sync_storm_shared(struct ktest *t)
{
	cancel_sync_storm_one(t, true);
}

/* ---- per-task slack ---------------------------------------------------- */

/* Each task's own slack. */
static void slack_task_coalesces(struct ktest *t)
{
	struct ordsched_delay_params p = { .name = "slack_task" };

	slack_batches(t, &p, true);
}

/*
 * The task with the least slack decides the wake-up, wherever it is in the
 * deadline order: @lazy tasks due first with 10 s of slack, then one with
 * none, queued first or last. Had its slack been ignored, it would wait
 * 10 s; it must run within 5 (a thousand times its latency under a debug
 * kernel), after the lazy ones, in deadline order on one worker. More lazy
 * tasks than the re-arm looks at take its bounded path.
 */
static void slack_least_wins_one(struct ktest *t, unsigned int lazy,
				 bool strict_first)
{
	struct ordsched_delay_params p = { .name = "slack_least" };
	struct ordsched_delay_stats s;
	struct dt dt = {};
	unsigned int i, strict = strict_first ? 0 : lazy;
	u64 base;

	dt.wq = alloc_ordered_workqueue("ordsched_dt", 0);
	if (!KT_EXPECT(t, dt.wq))
		return;
	if (dt_alloc(t, &dt, lazy + 1, &p))
		goto out_wq;
	base = ktime_get() + 20 * NSEC_PER_MSEC;
	for (i = 0; i <= lazy; i++) {
		bool lax = i != strict;
		u64 when = lax ? base + i * 1000 : base + 3 * NSEC_PER_MSEC;
		u64 slack = lax ? 10 * NSEC_PER_SEC : 0;

		KT_EXPECT(t, ordsched_delay_queue_range(dt.d, &dt.tasks[i].task,
							when, slack,
							ORDSCHED_DELAY_QUEUE_NEW));
	}
	/*
	 * Any interrupt after the earliest deadline may fire a range timer:
	 * the wait alone could not see a timer armed too late.
	 */
	ordsched_delay_get_stats(dt.d, &s);
	if (ktime_get() < base)
		KT_EXPECT(t, s.armed <= base + 3 * NSEC_PER_MSEC);
	else
		ktest_skip(t, "slow submission: armed not checked");
	if (!KT_EXPECT(t, dt_wait_ran(&dt.tasks[strict], 1, 5000)))
		ktest_diag(t, "%u lazy tasks, strict %s: late", lazy,
			   strict_first ? "first" : "last");
	ordsched_delay_stop(dt.d, ORDSCHED_DELAY_RUN_PENDING);
	dt_check_once(t, &dt, false);
	KT_EXPECT_EQ(t, atomic_read(&dt.early), 0);
	for (i = 0; i <= lazy; i++)
		if (i != strict)
			KT_EXPECT(t, dt.tasks[i].order < dt.tasks[strict].order);
	dt_free(&dt);
out_wq:
	destroy_workqueue(dt.wq);
}

static void slack_least_wins(struct ktest *t)
{
	slack_least_wins_one(t, 4, false);
	slack_least_wins_one(t, 4, true);
	slack_least_wins_one(t, 40, false);
	slack_least_wins_one(t, 40, true);
}

/*
 * After a wake-up, the re-arm must find the least slack again: a first
 * task expires, and a strict task behind @n lazy ones (due 1 s later, with
 * 10 s of slack) is left. Right after the first task's dispatch (done
 * before its function runs) the timer must be armed for the strict task's
 * deadline at the latest; it must also run within 5 s, not 10.
 */
static void slack_rearm_one(struct ktest *t, unsigned int n)
{
	struct ordsched_delay_params p = { .name = "slack_rearm" };
	struct ordsched_delay_stats s;
	u64 base, lazy, strict;
	struct dt dt = {};
	unsigned int i;

	if (dt_alloc(t, &dt, n + 2, &p))
		return;
	base = ktime_get() + 5 * NSEC_PER_MSEC;
	lazy = base + NSEC_PER_SEC;
	strict = lazy + NSEC_PER_SEC / 2;
	KT_EXPECT(t, ordsched_delay_queue_range(dt.d, &dt.tasks[0].task, base,
						0, ORDSCHED_DELAY_QUEUE_NEW));
	for (i = 1; i <= n; i++)
		KT_EXPECT(t, ordsched_delay_queue_range(dt.d, &dt.tasks[i].task,
							lazy + (i % 3) * 1000,
							10 * NSEC_PER_SEC,
							ORDSCHED_DELAY_QUEUE_NEW));
	KT_EXPECT(t, ordsched_delay_queue_range(dt.d, &dt.tasks[n + 1].task,
						strict, 0,
						ORDSCHED_DELAY_QUEUE_NEW));
	KT_EXPECT(t, dt_wait_ran(&dt.tasks[0], 1, 5000));
	ordsched_delay_get_stats(dt.d, &s);
	if (ktime_get() < lazy)
		KT_EXPECT(t, s.armed <= strict);
	else
		ktest_skip(t, "slow submission: armed not checked");
	if (!KT_EXPECT(t, dt_wait_ran(&dt.tasks[n + 1], 1, 5000)))
		ktest_diag(t, "behind %u lazy tasks: late", n);
	ordsched_delay_stop(dt.d, ORDSCHED_DELAY_RUN_PENDING);
	dt_check_once(t, &dt, false);
	KT_EXPECT_EQ(t, atomic_read(&dt.early), 0);
	dt_free(&dt);
}

/*
 * @rearms counts every start of the hrtimer, also when it was not armed:
 * the first arming, and the one after it fired. (Which far deadlines
 * make an earlier arming depends on the wheel: slack_rearm covers that.)
 */
static void rearms_count_starts(struct ktest *t)
{
	struct ordsched_delay_params p = { .name = "rearms" };
	struct ordsched_delay_stats s;
	struct dt dt = {};

	if (dt_alloc(t, &dt, 2, &p))
		return;
	ordsched_delay_get_stats(dt.d, &s);
	KT_EXPECT_EQ(t, s.rearms, 0);
	KT_EXPECT_EQ(t, s.armed, KTIME_MAX);
	KT_EXPECT(t, ordsched_delay_queue(dt.d, &dt.tasks[0].task,
					  NSEC_PER_MSEC));
	ordsched_delay_get_stats(dt.d, &s);
	KT_EXPECT_EQ(t, s.rearms, 1);
	KT_EXPECT(t, dt_wait_ran(&dt.tasks[0], 1, 5000));
	ordsched_delay_get_stats(dt.d, &s);
	KT_EXPECT_EQ(t, s.rearms, 1);
	KT_EXPECT_EQ(t, s.armed, KTIME_MAX);
	KT_EXPECT(t, ordsched_delay_queue(dt.d, &dt.tasks[1].task,
					  20 * NSEC_PER_SEC));
	ordsched_delay_get_stats(dt.d, &s);
	KT_EXPECT_EQ(t, s.rearms, 2);
	KT_EXPECT(t, s.armed != KTIME_MAX);
	ordsched_delay_stop(dt.d, ORDSCHED_DELAY_CANCEL_PENDING);
	dt_free(&dt);
}

/* Fewer lazy tasks than the re-arm looks at, and more. */
static void slack_rearm(struct ktest *t)
{
	slack_rearm_one(t, 4);
	slack_rearm_one(t, 40);
}

/* A modify may change the slack: from 10 s to none. */
static void slack_mod(struct ktest *t)
{
	struct dt dt = {};
	u64 when;

	if (dt_alloc(t, &dt, 1, NULL))
		return;
	when = ktime_get_ns() + NSEC_PER_MSEC;
	KT_EXPECT(t, ordsched_delay_queue_range(dt.d, &dt.tasks[0].task, when,
						10 * NSEC_PER_SEC,
						ORDSCHED_DELAY_QUEUE_NEW));
	KT_EXPECT(t, ordsched_delay_queue_range(dt.d, &dt.tasks[0].task, when,
						0, ORDSCHED_DELAY_QUEUE_MOD));
	KT_EXPECT(t, dt_wait_ran(&dt.tasks[0], 1, 5000));
	KT_EXPECT_EQ(t, atomic_read(&dt.early), 0);
	dt_free(&dt);
}

/* ---- delayed tasks on serial streams ----------------------------------- */

#define SO_STREAMS	4
#define SO_DELAYED	400
#define SO_DIRECT	400

struct so;

/* A delayed task or a direct stream item, with its stream and rank. */
struct so_entry {
	struct ordsched_delay_task task;
	struct ordsched_stream_item item;
	struct so *so;
	unsigned int stream;
	u64 queued;	/* when queued (direct) or submitted (delayed) */
	u64 ran;	/* position in its stream's execution */
	atomic_t runs;
};

struct so {
	struct ordsched_delay *d;
	struct ordsched_stream streams[SO_STREAMS];
	atomic_t busy[SO_STREAMS];
	u64 pos[SO_STREAMS];
	struct so_entry delayed[SO_DELAYED];
	struct so_entry direct[SO_DIRECT];
	atomic_t overlaps;
	atomic_t early;
};

static void so_run(struct so_entry *e)
{
	struct so *so = e->so;

	if (atomic_inc_return(&so->busy[e->stream]) != 1)
		atomic_inc(&so->overlaps);
	/* Serial per stream: no lock needed for the stream's position. */
	e->ran = ++so->pos[e->stream];
	atomic_inc(&e->runs);
	atomic_dec(&so->busy[e->stream]);
}

static void so_delayed_fn(struct ordsched_delay_task *task)
{
	struct so_entry *e = container_of(task, struct so_entry, task);

	if (ktime_get() < ordsched_delay_task_deadline(task))
		atomic_inc(&e->so->early);
	so_run(e);
}

static void so_direct_fn(struct ordsched_stream_item *item)
{
	so_run(container_of(item, struct so_entry, item));
}

static void so_check(struct ktest *t, struct so *so)
{
	unsigned int i, j, bad = 0, pairs = 0;

	for (i = 0; i < SO_DELAYED; i++) {
		struct so_entry *a = &so->delayed[i];
		u64 da = ordsched_delay_task_deadline(&a->task);

		bad += atomic_read(&a->runs) != 1;
		for (j = 0; j < SO_DELAYED; j++) {
			struct so_entry *b = &so->delayed[j];
			u64 db = ordsched_delay_task_deadline(&b->task);

			/*
			 * Same stream, a before b by deadline then submission,
			 * and a submitted before b could be due: a runs first.
			 */
			if (a->stream != b->stream || a->queued >= db ||
			    da > db || (da == db && a->task.seq > b->task.seq) ||
			    i == j)
				continue;
			pairs++;
			if (a->ran > b->ran && !bad++)
				ktest_diag(t, "delayed %u ran after %u", i, j);
		}
		for (j = 0; j < SO_DIRECT; j++) {
			struct so_entry *b = &so->direct[j];

			/* Queued before the deadline: ahead in the FIFO. */
			if (a->stream == b->stream && b->queued < da &&
			    b->ran > a->ran && !bad++)
				ktest_diag(t, "direct %u ran after delayed %u",
					   j, i);
		}
	}
	for (j = 0; j < SO_DIRECT; j++)
		bad += atomic_read(&so->direct[j].runs) != 1;
	KT_EXPECT_EQ(t, bad, 0);
	KT_EXPECT(t, pairs > 1000);
	ktest_diag(t, "%u ordered pairs of delayed tasks checked", pairs);
}

/*
 * Delayed tasks and direct items on a few streams: each stream runs one
 * item at a time, its delayed tasks in deadline order (ties in submission
 * order), and a delayed task after every item queued on its stream
 * before its deadline.
 */
static void stream_order(struct ktest *t)
{
	struct ordsched_delay_params p = { .name = "stream_order" };
	struct so *so = vzalloc(sizeof(*so));
	unsigned int i;
	u32 rnd = 12345;
	u64 base;

	if (!KT_EXPECT(t, so))
		return;
	so->d = ordsched_delay_create(&p);
	if (!KT_EXPECT(t, !IS_ERR(so->d)))
		goto out;
	for (i = 0; i < SO_STREAMS; i++)
		ordsched_stream_init(&so->streams[i], NULL);
	/*
	 * Far enough for the queueings to come before most deadlines even
	 * on a slow debug kernel: pairs queued after a deadline prove less.
	 */
	base = ktime_get() + 10 * NSEC_PER_MSEC;
	for (i = 0; i < SO_DELAYED; i++) {
		struct so_entry *e = &so->delayed[i];

		e->so = so;
		e->stream = kt_rand(&rnd) % SO_STREAMS;
		ordsched_delay_task_init_stream(&e->task, so_delayed_fn,
						&so->streams[e->stream]);
		KT_EXPECT(t, ordsched_delay_queue_at(so->d, &e->task, base +
						     (kt_rand(&rnd) % 64) * 200000));
		e->queued = ktime_get();
	}
	/* Direct items trickle in while the deadlines pass. */
	for (i = 0; i < SO_DIRECT; i++) {
		struct so_entry *e = &so->direct[i];

		e->so = so;
		e->stream = kt_rand(&rnd) % SO_STREAMS;
		ordsched_stream_item_init(&e->item, so_direct_fn);
		ordsched_stream_queue(&so->streams[e->stream], &e->item);
		/* Read after queueing: then queued < deadline proves the order. */
		e->queued = ktime_get();
		if (i % 4 == 0)
			usleep_range(100, 200);
	}
	ordsched_delay_flush(so->d);
	for (i = 0; i < SO_STREAMS; i++)
		ordsched_stream_flush(&so->streams[i]);
	KT_EXPECT_EQ(t, atomic_read(&so->overlaps), 0);
	KT_EXPECT_EQ(t, atomic_read(&so->early), 0);
	so_check(t, so);
	dt_diag_stats(t, so->d);
	ordsched_delay_destroy(so->d);
	for (i = 0; i < SO_STREAMS; i++)
		ordsched_stream_destroy(&so->streams[i]);
out:
	vfree(so);
}

/*
 * One hop less: the hrtimer callback hands a few due tasks to their
 * workqueue itself. A lone task goes that way; of a burst of 64 with one
 * deadline, the callback hands over the first few and the dispatch work
 * the rest, counted as one batch, and an ordered workqueue runs them in
 * queueing order.
 */
static void direct_handoff(struct ktest *t)
{
	struct ordsched_delay_stats s;
	struct workqueue_struct *wq;
	unsigned int i, tries, bad = 0;
	struct dt dt = {};
	bool crowd;
	u64 when;

	wq = alloc_ordered_workqueue("ordsched_direct", 0);
	if (!KT_EXPECT(t, wq))
		return;
	for (tries = 1; ; tries++) {
		memset(&dt, 0, sizeof(dt));
		dt.wq = wq;
		if (dt_alloc(t, &dt, 65, NULL))
			goto out_wq;
		KT_EXPECT(t, ordsched_delay_queue(dt.d, &dt.tasks[0].task,
						  2 * NSEC_PER_MSEC));
		KT_EXPECT_EQ(t, ordsched_delay_flush(dt.d), 0);
		ordsched_delay_get_stats(dt.d, &s);
		KT_EXPECT_EQ(t, s.dispatched, 1);
		KT_EXPECT_EQ(t, s.direct, 1);
		KT_EXPECT_EQ(t, s.batches, 1);

		/*
		 * Within the horizon: the burst goes straight into the tree,
		 * and only the hrtimer hands it over. (Through a wheel, a
		 * dispatch work that moved the bucket late, as a busy
		 * PREEMPT_RT guest did, handed it all over itself.)
		 */
		when = ktime_get_ns() + 10 * NSEC_PER_MSEC;
		for (i = 1; i < dt.n; i++)
			KT_EXPECT(t, ordsched_delay_queue_at(dt.d,
							     &dt.tasks[i].task,
							     when));
		/* All queued before their deadline: one batch. */
		crowd = ktime_get_ns() < when;
		KT_EXPECT_EQ(t, ordsched_delay_flush(dt.d), 0);
		if (crowd || tries == 3)
			break;
		ktest_diag(t, "queueing took over 10 ms: again");
		dt_free(&dt);
	}
	KT_EXPECT(t, crowd);
	ordsched_delay_get_stats(dt.d, &s);
	KT_EXPECT_EQ(t, s.dispatched, dt.n);
	KT_EXPECT(t, s.direct > 1 && s.direct < dt.n);
	KT_EXPECT_EQ(t, s.batches, 2);
	KT_EXPECT_EQ(t, s.max_batch, dt.n - 1);
	for (i = 2; i < dt.n; i++)
		bad += dt.tasks[i].order != dt.tasks[i - 1].order + 1;
	KT_EXPECT_EQ(t, bad, 0);
	KT_EXPECT_EQ(t, atomic_read(&dt.early), 0);
	dt_check_once(t, &dt, false);
	ktest_diag(t, "%llu of %llu handed over by the hrtimer callback",
		   s.direct, s.dispatched);
	dt_free(&dt);
out_wq:
	destroy_workqueue(wq);
}

/* ---- far deadlines: the wheel, and its buckets moving into the tree ---- */

/*
 * Far tasks wait in a bucket of the wheel until the dispatch work moves
 * them into the tree, in chunks, as their deadline comes within the
 * horizon. Threads queue and modify tasks for the same deadline before,
 * while and after the bucket moves: the new tasks may land in the tree
 * while older ones are still on their way there.
 */
struct far {
	struct dt *dt;
	/* Tasks below @first are queued before the threads start. */
	unsigned int first;
	atomic_t next;
	u64 when;
	u64 from;
	u64 until;
	u64 woke;
	/* Per task: queueings a modify added (it found the task idle). */
	atomic_t *requeued;
};

static int far_alloc(struct ktest *t, struct far *f, struct dt *dt,
		     unsigned int n, const char *name)
{
	struct ordsched_delay_params p = { .name = name };

	f->dt = dt;
	dt->wq = alloc_ordered_workqueue("ordsched_dt", 0);
	if (!KT_EXPECT(t, dt->wq))
		return -ENOMEM;
	f->requeued = vzalloc(array_size(n, sizeof(*f->requeued)));
	if (!KT_EXPECT(t, f->requeued))
		goto out_wq;
	if (dt_alloc(t, dt, n, &p))
		goto out_requeued;
	return 0;
out_requeued:
	vfree(f->requeued);
out_wq:
	destroy_workqueue(dt->wq);
	return -ENOMEM;
}

static void far_free(struct far *f)
{
	dt_free(f->dt);
	vfree(f->requeued);
	destroy_workqueue(f->dt->wq);
}

static void far_wait_until(u64 when)
{
	while (ktime_get_ns() < when)
		usleep_range(200, 400);
}

/*
 * Queue the tasks from @first on for @when, as soon as the dispatch work
 * has begun to move their bucket into the tree (it owns the timer then:
 * the stats show it unarmed), or, if that is not seen, from @from on.
 */
static int far_ties_thread(void *data, unsigned int idx)
{
	struct far *f = data;
	struct ordsched_delay_stats s;
	unsigned int i;

	far_wait_until(f->from);
	do {
		ordsched_delay_get_stats(f->dt->d, &s);
		cond_resched();
	} while (s.armed != KTIME_MAX && ktime_get_ns() < f->until);
	if (!idx)
		f->woke = ktime_get_ns();
	while ((i = atomic_inc_return(&f->next) - 1) < f->dt->n) {
		if (!ordsched_delay_queue_at(f->dt->d, &f->dt->tasks[i].task,
					     f->when))
			atomic_inc(&f->dt->submit_errors);
		cond_resched();
	}
	return 0;
}

/*
 * 20,000 tasks for one far deadline, then two threads queue 8,000 more
 * for the same one while the bucket moves (it comes in DELAY_HORIZON,
 * 16.8 ms, before its first deadline, in chunks of 32 per hold of the
 * lock). All run in the order they were queued, none before the deadline.
 */
static void far_ties(struct ktest *t)
{
	struct dt dt = {};
	struct far f = { .first = 20000 };
	unsigned int i;

	if (far_alloc(t, &f, &dt, f.first + 8000, "far_ties"))
		return;
	f.when = ktime_get_ns() + 300 * NSEC_PER_MSEC;
	f.from = f.when - 45 * NSEC_PER_MSEC;
	f.until = f.when - NSEC_PER_MSEC;
	atomic_set(&f.next, f.first);
	for (i = 0; i < f.first; i++)
		KT_EXPECT(t, ordsched_delay_queue_at(dt.d, &dt.tasks[i].task,
						     f.when));
	if (ktime_get_ns() > f.from)
		ktest_skip(t, "slow submission: the threads start late");
	KT_EXPECT_EQ(t, kt_run_threads(2, far_ties_thread, &f), 0);
	KT_EXPECT_EQ(t, ordsched_delay_flush(dt.d), 0);
	ktest_diag(t, "the threads began %lld us before the deadline",
		   (s64)(f.when - f.woke) / 1000);
	KT_EXPECT_EQ(t, atomic_read(&dt.submit_errors), 0);
	KT_EXPECT_EQ(t, atomic_read(&dt.early), 0);
	dt_check_once(t, &dt, false);
	dt_check_ties(t, &dt);
	dt_diag_stats(t, dt.d);
	far_free(&f);
}

/*
 * Around the moment a bucket of 10,000 tasks moves into the tree, threads
 * cancel random tasks and move them: within the bucket, to the near tree,
 * to a farther bucket. A modify that finds the task idle queues it again.
 */
static int far_storm_thread(void *data, unsigned int idx)
{
	struct far *f = data;
	struct dt *dt = f->dt;
	u32 rnd = 0x51ed270b * (idx + 1);
	unsigned int i, n = 0;
	u64 when;

	far_wait_until(f->from);
	while (ktime_get_ns() < f->until) {
		i = kt_rand(&rnd) % dt->n;
		switch (kt_rand(&rnd) % 4) {
		case 0:
			if (ordsched_delay_cancel(dt->d, &dt->tasks[i].task))
				atomic_inc(&dt->tasks[i].cancelled);
			continue;
		case 1:
			when = f->when + (kt_rand(&rnd) % 8) * 1000;
			break;
		case 2:
			when = ktime_get_ns() + kt_rand(&rnd) % (2 * NSEC_PER_MSEC);
			break;
		default:
			when = f->when + 100 * NSEC_PER_MSEC;
			break;
		}
		if (!ordsched_delay_mod_at(dt->d, &dt->tasks[i].task, when))
			atomic_inc(&f->requeued[i]);
		if (++n % 64 == 0)
			cond_resched();
	}
	return 0;
}

/*
 * Queue the storm's 10,000 tasks @margin from now: true if that was done
 * before the threads are to begin, else (a slow kernel) the storm would
 * come after the bucket moved.
 */
static bool far_storm_fill(struct ktest *t, struct far *f, u64 margin)
{
	struct dt *dt = f->dt;
	unsigned int i;

	f->when = ktime_get_ns() + margin;
	f->from = f->when - 40 * NSEC_PER_MSEC;
	f->until = f->when + 5 * NSEC_PER_MSEC;
	for (i = 0; i < dt->n; i++)
		KT_EXPECT(t, ordsched_delay_queue_at(dt->d, &dt->tasks[i].task,
						     f->when + (i % 4) * 1000));
	return ktime_get_ns() < f->from;
}

static void far_storm(struct ktest *t)
{
	u64 margin = 200 * NSEC_PER_MSEC, start;
	struct ordsched_delay_stats s;
	unsigned int i, bad = 0, tries = 1;
	struct dt dt = {};
	struct far f = {};
	bool on_time;

	for (;;) {
		if (far_alloc(t, &f, &dt, 10000, "far_storm"))
			return;
		start = ktime_get_ns();
		on_time = far_storm_fill(t, &f, margin);
		if (on_time || tries == 3)
			break;
		tries++;
		/* Destroying cancels what is queued: again, with room. */
		margin = 4 * (ktime_get_ns() - start) + 200 * NSEC_PER_MSEC;
		far_free(&f);
		memset(&dt, 0, sizeof(dt));
		memset(&f, 0, sizeof(f));
	}
	if (!on_time) {
		ktest_diag(t, "fill slower than %llu ms", margin / NSEC_PER_MSEC);
		ktest_skip(t, "slow submission: the storm may miss the bucket");
	}
	KT_EXPECT_EQ(t, kt_run_threads(dt.threads, far_storm_thread, &f), 0);
	KT_EXPECT_EQ(t, ordsched_delay_flush(dt.d), 0);
	for (i = 0; i < dt.n; i++) {
		int r = atomic_read(&dt.tasks[i].ran);
		int c = atomic_read(&dt.tasks[i].cancelled);

		if (r + c != 1 + atomic_read(&f.requeued[i]) && !bad++)
			ktest_diag(t, "task %u ran %d cancelled %d requeued %d",
				   i, r, c, atomic_read(&f.requeued[i]));
	}
	KT_EXPECT_EQ(t, bad, 0);
	/*
	 * Not dt.early: the threads modify tasks while they run, so dt_fn()
	 * may read the deadline of the task's next queueing. The scheduler
	 * measures each run against its own deadline under its lock.
	 */
	ordsched_delay_get_stats(dt.d, &s);
	KT_EXPECT_EQ(t, s.run_early, 0);
	KT_EXPECT_EQ(t, s.pending, 0);
	KT_EXPECT_EQ(t, s.inflight, 0);
	KT_EXPECT_EQ(t, s.ran + s.cancels, s.queued);
	if (on_time)
		KT_EXPECT(t, s.modified > 0 && s.cancels > 0);
	ktest_diag(t, "%llu queued, %llu modified, %llu cancelled (fill %u)",
		   s.queued, s.modified, s.cancels, tries);
	dt_diag_stats(t, dt.d);
	far_free(&f);
}

/*
 * A cancelled far task leaves its wheel's stop behind (only the bucket's
 * bit goes). A lone task due at that stop must still be handed over by
 * the hrtimer callback itself: delay.h has tasks, interrupt ones
 * included, need no worker but when more than four are due or a far
 * bucket is being moved, and this bucket is empty. The callback used to
 * wake the dispatch work for the stale stop, which handed the task over.
 * The stop is read back from @armed: delay.c arms a wheel's stop with
 * DELAY_HORIZON / 2 (2^23 ns) of range, and a task due then, without
 * slack, narrows the range to the stop.
 */
#define FAR_STOP_RANGE_NS	BIT_ULL(23)

static void far_cancel_stale_stop(struct ktest *t)
{
	struct ordsched_delay_stats s;
	struct dt dt = {};
	u64 stop, now;

	if (dt_alloc(t, &dt, 2, NULL))
		return;
	KT_EXPECT(t, ordsched_delay_queue(dt.d, &dt.tasks[0].task,
					  NSEC_PER_SEC));
	KT_EXPECT(t, ordsched_delay_cancel(dt.d, &dt.tasks[0].task));
	ordsched_delay_get_stats(dt.d, &s);
	stop = s.armed - FAR_STOP_RANGE_NS;
	now = ktime_get_ns();
	if (!KT_EXPECT(t, s.armed != KTIME_MAX && stop > now))
		goto out;
	if (!KT_EXPECT(t, stop - now <= 2 * NSEC_PER_SEC))
		goto out;
	/*
	 * Within the horizon of the stop (16.8 ms), so the task goes in the
	 * tree: an hrtimer sleep to 20 ms before it, a spin to 8 ms before.
	 */
	if (stop - now > 20 * NSEC_PER_MSEC) {
		now = (stop - now - 20 * NSEC_PER_MSEC) / NSEC_PER_USEC;
		usleep_range(now, now + 100);
	}
	while (ktime_get_ns() < stop - 8 * NSEC_PER_MSEC)
		cpu_relax();
	KT_EXPECT(t, ordsched_delay_queue_range(dt.d, &dt.tasks[1].task, stop,
						0, ORDSCHED_DELAY_QUEUE_NEW));
	if (ktime_get_ns() + NSEC_PER_MSEC > stop)
		ktest_skip(t, "slow submission: queued at the stop");
	KT_EXPECT_EQ(t, ordsched_delay_flush(dt.d), 0);
	ordsched_delay_get_stats(dt.d, &s);
	KT_EXPECT_EQ(t, atomic_read(&dt.tasks[1].ran), 1);
	KT_EXPECT_EQ(t, s.dispatched, 1);
	KT_EXPECT_EQ(t, s.direct, 1);
	KT_EXPECT_EQ(t, atomic_read(&dt.early), 0);
	dt_diag_stats(t, dt.d);
out:
	dt_free(&dt);
}

/*
 * Far to near and near to far, one task at a time: a far task moved to a
 * near deadline runs then, after the near task already waiting for it and
 * before one queued after the move; a near task moved far does not run
 * at its old deadline, and can be moved farther and cancelled there.
 */
static void far_mod(struct ktest *t)
{
	struct ordsched_delay_stats s;
	unsigned int tries;
	struct dt dt;
	struct far f;
	bool moved;
	u64 when;

	for (tries = 1; ; tries++) {
		memset(&dt, 0, sizeof(dt));
		memset(&f, 0, sizeof(f));
		if (far_alloc(t, &f, &dt, 5, "far_mod"))
			return;
		when = ktime_get_ns() + 10 * NSEC_PER_MSEC;
		/* Near first: the wheel's clock is brought up to now. */
		KT_EXPECT(t, ordsched_delay_queue_at(dt.d, &dt.tasks[1].task,
						     when));
		KT_EXPECT(t, ordsched_delay_queue(dt.d, &dt.tasks[0].task,
						  10 * NSEC_PER_SEC));
		/*
		 * Near, and as far off as task 1: a guest that stalls this
		 * thread for a few ms (PREEMPT_RT under TCG did, with 2 ms)
		 * must not run it before it is moved.
		 */
		KT_EXPECT(t, ordsched_delay_queue_at(dt.d, &dt.tasks[3].task,
						     when));
		KT_EXPECT(t, ordsched_delay_queue(dt.d, &dt.tasks[4].task,
						  10 * NSEC_PER_SEC));
		/* Far to near, tied with task 1: after it, before task 2. */
		KT_EXPECT(t, ordsched_delay_mod_at(dt.d, &dt.tasks[0].task,
						   when));
		KT_EXPECT(t, ordsched_delay_queue_at(dt.d, &dt.tasks[2].task,
						     when));
		/* Near to far. */
		moved = ordsched_delay_mod(dt.d, &dt.tasks[3].task,
					   10 * NSEC_PER_SEC);
		/*
		 * Stalled past the deadline, task 3 may have run: again (the
		 * margin cannot grow past the wheel's horizon).
		 */
		if (moved || ktime_get_ns() < when || tries == 3)
			break;
		ktest_diag(t, "stalled past the deadline: again");
		far_free(&f);
	}
	KT_EXPECT(t, moved);
	KT_EXPECT(t, dt_wait_ran(&dt.tasks[2], 1, 5000));
	KT_EXPECT(t, dt.tasks[1].order < dt.tasks[0].order);
	KT_EXPECT(t, dt.tasks[0].order < dt.tasks[2].order);
	msleep(20);
	KT_EXPECT_EQ(t, atomic_read(&dt.tasks[3].ran), 0);
	/* Far to farther, then cancelled there. */
	KT_EXPECT(t, ordsched_delay_mod(dt.d, &dt.tasks[3].task,
					20 * NSEC_PER_SEC));
	KT_EXPECT(t, ordsched_delay_cancel(dt.d, &dt.tasks[3].task));
	atomic_inc(&dt.tasks[3].cancelled);
	/* Far to due now. */
	KT_EXPECT(t, ordsched_delay_mod(dt.d, &dt.tasks[4].task, 0));
	KT_EXPECT(t, dt_wait_ran(&dt.tasks[4], 1, 5000));

	KT_EXPECT_EQ(t, ordsched_delay_flush(dt.d), 0);
	dt_check_once(t, &dt, true);
	KT_EXPECT_EQ(t, atomic_read(&dt.early), 0);
	ordsched_delay_get_stats(dt.d, &s);
	KT_EXPECT_EQ(t, s.modified, 4);
	KT_EXPECT_EQ(t, s.pending, 0);
	far_free(&f);
}

/* ---- far wheels of several CPUs ---------------------------------------- */

/* Wait up to @ms for @v to read @want; false on timeout. */
static bool cpus_wait_for(atomic_t *v, int want, unsigned int ms, bool sleep)
{
	u64 end = ktime_get_ns() + (u64)ms * NSEC_PER_MSEC;

	while (atomic_read_acquire(v) != want) {
		if (ktime_get_ns() > end)
			return false;
		if (sleep)
			usleep_range(50, 100);
		else
			cpu_relax();
	}
	return true;
}

/*
 * Two threads on two CPUs take turns, each queueing its task only after
 * the other's queueing returned: every queueing happens before the next.
 * Tasks with equal deadlines must run in that order, although they wait
 * in two CPUs' wheels and meet only in the tree (with delay_max_wheels=1,
 * in the one wheel the CPUs share).
 */
struct cpus_turns {
	struct dt *dt;
	atomic_t turn;
	u64 when;
};

static int cpus_turns_thread(void *data, unsigned int idx)
{
	struct cpus_turns *ct = data;
	struct dt *dt = ct->dt;
	unsigned int i;

	for (i = idx; i < dt->n; i += 2) {
		/* Sleep: a spinning vCPU can hold up the other one. */
		if (!cpus_wait_for(&ct->turn, i, 10000, true))
			return -ETIMEDOUT;
		if (!ordsched_delay_queue_at(dt->d, &dt->tasks[i].task,
					     ct->when + (i % 3) * 1000))
			atomic_inc(&dt->submit_errors);
		atomic_set_release(&ct->turn, i + 1);
	}
	return 0;
}

static void far_ties_cpus(struct ktest *t)
{
	struct cpus_turns ct = {};
	unsigned int i, bad = 0;
	struct dt dt = {};
	struct far f = {};

	if (far_alloc(t, &f, &dt, 400, "far_ties_cpus"))
		return;
	ct.dt = &dt;
	/* A turn can take a millisecond when the host is busy. */
	ct.when = ktime_get_ns() + 1500 * NSEC_PER_MSEC;
	KT_EXPECT_EQ(t, kt_run_threads(2, cpus_turns_thread, &ct), 0);
	if (ktime_get_ns() + 20 * NSEC_PER_MSEC > ct.when)
		ktest_skip(t, "slow submission: some tasks went near");
	KT_EXPECT_EQ(t, ordsched_delay_flush(dt.d), 0);
	KT_EXPECT_EQ(t, atomic_read(&dt.submit_errors), 0);
	KT_EXPECT_EQ(t, atomic_read(&dt.early), 0);
	dt_check_once(t, &dt, false);
	/* Same deadline (same i % 3): queued in index order, so run so. */
	for (i = 3; i < dt.n; i++) {
		if (dt.tasks[i].order < dt.tasks[i - 3].order && !bad++)
			ktest_diag(t, "task %u (CPU %u) ran before task %u",
				   i, i % 2, i - 3);
	}
	KT_EXPECT_EQ(t, bad, 0);
	dt_diag_stats(t, dt.d);
	far_free(&f);
}

/*
 * A wheel's clock only moves when the dispatch work visits it. Thread 0
 * keeps a task in its CPU's wheel and lets that clock fall behind, then,
 * with interrupts off so that the timer it arms cannot fire yet, queues
 * task A, already due: it lands in the stale wheel. Thread 1 then queues
 * task B, due just after A, on another CPU, whose empty wheel puts it
 * straight in the tree. When the timer fires, B is the tree's earliest,
 * but A comes first: the hrtimer callback must not hand B over itself.
 * (CPUs that share a wheel share its clock: then B goes to the tree only
 * by being due within the horizon of now.)
 */
#define STALE_ROUNDS	6

struct cpus_stale {
	struct dt *dt;
	atomic_t step;
	u64 a_when;
	unsigned int held;
};

static int cpus_stale_thread(void *data, unsigned int idx)
{
	struct cpus_stale *cs = data;
	struct dt *dt = cs->dt;
	unsigned long flags;
	unsigned int r;

	if (idx == 0 &&
	    !ordsched_delay_queue(dt->d, &dt->tasks[0].task,
				  100 * NSEC_PER_SEC))
		atomic_inc(&dt->submit_errors);
	for (r = 0; r < STALE_ROUNDS; r++) {
		struct dt_task *a = &dt->tasks[1 + 2 * r];
		struct dt_task *b = &dt->tasks[2 + 2 * r];

		if (idx == 1) {
			if (!cpus_wait_for(&cs->step, 2 * r + 1, 5000, true))
				return -ETIMEDOUT;
			if (!ordsched_delay_queue_at(dt->d, &b->task,
						     cs->a_when + 100 * NSEC_PER_USEC))
				atomic_inc(&dt->submit_errors);
			atomic_set_release(&cs->step, 2 * r + 2);
			continue;
		}
		msleep(40);
		local_irq_save(flags);
		cs->a_when = ktime_get_ns() - NSEC_PER_MSEC;
		if (!ordsched_delay_queue_at(dt->d, &a->task, cs->a_when))
			atomic_inc(&dt->submit_errors);
		atomic_set_release(&cs->step, 2 * r + 1);
		cs->held += cpus_wait_for(&cs->step, 2 * r + 2, 100, false);
		local_irq_restore(flags);
		if (!cpus_wait_for(&cs->step, 2 * r + 2, 5000, true) ||
		    !dt_wait_ran(b, 1, 5000) || !dt_wait_ran(a, 1, 5000))
			return -ETIMEDOUT;
	}
	return 0;
}

static void far_stale_clock(struct ktest *t)
{
	struct cpus_stale cs = {};
	unsigned int r, bad = 0;
	struct dt dt = {};
	struct far f = {};

	if (far_alloc(t, &f, &dt, 1 + 2 * STALE_ROUNDS, "far_stale_clock"))
		return;
	cs.dt = &dt;
	KT_EXPECT_EQ(t, kt_run_threads(2, cpus_stale_thread, &cs), 0);
	if (KT_EXPECT(t, ordsched_delay_cancel(dt.d, &dt.tasks[0].task)))
		atomic_inc(&dt.tasks[0].cancelled);
	KT_EXPECT_EQ(t, ordsched_delay_flush(dt.d), 0);
	KT_EXPECT_EQ(t, atomic_read(&dt.submit_errors), 0);
	KT_EXPECT_EQ(t, atomic_read(&dt.early), 0);
	dt_check_once(t, &dt, true);
	for (r = 0; r < STALE_ROUNDS; r++) {
		if (dt.tasks[2 + 2 * r].order < dt.tasks[1 + 2 * r].order &&
		    !bad++)
			ktest_diag(t, "round %u: B ran before A", r);
	}
	KT_EXPECT_EQ(t, bad, 0);
	ktest_diag(t, "%u of %u rounds queued B while A's timer was held",
		   cs.held, STALE_ROUNDS);
	dt_diag_stats(t, dt.d);
	far_free(&f);
}

/*
 * A wheel's clock stands still while its far tasks wait, so a short delay
 * queued on its CPU must still go straight into the tree, not into a
 * bucket of the lagging wheel to wait for the dispatch work. Every CPU's
 * wheel gets a task 10 s away; then, each round after the clocks have
 * fallen behind by more than the horizon (a dispatch run would bring them
 * up), a task 20 us away. From the tree the hrtimer hands it over itself
 * (stats.direct); through a bucket the dispatch work does, which kicks in
 * at once and finds it due, or moves it in first.
 */
#define LAG_ROUNDS	10

struct lag {
	struct dt *dt;
	u64 when;
	atomic_t queued;
};

static void lag_queue_far(void *data)
{
	struct lag *l = data;
	struct dt_task *dtt = &l->dt->tasks[LAG_ROUNDS + smp_processor_id()];

	if (ordsched_delay_queue_at(l->dt->d, &dtt->task, l->when))
		atomic_inc(&l->queued);
	else
		atomic_inc(&l->dt->submit_errors);
}

static void far_lagging_near(struct ktest *t)
{
	struct ordsched_delay_stats s0, s1;
	unsigned int r, cpu, direct = 0, cancelled = 0;
	struct dt_task *dtt;
	struct dt dt = {};
	struct far f = {};
	struct lag l = { .dt = &dt };

	if (far_alloc(t, &f, &dt, LAG_ROUNDS + nr_cpu_ids, "far_lagging_near"))
		return;
	l.when = ktime_get_ns() + 10 * NSEC_PER_SEC;
	on_each_cpu(lag_queue_far, &l, 1);
	for (r = 0; r < LAG_ROUNDS; r++) {
		/* Beyond the horizon, a unit and a tick of the coarse clock. */
		msleep(30);
		ordsched_delay_get_stats(dt.d, &s0);
		if (!ordsched_delay_queue(dt.d, &dt.tasks[r].task,
					  20 * NSEC_PER_USEC))
			atomic_inc(&dt.submit_errors);
		if (!KT_EXPECT(t, dt_wait_ran(&dt.tasks[r], 1, 5000)))
			break;
		ordsched_delay_get_stats(dt.d, &s1);
		direct += s1.direct - s0.direct;
	}
	/*
	 * Through a lagging wheel's bucket none would be direct. From the
	 * tree, a round whose expiry finds a wheel due as well, or a
	 * dispatch under way, leaves the hand-over to the dispatch work
	 * (delay_expire()): once in 10 rounds on the debug kernel under
	 * TCG. Most must still be direct.
	 */
	KT_EXPECT(t, direct * 2 >= LAG_ROUNDS);
	for_each_possible_cpu(cpu) {
		dtt = &dt.tasks[LAG_ROUNDS + cpu];
		if (ordsched_delay_cancel(dt.d, &dtt->task)) {
			atomic_inc(&dtt->cancelled);
			cancelled++;
		}
	}
	KT_EXPECT_EQ(t, cancelled, atomic_read(&l.queued));
	KT_EXPECT_EQ(t, ordsched_delay_flush(dt.d), 0);
	KT_EXPECT_EQ(t, atomic_read(&dt.submit_errors), 0);
	KT_EXPECT_EQ(t, atomic_read(&dt.early), 0);
	ktest_diag(t, "%u of %u short delays handed over by the hrtimer",
		   direct, LAG_ROUNDS);
	dt_diag_stats(t, dt.d);
	far_free(&f);
}

/*
 * Tasks queued on a CPU that then goes offline: no callback moves them,
 * the dispatch work visits every wheel (an online CPU's too, where CPUs
 * share one). Another CPU
 * cancels and moves some of them while their CPU is offline. If the guest
 * cannot take a CPU offline, the rest of the test still runs.
 */
struct cpus_offline {
	struct dt *dt;
	unsigned int cpu;
	u64 when;
};

#define OFFLINE_RUN	2000

static int cpus_offline_thread(void *data, unsigned int idx)
{
	struct cpus_offline *co = data;
	struct dt *dt = co->dt;
	unsigned int i;
	u64 when;

	if (idx != 1)
		return 0;
	co->cpu = raw_smp_processor_id();
	for (i = 0; i < dt->n; i++) {
		when = i < OFFLINE_RUN ? co->when + (i % 2) * 1000 :
					 co->when + 10 * NSEC_PER_SEC;
		if (!ordsched_delay_queue_at(dt->d, &dt->tasks[i].task, when))
			atomic_inc(&dt->submit_errors);
	}
	return 0;
}

static void far_offline_cpu(struct ktest *t)
{
	struct cpus_offline co = {};
	unsigned int i, ran, bad = 0;
	struct dt dt = {};
	struct far f = {};
	bool offline;
	u64 end;
	int ret;

	if (num_online_cpus() < 2) {
		ktest_diag(t, "one CPU online: nothing to take offline");
		return;
	}
	if (far_alloc(t, &f, &dt, OFFLINE_RUN + 1000, "far_offline_cpu"))
		return;
	co.dt = &dt;
	co.when = ktime_get_ns() + 500 * NSEC_PER_MSEC;
	KT_EXPECT_EQ(t, kt_run_threads(2, cpus_offline_thread, &co), 0);
	ret = remove_cpu(co.cpu);
	offline = !ret;
	ktest_diag(t, "CPU %u offline: %s (%d), %lld ms before the deadline",
		   co.cpu, offline ? "yes" : "no", ret,
		   ((s64)co.when - (s64)ktime_get_ns()) / 1000000);
	/* From another CPU: cancel half the later ones, move the rest. */
	for (i = OFFLINE_RUN; i < dt.n; i++) {
		if (i % 2) {
			if (KT_EXPECT(t, ordsched_delay_cancel(dt.d,
							       &dt.tasks[i].task)))
				atomic_inc(&dt.tasks[i].cancelled);
		} else {
			KT_EXPECT(t, ordsched_delay_mod_at(dt.d,
							   &dt.tasks[i].task,
							   co.when + 2000));
		}
	}
	/* Not a flush: a wheel nobody visits would make it wait forever. */
	end = ktime_get_ns() + 10 * NSEC_PER_SEC;
	do {
		msleep(20);
		for (i = 0, ran = 0; i < dt.n; i++)
			ran += atomic_read(&dt.tasks[i].ran);
	} while (ran < dt.n - (dt.n - OFFLINE_RUN) / 2 && ktime_get_ns() < end);
	KT_EXPECT_EQ(t, ran, dt.n - (dt.n - OFFLINE_RUN) / 2);
	if (offline)
		KT_EXPECT_EQ(t, add_cpu(co.cpu), 0);
	KT_EXPECT_EQ(t, ordsched_delay_flush(dt.d), 0);
	KT_EXPECT_EQ(t, atomic_read(&dt.submit_errors), 0);
	KT_EXPECT_EQ(t, atomic_read(&dt.early), 0);
	dt_check_once(t, &dt, true);
	/* One thread queued them: ties run in index order. */
	for (i = 2; i < OFFLINE_RUN; i++)
		if (dt.tasks[i].order < dt.tasks[i - 2].order && !bad++)
			ktest_diag(t, "task %u ran before task %u", i, i - 2);
	KT_EXPECT_EQ(t, bad, 0);
	dt_diag_stats(t, dt.d);
	far_free(&f);
}

/*
 * A task moved while its target was starting it, given back during a RUN
 * stop, runs: "tasks already handed to their target run in either mode,
 * except the moved ones in CANCEL mode". The target is held as it starts
 * the task (a kprobe on delay_work_fn(), for this task's work only), so
 * the modify finds it started and leaves it for the target to give back.
 * The stop sets @stopped, then waits a grace period, which the held CPU
 * holds up; the target is let go in between. It used to cancel the task
 * there, the stop having not yet said RUN.
 */
struct moved_stop {
	struct kprobe kp;
	struct ordsched_delay *d;
	struct ordsched_delay_task task, probe, later;
	/* The ordered workqueue of @task and @later, or NULL (the default) */
	struct workqueue_struct *wq;
	/* 0: armed, 1: the target is held, 2: let go */
	atomic_t stage;
	atomic_t ran, cancelled;
	/* Where @task and @later ran, counted from 1. */
	atomic_t runs;
	int task_pos, later_pos;
	struct completion stopped;
	/* moved_cancel_sync: what the cancel_sync answered */
	bool synced;
	/*
	 * moved_back_not_held: @later's start seen by the probe, the modify
	 * it raised (when, its answer), @later's runs and the last's time.
	 */
	atomic_t later_moved;
	struct irq_work later_iw;
	u64 later_mod_at, later_at;
	bool later_mod;
	atomic_t later_runs;
};

static struct moved_stop *moved_stop_of;

static void moved_stop_fn(struct ordsched_delay_task *task)
{
	struct moved_stop *ms = moved_stop_of;

	if (task == &ms->task) {
		atomic_inc(&ms->ran);
		ms->task_pos = atomic_inc_return(&ms->runs);
	} else if (task == &ms->later) {
		WRITE_ONCE(ms->later_at, ktime_get_ns());
		atomic_inc(&ms->later_runs);
		ms->later_pos = atomic_inc_return(&ms->runs);
	}
}

static void moved_stop_cancelled(struct ordsched_delay_task *task)
{
	if (task == &moved_stop_of->task)
		atomic_inc(&moved_stop_of->cancelled);
}

static int moved_stop_hold(struct kprobe *kp, struct pt_regs *regs)
{
	struct moved_stop *ms = container_of(kp, struct moved_stop, kp);

	if ((void *)regs_get_kernel_argument(regs, 0) == &ms->task.wq.work)
		kt_hold(&ms->stage);
	return 0;
}

static int moved_stop_thread(void *data)
{
	struct moved_stop *ms = data;

	ordsched_delay_stop(ms->d, ORDSCHED_DELAY_RUN_PENDING);
	complete(&ms->stopped);
	return 0;
}

/*
 * Queue ms->task (a workqueue task) due now, hold its target as it starts
 * it and move it to @delay_ns from now, which leaves it to the held
 * target. 0 when it is held and moved; -ENOENT (skipped) without the
 * kprobe, which is then not registered; -ETIMEDOUT when it never got held
 * (a failure of the case, unless @may_retry).
 */
static int __moved_start(struct ktest *t, struct moved_stop *ms,
			 u64 delay_ns, bool may_retry)
{
	bool held;

	ms->kp.symbol_name = "ordsched:delay_work_fn";
	ms->kp.pre_handler = moved_stop_hold;
	if (register_kprobe(&ms->kp)) {
		ktest_skip(t, "no kprobe on delay_work_fn");
		return -ENOENT;
	}
	KT_EXPECT(t, ordsched_delay_queue(ms->d, &ms->task, 0));
	held = kt_wait_held(&ms->stage);
	if (!held) {
		if (!may_retry)
			KT_EXPECT(t, held);
		return -ETIMEDOUT;
	}
	/* Started: the modify leaves it to the held target. */
	KT_EXPECT(t, ordsched_delay_mod(ms->d, &ms->task, delay_ns));
	/* Still held: the modify met the task started, not run. */
	KT_EXPECT_EQ(t, atomic_read(&ms->stage), 1);
	return 0;
}

static int moved_start(struct ktest *t, struct moved_stop *ms, u64 delay_ns)
{
	return __moved_start(t, ms, delay_ns, false);
}

/*
 * A scheduler reporting to moved_stop_cancelled() and its two tasks, for
 * the cases below; NULL (the case skipped or failed) on one CPU or an
 * error.
 */
static struct moved_stop *moved_alloc(struct ktest *t)
{
	struct ordsched_delay_params p = { .cancelled = moved_stop_cancelled };
	struct moved_stop *ms;

	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs two CPUs");
		return NULL;
	}
	ms = kzalloc(sizeof(*ms), GFP_KERNEL);
	if (!KT_EXPECT(t, ms))
		return NULL;
	moved_stop_of = ms;
	init_completion(&ms->stopped);
	ms->d = ordsched_delay_create(&p);
	if (!KT_EXPECT(t, !IS_ERR(ms->d))) {
		moved_stop_of = NULL;
		kfree(ms);
		return NULL;
	}
	ordsched_delay_task_init(&ms->task, moved_stop_fn, NULL);
	ordsched_delay_task_init(&ms->probe, moved_stop_fn, NULL);
	return ms;
}

static void moved_free(struct moved_stop *ms)
{
	ordsched_delay_destroy(ms->d);
	moved_stop_of = NULL;
	kfree(ms);
}

/*
 * With the target held (@held), a RUN stop in a thread of its own, until
 * it is under way (a queueing fails; one that succeeds is taken back),
 * spinning, not sleeping, while the target is held: see kt_wait_held().
 * Then the target is let go, the stop waited for and the probe gone.
 */
static void moved_stop_run(struct ktest *t, struct moved_stop *ms, bool held)
{
	struct task_struct *stopper = NULL;
	unsigned long until;

	if (held)
		stopper = kthread_run(moved_stop_thread, ms, "kt_delay_stop");
	if (held && KT_EXPECT(t, !IS_ERR(stopper))) {
		until = jiffies + HZ;
		while (ordsched_delay_queue(ms->d, &ms->probe,
					    10 * NSEC_PER_SEC)) {
			KT_EXPECT(t, ordsched_delay_cancel(ms->d, &ms->probe));
			if (!KT_EXPECT(t, time_before(jiffies, until)))
				break;
			cond_resched();
			cpu_relax();
		}
		KT_EXPECT_EQ(t, atomic_read(&ms->stage), 1);
	}
	atomic_set(&ms->stage, 2);
	if (!IS_ERR_OR_NULL(stopper))
		wait_for_completion(&ms->stopped);
	unregister_kprobe(&ms->kp);
}

static void stop_run_moved(struct ktest *t)
{
	struct moved_stop *ms = moved_alloc(t);
	int ret;

	if (!ms)
		return;
	ret = moved_start(t, ms, 10 * NSEC_PER_SEC);
	if (ret == -ENOENT)
		goto out_delay;
	moved_stop_run(t, ms, !ret);
	KT_EXPECT_EQ(t, atomic_read(&ms->ran), 1);
	KT_EXPECT_EQ(t, atomic_read(&ms->cancelled), 0);
out_delay:
	moved_free(ms);
}

/*
 * A scheduler reporting to moved_stop_cancelled(), @task and @later on an
 * ordered workqueue of their own, @probe on the default one; NULL on an
 * error (the case failed).
 */
static struct moved_stop *moved_ordered_alloc(struct ktest *t)
{
	struct ordsched_delay_params p = { .cancelled = moved_stop_cancelled };
	struct moved_stop *ms = kzalloc(sizeof(*ms), GFP_KERNEL);

	if (!KT_EXPECT(t, ms))
		return NULL;
	moved_stop_of = ms;
	init_completion(&ms->stopped);
	ms->wq = alloc_ordered_workqueue("ordsched_dt", 0);
	ms->d = ordsched_delay_create(&p);
	if (!KT_EXPECT(t, ms->wq && !IS_ERR(ms->d))) {
		if (!IS_ERR(ms->d))
			ordsched_delay_destroy(ms->d);
		if (ms->wq)
			destroy_workqueue(ms->wq);
		moved_stop_of = NULL;
		kfree(ms);
		return NULL;
	}
	ordsched_delay_task_init(&ms->task, moved_stop_fn, ms->wq);
	ordsched_delay_task_init(&ms->later, moved_stop_fn, ms->wq);
	ordsched_delay_task_init(&ms->probe, moved_stop_fn, NULL);
	return ms;
}

/*
 * The ordered workqueue's worker is unbound: when it starts the task on
 * the CPU this thread was on, the hold (preemption off, and interrupts
 * too while the probe is not optimized) keeps this thread from running
 * until it gives up, unless the other CPU pulls it over: the likely
 * cause of one timeout on the debug kernel, whose log kept no more. Such
 * a round (@round answers -ETIMEDOUT) proves nothing: again, on a fresh
 * scheduler, three times at most.
 */
static void moved_ordered_rounds(struct ktest *t,
				 int (*round)(struct ktest *t,
					      struct moved_stop *ms,
					      bool may_retry))
{
	struct moved_stop *ms;
	unsigned int tries;
	int ret;

	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs two CPUs");
		return;
	}
	for (tries = 1; tries <= 3; tries++) {
		ms = moved_ordered_alloc(t);
		if (!ms)
			return;
		ret = round(t, ms, tries < 3);
		ordsched_delay_destroy(ms->d);
		moved_stop_of = NULL;
		destroy_workqueue(ms->wq);
		kfree(ms);
		if (ret != -ETIMEDOUT)
			return;
		ktest_diag(t, "the target was never held: again");
	}
}

/*
 * The same, in order: "tasks are handed over in deadline order ... (a
 * moved task counts as queued when it was moved), so on an ordered
 * workqueue ... they run in that order", which a RUN stop keeps (it only
 * ignores the deadlines). B is queued for +5 s, then A, on the same
 * ordered workqueue, is held as it starts and moved to +10 s; a RUN stop
 * comes, and A's target is let go. B must run first. A used to run at
 * once where its target gave it back, ahead of B, which the stop's
 * hand-over reached only later.
 */
static int stop_run_moved_order_round(struct ktest *t, struct moved_stop *ms,
				      bool may_retry)
{
	int ret;

	KT_EXPECT(t, ordsched_delay_queue(ms->d, &ms->later, 5 * NSEC_PER_SEC));
	ret = __moved_start(t, ms, 10 * NSEC_PER_SEC, may_retry);
	if (ret == -ENOENT)
		return ret;
	moved_stop_run(t, ms, !ret);
	if (ret)
		return ret;
	KT_EXPECT_EQ(t, atomic_read(&ms->ran), 1);
	KT_EXPECT_EQ(t, atomic_read(&ms->later_runs), 1);
	KT_EXPECT_EQ(t, atomic_read(&ms->cancelled), 0);
	KT_EXPECT_EQ(t, ms->later_pos, 1);
	KT_EXPECT_EQ(t, ms->task_pos, 2);
	return 0;
}

static void stop_run_moved_order(struct ktest *t)
{
	moved_ordered_rounds(t, stop_run_moved_order_round);
}

static int moved_sync_thread(void *data)
{
	struct moved_stop *ms = data;

	ms->synced = ordsched_delay_cancel_sync(ms->d, &ms->task);
	complete(&ms->stopped);
	return 0;
}

/*
 * delay.h cancel: "Either this returns true and the task will not run, or
 * the task has run ... and this returns false: never both, never
 * neither", and "a task moved while its target was starting it is
 * cancelled when the target gives it back", for cancel_sync. The target
 * is held as it starts the task and a modify moves it; cancel_sync claims
 * the task, then the target is let go and gives it back: the call answers
 * true and the task never runs. (The claim and the cancel once took two
 * holds of the lock: a target giving the task back between them cancelled
 * it and the call answered false.)
 */
static void moved_cancel_sync(struct ktest *t)
{
	struct task_struct *syncer = NULL;
	struct moved_stop *ms = moved_alloc(t);
	unsigned long until;
	int ret;

	if (!ms)
		return;
	ret = moved_start(t, ms, 10 * NSEC_PER_SEC);
	if (ret == -ENOENT)
		goto out_delay;
	if (ret)
		goto out_probe;
	syncer = kthread_run(moved_sync_thread, ms, "kt_delay_sync");
	if (!KT_EXPECT(t, !IS_ERR(syncer)))
		goto out_probe;
	/*
	 * The claim shows as a modify that fails: until then each one moves
	 * the task again. The call then waits for the target. Spinning, not
	 * sleeping, while the target is held: see kt_wait_held(). (A sleep
	 * here that lasts until the hold gives up finds the call returned.)
	 */
	until = jiffies + HZ;
	while (ordsched_delay_mod(ms->d, &ms->task, 10 * NSEC_PER_SEC)) {
		if (!KT_EXPECT(t, time_before(jiffies, until)))
			break;
		cond_resched();
		cpu_relax();
	}
	KT_EXPECT(t, !completion_done(&ms->stopped));
out_probe:
	atomic_set(&ms->stage, 2);
	if (!IS_ERR_OR_NULL(syncer)) {
		KT_EXPECT(t, wait_for_completion_timeout(&ms->stopped, 5 * HZ));
		KT_EXPECT(t, ms->synced);
	}
	unregister_kprobe(&ms->kp);
	/* Past its old deadline and long enough for a wrong run to show. */
	msleep(20);
	KT_EXPECT_EQ(t, atomic_read(&ms->ran), 0);
	KT_EXPECT_EQ(t, atomic_read(&ms->cancelled), 0);
out_delay:
	moved_free(ms);
}

/*
 * "@stats: filled in, one consistent snapshot", while far queueings and
 * cancels, which take only their wheel's lock, run on every CPU:
 * with no task ever due, every snapshot must have queued - cancels ==
 * inflight == pending. Thread 0 takes snapshots; the others queue and
 * cancel tasks of their own. Reading the wheels one at a time, and the
 * counts apart from the pending one, gave snapshots that broke it.
 */
#define SNAP_TASKS	64
#define SNAP_ROUNDS	2000

struct snap {
	struct ordsched_delay *d;
	struct ordsched_delay_task tasks[3][SNAP_TASKS];
	atomic_t submitters;
	unsigned long snapshots, bad;
	struct ordsched_delay_stats bad_one;
};

static void snap_fn(struct ordsched_delay_task *task)
{
}

static int snap_thread(void *data, unsigned int idx)
{
	struct snap *sn = data;
	struct ordsched_delay_stats *st;
	unsigned int r, i;

	if (idx) {
		struct ordsched_delay_task *tasks = sn->tasks[idx - 1];

		for (r = 0; r < SNAP_ROUNDS; r++) {
			for (i = 0; i < SNAP_TASKS; i++)
				ordsched_delay_queue(sn->d, &tasks[i],
						     3600 * NSEC_PER_SEC);
			for (i = 0; i < SNAP_TASKS; i++)
				ordsched_delay_cancel(sn->d, &tasks[i]);
			cond_resched();
		}
		atomic_dec(&sn->submitters);
		return 0;
	}
	st = kmalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	while (atomic_read(&sn->submitters)) {
		ordsched_delay_get_stats(sn->d, st);
		sn->snapshots++;
		if (st->queued - st->cancels != st->inflight ||
		    st->pending != st->inflight) {
			if (!sn->bad++)
				sn->bad_one = *st;
		}
		cond_resched();
	}
	kfree(st);
	return 0;
}

static void stats_snapshot(struct ktest *t)
{
	unsigned int threads = min(num_online_cpus(), 3U) + 1, i, j;
	struct ordsched_delay_stats *st;
	struct snap *sn;

	sn = kzalloc(sizeof(*sn), GFP_KERNEL);
	st = kmalloc(sizeof(*st), GFP_KERNEL);
	if (!KT_EXPECT(t, sn && st))
		goto out;
	sn->d = ordsched_delay_create(NULL);
	if (!KT_EXPECT(t, !IS_ERR(sn->d)))
		goto out;
	for (i = 0; i < 3; i++)
		for (j = 0; j < SNAP_TASKS; j++)
			ordsched_delay_task_init(&sn->tasks[i][j], snap_fn, NULL);
	atomic_set(&sn->submitters, threads - 1);
	KT_EXPECT_EQ(t, kt_run_threads(threads, snap_thread, sn), 0);
	if (sn->bad)
		ktest_diag(t, "queued %llu cancels %llu inflight %llu pending %llu",
			   sn->bad_one.queued, sn->bad_one.cancels,
			   sn->bad_one.inflight, sn->bad_one.pending);
	KT_EXPECT_EQ(t, sn->bad, 0);
	ktest_diag(t, "%lu snapshots, %lu inconsistent", sn->snapshots,
		   sn->bad);
	ordsched_delay_get_stats(sn->d, st);
	KT_EXPECT_EQ(t, st->queued, (u64)(threads - 1) * SNAP_ROUNDS * SNAP_TASKS);
	KT_EXPECT_EQ(t, st->cancels, st->queued);
	KT_EXPECT_EQ(t, st->inflight, 0);
	ordsched_delay_destroy(sn->d);
out:
	kfree(st);
	kfree(sn);
}

/*
 * A task moved while its target was starting it keeps the deadline order:
 * "tasks are handed over in deadline order ... (a moved task counts as
 * queued when it was moved)". A is held as its ordered workqueue starts
 * it and moved to +2 ms; B is queued for +4 ms; both deadlines pass
 * before A's target gives it back. B must still run after A. B used to
 * be handed over at its deadline, A only once given back: behind B.
 */
static int moved_keeps_order_round(struct ktest *t, struct moved_stop *ms,
				   bool may_retry)
{
	int ret = __moved_start(t, ms, 2 * NSEC_PER_MSEC, may_retry);

	if (ret == -ENOENT)
		return ret;
	if (!ret) {
		KT_EXPECT(t, ordsched_delay_queue(ms->d, &ms->later,
						  4 * NSEC_PER_MSEC));
		/* Both deadlines pass; no sleep during the hold. */
		kt_spin_ms(30);
		KT_EXPECT_EQ(t, atomic_read(&ms->stage), 1);
	}
	atomic_set(&ms->stage, 2);
	KT_EXPECT_EQ(t, ordsched_delay_flush(ms->d), 0);
	unregister_kprobe(&ms->kp);
	if (ret)
		return ret;
	KT_EXPECT_EQ(t, atomic_read(&ms->ran), 1);
	KT_EXPECT_EQ(t, ms->task_pos, 1);
	KT_EXPECT_EQ(t, ms->later_pos, 2);
	return 0;
}

static void moved_keeps_order(struct ktest *t)
{
	moved_ordered_rounds(t, moved_keeps_order_round);
}

/*
 * "holds back every task that sorts after its new place ... until that
 * worker gives it back": after it, not before. B is moved 60 s on while
 * its worker is held; A, queued due, is moved 1 ms on as its own worker
 * starts it, and given back at once. A sorts before B's place: it runs
 * while B is still held. The place held was the least any moved task
 * took, A's own, kept until B was back: A held itself up.
 *
 * The probe runs in the breakpoint's context, which lockdep counts as an
 * NMI, where the scheduler may not be called: it raises an irq_work,
 * which the worker's CPU runs in hard interrupt context as soon as the
 * breakpoint returns, before the worker reaches the scheduler's lock. A
 * modify that comes later finds A running and queues it again: A then
 * runs twice, the first time at once, and the round proves nothing.
 */
static void moved_back_mod(struct irq_work *w)
{
	struct moved_stop *ms = container_of(w, struct moved_stop, later_iw);

	WRITE_ONCE(ms->later_mod_at, ktime_get_ns());
	ms->later_mod = ordsched_delay_mod(ms->d, &ms->later, NSEC_PER_MSEC);
}

static int moved_back_hold(struct kprobe *kp, struct pt_regs *regs)
{
	struct moved_stop *ms = container_of(kp, struct moved_stop, kp);
	void *work = (void *)regs_get_kernel_argument(regs, 0);

	if (work == &ms->task.wq.work)
		kt_hold(&ms->stage);
	else if (work == &ms->later.wq.work && !atomic_xchg(&ms->later_moved, 1))
		irq_work_queue(&ms->later_iw);
	return 0;
}

static void moved_back_not_held(struct ktest *t)
{
	struct moved_stop *ms = moved_alloc(t);
	bool handed_again = false;
	int stage, pos;
	u64 until;

	if (!ms)
		return;
	ordsched_delay_task_init(&ms->later, moved_stop_fn, NULL);
	ms->later_iw = IRQ_WORK_INIT_HARD(moved_back_mod);
	ms->kp.symbol_name = "ordsched:delay_work_fn";
	ms->kp.pre_handler = moved_back_hold;
	if (register_kprobe(&ms->kp)) {
		ktest_skip(t, "no kprobe on delay_work_fn");
		goto out_delay;
	}
	KT_EXPECT(t, ordsched_delay_queue(ms->d, &ms->task, 0));
	if (!kt_wait_held(&ms->stage)) {
		ktest_skip(t, "the target was never held");
		goto out_probe;
	}
	KT_EXPECT(t, ordsched_delay_mod(ms->d, &ms->task, 60 * NSEC_PER_SEC));
	KT_EXPECT(t, ordsched_delay_queue(ms->d, &ms->later, 0));
	/* Spinning, not sleeping, while the target is held: kt_wait_held(). */
	until = ktime_get_mono_fast_ns() + NSEC_PER_SEC;
	while (!READ_ONCE(ms->later_pos) && atomic_read(&ms->stage) == 1 &&
	       ktime_get_mono_fast_ns() < until) {
		/* Handed over again after the move: its work is queued. */
		if (READ_ONCE(ms->later_mod_at) &&
		    work_pending(&ms->later.wq.work))
			handed_again = true;
		cond_resched();
		cpu_relax();
	}
	/* Where the round ended: A's run, or the hold's end, came first. */
	stage = atomic_read(&ms->stage);
	pos = READ_ONCE(ms->later_pos);
	/*
	 * A's worker may not start while the hold lasts: woken onto the
	 * held CPU, as on the debug kernel, it waits there. Then the round
	 * proves nothing; the same for its second start, once handed over
	 * again (which the bug would not do: A held back stays unqueued).
	 */
	if (!atomic_read(&ms->later_moved)) {
		ktest_skip(t, "the held CPU kept the next task's worker");
	} else if (!pos && stage != 1 && handed_again) {
		ktest_skip(t, "the held CPU kept the moved task's second worker");
	} else if (pos && (atomic_read(&ms->later_runs) != 1 ||
			   READ_ONCE(ms->later_at) <
			   READ_ONCE(ms->later_mod_at) + NSEC_PER_MSEC)) {
		ktest_skip(t, "the modify came after the worker took the task");
	} else {
		KT_EXPECT(t, ms->later_mod);
		KT_EXPECT(t, pos);
		KT_EXPECT_EQ(t, stage, 1);
	}
out_probe:
	atomic_set(&ms->stage, 2);
	unregister_kprobe(&ms->kp);
	irq_work_sync(&ms->later_iw);
	KT_EXPECT_EQ(t, atomic_read(&ms->ran), 0);
out_delay:
	moved_free(ms);
}

static const struct ktest_case delay_cases[] = {
	KT_CASE(bad_args),
	KT_CASE(rearms_count_starts),
	KT_CASE(order_small),
	KT_CASE(flush_waits),
	KT_CASE(direct_handoff),
	KT_CASE(periodic_resubmit),
	KT_CASE(slack_coalesces),
	KT_CASE(slack_task_coalesces),
	KT_CASE(slack_least_wins),
	KT_CASE(slack_rearm),
	KT_CASE(slack_mod),
	KT_CASE(mod_basic),
	KT_CASE(mod_running),
	KT_CASE(mod_storm_wq),
	KT_CASE(mod_storm_stream),
	KT_CASE(cancel_sync_basic),
	KT_CASE(cancel_sync_waits),
	KT_CASE_WARNS(cancel_sync_self_warns, 0, 0,
		      KT_WARNED_AT("delay_cancel_sync|ordsched_delay_cancel_mode"),
		      "cancel_sync of a delayed task from its own function"),
	KT_CASE_WARNS(bad_modes_warn, 0, 0,
		      KT_WARNED_AT("ordsched_delay_queue_range"),
		      KT_WARNED_AT("ordsched_delay_stop"),
		      /*
		       * Its own text: the function also holds the warnings
		       * of cancel_sync_self_warns, which runs in the boot.
		       */
		      "ordsched: delay cancel mode -?[0-9]+ is neither NOWAIT nor SYNC",
		      KT_WARNED_AT("ordsched_delay_task_init_stream")),
	KT_CASE(cancel_sync_requeue),
	KT_CASE(cancel_sync_storm),
	KT_CASE(cancel_sync_storm_shared),
	KT_CASE(far_cancel_stale_stop),
	KT_CASE(far_mod),
	KT_CASE(far_ties),
	KT_CASE(far_storm),
	KT_CASE(far_ties_cpus),
	KT_CASE(far_stale_clock),
	KT_CASE(far_lagging_near),
	KT_CASE(far_offline_cpu),
	KT_CASE(random_100k),
	KT_CASE(cancel_storm_wq),
	KT_CASE(cancel_storm_unbound),
	KT_CASE(cancel_storm_stream),
	KT_CASE(stop_run_100k),
	KT_CASE(stop_cancel_100k),
	KT_CASE(stop_run_moved),
	KT_CASE(stop_run_moved_order),
	KT_CASE(moved_cancel_sync),
	KT_CASE(moved_keeps_order),
	KT_CASE(moved_back_not_held),
	KT_CASE(stats_snapshot),
	KT_CASE(destroy_pending),
	KT_CASE(stream_order),
	KT_CASE(unload_pending),
	KT_END
};

const struct ktest_suite ordsched_delay_suite = KT_SUITE("delay", delay_cases);
