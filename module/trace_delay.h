/* SPDX-License-Identifier: GPL-2.0 */
/* Tracepoints of the delayed scheduler (delay.c). */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ordsched

#if !defined(_ORDSCHED_TRACE_DELAY_H) || defined(TRACE_HEADER_MULTI_READ)
#define _ORDSCHED_TRACE_DELAY_H

#include <linux/tracepoint.h>

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

#endif /* _ORDSCHED_TRACE_DELAY_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace_delay
#include <trace/define_trace.h>
