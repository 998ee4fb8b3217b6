/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small kselftest-style framework for the in-kernel test module: the
 * cases run at module load and each reports one KTAP line, after a plan
 * line ("1..N"); the guest's /init reads them from the kernel log. The
 * load itself succeeds either way (see ordsched_test_init()).
 */
#ifndef _ORDSCHED_KTEST_H
#define _ORDSCHED_KTEST_H

#include <linux/kconfig.h>
#include <linux/printk.h>
#include <linux/types.h>

struct ktest {
	const char *name;
	bool failed;
	bool skipped;
	const char *skip_reason;
};

struct ktest_case {
	const char *name;
	void (*run)(struct ktest *t);
	/* Runs only when warnings are expected: it triggers one on purpose. */
	bool warns;
	/*
	 * The debug-object reports (ODEBUG) such a case makes where debug
	 * objects are on, at least and at most: the guest holds the boot's
	 * count of them (printed or not: the kernel prints five a boot)
	 * between the sums of the cases that ran, so that a report nobody
	 * expected cannot hide behind the expected ones.
	 */
	unsigned int odebug_min, odebug_max;
	/*
	 * Such a case's own reports: extended regular expressions, each
	 * of which a line of the boot's console log must match once the
	 * case ran (selftests/qemu/lib.sh; not the lines that name these
	 * expectations): a WARNING line, or a WARN()'s message, which
	 * tells apart two warnings of one function. A WARN_ONCE() that
	 * an earlier case fired counts: the boot is what is judged. Cases
	 * whose reports are debug objects' leave these out (their count
	 * is checked, see above). The expression goes to the kernel log
	 * too: written so that it is no splat itself ("[ ]" for a space
	 * after a word the host looks for, "WARNING[:]").
	 */
	const char *splats[4];
};

/* @cases ends with an empty entry, KT_END. */
struct ktest_suite {
	const char *name;
	const struct ktest_case *cases;
};

#define KT_CASE(fn) { .name = #fn, .run = fn }
#define KT_CASE_WARNS(fn, lo, hi, ...)					\
	{ .name = #fn, .run = fn, .warns = true,			\
	  .odebug_min = lo, .odebug_max = hi, .splats = { __VA_ARGS__ } }

/* The WARNING lines of the module's misuse checks, as KT_CASE_WARNS() takes. */
#define KT_WARNED_AT(fns)	"WARNING[:] .* at [^ ]* (" fns ")\\+"
/* The sequencer's misuse check (seq.c: a hand-in twice or never taken). */
#define KT_WARNED_SEQ_MISUSE						\
	KT_WARNED_AT("seq_hand_in|ordsched_seq_queue|ordsched_seq_cancel")
/* A case whose one expected splat is that check's warning. */
#define KT_CASE_SEQ_MISUSE(fn)	KT_CASE_WARNS(fn, 0, 0, KT_WARNED_SEQ_MISUSE)
#define KT_END {}
#define KT_SUITE(sname, array) { .name = sname, .cases = array }

void ktest_fail(struct ktest *t, const char *file, int line,
		const char *fmt, ...) __printf(4, 5);
void ktest_diag(struct ktest *t, const char *fmt, ...) __printf(2, 3);
int ktest_run_all(const struct ktest_suite *suites, unsigned int n,
		  const char *filter, bool warns);

/* Record a failure unless @cond holds; evaluates to @cond. */
#define KT_EXPECT(t, cond) ({						\
	bool __ok = !!(cond);						\
	if (!__ok)							\
		ktest_fail(t, __FILE__, __LINE__, "expected %s", #cond);\
	__ok;								\
})

/* Record a failure unless @a == @b (as u64); evaluates to the equality. */
#define KT_EXPECT_EQ(t, a, b) ({					\
	u64 __a = (u64)(a), __b = (u64)(b);				\
	if (__a != __b)							\
		ktest_fail(t, __FILE__, __LINE__,			\
			   "%s == %llu, expected %s == %llu",		\
			   #a, __a, #b, __b);				\
	__a == __b;							\
})

static inline void ktest_skip(struct ktest *t, const char *why)
{
	t->skipped = true;
	t->skip_reason = why;
}

/*
 * How many items a stress case of @n runs on this kernel: a quarter of
 * them where KASAN, lockdep or kmemleak check every access or allocation
 * (the debug kernel), which makes such a case 20 times slower. Those
 * checkers report a bug the first time its access or lock order happens;
 * the stock kernels run the full count, for the interleavings.
 */
static inline unsigned int kt_stress(unsigned int n)
{
	if (IS_ENABLED(CONFIG_KASAN) || IS_ENABLED(CONFIG_PROVE_LOCKING) ||
	    IS_ENABLED(CONFIG_DEBUG_KMEMLEAK))
		return n / 4;
	return n;
}

#endif /* _ORDSCHED_KTEST_H */
