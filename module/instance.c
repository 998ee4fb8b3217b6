// SPDX-License-Identifier: GPL-2.0
/*
 * What every instance of every part has, in one place: a name, an id, a
 * table of per-CPU counters and one debugfs file.
 *
 * /sys/kernel/debug/ordsched has one directory per kind of instance and
 * one per instance below it ("<name>.<id>"), holding "stats": the lines
 * of the part's show function, if any, then "counter: value" for each
 * counter. A part declares its counters as a table of names in the order
 * of the u64 fields of its public stats structure, so that summing them
 * fills that structure; counters named in the table's max mask hold a
 * maximum and are combined with max() instead of summed.
 * Return values of debugfs calls are not checked, as debugfs asks.
 */
#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/xarray.h>

#include "internal.h"

static const char *const ordsched_kind_names[ORDSCHED_NR_KINDS] = {
	[ORDSCHED_KIND_SEQ]		= "seq",
	[ORDSCHED_KIND_PIPELINE]	= "pipeline",
	[ORDSCHED_KIND_STREAM]		= "stream",
	[ORDSCHED_KIND_KEYED]		= "keyed",
	[ORDSCHED_KIND_SPREAD]		= "spread",
	[ORDSCHED_KIND_DELAY]		= "delay",
};

static struct dentry *ordsched_debugfs_root;
static struct dentry *ordsched_debugfs_dirs[ORDSCHED_NR_KINDS];
/*
 * Instance ids, unique among live instances (a counter would repeat
 * after 2^32 creations, and two live instances of one name would then
 * ask for the same debugfs folder, the second silently refused), handed
 * out in turn so that a destroyed instance's id is not reused at once.
 */
static DEFINE_XARRAY_ALLOC1(ordsched_ids);
static u32 ordsched_next_id;

/**
 * ordsched_instance_sum() - add up the counters of every CPU
 * @inst: the instance
 * @sums: one u64 per counter
 *
 * Without stopping the instance: each sum is exact once it is idle.
 */
void ordsched_instance_sum(const struct ordsched_instance *inst, u64 *sums)
{
	const struct ordsched_counters *c = inst->counters;
	unsigned int i;
	int cpu;

	memset(sums, 0, c->nr * sizeof(*sums));
	for_each_possible_cpu(cpu) {
		const u64 *v = per_cpu_ptr(inst->stats, cpu);

		for (i = 0; i < c->nr; i++)
			sums[i] = c->max & BIT(i) ? max(sums[i], v[i]) :
						    sums[i] + v[i];
	}
}

static int instance_stats_show(struct seq_file *m, void *unused)
{
	struct ordsched_instance *inst = m->private;
	const struct ordsched_counters *c = inst->counters;
	u64 *sums;
	unsigned int i;

	if (inst->show)
		inst->show(m, inst);
	if (!c)
		return 0;
	sums = kcalloc(c->nr, sizeof(*sums), GFP_KERNEL);
	if (!sums)
		return -ENOMEM;
	ordsched_instance_sum(inst, sums);
	for (i = 0; i < c->nr; i++)
		seq_printf(m, "%s: %llu\n", c->names[i], sums[i]);
	kfree(sums);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(instance_stats);

/**
 * ordsched_instance_init() - name an instance, count for it, show it
 * @inst: the instance, embedded in the part's structure
 * @kind: its kind: the debugfs directory it appears in
 * @name: its name (copied, truncated to fit; NULL: the kind's name)
 * @counters: its per-CPU counters (NULL: none)
 * @show: prints the lines of "stats" before the counters (may be NULL)
 *
 * Return: 0 or -ENOMEM.
 */
int ordsched_instance_init(struct ordsched_instance *inst,
			   enum ordsched_kind kind, const char *name,
			   const struct ordsched_counters *counters,
			   void (*show)(struct seq_file *m,
					struct ordsched_instance *inst))
{
	char dir[sizeof(inst->name) + 12];
	u32 id;

	inst->counters = counters;
	inst->show = show;
	inst->stats = NULL;
	if (counters) {
		inst->stats = __alloc_percpu(counters->nr * sizeof(u64),
					     sizeof(u64));
		if (!inst->stats)
			return -ENOMEM;
	}
	/* Fails only without memory: 2^32 live instances would need more. */
	if (xa_alloc_cyclic(&ordsched_ids, &id, inst, xa_limit_32b,
			    &ordsched_next_id, GFP_KERNEL) < 0) {
		free_percpu(inst->stats);
		inst->stats = NULL;
		return -ENOMEM;
	}
	inst->id = id;
	strscpy(inst->name, name ?: ordsched_kind_names[kind],
		sizeof(inst->name));
	snprintf(dir, sizeof(dir), "%s.%u", inst->name, inst->id);
	/* A '/' would make debugfs refuse the folder, silently. */
	strreplace(dir, '/', '_');
	inst->debugfs = debugfs_create_dir(dir, ordsched_debugfs_dirs[kind]);
	debugfs_create_file("stats", 0444, inst->debugfs, inst,
			    &instance_stats_fops);
	return 0;
}

/**
 * ordsched_instance_exit() - remove an instance's debugfs files, counters
 * @inst: the instance
 *
 * Once this returns, no reader of "stats" is inside the show functions.
 */
void ordsched_instance_exit(struct ordsched_instance *inst)
{
	debugfs_remove(inst->debugfs);
	xa_erase(&ordsched_ids, inst->id);
	free_percpu(inst->stats);
	inst->stats = NULL;
}

void ordsched_debugfs_init(void)
{
	int i;

	ordsched_debugfs_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
	for (i = 0; i < ORDSCHED_NR_KINDS; i++)
		ordsched_debugfs_dirs[i] =
			debugfs_create_dir(ordsched_kind_names[i],
					   ordsched_debugfs_root);
}

/* A read-only file at the top of the tree, removed with it. */
void ordsched_debugfs_create_file(const char *name,
				  const struct file_operations *fops)
{
	debugfs_create_file(name, 0444, ordsched_debugfs_root, NULL, fops);
}

void ordsched_debugfs_exit(void)
{
	debugfs_remove(ordsched_debugfs_root);
}
