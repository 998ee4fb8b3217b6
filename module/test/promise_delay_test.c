// SPDX-License-Identifier: GPL-2.0
/*
 * promise_delay: the delayed scheduler's contract, promise by promise,
 * written by a client that read <ordsched.h> and <ordsched/delay.h> only
 * (and <ordsched/stream.h> for the calls that make a stream). Each case
 * quotes the sentence it checks.
 *
 * The tasks' functions never fail a case themselves: they count what they
 * see (a run before its deadline, in the wrong context, two interrupt
 * tasks at once, ...) in the case's context, which the case checks after
 * a bounded wait. Nothing depends on timing to pass: deadlines that must
 * not be reached are a minute away, and an order check is skipped when
 * the guest was too slow to queue everything before the first deadline.
 */
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <ordsched.h>

#include "compat.h"
#include "ktest.h"
#include "suites.h"
#include "util.h"

#define PD_WAIT		(5 * HZ)		/* bound of every wait */
#define PD_FAR		(60 * NSEC_PER_SEC)	/* never reached by a case */
#define PD_MS		NSEC_PER_MSEC
#define PD_MAX		256			/* tasks per case */
#define PD_ITEM		1000			/* ids of plain stream items */

enum pd_target { PD_WQ, PD_STREAM, PD_IRQ, PD_NR_TARGETS };

static const char *const pd_target_name[PD_NR_TARGETS] = {
	"workqueue", "stream", "interrupt"
};

struct pd_ctx;
struct pd_task;

typedef void (*pd_hook_fn)(struct pd_task *p);

struct pd_task {
	struct ordsched_delay_task task;
	struct pd_ctx *c;
	unsigned int id;
	enum pd_target target;
	u64 deadline;		/* the deadline asked for: "never before" */
	u64 seq;		/* the queueing (or move) number: equal deadlines */
	unsigned long magic;	/* stored before queueing, read by the run */
	bool owned;		/* kfree()d by its run or its @cancelled */
	pd_hook_fn hook;	/* run by the task's function, last */
};

struct pd_item {
	struct ordsched_stream_item item;
	struct pd_ctx *c;
	unsigned int id;
};

struct pd_ctx {
	struct ordsched_delay *d;
	struct workqueue_struct *wq;		/* ordered */
	struct ordsched_stream_set *set;
	struct ordsched_stream stream;
	bool have_stream;
	struct pd_task *tasks;			/* PD_MAX of them */
	atomic64_t seq;
	bool allow_early;			/* a stop in RUN mode is coming */
	bool stress;

	/* What the runs and the @cancelled callbacks saw. */
	atomic_t runs[PD_MAX];
	atomic_t cancels[PD_MAX];		/* reports to @cancelled */
	atomic_t outstanding[PD_MAX];		/* stress: queueings not ended */
	atomic_t negative;			/* stress: ended twice */
	atomic_t ran;				/* runs that finished */
	atomic_t cancelled;
	atomic_t early;
	atomic_t run_ctx;			/* runs in the wrong context */
	atomic_t cancel_ctx;			/* @cancelled outside process ctx */
	atomic_t overlap;			/* interrupt tasks at once */
	atomic_t irq_running;
	atomic_t bad_store;
	atomic_t ran_blocked;			/* ran while its target was held */
	atomic_t next;
	unsigned int order[PD_MAX];		/* ids in the order they ran */
	atomic_t expect;			/* runs left to wait for */
	struct completion done;

	/* The blocker: holds the ordered workqueue or the stream. */
	bool blocking;
	enum pd_target blocked;
	struct work_struct block_work;
	struct pd_item block_item;
	struct completion block_started;
	struct completion block_release;

	/* A running task held in its function: see pd_hold(). */
	struct completion held;
	struct completion unhold;
};

static unsigned long pd_magic(unsigned int id)
{
	return 0x5eed0000UL + id;
}

/* ---- Runs and cancellations ------------------------------------------ */

static void pd_record(struct pd_ctx *c, unsigned int id)
{
	unsigned int i = atomic_inc_return(&c->next) - 1;

	if (i < PD_MAX)
		c->order[i] = id;
}

/* One run or report of a stress queueing ended; it must have begun. */
static void pd_end(struct pd_ctx *c, unsigned int id)
{
	if (c->stress && atomic_dec_return(&c->outstanding[id]) < 0)
		atomic_inc(&c->negative);
}

static bool pd_run_context_ok(enum pd_target target)
{
	if (target == PD_IRQ)
		return in_hardirq() && irqs_disabled();
	return in_task() && !irqs_disabled() &&
	       (current->flags & PF_WQ_WORKER);
}

static void pd_fn(struct ordsched_delay_task *task)
{
	struct pd_task *p = container_of(task, struct pd_task, task);
	struct pd_ctx *c = p->c;
	unsigned int id = p->id;
	bool irq = p->target == PD_IRQ;

	if (irq && atomic_inc_return(&c->irq_running) != 1)
		atomic_inc(&c->overlap);
	if (ktime_get_ns() < READ_ONCE(p->deadline) && !READ_ONCE(c->allow_early))
		atomic_inc(&c->early);
	if (!pd_run_context_ok(p->target))
		atomic_inc(&c->run_ctx);
	if (READ_ONCE(p->magic) != pd_magic(id))
		atomic_inc(&c->bad_store);
	if (READ_ONCE(c->blocking) && c->blocked == p->target)
		atomic_inc(&c->ran_blocked);
	pd_record(c, id);
	pd_end(c, id);
	atomic_inc(&c->runs[id]);
	if (p->hook)
		p->hook(p);	/* may free or queue @p: not touched after */
	if (irq)
		atomic_dec(&c->irq_running);
	atomic_inc(&c->ran);
	if (atomic_dec_and_test(&c->expect))
		complete(&c->done);
}

static void pd_cancelled(struct ordsched_delay_task *task)
{
	struct pd_task *p = container_of(task, struct pd_task, task);
	struct pd_ctx *c = p->c;

	if (!in_task() || irqs_disabled() ||
	    (IS_ENABLED(CONFIG_PREEMPT_COUNT) && !preemptible()))
		atomic_inc(&c->cancel_ctx);
	pd_end(c, p->id);
	atomic_inc(&c->cancels[p->id]);
	atomic_inc(&c->cancelled);
	if (p->owned)
		kfree(p);
}

static void pd_free_hook(struct pd_task *p)
{
	kfree(p);
}

/* ---- Setup ------------------------------------------------------------ */

static void pd_block_wait(struct pd_ctx *c)
{
	complete(&c->block_started);
	wait_for_completion_timeout(&c->block_release, 2 * PD_WAIT);
}

static void pd_block_work(struct work_struct *work)
{
	pd_block_wait(container_of(work, struct pd_ctx, block_work));
}

static void pd_item_fn(struct ordsched_stream_item *item)
{
	struct pd_item *it = container_of(item, struct pd_item, item);

	if (it == &it->c->block_item)
		pd_block_wait(it->c);
	pd_record(it->c, it->id);
}

static void pd_item_init(struct pd_ctx *c, struct pd_item *it, unsigned int id)
{
	it->c = c;
	it->id = id;
	ordsched_stream_item_init(&it->item, pd_item_fn);
}

static void pd_destroy(struct pd_ctx *c)
{
	if (c->d)
		ordsched_delay_destroy(c->d);
	c->d = NULL;
}

static void pd_teardown(struct pd_ctx *c)
{
	if (!c)
		return;
	pd_destroy(c);
	complete_all(&c->block_release);
	complete_all(&c->unhold);
	if (c->wq)
		destroy_workqueue(c->wq);
	if (c->have_stream)
		ordsched_stream_destroy(&c->stream);
	if (!IS_ERR_OR_NULL(c->set))
		ordsched_stream_set_destroy(c->set);
	kfree(c->tasks);
	kfree(c);
}

/* A scheduler with the given slack and the counting @cancelled callback. */
static struct pd_ctx *pd_setup(struct ktest *t, u64 slack_ns)
{
	struct ordsched_stream_set_params sp = { .name = "promise_delay" };
	struct ordsched_delay_params dp = {
		.name = "promise_delay",
		.slack_ns = slack_ns,
		.cancelled = pd_cancelled,
	};
	struct pd_ctx *c = kzalloc(sizeof(*c), GFP_KERNEL);

	if (!KT_EXPECT(t, c))
		return NULL;
	init_completion(&c->done);
	init_completion(&c->block_started);
	init_completion(&c->block_release);
	init_completion(&c->held);
	init_completion(&c->unhold);
	INIT_WORK(&c->block_work, pd_block_work);
	pd_item_init(c, &c->block_item, PD_ITEM);
	c->tasks = kcalloc(PD_MAX, sizeof(*c->tasks), GFP_KERNEL);
	c->wq = alloc_ordered_workqueue("promise_delay", 0);
	c->set = ordsched_stream_set_create(&sp);
	if (!KT_EXPECT(t, c->tasks && c->wq && !IS_ERR(c->set)))
		goto fail;
	ordsched_stream_init(&c->stream, c->set);
	c->have_stream = true;
	c->d = ordsched_delay_create(&dp);
	if (!KT_EXPECT(t, !IS_ERR(c->d))) {
		c->d = NULL;
		goto fail;
	}
	return c;
fail:
	pd_teardown(c);
	return NULL;
}

static void pd_init(struct pd_ctx *c, struct pd_task *p, unsigned int id,
		    enum pd_target target)
{
	p->c = c;
	p->id = id;
	p->target = target;
	p->deadline = 0;
	switch (target) {
	case PD_WQ:
		ordsched_delay_task_init(&p->task, pd_fn, c->wq);
		break;
	case PD_STREAM:
		ordsched_delay_task_init_stream(&p->task, pd_fn, &c->stream);
		break;
	default:
		ordsched_delay_task_init_irq(&p->task, pd_fn);
	}
}

static struct pd_task *pd_task(struct pd_ctx *c, unsigned int id,
			       enum pd_target target)
{
	pd_init(c, &c->tasks[id], id, target);
	return &c->tasks[id];
}

/* A task in its own allocation, freed by its run or by @cancelled. */
static struct pd_task *pd_owned(struct pd_ctx *c, unsigned int id,
				enum pd_target target)
{
	struct pd_task *p = kzalloc(sizeof(*p), GFP_ATOMIC);

	if (!p)
		return NULL;
	pd_init(c, p, id, target);
	p->owned = true;
	p->hook = pd_free_hook;
	return p;
}

/* Record what the run checks, before the queueing that makes it. */
static void pd_note(struct pd_ctx *c, struct pd_task *p, u64 when)
{
	WRITE_ONCE(p->deadline, min_t(u64, when, KTIME_MAX));
	p->seq = atomic64_inc_return(&c->seq);
	WRITE_ONCE(p->magic, pd_magic(p->id));
}

static bool pd_at(struct pd_ctx *c, struct pd_task *p, u64 when)
{
	pd_note(c, p, when);
	return ordsched_delay_queue_at(c->d, &p->task, when);
}

/*
 * ordsched_delay_queue() is queue_at(from_now(@delay_ns)), inline in the
 * header: read the clock once, so that the deadline noted is the task's.
 * Read twice, a stall in between (a debug kernel's, or the host's) made
 * the task's real deadline later than the one noted, and the order
 * checked against the notes failed where the scheduler was right.
 */
static bool pd_after(struct pd_ctx *c, struct pd_task *p, u64 delay_ns)
{
	u64 when = ordsched_delay_from_now(delay_ns);

	pd_note(c, p, when);
	return ordsched_delay_queue_at(c->d, &p->task, when);
}

static bool pd_mod(struct pd_ctx *c, struct pd_task *p, u64 when)
{
	pd_note(c, p, when);
	return ordsched_delay_mod_at(c->d, &p->task, when);
}

static bool pd_range(struct pd_ctx *c, struct pd_task *p, u64 when, u64 slack,
		     enum ordsched_delay_queue_mode mode)
{
	pd_note(c, p, when);
	return ordsched_delay_queue_range(c->d, &p->task, when, slack, mode);
}

static u64 pd_now(void)
{
	return ktime_get_ns();
}

/* Wait for @n more runs, counted from now. */
static void pd_expect(struct pd_ctx *c, int n)
{
	reinit_completion(&c->done);
	atomic_set(&c->expect, n);
}

static bool pd_wait(struct ktest *t, struct pd_ctx *c)
{
	return KT_EXPECT(t, wait_for_completion_timeout(&c->done, PD_WAIT));
}

/* Poll the stats into @st until @cond holds, for PD_WAIT at most. */
#define pd_poll(c, st, cond) ({						\
	unsigned long __end = jiffies + PD_WAIT;			\
	bool __ok;							\
	for (;;) {							\
		ordsched_delay_get_stats((c)->d, (st));			\
		__ok = (cond);						\
		if (__ok || time_after(jiffies, __end))			\
			break;						\
		usleep_range(2000, 3000);				\
	}								\
	__ok;								\
})

static u64 pd_dispatched(struct pd_ctx *c)
{
	struct ordsched_delay_stats st;

	ordsched_delay_get_stats(c->d, &st);
	return st.dispatched;
}

/* Wait until a task due at once has left the waiting set for its target. */
static bool pd_handed(struct ktest *t, struct pd_ctx *c, u64 dispatched_before)
{
	struct ordsched_delay_stats st;

	return KT_EXPECT(t, pd_poll(c, &st, st.dispatched > dispatched_before &&
					    st.pending == 0));
}

static void pd_block(struct ktest *t, struct pd_ctx *c, enum pd_target target)
{
	c->blocked = target;
	WRITE_ONCE(c->blocking, true);
	reinit_completion(&c->block_started);
	reinit_completion(&c->block_release);
	if (target == PD_WQ)
		queue_work(c->wq, &c->block_work);
	else
		ordsched_stream_queue(&c->stream, &c->block_item.item);
	KT_EXPECT(t, wait_for_completion_timeout(&c->block_started, PD_WAIT));
}

static void pd_unblock(struct pd_ctx *c)
{
	WRITE_ONCE(c->blocking, false);
	complete(&c->block_release);
}

/* Hook: hold the first run of a task in its function until c->unhold. */
static void pd_hold(struct pd_task *p)
{
	if (atomic_read(&p->c->runs[p->id]) != 1)
		return;
	complete(&p->c->held);
	wait_for_completion_timeout(&p->c->unhold, PD_WAIT);
}

/* What every case expects of every run and report it caused. */
static void pd_check(struct ktest *t, struct pd_ctx *c)
{
	KT_EXPECT_EQ(t, atomic_read(&c->early), 0);
	KT_EXPECT_EQ(t, atomic_read(&c->run_ctx), 0);
	KT_EXPECT_EQ(t, atomic_read(&c->cancel_ctx), 0);
	KT_EXPECT_EQ(t, atomic_read(&c->overlap), 0);
	KT_EXPECT_EQ(t, atomic_read(&c->bad_store), 0);
	KT_EXPECT_EQ(t, atomic_read(&c->ran_blocked), 0);
}

/* Each of ids [0, n) ran @runs times and was reported cancelled @cancels. */
static void pd_check_ends(struct ktest *t, struct pd_ctx *c, unsigned int n,
			  int runs, int cancels)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (!KT_EXPECT_EQ(t, atomic_read(&c->runs[i]), runs) ||
		    !KT_EXPECT_EQ(t, atomic_read(&c->cancels[i]), cancels)) {
			ktest_diag(t, "task %u (%s)", i,
				   pd_target_name[c->tasks[i].target]);
			return;
		}
	}
}

/* Queue on each target in turn: the loop of the cases that take all. */

/* ---- Cases ------------------------------------------------------------ */

/*
 * delay.h "a task is never handed over before CLOCK_MONOTONIC reaches
 * its deadline"; "the task is handed to its target once
 * CLOCK_MONOTONIC has reached @when_ns, never before"; "a time in the
 * past is due at once"; slack: "never earlier than its deadline".
 * On every target, with the scheduler's slack and with a task's own.
 */
static void never_before_deadline(struct ktest *t)
{
	struct pd_ctx *c = pd_setup(t, 2 * PD_MS);
	u32 rnd = 0x2545f491;
	unsigned int i, n = 60;

	if (!c)
		return;
	pd_expect(c, n);
	for (i = 0; i < n; i++) {
		struct pd_task *p = pd_task(c, i, i % PD_NR_TARGETS);
		u64 delay = (kt_rand(&rnd) % 200) * PD_MS + kt_rand(&rnd) % 1000;

		switch (i / PD_NR_TARGETS % 4) {
		case 0:
			KT_EXPECT(t, pd_after(c, p, delay));
			break;
		case 1:
			KT_EXPECT(t, pd_at(c, p, pd_now() + delay));
			break;
		case 2:		/* in the past: due at once */
			KT_EXPECT(t, pd_at(c, p, i % 2 ? 0 : pd_now() - PD_MS));
			break;
		default:
			KT_EXPECT(t, pd_range(c, p, pd_now() + delay,
					      kt_rand(&rnd) % (5 * PD_MS),
					      ORDSCHED_DELAY_QUEUE_NEW));
		}
	}
	pd_wait(t, c);
	pd_check_ends(t, c, n, 1, 0);
	pd_check(t, c);
	pd_teardown(c);
}

/*
 * delay.h "Tasks run in their target's context: process context, in a
 * worker, for a workqueue or a stream; hard interrupt with interrupts off
 * ... for interrupt tasks"; "a workqueue: the task runs as a work item
 * of its own". (Every case checks the context of every run; this one also
 * shows that a workqueue task runs on the workqueue it was given: not while
 * that ordered workqueue is held up.)
 */
static void runs_in_target_context(struct ktest *t)
{
	struct pd_ctx *c = pd_setup(t, 0);
	enum pd_target tg;

	if (!c)
		return;
	pd_block(t, c, PD_WQ);
	pd_expect(c, PD_NR_TARGETS - 1);
	for (tg = 0; tg < PD_NR_TARGETS; tg++)
		KT_EXPECT(t, pd_after(c, pd_task(c, tg, tg), PD_MS));
	pd_wait(t, c);		/* the stream and interrupt tasks */
	KT_EXPECT_EQ(t, atomic_read(&c->runs[PD_WQ]), 0);
	pd_expect(c, 1);
	pd_unblock(c);
	pd_wait(t, c);
	pd_check_ends(t, c, PD_NR_TARGETS, 1, 0);
	pd_check(t, c);
	pd_teardown(c);
}

static bool pd_before(const struct pd_task *a, const struct pd_task *b)
{
	return a->deadline < b->deadline ||
	       (a->deadline == b->deadline && a->seq < b->seq);
}

/* The runs of each target came in (deadline, queueing) order. */
static void pd_check_order(struct ktest *t, struct pd_ctx *c)
{
	struct pd_task *last[PD_NR_TARGETS] = {};
	unsigned int i, n = min_t(int, atomic_read(&c->next), PD_MAX);

	for (i = 0; i < n; i++) {
		struct pd_task *p = &c->tasks[c->order[i]];

		if (last[p->target] && !pd_before(last[p->target], p)) {
			KT_EXPECT(t, pd_before(last[p->target], p));
			ktest_diag(t, "%s: task %u (%llu, #%llu) ran after %u (%llu, #%llu)",
				   pd_target_name[p->target], p->id,
				   p->deadline, p->seq, last[p->target]->id,
				   last[p->target]->deadline,
				   last[p->target]->seq);
			return;
		}
		last[p->target] = p;
	}
}

/*
 * delay.h "tasks are handed over in deadline order, and tasks with the
 * same deadline in queueing order (a moved task counts as queued when it
 * was moved), so on an ordered workqueue or on one stream they run in that
 * order; the interrupt tasks of a scheduler always run in that order, one
 * at a time." Deadlines spread over 2 s (near and far tasks), many equal,
 * half the tasks with a slack of their own, some moved.
 */
static void deadline_then_queueing_order(struct ktest *t)
{
	struct pd_ctx *c = pd_setup(t, 0);
	u32 rnd = 0x9e3779b9;
	unsigned int i, n = 144;
	u64 base;

	if (!c)
		return;
	pd_expect(c, n);
	base = pd_now() + 500 * PD_MS;
	for (i = 0; i < n; i++) {
		struct pd_task *p = pd_task(c, i, i % PD_NR_TARGETS);
		u64 when = base + (kt_rand(&rnd) % 8) * 250 * PD_MS +
			   (kt_rand(&rnd) % 3) * PD_MS;

		if (i % 2)
			KT_EXPECT(t, pd_range(c, p, when,
					      kt_rand(&rnd) % (20 * PD_MS),
					      ORDSCHED_DELAY_QUEUE_NEW));
		else
			KT_EXPECT(t, pd_at(c, p, when));
	}
	/* A modify of a task that has run queues it again: none then. */
	for (i = 0; i < 24 && pd_now() + 100 * PD_MS < base; i++) {
		struct pd_task *p = &c->tasks[kt_rand(&rnd) % n];

		KT_EXPECT(t, pd_mod(c, p, c->tasks[kt_rand(&rnd) % n].deadline));
	}
	if (pd_now() >= base || i < 24)
		ktest_skip(t, "too slow to queue before the first deadline");
	pd_wait(t, c);
	pd_check_ends(t, c, n, 1, 0);
	if (!t->skipped)
		pd_check_order(t, c);
	pd_check(t, c);
	pd_teardown(c);
}

struct pd_irq_queuer {
	struct pd_ctx *c;
	u64 when;
	unsigned int per_thread;
};

static int pd_irq_queue_thread(void *data, unsigned int idx)
{
	struct pd_irq_queuer *q = data;
	unsigned int i;

	for (i = 0; i < q->per_thread; i++) {
		unsigned int id = idx * q->per_thread + i;

		if (!pd_at(q->c, pd_task(q->c, id, PD_IRQ), q->when))
			return -EINVAL;
	}
	return 0;
}

/*
 * delay.h "interrupt: the task runs in the scheduler's hrtimer
 * callback, in hard interrupt, with no worker to wake (a few per
 * interrupt: more wait for the next one)"; "@irq_deferred:
 * interrupts that left due interrupt tasks to a later one"; "the
 * interrupt tasks of a scheduler always run in that order, one at a
 * time". 200 interrupt tasks with one deadline, queued from both CPUs:
 * each CPU's in its queueing order, never two at once.
 */
static void irq_tasks_few_per_interrupt(struct ktest *t)
{
	struct pd_ctx *c = pd_setup(t, 0);
	struct pd_irq_queuer q = { .c = c, .per_thread = 100 };
	struct ordsched_delay_stats st;
	unsigned int i, last[2] = { UINT_MAX, UINT_MAX };

	if (!c)
		return;
	pd_expect(c, 2 * q.per_thread);
	q.when = pd_now() + 500 * PD_MS;
	KT_EXPECT_EQ(t, kt_run_threads(2, pd_irq_queue_thread, &q), 0);
	if (pd_now() >= q.when)
		ktest_skip(t, "too slow to queue before the deadline");
	pd_wait(t, c);
	pd_check_ends(t, c, 2 * q.per_thread, 1, 0);
	for (i = 0; i < 2 * q.per_thread && !t->skipped; i++) {
		unsigned int id = c->order[i], th = id / q.per_thread;

		if (last[th] != UINT_MAX && !KT_EXPECT(t, id > last[th])) {
			ktest_diag(t, "task %u ran after %u", id, last[th]);
			break;
		}
		last[th] = id;
	}
	KT_EXPECT(t, pd_poll(c, &st, st.ran == 2 * q.per_thread));
	KT_EXPECT_EQ(t, st.ran_irq, 2 * q.per_thread);
	if (!t->skipped)
		KT_EXPECT(t, st.irq_deferred >= 1);
	pd_check(t, c);
	pd_teardown(c);
}

/*
 * delay.h "Return: true, or false if the task is already queued (it is
 * left as it is)"; "@ORDSCHED_DELAY_QUEUE_NEW: leave it as it is and
 * return false"; ordsched_delay_task_deadline() "the deadline of a
 * task's last queueing". Already queued: waiting, and handed over to a
 * held-up target but not started. Once it has run it may be queued again.
 */
static void queue_twice_is_refused(struct ktest *t)
{
	struct pd_ctx *c = pd_setup(t, 0);
	enum pd_target tg;
	struct pd_task *p;
	u64 far, now, before;

	if (!c)
		return;
	for (tg = PD_WQ; tg <= PD_STREAM; tg++) {
		p = pd_task(c, tg, tg);
		far = pd_now() + PD_FAR;
		KT_EXPECT(t, pd_at(c, p, far));
		KT_EXPECT(t, !ordsched_delay_queue_at(c->d, &p->task, pd_now()));
		KT_EXPECT(t, !ordsched_delay_queue(c->d, &p->task, 0));
		KT_EXPECT(t, !ordsched_delay_queue_range(c->d, &p->task, 0, 0,
							 ORDSCHED_DELAY_QUEUE_NEW));
		KT_EXPECT_EQ(t, ordsched_delay_task_deadline(&p->task), far);

		/* Handed over, not started: still queued. */
		pd_block(t, c, tg);
		before = pd_dispatched(c);
		now = pd_now();
		KT_EXPECT(t, pd_mod(c, p, now));
		pd_handed(t, c, before);
		KT_EXPECT(t, !ordsched_delay_queue(c->d, &p->task, PD_FAR));
		KT_EXPECT(t, !ordsched_delay_queue_at(c->d, &p->task, 0));
		KT_EXPECT_EQ(t, ordsched_delay_task_deadline(&p->task), now);
		pd_expect(c, 1);
		pd_unblock(c);
		pd_wait(t, c);
		KT_EXPECT_EQ(t, atomic_read(&c->runs[tg]), 1);

		/* Run: the caller's again. */
		pd_expect(c, 1);
		KT_EXPECT(t, pd_after(c, p, 0));
		pd_wait(t, c);
		KT_EXPECT_EQ(t, atomic_read(&c->runs[tg]), 2);
	}
	pd_check(t, c);
	pd_teardown(c);
}

/*
 * delay.h "A task waiting for its deadline, or handed over and not
 * started, now waits for @when_ns instead; any other task is queued for
 * @when_ns"; "Return: true if the task was queued and has been moved,
 * false if it was not and has been queued"; "a modify that finds the
 * task pending moves that queueing, it does not add one";
 * "@ORDSCHED_DELAY_QUEUE_MOD: move it to the new deadline and slack and
 * return true". Moves later, earlier, off a held-up target, and of an idle
 * task, on every target: each queueing runs once, never before its
 * latest deadline.
 */
static void mod_moves_or_queues(struct ktest *t)
{
	struct pd_ctx *c = pd_setup(t, 0);
	struct ordsched_delay_stats st;
	enum pd_target tg;
	u64 when, before;

	if (!c)
		return;
	for (tg = 0; tg < PD_NR_TARGETS; tg++) {
		struct pd_task *later = pd_task(c, 4 * tg, tg);
		struct pd_task *sooner = pd_task(c, 4 * tg + 1, tg);
		struct pd_task *idle = pd_task(c, 4 * tg + 2, tg);
		struct pd_task *handed = pd_task(c, 4 * tg + 3, tg);

		pd_expect(c, 3);
		KT_EXPECT(t, pd_after(c, later, 300 * PD_MS));
		when = pd_now() + 600 * PD_MS;
		KT_EXPECT(t, pd_mod(c, later, when));
		KT_EXPECT_EQ(t, ordsched_delay_task_deadline(&later->task), when);
		KT_EXPECT(t, pd_after(c, sooner, PD_FAR));
		when = pd_now() + 20 * PD_MS;
		KT_EXPECT(t, pd_range(c, sooner, when, PD_MS,
				      ORDSCHED_DELAY_QUEUE_MOD));
		KT_EXPECT_EQ(t, ordsched_delay_task_deadline(&sooner->task), when);
		KT_EXPECT(t, !pd_mod(c, idle, pd_now() + 10 * PD_MS));
		pd_wait(t, c);

		if (tg == PD_IRQ)
			continue;
		pd_block(t, c, tg);
		before = pd_dispatched(c);
		KT_EXPECT(t, pd_after(c, handed, 0));
		pd_handed(t, c, before);
		pd_expect(c, 1);
		KT_EXPECT(t, pd_mod(c, handed, pd_now() + 50 * PD_MS));
		pd_unblock(c);
		pd_wait(t, c);
	}
	pd_check_ends(t, c, 4 * PD_NR_TARGETS - 1, 1, 0);
	ordsched_delay_get_stats(c->d, &st);
	KT_EXPECT_EQ(t, st.modified, 2 * PD_NR_TARGETS + 2);
	pd_check(t, c);
	pd_teardown(c);
}

/*
 * ordsched.h "X_cancel() take back an item that has not started;
 * returns true if it will not run, false if it has run, is running or will
 * run"; delay.h "a task waiting for its deadline is removed, a task
 * already handed to its target is taken back if the target has not
 * started it yet"; "Return: true if the task was cancelled before it
 * started: it will not run; false if it was not queued, or has run, is
 * running or will run"; "@cancels_handed: of those, tasks taken back
 * from their target". On every target: idle, waiting, handed over,
 * running (held in its function), run.
 */
static void cancel_takes_back_unstarted(struct ktest *t)
{
	struct pd_ctx *c = pd_setup(t, 0);
	struct ordsched_delay_stats st;
	unsigned int handed = 0;
	u64 before;
	enum pd_target tg;

	if (!c)
		return;
	for (tg = 0; tg < PD_NR_TARGETS; tg++) {
		struct pd_task *waiting = pd_task(c, 3 * tg, tg);
		struct pd_task *held = pd_task(c, 3 * tg + 1, tg);
		struct pd_task *idle = pd_task(c, 3 * tg + 2, tg);

		KT_EXPECT(t, !ordsched_delay_cancel(c->d, &idle->task));
		KT_EXPECT(t, pd_after(c, waiting, PD_FAR));
		KT_EXPECT(t, ordsched_delay_cancel(c->d, &waiting->task));
		KT_EXPECT(t, !ordsched_delay_cancel(c->d, &waiting->task));

		if (tg != PD_IRQ) {
			/* Handed over to a held-up target: taken back. */
			pd_block(t, c, tg);
			before = pd_dispatched(c);
			KT_EXPECT(t, pd_after(c, waiting, 0));
			pd_handed(t, c, before);
			KT_EXPECT(t, ordsched_delay_cancel(c->d, &waiting->task));
			handed++;
			pd_unblock(c);

			/* Running: not taken back; it ends once. */
			held->hook = pd_hold;
			reinit_completion(&c->held);
			reinit_completion(&c->unhold);
			pd_expect(c, 1);
			KT_EXPECT(t, pd_after(c, held, 0));
			KT_EXPECT(t, wait_for_completion_timeout(&c->held, PD_WAIT));
			KT_EXPECT(t, !ordsched_delay_cancel(c->d, &held->task));
			complete(&c->unhold);
			pd_wait(t, c);
		} else {
			pd_expect(c, 1);
			KT_EXPECT(t, pd_after(c, held, 0));
			pd_wait(t, c);
		}
		/* Run: not queued. */
		KT_EXPECT(t, !ordsched_delay_cancel(c->d, &held->task));
	}
	msleep(20);	/* a cancelled task that ran anyway would show */
	for (tg = 0; tg < PD_NR_TARGETS; tg++) {
		KT_EXPECT_EQ(t, atomic_read(&c->runs[3 * tg]), 0);
		KT_EXPECT_EQ(t, atomic_read(&c->runs[3 * tg + 1]), 1);
		KT_EXPECT_EQ(t, atomic_read(&c->runs[3 * tg + 2]), 0);
	}
	ordsched_delay_get_stats(c->d, &st);
	KT_EXPECT_EQ(t, st.cancels, PD_NR_TARGETS + handed);
	KT_EXPECT_EQ(t, st.cancels_handed, handed);
	KT_EXPECT_EQ(t, atomic_read(&c->cancelled), 0);
	pd_check(t, c);
	pd_teardown(c);
}

/*
 * delay.h "any other task is queued for @when_ns" and "false if
 * it was not and has been queued": a task whose run has started (held in
 * its function) is queued again by a modify, and runs again.
 */
static void mod_of_running_task_queues_again(struct ktest *t)
{
	struct pd_ctx *c = pd_setup(t, 0);
	enum pd_target tg;

	if (!c)
		return;
	for (tg = PD_WQ; tg <= PD_STREAM; tg++) {
		struct pd_task *p = pd_task(c, tg, tg);

		p->hook = pd_hold;
		reinit_completion(&c->held);
		reinit_completion(&c->unhold);
		pd_expect(c, 2);
		KT_EXPECT(t, pd_after(c, p, 0));
		KT_EXPECT(t, wait_for_completion_timeout(&c->held, PD_WAIT));
		KT_EXPECT(t, !pd_mod(c, p, pd_now() + 10 * PD_MS));
		complete(&c->unhold);
		pd_wait(t, c);
		KT_EXPECT_EQ(t, atomic_read(&c->runs[tg]), 2);
	}
	pd_check(t, c);
	pd_teardown(c);
}

/*
 * delay.h cancel_sync "Return: true if the task was queued and has been
 * cancelled, false if it was not queued"; "The task is then the
 * caller's, to free or queue again." Waiting and idle tasks on every
 * target.
 */
static void cancel_sync_waiting_and_idle(struct ktest *t)
{
	struct pd_ctx *c = pd_setup(t, 0);
	enum pd_target tg;

	if (!c)
		return;
	for (tg = 0; tg < PD_NR_TARGETS; tg++) {
		struct pd_task *p = pd_task(c, tg, tg);

		KT_EXPECT(t, !ordsched_delay_cancel_sync(c->d, &p->task));
		KT_EXPECT(t, pd_after(c, p, PD_FAR));
		KT_EXPECT(t, ordsched_delay_cancel_sync(c->d, &p->task));
		KT_EXPECT(t, !ordsched_delay_cancel_sync(c->d, &p->task));
		KT_EXPECT_EQ(t, atomic_read(&c->runs[tg]), 0);
		pd_expect(c, 1);
		KT_EXPECT(t, pd_after(c, p, PD_MS));
		pd_wait(t, c);
	}
	pd_check_ends(t, c, PD_NR_TARGETS, 1, 0);
	pd_check(t, c);
	pd_teardown(c);
}

struct pd_sync_race {
	struct pd_ctx *c;
	struct pd_task *p;
	bool ret;		/* cancel_sync's */
	bool returned;
	bool fn_done_at_return;
	bool returned_while_held;
	bool requeued;		/* the run's queueing of itself */
	bool fn_done;
};

static struct pd_sync_race *pd_race;

/* Hook: held, then queue itself again for a minute. */
static void pd_requeue_held(struct pd_task *p)
{
	struct pd_sync_race *r = pd_race;

	complete(&p->c->held);
	wait_for_completion_timeout(&p->c->unhold, PD_WAIT);
	r->requeued = pd_after(p->c, p, PD_FAR);
	/* Pairs with the acquire after cancel_sync: requeued is set. */
	smp_store_release(&r->fn_done, true);
}

static int pd_sync_race_thread(void *data, unsigned int idx)
{
	struct pd_sync_race *r = data;

	if (idx == 0) {
		r->ret = ordsched_delay_cancel_sync(r->c->d, &r->p->task);
		/* Pairs with the release at the end of the function. */
		r->fn_done_at_return = smp_load_acquire(&r->fn_done);
		/* Pairs with the acquire of the other thread. */
		smp_store_release(&r->returned, true);
	} else {
		msleep(200);
		/* Pairs with the release after cancel_sync returned. */
		r->returned_while_held = smp_load_acquire(&r->returned);
		complete(&r->c->unhold);
	}
	return 0;
}

/*
 * delay.h "Cancels the task if it has not started and returns only
 * when it is neither queued nor running, also if its function queues it
 * again: queueings and modifies of @task fail meanwhile."; "true if
 * the task was queued and has been cancelled, false if it was not queued
 * (it may have been running)". The run, held, queues itself again once
 * released; cancel_sync, called meanwhile, must outwait the run and leave
 * the task neither queued nor running.
 */
static void cancel_sync_outwaits_run(struct ktest *t)
{
	struct pd_ctx *c = pd_setup(t, 0);
	struct pd_sync_race r = {};
	struct ordsched_delay_stats st;
	struct pd_task *p;

	if (!c)
		return;
	p = pd_task(c, 0, PD_WQ);
	p->hook = pd_requeue_held;
	r.c = c;
	r.p = p;
	pd_race = &r;
	pd_expect(c, 1);
	KT_EXPECT(t, pd_after(c, p, 0));
	if (KT_EXPECT(t, wait_for_completion_timeout(&c->held, PD_WAIT))) {
		KT_EXPECT_EQ(t, kt_run_threads(2, pd_sync_race_thread, &r), 0);
		KT_EXPECT(t, !r.returned_while_held);
		KT_EXPECT(t, r.fn_done_at_return);
		ktest_diag(t, "the run's queueing of itself returned %d", r.requeued);
		/* Refused: false; accepted before cancel_sync: cancelled. */
		KT_EXPECT_EQ(t, r.ret, r.requeued);
	}
	pd_wait(t, c);
	KT_EXPECT(t, !ordsched_delay_cancel(c->d, &p->task));
	ordsched_delay_get_stats(c->d, &st);
	KT_EXPECT_EQ(t, st.pending, 0);
	KT_EXPECT_EQ(t, st.inflight, 0);
	/* The caller's: queue it again. */
	p->hook = NULL;
	pd_expect(c, 1);
	KT_EXPECT(t, pd_after(c, p, PD_MS));
	pd_wait(t, c);
	KT_EXPECT_EQ(t, atomic_read(&c->runs[0]), 2);
	pd_check(t, c);
	pd_teardown(c);
	pd_race = NULL;
}

static int pd_flush_fn(void *data)
{
	return ordsched_delay_flush(data);
}

/* Hook: sleep, so that "finished" differs from "started". */
static void pd_slow(struct pd_task *p)
{
	if (p->target != PD_IRQ)
		usleep_range(10000, 11000);
}

/*
 * ordsched.h "X_flush() wait for the items handed over before the call
 * ... killable: 0 or -EINTR"; delay.h "flush waits for the tasks
 * queued before it, killably, deadlines kept". On every target: when flush
 * returns 0, every task queued before it has finished, none early.
 */
static void flush_waits_for_earlier(struct ktest *t)
{
	struct pd_ctx *c = pd_setup(t, 0);
	unsigned int i, n = 30;

	if (!c)
		return;
	KT_EXPECT_EQ(t, ordsched_delay_flush(c->d), 0);
	pd_expect(c, n);
	for (i = 0; i < n; i++) {
		struct pd_task *p = pd_task(c, i, i % PD_NR_TARGETS);

		p->hook = pd_slow;
		KT_EXPECT(t, pd_after(c, p, (i % 10) * 20 * PD_MS));
	}
	KT_EXPECT_EQ(t, ordsched_delay_flush(c->d), 0);
	KT_EXPECT_EQ(t, atomic_read(&c->ran), n);
	pd_wait(t, c);
	pd_check_ends(t, c, n, 1, 0);
	pd_check(t, c);
	pd_teardown(c);
}

/* Hooks of the next case: queue a later task; cancel a waiting one. */
static void pd_queue_later(struct pd_task *p)
{
	pd_after(p->c, &p->c->tasks[1], PD_FAR);
}

static void pd_cancel_waiting(struct pd_task *p)
{
	if (ordsched_delay_cancel(p->c->d, &p->c->tasks[3].task))
		atomic_inc(&p->c->cancels[3]);	/* counted as reported */
}

/*
 * ordsched.h "X_flush() wait for the items handed over before the call
 * and for no later one". A task queued during the flush (by an earlier
 * task) is not waited for; nor is an earlier one that was cancelled during
 * the flush, which will never run. Flush runs in a killable thread killed
 * after 5 s: -EINTR means it waited for one of them.
 */
static void flush_not_for_later_or_cancelled(struct ktest *t)
{
	struct pd_ctx *c = pd_setup(t, 0);
	struct pd_task *a, *later, *y, *x;

	if (!c)
		return;
	a = pd_task(c, 0, PD_WQ);
	later = pd_task(c, 1, PD_WQ);
	y = pd_task(c, 2, PD_STREAM);
	x = pd_task(c, 3, PD_WQ);
	a->hook = pd_queue_later;
	y->hook = pd_cancel_waiting;
	pd_expect(c, 2);
	KT_EXPECT(t, pd_after(c, x, PD_FAR));
	/*
	 * The flush's thread must start before @a runs, or @later is queued
	 * before the flush: a second's margin for a slow guest.
	 */
	KT_EXPECT(t, pd_after(c, a, 1000 * PD_MS));
	KT_EXPECT(t, pd_after(c, y, 500 * PD_MS));
	KT_EXPECT_EQ(t, kt_run_killed(pd_flush_fn, c->d, 5000), 0);
	KT_EXPECT_EQ(t, atomic_read(&c->runs[0]), 1);
	KT_EXPECT_EQ(t, atomic_read(&c->runs[2]), 1);
	KT_EXPECT_EQ(t, atomic_read(&c->cancels[3]), 1);
	KT_EXPECT(t, ordsched_delay_cancel(c->d, &later->task));
	KT_EXPECT_EQ(t, atomic_read(&c->runs[1]), 0);
	KT_EXPECT_EQ(t, atomic_read(&c->runs[3]), 0);
	pd_check(t, c);
	pd_teardown(c);
}

/*
 * ordsched.h "killable: 0 or -EINTR"; delay.h "flush waits for the
 * tasks queued before it, killably, deadlines kept". A flush behind a task
 * a minute away, killed: -EINTR, and the task still waits.
 */
static void flush_is_killable(struct ktest *t)
{
	struct pd_ctx *c = pd_setup(t, 0);
	struct pd_task *p;

	if (!c)
		return;
	p = pd_task(c, 0, PD_IRQ);
	KT_EXPECT(t, pd_after(c, p, PD_FAR));
	KT_EXPECT_EQ(t, kt_run_killed(pd_flush_fn, c->d, 200), -EINTR);
	KT_EXPECT(t, ordsched_delay_cancel(c->d, &p->task));
	KT_EXPECT_EQ(t, atomic_read(&c->runs[0]), 0);
	pd_check(t, c);
	pd_teardown(c);
}

/*
 * delay.h ordsched_delay_flush(): "Returns once every task queued before
 * the call has run", also after killed flushes, which leave their flush
 * generations in use while the tasks they waited for are pending ("after
 * three killed flushes in a row [...] a flush first waits for the oldest
 * of those"): after 1 to 4 killed flushes behind task A, a flush waits
 * for A and for B, queued after the kills. A generation mixed up after
 * the kills would let it return before one of them.
 */
static void flush_after_killed_flushes(struct ktest *t)
{
	unsigned int kills, k;

	for (kills = 1; kills <= 4; kills++) {
		struct pd_ctx *c = pd_setup(t, 0);
		u64 t0 = ktime_get_ns(), t1, t2;
		struct pd_task *a, *b;
		int ret = -EINTR;

		if (!c)
			return;
		a = pd_task(c, 0, PD_WQ);
		b = pd_task(c, 1, PD_STREAM);
		KT_EXPECT(t, pd_after(c, a, 800 * PD_MS));
		for (k = 0; k < kills && ret == -EINTR; k++)
			ret = kt_run_killed(pd_flush_fn, c->d, 20);
		t1 = ktime_get_ns();
		if (ret != -EINTR || atomic_read(&c->runs[0])) {
			ktest_diag(t, "%u kills: flush %d, A ran %d", kills,
				   ret, atomic_read(&c->runs[0]));
			ktest_skip(t, "too slow to queue before the first deadline");
			pd_teardown(c);
			return;
		}
		KT_EXPECT(t, pd_after(c, b, 300 * PD_MS));
		KT_EXPECT_EQ(t, ordsched_delay_flush(c->d), 0);
		t2 = ktime_get_ns();
		ktest_diag(t, "%u kills: %llu ms, then the flush %llu ms", kills,
			   (t1 - t0) / NSEC_PER_MSEC, (t2 - t1) / NSEC_PER_MSEC);
		if (!KT_EXPECT_EQ(t, atomic_read(&c->runs[0]), 1) ||
		    !KT_EXPECT_EQ(t, atomic_read(&c->runs[1]), 1))
			ktest_diag(t, "after %u killed flushes", kills);
		pd_check(t, c);
		pd_teardown(c);
	}
}

/* Tasks of another scheduler that fill ordsched's own workqueue. */
#define PD_FILL		320		/* its max_active is 256 */

struct pd_fill;

/* A flush of the case's scheduler, or a cancel_sync of its task 0. */
struct pd_waiter {
	struct pd_ctx *c;
	bool sync;
	struct work_struct work;
	struct task_struct *task;
	struct completion done;
	int ret;
	int ran_at_return;	/* the case's runs that had finished */
};

struct pd_fill_task {
	struct ordsched_delay_task task;
	struct pd_fill *f;
};

struct pd_fill {
	struct ordsched_delay *d;
	struct pd_fill_task tasks[PD_FILL];
	atomic_t started;
	atomic_t finished;
	struct completion release;
	struct pd_waiter w[2];
};

static void pd_fill_fn(struct ordsched_delay_task *task)
{
	struct pd_fill *f = container_of(task, struct pd_fill_task, task)->f;

	atomic_inc(&f->started);
	wait_for_completion_timeout(&f->release, 4 * PD_WAIT);
	atomic_inc(&f->finished);
}

/* Queue the fillers; return how many started once that stopped growing. */
static unsigned int pd_fill_up(struct ktest *t, struct pd_fill *f)
{
	unsigned int i, n, last = 0, stable = 0;

	for (i = 0; i < PD_FILL; i++) {
		f->tasks[i].f = f;
		ordsched_delay_task_init(&f->tasks[i].task, pd_fill_fn, NULL);
		KT_EXPECT(t, ordsched_delay_queue(f->d, &f->tasks[i].task, 0));
	}
	/*
	 * Workers come as the pool creates them, sometimes slowly (212 of
	 * 256 still after 400 ms of no change, once): a count that stopped
	 * growing short of max_active waits on, up to 10 s in all.
	 */
	for (i = 0; i < 200; i++) {
		msleep(50);
		n = atomic_read(&f->started);
		stable = n && n == last ? stable + 1 : 0;
		last = n;
		if (stable >= (n < WQ_DFL_ACTIVE ? 40 : 8))
			break;
	}
	return last;
}

/* Hook: pd_hold(), for as long as filling the workqueue may take. */
static void pd_hold_long(struct pd_task *p)
{
	complete(&p->c->held);
	wait_for_completion_timeout(&p->c->unhold, 4 * PD_WAIT);
}

static void pd_waiter_fn(struct work_struct *work)
{
	struct pd_waiter *w = container_of(work, struct pd_waiter, work);

	WRITE_ONCE(w->task, current);
	if (w->sync)
		w->ret = ordsched_delay_cancel_sync(w->c->d,
						    &w->c->tasks[0].task);
	else
		w->ret = ordsched_delay_flush(w->c->d);
	w->ran_at_return = atomic_read(&w->c->ran);
	complete(&w->done);
}

/* Start @w (a flush, or a cancel_sync of task 0); true once it sleeps. */
static bool pd_waiter_start(struct pd_waiter *w, struct pd_ctx *c, bool sync)
{
	w->c = c;
	w->sync = sync;
	init_completion(&w->done);
	INIT_WORK(&w->work, pd_waiter_fn);
	queue_work(system_unbound_wq, &w->work);
	return kt_stays_asleep(&w->task, &w->done);
}

/*
 * delay.h ordsched_delay_flush() "Returns once every task queued before
 * the call has run", ordsched_delay_cancel_sync() "returns only when it
 * is neither queued nor running": also while ordsched's own workqueue
 * (a task's @wq NULL) is full of other tasks that wait. A flush and a
 * cancel_sync wait for a running task; it returns while the fillers
 * still wait. Their wake-up was a work item of that workqueue, queued
 * behind the fillers: both waited until the fillers gave up.
 */
static void waits_end_with_default_wq_full(struct ktest *t)
{
	struct ordsched_delay_params dp = { .name = "promise_delay_fill" };
	struct pd_ctx *c = pd_setup(t, 0);
	struct pd_fill *f = kzalloc(sizeof(*f), GFP_KERNEL);
	struct pd_waiter *w;
	struct pd_task *p;
	unsigned int i, started;

	if (f)
		init_completion(&f->release);
	if (!KT_EXPECT(t, c && f))
		goto out;
	w = f->w;
	f->d = ordsched_delay_create(&dp);
	if (!KT_EXPECT(t, !IS_ERR(f->d))) {
		f->d = NULL;
		goto out;
	}
	p = pd_task(c, 0, PD_WQ);
	p->hook = pd_hold_long;
	pd_expect(c, 1);
	KT_EXPECT(t, pd_after(c, p, 0));
	if (!KT_EXPECT(t, wait_for_completion_timeout(&c->held, PD_WAIT)))
		goto out;
	started = pd_fill_up(t, f);
	ktest_diag(t, "%u of %u fillers started", started, PD_FILL);
	if (started == PD_FILL) {
		ktest_skip(t, "ordsched's workqueue ran every filler at once");
		goto out;
	}
	/*
	 * Fewer than its max_active (the default: not set in the guests)
	 * when the count stopped growing: workers were slow to come, and
	 * the workqueue may not be full. Passing then would prove nothing.
	 */
	if (started < WQ_DFL_ACTIVE) {
		ktest_skip(t, "the fillers stopped short of a full workqueue");
		goto out;
	}
	for (i = 0; i < ARRAY_SIZE(f->w); i++)
		KT_EXPECT(t, pd_waiter_start(&w[i], c, i));
	/* Still held: the waiters wait for its end. */
	KT_EXPECT_EQ(t, atomic_read(&c->ran), 0);
	complete(&c->unhold);
	for (i = 0; i < ARRAY_SIZE(f->w); i++)
		KT_EXPECT(t, wait_for_completion_timeout(&w[i].done, PD_WAIT));
	KT_EXPECT_EQ(t, atomic_read(&f->finished), 0);
	complete_all(&f->release);
	for (i = 0; i < ARRAY_SIZE(f->w); i++)
		flush_work(&w[i].work);
	KT_EXPECT_EQ(t, w[0].ret, 0);
	/* It was running, not queued. */
	KT_EXPECT_EQ(t, w[1].ret, 0);
	pd_wait(t, c);
	pd_check_ends(t, c, 1, 1, 0);
	pd_check(t, c);
out:
	/* A task held still: its end, before the destroys wait for it. */
	if (c)
		complete_all(&c->unhold);
	if (f) {
		complete_all(&f->release);
		/* Waits for the fillers' runs. */
		if (f->d)
			ordsched_delay_destroy(f->d);
		kfree(f);
	}
	pd_teardown(c);
}

/*
 * delay.h ordsched_delay_flush(): "Concurrent flushes are serialized, and
 * one that waits for another to finish first also waits for the tasks
 * queued meanwhile." Flush 1 waits for task A, held in its function;
 * flush 2 starts, behind flush 1; then task B is queued, due 200 ms
 * later. A is let go: flush 2 must not return before B has run.
 */
static void concurrent_flush_waits_for_meanwhile(struct ktest *t)
{
	struct pd_ctx *c = pd_setup(t, 0);
	struct pd_waiter *w = kcalloc(2, sizeof(*w), GFP_KERNEL);
	struct pd_task *a, *b;
	unsigned int i;

	if (!KT_EXPECT(t, c && w))
		goto out;
	a = pd_task(c, 0, PD_WQ);
	a->hook = pd_hold;
	b = pd_task(c, 1, PD_STREAM);
	pd_expect(c, 2);
	KT_EXPECT(t, pd_after(c, a, 0));
	if (!KT_EXPECT(t, wait_for_completion_timeout(&c->held, PD_WAIT)))
		goto out;
	KT_EXPECT(t, pd_waiter_start(&w[0], c, false));
	KT_EXPECT(t, pd_waiter_start(&w[1], c, false));
	KT_EXPECT(t, pd_after(c, b, 200 * PD_MS));
	/* Neither may return while A is held. */
	KT_EXPECT_EQ(t, atomic_read(&c->ran), 0);
	complete(&c->unhold);
	for (i = 0; i < 2; i++) {
		KT_EXPECT(t, wait_for_completion_timeout(&w[i].done, PD_WAIT));
		KT_EXPECT_EQ(t, w[i].ret, 0);
	}
	ktest_diag(t, "runs finished when flush 1 returned: %d, flush 2: %d",
		   w[0].ran_at_return, w[1].ran_at_return);
	KT_EXPECT(t, w[0].ran_at_return >= 1);
	KT_EXPECT_EQ(t, w[1].ran_at_return, 2);
	pd_wait(t, c);
	pd_check_ends(t, c, 2, 1, 0);
	pd_check(t, c);
out:
	if (c)
		complete_all(&c->unhold);
	for (i = 0; w && i < 2; i++)
		if (w[i].c)
			flush_work(&w[i].work);
	kfree(w);
	pd_teardown(c);
}

/*
 * Queue @n tasks [0, n) over every target, a minute away or more, one per
 * target never due (delay.h "a deadline beyond KTIME_MAX is clamped
 * to KTIME_MAX (never due; ordsched_delay_stop() still ends it)").
 */
static bool pd_queue_far(struct ktest *t, struct pd_ctx *c, unsigned int n,
			 bool owned)
{
	u32 rnd = 0x1b873593;
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct pd_task *p = owned ? pd_owned(c, i, i % PD_NR_TARGETS) :
					    pd_task(c, i, i % PD_NR_TARGETS);

		if (!KT_EXPECT(t, p))
			return false;
		if (i < PD_NR_TARGETS)
			KT_EXPECT(t, pd_after(c, p, U64_MAX));
		else
			KT_EXPECT(t, pd_after(c, p, PD_FAR +
					      (kt_rand(&rnd) % 1000) * PD_MS));
	}
	return true;
}

/*
 * delay.h "@ORDSCHED_DELAY_RUN_PENDING: hand them all over now,
 * deadlines ignored"; "except by ordsched_delay_stop() in RUN mode,
 * which runs everything at once"; deadline order (still on an ordered
 * workqueue, a stream, and for interrupt tasks); "@run_early: tasks
 * run before their deadline by a stop in RUN mode". A task queued after
 * the stop ends exactly once too (:34).
 */
static void stop_run_hands_all_over(struct ktest *t)
{
	struct pd_ctx *c = pd_setup(t, 0);
	struct ordsched_delay_stats st;
	unsigned int n = 45;
	struct pd_task *z;
	bool again;

	if (!c)
		return;
	pd_expect(c, n);
	if (!pd_queue_far(t, c, n, false))
		goto out;
	WRITE_ONCE(c->allow_early, true);
	ordsched_delay_stop(c->d, ORDSCHED_DELAY_RUN_PENDING);
	pd_wait(t, c);
	pd_check_ends(t, c, n, 1, 0);
	pd_check_order(t, c);
	KT_EXPECT(t, pd_poll(c, &st, st.ran == n));
	KT_EXPECT_EQ(t, st.run_early, n);
	KT_EXPECT_EQ(t, st.pending, 0);

	z = pd_task(c, n, PD_WQ);
	again = pd_after(c, z, PD_FAR);
	ktest_diag(t, "queueing after the stop returned %d", again);
	pd_destroy(c);
	KT_EXPECT_EQ(t, atomic_read(&c->runs[n]) + atomic_read(&c->cancels[n]),
		     again);
	pd_check(t, c);
out:
	pd_teardown(c);
}

/*
 * delay.h "@ORDSCHED_DELAY_CANCEL_PENDING: cancel them all, reporting
 * each to the scheduler's @cancelled callback"; "@cancelled: called,
 * in process context, for each task that ordsched_delay_stop() ... cancels;
 * the task is the caller's again" (it frees them here); "@cancels:
 * tasks cancelled, by ordsched_delay_cancel() or by a stop".
 */
static void stop_cancel_reports_each(struct ktest *t)
{
	struct pd_ctx *c = pd_setup(t, 0);
	struct ordsched_delay_stats st;
	unsigned int n = 45;

	if (!c)
		return;
	if (!pd_queue_far(t, c, n, true))
		goto out;
	ordsched_delay_stop(c->d, ORDSCHED_DELAY_CANCEL_PENDING);
	pd_check_ends(t, c, n, 0, 1);
	KT_EXPECT_EQ(t, atomic_read(&c->cancelled), n);
	ordsched_delay_get_stats(c->d, &st);
	KT_EXPECT_EQ(t, st.cancels, n);
	KT_EXPECT_EQ(t, st.pending, 0);
	KT_EXPECT_EQ(t, st.inflight, 0);
	pd_destroy(c);
	KT_EXPECT_EQ(t, atomic_read(&c->cancelled), n);
	pd_check(t, c);
out:
	pd_teardown(c);
}

/*
 * delay.h: %ORDSCHED_DELAY_CANCEL_PENDING "cancels them" (the pending
 * tasks), and only "tasks already handed to their target run". Tasks due
 * a few milliseconds after the call are still waiting when it begins: all
 * are cancelled, none runs, although they fall due while the stop waits
 * for a grace period (which used to let the timer hand them over).
 */
static void stop_cancel_before_due(struct ktest *t)
{
	struct pd_ctx *c = pd_setup(t, 0);
	unsigned int n = 32, i;
	u64 due;

	if (!c)
		return;
	due = ktime_get_ns() + 5 * PD_MS;
	for (i = 0; i < n; i++)
		KT_EXPECT(t, pd_at(c, pd_task(c, i, PD_WQ), due));
	if (ktime_get_ns() > due - PD_MS) {
		ktest_skip(t, "too slow to queue before the deadline");
		ordsched_delay_stop(c->d, ORDSCHED_DELAY_CANCEL_PENDING);
		goto out;
	}
	ordsched_delay_stop(c->d, ORDSCHED_DELAY_CANCEL_PENDING);
	pd_check_ends(t, c, n, 0, 1);
	KT_EXPECT_EQ(t, atomic_read(&c->cancelled), n);
	pd_check(t, c);
out:
	pd_teardown(c);
}

static int pd_destroy_thread(void *data, unsigned int idx)
{
	struct pd_ctx *c = data;
	static bool destroyed;

	if (idx == 0) {
		WRITE_ONCE(destroyed, false);
		pd_destroy(c);
		WRITE_ONCE(destroyed, true);
		return 0;
	}
	msleep(300);
	/* Handed-over tasks are held up: destroy must still be waiting. */
	if (READ_ONCE(destroyed))
		return -EBUSY;
	pd_unblock(c);
	return 0;
}

/*
 * ordsched.h "X_destroy() drain and free: returns only when nothing of
 * the instance runs or will run ... work that waits for the clock ... is
 * handed back (pending delays to @cancelled)"; delay.h "destroy
 * cancels the pending tasks (reporting each to @cancelled) and waits for
 * those handed over". Tasks free themselves (KASAN sees a later touch).
 */
static void destroy_cancels_waiting_runs_handed(struct ktest *t)
{
	struct pd_ctx *c = pd_setup(t, 0);
	struct ordsched_delay_stats st;
	unsigned int i, n = 30, handed = 4;

	if (!c)
		return;
	if (!pd_queue_far(t, c, n, true))
		goto out;
	pd_block(t, c, PD_WQ);
	for (i = n; i < n + handed; i++) {
		struct pd_task *p = pd_owned(c, i, PD_WQ);

		if (KT_EXPECT(t, p))
			KT_EXPECT(t, pd_after(c, p, 0));
	}
	KT_EXPECT(t, pd_poll(c, &st, st.dispatched == handed));
	KT_EXPECT_EQ(t, kt_run_threads(2, pd_destroy_thread, c), 0);
	KT_EXPECT(t, !c->d);
	for (i = 0; i < n + handed; i++) {
		bool h = i >= n;

		if (!KT_EXPECT_EQ(t, atomic_read(&c->runs[i]), h) ||
		    !KT_EXPECT_EQ(t, atomic_read(&c->cancels[i]), !h)) {
			ktest_diag(t, "task %u", i);
			break;
		}
	}
	pd_check(t, c);
out:
	pd_teardown(c);
}

/*
 * delay.h "@name: shown in debugfs and tracepoints (copied; may be
 * NULL)"; "@cancelled ... (may be NULL)"; destroy "cancels the
 * pending tasks": without @cancelled they are still the caller's again, to
 * queue on another scheduler.
 */
static void destroy_without_cancelled_returns_tasks(struct ktest *t)
{
	struct pd_ctx *c = pd_setup(t, 0);
	struct ordsched_delay_params dp = { .slack_ns = PD_MS };
	struct ordsched_delay *d;
	enum pd_target tg;
	char *name;

	if (!c)
		return;
	name = kstrdup("promise_delay_named", GFP_KERNEL);
	dp.name = name;
	d = ordsched_delay_create(&dp);
	kfree(name);
	if (!KT_EXPECT(t, !IS_ERR(d)))
		goto out;
	for (tg = 0; tg < PD_NR_TARGETS; tg++) {
		struct pd_task *p = pd_task(c, tg, tg);

		pd_note(c, p, KTIME_MAX);
		KT_EXPECT(t, ordsched_delay_queue(d, &p->task, PD_FAR));
	}
	ordsched_delay_destroy(d);
	dp.name = NULL;
	d = ordsched_delay_create(&dp);
	if (KT_EXPECT(t, !IS_ERR(d))) {
		pd_expect(c, PD_NR_TARGETS);
		for (tg = 0; tg < PD_NR_TARGETS; tg++) {
			struct pd_task *p = pd_task(c, tg, tg);

			pd_note(c, p, 0);
			KT_EXPECT(t, ordsched_delay_queue(d, &p->task, 0));
		}
		pd_wait(t, c);
		ordsched_delay_destroy(d);
	}
	pd_check_ends(t, c, PD_NR_TARGETS, 1, 0);
	pd_check(t, c);
out:
	pd_teardown(c);
}

/*
 * delay.h "one beyond KTIME_MAX is clamped to it (never due;
 * ordsched_delay_stop() still ends it)"; the same for a delay;
 * a modify "as for ordsched_delay_queue_at()"; task_deadline()
 * "KTIME_MAX if clamped".
 */
static void beyond_ktime_max_is_clamped(struct ktest *t)
{
	struct pd_ctx *c = pd_setup(t, 0);
	struct ordsched_delay_stats st;
	struct pd_task *p[4];
	unsigned int i;

	if (!c)
		return;
	for (i = 0; i < 4; i++)
		p[i] = pd_task(c, i, i % PD_NR_TARGETS);
	pd_expect(c, 4);
	KT_EXPECT(t, pd_after(c, p[0], U64_MAX));
	KT_EXPECT(t, pd_after(c, p[1], KTIME_MAX));
	KT_EXPECT(t, pd_at(c, p[2], (u64)KTIME_MAX + 1));
	KT_EXPECT(t, !pd_mod(c, p[3], U64_MAX));
	for (i = 0; i < 4; i++)
		KT_EXPECT_EQ(t, ordsched_delay_task_deadline(&p[i]->task),
			     KTIME_MAX);
	msleep(50);
	KT_EXPECT_EQ(t, atomic_read(&c->ran), 0);
	WRITE_ONCE(c->allow_early, true);
	ordsched_delay_stop(c->d, ORDSCHED_DELAY_RUN_PENDING);
	pd_wait(t, c);
	pd_check_ends(t, c, 4, 1, 0);
	KT_EXPECT(t, pd_poll(c, &st, st.ran == 4));
	KT_EXPECT_EQ(t, st.run_early, 4);
	pd_check(t, c);
	pd_teardown(c);
}

/* Hook: queue itself again, 3 more times, within a millisecond. */
static void pd_requeue(struct pd_task *p)
{
	struct pd_ctx *c = p->c;

	if (atomic_read(&c->runs[p->id]) < 4 &&
	    !pd_after(c, p, (p->id % 2) * PD_MS))
		atomic_inc(&c->bad_store);	/* counted as a failure */
}

/*
 * delay.h "The task is the caller's again when this function is
 * called: it may free the task (where its context allows) or queue it
 * again." Every target queues itself again from its function; tasks on
 * a workqueue or a stream free themselves (KASAN sees a later touch).
 */
static void fn_may_requeue_or_free(struct ktest *t)
{
	struct pd_ctx *c = pd_setup(t, 0);
	struct ordsched_delay_stats st;
	enum pd_target tg;

	if (!c)
		return;
	pd_expect(c, 4 * 2 * PD_NR_TARGETS + 2);
	for (tg = 0; tg < PD_NR_TARGETS; tg++) {
		unsigned int i;

		for (i = 0; i < 2; i++) {
			struct pd_task *p = pd_task(c, 2 * tg + i, tg);

			p->hook = pd_requeue;
			KT_EXPECT(t, pd_after(c, p, i * PD_MS));
		}
		if (tg != PD_IRQ) {
			struct pd_task *o = pd_owned(c, 2 * PD_NR_TARGETS + tg, tg);

			if (KT_EXPECT(t, o))
				KT_EXPECT(t, pd_after(c, o, tg * PD_MS));
		}
	}
	pd_wait(t, c);
	pd_check_ends(t, c, 2 * PD_NR_TARGETS, 4, 0);
	KT_EXPECT(t, pd_poll(c, &st, st.ran == 4 * 2 * PD_NR_TARGETS + 2));
	KT_EXPECT_EQ(t, st.queued, 4 * 2 * PD_NR_TARGETS + 2);
	pd_check(t, c);
	pd_teardown(c);
}

/* ---- From hard interrupt ------------------------------------------------ */

struct pd_irq_call {
	struct hrtimer timer;
	struct pd_ctx *c;
	bool in_irq;
	bool ret[8];
	u64 mod_when;
	struct completion done;
};

static enum hrtimer_restart pd_irq_call_fn(struct hrtimer *timer)
{
	struct pd_irq_call *ic = container_of(timer, struct pd_irq_call, timer);
	struct pd_ctx *c = ic->c;
	struct pd_task *p[5];
	unsigned int i;

	ic->in_irq = in_hardirq() && irqs_disabled();
	for (i = 0; i < 5; i++)		/* task init in any context */
		p[i] = pd_task(c, i, i % PD_NR_TARGETS);
	ic->ret[0] = pd_at(c, p[0], 0);
	ic->ret[1] = pd_after(c, p[1], 10 * PD_MS);
	ic->ret[2] = pd_after(c, p[2], PD_FAR);
	ic->ret[3] = ordsched_delay_cancel(c->d, &p[2]->task);
	ic->ret[4] = pd_after(c, p[3], PD_FAR);
	ic->mod_when = pd_now() + 20 * PD_MS;
	ic->ret[5] = pd_mod(c, p[3], ic->mod_when);
	ic->ret[6] = !ordsched_delay_queue(c->d, &p[1]->task, 0);
	ic->ret[7] = !pd_mod(c, p[4], 0);
	complete(&ic->done);
	return HRTIMER_NORESTART;
}

/*
 * delay.h "Contexts: queue, modify and cancel in any context, hard
 * interrupt included; task init in any context"; "Context: any
 * context, hard interrupt included." (queue_at, queue, mod_at, mod,
 * cancel). All from an hrtimer callback in hard interrupt.
 */
static void calls_from_hard_interrupt(struct ktest *t)
{
	struct pd_ctx *c = pd_setup(t, 0);
	struct pd_irq_call *ic = kzalloc(sizeof(*ic), GFP_KERNEL);
	unsigned int i;

	if (!KT_EXPECT(t, c && ic))
		goto out;
	ic->c = c;
	init_completion(&ic->done);
	pd_expect(c, 4);
	ordsched_hrtimer_setup(&ic->timer, pd_irq_call_fn, CLOCK_MONOTONIC,
			       HRTIMER_MODE_REL_HARD);
	hrtimer_start(&ic->timer, ns_to_ktime(PD_MS), HRTIMER_MODE_REL_HARD);
	KT_EXPECT(t, wait_for_completion_timeout(&ic->done, PD_WAIT));
	hrtimer_cancel(&ic->timer);
	KT_EXPECT(t, ic->in_irq);
	for (i = 0; i < ARRAY_SIZE(ic->ret); i++)
		if (!KT_EXPECT(t, ic->ret[i]))
			ktest_diag(t, "call %u in hard interrupt", i);
	pd_wait(t, c);
	KT_EXPECT_EQ(t, ordsched_delay_task_deadline(&c->tasks[3].task),
		     ic->mod_when);
	KT_EXPECT_EQ(t, atomic_read(&c->runs[0]), 1);
	KT_EXPECT_EQ(t, atomic_read(&c->runs[1]), 1);
	KT_EXPECT_EQ(t, atomic_read(&c->runs[2]), 0);
	KT_EXPECT_EQ(t, atomic_read(&c->runs[3]), 1);
	KT_EXPECT_EQ(t, atomic_read(&c->runs[4]), 1);
	pd_check(t, c);
out:
	pd_teardown(c);
	kfree(ic);
}

/* ---- Streams ------------------------------------------------------------ */

/*
 * delay.h "a serial stream: the task is queued on the stream when it is
 * due, so it keeps the stream's order relative to the stream's other
 * items". With the stream held up: an item queued before the task is due
 * runs before it, one queued after it was handed over runs after it.
 */
static void stream_task_keeps_stream_order(struct ktest *t)
{
	struct pd_ctx *c = pd_setup(t, 0);
	struct pd_item before, after;
	struct pd_task *p;
	u64 when;

	if (!c)
		return;
	pd_item_init(c, &before, PD_ITEM + 1);
	pd_item_init(c, &after, PD_ITEM + 2);
	p = pd_task(c, 0, PD_STREAM);
	pd_block(t, c, PD_STREAM);
	when = pd_now() + 300 * PD_MS;
	KT_EXPECT(t, pd_at(c, p, when));
	KT_EXPECT(t, ordsched_stream_queue(&c->stream, &before.item));
	if (pd_now() >= when) {
		ktest_skip(t, "too slow to queue before the deadline");
		pd_unblock(c);
		goto out;
	}
	pd_handed(t, c, 0);
	KT_EXPECT(t, ordsched_stream_queue(&c->stream, &after.item));
	pd_unblock(c);
	KT_EXPECT_EQ(t, ordsched_stream_flush(&c->stream), 0);
	KT_EXPECT_EQ(t, atomic_read(&c->next), 4);
	KT_EXPECT_EQ(t, c->order[0], PD_ITEM);
	KT_EXPECT_EQ(t, c->order[1], PD_ITEM + 1);
	KT_EXPECT_EQ(t, c->order[2], 0);
	KT_EXPECT_EQ(t, c->order[3], PD_ITEM + 2);
	pd_check(t, c);
out:
	pd_teardown(c);
}

/* ---- Stats and slack ---------------------------------------------------- */

static u64 pd_late_sum(const struct ordsched_delay_stats *st)
{
	u64 sum = 0;
	unsigned int i;

	for (i = 0; i < ORDSCHED_DELAY_LATE_BUCKETS; i++)
		sum += st->late[i];
	return sum;
}

/*
 * delay.h struct ordsched_delay_stats, field by field, along one
 * scripted history: three queued (a fourth queueing refused), one
 * cancelled waiting, one moved, handed over and taken back, one moved and
 * run, one interrupt task run, two run early by a stop in RUN mode.
 * "@queued: tasks accepted by ordsched_delay_queue() and _queue_at()",
 * "@pending: tasks waiting for their deadline now", "@peak_pending: the
 * most that ever waited at once", "@inflight: tasks queued and neither
 * finished nor cancelled", "@dispatched: tasks handed over to their
 * target", "@direct: of those, tasks the hrtimer callback handed over
 * itself", "@max_batch: the most tasks one wake-up handed over",
 * "@modified: modifies that found the task queued and moved it",
 * "@cancels", "@cancels_handed", "@ran: tasks whose function returned",
 * "@ran_irq: of those, interrupt tasks", "@run_early", "@late: lateness
 * ... of the other tasks" (so the buckets sum to @ran - @run_early),
 * "@armed: ... KTIME_MAX when it is not armed (no task waiting ...)".
 */
static void stats_count_what_happened(struct ktest *t)
{
	struct pd_ctx *c = pd_setup(t, 0);
	struct ordsched_delay_stats st;
	struct pd_task *a, *b, *x, *irq, *e1, *e2;
	u64 far;

	if (!c)
		return;
	a = pd_task(c, 0, PD_WQ);
	b = pd_task(c, 1, PD_WQ);
	x = pd_task(c, 2, PD_STREAM);
	irq = pd_task(c, 3, PD_IRQ);
	e1 = pd_task(c, 4, PD_WQ);
	e2 = pd_task(c, 5, PD_STREAM);
	pd_block(t, c, PD_WQ);
	far = pd_now() + PD_FAR;
	KT_EXPECT(t, pd_after(c, a, PD_FAR));
	KT_EXPECT(t, pd_at(c, b, far));
	KT_EXPECT(t, pd_after(c, x, PD_FAR));
	KT_EXPECT(t, !ordsched_delay_queue_at(c->d, &a->task, far));
	ordsched_delay_get_stats(c->d, &st);
	KT_EXPECT_EQ(t, st.queued, 3);
	KT_EXPECT_EQ(t, st.pending, 3);
	KT_EXPECT_EQ(t, st.peak_pending, 3);
	KT_EXPECT_EQ(t, st.inflight, 3);
	KT_EXPECT_EQ(t, st.dispatched, 0);
	KT_EXPECT_EQ(t, st.modified, 0);
	KT_EXPECT(t, st.armed != KTIME_MAX);

	KT_EXPECT(t, ordsched_delay_cancel(c->d, &x->task));
	ordsched_delay_get_stats(c->d, &st);
	KT_EXPECT_EQ(t, st.pending, 2);
	KT_EXPECT_EQ(t, st.inflight, 2);
	KT_EXPECT_EQ(t, st.cancels, 1);

	KT_EXPECT(t, pd_mod(c, a, pd_now()));
	KT_EXPECT(t, pd_poll(c, &st, st.dispatched == 1));
	KT_EXPECT_EQ(t, st.modified, 1);
	KT_EXPECT_EQ(t, st.pending, 1);
	KT_EXPECT_EQ(t, st.inflight, 2);
	KT_EXPECT(t, ordsched_delay_cancel(c->d, &a->task));
	ordsched_delay_get_stats(c->d, &st);
	KT_EXPECT_EQ(t, st.cancels, 2);
	KT_EXPECT_EQ(t, st.cancels_handed, 1);
	KT_EXPECT_EQ(t, st.inflight, 1);

	pd_expect(c, 1);
	KT_EXPECT(t, pd_mod(c, b, pd_now()));
	KT_EXPECT(t, pd_poll(c, &st, st.dispatched == 2));
	pd_unblock(c);
	pd_wait(t, c);
	KT_EXPECT(t, pd_poll(c, &st, st.ran == 1));
	KT_EXPECT_EQ(t, st.modified, 2);
	KT_EXPECT_EQ(t, st.pending, 0);
	KT_EXPECT_EQ(t, st.inflight, 0);

	pd_expect(c, 1);
	KT_EXPECT(t, pd_at(c, irq, pd_now() + PD_MS));
	pd_wait(t, c);
	KT_EXPECT(t, pd_poll(c, &st, st.ran == 2));
	KT_EXPECT_EQ(t, st.ran_irq, 1);
	KT_EXPECT(t, st.expiries >= 1);
	KT_EXPECT(t, st.batches >= 1);
	KT_EXPECT(t, st.direct >= 1 && st.direct <= st.dispatched);
	KT_EXPECT(t, st.max_batch >= 1 && st.max_batch <= st.dispatched);

	pd_expect(c, 2);
	KT_EXPECT(t, pd_after(c, e1, PD_FAR));
	KT_EXPECT(t, pd_after(c, e2, PD_FAR));
	WRITE_ONCE(c->allow_early, true);
	ordsched_delay_stop(c->d, ORDSCHED_DELAY_RUN_PENDING);
	pd_wait(t, c);
	KT_EXPECT(t, pd_poll(c, &st, st.ran == 4));
	KT_EXPECT_EQ(t, st.queued, 6);
	KT_EXPECT_EQ(t, st.dispatched, 5);
	KT_EXPECT_EQ(t, st.run_early, 2);
	KT_EXPECT_EQ(t, st.cancels, 2);
	KT_EXPECT_EQ(t, st.cancels_handed, 1);
	KT_EXPECT_EQ(t, st.peak_pending, 3);
	KT_EXPECT_EQ(t, st.pending, 0);
	KT_EXPECT_EQ(t, st.inflight, 0);
	KT_EXPECT_EQ(t, pd_late_sum(&st), st.ran - st.run_early);
	KT_EXPECT_EQ(t, st.armed, KTIME_MAX);
	KT_EXPECT_EQ(t, atomic_read(&c->runs[0]), 0);
	KT_EXPECT_EQ(t, atomic_read(&c->runs[1]), 1);
	KT_EXPECT_EQ(t, atomic_read(&c->runs[2]), 0);
	pd_check(t, c);
	pd_teardown(c);
}

/* The hrtimer is armed for @p alone: not KTIME_MAX, by deadline + slack. */
static void pd_check_armed(struct ktest *t, struct pd_ctx *c,
			   struct pd_task *p, u64 slack)
{
	struct ordsched_delay_stats st;

	ordsched_delay_get_stats(c->d, &st);
	if (!KT_EXPECT(t, st.armed != KTIME_MAX) ||
	    !KT_EXPECT(t, st.armed <= p->deadline + slack))
		ktest_diag(t, "armed %llu, deadline %llu, slack %llu",
			   st.armed, p->deadline, slack);
	KT_EXPECT(t, ordsched_delay_cancel(c->d, &p->task));
}

/*
 * delay.h "a task queued with slack may be handed over as late as its
 * deadline plus its slack ... Without a slack of its own a task takes the
 * scheduler's."; "@slack_ns ... (0: exact; more than U32_MAX ns,
 * about 4.3 s, counts as U32_MAX)"; ORDSCHED_DELAY_SLACK_DEFAULT
 * "means the scheduler's"; "@armed: the latest time ... the hrtimer
 * is armed to fire at, KTIME_MAX when it is not armed (no task waiting,
 * ...)". With one task waiting, the hrtimer must fire by its deadline plus
 * its slack; with none waiting it is not armed.
 */
static void slack_check_one(struct ktest *t, u64 slack, unsigned int i,
			    u64 delay, unsigned int how)
{
	struct pd_ctx *c = pd_setup(t, slack);
	u64 own = min_t(u64, slack, U32_MAX);
	struct ordsched_delay_stats st;
	struct pd_task *p;

	if (!c)
		return;
	ordsched_delay_get_stats(c->d, &st);
	KT_EXPECT_EQ(t, st.armed, KTIME_MAX);
	p = pd_task(c, 0, i % PD_NR_TARGETS);
	if (how == 0) {
		KT_EXPECT(t, pd_at(c, p, pd_now() + delay));
	} else if (how == 1) {
		KT_EXPECT(t, pd_range(c, p, pd_now() + delay,
				      ORDSCHED_DELAY_SLACK_DEFAULT,
				      ORDSCHED_DELAY_QUEUE_NEW));
	} else {
		KT_EXPECT(t, pd_range(c, p, pd_now() + delay, 3 * PD_MS,
				      ORDSCHED_DELAY_QUEUE_NEW));
		own = 3 * PD_MS;
	}
	pd_check_armed(t, c, p, own);
	pd_check(t, c);
	pd_teardown(c);
}

/*
 * Each queueing on a fresh scheduler: a cancel leaves @armed as it was
 * (see below), so a second queueing's check on the same one would read
 * the first's earlier time and pass whatever the timer was armed for.
 * The scheduler's slack, then the queueing's: its own, the scheduler's by
 * ORDSCHED_DELAY_SLACK_DEFAULT, 3 ms; a near deadline and a far one (a
 * far wheel's stop).
 */
static void slack_bounds_the_wakeup(struct ktest *t)
{
	static const u64 slacks[] = { 0, 5 * PD_MS, U64_MAX };
	unsigned int i, how;
	u64 delay;

	for (i = 0; i < ARRAY_SIZE(slacks); i++)
		for (delay = 200 * PD_MS; delay <= 30 * NSEC_PER_SEC;
		     delay *= 150)
			for (how = 0; how < 3; how++)
				slack_check_one(t, slacks[i], i, delay, how);
}

/*
 * delay.h, @armed: "KTIME_MAX when it is not armed. A cancel, or a move to
 * a later deadline, leaves it armed: it fires, finds nothing due, and is
 * armed again for the tasks left, if any wait"; @pending: "tasks waiting
 * for their deadline now". Once the only task has run (and a flush has
 * returned), or has been cancelled 200 ms before its deadline and the
 * timer has fired since, nothing is armed: each on a fresh scheduler.
 */
static void armed_clear_when_nothing_waits(struct ktest *t)
{
	struct ordsched_delay_stats st;
	unsigned int cancel;
	u64 expiries;

	for (cancel = 0; cancel < 2; cancel++) {
		struct pd_ctx *c = pd_setup(t, 0);
		struct pd_task *p;

		if (!c)
			return;
		p = pd_task(c, 0, PD_WQ);
		pd_expect(c, 1);
		ordsched_delay_get_stats(c->d, &st);
		expiries = st.expiries;
		KT_EXPECT(t, pd_after(c, p, cancel ? 200 * PD_MS : PD_MS));
		if (cancel)
			KT_EXPECT(t, ordsched_delay_cancel(c->d, &p->task));
		else
			pd_wait(t, c);
		KT_EXPECT_EQ(t, ordsched_delay_flush(c->d), 0);
		KT_EXPECT(t, pd_poll(c, &st, st.expiries > expiries));
		KT_EXPECT_EQ(t, st.pending, 0);
		KT_EXPECT_EQ(t, st.inflight, 0);
		if (!KT_EXPECT_EQ(t, st.armed, KTIME_MAX))
			ktest_diag(t, "%s: armed %lld ns from now",
				   cancel ? "cancelled" : "run",
				   (s64)(st.armed - pd_now()));
		pd_check(t, c);
		pd_teardown(c);
	}
}

/* ---- Exactly once, under contention ----------------------------------- */

#define PD_STRESS_TASKS	24

static int pd_stress_thread(void *data, unsigned int idx)
{
	struct pd_ctx *c = data;
	unsigned long end = jiffies + msecs_to_jiffies(500);
	u32 rnd = 0x85ebca6b + idx;

	while (time_before(jiffies, end)) {
		unsigned int id = kt_rand(&rnd) % PD_STRESS_TASKS;
		struct ordsched_delay_task *task = &c->tasks[id].task;
		atomic_t *out = &c->outstanding[id];
		u64 delay = kt_rand(&rnd) % (2 * PD_MS);
		enum ordsched_delay_queue_mode mode;
		bool moved;

		/* Count a queueing before it can end; undo if none began. */
		switch (kt_rand(&rnd) % 4) {
		case 0:
			atomic_inc(out);
			if (!ordsched_delay_queue(c->d, task, delay))
				atomic_dec(out);
			break;
		case 1:
			atomic_inc(out);
			if (ordsched_delay_mod(c->d, task, delay))
				atomic_dec(out);	/* moved, not added */
			break;
		case 2:
			if (ordsched_delay_cancel(c->d, task))
				pd_end(c, id);
			break;
		default:
			mode = kt_rand(&rnd) % 2;
			atomic_inc(out);
			moved = mode == ORDSCHED_DELAY_QUEUE_MOD;
			if (ordsched_delay_queue_range(c->d, task,
						       ordsched_delay_from_now(delay),
						       kt_rand(&rnd) % PD_MS,
						       mode) == moved)
				atomic_dec(out);
		}
		if (kt_rand(&rnd) % 64 == 0)
			cond_resched();
	}
	return 0;
}

/*
 * delay.h "every queueing is run exactly once or reported cancelled
 * exactly once (a modify that finds the task pending moves that queueing,
 * it does not add one)"; ordsched.h cancel "never both, never neither".
 * Two CPUs queue, modify and cancel 24 tasks on all targets at random for
 * half a second; destroy reports the rest. Every queueing must have ended
 * once: none twice, none never.
 */
static void every_queueing_ends_once(struct ktest *t)
{
	struct pd_ctx *c = pd_setup(t, 100 * NSEC_PER_USEC);
	unsigned int i;

	if (!c)
		return;
	for (i = 0; i < PD_STRESS_TASKS; i++)
		pd_task(c, i, i % PD_NR_TARGETS)->magic = pd_magic(i);
	c->stress = true;
	atomic_set(&c->expect, INT_MAX);
	KT_EXPECT_EQ(t, kt_run_threads(2, pd_stress_thread, c), 0);
	pd_destroy(c);
	KT_EXPECT_EQ(t, atomic_read(&c->negative), 0);
	for (i = 0; i < PD_STRESS_TASKS; i++) {
		if (!KT_EXPECT_EQ(t, atomic_read(&c->outstanding[i]), 0)) {
			ktest_diag(t, "task %u (%s): %d run, %d reported",
				   i, pd_target_name[i % PD_NR_TARGETS],
				   atomic_read(&c->runs[i]),
				   atomic_read(&c->cancels[i]));
			break;
		}
	}
	ktest_diag(t, "%d runs, %d reported at destroy",
		   atomic_read(&c->ran), atomic_read(&c->cancelled));
	pd_check(t, c);
	pd_teardown(c);
}

static const struct ktest_case promise_delay_cases[] = {
	KT_CASE(never_before_deadline),
	KT_CASE(runs_in_target_context),
	KT_CASE(deadline_then_queueing_order),
	KT_CASE(irq_tasks_few_per_interrupt),
	KT_CASE(queue_twice_is_refused),
	KT_CASE(mod_moves_or_queues),
	KT_CASE(mod_of_running_task_queues_again),
	KT_CASE(cancel_takes_back_unstarted),
	KT_CASE(cancel_sync_waiting_and_idle),
	KT_CASE(cancel_sync_outwaits_run),
	KT_CASE(flush_waits_for_earlier),
	KT_CASE(flush_not_for_later_or_cancelled),
	KT_CASE(flush_is_killable),
	KT_CASE(flush_after_killed_flushes),
	KT_CASE(waits_end_with_default_wq_full),
	KT_CASE(concurrent_flush_waits_for_meanwhile),
	KT_CASE(stop_run_hands_all_over),
	KT_CASE(stop_cancel_reports_each),
	KT_CASE(stop_cancel_before_due),
	KT_CASE(destroy_cancels_waiting_runs_handed),
	KT_CASE(destroy_without_cancelled_returns_tasks),
	KT_CASE(beyond_ktime_max_is_clamped),
	KT_CASE(fn_may_requeue_or_free),
	KT_CASE(calls_from_hard_interrupt),
	KT_CASE(stream_task_keeps_stream_order),
	KT_CASE(stats_count_what_happened),
	KT_CASE(slack_bounds_the_wakeup),
	KT_CASE(armed_clear_when_nothing_waits),
	KT_CASE(every_queueing_ends_once),
	KT_END
};

const struct ktest_suite ordsched_promise_delay_suite =
	KT_SUITE("promise_delay", promise_delay_cases);
