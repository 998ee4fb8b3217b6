// SPDX-License-Identifier: GPL-2.0
/*
 * The ordsched contenders of the ordered benchmark:
 *
 *	seq		the producer takes a ticket, does the work itself and
 *			hands the item in; whoever completes the tail runs
 *			the serial steps
 *	pipeline	the producer submits a job; the work runs on
 *			ordsched's workqueue, the serial step on whichever
 *			worker completes the tail
 *
 * Both use the defaults a user gets (ordsched's unbound workqueue, budget
 * 64), with a window of 4096 tickets, more than the producers can fill.
 */
#include <linux/err.h>
#include <ordsched.h>

#include "bench.h"
#include "ordered.h"

#define OB_RING_ORDER	12

/* The sequencer's own view: how often a drain hit its budget. */
static void ob_seq_stats(struct ordsched_seq *seq, struct bench_out *out)
{
	struct ordsched_seq_stats s;

	ordsched_seq_get_stats(seq, &s);
	bench_printf(out, " parked=%llu inline_drains=%llu handoffs=%llu handoff_runs=%llu",
		     s.parked, s.inline_drains, s.handoffs, s.handoff_runs);
}

/* --- seq ------------------------------------------------------------- */

static void ob_seq_run(struct ordsched_seq_item *si, u64 ticket)
{
	ob_serial(container_of(si, struct ob_item, si), ticket);
}

static int ob_seq_setup(struct ob_run *run)
{
	struct ordsched_seq_params p = {
		.name = "bench",
		.ring_order = OB_RING_ORDER,
	};
	struct ordsched_seq *seq = ordsched_seq_create(&p);

	if (IS_ERR(seq))
		return PTR_ERR(seq);
	run->priv = seq;
	return 0;
}

static void ob_seq_teardown(struct ob_run *run)
{
	ordsched_seq_flush(run->priv);
	ordsched_seq_destroy(run->priv);
}

static void ob_seq_report(struct ob_run *run, struct bench_out *out)
{
	ob_seq_stats(run->priv, out);
}

static int ob_seq_produce(struct ob_run *run, struct ob_item *item)
{
	u64 ticket;
	int ret;

	ret = ordsched_seq_tickets_wait(run->priv, 1, &ticket);
	if (ret)
		return ret;
	ob_work(run, item);
	item->si.fn = ob_seq_run;
	ordsched_seq_queue(run->priv, ticket, &item->si);
	return 0;
}

const struct ob_contender ob_seq = {
	.name = "seq",
	.setup = ob_seq_setup,
	.teardown = ob_seq_teardown,
	.produce = ob_seq_produce,
	.report = ob_seq_report,
};

/* --- pipeline -------------------------------------------------------- */

static int ob_pipeline_parallel(struct ordsched_job *job)
{
	struct ob_item *item = container_of(job, struct ob_item, job);

	ob_work(item->run, item);
	return 0;
}

static void ob_pipeline_serial(struct ordsched_job *job, int err)
{
	struct ob_item *item = container_of(job, struct ob_item, job);

	/* The parallel step never fails: an error here is a bug. */
	if (err)
		item->value = ~item->value;
	ob_serial(item, job->ticket);
}

static const struct ordsched_pipeline_ops ob_pipeline_ops = {
	.parallel = ob_pipeline_parallel,
	.serial = ob_pipeline_serial,
};

static int ob_pipeline_setup(struct ob_run *run)
{
	struct ordsched_pipeline_params p = {
		.name = "bench",
		.ops = &ob_pipeline_ops,
		.ring_order = OB_RING_ORDER,
	};
	struct ordsched_pipeline *pl = ordsched_pipeline_create(&p);

	if (IS_ERR(pl))
		return PTR_ERR(pl);
	run->priv = pl;
	return 0;
}

static void ob_pipeline_teardown(struct ob_run *run)
{
	ordsched_pipeline_flush(run->priv);
	ordsched_pipeline_destroy(run->priv);
}

static void ob_pipeline_report(struct ob_run *run, struct bench_out *out)
{
	ob_seq_stats(ordsched_pipeline_seq(run->priv), out);
}

static int ob_pipeline_produce(struct ob_run *run, struct ob_item *item)
{
	return ordsched_pipeline_queue_wait(run->priv, &item->job);
}

const struct ob_contender ob_pipeline = {
	.name = "pipeline",
	.setup = ob_pipeline_setup,
	.teardown = ob_pipeline_teardown,
	.produce = ob_pipeline_produce,
	.report = ob_pipeline_report,
};
