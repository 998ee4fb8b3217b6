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
	ordsched_seq_trash(seq, tk);
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
		KT_EXPECT_EQ(t, ordsched_pipeline_submit(pl, &pt->jobs[i]), 0);
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

static void stream_flush_killable_destroy_drains(struct ktest *t)
{
	struct st_test *st = kzalloc(sizeof(*st), GFP_KERNEL);

	if (!KT_EXPECT(t, st))
		return;
	gate_init(&st->gate);
	ordsched_stream_init(&st->stream, NULL);
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

	KT_EXPECT_EQ(t, ordsched_keyed_submit(kt->kx, &kt->tasks[0], &key_a, 1),
		     0);
	KT_EXPECT_EQ(t, kt_run_killed(kx_flush_thread, kt->kx, 100), -EINTR);

	/* A flush starts; then a later task blocks on another key. */
	queue_work(system_unbound_wq, &kt->flush_work);
	msleep(50);
	KT_EXPECT_EQ(t, ordsched_keyed_submit(kt->kx, &kt->tasks[1], &key_b, 1),
		     0);
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
	KT_EXPECT_EQ(t, ordsched_delay_run_after(d, &dt->task,
						 60 * NSEC_PER_SEC), 0);
	KT_EXPECT_EQ(t, kt_run_killed(dl_flush_thread, d, 100), -EINTR);
	ordsched_delay_destroy(d);
	KT_EXPECT_EQ(t, atomic_read(&dt->ran), 0);
	KT_EXPECT_EQ(t, atomic_read(&dt->cancelled), 1);
out:
	kfree(dt);
}

static const struct ktest_case contract_cases[] = {
	KT_CASE(seq_flush_killable),
	KT_CASE(pipeline_flush_killable_destroy_drains),
	KT_CASE(stream_flush_killable_destroy_drains),
	KT_CASE(keyed_flush_past_only_killable),
	KT_CASE(spread_flush_killable),
	KT_CASE(delay_flush_killable),
	KT_END
};

const struct ktest_suite ordsched_contract_suite =
	KT_SUITE("contract", contract_cases);
