// SPDX-License-Identifier: GPL-2.0
/*
 * The shared ticket ring of /dev/ordsched (ORDSCHED_FEAT_RING): the kernel
 * side of uapi/linux/ordsched_ring.h. The protocol is module/ring_proto.h,
 * argued there and model-checked by selftests/ordsched/ring_check.c; this
 * file gives it its kernel primitives and answers the commands of a ring
 * domain with it.
 *
 * The ring page is the domain's status page. The kernel never trusts it:
 * it reaches the page through page_address() and offsets of its own, never
 * through a value read from the page, masks every slot index with the
 * slot count it chose (ring_view()), and only compares what it reads. Its
 * loops over the page are bounded: take and retire (the ioctl path) give
 * up after ORDSCHED_RING_RETRIES changes of the page under them, and the
 * advances run with a budget: what is left
 * goes to the domain's work item, one budget per run, which gives up when
 * the domain has no handle left.
 *
 * Waiting reuses the domain's waiter buckets (domain.c). Race (b) of
 * ring_proto.h, the kernel's half: a waiter is queued, its task state set
 * and the tail read in one section under the domain lock; a waker moves
 * the tail (a fully ordered CAS) and then takes the same lock to walk the
 * bucket. If the waker's section comes after the waiter's, it finds the
 * waiter queued and in TASK_INTERRUPTIBLE, dequeues it and wakes it; if
 * before, the lock orders the tail move before the waiter's read, which
 * sees its turn. The waker dequeues (domain.c): a thread woken at its
 * turn returns without taking the lock again (ring_sleep()).
 *
 * Ids: each handle that takes part gets an id, 1 to 0xffff, the first time
 * it needs one (ORDSCHED_IOC_RING_SETUP, or a command of the ioctl path);
 * the domain's xarray maps it back to the handle for the poll() wake-up.
 * A released handle's id is erased with the domain lock held, after the
 * release trashed the handle's slots and before the handle is freed: a
 * waker that finds the handle under the lock finds it alive. (An id given
 * back at once, by a setup answering EBUSY or the loser of two threads
 * asking for one, maps the caller's own live handle.) A forged id in the
 * page only wakes the wrong poller, which looks again.
 *
 * Waking ahead. When more threads wait than there are CPUs, the owner of
 * the next ticket is asleep at every turn, and the turns form a chain of
 * wake-ups: the mover wakes the owner of the new tail, which gets a CPU
 * (often an idle one, after an IPI), commits, and wakes the next. Each
 * link costs a whole wake-up latency, with the CPUs mostly idle. So
 * ring_wake(), called by the mover onto @t, also wakes the sleepers of
 * @t + 1, if its slot is flagged SLEEPING: they get their CPU while @t's
 * owner commits, and wait for the turn in ordsched_domain_spin_turn()
 * (domain.c), spinning in the kernel while the tail is one before their
 * ticket and their CPU has nothing else to run, for at most
 * DOMAIN_SPIN_NS. The ioctl path's domains do the same. A thread woken ahead
 * never returns before its turn: it re-checks as after any wake-up, and
 * goes back to sleep if the turn does not come. It stays queued all the
 * while (ordsched_domain_wake_ahead() does not dequeue), so it keeps its
 * place within the limits on sleepers, and its slot keeps its SLEEPING
 * flag (the library takes it back only when the wait returns): whoever
 * moves the tail onto it still enters the kernel and wakes it, asleep or
 * awake. An early wake-up is the spurious wake-up every sleeper already
 * tolerates. Measured with `make bench`
 * (2 vCPUs, T = 4 and 8 threads, 1 and 10 us of work): 1.4-2.8x the
 * items/s of the hand-written futex ring, where it was 0.55-0.85x.
 *
 * The ioctl path: the kernel takes with the handle's id and flags the slot
 * SLEEPING at once, and for good: whoever moves the tail onto such a ticket
 * enters the kernel to wake it, so ORDSCHED_IOC_WAIT and poll() work for a
 * ticket that an old binary took, at the price of a system call for the
 * mover, which an old binary pays anyway.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/errno.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <uapi/linux/ordsched_ring.h>

#include "domain.h"

static void ring_wake(void *ctx, u64 t);

/* The kernel never sleeps through ordsched_ring_wait(): see below. */
static inline int ring_no_sleep(void *ctx, u64 t)
{
	return -EINVAL;
}

/* Fully ordered on success, as the protocol needs; the result may be ignored. */
static inline bool ring_cas(u64 *p, u64 old, u64 new)
{
	return try_cmpxchg64(p, &old, new);
}

/*
 * The primitives ring_proto.h asks for: fully ordered CAS, acquire loads.
 * The kernel never calls ordsched_ring_wait() (userspace's), whose sleep
 * is ORDSCHED_IOC_RING_WAIT: RING_SLEEP only has to compile.
 */
#define ORDSCHED_RING_LOAD(p)		smp_load_acquire(p)
#define ORDSCHED_RING_CAS(p, old, new)	ring_cas((p), (old), (new))
#define ORDSCHED_RING_WAKE(ctx, t)	ring_wake((ctx), (t))
#define ORDSCHED_RING_SLEEP(ctx, t)	ring_no_sleep((ctx), (t))
#define ORDSCHED_RING_RELAX()		cpu_relax()
/* Contention alone fails a CAS only when another succeeds: generous. */
#define ORDSCHED_RING_RETRIES		1024

#include "ring_proto.h"

/* A page is at least 4 KiB: at least 256 slots after the offset. */
static_assert(ORDSCHED_RING_HDR_OFFSET + sizeof(struct ordsched_ring_hdr) <=
	      ORDSCHED_STATUS_TAIL_OFFSET);
static_assert(ORDSCHED_STATUS_HEAD_OFFSET + 128 <= ORDSCHED_RING_SLOTS_OFFSET);
static_assert(sizeof(struct ordsched_ring_hdr) == 32);
static_assert(sizeof(struct ordsched_ring_setup) == 48);
static_assert(sizeof(struct ordsched_ring_wait) == 24);
static_assert(sizeof(struct ordsched_ring_wake) == 16);

/*
 * The most slots one advance looks at; the work item does the rest. A
 * fraction of the slots, so that a release or a retirement in a system
 * call stays short and the work item is a path that runs (a dead handle
 * that held a quarter of the window), not one that only a scribbler
 * reaches.
 */
#define RING_BUDGET	64

/*
 * The work item's pace, past the runs that pass over every slot once:
 * then only a scribbler (who writes retired words ahead of the tail as
 * fast as the kernel frees them), or early retirements that keep coming
 * ahead of it, keep it going, in a worker whose time no cgroup pays for.
 * Each further run first sleeps this long: at most a budget of slots a
 * millisecond, against the scribbler's store a slot.
 */
#define RING_PACE_US	1000

static unsigned int ring_budget(struct ordsched_domain *dom)
{
	return min_t(unsigned int, RING_BUDGET, dom->ring_slots);
}

/* Runs of the work item in a row at full speed: once over every slot. */
static unsigned int ring_fast_runs(struct ordsched_domain *dom)
{
	return dom->ring_slots / ring_budget(dom) + 1;
}

/* The kernel's view of the page: its own pointers and mask, trusted. */
static void ring_view(struct ordsched_domain *dom, struct ordsched_ring_view *r)
{
	char *page = (char *)dom->status;

	r->tail = (u64 *)(page + ORDSCHED_STATUS_TAIL_OFFSET);
	r->head = (u64 *)(page + ORDSCHED_STATUS_HEAD_OFFSET);
	r->slots = (u64 *)(page + ORDSCHED_RING_SLOTS_OFFSET);
	r->mask = dom->ring_slots - 1;
}

/*
 * ORDSCHED_RING_WAKE: wake the waiters of @t and poll() on the handle that
 * owns it, and at @t's turn the waiters of @t + 1 ahead of theirs (see
 * "Waking ahead" at the top). The slot words are only hints: a stale or
 * forged owner wakes a poller that looks again and finds nothing, a
 * forged SLEEPING flag a waiter that spins a little and sleeps again.
 */
static void ring_wake(void *ctx, u64 t)
{
	struct ordsched_domain *dom = ctx;
	struct domain_wakes wk = {};
	struct ordsched_ring_view r;
	struct ordsched_handle *h;
	u64 w, next;

	ring_view(dom, &r);
	spin_lock(&dom->lock);
	ordsched_domain_wake(dom, t, &wk);
	/*
	 * The turn of @t: wake the owner of @t + 1 ahead, if it sleeps. Not
	 * when @t is retired: this is the wake-up of a retirement at the
	 * tail, whose advance is about to wake @t + 1 at its turn (woken
	 * twice, its waiter would count twice in the stats).
	 */
	w = ORDSCHED_RING_LOAD(ordsched_ring_slot(&r, t));
	if (ORDSCHED_RING_LOAD(r.tail) == t &&
	    !(ordsched_ring_diff(w, t) == 0 &&
	      ordsched_ring_state(w) == ORDSCHED_RING_RETIRED)) {
		next = ORDSCHED_RING_LOAD(ordsched_ring_slot(&r, t + 1));
		if (ordsched_ring_diff(next, t + 1) == 0 &&
		    ordsched_ring_state(next) == ORDSCHED_RING_SLEEPING)
			ordsched_domain_wake_ahead(dom, t + 1, &wk);
	}
	if (ordsched_ring_diff(w, t) == 0 && ordsched_ring_owned(w)) {
		h = xa_load(&dom->ids, ordsched_ring_owner(w));
		/*
		 * wq_has_sleeper()'s full barrier orders the tail move before
		 * the look at the poll queue; poll() queues itself, then has
		 * one before it reads the tail (ordsched_ring_dom_turn()):
		 * either it sees the new tail or we see it queued. Most
		 * wakes find nobody polling, and skip the queue's lock.
		 */
		if (h && wq_has_sleeper(&h->pollq))
			wake_up_interruptible_poll(&h->pollq,
						   EPOLLIN | EPOLLRDNORM);
	}
	spin_unlock(&dom->lock);
	ordsched_domain_wakes_flush(&wk);
}

/* The advances left over; destroyed (drained) at module exit. */
static struct workqueue_struct *ring_wq;

/* Go on advancing later, holding a reference to the domain. */
static void ring_queue_advance(struct ordsched_domain *dom)
{
	refcount_inc(&dom->ref);
	if (!queue_work(ring_wq, &dom->advance_work))
		ordsched_domain_put(dom);
}

/* Advance with a budget, waking as ordsched_ring_advance() does. */
static void ring_advance(struct ordsched_domain *dom, bool moved)
{
	struct ordsched_ring_view r;

	ring_view(dom, &r);
	if (!ordsched_ring_advance(&r, ring_budget(dom), moved, dom))
		ring_queue_advance(dom);
}

/**
 * ordsched_ring_advance_work() - advance the tail of a ring domain, later
 * @work: the domain's advance_work
 *
 * One budget per run; requeues itself while the budget runs out and the
 * domain has handles: with none left, nobody waits for the tail, and
 * only a scribbler could keep it moving. Past ring_fast_runs() runs in a
 * row, each sleeps RING_PACE_US first. A work item never runs twice at
 * once, so @advance_chain is only its own.
 *
 * Context: process context (a workqueue); holds a domain reference.
 */
void ordsched_ring_advance_work(struct work_struct *work)
{
	struct ordsched_domain *dom = container_of(work, struct ordsched_domain,
						   advance_work);
	struct ordsched_ring_view r;
	bool again;

	if (dom->advance_chain >= ring_fast_runs(dom))
		usleep_range(RING_PACE_US, 2 * RING_PACE_US);
	spin_lock(&dom->lock);
	dom->stats.deferred++;
	spin_unlock(&dom->lock);
	ring_view(dom, &r);
	again = !ordsched_ring_advance(&r, ring_budget(dom), true, dom) &&
		READ_ONCE(dom->handles);
	if (again) {
		dom->advance_chain++;
		ring_queue_advance(dom);
	} else {
		dom->advance_chain = 0;
	}
	ordsched_domain_put(dom);
}

/* The handle's id, given on first use. */
static int ring_id(struct ordsched_handle *h, u32 *id)
{
	struct ordsched_domain *dom = h->dom;
	u32 new;
	int ret;

	*id = READ_ONCE(h->ring_id);
	if (*id)
		return 0;
	ret = xa_alloc(&dom->ids, &new, h,
		       XA_LIMIT(1, ORDSCHED_RING_ID_MASK), GFP_KERNEL_ACCOUNT);
	if (ret)
		return ret == -EBUSY ? -ENOSPC : ret;
	/* Another thread of the handle was faster: keep its id. */
	*id = cmpxchg(&h->ring_id, 0, new);
	if (*id) {
		xa_erase(&dom->ids, new);
		return 0;
	}
	*id = new;
	return 0;
}

/* Lay the ring out in the status page; the domain has no ticket yet. */
static void ring_init_page(struct ordsched_domain *dom)
{
	struct ordsched_ring_hdr *hdr = (void *)((char *)dom->status +
						 ORDSCHED_RING_HDR_OFFSET);
	u64 *slots = (u64 *)((char *)dom->status + ORDSCHED_RING_SLOTS_OFFSET);
	u32 i, n;

	n = rounddown_pow_of_two((PAGE_SIZE - ORDSCHED_RING_SLOTS_OFFSET) /
				 sizeof(u64));
	hdr->version = ORDSCHED_RING_VERSION;
	hdr->size = PAGE_SIZE;
	hdr->slots = n;
	hdr->head_offset = ORDSCHED_STATUS_HEAD_OFFSET;
	hdr->tail_offset = ORDSCHED_STATUS_TAIL_OFFSET;
	hdr->slots_offset = ORDSCHED_RING_SLOTS_OFFSET;
	for (i = 0; i < n; i++)
		slots[ORDSCHED_RING_INDEX(i, n)] =
			ORDSCHED_RING_WORD(i, 0, ORDSCHED_RING_FREE);
	dom->status->window = n;
	dom->ring_slots = n;
}

/**
 * ordsched_ring_dom_setup() - ORDSCHED_IOC_RING_SETUP
 * @h: the handle
 * @setup: filled in but for @setup->flags
 *
 * Turns the domain into a ring domain if it is not one yet and may still
 * become one: @h must be its only handle ever, and it must not have handed
 * out a ticket. Then gives @h its id.
 *
 * Context: process context; takes the domain lock; may sleep.
 * Return: 0; -EBUSY when the domain cannot become a ring domain; -ENOSPC
 * when it has no free id; -ENOMEM.
 */
int ordsched_ring_dom_setup(struct ordsched_handle *h,
			    struct ordsched_ring_setup *setup)
{
	struct ordsched_domain *dom = h->dom;
	bool busy;
	u32 id;
	int ret;

	/*
	 * The id first: the domain turns into a ring domain for good, so
	 * nothing may fail after that (ENOMEM, ENOSPC). The domain's ids
	 * are not used before it has a ring.
	 */
	ret = ring_id(h, &id);
	if (ret)
		return ret;
	spin_lock(&dom->lock);
	busy = !dom->ring && (dom->shared || dom->head);
	if (!dom->ring && !busy) {
		ring_init_page(dom);
		/* Pairs with ordsched_domain_is_ring(): the page is laid out. */
		smp_store_release(&dom->ring, true);
	}
	spin_unlock(&dom->lock);
	if (busy) {
		/* Never a ring domain: every thread of @h gets here. */
		if (cmpxchg(&h->ring_id, id, 0) == id)
			xa_erase(&dom->ids, id);
		return -EBUSY;
	}
	setup->id = id;
	setup->mmap_offset = (u64)ORDSCHED_RING_PGOFF << PAGE_SHIFT;
	setup->size = PAGE_SIZE;
	setup->slots = dom->ring_slots;
	setup->head_offset = ORDSCHED_STATUS_HEAD_OFFSET;
	setup->tail_offset = ORDSCHED_STATUS_TAIL_OFFSET;
	setup->slots_offset = ORDSCHED_RING_SLOTS_OFFSET;
	memset(setup->reserved, 0, sizeof(setup->reserved));
	return 0;
}

/**
 * ordsched_ring_dom_take() - ORDSCHED_IOC_TAKE in a ring domain
 * @h: the handle
 * @count: 1; a batch cannot be claimed at once in the ring
 * @first: where to store the ticket
 *
 * Context: process context; may sleep.
 * Return: 0; -EINVAL when @count is not 1; -EAGAIN when the window is
 * full; -EIO when the page was scribbled on; -ENOSPC, -ENOMEM (no id).
 */
int ordsched_ring_dom_take(struct ordsched_handle *h, u32 count, u64 *first)
{
	struct ordsched_domain *dom = h->dom;
	struct ordsched_ring_view r;
	u64 t;
	u32 id;
	int ret;

	if (count != 1)
		return -EINVAL;
	ret = ring_id(h, &id);
	if (ret)
		return ret;
	ring_view(dom, &r);
	ret = ordsched_ring_take(&r, id, &t);
	spin_lock(&dom->lock);
	if (ret == -EAGAIN)
		dom->stats.full++;
	if (!ret) {
		dom->stats.taken++;
		h->taken++;
	}
	spin_unlock(&dom->lock);
	if (ret)
		return ret;
	/* Have the mover of the tail onto t wake us: see the top. */
	ORDSCHED_RING_CAS(ordsched_ring_slot(&r, t),
			  ordsched_ring_word(t, id, ORDSCHED_RING_OWNED),
			  ordsched_ring_word(t, id, ORDSCHED_RING_SLEEPING));
	/* An empty window: the turn is now, for a poll() queued already. */
	if (ORDSCHED_RING_LOAD(r.tail) == t)
		ring_wake(dom, t);
	*first = t;
	return 0;
}

/* Is @t owned by @id and not passed? As ordsched_ring_check_live(). */
static int ring_check(struct ordsched_domain *dom, u32 id, u64 t)
{
	struct ordsched_ring_view r;

	ring_view(dom, &r);
	return ordsched_ring_check_live(&r, t, id);
}

/**
 * ordsched_ring_dom_retire() - complete or trash tickets in a ring domain
 * @h: the handle that holds them
 * @ticket: the first
 * @count: how many, at least 1
 * @how: ORDSCHED_RETIRE_COMPLETE or ORDSCHED_RETIRE_TRASH
 *
 * All or nothing against everybody but the handle's own threads: each
 * ticket is checked first, then each is retired; another thread of @h
 * retiring one of them meanwhile makes this stop with EALREADY.
 *
 * Context: process context; may sleep.
 * Return: as ordsched_domain_retire().
 */
int ordsched_ring_dom_retire(struct ordsched_handle *h, u64 ticket, u32 count,
			     enum ordsched_retire how)
{
	struct ordsched_domain *dom = h->dom;
	struct ordsched_ring_view r;
	int ret = 0;
	u32 id, i;

	ret = ring_id(h, &id);
	if (ret)
		return ret;
	ring_view(dom, &r);
	for (i = 0; i < count; i++) {
		ret = ring_check(dom, id, ticket + i);
		if (ret)
			return ret;
	}
	for (i = 0; i < count && !ret; i++) {
		ret = ordsched_ring_retire(&r, id, ticket + i, dom);
		/* Up to ORDSCHED_RING_RETRIES each against a scribbler. */
		cond_resched();
	}
	/* Race (a): pairs with the tail CAS in ordsched_ring_advance(). */
	ring_advance(dom, false);
	spin_lock(&dom->lock);
	if (how == ORDSCHED_RETIRE_COMPLETE)
		dom->stats.completed += i - !!ret;
	else
		dom->stats.trashed += i - !!ret;
	spin_unlock(&dom->lock);
	return ret;
}

/*
 * Sleep until @t is the tail; the slot is flagged SLEEPING or not.
 *
 * One section under the domain lock queues the waiter, sets the task
 * state and looks at the turn (race (b), see the top), and counts the
 * wait if it has to sleep. A waker that finds the waiter dequeues it and
 * marks it woken (domain.c, domain_wake_waiter()): a thread woken at its
 * turn sees the mark and returns without the lock, one lock round per
 * sleep and one per wake-up, as a futex has. Only a thread that leaves
 * for another reason (its deadline, a signal, a wake-up for nothing)
 * takes the lock again: to dequeue itself, unless a waker did it
 * meanwhile, or to queue again.
 */
static int ring_sleep(struct ordsched_handle *h, u32 id, u64 t,
		      u64 deadline_ns)
{
	struct ordsched_domain *dom = h->dom;
	struct domain_waiter w = { .task = current, .ticket = t };
	struct ordsched_ring_view r;
	bool queued = false, counted = false;
	int ret;

	ring_view(dom, &r);
	for (;;) {
		spin_lock(&dom->lock);
		/* Dequeued by a waker since we looked: ours again. */
		if (w.woken)
			queued = false;
		if (!queued) {
			ret = ordsched_domain_queue_waiter(h, &w);
			if (ret) {
				spin_unlock(&dom->lock);
				/* No room to sleep: unless it need not. */
				ret = ordsched_ring_wait_check(&r, id, t);
				return ret == -EAGAIN ? -EBUSY : ret;
			}
			queued = true;
		}
		/* Race (b): the queueing, then a full barrier, then the look. */
		set_current_state(TASK_INTERRUPTIBLE);
		ret = ordsched_ring_wait_check(&r, id, t);
		if (ret != -EAGAIN) {
			__set_current_state(TASK_RUNNING);
			ordsched_domain_dequeue_waiter(h, &w);
			ordsched_domain_leave_waiter(h, &w);
			spin_unlock(&dom->lock);
			return ret;
		}
		/* As ORDSCHED_IOC_WAIT: only the waits that found no turn. */
		if (!counted)
			dom->stats.waits++;
		counted = true;
		spin_unlock(&dom->lock);
		if (ordsched_domain_deadline_passed(deadline_ns)) {
			ret = -ETIMEDOUT;
			break;
		}
		if (signal_pending(current)) {
			ret = -ERESTARTSYS;
			break;
		}
		ordsched_domain_schedule(deadline_ns);
		/*
		 * Woken ahead of the turn, still queued: wait for it awake.
		 * Then look as after any wake-up: below if a waker dequeued
		 * us meanwhile, else at the top, queued, as before a sleep.
		 */
		if (!smp_load_acquire(&w.woken) &&
		    ORDSCHED_RING_LOAD(r.tail) == t - 1)
			ordsched_domain_spin_turn(r.tail, t, deadline_ns);
		/* Pairs with the waker's release: @w is unlinked, and ours. */
		if (smp_load_acquire(&w.woken)) {
			ret = ordsched_ring_wait_check(&r, id, t);
			if (ret != -EAGAIN) {
				ordsched_domain_leave_waiter(h, &w);
				return ret;
			}
		}
	}
	__set_current_state(TASK_RUNNING);
	spin_lock(&dom->lock);
	if (!w.woken)
		ordsched_domain_dequeue_waiter(h, &w);
	ordsched_domain_leave_waiter(h, &w);
	if (ret == -ETIMEDOUT)
		dom->stats.timeouts++;
	else
		dom->stats.interrupts++;
	spin_unlock(&dom->lock);
	return ret;
}

/**
 * ordsched_ring_dom_sleep() - ORDSCHED_IOC_RING_WAIT
 * @h: the handle
 * @ticket: a ticket it owns in the ring, flagged SLEEPING by the caller
 * @deadline_ns: absolute CLOCK_MONOTONIC deadline, or ORDSCHED_NO_DEADLINE
 *
 * Context: process context; may sleep.
 * Return: 0 at the turn of @ticket; -ETIMEDOUT; -ERESTARTSYS; -EBUSY (too
 * many waiters on the handle or the domain); -EPERM, -EALREADY, -EINVAL as
 * ordsched_ring_check(); -ENOSPC, -ENOMEM (no id).
 */
int ordsched_ring_dom_sleep(struct ordsched_handle *h, u64 ticket,
			    u64 deadline_ns)
{
	u32 id;
	int ret;

	ret = ring_id(h, &id);
	if (ret)
		return ret;
	ret = ring_check(h->dom, id, ticket);
	if (ret)
		return ret;
	return ring_sleep(h, id, ticket, deadline_ns);
}

/**
 * ordsched_ring_dom_wait() - ORDSCHED_IOC_WAIT in a ring domain
 * @h: the handle
 * @ticket: a ticket it holds
 * @deadline_ns: absolute CLOCK_MONOTONIC deadline, or ORDSCHED_NO_DEADLINE
 *
 * Flags the slot SLEEPING (for good, as a take of the ioctl path does)
 * and sleeps as ORDSCHED_IOC_RING_WAIT.
 *
 * Context: process context; may sleep.
 * Return: as ordsched_ring_dom_sleep().
 */
int ordsched_ring_dom_wait(struct ordsched_handle *h, u64 ticket,
			   u64 deadline_ns)
{
	struct ordsched_domain *dom = h->dom;
	struct ordsched_ring_view r;
	u64 w, *slot;
	u32 id;
	int ret;

	ret = ring_id(h, &id);
	if (ret)
		return ret;
	ring_view(dom, &r);
	ret = ordsched_ring_window(&r, ticket);
	if (ret)
		return ret;
	slot = ordsched_ring_slot(&r, ticket);
	/*
	 * One try: it fails only if the word changed since the load (a
	 * thread of this handle flagging, retiring or completing the
	 * ticket, or a scribbler), and the sleep checks again anyway.
	 */
	w = ORDSCHED_RING_LOAD(slot);
	ret = ordsched_ring_check(w, ticket, id);
	if (ret)
		return ret;
	if (ordsched_ring_state(w) == ORDSCHED_RING_OWNED)
		ORDSCHED_RING_CAS(slot, w,
				  ordsched_ring_word(ticket, id,
						     ORDSCHED_RING_SLEEPING));
	return ring_sleep(h, id, ticket, deadline_ns);
}

/**
 * ordsched_ring_dom_wake() - ORDSCHED_IOC_RING_WAKE
 * @h: a handle of the domain
 * @ticket: any ticket
 *
 * Context: process context; takes the domain lock.
 */
void ordsched_ring_dom_wake(struct ordsched_handle *h, u64 ticket)
{
	ring_wake(h->dom, ticket);
}

/**
 * ordsched_ring_dom_turn() - does @h own the ticket at the tail?
 * @h: the handle
 *
 * For poll(), after it queued itself: a full barrier orders the queueing
 * before every load here, the id's included (the queue's unlock is only
 * a release), see ring_wake().
 *
 * Context: process context.
 * Return: true if so.
 */
bool ordsched_ring_dom_turn(struct ordsched_handle *h)
{
	struct ordsched_ring_view r;
	u64 t, w;
	u32 id;

	/*
	 * Pairs with the full barriers of the waker: its tail CAS, or, for
	 * a take at the tail by a handle without an id yet, the id's
	 * cmpxchg and the claim, then wq_has_sleeper(). Read before it,
	 * the id could be 0 from before that take, and neither side would
	 * see the other.
	 */
	smp_mb();
	id = READ_ONCE(h->ring_id);
	if (!id)
		return false;
	ring_view(h->dom, &r);
	t = ORDSCHED_RING_LOAD(r.tail);
	w = ORDSCHED_RING_LOAD(ordsched_ring_slot(&r, t));
	return ordsched_ring_diff(w, t) == 0 && ordsched_ring_owned(w) &&
	       ordsched_ring_owner(w) == id;
}

/**
 * ordsched_ring_dom_stats() - the ring's part of ORDSCHED_IOC_STATS
 * @h: the handle
 * @st: filled in by ordsched_domain_get_stats(); tail, head and held are
 *	replaced by what the page says
 *
 * Context: process context.
 */
void ordsched_ring_dom_stats(struct ordsched_handle *h,
			     struct ordsched_stats *st)
{
	struct ordsched_ring_view r;
	u32 id = READ_ONCE(h->ring_id);
	u64 i, w;

	ring_view(h->dom, &r);
	st->tail = ORDSCHED_RING_LOAD(r.tail);
	st->head = ORDSCHED_RING_LOAD(r.head);
	st->held = 0;
	for (i = 0; id && i <= r.mask; i++) {
		w = ORDSCHED_RING_LOAD(&r.slots[i]);
		if (ordsched_ring_held(w, st->tail, id))
			st->held++;
	}
}

/**
 * ordsched_ring_dom_release() - a handle of a ring domain is released
 * @h: the handle, with no thread left in a command
 *
 * Trashes the slots @h owns and advances, waking the new tail's sleeper;
 * a budget that runs out leaves the rest to the work item. Then forgets
 * the id, so that it may be given again. A handle without an id that
 * never mapped the ring page never wrote to the ring: nothing is done,
 * nobody woken.
 *
 * Context: process context; takes the domain lock.
 */
void ordsched_ring_dom_release(struct ordsched_handle *h)
{
	struct ordsched_domain *dom = h->dom;
	struct ordsched_ring_view r;
	u32 id = READ_ONCE(h->ring_id);
	u64 i, w, tail, n = 0;

	ring_view(dom, &r);
	/* Not the ones its completions at the turn had not freed yet. */
	tail = ORDSCHED_RING_LOAD(r.tail);
	for (i = 0; id && i <= r.mask; i++) {
		w = ORDSCHED_RING_LOAD(&r.slots[i]);
		if (ordsched_ring_held(w, tail, id))
			n++;
	}
	/*
	 * Without an id it owns nothing, but through a mapping of the page
	 * it may have moved the tail and stopped before looking past it.
	 */
	if (id ? !ordsched_ring_release(&r, id, ring_budget(dom), dom) :
		 READ_ONCE(h->ring_mapped) &&
		 !ordsched_ring_advance(&r, ring_budget(dom), true, dom))
		ring_queue_advance(dom);
	spin_lock(&dom->lock);
	dom->stats.released += n;
	if (id)
		xa_erase(&dom->ids, id);
	spin_unlock(&dom->lock);
}

/**
 * ordsched_ring_init() - before the device is registered
 *
 * Context: process context.
 * Return: 0 or -ENOMEM.
 */
int ordsched_ring_init(void)
{
	ring_wq = alloc_workqueue("ordsched_ring", WQ_UNBOUND, 0);
	return ring_wq ? 0 : -ENOMEM;
}

/**
 * ordsched_ring_exit() - after the device is gone and every domain with it
 *
 * A queued advance of a domain without handles runs once more and stops.
 *
 * Context: process context.
 */
void ordsched_ring_exit(void)
{
	destroy_workqueue(ring_wq);
}
