/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ordsched: the shared ticket ring of /dev/ordsched (ORDSCHED_FEAT_RING).
 *
 * The domain's ticket state lives in one page that every handle of the
 * domain may map read-write: take, complete, trash and an uncontended wait
 * then cost no system call. The kernel remains the arbiter of sleeping,
 * waking and death: a thread sleeps in ORDSCHED_IOC_RING_WAIT, is woken by
 * ORDSCHED_IOC_RING_WAKE (issued by whoever moves the tail onto a ticket
 * whose owner flagged that it sleeps), and when a handle is released the
 * kernel trashes every slot it owns and moves the tail on. The protocol is
 * argued in module/ring_proto.h, which libordsched and the module share.
 *
 * Offered when ORDSCHED_IOC_API reports ORDSCHED_FEAT_RING (and the
 * ORDSCHED_IOC_RING_* bits in ordsched_api.ioctls); a module without it
 * answers ENOTTY to these commands, so a client tests the feature bit. The
 * protocol is model-checked by selftests/ordsched/ring_check.c. What the
 * kernel does in a ring domain:
 *
 *  - ORDSCHED_IOC_RING_SETUP makes the domain a ring domain (see the trust
 *    model for who may) and gives the handle its id; mmap() at
 *    ordsched_ring_setup.mmap_offset (one page in) maps the ring page,
 *    MAP_SHARED only (EINVAL otherwise, and in a domain without a ring),
 *    never executable (PROT_EXEC: EPERM, as for the status page).
 *  - ORDSCHED_IOC_TAKE takes one ticket with the handle's id (a count
 *    above 1: EINVAL; a page scribbled on: EIO; EAGAIN also when the page
 *    kept changing under the kernel) and flags its slot SLEEPING for the
 *    ticket's life, so that whoever moves the tail onto it wakes the
 *    kernel's waiters and poll(). ORDSCHED_IOC_WAIT flags the slot
 *    likewise and sleeps as ORDSCHED_IOC_RING_WAIT. ORDSCHED_IOC_COMPLETE
 *    and ORDSCHED_IOC_TRASH check every ticket, then retire them one by
 *    one: another thread of the same handle retiring one of them
 *    meanwhile stops the range with EALREADY. Commands that need an id
 *    give the handle one first (ENOSPC, ENOMEM).
 *  - poll() reports EPOLLIN when the slot at the tail is owned by the
 *    handle's id; it is woken by ORDSCHED_IOC_RING_WAKE for a ticket the
 *    handle owns: flag the slot SLEEPING before polling for it.
 *  - ORDSCHED_IOC_STATS reports the tail, the head and the handle's held
 *    tickets as the page says; taken, completed, trashed and
 *    handle_taken count only the commands, released the tickets of a
 *    released handle that the kernel trashed (the slots it owned that the
 *    tail had not passed; not a ticket completed at its turn whose slot
 *    its completer had not freed yet), and waits, wakeups, timeouts and
 *    interrupts those of the kernel's sleeps (ORDSCHED_IOC_WAIT and
 *    _RING_WAIT); deferred the runs of the work item that goes on moving
 *    the tail when a release or a retirement ran out of its budget (a
 *    fixed number of slots, a fraction of the window).
 *  - ORDSCHED_IOC_RING_WAIT and _RING_WAKE in a domain without a ring:
 *    EINVAL.
 *  - Release of a handle without an id: it owns no slot, so nothing is
 *    trashed; the kernel moves the tail on (and wakes the new tail's
 *    sleeper) only if the ring page was mapped through that handle's own
 *    descriptor. A process that moves the tail (over retired slots)
 *    through a mapping made with another handle's descriptor, say one
 *    inherited and then closed, should map the page through its own: if
 *    it dies between a tail move and its ORDSCHED_IOC_RING_WAKE, the
 *    sleeper of the new tail otherwise sleeps until its deadline, or
 *    until that other handle is released. libordsched maps through its
 *    own descriptor.
 *
 * Layout (offsets are also reported by ORDSCHED_IOC_RING_SETUP and in the
 * page header; never hard-code them):
 *
 *	0		struct ordsched_status (uapi/linux/ordsched.h)
 *	64		struct ordsched_ring_hdr
 *	tail_offset	__u64 tail: the oldest ticket not retired
 *	head_offset	__u64 head: the next ticket to hand out
 *	slots_offset	__u64 slot[slots]: ticket t's word is
 *			slot[ORDSCHED_RING_INDEX(t, slots)]
 *
 * The ring page is also the domain's status page: in a ring domain,
 * mmap() at offset 0 maps this same page read-only, and the status page's
 * tail and head are the ring's (ordsched_status.tail_offset and
 * head_offset equal the ring's). Userspace moves them, so no copy the
 * kernel kept could stay current: readers of the status page, old
 * binaries among them, see the ring itself. head and tail are each alone
 * on a 128-byte line pair. A slot word is
 *
 *	bits 63..18	ticket modulo 2^46 (tickets themselves are __u64)
 *	bits 17..2	handle id (ORDSCHED_IOC_RING_SETUP), 0 when not owned
 *	bits 1..0	state: FREE, OWNED, SLEEPING, RETIRED
 *
 *	FREE(t)		ticket t may be taken; initially ticket t's slot is
 *			FREE(t) for t in [0, slots)
 *	OWNED(t, id)	handle id holds ticket t (claimed before head moved)
 *	SLEEPING(t, id)	as OWNED, and its owner waits in the kernel: whoever
 *			moves the tail onto t must call ORDSCHED_IOC_RING_WAKE
 *	RETIRED(t)	completed or trashed; the tail passes it
 *
 * A ticket completed at its turn is not retired first: its owner moves
 * the tail past it, then frees the slot (FREE(t + slots)). Meanwhile the
 * slot still says OWNED or SLEEPING with the tail past t: the ticket is
 * done. Whoever finds a word of ticket t with the tail past t may free
 * it for t + slots.
 *
 * Every word is changed only with a compare-and-swap that is fully ordered
 * on success, and read with (at least) an acquire load.
 *
 * Trust model. The page is shared by every handle of a domain that has a
 * ring: they trust each other for order, not for memory safety. The
 * kernel never trusts the page: it keeps no pointer in it, masks every
 * slot index it derives from it, bounds every loop over it by the number
 * of slots or a fixed budget (and the work item that goes on advancing a
 * domain once a budget ran out, after as many runs in a row as pass over
 * every slot, to one budget a millisecond, sleeping in between: a
 * scribbler that keeps retired words ahead of the tail costs the kernel
 * no more a domain, in a worker that no cgroup is charged for, but for
 * the runs at full speed of each new chain, which ORDSCHED_IOC_COMPLETE,
 * ORDSCHED_IOC_TRASH or a handle's release starts once the last chain
 * ended), and only compares the values it reads, but
 * for two: the owner id of the ticket whose turn it wakes, which it looks
 * up among the domain's live handles to wake that handle's pollers (a
 * forged id wakes another handle's pollers, or nobody), and the tail, as
 * the ticket whose waiters it wakes (a forged tail wakes waiters that
 * look again and sleep on). A
 * participant that writes anything else into the page (or keeps using the
 * ring after its handle was released) can at worst stall or misorder its
 * own domain; it cannot crash the kernel, reach another domain, or make a
 * system call fail with an undocumented errno.
 *
 * Ring mode is a property of the domain, for its whole life. In a ring
 * domain every ticket lives in the page, also those taken and retired
 * with ORDSCHED_IOC_TAKE and friends (the kernel runs the same protocol
 * for them, so old binaries keep working), and the ownership those
 * commands check (EPERM) is read from the page: it catches mistakes, not
 * a participant that writes a forged owner into it. Participants that do
 * not trust each other therefore share a domain that never had a ring,
 * whose commands check ownership against the kernel's own records. So
 * that a participant cannot turn a domain it was handed into a ring
 * domain, only the domain's first handle can, with ORDSCHED_IOC_RING_SETUP
 * before the domain has a second handle or has handed out a ticket;
 * afterwards every handle of a ring domain may set up its own id, and
 * no handle of another domain can (EBUSY).
 *
 * A ticket's 46-bit field wraps after 2^46 tickets; a compare-and-swap that
 * a thread prepared before such a wrap and performs after it could act on
 * the wrong lap. That needs a thread stalled between two instructions for
 * 2^46 tickets of its own domain (8 days at 10^8 tickets/s), and at worst
 * stalls that domain (a claim on the wrong lap waits for a tail that has
 * gone by, until its deadline) or misorders it. Commands are not fooled
 * by the 46 bits: a ticket outside [tail, head) answers EALREADY before
 * the tail and EINVAL from the head on, also when its slot holds the word
 * of a ticket 2^46 away. Head and tail are full 64-bit counters: crossing
 * 2^64 is harmless. The page needs 64-bit atomic compare-and-swap
 * (cmpxchg8b on 32-bit x86).
 */
#ifndef _UAPI_LINUX_ORDSCHED_RING_H
#define _UAPI_LINUX_ORDSCHED_RING_H

#include <linux/const.h>
#include <linux/ioctl.h>
#include <linux/types.h>
#include <linux/ordsched.h>

/* Feature bit in ordsched_api.features; numbered clear of today's bits. */
#define ORDSCHED_FEAT_RING		_BITULL(16)

/* The slot word. */
#define ORDSCHED_RING_STATE_MASK	0x3ULL
#define ORDSCHED_RING_ID_SHIFT		2
#define ORDSCHED_RING_ID_MASK		0xffffULL
#define ORDSCHED_RING_TICKET_SHIFT	18

#define ORDSCHED_RING_FREE		0
#define ORDSCHED_RING_OWNED		1
#define ORDSCHED_RING_SLEEPING		2
#define ORDSCHED_RING_RETIRED		3

/*
 * Ticket t's slot: consecutive tickets are ORDSCHED_RING_STRIDE words
 * apart (72 bytes), so the words that neighbouring tickets' holders
 * change at once (one retires, the next waits, one more takes) are in
 * different cache lines, as in a ring of padded slots but eight times
 * denser. The stride is odd, so every slot serves one ticket in slots.
 */
#define ORDSCHED_RING_STRIDE		9
#define ORDSCHED_RING_INDEX(ticket, slots)				\
	((__u64)(ticket) * ORDSCHED_RING_STRIDE & ((__u64)(slots) - 1))

#define ORDSCHED_RING_WORD(ticket, id, state)				\
	(((__u64)(ticket) << ORDSCHED_RING_TICKET_SHIFT) |		\
	 (((__u64)(id) & ORDSCHED_RING_ID_MASK) << ORDSCHED_RING_ID_SHIFT) | \
	 ((__u64)(state) & ORDSCHED_RING_STATE_MASK))

/**
 * struct ordsched_ring_hdr - the ring's header, at ORDSCHED_RING_HDR_OFFSET
 * @version: ORDSCHED_RING_VERSION
 * @size: length of the mapping in bytes
 * @slots: number of slots, a power of two; also the window: at most this
 *	many tickets are handed out and not yet passed by the tail (and
 *	ordsched_status.window of a ring domain; ordsched_api.window, the
 *	handshake's, is that of a domain without a ring)
 * @head_offset: offset of the __u64 head
 * @tail_offset: offset of the __u64 tail
 * @slots_offset: offset of slot[0]
 * @pad: 0
 *
 * Written once by the kernel, by the ORDSCHED_IOC_RING_SETUP that makes
 * the domain a ring domain, before the ring page can be mapped (a status
 * page mapped before that call sees the header appear in it then, and
 * ordsched_status.window change to @slots); read-only in spirit (a
 * participant that changes it, or struct ordsched_status, only misleads
 * its own domain).
 */
struct ordsched_ring_hdr {
	__u32 version;
	__u32 size;
	__u32 slots;
	__u32 head_offset;
	__u32 tail_offset;
	__u32 slots_offset;
	__u64 pad;
};

#define ORDSCHED_RING_VERSION		1
#define ORDSCHED_RING_HDR_OFFSET	64

/**
 * struct ordsched_ring_setup - ORDSCHED_IOC_RING_SETUP
 * @flags: in: 0
 * @id: out: this handle's id, as it appears in slot words; unique among
 *	the live handles of the domain, never 0
 * @mmap_offset: out: the offset to pass to mmap() for the ring page
 * @size: out: the length to map, PROT_READ | PROT_WRITE, MAP_SHARED
 * @slots: out: as ordsched_ring_hdr.slots
 * @head_offset: out: as ordsched_ring_hdr.head_offset
 * @tail_offset: out: as ordsched_ring_hdr.tail_offset
 * @slots_offset: out: as ordsched_ring_hdr.slots_offset
 * @reserved: in: 0; out: 0
 *
 * Gives the handle an id in the domain's ring. The mapping belongs to the
 * domain, not to the handle: it does not keep the handle alive, and when
 * the handle is released its slots are trashed although the page stays
 * mapped. EBADF: the descriptor is not open for both reading and
 * writing (open the device O_RDWR). EBUSY: the domain has no ring and can
 * no longer get one (see the trust model). ENOSPC: the domain has no free
 * id left. On these errors, and on EINVAL and ENOMEM, the domain is left
 * as it was; for EFAULT see the errors shared by every command
 * (uapi/linux/ordsched.h).
 */
struct ordsched_ring_setup {
	__u32 flags;
	__u32 id;
	__u64 mmap_offset;
	__u32 size;
	__u32 slots;
	__u32 head_offset;
	__u32 tail_offset;
	__u32 slots_offset;
	__u32 reserved[3];
};

/**
 * struct ordsched_ring_wait - ORDSCHED_IOC_RING_WAIT
 * @ticket: in: a ticket whose slot is OWNED or SLEEPING by this handle
 * @deadline_ns: in: absolute CLOCK_MONOTONIC deadline, or
 *	ORDSCHED_NO_DEADLINE
 * @flags: in: 0
 * @pad: in: 0
 *
 * Flag the slot SLEEPING first, then call: the kernel re-reads the tail
 * after it has queued the caller, so a tail moved onto @ticket before the
 * call is seen, and one moved after it comes with a wake. Without the
 * flag, nobody is asked to wake the caller: it sleeps until its deadline
 * or a signal. One thread waits per ticket. Where several do (threads,
 * or processes sharing the handle), a wait that returns without its turn
 * (ETIMEDOUT, EINTR) must leave the flag (the cost: a RING_WAKE that may
 * find nobody), and one that takes the flag back at its turn must then
 * wake the others if they may be asleep (RING_WAKE): the thread that
 * moved the tail may look at the slot after the flag was taken back, and
 * wake nobody. Returns 0 when the tail is @ticket.
 * ETIMEDOUT, EINTR, EBUSY as ORDSCHED_IOC_WAIT. EPERM: the slot is owned
 * by another handle. EALREADY: @ticket is retired (also when that happens
 * during the wait). EINVAL: @ticket was never handed out.
 */
struct ordsched_ring_wait {
	__u64 ticket;
	__u64 deadline_ns;
	__u32 flags;
	__u32 pad;
};

/**
 * struct ordsched_ring_wake - ORDSCHED_IOC_RING_WAKE
 * @ticket: in: the ticket whose waiters to wake
 * @flags: in: 0
 * @pad: in: 0
 *
 * Wakes the threads waiting for @ticket in ORDSCHED_IOC_RING_WAIT (or in
 * the other wait commands, on a handle of this domain), and poll() on the
 * handle that owns it. When @ticket is the tail and its slot is not
 * RETIRED (a retirement's wake-up: the advance that passes it wakes
 * @ticket + 1 at its turn), it also wakes the threads waiting for
 * @ticket + 1 if its slot is flagged SLEEPING, ahead of their turn: so
 * that they have a CPU when it comes. Such a thread
 * does not return early: it stays in the kernel, spinning for its turn
 * while its CPU has nothing else to run, for at most about 100
 * microseconds and never past its deadline, and then sleeps again until
 * woken, its slot still flagged. Nobody else is woken. Any handle may
 * call it for any ticket: a wake that finds nothing to do is harmless.
 */
struct ordsched_ring_wake {
	__u64 ticket;
	__u32 flags;
	__u32 pad;
};

#define ORDSCHED_IOC_RING_SETUP \
	_IOWR(ORDSCHED_IOC_MAGIC, 0x10, struct ordsched_ring_setup)
#define ORDSCHED_IOC_RING_WAIT	_IOW(ORDSCHED_IOC_MAGIC, 0x11, struct ordsched_ring_wait)
#define ORDSCHED_IOC_RING_WAKE	_IOW(ORDSCHED_IOC_MAGIC, 0x12, struct ordsched_ring_wake)

#endif /* _UAPI_LINUX_ORDSCHED_RING_H */
