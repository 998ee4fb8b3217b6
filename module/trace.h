/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tracepoints of every part, one system: ordsched. Instantiated once,
 * in trace.c; every other file includes this header as it is. Events name
 * their instance by its id, the number in its debugfs directory's name;
 * a domain's is ordsched_stats.domain_id, as in debugfs "domains".
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ordsched

#if !defined(_ORDSCHED_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _ORDSCHED_TRACE_H

#include <linux/tracepoint.h>

/* ---- the ticket sequencer (seq.c) */

TRACE_EVENT(ordsched_seq_ticket,
	    TP_PROTO(unsigned int id, u64 first, unsigned int n),
	    TP_ARGS(id, first, n),
	    TP_STRUCT__entry(__field(unsigned int, id)
			     __field(u64, first)
			     __field(unsigned int, n)),
	    TP_fast_assign(__entry->id = id;
			   __entry->first = first;
			   __entry->n = n;),
	    TP_printk("seq=%u first=%llu n=%u",
		      __entry->id, __entry->first, __entry->n)
);

TRACE_EVENT(ordsched_seq_park,
	    TP_PROTO(unsigned int id, u64 ticket, u64 depth),
	    TP_ARGS(id, ticket, depth),
	    TP_STRUCT__entry(__field(unsigned int, id)
			     __field(u64, ticket)
			     __field(u64, depth)),
	    TP_fast_assign(__entry->id = id;
			   __entry->ticket = ticket;
			   __entry->depth = depth;),
	    TP_printk("seq=%u ticket=%llu depth=%llu",
		      __entry->id, __entry->ticket, __entry->depth)
);

DECLARE_EVENT_CLASS(ordsched_seq_ticket_class,
		    TP_PROTO(unsigned int id, u64 ticket),
		    TP_ARGS(id, ticket),
		    TP_STRUCT__entry(__field(unsigned int, id)
				     __field(u64, ticket)),
		    TP_fast_assign(__entry->id = id;
				   __entry->ticket = ticket;),
		    TP_printk("seq=%u ticket=%llu", __entry->id, __entry->ticket)
);

DEFINE_EVENT(ordsched_seq_ticket_class, ordsched_seq_run,
	     TP_PROTO(unsigned int id, u64 ticket),
	     TP_ARGS(id, ticket));

DEFINE_EVENT(ordsched_seq_ticket_class, ordsched_seq_cancel,
	     TP_PROTO(unsigned int id, u64 ticket),
	     TP_ARGS(id, ticket));

DEFINE_EVENT(ordsched_seq_ticket_class, ordsched_seq_handoff,
	     TP_PROTO(unsigned int id, u64 ticket),
	     TP_ARGS(id, ticket));

TRACE_EVENT(ordsched_seq_drain,
	    TP_PROTO(unsigned int id, u64 first, u64 count, bool handoff),
	    TP_ARGS(id, first, count, handoff),
	    TP_STRUCT__entry(__field(unsigned int, id)
			     __field(u64, first)
			     __field(u64, count)
			     __field(bool, handoff)),
	    TP_fast_assign(__entry->id = id;
			   __entry->first = first;
			   __entry->count = count;
			   __entry->handoff = handoff;),
	    TP_printk("seq=%u first=%llu count=%llu%s",
		      __entry->id, __entry->first, __entry->count,
		      __entry->handoff ? " handoff" : "")
);

/* ---- the serial streams (stream.c) */

DECLARE_EVENT_CLASS(ordsched_stream_item_class,
		    TP_PROTO(unsigned int set, const void *stream,
			     const void *item),
		    TP_ARGS(set, stream, item),
		    TP_STRUCT__entry(__field(unsigned int, set)
				     __field(const void *, stream)
				     __field(const void *, item)),
		    TP_fast_assign(__entry->set = set;
				   __entry->stream = stream;
				   __entry->item = item;),
		    TP_printk("set=%u stream=%p item=%p", __entry->set,
			      __entry->stream, __entry->item)
);

DEFINE_EVENT(ordsched_stream_item_class, ordsched_stream_queue,
	     TP_PROTO(unsigned int set, const void *stream, const void *item),
	     TP_ARGS(set, stream, item));

DEFINE_EVENT(ordsched_stream_item_class, ordsched_stream_run,
	     TP_PROTO(unsigned int set, const void *stream, const void *item),
	     TP_ARGS(set, stream, item));

TRACE_EVENT(ordsched_stream_cancel,
	    TP_PROTO(unsigned int set, const void *stream, const void *item,
		     bool removed),
	    TP_ARGS(set, stream, item, removed),
	    TP_STRUCT__entry(__field(unsigned int, set)
			     __field(const void *, stream)
			     __field(const void *, item)
			     __field(bool, removed)),
	    TP_fast_assign(__entry->set = set;
			   __entry->stream = stream;
			   __entry->item = item;
			   __entry->removed = removed;),
	    TP_printk("set=%u stream=%p item=%p removed=%d", __entry->set,
		      __entry->stream, __entry->item, __entry->removed)
);

TRACE_EVENT(ordsched_stream_drain,
	    TP_PROTO(unsigned int set, const void *stream, unsigned int count,
		     bool requeued),
	    TP_ARGS(set, stream, count, requeued),
	    TP_STRUCT__entry(__field(unsigned int, set)
			     __field(const void *, stream)
			     __field(unsigned int, count)
			     __field(bool, requeued)),
	    TP_fast_assign(__entry->set = set;
			   __entry->stream = stream;
			   __entry->count = count;
			   __entry->requeued = requeued;),
	    TP_printk("set=%u stream=%p count=%u%s", __entry->set,
		      __entry->stream, __entry->count,
		      __entry->requeued ? " requeued" : "")
);

/* ---- key-ordered execution (keyed.c) */

TRACE_EVENT(ordsched_keyed_queue,
	    TP_PROTO(unsigned int id, const void *task, u64 key,
		     unsigned int nr_keys, unsigned int heads),
	    TP_ARGS(id, task, key, nr_keys, heads),
	    TP_STRUCT__entry(__field(unsigned int, id)
			     __field(const void *, task)
			     __field(u64, key)
			     __field(unsigned int, nr_keys)
			     __field(unsigned int, heads)),
	    TP_fast_assign(__entry->id = id;
			   __entry->task = task;
			   __entry->key = key;
			   __entry->nr_keys = nr_keys;
			   __entry->heads = heads;),
	    TP_printk("keyed=%u task=%p key=%llu nr_keys=%u heads=%u",
		      __entry->id, __entry->task, __entry->key,
		      __entry->nr_keys, __entry->heads)
);

DECLARE_EVENT_CLASS(ordsched_keyed_task_class,
		    TP_PROTO(unsigned int id, const void *task),
		    TP_ARGS(id, task),
		    TP_STRUCT__entry(__field(unsigned int, id)
				     __field(const void *, task)),
		    TP_fast_assign(__entry->id = id;
				   __entry->task = task;),
		    TP_printk("keyed=%u task=%p", __entry->id, __entry->task)
);

DEFINE_EVENT(ordsched_keyed_task_class, ordsched_keyed_ready,
	     TP_PROTO(unsigned int id, const void *task),
	     TP_ARGS(id, task));

DEFINE_EVENT(ordsched_keyed_task_class, ordsched_keyed_run,
	     TP_PROTO(unsigned int id, const void *task),
	     TP_ARGS(id, task));

DEFINE_EVENT(ordsched_keyed_task_class, ordsched_keyed_cancel,
	     TP_PROTO(unsigned int id, const void *task),
	     TP_ARGS(id, task));

TRACE_EVENT(ordsched_keyed_key,
	    TP_PROTO(unsigned int id, u64 key, bool live),
	    TP_ARGS(id, key, live),
	    TP_STRUCT__entry(__field(unsigned int, id)
			     __field(u64, key)
			     __field(bool, live)),
	    TP_fast_assign(__entry->id = id;
			   __entry->key = key;
			   __entry->live = live;),
	    TP_printk("keyed=%u key=%llu %s", __entry->id, __entry->key,
		      __entry->live ? "live" : "reclaimed")
);

/* ---- the spreader (spread.c) */

DECLARE_EVENT_CLASS(ordsched_spread_slot_class,
		    TP_PROTO(unsigned int id, unsigned int slot,
			     const void *what),
		    TP_ARGS(id, slot, what),
		    TP_STRUCT__entry(__field(unsigned int, id)
				     __field(unsigned int, slot)
				     __field(const void *, what)),
		    TP_fast_assign(__entry->id = id;
				   __entry->slot = slot;
				   __entry->what = what;),
		    TP_printk("spread=%u slot=%u %p", __entry->id,
			      __entry->slot, __entry->what)
);

/* A lane slot pulled a group from the producer. */
DEFINE_EVENT(ordsched_spread_slot_class, ordsched_spread_pull,
	     TP_PROTO(unsigned int id, unsigned int slot, const void *group),
	     TP_ARGS(id, slot, group));

/* A job of the group in the slot was dispatched. */
DEFINE_EVENT(ordsched_spread_slot_class, ordsched_spread_dispatch,
	     TP_PROTO(unsigned int id, unsigned int slot, const void *job),
	     TP_ARGS(id, slot, job));

TRACE_EVENT(ordsched_spread_dry,
	    TP_PROTO(unsigned int id),
	    TP_ARGS(id),
	    TP_STRUCT__entry(__field(unsigned int, id)),
	    TP_fast_assign(__entry->id = id;),
	    TP_printk("spread=%u", __entry->id)
);

/* ---- the delayed scheduler (delay.c) */

/* The hrtimer was started for an earlier deadline. */
TRACE_EVENT(ordsched_delay_arm,
	    TP_PROTO(unsigned int id, s64 expires, u64 slack),
	    TP_ARGS(id, expires, slack),
	    TP_STRUCT__entry(__field(unsigned int, id)
			     __field(s64, expires)
			     __field(u64, slack)),
	    TP_fast_assign(__entry->id = id;
			   __entry->expires = expires;
			   __entry->slack = slack;),
	    TP_printk("delay=%u expires=%lld slack=%llu",
		      __entry->id, __entry->expires, __entry->slack)
);

/* The hrtimer fired; @due: the earliest task is due and a batch follows. */
TRACE_EVENT(ordsched_delay_expire,
	    TP_PROTO(unsigned int id, s64 now, u64 pending, bool due),
	    TP_ARGS(id, now, pending, due),
	    TP_STRUCT__entry(__field(unsigned int, id)
			     __field(s64, now)
			     __field(u64, pending)
			     __field(bool, due)),
	    TP_fast_assign(__entry->id = id;
			   __entry->now = now;
			   __entry->pending = pending;
			   __entry->due = due;),
	    TP_printk("delay=%u now=%lld pending=%llu%s",
		      __entry->id, __entry->now, __entry->pending,
		      __entry->due ? " due" : "")
);

/* One task handed over to its target, @late ns after its deadline. */
TRACE_EVENT(ordsched_delay_dispatch,
	    TP_PROTO(unsigned int id, u64 seq, s64 deadline, s64 late),
	    TP_ARGS(id, seq, deadline, late),
	    TP_STRUCT__entry(__field(unsigned int, id)
			     __field(u64, seq)
			     __field(s64, deadline)
			     __field(s64, late)),
	    TP_fast_assign(__entry->id = id;
			   __entry->seq = seq;
			   __entry->deadline = deadline;
			   __entry->late = late;),
	    TP_printk("delay=%u seq=%llu deadline=%lld late=%lld",
		      __entry->id, __entry->seq, __entry->deadline,
		      __entry->late)
);

/* A task cancelled while pending, or after hand-over but before start. */
TRACE_EVENT(ordsched_delay_cancel,
	    TP_PROTO(unsigned int id, u64 seq, bool handed_over),
	    TP_ARGS(id, seq, handed_over),
	    TP_STRUCT__entry(__field(unsigned int, id)
			     __field(u64, seq)
			     __field(bool, handed_over)),
	    TP_fast_assign(__entry->id = id;
			   __entry->seq = seq;
			   __entry->handed_over = handed_over;),
	    TP_printk("delay=%u seq=%llu%s", __entry->id, __entry->seq,
		      __entry->handed_over ? " handed_over" : "")
);

/* ---- /dev/ordsched domains (domain.c) */

/* A handle took tickets first .. first + count - 1. */
TRACE_EVENT(ordsched_domain_take,
	    TP_PROTO(unsigned int id, u64 first, unsigned int count),
	    TP_ARGS(id, first, count),
	    TP_STRUCT__entry(__field(unsigned int, id)
			     __field(u64, first)
			     __field(unsigned int, count)),
	    TP_fast_assign(__entry->id = id;
			   __entry->first = first;
			   __entry->count = count;),
	    TP_printk("domain=%u first=%llu count=%u",
		      __entry->id, __entry->first, __entry->count)
);

/* A command completed (how 0) or trashed (how 1) tickets. */
TRACE_EVENT(ordsched_domain_retire,
	    TP_PROTO(unsigned int id, u64 first, unsigned int count, int how),
	    TP_ARGS(id, first, count, how),
	    TP_STRUCT__entry(__field(unsigned int, id)
			     __field(u64, first)
			     __field(unsigned int, count)
			     __field(int, how)),
	    TP_fast_assign(__entry->id = id;
			   __entry->first = first;
			   __entry->count = count;
			   __entry->how = how;),
	    TP_printk("domain=%u first=%llu count=%u %s",
		      __entry->id, __entry->first, __entry->count,
		      __entry->how ? "trash" : "complete")
);

/* A released handle left tickets behind; they were trashed. */
TRACE_EVENT(ordsched_domain_release,
	    TP_PROTO(unsigned int id, unsigned int count),
	    TP_ARGS(id, count),
	    TP_STRUCT__entry(__field(unsigned int, id)
			     __field(unsigned int, count)),
	    TP_fast_assign(__entry->id = id;
			   __entry->count = count;),
	    TP_printk("domain=%u trashed=%u", __entry->id, __entry->count)
);

/* A wait that slept ended: 0 (the turn came) or -errno. */
TRACE_EVENT(ordsched_domain_wait,
	    TP_PROTO(unsigned int id, u64 ticket, int ret),
	    TP_ARGS(id, ticket, ret),
	    TP_STRUCT__entry(__field(unsigned int, id)
			     __field(u64, ticket)
			     __field(int, ret)),
	    TP_fast_assign(__entry->id = id;
			   __entry->ticket = ticket;
			   __entry->ret = ret;),
	    TP_printk("domain=%u ticket=%llu ret=%d",
		      __entry->id, __entry->ticket, __entry->ret)
);

#endif /* _ORDSCHED_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
