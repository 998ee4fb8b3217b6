// SPDX-License-Identifier: GPL-2.0
/*
 * ordschedctl selftest: a quick check that the device and the library
 * agree and keep order, for a machine where the module was just loaded.
 * The full tests are the kselftests in selftests/ordsched.
 */
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>

#include "ctl.h"

#define THREADS		4
#define PER_THREAD	2000

static int failed;

static void check(int ok, const char *what)
{
	printf("[%s] %s\n", ok ? " ok " : "FAIL", what);
	failed += !ok;
}

struct ordered {
	struct ordsched *os;
	uint64_t next;		/* what the ordered step expects */
	int errors;
};

static void *ordered_thread(void *arg)
{
	struct ordered *o = arg;
	uint64_t t, done = ORDSCHED_NO_TICKET;
	int i;

	for (i = 0; i < PER_THREAD; i++) {
		if (ordsched_take(o->os, &t)) {
			__atomic_fetch_add(&o->errors, 1, __ATOMIC_RELAXED);
			break;
		}
		/* On failure, done says whether it was completed. */
		if (ordsched_complete_wait(o->os, &done, t,
					   ordsched_deadline_in(20000000000ULL))) {
			__atomic_fetch_add(&o->errors, 1, __ATOMIC_RELAXED);
			/*
			 * Still ours: trashed, so that the other threads go
			 * on and the checks after this one see a domain with
			 * nothing held, not one failure made many.
			 */
			ordsched_trash(o->os, t);
			break;
		}
		/* Our turn: nobody else is here, and t follows the last. */
		if (o->next != t)
			o->errors++;
		o->next = t + 1;
		done = t;
	}
	if (done != ORDSCHED_NO_TICKET && ordsched_complete(o->os, done))
		__atomic_fetch_add(&o->errors, 1, __ATOMIC_RELAXED);
	return NULL;
}

static void check_threads(struct ordsched *os)
{
	struct ordered o = { .os = os, .next = ordsched_tail(os) };
	pthread_t th[THREADS];
	struct ordsched_stats st;
	int i, started;

	for (started = 0; started < THREADS; started++)
		if (pthread_create(&th[started], NULL, ordered_thread, &o))
			break;
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	check(started == THREADS, "4 threads started");
	check(!o.errors && o.next == ordsched_tail(os),
	      "4 threads x 2000 tickets committed in order");
	/*
	 * On the ring a wake may reach a waiter before it sleeps, or come
	 * from two tail movers. On the ioctl path a sleeper is woken at its
	 * turn, and at most once before it, ahead of its turn.
	 */
	if (ordsched_uses_ring(os))
		check(!ordsched_stats(os, &st) && st.held == 0,
		      "no ticket left");
	else
		check(!ordsched_stats(os, &st) && st.held == 0 &&
		      st.wakeups <= 2 * st.waits,
		      "no ticket left, at most two wakeups per sleep");
}

static void check_handles(struct ordsched *os)
{
	struct ordsched *other;
	struct pollfd pfd = { .fd = ordsched_fd(os), .events = POLLIN };
	struct ordsched_stats st;
	uint64_t a, b;
	int ok;

	if (ordsched_new_handle(os, &other)) {
		check(0, "a second handle");
		return;
	}
	ok = !ordsched_take(other, &a) && !ordsched_take(os, &b);
	check(ok, "tickets on two handles");
	if (!ok) {
		/* Nothing below means anything without both tickets. */
		ordsched_close(other);
		return;
	}
	check(ordsched_complete(os, a) == -EPERM,
	      "a ticket of another handle is refused");
	check(ordsched_wait(os, b, ordsched_deadline_in(10000000)) == -ETIMEDOUT,
	      "a wait behind a held ticket times out");
	check(poll(&pfd, 1, 0) == 0, "poll: not our turn");
	ordsched_close(other);
	check(poll(&pfd, 1, 1000) == 1, "a closed handle's ticket is trashed");
	check(!ordsched_stats(os, &st) && st.released == 1 && st.tail == b,
	      "the tail passed it");
	check(!ordsched_complete(os, b), "complete our ticket");
}

static void check_batch(struct ordsched *os)
{
	unsigned int i;
	uint64_t f;

	/* The ring hands out one ticket at a time. */
	if (ordsched_uses_ring(os)) {
		check(ordsched_take_batch(os, 8, &f) == -EINVAL,
		      "the ring refuses a batch");
		return;
	}
	if (ordsched_take_batch(os, 8, &f)) {
		check(0, "take a batch of 8");
		return;
	}
	check(1, "take a batch of 8");
	check(!ordsched_trash_batch(os, f + 2, 3) &&
	      !ordsched_complete(os, f + 6) && ordsched_tail(os) == f,
	      "retire out of order: the tail waits for the first");
	check(!ordsched_complete_batch(os, f, 2) && ordsched_tail(os) == f + 5,
	      "complete the first two: the tail skips the trashed");
	check(ordsched_complete(os, f + 2) == -EALREADY,
	      "a trashed ticket cannot be completed");
	check(!ordsched_trash(os, f + 5) && !ordsched_complete(os, f + 7) &&
	      ordsched_tail(os) == f + 8, "the batch is done");
	/* After a failure above, none left held to stall the next checks. */
	for (i = 0; ordsched_tail(os) != f + 8 && i < 8; i++)
		ordsched_trash(os, f + i);
}

int cmd_selftest(int argc, char **argv)
{
	const struct ordsched_api *api;
	struct ordsched *os;
	int pass, ret;

	if (argc > 1) {
		fprintf(stderr, "%s: selftest takes no argument ('%s')\n",
			prog, argv[1]);
		return 2;
	}
	/* The default path (the shared ring when offered), then ioctls. */
	for (pass = 0; pass < 2; pass++) {
		ret = ordsched_open_flags(&os, pass ? ORDSCHED_OPEN_NO_RING : 0);
		if (ret)
			return fail("cannot open the device", ret);
		api = ordsched_api(os);
		printf("api %u: window %u, batch %u, held %u, status page %u bytes; %s path\n",
		       api->version, api->window, api->max_batch,
		       api->max_held, api->status_size,
		       ordsched_uses_ring(os) ? "ring" : "ioctl");
		check(ordsched_tail(os) == 0 && ordsched_head(os) == 0,
		      "a new domain starts at ticket 0");
		check_batch(os);
		/*
		 * Before check_handles(), whose poll makes the handle
		 * pollable: on the ring every hand-over then enters the
		 * kernel, which is not what the threads should measure.
		 */
		check_threads(os);
		check_handles(os);
		ordsched_close(os);
	}
	if (failed) {
		fflush(stdout);
		fprintf(stderr, "%s: selftest FAILED (%d check%s)\n", prog, failed,
			failed == 1 ? "" : "s");
		return 1;
	}
	printf("selftest passed\n");
	return 0;
}
