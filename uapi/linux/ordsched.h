/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ordsched: userspace interface of /dev/ordsched.
 *
 * Every open of /dev/ordsched creates a private ordering domain and a
 * handle to it. ORDSCHED_IOC_NEW_HANDLE gives another handle on the same
 * domain as a new file descriptor; passing a descriptor (fork, SCM_RIGHTS)
 * shares the handle itself. Tickets are u64 numbers handed out in order
 * and belong to the handle that took them. A ticket's turn comes when
 * every ticket before it has been completed or trashed; its holder then
 * does its ordered step and completes it. The tail is the oldest ticket
 * not yet completed or trashed: the ticket whose turn it is.
 *
 * When a handle is released (its last descriptor closed, or its process
 * killed) the tickets it still holds are trashed, so nobody waits forever.
 * As for any file, a command in progress holds the handle: a close() in
 * one thread while another waits on the same handle releases it when that
 * wait returns (at its turn, deadline or signal), not at once. A mapping
 * of the status page does not hold it: the page belongs to the domain,
 * and a handle whose last descriptor is closed is released (its tickets
 * trashed) while the page stays mapped.
 *
 * poll() (ORDSCHED_FEAT_POLL) reports EPOLLIN | EPOLLRDNORM while the
 * tail is a ticket the handle holds, and nothing else ever: level
 * triggered, ready again at each of the handle's turns; a handle that
 * holds no ticket at the tail is not ready. A sleeping poll() is woken
 * when the tail moves onto one of the handle's tickets. O_NONBLOCK
 * changes nothing: a wait command waits until its deadline.
 *
 * A ring domain (ORDSCHED_IOC_RING_SETUP, <linux/ordsched_ring.h>) runs
 * these commands on its shared ring, with the differences that header
 * lists, among them: ORDSCHED_IOC_TAKE takes one ticket per call, a range
 * is retired ticket by ticket (not all or none), commands may also answer
 * EIO, ENOSPC or ENOMEM, and poll() is woken for the tickets whose slot
 * is flagged SLEEPING.
 *
 * Errors, shared by every command:
 *	EFAULT	the argument cannot be read or written; nothing was done (a
 *		take whose answer became unwritable during the call, by
 *		another thread's munmap(), mprotect() or the like,
 *		trashes the tickets it took, which stats counts in
 *		taken, handle_taken and trashed; a ring
 *		setup's has set the handle up, and made the domain a ring
 *		domain if it was not one; a second call answers the same)
 *	EINVAL	a reserved field or an unknown flag is set, a count is 0 or
 *		above the batch limit, a ticket was never handed out
 *	ENOTTY	unknown command
 * and per command as documented below. The ioctl type ORDSCHED_IOC_MAGIC
 * is not taken in Documentation/userspace-api/ioctl/ioctl-number.rst as of
 * Linux 6.1.
 */
#ifndef _UAPI_LINUX_ORDSCHED_H
#define _UAPI_LINUX_ORDSCHED_H

#include <linux/const.h>
#include <linux/ioctl.h>
#include <linux/types.h>

#define ORDSCHED_DEVICE_NAME	"ordsched"
#define ORDSCHED_IOC_MAGIC	0xB9

/* The version of this interface that ORDSCHED_IOC_API negotiates. */
#define ORDSCHED_API_VERSION	1

/*
 * The most threads that may be in a wait at once (asleep, or woken and
 * not yet returned) on one handle, and on one domain: in one hold of the
 * domain's lock, a retirement looks at no sleeper of the domain more than
 * twice (once for the range retired, once for the turn it brings).
 */
#define ORDSCHED_MAX_WAITERS_HANDLE	128
#define ORDSCHED_MAX_WAITERS_DOMAIN	512

/* "No ticket" in ordsched_complete_wait; "no deadline" in deadlines. */
#define ORDSCHED_NO_TICKET	(~(__u64)0)
#define ORDSCHED_NO_DEADLINE	(~(__u64)0)

/* Features, in ordsched_api.features and ordsched_status.features. */
#define ORDSCHED_FEAT_STATUS_PAGE	_BITULL(0)	/* mmap at offset 0 */
#define ORDSCHED_FEAT_POLL		_BITULL(1)	/* poll() for a turn */
#define ORDSCHED_FEAT_COMPLETE_WAIT	_BITULL(2)
#define ORDSCHED_FEAT_NEW_HANDLE	_BITULL(3)

/**
 * struct ordsched_api - ORDSCHED_IOC_API, the handshake
 * @version: in: the API version userspace speaks, ORDSCHED_API_VERSION;
 *	out: the same
 * @flags: in: 0
 * @features: out: ORDSCHED_FEAT_*
 * @ioctls: out: bit N set when the command numbered N is supported
 * @status_size: out: length to mmap at offset 0 for the status page
 * @status_tail_offset: out: offset of the __u64 tail in the status page
 *	of a domain without a ring (a ring domain's: struct ordsched_status)
 * @status_head_offset: out: offset of the __u64 head, likewise
 * @window: out: the span of tickets a domain without a ring keeps, from
 *	the tail (the oldest ticket not yet retired) on: a ticket is handed
 *	out only if it lies less than @window after the tail. Tickets
 *	completed or trashed early, out of turn, still count until the tail
 *	passes them. A ring domain's window is its number of slots.
 * @max_batch: out: most tickets one command takes, completes or trashes
 *	(a ring domain's ORDSCHED_IOC_TAKE takes one)
 * @max_held: out: most tickets one handle may hold at a time in a domain
 *	without a ring (in a ring domain the window bounds them)
 * @reserved: in: zero; out: zero
 *
 * Userspace calls it first, to learn the limits and the status page
 * layout; the other commands do not depend on it. EINVAL: a version the
 * kernel does not speak.
 */
struct ordsched_api {
	__u32 version;
	__u32 flags;
	__u64 features;
	__u64 ioctls;
	__u32 status_size;
	__u32 status_tail_offset;
	__u32 status_head_offset;
	__u32 window;
	__u32 max_batch;
	__u32 max_held;
	__u64 reserved[4];
};

/**
 * struct ordsched_take - ORDSCHED_IOC_TAKE, take @count consecutive tickets
 * @count: in: 1 to max_batch
 * @flags: in: 0
 * @first: out: the first ticket; the handle holds @first to
 *	@first + @count - 1
 *
 * EAGAIN: the handle would hold more than max_held tickets (in a domain
 * without a ring: it clears as the handle completes or trashes tickets of
 * its own; the tail moving does not clear it), or the last ticket would
 * lie window or more after the tail (see ordsched_api.window: it clears
 * as the tail moves).
 */
struct ordsched_take {
	__u32 count;
	__u32 flags;
	__u64 first;
};

/**
 * struct ordsched_wait - ORDSCHED_IOC_WAIT, wait for a ticket's turn
 * @ticket: in: a ticket the handle holds
 * @deadline_ns: in: absolute CLOCK_MONOTONIC deadline (the caller's
 *	clock, in its time namespace), or ORDSCHED_NO_DEADLINE; a deadline
 *	in the past only checks
 * @flags: in: 0
 * @pad: in: 0
 *
 * Returns 0 when @ticket is the tail. ETIMEDOUT: the deadline passed.
 * EINTR (or a transparent restart): a signal came, or task work that the
 * kernel queued to the thread with a notification (io_uring's, for one),
 * after which the call restarts; the deadline being absolute, a restart
 * does not stretch it. EPERM: another handle holds
 * @ticket. EALREADY: @ticket was completed or trashed (also when that
 * happens during the wait). EBUSY: ORDSCHED_MAX_WAITERS_HANDLE threads
 * are already in a wait on the handle (from when it began to until it
 * returns, woken or not), or ORDSCHED_MAX_WAITERS_DOMAIN on its domain,
 * when the wait begins (also for the sleeps of
 * ORDSCHED_IOC_COMPLETE_WAIT and ORDSCHED_IOC_RING_WAIT): never once it
 * slept, unless a restart (see EINTR) begins it again; a wait that finds
 * its turn at once never answers it. A wait whose deadline is in the past
 * answers it too (it only checks, but the limits come first).
 */
struct ordsched_wait {
	__u64 ticket;
	__u64 deadline_ns;
	__u32 flags;
	__u32 pad;
};

/**
 * struct ordsched_range - ORDSCHED_IOC_COMPLETE and ORDSCHED_IOC_TRASH
 * @ticket: in: the first ticket
 * @count: in: 1 to max_batch consecutive tickets
 * @flags: in: 0
 *
 * Completing a ticket before its turn is allowed and means the same as
 * trashing it: the tail passes it without a stop. Either all tickets of
 * the range are retired or none (in a domain without a ring): EPERM when
 * another handle holds one, EALREADY when one was already completed or
 * trashed.
 */
struct ordsched_range {
	__u64 ticket;
	__u32 count;
	__u32 flags;
};

/**
 * struct ordsched_complete_wait - ORDSCHED_IOC_COMPLETE_WAIT
 * @ticket: in: the ticket to complete, or ORDSCHED_NO_TICKET; out: set
 *	to ORDSCHED_NO_TICKET once completed, so that a call restarted
 *	after a signal only waits (unless a munmap() racing the call took
 *	the argument's page away: the wait goes on, and a restart answers
 *	EFAULT before completing anything)
 * @next: in: the ticket to wait for, or ORDSCHED_NO_TICKET
 * @deadline_ns: in: as in struct ordsched_wait
 * @flags: in: 0
 * @pad: in: 0
 *
 * Completes @ticket, then waits for @next as ORDSCHED_IOC_WAIT does: one
 * system call per ticket in an ordered loop. Errors of the completion are
 * returned before anything is done; after it, those of the wait.
 */
struct ordsched_complete_wait {
	__u64 ticket;
	__u64 next;
	__u64 deadline_ns;
	__u32 flags;
	__u32 pad;
};

/**
 * struct ordsched_new_handle - ORDSCHED_IOC_NEW_HANDLE
 * @flags: in: 0 or ORDSCHED_HANDLE_CLOEXEC
 * @pad: in: 0
 * @reserved: in: 0
 *
 * Returns a new file descriptor: a new handle on the same domain, holding
 * no ticket, open for reading, writing or both as the descriptor the
 * command was called on (O_RDONLY, O_WRONLY or O_RDWR): a handle never
 * gives more access to its domain than it has (mmap(), and
 * ORDSCHED_IOC_RING_SETUP, check it). EMFILE, ENFILE, ENOMEM as open(2).
 */
struct ordsched_new_handle {
	__u32 flags;
	__u32 pad;
	__u64 reserved;
};

#define ORDSCHED_HANDLE_CLOEXEC	_BITUL(0)

/**
 * struct ordsched_stats - ORDSCHED_IOC_STATS
 * @flags: in: 0
 * @handles: out: live handles on the domain
 * @domain_id: out: the domain's number, unique among live domains, as in
 *	the debugfs file "ordsched/domains" ("<comm>.<id>:")
 * @pad: out: 0
 * @tail: out: the oldest ticket not retired
 * @head: out: the next ticket to hand out
 * @taken: out: tickets handed out by the domain
 * @completed: out: tickets completed, in their turn or early (a completion
 *	is one whatever the tail; early ones wait in the window for it)
 * @trashed: out: tickets trashed by a command
 * @released: out: tickets trashed because their handle was released
 * @waits: out: wait commands that found the ticket not yet at its turn
 *	(not those refused with EBUSY)
 * @wakeups: out: waiters woken, by a turn or a retirement of their ticket,
 *	or ahead of their turn: the wake-up at a ticket's turn also wakes
 *	the waiters of the next ticket (in a ring domain, the ones
 *	ORDSCHED_IOC_RING_WAKE wakes), which wait for theirs in the kernel,
 *	spinning while their CPU has nothing else to run for at most about
 *	100 microseconds, then asleep again; a wake-up ahead never makes a
 *	wait return before its turn. In a ring domain every waiter an
 *	ORDSCHED_IOC_RING_WAKE wakes counts, also one whose turn has not
 *	come and whose ticket is still held: it sleeps again
 * @timeouts: out: waits that reached their deadline
 * @interrupts: out: waits interrupted by a signal, or by task work that
 *	restarts them (see struct ordsched_wait's EINTR)
 * @full: out: take commands answered EAGAIN
 * @held: out: tickets this handle holds
 * @handle_taken: out: tickets this handle took (in a ring domain, with
 *	ORDSCHED_IOC_TAKE only: see <linux/ordsched_ring.h>)
 * @deferred: out: runs of a ring domain's deferred advance: a release or
 *	a retirement moved the tail as far as its budget allowed and left
 *	the rest to a work item (ORDSCHED_FEAT_RING; 0 in other domains)
 * @reserved: out: 0
 */
struct ordsched_stats {
	__u32 flags;
	__u32 handles;
	__u32 domain_id;
	__u32 pad;
	__u64 tail;
	__u64 head;
	__u64 taken;
	__u64 completed;
	__u64 trashed;
	__u64 released;
	__u64 waits;
	__u64 wakeups;
	__u64 timeouts;
	__u64 interrupts;
	__u64 full;
	__u64 held;
	__u64 handle_taken;
	__u64 deferred;
	__u64 reserved[3];
};

/**
 * struct ordsched_status - the head of the read-only status page
 * @version: ORDSCHED_API_VERSION
 * @size: the page's length, as ordsched_api.status_size
 * @features: ORDSCHED_FEAT_*
 * @window: the domain's window: ordsched_api.window, or in a ring domain
 *	the ring's number of slots (uapi/linux/ordsched_ring.h)
 * @tail_offset: where the tail is: ordsched_api.status_tail_offset, or in
 *	a ring domain the ring's tail (ordsched_ring_hdr.tail_offset)
 * @head_offset: where the head is: ordsched_api.status_head_offset, or in
 *	a ring domain the ring's head (ordsched_ring_hdr.head_offset)
 * @pad: 0
 *
 * Read the three from the page, not from the handshake: a domain becomes a
 * ring domain after the handshake (ORDSCHED_IOC_RING_SETUP).
 *
 * mmap(NULL, status_size, PROT_READ, MAP_SHARED, fd, 0) maps the page of
 * the handle's domain (fd open for reading: mmap(2) answers EACCES
 * otherwise; PROT_WRITE: EPERM, or EACCES from mmap(2) itself when
 * shared on a descriptor not open for writing; PROT_EXEC: EPERM, but
 * where a READ_IMPLIES_EXEC personality adds it, it is dropped; no
 * mprotect(2) makes a mapping of the page writable or executable; a
 * length that mmap(2), which rounds it up to whole pages, does not make
 * status_size, or an offset other than 0 and a ring domain's ring page:
 * EINVAL; MAP_PRIVATE maps the same page, read-only). The tail and the
 * head are each a __u64 alone on its cache line; in a domain without a
 * ring the kernel writes them with release stores, in a ring domain they
 * are the ring's own words, changed by compare-and-swap. Read them with
 * acquire loads. A reader without 64-bit atomic loads reads the high
 * half, the low half, and the high half again until both high halves
 * match; no value above the true one is ever published, so "tail == my
 * ticket" read from the page means the ticket's turn has come.
 */
struct ordsched_status {
	__u32 version;
	__u32 size;
	__u64 features;
	__u32 window;
	__u32 tail_offset;
	__u32 head_offset;
	__u32 pad;
};

#define ORDSCHED_IOC_API	_IOWR(ORDSCHED_IOC_MAGIC, 0x00, struct ordsched_api)
#define ORDSCHED_IOC_TAKE	_IOWR(ORDSCHED_IOC_MAGIC, 0x01, struct ordsched_take)
#define ORDSCHED_IOC_WAIT	_IOW(ORDSCHED_IOC_MAGIC, 0x02, struct ordsched_wait)
#define ORDSCHED_IOC_COMPLETE	_IOW(ORDSCHED_IOC_MAGIC, 0x03, struct ordsched_range)
#define ORDSCHED_IOC_TRASH	_IOW(ORDSCHED_IOC_MAGIC, 0x04, struct ordsched_range)
#define ORDSCHED_IOC_COMPLETE_WAIT \
	_IOWR(ORDSCHED_IOC_MAGIC, 0x05, struct ordsched_complete_wait)
#define ORDSCHED_IOC_NEW_HANDLE \
	_IOW(ORDSCHED_IOC_MAGIC, 0x06, struct ordsched_new_handle)
#define ORDSCHED_IOC_STATS	_IOWR(ORDSCHED_IOC_MAGIC, 0x07, struct ordsched_stats)

#endif /* _UAPI_LINUX_ORDSCHED_H */
