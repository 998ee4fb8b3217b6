// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/ordsched: one directory per kind of instance, one
 * directory per instance below it ("<name>.<id>"), stats files inside.
 * Return values of debugfs calls are not checked, as debugfs asks.
 */
#include <linux/atomic.h>
#include <linux/debugfs.h>

#include "internal.h"

struct dentry *ordsched_debugfs_root;
struct dentry *ordsched_debugfs_seq;
struct dentry *ordsched_debugfs_pipeline;
static atomic_t ordsched_ids = ATOMIC_INIT(0);

/* A number that tells instances with the same name apart. */
unsigned int ordsched_next_id(void)
{
	return atomic_inc_return(&ordsched_ids);
}

void ordsched_debugfs_init(void)
{
	ordsched_debugfs_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
	ordsched_debugfs_seq = debugfs_create_dir("seq", ordsched_debugfs_root);
	ordsched_debugfs_pipeline = debugfs_create_dir("pipeline",
						       ordsched_debugfs_root);
}

void ordsched_debugfs_exit(void)
{
	debugfs_remove_recursive(ordsched_debugfs_root);
}
