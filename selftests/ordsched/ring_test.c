// SPDX-License-Identifier: GPL-2.0
/*
 * The shared ring of /dev/ordsched (uapi/linux/ordsched_ring.h): setup
 * and its negotiation, ordered commits by several threads through the
 * page (no system call when uncontended), the ioctl path and poll() in a
 * ring domain, a ring wait that sleeps and is woken (also while its
 * deadline passes, a signal comes or forged wake-ups dequeue it), a
 * participant SIGKILLed while holding a ticket, and a page scribbled on
 * at random:
 * no splat (run.sh judges the console), documented errnos only, at worst
 * its own domain stalls, and closing it recovers.
 *
 * The participants run module/ring_proto.h, the protocol the library
 * will run, with C11 seq_cst atomics as it asks.
 */
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "ring_util.h"
#include "kselftest_harness.h"

TEST(setup_negotiation)
{
	struct ordsched_ring_setup setup, again;
	const struct ordsched_ring_hdr *hdr;
	const struct ordsched_status *st;
	struct ordsched_api api;
	int fd, nh, busy, shared;
	long psz = getpagesize();
	struct ring r;
	void *p;
	__u64 t = 0;

	fd = dev_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, dev_api(fd, &api));
	ASSERT_TRUE(api.features & ORDSCHED_FEAT_RING);
	EXPECT_TRUE(api.ioctls & (1ULL << _IOC_NR(ORDSCHED_IOC_RING_SETUP)));
	EXPECT_TRUE(api.ioctls & (1ULL << _IOC_NR(ORDSCHED_IOC_RING_WAIT)));
	EXPECT_TRUE(api.ioctls & (1ULL << _IOC_NR(ORDSCHED_IOC_RING_WAKE)));

	/* Before setup: no ring page, no ring commands. */
	p = mmap(NULL, psz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, psz);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-EINVAL, ring_wait_raw(fd, 0, 0));
	EXPECT_EQ(-EINVAL, ring_wake_raw(fd, 0));

	memset(&setup, 0, sizeof(setup));
	setup.flags = 1;
	EXPECT_EQ(-EINVAL, dev_ioctl(fd, ORDSCHED_IOC_RING_SETUP, &setup));
	memset(&setup, 0, sizeof(setup));
	setup.reserved[2] = 1;
	EXPECT_EQ(-EINVAL, dev_ioctl(fd, ORDSCHED_IOC_RING_SETUP, &setup));

	ASSERT_EQ(0, ring_open(fd, &r));
	EXPECT_NE(0, r.id);
	EXPECT_EQ(psz, r.setup.mmap_offset);
	EXPECT_EQ(psz, r.setup.size);
	EXPECT_LE(64, r.setup.slots);
	EXPECT_EQ(0, r.setup.slots & (r.setup.slots - 1));
	EXPECT_GE(psz, r.setup.slots_offset + 8 * r.setup.slots);

	/* The header, and the status page that is the same page. */
	hdr = (const void *)((const char *)r.page + ORDSCHED_RING_HDR_OFFSET);
	EXPECT_EQ(ORDSCHED_RING_VERSION, hdr->version);
	EXPECT_EQ(r.setup.size, hdr->size);
	EXPECT_EQ(r.setup.slots, hdr->slots);
	EXPECT_EQ(r.setup.head_offset, hdr->head_offset);
	EXPECT_EQ(r.setup.tail_offset, hdr->tail_offset);
	EXPECT_EQ(r.setup.slots_offset, hdr->slots_offset);
	st = dev_map(fd);
	ASSERT_NE(MAP_FAILED, st);
	EXPECT_EQ(r.setup.tail_offset, st->tail_offset);
	EXPECT_EQ(r.setup.head_offset, st->head_offset);
	EXPECT_EQ(r.setup.slots, st->window);
	EXPECT_TRUE(st->features & ORDSCHED_FEAT_RING);
	/* Ticket t's slot is FREE(t), consecutive tickets a stride apart. */
	EXPECT_EQ(ORDSCHED_RING_WORD(0, 0, ORDSCHED_RING_FREE), r.v.slots[0]);
	EXPECT_EQ(ORDSCHED_RING_WORD(1, 0, ORDSCHED_RING_FREE),
		  r.v.slots[ORDSCHED_RING_STRIDE]);
	EXPECT_EQ(ORDSCHED_RING_WORD(5, 0, ORDSCHED_RING_FREE),
		  r.v.slots[ORDSCHED_RING_INDEX(5, r.setup.slots)]);

	/* Offset 0 stays read-only; the ring page is shared only. */
	p = mmap(NULL, psz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EPERM, errno);
	p = mmap(NULL, psz, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, psz);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);

	/* Again: the same id. Another handle: another id. */
	ASSERT_EQ(0, ring_setup(fd, &again));
	EXPECT_EQ(r.id, again.id);
	nh = dev_new_handle(fd, ORDSCHED_HANDLE_CLOEXEC);
	ASSERT_LE(0, nh);
	ASSERT_EQ(0, ring_setup(nh, &again));
	EXPECT_NE(0, again.id);
	EXPECT_NE(r.id, again.id);

	/* A ring domain takes one ticket a command. */
	EXPECT_EQ(-EINVAL, dev_take(nh, 2, &t));
	EXPECT_EQ(0, dev_take(nh, 1, &t));
	EXPECT_EQ(0, t);
	EXPECT_EQ(1, dev_head(st));

	/* Too late: a ticket handed out, or a second handle. */
	busy = dev_open();
	ASSERT_LE(0, busy);
	ASSERT_EQ(0, dev_take(busy, 1, &t));
	EXPECT_EQ(-EBUSY, ring_setup(busy, &setup));
	shared = dev_open();
	ASSERT_LE(0, shared);
	nh = dev_new_handle(shared, ORDSCHED_HANDLE_CLOEXEC);
	ASSERT_LE(0, nh);
	EXPECT_EQ(-EBUSY, ring_setup(shared, &setup));
	EXPECT_EQ(-EBUSY, ring_setup(nh, &setup));
	/* And those domains still work the old way. */
	EXPECT_EQ(0, dev_complete(busy, 0, 1));
	EXPECT_EQ(0, dev_take(nh, 2, &t));

	munmap((void *)st, psz);
	ring_close(&r);
	close(nh);
	close(shared);
	close(busy);
	close(fd);
}

/* One page: the ring mapping, the status page, a forked child's copy. */
TEST(mapping_is_the_page)
{
	const void *st;
	struct ring r;
	int fd, status;
	pid_t pid;
	__u64 t;

	fd = dev_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ring_open(fd, &r));
	st = dev_map(fd);
	ASSERT_NE(MAP_FAILED, st);
	ASSERT_EQ(0, ordsched_ring_take(&r.v, r.id, &t));
	EXPECT_EQ(1, dev_head(st));
	/* Dropped pages come back: the same page, not a zeroed one. */
	ASSERT_EQ(0, madvise(r.page, r.setup.size, MADV_DONTNEED));
	EXPECT_EQ(1, ring_load(r.v.head));
	EXPECT_EQ(ORDSCHED_RING_OWNED, word_state(&r, 0));
	/* A child writes through its inherited mapping; we see it. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(ordsched_ring_complete(&r.v, r.id, 0, &r.ctx) ? 1 : 0);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(1, dev_tail(st));
	/* Closing the handle leaves the mapping usable, if useless. */
	close(fd);
	EXPECT_EQ(1, ring_load(r.v.tail));
	munmap((void *)st, getpagesize());
	ring_close(&r);
}

/*
 * ring_proto.h, __ordsched_ring_wait(): at the turn the flag is taken
 * back, "unless @keep", for a ticket whose flag must stay for its life.
 * A wait that flags its slot and then finds the turn (spins 0, the tail
 * already there) shows both without a sleep.
 */
TEST(wait_keep_leaves_the_flag)
{
	struct ring r;
	__u64 t;
	int fd;

	fd = dev_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ring_open(fd, &r));
	ASSERT_EQ(0, ordsched_ring_take(&r.v, r.id, &t));
	ASSERT_EQ(0, __ordsched_ring_wait(&r.v, r.id, t, 0, true, &r.ctx));
	EXPECT_EQ(ORDSCHED_RING_WORD(t, r.id, ORDSCHED_RING_SLEEPING),
		  ring_load(ordsched_ring_slot(&r.v, t)));
	EXPECT_EQ(0, ordsched_ring_complete(&r.v, r.id, t, &r.ctx));
	ASSERT_EQ(0, ordsched_ring_take(&r.v, r.id, &t));
	ASSERT_EQ(0, __ordsched_ring_wait(&r.v, r.id, t, 0, false, &r.ctx));
	EXPECT_EQ(ORDSCHED_RING_WORD(t, r.id, ORDSCHED_RING_OWNED),
		  ring_load(ordsched_ring_slot(&r.v, t)));
	EXPECT_EQ(0, ordsched_ring_complete(&r.v, r.id, t, &r.ctx));
	EXPECT_EQ(2, ring_load(r.v.tail));
	ring_close(&r);
	close(fd);
}

/* Old commands and poll() in a ring domain, mixed with ring participants. */
TEST(ioctl_path)
{
	struct ordsched_stats stats;
	struct pollfd pfd;
	struct ring a;
	int fa, fb;
	__u64 t = 0;

	fa = dev_open();
	ASSERT_LE(0, fa);
	ASSERT_EQ(0, ring_open(fa, &a));
	fb = dev_new_handle(fa, ORDSCHED_HANDLE_CLOEXEC);
	ASSERT_LE(0, fb);

	ASSERT_EQ(0, dev_take(fb, 1, &t));
	ASSERT_EQ(0, t);
	/* Taken by the ioctl path: flagged for a wake-up for good. */
	EXPECT_EQ(ORDSCHED_RING_SLEEPING, word_state(&a, 0));
	ASSERT_EQ(0, ordsched_ring_take(&a.v, a.id, &t));
	ASSERT_EQ(1, t);
	EXPECT_EQ(2, ring_load(a.v.head));

	pfd = (struct pollfd){ .fd = fb, .events = POLLIN };
	EXPECT_EQ(1, poll(&pfd, 1, 0));
	pfd.fd = fa;
	EXPECT_EQ(0, poll(&pfd, 1, 0));

	EXPECT_EQ(0, dev_wait(fb, 0, now_ns() + SEC));
	EXPECT_EQ(-ETIMEDOUT, dev_wait(fa, 1, now_ns() + 20 * MS));
	EXPECT_EQ(-EPERM, dev_wait(fb, 1, now_ns() + 20 * MS));
	EXPECT_EQ(-EINVAL, dev_wait(fb, 7, 0));
	EXPECT_EQ(-EPERM, dev_complete(fb, 1, 1));
	EXPECT_EQ(-EINVAL, dev_complete(fb, 9, 1));
	EXPECT_EQ(0, dev_complete(fb, 0, 1));
	EXPECT_EQ(-EALREADY, dev_complete(fb, 0, 1));
	EXPECT_EQ(1, ring_load(a.v.tail));

	/* a's ticket 1 was flagged by its ioctl wait: poll on a sees it. */
	pfd.fd = fa;
	EXPECT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_EQ(0, ordsched_ring_complete(&a.v, a.id, 1, &a.ctx));
	EXPECT_EQ(2, ring_load(a.v.tail));

	/* Trash early, then complete: the tail passes both. */
	ASSERT_EQ(0, dev_take(fb, 1, &t));
	ASSERT_EQ(2, t);
	ASSERT_EQ(0, dev_take(fb, 1, &t));
	ASSERT_EQ(3, t);
	EXPECT_EQ(0, dev_trash(fb, 3, 1));
	EXPECT_EQ(2, ring_load(a.v.tail));
	EXPECT_EQ(0, dev_complete_wait(fb, 2, ORDSCHED_NO_TICKET, 0));
	EXPECT_EQ(4, ring_load(a.v.tail));

	ASSERT_EQ(0, dev_stats(fb, &stats));
	EXPECT_EQ(4, stats.tail);
	EXPECT_EQ(4, stats.head);
	EXPECT_EQ(3, stats.taken);
	EXPECT_EQ(0, stats.held);
	EXPECT_EQ(2, stats.handles);

	ring_close(&a);
	close(fb);
	close(fa);
}

/*
 * The commands of a ring domain for tickets never handed out that a slot
 * word cannot tell from a held one (it keeps the ticket modulo 2^46):
 * EINVAL, and nothing changes.
 */
TEST(ioctl_aliases)
{
	const __u64 bad[] = { 1ULL << 46, (1ULL << 46) + 1, ~0ULL, ~0ULL - 100 };
	struct ordsched_stats st;
	struct ring a;
	unsigned int i;
	int fa, fb;
	__u64 t;

	fa = dev_open();
	ASSERT_LE(0, fa);
	ASSERT_EQ(0, ring_open(fa, &a));
	fb = dev_new_handle(fa, ORDSCHED_HANDLE_CLOEXEC);
	ASSERT_LE(0, fb);
	/* Tickets 0 and 1, held through the ioctls. */
	ASSERT_EQ(0, dev_take(fb, 1, &t));
	ASSERT_EQ(0, dev_take(fb, 1, &t));
	ASSERT_EQ(1, t);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(-EINVAL, dev_wait(fb, bad[i], now_ns() + 20 * MS));
		EXPECT_EQ(-EINVAL, ring_wait_raw(fb, bad[i], now_ns() + 20 * MS));
		EXPECT_EQ(-EINVAL, dev_complete(fb, bad[i], 1));
		EXPECT_EQ(-EINVAL, dev_trash(fb, bad[i], 1));
		/* ~0 there is ORDSCHED_NO_TICKET: nothing to complete. */
		if (bad[i] != ORDSCHED_NO_TICKET)
			EXPECT_EQ(-EINVAL, dev_complete_wait(fb, bad[i], 1, 0));
	}
	EXPECT_EQ(0, ring_load(a.v.tail));
	EXPECT_EQ(2, ring_load(a.v.head));
	ASSERT_EQ(0, dev_stats(fb, &st));
	EXPECT_EQ(2, st.held);
	EXPECT_EQ(0, st.completed);
	EXPECT_EQ(0, st.trashed);
	EXPECT_EQ(0, dev_complete(fb, 0, 2));
	EXPECT_EQ(2, ring_load(a.v.tail));
	ring_close(&a);
	close(fb);
	close(fa);
}

/* One thread, many tickets: take, turn, complete, no system call. */
TEST(uncontended_no_syscalls)
{
	struct ordsched_stats stats;
	struct ring r;
	__u64 t, i;
	int fd;

	fd = dev_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ring_open(fd, &r));
	__atomic_store_n(&ring_syscalls, 0, __ATOMIC_SEQ_CST);
	for (i = 0; i < 20000; i++) {
		ASSERT_EQ(0, ordsched_ring_take(&r.v, r.id, &t));
		ASSERT_EQ(i, t);
		ASSERT_EQ(0, ordsched_ring_wait(&r.v, r.id, t, 10, &r.ctx));
		ASSERT_EQ(0, ordsched_ring_complete(&r.v, r.id, t, &r.ctx));
	}
	EXPECT_EQ(0, ring_syscalls);
	ASSERT_EQ(0, dev_stats(fd, &stats));
	EXPECT_EQ(20000, stats.tail);
	EXPECT_EQ(20000, stats.head);
	EXPECT_EQ(0, stats.taken);
	EXPECT_EQ(0, stats.waits);
	ring_close(&r);
	close(fd);
}

#define THREADS	4
#define ROUNDS	2000

struct committer {
	int fd;
	unsigned int spins;
	pthread_barrier_t *start;
	__u64 *next;
	__u64 *log;
	int errors;
};

/* Take, wait for the turn, do the ordered step, complete; ROUNDS times. */
static void *commit_loop(void *arg)
{
	struct committer *c = arg;
	struct ring r;
	int i, ret;
	__u64 t = 0;

	if (ring_open(c->fd, &r)) {
		c->errors++;
		return NULL;
	}
	r.ctx.deadline_ns = now_ns() + 120 * SEC;
	pthread_barrier_wait(c->start);
	for (i = 0; i < ROUNDS; i++) {
		while ((ret = ordsched_ring_take(&r.v, r.id, &t)) == -EAGAIN)
			sched_yield();
		if (ret) {
			c->errors++;
			break;
		}
		/* Some threads go to sleep at once: the kernel's path. */
		ret = ordsched_ring_wait(&r.v, r.id, t, c->spins, &r.ctx);
		if (ret) {
			c->errors++;
			break;
		}
		/* The ordered step: nobody else runs it now. */
		if (*c->next != t)
			c->errors++;
		c->log[t] = (__u64)c->fd;
		*c->next = t + 1;
		if (i % 16 == 0)
			sched_yield();
		if (ordsched_ring_complete(&r.v, r.id, t, &r.ctx))
			c->errors++;
	}
	ring_close(&r);
	return NULL;
}

TEST(ordered_commit_threads)
{
	struct committer c[THREADS];
	pthread_barrier_t start;
	pthread_t th[THREADS];
	struct ordsched_stats stats;
	struct ring r;
	__u64 next = 0, *log;
	int fd, i;

	log = calloc(THREADS * ROUNDS, sizeof(*log));
	ASSERT_NE(NULL, log);
	fd = dev_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ring_open(fd, &r));
	ASSERT_EQ(0, pthread_barrier_init(&start, NULL, THREADS));
	for (i = 0; i < THREADS; i++) {
		c[i] = (struct committer){ .next = &next, .log = log,
					   .start = &start,
					   .spins = i % 2 ? 0 : 200 };
		c[i].fd = dev_new_handle(fd, ORDSCHED_HANDLE_CLOEXEC);
		ASSERT_LE(0, c[i].fd);
	}
	__atomic_store_n(&ring_syscalls, 0, __ATOMIC_SEQ_CST);
	for (i = 0; i < THREADS; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, commit_loop, &c[i]));
	for (i = 0; i < THREADS; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(0, c[i].errors);
	}
	EXPECT_EQ(THREADS * ROUNDS, next);
	for (i = 0; i < THREADS * ROUNDS; i++)
		if (!log[i])
			break;
	EXPECT_EQ(THREADS * ROUNDS, i);
	ASSERT_EQ(0, dev_stats(fd, &stats));
	EXPECT_EQ(THREADS * ROUNDS, stats.tail);
	EXPECT_EQ(THREADS * ROUNDS, stats.head);
	/* Not one ticket through the ioctl path. */
	EXPECT_EQ(0, stats.taken);
	EXPECT_EQ(0, stats.timeouts);
	pthread_barrier_destroy(&start);
	ksft_print_msg("%d tickets, %llu system calls (wakes and sleeps)\n",
		       THREADS * ROUNDS, (unsigned long long)ring_syscalls);
	for (i = 0; i < THREADS; i++)
		close(c[i].fd);
	ring_close(&r);
	close(fd);
	free(log);
}

struct sleeper {
	struct ring *r;
	__u64 ticket;
	__u64 deadline_ns;
	/* When the wait returned: a lost wake-up returns at the deadline. */
	__u64 end_ns;
	int ret;
	bool done;
};

/* Woken (or ended) well before its deadline of 60 s on: not timed out. */
#define SLEEPER_WOKEN(s)	((s).end_ns + 30 * SEC < (s).deadline_ns)

/* Flag the slot SLEEPING, then RING_WAIT: the library's slow path. */
static void *sleep_on(void *arg)
{
	struct sleeper *s = arg;
	__u64 *slot = ordsched_ring_slot(&s->r->v, s->ticket);

	ring_cas(slot, ordsched_ring_word(s->ticket, s->r->id,
					  ORDSCHED_RING_OWNED),
		 ordsched_ring_word(s->ticket, s->r->id,
				    ORDSCHED_RING_SLEEPING));
	s->ret = ring_wait_raw(s->r->fd, s->ticket, s->deadline_ns);
	s->end_ns = now_ns();
	__atomic_store_n(&s->done, true, __ATOMIC_SEQ_CST);
	return NULL;
}

static void on_signal(int sig)
{
}

TEST(wait_sleeps_and_is_woken)
{
	struct ordsched_stats stats;
	struct sigaction sa = { .sa_handler = on_signal };
	struct sleeper s;
	struct ring a, b;
	struct pollfd pfd;
	int fa, fb;
	pthread_t th;
	__u64 t, t0, waits;

	fa = dev_open();
	ASSERT_LE(0, fa);
	ASSERT_EQ(0, ring_open(fa, &a));
	fb = dev_new_handle(fa, ORDSCHED_HANDLE_CLOEXEC);
	ASSERT_LE(0, fb);
	ASSERT_EQ(0, ring_open(fb, &b));
	ASSERT_EQ(0, ordsched_ring_take(&a.v, a.id, &t));
	ASSERT_EQ(0, t);
	ASSERT_EQ(0, ordsched_ring_take(&b.v, b.id, &t));
	ASSERT_EQ(1, t);

	/* The errnos of RING_WAIT. */
	EXPECT_EQ(-EPERM, ring_wait_raw(fb, 0, 0));
	EXPECT_EQ(-EINVAL, ring_wait_raw(fb, 2, 0));
	t0 = now_ns();
	EXPECT_EQ(-ETIMEDOUT, ring_wait_raw(fb, 1, t0 + 50 * MS));
	EXPECT_LE(50 * MS, now_ns() - t0);
	EXPECT_EQ(0, ring_wait_raw(fa, 0, 0));

	/*
	 * b sleeps on 1 until a completes 0. The kernel counts a wait once
	 * its thread is queued and about to sleep, after the flag: waiting
	 * for the count, not for a time, the completion always finds b's
	 * flag (a slow guest's thread may take longer than any sleep).
	 */
	ASSERT_EQ(0, dev_stats(fa, &stats));
	waits = stats.waits;
	s = (struct sleeper){ .r = &b, .ticket = 1,
			      .deadline_ns = now_ns() + 60 * SEC };
	ASSERT_EQ(0, pthread_create(&th, NULL, sleep_on, &s));
	ASSERT_EQ(0, dev_waits_reach(fa, ++waits, 60, &stats));
	usleep(50 * 1000);
	EXPECT_FALSE(__atomic_load_n(&s.done, __ATOMIC_SEQ_CST));
	/* poll() on b: not b's turn yet. */
	pfd = (struct pollfd){ .fd = fb, .events = POLLIN };
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	__atomic_store_n(&ring_syscalls, 0, __ATOMIC_SEQ_CST);
	EXPECT_EQ(0, ordsched_ring_complete(&a.v, a.id, 0, &a.ctx));
	/* The mover saw the flag and woke b: one system call. */
	EXPECT_EQ(1, ring_syscalls);
	pthread_join(th, NULL);
	EXPECT_EQ(0, s.ret);
	EXPECT_TRUE(SLEEPER_WOKEN(s));
	EXPECT_EQ(1, poll(&pfd, 1, 0));

	/* A signal interrupts the sleep (no SA_RESTART). */
	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	ASSERT_EQ(0, ordsched_ring_take(&a.v, a.id, &t));
	ASSERT_EQ(2, t);
	s = (struct sleeper){ .r = &a, .ticket = 2,
			      .deadline_ns = now_ns() + 60 * SEC };
	ASSERT_EQ(0, pthread_create(&th, NULL, sleep_on, &s));
	/* Counted, it is past its look at the turn: the signal wakes it. */
	ASSERT_EQ(0, dev_waits_reach(fa, ++waits, 60, &stats));
	pthread_kill(th, SIGUSR1);
	pthread_join(th, NULL);
	EXPECT_EQ(-EINTR, s.ret);

	/* Retired while waited for: EALREADY. */
	s = (struct sleeper){ .r = &a, .ticket = 2,
			      .deadline_ns = now_ns() + 60 * SEC };
	ASSERT_EQ(0, pthread_create(&th, NULL, sleep_on, &s));
	ASSERT_EQ(0, dev_waits_reach(fa, ++waits, 60, &stats));
	EXPECT_EQ(0, ordsched_ring_retire(&a.v, a.id, 2, &a.ctx));
	pthread_join(th, NULL);
	EXPECT_EQ(-EALREADY, s.ret);
	EXPECT_TRUE(SLEEPER_WOKEN(s));

	ASSERT_EQ(0, dev_stats(fa, &stats));
	EXPECT_LE(3, stats.waits);
	EXPECT_LE(1, stats.wakeups);
	EXPECT_LE(1, stats.interrupts);
	EXPECT_LE(1, stats.timeouts);

	ring_close(&b);
	ring_close(&a);
	close(fb);
	close(fa);
}

/*
 * The wake-up at ticket 1's turn also wakes the sleeper of ticket 2, ahead
 * of its turn: it must not return before the turn, and must still be woken
 * at it after it went back to sleep.
 */
TEST(wake_ahead)
{
	struct ordsched_stats stats;
	struct sleeper s1, s2;
	pthread_t th1, th2;
	__u64 t, wakeups;
	struct ring a;
	int fa, i;

	fa = dev_open();
	ASSERT_LE(0, fa);
	ASSERT_EQ(0, ring_open(fa, &a));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, ordsched_ring_take(&a.v, a.id, &t));
		ASSERT_EQ(i, t);
	}
	s1 = (struct sleeper){ .r = &a, .ticket = 1,
			       .deadline_ns = now_ns() + 20 * SEC };
	s2 = (struct sleeper){ .r = &a, .ticket = 2,
			       .deadline_ns = now_ns() + 20 * SEC };
	ASSERT_EQ(0, pthread_create(&th1, NULL, sleep_on, &s1));
	ASSERT_EQ(0, pthread_create(&th2, NULL, sleep_on, &s2));
	ASSERT_EQ(0, dev_waits_reach(fa, 2, 10, &stats));
	wakeups = stats.wakeups;

	/* The mover onto 1 enters the kernel once: both are woken. */
	__atomic_store_n(&ring_syscalls, 0, __ATOMIC_SEQ_CST);
	EXPECT_EQ(0, ordsched_ring_complete(&a.v, a.id, 0, &a.ctx));
	EXPECT_EQ(1, ring_syscalls);
	pthread_join(th1, NULL);
	EXPECT_EQ(0, s1.ret);
	/* As the library does after the wait: the flag taken back. */
	EXPECT_TRUE(ring_cas(ordsched_ring_slot(&a.v, 1),
			     ordsched_ring_word(1, a.id, ORDSCHED_RING_SLEEPING),
			     ordsched_ring_word(1, a.id, ORDSCHED_RING_OWNED)));
	ASSERT_EQ(0, dev_stats(fa, &stats));
	EXPECT_EQ(wakeups + 2, stats.wakeups);

	/* Far longer than the spin: 2 is asleep again, and not back. */
	usleep(300 * 1000);
	EXPECT_FALSE(__atomic_load_n(&s2.done, __ATOMIC_SEQ_CST));
	ASSERT_EQ(0, dev_stats(fa, &stats));
	EXPECT_EQ(1, stats.tail);
	EXPECT_EQ(2, stats.waits);

	/* Its flag kept: the mover onto 2 wakes it, at its turn. */
	__atomic_store_n(&ring_syscalls, 0, __ATOMIC_SEQ_CST);
	EXPECT_EQ(0, ordsched_ring_complete(&a.v, a.id, 1, &a.ctx));
	EXPECT_EQ(1, ring_syscalls);
	pthread_join(th2, NULL);
	EXPECT_EQ(0, s2.ret);
	ASSERT_EQ(0, dev_stats(fa, &stats));
	EXPECT_EQ(wakeups + 3, stats.wakeups);
	EXPECT_EQ(0, stats.timeouts);
	EXPECT_EQ(0, ordsched_ring_complete(&a.v, a.id, 2, &a.ctx));

	ring_close(&a);
	close(fa);
}

/* The kernel releases a killed participant's tickets, sleeping or not. */
TEST(killed_holder_is_released)
{
	struct ordsched_stats stats;
	int fa, fb, pipefd[2], status, round;
	__u64 t = 0, mine = 0, end, waits;
	struct ring a;
	pid_t pid;
	char c;

	fa = dev_open();
	ASSERT_LE(0, fa);
	ASSERT_EQ(0, ring_open(fa, &a));
	a.ctx.deadline_ns = now_ns() + 30 * SEC;
	for (round = 0; round < 2; round++) {
		fb = dev_new_handle(fa, ORDSCHED_HANDLE_CLOEXEC);
		ASSERT_LE(0, fb);
		ASSERT_EQ(0, pipe(pipefd));
		/* Round 1: ours first, so that the child sleeps on its own. */
		if (round)
			ASSERT_EQ(0, ordsched_ring_take(&a.v, a.id, &mine));
		ASSERT_EQ(0, dev_stats(fa, &stats));
		waits = stats.waits;
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			struct ring b;

			if (ring_open(fb, &b) ||
			    ordsched_ring_take(&b.v, b.id, &t))
				_exit(1);
			if (write(pipefd[1], "x", 1) != 1)
				_exit(1);
			if (round)
				sleep_on(&(struct sleeper){
					.r = &b, .ticket = t,
					.deadline_ns = ORDSCHED_NO_DEADLINE });
			for (;;)
				pause();
		}
		close(fb);
		close(pipefd[1]);
		ASSERT_EQ(1, read(pipefd[0], &c, 1));
		close(pipefd[0]);
		if (!round) {
			/* Round 0: the child holds the turn, we wait. */
			ASSERT_EQ(0, ordsched_ring_take(&a.v, a.id, &mine));
			ASSERT_EQ(0, kill(pid, SIGKILL));
			EXPECT_EQ(0, ordsched_ring_wait(&a.v, a.id, mine, 100,
							&a.ctx));
			EXPECT_EQ(mine, ring_load(a.v.tail));
			EXPECT_EQ(0, ordsched_ring_complete(&a.v, a.id, mine,
							    &a.ctx));
			ASSERT_EQ(pid, waitpid(pid, &status, 0));
		} else {
			/* Round 1: killed asleep in RING_WAIT. */
			ASSERT_EQ(0, dev_waits_reach(fa, waits + 1, 60, &stats));
			EXPECT_EQ(ORDSCHED_RING_SLEEPING, word_state(&a, mine + 1));
			ASSERT_EQ(0, kill(pid, SIGKILL));
			ASSERT_EQ(pid, waitpid(pid, &status, 0));
			end = now_ns() + 5 * SEC;
			while (word_state(&a, mine + 1) != ORDSCHED_RING_RETIRED &&
			       now_ns() < end)
				usleep(10 * 1000);
			EXPECT_EQ(0, ordsched_ring_complete(&a.v, a.id, mine,
							    &a.ctx));
			EXPECT_EQ(mine + 2, ring_load(a.v.tail));
		}
		EXPECT_TRUE(WIFSIGNALED(status));
	}
	ASSERT_EQ(0, dev_stats(fa, &stats));
	EXPECT_EQ(2, stats.released);
	EXPECT_EQ(1, stats.handles);
	EXPECT_EQ(4, stats.tail);
	ring_close(&a);
	close(fa);
}

static bool scribbling;

static __u64 rnd(__u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Random words, or plausible ones, anywhere in the page. */
static void *scribble(void *arg)
{
	struct ring *r = arg;
	__u64 s = 88172645463325252ULL, words = r->setup.size / 8, x, w;

	while (__atomic_load_n(&scribbling, __ATOMIC_RELAXED)) {
		x = rnd(&s);
		switch (x % 4) {
		case 0:
			w = rnd(&s);
			break;
		case 1:
			w = ORDSCHED_RING_WORD(ring_load(r->v.tail) + x % 8,
					       x >> 20 & 3, x >> 8 & 3);
			break;
		case 2:
			w = ring_load(r->v.tail) + (x >> 8) % 5 - 2;
			break;
		default:
			w = ORDSCHED_RING_WORD(ring_load(r->v.head) - x % 300,
					       0, ORDSCHED_RING_RETIRED);
			break;
		}
		__atomic_store_n(&r->page[(x >> 32) % words], w,
				 __ATOMIC_RELAXED);
	}
	return NULL;
}

static bool documented(int ret)
{
	return ret >= 0 || ret == -EAGAIN || ret == -EIO || ret == -EINVAL ||
	       ret == -EALREADY || ret == -EPERM || ret == -ETIMEDOUT;
}

TEST(scribbled_page)
{
	struct ordsched_stats stats;
	struct ring a, other;
	struct pollfd pfd;
	int fa, fb, fo, fn, ret, bad = 0;
	__u64 s = 12345, t, end, x, ops = 0;
	pthread_t th;

	fa = dev_open();
	ASSERT_LE(0, fa);
	ASSERT_EQ(0, ring_open(fa, &a));
	fb = dev_new_handle(fa, ORDSCHED_HANDLE_CLOEXEC);
	ASSERT_LE(0, fb);
	/* Another ring domain, which must not notice. */
	fo = dev_open();
	ASSERT_LE(0, fo);
	ASSERT_EQ(0, ring_open(fo, &other));

	__atomic_store_n(&scribbling, true, __ATOMIC_SEQ_CST);
	ASSERT_EQ(0, pthread_create(&th, NULL, scribble, &a));
	end = now_ns() + 3 * SEC;
	while (now_ns() < end) {
		x = rnd(&s);
		t = ring_load(a.v.tail) + x % 6 - 1;
		switch ((x >> 8) % 9) {
		case 0:
			ret = dev_take(fb, 1, &t);
			break;
		case 1:
			ret = dev_complete(fb, t, 1 + (x >> 16) % 3);
			break;
		case 2:
			ret = dev_trash(fb, t, 1);
			break;
		case 3:
			ret = dev_wait(fb, t, now_ns() + MS);
			break;
		case 4:
			ret = ring_wait_raw(fa, t, now_ns() + MS);
			break;
		case 5:
			ret = ring_wake_raw(fa, t);
			break;
		case 6:
			pfd = (struct pollfd){ .fd = fb, .events = POLLIN };
			ret = poll(&pfd, 1, 0);
			break;
		case 7:
			ret = dev_stats(fb, &stats);
			break;
		default:
			/* A handle released over the scribbled page. */
			fn = dev_new_handle(fa, ORDSCHED_HANDLE_CLOEXEC);
			ret = fn < 0 ? fn : dev_take(fn, 1, &t);
			if (fn >= 0)
				close(fn);
			break;
		}
		if (!documented(ret)) {
			if (!bad++)
				ksft_print_msg("op %llu answered %d\n",
					       (unsigned long long)(x >> 8) % 9,
					       ret);
		}
		ops++;
		/* The other domain goes on as if nothing happened. */
		if (ops % 64 == 0) {
			if (ordsched_ring_take(&other.v, other.id, &t) ||
			    ordsched_ring_wait(&other.v, other.id, t, 0,
					       &other.ctx) ||
			    ordsched_ring_complete(&other.v, other.id, t,
						   &other.ctx))
				bad++;
		}
	}
	__atomic_store_n(&scribbling, false, __ATOMIC_SEQ_CST);
	pthread_join(th, NULL);
	ksft_print_msg("%llu commands on the scribbled domain\n",
		       (unsigned long long)ops);
	EXPECT_EQ(0, bad);

	/* Closing the scribbled domain recovers: a new one works. */
	ring_close(&a);
	close(fb);
	close(fa);
	fa = dev_open();
	ASSERT_LE(0, fa);
	ASSERT_EQ(0, ring_open(fa, &a));
	ASSERT_EQ(0, ordsched_ring_take(&a.v, a.id, &t));
	EXPECT_EQ(0, t);
	EXPECT_EQ(0, ordsched_ring_wait(&a.v, a.id, t, 0, &a.ctx));
	EXPECT_EQ(0, ordsched_ring_complete(&a.v, a.id, t, &a.ctx));
	ASSERT_EQ(0, dev_stats(fo, &stats));
	EXPECT_EQ(stats.head, stats.tail);
	ring_close(&a);
	ring_close(&other);
	close(fa);
	close(fo);
}

/*
 * A handle that dies holding more tickets at the tail than one advance
 * may move: its release moves the tail as far as the budget allows and
 * the work item the rest, counted in stats.deferred.
 */
TEST(deferred_advance)
{
	struct ordsched_stats stats;
	struct ring a, b;
	int fa, fb, i, n;
	__u64 t, end;

	fa = dev_open();
	ASSERT_LE(0, fa);
	ASSERT_EQ(0, ring_open(fa, &a));
	fb = dev_new_handle(fa, ORDSCHED_HANDLE_CLOEXEC);
	ASSERT_LE(0, fb);
	ASSERT_EQ(0, ring_open(fb, &b));
	/* Three quarters of the window: more than any budget of a call. */
	n = a.setup.slots * 3 / 4;
	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, ordsched_ring_take(&b.v, b.id, &t));
		ASSERT_EQ(i, t);
	}
	ASSERT_EQ(0, dev_stats(fa, &stats));
	EXPECT_EQ(0, stats.deferred);
	/* Released; its mapping stays and does not hold it. */
	close(fb);
	end = now_ns() + 5 * SEC;
	do {
		ASSERT_EQ(0, dev_stats(fa, &stats));
	} while (stats.tail != n && now_ns() < end && !usleep(1000));
	EXPECT_EQ(n, stats.tail);
	EXPECT_EQ(n, stats.released);
	EXPECT_LE(1, stats.deferred);
	ksft_print_msg("%d tickets released, %llu deferred advances\n", n,
		       (unsigned long long)stats.deferred);
	/* The domain goes on. */
	ASSERT_EQ(0, ordsched_ring_take(&a.v, a.id, &t));
	EXPECT_EQ(n, t);
	EXPECT_EQ(0, ordsched_ring_wait(&a.v, a.id, t, 0, &a.ctx));
	EXPECT_EQ(0, ordsched_ring_complete(&a.v, a.id, t, &a.ctx));
	ring_close(&b);
	ring_close(&a);
	close(fa);
}

/* Retire whatever ticket is at the tail, as fast as possible. */
static void *retire_ahead(void *arg)
{
	struct ring *r = arg;
	__u64 t;

	while (__atomic_load_n(&scribbling, __ATOMIC_RELAXED)) {
		t = ring_load(r->v.tail);
		__atomic_store_n(ordsched_ring_slot(&r->v, t),
				 ORDSCHED_RING_WORD(t, 0, ORDSCHED_RING_RETIRED),
				 __ATOMIC_SEQ_CST);
	}
	return NULL;
}

/*
 * A scribbler that keeps a retired word ahead of the tail makes every
 * advance run out of budget: the kernel hands the rest to its work item,
 * which yields between budgets and stops with the domain's last handle.
 */
TEST(endless_tail)
{
	struct ring a;
	int fa, fb, i;
	pthread_t th;
	__u64 t;

	fa = dev_open();
	ASSERT_LE(0, fa);
	ASSERT_EQ(0, ring_open(fa, &a));
	__atomic_store_n(&scribbling, true, __ATOMIC_SEQ_CST);
	ASSERT_EQ(0, pthread_create(&th, NULL, retire_ahead, &a));
	for (i = 0; i < 200; i++) {
		fb = dev_new_handle(fa, ORDSCHED_HANDLE_CLOEXEC);
		ASSERT_LE(0, fb);
		EXPECT_TRUE(documented(dev_take(fb, 1, &t)));
		EXPECT_TRUE(documented(dev_complete(fb, t, 1)));
		/* Released with the tail running away: budget, then work. */
		close(fb);
		if (i % 20 == 0)
			usleep(10 * 1000);
	}
	__atomic_store_n(&scribbling, false, __ATOMIC_SEQ_CST);
	pthread_join(th, NULL);
	ksft_print_msg("tail at %llu\n",
		       (unsigned long long)ring_load(a.v.tail));
	ring_close(&a);
	close(fa);
	/* The module must still serve: a fresh ring domain works. */
	fa = dev_open();
	ASSERT_LE(0, fa);
	ASSERT_EQ(0, ring_open(fa, &a));
	ASSERT_EQ(0, ordsched_ring_take(&a.v, a.id, &t));
	EXPECT_EQ(0, ordsched_ring_complete(&a.v, a.id, t, &a.ctx));
	ring_close(&a);
	close(fa);
}

/*
 * Keep every slot ahead of the tail retired, as fast as possible: ticket
 * after ticket, each retired (by a CAS from FREE) as soon as the kernel
 * has freed its slot for it, a lap after the last.
 */
static void *retire_window(void *arg)
{
	struct ring *r = arg;
	__u64 n = ring_load(r->v.tail) + 1, tail, w;

	while (__atomic_load_n(&scribbling, __ATOMIC_RELAXED)) {
		tail = ring_load(r->v.tail);
		if ((__s64)(n - tail) <= 0)
			n = tail + 1;
		/* A lap ahead: its slot still holds the last lap's word. */
		if (n - tail > r->v.mask)
			continue;
		w = ORDSCHED_RING_WORD(n, 0, ORDSCHED_RING_FREE);
		if (__atomic_compare_exchange_n(ordsched_ring_slot(&r->v, n),
				&w, ORDSCHED_RING_WORD(n, 0,
						       ORDSCHED_RING_RETIRED),
				false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED) ||
		    w == ORDSCHED_RING_WORD(n, 0, ORDSCHED_RING_RETIRED))
			n++;
	}
	return NULL;
}

/*
 * <linux/ordsched_ring.h>, trust model: the work item that goes on
 * advancing, once its runs in a row passed over every slot, takes "one
 * budget a millisecond". A scribbler keeps the ring retired ahead of the
 * tail, one retirement by ioctl starts the work item, which then
 * runs while the scribbler goes on. Over the half second measured it may
 * run the full-speed runs (slots / 64 + 1), then one a millisecond at
 * most (it sleeps at least that long first). Unpaced, it ran as fast as
 * it could, in a worker whose time no cgroup is charged for.
 */
TEST(scribbler_paced)
{
	struct ordsched_stats s0, s1;
	__u64 t, t0, t1, ms, fast, runs;
	cpu_set_t cpu;
	struct ring a;
	pthread_t th[2];
	int fa, fb, i;

	fa = dev_open();
	ASSERT_LE(0, fa);
	ASSERT_EQ(0, ring_open(fa, &a));
	fast = (a.v.mask + 1) / 64 + 1;
	fb = dev_new_handle(fa, ORDSCHED_HANDLE_CLOEXEC);
	ASSERT_LE(0, fb);
	/* Taken first: the scribbler retires free slots only. */
	ASSERT_EQ(0, dev_take(fb, 1, &t));
	/*
	 * One scribbler on each of two CPUs: a worker that keeps running
	 * work items keeps the scribbler of its CPU off it.
	 */
	__atomic_store_n(&scribbling, true, __ATOMIC_SEQ_CST);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, pthread_create(&th[i], NULL, retire_window, &a));
		CPU_ZERO(&cpu);
		CPU_SET(i, &cpu);
		pthread_setaffinity_np(th[i], sizeof(cpu), &cpu);
	}
	usleep(20 * 1000);
	ASSERT_EQ(0, dev_stats(fa, &s0));
	t0 = now_ns();
	EXPECT_TRUE(documented(dev_complete(fb, t, 1)));
	usleep(500 * 1000);
	ASSERT_EQ(0, dev_stats(fa, &s1));
	t1 = now_ns();
	__atomic_store_n(&scribbling, false, __ATOMIC_SEQ_CST);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	ms = (t1 - t0) / 1000000;
	runs = s1.deferred - s0.deferred;
	ksft_print_msg("%llu runs in %llu ms (full speed: %llu), tail at %llu\n",
		       (unsigned long long)runs, (unsigned long long)ms,
		       (unsigned long long)fast,
		       (unsigned long long)ring_load(a.v.tail));
	close(fb);
	ring_close(&a);
	close(fa);
	if (!runs)
		SKIP(return, "the retirement never ran out of its budget");
	EXPECT_LE(runs, fast + ms + 2);
}

/*
 * Completion at the turn moves the tail first and frees the slot after
 * (module/ring_proto.h). In between, the slot still holds its owner's
 * word behind the tail: every check must then say the ticket is done.
 * The window is opened by hand: the tail CAS of the turn, without the
 * free that follows it.
 */
TEST(turn_handover)
{
	struct ordsched_stats stats;
	__u64 t, u, w, i, R, *slot;
	struct ring r;
	int fd;

	fd = dev_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ring_open(fd, &r));
	R = r.v.mask + 1;

	/* The whole turn: freed for the next lap, then done for everyone. */
	ASSERT_EQ(0, ordsched_ring_take(&r.v, r.id, &t));
	ASSERT_EQ(0, ordsched_ring_take(&r.v, r.id, &u));
	ASSERT_EQ(0, ordsched_ring_complete(&r.v, r.id, t, &r.ctx));
	EXPECT_EQ(u, ring_load(r.v.tail));
	EXPECT_EQ(ORDSCHED_RING_WORD(t + R, 0, ORDSCHED_RING_FREE),
		  ring_load(ordsched_ring_slot(&r.v, t)));
	EXPECT_EQ(-EALREADY, ordsched_ring_complete(&r.v, r.id, t, &r.ctx));
	EXPECT_EQ(-EALREADY, ordsched_ring_wait(&r.v, r.id, t, 0, &r.ctx));
	EXPECT_EQ(-EALREADY, dev_complete(fd, t, 1));

	/* The window: tail moved past u, its slot not freed yet. */
	slot = ordsched_ring_slot(&r.v, u);
	w = ring_load(slot);
	ASSERT_EQ(ORDSCHED_RING_WORD(u, r.id, ORDSCHED_RING_OWNED), w);
	ASSERT_TRUE(ring_cas(r.v.tail, u, u + 1));
	EXPECT_EQ(-EALREADY, ordsched_ring_check_live(&r.v, u, r.id));
	EXPECT_EQ(-EALREADY, ordsched_ring_wait(&r.v, r.id, u, 0, &r.ctx));
	/* The kernel's wait and commands neither sleep nor act on it. */
	EXPECT_EQ(-EALREADY, ring_wait_raw(fd, u, now_ns() + 5 * SEC));
	EXPECT_EQ(-EALREADY, dev_wait(fd, u, now_ns() + 5 * SEC));
	EXPECT_EQ(-EALREADY, dev_complete(fd, u, 1));
	ASSERT_EQ(0, dev_stats(fd, &stats));
	EXPECT_EQ(0, stats.held);
	/* The turn's free wins: the flag set by the waits is taken too. */
	EXPECT_EQ(0, ordsched_ring_free_turn(&r.v, r.id, u, w, &r.ctx));
	EXPECT_EQ(ORDSCHED_RING_WORD(u + R, 0, ORDSCHED_RING_FREE),
		  ring_load(slot));

	/* Race (d): another thread's retire wins, the free answers EALREADY. */
	ASSERT_EQ(0, ordsched_ring_take(&r.v, r.id, &t));
	slot = ordsched_ring_slot(&r.v, t);
	w = ring_load(slot);
	ASSERT_TRUE(ring_cas(r.v.tail, t, t + 1));
	EXPECT_EQ(0, ordsched_ring_retire(&r.v, r.id, t, &r.ctx));
	EXPECT_EQ(-EALREADY, ordsched_ring_free_turn(&r.v, r.id, t, w,
						     &r.ctx));
	EXPECT_EQ(ORDSCHED_RING_WORD(t + R, 0, ORDSCHED_RING_FREE),
		  ring_load(slot));

	/*
	 * A completer held up between its tail move and its free while the
	 * others go a lap round: the taker a lap on frees the slot itself
	 * (no EAGAIN), and the completer still answers 0.
	 */
	ASSERT_EQ(0, ordsched_ring_take(&r.v, r.id, &t));
	slot = ordsched_ring_slot(&r.v, t);
	w = ring_load(slot);
	ASSERT_TRUE(ring_cas(r.v.tail, t, t + 1));
	for (i = 0; i < R; i++) {
		ASSERT_EQ(0, ordsched_ring_take(&r.v, r.id, &u));
		ASSERT_EQ(0, ordsched_ring_complete(&r.v, r.id, u, &r.ctx));
	}
	EXPECT_EQ(t + R, u);
	EXPECT_EQ(0, ordsched_ring_free_turn(&r.v, r.id, t, w, &r.ctx));
	EXPECT_EQ(ORDSCHED_RING_WORD(t + 2 * R, 0, ORDSCHED_RING_FREE),
		  ring_load(slot));

	/* The next lap of every slot used here is taken as usual. */
	for (u = 0; u < 2 * R; u++) {
		ASSERT_EQ(0, ordsched_ring_take(&r.v, r.id, &t));
		ASSERT_EQ(0, ordsched_ring_complete(&r.v, r.id, t, &r.ctx));
	}
	ASSERT_EQ(0, dev_stats(fd, &stats));
	EXPECT_EQ(stats.head, stats.tail);
	EXPECT_EQ(0, stats.held);
	ring_close(&r);
	close(fd);
}

/*
 * A holder dies between the turn's tail move and the free: its release
 * trashes the word it left behind the tail, does not count it as a
 * released ticket (it was completed), and the next lap takes the slot.
 */
TEST(turn_death)
{
	struct ordsched_stats stats;
	int fa, fb, status;
	__u64 t, i, R, end;
	struct ring a;
	pid_t pid;

	fa = dev_open();
	ASSERT_LE(0, fa);
	ASSERT_EQ(0, ring_open(fa, &a));
	R = a.v.mask + 1;
	fb = dev_new_handle(fa, ORDSCHED_HANDLE_CLOEXEC);
	ASSERT_LE(0, fb);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct ring b;

		if (ring_open(fb, &b) || ordsched_ring_take(&b.v, b.id, &t) ||
		    !ring_cas(b.v.tail, t, t + 1))
			_exit(1);
		_exit(0);
	}
	close(fb);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	/* Released: no word of the dead id is left owned. */
	end = now_ns() + 5 * SEC;
	while (word_state(&a, 0) != ORDSCHED_RING_RETIRED && now_ns() < end)
		usleep(10 * 1000);
	EXPECT_EQ(ORDSCHED_RING_WORD(0, 0, ORDSCHED_RING_RETIRED),
		  ring_load(ordsched_ring_slot(&a.v, 0)));
	ASSERT_EQ(0, dev_stats(fa, &stats));
	EXPECT_EQ(0, stats.released);
	EXPECT_EQ(1, stats.tail);
	for (i = 0; i < R + 1; i++) {
		ASSERT_EQ(0, ordsched_ring_take(&a.v, a.id, &t));
		ASSERT_EQ(i + 1, t);
		ASSERT_EQ(0, ordsched_ring_complete(&a.v, a.id, t, &a.ctx));
	}
	EXPECT_EQ(ORDSCHED_RING_WORD(2 * R, 0, ORDSCHED_RING_FREE),
		  ring_load(ordsched_ring_slot(&a.v, 0)));
	ring_close(&a);
	close(fa);
}

struct turn_racer {
	struct ring *r;
	pthread_barrier_t *start;
	__u64 rounds;
	__u64 won;
	__u64 already;
	__u64 other;
};

/* Complete each round's ticket at its turn, against the other thread. */
static void *turn_racer_run(void *arg)
{
	struct turn_racer *tr = arg;
	__u64 t;
	int ret;

	for (t = 0; t < tr->rounds; t++) {
		pthread_barrier_wait(tr->start);
		ret = ordsched_ring_complete(&tr->r->v, tr->r->id, t,
					     &tr->r->ctx);
		if (!ret)
			tr->won++;
		else if (ret == -EALREADY)
			tr->already++;
		else
			tr->other++;
		pthread_barrier_wait(tr->start);
	}
	return NULL;
}

/*
 * Two threads of one handle complete the same ticket at its turn, one
 * round per ticket: each round exactly one is told 0 and the other
 * EALREADY, and the ring ends with every ticket passed and every slot
 * free for its next lap.
 */
TEST(turn_race)
{
	struct turn_racer tr[2] = {};
	pthread_barrier_t start;
	pthread_t th[2];
	__u64 t, i, R;
	struct ring r;
	int fd;

	fd = dev_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ring_open(fd, &r));
	R = r.v.mask + 1;
	ASSERT_EQ(0, pthread_barrier_init(&start, NULL, 3));
	for (i = 0; i < 2; i++) {
		tr[i].r = &r;
		tr[i].start = &start;
		tr[i].rounds = 3000;
		ASSERT_EQ(0, pthread_create(&th[i], NULL, turn_racer_run,
					    &tr[i]));
	}
	for (i = 0; i < tr[0].rounds; i++) {
		ASSERT_EQ(0, ordsched_ring_take(&r.v, r.id, &t));
		ASSERT_EQ(i, t);
		pthread_barrier_wait(&start);
		pthread_barrier_wait(&start);
	}
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	ksft_print_msg("won %llu/%llu, already %llu/%llu\n",
		       (unsigned long long)tr[0].won,
		       (unsigned long long)tr[1].won,
		       (unsigned long long)tr[0].already,
		       (unsigned long long)tr[1].already);
	EXPECT_EQ(tr[0].rounds, tr[0].won + tr[1].won);
	EXPECT_EQ(tr[0].rounds, tr[0].already + tr[1].already);
	EXPECT_EQ(0, tr[0].other + tr[1].other);
	EXPECT_EQ(tr[0].rounds, ring_load(r.v.tail));
	EXPECT_EQ(tr[0].rounds, ring_load(r.v.head));
	for (t = tr[0].rounds - R; t < tr[0].rounds; t++)
		EXPECT_EQ(ORDSCHED_RING_WORD(t + R, 0, ORDSCHED_RING_FREE),
			  ring_load(ordsched_ring_slot(&r.v, t)));
	pthread_barrier_destroy(&start);
	ring_close(&r);
	close(fd);
}


/*
 * The wake-up against the sleeper's other ways out. A waker dequeues the
 * sleeper it wakes (module/domain.c), and the sleeper then returns
 * without the domain lock; one that leaves for another reason dequeues
 * itself, unless a waker just did, or queues again after a wake-up that
 * was not for its turn. Per round: a sleeps on nothing, b's first thread
 * sleeps on t1 with a deadline of a few microseconds or is signalled
 * while a completes t0 (whose move of the tail wakes it), b's second
 * thread sleeps on t2 and gets forged wake-ups before its turn. Every
 * sleep must end at its turn (never early, never stalled: nothing left
 * linked, no wake-up lost for the next owner), no RING_WAIT may answer
 * anything but 0, ETIMEDOUT or EINTR (a waiter count that leaks fills
 * the handle's limit: EBUSY), and the counters must be exact.
 */
#define RACE_ROUNDS	1000

struct race;

/* What thread @i of a race is started with. */
struct race_arg {
	struct race *rc;
	int i;
};

struct race {
	struct ring *b;
	pthread_barrier_t *sync;
	pthread_t th[2];
	struct race_arg arg[2];
	__u64 t1;
	__u64 deadline_ns;
	__u64 calls, timeouts, interrupts;
	int bad;
	bool stop;
};

static int race_wait(struct race *rc, __u64 t, __u64 deadline_ns)
{
	int ret = ring_wait_raw(rc->b->fd, t, deadline_ns);

	__atomic_add_fetch(&rc->calls, 1, __ATOMIC_RELAXED);
	if (ret == -ETIMEDOUT)
		__atomic_add_fetch(&rc->timeouts, 1, __ATOMIC_RELAXED);
	else if (ret == -EINTR)
		__atomic_add_fetch(&rc->interrupts, 1, __ATOMIC_RELAXED);
	else if (ret)
		__atomic_store_n(&rc->bad, ret, __ATOMIC_RELAXED);
	return ret;
}

/* Thread @i of b sleeps on t1 + @i, then completes it at its turn. */
static void race_sleeper(struct race *rc, int i)
{
	struct ring *b = rc->b;
	__u64 t = rc->t1 + i;
	int ret;

	ring_cas(ordsched_ring_slot(&b->v, t),
		 ordsched_ring_word(t, b->id, ORDSCHED_RING_OWNED),
		 ordsched_ring_word(t, b->id, ORDSCHED_RING_SLEEPING));
	ret = race_wait(rc, t, i ? now_ns() + 10 * SEC : rc->deadline_ns);
	/*
	 * Its short deadline or a signal came first: the turn must still
	 * come, and wake us. A 10 s deadline that passes is a stall.
	 */
	if (!i && ret == -ETIMEDOUT)
		ret = -EINTR;
	while (ret == -EINTR)
		ret = race_wait(rc, t, now_ns() + 10 * SEC);
	/* Never early: a forged wake-up is not the turn. */
	if (!ret && ring_load(b->v.tail) != t)
		ret = -ENOTRECOVERABLE;
	if (!ret)
		ret = ordsched_ring_complete(&b->v, b->id, t, &b->ctx);
	if (ret)
		__atomic_store_n(&rc->bad, ret, __ATOMIC_RELAXED);
}

static void *race_run(void *arg)
{
	struct race_arg *a = arg;
	struct race *rc = a->rc;

	for (;;) {
		pthread_barrier_wait(rc->sync);
		if (rc->stop)
			return NULL;
		race_sleeper(rc, a->i);
		pthread_barrier_wait(rc->sync);
	}
}

TEST(wake_races_leave)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct ordsched_stats stats;
	pthread_barrier_t sync;
	struct race rc = {};
	struct ring a, b;
	__u64 t, i, n, t0;
	volatile unsigned int spin;
	int fa, fb;

	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	fa = dev_open();
	ASSERT_LE(0, fa);
	ASSERT_EQ(0, ring_open(fa, &a));
	fb = dev_new_handle(fa, ORDSCHED_HANDLE_CLOEXEC);
	ASSERT_LE(0, fb);
	ASSERT_EQ(0, ring_open(fb, &b));
	ASSERT_EQ(0, pthread_barrier_init(&sync, NULL, 3));
	rc.b = &b;
	rc.sync = &sync;
	for (i = 0; i < 2; i++) {
		rc.arg[i] = (struct race_arg){ .rc = &rc, .i = i };
		ASSERT_EQ(0, pthread_create(&rc.th[i], NULL, race_run,
					    &rc.arg[i]));
	}

	t0 = now_ns();
	for (i = 0; i < RACE_ROUNDS && !rc.bad; i++) {
		ASSERT_EQ(0, ordsched_ring_take(&a.v, a.id, &t));
		ASSERT_EQ(3 * i, t);
		ASSERT_EQ(0, ordsched_ring_take(&b.v, b.id, &rc.t1));
		ASSERT_EQ(0, ordsched_ring_take(&b.v, b.id, &t));
		rc.deadline_ns = now_ns() + (i % 8) * 15000;
		pthread_barrier_wait(&sync);
		for (spin = 0; spin < (i * 7919) % 20000; spin++)
			;
		if (i % 4 == 1)
			pthread_kill(rc.th[0], SIGUSR1);
		/* Forged: the second thread's ticket is not at the turn. */
		if (i % 4 == 3) {
			EXPECT_EQ(0, ring_wake_raw(fa, rc.t1 + 1));
			EXPECT_EQ(0, ring_wake_raw(fb, rc.t1 + 1));
		}
		EXPECT_EQ(0, ordsched_ring_complete(&a.v, a.id, 3 * i, &a.ctx));
		pthread_barrier_wait(&sync);
		EXPECT_EQ(3 * i + 3, ring_load(a.v.tail));
		/* Bounded, for a slow guest: the rounds done show. */
		if (now_ns() - t0 > 60 * SEC)
			break;
	}
	n = i;
	rc.stop = true;
	pthread_barrier_wait(&sync);
	pthread_join(rc.th[0], NULL);
	pthread_join(rc.th[1], NULL);
	ksft_print_msg("%llu rounds, %llu waits: %llu timed out, %llu interrupted\n",
		       (unsigned long long)n, (unsigned long long)rc.calls,
		       (unsigned long long)rc.timeouts,
		       (unsigned long long)rc.interrupts);
	EXPECT_EQ(0, rc.bad);
	ASSERT_EQ(0, dev_stats(fa, &stats));
	EXPECT_EQ(rc.timeouts, stats.timeouts);
	EXPECT_EQ(rc.interrupts, stats.interrupts);
	EXPECT_LE(rc.timeouts + rc.interrupts, stats.waits);
	EXPECT_GE(rc.calls, stats.waits);
	EXPECT_EQ(3 * n, ring_load(a.v.tail));

	pthread_barrier_destroy(&sync);
	ring_close(&b);
	ring_close(&a);
	close(fb);
	close(fa);
}


/*
 * A storm of forged wake-ups on a ticket that is not at its turn, while
 * its owner sleeps on it with a short deadline or is signalled: each one
 * dequeues the sleeper, which queues again, so its deadline or signal
 * keeps meeting a waker that just dequeued it. It must answer ETIMEDOUT
 * or EINTR each time (never 0 before the turn, never EBUSY from a
 * waiter count gone wrong), dequeue itself exactly once (a second
 * list_del() oopses), the counters must be exact, and its turn must
 * still wake it at the end.
 */
#define STORM_ROUNDS	300

struct storm {
	int fd;
	__u64 t;
	bool stop;
	__u64 wakes;
};

static void *storm_run(void *arg)
{
	struct storm *st = arg;

	while (!__atomic_load_n(&st->stop, __ATOMIC_SEQ_CST)) {
		if (ring_wake_raw(st->fd, st->t))
			break;
		st->wakes++;
	}
	return NULL;
}

struct storm_sleeper {
	struct ring *r;
	__u64 t;
	__u64 timeouts, interrupts, early;
	int bad;
	pthread_barrier_t *sync;
	bool stop;
};

static void *storm_sleep(void *arg)
{
	struct storm_sleeper *ss = arg;
	__u64 i;
	int ret;

	for (i = 0;; i++) {
		pthread_barrier_wait(ss->sync);
		if (ss->stop)
			return NULL;
		ret = ring_wait_raw(ss->r->fd, ss->t,
				    now_ns() + (i % 4 == 1 ? 200 : 2) * MS);
		if (ret == -ETIMEDOUT)
			ss->timeouts++;
		else if (ret == -EINTR)
			ss->interrupts++;
		else if (!ret)
			ss->early++;
		else
			ss->bad = ret;
		pthread_barrier_wait(ss->sync);
	}
}

TEST(forged_wake_storm)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct storm_sleeper ss = {};
	struct ordsched_stats stats;
	struct storm st = {};
	struct sleeper s;
	pthread_barrier_t sync;
	pthread_t th, waker;
	struct ring a, b;
	int fa, fb, i;
	__u64 t;

	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
	fa = dev_open();
	ASSERT_LE(0, fa);
	ASSERT_EQ(0, ring_open(fa, &a));
	fb = dev_new_handle(fa, ORDSCHED_HANDLE_CLOEXEC);
	ASSERT_LE(0, fb);
	ASSERT_EQ(0, ring_open(fb, &b));
	ASSERT_EQ(0, ordsched_ring_take(&a.v, a.id, &t));
	ASSERT_EQ(0, ordsched_ring_take(&b.v, b.id, &t));
	ASSERT_EQ(1, t);
	ASSERT_TRUE(ring_cas(ordsched_ring_slot(&b.v, 1),
			     ordsched_ring_word(1, b.id, ORDSCHED_RING_OWNED),
			     ordsched_ring_word(1, b.id,
						ORDSCHED_RING_SLEEPING)));
	ASSERT_EQ(0, pthread_barrier_init(&sync, NULL, 2));
	ss.r = &b;
	ss.t = 1;
	ss.sync = &sync;
	st.fd = fa;
	st.t = 1;
	ASSERT_EQ(0, pthread_create(&th, NULL, storm_sleep, &ss));
	ASSERT_EQ(0, pthread_create(&waker, NULL, storm_run, &st));
	for (i = 0; i < STORM_ROUNDS && !ss.bad && !ss.early; i++) {
		pthread_barrier_wait(&sync);
		if (i % 4 == 1) {
			usleep(2000);
			pthread_kill(th, SIGUSR1);
		}
		pthread_barrier_wait(&sync);
	}
	ss.stop = true;
	pthread_barrier_wait(&sync);
	pthread_join(th, NULL);
	__atomic_store_n(&st.stop, true, __ATOMIC_SEQ_CST);
	pthread_join(waker, NULL);
	ksft_print_msg("%d rounds, %llu forged wake-ups: %llu timed out, %llu interrupted\n",
		       i, (unsigned long long)st.wakes,
		       (unsigned long long)ss.timeouts,
		       (unsigned long long)ss.interrupts);
	EXPECT_EQ(0, ss.bad);
	EXPECT_EQ(0, ss.early);
	EXPECT_EQ(STORM_ROUNDS, ss.timeouts + ss.interrupts);
	ASSERT_EQ(0, dev_stats(fa, &stats));
	EXPECT_EQ(ss.timeouts, stats.timeouts);
	EXPECT_EQ(ss.interrupts, stats.interrupts);
	EXPECT_EQ(STORM_ROUNDS, stats.waits);

	/* Nothing left queued: the turn still comes to the sleeper. */
	s = (struct sleeper){ .r = &b, .ticket = 1,
			      .deadline_ns = now_ns() + 10 * SEC };
	ASSERT_EQ(0, pthread_create(&th, NULL, sleep_on, &s));
	usleep(100 * 1000);
	EXPECT_EQ(0, ordsched_ring_complete(&a.v, a.id, 0, &a.ctx));
	pthread_join(th, NULL);
	EXPECT_EQ(0, s.ret);
	/* Woken: at its deadline the kernel would find the turn anyway. */
	EXPECT_LT(now_ns() + SEC, s.deadline_ns);
	EXPECT_EQ(0, ordsched_ring_complete(&b.v, b.id, 1, &b.ctx));
	EXPECT_EQ(2, ring_load(a.v.tail));

	pthread_barrier_destroy(&sync);
	ring_close(&b);
	ring_close(&a);
	close(fb);
	close(fa);
}

/*
 * uapi: a deadline is an "absolute CLOCK_MONOTONIC deadline", the
 * caller's, in a time namespace too (as for clock_nanosleep() and futex).
 * The checks of a process whose CLOCK_MONOTONIC is @offset_s seconds off
 * the host's: WAIT, COMPLETE_WAIT and RING_WAIT time out 100 ms after the
 * call, on its clock. Taken as the host's, the deadline came an hour late
 * (+3600: the alarm ends it) or had passed already (-1: ETIMEDOUT at once).
 * Exit status: 0, or the number of the check that failed.
 */
static int timens_checks(void)
{
	struct ring a, b;
	__u64 t, t0, dt;
	int fa, fb, i, ret;

	alarm(10);
	fa = dev_open();
	fb = fa < 0 ? -1 : dev_new_handle(fa, ORDSCHED_HANDLE_CLOEXEC);
	if (fb < 0 || dev_take(fa, 1, &t) || dev_take(fb, 1, &t) || t != 1)
		return 1;
	for (i = 0; i < 3; i++) {
		t0 = now_ns();
		if (i == 0)
			ret = dev_wait(fb, 1, t0 + 100 * MS);
		else if (i == 1)
			ret = dev_complete_wait(fb, ORDSCHED_NO_TICKET, 1,
						t0 + 100 * MS);
		else
			ret = ring_wait_raw(b.fd, 1, t0 + 100 * MS);
		dt = now_ns() - t0;
		if (ret != -ETIMEDOUT || dt < 100 * MS || dt > 5 * SEC)
			return 10 + i;
		if (i == 1) {
			/* The same in a ring domain. */
			close(fb);
			close(fa);
			fa = dev_open();
			if (fa < 0 || ring_open(fa, &a))
				return 2;
			fb = dev_new_handle(fa, ORDSCHED_HANDLE_CLOEXEC);
			if (fb < 0 || ring_open(fb, &b) ||
			    ordsched_ring_take(&a.v, a.id, &t) ||
			    ordsched_ring_take(&b.v, b.id, &t) || t != 1)
				return 3;
		}
	}
	return 0;
}

/*
 * timens_checks() in a child whose CLOCK_MONOTONIC is @offset_s off:
 * its exit status; 100 + the signal that ended it; 150 if the offset
 * could not be set; -errno if there is no time namespace to make.
 */
static int in_time_namespace(long offset_s)
{
	char line[64];
	int status, fd, len;
	pid_t pid;

	if (unshare(CLONE_NEWTIME))
		return -errno;
	fd = open("/proc/self/timens_offsets", O_WRONLY);
	if (fd < 0)
		return 150;
	len = snprintf(line, sizeof(line), "monotonic %ld 0", offset_s);
	if (write(fd, line, len) != len)
		return 150;
	close(fd);
	pid = fork();
	if (pid < 0)
		return 150;
	if (!pid)
		_exit(timens_checks());
	if (waitpid(pid, &status, 0) != pid)
		return 150;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

TEST(deadline_in_a_time_namespace)
{
	long offsets[] = { 3600, -1 };
	int i, ret, status;
	pid_t pid;

	for (i = 0; i < 2; i++) {
		/* unshare() changes the namespace of our children for good. */
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			ret = in_time_namespace(offsets[i]);
			_exit(ret < 0 ? 200 : ret);
		}
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		if (WEXITSTATUS(status) == 200)
			SKIP(return, "no time namespace here");
		EXPECT_EQ(0, WEXITSTATUS(status))
			TH_LOG("offset %ld s: check %d failed", offsets[i],
			       WEXITSTATUS(status));
	}
}

TEST_HARNESS_MAIN
