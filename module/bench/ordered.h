/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ordered-execution benchmark: every contender gets the same items,
 * the same work and the same serial step; only the way it keeps the order
 * differs. See ordered.c.
 */
#ifndef _ORDSCHED_BENCH_ORDERED_H
#define _ORDSCHED_BENCH_ORDERED_H

#include <linux/completion.h>
#include <linux/padata.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <ordsched.h>

struct bench_out;
struct ob_run;

/*
 * Each producer may have at most window items not yet through the serial
 * step, whatever the contender: the same closed loop for everyone, so that
 * latencies compare and no contender wins by queueing without bound.
 */
struct ob_producer {
	atomic_t inflight;
	wait_queue_head_t wq;
	/* How often the window was full; written by the producer only. */
	u64 waits;
	/*
	 * One more than the id of its last item serialized; written by the
	 * serial step only. A producer's items reach it in the order they
	 * were produced, whatever numbers a contender gives them.
	 */
	u64 next_id;
} ____cacheline_aligned_in_smp;

struct ob_item {
	struct ob_run *run;
	struct ob_producer *prod;
	/* Identity, known to the producer: chooses the work and checks it. */
	u64 id;
	/* When the producer started the item. */
	u64 t0;
	/* What the work computed. */
	u64 value;
	union {
		struct ordsched_seq_item si;
		struct ordsched_job job;
		struct work_struct work;
#if IS_ENABLED(CONFIG_PADATA)
		struct padata_priv padata;
#endif
		/* reorder: the ticket the producer took */
		u64 ticket;
	};
};

struct ob_contender {
	const char *name;
	/* Build the contender's state in run->priv; process context. */
	int (*setup)(struct ob_run *run);
	/* Free it once every item went through the serial step. */
	void (*teardown)(struct ob_run *run);
	/*
	 * Start one item: give it its place in the order, see that
	 * ob_work() and then ob_serial() run for it, in that order. Called by
	 * the item's producer, a kthread bound to a CPU.
	 */
	int (*produce)(struct ob_run *run, struct ob_item *item);
	/* Optional: append the contender's own counters to the result. */
	void (*report)(struct ob_run *run, struct bench_out *out);
};

struct ob_run {
	const struct ob_contender *c;
	void *priv;
	unsigned int window;
	unsigned int producers;
	u64 items;
	u64 per_producer;
	u64 loops;
	struct ob_item *item;
	struct ob_producer *prod;
	/* Items whose work is done, per CPU, for the reorder depth. */
	u64 __percpu *done;

	/* The serial step's state: written by the serial step only. */
	u64 next_seq;
	u64 serialized;
	u64 peak_depth;
	u64 t_end;
	u32 *lat;
	unsigned long *seen;
	int error;
	u64 error_at;

	struct completion all_done;
};

void ob_work(struct ob_run *run, struct ob_item *item);
void ob_serial(struct ob_item *item, u64 seq);

extern const struct ob_contender ob_seq, ob_pipeline;
extern const struct ob_contender ob_padata, ob_padata_serial;
extern const struct ob_contender ob_owq, ob_lock, ob_reorder;

#endif /* _ORDSCHED_BENCH_ORDERED_H */
