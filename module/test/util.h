/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the in-kernel test cases. */
#ifndef _ORDSCHED_TEST_UTIL_H
#define _ORDSCHED_TEST_UTIL_H

#include <linux/atomic.h>
#include <linux/kprobes.h>
#include <linux/types.h>

#include <ordsched/delay.h>

/* A fast per-thread PRNG (xorshift32); never seed with 0. */
static inline u32 kt_rand(u32 *state)
{
	u32 x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return x;
}

/* Busy work of about @loops iterations, to scramble completion order. */
void kt_spin(unsigned int loops);

/*
 * In a kprobe handler: hold the first thread there until @stage is 2 (let
 * go), or set it to 3 (gave up) after 2 s.
 */
void kt_hold(atomic_t *stage);

/*
 * Wait, spinning, for a kt_hold() on @stage to hold its thread, for 2 s at
 * most: see util.c for why it must not sleep. Return: held, and the hold
 * has not given up.
 */
bool kt_wait_held(atomic_t *stage);

/* Let @ms milliseconds pass spinning, as kt_wait_held() waits. */
void kt_spin_ms(unsigned int ms);

/*
 * Spin, as kt_wait_held() waits, until *@flag is true or @ms milliseconds
 * have passed. Return: *@flag.
 */
bool kt_spin_until(const bool *flag, unsigned int ms);

/*
 * A kretprobe that holds the calls its entry_handler lets through (0 for
 * them) on their function's return: kt_hold() on @stage.
 */
struct kt_ret_hold {
	struct kretprobe krp;
	atomic_t stage;
};

/*
 * Register @h, its krp.entry_handler set, on @symbol. Return: 0 or a
 * negative errno.
 */
int kt_ret_hold_register(struct kt_ret_hold *h, const char *symbol);

struct completion;
struct kretprobe;
struct task_struct;

/*
 * Is the thread *@task (NULL until it is known) asleep, and staying
 * asleep: seen not running three times in a row, 10 ms apart (not between
 * a wait's setting of its state and its check), within 5 s, and @done
 * (if not NULL: the call it makes returned) not completed?
 */
bool kt_stays_asleep(struct task_struct *const *task,
		     struct completion *done);

/*
 * Register @krp, its handlers set, on the workqueue's grab of a work's
 * PENDING bit, which cancel_work() calls: work_grab_pending() from 6.10,
 * try_to_grab_pending() before. Return: 0 or a negative errno.
 */
int kt_register_grab_kretprobe(struct kretprobe *krp);

/*
 * Create two kthreads on @data, not woken: *@first runs @first_fn bound
 * to the first online CPU, *@second @second_fn bound to the next.
 * Return: 0, or a negative errno (-ENODEV: one CPU) and no thread left.
 */
int kt_create_pair(struct task_struct **first, int (*first_fn)(void *),
		   struct task_struct **second, int (*second_fn)(void *),
		   void *data, const char *name);

/*
 * Run @fn(@data, i) for i in [0, @nr) on @nr kthreads, thread i bound to
 * online CPU i % num_online_cpus(), all released at once; wait for all.
 * Return: 0, or the first non-zero value a thread returned.
 */
int kt_run_threads(unsigned int nr, int (*fn)(void *data, unsigned int idx),
		   void *data);

/*
 * Run @fn(@data) on a kthread that accepts SIGKILL, send it SIGKILL after
 * @kill_after_ms and wait for @fn to return.
 * Return: what @fn returned.
 */
int kt_run_killed(int (*fn)(void *data), void *data,
		  unsigned int kill_after_ms);

/*
 * A delayed task in its own allocation, which its function frees: what a
 * destroy or a task's own run must not touch after (KASAN tells).
 */
struct kt_owned_task {
	struct ordsched_delay_task task;
	atomic_t *freed;
};

/* Count the task in its @freed and free it; also fit for @cancelled. */
void kt_owned_fn(struct ordsched_delay_task *task);

#endif /* _ORDSCHED_TEST_UTIL_H */
