/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ordsched: in-kernel API. Include this header; it includes every part:
 *
 *	<ordsched/seq.h>	the ticket sequencer
 *	<ordsched/pipeline.h>	ordered execution on a workqueue
 *	<ordsched/stream.h>	serial streams over a shared workqueue
 *	<ordsched/keyed.h>	key-ordered execution with rollups
 *	<ordsched/spread.h>	the spreader: interleaved groups of jobs
 *	<ordsched/delay.h>	the hrtimer delayed scheduler
 *
 * Every symbol declared there is exported GPL-only in the symbol namespace
 * ORDSCHED; a user module says ORDSCHED_IMPORT_NS() once.
 *
 * Every part has the same life and speaks the same verbs:
 *
 *	X_create()	make an instance (streams: ordsched_stream_init()
 *			in a set); returns an ERR_PTR() on failure
 *	X_queue()	hand over an item; returns true if it was queued,
 *			false if not (already queued, no room, stopped or
 *			invalid, as each part says), like queue_work().
 *			Streams, delays and keyed executors tell an item
 *			already queued (in flight) on any kernel; a pipeline
 *			job must not be in flight, which only a kernel with
 *			debug objects catches (false, and reported; after
 *			its parallel step, at the next hand-in: see
 *			ordsched_pipeline_queue()); a sequencer ticket is handed in once (false; the
 *			first misuse warns)
 *	X_cancel()	take back an item that has not started; returns
 *			true if it will not run, false if it has run, is
 *			running or will run: never both, never neither (and
 *			false for an item not queued there, as each part says)
 *	X_mod()		(delays) move a queued item to a new deadline, or
 *			queue it; returns true if it was queued, like
 *			mod_delayed_work()
 *	X_cancel_sync()	(delays) cancel, then wait for a run that started;
 *			process context; returns true if it was queued and
 *			has been cancelled, like cancel_delayed_work_sync()
 *	X_flush()	wait for the items handed over before the call and
 *			for no later one (but a flush of the keyed executor
 *			or of delays that waits for another flush first also
 *			waits for what comes meanwhile, a sequencer's or
 *			pipeline's returns when the drain that ran its last
 *			item ends, which may run later items first, and the
 *			spreader's waits until its producer is dry, so kicks
 *			during the wait extend it: see there); killable: 0
 *			or -EINTR
 *	X_destroy()	drain and free: returns only when nothing of the
 *			instance runs or will run, so the module that owns
 *			the callbacks may unload right after it. Work whose
 *			turn can come without the clock is run (sequencer,
 *			pipeline, streams, keyed executor), including work
 *			the callbacks hand over meanwhile; work that waits
 *			for the clock or the producer is handed back
 *			(pending delays to @cancelled, the spreader's jobs
 *			to @release). Never fails: it waits as long as it
 *			takes. The sequencer, pipeline, streams and keyed
 *			executor log every 10 s while they wait, naming the
 *			instance (a pipeline's sequencer bears its name, a
 *			stream is named by its set); delays and the
 *			spreader wait without logging. Once destroy is
 *			called, nobody may queue or cancel from outside
 *			the instance's callbacks (but what a part's
 *			destroy names, such as the hand-ins of a
 *			sequencer's tickets taken before), nor flush it
 *			or read its stats or state; and every call made
 *			before from outside the callbacks (a queue,
 *			kick, take, cancel, flush, read, or wait for
 *			room such as a sequencer's
 *			ordsched_seq_tickets_wait()) must have
 *			returned: destroy does not wait for them, and
 *			they may still use the instance.
 *
 * Each part's header opens with its contexts and its memory ordering; in
 * all of them, the stores made before handing an item over are visible to
 * the function that runs it. A call that is not allowed in hard interrupt
 * context may take spinlock_t locks: on PREEMPT_RT, where those sleep, it
 * must not be made with preemption disabled or under a raw spinlock.
 * ordsched's own workqueue has a rescuer (WQ_MEM_RECLAIM), but every
 * instance that passes no workqueue shares it, and its one rescuer: under
 * memory pressure one user's item that sleeps (allocates, waits) holds up
 * the others'. As the workqueue rules ask of every user on a reclaim path
 * (writeback, a block driver's completions), such a user passes a
 * WQ_MEM_RECLAIM workqueue of its own. No part takes a BH workqueue
 * (WQ_BH) where what it runs there may sleep: each @wq says.
 *
 * Flush, stop, destroy and the waits for room (ordsched_seq_tickets_wait(),
 * ordsched_pipeline_queue_wait()) wait for work items of the instance's
 * workqueue. As with flush_work(), they must not be called from a work
 * item that those would have to wait behind: one of the same workqueue
 * when it runs one item at a time (ordered, or at its max_active), from
 * any instance, or, for a delayed scheduler whose tasks run on a stream,
 * an item of that stream. No lockdep report tells; the caller just waits
 * forever (a killable flush, until killed).
 */
#ifndef _ORDSCHED_H
#define _ORDSCHED_H

#include <linux/module.h>

/*
 * The exports are EXPORT_SYMBOL_GPL() in the namespace ORDSCHED, set for
 * the whole module by DEFAULT_SYMBOL_NAMESPACE in Kbuild (an identifier or
 * a string, as the kernel's export.h wants it). A module that uses
 * them says ORDSCHED_IMPORT_NS() once: the string form below means the
 * same on every version.
 */
#define ORDSCHED_IMPORT_NS()	MODULE_INFO(import_ns, "ORDSCHED")

#include <ordsched/seq.h>
#include <ordsched/pipeline.h>
#include <ordsched/stream.h>
#include <ordsched/keyed.h>
#include <ordsched/spread.h>
#include <ordsched/delay.h>

#endif /* _ORDSCHED_H */
