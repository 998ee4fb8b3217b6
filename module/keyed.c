// SPDX-License-Identifier: GPL-2.0
/*
 * Key-ordered execution with rollups: tasks that share a key run in
 * submission order, tasks with disjoint keys in parallel, no thread ever
 * waits for another.
 *
 * Each key is a queue of tokens, one per task waiting on it. A task
 * submitted with k keys puts one token on each key; a token that lands on
 * an idle key heads it at once. The task's "waiting" counter counts its
 * tokens not yet at a head; the one that brings it to 0 hands the task to
 * the workqueue. When the task has run, each of its tokens leaves its key
 * and the next token there becomes the head, which may make that token's
 * task ready in turn. A rollup is only a task with several tokens: it
 * waits for exactly the tokens ahead of its own on its keys, and holds
 * back exactly those behind them.
 *
 * Keys cost no allocation: the queue of a key has no head structure, it
 * is the circular list of its tokens, and the token at the head is the
 * key's entry in a hash table of live keys. When the head leaves, its
 * successor takes its place in the hash chain; when there is none, the
 * key is simply gone. The bucket's lock covers the lookup, the queue and
 * the hash entry, so a submission can never find a key that is being
 * reclaimed: it either finds the head token or finds nothing and makes
 * its own token the head.
 *
 * Order across keys: a rollup must take its places on all its keys at one
 * instant, or two rollups on {A, B} submitted at once could end up first
 * on different keys and wait for each other forever. A rollup therefore
 * holds the locks of all its buckets while it queues its tokens (two-phase
 * locking makes the per-key orders consistent). To keep that free of
 * deadlock without sorting, every path that holds several bucket locks
 * (a rollup queued, run or cancelled) takes an outer lock first; every
 * other path holds at most one bucket lock at a time.
 *
 * Out of flight before the keys count: a task leaves its keys and leaves
 * flight (may be queued again) under the locks of all its buckets, and
 * only then are the keys it handed on counted in the tasks behind it. A
 * rollup is made ready by whichever of its keys comes last, from another
 * task on another CPU, and may run at once: any task that handed it a key
 * before must be out of flight by then, as the header promises.
 *
 * A task runs on the workqueue as its own work item, so a hot key holds
 * at most one worker at a time and other keys' tasks are queued beside
 * it, never behind it.
 *
 * Flush waits for the tasks queued before it and for no later one,
 * with colors as workqueue flushes have: a task is counted in the current
 * color when queued; a flush moves the color on and waits until every
 * other color has no task left. A queuer counts its task, then checks
 * that the color has not moved meanwhile, and if it has, moves its count
 * to the new color; the flush moves the color, then reads the counts. A
 * full barrier on each side between the two steps (Dekker) means a flush
 * either sees the task counted or the queuer sees the new color. A
 * flush that is killed leaves its color still draining, which is why
 * there are four colors, not two: the next flush moves to a color of its
 * own (after waiting for it to drain, should three killed flushes in a
 * row have left tasks in all of them).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/debugobjects.h>
#include <linux/err.h>
#include <linux/hash.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <ordsched.h>

#include "internal.h"
#include "trace.h"

#define KEYED_DEFAULT_ORDER	8
#define KEYED_MAX_ORDER		16

#define KEYED_COLORS		4

/*
 * A task's @waiting once a cancel took its tokens off their keys, until
 * it is queued again: no token is left to count.
 */
#define KEYED_WITHDRAWN		(-1)

struct keyed_bucket {
	/* Guards the chain and the queues of the keys on it. */
	spinlock_t lock;
	/* Head tokens of the live keys that hash here. */
	struct hlist_head heads;
};

struct ordsched_keyed {
	struct keyed_bucket *buckets;
	unsigned int order;
	/* Random per executor: no key set collides on every machine. */
	u64 seed;
	struct workqueue_struct *wq;
	/* Taken by rollups around their bucket locks; see the top comment. */
	spinlock_t rollup_lock;
	/* The flush color and the unfinished tasks of each; see above. */
	unsigned int color;
	atomic_long_t inflight[KEYED_COLORS];
	wait_queue_head_t waitq;
	/* Serializes flushes: each owns the color flip until drained. */
	struct mutex flush_mutex;
	/* Name, id, counters, debugfs; @stats is its counters, typed. */
	struct ordsched_instance inst;
	struct ordsched_keyed_stats __percpu *stats;
};

ORDSCHED_COUNTERS(keyed_counters, struct ordsched_keyed_stats, 0,
		  "queued", "rollups", "parked", "ran", "cancelled",
		  "keys_created", "keys_reclaimed");

static struct keyed_bucket *keyed_bucket(struct ordsched_keyed *kx, u64 key)
{
	return &kx->buckets[hash_64(key ^ kx->seed, kx->order)];
}

/* The head token of @key, NULL if the key is idle. */
static struct ordsched_keyed_token *keyed_head(struct keyed_bucket *b, u64 key)
{
	struct ordsched_keyed_token *tok;

	lockdep_assert_held(&b->lock);
	hlist_for_each_entry(tok, &b->heads, hnode) {
		if (tok->key == key)
			return tok;
	}
	return NULL;
}

/* Put @tok at the end of its key's queue; true if it heads the key. */
static bool keyed_enqueue(struct ordsched_keyed *kx, struct keyed_bucket *b,
			  struct ordsched_keyed_token *tok)
{
	struct ordsched_keyed_token *head = keyed_head(b, tok->key);

	if (head) {
		/* Before the head in the circle is the end of the queue. */
		list_add_tail(&tok->node, &head->node);
		/* Unhashed: not a head (see keyed_is_head()). */
		INIT_HLIST_NODE(&tok->hnode);
		return false;
	}
	INIT_LIST_HEAD(&tok->node);
	hlist_add_head(&tok->hnode, &b->heads);
	this_cpu_inc(kx->stats->keys_created);
	trace_ordsched_keyed_key(kx->inst.id, tok->key, true);
	return true;
}

/*
 * @tok heads its key and its task is done with it (ran, or cancelled):
 * hand the key to the next token. Return: the next token's task, which
 * now holds one more key, for the caller to count once @tok's task is
 * out of flight (keyed_out_of_flight()); NULL if the key is idle now.
 */
static struct ordsched_keyed_task *keyed_dequeue(struct ordsched_keyed *kx,
						 struct keyed_bucket *b,
						 struct ordsched_keyed_token *tok)
{
	struct ordsched_keyed_token *next;

	lockdep_assert_held(&b->lock);
	if (list_empty(&tok->node)) {
		/* The last token: the key is idle and nothing is left of it. */
		hlist_del_init(&tok->hnode);
		this_cpu_inc(kx->stats->keys_reclaimed);
		trace_ordsched_keyed_key(kx->inst.id, tok->key, false);
		return NULL;
	}
	next = list_first_entry(&tok->node, struct ordsched_keyed_token, node);
	list_del(&tok->node);
	hlist_add_before(&next->hnode, &tok->hnode);
	hlist_del_init(&tok->hnode);
	return next->task;
}

static void keyed_dispatch(struct ordsched_keyed *kx,
			   struct ordsched_keyed_task *task)
{
	trace_ordsched_keyed_ready(kx->inst.id, task);
	queue_work(kx->wq, &task->work);
}

/*
 * Take @task, whose tokens are off their keys, out of flight, then count
 * for each of the @n tasks in @next the key it was handed: those that now
 * hold all their keys are moved to the front of @next, for the caller to
 * dispatch once it has unlocked. Called with the buckets of all of
 * @task's keys locked.
 *
 * The header promises a task that a task which handed it a key is out of
 * flight (it may queue that one again, cancel it or free its tokens).
 * Counting after the store keeps that promise whoever brings a rollup's
 * count to 0: a rollup's last key may come from another task, on another
 * CPU, while the one that handed it an earlier key still runs this. And
 * with the buckets held from the hand-over to the count, no cancel can
 * withdraw a task of @next (and its caller free it) in between.
 * Return: how many tasks of @next are ready.
 */
static unsigned int keyed_out_of_flight(struct ordsched_keyed_task *task,
					struct ordsched_keyed_task **next,
					unsigned int n)
{
	unsigned int i, ready = 0;

	/*
	 * It may be queued again from here (the cmpxchg in
	 * ordsched_keyed_queue() sees our stores), and a cancel no longer
	 * looks at its tokens. The fully ordered decrements below order this
	 * store before the count that makes any of @next ready.
	 */
	smp_store_release(&task->nr_keys, 0);
	for (i = 0; i < n; i++) {
		if (atomic_dec_and_test(&next[i]->waiting))
			next[ready++] = next[i];
	}
	return ready;
}

static void keyed_dispatch_all(struct ordsched_keyed *kx,
			       struct ordsched_keyed_task **ready,
			       unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		keyed_dispatch(kx, ready[i]);
}

/*
 * Debug objects: a task is active from its queueing until it is done or
 * cancelled. One freed or initialized again while active is reported on a
 * debug kernel and, where the context allows, cancelled first. The object
 * is the task's @waiting; @work is tracked by the workqueue's own debug
 * objects.
 *
 * The work item's fixup would cancel a ready task's work behind its back:
 * the task would never run nor be withdrawn, its tokens left in the hash
 * chains of freed memory and its color counted forever. Ours must come
 * first. Debug objects visit freed memory a page at a time, upwards, and
 * within a page (a hash chain) the newest objects first. So @waiting comes
 * before @work in the task, for a task across a page boundary, and
 * ordsched_keyed_task_init() tracks it anew after INIT_WORK(), for one
 * within a page. (Its first tracking, before INIT_WORK(), is the one
 * whose init fixup cancels a task initialized again while queued, before
 * the work's fixup can.)
 */
static_assert(offsetof(struct ordsched_keyed_task, waiting) <
	      offsetof(struct ordsched_keyed_task, work));
#define keyed_debug_obj(task)	(&(task)->waiting)

static const struct debug_obj_descr keyed_task_debug_descr;

static bool keyed_task_fixup(void *addr, enum debug_obj_state state)
{
	struct ordsched_keyed_task *task =
		container_of(addr, struct ordsched_keyed_task, waiting);

	if (state != ODEBUG_STATE_ACTIVE)
		return false;
	/*
	 * Cancel takes the bucket locks (_bh; sleeping on PREEMPT_RT): not
	 * from the init or free of any context, only where that may be.
	 */
	if (task->kx && !irqs_disabled() && !in_hardirq() &&
	    (!IS_ENABLED(CONFIG_PREEMPT_RT) || preemptible()) &&
	    ordsched_keyed_cancel(task->kx, task))
		return true;
	/*
	 * Running, or freed where it cannot be cancelled: reported only.
	 * Left active, the free path would come back to it forever.
	 */
	debug_object_deactivate(addr, &keyed_task_debug_descr);
	return false;
}

static const struct debug_obj_descr keyed_task_debug_descr = {
	.name		= "ordsched_keyed_task",
	.fixup_init	= keyed_task_fixup,
	.fixup_free	= keyed_task_fixup,
};

/* A task of @color is over; fully ordered, pairs with keyed_drained(). */
static void keyed_uncount(struct ordsched_keyed *kx, unsigned int color)
{
	if (atomic_long_dec_and_test(&kx->inflight[color]))
		wake_up_all(&kx->waitq);
}

/* Whether key @i is the first of @keys in its bucket. */
static bool keyed_first_in_bucket(struct ordsched_keyed *kx, const u64 *keys,
				  unsigned int i)
{
	struct keyed_bucket *b = keyed_bucket(kx, keys[i]);
	unsigned int j;

	for (j = 0; j < i; j++) {
		if (keyed_bucket(kx, keys[j]) == b)
			return false;
	}
	return true;
}

/*
 * Lock the buckets of all @n keys, each once. Sparse cannot count a
 * variable number of locks: __release() and __acquire() below only keep
 * its books balanced per iteration; lockdep checks the real thing. The
 * keys are the caller's copy: a task taken out of flight under these
 * locks may be queued again with other keys before they are unlocked.
 */
static void keyed_lock_all(struct ordsched_keyed *kx, const u64 *keys,
			   unsigned int n)
	__acquires(&kx->rollup_lock)
{
	unsigned int i;

	spin_lock_bh(&kx->rollup_lock);
	for (i = 0; i < n; i++) {
		spinlock_t *lock = &keyed_bucket(kx, keys[i])->lock;

		if (keyed_first_in_bucket(kx, keys, i)) {
			spin_lock_nest_lock(lock, &kx->rollup_lock);
			__release(lock);
		}
	}
}

static void keyed_unlock_all(struct ordsched_keyed *kx, const u64 *keys,
			     unsigned int n)
	__releases(&kx->rollup_lock)
{
	unsigned int i = n;

	while (i--) {
		spinlock_t *lock = &keyed_bucket(kx, keys[i])->lock;

		if (keyed_first_in_bucket(kx, keys, i)) {
			__acquire(lock);
			spin_unlock(lock);
		}
	}
	spin_unlock_bh(&kx->rollup_lock);
}

/* Copy the keys of @task's @n tokens into @keys. */
static void keyed_keys(const struct ordsched_keyed_task *task, u64 *keys,
		       unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		keys[i] = task->tokens[i].key;
}

/*
 * Hand on every key of @task, which has run, and take it out of flight
 * (keyed_out_of_flight()), all under the locks of its buckets: the
 * tasks this made ready are stored in @ready, for the caller to dispatch.
 */
static unsigned int keyed_release(struct ordsched_keyed *kx,
				  struct ordsched_keyed_task *task,
				  struct ordsched_keyed_task **ready)
{
	unsigned int i, n = 0, nr_keys = task->nr_keys;
	u64 keys[ORDSCHED_KEYED_MAX_KEYS];

	if (nr_keys == 1) {
		struct keyed_bucket *b = keyed_bucket(kx, task->tokens[0].key);

		spin_lock_bh(&b->lock);
		ready[0] = keyed_dequeue(kx, b, &task->tokens[0]);
		n = keyed_out_of_flight(task, ready, !!ready[0]);
		spin_unlock_bh(&b->lock);
		return n;
	}
	keyed_keys(task, keys, nr_keys);
	keyed_lock_all(kx, keys, nr_keys);
	for (i = 0; i < nr_keys; i++) {
		struct ordsched_keyed_token *tok = &task->tokens[i];

		ready[n] = keyed_dequeue(kx, keyed_bucket(kx, tok->key), tok);
		n += !!ready[n];
	}
	n = keyed_out_of_flight(task, ready, n);
	keyed_unlock_all(kx, keys, nr_keys);
	return n;
}

static void keyed_work_fn(struct work_struct *work)
{
	struct ordsched_keyed_task *task =
		container_of(work, struct ordsched_keyed_task, work);
	struct ordsched_keyed *kx = task->kx;
	ordsched_keyed_fn done = task->done;
	struct ordsched_keyed_task *ready[ORDSCHED_KEYED_MAX_KEYS];
	unsigned int color = task->color, n;

	ordsched_fn_enter();
	trace_ordsched_keyed_run(kx->inst.id, task);
	task->fn(task);
	this_cpu_inc(kx->stats->ran);
	debug_object_deactivate(keyed_debug_obj(task), &keyed_task_debug_descr);
	/* Once this returns the task is the caller's. */
	n = keyed_release(kx, task, ready);
	keyed_dispatch_all(kx, ready, n);
	if (done)
		done(task);
	/* ordsched_keyed_destroy() waits for this section with RCU. */
	rcu_read_lock();
	keyed_uncount(kx, color);
	rcu_read_unlock();
	ordsched_fn_leave();
}

/* Queue the task's tokens; return how many head their key at once. */
static unsigned int keyed_enqueue_all(struct ordsched_keyed *kx,
				      struct ordsched_keyed_task *task,
				      const u64 *keys)
{
	struct ordsched_keyed_token *toks = task->tokens;
	unsigned int i, heads = 0;

	if (task->nr_keys == 1) {
		struct keyed_bucket *b = keyed_bucket(kx, toks[0].key);

		spin_lock_bh(&b->lock);
		heads = keyed_enqueue(kx, b, &toks[0]);
		spin_unlock_bh(&b->lock);
		return heads;
	}
	keyed_lock_all(kx, keys, task->nr_keys);
	for (i = 0; i < task->nr_keys; i++)
		heads += keyed_enqueue(kx, keyed_bucket(kx, toks[i].key),
				       &toks[i]);
	keyed_unlock_all(kx, keys, task->nr_keys);
	return heads;
}

static bool keyed_keys_valid(const u64 *keys, unsigned int n,
			     unsigned int room)
{
	unsigned int i, j;

	if (!n || n > room || n > ORDSCHED_KEYED_MAX_KEYS)
		return false;
	for (i = 1; i < n; i++) {
		for (j = 0; j < i; j++) {
			if (keys[i] == keys[j])
				return false;
		}
	}
	return true;
}

bool ordsched_keyed_queue(struct ordsched_keyed *kx,
			  struct ordsched_keyed_task *task,
			  const u64 *keys, unsigned int nr_keys)
{
	unsigned int i, heads, color;

	lockdep_assert_irqs_enabled();
	if (!keyed_keys_valid(keys, nr_keys, task->nr_tokens))
		return false;
	/*
	 * In flight from here until its keys are handed on or it is
	 * cancelled: a second queueing meanwhile is refused. Fully ordered:
	 * the previous flight's stores come before ours.
	 */
	if (cmpxchg(&task->nr_keys, 0, nr_keys))
		return false;
	/* Debug objects track it too, to catch a task freed in flight. */
	if (debug_object_activate(keyed_debug_obj(task),
				  &keyed_task_debug_descr)) {
		WRITE_ONCE(task->nr_keys, 0);
		return false;
	}

	task->kx = kx;
	for (i = 0; i < nr_keys; i++) {
		task->tokens[i].key = keys[i];
		task->tokens[i].task = task;
	}
	/* One more than the tokens: nobody dispatches until all are queued. */
	atomic_set(&task->waiting, nr_keys + 1);
	/* Count the task in the current color; see the top comment. */
	for (;;) {
		color = READ_ONCE(kx->color);
		atomic_long_inc(&kx->inflight[color]);
		/* Pairs with the smp_mb() in ordsched_keyed_flush(). */
		smp_mb__after_atomic();
		if (likely(READ_ONCE(kx->color) == color))
			break;
		keyed_uncount(kx, color);
	}
	task->color = color;
	this_cpu_inc(kx->stats->queued);
	if (nr_keys > 1)
		this_cpu_inc(kx->stats->rollups);

	heads = keyed_enqueue_all(kx, task, keys);
	if (heads < nr_keys)
		this_cpu_inc(kx->stats->parked);
	trace_ordsched_keyed_queue(kx->inst.id, task, keys[0], nr_keys, heads);
	/* The task may run and be freed as soon as this is done. */
	if (atomic_sub_and_test(heads + 1, &task->waiting))
		keyed_dispatch(kx, task);
	return true;
}
EXPORT_SYMBOL_GPL(ordsched_keyed_queue);

/* Does @tok head its key? Heads are hashed, the others not. */
static bool keyed_is_head(struct ordsched_keyed_token *tok)
{
	return !hlist_unhashed(&tok->hnode);
}

/*
 * Take every token of @task off its key, as if the task had run; the
 * tasks handed a key are stored in @next (see keyed_dequeue()). Called
 * with all the task's buckets locked.
 */
static unsigned int keyed_withdraw(struct ordsched_keyed *kx,
				   struct ordsched_keyed_task *task,
				   struct ordsched_keyed_task **next)
{
	unsigned int i, n = 0;

	for (i = 0; i < task->nr_keys; i++) {
		struct ordsched_keyed_token *tok = &task->tokens[i];

		if (keyed_is_head(tok)) {
			next[n] = keyed_dequeue(kx, keyed_bucket(kx, tok->key),
						tok);
			n += !!next[n];
		} else {
			list_del(&tok->node);
		}
	}
	return n;
}

bool ordsched_keyed_cancel(struct ordsched_keyed *kx,
			   struct ordsched_keyed_task *task)
{
	struct ordsched_keyed_task *ready[ORDSCHED_KEYED_MAX_KEYS];
	unsigned int nr_ready = 0, nr_keys, color = 0;
	u64 keys[ORDSCHED_KEYED_MAX_KEYS];
	bool cancelled = false;
	int waiting;

	lockdep_assert_irqs_enabled();
	/*
	 * Read once: a task that finishes meanwhile sets it to 0 once it
	 * handed its keys on, and the buckets locked are the ones unlocked.
	 */
	nr_keys = READ_ONCE(task->nr_keys);
	if (task->kx != kx || !nr_keys)
		return false;
	/* With the task's buckets held, none of its tokens can move. */
	keyed_keys(task, keys, nr_keys);
	keyed_lock_all(kx, keys, nr_keys);
	/*
	 * Withdrawn by another cancel, which held these locks before us:
	 * nothing left to do. Waiting for some key: its tokens are ours to
	 * withdraw. Ready: the task is queued on the workqueue or about to
	 * be, by whoever brought it to 0, once that thread has left the
	 * bucket lock. Not queued yet, it will run:
	 * cancel_work() must not meet that queue_work(), as it holds the
	 * PENDING bit of a work not pending for a moment, and a queue_work()
	 * that ran into it would queue nothing. Queued, nothing else queues
	 * it until we return, and only cancel_work() can tell whether it has
	 * not started yet.
	 */
	waiting = atomic_read(&task->waiting);
	if (waiting != KEYED_WITHDRAWN &&
	    (waiting || (work_pending(&task->work) &&
			 cancel_work(&task->work)))) {
		nr_ready = keyed_withdraw(kx, task, ready);
		atomic_set(&task->waiting, KEYED_WITHDRAWN);
		color = task->color;
		debug_object_deactivate(keyed_debug_obj(task),
					&keyed_task_debug_descr);
		/*
		 * Withdrawn: a second cancel finds nothing to do, and the
		 * task may be queued again; only then do the tasks behind it
		 * count their keys.
		 */
		nr_ready = keyed_out_of_flight(task, ready, nr_ready);
		cancelled = true;
	}
	keyed_unlock_all(kx, keys, nr_keys);
	if (!cancelled)
		return false;
	this_cpu_inc(kx->stats->cancelled);
	trace_ordsched_keyed_cancel(kx->inst.id, task);
	keyed_dispatch_all(kx, ready, nr_ready);
	/*
	 * A flush or destroy that sees this color drained may return at
	 * once; ordsched_keyed_destroy() waits for this section with RCU.
	 */
	rcu_read_lock();
	keyed_uncount(kx, color);
	rcu_read_unlock();
	return true;
}
EXPORT_SYMBOL_GPL(ordsched_keyed_cancel);

void ordsched_keyed_task_init(struct ordsched_keyed_task *task,
			      ordsched_keyed_fn fn, ordsched_keyed_fn done,
			      struct ordsched_keyed_token *tokens,
			      unsigned int nr_tokens)
{
	debug_object_init(keyed_debug_obj(task), &keyed_task_debug_descr);
	INIT_WORK(&task->work, keyed_work_fn);
	/* Newer than the work's tracking object: see keyed_debug_obj(). */
	debug_object_free(keyed_debug_obj(task), &keyed_task_debug_descr);
	debug_object_init(keyed_debug_obj(task), &keyed_task_debug_descr);
	task->fn = fn;
	task->done = done;
	task->kx = NULL;
	task->tokens = tokens ?: &task->token;
	task->nr_tokens = tokens ? nr_tokens : 1;
	task->nr_keys = 0;
	atomic_set(&task->waiting, 0);
}
EXPORT_SYMBOL_GPL(ordsched_keyed_task_init);

/* Has every color in the mask @colors no unfinished task? */
static bool keyed_drained(struct ordsched_keyed *kx, unsigned long colors)
{
	unsigned int c;

	/* The acquires pair with the decrements in keyed_uncount(). */
	for_each_set_bit(c, &colors, KEYED_COLORS)
		if (atomic_long_read_acquire(&kx->inflight[c]))
			return false;
	return true;
}

#define KEYED_ALL_COLORS	(BIT(KEYED_COLORS) - 1)

int ordsched_keyed_flush(struct ordsched_keyed *kx)
{
	unsigned int next, others;
	int ret;

	might_sleep();
	if (mutex_lock_killable(&kx->flush_mutex))
		return -EINTR;
	next = (kx->color + 1) % KEYED_COLORS;
	others = KEYED_ALL_COLORS & ~BIT(next);
	/* Left there by killed flushes: those tasks came before us too. */
	ret = wait_event_killable(kx->waitq, keyed_drained(kx, BIT(next)));
	if (!ret) {
		WRITE_ONCE(kx->color, next);
		/* Pairs with smp_mb__after_atomic() in ordsched_keyed_queue(). */
		smp_mb();
		ret = wait_event_killable(kx->waitq, keyed_drained(kx, others));
	}
	mutex_unlock(&kx->flush_mutex);
	return ret ? -EINTR : 0;
}
EXPORT_SYMBOL_GPL(ordsched_keyed_flush);

void ordsched_keyed_get_stats(const struct ordsched_keyed *kx,
			      struct ordsched_keyed_stats *stats)
{
	ordsched_instance_sum(&kx->inst, (u64 *)stats);
}
EXPORT_SYMBOL_GPL(ordsched_keyed_get_stats);

/* The lines of the debugfs "stats" file before the counters. */
static void keyed_show(struct seq_file *m, struct ordsched_instance *inst)
{
	struct ordsched_keyed *kx = container_of(inst, struct ordsched_keyed,
						 inst);
	long inflight = 0;
	unsigned int c;

	for (c = 0; c < KEYED_COLORS; c++)
		inflight += atomic_long_read(&kx->inflight[c]);
	seq_printf(m, "buckets: %u\ninflight: %ld\nlive_keys: %llu\n",
		   1U << kx->order, inflight, ordsched_keyed_live_keys(kx));
}

struct ordsched_keyed *
ordsched_keyed_create(const struct ordsched_keyed_params *params)
{
	static const struct ordsched_keyed_params defaults;
	const struct ordsched_keyed_params *p = params ?: &defaults;
	unsigned int order = p->hash_order ?: KEYED_DEFAULT_ORDER, i;
	struct ordsched_keyed *kx;

	if (order > KEYED_MAX_ORDER)
		return ERR_PTR(-EINVAL);
	kx = kzalloc(sizeof(*kx), GFP_KERNEL);
	if (!kx)
		return ERR_PTR(-ENOMEM);
	kx->buckets = kvcalloc(1U << order, sizeof(*kx->buckets), GFP_KERNEL);
	if (!kx->buckets)
		goto err_free_kx;

	for (i = 0; i < 1U << order; i++) {
		spin_lock_init(&kx->buckets[i].lock);
		INIT_HLIST_HEAD(&kx->buckets[i].heads);
	}
	kx->order = order;
	kx->seed = get_random_u64();
	kx->wq = p->wq ?: ordsched_wq;
	spin_lock_init(&kx->rollup_lock);
	init_waitqueue_head(&kx->waitq);
	mutex_init(&kx->flush_mutex);
	if (ordsched_instance_init(&kx->inst, ORDSCHED_KIND_KEYED, p->name,
				   &keyed_counters, keyed_show))
		goto err_free_buckets;
	kx->stats = kx->inst.stats;
	return kx;

err_free_buckets:
	kvfree(kx->buckets);
err_free_kx:
	kfree(kx);
	return ERR_PTR(-ENOMEM);
}
EXPORT_SYMBOL_GPL(ordsched_keyed_create);

/*
 * No task in flight, of any color, at one instant. The counters are read
 * one by one: the current color's last, as it is the only one that grows
 * (new tasks, tasks queued by tasks, take it; older colors only drain,
 * and stay at zero once there). Read in index order, a task of an older
 * color could queue its child into the current color after that color was
 * read as zero, and then finish before its own was read. The color stays:
 * no flush runs beside destroy.
 */
static bool keyed_quiet(struct ordsched_keyed *kx)
{
	unsigned long cur = BIT(READ_ONCE(kx->color));

	return keyed_drained(kx, KEYED_ALL_COLORS & ~cur) &&
	       keyed_drained(kx, cur);
}

/*
 * Wait until no task is in flight, however long it takes (tasks may queue
 * tasks): destroy cannot fail, and freeing earlier would let a worker run
 * on freed memory.
 */
static void keyed_quiesce(struct ordsched_keyed *kx)
{
	unsigned int waited = 0;

	/* A timed wait: not a hung task while the log says why. */
	while (!wait_event_timeout(kx->waitq, keyed_quiet(kx), HZ)) {
		if (++waited % ORDSCHED_DESTROY_WARN_SECS == 0)
			pr_warn("destroying keyed executor %s: tasks unfinished after %u s\n",
				kx->inst.name, waited);
	}
	/*
	 * The last task's worker may still be leaving keyed_work_fn(), or
	 * ordsched_keyed_cancel(), right after its last uncount.
	 */
	synchronize_rcu();
}

void ordsched_keyed_destroy(struct ordsched_keyed *kx)
{
	if (IS_ERR_OR_NULL(kx))
		return;
	might_sleep();
	keyed_quiesce(kx);
	WARN_ON(ordsched_keyed_live_keys(kx));
	ordsched_instance_exit(&kx->inst);
	mutex_destroy(&kx->flush_mutex);
	kvfree(kx->buckets);
	kfree(kx);
}
EXPORT_SYMBOL_GPL(ordsched_keyed_destroy);
