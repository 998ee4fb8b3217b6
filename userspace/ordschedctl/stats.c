// SPDX-License-Identifier: GPL-2.0
/*
 * ordschedctl stats PID FD: duplicate descriptor FD of process PID with
 * pidfd_getfd(2) (same file, so same handle and domain: opening
 * /proc/PID/fd/FD would create a new domain instead) and print what the
 * kernel says about it. Needs ptrace rights over PID.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ctl.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

/* A decimal from @min to INT_MAX, all of @s: PIDs and descriptors are ints. */
static int parse(const char *s, long min, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return errno || *end || end == s || *v < min || *v > INT_MAX ?
	       -EINVAL : 0;
}

static int grab_fd(long pid, long fd)
{
	int pidfd = syscall(SYS_pidfd_open, (pid_t)pid, 0), ret;

	if (pidfd < 0)
		return -errno;
	ret = syscall(SYS_pidfd_getfd, pidfd, (int)fd, 0);
	ret = ret < 0 ? -errno : ret;
	close(pidfd);
	return ret;
}

int cmd_stats(int argc, char **argv)
{
	struct ordsched_stats st;
	struct ordsched *os;
	long pid, fd;
	int ret;

	if (argc != 3 || parse(argv[1], 1, &pid) || parse(argv[2], 0, &fd)) {
		fprintf(stderr, "usage: %s stats PID FD (a process id from 1, a descriptor from 0)\n",
			prog);
		return 2;
	}
	ret = grab_fd(pid, fd);
	if (ret < 0)
		return fail("cannot get the descriptor", ret);
	/* An observer: never make the domain a ring domain, nor take an id. */
	ret = ordsched_from_fd_flags(ret, ORDSCHED_OPEN_NO_RING, &os);
	if (ret == -ENOTTY)
		return fail("not an ordsched descriptor", ret);
	if (ret)
		return fail("handshake", ret);
	ret = ordsched_stats(os, &st);
	if (ret) {
		ordsched_close(os);
		return fail("stats", ret);
	}
	print_stats(&st);
	printf("page tail  %llu\npage head  %llu\n",
	       (unsigned long long)ordsched_tail(os),
	       (unsigned long long)ordsched_head(os));
	ordsched_close(os);
	return 0;
}
