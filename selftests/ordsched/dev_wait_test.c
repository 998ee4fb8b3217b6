// SPDX-License-Identifier: GPL-2.0
/*
 * Waiting on /dev/ordsched: deadlines, signals (interrupted, or restarted
 * without stretching the deadline), only the waiter whose turn came is
 * woken, poll(), the status page, and a holder killed with SIGKILL while
 * holding the turn or while sleeping: the others go on within a bounded
 * time.
 */
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <linux/ordsched_ring.h>

#include "dev_util.h"
#include "kselftest_harness.h"

#define MS	1000000ULL
#define SEC	(1000 * MS)

static volatile int signals;

static void on_signal(int sig)
{
	signals++;
}

static void catch_sigusr1(int flags)
{
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = flags };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	signals = 0;
}

/* Two handles: a holds ticket 0, b holds ticket 1. */
FIXTURE(pair) {
	int a, b;
};

FIXTURE_SETUP(pair)
{
	__u64 t;

	self->a = dev_open();
	ASSERT_LE(0, self->a);
	self->b = dev_new_handle(self->a, ORDSCHED_HANDLE_CLOEXEC);
	ASSERT_LE(0, self->b);
	ASSERT_EQ(0, dev_take(self->a, 1, &t));
	ASSERT_EQ(0, t);
	ASSERT_EQ(0, dev_take(self->b, 1, &t));
	ASSERT_EQ(1, t);
}

FIXTURE_TEARDOWN(pair)
{
	close(self->b);
	close(self->a);
}

TEST_F(pair, timeout_at_the_deadline)
{
	__u64 t0 = now_ns(), dt;
	struct ordsched_stats st;

	EXPECT_EQ(-ETIMEDOUT, dev_wait(self->b, 1, t0 + 100 * MS));
	dt = now_ns() - t0;
	EXPECT_LE(100 * MS, dt);
	EXPECT_GT(100 * MS + 2 * SEC, dt);
	ASSERT_EQ(0, dev_stats(self->b, &st));
	EXPECT_EQ(1, st.waits);
	EXPECT_EQ(1, st.timeouts);
	EXPECT_EQ(0, st.wakeups);
	/* Still held, still waitable. */
	EXPECT_EQ(1, st.held);
}

TEST_F(pair, deadline_in_the_past_only_checks)
{
	__u64 t0 = now_ns();

	EXPECT_EQ(-ETIMEDOUT, dev_wait(self->b, 1, 0));
	EXPECT_EQ(-ETIMEDOUT, dev_wait(self->b, 1, t0 - 1));
	EXPECT_EQ(0, dev_wait(self->a, 0, 0));
	EXPECT_GT(SEC, now_ns() - t0);
}

struct later {
	int fd;
	__u64 ticket;
	__u64 delay_ns;
	pthread_t target;	/* signalled every delay_ns until stop */
	volatile int stop;
	bool trash;		/* complete_later() trashes instead */
};

static void *complete_later(void *arg)
{
	struct later *l = arg;

	usleep(l->delay_ns / 1000);
	if (l->trash)
		dev_trash(l->fd, l->ticket, 1);
	else
		dev_complete(l->fd, l->ticket, 1);
	return NULL;
}

static void *signal_until_stopped(void *arg)
{
	struct later *l = arg;

	while (!l->stop) {
		usleep(l->delay_ns / 1000);
		if (!l->stop)
			pthread_kill(l->target, SIGUSR1);
	}
	return NULL;
}

TEST_F(pair, huge_deadline_is_no_deadline)
{
	struct later l = { .fd = self->a, .ticket = 0, .delay_ns = 50 * MS };
	pthread_t th;

	ASSERT_EQ(0, pthread_create(&th, NULL, complete_later, &l));
	EXPECT_EQ(0, dev_wait(self->b, 1, (1ULL << 63) + 5));
	pthread_join(th, NULL);
}

TEST_F(pair, signal_interrupts)
{
	struct later l = { .delay_ns = 100 * MS, .target = pthread_self() };
	struct ordsched_stats st;
	pthread_t th;
	__u64 t0 = now_ns();

	catch_sigusr1(0);
	ASSERT_EQ(0, pthread_create(&th, NULL, signal_until_stopped, &l));
	EXPECT_EQ(-EINTR, dev_wait(self->b, 1, ORDSCHED_NO_DEADLINE));
	l.stop = 1;
	pthread_join(th, NULL);
	EXPECT_LE(1, signals);
	EXPECT_GT(10 * SEC, now_ns() - t0);
	ASSERT_EQ(0, dev_stats(self->b, &st));
	EXPECT_LE(1, st.interrupts);
	EXPECT_EQ(1, st.held);
}

/*
 * With SA_RESTART the wait restarts after each signal, and the deadline
 * being absolute it still ends on time: signals come every 100 ms until
 * it returns, so a relative timeout restarted each time would never end
 * (the harness's timeout would catch it). A round in which no signal
 * came in time proves nothing: again, with a longer deadline.
 */
TEST_F(pair, signal_restarts_without_stretching)
{
	__u64 t0, dt, wait_ns = 500 * MS;
	struct later l;
	pthread_t th;

	for (int round = 0; round < 4; round++, wait_ns *= 2) {
		l = (struct later){ .delay_ns = 100 * MS,
				    .target = pthread_self() };
		catch_sigusr1(SA_RESTART);
		t0 = now_ns();
		ASSERT_EQ(0, pthread_create(&th, NULL, signal_until_stopped,
					    &l));
		EXPECT_EQ(-ETIMEDOUT, dev_wait(self->b, 1, t0 + wait_ns));
		dt = now_ns() - t0;
		l.stop = 1;
		pthread_join(th, NULL);
		EXPECT_LE(wait_ns, dt);
		if (signals)
			break;
		TH_LOG("no signal within %llu ms: again",
		       (unsigned long long)(wait_ns / MS));
	}
	EXPECT_LE(1, signals);
}

/* A restarted complete-and-wait does not complete twice. */
TEST_F(pair, complete_wait_restarts_once)
{
	struct later sig = { .delay_ns = 50 * MS, .target = pthread_self() };
	struct later done = { .fd = self->b, .ticket = 1, .delay_ns = 400 * MS };
	struct ordsched_complete_wait cw;
	struct ordsched_stats st;
	pthread_t th1, th2;
	__u64 t;

	/* a holds 0 and 2; b holds 1. */
	ASSERT_EQ(0, dev_take(self->a, 1, &t));
	ASSERT_EQ(2, t);
	catch_sigusr1(SA_RESTART);
	cw = (struct ordsched_complete_wait){
		.ticket = 0, .next = 2, .deadline_ns = now_ns() + 20 * SEC,
	};
	ASSERT_EQ(0, pthread_create(&th1, NULL, signal_until_stopped, &sig));
	ASSERT_EQ(0, pthread_create(&th2, NULL, complete_later, &done));
	EXPECT_EQ(0, dev_ioctl(self->a, ORDSCHED_IOC_COMPLETE_WAIT, &cw));
	sig.stop = 1;
	pthread_join(th1, NULL);
	pthread_join(th2, NULL);
	EXPECT_LE(1, signals);
	EXPECT_EQ(ORDSCHED_NO_TICKET, cw.ticket);
	ASSERT_EQ(0, dev_stats(self->a, &st));
	EXPECT_EQ(2, st.completed);
	EXPECT_EQ(2, st.tail);
}

TEST_F(pair, poll_wakes_on_the_turn)
{
	struct later l = { .fd = self->a, .ticket = 0, .delay_ns = 100 * MS };
	struct pollfd pfd = { .fd = self->b, .events = POLLIN };
	pthread_t th;
	__u64 start;

	EXPECT_EQ(0, poll(&pfd, 1, 0));
	start = now_ns();
	ASSERT_EQ(0, pthread_create(&th, NULL, complete_later, &l));
	EXPECT_EQ(1, poll(&pfd, 1, 10000));
	/* Woken, not at the timeout (where poll() looks once more). */
	EXPECT_GT(5 * SEC, now_ns() - start);
	EXPECT_EQ(POLLIN, pfd.revents);
	pthread_join(th, NULL);
	EXPECT_EQ(0, dev_wait(self->b, 1, 0));
}

TEST_F(pair, epoll_edge_triggered)
{
	struct later l = { .fd = self->a, .ticket = 0, .delay_ns = 100 * MS };
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET };
	int ep = epoll_create1(EPOLL_CLOEXEC);
	pthread_t th;

	ASSERT_LE(0, ep);
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, self->b, &ev));
	EXPECT_EQ(0, epoll_wait(ep, &ev, 1, 0));
	ASSERT_EQ(0, pthread_create(&th, NULL, complete_later, &l));
	EXPECT_EQ(1, epoll_wait(ep, &ev, 1, 10000));
	pthread_join(th, NULL);
	/* Closing a polled handle is safe. */
	close(self->b);
	self->b = dev_open();
	close(ep);
}

TEST_F(pair, status_page_shows_the_turn)
{
	struct later l = { .fd = self->a, .ticket = 0, .delay_ns = 50 * MS };
	const void *page = dev_map(self->b);
	pthread_t th;
	__u64 t0 = now_ns();

	ASSERT_NE(MAP_FAILED, page);
	EXPECT_EQ(0, dev_tail(page));
	ASSERT_EQ(0, pthread_create(&th, NULL, complete_later, &l));
	while (dev_tail(page) != 1 && now_ns() - t0 < 10 * SEC)
		;
	EXPECT_EQ(1, dev_tail(page));
	pthread_join(th, NULL);
	munmap((void *)page, getpagesize());
}

/*
 * "poll() reports EPOLLIN | EPOLLRDNORM while the tail is a ticket the
 * handle holds, and nothing else ever ... O_NONBLOCK changes nothing":
 * asked for every event, the holder of the tail reports those two, the
 * other handle none, also on descriptors set O_NONBLOCK; and a wait on
 * such a descriptor still waits for its deadline.
 */
TEST_F(pair, poll_reports_in_rdnorm_only)
{
	short all = POLLIN | POLLPRI | POLLOUT | POLLRDNORM | POLLRDBAND |
		    POLLWRNORM | POLLWRBAND | POLLRDHUP;
	struct pollfd p[2] = { { .fd = self->a, .events = all },
			       { .fd = self->b, .events = all } };
	struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT | EPOLLPRI |
					    EPOLLRDNORM | EPOLLWRNORM };
	__u64 t0;
	int ep, i;

	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, fcntl(p[i].fd, F_SETFL,
				   fcntl(p[i].fd, F_GETFL) | O_NONBLOCK));
	ASSERT_EQ(1, poll(p, 2, 0));
	EXPECT_EQ(POLLIN | POLLRDNORM, p[0].revents);
	EXPECT_EQ(0, p[1].revents);
	ep = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_LE(0, ep);
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, self->a, &ev));
	ASSERT_EQ(1, epoll_wait(ep, &ev, 1, 0));
	EXPECT_EQ(EPOLLIN | EPOLLRDNORM, ev.events);
	close(ep);
	/* Not its turn: the wait waits, O_NONBLOCK or not. */
	t0 = now_ns();
	EXPECT_EQ(-ETIMEDOUT, dev_wait(self->b, 1, t0 + 100 * MS));
	EXPECT_LE(t0 + 100 * MS, now_ns());
	/* Its turn: now the other handle reports the same two. */
	ASSERT_EQ(0, dev_complete(self->a, 0, 1));
	ASSERT_EQ(1, poll(p, 2, 0));
	EXPECT_EQ(0, p[0].revents);
	EXPECT_EQ(POLLIN | POLLRDNORM, p[1].revents);
}

/* A thread of the holder trashes the ticket another thread waits for. */
TEST_F(pair, trashed_while_waiting)
{
	struct later l = { .fd = self->b, .ticket = 1, .delay_ns = 100 * MS,
			   .trash = true };
	__u64 deadline = now_ns() + 20 * SEC;
	struct ordsched_stats st;
	pthread_t th;

	ASSERT_EQ(0, pthread_create(&th, NULL, complete_later, &l));
	EXPECT_EQ(-EALREADY, dev_wait(self->b, 1, deadline));
	/* Woken by the trash: at its deadline it would learn it anyway. */
	EXPECT_LT(now_ns() + SEC, deadline);
	pthread_join(th, NULL);
	ASSERT_EQ(0, dev_stats(self->b, &st));
	EXPECT_EQ(1, st.trashed);
}

#define WAITERS 8

struct waiter {
	int fd;
	__u64 ticket;
	long switches;	/* voluntary context switches inside the wait */
	int ret;
};

static void *wait_once(void *arg)
{
	struct waiter *w = arg;
	struct rusage r0, r1;

	getrusage(RUSAGE_THREAD, &r0);
	w->ret = dev_wait(w->fd, w->ticket, now_ns() + 60 * SEC);
	getrusage(RUSAGE_THREAD, &r1);
	w->switches = r1.ru_nvcsw - r0.ru_nvcsw;
	if (!w->ret)
		w->ret = dev_complete(w->fd, w->ticket, 1);
	return NULL;
}

/*
 * WAITERS threads sleep for tickets 1..WAITERS; completing 0 starts a
 * chain. Each thread must be woken by its own turn, and at most once
 * before it by the turn of the ticket before its own (woken ahead): a
 * thundering herd would wake the last one WAITERS times.
 */
TEST(only_the_turn_is_woken)
{
	struct waiter w[WAITERS];
	pthread_t th[WAITERS];
	struct ordsched_stats st;
	int fd = dev_open(), i;
	long switches = 0;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, dev_take(fd, WAITERS + 1, NULL));
	for (i = 0; i < WAITERS; i++) {
		w[i] = (struct waiter){ .fd = fd, .ticket = i + 1 };
		ASSERT_EQ(0, pthread_create(&th[i], NULL, wait_once, &w[i]));
	}
	dev_waits_reach(fd, WAITERS, 20, &st);
	ASSERT_EQ(WAITERS, st.waits);
	ASSERT_EQ(0, dev_complete(fd, 0, 1));
	for (i = 0; i < WAITERS; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(0, w[i].ret);
		switches = w[i].switches > switches ? w[i].switches : switches;
	}
	/*
	 * The kernel's wakeup count is the check: a herd would wake the
	 * waiters up to WAITERS * (WAITERS + 1) / 2 times. The threads'
	 * voluntary switches also count sleeps that are not ours (a page
	 * fault; on PREEMPT_RT, every wait for the domain's lock), so they
	 * are only shown.
	 */
	TH_LOG("at most %ld voluntary switches in a wait", switches);
	ASSERT_EQ(0, dev_stats(fd, &st));
	EXPECT_LE(WAITERS, st.wakeups);
	EXPECT_GE(2 * WAITERS - 1, st.wakeups);
	EXPECT_EQ(WAITERS + 1, st.tail);
	close(fd);
}

struct sleeper {
	int fd;
	__u64 ticket;
	int ret;
	bool done;
};

/* Sleep once until the turn: EBUSY is an answer here, not a retry. */
static void *sleep_once(void *arg)
{
	struct sleeper *s = arg;

	s->ret = dev_wait(s->fd, s->ticket, now_ns() + 120 * SEC);
	__atomic_store_n(&s->done, true, __ATOMIC_SEQ_CST);
	return NULL;
}

/*
 * The turn of 1 also wakes the sleeper of 2, ahead of its turn: it must
 * not return before the turn, and must still be woken at it after it went
 * back to sleep.
 */
TEST(next_is_woken_ahead)
{
	struct sleeper s1 = { .ticket = 1 }, s2 = { .ticket = 2 };
	struct ordsched_stats st;
	pthread_t th1, th2;
	int fd = dev_open();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, dev_take(fd, 3, NULL));
	s1.fd = fd;
	s2.fd = fd;
	ASSERT_EQ(0, pthread_create(&th1, NULL, sleep_once, &s1));
	ASSERT_EQ(0, pthread_create(&th2, NULL, sleep_once, &s2));
	dev_waits_reach(fd, 2, 10, &st);
	ASSERT_EQ(2, st.waits);
	ASSERT_EQ(0, st.wakeups);

	ASSERT_EQ(0, dev_complete(fd, 0, 1));
	pthread_join(th1, NULL);
	EXPECT_EQ(0, s1.ret);
	ASSERT_EQ(0, dev_stats(fd, &st));
	EXPECT_EQ(2, st.wakeups);

	/* Far longer than the spin: 2 is asleep again, and not back. */
	usleep(300 * 1000);
	EXPECT_FALSE(__atomic_load_n(&s2.done, __ATOMIC_SEQ_CST));
	ASSERT_EQ(0, dev_stats(fd, &st));
	EXPECT_EQ(1, st.tail);
	EXPECT_EQ(2, st.waits);

	ASSERT_EQ(0, dev_complete(fd, 1, 1));
	pthread_join(th2, NULL);
	EXPECT_EQ(0, s2.ret);
	ASSERT_EQ(0, dev_stats(fd, &st));
	EXPECT_EQ(3, st.wakeups);
	EXPECT_EQ(0, st.timeouts);
	EXPECT_EQ(0, dev_complete(fd, 2, 1));
	close(fd);
}

/*
 * A child on its own handle is killed with SIGKILL while it holds the
 * turn (sleeping = 0), or while it sleeps in the kernel waiting for a
 * later ticket (sleeping = 1). Its tickets are trashed when it dies and
 * the parent goes on: its wait ends well within its 5 s bound.
 */
static void holder_killed(struct __test_metadata *_metadata, int sleeping)
{
	int fd = dev_open(), c2p[2], p2c[2], status;
	struct ordsched_stats st;
	__u64 t, t0, waits;
	pid_t pid;
	char c = 'x';

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pipe(c2p));
	ASSERT_EQ(0, pipe(p2c));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int h = dev_new_handle(fd, ORDSCHED_HANDLE_CLOEXEC);

		close(fd);
		if (h < 0 || dev_take(h, 1, NULL))		/* 0 */
			_exit(1);
		if (write(c2p[1], &c, 1) != 1)
			_exit(1);
		if (sleeping) {
			if (read(p2c[0], &c, 1) != 1 ||
			    dev_take(h, 1, NULL) ||		/* 2 */
			    write(c2p[1], &c, 1) != 1)
				_exit(1);
			/* Complete 0, sleep for 2 behind the parent's 1. */
			dev_complete_wait(h, 0, 2, ORDSCHED_NO_DEADLINE);
		}
		pause();
		_exit(0);
	}
	ASSERT_EQ(1, read(c2p[0], &c, 1));
	ASSERT_EQ(0, dev_take(fd, 1, &t));
	ASSERT_EQ(1, t);
	if (sleeping) {
		ASSERT_EQ(0, dev_stats(fd, &st));
		waits = st.waits;
		ASSERT_EQ(1, write(p2c[1], &c, 1));
		ASSERT_EQ(1, read(c2p[0], &c, 1));
		ASSERT_EQ(0, dev_take(fd, 1, &t));
		ASSERT_EQ(3, t);
		/*
		 * The child completes 0 (our turn) and sleeps for 2 behind
		 * our 1: counted once asleep, the one wait that sleeps.
		 */
		ASSERT_EQ(0, dev_waits_reach(fd, waits + 1, 20, &st));
		EXPECT_EQ(1, st.tail);
	} else {
		/* The child holds the turn. */
		EXPECT_EQ(-ETIMEDOUT, dev_wait(fd, 1, now_ns() + 50 * MS));
	}
	t0 = now_ns();
	ASSERT_EQ(0, kill(pid, SIGKILL));
	if (sleeping) {
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_EQ(0, dev_complete(fd, 1, 1));
	}
	EXPECT_EQ(0, dev_wait(fd, t, now_ns() + 5 * SEC));
	EXPECT_GT(5 * SEC, now_ns() - t0);
	if (!sleeping)
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFSIGNALED(status));
	ASSERT_EQ(0, dev_stats(fd, &st));
	EXPECT_EQ(1, st.released);
	EXPECT_EQ(1, st.handles);
	EXPECT_EQ(t, st.tail);
	EXPECT_EQ(0, dev_complete(fd, t, 1));
	close(c2p[0]);
	close(c2p[1]);
	close(p2c[0]);
	close(p2c[1]);
	close(fd);
}

TEST(holder_killed_holding_the_turn)
{
	holder_killed(_metadata, 0);
}

TEST(holder_killed_while_sleeping)
{
	holder_killed(_metadata, 1);
}

/* A forked child shares the handle, so it may complete its tickets. */
TEST(fork_shares_the_handle)
{
	int fd = dev_open(), status;
	struct ordsched_stats st;
	pid_t pid;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, dev_take(fd, 2, NULL));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(dev_complete(fd, 0, 1) ? 1 : 0);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	ASSERT_EQ(0, dev_stats(fd, &st));
	EXPECT_EQ(1, st.tail);
	EXPECT_EQ(0, st.released);
	close(fd);
}

struct long_waiter {
	int fd;
	__u64 ticket;
	int ret;
};

/* Sleep until the turn; a probe of wait_busy() may take the room a while. */
static void *wait_long(void *arg)
{
	struct long_waiter *w = arg;

	while ((w->ret = dev_wait(w->fd, w->ticket, now_ns() + 120 * SEC)) ==
	       -EBUSY)
		usleep(1000);
	return NULL;
}

/*
 * Probe with short waits until one answers EBUSY: 0, or the last answer.
 * The 128 sleepers of a handle take a while to be created and queued in
 * an emulated guest on a loaded host: 5 s were once not enough. A probe
 * that slept took a sleeper's room for its 10 ms; the next one waits
 * 20 ms first, or a sleeper that got EBUSY meanwhile and retries every
 * millisecond can find the room taken by probe after probe (seen once:
 * 30 s of it on 6.12).
 */
static int wait_busy(int fd, __u64 t)
{
	__u64 end = now_ns() + 30 * SEC;
	int ret;

	for (;;) {
		ret = dev_wait(fd, t, now_ns() + 10 * MS);
		if (ret != -ETIMEDOUT || now_ns() >= end)
			break;
		usleep(20 * 1000);
	}
	return ret == -EBUSY ? 0 : ret ? ret : -EINVAL;
}

#define BOUND_HANDLES	(ORDSCHED_MAX_WAITERS_DOMAIN / ORDSCHED_MAX_WAITERS_HANDLE)

/*
 * Handle k + 1 holds ticket k + 1 behind the tail (0, held by handle 0):
 * ORDSCHED_MAX_WAITERS_HANDLE threads sleep on each of the first
 * BOUND_HANDLES, then one more on the first answers EBUSY, and one on
 * the next handle too (the domain is full); a wait at its turn is still
 * answered. Then every sleeper gets its turn.
 */
static void bounded_waiters(struct __test_metadata *_metadata, bool ring)
{
	struct ordsched_ring_setup setup = { 0 };
	int fd[BOUND_HANDLES + 2], i, k, n = 0;
	static struct long_waiter w[ORDSCHED_MAX_WAITERS_DOMAIN];
	static pthread_t th[ORDSCHED_MAX_WAITERS_DOMAIN];
	pthread_attr_t attr;
	__u64 t;

	fd[0] = dev_open();
	ASSERT_LE(0, fd[0]);
	if (ring)
		ASSERT_EQ(0, dev_ioctl(fd[0], ORDSCHED_IOC_RING_SETUP, &setup));
	for (k = 0; k < BOUND_HANDLES + 2; k++) {
		if (k) {
			fd[k] = dev_new_handle(fd[0], ORDSCHED_HANDLE_CLOEXEC);
			ASSERT_LE(0, fd[k]);
		}
		ASSERT_EQ(0, dev_take(fd[k], 1, &t));
		ASSERT_EQ(k, t);
	}
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (k = 1; k <= BOUND_HANDLES; k++) {
		for (i = 0; i < ORDSCHED_MAX_WAITERS_HANDLE; i++, n++) {
			w[n] = (struct long_waiter){ .fd = fd[k], .ticket = k };
			ASSERT_EQ(0, pthread_create(&th[n], &attr, wait_long,
						    &w[n]));
		}
		/* The handle is full; with the last one, the domain too. */
		EXPECT_EQ(0, wait_busy(fd[k], k));
	}
	EXPECT_EQ(-EBUSY, dev_wait(fd[BOUND_HANDLES + 1], BOUND_HANDLES + 1,
				   now_ns() + 10 * MS));
	/* Its turn needs no sleep. */
	EXPECT_EQ(0, dev_wait(fd[0], 0, now_ns() + 10 * MS));
	/* Each handle's sleepers see their turn before it passes. */
	EXPECT_EQ(0, dev_complete(fd[0], 0, 1));
	for (k = 1, i = 0; k <= BOUND_HANDLES; k++) {
		for (; i < k * ORDSCHED_MAX_WAITERS_HANDLE; i++) {
			pthread_join(th[i], NULL);
			EXPECT_EQ(0, w[i].ret);
		}
		EXPECT_EQ(0, dev_complete(fd[k], k, 1));
	}
	EXPECT_EQ(0, dev_complete(fd[k], k, 1));
	pthread_attr_destroy(&attr);
	for (k = 0; k < BOUND_HANDLES + 2; k++)
		close(fd[k]);
}

/*
 * A range retired while its tickets are waited for wakes the waiters of
 * every ticket in it, whatever bucket they share, and nobody else: a
 * waiter for the ticket after the range sleeps on until its turn.
 */
TEST(range_trashed_while_waiting)
{
	static const __u64 tickets[] = { 1, 64, 65, 100, 101 };
	struct ordsched_stats st;
	struct long_waiter w[5];
	pthread_t th[5];
	int a, b, c, i;
	__u64 t;

	a = dev_open();
	ASSERT_LE(0, a);
	b = dev_new_handle(a, ORDSCHED_HANDLE_CLOEXEC);
	ASSERT_LE(0, b);
	c = dev_new_handle(a, ORDSCHED_HANDLE_CLOEXEC);
	ASSERT_LE(0, c);
	ASSERT_EQ(0, dev_take(a, 1, &t));
	ASSERT_EQ(0, dev_take(b, 100, &t));
	ASSERT_EQ(1, t);
	ASSERT_EQ(0, dev_take(c, 1, &t));
	ASSERT_EQ(101, t);
	for (i = 0; i < 5; i++) {
		w[i] = (struct long_waiter){ .fd = i < 4 ? b : c,
					     .ticket = tickets[i] };
		ASSERT_EQ(0, pthread_create(&th[i], NULL, wait_long, &w[i]));
	}
	/* All five asleep (counted), not after a time: one may be late. */
	ASSERT_EQ(0, dev_waits_reach(a, 5, 60, &st));
	EXPECT_EQ(0, dev_trash(b, 1, 100));
	for (i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(-EALREADY, w[i].ret);
	}
	/* Four woken, 101 not even for a look: it was not in the range. */
	ASSERT_EQ(0, dev_stats(a, &st));
	EXPECT_EQ(4, st.wakeups);
	usleep(100 * 1000);
	EXPECT_EQ(0, pthread_tryjoin_np(th[4], NULL) == 0);
	EXPECT_EQ(0, dev_complete(a, 0, 1));
	pthread_join(th[4], NULL);
	EXPECT_EQ(0, w[4].ret);
	close(c);
	close(b);
	close(a);
}

/*
 * 512 sleeping threads, created and woken one turn after another: on a
 * loaded two-CPU emulated guest that once took longer than the harness's
 * default 30 s.
 */
FIXTURE(slow) {};
FIXTURE_SETUP(slow) {}
FIXTURE_TEARDOWN(slow) {}

TEST_F_TIMEOUT(slow, waiters_are_bounded, 120)
{
	bounded_waiters(_metadata, false);
}

TEST_F_TIMEOUT(slow, waiters_are_bounded_in_a_ring, 120)
{
	bounded_waiters(_metadata, true);
}

struct prober {
	int fd;
	__u64 ticket;
	bool stop;
	unsigned int let_in;	/* waits that slept until their deadline */
};

/* Try to sleep on a full handle until told to stop. */
static void *probe_room(void *arg)
{
	struct prober *p = arg;

	while (!__atomic_load_n(&p->stop, __ATOMIC_SEQ_CST))
		if (dev_wait(p->fd, p->ticket, now_ns() + 20 * MS) ==
		    -ETIMEDOUT)
			p->let_in++;
	return NULL;
}

/* How woken_ahead() wakes the sleepers of ticket 2 before its turn. */
enum wake_early { TURN_OF_1, TURN_OF_1_RING, FORGED_WAKES };

/*
 * A handle full of sleepers, all for ticket 2, is woken before its turn
 * while a prober keeps trying to sleep on the same handle, by the turn of
 * 1 (waking ahead), or by RING_WAKEs of 2 that another handle forges.
 * Woken ahead, a sleeper keeps its place: the prober is never let in (the
 * wake-up ahead once dequeued them, and a prober that took a place in
 * between had them answer EBUSY). A forged wake-up does dequeue them, but
 * a wait counts in the limits until it returns: the prober is never let
 * in either (it was, and the sleepers slept on past the limits, which
 * rounds of forged wake-ups and new sleepers could grow without bound).
 * Either way every sleeper's wait ends at its turn with 0, never with
 * EBUSY.
 */
static void woken_ahead(struct __test_metadata *_metadata, enum wake_early how)
{
	static struct sleeper s[ORDSCHED_MAX_WAITERS_HANDLE];
	static pthread_t th[ORDSCHED_MAX_WAITERS_HANDLE];
	struct ordsched_ring_setup setup = { 0 };
	struct ordsched_ring_wake wake = { .ticket = 2 };
	struct prober p = { .ticket = 3 };
	__u64 t;
	struct ordsched_stats st;
	pthread_attr_t attr;
	int fd0 = dev_open(), fd1, i;
	pthread_t pth;

	ASSERT_LE(0, fd0);
	if (how != TURN_OF_1)
		ASSERT_EQ(0, dev_ioctl(fd0, ORDSCHED_IOC_RING_SETUP, &setup));
	fd1 = dev_new_handle(fd0, ORDSCHED_HANDLE_CLOEXEC);
	ASSERT_LE(0, fd1);
	ASSERT_EQ(0, dev_take(fd0, 1, &t));
	ASSERT_EQ(0, t);
	for (i = 1; i <= 3; i++) {
		ASSERT_EQ(0, dev_take(fd1, 1, &t));
		ASSERT_EQ(i, t);
	}
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (i = 0; i < ORDSCHED_MAX_WAITERS_HANDLE; i++) {
		s[i] = (struct sleeper){ .fd = fd1, .ticket = 2 };
		ASSERT_EQ(0, pthread_create(&th[i], &attr, sleep_once, &s[i]));
	}
	pthread_attr_destroy(&attr);
	ASSERT_EQ(0, dev_waits_reach(fd0, ORDSCHED_MAX_WAITERS_HANDLE, 60,
				     &st));
	p.fd = fd1;
	ASSERT_EQ(-EBUSY, dev_wait(fd1, 3, now_ns() + 10 * MS));
	ASSERT_EQ(0, pthread_create(&pth, NULL, probe_room, &p));

	if (how == FORGED_WAKES) {
		/* Ten of them: each wakes those queued again by then. */
		for (i = 0; i < 10; i++) {
			ASSERT_EQ(0, dev_ioctl(fd0, ORDSCHED_IOC_RING_WAKE,
					       &wake));
			usleep(50 * 1000);
		}
	} else {
		/* The turn of 1, whose handle sleeps on 2. */
		ASSERT_EQ(0, dev_complete(fd0, 0, 1));
	}
	for (i = 0; i < 1000; i++) {
		ASSERT_EQ(0, dev_stats(fd0, &st));
		if (st.wakeups >= ORDSCHED_MAX_WAITERS_HANDLE)
			break;
		usleep(10 * 1000);
	}
	EXPECT_LE(ORDSCHED_MAX_WAITERS_HANDLE, st.wakeups);
	if (how == FORGED_WAKES) {
		EXPECT_GE(10 * ORDSCHED_MAX_WAITERS_HANDLE, st.wakeups);
	} else {
		EXPECT_EQ(ORDSCHED_MAX_WAITERS_HANDLE, st.wakeups);
	}
	/* Far longer than the spin: all asleep again, none gone. */
	usleep(300 * 1000);
	__atomic_store_n(&p.stop, true, __ATOMIC_SEQ_CST);
	pthread_join(pth, NULL);
	EXPECT_EQ(0, p.let_in);
	for (i = 0; i < ORDSCHED_MAX_WAITERS_HANDLE; i++)
		EXPECT_FALSE(__atomic_load_n(&s[i].done, __ATOMIC_SEQ_CST));

	if (how == FORGED_WAKES)
		ASSERT_EQ(0, dev_complete(fd0, 0, 1));
	ASSERT_EQ(0, dev_complete(fd1, 1, 1));
	for (i = 0; i < ORDSCHED_MAX_WAITERS_HANDLE; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(0, s[i].ret);
	}
	ASSERT_EQ(0, dev_stats(fd0, &st));
	EXPECT_EQ(0, st.timeouts - p.let_in);
	EXPECT_EQ(ORDSCHED_MAX_WAITERS_HANDLE + p.let_in, st.waits);
	EXPECT_EQ(0, dev_complete(fd1, 2, 1));
	EXPECT_EQ(0, dev_complete(fd1, 3, 1));
	close(fd1);
	close(fd0);
}

TEST(woken_ahead_keep_their_place)
{
	woken_ahead(_metadata, TURN_OF_1);
}

TEST(woken_ahead_keep_their_place_in_a_ring)
{
	woken_ahead(_metadata, TURN_OF_1_RING);
}

TEST(forged_wakes_let_no_sleeper_go)
{
	woken_ahead(_metadata, FORGED_WAKES);
}

TEST_HARNESS_MAIN
