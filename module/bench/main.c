// SPDX-License-Identifier: GPL-2.0
/*
 * ordsched_bench: benchmarks of ordsched against what users would pick
 * instead, driven from userspace one run at a time:
 *
 *	/sys/kernel/debug/ordsched_bench/run
 *		write "NAME key=value ..." to run one benchmark; the write
 *		returns when the run is over (an errno if it failed or a
 *		check did not hold); read the result line afterwards
 *	/sys/kernel/debug/ordsched_bench/contenders
 *		one line per benchmark: its name, then its contenders
 *
 * Runs are serialized. The script selftests/qemu/bench.sh repeats and
 * interleaves them; the host turns the lines into tables and plots.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <ordsched.h>

#include "bench.h"

#define BENCH_CMD_MAX	256
#define BENCH_OUT_MAX	1024

static const struct bench_def *const bench_defs[] = {
	&bench_ordered,
	&bench_streams,
	&bench_delays,
	&bench_keys,
};

static struct dentry *bench_dir;
/* Serializes runs and guards the result. */
static DEFINE_MUTEX(bench_lock);
static char bench_result[BENCH_OUT_MAX];

void bench_printf(struct bench_out *out, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	out->len += vscnprintf(out->buf + out->len, out->size - out->len,
			       fmt, ap);
	va_end(ap);
}

/* Split "key=value key=value" in place. */
static int bench_parse(char *s, struct bench_args *args)
{
	char *word, *eq;

	args->nr = 0;
	while ((word = strsep(&s, " \t\n"))) {
		if (!*word)
			continue;
		eq = strchr(word, '=');
		if (!eq || args->nr == BENCH_MAX_ARGS)
			return -EINVAL;
		*eq = '\0';
		args->key[args->nr] = word;
		args->val[args->nr] = eq + 1;
		args->nr++;
	}
	return 0;
}

const char *bench_arg_str(const struct bench_args *args, const char *key)
{
	unsigned int i;

	for (i = 0; i < args->nr; i++)
		if (!strcmp(args->key[i], key))
			return args->val[i];
	return NULL;
}

/* Return: 0 (@def if @key is absent), or -EINVAL for a malformed value. */
int bench_arg_u64(const struct bench_args *args, const char *key, u64 def,
		  u64 *val)
{
	const char *s = bench_arg_str(args, key);

	*val = def;
	return s ? kstrtou64(s, 0, val) : 0;
}

static int bench_dispatch(char *cmd, struct bench_out *out)
{
	struct bench_args args;
	char *name = strsep(&cmd, " \t\n");
	unsigned int i;
	int ret;

	ret = bench_parse(cmd ?: "", &args);
	if (ret)
		return ret;
	for (i = 0; i < ARRAY_SIZE(bench_defs); i++)
		if (!strcmp(bench_defs[i]->name, name))
			return bench_defs[i]->run(&args, out);
	return -ENOENT;
}

static ssize_t bench_run_write(struct file *file, const char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	struct bench_out out = {
		.buf = bench_result,
		.size = sizeof(bench_result),
	};
	char *cmd;
	int ret;

	if (len >= BENCH_CMD_MAX)
		return -E2BIG;
	cmd = memdup_user_nul(ubuf, len);
	if (IS_ERR(cmd))
		return PTR_ERR(cmd);
	ret = mutex_lock_interruptible(&bench_lock);
	if (ret)
		goto out_free;
	bench_result[0] = '\0';
	ret = bench_dispatch(cmd, &out);
	if (ret && !out.len)
		bench_printf(&out, "error=%d", ret);
	bench_printf(&out, "\n");
	mutex_unlock(&bench_lock);
out_free:
	kfree(cmd);
	return ret ?: len;
}

static ssize_t bench_run_read(struct file *file, char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	ssize_t ret;

	if (mutex_lock_interruptible(&bench_lock))
		return -EINTR;
	ret = simple_read_from_buffer(ubuf, len, ppos, bench_result,
				      strlen(bench_result));
	mutex_unlock(&bench_lock);
	return ret;
}

static const struct file_operations bench_run_fops = {
	.owner = THIS_MODULE,
	.read = bench_run_read,
	.write = bench_run_write,
	.llseek = default_llseek,
};

static int bench_contenders_show(struct seq_file *m, void *unused)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bench_defs); i++)
		seq_printf(m, "%s %s\n", bench_defs[i]->name,
			   bench_defs[i]->contenders());
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(bench_contenders);

static int __init bench_init(void)
{
	bench_ordered_calibrate();
	bench_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("run", 0600, bench_dir, NULL, &bench_run_fops);
	debugfs_create_file("contenders", 0444, bench_dir, NULL,
			    &bench_contenders_fops);
	return 0;
}

static void __exit bench_exit(void)
{
	debugfs_remove(bench_dir);
}

module_init(bench_init);
module_exit(bench_exit);

ORDSCHED_IMPORT_NS();
MODULE_DESCRIPTION("ordsched benchmarks against padata, ordered workqueues and locks");
MODULE_AUTHOR("The ordsched developers");
MODULE_LICENSE("GPL");
