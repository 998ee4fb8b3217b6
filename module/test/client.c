// SPDX-License-Identifier: GPL-2.0
/*
 * ordsched_client: a client module that unloads with work in flight.
 *
 * Loaded with kind=seq|pipeline|stream|keyed|spread|delay, it creates one
 * instance of that kind and hands it work whose callbacks live in this
 * module's text and take a while; its exit destroys the instance at once,
 * with most of that work still queued or running. The destroy contract
 * says the module may unload as soon as destroy returns: if a worker could
 * still call into this module afterwards, it would run freed text, which
 * the kernel reports as an oops (and KASAN, on the debug kernel). And no
 * work may be lost: every piece of it ends exactly once, run or handed
 * back (delays to @cancelled, the spreader's jobs to @release), which the
 * exit checks with a WARN.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/err.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <ordsched.h>

static char *kind = "seq";
module_param(kind, charp, 0444);
MODULE_PARM_DESC(kind, "seq, pipeline, stream, keyed, spread or delay");

#define NR	64

static atomic_t ran = ATOMIC_INIT(0);
/* Pieces of work that ended (run to their last callback or handed back). */
static atomic_t ended = ATOMIC_INIT(0);
static atomic_t expected = ATOMIC_INIT(0);

/*
 * The work of every callback that may sleep: long enough that the unload,
 * a few hundred milliseconds after the load, finds most of it pending.
 */
static void client_work(unsigned int ms)
{
	msleep(ms);
	atomic_inc(&ran);
}

/* Busy for @us microseconds: for callbacks that must not sleep. */
static void client_busy(unsigned int us)
{
	u64 end = ktime_get_ns() + (u64)us * NSEC_PER_USEC;

	while (ktime_get_ns() < end)
		cpu_relax();
}

/* ---- sequencer: items run by the hand-off worker, tickets handed late */
static struct ordsched_seq *seq;
static struct ordsched_seq_item seq_items[NR];
static u64 seq_first;
static struct delayed_work seq_late;

static void seq_item_fn(struct ordsched_seq_item *item, u64 ticket)
{
	/* Items must not sleep: busy, in this module's text. */
	client_busy(200);
	atomic_inc(&ran);
	atomic_inc(&ended);
}

static void seq_late_fn(struct work_struct *work)
{
	ordsched_seq_queue(seq, seq_first, &seq_items[0]);
}

static int seq_start(void)
{
	struct ordsched_seq_params p = { .name = "client", .budget = 4 };
	int i, ret;

	seq = ordsched_seq_create(&p);
	if (IS_ERR(seq))
		return PTR_ERR(seq);
	ret = ordsched_seq_tickets(seq, NR, &seq_first);
	if (ret) {
		ordsched_seq_destroy(seq);
		return ret;
	}
	/* From here on nothing fails. */
	for (i = 0; i < NR; i++)
		seq_items[i].fn = seq_item_fn;
	/* All parked behind the first, which comes 300 ms late. */
	for (i = NR - 1; i > 0; i--)
		ordsched_seq_queue(seq, seq_first + i, &seq_items[i]);
	INIT_DELAYED_WORK(&seq_late, seq_late_fn);
	queue_delayed_work(system_wq, &seq_late, msecs_to_jiffies(300));
	return 0;
}

static void seq_stop(void)
{
	ordsched_seq_destroy(seq);
	/* Our own work: ours to wait for. */
	cancel_delayed_work_sync(&seq_late);
}

/* ---- pipeline */
static struct ordsched_pipeline *pl;
static struct ordsched_job jobs[NR];

static int pl_parallel(struct ordsched_job *job)
{
	/* Up to 16 at once on the workqueue: finishing out of order. */
	client_work(20 + (job->ticket % 16) * 20);
	return 0;
}

static void pl_serial(struct ordsched_job *job, int err)
{
	client_busy(100);
	atomic_inc(&ended);
}

static const struct ordsched_pipeline_ops pl_ops = {
	.parallel = pl_parallel,
	.serial = pl_serial,
};

static int pipeline_start(void)
{
	struct ordsched_pipeline_params p = { .name = "client", .ops = &pl_ops };
	int i;

	pl = ordsched_pipeline_create(&p);
	if (IS_ERR(pl))
		return PTR_ERR(pl);
	for (i = 0; i < NR; i++) {
		if (!ordsched_pipeline_queue(pl, &jobs[i])) {
			ordsched_pipeline_destroy(pl);
			return -EAGAIN;
		}
	}
	return 0;
}

static void pipeline_stop(void)
{
	ordsched_pipeline_destroy(pl);
}

/* ---- streams, in a set of their own */
static struct ordsched_stream_set *set;
static struct ordsched_stream streams[4];
static struct ordsched_stream_item stream_items[NR];

static void stream_fn(struct ordsched_stream_item *item)
{
	client_work(20);
	atomic_inc(&ended);
}

static int stream_start(void)
{
	/* A small budget: drains requeue themselves, 4 items at a time. */
	struct ordsched_stream_set_params p = { .name = "client", .budget = 4 };
	int i;

	set = ordsched_stream_set_create(&p);
	if (IS_ERR(set))
		return PTR_ERR(set);
	for (i = 0; i < ARRAY_SIZE(streams); i++)
		ordsched_stream_init(&streams[i], set);
	for (i = 0; i < NR; i++) {
		ordsched_stream_item_init(&stream_items[i], stream_fn);
		ordsched_stream_queue(&streams[i % ARRAY_SIZE(streams)],
				      &stream_items[i]);
	}
	return 0;
}

static void stream_stop(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(streams); i++)
		ordsched_stream_destroy(&streams[i]);
	ordsched_stream_set_destroy(set);
}

/* ---- keyed */
static struct ordsched_keyed *kx;
static struct ordsched_keyed_task tasks[NR];

static void keyed_fn(struct ordsched_keyed_task *task)
{
	client_work(20);
}

static void keyed_done(struct ordsched_keyed_task *task)
{
	usleep_range(100, 200);
	atomic_inc(&ended);
}

static int keyed_start(void)
{
	int i;

	kx = ordsched_keyed_create(NULL);
	if (IS_ERR(kx))
		return PTR_ERR(kx);
	for (i = 0; i < NR; i++) {
		u64 key = i % 4;

		ordsched_keyed_task_init(&tasks[i], keyed_fn, keyed_done,
					 NULL, 0);
		if (!ordsched_keyed_queue(kx, &tasks[i], &key, 1)) {
			ordsched_keyed_destroy(kx);
			return -EINVAL;
		}
	}
	return 0;
}

static void keyed_stop(void)
{
	ordsched_keyed_destroy(kx);
}

/* ---- spreader: an endless producer of groups of 4 jobs */
static struct ordsched_spread *sp;
static struct ordsched_spread_group groups[8];
static struct ordsched_spread_job sp_jobs[8][4];
static unsigned int next_group;

static struct ordsched_spread_group *sp_pull(void *priv)
{
	struct ordsched_spread_group *g = &groups[next_group++ % 8];
	unsigned int i = g - groups, j;

	ordsched_spread_group_init(g);
	for (j = 0; j < 4; j++)
		ordsched_spread_group_add(g, &sp_jobs[i][j]);
	atomic_add(4, &expected);
	return g;
}

static void sp_dispatch(void *priv, struct ordsched_spread_job *job)
{
	client_work(20);
	atomic_inc(&ended);
}

static void sp_release(void *priv, struct ordsched_spread_group *group)
{
	struct ordsched_spread_job *job;

	usleep_range(10, 20);
	/* Jobs not dispatched are handed back on the group. */
	list_for_each_entry(job, &group->jobs, node)
		atomic_inc(&ended);
}

static const struct ordsched_spread_ops sp_ops = {
	.pull = sp_pull,
	.dispatch = sp_dispatch,
	.release = sp_release,
};

static int spread_start(void)
{
	/* Two lanes: the producer never holds more than 2 of 8 groups. */
	struct ordsched_spread_params p = { .name = "client", .ops = &sp_ops,
					    .lanes = 2 };

	sp = ordsched_spread_create(&p);
	if (IS_ERR(sp))
		return PTR_ERR(sp);
	ordsched_spread_kick(sp);
	return 0;
}

static void spread_stop(void)
{
	ordsched_spread_destroy(sp);
}

/* ---- delays: some due at once, some later, some far */
static struct ordsched_delay *dl;
static struct ordsched_delay_task dl_tasks[NR];

static void delay_fn(struct ordsched_delay_task *task)
{
	client_work(20);
	atomic_inc(&ended);
}

static void delay_cancelled(struct ordsched_delay_task *task)
{
	usleep_range(10, 20);
	atomic_inc(&ended);
}

static int delay_start(void)
{
	struct ordsched_delay_params p = { .name = "client",
					   .cancelled = delay_cancelled };
	int i;

	dl = ordsched_delay_create(&p);
	if (IS_ERR(dl))
		return PTR_ERR(dl);
	for (i = 0; i < NR; i++) {
		ordsched_delay_task_init(&dl_tasks[i], delay_fn, NULL);
		if (!ordsched_delay_queue(dl, &dl_tasks[i],
					  (u64)(i % 8) * 50 * NSEC_PER_MSEC +
					  (i >= NR - 8) * NSEC_PER_SEC)) {
			ordsched_delay_destroy(dl);
			return -EBUSY;
		}
	}
	return 0;
}

static void delay_stop(void)
{
	ordsched_delay_destroy(dl);
}

static const struct {
	const char *name;
	int (*start)(void);
	void (*stop)(void);
} kinds[] = {
	{ "seq", seq_start, seq_stop },
	{ "pipeline", pipeline_start, pipeline_stop },
	{ "stream", stream_start, stream_stop },
	{ "keyed", keyed_start, keyed_stop },
	{ "spread", spread_start, spread_stop },
	{ "delay", delay_start, delay_stop },
};

static int chosen = -1;

static int __init client_init(void)
{
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(kinds); i++)
		if (!strcmp(kind, kinds[i].name))
			chosen = i;
	if (chosen < 0)
		return -EINVAL;
	/* Every kind but the spreader (counted as it pulls) makes NR. */
	if (strcmp(kind, "spread"))
		atomic_set(&expected, NR);
	/* A start that fails has destroyed what it made. */
	ret = kinds[chosen].start();
	if (ret)
		chosen = -1;
	return ret;
}

static void __exit client_exit(void)
{
	int before = atomic_read(&ran);

	kinds[chosen].stop();
	pr_info("%s: %d callbacks ran before destroy, %d in all\n",
		kind, before, atomic_read(&ran));
	WARN(atomic_read(&ended) != atomic_read(&expected),
	     "ordsched_client: %s: %d of %d pieces of work ended, the others were lost\n",
	     kind, atomic_read(&ended), atomic_read(&expected));
}

module_init(client_init);
module_exit(client_exit);

MODULE_DESCRIPTION("ordsched self-test: a client that unloads with work in flight");
MODULE_LICENSE("GPL");
ORDSCHED_IMPORT_NS();
