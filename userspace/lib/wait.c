// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * libordsched: waiting for a turn. First a short spin on the tail in the
 * mapped status page, which costs no system call when the holder of the
 * previous ticket is running and about to complete; then a sleep in the
 * kernel, which wakes only the waiter whose turn came. A futex cannot do
 * the second part: the kernel refuses shared futexes on a driver's page.
 */
#include <time.h>

#include "internal.h"

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#endif
}

/*
 * An acquire load of a u64 the kernel writes with single release stores.
 * Without 64-bit atomic loads, read high, low, high until both highs
 * match: the value is then one the kernel wrote at some point (the
 * counters only grow), never a mix above the truth.
 */
uint64_t os_load(const uint64_t *word)
{
#if UINTPTR_MAX == UINT64_MAX
	return __atomic_load_n(word, __ATOMIC_ACQUIRE);
#else
	const uint32_t *half = (const uint32_t *)word;
	int lo = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? 0 : 1;
	uint32_t hi1, hi2, low;

	do {
		hi1 = __atomic_load_n(&half[!lo], __ATOMIC_ACQUIRE);
		low = __atomic_load_n(&half[lo], __ATOMIC_ACQUIRE);
		hi2 = __atomic_load_n(&half[!lo], __ATOMIC_ACQUIRE);
	} while (hi1 != hi2);
	return (uint64_t)hi1 << 32 | low;
#endif
}

uint64_t ordsched_tail(const struct ordsched *os)
{
	return os_load(os->tail);
}

uint64_t ordsched_head(const struct ordsched *os)
{
	return os_load(os->head);
}

int ordsched_is_turn(const struct ordsched *os, uint64_t ticket)
{
	return ordsched_tail(os) == ticket;
}

int ordsched_wait(struct ordsched *os, uint64_t ticket, uint64_t deadline_ns)
{
	struct ordsched_wait w = { .ticket = ticket, .deadline_ns = deadline_ns };
	unsigned int i, spin = __atomic_load_n(&os->spin, __ATOMIC_RELAXED);
	uint64_t tail;

	/* Only a ticket we hold can be our turn without asking the kernel. */
	if (!os_owns(os, ticket))
		spin = 0;
	for (i = 0; i < spin; i++) {
		tail = ordsched_tail(os);
		if (tail == ticket)
			return 0;
		/* Passed or far behind: the kernel tells which and why. */
		if (tail > ticket)
			break;
		cpu_relax();
	}
	return os_ioctl(os, ORDSCHED_IOC_WAIT, &w);
}

int ordsched_complete_wait(struct ordsched *os, uint64_t *ticket,
			   uint64_t next, uint64_t deadline_ns)
{
	struct ordsched_complete_wait cw = {
		.ticket = *ticket, .next = next, .deadline_ns = deadline_ns,
	};
	int ret = os_ioctl(os, ORDSCHED_IOC_COMPLETE_WAIT, &cw);

	/* The kernel wrote ORDSCHED_NO_TICKET back once it completed. */
	if (*ticket != ORDSCHED_NO_TICKET && cw.ticket == ORDSCHED_NO_TICKET)
		os_own(os, *ticket, 1, 0);
	*ticket = cw.ticket;
	return ret;
}

uint64_t ordsched_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t ordsched_deadline_in(uint64_t ns)
{
	uint64_t now = ordsched_now();

	return ns >= ORDSCHED_NO_DEADLINE - now ? ORDSCHED_NO_DEADLINE : now + ns;
}
