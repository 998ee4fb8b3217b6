// SPDX-License-Identifier: GPL-2.0
/*
 * ordsched_test: in-kernel tests of the ordsched API. Every case runs at
 * module load; the load fails if any case failed. Load with
 * filter=<prefix> to run only the cases whose name starts with it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/panic.h>

#include "ktest.h"

static char *filter;
module_param(filter, charp, 0444);
MODULE_PARM_DESC(filter, "run only the test cases whose name starts with this");

/* The framework itself: a failed expectation must be recorded. */
static void ktest_selftest(struct ktest *t)
{
	struct ktest inner = { .name = "inner" };

	KT_EXPECT(t, !inner.failed);
	KT_EXPECT_EQ(&inner, 1, 2);
	KT_EXPECT(t, inner.failed);
	inner.failed = false;
	KT_EXPECT(&inner, 1 + 1 == 2);
	KT_EXPECT(t, !inner.failed);
}

static const struct ktest_case ordsched_test_cases[] = {
	KT_CASE(ktest_selftest),
};

static int __init ordsched_test_init(void)
{
	add_taint(TAINT_TEST, LOCKDEP_STILL_OK);
	return ktest_run_all(ordsched_test_cases,
			     ARRAY_SIZE(ordsched_test_cases), filter);
}

static void __exit ordsched_test_exit(void)
{
}

module_init(ordsched_test_init);
module_exit(ordsched_test_exit);

MODULE_DESCRIPTION("In-kernel tests of ordsched");
MODULE_AUTHOR("The ordsched developers");
MODULE_LICENSE("GPL");
MODULE_INFO(test, "Y");
