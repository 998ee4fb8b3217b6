/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The shared ring from userspace, for the ring_* tests: module/ring_proto.h
 * compiled with C11 seq_cst atomics (as the protocol asks) and the ring
 * commands as system calls, and a handle's part in a ring (its id, the
 * page, its view). Each test program includes it once.
 */
#ifndef _ORDSCHED_RING_UTIL_H
#define _ORDSCHED_RING_UTIL_H

#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>

#include <linux/ordsched_ring.h>

#include "dev_util.h"

#define MS	1000000ULL
#define SEC	(1000 * MS)

/* The system calls the protocol made: 0 when nobody had to sleep. */
static __u64 ring_syscalls;

struct ring_ctx {
	int fd;
	__u64 deadline_ns;
};

static inline __u64 ring_load(__u64 *p)
{
	return __atomic_load_n(p, __ATOMIC_SEQ_CST);
}

static inline bool ring_cas(__u64 *p, __u64 old, __u64 new)
{
	return __atomic_compare_exchange_n(p, &old, new, false,
					   __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

static inline void ring_wake(void *ctx, __u64 t)
{
	struct ordsched_ring_wake wake = { .ticket = t };

	__atomic_add_fetch(&ring_syscalls, 1, __ATOMIC_RELAXED);
	dev_ioctl(((struct ring_ctx *)ctx)->fd, ORDSCHED_IOC_RING_WAKE, &wake);
}

static inline int ring_sleep(void *ctx, __u64 t)
{
	struct ring_ctx *c = ctx;
	struct ordsched_ring_wait wait = {
		.ticket = t, .deadline_ns = c->deadline_ns,
	};

	__atomic_add_fetch(&ring_syscalls, 1, __ATOMIC_RELAXED);
	return dev_ioctl(c->fd, ORDSCHED_IOC_RING_WAIT, &wait);
}

#define ORDSCHED_RING_LOAD(p)		ring_load(p)
#define ORDSCHED_RING_CAS(p, o, n)	ring_cas((p), (o), (n))
#define ORDSCHED_RING_WAKE(ctx, t)	ring_wake((ctx), (t))
#define ORDSCHED_RING_SLEEP(ctx, t)	ring_sleep((ctx), (t))
#define ORDSCHED_RING_RELAX()		__builtin_ia32_pause()

#include "../../module/ring_proto.h"

/* A handle's part in a ring: its id, the page, its view. */
struct ring {
	int fd;
	__u32 id;
	__u64 *page;
	struct ordsched_ring_setup setup;
	struct ordsched_ring_view v;
	struct ring_ctx ctx;
};

static inline int ring_setup(int fd, struct ordsched_ring_setup *setup)
{
	memset(setup, 0, sizeof(*setup));
	return dev_ioctl(fd, ORDSCHED_IOC_RING_SETUP, setup);
}

/* Set up @fd's id and map the ring; 0 or -errno. */
static inline int ring_open(int fd, struct ring *r)
{
	char *page;
	int ret;

	memset(r, 0, sizeof(*r));
	ret = ring_setup(fd, &r->setup);
	if (ret)
		return ret;
	page = mmap(NULL, r->setup.size, PROT_READ | PROT_WRITE, MAP_SHARED,
		    fd, r->setup.mmap_offset);
	if (page == MAP_FAILED)
		return -errno;
	r->fd = fd;
	r->id = r->setup.id;
	r->page = (__u64 *)page;
	r->v.head = (__u64 *)(page + r->setup.head_offset);
	r->v.tail = (__u64 *)(page + r->setup.tail_offset);
	r->v.slots = (__u64 *)(page + r->setup.slots_offset);
	r->v.mask = r->setup.slots - 1;
	r->ctx.fd = fd;
	r->ctx.deadline_ns = ORDSCHED_NO_DEADLINE;
	return 0;
}

static inline void ring_close(struct ring *r)
{
	munmap(r->page, r->setup.size);
}

static inline int ring_wait_raw(int fd, __u64 t, __u64 deadline_ns)
{
	struct ordsched_ring_wait wait = {
		.ticket = t, .deadline_ns = deadline_ns,
	};

	return dev_ioctl(fd, ORDSCHED_IOC_RING_WAIT, &wait);
}

static inline int ring_wake_raw(int fd, __u64 t)
{
	struct ordsched_ring_wake wake = { .ticket = t };

	return dev_ioctl(fd, ORDSCHED_IOC_RING_WAKE, &wake);
}

static inline unsigned int word_state(struct ring *r, __u64 t)
{
	return ordsched_ring_state(ring_load(ordsched_ring_slot(&r->v, t)));
}

#endif /* _ORDSCHED_RING_UTIL_H */
