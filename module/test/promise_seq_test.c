// SPDX-License-Identifier: GPL-2.0
/*
 * promise: an independent client of <ordsched.h>, <ordsched/seq.h>,
 * <ordsched/pipeline.h>, <ordsched/stream.h>, <ordsched/keyed.h> and
 * <ordsched/spread.h>, written from the headers alone. Every case quotes
 * the header sentence it checks. No case passes or fails on timing: a wait
 * is bounded only so that a broken promise fails the case instead of
 * hanging the guest.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/jiffies.h>
#include <linux/kmsg_dump.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <ordsched.h>

#include "compat.h"
#include "ktest.h"
#include "suites.h"
#include "util.h"

/* How long a call that the header says returns may take: generous. */
#define TMO		(5 * HZ)
/* How long a callback blocks at most, waiting for the case to release it. */
#define BLOCK_TMO	(10 * HZ)

/*
 * The fixtures that embed work items or streams are static, not on the
 * stack: debug objects refuse unannotated work items on the stack, and the
 * frames would be too large. Each case runs once, one at a time.
 */

#define KT_FAIL(t, fmt, ...) ktest_fail(t, __FILE__, __LINE__, fmt, ##__VA_ARGS__)

/* ------------------------------------------------------------------------
 * Shared helpers: a call on a thread of its own, hard and soft irq calls.
 */

/* Block a callback until the case releases it, bounded. */
static bool block_on(struct completion *c)
{
	return wait_for_completion_timeout(c, BLOCK_TMO);
}

static bool wait_done(struct completion *c)
{
	return wait_for_completion_timeout(c, TMO);
}

/* A call (flush, destroy, queue_wait...) made on a killable kthread. */
struct async {
	int (*fn)(void *data);
	void *data;
	struct task_struct *task;
	/* The thread, once it runs. */
	struct task_struct *running;
	struct completion done;
	int ret;
};

static int async_thread(void *arg)
{
	struct async *a = arg;

	allow_signal(SIGKILL);
	WRITE_ONCE(a->running, current);
	a->ret = a->fn(a->data);
	complete(&a->done);
	return 0;
}

static struct async *async_start(struct ktest *t, int (*fn)(void *), void *data)
{
	struct async *a = kzalloc(sizeof(*a), GFP_KERNEL);

	if (!KT_EXPECT(t, a))
		return NULL;
	a->fn = fn;
	a->data = data;
	init_completion(&a->done);
	a->task = kthread_create(async_thread, a, "promise_async");
	if (!KT_EXPECT(t, !IS_ERR(a->task))) {
		kfree(a);
		return NULL;
	}
	get_task_struct(a->task);
	wake_up_process(a->task);
	return a;
}

/* Whether the call went to sleep and stays asleep (it has not returned). */
static bool async_blocked(struct async *a)
{
	return kt_stays_asleep(&a->running, &a->done);
}

static void async_kill(struct async *a)
{
	send_sig(SIGKILL, a->task, 1);
}

/* Wait for the call's return (bounded; killed past it) and its value. */
static int async_end(struct ktest *t, struct async *a)
{
	int ret;

	if (!a)
		return -ENOMEM;
	if (!wait_for_completion_timeout(&a->done, TMO)) {
		KT_FAIL(t, "the call did not return within %d s", TMO / HZ);
		async_kill(a);
		if (!wait_for_completion_timeout(&a->done, TMO)) {
			KT_FAIL(t, "the call ignored SIGKILL: thread leaked");
			return -ETIMEDOUT;
		}
	}
	ret = a->ret;
	put_task_struct(a->task);
	kfree(a);
	return ret;
}

/* A call that must return: made on a thread so that a hang fails. */
static int bounded(struct ktest *t, int (*fn)(void *), void *data)
{
	return async_end(t, async_start(t, fn, data));
}

/*
 * The flush pattern of <ordsched.h>: "X_flush() wait for the items handed
 * over before the call and for no later one; killable: 0 or -EINTR".
 * @later hands over an item after the flush went to sleep (one that does
 * not finish), @finish lets the earlier ones finish; the flush must then
 * return 0 although the later item is still pending. A second flush, which
 * must wait for the later item, is killed and must return -EINTR.
 */
static void check_flush(struct ktest *t, int (*flush)(void *), void *obj,
			void (*later)(void *), void (*finish)(void *), void *ctx)
{
	struct async *a;

	a = async_start(t, flush, obj);
	if (!a)
		return;
	KT_EXPECT(t, async_blocked(a));
	later(ctx);
	finish(ctx);
	KT_EXPECT_EQ(t, async_end(t, a), 0);

	a = async_start(t, flush, obj);
	if (!a)
		return;
	KT_EXPECT(t, async_blocked(a));
	async_kill(a);
	KT_EXPECT_EQ(t, async_end(t, a), -EINTR);
}

/*
 * <ordsched.h> "X_create() make an instance ...; returns an ERR_PTR() on
 * failure": @obj, made from invalid parameters, must be one; an instance
 * made anyway is destroyed.
 */
static void expect_create_failed(struct ktest *t, void *obj,
				 int (*destroy)(void *obj))
{
	if (!KT_EXPECT(t, IS_ERR(obj)) && obj)
		destroy(obj);
}

/* A call in hard interrupt (a hard hrtimer) or softirq (a timer_list). */
struct irq_call {
	struct hrtimer timer;
	struct timer_list tl;
	void (*fn)(void *data);
	void *data;
	struct completion done;
	bool right_context;
};

static enum hrtimer_restart irq_call_hard(struct hrtimer *timer)
{
	struct irq_call *c = container_of(timer, struct irq_call, timer);

	c->right_context = in_hardirq();
	c->fn(c->data);
	complete(&c->done);
	return HRTIMER_NORESTART;
}

static void irq_call_soft(struct timer_list *tl)
{
	struct irq_call *c = container_of(tl, struct irq_call, tl);

	c->right_context = in_serving_softirq() && !in_hardirq();
	c->fn(c->data);
	complete(&c->done);
}

/* Run @fn(@data) in hard interrupt (@hard) or softirq context, and wait. */
static void call_in(struct ktest *t, bool hard, void (*fn)(void *), void *data)
{
	struct irq_call *c = kzalloc(sizeof(*c), GFP_KERNEL);

	if (!KT_EXPECT(t, c))
		return;
	c->fn = fn;
	c->data = data;
	init_completion(&c->done);
	if (hard) {
		ordsched_hrtimer_setup(&c->timer, irq_call_hard,
				       CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
		hrtimer_start(&c->timer, ns_to_ktime(10 * NSEC_PER_USEC),
			      HRTIMER_MODE_REL_HARD);
	} else {
		timer_setup(&c->tl, irq_call_soft, 0);
		mod_timer(&c->tl, jiffies + 1);
	}
	KT_EXPECT(t, wait_done(&c->done));
	if (hard)
		hrtimer_cancel(&c->timer);
	else
		del_timer_sync(&c->tl);
	KT_EXPECT(t, c->right_context);
	kfree(c);
}

static void call_in_hardirq(struct ktest *t, void (*fn)(void *), void *data)
{
	call_in(t, true, fn, data);
}

/* Run @fn(@data) in softirq context (a timer_list callback). */
static void call_in_softirq(struct ktest *t, void (*fn)(void *), void *data)
{
	call_in(t, false, fn, data);
}

/* ------------------------------------------------------------------------
 * The ticket sequencer
 */

#define SQ_MAX	16

/* What the items of a sequencer did, in run order. */
struct sq_rec {
	atomic_t n;
	u64 ran[SQ_MAX];
	struct task_struct *who[SQ_MAX];
	bool worker[SQ_MAX];
	bool not_bh;		/* an item ran with bottom halves enabled */
	bool bad_ticket;	/* @ticket was not the item's */
};

struct sq_item {
	struct ordsched_seq_item item;
	struct sq_rec *rec;
	u64 ticket;
	int runs;
};

static void sq_fn(struct ordsched_seq_item *item, u64 ticket)
{
	struct sq_item *si = container_of(item, struct sq_item, item);
	struct sq_rec *r = si->rec;
	int i = atomic_inc_return(&r->n) - 1;

	si->runs++;
	if (!in_softirq() || in_hardirq())
		r->not_bh = true;
	if (ticket != si->ticket)
		r->bad_ticket = true;
	if (i < SQ_MAX) {
		r->ran[i] = ticket;
		r->who[i] = current;
		r->worker[i] = current->flags & PF_WQ_WORKER;
	}
}

static void sq_items_init(struct sq_item *it, unsigned int nr,
			  struct sq_rec *rec, u64 first)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		it[i] = (struct sq_item){ .rec = rec, .ticket = first + i };
		it[i].item.fn = sq_fn;
	}
}

static struct ordsched_seq *sq_create(struct ktest *t, unsigned int order,
				      unsigned int budget, u64 first,
				      struct workqueue_struct *wq)
{
	struct ordsched_seq_params p = {
		.name = "promise", .first_ticket = first,
		.ring_order = order, .budget = budget, .wq = wq,
	};
	struct ordsched_seq *seq = ordsched_seq_create(&p);

	if (!KT_EXPECT(t, !IS_ERR_OR_NULL(seq)))
		return NULL;
	return seq;
}

/*
 * A sequencer of 1 << @order tickets from 0, default budget, and @nr
 * tickets taken for the items @it, which record into @rec.
 */
static struct ordsched_seq *sq_setup(struct ktest *t, unsigned int order,
				     struct sq_item *it, unsigned int nr,
				     struct sq_rec *rec, u64 *first)
{
	struct ordsched_seq *seq = sq_create(t, order, 0, 0, NULL);

	if (!seq)
		return NULL;
	KT_EXPECT_EQ(t, ordsched_seq_tickets(seq, nr, first), 0);
	sq_items_init(it, nr, rec, *first);
	return seq;
}

/* Items ran exactly in the order of tickets @first.. @nr, nothing else. */
static void sq_expect_ran(struct ktest *t, struct sq_rec *rec, u64 first,
			  unsigned int nr)
{
	unsigned int i;

	KT_EXPECT_EQ(t, atomic_read(&rec->n), nr);
	for (i = 0; i < nr && i < SQ_MAX; i++)
		KT_EXPECT_EQ(t, rec->ran[i], first + i);
	KT_EXPECT(t, !rec->not_bh);
	KT_EXPECT(t, !rec->bad_ticket);
}

static int sq_flush(void *seq)
{
	return ordsched_seq_flush(seq);
}

static int sq_destroy(void *seq)
{
	ordsched_seq_destroy(seq);
	return 0;
}

/*
 * seq.h "X_create() ... returns an ERR_PTR() on failure" with
 * seq.h "@ring_order: the window holds 1 << @ring_order tickets (0:
 * default 10, at most 20)": 21 is not a valid order.
 */
static void seq_create_rejects_ring_order_21(struct ktest *t)
{
	struct ordsched_seq_params p = { .ring_order = 21 };

	expect_create_failed(t, ordsched_seq_create(&p), sq_destroy);
}

/*
 * seq.h "Items run strictly in ticket order, by whichever thread hands
 * in the item at the tail, with no consumer thread: that thread runs its
 * own item and then every item that later tickets parked meanwhile, up to
 * a budget"; seq.h "@first_ticket: the first ticket handed out";
 * seq.h "Items run with bottom halves disabled"; and the counters of
 * struct ordsched_seq_stats for that one inline drain.
 */
static void seq_tail_handin_runs_parked_items_inline(struct ktest *t)
{
	struct ordsched_seq_stats st;
	struct sq_rec rec = {};
	struct sq_item it[8];
	struct ordsched_seq *seq;
	u64 first = 0;
	int i;

	seq = sq_create(t, 0, 0, 1000, NULL);
	if (!seq)
		return;
	KT_EXPECT_EQ(t, ordsched_seq_tickets(seq, 8, &first), 0);
	KT_EXPECT_EQ(t, first, 1000);
	sq_items_init(it, 8, &rec, first);
	for (i = 7; i >= 1; i--) {
		KT_EXPECT(t, ordsched_seq_queue(seq, first + i, &it[i].item));
		KT_EXPECT_EQ(t, atomic_read(&rec.n), 0);
	}
	KT_EXPECT(t, ordsched_seq_queue(seq, first, &it[0].item));
	/* Run by this thread before its hand-in returned. */
	sq_expect_ran(t, &rec, first, 8);
	for (i = 0; i < 8; i++)
		KT_EXPECT(t, rec.who[i] == current);
	ordsched_seq_get_stats(seq, &st);
	KT_EXPECT_EQ(t, st.tickets, 8);
	KT_EXPECT_EQ(t, st.parked, 7);
	KT_EXPECT_EQ(t, st.inline_drains, 1);
	KT_EXPECT_EQ(t, st.inline_runs, 8);
	KT_EXPECT_EQ(t, st.handoffs, 0);
	KT_EXPECT_EQ(t, st.cancelled, 0);
	KT_EXPECT_EQ(t, st.overflows, 0);
	ordsched_seq_destroy(seq);
}

/*
 * seq.h "Tickets live in a window of ring_size tickets ahead of the
 * tail: taking a ticket beyond it fails with -EAGAIN (backpressure, never
 * a lost ticket, never a spin)"; seq.h "Return: 0, or -EAGAIN when
 * the window is full"; @overflows "ticket requests refused because the
 * window was full".
 */
static void seq_full_window_eagain_loses_no_ticket(struct ktest *t)
{
	struct ordsched_seq_stats st;
	struct ordsched_seq *seq;
	u64 first = 0, x = 0;
	int i;

	seq = sq_create(t, 2, 0, 0, NULL);
	if (!seq)
		return;
	KT_EXPECT_EQ(t, ordsched_seq_tickets(seq, 4, &first), 0);
	KT_EXPECT_EQ(t, ordsched_seq_ticket(seq, &x), -EAGAIN);
	/* More than the window can ever hold: refused, nothing taken. */
	KT_EXPECT(t, ordsched_seq_tickets(seq, 5, &x) < 0);
	ordsched_seq_get_stats(seq, &st);
	KT_EXPECT_EQ(t, st.tickets, 4);
	KT_EXPECT(t, st.overflows >= 1);
	/* The tail moves on: one ticket of room, the very next ticket. */
	KT_EXPECT(t, ordsched_seq_cancel(seq, first));
	KT_EXPECT_EQ(t, ordsched_seq_ticket(seq, &x), 0);
	KT_EXPECT_EQ(t, x, first + 4);
	KT_EXPECT_EQ(t, ordsched_seq_ticket(seq, &x), -EAGAIN);
	for (i = 1; i <= 4; i++)
		KT_EXPECT(t, ordsched_seq_cancel(seq, first + i));
	KT_EXPECT_EQ(t, ordsched_seq_flush(seq), 0);
	ordsched_seq_destroy(seq);
}

struct sq_wait {
	struct ordsched_seq *seq;
	u64 ticket;
	/* How many tickets to take: 0 means 1. */
	unsigned int n;
};

static int sq_tickets_wait(void *data)
{
	struct sq_wait *w = data;

	return ordsched_seq_tickets_wait(w->seq, w->n ?: 1, &w->ticket);
}

static int sq_tickets_wait_n(void *data)
{
	struct sq_wait *w = data;

	return ordsched_seq_tickets_wait(w->seq, w->n, &w->ticket);
}

/*
 * seq.h ordsched_seq_tickets_wait() "-EINVAL for a bad @n" (@n "from 1
 * to the ring size"): none, or one more than the ring holds, answers at
 * once (bounded: a wait for room that can never come would hang) and
 * takes nothing: the next ticket is still the tail.
 */
static void seq_tickets_wait_bad_n_einval(struct ktest *t)
{
	struct sq_wait w = {};
	u64 next = 0;

	w.seq = sq_create(t, 2, 0, 0, NULL);
	if (!w.seq)
		return;
	w.n = 0;
	KT_EXPECT_EQ(t, bounded(t, sq_tickets_wait_n, &w), -EINVAL);
	w.n = 5;
	KT_EXPECT_EQ(t, bounded(t, sq_tickets_wait_n, &w), -EINVAL);
	w.n = 4;
	KT_EXPECT_EQ(t, bounded(t, sq_tickets_wait_n, &w), 0);
	KT_EXPECT_EQ(t, w.ticket, 0);
	KT_EXPECT_EQ(t, ordsched_seq_tickets(w.seq, 1, &next), -EAGAIN);
	for (next = 0; next < 4; next++)
		KT_EXPECT(t, ordsched_seq_cancel(w.seq, next));
	KT_EXPECT_EQ(t, bounded(t, sq_flush, w.seq), 0);
	ordsched_seq_destroy(w.seq);
}

/*
 * seq.h "ordsched_seq_tickets_wait() sleeps for room instead" (of
 * failing with -EAGAIN), and then hands out the next ticket; @overflows
 * "ticket requests refused because the window was full": a wait that got
 * its ticket was refused nothing.
 */
static void seq_tickets_wait_sleeps_for_room(struct ktest *t)
{
	struct ordsched_seq_stats st;
	struct sq_wait w = {};
	struct async *a;
	u64 first = 0;
	int i;

	w.seq = sq_create(t, 2, 0, 0, NULL);
	if (!w.seq)
		return;
	KT_EXPECT_EQ(t, ordsched_seq_tickets(w.seq, 4, &first), 0);
	a = async_start(t, sq_tickets_wait, &w);
	if (a) {
		KT_EXPECT(t, async_blocked(a));
		KT_EXPECT(t, ordsched_seq_cancel(w.seq, first));
		KT_EXPECT_EQ(t, async_end(t, a), 0);
		KT_EXPECT_EQ(t, w.ticket, first + 4);
		ordsched_seq_get_stats(w.seq, &st);
		KT_EXPECT_EQ(t, st.overflows, 0);
	}
	for (i = 1; i <= 4; i++)
		ordsched_seq_cancel(w.seq, first + i);
	KT_EXPECT_EQ(t, bounded(t, sq_flush, w.seq), 0);
	ordsched_seq_destroy(w.seq);
}

/*
 * seq.h ordsched_seq_tickets_wait() "Return: 0, -EINTR if a fatal signal
 * came first": a wait for room that is killed takes no ticket, so the
 * window it waited on is as it was: the next ticket is the one after the
 * four taken, and the sequencer drains once they are handed in.
 */
static void seq_tickets_wait_killed_takes_nothing(struct ktest *t)
{
	struct sq_wait w = {};
	struct async *a;
	u64 first = 0, next = 0;
	int i;

	w.seq = sq_create(t, 2, 0, 0, NULL);
	if (!w.seq)
		return;
	KT_EXPECT_EQ(t, ordsched_seq_tickets(w.seq, 4, &first), 0);
	a = async_start(t, sq_tickets_wait, &w);
	if (a) {
		KT_EXPECT(t, async_blocked(a));
		async_kill(a);
		KT_EXPECT_EQ(t, async_end(t, a), -EINTR);
	}
	for (i = 0; i < 4; i++)
		KT_EXPECT(t, ordsched_seq_cancel(w.seq, first + i));
	KT_EXPECT_EQ(t, ordsched_seq_ticket(w.seq, &next), 0);
	KT_EXPECT_EQ(t, next, first + 4);
	KT_EXPECT(t, ordsched_seq_cancel(w.seq, next));
	KT_EXPECT_EQ(t, bounded(t, sq_flush, w.seq), 0);
	ordsched_seq_destroy(w.seq);
}

/*
 * seq.h on ordsched_seq_queue() "Return: true; false (with a warning) if
 * @ticket was handed in before or never taken": a ticket inside the
 * window that was never taken is refused and its item never runs; the
 * taken ticket still runs, and destroy returns. It warns on purpose.
 */
static void seq_queue_refuses_untaken_ticket(struct ktest *t)
{
	struct sq_rec rec = {}, bad = {};
	struct sq_item it[1], x[1];
	struct ordsched_seq *seq;
	u64 t0 = 0;

	seq = sq_create(t, 2, 0, 0, NULL);
	if (!seq)
		return;
	KT_EXPECT_EQ(t, ordsched_seq_ticket(seq, &t0), 0);
	sq_items_init(it, 1, &rec, t0);
	sq_items_init(x, 1, &bad, t0 + 1);
	KT_EXPECT(t, !ordsched_seq_queue(seq, t0 + 1, &x[0].item));
	KT_EXPECT(t, ordsched_seq_queue(seq, t0, &it[0].item));
	KT_EXPECT_EQ(t, bounded(t, sq_flush, seq), 0);
	sq_expect_ran(t, &rec, t0, 1);
	KT_EXPECT_EQ(t, x[0].runs, 0);
	ordsched_seq_destroy(seq);
}

/*
 * <ordsched.h> "a sequencer ticket is handed in once (false, with a
 * warning)" and seq.h "Return: true; false (with a warning) if @ticket
 * was handed in before or never taken": an alias of a taken ticket one
 * window later, a ticket handed in twice and a cancelled one are refused,
 * and the refused items never run; the parked item handed in first stays
 * and runs. It warns on purpose.
 */
static void seq_queue_refuses_alias_and_repeat(struct ktest *t)
{
	struct sq_rec rec = {}, bad = {};
	struct sq_item it[2], x[4];
	struct ordsched_seq *seq;
	u64 t0 = 0;
	int i;

	seq = sq_setup(t, 2, it, 2, &rec, &t0);
	if (!seq)
		return;
	sq_items_init(x, 4, &bad, 0);
	KT_EXPECT(t, !ordsched_seq_queue(seq, t0 + 4, &x[0].item));
	KT_EXPECT(t, !ordsched_seq_queue(seq, t0 + 5, &x[1].item));
	KT_EXPECT(t, ordsched_seq_queue(seq, t0 + 1, &it[1].item));
	KT_EXPECT(t, !ordsched_seq_queue(seq, t0 + 1, &x[2].item));
	KT_EXPECT(t, ordsched_seq_queue(seq, t0, &it[0].item));
	KT_EXPECT_EQ(t, bounded(t, sq_flush, seq), 0);
	sq_expect_ran(t, &rec, t0, 2);
	/* A cancelled ticket takes no item. */
	KT_EXPECT_EQ(t, ordsched_seq_ticket(seq, &t0), 0);
	KT_EXPECT(t, ordsched_seq_cancel(seq, t0));
	KT_EXPECT(t, !ordsched_seq_queue(seq, t0, &x[3].item));
	for (i = 0; i < 4; i++)
		if (!KT_EXPECT_EQ(t, x[i].runs, 0))
			ktest_diag(t, "x[%d] ran", i);
	ordsched_seq_destroy(seq);
}

/*
 * seq.h "A ticket whose work failed is cancelled: its turn is
 * skipped"; @cancelled "tickets cancelled"; <ordsched.h> cancel
 * "returns true if it will not run": the parked items behind a cancelled
 * tail run at once, those of cancelled tickets never.
 */
static void seq_cancel_skips_the_turn(struct ktest *t)
{
	struct ordsched_seq_stats st;
	struct sq_rec rec = {};
	struct sq_item it[4];
	struct ordsched_seq *seq;
	u64 t0 = 0;

	seq = sq_setup(t, 0, it, 4, &rec, &t0);
	if (!seq)
		return;
	KT_EXPECT(t, ordsched_seq_queue(seq, t0 + 1, &it[1].item));
	KT_EXPECT(t, ordsched_seq_cancel(seq, t0 + 2));
	KT_EXPECT(t, ordsched_seq_queue(seq, t0 + 3, &it[3].item));
	KT_EXPECT_EQ(t, atomic_read(&rec.n), 0);
	KT_EXPECT(t, ordsched_seq_cancel(seq, t0));
	KT_EXPECT_EQ(t, atomic_read(&rec.n), 2);
	KT_EXPECT_EQ(t, rec.ran[0], t0 + 1);
	KT_EXPECT_EQ(t, rec.ran[1], t0 + 3);
	ordsched_seq_get_stats(seq, &st);
	KT_EXPECT_EQ(t, st.cancelled, 2);
	KT_EXPECT_EQ(t, bounded(t, sq_flush, seq), 0);
	ordsched_seq_destroy(seq);
}

/*
 * seq.h on ordsched_seq_cancel() "Return: true; false (with a warning) if
 * @ticket was handed in before or never taken, a bug in the caller", with
 * <ordsched.h> "X_cancel() ... false if it has run, is running or will
 * run": cancelling a ticket whose item has run, or whose item is parked,
 * is refused; the parked item stays and runs in its turn, and a refused
 * cancel is not counted in @cancelled. It warns on purpose.
 */
static void seq_cancel_of_handed_in_ticket(struct ktest *t)
{
	struct ordsched_seq_stats st;
	struct ordsched_seq *seq;
	struct sq_rec rec = {};
	struct sq_item b[3];
	u64 u0 = 0, v0 = 0;

	seq = sq_create(t, 0, 0, 0, NULL);
	if (!seq)
		return;
	KT_EXPECT_EQ(t, ordsched_seq_ticket(seq, &u0), 0);
	sq_items_init(b, 1, &rec, u0);
	KT_EXPECT(t, ordsched_seq_queue(seq, u0, &b[0].item));
	KT_EXPECT(t, !ordsched_seq_cancel(seq, u0));
	ordsched_seq_get_stats(seq, &st);
	KT_EXPECT_EQ(t, st.cancelled, 0);

	KT_EXPECT_EQ(t, ordsched_seq_tickets(seq, 2, &v0), 0);
	sq_items_init(&b[1], 2, &rec, v0);
	KT_EXPECT(t, ordsched_seq_queue(seq, v0 + 1, &b[2].item));
	KT_EXPECT(t, !ordsched_seq_cancel(seq, v0 + 1));
	KT_EXPECT_EQ(t, b[2].runs, 0);
	KT_EXPECT(t, ordsched_seq_cancel(seq, v0));
	KT_EXPECT_EQ(t, bounded(t, sq_flush, seq), 0);
	KT_EXPECT_EQ(t, b[0].runs, 1);
	KT_EXPECT_EQ(t, b[2].runs, 1);
	ordsched_seq_get_stats(seq, &st);
	KT_EXPECT_EQ(t, st.cancelled, 1);
	ordsched_seq_destroy(seq);
}

/* An item that hands in the next one from its own function, then frees itself. */
struct sq_chain_ctx {
	struct ordsched_seq *seq;
	atomic_t runs;
	u64 last;
	bool inside, nested, order_bad, queue_failed;
	struct task_struct *other;	/* a thread other than the expected one */
	struct task_struct *expect;	/* NULL: any thread */
};

struct sq_chain {
	struct ordsched_seq_item item;
	struct sq_chain_ctx *c;
	int left;
};

static void sq_chain_fn(struct ordsched_seq_item *item, u64 ticket)
{
	struct sq_chain *ci = container_of(item, struct sq_chain, item);
	struct sq_chain_ctx *c = ci->c;
	struct sq_chain *next;
	u64 tk;

	if (c->inside)
		c->nested = true;
	c->inside = true;
	if (atomic_read(&c->runs) && ticket != c->last + 1)
		c->order_bad = true;
	c->last = ticket;
	atomic_inc(&c->runs);
	if (c->expect && current != c->expect)
		c->other = current;
	if (ci->left > 0) {
		next = kzalloc(sizeof(*next), GFP_ATOMIC);
		if (next && !ordsched_seq_ticket(c->seq, &tk)) {
			next->item.fn = sq_chain_fn;
			next->c = c;
			next->left = ci->left - 1;
			if (!ordsched_seq_queue(c->seq, tk, &next->item))
				c->queue_failed = true;
		} else {
			kfree(next);
			c->queue_failed = true;
		}
	}
	c->inside = false;
	kfree(ci);	/* seq.h "the function may free it" */
}

/* Start a chain of @len items at a fresh ticket. */
static bool sq_chain_start(struct ktest *t, struct sq_chain_ctx *c, int len)
{
	struct sq_chain *ci = kzalloc(sizeof(*ci), GFP_KERNEL);
	u64 tk;

	if (!KT_EXPECT(t, ci))
		return false;
	ci->item.fn = sq_chain_fn;
	ci->c = c;
	ci->left = len - 1;
	if (!KT_EXPECT_EQ(t, ordsched_seq_ticket(c->seq, &tk), 0)) {
		kfree(ci);
		return false;
	}
	return KT_EXPECT(t, ordsched_seq_queue(c->seq, tk, &ci->item));
}

static void sq_chain_expect(struct ktest *t, struct sq_chain_ctx *c, int len)
{
	KT_EXPECT_EQ(t, atomic_read(&c->runs), len);
	KT_EXPECT(t, !c->nested);
	KT_EXPECT(t, !c->order_bad);
	KT_EXPECT(t, !c->queue_failed);
}

/*
 * seq.h "It may take tickets, queue and cancel on the same sequencer
 * (an item handed in for the next ticket is run after this one returns,
 * by the same drain unless its budget is spent, ...). The sequencer does
 * not touch @item once this function has been called, so the function
 * may free it."
 */
static void seq_fn_hands_in_next_run_by_same_drain(struct ktest *t)
{
	struct sq_chain_ctx c = { .expect = current };

	c.seq = sq_create(t, 0, 0, 0, NULL);
	if (!c.seq)
		return;
	if (sq_chain_start(t, &c, 6)) {
		/* The same (inline) drain: done when the hand-in returns. */
		sq_chain_expect(t, &c, 6);
		KT_EXPECT(t, !c.other);
	}
	KT_EXPECT_EQ(t, bounded(t, sq_flush, c.seq), 0);
	ordsched_seq_destroy(c.seq);
}

/*
 * seq.h "@budget: most items a thread runs inline before it hands the
 * rest to @wq"; seq.h "up to a budget, past which a workqueue takes
 * over"; seq.h "in the thread that completed the tail or in a worker of
 * the sequencer's workqueue"; flush waits for them.
 */
static void seq_budget_hands_the_rest_to_the_workqueue(struct ktest *t)
{
	struct ordsched_seq_stats st;
	struct workqueue_struct *wq;
	struct sq_rec rec = {};
	struct sq_item it[10];
	struct ordsched_seq *seq;
	int i, mine = 0;
	u64 first = 0;

	wq = alloc_workqueue("promise_seq", WQ_UNBOUND, 0);
	if (!KT_EXPECT(t, wq))
		return;
	seq = sq_create(t, 0, 2, 0, wq);
	if (!seq)
		goto out;
	KT_EXPECT_EQ(t, ordsched_seq_tickets(seq, 10, &first), 0);
	sq_items_init(it, 10, &rec, first);
	for (i = 9; i >= 0; i--)
		KT_EXPECT(t, ordsched_seq_queue(seq, first + i, &it[i].item));
	KT_EXPECT_EQ(t, bounded(t, sq_flush, seq), 0);
	sq_expect_ran(t, &rec, first, 10);
	for (i = 0; i < 10; i++)
		mine += rec.who[i] == current;
	KT_EXPECT(t, mine <= 2);
	KT_EXPECT(t, rec.worker[9]);
	ordsched_seq_get_stats(seq, &st);
	KT_EXPECT(t, st.handoffs >= 1);
	KT_EXPECT(t, st.inline_runs <= 2);
	KT_EXPECT_EQ(t, st.inline_runs + st.handoff_runs, 10);
	ordsched_seq_destroy(seq);
out:
	destroy_workqueue(wq);
}

struct sq_flush_ctx {
	struct ordsched_seq *seq;
	struct sq_rec rec;
	struct sq_item it[2];
	u64 t0, t1;
};

static void sq_flush_later(void *data)
{
	struct sq_flush_ctx *f = data;

	ordsched_seq_ticket(f->seq, &f->t1);
}

static void sq_flush_finish(void *data)
{
	struct sq_flush_ctx *f = data;

	ordsched_seq_queue(f->seq, f->t0, &f->it[0].item);
}

/*
 * seq.h "flush waits for the tickets taken before it, killably" and
 * <ordsched.h> "X_flush() wait for the items handed over before the
 * call and for no later one; killable: 0 or -EINTR".
 */
static void seq_flush_waits_for_earlier_tickets_only(struct ktest *t)
{
	struct sq_flush_ctx f = {};

	f.seq = sq_create(t, 0, 0, 0, NULL);
	if (!f.seq)
		return;
	KT_EXPECT_EQ(t, ordsched_seq_flush(f.seq), 0);
	KT_EXPECT_EQ(t, ordsched_seq_ticket(f.seq, &f.t0), 0);
	sq_items_init(f.it, 2, &f.rec, f.t0);
	check_flush(t, sq_flush, f.seq, sq_flush_later, sq_flush_finish, &f);
	KT_EXPECT_EQ(t, atomic_read(&f.rec.n), 1);
	ordsched_seq_cancel(f.seq, f.t1);
	KT_EXPECT_EQ(t, bounded(t, sq_flush, f.seq), 0);
	ordsched_seq_destroy(f.seq);
}

/*
 * <ordsched.h> "X_destroy() drain and free: returns only when nothing
 * of the instance runs or will run ... Work whose turn can come without
 * the clock is run (sequencer, ...), including work the callbacks hand
 * over meanwhile": a chain of items each handing in the next, past a
 * budget of 1 so that it crosses the workqueue.
 */
static void seq_destroy_runs_work_handed_in_meanwhile(struct ktest *t)
{
	struct sq_chain_ctx c = {};

	c.seq = sq_create(t, 0, 1, 0, NULL);
	if (!c.seq)
		return;
	if (sq_chain_start(t, &c, 40)) {
		ordsched_seq_destroy(c.seq);
		sq_chain_expect(t, &c, 40);
	} else {
		ordsched_seq_destroy(c.seq);
	}
}

/*
 * <ordsched.h> "X_destroy() drain ... returns only when nothing of the
 * instance runs or will run" and seq.h "destroy drains": a destroy
 * that meets a taken ticket waits for its hand-in and runs what was
 * parked behind it.
 */
static void seq_destroy_waits_for_taken_tickets(struct ktest *t)
{
	struct sq_rec rec = {};
	struct ordsched_seq *seq;
	struct sq_item it[2];
	struct async *a;
	u64 t0 = 0;

	seq = sq_setup(t, 0, it, 2, &rec, &t0);
	if (!seq)
		return;
	KT_EXPECT(t, ordsched_seq_queue(seq, t0 + 1, &it[1].item));
	a = async_start(t, sq_destroy, seq);
	if (!a)
		return;
	if (!KT_EXPECT(t, async_blocked(a))) {
		/* It returned with t0 still taken: the sequencer is gone. */
		KT_EXPECT_EQ(t, async_end(t, a), 0);
		KT_EXPECT_EQ(t, atomic_read(&rec.n), 0);
		return;
	}
	KT_EXPECT(t, ordsched_seq_queue(seq, t0, &it[0].item));
	KT_EXPECT_EQ(t, async_end(t, a), 0);
	sq_expect_ran(t, &rec, t0, 2);
}

/* Is there a line in the kernel log holding both @a and @b? */
static bool kmsg_has(const char *a, const char *b)
{
	static char line[512];	/* one case at a time */
	struct kmsg_dump_iter iter;
	size_t len;

	kmsg_dump_rewind(&iter);
	while (kmsg_dump_get_line(&iter, false, line, sizeof(line) - 1, &len)) {
		line[len] = '\0';
		if (strstr(line, a) && strstr(line, b))
			return true;
	}
	return false;
}

/*
 * seq.h destroy: "a ticket never handed in keeps destroy waiting (the
 * kernel log names the ticket it waits for every 10 s)": the first such
 * line names t0, the tail, and its sequencer; then t0's hand-in lets
 * destroy finish. Takes 10 s.
 */
static void seq_destroy_log_names_the_waited_ticket(struct ktest *t)
{
	struct sq_rec rec = {};
	struct ordsched_seq *seq;
	struct sq_item it[3];
	char want[48];
	struct async *a;
	u64 t0 = 0;
	int i;

	seq = sq_create(t, 0, 0, 7770000077ULL, NULL);
	if (!seq)
		return;
	KT_EXPECT_EQ(t, ordsched_seq_tickets(seq, 3, &t0), 0);
	KT_EXPECT_EQ(t, t0, 7770000077ULL);
	sq_items_init(it, 3, &rec, t0);
	KT_EXPECT(t, ordsched_seq_queue(seq, t0 + 1, &it[1].item));
	KT_EXPECT(t, ordsched_seq_queue(seq, t0 + 2, &it[2].item));
	snprintf(want, sizeof(want), " ticket %llu,", t0);
	a = async_start(t, sq_destroy, seq);
	if (!a)
		return;
	if (!KT_EXPECT(t, async_blocked(a))) {
		KT_EXPECT_EQ(t, async_end(t, a), 0);
		return;
	}
	/* 10 s, and as much again for a slow guest. */
	for (i = 0; i < 200 && !kmsg_has("sequencer promise", want); i++)
		msleep(100);
	KT_EXPECT(t, i < 200);
	KT_EXPECT(t, !completion_done(&a->done));
	KT_EXPECT(t, ordsched_seq_queue(seq, t0, &it[0].item));
	KT_EXPECT_EQ(t, async_end(t, a), 0);
	sq_expect_ran(t, &rec, t0, 3);
}

struct sq_ctx_calls {
	struct ordsched_seq *seq;
	struct sq_rec rec;
	struct sq_item it[4];
	u64 t0, t2, t3;
	int r0, r2, r3;
	bool q0, c1, q2, q3;
};

static void sq_take_in_hardirq(void *data)
{
	struct sq_ctx_calls *x = data;

	x->r0 = ordsched_seq_tickets(x->seq, 2, &x->t0);
	x->r2 = ordsched_seq_ticket(x->seq, &x->t2);
}

static void sq_handin_in_softirq(void *data)
{
	struct sq_ctx_calls *x = data;

	x->q0 = ordsched_seq_queue(x->seq, x->t0, &x->it[0].item);
	x->c1 = ordsched_seq_cancel(x->seq, x->t0 + 1);
	x->q2 = ordsched_seq_queue(x->seq, x->t2, &x->it[2].item);
}

/*
 * seq.h "Contexts: tickets in any context, hard interrupt included;
 * hand-ins (ordsched_seq_queue(), ordsched_seq_cancel()) in process or
 * softirq context with interrupts enabled" (lockdep checks the irq
 * safety on the debug kernel).
 */
static void seq_tickets_in_hardirq_handins_in_softirq(struct ktest *t)
{
	struct sq_ctx_calls x = {};
	unsigned long flags;

	x.seq = sq_create(t, 0, 0, 0, NULL);
	if (!x.seq)
		return;
	call_in_hardirq(t, sq_take_in_hardirq, &x);
	KT_EXPECT_EQ(t, x.r0, 0);
	KT_EXPECT_EQ(t, x.r2, 0);
	KT_EXPECT_EQ(t, x.t2, x.t0 + 2);
	local_irq_save(flags);
	x.r3 = ordsched_seq_ticket(x.seq, &x.t3);
	local_irq_restore(flags);
	KT_EXPECT_EQ(t, x.r3, 0);
	sq_items_init(x.it, 4, &x.rec, x.t0);
	call_in_softirq(t, sq_handin_in_softirq, &x);
	KT_EXPECT(t, x.q0);
	KT_EXPECT(t, x.c1);
	KT_EXPECT(t, x.q2);
	local_bh_disable();
	x.q3 = ordsched_seq_queue(x.seq, x.t3, &x.it[3].item);
	local_bh_enable();
	KT_EXPECT(t, x.q3);
	KT_EXPECT_EQ(t, bounded(t, sq_flush, x.seq), 0);
	KT_EXPECT_EQ(t, atomic_read(&x.rec.n), 3);
	KT_EXPECT_EQ(t, x.rec.ran[0], x.t0);
	KT_EXPECT_EQ(t, x.rec.ran[1], x.t0 + 2);
	KT_EXPECT_EQ(t, x.rec.ran[2], x.t0 + 3);
	KT_EXPECT(t, !x.rec.not_bh);
	ordsched_seq_destroy(x.seq);
}

/* Many producers, a small window, random cancels. */
#define SC_THREADS	4
#define SC_PER		100
#define SC_N		(SC_THREADS * SC_PER)

struct sc;

struct sc_item {
	struct ordsched_seq_item item;
	struct sc *sc;
};

struct sc {
	struct ordsched_seq *seq;
	struct sc_item items[SC_N];
	u64 payload[SC_N];
	bool cancelled[SC_N];
	u8 runs[SC_N];
	u64 last;
	atomic_t ran;
	bool order_bad, stale, not_bh;
};

static void sc_fn(struct ordsched_seq_item *item, u64 ticket)
{
	struct sc_item *si = container_of(item, struct sc_item, item);
	struct sc *sc = si->sc;

	if (ticket >= SC_N || si != &sc->items[ticket]) {
		sc->order_bad = true;
		return;
	}
	if (atomic_read(&sc->ran) && ticket <= sc->last)
		sc->order_bad = true;
	/* Its own producer's stores, and those of the item just before. */
	if (sc->payload[ticket] != ticket * 3 + 1 ||
	    (atomic_read(&sc->ran) && sc->last == ticket - 1 &&
	     sc->payload[ticket - 1] != ticket * 3 - 2))
		sc->stale = true;
	sc->last = ticket;
	if (!in_softirq())
		sc->not_bh = true;
	sc->runs[ticket]++;
	atomic_inc(&sc->ran);
}

static int sc_producer(void *data, unsigned int idx)
{
	struct sc *sc = data;
	u32 rnd = idx * 7919 + 1;
	u64 tk;
	int k;

	for (k = 0; k < SC_PER; k++) {
		if (ordsched_seq_tickets_wait(sc->seq, 1, &tk))
			return -EIO;
		if (tk >= SC_N)
			return -ERANGE;
		sc->payload[tk] = tk * 3 + 1;
		kt_spin(kt_rand(&rnd) % 2000);
		if (kt_rand(&rnd) % 7 == 0) {
			sc->cancelled[tk] = true;
			if (!ordsched_seq_cancel(sc->seq, tk))
				return -EBADE;
		} else {
			sc->items[tk].item.fn = sc_fn;
			sc->items[tk].sc = sc;
			if (!ordsched_seq_queue(sc->seq, tk, &sc->items[tk].item))
				return -EBADE;
		}
		if (k % 16 == 0)
			cond_resched();
	}
	return 0;
}

/*
 * seq.h "Items run strictly in ticket order"; seq.h "Ordering: the
 * stores a producer makes before handing in its item are visible to that
 * item's function and to every later item's"; under concurrency, with a
 * window of 8 that the producers keep full.
 */
static void seq_concurrent_producers_strict_order(struct ktest *t)
{
	struct sc *sc = kzalloc(sizeof(*sc), GFP_KERNEL);
	unsigned int i, want = 0;

	if (!KT_EXPECT(t, sc))
		return;
	sc->seq = sq_create(t, 3, 0, 0, NULL);
	if (!sc->seq)
		goto out;
	KT_EXPECT_EQ(t, kt_run_threads(SC_THREADS, sc_producer, sc), 0);
	KT_EXPECT_EQ(t, bounded(t, sq_flush, sc->seq), 0);
	for (i = 0; i < SC_N; i++) {
		KT_EXPECT_EQ(t, sc->runs[i], sc->cancelled[i] ? 0 : 1);
		want += !sc->cancelled[i];
	}
	KT_EXPECT_EQ(t, atomic_read(&sc->ran), want);
	KT_EXPECT(t, !sc->order_bad);
	KT_EXPECT(t, !sc->stale);
	KT_EXPECT(t, !sc->not_bh);
	ordsched_seq_destroy(sc->seq);
out:
	kfree(sc);
}

/* ------------------------------------------------------------------------
 * Ordered execution on a workqueue
 */

#define PL_MAX	64

struct pl_ctx {
	struct ordsched_pipeline *pl;
	atomic_t serial_n, freed;
	int order[PL_MAX];
	u64 last_ticket;
	bool ticket_bad, serial_not_bh, parallel_not_task, err_bad, chain_failed;
};

struct pl_job {
	struct ordsched_job job;
	struct pl_ctx *ctx;
	int idx, want_err, sleep_ms, chain;
	int parallel_runs, serial_runs;
	bool owned;
	struct completion *started, *block;
};

static int pl_parallel(struct ordsched_job *job)
{
	struct pl_job *pj = container_of(job, struct pl_job, job);

	if (!in_task() || in_softirq())
		pj->ctx->parallel_not_task = true;
	if (pj->started)
		complete(pj->started);
	if (pj->block)
		block_on(pj->block);
	if (pj->sleep_ms)
		msleep(pj->sleep_ms);	/* "may sleep" */
	pj->parallel_runs++;
	return pj->want_err;
}

static void pl_serial(struct ordsched_job *job, int err)
{
	struct pl_job *pj = container_of(job, struct pl_job, job), *n;
	struct pl_ctx *c = pj->ctx;
	int i = atomic_inc_return(&c->serial_n) - 1;

	if (i < PL_MAX)
		c->order[i] = pj->idx;
	if (!in_softirq() || in_hardirq())
		c->serial_not_bh = true;
	if (err != pj->want_err || job->err != pj->want_err)
		c->err_bad = true;
	if (i && job->ticket <= c->last_ticket)
		c->ticket_bad = true;
	c->last_ticket = job->ticket;
	pj->serial_runs++;
	if (pj->chain > 0) {
		n = kzalloc(sizeof(*n), GFP_ATOMIC);
		if (n) {
			*n = (struct pl_job){ .ctx = c, .idx = pj->idx + 1,
					      .chain = pj->chain - 1,
					      .sleep_ms = pj->sleep_ms,
					      .owned = true };
			if (!ordsched_pipeline_queue(c->pl, &n->job)) {
				kfree(n);
				c->chain_failed = true;
			}
		} else {
			c->chain_failed = true;
		}
	}
	if (pj->owned) {
		atomic_inc(&c->freed);
		kfree(pj);	/* "The job is the caller's again" */
	}
}

static const struct ordsched_pipeline_ops pl_ops = {
	.parallel = pl_parallel,
	.serial = pl_serial,
};

static struct ordsched_pipeline *pl_create(struct ktest *t, struct pl_ctx *c,
					   unsigned int order,
					   struct workqueue_struct *wq)
{
	struct ordsched_pipeline_params p = {
		.name = "promise", .ops = &pl_ops, .wq = wq,
		.ring_order = order,
	};

	c->pl = ordsched_pipeline_create(&p);
	if (!KT_EXPECT(t, !IS_ERR_OR_NULL(c->pl)))
		c->pl = NULL;
	return c->pl;
}

static void pl_jobs_init(struct pl_job *j, int nr, struct pl_ctx *c)
{
	int i;

	for (i = 0; i < nr; i++)
		j[i] = (struct pl_job){ .ctx = c, .idx = i };
}

static void pl_expect_clean(struct ktest *t, struct pl_ctx *c)
{
	KT_EXPECT(t, !c->ticket_bad);
	KT_EXPECT(t, !c->serial_not_bh);
	KT_EXPECT(t, !c->parallel_not_task);
	KT_EXPECT(t, !c->err_bad);
	KT_EXPECT(t, !c->chain_failed);
}

static int pl_flush(void *pl)
{
	return ordsched_pipeline_flush(pl);
}

static int pl_destroy(void *pl)
{
	ordsched_pipeline_destroy(pl);
	return 0;
}

/*
 * <ordsched.h> "returns an ERR_PTR() on failure" with pipeline.h:
 * "@ops: the steps (required)" and "@ring_order: as in &struct
 * ordsched_seq_params" (at most 20).
 */
static void pipeline_create_rejects_bad_params(struct ktest *t)
{
	struct ordsched_pipeline_params none = { .name = "promise" };
	struct ordsched_pipeline_params big = { .ops = &pl_ops, .ring_order = 21 };

	expect_create_failed(t, ordsched_pipeline_create(&none), pl_destroy);
	expect_create_failed(t, ordsched_pipeline_create(&big), pl_destroy);
}

/*
 * pipeline.h "Every queued job reaches its serial step exactly once,
 * with the error its parallel step returned"; @serial "runs once per job
 * in submission order, with bottom halves disabled"; @parallel "runs on
 * the workqueue, in process context, may sleep, in any order"; @ticket
 * "the job's place in the order", @err "what the parallel step returned".
 */
static void pipeline_serial_in_queue_order_with_errors(struct ktest *t)
{
	struct pl_ctx c = {};
	struct pl_job *j;
	int i;

	j = kcalloc(32, sizeof(*j), GFP_KERNEL);
	if (!KT_EXPECT(t, j))
		return;
	if (!pl_create(t, &c, 0, NULL))
		goto out;
	pl_jobs_init(j, 32, &c);
	for (i = 0; i < 32; i++) {
		j[i].sleep_ms = (31 - i) % 4;
		j[i].want_err = i % 3 ? 0 : -(i % 5 + 1);
		KT_EXPECT(t, ordsched_pipeline_queue(c.pl, &j[i].job));
	}
	KT_EXPECT_EQ(t, bounded(t, pl_flush, c.pl), 0);
	KT_EXPECT_EQ(t, atomic_read(&c.serial_n), 32);
	for (i = 0; i < 32; i++) {
		KT_EXPECT_EQ(t, c.order[i], i);
		KT_EXPECT_EQ(t, j[i].parallel_runs, 1);
		KT_EXPECT_EQ(t, j[i].serial_runs, 1);
		KT_EXPECT_EQ(t, j[i].job.err, j[i].want_err);
		if (i)
			KT_EXPECT(t, j[i].job.ticket > j[i - 1].job.ticket);
	}
	pl_expect_clean(t, &c);
	ordsched_pipeline_destroy(c.pl);
out:
	kfree(j);
}

struct pl_wait {
	struct ordsched_pipeline *pl;
	struct ordsched_job *job;
};

static int pl_queue_wait(void *data)
{
	struct pl_wait *w = data;

	return ordsched_pipeline_queue_wait(w->pl, w->job);
}

/*
 * <ordsched.h> "X_queue() ... false if not (... no room ...)";
 * pipeline.h @ring_order "the window is the most jobs in flight";
 * queue_wait sleeps for room (pipeline.h "queue_wait ... in process
 * context") and the job then runs like any other.
 */
/*
 * A pipeline of a window of two (in @c) whose jobs @j[0] and @j[1] block
 * on @rel, and a queue_wait of @j[2] asleep for room in @a (NULL if it
 * could not start). False if there is no pipeline.
 */
static bool pl_wait_on_full_window(struct ktest *t, struct pl_ctx *c,
				   struct pl_job *j, struct completion *rel,
				   struct pl_wait *w, struct async **a)
{
	init_completion(rel);
	if (!pl_create(t, c, 1, NULL))
		return false;
	pl_jobs_init(j, 3, c);
	j[0].block = rel;
	j[1].block = rel;
	KT_EXPECT(t, ordsched_pipeline_queue(c->pl, &j[0].job));
	KT_EXPECT(t, ordsched_pipeline_queue(c->pl, &j[1].job));
	KT_EXPECT(t, !ordsched_pipeline_queue(c->pl, &j[2].job));
	*w = (struct pl_wait){ .pl = c->pl, .job = &j[2].job };
	*a = async_start(t, pl_queue_wait, w);
	if (*a)
		KT_EXPECT(t, async_blocked(*a));
	return true;
}

static void pipeline_queue_refuses_full_window_then_waits(struct ktest *t)
{
	struct completion rel;
	struct pl_ctx c = {};
	static struct pl_job j[3];
	struct pl_wait w;
	struct async *a;
	int i;

	if (!pl_wait_on_full_window(t, &c, j, &rel, &w, &a))
		return;
	complete_all(&rel);
	if (a)
		KT_EXPECT_EQ(t, async_end(t, a), 0);
	KT_EXPECT_EQ(t, bounded(t, pl_flush, c.pl), 0);
	KT_EXPECT_EQ(t, atomic_read(&c.serial_n), a ? 3 : 2);
	for (i = 0; i < 3; i++)
		KT_EXPECT_EQ(t, c.order[i], i);
	KT_EXPECT_EQ(t, j[0].serial_runs, 1);
	KT_EXPECT_EQ(t, j[0].parallel_runs, 1);
	pl_expect_clean(t, &c);
	ordsched_pipeline_destroy(c.pl);
}

/*
 * pipeline.h ordsched_pipeline_queue_wait() "Return: 0, or -EINTR if a
 * fatal signal came first (not queued)": killed while the window is full,
 * the job is not queued: it never runs, and the caller may queue it again
 * once there is room; it then runs once, in its place.
 */
static void pipeline_queue_wait_killed_not_queued(struct ktest *t)
{
	struct completion rel;
	struct pl_ctx c = {};
	static struct pl_job j[3];
	struct pl_wait w;
	struct async *a;
	int i;

	if (!pl_wait_on_full_window(t, &c, j, &rel, &w, &a))
		return;
	if (a) {
		async_kill(a);
		KT_EXPECT_EQ(t, async_end(t, a), -EINTR);
	}
	complete_all(&rel);
	KT_EXPECT_EQ(t, bounded(t, pl_flush, c.pl), 0);
	KT_EXPECT_EQ(t, atomic_read(&c.serial_n), 2);
	KT_EXPECT_EQ(t, j[2].parallel_runs, 0);
	KT_EXPECT_EQ(t, j[2].serial_runs, 0);
	KT_EXPECT(t, ordsched_pipeline_queue(c.pl, &j[2].job));
	KT_EXPECT_EQ(t, bounded(t, pl_flush, c.pl), 0);
	KT_EXPECT_EQ(t, atomic_read(&c.serial_n), 3);
	for (i = 0; i < 3; i++)
		KT_EXPECT_EQ(t, c.order[i], i);
	KT_EXPECT_EQ(t, j[2].parallel_runs, 1);
	KT_EXPECT_EQ(t, j[2].serial_runs, 1);
	/* The killed wait took no ticket: no hole between j[1] and j[2]. */
	KT_EXPECT_EQ(t, j[2].job.ticket, j[1].job.ticket + 1);
	pl_expect_clean(t, &c);
	ordsched_pipeline_destroy(c.pl);
}

/* A pipeline on an ordered workqueue whose first job blocks: the rest pend. */
struct pl_pending {
	struct workqueue_struct *wq;
	struct completion rel;
	struct pl_ctx c;
	struct pl_job j[4];
	bool cancelled_soft;
};

static bool pl_pending_setup(struct ktest *t, struct pl_pending *p)
{
	init_completion(&p->rel);
	p->wq = alloc_ordered_workqueue("promise_pl", 0);
	if (!KT_EXPECT(t, p->wq))
		return false;
	if (!pl_create(t, &p->c, 0, p->wq)) {
		destroy_workqueue(p->wq);
		return false;
	}
	pl_jobs_init(p->j, 4, &p->c);
	p->j[0].block = &p->rel;
	return KT_EXPECT(t, ordsched_pipeline_queue(p->c.pl, &p->j[0].job));
}

static void pl_pending_teardown(struct ktest *t, struct pl_pending *p)
{
	complete_all(&p->rel);
	KT_EXPECT_EQ(t, bounded(t, pl_flush, p->c.pl), 0);
	ordsched_pipeline_destroy(p->c.pl);
	destroy_workqueue(p->wq);
}

/*
 * pipeline.h "Every queued job reaches its serial step exactly once
 * ... unless it was cancelled before its parallel step started";
 * <ordsched.h> "X_cancel() take back an item that has not started;
 * returns true if it will not run, false if it has run, is running or
 * will run".
 */
static void pipeline_cancel_before_parallel_skips_serial(struct ktest *t)
{
	static struct pl_pending p;

	if (!pl_pending_setup(t, &p))
		return;
	KT_EXPECT(t, ordsched_pipeline_queue(p.c.pl, &p.j[1].job));
	KT_EXPECT(t, ordsched_pipeline_cancel(p.c.pl, &p.j[1].job));
	KT_EXPECT(t, ordsched_pipeline_queue(p.c.pl, &p.j[2].job));
	pl_pending_teardown(t, &p);
	KT_EXPECT_EQ(t, atomic_read(&p.c.serial_n), 2);
	KT_EXPECT_EQ(t, p.c.order[0], 0);
	KT_EXPECT_EQ(t, p.c.order[1], 2);
	KT_EXPECT_EQ(t, p.j[1].parallel_runs + p.j[1].serial_runs, 0);
	pl_expect_clean(t, &p.c);
}

/*
 * <ordsched.h> "X_cancel() ... false if it has run, is running":
 * cancelling a job whose parallel step runs returns false and the job
 * still reaches its serial step.
 */
static void pipeline_cancel_of_running_job_is_false(struct ktest *t)
{
	struct completion started;
	struct pl_ctx c = {};
	struct completion rel;
	static struct pl_job j[1];

	init_completion(&rel);
	init_completion(&started);
	if (!pl_create(t, &c, 0, NULL))
		return;
	pl_jobs_init(j, 1, &c);
	j[0].block = &rel;
	j[0].started = &started;
	KT_EXPECT(t, ordsched_pipeline_queue(c.pl, &j[0].job));
	KT_EXPECT(t, wait_done(&started));
	KT_EXPECT(t, !ordsched_pipeline_cancel(c.pl, &j[0].job));
	complete_all(&rel);
	KT_EXPECT_EQ(t, bounded(t, pl_flush, c.pl), 0);
	KT_EXPECT_EQ(t, j[0].serial_runs, 1);
	KT_EXPECT(t, !ordsched_pipeline_cancel(c.pl, &j[0].job));
	pl_expect_clean(t, &c);
	ordsched_pipeline_destroy(c.pl);
}

static void pl_queue_in_softirq(void *data)
{
	struct pl_pending *p = data;

	ordsched_pipeline_queue(p->c.pl, &p->j[1].job);
	p->cancelled_soft = ordsched_pipeline_cancel(p->c.pl, &p->j[1].job);
	ordsched_pipeline_queue(p->c.pl, &p->j[2].job);
}

/*
 * <ordsched.h> "a pipeline job or a keyed task must not be in flight,
 * which only a kernel with debug objects catches (false, and reported)",
 * and pipeline.h "or, on a kernel with debug objects, if the job is still
 * in flight (reported: a bug in the caller)": a job whose parallel step
 * has not started yet is queued again, refused, and runs once. On a
 * kernel without debug objects it is a caller bug, so the case skips; with
 * them, debug objects report it (a warning), on purpose.
 */
static void pipeline_queue_refuses_already_queued_job(struct ktest *t)
{
	static struct pl_pending p;

	if (!IS_ENABLED(CONFIG_DEBUG_OBJECTS)) {
		ktest_skip(t, "needs CONFIG_DEBUG_OBJECTS");
		return;
	}
	if (!pl_pending_setup(t, &p))
		return;
	KT_EXPECT(t, ordsched_pipeline_queue(p.c.pl, &p.j[1].job));
	KT_EXPECT(t, !ordsched_pipeline_queue(p.c.pl, &p.j[1].job));
	pl_pending_teardown(t, &p);
	KT_EXPECT_EQ(t, p.j[1].serial_runs, 1);
	KT_EXPECT_EQ(t, atomic_read(&p.c.serial_n), 2);
}

/*
 * The same with two queueings of one job at once: one answers true, the
 * other false, and the job runs once. The first is held (a kretprobe,
 * 2 s) as it tracks the job anew after INIT_WORK(), between the end of
 * the job's debug object and its new activation; the second queueing
 * comes from the other CPU then. It used to find the job untracked,
 * take a ticket and answer true too, and the first's ticket was never
 * handed in. Now it waits for the job's lock, which the first holds.
 */
struct pl_twice {
	struct kt_ret_hold hold;
	struct pl_pending p;
	struct task_struct *first;
	bool first_queued, second_queued, held;
};

/* pipeline_job_debug_done(job): the first queueing's, of job 1. */
static int pl_twice_entry(struct kretprobe_instance *ri,
			  struct pt_regs *regs)
{
	struct pl_twice *w = container_of(get_kretprobe(ri), struct pl_twice,
					  hold.krp);

	return current != READ_ONCE(w->first) ||
	       (void *)regs_get_kernel_argument(regs, 0) != &w->p.j[1].job;
}

/* Thread 0 is held; thread 1, on the other CPU, queues meanwhile. */
static int pl_twice_thread(void *data, unsigned int idx)
{
	struct pl_twice *w = data;

	if (!idx) {
		WRITE_ONCE(w->first, current);
		w->first_queued = ordsched_pipeline_queue(w->p.c.pl,
							  &w->p.j[1].job);
		return 0;
	}
	w->held = kt_wait_held(&w->hold.stage);
	w->second_queued = ordsched_pipeline_queue(w->p.c.pl, &w->p.j[1].job);
	atomic_set(&w->hold.stage, 2);
	return 0;
}

static void pipeline_queue_twice_at_once_refuses_one(struct ktest *t)
{
	struct pl_twice *w;
	bool ran = false;

	if (!IS_ENABLED(CONFIG_DEBUG_OBJECTS)) {
		ktest_skip(t, "needs CONFIG_DEBUG_OBJECTS");
		return;
	}
	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs two CPUs");
		return;
	}
	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!KT_EXPECT(t, w))
		return;
	if (!pl_pending_setup(t, &w->p))
		goto out;
	w->hold.krp.entry_handler = pl_twice_entry;
	if (kt_ret_hold_register(&w->hold,
				 "ordsched:pipeline_job_debug_done")) {
		ktest_skip(t, "no kretprobe on pipeline_job_debug_done");
		goto out_pl;
	}
	ran = KT_EXPECT_EQ(t, kt_run_threads(2, pl_twice_thread, w), 0);
	unregister_kretprobe(&w->hold.krp);
	KT_EXPECT(t, w->held);
	KT_EXPECT(t, w->first_queued != w->second_queued);
out_pl:
	pl_pending_teardown(t, &w->p);
	if (ran) {
		KT_EXPECT_EQ(t, w->p.j[1].serial_runs, 1);
		KT_EXPECT_EQ(t, atomic_read(&w->p.c.serial_n), 2);
	}
out:
	kfree(w);
}

static DEFINE_SPINLOCK(pl_lock);

/*
 * pipeline.h "Contexts: queue in any context but hard interrupt;
 * cancel in process or softirq context": queue and cancel from a softirq,
 * queue with interrupts disabled and under a spinlock.
 */
static void pipeline_queue_from_softirq_and_irqs_off(struct ktest *t)
{
	static struct pl_pending p;
	unsigned long flags;
	bool q;

	if (!pl_pending_setup(t, &p))
		return;
	call_in_softirq(t, pl_queue_in_softirq, &p);
	KT_EXPECT(t, p.cancelled_soft);
	local_irq_save(flags);
	q = ordsched_pipeline_queue(p.c.pl, &p.j[3].job);
	local_irq_restore(flags);
	KT_EXPECT(t, q);
	pl_pending_teardown(t, &p);
	KT_EXPECT_EQ(t, atomic_read(&p.c.serial_n), 3);
	KT_EXPECT_EQ(t, p.c.order[0], 0);
	KT_EXPECT_EQ(t, p.c.order[1], 2);
	KT_EXPECT_EQ(t, p.c.order[2], 3);
	KT_EXPECT_EQ(t, p.j[1].serial_runs, 0);

	/* And under a spinlock with interrupts disabled, on a fresh pipeline. */
	memset(&p, 0, sizeof(p));
	if (!pl_pending_setup(t, &p))
		return;
	spin_lock_irqsave(&pl_lock, flags);
	q = ordsched_pipeline_queue(p.c.pl, &p.j[1].job);
	spin_unlock_irqrestore(&pl_lock, flags);
	KT_EXPECT(t, q);
	pl_pending_teardown(t, &p);
	KT_EXPECT_EQ(t, atomic_read(&p.c.serial_n), 2);
	pl_expect_clean(t, &p.c);
}

struct pl_flush_ctx {
	struct pl_ctx c;
	struct completion rel[2];
	struct pl_job j[2];
};

static void pl_flush_later(void *data)
{
	struct pl_flush_ctx *f = data;

	ordsched_pipeline_queue(f->c.pl, &f->j[1].job);
}

static void pl_flush_finish(void *data)
{
	struct pl_flush_ctx *f = data;

	complete_all(&f->rel[0]);
}

/*
 * pipeline.h "flush waits for the jobs queued before it, killably";
 * <ordsched.h> "... and for no later one; killable: 0 or -EINTR".
 */
static void pipeline_flush_waits_for_earlier_jobs_only(struct ktest *t)
{
	static struct pl_flush_ctx f;

	init_completion(&f.rel[0]);
	init_completion(&f.rel[1]);
	if (!pl_create(t, &f.c, 0, NULL))
		return;
	pl_jobs_init(f.j, 2, &f.c);
	f.j[0].block = &f.rel[0];
	f.j[1].block = &f.rel[1];
	KT_EXPECT(t, ordsched_pipeline_queue(f.c.pl, &f.j[0].job));
	check_flush(t, pl_flush, f.c.pl, pl_flush_later, pl_flush_finish, &f);
	KT_EXPECT_EQ(t, f.j[0].serial_runs, 1);
	complete_all(&f.rel[1]);
	KT_EXPECT_EQ(t, bounded(t, pl_flush, f.c.pl), 0);
	KT_EXPECT_EQ(t, atomic_read(&f.c.serial_n), 2);
	pl_expect_clean(t, &f.c);
	ordsched_pipeline_destroy(f.c.pl);
}

/*
 * <ordsched.h> "X_destroy() drain and free: returns only when nothing
 * of the instance runs or will run ... including work the callbacks hand
 * over meanwhile": each serial step queues the next job (queue "in any
 * context but hard interrupt"), and frees its own.
 */
static void pipeline_destroy_runs_jobs_queued_meanwhile(struct ktest *t)
{
	struct pl_ctx c = {};
	struct pl_job *j;
	int i;

	if (!pl_create(t, &c, 0, NULL))
		return;
	for (i = 0; i < 4; i++) {
		j = kzalloc(sizeof(*j), GFP_KERNEL);
		if (!KT_EXPECT(t, j))
			break;
		*j = (struct pl_job){ .ctx = &c, .idx = i * 100, .owned = true,
				      .sleep_ms = 2, .chain = i ? 0 : 10 };
		if (!KT_EXPECT(t, ordsched_pipeline_queue(c.pl, &j->job)))
			kfree(j);
	}
	ordsched_pipeline_destroy(c.pl);
	KT_EXPECT_EQ(t, atomic_read(&c.serial_n), 14);
	KT_EXPECT_EQ(t, atomic_read(&c.freed), 14);
	pl_expect_clean(t, &c);
}

/* ------------------------------------------------------------------------
 * Serial streams
 */

#define ST_MAX	64

struct st_ctx {
	struct ordsched_stream s[2];
	atomic_t inflight[2], n;
	int order[ST_MAX];
	bool overlap, not_task, not_worker, node_busy, requeue_failed;
};

struct st_item {
	struct ordsched_stream_item item;
	struct st_ctx *c;
	int idx, sidx, runs, requeue, chain, sleep_ms;
	bool owned, block_ok;
	struct completion *started, *block, *signal;
};

static void st_fn(struct ordsched_stream_item *item)
{
	struct st_item *si = container_of(item, struct st_item, item), *n;
	struct st_ctx *c = si->c;
	int s = si->sidx, i;

	if (!list_empty(&item->node))
		c->node_busy = true;
	if (!in_task() || in_softirq())
		c->not_task = true;
	if (!(current->flags & PF_WQ_WORKER))
		c->not_worker = true;
	if (atomic_inc_return(&c->inflight[s]) != 1)
		c->overlap = true;
	i = atomic_inc_return(&c->n) - 1;
	if (i < ST_MAX)
		c->order[i] = si->idx;
	si->runs++;
	if (si->started)
		complete(si->started);
	if (si->block)
		si->block_ok = block_on(si->block);
	if (si->sleep_ms)
		msleep(si->sleep_ms);
	atomic_dec(&c->inflight[s]);
	if (si->signal)
		complete(si->signal);
	if (si->chain > 0) {
		n = kzalloc(sizeof(*n), GFP_KERNEL);
		if (n) {
			*n = (struct st_item){ .c = c, .idx = si->idx + 1,
					       .sidx = s, .chain = si->chain - 1,
					       .sleep_ms = si->sleep_ms,
					       .owned = true };
			ordsched_stream_item_init(&n->item, st_fn);
			if (!ordsched_stream_queue(&c->s[s], &n->item)) {
				kfree(n);
				c->requeue_failed = true;
			}
		} else {
			c->requeue_failed = true;
		}
	}
	if (si->requeue > 0) {
		/* The last requeue moves to the other stream. */
		si->requeue--;
		si->sidx = si->requeue ? s : !s;
		if (!ordsched_stream_queue(&c->s[si->sidx], item))
			c->requeue_failed = true;
		return;
	}
	if (si->owned)
		kfree(si);
}

static void st_items_init(struct st_item *it, int nr, struct st_ctx *c,
			  int sidx)
{
	int i;

	for (i = 0; i < nr; i++) {
		it[i] = (struct st_item){ .c = c, .idx = i, .sidx = sidx };
		ordsched_stream_item_init(&it[i].item, st_fn);
	}
}

static void st_expect_clean(struct ktest *t, struct st_ctx *c)
{
	KT_EXPECT(t, !c->overlap);
	KT_EXPECT(t, !c->not_task);
	KT_EXPECT(t, !c->not_worker);
	KT_EXPECT(t, !c->node_busy);
	KT_EXPECT(t, !c->requeue_failed);
}

static int st_flush(void *stream)
{
	return ordsched_stream_flush(stream);
}

static struct ordsched_stream_set *st_set_create(struct ktest *t,
						 unsigned int budget,
						 struct workqueue_struct *wq)
{
	struct ordsched_stream_set_params p = {
		.name = "promise", .budget = budget, .wq = wq,
	};
	struct ordsched_stream_set *set = ordsched_stream_set_create(&p);

	if (!KT_EXPECT(t, !IS_ERR_OR_NULL(set)))
		return NULL;
	return set;
}

/* Many producers, two streams. */
#define STC_THREADS	4
#define STC_PER		48

struct stc;

struct stc_item {
	struct ordsched_stream_item item;
	struct stc *c;
	int producer, seq;
	u64 payload;
};

struct stc {
	struct ordsched_stream s[2];
	struct stc_item items[STC_THREADS][STC_PER];
	int last[2][STC_THREADS];
	unsigned int count[2];
	atomic_t inflight[2], ran;
	bool overlap, order_bad, stale, not_task, node_busy;
};

static void stc_fn(struct ordsched_stream_item *item)
{
	struct stc_item *si = container_of(item, struct stc_item, item);
	struct stc *c = si->c;
	int s = si->seq % 2;

	if (!list_empty(&item->node))
		c->node_busy = true;
	if (!in_task() || in_softirq())
		c->not_task = true;
	if (atomic_inc_return(&c->inflight[s]) != 1)
		c->overlap = true;
	if (si->seq <= c->last[s][si->producer])
		c->order_bad = true;
	c->last[s][si->producer] = si->seq;
	if (si->payload != si->producer * 1000 + si->seq)
		c->stale = true;
	c->count[s]++;		/* plain: the stream serializes it */
	if (si->seq % 16 == 0)
		usleep_range(1000, 2000);
	else
		kt_spin(500);
	atomic_dec(&c->inflight[s]);
	atomic_inc(&c->ran);
}

static int stc_producer(void *data, unsigned int p)
{
	struct stc *c = data;
	int k;

	for (k = 0; k < STC_PER; k++) {
		struct stc_item *si = &c->items[p][k];

		si->c = c;
		si->producer = p;
		si->seq = k;
		si->payload = p * 1000 + k;
		ordsched_stream_item_init(&si->item, stc_fn);
		if (!ordsched_stream_queue(&c->s[k % 2], &si->item))
			return -EBADE;
		kt_spin(200);
	}
	return 0;
}

/*
 * stream.h "A stream is a FIFO of intrusive items that run one at a
 * time, in the order they were queued ... items of one stream never
 * overlap"; stream.h "Items run in process context ... and may
 * sleep"; stream.h "stores before ordsched_stream_queue() are visible
 * to the item; an item sees everything the earlier items of its stream
 * stored"; @node "empty while the item is not queued" (and so while it
 * runs: "The stream does not touch @item once this function has been
 * called"). The default set (NULL), many producers.
 */
static void stream_fifo_serial_under_concurrency(struct ktest *t)
{
	struct stc *c = kzalloc(sizeof(*c), GFP_KERNEL);
	int s, p;

	if (!KT_EXPECT(t, c))
		return;
	for (s = 0; s < 2; s++) {
		ordsched_stream_init(&c->s[s], NULL);
		for (p = 0; p < STC_THREADS; p++)
			c->last[s][p] = -1;
	}
	KT_EXPECT_EQ(t, kt_run_threads(STC_THREADS, stc_producer, c), 0);
	for (s = 0; s < 2; s++)
		KT_EXPECT_EQ(t, bounded(t, st_flush, &c->s[s]), 0);
	KT_EXPECT_EQ(t, atomic_read(&c->ran), STC_THREADS * STC_PER);
	KT_EXPECT_EQ(t, c->count[0], STC_THREADS * STC_PER / 2);
	KT_EXPECT_EQ(t, c->count[1], STC_THREADS * STC_PER / 2);
	KT_EXPECT(t, !c->overlap);
	KT_EXPECT(t, !c->order_bad);
	KT_EXPECT(t, !c->stale);
	KT_EXPECT(t, !c->not_task);
	KT_EXPECT(t, !c->node_busy);
	for (s = 0; s < 2; s++)
		ordsched_stream_destroy(&c->s[s]);
	kfree(c);
}

/*
 * stream.h "items of different streams run in parallel"; ordsched_
 * stream_fn: "while it does [sleep] its stream makes no progress (other
 * streams do)": an item of one stream sleeps until an item of another
 * stream has run.
 */
static void stream_other_streams_progress_while_one_sleeps(struct ktest *t)
{
	struct completion b_ran;
	static struct st_ctx c;
	struct st_item a[1], b[1];

	init_completion(&b_ran);
	ordsched_stream_init(&c.s[0], NULL);
	ordsched_stream_init(&c.s[1], NULL);
	st_items_init(a, 1, &c, 0);
	st_items_init(b, 1, &c, 1);
	a[0].block = &b_ran;
	b[0].signal = &b_ran;
	KT_EXPECT(t, ordsched_stream_queue(&c.s[0], &a[0].item));
	KT_EXPECT(t, ordsched_stream_queue(&c.s[1], &b[0].item));
	KT_EXPECT_EQ(t, bounded(t, st_flush, &c.s[0]), 0);
	KT_EXPECT_EQ(t, bounded(t, st_flush, &c.s[1]), 0);
	KT_EXPECT(t, a[0].block_ok);
	st_expect_clean(t, &c);
	ordsched_stream_destroy(&c.s[0]);
	ordsched_stream_destroy(&c.s[1]);
}

/*
 * <ordsched.h> queue "false if not (already queued ...)";
 * <ordsched.h> cancel "take back an item that has not started; returns
 * true if it will not run, false if it has run, is running or will run";
 * @node "empty while the item is not queued"; @cancelled "items removed
 * by ordsched_stream_cancel()"; a cancelled item is the caller's again.
 */
static void stream_queue_cancel_answers_and_node(struct ktest *t)
{
	struct ordsched_stream_stats st;
	struct ordsched_stream_set *set;
	struct completion started, rel;
	static struct st_ctx c;
	struct st_item it[3];

	init_completion(&started);
	init_completion(&rel);
	set = st_set_create(t, 0, NULL);
	if (!set)
		return;
	ordsched_stream_init(&c.s[0], set);
	st_items_init(it, 3, &c, 0);
	KT_EXPECT(t, list_empty(&it[1].item.node));
	it[0].started = &started;
	it[0].block = &rel;
	KT_EXPECT(t, ordsched_stream_queue(&c.s[0], &it[0].item));
	KT_EXPECT(t, wait_done(&started));
	KT_EXPECT(t, ordsched_stream_queue(&c.s[0], &it[1].item));
	KT_EXPECT(t, !ordsched_stream_queue(&c.s[0], &it[1].item));
	KT_EXPECT(t, ordsched_stream_queue(&c.s[0], &it[2].item));
	KT_EXPECT(t, !ordsched_stream_cancel(&c.s[0], &it[0].item));
	KT_EXPECT(t, ordsched_stream_cancel(&c.s[0], &it[1].item));
	KT_EXPECT(t, list_empty(&it[1].item.node));
	complete_all(&rel);
	KT_EXPECT_EQ(t, bounded(t, st_flush, &c.s[0]), 0);
	KT_EXPECT_EQ(t, it[0].runs, 1);
	KT_EXPECT_EQ(t, it[1].runs, 0);
	KT_EXPECT_EQ(t, it[2].runs, 1);
	KT_EXPECT_EQ(t, c.order[1], 2);
	KT_EXPECT(t, !ordsched_stream_cancel(&c.s[0], &it[2].item));
	KT_EXPECT(t, list_empty(&it[2].item.node));
	ordsched_stream_set_get_stats(set, &st);
	KT_EXPECT_EQ(t, st.cancelled, 1);
	/* Taken back, it is the caller's: it can be queued again. */
	KT_EXPECT(t, ordsched_stream_queue(&c.s[0], &it[1].item));
	KT_EXPECT_EQ(t, bounded(t, st_flush, &c.s[0]), 0);
	KT_EXPECT_EQ(t, it[1].runs, 1);
	st_expect_clean(t, &c);
	ordsched_stream_destroy(&c.s[0]);
	ordsched_stream_set_destroy(set);
}

/*
 * ordsched_stream_fn: "The stream does not touch @item once this function
 * has been called: it may free @item or queue it again, on this stream or
 * another."
 */
static void stream_item_requeues_itself_then_moves(struct ktest *t)
{
	struct completion done;
	static struct st_ctx c;
	struct st_item it[1], *owned;

	init_completion(&done);
	ordsched_stream_init(&c.s[0], NULL);
	ordsched_stream_init(&c.s[1], NULL);
	st_items_init(it, 1, &c, 0);
	it[0].requeue = 5;
	it[0].signal = &done;
	KT_EXPECT(t, ordsched_stream_queue(&c.s[0], &it[0].item));
	/* Five requeues, so six runs; every run but the last signals. */
	while (wait_done(&done) && READ_ONCE(it[0].runs) < 6)
		;
	KT_EXPECT_EQ(t, bounded(t, st_flush, &c.s[1]), 0);
	KT_EXPECT_EQ(t, bounded(t, st_flush, &c.s[0]), 0);
	KT_EXPECT_EQ(t, it[0].runs, 6);
	KT_EXPECT_EQ(t, it[0].sidx, 1);

	owned = kzalloc(sizeof(*owned), GFP_KERNEL);
	if (KT_EXPECT(t, owned)) {
		*owned = (struct st_item){ .c = &c, .owned = true, .idx = 7 };
		ordsched_stream_item_init(&owned->item, st_fn);
		KT_EXPECT(t, ordsched_stream_queue(&c.s[0], &owned->item));
		KT_EXPECT_EQ(t, bounded(t, st_flush, &c.s[0]), 0);
		KT_EXPECT_EQ(t, atomic_read(&c.n), 7);
	}
	st_expect_clean(t, &c);
	ordsched_stream_destroy(&c.s[0]);
	ordsched_stream_destroy(&c.s[1]);
}

/*
 * stream.h the set names "the workqueue, the drain budget (after that
 * many items a drain requeues itself ...)"; @wq "the workqueue the drains
 * run on"; @requeues "drains that used up the budget and requeued
 * themselves"; @queued/@ran count the items (barriers included).
 */
static void stream_set_budget_requeues_drain(struct ktest *t)
{
	struct ordsched_stream_stats st;
	struct ordsched_stream_set *set;
	struct workqueue_struct *wq;
	struct completion started, rel;
	static struct st_ctx c;
	static struct st_item it[10];
	int i;

	init_completion(&started);
	init_completion(&rel);
	wq = alloc_workqueue("promise_st", WQ_UNBOUND, 0);
	if (!KT_EXPECT(t, wq))
		return;
	set = st_set_create(t, 2, wq);
	if (!set)
		goto out;
	ordsched_stream_init(&c.s[0], set);
	st_items_init(it, 10, &c, 0);
	it[0].started = &started;
	it[0].block = &rel;
	for (i = 0; i < 10; i++)
		KT_EXPECT(t, ordsched_stream_queue(&c.s[0], &it[i].item));
	KT_EXPECT(t, wait_done(&started));
	complete_all(&rel);
	KT_EXPECT_EQ(t, bounded(t, st_flush, &c.s[0]), 0);
	KT_EXPECT_EQ(t, atomic_read(&c.n), 10);
	for (i = 0; i < 10; i++)
		KT_EXPECT_EQ(t, c.order[i], i);
	ordsched_stream_set_get_stats(set, &st);
	KT_EXPECT(t, st.requeues >= 4);
	KT_EXPECT(t, st.queued >= 10);
	KT_EXPECT(t, st.ran >= 10);
	KT_EXPECT_EQ(t, st.cancelled, 0);
	st_expect_clean(t, &c);
	ordsched_stream_destroy(&c.s[0]);
	ordsched_stream_set_destroy(set);
out:
	destroy_workqueue(wq);
}

struct st_flush_ctx {
	struct st_ctx c;
	struct completion rel[2];
	struct st_item it[2];
};

static void st_flush_later(void *data)
{
	struct st_flush_ctx *f = data;

	ordsched_stream_queue(&f->c.s[0], &f->it[1].item);
}

static void st_flush_finish(void *data)
{
	struct st_flush_ctx *f = data;

	complete_all(&f->rel[0]);
}

/*
 * stream.h "flush waits for the items queued before it, killably";
 * <ordsched.h> "... and for no later one; killable: 0 or -EINTR".
 */
static void stream_flush_waits_for_earlier_items_only(struct ktest *t)
{
	static struct st_flush_ctx f;

	init_completion(&f.rel[0]);
	init_completion(&f.rel[1]);
	ordsched_stream_init(&f.c.s[0], NULL);
	KT_EXPECT_EQ(t, ordsched_stream_flush(&f.c.s[0]), 0);
	st_items_init(f.it, 2, &f.c, 0);
	f.it[0].block = &f.rel[0];
	f.it[1].block = &f.rel[1];
	KT_EXPECT(t, ordsched_stream_queue(&f.c.s[0], &f.it[0].item));
	check_flush(t, st_flush, &f.c.s[0], st_flush_later, st_flush_finish,
		    &f);
	KT_EXPECT_EQ(t, f.it[0].runs, 1);
	complete_all(&f.rel[1]);
	KT_EXPECT_EQ(t, bounded(t, st_flush, &f.c.s[0]), 0);
	KT_EXPECT_EQ(t, f.it[1].runs, 1);
	st_expect_clean(t, &f.c);
	ordsched_stream_destroy(&f.c.s[0]);
}

struct st_irq_ctx {
	struct st_ctx c;
	struct st_item it[2];
	bool q0, q1, c1;
};

static void st_in_hardirq(void *data)
{
	struct st_irq_ctx *x = data;

	ordsched_stream_init(&x->c.s[0], NULL);
	x->q0 = ordsched_stream_queue(&x->c.s[0], &x->it[0].item);
	x->q1 = ordsched_stream_queue(&x->c.s[0], &x->it[1].item);
	x->c1 = ordsched_stream_cancel(&x->c.s[0], &x->it[1].item);
}

/*
 * stream.h "Contexts: queue and cancel in any context, hard interrupt
 * included; init in any context": init, queue and cancel from a hard
 * hrtimer; the first item holds the stream, so the second is taken back.
 */
static void stream_init_queue_cancel_in_hardirq(struct ktest *t)
{
	static struct st_irq_ctx x;
	struct completion rel;

	init_completion(&rel);
	st_items_init(x.it, 2, &x.c, 0);
	x.it[0].block = &rel;
	call_in_hardirq(t, st_in_hardirq, &x);
	KT_EXPECT(t, x.q0);
	KT_EXPECT(t, x.q1);
	KT_EXPECT(t, x.c1);
	complete_all(&rel);
	KT_EXPECT_EQ(t, bounded(t, st_flush, &x.c.s[0]), 0);
	KT_EXPECT_EQ(t, x.it[0].runs, 1);
	KT_EXPECT_EQ(t, x.it[1].runs, 0);
	st_expect_clean(t, &x.c);
	ordsched_stream_destroy(&x.c.s[0]);
}

/*
 * <ordsched.h> "X_destroy() drain and free: returns only when nothing
 * of the instance runs or will run ... including work the callbacks hand
 * over meanwhile" (stream.h "destroy drains").
 */
static void stream_destroy_runs_items_queued_meanwhile(struct ktest *t)
{
	static struct st_ctx c;
	struct st_item *si = kzalloc(sizeof(*si), GFP_KERNEL);

	if (!KT_EXPECT(t, si))
		return;
	ordsched_stream_init(&c.s[0], NULL);
	*si = (struct st_item){ .c = &c, .chain = 10, .sleep_ms = 2,
				.owned = true };
	ordsched_stream_item_init(&si->item, st_fn);
	KT_EXPECT(t, ordsched_stream_queue(&c.s[0], &si->item));
	ordsched_stream_destroy(&c.s[0]);
	KT_EXPECT_EQ(t, atomic_read(&c.n), 11);
	KT_EXPECT_EQ(t, c.order[10], 10);
	st_expect_clean(t, &c);
}

/* ------------------------------------------------------------------------
 * Key-ordered execution
 */

#define KX_MAX	64
#define KX_KEYS	16

struct kx_ctx {
	struct ordsched_keyed *kx;
	atomic_t n, done_n, freed;
	int order[KX_MAX];
	atomic_t inflight[KX_KEYS];
	bool overlap, not_task, done_early, chain_failed;
};

struct kx_task {
	struct ordsched_keyed_task task;
	struct ordsched_keyed_token toks[3];
	struct kx_ctx *c;
	u64 keys[3];
	unsigned int nr;
	int idx, runs, dones, chain, requeue;
	bool fn_returned, owned, block_ok, done_saw;
	struct completion *started, *block, *signal;
	int *done_until;	/* done spins until *done_until != 0 */
	unsigned int done_delay_ms;
	bool *done_flag;
};

static void kx_fn(struct ordsched_keyed_task *task);
static void kx_done(struct ordsched_keyed_task *task);

static void kx_task_init(struct kx_task *kt, struct kx_ctx *c, int idx,
			 const u64 *keys, unsigned int nr)
{
	unsigned int i;

	*kt = (struct kx_task){ .c = c, .idx = idx, .nr = nr };
	for (i = 0; i < nr; i++)
		kt->keys[i] = keys[i];
	ordsched_keyed_task_init(&kt->task, kx_fn, kx_done, kt->toks, 3);
}

static bool kx_queue(struct kx_task *kt)
{
	return ordsched_keyed_queue(kt->c->kx, &kt->task, kt->keys, kt->nr);
}

static void kx_fn(struct ordsched_keyed_task *task)
{
	struct kx_task *kt = container_of(task, struct kx_task, task), *n;
	struct kx_ctx *c = kt->c;
	unsigned int k;
	int i;

	if (!in_task() || in_softirq())
		c->not_task = true;
	for (k = 0; k < kt->nr; k++)
		if (atomic_inc_return(&c->inflight[kt->keys[k] % KX_KEYS]) != 1)
			c->overlap = true;
	i = atomic_inc_return(&c->n) - 1;
	if (i < KX_MAX)
		c->order[i] = kt->idx;
	kt->runs++;
	if (kt->started)
		complete(kt->started);
	if (kt->block)
		kt->block_ok = block_on(kt->block);
	for (k = 0; k < kt->nr; k++)
		atomic_dec(&c->inflight[kt->keys[k] % KX_KEYS]);
	if (kt->signal)
		complete(kt->signal);
	if (kt->chain > 0) {
		n = kzalloc(sizeof(*n), GFP_KERNEL);
		if (n) {
			kx_task_init(n, c, kt->idx + 1, kt->keys, kt->nr);
			n->chain = kt->chain - 1;
			n->owned = true;
			if (!kx_queue(n)) {
				kfree(n);
				c->chain_failed = true;
			}
		} else {
			c->chain_failed = true;
		}
	}
	kt->fn_returned = true;
}

static void kx_done(struct ordsched_keyed_task *task)
{
	struct kx_task *kt = container_of(task, struct kx_task, task);
	struct kx_ctx *c = kt->c;
	unsigned long end;

	/* @fn started and did not return (a cancelled task may differ). */
	if (!kt->fn_returned && kt->runs > kt->dones)
		c->done_early = true;
	kt->dones++;
	if (kt->done_until) {
		/* Spin (the context of @done is not said to sleep), bounded. */
		end = jiffies + 3 * HZ;
		while (!READ_ONCE(*kt->done_until) && time_before(jiffies, end))
			cpu_relax();
		kt->done_saw = READ_ONCE(*kt->done_until);
	}
	if (kt->done_delay_ms)
		mdelay(kt->done_delay_ms);
	if (kt->done_flag)
		WRITE_ONCE(*kt->done_flag, true);
	atomic_inc(&c->done_n);
	if (kt->requeue > 0) {
		kt->requeue--;
		kt->fn_returned = false;
		kt->keys[0]++;
		if (!kx_queue(kt))
			c->chain_failed = true;
		return;
	}
	if (kt->owned) {
		atomic_inc(&c->freed);
		kfree(kt);
	}
}

static struct ordsched_keyed *kx_create(struct ktest *t, struct kx_ctx *c)
{
	struct ordsched_keyed_params p = { .name = "promise" };

	c->kx = ordsched_keyed_create(&p);
	if (!KT_EXPECT(t, !IS_ERR_OR_NULL(c->kx)))
		c->kx = NULL;
	return c->kx;
}

static void kx_expect_clean(struct ktest *t, struct kx_ctx *c)
{
	KT_EXPECT(t, !c->overlap);
	KT_EXPECT(t, !c->not_task);
	KT_EXPECT(t, !c->done_early);
	KT_EXPECT(t, !c->chain_failed);
}

static int kx_flush(void *kx)
{
	return ordsched_keyed_flush(kx);
}

static int kx_destroy(void *kx)
{
	ordsched_keyed_destroy(kx);
	return 0;
}

/* Flush, check the executor is idle with no live key, destroy. */
static void kx_finish(struct ktest *t, struct kx_ctx *c)
{
	KT_EXPECT_EQ(t, bounded(t, kx_flush, c->kx), 0);
	KT_EXPECT_EQ(t, ordsched_keyed_live_keys(c->kx), 0);
	kx_expect_clean(t, c);
	ordsched_keyed_destroy(c->kx);
}

/* Position of @idx in the run order, or -1. */
static int kx_pos(struct kx_ctx *c, int idx)
{
	int i, n = min(atomic_read(&c->n), KX_MAX);

	for (i = 0; i < n; i++)
		if (c->order[i] == idx)
			return i;
	return -1;
}

/*
 * <ordsched.h> "returns an ERR_PTR() on failure" with keyed.h
 * @hash_order "(0: default 8, at most 16)".
 */
static void keyed_create_rejects_hash_order_17(struct ktest *t)
{
	struct ordsched_keyed_params p = { .hash_order = 17 };

	expect_create_failed(t, ordsched_keyed_create(&p), kx_destroy);
}

/*
 * keyed.h "Return: true, or false if @nr_keys is out of range or a key
 * repeats (the task is not queued)"; @nr_tokens "how many keys the task
 * can name" (a task of one key uses the token inside it, so it can name
 * one); ORDSCHED_KEYED_MAX_KEYS.
 * Refused tasks never run.
 */
static void keyed_queue_refuses(struct ktest *t, bool double_queue)
{
	static const u64 keys[17] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
				      13, 14, 15, 16, 17 };
	struct ordsched_keyed_token *toks17;
	struct completion started, rel;
	static struct kx_task two, one, many, b, e;
	static struct kx_ctx c;

	/* Both cases use these: start each from scratch. */
	memset(&c, 0, sizeof(c));
	init_completion(&started);
	init_completion(&rel);
	toks17 = kcalloc(17, sizeof(*toks17), GFP_KERNEL);
	if (!KT_EXPECT(t, toks17))
		return;
	if (!kx_create(t, &c))
		goto out;
	/* Three keys on a task that can name two. */
	kx_task_init(&two, &c, 1, keys, 3);
	ordsched_keyed_task_init(&two.task, kx_fn, kx_done, two.toks, 2);
	KT_EXPECT(t, !kx_queue(&two));
	/* Two keys on a task with no token array: it can name one. */
	kx_task_init(&one, &c, 2, keys, 2);
	ordsched_keyed_task_init(&one.task, kx_fn, kx_done, NULL, 0);
	KT_EXPECT(t, !kx_queue(&one));
	/* More than ORDSCHED_KEYED_MAX_KEYS, with tokens for all of them. */
	kx_task_init(&many, &c, 3, keys, 0);
	ordsched_keyed_task_init(&many.task, kx_fn, kx_done, toks17, 17);
	KT_EXPECT(t, !ordsched_keyed_queue(c.kx, &many.task, keys,
					   ORDSCHED_KEYED_MAX_KEYS + 1));

	/* Queued twice while parked behind a running task of its key. */
	kx_task_init(&b, &c, 4, &keys[8], 1);
	b.started = &started;
	b.block = &rel;
	kx_task_init(&e, &c, 5, &keys[8], 1);
	KT_EXPECT(t, kx_queue(&b));
	KT_EXPECT(t, wait_done(&started));
	KT_EXPECT(t, kx_queue(&e));
	if (double_queue) {
		KT_EXPECT(t, !kx_queue(&e));
		e.keys[0] = 10;
		KT_EXPECT(t, !kx_queue(&e));
		e.keys[0] = 9;
	}
	complete_all(&rel);
	kx_finish(t, &c);
	KT_EXPECT_EQ(t, b.runs, 1);
	KT_EXPECT_EQ(t, e.runs, 1);
	KT_EXPECT_EQ(t, two.runs + one.runs + many.runs, 0);
	KT_EXPECT_EQ(t, atomic_read(&c.n), 2);
out:
	kfree(toks17);
}

static void keyed_queue_refuses_invalid_keys(struct ktest *t)
{
	keyed_queue_refuses(t, false);
}

/*
 * The same with a parked task queued again: keyed.h "or if the task is in
 * flight", "queueing it again meanwhile is refused and leaves it as it
 * is, on every kernel".
 */
static void keyed_queue_refuses_already_queued_task(struct ktest *t)
{
	keyed_queue_refuses(t, true);
}

/* Many producers over few keys, a quarter of the tasks rollups. */
#define KC_THREADS	4
#define KC_PER		48
#define KC_KEYS		6

struct kc;

struct kc_task {
	struct ordsched_keyed_task task;
	struct ordsched_keyed_token toks[3];
	struct kc *c;
	u64 keys[3];
	unsigned int nr;
	int producer, seq;
	u64 payload;
};

struct kc {
	struct ordsched_keyed *kx;
	struct kc_task tasks[KC_THREADS][KC_PER];
	int last[KC_KEYS][KC_THREADS];
	unsigned int count[KC_KEYS];
	atomic_t inflight[KC_KEYS], ran, dones;
	bool overlap, order_bad, stale, not_task;
};

static void kc_fn(struct ordsched_keyed_task *task)
{
	struct kc_task *kt = container_of(task, struct kc_task, task);
	struct kc *c = kt->c;
	unsigned int k;

	if (!in_task() || in_softirq())
		c->not_task = true;
	if (kt->payload != kt->producer * 1000 + kt->seq)
		c->stale = true;
	for (k = 0; k < kt->nr; k++) {
		u64 key = kt->keys[k];

		if (atomic_inc_return(&c->inflight[key]) != 1)
			c->overlap = true;
		if (kt->seq <= c->last[key][kt->producer])
			c->order_bad = true;
		c->last[key][kt->producer] = kt->seq;
		c->count[key]++;	/* plain: the key serializes it */
	}
	if (kt->seq % 8 == 0)
		usleep_range(1000, 2000);
	else
		kt_spin(500);
	for (k = 0; k < kt->nr; k++)
		atomic_dec(&c->inflight[kt->keys[k]]);
	atomic_inc(&c->ran);
}

static void kc_done(struct ordsched_keyed_task *task)
{
	struct kc_task *kt = container_of(task, struct kc_task, task);

	atomic_inc(&kt->c->dones);
}

static int kc_producer(void *data, unsigned int p)
{
	struct kc *c = data;
	u32 rnd = p * 104729 + 3;
	unsigned int i;
	int k;

	for (k = 0; k < KC_PER; k++) {
		struct kc_task *kt = &c->tasks[p][k];
		u64 base = kt_rand(&rnd) % KC_KEYS;

		kt->c = c;
		kt->producer = p;
		kt->seq = k;
		kt->payload = p * 1000 + k;
		kt->nr = kt_rand(&rnd) % 4 ? 1 : 2 + kt_rand(&rnd) % 2;
		for (i = 0; i < kt->nr; i++)
			kt->keys[i] = (base + i) % KC_KEYS;
		ordsched_keyed_task_init(&kt->task, kc_fn, kc_done, kt->toks, 3);
		if (!ordsched_keyed_queue(c->kx, &kt->task, kt->keys, kt->nr))
			return -EBADE;
		kt_spin(200);
	}
	return 0;
}

/*
 * keyed.h "Tasks that share a key run one after the other in the
 * order they were queued; tasks with disjoint keys run in parallel. A task
 * with several keys (a rollup) runs once every task queued before it on
 * any of its keys has finished, and every task queued after it on any of
 * its keys waits for it"; keyed.h "a task sees everything the earlier
 * tasks of its keys stored"; tasks "may sleep"; @done is called once per
 * run; keyed.h "When the last token leaves, the key is gone."
 */
static void keyed_shared_keys_serialize_under_concurrency(struct ktest *t)
{
	struct kc *c = kzalloc(sizeof(*c), GFP_KERNEL);
	unsigned int want[KC_KEYS] = {}, i;
	struct ordsched_keyed_params prm = { .hash_order = 2 };
	int k, p;

	if (!KT_EXPECT(t, c))
		return;
	c->kx = ordsched_keyed_create(&prm);
	if (!KT_EXPECT(t, !IS_ERR_OR_NULL(c->kx)))
		goto out;
	for (k = 0; k < KC_KEYS; k++)
		for (p = 0; p < KC_THREADS; p++)
			c->last[k][p] = -1;
	KT_EXPECT_EQ(t, kt_run_threads(KC_THREADS, kc_producer, c), 0);
	KT_EXPECT_EQ(t, bounded(t, kx_flush, c->kx), 0);
	for (p = 0; p < KC_THREADS; p++)
		for (k = 0; k < KC_PER; k++)
			for (i = 0; i < c->tasks[p][k].nr; i++)
				want[c->tasks[p][k].keys[i]]++;
	for (k = 0; k < KC_KEYS; k++)
		KT_EXPECT_EQ(t, c->count[k], want[k]);
	KT_EXPECT_EQ(t, atomic_read(&c->ran), KC_THREADS * KC_PER);
	KT_EXPECT_EQ(t, atomic_read(&c->dones), KC_THREADS * KC_PER);
	KT_EXPECT(t, !c->overlap);
	KT_EXPECT(t, !c->order_bad);
	KT_EXPECT(t, !c->stale);
	KT_EXPECT(t, !c->not_task);
	KT_EXPECT_EQ(t, ordsched_keyed_live_keys(c->kx), 0);
	ordsched_keyed_destroy(c->kx);
out:
	kfree(c);
}

/*
 * keyed.h "A task with several keys (a rollup) runs once every task
 * queued before it on any of its keys has finished, and every task queued
 * after it on any of its keys waits for it; it waits for nothing else and
 * holds back nothing else"; "tasks with disjoint keys run in parallel";
 * @rollups "of which tasks with more than one key".
 */
static void keyed_rollup_waits_for_and_holds_its_keys_only(struct ktest *t)
{
	static const u64 k1 = 1, k2 = 2, k3 = 3, k4 = 4, k12[2] = { 1, 2 };
	struct completion sx, sa, sr, sd, sc, rel_x, rel_a, rel_r;
	struct ordsched_keyed_stats st;
	static struct kx_task x, a, r, c2, d;
	static struct kx_ctx c;

	init_completion(&sx);
	init_completion(&sa);
	init_completion(&sr);
	init_completion(&sd);
	init_completion(&sc);
	init_completion(&rel_x);
	init_completion(&rel_a);
	init_completion(&rel_r);
	if (!kx_create(t, &c))
		return;
	kx_task_init(&x, &c, 1, &k3, 1);
	x.started = &sx;
	x.block = &rel_x;
	kx_task_init(&a, &c, 2, &k1, 1);
	a.started = &sa;
	a.block = &rel_a;
	kx_task_init(&r, &c, 3, k12, 2);
	r.started = &sr;
	r.block = &rel_r;
	kx_task_init(&c2, &c, 4, &k2, 1);
	c2.signal = &sc;
	kx_task_init(&d, &c, 5, &k4, 1);
	d.signal = &sd;

	KT_EXPECT(t, kx_queue(&x));
	KT_EXPECT(t, kx_queue(&a));
	KT_EXPECT(t, wait_done(&sx));
	KT_EXPECT(t, wait_done(&sa));
	KT_EXPECT(t, kx_queue(&r));
	KT_EXPECT(t, kx_queue(&c2));
	KT_EXPECT(t, kx_queue(&d));
	/* Disjoint keys run in parallel: d runs while keys 1 and 3 are held. */
	KT_EXPECT(t, wait_done(&sd));
	KT_EXPECT_EQ(t, READ_ONCE(r.runs), 0);	/* waits for a (key 1) */
	KT_EXPECT_EQ(t, READ_ONCE(c2.runs), 0);	/* waits for r (key 2) */
	complete_all(&rel_a);
	/* r waits for nothing else: x still holds key 3. */
	KT_EXPECT(t, wait_done(&sr));
	KT_EXPECT_EQ(t, READ_ONCE(c2.runs), 0);	/* r runs and holds key 2 */
	complete_all(&rel_r);
	KT_EXPECT(t, wait_done(&sc));
	complete_all(&rel_x);
	KT_EXPECT_EQ(t, bounded(t, kx_flush, c.kx), 0);
	KT_EXPECT(t, kx_pos(&c, 3) > kx_pos(&c, 2));
	KT_EXPECT(t, kx_pos(&c, 4) > kx_pos(&c, 3));
	KT_EXPECT_EQ(t, x.runs + a.runs + r.runs + c2.runs + d.runs, 5);
	KT_EXPECT(t, x.block_ok && a.block_ok && r.block_ok);
	ordsched_keyed_get_stats(c.kx, &st);
	KT_EXPECT_EQ(t, st.rollups, 1);
	KT_EXPECT_EQ(t, st.queued, 5);
	KT_EXPECT_EQ(t, st.ran, 5);
	kx_finish(t, &c);
}

/*
 * The other half of "holds back nothing else": while a rollup on keys 5
 * and 6 runs (blocked), a task of key 7 runs; a task of key 6 waits.
 */
static void keyed_running_rollup_holds_back_nothing_else(struct ktest *t)
{
	static const u64 k56[2] = { 5, 6 }, k6 = 6, k7 = 7;
	struct completion s_r, rel, s_e;
	static struct kx_task r, e, f;
	static struct kx_ctx c;

	init_completion(&s_r);
	init_completion(&rel);
	init_completion(&s_e);
	if (!kx_create(t, &c))
		return;
	kx_task_init(&r, &c, 1, k56, 2);
	r.started = &s_r;
	r.block = &rel;
	kx_task_init(&f, &c, 2, &k6, 1);
	kx_task_init(&e, &c, 3, &k7, 1);
	e.signal = &s_e;
	KT_EXPECT(t, kx_queue(&r));
	KT_EXPECT(t, wait_done(&s_r));
	KT_EXPECT(t, kx_queue(&f));
	KT_EXPECT(t, kx_queue(&e));
	KT_EXPECT(t, wait_done(&s_e));
	KT_EXPECT_EQ(t, READ_ONCE(f.runs), 0);
	complete_all(&rel);
	kx_finish(t, &c);
	KT_EXPECT_EQ(t, f.runs, 1);
	KT_EXPECT(t, r.block_ok);
}

/*
 * @done "called after @fn once the task's keys have been handed on; from
 * then on ordsched does not touch the task, which may be freed or queued
 * again": a later task of the same key starts while @done still runs;
 * a task requeued from @done runs again; one freed there is not touched.
 */
static void keyed_done_after_keys_handed_on(struct ktest *t)
{
	static const u64 k1 = 1, k9 = 9;
	static struct kx_task a, u, rq;
	struct kx_task *own;
	static struct kx_ctx c;
	int u_started = 0;
	struct completion su;

	init_completion(&su);
	if (!kx_create(t, &c))
		return;
	kx_task_init(&a, &c, 1, &k1, 1);
	a.done_until = &u_started;
	kx_task_init(&u, &c, 2, &k1, 1);
	u.started = &su;
	KT_EXPECT(t, kx_queue(&a));
	KT_EXPECT(t, kx_queue(&u));
	KT_EXPECT(t, wait_done(&su));
	WRITE_ONCE(u_started, 1);

	kx_task_init(&rq, &c, 3, &k9, 1);
	rq.requeue = 3;
	KT_EXPECT(t, kx_queue(&rq));
	own = kzalloc(sizeof(*own), GFP_KERNEL);
	if (KT_EXPECT(t, own)) {
		kx_task_init(own, &c, 4, &k1, 1);
		own->owned = true;
		if (!KT_EXPECT(t, kx_queue(own)))
			kfree(own);
	}
	kx_finish(t, &c);
	KT_EXPECT(t, a.done_saw);
	KT_EXPECT_EQ(t, a.dones, 1);
	KT_EXPECT_EQ(t, rq.runs, 4);
	KT_EXPECT_EQ(t, rq.dones, 4);
	KT_EXPECT_EQ(t, atomic_read(&c.freed), 1);
}

/*
 * <ordsched.h> cancel "take back an item that has not started; returns
 * true if it will not run, false if it has run, is running or will run";
 * a cancelled task, rollup included, gives its keys up (later tasks of
 * them run, no key stays live: "When the last token leaves, the key is
 * gone"); @cancelled "tasks cancelled before they ran".
 */
static void keyed_cancel_takes_back_parked_tasks(struct ktest *t)
{
	static const u64 k1 = 1, k2 = 2, k12[2] = { 1, 2 };
	struct completion sa, rel, sc;
	struct ordsched_keyed_stats st;
	static struct kx_task a, b, r, c2, d;
	static struct kx_ctx c;

	init_completion(&sa);
	init_completion(&rel);
	init_completion(&sc);
	if (!kx_create(t, &c))
		return;
	kx_task_init(&a, &c, 1, &k1, 1);
	a.started = &sa;
	a.block = &rel;
	kx_task_init(&b, &c, 2, &k1, 1);
	kx_task_init(&r, &c, 3, k12, 2);
	kx_task_init(&c2, &c, 4, &k2, 1);
	c2.signal = &sc;
	kx_task_init(&d, &c, 5, &k1, 1);
	KT_EXPECT(t, kx_queue(&a));
	KT_EXPECT(t, wait_done(&sa));
	KT_EXPECT(t, kx_queue(&b));
	KT_EXPECT(t, kx_queue(&r));
	KT_EXPECT(t, ordsched_keyed_cancel(c.kx, &b.task));
	KT_EXPECT(t, ordsched_keyed_cancel(c.kx, &r.task));
	KT_EXPECT(t, !ordsched_keyed_cancel(c.kx, &a.task));
	/* Key 2 is free again: a task of it runs while a holds key 1. */
	KT_EXPECT(t, kx_queue(&c2));
	KT_EXPECT(t, wait_done(&sc));
	KT_EXPECT(t, kx_queue(&d));
	complete_all(&rel);
	KT_EXPECT_EQ(t, bounded(t, kx_flush, c.kx), 0);
	KT_EXPECT_EQ(t, b.runs + r.runs, 0);
	KT_EXPECT_EQ(t, a.runs + c2.runs + d.runs, 3);
	KT_EXPECT(t, !ordsched_keyed_cancel(c.kx, &d.task));
	ordsched_keyed_get_stats(c.kx, &st);
	KT_EXPECT_EQ(t, st.cancelled, 2);
	/* Taken back, it is the caller's: it can be queued again. */
	KT_EXPECT(t, kx_queue(&b));
	kx_finish(t, &c);
	KT_EXPECT_EQ(t, b.runs, 1);
}

struct kx_soft {
	struct kx_ctx c;
	struct kx_task s[3];
	bool q0, q1, c1;
};

static void kx_in_softirq(void *data)
{
	struct kx_soft *x = data;

	x->q0 = kx_queue(&x->s[0]);
	x->q1 = kx_queue(&x->s[1]);
	x->c1 = ordsched_keyed_cancel(x->c.kx, &x->s[1].task);
}

/*
 * keyed.h "Contexts: queue and cancel in process or softirq context,
 * not hard interrupt": from a timer callback, and from process context
 * with bottom halves disabled.
 */
static void keyed_queue_cancel_in_softirq(struct ktest *t)
{
	static const u64 k1 = 1;
	struct completion sa, rel;
	static struct kx_soft x;
	static struct kx_task a;
	bool q2;
	int i;

	init_completion(&sa);
	init_completion(&rel);
	if (!kx_create(t, &x.c))
		return;
	kx_task_init(&a, &x.c, 9, &k1, 1);
	a.started = &sa;
	a.block = &rel;
	for (i = 0; i < 3; i++)
		kx_task_init(&x.s[i], &x.c, i, &k1, 1);
	KT_EXPECT(t, kx_queue(&a));
	KT_EXPECT(t, wait_done(&sa));
	call_in_softirq(t, kx_in_softirq, &x);
	KT_EXPECT(t, x.q0);
	KT_EXPECT(t, x.q1);
	KT_EXPECT(t, x.c1);
	local_bh_disable();
	q2 = kx_queue(&x.s[2]);
	local_bh_enable();
	KT_EXPECT(t, q2);
	complete_all(&rel);
	kx_finish(t, &x.c);
	KT_EXPECT_EQ(t, x.s[0].runs, 1);
	KT_EXPECT_EQ(t, x.s[1].runs, 0);
	KT_EXPECT_EQ(t, x.s[2].runs, 1);
}

struct kx_flush_ctx {
	struct kx_ctx c;
	struct completion rel[2];
	struct kx_task k[2];
	bool done0;
};

static void kx_flush_later(void *data)
{
	struct kx_flush_ctx *f = data;

	kx_queue(&f->k[1]);
}

static void kx_flush_finish(void *data)
{
	struct kx_flush_ctx *f = data;

	complete_all(&f->rel[0]);
}

/*
 * keyed.h "flush waits, killably, for the tasks queued before it and
 * their @done"; <ordsched.h> "... and for no later one; killable: 0 or
 * -EINTR".
 */
static void keyed_flush_waits_for_earlier_tasks_and_done(struct ktest *t)
{
	static const u64 k1 = 1, k2 = 2;
	static struct kx_flush_ctx f;

	init_completion(&f.rel[0]);
	init_completion(&f.rel[1]);
	if (!kx_create(t, &f.c))
		return;
	KT_EXPECT_EQ(t, ordsched_keyed_flush(f.c.kx), 0);
	kx_task_init(&f.k[0], &f.c, 0, &k1, 1);
	f.k[0].block = &f.rel[0];
	f.k[0].done_delay_ms = 50;
	f.k[0].done_flag = &f.done0;
	kx_task_init(&f.k[1], &f.c, 1, &k2, 1);
	f.k[1].block = &f.rel[1];
	KT_EXPECT(t, kx_queue(&f.k[0]));
	check_flush(t, kx_flush, f.c.kx, kx_flush_later, kx_flush_finish, &f);
	KT_EXPECT(t, READ_ONCE(f.done0));
	complete_all(&f.rel[1]);
	kx_finish(t, &f.c);
	KT_EXPECT_EQ(t, f.k[1].dones, 1);
}

/*
 * <ordsched.h> "X_destroy() drain and free: returns only when nothing
 * of the instance runs or will run ... including work the callbacks hand
 * over meanwhile": each task queues the next of its key; every @done has
 * been called when destroy returns.
 */
static void keyed_destroy_runs_tasks_queued_meanwhile(struct ktest *t)
{
	static const u64 k3 = 3;
	static struct kx_ctx c;
	struct kx_task *kt;

	if (!kx_create(t, &c))
		return;
	kt = kzalloc(sizeof(*kt), GFP_KERNEL);
	if (KT_EXPECT(t, kt)) {
		kx_task_init(kt, &c, 0, &k3, 1);
		kt->owned = true;
		kt->chain = 8;
		if (!KT_EXPECT(t, kx_queue(kt)))
			kfree(kt);
	}
	ordsched_keyed_destroy(c.kx);
	KT_EXPECT_EQ(t, atomic_read(&c.n), 9);
	KT_EXPECT_EQ(t, atomic_read(&c.done_n), 9);
	KT_EXPECT_EQ(t, atomic_read(&c.freed), 9);
	kx_expect_clean(t, &c);
}

/* ------------------------------------------------------------------------
 * The spreader
 */

#define SP_GROUPS	16
#define SP_JOBS		8

struct sp_job {
	struct ordsched_spread_job job;
	int g, j;
};

struct sp_group {
	struct ordsched_spread_group group;
	int nr, dispatched, releases, left;
};

struct sp_ctx {
	struct ordsched_spread *sp;
	struct sp_group g[SP_GROUPS];
	struct sp_job jobs[SP_GROUPS][SP_JOBS];
	int ngroups, avail, next;
	int held, max_held;
	int nd, order[SP_GROUPS * SP_JOBS];
	int dry_at;		/* dispatches done at the first empty pull */
	atomic_t in_cb, calls;
	bool concurrent, not_task, order_bad;
	int block_at;		/* dispatch number that blocks, 0: none */
	struct completion blocked, rel;
};

static void sp_enter(struct sp_ctx *c)
{
	if (atomic_inc_return(&c->in_cb) != 1)
		c->concurrent = true;
	if (!in_task() || in_softirq())
		c->not_task = true;
	atomic_inc(&c->calls);
}

static void sp_leave(struct sp_ctx *c)
{
	atomic_dec(&c->in_cb);
}

static struct ordsched_spread_group *sp_pull(void *priv)
{
	struct sp_ctx *c = priv;
	struct ordsched_spread_group *g = NULL;

	sp_enter(c);
	/* Pairs with the release that offers more groups: their fields. */
	if (c->next < smp_load_acquire(&c->avail)) {
		g = &c->g[c->next++].group;
		c->max_held = max(c->max_held, ++c->held);
	} else if (c->dry_at < 0) {
		c->dry_at = c->nd;
	}
	sp_leave(c);
	return g;
}

static void sp_dispatch(void *priv, struct ordsched_spread_job *job)
{
	struct sp_ctx *c = priv;
	struct sp_job *sj = container_of(job, struct sp_job, job);
	struct sp_group *g = &c->g[sj->g];

	sp_enter(c);
	if (sj->j != g->dispatched++)
		c->order_bad = true;
	if (c->nd < (int)ARRAY_SIZE(c->order))
		c->order[c->nd] = sj->g;
	c->nd++;
	if (c->nd % 7 == 0)
		usleep_range(1000, 2000);	/* "may sleep" */
	if (c->nd == c->block_at) {
		complete(&c->blocked);
		block_on(&c->rel);
	}
	sp_leave(c);
}

static void sp_release(void *priv, struct ordsched_spread_group *group)
{
	struct sp_ctx *c = priv;
	struct sp_group *g = container_of(group, struct sp_group, group);
	struct list_head *pos;

	sp_enter(c);
	g->releases++;
	g->left = 0;
	list_for_each(pos, &group->jobs)
		g->left++;
	c->held--;
	sp_leave(c);
}

static const struct ordsched_spread_ops sp_ops = {
	.pull = sp_pull,
	.dispatch = sp_dispatch,
	.release = sp_release,
};

/* Groups of the given sizes, the first @avail of them offered. */
static void sp_setup(struct sp_ctx *c, const int *sizes, int n, int avail)
{
	int i, j;

	c->ngroups = n;
	c->avail = avail;
	c->dry_at = -1;
	init_completion(&c->blocked);
	init_completion(&c->rel);
	for (i = 0; i < n; i++) {
		ordsched_spread_group_init(&c->g[i].group);
		c->g[i].nr = sizes[i];
		for (j = 0; j < sizes[i]; j++) {
			c->jobs[i][j] = (struct sp_job){ .g = i, .j = j };
			ordsched_spread_group_add(&c->g[i].group,
						  &c->jobs[i][j].job);
		}
	}
}

static struct ordsched_spread *sp_create(struct ktest *t, struct sp_ctx *c,
					 unsigned int lanes,
					 unsigned int budget)
{
	struct ordsched_spread_params p = {
		.name = "promise", .ops = &sp_ops, .priv = c,
		.lanes = lanes, .budget = budget,
	};

	c->sp = ordsched_spread_create(&p);
	if (!KT_EXPECT(t, !IS_ERR_OR_NULL(c->sp)))
		c->sp = NULL;
	return c->sp;
}

static int sp_flush(void *sp)
{
	return ordsched_spread_flush(sp);
}

static int sp_destroy(void *sp)
{
	ordsched_spread_destroy(sp);
	return 0;
}

static int sp_total(struct sp_ctx *c, int nr_groups)
{
	int i, n = 0;

	for (i = 0; i < nr_groups; i++)
		n += c->g[i].nr;
	return n;
}

/* Everything offered has been pulled, dispatched in order and released. */
static void sp_expect_all_done(struct ktest *t, struct sp_ctx *c)
{
	int i;

	KT_EXPECT_EQ(t, c->next, c->avail);
	KT_EXPECT_EQ(t, c->nd, sp_total(c, c->avail));
	for (i = 0; i < c->avail; i++) {
		KT_EXPECT_EQ(t, c->g[i].dispatched, c->g[i].nr);
		KT_EXPECT_EQ(t, c->g[i].releases, 1);
		KT_EXPECT_EQ(t, c->g[i].left, 0);
	}
	KT_EXPECT(t, !c->order_bad);
	KT_EXPECT(t, !c->concurrent);
	KT_EXPECT(t, !c->not_task);
}

/*
 * <ordsched.h> "returns an ERR_PTR() on failure" with spread.h @ops
 * "the callbacks (required)" and @lanes "(0: default 4, at most 1024)".
 */
static void spread_create_rejects_bad_params(struct ktest *t)
{
	struct ordsched_spread_params none = { .name = "promise" };
	struct ordsched_spread_params wide = { .ops = &sp_ops, .lanes = 1025 };

	expect_create_failed(t, ordsched_spread_create(&none), sp_destroy);
	expect_create_failed(t, ordsched_spread_create(&wide), sp_destroy);
}

/*
 * spread.h "While F or more groups are active, consecutive jobs of
 * one group are exactly F apart in dispatch order"; spread.h "the
 * spreader never holds more than F groups"; @jobs "in the order they are
 * dispatched"; @release "every job of it has been dispatched"; callbacks
 * "never two at a time for one spreader, and may sleep"; @budget "most
 * jobs one run dispatches before it requeues itself"; flush "waits ...
 * until the producer is dry and every pulled job dispatched".
 */
static void spread_groups_exactly_F_apart(struct ktest *t)
{
	static const int sizes[12] = { 5, 3, 7, 2, 6, 4, 5, 1, 3, 6, 2, 4 };
	struct ordsched_spread_stats st;
	struct sp_ctx *c = kzalloc(sizeof(*c), GFP_KERNEL);
	int last[SP_GROUPS], i, total;

	if (!KT_EXPECT(t, c))
		return;
	sp_setup(c, sizes, 12, 12);
	total = sp_total(c, 12);
	if (!sp_create(t, c, 4, 3))
		goto out;
	ordsched_spread_kick(c->sp);
	KT_EXPECT_EQ(t, bounded(t, sp_flush, c->sp), 0);
	sp_expect_all_done(t, c);
	KT_EXPECT(t, c->max_held <= 4);
	KT_EXPECT(t, c->dry_at > 0);
	for (i = 0; i < SP_GROUPS; i++)
		last[i] = -1;
	for (i = 0; i < c->nd && i < c->dry_at; i++) {
		int g = c->order[i];

		if (last[g] >= 0 && !KT_EXPECT_EQ(t, i - last[g], 4))
			ktest_diag(t, "group %d: jobs at %d and %d", g,
				   last[g], i);
		last[g] = i;
	}
	ordsched_spread_get_stats(c->sp, &st);
	KT_EXPECT_EQ(t, st.groups, 12);
	KT_EXPECT_EQ(t, st.empty_groups, 0);
	KT_EXPECT_EQ(t, st.jobs, total);
	KT_EXPECT(t, st.requeues >= DIV_ROUND_UP(total, 3) - 1);
	ordsched_spread_destroy(c->sp);
out:
	kfree(c);
}

/*
 * spread.h "an empty group is allowed (it is released at once)";
 * @groups "groups pulled, empty ones included"; @empty_groups.
 */
static void spread_empty_groups_released_at_once(struct ktest *t)
{
	static const int sizes[5] = { 0, 3, 0, 0, 2 };
	struct ordsched_spread_stats st;
	struct sp_ctx *c = kzalloc(sizeof(*c), GFP_KERNEL);

	if (!KT_EXPECT(t, c))
		return;
	sp_setup(c, sizes, 5, 5);
	if (!sp_create(t, c, 2, 0))
		goto out;
	ordsched_spread_kick(c->sp);
	KT_EXPECT_EQ(t, bounded(t, sp_flush, c->sp), 0);
	sp_expect_all_done(t, c);
	ordsched_spread_get_stats(c->sp, &st);
	KT_EXPECT_EQ(t, st.groups, 5);
	KT_EXPECT_EQ(t, st.empty_groups, 3);
	KT_EXPECT_EQ(t, st.jobs, 5);
	ordsched_spread_destroy(c->sp);
out:
	kfree(c);
}

static void sp_kick_in_hardirq(void *sp)
{
	ordsched_spread_kick(sp);
}

/*
 * spread.h "When the producer runs dry ... a kick resumes pulling once
 * the producer has more"; spread.h "kick in any context, hard
 * interrupt included"; spread.h "the groups a producer makes before a
 * kick are seen by the pull that follows it"; flush "waits ... until the
 * producer is dry and every pulled job dispatched".
 */
static void spread_kick_from_hardirq_resumes_pulling(struct ktest *t)
{
	static const int sizes[5] = { 2, 2, 3, 3, 1 };
	struct sp_ctx *c = kzalloc(sizeof(*c), GFP_KERNEL);

	if (!KT_EXPECT(t, c))
		return;
	sp_setup(c, sizes, 5, 2);
	if (!sp_create(t, c, 2, 0))
		goto out;
	ordsched_spread_kick(c->sp);
	KT_EXPECT_EQ(t, bounded(t, sp_flush, c->sp), 0);
	sp_expect_all_done(t, c);
	/* Pairs with sp_pull()'s acquire: the groups are set up before. */
	smp_store_release(&c->avail, 5);
	call_in_hardirq(t, sp_kick_in_hardirq, c->sp);
	KT_EXPECT_EQ(t, bounded(t, sp_flush, c->sp), 0);
	sp_expect_all_done(t, c);
	ordsched_spread_destroy(c->sp);
out:
	kfree(c);
}

/*
 * spread.h "flush waits, killably" (<ordsched.h>: "killable: 0 or
 * -EINTR"); spread.h "destroy stops at the next job and hands the
 * groups in hand back through @release, their undispatched jobs still on
 * them"; <ordsched.h> destroy "returns only when nothing of the
 * instance runs or will run".
 */
static void spread_destroy_hands_back_undispatched_jobs(struct ktest *t)
{
	static const int sizes[4] = { 6, 6, 6, 6 };
	struct sp_ctx *c = kzalloc(sizeof(*c), GFP_KERNEL);
	struct async *a;
	bool blocked;
	int i, calls;

	if (!KT_EXPECT(t, c))
		return;
	sp_setup(c, sizes, 4, 4);
	c->block_at = 3;
	if (!sp_create(t, c, 2, 0))
		goto out;
	ordsched_spread_kick(c->sp);
	KT_EXPECT(t, wait_done(&c->blocked));

	a = async_start(t, sp_flush, c->sp);
	if (a) {
		KT_EXPECT(t, async_blocked(a));
		async_kill(a);
		KT_EXPECT_EQ(t, async_end(t, a), -EINTR);
	}

	a = async_start(t, sp_destroy, c->sp);
	if (!a)
		goto out_leak;
	blocked = KT_EXPECT(t, async_blocked(a));
	complete_all(&c->rel);
	/* A destroy that did not wait may leave the dispatch running on @c. */
	if (async_end(t, a) != 0 || !blocked)
		goto out_leak;
	calls = atomic_read(&c->calls);
	ktest_diag(t, "dispatched %d of %d before destroy stopped", c->nd,
		   sp_total(c, 4));
	KT_EXPECT(t, c->nd >= 3 && c->nd <= 4);
	KT_EXPECT_EQ(t, c->held, 0);
	for (i = 0; i < 4; i++) {
		if (i < c->next) {
			KT_EXPECT_EQ(t, c->g[i].releases, 1);
			KT_EXPECT_EQ(t, c->g[i].dispatched + c->g[i].left,
				     c->g[i].nr);
		} else {
			KT_EXPECT_EQ(t, c->g[i].releases, 0);
		}
	}
	KT_EXPECT(t, !c->order_bad);
	KT_EXPECT(t, !c->concurrent);
	msleep(50);
	KT_EXPECT_EQ(t, atomic_read(&c->calls), calls);
out:
	kfree(c);
	return;
out_leak:
	/* The spreader may still call into @c: leave it. */
	KT_FAIL(t, "destroy did not wait for the dispatch: context leaked");
}

static const struct ktest_case promise_seq_cases[] = {
	KT_CASE(seq_create_rejects_ring_order_21),
	KT_CASE(seq_tail_handin_runs_parked_items_inline),
	KT_CASE(seq_full_window_eagain_loses_no_ticket),
	KT_CASE(seq_tickets_wait_sleeps_for_room),
	KT_CASE(seq_tickets_wait_bad_n_einval),
	KT_CASE(seq_tickets_wait_killed_takes_nothing),
	KT_CASE_SEQ_MISUSE(seq_queue_refuses_untaken_ticket),
	KT_CASE_SEQ_MISUSE(seq_queue_refuses_alias_and_repeat),
	KT_CASE_SEQ_MISUSE(seq_cancel_of_handed_in_ticket),
	KT_CASE(seq_cancel_skips_the_turn),
	KT_CASE(seq_fn_hands_in_next_run_by_same_drain),
	KT_CASE(seq_budget_hands_the_rest_to_the_workqueue),
	KT_CASE(seq_flush_waits_for_earlier_tickets_only),
	KT_CASE(seq_destroy_runs_work_handed_in_meanwhile),
	KT_CASE(seq_destroy_waits_for_taken_tickets),
	KT_CASE_WARNS(seq_destroy_log_names_the_waited_ticket, 0, 0,
		      "destroying[ ]sequencer[ ]promise: waiting [0-9]+ s for ticket 7770000077,"),
	KT_CASE(seq_tickets_in_hardirq_handins_in_softirq),
	KT_CASE(seq_concurrent_producers_strict_order),
	KT_CASE(pipeline_create_rejects_bad_params),
	KT_CASE(pipeline_serial_in_queue_order_with_errors),
	KT_CASE(pipeline_queue_refuses_full_window_then_waits),
	KT_CASE(pipeline_queue_wait_killed_not_queued),
	KT_CASE(pipeline_cancel_before_parallel_skips_serial),
	KT_CASE(pipeline_cancel_of_running_job_is_false),
	KT_CASE_WARNS(pipeline_queue_refuses_already_queued_job, 1, 1),
	KT_CASE_WARNS(pipeline_queue_twice_at_once_refuses_one, 1, 1),
	KT_CASE(pipeline_queue_from_softirq_and_irqs_off),
	KT_CASE(pipeline_flush_waits_for_earlier_jobs_only),
	KT_CASE(pipeline_destroy_runs_jobs_queued_meanwhile),
	KT_CASE(stream_fifo_serial_under_concurrency),
	KT_CASE(stream_other_streams_progress_while_one_sleeps),
	KT_CASE(stream_queue_cancel_answers_and_node),
	KT_CASE(stream_item_requeues_itself_then_moves),
	KT_CASE(stream_set_budget_requeues_drain),
	KT_CASE(stream_flush_waits_for_earlier_items_only),
	KT_CASE(stream_init_queue_cancel_in_hardirq),
	KT_CASE(stream_destroy_runs_items_queued_meanwhile),
	KT_CASE(keyed_create_rejects_hash_order_17),
	KT_CASE(keyed_queue_refuses_invalid_keys),
	KT_CASE(keyed_queue_refuses_already_queued_task),
	KT_CASE(keyed_shared_keys_serialize_under_concurrency),
	KT_CASE(keyed_rollup_waits_for_and_holds_its_keys_only),
	KT_CASE(keyed_running_rollup_holds_back_nothing_else),
	KT_CASE(keyed_done_after_keys_handed_on),
	KT_CASE(keyed_cancel_takes_back_parked_tasks),
	KT_CASE(keyed_queue_cancel_in_softirq),
	KT_CASE(keyed_flush_waits_for_earlier_tasks_and_done),
	KT_CASE(keyed_destroy_runs_tasks_queued_meanwhile),
	KT_CASE(spread_create_rejects_bad_params),
	KT_CASE(spread_groups_exactly_F_apart),
	KT_CASE(spread_empty_groups_released_at_once),
	KT_CASE(spread_kick_from_hardirq_resumes_pulling),
	KT_CASE(spread_destroy_hands_back_undispatched_jobs),
	KT_END
};

const struct ktest_suite ordsched_promise_seq_suite =
	KT_SUITE("promise", promise_seq_cases);
