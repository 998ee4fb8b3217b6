/* SPDX-License-Identifier: GPL-2.0 */
/* The test suites of ordsched_test.ko, one per file. */
#ifndef _ORDSCHED_TEST_SUITES_H
#define _ORDSCHED_TEST_SUITES_H

#include "ktest.h"

extern const struct ktest_suite ordsched_ktest_suite;
extern const struct ktest_suite ordsched_seq_suite;
extern const struct ktest_suite ordsched_pipeline_suite;

#endif /* _ORDSCHED_TEST_SUITES_H */
