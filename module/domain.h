/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ordering domains of /dev/ordsched: tickets, their holders, the tail and
 * its waiters. chardev.c turns system calls into these calls.
 */
#ifndef _ORDSCHED_DOMAIN_H
#define _ORDSCHED_DOMAIN_H

#include <linux/list.h>
#include <linux/poll.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <uapi/linux/ordsched.h>
#include <uapi/linux/ordsched_ring.h>

#include "internal.h"

struct ordsched_api;
struct ordsched_stats;
struct ordsched_handle;
struct page;

/* Limits per domain and per handle, reported by the handshake. */
#define ORDSCHED_DOMAIN_WINDOW		4096
#define ORDSCHED_DOMAIN_MAX_BATCH	256
#define ORDSCHED_DOMAIN_MAX_HELD	1024

#define ORDSCHED_DOMAIN_FEATURES	(ORDSCHED_FEAT_STATUS_PAGE |	\
					 ORDSCHED_FEAT_POLL |		\
					 ORDSCHED_FEAT_COMPLETE_WAIT |	\
					 ORDSCHED_FEAT_NEW_HANDLE |	\
					 ORDSCHED_FEAT_RING)

/* Where the status page keeps the tail and the head, each on its line. */
#define ORDSCHED_STATUS_TAIL_OFFSET	128
#define ORDSCHED_STATUS_HEAD_OFFSET	256

/* Where the ring's slots start in the page (ring.c), and the mmap offset. */
#define ORDSCHED_RING_SLOTS_OFFSET	512
#define ORDSCHED_RING_PGOFF		1

/* How a ticket leaves the window. */
enum ordsched_retire {
	ORDSCHED_RETIRE_COMPLETE,
	ORDSCHED_RETIRE_TRASH,
	ORDSCHED_RETIRE_RELEASE,
};

#define DOMAIN_BUCKETS	64

struct domain_counters {
	u64 taken;
	u64 completed;
	u64 trashed;
	u64 released;
	u64 waits;
	u64 wakeups;
	u64 timeouts;
	u64 interrupts;
	u64 full;
	/* Runs of the ring's advance_work. */
	u64 deferred;
};

/*
 * The domain and the handle are shared by domain.c and ring.c; nobody else
 * looks inside.
 */
struct ordsched_domain {
	/* Guards every field below but the ring's and those set at creation. */
	spinlock_t lock;
	u64 tail;
	u64 head;
	/* ORDSCHED_DOMAIN_WINDOW words, ticket t in t % WINDOW. */
	unsigned long *slots;
	unsigned int handles;
	/* A second handle was created: too late to become a ring domain. */
	bool shared;
	/*
	 * Ring mode (ring.c), set once under the lock and for the domain's
	 * life; read without it with smp_load_acquire(), which then also
	 * sees @ring_slots. In ring mode @tail, @head and @slots are unused.
	 */
	bool ring;
	/* The ring's slot count, a power of two: the kernel's, trusted. */
	u32 ring_slots;
	/* Ring id -> handle; changed with the lock held, see ring.c. */
	struct xarray ids;
	/* Advances the tail when a budget ran out (ring.c). */
	struct work_struct advance_work;
	/* Its runs in a row, each queued by the one before: its own. */
	unsigned int advance_chain;
	/* One per handle, one for a queued advance_work. */
	refcount_t ref;
	struct domain_counters stats;
	struct list_head waiters[DOMAIN_BUCKETS];
	/*
	 * Threads in a wait that was let in, from then until it returns,
	 * at most ORDSCHED_MAX_WAITERS_DOMAIN; so many at most are in the
	 * buckets. Raised under the lock, lowered with or without it.
	 */
	atomic_t waiting;
	struct page *status_page;
	struct ordsched_status *status;
	/* Unique among live domains (domain.c); the opener's comm. */
	u32 id;
	char comm[TASK_COMM_LEN];
};

struct ordsched_handle {
	struct ordsched_domain *dom;
	/* Tickets held and taken; under dom->lock. */
	u32 held;
	/* As the domain's @waiting, for this handle's waits. */
	atomic_t waiting;
	u64 taken;
	/* The handle's id in the ring, 0 until it needs one; set once. */
	u32 ring_id;
	/*
	 * The ring page was mapped through this handle: without an id, it
	 * may still have moved the tail (anyone advances over retired
	 * slots). Set once.
	 */
	bool ring_mapped;
	/* poll() waits here for the turn of the handle's oldest ticket. */
	wait_queue_head_t pollq;
};

/*
 * A thread in ordsched_domain_wait() or a ring wait, on its stack. A waker
 * unlinks it and then sets @woken (a release store), after which it does
 * not touch it again: the thread that sees @woken (an acquire load) owns
 * it, unlinked, and may return without taking the domain lock.
 */
struct domain_waiter {
	struct list_head node;
	struct task_struct *task;
	struct ordsched_handle *h;
	u64 ticket;
	bool woken;
	/* Let in: counted in the limits until ordsched_domain_leave_waiter(). */
	bool counted;
};

static inline bool ordsched_domain_is_ring(struct ordsched_domain *dom)
{
	/* Pairs with the release store of ordsched_ring_dom_setup(). */
	return smp_load_acquire(&dom->ring);
}

/*
 * Threads to wake once the domain lock is dropped, a reference each: a
 * wake-up under the lock would hold it across the IPI to the woken
 * thread's CPU, which the woken thread then spins on to dequeue itself.
 */
#define DOMAIN_WAKES	4

struct domain_wakes {
	struct task_struct *task[DOMAIN_WAKES];
	unsigned int n;
};

void ordsched_domain_wake(struct ordsched_domain *dom, u64 t,
			  struct domain_wakes *wk);
void ordsched_domain_wake_ahead(struct ordsched_domain *dom, u64 t,
				struct domain_wakes *wk);
void ordsched_domain_wakes_flush(struct domain_wakes *wk);
int ordsched_domain_queue_waiter(struct ordsched_handle *h,
				 struct domain_waiter *w);
void ordsched_domain_dequeue_waiter(struct ordsched_handle *h,
				    struct domain_waiter *w);
void ordsched_domain_leave_waiter(struct ordsched_handle *h,
				  struct domain_waiter *w);
bool ordsched_domain_deadline_passed(u64 deadline_ns);
void ordsched_domain_schedule(u64 deadline_ns);
/*
 * How long a waiter woken ahead of its turn spins for it: a few
 * hand-overs even under emulation (12-30 us an item at 8 threads in a
 * 2-vCPU TCG guest), and only ever on a CPU that would otherwise idle.
 */
#define DOMAIN_SPIN_NS	(100 * NSEC_PER_USEC)
void ordsched_domain_spin_turn(const u64 *tail, u64 t, u64 deadline_ns);
void ordsched_domain_put(struct ordsched_domain *dom);

/* ring.c: the same commands in a ring domain. */
int ordsched_ring_dom_setup(struct ordsched_handle *h,
			    struct ordsched_ring_setup *setup);
int ordsched_ring_dom_take(struct ordsched_handle *h, u32 count, u64 *first);
int ordsched_ring_dom_retire(struct ordsched_handle *h, u64 ticket, u32 count,
			     enum ordsched_retire how);
int ordsched_ring_dom_wait(struct ordsched_handle *h, u64 ticket,
			   u64 deadline_ns);
int ordsched_ring_dom_sleep(struct ordsched_handle *h, u64 ticket,
			    u64 deadline_ns);
void ordsched_ring_dom_wake(struct ordsched_handle *h, u64 ticket);
bool ordsched_ring_dom_turn(struct ordsched_handle *h);
void ordsched_ring_dom_stats(struct ordsched_handle *h,
			     struct ordsched_stats *st);
void ordsched_ring_dom_release(struct ordsched_handle *h);
void ordsched_ring_advance_work(struct work_struct *work);
int ordsched_ring_init(void);
void ordsched_ring_exit(void);

void ordsched_domain_debugfs_init(void);
struct ordsched_handle *ordsched_domain_create(void);
struct ordsched_handle *ordsched_handle_create(struct ordsched_handle *h);
void ordsched_handle_publish(struct ordsched_handle *h);
void ordsched_handle_discard(struct ordsched_handle *h);
void ordsched_handle_release(struct ordsched_handle *h);

int ordsched_domain_take(struct ordsched_handle *h, u32 count, u64 *first);
int ordsched_domain_retire(struct ordsched_handle *h, u64 ticket, u32 count,
			   enum ordsched_retire how);
int ordsched_domain_wait(struct ordsched_handle *h, u64 ticket,
			 u64 deadline_ns);
bool ordsched_domain_turn(struct ordsched_handle *h);
void ordsched_domain_poll_wait(struct ordsched_handle *h, struct file *file,
			       poll_table *pt);
void ordsched_domain_get_stats(struct ordsched_handle *h,
			       struct ordsched_stats *st);
struct page *ordsched_domain_status_page(struct ordsched_handle *h);

#endif /* _ORDSCHED_DOMAIN_H */
