// SPDX-License-Identifier: GPL-2.0
/*
 * A randomized fuzzer of /dev/ordsched, bounded in time (FUZZ_SECONDS):
 * threads issue random commands with random counts, tickets, flags,
 * reserved fields, deadlines and pointers on a shared pool of
 * descriptors, while others close and reopen them, map and unmap status
 * pages, fork children that act and get killed, and send signals. Every
 * answer must be one the ABI documents for that command; the kernel must
 * stay quiet (the guest runner checks its log) and the device must work
 * afterwards.
 *
 * The same over ring domains (uapi/linux/ordsched_ring.h), with the ring
 * commands too, while a thread scribbles random values into the shared
 * ring page of whichever pool domain it last mapped: the trust model says
 * that at worst the scribbled domain stalls or misorders, with documented
 * errnos only. Domains outside the pool, a ring domain and one without,
 * commit in order meanwhile and must not notice.
 */
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "ring_util.h"
#include "kselftest_harness.h"

#define FUZZ_SECONDS	20
#define RING_FUZZ_SECONDS	8
#define THREADS		4
#define POOL		8

/* errno bits a command may answer with, besides success. */
typedef unsigned __int128 errset;
#define E(x)		((errset)1 << (x))
#define ANY		(E(EFAULT) | E(EINVAL) | E(ENOTTY) | E(EBADF))
#define WAITS		(E(ETIMEDOUT) | E(EINTR) | E(EPERM) | E(EALREADY) | \
			 E(EBUSY))
#define RETIRES		(E(EPERM) | E(EALREADY))
/* More answers in a ring domain: no id left, a page scribbled on. */
#define RING_ID		(E(ENOSPC) | E(ENOMEM))
#define RING_ANY	(RING_ID | E(EIO) | E(EBUSY) | E(EAGAIN))

struct fuzz {
	int pool[POOL];		/* descriptors, replaced at random */
	__u64 deadline;
	void *ro, *hole;	/* a read-only page, an inaccessible page */
	volatile int go, stop, running;
	/* Ring domains in the pool; the answers that allows. */
	int ring;
	errset more;
	pthread_t threads[THREADS];
	long ops, bad;
	char bad_what[128];
};

static void on_sigusr1(int sig)
{
}

static __u64 rnd(unsigned int *seed)
{
	return (__u64)rand_r(seed) << 42 ^ (__u64)rand_r(seed) << 21 ^
	       rand_r(seed);
}

/* A count: mostly small and valid, sometimes at or past the limits. */
static __u32 rnd_count(unsigned int *seed)
{
	switch (rand_r(seed) % 8) {
	case 0:
		return 0;
	case 1:
		return rnd(seed);
	case 2:
		return 255 + rand_r(seed) % 4;
	default:
		return 1 + rand_r(seed) % 8;
	}
}

/* A ticket near the live window, or anywhere. */
static __u64 rnd_ticket(unsigned int *seed, int fd)
{
	struct ordsched_stats st;

	if (rand_r(seed) % 8 == 0)
		return rand_r(seed) % 2 ? rnd(seed) : ORDSCHED_NO_TICKET;
	if (dev_stats(fd, &st))
		return rand_r(seed) % 64;
	return st.tail + rand_r(seed) % (st.head - st.tail + 4) - 2;
}

/* Mostly 0; sometimes one random bit. */
static __u32 rnd_bits(unsigned int *seed)
{
	return rand_r(seed) % 6 ? 0 : 1U << (rand_r(seed) % 32);
}

/* A deadline within 2 ms, in the past, or none (the pool bounds it). */
static __u64 rnd_deadline(unsigned int *seed)
{
	switch (rand_r(seed) % 4) {
	case 0:
		return 0;
	case 1:
		return rnd(seed) | 1ULL << 63;
	default:
		return now_ns() + rand_r(seed) % (2 * MS);
	}
}

/* A pointer: mostly a good buffer, else NULL, kernel, read-only, no access. */
static void *rnd_ptr(unsigned int *seed, struct fuzz *f, void *good)
{
	switch (rand_r(seed) % 12) {
	case 0:
		return NULL;
	case 1:
		return (void *)0xffff888000000000ULL;
	case 2:
		return f->ro;
	case 3:
		return f->hole;
	default:
		return good;
	}
}

static void check(struct fuzz *f, const char *what, int ret, errset allowed)
{
	__atomic_fetch_add(&f->ops, 1, __ATOMIC_RELAXED);
	if (ret >= 0 || (-ret < 128 && (allowed & E(-ret))))
		return;
	if (__atomic_fetch_add(&f->bad, 1, __ATOMIC_RELAXED) == 0)
		snprintf(f->bad_what, sizeof(f->bad_what), "%s: %s", what,
			 strerror(-ret));
}

static int pool_fd(struct fuzz *f, unsigned int *seed)
{
	return __atomic_load_n(&f->pool[rand_r(seed) % POOL], __ATOMIC_RELAXED);
}

/* A new domain made a ring domain, or -errno. */
static int ring_domain_open(void)
{
	struct ordsched_ring_setup setup;
	int fd = dev_open(), ret;

	if (fd < 0)
		return fd;
	ret = ring_setup(fd, &setup);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

/* Replace a descriptor: a new domain, or a new handle on another. */
static void pool_replace(struct fuzz *f, unsigned int *seed)
{
	int i = rand_r(seed) % POOL, fd;

	if (rand_r(seed) % 2)
		fd = f->ring ? ring_domain_open() : dev_open();
	else
		fd = dev_new_handle(pool_fd(f, seed), rnd_bits(seed) & 1);
	if (fd < 0) {
		check(f, "replace", fd, E(EBADF) | E(ENOTTY) | E(EMFILE) |
		      f->more);
		return;
	}
	fd = __atomic_exchange_n(&f->pool[i], fd, __ATOMIC_RELAXED);
	close(fd);
}

static void fuzz_ioctl(struct fuzz *f, unsigned int *seed, int fd)
{
	__u64 buf[32];
	void *p;
	int i;

	for (i = 0; i < 32; i++)
		buf[i] = rand_r(seed) % 4 ? 0 : rnd(seed);
	p = rnd_ptr(seed, f, buf);
	switch (rand_r(seed) % (f->ring ? 13 : 10)) {
	case 0: {
		struct ordsched_api *a = (void *)buf;

		a->version = rand_r(seed) % 8 ? ORDSCHED_API_VERSION : rnd(seed);
		check(f, "api", dev_ioctl(fd, ORDSCHED_IOC_API, p), ANY);
		break;
	}
	case 1: {
		struct ordsched_take *t = (void *)buf;

		t->count = rnd_count(seed);
		t->flags = rnd_bits(seed);
		check(f, "take", dev_ioctl(fd, ORDSCHED_IOC_TAKE, p),
		      ANY | E(EAGAIN) | f->more);
		break;
	}
	case 2: {
		struct ordsched_wait *w = (void *)buf;

		w->ticket = rnd_ticket(seed, fd);
		w->deadline_ns = rnd_deadline(seed);
		w->flags = rnd_bits(seed);
		w->pad = rnd_bits(seed);
		check(f, "wait", dev_ioctl(fd, ORDSCHED_IOC_WAIT, p),
		      ANY | WAITS | (f->more & RING_ID));
		break;
	}
	case 3:
	case 4: {
		struct ordsched_range *r = (void *)buf;

		r->ticket = rnd_ticket(seed, fd);
		r->count = rnd_count(seed);
		r->flags = rnd_bits(seed);
		check(f, "retire", dev_ioctl(fd, rand_r(seed) % 2 ? ORDSCHED_IOC_COMPLETE :
					    ORDSCHED_IOC_TRASH, p),
		      ANY | RETIRES | (f->more & RING_ID));
		break;
	}
	case 5: {
		struct ordsched_complete_wait *cw = (void *)buf;

		cw->ticket = rnd_ticket(seed, fd);
		cw->next = rnd_ticket(seed, fd);
		cw->deadline_ns = rnd_deadline(seed);
		cw->flags = rnd_bits(seed);
		cw->pad = rnd_bits(seed);
		check(f, "complete_wait",
		      dev_ioctl(fd, ORDSCHED_IOC_COMPLETE_WAIT, p),
		      ANY | WAITS | (f->more & RING_ID));
		break;
	}
	case 6: {
		struct ordsched_new_handle *nh = (void *)buf;
		int ret;

		nh->flags = rnd_bits(seed);
		ret = dev_ioctl(fd, ORDSCHED_IOC_NEW_HANDLE, p);
		check(f, "new_handle", ret, ANY | E(EMFILE));
		if (ret >= 0)
			close(ret);
		break;
	}
	case 7: {
		struct ordsched_stats *st = (void *)buf;

		st->flags = rnd_bits(seed);
		check(f, "stats", dev_ioctl(fd, ORDSCHED_IOC_STATS, p), ANY);
		break;
	}
	case 10: {
		struct ordsched_ring_setup *rs = (void *)buf;

		rs->flags = rnd_bits(seed);
		if (rand_r(seed) % 2)
			memset(rs->reserved, 0, sizeof(rs->reserved));
		check(f, "ring_setup", dev_ioctl(fd, ORDSCHED_IOC_RING_SETUP, p),
		      ANY | E(EBUSY) | RING_ID);
		break;
	}
	case 11: {
		struct ordsched_ring_wait *w = (void *)buf;

		w->ticket = rnd_ticket(seed, fd);
		w->deadline_ns = rnd_deadline(seed);
		w->flags = rnd_bits(seed);
		w->pad = rnd_bits(seed);
		check(f, "ring_wait", dev_ioctl(fd, ORDSCHED_IOC_RING_WAIT, p),
		      ANY | WAITS | RING_ID);
		break;
	}
	case 12: {
		struct ordsched_ring_wake *w = (void *)buf;

		w->ticket = rnd_ticket(seed, fd);
		w->flags = rnd_bits(seed);
		w->pad = rnd_bits(seed);
		check(f, "ring_wake", dev_ioctl(fd, ORDSCHED_IOC_RING_WAKE, p),
		      ANY);
		break;
	}
	default: {
		/* Any command of our type: a random number, size, direction. */
		unsigned long cmd = _IOC(rand_r(seed) % 4, ORDSCHED_IOC_MAGIC,
					 rand_r(seed) % 12, rand_r(seed) % 256);
		int ret = dev_ioctl(fd, cmd, p);

		check(f, "raw", ret, ANY | WAITS | E(EAGAIN) | E(EMFILE) |
		      f->more);
		if (ret > 2 && cmd == ORDSCHED_IOC_NEW_HANDLE)
			close(ret);
		break;
	}
	}
}

static void fuzz_mmap(struct fuzz *f, unsigned int *seed, int fd)
{
	long pg = getpagesize();
	int prot = rand_r(seed) % 4 ? PROT_READ : PROT_READ | PROT_WRITE;
	size_t len = rand_r(seed) % 4 ? pg : pg * (rand_r(seed) % 3);
	off_t off = rand_r(seed) % 4 ? 0 : pg * (rand_r(seed) % 3);
	int flags = rand_r(seed) % 2 ? MAP_SHARED : MAP_PRIVATE;
	void *p = mmap(NULL, len, prot, flags, fd, off);

	if (p == MAP_FAILED) {
		check(f, "mmap", -errno, E(EINVAL) | E(EPERM) | E(EBADF) |
		      E(EACCES) | E(ENODEV));
		return;
	}
	/* The ring page: MAP_SHARED, one page in, read-write. */
	if (f->ring && len == pg && off == pg && flags == MAP_SHARED) {
		__u64 *w = p;

		check(f, "mmap", 0, 0);
		if (prot & PROT_WRITE)
			__atomic_store_n(&w[rand_r(seed) % (pg / 8)], rnd(seed),
					 __ATOMIC_RELAXED);
		munmap(p, len);
		return;
	}
	check(f, "mmap", (len == pg && !off && prot == PROT_READ) ? 0 : -EBADMSG,
	      0);
	/* A ring domain's status page is the scribbled ring: no offsets. */
	if (!f->ring)
		dev_tail(p);
	check(f, "mprotect", mprotect(p, pg, PROT_WRITE) ? -errno : -EBADMSG,
	      E(EACCES));
	munmap(p, len);
}

/* A child that acts on an inherited descriptor, then exits or is killed. */
static void fuzz_fork(struct fuzz *f, unsigned int *seed, int fd)
{
	int i, status;
	pid_t pid = fork();

	if (pid < 0) {
		check(f, "fork", -errno, E(EAGAIN) | E(ENOMEM));
		return;
	}
	if (pid == 0) {
		alarm(1);	/* a wait without deadline ends here */
		for (i = 0; i < 16; i++)
			fuzz_ioctl(f, seed, fd);
		_exit(f->bad ? 1 : 0);
	}
	if (rand_r(seed) % 2)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	/* Exited clean, or killed by us or by its alarm: any other death is a crash. */
	check(f, "child", WIFEXITED(status) ? (WEXITSTATUS(status) ? -EBADMSG : 0) :
	      WTERMSIG(status) == SIGKILL || WTERMSIG(status) == SIGALRM ? 0 : -EFAULT, 0);
}

static void *fuzz_thread(void *arg)
{
	struct fuzz *f = arg;
	unsigned int seed = (unsigned int)now_ns() ^ (unsigned int)pthread_self();
	struct pollfd pfd;
	int fd;

	while (!f->go)
		usleep(1000);
	while (!f->stop) {
		fd = pool_fd(f, &seed);
		switch (rand_r(&seed) % 32) {
		case 0:
			pool_replace(f, &seed);
			break;
		case 1:
			fuzz_mmap(f, &seed, fd);
			break;
		case 2:
			if (rand_r(&seed) % 8 == 0)
				fuzz_fork(f, &seed, fd);
			break;
		case 3:
			pthread_kill(f->threads[rand_r(&seed) % THREADS], SIGUSR1);
			break;
		case 4:
			pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
			check(f, "poll", poll(&pfd, 1, rand_r(&seed) % 2) < 0 ?
			      -errno : 0, E(EINTR));
			break;
		default:
			fuzz_ioctl(f, &seed, fd);
		}
	}
	__atomic_fetch_sub(&f->running, 1, __ATOMIC_RELAXED);
	return NULL;
}

static void fuzz_init(struct __test_metadata *_metadata, struct fuzz *f)
{
	long pg = getpagesize();
	struct sigaction sa = { .sa_handler = on_sigusr1 };
	int i;

	memset(f, 0, sizeof(*f));
	f->pool[0] = dev_open();
	ASSERT_LE(0, f->pool[0]);
	for (i = 1; i < POOL; i++) {
		f->pool[i] = i % 2 ? dev_new_handle(f->pool[i - 1], 0) : dev_open();
		ASSERT_LE(0, f->pool[i]);
	}
	f->ro = mmap(NULL, pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, f->ro);
	/* Inaccessible, and kept mapped so nothing else lands there. */
	f->hole = mmap(NULL, pg, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, f->hole);
	/* No SA_RESTART: signals break waits without a deadline. */
	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
}

/*
 * Random words into the ring page of a pool domain, changing domain now
 * and then (a handle of a domain without a ring answers EBUSY: try
 * another); the page stays mapped after its domain is gone.
 */
static void *scribble(void *arg)
{
	struct fuzz *f = arg;
	unsigned int seed = (unsigned int)now_ns();
	__u64 *page = NULL, n = 0, x;
	struct ring r = { 0 }, next;

	while (!f->go)
		usleep(1000);
	while (!f->stop) {
		if (n++ % 4096 == 0 && !ring_open(pool_fd(f, &seed), &next)) {
			if (page)
				ring_close(&r);
			r = next;
			page = r.page;
		}
		if (!page) {
			usleep(100);
			continue;
		}
		x = rnd(&seed);
		/* Anything, or a word of a ticket near the tail, anywhere. */
		__atomic_store_n(&page[x % (getpagesize() / 8)],
				 x & 1 ? rnd(&seed) :
				 ORDSCHED_RING_WORD(ring_load(r.v.tail) + x % 7,
						    x >> 8 & 3, x >> 16 & 3),
				 __ATOMIC_RELAXED);
	}
	if (page)
		ring_close(&r);
	return NULL;
}

struct bystander {
	struct fuzz *f;
	long commits, bad;
};

/* Ordered commits in two domains outside the pool: nothing may fail. */
static void *bystand(void *arg)
{
	struct bystander *b = arg;
	int fr = ring_domain_open(), fp = dev_open();
	__u64 t, want_r = 0, want_p = 0;
	struct ring r;

	if (fr < 0 || fp < 0 || ring_open(fr, &r)) {
		b->bad++;
		return NULL;
	}
	while (!b->f->go)
		usleep(1000);
	while (!b->f->stop) {
		r.ctx.deadline_ns = now_ns() + 5000 * MS;
		if (ordsched_ring_take(&r.v, r.id, &t) || t != want_r++ ||
		    ordsched_ring_wait(&r.v, r.id, t, 16, &r.ctx) ||
		    ordsched_ring_complete(&r.v, r.id, t, &r.ctx))
			b->bad++;
		if (dev_take(fp, 1, &t) || t != want_p++ ||
		    dev_wait(fp, t, now_ns() + 5000 * MS) ||
		    dev_complete(fp, t, 1))
			b->bad++;
		b->commits += 2;
		usleep(200);
	}
	ring_close(&r);
	close(fr);
	close(fp);
	return NULL;
}

/*
 * FUZZ_SECONDS of random commands from THREADS threads; then the threads
 * are signalled until each has left its last call.
 */
FIXTURE(fuzz) {
	struct fuzz f;
};

FIXTURE_SETUP(fuzz)
{
	fuzz_init(_metadata, &self->f);
}

FIXTURE_TEARDOWN(fuzz)
{
}

/* Let the started fuzz threads run for @seconds, then stop and join them. */
static void fuzz_run(struct fuzz *fz, int seconds)
{
	__u64 end = now_ns() + seconds * 1000 * MS;
	int i;

	fz->go = 1;
	while (now_ns() < end)
		usleep(100000);
	fz->stop = 1;
	while (__atomic_load_n(&fz->running, __ATOMIC_RELAXED)) {
		for (i = 0; i < THREADS; i++)
			pthread_kill(fz->threads[i], SIGUSR1);
		usleep(10000);
	}
	for (i = 0; i < THREADS; i++)
		pthread_join(fz->threads[i], NULL);
}

TEST_F_TIMEOUT(fuzz, random_commands, FUZZ_SECONDS * 4 + 60)
{
	struct fuzz *fz = &self->f;
	int i, fd;

	fz->running = THREADS;
	for (i = 0; i < THREADS; i++)
		ASSERT_EQ(0, pthread_create(&fz->threads[i], NULL, fuzz_thread, fz));
	fuzz_run(fz, FUZZ_SECONDS);
	TH_LOG("%ld operations in %d s, %ld unexpected%s%s", fz->ops,
	       FUZZ_SECONDS, fz->bad, fz->bad ? ", first: " : "", fz->bad_what);
	EXPECT_EQ(0, fz->bad);
	for (i = 0; i < POOL; i++)
		close(fz->pool[i]);
	munmap(fz->ro, getpagesize());
	munmap(fz->hole, getpagesize());

	/* The device still works. */
	fd = dev_open();
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, dev_take(fd, 2, NULL));
	EXPECT_EQ(0, dev_complete_wait(fd, 0, 1, now_ns() + 1000 * MS));
	EXPECT_EQ(0, dev_complete(fd, 1, 1));
	close(fd);
}

/* The same over ring domains, scribbled on, beside two bystanders. */
TEST_F_TIMEOUT(fuzz, scribbled_ring, RING_FUZZ_SECONDS * 4 + 60)
{
	struct fuzz *fz = &self->f;
	struct bystander by = { .f = fz };
	pthread_t scribbler, bystander;
	struct ordsched_stats st;
	int i, fd;

	/* Ring domains, handles on them: the pool of fuzz_init(), redone. */
	for (i = 0; i < POOL; i++) {
		close(fz->pool[i]);
		fz->pool[i] = i % 2 ? dev_new_handle(fz->pool[i - 1], 0) :
				      ring_domain_open();
		ASSERT_LE(0, fz->pool[i]);
	}
	fz->ring = 1;
	fz->more = RING_ANY;
	fz->running = THREADS;
	for (i = 0; i < THREADS; i++)
		ASSERT_EQ(0, pthread_create(&fz->threads[i], NULL, fuzz_thread, fz));
	ASSERT_EQ(0, pthread_create(&scribbler, NULL, scribble, fz));
	ASSERT_EQ(0, pthread_create(&bystander, NULL, bystand, &by));
	fuzz_run(fz, RING_FUZZ_SECONDS);
	pthread_join(scribbler, NULL);
	pthread_join(bystander, NULL);
	TH_LOG("%ld operations in %d s, %ld unexpected%s%s; bystanders: %ld commits, %ld failed",
	       fz->ops, RING_FUZZ_SECONDS, fz->bad, fz->bad ? ", first: " : "",
	       fz->bad_what, by.commits, by.bad);
	EXPECT_EQ(0, fz->bad);
	EXPECT_EQ(0, by.bad);
	EXPECT_LT(0, by.commits);
	for (i = 0; i < POOL; i++)
		close(fz->pool[i]);
	munmap(fz->ro, getpagesize());
	munmap(fz->hole, getpagesize());

	/* The device still works, ring domains too. */
	fd = ring_domain_open();
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, dev_take(fd, 1, NULL));
	EXPECT_EQ(0, dev_complete_wait(fd, 0, ORDSCHED_NO_TICKET, 0));
	ASSERT_EQ(0, dev_stats(fd, &st));
	EXPECT_EQ(1, st.tail);
	close(fd);
}

TEST_HARNESS_MAIN
