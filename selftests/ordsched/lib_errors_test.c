// SPDX-License-Identifier: GPL-2.0
/*
 * libordsched gives the kernel's answers: a wait whose ticket is at its
 * turn returns 0 from the spin path only for a ticket this handle holds;
 * for another handle's ticket or one never issued it answers what
 * ORDSCHED_IOC_WAIT answers (EPERM, EINVAL), not 0. Run on both paths:
 * the shared ring (the default, answers from the page) and the ioctls
 * (ORDSCHED_OPEN_NO_RING). Tickets never handed out answer EINVAL
 * also when a slot word's 46 bits of ticket cannot tell them from held
 * ones. Built with the library's sources.
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

/*
 * Tickets never handed out that a slot word cannot tell from a held one:
 * t + 2^46 (the word keeps the ticket modulo 2^46) and the top of the
 * 64-bit range. EINVAL from every call, and t stays held.
 */
static void aliases(struct __test_metadata *_metadata, unsigned int flags)
{
	const uint64_t far[] = { 1ULL << 46, (1ULL << 46) - 1, ~0ULL };
	struct ordsched_stats st;
	struct ordsched *os;
	uint64_t t, u, bad;
	unsigned int i;

	ASSERT_EQ(0, ordsched_open_flags(&os, flags));
	ASSERT_EQ(0, ordsched_take(os, &t));
	ASSERT_EQ(0, ordsched_take(os, &u));
	for (i = 0; i < sizeof(far) / sizeof(far[0]); i++) {
		/* An alias of t, at its turn, and one of u, before it. */
		bad = far[i] == ~0ULL ? far[i] : t + far[i];
		EXPECT_EQ(-EINVAL, ordsched_wait(os, bad, 0));
		EXPECT_EQ(-EINVAL, ordsched_complete(os, bad));
		EXPECT_EQ(-EINVAL, ordsched_trash(os, bad));
		EXPECT_EQ(-EINVAL, ordsched_complete_batch(os, bad, 2));
		bad = far[i] == ~0ULL ? far[i] - 1 : u + far[i];
		EXPECT_EQ(-EINVAL, ordsched_wait(os, bad, 0));
		EXPECT_EQ(-EINVAL, ordsched_complete(os, bad));
		EXPECT_EQ(-EINVAL, ordsched_trash(os, bad));
	}
	ASSERT_EQ(0, ordsched_stats(os, &st));
	EXPECT_EQ(t, st.tail);
	EXPECT_EQ(2, st.held);
	EXPECT_EQ(0, ordsched_wait(os, t, 0));
	EXPECT_EQ(0, ordsched_complete(os, u));
	EXPECT_EQ(0, ordsched_complete(os, t));
	EXPECT_EQ(u + 1, ordsched_tail(os));
	ordsched_close(os);
}

TEST(never_issued_aliases)
{
	aliases(_metadata, 0);
}

TEST(never_issued_aliases_ioctl)
{
	aliases(_metadata, ORDSCHED_OPEN_NO_RING);
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

/*
 * h:163 new_handle: "it takes the ring when @os does, unless
 * ORDSCHED_NO_RING is set when this is called".
 */
TEST(no_ring_environment_new_handle)
{
	struct ordsched *os, *h;

	ASSERT_EQ(0, ordsched_open(&os));
	if (!ordsched_uses_ring(os)) {
		ordsched_close(os);
		SKIP(return, "no ring");
	}
	setenv("ORDSCHED_NO_RING", "1", 1);
	ASSERT_EQ(0, ordsched_new_handle(os, &h));
	unsetenv("ORDSCHED_NO_RING");
	EXPECT_EQ(0, ordsched_uses_ring(h));
	ordsched_close(h);
	ASSERT_EQ(0, ordsched_new_handle(os, &h));
	EXPECT_EQ(1, ordsched_uses_ring(h));
	ordsched_close(h);
	ordsched_close(os);
}

TEST_HARNESS_MAIN
