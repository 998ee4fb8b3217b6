/* SPDX-License-Identifier: GPL-2.0 */
/* Tracepoints of the serial streams (stream.c). */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ordsched

#if !defined(_ORDSCHED_TRACE_STREAM_H) || defined(TRACE_HEADER_MULTI_READ)
#define _ORDSCHED_TRACE_STREAM_H

#include <linux/tracepoint.h>

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

#endif /* _ORDSCHED_TRACE_STREAM_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace_stream
#include <trace/define_trace.h>
