// SPDX-License-Identifier: GPL-2.0
/*
 * ordsched_test: in-kernel tests of the ordsched API. Every case runs at
 * module load; the load fails if any case failed.
 *
 *	filter=<prefix>	run only the cases whose suite.case starts with it
 *	warns=1		run only the cases that trigger a WARN on purpose
 *			(never under panic_on_warn)
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/panic.h>
#include <ordsched.h>

#include "ktest.h"
#include "suites.h"

static char *filter;
module_param(filter, charp, 0444);
MODULE_PARM_DESC(filter, "run only the test cases whose suite.case starts with this");

static bool warns;
module_param(warns, bool, 0444);
MODULE_PARM_DESC(warns, "run only the cases that trigger a WARN on purpose");

/* The framework itself: a failed expectation must be recorded. */
static void expect_records_failure(struct ktest *t)
{
	struct ktest inner = { .name = "inner" };

	KT_EXPECT(t, !inner.failed);
	KT_EXPECT_EQ(&inner, 1, 2);
	KT_EXPECT(t, inner.failed);
	inner.failed = false;
	KT_EXPECT(&inner, 1 + 1 == 2);
	KT_EXPECT(t, !inner.failed);
}

static const struct ktest_case ktest_cases[] = {
	KT_CASE(expect_records_failure),
	KT_END
};

const struct ktest_suite ordsched_ktest_suite = KT_SUITE("ktest", ktest_cases);

static int __init ordsched_test_init(void)
{
	const struct ktest_suite suites[] = {
		ordsched_ktest_suite,
		ordsched_seq_suite,
		ordsched_pipeline_suite,
		ordsched_stream_suite,
		ordsched_keyed_suite,
		ordsched_spread_suite,
		ordsched_delay_suite,
		ordsched_delay_irq_suite,
		ordsched_hardirq_suite,
		ordsched_contract_suite,
		ordsched_promise_delay_suite,
		ordsched_promise_seq_suite,
	};

	add_taint(TAINT_TEST, LOCKDEP_STILL_OK);
	/*
	 * Failed cases are reported in the KTAP output, not by failing the
	 * load: busybox's insmod retries a failed finit_module() with
	 * init_module(), which would run every case a second time.
	 */
	ktest_run_all(suites, ARRAY_SIZE(suites), filter, warns);
	return 0;
}

static void __exit ordsched_test_exit(void)
{
	ordsched_delay_test_exit();
}

module_init(ordsched_test_init);
module_exit(ordsched_test_exit);

MODULE_DESCRIPTION("In-kernel tests of ordsched");
MODULE_AUTHOR("The ordsched developers");
MODULE_LICENSE("GPL");
MODULE_INFO(test, "Y");
ORDSCHED_IMPORT_NS();
