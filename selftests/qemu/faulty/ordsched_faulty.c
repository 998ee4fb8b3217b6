// SPDX-License-Identifier: GPL-2.0
/*
 * ordsched_faulty: a deliberately broken module for the guest runner's
 * self-check. Each value of fault= commits one kind of bug the runner must
 * report as a failure; a runner that stays green here proves nothing. The
 * self-check loads it once for each fault, in one boot.
 *
 *	warn	WARN_ON(1) at load
 *	leak	allocate at load and lose the pointer (kmemleak)
 *	uaf	read freed memory at load (KASAN)
 *	odebug	activate a tracked object twice (debug objects: the report
 *		is printed, and counted in debug_objects/stats)
 *	hang	block uninterruptibly at load (hung task, guest timeout)
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bug.h>
#include <linux/debugobjects.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

static char *fault = "";
module_param(fault, charp, 0444);
MODULE_PARM_DESC(fault, "warn, leak, uaf, odebug or hang");

/* Where a pointer is stored, so the compiler cannot drop the allocation. */
static void *sink;

static const struct debug_obj_descr faulty_descr = {
	.name = "ordsched_faulty",
};

/* An object activated while active: one debug-object report. */
static int faulty_odebug(void)
{
	void *p = kmalloc(64, GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	debug_object_init(p, &faulty_descr);
	debug_object_activate(p, &faulty_descr);
	debug_object_activate(p, &faulty_descr);
	debug_object_deactivate(p, &faulty_descr);
	debug_object_free(p, &faulty_descr);
	kfree(p);
	return 0;
}

static int __init ordsched_faulty_init(void)
{
	char *p;

	pr_info("injecting fault '%s'\n", fault);
	if (!strcmp(fault, "warn")) {
		WARN_ON(1);
	} else if (!strcmp(fault, "leak")) {
		p = kmalloc(128, GFP_KERNEL);
		if (p)
			memset(p, 0x5a, 128);
		WRITE_ONCE(sink, p);
		WRITE_ONCE(sink, NULL);
	} else if (!strcmp(fault, "uaf")) {
		p = kmalloc(64, GFP_KERNEL);
		if (!p)
			return -ENOMEM;
		kfree(p);
		OPTIMIZER_HIDE_VAR(p);
		pr_info("read after free: %d\n", READ_ONCE(p[8]));
	} else if (!strcmp(fault, "odebug")) {
		return faulty_odebug();
	} else if (!strcmp(fault, "hang")) {
		for (;;)
			msleep(1000 * 1000);
	} else {
		return -EINVAL;
	}
	return 0;
}
module_init(ordsched_faulty_init);

/* Unloadable, so that one boot loads it once for each fault. */
static void __exit ordsched_faulty_exit(void)
{
}
module_exit(ordsched_faulty_exit);

MODULE_DESCRIPTION("Deliberately faulty module for the ordsched test harness self-check");
MODULE_LICENSE("GPL");
