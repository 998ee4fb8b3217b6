/* SPDX-License-Identifier: GPL-2.0 */
/* ordsched: the ticket sequencer. Include <ordsched.h>. */
#ifndef _ORDSCHED_SEQ_H
#define _ORDSCHED_SEQ_H

#include <linux/types.h>

struct workqueue_struct;

/* ------------------------------------------------------------------------
 * The ticket sequencer
 *
 * A producer takes a ticket, does its work, and hands in an item for that
 * ticket. Items run strictly in ticket order, by whichever thread hands in
 * the item at the tail, with no consumer thread: that thread runs its own
 * item and then every item that later tickets parked meanwhile, up to a
 * budget, past which a workqueue takes over. A ticket whose work failed
 * is cancelled: its turn is skipped.
 *
 * Tickets live in a window of ring_size tickets ahead of the tail: taking a
 * ticket beyond it fails with -EAGAIN (backpressure, never a lost ticket,
 * never a spin); ordsched_seq_tickets_wait() sleeps for room instead.
 *
 * Contexts: tickets in any context, hard interrupt included; hand-ins
 * (ordsched_seq_queue(), ordsched_seq_cancel()) in process or softirq
 * context with interrupts enabled (on PREEMPT_RT, not with preemption
 * disabled or under a raw spinlock: they may wake a waitqueue, whose
 * spinlock_t sleeps there); flush, create and destroy in process
 * context. Items run with bottom halves disabled, in the thread that
 * completed the tail or in a worker of the sequencer's workqueue.
 * Ordering: the stores a producer makes before handing in its item are
 * visible to that item's function and to every later item's.
 * Lifecycle: as every part of ordsched (see <ordsched.h>): flush waits
 * for the tickets taken before it, killably; destroy drains.
 */

struct ordsched_seq;
struct ordsched_seq_item;

/**
 * typedef ordsched_seq_fn - the work of one item, run in ticket order
 * @item: the item handed in with ordsched_seq_queue()
 * @ticket: its ticket
 *
 * Runs with bottom halves disabled, in the context of the thread that
 * completed the tail or in a workqueue worker: it must not sleep. It may
 * take tickets, queue and cancel on the same sequencer (an item handed in
 * for the next ticket is run after this one returns, by the same drain
 * unless its budget is spent, then by the work item that takes over).
 * The sequencer does not touch @item once this function has been called,
 * so the function may free it.
 */
typedef void (*ordsched_seq_fn)(struct ordsched_seq_item *item, u64 ticket);

/**
 * struct ordsched_seq_item - an intrusive item, embedded by the caller
 * @fn: what to run when the item's turn comes
 *
 * No allocation happens on the submission path: the sequencer stores a
 * pointer to the item until it runs, so the item must stay valid until
 * @fn has been called.
 */
struct ordsched_seq_item {
	ordsched_seq_fn fn;
};

/**
 * struct ordsched_seq_params - how to build a sequencer
 * @name: names its debugfs folder, "<name>.<id>" (copied, at most 31
 *	bytes, a '/' there as '_'; NULL: the kind's name)
 * @first_ticket: the first ticket handed out
 * @ring_order: the window holds 1 << @ring_order tickets (0: default 10,
 *	at most 20)
 * @budget: most items a thread runs inline before it hands the rest to
 *	@wq (0: default 64)
 * @wq: workqueue for hand-offs (NULL: ordsched's own unbound workqueue)
 */
struct ordsched_seq_params {
	const char *name;
	u64 first_ticket;
	unsigned int ring_order;
	unsigned int budget;
	struct workqueue_struct *wq;
};

/**
 * struct ordsched_seq_stats - what a sequencer has done
 * @tickets: tickets handed out
 * @parked: items and cancellations parked for a later turn
 * @peak_depth: the farthest ahead of the tail an item or a cancellation
 *	was parked, the tail as read by the hand-in (a tail that moved on
 *	meanwhile makes it larger than the distance at the parking; a
 *	hand-in that found the slot's drainer just gone, and so ran its
 *	item at once, may count here too)
 * @inline_drains: drains run by the thread that completed the tail
 * @inline_runs: items and cancellations those drains went through
 * @handoffs: drains handed over to a worker: those that reached the
 *	budget, and a cancellation at the tail made where items must not
 *	run (a pipeline job freed while queued, on a debug-objects kernel)
 * @handoff_runs: items and cancellations the workers went through
 * @cancelled: tickets cancelled
 * @overflows: ticket requests refused because the window was full
 */
struct ordsched_seq_stats {
	u64 tickets;
	u64 parked;
	u64 peak_depth;
	u64 inline_drains;
	u64 inline_runs;
	u64 handoffs;
	u64 handoff_runs;
	u64 cancelled;
	u64 overflows;
};

/**
 * ordsched_seq_create() - build a sequencer
 * @params: the parameters; NULL for all defaults
 *
 * Context: process context, may sleep.
 * Return: the sequencer, or an ERR_PTR(): -EINVAL for a ring order above
 * 20, -ENOMEM.
 */
struct ordsched_seq *ordsched_seq_create(const struct ordsched_seq_params *params);

/**
 * ordsched_seq_destroy() - drain and free a sequencer
 * @seq: the sequencer (NULL or an ERR_PTR() is ignored)
 *
 * Waits until every ticket taken has been handed in or cancelled and every
 * item has run, including tickets that items take while it waits, then
 * frees the sequencer. When it returns, nothing runs any item of @seq and
 * nothing will: the module that owns the items may unload. Threads that
 * hold tickets must still hand them in; a ticket never handed in keeps
 * destroy waiting (the kernel log names the ticket it waits for every
 * 10 s). Nobody may take new tickets from outside the items once destroy
 * is called; hand-ins of the tickets taken before it are what it waits
 * for.
 *
 * Context: process context, may sleep; not from an item of @seq.
 */
void ordsched_seq_destroy(struct ordsched_seq *seq);

/**
 * ordsched_seq_tickets() - take @n consecutive tickets
 * @seq: the sequencer
 * @n: how many, from 1 to the ring size
 * @first: where to store the first one; the others follow it
 *
 * Each ticket must later be handed in or cancelled, exactly once.
 *
 * Context: any context.
 * Return: 0, -EAGAIN if the tickets would lie beyond the window (the tail
 * plus the ring size), -EINVAL if @n is 0 or larger than the ring.
 */
int ordsched_seq_tickets(struct ordsched_seq *seq, unsigned int n, u64 *first);

/**
 * ordsched_seq_tickets_wait() - take @n consecutive tickets, sleeping for room
 * @seq: the sequencer
 * @n: how many, from 1 to the ring size
 * @first: where to store the first one
 *
 * As ordsched_seq_tickets(), but waits while the window is full: for
 * drains that may run on the sequencer's workqueue, so not from a work
 * item of that workqueue when it runs one item at a time (see
 * <ordsched.h>).
 *
 * Context: process context, may sleep.
 * Return: 0, -EINTR if a fatal signal came first, -EINVAL for a bad @n.
 */
int ordsched_seq_tickets_wait(struct ordsched_seq *seq, unsigned int n,
			      u64 *first);

/**
 * ordsched_seq_queue() - hand in the item of a ticket
 * @seq: the sequencer
 * @ticket: a ticket taken from @seq and not yet handed in or cancelled
 * @item: what to run in @ticket's turn; valid until its function runs
 *
 * If @ticket is the tail, @item runs at once: the caller runs it, then
 * every item parked for the following tickets, up to the sequencer's
 * budget, past which a work item takes over. Only while the thread that
 * moved the tail onto @ticket is still in its drain may that thread run
 * @item instead (and the call return before it ran), or, when that drain
 * has used up its budget, hand it to the work item. Otherwise the item
 * is parked and the call returns at once. Stores before the call are
 * visible to @item's function.
 *
 * Context: process or softirq context, not hard interrupt and not with
 * interrupts disabled. Items run with bottom halves disabled.
 * Return: true; false if @ticket was handed in before or never taken
 * (the first such call since the module was loaded warns), or, on a
 * kernel with debug objects, if @item is still parked for another ticket
 * (@ticket is then cancelled): bugs in the caller. Two hand-ins of one
 * ticket at once (queue or cancel, from two threads) are a bug that is
 * not caught, and may do harm beyond the ticket: run an item twice, or
 * run the late one's item in the turn of a later ticket of the same slot
 * in place of that ticket's.
 */
bool ordsched_seq_queue(struct ordsched_seq *seq, u64 ticket,
			struct ordsched_seq_item *item);

/**
 * ordsched_seq_cancel() - give up a ticket: its turn is skipped
 * @seq: the sequencer
 * @ticket: a ticket taken from @seq and not yet handed in or cancelled
 *
 * For a ticket whose work failed or will not be done. If @ticket is the
 * tail, the caller goes on to run the items parked behind it, as
 * ordsched_seq_queue() does.
 *
 * Context: process or softirq context, not hard interrupt and not with
 * interrupts disabled.
 * Return: true; false if @ticket was handed in before or never taken
 * (the first such call since the module was loaded warns), a bug in the
 * caller; as for ordsched_seq_queue(), two hand-ins of one ticket at once
 * are not caught.
 */
bool ordsched_seq_cancel(struct ordsched_seq *seq, u64 ticket);

/**
 * ordsched_seq_flush() - wait until every ticket taken so far has run
 * @seq: the sequencer
 *
 * Waits until every ticket handed out before the call has been run or
 * cancelled, including items a work item took over. Tickets taken later,
 * also by the items themselves, are not waited for, with one exception:
 * the flush returns when the drain that ran the last of its tickets ends,
 * and that drain may first run later items that were already handed in
 * (at most the sequencer's budget). The wait is killable:
 * a ticket that is never handed in would otherwise hold the caller
 * forever.
 *
 * Context: process context, may sleep.
 * Return: 0, or -EINTR if a fatal signal came first.
 */
int ordsched_seq_flush(struct ordsched_seq *seq);

/**
 * ordsched_seq_tail() - the next ticket to run
 * @seq: the sequencer
 *
 * Every ticket before the tail has been run (its item's function has
 * returned) or cancelled, and what those functions stored is visible to
 * the caller. The tail is read once: it may have moved on by the time the
 * caller looks at it.
 *
 * Context: any context.
 * Return: the tail.
 */
u64 ordsched_seq_tail(const struct ordsched_seq *seq);

/**
 * ordsched_seq_get_stats() - read a sequencer's counters
 * @seq: the sequencer
 * @stats: where to store them
 *
 * The counters are per CPU and summed here, without stopping the
 * sequencer: each is exact once the sequencer is idle.
 *
 * Context: any context.
 */
void ordsched_seq_get_stats(const struct ordsched_seq *seq,
			    struct ordsched_seq_stats *stats);

/**
 * ordsched_seq_ticket() - take one ticket
 * @seq: the sequencer
 * @ticket: where to store it
 *
 * Context: any context, hard interrupt included.
 * Return: 0, or -EAGAIN when the window is full.
 */
static inline int ordsched_seq_ticket(struct ordsched_seq *seq, u64 *ticket)
{
	return ordsched_seq_tickets(seq, 1, ticket);
}

#endif /* _ORDSCHED_SEQ_H */
