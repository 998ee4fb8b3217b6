/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parts of ordsched.ko share with each other and not with users.
 */
#ifndef _ORDSCHED_INTERNAL_H
#define _ORDSCHED_INTERNAL_H

#include <linux/dcache.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/types.h>
#include <linux/workqueue.h>

struct ordsched_seq;
struct ordsched_seq_item;
struct ordsched_stream;
struct ordsched_stream_item;

/* main.c */
extern struct workqueue_struct *ordsched_wq;
extern struct workqueue_struct *ordsched_highpri_wq;
extern struct workqueue_struct *ordsched_wake_wq;

/*
 * ordsched's work functions that may run on a caller's workqueue, whose
 * destroy returns once they touch the instance no more, maybe before they
 * have returned: they count themselves from their first statement to
 * their last, and the module's exit waits for them (main.c).
 */
DECLARE_PER_CPU(long, ordsched_fns_running);

static inline void ordsched_fn_enter(void)
{
	this_cpu_inc(ordsched_fns_running);
}

static inline void ordsched_fn_leave(void)
{
	this_cpu_dec(ordsched_fns_running);
}

/*
 * A destroy that cannot finish (work handed in never, a callback that
 * never returns) waits on, and says so in the log this often.
 */
#define ORDSCHED_DESTROY_WARN_SECS	10

/* instance.c */
enum ordsched_kind {
	ORDSCHED_KIND_SEQ,
	ORDSCHED_KIND_PIPELINE,
	ORDSCHED_KIND_STREAM,
	ORDSCHED_KIND_KEYED,
	ORDSCHED_KIND_SPREAD,
	ORDSCHED_KIND_DELAY,
	ORDSCHED_NR_KINDS
};

/*
 * The per-CPU counters of a kind of instance: their names, in the order of
 * the u64 fields of the part's stats structure, and which of them hold a
 * maximum rather than a count (bit i for names[i]).
 */
struct ordsched_counters {
	const char *const *names;
	unsigned int nr;
	unsigned long max;
};

/* What every instance has; embedded in the part's structure. */
struct ordsched_instance {
	unsigned int id;
	char name[32];
	const struct ordsched_counters *counters;
	/* Per CPU, counters->nr u64s; the part aliases it with its type. */
	void __percpu *stats;
	void (*show)(struct seq_file *m, struct ordsched_instance *inst);
	struct dentry *debugfs;
};

void ordsched_debugfs_init(void);
void ordsched_debugfs_exit(void);
void ordsched_debugfs_create_file(const char *name,
				  const struct file_operations *fops);
int ordsched_instance_init(struct ordsched_instance *inst,
			   enum ordsched_kind kind, const char *name,
			   const struct ordsched_counters *counters,
			   void (*show)(struct seq_file *m,
					struct ordsched_instance *inst));
void ordsched_instance_exit(struct ordsched_instance *inst);
void ordsched_instance_sum(const struct ordsched_instance *inst, u64 *sums);

/*
 * Declare the counters of a kind whose stats structure @type is exactly
 * its u64 counters, named by the strings that follow, in field order.
 */
#define ORDSCHED_COUNTERS(var, type, maxmask, ...)			\
	static const char *const var##_names[] = { __VA_ARGS__ };	\
	static_assert(sizeof(var##_names) / sizeof(char *) * sizeof(u64) == \
		      sizeof(type));					\
	static const struct ordsched_counters var = {			\
		.names = var##_names,					\
		.nr = ARRAY_SIZE(var##_names),				\
		.max = (maxmask),					\
	}

/* seq.c */
void ordsched_seq_item_freed(struct ordsched_seq_item *item, u64 ticket);
bool ordsched_seq_cancel_nodrain(struct ordsched_seq *seq, u64 ticket);

/* stream.c */
int ordsched_stream_default_init(void);
void ordsched_stream_default_exit(void);
bool ordsched_stream_queue_untracked(struct ordsched_stream *stream,
				     struct ordsched_stream_item *item);

/* delay.c: the wheels' cache and the CPUs' wheels, before any scheduler */
int ordsched_delay_init(void);
void ordsched_delay_exit(void);

/* chardev.c */
int ordsched_chardev_init(void);
void ordsched_chardev_exit(void);

#endif /* _ORDSCHED_INTERNAL_H */
