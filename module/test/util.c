// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the in-kernel test cases. */
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/processor.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>

#include "util.h"

void kt_owned_fn(struct ordsched_delay_task *task)
{
	struct kt_owned_task *o = container_of(task, struct kt_owned_task,
					       task);

	atomic_inc(o->freed);
	kfree(o);
}

/*
 * For a kprobe handler that holds a thread at a chosen instruction: the
 * first caller moves @stage from 0 (armed) to 1 (held) and spins until the
 * test sets it to 2 (let go), or for 2 s at most, when it sets 3 (gave
 * up): a test that checks @stage is still 1 knows the hold lasted. Later
 * callers pass. A kprobe handler runs as an NMI would: only NMI-safe
 * clocks here.
 */
void kt_hold(atomic_t *stage)
{
	u64 until = ktime_get_mono_fast_ns() + 2 * NSEC_PER_SEC;

	if (atomic_cmpxchg(stage, 0, 1) != 0)
		return;
	while (atomic_read(stage) != 2) {
		if (ktime_get_mono_fast_ns() >= until) {
			atomic_cmpxchg(stage, 1, 3);
			return;
		}
		cpu_relax();
	}
}

/*
 * No sleep while a thread is held: the held CPU runs none of its softirq
 * work, and on PREEMPT_RT that includes expiring the timers of its
 * SCHED_OTHER sleepers (a usleep_range() armed there, before the hold
 * began on that CPU, ends only when the hold gives up). Spinning, the
 * waiter stays runnable, and is moved to another CPU if the hold is on its
 * own: usually at once, though probably not once on the debug kernel
 * (see moved_keeps_order()).
 */
bool kt_wait_held(atomic_t *stage)
{
	u64 until = ktime_get_mono_fast_ns() + 2 * NSEC_PER_SEC;

	while (!atomic_read(stage)) {
		if (ktime_get_mono_fast_ns() > until)
			return false;
		cond_resched();
		cpu_relax();
	}
	return atomic_read(stage) == 1;
}

void kt_spin_ms(unsigned int ms)
{
	u64 until = ktime_get_mono_fast_ns() + (u64)ms * NSEC_PER_MSEC;

	while (ktime_get_mono_fast_ns() < until) {
		cond_resched();
		cpu_relax();
	}
}

bool kt_spin_until(const bool *flag, unsigned int ms)
{
	u64 until = ktime_get_mono_fast_ns() + (u64)ms * NSEC_PER_MSEC;

	while (!READ_ONCE(*flag) && ktime_get_mono_fast_ns() < until) {
		cond_resched();
		cpu_relax();
	}
	return READ_ONCE(*flag);
}

static int kt_ret_hold_fn(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	kt_hold(&container_of(get_kretprobe(ri), struct kt_ret_hold,
			      krp)->stage);
	return 0;
}

int kt_ret_hold_register(struct kt_ret_hold *h, const char *symbol)
{
	h->krp.kp.symbol_name = symbol;
	h->krp.handler = kt_ret_hold_fn;
	h->krp.maxactive = 4;
	return register_kretprobe(&h->krp);
}

bool kt_stays_asleep(struct task_struct *const *task, struct completion *done)
{
	struct task_struct *p;
	int i, asleep = 0;

	for (i = 0; i < 500; i++) {
		if (done && completion_done(done))
			return false;
		p = READ_ONCE(*task);
		if (p && !task_is_running(p)) {
			if (++asleep >= 3)
				return true;
		} else {
			asleep = 0;
		}
		usleep_range(10000, 11000);
	}
	return false;
}

int kt_register_grab_kretprobe(struct kretprobe *krp)
{
	static const char * const names[] = {
		"work_grab_pending", "try_to_grab_pending",
	};
	unsigned int i;
	int ret = -ENOENT;

	for (i = 0; i < ARRAY_SIZE(names) && ret; i++) {
		krp->kp.symbol_name = names[i];
		krp->kp.addr = NULL;
		ret = register_kretprobe(krp);
	}
	return ret;
}

int kt_create_pair(struct task_struct **first, int (*first_fn)(void *),
		   struct task_struct **second, int (*second_fn)(void *),
		   void *data, const char *name)
{
	unsigned int cpu0 = cpumask_first(cpu_online_mask);
	unsigned int cpu1 = cpumask_next(cpu0, cpu_online_mask);

	if (cpu1 >= nr_cpu_ids)
		return -ENODEV;
	*first = kthread_create(first_fn, data, "%s/0", name);
	if (IS_ERR(*first))
		return PTR_ERR(*first);
	*second = kthread_create(second_fn, data, "%s/1", name);
	if (IS_ERR(*second)) {
		kthread_stop(*first);
		return PTR_ERR(*second);
	}
	kthread_bind(*first, cpu0);
	kthread_bind(*second, cpu1);
	return 0;
}

void kt_spin(unsigned int loops)
{
	while (loops--)
		cpu_relax();
}

struct kt_threads {
	int (*fn)(void *data, unsigned int idx);
	void *data;
	struct completion go;
	struct completion done;
	atomic_t running;
	atomic_t err;
};

struct kt_thread {
	struct kt_threads *all;
	unsigned int idx;
};

static int kt_thread_fn(void *arg)
{
	struct kt_thread *th = arg;
	struct kt_threads *all = th->all;
	int ret;

	wait_for_completion(&all->go);
	ret = all->fn(all->data, th->idx);
	if (ret)
		atomic_cmpxchg(&all->err, 0, ret);
	if (atomic_dec_and_test(&all->running))
		complete(&all->done);
	return 0;
}

int kt_run_threads(unsigned int nr, int (*fn)(void *data, unsigned int idx),
		   void *data)
{
	struct kt_threads all = { .fn = fn, .data = data };
	struct kt_thread *th;
	unsigned int i, cpus = num_online_cpus(), started = 0;
	int cpu;

	th = kcalloc(nr, sizeof(*th), GFP_KERNEL);
	if (!th)
		return -ENOMEM;
	init_completion(&all.go);
	init_completion(&all.done);
	atomic_set(&all.running, nr);
	atomic_set(&all.err, 0);

	cpu = cpumask_first(cpu_online_mask);
	for (i = 0; i < nr; i++) {
		struct task_struct *task;

		th[i].all = &all;
		th[i].idx = i;
		task = kthread_create(kt_thread_fn, &th[i], "ordsched_t/%u", i);
		if (IS_ERR(task)) {
			atomic_cmpxchg(&all.err, 0, PTR_ERR(task));
			break;
		}
		kthread_bind(task, cpu);
		wake_up_process(task);
		started++;
		cpu = cpumask_next(cpu, cpu_online_mask);
		if (cpu >= nr_cpu_ids || i % cpus == cpus - 1)
			cpu = cpumask_first(cpu_online_mask);
	}
	/* Threads that were never created count as done. */
	if (started < nr && atomic_sub_and_test(nr - started, &all.running))
		complete(&all.done);
	complete_all(&all.go);
	/* Wake every second: a long run is not a hung task. */
	while (started && !wait_for_completion_timeout(&all.done, HZ))
		;
	kfree(th);
	return atomic_read(&all.err);
}

struct kt_killed {
	int (*fn)(void *data);
	void *data;
	struct completion started;
};

static int kt_killable_thread(void *arg)
{
	struct kt_killed *k = arg;

	allow_signal(SIGKILL);
	complete(&k->started);
	return k->fn(k->data);
}

int kt_run_killed(int (*fn)(void *data), void *data,
		  unsigned int kill_after_ms)
{
	struct kt_killed k = { .fn = fn, .data = data };
	struct task_struct *task;
	int ret;

	init_completion(&k.started);
	task = kthread_create(kt_killable_thread, &k, "kt_killed");
	if (IS_ERR(task))
		return PTR_ERR(task);
	/* kthread_stop() of a thread that returned on its own needs this. */
	get_task_struct(task);
	wake_up_process(task);
	/* kthread_stop() of a thread that has not run yet would not run it. */
	wait_for_completion(&k.started);
	msleep(kill_after_ms);
	send_sig(SIGKILL, task, 1);
	ret = kthread_stop(task);
	put_task_struct(task);
	return ret;
}
