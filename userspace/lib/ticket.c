// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/* libordsched: taking, completing and trashing tickets. */
#include "internal.h"

int ordsched_take_batch(struct ordsched *os, unsigned int count,
			uint64_t *first)
{
	struct ordsched_take take = { .count = count };
	int ret = os_ioctl(os, ORDSCHED_IOC_TAKE, &take);

	if (!ret) {
		os_own(os, take.first, count, 1);
		*first = take.first;
	}
	return ret;
}

int ordsched_take(struct ordsched *os, uint64_t *ticket)
{
	return ordsched_take_batch(os, 1, ticket);
}

int ordsched_complete_batch(struct ordsched *os, uint64_t first,
			    unsigned int count)
{
	struct ordsched_range r = { .ticket = first, .count = count };
	int ret = os_ioctl(os, ORDSCHED_IOC_COMPLETE, &r);

	if (!ret)
		os_own(os, first, count, 0);
	return ret;
}

int ordsched_complete(struct ordsched *os, uint64_t ticket)
{
	return ordsched_complete_batch(os, ticket, 1);
}

int ordsched_trash_batch(struct ordsched *os, uint64_t first,
			 unsigned int count)
{
	struct ordsched_range r = { .ticket = first, .count = count };
	int ret = os_ioctl(os, ORDSCHED_IOC_TRASH, &r);

	if (!ret)
		os_own(os, first, count, 0);
	return ret;
}

int ordsched_trash(struct ordsched *os, uint64_t ticket)
{
	return ordsched_trash_batch(os, ticket, 1);
}
