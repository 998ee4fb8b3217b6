/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/* What the parts of libordsched share; not installed. */
#ifndef LIBORDSCHED_INTERNAL_H
#define LIBORDSCHED_INTERNAL_H

#include <errno.h>
#include <stdint.h>
#include <sys/ioctl.h>

#include "libordsched.h"

struct ordsched {
	int fd;
	unsigned int spin;
	const volatile void *status;	/* the mapped status page */
	const uint64_t *tail;		/* inside it */
	const uint64_t *head;
	struct ordsched_api api;
	/*
	 * The tickets this process took on this handle and has not retired,
	 * one bit per ticket, ticket t at bit t % api.window: the spin path
	 * of a wait returns 0 only for these. For any other ticket (another
	 * handle's, never issued, already retired, or taken by another
	 * process sharing the handle) the kernel answers, so both paths give
	 * the same result.
	 */
	uint64_t *owned;
};

static inline void os_own(struct ordsched *os, uint64_t first,
			  unsigned int count, int own)
{
	for (; count; count--, first++) {
		uint64_t bit = first % os->api.window;
		uint64_t mask = 1ULL << (bit % 64);

		if (own)
			__atomic_fetch_or(&os->owned[bit / 64], mask,
					  __ATOMIC_RELAXED);
		else
			__atomic_fetch_and(&os->owned[bit / 64], ~mask,
					   __ATOMIC_RELAXED);
	}
}

static inline int os_owns(const struct ordsched *os, uint64_t ticket)
{
	uint64_t bit = ticket % os->api.window;

	return __atomic_load_n(&os->owned[bit / 64], __ATOMIC_RELAXED) >>
	       (bit % 64) & 1;
}

/* An ioctl returning 0 (or a descriptor) or -errno. */
static inline int os_ioctl(const struct ordsched *os, unsigned long cmd,
			   void *arg)
{
	int ret = ioctl(os->fd, cmd, arg);

	return ret < 0 ? -errno : ret;
}

/* wait.c */
uint64_t os_load(const uint64_t *word);

#endif /* LIBORDSCHED_INTERNAL_H */
