// SPDX-License-Identifier: GPL-2.0
/*
 * libordsched gives the kernel's answers: a wait whose ticket is at its
 * turn returns 0 from the spin path only for a ticket this handle holds;
 * for another handle's ticket or one never issued it answers what
 * ORDSCHED_IOC_WAIT answers (EPERM, EINVAL), not 0. Run on both paths:
 * the shared ring (the default, answers from the page) and the ioctls
 * (ORDSCHED_OPEN_NO_RING). Built with the library's sources.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <linux/ordsched_ring.h>

#include "kselftest_harness.h"
#include "libordsched.h"

/* Both paths: the ring (the default when the kernel offers it), ioctls. */
static void wait_answers(struct __test_metadata *_metadata, unsigned int flags)
{
	struct ordsched *os, *other;
	uint64_t t, u, v;
	int ring;

	ASSERT_EQ(0, ordsched_open_flags(&os, flags));
	ring = ordsched_uses_ring(os);
	if (flags & ORDSCHED_OPEN_NO_RING) {
		ASSERT_EQ(0, ring);
	} else {
		ASSERT_EQ(!!(ordsched_api(os)->features & ORDSCHED_FEAT_RING),
			  ring);
	}
	ASSERT_EQ(0, ordsched_new_handle(os, &other));
	ASSERT_EQ(ring, ordsched_uses_ring(other));

	/* Never issued, yet tail == head == 0. */
	EXPECT_EQ(-EINVAL, ordsched_wait(os, 0, 0));

	/* Another handle's ticket, at its turn. */
	ASSERT_EQ(0, ordsched_take(other, &t));
	EXPECT_EQ(-EPERM, ordsched_wait(os, t, 0));
	EXPECT_EQ(0, ordsched_wait(other, t, 0));

	/* Ours after a batch (two takes on the ring), in turn after t. */
	if (ring) {
		EXPECT_EQ(-EINVAL, ordsched_take_batch(os, 2, &u));
		ASSERT_EQ(0, ordsched_take(os, &u));
		ASSERT_EQ(0, ordsched_take(os, &v));
		ASSERT_EQ(u + 1, v);
	} else {
		ASSERT_EQ(0, ordsched_take_batch(os, 2, &u));
	}
	EXPECT_EQ(0, ordsched_complete(other, t));
	EXPECT_EQ(0, ordsched_wait(os, u, 0));
	EXPECT_EQ(-EPERM, ordsched_wait(other, u, 0));
	EXPECT_EQ(-EPERM, ordsched_complete(other, u));
	EXPECT_EQ(0, ordsched_complete(os, u));
	/* Completed and passed: the kernel's EALREADY, not the spin's 0. */
	EXPECT_EQ(-EALREADY, ordsched_wait(os, u, 0));
	EXPECT_EQ(-EALREADY, ordsched_complete(os, u));
	EXPECT_EQ(0, ordsched_wait(os, u + 1, 0));
	EXPECT_EQ(0, ordsched_complete(os, u + 1));
	/* Never issued, past the head. */
	EXPECT_EQ(-EINVAL, ordsched_complete(os, u + 5));
	ordsched_close(other);
	ordsched_close(os);
}

TEST(wait_answers_as_the_kernel)
{
	wait_answers(_metadata, 0);
}

TEST(wait_answers_as_the_kernel_ioctl)
{
	wait_answers(_metadata, ORDSCHED_OPEN_NO_RING);
}

/* ORDSCHED_NO_RING=1 forces the ioctl path as the flag does. */
TEST(no_ring_environment)
{
	struct ordsched *os;

	setenv("ORDSCHED_NO_RING", "1", 1);
	ASSERT_EQ(0, ordsched_open(&os));
	unsetenv("ORDSCHED_NO_RING");
	EXPECT_EQ(0, ordsched_uses_ring(os));
	ordsched_close(os);
	EXPECT_EQ(-EINVAL, ordsched_open_flags(&os, 2));
}

TEST_HARNESS_MAIN
