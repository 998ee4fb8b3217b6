// SPDX-License-Identifier: GPL-2.0
/*
 * The contract of the shared ticket ring, checked promise by promise from
 * the uapi headers alone (uapi/linux/ordsched_ring.h and the ring parts of
 * uapi/linux/ordsched.h), as an independent client would: no library, no
 * module/ring_proto.h. The userspace half of the protocol used here is
 * written from the header's text: a take claims FREE(h) -> OWNED(h, id)
 * and then moves the head; a completion at its turn moves the tail past
 * its ticket, then frees the slot (FREE(t + slots)), and calls
 * ORDSCHED_IOC_RING_WAKE when the next slot is flagged SLEEPING.
 */
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <linux/ordsched_ring.h>

#include "dev_util.h"
#include "kselftest_harness.h"

#define MS	1000000ULL
#define SEC	(1000 * MS)
#define TMASK	((1ULL << 46) - 1)

#define W(t, id, st)	ORDSCHED_RING_WORD((t) & TMASK, (id), (st))
#define WTICKET(w)	((w) >> ORDSCHED_RING_TICKET_SHIFT)
#define WID(w)		(((w) >> ORDSCHED_RING_ID_SHIFT) & ORDSCHED_RING_ID_MASK)
#define WSTATE(w)	((w) & ORDSCHED_RING_STATE_MASK)

/* A ring domain as seen by a client: the first handle and the page. */
struct rd {
	int fd;
	__u32 id;
	struct ordsched_ring_setup s;
	char *page;
	__u64 *head, *tail, *slots;
	__u64 n;
};

static __u64 ld(__u64 *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static bool cas(__u64 *p, __u64 old, __u64 new)
{
	return __atomic_compare_exchange_n(p, &old, new, false,
					   __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

static int setup_fd(int fd, struct ordsched_ring_setup *s)
{
	memset(s, 0, sizeof(*s));
	return dev_ioctl(fd, ORDSCHED_IOC_RING_SETUP, s);
}

/* Open a new domain, make it a ring domain, map the page: 0 or -errno. */
static int rd_open(struct rd *r)
{
	void *p;
	int ret;

	memset(r, 0, sizeof(*r));
	r->fd = dev_open();
	if (r->fd < 0)
		return r->fd;
	ret = setup_fd(r->fd, &r->s);
	if (ret)
		return ret;
	p = mmap(NULL, r->s.size, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd,
		 r->s.mmap_offset);
	if (p == MAP_FAILED)
		return -errno;
	r->id = r->s.id;
	r->page = p;
	r->head = (__u64 *)(r->page + r->s.head_offset);
	r->tail = (__u64 *)(r->page + r->s.tail_offset);
	r->slots = (__u64 *)(r->page + r->s.slots_offset);
	r->n = r->s.slots;
	return 0;
}

/* Another handle of the domain with its own id; fd or -errno. */
static int rd_handle(struct rd *r, __u32 *id)
{
	struct ordsched_ring_setup s;
	int fd = dev_new_handle(r->fd, ORDSCHED_HANDLE_CLOEXEC);
	int ret;

	if (fd < 0)
		return fd;
	ret = setup_fd(fd, &s);
	if (ret) {
		close(fd);
		return ret;
	}
	if (id)
		*id = s.id;
	return fd;
}

static __u64 *slotp(struct rd *r, __u64 t)
{
	return &r->slots[ORDSCHED_RING_INDEX(t, r->n)];
}

static __u64 word(struct rd *r, __u64 t)
{
	return ld(slotp(r, t));
}

/* Take one ticket in userspace, from the header's description. */
static int u_take(struct rd *r, __u32 id, __u64 *t)
{
	__u64 h = ld(r->head), tl = ld(r->tail), w;

	if (h - tl >= r->n)
		return -EAGAIN;
	w = word(r, h);
	/* A word of the previous lap with the tail past it may be freed. */
	if (w != W(h, 0, ORDSCHED_RING_FREE) && h >= r->n &&
	    WTICKET(w) == ((h - r->n) & TMASK) && tl > h - r->n)
		cas(slotp(r, h), w, W(h, 0, ORDSCHED_RING_FREE));
	if (!cas(slotp(r, h), W(h, 0, ORDSCHED_RING_FREE),
		 W(h, id, ORDSCHED_RING_OWNED)))
		return -EIO;
	if (!cas(r->head, h, h + 1))
		return -EIO;
	*t = h;
	return 0;
}

static bool u_flag(struct rd *r, __u64 t, __u32 id)
{
	return cas(slotp(r, t), W(t, id, ORDSCHED_RING_OWNED),
		   W(t, id, ORDSCHED_RING_SLEEPING));
}

static int ring_wake(int fd, __u64 t)
{
	struct ordsched_ring_wake wk = { .ticket = t };

	return dev_ioctl(fd, ORDSCHED_IOC_RING_WAKE, &wk);
}

static int ring_wait(int fd, __u64 t, __u64 deadline)
{
	struct ordsched_ring_wait wt = { .ticket = t, .deadline_ns = deadline };

	return dev_ioctl(fd, ORDSCHED_IOC_RING_WAIT, &wt);
}

/*
 * Complete ticket t at its turn in userspace: move the tail past it, free
 * the slot, wake the next ticket's owner if it flagged SLEEPING. @wake_fd
 * < 0: do not wake.
 */
static int u_complete_turn(struct rd *r, int wake_fd, __u64 t)
{
	__u64 w = word(r, t), next;

	if (ld(r->tail) != t)
		return -1;
	if (!cas(r->tail, t, t + 1))
		return -1;
	if (!cas(slotp(r, t), w, W(t + r->n, 0, ORDSCHED_RING_FREE)))
		return -1;
	next = word(r, t + 1);
	if (wake_fd >= 0 && WTICKET(next) == ((t + 1) & TMASK) &&
	    WSTATE(next) == ORDSCHED_RING_SLEEPING)
		return ring_wake(wake_fd, t + 1);
	return 0;
}

static int stats(int fd, struct ordsched_stats *st)
{
	return dev_stats(fd, st);
}

/* Wait for the domain's stats to satisfy a condition, up to @secs. */
#define STATS_UNTIL(fd, st, cond, secs) ({				\
	__u64 __t0 = now_ns();						\
	bool __ok = false;						\
	for (;;) {							\
		if (stats((fd), &(st)))					\
			break;						\
		if (cond) {						\
			__ok = true;					\
			break;						\
		}							\
		if (now_ns() - __t0 > (secs) * SEC)			\
			break;						\
		usleep(5000);						\
	}								\
	__ok; })

/* A thread blocked in an ioctl. */
struct waiter {
	int fd;
	unsigned long cmd;
	union {
		struct ordsched_ring_wait rw;
		struct ordsched_wait w;
	} a;
	int ret;
	int done;
	__u64 end;
	pthread_t th;
};

static void *waiter_fn(void *p)
{
	struct waiter *w = p;

	w->ret = dev_ioctl(w->fd, w->cmd, &w->a);
	w->end = now_ns();
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static int waiter_start(struct waiter *w, int fd, unsigned long cmd, __u64 t,
			__u64 deadline)
{
	memset(w, 0, sizeof(*w));
	w->fd = fd;
	w->cmd = cmd;
	if (cmd == ORDSCHED_IOC_RING_WAIT) {
		w->a.rw.ticket = t;
		w->a.rw.deadline_ns = deadline;
	} else {
		w->a.w.ticket = t;
		w->a.w.deadline_ns = deadline;
	}
	return pthread_create(&w->th, NULL, waiter_fn, w);
}

static bool waiter_done(struct waiter *w)
{
	return __atomic_load_n(&w->done, __ATOMIC_ACQUIRE);
}

/*
 * Join a waiter that a wake-up must end: it returned at least a second
 * before its deadline. A lost wake-up would otherwise pass: at its
 * deadline the kernel looks once more, and finds the turn (or the ticket
 * retired) that should have woken it.
 */
#define WAITER_JOIN_WOKEN(wt) do {					\
	__u64 _dl = (wt)->cmd == ORDSCHED_IOC_RING_WAIT ?		\
		    (wt)->a.rw.deadline_ns : (wt)->a.w.deadline_ns;	\
	pthread_join((wt)->th, NULL);					\
	EXPECT_LT((wt)->end + SEC, _dl)					\
		TH_LOG("the waiter was not woken: it ran to its deadline"); \
} while (0)

/* A thread blocked in poll(). */
struct poller {
	int fd;
	int timeout_ms;
	int ret;
	short revents;
	int done;
	pthread_t th;
};

static void *poller_fn(void *p)
{
	struct poller *pl = p;
	struct pollfd pfd = { .fd = pl->fd, .events = POLLIN };

	pl->ret = poll(&pfd, 1, pl->timeout_ms);
	pl->revents = pfd.revents;
	__atomic_store_n(&pl->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static int poll_now(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int ret = poll(&pfd, 1, 0);

	return ret < 0 ? -errno : (ret ? pfd.revents : 0);
}

/* A ring domain, its page mapped. */
FIXTURE(ring) {
	struct rd r;
};

FIXTURE_SETUP(ring)
{
	ASSERT_EQ(0, rd_open(&self->r));
}

FIXTURE_TEARDOWN(ring)
{
	if (self->r.fd >= 0)
		close(self->r.fd);
}

/*
 * A ring domain with a second handle of its own id: most scenarios need a
 * ticket of each, t0 of the first handle at the tail and t1 of the second
 * behind it.
 */
FIXTURE(pair) {
	struct rd r;
	int fb;
	__u32 idb;
};

FIXTURE_SETUP(pair)
{
	ASSERT_EQ(0, rd_open(&self->r));
	self->fb = rd_handle(&self->r, &self->idb);
	ASSERT_LE(0, self->fb);
}

FIXTURE_TEARDOWN(pair)
{
	if (self->fb >= 0)
		close(self->fb);
	if (self->r.fd >= 0)
		close(self->r.fd);
}

/* How the pair's tickets are taken. */
enum { BY_TAKE, BY_USER, BY_USER_FLAGGED };

/* t0 for the first handle, then t1 for the second. */
static void pair_take(struct __test_metadata *_metadata,
		      FIXTURE_DATA(pair) *self, int how, __u64 *t0, __u64 *t1)
{
	struct rd *r = &self->r;

	if (how == BY_TAKE) {
		ASSERT_EQ(0, dev_take(r->fd, 1, t0));
		ASSERT_EQ(0, dev_take(self->fb, 1, t1));
		return;
	}
	ASSERT_EQ(0, u_take(r, r->id, t0));
	ASSERT_EQ(0, u_take(r, self->idb, t1));
	if (how == BY_USER_FLAGGED)
		ASSERT_TRUE(u_flag(r, *t1, self->idb));
}

/*
 * Start @w in @cmd on @fd for @t, @timeout from now, and see the domain
 * count its wait (up to 10 s): @st is the stats that saw it.
 */
static void waiter_asleep(struct __test_metadata *_metadata, struct waiter *w,
			  struct ordsched_stats *st, int fd, unsigned long cmd,
			  __u64 t, __u64 timeout)
{
	ASSERT_EQ(0, waiter_start(w, fd, cmd, t, now_ns() + timeout));
	EXPECT_TRUE(STATS_UNTIL(fd, *st, st->waits >= 1, 10));
}

/*
 * The second handle sleeps in @cmd for t1 (@timeout), its slot flagged
 * SLEEPING, until the first completes t0 in userspace and wakes it: 0.
 */
static void pair_woken(struct __test_metadata *_metadata,
		       FIXTURE_DATA(pair) *self, unsigned long cmd, int how,
		       __u64 timeout)
{
	struct ordsched_stats st;
	struct rd *r = &self->r;
	struct waiter w;
	__u64 t0, t1;

	pair_take(_metadata, self, how, &t0, &t1);
	EXPECT_EQ(W(t1, self->idb, how == BY_USER ? ORDSCHED_RING_OWNED :
		    ORDSCHED_RING_SLEEPING), word(r, t1));
	waiter_asleep(_metadata, &w, &st, self->fb, cmd, t1, timeout);
	usleep(20000);
	EXPECT_EQ(W(t1, self->idb, ORDSCHED_RING_SLEEPING), word(r, t1));
	EXPECT_FALSE(waiter_done(&w));
	/* Our userspace completion sees the flag and wakes it. */
	ASSERT_EQ(0, u_complete_turn(r, r->fd, t0));
	WAITER_JOIN_WOKEN(&w);
	EXPECT_EQ(0, w.ret);
	ASSERT_EQ(0, stats(self->fb, &st));
	EXPECT_LE(1, st.wakeups);
	EXPECT_EQ(0, st.timeouts);
}

/* The second handle sleeps in @cmd for t1 and trashes t1 meanwhile. */
static void pair_trashed_during_wait(struct __test_metadata *_metadata,
				     FIXTURE_DATA(pair) *self,
				     unsigned long cmd, int how)
{
	struct ordsched_stats st;
	struct waiter w;
	__u64 t0, t1;

	pair_take(_metadata, self, how, &t0, &t1);
	waiter_asleep(_metadata, &w, &st, self->fb, cmd, t1, 5 * SEC);
	EXPECT_EQ(0, dev_trash(self->fb, t1, 1));
	WAITER_JOIN_WOKEN(&w);
	EXPECT_EQ(-EALREADY, w.ret);
}

/*
 * The second handle polls (5 s) behind t0 until the first completes it:
 * by COMPLETE after TAKEs, else in userspace with its RING_WAKE.
 */
static void pair_poll_woken(struct __test_metadata *_metadata,
			    FIXTURE_DATA(pair) *self, int how)
{
	struct poller pl = { .fd = self->fb, .timeout_ms = 5000 };
	__u64 t0, t1, start;

	pair_take(_metadata, self, how, &t0, &t1);
	start = now_ns();
	ASSERT_EQ(0, pthread_create(&pl.th, NULL, poller_fn, &pl));
	usleep(200 * 1000);
	EXPECT_FALSE(__atomic_load_n(&pl.done, __ATOMIC_ACQUIRE));
	if (how == BY_TAKE) {
		ASSERT_EQ(0, dev_complete(self->r.fd, t0, 1));
	} else {
		ASSERT_EQ(0, u_complete_turn(&self->r, self->r.fd, t0));
	}
	pthread_join(pl.th, NULL);
	/*
	 * Ready well before its 5 s timeout: at the timeout poll() looks
	 * at the descriptor once more, so without the wake-up it would
	 * answer 1 too, then.
	 */
	EXPECT_GT(4 * SEC, now_ns() - start);
	EXPECT_EQ(1, pl.ret);
	EXPECT_TRUE(pl.revents & POLLIN);
}

/* The domain's stats (in @st): @completed and @trashed, none held. */
static void expect_retired(struct __test_metadata *_metadata, int fd,
			   struct ordsched_stats *st, __u64 completed,
			   __u64 trashed)
{
	ASSERT_EQ(0, stats(fd, st));
	EXPECT_EQ(completed, st->completed);
	EXPECT_EQ(trashed, st->trashed);
	EXPECT_EQ(0, st->held);
}

/* Another handle's setup answers the same layout. */
static void expect_same_layout(struct __test_metadata *_metadata,
			       const struct ordsched_ring_setup *a,
			       const struct ordsched_ring_setup *b)
{
	EXPECT_EQ(a->mmap_offset, b->mmap_offset);
	EXPECT_EQ(a->size, b->size);
	EXPECT_EQ(a->slots, b->slots);
	EXPECT_EQ(a->head_offset, b->head_offset);
	EXPECT_EQ(a->tail_offset, b->tail_offset);
	EXPECT_EQ(a->slots_offset, b->slots_offset);
}

/* ------------------------------------------------------------------ */
/* Negotiation */

TEST(api_reports_ring)
{
	struct ordsched_api api;
	int fd = dev_open();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, dev_api(fd, &api));
	if (!(api.features & ORDSCHED_FEAT_RING))
		SKIP(return, "no ORDSCHED_FEAT_RING");
	EXPECT_TRUE(api.ioctls & (1ULL << _IOC_NR(ORDSCHED_IOC_RING_SETUP)));
	EXPECT_TRUE(api.ioctls & (1ULL << _IOC_NR(ORDSCHED_IOC_RING_WAIT)));
	EXPECT_TRUE(api.ioctls & (1ULL << _IOC_NR(ORDSCHED_IOC_RING_WAKE)));
	close(fd);
}

/* "ORDSCHED_IOC_RING_WAIT and _RING_WAKE in a domain without a ring: EINVAL." */
TEST(no_ring_wait_wake_einval)
{
	int fd = dev_open();
	__u64 t;

	ASSERT_LE(0, fd);
	EXPECT_EQ(-EINVAL, ring_wait(fd, 0, 0));
	EXPECT_EQ(-EINVAL, ring_wake(fd, 0));
	ASSERT_EQ(0, dev_take(fd, 1, &t));
	EXPECT_EQ(-EINVAL, ring_wait(fd, t, 0));
	EXPECT_EQ(-EINVAL, ring_wake(fd, t));
	close(fd);
}

/* "MAP_SHARED only (EINVAL otherwise, and in a domain without a ring)" */
TEST(no_ring_mmap_einval)
{
	long psz = getpagesize();
	int fd = dev_open();
	void *p;

	ASSERT_LE(0, fd);
	p = mmap(NULL, psz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, psz);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, psz, PROT_READ, MAP_SHARED, fd, psz);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	close(fd);
}

/* "@flags: in: 0", "@reserved: in: 0": EINVAL, and nothing done. */
TEST(setup_flags_reserved_einval)
{
	struct ordsched_ring_setup s;
	int fd = dev_open(), i;

	ASSERT_LE(0, fd);
	memset(&s, 0, sizeof(s));
	s.flags = 1;
	EXPECT_EQ(-EINVAL, dev_ioctl(fd, ORDSCHED_IOC_RING_SETUP, &s));
	memset(&s, 0, sizeof(s));
	s.flags = 0x80000000u;
	EXPECT_EQ(-EINVAL, dev_ioctl(fd, ORDSCHED_IOC_RING_SETUP, &s));
	for (i = 0; i < 3; i++) {
		memset(&s, 0, sizeof(s));
		s.reserved[i] = 1;
		EXPECT_EQ(-EINVAL, dev_ioctl(fd, ORDSCHED_IOC_RING_SETUP, &s));
	}
	/* Nothing was done: still no ring. */
	EXPECT_EQ(-EINVAL, ring_wake(fd, 0));
	/* And setup still possible. */
	EXPECT_EQ(0, setup_fd(fd, &s));
	close(fd);
}

/* EFAULT: "the argument cannot be read or written; nothing was done" */
TEST(setup_efault_nothing_done)
{
	struct ordsched_ring_setup s;
	long psz = getpagesize();
	void *ro;
	int fd = dev_open();

	ASSERT_LE(0, fd);
	EXPECT_EQ(-EFAULT, dev_ioctl(fd, ORDSCHED_IOC_RING_SETUP, (void *)8));
	/* Readable zeros, not writable: the answer cannot be written. */
	ro = mmap(NULL, psz, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	EXPECT_EQ(-EFAULT, dev_ioctl(fd, ORDSCHED_IOC_RING_SETUP, ro));
	/* Nothing was done: the domain has no ring. */
	EXPECT_EQ(-EINVAL, ring_wake(fd, 0));
	EXPECT_EQ(MAP_FAILED, mmap(NULL, psz, PROT_READ | PROT_WRITE,
				   MAP_SHARED, fd, psz));
	EXPECT_EQ(0, setup_fd(fd, &s));
	munmap(ro, psz);
	close(fd);
}

/*
 * EFAULT: "a ring setup's has set the handle up, and made the domain a
 * ring domain if it was not one; a second call answers the same". The
 * answer's last write made to fail by fault injection (the call's third
 * user copy, after the argument's read and the write that checks it is
 * writable): RING_WAKE, EINVAL in a domain without a ring, works at once.
 */
TEST(setup_efault_late_sets_up)
{
	struct ordsched_ring_setup s = { 0 }, s2;
	int fd = dev_open(), ret;

	ASSERT_LE(0, fd);
	ret = dev_ioctl_fail_nth(fd, ORDSCHED_IOC_RING_SETUP, &s, 3);
	if (ret == -ENOSYS) {
		close(fd);
		SKIP(return, "no usercopy fault injection");
	}
	EXPECT_EQ(-EFAULT, ret);
	EXPECT_EQ(0, ring_wake(fd, 0));
	ASSERT_EQ(0, setup_fd(fd, &s));
	EXPECT_NE(0, s.id);
	ASSERT_EQ(0, setup_fd(fd, &s2));
	EXPECT_EQ(s.id, s2.id);
	close(fd);
}

TEST_F(ring, unknown_ring_command_enotty)
{
	struct ordsched_ring_wake wk = { 0 };

	EXPECT_EQ(-ENOTTY, dev_ioctl(self->r.fd, _IOW(ORDSCHED_IOC_MAGIC, 0x13,
						struct ordsched_ring_wake), &wk));
}

/* The outputs of setup: id, one page in, one page, layout. */
TEST_F(ring, setup_outputs)
{
	long psz = getpagesize();
	__u64 sl_end;

	EXPECT_NE(0, self->r.s.id);
	EXPECT_LE(self->r.s.id, ORDSCHED_RING_ID_MASK);
	EXPECT_EQ(psz, self->r.s.mmap_offset);
	EXPECT_EQ(psz, self->r.s.size);
	EXPECT_NE(0, self->r.s.slots);
	EXPECT_EQ(0, self->r.s.slots & (self->r.s.slots - 1));
	EXPECT_EQ(0, self->r.s.reserved[0]);
	EXPECT_EQ(0, self->r.s.reserved[1]);
	EXPECT_EQ(0, self->r.s.reserved[2]);
	EXPECT_EQ(0, self->r.s.flags);
	sl_end = self->r.s.slots_offset + 8ULL * self->r.s.slots;
	EXPECT_GE(self->r.s.size, sl_end);
	EXPECT_GE(self->r.s.size, self->r.s.head_offset + 8);
	EXPECT_GE(self->r.s.size, self->r.s.tail_offset + 8);
	/* Past the status struct (0) and the header (64). */
	EXPECT_GE(self->r.s.slots_offset, ORDSCHED_RING_HDR_OFFSET +
		  sizeof(struct ordsched_ring_hdr));
	EXPECT_EQ(0, self->r.s.slots_offset % 8);
}

/* "head and tail are each alone on a 128-byte line pair" */
TEST_F(ring, head_tail_alone_on_line_pair)
{
	__u64 h, t, s0, s1;

	h = self->r.s.head_offset;
	t = self->r.s.tail_offset;
	s0 = self->r.s.slots_offset;
	s1 = s0 + 8ULL * self->r.s.slots;
	EXPECT_EQ(0, h % 128);
	EXPECT_EQ(0, t % 128);
	EXPECT_GE(h > t ? h - t : t - h, 128);
	EXPECT_TRUE(s1 <= h || s0 >= h + 128);
	EXPECT_TRUE(s1 <= t || s0 >= t + 128);
	/* The status struct and the ring header share lines 0..127. */
	EXPECT_GE(h, 128);
	EXPECT_GE(t, 128);
}

/* The header at ORDSCHED_RING_HDR_OFFSET repeats the setup's answer. */
TEST_F(ring, hdr_matches_setup)
{
	const struct ordsched_ring_hdr *hdr;

	hdr = (const void *)(self->r.page + ORDSCHED_RING_HDR_OFFSET);
	EXPECT_EQ(ORDSCHED_RING_VERSION, hdr->version);
	EXPECT_EQ(self->r.s.size, hdr->size);
	EXPECT_EQ(self->r.s.slots, hdr->slots);
	EXPECT_EQ(self->r.s.head_offset, hdr->head_offset);
	EXPECT_EQ(self->r.s.tail_offset, hdr->tail_offset);
	EXPECT_EQ(self->r.s.slots_offset, hdr->slots_offset);
	EXPECT_EQ(0, hdr->pad);
}

/* "initially ticket t's slot is FREE(t) for t in [0, slots)" */
TEST_F(ring, initial_slots_free)
{
	__u64 t, bad = 0;
	unsigned char *seen;

	EXPECT_EQ(0, ld(self->r.head));
	EXPECT_EQ(0, ld(self->r.tail));
	seen = calloc(self->r.n, 1);
	ASSERT_NE(NULL, seen);
	for (t = 0; t < self->r.n; t++) {
		seen[ORDSCHED_RING_INDEX(t, self->r.n)]++;
		if (word(&self->r, t) != W(t, 0, ORDSCHED_RING_FREE))
			bad++;
	}
	EXPECT_EQ(0, bad);
	/* "every slot serves one ticket in slots" */
	for (t = 0; t < self->r.n; t++)
		EXPECT_EQ(1, seen[t]);
	free(seen);
}

/* The status page is the ring page. */
TEST_F(ring, status_page_is_ring_page)
{
	const struct ordsched_status *st;
	struct ordsched_api api;
	__u64 t;

	ASSERT_EQ(0, dev_api(self->r.fd, &api));
	st = dev_map(self->r.fd);
	ASSERT_NE(MAP_FAILED, st);
	EXPECT_EQ(self->r.s.tail_offset, st->tail_offset);
	EXPECT_EQ(self->r.s.head_offset, st->head_offset);
	EXPECT_EQ(self->r.s.slots, st->window);
	EXPECT_EQ(ORDSCHED_API_VERSION, st->version);
	EXPECT_EQ(api.features, st->features);
	EXPECT_EQ(0, memcmp(st, self->r.page, self->r.s.size));
	/* A write through the ring mapping shows in the status mapping. */
	ASSERT_EQ(0, u_take(&self->r, self->r.id, &t));
	EXPECT_EQ(1, dev_head(st));
	EXPECT_EQ(W(0, self->r.id, ORDSCHED_RING_OWNED),
		  *(const __u64 *)((const char *)st + self->r.s.slots_offset));
	ASSERT_EQ(0, u_complete_turn(&self->r, self->r.fd, 0));
	EXPECT_EQ(1, dev_tail(st));
	EXPECT_EQ(0, memcmp(st, self->r.page, self->r.s.size));
	munmap((void *)st, getpagesize());
}

/* "mmap() at offset 0 maps this same page read-only" */
TEST_F(ring, status_page_read_only)
{
	long psz = getpagesize();
	void *p;

	p = mmap(NULL, psz, PROT_READ | PROT_WRITE, MAP_SHARED, self->r.fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	if (p != MAP_FAILED)
		munmap(p, psz);
	p = mmap(NULL, psz, PROT_READ, MAP_SHARED, self->r.fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_NE(0, mprotect(p, psz, PROT_READ | PROT_WRITE));
	EXPECT_NE(0, mprotect(p, psz, PROT_READ | PROT_EXEC));
	munmap(p, psz);
}

/*
 * ordsched_ring.h "never executable (PROT_EXEC: EPERM ...)": the page
 * that the handles write, mapped executable, would be code written
 * through one mapping and run through another.
 */
TEST_F(ring, ring_page_never_executable)
{
	void *p;

	p = mmap(NULL, self->r.s.size, PROT_READ | PROT_WRITE | PROT_EXEC,
		 MAP_SHARED, self->r.fd, self->r.s.mmap_offset);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EPERM, errno);
	p = mmap(NULL, self->r.s.size, PROT_READ | PROT_EXEC, MAP_SHARED,
		 self->r.fd, 0);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EPERM, errno);
	/* The fixture's mapping of the ring page. */
	EXPECT_NE(0, mprotect(self->r.page, self->r.s.size,
			      PROT_READ | PROT_WRITE | PROT_EXEC));
}

/* "MAP_SHARED only (EINVAL otherwise ...)" */
TEST_F(ring, ring_map_private_einval)
{
	void *p;

	p = mmap(NULL, self->r.s.size, PROT_READ | PROT_WRITE, MAP_PRIVATE, self->r.fd,
		 self->r.s.mmap_offset);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, self->r.s.size, PROT_READ, MAP_PRIVATE, self->r.fd,
		 self->r.s.mmap_offset);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
}

/* Every handle maps the same ring page, also a second mapping. */
TEST_F(ring, second_handle_maps_same_page)
{
	__u32 id2;
	__u64 *p2, t;
	int fd2;

	fd2 = rd_handle(&self->r, &id2);
	ASSERT_LE(0, fd2);
	p2 = mmap(NULL, self->r.s.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd2,
		  self->r.s.mmap_offset);
	ASSERT_NE(MAP_FAILED, p2);
	ASSERT_EQ(0, u_take(&self->r, self->r.id, &t));
	EXPECT_EQ(1, ld((__u64 *)((char *)p2 + self->r.s.head_offset)));
	EXPECT_EQ(0, memcmp(p2, self->r.page, self->r.s.size));
	munmap(p2, self->r.s.size);
	close(fd2);
}

/* "@id: ... unique among the live handles of the domain, never 0" */
TEST_F(ring, ids_unique_nonzero)
{
	__u32 ids[16];
	int fds[16], i, j;

	ids[0] = self->r.id;
	fds[0] = self->r.fd;
	for (i = 1; i < 16; i++) {
		fds[i] = rd_handle(&self->r, &ids[i]);
		ASSERT_LE(0, fds[i]);
	}
	for (i = 0; i < 16; i++) {
		EXPECT_NE(0, ids[i]);
		for (j = 0; j < i; j++)
			EXPECT_NE(ids[i], ids[j]);
	}
	for (i = 1; i < 16; i++)	/* fds[0] is the fixture's */
		close(fds[i]);
}

/* Trust model: not after a ticket was handed out (EBUSY). */
TEST(setup_ebusy_after_ticket)
{
	struct ordsched_ring_setup s;
	int fd = dev_open();
	__u64 t;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, dev_take(fd, 1, &t));
	ASSERT_EQ(0, dev_complete(fd, t, 1));
	EXPECT_EQ(-EBUSY, setup_fd(fd, &s));
	EXPECT_EQ(MAP_FAILED, mmap(NULL, getpagesize(), PROT_READ, MAP_SHARED,
				   fd, getpagesize()));
	/* Still a working domain without a ring. */
	EXPECT_EQ(0, dev_take(fd, 2, &t));
	EXPECT_EQ(1, t);
	close(fd);
}

/* Trust model: not once the domain has a second handle (EBUSY, for both). */
TEST(setup_ebusy_second_handle)
{
	struct ordsched_ring_setup s;
	int fd = dev_open(), nh;

	ASSERT_LE(0, fd);
	nh = dev_new_handle(fd, ORDSCHED_HANDLE_CLOEXEC);
	ASSERT_LE(0, nh);
	EXPECT_EQ(-EBUSY, setup_fd(nh, &s));
	EXPECT_EQ(-EBUSY, setup_fd(fd, &s));
	/* "can no longer get one": also after the second handle is gone. */
	close(nh);
	EXPECT_EQ(-EBUSY, setup_fd(fd, &s));
	close(fd);
}

/*
 * "On any error the domain is left as it was": a second handle that could
 * not be made (EMFILE) was never a second handle.
 */
TEST(setup_after_failed_new_handle)
{
	struct ordsched_ring_setup s;
	struct rlimit old, tight;
	int fd = dev_open(), nh, fill[64], n = 0;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, getrlimit(RLIMIT_NOFILE, &old));
	/* Nothing above fd, and every free one below taken: no room. */
	tight = (struct rlimit){ .rlim_cur = fd + 1, .rlim_max = old.rlim_max };
	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &tight));
	while (n < 64 && (fill[n] = dup(fd)) >= 0)
		n++;
	nh = dev_new_handle(fd, ORDSCHED_HANDLE_CLOEXEC);
	while (n)
		close(fill[--n]);
	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &old));
	EXPECT_EQ(-EMFILE, nh);
	EXPECT_EQ(0, setup_fd(fd, &s));
	EXPECT_NE(0, s.id);
	close(fd);
}

/*
 * "EBADF: the descriptor is not open for both reading and writing", and
 * the domain is left as it was: without a ring, taking batches. A
 * write-only descriptor could not map the page either (ordsched.h: "fd
 * open for reading: mmap(2) answers EACCES otherwise"), so a domain
 * turned through it would have a ring nobody can reach through it.
 */
TEST(setup_needs_read_and_write)
{
	static const int modes[] = { O_RDONLY, O_WRONLY };
	struct ordsched_ring_setup s;
	unsigned int i;
	__u64 t;
	int fd;

	for (i = 0; i < ARRAY_SIZE(modes); i++) {
		fd = open(DEV_PATH, modes[i] | O_CLOEXEC);
		ASSERT_LE(0, fd);
		EXPECT_EQ(-EBADF, setup_fd(fd, &s)) TH_LOG("mode %d", modes[i]);
		EXPECT_EQ(0, dev_take(fd, 2, &t));
		EXPECT_EQ(0, t);
		if (modes[i] == O_WRONLY) {
			EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ,
						   MAP_SHARED, fd, 0));
			EXPECT_EQ(EACCES, errno);
		}
		close(fd);
	}
}

/* A shared descriptor is the same handle, not a second one. */
TEST(setup_after_dup_is_allowed)
{
	struct ordsched_ring_setup s;
	int fd = dev_open(), fd2;

	ASSERT_LE(0, fd);
	fd2 = dup(fd);
	ASSERT_LE(0, fd2);
	EXPECT_EQ(0, setup_fd(fd2, &s));
	EXPECT_NE(0, s.id);
	close(fd2);
	close(fd);
}

/* "afterwards every handle of a ring domain may set up its own id" */
TEST_F(ring, later_handles_may_setup)
{
	struct ordsched_ring_setup s;
	__u64 t;
	int nh;

	ASSERT_EQ(0, u_take(&self->r, self->r.id, &t));
	nh = dev_new_handle(self->r.fd, ORDSCHED_HANDLE_CLOEXEC);
	ASSERT_LE(0, nh);
	EXPECT_EQ(0, setup_fd(nh, &s));
	EXPECT_NE(self->r.id, s.id);
	expect_same_layout(_metadata, &self->r.s, &s);
	close(nh);
}

/* "ordsched_api.window, the handshake's, is that of a domain without a ring" */
TEST_F(ring, api_window_unchanged)
{
	struct ordsched_api a0, a1;
	int fd;

	ASSERT_EQ(0, dev_api(self->r.fd, &a1));
	fd = dev_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, dev_api(fd, &a0));
	close(fd);
	EXPECT_EQ(a0.window, a1.window);
}

/* ------------------------------------------------------------------ */
/* TAKE / WAIT / COMPLETE / TRASH in a ring domain */

/* "a count above 1: EINVAL" */
TEST_F(ring, take_count_above_one_einval)
{
	struct ordsched_stats st;
	__u64 t;

	EXPECT_EQ(-EINVAL, dev_take(self->r.fd, 2, &t));
	EXPECT_EQ(-EINVAL, dev_take(self->r.fd, 0, &t));
	EXPECT_EQ(0, ld(self->r.head));
	ASSERT_EQ(0, stats(self->r.fd, &st));
	EXPECT_EQ(0, st.taken);
}

/* TAKE: the head, the handle's id, flagged SLEEPING, head moved. */
TEST_F(ring, take_word_sleeping_with_id)
{
	struct ordsched_stats st;
	__u64 t = 99, u;

	ASSERT_EQ(0, u_take(&self->r, self->r.id, &u));
	ASSERT_EQ(0, dev_take(self->r.fd, 1, &t));
	EXPECT_EQ(1, t);
	EXPECT_EQ(2, ld(self->r.head));
	EXPECT_EQ(W(1, self->r.id, ORDSCHED_RING_SLEEPING), word(&self->r, 1));
	ASSERT_EQ(0, stats(self->r.fd, &st));
	EXPECT_EQ(1, st.taken);
	EXPECT_EQ(2, st.held);
}

/* "Commands that need an id give the handle one first"; setup then reports it. */
TEST_F(ring, take_without_setup_gets_id)
{
	struct ordsched_ring_setup s;
	__u64 t, w;
	int nh;

	nh = dev_new_handle(self->r.fd, ORDSCHED_HANDLE_CLOEXEC);
	ASSERT_LE(0, nh);
	ASSERT_EQ(0, dev_take(nh, 1, &t));
	w = word(&self->r, t);
	EXPECT_EQ(ORDSCHED_RING_SLEEPING, WSTATE(w));
	EXPECT_NE(0, WID(w));
	EXPECT_NE(self->r.id, WID(w));
	ASSERT_EQ(0, setup_fd(nh, &s));
	EXPECT_EQ(WID(w), s.id);
	close(nh);
}

/* A full window: EAGAIN, counted in full. */
TEST_F(ring, take_window_full_eagain)
{
	struct ordsched_stats st;
	__u64 i, t;

	for (i = 0; i < self->r.n; i++)
		ASSERT_EQ(0, u_take(&self->r, self->r.id, &t));
	EXPECT_EQ(-EAGAIN, dev_take(self->r.fd, 1, &t));
	EXPECT_EQ(self->r.n, ld(self->r.head));
	ASSERT_EQ(0, stats(self->r.fd, &st));
	EXPECT_EQ(1, st.full);
	EXPECT_EQ(0, st.taken);
	/* "it clears as the tail moves" */
	ASSERT_EQ(0, u_complete_turn(&self->r, self->r.fd, 0));
	EXPECT_EQ(0, dev_take(self->r.fd, 1, &t));
	EXPECT_EQ(self->r.n, t);
	EXPECT_EQ(W(self->r.n, self->r.id, ORDSCHED_RING_SLEEPING), word(&self->r, self->r.n));
}

/* EFAULT on the answer of a take: "trashes the tickets it took". */
TEST_F(ring, take_efault_trashes)
{
	struct ordsched_stats st;
	long psz = getpagesize();
	void *ro;
	int ret;

	ro = mmap(NULL, psz, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	/* count 0 reads as 0 from zeros: make it 1 in a readable page. */
	munmap(ro, psz);
	ro = mmap(NULL, psz, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	((struct ordsched_take *)ro)->count = 1;
	ASSERT_EQ(0, mprotect(ro, psz, PROT_READ));
	ret = dev_ioctl(self->r.fd, ORDSCHED_IOC_TAKE, ro);
	EXPECT_EQ(-EFAULT, ret);
	ASSERT_EQ(0, stats(self->r.fd, &st));
	EXPECT_EQ(0, st.held);
	EXPECT_EQ(ld(self->r.head), ld(self->r.tail));
	munmap(ro, psz);
}

/* WAIT at the turn: 0 at once. */
TEST_F(ring, wait_at_turn)
{
	struct ordsched_stats st;
	__u64 t;

	ASSERT_EQ(0, dev_take(self->r.fd, 1, &t));
	EXPECT_EQ(0, dev_wait(self->r.fd, t, 0));
	EXPECT_EQ(0, dev_wait(self->r.fd, t, ORDSCHED_NO_DEADLINE));
	ASSERT_EQ(0, stats(self->r.fd, &st));
	EXPECT_EQ(0, st.waits);
}

/* WAIT: a deadline in the past only checks; a near one times out. */
TEST_F(pair, wait_deadlines)
{
	struct ordsched_stats st;
	__u64 t0, t1, s;

	pair_take(_metadata, self, BY_TAKE, &t0, &t1);
	s = now_ns();
	EXPECT_EQ(-ETIMEDOUT, dev_wait(self->fb, t1, 1));
	EXPECT_GT(2 * SEC, now_ns() - s);
	s = now_ns();
	EXPECT_EQ(-ETIMEDOUT, dev_wait(self->fb, t1, s + 50 * MS));
	EXPECT_LE(50 * MS, now_ns() - s);
	ASSERT_EQ(0, stats(self->fb, &st));
	EXPECT_LE(1, st.timeouts);
	EXPECT_LE(1, st.waits);
}

/* WAIT: EPERM (another handle's), EALREADY (retired), EINVAL (never). */
TEST_F(pair, wait_errnos)
{
	__u64 t0, t1;

	pair_take(_metadata, self, BY_TAKE, &t0, &t1);
	EXPECT_EQ(-EPERM, dev_wait(self->fb, t0, 0));
	EXPECT_EQ(-EPERM, dev_wait(self->r.fd, t1, 0));
	EXPECT_EQ(-EINVAL, dev_wait(self->fb, t1 + 1, 0));
	EXPECT_EQ(-EINVAL, dev_wait(self->fb, t1 + 1000, 0));
	ASSERT_EQ(0, dev_complete(self->fb, t1, 1));
	EXPECT_EQ(-EALREADY, dev_wait(self->fb, t1, 0));
	ASSERT_EQ(0, dev_complete(self->r.fd, t0, 1));
	EXPECT_EQ(-EALREADY, dev_wait(self->r.fd, t0, 0));
	EXPECT_EQ(2, ld(self->r.tail));
}

/* "ORDSCHED_IOC_WAIT flags the slot likewise and sleeps as RING_WAIT". */
TEST_F(pair, wait_flags_sleeping_and_is_woken)
{
	pair_woken(_metadata, self, ORDSCHED_IOC_WAIT, BY_USER, 5 * SEC);
}

/* WAIT: EALREADY "also when that happens during the wait". */
TEST_F(pair, wait_ealready_during_wait)
{
	pair_trashed_during_wait(_metadata, self, ORDSCHED_IOC_WAIT, BY_TAKE);
}

/* COMPLETE at the turn: tail moves, slot freed for t + slots, counted. */
TEST_F(ring, complete_at_turn)
{
	struct ordsched_stats st;
	__u64 t;

	ASSERT_EQ(0, dev_take(self->r.fd, 1, &t));
	ASSERT_EQ(0, dev_complete(self->r.fd, t, 1));
	EXPECT_EQ(1, ld(self->r.tail));
	EXPECT_EQ(1, ld(self->r.head));
	EXPECT_EQ(W(t + self->r.n, 0, ORDSCHED_RING_FREE), word(&self->r, t));
	expect_retired(_metadata, self->r.fd, &st, 1, 0);
	EXPECT_EQ(1, st.tail);
}

/* Early completion: RETIRED(t), the tail waits, then passes it. */
TEST_F(pair, complete_early_then_tail_passes)
{
	struct ordsched_stats st;
	__u64 t0, t1, w;

	pair_take(_metadata, self, BY_TAKE, &t0, &t1);
	ASSERT_EQ(0, dev_complete(self->fb, t1, 1));
	w = word(&self->r, t1);
	EXPECT_EQ(ORDSCHED_RING_RETIRED, WSTATE(w));
	EXPECT_EQ(t1, WTICKET(w));
	EXPECT_EQ(0, ld(self->r.tail));
	ASSERT_EQ(0, dev_complete(self->r.fd, t0, 1));
	EXPECT_EQ(2, ld(self->r.tail));
	w = word(&self->r, t1);
	EXPECT_TRUE(w == W(t1, 0, ORDSCHED_RING_RETIRED) ||
		    w == W(t1 + self->r.n, 0, ORDSCHED_RING_FREE) ||
		    WSTATE(w) == ORDSCHED_RING_RETIRED);
	ASSERT_EQ(0, stats(self->r.fd, &st));
	EXPECT_EQ(2, st.completed);
}

/* COMPLETE/TRASH: EPERM, EALREADY, EINVAL; all or none. */
TEST_F(pair, range_errnos_all_or_none)
{
	struct ordsched_stats st;
	__u64 t[4], w1, w2;
	int i;

	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, dev_take(self->r.fd, 1, &t[i]));
	ASSERT_EQ(0, dev_take(self->fb, 1, &t[3]));
	w1 = word(&self->r, 1);
	w2 = word(&self->r, 2);
	EXPECT_EQ(-EPERM, dev_complete(self->r.fd, 1, 3));
	EXPECT_EQ(-EPERM, dev_trash(self->r.fd, 1, 3));
	EXPECT_EQ(w1, word(&self->r, 1));
	EXPECT_EQ(w2, word(&self->r, 2));
	EXPECT_EQ(-EPERM, dev_complete(self->fb, 0, 1));
	EXPECT_EQ(-EINVAL, dev_complete(self->r.fd, 4, 1));
	EXPECT_EQ(-EINVAL, dev_trash(self->fb, 3, 2));
	EXPECT_EQ(-EINVAL, dev_complete(self->r.fd, ~0ULL - 1, 3));
	EXPECT_EQ(w2, word(&self->r, 2));
	EXPECT_EQ(-EINVAL, dev_complete(self->r.fd, 0, 0));
	ASSERT_EQ(0, dev_trash(self->r.fd, 1, 1));
	EXPECT_EQ(-EALREADY, dev_trash(self->r.fd, 1, 1));
	EXPECT_EQ(-EALREADY, dev_complete(self->r.fd, 1, 2));
	EXPECT_EQ(w2, word(&self->r, 2));
	ASSERT_EQ(0, stats(self->r.fd, &st));
	EXPECT_EQ(2, st.held);
	EXPECT_EQ(1, st.trashed);
	EXPECT_EQ(0, st.completed);
	EXPECT_EQ(0, dev_complete(self->r.fd, 2, 1));
	EXPECT_EQ(0, dev_complete(self->r.fd, 0, 1));
	EXPECT_EQ(3, ld(self->r.tail));
}

/* Batch limit: a range above max_batch is EINVAL. */
TEST_F(ring, range_above_max_batch_einval)
{
	struct ordsched_api api;

	ASSERT_EQ(0, dev_api(self->r.fd, &api));
	EXPECT_EQ(-EINVAL, dev_complete(self->r.fd, 0, api.max_batch + 1));
	EXPECT_EQ(-EINVAL, dev_trash(self->r.fd, 0, api.max_batch + 1));
}

/* The kernel runs the same protocol: ioctls on tickets taken in userspace. */
TEST_F(ring, ioctls_on_userspace_tickets)
{
	struct ordsched_stats st;
	__u64 t0, t1, t2;

	ASSERT_EQ(0, u_take(&self->r, self->r.id, &t0));
	ASSERT_EQ(0, u_take(&self->r, self->r.id, &t1));
	ASSERT_EQ(0, u_take(&self->r, self->r.id, &t2));
	EXPECT_EQ(0, dev_wait(self->r.fd, t0, 0));
	EXPECT_EQ(-ETIMEDOUT, dev_wait(self->r.fd, t1, 1));
	EXPECT_EQ(0, dev_trash(self->r.fd, t2, 1));
	EXPECT_EQ(0, dev_complete(self->r.fd, t0, 2));
	EXPECT_EQ(3, ld(self->r.tail));
	expect_retired(_metadata, self->r.fd, &st, 2, 1);
	EXPECT_EQ(0, st.taken);
}

/* "the ownership those commands check (EPERM) is read from the page" */
TEST_F(pair, ownership_read_from_page)
{
	struct ordsched_stats st;
	__u64 t;

	ASSERT_EQ(0, dev_take(self->r.fd, 1, &t));
	ASSERT_TRUE(cas(slotp(&self->r, t), W(t, self->r.id, ORDSCHED_RING_SLEEPING),
			W(t, self->idb, ORDSCHED_RING_SLEEPING)));
	ASSERT_EQ(0, stats(self->r.fd, &st));
	EXPECT_EQ(0, st.held);
	ASSERT_EQ(0, stats(self->fb, &st));
	EXPECT_EQ(1, st.held);
	EXPECT_EQ(-EPERM, dev_complete(self->r.fd, t, 1));
	EXPECT_EQ(0, dev_complete(self->fb, t, 1));
	EXPECT_EQ(1, ld(self->r.tail));
}

/* STATS: tail, head, held as the page says; counters count commands only. */
TEST_F(ring, stats_as_page_says)
{
	struct ordsched_stats st;
	__u64 t;
	int i;

	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, u_take(&self->r, self->r.id, &t));
	ASSERT_EQ(0, u_complete_turn(&self->r, self->r.fd, 0));
	ASSERT_EQ(0, stats(self->r.fd, &st));
	EXPECT_EQ(1, st.tail);
	EXPECT_EQ(3, st.head);
	EXPECT_EQ(2, st.held);
	EXPECT_EQ(0, st.taken);
	EXPECT_EQ(0, st.completed);
	EXPECT_EQ(0, st.trashed);
	EXPECT_EQ(0, st.released);
	EXPECT_EQ(0, st.waits);
	EXPECT_EQ(1, st.handles);
	EXPECT_EQ(0, st.pad);
	EXPECT_EQ(0, st.reserved[0]);
	EXPECT_EQ(0, st.reserved[1]);
	EXPECT_EQ(0, st.reserved[2]);
	/* Head and tail written by hand: reported as written. */
	__atomic_store_n(self->r.head, 1000, __ATOMIC_SEQ_CST);
	__atomic_store_n(self->r.tail, 990, __ATOMIC_SEQ_CST);
	ASSERT_EQ(0, stats(self->r.fd, &st));
	EXPECT_EQ(990, st.tail);
	EXPECT_EQ(1000, st.head);
}

/* ------------------------------------------------------------------ */
/* RING_WAIT / RING_WAKE */

/* "@flags: in: 0", "@pad: in: 0" */
TEST_F(ring, ring_wait_wake_reserved_einval)
{
	__u64 t;
	int i;

	ASSERT_EQ(0, u_take(&self->r, self->r.id, &t));
	/* First flags 1, then pad 1. */
	for (i = 0; i < 2; i++) {
		struct ordsched_ring_wait wt = {
			.ticket = t, .flags = !i, .pad = i,
		};
		struct ordsched_ring_wake wk = {
			.ticket = t, .flags = !i, .pad = i,
		};

		EXPECT_EQ(-EINVAL, dev_ioctl(self->r.fd, ORDSCHED_IOC_RING_WAIT, &wt));
		EXPECT_EQ(-EINVAL, dev_ioctl(self->r.fd, ORDSCHED_IOC_RING_WAKE, &wk));
	}
}

/* "Returns 0 when the tail is @ticket", OWNED or SLEEPING. */
TEST_F(ring, ring_wait_at_turn)
{
	__u64 t, start;

	ASSERT_EQ(0, u_take(&self->r, self->r.id, &t));
	EXPECT_EQ(0, ring_wait(self->r.fd, t, 0));
	EXPECT_EQ(0, ring_wait(self->r.fd, t, ORDSCHED_NO_DEADLINE));
	ASSERT_TRUE(u_flag(&self->r, t, self->r.id));
	/*
	 * At once, not at the deadline: there the wait looks at the turn
	 * once more and would answer 0 too.
	 */
	start = now_ns();
	EXPECT_EQ(0, ring_wait(self->r.fd, t, start + 10 * SEC));
	EXPECT_GT(SEC, now_ns() - start);
}

/* EPERM, EALREADY, EINVAL of RING_WAIT. */
TEST_F(pair, ring_wait_errnos)
{
	__u64 t0, t1, t2;

	pair_take(_metadata, self, BY_USER, &t0, &t1);
	ASSERT_EQ(0, u_take(&self->r, self->idb, &t2));
	EXPECT_EQ(-EPERM, ring_wait(self->fb, t0, 0));
	EXPECT_EQ(-EPERM, ring_wait(self->r.fd, t1, 0));
	EXPECT_EQ(-EINVAL, ring_wait(self->fb, 3, 0));
	EXPECT_EQ(-EINVAL, ring_wait(self->fb, 3 + self->r.n, 0));
	/* Retired early (RETIRED(t)), by a command. */
	ASSERT_EQ(0, dev_trash(self->fb, t2, 1));
	EXPECT_EQ(-EALREADY, ring_wait(self->fb, t2, 0));
	/* Completed at its turn: FREE(t + slots) behind the tail. */
	ASSERT_EQ(0, u_complete_turn(&self->r, self->r.fd, t0));
	EXPECT_EQ(-EALREADY, ring_wait(self->r.fd, t0, 0));
	/* Tail past t, word still OWNED: "the ticket is done". */
	ASSERT_TRUE(cas(self->r.tail, t1, t1 + 1));
	EXPECT_EQ(-EALREADY, ring_wait(self->fb, t1, 0));
}

/* RING_WAIT: a deadline in the past, and a near one (not flagged). */
TEST_F(ring, ring_wait_deadlines)
{
	struct ordsched_stats st;
	__u64 t0, t1, s;

	ASSERT_EQ(0, u_take(&self->r, self->r.id, &t0));
	ASSERT_EQ(0, u_take(&self->r, self->r.id, &t1));
	s = now_ns();
	EXPECT_EQ(-ETIMEDOUT, ring_wait(self->r.fd, t1, 1));
	EXPECT_GT(2 * SEC, now_ns() - s);
	s = now_ns();
	EXPECT_EQ(-ETIMEDOUT, ring_wait(self->r.fd, t1, s + 50 * MS));
	EXPECT_LE(50 * MS, now_ns() - s);
	EXPECT_GT(2 * SEC, now_ns() - s);
	ASSERT_EQ(0, stats(self->r.fd, &st));
	EXPECT_LE(1, st.timeouts);
	EXPECT_LE(1, st.waits);
	EXPECT_EQ(W(t1, self->r.id, ORDSCHED_RING_OWNED), word(&self->r, t1));
}

/* Flag SLEEPING, RING_WAIT; the tail moved in userspace plus RING_WAKE: 0. */
TEST_F(pair, ring_wait_woken_by_ring_wake)
{
	pair_woken(_metadata, self, ORDSCHED_IOC_RING_WAIT, BY_USER_FLAGGED,
		   10 * SEC);
}

/* "a tail moved onto @ticket before the call is seen" */
TEST_F(ring, ring_wait_sees_tail_moved_before)
{
	__u64 t0, t1, start;

	ASSERT_EQ(0, u_take(&self->r, self->r.id, &t0));
	ASSERT_EQ(0, u_take(&self->r, self->r.id, &t1));
	ASSERT_TRUE(u_flag(&self->r, t1, self->r.id));
	ASSERT_EQ(0, u_complete_turn(&self->r, -1, t0));	/* no wake */
	/*
	 * 0 at once, unwoken: not at the deadline, where the wait looks at
	 * the turn once more and would answer 0 too.
	 */
	start = now_ns();
	EXPECT_EQ(0, ring_wait(self->r.fd, t1, start + 10 * SEC));
	EXPECT_GT(SEC, now_ns() - start);
}

/* EALREADY "also when that happens during the wait". */
TEST_F(pair, ring_wait_ealready_during_wait)
{
	pair_trashed_during_wait(_metadata, self, ORDSCHED_IOC_RING_WAIT,
				 BY_USER_FLAGGED);
}

static void on_sig(int sig)
{
}

/* EINTR "as ORDSCHED_IOC_WAIT": a signal, counted in interrupts. */
TEST_F(ring, ring_wait_eintr)
{
	struct sigaction sa = { .sa_handler = on_sig };
	struct ordsched_stats st;
	struct waiter w;
	__u64 t0, t1;

	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));	/* no SA_RESTART */
	ASSERT_EQ(0, u_take(&self->r, self->r.id, &t0));
	ASSERT_EQ(0, u_take(&self->r, self->r.id, &t1));
	ASSERT_TRUE(u_flag(&self->r, t1, self->r.id));
	/* A deadline no stall of the guest reaches before the signal. */
	waiter_asleep(_metadata, &w, &st, self->r.fd, ORDSCHED_IOC_RING_WAIT, t1,
		      60 * SEC);
	pthread_kill(w.th, SIGUSR1);
	pthread_join(w.th, NULL);
	EXPECT_EQ(-EINTR, w.ret);
	ASSERT_EQ(0, stats(self->r.fd, &st));
	EXPECT_EQ(1, st.interrupts);
}

/* EBUSY: ORDSCHED_MAX_WAITERS_HANDLE sleepers; never for a turn found at once. */
TEST_F(pair, ring_wait_ebusy)
{
	static struct waiter w[ORDSCHED_MAX_WAITERS_HANDLE];
	struct ordsched_stats st;
	__u64 t0, t1, t2, dl;
	int i;

	ASSERT_EQ(0, u_take(&self->r, self->idb, &t0));
	ASSERT_EQ(0, u_take(&self->r, self->idb, &t1));
	ASSERT_EQ(0, u_take(&self->r, self->idb, &t2));
	/* "Without the flag, nobody is asked to wake the caller". */
	ASSERT_TRUE(u_flag(&self->r, t1, self->idb));
	dl = now_ns() + 60 * SEC;
	for (i = 0; i < ORDSCHED_MAX_WAITERS_HANDLE; i++)
		ASSERT_EQ(0, waiter_start(&w[i], self->fb, ORDSCHED_IOC_RING_WAIT,
					  t1, dl));
	ASSERT_TRUE(STATS_UNTIL(self->fb, st,
				st.waits >= ORDSCHED_MAX_WAITERS_HANDLE, 30));
	EXPECT_EQ(-EBUSY, ring_wait(self->fb, t2, dl));
	EXPECT_EQ(-EBUSY, dev_wait(self->fb, t2, dl));
	EXPECT_EQ(0, ring_wait(self->fb, t0, dl));
	EXPECT_EQ(0, dev_trash(self->fb, t1, 1));
	for (i = 0; i < ORDSCHED_MAX_WAITERS_HANDLE; i++) {
		pthread_join(w[i].th, NULL);
		EXPECT_EQ(-EALREADY, w[i].ret);
	}
}

/* "Any handle may call it for any ticket: a wake that finds nothing to do is harmless." */
TEST_F(pair, ring_wake_harmless)
{
	struct ordsched_stats st;
	__u64 t0, t1;
	int nh;

	nh = dev_new_handle(self->r.fd, ORDSCHED_HANDLE_CLOEXEC);	/* no id */
	ASSERT_LE(0, nh);
	ASSERT_EQ(0, u_take(&self->r, self->r.id, &t0));
	ASSERT_EQ(0, u_take(&self->r, self->r.id, &t1));
	EXPECT_EQ(0, ring_wake(self->fb, t0));
	EXPECT_EQ(0, ring_wake(self->fb, t1));
	EXPECT_EQ(0, ring_wake(nh, t1));
	EXPECT_EQ(0, ring_wake(self->r.fd, t0));
	ASSERT_EQ(0, stats(self->r.fd, &st));
	EXPECT_EQ(0, st.wakeups);
	EXPECT_EQ(W(t0, self->r.id, ORDSCHED_RING_OWNED), word(&self->r, t0));
	EXPECT_EQ(W(t1, self->r.id, ORDSCHED_RING_OWNED), word(&self->r, t1));
	EXPECT_EQ(0, ld(self->r.tail));
	EXPECT_EQ(2, ld(self->r.head));
	close(nh);
}

/* Wakes for tickets not handed out, or retired: "harmless" (0 or EINVAL). */
TEST_F(ring, ring_wake_odd_tickets)
{
	int ret;

	ret = ring_wake(self->r.fd, 5);
	EXPECT_TRUE(ret == 0 || ret == -EINVAL);
	ret = ring_wake(self->r.fd, ~0ULL);
	EXPECT_TRUE(ret == 0 || ret == -EINVAL);
	EXPECT_EQ(0, ld(self->r.head));
	EXPECT_EQ(0, ld(self->r.tail));
}

/*
 * "When @ticket is the tail, it also wakes the threads waiting for
 * @ticket + 1 if its slot is flagged SLEEPING, ahead of their turn ...
 * Such a thread does not return early ... then sleeps again until woken,
 * its slot still flagged."
 */
TEST_F(pair, ring_wake_ahead_no_early_return)
{
	struct ordsched_stats st, st2;
	struct waiter w;
	__u64 t0, t1, t2;

	ASSERT_EQ(0, u_take(&self->r, self->r.id, &t0));
	ASSERT_EQ(0, u_take(&self->r, self->r.id, &t1));
	ASSERT_EQ(0, u_take(&self->r, self->idb, &t2));
	ASSERT_TRUE(u_flag(&self->r, t2, self->idb));
	waiter_asleep(_metadata, &w, &st, self->fb, ORDSCHED_IOC_RING_WAIT, t2,
		      10 * SEC);
	ASSERT_EQ(0, u_complete_turn(&self->r, -1, t0));	/* t1 not flagged */
	EXPECT_EQ(0, ring_wake(self->r.fd, t1));		/* tail == t1 */
	usleep(300 * 1000);
	EXPECT_FALSE(waiter_done(&w));
	EXPECT_EQ(W(t2, self->idb, ORDSCHED_RING_SLEEPING), word(&self->r, t2));
	ASSERT_EQ(0, stats(self->fb, &st2));
	EXPECT_LE(st.wakeups + 1, st2.wakeups);
	/* Now its turn: moved with a wake. */
	ASSERT_EQ(0, u_complete_turn(&self->r, self->r.fd, t1));
	WAITER_JOIN_WOKEN(&w);
	EXPECT_EQ(0, w.ret);
}

/* Without the flag nobody is asked to wake: a RING_WAKE still wakes it. */
TEST_F(pair, ring_wake_wakes_unflagged_waiter)
{
	struct ordsched_stats st;
	struct waiter w;
	__u64 t0, t1;

	pair_take(_metadata, self, BY_USER, &t0, &t1);
	waiter_asleep(_metadata, &w, &st, self->fb, ORDSCHED_IOC_RING_WAIT, t1,
		      10 * SEC);
	ASSERT_EQ(0, u_complete_turn(&self->r, -1, t0));
	EXPECT_EQ(0, ring_wake(self->r.fd, t1));
	WAITER_JOIN_WOKEN(&w);
	EXPECT_EQ(0, w.ret);
}

/* ------------------------------------------------------------------ */
/* poll() */

/* "poll() reports EPOLLIN when the slot at the tail is owned by the handle's id" */
TEST_F(pair, poll_ready_owner_of_tail)
{
	__u64 t0, t1;

	EXPECT_EQ(0, poll_now(self->r.fd));
	pair_take(_metadata, self, BY_USER, &t0, &t1);
	EXPECT_TRUE(poll_now(self->r.fd) & POLLIN);
	EXPECT_EQ(0, poll_now(self->fb) & POLLIN);
	ASSERT_EQ(0, u_complete_turn(&self->r, -1, t0));
	EXPECT_EQ(0, poll_now(self->r.fd) & POLLIN);
	EXPECT_TRUE(poll_now(self->fb) & POLLIN);
}

/* poll() "is woken by ORDSCHED_IOC_RING_WAKE for a ticket the handle owns" */
TEST_F(pair, poll_woken_by_ring_wake)
{
	pair_poll_woken(_metadata, self, BY_USER_FLAGGED);
}

/* TAKE flags for the ticket's life: an ioctl COMPLETE wakes the poller. */
TEST_F(pair, poll_woken_after_take_by_complete)
{
	pair_poll_woken(_metadata, self, BY_TAKE);
}

/* ------------------------------------------------------------------ */
/* Release and death */

/* Close: "the kernel trashes every slot it owns and moves the tail on". */
TEST_F(pair, release_trashes_slots)
{
	struct ordsched_stats st;
	__u64 t0, t1, t2, w;

	ASSERT_EQ(0, u_take(&self->r, self->r.id, &t0));
	ASSERT_EQ(0, dev_take(self->fb, 1, &t1));
	ASSERT_EQ(0, u_take(&self->r, self->idb, &t2));
	close(self->fb);
	self->fb = -1;
	ASSERT_TRUE(STATS_UNTIL(self->r.fd, st, st.handles == 1, 10));
	EXPECT_EQ(2, st.released);
	EXPECT_EQ(0, st.trashed);
	w = word(&self->r, t1);
	EXPECT_EQ(ORDSCHED_RING_RETIRED, WSTATE(w));
	EXPECT_EQ(t1, WTICKET(w));
	w = word(&self->r, t2);
	EXPECT_EQ(ORDSCHED_RING_RETIRED, WSTATE(w));
	EXPECT_EQ(W(t0, self->r.id, ORDSCHED_RING_OWNED), word(&self->r, t0));
	EXPECT_EQ(0, ld(self->r.tail));
	/* The tail passes the trashed slots once ours is done. */
	ASSERT_EQ(0, dev_complete(self->r.fd, t0, 1));
	EXPECT_EQ(3, ld(self->r.tail));
}

/* Release with the tail at the dead handle's tickets: the tail moves on. */
TEST_F(pair, release_moves_tail)
{
	struct ordsched_stats st;
	__u64 t, i;

	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, u_take(&self->r, self->idb, &t));
	close(self->fb);
	self->fb = -1;
	EXPECT_TRUE(STATS_UNTIL(self->r.fd, st, st.tail == 3, 10));
	EXPECT_EQ(3, ld(self->r.tail));
	EXPECT_EQ(3, st.released);
	ASSERT_EQ(0, dev_take(self->r.fd, 1, &t));
	EXPECT_EQ(3, t);
	EXPECT_EQ(0, dev_wait(self->r.fd, t, 0));
}

/* SIGKILL a child holding tickets: the waiter behind them gets its turn. */
TEST_F(ring, sigkill_holder_wakes_waiter)
{
	struct ordsched_stats st;
	struct waiter w;
	int pfd[2], status;
	__u64 t2;
	pid_t pid;
	char c;

	ASSERT_EQ(0, pipe(pfd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct ordsched_ring_setup s;
		__u64 t;
		int nh = dev_new_handle(self->r.fd, ORDSCHED_HANDLE_CLOEXEC);

		close(self->r.fd);
		if (nh < 0 || setup_fd(nh, &s))
			_exit(1);
		if (u_take(&self->r, s.id, &t) || t != 0)
			_exit(2);
		if (dev_take(nh, 1, &t) || t != 1)
			_exit(3);
		if (write(pfd[1], "x", 1) != 1)
			_exit(4);
		for (;;)
			pause();
	}
	close(pfd[1]);
	ASSERT_EQ(1, read(pfd[0], &c, 1));
	ASSERT_EQ(0, u_take(&self->r, self->r.id, &t2));
	ASSERT_EQ(2, t2);
	ASSERT_TRUE(u_flag(&self->r, t2, self->r.id));
	waiter_asleep(_metadata, &w, &st, self->r.fd, ORDSCHED_IOC_RING_WAIT, t2,
		      8 * SEC);
	EXPECT_FALSE(waiter_done(&w));
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	WAITER_JOIN_WOKEN(&w);
	EXPECT_EQ(0, w.ret);
	EXPECT_EQ(2, ld(self->r.tail));
	ASSERT_EQ(0, stats(self->r.fd, &st));
	EXPECT_EQ(2, st.released);
	EXPECT_EQ(0, st.timeouts);
	close(pfd[0]);
}

/* "The mapping ... does not keep the handle alive ... the page stays mapped" */
TEST_F(pair, mapping_does_not_keep_handle)
{
	struct ordsched_stats st;
	__u64 *p, t;

	p = mmap(NULL, self->r.s.size, PROT_READ | PROT_WRITE, MAP_SHARED, self->fb,
		 self->r.s.mmap_offset);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, u_take(&self->r, self->idb, &t));
	close(self->fb);
	self->fb = -1;
	EXPECT_TRUE(STATS_UNTIL(self->r.fd, st, st.handles == 1, 10));
	EXPECT_EQ(1, st.released);
	/* Still mapped, still the domain's page. */
	EXPECT_EQ(1, ld((__u64 *)((char *)p + self->r.s.tail_offset)));
	EXPECT_EQ(0, memcmp(p, self->r.page, self->r.s.size));
	munmap(p, self->r.s.size);
	/* Whole domain gone: our own mapping still readable. */
	close(self->r.fd);
	self->r.fd = -1;
	EXPECT_EQ(1, ld(self->r.tail));
}

/* "deferred: the runs of the work item ... when a release ... ran out of its budget" */
TEST_F(pair, release_of_full_window_deferred)
{
	struct ordsched_stats st;
	__u64 i, t;

	for (i = 0; i < self->r.n; i++)
		ASSERT_EQ(0, u_take(&self->r, self->idb, &t));
	close(self->fb);
	self->fb = -1;
	EXPECT_TRUE(STATS_UNTIL(self->r.fd, st, st.tail == self->r.n, 10));
	EXPECT_EQ(self->r.n, ld(self->r.tail));
	EXPECT_EQ(self->r.n, st.released);
	EXPECT_LE(1, st.deferred);
	/* The next lap works. */
	EXPECT_EQ(0, dev_take(self->r.fd, 1, &t));
	EXPECT_EQ(self->r.n, t);
	EXPECT_EQ(0, dev_complete(self->r.fd, t, 1));
}

/* deferred is 0 in a domain without a ring. */
TEST(deferred_zero_without_ring)
{
	struct ordsched_stats st;
	int fd = dev_open(), fb;
	__u64 t;

	ASSERT_LE(0, fd);
	fb = dev_new_handle(fd, ORDSCHED_HANDLE_CLOEXEC);
	ASSERT_LE(0, fb);
	ASSERT_EQ(0, dev_take(fb, 1, &t));
	close(fb);
	ASSERT_EQ(0, stats(fd, &st));
	EXPECT_EQ(1, st.released);
	EXPECT_EQ(0, st.deferred);
	close(fd);
}

/* ------------------------------------------------------------------ */
/* Trust model */

static bool documented(int ret)
{
	switch (-ret) {
	case 0: case EINVAL: case EAGAIN: case EIO: case EPERM:
	case EALREADY: case ETIMEDOUT: case EBUSY: case EINTR:
	case ENOSPC: case ENOMEM:
		return true;
	}
	return false;
}

/*
 * "A participant that writes anything else into the page ... cannot crash
 * the kernel, reach another domain, or make a system call fail with an
 * undocumented errno."
 */
TEST_F(pair, scribbled_page_documented_errnos)
{
	struct ordsched_stats st;
	struct rd o;
	__u64 t, *words, bad = 0, x;
	unsigned int seed = 12345;
	int i, ret, nw;

	ASSERT_EQ(0, rd_open(&o));
	words = (__u64 *)self->r.page;
	nw = self->r.s.size / 8;
	for (i = 0; i < 400; i++) {
		int k, j;

		for (k = 0; k < 4; k++) {
			j = rand_r(&seed) % nw;
			x = ((__u64)rand_r(&seed) << 33) ^
			    ((__u64)rand_r(&seed) << 2) ^ rand_r(&seed);
			switch (rand_r(&seed) % 4) {
			case 0: words[j] = x; break;
			case 1: *self->r.head = ld(self->r.tail) + (x % (2 * self->r.n)); break;
			case 2: *slotp(&self->r, ld(self->r.head)) =
					W(ld(self->r.head) + (x & 1) * self->r.n, x >> 40,
					  x & 3);
				break;
			case 3: *self->r.tail = ld(self->r.head) - (x % (self->r.n + 2)); break;
			}
		}
		x = ld(self->r.tail) + (rand_r(&seed) % 8) - 2;
		ret = dev_take(i & 1 ? self->fb : self->r.fd, 1, &t);
		bad += !documented(ret);
		if (!ret)
			x = t;
		ret = dev_wait(self->fb, x, now_ns() + MS);
		bad += !documented(ret);
		ret = ring_wait(self->r.fd, x, now_ns() + MS);
		bad += !documented(ret);
		ret = ring_wake(self->fb, x);
		bad += !documented(ret);
		ret = dev_complete(self->r.fd, x, 1 + (i & 3));
		bad += !documented(ret);
		ret = dev_trash(self->fb, x, 1);
		bad += !documented(ret);
		ret = stats(self->r.fd, &st);
		bad += ret != 0;
		ret = poll_now(self->fb);
		bad += ret < 0;
		if (bad) {
			TH_LOG("iteration %d: last ret %d", i, ret);
			break;
		}
	}
	EXPECT_EQ(0, bad);
	/* The other domain is untouched. */
	ASSERT_EQ(0, dev_take(o.fd, 1, &t));
	EXPECT_EQ(0, t);
	EXPECT_EQ(0, dev_wait(o.fd, t, 0));
	EXPECT_EQ(0, dev_complete(o.fd, t, 1));
	EXPECT_EQ(1, ld(o.tail));
	close(o.fd);
}

/* "a page scribbled on: EIO" for TAKE; EAGAIN as the documented alternative. */
TEST_F(ring, take_scribbled_slot_eio)
{
	__u64 t;
	int ret;

	/* The head's slot holds a word of a ticket far away. */
	*slotp(&self->r, 0) = W(12345, 0, ORDSCHED_RING_FREE);
	ret = dev_take(self->r.fd, 1, &t);
	if (ret != -EIO)
		TH_LOG("TAKE on a scribbled slot: %d", ret);
	EXPECT_EQ(-EIO, ret);
}

/* Tickets the tail left laps behind: EALREADY for every command. */
TEST_F(ring, ancient_ticket_ealready)
{
	__u64 i, t;

	for (i = 0; i < 2 * self->r.n + 5; i++) {
		ASSERT_EQ(0, u_take(&self->r, self->r.id, &t));
		ASSERT_EQ(0, u_complete_turn(&self->r, -1, t));
	}
	EXPECT_EQ(-EALREADY, ring_wait(self->r.fd, 0, 0));
	EXPECT_EQ(-EALREADY, ring_wait(self->r.fd, self->r.n + 1, 0));
	EXPECT_EQ(-EALREADY, dev_wait(self->r.fd, 3, 0));
	EXPECT_EQ(-EALREADY, dev_complete(self->r.fd, 1, 1));
	EXPECT_EQ(-EALREADY, dev_trash(self->r.fd, self->r.n + 2, 2));
	EXPECT_EQ(-EINVAL, ring_wait(self->r.fd, ld(self->r.head), 0));
	EXPECT_EQ(-EINVAL, ring_wait(self->r.fd, ld(self->r.head) + self->r.n, 0));
}

/* held counts "as the page says": a word left OWNED behind the tail is done. */
TEST_F(ring, held_excludes_done_words)
{
	struct ordsched_stats st;
	__u64 t0, t1;

	ASSERT_EQ(0, u_take(&self->r, self->r.id, &t0));
	ASSERT_EQ(0, u_take(&self->r, self->r.id, &t1));
	ASSERT_EQ(0, dev_trash(self->r.fd, t1, 1));
	ASSERT_TRUE(cas(self->r.tail, t0, t0 + 1));	/* t0 done, word OWNED */
	ASSERT_EQ(0, stats(self->r.fd, &st));
	EXPECT_EQ(0, st.held);
	EXPECT_EQ(1, st.tail);
	EXPECT_EQ(W(t0, self->r.id, ORDSCHED_RING_OWNED), word(&self->r, t0));
	/* The tail is at a RETIRED word: nobody's turn. */
	EXPECT_EQ(0, poll_now(self->r.fd) & POLLIN);
}

/* "EAGAIN: the handle would hold more than max_held tickets" in a ring domain. */
TEST_F(ring, take_max_held_eagain)
{
	struct ordsched_stats st;
	struct ordsched_api api;
	__u64 i, lim, t;

	ASSERT_EQ(0, dev_api(self->r.fd, &api));
	lim = api.max_held < self->r.n ? api.max_held : self->r.n;
	for (i = 0; i < lim; i++)
		ASSERT_EQ(0, dev_take(self->r.fd, 1, &t));
	EXPECT_EQ(-EAGAIN, dev_take(self->r.fd, 1, &t));
	ASSERT_EQ(0, stats(self->r.fd, &st));
	EXPECT_EQ(lim, st.held);
	EXPECT_EQ(1, st.full);
	EXPECT_EQ(lim, ld(self->r.head));
}

/* A TAKE's ticket stays flagged "for the ticket's life", also after WAIT. */
TEST_F(pair, take_flag_for_life)
{
	__u64 t0, t1;

	pair_take(_metadata, self, BY_TAKE, &t0, &t1);
	EXPECT_EQ(-ETIMEDOUT, dev_wait(self->fb, t1, now_ns() + 20 * MS));
	EXPECT_EQ(ORDSCHED_RING_SLEEPING, WSTATE(word(&self->r, t1)));
	EXPECT_EQ(0, dev_wait(self->r.fd, t0, 0));
	EXPECT_EQ(ORDSCHED_RING_SLEEPING, WSTATE(word(&self->r, t0)));
}

/* COMPLETE_WAIT in a ring domain: complete, then wait as WAIT. */
TEST_F(ring, complete_wait_in_ring)
{
	__u64 t0, t1, t2;

	ASSERT_EQ(0, dev_take(self->r.fd, 1, &t0));
	ASSERT_EQ(0, dev_take(self->r.fd, 1, &t1));
	ASSERT_EQ(0, dev_take(self->r.fd, 1, &t2));
	EXPECT_EQ(0, dev_complete_wait(self->r.fd, t0, t1, now_ns() + SEC));
	EXPECT_EQ(1, ld(self->r.tail));
	EXPECT_EQ(-ETIMEDOUT, dev_complete_wait(self->r.fd, ORDSCHED_NO_TICKET, t2,
						now_ns() + 10 * MS));
	EXPECT_EQ(-EALREADY, dev_complete_wait(self->r.fd, t0, t2, 0));
	EXPECT_EQ(1, ld(self->r.tail));
}

/*
 * "When @ticket is the tail and its slot is not RETIRED ... it also wakes
 * the threads waiting for @ticket + 1": a plain COMPLETE of the tail in a
 * ring domain retires it and wakes it (its ioctl take flagged it), then
 * advances and wakes @ticket + 1 at its turn. Its waiter was also woken
 * ahead by the first wake-up, and counted twice for one hand-over.
 */
TEST_F(pair, complete_at_tail_counts_one_wakeup)
{
	struct ordsched_stats st, st2;
	struct waiter w;
	__u64 t0, t1;

	ASSERT_EQ(0, dev_take(self->r.fd, 1, &t0));
	ASSERT_EQ(0, dev_take(self->fb, 1, &t1));
	ASSERT_EQ(t0 + 1, t1);
	ASSERT_EQ(0, waiter_start(&w, self->fb, ORDSCHED_IOC_WAIT, t1,
				  now_ns() + 10 * SEC));
	EXPECT_TRUE(STATS_UNTIL(self->fb, st, st.waits >= 1, 10));
	usleep(50 * 1000);
	ASSERT_EQ(0, stats(self->fb, &st));
	ASSERT_EQ(0, dev_complete(self->r.fd, t0, 1));
	WAITER_JOIN_WOKEN(&w);
	EXPECT_EQ(0, w.ret);
	ASSERT_EQ(0, stats(self->fb, &st2));
	EXPECT_EQ(st.wakeups + 1, st2.wakeups);
	EXPECT_EQ(0, dev_complete(self->fb, t1, 1));
}

/*
 * A release wakes the tail's sleeper when the released handle may have
 * moved the tail (ring_proto.h: release is the exception). A handle
 * without an id that never mapped the ring page never wrote to the ring:
 * closing it wakes nobody, as in a domain without a ring (the waiter of
 * t1, flagged by its ioctl take, is not woken ahead of its turn).
 */
TEST_F(pair, close_of_an_idle_handle_wakes_nobody)
{
	struct ordsched_stats st, st2;
	struct waiter w;
	__u64 t0, t1;
	int nh;

	ASSERT_EQ(0, dev_take(self->r.fd, 1, &t0));
	ASSERT_EQ(0, dev_take(self->fb, 1, &t1));
	ASSERT_EQ(0, waiter_start(&w, self->fb, ORDSCHED_IOC_WAIT, t1,
				  now_ns() + 10 * SEC));
	EXPECT_TRUE(STATS_UNTIL(self->fb, st, st.waits >= 1, 10));
	usleep(50 * 1000);
	ASSERT_EQ(0, stats(self->fb, &st));
	nh = dev_new_handle(self->r.fd, ORDSCHED_HANDLE_CLOEXEC);
	ASSERT_LE(0, nh);
	close(nh);
	usleep(300 * 1000);
	ASSERT_EQ(0, stats(self->fb, &st2));
	EXPECT_EQ(st.wakeups, st2.wakeups);
	EXPECT_FALSE(waiter_done(&w));
	ASSERT_EQ(0, dev_complete(self->r.fd, t0, 1));
	WAITER_JOIN_WOKEN(&w);
	EXPECT_EQ(0, w.ret);
	EXPECT_EQ(0, dev_complete(self->fb, t1, 1));
}

/* "When @ticket is the tail ... wakes @ticket + 1 ... Nobody else is woken." */
TEST_F(pair, ring_wake_nobody_else)
{
	struct ordsched_stats st, st2;
	struct waiter w1, w2;
	__u32 idc;
	__u64 t0, t1, t2;
	int fc;

	fc = rd_handle(&self->r, &idc);
	ASSERT_LE(0, fc);
	pair_take(_metadata, self, BY_USER, &t0, &t1);
	ASSERT_EQ(0, u_take(&self->r, idc, &t2));
	ASSERT_TRUE(u_flag(&self->r, t1, self->idb));
	ASSERT_TRUE(u_flag(&self->r, t2, idc));
	ASSERT_EQ(0, waiter_start(&w1, self->fb, ORDSCHED_IOC_RING_WAIT, t1,
				  now_ns() + 10 * SEC));
	ASSERT_EQ(0, waiter_start(&w2, fc, ORDSCHED_IOC_RING_WAIT, t2,
				  now_ns() + 10 * SEC));
	EXPECT_TRUE(STATS_UNTIL(self->fb, st, st.waits >= 2, 10));
	usleep(50 * 1000);
	ASSERT_EQ(0, stats(self->fb, &st));
	EXPECT_EQ(0, ring_wake(self->r.fd, t0));	/* t1 ahead; not t2 */
	usleep(300 * 1000);
	ASSERT_EQ(0, stats(self->fb, &st2));
	EXPECT_EQ(st.wakeups + 1, st2.wakeups);
	EXPECT_FALSE(waiter_done(&w1));
	EXPECT_FALSE(waiter_done(&w2));
	ASSERT_EQ(0, u_complete_turn(&self->r, self->r.fd, t0));
	pthread_join(w1.th, NULL);
	EXPECT_EQ(0, w1.ret);
	ASSERT_EQ(0, dev_complete(self->fb, t1, 1));
	pthread_join(w2.th, NULL);
	EXPECT_EQ(0, w2.ret);
	close(fc);
}

/* "a close() in one thread while another waits ... releases it when that wait returns" */
TEST_F(pair, close_during_ring_wait)
{
	struct ordsched_stats st;
	struct waiter w;
	__u64 t0, t1;

	pair_take(_metadata, self, BY_USER_FLAGGED, &t0, &t1);
	ASSERT_EQ(0, waiter_start(&w, self->fb, ORDSCHED_IOC_RING_WAIT, t1,
				  now_ns() + 400 * MS));
	EXPECT_TRUE(STATS_UNTIL(self->r.fd, st, st.waits >= 1, 10));
	close(self->fb);
	self->fb = -1;
	ASSERT_EQ(0, stats(self->r.fd, &st));
	/*
	 * Not released while the wait goes on; a guest stalled past the
	 * deadline before the close (the timeout counted) has it over.
	 */
	if (!st.timeouts) {
		EXPECT_EQ(2, st.handles);
		EXPECT_EQ(0, st.released);
	}
	pthread_join(w.th, NULL);
	EXPECT_EQ(-ETIMEDOUT, w.ret);
	EXPECT_TRUE(STATS_UNTIL(self->r.fd, st, st.handles == 1, 10));
	EXPECT_EQ(1, st.released);
	EXPECT_EQ(ORDSCHED_RING_RETIRED, WSTATE(word(&self->r, t1)));
}

/* EBUSY at ORDSCHED_MAX_WAITERS_DOMAIN sleepers of the domain. */
TEST_F_TIMEOUT(ring, ring_wait_ebusy_domain, 240)
{
	enum { H = ORDSCHED_MAX_WAITERS_DOMAIN / ORDSCHED_MAX_WAITERS_HANDLE };
	static struct waiter w[ORDSCHED_MAX_WAITERS_DOMAIN];
	struct ordsched_stats st;
	int fds[H + 1], i;
	__u32 ids[H + 1];
	__u64 tk[H + 1], t0, dl;

	ASSERT_EQ(0, u_take(&self->r, self->r.id, &t0));
	for (i = 0; i <= H; i++) {
		fds[i] = rd_handle(&self->r, &ids[i]);
		ASSERT_LE(0, fds[i]);
		ASSERT_EQ(0, u_take(&self->r, ids[i], &tk[i]));
		/* Flagged, so that the trash below wakes its waiters. */
		ASSERT_TRUE(u_flag(&self->r, tk[i], ids[i]));
	}
	dl = now_ns() + 150 * SEC;
	for (i = 0; i < ORDSCHED_MAX_WAITERS_DOMAIN; i++) {
		int h = i / ORDSCHED_MAX_WAITERS_HANDLE;

		ASSERT_EQ(0, waiter_start(&w[i], fds[h], ORDSCHED_IOC_RING_WAIT,
					  tk[h], dl));
	}
	ASSERT_TRUE(STATS_UNTIL(self->r.fd, st,
				st.waits >= ORDSCHED_MAX_WAITERS_DOMAIN, 120));
	EXPECT_EQ(-EBUSY, ring_wait(fds[H], tk[H], dl));
	for (i = 0; i < H; i++)
		EXPECT_EQ(0, dev_trash(fds[i], tk[i], 1));
	for (i = 0; i < ORDSCHED_MAX_WAITERS_DOMAIN; i++) {
		WAITER_JOIN_WOKEN(&w[i]);
		EXPECT_EQ(-EALREADY, w[i].ret);
	}
	for (i = 0; i <= H; i++)
		close(fds[i]);
}

/* The kernel keeps no pointer in the page: a rewritten header misleads nobody but us. */
TEST_F(ring, scribbled_header_ignored)
{
	struct ordsched_ring_hdr *hdr;
	struct ordsched_status *sts;
	struct ordsched_ring_setup s;
	struct ordsched_stats st;
	__u64 t;
	int fb;

	hdr = (void *)(self->r.page + ORDSCHED_RING_HDR_OFFSET);
	sts = (void *)self->r.page;
	hdr->slots = 1;
	hdr->head_offset = 0;
	hdr->tail_offset = 8;
	hdr->slots_offset = 4000;
	hdr->size = 1 << 30;
	sts->tail_offset = 16;
	sts->head_offset = 24;
	sts->window = 3;
	ASSERT_EQ(0, dev_take(self->r.fd, 1, &t));
	EXPECT_EQ(0, t);
	EXPECT_EQ(1, ld(self->r.head));
	EXPECT_EQ(W(0, self->r.id, ORDSCHED_RING_SLEEPING), word(&self->r, 0));
	ASSERT_EQ(0, dev_complete(self->r.fd, t, 1));
	EXPECT_EQ(1, ld(self->r.tail));
	ASSERT_EQ(0, stats(self->r.fd, &st));
	EXPECT_EQ(1, st.tail);
	EXPECT_EQ(1, st.head);
	fb = dev_new_handle(self->r.fd, ORDSCHED_HANDLE_CLOEXEC);
	ASSERT_LE(0, fb);
	ASSERT_EQ(0, setup_fd(fb, &s));
	expect_same_layout(_metadata, &self->r.s, &s);
	close(fb);
}

/*
 * "ENOSPC: the domain has no free id left" (ids are 16 bits, never 0).
 * 65535 handles take long to release on a debug kernel: a longer timeout,
 * so that the harness never leaves the process exiting behind it.
 */
FIXTURE(ids) {};
FIXTURE_SETUP(ids) {}
FIXTURE_TEARDOWN(ids) {}

TEST_F_TIMEOUT(ids, setup_enospc, 240)
{
	struct ordsched_ring_setup s;
	struct rlimit rl = { 70000, 70000 };
	int *fds, n = 0, ret = 0, i;
	struct rd r;

	if (setrlimit(RLIMIT_NOFILE, &rl))
		SKIP(return, "cannot raise RLIMIT_NOFILE");
	ASSERT_EQ(0, rd_open(&r));
	fds = calloc(70000, sizeof(int));
	ASSERT_NE(NULL, fds);
	while (n < 69000) {
		int fd = dev_new_handle(r.fd, ORDSCHED_HANDLE_CLOEXEC);

		if (fd < 0) {
			ret = fd;
			break;
		}
		fds[n++] = fd;
		ret = setup_fd(fd, &s);
		if (ret)
			break;
	}
	TH_LOG("%d handles, last %d", n, ret);
	if (ret == -EMFILE || ret == -ENFILE || ret == -ENOMEM) {
		for (i = 0; i < n; i++)
			close(fds[i]);
		SKIP(return, "ran out of files/memory first: %d", ret);
	}
	EXPECT_EQ(-ENOSPC, ret);
	/*
	 * Exactly 65535 ids (16 bits, never 0): the fixture's and those of
	 * the first n - 1 new handles; the n-th is refused. Fewer would be
	 * ids leaked or a smaller space than the header's.
	 */
	EXPECT_EQ(ORDSCHED_RING_ID_MASK, n);
	/* An id comes back when its handle goes. */
	close(fds[0]);
	EXPECT_EQ(0, setup_fd(fds[n - 1], &s));
	for (i = 1; i < n; i++)
		close(fds[i]);
	free(fds);
	close(r.fd);
}

/*
 * "EINVAL: @ticket was never handed out": in a domain that never handed
 * out a ticket, ticket 2^64 - 1 was not, whatever the wrap-around rules.
 */
TEST_F(ring, never_handed_out_top_ticket)
{
	int fd;
	__u64 t;

	fd = dev_open();
	ASSERT_LE(0, fd);
	EXPECT_EQ(-EINVAL, ring_wait(self->r.fd, ~0ULL, 0));
	EXPECT_EQ(-EINVAL, dev_wait(self->r.fd, ~0ULL, 0));
	EXPECT_EQ(-EINVAL, dev_complete(self->r.fd, ~0ULL, 1));
	EXPECT_EQ(-EINVAL, dev_trash(self->r.fd, ~0ULL - 100, 1));
	/* The same questions in a domain without a ring. */
	ASSERT_EQ(0, dev_take(fd, 1, &t));
	EXPECT_EQ(-EINVAL, dev_wait(fd, ~0ULL, 0));
	EXPECT_EQ(-EINVAL, dev_complete(fd, ~0ULL, 1));
	close(fd);
}

/*
 * "EINVAL: @ticket was never handed out", "EPERM: another handle holds
 * @ticket": ticket 2^46 (never handed out) shares ticket 0's slot and its
 * word modulo 2^46; the 46-bit wrap paragraph is about a thread stalled
 * for 2^46 tickets, not about a command naming a ticket of a future lap.
 */
TEST_F(ring, never_handed_out_lap_alias)
{
	struct ordsched_stats st;
	__u64 t, alias = 1ULL << 46;

	ASSERT_EQ(0, dev_take(self->r.fd, 1, &t));
	ASSERT_EQ(0, t);
	ASSERT_EQ(ORDSCHED_RING_INDEX(0, self->r.n), ORDSCHED_RING_INDEX(alias, self->r.n));
	EXPECT_EQ(-EINVAL, ring_wait(self->r.fd, alias, 0));
	EXPECT_EQ(-EINVAL, dev_wait(self->r.fd, alias, 0));
	EXPECT_EQ(-EINVAL, dev_complete(self->r.fd, alias, 1));
	EXPECT_EQ(0, ld(self->r.tail));
	ASSERT_EQ(0, stats(self->r.fd, &st));
	EXPECT_EQ(0, st.completed);
	EXPECT_EQ(1, st.held);
}

/*
 * "Head and tail are full 64-bit counters: crossing 2^64 is harmless."
 * A fresh page rewritten consistently to start at 2^64 - 2.
 */
TEST_F(ring, crossing_2_64_harmless)
{
	struct ordsched_stats st;
	__u64 base = ~0ULL - 1, t, i, got[4];

	for (i = 0; i < self->r.n; i++)
		*slotp(&self->r, base + i) = W(base + i, 0, ORDSCHED_RING_FREE);
	__atomic_store_n(self->r.tail, base, __ATOMIC_SEQ_CST);
	__atomic_store_n(self->r.head, base, __ATOMIC_SEQ_CST);
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, dev_take(self->r.fd, 1, &got[i]));
		EXPECT_EQ(base + i, got[i]);
	}
	EXPECT_EQ(2, ld(self->r.head));
	EXPECT_EQ(0, dev_wait(self->r.fd, got[0], 0));
	EXPECT_EQ(-ETIMEDOUT, dev_wait(self->r.fd, got[2], 1));
	for (i = 0; i < 4; i++)
		EXPECT_EQ(0, dev_complete(self->r.fd, got[i], 1));
	EXPECT_EQ(2, ld(self->r.tail));
	ASSERT_EQ(0, stats(self->r.fd, &st));
	EXPECT_EQ(2, st.tail);
	EXPECT_EQ(0, st.held);
	EXPECT_EQ(4, st.completed);
	ASSERT_EQ(0, u_take(&self->r, self->r.id, &t));
	EXPECT_EQ(2, t);
}

TEST_HARNESS_MAIN
