/* SPDX-License-Identifier: GPL-2.0 */
/* Tracepoints of the ticket sequencer. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ordsched

#if !defined(_ORDSCHED_TRACE_SEQ_H) || defined(TRACE_HEADER_MULTI_READ)
#define _ORDSCHED_TRACE_SEQ_H

#include <linux/tracepoint.h>

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

DEFINE_EVENT(ordsched_seq_ticket_class, ordsched_seq_trash,
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

#endif /* _ORDSCHED_TRACE_SEQ_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace_seq
#include <trace/define_trace.h>
