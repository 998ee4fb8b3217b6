/* SPDX-License-Identifier: GPL-2.0 */
/* Tracepoints of the keyed executor (keyed.c). */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ordsched

#if !defined(_ORDSCHED_TRACE_KEYED_H) || defined(TRACE_HEADER_MULTI_READ)
#define _ORDSCHED_TRACE_KEYED_H

#include <linux/tracepoint.h>

TRACE_EVENT(ordsched_keyed_submit,
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

#endif /* _ORDSCHED_TRACE_KEYED_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace_keyed
#include <trace/define_trace.h>
