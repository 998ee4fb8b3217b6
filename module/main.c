// SPDX-License-Identifier: GPL-2.0
/*
 * ordsched: keep the order of work done in parallel, without a consumer
 * thread per stream. Module init and exit only; each part lives in its own
 * file.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/workqueue.h>

#include "internal.h"

/*
 * Runs parallel steps and hand-offs of users who bring no workqueue. A
 * rescuer (WQ_MEM_RECLAIM) keeps it going under memory pressure, so block
 * and writeback drivers may pass no workqueue of their own.
 */
struct workqueue_struct *ordsched_wq;

/*
 * Hands due delayed tasks to their targets: per CPU and high priority, as
 * system_highpri_wq, with a rescuer of its own for the same reason.
 */
struct workqueue_struct *ordsched_highpri_wq;

/*
 * Wakes the delayed scheduler's flushes, stops and cancel_syncs. Nothing
 * of the users' runs on it (on ordsched_wq, their tasks could fill its
 * max_active, each waiting for such a wake-up), nor waits; unbound (a
 * per-CPU one would leave the wake-up on a CPU that a thread keeps busy
 * without yielding, where the interrupt that ended a task queued it),
 * with a rescuer.
 */
struct workqueue_struct *ordsched_wake_wq;

/* See ordsched_fn_enter(): entered minus left, summed over the CPUs. */
DEFINE_PER_CPU(long, ordsched_fns_running);

/*
 * Before the module's text goes: a stream's drain, a sequencer's
 * hand-off, a delayed or keyed task's work function, a pipeline's
 * parallel step may run on a caller's workqueue, which the module does
 * not drain, and their destroy may have returned while they were still
 * on their way out (the callers' modules may be gone too). Each counts
 * itself until its last statement: wait for the sum to come to zero
 * (their destroys returned, so none enters anew), then for every task
 * to pass a voluntary context switch, which none makes in the few
 * instructions after its count (RCU Tasks). A kernel without RCU Tasks
 * has synchronize_rcu() instead: enough without preemption (Debian's
 * kernels, RT ones too, have RCU Tasks); a preemptible kernel built
 * without it (no tracing, kprobes nor BPF) keeps that window open.
 */
static void ordsched_wait_fns_left(void)
{
	unsigned int waited = 0;
	long sum;
	int cpu;

	for (;;) {
		sum = 0;
		for_each_possible_cpu(cpu)
			sum += READ_ONCE(*per_cpu_ptr(&ordsched_fns_running,
						      cpu));
		if (!sum)
			break;
		msleep(20);
		if (++waited % (ORDSCHED_DESTROY_WARN_SECS * 50) == 0)
			pr_warn("unloading: %ld work functions have not returned after %u s\n",
				sum, waited / 50);
	}
	synchronize_rcu_tasks();
}

static int __init ordsched_init(void)
{
	int ret = -ENOMEM;

	ordsched_wq = alloc_workqueue("ordsched", WQ_UNBOUND | WQ_SYSFS |
				      WQ_MEM_RECLAIM, 0);
	if (!ordsched_wq)
		return -ENOMEM;
	ordsched_highpri_wq = alloc_workqueue("ordsched_highpri", WQ_HIGHPRI |
					     WQ_MEM_RECLAIM, 0);
	if (!ordsched_highpri_wq)
		goto err_wq;
	ordsched_wake_wq = alloc_workqueue("ordsched_wake", WQ_UNBOUND |
					   WQ_HIGHPRI | WQ_MEM_RECLAIM, 0);
	if (!ordsched_wake_wq)
		goto err_highpri;
	ordsched_debugfs_init();
	ret = ordsched_stream_default_init();
	if (ret)
		goto err_debugfs;

	ret = ordsched_delay_init();
	if (ret)
		goto err_streams;

	ret = ordsched_chardev_init();
	if (ret)
		goto err_delay;
	return 0;

err_delay:
	ordsched_delay_exit();
err_streams:
	ordsched_stream_default_exit();
err_debugfs:
	ordsched_debugfs_exit();
	destroy_workqueue(ordsched_wake_wq);
err_highpri:
	destroy_workqueue(ordsched_highpri_wq);
err_wq:
	destroy_workqueue(ordsched_wq);
	return ret;
}

static void __exit ordsched_exit(void)
{
	ordsched_chardev_exit();
	ordsched_delay_exit();
	ordsched_stream_default_exit();
	ordsched_debugfs_exit();
	destroy_workqueue(ordsched_wake_wq);
	destroy_workqueue(ordsched_highpri_wq);
	destroy_workqueue(ordsched_wq);
	ordsched_wait_fns_left();
}

module_init(ordsched_init);
module_exit(ordsched_exit);

MODULE_DESCRIPTION("Ordered execution of parallel work: sequencer, streams, keys, delays");
MODULE_AUTHOR("The ordsched developers");
MODULE_LICENSE("GPL");
/* The packages' version (dkms.conf, debian/changelog): DKMS compares it. */
MODULE_VERSION("0.3.0");
