// SPDX-License-Identifier: GPL-2.0
/*
 * libordsched gives the kernel's answers: a wait whose ticket is at its
 * turn returns 0 from the spin path only for a ticket this handle holds;
 * for another handle's ticket or one never issued it answers what
 * ORDSCHED_IOC_WAIT answers (EPERM, EINVAL), not 0. Built with the
 * library's sources.
 */
#include <errno.h>
#include <stdio.h>

#include "kselftest_harness.h"
#include "libordsched.h"

TEST(wait_answers_as_the_kernel)
{
	struct ordsched *os, *other;
	uint64_t t, u;

	ASSERT_EQ(0, ordsched_open(&os));
	ASSERT_EQ(0, ordsched_new_handle(os, &other));

	/* Never issued, yet tail == head == 0. */
	EXPECT_EQ(-EINVAL, ordsched_wait(os, 0, 0));

	/* Another handle's ticket, at its turn. */
	ASSERT_EQ(0, ordsched_take(other, &t));
	EXPECT_EQ(-EPERM, ordsched_wait(os, t, 0));
	EXPECT_EQ(0, ordsched_wait(other, t, 0));

	/* Ours after a batch, in turn after the other handle's. */
	ASSERT_EQ(0, ordsched_take_batch(os, 2, &u));
	EXPECT_EQ(0, ordsched_complete(other, t));
	EXPECT_EQ(0, ordsched_wait(os, u, 0));
	EXPECT_EQ(-EPERM, ordsched_wait(other, u, 0));
	EXPECT_EQ(0, ordsched_complete(os, u));
	/* Completed and passed: the kernel's EALREADY, not the spin's 0. */
	EXPECT_EQ(-EALREADY, ordsched_wait(os, u, 0));
	EXPECT_EQ(0, ordsched_wait(os, u + 1, 0));
	ordsched_close(other);
	ordsched_close(os);
}

TEST_HARNESS_MAIN
