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
 * handle that took them; when its last descriptor is closed (or its
 * process dies) the kernel trashes the tickets it still holds, so the
 * others never wait for a dead holder. Threads may share a handle;
 * processes get their own with ordsched_new_handle() and pass its
 * descriptor (fork, SCM_RIGHTS), adopting it with ordsched_from_fd().
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
 * kernel speaks another API version; -ENOMEM; or an error of open(2) or
 * mmap(2).
 */
int ordsched_open(struct ordsched **os);

/**
 * ordsched_from_fd() - adopt a descriptor of a handle
 * @fd: a descriptor of /dev/ordsched or of ordsched_new_handle(); the
 *	handle owns it from now on, even on failure
 * @os: where to store the handle
 *
 * Return: 0; -ENOTTY when @fd is not an ordsched handle; as ordsched_open().
 */
int ordsched_from_fd(int fd, struct ordsched **os);

/**
 * ordsched_new_handle() - another handle on the same domain
 * @os: a handle
 * @out: where to store the new handle; its descriptor is close-on-exec
 *
 * The new handle holds no ticket. Give it to another process (fork, or
 * ordsched_fd() over a UNIX socket) so that its tickets are trashed when
 * that process dies, and not when the whole domain goes.
 *
 * Return: 0; -EMFILE; -ENOMEM.
 */
int ordsched_new_handle(struct ordsched *os, struct ordsched **out);

/**
 * ordsched_close() - release a handle
 * @os: the handle, or NULL
 *
 * Unmaps the status page and closes the descriptor; tickets the handle
 * still holds are trashed by the kernel once no other descriptor of it
 * is open. No other thread may use @os any more.
 */
void ordsched_close(struct ordsched *os);

/**
 * ordsched_fd() - the descriptor of a handle
 * @os: the handle
 *
 * For poll(2): it reports POLLIN while the handle holds the tail, i.e.
 * when the turn of its oldest ticket has come.
 *
 * Return: the descriptor, owned by @os.
 */
int ordsched_fd(const struct ordsched *os);

/**
 * ordsched_api() - what the kernel reported in the handshake
 * @os: the handle
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
 * The default, ORDSCHED_DEFAULT_SPIN, lasts from about one to a few
 * microseconds (a pause instruction takes 10 to 140 cycles, by CPU):
 * enough to catch a turn handed over by a thread that is running, short
 * next to the sleep and wakeup it saves.
 */
void ordsched_set_spin(struct ordsched *os, unsigned int spins);

#define ORDSCHED_DEFAULT_SPIN	200

/**
 * ordsched_take() - take one ticket
 * @os: the handle that will hold it
 * @ticket: where to store it
 *
 * Return: 0; -EAGAIN when the handle holds api->max_held tickets or the
 * domain's window is full (wait for earlier tickets to retire).
 */
int ordsched_take(struct ordsched *os, uint64_t *ticket);

/**
 * ordsched_take_batch() - take consecutive tickets
 * @os: the handle that will hold them
 * @count: 1 to api->max_batch
 * @first: where to store the first; the handle holds @first to
 *	@first + @count - 1
 *
 * Return: 0; -EINVAL for a bad @count; -EAGAIN as ordsched_take().
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
 * quickly), then sleeps in the kernel until the turn comes, only woken
 * for it.
 *
 * Return: 0 when it is @ticket's turn; -ETIMEDOUT; -EINTR when a signal
 * handler without SA_RESTART ran; -EPERM when another handle holds
 * @ticket; -EALREADY when it was completed or trashed (also during the
 * wait); -EINVAL when it was never handed out.
 */
int ordsched_wait(struct ordsched *os, uint64_t ticket, uint64_t deadline_ns);

/**
 * ordsched_is_turn() - is it the turn of a ticket, without a system call?
 * @os: a handle of the domain
 * @ticket: the ticket
 *
 * Return: 1 if @ticket is the tail, 0 if not.
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
 * All or nothing: if one ticket cannot be completed, none is.
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
 * One system call for the two steps of an ordered loop. When it fails,
 * *@ticket tells whether the completion was done, so that calling again
 * after -EINTR or -ETIMEDOUT only waits.
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
 * they completed.
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
