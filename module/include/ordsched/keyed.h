/* SPDX-License-Identifier: GPL-2.0 */
/* ordsched: key-ordered execution with rollups. Include <ordsched.h>. */
#ifndef _ORDSCHED_KEYED_H
#define _ORDSCHED_KEYED_H

#include <linux/list.h>
#include <linux/types.h>
#include <linux/workqueue.h>

/* ------------------------------------------------------------------------
 * Key-ordered execution
 *
 * Every task names one or more keys (u64). Tasks that share a key run one
 * after the other in the order they were queued; tasks with disjoint keys
 * run in parallel. A task with several keys (a rollup) runs once every
 * task queued before it on any of its keys has returned from its
 * function, and every task queued after it on any of its keys waits for
 * it; it waits for nothing else and holds back nothing else. (A task's
 * @done runs after its keys were handed on: the next task of a key may
 * run beside it.) No worker ever waits for a key: a task is handed to the
 * workqueue only once it is at the head of every one of its keys.
 *
 * Per-key state costs no allocation: a key is live while tokens of tasks
 * wait on it, and the token at the head of the key is the key's entry in
 * the executor's hash table. When the last token leaves, the key is gone.
 *
 * Contexts: queue and cancel in process or softirq context with
 * interrupts enabled (on PREEMPT_RT not with preemption disabled or under
 * a raw spinlock: the key buckets' spinlock_t locks sleep there); flush,
 * create and destroy in process context. Tasks run in process context in
 * a worker of the executor's workqueue and may sleep (holding back the
 * later tasks of their keys).
 * Ordering: stores before ordsched_keyed_queue() are visible to the task;
 * a task sees everything the earlier tasks of its keys stored in their
 * functions (not what their @done stores).
 * Lifecycle: as every part of ordsched (see <ordsched.h>): flush waits,
 * killably, for the tasks queued before it and their @done; destroy
 * drains.
 */

#define ORDSCHED_KEYED_MAX_KEYS	16

struct ordsched_keyed;
struct ordsched_keyed_task;

/**
 * typedef ordsched_keyed_fn - the work of a task, or its completion
 * @task: the task
 */
typedef void (*ordsched_keyed_fn)(struct ordsched_keyed_task *task);

/**
 * struct ordsched_keyed_token - a task's place on one of its keys
 * @hnode: in the executor's hash table while this token heads its key
 * @node: the key's queue; the head token's @node is the queue's head
 * @key: the key
 * @task: the task
 *
 * Private to ordsched. A task with one key uses the token inside its
 * task; a task with more keys brings an array of them.
 */
struct ordsched_keyed_token {
	struct hlist_node hnode;
	struct list_head node;
	u64 key;
	struct ordsched_keyed_task *task;
};

/**
 * struct ordsched_keyed_task - a task, embedded by the caller
 * @waiting: tokens not yet at the head of their key, plus one while the
 *	task is being queued; -1 once a cancel withdrew them
 * @color: the flush generation it was queued in
 * @work: runs the task on the executor's workqueue
 * @fn: the work, called in process context in a worker (may sleep, but a
 *	sleeping task holds back the later tasks of its keys); the task
 *	still holds its keys and is in flight: queueing itself again here
 *	is refused (do it from @done)
 * @done: called after @fn, in the same worker (process context, may
 *	sleep), once the task's keys have been handed on; from then on
 *	ordsched does not touch the task, which may be freed or queued again
 *	(may be NULL). Never called for a cancelled task. A task queued
 *	again on an executor with the same workqueue runs its next @fn only
 *	once this @done has returned (both run as @work, which a workqueue
 *	never runs twice at once): there @done must not wait for the task's
 *	next run, nor for a later task of a key it is queued on again, and
 *	a @done that sleeps holds back the keys of the next queueing. The
 *	task still runs as @work until @done returns: @done must not
 *	initialize it again (ordsched_keyed_task_init()) to queue it with
 *	another @fn, which would let that run start while @done runs; nor
 *	flush or destroy @kx, which wait for @done itself
 * @kx: the executor the task was queued on
 * @tokens: the tokens, @nr_tokens of them
 * @nr_tokens: how many keys the task can name
 * @nr_keys: how many it names in the current queueing; 0 while the task
 *	is not in flight
 * @token: the token of a task with at most one key
 *
 * Initialize with ordsched_keyed_task_init(); the fields are ordsched's.
 */
struct ordsched_keyed_task {
	atomic_t waiting;
	unsigned int color;
	struct work_struct work;
	ordsched_keyed_fn fn;
	ordsched_keyed_fn done;
	struct ordsched_keyed *kx;
	struct ordsched_keyed_token *tokens;
	unsigned int nr_tokens;
	unsigned int nr_keys;
	struct ordsched_keyed_token token;
};

/**
 * struct ordsched_keyed_params - how to build a keyed executor
 * @name: names its debugfs folder, "<name>.<id>" (copied, at most 31
 *	bytes, a '/' there as '_'; NULL: the kind's name)
 * @wq: the workqueue tasks run on (NULL: ordsched's own unbound
 *	workqueue); not a BH one (WQ_BH), as tasks may sleep
 * @hash_order: the hash table of live keys has 1 << @hash_order buckets
 *	(0: default 8, at most 16); size it for the keys live at one time,
 *	not for every key ever used. Keys sharing a bucket share its lock
 *	and its chain, which a queue, run or cancel walks under it: the
 *	hash is seeded at random per executor, but not cryptographic, so
 *	keys an adversary picks (flow ids, say) are best hashed by the
 *	caller first (siphash() with a secret key)
 */
struct ordsched_keyed_params {
	const char *name;
	struct workqueue_struct *wq;
	unsigned int hash_order;
};

/**
 * struct ordsched_keyed_stats - what a keyed executor has done
 * @queued: tasks queued
 * @rollups: of which tasks with more than one key
 * @parked: tasks that had to wait for an earlier task of some key
 * @ran: tasks run
 * @cancelled: tasks cancelled before they ran
 * @keys_created: keys that went from idle to live
 * @keys_reclaimed: keys that went from live to idle
 */
struct ordsched_keyed_stats {
	u64 queued;
	u64 rollups;
	u64 parked;
	u64 ran;
	u64 cancelled;
	u64 keys_created;
	u64 keys_reclaimed;
};

/**
 * ordsched_keyed_create() - build a keyed executor
 * @params: the parameters; NULL for all defaults
 *
 * Context: process context, may sleep.
 * Return: the executor, or an ERR_PTR(): -EINVAL for a hash order above
 * 16, -ENOMEM.
 */
struct ordsched_keyed *
ordsched_keyed_create(const struct ordsched_keyed_params *params);

/**
 * ordsched_keyed_destroy() - drain and free a keyed executor
 * @kx: the executor (NULL or an ERR_PTR() is ignored)
 *
 * Waits until every task queued has finished (its @done returned),
 * including tasks queued by tasks while it waits, then frees the
 * executor. When it returns, nothing runs a task of @kx and nothing will:
 * the module that owns the tasks may unload. Nobody may queue or cancel
 * from outside the tasks once destroy is called: a cancel uses @kx until
 * it returns, so cancels made before must have returned.
 *
 * Context: process context, may sleep; not from a task of @kx (its @fn
 * or its @done).
 */
void ordsched_keyed_destroy(struct ordsched_keyed *kx);

/**
 * ordsched_keyed_task_init() - prepare a task
 * @task: the task, not on the stack: its work item is initialized with
 *	INIT_WORK(), which a debug kernel's object tracking reports on a
 *	stack
 * @fn: the work (see &struct ordsched_keyed_task)
 * @done: called when ordsched is done with the task (may be NULL)
 * @tokens: an array of @nr_tokens tokens for a task with several keys,
 *	valid while the task is in flight; NULL for a task with one key
 * @nr_tokens: the size of @tokens (ignored if @tokens is NULL)
 *
 * Context: any context.
 */
void ordsched_keyed_task_init(struct ordsched_keyed_task *task,
			      ordsched_keyed_fn fn, ordsched_keyed_fn done,
			      struct ordsched_keyed_token *tokens,
			      unsigned int nr_tokens);

/**
 * ordsched_keyed_queue() - queue a task under one or more keys
 * @kx: the executor
 * @task: an initialized task (ordsched_keyed_task_init())
 * @keys: its keys, all different
 * @nr_keys: how many: from 1 to the task's number of tokens, at most
 *	%ORDSCHED_KEYED_MAX_KEYS
 *
 * The task runs once every task queued earlier on any of its keys has
 * returned from its function (their @done may still run), and before any
 * task queued later on any of them starts.
 * Queueings from different threads are ordered by the instant they take
 * their places, which is the same instant on all the task's keys. Stores
 * before the call are visible to the task. Nothing is allocated; the call
 * never waits for another task (it takes the keys' bucket locks, briefly).
 *
 * Context: process or softirq context, not hard interrupt and not with
 * interrupts disabled.
 * A task is in flight from its queueing until its keys are handed on
 * (before its @done is called) or it is cancelled; queueing it again
 * meanwhile is refused and leaves it as it is, on every kernel.
 *
 * Return: true, or false if @nr_keys is out of range or a key repeats
 * (the task is not queued), or if the task is in flight; with debug
 * objects on (CONFIG_DEBUG_OBJECTS), also for a task they report as
 * not initialized or freed.
 */
bool ordsched_keyed_queue(struct ordsched_keyed *kx,
			  struct ordsched_keyed_task *task,
			  const u64 *keys, unsigned int nr_keys);

/**
 * ordsched_keyed_cancel() - cancel a task that has not started
 * @kx: the executor the task was queued on
 * @task: the task; its ordsched_keyed_queue() has returned
 *
 * A task still waiting for earlier tasks of its keys, or ready and queued
 * on the workqueue but not started, is withdrawn from its keys (the tasks
 * behind it move up) and will not run; its @done is not called and it is
 * the caller's again. For a task in flight on @kx, either this returns
 * true and the task will not run, or the task has run, is running or
 * will run and this returns false: never both, never neither. A task not
 * in flight on @kx returns false without its tokens being read (they may
 * have been freed): one initialized and never queued, cancelled already,
 * past its function (its keys handed on, as before @done is called), or
 * queued on another executor. Does not wait for a running task.
 *
 * Cancels of one task may overlap: at most one of them returns true.
 * But a cancel that begins while the task is in flight reads its tokens
 * until it returns, so the caller must not free the tokens or queue the
 * task again while one may still be running: not from a @done that a
 * cancel may overlap (for instance, cancel only tasks it knows have not
 * run), nor when one cancel returned true while another may still run.
 * Nor may a cancel overlap a queueing of the task, on @kx or on another
 * executor, also when the task was not in flight as the cancel began: it
 * would read the fields the queueing is writing, and could withdraw
 * tokens that are not its own.
 *
 * Context: process or softirq context, not hard interrupt and not with
 * interrupts disabled.
 * Return: true if the task was cancelled.
 */
bool ordsched_keyed_cancel(struct ordsched_keyed *kx,
			   struct ordsched_keyed_task *task);

/**
 * ordsched_keyed_flush() - wait for the tasks queued so far
 * @kx: the executor
 *
 * Returns once every task queued before the call has finished: its
 * function and its @done have returned. Tasks queued later, also by the
 * tasks themselves, are not waited for, with two exceptions. Concurrent
 * flushes are serialized, and one that waits for another to finish first
 * also waits for the tasks queued meanwhile. And after three killed
 * flushes in a row, whose tasks are still unfinished, a flush first waits
 * for the oldest of those, and also for the tasks queued meanwhile. The
 * wait is killable: a task that never returns would otherwise hold the
 * caller forever.
 *
 * Context: process context, may sleep; not from a task of @kx (its @fn
 * or its @done).
 * Return: 0, or -EINTR if a fatal signal came first.
 */
int ordsched_keyed_flush(struct ordsched_keyed *kx);

/**
 * ordsched_keyed_get_stats() - read an executor's counters
 * @kx: the executor
 * @stats: where to store them
 *
 * The counters are per CPU and summed here: each is exact once the
 * executor is idle.
 *
 * Context: any context.
 */
void ordsched_keyed_get_stats(const struct ordsched_keyed *kx,
			      struct ordsched_keyed_stats *stats);

/**
 * ordsched_keyed_live_keys() - how many keys have tasks waiting or running
 * @kx: the executor
 *
 * Context: any context.
 * Return: the number of live keys; exact once the executor is idle, when
 * it is 0. While tasks come and go, an estimate: the two counters are
 * summed CPU by CPU, and a key may be counted reclaimed on one CPU before
 * its creation on another is read; 0 then, not a difference wrapped
 * around below 0.
 */
static inline u64 ordsched_keyed_live_keys(const struct ordsched_keyed *kx)
{
	struct ordsched_keyed_stats st;

	ordsched_keyed_get_stats(kx, &st);
	return st.keys_created > st.keys_reclaimed ?
	       st.keys_created - st.keys_reclaimed : 0;
}

#endif /* _ORDSCHED_KEYED_H */
