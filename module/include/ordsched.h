/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ordsched: in-kernel API.
 *
 * Every symbol declared here is exported GPL-only in the symbol namespace
 * ORDSCHED; a user module says ORDSCHED_IMPORT_NS() once.
 */
#ifndef _ORDSCHED_H
#define _ORDSCHED_H

#include <linux/module.h>
#include <linux/types.h>
#include <linux/version.h>
#include <linux/workqueue.h>

/*
 * Linux 6.13 turned the namespace argument of EXPORT_SYMBOL_NS_GPL() and
 * MODULE_IMPORT_NS() from a bare identifier into a string literal.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define ORDSCHED_EXPORT(sym)	EXPORT_SYMBOL_NS_GPL(sym, "ORDSCHED")
#define ORDSCHED_IMPORT_NS()	MODULE_IMPORT_NS("ORDSCHED")
#else
#define ORDSCHED_EXPORT(sym)	EXPORT_SYMBOL_NS_GPL(sym, ORDSCHED)
#define ORDSCHED_IMPORT_NS()	MODULE_IMPORT_NS(ORDSCHED)
#endif

/* ------------------------------------------------------------------------
 * The ticket sequencer
 *
 * A producer takes a ticket, does its work, and hands in an item for that
 * ticket. Items run strictly in ticket order, by whichever thread hands in
 * the item at the tail, with no consumer thread: that thread runs its own
 * item and then every item that later tickets parked meanwhile, up to a
 * budget, past which a workqueue takes over. A failed ticket is trashed.
 *
 * Tickets live in a window of ring_size tickets ahead of the tail: taking a
 * ticket beyond it fails with -EAGAIN (backpressure, never a lost ticket,
 * never a spin); ordsched_seq_tickets_wait() sleeps for room instead.
 */

struct ordsched_seq;
struct ordsched_seq_item;

/**
 * typedef ordsched_seq_fn - the work of one item, run in ticket order
 * @item: the item handed in with ordsched_seq_submit()
 * @ticket: its ticket
 *
 * Runs with bottom halves disabled, in the context of the thread that
 * completed the tail or in a workqueue worker: it must not sleep. It may
 * take tickets, submit and trash on the same sequencer (an item handed in
 * for the next ticket is run by the same drain, after this one returns).
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
 * @name: shown in debugfs and tracepoints (copied; may be NULL)
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
 * @parked: items and trashes parked for a later turn
 * @peak_depth: the farthest ahead of the tail an item was parked
 * @inline_drains: drains run by the thread that completed the tail
 * @inline_runs: items and trashes those drains went through
 * @handoffs: drains that reached the budget and handed over to a worker
 * @handoff_runs: items and trashes the workers went through
 * @trashed: tickets trashed
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
	u64 trashed;
	u64 overflows;
};

struct ordsched_seq *ordsched_seq_create(const struct ordsched_seq_params *params);
int ordsched_seq_destroy(struct ordsched_seq *seq);
int ordsched_seq_tickets(struct ordsched_seq *seq, unsigned int n, u64 *first);
int ordsched_seq_tickets_wait(struct ordsched_seq *seq, unsigned int n,
			      u64 *first);
void ordsched_seq_submit(struct ordsched_seq *seq, u64 ticket,
			 struct ordsched_seq_item *item);
void ordsched_seq_trash(struct ordsched_seq *seq, u64 ticket);
void ordsched_seq_flush(struct ordsched_seq *seq);
u64 ordsched_seq_tail(const struct ordsched_seq *seq);
void ordsched_seq_get_stats(const struct ordsched_seq *seq,
			    struct ordsched_seq_stats *stats);

/**
 * ordsched_seq_ticket() - take one ticket
 * @seq: the sequencer
 * @ticket: where to store it
 *
 * Context: any context but hard interrupt.
 * Return: 0, or -EAGAIN when the window is full.
 */
static inline int ordsched_seq_ticket(struct ordsched_seq *seq, u64 *ticket)
{
	return ordsched_seq_tickets(seq, 1, ticket);
}

/* ------------------------------------------------------------------------
 * Ordered execution on a workqueue
 *
 * A job's ticket is taken when it is submitted; its parallel step runs on a
 * workqueue, and its serial step runs in submission order through the
 * sequencer, on whichever worker completes the tail: there is no workqueue
 * hop on the in-order path. Every submitted job reaches its serial step
 * exactly once, with the error its parallel step returned.
 */

struct ordsched_pipeline;

/**
 * struct ordsched_job - one job, embedded by the caller
 * @work: runs the parallel step
 * @item: orders the serial step
 * @pipeline: the pipeline the job was submitted to
 * @ticket: the job's place in the order
 * @err: what the parallel step returned
 *
 * All fields are the pipeline's; the caller reads @ticket and @err at most.
 */
struct ordsched_job {
	struct work_struct work;
	struct ordsched_seq_item item;
	struct ordsched_pipeline *pipeline;
	u64 ticket;
	int err;
};

/**
 * struct ordsched_pipeline_ops - the two steps of every job
 * @parallel: runs on the workqueue, in process context, may sleep, in any
 *	order and concurrently with other jobs' parallel steps. Returns 0 or
 *	a negative errno that is handed to @serial.
 * @serial: runs once per job in submission order, with bottom halves
 *	disabled: must not sleep. @err is what @parallel returned. The job is
 *	the caller's again once @serial has been called (it may be freed).
 */
struct ordsched_pipeline_ops {
	int (*parallel)(struct ordsched_job *job);
	void (*serial)(struct ordsched_job *job, int err);
};

/**
 * struct ordsched_pipeline_params - how to build a pipeline
 * @name: shown in debugfs and tracepoints (copied; may be NULL)
 * @ops: the steps (required)
 * @wq: workqueue for the parallel steps and hand-offs (NULL: ordsched's
 *	own unbound workqueue)
 * @ring_order: as in &struct ordsched_seq_params; the window is the most
 *	jobs in flight
 * @budget: as in &struct ordsched_seq_params
 */
struct ordsched_pipeline_params {
	const char *name;
	const struct ordsched_pipeline_ops *ops;
	struct workqueue_struct *wq;
	unsigned int ring_order;
	unsigned int budget;
};

struct ordsched_pipeline *
ordsched_pipeline_create(const struct ordsched_pipeline_params *params);
int ordsched_pipeline_destroy(struct ordsched_pipeline *pl);
int ordsched_pipeline_submit(struct ordsched_pipeline *pl,
			     struct ordsched_job *job);
int ordsched_pipeline_submit_wait(struct ordsched_pipeline *pl,
				  struct ordsched_job *job);
void ordsched_pipeline_flush(struct ordsched_pipeline *pl);
struct ordsched_seq *ordsched_pipeline_seq(struct ordsched_pipeline *pl);

#endif /* _ORDSCHED_H */
