// SPDX-License-Identifier: GPL-2.0
/*
 * The contracts every part shares, checked part by part:
 *
 *	flush is killable	a flush held up forever (a ticket never handed
 *				in, an item that blocks, a far deadline)
 *				returns -EINTR to a fatal signal, and the
 *				instance still works and drains afterwards
 *	flush waits for the past only
 *				work handed over after a flush started is not
 *				waited for
 *	destroy drains		work still blocked when destroy is called runs
 *				before destroy returns
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/jiffies.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <ordsched.h>

#include "ktest.h"
#include "suites.h"
#include "util.h"

/* A gate work items block on, opened by a delayed work or by the test. */
struct gate {
	struct completion open;
	struct delayed_work opener;
	atomic_t passed;
};

static void gate_opener_fn(struct work_struct *work)
{
	struct gate *g = container_of(to_delayed_work(work), struct gate,
				      opener);

	complete_all(&g->open);
}

static void gate_init(struct gate *g)
{
	init_completion(&g->open);
	INIT_DELAYED_WORK(&g->opener, gate_opener_fn);
	atomic_set(&g->passed, 0);
}

static void gate_pass(struct gate *g)
{
	wait_for_completion(&g->open);
	atomic_inc(&g->passed);
}

/* Open @g @ms from now, from a worker. */
static void gate_open_later(struct gate *g, unsigned int ms)
{
	queue_delayed_work(system_wq, &g->opener, msecs_to_jiffies(ms));
}

/* ---- sequencer and pipeline ---- */

static int seq_flush_thread(void *seq)
{
	return ordsched_seq_flush(seq);
}

static void seq_flush_killable(struct ktest *t)
{
	struct ordsched_seq *seq = ordsched_seq_create(NULL);
	u64 tk;

	if (!KT_EXPECT(t, !IS_ERR(seq)))
		return;
	KT_EXPECT_EQ(t, ordsched_seq_ticket(seq, &tk), 0);
	KT_EXPECT_EQ(t, kt_run_killed(seq_flush_thread, seq, 100), -EINTR);
	ordsched_seq_cancel(seq, tk);
	KT_EXPECT_EQ(t, ordsched_seq_flush(seq), 0);
	ordsched_seq_destroy(seq);
}

struct pl_test {
	struct gate gate;
	struct ordsched_job jobs[4];
	atomic_t serial;
	u64 order[4];
};

static struct pl_test *pl_test_of(struct ordsched_job *job)
{
	return container_of(job - (job->ticket & 3), struct pl_test, jobs[0]);
}

static int pl_parallel(struct ordsched_job *job)
{
	/* Job 0 blocks: the others finish first and wait for it. */
	if (!(job->ticket & 3))
		gate_pass(&pl_test_of(job)->gate);
	return 0;
}

static void pl_serial(struct ordsched_job *job, int err)
{
	struct pl_test *pt = pl_test_of(job);

	pt->order[atomic_inc_return(&pt->serial) - 1] = job->ticket;
}

static const struct ordsched_pipeline_ops pl_ops = {
	.parallel = pl_parallel,
	.serial = pl_serial,
};

static int pl_flush_thread(void *pl)
{
	return ordsched_pipeline_flush(pl);
}

/* A killed flush, then destroy while a parallel step is still blocked. */
static void pipeline_flush_killable_destroy_drains(struct ktest *t)
{
	struct ordsched_pipeline_params p = { .name = "contract",
					      .ops = &pl_ops };
	struct ordsched_pipeline *pl;
	struct pl_test *pt = kzalloc(sizeof(*pt), GFP_KERNEL);
	int i;

	if (!KT_EXPECT(t, pt))
		return;
	gate_init(&pt->gate);
	pl = ordsched_pipeline_create(&p);
	if (!KT_EXPECT(t, !IS_ERR(pl)))
		goto out;
	for (i = 0; i < 4; i++)
		KT_EXPECT(t, ordsched_pipeline_queue(pl, &pt->jobs[i]));
	KT_EXPECT_EQ(t, kt_run_killed(pl_flush_thread, pl, 100), -EINTR);
	KT_EXPECT_EQ(t, atomic_read(&pt->serial), 0);
	gate_open_later(&pt->gate, 100);
	ordsched_pipeline_destroy(pl);
	KT_EXPECT_EQ(t, atomic_read(&pt->serial), 4);
	for (i = 0; i < 4; i++)
		KT_EXPECT_EQ(t, pt->order[i], i);
	flush_delayed_work(&pt->gate.opener);
out:
	kfree(pt);
}

/* ---- streams ---- */

struct st_test {
	struct gate gate;
	struct ordsched_stream stream;
	struct ordsched_stream_item items[3];
	atomic_t ran;
};

static void st_block_fn(struct ordsched_stream_item *item)
{
	struct st_test *st = container_of(item, struct st_test, items[0]);

	gate_pass(&st->gate);
	atomic_inc(&st->ran);
}

static void st_count_fn(struct ordsched_stream_item *item)
{
	struct st_test *st = container_of(item, struct st_test, items[1]);

	atomic_inc(&st->ran);
}

/* Item 2 queues item 1 again: destroy must run work queued meanwhile. */
static void st_chain_fn(struct ordsched_stream_item *item)
{
	struct st_test *st = container_of(item, struct st_test, items[2]);

	atomic_inc(&st->ran);
	ordsched_stream_queue(&st->stream, &st->items[1]);
}

static int st_flush_thread(void *stream)
{
	return ordsched_stream_flush(stream);
}

/*
 * A set of its own: its counters tell that the killed flush's barrier
 * was withdrawn (cancelled, not run), which @ran, counting the items'
 * runs only, cannot.
 */
static void stream_flush_killable_destroy_drains(struct ktest *t)
{
	struct ordsched_stream_set_params sp = { .name = "killed_flush" };
	struct st_test *st = kzalloc(sizeof(*st), GFP_KERNEL);
	struct ordsched_stream_set *set;
	struct ordsched_stream_stats stats;

	if (!KT_EXPECT(t, st))
		return;
	set = ordsched_stream_set_create(&sp);
	if (!KT_EXPECT(t, !IS_ERR(set))) {
		kfree(st);
		return;
	}
	gate_init(&st->gate);
	ordsched_stream_init(&st->stream, set);
	ordsched_stream_item_init(&st->items[0], st_block_fn);
	ordsched_stream_item_init(&st->items[1], st_count_fn);
	ordsched_stream_item_init(&st->items[2], st_chain_fn);
	ordsched_stream_queue(&st->stream, &st->items[0]);
	KT_EXPECT_EQ(t, kt_run_killed(st_flush_thread, &st->stream, 100),
		     -EINTR);
	/* The killed flush took its barrier back: the stream goes on. */
	ordsched_stream_queue(&st->stream, &st->items[2]);
	gate_open_later(&st->gate, 100);
	ordsched_stream_destroy(&st->stream);
	KT_EXPECT_EQ(t, atomic_read(&st->ran), 3);
	/* Items 0, 2, 1 again, and the barrier: only that one cancelled. */
	ordsched_stream_set_get_stats(set, &stats);
	KT_EXPECT_EQ(t, stats.queued, 4);
	KT_EXPECT_EQ(t, stats.cancelled, 1);
	KT_EXPECT_EQ(t, stats.ran, 3);
	ordsched_stream_set_destroy(set);
	flush_delayed_work(&st->gate.opener);
	kfree(st);
}

/* ---- keyed ---- */

struct kx_test {
	struct gate early, late;
	struct ordsched_keyed_task tasks[2];
	struct completion flushed;
	struct work_struct flush_work;
	struct ordsched_keyed *kx;
	/* The worker running the flush, once it is about to call it. */
	struct task_struct *flusher;
	int flush_ret;
};

static void kx_early_fn(struct ordsched_keyed_task *task)
{
	gate_pass(&container_of(task, struct kx_test, tasks[0])->early);
}

static void kx_late_fn(struct ordsched_keyed_task *task)
{
	gate_pass(&container_of(task, struct kx_test, tasks[1])->late);
}

static int kx_flush_thread(void *kx)
{
	return ordsched_keyed_flush(kx);
}

static void kx_flush_worker(struct work_struct *work)
{
	struct kx_test *kt = container_of(work, struct kx_test, flush_work);

	WRITE_ONCE(kt->flusher, current);
	kt->flush_ret = ordsched_keyed_flush(kt->kx);
	complete(&kt->flushed);
}

/*
 * A flush waits for the task submitted before it, not for one submitted
 * after it on another key; killed, it returns -EINTR and the next flush
 * still waits for everything before it.
 */
static void keyed_flush_past_only_killable(struct ktest *t)
{
	struct kx_test *kt = kzalloc(sizeof(*kt), GFP_KERNEL);
	u64 key_a = 1, key_b = 2;

	if (!KT_EXPECT(t, kt))
		return;
	gate_init(&kt->early);
	gate_init(&kt->late);
	init_completion(&kt->flushed);
	INIT_WORK(&kt->flush_work, kx_flush_worker);
	kt->kx = ordsched_keyed_create(NULL);
	if (!KT_EXPECT(t, !IS_ERR(kt->kx)))
		goto out;
	ordsched_keyed_task_init(&kt->tasks[0], kx_early_fn, NULL, NULL, 0);
	ordsched_keyed_task_init(&kt->tasks[1], kx_late_fn, NULL, NULL, 0);

	KT_EXPECT(t, ordsched_keyed_queue(kt->kx, &kt->tasks[0], &key_a, 1));
	KT_EXPECT_EQ(t, kt_run_killed(kx_flush_thread, kt->kx, 100), -EINTR);

	/*
	 * A flush starts; then a later task blocks on another key. The
	 * flush's only sleep here is its wait for the early task, past the
	 * change of color: once its worker is seen asleep, a task queued is
	 * later. (A sleep of 50 ms stood for that, which a slow worker
	 * outlasts.)
	 */
	queue_work(system_unbound_wq, &kt->flush_work);
	KT_EXPECT(t, kt_stays_asleep(&kt->flusher, &kt->flushed));
	KT_EXPECT(t, ordsched_keyed_queue(kt->kx, &kt->tasks[1], &key_b, 1));
	KT_EXPECT(t, !wait_for_completion_timeout(&kt->flushed,
						  msecs_to_jiffies(100)));
	complete_all(&kt->early.open);
	/* Returns while the later task still blocks. */
	KT_EXPECT(t, wait_for_completion_timeout(&kt->flushed, 10 * HZ));
	KT_EXPECT_EQ(t, kt->flush_ret, 0);
	KT_EXPECT_EQ(t, atomic_read(&kt->early.passed), 1);
	KT_EXPECT_EQ(t, atomic_read(&kt->late.passed), 0);
	flush_work(&kt->flush_work);

	/* Destroy drains the blocked task. */
	gate_open_later(&kt->late, 100);
	ordsched_keyed_destroy(kt->kx);
	KT_EXPECT_EQ(t, atomic_read(&kt->late.passed), 1);
	flush_delayed_work(&kt->late.opener);
out:
	kfree(kt);
}

/* ---- spreader ---- */

struct sp_test {
	struct gate gate;
	struct ordsched_spread_group group;
	struct ordsched_spread_job jobs[2];
	bool pulled;
	atomic_t dispatched;
	atomic_t released;
};

static struct ordsched_spread_group *sp_pull(void *priv)
{
	struct sp_test *st = priv;

	if (st->pulled)
		return NULL;
	st->pulled = true;
	return &st->group;
}

static void sp_dispatch(void *priv, struct ordsched_spread_job *job)
{
	struct sp_test *st = priv;

	gate_pass(&st->gate);
	atomic_inc(&st->dispatched);
}

static void sp_release(void *priv, struct ordsched_spread_group *group)
{
	atomic_inc(&((struct sp_test *)priv)->released);
}

static const struct ordsched_spread_ops sp_ops = {
	.pull = sp_pull,
	.dispatch = sp_dispatch,
	.release = sp_release,
};

static int sp_flush_thread(void *sp)
{
	return ordsched_spread_flush(sp);
}

static void spread_flush_killable(struct ktest *t)
{
	struct ordsched_spread_params p = { .name = "contract", .ops = &sp_ops };
	struct sp_test *st = kzalloc(sizeof(*st), GFP_KERNEL);
	struct ordsched_spread *sp;

	if (!KT_EXPECT(t, st))
		return;
	gate_init(&st->gate);
	ordsched_spread_group_init(&st->group);
	ordsched_spread_group_add(&st->group, &st->jobs[0]);
	ordsched_spread_group_add(&st->group, &st->jobs[1]);
	p.priv = st;
	sp = ordsched_spread_create(&p);
	if (!KT_EXPECT(t, !IS_ERR(sp)))
		goto out;
	ordsched_spread_kick(sp);
	KT_EXPECT_EQ(t, kt_run_killed(sp_flush_thread, sp, 100), -EINTR);
	complete_all(&st->gate.open);
	KT_EXPECT_EQ(t, ordsched_spread_flush(sp), 0);
	KT_EXPECT_EQ(t, atomic_read(&st->dispatched), 2);
	KT_EXPECT_EQ(t, atomic_read(&st->released), 1);
	ordsched_spread_destroy(sp);
out:
	kfree(st);
}

/* ---- cancel ---- */

struct plc_test {
	struct gate gate;
	struct ordsched_job jobs[4];
	/* Zeroed, never queued. */
	struct ordsched_job never;
	atomic_t serial;
	u64 order[4];
	atomic_t parallel;
};

static struct plc_test *plc_of(struct ordsched_job *job)
{
	return container_of(job - (job->ticket & 3), struct plc_test, jobs[0]);
}

static int plc_parallel(struct ordsched_job *job)
{
	struct plc_test *pt = plc_of(job);

	atomic_inc(&pt->parallel);
	if (!(job->ticket & 3))
		gate_pass(&pt->gate);
	return 0;
}

static void plc_serial(struct ordsched_job *job, int err)
{
	struct plc_test *pt = plc_of(job);

	pt->order[atomic_inc_return(&pt->serial) - 1] = job->ticket;
}

static const struct ordsched_pipeline_ops plc_ops = {
	.parallel = plc_parallel,
	.serial = plc_serial,
};

/*
 * On an ordered workqueue job 0's parallel step blocks and the others
 * wait behind it: job 2 is cancelled (neither step runs, its turn is
 * skipped), job 0, running, is not. Jobs not in flight on the pipeline
 * are left alone: one never queued (zeroed), and job 2 while in flight
 * on another pipeline, which used to be cancelled on the wrong sequencer.
 */
static void pipeline_cancel(struct ktest *t)
{
	struct ordsched_pipeline_params p = { .name = "cancel", .ops = &plc_ops };
	struct plc_test *pt = kzalloc(sizeof(*pt), GFP_KERNEL);
	struct ordsched_pipeline *pl = NULL, *other = NULL;
	int i;

	if (!KT_EXPECT(t, pt))
		return;
	gate_init(&pt->gate);
	p.wq = alloc_ordered_workqueue("kt_plcancel", 0);
	if (!KT_EXPECT(t, p.wq))
		goto out;
	pl = ordsched_pipeline_create(&p);
	if (!KT_EXPECT(t, !IS_ERR(pl)))
		goto out_wq;
	other = ordsched_pipeline_create(&p);
	if (!KT_EXPECT(t, !IS_ERR(other)))
		goto out_pl;
	KT_EXPECT(t, !ordsched_pipeline_cancel(pl, &pt->never));
	for (i = 0; i < 4; i++)
		KT_EXPECT(t, ordsched_pipeline_queue(pl, &pt->jobs[i]));
	while (!atomic_read(&pt->parallel))
		usleep_range(1000, 2000);
	KT_EXPECT(t, !ordsched_pipeline_cancel(other, &pt->jobs[2]));
	KT_EXPECT(t, ordsched_pipeline_cancel(pl, &pt->jobs[2]));
	KT_EXPECT(t, !ordsched_pipeline_cancel(pl, &pt->jobs[2]));
	KT_EXPECT(t, !ordsched_pipeline_cancel(pl, &pt->jobs[0]));
	complete_all(&pt->gate.open);
	KT_EXPECT_EQ(t, ordsched_pipeline_flush(pl), 0);
	KT_EXPECT_EQ(t, atomic_read(&pt->serial), 3);
	KT_EXPECT_EQ(t, atomic_read(&pt->parallel), 3);
	KT_EXPECT_EQ(t, pt->order[0], 0);
	KT_EXPECT_EQ(t, pt->order[1], 1);
	KT_EXPECT_EQ(t, pt->order[2], 3);
	KT_EXPECT(t, !ordsched_pipeline_cancel(pl, &pt->jobs[3]));
	ordsched_pipeline_destroy(other);
out_pl:
	ordsched_pipeline_destroy(pl);
out_wq:
	destroy_workqueue(p.wq);
out:
	kfree(pt);
}

struct kxc_task {
	struct ordsched_keyed_task task;
	struct ordsched_keyed_token tokens[2];
	struct gate *gate;
	atomic_t *log_pos;
	int *log;
	int id;
	atomic_t ran;
};

static void kxc_fn(struct ordsched_keyed_task *task)
{
	struct kxc_task *kt = container_of(task, struct kxc_task, task);

	if (kt->gate)
		gate_pass(kt->gate);
	kt->log[atomic_inc_return(kt->log_pos) - 1] = kt->id;
	atomic_inc(&kt->ran);
}

/*
 * Cancel a task in each state it can be cancelled in, and one it cannot:
 *	waiting on its key (1, behind 0), a rollup half at the head of its
 *	keys (4 on {B, C}, behind 3 on B: 5 on C does not wait for it),
 *	ready and queued on the workqueue but not started (7 on E, behind 0
 *	on a one-worker workqueue; 8 on E then runs), running (0).
 * And tasks not in flight on the executor: never queued (8, before its
 * queueing), waiting but on another executor (2), finished (2, after).
 */
static void keyed_cancel(struct ktest *t)
{
	struct kxc_task *kt = kcalloc(9, sizeof(*kt), GFP_KERNEL);
	struct ordsched_keyed_params p = { .name = "cancel" };
	struct gate *gates = kcalloc(3, sizeof(*gates), GFP_KERNEL);
	u64 A = 1, B = 2, C = 3, D = 4, E = 5, BC[2] = { 2, 3 };
	struct ordsched_keyed *kx = NULL, *other = NULL;
	int log[9], i;
	atomic_t pos = ATOMIC_INIT(0);

	if (!KT_EXPECT(t, kt && gates))
		goto out;
	for (i = 0; i < 3; i++)
		gate_init(&gates[i]);
	for (i = 0; i < 9; i++) {
		ordsched_keyed_task_init(&kt[i].task, kxc_fn, NULL,
					 kt[i].tokens, 2);
		kt[i].log = log;
		kt[i].log_pos = &pos;
		kt[i].id = i;
	}
	kt[0].gate = &gates[0];
	kt[3].gate = &gates[1];
	kt[6].gate = &gates[2];
	p.wq = alloc_ordered_workqueue("kt_kxcancel", 0);
	if (!KT_EXPECT(t, p.wq))
		goto out;
	kx = ordsched_keyed_create(&p);
	if (!KT_EXPECT(t, !IS_ERR(kx)))
		goto out_wq;
	other = ordsched_keyed_create(NULL);
	if (!KT_EXPECT(t, !IS_ERR(other)))
		goto out_kx;

	/* 0 runs and blocks the only worker; 1 and 2 wait on A. */
	KT_EXPECT(t, ordsched_keyed_queue(kx, &kt[0].task, &A, 1));
	KT_EXPECT(t, ordsched_keyed_queue(kx, &kt[1].task, &A, 1));
	KT_EXPECT(t, ordsched_keyed_queue(kx, &kt[2].task, &A, 1));
	while (!(work_busy(&kt[0].task.work) & WORK_BUSY_RUNNING))
		usleep_range(1000, 2000);
	KT_EXPECT(t, ordsched_keyed_cancel(kx, &kt[1].task));
	KT_EXPECT(t, !ordsched_keyed_cancel(kx, &kt[1].task));
	KT_EXPECT(t, !ordsched_keyed_cancel(kx, &kt[0].task));
	KT_EXPECT(t, !ordsched_keyed_cancel(other, &kt[2].task));

	/* 3 holds B (queued behind 0 on the one worker); 4 on {B, C}. */
	KT_EXPECT(t, ordsched_keyed_queue(kx, &kt[3].task, &B, 1));
	KT_EXPECT(t, ordsched_keyed_queue(kx, &kt[4].task, BC, 2));
	KT_EXPECT(t, ordsched_keyed_queue(kx, &kt[5].task, &C, 1));
	KT_EXPECT(t, ordsched_keyed_cancel(kx, &kt[4].task));

	/* 6 on D, 7 on E: both ready, queued behind 0 and not started. */
	KT_EXPECT(t, ordsched_keyed_queue(kx, &kt[6].task, &D, 1));
	KT_EXPECT(t, ordsched_keyed_queue(kx, &kt[7].task, &E, 1));
	KT_EXPECT(t, ordsched_keyed_cancel(kx, &kt[7].task));
	KT_EXPECT(t, !ordsched_keyed_cancel(kx, &kt[8].task));
	KT_EXPECT(t, ordsched_keyed_queue(kx, &kt[8].task, &E, 1));

	complete_all(&gates[0].open);
	complete_all(&gates[1].open);
	complete_all(&gates[2].open);
	KT_EXPECT_EQ(t, ordsched_keyed_flush(kx), 0);
	for (i = 0; i < 9; i++)
		KT_EXPECT_EQ(t, atomic_read(&kt[i].ran),
			     i == 1 || i == 4 || i == 7 ? 0 : 1);
	KT_EXPECT_EQ(t, atomic_read(&pos), 6);
	KT_EXPECT_EQ(t, ordsched_keyed_live_keys(kx), 0);
	/* 2 after 0 on A; the cancelled ones held nothing back. */
	for (i = 0; i < atomic_read(&pos); i++)
		ktest_diag(t, "ran %d", log[i]);
	KT_EXPECT(t, !ordsched_keyed_cancel(kx, &kt[2].task));
	ordsched_keyed_destroy(other);
out_kx:
	ordsched_keyed_destroy(kx);
out_wq:
	destroy_workqueue(p.wq);
out:
	kfree(gates);
	kfree(kt);
}

struct kxf_task {
	struct ordsched_keyed_task task;
	struct ordsched_keyed_token *tokens;
};

static void kxf_fn(struct ordsched_keyed_task *task)
{
}

/* Once the keys are handed on the tokens are the caller's: free them. */
static void kxf_done(struct ordsched_keyed_task *task)
{
	struct kxf_task *kt = container_of(task, struct kxf_task, task);

	kfree(kt->tokens);
	kt->tokens = NULL;
}

/*
 * A cancel after @done must not read the tokens: a rollup's are freed
 * by its @done here, and on a KASAN kernel a read of them is reported.
 * The cancel used to lock the buckets of the freed tokens' keys.
 */
static void keyed_cancel_after_done(struct ktest *t)
{
	struct kxf_task *kt = kzalloc(sizeof(*kt), GFP_KERNEL);
	struct ordsched_keyed *kx = ordsched_keyed_create(NULL);
	struct ordsched_keyed_stats st;
	u64 keys[2] = { 7, 8 };

	if (!KT_EXPECT(t, kt && !IS_ERR(kx)))
		goto out;
	kt->tokens = kcalloc(2, sizeof(*kt->tokens), GFP_KERNEL);
	if (!KT_EXPECT(t, kt->tokens))
		goto out;
	ordsched_keyed_task_init(&kt->task, kxf_fn, kxf_done, kt->tokens, 2);
	KT_EXPECT(t, ordsched_keyed_queue(kx, &kt->task, keys, 2));
	KT_EXPECT_EQ(t, ordsched_keyed_flush(kx), 0);
	KT_EXPECT(t, !kt->tokens);
	KT_EXPECT(t, !ordsched_keyed_cancel(kx, &kt->task));
	ordsched_keyed_get_stats(kx, &st);
	KT_EXPECT_EQ(t, st.ran, 1);
	KT_EXPECT_EQ(t, st.cancelled, 0);
out:
	if (!IS_ERR(kx))
		ordsched_keyed_destroy(kx);
	if (kt)
		kfree(kt->tokens);
	kfree(kt);
}

struct kxr_task {
	struct ordsched_keyed_task task;
	struct ordsched_keyed *kx;
	u64 key;
	atomic_t runs, from_fn, from_done;
};

/* In flight here: queueing itself again is refused. */
static void kxr_fn(struct ordsched_keyed_task *task)
{
	struct kxr_task *kt = container_of(task, struct kxr_task, task);

	atomic_inc(&kt->runs);
	if (ordsched_keyed_queue(kt->kx, task, &kt->key, 1))
		atomic_inc(&kt->from_fn);
}

/* Not in flight any more: accepted, once. */
static void kxr_done(struct ordsched_keyed_task *task)
{
	struct kxr_task *kt = container_of(task, struct kxr_task, task);

	if (atomic_read(&kt->runs) == 1 &&
	    ordsched_keyed_queue(kt->kx, task, &kt->key, 1))
		atomic_inc(&kt->from_done);
}

/*
 * keyed.h: a task is in flight until its keys are handed on; queueing
 * it again meanwhile is refused, on every kernel (it used to corrupt
 * the key's queue without debug objects); from @done it is accepted.
 */
static void keyed_requeue_in_flight(struct ktest *t)
{
	struct kxr_task *kt = kzalloc(sizeof(*kt), GFP_KERNEL);

	if (!KT_EXPECT(t, kt))
		return;
	kt->kx = ordsched_keyed_create(NULL);
	if (!KT_EXPECT(t, !IS_ERR(kt->kx)))
		goto out;
	kt->key = 3;
	ordsched_keyed_task_init(&kt->task, kxr_fn, kxr_done, NULL, 0);
	KT_EXPECT(t, ordsched_keyed_queue(kt->kx, &kt->task, &kt->key, 1));
	/* The destroy waits for the second run too. */
	ordsched_keyed_destroy(kt->kx);
	KT_EXPECT_EQ(t, atomic_read(&kt->runs), 2);
	KT_EXPECT_EQ(t, atomic_read(&kt->from_fn), 0);
	KT_EXPECT_EQ(t, atomic_read(&kt->from_done), 1);
out:
	kfree(kt);
}

/* ---- delays ---- */

struct dl_test {
	struct ordsched_delay_task task;
	atomic_t ran;
	atomic_t cancelled;
};

static void dl_fn(struct ordsched_delay_task *task)
{
	atomic_inc(&container_of(task, struct dl_test, task)->ran);
}

static void dl_cancelled(struct ordsched_delay_task *task)
{
	atomic_inc(&container_of(task, struct dl_test, task)->cancelled);
}

static int dl_flush_thread(void *d)
{
	return ordsched_delay_flush(d);
}

/* A far deadline: the flush is killed, destroy cancels and reports it. */
static void delay_flush_killable(struct ktest *t)
{
	struct ordsched_delay_params p = { .name = "contract",
					   .cancelled = dl_cancelled };
	struct dl_test *dt = kzalloc(sizeof(*dt), GFP_KERNEL);
	struct ordsched_delay *d;

	if (!KT_EXPECT(t, dt))
		return;
	d = ordsched_delay_create(&p);
	if (!KT_EXPECT(t, !IS_ERR(d)))
		goto out;
	ordsched_delay_task_init(&dt->task, dl_fn, NULL);
	KT_EXPECT(t, ordsched_delay_queue(d, &dt->task,
					  60 * NSEC_PER_SEC));
	KT_EXPECT_EQ(t, kt_run_killed(dl_flush_thread, d, 100), -EINTR);
	ordsched_delay_destroy(d);
	KT_EXPECT_EQ(t, atomic_read(&dt->ran), 0);
	KT_EXPECT_EQ(t, atomic_read(&dt->cancelled), 1);
out:
	kfree(dt);
}

/*
 * A task freed while queued is reported by debug objects (one warning
 * each) and taken back before its memory goes, so nothing runs or touches
 * it later: a delay waiting for a far deadline, a keyed task waiting
 * behind another on its key.
 */
static void freed_while_queued_warns(struct ktest *t)
{
	struct ordsched_keyed_params kp = { .name = "freed" };
	struct ordsched_delay_stats ds;
	struct ordsched_delay_task *dtask;
	struct ordsched_keyed_task *first, *freed;
	struct ordsched_delay *d;
	struct ordsched_keyed *kx;
	struct kx_test *kt;
	u64 key = 42;

	if (!IS_ENABLED(CONFIG_DEBUG_OBJECTS_FREE)) {
		ktest_skip(t, "needs CONFIG_DEBUG_OBJECTS_FREE");
		return;
	}
	d = ordsched_delay_create(NULL);
	dtask = kzalloc(sizeof(*dtask), GFP_KERNEL);
	if (KT_EXPECT(t, !IS_ERR(d) && dtask)) {
		ordsched_delay_task_init(dtask, dl_fn, NULL);
		KT_EXPECT(t, ordsched_delay_queue(d, dtask, 60 * NSEC_PER_SEC));
		kfree(dtask);
		ordsched_delay_get_stats(d, &ds);
		KT_EXPECT_EQ(t, ds.pending, 0);
		KT_EXPECT_EQ(t, ds.cancels, 1);
	} else {
		kfree(dtask);
	}
	ordsched_delay_destroy(d);

	kt = kzalloc(sizeof(*kt), GFP_KERNEL);
	freed = kzalloc(sizeof(*freed), GFP_KERNEL);
	if (!KT_EXPECT(t, kt && freed)) {
		kfree(freed);
		kfree(kt);
		return;
	}
	gate_init(&kt->early);
	kx = ordsched_keyed_create(&kp);
	if (!KT_EXPECT(t, !IS_ERR(kx))) {
		kfree(freed);
		kfree(kt);
		return;
	}
	first = &kt->tasks[0];
	ordsched_keyed_task_init(first, kx_early_fn, NULL, NULL, 0);
	ordsched_keyed_task_init(freed, kx_early_fn, NULL, NULL, 0);
	KT_EXPECT(t, ordsched_keyed_queue(kx, first, &key, 1));
	KT_EXPECT(t, ordsched_keyed_queue(kx, freed, &key, 1));
	kfree(freed);
	complete_all(&kt->early.open);
	KT_EXPECT_EQ(t, ordsched_keyed_flush(kx), 0);
	KT_EXPECT_EQ(t, atomic_read(&kt->early.passed), 1);
	KT_EXPECT_EQ(t, ordsched_keyed_live_keys(kx), 0);
	ordsched_keyed_destroy(kx);
	kfree(kt);
}

/*
 * The items below are freed while queued and reported the same way. Debug
 * objects print their first five reports only, in all: these cases make
 * five, one each, and the reports of delay_handed_freed_warns() (last)
 * are not printed; it checks what the fixups did instead.
 */

/* What the functions of the freed items count: they must never run. */
static atomic_t fq_ran;

static void fq_stream_fn(struct ordsched_stream_item *item)
{
	atomic_inc(&fq_ran);
}

/* A stream item queued behind one that blocks: cancelled before it goes. */
static void stream_freed_while_queued_warns(struct ktest *t)
{
	struct ordsched_stream_set_params sp = { .name = "freed" };
	struct ordsched_stream_item *freed;
	struct ordsched_stream_stats ss;
	struct ordsched_stream_set *set;
	struct st_test *st;

	if (!IS_ENABLED(CONFIG_DEBUG_OBJECTS_FREE)) {
		ktest_skip(t, "needs CONFIG_DEBUG_OBJECTS_FREE");
		return;
	}
	st = kzalloc(sizeof(*st), GFP_KERNEL);
	freed = kzalloc(sizeof(*freed), GFP_KERNEL);
	set = ordsched_stream_set_create(&sp);
	if (!KT_EXPECT(t, st && freed && !IS_ERR(set)))
		goto out;
	atomic_set(&fq_ran, 0);
	gate_init(&st->gate);
	ordsched_stream_init(&st->stream, set);
	ordsched_stream_item_init(&st->items[0], st_block_fn);
	ordsched_stream_item_init(freed, fq_stream_fn);
	KT_EXPECT(t, ordsched_stream_queue(&st->stream, &st->items[0]));
	KT_EXPECT(t, ordsched_stream_queue(&st->stream, freed));
	kfree(freed);
	freed = NULL;
	complete_all(&st->gate.open);
	ordsched_stream_destroy(&st->stream);
	ordsched_stream_set_get_stats(set, &ss);
	KT_EXPECT_EQ(t, ss.cancelled, 1);
	KT_EXPECT_EQ(t, atomic_read(&st->ran), 1);
	KT_EXPECT_EQ(t, atomic_read(&fq_ran), 0);
out:
	ordsched_stream_set_destroy(set);
	kfree(freed);
	kfree(st);
}

static void fq_seq_first_fn(struct ordsched_seq_item *item, u64 ticket)
{
}

static void fq_seq_fn(struct ordsched_seq_item *item, u64 ticket)
{
	atomic_inc(&fq_ran);
}

/*
 * A seq item parked behind the tail: no fixup can take it back, the report
 * is all there is, but the drain that reaches it skips it. The item's
 * memory is type-safe by RCU: under rcu_read_lock() it stays intact after
 * the free, as freed memory often does for a while, and the drain below
 * reads it without KASAN reporting the use after free this test makes on
 * purpose.
 */
static void seq_freed_while_parked_warns(struct ktest *t)
{
	struct ordsched_seq_item first = { .fn = fq_seq_first_fn };
	struct ordsched_seq_item *freed;
	struct ordsched_seq *seq;
	struct kmem_cache *cache;
	u64 tk;

	if (!IS_ENABLED(CONFIG_DEBUG_OBJECTS_FREE)) {
		ktest_skip(t, "needs CONFIG_DEBUG_OBJECTS_FREE");
		return;
	}
	cache = kmem_cache_create("ordsched_test_freed", sizeof(*freed), 0,
				  SLAB_TYPESAFE_BY_RCU, NULL);
	if (!KT_EXPECT(t, cache))
		return;
	freed = kmem_cache_zalloc(cache, GFP_KERNEL);
	seq = ordsched_seq_create(NULL);
	if (!KT_EXPECT(t, freed && !IS_ERR(seq))) {
		if (freed)
			kmem_cache_free(cache, freed);
		goto out;
	}
	atomic_set(&fq_ran, 0);
	freed->fn = fq_seq_fn;
	KT_EXPECT_EQ(t, ordsched_seq_tickets(seq, 2, &tk), 0);
	KT_EXPECT(t, ordsched_seq_queue(seq, tk + 1, freed));
	rcu_read_lock();
	kmem_cache_free(cache, freed);
	/* The tail: this thread drains, first's ticket, then freed's. */
	ordsched_seq_queue(seq, tk, &first);
	rcu_read_unlock();
	KT_EXPECT_EQ(t, ordsched_seq_tail(seq), tk + 2);
	KT_EXPECT_EQ(t, atomic_read(&fq_ran), 0);
out:
	ordsched_seq_destroy(seq);
	kmem_cache_destroy(cache);
}

/*
 * seq.h: "on a kernel with debug objects, if @item is still parked for
 * another ticket (@ticket is then cancelled)": false, the turn of the
 * second ticket is skipped, and the item runs once, in its first one's.
 */
static void seq_item_parked_twice_warns(struct ktest *t)
{
	struct ordsched_seq_item *items;
	struct ordsched_seq *seq;
	u64 tk;

	if (!IS_ENABLED(CONFIG_DEBUG_OBJECTS)) {
		ktest_skip(t, "needs CONFIG_DEBUG_OBJECTS");
		return;
	}
	items = kcalloc(2, sizeof(*items), GFP_KERNEL);
	seq = ordsched_seq_create(NULL);
	if (!KT_EXPECT(t, items && !IS_ERR(seq)))
		goto out;
	atomic_set(&fq_ran, 0);
	items[0].fn = fq_seq_first_fn;
	items[1].fn = fq_seq_fn;
	KT_EXPECT_EQ(t, ordsched_seq_tickets(seq, 3, &tk), 0);
	KT_EXPECT(t, ordsched_seq_queue(seq, tk + 1, &items[1]));
	KT_EXPECT(t, !ordsched_seq_queue(seq, tk + 2, &items[1]));
	/* The tail: this thread drains all three turns. */
	KT_EXPECT(t, ordsched_seq_queue(seq, tk, &items[0]));
	KT_EXPECT_EQ(t, ordsched_seq_tail(seq), tk + 3);
	KT_EXPECT_EQ(t, atomic_read(&fq_ran), 1);
out:
	if (!IS_ERR_OR_NULL(seq))
		ordsched_seq_destroy(seq);
	kfree(items);
}

struct fq_pl_test {
	struct gate gate;
	struct ordsched_job first;
	atomic_t serial;
};

static struct fq_pl_test *fq_pl;

static int fq_pl_parallel(struct ordsched_job *job)
{
	if (job == &fq_pl->first)
		gate_pass(&fq_pl->gate);
	return 0;
}

static void fq_pl_serial(struct ordsched_job *job, int err)
{
	if (job == &fq_pl->first)
		atomic_inc(&fq_pl->serial);
	else
		atomic_inc(&fq_ran);
}

static const struct ordsched_pipeline_ops fq_pl_ops = {
	.parallel = fq_pl_parallel,
	.serial = fq_pl_serial,
};

/*
 * Memory for an item of @size to free while queued: the item at its
 * start, or (@straddle) 8 bytes before a page boundary, a power of two
 * from kmalloc() being aligned to its size. *@mem is what to kfree().
 */
static void *fq_item_alloc(size_t size, bool straddle, void **mem)
{
	*mem = kzalloc(straddle ? 2 * PAGE_SIZE : size, GFP_KERNEL);
	if (!*mem)
		return NULL;
	return straddle ? *mem + PAGE_SIZE - 8 : *mem;
}

/*
 * A job whose parallel step waits behind a blocked one on an ordered
 * workqueue, freed: cancelled before it goes, its ticket skipped.
 * @straddle: the job lies across a page boundary, 8 bytes before it, so
 * that the free path visits the page of its first field before the next:
 * the job's fixup must still come before its work item's, or the work is
 * cancelled behind the job's back and its ticket waits forever.
 */
static void fq_pl_run(struct ktest *t, bool straddle)
{
	struct ordsched_pipeline_params p = { .name = "freed",
					      .ops = &fq_pl_ops };
	struct ordsched_pipeline *pl = NULL;
	struct ordsched_seq_stats ss = {};
	struct ordsched_job *freed;
	unsigned int i;
	void *mem;
	u64 ticket;

	if (!IS_ENABLED(CONFIG_DEBUG_OBJECTS_FREE)) {
		ktest_skip(t, "needs CONFIG_DEBUG_OBJECTS_FREE");
		return;
	}
	p.wq = alloc_ordered_workqueue("ordsched_freed", 0);
	fq_pl = kzalloc(sizeof(*fq_pl), GFP_KERNEL);
	freed = fq_item_alloc(sizeof(*freed), straddle, &mem);
	if (!KT_EXPECT(t, p.wq && fq_pl && mem))
		goto out;
	pl = ordsched_pipeline_create(&p);
	if (!KT_EXPECT(t, !IS_ERR(pl)))
		goto out;
	atomic_set(&fq_ran, 0);
	gate_init(&fq_pl->gate);
	KT_EXPECT(t, ordsched_pipeline_queue(pl, &fq_pl->first));
	KT_EXPECT(t, ordsched_pipeline_queue(pl, freed));
	ticket = freed->ticket;
	kfree(mem);
	mem = NULL;
	complete_all(&fq_pl->gate.open);
	/* Bounded: a ticket left waiting would hold the flush forever. */
	for (i = 0; i < 250; i++) {
		ordsched_seq_get_stats(ordsched_pipeline_seq(pl), &ss);
		if (ss.cancelled && atomic_read(&fq_pl->serial))
			break;
		msleep(20);
	}
	/* Skip the ticket ourselves if the pipeline did not: no hang. */
	if (!KT_EXPECT_EQ(t, ss.cancelled, 1))
		ordsched_seq_cancel(ordsched_pipeline_seq(pl), ticket);
	KT_EXPECT_EQ(t, ordsched_pipeline_flush(pl), 0);
	KT_EXPECT_EQ(t, atomic_read(&fq_pl->serial), 1);
	KT_EXPECT_EQ(t, atomic_read(&fq_ran), 0);
out:
	ordsched_pipeline_destroy(pl);
	if (p.wq)
		destroy_workqueue(p.wq);
	kfree(mem);
	kfree(fq_pl);
	fq_pl = NULL;
}

static void pipeline_freed_while_queued_warns(struct ktest *t)
{
	fq_pl_run(t, false);
}

static void pipeline_straddling_freed_warns(struct ktest *t)
{
	fq_pl_run(t, true);
}

/* Blocks an ordered workqueue until its gate opens. */
struct dl_block {
	struct work_struct work;
	struct gate gate;
};

static void dl_block_fn(struct work_struct *work)
{
	gate_pass(&container_of(work, struct dl_block, work)->gate);
}

/*
 * A delay task handed to its workqueue but not started, then freed: its
 * work item and the task are both tracked, and whichever fixup comes
 * first, the task is taken back and counted cancelled, so the free path
 * ends and a flush of its scheduler returns. Its function never runs.
 * Two reports when the work item is found first (its fixup leaves the
 * task active), one when the task is (cancelling it deactivates the work
 * item). The free path walks the freed range a page at a time, and a
 * page's objects newest first: the task lives in a page of its own, so
 * that both are in its first page and the work item, initialized at the
 * hand-over, is found first. Two reports, always: an exact count, so that
 * the boot's total leaves no room for a report nobody expected.
 */
static void delay_handed_freed_warns(struct ktest *t)
{
	struct ordsched_delay_params p = { .name = "handed" };
	struct ordsched_delay *d = ERR_PTR(-ENOMEM);
	struct workqueue_struct *wq = NULL;
	struct ordsched_delay_stats ds = {};
	struct dl_block *b = NULL;
	struct dl_test *dt = NULL;
	int i;

	if (!IS_ENABLED(CONFIG_DEBUG_OBJECTS_FREE)) {
		ktest_skip(t, "needs CONFIG_DEBUG_OBJECTS_FREE");
		return;
	}
	wq = alloc_ordered_workqueue("ordsched_handed", 0);
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	BUILD_BUG_ON(sizeof(*dt) > PAGE_SIZE);
	dt = (struct dl_test *)get_zeroed_page(GFP_KERNEL);
	if (!KT_EXPECT(t, wq && b && dt))
		goto out;
	d = ordsched_delay_create(&p);
	if (!KT_EXPECT(t, !IS_ERR(d)))
		goto out;
	gate_init(&b->gate);
	INIT_WORK(&b->work, dl_block_fn);
	queue_work(wq, &b->work);
	ordsched_delay_task_init(&dt->task, dl_fn, wq);
	KT_EXPECT(t, ordsched_delay_queue(d, &dt->task, 0));
	for (i = 0; i < 2000; i++) {
		ordsched_delay_get_stats(d, &ds);
		if (ds.dispatched)
			break;
		usleep_range(500, 1000);
	}
	KT_EXPECT_EQ(t, ds.dispatched, 1);
	free_page((unsigned long)dt);
	dt = NULL;
	complete_all(&b->gate.open);
	flush_workqueue(wq);
	KT_EXPECT_EQ(t, kt_run_killed(dl_flush_thread, d, 2000), 0);
	ordsched_delay_get_stats(d, &ds);
	KT_EXPECT_EQ(t, ds.cancels, 1);
	KT_EXPECT_EQ(t, ds.ran, 0);
out:
	if (!IS_ERR(d))
		ordsched_delay_destroy(d);
	if (wq)
		destroy_workqueue(wq);
	free_page((unsigned long)dt);
	kfree(b);
}

/* What a keyed task freed while ready counts: it must never run. */
static atomic_t fq_kx_ran;

static void fq_kx_fn(struct ordsched_keyed_task *task)
{
	atomic_inc(&fq_kx_ran);
}

/*
 * A keyed task ready on its key, its work pending behind a blocked one on
 * an ordered workqueue, freed: the task's fixup must come before its work
 * item's, which would cancel the work behind the task's back: never run
 * nor withdrawn, its token left in the key's chain (freed memory that the
 * next task of the key walks) and its color counted, so that every flush
 * waits forever. It is withdrawn instead: counted cancelled, the key idle,
 * and the next task of the key runs. @straddle: the task lies across a
 * page boundary, 8 bytes before it, so that the free path visits its
 * first field's page first.
 */
static void fq_kx_run(struct ktest *t, bool straddle)
{
	struct ordsched_keyed_params kp = { .name = "freed" };
	struct ordsched_keyed *kx = ERR_PTR(-ENOMEM);
	struct ordsched_keyed_task *freed, *next = NULL;
	struct ordsched_keyed_stats ks = {};
	struct dl_block *b = NULL;
	void *mem;
	u64 key = 7;

	if (!IS_ENABLED(CONFIG_DEBUG_OBJECTS_FREE)) {
		ktest_skip(t, "needs CONFIG_DEBUG_OBJECTS_FREE");
		return;
	}
	kp.wq = alloc_ordered_workqueue("ordsched_freed", 0);
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	next = kzalloc(sizeof(*next), GFP_KERNEL);
	freed = fq_item_alloc(sizeof(*freed), straddle, &mem);
	if (!KT_EXPECT(t, kp.wq && b && next && mem))
		goto out;
	kx = ordsched_keyed_create(&kp);
	if (!KT_EXPECT(t, !IS_ERR(kx)))
		goto out;
	atomic_set(&fq_kx_ran, 0);
	gate_init(&b->gate);
	INIT_WORK(&b->work, dl_block_fn);
	queue_work(kp.wq, &b->work);
	ordsched_keyed_task_init(freed, fq_kx_fn, NULL, NULL, 0);
	KT_EXPECT(t, ordsched_keyed_queue(kx, freed, &key, 1));
	kfree(mem);
	mem = NULL;
	complete_all(&b->gate.open);
	flush_workqueue(kp.wq);
	if (!KT_EXPECT_EQ(t, kt_run_killed(kx_flush_thread, kx, 2000), 0)) {
		/* Its destroy would wait forever for the lost task. */
		ktest_diag(t, "executor leaked");
		kx = ERR_PTR(-EBUSY);
		goto out;
	}
	ordsched_keyed_get_stats(kx, &ks);
	KT_EXPECT_EQ(t, ks.cancelled, 1);
	KT_EXPECT_EQ(t, ks.ran, 0);
	KT_EXPECT_EQ(t, ordsched_keyed_live_keys(kx), 0);
	/* The key goes on: a stale token at its head would hold it. */
	if (ordsched_keyed_live_keys(kx) == 0) {
		ordsched_keyed_task_init(next, fq_kx_fn, NULL, NULL, 0);
		KT_EXPECT(t, ordsched_keyed_queue(kx, next, &key, 1));
		KT_EXPECT_EQ(t, kt_run_killed(kx_flush_thread, kx, 2000), 0);
		KT_EXPECT_EQ(t, atomic_read(&fq_kx_ran), 1);
	}
out:
	if (!IS_ERR(kx))
		ordsched_keyed_destroy(kx);
	if (kp.wq)
		destroy_workqueue(kp.wq);
	kfree(mem);
	kfree(next);
	kfree(b);
}

static void keyed_ready_freed_warns(struct ktest *t)
{
	fq_kx_run(t, false);
}

static void keyed_straddling_ready_freed_warns(struct ktest *t)
{
	fq_kx_run(t, true);
}

static const struct ktest_case contract_cases[] = {
	KT_CASE(seq_flush_killable),
	KT_CASE(pipeline_flush_killable_destroy_drains),
	KT_CASE(stream_flush_killable_destroy_drains),
	KT_CASE(keyed_flush_past_only_killable),
	KT_CASE(spread_flush_killable),
	KT_CASE(delay_flush_killable),
	KT_CASE(pipeline_cancel),
	KT_CASE(keyed_cancel),
	KT_CASE(keyed_cancel_after_done),
	KT_CASE(keyed_requeue_in_flight),
	KT_CASE_WARNS(freed_while_queued_warns, 2, 2),
	KT_CASE_WARNS(stream_freed_while_queued_warns, 1, 1),
	KT_CASE_WARNS(seq_freed_while_parked_warns, 1, 1),
	KT_CASE_WARNS(seq_item_parked_twice_warns, 1, 1),
	KT_CASE_WARNS(pipeline_freed_while_queued_warns, 1, 1),
	KT_CASE_WARNS(pipeline_straddling_freed_warns, 1, 1),
	KT_CASE_WARNS(delay_handed_freed_warns, 2, 2),
	KT_CASE_WARNS(keyed_ready_freed_warns, 1, 1),
	KT_CASE_WARNS(keyed_straddling_ready_freed_warns, 1, 1),
	KT_END
};

const struct ktest_suite ordsched_contract_suite =
	KT_SUITE("contract", contract_cases);
