// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the ticket sequencer: order under concurrent producers in
 * process and softirq context, trash, the window, batches, wrap edges,
 * the drain budget, flush and destroy.
 */
#include <linux/bitmap.h>
#include <linux/bottom_half.h>
#include <linux/completion.h>
#include <linux/debug_locks.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/interrupt.h>
#include <linux/jiffies.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/sched/task.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/timer.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <ordsched.h>

#include "ktest.h"
#include "suites.h"
#include "util.h"

/* ---- the stress checker ------------------------------------------------ */

struct stress;

struct stress_item {
	struct ordsched_seq_item item;
	struct stress *s;
};

struct stress {
	struct ordsched_seq *seq;
	struct stress_item *items;
	unsigned long *trashed;
	unsigned long *ran;
	u64 first;
	u64 n;
	/* Tickets not yet claimed by a producer. */
	atomic64_t remaining;
	unsigned int trash_per_mille;
	unsigned int batch_max;
	/* Written by item functions only, which the sequencer serializes. */
	u64 expect;
	u64 errors;
	u64 first_bad;
	/* Tickets taken and handed in by timer callbacks, in softirq. */
	atomic64_t softirq_tickets;
};

static void stress_item_fn(struct ordsched_seq_item *item, u64 ticket)
{
	struct stress *s = container_of(item, struct stress_item, item)->s;
	u64 idx = ticket - s->first;

	if (idx >= s->n || test_and_set_bit(idx, s->ran)) {
		if (!s->errors++)
			s->first_bad = ticket;
		return;
	}
	/* Every ticket skipped since the last item must have been trashed. */
	for (; s->expect != ticket; s->expect++) {
		if (!test_bit(s->expect - s->first, s->trashed) && !s->errors++)
			s->first_bad = s->expect;
	}
	s->expect = ticket + 1;
}

/* Claim up to @want of the remaining tickets; returns how many. */
static unsigned int stress_claim(struct stress *s, unsigned int want)
{
	s64 left = atomic64_read(&s->remaining);

	do {
		if (left <= 0)
			return 0;
		want = min_t(s64, want, left);
	} while (!atomic64_try_cmpxchg(&s->remaining, &left, left - want));
	return want;
}

#define STRESS_BATCH_MAX 16

/* Hand in tickets [t0, t0 + b) in a random order, trashing some. */
static void stress_hand_in(struct stress *s, u64 t0, unsigned int b,
			   u32 *rnd, bool spin)
{
	unsigned int order[STRESS_BATCH_MAX], i, j;

	for (i = 0; i < b; i++) {
		j = kt_rand(rnd) % (i + 1);
		order[i] = order[j];
		order[j] = i;
	}
	for (i = 0; i < b; i++) {
		u64 tk = t0 + order[i];
		u64 idx = tk - s->first;

		/* Mostly short work, sometimes much longer: jitter. */
		if (spin)
			kt_spin(kt_rand(rnd) % 64 ? kt_rand(rnd) % 256 :
				4096 + kt_rand(rnd) % 4096);
		if (kt_rand(rnd) % 1000 < s->trash_per_mille) {
			set_bit(idx, s->trashed);
			ordsched_seq_cancel(s->seq, tk);
		} else {
			ordsched_seq_queue(s->seq, tk, &s->items[idx].item);
		}
	}
}

static int stress_producer(void *data, unsigned int idx)
{
	struct stress *s = data;
	u32 rnd = 0x9e3779b9 ^ (idx * 0x85ebca6b) ^ (u32)s->first;
	unsigned int b;
	u64 t0;
	int ret;

	while ((b = stress_claim(s, 1 + kt_rand(&rnd) % s->batch_max))) {
		ret = ordsched_seq_tickets_wait(s->seq, b, &t0);
		if (ret)
			return ret;
		stress_hand_in(s, t0, b, &rnd, true);
		cond_resched();
	}
	return 0;
}

/* Softirq producers: a timer per producer thread, re-armed every tick. */
struct stress_timer {
	struct timer_list timer;
	struct stress *s;
	u32 rnd;
	bool stop;
};

static void stress_timer_fn(struct timer_list *timer)
{
	struct stress_timer *st = from_timer(st, timer, timer);
	struct stress *s = st->s;
	unsigned int b = stress_claim(s, 1 + kt_rand(&st->rnd) % STRESS_BATCH_MAX);
	u64 t0;

	if (b && ordsched_seq_tickets(s->seq, b, &t0)) {
		atomic64_add(b, &s->remaining);	/* window full: retry later */
		b = 0;
	}
	if (b) {
		stress_hand_in(s, t0, b, &st->rnd, false);
		atomic64_add(b, &s->softirq_tickets);
	}
	if (!READ_ONCE(st->stop) && atomic64_read(&s->remaining) > 0)
		mod_timer(&st->timer, jiffies + 1);
}

static int stress_mixed_producer(void *data, unsigned int idx)
{
	struct stress *s = data;
	struct stress_timer st = { .s = s, .rnd = 0x2545f491 * (idx + 1) };
	int ret;

	timer_setup_on_stack(&st.timer, stress_timer_fn, TIMER_PINNED);
	mod_timer(&st.timer, jiffies + 1);
	ret = stress_producer(data, idx);
	WRITE_ONCE(st.stop, true);
	del_timer_sync(&st.timer);
	destroy_timer_on_stack(&st.timer);
	return ret;
}

static void stress_run(struct ktest *t, u64 first, u64 n,
		       unsigned int trash_per_mille, unsigned int ring_order,
		       bool softirq)
{
	struct ordsched_seq_params p = {
		.name = "stress",
		.first_ticket = first,
		.ring_order = ring_order,
	};
	struct ordsched_seq_stats stats;
	struct stress *s;
	u64 i, nr_trashed;
	unsigned int threads = 2 * num_online_cpus();

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!KT_EXPECT(t, s))
		return;
	s->items = vcalloc(n, sizeof(*s->items));
	s->trashed = bitmap_zalloc(n, GFP_KERNEL);
	s->ran = bitmap_zalloc(n, GFP_KERNEL);
	if (!KT_EXPECT(t, s->items && s->trashed && s->ran))
		goto out_free;
	s->seq = ordsched_seq_create(&p);
	if (!KT_EXPECT(t, !IS_ERR(s->seq)))
		goto out_free;

	for (i = 0; i < n; i++) {
		s->items[i].item.fn = stress_item_fn;
		s->items[i].s = s;
	}
	s->first = first;
	s->n = n;
	s->expect = first;
	s->trash_per_mille = trash_per_mille;
	s->batch_max = 8;
	atomic64_set(&s->remaining, n);

	KT_EXPECT_EQ(t, kt_run_threads(threads, softirq ?
				       stress_mixed_producer : stress_producer,
				       s), 0);
	ordsched_seq_flush(s->seq);

	KT_EXPECT_EQ(t, s->errors, 0);
	if (s->errors)
		ktest_diag(t, "first bad ticket %llu", s->first_bad);
	KT_EXPECT_EQ(t, ordsched_seq_tail(s->seq), first + n);
	for (i = 0; i < n; i++) {
		/* Exactly one of: ran, trashed. */
		if (test_bit(i, s->ran) == test_bit(i, s->trashed)) {
			ktest_fail(t, __FILE__, __LINE__,
				   "ticket %llu ran %d trashed %d", first + i,
				   test_bit(i, s->ran), test_bit(i, s->trashed));
			break;
		}
	}
	nr_trashed = bitmap_weight(s->trashed, n);
	ordsched_seq_get_stats(s->seq, &stats);
	KT_EXPECT_EQ(t, stats.tickets, n);
	KT_EXPECT_EQ(t, stats.cancelled, nr_trashed);
	KT_EXPECT_EQ(t, stats.inline_runs + stats.handoff_runs, n);
	if (trash_per_mille)
		KT_EXPECT(t, nr_trashed > 0);
	if (softirq) {
		KT_EXPECT(t, atomic64_read(&s->softirq_tickets) > 0);
		ktest_diag(t, "%lld tickets taken and handed in from softirq",
			   atomic64_read(&s->softirq_tickets));
	}
	ktest_diag(t, "%llu tickets, %llu trashed, %llu parked, peak depth %llu",
		   n, nr_trashed, stats.parked, stats.peak_depth);
	ktest_diag(t, "%llu drains, %llu hand-offs, %llu overflows",
		   stats.inline_drains, stats.handoffs, stats.overflows);
	ordsched_seq_destroy(s->seq);
out_free:
	bitmap_free(s->ran);
	bitmap_free(s->trashed);
	vfree(s->items);
	kfree(s);
}

static void stress_100k(struct ktest *t)
{
	stress_run(t, 0, kt_stress(100000), 0, 0, false);
}

static void stress_trash_1pct(struct ktest *t)
{
	stress_run(t, 1000, 50000, 10, 0, false);
}

static void stress_trash_10pct(struct ktest *t)
{
	stress_run(t, 7, 50000, 100, 0, false);
}

/* A ring of 8: producers constantly hit the window and wait for room. */
static void stress_tiny_ring(struct ktest *t)
{
	stress_run(t, 0, 20000, 10, 3, false);
}

static void stress_softirq(struct ktest *t)
{
	stress_run(t, 0, 50000, 10, 0, true);
}

static void wrap_2_32(struct ktest *t)
{
	stress_run(t, (1ULL << 32) - 5000, 10000, 10, 6, false);
}

static void wrap_2_63(struct ktest *t)
{
	stress_run(t, (1ULL << 63) - 5000, 10000, 10, 6, false);
}

static void wrap_2_64(struct ktest *t)
{
	stress_run(t, U64_MAX - 4999, 10000, 10, 6, false);
}

/* ---- single-threaded cases --------------------------------------------- */

struct log_item {
	struct ordsched_seq_item item;
	u64 *log;
	unsigned int *len;
	struct task_struct **who;
};

static void log_item_fn(struct ordsched_seq_item *item, u64 ticket)
{
	struct log_item *li = container_of(item, struct log_item, item);

	li->who[*li->len] = current;
	li->log[(*li->len)++] = ticket;
}

#define NLOG 300

struct log {
	struct log_item items[NLOG];
	u64 tickets[NLOG];
	struct task_struct *who[NLOG];
	unsigned int len;
};

static struct log *log_alloc(void)
{
	struct log *l = kzalloc(sizeof(*l), GFP_KERNEL);
	int i;

	for (i = 0; l && i < NLOG; i++) {
		l->items[i].item.fn = log_item_fn;
		l->items[i].log = l->tickets;
		l->items[i].len = &l->len;
		l->items[i].who = l->who;
	}
	return l;
}

/* Hand-ins in reverse: nothing runs until the first, then all in order. */
static void basic_order(struct ktest *t)
{
	struct ordsched_seq_params p = { .first_ticket = 100 };
	struct ordsched_seq *seq = ordsched_seq_create(&p);
	struct log *l = log_alloc();
	u64 first;
	int i;

	if (!KT_EXPECT(t, !IS_ERR(seq) && l))
		goto out;
	KT_EXPECT_EQ(t, ordsched_seq_tickets(seq, 10, &first), 0);
	KT_EXPECT_EQ(t, first, 100);
	for (i = 9; i >= 1; i--)
		ordsched_seq_queue(seq, first + i, &l->items[i].item);
	KT_EXPECT_EQ(t, l->len, 0);
	KT_EXPECT_EQ(t, ordsched_seq_tail(seq), 100);
	ordsched_seq_queue(seq, first, &l->items[0].item);
	KT_EXPECT_EQ(t, l->len, 10);
	for (i = 0; i < 10 && i < l->len; i++) {
		KT_EXPECT_EQ(t, l->tickets[i], 100 + i);
		/* Run by this thread: the one that completed the tail. */
		KT_EXPECT(t, l->who[i] == current);
	}
	KT_EXPECT_EQ(t, ordsched_seq_tail(seq), 110);
	ordsched_seq_destroy(seq);
	seq = NULL;
out:
	ordsched_seq_destroy(seq);
	kfree(l);
}

/* Trashed tickets are skipped, wherever they are. */
static void trash_skips(struct ktest *t)
{
	struct ordsched_seq *seq = ordsched_seq_create(NULL);
	struct ordsched_seq_stats st;
	struct log *l = log_alloc();
	u64 first;

	if (!KT_EXPECT(t, !IS_ERR(seq) && l))
		goto out;
	KT_EXPECT_EQ(t, ordsched_seq_tickets(seq, 6, &first), 0);
	ordsched_seq_cancel(seq, first + 2);
	ordsched_seq_queue(seq, first + 3, &l->items[3].item);
	ordsched_seq_cancel(seq, first + 5);
	ordsched_seq_queue(seq, first + 1, &l->items[1].item);
	ordsched_seq_cancel(seq, first);	/* the tail: drains 1 and 3 */
	KT_EXPECT_EQ(t, l->len, 2);
	KT_EXPECT_EQ(t, l->tickets[0], first + 1);
	KT_EXPECT_EQ(t, l->tickets[1], first + 3);
	KT_EXPECT_EQ(t, ordsched_seq_tail(seq), first + 4);
	ordsched_seq_queue(seq, first + 4, &l->items[4].item);
	KT_EXPECT_EQ(t, l->len, 3);
	KT_EXPECT_EQ(t, ordsched_seq_tail(seq), first + 6);
	ordsched_seq_get_stats(seq, &st);
	KT_EXPECT_EQ(t, st.cancelled, 3);
	KT_EXPECT_EQ(t, st.tickets, 6);
out:
	ordsched_seq_destroy(seq);
	kfree(l);
}

/* Tickets beyond the window are refused, never lost; room comes back. */
static void window_full(struct ktest *t)
{
	struct ordsched_seq_params p = { .ring_order = 4 };
	struct ordsched_seq *seq = ordsched_seq_create(&p);
	struct ordsched_seq_stats st;
	struct log *l = log_alloc();
	u64 first, more;
	int i;

	if (!KT_EXPECT(t, !IS_ERR(seq) && l))
		goto out;
	KT_EXPECT_EQ(t, ordsched_seq_tickets(seq, 0, &more), -EINVAL);
	KT_EXPECT_EQ(t, ordsched_seq_tickets(seq, 17, &more), -EINVAL);
	KT_EXPECT_EQ(t, ordsched_seq_tickets(seq, 15, &first), 0);
	KT_EXPECT_EQ(t, ordsched_seq_tickets(seq, 2, &more), -EAGAIN);
	KT_EXPECT_EQ(t, ordsched_seq_tickets(seq, 1, &more), 0);
	KT_EXPECT_EQ(t, more, first + 15);
	KT_EXPECT_EQ(t, ordsched_seq_ticket(seq, &more), -EAGAIN);
	/* Parked items do not make room; only the tail moving does. */
	for (i = 1; i < 16; i++)
		ordsched_seq_queue(seq, first + i, &l->items[i].item);
	KT_EXPECT_EQ(t, ordsched_seq_ticket(seq, &more), -EAGAIN);
	ordsched_seq_queue(seq, first, &l->items[0].item);
	KT_EXPECT_EQ(t, l->len, 16);
	KT_EXPECT_EQ(t, ordsched_seq_tickets(seq, 16, &more), 0);
	KT_EXPECT_EQ(t, more, first + 16);
	for (i = 0; i < 16; i++)
		ordsched_seq_cancel(seq, more + i);
	ordsched_seq_get_stats(seq, &st);
	KT_EXPECT_EQ(t, st.overflows, 3);
	KT_EXPECT_EQ(t, st.peak_depth, 15);
	KT_EXPECT_EQ(t, ordsched_seq_create(&(struct ordsched_seq_params){
					    .ring_order = 21 }) ==
		     ERR_PTR(-EINVAL), true);
out:
	ordsched_seq_destroy(seq);
	kfree(l);
}

/*
 * The drain budget: the producer that completes the tail with many items
 * parked runs exactly budget of them, hands the rest to a worker and
 * returns.
 */
static void budget_handoff(struct ktest *t)
{
	struct ordsched_seq_params p = { .budget = 8, .ring_order = 9 };
	struct ordsched_seq *seq = ordsched_seq_create(&p);
	struct ordsched_seq_stats st;
	struct log *l = log_alloc();
	unsigned int i, mine = 0;
	u64 first;

	if (!KT_EXPECT(t, !IS_ERR(seq) && l))
		goto out;
	KT_EXPECT_EQ(t, ordsched_seq_tickets(seq, 200, &first), 0);
	for (i = 1; i < 200; i++)
		ordsched_seq_queue(seq, first + i, &l->items[i].item);
	ordsched_seq_queue(seq, first, &l->items[0].item);
	ordsched_seq_flush(seq);
	KT_EXPECT_EQ(t, l->len, 200);
	for (i = 0; i < l->len; i++) {
		if (l->tickets[i] != first + i) {
			KT_EXPECT_EQ(t, l->tickets[i], first + i);
			break;
		}
		mine += l->who[i] == current;
	}
	KT_EXPECT_EQ(t, mine, 8);
	ordsched_seq_get_stats(seq, &st);
	KT_EXPECT_EQ(t, st.inline_runs, 8);
	KT_EXPECT_EQ(t, st.handoff_runs, 192);
	/* Each worker run stops at the budget too: 192 / 8 hand-offs. */
	KT_EXPECT_EQ(t, st.handoffs, 24);
out:
	ordsched_seq_destroy(seq);
	kfree(l);
}

/* Flush waits for parked items that a worker runs. */
static void flush_waits(struct ktest *t)
{
	struct ordsched_seq_params p = { .budget = 1 };
	struct ordsched_seq *seq = ordsched_seq_create(&p);
	struct log *l = log_alloc();
	u64 first;
	int i;

	if (!KT_EXPECT(t, !IS_ERR(seq) && l))
		goto out;
	KT_EXPECT_EQ(t, ordsched_seq_tickets(seq, 50, &first), 0);
	for (i = 49; i >= 0; i--)
		ordsched_seq_queue(seq, first + i, &l->items[i].item);
	ordsched_seq_flush(seq);
	KT_EXPECT_EQ(t, l->len, 50);
	KT_EXPECT_EQ(t, ordsched_seq_tail(seq), first + 50);
	/* Nothing outstanding: flush returns at once. */
	ordsched_seq_flush(seq);
out:
	ordsched_seq_destroy(seq);
	kfree(l);
}

static void destroy_idle(struct ktest *t)
{
	struct ordsched_seq *seq = ordsched_seq_create(NULL);
	u64 tk;

	if (!KT_EXPECT(t, !IS_ERR(seq)))
		return;
	ordsched_seq_destroy(seq);
	ordsched_seq_destroy(NULL);

	seq = ordsched_seq_create(NULL);
	if (!KT_EXPECT(t, !IS_ERR(seq)))
		return;
	KT_EXPECT_EQ(t, ordsched_seq_ticket(seq, &tk), 0);
	ordsched_seq_cancel(seq, tk);
	ordsched_seq_destroy(seq);
}

/*
 * Destroy drains: a ticket handed in late, by another thread, and a ticket
 * an item takes while destroy waits (handed in later still) all run
 * before destroy returns, in order; destroy returns only then.
 */
struct late_hand_in {
	struct ordsched_seq *seq;
	struct delayed_work first, chained;
	struct log *l;
	u64 tk[3];
	struct ordsched_seq_item chain_item;
	bool chained_taken;
};

static struct late_hand_in *late_of(struct ordsched_seq_item *item)
{
	return container_of(item, struct late_hand_in, chain_item);
}

/* Ticket tk[0]'s item: takes one more ticket, handed in 100 ms later. */
static void late_chain_fn(struct ordsched_seq_item *item, u64 ticket)
{
	struct late_hand_in *lh = late_of(item);

	lh->l->tickets[lh->l->len] = ticket;
	lh->l->len++;
	if (!ordsched_seq_ticket(lh->seq, &lh->tk[2])) {
		lh->chained_taken = true;
		queue_delayed_work(system_wq, &lh->chained,
				   msecs_to_jiffies(100));
	}
}

static void late_first_fn(struct work_struct *work)
{
	struct late_hand_in *lh = container_of(to_delayed_work(work),
					       struct late_hand_in, first);

	ordsched_seq_queue(lh->seq, lh->tk[0], &lh->chain_item);
}

static void late_chained_fn(struct work_struct *work)
{
	struct late_hand_in *lh = container_of(to_delayed_work(work),
					       struct late_hand_in, chained);

	ordsched_seq_queue(lh->seq, lh->tk[2], &lh->l->items[2].item);
}

static void destroy_drains(struct ktest *t)
{
	struct late_hand_in *lh = kzalloc(sizeof(*lh), GFP_KERNEL);
	ktime_t start;

	if (!KT_EXPECT(t, lh))
		return;
	lh->l = log_alloc();
	lh->seq = ordsched_seq_create(NULL);
	if (!KT_EXPECT(t, lh->l && !IS_ERR(lh->seq)))
		goto out;
	INIT_DELAYED_WORK(&lh->first, late_first_fn);
	INIT_DELAYED_WORK(&lh->chained, late_chained_fn);
	lh->chain_item.fn = late_chain_fn;
	KT_EXPECT_EQ(t, ordsched_seq_tickets(lh->seq, 2, &lh->tk[0]), 0);
	lh->tk[1] = lh->tk[0] + 1;
	/* Parked behind tk[0], which comes 200 ms late. */
	ordsched_seq_queue(lh->seq, lh->tk[1], &lh->l->items[1].item);
	queue_delayed_work(system_wq, &lh->first, msecs_to_jiffies(200));

	start = ktime_get();
	ordsched_seq_destroy(lh->seq);
	ktest_diag(t, "destroy waited %lld ms",
		   ktime_ms_delta(ktime_get(), start));
	KT_EXPECT(t, lh->chained_taken);
	KT_EXPECT_EQ(t, lh->l->len, 3);
	KT_EXPECT_EQ(t, lh->l->tickets[0], lh->tk[0]);
	KT_EXPECT_EQ(t, lh->l->tickets[1], lh->tk[1]);
	KT_EXPECT_EQ(t, lh->l->tickets[2], lh->tk[2]);
	KT_EXPECT(t, ktime_ms_delta(ktime_get(), start) >= 250);
	/* The works only return now; they touch nothing of the sequencer. */
	flush_delayed_work(&lh->first);
	flush_delayed_work(&lh->chained);
out:
	kfree(lh->l);
	kfree(lh);
}

/*
 * A taker held between its read of the head and its read of the tail, as
 * a preemption would hold it, while another CPU takes and drains twice the
 * window: the tail passes the head the taker read. The take must still
 * succeed (it once answered -EAGAIN, head - tail having wrapped). The hold
 * is a kprobe on the taker's read of the tail, for the victim thread only.
 */
struct stale_head {
	struct ordsched_seq *seq;
	struct task_struct *victim;
	/* 0: armed, 1: the victim is held, 2: released */
	atomic_t stage;
	int ret;
	u64 ticket;
	struct kprobe kp;
	struct completion victim_done, driver_done;
	int driver_ret;
};

static int stale_head_hold(struct kprobe *kp, struct pt_regs *regs)
{
	struct stale_head *sh = container_of(kp, struct stale_head, kp);

	if (current == READ_ONCE(sh->victim))
		kt_hold(&sh->stage);
	return 0;
}

static int stale_head_victim(void *arg)
{
	struct stale_head *sh = arg;

	sh->ret = ordsched_seq_ticket(sh->seq, &sh->ticket);
	if (!sh->ret)
		ordsched_seq_cancel(sh->seq, sh->ticket);
	complete(&sh->victim_done);
	return 0;
}

static int stale_head_driver(void *arg)
{
	struct stale_head *sh = arg;
	ktime_t until = ktime_add_ms(ktime_get(), 2000);
	int i, ret = 0;
	u64 tk;

	while (atomic_read(&sh->stage) != 1) {
		if (ktime_after(ktime_get(), until)) {
			ret = -ETIMEDOUT;
			goto out;
		}
		cpu_relax();
	}
	for (i = 0; i < 8 && !ret; i++) {
		ret = ordsched_seq_ticket(sh->seq, &tk);
		if (!ret)
			ordsched_seq_cancel(sh->seq, tk);
	}
out:
	atomic_set(&sh->stage, 2);
	sh->driver_ret = ret;
	complete(&sh->driver_done);
	return 0;
}

static void stale_head(struct ktest *t)
{
	struct ordsched_seq_params p = { .ring_order = 2 };
	struct task_struct *victim, *driver;
	struct stale_head *sh;
	int ret;

	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs two CPUs");
		return;
	}
	sh = kzalloc(sizeof(*sh), GFP_KERNEL);
	if (!KT_EXPECT(t, sh))
		return;
	init_completion(&sh->victim_done);
	init_completion(&sh->driver_done);
	sh->seq = ordsched_seq_create(&p);
	if (!KT_EXPECT(t, !IS_ERR(sh->seq)))
		goto out_free;
	sh->kp.symbol_name = "ordsched:seq_taker_tail";
	sh->kp.pre_handler = stale_head_hold;
	ret = register_kprobe(&sh->kp);
	if (ret) {
		ktest_skip(t, "no kprobe on seq_taker_tail");
		goto out_seq;
	}
	victim = kthread_create(stale_head_victim, sh, "kt_stale_victim");
	driver = kthread_create(stale_head_driver, sh, "kt_stale_driver");
	if (!KT_EXPECT(t, !IS_ERR(victim) && !IS_ERR(driver)))
		goto out_probe;	/* not reached in practice; leaks a thread */
	get_task_struct(victim);
	get_task_struct(driver);
	kthread_bind(victim, cpumask_first(cpu_online_mask));
	kthread_bind(driver, cpumask_next(cpumask_first(cpu_online_mask),
					  cpu_online_mask));
	WRITE_ONCE(sh->victim, victim);
	wake_up_process(driver);
	wake_up_process(victim);
	/* kthread_stop() of a thread that has not run yet would not run it. */
	wait_for_completion(&sh->driver_done);
	wait_for_completion(&sh->victim_done);
	kthread_stop(driver);
	kthread_stop(victim);
	KT_EXPECT_EQ(t, sh->driver_ret, 0);
	put_task_struct(victim);
	put_task_struct(driver);
	KT_EXPECT_EQ(t, atomic_read(&sh->stage), 2);
	KT_EXPECT_EQ(t, sh->ret, 0);
	ktest_diag(t, "the held taker got ticket %llu after the tail passed 8",
		   sh->ticket);
out_probe:
	unregister_kprobe(&sh->kp);
out_seq:
	ordsched_seq_destroy(sh->seq);
out_free:
	kfree(sh);
}

/*
 * Handing in a ticket twice is a bug in the caller: reported (one WARN),
 * refused, and the sequencer goes on.
 */
static void queue_twice_warns(struct ktest *t)
{
	struct ordsched_seq *seq = ordsched_seq_create(NULL);
	struct log *l = log_alloc();
	u64 tk;

	if (!KT_EXPECT(t, !IS_ERR(seq) && l))
		goto out;
	KT_EXPECT_EQ(t, ordsched_seq_ticket(seq, &tk), 0);
	KT_EXPECT(t, ordsched_seq_queue(seq, tk, &l->items[0].item));
	KT_EXPECT(t, !ordsched_seq_queue(seq, tk, &l->items[1].item));
	KT_EXPECT_EQ(t, l->len, 1);
	KT_EXPECT_EQ(t, ordsched_seq_ticket(seq, &tk), 0);
	KT_EXPECT(t, ordsched_seq_queue(seq, tk, &l->items[2].item));
	KT_EXPECT_EQ(t, l->len, 2);
out:
	ordsched_seq_destroy(seq);
	kfree(l);
}

/*
 * A slot's state keeps a ticket's low 62 bits: a ticket 2^62 before one
 * in the window looks like it to the slot. Never taken, it is refused
 * (one WARN), runs nothing and moves nothing: in a sequencer whose first
 * ticket is 2^62, ticket 0 was accepted, ran in ticket 2^62's place and
 * left the tail past the head, so that no ticket could be taken again and
 * destroy waited for ever.
 */
static void queue_far_alias_refused(struct ktest *t)
{
	struct ordsched_seq_params p = { .first_ticket = BIT_ULL(62) };
	struct ordsched_seq *seq = ordsched_seq_create(&p);
	struct log *l = log_alloc();
	u64 tk;

	if (!KT_EXPECT(t, !IS_ERR(seq) && l))
		goto out;
	KT_EXPECT(t, !ordsched_seq_queue(seq, 0, &l->items[0].item));
	KT_EXPECT(t, !ordsched_seq_cancel(seq, 1));
	KT_EXPECT_EQ(t, l->len, 0);
	KT_EXPECT_EQ(t, ordsched_seq_tail(seq), BIT_ULL(62));
	KT_EXPECT_EQ(t, ordsched_seq_tickets(seq, 2, &tk), 0);
	KT_EXPECT_EQ(t, tk, BIT_ULL(62));
	/* The alias of a parked ticket: its item stays, and runs. */
	KT_EXPECT(t, ordsched_seq_queue(seq, tk + 1, &l->items[1].item));
	KT_EXPECT(t, !ordsched_seq_queue(seq, tk + 1 - BIT_ULL(62),
					 &l->items[2].item));
	KT_EXPECT(t, ordsched_seq_queue(seq, tk, &l->items[3].item));
	KT_EXPECT_EQ(t, l->len, 2);
	KT_EXPECT_EQ(t, ordsched_seq_tail(seq), tk + 2);
out:
	ordsched_seq_destroy(seq);
	kfree(l);
}

/* As log_item_fn(), with the ticket marked: which item ran, not only when. */
static void log_item_marked_fn(struct ordsched_seq_item *item, u64 ticket)
{
	log_item_fn(item, ticket | BIT_ULL(63));
}

/*
 * Misuse is refused before it touches anything: a hand-in or a cancel of
 * a ticket never taken (even one inside the window), a second hand-in or
 * a cancel of a ticket whose item is parked, a cancel of a ticket that
 * has run. Each answers false, the parked item still runs (not the one
 * refused, nor NULL), and only the real cancellation counts. A miscount
 * of the tickets handed in would keep destroy waiting for ever.
 */
static void misuse_keeps_parked_item(struct ktest *t)
{
	struct ordsched_seq_params p = { .ring_order = 2 };
	struct ordsched_seq *seq = ordsched_seq_create(&p);
	struct ordsched_seq_stats st;
	struct log *l = log_alloc();
	u64 tk;

	if (!KT_EXPECT(t, !IS_ERR(seq) && l))
		goto out;
	l->items[1].item.fn = log_item_marked_fn;
	l->items[2].item.fn = log_item_marked_fn;
	KT_EXPECT_EQ(t, ordsched_seq_tickets(seq, 2, &tk), 0);
	KT_EXPECT(t, !ordsched_seq_queue(seq, tk + 2, &l->items[1].item));
	KT_EXPECT(t, !ordsched_seq_cancel(seq, tk + 2));
	KT_EXPECT(t, ordsched_seq_queue(seq, tk + 1, &l->items[0].item));
	KT_EXPECT(t, !ordsched_seq_queue(seq, tk + 1, &l->items[2].item));
	KT_EXPECT(t, !ordsched_seq_cancel(seq, tk + 1));
	KT_EXPECT_EQ(t, l->len, 0);
	KT_EXPECT(t, ordsched_seq_cancel(seq, tk));
	KT_EXPECT_EQ(t, l->len, 1);
	KT_EXPECT_EQ(t, l->tickets[0], tk + 1);
	KT_EXPECT(t, !ordsched_seq_cancel(seq, tk + 1));
	KT_EXPECT_EQ(t, ordsched_seq_tail(seq), tk + 2);
	ordsched_seq_get_stats(seq, &st);
	KT_EXPECT_EQ(t, st.cancelled, 1);
out:
	ordsched_seq_destroy(seq);
	kfree(l);
}

/*
 * ordsched.h: destroy may be called from a work item of the instance's
 * workqueue unless it runs one item at a time. A stream item on
 * ordsched's own workqueue destroys sequencer B, whose hand-off worker
 * (budget 1: the second item is the worker's) has drained B to the end
 * and is held on its way out of its function (a kretprobe). Destroy used
 * to flush_work() the hand-off: it waited for that function to return,
 * and told lockdep that a work item of the workqueue waited for the
 * workqueue (a "possible recursive locking" report on a lockdep kernel:
 * the workqueue has a rescuer) whenever the hand-off still ran. Destroy
 * waits for the hold to end, in synchronize_rcu() (the held CPU is in an
 * RCU read-side section), and lockdep must stay on. This does not catch
 * the old flush_work(): the hold ended with the grace period, before the
 * flush looked; its report needed the hand-off preempted between its
 * drain and its return, which no probe can hold. It guards the path: a
 * destroy from a work item of its own workqueue, the hand-off running.
 */
struct sxdestroy {
	struct kt_ret_hold hold;
	bool armed;
	struct ordsched_seq *b;
	struct ordsched_seq_item items[2];
	struct ordsched_stream s;
	struct ordsched_stream_item s_item;
	bool destroying;
	struct completion done;
};

/* seq_handoff_fn(): the first hand-off once armed; only B has one. */
static int sx_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct sxdestroy *x = container_of(get_kretprobe(ri), struct sxdestroy,
					   hold.krp);

	return !READ_ONCE(x->armed);
}

static void sx_item_fn(struct ordsched_seq_item *item, u64 ticket)
{
}

static void sx_stream_fn(struct ordsched_stream_item *item)
{
	struct sxdestroy *x = container_of(item, struct sxdestroy, s_item);

	WRITE_ONCE(x->destroying, true);
	ordsched_seq_destroy(x->b);
	complete(&x->done);
}

static void destroy_from_a_work_item_of_its_wq(struct ktest *t)
{
	struct ordsched_seq_params p = { .name = "sxdestroy", .budget = 1 };
	struct sxdestroy *x;
	bool held = false;
	u64 first;

	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs two CPUs");
		return;
	}
	x = kzalloc(sizeof(*x), GFP_KERNEL);
	if (!KT_EXPECT(t, x))
		return;
	init_completion(&x->done);
	x->items[0].fn = sx_item_fn;
	x->items[1].fn = sx_item_fn;
	ordsched_stream_init(&x->s, NULL);
	ordsched_stream_item_init(&x->s_item, sx_stream_fn);
	x->b = ordsched_seq_create(&p);
	if (!KT_EXPECT(t, !IS_ERR_OR_NULL(x->b)))
		goto out;
	x->hold.krp.entry_handler = sx_entry;
	if (kt_ret_hold_register(&x->hold, "ordsched:seq_handoff_fn")) {
		ktest_skip(t, "no kretprobe on seq_handoff_fn");
		ordsched_seq_destroy(x->b);
		goto out;
	}
	if (KT_EXPECT_EQ(t, ordsched_seq_tickets(x->b, 2, &first), 0)) {
		WRITE_ONCE(x->armed, true);
		KT_EXPECT(t, ordsched_seq_queue(x->b, first + 1, &x->items[1]));
		KT_EXPECT(t, ordsched_seq_queue(x->b, first, &x->items[0]));
		held = kt_wait_held(&x->hold.stage);
	}
	if (held) {
		KT_EXPECT(t, ordsched_stream_queue(&x->s, &x->s_item));
		/*
		 * Let go once destroy has had the time to look at the
		 * hand-off. No sleep while a thread is held: see
		 * kt_wait_held().
		 */
		KT_EXPECT(t, kt_spin_until(&x->destroying, 1000));
		kt_spin_ms(200);
		KT_EXPECT_EQ(t, atomic_read(&x->hold.stage), 1);
	}
	atomic_set(&x->hold.stage, 2);
	unregister_kretprobe(&x->hold.krp);
	if (held) {
		wait_for_completion(&x->done);
		KT_EXPECT(t, debug_locks);
	} else {
		ktest_skip(t, "the hand-off was never held");
		ordsched_seq_destroy(x->b);
	}
out:
	ordsched_stream_destroy(&x->s);
	kfree(x);
}

static const struct ktest_case seq_cases[] = {
	KT_CASE(basic_order),
	KT_CASE(trash_skips),
	KT_CASE(window_full),
	KT_CASE(budget_handoff),
	KT_CASE(flush_waits),
	KT_CASE(destroy_idle),
	KT_CASE(stress_100k),
	KT_CASE(stress_trash_1pct),
	KT_CASE(stress_trash_10pct),
	KT_CASE(stress_tiny_ring),
	KT_CASE(stress_softirq),
	KT_CASE(wrap_2_32),
	KT_CASE(wrap_2_63),
	KT_CASE(wrap_2_64),
	KT_CASE(destroy_drains),
	KT_CASE(destroy_from_a_work_item_of_its_wq),
	KT_CASE(stale_head),
	KT_CASE_SEQ_MISUSE(queue_twice_warns),
	KT_CASE_SEQ_MISUSE(queue_far_alias_refused),
	KT_CASE_SEQ_MISUSE(misuse_keeps_parked_item),
	KT_END
};

const struct ktest_suite ordsched_seq_suite = KT_SUITE("seq", seq_cases);
