// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the serial streams: 10,000 streams fed by concurrent producers,
 * the race between a drain's last item and a new queueing, producers in
 * hard interrupt context, cancel under concurrency, the drain budget,
 * flush and destroy with items pending, destroy by a thread that preempts
 * the drain.
 */
#include <linux/completion.h>
#include <linux/debug_locks.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <ordsched.h>

#include "compat.h"
#include "ktest.h"
#include "suites.h"
#include "util.h"

/* ---- a workqueue that can be held up --------------------------------- */

/*
 * An ordered workqueue whose first work item blocks until released. The
 * plug lives on the test's stack.
 */
struct plug {
	struct workqueue_struct *wq;
	struct work_struct work;
	struct completion release;
};

static void plug_fn(struct work_struct *work)
{
	wait_for_completion(&container_of(work, struct plug, work)->release);
}

static bool plug_init(struct plug *p)
{
	p->wq = alloc_ordered_workqueue("ordsched_test_plug", 0);
	if (!p->wq)
		return false;
	init_completion(&p->release);
	INIT_WORK_ONSTACK(&p->work, plug_fn);
	queue_work(p->wq, &p->work);
	return true;
}

static void plug_release(struct plug *p)
{
	complete(&p->release);
}

static void plug_fini(struct plug *p)
{
	destroy_workqueue(p->wq);
	destroy_work_on_stack(&p->work);
}

/* ---- 10,000 streams, concurrent producers ------------------------------ */

#define MANY_STREAMS	10000
#define MANY_PRODUCERS	8
#define MANY_MAX_EACH	3	/* items per producer and stream: 0..2 */

struct many;

struct many_item {
	struct ordsched_stream_item item;
	struct many *m;
	u32 stream;
	u8 producer;
	u8 k;
	u8 runs;
};

struct many_stream {
	struct ordsched_stream stream;
	atomic_t running;
	/* Next k expected from each producer; written by items only. */
	u8 next[MANY_PRODUCERS];
};

struct many {
	struct ordsched_stream_set *set;
	struct many_stream *streams;
	struct many_item *items;
	/* Items of producer p for stream s: items[first[i]], cnt[i] of them. */
	u32 *first;
	u8 *cnt;
	unsigned int producers;
	atomic_t overlaps;
	atomic_t misorders;
	atomic_t ran;
};

static void many_fn(struct ordsched_stream_item *item)
{
	struct many_item *mi = container_of(item, struct many_item, item);
	struct many *m = mi->m;
	struct many_stream *ms = &m->streams[mi->stream];

	if (atomic_inc_return(&ms->running) != 1)
		atomic_inc(&m->overlaps);
	if (ms->next[mi->producer] != mi->k)
		atomic_inc(&m->misorders);
	ms->next[mi->producer] = mi->k + 1;
	mi->runs++;
	if (!(mi->stream % 7))
		kt_spin(200);
	atomic_dec(&ms->running);
	atomic_inc(&m->ran);
}

static int many_producer(void *data, unsigned int p)
{
	struct many *m = data;
	u32 rnd = 0x9e3779b9 * (p + 1), start, stride;
	unsigned int k, j, s, n = 0;

	/* A stride coprime with 10,000 (odd, not a multiple of 5). */
	do {
		stride = (kt_rand(&rnd) % MANY_STREAMS) | 1;
	} while (!(stride % 5));
	start = kt_rand(&rnd) % MANY_STREAMS;
	for (k = 0; k < MANY_MAX_EACH; k++) {
		for (j = 0; j < MANY_STREAMS; j++) {
			u32 i;

			s = (start + (u64)j * stride) % MANY_STREAMS;
			i = p * MANY_STREAMS + s;
			if (k >= m->cnt[i])
				continue;
			ordsched_stream_queue(&m->streams[s].stream,
					      &m->items[m->first[i] + k].item);
			if (!(++n % 256))
				cond_resched();
		}
	}
	return 0;
}

static void many_check(struct ktest *t, struct many *m, u32 total)
{
	struct ordsched_stream_stats st;
	unsigned int s, p, bad = 0;
	u32 i;

	for (i = 0; i < total; i++)
		bad += m->items[i].runs != 1;
	KT_EXPECT_EQ(t, bad, 0);
	for (s = 0; s < MANY_STREAMS; s++)
		for (p = 0; p < m->producers; p++)
			bad += m->streams[s].next[p] !=
			       m->cnt[p * MANY_STREAMS + s];
	KT_EXPECT_EQ(t, bad, 0);
	KT_EXPECT_EQ(t, atomic_read(&m->overlaps), 0);
	KT_EXPECT_EQ(t, atomic_read(&m->misorders), 0);

	/* The streams were idle: destroy queued no barrier items. */
	ordsched_stream_set_get_stats(m->set, &st);
	KT_EXPECT_EQ(t, st.queued, total);
	KT_EXPECT_EQ(t, st.ran, st.queued);
	KT_EXPECT_EQ(t, st.cancelled, 0);
	ktest_diag(t, "%u items on %u streams from %u producers",
		   total, MANY_STREAMS, m->producers);
	ktest_diag(t, "%llu drains, %llu requeues", st.drains, st.requeues);
}

static void many_streams(struct ktest *t)
{
	struct many *m;
	u32 rnd = 12345, total = 0, i;
	unsigned int s, k;
	ktime_t t0, t1, t2;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!KT_EXPECT(t, m))
		return;
	m->producers = min(2 * num_online_cpus(), MANY_PRODUCERS);
	m->streams = vcalloc(MANY_STREAMS, sizeof(*m->streams));
	m->first = vcalloc(m->producers * MANY_STREAMS, sizeof(*m->first));
	m->cnt = vcalloc(m->producers * MANY_STREAMS, sizeof(*m->cnt));
	m->set = ordsched_stream_set_create(&(struct ordsched_stream_set_params){
		.name = "many", .budget = 4 });
	if (!KT_EXPECT(t, m->streams && m->first && m->cnt && !IS_ERR(m->set)))
		goto out;
	for (i = 0; i < m->producers * MANY_STREAMS; i++) {
		m->cnt[i] = kt_rand(&rnd) % MANY_MAX_EACH;
		m->first[i] = total;
		total += m->cnt[i];
	}
	m->items = vcalloc(total, sizeof(*m->items));
	if (!KT_EXPECT(t, m->items))
		goto out;
	for (i = 0; i < m->producers * MANY_STREAMS; i++) {
		for (k = 0; k < m->cnt[i]; k++) {
			struct many_item *mi = &m->items[m->first[i] + k];

			ordsched_stream_item_init(&mi->item, many_fn);
			mi->m = m;
			mi->stream = i % MANY_STREAMS;
			mi->producer = i / MANY_STREAMS;
			mi->k = k;
		}
	}
	for (s = 0; s < MANY_STREAMS; s++) {
		ordsched_stream_init(&m->streams[s].stream, m->set);
		atomic_set(&m->streams[s].running, 0);
	}

	t0 = ktime_get();
	KT_EXPECT_EQ(t, kt_run_threads(m->producers, many_producer, m), 0);
	t1 = ktime_get();
	/* Let the streams run dry first: destroying idle streams is cheap. */
	for (k = 0; k < 3000 && atomic_read(&m->ran) < total; k++)
		msleep(20);
	t2 = ktime_get();
	for (s = 0; s < MANY_STREAMS; s++) {
		ordsched_stream_destroy(&m->streams[s].stream);
		if (!(s % 256))
			cond_resched();
	}
	ktest_diag(t, "queueing took %lld ms, running dry %lld ms more, destroying %lld ms",
		   ktime_ms_delta(t1, t0), ktime_ms_delta(t2, t1),
		   ktime_ms_delta(ktime_get(), t2));
	many_check(t, m, total);
out:
	if (!IS_ERR_OR_NULL(m->set))
		ordsched_stream_set_destroy(m->set);
	vfree(m->items);
	vfree(m->cnt);
	vfree(m->first);
	vfree(m->streams);
	kfree(m);
}

/* ---- the race between the last item and a new queueing ----------------- */

#define RACE_ROUNDS	5000

struct race {
	struct ordsched_stream stream;
	struct ordsched_stream_item item;
	/* Rounds whose item has run; written last by the item. */
	unsigned long done;
};

static void race_fn(struct ordsched_stream_item *item)
{
	struct race *r = container_of(item, struct race, item);

	/* Publishes the round; pairs with the acquire in race_thread(). */
	smp_store_release(&r->done, r->done + 1);
}

/*
 * Queue the next item the moment the previous one has run, while its drain
 * is on its way out: the queueing lands right in the window between the
 * drain finding the list empty and giving up the stream. A lost wake-up
 * strands the item and times out.
 */
static int race_thread(void *data, unsigned int idx)
{
	struct race *r = (struct race *)data + idx;
	unsigned long round, deadline;
	unsigned int spins;

	for (round = 1; round <= RACE_ROUNDS; round++) {
		ordsched_stream_queue(&r->stream, &r->item);
		deadline = jiffies + 10 * HZ;
		/* Pairs with the release in race_fn(). */
		for (spins = 0; smp_load_acquire(&r->done) != round; spins++) {
			if (time_after(jiffies, deadline))
				return -ETIMEDOUT;
			if (spins > 1000)
				cond_resched();
			else
				cpu_relax();
		}
	}
	return 0;
}

static void submit_vs_drain(struct ktest *t)
{
	unsigned int i, nr = num_online_cpus();
	struct ordsched_stream_stats st;
	struct ordsched_stream_set *set;
	struct race *r;

	set = ordsched_stream_set_create(&(struct ordsched_stream_set_params){
		.name = "race" });
	r = kcalloc(nr, sizeof(*r), GFP_KERNEL);
	if (!KT_EXPECT(t, r && !IS_ERR(set)))
		goto out;
	for (i = 0; i < nr; i++) {
		ordsched_stream_init(&r[i].stream, set);
		ordsched_stream_item_init(&r[i].item, race_fn);
	}
	KT_EXPECT_EQ(t, kt_run_threads(nr, race_thread, r), 0);
	for (i = 0; i < nr; i++) {
		ordsched_stream_destroy(&r[i].stream);
		KT_EXPECT_EQ(t, r[i].done, RACE_ROUNDS);
	}
	ordsched_stream_set_get_stats(set, &st);
	/* Rounds without a drain of their own: the running one took them. */
	ktest_diag(t, "%u x %u rounds: %llu drains started", nr, RACE_ROUNDS,
		   st.drains);
	KT_EXPECT(t, st.drains <= (u64)nr * RACE_ROUNDS);
	KT_EXPECT_EQ(t, st.ran, (u64)nr * RACE_ROUNDS);
	/*
	 * A drain for every round: no queueing found the drain of the round
	 * before still live, the window this case is about was never hit,
	 * and passing proves nothing.
	 */
	if (st.drains == (u64)nr * RACE_ROUNDS)
		ktest_skip(t, "no queueing landed on a live drain");
out:
	kfree(r);
	if (!IS_ERR(set))
		ordsched_stream_set_destroy(set);
}

/* ---- producers in hard interrupt context ------------------------------- */

#define HARDIRQ_ITEMS	3000

struct hardirq_item {
	struct ordsched_stream_item item;
	struct hardirq *h;
	u32 seq;
	bool from_irq;
};

struct hardirq {
	struct ordsched_stream stream;
	struct hrtimer timer;
	struct hardirq_item *items;
	/* Next item the timer queues (items[0..HARDIRQ_ITEMS)). */
	unsigned int next_irq;
	bool in_irq;
	/* Written by items only, which the stream serializes. */
	u32 expect_irq, expect_task;
	unsigned int errors, ran;
};

static void hardirq_fn(struct ordsched_stream_item *item)
{
	struct hardirq_item *hi = container_of(item, struct hardirq_item, item);
	struct hardirq *h = hi->h;
	u32 *expect = hi->from_irq ? &h->expect_irq : &h->expect_task;

	if (hi->seq != *expect)
		h->errors++;
	*expect = hi->seq + 1;
	h->ran++;
}

static enum hrtimer_restart hardirq_timer_fn(struct hrtimer *timer)
{
	struct hardirq *h = container_of(timer, struct hardirq, timer);
	unsigned int i;

	h->in_irq = in_hardirq() && irqs_disabled();
	/* A burst of a few items per interrupt. */
	for (i = 0; i < 3 && h->next_irq < HARDIRQ_ITEMS; i++)
		ordsched_stream_queue(&h->stream, &h->items[h->next_irq++].item);
	if (h->next_irq == HARDIRQ_ITEMS)
		return HRTIMER_NORESTART;
	hrtimer_forward_now(timer, ns_to_ktime(20 * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

static void hardirq_producer(struct ktest *t)
{
	struct hardirq *h;
	unsigned int i;

	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!KT_EXPECT(t, h))
		return;
	h->items = kcalloc(2 * HARDIRQ_ITEMS, sizeof(*h->items), GFP_KERNEL);
	if (!KT_EXPECT(t, h->items))
		goto out;
	for (i = 0; i < 2 * HARDIRQ_ITEMS; i++) {
		ordsched_stream_item_init(&h->items[i].item, hardirq_fn);
		h->items[i].h = h;
		h->items[i].from_irq = i < HARDIRQ_ITEMS;
		h->items[i].seq = i % HARDIRQ_ITEMS;
	}
	ordsched_stream_init(&h->stream, NULL);
	ordsched_hrtimer_setup(&h->timer, hardirq_timer_fn, CLOCK_MONOTONIC,
			       HRTIMER_MODE_REL_HARD);
	hrtimer_start(&h->timer, ns_to_ktime(20 * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_HARD);
	/* Meanwhile, from process context, onto the same stream. */
	for (i = HARDIRQ_ITEMS; i < 2 * HARDIRQ_ITEMS; i++) {
		ordsched_stream_queue(&h->stream, &h->items[i].item);
		if (!(i % 16))
			usleep_range(20, 40);
	}
	while (READ_ONCE(h->next_irq) < HARDIRQ_ITEMS)
		usleep_range(500, 1000);
	hrtimer_cancel(&h->timer);
	ordsched_stream_destroy(&h->stream);
	KT_EXPECT(t, h->in_irq);
	KT_EXPECT_EQ(t, h->errors, 0);
	KT_EXPECT_EQ(t, h->ran, 2 * HARDIRQ_ITEMS);
	KT_EXPECT_EQ(t, h->expect_irq, HARDIRQ_ITEMS);
	KT_EXPECT_EQ(t, h->expect_task, HARDIRQ_ITEMS);
out:
	kfree(h->items);
	kfree(h);
}

/* ---- cancel under concurrency ------------------------------------------ */

#define CANCEL_ITEMS	20000
#define CANCEL_STREAMS	8

struct cancel_item {
	struct ordsched_stream_item item;
	struct cancel *c;
	u32 idx;
	atomic_t ran;
	atomic_t cancelled;
};

struct cancel {
	struct ordsched_stream streams[CANCEL_STREAMS];
	struct cancel_item *items;
	/* Items queued so far; items run or cancelled so far. */
	atomic_t queued;
	atomic_t resolved;
	/* Per stream, the last index run; written by items only. */
	s64 last[CANCEL_STREAMS];
	atomic_t misorders;
};

static void cancel_fn(struct ordsched_stream_item *item)
{
	struct cancel_item *ci = container_of(item, struct cancel_item, item);
	struct cancel *c = ci->c;
	s64 *last = &c->last[ci->idx % CANCEL_STREAMS];

	atomic_inc(&ci->ran);
	atomic_inc(&c->resolved);
	if (ci->idx <= *last)
		atomic_inc(&c->misorders);
	*last = ci->idx;
	kt_spin(50);
}

/* Thread 0 queues; the others cancel random items already queued. */
static int cancel_thread(void *data, unsigned int idx)
{
	struct cancel *c = data;
	u32 rnd = 0x1234567 * (idx + 1), i, n;

	if (!idx) {
		for (i = 0; i < CANCEL_ITEMS; i++) {
			ordsched_stream_queue(&c->streams[i % CANCEL_STREAMS],
					      &c->items[i].item);
			atomic_set_release(&c->queued, i + 1);
			if (!(i % 64))
				cond_resched();
		}
		return 0;
	}
	/* Until every item has run or been cancelled. */
	while (atomic_read(&c->resolved) < CANCEL_ITEMS) {
		n = atomic_read_acquire(&c->queued);
		if (!n) {
			cond_resched();
			continue;
		}
		/* Mostly the newest items, likely still queued; some older. */
		i = kt_rand(&rnd) % 4 ? n - 1 - kt_rand(&rnd) % min(n, 64U) :
					kt_rand(&rnd) % n;
		if (ordsched_stream_cancel(&c->streams[i % CANCEL_STREAMS],
					   &c->items[i].item)) {
			atomic_inc(&c->items[i].cancelled);
			atomic_inc(&c->resolved);
		}
		cond_resched();
	}
	return 0;
}

/*
 * On a set of its own, whose counters must agree with what the items saw
 * once the streams are destroyed: queued = ran + cancelled, with cancels
 * racing the drains.
 */
static void cancel_race(struct ktest *t)
{
	struct ordsched_stream_set_params sp = { .name = "cancel_race" };
	unsigned int i, ran = 0, cancelled = 0, bad = 0;
	struct ordsched_stream_set *set = NULL;
	struct ordsched_stream_stats st;
	struct cancel *c;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!KT_EXPECT(t, c))
		return;
	c->items = vcalloc(CANCEL_ITEMS, sizeof(*c->items));
	set = ordsched_stream_set_create(&sp);
	if (!KT_EXPECT(t, c->items && !IS_ERR(set)))
		goto out;
	for (i = 0; i < CANCEL_ITEMS; i++) {
		ordsched_stream_item_init(&c->items[i].item, cancel_fn);
		c->items[i].c = c;
		c->items[i].idx = i;
	}
	for (i = 0; i < CANCEL_STREAMS; i++) {
		ordsched_stream_init(&c->streams[i], set);
		c->last[i] = -1;
	}
	KT_EXPECT_EQ(t, kt_run_threads(1 + num_online_cpus(), cancel_thread, c), 0);
	for (i = 0; i < CANCEL_STREAMS; i++)
		ordsched_stream_destroy(&c->streams[i]);

	for (i = 0; i < CANCEL_ITEMS; i++) {
		unsigned int r = atomic_read(&c->items[i].ran);
		unsigned int x = atomic_read(&c->items[i].cancelled);

		bad += r + x != 1;
		ran += r;
		cancelled += x;
	}
	KT_EXPECT_EQ(t, bad, 0);
	KT_EXPECT_EQ(t, atomic_read(&c->misorders), 0);
	KT_EXPECT(t, cancelled > 0);
	ordsched_stream_set_get_stats(set, &st);
	KT_EXPECT_EQ(t, st.queued, CANCEL_ITEMS);
	KT_EXPECT_EQ(t, st.ran, ran);
	KT_EXPECT_EQ(t, st.cancelled, cancelled);
	ktest_diag(t, "%u items: %u ran, %u cancelled", CANCEL_ITEMS, ran,
		   cancelled);
out:
	if (!IS_ERR_OR_NULL(set))
		ordsched_stream_set_destroy(set);
	vfree(c->items);
	kfree(c);
}

/* ---- the budget, flush and destroy -------------------------------------- */

#define BUDGET		4
#define BUDGET_ITEMS	20

struct order_item {
	struct ordsched_stream_item item;
	unsigned int id;
	unsigned int *log;
	atomic_t *pos;
};

static void order_fn(struct ordsched_stream_item *item)
{
	struct order_item *oi = container_of(item, struct order_item, item);

	oi->log[atomic_inc_return(oi->pos) - 1] = oi->id;
}

static void order_items_init(struct order_item *items, unsigned int n,
			     unsigned int *log, atomic_t *pos)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		ordsched_stream_item_init(&items[i].item, order_fn);
		items[i].id = i;
		items[i].log = log;
		items[i].pos = pos;
	}
}

/*
 * Two streams on an ordered workqueue with budget 4: the drains take turns,
 * four items each, instead of the first stream running all its items.
 */
static void budget_requeues(struct ktest *t)
{
	static struct order_item items[2 * BUDGET_ITEMS];
	static unsigned int log[2 * BUDGET_ITEMS];
	struct ordsched_stream *streams = NULL;
	struct ordsched_stream_set *set = NULL;
	struct ordsched_stream_stats st;
	atomic_t pos = ATOMIC_INIT(0);
	struct plug plug;
	unsigned int i;

	if (!KT_EXPECT(t, plug_init(&plug)))
		return;
	set = ordsched_stream_set_create(&(struct ordsched_stream_set_params){
		.name = "budget", .wq = plug.wq, .budget = BUDGET });
	streams = kcalloc(2, sizeof(*streams), GFP_KERNEL);
	if (!KT_EXPECT(t, streams && !IS_ERR(set))) {
		plug_release(&plug);
		goto out;
	}
	order_items_init(items, 2 * BUDGET_ITEMS, log, &pos);
	ordsched_stream_init(&streams[0], set);
	ordsched_stream_init(&streams[1], set);
	for (i = 0; i < 2 * BUDGET_ITEMS; i++)
		ordsched_stream_queue(&streams[i / BUDGET_ITEMS], &items[i].item);
	plug_release(&plug);
	flush_workqueue(plug.wq);
	while (atomic_read(&pos) < 2 * BUDGET_ITEMS)
		flush_workqueue(plug.wq);

	/* A0-3 B0-3 A4-7 B4-7 ... */
	for (i = 0; i < 2 * BUDGET_ITEMS; i++) {
		unsigned int round = i / (2 * BUDGET), in = i % (2 * BUDGET);
		unsigned int want = (in / BUDGET) * BUDGET_ITEMS +
				    round * BUDGET + in % BUDGET;

		if (!KT_EXPECT_EQ(t, log[i], want))
			break;
	}
	ordsched_stream_set_get_stats(set, &st);
	KT_EXPECT_EQ(t, st.requeues, 2 * (BUDGET_ITEMS / BUDGET - 1));
	KT_EXPECT_EQ(t, st.drains, 2);
	ordsched_stream_destroy(&streams[0]);
	ordsched_stream_destroy(&streams[1]);
out:
	kfree(streams);
	if (!IS_ERR_OR_NULL(set))
		ordsched_stream_set_destroy(set);
	plug_fini(&plug);
}

struct plug_later {
	struct delayed_work dw;
	struct plug *plug;
};

static void plug_later_fn(struct work_struct *work)
{
	plug_release(container_of(to_delayed_work(work), struct plug_later,
				  dw)->plug);
}

/*
 * Destroy with items pending runs them, in order, minus those cancelled;
 * cancel says false for an item never queued or already cancelled. The
 * plug goes 100 ms after destroy is called, so that destroy finds every
 * item still pending (and returns only once they ran).
 */
static void destroy_runs_pending(struct ktest *t)
{
	static struct order_item items[10];
	static unsigned int log[10];
	struct ordsched_stream_set *set;
	struct ordsched_stream *stream;
	atomic_t pos = ATOMIC_INIT(0);
	struct plug_later later;
	struct plug plug;
	unsigned int i;

	if (!KT_EXPECT(t, plug_init(&plug)))
		return;
	set = ordsched_stream_set_create(&(struct ordsched_stream_set_params){
		.name = "destroy", .wq = plug.wq });
	stream = kzalloc(sizeof(*stream), GFP_KERNEL);
	if (!KT_EXPECT(t, stream && !IS_ERR(set))) {
		plug_release(&plug);
		goto out;
	}
	order_items_init(items, ARRAY_SIZE(items), log, &pos);
	ordsched_stream_init(stream, set);
	KT_EXPECT(t, !ordsched_stream_cancel(stream, &items[0].item));
	for (i = 0; i < ARRAY_SIZE(items); i++)
		ordsched_stream_queue(stream, &items[i].item);
	KT_EXPECT(t, ordsched_stream_cancel(stream, &items[3].item));
	KT_EXPECT(t, ordsched_stream_cancel(stream, &items[7].item));
	KT_EXPECT(t, !ordsched_stream_cancel(stream, &items[7].item));
	later.plug = &plug;
	INIT_DELAYED_WORK_ONSTACK(&later.dw, plug_later_fn);
	schedule_delayed_work(&later.dw, msecs_to_jiffies(100));
	ordsched_stream_destroy(stream);
	flush_delayed_work(&later.dw);
	destroy_delayed_work_on_stack(&later.dw);

	KT_EXPECT_EQ(t, atomic_read(&pos), ARRAY_SIZE(items) - 2);
	for (i = 0; i < atomic_read(&pos); i++)
		KT_EXPECT_EQ(t, log[i], i + (i >= 3) + (i >= 6));
out:
	kfree(stream);
	if (!IS_ERR_OR_NULL(set))
		ordsched_stream_set_destroy(set);
	plug_fini(&plug);
}

struct prio_destroy {
	struct ordsched_stream stream;
	struct ordsched_stream_item item;
	bool ran;
};

static void prio_fn(struct ordsched_stream_item *item)
{
	msleep(20);
	WRITE_ONCE(container_of(item, struct prio_destroy, item)->ran, true);
}

/* Queue, then destroy at once, as a real-time thread on the drain's CPU. */
static int prio_destroyer(void *data, unsigned int idx)
{
	struct prio_destroy *pd = data;

	sched_set_fifo(current);
	ordsched_stream_queue(&pd->stream, &pd->item);
	ordsched_stream_destroy(&pd->stream);
	return 0;
}

/*
 * Destroy by a thread that preempts the drain's worker (real-time, bound
 * to the CPU of a per-CPU workqueue's worker) returns once the item has
 * run, and queues nothing of its own: a barrier per look kept such a
 * destroy looking forever on a preemptible kernel, each barrier waking it
 * before the drain could see the list empty.
 */
static void destroy_preempting(struct ktest *t)
{
	struct ordsched_stream_stats st;
	struct ordsched_stream_set *set;
	struct workqueue_struct *wq;
	struct prio_destroy *pd;

	wq = alloc_workqueue("ordsched_test_bound", 0, 0);
	pd = kzalloc(sizeof(*pd), GFP_KERNEL);
	set = wq ? ordsched_stream_set_create(&(struct ordsched_stream_set_params){
		.name = "prio", .wq = wq }) : NULL;
	if (!KT_EXPECT(t, pd && !IS_ERR_OR_NULL(set)))
		goto out;
	ordsched_stream_init(&pd->stream, set);
	ordsched_stream_item_init(&pd->item, prio_fn);
	KT_EXPECT_EQ(t, kt_run_threads(1, prio_destroyer, pd), 0);
	KT_EXPECT(t, READ_ONCE(pd->ran));
	ordsched_stream_set_get_stats(set, &st);
	KT_EXPECT_EQ(t, st.queued, 1);
	KT_EXPECT_EQ(t, st.ran, 1);
out:
	if (!IS_ERR_OR_NULL(set))
		ordsched_stream_set_destroy(set);
	if (wq)
		destroy_workqueue(wq);
	kfree(pd);
}

struct requeue_item {
	struct ordsched_stream_item item;
	struct ordsched_stream *stream;
	unsigned int runs;
	bool slept;
};

/* Queues itself again from its own function, and sleeps once. */
static void requeue_fn(struct ordsched_stream_item *item)
{
	struct requeue_item *ri = container_of(item, struct requeue_item, item);

	if (++ri->runs == 3) {
		msleep(20);
		ri->slept = true;
	}
	if (ri->runs < 5)
		ordsched_stream_queue(ri->stream, item);
}

/* Flush waits for every item queued before it, a sleeping one included. */
static void flush_waits(struct ktest *t)
{
	struct ordsched_stream *stream;
	struct requeue_item ri = {};
	unsigned int i;

	stream = kzalloc(sizeof(*stream), GFP_KERNEL);
	if (!KT_EXPECT(t, stream))
		return;
	ordsched_stream_init(stream, NULL);
	ordsched_stream_item_init(&ri.item, requeue_fn);
	ri.stream = stream;
	ordsched_stream_queue(stream, &ri.item);
	/* Each flush's barrier lands behind at least one more run. */
	for (i = 0; i < 5 && READ_ONCE(ri.runs) < 5; i++)
		ordsched_stream_flush(stream);
	KT_EXPECT_EQ(t, ri.runs, 5);
	KT_EXPECT(t, ri.slept);
	/* It ran and was not queued again: nothing to cancel. */
	KT_EXPECT(t, !ordsched_stream_cancel(stream, &ri.item));
	ordsched_stream_destroy(stream);
	kfree(stream);
}

/*
 * The per-stream cost: a few dozen bytes, no thread, no workqueue.
 * stream.h: "64 bytes on x86-64 without lock debugging, plus 32 per
 * queued item (in the caller's item; 40 with debug objects)".
 */
static void stream_size(struct ktest *t)
{
	ktest_diag(t, "a stream takes %zu bytes, an item %zu",
		   sizeof(struct ordsched_stream),
		   sizeof(struct ordsched_stream_item));
	/* Lock debugging makes spinlocks and work items much larger. */
	if (!IS_ENABLED(CONFIG_DEBUG_SPINLOCK) && !IS_ENABLED(CONFIG_LOCKDEP))
		KT_EXPECT(t, sizeof(struct ordsched_stream) <= 64);
	if (IS_ENABLED(CONFIG_X86_64))
		KT_EXPECT_EQ(t, sizeof(struct ordsched_stream_item),
			     IS_ENABLED(CONFIG_DEBUG_OBJECTS) ? 40 : 32);
}

/*
 * stream.h "an item still queued, on this stream or another, is left
 * where it is": queued on one stream of a plugged set, an item is refused
 * by another and not cancelled there; cancelled on its own stream, it may
 * go to the other.
 */
static void other_stream(struct ktest *t)
{
	static struct order_item item;
	struct ordsched_stream_set *set;
	struct ordsched_stream *a, *b;
	atomic_t pos = ATOMIC_INIT(0);
	unsigned int log[2];
	struct plug plug;

	if (!KT_EXPECT(t, plug_init(&plug)))
		return;
	set = ordsched_stream_set_create(&(struct ordsched_stream_set_params){
		.name = "other", .wq = plug.wq });
	a = kzalloc(sizeof(*a), GFP_KERNEL);
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (KT_EXPECT(t, a && b && !IS_ERR(set))) {
		order_items_init(&item, 1, log, &pos);
		ordsched_stream_init(a, set);
		ordsched_stream_init(b, set);
		KT_EXPECT(t, ordsched_stream_queue(a, &item.item));
		KT_EXPECT(t, !ordsched_stream_queue(b, &item.item));
		KT_EXPECT(t, !ordsched_stream_cancel(b, &item.item));
		KT_EXPECT(t, ordsched_stream_cancel(a, &item.item));
		KT_EXPECT(t, ordsched_stream_queue(b, &item.item));
		KT_EXPECT(t, !ordsched_stream_queue(a, &item.item));
	}
	plug_release(&plug);
	if (a && b && !IS_ERR(set)) {
		ordsched_stream_destroy(a);
		ordsched_stream_destroy(b);
		KT_EXPECT_EQ(t, atomic_read(&pos), 1);
	}
	kfree(a);
	kfree(b);
	if (!IS_ERR_OR_NULL(set))
		ordsched_stream_set_destroy(set);
	plug_fini(&plug);
}

/*
 * The same items queued on two streams at once by two threads, and
 * cancelled on either by a third: every queueing that returned true runs
 * once or is cancelled once, and the streams' lists stay whole.
 */
#define TWO_ITEMS	16

struct two_item {
	struct ordsched_stream_item item;
	atomic_t queued, ran, cancelled;
};

struct two {
	struct ordsched_stream streams[2];
	struct two_item items[TWO_ITEMS];
	unsigned int rounds;
};

static void two_fn(struct ordsched_stream_item *item)
{
	atomic_inc(&container_of(item, struct two_item, item)->ran);
}

static int two_thread(void *data, unsigned int idx)
{
	struct two *w = data;
	u32 rnd = 0x3c6ef372 * (idx + 1);
	struct two_item *ti;
	unsigned int r;

	for (r = 0; r < w->rounds; r++) {
		ti = &w->items[kt_rand(&rnd) % TWO_ITEMS];
		if (idx < 2) {
			if (ordsched_stream_queue(&w->streams[idx], &ti->item))
				atomic_inc(&ti->queued);
		} else if (ordsched_stream_cancel(&w->streams[kt_rand(&rnd) % 2],
						  &ti->item)) {
			atomic_inc(&ti->cancelled);
		}
		if (!(r % 64))
			cond_resched();
	}
	return 0;
}

static void two_streams(struct ktest *t)
{
	unsigned int i, queued = 0, cancelled = 0, bad = 0;
	struct two *w;

	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!KT_EXPECT(t, w))
		return;
	w->rounds = kt_stress(100000);
	for (i = 0; i < TWO_ITEMS; i++)
		ordsched_stream_item_init(&w->items[i].item, two_fn);
	ordsched_stream_init(&w->streams[0], NULL);
	ordsched_stream_init(&w->streams[1], NULL);
	KT_EXPECT_EQ(t, kt_run_threads(3, two_thread, w), 0);
	ordsched_stream_destroy(&w->streams[0]);
	ordsched_stream_destroy(&w->streams[1]);
	for (i = 0; i < TWO_ITEMS; i++) {
		struct two_item *ti = &w->items[i];

		bad += atomic_read(&ti->queued) !=
		       atomic_read(&ti->ran) + atomic_read(&ti->cancelled);
		queued += atomic_read(&ti->queued);
		cancelled += atomic_read(&ti->cancelled);
	}
	KT_EXPECT_EQ(t, bad, 0);
	ktest_diag(t, "%u queueings, %u cancelled", queued, cancelled);
	kfree(w);
}

/* As queue_work(): an item still queued is left alone, and runs once. */
static void queue_twice(struct ktest *t)
{
	static struct order_item item;
	struct ordsched_stream_set *set;
	struct ordsched_stream *stream;
	atomic_t pos = ATOMIC_INIT(0);
	unsigned int log[2];
	struct plug plug;

	if (!KT_EXPECT(t, plug_init(&plug)))
		return;
	set = ordsched_stream_set_create(&(struct ordsched_stream_set_params){
		.name = "twice", .wq = plug.wq });
	stream = kzalloc(sizeof(*stream), GFP_KERNEL);
	if (KT_EXPECT(t, stream && !IS_ERR(set))) {
		order_items_init(&item, 1, log, &pos);
		ordsched_stream_init(stream, set);
		KT_EXPECT(t, ordsched_stream_queue(stream, &item.item));
		KT_EXPECT(t, !ordsched_stream_queue(stream, &item.item));
	}
	plug_release(&plug);
	if (stream && !IS_ERR(set)) {
		ordsched_stream_destroy(stream);
		KT_EXPECT_EQ(t, atomic_read(&pos), 1);
	}
	kfree(stream);
	if (!IS_ERR_OR_NULL(set))
		ordsched_stream_set_destroy(set);
	plug_fini(&plug);
}

/*
 * stream.h: a queueing that returns false found the item "already
 * queued", so the item runs before whatever its caller queues next. One
 * queueing of item 0 is held (a kretprobe) right after its claim, while
 * another CPU queues item 0 too, then item 1. The claim used to come
 * before the stream's lock: the other CPU was refused, queued item 1
 * first, and the held queueing linked item 0 behind it, where a flush
 * would not have waited for it either. Now the claim is under the lock,
 * so the other CPU waits for the hold to give up (2 s), is refused
 * then, and item 0 runs first.
 */
struct refused {
	struct kt_ret_hold hold;
	struct ordsched_stream *stream;
	struct order_item items[2];
	struct task_struct *held_task;
	bool held_queued, other_queued, second_queued, was_held;
};

/* stream_claim(stream, item): only the held thread's claim of item 0. */
static int refused_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct refused *r = container_of(get_kretprobe(ri), struct refused,
					 hold.krp);

	return current != READ_ONCE(r->held_task) ||
	       (void *)regs_get_kernel_argument(regs, 1) != &r->items[0].item;
}

/* Thread 0 is held; thread 1, on the other CPU, queues meanwhile. */
static int refused_thread(void *data, unsigned int idx)
{
	struct refused *r = data;

	if (!idx) {
		WRITE_ONCE(r->held_task, current);
		r->held_queued = ordsched_stream_queue(r->stream,
						       &r->items[0].item);
		return 0;
	}
	r->was_held = kt_wait_held(&r->hold.stage);
	r->other_queued = ordsched_stream_queue(r->stream, &r->items[0].item);
	r->second_queued = ordsched_stream_queue(r->stream, &r->items[1].item);
	atomic_set(&r->hold.stage, 2);
	return 0;
}

static void refused_then_queued(struct ktest *t)
{
	struct ordsched_stream_set *set;
	atomic_t pos = ATOMIC_INIT(0);
	unsigned int log[2] = { 0, 0 };
	struct refused *r;
	struct plug plug;

	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs two CPUs");
		return;
	}
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!KT_EXPECT(t, r))
		return;
	if (!KT_EXPECT(t, plug_init(&plug)))
		goto out_free;
	order_items_init(r->items, 2, log, &pos);
	set = ordsched_stream_set_create(&(struct ordsched_stream_set_params){
		.name = "refused", .wq = plug.wq });
	r->stream = kzalloc(sizeof(*r->stream), GFP_KERNEL);
	if (!KT_EXPECT(t, r->stream && !IS_ERR(set)))
		goto out_plug;
	ordsched_stream_init(r->stream, set);
	r->hold.krp.entry_handler = refused_entry;
	if (kt_ret_hold_register(&r->hold, "ordsched:stream_claim")) {
		ktest_skip(t, "no kretprobe on stream_claim");
		goto out_stream;
	}
	KT_EXPECT_EQ(t, kt_run_threads(2, refused_thread, r), 0);
	unregister_kretprobe(&r->hold.krp);
	KT_EXPECT(t, r->was_held);
	KT_EXPECT(t, r->held_queued != r->other_queued);
	KT_EXPECT(t, r->second_queued);
out_stream:
	plug_release(&plug);
	ordsched_stream_destroy(r->stream);
	if (r->was_held) {
		KT_EXPECT_EQ(t, atomic_read(&pos), 2);
		/* The item the refused queueing took for queued ran first. */
		KT_EXPECT_EQ(t, log[0], 0);
		KT_EXPECT_EQ(t, log[1], 1);
	}
	goto out_set;
out_plug:
	plug_release(&plug);
out_set:
	kfree(r->stream);
	if (!IS_ERR_OR_NULL(set))
		ordsched_stream_set_destroy(set);
	plug_fini(&plug);
out_free:
	kfree(r);
}

/*
 * stream.h: destroy must not be called from an item of @stream (nor where
 * a flush must not be); from an item of another stream of an unbound
 * workqueue it may. An item of stream A destroys stream B while B's drain,
 * idle already, is held on its way out of its function (a kretprobe).
 * Destroy used to wait for that function to return (cancel_work_sync()),
 * and so told lockdep that a drain (A's, running the item) waited for a
 * drain (B's): one class for every stream, a "possible recursive locking"
 * report on a lockdep kernel. It returns while B's drain is held now,
 * and lockdep stays on.
 */
struct xdestroy {
	struct kt_ret_hold hold;
	struct ordsched_stream a;
	struct ordsched_stream *b;
	struct ordsched_stream_item a_item, b_item;
	bool destroyed, destroyed_while_held;
};

/* stream_drain_fn(work): only B's drain is held. */
static int xd_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct xdestroy *x = container_of(get_kretprobe(ri), struct xdestroy,
					  hold.krp);

	return (void *)regs_get_kernel_argument(regs, 0) != &x->b->drain;
}

static void xd_b_fn(struct ordsched_stream_item *item)
{
}

static void xd_a_fn(struct ordsched_stream_item *item)
{
	struct xdestroy *x = container_of(item, struct xdestroy, a_item);

	ordsched_stream_destroy(x->b);
	x->destroyed_while_held = atomic_read(&x->hold.stage) == 1;
	WRITE_ONCE(x->destroyed, true);
}

static void destroy_from_other_streams_item(struct ktest *t)
{
	struct xdestroy *x;
	bool held;

	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs two CPUs");
		return;
	}
	x = kzalloc(sizeof(*x), GFP_KERNEL);
	if (!KT_EXPECT(t, x))
		return;
	x->b = kzalloc(sizeof(*x->b), GFP_KERNEL);
	if (!KT_EXPECT(t, x->b))
		goto out_free;
	ordsched_stream_init(&x->a, NULL);
	ordsched_stream_init(x->b, NULL);
	ordsched_stream_item_init(&x->a_item, xd_a_fn);
	ordsched_stream_item_init(&x->b_item, xd_b_fn);
	x->hold.krp.entry_handler = xd_entry;
	if (kt_ret_hold_register(&x->hold, "ordsched:stream_drain_fn")) {
		ktest_skip(t, "no kretprobe on stream_drain_fn");
		ordsched_stream_destroy(x->b);
		goto out_a;
	}
	KT_EXPECT(t, ordsched_stream_queue(x->b, &x->b_item));
	held = kt_wait_held(&x->hold.stage);
	if (held) {
		KT_EXPECT(t, ordsched_stream_queue(&x->a, &x->a_item));
		/* No sleep while a thread is held: see kt_wait_held(). */
		kt_spin_until(&x->destroyed, 3000);
	}
	atomic_set(&x->hold.stage, 2);
	unregister_kretprobe(&x->hold.krp);
	if (held) {
		/* A's drain ends with its item: destroy has returned then. */
		KT_EXPECT_EQ(t, ordsched_stream_flush(&x->a), 0);
		KT_EXPECT(t, x->destroyed_while_held);
		KT_EXPECT(t, debug_locks);
	} else {
		ktest_skip(t, "the drain of B was never held");
		ordsched_stream_destroy(x->b);
	}
out_a:
	ordsched_stream_destroy(&x->a);
	kfree(x->b);
out_free:
	kfree(x);
}

static const struct ktest_case stream_cases[] = {
	KT_CASE(stream_size),
	KT_CASE(destroy_runs_pending),
	KT_CASE(destroy_preempting),
	KT_CASE(flush_waits),
	KT_CASE(budget_requeues),
	KT_CASE(hardirq_producer),
	KT_CASE(submit_vs_drain),
	KT_CASE(cancel_race),
	KT_CASE(many_streams),
	KT_CASE(queue_twice),
	KT_CASE(refused_then_queued),
	KT_CASE(destroy_from_other_streams_item),
	KT_CASE(other_stream),
	KT_CASE(two_streams),
	KT_END
};

const struct ktest_suite ordsched_stream_suite = KT_SUITE("stream", stream_cases);
