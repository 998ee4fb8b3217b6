// SPDX-License-Identifier: GPL-2.0
/*
 * The ticket sequencer: items handed in out of order run in ticket order,
 * run by whoever completes the tail, with no consumer thread.
 *
 * Tickets are u64 and never wrap in practice; every comparison below is
 * modulo 2^64 so the wrap is harmless anyway (tests start near 2^32, 2^63
 * and 2^64). The ring has R = 1 << ring_order slots; ticket t uses slot
 * t & (R - 1). A slot is one 64-bit state word, (ticket << 2) | kind:
 *
 *	EMPTY(t)	ticket t is in the window, not handed in yet
 *	FULL(t)		ticket t's item is parked in the slot
 *	CANCELLED(t)	ticket t was cancelled: its turn is skipped
 *	ABANDONED(t)	the drainer reached t, found it EMPTY and left
 *
 * Exactly one thread, the drainer, owns the tail at any time. It runs slot
 * after slot, and on an EMPTY slot it leaves by turning EMPTY(t) into
 * ABANDONED(t) with a cmpxchg. A producer hands in ticket t by turning
 * EMPTY(t) into FULL(t) with a cmpxchg. The two race on the same word and
 * exactly one wins: either the item is parked and the drainer sees it, or
 * the drainer left and the producer finds ABANDONED(t), which makes it the
 * drainer. No item is stranded and nobody waits. Initially the first
 * ticket's slot is ABANDONED: its producer becomes the first drainer.
 *
 * Overflow is refused at ticket time: a ticket is only handed out while it
 * lies within R of the tail, so a slot is always free for the ticket that
 * maps to it and the ring is all the memory there is. A full window
 * answers -EAGAIN at once (from softirq, drop or retry as a full NIC queue
 * would), or ordsched_seq_tickets_wait() sleeps for room. The alternatives
 * were worse: an overflow list needs a lock and a second handshake on the
 * drainer's exit path, and blocking at hand-in time is impossible in
 * softirq context.
 *
 * Fairness: a drainer runs at most budget items, then hands the tail over
 * to a work item, which goes on draining; the producer returns.
 *
 * Teardown: every hand-in and every drain runs with bottom halves
 * disabled, which is an RCU read-side critical section, so once the tail
 * has caught up with the head, synchronize_rcu() waits out any thread
 * still inside the sequencer. Destroy waits for that state (it drains,
 * as destroy_workqueue() does) instead of refusing: a module's exit
 * cannot fail, and must not return while a worker may still run its
 * items.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/bottom_half.h>
#include <linux/debugobjects.h>
#include <linux/err.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <ordsched.h>

#include "internal.h"
#include "trace.h"

#define SEQ_DEFAULT_ORDER	10
#define SEQ_MAX_ORDER		20
#define SEQ_DEFAULT_BUDGET	64

enum seq_kind {
	SLOT_EMPTY,
	SLOT_FULL,
	SLOT_CANCELLED,
	SLOT_ABANDONED,
};

static inline s64 slot_state(u64 ticket, enum seq_kind kind)
{
	return (s64)((ticket << 2) | kind);
}

struct seq_slot {
	atomic64_t state;
	struct ordsched_seq_item *item;
};

struct ordsched_seq {
	/* Next ticket to hand out; written by ticket takers. */
	atomic64_t head ____cacheline_aligned_in_smp;
	/* Next ticket to run; written by the drainer only. */
	atomic64_t tail ____cacheline_aligned_in_smp;
	/* Where a hand-off resumes; written by the drainer only. */
	u64 handoff_ticket;

	struct seq_slot *ring ____cacheline_aligned_in_smp;
	u64 mask;
	unsigned int budget;
	struct workqueue_struct *wq;
	/* Name, id, counters, debugfs; @stats is its counters, typed. */
	struct ordsched_instance inst;
	struct ordsched_seq_stats __percpu *stats;
	struct work_struct handoff_work;
	/* Flushers and ticket takers waiting for room; woken per drain. */
	wait_queue_head_t waitq;
};

ORDSCHED_COUNTERS(seq_counters, struct ordsched_seq_stats, BIT(2),
		  "tickets", "parked", "peak_depth", "inline_drains",
		  "inline_runs", "handoffs", "handoff_runs", "cancelled",
		  "overflows");

/*
 * What the function of an item reported freed while parked becomes: a
 * drain that finds it skips the item. See seq_item_fixup_free().
 */
void ordsched_seq_item_freed(struct ordsched_seq_item *item, u64 ticket)
{
}

#ifdef CONFIG_DEBUG_OBJECTS
/*
 * Debug objects: an item is tracked from its hand-in until its turn comes
 * (or the hand-in fails), and only then: an item not handed in is plain
 * memory, on the stack or anywhere else, with no destroy to call.
 *
 * Items have no init function, the caller sets @fn: an item debug objects
 * do not know is taken as initialized (the is_static_object hook), so the
 * hand-in only activates it (an item on the stack is first initialized as
 * one, which debug objects require). An item handed in again while it is
 * still parked for another ticket is reported: once, or twice if it is on
 * the stack (its init, then its activation). That hand-in fails and its
 * ticket is cancelled instead, so that the sequencer does not wait for it
 * forever.
 *
 * An item freed while parked is reported, but no fixup can take it back:
 * the item knows neither its sequencer nor its ticket, and a ticket handed
 * in cannot be withdrawn (its slot is the drainer's from then on, in a
 * lock-free handshake that has no way back). The fixup poisons the item's
 * function instead, so that a drain that finds it while its memory is still
 * intact skips it rather than call into whatever the memory holds; on a
 * KASAN kernel that read is the use after free it is, and is reported.
 */
static const struct debug_obj_descr seq_item_debug_descr;

static bool seq_item_is_static(void *addr)
{
	return true;
}

static bool seq_item_fixup_free(void *addr, enum debug_obj_state state)
{
	struct ordsched_seq_item *item = addr;

	if (state != ODEBUG_STATE_ACTIVE)
		return false;
	WRITE_ONCE(item->fn, ordsched_seq_item_freed);
	/* Left active, debug objects would come back to it forever. */
	debug_object_deactivate(item, &seq_item_debug_descr);
	return false;
}

static const struct debug_obj_descr seq_item_debug_descr = {
	.name			= "ordsched_seq_item",
	.is_static_object	= seq_item_is_static,
	.fixup_free		= seq_item_fixup_free,
};

/* @item is handed in: false if it is still parked for another ticket. */
static bool seq_item_debug_activate(struct ordsched_seq_item *item)
{
	if (object_is_on_stack(item))
		debug_object_init_on_stack(item, &seq_item_debug_descr);
	return !debug_object_activate(item, &seq_item_debug_descr);
}

/*
 * @item's turn came, or its hand-in failed: no longer tracked. False if
 * it was reported freed while parked: then nothing of it may be touched.
 */
static bool seq_item_debug_done(struct ordsched_seq_item *item)
{
	if (READ_ONCE(item->fn) == ordsched_seq_item_freed)
		return false;
	debug_object_deactivate(item, &seq_item_debug_descr);
	debug_object_free(item, &seq_item_debug_descr);
	return true;
}
#else
static inline bool seq_item_debug_activate(struct ordsched_seq_item *item)
{
	return true;
}

static inline bool seq_item_debug_done(struct ordsched_seq_item *item)
{
	return true;
}
#endif

static inline struct seq_slot *seq_slot(struct ordsched_seq *seq, u64 t)
{
	return &seq->ring[t & seq->mask];
}

static inline u64 seq_size(const struct ordsched_seq *seq)
{
	return seq->mask + 1;
}

/*
 * Run items from ticket @t on; the caller owns the tail and @t is it.
 * Called with bottom halves disabled.
 */
static void seq_drain(struct ordsched_seq *seq, u64 t, bool in_worker)
{
	u64 first = t, n = 0;
	bool handoff = false;

	if (!in_worker)
		this_cpu_inc(seq->stats->inline_drains);
	for (;;) {
		struct seq_slot *slot = seq_slot(seq, t);
		struct ordsched_seq_item *item;
		s64 state;

		/* Pairs with the release in seq_hand_in(): ->item is seen. */
		state = atomic64_read_acquire(&slot->state);
		if (state == slot_state(t, SLOT_EMPTY)) {
			/*
			 * Not handed in yet: leave, unless the producer wins
			 * the race for this word, then look again. Fully
			 * ordered: our tail store precedes the abandonment
			 * that the producer acquires in seq_hand_in(), and
			 * the waitqueue_active() below follows it (pairs with
			 * the barrier in prepare_to_wait()).
			 */
			if (atomic64_cmpxchg(&slot->state, state,
					     slot_state(t, SLOT_ABANDONED)) == state)
				break;
			continue;
		}
		if (n == seq->budget) {
			/* Enough for one thread: the work item resumes at t. */
			seq->handoff_ticket = t;
			/* Counted before the worker can make the sequencer idle. */
			this_cpu_inc(seq->stats->handoffs);
			queue_work(seq->wq, &seq->handoff_work);
			trace_ordsched_seq_handoff(seq->inst.id, t);
			handoff = true;
			break;
		}
		if (WARN_ON_ONCE(state != slot_state(t, SLOT_FULL) &&
				 state != slot_state(t, SLOT_CANCELLED)))
			break;

		item = slot->item;
		/*
		 * The slot is free for ticket t + R at once: that ticket is
		 * not handed out before the tail store below.
		 */
		atomic64_set(&slot->state, slot_state(t + seq_size(seq),
						      SLOT_EMPTY));
		if (state == slot_state(t, SLOT_FULL) &&
		    seq_item_debug_done(item)) {
			trace_ordsched_seq_run(seq->inst.id, t);
			item->fn(item, t);
		}
		n++;
		t++;
		/*
		 * Counted before the tail store that may make the sequencer
		 * idle: the stats are exact once it is (seq.h).
		 */
		if (in_worker)
			this_cpu_inc(seq->stats->handoff_runs);
		else
			this_cpu_inc(seq->stats->inline_runs);
		/*
		 * Pairs with the acquire in ordsched_seq_tickets() (a new
		 * ticket finds its slot free) and in ordsched_seq_flush()
		 * (the items before t have run).
		 */
		atomic64_set_release(&seq->tail, t);
	}
	trace_ordsched_seq_drain(seq->inst.id, first, n, handoff);
	/* The hand-off path has no full barrier yet: wq_has_sleeper() adds it. */
	if (handoff ? wq_has_sleeper(&seq->waitq) : waitqueue_active(&seq->waitq))
		wake_up_all(&seq->waitq);
}

static void seq_handoff_fn(struct work_struct *work)
{
	struct ordsched_seq *seq = container_of(work, struct ordsched_seq,
						handoff_work);

	ordsched_fn_enter();
	local_bh_disable();
	seq_drain(seq, seq->handoff_ticket, true);
	local_bh_enable();
	ordsched_fn_leave();
}

/*
 * Park ticket @t as @kind, or drain from it if the drainer left there; or,
 * if @defer, have a worker drain from it, for callers that must not run
 * items.
 */
static bool seq_hand_in(struct ordsched_seq *seq, u64 t,
			struct ordsched_seq_item *item, enum seq_kind kind,
			bool defer)
{
	bool ok = true;

	struct seq_slot *slot = seq_slot(seq, t);
	s64 empty = slot_state(t, SLOT_EMPTY), old;
	u64 tail, depth;

	/* Bottom halves are disabled below: never with interrupts off. */
	lockdep_assert_irqs_enabled();
	local_bh_disable();
	/*
	 * Before the hand-in the tail cannot pass t: depth is >= 0 for a
	 * ticket taken, and read as late as can be, for @peak_depth. An
	 * acquire, so that the head below is read after it (on any CPU):
	 * a head older than the tail would make head - tail wrap and let
	 * a ticket never taken through.
	 */
	tail = atomic64_read_acquire(&seq->tail);
	depth = t - tail;
	/*
	 * A ticket never taken has a free slot too, if it is in the
	 * window, and so has one 2^62 tickets away, as a slot's state
	 * keeps the ticket's low 62 bits only: only head and tail tell.
	 * A taken ticket not handed in is at or past any tail read (the
	 * tail cannot pass it) and before any head read after its taking.
	 * A ticket handed in before has a slot that is neither free nor
	 * abandoned: refuse it before ->item is written, or the item of
	 * the first hand-in would be lost (or replaced by NULL, for a
	 * cancel).
	 */
	old = atomic64_read(&slot->state);
	if (depth >= (u64)atomic64_read(&seq->head) - tail ||
	    (old != empty && old != slot_state(t, SLOT_ABANDONED)))
		goto refuse;
	/* Counted before the hand-in can let a destroy finish. */
	if (kind == SLOT_CANCELLED)
		this_cpu_inc(seq->stats->cancelled);
	slot->item = item;
	/*
	 * Counted before the parking, which a drain may run at once, and
	 * the sequencer then become idle: the stats are exact once it is.
	 * Taken back below if the slot was not empty.
	 */
	this_cpu_inc(seq->stats->parked);
	if (depth > this_cpu_read(seq->stats->peak_depth))
		this_cpu_write(seq->stats->peak_depth, depth);
	/* Pairs with the acquire in seq_drain(): ->item is published. */
	old = atomic64_cmpxchg_release(&slot->state, empty,
				       slot_state(t, kind));
	if (likely(old == empty)) {
		trace_ordsched_seq_park(seq->inst.id, t, depth);
		goto out;
	}
	this_cpu_dec(seq->stats->parked);
	/*
	 * The drainer left at t and only we can change the slot now. The
	 * failed cmpxchg orders nothing: this acquire pairs with the fully
	 * ordered cmpxchg that abandoned the slot, so the previous
	 * drainer's stores (tail, items) are seen.
	 */
	old = atomic64_read_acquire(&slot->state);
	if (old != slot_state(t, SLOT_ABANDONED))
		goto refuse;
	atomic64_set(&slot->state, slot_state(t, kind));
	if (defer) {
		/* As a drain that used up its budget: the worker goes on at t. */
		seq->handoff_ticket = t;
		this_cpu_inc(seq->stats->handoffs);
		queue_work(seq->wq, &seq->handoff_work);
		trace_ordsched_seq_handoff(seq->inst.id, t);
	} else {
		seq_drain(seq, t, false);
	}
out:
	local_bh_enable();
	return ok;

refuse:
	WARN_ONCE(1, "ordsched: ticket %llu of %s handed in twice or never taken\n",
		  t, seq->inst.name);
	if (item)
		seq_item_debug_done(item);
	ok = false;
	goto out;
}

bool ordsched_seq_queue(struct ordsched_seq *seq, u64 ticket,
			struct ordsched_seq_item *item)
{
	if (!seq_item_debug_activate(item)) {
		ordsched_seq_cancel(seq, ticket);
		return false;
	}
	return seq_hand_in(seq, ticket, item, SLOT_FULL, false);
}
EXPORT_SYMBOL_GPL(ordsched_seq_queue);

bool ordsched_seq_cancel(struct ordsched_seq *seq, u64 ticket)
{
	trace_ordsched_seq_cancel(seq->inst.id, ticket);
	return seq_hand_in(seq, ticket, NULL, SLOT_CANCELLED, false);
}
EXPORT_SYMBOL_GPL(ordsched_seq_cancel);

/*
 * For pipeline.c, whose debug objects fixup cancels a job from the free
 * path, where running other jobs' serial steps is not safe: as
 * ordsched_seq_cancel(), but if @ticket is the tail, a worker goes on
 * from it.
 */
bool ordsched_seq_cancel_nodrain(struct ordsched_seq *seq, u64 ticket)
{
	trace_ordsched_seq_cancel(seq->inst.id, ticket);
	return seq_hand_in(seq, ticket, NULL, SLOT_CANCELLED, true);
}

/* Would @n more tickets fit in the window now? */
static bool seq_has_room(struct ordsched_seq *seq, unsigned int n)
{
	/* The tail first: read after it, the head cannot be behind it. */
	u64 tail = atomic64_read_acquire(&seq->tail);
	u64 used = atomic64_read(&seq->head) - tail;

	return used <= seq_size(seq) - n;
}

/*
 * The tail as a ticket taker reads it, after its read of the head. Out of
 * line on purpose: the self-tests put a kprobe here that holds the taker
 * between the two reads while other threads take and drain tickets, the
 * preemption that once made a stale head answer a spurious -EAGAIN.
 */
static noinline __noclone u64 seq_taker_tail(struct ordsched_seq *seq)
{
	/*
	 * Pairs with the release in seq_drain(): every slot below tail + R
	 * has been freed for its new ticket.
	 */
	return atomic64_read_acquire(&seq->tail);
}

/*
 * ordsched_seq_tickets(); a refusal counts in @overflows only if @count:
 * not the tries of a caller that waits for room.
 */
static int seq_tickets(struct ordsched_seq *seq, unsigned int n, u64 *first,
		       bool count)
{
	s64 head;

	if (unlikely(!n || n > seq_size(seq)))
		return -EINVAL;

	head = atomic64_read(&seq->head);
	for (;;) {
		u64 tail;

		/*
		 * The head (read above, or by the failed cmpxchg below)
		 * before the tail, on CPUs that reorder loads too: a head
		 * newer than the tail would overstate the window and answer
		 * a spurious -EAGAIN.
		 */
		smp_rmb();
		tail = seq_taker_tail(seq);

		/*
		 * A tail past the head we hold means our head is stale: we
		 * were preempted while others took and drained tickets.
		 * Compared as it is, head - tail would wrap and answer a
		 * spurious -EAGAIN. Read it again; read after the tail, it
		 * is not behind it, so the window below is never
		 * overstated.
		 */
		if (unlikely((s64)((u64)head - tail) < 0)) {
			head = atomic64_read(&seq->head);
			continue;
		}
		if ((u64)head - tail > seq_size(seq) - n) {
			if (count)
				this_cpu_inc(seq->stats->overflows);
			return -EAGAIN;
		}
		if (atomic64_try_cmpxchg(&seq->head, &head, head + n))
			break;
	}

	this_cpu_add(seq->stats->tickets, n);
	trace_ordsched_seq_ticket(seq->inst.id, head, n);
	*first = head;
	return 0;
}

int ordsched_seq_tickets(struct ordsched_seq *seq, unsigned int n, u64 *first)
{
	return seq_tickets(seq, n, first, true);
}
EXPORT_SYMBOL_GPL(ordsched_seq_tickets);

int ordsched_seq_tickets_wait(struct ordsched_seq *seq, unsigned int n,
			      u64 *first)
{
	int ret;

	might_sleep();
	for (;;) {
		ret = seq_tickets(seq, n, first, false);
		if (ret != -EAGAIN)
			return ret;
		/* Woken by seq_drain() whenever the tail has moved. */
		if (wait_event_killable(seq->waitq, seq_has_room(seq, n)))
			return -EINTR;
	}
}
EXPORT_SYMBOL_GPL(ordsched_seq_tickets_wait);

u64 ordsched_seq_tail(const struct ordsched_seq *seq)
{
	return atomic64_read_acquire(&seq->tail);
}
EXPORT_SYMBOL_GPL(ordsched_seq_tail);

int ordsched_seq_flush(struct ordsched_seq *seq)
{
	u64 head = atomic64_read(&seq->head);

	might_sleep();
	if (wait_event_killable(seq->waitq,
				(s64)(ordsched_seq_tail(seq) - head) >= 0))
		return -EINTR;
	return 0;
}
EXPORT_SYMBOL_GPL(ordsched_seq_flush);

void ordsched_seq_get_stats(const struct ordsched_seq *seq,
			    struct ordsched_seq_stats *stats)
{
	ordsched_instance_sum(&seq->inst, (u64 *)stats);
}
EXPORT_SYMBOL_GPL(ordsched_seq_get_stats);

/* The lines of the debugfs "stats" file before the counters. */
static void seq_show(struct seq_file *m, struct ordsched_instance *inst)
{
	struct ordsched_seq *seq = container_of(inst, struct ordsched_seq, inst);
	/* The tail first: read after it, the head cannot be behind it. */
	u64 tail = ordsched_seq_tail(seq), head = atomic64_read(&seq->head);

	seq_printf(m, "head: %llu\ntail: %llu\nin_flight: %llu\n",
		   head, tail, head - tail);
	seq_printf(m, "ring_size: %llu\nbudget: %u\n", seq_size(seq),
		   seq->budget);
}

struct ordsched_seq *ordsched_seq_create(const struct ordsched_seq_params *params)
{
	static const struct ordsched_seq_params defaults;
	const struct ordsched_seq_params *p = params ?: &defaults;
	unsigned int order = p->ring_order ?: SEQ_DEFAULT_ORDER;
	struct ordsched_seq *seq;
	u64 i;

	if (order > SEQ_MAX_ORDER)
		return ERR_PTR(-EINVAL);

	seq = kzalloc(sizeof(*seq), GFP_KERNEL);
	if (!seq)
		return ERR_PTR(-ENOMEM);
	seq->ring = kvcalloc(1UL << order, sizeof(*seq->ring), GFP_KERNEL);
	if (!seq->ring)
		goto err_free_seq;

	seq->mask = (1ULL << order) - 1;
	for (i = 0; i < seq_size(seq); i++)
		atomic64_set(&seq_slot(seq, p->first_ticket + i)->state,
			     slot_state(p->first_ticket + i, SLOT_EMPTY));
	/* Nobody drains yet: the first ticket's producer will. */
	atomic64_set(&seq_slot(seq, p->first_ticket)->state,
		     slot_state(p->first_ticket, SLOT_ABANDONED));
	atomic64_set(&seq->head, p->first_ticket);
	atomic64_set(&seq->tail, p->first_ticket);
	seq->budget = p->budget ?: SEQ_DEFAULT_BUDGET;
	seq->wq = p->wq ?: ordsched_wq;
	INIT_WORK(&seq->handoff_work, seq_handoff_fn);
	init_waitqueue_head(&seq->waitq);
	if (ordsched_instance_init(&seq->inst, ORDSCHED_KIND_SEQ, p->name,
				   &seq_counters, seq_show))
		goto err_free_ring;
	seq->stats = seq->inst.stats;
	return seq;

err_free_ring:
	kvfree(seq->ring);
err_free_seq:
	kfree(seq);
	return ERR_PTR(-ENOMEM);
}
EXPORT_SYMBOL_GPL(ordsched_seq_create);

/*
 * Wait until no ticket is outstanding and nothing runs inside @seq, for as
 * long as it takes: destroy cannot fail, and freeing earlier would let a
 * late hand-in or a worker run on freed memory. Items may take tickets
 * themselves, so a tail that caught up is checked again once the last
 * drainer has left. A ticket never handed in is the caller's bug; it is
 * named in the log every ORDSCHED_DESTROY_WARN_SECS.
 */
static void seq_quiesce(struct ordsched_seq *seq)
{
	unsigned int waited = 0;
	u64 head;

	for (;;) {
		head = atomic64_read(&seq->head);
		if (ordsched_seq_tail(seq) == head) {
			/*
			 * Hand-ins and drains run with BH off: an RCU section.
			 * The hand-off worker's drain too, and it touches the
			 * sequencer nowhere else; nor is it pending now (it
			 * is queued only with the tail's item still to run).
			 * Not flush_work(): that would also tell lockdep that
			 * we wait for the hand-off of every sequencer, and
			 * for the workqueue, from an item of another
			 * sequencer, or a work item of the same workqueue,
			 * that destroys this one, as it may.
			 */
			synchronize_rcu();
			if (atomic64_read(&seq->head) == head)
				return;
			continue;
		}
		/* A timed wait: not a hung task while the log says why. */
		if (wait_event_timeout(seq->waitq,
				       ordsched_seq_tail(seq) ==
				       (u64)atomic64_read(&seq->head), HZ))
			continue;
		if (++waited % ORDSCHED_DESTROY_WARN_SECS == 0) {
			u64 tail = ordsched_seq_tail(seq);

			pr_warn("destroying sequencer %s: waiting %u s for ticket %llu, %llu tickets not run\n",
				seq->inst.name, waited, tail,
				(u64)atomic64_read(&seq->head) - tail);
		}
	}
}

void ordsched_seq_destroy(struct ordsched_seq *seq)
{
	if (IS_ERR_OR_NULL(seq))
		return;
	might_sleep();
	seq_quiesce(seq);
	ordsched_instance_exit(&seq->inst);
	kvfree(seq->ring);
	kfree(seq);
}
EXPORT_SYMBOL_GPL(ordsched_seq_destroy);
