// SPDX-License-Identifier: GPL-2.0
/*
 * ordsched: keep the order of work done in parallel, without a consumer
 * thread per stream. Module init and exit only; each part lives in its own
 * file.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "chardev.h"

static int __init ordsched_init(void)
{
	int ret;

	ret = ordsched_chardev_init();
	if (ret)
		return ret;

	pr_debug("loaded\n");
	return 0;
}

static void __exit ordsched_exit(void)
{
	ordsched_chardev_exit();
}

module_init(ordsched_init);
module_exit(ordsched_exit);

MODULE_DESCRIPTION("Ordered execution of parallel work: sequencer, streams, keys, delays");
MODULE_AUTHOR("The ordsched developers");
MODULE_LICENSE("GPL");
