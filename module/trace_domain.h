/* SPDX-License-Identifier: GPL-2.0 */
/* Tracepoints of the ordering domains behind /dev/ordsched (domain.c). */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ordsched

#if !defined(_ORDSCHED_TRACE_DOMAIN_H) || defined(TRACE_HEADER_MULTI_READ)
#define _ORDSCHED_TRACE_DOMAIN_H

#include <linux/tracepoint.h>

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

#endif /* _ORDSCHED_TRACE_DOMAIN_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace_domain
#include <trace/define_trace.h>
