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
};

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
