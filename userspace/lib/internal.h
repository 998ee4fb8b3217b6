/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/* What the parts of libordsched share; not installed. */
#ifndef LIBORDSCHED_INTERNAL_H
#define LIBORDSCHED_INTERNAL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>

#include <linux/ordsched_ring.h>

#include "libordsched.h"

/*
 * The ring protocol, shared with the module. Loads are seq_cst, not
 * acquire: races (a) and (b) of ring_proto.h are store buffer tests, which
 * C11 orders only between seq_cst operations.
 */
struct ordsched;

/*
 * The protocol's ctx: a struct ordsched for ORDSCHED_RING_WAKE (complete,
 * trash), a struct os_ring_ctx for ORDSCHED_RING_SLEEP (wait, the only
 * call that sleeps and the only one with a deadline). The calls of every
 * item so pass a pointer they have, not one to their own stack frame,
 * and can end in a tail call.
 */
struct os_ring_ctx {
	struct ordsched *os;
	uint64_t deadline_ns;
};

/*
 * A test build (selftests/ordsched/lib_wait_replay.c) stops threads at
 * chosen accesses to the ring page: each load and compare-and-swap of it
 * calls os_test_hook() first. Nothing in the library's own build.
 */
#ifdef OS_TEST_HOOKS
void os_test_hook(const void *p, bool cas);
#else
#define os_test_hook(p, cas)	((void)0)
#endif

static inline __u64 os_ring_load(__u64 *p)
{
	os_test_hook(p, false);
	return __atomic_load_n(p, __ATOMIC_SEQ_CST);
}

static inline bool os_ring_cas(__u64 *p, __u64 old, __u64 new)
{
	os_test_hook(p, true);
	return __atomic_compare_exchange_n(p, &old, new, false,
					   __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

static inline void os_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#endif
}

void ordsched__ring_wake(void *ctx, __u64 t);
int ordsched__ring_sleep(void *ctx, __u64 t);

#define ORDSCHED_RING_LOAD(p)		os_ring_load(p)
#define ORDSCHED_RING_CAS(p, o, n)	os_ring_cas((p), (o), (n))
#define ORDSCHED_RING_WAKE(ctx, t)	ordsched__ring_wake((ctx), (t))
#define ORDSCHED_RING_SLEEP(ctx, t)	ordsched__ring_sleep((ctx), (t))
#define ORDSCHED_RING_RELAX()		os_cpu_relax()
#define ORDSCHED_RING_OUTLINE		__attribute__((noinline, unused))

#include "ring_proto.h"

/*
 * The calls every item makes (take, wait at the turn, complete): kept
 * together in the text, away from the rest.
 */
#define OS_HOT __attribute__((hot))

struct ordsched {
	int fd;
	unsigned int spin;
	const volatile void *status;	/* the mapped status page */
	const uint64_t *tail;		/* inside it */
	const uint64_t *head;
	struct ordsched_api api;
	/*
	 * On the ioctl path, the tickets this process took on this handle
	 * and has not retired: ticket t as t + 1 in owned[t % api.window]
	 * (the handshake's window there; a ring handle's api.window is its
	 * slots, but it never uses this), 0 for none. The spin path of a
	 * wait returns 0 only for the very ticket found there (on the ring,
	 * the slot words say whose a ticket is). For any other ticket
	 * (another handle's, never issued, already retired, or taken by
	 * another process sharing the handle) the kernel answers, so both
	 * paths give the same result. An entry is cleared whenever a
	 * completion or trash names it, whatever the kernel answered:
	 * forgetting a ticket only costs a system call, remembering one
	 * retired could make the spin answer for it.
	 */
	uint64_t *owned;
	/*
	 * The shared ring (ORDSCHED_FEAT_RING), when this handle uses it:
	 * take, complete, trash and a wait whose turn comes while it spins
	 * run the protocol of module/ring_proto.h on the mapped page, with
	 * no system call. ring_map is NULL on the ioctl path.
	 */
	void *ring_map;
	size_t ring_size;
	uint32_t ring_id;
	struct ordsched_ring_view view;
	/* Threads of this process waiting per slot: see ring_wait(). */
	unsigned int *ring_waiters;
	/*
	 * On the ring, set once the program may poll(2) the descriptor (it
	 * asked for it with ordsched_fd(), or gave it with
	 * ordsched_from_fd()): from then on, every ticket of the handle stays
	 * flagged SLEEPING, so that the thread that moves the tail onto it
	 * has the kernel wake the pollers. See os_set_pollable().
	 */
	int pollable;
	/* The CPUs this process may use: spinning needs a second one. */
	unsigned int ncpus;
};

static inline void os_own(struct ordsched *os, uint64_t first,
			  unsigned int count, int own)
{
	for (; count; count--, first++) {
		uint64_t *entry = &os->owned[first % os->api.window];
		uint64_t mine = first + 1;

		if (own)
			__atomic_store_n(entry, mine, __ATOMIC_RELAXED);
		else
			/* Only if it still names this ticket. */
			__atomic_compare_exchange_n(entry, &mine, 0, 0,
						    __ATOMIC_RELAXED,
						    __ATOMIC_RELAXED);
	}
}

static inline int os_owns(const struct ordsched *os, uint64_t ticket)
{
	return __atomic_load_n(&os->owned[ticket % os->api.window],
			       __ATOMIC_RELAXED) == ticket + 1;
}

/*
 * libordsched.h: no function sets errno. After a failed call, -errno,
 * with errno back at @saved, its value before the call.
 */
static inline int os_errno(int saved)
{
	int err = errno;

	errno = saved;
	return -err;
}

/* An ioctl returning 0 (or a descriptor) or -errno. */
static inline int os_ioctl(const struct ordsched *os, unsigned long cmd,
			   void *arg)
{
	int saved = errno, ret = ioctl(os->fd, cmd, arg);

	return ret < 0 ? os_errno(saved) : ret;
}

/* wait.c */
uint64_t ordsched__load(const uint64_t *word);
const uint64_t *ordsched__status_word(const struct ordsched *os, bool head);
void ordsched__ring_flag(struct ordsched *os, uint64_t ticket);


static inline bool os_ring(const struct ordsched *os)
{
	return os->ring_map != NULL;
}

#endif /* LIBORDSCHED_INTERNAL_H */
