/* SPDX-License-Identifier: GPL-2.0 */
/* Tracepoints of the spreader (spread.c). */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ordsched

#if !defined(_ORDSCHED_TRACE_SPREAD_H) || defined(TRACE_HEADER_MULTI_READ)
#define _ORDSCHED_TRACE_SPREAD_H

#include <linux/tracepoint.h>

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

/* A feeder slot pulled a group from the producer. */
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

#endif /* _ORDSCHED_TRACE_SPREAD_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace_spread
#include <trace/define_trace.h>
