/* SPDX-License-Identifier: GPL-2.0 */
/* The test suites of ordsched_test.ko, one per file. */
#ifndef _ORDSCHED_TEST_SUITES_H
#define _ORDSCHED_TEST_SUITES_H

#include "ktest.h"

extern const struct ktest_suite ordsched_ktest_suite;
extern const struct ktest_suite ordsched_seq_suite;
extern const struct ktest_suite ordsched_pipeline_suite;
extern const struct ktest_suite ordsched_stream_suite;
extern const struct ktest_suite ordsched_keyed_suite;
extern const struct ktest_suite ordsched_spread_suite;
extern const struct ktest_suite ordsched_delay_suite;
extern const struct ktest_suite ordsched_delay_irq_suite;
extern const struct ktest_suite ordsched_hardirq_suite;
extern const struct ktest_suite ordsched_contract_suite;
extern const struct ktest_suite ordsched_promise_delay_suite;
extern const struct ktest_suite ordsched_promise_seq_suite;

/* Cases that leave state behind for the module's exit to clean up. */
void ordsched_delay_test_exit(void);

#endif /* _ORDSCHED_TEST_SUITES_H */
