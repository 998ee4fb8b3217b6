// SPDX-License-Identifier: GPL-2.0
/*
 * Order through /dev/ordsched under load: T = 2..8 threads on one handle,
 * and several processes each with its own handle on one domain, take
 * tickets singly and in batches and commit each ticket in an ordered
 * section. The section checks that nobody else is inside it and that the
 * ticket is the one after the last committed; afterwards every ticket
 * must have been committed exactly once. More than 100,000 tickets go
 * through each kind of run: threads commit one by one (complete and wait
 * for the next in one call), processes a whole batch in one turn.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "dev_util.h"
#include "kselftest_harness.h"

#define THREAD_TICKETS	15000	/* per variant: 7 variants, 105,000 */
#define PROC_TICKETS	100000
#define WAIT_NS		(20 * 1000000000ULL)	/* a hang fails, not stalls */

/* What the ordered section sees; in shared memory for processes. */
struct ledger {
	__u64 next;		/* the ticket that must commit next */
	__u64 n;		/* tickets in the run */
	int busy;
	int errors;
	unsigned char seen[];	/* commits per ticket */
};

struct worker {
	int fd;
	const void *page;
	struct ledger *ledger;
	unsigned int seed;
	__u32 max_batch;
	int batch_commit;	/* commit a batch at once, else one by one */
	int err;		/* first unexpected errno */
};

static struct ledger *ledger_new(__u64 n)
{
	struct ledger *l = mmap(NULL, sizeof(*l) + n, PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (l == MAP_FAILED)
		return NULL;
	l->n = n;
	return l;
}

static void commit(struct ledger *l, __u64 t)
{
	if (__atomic_exchange_n(&l->busy, 1, __ATOMIC_ACQUIRE))
		__atomic_fetch_add(&l->errors, 1, __ATOMIC_RELAXED);
	if (l->next != t)
		__atomic_fetch_add(&l->errors, 1, __ATOMIC_RELAXED);
	l->next = t + 1;
	l->seen[t]++;
	__atomic_store_n(&l->busy, 0, __ATOMIC_RELEASE);
}

/*
 * Wait for @t having completed @prev (if any): first a short spin on the
 * status page, as libordsched does, then the kernel.
 */
static int turn(struct worker *w, __u64 prev, __u64 t)
{
	__u64 deadline = now_ns() + WAIT_NS;
	int i, ret;

	if (prev == ORDSCHED_NO_TICKET) {
		for (i = 0; i < 64; i++)
			if (dev_tail(w->page) == t)
				return 0;
	}
	ret = dev_complete_wait(w->fd, prev, t, deadline);
	/*
	 * At its deadline a wait looks at the turn once more: a lost
	 * wake-up would end in 0 there, a stall, not a failure. A turn
	 * that took nearly all of WAIT_NS is one.
	 */
	if (!ret && now_ns() + 1000000000ULL > deadline)
		return -ETIMEDOUT;
	return ret;
}

/* Commit tickets one by one: complete one and wait for the next at once. */
static int work_singly(struct worker *w, __u64 first, __u32 count)
{
	__u64 t, pending = ORDSCHED_NO_TICKET;
	int ret;

	for (t = first; t < first + count; t++) {
		ret = turn(w, pending, t);
		if (ret)
			return ret;
		commit(w->ledger, t);
		pending = t;
	}
	/* Never hold a committed ticket across a take. */
	return dev_complete(w->fd, pending, 1);
}

/* Commit a whole batch in its first ticket's turn, complete it at once. */
static int work_batch(struct worker *w, __u64 first, __u32 count)
{
	__u64 t;
	int ret = turn(w, ORDSCHED_NO_TICKET, first);

	if (ret)
		return ret;
	for (t = first; t < first + count; t++)
		commit(w->ledger, t);
	return dev_complete(w->fd, first, count);
}

static int work(struct worker *w)
{
	struct ledger *l = w->ledger;
	__u64 first;
	__u32 count, keep;
	int ret;

	for (;;) {
		count = 1 + rand_r(&w->seed) % w->max_batch;
		ret = dev_take(w->fd, count, &first);
		if (ret == -EAGAIN) {
			usleep(100);
			continue;
		}
		if (ret)
			return ret;
		/* Tickets past the end of the run are trashed. */
		keep = first >= l->n ? 0 : l->n - first < count ? l->n - first : count;
		if (keep < count) {
			ret = dev_trash(w->fd, first + keep, count - keep);
			if (ret || !keep)
				return ret;
		}
		ret = w->batch_commit ? work_batch(w, first, keep) :
					work_singly(w, first, keep);
		if (ret || keep < count)
			return ret;
	}
}

static void *work_thread(void *arg)
{
	struct worker *w = arg;

	w->err = work(w);
	return NULL;
}

static void check_ledger(struct __test_metadata *_metadata,
			 struct ledger *l)
{
	__u64 t, bad = 0;

	EXPECT_EQ(0, l->errors);
	EXPECT_EQ(l->n, l->next);
	for (t = 0; t < l->n; t++)
		bad += l->seen[t] != 1;
	EXPECT_EQ(0, bad);
}

FIXTURE(threads) {
	int fd;
	const void *page;
	struct ledger *ledger;
};

FIXTURE_VARIANT(threads) {
	int nthreads;
};

FIXTURE_VARIANT_ADD(threads, t2) { .nthreads = 2 };
FIXTURE_VARIANT_ADD(threads, t3) { .nthreads = 3 };
FIXTURE_VARIANT_ADD(threads, t4) { .nthreads = 4 };
FIXTURE_VARIANT_ADD(threads, t5) { .nthreads = 5 };
FIXTURE_VARIANT_ADD(threads, t6) { .nthreads = 6 };
FIXTURE_VARIANT_ADD(threads, t7) { .nthreads = 7 };
FIXTURE_VARIANT_ADD(threads, t8) { .nthreads = 8 };

FIXTURE_SETUP(threads)
{
	self->fd = dev_open();
	ASSERT_LE(0, self->fd);
	self->page = dev_map(self->fd);
	ASSERT_NE(MAP_FAILED, self->page);
	self->ledger = ledger_new(THREAD_TICKETS);
	ASSERT_NE(NULL, self->ledger);
}

FIXTURE_TEARDOWN(threads)
{
	munmap(self->ledger, sizeof(*self->ledger) + THREAD_TICKETS);
	munmap((void *)self->page, getpagesize());
	close(self->fd);
}

TEST_F_TIMEOUT(threads, in_order, 300)
{
	struct worker w[8];
	pthread_t tid[8];
	struct ordsched_stats st;
	__u64 t0 = now_ns();
	int i;

	for (i = 0; i < variant->nthreads; i++) {
		w[i] = (struct worker){
			.fd = self->fd, .page = self->page,
			.ledger = self->ledger, .seed = i + 1, .max_batch = 8,
		};
		ASSERT_EQ(0, pthread_create(&tid[i], NULL, work_thread, &w[i]));
	}
	for (i = 0; i < variant->nthreads; i++) {
		pthread_join(tid[i], NULL);
		EXPECT_EQ(0, w[i].err);
	}
	check_ledger(_metadata, self->ledger);
	ASSERT_EQ(0, dev_stats(self->fd, &st));
	EXPECT_EQ(0, st.held);
	EXPECT_EQ(THREAD_TICKETS, st.completed);
	EXPECT_EQ(st.head, st.tail);
	TH_LOG("%d threads: %llu tickets in %llu ms, %llu slept, %llu wakeups",
	       variant->nthreads, (unsigned long long)st.completed,
	       (unsigned long long)(now_ns() - t0) / 1000000,
	       (unsigned long long)st.waits, (unsigned long long)st.wakeups);
	/*
	 * Only the waiter whose turn came is woken, and the next one ahead
	 * of its turn: at most two wake-ups per sleep, where a herd would
	 * give up to one per thread.
	 */
	EXPECT_LE(st.wakeups, 2 * st.waits);
}

FIXTURE(procs) {
	int fd;
	const void *page;
};

FIXTURE_SETUP(procs)
{
	self->fd = dev_open();
	ASSERT_LE(0, self->fd);
	self->page = dev_map(self->fd);
	ASSERT_NE(MAP_FAILED, self->page);
}

FIXTURE_TEARDOWN(procs)
{
	munmap((void *)self->page, getpagesize());
	close(self->fd);
}

/* Four processes, each with its own handle on one domain. */
TEST_F_TIMEOUT(procs, in_order, 300)
{
	int nproc = 4, i, status;
	struct ledger *l;
	struct ordsched_stats st;
	pid_t pid[4];
	__u64 t0 = now_ns();

	l = ledger_new(PROC_TICKETS);
	ASSERT_NE(NULL, l);
	for (i = 0; i < nproc; i++) {
		pid[i] = fork();
		ASSERT_LE(0, pid[i]);
		if (pid[i] == 0) {
			struct worker w = {
				.page = self->page, .ledger = l, .seed = 100 + i,
				.max_batch = 32, .batch_commit = 1,
			};

			w.fd = dev_new_handle(self->fd, ORDSCHED_HANDLE_CLOEXEC);
			close(self->fd);
			if (w.fd < 0)
				_exit(2);
			_exit(work(&w) ? 1 : 0);
		}
	}
	for (i = 0; i < nproc; i++) {
		ASSERT_EQ(pid[i], waitpid(pid[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status));
		EXPECT_EQ(0, WEXITSTATUS(status));
	}
	check_ledger(_metadata, l);
	ASSERT_EQ(0, dev_stats(self->fd, &st));
	EXPECT_EQ(PROC_TICKETS, st.completed);
	EXPECT_EQ(0, st.released);
	EXPECT_EQ(1, st.handles);
	TH_LOG("%d processes: %llu tickets in %llu ms, %llu slept",
	       nproc, (unsigned long long)st.completed,
	       (unsigned long long)(now_ns() - t0) / 1000000,
	       (unsigned long long)st.waits);
	munmap(l, sizeof(*l) + PROC_TICKETS);
}

TEST_HARNESS_MAIN
