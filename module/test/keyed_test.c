// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of the keyed executor: per-key order, rollups that wait for
 * exactly the earlier tasks of their keys and hold back exactly the later
 * ones, disjoint keys in parallel, a hot key that does not stall others,
 * keys reclaimed when idle, submission from process and softirq context.
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/jiffies.h>
#include <linux/kprobes.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/timer.h>
#include <linux/vmalloc.h>
#include <ordsched.h>

#include "ktest.h"
#include "suites.h"
#include "util.h"

#define MAX_KEYS	4

/* ---- a logged task ---------------------------------------------------- */

struct log {
	atomic_t pos;
	unsigned int ids[64];
};

struct log_task {
	struct ordsched_keyed_task task;
	struct ordsched_keyed_token tokens[MAX_KEYS];
	struct log *log;
	unsigned int id;
	/* When set, the task waits for it before it returns. */
	struct completion *hold;
	struct completion started;
	struct completion finished;
};

static void log_fn(struct ordsched_keyed_task *task)
{
	struct log_task *lt = container_of(task, struct log_task, task);
	struct log *log = lt->log;

	log->ids[atomic_inc_return(&log->pos) - 1] = lt->id;
	complete(&lt->started);
	/* Bounded, so a broken executor fails the test instead of hanging. */
	if (lt->hold)
		wait_for_completion_timeout(lt->hold, 5 * HZ);
}

static void log_done(struct ordsched_keyed_task *task)
{
	complete(&container_of(task, struct log_task, task)->finished);
}

static void log_task_init(struct log_task *lt, struct log *log,
			  unsigned int id)
{
	ordsched_keyed_task_init(&lt->task, log_fn, log_done, lt->tokens,
				 MAX_KEYS);
	lt->log = log;
	lt->id = id;
	init_completion(&lt->started);
	init_completion(&lt->finished);
}

static unsigned int log_index(struct log *log, unsigned int id)
{
	unsigned int i;

	for (i = 0; i < atomic_read(&log->pos); i++) {
		if (log->ids[i] == id)
			return i;
	}
	return UINT_MAX;
}

static bool started(struct log_task *lt, unsigned long timeout)
{
	return wait_for_completion_timeout(&lt->started, timeout);
}

/* One key, one thread: tasks run in submission order. */
static void one_key_order(struct ktest *t)
{
	struct ordsched_keyed *kx = ordsched_keyed_create(NULL);
	struct log_task *lts;
	struct log *log;
	unsigned int i;
	u64 key = 42;

	lts = kcalloc(64, sizeof(*lts), GFP_KERNEL);
	log = kzalloc(sizeof(*log), GFP_KERNEL);
	if (!KT_EXPECT(t, lts && log && !IS_ERR(kx)))
		goto out;
	for (i = 0; i < 64; i++) {
		log_task_init(&lts[i], log, i);
		KT_EXPECT(t, ordsched_keyed_queue(kx, &lts[i].task, &key, 1));
	}
	ordsched_keyed_flush(kx);
	KT_EXPECT_EQ(t, atomic_read(&log->pos), 64);
	for (i = 0; i < 64; i++)
		KT_EXPECT_EQ(t, log->ids[i], i);
	KT_EXPECT_EQ(t, ordsched_keyed_live_keys(kx), 0);
out:
	ordsched_keyed_destroy(kx);
	kfree(log);
	kfree(lts);
}

/*
 * A1 (key A) holds on; B1 (B) runs. The rollup R (A, B) waits for A1
 * only; A2 (A) and B2 (B), submitted after R, wait for R; C1 (C) and the
 * rollup S (C, D), submitted after R, run at once: R holds back nothing
 * but its keys. When A1 returns, R runs, then A2 and B2.
 */
static void rollup_exact(struct ktest *t)
{
	enum { A1, B1, R, A2, B2, C1, S, NR };
	static const u64 keys[NR][2] = {
		[A1] = { 'A' }, [B1] = { 'B' }, [R] = { 'A', 'B' },
		[A2] = { 'A' }, [B2] = { 'B' }, [C1] = { 'C' },
		[S] = { 'C', 'D' },
	};
	static const unsigned int nr_keys[NR] = { 1, 1, 2, 1, 1, 1, 2 };
	struct ordsched_keyed *kx = ordsched_keyed_create(NULL);
	struct completion hold;
	struct log_task *lts;
	struct log *log;
	unsigned int i;

	init_completion(&hold);
	lts = kcalloc(NR, sizeof(*lts), GFP_KERNEL);
	log = kzalloc(sizeof(*log), GFP_KERNEL);
	if (!KT_EXPECT(t, lts && log && !IS_ERR(kx)))
		goto out;
	for (i = 0; i < NR; i++)
		log_task_init(&lts[i], log, i);
	lts[A1].hold = &hold;

	KT_EXPECT(t, ordsched_keyed_queue(kx, &lts[A1].task, keys[A1], 1));
	KT_EXPECT(t, started(&lts[A1], 5 * HZ));
	for (i = B1; i < NR; i++)
		KT_EXPECT(t, ordsched_keyed_queue(kx, &lts[i].task, keys[i],
						  nr_keys[i]));
	/* While A1 runs: B1, C1 and S finish; R, A2 and B2 do not start. */
	KT_EXPECT(t, wait_for_completion_timeout(&lts[B1].finished, 5 * HZ));
	KT_EXPECT(t, wait_for_completion_timeout(&lts[C1].finished, 5 * HZ));
	KT_EXPECT(t, wait_for_completion_timeout(&lts[S].finished, 5 * HZ));
	KT_EXPECT(t, !started(&lts[R], HZ / 10));
	KT_EXPECT(t, !completion_done(&lts[A2].started));
	KT_EXPECT(t, !completion_done(&lts[B2].started));
	KT_EXPECT(t, !completion_done(&lts[A1].finished));
	/* Keys A, B, C... live: A1 and R on A, R and B2 on B; C and D idle. */
	KT_EXPECT_EQ(t, ordsched_keyed_live_keys(kx), 2);

	complete(&hold);
	ordsched_keyed_flush(kx);
	KT_EXPECT_EQ(t, atomic_read(&log->pos), NR);
	KT_EXPECT(t, log_index(log, A1) < log_index(log, R));
	KT_EXPECT(t, log_index(log, B1) < log_index(log, R));
	KT_EXPECT(t, log_index(log, R) < log_index(log, A2));
	KT_EXPECT(t, log_index(log, R) < log_index(log, B2));
	KT_EXPECT(t, log_index(log, C1) < log_index(log, S));
	KT_EXPECT_EQ(t, ordsched_keyed_live_keys(kx), 0);
out:
	ordsched_keyed_destroy(kx);
	kfree(log);
	kfree(lts);
}

/*
 * Two rollups on the same keys named in opposite orders, submitted at once
 * from two CPUs, again and again: neither may wait for the other forever.
 */
struct crossed_task {
	struct ordsched_keyed_task task;
	struct ordsched_keyed_token tokens[2];
	atomic_t *ran;
};

struct crossed {
	struct ordsched_keyed *kx;
	struct crossed_task *cts;
	atomic_t ran;
};

#define CROSSED_ROUNDS	2000

static void crossed_fn(struct ordsched_keyed_task *task)
{
	atomic_inc(container_of(task, struct crossed_task, task)->ran);
}

static int crossed_thread(void *data, unsigned int idx)
{
	struct crossed *c = data;
	u64 keys[2] = { idx ? 7 : 9, idx ? 9 : 7 };
	unsigned int i;

	for (i = idx; i < 2 * CROSSED_ROUNDS; i += 2) {
		if (!ordsched_keyed_queue(c->kx, &c->cts[i].task, keys, 2))
			return -EINVAL;
	}
	return 0;
}

static void crossed_rollups(struct ktest *t)
{
	struct crossed *c = kzalloc(sizeof(*c), GFP_KERNEL);
	struct ordsched_keyed_stats st;
	unsigned int i;

	if (!KT_EXPECT(t, c))
		return;
	c->kx = ordsched_keyed_create(NULL);
	c->cts = vcalloc(2 * CROSSED_ROUNDS, sizeof(*c->cts));
	if (!KT_EXPECT(t, c->cts && !IS_ERR(c->kx)))
		goto out;
	for (i = 0; i < 2 * CROSSED_ROUNDS; i++) {
		ordsched_keyed_task_init(&c->cts[i].task, crossed_fn, NULL,
					 c->cts[i].tokens, 2);
		c->cts[i].ran = &c->ran;
	}
	KT_EXPECT_EQ(t, kt_run_threads(2, crossed_thread, c), 0);
	/* A deadlock shows as tasks that never run: poll, do not hang. */
	for (i = 0; i < 500 && atomic_read(&c->ran) < 2 * CROSSED_ROUNDS; i++)
		msleep(20);
	if (!KT_EXPECT_EQ(t, atomic_read(&c->ran), 2 * CROSSED_ROUNDS)) {
		/* Deadlocked tasks are still queued: leave them be. */
		ktest_diag(t, "deadlock: executor and tasks leaked");
		return;
	}
	ordsched_keyed_flush(c->kx);
	ordsched_keyed_get_stats(c->kx, &st);
	KT_EXPECT_EQ(t, st.ran, 2 * CROSSED_ROUNDS);
	KT_EXPECT_EQ(t, ordsched_keyed_live_keys(c->kx), 0);
out:
	if (!IS_ERR_OR_NULL(c->kx))
		ordsched_keyed_destroy(c->kx);
	vfree(c->cts);
	kfree(c);
}

/* ---- random keys, rollups, process and softirq submitters -------------- */

#define RND_TASKS	12000
#define RND_KEYS	32	/* the shared keys; others are used once */
#define RND_THREADS	8
#define RND_PRODUCERS	(2 * RND_THREADS)
#define RND_SOFTIRQ_SHARE	256	/* tasks left to the timers, at least at first */

struct rnd;

struct rnd_task {
	struct ordsched_keyed_task task;
	struct ordsched_keyed_token tokens[MAX_KEYS];
	struct rnd *r;
	u64 keys[MAX_KEYS];
	/* The submitter's count of its earlier tasks on each shared key. */
	u32 seq[MAX_KEYS];
	u8 nr_keys;
	u8 producer;
	u8 runs;
};

struct rnd {
	struct ordsched_keyed *kx;
	struct rnd_task *tasks;
	atomic_t next_task;
	atomic64_t next_unique;
	/* Per producer and shared key: tasks submitted, tasks run. */
	u32 submitted[RND_PRODUCERS][RND_KEYS];
	u32 ran[RND_PRODUCERS][RND_KEYS];
	atomic_t busy[RND_KEYS];
	atomic_t running, max_running;
	atomic_t overlaps, misorders, errors;
	atomic_t softirq_tasks;
};

static bool rnd_shared(u64 key)
{
	return key < RND_KEYS;
}

static void rnd_fn(struct ordsched_keyed_task *task)
{
	struct rnd_task *rt = container_of(task, struct rnd_task, task);
	struct rnd *r = rt->r;
	unsigned int i;
	int now, max;

	for (i = 0; i < rt->nr_keys; i++) {
		u64 k = rt->keys[i];

		if (!rnd_shared(k))
			continue;
		if (atomic_inc_return(&r->busy[k]) != 1)
			atomic_inc(&r->overlaps);
		/* Only this task holds key k now: plain accesses suffice. */
		if (r->ran[rt->producer][k] != rt->seq[i])
			atomic_inc(&r->misorders);
		r->ran[rt->producer][k] = rt->seq[i] + 1;
	}
	now = atomic_inc_return(&r->running);
	max = atomic_read(&r->max_running);
	while (now > max && !atomic_try_cmpxchg(&r->max_running, &max, now))
		;
	rt->runs++;
	kt_spin(rt->keys[0] % 4 ? 100 : 2000);
	atomic_dec(&r->running);
	for (i = 0; i < rt->nr_keys; i++) {
		if (rnd_shared(rt->keys[i]))
			atomic_dec(&r->busy[rt->keys[i]]);
	}
}

/* Build and submit one random task as producer @p; false when done. */
static bool rnd_submit_one(struct rnd *r, unsigned int p, u32 *rnd)
{
	int idx = atomic_fetch_inc(&r->next_task);
	struct rnd_task *rt;
	unsigned int i, j, n;

	if (idx >= RND_TASKS)
		return false;
	rt = &r->tasks[idx];
	/* Half the tasks have one key, the rest 2 to 4 (rollups). */
	n = kt_rand(rnd) % 2 ? 1 : 2 + kt_rand(rnd) % (MAX_KEYS - 1);
	for (i = 0; i < n; i++) {
		/* Mostly shared keys, all different; some used only once. */
		do {
			rt->keys[i] = kt_rand(rnd) % 8 ? kt_rand(rnd) % RND_KEYS :
				RND_KEYS + atomic64_inc_return(&r->next_unique);
			for (j = 0; j < i && rt->keys[j] != rt->keys[i]; j++)
				;
		} while (j < i);
	}
	rt->nr_keys = n;
	rt->producer = p;
	for (i = 0; i < n; i++) {
		if (rnd_shared(rt->keys[i]))
			rt->seq[i] = r->submitted[p][rt->keys[i]]++;
	}
	if (!ordsched_keyed_queue(r->kx, &rt->task, rt->keys, n))
		atomic_inc(&r->errors);
	return true;
}

/* Softirq submitters: a timer per thread, re-armed every tick. */
struct rnd_timer {
	struct timer_list timer;
	struct rnd *r;
	unsigned int producer;
	u32 rnd;
	bool stop;
};

static void rnd_timer_fn(struct timer_list *timer)
{
	struct rnd_timer *rt = from_timer(rt, timer, timer);
	unsigned int i;

	for (i = 0; i < 8; i++) {
		if (!rnd_submit_one(rt->r, rt->producer, &rt->rnd))
			return;
		atomic_inc(&rt->r->softirq_tasks);
	}
	if (!READ_ONCE(rt->stop))
		mod_timer(&rt->timer, jiffies + 1);
}

static int rnd_thread(void *data, unsigned int idx)
{
	struct rnd *r = data;
	struct rnd_timer tm = {
		.r = r, .producer = RND_THREADS + idx, .rnd = 0x2545f491 * (idx + 1),
	};
	u32 rnd = 0x9e3779b9 * (idx + 1);
	unsigned long until = jiffies + HZ;
	unsigned int n = 0;

	timer_setup_on_stack(&tm.timer, rnd_timer_fn, TIMER_PINNED);
	mod_timer(&tm.timer, jiffies + 1);
	for (;;) {
		/*
		 * The last tasks wait for the timers' first tick (for up to
		 * a second): on a fast machine the threads could take them
		 * all before it, and softirq submission would go untested.
		 */
		if (atomic_read(&r->next_task) >= RND_TASKS - RND_SOFTIRQ_SHARE &&
		    !atomic_read(&r->softirq_tasks) && time_before(jiffies, until)) {
			schedule_timeout_uninterruptible(1);
			continue;
		}
		if (!rnd_submit_one(r, idx, &rnd))
			break;
		if (!(++n % 16))
			cond_resched();
	}
	WRITE_ONCE(tm.stop, true);
	del_timer_sync(&tm.timer);
	destroy_timer_on_stack(&tm.timer);
	return 0;
}

static void rnd_check(struct ktest *t, struct rnd *r)
{
	struct ordsched_keyed_stats st;
	unsigned int i, p, k, bad = 0;

	for (i = 0; i < RND_TASKS; i++)
		bad += r->tasks[i].runs != 1;
	KT_EXPECT_EQ(t, bad, 0);
	for (p = 0; p < RND_PRODUCERS; p++)
		for (k = 0; k < RND_KEYS; k++)
			bad += r->ran[p][k] != r->submitted[p][k];
	KT_EXPECT_EQ(t, bad, 0);
	KT_EXPECT_EQ(t, atomic_read(&r->errors), 0);
	KT_EXPECT_EQ(t, atomic_read(&r->overlaps), 0);
	KT_EXPECT_EQ(t, atomic_read(&r->misorders), 0);
	/* Tasks (with disjoint keys, as no key overlapped) ran side by side. */
	if (num_online_cpus() > 1)
		KT_EXPECT(t, atomic_read(&r->max_running) >= 2);
	KT_EXPECT_EQ(t, ordsched_keyed_live_keys(r->kx), 0);
	ordsched_keyed_get_stats(r->kx, &st);
	KT_EXPECT_EQ(t, st.queued, RND_TASKS);
	KT_EXPECT_EQ(t, st.ran, RND_TASKS);
	KT_EXPECT_EQ(t, st.keys_created, st.keys_reclaimed);
	/* Softirq submission took part (see rnd_thread()). */
	KT_EXPECT(t, atomic_read(&r->softirq_tasks) > 0);
	ktest_diag(t, "%u tasks (%llu rollups, %u from softirq), %llu parked, up to %d at once",
		   RND_TASKS, st.rollups, atomic_read(&r->softirq_tasks),
		   st.parked, atomic_read(&r->max_running));
	ktest_diag(t, "%llu keys came and went", st.keys_created);
}

static void random_keys(struct ktest *t)
{
	unsigned int threads = min(2 * num_online_cpus(), RND_THREADS), i;
	struct ordsched_keyed_params p = { .name = "random", .hash_order = 4 };
	struct rnd *r;

	r = vzalloc(sizeof(*r));
	if (!KT_EXPECT(t, r))
		return;
	r->kx = ordsched_keyed_create(&p);
	r->tasks = vcalloc(RND_TASKS, sizeof(*r->tasks));
	if (!KT_EXPECT(t, r->tasks && !IS_ERR(r->kx)))
		goto out;
	for (i = 0; i < RND_TASKS; i++) {
		ordsched_keyed_task_init(&r->tasks[i].task, rnd_fn, NULL,
					 r->tasks[i].tokens, MAX_KEYS);
		r->tasks[i].r = r;
	}
	KT_EXPECT_EQ(t, kt_run_threads(threads, rnd_thread, r), 0);
	ordsched_keyed_flush(r->kx);
	rnd_check(t, r);
out:
	if (!IS_ERR_OR_NULL(r->kx))
		ordsched_keyed_destroy(r->kx);
	vfree(r->tasks);
	vfree(r);
}

/* ---- a hot key, reclaim, bad input -------------------------------------- */

#define HOT_TASKS	1000

struct hot;

struct hot_task {
	struct ordsched_keyed_task task;
	struct hot *h;
};

struct hot {
	struct hot_task *tasks;
	struct ordsched_keyed_task cold;
	atomic_t hot_done;
	int hot_done_when_cold_queued;
	int hot_done_when_cold_ran;
};

static void spin_fn(struct ordsched_keyed_task *task)
{
	kt_spin(300);
}

static void hot_done(struct ordsched_keyed_task *task)
{
	atomic_inc(&container_of(task, struct hot_task, task)->h->hot_done);
}

static void cold_fn(struct ordsched_keyed_task *task)
{
	struct hot *h = container_of(task, struct hot, cold);

	h->hot_done_when_cold_ran = atomic_read(&h->hot_done);
}

/*
 * 1000 tasks queue up on one key; a task on another key queued after them
 * runs long before they are through. Counted from the cold task's
 * queueing, not from the first hot one's: the hot tasks start while the
 * producer is still queueing, at a pace that depends on the kernel (debug
 * objects, PREEMPT_RT), not on the executor.
 */
static void hot_key(struct ktest *t)
{
	struct ordsched_keyed *kx = ordsched_keyed_create(NULL);
	u64 hot = 1, cold = 2;
	struct hot *h;
	unsigned int i;

	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (h)
		h->tasks = kvcalloc(HOT_TASKS, sizeof(*h->tasks), GFP_KERNEL);
	if (!KT_EXPECT(t, h && h->tasks && !IS_ERR(kx)))
		goto out;
	for (i = 0; i < HOT_TASKS; i++) {
		ordsched_keyed_task_init(&h->tasks[i].task, spin_fn, hot_done,
					 NULL, 0);
		h->tasks[i].h = h;
		ordsched_keyed_queue(kx, &h->tasks[i].task, &hot, 1);
	}
	ordsched_keyed_task_init(&h->cold, cold_fn, NULL, NULL, 0);
	h->hot_done_when_cold_ran = -1;
	h->hot_done_when_cold_queued = atomic_read(&h->hot_done);
	ordsched_keyed_queue(kx, &h->cold, &cold, 1);
	ordsched_keyed_flush(kx);
	KT_EXPECT_EQ(t, atomic_read(&h->hot_done), HOT_TASKS);
	KT_EXPECT(t, h->hot_done_when_cold_ran >= 0);
	KT_EXPECT(t, h->hot_done_when_cold_ran - h->hot_done_when_cold_queued <
		  HOT_TASKS / 4);
	ktest_diag(t, "queued after %d of %u hot tasks had run, the cold key ran after %d",
		   h->hot_done_when_cold_queued, HOT_TASKS,
		   h->hot_done_when_cold_ran);
out:
	ordsched_keyed_destroy(kx);
	if (h)
		kvfree(h->tasks);
	kfree(h);
}

#define RECLAIM_WAVES	16
#define RECLAIM_WAVE	500

/* 8,000 keys, each used once, in waves: live keys stay bounded, end at 0. */
static void keys_reclaimed(struct ktest *t)
{
	struct ordsched_keyed_params p = { .name = "reclaim", .hash_order = 6 };
	struct ordsched_keyed *kx = ordsched_keyed_create(&p);
	struct ordsched_keyed_task *tasks;
	struct ordsched_keyed_stats st;
	unsigned int wave, i;
	u64 live, peak = 0;

	tasks = kvcalloc(RECLAIM_WAVE, sizeof(*tasks), GFP_KERNEL);
	if (!KT_EXPECT(t, tasks && !IS_ERR(kx)))
		goto out;
	for (wave = 0; wave < RECLAIM_WAVES; wave++) {
		for (i = 0; i < RECLAIM_WAVE; i++) {
			u64 key = (u64)wave << 32 | i;

			ordsched_keyed_task_init(&tasks[i], spin_fn, NULL, NULL, 0);
			ordsched_keyed_queue(kx, &tasks[i], &key, 1);
		}
		/* At most a wave: what bounds it is the 0 after the flush. */
		live = ordsched_keyed_live_keys(kx);
		peak = max(peak, live);
		ordsched_keyed_flush(kx);
		KT_EXPECT_EQ(t, ordsched_keyed_live_keys(kx), 0);
	}
	ordsched_keyed_get_stats(kx, &st);
	KT_EXPECT_EQ(t, st.keys_created, RECLAIM_WAVES * RECLAIM_WAVE);
	KT_EXPECT_EQ(t, st.keys_reclaimed, RECLAIM_WAVES * RECLAIM_WAVE);
	ktest_diag(t, "%u keys, at most %llu live at a time",
		   RECLAIM_WAVES * RECLAIM_WAVE, peak);
out:
	ordsched_keyed_destroy(kx);
	kvfree(tasks);
}

static void bad_keys(struct ktest *t)
{
	struct ordsched_keyed *kx = ordsched_keyed_create(NULL);
	struct ordsched_keyed_token tokens[2];
	struct ordsched_keyed_task *task;
	u64 keys[3] = { 1, 2, 1 };

	/* A task holds a work item: not on the stack. */
	task = kzalloc(sizeof(*task), GFP_KERNEL);
	if (!KT_EXPECT(t, task && !IS_ERR(kx)))
		goto out;
	ordsched_keyed_task_init(task, spin_fn, NULL, tokens, 2);
	KT_EXPECT(t, !ordsched_keyed_queue(kx, task, keys, 0));
	KT_EXPECT(t, !ordsched_keyed_queue(kx, task, keys, 3));
	keys[1] = 1;
	KT_EXPECT(t, !ordsched_keyed_queue(kx, task, keys, 2));
	ordsched_keyed_task_init(task, spin_fn, NULL, NULL, 0);
	KT_EXPECT(t, !ordsched_keyed_queue(kx, task, keys, 2));
	KT_EXPECT(t, ordsched_keyed_queue(kx, task, keys, 1));
	ordsched_keyed_flush(kx);
	KT_EXPECT_EQ(t, ordsched_keyed_live_keys(kx), 0);
out:
	ordsched_keyed_destroy(kx);
	kfree(task);
	KT_EXPECT_EQ(t, PTR_ERR(ordsched_keyed_create(&(struct ordsched_keyed_params){
		.hash_order = 17 })), -EINVAL);
}

#define TWICE_TASKS	512
#define TWICE_THREADS	4

struct twice_task {
	struct ordsched_keyed_task task;
	struct ordsched_keyed_token tokens[2];
	atomic_t *ran;
	atomic_t wins;
};

struct twice {
	struct ordsched_keyed *kx;
	struct twice_task *tasks;
	atomic_t ran;
};

static void twice_fn(struct ordsched_keyed_task *task)
{
	atomic_inc(container_of(task, struct twice_task, task)->ran);
}

/* Every thread cancels every task, in the same order. */
static int twice_thread(void *data, unsigned int idx)
{
	struct twice *tw = data;
	unsigned int i;

	for (i = 0; i < TWICE_TASKS; i++) {
		if (ordsched_keyed_cancel(tw->kx, &tw->tasks[i].task))
			atomic_inc(&tw->tasks[i].wins);
		if (i % 64 == 0)
			cond_resched();
	}
	return 0;
}

/*
 * Overlapping cancels of one task: 512 tasks wait behind a task that
 * holds key 0, half of them rollups that head a second key; four
 * threads cancel each of them at once. Each is cancelled exactly once,
 * none runs, every key is reclaimed. A cancel that took the locks after
 * another withdrew the task used to withdraw its tokens a second time.
 */
static void cancel_twice(struct ktest *t)
{
	struct ordsched_keyed_stats st;
	DECLARE_COMPLETION_ONSTACK(open);
	struct twice tw = {};
	struct log_task *gate;
	struct log *log;
	unsigned int i, bad = 0;
	u64 keys[2] = {};

	tw.kx = ordsched_keyed_create(NULL);
	tw.tasks = kvcalloc(TWICE_TASKS, sizeof(*tw.tasks), GFP_KERNEL);
	gate = kzalloc(sizeof(*gate), GFP_KERNEL);
	log = kzalloc(sizeof(*log), GFP_KERNEL);
	if (!KT_EXPECT(t, tw.tasks && gate && log && !IS_ERR(tw.kx)))
		goto out;
	log_task_init(gate, log, 0);
	gate->hold = &open;
	KT_EXPECT(t, ordsched_keyed_queue(tw.kx, &gate->task, keys, 1));
	KT_EXPECT(t, started(gate, 5 * HZ));
	for (i = 0; i < TWICE_TASKS; i++) {
		struct twice_task *tt = &tw.tasks[i];

		ordsched_keyed_task_init(&tt->task, twice_fn, NULL, tt->tokens,
					 ARRAY_SIZE(tt->tokens));
		tt->ran = &tw.ran;
		keys[1] = 1 + i % 8;
		KT_EXPECT(t, ordsched_keyed_queue(tw.kx, &tt->task, keys,
						  1 + i % 2));
	}
	KT_EXPECT_EQ(t, kt_run_threads(TWICE_THREADS, twice_thread, &tw), 0);
	for (i = 0; i < TWICE_TASKS; i++)
		bad += atomic_read(&tw.tasks[i].wins) != 1;
	KT_EXPECT_EQ(t, bad, 0);
	complete(&open);
	KT_EXPECT_EQ(t, ordsched_keyed_flush(tw.kx), 0);
	KT_EXPECT_EQ(t, atomic_read(&tw.ran), 0);
	KT_EXPECT_EQ(t, ordsched_keyed_live_keys(tw.kx), 0);
	ordsched_keyed_get_stats(tw.kx, &st);
	KT_EXPECT_EQ(t, st.cancelled, TWICE_TASKS);
	KT_EXPECT_EQ(t, st.ran, 1);
out:
	if (gate)
		complete(&open);
	ordsched_keyed_destroy(tw.kx);
	kfree(log);
	kfree(gate);
	kvfree(tw.tasks);
}

/*
 * What the cases below that hold a worker in a kretprobe share: the
 * executor, the log, the probe, the answer of the re-queue that the case
 * is about, and whether a round saw its race during the hold.
 */
struct hold_frame {
	struct ordsched_keyed *kx;
	struct log *log;
	struct kretprobe krp;
	bool requeued;
	atomic_t held_over;
};

/*
 * On two CPUs or more, up to five rounds of @round with the probe of @f
 * (embedded, zeroed, in the case's structure; its handlers set), until
 * one saw the race during the hold: the worker the race needs may land
 * behind the held one. The re-queue must be accepted in every round.
 * @noprobe and @never: the skips when the probe cannot be set, or no
 * round saw the race.
 */
static void hold_rounds(struct ktest *t, struct hold_frame *f,
			const char *symbol,
			void (*round)(struct ktest *t, struct hold_frame *f),
			const char *noprobe, const char *never)
{
	unsigned int n, held = 0;

	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs two CPUs");
		return;
	}
	f->log = kzalloc(sizeof(*f->log), GFP_KERNEL);
	f->kx = ordsched_keyed_create(NULL);
	if (!KT_EXPECT(t, f->log && !IS_ERR(f->kx)))
		goto out;
	f->krp.kp.symbol_name = symbol;
	f->krp.maxactive = 8;
	if (register_kretprobe(&f->krp)) {
		ktest_skip(t, noprobe);
		goto out;
	}
	for (n = 0; n < 5 && !held && !t->failed; n++) {
		atomic_set(&f->log->pos, 0);
		round(t, f);
		held = atomic_read(&f->held_over);
		KT_EXPECT(t, f->requeued);
	}
	unregister_kretprobe(&f->krp);
	if (!held)
		ktest_skip(t, never);
	else
		ktest_diag(t, "held in round %u: re-queue %s", n,
			   f->requeued ? "accepted" : "refused");
out:
	ordsched_keyed_destroy(f->kx);
	kfree(f->log);
}

/*
 * Out of flight before the next task starts. The header: a task is in
 * flight until its keys are handed on, before its @done; so the task its
 * keys make ready may queue it again. The first used to leave flight
 * only after it had dispatched the next, which found it still in flight
 * and was refused. The hand-on's queue_work() of the next task is held
 * here (a kretprobe on queue_work_on(), for that work item only) until
 * the next task has run, so the old order fails every time. Both ways
 * out of flight: A finishes (work), or a cancel withdraws it (cancel).
 */
struct handon {
	/* held_over: the hand-on was held and saw B run meanwhile. */
	struct hold_frame f;
	struct log_task a, x;
	struct ordsched_keyed_task b;
	/* The gate A (or X) waits at: A's second run, which B queues, too. */
	struct completion go;
	bool cancel;
	atomic_t b_ran;
};

static void handon_b_fn(struct ordsched_keyed_task *task)
{
	struct handon *h = container_of(task, struct handon, b);
	u64 key = 3;

	h->f.requeued = ordsched_keyed_queue(h->f.kx, &h->a.task, &key, 1);
	atomic_set(&h->b_ran, 1);
}

static int handon_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct handon *h = container_of(get_kretprobe(ri), struct handon, f.krp);

	/* queue_work_on(cpu, wq, work): only the next task's is held. */
	return (void *)regs_get_kernel_argument(regs, 2) != &h->b.work;
}

/* A kprobe handler runs as an NMI would: only NMI-safe clocks here. */
static int handon_hold(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct handon *h = container_of(get_kretprobe(ri), struct handon, f.krp);
	u64 until = ktime_get_mono_fast_ns() + NSEC_PER_SEC;

	while (!atomic_read(&h->b_ran) && ktime_get_mono_fast_ns() < until)
		cpu_relax();
	atomic_set(&h->f.held_over, atomic_read(&h->b_ran));
	return 0;
}

static void handon_round(struct ktest *t, struct hold_frame *f)
{
	struct handon *h = container_of(f, struct handon, f);
	bool cancel = h->cancel;
	u64 keys[2] = { 1, 2 };

	init_completion(&h->go);
	atomic_set(&h->b_ran, 0);
	atomic_set(&h->f.held_over, 0);
	h->f.requeued = false;
	log_task_init(&h->a, h->f.log, 1);
	log_task_init(&h->x, h->f.log, 0);
	ordsched_keyed_task_init(&h->b, handon_b_fn, NULL, NULL, 0);
	if (cancel) {
		/* X holds key 2; rollup A heads key 1 and waits for X. */
		h->x.hold = &h->go;
		KT_EXPECT(t, ordsched_keyed_queue(h->f.kx, &h->x.task,
						  &keys[1], 1));
		KT_EXPECT(t, started(&h->x, 5 * HZ));
		KT_EXPECT(t, ordsched_keyed_queue(h->f.kx, &h->a.task, keys, 2));
	} else {
		h->a.hold = &h->go;
		KT_EXPECT(t, ordsched_keyed_queue(h->f.kx, &h->a.task, keys, 1));
		KT_EXPECT(t, started(&h->a, 5 * HZ));
	}
	/* B waits behind A on key 1. */
	KT_EXPECT(t, ordsched_keyed_queue(h->f.kx, &h->b, keys, 1));
	if (cancel)
		KT_EXPECT(t, ordsched_keyed_cancel(h->f.kx, &h->a.task));
	/* All: A's second run, in the work case, passes it too. */
	complete_all(&h->go);
	KT_EXPECT_EQ(t, ordsched_keyed_flush(h->f.kx), 0);
	KT_EXPECT_EQ(t, atomic_read(&h->b_ran), 1);
	/*
	 * B queued A again while the flush waited, which need not wait for
	 * it: this one does, before the next round or the case's end frees
	 * what A's second run uses (its gate was on this stack once).
	 */
	KT_EXPECT_EQ(t, ordsched_keyed_flush(h->f.kx), 0);
}

static void handon_case(struct ktest *t, bool cancel)
{
	struct handon *h = kzalloc(sizeof(*h), GFP_KERNEL);

	if (!KT_EXPECT(t, h))
		return;
	h->cancel = cancel;
	h->f.krp.entry_handler = handon_entry;
	h->f.krp.handler = handon_hold;
	hold_rounds(t, &h->f, "queue_work_on", handon_round,
		    "no kretprobe on queue_work_on",
		    "the next task never ran during the hold");
	kfree(h);
}

static void handon_requeue_work(struct ktest *t)
{
	handon_case(t, false);
}

static void handon_requeue_cancel(struct ktest *t)
{
	handon_case(t, true);
}

/*
 * Out of flight before a rollup that a key of it completes can run, when
 * that rollup's last key comes from another task. T (key 1) and Q (key
 * 2) run; rollup S waits on both. T finishes and hands key 1 to S; Q
 * then hands key 2, which makes S ready on Q's worker, and S, which may
 * take T to be out of flight (its key was handed on), queues T again.
 * T's worker used to leave flight only after handing its keys on one
 * bucket at a time: held between the two (here at its debug-object
 * deactivation, a kretprobe for T's object only), S ran meanwhile and
 * was refused. Now T leaves its keys and flight under its bucket locks
 * and counts the key in S only then: during the hold, S cannot become
 * ready at all. The hold lasts until S ran or 1 s; a round counts when
 * Q handed its key on during the hold.
 */
struct rollup_hold {
	/* held_over: Q handed its key on during the hold. */
	struct hold_frame f;
	struct log_task q, t;
	struct ordsched_keyed_task s;
	struct ordsched_keyed_token s_tokens[2];
	struct completion q_go, t_go;
	atomic_t s_ran, q_done, holding;
};

static void rollup_hold_s_fn(struct ordsched_keyed_task *task)
{
	struct rollup_hold *h = container_of(task, struct rollup_hold, s);
	u64 key = 3;

	h->f.requeued = ordsched_keyed_queue(h->f.kx, &h->t.task, &key, 1);
	atomic_set(&h->s_ran, 1);
}

static void rollup_hold_q_done(struct ordsched_keyed_task *task)
{
	struct rollup_hold *h = container_of(task, struct rollup_hold,
					     q.task);

	atomic_set(&h->q_done, 1);
	log_done(task);
}

/* debug_object_deactivate(addr, descr): only T's object, its first time. */
static int rollup_hold_entry(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	struct rollup_hold *h = container_of(get_kretprobe(ri),
					     struct rollup_hold, f.krp);

	if ((void *)regs_get_kernel_argument(regs, 0) != &h->t.task.waiting)
		return 1;
	return atomic_cmpxchg(&h->holding, 0, 1) != 0;
}

/* A kprobe handler runs as an NMI would: only NMI-safe clocks here. */
static int rollup_hold_hold(struct kretprobe_instance *ri,
			    struct pt_regs *regs)
{
	struct rollup_hold *h = container_of(get_kretprobe(ri),
					     struct rollup_hold, f.krp);
	u64 until = ktime_get_mono_fast_ns() + NSEC_PER_SEC;

	while (!atomic_read(&h->s_ran) && ktime_get_mono_fast_ns() < until)
		cpu_relax();
	atomic_set(&h->f.held_over, atomic_read(&h->q_done));
	atomic_set(&h->holding, 2);
	return 0;
}

static void rollup_hold_round(struct ktest *t, struct hold_frame *f)
{
	struct rollup_hold *h = container_of(f, struct rollup_hold, f);
	u64 keys[2] = { 1, 2 };

	atomic_set(&h->s_ran, 0);
	atomic_set(&h->q_done, 0);
	atomic_set(&h->f.held_over, 0);
	atomic_set(&h->holding, 0);
	h->f.requeued = false;
	init_completion(&h->q_go);
	init_completion(&h->t_go);
	log_task_init(&h->q, h->f.log, 0);
	log_task_init(&h->t, h->f.log, 1);
	h->q.task.done = rollup_hold_q_done;
	h->q.hold = &h->q_go;
	h->t.hold = &h->t_go;
	ordsched_keyed_task_init(&h->s, rollup_hold_s_fn, NULL, h->s_tokens,
				 ARRAY_SIZE(h->s_tokens));
	KT_EXPECT(t, ordsched_keyed_queue(h->f.kx, &h->q.task, &keys[1], 1));
	KT_EXPECT(t, ordsched_keyed_queue(h->f.kx, &h->t.task, &keys[0], 1));
	KT_EXPECT(t, started(&h->q, 5 * HZ) && started(&h->t, 5 * HZ));
	/* S waits for T on key 1 and for Q on key 2. */
	KT_EXPECT(t, ordsched_keyed_queue(h->f.kx, &h->s, keys, 2));
	complete_all(&h->t_go);
	/* A round without the hold is not counted: hold_rounds() retries. */
	kt_wait_held(&h->holding);
	complete_all(&h->q_go);
	KT_EXPECT_EQ(t, ordsched_keyed_flush(h->f.kx), 0);
	KT_EXPECT_EQ(t, atomic_read(&h->s_ran), 1);
	/* T's second run, on key 3, passed its completed gate. */
	KT_EXPECT_EQ(t, ordsched_keyed_flush(h->f.kx), 0);
}

static void rollup_last_key_after_flight(struct ktest *t)
{
	struct rollup_hold *h;

	if (!IS_ENABLED(CONFIG_DEBUG_OBJECTS)) {
		ktest_skip(t, "needs CONFIG_DEBUG_OBJECTS (the hold's hook)");
		return;
	}
	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!KT_EXPECT(t, h))
		return;
	h->f.krp.entry_handler = rollup_hold_entry;
	h->f.krp.handler = rollup_hold_hold;
	hold_rounds(t, &h->f, "debug_object_deactivate", rollup_hold_round,
		    "no kretprobe on debug_object_deactivate",
		    "the last key never came during the hold");
	kfree(h);
}

/*
 * A cancel of a task that its predecessor's keys just made ready, while
 * the predecessor's worker is about to queue it: "either this returns
 * true and the task will not run, or the task ... will run and this
 * returns false: never both, never neither". The dispatch is held at
 * queue_work_on() (a kretprobe, for that work item only) until the
 * canceller, on the other CPU, holds the idle work's PENDING bit in
 * cancel_work() (a kretprobe on the workqueue's grab) or has returned.
 * The cancel used to go into cancel_work() and meet the queue_work(),
 * which then queued nothing: the task never ran, and the cancel returned
 * false. The workqueue and the threads are CPU-bound, so that the
 * dispatcher and the canceller are on different CPUs.
 */
struct meet_kx {
	struct ordsched_keyed *kx;
	struct workqueue_struct *wq;
	struct ordsched_keyed_task a, b;
	struct completion go, a_started, b_ran, queued, cancelled, driven;
	struct kretprobe qkrp, gkrp;
	struct task_struct *canceller;
	/* The dispatch's hold, the canceller's: 0 armed, 1 held, 2 over. */
	atomic_t held, grabbed;
	/* The dispatch's queue_work() returned; the cancel returned. */
	atomic_t qdone, cdone;
	/* The dispatch's hold ended with the cancel returned. */
	atomic_t cancel_first;
	bool qret, ret;
};

static struct meet_kx *meet_kx_of;

static void meet_kx_a_fn(struct ordsched_keyed_task *task)
{
	struct meet_kx *m = meet_kx_of;

	complete(&m->a_started);
	wait_for_completion_timeout(&m->go, 5 * HZ);
}

static void meet_kx_b_fn(struct ordsched_keyed_task *task)
{
	complete(&meet_kx_of->b_ran);
}

/* queue_work_on(cpu, wq, work), of B's work: held until the cancel. */
static int meet_kx_qentry(struct kretprobe_instance *ri,
			  struct pt_regs *regs)
{
	struct meet_kx *m = container_of(get_kretprobe(ri), struct meet_kx,
					 qkrp);
	u64 until;

	if ((void *)regs_get_kernel_argument(regs, 2) != &m->b.work)
		return 1;
	if (atomic_cmpxchg(&m->held, 0, 1) != 0)
		return 0;
	until = ktime_get_mono_fast_ns() + NSEC_PER_SEC;
	while (!atomic_read(&m->grabbed) && !atomic_read(&m->cdone) &&
	       ktime_get_mono_fast_ns() < until)
		cpu_relax();
	atomic_set(&m->cancel_first, atomic_read(&m->cdone));
	atomic_set(&m->held, 2);
	return 0;
}

static int meet_kx_qret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct meet_kx *m = container_of(get_kretprobe(ri), struct meet_kx,
					 qkrp);

	m->qret = regs_return_value(regs);
	atomic_set(&m->qdone, 1);
	return 0;
}

static int meet_kx_gentry(struct kretprobe_instance *ri,
			  struct pt_regs *regs)
{
	struct meet_kx *m = container_of(get_kretprobe(ri), struct meet_kx,
					 gkrp);

	return current != READ_ONCE(m->canceller) ||
	       (void *)regs_get_kernel_argument(regs, 0) != &m->b.work;
}

/* A kprobe handler runs as an NMI would: only NMI-safe clocks here. */
static int meet_kx_ghold(struct kretprobe_instance *ri,
			 struct pt_regs *regs)
{
	struct meet_kx *m = container_of(get_kretprobe(ri), struct meet_kx,
					 gkrp);
	u64 until = ktime_get_mono_fast_ns() + 300 * NSEC_PER_MSEC;

	if (atomic_cmpxchg(&m->grabbed, 0, 1) != 0)
		return 0;
	while (!atomic_read(&m->qdone) && ktime_get_mono_fast_ns() < until)
		cpu_relax();
	atomic_set(&m->grabbed, 2);
	return 0;
}

static int meet_kx_cancel(void *data)
{
	struct meet_kx *m = data;
	unsigned long until;

	wait_for_completion(&m->queued);
	until = jiffies + 5 * HZ;
	while (atomic_read(&m->held) != 1 && time_before(jiffies, until))
		usleep_range(20, 50);
	m->ret = ordsched_keyed_cancel(m->kx, &m->b);
	atomic_set(&m->cdone, 1);
	complete(&m->cancelled);
	return 0;
}

/* On the dispatcher's CPU: A runs there, B waits behind it on key 1. */
static int meet_kx_drive(void *data)
{
	struct meet_kx *m = data;
	u64 key = 1;
	bool ok;

	ok = ordsched_keyed_queue(m->kx, &m->a, &key, 1) &&
	     wait_for_completion_timeout(&m->a_started, 5 * HZ) &&
	     ordsched_keyed_queue(m->kx, &m->b, &key, 1);
	complete(&m->queued);
	complete(&m->go);
	complete(&m->driven);
	return !ok;
}

static void cancel_meets_dispatch(struct ktest *t)
{
	struct ordsched_keyed_params p = { .name = "kt_meet" };
	struct task_struct *driver;
	struct meet_kx *m;
	bool ran;

	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs two CPUs");
		return;
	}
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!KT_EXPECT(t, m))
		return;
	meet_kx_of = m;
	init_completion(&m->go);
	init_completion(&m->a_started);
	init_completion(&m->b_ran);
	init_completion(&m->queued);
	init_completion(&m->cancelled);
	init_completion(&m->driven);
	ordsched_keyed_task_init(&m->a, meet_kx_a_fn, NULL, NULL, 0);
	ordsched_keyed_task_init(&m->b, meet_kx_b_fn, NULL, NULL, 0);
	/* Per-CPU: A, and its hand-on, run on the driver's CPU. */
	m->wq = alloc_workqueue("ordsched_kw", 0, 0);
	if (!KT_EXPECT(t, m->wq))
		goto out_free;
	p.wq = m->wq;
	m->kx = ordsched_keyed_create(&p);
	if (!KT_EXPECT(t, !IS_ERR(m->kx)))
		goto out_wq;
	m->qkrp.kp.symbol_name = "queue_work_on";
	m->qkrp.entry_handler = meet_kx_qentry;
	m->qkrp.handler = meet_kx_qret;
	m->qkrp.maxactive = 8;
	if (register_kretprobe(&m->qkrp)) {
		ktest_skip(t, "no kretprobe on queue_work_on");
		goto out_kx;
	}
	m->gkrp.entry_handler = meet_kx_gentry;
	m->gkrp.handler = meet_kx_ghold;
	m->gkrp.maxactive = 4;
	if (kt_register_grab_kretprobe(&m->gkrp)) {
		ktest_skip(t, "no kretprobe on the workqueue's grab");
		goto out_qkrp;
	}
	if (!KT_EXPECT_EQ(t, kt_create_pair(&m->canceller, meet_kx_cancel,
					    &driver, meet_kx_drive, m,
					    "kt_kx_meet"), 0))
		goto out_gkrp;
	wake_up_process(m->canceller);
	wake_up_process(driver);
	wait_for_completion(&m->driven);
	wait_for_completion(&m->cancelled);
	ran = wait_for_completion_timeout(&m->b_ran, 5 * HZ);
	KT_EXPECT_EQ(t, atomic_read(&m->held), 2);
	KT_EXPECT_EQ(t, atomic_read(&m->cancel_first), 1);
	KT_EXPECT(t, !m->ret);
	KT_EXPECT(t, m->qret);
	KT_EXPECT(t, ran);
	/* Neither: queue it for the executor, or its flush never returns. */
	if (!ran && !m->ret) {
		queue_work(m->wq, &m->b.work);
		wait_for_completion_timeout(&m->b_ran, 5 * HZ);
	}
out_gkrp:
	unregister_kretprobe(&m->gkrp);
out_qkrp:
	unregister_kretprobe(&m->qkrp);
out_kx:
	complete_all(&m->go);
	KT_EXPECT_EQ(t, ordsched_keyed_flush(m->kx), 0);
	ordsched_keyed_destroy(m->kx);
out_wq:
	destroy_workqueue(m->wq);
out_free:
	meet_kx_of = NULL;
	kfree(m);
}

static const struct ktest_case keyed_cases[] = {
	KT_CASE(bad_keys),
	KT_CASE(one_key_order),
	KT_CASE(rollup_exact),
	KT_CASE(crossed_rollups),
	KT_CASE(hot_key),
	KT_CASE(keys_reclaimed),
	KT_CASE(random_keys),
	KT_CASE(cancel_twice),
	KT_CASE(handon_requeue_work),
	KT_CASE(handon_requeue_cancel),
	KT_CASE(cancel_meets_dispatch),
	KT_CASE(rollup_last_key_after_flight),
	KT_END
};

const struct ktest_suite ordsched_keyed_suite = KT_SUITE("keyed", keyed_cases);
