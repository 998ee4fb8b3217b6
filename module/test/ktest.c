// SPDX-License-Identifier: GPL-2.0
/*
 * The in-kernel test runner. Output is KTAP, one line per case, prefixed by
 * the module name so the guest can pick it out of the kernel log:
 *
 *	ordsched_test: KTAP version 1
 *	ordsched_test: 1..3
 *	ordsched_test: ok 1 seq_basic
 *	ordsched_test: # seq_trash: tail == 4, expected 5 (ktest.c:12)
 *	ordsched_test: not ok 2 seq_trash
 *	ordsched_test: ok 3 seq_softirq # SKIP needs two CPUs
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "ktest.h"

void ktest_fail(struct ktest *t, const char *file, int line,
		const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_info("# %s: %pV (%s:%d)\n", t->name, &vaf, kbasename(file), line);
	va_end(args);
	t->failed = true;
}

static bool ktest_selected(const char *name, const char *filter)
{
	return !filter || !*filter || strstarts(name, filter);
}

/**
 * ktest_run_all() - run the selected test cases and report them in KTAP
 * @cases: the test cases
 * @n: number of entries in @cases
 * @filter: run only the cases whose name starts with this (NULL: all)
 *
 * Context: process context, may sleep.
 * Return: 0 if no case failed, -EINVAL otherwise.
 */
int ktest_run_all(const struct ktest_case *cases, unsigned int n,
		  const char *filter)
{
	unsigned int i, planned = 0, nr = 0, failed = 0;

	for (i = 0; i < n; i++)
		planned += ktest_selected(cases[i].name, filter);

	pr_info("KTAP version 1\n");
	pr_info("1..%u\n", planned);
	for (i = 0; i < n; i++) {
		struct ktest t = { .name = cases[i].name };

		if (!ktest_selected(cases[i].name, filter))
			continue;
		cases[i].run(&t);
		nr++;
		if (t.failed) {
			failed++;
			pr_info("not ok %u %s\n", nr, t.name);
		} else if (t.skipped) {
			pr_info("ok %u %s # SKIP %s\n", nr, t.name,
				t.skip_reason);
		} else {
			pr_info("ok %u %s\n", nr, t.name);
		}
		cond_resched();
	}
	pr_info("# %u of %u cases failed\n", failed, planned);
	return failed ? -EINVAL : 0;
}
