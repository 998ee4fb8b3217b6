/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Raw /dev/ordsched calls for the dev_* tests: each returns 0 (or a
 * descriptor) or -errno, so that tests compare errnos directly. The tests
 * use the ioctls, not libordsched, to pin down the kernel's ABI.
 */
#ifndef _ORDSCHED_DEV_UTIL_H
#define _ORDSCHED_DEV_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/ordsched.h>

#define DEV_PATH "/dev/" ORDSCHED_DEVICE_NAME

_Static_assert(sizeof(struct ordsched_api) % 8 == 0, "api size");
_Static_assert(sizeof(struct ordsched_take) % 8 == 0, "take size");
_Static_assert(sizeof(struct ordsched_wait) % 8 == 0, "wait size");
_Static_assert(sizeof(struct ordsched_range) % 8 == 0, "range size");
_Static_assert(sizeof(struct ordsched_complete_wait) % 8 == 0, "cw size");
_Static_assert(sizeof(struct ordsched_new_handle) % 8 == 0, "nh size");
_Static_assert(sizeof(struct ordsched_stats) % 8 == 0, "stats size");
_Static_assert(sizeof(struct ordsched_status) % 8 == 0, "status size");

static inline int dev_ioctl(int fd, unsigned long cmd, void *arg)
{
	int ret = ioctl(fd, cmd, arg);

	return ret < 0 ? -errno : ret;
}

/*
 * ioctl(@fd, @cmd, @arg) with the @nth user copy of the call made to fail
 * (1: the first): fault injection, /proc/thread-self/fail-nth
 * (CONFIG_FAULT_INJECTION_USERCOPY, the debug kernel). Return: as
 * dev_ioctl(); -ENOSYS without fault injection, or when the call made
 * fewer than @nth injectable copies (nothing was injected: the kernel
 * lacks the usercopy fault, or the command copies less than thought).
 */
static inline int dev_ioctl_fail_nth(int fd, unsigned long cmd, void *arg,
				     unsigned int nth)
{
	int nfd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	char buf[16];
	ssize_t len;
	int ret;

	if (nfd < 0)
		return -ENOSYS;
	len = snprintf(buf, sizeof(buf), "%u", nth);
	if (write(nfd, buf, len) != len) {
		close(nfd);
		return -ENOSYS;
	}
	ret = dev_ioctl(fd, cmd, arg);
	/*
	 * 0: the fault was injected. Otherwise the count goes on, also
	 * through this read's own copy (which fails if it reaches 0 there):
	 * stop it, each failed write having counted one more.
	 */
	len = pread(nfd, buf, sizeof(buf) - 1, 0);
	if (len > 0) {
		buf[len] = 0;
		if (!strtoul(buf, NULL, 10)) {
			close(nfd);
			return ret;
		}
	}
	for (len = 0; len <= nth && write(nfd, "0", 1) != 1; len++)
		;
	close(nfd);
	return -ENOSYS;
}

static inline int dev_open(void)
{
	int fd = open(DEV_PATH, O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static inline int dev_api(int fd, struct ordsched_api *api)
{
	memset(api, 0, sizeof(*api));
	api->version = ORDSCHED_API_VERSION;
	return dev_ioctl(fd, ORDSCHED_IOC_API, api);
}

static inline int dev_take(int fd, __u32 count, __u64 *first)
{
	struct ordsched_take take = { .count = count };
	int ret = dev_ioctl(fd, ORDSCHED_IOC_TAKE, &take);

	if (!ret && first)
		*first = take.first;
	return ret;
}

static inline int dev_wait(int fd, __u64 ticket, __u64 deadline_ns)
{
	struct ordsched_wait wait = {
		.ticket = ticket, .deadline_ns = deadline_ns,
	};

	return dev_ioctl(fd, ORDSCHED_IOC_WAIT, &wait);
}

static inline int dev_complete(int fd, __u64 ticket, __u32 count)
{
	struct ordsched_range r = { .ticket = ticket, .count = count };

	return dev_ioctl(fd, ORDSCHED_IOC_COMPLETE, &r);
}

static inline int dev_trash(int fd, __u64 ticket, __u32 count)
{
	struct ordsched_range r = { .ticket = ticket, .count = count };

	return dev_ioctl(fd, ORDSCHED_IOC_TRASH, &r);
}

static inline int dev_complete_wait(int fd, __u64 ticket, __u64 next,
				    __u64 deadline_ns)
{
	struct ordsched_complete_wait cw = {
		.ticket = ticket, .next = next, .deadline_ns = deadline_ns,
	};

	return dev_ioctl(fd, ORDSCHED_IOC_COMPLETE_WAIT, &cw);
}

static inline int dev_new_handle(int fd, __u32 flags)
{
	struct ordsched_new_handle nh = { .flags = flags };

	return dev_ioctl(fd, ORDSCHED_IOC_NEW_HANDLE, &nh);
}

static inline int dev_stats(int fd, struct ordsched_stats *st)
{
	memset(st, 0, sizeof(*st));
	return dev_ioctl(fd, ORDSCHED_IOC_STATS, st);
}

static inline __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * Wait until @fd's domain has counted @want waits that slept, for at most
 * @secs seconds; the stats are left in @st. Return: 0, or -1 on timeout or
 * error.
 */
static inline int dev_waits_reach(int fd, __u64 want, unsigned int secs,
				  struct ordsched_stats *st)
{
	__u64 t0 = now_ns();

	do {
		usleep(10 * 1000);
		if (dev_stats(fd, st))
			return -1;
		if (st->waits >= want)
			return 0;
	} while (now_ns() - t0 < secs * 1000000000ULL);
	return -1;
}

/* The status page of @fd's domain, read-only, or MAP_FAILED. */
static inline const void *dev_map(int fd)
{
	return mmap(NULL, getpagesize(), PROT_READ, MAP_SHARED, fd, 0);
}

static inline __u64 dev_tail(const void *page)
{
	const struct ordsched_status *st = page;

	return __atomic_load_n((const __u64 *)((const char *)page +
					       st->tail_offset),
			       __ATOMIC_ACQUIRE);
}

static inline __u64 dev_head(const void *page)
{
	const struct ordsched_status *st = page;

	return __atomic_load_n((const __u64 *)((const char *)page +
					       st->head_offset),
			       __ATOMIC_ACQUIRE);
}

#endif /* _ORDSCHED_DEV_UTIL_H */
