// SPDX-License-Identifier: GPL-2.0
/*
 * The in-kernel test runner. Output is KTAP, one line per case named
 * suite.case, prefixed by the module name so the guest can pick it out of
 * the kernel log:
 *
 *	ordsched_test: KTAP version 1
 *	ordsched_test: 1..3
 *	ordsched_test: ok 1 seq.basic_order
 *	ordsched_test: # seq.trash: tail == 4, expected 5 (seq_test.c:12)
 *	ordsched_test: not ok 2 seq.trash
 *	ordsched_test: ok 3 seq.softirq # SKIP needs two CPUs
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

void ktest_diag(struct ktest *t, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_info("# %s: %pV\n", t->name, &vaf);
	va_end(args);
}

static bool ktest_selected(const struct ktest_case *c, const char *full,
			   const char *filter, bool warns)
{
	if (c->warns != warns)
		return false;
	return !filter || !*filter || strstarts(full, filter);
}

/**
 * ktest_run_all() - run the selected test cases and report them in KTAP
 * @suites: the test suites
 * @n: number of entries in @suites
 * @filter: run only the cases whose suite.case name starts with this
 * @warns: run the cases that warn on purpose instead of the others
 *
 * Context: process context, may sleep.
 * Return: 0 if no case failed, -EINVAL otherwise.
 */
int ktest_run_all(const struct ktest_suite *suites, unsigned int n,
		  const char *filter, bool warns)
{
	unsigned int s, i, k, planned = 0, others = 0, nr = 0, failed = 0;
	unsigned int odebug_min = 0, odebug_max = 0;
	char full[96];

	for (s = 0; s < n; s++) {
		for (i = 0; suites[s].cases[i].name; i++) {
			const struct ktest_case *c = &suites[s].cases[i];

			snprintf(full, sizeof(full), "%s.%s", suites[s].name,
				 c->name);
			planned += ktest_selected(c, full, filter, warns);
			others += ktest_selected(c, full, filter, !warns);
		}
	}

	pr_info("KTAP version 1\n");
	pr_info("1..%u\n", planned);
	for (s = 0; s < n; s++) {
		for (i = 0; suites[s].cases[i].name; i++) {
			const struct ktest_case *c = &suites[s].cases[i];
			struct ktest t = { .name = full };

			snprintf(full, sizeof(full), "%s.%s", suites[s].name,
				 c->name);
			if (!ktest_selected(c, full, filter, warns))
				continue;
			c->run(&t);
			nr++;
			if (!t.skipped) {
				odebug_min += c->odebug_min;
				odebug_max += c->odebug_max;
				for (k = 0; k < ARRAY_SIZE(c->splats) &&
				     c->splats[k]; k++)
					pr_info("# expect-splat %s %s\n", full,
						c->splats[k]);
			}
			if (t.failed) {
				failed++;
				pr_info("not ok %u %s\n", nr, full);
			} else if (t.skipped) {
				pr_info("ok %u %s # SKIP %s\n", nr, full,
					t.skip_reason);
			} else {
				pr_info("ok %u %s\n", nr, full);
			}
			cond_resched();
		}
	}
	pr_info("# %u of %u cases failed\n", failed, planned);
	/* The guest's check that a filter matched counts both kinds. */
	pr_info("# the filter matches %u cases that %s\n", others,
		warns ? "do not warn" : "warn on purpose");
	/* For the guest's count of them, see struct ktest_case. */
	if (IS_ENABLED(CONFIG_DEBUG_OBJECTS))
		pr_info("# debug-object reports expected: %u-%u\n", odebug_min,
			odebug_max);
	return failed ? -EINVAL : 0;
}
