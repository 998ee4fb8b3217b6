// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of ordered execution on a workqueue: serial steps in submission
 * order whatever order the parallel steps finish in, failed parallel steps
 * reported to the serial step, the window, flush and destroy.
 */
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <ordsched.h>

#include "ktest.h"
#include "suites.h"
#include "util.h"

struct pl_test;

struct pl_job {
	struct ordsched_job job;
	struct pl_test *pt;
	unsigned int spin;
	bool fail;
	bool seen;
};

struct pl_test {
	struct ordsched_pipeline *pl;
	struct pl_job *jobs;
	unsigned int n;
	atomic_t next;
	/* Serial steps only, which the pipeline serializes. */
	u64 expect;
	u64 errors;
	u64 failed_seen;
	u64 not_worker;
	u64 count;
	struct completion *gate;
};

static int pl_parallel(struct ordsched_job *job)
{
	struct pl_job *j = container_of(job, struct pl_job, job);

	if (j->pt->gate)
		wait_for_completion(j->pt->gate);
	kt_spin(j->spin);
	return j->fail ? -EIO : 0;
}

static void pl_serial(struct ordsched_job *job, int err)
{
	struct pl_job *j = container_of(job, struct pl_job, job);
	struct pl_test *pt = j->pt;

	if (job->ticket != pt->expect || j->seen || err != (j->fail ? -EIO : 0))
		pt->errors++;
	if (!(current->flags & PF_WQ_WORKER))
		pt->not_worker++;
	pt->failed_seen += err != 0;
	pt->expect = job->ticket + 1;
	pt->count++;
	j->seen = true;
}

static const struct ordsched_pipeline_ops pl_ops = {
	.parallel = pl_parallel,
	.serial = pl_serial,
};

/*
 * Producers claim jobs in index order under a lock-free counter, so the
 * job with index i does not necessarily get ticket i: the serial step
 * checks tickets, and every job once.
 */
static int pl_producer(void *data, unsigned int idx)
{
	struct pl_test *pt = data;
	unsigned int i;
	int ret;

	while ((i = atomic_inc_return(&pt->next) - 1) < pt->n) {
		ret = ordsched_pipeline_queue_wait(pt->pl, &pt->jobs[i].job);
		if (ret)
			return ret;
		if (!(i % 64))
			cond_resched();
	}
	return 0;
}

static void pl_run(struct ktest *t, unsigned int n, struct workqueue_struct *wq)
{
	struct ordsched_pipeline_params p = {
		.name = "test",
		.ops = &pl_ops,
		.wq = wq,
	};
	u32 rnd = 0x1234567;
	struct pl_test *pt;
	unsigned int i, failing = 0;

	pt = kzalloc(sizeof(*pt), GFP_KERNEL);
	if (!KT_EXPECT(t, pt))
		return;
	pt->jobs = vcalloc(n, sizeof(*pt->jobs));
	if (!KT_EXPECT(t, pt->jobs))
		goto out;
	pt->pl = ordsched_pipeline_create(&p);
	if (!KT_EXPECT(t, !IS_ERR(pt->pl)))
		goto out;
	pt->n = n;
	for (i = 0; i < n; i++) {
		pt->jobs[i].pt = pt;
		pt->jobs[i].spin = kt_rand(&rnd) % 64 ? kt_rand(&rnd) % 256 :
				   4096 + kt_rand(&rnd) % 4096;
		pt->jobs[i].fail = kt_rand(&rnd) % 100 == 0;
		failing += pt->jobs[i].fail;
	}

	KT_EXPECT_EQ(t, kt_run_threads(num_online_cpus(), pl_producer, pt), 0);
	ordsched_pipeline_flush(pt->pl);
	ktest_diag(t, "%u jobs, %u failing", n, failing);

	KT_EXPECT_EQ(t, pt->count, n);
	KT_EXPECT_EQ(t, pt->expect, n);
	KT_EXPECT_EQ(t, pt->errors, 0);
	KT_EXPECT_EQ(t, pt->failed_seen, failing);
	KT_EXPECT_EQ(t, pt->not_worker, 0);
	for (i = 0; i < n; i++) {
		if (!pt->jobs[i].seen) {
			KT_EXPECT(t, pt->jobs[i].seen);
			break;
		}
	}
	ordsched_pipeline_destroy(pt->pl);
out:
	vfree(pt->jobs);
	kfree(pt);
}

static void order_100k(struct ktest *t)
{
	pl_run(t, kt_stress(100000), NULL);
}

static void caller_percpu_wq(struct ktest *t)
{
	struct workqueue_struct *wq = alloc_workqueue("ordsched_test", 0, 0);

	if (!KT_EXPECT(t, wq))
		return;
	pl_run(t, 20000, wq);
	destroy_workqueue(wq);
}

/* The window bounds jobs in flight: the fifth of four is refused. */
static void window_full(struct ktest *t)
{
	struct ordsched_pipeline_params p = { .ops = &pl_ops, .ring_order = 2 };
	struct completion gate;
	struct pl_test *pt;
	int i;

	pt = kzalloc(sizeof(*pt), GFP_KERNEL);
	if (!KT_EXPECT(t, pt))
		return;
	pt->jobs = vcalloc(5, sizeof(*pt->jobs));
	pt->pl = ordsched_pipeline_create(&p);
	if (!KT_EXPECT(t, pt->jobs && !IS_ERR(pt->pl)))
		goto out;
	init_completion(&gate);
	pt->gate = &gate;
	for (i = 0; i < 5; i++)
		pt->jobs[i].pt = pt;
	for (i = 0; i < 4; i++)
		KT_EXPECT(t, ordsched_pipeline_queue(pt->pl,
						     &pt->jobs[i].job));
	KT_EXPECT(t, !ordsched_pipeline_queue(pt->pl, &pt->jobs[4].job));
	complete_all(&gate);
	ordsched_pipeline_flush(pt->pl);
	KT_EXPECT_EQ(t, pt->count, 4);
	KT_EXPECT_EQ(t, pt->errors, 0);
	KT_EXPECT(t, ordsched_pipeline_queue(pt->pl, &pt->jobs[4].job));
	ordsched_pipeline_flush(pt->pl);
	KT_EXPECT_EQ(t, pt->count, 5);
	ordsched_pipeline_destroy(pt->pl);
out:
	vfree(pt->jobs);
	kfree(pt);
}

static void bad_params(struct ktest *t)
{
	static const struct ordsched_pipeline_ops half = { .serial = pl_serial };
	struct ordsched_pipeline_params p = { .ops = &half };

	KT_EXPECT(t, ordsched_pipeline_create(NULL) == ERR_PTR(-EINVAL));
	KT_EXPECT(t, ordsched_pipeline_create(&p) == ERR_PTR(-EINVAL));
	p.ops = NULL;
	KT_EXPECT(t, ordsched_pipeline_create(&p) == ERR_PTR(-EINVAL));
	p.ops = &pl_ops;
	p.ring_order = 30;
	KT_EXPECT(t, ordsched_pipeline_create(&p) == ERR_PTR(-EINVAL));
	ordsched_pipeline_destroy(NULL);
}

/*
 * A cancel on pipeline A of a job that, meanwhile, ran on A and was
 * queued again on B: "a job ... last queued on another pipeline returns
 * false and is left alone". The canceller is held in cancel_work() (a
 * kprobe, for this job's work only), after it found the job A's and
 * pending there; the job then runs on A and is queued on B. It used to
 * take B's queueing and cancel the job's ticket, a ticket of B, on A's
 * sequencer.
 */
struct elsewhere {
	struct kprobe kp;
	struct ordsched_pipeline *a, *b;
	struct ordsched_job job;
	struct task_struct *canceller;
	/* 0: armed, 1: the canceller is held, 2: let go */
	atomic_t stage;
	atomic_t serials;
	struct ordsched_pipeline *ran_on[2];
	struct completion ran, cancelled;
	bool ret;
};

static struct elsewhere *elsewhere_of;

static int elsewhere_parallel(struct ordsched_job *job)
{
	return 0;
}

static void elsewhere_serial(struct ordsched_job *job, int err)
{
	struct elsewhere *e = elsewhere_of;
	int n = atomic_inc_return(&e->serials);

	if (n <= 2)
		e->ran_on[n - 1] = job->pipeline;
	complete(&e->ran);
}

static const struct ordsched_pipeline_ops elsewhere_ops = {
	.parallel = elsewhere_parallel,
	.serial = elsewhere_serial,
};

static int elsewhere_hold(struct kprobe *kp, struct pt_regs *regs)
{
	struct elsewhere *e = container_of(kp, struct elsewhere, kp);

	if (current == READ_ONCE(e->canceller) &&
	    (void *)regs_get_kernel_argument(regs, 0) == &e->job.work)
		kt_hold(&e->stage);
	return 0;
}

static int elsewhere_cancel(void *data)
{
	struct elsewhere *e = data;

	e->ret = ordsched_pipeline_cancel(e->a, &e->job);
	complete(&e->cancelled);
	return 0;
}

/* Holds an ordered workqueue until its completion is done. */
struct wq_gate {
	struct work_struct work;
	struct completion open;
};

static void wq_gate_fn(struct work_struct *work)
{
	wait_for_completion_timeout(&container_of(work, struct wq_gate,
						  work)->open, 5 * HZ);
}

static void cancel_requeued_elsewhere(struct ktest *t)
{
	struct workqueue_struct *wqa = NULL, *wqb = NULL;
	struct ordsched_pipeline_params p = { .ops = &elsewhere_ops };
	struct task_struct *canceller;
	struct wq_gate *gate;
	struct elsewhere *e;
	unsigned long until;

	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs two CPUs");
		return;
	}
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	gate = kcalloc(2, sizeof(*gate), GFP_KERNEL);
	wqa = alloc_ordered_workqueue("ordsched_pa", 0);
	wqb = alloc_ordered_workqueue("ordsched_pb", 0);
	if (!KT_EXPECT(t, e && gate && wqa && wqb))
		goto out_free;
	elsewhere_of = e;
	init_completion(&e->ran);
	init_completion(&e->cancelled);
	p.wq = wqa;
	e->a = ordsched_pipeline_create(&p);
	p.wq = wqb;
	e->b = ordsched_pipeline_create(&p);
	if (!KT_EXPECT(t, !IS_ERR(e->a) && !IS_ERR(e->b)))
		goto out_pl;
	e->kp.symbol_name = "cancel_work";
	e->kp.pre_handler = elsewhere_hold;
	if (register_kprobe(&e->kp)) {
		ktest_skip(t, "no kprobe on cancel_work");
		goto out_pl;
	}
	INIT_WORK(&gate[0].work, wq_gate_fn);
	INIT_WORK(&gate[1].work, wq_gate_fn);
	init_completion(&gate[0].open);
	init_completion(&gate[1].open);
	/* The job waits on A behind a gate, so the cancel finds it pending. */
	queue_work(wqa, &gate[0].work);
	KT_EXPECT(t, ordsched_pipeline_queue(e->a, &e->job));
	canceller = kthread_create(elsewhere_cancel, e, "kt_pl_cancel");
	if (!KT_EXPECT(t, !IS_ERR(canceller)))
		goto out_open;
	WRITE_ONCE(e->canceller, canceller);
	wake_up_process(canceller);
	until = jiffies + 2 * HZ;
	while (atomic_read(&e->stage) != 1 && time_before(jiffies, until))
		usleep_range(100, 200);
	if (!KT_EXPECT_EQ(t, atomic_read(&e->stage), 1))
		goto out_go;
	/* Held: the job runs on A, then waits on B behind B's gate. */
	complete(&gate[0].open);
	KT_EXPECT(t, wait_for_completion_timeout(&e->ran, 5 * HZ));
	queue_work(wqb, &gate[1].work);
	KT_EXPECT(t, ordsched_pipeline_queue(e->b, &e->job));
	KT_EXPECT_EQ(t, atomic_read(&e->stage), 1);
out_go:
	atomic_set(&e->stage, 2);
	wait_for_completion(&e->cancelled);
	KT_EXPECT(t, !e->ret);
	complete(&gate[1].open);
	KT_EXPECT(t, wait_for_completion_timeout(&e->ran, 5 * HZ));
	KT_EXPECT_EQ(t, atomic_read(&e->serials), 2);
	KT_EXPECT(t, e->ran_on[0] == e->a && e->ran_on[1] == e->b);
	/* Cancelled on the wrong sequencer: free B's turn, or B hangs. */
	if (atomic_read(&e->serials) < 2)
		ordsched_seq_cancel(ordsched_pipeline_seq(e->b), e->job.ticket);
out_open:
	complete_all(&gate[0].open);
	complete_all(&gate[1].open);
	unregister_kprobe(&e->kp);
out_pl:
	if (!IS_ERR_OR_NULL(e->a))
		KT_EXPECT_EQ(t, ordsched_pipeline_flush(e->a), 0);
	if (!IS_ERR_OR_NULL(e->b))
		KT_EXPECT_EQ(t, ordsched_pipeline_flush(e->b), 0);
	ordsched_pipeline_destroy(e->a);
	ordsched_pipeline_destroy(e->b);
out_free:
	if (wqa)
		destroy_workqueue(wqa);
	if (wqb)
		destroy_workqueue(wqb);
	elsewhere_of = NULL;
	kfree(gate);
	kfree(e);
}

static const struct ktest_case pipeline_cases[] = {
	KT_CASE(bad_params),
	KT_CASE(window_full),
	KT_CASE(order_100k),
	KT_CASE(caller_percpu_wq),
	KT_CASE(cancel_requeued_elsewhere),
	KT_END
};

const struct ktest_suite ordsched_pipeline_suite =
	KT_SUITE("pipeline", pipeline_cases);
