/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parts of ordsched.ko share with each other and not with users.
 */
#ifndef _ORDSCHED_INTERNAL_H
#define _ORDSCHED_INTERNAL_H

#include <linux/dcache.h>
#include <linux/workqueue.h>

/* main.c */
extern struct workqueue_struct *ordsched_wq;
extern struct workqueue_struct *ordsched_highpri_wq;

/*
 * A destroy that cannot finish (work handed in never, a callback that
 * never returns) waits on, and says so in the log this often.
 */
#define ORDSCHED_DESTROY_WARN_SECS	10

/* debugfs.c */
enum ordsched_kind {
	ORDSCHED_KIND_SEQ,
	ORDSCHED_KIND_PIPELINE,
	ORDSCHED_KIND_STREAM,
	ORDSCHED_KIND_KEYED,
	ORDSCHED_KIND_SPREAD,
	ORDSCHED_KIND_DELAY,
	ORDSCHED_KIND_DOMAIN,
	ORDSCHED_NR_KINDS
};

void ordsched_debugfs_init(void);
void ordsched_debugfs_exit(void);
unsigned int ordsched_next_id(void);
struct dentry *ordsched_debugfs_instance(enum ordsched_kind kind,
					 const char *name, unsigned int id);

/* stream.c */
void ordsched_stream_default_init(void);
void ordsched_stream_default_exit(void);

/* chardev.c */
int ordsched_chardev_init(void);
void ordsched_chardev_exit(void);

#endif /* _ORDSCHED_INTERNAL_H */
