// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the delayed scheduler's interrupt target: the function runs in
 * hard interrupt with interrupts off (PREEMPT_RT included), never early,
 * in deadline order with ties in queueing order, also mixed with
 * workqueue tasks and in crowds larger than one interrupt runs; cancel and
 * modify racing expiry, counts exact; cancel_sync waiting for a running
 * function; a function queueing its own task again; flush, stop in both
 * modes, destroy with tasks pending.
 */
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/hardirq.h>
#include <linux/irqflags.h>
#include <linux/ktime.h>
#include <linux/llist.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <ordsched.h>

#include "ktest.h"
#include "suites.h"
#include "util.h"

struct it;

struct it_task {
	struct ordsched_delay_task task;
	struct it *it;
	/* Queued with this deadline, by one thread: set before queueing. */
	u64 deadline;
	/* The time before its last queueing began, and after it ended. */
	u64 queued_before;
	u64 queued_after;
	/* 1 + the place of its last run among all runs; 0: never ran. */
	u64 order;
	atomic_t ran;
	atomic_t cancelled;
	bool irq;
};

struct it {
	struct ordsched_delay *d;
	struct it_task *tasks;
	unsigned int n;
	atomic64_t order;
	/* Runs of irq tasks outside hard irq, or with interrupts on. */
	atomic_t not_hardirq;
	/* Runs of workqueue tasks in hard irq. */
	atomic_t wq_in_irq;
	/* Runs before the deadline their queuer set. */
	atomic_t early;
	/* Requeues left for a function that queues its own task again. */
	atomic_t requeue;
	u64 requeue_ns;
	atomic_t requeue_err;
	/*
	 * The requeueing task, the first: how long its function is busy
	 * before it queues the task again, when it last did, and the least
	 * time from a queueing to the run it queued.
	 */
	u64 busy_ns;
	u64 prev_ns;
	u64 min_gap_ns;
};

/* Busy for @ns: in hard interrupt, where nothing may sleep. */
static void it_busy(u64 ns)
{
	u64 end = ktime_get_ns() + ns;

	while (ktime_get_ns() < end)
		cpu_relax();
}

static void it_fn(struct ordsched_delay_task *task)
{
	struct it_task *itt = container_of(task, struct it_task, task);
	struct it *it = itt->it;
	bool hard = in_hardirq() && irqs_disabled();
	u64 now = ktime_get_ns();

	if (itt->irq && !hard)
		atomic_inc(&it->not_hardirq);
	if (!itt->irq && in_hardirq())
		atomic_inc(&it->wq_in_irq);
	if (now < READ_ONCE(itt->deadline))
		atomic_inc(&it->early);
	itt->order = atomic64_inc_return(&it->order);
	atomic_inc(&itt->ran);
	if (itt == &it->tasks[0] && atomic_add_unless(&it->requeue, -1, 0)) {
		if (it->prev_ns)
			it->min_gap_ns = min(it->min_gap_ns, now - it->prev_ns);
		it_busy(it->busy_ns);
		now = ktime_get_ns();
		it->prev_ns = now;
		WRITE_ONCE(itt->deadline, now + it->requeue_ns);
		if (!ordsched_delay_queue_at(it->d, task, now + it->requeue_ns))
			atomic_inc(&it->requeue_err);
	}
}

static void it_cancelled(struct ordsched_delay_task *task)
{
	atomic_inc(&container_of(task, struct it_task, task)->cancelled);
}

/* @n tasks, irq ones where @irq_every divides the index (1: all). */
static int it_alloc(struct ktest *t, struct it *it, unsigned int n,
		    unsigned int irq_every)
{
	struct ordsched_delay_params p = {
		.name = "irq_test",
		.cancelled = it_cancelled,
	};
	unsigned int i;

	it->n = n;
	it->tasks = vzalloc(array_size(n, sizeof(*it->tasks)));
	if (!KT_EXPECT(t, it->tasks))
		return -ENOMEM;
	it->d = ordsched_delay_create(&p);
	if (!KT_EXPECT(t, !IS_ERR(it->d))) {
		vfree(it->tasks);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		struct it_task *itt = &it->tasks[i];

		itt->it = it;
		itt->irq = !(i % irq_every);
		if (itt->irq)
			ordsched_delay_task_init_irq(&itt->task, it_fn);
		else
			ordsched_delay_task_init(&itt->task, it_fn, NULL);
	}
	return 0;
}

static void it_free(struct it *it)
{
	ordsched_delay_destroy(it->d);
	vfree(it->tasks);
}

static bool it_queue_at(struct it *it, unsigned int i, u64 when)
{
	struct it_task *itt = &it->tasks[i];
	bool ret;

	WRITE_ONCE(itt->deadline, when);
	itt->queued_before = ktime_get_ns();
	ret = ordsched_delay_queue_at(it->d, &itt->task, when);
	itt->queued_after = ktime_get_ns();
	return ret;
}

/* No run outside its context, none early, each task @runs times. */
static void it_check(struct ktest *t, struct it *it, int runs)
{
	struct ordsched_delay_stats s;
	unsigned int i, bad = 0, irq = 0;

	for (i = 0; i < it->n; i++) {
		if (atomic_read(&it->tasks[i].ran) != runs ||
		    atomic_read(&it->tasks[i].cancelled)) {
			if (!bad++)
				ktest_diag(t, "task %u ran %d cancelled %d",
					   i, atomic_read(&it->tasks[i].ran),
					   atomic_read(&it->tasks[i].cancelled));
		}
		irq += it->tasks[i].irq;
	}
	KT_EXPECT_EQ(t, bad, 0);
	KT_EXPECT_EQ(t, atomic_read(&it->not_hardirq), 0);
	KT_EXPECT_EQ(t, atomic_read(&it->wq_in_irq), 0);
	KT_EXPECT_EQ(t, atomic_read(&it->early), 0);
	ordsched_delay_get_stats(it->d, &s);
	KT_EXPECT_EQ(t, s.ran_irq, (u64)irq * runs);
	KT_EXPECT_EQ(t, s.run_early, 0);
	KT_EXPECT_EQ(t, s.inflight, 0);
	ktest_diag(t, "%llu ran (%llu in irq), %llu expiries, %llu direct",
		   s.ran, s.ran_irq, s.expiries, s.direct);
	ktest_diag(t, "%llu interrupts left irq tasks to the next",
		   s.irq_deferred);
}

/*
 * Must @a have run before @b? If @a sorts first (deadline, then index:
 * queueing order, one thread queueing) and was queued before @b was
 * handed over, which comes after @b's deadline and after @b began to be
 * queued: @a was then pending and due, and leaves the tree first.
 */
static bool it_before(const struct it_task *a, const struct it_task *b)
{
	if (a->deadline > b->deadline ||
	    (a->deadline == b->deadline && a > b))
		return false;
	return a->queued_after <= max(b->deadline, b->queued_before);
}

/* No irq task ran after one that had to wait for it. */
static void it_check_order(struct ktest *t, struct it *it)
{
	unsigned int i, j, wrong = 0, n = 0;
	struct it_task *a, *b;

	for (i = 0; i < it->n; i++) {
		a = &it->tasks[i];
		if (!a->irq)
			continue;
		n++;
		for (j = 0; j < it->n; j++) {
			b = &it->tasks[j];
			if (!b->irq || a->order <= b->order || !it_before(a, b))
				continue;
			if (!wrong++)
				ktest_diag(t, "task %u (due %llu) ran after %u (due %llu)",
					   i, a->deadline, j, b->deadline);
		}
		if (!(i & 63))
			cond_resched();
	}
	KT_EXPECT_EQ(t, wrong, 0);
	ktest_diag(t, "%u irq tasks in order checked", n);
}

/* ---- context, never early, order --------------------------------------- */

/* Deadlines 0-255 us apart, some near, some beyond the wheel's horizon. */
static void irq_context(struct ktest *t)
{
	u64 base = ktime_get_ns() + 8 * NSEC_PER_MSEC;
	struct it it = {};
	unsigned int i;
	u32 rnd = 0x1234567;

	if (it_alloc(t, &it, 400, 1))
		return;
	for (i = 0; i < it.n; i++) {
		u64 when = base + (kt_rand(&rnd) & 255) * NSEC_PER_USEC;

		/* One in four far, through a wheel and the dispatch work. */
		if (!(i & 3))
			when += 40 * NSEC_PER_MSEC;
		KT_EXPECT(t, it_queue_at(&it, i, when));
	}
	KT_EXPECT_EQ(t, ordsched_delay_flush(it.d), 0);
	it_check(t, &it, 1);
	it_check_order(t, &it);
	it_free(&it);
}

/* Equal deadlines, near and far: queueing order. */
static void irq_ties(struct ktest *t)
{
	struct it it = {};
	u64 near = ktime_get_ns() + 3 * NSEC_PER_MSEC;
	u64 far = near + 50 * NSEC_PER_MSEC;
	unsigned int i;

	if (it_alloc(t, &it, 300, 1))
		return;
	for (i = 0; i < it.n; i++)
		KT_EXPECT(t, it_queue_at(&it, i, i % 3 ? near : far));
	KT_EXPECT_EQ(t, ordsched_delay_flush(it.d), 0);
	it_check(t, &it, 1);
	it_check_order(t, &it);
	it_free(&it);
}

/*
 * More due at once than one interrupt runs: all run, in order, over
 * several interrupts. The crowd forms only if every task is queued before
 * the deadline: where queueing a thousand takes longer (KASAN under
 * emulation took 18 ms, a loaded host more), try again with four times
 * the time, up to a second.
 */
static void irq_crowd(struct ktest *t)
{
	u64 margin = 5 * NSEC_PER_MSEC, when;
	struct ordsched_delay_stats s;
	struct it it = {};
	unsigned int i;
	bool crowd;

	for (;;) {
		if (it_alloc(t, &it, 1000, 1))
			return;
		when = ktime_get_ns() + margin;
		for (i = 0; i < it.n; i++)
			KT_EXPECT(t, it_queue_at(&it, i, when));
		crowd = ktime_get_ns() < when;
		KT_EXPECT_EQ(t, ordsched_delay_flush(it.d), 0);
		it_check(t, &it, 1);
		it_check_order(t, &it);
		if (crowd || margin >= NSEC_PER_SEC)
			break;
		ktest_diag(t, "queueing took over %llu ms: again, with more",
			   margin / NSEC_PER_MSEC);
		it_free(&it);
		margin *= 4;
	}
	ordsched_delay_get_stats(it.d, &s);
	KT_EXPECT(t, crowd);
	/* One interrupt may not run them all. */
	KT_EXPECT(t, s.irq_deferred >= it.n / 64);
	it_free(&it);
}

static void irq_mixed(struct ktest *t)
{
	u64 base = ktime_get_ns() + 8 * NSEC_PER_MSEC;
	struct it it = {};
	u32 rnd = 0x2545f491;
	unsigned int i;

	/* Every other task on the workqueue. */
	if (it_alloc(t, &it, 600, 2))
		return;
	for (i = 0; i < it.n; i++) {
		u64 when = base + (kt_rand(&rnd) & 7) * 100 * NSEC_PER_USEC;

		if (!(i % 5))
			when += 30 * NSEC_PER_MSEC;
		KT_EXPECT(t, it_queue_at(&it, i, when));
	}
	KT_EXPECT_EQ(t, ordsched_delay_flush(it.d), 0);
	it_check(t, &it, 1);
	it_check_order(t, &it);
	it_free(&it);
}

/* Polls not done yet, and no requeue failed, for 20 s at most. */
static bool it_polling(struct it *it, u64 until)
{
	return atomic_read(&it->tasks[0].ran) < 100 &&
	       !atomic_read(&it->requeue_err) && ktime_get_ns() < until;
}

/*
 * The noise: the second thread queues the workqueue tasks, all but the
 * first, due at once, round and round, while the first polls (queued by
 * the first thread once the noise has begun). Each such queueing arms the
 * timer for now, and crowds of them keep the dispatch work busy handing
 * over: both once ran the poll again sooner than its round's gap, which
 * only the arming heeded.
 */
static int it_noise_thread(void *data, unsigned int idx)
{
	struct it *it = data;
	u64 until = ktime_get_ns() + 20 * NSEC_PER_SEC;
	unsigned int i = 1;

	if (!idx) {
		kt_spin_ms(2);
		return !it_queue_at(it, 0, ktime_get_ns());
	}
	/*
	 * Not it_queue_at(): a task still queued keeps its deadline, which
	 * a later one written for it would make look early.
	 */
	while (it_polling(it, until)) {
		ordsched_delay_queue_at(it->d, &it->tasks[i].task,
					ktime_get_ns());
		i = i % (it->n - 1) + 1;
		cond_resched();
	}
	return 0;
}

/*
 * A function that queues its task again, 50 and 200 us later: a hundred
 * runs, each in hard irq and never early. @noise: with another CPU
 * queueing tasks due at once meanwhile; @busy_ns: how long the function
 * is busy before it queues again.
 */
static void irq_self_requeue_one(struct ktest *t, u64 delay_ns, bool noise,
				 u64 busy_ns)
{
	struct it it = {};
	unsigned int i, runs = 0;
	u64 until;

	if (it_alloc(t, &it, noise ? 65 : 1, 65))
		return;
	atomic_set(&it.requeue, 99);
	it.requeue_ns = delay_ns;
	it.busy_ns = busy_ns;
	it.min_gap_ns = U64_MAX;
	if (noise)
		KT_EXPECT_EQ(t, kt_run_threads(2, it_noise_thread, &it), 0);
	else
		KT_EXPECT(t, it_queue_at(&it, 0, ktime_get_ns() + delay_ns));
	KT_EXPECT_EQ(t, ordsched_delay_flush(it.d), 0);
	/* Queued again by the function: after the flush's time, maybe. */
	until = ktime_get_ns() + 20 * NSEC_PER_SEC;
	while (it_polling(&it, until))
		usleep_range(500, 1000);
	KT_EXPECT_EQ(t, ordsched_delay_flush(it.d), 0);
	KT_EXPECT_EQ(t, atomic_read(&it.requeue_err), 0);
	/*
	 * h: "an interrupt task it queues on the same scheduler due at once
	 * runs no sooner than the interrupt has lasted so far, and 5
	 * microseconds at least, after the queueing". It once armed the timer for now, from
	 * the round that ran the function, and hrtimer_interrupt() ran the
	 * callback again at once; then only the arming kept the gap, and a
	 * sooner firing for another task broke it.
	 */
	KT_EXPECT(t, it.min_gap_ns >= max3(delay_ns, busy_ns,
					   (u64)5 * NSEC_PER_USEC));
	for (i = 1; i < it.n; i++)
		runs += atomic_read(&it.tasks[i].ran);
	ktest_diag(t, "delay %llu ns%s, busy %llu ns: runs %llu ns after queueing",
		   delay_ns, noise ? ", noise" : "", busy_ns, it.min_gap_ns);
	ktest_diag(t, "at least; %u runs of other tasks", runs);
	if (!noise) {
		it_check(t, &it, 100);
	} else {
		KT_EXPECT_EQ(t, atomic_read(&it.tasks[0].ran), 100);
		KT_EXPECT_EQ(t, atomic_read(&it.not_hardirq), 0);
		KT_EXPECT_EQ(t, atomic_read(&it.wq_in_irq), 0);
		KT_EXPECT_EQ(t, atomic_read(&it.early), 0);
	}
	it_free(&it);
}

static void irq_self_requeue(struct ktest *t)
{
	irq_self_requeue_one(t, 50 * NSEC_PER_USEC, false, 0);
	irq_self_requeue_one(t, 200 * NSEC_PER_USEC, false, 0);
	/*
	 * A poll: again at once, each time; then a slow one, 50 us in hard
	 * interrupt before it queues again, with tasks due around it.
	 */
	irq_self_requeue_one(t, 0, false, 0);
	irq_self_requeue_one(t, 0, true, 50 * NSEC_PER_USEC);
}

/* ---- races ------------------------------------------------------------- */

#define RACE_PER_THREAD	64
#define RACE_ROUNDS	3000

/* What one racing thread did to its own tasks; ran is counted by it_fn. */
struct it_race {
	struct it *it;
	unsigned int threads;
	/* Per task: queueings begun, and cancels that took one back. */
	u32 *queued;
	u32 *cancels;
};

/*
 * Queue, modify, cancel this thread's tasks at random, deadlines 0-63 us
 * away: each op races the hrtimer callback running or handing them over.
 */
static int it_race_thread(void *data, unsigned int idx)
{
	struct it_race *r = data;
	struct it *it = r->it;
	u32 rnd = 0x9e3779b9 ^ (idx * 7919 + 1);
	unsigned int k, i;

	for (k = 0; k < RACE_ROUNDS; k++) {
		u32 x = kt_rand(&rnd);
		u64 when;

		i = idx * RACE_PER_THREAD + x % RACE_PER_THREAD;
		when = ktime_get_ns() + ((x >> 8) & 63) * NSEC_PER_USEC;
		switch ((x >> 16) & 3) {
		case 0:
		case 1:
			if (ordsched_delay_queue_at(it->d, &it->tasks[i].task,
						    when))
				r->queued[i]++;
			break;
		case 2:
			/* False: it was not queued and now is. */
			if (!ordsched_delay_mod_at(it->d, &it->tasks[i].task,
						   when))
				r->queued[i]++;
			break;
		default:
			if (ordsched_delay_cancel(it->d, &it->tasks[i].task))
				r->cancels[i]++;
			break;
		}
		if (!(x & 31))
			it_busy((x >> 27) * NSEC_PER_USEC);
		if (!(k & 255))
			cond_resched();
	}
	return 0;
}

/*
 * Every queueing ran once or was cancelled once. A function may run while
 * its thread queues the task again, so never early is the scheduler's own
 * count, taken under its lock as each run starts.
 */
static void irq_race(struct ktest *t)
{
	unsigned int i, threads = 2 * num_online_cpus(), wrong = 0;
	u64 queued = 0, cancels = 0, ran = 0;
	struct it_race r = { .threads = threads };
	struct ordsched_delay_stats s;
	struct it it = {};

	if (it_alloc(t, &it, threads * RACE_PER_THREAD, 1))
		return;
	r.it = &it;
	r.queued = kcalloc(it.n, sizeof(u32), GFP_KERNEL);
	r.cancels = kcalloc(it.n, sizeof(u32), GFP_KERNEL);
	if (!KT_EXPECT(t, r.queued && r.cancels))
		goto out;
	KT_EXPECT_EQ(t, kt_run_threads(threads, it_race_thread, &r), 0);
	KT_EXPECT_EQ(t, ordsched_delay_flush(it.d), 0);
	for (i = 0; i < it.n; i++) {
		u32 got = atomic_read(&it.tasks[i].ran);

		queued += r.queued[i];
		cancels += r.cancels[i];
		ran += got;
		if (got + r.cancels[i] != r.queued[i] && !wrong++)
			ktest_diag(t, "task %u: %u queued, %u cancelled, %u ran",
				   i, r.queued[i], r.cancels[i], got);
	}
	KT_EXPECT_EQ(t, wrong, 0);
	KT_EXPECT_EQ(t, atomic_read(&it.not_hardirq), 0);
	ordsched_delay_get_stats(it.d, &s);
	KT_EXPECT_EQ(t, s.run_early, 0);
	KT_EXPECT_EQ(t, s.inflight, 0);
	KT_EXPECT_EQ(t, s.ran_irq, ran);
	KT_EXPECT_EQ(t, s.cancels, cancels);
	ktest_diag(t, "%llu queueings: %llu ran, %llu cancelled (%llu after hand-over), %llu moved",
		   queued, ran, cancels, s.cancels_handed, s.modified);
out:
	kfree(r.queued);
	kfree(r.cancels);
	it_free(&it);
}

/* ---- cancel_sync of a running function --------------------------------- */

struct it_spin {
	struct ordsched_delay_task task;
	struct ordsched_delay *d;
	atomic_t running;
	atomic_t returned;
	/* Rounds in which the cancel_sync began while the function ran. */
	unsigned int caught;
	unsigned int wrong;
	/* The rounds run: until IT_CATCHES were caught, at most IT_ROUNDS. */
	unsigned int rounds;
	/* Set by thread 0 before the last round's release. */
	bool done;
};

/*
 * A round catches the function running only if thread 0 runs during its
 * 200 us: a loaded host that deschedules thread 0's vCPU makes it miss.
 * So rounds go on until some were caught rather than for a fixed number
 * that a slow boot may catch none in.
 */
#define IT_CATCHES	5
#define IT_ROUNDS	1000

/* Spins 200 us in hard interrupt, flagged meanwhile. */
static void it_spin_fn(struct ordsched_delay_task *task)
{
	struct it_spin *sp = container_of(task, struct it_spin, task);

	atomic_set(&sp->running, 1);
	it_busy(200 * NSEC_PER_USEC);
	atomic_set(&sp->running, 0);
	atomic_inc_return_release(&sp->returned);
}

/*
 * Thread 1 queues the task, due at once, so that the timer fires on its
 * CPU; thread 0, on the other CPU, waits to see the function running and
 * calls cancel_sync, which must return after the function did.
 */
static int it_spin_thread(void *data, unsigned int idx)
{
	struct it_spin *sp = data;
	unsigned int round;
	int seen;

	for (round = 0; round < IT_ROUNDS; round++) {
		if (idx == 1) {
			while (atomic_read_acquire(&sp->returned) != 2 * round)
				cpu_relax();
			if (READ_ONCE(sp->done))
				break;
			if (!ordsched_delay_queue(sp->d, &sp->task, 0)) {
				/* Counted wrong; stand in for the function. */
				sp->wrong++;
				atomic_inc_return_release(&sp->returned);
			}
			/* Stay busy: an idle CPU may hand the timer away. */
			while (atomic_read_acquire(&sp->returned) == 2 * round)
				cpu_relax();
			continue;
		}
		while (!atomic_read(&sp->running) &&
		       atomic_read_acquire(&sp->returned) == 2 * round)
			cpu_relax();
		seen = atomic_read(&sp->running);
		ordsched_delay_cancel_sync(sp->d, &sp->task);
		if (seen) {
			sp->caught++;
			if (atomic_read_acquire(&sp->returned) != 2 * round + 1)
				sp->wrong++;
		}
		sp->rounds = round + 1;
		if (sp->caught >= IT_CATCHES)
			WRITE_ONCE(sp->done, true);
		/* Let thread 1 go on: returned counts two per round. */
		while (atomic_read_acquire(&sp->returned) == 2 * round)
			cpu_relax();
		atomic_inc_return_release(&sp->returned);
		if (sp->done)
			break;
	}
	return 0;
}

static void irq_cancel_sync_running(struct ktest *t)
{
	struct it_spin *sp;

	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs two CPUs");
		return;
	}
	sp = kzalloc(sizeof(*sp), GFP_KERNEL);
	if (!KT_EXPECT(t, sp))
		return;
	sp->d = ordsched_delay_create(NULL);
	if (!KT_EXPECT(t, !IS_ERR(sp->d)))
		goto out;
	ordsched_delay_task_init_irq(&sp->task, it_spin_fn);
	KT_EXPECT_EQ(t, kt_run_threads(2, it_spin_thread, sp), 0);
	KT_EXPECT_EQ(t, sp->wrong, 0);
	/* Not vacuous: some cancel_syncs found the function running. */
	KT_EXPECT(t, sp->caught >= IT_CATCHES);
	ktest_diag(t, "%u of %u cancel_syncs began while the function ran",
		   sp->caught, sp->rounds);
	ordsched_delay_destroy(sp->d);
out:
	kfree(sp);
}

/* ---- a function that frees its task ------------------------------------ */

/*
 * A task its own function frees. Not in hard interrupt on PREEMPT_RT,
 * where the slab's locks sleep and memory may be neither allocated nor
 * freed there (delay.h): the function lists the task for the test to free
 * after destroy, and only the other kernels' KASAN sees a touch after the
 * function.
 */
struct irq_owned {
	struct ordsched_delay_task task;
	atomic_t *freed;
	struct llist_head *dead;
	struct llist_node node;
};

static void irq_owned_fn(struct ordsched_delay_task *task)
{
	struct irq_owned *o = container_of(task, struct irq_owned, task);

	atomic_inc(o->freed);
	if (IS_ENABLED(CONFIG_PREEMPT_RT))
		llist_add(&o->node, o->dead);
	else
		kfree(o);
}

/* @cancelled: in process context, at destroy. */
static void irq_owned_cancelled(struct ordsched_delay_task *task)
{
	struct irq_owned *o = container_of(task, struct irq_owned, task);

	atomic_inc(o->freed);
	kfree(o);
}

/*
 * Tasks freed by their own function (in hard irq) and by @cancelled at
 * destroy: KASAN sees anything that touches them after.
 */
static void irq_destroy_pending(struct ktest *t)
{
	struct ordsched_delay_params p = {
		.name = "irq_owned",
		.cancelled = irq_owned_cancelled,
	};
	struct ordsched_delay_stats s;
	atomic_t freed = ATOMIC_INIT(0);
	struct irq_owned *o, *next;
	LLIST_HEAD(dead);
	struct ordsched_delay *d;
	unsigned int i, n = 0;

	d = ordsched_delay_create(&p);
	if (!KT_EXPECT(t, !IS_ERR(d)))
		return;
	for (i = 0; i < 2000; i++) {
		o = kmalloc(sizeof(*o), GFP_KERNEL);
		if (!KT_EXPECT(t, o))
			break;
		o->freed = &freed;
		o->dead = &dead;
		ordsched_delay_task_init_irq(&o->task, irq_owned_fn);
		/* One in eight due now, the rest 1-3 s away. */
		if (!ordsched_delay_queue(d, &o->task,
					  i % 8 ? (i % 3 + 1) * NSEC_PER_SEC : 0))
			kfree(o);
		else
			n++;
	}
	msleep(20);
	ordsched_delay_get_stats(d, &s);
	KT_EXPECT(t, s.ran_irq > 0);
	ordsched_delay_destroy(d);
	KT_EXPECT_EQ(t, atomic_read(&freed), n);
	llist_for_each_entry_safe(o, next, llist_del_all(&dead), node)
		kfree(o);
}

/* ---- flush and stop ---------------------------------------------------- */

static void irq_flush(struct ktest *t)
{
	struct it it = {};
	unsigned int i;

	if (it_alloc(t, &it, 50, 1))
		return;
	for (i = 0; i < it.n; i++)
		KT_EXPECT(t, it_queue_at(&it, i, ktime_get_ns() +
					 (i % 10 + 1) * NSEC_PER_MSEC));
	KT_EXPECT_EQ(t, ordsched_delay_flush(it.d), 0);
	/* Every one ran, none is left to run. */
	it_check(t, &it, 1);
	it_free(&it);
}

/* Near, far and due tasks; stop runs or cancels what is pending. */
static void irq_stop_one(struct ktest *t, enum ordsched_delay_stop_mode mode)
{
	unsigned int i, ran = 0, cancelled = 0, bad = 0;
	struct ordsched_delay_stats s;
	struct it it = {};

	if (it_alloc(t, &it, 3000, 1))
		return;
	for (i = 0; i < it.n; i++) {
		u64 when = ktime_get_ns();

		if (i % 16)
			when += i % 2 ? 5 * NSEC_PER_MSEC : 3600 * NSEC_PER_SEC;
		KT_EXPECT(t, it_queue_at(&it, i, when));
	}
	ordsched_delay_stop(it.d, mode);
	for (i = 0; i < it.n; i++) {
		int r = atomic_read(&it.tasks[i].ran);
		int c = atomic_read(&it.tasks[i].cancelled);

		ran += r;
		cancelled += c;
		if (r + c != 1 && !bad++)
			ktest_diag(t, "task %u ran %d cancelled %d", i, r, c);
	}
	KT_EXPECT_EQ(t, bad, 0);
	KT_EXPECT_EQ(t, atomic_read(&it.not_hardirq), 0);
	ordsched_delay_get_stats(it.d, &s);
	KT_EXPECT_EQ(t, s.inflight, 0);
	KT_EXPECT_EQ(t, s.pending, 0);
	KT_EXPECT_EQ(t, s.ran_irq, ran);
	if (mode == ORDSCHED_DELAY_RUN_PENDING) {
		KT_EXPECT_EQ(t, ran, it.n);
		KT_EXPECT(t, s.run_early > 0);
	} else {
		/* Those handed over ran; the far ones were cancelled. */
		KT_EXPECT(t, cancelled >= it.n / 4);
		KT_EXPECT_EQ(t, atomic_read(&it.early), 0);
	}
	KT_EXPECT(t, !it_queue_at(&it, 0, 0));
	ktest_diag(t, "%u ran, %u cancelled, %llu run early", ran, cancelled,
		   s.run_early);
	it_free(&it);
}

static void irq_stop_run(struct ktest *t)
{
	irq_stop_one(t, ORDSCHED_DELAY_RUN_PENDING);
}

static void irq_stop_cancel(struct ktest *t)
{
	irq_stop_one(t, ORDSCHED_DELAY_CANCEL_PENDING);
}

/* ---- slack ------------------------------------------------------------- */

/*
 * Eight tasks 100 us apart, slack 2 ms each: one wake-up may run them
 * all, none before its deadline, in deadline order. That needs the eight
 * queued before the first deadline: a guest held up while it queues (a
 * debug kernel under TCG on a busy host took over 2 ms) sees each task due
 * on its own. Then again, with the deadlines 4x further out, as
 * irq_crowd() does.
 */
static void irq_slack(struct ktest *t)
{
	u64 margin = 2 * NSEC_PER_MSEC, base, start;
	struct ordsched_delay_stats s;
	struct it it = {};
	unsigned int i;
	bool in_time;

	for (;;) {
		if (it_alloc(t, &it, 8, 1))
			return;
		start = ktime_get_ns();
		base = start + margin;
		for (i = 0; i < it.n; i++) {
			u64 when = base + (it.n - 1 - i) * 100 * NSEC_PER_USEC;

			WRITE_ONCE(it.tasks[i].deadline, when);
			it.tasks[i].queued_before = ktime_get_ns();
			KT_EXPECT(t, ordsched_delay_queue_range(it.d,
								&it.tasks[i].task,
								when,
								2 * NSEC_PER_MSEC,
								ORDSCHED_DELAY_QUEUE_NEW));
			it.tasks[i].queued_after = ktime_get_ns();
		}
		in_time = it.tasks[it.n - 1].queued_after < base;
		KT_EXPECT_EQ(t, ordsched_delay_flush(it.d), 0);
		it_check(t, &it, 1);
		it_check_order(t, &it);
		if (in_time || margin >= NSEC_PER_SEC / 2)
			break;
		ktest_diag(t, "queueing took %llu us, past the first deadline: again, with more",
			   (it.tasks[it.n - 1].queued_after - start) / NSEC_PER_USEC);
		it_free(&it);
		margin *= 4;
	}
	ordsched_delay_get_stats(it.d, &s);
	KT_EXPECT(t, in_time);
	/* All slack ranges overlap: fewer wake-ups than tasks. */
	KT_EXPECT(t, s.batches < it.n);
	it_free(&it);
}

static const struct ktest_case delay_irq_cases[] = {
	KT_CASE(irq_context),
	KT_CASE(irq_ties),
	KT_CASE(irq_crowd),
	KT_CASE(irq_mixed),
	KT_CASE(irq_self_requeue),
	KT_CASE(irq_race),
	KT_CASE(irq_cancel_sync_running),
	KT_CASE(irq_destroy_pending),
	KT_CASE(irq_flush),
	KT_CASE(irq_stop_run),
	KT_CASE(irq_stop_cancel),
	KT_CASE(irq_slack),
	KT_END
};

const struct ktest_suite ordsched_delay_irq_suite =
	KT_SUITE("delay_irq", delay_irq_cases);
