/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ordering domains of /dev/ordsched: tickets, their holders, the tail and
 * its waiters. chardev.c turns system calls into these calls.
 */
#ifndef _ORDSCHED_DOMAIN_H
#define _ORDSCHED_DOMAIN_H

#include <linux/poll.h>
#include <linux/types.h>
#include <uapi/linux/ordsched.h>

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
					 ORDSCHED_FEAT_NEW_HANDLE)

/* Where the status page keeps the tail and the head, each on its line. */
#define ORDSCHED_STATUS_TAIL_OFFSET	128
#define ORDSCHED_STATUS_HEAD_OFFSET	256

/* How a ticket leaves the window. */
enum ordsched_retire {
	ORDSCHED_RETIRE_COMPLETE,
	ORDSCHED_RETIRE_TRASH,
	ORDSCHED_RETIRE_RELEASE,
};

struct ordsched_handle *ordsched_domain_create(void);
struct ordsched_handle *ordsched_handle_create(struct ordsched_handle *h);
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
