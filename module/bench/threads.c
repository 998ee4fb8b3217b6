// SPDX-License-Identifier: GPL-2.0
/*
 * Producer threads: one kthread per slot, bound to a CPU, all created
 * before the clock starts and released together, so that thread creation
 * is not measured.
 */
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/slab.h>

#include "bench.h"

struct bench_thread {
	struct bench_threads *all;
	unsigned int idx;
};

struct bench_threads {
	int (*fn)(void *data, unsigned int idx);
	void *data;
	unsigned int started;
	struct completion go;
	struct completion done;
	atomic_t running;
	atomic_t err;
	struct bench_thread th[];
};

static int bench_thread_fn(void *arg)
{
	struct bench_thread *t = arg;
	struct bench_threads *all = t->all;
	int ret;

	wait_for_completion(&all->go);
	ret = all->fn(all->data, t->idx);
	if (ret)
		atomic_cmpxchg(&all->err, 0, ret);
	if (atomic_dec_and_test(&all->running))
		complete(&all->done);
	return 0;
}

/* The @idx-th online CPU, counting modulo the number online. */
static int bench_nth_cpu(unsigned int idx)
{
	unsigned int n = idx % num_online_cpus();
	int cpu;

	for_each_online_cpu(cpu)
		if (!n--)
			return cpu;
	return cpumask_first(cpu_online_mask);
}

struct bench_threads *bench_threads_create(unsigned int nr,
					   int (*fn)(void *data,
						     unsigned int idx),
					   void *data)
{
	struct bench_threads *all;
	unsigned int i;

	all = kzalloc(struct_size(all, th, nr), GFP_KERNEL);
	if (!all)
		return ERR_PTR(-ENOMEM);
	all->fn = fn;
	all->data = data;
	init_completion(&all->go);
	init_completion(&all->done);
	atomic_set(&all->running, nr);
	atomic_set(&all->err, 0);

	for (i = 0; i < nr; i++) {
		struct task_struct *task;
		int cpu = bench_nth_cpu(i);

		all->th[i].all = all;
		all->th[i].idx = i;
		task = kthread_create(bench_thread_fn, &all->th[i],
				      "ordsched_b/%u", i);
		if (IS_ERR(task)) {
			atomic_cmpxchg(&all->err, 0, PTR_ERR(task));
			break;
		}
		kthread_bind(task, cpu);
		wake_up_process(task);
		all->started++;
	}
	/* Threads never created count as done. */
	if (all->started < nr &&
	    atomic_sub_and_test(nr - all->started, &all->running))
		complete(&all->done);
	return all;
}

/* Release every thread; they run fn() once and exit. */
void bench_threads_go(struct bench_threads *all)
{
	complete_all(&all->go);
}

/*
 * Wait for every thread to return and free @all.
 * Return: 0, or the first error of a thread or of their creation.
 */
int bench_threads_wait(struct bench_threads *all)
{
	int ret;

	complete_all(&all->go);
	/* Wake every second: a long run is not a hung task. */
	while (all->started && !wait_for_completion_timeout(&all->done, HZ))
		;
	ret = atomic_read(&all->err);
	kfree(all);
	return ret;
}

/*
 * Run @nr producers of @fn and time them until the last item is done: the
 * item that finishes last stores the time in *@t_end, then completes
 * @all_done. *@wall_ns runs from the producers' release to *@t_end;
 * *@busy_ns is the CPU time of all CPUs over the run.
 * Return: 0, or the first error of a producer or of the clock.
 */
int bench_measure(unsigned int nr, int (*fn)(void *data, unsigned int idx),
		  void *data, struct completion *all_done, const u64 *t_end,
		  u64 *wall_ns, u64 *busy_ns)
{
	struct bench_threads *th;
	struct bench_clock clock;
	u64 wall;
	int ret;

	th = bench_threads_create(nr, fn, data);
	if (IS_ERR(th))
		return PTR_ERR(th);
	bench_clock_start(&clock);
	bench_threads_go(th);
	ret = bench_threads_wait(th);
	if (ret)
		return ret;	/* a producer failed: what it queued is done */
	/* Wake every second: a long run is not a hung task. */
	while (!wait_for_completion_timeout(all_done, HZ))
		;
	ret = bench_clock_stop(&clock, &wall, busy_ns);
	*wall_ns = *t_end - clock.wall_ns;
	return ret;
}
