// SPDX-License-Identifier: GPL-2.0
/*
 * libordsched on the shared ring (ORDSCHED_FEAT_RING), and the same
 * scenarios forced onto the ioctl path: commits in order from several
 * threads and from several processes; take, complete and an uncontended
 * wait cost no system call on the ring (ioctl is wrapped and counted);
 * a process killed holding a ticket is released and the others go on,
 * whether they sleep at the time or wait afterwards; poll(2) and epoll on
 * a ring handle's descriptor are woken when its turn comes, whichever
 * thread moves the tail and whenever the program asked for the
 * descriptor. Built with the
 * library's sources and -Wl,--wrap=ioctl.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "libordsched.h"
#include <linux/ordsched_ring.h>

#define SEC	1000000000ULL

static long nr_ioctls;

int __real_ioctl(int fd, unsigned long cmd, ...);

int __wrap_ioctl(int fd, unsigned long cmd, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, cmd);
	arg = va_arg(ap, void *);
	va_end(ap);
	__atomic_add_fetch(&nr_ioctls, 1, __ATOMIC_RELAXED);
	return __real_ioctl(fd, cmd, arg);
}

/* Open on the path asked for; SKIP the ring when the kernel lacks it. */
static int open_mode(struct __test_metadata *_metadata, unsigned int flags,
		     struct ordsched **os)
{
	int ret = ordsched_open_flags(os, flags);

	if (ret)
		return ret;
	if (!(flags & ORDSCHED_OPEN_NO_RING) && !ordsched_uses_ring(*os)) {
		ordsched_close(*os);
		return -EOPNOTSUPP;
	}
	return 0;
}

#define THREADS	4
/*
 * Tickets per thread: fewer where every item costs system calls (the
 * ioctl path, a pollable ring handle), which the debug kernel under a
 * busy host makes slow.
 */
#define ROUNDS		3000
#define SLOW_ROUNDS	1000

struct order_run {
	struct ordsched *os;
	uint64_t base;
	uint64_t next;		/* written only in turn */
	int rounds;
	int errors;
};

static void *order_thread(void *arg)
{
	struct order_run *r = arg;
	uint64_t t;
	int i;

	for (i = 0; i < r->rounds; i++) {
		if (ordsched_take(r->os, &t) ||
		    ordsched_wait(r->os, t, ordsched_deadline_in(10 * SEC))) {
			__atomic_add_fetch(&r->errors, 1, __ATOMIC_RELAXED);
			return NULL;
		}
		/* Plain accesses: the ring's ordering alone protects them. */
		if (r->next != t - r->base)
			r->errors++;
		r->next++;
		if (ordsched_complete(r->os, t)) {
			__atomic_add_fetch(&r->errors, 1, __ATOMIC_RELAXED);
			return NULL;
		}
	}
	return NULL;
}

/*
 * @pollable: ask for the descriptor first, so that every ticket is flagged
 * for a poller and every hand-over enters the kernel.
 */
static void order_threads(struct __test_metadata *_metadata,
			  unsigned int flags, int pollable)
{
	struct order_run r = { 0 };
	pthread_t th[THREADS];
	uint64_t t0;
	long calls;
	int i, ret;

	ret = open_mode(_metadata, flags, &r.os);
	if (ret == -EOPNOTSUPP)
		SKIP(return, "the kernel offers no ring");
	ASSERT_EQ(0, ret);
	if (pollable)
		ASSERT_LE(0, ordsched_fd(r.os));
	r.rounds = flags || pollable ? SLOW_ROUNDS : ROUNDS;
	r.base = ordsched_tail(r.os);
	calls = __atomic_load_n(&nr_ioctls, __ATOMIC_RELAXED);
	t0 = ordsched_now();
	for (i = 0; i < THREADS; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, order_thread, &r));
	for (i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	TH_LOG("%d x %d tickets in %llu ms, %ld system calls", THREADS,
	       r.rounds, (unsigned long long)(ordsched_now() - t0) / 1000000,
	       __atomic_load_n(&nr_ioctls, __ATOMIC_RELAXED) - calls);
	EXPECT_EQ(0, r.errors);
	EXPECT_EQ(THREADS * r.rounds, r.next);
	EXPECT_EQ(r.base + THREADS * r.rounds, ordsched_tail(r.os));
	EXPECT_EQ(ordsched_head(r.os), ordsched_tail(r.os));
	ordsched_close(r.os);
}

TEST(order_threads_ring)
{
	order_threads(_metadata, 0, 0);
}

TEST(order_threads_ring_pollable)
{
	order_threads(_metadata, 0, 1);
}

TEST(order_threads_ioctl)
{
	order_threads(_metadata, ORDSCHED_OPEN_NO_RING, 0);
}

/*
 * ordschedctl selftest's loop: complete the last ticket only when
 * waiting for the next (ordsched_complete_wait()), so that every thread
 * holds one or two tickets. Times itself: both paths should be quick.
 */
static void *cw_thread(void *arg)
{
	struct order_run *r = arg;
	uint64_t t, done = ORDSCHED_NO_TICKET;
	int i;

	for (i = 0; i < r->rounds; i++) {
		if (ordsched_take(r->os, &t) ||
		    ordsched_complete_wait(r->os, &done, t,
					   ordsched_deadline_in(20 * SEC))) {
			__atomic_add_fetch(&r->errors, 1, __ATOMIC_RELAXED);
			break;
		}
		if (r->next != t - r->base)
			r->errors++;
		r->next++;
		done = t;
	}
	if (done != ORDSCHED_NO_TICKET && ordsched_complete(r->os, done))
		__atomic_add_fetch(&r->errors, 1, __ATOMIC_RELAXED);
	return NULL;
}

static void complete_wait_threads(struct __test_metadata *_metadata,
				  unsigned int flags)
{
	struct order_run r = { 0 };
	struct ordsched_stats st;
	pthread_t th[THREADS];
	uint64_t t0;
	int i, ret;

	ret = open_mode(_metadata, flags, &r.os);
	if (ret == -EOPNOTSUPP)
		SKIP(return, "the kernel offers no ring");
	ASSERT_EQ(0, ret);
	r.rounds = flags ? SLOW_ROUNDS : ROUNDS;
	r.base = ordsched_tail(r.os);
	t0 = ordsched_now();
	for (i = 0; i < THREADS; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, cw_thread, &r));
	for (i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	ASSERT_EQ(0, ordsched_stats(r.os, &st));
	TH_LOG("%s: %d x %d tickets in %llu ms, %llu sleeps, %llu wakeups",
	       flags ? "ioctl" : "ring", THREADS, r.rounds,
	       (unsigned long long)(ordsched_now() - t0) / 1000000,
	       (unsigned long long)st.waits, (unsigned long long)st.wakeups);
	EXPECT_EQ(0, r.errors);
	EXPECT_EQ(THREADS * r.rounds, r.next);
	EXPECT_EQ(r.base + THREADS * r.rounds, ordsched_tail(r.os));
	EXPECT_EQ(0, st.held);
	ordsched_close(r.os);
}

TEST(complete_wait_threads_ring)
{
	complete_wait_threads(_metadata, 0);
}

TEST(complete_wait_threads_ioctl)
{
	complete_wait_threads(_metadata, ORDSCHED_OPEN_NO_RING);
}

#define PROCS	3
#define PROUNDS	2000

/* Each process on its own handle; the log lives in shared memory. */
static void order_processes(struct __test_metadata *_metadata,
			    unsigned int flags)
{
	struct ordsched *os, *h[PROCS];
	uint64_t *shared, base;
	int i, j, status, ret;
	pid_t pid[PROCS];

	ret = open_mode(_metadata, flags, &os);
	if (ret == -EOPNOTSUPP)
		SKIP(return, "the kernel offers no ring");
	ASSERT_EQ(0, ret);
	shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, shared);
	base = ordsched_tail(os);
	for (i = 0; i < PROCS; i++) {
		ASSERT_EQ(0, ordsched_new_handle(os, &h[i]));
		ASSERT_EQ(ordsched_uses_ring(os), ordsched_uses_ring(h[i]));
	}
	for (i = 0; i < PROCS; i++) {
		pid[i] = fork();
		ASSERT_LE(0, pid[i]);
		if (!pid[i]) {
			uint64_t t;
			int bad = 0;

			for (j = 0; j < PROUNDS && !bad; j++) {
				if (ordsched_take(h[i], &t) ||
				    ordsched_wait(h[i], t,
						  ordsched_deadline_in(10 * SEC))) {
					bad = 1;
					break;
				}
				if (shared[0] != t - base)
					bad = 1;
				shared[0]++;
				if (ordsched_complete(h[i], t))
					bad = 1;
			}
			_exit(bad);
		}
	}
	for (i = 0; i < PROCS; i++)
		ordsched_close(h[i]);
	for (i = 0; i < PROCS; i++) {
		ASSERT_EQ(pid[i], waitpid(pid[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	EXPECT_EQ(PROCS * PROUNDS, shared[0]);
	EXPECT_EQ(base + PROCS * PROUNDS, ordsched_tail(os));
	munmap(shared, 4096);
	ordsched_close(os);
}

TEST(order_processes_ring)
{
	order_processes(_metadata, 0);
}

TEST(order_processes_ioctl)
{
	order_processes(_metadata, ORDSCHED_OPEN_NO_RING);
}

/* The ring's promise: uncontended, no system call at all. */
TEST(no_syscalls_uncontended)
{
	struct ordsched *os;
	uint64_t t, next;
	long before;
	int i, ret;

	ret = open_mode(_metadata, 0, &os);
	if (ret == -EOPNOTSUPP)
		SKIP(return, "the kernel offers no ring");
	ASSERT_EQ(0, ret);
	before = __atomic_load_n(&nr_ioctls, __ATOMIC_RELAXED);
	for (i = 0; i < 1000; i++) {
		ASSERT_EQ(0, ordsched_take(os, &t));
		ASSERT_EQ(0, ordsched_wait(os, t, ORDSCHED_NO_DEADLINE));
		ASSERT_EQ(0, ordsched_complete(os, t));
	}
	/* Early completion, trash, complete_wait: none either. */
	ASSERT_EQ(0, ordsched_take(os, &t));
	ASSERT_EQ(0, ordsched_take(os, &next));
	ASSERT_EQ(0, ordsched_complete(os, next));
	ASSERT_EQ(0, ordsched_take(os, &next));
	ASSERT_EQ(0, ordsched_complete_wait(os, &t, next, 0));
	EXPECT_EQ(ORDSCHED_NO_TICKET, t);
	ASSERT_EQ(0, ordsched_trash(os, next));
	EXPECT_EQ(ordsched_head(os), ordsched_tail(os));
	EXPECT_EQ(before, __atomic_load_n(&nr_ioctls, __ATOMIC_RELAXED));

	/* The ioctl path, for contrast: at least one per operation. */
	ordsched_close(os);
	ASSERT_EQ(0, ordsched_open_flags(&os, ORDSCHED_OPEN_NO_RING));
	before = __atomic_load_n(&nr_ioctls, __ATOMIC_RELAXED);
	ASSERT_EQ(0, ordsched_take(os, &t));
	ASSERT_EQ(0, ordsched_complete(os, t));
	EXPECT_LE(before + 2, __atomic_load_n(&nr_ioctls, __ATOMIC_RELAXED));
	ordsched_close(os);
}

/* A wait that sleeps is woken by the completion before it. */
struct sleeper {
	struct ordsched *os;
	uint64_t t;
	uint64_t deadline;
	uint64_t end;
	int ret;
};

static void *sleeper_thread(void *arg)
{
	struct sleeper *s = arg;

	s->ret = ordsched_wait(s->os, s->t, s->deadline);
	s->end = ordsched_now();
	return NULL;
}

TEST(sleeper_is_woken)
{
	struct sleeper s = { .ret = -1 };
	struct ordsched *os;
	pthread_t th;
	uint64_t a;
	int ret;

	ret = open_mode(_metadata, 0, &os);
	if (ret == -EOPNOTSUPP)
		SKIP(return, "the kernel offers no ring");
	ASSERT_EQ(0, ret);
	s.os = os;
	ASSERT_EQ(0, ordsched_take(os, &a));
	ASSERT_EQ(0, ordsched_take(os, &s.t));
	s.deadline = ordsched_deadline_in(10 * SEC);
	ASSERT_EQ(0, pthread_create(&th, NULL, sleeper_thread, &s));
	usleep(100000);
	ASSERT_EQ(0, ordsched_complete(os, a));
	pthread_join(th, NULL);
	EXPECT_EQ(0, s.ret);
	/* Woken, not found at its turn when its deadline came. */
	EXPECT_LT(s.end + SEC, s.deadline);
	EXPECT_EQ(0, ordsched_complete(os, s.t));
	ordsched_close(os);
}

/*
 * Several threads of one process wait for one ticket; the first to see
 * its turn completes it at once. Each wait returns (0, or EALREADY once
 * the ticket is retired) well before its deadline: a waiter that takes
 * the flag back at its turn sets it again for the others, and wakes
 * them itself when the ticket was completed meanwhile by a thread that
 * found no flag (it used to leave them asleep to their deadline). Half
 * the rounds sleep at once (no spin), half spin first.
 */
#define MW_WAITERS	3
#define MW_ROUNDS	600

struct many_waiters {
	struct ordsched *os;
	pthread_barrier_t start, done;
	uint64_t t, deadline;
	int ret[MW_WAITERS], completed;
	uint64_t end[MW_WAITERS];
	int stop;
};

static void *many_waiters_thread(void *arg)
{
	struct many_waiters *mw = arg;
	static int next;
	int i = __atomic_fetch_add(&next, 1, __ATOMIC_SEQ_CST) % MW_WAITERS;

	for (;;) {
		pthread_barrier_wait(&mw->start);
		if (__atomic_load_n(&mw->stop, __ATOMIC_SEQ_CST))
			return NULL;
		mw->ret[i] = ordsched_wait(mw->os, mw->t, mw->deadline);
		if (!mw->ret[i] && !__atomic_exchange_n(&mw->completed, 1,
							__ATOMIC_SEQ_CST))
			mw->ret[i] = ordsched_complete(mw->os, mw->t);
		mw->end[i] = ordsched_now();
		pthread_barrier_wait(&mw->done);
	}
}

TEST(many_waiters_one_ticket)
{
	struct many_waiters mw = {};
	pthread_t th[MW_WAITERS];
	unsigned int r, i, late = 0, bad = 0;
	uint64_t a;
	int ret;

	ret = open_mode(_metadata, 0, &mw.os);
	if (ret == -EOPNOTSUPP)
		SKIP(return, "the kernel offers no ring");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, pthread_barrier_init(&mw.start, NULL, MW_WAITERS + 1));
	ASSERT_EQ(0, pthread_barrier_init(&mw.done, NULL, MW_WAITERS + 1));
	for (i = 0; i < MW_WAITERS; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, many_waiters_thread, &mw));
	for (r = 0; r < MW_ROUNDS; r++) {
		ordsched_set_spin(mw.os, r & 1 ? 0 : ORDSCHED_DEFAULT_SPIN);
		ASSERT_EQ(0, ordsched_take(mw.os, &a));
		ASSERT_EQ(0, ordsched_take(mw.os, &mw.t));
		mw.completed = 0;
		mw.deadline = ordsched_deadline_in(5 * SEC);
		pthread_barrier_wait(&mw.start);
		if (r % 3)
			usleep(r % 3 * 100);
		ASSERT_EQ(0, ordsched_complete(mw.os, a));
		pthread_barrier_wait(&mw.done);
		for (i = 0; i < MW_WAITERS; i++) {
			bad += mw.ret[i] && mw.ret[i] != -EALREADY;
			late += mw.end[i] + SEC > mw.deadline;
		}
		if (bad || late)
			break;
	}
	__atomic_store_n(&mw.stop, 1, __ATOMIC_SEQ_CST);
	pthread_barrier_wait(&mw.start);
	for (i = 0; i < MW_WAITERS; i++)
		pthread_join(th[i], NULL);
	EXPECT_EQ(0, bad) TH_LOG("round %u: answers %d %d %d", r, mw.ret[0],
				 mw.ret[1], mw.ret[2]);
	EXPECT_EQ(0, late) TH_LOG("round %u: a waiter ran to its deadline", r);
	EXPECT_EQ(1, mw.completed);
	EXPECT_EQ(mw.t + 1, ordsched_tail(mw.os));
	pthread_barrier_destroy(&mw.start);
	pthread_barrier_destroy(&mw.done);
	ordsched_close(mw.os);
}

/*
 * libordsched.h: after fork(2) both processes hold every handle, and a
 * wait sleeps until the turn comes. Here both wait for one ticket of
 * their shared handle; the parent gives up first (its deadline), while
 * the child sleeps on. At the turn the child must be woken: the parent's
 * wait used to take the slot's SLEEPING flag back as it left, so the
 * completion moved the tail without a wake-up, and the child slept until
 * its deadline.
 */
TEST(shared_ticket_wait_outlives_a_timeout)
{
	struct ordsched_stats st;
	struct ordsched *os;
	uint64_t a, t, end;
	int ret, status;
	pid_t pid;

	ret = open_mode(_metadata, 0, &os);
	if (ret == -EOPNOTSUPP)
		SKIP(return, "the kernel offers no ring");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, ordsched_take(os, &a));
	ASSERT_EQ(0, ordsched_take(os, &t));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		uint64_t dl = ordsched_deadline_in(20 * SEC);

		ret = ordsched_wait(os, t, dl);
		/*
		 * Woken, well before its deadline: there the wait looks at
		 * the turn once more and, unwoken, would answer 0 too.
		 */
		if (!ret && ordsched_now() + 10 * SEC > dl)
			_exit(3);
		_exit(ret ? 1 : ordsched_complete(os, t) ? 2 : 0);
	}
	/* The child asleep in the kernel (counted), then the parent. */
	end = ordsched_now() + 60 * SEC;
	do {
		usleep(10000);
		ASSERT_EQ(0, ordsched_stats(os, &st));
	} while (st.waits < 1 && ordsched_now() < end);
	ASSERT_EQ(1, st.waits);
	EXPECT_EQ(-ETIMEDOUT,
		  ordsched_wait(os, t, ordsched_deadline_in(100000000)));
	ASSERT_EQ(0, ordsched_stats(os, &st));
	EXPECT_EQ(2, st.waits);
	/* The turn: the child completes t, woken (exit 3: not woken). */
	ASSERT_EQ(0, ordsched_complete(os, a));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(t + 1, ordsched_tail(os));
	ordsched_close(os);
}

/*
 * A child takes a ticket and is SIGKILLed holding it: its handle is
 * released, its ticket trashed, the parent's turn comes. @sleep: the
 * parent already sleeps in the kernel when the child dies.
 */
struct killer {
	pid_t pid;
};

static void *killer_thread(void *arg)
{
	struct killer *k = arg;

	usleep(100000);
	kill(k->pid, SIGKILL);
	return NULL;
}

static void killed_holder(struct __test_metadata *_metadata,
			  unsigned int flags, int sleep)
{
	struct ordsched *os, *ch;
	struct killer k;
	pthread_t th;
	int pfd[2], status, ret;
	uint64_t a, b, deadline;

	ret = open_mode(_metadata, flags, &os);
	if (ret == -EOPNOTSUPP)
		SKIP(return, "the kernel offers no ring");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, ordsched_new_handle(os, &ch));
	ASSERT_EQ(0, pipe(pfd));
	k.pid = fork();
	ASSERT_LE(0, k.pid);
	if (!k.pid) {
		if (ordsched_take(ch, &a) || write(pfd[1], &a, sizeof(a)) != sizeof(a))
			_exit(1);
		for (;;)
			pause();
	}
	ordsched_close(ch);
	close(pfd[1]);
	ASSERT_EQ(sizeof(a), read(pfd[0], &a, sizeof(a)));
	close(pfd[0]);
	ASSERT_EQ(0, ordsched_take(os, &b));
	ASSERT_EQ(a + 1, b);
	EXPECT_EQ(-ETIMEDOUT, ordsched_wait(os, b, ordsched_deadline_in(SEC / 50)));
	if (sleep) {
		ASSERT_EQ(0, pthread_create(&th, NULL, killer_thread, &k));
	} else {
		kill(k.pid, SIGKILL);
		ASSERT_EQ(k.pid, waitpid(k.pid, &status, 0));
	}
	deadline = ordsched_deadline_in(10 * SEC);
	EXPECT_EQ(0, ordsched_wait(os, b, deadline));
	/* Woken by the release, not found at its turn at the deadline. */
	EXPECT_LT(ordsched_now() + SEC, deadline);
	EXPECT_EQ(b, ordsched_tail(os));
	if (sleep) {
		pthread_join(th, NULL);
		ASSERT_EQ(k.pid, waitpid(k.pid, &status, 0));
	}
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	EXPECT_EQ(0, ordsched_complete(os, b));
	/* And the domain goes on. */
	ASSERT_EQ(0, ordsched_take(os, &b));
	EXPECT_EQ(0, ordsched_wait(os, b, 0));
	EXPECT_EQ(0, ordsched_complete(os, b));
	ordsched_close(os);
}

TEST(killed_holder_ring)
{
	killed_holder(_metadata, 0, 0);
}

TEST(killed_holder_ring_sleeping)
{
	killed_holder(_metadata, 0, 1);
}

TEST(killed_holder_ioctl)
{
	killed_holder(_metadata, ORDSCHED_OPEN_NO_RING, 0);
}

TEST(killed_holder_ioctl_sleeping)
{
	killed_holder(_metadata, ORDSCHED_OPEN_NO_RING, 1);
}

/*
 * poll(2) on a ring handle. Handle a holds the tail; handle b takes the
 * next ticket and a thread polls b's descriptor; a completes from
 * userspace (no wait of b's flags anything). The poll must report POLLIN
 * at once after the completion, not at its timeout. @when: 0 asks for the
 * descriptor before b takes, 1 after, 2 polls a descriptor given to
 * ordsched_from_fd() without ever calling ordsched_fd(); @epoll: wait
 * with epoll registered before the take (the kernel's poll() then runs
 * before the ticket exists).
 */
struct poller {
	int fd;
	int epoll;
	int ret;
	uint64_t ns;
};

static void *poller_thread(void *arg)
{
	struct poller *p = arg;
	uint64_t start = ordsched_now();

	if (p->epoll >= 0) {
		struct epoll_event ev;

		p->ret = epoll_wait(p->epoll, &ev, 1, 5000);
		if (p->ret == 1 && !(ev.events & EPOLLIN))
			p->ret = -2;
	} else {
		struct pollfd pfd = { .fd = p->fd, .events = POLLIN };

		p->ret = poll(&pfd, 1, 5000);
		if (p->ret == 1 && !(pfd.revents & POLLIN))
			p->ret = -2;
	}
	p->ns = ordsched_now() - start;
	return NULL;
}

static void poll_turn(struct __test_metadata *_metadata, int when, int epoll)
{
	struct poller p = { .epoll = -1, .ret = -1 };
	struct ordsched *a, *b;
	uint64_t ta, tb;
	pthread_t th;
	int ret, fd;

	ret = open_mode(_metadata, 0, &a);
	if (ret == -EOPNOTSUPP)
		SKIP(return, "the kernel offers no ring");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, ordsched_take(a, &ta));
	if (when == 2) {
		struct ordsched *tmp;

		ASSERT_EQ(0, ordsched_new_handle(a, &tmp));
		fd = dup(ordsched_fd(tmp));
		ASSERT_LE(0, fd);
		ordsched_close(tmp);
		ASSERT_EQ(0, ordsched_from_fd(fd, &b));
		p.fd = fd;
	} else {
		ASSERT_EQ(0, ordsched_new_handle(a, &b));
		if (when == 0)
			p.fd = ordsched_fd(b);
	}
	ASSERT_TRUE(ordsched_uses_ring(b));
	if (epoll) {
		struct epoll_event ev = { .events = EPOLLIN };

		p.epoll = epoll_create1(EPOLL_CLOEXEC);
		ASSERT_LE(0, p.epoll);
		if (when == 1)
			p.fd = ordsched_fd(b);
		ASSERT_EQ(0, epoll_ctl(p.epoll, EPOLL_CTL_ADD, p.fd, &ev));
	}
	ASSERT_EQ(0, ordsched_take(b, &tb));
	ASSERT_EQ(ta + 1, tb);
	if (when == 1 && !epoll)
		p.fd = ordsched_fd(b);
	ASSERT_EQ(0, pthread_create(&th, NULL, poller_thread, &p));
	usleep(200000);
	ASSERT_EQ(0, ordsched_complete(a, ta));
	pthread_join(th, NULL);
	EXPECT_EQ(1, p.ret);
	/* Woken by the completion, 200 ms in; the timeout is at 5 s. */
	EXPECT_GT(2 * SEC, p.ns);
	EXPECT_EQ(0, ordsched_wait(b, tb, ordsched_deadline_in(SEC)));
	EXPECT_EQ(0, ordsched_complete(b, tb));
	if (p.epoll >= 0)
		close(p.epoll);
	ordsched_close(b);
	ordsched_close(a);
}

TEST(poll_fd_before_take)
{
	poll_turn(_metadata, 0, 0);
}

TEST(poll_fd_after_take)
{
	poll_turn(_metadata, 1, 0);
}

TEST(poll_from_fd)
{
	poll_turn(_metadata, 2, 0);
}

TEST(epoll_fd_before_take)
{
	poll_turn(_metadata, 0, 1);
}

TEST(epoll_from_fd)
{
	poll_turn(_metadata, 2, 1);
}

/*
 * A pollable handle whose wait times out keeps its ticket flagged: a
 * poll after the timeout is still woken by the completion.
 */
TEST(poll_after_wait_timeout)
{
	struct poller p = { .epoll = -1, .ret = -1 };
	struct ordsched *a, *b;
	uint64_t ta, tb;
	pthread_t th;
	int ret;

	ret = open_mode(_metadata, 0, &a);
	if (ret == -EOPNOTSUPP)
		SKIP(return, "the kernel offers no ring");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, ordsched_new_handle(a, &b));
	p.fd = ordsched_fd(b);
	ASSERT_EQ(0, ordsched_take(a, &ta));
	ASSERT_EQ(0, ordsched_take(b, &tb));
	EXPECT_EQ(-ETIMEDOUT,
		  ordsched_wait(b, tb, ordsched_deadline_in(SEC / 20)));
	ASSERT_EQ(0, pthread_create(&th, NULL, poller_thread, &p));
	usleep(200000);
	ASSERT_EQ(0, ordsched_complete(a, ta));
	pthread_join(th, NULL);
	EXPECT_EQ(1, p.ret);
	EXPECT_GT(2 * SEC, p.ns);
	EXPECT_EQ(0, ordsched_complete(b, tb));
	ordsched_close(b);
	ordsched_close(a);
}

/*
 * The ioctl path in a ring domain gives the kernel's answers from its
 * spin too: a ticket this process took, then retired behind its back
 * (by another process sharing the handle, here by a write to the page
 * as that process's library would make it), with the tail resting on it
 * before its retirer moves it on. owned[] still says ours; the slot says
 * RETIRED, and the kernel answers EALREADY, so the library must.
 */
TEST(ioctl_path_turn_retired_elsewhere)
{
	struct ordsched_ring_setup rs = { 0 };
	struct ordsched_wait w = { 0 };
	struct ordsched *os;
	__u64 *page, *slot;
	uint64_t t;
	long n;
	int fd;

	fd = open("/dev/ordsched", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	if (ioctl(fd, ORDSCHED_IOC_RING_SETUP, &rs))
		SKIP(close(fd); return, "no ring: %s", strerror(errno));
	page = mmap(NULL, rs.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		    rs.mmap_offset);
	ASSERT_NE(MAP_FAILED, page);
	/* The same handle, on the ioctl path: its commands bear rs.id. */
	ASSERT_EQ(0, ordsched_from_fd_flags(dup(fd), ORDSCHED_OPEN_NO_RING,
					    &os));
	ASSERT_FALSE(ordsched_uses_ring(os));
	ordsched_set_spin(os, ORDSCHED_DEFAULT_SPIN);
	ASSERT_EQ(0, ordsched_take(os, &t));
	ASSERT_EQ(t, ordsched_tail(os));
	/* Live at the turn: the spin answers, with no system call. */
	n = __atomic_load_n(&nr_ioctls, __ATOMIC_RELAXED);
	EXPECT_EQ(0, ordsched_wait(os, t, ordsched_deadline_in(SEC)));
	EXPECT_EQ(n, __atomic_load_n(&nr_ioctls, __ATOMIC_RELAXED));
	slot = (__u64 *)((char *)page + rs.slots_offset) +
	       ORDSCHED_RING_INDEX(t, rs.slots);
	/* The ioctl path's take flags its ticket SLEEPING for good. */
	ASSERT_TRUE(__atomic_compare_exchange_n(slot,
		&(__u64){ ORDSCHED_RING_WORD(t, rs.id, ORDSCHED_RING_SLEEPING) },
		ORDSCHED_RING_WORD(t, 0, ORDSCHED_RING_RETIRED), 0,
		__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
	EXPECT_EQ(t, ordsched_tail(os));
	w.ticket = t;
	w.deadline_ns = ordsched_deadline_in(SEC);
	EXPECT_EQ(-1, ioctl(fd, ORDSCHED_IOC_WAIT, &w));
	EXPECT_EQ(EALREADY, errno);
	/* The tail still on it: the spin sees the turn, the slot says no. */
	EXPECT_EQ(t, ordsched_tail(os));
	n = __atomic_load_n(&nr_ioctls, __ATOMIC_RELAXED);
	EXPECT_EQ(-EALREADY, ordsched_wait(os, t, ordsched_deadline_in(SEC)));
	EXPECT_EQ(n + 1, __atomic_load_n(&nr_ioctls, __ATOMIC_RELAXED));
	ordsched_close(os);
	munmap(page, rs.size);
	close(fd);
}

TEST_HARNESS_MAIN
