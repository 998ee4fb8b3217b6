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

/* debugfs.c */
extern struct dentry *ordsched_debugfs_root;
extern struct dentry *ordsched_debugfs_seq;
extern struct dentry *ordsched_debugfs_pipeline;
void ordsched_debugfs_init(void);
void ordsched_debugfs_exit(void);
unsigned int ordsched_next_id(void);

/* chardev.c */
int ordsched_chardev_init(void);
void ordsched_chardev_exit(void);

#endif /* _ORDSCHED_INTERNAL_H */
