// SPDX-License-Identifier: GPL-2.0
/*
 * Every error path of /dev/ordsched, one test each, with otherwise valid
 * input: reserved fields, unknown flags, bad pointers, huge counts,
 * foreign, double and out-of-range tickets, bad mmaps, the caps. Each
 * also checks that a refused command changed nothing.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

#include <linux/ordsched_ring.h>

#include "dev_util.h"
#include "kselftest_harness.h"

FIXTURE(dev) {
	int fd;
	struct ordsched_api api;
	void *ro;	/* a page we may read but not write */
};

FIXTURE_SETUP(dev)
{
	self->fd = dev_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, dev_api(self->fd, &self->api));
	self->ro = mmap(NULL, getpagesize(), PROT_READ,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->ro);
}

FIXTURE_TEARDOWN(dev)
{
	munmap(self->ro, getpagesize());
	close(self->fd);
}

/* What a handle holds, and the domain's tail and head. */
static void stats_of(struct __test_metadata *_metadata, int fd,
		     struct ordsched_stats *st)
{
	ASSERT_EQ(0, dev_stats(fd, st));
}

TEST_F(dev, api_reports_the_interface)
{
	struct ordsched_api *api = &self->api;
	__u64 nr;

	EXPECT_EQ(ORDSCHED_API_VERSION, api->version);
	EXPECT_EQ(0, api->flags);
	EXPECT_NE(0, api->features & ORDSCHED_FEAT_STATUS_PAGE);
	EXPECT_NE(0, api->features & ORDSCHED_FEAT_POLL);
	EXPECT_NE(0, api->features & ORDSCHED_FEAT_COMPLETE_WAIT);
	EXPECT_NE(0, api->features & ORDSCHED_FEAT_NEW_HANDLE);
	for (nr = 0; nr < 8; nr++)
		EXPECT_NE(0, api->ioctls & (1ULL << nr));
	/* And the ring's three, numbered from 0x10, with its feature. */
	if (api->features & ORDSCHED_FEAT_RING) {
		EXPECT_EQ(0x7ULL << 0x10, api->ioctls & ~0xffULL);
	} else {
		EXPECT_EQ(0, api->ioctls >> 8);
	}
	EXPECT_EQ((__u32)getpagesize(), api->status_size);
	EXPECT_LE(api->status_tail_offset + 8, api->status_size);
	EXPECT_LE(api->status_head_offset + 8, api->status_size);
	/* Tail and head on different cache lines. */
	EXPECT_LE(64, api->status_head_offset - api->status_tail_offset);
	EXPECT_LE(1, api->max_batch);
	EXPECT_LE(api->max_batch, api->max_held);
	EXPECT_LE(api->max_held, api->window);
	EXPECT_EQ(0, api->reserved[0] | api->reserved[1] | api->reserved[2] |
		  api->reserved[3]);
}

TEST_F(dev, api_bad_version)
{
	struct ordsched_api api = { .version = ORDSCHED_API_VERSION + 1 };

	EXPECT_EQ(-EINVAL, dev_ioctl(self->fd, ORDSCHED_IOC_API, &api));
	api.version = 0;
	EXPECT_EQ(-EINVAL, dev_ioctl(self->fd, ORDSCHED_IOC_API, &api));
}

TEST_F(dev, api_flags)
{
	struct ordsched_api api = { .version = ORDSCHED_API_VERSION };

	api.flags = 1;
	EXPECT_EQ(-EINVAL, dev_ioctl(self->fd, ORDSCHED_IOC_API, &api));
	api.flags = 1U << 31;
	EXPECT_EQ(-EINVAL, dev_ioctl(self->fd, ORDSCHED_IOC_API, &api));
}

TEST_F(dev, api_reserved)
{
	struct ordsched_api api;
	int i;

	for (i = 0; i < 4; i++) {
		memset(&api, 0, sizeof(api));
		api.version = ORDSCHED_API_VERSION;
		api.reserved[i] = 1ULL << (i * 16);
		EXPECT_EQ(-EINVAL, dev_ioctl(self->fd, ORDSCHED_IOC_API, &api));
	}
}

TEST_F(dev, api_bad_pointers)
{
	EXPECT_EQ(-EFAULT, dev_ioctl(self->fd, ORDSCHED_IOC_API, NULL));
	EXPECT_EQ(-EFAULT, dev_ioctl(self->fd, ORDSCHED_IOC_API, (void *)1));
	/* Readable zeroes ask for version 0. */
	EXPECT_EQ(-EINVAL, dev_ioctl(self->fd, ORDSCHED_IOC_API, self->ro));
}

TEST_F(dev, api_answer_not_writable)
{
	struct ordsched_api *api;
	void *rw = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(MAP_FAILED, rw);
	api = rw;
	api->version = ORDSCHED_API_VERSION;
	ASSERT_EQ(0, mprotect(rw, getpagesize(), PROT_READ));
	EXPECT_EQ(-EFAULT, dev_ioctl(self->fd, ORDSCHED_IOC_API, rw));
	munmap(rw, getpagesize());
}

TEST_F(dev, unknown_commands)
{
	__u64 buf[32] = { 0 };

	/* Unused numbers of our type. */
	EXPECT_EQ(-ENOTTY, dev_ioctl(self->fd, _IOWR(ORDSCHED_IOC_MAGIC, 0x08,
						      struct ordsched_take), buf));
	EXPECT_EQ(-ENOTTY, dev_ioctl(self->fd, _IOWR(ORDSCHED_IOC_MAGIC, 0xff,
						      __u64), buf));
	/* A known number with the wrong size or direction. */
	EXPECT_EQ(-ENOTTY, dev_ioctl(self->fd, _IOWR(ORDSCHED_IOC_MAGIC, 0x01,
						      __u64), buf));
	EXPECT_EQ(-ENOTTY, dev_ioctl(self->fd, _IOR(ORDSCHED_IOC_MAGIC, 0x01,
						     struct ordsched_take), buf));
	EXPECT_EQ(-ENOTTY, dev_ioctl(self->fd, _IO(ORDSCHED_IOC_MAGIC, 0x02),
				     buf));
}

TEST_F(dev, take_count_zero)
{
	struct ordsched_stats st;

	EXPECT_EQ(-EINVAL, dev_take(self->fd, 0, NULL));
	stats_of(_metadata, self->fd, &st);
	EXPECT_EQ(0, st.head);
}

TEST_F(dev, take_count_huge)
{
	struct ordsched_stats st;

	EXPECT_EQ(-EINVAL, dev_take(self->fd, self->api.max_batch + 1, NULL));
	EXPECT_EQ(-EINVAL, dev_take(self->fd, 0x80000000U, NULL));
	EXPECT_EQ(-EINVAL, dev_take(self->fd, 0xffffffffU, NULL));
	stats_of(_metadata, self->fd, &st);
	EXPECT_EQ(0, st.head);
	EXPECT_EQ(0, dev_take(self->fd, self->api.max_batch, NULL));
}

TEST_F(dev, take_flags)
{
	struct ordsched_take take = { .count = 1, .flags = 1 };

	EXPECT_EQ(-EINVAL, dev_ioctl(self->fd, ORDSCHED_IOC_TAKE, &take));
	take.flags = 1U << 31;
	EXPECT_EQ(-EINVAL, dev_ioctl(self->fd, ORDSCHED_IOC_TAKE, &take));
}

TEST_F(dev, take_bad_pointers)
{
	struct ordsched_take *take = self->ro;
	struct ordsched_stats st;

	EXPECT_EQ(-EFAULT, dev_ioctl(self->fd, ORDSCHED_IOC_TAKE, NULL));
	EXPECT_EQ(-EFAULT, dev_ioctl(self->fd, ORDSCHED_IOC_TAKE, (void *)-8L));
	/* The zero page says count 0. */
	EXPECT_EQ(-EINVAL, dev_ioctl(self->fd, ORDSCHED_IOC_TAKE, take));
	stats_of(_metadata, self->fd, &st);
	EXPECT_EQ(0, st.head);
}

/*
 * An answer that cannot be written fails before any ticket is taken: a
 * ticket the caller never learns would stall the domain.
 */
TEST_F(dev, take_answer_not_writable)
{
	struct ordsched_stats st;
	struct ordsched_take *take;
	void *rw = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(MAP_FAILED, rw);
	take = rw;
	take->count = 3;
	ASSERT_EQ(0, mprotect(rw, getpagesize(), PROT_READ));
	EXPECT_EQ(-EFAULT, dev_ioctl(self->fd, ORDSCHED_IOC_TAKE, take));
	stats_of(_metadata, self->fd, &st);
	EXPECT_EQ(0, st.held);
	EXPECT_EQ(0, st.taken);
	munmap(rw, getpagesize());
}

TEST_F(dev, take_beyond_max_held)
{
	struct ordsched_stats st;
	__u32 n = 0, batch = self->api.max_batch;

	while (n + batch <= self->api.max_held) {
		ASSERT_EQ(0, dev_take(self->fd, batch, NULL));
		n += batch;
	}
	if (n < self->api.max_held)
		ASSERT_EQ(0, dev_take(self->fd, self->api.max_held - n, NULL));
	EXPECT_EQ(-EAGAIN, dev_take(self->fd, 1, NULL));
	stats_of(_metadata, self->fd, &st);
	EXPECT_EQ(self->api.max_held, st.held);
	EXPECT_EQ(1, st.full);
	/* Room again after one retires. */
	ASSERT_EQ(0, dev_complete(self->fd, 0, 1));
	EXPECT_EQ(0, dev_take(self->fd, 1, NULL));
}

TEST_F(dev, take_beyond_window)
{
	int fds[64], n = 0, i;
	__u64 taken = 0;

	/* Fill the window from several handles, each under its own cap. */
	while (taken < self->api.window) {
		__u32 c = self->api.window - taken;

		ASSERT_LT(n, 64);
		fds[n] = dev_new_handle(self->fd, ORDSCHED_HANDLE_CLOEXEC);
		ASSERT_LE(0, fds[n]);
		while (c) {
			__u32 b = c < self->api.max_batch ? c : self->api.max_batch;
			int ret = dev_take(fds[n], b, NULL);

			if (ret == -EAGAIN)
				break;
			ASSERT_EQ(0, ret);
			taken += b;
			c -= b;
		}
		n++;
	}
	EXPECT_EQ(-EAGAIN, dev_take(self->fd, 1, NULL));
	/* Closing the holder of the tail makes room. */
	ASSERT_EQ(0, close(fds[0]));
	EXPECT_EQ(0, dev_take(self->fd, 1, NULL));
	for (i = 1; i < n; i++)
		close(fds[i]);
}

TEST_F(dev, wait_flags_and_pad)
{
	struct ordsched_wait w = { .ticket = 0, .deadline_ns = 0 };

	ASSERT_EQ(0, dev_take(self->fd, 1, NULL));
	w.flags = 1;
	EXPECT_EQ(-EINVAL, dev_ioctl(self->fd, ORDSCHED_IOC_WAIT, &w));
	w.flags = 0;
	w.pad = 1;
	EXPECT_EQ(-EINVAL, dev_ioctl(self->fd, ORDSCHED_IOC_WAIT, &w));
	w.pad = 0;
	EXPECT_EQ(0, dev_ioctl(self->fd, ORDSCHED_IOC_WAIT, &w));
}

TEST_F(dev, wait_bad_pointer)
{
	EXPECT_EQ(-EFAULT, dev_ioctl(self->fd, ORDSCHED_IOC_WAIT, NULL));
	EXPECT_EQ(-EFAULT, dev_ioctl(self->fd, ORDSCHED_IOC_WAIT, (void *)1));
}

TEST_F(dev, wait_never_issued)
{
	ASSERT_EQ(0, dev_take(self->fd, 1, NULL));
	EXPECT_EQ(-EINVAL, dev_wait(self->fd, 1, 0));
	EXPECT_EQ(-EINVAL, dev_wait(self->fd, 1000000, 0));
	EXPECT_EQ(-EINVAL, dev_wait(self->fd, ORDSCHED_NO_TICKET, 0));
}

TEST_F(dev, wait_foreign)
{
	int other = dev_new_handle(self->fd, ORDSCHED_HANDLE_CLOEXEC);
	__u64 t;

	ASSERT_LE(0, other);
	ASSERT_EQ(0, dev_take(other, 1, &t));
	EXPECT_EQ(-EPERM, dev_wait(self->fd, t, ORDSCHED_NO_DEADLINE));
	EXPECT_EQ(0, dev_wait(other, t, ORDSCHED_NO_DEADLINE));
	close(other);
}

TEST_F(dev, wait_retired)
{
	ASSERT_EQ(0, dev_take(self->fd, 3, NULL));
	ASSERT_EQ(0, dev_complete(self->fd, 0, 1));
	ASSERT_EQ(0, dev_trash(self->fd, 2, 1));
	/* Completed and passed; trashed ahead of the tail. */
	EXPECT_EQ(-EALREADY, dev_wait(self->fd, 0, ORDSCHED_NO_DEADLINE));
	EXPECT_EQ(-EALREADY, dev_wait(self->fd, 2, ORDSCHED_NO_DEADLINE));
	EXPECT_EQ(0, dev_wait(self->fd, 1, ORDSCHED_NO_DEADLINE));
}

static void range_flags(struct __test_metadata *_metadata, int fd,
			unsigned long cmd)
{
	struct ordsched_range r = { .ticket = 0, .count = 1, .flags = 1 };
	struct ordsched_stats st;

	ASSERT_EQ(0, dev_take(fd, 1, NULL));
	EXPECT_EQ(-EINVAL, dev_ioctl(fd, cmd, &r));
	r.flags = 1U << 31;
	EXPECT_EQ(-EINVAL, dev_ioctl(fd, cmd, &r));
	stats_of(_metadata, fd, &st);
	EXPECT_EQ(1, st.held);
	r.flags = 0;
	EXPECT_EQ(0, dev_ioctl(fd, cmd, &r));
}

TEST_F(dev, complete_flags)
{
	range_flags(_metadata, self->fd, ORDSCHED_IOC_COMPLETE);
}

TEST_F(dev, trash_flags)
{
	range_flags(_metadata, self->fd, ORDSCHED_IOC_TRASH);
}

static void range_counts(struct __test_metadata *_metadata, int fd,
			 unsigned long cmd, __u32 max_batch)
{
	struct ordsched_range r = { .ticket = 0 };
	struct ordsched_stats st;

	ASSERT_EQ(0, dev_take(fd, 2, NULL));
	r.count = 0;
	EXPECT_EQ(-EINVAL, dev_ioctl(fd, cmd, &r));
	r.count = max_batch + 1;
	EXPECT_EQ(-EINVAL, dev_ioctl(fd, cmd, &r));
	r.count = 0xffffffffU;
	EXPECT_EQ(-EINVAL, dev_ioctl(fd, cmd, &r));
	/* A range running past the head. */
	r.count = 3;
	EXPECT_EQ(-EINVAL, dev_ioctl(fd, cmd, &r));
	/* A range wrapping around 2^64. */
	r.ticket = ORDSCHED_NO_TICKET - 1;
	r.count = 4;
	EXPECT_EQ(-EINVAL, dev_ioctl(fd, cmd, &r));
	stats_of(_metadata, fd, &st);
	EXPECT_EQ(2, st.held);
	EXPECT_EQ(0, st.tail);
}

TEST_F(dev, complete_counts)
{
	range_counts(_metadata, self->fd, ORDSCHED_IOC_COMPLETE,
		     self->api.max_batch);
}

TEST_F(dev, trash_counts)
{
	range_counts(_metadata, self->fd, ORDSCHED_IOC_TRASH,
		     self->api.max_batch);
}

TEST_F(dev, complete_bad_pointer)
{
	EXPECT_EQ(-EFAULT, dev_ioctl(self->fd, ORDSCHED_IOC_COMPLETE, NULL));
	EXPECT_EQ(-EFAULT, dev_ioctl(self->fd, ORDSCHED_IOC_TRASH, (void *)1));
}

TEST_F(dev, complete_never_issued)
{
	EXPECT_EQ(-EINVAL, dev_complete(self->fd, 0, 1));
	ASSERT_EQ(0, dev_take(self->fd, 1, NULL));
	EXPECT_EQ(-EINVAL, dev_complete(self->fd, 1, 1));
	EXPECT_EQ(-EINVAL, dev_trash(self->fd, 5, 1));
	EXPECT_EQ(-EINVAL, dev_trash(self->fd, ORDSCHED_NO_TICKET, 1));
}

TEST_F(dev, complete_twice)
{
	ASSERT_EQ(0, dev_take(self->fd, 2, NULL));
	ASSERT_EQ(0, dev_complete(self->fd, 0, 1));
	EXPECT_EQ(-EALREADY, dev_complete(self->fd, 0, 1));
	EXPECT_EQ(-EALREADY, dev_trash(self->fd, 0, 1));
	/* Retired ahead of its turn: still refused a second time. */
	ASSERT_EQ(0, dev_trash(self->fd, 1, 1));
	EXPECT_EQ(-EALREADY, dev_trash(self->fd, 1, 1));
	EXPECT_EQ(-EALREADY, dev_complete(self->fd, 1, 1));
}

TEST_F(dev, complete_foreign)
{
	int other = dev_new_handle(self->fd, ORDSCHED_HANDLE_CLOEXEC);
	struct ordsched_stats st;

	ASSERT_LE(0, other);
	ASSERT_EQ(0, dev_take(self->fd, 1, NULL));	/* 0 */
	ASSERT_EQ(0, dev_take(other, 1, NULL));		/* 1 */
	ASSERT_EQ(0, dev_take(self->fd, 1, NULL));	/* 2 */
	EXPECT_EQ(-EPERM, dev_complete(other, 0, 1));
	EXPECT_EQ(-EPERM, dev_trash(self->fd, 1, 1));
	/* All or nothing: 0 and 2 are ours, 1 is not. */
	EXPECT_EQ(-EPERM, dev_complete(self->fd, 0, 3));
	stats_of(_metadata, self->fd, &st);
	EXPECT_EQ(2, st.held);
	EXPECT_EQ(0, st.tail);
	EXPECT_EQ(0, st.completed + st.trashed);
	close(other);
}

TEST_F(dev, complete_wait_flags_and_pad)
{
	struct ordsched_complete_wait cw = {
		.ticket = 0, .next = ORDSCHED_NO_TICKET, .flags = 1,
	};
	struct ordsched_stats st;

	ASSERT_EQ(0, dev_take(self->fd, 1, NULL));
	EXPECT_EQ(-EINVAL, dev_ioctl(self->fd, ORDSCHED_IOC_COMPLETE_WAIT, &cw));
	cw.flags = 0;
	cw.pad = 1;
	EXPECT_EQ(-EINVAL, dev_ioctl(self->fd, ORDSCHED_IOC_COMPLETE_WAIT, &cw));
	stats_of(_metadata, self->fd, &st);
	EXPECT_EQ(1, st.held);
}

TEST_F(dev, complete_wait_bad_tickets)
{
	struct ordsched_stats st;

	ASSERT_EQ(0, dev_take(self->fd, 2, NULL));
	/* A failed completion does not wait. */
	EXPECT_EQ(-EINVAL, dev_complete_wait(self->fd, 7, 1, ORDSCHED_NO_DEADLINE));
	/* A failed wait comes after a done completion. */
	EXPECT_EQ(-EINVAL, dev_complete_wait(self->fd, 0, 9, ORDSCHED_NO_DEADLINE));
	stats_of(_metadata, self->fd, &st);
	EXPECT_EQ(1, st.held);
	EXPECT_EQ(1, st.tail);
	EXPECT_EQ(-EALREADY, dev_complete_wait(self->fd, 0, 1, 0));
	EXPECT_EQ(0, dev_complete_wait(self->fd, ORDSCHED_NO_TICKET, 1, 0));
	EXPECT_EQ(0, dev_complete_wait(self->fd, ORDSCHED_NO_TICKET,
				       ORDSCHED_NO_TICKET, 0));
}

/* The completion is written back so that a restart only waits. */
TEST_F(dev, complete_wait_writes_back)
{
	struct ordsched_complete_wait cw = {
		.ticket = 0, .next = 1, .deadline_ns = ORDSCHED_NO_DEADLINE,
	};

	ASSERT_EQ(0, dev_take(self->fd, 2, NULL));
	EXPECT_EQ(0, dev_ioctl(self->fd, ORDSCHED_IOC_COMPLETE_WAIT, &cw));
	EXPECT_EQ(ORDSCHED_NO_TICKET, cw.ticket);
	EXPECT_EQ(1, cw.next);
}

TEST_F(dev, complete_wait_bad_pointers)
{
	struct ordsched_complete_wait *cw;
	struct ordsched_stats st;
	void *rw;

	EXPECT_EQ(-EFAULT, dev_ioctl(self->fd, ORDSCHED_IOC_COMPLETE_WAIT, NULL));
	rw = mmap(NULL, getpagesize(), PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, rw);
	ASSERT_EQ(0, dev_take(self->fd, 1, NULL));
	cw = rw;
	cw->ticket = 0;
	cw->next = ORDSCHED_NO_TICKET;
	ASSERT_EQ(0, mprotect(rw, getpagesize(), PROT_READ));
	/* The write-back would fail: refused before the completion. */
	EXPECT_EQ(-EFAULT, dev_ioctl(self->fd, ORDSCHED_IOC_COMPLETE_WAIT, cw));
	stats_of(_metadata, self->fd, &st);
	EXPECT_EQ(1, st.held);
	EXPECT_EQ(0, st.completed);
	munmap(rw, getpagesize());
}

TEST_F(dev, new_handle_flags_and_reserved)
{
	struct ordsched_new_handle nh = { .flags = 2 };
	struct ordsched_stats st;

	EXPECT_EQ(-EINVAL, dev_ioctl(self->fd, ORDSCHED_IOC_NEW_HANDLE, &nh));
	nh.flags = 1U << 31;
	EXPECT_EQ(-EINVAL, dev_ioctl(self->fd, ORDSCHED_IOC_NEW_HANDLE, &nh));
	nh.flags = 0;
	nh.pad = 1;
	EXPECT_EQ(-EINVAL, dev_ioctl(self->fd, ORDSCHED_IOC_NEW_HANDLE, &nh));
	nh.pad = 0;
	nh.reserved = 1ULL << 63;
	EXPECT_EQ(-EINVAL, dev_ioctl(self->fd, ORDSCHED_IOC_NEW_HANDLE, &nh));
	EXPECT_EQ(-EFAULT, dev_ioctl(self->fd, ORDSCHED_IOC_NEW_HANDLE, NULL));
	stats_of(_metadata, self->fd, &st);
	EXPECT_EQ(1, st.handles);
}

TEST_F(dev, new_handle_shares_the_domain)
{
	struct ordsched_stats a, b;
	int fd1 = dev_new_handle(self->fd, ORDSCHED_HANDLE_CLOEXEC);
	int fd2 = dev_new_handle(self->fd, 0);

	ASSERT_LE(0, fd1);
	ASSERT_LE(0, fd2);
	EXPECT_EQ(FD_CLOEXEC, fcntl(fd1, F_GETFD) & FD_CLOEXEC);
	EXPECT_EQ(0, fcntl(fd2, F_GETFD) & FD_CLOEXEC);
	ASSERT_EQ(0, dev_take(fd1, 1, NULL));
	stats_of(_metadata, self->fd, &a);
	stats_of(_metadata, fd1, &b);
	EXPECT_EQ(a.domain_id, b.domain_id);
	EXPECT_EQ(3, a.handles);
	EXPECT_EQ(0, a.held);
	EXPECT_EQ(1, b.held);
	EXPECT_EQ(1, a.head);
	/* The new handle is seekable no more than the device. */
	EXPECT_EQ(-1, lseek(fd1, 0, SEEK_SET));
	close(fd1);
	close(fd2);
	stats_of(_metadata, self->fd, &a);
	EXPECT_EQ(1, a.handles);
	EXPECT_EQ(1, a.released);
	EXPECT_EQ(1, a.tail);
}

TEST_F(dev, stats_flags_and_pointers)
{
	struct ordsched_stats st;

	memset(&st, 0, sizeof(st));
	st.flags = 1;
	EXPECT_EQ(-EINVAL, dev_ioctl(self->fd, ORDSCHED_IOC_STATS, &st));
	EXPECT_EQ(-EFAULT, dev_ioctl(self->fd, ORDSCHED_IOC_STATS, NULL));
	/* Zero flags, but the answer cannot be written. */
	EXPECT_EQ(-EFAULT, dev_ioctl(self->fd, ORDSCHED_IOC_STATS, self->ro));
}

TEST_F(dev, stats_zero_what_is_not_used)
{
	struct ordsched_stats st;

	memset(&st, 0xa5, sizeof(st));
	st.flags = 0;
	ASSERT_EQ(0, dev_ioctl(self->fd, ORDSCHED_IOC_STATS, &st));
	EXPECT_EQ(0, st.pad);
	EXPECT_EQ(0, st.reserved[0] | st.reserved[1] | st.reserved[2]);
	/* Not a ring domain: nothing to defer. */
	EXPECT_EQ(0, st.deferred);
	EXPECT_EQ(0, st.flags);
	EXPECT_EQ(1, st.handles);
}

TEST_F(dev, mmap_bad_offset)
{
	long pg = getpagesize();

	EXPECT_EQ(MAP_FAILED, mmap(NULL, pg, PROT_READ, MAP_SHARED, self->fd, pg));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, pg, PROT_READ, MAP_SHARED, self->fd,
				   pg * 1000));
	EXPECT_EQ(EINVAL, errno);
}

/*
 * h: "a length that mmap(2), which rounds it up to whole pages, does not
 * make status_size ... EINVAL": a length short of the page is rounded up
 * to it and maps (the text said EINVAL for any other length).
 */
TEST_F(dev, mmap_bad_length)
{
	long pg = getpagesize();
	void *p;

	EXPECT_EQ(MAP_FAILED, mmap(NULL, 2 * pg, PROT_READ, MAP_SHARED,
				   self->fd, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, pg + 1, PROT_READ, MAP_SHARED,
				   self->fd, 0));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 64 * pg, PROT_READ, MAP_SHARED,
				   self->fd, 0));
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, pg - 1, PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(0, munmap(p, pg - 1));
}

TEST_F(dev, mmap_writable)
{
	long pg = getpagesize();
	void *p;

	EXPECT_EQ(MAP_FAILED, mmap(NULL, pg, PROT_READ | PROT_WRITE,
				   MAP_SHARED, self->fd, 0));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, pg, PROT_WRITE, MAP_SHARED,
				   self->fd, 0));
	EXPECT_EQ(EPERM, errno);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, pg, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE, self->fd, 0));
	EXPECT_EQ(EPERM, errno);
	/* Nor can a read-only mapping be made writable later. */
	p = mmap(NULL, pg, PROT_READ, MAP_SHARED, self->fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(-1, mprotect(p, pg, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	/* Nor grown (VM_DONTEXPAND). */
	EXPECT_EQ(MAP_FAILED, mremap(p, pg, 2 * pg, 0));
	EXPECT_EQ(EFAULT, errno);
	munmap(p, pg);
}

/*
 * ordsched.h, struct ordsched_status: "MAP_PRIVATE maps the same page,
 * read-only": it follows the tail as the shared mapping does.
 */
TEST_F(dev, mmap_private_same_page)
{
	long pg = getpagesize();
	const volatile __u64 *tail;
	__u64 t;
	void *p;

	p = mmap(NULL, pg, PROT_READ, MAP_PRIVATE, self->fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	tail = (const volatile __u64 *)((char *)p +
					self->api.status_tail_offset);
	ASSERT_EQ(0, dev_take(self->fd, 1, &t));
	EXPECT_EQ(t, *tail);
	ASSERT_EQ(0, dev_complete(self->fd, t, 1));
	EXPECT_EQ(t + 1, *tail);
	EXPECT_EQ(-1, mprotect(p, pg, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	munmap(p, pg);
}

TEST_F(dev, status_page)
{
	const struct ordsched_status *st;
	const void *page = dev_map(self->fd);
	int other = dev_new_handle(self->fd, ORDSCHED_HANDLE_CLOEXEC);
	const void *page2;
	__u64 t;

	ASSERT_NE(MAP_FAILED, page);
	ASSERT_LE(0, other);
	st = page;
	EXPECT_EQ(ORDSCHED_API_VERSION, st->version);
	EXPECT_EQ(self->api.status_size, st->size);
	EXPECT_EQ(self->api.features, st->features);
	EXPECT_EQ(self->api.window, st->window);
	EXPECT_EQ(self->api.status_tail_offset, st->tail_offset);
	EXPECT_EQ(self->api.status_head_offset, st->head_offset);
	EXPECT_EQ(0, dev_tail(page));
	EXPECT_EQ(0, dev_head(page));

	ASSERT_EQ(0, dev_take(self->fd, 5, &t));
	EXPECT_EQ(5, dev_head(page));
	ASSERT_EQ(0, dev_trash(self->fd, 1, 2));
	EXPECT_EQ(0, dev_tail(page));
	ASSERT_EQ(0, dev_complete(self->fd, 0, 1));
	EXPECT_EQ(3, dev_tail(page));

	/* Every handle maps the same page; it outlives the descriptor. */
	page2 = dev_map(other);
	ASSERT_NE(MAP_FAILED, page2);
	close(other);
	EXPECT_EQ(3, dev_tail(page2));
	ASSERT_EQ(0, dev_complete(self->fd, 3, 2));
	EXPECT_EQ(5, dev_tail(page2));
	close(self->fd);
	self->fd = dev_open();
	EXPECT_EQ(5, dev_tail(page));
	/*
	 * Dropped by madvise(), it comes back at the next read, not SIGBUS
	 * (where the kernel has madvise(): ENOSYS without ADVISE_SYSCALLS).
	 */
	if (madvise((void *)page, getpagesize(), MADV_DONTNEED))
		EXPECT_EQ(ENOSYS, errno);
	EXPECT_EQ(5, dev_tail(page));
	EXPECT_EQ(ORDSCHED_API_VERSION,
		  ((const struct ordsched_status *)page)->version);
	munmap((void *)page, getpagesize());
	munmap((void *)page2, getpagesize());
}

/*
 * A mapping of the status page holds the page, not the handle: closing a
 * handle that is still mapped releases it at once, its tickets trashed.
 */
TEST_F(dev, mapping_does_not_keep_a_handle)
{
	int other = dev_new_handle(self->fd, ORDSCHED_HANDLE_CLOEXEC);
	struct ordsched_stats st;
	const void *page;
	__u64 t, u;

	ASSERT_LE(0, other);
	page = dev_map(other);
	ASSERT_NE(MAP_FAILED, page);
	ASSERT_EQ(0, dev_take(other, 1, &t));
	ASSERT_EQ(0, dev_take(self->fd, 1, &u));
	EXPECT_EQ(t, dev_tail(page));
	close(other);
	/* Our turn now, not after a timeout. */
	EXPECT_EQ(0, dev_wait(self->fd, u, 0));
	stats_of(_metadata, self->fd, &st);
	EXPECT_EQ(1, st.released);
	EXPECT_EQ(u, dev_tail(page));
	munmap((void *)page, getpagesize());
}

TEST_F(dev, poll_reports_the_turn)
{
	int other = dev_new_handle(self->fd, ORDSCHED_HANDLE_CLOEXEC);
	struct pollfd pfd = { .fd = self->fd, .events = POLLIN };

	ASSERT_LE(0, other);
	/* Nothing held: not ready. */
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	ASSERT_EQ(0, dev_take(other, 1, NULL));		/* 0 */
	ASSERT_EQ(0, dev_take(self->fd, 1, NULL));	/* 1 */
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	ASSERT_EQ(0, dev_complete(other, 0, 1));
	EXPECT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_EQ(POLLIN, pfd.revents);
	close(other);
}

TEST_HARNESS_MAIN
