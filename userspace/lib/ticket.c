// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * libordsched: taking, completing and trashing tickets. With the shared
 * ring (ring_map set) they run the protocol of module/ring_proto.h on the
 * mapped page and cost no system call, unless a completion moves the tail
 * onto a ticket whose owner sleeps in the kernel (one ORDSCHED_IOC_RING_WAKE).
 */
#include "internal.h"

/*
 * A ticket of a pollable handle is flagged as soon as it is taken: see
 * ordsched__ring_flag(). Out of line, as everything past the fast path: what
 * ring_take() calls last it jumps to, and it needs no stack frame.
 */
__attribute__((noinline))
static int ring_take_flag(struct ordsched *os, uint64_t ticket)
{
	ordsched__ring_flag(os, ticket);
	return 0;
}

/* Ticket @t taken: hand it out, flagged if the handle is pollable. */
static inline int ring_taken(struct ordsched *os, uint64_t *ticket, __u64 t)
{
	*ticket = t;
	/* Pairs with the store in ordsched_fd(): see ordsched__ring_flag(). */
	if (__atomic_load_n(&os->pollable, __ATOMIC_SEQ_CST))
		return ring_take_flag(os, t);
	return 0;
}

__attribute__((noinline))
static int ring_take_rest(struct ordsched *os, uint64_t *ticket)
{
	__u64 t;
	int ret;

	ret = ordsched_ring_take_slow(&os->view, os->ring_id, &t);
	if (ret)
		return ret;
	return ring_taken(os, ticket, t);
}

/*
 * The single-ticket calls are the hot path of every program: on the ring
 * they run the protocol directly, not through the batch calls, and the
 * batch calls and the ioctl path stay out of line. Take, a wait at the
 * turn and complete went from 271 to 178 instructions an item so, to
 * 143 with the fast paths of ring_proto.h, whose other cases are out of
 * line (ORDSCHED_RING_OUTLINE), and to 117 over the benchmark's loop
 * (lackey; 138 before) with no stack frame on take's and wait's fast
 * paths; 131 with the head read at the turn by the wait and the
 * completion: README.md, the commit benchmark.
 */
OS_HOT static int ring_take(struct ordsched *os, uint64_t *ticket)
{
	__u64 t;

	if (!ordsched_ring_take_fast(&os->view, os->ring_id, &t))
		return ring_take_rest(os, ticket);
	return ring_taken(os, ticket, t);
}

int ordsched_take_batch(struct ordsched *os, unsigned int count,
			uint64_t *first)
{
	struct ordsched_take take = { .count = count };
	int ret;

	if (os_ring(os)) {
		/* The ring hands out one ticket at a time (the kernel too). */
		if (count != 1)
			return -EINVAL;
		return ring_take(os, first);
	}
	ret = os_ioctl(os, ORDSCHED_IOC_TAKE, &take);
	if (!ret) {
		os_own(os, take.first, count, 1);
		*first = take.first;
	}
	return ret;
}

OS_HOT int ordsched_take(struct ordsched *os, uint64_t *ticket)
{
	if (os_ring(os))
		return ring_take(os, ticket);
	return ordsched_take_batch(os, 1, ticket);
}

/*
 * Complete or trash (the ring knows no difference) @count tickets from
 * @first: all are checked first, as the kernel does, then retired one by
 * one; another thread of the handle retiring one meanwhile stops the
 * range with EALREADY, as in the kernel's ring domain.
 */
static int ring_retire(struct ordsched *os, uint64_t first, unsigned int count)
{
	unsigned int i;
	int ret;

	if (!count || count > os->api.max_batch)
		return -EINVAL;
	/* One ticket: the retire checks it, no need to look twice. */
	for (i = 0; count > 1 && i < count; i++) {
		ret = ordsched_ring_check_live(&os->view, first + i,
					       os->ring_id);
		if (ret)
			return ret;
	}
	for (i = 0; i < count; i++) {
		ret = ordsched_ring_complete(&os->view, os->ring_id, first + i,
					     os);
		if (ret)
			return ret;
	}
	return 0;
}

int ordsched_complete_batch(struct ordsched *os, uint64_t first,
			    unsigned int count)
{
	struct ordsched_range r = { .ticket = first, .count = count };

	if (os_ring(os))
		return ring_retire(os, first, count);
	/*
	 * Whatever the answer, and before the kernel retires them: a wait
	 * of another thread that sees the tail reach one of them must not
	 * find it still ours (see struct ordsched's owned).
	 */
	if (count <= os->api.max_batch)
		os_own(os, first, count, 0);
	return os_ioctl(os, ORDSCHED_IOC_COMPLETE, &r);
}

/*
 * One ticket on the ring: ring_retire() of a count of 1, without its
 * loops. At the turn, a load, a compare and the tail CAS, then a tail
 * call: ordsched_ring_complete() puts the rest out of line.
 */
OS_HOT static int ring_retire_one(struct ordsched *os, uint64_t ticket)
{
	return ordsched_ring_complete(&os->view, os->ring_id, ticket, os);
}

OS_HOT int ordsched_complete(struct ordsched *os, uint64_t ticket)
{
	if (os_ring(os))
		return ring_retire_one(os, ticket);
	return ordsched_complete_batch(os, ticket, 1);
}

int ordsched_trash_batch(struct ordsched *os, uint64_t first,
			 unsigned int count)
{
	struct ordsched_range r = { .ticket = first, .count = count };

	if (os_ring(os))
		return ring_retire(os, first, count);
	/*
	 * Whatever the answer, and before the kernel retires them: a wait
	 * of another thread that sees the tail reach one of them must not
	 * find it still ours (see struct ordsched's owned).
	 */
	if (count <= os->api.max_batch)
		os_own(os, first, count, 0);
	return os_ioctl(os, ORDSCHED_IOC_TRASH, &r);
}

OS_HOT int ordsched_trash(struct ordsched *os, uint64_t ticket)
{
	if (os_ring(os))
		return ring_retire_one(os, ticket);
	return ordsched_trash_batch(os, ticket, 1);
}
