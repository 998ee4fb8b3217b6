// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/ordsched: one directory per kind of instance, one
 * directory per instance below it ("<name>.<id>"), stats files inside.
 * Return values of debugfs calls are not checked, as debugfs asks.
 */
#include <linux/atomic.h>
#include <linux/debugfs.h>

#include "internal.h"

static const char *const ordsched_debugfs_names[ORDSCHED_NR_KINDS] = {
	[ORDSCHED_KIND_SEQ]		= "seq",
	[ORDSCHED_KIND_PIPELINE]	= "pipeline",
	[ORDSCHED_KIND_STREAM]		= "stream",
	[ORDSCHED_KIND_KEYED]		= "keyed",
	[ORDSCHED_KIND_SPREAD]		= "spread",
	[ORDSCHED_KIND_DELAY]		= "delay",
	[ORDSCHED_KIND_DOMAIN]		= "domain",
};

static struct dentry *ordsched_debugfs_root;
static struct dentry *ordsched_debugfs_dirs[ORDSCHED_NR_KINDS];
static atomic_t ordsched_ids = ATOMIC_INIT(0);

/* A number that tells instances with the same name apart. */
unsigned int ordsched_next_id(void)
{
	return atomic_inc_return(&ordsched_ids);
}

/*
 * Create the directory of one instance, "<name>.<id>" below its kind's
 * directory; remove it with debugfs_remove().
 */
struct dentry *ordsched_debugfs_instance(enum ordsched_kind kind,
					 const char *name, unsigned int id)
{
	char dir[64];

	snprintf(dir, sizeof(dir), "%s.%u", name, id);
	return debugfs_create_dir(dir, ordsched_debugfs_dirs[kind]);
}

void ordsched_debugfs_init(void)
{
	int i;

	ordsched_debugfs_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
	for (i = 0; i < ORDSCHED_NR_KINDS; i++)
		ordsched_debugfs_dirs[i] =
			debugfs_create_dir(ordsched_debugfs_names[i],
					   ordsched_debugfs_root);
}

void ordsched_debugfs_exit(void)
{
	debugfs_remove(ordsched_debugfs_root);
}
