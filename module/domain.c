// SPDX-License-Identifier: GPL-2.0
/*
 * Ordering domains: the state behind /dev/ordsched.
 *
 * A domain hands out tickets 0, 1, 2, ... (u64: they never wrap). The
 * window runs from the tail, the oldest ticket not yet retired, to the
 * head, the next ticket to hand out, and holds at most
 * ORDSCHED_DOMAIN_WINDOW tickets, one word per ticket in a ring:
 *
 *	handle pointer	the ticket is held by that handle
 *	SLOT_RETIRED	completed or trashed before its turn: the tail
 *			passes it without a stop
 *	0		outside the window
 *
 * One spinlock per domain guards it all. The lock-free sequencer (seq.c)
 * would not make this faster: every command is a system call that checks
 * ownership and limits, release() must find a handle's tickets, and the
 * waiters need a lock anyway; a lock held for a few dozen instructions is
 * noise next to the system call. The path that matters, "is it my turn
 * yet?", needs no system call at all: userspace reads the tail from the
 * status page.
 *
 * Waiting: a thread waiting for ticket t puts a waiter on its stack into
 * bucket t % DOMAIN_BUCKETS and sleeps on an hrtimer. When the tail moves
 * to t only the waiters of t are woken, and the poll queue of t's handle;
 * when t is retired while waited for (another thread of its handle trashed
 * it) its waiters are woken to learn that. The buckets hold at most
 * ORDSCHED_MAX_WAITERS_DOMAIN waiters, ORDSCHED_MAX_WAITERS_HANDLE of one
 * handle (EBUSY beyond), and a retirement of a range visits each bucket
 * at most once, then the buckets of the new tail and of the ticket after
 * it: whatever the range and the threads do, one retirement looks at no
 * waiter more than twice with the lock held.
 *
 * Lifetime: a handle lives as long as its file; the domain as long as its
 * last reference: its handles, and a tail advance of ring.c still queued.
 * A handle released with tickets in hand trashes them, which moves the
 * tail on for everybody else.
 *
 * Ring domains (ring.c, ORDSCHED_FEAT_RING): the ticket state lives in the
 * status page, which userspace writes, and every command above hands over
 * to ring.c at its start; the fields tail, head and slots stay unused and
 * the status page is never published to. The lock still guards the
 * waiters, the counters and the handles' ids.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/gfp.h>
#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/stat.h>
#include <linux/sched/task.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <uapi/linux/ordsched.h>

#include "domain.h"
#include "internal.h"
#include "trace.h"

#define SLOT_RETIRED	1UL

static inline unsigned long *domain_slot(struct ordsched_domain *dom, u64 t)
{
	return &dom->slots[t % ORDSCHED_DOMAIN_WINDOW];
}

static void domain_publish(struct ordsched_domain *dom, unsigned int offset,
			   u64 value)
{
	u64 *word = (u64 *)((char *)dom->status + offset);

	/* A ring domain's head and tail are userspace's: never overwrite. */
	if (dom->ring)
		return;

	/*
	 * Pairs with the acquire load of a userspace reader: a thread that
	 * sees the tail at its ticket also sees everything the threads that
	 * retired the tickets before it wrote before they did so. A single
	 * 64-bit store: a 32-bit reader never sees a value above this one
	 * (see struct ordsched_status).
	 */
	smp_store_release(word, value);
}

/* Is @t held by @h? 0 if so, else why not. */
static int domain_check(struct ordsched_domain *dom, struct ordsched_handle *h,
			u64 t)
{
	unsigned long owner;

	lockdep_assert_held(&dom->lock);
	if (t >= dom->head)
		return -EINVAL;
	if (t < dom->tail)
		return -EALREADY;
	owner = *domain_slot(dom, t);
	if (owner == SLOT_RETIRED)
		return -EALREADY;
	return owner == (unsigned long)h ? 0 : -EPERM;
}

/*
 * Unlink @w and wake its thread when @wk is flushed, or now if @wk is
 * full. Either way no wake-up is lost: a waiter is queued with its task
 * state set, and looks at its condition after each wake-up, which the
 * caller changed before it looked for waiters.
 *
 * The waker dequeues the waiter, as futex's does, so that a thread woken
 * at its turn returns without the domain lock: the reference to the task
 * is taken and the waiter unlinked first, then @w->woken is set with a
 * release store, and @w is not touched after it. The thread may return
 * from its system call as soon as it sees the mark, and its stack (the
 * waiter) with it; the reference keeps its task_struct for the wake-up
 * after the unlock, which then may find it running or asleep elsewhere:
 * a spurious wake-up, which every sleeper tolerates.
 */
static void domain_wake_waiter(struct ordsched_domain *dom,
			       struct domain_waiter *w, struct domain_wakes *wk)
{
	struct task_struct *task = w->task;

	dom->stats.wakeups++;
	get_task_struct(task);
	ordsched_domain_dequeue_waiter(w->h, w);
	/* Pairs with the sleeper's acquire load; the last access to @w. */
	smp_store_release(&w->woken, true);
	if (wk->n == DOMAIN_WAKES) {
		wake_up_process(task);
		put_task_struct(task);
		return;
	}
	wk->task[wk->n++] = task;
}

/**
 * ordsched_domain_wake() - wake the threads waiting for a ticket
 * @dom: the domain
 * @t: the ticket; nobody else is woken
 * @wk: where the threads go until ordsched_domain_wakes_flush()
 *
 * Dequeues each waiter it wakes and marks it woken: its thread must not
 * dequeue it again, and queues it again if it goes on waiting.
 *
 * Context: the domain lock held.
 */
void ordsched_domain_wake(struct ordsched_domain *dom, u64 t,
			  struct domain_wakes *wk)
{
	struct domain_waiter *w, *next;

	lockdep_assert_held(&dom->lock);
	list_for_each_entry_safe(w, next, &dom->waiters[t % DOMAIN_BUCKETS],
				 node)
		if (w->ticket == t)
			domain_wake_waiter(dom, w, wk);
}

/**
 * ordsched_domain_wake_ahead() - wake the threads waiting for the ticket
 *	after the tail, ahead of its turn
 * @dom: the domain
 * @t: the ticket; nobody else is woken
 * @wk: where the threads go until ordsched_domain_wakes_flush()
 *
 * Unlike ordsched_domain_wake(), leaves each waiter queued and unmarked:
 * its thread waits for the turn awake (ordsched_domain_spin_turn()), then
 * sleeps again as it is, and the turn's wake-up dequeues it as usual. So
 * a wake-up ahead never costs a waiter its place: it cannot be refused
 * (EBUSY) by the limits that a thread arriving meanwhile filled. Its
 * thread cannot leave the wait without the lock, which we hold, so the
 * task is alive while we take the reference for the wake-up.
 *
 * Context: the domain lock held.
 */
void ordsched_domain_wake_ahead(struct ordsched_domain *dom, u64 t,
				struct domain_wakes *wk)
{
	struct domain_waiter *w;

	lockdep_assert_held(&dom->lock);
	list_for_each_entry(w, &dom->waiters[t % DOMAIN_BUCKETS], node) {
		if (w->ticket != t)
			continue;
		dom->stats.wakeups++;
		if (wk->n == DOMAIN_WAKES) {
			wake_up_process(w->task);
			continue;
		}
		get_task_struct(w->task);
		wk->task[wk->n++] = w->task;
	}
}

/**
 * ordsched_domain_wakes_flush() - wake the threads ordsched_domain_wake()
 *	set aside
 * @wk: the threads, and their references, which are dropped
 *
 * Context: process context, the domain lock dropped.
 */
void ordsched_domain_wakes_flush(struct domain_wakes *wk)
{
	unsigned int i;

	for (i = 0; i < wk->n; i++) {
		wake_up_process(wk->task[i]);
		put_task_struct(wk->task[i]);
	}
	wk->n = 0;
}

/*
 * Wake the threads waiting for tickets @t to @t + @count - 1, which were
 * just retired: each bucket once, not once a ticket.
 */
static void domain_wake_range(struct ordsched_domain *dom, u64 t, u32 count,
			      struct domain_wakes *wk)
{
	struct domain_waiter *w, *next;
	u32 b;

	lockdep_assert_held(&dom->lock);
	for (b = 0; b < min_t(u32, count, DOMAIN_BUCKETS); b++) {
		list_for_each_entry_safe(w, next,
					 &dom->waiters[(t + b) % DOMAIN_BUCKETS],
					 node) {
			if (w->ticket - t < count)
				domain_wake_waiter(dom, w, wk);
		}
	}
}

/**
 * ordsched_domain_queue_waiter() - queue a waiter, within the limits
 * @h: the handle it waits with
 * @w: the waiter, its ticket and task set; not queued (never, or
 *	dequeued by a waker since: then marked woken)
 *
 * Clears @w->woken: a waker dequeues and marks it again. A new waiter is
 * let in within the limits and counted in them until its wait returns
 * (ordsched_domain_leave_waiter()), queued or not: a waiter a waker
 * dequeued (a RING_WAKE of a ticket not yet at the tail, say) is queued
 * again as it was let in, and the limits hold the threads in waits, not
 * only those in the buckets. A wait is refused only when it begins, not
 * after it slept.
 *
 * Context: the domain lock held.
 * Return: 0, or -EBUSY when @w is new and @h or its domain has as many
 * threads in waits as allowed.
 */
int ordsched_domain_queue_waiter(struct ordsched_handle *h,
				 struct domain_waiter *w)
{
	struct ordsched_domain *dom = h->dom;

	lockdep_assert_held(&dom->lock);
	if (!w->counted) {
		if (atomic_read(&h->waiting) >= ORDSCHED_MAX_WAITERS_HANDLE ||
		    atomic_read(&dom->waiting) >= ORDSCHED_MAX_WAITERS_DOMAIN)
			return -EBUSY;
		atomic_inc(&h->waiting);
		atomic_inc(&dom->waiting);
		w->counted = true;
	}
	w->h = h;
	w->woken = false;
	list_add_tail(&w->node, &dom->waiters[w->ticket % DOMAIN_BUCKETS]);
	return 0;
}

/**
 * ordsched_domain_dequeue_waiter() - take a waiter off its bucket
 * @h: the handle
 * @w: the waiter, still queued: not marked woken (a waker dequeued those)
 *
 * The wait still counts in the limits until ordsched_domain_leave_waiter().
 *
 * Context: the domain lock held.
 */
void ordsched_domain_dequeue_waiter(struct ordsched_handle *h,
				    struct domain_waiter *w)
{
	lockdep_assert_held(&h->dom->lock);
	list_del(&w->node);
}

/**
 * ordsched_domain_leave_waiter() - a wait let in returns
 * @h: the handle
 * @w: the waiter, not queued (dequeued by its thread or by a waker)
 *
 * Context: with or without the domain lock.
 */
void ordsched_domain_leave_waiter(struct ordsched_handle *h,
				  struct domain_waiter *w)
{
	if (!w->counted)
		return;
	w->counted = false;
	atomic_dec(&h->waiting);
	atomic_dec(&h->dom->waiting);
}

/* Ticket @t, which a handle holds, has just become the tail. */
static void domain_wake_turn(struct ordsched_domain *dom, u64 t,
			     struct domain_wakes *wk)
{
	struct ordsched_handle *h = (void *)*domain_slot(dom, t);

	ordsched_domain_wake(dom, t, wk);
	/* And the waiters of t + 1 ahead of their turn (see domain_sleep()). */
	if (t + 1 != dom->head)
		ordsched_domain_wake_ahead(dom, t + 1, wk);
	/*
	 * ordsched_domain_poll_wait() queues itself before it takes the
	 * lock to look at the tail, and we changed the tail under the lock:
	 * either it sees the new tail or we see it queued.
	 */
	if (waitqueue_active(&h->pollq))
		wake_up_interruptible_poll(&h->pollq, EPOLLIN | EPOLLRDNORM);
}

/* Move the tail over the retired tickets at its front. */
static void domain_advance(struct ordsched_domain *dom,
			   struct domain_wakes *wk)
{
	u64 t = dom->tail;
	unsigned long *slot;

	lockdep_assert_held(&dom->lock);
	while (t != dom->head) {
		slot = domain_slot(dom, t);
		if (*slot != SLOT_RETIRED)
			break;
		*slot = 0;
		t++;
	}
	if (t == dom->tail)
		return;
	/* Read without the lock by ordsched_domain_spin_turn(). */
	smp_store_release(&dom->tail, t);
	domain_publish(dom, ORDSCHED_STATUS_TAIL_OFFSET, t);
	if (t != dom->head)
		domain_wake_turn(dom, t, wk);
}

/**
 * ordsched_domain_take() - take consecutive tickets
 * @h: the handle that will hold them
 * @count: how many, 1 to ORDSCHED_DOMAIN_MAX_BATCH
 * @first: where to store the first
 *
 * Context: process context; takes the domain lock.
 * Return: 0, or -EAGAIN when @h would hold more than
 * ORDSCHED_DOMAIN_MAX_HELD tickets or the window is full.
 */
int ordsched_domain_take(struct ordsched_handle *h, u32 count, u64 *first)
{
	struct ordsched_domain *dom = h->dom;
	struct domain_wakes wk = {};
	u64 t;

	if (ordsched_domain_is_ring(dom))
		return ordsched_ring_dom_take(h, count, first);
	spin_lock(&dom->lock);
	/* Turned into a ring domain since the test above (ring.c). */
	if (dom->ring) {
		spin_unlock(&dom->lock);
		return ordsched_ring_dom_take(h, count, first);
	}
	if (h->held + count > ORDSCHED_DOMAIN_MAX_HELD ||
	    dom->head - dom->tail + count > ORDSCHED_DOMAIN_WINDOW) {
		dom->stats.full++;
		spin_unlock(&dom->lock);
		return -EAGAIN;
	}
	*first = dom->head;
	for (t = dom->head; t != dom->head + count; t++)
		*domain_slot(dom, t) = (unsigned long)h;
	dom->head += count;
	h->held += count;
	h->taken += count;
	dom->stats.taken += count;
	domain_publish(dom, ORDSCHED_STATUS_HEAD_OFFSET, dom->head);
	/* An empty window: the first new ticket's turn is now. */
	if (*first == dom->tail)
		domain_wake_turn(dom, *first, &wk);
	trace_ordsched_domain_take(dom->id, *first, count);
	spin_unlock(&dom->lock);
	ordsched_domain_wakes_flush(&wk);
	return 0;
}

/**
 * ordsched_domain_retire() - complete or trash consecutive tickets
 * @h: the handle that holds them
 * @ticket: the first
 * @count: how many, at least 1; @ticket + @count must not overflow
 * @how: ORDSCHED_RETIRE_COMPLETE or ORDSCHED_RETIRE_TRASH
 *
 * All or nothing: if one ticket is not held by @h, none is retired.
 *
 * Context: process context; takes the domain lock.
 * Return: 0; -EINVAL for a ticket never handed out, -EALREADY for one
 * already retired, -EPERM for one held by another handle.
 */
int ordsched_domain_retire(struct ordsched_handle *h, u64 ticket, u32 count,
			   enum ordsched_retire how)
{
	struct ordsched_domain *dom = h->dom;
	struct domain_wakes wk = {};
	int ret = 0;
	u64 t;

	/*
	 * A domain that turns into a ring domain after this test had handed
	 * out no ticket: the answer below (EINVAL) is the one of a call that
	 * came first. The same holds for the other commands.
	 */
	if (ordsched_domain_is_ring(dom))
		return ordsched_ring_dom_retire(h, ticket, count, how);
	spin_lock(&dom->lock);
	for (t = ticket; t != ticket + count; t++) {
		ret = domain_check(dom, h, t);
		if (ret)
			goto out;
	}
	for (t = ticket; t != ticket + count; t++)
		*domain_slot(dom, t) = SLOT_RETIRED;
	domain_wake_range(dom, ticket, count, &wk);
	h->held -= count;
	if (how == ORDSCHED_RETIRE_COMPLETE)
		dom->stats.completed += count;
	else
		dom->stats.trashed += count;
	trace_ordsched_domain_retire(dom->id, ticket, count, how);
	domain_advance(dom, &wk);
out:
	spin_unlock(&dom->lock);
	ordsched_domain_wakes_flush(&wk);
	return ret;
}

/**
 * ordsched_domain_deadline_passed() - has a wait's deadline passed?
 * @deadline_ns: absolute CLOCK_MONOTONIC deadline, or ORDSCHED_NO_DEADLINE
 *
 * Context: any context.
 * Return: true if it has.
 */
bool ordsched_domain_deadline_passed(u64 deadline_ns)
{
	return deadline_ns != ORDSCHED_NO_DEADLINE &&
	       ktime_get_ns() >= deadline_ns;
}

/**
 * ordsched_domain_schedule() - sleep until woken, a signal, or a deadline
 * @deadline_ns: absolute CLOCK_MONOTONIC deadline, or ORDSCHED_NO_DEADLINE
 *
 * Context: process context, the task state already set.
 */
void ordsched_domain_schedule(u64 deadline_ns)
{
	ktime_t expires;

	/* Past KTIME_MAX (about 292 years of uptime) is never. */
	if (deadline_ns > KTIME_MAX) {
		schedule();
		return;
	}
	expires = ns_to_ktime(deadline_ns);
	schedule_hrtimeout_range_clock(&expires, current->timer_slack_ns,
				       HRTIMER_MODE_ABS, CLOCK_MONOTONIC);
}

/**
 * ordsched_domain_spin_turn() - wait awake for the turn after the tail's
 * @tail: the domain's tail, read without its lock
 * @t: a ticket whose waiter was woken ahead of its turn
 * @deadline_ns: absolute CLOCK_MONOTONIC deadline, or ORDSCHED_NO_DEADLINE
 *
 * With more waiting threads than CPUs the owner of the next ticket is
 * asleep at every turn, and the turns form a chain of wake-ups, each a
 * whole wake-up latency (on an idle CPU, an IPI and its exit from idle)
 * while the CPUs mostly idle. So the wake-up at ticket t's turn also
 * wakes the waiter of t + 1, which waits for its turn here: it gets its
 * CPU while t's owner finishes. It spins while the tail is @t - 1 and
 * this CPU has nothing else to run, for at most DOMAIN_SPIN_NS, not past
 * @deadline_ns; then the caller looks at the tail again, and sleeps
 * again, still queued, if the turn has not come: an early wake-up is one
 * more spurious wake-up, and the waiter never returns before its turn.
 *
 * Context: process context, the task running, no lock held.
 */
void ordsched_domain_spin_turn(const u64 *tail, u64 t, u64 deadline_ns)
{
	u64 end = min(ktime_get_ns() + DOMAIN_SPIN_NS, deadline_ns);

	/* Pairs with the tail's release store (domain_advance()) or CAS. */
	while (smp_load_acquire(tail) == t - 1) {
		if (need_resched() || !single_task_running() ||
		    signal_pending(current) || ktime_get_ns() >= end)
			return;
		cpu_relax();
	}
}

/* Wait for @t, held by @h and not at the tail; called and returns locked. */
static int domain_sleep(struct ordsched_domain *dom, struct ordsched_handle *h,
			u64 t, u64 deadline_ns)
{
	struct domain_waiter w = { .task = current, .ticket = t };
	int ret;

	ret = ordsched_domain_queue_waiter(h, &w);
	if (ret)
		return ret;
	dom->stats.waits++;
	for (;;) {
		if (ordsched_domain_deadline_passed(deadline_ns)) {
			dom->stats.timeouts++;
			ret = -ETIMEDOUT;
			break;
		}
		if (signal_pending(current)) {
			dom->stats.interrupts++;
			ret = -ERESTARTSYS;
			break;
		}
		/*
		 * Set before the lock is dropped: whoever moves the tail to
		 * t does so under the lock, after this, and its
		 * wake-up (after it drops the lock) makes the schedule below
		 * return, or finds us running: then the loop looks again.
		 */
		set_current_state(TASK_INTERRUPTIBLE);
		spin_unlock(&dom->lock);
		ordsched_domain_schedule(deadline_ns);
		spin_lock(&dom->lock);
		ret = domain_check(dom, h, t);
		if (ret || t == dom->tail)
			break;
		/*
		 * Not the turn: woken ahead of it, still queued
		 * (ordsched_domain_wake_ahead()), or for nothing. Wait awake
		 * if it is next, then sleep again.
		 */
		if (dom->tail == t - 1) {
			spin_unlock(&dom->lock);
			ordsched_domain_spin_turn(&dom->tail, t, deadline_ns);
			spin_lock(&dom->lock);
			ret = domain_check(dom, h, t);
			if (ret || t == dom->tail)
				break;
		}
		/*
		 * Dequeued by a waker (set under the lock, which we hold),
		 * yet neither the turn nor retired: for robustness only.
		 * Queueing again cannot fail: the wait was let in.
		 */
		if (w.woken)
			ordsched_domain_queue_waiter(h, &w);
	}
	if (!w.woken)
		ordsched_domain_dequeue_waiter(h, &w);
	ordsched_domain_leave_waiter(h, &w);
	return ret;
}

/**
 * ordsched_domain_wait() - wait for the turn of a ticket
 * @h: the handle that holds it
 * @ticket: the ticket
 * @deadline_ns: absolute CLOCK_MONOTONIC deadline, or ORDSCHED_NO_DEADLINE
 *
 * Sleeps interruptibly, on an hrtimer when there is a deadline.
 *
 * Context: process context; may sleep.
 * Return: 0 when @ticket is the tail; -ETIMEDOUT; -ERESTARTSYS on a
 * signal; the errors of ordsched_domain_retire() for a ticket @h does not
 * hold, also when it is retired during the wait.
 */
int ordsched_domain_wait(struct ordsched_handle *h, u64 ticket,
			 u64 deadline_ns)
{
	struct ordsched_domain *dom = h->dom;
	int ret;

	if (ordsched_domain_is_ring(dom))
		return ordsched_ring_dom_wait(h, ticket, deadline_ns);
	spin_lock(&dom->lock);
	ret = domain_check(dom, h, ticket);
	if (!ret && ticket != dom->tail) {
		ret = domain_sleep(dom, h, ticket, deadline_ns);
		trace_ordsched_domain_wait(dom->id, ticket, ret);
	}
	spin_unlock(&dom->lock);
	return ret;
}

/**
 * ordsched_domain_turn() - is it the turn of a ticket of this handle?
 * @h: the handle
 *
 * The tail is the oldest live ticket, so when @h holds it, it is also
 * the oldest ticket @h holds: the one @h waits for.
 *
 * Context: process context; takes the domain lock.
 * Return: true if @h holds the tail.
 */
bool ordsched_domain_turn(struct ordsched_handle *h)
{
	struct ordsched_domain *dom = h->dom;
	bool turn;

	if (ordsched_domain_is_ring(dom))
		return ordsched_ring_dom_turn(h);
	spin_lock(&dom->lock);
	turn = dom->tail != dom->head &&
	       *domain_slot(dom, dom->tail) == (unsigned long)h;
	spin_unlock(&dom->lock);
	return turn;
}

/**
 * ordsched_domain_poll_wait() - queue a poll() on the handle's turn
 * @h: the handle
 * @file: its file
 * @pt: the poll table
 *
 * Call before ordsched_domain_turn(), see domain_wake_turn().
 *
 * Context: process context.
 */
void ordsched_domain_poll_wait(struct ordsched_handle *h, struct file *file,
			       poll_table *pt)
{
	poll_wait(file, &h->pollq, pt);
}

/**
 * ordsched_domain_get_stats() - what a domain and a handle have done
 * @h: the handle
 * @st: filled in; the caller zeroes it first
 *
 * Context: process context; takes the domain lock.
 */
void ordsched_domain_get_stats(struct ordsched_handle *h,
			       struct ordsched_stats *st)
{
	struct ordsched_domain *dom = h->dom;

	spin_lock(&dom->lock);
	st->handles = dom->handles;
	st->domain_id = dom->id;
	st->tail = dom->tail;
	st->head = dom->head;
	st->taken = dom->stats.taken;
	st->completed = dom->stats.completed;
	st->trashed = dom->stats.trashed;
	st->released = dom->stats.released;
	st->waits = dom->stats.waits;
	st->wakeups = dom->stats.wakeups;
	st->timeouts = dom->stats.timeouts;
	st->interrupts = dom->stats.interrupts;
	st->full = dom->stats.full;
	st->deferred = dom->stats.deferred;
	st->held = h->held;
	st->handle_taken = h->taken;
	spin_unlock(&dom->lock);
	if (ordsched_domain_is_ring(dom))
		ordsched_ring_dom_stats(h, st);
}

/**
 * ordsched_domain_status_page() - the page userspace maps read-only
 * @h: a handle of the domain
 *
 * Context: any context.
 * Return: the page; it lives as long as the domain, longer if mapped.
 */
struct page *ordsched_domain_status_page(struct ordsched_handle *h)
{
	return h->dom->status_page;
}

/*
 * Live domains by id. An id is unique among them (a 32-bit id from a
 * global counter would collide after 2^32 opens), given cyclically so
 * that traces rarely see one reused; the debugfs file "domains" looks
 * at them one at a time under the xarray's lock, which domain_free()
 * takes to erase one.
 * Lock order: the xarray's, then a domain's.
 */
static DEFINE_XARRAY_ALLOC1(domain_ids);
static u32 domain_next_id;

/* One domain in "domains", as it was at one moment. */
struct domain_snap {
	char comm[TASK_COMM_LEN];
	u32 id;
	unsigned int handles;
	u64 tail, head;
	struct domain_counters c;
};

/* Called under the xarray's lock, which keeps @dom from being freed. */
static void domain_snapshot(struct ordsched_domain *dom, struct domain_snap *s)
{
	spin_lock(&dom->lock);
	s->c = dom->stats;
	s->tail = dom->tail;
	s->head = dom->head;
	s->handles = dom->handles;
	spin_unlock(&dom->lock);
	/* A ring domain's are in the page: whatever userspace wrote there. */
	if (ordsched_domain_is_ring(dom)) {
		s->tail = READ_ONCE(*(u64 *)((char *)dom->status +
					     ORDSCHED_STATUS_TAIL_OFFSET));
		s->head = READ_ONCE(*(u64 *)((char *)dom->status +
					     ORDSCHED_STATUS_HEAD_OFFSET));
	}
	memcpy(s->comm, dom->comm, sizeof(s->comm));
	s->id = dom->id;
}

static void domain_show(struct seq_file *m, const struct domain_snap *s)
{
	seq_printf(m, "%s.%u:\n", s->comm, s->id);
	seq_printf(m, "  handles %u\n  tail %llu\n  head %llu\n", s->handles,
		   s->tail, s->head);
	seq_printf(m, "  taken %llu\n  completed %llu\n  trashed %llu\n  released %llu\n",
		   s->c.taken, s->c.completed, s->c.trashed, s->c.released);
	seq_printf(m, "  waits %llu\n  wakeups %llu\n  timeouts %llu\n  interrupts %llu\n",
		   s->c.waits, s->c.wakeups, s->c.timeouts, s->c.interrupts);
	seq_printf(m, "  full %llu\n  deferred %llu\n", s->c.full, s->c.deferred);
}

/*
 * The debugfs file "domains": every live domain, in the order of ids. One
 * at a time under the xarray's lock, printed after it is dropped: every
 * open makes a domain, so users decide how many there are, and a walk of
 * them all under one spinlock would be as long as they like.
 */
static int domains_show(struct seq_file *m, void *unused)
{
	struct ordsched_domain *dom;
	struct domain_snap s;
	unsigned long id = 0;

	for (;;) {
		xa_lock(&domain_ids);
		dom = xa_find(&domain_ids, &id, ULONG_MAX, XA_PRESENT);
		if (dom)
			domain_snapshot(dom, &s);
		xa_unlock(&domain_ids);
		/* Full: seq_file calls again with a larger buffer. */
		if (!dom || seq_has_overflowed(m))
			return 0;
		domain_show(m, &s);
		id++;
		cond_resched();
	}
}
DEFINE_SHOW_ATTRIBUTE(domains);

/**
 * ordsched_domain_debugfs_init() - create the debugfs file "domains"
 *
 * One file for every domain, not an entry per open: opens neither
 * serialize on a debugfs directory nor leave entries named by users.
 *
 * Context: process context, after ordsched_debugfs_init().
 */
void ordsched_domain_debugfs_init(void)
{
	ordsched_debugfs_create_file("domains", &domains_fops);
}

static struct ordsched_handle *handle_alloc(struct ordsched_domain *dom)
{
	struct ordsched_handle *h = kzalloc(sizeof(*h), GFP_KERNEL_ACCOUNT);

	if (!h)
		return NULL;
	h->dom = dom;
	init_waitqueue_head(&h->pollq);
	return h;
}

static void domain_init_status(struct ordsched_domain *dom)
{
	struct ordsched_status *st = dom->status;

	st->version = ORDSCHED_API_VERSION;
	st->size = PAGE_SIZE;
	st->features = ORDSCHED_DOMAIN_FEATURES;
	st->window = ORDSCHED_DOMAIN_WINDOW;
	st->tail_offset = ORDSCHED_STATUS_TAIL_OFFSET;
	st->head_offset = ORDSCHED_STATUS_HEAD_OFFSET;
}

/* Name the domain after its opener, in characters "domains" keeps plain. */
static void domain_name(struct ordsched_domain *dom)
{
	char *c;

	get_task_comm(dom->comm, current);
	for (c = dom->comm; *c; c++)
		if (!isalnum(*c) && *c != '-' && *c != '_')
			*c = '_';
}

static void domain_free(struct ordsched_domain *dom)
{
	xa_erase(&domain_ids, dom->id);
	xa_destroy(&dom->ids);
	__free_page(dom->status_page);
	kvfree(dom->slots);
	kfree(dom);
}

/**
 * ordsched_domain_create() - a new domain and its first handle
 *
 * Memory is charged to the caller's memory cgroup.
 *
 * Context: process context; may sleep.
 * Return: the handle, or NULL when out of memory.
 */
struct ordsched_handle *ordsched_domain_create(void)
{
	struct ordsched_domain *dom;
	struct ordsched_handle *h;
	int i;

	dom = kzalloc(sizeof(*dom), GFP_KERNEL_ACCOUNT);
	if (!dom)
		return NULL;
	dom->slots = kvcalloc(ORDSCHED_DOMAIN_WINDOW, sizeof(*dom->slots),
			      GFP_KERNEL_ACCOUNT);
	if (!dom->slots)
		goto err_dom;
	dom->status_page = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
	if (!dom->status_page)
		goto err_slots;
	h = handle_alloc(dom);
	if (!h)
		goto err_page;

	spin_lock_init(&dom->lock);
	for (i = 0; i < DOMAIN_BUCKETS; i++)
		INIT_LIST_HEAD(&dom->waiters[i]);
	dom->handles = 1;
	refcount_set(&dom->ref, 1);
	xa_init_flags(&dom->ids, XA_FLAGS_ALLOC1);
	INIT_WORK(&dom->advance_work, ordsched_ring_advance_work);
	dom->status = page_address(dom->status_page);
	domain_init_status(dom);
	domain_name(dom);
	/* Listed once it is whole. */
	if (xa_alloc_cyclic(&domain_ids, &dom->id, dom, xa_limit_32b,
			    &domain_next_id, GFP_KERNEL_ACCOUNT) < 0)
		goto err_handle;
	return h;

err_handle:
	kfree(h);
err_page:
	__free_page(dom->status_page);
err_slots:
	kvfree(dom->slots);
err_dom:
	kfree(dom);
	return NULL;
}

/**
 * ordsched_handle_create() - another handle on the domain of a handle
 * @h: the existing handle
 *
 * The new handle is not counted in the domain's handles until
 * ordsched_handle_publish(); until then ordsched_handle_discard() drops it.
 *
 * Context: process context; may sleep.
 * Return: the new handle, holding no ticket, or NULL when out of memory.
 */
struct ordsched_handle *ordsched_handle_create(struct ordsched_handle *h)
{
	struct ordsched_domain *dom = h->dom;
	struct ordsched_handle *nh = handle_alloc(dom);

	if (!nh)
		return NULL;
	refcount_inc(&dom->ref);
	return nh;
}

/**
 * ordsched_handle_publish() - a handle from ordsched_handle_create() is
 * about to reach userspace
 * @h: the new handle
 *
 * From now on it counts in the domain's handles, which has had a second
 * one and can no longer become a ring domain (ORDSCHED_IOC_RING_SETUP
 * answers EBUSY); ordsched_handle_release() ends it.
 *
 * Context: process context; takes the domain lock.
 */
void ordsched_handle_publish(struct ordsched_handle *h)
{
	struct ordsched_domain *dom = h->dom;

	spin_lock(&dom->lock);
	/* Also read without the lock (ring.c): one store. */
	WRITE_ONCE(dom->handles, dom->handles + 1);
	dom->shared = true;
	spin_unlock(&dom->lock);
}

/**
 * ordsched_handle_discard() - drop a handle that never reached userspace
 * @h: a handle from ordsched_handle_create(), not published (its
 *	descriptor could not be made)
 *
 * It held nothing and was never counted: it leaves no trace, no release
 * of a ring domain's slots, no wake-up.
 *
 * Context: process context.
 */
void ordsched_handle_discard(struct ordsched_handle *h)
{
	struct ordsched_domain *dom = h->dom;

	kfree(h);
	ordsched_domain_put(dom);
}

/* Trash every ticket @h holds: nobody waits for a handle that is gone. */
static void domain_release_tickets(struct ordsched_domain *dom,
				   struct ordsched_handle *h,
				   struct domain_wakes *wk)
{
	unsigned int n = h->held;
	unsigned long *slot;
	u64 t;

	for (t = dom->tail; t != dom->head && h->held; t++) {
		slot = domain_slot(dom, t);
		if (*slot != (unsigned long)h)
			continue;
		*slot = SLOT_RETIRED;
		h->held--;
	}
	dom->stats.released += n;
	trace_ordsched_domain_release(dom->id, n);
	domain_advance(dom, wk);
}

/**
 * ordsched_handle_release() - the last reference to a handle is gone
 * @h: the handle
 *
 * Trashes the tickets @h holds, frees it, and frees the domain with its
 * last reference (its last handle, or a ring advance still queued).
 * Nobody can be waiting on @h: a waiter holds a reference to its file.
 *
 * Context: process context.
 */
void ordsched_handle_release(struct ordsched_handle *h)
{
	struct ordsched_domain *dom = h->dom;
	struct domain_wakes wk = {};

	/* Trashes its slots and forgets its id: see ring.c. */
	if (ordsched_domain_is_ring(dom))
		ordsched_ring_dom_release(h);
	spin_lock(&dom->lock);
	if (h->held)
		domain_release_tickets(dom, h, &wk);
	WRITE_ONCE(dom->handles, dom->handles - 1);
	spin_unlock(&dom->lock);
	ordsched_domain_wakes_flush(&wk);
	kfree(h);
	ordsched_domain_put(dom);
}

/**
 * ordsched_domain_put() - drop a reference to a domain
 * @dom: the domain, freed with its last reference
 *
 * Context: process context.
 */
void ordsched_domain_put(struct ordsched_domain *dom)
{
	if (refcount_dec_and_test(&dom->ref))
		domain_free(dom);
}
