/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * libordsched: keep the order of work done in parallel, across threads
 * and processes, through /dev/ordsched.
 *
 * A domain hands out tickets in order. A thread takes a ticket when work
 * arrives, does the work in parallel with the others, waits for the
 * ticket's turn (every earlier ticket completed or trashed), does its
 * ordered step (write the output, say) and completes the ticket:
 *
 *	struct ordsched *os;
 *	uint64_t t;
 *
 *	ordsched_open(&os);			once
 *	ordsched_take(os, &t);			per item, in arrival order
 *	... work, in parallel ...
 *	ordsched_wait(os, t, ORDSCHED_NO_DEADLINE);
 *	... ordered step ...
 *	ordsched_complete(os, t);
 *
 * A struct ordsched is one handle on a domain. Tickets belong to the
 * handle that took them; when its last descriptor is closed, in every
 * process that has one (a process that dies closes its own), the kernel
 * trashes the tickets it still holds, so the others never wait for a dead
 * holder. Threads may share a handle; processes get their own with
 * ordsched_new_handle(). After fork(2) both processes hold every handle:
 * each ordsched_close()s the ones that are the other's (the child the
 * parent's, the parent the one made for the child), or a death on one
 * side leaves its tickets held by the other side's descriptors. A process
 * not forked from the owner gets a handle's descriptor over a UNIX socket
 * (SCM_RIGHTS) and adopts it with ordsched_from_fd().
 *
 * The shared ring. When the kernel offers ORDSCHED_FEAT_RING, a domain
 * that ordsched_open() creates is a ring domain: its ticket state lives in
 * a page every handle maps, and take, complete, trash and a wait whose
 * turn comes while it spins cost no system call. A wait that has to sleep
 * flags its ticket and sleeps in the kernel; a completion that moves the
 * turn onto a sleeping ticket wakes its owner with one system call. The
 * kernel still trashes the tickets of a dead handle. Set the environment
 * variable ORDSCHED_NO_RING (to anything but "" or "0"), or open with
 * ORDSCHED_OPEN_NO_RING, to use one system call per operation as before;
 * ordsched_uses_ring() tells which path a handle takes. A program linked
 * against libordsched 1.0 calls the LIBORDSCHED_1.0 versions of
 * ordsched_open() and ordsched_from_fd(), which act as with
 * ORDSCHED_OPEN_NO_RING: one written before the ring keeps what it relied
 * on (batches, the kernel's ownership checks) in the domains it opens,
 * and in those whose descriptors it adopts unless another program made
 * them ring domains first (see ordsched_from_fd_flags()); one linked
 * while the ring was already the default works on, without its speed,
 * until it is rebuilt. One linked against 1.1.0 calls the LIBORDSCHED_1.1
 * versions, which take the ring as the default versions
 * (LIBORDSCHED_1.2) do. What a ring
 * domain changes, for its handles on either path:
 * ordsched_take_batch() takes one ticket at a time; api->max_held bounds
 * no handle, only the ring's window (its number of slots) does; once the
 * program can poll(2) a handle (see ordsched_fd()), handing the turn to
 * one of its tickets costs the completer a system call, as does every
 * ticket a handle on the ioctl path takes (the kernel flags them for their
 * poll()ers); a handle on the ioctl path gets a ring id at its first
 * command, so that each call that enters the kernel may also answer
 * -ENOSPC (the domain has no id left) or -ENOMEM; handles of one
 * ring domain trust each other not to write garbage into the page (see
 * <linux/ordsched_ring.h>): participants that do not trust each other
 * share a domain opened with ORDSCHED_OPEN_NO_RING.
 *
 * Every function returning int returns 0 (or a non-negative value) on
 * success and a negative errno on failure; none sets errno. Deadlines are
 * absolute CLOCK_MONOTONIC times in nanoseconds (see ordsched_now()),
 * ORDSCHED_NO_DEADLINE for none. All functions but ordsched_close() may
 * be called from several threads on the same handle at once.
 */
#ifndef LIBORDSCHED_H
#define LIBORDSCHED_H

#include <stdint.h>

#include <linux/ordsched.h>
#include <linux/ordsched_ring.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ordsched;

/**
 * ordsched_open() - create a new ordering domain and a handle to it
 * @os: where to store the handle
 *
 * Opens /dev/ordsched, checks that the kernel speaks this library's API
 * version and maps the domain's status page.
 *
 * Return: 0; -ENOENT when the module is not loaded; -EINVAL when the
 * kernel speaks another API version; -EPROTO when it reports a status
 * page the library cannot read; -ENOMEM; or an error of open(2) or
 * mmap(2).
 */
int ordsched_open(struct ordsched **os);

/* Flags of ordsched_open_flags() and ordsched_from_fd_flags(). */
#define ORDSCHED_OPEN_NO_RING	1U	/* the ioctl path, never the ring */

/**
 * ordsched_open_flags() - ordsched_open(), with flags
 * @os: where to store the handle
 * @flags: 0 or ORDSCHED_OPEN_NO_RING
 *
 * With ORDSCHED_OPEN_NO_RING the new domain never gets a ring, whoever
 * its handles are passed to (the library makes and drops a second handle
 * at once, which rules the ring out): every handle of it checks ownership
 * against the kernel's records, and ordsched_take_batch() takes real
 * batches. The environment variable ORDSCHED_NO_RING keeps this process's
 * handles off the ring and so leaves the domains it opens without a ring,
 * but does not bind them as the flag does: a domain opened under it gets
 * a ring from a process without it only in the case that
 * ordsched_from_fd_flags() describes (its first handle, before any other
 * handle or ticket), so a handle made with ordsched_new_handle() and
 * passed on takes the ioctl path.
 *
 * Return: as ordsched_open(); -EINVAL for an unknown flag.
 */
int ordsched_open_flags(struct ordsched **os, unsigned int flags);

/**
 * ordsched_from_fd() - adopt a descriptor of a handle
 * @fd: a descriptor of /dev/ordsched or of ordsched_new_handle(); the
 *	handle owns it from now on, even on failure
 * @os: where to store the handle
 *
 * The handle is pollable from the start: see ordsched_fd().
 *
 * Return: 0; -EBADF when @fd is not an open descriptor; -ENOTTY when it
 * is not an ordsched handle (an O_PATH descriptor among them; or what
 * that file answers to an ioctl(2) it does not know: some devices say
 * -EINVAL); -ENOSPC when the handle would take the ring but its ring
 * domain has no ring id left for it (65,535 handles at once: the ioctl
 * path needs one there too); as ordsched_open().
 */
int ordsched_from_fd(int fd, struct ordsched **os);

/**
 * ordsched_from_fd_flags() - ordsched_from_fd(), with flags
 * @fd: as for ordsched_from_fd()
 * @flags: 0 or ORDSCHED_OPEN_NO_RING
 * @os: where to store the handle
 *
 * Without ORDSCHED_OPEN_NO_RING (and ORDSCHED_NO_RING unset), the handle
 * uses the ring when its domain has one, or can still get one (its first
 * handle, before any other handle or ticket): adopting a fresh descriptor
 * of /dev/ordsched open for reading and writing makes its domain a ring
 * domain (the kernel gives a ring to no other: one open for reading only
 * takes the ioctl path). With it, the handle
 * takes the ioctl path, which works in any domain (in a ring domain the
 * kernel runs the ring's protocol for it, with a ring id it gives the
 * handle at its first command: -ENOSPC from each command while the domain
 * has none left). In a ring domain, that path too takes one ticket at a
 * time and knows no max_held: see ordsched_take_batch().
 *
 * Return: as ordsched_from_fd(); -EINVAL for an unknown flag (@fd is
 * closed).
 */
int ordsched_from_fd_flags(int fd, unsigned int flags, struct ordsched **os);

/**
 * ordsched_uses_ring() - does a handle take the shared ring's path?
 * @os: the handle
 *
 * Return: 1 when take, complete, trash and wait run on the shared ring,
 * 0 when each is a system call.
 */
int ordsched_uses_ring(const struct ordsched *os);

/**
 * ordsched_new_handle() - another handle on the same domain
 * @os: a handle
 * @out: where to store the new handle; its descriptor is close-on-exec
 *
 * The new handle holds no ticket; it takes the ring when @os does, unless
 * ORDSCHED_NO_RING is set when this is called (see
 * ordsched_open_flags()). Give
 * it to another process so that its tickets are trashed when that process
 * dies, and not when the whole domain goes: fork, the child using it and
 * closing @os, the parent closing it; or send ordsched_fd() of it over a
 * UNIX socket, then ordsched_close() it (not close(2): the descriptor is
 * the handle's).
 *
 * Return: 0; -EMFILE, -ENFILE; -ENOMEM; -ENOSPC when it would take the
 * ring but the domain has no ring id left for it (65,535 handles at once:
 * the ioctl path needs one there too); or as ordsched_open() for the
 * handshake and the mmap(2) of the status page and the ring.
 */
int ordsched_new_handle(struct ordsched *os, struct ordsched **out);

/**
 * ordsched_close() - release a handle
 * @os: the handle, or NULL
 *
 * Unmaps the status page (and the ring) and closes the descriptor;
 * tickets the handle still holds are trashed by the kernel once no other
 * descriptor of it is open. No other thread may be in a call on @os, nor
 * use it any more: the handle's memory is freed, and a thread still
 * waiting on it would wake to a freed handle and an unmapped page.
 */
void ordsched_close(struct ordsched *os);

/**
 * ordsched_fd() - the descriptor of a handle
 * @os: the handle
 *
 * For poll(2), select(2) and epoll: it reports POLLIN while the handle
 * holds the tail, i.e. when the turn of its oldest ticket has come. On a
 * handle that uses the ring, the first call makes the handle pollable:
 * from then on, each of its tickets is flagged in the ring, so that the
 * thread that hands the turn over to it (from any handle) enters the
 * kernel to wake the pollers, and completing or trashing one of its
 * flagged tickets enters the kernel too, for a thread that may sleep on
 * it: about two system calls per ticket. A handle adopted with
 * ordsched_from_fd() is pollable from the start (the caller knows the
 * descriptor). A handle on the ring that is not pollable pays none of
 * this (on the ioctl path of a ring domain, every ticket is flagged: see
 * the top of this file). Pollable is a property of this process's
 * struct ordsched: a process sharing the handle (after fork(2)) that
 * takes tickets on the ring without having called ordsched_fd() itself
 * leaves them unflagged, and a poller elsewhere is not woken at their
 * turn; each process that takes tickets for a poller calls it.
 *
 * Return: the descriptor, owned by @os.
 */
int ordsched_fd(const struct ordsched *os);

/**
 * ordsched_api() - the limits, features and layout of the handshake
 * @os: the handle
 *
 * On a handle that uses the ring, window is not the handshake's but the
 * ring's number of slots (the answer of ORDSCHED_IOC_RING_SETUP): a ring
 * domain's window. A handle on the ioctl path reports the handshake's,
 * also in a ring domain; the domain's own is ordsched_status.window in
 * its status page (<linux/ordsched.h>). In a ring domain, max_held
 * bounds no handle, and max_batch only ordsched_complete_batch() and
 * ordsched_trash_batch(): see ordsched_take_batch().
 *
 * Return: the limits (window, max_batch, max_held), the features and the
 * status page layout; valid as long as @os.
 */
const struct ordsched_api *ordsched_api(const struct ordsched *os);

/**
 * ordsched_set_spin() - how long ordsched_wait() spins before sleeping
 * @os: the handle
 * @spins: reads of the mapped tail before the system call; 0 never spins
 *
 * On the ring, a wait does not spin when the process may run on a single
 * CPU, nor while the domain has more tickets out than the process has
 * CPUs (their holders would then wait for the CPU a spinner takes): it
 * sleeps in the kernel. The CPUs the process may run on are counted when
 * the handle is made (ordsched_open(), _from_fd(), _new_handle()), so
 * that a wait makes no system call to learn them: a program that narrows
 * its affinity afterwards sets the spin to 0 itself, or makes its handles
 * after.
 *
 * The default, ORDSCHED_DEFAULT_SPIN, lasts from about one to a few
 * microseconds (a pause instruction takes 10 to 140 cycles, by CPU):
 * enough to catch a turn handed over by a thread that is running, short
 * next to the sleep and wakeup it saves. The spin looks at neither the
 * deadline nor signals: a wait ends at the earliest after its spin, and a
 * signal handler that runs during the spin does not end it (see
 * ordsched_wait()); a long spin delays both.
 */
void ordsched_set_spin(struct ordsched *os, unsigned int spins);

#define ORDSCHED_DEFAULT_SPIN	200

/**
 * ordsched_take() - take one ticket
 * @os: the handle that will hold it
 * @ticket: where to store it
 *
 * Return: 0; -EAGAIN when the handle holds api->max_held tickets or the
 * domain's window is full (wait for earlier tickets to retire). In a ring
 * domain: -EAGAIN when the ring's window (its slots) is full, which can
 * last until a retirer moves the tail, and, on the ioctl path only, when
 * the page kept changing under the kernel's take (other takers, or a
 * scribbler): try again; -EIO when the page was scribbled on.
 */
int ordsched_take(struct ordsched *os, uint64_t *ticket);

/**
 * ordsched_take_batch() - take consecutive tickets
 * @os: the handle that will hold them
 * @count: 1 to api->max_batch
 * @first: where to store the first; the handle holds @first to
 *	@first + @count - 1
 *
 * In a ring domain the ring hands out one ticket at a time, on either
 * path: a handle on the ioctl path (ORDSCHED_OPEN_NO_RING given to
 * ordsched_from_fd_flags(), or the environment variable
 * ORDSCHED_NO_RING set) gets -EINVAL from the kernel for a @count but 1,
 * as a handle on the ring gets it from the library. Open the domain with
 * ORDSCHED_OPEN_NO_RING to take batches.
 *
 * Return: 0; -EINVAL for a bad @count, and in a ring domain for any
 * @count but 1; -EAGAIN as ordsched_take().
 */
int ordsched_take_batch(struct ordsched *os, unsigned int count,
			uint64_t *first);

/**
 * ordsched_wait() - wait for the turn of a ticket
 * @os: the handle that holds it
 * @ticket: the ticket
 * @deadline_ns: absolute CLOCK_MONOTONIC deadline, or ORDSCHED_NO_DEADLINE
 *
 * Spins briefly on the mapped tail (no system call when the turn comes
 * quickly; on the ioctl path in a ring domain a 32-bit process asks the
 * kernel at the turn, as it cannot read a slot word atomically), then
 * sleeps in the kernel until the turn comes. The kernel
 * wakes the waiters of a ticket at its turn and, to have them on a CPU
 * in time, also those of the next ticket, ahead of theirs: these wait
 * on in the kernel, and a wait never returns before its turn. On the
 * ring the spin answers for any handle's ticket, from the ring's slot
 * words (the same answers as the kernel's). Threads of a process may wait
 * for the same ticket. On the ring, processes sharing a handle (after
 * fork(2)) that wait for the same ticket have a narrow window: when one
 * finds the turn itself, the other, already asleep, can miss it and sleep
 * until its deadline. A wait that ends without the turn leaves the others
 * their wake-up.
 *
 * Return: 0 when it is @ticket's turn; -ETIMEDOUT; -EINTR when a signal
 * handler without SA_RESTART ran while it slept in the kernel (one that
 * runs during the spin does not end the wait); -EPERM when another handle holds
 * @ticket; -EALREADY when it was completed or trashed (also during the
 * wait); -EINVAL when it was never handed out; -EBUSY when it would
 * sleep while too many threads are already in a wait in the kernel on
 * the handle or its domain (ORDSCHED_MAX_WAITERS_HANDLE, _DOMAIN in
 * <linux/ordsched.h>).
 */
int ordsched_wait(struct ordsched *os, uint64_t ticket, uint64_t deadline_ns);

/**
 * ordsched_is_turn() - is it the turn of a ticket, without a system call?
 * @os: a handle of the domain
 * @ticket: the ticket
 *
 * Return: 1 if @ticket is the tail, 0 if not. In a ring domain the tail
 * moves one ticket at a time, also over tickets retired before their
 * turn: for a moment it may name one of those (see ordsched_tail()).
 */
int ordsched_is_turn(const struct ordsched *os, uint64_t ticket);

/**
 * ordsched_complete() - complete a ticket: the next one's turn comes
 * @os: the handle that holds it
 * @ticket: the ticket
 *
 * Completing a ticket before its turn is allowed: the tail passes it
 * without a stop, as for a trashed one.
 *
 * Two threads that complete (or trash) the same ticket at once get one 0
 * and one -EALREADY; on the ring, if the one at the ticket's turn is held
 * up (preempted) while the other threads go a whole ring round, both may
 * be told 0. The ticket is retired once either way.
 *
 * Return: 0; -EPERM when another handle holds it; -EALREADY when it was
 * already completed or trashed; -EINVAL when it was never handed out.
 */
int ordsched_complete(struct ordsched *os, uint64_t ticket);

/**
 * ordsched_complete_batch() - complete consecutive tickets
 * @os: the handle that holds them
 * @first: the first
 * @count: 1 to api->max_batch
 *
 * All or nothing: if one ticket cannot be completed, none is. In a ring
 * domain, on either path, the tickets are checked, then retired one by
 * one: another thread of the handle retiring one of them meanwhile stops
 * the range with -EALREADY, the earlier ones completed.
 *
 * Return: as ordsched_complete(); -EINVAL for a bad @count.
 */
int ordsched_complete_batch(struct ordsched *os, uint64_t first,
			    unsigned int count);

/**
 * ordsched_trash() - give up a ticket: the tail passes it without a stop
 * @os: the handle that holds it
 * @ticket: the ticket
 *
 * Return: as ordsched_complete().
 */
int ordsched_trash(struct ordsched *os, uint64_t ticket);

/**
 * ordsched_trash_batch() - give up consecutive tickets
 * @os: the handle that holds them
 * @first: the first
 * @count: 1 to api->max_batch
 *
 * Return: as ordsched_complete_batch().
 */
int ordsched_trash_batch(struct ordsched *os, uint64_t first,
			 unsigned int count);

/**
 * ordsched_complete_wait() - complete a ticket, then wait for another
 * @os: the handle that holds both
 * @ticket: in: the ticket to complete, or ORDSCHED_NO_TICKET; out: set to
 *	ORDSCHED_NO_TICKET once completed
 * @next: the ticket to wait for, or ORDSCHED_NO_TICKET
 * @deadline_ns: as for ordsched_wait()
 *
 * One system call for the two steps of an ordered loop (none on the
 * ring unless the wait sleeps or the completion wakes a sleeper). When it
 * fails, *@ticket tells whether the completion was done, so that calling
 * again after -EINTR or -ETIMEDOUT only waits.
 *
 * Return: as ordsched_complete() for the completion (nothing done), then
 * as ordsched_wait() for the wait.
 */
int ordsched_complete_wait(struct ordsched *os, uint64_t *ticket,
			   uint64_t next, uint64_t deadline_ns);

/**
 * ordsched_tail() - the oldest ticket not completed or trashed
 * @os: a handle of the domain
 *
 * Read from the status page with an acquire load: a thread that sees the
 * tail reach its ticket also sees what the earlier holders wrote before
 * they completed. In a ring domain the tail moves over tickets retired
 * before their turn one at a time, so for a moment it may name one of
 * them: the oldest not yet passed, rather than not retired.
 *
 * Return: the tail.
 */
uint64_t ordsched_tail(const struct ordsched *os);

/**
 * ordsched_head() - the next ticket the domain will hand out
 * @os: a handle of the domain
 *
 * Return: the head, from the status page.
 */
uint64_t ordsched_head(const struct ordsched *os);

/**
 * ordsched_stats() - counters of the domain and of the handle
 * @os: the handle
 * @st: filled in
 *
 * On the ring, taken, completed and trashed count only the operations
 * that went through the kernel (see <linux/ordsched_ring.h>).
 *
 * Return: 0, or a negative errno.
 */
int ordsched_stats(struct ordsched *os, struct ordsched_stats *st);

/**
 * ordsched_now() - the current CLOCK_MONOTONIC time
 *
 * Return: nanoseconds, the clock of every deadline.
 */
uint64_t ordsched_now(void);

/**
 * ordsched_deadline_in() - a deadline some time from now
 * @ns: nanoseconds from now
 *
 * Return: ordsched_now() + @ns, or ORDSCHED_NO_DEADLINE if that overflows.
 */
uint64_t ordsched_deadline_in(uint64_t ns);

#ifdef __cplusplus
}
#endif

#endif /* LIBORDSCHED_H */
