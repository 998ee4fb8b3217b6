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
		/* The header asks nothing of a job before its first queueing. */
		memset(&pt->jobs[i].job, 0xa5, sizeof(pt->jobs[i].job));
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
	if (!KT_EXPECT(t, pt->jobs && !IS_ERR(pt->pl))) {
		/* NULL or an ERR_PTR() is ignored. */
		ordsched_pipeline_destroy(pt->pl);
		goto out;
	}
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
 * A cancel on pipeline A of a job that, meanwhile, ran on A and is being
 * queued again on B: "a job ... last queued on another pipeline returns
 * false and is left alone". The canceller is held twice: in cancel_work()
 * (a kprobe), once it found the job A's and pending there, while the job
 * runs on A; then once cancel_work() holds the PENDING bit of the idle
 * work (a kretprobe on the workqueue's grab), while the queuer, on another
 * CPU, queues the job on B. Both are bound to CPUs, as are the
 * workqueues, so that the job runs at once during the first hold. The
 * cancel used to meet the queueing: INIT_WORK() cleared the bit the grab
 * held (a workqueue WARN when the cancel cleared it again), and the job
 * was left queued on B with no PENDING bit. Now the queueing waits for
 * the cancel, and the second hold runs out alone.
 */
/* Holds a workqueue until @open is done; @started once it runs. */
struct wq_gate {
	struct work_struct work;
	struct completion open, started;
};

static void wq_gate_fn(struct work_struct *work)
{
	struct wq_gate *g = container_of(work, struct wq_gate, work);

	complete(&g->started);
	wait_for_completion_timeout(&g->open, 5 * HZ);
}

struct meet {
	struct kprobe kp;
	struct kretprobe krp;
	struct ordsched_pipeline *a, *b;
	struct workqueue_struct *wqa, *wqb;
	struct ordsched_job job;
	struct wq_gate gate[2];
	struct task_struct *canceller;
	/* The first hold: 0 armed, 1 held, 2 let go (kt_hold()). */
	atomic_t stage;
	/* The second hold: 0 armed, 1 held, 2 over. */
	atomic_t grab;
	/* The queueing on B returned; and did so during the second hold. */
	atomic_t queued, queued_in_hold;
	atomic_t serials;
	struct ordsched_pipeline *ran_on[2];
	struct completion ran, cancelled, driven;
	bool gates_up, queued_on_a, held, ran_on_a, held_over, ret, queued_on_b;
};

static struct meet *meet_of;

static int meet_parallel(struct ordsched_job *job)
{
	return 0;
}

static void meet_serial(struct ordsched_job *job, int err)
{
	struct meet *m = meet_of;
	int n = atomic_inc_return(&m->serials);

	if (n <= 2)
		m->ran_on[n - 1] = job->pipeline;
	complete(&m->ran);
}

static const struct ordsched_pipeline_ops meet_ops = {
	.parallel = meet_parallel,
	.serial = meet_serial,
};

static bool meet_mine(struct meet *m, struct pt_regs *regs)
{
	return current == READ_ONCE(m->canceller) &&
	       (void *)regs_get_kernel_argument(regs, 0) == &m->job.work;
}

static int meet_hold_cancel(struct kprobe *kp, struct pt_regs *regs)
{
	struct meet *m = container_of(kp, struct meet, kp);

	if (meet_mine(m, regs))
		kt_hold(&m->stage);
	return 0;
}

static int meet_grab_entry(struct kretprobe_instance *ri,
			   struct pt_regs *regs)
{
	struct meet *m = container_of(get_kretprobe(ri), struct meet, krp);

	return !meet_mine(m, regs) || atomic_read(&m->stage) != 2;
}

/* A kprobe handler runs as an NMI would: only NMI-safe clocks here. */
static int meet_hold_grab(struct kretprobe_instance *ri,
			  struct pt_regs *regs)
{
	struct meet *m = container_of(get_kretprobe(ri), struct meet, krp);
	u64 until = ktime_get_mono_fast_ns() + 300 * NSEC_PER_MSEC;

	if (atomic_cmpxchg(&m->grab, 0, 1) != 0)
		return 0;
	while (!atomic_read(&m->queued) && ktime_get_mono_fast_ns() < until)
		cpu_relax();
	atomic_set(&m->queued_in_hold, atomic_read(&m->queued));
	atomic_set(&m->grab, 2);
	return 0;
}

static int meet_cancel(void *data)
{
	struct meet *m = data;

	m->ret = ordsched_pipeline_cancel(m->a, &m->job);
	complete(&m->cancelled);
	return 0;
}

/*
 * On the other CPU than the canceller's, whose holds have interrupts off
 * there: queue the job on A behind A's gate; once the canceller is held
 * in cancel_work(), let the job run on A; once it holds the idle work's
 * PENDING bit, queue the job on B behind B's gate. Both gates run before
 * the canceller wakes: a worker this CPU's pool creates during the hold
 * may need kthreadd, or be placed, on the held CPU, and the job waited
 * for it past the hold's end (seen once on 6.12: the cancel then took
 * the job still pending on A).
 */
static int meet_drive(void *data)
{
	struct meet *m = data;
	unsigned long until;

	queue_work(m->wqa, &m->gate[0].work);
	queue_work(m->wqb, &m->gate[1].work);
	m->gates_up = wait_for_completion_timeout(&m->gate[0].started, 5 * HZ) &&
		      wait_for_completion_timeout(&m->gate[1].started, 5 * HZ);
	m->queued_on_a = ordsched_pipeline_queue(m->a, &m->job);
	wake_up_process(m->canceller);
	m->held = kt_wait_held(&m->stage);
	complete(&m->gate[0].open);
	m->ran_on_a = wait_for_completion_timeout(&m->ran, 5 * HZ);
	m->held_over = atomic_read(&m->stage) == 1;
	atomic_set(&m->stage, 2);
	until = jiffies + 5 * HZ;
	while (atomic_read(&m->grab) != 1 && !completion_done(&m->cancelled) &&
	       time_before(jiffies, until))
		usleep_range(20, 50);
	if (atomic_read(&m->grab) == 1) {
		m->queued_on_b = ordsched_pipeline_queue(m->b, &m->job);
		atomic_set(&m->queued, 1);
	}
	complete(&m->driven);
	return 0;
}

static void cancel_meets_requeue(struct ktest *t)
{
	struct ordsched_pipeline_params p = { .ops = &meet_ops };
	struct task_struct *driver;
	struct meet *m;

	if (num_online_cpus() < 2) {
		ktest_skip(t, "needs two CPUs");
		return;
	}
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!KT_EXPECT(t, m))
		return;
	meet_of = m;
	init_completion(&m->ran);
	init_completion(&m->cancelled);
	init_completion(&m->driven);
	INIT_WORK(&m->gate[0].work, wq_gate_fn);
	INIT_WORK(&m->gate[1].work, wq_gate_fn);
	init_completion(&m->gate[0].open);
	init_completion(&m->gate[1].open);
	init_completion(&m->gate[0].started);
	init_completion(&m->gate[1].started);
	/* Per-CPU, one at a time: the job runs on the driver's CPU. */
	m->wqa = alloc_workqueue("ordsched_pa", 0, 1);
	m->wqb = alloc_workqueue("ordsched_pb", 0, 1);
	if (!KT_EXPECT(t, m->wqa && m->wqb))
		goto out_wq;
	p.wq = m->wqa;
	m->a = ordsched_pipeline_create(&p);
	p.wq = m->wqb;
	m->b = ordsched_pipeline_create(&p);
	if (!KT_EXPECT(t, !IS_ERR(m->a) && !IS_ERR(m->b)))
		goto out_pl;
	m->kp.symbol_name = "cancel_work";
	m->kp.pre_handler = meet_hold_cancel;
	if (register_kprobe(&m->kp)) {
		ktest_skip(t, "no kprobe on cancel_work");
		goto out_pl;
	}
	m->krp.entry_handler = meet_grab_entry;
	m->krp.handler = meet_hold_grab;
	m->krp.maxactive = 4;
	if (kt_register_grab_kretprobe(&m->krp)) {
		ktest_skip(t, "no kretprobe on the workqueue's grab");
		goto out_kp;
	}
	/* The canceller, and the driver on the other CPU, which wakes it. */
	if (!KT_EXPECT_EQ(t, kt_create_pair(&m->canceller, meet_cancel, &driver,
					    meet_drive, m, "kt_pl_meet"), 0))
		goto out_krp;
	wake_up_process(driver);
	wait_for_completion(&m->driven);
	wait_for_completion(&m->cancelled);
	KT_EXPECT(t, m->gates_up);
	KT_EXPECT(t, m->queued_on_a);
	KT_EXPECT(t, m->held);
	KT_EXPECT(t, m->ran_on_a);
	KT_EXPECT(t, m->held_over);
	KT_EXPECT(t, !m->ret);
	KT_EXPECT_EQ(t, atomic_read(&m->grab), 2);
	KT_EXPECT(t, m->queued_on_b);
	KT_EXPECT_EQ(t, atomic_read(&m->queued_in_hold), 0);
	/* Behind B's gate, and marked so: B runs it once. */
	KT_EXPECT(t, work_pending(&m->job.work));
	complete(&m->gate[1].open);
	if (m->queued_on_b)
		KT_EXPECT(t, wait_for_completion_timeout(&m->ran, 5 * HZ));
	KT_EXPECT_EQ(t, atomic_read(&m->serials), 2);
	KT_EXPECT(t, m->ran_on[0] == m->a && m->ran_on[1] == m->b);
	ktest_diag(t, "the queueing on B %s the cancel",
		   atomic_read(&m->queued_in_hold) ? "met" : "waited for");
out_krp:
	complete_all(&m->gate[0].open);
	complete_all(&m->gate[1].open);
	unregister_kretprobe(&m->krp);
out_kp:
	unregister_kprobe(&m->kp);
out_pl:
	if (!IS_ERR_OR_NULL(m->a))
		KT_EXPECT_EQ(t, ordsched_pipeline_flush(m->a), 0);
	if (!IS_ERR_OR_NULL(m->b))
		KT_EXPECT_EQ(t, ordsched_pipeline_flush(m->b), 0);
	ordsched_pipeline_destroy(m->a);
	ordsched_pipeline_destroy(m->b);
out_wq:
	if (m->wqa)
		destroy_workqueue(m->wqa);
	if (m->wqb)
		destroy_workqueue(m->wqb);
	meet_of = NULL;
	kfree(m);
}

static const struct ktest_case pipeline_cases[] = {
	KT_CASE(bad_params),
	KT_CASE(window_full),
	KT_CASE(order_100k),
	KT_CASE(caller_percpu_wq),
	KT_CASE(cancel_meets_requeue),
	KT_END
};

const struct ktest_suite ordsched_pipeline_suite =
	KT_SUITE("pipeline", pipeline_cases);
