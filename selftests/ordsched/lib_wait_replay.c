// SPDX-License-Identifier: GPL-2.0
/*
 * Replays, on the host, interleavings of libordsched's ring wait
 * (ring_wait() in userspace/lib/wait.c, the wrapper around the protocol
 * that ring_check does not model: ring_waiters, the re-flag, a handle
 * made pollable during a wait) that a stress test hits by chance only.
 *
 * The library is built with OS_TEST_HOOKS: every load and compare-and-swap
 * of the ring page calls os_test_hook() first, which stops a thread at the
 * access chosen for it (the n-th to a given word) until the replay lets it
 * go. The kernel is a mock behind --wrap=ioctl: RING_WAIT sleeps with the
 * protocol's own check (ordsched_ring_wait_check()), RING_WAKE wakes the
 * ticket's sleepers, and each sleep records whether a wake-up or its
 * deadline ended it. The breakpoints count the library's accesses: a
 * change in them puts the replay out of step, which it reports (a
 * breakpoint not reached) rather than passing.
 *
 * Prints TAP-style "ok"/"not ok" lines; exits 1 if one failed.
 */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <internal.h>	/* the library's, not the module's */

#define SLOTS	8
#define BP_MAX	2

static __u64 page[512] __attribute__((aligned(4096)));
static struct ordsched_ring_view view;
static int failed;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* ---- breakpoints: stop at the @nth access of @kind to @word ---- */

struct bp {
	const void *word;
	bool cas;
	int nth, seen, armed;
	sem_t paused, resume;
};

static __thread struct bp *thread_bps;

void os_test_hook(const void *p, bool cas)
{
	struct bp *b;
	int i;

	for (i = 0; thread_bps && i < BP_MAX; i++) {
		b = &thread_bps[i];
		if (!b->armed || b->word != p || b->cas != cas ||
		    ++b->seen != b->nth)
			continue;
		b->armed = 0;
		sem_post(&b->paused);
		sem_wait(&b->resume);
	}
}

static void bp_set(struct bp *b, const void *word, bool cas, int nth)
{
	*b = (struct bp){ .word = word, .cas = cas, .nth = nth, .armed = 1 };
	sem_init(&b->paused, 0, 0);
	sem_init(&b->resume, 0, 0);
}

/* Wait until the thread stops at @b: false if it never does. */
static bool bp_reached(struct bp *b, const char *what)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 10;
	if (!sem_timedwait(&b->paused, &ts))
		return true;
	printf("# breakpoint not reached: %s (the library's accesses changed: update the replay)\n",
	       what);
	return false;
}

static void bp_go(struct bp *b)
{
	sem_post(&b->resume);
}

/* ---- the mock kernel ---- */

static pthread_mutex_t klock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t kcond = PTHREAD_COND_INITIALIZER;
static unsigned long wakes[SLOTS];	/* RING_WAKEs per slot */
static int asleep[SLOTS];
static int sleeps_ended_by_deadline;

static int mock_ring_wait(int fd, const struct ordsched_ring_wait *rw)
{
	unsigned int i = rw->ticket & (SLOTS - 1);
	unsigned long seen;
	struct timespec ts;
	uint64_t left, now;
	int ret;

	pthread_mutex_lock(&klock);
	for (;;) {
		ret = ordsched_ring_wait_check(&view, fd, rw->ticket);
		if (ret != -EAGAIN)
			break;
		seen = wakes[i];
		asleep[i]++;
		while (seen == wakes[i]) {
			now = now_ns();
			left = rw->deadline_ns > now ? rw->deadline_ns - now : 0;
			clock_gettime(CLOCK_REALTIME, &ts);
			/* The condition variable's clock is CLOCK_REALTIME. */
			ts.tv_sec += left / 1000000000ULL;
			ts.tv_nsec += left % 1000000000ULL;
			if (ts.tv_nsec >= 1000000000L) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
			if (pthread_cond_timedwait(&kcond, &klock, &ts) ==
			    ETIMEDOUT)
				break;
		}
		asleep[i]--;
		if (seen == wakes[i]) {
			/* The deadline: the kernel looks once more. */
			sleeps_ended_by_deadline++;
			ret = ordsched_ring_wait_check(&view, fd, rw->ticket);
			if (ret == -EAGAIN)
				ret = -ETIMEDOUT;
			break;
		}
	}
	pthread_mutex_unlock(&klock);
	return ret;
}

int __wrap_ioctl(int fd, unsigned long cmd, ...)
{
	const struct ordsched_ring_wake *wk;
	va_list ap;
	void *arg;
	int ret;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	switch (cmd) {
	case ORDSCHED_IOC_RING_WAKE:
		wk = arg;
		pthread_mutex_lock(&klock);
		wakes[wk->ticket & (SLOTS - 1)]++;
		pthread_cond_broadcast(&kcond);
		pthread_mutex_unlock(&klock);
		return 0;
	case ORDSCHED_IOC_RING_WAIT:
		ret = mock_ring_wait(fd, arg);
		if (!ret)
			return 0;
		errno = -ret;
		return -1;
	}
	errno = ENOTTY;
	return -1;
}

static int asleep_on(__u64 t)
{
	int n;

	pthread_mutex_lock(&klock);
	n = asleep[t & (SLOTS - 1)];
	pthread_mutex_unlock(&klock);
	return n;
}

/* ---- handles and threads ---- */

/* A handle of the mock domain: its descriptor is its ring id. */
static void handle_init(struct ordsched *os, uint32_t id)
{
	memset(os, 0, sizeof(*os));
	os->fd = id;
	os->ring_id = id;
	os->view = view;
	os->ring_map = page;
	os->status = page;
	os->tail = (const uint64_t *)view.tail;
	os->head = (const uint64_t *)view.head;
	os->ring_waiters = calloc(SLOTS, sizeof(unsigned int));
	os->api.max_batch = 16;
	os->api.window = SLOTS;
	os->api.features = ORDSCHED_FEAT_RING;
	os->ncpus = 8;
	/* No spin: every wait that is not at its turn sleeps. */
	ordsched_set_spin(os, 0);
}

struct call {
	pthread_t thread;
	struct ordsched *os;
	uint64_t ticket;
	bool complete;		/* ordsched_complete(), else ordsched_wait() */
	struct bp bps[BP_MAX];
	int ret;
};

static void *call_run(void *arg)
{
	struct call *c = arg;

	thread_bps = c->bps;
	if (c->complete)
		c->ret = ordsched_complete(c->os, c->ticket);
	else
		c->ret = ordsched_wait(c->os, c->ticket,
				       now_ns() + 3000000000ULL);
	return NULL;
}

static void call_start(struct call *c, struct ordsched *os, uint64_t ticket,
		       bool complete)
{
	c->os = os;
	c->ticket = ticket;
	c->complete = complete;
	pthread_create(&c->thread, NULL, call_run, c);
}

static void check(bool ok, const char *name, const char *why)
{
	printf("%sok %s%s%s\n", ok ? "" : "not ", name, ok ? "" : " # ",
	       ok ? "" : why);
	failed |= !ok;
}

/*
 * Handles A (id 1) and B (id 2) on the page; B takes t0 (*@k0), A t1
 * (*@k1). False, reported as scenario @name's failure, if a take fails.
 */
static bool two_handles(struct ordsched *a, struct ordsched *b,
			uint64_t *k0, uint64_t *k1, const char *name)
{
	handle_init(a, 1);
	handle_init(b, 2);
	if (ordsched_take(b, k0) || ordsched_take(a, k1)) {
		check(false, name, "take failed");
		return false;
	}
	return true;
}

/*
 * T2 of @a asleep on @k1, whose slot is @slot; then T1 waiting for it
 * too, stopped before its tail load after the flag loop, with a second
 * breakpoint before its re-flag. Whether T1 got there.
 */
static bool asleep_and_held(struct call *t2, struct call *t1,
			    struct ordsched *a, uint64_t k1, __u64 *slot)
{
	int i;

	call_start(t2, a, k1, false);
	for (i = 0; i < 10000 && !asleep_on(k1); i++)
		usleep(1000);
	bp_set(&t1->bps[0], view.tail, false, 6);
	bp_set(&t1->bps[1], slot, true, 2);
	call_start(t1, a, k1, false);
	return bp_reached(&t1->bps[0], "T1 after its flag loop");
}

/*
 * B (@m, of @b) completes @k0: its tail CAS moves the tail onto t1, and
 * it stops before looking at t1's slot (@slot). T1 (held by
 * asleep_and_held()) then sees its turn and takes the flag back, stopping
 * before its re-flag; B finds the flag down and wakes nobody. Whether
 * every stop was reached.
 */
static bool turn_taken_back_unseen(struct call *m, struct call *t1,
				   struct ordsched *b, uint64_t k0,
				   __u64 *slot)
{
	bool step;

	bp_set(&m->bps[0], slot, false, 1);
	call_start(m, b, k0, true);
	step = bp_reached(&m->bps[0], "B after its tail move");
	bp_go(&t1->bps[0]);
	step = step && bp_reached(&t1->bps[1], "T1 before its re-flag");
	bp_go(&m->bps[0]);
	pthread_join(m->thread, NULL);
	return step;
}

/*
 * Three threads of handle A wait for its ticket t1, which follows B's t0;
 * the handle becomes pollable during the waits. T2 sleeps with the flag
 * up. T1 (not pollable when it started) is at its flag loop's end when B
 * moves the tail onto t1; T1 sees the turn and takes the flag back before
 * B looks at the slot, so B wakes nobody. T4 (pollable: keeps its flag)
 * then raises the flag, finds the turn itself and leaves without a
 * wake-up; T1's re-flag for its fellow waiters fails on that flag. T2's
 * turn has come: someone must wake it. The library woke the others only
 * when the word was not flagged, and T2 slept to its deadline.
 */
static void turn_taken_back_while_flag_raised(void)
{
	struct call t1 = {}, t2 = {}, t4 = {}, m = {};
	struct ordsched a, b;
	uint64_t k0, k1;
	__u64 *slot;
	bool step;

	if (!two_handles(&a, &b, &k0, &k1,
			 "lib_wait_replay.turn_taken_back_while_flag_raised"))
		return;
	slot = ordsched_ring_slot(&view, k1);
	step = asleep_and_held(&t2, &t1, &a, k1, slot);

	/* T1 read keep = 0; from now on the handle keeps its flags. */
	(void)ordsched_fd(&a);
	bp_set(&t4.bps[0], slot, false, 4);
	call_start(&t4, &a, k1, false);
	step = step && bp_reached(&t4.bps[0], "T4 before its flag loop");

	step = turn_taken_back_unseen(&m, &t1, &b, k0, slot) && step;
	/* T4 raises it, sees the turn, keeps it and leaves. */
	bp_go(&t4.bps[0]);
	pthread_join(t4.thread, NULL);
	/* T1's re-flag fails on T4's flag. */
	bp_go(&t1.bps[1]);
	pthread_join(t1.thread, NULL);
	pthread_join(t2.thread, NULL);

	printf("# T1 %d, T2 %d, T4 %d, B %d; sleeps ended by their deadline: %d\n",
	       t1.ret, t2.ret, t4.ret, m.ret, sleeps_ended_by_deadline);
	check(step && !t1.ret && !t2.ret && !t4.ret && !m.ret &&
	      !sleeps_ended_by_deadline,
	      "lib_wait_replay.turn_taken_back_while_flag_raised",
	      "T2 slept through its turn to its deadline");
}

/*
 * T2 of handle A sleeps on t1. B moves the tail onto t1 and stops
 * before looking; T1 sees the turn, takes the flag back; B finds no flag.
 * C (a thread of A that found the turn by itself) completes t1: tail CAS,
 * stops before its free. T1 re-flags (others = 1): succeeds, tail is past,
 * no wake. A taker a lap on frees the slot late, erasing the flag. C's
 * free fails and sees no flag: nobody wakes T2, which should learn
 * EALREADY at once.
 */
static void reflag_after_turn_erased_by_late_free(void)
{
	struct call t1 = {}, t2 = {}, c = {}, m = {};
	struct ordsched a, b;
	const char *name = "lib_wait_replay.reflag_after_turn_erased_by_late_free";
	uint64_t k0, k1, k, t0;
	__u64 *slot;
	bool step;
	int i;

	if (!two_handles(&a, &b, &k0, &k1, name))
		return;
	/* The window full: the next take is a lap on from t0. */
	for (i = 2; i < SLOTS; i++)
		if (ordsched_take(&b, &k)) {
			check(false, name, "fill failed");
			return;
		}
	slot = ordsched_ring_slot(&view, k1);
	step = asleep_and_held(&t2, &t1, &a, k1, slot);

	step = turn_taken_back_unseen(&m, &t1, &b, k0, slot) && step;

	/* C completes t1 at its turn, stops before its free. */
	bp_set(&c.bps[0], slot, true, 1);
	call_start(&c, &a, k1, true);
	step = step && bp_reached(&c.bps[0], "C before its free");

	bp_go(&t1.bps[1]);
	pthread_join(t1.thread, NULL);

	/* A taker a lap on: frees slot t1 late. */
	if (ordsched_take(&b, &k) || ordsched_take(&b, &k))
		step = false;
	printf("# took %llu\n", (unsigned long long)k);

	t0 = now_ns();
	bp_go(&c.bps[0]);
	pthread_join(c.thread, NULL);
	pthread_join(t2.thread, NULL);
	printf("# T1 %d, T2 %d (after %llu ms), C %d, B %d; deadline ends: %d\n",
	       t1.ret, t2.ret, (unsigned long long)(now_ns() - t0) / 1000000,
	       c.ret, m.ret, sleeps_ended_by_deadline);
	/*
	 * T1 saw its turn, B and C completed theirs; T2's ticket completed
	 * while it slept: EALREADY, not 0 (nor a deadline).
	 */
	check(step && !t1.ret && t2.ret == -EALREADY && !c.ret && !m.ret &&
	      !sleeps_ended_by_deadline, name,
	      "T2 slept through the completion of its ticket to its deadline");
}

/*
 * W waits for A's t1 (not yet its turn) and flags it; before W
 * looks at the tail, another thread of A trashes t1 (early), then B
 * completes t0 and moves the tail onto the retired t1, stopping before it
 * moves it on. W sees tail == t1 and returns 0 for a trashed ticket.
 */
static void wait_returns_0_for_trashed(void)
{
	struct call w = {}, m = {};
	struct ordsched a, b;
	uint64_t k0, k1;
	__u64 *slot;
	bool step;
	int x;

	if (!two_handles(&a, &b, &k0, &k1,
			 "lib_wait_replay.wait_returns_0_for_trashed"))
		return;
	slot = ordsched_ring_slot(&view, k1);
	bp_set(&w.bps[0], view.tail, false, 6);
	call_start(&w, &a, k1, false);
	step = bp_reached(&w.bps[0], "W after its flag loop");
	printf("# slot %llx\n", (unsigned long long)*slot);
	x = ordsched_trash(&a, k1);
	bp_set(&m.bps[0], slot, false, 1);
	call_start(&m, &b, k0, true);
	step = step && bp_reached(&m.bps[0], "B after its tail move");
	bp_go(&w.bps[0]);
	pthread_join(w.thread, NULL);
	bp_go(&m.bps[0]);
	pthread_join(m.thread, NULL);
	printf("# trash %d, W %d, B %d, tail %llu\n", x, w.ret, m.ret,
	       (unsigned long long)*view.tail);
	check(step && !x && w.ret == -EALREADY,
	      "lib_wait_replay.wait_returns_0_for_trashed",
	      "the wait answered 0 for a ticket trashed before its turn");
}

/*
 * One scenario a process (the mock kernel and the page start afresh):
 * ring_check.sh runs each by name.
 */
static const struct {
	const char *name;
	void (*run)(void);
} scenarios[] = {
	{ "turn_taken_back_while_flag_raised", turn_taken_back_while_flag_raised },
	{ "reflag_after_turn_erased_by_late_free",
	  reflag_after_turn_erased_by_late_free },
	{ "wait_returns_0_for_trashed", wait_returns_0_for_trashed },
};

int main(int argc, char **argv)
{
	unsigned int i, n = sizeof(scenarios) / sizeof(scenarios[0]);

	setvbuf(stdout, NULL, _IOLBF, 0);
	view.head = &page[32];
	view.tail = &page[16];
	view.slots = &page[64];
	view.mask = SLOTS - 1;
	for (i = 0; i < SLOTS; i++)
		view.slots[ORDSCHED_RING_INDEX(i, SLOTS)] =
			ORDSCHED_RING_WORD(i, 0, ORDSCHED_RING_FREE);
	if (argc != 2) {
		for (i = 0; i < n; i++)
			printf("%s\n", scenarios[i].name);
		return 2;
	}
	for (i = 0; i < n; i++)
		if (!strcmp(argv[1], scenarios[i].name)) {
			scenarios[i].run();
			return failed;
		}
	fprintf(stderr, "lib_wait_replay: no scenario %s\n", argv[1]);
	return 2;
}
