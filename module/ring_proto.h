/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The shared ticket ring: the protocol, as static inline operations that
 * the module (ring.c) and libordsched both compile, and that
 * selftests/ordsched/ring_check.c runs under an exhaustive interleaving
 * checker. Layout and trust model: uapi/linux/ordsched_ring.h.
 *
 * The includer provides, before including this file:
 *	ORDSCHED_RING_LOAD(p)		load a __u64 of the page, at least
 *					acquire (seq_cst in C11 userspace)
 *	ORDSCHED_RING_CAS(p, old, new)	compare-and-swap a __u64 of the page;
 *					true on success, and then fully
 *					ordered; a failure implies nothing
 *	ORDSCHED_RING_WAKE(ctx, t)	have the kernel wake the waiters of t
 *	ORDSCHED_RING_SLEEP(ctx, t)	sleep in the kernel until t's turn:
 *					0, or -errno as ORDSCHED_IOC_RING_WAIT
 *	ORDSCHED_RING_RELAX()		a pause in a spin loop
 * and the errno values; and may provide
 *	ORDSCHED_RING_OUTLINE		how to declare the parts of a call
 *					past its fast path (default inline;
 *					noinline in the library, so that
 *					the fast path needs no stack frame)
 *	ORDSCHED_RING_RETRIES		the most times take and retire
 *					retry after the page changed under
 *					them (default 0: no limit); then
 *					take answers EAGAIN and retire
 *					EALREADY. The kernel's bound
 *					against a scribbler that keeps
 *					changing the page.
 * Nothing here dereferences anything but the head,
 * the tail and slot[i & mask] of a struct ordsched_ring_view that the
 * caller built from its own trusted values.
 *
 * Notation: R = mask + 1 slots, ticket t's slot is
 * ORDSCHED_RING_INDEX(t, R) (the uapi header; any bijection would do), and the slot
 * words are FREE(t), OWNED(t, id), SLEEPING(t, id), RETIRED(t) (see the
 * uapi header). Tickets compare modulo 2^64 (head, tail) and, inside a
 * word, modulo 2^46 (ordsched_ring_diff()).
 *
 * Who changes what, always by a successful CAS:
 *	FREE(t) -> OWNED(t, id)		take: the claim; ticket t exists now
 *	head t -> t + 1			anyone who saw slot t claimed (help)
 *	OWNED <-> SLEEPING (same id)	the owner around a kernel sleep
 *	OWNED/SLEEPING(t) -> RETIRED(t)	complete or trash, by the owner's
 *					handle; release, by the kernel
 *	tail t -> t + 1			anyone who saw slot t RETIRED(t),
 *					after making sure head > t; or the
 *					owner's handle, completing t at its
 *					turn (slot t still OWNED(t, id))
 *	any word of t -> FREE(t + R)	anyone who saw tail past t: the
 *					mover of the tail, the owner after
 *					its turn, a taker a lap on
 * No other transition exists, so each word only moves forward: FREE(t),
 * OWNED/SLEEPING(t), RETIRED(t) (or, at the turn, none), FREE(t + R), ...
 * Invariants: tail <= head <= tail + R; ticket t's slot holds a word of
 * ticket t for every t in [tail, head), and a word of t or t - R at the
 * head. A word of t - R is FREE(t), RETIRED(t - R), or, between the turn's
 * tail move and its freeing, OWNED/SLEEPING(t - R).
 *
 * Take. Read head h, then slot h. FREE(h): claim it with our id, then move
 * the head (or find it moved by a helper); the ticket is h. A word of
 * ticket h: someone claimed h and has not moved the head yet: help, retry.
 * A word of h - R: the window is full (EAGAIN), unless the tail has passed
 * h - R: its freeing is late (its mover or its owner died, or is slow: a
 * completer preempted between its turn's tail move and its free while the
 * others went a lap round), so free it ourselves and retry. Anything else after the head
 * was re-read unchanged is a scribble (EIO). Ownership is in the ring
 * before the ticket exists: a taker dying after its claim leaves OWNED(h,
 * id), which the others count as taken and the kernel trashes on release.
 * EAGAIN can be transient: RETIRED(h - R) at a tail that its retirer (or
 * the kernel's release) is about to move; a caller that waits for the
 * window waits for the page to change, not for a wake-up.
 *
 * Complete and trash are one operation. At the turn (the tail is t and
 * slot t still OWNED(t, id)) the hand-over comes first: move the tail
 * t -> t + 1 (nobody else moves the tail off a slot that is not retired),
 * free slot t for t + R, then advance from t + 1 as below (that CAS moved
 * the tail: the new tail's sleeper is ours to wake); the advance only
 * acts on a RETIRED or SLEEPING word of t + 1, so the completer runs it
 * only when it finds one there. One CAS stands
 * between the completer and the next ticket's turn, where retiring first
 * took three (retire, tail, free). Before the turn (early), or when the
 * tail CAS fails: retire the slot, then advance. Either way the slot CAS
 * from OWNED/SLEEPING(t, id) (the turn's free, or the retire) decides
 * which of two threads of the handle completing t at once answers 0: the
 * other finds the word changed and answers EALREADY (race (d)). A word of
 * t owned by id with the tail past t is therefore a ticket completed at
 * its turn and not yet freed: checks that must answer EALREADY for a
 * completed ticket also look at the tail (ordsched_ring_check_live()).
 * Advance: read the tail t and slot t; while the slot
 * is RETIRED(t), help the head past t, move the tail t -> t + 1 and free
 * the slot for t + R; stop at the first slot that is not retired, and if
 * its owner flagged SLEEPING and this call moved the tail, enter the
 * kernel to wake it. Several threads may advance at once: the tail CAS
 * admits one per ticket, the losers re-read and go on or stop; two movers
 * may wake the same sleeper, which costs a system call, not a lost or a
 * herd wake-up. A completer that moved nothing (early, or beaten to the
 * tail) does not wake: the thread that moved the tail onto the sleeper's
 * ticket looks at its slot after the move (race (b)), so the wake-up is
 * that thread's. The first version woke whatever slept at the tail after
 * every complete, early ones included: a spurious wake-up and context
 * switch of the tail's owner per early completion (ring_check's
 * eager-wake mutant). Release is the exception: it wakes the tail's
 * sleeper even if it moves nothing, because the dead handle may have moved
 * the tail and died before looking (the lazy-release mutant loses that
 * wake-up).
 *
 * The races that matter, each a pair of fully ordered CAS followed by a
 * load (a store buffer test: at least one side sees the other's store):
 *  (a) retire vs advance: the retirer CASes slot t RETIRED then loads the
 *      tail (advance); the mover CASes the tail to t then loads slot t.
 *      Either the retirer sees tail == t and moves it, or the mover sees
 *      RETIRED(t) and goes on: never neither (both: the tail CAS picks one).
 *  (b) sleep vs advance: the waiter CASes its slot SLEEPING, then (in the
 *      kernel, after queueing itself: prepare_to_wait() orders the queueing
 *      before the load) loads the tail; the mover CASes the tail to t, then
 *      loads slot t and, seeing SLEEPING, calls WAKE. Either the waiter
 *      sees its turn and does not sleep, or the mover sees the flag. In
 *      the second case the WAKE finds the waiter queued, or comes before
 *      the queueing: then the wait queue's lock orders the tail move before
 *      the waiter's queueing and so before its load, which sees its turn.
 *      The tail load the library makes before entering the kernel is only
 *      a shortcut: the kernel's, after queueing, is the one that counts.
 *  (c) take vs take: one CAS per slot word: one claimer wins; the losers
 *      re-read. The head CAS is idempotent help: h -> h + 1 only.
 *  (d) the turn's hand-over vs a retire of the same ticket by another
 *      thread of the handle: both may pass the tail CAS or the retire
 *      CAS, but both then CAS the slot from OWNED/SLEEPING(t, id): one
 *      wins and answers 0, the other answers EALREADY. If the retire won,
 *      the slot is RETIRED(t) behind the tail: the loser frees it (or a
 *      taker does, late). The one exception: the turn's completer held
 *      up for a whole lap, in which a taker freed the slot, cannot tell
 *      whether a retire came first, and answers 0 too; it wakes a flag it
 *      saw, but not one set between its load of the slot and its tail
 *      CAS that the late free then erased: such a waiter of the handle
 *      sleeps until its deadline. A taker must not wait for a completer
 *      that may be preempted: lock-freedom wins over an exact answer to
 *      a program that completes a ticket twice at once.
 *
 * Death at every instruction (the kernel runs release when the handle's
 * last file reference goes; the mapping does not hold one):
 *  - before a claim: nothing happened.
 *  - after a claim, before the head moved: OWNED(h, id) at the head; takers
 *    help the head, release trashes the slot (it scans all R slots by
 *    index, whatever head and tail say), advance passes it.
 *  - owning tickets, asleep or not: release trashes them all, then
 *    advances, which wakes the new tail's owner if it sleeps.
 *  - after a retire, before the advance: release advances (it always
 *    does, even when the handle owned nothing).
 *  - in advance, after helping the head: as above; after the tail CAS,
 *    before freeing the slot: takers free it when they reach it (take,
 *    late free), and release's advance wakes the owner of the new tail.
 *  - at the turn, after the tail CAS, before the free: OWNED(t, id) stays
 *    behind the tail; the taker of t + R frees it late; release trashes it
 *    to RETIRED(t) (if no taker freed it already), and its advance wakes
 *    the new tail's sleeper if the dead completer's advance had not;
 *    after the free, before or in the advance: the same wake-up.
 *  - after flagging SLEEPING, before or inside the sleep: release trashes
 *    the flagged slot like any other.
 *  - in release itself (the kernel does not die, but its budget may run
 *    out): a work item goes on advancing; giving up stalls the domain
 *    (the drop-budget mutant).
 *  A handle's threads that go on using the ring after its release are
 *    scribblers (their id may be reused): the trust model covers them. A
 *    close() racing another thread's take can leave a slot claimed by a
 *    released id: the library's rule for ordsched_close() (no other thread
 *    in a call on the handle) keeps a handle's threads off the ring once
 *    its descriptor closes.
 *
 * Several threads may wait for one ticket on its one flag: the word has
 * no bits to count them. A wait that returns without the turn (deadline,
 * signal) leaves the flag for the others, at the cost of a RING_WAKE that
 * may find nobody (taking it back left another process's sleeper asleep
 * until its deadline). One that returns at the turn takes it back, so
 * that the next tail mover need not enter the kernel; that is safe for a
 * lone waiter only. Having seen the turn itself, it may take the flag
 * back before the mover looks at the slot, and a waiter already asleep
 * then misses its wake-up. The library wakes the other waiters of its own
 * process itself then (ring_waiters); those of another process sharing
 * the handle are not covered, a narrow window libordsched.h names.
 *
 * Wrap and ABA. head and tail are u64 compared for equality and by signed
 * difference, so crossing 2^64 is harmless. A slot word holds the ticket
 * modulo 2^46; each transition is a CAS from a word that names the
 * ticket, so a CAS prepared for ticket t can only act on t, unless the
 * domain moved on by a multiple of 2^46 tickets between the load and the
 * CAS (see the uapi header). The checker starts some runs just below 2^64,
 * which also crosses the 46-bit wrap.
 *
 * Memory ordering. Every store is a CAS that is fully ordered on success;
 * each pair above is named where it is used. Races (a) and (b) are store
 * buffer tests: they need the load after the CAS to be ordered after it,
 * which a fully ordered CAS gives in the kernel (and lock cmpxchg on x86),
 * and C11 only between seq_cst operations: hence seq_cst loads in
 * userspace, not acquire ones. Loads are (at least) acquire, so the
 * thread that sees tail == t (or returns from its wake) also sees what the
 * retirers of the tickets before t wrote before their retire CAS: the
 * ordered step of ticket t follows theirs. A failed CAS is only used as
 * "retry": the value is re-read with a load.
 *
 * Kernel side: it calls ordsched_ring_wait_check(),
 * ordsched_ring_release() and ordsched_ring_advance() with a budget, and
 * for the ioctl path of a ring domain ordsched_ring_check(),
 * ordsched_ring_take() and ordsched_ring_retire() bounded by
 * ORDSCHED_RING_RETRIES; all loops there are bounded by R, the budget or
 * the retries (at most 2R + 6 budget + 3 accesses a call of this file's
 * release or advance whatever the page holds, which ring_check's
 * kernel.scribbled tests; ring.c's release adds a scan of R for its
 * counts and a wake-up's few; a few accesses a try for take and retire,
 * the kernel rescheduling between the tickets of a range), every slot
 * pointer is formed with the mask, and what is read is only compared,
 * but for two: the tail read is also the ticket whose waiters a wake-up
 * looks for, and a slot's owner id is looked up among the domain's
 * handles (ring.c; an id no handle has finds none). A scribbler
 * can make the kernel wake the wrong waiter (which re-checks and sleeps
 * again), trash or skip tickets of its own domain, or answer
 * EPERM/EALREADY/EINVAL where it should not: its own domain, documented
 * errnos.
 */
#ifndef _ORDSCHED_RING_PROTO_H
#define _ORDSCHED_RING_PROTO_H

#ifndef ORDSCHED_RING_RETRIES
#define ORDSCHED_RING_RETRIES	0
#endif

#ifndef ORDSCHED_RING_OUTLINE
#define ORDSCHED_RING_OUTLINE	inline
#endif

/* One more retry: false once ORDSCHED_RING_RETRIES ran out. */
static inline bool ordsched_ring_retry(unsigned int *tries)
{
#if ORDSCHED_RING_RETRIES
	return (*tries)++ < ORDSCHED_RING_RETRIES;
#else
	(void)tries;
	return true;
#endif
}

#ifdef __KERNEL__
#include <uapi/linux/ordsched_ring.h>
#else
#include <linux/ordsched_ring.h>
#endif

/* Where the caller's trusted view of the page puts each word. */
struct ordsched_ring_view {
	__u64 *head;
	__u64 *tail;
	__u64 *slots;
	__u64 mask;
};

static inline __u64 *ordsched_ring_slot(const struct ordsched_ring_view *r,
					__u64 t)
{
	return &r->slots[ORDSCHED_RING_INDEX(t, r->mask + 1)];
}

static inline __u64 ordsched_ring_word(__u64 t, __u32 id, unsigned int state)
{
	return ORDSCHED_RING_WORD(t, id, state);
}

static inline unsigned int ordsched_ring_state(__u64 w)
{
	return w & ORDSCHED_RING_STATE_MASK;
}

static inline __u32 ordsched_ring_owner(__u64 w)
{
	return (w >> ORDSCHED_RING_ID_SHIFT) & ORDSCHED_RING_ID_MASK;
}

static inline bool ordsched_ring_owned(__u64 w)
{
	return ordsched_ring_state(w) == ORDSCHED_RING_OWNED ||
	       ordsched_ring_state(w) == ORDSCHED_RING_SLEEPING;
}

/* The ticket of @w minus @t, modulo 2^46, as a signed number. */
static inline __s64 ordsched_ring_diff(__u64 w, __u64 t)
{
	__u64 d = (w >> ORDSCHED_RING_TICKET_SHIFT << ORDSCHED_RING_TICKET_SHIFT) -
		  (t << ORDSCHED_RING_TICKET_SHIFT);

	return (__s64)d >> ORDSCHED_RING_TICKET_SHIFT;
}

/* Has @tail passed ticket @t? */
static inline bool ordsched_ring_passed(__u64 tail, __u64 t)
{
	return (__s64)(tail - t) > 0;
}

/*
 * Is @w, the word of ticket @t's slot, owned by @id? 0 if so; -EINVAL when
 * @t was never handed out, -EALREADY when it was retired, -EPERM when
 * another handle owns it. The answers of the ioctl path.
 */
static inline int ordsched_ring_check(__u64 w, __u64 t, __u32 id)
{
	__s64 d = ordsched_ring_diff(w, t);

	if (d < 0 || (d == 0 && ordsched_ring_state(w) == ORDSCHED_RING_FREE))
		return -EINVAL;
	if (d > 0 || ordsched_ring_state(w) == ORDSCHED_RING_RETIRED)
		return -EALREADY;
	return ordsched_ring_owner(w) == id ? 0 : -EPERM;
}

/*
 * ordsched_ring_check(@w, @t, @id) == 0 in one comparison: is @w
 * OWNED(t, id) or SLEEPING(t, id)? For an @id of ORDSCHED_RING_ID_MASK
 * bits, as the kernel hands out (ring_check tests the two agree).
 */
static inline bool ordsched_ring_mine(__u64 w, __u64 t, __u32 id)
{
	return w - ordsched_ring_word(t, id, ORDSCHED_RING_OWNED) <=
	       ORDSCHED_RING_SLEEPING - ORDSCHED_RING_OWNED;
}

/*
 * Is @t in the window, at or after the tail and before the head? 0 if so;
 * -EALREADY before the tail, -EINVAL from the head on. A slot word holds
 * the ticket modulo 2^46, so ordsched_ring_check() alone takes ticket
 * t + 2^46, never handed out, for ticket t: the 64-bit counters tell them
 * apart. Tickets count from 0 and never reach 2^64 in a domain's life;
 * where the window crosses 2^64 (a page written to, or ring_check's runs
 * near the wrap) before and after are modulo 2^64, as everywhere else.
 * The tail is read first: both only grow, so the window read can only be
 * wider than any the page held, never miss a live ticket.
 */
static inline int ordsched_ring_window(const struct ordsched_ring_view *r,
				       __u64 t)
{
	__u64 tail = ORDSCHED_RING_LOAD(r->tail);
	__u64 head = ORDSCHED_RING_LOAD(r->head);

	if (t - tail < head - tail)
		return 0;
	if (tail <= head)
		return t < tail ? -EALREADY : -EINVAL;
	return (__s64)(t - tail) < 0 ? -EALREADY : -EINVAL;
}

/*
 * ordsched_ring_window(), ordsched_ring_check() of ticket @t's slot, and
 * -EALREADY once the tail passed @t: a ticket completed at its turn keeps
 * its owned word behind the tail until its completer frees the slot.
 */
static inline int ordsched_ring_check_live(const struct ordsched_ring_view *r,
					   __u64 t, __u32 id)
{
	int ret = ordsched_ring_window(r, t);

	if (ret)
		return ret;
	ret = ordsched_ring_check(ORDSCHED_RING_LOAD(ordsched_ring_slot(r, t)),
				  t, id);
	if (!ret && ordsched_ring_passed(ORDSCHED_RING_LOAD(r->tail), t))
		return -EALREADY;
	return ret;
}

/*
 * Does slot word @w hold a live ticket of handle @id: owned by it and not
 * yet passed by @tail?
 */
static inline bool ordsched_ring_held(__u64 w, __u64 tail, __u32 id)
{
	return ordsched_ring_owned(w) && ordsched_ring_owner(w) == id &&
	       ordsched_ring_diff(w, tail) >= 0;
}

/*
 * Slot @t is claimed: make sure the head is past it (idempotent help).
 * *@floor is a value the head is known to have reached, valid when
 * *@known: the head only grows, so past it there is nothing to load.
 */
static inline void ordsched_ring_help_head(const struct ordsched_ring_view *r,
					   __u64 t, bool *known, __u64 *floor)
{
	if (*known && ordsched_ring_passed(*floor, t))
		return;
	*floor = ORDSCHED_RING_LOAD(r->head);
	*known = true;
	if (*floor == t)
		ORDSCHED_RING_CAS(r->head, t, t + 1);
}

/* ordsched_ring_take(), past its fast path: every case. */
static ORDSCHED_RING_OUTLINE int
ordsched_ring_take_slow(const struct ordsched_ring_view *r, __u32 id,
			__u64 *ticket)
{
	unsigned int tries = 0;
	__u64 h, w, *slot;
	__s64 d;

	while (ordsched_ring_retry(&tries)) {
		h = ORDSCHED_RING_LOAD(r->head);
		slot = ordsched_ring_slot(r, h);
		w = ORDSCHED_RING_LOAD(slot);
		d = ordsched_ring_diff(w, h);
		if (d == 0 && ordsched_ring_state(w) == ORDSCHED_RING_FREE) {
			/* The claim: ticket h is ours before it exists. */
			if (!ORDSCHED_RING_CAS(slot, w,
					       ordsched_ring_word(h, id,
								  ORDSCHED_RING_OWNED)))
				continue;
			ORDSCHED_RING_CAS(r->head, h, h + 1);
			*ticket = h;
			return 0;
		}
		if (d == 0) {
			/* Claimed, the head not moved yet: help it on. */
			ORDSCHED_RING_CAS(r->head, h, h + 1);
			continue;
		}
		if (d == -(__s64)(r->mask + 1)) {
			/*
			 * Ticket h - R still there: full, or freed late (its
			 * word RETIRED, or still owned after a turn's tail
			 * move, whatever keeps its completer from freeing it).
			 */
			if (ordsched_ring_state(w) == ORDSCHED_RING_FREE ||
			    !ordsched_ring_passed(ORDSCHED_RING_LOAD(r->tail),
						  h - r->mask - 1))
				return -EAGAIN;
			ORDSCHED_RING_CAS(slot, w,
					  ordsched_ring_word(h, 0,
							     ORDSCHED_RING_FREE));
			continue;
		}
		/* A stale head sees a later lap; an unchanged one, garbage. */
		if (ORDSCHED_RING_LOAD(r->head) == h)
			return -EIO;
	}
	return -EAGAIN;
}

/*
 * The fast path of ordsched_ring_take(): the slot at the head is free for
 * the next ticket, and the claim wins. Return: true with the ticket in
 * *@ticket; false, having changed nothing, when the caller must go on
 * with ordsched_ring_take_slow().
 */
static inline bool ordsched_ring_take_fast(const struct ordsched_ring_view *r,
					   __u32 id, __u64 *ticket)
{
	__u64 h = ORDSCHED_RING_LOAD(r->head);
	__u64 *slot = ordsched_ring_slot(r, h);
	__u64 w = ORDSCHED_RING_LOAD(slot);

	if (w != ordsched_ring_word(h, 0, ORDSCHED_RING_FREE) ||
	    !ORDSCHED_RING_CAS(slot, w,
			       ordsched_ring_word(h, id, ORDSCHED_RING_OWNED)))
		return false;
	ORDSCHED_RING_CAS(r->head, h, h + 1);
	*ticket = h;
	return true;
}

/*
 * Take the next ticket for handle @id into *@ticket. Return: 0; -EAGAIN
 * when the window is full; -EIO when the page was scribbled on.
 */
static inline int ordsched_ring_take(const struct ordsched_ring_view *r,
				     __u32 id, __u64 *ticket)
{
	if (ordsched_ring_take_fast(r, id, ticket))
		return 0;
	return ordsched_ring_take_slow(r, id, ticket);
}

/*
 * Move the tail over the retired slots at its front, freeing each for the
 * ticket one lap on, then wake the owner of the new tail if it sleeps: if
 * this call moved the tail, or @moved says that the caller (or the handle
 * it releases) may have moved it without looking. At most @budget moves.
 * @known and @floor: a value the head has reached, if the caller knows
 * one (see ordsched_ring_help_head()).
 * Return: false if the budget ran out with a retired slot still at the
 * tail (the caller must call again, with @moved true), true otherwise.
 */
static inline bool __ordsched_ring_advance(const struct ordsched_ring_view *r,
					   unsigned int budget, bool moved,
					   bool known, __u64 floor, void *ctx)
{
	__u64 t, w, *slot;

	for (;;) {
		t = ORDSCHED_RING_LOAD(r->tail);
		/* Race (a): after our tail CAS, this load sees a retire. */
		slot = ordsched_ring_slot(r, t);
		w = ORDSCHED_RING_LOAD(slot);
		if (w != ordsched_ring_word(t, 0, ORDSCHED_RING_RETIRED))
			break;
		if (!budget--)
			return false;
		ordsched_ring_help_head(r, t, &known, &floor);
		if (ORDSCHED_RING_CAS(r->tail, t, t + 1)) {
			moved = true;
			ORDSCHED_RING_CAS(slot, w,
					  ordsched_ring_word(t + r->mask + 1, 0,
							     ORDSCHED_RING_FREE));
		}
	}
	/*
	 * Race (b): pairs with the SLEEPING CAS in ordsched_ring_wait(). Only
	 * the mover of the tail onto t must look: an early completer that
	 * moved nothing would wake the tail's sleeper for nothing.
	 */
	if (moved && ordsched_ring_diff(w, t) == 0 &&
	    ordsched_ring_state(w) == ORDSCHED_RING_SLEEPING)
		ORDSCHED_RING_WAKE(ctx, t);
	return true;
}

/* As __ordsched_ring_advance(), knowing nothing of the head. */
static inline bool ordsched_ring_advance(const struct ordsched_ring_view *r,
					 unsigned int budget, bool moved,
					 void *ctx)
{
	return __ordsched_ring_advance(r, budget, moved, false, 0, ctx);
}

/*
 * Retire ticket @t of handle @id, and wake a thread of @id sleeping on it
 * (it learns EALREADY). Does not move the tail. Return: 0 or as
 * ordsched_ring_check().
 */
static inline int ordsched_ring_retire(const struct ordsched_ring_view *r,
				       __u32 id, __u64 t, void *ctx)
{
	__u64 w, *slot = ordsched_ring_slot(r, t);
	unsigned int tries = 0;
	int ret;

	do {
		if (!ordsched_ring_retry(&tries))
			return -EALREADY;
		w = ORDSCHED_RING_LOAD(slot);
		ret = ordsched_ring_check(w, t, id);
		if (ret)
			return ret;
	} while (!ORDSCHED_RING_CAS(slot, w,
				    ordsched_ring_word(t, 0, ORDSCHED_RING_RETIRED)));
	if (ordsched_ring_state(w) == ORDSCHED_RING_SLEEPING)
		ORDSCHED_RING_WAKE(ctx, t);
	return 0;
}

/*
 * After the turn's tail move past @t: free slot @t, which held @w, for the
 * ticket one lap on, and wake a thread of @id that flagged it (it learns
 * EALREADY). Race (d): -EALREADY if another thread of @id retired @t
 * first (the slot is freed here then); else 0, also when a taker a lap
 * on freed the slot first (whose free wakes nobody: a flag seen here
 * is woken here).
 */
static inline int ordsched_ring_free_turn(const struct ordsched_ring_view *r,
					  __u32 id, __u64 t, __u64 w, void *ctx)
{
	__u64 *slot = ordsched_ring_slot(r, t);
	__u64 next = ordsched_ring_word(t + r->mask + 1, 0, ORDSCHED_RING_FREE);
	bool flagged = ordsched_ring_state(w) == ORDSCHED_RING_SLEEPING;
	unsigned int tries = 0;

	while (!ORDSCHED_RING_CAS(slot, w, next)) {
		w = ORDSCHED_RING_LOAD(slot);
		if (w == ordsched_ring_word(t, 0, ORDSCHED_RING_RETIRED)) {
			ORDSCHED_RING_CAS(slot, w, next);
			return -EALREADY;
		}
		if (ordsched_ring_check(w, t, id) ||
		    !ordsched_ring_retry(&tries))
			break;
		flagged |= ordsched_ring_state(w) == ORDSCHED_RING_SLEEPING;
	}
	/* Freed by us or, late, by a taker: a flag we saw is ours to wake. */
	if (flagged)
		ORDSCHED_RING_WAKE(ctx, t);
	return 0;
}

/*
 * The rest of ordsched_ring_turn_passed() past its fast path: @freed says
 * whether its CAS freed slot @t; wake the thread that flagged it, or
 * finish the free; then advance from t + 1, this call having moved the
 * tail onto it. Return: as ordsched_ring_free_turn().
 */
static ORDSCHED_RING_OUTLINE int
ordsched_ring_turn_rest(const struct ordsched_ring_view *r, __u32 id,
			__u64 t, __u64 w, bool freed, void *ctx)
{
	int ret = 0;

	if (!freed)
		ret = ordsched_ring_free_turn(r, id, t, w, ctx);
	else if (ordsched_ring_state(w) == ORDSCHED_RING_SLEEPING)
		ORDSCHED_RING_WAKE(ctx, t);
	__ordsched_ring_advance(r, ~0U, true, true, t + 1, ctx);
	return ret;
}

/*
 * Is @w, the word of ticket @t's slot, one that the advance acts on once
 * the tail is at @t: SLEEPING (wake its owner) or RETIRED (move on), of
 * any owner? One comparison, the two states differing in their low bit
 * only. A RETIRED word with an owner, which only a scribble writes, is
 * taken too: the advance itself stops at it. ring_check's "next" holds
 * it to that definition.
 */
static inline bool ordsched_ring_next_acts(__u64 w, __u64 t)
{
	w &= ~(ORDSCHED_RING_ID_MASK << ORDSCHED_RING_ID_SHIFT);
	return (w | 1) == ordsched_ring_word(t, 0, ORDSCHED_RING_RETIRED);
}

/*
 * The rest of ordsched_ring_complete() once its tail CAS moved the tail
 * past @t, whose slot held @w: free slot @t, then advance from t + 1.
 * The fast path: the free succeeds, nobody flagged @t, and the word of
 * t + 1 is neither RETIRED (move on) nor SLEEPING (wake: this call moved
 * the tail, race (b)), the only words the advance acts on. If another
 * thread moved the tail further meanwhile, t + 1 was retired, or its
 * owner completed it at its turn and looks past it itself. The head
 * passed t + 1 when t was taken: the advance need not look at the head,
 * which every taker writes.
 */
static ORDSCHED_RING_OUTLINE int
ordsched_ring_turn_passed(const struct ordsched_ring_view *r, __u32 id,
			  __u64 t, __u64 w, void *ctx)
{
	bool freed;
	__u64 wn;

	freed = ORDSCHED_RING_CAS(ordsched_ring_slot(r, t), w,
				  ordsched_ring_word(t + r->mask + 1, 0,
						     ORDSCHED_RING_FREE));
	if (!freed || ordsched_ring_state(w) == ORDSCHED_RING_SLEEPING)
		return ordsched_ring_turn_rest(r, id, t, w, freed, ctx);
	wn = ORDSCHED_RING_LOAD(ordsched_ring_slot(r, t + 1));
	if (ordsched_ring_next_acts(wn, t + 1))
		return ordsched_ring_turn_rest(r, id, t, w, true, ctx);
	return 0;
}

/*
 * The rest of ordsched_ring_complete() when @t, whose slot held @w, was
 * not found at its turn: check it, retire it, then move the tail over it
 * if it is at the front.
 */
static ORDSCHED_RING_OUTLINE int
ordsched_ring_complete_early(const struct ordsched_ring_view *r, __u32 id,
			     __u64 t, __u64 w, void *ctx)
{
	int ret = ordsched_ring_window(r, t);

	if (!ret)
		ret = ordsched_ring_check(w, t, id);
	if (ret)
		return ret;
	ret = ordsched_ring_retire(r, id, t, ctx);
	/* Race (a): pairs with the tail CAS in ordsched_ring_advance(). */
	if (!ret)
		__ordsched_ring_advance(r, ~0U, false, true, t + 1, ctx);
	return ret;
}

/*
 * Complete or trash ticket @t of handle @id. At its turn, the tail moves
 * past it first and the slot is freed after; before it, the slot is
 * retired, then the tail moves over it if it is at the front. The turn
 * (the slot ours, the tail at @t, the head past it, one CAS) is the fast
 * path: nobody else moves the tail off a slot that is not retired. The
 * head is looked at because a claim is not yet a ticket handed out:
 * another thread of the handle completing t (the tail, say) while its
 * taker is between the claim and the head CAS would move the tail past
 * the head (every take would then see a freed slot at an unchanged head:
 * EIO); it answers EINVAL, as the kernel does. One load more on the
 * hot path (README.md, the commit benchmark: its cost measured).
 * Return: as ordsched_ring_retire().
 */
static inline int ordsched_ring_complete(const struct ordsched_ring_view *r,
					 __u32 id, __u64 t, void *ctx)
{
	__u64 w = ORDSCHED_RING_LOAD(ordsched_ring_slot(r, t));

	if (ordsched_ring_mine(w, t, id) && ORDSCHED_RING_LOAD(r->tail) == t &&
	    ordsched_ring_passed(ORDSCHED_RING_LOAD(r->head), t) &&
	    ORDSCHED_RING_CAS(r->tail, t, t + 1))
		return ordsched_ring_turn_passed(r, id, t, w, ctx);
	return ordsched_ring_complete_early(r, id, t, w, ctx);
}

/*
 * Wait for the turn of ticket @t of handle @id: @spins looks at the tail,
 * then flag the slot SLEEPING and sleep in the kernel. At the turn the
 * flag is taken back, so that the next tail mover need not enter the
 * kernel, unless @keep; without the turn the flag stays, for the ticket's
 * other waiters (see the top). @keep is for a ticket whose flag must stay
 * for its life, as pollers need it: a wait that sees its turn before the
 * mover looked at the slot would otherwise clear the flag under the
 * mover's eyes, and nobody would wake the pollers. Return: 0 at the turn,
 * or -errno as ordsched_ring_check() and ORDSCHED_IOC_RING_WAIT.
 */
static inline int __ordsched_ring_wait(const struct ordsched_ring_view *r,
				       __u32 id, __u64 t, unsigned int spins,
				       bool keep, void *ctx)
{
	__u64 w, tail, *slot = ordsched_ring_slot(r, t);
	int ret;

	/* The same answers as the kernel for a ticket that is not ours. */
	ret = ordsched_ring_check_live(r, t, id);
	if (ret)
		return ret;
	for (; spins; spins--) {
		if (ORDSCHED_RING_LOAD(r->tail) == t)
			return 0;
		ORDSCHED_RING_RELAX();
	}
	do {
		w = ORDSCHED_RING_LOAD(slot);
		ret = ordsched_ring_check(w, t, id);
		if (ret)
			return ret;
	} while (ordsched_ring_state(w) == ORDSCHED_RING_OWNED &&
		 !ORDSCHED_RING_CAS(slot, w, ordsched_ring_word(t, id,
				    ORDSCHED_RING_SLEEPING)));
	/* Race (b): pairs with the tail CAS in ordsched_ring_advance(). */
	tail = ORDSCHED_RING_LOAD(r->tail);
	if (ordsched_ring_passed(tail, t))
		ret = -EALREADY;
	else if (tail != t)
		ret = ORDSCHED_RING_SLEEP(ctx, t);
	else
		/*
		 * At the turn, if still live: the tail rests for a moment on
		 * a ticket retired early (by another thread of the handle
		 * after our flag loop), until its mover passes it.
		 */
		ret = ordsched_ring_check(ORDSCHED_RING_LOAD(slot), t, id);
	if (!ret && !keep)
		ORDSCHED_RING_CAS(slot,
				  ordsched_ring_word(t, id, ORDSCHED_RING_SLEEPING),
				  ordsched_ring_word(t, id, ORDSCHED_RING_OWNED));
	return ret;
}

/* __ordsched_ring_wait(), taking the flag back at the turn. */
static inline int ordsched_ring_wait(const struct ordsched_ring_view *r,
				     __u32 id, __u64 t, unsigned int spins,
				     void *ctx)
{
	return __ordsched_ring_wait(r, id, t, spins, false, ctx);
}

/*
 * The kernel's test, after queueing the waiter and after each wake-up:
 * 0 when it is the turn of @t, -EAGAIN when @t must sleep on, else as
 * ordsched_ring_check(). Race (b): the caller's queueing is ordered before
 * the tail load. The slot is looked at again once the tail is at @t: a
 * ticket retired early between the two loads would otherwise pass for
 * live while the tail rests on it.
 */
static inline int ordsched_ring_wait_check(const struct ordsched_ring_view *r,
					   __u32 id, __u64 t)
{
	__u64 *slot = ordsched_ring_slot(r, t);
	int ret = ordsched_ring_check(ORDSCHED_RING_LOAD(slot), t, id);
	__u64 tail;

	if (ret)
		return ret;
	tail = ORDSCHED_RING_LOAD(r->tail);
	if (ordsched_ring_passed(tail, t))
		return -EALREADY;
	if (tail != t)
		return -EAGAIN;
	return ordsched_ring_check(ORDSCHED_RING_LOAD(slot), t, id);
}

/*
 * The kernel, when handle @id is released: trash every slot it owns
 * (also one behind the tail that a completion at the turn had not freed
 * yet), scanning all slots by index, then advance (always, and waking the tail's
 * sleeper even if it moves nothing: the handle's last act may have been a
 * retire, or a tail move it died before looking past). One CAS per slot is
 * enough: only the handle's own threads change a word it owns, and release
 * runs after the last of them left the kernel; a CAS that fails anyway
 * is a scribble. Return: as ordsched_ring_advance(); on false, the caller
 * goes on later with ordsched_ring_advance(r, budget, true, ctx).
 */
static inline bool ordsched_ring_release(const struct ordsched_ring_view *r,
					 __u32 id, unsigned int budget,
					 void *ctx)
{
	__u64 i, w;

	for (i = 0; i <= r->mask; i++) {
		w = ORDSCHED_RING_LOAD(&r->slots[i]);
		if (ordsched_ring_owned(w) && ordsched_ring_owner(w) == id)
			ORDSCHED_RING_CAS(&r->slots[i], w,
					  (w | ORDSCHED_RING_STATE_MASK) &
					  ~(ORDSCHED_RING_ID_MASK <<
					    ORDSCHED_RING_ID_SHIFT));
	}
	return ordsched_ring_advance(r, budget, true, ctx);
}

#endif /* _ORDSCHED_RING_PROTO_H */
