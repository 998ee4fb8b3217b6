// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * libordsched: waiting for a turn. First a short spin on the tail in the
 * mapped status page, which costs no system call when the holder of the
 * previous ticket is running and about to complete; then a sleep in the
 * kernel, which wakes the waiters whose turn came and, ahead of their
 * turn, those of the next ticket (they wait on in the kernel, never
 * returning early). A futex cannot do the second part: the kernel refuses
 * shared futexes on a driver's page.
 *
 * With the shared ring, the spin also costs no system call when the turn
 * comes during it, whatever the handle; the sleep flags the slot SLEEPING
 * first, so that whoever moves the tail onto the ticket wakes it
 * (ORDSCHED_IOC_RING_WAIT, ORDSCHED_IOC_RING_WAKE); that wake-up also
 * gets the next ticket's sleeper onto a CPU ahead of its turn, which it
 * awaits in the kernel.
 */
#include <time.h>

#include "internal.h"

#define cpu_relax os_cpu_relax

/*
 * An acquire load of a u64 the kernel writes with single release stores.
 * Without 64-bit atomic loads, read high, low, high until both highs
 * match: the value is then one the kernel wrote at some point (the
 * counters only grow), never a mix above the truth.
 */
uint64_t ordsched__load(const uint64_t *word)
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

/*
 * A handle on the ring reads the ring's words. One on the ioctl path
 * reads where the status page says they are at each call (the domain may
 * have become a ring domain since the handshake), or where they were if
 * the page now says nonsense.
 */
static const uint64_t *os_status_word(const struct ordsched *os, bool head)
{
	const uint64_t *word;

	if (os_ring(os))
		return head ? os->head : os->tail;
	word = ordsched__status_word(os, head);
	return word ? word : head ? os->head : os->tail;
}

uint64_t ordsched_tail(const struct ordsched *os)
{
	return ordsched__load(os_status_word(os, false));
}

uint64_t ordsched_head(const struct ordsched *os)
{
	return ordsched__load(os_status_word(os, true));
}

int ordsched_is_turn(const struct ordsched *os, uint64_t ticket)
{
	return ordsched_tail(os) == ticket;
}

/*
 * ORDSCHED_RING_WAKE, @ctx the struct ordsched: only called when the
 * ticket's owner flagged it.
 */
void ordsched__ring_wake(void *ctx, __u64 t)
{
	struct ordsched_ring_wake wk = { .ticket = t };

	os_ioctl(ctx, ORDSCHED_IOC_RING_WAKE, &wk);
}

/*
 * ORDSCHED_RING_SLEEP, @ctx a struct os_ring_ctx: the slot is flagged
 * SLEEPING.
 */
int ordsched__ring_sleep(void *ctx, __u64 t)
{
	struct os_ring_ctx *c = ctx;
	struct ordsched_ring_wait rw = {
		.ticket = t, .deadline_ns = c->deadline_ns,
	};

	return os_ioctl(c->os, ORDSCHED_IOC_RING_WAIT, &rw);
}

/*
 * How many times to look at the tail before sleeping: spinning only pays
 * while the thread that will hand the turn over runs on another CPU. So
 * none when this process may use a single CPU, nor when the domain has
 * more tickets out than this process has CPUs: more threads at work than
 * CPUs, and a spinner would take the CPU that a holder needs. Two loads
 * of words every wait reads anyway; counting spinners or held tickets
 * would add stores to a shared line on every take, wait and complete.
 */
static unsigned int spin_budget(const struct ordsched *os)
{
	unsigned int spin = __atomic_load_n(&os->spin, __ATOMIC_RELAXED);

	if (!spin || os->ncpus < 2 ||
	    os_ring_load(os->view.head) - os_ring_load(os->view.tail) >
	    os->ncpus)
		return 0;
	return spin;
}

/*
 * Flag @ticket, which this handle holds, SLEEPING for a poller, and have
 * the kernel wake the pollers if its turn came before the flag: race (b)
 * of ring_proto.h, the flag CAS then the tail load against the mover's
 * tail CAS then slot load. Also pairs with ordsched_fd(), which sets
 * os->pollable and then flags the tickets it finds, as a take claims its
 * slot and then reads os->pollable: one of the two flags each ticket.
 */
void ordsched__ring_flag(struct ordsched *os, uint64_t ticket)
{
	__u64 *slot = ordsched_ring_slot(&os->view, ticket);

	if (os_ring_cas(slot, ordsched_ring_word(ticket, os->ring_id,
						 ORDSCHED_RING_OWNED),
			ordsched_ring_word(ticket, os->ring_id,
					   ORDSCHED_RING_SLEEPING)) &&
	    os_ring_load(os->view.tail) == ticket)
		ordsched__ring_wake(os, ticket);
}

/*
 * The ring's spin, for a ticket of this handle: look at the tail while
 * spin_budget() allows. Return the tail last seen, @ticket when the turn
 * came; ticket + 1 when the slot says the ticket is not the handle's,
 * or there was no spin (ring_wait() then answers). Small and out of
 * line: what follows the turn is the next ticket's serial path.
 */
__attribute__((noinline))
static __u64 ring_spin(struct ordsched *os, uint64_t ticket)
{
	__u64 tail = ticket + 1;
	unsigned int spin;

	if (!ordsched_ring_mine(os_ring_load(ordsched_ring_slot(&os->view, ticket)),
				ticket, os->ring_id))
		return tail;
	for (spin = spin_budget(os); spin; spin--) {
		tail = os_ring_load(os->view.tail);
		if (tail == ticket || ordsched_ring_passed(tail, ticket))
			break;
		cpu_relax();
	}
	return tail;
}

/*
 * After a re-flag of @ticket that failed: may the process's other waiters
 * of it sleep through something no mover will wake them for? Yes if the
 * word moved on while the flag was down (the ticket completed or trashed
 * by a thread that found no flag to wake: they learn EALREADY), and if
 * the flag is up but the tail has reached the ticket: the waiter that
 * raised it may have done so after the mover looked at the slot, then
 * found the turn itself and left (a pollable handle keeps its flag: no
 * re-flag, no wake-up). Only a flag up before the turn (left by a wait
 * that timed out, or set by a waiter still asleep) is surely the mover's
 * to see: no system call on every timeout with others waiting.
 */
static bool ring_flag_not_seen(struct ordsched *os, __u64 *slot,
			       uint64_t ticket)
{
	__u64 tail;

	if (os_ring_load(slot) != ordsched_ring_word(ticket, os->ring_id,
						     ORDSCHED_RING_SLEEPING))
		return true;
	tail = os_ring_load(os->view.tail);
	return tail == ticket || ordsched_ring_passed(tail, ticket);
}

/*
 * The ring's sleep, once the spin is over. In ring_proto.h a wait that
 * returns at its turn takes the SLEEPING flag back; one that returns
 * without it leaves the flag, for the other waiters of the ticket, in any
 * process. Threads of this process that wait for the same ticket count
 * themselves in ring_waiters, and one that leaves at the turn while
 * others still wait flags the slot again, then wakes them itself if the
 * tail got there meanwhile (race (b) again: the mover that CASes the tail
 * onto it then looks at the slot). A pollable handle's tickets keep their
 * flag throughout (__ordsched_ring_wait()'s @keep): the mover onto the
 * ticket finds it whenever it looks, and wakes the pollers. Taken back
 * at the turn and set again after, the flag would be missing when a mover
 * held up between its tail CAS and its look at the slot looked, and the
 * pollers would sleep through the turn. A handle made pollable during the
 * wait, whose flag was taken back, is flagged again and woken here if the
 * turn came meanwhile, as for the others. A re-flag that fails wakes the
 * others if the word moved on or the turn has come: ring_flag_not_seen();
 * one that succeeds, if the turn has come or, with others waiting, gone
 * (the ticket completed by a thread that looked at the slot before the
 * flag, whose word a late free may then erase, waking nobody).
 */
__attribute__((noinline))
static int ring_wait(struct ordsched *os, uint64_t ticket,
		     uint64_t deadline_ns)
{
	struct os_ring_ctx ctx = { .os = os, .deadline_ns = deadline_ns };
	__u64 *slot = ordsched_ring_slot(&os->view, ticket);
	unsigned int *waiters = &os->ring_waiters[ticket & os->view.mask];
	unsigned int others;
	bool keep;
	__u64 tail;
	int ret;

	/* Not this handle's: answer before counting in another's waiters. */
	ret = ordsched_ring_check_live(&os->view, ticket, os->ring_id);
	if (ret)
		return ret;
	__atomic_add_fetch(waiters, 1, __ATOMIC_SEQ_CST);
	keep = __atomic_load_n(&os->pollable, __ATOMIC_SEQ_CST);
	ret = __ordsched_ring_wait(&os->view, os->ring_id, ticket, 0, keep,
				   &ctx);
	others = __atomic_sub_fetch(waiters, 1, __ATOMIC_SEQ_CST);
	/*
	 * Sequentially consistent, as the store in os_set_pollable(): a
	 * scan that found the flag still set on our slot (and skipped it)
	 * is seen here, and we set it again.
	 */
	if (!others && !__atomic_load_n(&os->pollable, __ATOMIC_SEQ_CST))
		return ret;
	if (os_ring_cas(slot, ordsched_ring_word(ticket, os->ring_id,
						 ORDSCHED_RING_OWNED),
			ordsched_ring_word(ticket, os->ring_id,
					   ORDSCHED_RING_SLEEPING))) {
		tail = os_ring_load(os->view.tail);
		/*
		 * Past the ticket, with others waiting: completed at its turn
		 * by a thread that looked at the slot before our flag, and
		 * not freed yet; a late free may erase the flag unseen.
		 */
		if (tail == ticket ||
		    (others && ordsched_ring_passed(tail, ticket)))
			ordsched__ring_wake(os, ticket);
	} else if (others && ring_flag_not_seen(os, slot, ticket)) {
		ordsched__ring_wake(os, ticket);
	}
	return ret;
}

/*
 * The ioctl path at the turn: is @ticket, which this process still owns,
 * live as the page says? In a ring domain (the status page is then the
 * ring page, its header at ORDSCHED_RING_HDR_OFFSET) the tail rests for
 * an instant on a ticket retired early, until its retirer moves it on,
 * and the retirer may be another process sharing the handle, whose
 * retirements owned[] does not see. Live only if the slot holds this
 * ticket, OWNED or SLEEPING (by whichever id: the kernel gave the handle
 * one that we were not told); anything else, a header that makes no sense
 * included, is the kernel's to answer. A domain without a ring has no
 * header (version 0) and retires nothing behind the library's back but
 * what the kernel answers for.
 */
static int ioctl_turn_live(const struct ordsched *os, uint64_t ticket)
{
	const volatile char *page = os->status;
	const volatile struct ordsched_ring_hdr *hdr =
		(const volatile void *)(page + ORDSCHED_RING_HDR_OFFSET);
	uint32_t slots, off, size = os->api.status_size;
	uint64_t w;

	if (!(os->api.features & ORDSCHED_FEAT_RING) ||
	    size < ORDSCHED_RING_HDR_OFFSET + sizeof(*hdr) || !hdr->version)
		return 1;
#if UINTPTR_MAX != UINT64_MAX
	/*
	 * A 64-bit atomic load may be a compare-and-swap here, which the
	 * read-only status page refuses: the kernel answers.
	 */
	(void)ticket;
	(void)slots;
	(void)off;
	(void)w;
	return 0;
#else
	slots = hdr->slots;
	off = hdr->slots_offset;
	if (hdr->version != ORDSCHED_RING_VERSION || !slots ||
	    (slots & (slots - 1)) || off % 8 || off > size ||
	    (size - off) / 8 < slots)
		return 0;
	w = __atomic_load_n((const uint64_t *)(page + off) +
			    ORDSCHED_RING_INDEX(ticket, slots),
			    __ATOMIC_ACQUIRE);
	return ordsched_ring_diff(w, ticket) == 0 &&
	       ordsched_ring_owned(w);
#endif
}

/* The ioctl path: a short spin on the mapped tail, then the kernel. */
__attribute__((noinline))
static int ioctl_wait(struct ordsched *os, uint64_t ticket,
		      uint64_t deadline_ns)
{
	struct ordsched_wait w = { .ticket = ticket, .deadline_ns = deadline_ns };
	unsigned int i, spin;
	uint64_t tail;

	spin = __atomic_load_n(&os->spin, __ATOMIC_RELAXED);

	/* Only a ticket we hold can be our turn without asking the kernel. */
	if (!os_owns(os, ticket))
		spin = 0;
	for (i = 0; i < spin; i++) {
		tail = ordsched_tail(os);
		/*
		 * Still ours, looked at after the tail: in a ring domain the
		 * tail steps onto tickets retired early, and another thread
		 * of ours forgets a ticket before it retires it; another
		 * process sharing the handle does not, the slot tells.
		 */
		if (tail == ticket) {
			if (os_owns(os, ticket) && ioctl_turn_live(os, ticket))
				return 0;
			break;
		}
		/* Passed or far behind: the kernel tells which and why. */
		if (tail > ticket)
			break;
		cpu_relax();
	}
	return os_ioctl(os, ORDSCHED_IOC_WAIT, &w);
}

/*
 * At the turn, the slot says whether the ticket is still ours (0), or why
 * not: retired by another thread of the handle (EALREADY), or never this
 * handle's (EPERM, EINVAL), the kernel's answers. A ticket the tail
 * passed is the sleep path's to answer: ordsched_ring_wait() also looks
 * at the tail.
 */
static inline int ring_turn(const struct ordsched *os, uint64_t ticket)
{
	__u64 w = os_ring_load(ordsched_ring_slot(&os->view, ticket));

	/*
	 * The head too: a ticket claimed by a take of ours still between its
	 * claim and its head CAS is not handed out yet (EINVAL, as the
	 * kernel answers): see ordsched_ring_complete().
	 */
	if (ordsched_ring_mine(w, ticket, os->ring_id) &&
	    ordsched_ring_passed(os_ring_load(os->view.head), ticket))
		return 0;
	return ordsched_ring_check_live(&os->view, ticket, os->ring_id);
}

/* The turn not there yet: spin, then sleep if it still is not. */
__attribute__((noinline))
static int ring_spin_wait(struct ordsched *os, uint64_t ticket,
			  uint64_t deadline_ns)
{
	if (ring_spin(os, ticket) != ticket)
		return ring_wait(os, ticket, deadline_ns);
	return ring_turn(os, ticket);
}

/*
 * The other paths are out of line, reached by a jump, so that this one,
 * the turn there at once, needs no stack frame: it is most waits with
 * threads <= CPUs.
 */
OS_HOT int ordsched_wait(struct ordsched *os, uint64_t ticket, uint64_t deadline_ns)
{
	if (!os_ring(os))
		return ioctl_wait(os, ticket, deadline_ns);
	if (os_ring_load(os->view.tail) != ticket)
		return ring_spin_wait(os, ticket, deadline_ns);
	return ring_turn(os, ticket);
}

int ordsched_complete_wait(struct ordsched *os, uint64_t *ticket,
			   uint64_t next, uint64_t deadline_ns)
{
	struct ordsched_complete_wait cw = {
		.ticket = *ticket, .next = next, .deadline_ns = deadline_ns,
	};
	int ret;

	if (os_ring(os)) {
		if (*ticket != ORDSCHED_NO_TICKET) {
			ret = ordsched_complete(os, *ticket);
			if (ret)
				return ret;
			*ticket = ORDSCHED_NO_TICKET;
		}
		return next == ORDSCHED_NO_TICKET ? 0 :
		       ordsched_wait(os, next, deadline_ns);
	}
	/*
	 * Whatever the answer, and before the kernel retires it, as
	 * ordsched_complete() does: the ioctl goes on to wait for @next, and
	 * a wait of another thread that sees the tail reach *@ticket
	 * meanwhile must not find it still ours (see struct ordsched's owned).
	 */
	if (*ticket != ORDSCHED_NO_TICKET)
		os_own(os, *ticket, 1, 0);
	ret = os_ioctl(os, ORDSCHED_IOC_COMPLETE_WAIT, &cw);
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
