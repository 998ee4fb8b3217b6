// SPDX-License-Identifier: GPL-2.0
/*
 * ordsched_example: the CRC32 of a stream, computed in parallel blocks and
 * combined in order, through the ordsched pipeline.
 *
 * Data written to /sys/kernel/debug/ordsched_example/data is cut into
 * blocks. Each block is a job: its parallel step computes the block's raw
 * CRC32 on ordsched's workqueue, on any CPU, in any order; its serial step
 * folds it into the stream's CRC (crc32_le_combine() is only right when the
 * blocks come in stream order) and appends a line to an in-order log.
 *
 *	data	write: the stream, in writes of any size
 *	log	read: one line per block, in stream order
 *	result	read: waits for every block, then "bytes B blocks N
 *		out_of_order K crc32 X", X being what gzip, zlib or "cksum -a
 *		crc32b" give, K how many blocks finished their parallel step
 *		out of stream order (and still were folded in order)
 *
 * A write's full blocks are cut first and submitted back to back, up to
 * PCRC_BATCH at a time, so that their parallel steps really overlap on
 * the workqueue's workers. One stream per module load; block_size is a
 * module parameter.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/crc32.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>
#include <ordsched.h>

#define PCRC_LOG_MAX	SZ_1M
#define PCRC_BATCH	64

static unsigned int block_size = 4096;
module_param(block_size, uint, 0444);
MODULE_PARM_DESC(block_size, "bytes per block (512 to 1 MiB, default 4096)");

struct pcrc_block {
	struct ordsched_job job;
	u64 offset;
	/* Its place among the parallel steps that have finished. */
	u64 finished;
	u32 len;
	u32 crc;
	u8 data[];
};

static struct {
	struct ordsched_pipeline *pl;
	struct dentry *dir;
	/* Serializes writers: the stream's offset and the partial block. */
	struct mutex write_lock;
	u64 offset;
	struct pcrc_block *partial;
	/* Serial-step state; the lock is for readers of the log. */
	spinlock_t lock;
	u64 blocks;
	u64 bytes;
	u64 out_of_order;
	atomic64_t finished;
	u32 state;
	char *log;
	size_t log_len;
	u64 log_dropped;
} pcrc;

static int pcrc_parallel(struct ordsched_job *job)
{
	struct pcrc_block *b = container_of(job, struct pcrc_block, job);

	/* Raw CRC from 0: crc32_le_combine() folds it in later. */
	b->crc = crc32_le(0, b->data, b->len);
	b->finished = atomic64_inc_return(&pcrc.finished) - 1;
	return 0;
}

static void pcrc_serial(struct ordsched_job *job, int err)
{
	struct pcrc_block *b = container_of(job, struct pcrc_block, job);
	/* The block's own CRC32 as zlib would report it. */
	u32 own = ~(crc32_le_shift(~0U, b->len) ^ b->crc);
	int n;

	spin_lock(&pcrc.lock);
	pcrc.state = crc32_le_combine(pcrc.state, b->crc, b->len);
	if (pcrc.log_len + 80 < PCRC_LOG_MAX) {
		n = scnprintf(pcrc.log + pcrc.log_len, 80,
			      "block %llu offset %llu len %u crc32 %08x total %08x\n",
			      pcrc.blocks, b->offset, b->len, own, ~pcrc.state);
		pcrc.log_len += n;
	} else {
		pcrc.log_dropped++;
	}
	if (b->finished != pcrc.blocks)
		pcrc.out_of_order++;
	pcrc.blocks++;
	pcrc.bytes += b->len;
	spin_unlock(&pcrc.lock);
	kfree(b);
}

static const struct ordsched_pipeline_ops pcrc_ops = {
	.parallel = pcrc_parallel,
	.serial = pcrc_serial,
};

static struct pcrc_block *pcrc_block_alloc(u64 offset)
{
	struct pcrc_block *b;

	b = kmalloc(struct_size(b, data, block_size), GFP_KERNEL_ACCOUNT);
	if (b) {
		b->offset = offset;
		b->len = 0;
	}
	return b;
}

static int pcrc_submit(struct pcrc_block *b)
{
	int ret = ordsched_pipeline_queue_wait(pcrc.pl, &b->job);

	if (ret)
		kfree(b);
	return ret;
}

/* Submit the full blocks cut so far, back to back. */
static int pcrc_submit_batch(struct pcrc_block **batch, unsigned int *nr)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < *nr; i++) {
		if (ret)
			kfree(batch[i]);
		else
			ret = pcrc_submit(batch[i]);
	}
	*nr = 0;
	return ret;
}

static ssize_t pcrc_data_write(struct file *file, const char __user *buf,
			       size_t count, loff_t *ppos)
{
	struct pcrc_block *batch[PCRC_BATCH];
	unsigned int nr = 0;
	size_t done = 0;
	int ret = 0;

	mutex_lock(&pcrc.write_lock);
	while (done < count) {
		struct pcrc_block *b = pcrc.partial;
		size_t n;

		if (!b) {
			b = pcrc_block_alloc(pcrc.offset);
			if (!b) {
				ret = -ENOMEM;
				break;
			}
			pcrc.partial = b;
		}
		n = min_t(size_t, count - done, block_size - b->len);
		if (copy_from_user(b->data + b->len, buf + done, n)) {
			ret = -EFAULT;
			break;
		}
		b->len += n;
		pcrc.offset += n;
		done += n;
		if (b->len == block_size) {
			pcrc.partial = NULL;
			batch[nr++] = b;
			if (nr == PCRC_BATCH) {
				ret = pcrc_submit_batch(batch, &nr);
				if (ret)
					break;
			}
		}
	}
	if (nr) {
		int err = pcrc_submit_batch(batch, &nr);

		ret = ret ?: err;
	}
	mutex_unlock(&pcrc.write_lock);
	return done ? done : ret;
}

/* Submit the partial block, then wait for every block's serial step. */
static int pcrc_finish(void)
{
	int ret = 0;

	mutex_lock(&pcrc.write_lock);
	if (pcrc.partial) {
		ret = pcrc_submit(pcrc.partial);
		pcrc.partial = NULL;
	}
	mutex_unlock(&pcrc.write_lock);
	ordsched_pipeline_flush(pcrc.pl);
	return ret;
}

static ssize_t pcrc_result_read(struct file *file, char __user *buf,
				size_t count, loff_t *ppos)
{
	char line[128];
	int ret, n;

	ret = pcrc_finish();
	if (ret)
		return ret;
	spin_lock_bh(&pcrc.lock);
	n = scnprintf(line, sizeof(line),
		      "bytes %llu blocks %llu out_of_order %llu crc32 %08x\n",
		      pcrc.bytes, pcrc.blocks, pcrc.out_of_order, ~pcrc.state);
	spin_unlock_bh(&pcrc.lock);
	return simple_read_from_buffer(buf, count, ppos, line, n);
}

static ssize_t pcrc_log_read(struct file *file, char __user *buf,
			     size_t count, loff_t *ppos)
{
	size_t len;

	/* The log only grows, in place: what is below log_len is final. */
	spin_lock_bh(&pcrc.lock);
	len = pcrc.log_len;
	spin_unlock_bh(&pcrc.lock);
	return simple_read_from_buffer(buf, count, ppos, pcrc.log, len);
}

static const struct file_operations pcrc_data_fops = {
	.owner = THIS_MODULE,
	.write = pcrc_data_write,
	.llseek = noop_llseek,
};

static const struct file_operations pcrc_result_fops = {
	.owner = THIS_MODULE,
	.read = pcrc_result_read,
	.llseek = default_llseek,
};

static const struct file_operations pcrc_log_fops = {
	.owner = THIS_MODULE,
	.read = pcrc_log_read,
	.llseek = default_llseek,
};

static int __init pcrc_init(void)
{
	struct ordsched_pipeline_params p = {
		.name = "pcrc",
		.ops = &pcrc_ops,
	};

	if (block_size < 512 || block_size > SZ_1M)
		return -EINVAL;
	mutex_init(&pcrc.write_lock);
	spin_lock_init(&pcrc.lock);
	pcrc.state = ~0U;
	pcrc.log = kvzalloc(PCRC_LOG_MAX, GFP_KERNEL);
	if (!pcrc.log)
		return -ENOMEM;
	pcrc.pl = ordsched_pipeline_create(&p);
	if (IS_ERR(pcrc.pl)) {
		kvfree(pcrc.log);
		return PTR_ERR(pcrc.pl);
	}
	pcrc.dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("data", 0200, pcrc.dir, NULL, &pcrc_data_fops);
	debugfs_create_file("result", 0400, pcrc.dir, NULL, &pcrc_result_fops);
	debugfs_create_file("log", 0400, pcrc.dir, NULL, &pcrc_log_fops);
	return 0;
}

static void __exit pcrc_exit(void)
{
	debugfs_remove(pcrc.dir);
	pcrc_finish();
	ordsched_pipeline_destroy(pcrc.pl);
	if (pcrc.log_dropped)
		pr_info("%llu log lines dropped\n", pcrc.log_dropped);
	kvfree(pcrc.log);
}

module_init(pcrc_init);
module_exit(pcrc_exit);

MODULE_DESCRIPTION("ordsched example: CRC32 of a stream in parallel blocks, combined in order");
MODULE_AUTHOR("The ordsched developers");
MODULE_LICENSE("GPL");
ORDSCHED_IMPORT_NS();
