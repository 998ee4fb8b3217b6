// SPDX-License-Identifier: GPL-2.0
/*
 * dev_contract_test: /dev/ordsched seen by a client that knows only
 * uapi/linux/ordsched.h (and what ordsched_ring.h says about domains
 * without a ring). Each TEST checks one promise, or a few closely related
 * ones, and quotes the header lines it checks. Raw system calls only.
 *
 * Nothing here depends on timing to pass: every wait has a deadline of
 * seconds that only a broken promise reaches, and "has not returned yet"
 * checks can only miss a break, never invent one.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <linux/userfaultfd.h>

#include <linux/ordsched_ring.h>

#include "dev_util.h"
#include "kselftest_harness.h"

#define MS		1000000ULL
#define PAST		1ULL	/* an absolute deadline long gone */
#define LONG_MS		10000	/* a deadline only a broken promise reaches */

#define META struct __test_metadata *_metadata

/* Whether the wait @a (ORDSCHED_IOC_WAIT) ended well before its deadline. */
#define woken(a)	((a)->end_ns + 1000 * MS < (a)->arg.w.deadline_ns)

/*
 * After joining a wait that must have been woken, of deadline @dl: it
 * returned well before it. A lost wake-up ends at the deadline, where the
 * kernel looks at the turn once more and answers 0 as if woken.
 */
#define EXPECT_WOKEN(a, dl)						\
	EXPECT_LT((a).end_ns + 1000 * MS, (dl))				\
		TH_LOG("returned %lld ms before its deadline",		\
		       ((long long)(dl) - (long long)(a).end_ns) / (long long)MS)

static __u64 in_ms(unsigned int ms)
{
	return now_ns() + ms * MS;
}

static size_t page_size(void)
{
	return getpagesize();
}

/* ---- domains, handles, tickets ---------------------------------------- */

/*
 * Tests of TEST_F(dom, ...) run twice: in domains without a ring, and in
 * ring domains (ORDSCHED_IOC_RING_SETUP by the first handle at once),
 * where ordsched.h's commands take the ring's paths.
 */
static bool g_ring;

struct dom {
	int fd;
	struct ordsched_api api;
	struct ordsched_ring_setup rs;	/* ring domains */
	__u32 window;			/* the domain's */
	__u32 batch;			/* most tickets one TAKE takes */
};

static void open_dom(META, struct dom *d)
{
	memset(d, 0, sizeof(*d));
	d->fd = dev_open();
	ASSERT_LE(0, d->fd) TH_LOG("open %s: %s", DEV_PATH, strerror(-d->fd));
	ASSERT_EQ(0, dev_api(d->fd, &d->api));
	d->window = d->api.window;
	d->batch = d->api.max_batch;
	if (g_ring) {
		ASSERT_TRUE(d->api.features & ORDSCHED_FEAT_RING);
		ASSERT_EQ(0, dev_ioctl(d->fd, ORDSCHED_IOC_RING_SETUP, &d->rs));
		d->window = d->rs.slots;
		d->batch = 1;	/* ordsched_ring.h:24-25 */
	}
}

static int new_handle(META, int fd)
{
	int h = dev_new_handle(fd, 0);

	ASSERT_LE(0, h) TH_LOG("NEW_HANDLE: %s", strerror(-h));
	return h;
}

/* @count consecutive tickets: one TAKE, or @count in a ring domain. */
static __u64 take(META, int fd, __u32 count)
{
	__u64 first = 0, t;
	int ret = dev_take(fd, g_ring ? 1 : count, &first);

	ASSERT_EQ(0, ret) TH_LOG("TAKE %u: %s", count, strerror(-ret));
	for (__u32 i = 1; g_ring && i < count; i++) {
		ret = dev_take(fd, 1, &t);
		ASSERT_EQ(0, ret) TH_LOG("TAKE: %s", strerror(-ret));
		ASSERT_EQ(first + i, t);
	}
	return first;
}

static void stats(META, int fd, struct ordsched_stats *st)
{
	ASSERT_EQ(0, dev_stats(fd, st));
}

static __u64 tail_of(META, int fd)
{
	struct ordsched_stats st;

	stats(_metadata, fd, &st);
	return st.tail;
}

static __u64 head_of(META, int fd)
{
	struct ordsched_stats st;

	stats(_metadata, fd, &st);
	return st.head;
}

/*
 * What a wait that only checks says about @t on @fd's handle: 0 (its
 * turn), -ETIMEDOUT (held, not its turn), -EALREADY (retired), -EPERM.
 */
static int check(int fd, __u64 t)
{
	return dev_wait(fd, t, PAST);
}

/* ---- bad memory --------------------------------------------------------- */

static void *anon(META, size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(MAP_FAILED, p);
	return p;
}

/* A copy of @src (@size bytes) in a page that is readable, not writable. */
static void *read_only(META, const void *src, size_t size)
{
	void *p = anon(_metadata, page_size());

	memcpy(p, src, size);
	ASSERT_EQ(0, mprotect(p, page_size(), PROT_READ));
	return p;
}

/* The first @readable bytes of @src, at the end of a page with no page after. */
static void *straddling(META, const void *src, size_t readable)
{
	char *p = anon(_metadata, 2 * page_size());

	ASSERT_EQ(0, munmap(p + page_size(), page_size()));
	memcpy(p + page_size() - readable, src, readable);
	return p + page_size() - readable;
}

/* An address with nothing mapped. */
static void *unmapped(META)
{
	void *p = anon(_metadata, page_size());

	ASSERT_EQ(0, munmap(p, page_size()));
	return p;
}

/* ---- calls in another thread ------------------------------------------ */

struct async {
	pthread_t th;
	int fd;
	unsigned long cmd;
	union {
		struct ordsched_wait w;
		struct ordsched_complete_wait cw;
		struct ordsched_ring_wait rw;
	} arg;
	bool poll;
	int poll_ms;
	short revents;
	int ret;
	__u64 end_ns;
	int done;
};

static void *async_main(void *p)
{
	struct async *a = p;

	if (a->poll) {
		struct pollfd pfd = { .fd = a->fd, .events = POLLIN };

		a->ret = poll(&pfd, 1, a->poll_ms);
		if (a->ret < 0)
			a->ret = -errno;
		a->revents = pfd.revents;
	} else {
		a->ret = dev_ioctl(a->fd, a->cmd, &a->arg);
	}
	a->end_ns = now_ns();
	__atomic_store_n(&a->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void async_start(META, struct async *a)
{
	pthread_attr_t attr;

	a->done = 0;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	ASSERT_EQ(0, pthread_create(&a->th, &attr, async_main, a));
	pthread_attr_destroy(&attr);
}

static bool async_done(struct async *a)
{
	return __atomic_load_n(&a->done, __ATOMIC_ACQUIRE);
}

/* Join @a within @ms; false if it is still running. */
static bool async_join(struct async *a, unsigned int ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return pthread_timedjoin_np(a->th, NULL, &ts) == 0;
}

static void start_wait(META, struct async *a, int fd, __u64 t, __u64 deadline)
{
	memset(a, 0, sizeof(*a));
	a->fd = fd;
	a->cmd = ORDSCHED_IOC_WAIT;
	a->arg.w.ticket = t;
	a->arg.w.deadline_ns = deadline;
	async_start(_metadata, a);
}

static void start_cw(META, struct async *a, int fd, __u64 t, __u64 next,
		     __u64 deadline)
{
	memset(a, 0, sizeof(*a));
	a->fd = fd;
	a->cmd = ORDSCHED_IOC_COMPLETE_WAIT;
	a->arg.cw.ticket = t;
	a->arg.cw.next = next;
	a->arg.cw.deadline_ns = deadline;
	async_start(_metadata, a);
}

static void start_poll(META, struct async *a, int fd, int ms)
{
	memset(a, 0, sizeof(*a));
	a->fd = fd;
	a->poll = true;
	a->poll_ms = ms;
	async_start(_metadata, a);
}

/*
 * Wait until @fd's domain counted @want waits that did not find their
 * turn (the last one started is asleep or about to be), or until @a (if
 * any) returned; bounded.
 */
static void sleeping(META, int fd, __u64 want, struct async *a)
{
	struct ordsched_stats st;
	/* 512 threads' waits took over 30 s to begin on a busy host. */
	__u64 end = in_ms(60000);

	do {
		ASSERT_EQ(0, dev_stats(fd, &st));
		if (st.waits >= want || (a && async_done(a)))
			return;
		usleep(5000);
	} while (now_ns() < end);
	ASSERT_TRUE(0) TH_LOG("only %llu waits of %llu began",
			      (unsigned long long)st.waits,
			      (unsigned long long)want);
}

#define sleepers(_fd, _want) sleeping(_metadata, _fd, _want, NULL)

static void on_signal(int sig)
{
	(void)sig;
}

static void catch_sigusr1(META, bool restart)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sa.sa_flags = restart ? SA_RESTART : 0;
	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
}

FIXTURE(dom) {
	int unused;
};

FIXTURE_VARIANT(dom) {
	bool ring;
};

FIXTURE_VARIANT_ADD(dom, plain) {
	.ring = false,
};

FIXTURE_VARIANT_ADD(dom, ring) {
	.ring = true,
};

FIXTURE_SETUP(dom)
{
	g_ring = variant->ring;
}

FIXTURE_TEARDOWN(dom)
{
}

/* ======================================================================= */
/* The handshake                                                            */
/* ======================================================================= */

/*
 * ordsched.h:64-78 "@version: in: ... out: the same", "@reserved: in: zero;
 * out: zero", the out fields; ordsched.h:262-263 "the tail and the head,
 * each a __u64 alone on its cache line". Out-only fields carry no input.
 */
TEST(api_answers)
{
	struct ordsched_api api;
	struct dom d;

	open_dom(_metadata, &d);
	memset(&api, 0xa5, sizeof(api));
	api.version = ORDSCHED_API_VERSION;
	api.flags = 0;
	memset(api.reserved, 0, sizeof(api.reserved));
	ASSERT_EQ(0, dev_ioctl(d.fd, ORDSCHED_IOC_API, &api));
	EXPECT_EQ(ORDSCHED_API_VERSION, api.version);
	EXPECT_EQ(0, api.flags);
	for (int i = 0; i < 4; i++) {
		EXPECT_EQ(0, api.reserved[i]);
	}
	EXPECT_EQ(0, memcmp(&api, &d.api, sizeof(api)))
		TH_LOG("input in out-only fields changed the answer");
	TH_LOG("features %#llx ioctls %#llx status %u tail@%u head@%u window %u batch %u held %u",
	       (unsigned long long)api.features, (unsigned long long)api.ioctls,
	       api.status_size, api.status_tail_offset, api.status_head_offset,
	       api.window, api.max_batch, api.max_held);
	EXPECT_LE(1, api.window);
	EXPECT_LE(1, api.max_batch);
	EXPECT_LE(1, api.max_held);
	if (api.features & ORDSCHED_FEAT_STATUS_PAGE) {
		EXPECT_LE(sizeof(struct ordsched_status), api.status_size);
		EXPECT_EQ(0, api.status_tail_offset % 8);
		EXPECT_EQ(0, api.status_head_offset % 8);
		EXPECT_LE(api.status_tail_offset + 8, api.status_size);
		EXPECT_LE(api.status_head_offset + 8, api.status_size);
		/* alone on a 64-byte line: not with the header, not together */
		EXPECT_NE(0, api.status_tail_offset / 64);
		EXPECT_NE(0, api.status_head_offset / 64);
		EXPECT_NE(api.status_tail_offset / 64, api.status_head_offset / 64);
	}
}

/*
 * ordsched.h:81-82 "EINVAL: a version the kernel does not speak";
 * ordsched.h:24 "EINVAL a reserved field or an unknown flag is set";
 * ordsched.h:65,78 "@flags: in: 0", "@reserved: in: zero".
 */
TEST(api_refuses_bad_input)
{
	static const __u32 versions[] = { 0, ORDSCHED_API_VERSION + 1, ~0U };
	struct ordsched_api api;
	struct dom d;

	open_dom(_metadata, &d);
	for (unsigned int i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		memset(&api, 0, sizeof(api));
		api.version = versions[i];
		EXPECT_EQ(-EINVAL, dev_ioctl(d.fd, ORDSCHED_IOC_API, &api))
			TH_LOG("version %u", versions[i]);
	}
	for (int bit = 0; bit < 32; bit += 7) {
		memset(&api, 0, sizeof(api));
		api.version = ORDSCHED_API_VERSION;
		api.flags = 1U << bit;
		EXPECT_EQ(-EINVAL, dev_ioctl(d.fd, ORDSCHED_IOC_API, &api));
	}
	for (int i = 0; i < 4; i++) {
		memset(&api, 0, sizeof(api));
		api.version = ORDSCHED_API_VERSION;
		api.reserved[i] = 1ULL << (i * 16);
		EXPECT_EQ(-EINVAL, dev_ioctl(d.fd, ORDSCHED_IOC_API, &api))
			TH_LOG("reserved[%d]", i);
	}
}

/*
 * ordsched.h:80-81 "Userspace calls it first, to learn the limits and the
 * status page layout; the other commands do not depend on it."
 */
TEST(commands_without_handshake)
{
	struct ordsched_stats st;
	struct dom ref;
	struct pollfd pfd;
	int fd, h;
	__u64 t;

	open_dom(_metadata, &ref);
	fd = dev_open();
	ASSERT_LE(0, fd);
	stats(_metadata, fd, &st);
	t = take(_metadata, fd, 1);
	EXPECT_EQ(st.head, t);
	EXPECT_EQ(0, dev_wait(fd, t, PAST));
	h = dev_new_handle(fd, 0);
	EXPECT_LE(0, h);
	if (ref.api.features & ORDSCHED_FEAT_STATUS_PAGE) {
		const void *p = mmap(NULL, ref.api.status_size, PROT_READ,
				     MAP_SHARED, fd, 0);

		ASSERT_NE(MAP_FAILED, p);
		EXPECT_EQ(t, dev_tail(p));
		EXPECT_EQ(t + 1, dev_head(p));
	}
	if (ref.api.features & ORDSCHED_FEAT_POLL) {
		pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
		EXPECT_EQ(1, poll(&pfd, 1, 0));
	}
	EXPECT_EQ(0, dev_complete(fd, t, 1));
	if (ref.api.features & ORDSCHED_FEAT_COMPLETE_WAIT) {
		t = take(_metadata, fd, 1);
		EXPECT_EQ(0, dev_complete_wait(fd, t, ORDSCHED_NO_TICKET, PAST));
	}
}

/* Encodings of every command, for probes. */
static const struct {
	unsigned int nr;
	unsigned long cmd;
	size_t size;
} known_cmds[] = {
	{ 0x00, ORDSCHED_IOC_API, sizeof(struct ordsched_api) },
	{ 0x01, ORDSCHED_IOC_TAKE, sizeof(struct ordsched_take) },
	{ 0x02, ORDSCHED_IOC_WAIT, sizeof(struct ordsched_wait) },
	{ 0x03, ORDSCHED_IOC_COMPLETE, sizeof(struct ordsched_range) },
	{ 0x04, ORDSCHED_IOC_TRASH, sizeof(struct ordsched_range) },
	{ 0x05, ORDSCHED_IOC_COMPLETE_WAIT, sizeof(struct ordsched_complete_wait) },
	{ 0x06, ORDSCHED_IOC_NEW_HANDLE, sizeof(struct ordsched_new_handle) },
	{ 0x07, ORDSCHED_IOC_STATS, sizeof(struct ordsched_stats) },
	{ 0x10, ORDSCHED_IOC_RING_SETUP, sizeof(struct ordsched_ring_setup) },
	{ 0x11, ORDSCHED_IOC_RING_WAIT, sizeof(struct ordsched_ring_wait) },
	{ 0x12, ORDSCHED_IOC_RING_WAKE, sizeof(struct ordsched_ring_wake) },
};

#define N_KNOWN (sizeof(known_cmds) / sizeof(known_cmds[0]))

/*
 * A probe of a known command that changes nothing: the first __u32 of
 * every argument above but api's and the range/wait ones is flags; set an
 * unknown flag in every __u32 that is a flag or pad.
 */
static int probe_known(int fd, unsigned int i)
{
	__u64 buf[32];

	memset(buf, 0, sizeof(buf));
	switch (known_cmds[i].nr) {
	case 0x00:
		((struct ordsched_api *)buf)->version = ORDSCHED_API_VERSION;
		((struct ordsched_api *)buf)->flags = 1U << 31;
		break;
	case 0x01:
		((struct ordsched_take *)buf)->count = 1;
		((struct ordsched_take *)buf)->flags = 1U << 31;
		break;
	case 0x02:
	case 0x11:
		((struct ordsched_wait *)buf)->flags = 1U << 31;
		break;
	case 0x03:
	case 0x04:
		((struct ordsched_range *)buf)->count = 1;
		((struct ordsched_range *)buf)->flags = 1U << 31;
		break;
	case 0x05:
		((struct ordsched_complete_wait *)buf)->ticket = ORDSCHED_NO_TICKET;
		((struct ordsched_complete_wait *)buf)->next = ORDSCHED_NO_TICKET;
		((struct ordsched_complete_wait *)buf)->flags = 1U << 31;
		break;
	case 0x12:
		((struct ordsched_ring_wake *)buf)->flags = 1U << 31;
		break;
	default: {	/* 0x06, 0x07, 0x10: flags first */
		__u32 f = 1U << 31;

		memcpy(buf, &f, sizeof(f));
		break;
	}
	}
	return dev_ioctl(fd, known_cmds[i].cmd, buf);
}

/*
 * ordsched.h:68 "@ioctls: out: bit N set when the command numbered N is
 * supported"; ordsched.h:26 "ENOTTY unknown command".
 */
TEST(ioctls_bitmap_matches_commands)
{
	static const unsigned int dirs[] = {
		_IOC_NONE, _IOC_READ, _IOC_WRITE, _IOC_READ | _IOC_WRITE,
	};
	__u64 buf[64];
	struct dom d;

	open_dom(_metadata, &d);
	for (unsigned int i = 0; i < N_KNOWN; i++) {
		int ret = probe_known(d.fd, i);
		bool bit = d.api.ioctls & (1ULL << known_cmds[i].nr);

		EXPECT_EQ(bit, ret != -ENOTTY)
			TH_LOG("command %#x: bit %d, probe answered %d",
			       known_cmds[i].nr, bit, ret);
		EXPECT_NE(0, ret) TH_LOG("an unknown flag was accepted by %#x",
					 known_cmds[i].nr);
	}
	/* The core commands are supported: their bits are set. */
	for (unsigned int nr = 0; nr <= 7; nr++) {
		EXPECT_TRUE(d.api.ioctls & (1ULL << nr)) TH_LOG("bit %u", nr);
	}
	for (unsigned int nr = 0; nr < 64; nr++) {
		if (d.api.ioctls & (1ULL << nr))
			continue;
		for (unsigned int k = 0; k < 4; k++) {
			unsigned long cmd = _IOC(dirs[k], ORDSCHED_IOC_MAGIC, nr,
						 k ? 40 : 0);

			memset(buf, 0, sizeof(buf));
			EXPECT_EQ(-ENOTTY, dev_ioctl(d.fd, cmd, buf))
				TH_LOG("command %#x (bit clear) dir %u", nr, dirs[k]);
		}
	}
}

/*
 * ordsched.h:26 "ENOTTY unknown command": a known number with another
 * size, direction or magic is another command; it does nothing.
 */
TEST(wrong_encodings_are_unknown)
{
	__u64 buf[64];
	__u32 one = 1;
	struct ordsched_stats before, after;
	struct dom d;

	open_dom(_metadata, &d);
	stats(_metadata, d.fd, &before);
	for (unsigned int i = 0; i < 8; i++) {
		unsigned int nr = known_cmds[i].nr;
		size_t size = known_cmds[i].size;
		unsigned int dir = _IOC_DIR(known_cmds[i].cmd);
		unsigned long bad[] = {
			_IOC(dir, ORDSCHED_IOC_MAGIC, nr, size + 8),
			_IOC(dir, ORDSCHED_IOC_MAGIC, nr, size - 8),
			_IOC(dir, ORDSCHED_IOC_MAGIC, nr, 0),
			_IOC(dir ^ _IOC_READ, ORDSCHED_IOC_MAGIC, nr, size),
			_IOC(_IOC_NONE, ORDSCHED_IOC_MAGIC, nr, size),
			_IOC(dir, ORDSCHED_IOC_MAGIC + 1, nr, size),
			_IOC(dir, ORDSCHED_IOC_MAGIC - 1, nr, size),
		};

		for (unsigned int k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
			memset(buf, 0, sizeof(buf));
			/* a valid take, wait or stats if it were understood */
			memcpy(buf, &one, sizeof(one));
			((struct ordsched_api *)buf)->version = ORDSCHED_API_VERSION;
			EXPECT_EQ(-ENOTTY, dev_ioctl(d.fd, bad[k], buf))
				TH_LOG("command %#x variant %u (%#lx)", nr, k, bad[k]);
		}
	}
	memset(buf, 0, sizeof(buf));
	EXPECT_EQ(-ENOTTY, dev_ioctl(d.fd, TCGETS, buf));
	EXPECT_EQ(-ENOTTY, dev_ioctl(d.fd, FIONREAD, buf));
	stats(_metadata, d.fd, &after);
	EXPECT_EQ(before.head, after.head);
	EXPECT_EQ(before.handles, after.handles);
}

/*
 * ordsched_ring.h:45-46 "ORDSCHED_IOC_RING_WAIT and _RING_WAKE in a domain
 * without a ring: EINVAL"; ordsched_ring.h:21-23 mmap one page in: EINVAL.
 */
TEST(ring_commands_without_a_ring)
{
	struct ordsched_ring_wait rw = { .deadline_ns = PAST };
	struct ordsched_ring_wake wk = { 0 };
	struct dom d;
	__u64 t;

	g_ring = false;
	open_dom(_metadata, &d);
	if (!(d.api.features & ORDSCHED_FEAT_RING))
		SKIP(return, "no ring");
	t = take(_metadata, d.fd, 2);
	rw.ticket = t + 1;
	wk.ticket = t + 1;
	EXPECT_EQ(-EINVAL, dev_ioctl(d.fd, ORDSCHED_IOC_RING_WAIT, &rw));
	EXPECT_EQ(-EINVAL, dev_ioctl(d.fd, ORDSCHED_IOC_RING_WAKE, &wk));
	/* and a domain with a ticket can no longer get one (ring.h:104-108) */
	struct ordsched_ring_setup rs = { 0 };

	EXPECT_EQ(-EBUSY, dev_ioctl(d.fd, ORDSCHED_IOC_RING_SETUP, &rs));
}

/* ======================================================================= */
/* EFAULT and EINVAL                                                        */
/* ======================================================================= */

/* Nothing changed in the domain between @a and @b. */
static void same_state(META, const struct ordsched_stats *a,
		       const struct ordsched_stats *b)
{
	EXPECT_EQ(a->handles, b->handles);
	EXPECT_EQ(a->tail, b->tail);
	EXPECT_EQ(a->head, b->head);
	EXPECT_EQ(a->taken, b->taken);
	EXPECT_EQ(a->completed, b->completed);
	EXPECT_EQ(a->trashed, b->trashed);
	EXPECT_EQ(a->held, b->held);
	EXPECT_EQ(a->handle_taken, b->handle_taken);
}

/* The lowest free descriptor, to see that a failed call left none open. */
static int lowest_free_fd(void)
{
	int fd = dup(0);

	close(fd);
	return fd;
}

/*
 * ordsched.h:21-22 "EFAULT the argument cannot be read or written;
 * nothing was done": NULL, an unmapped address, and an argument whose
 * first fields are readable but whose last ones are not mapped.
 */
TEST_F(dom, efault_unreadable_does_nothing)
{
	struct ordsched_stats before, after;
	struct dom d;
	void *nowhere;
	__u64 t;
	int fd0;

	open_dom(_metadata, &d);
	t = take(_metadata, d.fd, 1);	/* something to complete */
	nowhere = unmapped(_metadata);
	stats(_metadata, d.fd, &before);
	fd0 = lowest_free_fd();
	for (unsigned int i = 0; i < 8; i++) {
		unsigned long cmd = known_cmds[i].cmd;
		size_t size = known_cmds[i].size;
		__u64 buf[32];
		void *arg;

		EXPECT_EQ(-EFAULT, dev_ioctl(d.fd, cmd, NULL)) TH_LOG("%#x NULL", i);
		EXPECT_EQ(-EFAULT, dev_ioctl(d.fd, cmd, nowhere)) TH_LOG("%#x", i);
		/* valid arguments, cut after their first 8 bytes */
		memset(buf, 0, sizeof(buf));
		switch (i) {
		case 0:
			((struct ordsched_api *)buf)->version = ORDSCHED_API_VERSION;
			break;
		case 1:
			((struct ordsched_take *)buf)->count = 1;
			break;
		case 2:
			((struct ordsched_wait *)buf)->ticket = t;
			break;
		case 3:
		case 4:
			((struct ordsched_range *)buf)->ticket = t;
			((struct ordsched_range *)buf)->count = 1;
			break;
		case 5:
			((struct ordsched_complete_wait *)buf)->ticket = t;
			((struct ordsched_complete_wait *)buf)->next = ORDSCHED_NO_TICKET;
			break;
		}
		for (size_t cut = 4; cut < size; cut += 4) {
			arg = straddling(_metadata, buf, cut);
			EXPECT_EQ(-EFAULT, dev_ioctl(d.fd, cmd, arg))
				TH_LOG("command %#x, %zu of %zu bytes readable",
				       i, cut, size);
		}
	}
	stats(_metadata, d.fd, &after);
	same_state(_metadata, &before, &after);
	EXPECT_EQ(fd0, lowest_free_fd()) TH_LOG("a failed NEW_HANDLE left a descriptor");
	EXPECT_EQ(0, check(d.fd, t))
		TH_LOG("ticket %llu is no longer held", (unsigned long long)t);
}

/*
 * ordsched.h:21-23 "EFAULT the argument cannot be read or written;
 * nothing was done (a take whose answer became unwritable during the
 * call, by a racing munmap(), trashes the tickets it took)": an answer
 * that is readable but never was writable takes nothing.
 */
TEST_F(dom, efault_take_answer_not_writable)
{
	struct ordsched_take tk = { .count = 1 };
	struct ordsched_stats before, after;
	struct dom d;
	void *arg;

	open_dom(_metadata, &d);
	stats(_metadata, d.fd, &before);
	arg = read_only(_metadata, &tk, sizeof(tk));
	EXPECT_EQ(-EFAULT, dev_ioctl(d.fd, ORDSCHED_IOC_TAKE, arg));
	stats(_metadata, d.fd, &after);
	same_state(_metadata, &before, &after);
	EXPECT_EQ(before.released, after.released);
	EXPECT_EQ(before.full, after.full);
	/* the next take gets the ticket the failed one did not */
	EXPECT_EQ(before.head, take(_metadata, d.fd, 1));
}

/*
 * ordsched.h:21-22 "EFAULT the argument cannot be read or written;
 * nothing was done", for the other commands that write an answer.
 */
TEST(efault_answer_not_writable_others)
{
	struct ordsched_api api = { .version = ORDSCHED_API_VERSION };
	struct ordsched_stats st = { 0 }, before, after;
	struct dom d;

	open_dom(_metadata, &d);
	take(_metadata, d.fd, 1);
	stats(_metadata, d.fd, &before);
	EXPECT_EQ(-EFAULT, dev_ioctl(d.fd, ORDSCHED_IOC_API,
				     read_only(_metadata, &api, sizeof(api))));
	EXPECT_EQ(-EFAULT, dev_ioctl(d.fd, ORDSCHED_IOC_STATS,
				     read_only(_metadata, &st, sizeof(st))));
	stats(_metadata, d.fd, &after);
	same_state(_metadata, &before, &after);
}

/*
 * ordsched.h:21-22 "EFAULT the argument cannot be read or written;
 * nothing was done"; ordsched.h:160-161 @ticket "out: set to
 * ORDSCHED_NO_TICKET once completed": COMPLETE_WAIT's argument readable
 * but not writable must not complete the ticket.
 */
TEST_F(dom, efault_complete_wait_not_writable)
{
	struct ordsched_complete_wait cw = {
		.next = ORDSCHED_NO_TICKET, .deadline_ns = PAST,
	};
	struct ordsched_stats before, after;
	struct dom d;
	__u64 t;

	open_dom(_metadata, &d);
	if (!(d.api.features & ORDSCHED_FEAT_COMPLETE_WAIT))
		SKIP(return, "no COMPLETE_WAIT");
	t = take(_metadata, d.fd, 2);
	cw.ticket = t;
	stats(_metadata, d.fd, &before);
	EXPECT_EQ(-EFAULT, dev_ioctl(d.fd, ORDSCHED_IOC_COMPLETE_WAIT,
				     read_only(_metadata, &cw, sizeof(cw))));
	stats(_metadata, d.fd, &after);
	same_state(_metadata, &before, &after);
	EXPECT_EQ(0, check(d.fd, t)) TH_LOG("ticket %llu was completed",
					     (unsigned long long)t);
	/* the same with a next to wait for */
	cw.next = t + 1;
	EXPECT_EQ(-EFAULT, dev_ioctl(d.fd, ORDSCHED_IOC_COMPLETE_WAIT,
				     read_only(_metadata, &cw, sizeof(cw))));
	EXPECT_EQ(t, tail_of(_metadata, d.fd));
	EXPECT_EQ(0, check(d.fd, t));
}

/*
 * ordsched.h:24-25 "EINVAL a reserved field or an unknown flag is set, a
 * count is 0 or above the batch limit"; ordsched.h:100-101,120-121,
 * 144-145,165-166,182-184,199 the "in: 0" fields. Refused calls leave the
 * domain as it was (ordsched.h:149 "all ... or none").
 */
TEST_F(dom, einval_flags_pads_counts)
{
	struct ordsched_stats before, after;
	struct ordsched_take tk;
	struct ordsched_wait w;
	struct ordsched_range r;
	struct ordsched_complete_wait cw;
	struct ordsched_new_handle nh;
	struct ordsched_stats st;
	struct dom d;
	__u32 mb;
	__u64 t;

	open_dom(_metadata, &d);
	mb = d.api.max_batch;
	t = take(_metadata, d.fd, 1);
	take(_metadata, d.fd, 1);
	stats(_metadata, d.fd, &before);

	__u32 counts[] = { 0, mb + 1, ~0U };
	for (unsigned int i = 0; i < 3; i++) {
		tk = (struct ordsched_take){ .count = counts[i] };
		EXPECT_EQ(-EINVAL, dev_ioctl(d.fd, ORDSCHED_IOC_TAKE, &tk))
			TH_LOG("take count %u", counts[i]);
		r = (struct ordsched_range){ .ticket = t, .count = counts[i] };
		EXPECT_EQ(-EINVAL, dev_ioctl(d.fd, ORDSCHED_IOC_COMPLETE, &r));
		EXPECT_EQ(-EINVAL, dev_ioctl(d.fd, ORDSCHED_IOC_TRASH, &r));
	}
	for (int bit = 0; bit < 32; bit += 5) {
		__u32 f = 1U << bit;

		tk = (struct ordsched_take){ .count = 1, .flags = f };
		EXPECT_EQ(-EINVAL, dev_ioctl(d.fd, ORDSCHED_IOC_TAKE, &tk));
		w = (struct ordsched_wait){ .ticket = t, .deadline_ns = PAST, .flags = f };
		EXPECT_EQ(-EINVAL, dev_ioctl(d.fd, ORDSCHED_IOC_WAIT, &w));
		w = (struct ordsched_wait){ .ticket = t, .deadline_ns = PAST, .pad = f };
		EXPECT_EQ(-EINVAL, dev_ioctl(d.fd, ORDSCHED_IOC_WAIT, &w));
		r = (struct ordsched_range){ .ticket = t, .count = 1, .flags = f };
		EXPECT_EQ(-EINVAL, dev_ioctl(d.fd, ORDSCHED_IOC_COMPLETE, &r));
		EXPECT_EQ(-EINVAL, dev_ioctl(d.fd, ORDSCHED_IOC_TRASH, &r));
		cw = (struct ordsched_complete_wait){
			.ticket = t, .next = ORDSCHED_NO_TICKET,
			.deadline_ns = PAST, .flags = f,
		};
		EXPECT_EQ(-EINVAL, dev_ioctl(d.fd, ORDSCHED_IOC_COMPLETE_WAIT, &cw));
		cw.flags = 0;
		cw.pad = f;
		EXPECT_EQ(-EINVAL, dev_ioctl(d.fd, ORDSCHED_IOC_COMPLETE_WAIT, &cw));
		EXPECT_EQ(t, cw.ticket);
		if (f != ORDSCHED_HANDLE_CLOEXEC) {
			nh = (struct ordsched_new_handle){ .flags = f };
			EXPECT_EQ(-EINVAL, dev_ioctl(d.fd, ORDSCHED_IOC_NEW_HANDLE, &nh));
		}
		nh = (struct ordsched_new_handle){ .pad = f };
		EXPECT_EQ(-EINVAL, dev_ioctl(d.fd, ORDSCHED_IOC_NEW_HANDLE, &nh));
		nh = (struct ordsched_new_handle){ .reserved = 1ULL << (bit * 2) };
		EXPECT_EQ(-EINVAL, dev_ioctl(d.fd, ORDSCHED_IOC_NEW_HANDLE, &nh));
		memset(&st, 0, sizeof(st));
		st.flags = f;
		EXPECT_EQ(-EINVAL, dev_ioctl(d.fd, ORDSCHED_IOC_STATS, &st));
	}
	stats(_metadata, d.fd, &after);
	same_state(_metadata, &before, &after);
	EXPECT_EQ(0, check(d.fd, t));
}

/*
 * Out-only fields are answers, not reserved input (ordsched.h:102,
 * 199-227): garbage in them is overwritten, not refused; "@pad: out: 0",
 * "@reserved: out: 0", "@deferred ... 0 in other domains".
 */
TEST(out_fields_ignore_input)
{
	struct ordsched_take tk;
	struct ordsched_stats st;
	struct dom d;
	__u64 t;

	open_dom(_metadata, &d);
	t = head_of(_metadata, d.fd);
	tk = (struct ordsched_take){ .count = 1, .first = 0x5a5a5a5a5a5aULL };
	ASSERT_EQ(0, dev_ioctl(d.fd, ORDSCHED_IOC_TAKE, &tk));
	EXPECT_EQ(t, tk.first);
	memset(&st, 0xa5, sizeof(st));
	st.flags = 0;
	ASSERT_EQ(0, dev_ioctl(d.fd, ORDSCHED_IOC_STATS, &st));
	EXPECT_EQ(0, st.pad);
	EXPECT_EQ(0, st.deferred);
	for (int i = 0; i < 3; i++) {
		EXPECT_EQ(0, st.reserved[i]);
	}
	EXPECT_EQ(1, st.handles);
	EXPECT_EQ(1, st.held);
	EXPECT_EQ(t + 1, st.head);
}

/*
 * ordsched.h:25 "EINVAL ... a ticket was never handed out", for every
 * command that names a ticket; ranges are all or none (ordsched.h:149),
 * also when ticket + count wraps around 2^64.
 */
TEST_F(dom, einval_never_handed_out)
{
	struct ordsched_stats before, after;
	struct dom d;
	__u64 t, head;

	open_dom(_metadata, &d);
	t = take(_metadata, d.fd, 2);
	head = t + 2;
	stats(_metadata, d.fd, &before);
	ASSERT_EQ(head, before.head);
	__u64 bad[] = { head, head + 1, head + 1000000, ORDSCHED_NO_TICKET - 1,
			ORDSCHED_NO_TICKET };
	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(-EINVAL, dev_wait(d.fd, bad[i], PAST)) TH_LOG("%llu",
			(unsigned long long)bad[i]);
		EXPECT_EQ(-EINVAL, dev_complete(d.fd, bad[i], 1));
		EXPECT_EQ(-EINVAL, dev_trash(d.fd, bad[i], 1));
		if (bad[i] != ORDSCHED_NO_TICKET) {
			EXPECT_EQ(-EINVAL, dev_complete_wait(d.fd, bad[i],
					ORDSCHED_NO_TICKET, PAST));
		}
	}
	if (d.api.max_batch >= 2) {
		/* the held t+1 and the never handed out t+2 */
		EXPECT_EQ(-EINVAL, dev_complete(d.fd, t + 1, 2));
		EXPECT_EQ(-EINVAL, dev_trash(d.fd, t + 1, 2));
	}
	if (d.api.max_batch >= 2 + t + 2) {
		/* ~0-1, ~0, then 0 ... t+1 after the wrap */
		EXPECT_EQ(-EINVAL, dev_complete(d.fd, ORDSCHED_NO_TICKET - 1,
						2 + t + 2));
		EXPECT_EQ(-EINVAL, dev_trash(d.fd, ORDSCHED_NO_TICKET - 1,
					     2 + t + 2));
	}
	stats(_metadata, d.fd, &after);
	same_state(_metadata, &before, &after);
	EXPECT_EQ(0, check(d.fd, t));
	EXPECT_EQ(-ETIMEDOUT, check(d.fd, t + 1));
}

/*
 * A page that becomes unwritable during a call: it is write-protected with
 * userfaultfd, and the first write to it (the kernel writing an answer)
 * is answered by a munmap() of the page, then a wake-up, so that the
 * write finds nothing mapped. The read of the argument comes first and
 * succeeds. Deterministic: the munmap races nothing, it happens inside
 * the write.
 */
struct vanishing {
	int uffd;
	char *page;
	pthread_t th;
	int faults;
};

static void *vanishing_main(void *arg)
{
	struct vanishing *v = arg;
	struct pollfd pfd = { .fd = v->uffd, .events = POLLIN };
	struct uffd_msg msg;

	while (poll(&pfd, 1, 5000) == 1) {
		if (read(v->uffd, &msg, sizeof(msg)) != sizeof(msg))
			continue;
		if (msg.event != UFFD_EVENT_PAGEFAULT)
			continue;
		struct uffdio_range r = {
			.start = (unsigned long)v->page, .len = page_size(),
		};

		v->faults++;
		munmap(v->page, page_size());
		ioctl(v->uffd, UFFDIO_WAKE, &r);
		break;
	}
	return NULL;
}

/* @v->page holds @size bytes of @src; false if userfaultfd is missing. */
static bool vanishing_setup(META, struct vanishing *v, const void *src,
			    size_t size)
{
	struct uffdio_api api = { .api = UFFD_API,
				  .features = UFFD_FEATURE_PAGEFAULT_FLAG_WP };
	struct uffdio_register reg = { 0 };
	struct uffdio_writeprotect wp = { 0 };

	memset(v, 0, sizeof(*v));
	v->uffd = syscall(__NR_userfaultfd, O_CLOEXEC);
	if (v->uffd < 0 || ioctl(v->uffd, UFFDIO_API, &api))
		return false;
	v->page = anon(_metadata, page_size());
	memcpy(v->page, src, size);	/* populated, then protected */
	reg.range.start = (unsigned long)v->page;
	reg.range.len = page_size();
	reg.mode = UFFDIO_REGISTER_MODE_WP;
	if (ioctl(v->uffd, UFFDIO_REGISTER, &reg))
		return false;
	wp.range = reg.range;
	wp.mode = UFFDIO_WRITEPROTECT_MODE_WP;
	ASSERT_EQ(0, ioctl(v->uffd, UFFDIO_WRITEPROTECT, &wp));
	ASSERT_EQ(0, pthread_create(&v->th, NULL, vanishing_main, v));
	return true;
}

/*
 * ordsched.h:21-23 "(a take whose answer became unwritable during the
 * call, by a racing munmap(), trashes the tickets it took)": EFAULT, and
 * the handle holds nothing; the tail passes whatever was taken.
 */
TEST_F(dom, efault_take_answer_vanishes)
{
	struct ordsched_take tk = { .count = 1 };
	struct ordsched_stats before, after;
	struct vanishing v;
	struct dom d;
	int ret;

	open_dom(_metadata, &d);
	if (d.batch >= 3)
		tk.count = 3;
	stats(_metadata, d.fd, &before);
	if (!vanishing_setup(_metadata, &v, &tk, sizeof(tk)))
		SKIP(return, "no userfaultfd write-protection");
	ret = dev_ioctl(d.fd, ORDSCHED_IOC_TAKE, v.page);
	pthread_join(v.th, NULL);
	TH_LOG("faults %d", v.faults);
	EXPECT_EQ(-EFAULT, ret);
	stats(_metadata, d.fd, &after);
	EXPECT_EQ(0, after.held);
	EXPECT_EQ(after.head, after.tail) TH_LOG("tail %llu head %llu: tickets left behind",
		(unsigned long long)after.tail, (unsigned long long)after.head);
	TH_LOG("head %llu -> %llu, trashed %llu released %llu",
	       (unsigned long long)before.head, (unsigned long long)after.head,
	       (unsigned long long)after.trashed, (unsigned long long)after.released);
	/*
	 * Either nothing was done (the answer found unwritable first) or
	 * the tickets were taken and trashed, and counted so: never a
	 * part of either, and nothing released.
	 */
	if (after.head == before.head) {
		EXPECT_EQ(before.taken, after.taken);
		EXPECT_EQ(before.handle_taken, after.handle_taken);
		EXPECT_EQ(before.trashed, after.trashed);
	} else {
		EXPECT_EQ(before.head + tk.count, after.head);
		EXPECT_EQ(before.taken + tk.count, after.taken);
		EXPECT_EQ(before.handle_taken + tk.count, after.handle_taken);
		EXPECT_EQ(before.trashed + tk.count, after.trashed);
	}
	EXPECT_EQ(before.released, after.released);
	/* the domain goes on */
	EXPECT_EQ(after.head, take(_metadata, d.fd, 1));
	EXPECT_EQ(0, check(d.fd, after.head));
}

/*
 * The late path of efault_take_answer_vanishes, every time: ordsched.h's
 * EFAULT "a take whose answer became unwritable during the call [...]
 * trashes the tickets it took, which stats counts in taken, handle_taken
 * and trashed". The answer's write made to fail by fault injection (the
 * call's third user copy, after the argument's read and the write that
 * checks it is writable): the tickets were taken, so all three count
 * them, the handle holds none and the tail has passed them.
 */
TEST_F(dom, efault_take_late_trashes_counted)
{
	struct ordsched_take tk = { .count = 1 };
	struct ordsched_stats before, after;
	struct dom d;
	int ret;

	open_dom(_metadata, &d);
	if (d.batch >= 3)
		tk.count = 3;
	stats(_metadata, d.fd, &before);
	ret = dev_ioctl_fail_nth(d.fd, ORDSCHED_IOC_TAKE, &tk, 3);
	if (ret == -ENOSYS)
		SKIP(return, "no usercopy fault injection");
	EXPECT_EQ(-EFAULT, ret);
	stats(_metadata, d.fd, &after);
	EXPECT_EQ(0, after.held);
	EXPECT_EQ(before.head + tk.count, after.head);
	EXPECT_EQ(after.head, after.tail);
	EXPECT_EQ(before.taken + tk.count, after.taken);
	EXPECT_EQ(before.handle_taken + tk.count, after.handle_taken);
	EXPECT_EQ(before.trashed + tk.count, after.trashed);
	EXPECT_EQ(before.released, after.released);
	EXPECT_EQ(after.head, take(_metadata, d.fd, 1));
}

/*
 * ordsched.h:21-22 "EFAULT the argument cannot be read or written;
 * nothing was done" (the exception of ordsched.h:22-23 is for a take),
 * with ordsched.h:160-161 "out: set to ORDSCHED_NO_TICKET once
 * completed": COMPLETE_WAIT whose argument vanishes when the kernel
 * writes NO_TICKET back.
 */
TEST_F(dom, efault_complete_wait_answer_vanishes)
{
	struct ordsched_complete_wait cw = {
		.next = ORDSCHED_NO_TICKET, .deadline_ns = PAST,
	};
	struct ordsched_stats after;
	struct vanishing v;
	struct dom d;
	int ret;

	open_dom(_metadata, &d);
	cw.ticket = take(_metadata, d.fd, 2);
	if (!vanishing_setup(_metadata, &v, &cw, sizeof(cw)))
		SKIP(return, "no userfaultfd write-protection");
	ret = dev_ioctl(d.fd, ORDSCHED_IOC_COMPLETE_WAIT, v.page);
	pthread_join(v.th, NULL);
	stats(_metadata, d.fd, &after);
	TH_LOG("answered %d, faults %d, completed %llu, tail %llu",
	       ret, v.faults, (unsigned long long)after.completed,
	       (unsigned long long)after.tail);
	if (ret == -EFAULT) {
		EXPECT_EQ(0, after.completed) TH_LOG("EFAULT, yet the ticket was completed");
		EXPECT_EQ(cw.ticket, after.tail);
		return;
	}
	/* Completed, and the wait went on without its write-back. */
	EXPECT_EQ(0, ret);
	EXPECT_EQ(1, v.faults);
	EXPECT_EQ(1, after.completed);
	EXPECT_EQ(cw.ticket + 1, after.tail);
	/* "a restart answers EFAULT before completing anything" */
	EXPECT_EQ(-EFAULT, dev_ioctl(d.fd, ORDSCHED_IOC_COMPLETE_WAIT, v.page));
	stats(_metadata, d.fd, &after);
	EXPECT_EQ(1, after.completed);
	EXPECT_EQ(cw.ticket + 1, after.tail);
}

struct unmapper {
	char *addr;
	int stop, lost;
};

static void *unmapper_main(void *arg)
{
	struct unmapper *u = arg;

	while (!__atomic_load_n(&u->stop, __ATOMIC_RELAXED)) {
		munmap(u->addr, page_size());
		sched_yield();
		if (mmap(u->addr, page_size(), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
			 -1, 0) != u->addr) {
			u->lost = 1;
			break;
		}
		sched_yield();
	}
	return NULL;
}

/*
 * ordsched.h:21-23 "(a take whose answer became unwritable during the
 * call, by a racing munmap(), trashes the tickets it took)": with the
 * argument's page unmapped and mapped again by another thread, the handle
 * holds exactly the tickets of the takes that succeeded, never one of a
 * take answered EFAULT. Catching the race is luck; passing is not.
 */
TEST_F(dom, efault_take_racing_munmap)
{
	struct ordsched_take tk = { 0 }, sink;
	struct ordsched_stats st;
	struct unmapper u = { 0 };
	__u64 expected = 0, limit, efaults = 0, oks = 0, gone = 0;
	pthread_t th;
	struct dom d;
	int p[2], ret;

	open_dom(_metadata, &d);
	tk.count = d.batch >= 4 ? 4 : 1;
	limit = d.api.max_held < d.window ? d.api.max_held : d.window;
	ASSERT_EQ(0, pipe2(p, O_NONBLOCK));
	u.addr = anon(_metadata, page_size());
	ASSERT_EQ(0, pthread_create(&th, NULL, unmapper_main, &u));
	for (__u64 end = in_ms(1000); now_ns() < end;) {
		ASSERT_EQ(sizeof(tk), write(p[1], &tk, sizeof(tk)));
		if (read(p[0], u.addr, sizeof(tk)) != sizeof(tk)) {
			while (read(p[0], &sink, sizeof(sink)) > 0)
				;
			continue;
		}
		ret = dev_ioctl(d.fd, ORDSCHED_IOC_TAKE, u.addr);
		if (ret == 0) {
			expected += tk.count;
			oks++;
		} else if (ret == -EFAULT) {
			efaults++;
		} else {
			/* the page was replaced between the copy and the call */
			ASSERT_EQ(-EINVAL, ret);
		}
		stats(_metadata, d.fd, &st);
		ASSERT_EQ(expected, st.held) TH_LOG("after %llu takes, %llu EFAULT",
			(unsigned long long)oks, (unsigned long long)efaults);
		/* tickets retired out of turn still lie in [tail, head) */
		if (st.head - st.tail + tk.count > limit) {
			for (__u64 t = st.tail; t < st.head; t++) {
				ret = dev_trash(d.fd, t, 1);
				if (ret == -EALREADY)
					gone++;
				else
					ASSERT_EQ(0, ret);
			}
			ASSERT_EQ(st.head, tail_of(_metadata, d.fd));
			expected = 0;
		}
	}
	__atomic_store_n(&u.stop, 1, __ATOMIC_RELAXED);
	pthread_join(th, NULL);
	TH_LOG("%llu takes, %llu answered EFAULT, %llu tickets trashed for them",
	       (unsigned long long)oks, (unsigned long long)efaults,
	       (unsigned long long)gone);
}

/* ======================================================================= */
/* Tickets, turns, the tail                                                 */
/* ======================================================================= */

/*
 * ordsched.h:8-9 "Tickets are u64 numbers handed out in order and belong
 * to the handle that took them"; ordsched.h:102-103 "the handle holds
 * @first to @first + @count - 1"; stats held/handle_taken/taken/head.
 */
TEST_F(dom, take_hands_out_in_order)
{
	struct ordsched_stats sa, sb;
	struct dom d;
	__u64 h0, t;
	__u32 n;
	int b;

	open_dom(_metadata, &d);
	n = d.api.max_batch < 3 ? d.api.max_batch : 3;
	b = new_handle(_metadata, d.fd);
	h0 = head_of(_metadata, d.fd);
	EXPECT_EQ(h0, take(_metadata, d.fd, 1));
	EXPECT_EQ(h0 + 1, take(_metadata, b, 1));
	EXPECT_EQ(h0 + 2, take(_metadata, d.fd, n));
	t = take(_metadata, b, 1);
	EXPECT_EQ(h0 + 2 + n, t);
	stats(_metadata, d.fd, &sa);
	stats(_metadata, b, &sb);
	EXPECT_EQ(h0 + 3 + n, sa.head);
	EXPECT_EQ(h0, sa.tail);
	EXPECT_EQ(3 + n, sa.taken);
	EXPECT_EQ(1 + n, sa.held);
	EXPECT_EQ(1 + n, sa.handle_taken);
	EXPECT_EQ(2, sb.held);
	EXPECT_EQ(2, sb.handle_taken);
	EXPECT_EQ(sa.taken, sb.taken);
	/* every ticket of the batch belongs to d, none to b */
	for (__u64 x = h0 + 2; x < h0 + 2 + n; x++) {
		EXPECT_EQ(-ETIMEDOUT, check(d.fd, x));
		EXPECT_EQ(-EPERM, check(b, x));
	}
}

/*
 * ordsched.h:125-126 "EPERM: another handle holds @ticket";
 * ordsched.h:149-150 "Either all tickets of the range are retired or
 * none: EPERM when another handle holds one"; ordsched.h:169-170
 * "Errors of the completion are returned before anything is done".
 */
TEST_F(dom, eperm_foreign_tickets)
{
	struct ordsched_stats before, after;
	struct ordsched_complete_wait cw;
	struct dom d;
	__u64 t;
	int b;

	open_dom(_metadata, &d);
	if (d.api.max_batch < 3)
		SKIP(return, "max_batch %u", d.api.max_batch);
	b = new_handle(_metadata, d.fd);
	t = take(_metadata, d.fd, 1);		/* t: d */
	take(_metadata, b, 1);			/* t+1: b */
	take(_metadata, d.fd, 1);		/* t+2: d */
	stats(_metadata, d.fd, &before);
	EXPECT_EQ(-EPERM, dev_wait(b, t, PAST));
	EXPECT_EQ(-EPERM, dev_wait(b, t, in_ms(LONG_MS)));
	EXPECT_EQ(-EPERM, dev_complete(b, t, 1));
	EXPECT_EQ(-EPERM, dev_trash(b, t, 1));
	EXPECT_EQ(-EPERM, dev_complete(d.fd, t, 3));
	EXPECT_EQ(-EPERM, dev_trash(d.fd, t, 3));
	EXPECT_EQ(-EPERM, dev_complete(b, t, 2));
	EXPECT_EQ(-EPERM, dev_trash(b, t + 1, 2));
	cw = (struct ordsched_complete_wait){
		.ticket = t, .next = t + 1, .deadline_ns = in_ms(LONG_MS),
	};
	EXPECT_EQ(-EPERM, dev_ioctl(b, ORDSCHED_IOC_COMPLETE_WAIT, &cw));
	EXPECT_EQ(t, cw.ticket);
	stats(_metadata, d.fd, &after);
	same_state(_metadata, &before, &after);
	EXPECT_EQ(0, check(d.fd, t));
	EXPECT_EQ(-ETIMEDOUT, check(b, t + 1));
	EXPECT_EQ(-ETIMEDOUT, check(d.fd, t + 2));
}

/*
 * ordsched.h:9-12 "A ticket's turn comes when every ticket before it has
 * been completed or trashed ... The tail is the oldest ticket not yet
 * completed or trashed"; ordsched.h:147-148 "Completing a ticket before
 * its turn is allowed and means the same as trashing it: the tail passes
 * it without a stop"; ordsched.h:123,126-127 (0 at the tail, EALREADY).
 */
TEST_F(dom, tail_and_turns)
{
	struct ordsched_stats st;
	struct dom d;
	__u64 t;

	open_dom(_metadata, &d);
	if (d.api.max_batch < 4)
		SKIP(return, "max_batch %u", d.api.max_batch);
	t = take(_metadata, d.fd, 4);
	EXPECT_EQ(0, dev_wait(d.fd, t, PAST));
	EXPECT_EQ(0, dev_wait(d.fd, t, ORDSCHED_NO_DEADLINE));
	EXPECT_EQ(-ETIMEDOUT, dev_wait(d.fd, t + 1, PAST));
	EXPECT_EQ(0, dev_trash(d.fd, t + 1, 1));
	EXPECT_EQ(0, dev_complete(d.fd, t + 2, 1));
	EXPECT_EQ(-EALREADY, dev_wait(d.fd, t + 1, PAST));
	EXPECT_EQ(-EALREADY, dev_wait(d.fd, t + 2, in_ms(LONG_MS)));
	EXPECT_EQ(t, tail_of(_metadata, d.fd));
	EXPECT_EQ(-ETIMEDOUT, dev_wait(d.fd, t + 3, PAST));
	EXPECT_EQ(0, dev_complete(d.fd, t, 1));
	stats(_metadata, d.fd, &st);
	EXPECT_EQ(t + 3, st.tail);
	EXPECT_EQ(0, dev_wait(d.fd, t + 3, PAST));
	EXPECT_EQ(-EALREADY, dev_wait(d.fd, t, PAST));
	EXPECT_EQ(-EALREADY, dev_complete(d.fd, t, 1));
	EXPECT_EQ(-EALREADY, dev_trash(d.fd, t + 1, 1));
	EXPECT_EQ(0, dev_trash(d.fd, t + 3, 1));
	EXPECT_EQ(t + 4, tail_of(_metadata, d.fd));
}

/*
 * ordsched.h:149-150 "Either all tickets of the range are retired or
 * none: ... EALREADY when one was already completed or trashed."
 */
TEST_F(dom, range_all_or_none_ealready)
{
	struct ordsched_stats before, after;
	struct dom d;
	__u64 t;

	open_dom(_metadata, &d);
	if (d.api.max_batch < 4)
		SKIP(return, "max_batch %u", d.api.max_batch);
	t = take(_metadata, d.fd, 4);
	ASSERT_EQ(0, dev_complete(d.fd, t + 2, 1));
	stats(_metadata, d.fd, &before);
	EXPECT_EQ(-EALREADY, dev_complete(d.fd, t, 4));
	EXPECT_EQ(-EALREADY, dev_trash(d.fd, t + 1, 2));
	EXPECT_EQ(-EALREADY, dev_complete(d.fd, t + 2, 2));
	stats(_metadata, d.fd, &after);
	same_state(_metadata, &before, &after);
	EXPECT_EQ(0, check(d.fd, t));
	EXPECT_EQ(-ETIMEDOUT, check(d.fd, t + 1));
	EXPECT_EQ(-ETIMEDOUT, check(d.fd, t + 3));
	EXPECT_EQ(0, dev_complete(d.fd, t, 2));
	EXPECT_EQ(t + 3, tail_of(_metadata, d.fd));
}

/*
 * ordsched.h:126-127 "EALREADY: @ticket was completed or trashed (also
 * when that happens during the wait)", by another thread of the handle.
 */
TEST_F(dom, wait_ealready_when_retired_during_the_wait)
{
	struct async a;
	struct dom d;
	__u64 t;
	int b;

	open_dom(_metadata, &d);
	b = new_handle(_metadata, d.fd);
	t = take(_metadata, b, 1);		/* the tail, elsewhere */
	take(_metadata, d.fd, 2);		/* t+1, t+2 */
	start_wait(_metadata, &a, d.fd, t + 1, in_ms(LONG_MS));
	sleeping(_metadata, d.fd, 1, &a);
	ASSERT_EQ(0, dev_trash(d.fd, t + 1, 1));
	ASSERT_TRUE(async_join(&a, 2 * LONG_MS));
	EXPECT_EQ(-EALREADY, a.ret);
	EXPECT_LT(a.end_ns, a.arg.w.deadline_ns) TH_LOG("returned at the deadline");
	/* ordsched.h:212 "@wakeups: waiters woken, by ... a retirement" */
	{
		struct ordsched_stats st;

		stats(_metadata, d.fd, &st);
		EXPECT_LE(1, st.wakeups);
		EXPECT_EQ(0, st.timeouts);
	}
	/* completed early, by the same handle */
	start_wait(_metadata, &a, d.fd, t + 2, in_ms(LONG_MS));
	sleeping(_metadata, d.fd, 2, &a);
	ASSERT_EQ(0, dev_complete(d.fd, t + 2, 1));
	ASSERT_TRUE(async_join(&a, 2 * LONG_MS));
	EXPECT_EQ(-EALREADY, a.ret);
	EXPECT_EQ(t, tail_of(_metadata, d.fd));
}

/*
 * ordsched.h:9-11 "A ticket's turn comes when every ticket before it has
 * been completed or trashed"; ordsched.h:147-148 an early completion lets
 * the tail pass "without a stop": the sleeper of the next ticket wakes.
 */
TEST_F(dom, turn_wakes_the_sleeper)
{
	struct async a;
	struct dom d;
	__u64 t;
	int b;

	open_dom(_metadata, &d);
	b = new_handle(_metadata, d.fd);
	t = take(_metadata, d.fd, 1);
	take(_metadata, d.fd, 1);
	take(_metadata, b, 1);			/* t+2 */
	start_wait(_metadata, &a, b, t + 2, in_ms(LONG_MS));
	sleeping(_metadata, d.fd, 1, &a);
	ASSERT_EQ(0, dev_complete(d.fd, t + 1, 1));
	usleep(100 * 1000);
	EXPECT_FALSE(async_done(&a)) TH_LOG("woke with %d before its turn", a.ret);
	ASSERT_EQ(0, dev_trash(d.fd, t, 1));
	ASSERT_TRUE(async_join(&a, 2 * LONG_MS));
	EXPECT_EQ(0, a.ret);
	EXPECT_LT(a.end_ns, a.arg.w.deadline_ns);
	EXPECT_EQ(t + 2, tail_of(_metadata, b));
}

/*
 * ordsched.h:211-218 "@wakeups: ... the wake-up at a ticket's turn also
 * wakes the waiters of the next ticket ... a wake-up ahead never makes a
 * wait return before its turn".
 */
TEST_F(dom, wake_ahead_never_returns_early)
{
	struct async a1, a2;
	struct dom d;
	int b, c;
	__u64 t;

	open_dom(_metadata, &d);
	b = new_handle(_metadata, d.fd);
	c = new_handle(_metadata, d.fd);
	t = take(_metadata, d.fd, 1);
	take(_metadata, b, 1);
	take(_metadata, c, 1);
	start_wait(_metadata, &a1, b, t + 1, in_ms(LONG_MS));
	start_wait(_metadata, &a2, c, t + 2, in_ms(LONG_MS));
	sleepers(d.fd, 2);
	ASSERT_EQ(0, dev_complete(d.fd, t, 1));
	ASSERT_TRUE(async_join(&a1, 2 * LONG_MS));
	EXPECT_EQ(0, a1.ret);
	EXPECT_WOKEN(a1, a1.arg.w.deadline_ns);
	usleep(300 * 1000);
	EXPECT_FALSE(async_done(&a2)) TH_LOG("t+2 returned %d at t+1's turn", a2.ret);
	ASSERT_EQ(0, dev_complete(b, t + 1, 1));
	ASSERT_TRUE(async_join(&a2, 2 * LONG_MS));
	EXPECT_EQ(0, a2.ret);
	/* Woken ahead, then asleep again: the wake at its turn is not lost. */
	EXPECT_WOKEN(a2, a2.arg.w.deadline_ns);
}

/* ======================================================================= */
/* Deadlines and signals                                                    */
/* ======================================================================= */

/*
 * ordsched.h:118-119,123 "absolute CLOCK_MONOTONIC deadline ... a
 * deadline in the past only checks ... ETIMEDOUT: the deadline passed":
 * never before it; stats waits/timeouts (ordsched.h:211,219).
 */
TEST_F(dom, deadline_never_early)
{
	struct ordsched_stats s0, s1;
	struct dom d;
	__u64 t, dl;
	int ret;

	open_dom(_metadata, &d);
	t = take(_metadata, d.fd, 2);
	stats(_metadata, d.fd, &s0);
	for (int i = 0; i < 3; i++) {
		dl = in_ms(50 + 100 * i);
		ret = dev_wait(d.fd, t + 1, dl);
		EXPECT_EQ(-ETIMEDOUT, ret);
		EXPECT_LE(dl, now_ns()) TH_LOG("returned %llu ns early",
					      (unsigned long long)(dl - now_ns()));
	}
	if (d.api.features & ORDSCHED_FEAT_COMPLETE_WAIT) {
		dl = in_ms(200);
		EXPECT_EQ(-ETIMEDOUT, dev_complete_wait(d.fd, ORDSCHED_NO_TICKET,
							t + 1, dl));
		EXPECT_LE(dl, now_ns());
	}
	stats(_metadata, d.fd, &s1);
	EXPECT_LE(s0.waits + 3, s1.waits);
	EXPECT_LE(s0.timeouts + 3, s1.timeouts);
	EXPECT_EQ(s0.interrupts, s1.interrupts);
	/* a past deadline only checks: at the turn it is 0 */
	EXPECT_EQ(0, dev_wait(d.fd, t, PAST));
	EXPECT_EQ(0, dev_wait(d.fd, t, 0));
	EXPECT_EQ(-ETIMEDOUT, dev_wait(d.fd, t + 1, 0));
	EXPECT_EQ(-ETIMEDOUT, dev_wait(d.fd, t + 1, now_ns()));
}

/*
 * ordsched.h:118-119 "absolute CLOCK_MONOTONIC deadline, or
 * ORDSCHED_NO_DEADLINE": far deadlines (beyond 2^63 ns included) are in
 * the future, not the past; the wait lasts until the turn.
 */
TEST_F(dom, far_deadlines_wait_for_the_turn)
{
	static const __u64 far[] = {
		ORDSCHED_NO_DEADLINE, ORDSCHED_NO_DEADLINE - 1, 1ULL << 63,
		(1ULL << 63) - 1, 1ULL << 62,
	};
	struct async a;
	struct dom d;
	__u64 t;
	int b;

	open_dom(_metadata, &d);
	b = new_handle(_metadata, d.fd);
	for (unsigned int i = 0; i < sizeof(far) / sizeof(far[0]); i++) {
		t = take(_metadata, d.fd, 1);
		take(_metadata, b, 1);
		start_wait(_metadata, &a, b, t + 1, far[i]);
		sleeping(_metadata, d.fd, i + 1, &a);
		usleep(100 * 1000);
		EXPECT_FALSE(async_done(&a))
			TH_LOG("deadline %#llx: returned %d at once",
			       (unsigned long long)far[i], a.ret);
		ASSERT_EQ(0, dev_complete(d.fd, t, 1));
		ASSERT_TRUE(async_join(&a, 2 * LONG_MS));
		EXPECT_EQ(0, a.ret) TH_LOG("deadline %#llx", (unsigned long long)far[i]);
		ASSERT_EQ(0, dev_complete(b, t + 1, 1));
	}
}

/*
 * ordsched.h:124-125 "EINTR (or a transparent restart): a signal came";
 * @interrupts counts them (ordsched.h:220).
 */
TEST_F(dom, signal_interrupts_wait)
{
	struct ordsched_stats st;
	struct async a;
	struct dom d;
	__u64 t;

	catch_sigusr1(_metadata, false);
	open_dom(_metadata, &d);
	t = take(_metadata, d.fd, 2);
	start_wait(_metadata, &a, d.fd, t + 1, in_ms(LONG_MS));
	sleeping(_metadata, d.fd, 1, &a);
	usleep(50 * 1000);
	pthread_kill(a.th, SIGUSR1);
	ASSERT_TRUE(async_join(&a, 2 * LONG_MS));
	EXPECT_EQ(-EINTR, a.ret);
	EXPECT_LT(a.end_ns, a.arg.w.deadline_ns);
	stats(_metadata, d.fd, &st);
	EXPECT_EQ(1, st.interrupts);
	EXPECT_EQ(0, st.timeouts);
	EXPECT_EQ(0, check(d.fd, t));
	EXPECT_EQ(-ETIMEDOUT, check(d.fd, t + 1));
}

/*
 * ordsched.h:124-125 "the deadline being absolute, a restart does not
 * stretch it": a storm of SA_RESTART signals must not keep a 300 ms wait
 * alive; it ends by its deadline (never before it) or EINTR.
 */
TEST_F(dom, restart_does_not_stretch_deadline)
{
	struct async a;
	struct dom d;
	__u64 t, stop;

	catch_sigusr1(_metadata, true);
	open_dom(_metadata, &d);
	t = take(_metadata, d.fd, 2);
	start_wait(_metadata, &a, d.fd, t + 1, in_ms(300));
	stop = in_ms(LONG_MS);
	while (!async_done(&a) && now_ns() < stop) {
		pthread_kill(a.th, SIGUSR1);
		usleep(20 * 1000);
	}
	ASSERT_TRUE(async_done(&a)) TH_LOG("a 300 ms wait outlived 10 s of signals");
	async_join(&a, 1000);
	EXPECT_TRUE(a.ret == -ETIMEDOUT || a.ret == -EINTR) TH_LOG("%d", a.ret);
	if (a.ret == -ETIMEDOUT) {
		EXPECT_LE(a.arg.w.deadline_ns, a.end_ns);
	}
}

/* ======================================================================= */
/* COMPLETE_WAIT                                                            */
/* ======================================================================= */

/*
 * ordsched.h:159-170: "Completes @ticket, then waits for @next as
 * ORDSCHED_IOC_WAIT does"; "@ticket ... out: set to ORDSCHED_NO_TICKET
 * once completed"; ORDSCHED_NO_TICKET in either field skips that step.
 */
TEST_F(dom, complete_wait_basics)
{
	struct ordsched_complete_wait cw;
	struct dom d;
	__u64 t;

	open_dom(_metadata, &d);
	if (!(d.api.features & ORDSCHED_FEAT_COMPLETE_WAIT))
		SKIP(return, "no COMPLETE_WAIT");
	t = take(_metadata, d.fd, 1);
	take(_metadata, d.fd, 1);
	cw = (struct ordsched_complete_wait){
		.ticket = t, .next = t + 1, .deadline_ns = in_ms(LONG_MS),
	};
	EXPECT_EQ(0, dev_ioctl(d.fd, ORDSCHED_IOC_COMPLETE_WAIT, &cw));
	EXPECT_EQ(ORDSCHED_NO_TICKET, cw.ticket);
	EXPECT_EQ(t + 1, cw.next);
	EXPECT_EQ(t + 1, tail_of(_metadata, d.fd));
	/* wait only */
	cw = (struct ordsched_complete_wait){
		.ticket = ORDSCHED_NO_TICKET, .next = t + 1, .deadline_ns = PAST,
	};
	EXPECT_EQ(0, dev_ioctl(d.fd, ORDSCHED_IOC_COMPLETE_WAIT, &cw));
	EXPECT_EQ(ORDSCHED_NO_TICKET, cw.ticket);
	EXPECT_EQ(t + 1, tail_of(_metadata, d.fd));
	/* complete only */
	cw = (struct ordsched_complete_wait){
		.ticket = t + 1, .next = ORDSCHED_NO_TICKET, .deadline_ns = PAST,
	};
	EXPECT_EQ(0, dev_ioctl(d.fd, ORDSCHED_IOC_COMPLETE_WAIT, &cw));
	EXPECT_EQ(ORDSCHED_NO_TICKET, cw.ticket);
	EXPECT_EQ(t + 2, tail_of(_metadata, d.fd));
	EXPECT_EQ(-EALREADY, check(d.fd, t + 1));
}

/* Whether COMPLETE_WAIT retired @t: a check answers EALREADY. */
static bool retired(int fd, __u64 t)
{
	return check(fd, t) == -EALREADY;
}

/*
 * ordsched.h:169-170 "Errors of the completion are returned before
 * anything is done; after it, those of the wait"; ordsched.h:160-162
 * "out: set to ORDSCHED_NO_TICKET once completed": whatever the answer,
 * the field tells whether the ticket was completed.
 */
TEST_F(dom, complete_wait_errors_in_order)
{
	struct ordsched_complete_wait cw;
	struct dom d;
	__u64 t;
	int b, ret;

	open_dom(_metadata, &d);
	if (!(d.api.features & ORDSCHED_FEAT_COMPLETE_WAIT))
		SKIP(return, "no COMPLETE_WAIT");
	b = new_handle(_metadata, d.fd);
	t = take(_metadata, b, 1);		/* t: b */
	take(_metadata, d.fd, 3);		/* t+1..t+3: d */

	/* a completion error: nothing done, no wait (a 10 s deadline) */
	cw = (struct ordsched_complete_wait){
		.ticket = t, .next = t + 1, .deadline_ns = in_ms(LONG_MS),
	};
	EXPECT_EQ(-EPERM, dev_ioctl(d.fd, ORDSCHED_IOC_COMPLETE_WAIT, &cw));
	EXPECT_LT(now_ns(), cw.deadline_ns) TH_LOG("it waited first");
	EXPECT_EQ(t, cw.ticket);

	/* the completion done, the wait times out: ETIMEDOUT, field updated */
	cw = (struct ordsched_complete_wait){
		.ticket = t + 3, .next = t + 1, .deadline_ns = in_ms(100),
	};
	EXPECT_EQ(-ETIMEDOUT, dev_ioctl(d.fd, ORDSCHED_IOC_COMPLETE_WAIT, &cw));
	EXPECT_TRUE(retired(d.fd, t + 3));
	EXPECT_EQ(ORDSCHED_NO_TICKET, cw.ticket);

	/* the completion done, the wait refused (another handle's ticket) */
	cw = (struct ordsched_complete_wait){
		.ticket = t + 2, .next = t, .deadline_ns = in_ms(LONG_MS),
	};
	EXPECT_EQ(-EPERM, dev_ioctl(d.fd, ORDSCHED_IOC_COMPLETE_WAIT, &cw));
	EXPECT_TRUE(retired(d.fd, t + 2));
	EXPECT_EQ(ORDSCHED_NO_TICKET, cw.ticket);

	/* a next never handed out: whichever error, the field says the truth */
	cw = (struct ordsched_complete_wait){
		.ticket = t + 1, .next = t + 100, .deadline_ns = in_ms(LONG_MS),
	};
	ret = dev_ioctl(d.fd, ORDSCHED_IOC_COMPLETE_WAIT, &cw);
	EXPECT_EQ(-EINVAL, ret);
	EXPECT_EQ(retired(d.fd, t + 1), cw.ticket == ORDSCHED_NO_TICKET)
		TH_LOG("ticket %s, field %#llx",
		       retired(d.fd, t + 1) ? "completed" : "held",
		       (unsigned long long)cw.ticket);

	/* a completion already done: EALREADY, before anything */
	cw = (struct ordsched_complete_wait){
		.ticket = t + 3, .next = t + 1, .deadline_ns = in_ms(LONG_MS),
	};
	EXPECT_EQ(-EALREADY, dev_ioctl(d.fd, ORDSCHED_IOC_COMPLETE_WAIT, &cw));
	EXPECT_EQ(t + 3, cw.ticket);
	EXPECT_EQ(t, tail_of(_metadata, d.fd));
}

/*
 * ordsched.h:160-162 "out: set to ORDSCHED_NO_TICKET once completed, so
 * that a call restarted after a signal only waits".
 */
TEST_F(dom, complete_wait_after_signal_only_waits)
{
	struct ordsched_stats st;
	struct async a;
	struct dom d;
	__u64 t;
	int b;

	catch_sigusr1(_metadata, false);
	open_dom(_metadata, &d);
	if (!(d.api.features & ORDSCHED_FEAT_COMPLETE_WAIT))
		SKIP(return, "no COMPLETE_WAIT");
	b = new_handle(_metadata, d.fd);
	t = take(_metadata, b, 1);		/* t: b */
	take(_metadata, d.fd, 2);		/* t+1, t+2: d */
	start_cw(_metadata, &a, d.fd, t + 1, t + 2, in_ms(LONG_MS));
	sleeping(_metadata, d.fd, 1, &a);
	usleep(50 * 1000);
	pthread_kill(a.th, SIGUSR1);
	ASSERT_TRUE(async_join(&a, 2 * LONG_MS));
	EXPECT_EQ(-EINTR, a.ret);
	EXPECT_EQ(ORDSCHED_NO_TICKET, a.arg.cw.ticket);
	stats(_metadata, d.fd, &st);
	EXPECT_EQ(1, st.completed);
	EXPECT_TRUE(retired(d.fd, t + 1));
	/* the same argument again: it only waits, then the turn comes */
	async_start(_metadata, &a);
	sleeping(_metadata, d.fd, 2, &a);
	EXPECT_FALSE(async_done(&a)) TH_LOG("answered %d", a.ret);
	ASSERT_EQ(0, dev_complete(b, t, 1));
	ASSERT_TRUE(async_join(&a, 2 * LONG_MS));
	EXPECT_EQ(0, a.ret);
	EXPECT_WOKEN(a, a.arg.cw.deadline_ns);
	stats(_metadata, d.fd, &st);
	EXPECT_EQ(2, st.completed);
	EXPECT_EQ(t + 2, st.tail);
}

/* ======================================================================= */
/* Handles                                                                  */
/* ======================================================================= */

/*
 * ordsched.h:5-6 "Every open of /dev/ordsched creates a private ordering
 * domain"; ordsched.h:201-202 "@domain_id: ... unique among live
 * domains"; tickets of one domain do not move another.
 */
TEST(opens_make_private_domains)
{
	struct ordsched_stats st[8];
	struct dom d[8];

	for (int i = 0; i < 8; i++) {
		open_dom(_metadata, &d[i]);
		take(_metadata, d[i].fd, 1);
	}
	for (int i = 0; i < 8; i++) {
		stats(_metadata, d[i].fd, &st[i]);
		EXPECT_EQ(1, st[i].handles);
		EXPECT_EQ(1, st[i].taken);
		EXPECT_EQ(st[i].tail + 1, st[i].head);
		for (int j = 0; j < i; j++) {
			EXPECT_NE(st[j].domain_id, st[i].domain_id);
		}
	}
	/* d[0]'s turns do not move d[1] */
	ASSERT_EQ(0, dev_complete(d[0].fd, st[0].tail, 1));
	EXPECT_EQ(st[1].tail, tail_of(_metadata, d[1].fd));
	EXPECT_EQ(st[0].tail + 1, tail_of(_metadata, d[0].fd));
}

/*
 * ordsched.h:6-7,186-187 "ORDSCHED_IOC_NEW_HANDLE gives another handle on
 * the same domain as a new file descriptor ... holding no ticket";
 * ordsched.h:182,195 ORDSCHED_HANDLE_CLOEXEC; @handles "live handles on
 * the domain".
 */
TEST(new_handle_same_domain)
{
	struct ordsched_stats s0, s1, s2;
	struct dom d;
	int h, hc;

	open_dom(_metadata, &d);
	take(_metadata, d.fd, 1);
	stats(_metadata, d.fd, &s0);
	h = dev_new_handle(d.fd, 0);
	ASSERT_LE(0, h);
	hc = dev_new_handle(d.fd, ORDSCHED_HANDLE_CLOEXEC);
	ASSERT_LE(0, hc);
	EXPECT_EQ(0, fcntl(h, F_GETFD) & FD_CLOEXEC);
	EXPECT_EQ(FD_CLOEXEC, fcntl(hc, F_GETFD) & FD_CLOEXEC);
	stats(_metadata, h, &s1);
	EXPECT_EQ(s0.domain_id, s1.domain_id);
	EXPECT_EQ(3, s1.handles);
	EXPECT_EQ(0, s1.held);
	EXPECT_EQ(0, s1.handle_taken);
	EXPECT_EQ(s0.head, s1.head);
	EXPECT_EQ(s0.taken, s1.taken);
	EXPECT_EQ(-EPERM, check(h, s0.tail));
	/* a handle of a handle: still the same domain */
	close(h);
	h = new_handle(_metadata, hc);
	stats(_metadata, h, &s2);
	EXPECT_EQ(s0.domain_id, s2.domain_id);
	EXPECT_EQ(3, s2.handles);
	close(h);
	close(hc);
	stats(_metadata, d.fd, &s2);
	EXPECT_EQ(1, s2.handles);
	EXPECT_EQ(1, s2.held);
	EXPECT_EQ(0, s2.released);
}

/* ordsched.h:186-187 "EMFILE, ENFILE, ENOMEM as open(2)". */
TEST(new_handle_emfile)
{
	struct ordsched_stats st;
	struct rlimit rl;
	struct dom d;
	int last = -1, fd;

	open_dom(_metadata, &d);
	ASSERT_EQ(0, getrlimit(RLIMIT_NOFILE, &rl));
	rl.rlim_cur = d.fd + 8;
	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &rl));
	while ((fd = dup(d.fd)) >= 0)
		last = fd;
	ASSERT_EQ(EMFILE, errno);
	EXPECT_EQ(-EMFILE, dev_new_handle(d.fd, 0));
	EXPECT_EQ(-EMFILE, dev_new_handle(d.fd, ORDSCHED_HANDLE_CLOEXEC));
	stats(_metadata, d.fd, &st);
	EXPECT_EQ(1, st.handles);
	ASSERT_LE(0, last);
	close(last);
	fd = dev_new_handle(d.fd, 0);
	EXPECT_EQ(last, fd);
	stats(_metadata, d.fd, &st);
	EXPECT_EQ(2, st.handles);
}

/*
 * ordsched.h, ORDSCHED_IOC_NEW_HANDLE: the new descriptor is "open for
 * reading, writing or both as the descriptor the command was called on":
 * a write-only handle's new handle cannot map the status page ("fd open
 * for reading: mmap(2) answers EACCES otherwise") any more than it can.
 */
TEST(new_handle_keeps_access_mode)
{
	static const int modes[] = { O_RDONLY, O_WRONLY, O_RDWR };
	unsigned int i;
	int fd, nh;

	for (i = 0; i < ARRAY_SIZE(modes); i++) {
		fd = open(DEV_PATH, modes[i] | O_CLOEXEC);
		ASSERT_LE(0, fd);
		nh = dev_new_handle(fd, ORDSCHED_HANDLE_CLOEXEC);
		ASSERT_LE(0, nh) TH_LOG("mode %d", modes[i]);
		EXPECT_EQ(modes[i], fcntl(nh, F_GETFL) & O_ACCMODE)
			TH_LOG("mode %d", modes[i]);
		if (modes[i] == O_WRONLY) {
			EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ,
						   MAP_SHARED, nh, 0));
			EXPECT_EQ(EACCES, errno);
		}
		close(nh);
		close(fd);
	}
}

/*
 * ordsched.h:7-8 "passing a descriptor (fork, SCM_RIGHTS) shares the
 * handle itself"; ordsched.h:14 released when "its last descriptor
 * closed": a child's exit leaves the parent's handle and its tickets.
 */
TEST(fork_shares_the_handle)
{
	struct ordsched_stats st;
	struct dom d;
	int status;
	pid_t pid;
	__u64 t;

	open_dom(_metadata, &d);
	t = take(_metadata, d.fd, 1);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct ordsched_stats cs;
		__u64 c = 0;

		if (dev_stats(d.fd, &cs) || cs.handles != 1 || cs.held != 1)
			_exit(1);
		if (dev_take(d.fd, 1, &c) || c != t + 1)
			_exit(2);
		if (dev_complete(d.fd, t, 1))	/* the parent's ticket */
			_exit(3);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	stats(_metadata, d.fd, &st);
	EXPECT_EQ(1, st.handles);
	EXPECT_EQ(1, st.held);
	EXPECT_EQ(0, st.released);
	EXPECT_EQ(t + 1, st.tail);
	EXPECT_EQ(0, dev_complete(d.fd, t + 1, 1));	/* the child's */
}

static int send_fd(int sock, int fd)
{
	char c = 'x', ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl, .msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);

	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

static int recv_fd(int sock)
{
	char c, ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl, .msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *cm;
	int fd;

	if (recvmsg(sock, &msg, 0) != 1)
		return -1;
	cm = CMSG_FIRSTHDR(&msg);
	if (!cm || cm->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}

/* ordsched.h:7-8 "passing a descriptor (fork, SCM_RIGHTS) shares the handle itself". */
TEST(scm_rights_shares_the_handle)
{
	struct ordsched_stats st;
	struct dom d;
	int sv[2], r;
	__u64 t;

	open_dom(_metadata, &d);
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		SKIP(return, "socketpair: %s", strerror(errno));
	ASSERT_EQ(0, send_fd(sv[0], d.fd));
	r = recv_fd(sv[1]);
	ASSERT_LE(0, r);
	t = take(_metadata, d.fd, 1);
	take(_metadata, r, 1);
	stats(_metadata, r, &st);
	EXPECT_EQ(1, st.handles);
	EXPECT_EQ(2, st.held);
	EXPECT_EQ(0, dev_complete(r, t, 1));
	/* the original descriptor closed: the handle lives on in r */
	close(d.fd);
	stats(_metadata, r, &st);
	EXPECT_EQ(0, st.released);
	EXPECT_EQ(1, st.held);
	EXPECT_EQ(0, dev_complete(r, t + 1, 1));
}

/*
 * ordsched.h:14-15 "When a handle is released (its last descriptor
 * closed ...) the tickets it still holds are trashed, so nobody waits
 * forever"; @released (ordsched.h:210) counts them, @trashed does not.
 */
TEST_F(dom, release_trashes_and_wakes_the_next)
{
	struct ordsched_stats st;
	struct async a;
	struct dom d;
	int b, dup_b;
	__u64 t;

	open_dom(_metadata, &d);
	b = new_handle(_metadata, d.fd);
	t = take(_metadata, b, 1);
	take(_metadata, b, 1);			/* t, t+1: b */
	take(_metadata, d.fd, 1);		/* t+2: d */
	start_wait(_metadata, &a, d.fd, t + 2, in_ms(LONG_MS));
	sleeping(_metadata, d.fd, 1, &a);
	dup_b = dup(b);
	ASSERT_LE(0, dup_b);
	close(b);				/* not the last descriptor */
	usleep(100 * 1000);
	EXPECT_FALSE(async_done(&a)) TH_LOG("answered %d", a.ret);
	stats(_metadata, d.fd, &st);
	EXPECT_EQ(2, st.handles);
	EXPECT_EQ(0, st.released);
	close(dup_b);				/* the last one */
	ASSERT_TRUE(async_join(&a, 2 * LONG_MS));
	EXPECT_EQ(0, a.ret);
	EXPECT_LT(a.end_ns, a.arg.w.deadline_ns);
	stats(_metadata, d.fd, &st);
	EXPECT_EQ(1, st.handles);
	EXPECT_EQ(2, st.released);
	EXPECT_EQ(0, st.trashed);
	EXPECT_EQ(0, st.completed);
	EXPECT_EQ(t + 2, st.tail);
	EXPECT_EQ(-EALREADY, check(d.fd, t));
}

/* ordsched.h:14-15 "... or its process killed) the tickets it still holds are trashed". */
TEST_F(dom, release_on_kill)
{
	struct ordsched_stats st;
	struct async a;
	struct dom d;
	int c, pipefd[2], gofd[2], status;
	pid_t pid;
	__u64 t;
	char x;

	open_dom(_metadata, &d);
	t = head_of(_metadata, d.fd);
	c = new_handle(_metadata, d.fd);
	ASSERT_EQ(0, pipe(pipefd));
	ASSERT_EQ(0, pipe(gofd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		__u64 ct;

		close(d.fd);
		if (dev_take(c, 1, &ct) || ct != t)
			_exit(1);
		if (write(pipefd[1], "x", 1) != 1)
			_exit(2);
		if (read(gofd[0], &x, 1) != 1)
			_exit(3);
		if (dev_take(c, 1, &ct) || ct != t + 2)
			_exit(4);
		/* killed asleep in a wait */
		dev_wait(c, t + 2, in_ms(3 * LONG_MS));
		_exit(5);
	}
	close(c);
	ASSERT_EQ(1, read(pipefd[0], &x, 1));
	take(_metadata, d.fd, 1);		/* t+1 */
	ASSERT_EQ(1, write(gofd[1], "x", 1));
	start_wait(_metadata, &a, d.fd, t + 1, in_ms(LONG_MS));
	sleeping(_metadata, d.fd, 2, &a);
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(async_join(&a, 2 * LONG_MS));
	EXPECT_EQ(0, a.ret);
	EXPECT_WOKEN(a, a.arg.w.deadline_ns);
	EXPECT_TRUE(WIFSIGNALED(status));
	stats(_metadata, d.fd, &st);
	EXPECT_EQ(1, st.handles);
	EXPECT_EQ(2, st.released);
	EXPECT_EQ(t + 1, st.tail);
	EXPECT_EQ(0, dev_complete(d.fd, t + 1, 1));
	EXPECT_EQ(t + 3, tail_of(_metadata, d.fd));
}

/*
 * ordsched.h:16-18 "... releases it when that wait returns (at its turn,
 * deadline or signal), not at once": the deadline and signal cases.
 */
TEST_F(dom, close_during_wait_deadline_or_signal)
{
	struct ordsched_stats st;
	struct async a;
	struct dom d;
	__u64 t, timeouts;
	int b;

	catch_sigusr1(_metadata, false);
	open_dom(_metadata, &d);
	t = take(_metadata, d.fd, 1);		/* t: d, never completed */
	for (int round = 0; round < 2; round++) {
		b = new_handle(_metadata, d.fd);
		take(_metadata, b, 2);
		stats(_metadata, d.fd, &st);
		timeouts = st.timeouts;
		start_wait(_metadata, &a, b, t + 1 + 2 * round,
			   round ? in_ms(LONG_MS) : in_ms(500));
		sleeping(_metadata, d.fd, round + 1, &a);
		ASSERT_EQ(0, close(b));
		stats(_metadata, d.fd, &st);
		/*
		 * Not released while the wait goes on; a guest stalled past
		 * round 0's deadline before the close (the timeout counted)
		 * has its wait over, and the close releases at once.
		 */
		if (st.timeouts == timeouts) {
			EXPECT_EQ(2, st.handles);
			EXPECT_EQ(2 * round, st.released);
		}
		if (round)
			pthread_kill(a.th, SIGUSR1);
		ASSERT_TRUE(async_join(&a, 2 * LONG_MS));
		EXPECT_EQ(round ? -EINTR : -ETIMEDOUT, a.ret);
		stats(_metadata, d.fd, &st);
		EXPECT_EQ(1, st.handles);
		EXPECT_EQ(2 * round + 2, st.released);
	}
	EXPECT_EQ(0, dev_complete(d.fd, t, 1));
	EXPECT_EQ(t + 5, tail_of(_metadata, d.fd));
}

/*
 * ordsched.h:16-18 "a close() in one thread while another waits on the
 * same handle releases it when that wait returns (at its turn, deadline
 * or signal), not at once."
 */
TEST_F(dom, close_during_wait_releases_after_it)
{
	struct ordsched_stats st;
	struct async a;
	struct dom d;
	__u64 t;
	int b;

	open_dom(_metadata, &d);
	b = new_handle(_metadata, d.fd);
	t = take(_metadata, d.fd, 1);		/* t: d */
	take(_metadata, b, 2);			/* t+1, t+2: b */
	start_wait(_metadata, &a, b, t + 1, in_ms(LONG_MS));
	sleeping(_metadata, d.fd, 1, &a);
	ASSERT_EQ(0, close(b));
	usleep(100 * 1000);
	EXPECT_FALSE(async_done(&a)) TH_LOG("answered %d at the close", a.ret);
	stats(_metadata, d.fd, &st);
	EXPECT_EQ(2, st.handles);
	EXPECT_EQ(0, st.released);
	EXPECT_EQ(t, st.tail);
	ASSERT_EQ(0, dev_complete(d.fd, t, 1));
	ASSERT_TRUE(async_join(&a, 2 * LONG_MS));
	EXPECT_EQ(0, a.ret) TH_LOG("the wait did not get its turn");
	EXPECT_WOKEN(a, a.arg.w.deadline_ns);
	/* now released: t+1 and t+2 trashed */
	stats(_metadata, d.fd, &st);
	EXPECT_EQ(1, st.handles);
	EXPECT_EQ(2, st.released);
	EXPECT_EQ(t + 3, st.tail);
}

/* ======================================================================= */
/* Limits: window, max_held, max_batch                                      */
/* ======================================================================= */

/*
 * ordsched.h, struct ordsched_take: "EAGAIN: the handle would hold more
 * than max_held tickets (... it clears as the handle completes or trashes
 * tickets of its own ...)"; ordsched.h:77 "@max_held:
 * out: most tickets one handle may hold at a time"; @full counts EAGAINs.
 */
TEST_F(dom, take_eagain_max_held)
{
	struct ordsched_stats st;
	struct dom d;
	__u32 held = 0, n, full = 0;
	__u64 t0;

	open_dom(_metadata, &d);
	if (d.api.max_held >= d.window)
		SKIP(return, "max_held %u, window %u", d.api.max_held, d.window);
	if (d.api.max_held / d.batch > 100000)
		SKIP(return, "too many takes");
	t0 = head_of(_metadata, d.fd);
	while (held < d.api.max_held) {
		n = d.api.max_held - held;
		if (n > d.batch)
			n = d.batch;
		EXPECT_EQ(t0 + held, take(_metadata, d.fd, n));
		held += n;
	}
	EXPECT_EQ(-EAGAIN, dev_take(d.fd, 1, NULL));
	full++;
	EXPECT_EQ(0, dev_trash(d.fd, t0 + 5 % d.api.max_held, 1));
	/* held is max_held - 1: a batch of 2 would exceed it */
	if (d.batch >= 2) {
		EXPECT_EQ(-EAGAIN, dev_take(d.fd, 2, NULL));
		full++;
	}
	stats(_metadata, d.fd, &st);
	EXPECT_EQ(d.api.max_held - 1, st.held);
	EXPECT_EQ(full, st.full);
	EXPECT_EQ(t0 + d.api.max_held, st.head);
	EXPECT_EQ(t0 + d.api.max_held, take(_metadata, d.fd, 1));
	EXPECT_EQ(-EAGAIN, dev_take(d.fd, 1, NULL));
	full++;
	/* another handle is not limited by this one's tickets */
	if (d.api.max_held + 2 <= d.window) {
		EXPECT_EQ(t0 + d.api.max_held + 1,
			  take(_metadata, new_handle(_metadata, d.fd), 1));
	}
	stats(_metadata, d.fd, &st);
	EXPECT_EQ(full, st.full);
	EXPECT_EQ(d.api.max_held, st.held);
}

/*
 * ordsched.h, struct ordsched_take: max_held's EAGAIN "clears as the
 * handle completes or trashes tickets of its own; the tail moving does
 * not clear it". Another handle holds the tail's ticket; moving the tail
 * past it leaves this handle full, completing one of its own early does
 * not move the tail and frees a ticket.
 */
TEST_F(dom, take_eagain_max_held_not_the_tail)
{
	struct ordsched_stats st;
	struct dom d;
	__u32 held = 0, n;
	__u64 t0, last;
	int other;

	open_dom(_metadata, &d);
	if (g_ring)
		SKIP(return, "max_held bounds no handle of a ring domain");
	if (d.api.max_held + 2 > d.window)
		SKIP(return, "max_held %u, window %u", d.api.max_held, d.window);
	if (d.api.max_held / d.batch > 100000)
		SKIP(return, "too many takes");
	other = new_handle(_metadata, d.fd);
	t0 = take(_metadata, other, 1);
	while (held < d.api.max_held) {
		n = d.api.max_held - held;
		if (n > d.batch)
			n = d.batch;
		EXPECT_EQ(t0 + 1 + held, take(_metadata, d.fd, n));
		held += n;
	}
	last = t0 + d.api.max_held;
	EXPECT_EQ(-EAGAIN, dev_take(d.fd, 1, NULL));
	/* The tail moves onto our first ticket: still full. */
	EXPECT_EQ(0, dev_complete(other, t0, 1));
	EXPECT_EQ(t0 + 1, tail_of(_metadata, d.fd));
	EXPECT_EQ(-EAGAIN, dev_take(d.fd, 1, NULL));
	/* One of ours early: the tail stays, a ticket is free. */
	EXPECT_EQ(0, dev_complete(d.fd, last, 1));
	stats(_metadata, d.fd, &st);
	EXPECT_EQ(t0 + 1, st.tail);
	EXPECT_EQ(d.api.max_held - 1, st.held);
	EXPECT_EQ(last + 1, take(_metadata, d.fd, 1));
	close(other);
}

/*
 * ordsched.h:72-75 "a ticket is handed out only if it lies less than
 * @window after the tail. Tickets completed or trashed early, out of
 * turn, still count until the tail passes them"; ordsched.h:105-107 "or
 * the last ticket would lie window or more after the tail ... it clears
 * as the tail moves".
 */
TEST_F(dom, take_eagain_window)
{
	struct ordsched_stats st;
	struct dom d;
	__u32 W, H, M, nh, full = 0;
	__u64 t0, got = 0;
	int *owner, *fds, spare;

	open_dom(_metadata, &d);
	W = d.window;
	H = d.api.max_held;
	M = d.batch;
	nh = (W + H - 1) / H;
	if (nh > 800 || W / M > 200000)
		SKIP(return, "window %u, max_held %u, max_batch %u", W, H, M);
	if (nh + 16 > 1000) {
		struct rlimit rl = { nh + 64, nh + 64 };

		setrlimit(RLIMIT_NOFILE, &rl);
	}
	owner = calloc(W, sizeof(*owner));
	fds = calloc(nh, sizeof(*fds));
	ASSERT_TRUE(owner != NULL && fds != NULL);
	t0 = head_of(_metadata, d.fd);
	for (__u32 i = 0; i < nh; i++) {
		__u32 mine = 0;

		fds[i] = i ? new_handle(_metadata, d.fd) : d.fd;
		while (mine < H && got < W) {
			__u32 n = H - mine;

			if (n > M)
				n = M;
			if (n > W - got)
				n = W - got;
			ASSERT_EQ(t0 + got, take(_metadata, fds[i], n));
			for (__u32 k = 0; k < n; k++)
				owner[got + k] = fds[i];
			got += n;
			mine += n;
		}
	}
	ASSERT_EQ(W, got);
	spare = new_handle(_metadata, d.fd);
	EXPECT_EQ(-EAGAIN, dev_take(spare, 1, NULL));
	full++;
	/* an early retirement does not make room */
	if (W >= 2) {
		ASSERT_EQ(0, dev_complete(owner[1], t0 + 1, 1));
		EXPECT_EQ(-EAGAIN, dev_take(spare, 1, NULL));
		full++;
	}
	stats(_metadata, d.fd, &st);
	EXPECT_EQ(t0 + W, st.head);
	EXPECT_EQ(t0, st.tail);
	EXPECT_EQ(full, st.full);
	/* the tail moves past t0 and t0+1: two tickets fit, not three */
	ASSERT_EQ(0, dev_trash(owner[0], t0, 1));
	EXPECT_EQ(W >= 2 ? t0 + 2 : t0 + 1, tail_of(_metadata, d.fd));
	if (W >= 2 && M >= 3) {
		EXPECT_EQ(-EAGAIN, dev_take(spare, 3, NULL));
		full++;
	}
	if (W >= 2 && M >= 2) {
		EXPECT_EQ(t0 + W, take(_metadata, spare, 2));
	} else {
		EXPECT_EQ(t0 + W, take(_metadata, spare, 1));
		if (W >= 2) {
			EXPECT_EQ(t0 + W + 1, take(_metadata, spare, 1));
		}
	}
	EXPECT_EQ(-EAGAIN, dev_take(spare, 1, NULL));
	full++;
	stats(_metadata, d.fd, &st);
	EXPECT_EQ(full, st.full);
	EXPECT_EQ(W >= 2 ? t0 + W + 2 : t0 + W + 1, st.head);
}

/* ======================================================================= */
/* Stats                                                                    */
/* ======================================================================= */

/* ordsched.h:197-227, every counter over one scripted run. */
TEST_F(dom, stats_count_exactly)
{
	struct ordsched_stats s, sb;
	struct async a;
	struct dom d;
	__u64 t;
	int b;

	open_dom(_metadata, &d);
	if (d.api.max_batch < 3)
		SKIP(return, "max_batch %u", d.api.max_batch);
	b = new_handle(_metadata, d.fd);
	t = take(_metadata, d.fd, 3);		/* t..t+2: d */
	take(_metadata, b, 1);			/* t+3: b */
	ASSERT_EQ(0, dev_trash(d.fd, t + 1, 1));
	ASSERT_EQ(0, dev_complete(d.fd, t + 2, 1));
	ASSERT_EQ(0, dev_wait(d.fd, t, PAST));	/* at its turn: not counted */
	stats(_metadata, d.fd, &s);
	EXPECT_EQ(2, s.handles);
	EXPECT_EQ(0, s.pad);
	EXPECT_EQ(t, s.tail);
	EXPECT_EQ(t + 4, s.head);
	EXPECT_EQ(4, s.taken);
	EXPECT_EQ(1, s.completed);
	EXPECT_EQ(1, s.trashed);
	EXPECT_EQ(0, s.released);
	EXPECT_EQ(0, s.waits);
	EXPECT_EQ(0, s.wakeups);
	EXPECT_EQ(0, s.timeouts);
	EXPECT_EQ(0, s.interrupts);
	EXPECT_EQ(0, s.full);
	EXPECT_EQ(1, s.held);
	EXPECT_EQ(3, s.handle_taken);
	if (!g_ring) {
		EXPECT_EQ(0, s.deferred);
	}
	start_wait(_metadata, &a, b, t + 3, in_ms(LONG_MS));
	sleeping(_metadata, d.fd, 1, &a);
	ASSERT_EQ(0, dev_complete(d.fd, t, 1));
	ASSERT_TRUE(async_join(&a, 2 * LONG_MS));
	ASSERT_EQ(0, a.ret);
	stats(_metadata, b, &sb);
	EXPECT_EQ(t + 3, sb.tail);
	EXPECT_EQ(2, sb.completed);
	EXPECT_EQ(1, sb.waits);
	EXPECT_LE(1, sb.wakeups);
	EXPECT_EQ(0, sb.timeouts);
	EXPECT_EQ(1, sb.held);
	EXPECT_EQ(1, sb.handle_taken);
	close(b);
	stats(_metadata, d.fd, &s);
	EXPECT_EQ(1, s.handles);
	EXPECT_EQ(1, s.released);
	EXPECT_EQ(1, s.trashed);
	EXPECT_EQ(t + 4, s.tail);
	EXPECT_EQ(0, s.held);
	EXPECT_EQ(3, s.handle_taken);
	if (!g_ring) {
		EXPECT_EQ(0, s.deferred);
	}
	for (int i = 0; i < 3; i++) {
		EXPECT_EQ(0, s.reserved[i]);
	}
}

/*
 * ordsched.h:211 "@waits: out: wait commands that found the ticket not
 * yet at its turn" and ordsched.h:219 "@timeouts: out: waits that reached
 * their deadline": a wait with a past deadline is both.
 */
TEST(stats_count_checking_waits)
{
	struct ordsched_stats s;
	struct dom d;
	__u64 t;

	open_dom(_metadata, &d);
	t = take(_metadata, d.fd, 2);
	ASSERT_EQ(-ETIMEDOUT, dev_wait(d.fd, t + 1, PAST));
	stats(_metadata, d.fd, &s);
	EXPECT_EQ(1, s.waits);
	EXPECT_EQ(1, s.timeouts);
}

/*
 * ordsched.h:201-202 "@domain_id: out: the domain's number, unique among
 * live domains, as in the debugfs file "ordsched/domains"
 * ("<comm>.<id>:")".
 */
TEST(stats_domain_id_in_debugfs)
{
	static const char *path = "/sys/kernel/debug/ordsched/domains";
	char want[64], *buf;
	struct ordsched_stats st;
	struct dom d;
	size_t len = 0;
	ssize_t n;
	int fd;

	ASSERT_EQ(0, prctl(PR_SET_NAME, "osc_probe"));
	open_dom(_metadata, &d);
	stats(_metadata, d.fd, &st);
	if (access(path, R_OK))
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		SKIP(return, "%s: %s", path, strerror(errno));
	buf = malloc(1 << 20);
	ASSERT_NE(NULL, buf);
	while ((n = read(fd, buf + len, (1 << 20) - 1 - len)) > 0)
		len += n;
	buf[len] = 0;
	close(fd);
	snprintf(want, sizeof(want), "osc_probe.%u:", st.domain_id);
	EXPECT_TRUE(strstr(buf, want) != NULL) TH_LOG("no \"%s\" in:\n%.2000s", want, buf);
}

/* ======================================================================= */
/* The status page                                                          */
/* ======================================================================= */

static const void *map_status(META, const struct dom *d, int fd)
{
	const void *p;

	if (!(d->api.features & ORDSCHED_FEAT_STATUS_PAGE))
		return NULL;
	p = mmap(NULL, d->api.status_size, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, p) TH_LOG("mmap: %s", strerror(errno));
	return p;
}

/*
 * ordsched.h:251-262 "mmap(NULL, status_size, PROT_READ, MAP_SHARED, fd,
 * 0) maps the page of the handle's domain", its header fields as the
 * handshake says, and the tail and the head the kernel writes.
 */
TEST_F(dom, status_page_fields)
{
	const struct ordsched_status *s;
	const void *p, *q, *other;
	struct dom d, e;
	__u64 t;
	int b;

	open_dom(_metadata, &d);
	open_dom(_metadata, &e);
	p = map_status(_metadata, &d, d.fd);
	if (!p)
		SKIP(return, "no status page");
	s = p;
	EXPECT_EQ(ORDSCHED_API_VERSION, s->version);
	EXPECT_EQ(d.api.status_size, s->size);
	EXPECT_EQ(d.api.features, s->features);
	/* a ring domain's: ordsched_ring.h:58-61,164-167 */
	EXPECT_EQ(d.window, s->window);
	EXPECT_EQ(g_ring ? d.rs.tail_offset : d.api.status_tail_offset,
		  s->tail_offset);
	EXPECT_EQ(g_ring ? d.rs.head_offset : d.api.status_head_offset,
		  s->head_offset);
	EXPECT_EQ(0, s->pad);
	b = new_handle(_metadata, d.fd);
	q = map_status(_metadata, &d, b);
	other = map_status(_metadata, &e, e.fd);
	t = take(_metadata, d.fd, 1);
	take(_metadata, b, 1);
	EXPECT_EQ(t, dev_tail(p));
	EXPECT_EQ(t + 2, dev_head(p));
	EXPECT_EQ(t, dev_tail(q));
	EXPECT_EQ(t + 2, dev_head(q));
	ASSERT_EQ(0, dev_complete(d.fd, t, 1));
	EXPECT_EQ(t + 1, dev_tail(p));
	EXPECT_EQ(t + 1, dev_tail(q));
	EXPECT_EQ(head_of(_metadata, e.fd), dev_head(other));
	EXPECT_EQ(tail_of(_metadata, e.fd), dev_tail(other));
	/* the page follows a release too */
	close(b);
	EXPECT_EQ(t + 2, dev_tail(p));
	EXPECT_EQ(t + 2, dev_head(p));
}

/*
 * ordsched.h:251 "the read-only status page", ordsched.h:261 "PROT_READ,
 * MAP_SHARED ... 0"; ordsched_ring.h:21-23 offset one page in: "EINVAL
 * ... in a domain without a ring".
 */
TEST_F(dom, status_page_read_only)
{
	struct dom d;
	void *p;

	open_dom(_metadata, &d);
	if (!(d.api.features & ORDSCHED_FEAT_STATUS_PAGE))
		SKIP(return, "no status page");
	p = mmap(NULL, d.api.status_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		 d.fd, 0);
	EXPECT_EQ(MAP_FAILED, p) TH_LOG("a writable mapping of the status page");
	p = mmap(NULL, d.api.status_size, PROT_READ | PROT_EXEC, MAP_SHARED,
		 d.fd, 0);
	EXPECT_EQ(MAP_FAILED, p) TH_LOG("an executable mapping of the status page");
	if (p == MAP_FAILED) {
		EXPECT_EQ(EPERM, errno);
	}
	p = mmap(NULL, d.api.status_size, PROT_READ, MAP_SHARED, d.fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_NE(0, mprotect(p, d.api.status_size, PROT_READ | PROT_WRITE))
		TH_LOG("the read-only mapping became writable");
	EXPECT_NE(0, mprotect(p, d.api.status_size, PROT_READ | PROT_EXEC))
		TH_LOG("the mapping became executable");
	if (g_ring)	/* one page in is the ring page */
		return;
	p = mmap(NULL, page_size(), PROT_READ, MAP_SHARED, d.fd, page_size());
	EXPECT_EQ(MAP_FAILED, p);
	if (p == MAP_FAILED) {
		EXPECT_EQ(EINVAL, errno);
	}
	p = mmap(NULL, page_size(), PROT_READ, MAP_SHARED, d.fd, 16 * page_size());
	EXPECT_EQ(MAP_FAILED, p);
}

/*
 * The page's mapping in /proc/self/maps, "r--s" and the like, into @perm;
 * false if there is none at @p.
 */
static bool map_perm(const void *p, char perm[5])
{
	unsigned long lo, hi;
	char line[512];
	bool found = false;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && !found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%lx-%lx %4s", &lo, &hi, perm) == 3 &&
			lo == (unsigned long)p;
	if (f)
		fclose(f);
	return found;
}

/*
 * ordsched.h "PROT_EXEC: EPERM, but where a READ_IMPLIES_EXEC personality
 * adds it, it is dropped": such a process (a legacy 32-bit binary, say)
 * still maps the page with PROT_READ, and gets it not executable.
 */
TEST_F(dom, status_page_read_implies_exec)
{
	struct dom d;
	char perm[5];
	void *p, *q;
	int e;

	open_dom(_metadata, &d);
	if (!(d.api.features & ORDSCHED_FEAT_STATUS_PAGE))
		SKIP(return, "no status page");
	ASSERT_NE(-1, personality(PER_LINUX | READ_IMPLIES_EXEC));
	p = mmap(NULL, d.api.status_size, PROT_READ, MAP_SHARED, d.fd, 0);
	/*
	 * "where a READ_IMPLIES_EXEC personality adds it": it adds it to
	 * PROT_READ only; PROT_EXEC alone was asked for, and mapped with no
	 * access at all instead of refused.
	 */
	errno = 0;
	q = mmap(NULL, d.api.status_size, PROT_EXEC, MAP_SHARED, d.fd, 0);
	e = errno;
	personality(PER_LINUX);
	ASSERT_NE(MAP_FAILED, p) TH_LOG("errno %d", errno);
	ASSERT_TRUE(map_perm(p, perm));
	EXPECT_STREQ("r--s", perm);
	munmap(p, d.api.status_size);
	EXPECT_EQ(MAP_FAILED, q);
	EXPECT_EQ(EPERM, e);
	if (q != MAP_FAILED)
		munmap(q, d.api.status_size);
}

static void *complete_all(void *arg)
{
	__u64 *v = arg;		/* fd, first, count */

	for (__u64 i = 0; i < v[2]; i++)
		if (dev_complete((int)v[0], v[1] + i, 1))
			break;
	return NULL;
}

/*
 * ordsched.h:264-267 "the kernel never publishes a value above the true
 * one, so "tail == my ticket" read from the page means the ticket's turn
 * has come": page values never run ahead of STATS read after them.
 */
TEST_F(dom, status_page_never_ahead)
{
	struct ordsched_stats st;
	const void *p;
	pthread_t th;
	struct dom d;
	__u64 v[3], t, mine, n;
	int b, bad = 0;

	open_dom(_metadata, &d);
	p = map_status(_metadata, &d, d.fd);
	if (!p)
		SKIP(return, "no status page");
	n = d.api.max_held < d.window ? d.api.max_held : d.window - 1;
	if (n > 2000)
		n = 2000;
	if (n > d.api.max_batch)
		n = d.api.max_batch;
	b = new_handle(_metadata, d.fd);
	t = take(_metadata, d.fd, n);
	mine = take(_metadata, b, 1);
	v[0] = d.fd;
	v[1] = t;
	v[2] = n;
	ASSERT_EQ(0, pthread_create(&th, NULL, complete_all, v));
	for (__u64 end = in_ms(LONG_MS); now_ns() < end;) {
		__u64 pt = dev_tail(p), ph = dev_head(p);

		stats(_metadata, b, &st);
		if (pt > st.tail || ph > st.head)
			bad++;
		if (pt == mine) {
			EXPECT_EQ(0, dev_wait(b, mine, PAST));
			break;
		}
	}
	pthread_join(th, NULL);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(mine, dev_tail(p));
}

/* ======================================================================= */
/* poll                                                                     */
/* ======================================================================= */

/*
 * ordsched.h:58 "ORDSCHED_FEAT_POLL ... poll() for a turn": a handle is
 * readable when the tail is a ticket it holds, and a poller is woken when
 * the turn comes, by a retirement or a release.
 */
TEST_F(dom, poll_for_a_turn)
{
	struct pollfd pfd;
	struct async a;
	struct dom d;
	__u64 t, start;
	int b;

	open_dom(_metadata, &d);
	if (!(d.api.features & ORDSCHED_FEAT_POLL))
		SKIP(return, "no poll");
	b = new_handle(_metadata, d.fd);
	t = take(_metadata, d.fd, 1);
	take(_metadata, b, 1);			/* t+1: b */
	take(_metadata, d.fd, 1);		/* t+2: d */
	pfd = (struct pollfd){ .fd = d.fd, .events = POLLIN };
	EXPECT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_TRUE(pfd.revents & POLLIN);
	pfd = (struct pollfd){ .fd = b, .events = POLLIN };
	EXPECT_EQ(0, poll(&pfd, 1, 0)) TH_LOG("revents %#x", pfd.revents);
	/*
	 * Each poll must end woken, well before its timeout: there poll()
	 * looks at the descriptors once more and would answer 1 anyway.
	 */
	start = now_ns();
	start_poll(_metadata, &a, b, 2 * LONG_MS);
	usleep(100 * 1000);
	EXPECT_FALSE(async_done(&a));
	ASSERT_EQ(0, dev_complete(d.fd, t, 1));
	ASSERT_TRUE(async_join(&a, 3 * LONG_MS));
	EXPECT_GT(LONG_MS * MS, now_ns() - start);
	EXPECT_EQ(1, a.ret);
	EXPECT_TRUE(a.revents & POLLIN);
	pfd = (struct pollfd){ .fd = d.fd, .events = POLLIN };
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	/* a release hands the turn on too */
	start = now_ns();
	start_poll(_metadata, &a, d.fd, 2 * LONG_MS);
	usleep(100 * 1000);
	EXPECT_FALSE(async_done(&a));
	close(b);
	ASSERT_TRUE(async_join(&a, 3 * LONG_MS));
	EXPECT_GT(LONG_MS * MS, now_ns() - start);
	EXPECT_EQ(1, a.ret);
	EXPECT_TRUE(a.revents & POLLIN);
}

/* ordsched.h:58 "poll() for a turn", through epoll (edge and level). */
TEST_F(dom, epoll_for_a_turn)
{
	struct epoll_event ev, out;
	struct dom d;
	__u64 t;
	int b, ep;

	open_dom(_metadata, &d);
	if (!(d.api.features & ORDSCHED_FEAT_POLL))
		SKIP(return, "no poll");
	b = new_handle(_metadata, d.fd);
	t = take(_metadata, d.fd, 1);
	take(_metadata, b, 1);
	ep = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_LE(0, ep);
	ev = (struct epoll_event){ .events = EPOLLIN | EPOLLET, .data.u32 = 7 };
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, b, &ev));
	EXPECT_EQ(0, epoll_wait(ep, &out, 1, 0));
	ASSERT_EQ(0, dev_complete(d.fd, t, 1));
	ASSERT_EQ(1, epoll_wait(ep, &out, 1, 2 * LONG_MS));
	EXPECT_EQ(7, out.data.u32);
	EXPECT_TRUE(out.events & EPOLLIN);
	close(ep);
	/* level-triggered, added after the turn came */
	ep = epoll_create1(EPOLL_CLOEXEC);
	ev = (struct epoll_event){ .events = EPOLLIN, .data.u32 = 8 };
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, b, &ev));
	EXPECT_EQ(1, epoll_wait(ep, &out, 1, 0));
	EXPECT_EQ(1, epoll_wait(ep, &out, 1, 0));
	ASSERT_EQ(0, dev_complete(b, t + 1, 1));
	EXPECT_EQ(0, epoll_wait(ep, &out, 1, 0));
}

/* ======================================================================= */
/* Sleepers' limits                                                         */
/* ======================================================================= */

/*
 * ordsched.h:45-50 ORDSCHED_MAX_WAITERS_HANDLE; ordsched.h:127-132
 * "EBUSY: ORDSCHED_MAX_WAITERS_HANDLE threads already sleep on the
 * handle ... when the wait begins (also for the sleeps of
 * ORDSCHED_IOC_COMPLETE_WAIT ...) ... a wait that finds its turn at once
 * never answers it."
 */
TEST_F_TIMEOUT(dom, ebusy_handle_sleepers, 60)
{
	struct ordsched_stats st;
	struct async *a;
	struct dom d;
	__u64 t;
	int b, c, n = ORDSCHED_MAX_WAITERS_HANDLE, ok = 0;

	open_dom(_metadata, &d);
	a = calloc(n, sizeof(*a));
	ASSERT_NE(NULL, a);
	b = new_handle(_metadata, d.fd);
	c = new_handle(_metadata, d.fd);
	t = take(_metadata, d.fd, 1);		/* t: d */
	take(_metadata, b, 1);			/* t+1: b */
	take(_metadata, d.fd, 2);		/* t+2, t+3: d */
	take(_metadata, c, 1);			/* t+4: c */
	for (int i = 0; i < n; i++)
		start_wait(_metadata, &a[i], d.fd, t + 2, in_ms(3 * LONG_MS));
	sleepers(d.fd, n);
	usleep(100 * 1000);
	EXPECT_EQ(-EBUSY, dev_wait(d.fd, t + 2, in_ms(LONG_MS)));
	EXPECT_EQ(-EBUSY, dev_wait(d.fd, t + 3, in_ms(LONG_MS)));
	/* "A wait whose deadline is in the past answers it too" */
	EXPECT_EQ(-EBUSY, dev_wait(d.fd, t + 3, 0));
	EXPECT_EQ(0, dev_wait(d.fd, t, in_ms(LONG_MS)));
	if (d.api.features & ORDSCHED_FEAT_COMPLETE_WAIT) {
		EXPECT_EQ(-EBUSY, dev_complete_wait(d.fd, ORDSCHED_NO_TICKET,
						    t + 3, in_ms(LONG_MS)));
		EXPECT_EQ(0, dev_complete_wait(d.fd, ORDSCHED_NO_TICKET, t,
					       in_ms(LONG_MS)));
	}
	/* another handle of the domain still sleeps */
	EXPECT_EQ(-ETIMEDOUT, dev_wait(c, t + 4, in_ms(100)));
	ASSERT_EQ(0, dev_complete(d.fd, t, 1));
	ASSERT_EQ(0, dev_complete(b, t + 1, 1));
	for (int i = 0; i < n; i++)
		if (async_join(&a[i], 4 * LONG_MS) && a[i].ret == 0 &&
		    woken(&a[i]))
			ok++;
	EXPECT_EQ(n, ok);
	stats(_metadata, d.fd, &st);
	EXPECT_EQ(t + 2, st.tail);
}

/*
 * ordsched.h:45-50 ORDSCHED_MAX_WAITERS_DOMAIN; ordsched.h:127-132
 * "EBUSY: ... or ORDSCHED_MAX_WAITERS_DOMAIN on its domain, when the wait
 * begins".
 */
TEST_F_TIMEOUT(dom, ebusy_domain_sleepers, 240)
{
	const int per = ORDSCHED_MAX_WAITERS_HANDLE;
	const int nh = ORDSCHED_MAX_WAITERS_DOMAIN / ORDSCHED_MAX_WAITERS_HANDLE;
	struct async *a;
	struct dom d;
	int h[nh + 1], ok = 0;
	__u64 t;

	open_dom(_metadata, &d);
	a = calloc(per * nh, sizeof(*a));
	ASSERT_NE(NULL, a);
	t = take(_metadata, d.fd, 1);		/* t: d, the blocker */
	for (int i = 0; i <= nh; i++) {
		h[i] = new_handle(_metadata, d.fd);
		EXPECT_EQ(t + 1 + i, take(_metadata, h[i], 1));
	}
	for (int i = 0; i < nh; i++)
		for (int k = 0; k < per; k++)
			start_wait(_metadata, &a[i * per + k], h[i], t + 1 + i,
				   in_ms(12 * LONG_MS));
	sleepers(d.fd, per * nh);
	usleep(100 * 1000);
	EXPECT_EQ(-EBUSY, dev_wait(h[nh], t + 1 + nh, in_ms(LONG_MS)));
	EXPECT_EQ(0, dev_wait(d.fd, t, in_ms(LONG_MS)));
	/* let them all through */
	ASSERT_EQ(0, dev_complete(d.fd, t, 1));
	for (int i = 0; i < nh; i++) {
		for (int k = 0; k < per; k++)
			if (async_join(&a[i * per + k], 5 * LONG_MS) &&
			    a[i * per + k].ret == 0 && woken(&a[i * per + k]))
				ok++;
		if (i + 1 < nh) {
			ASSERT_EQ(0, dev_complete(h[i], t + 1 + i, 1));
		}
	}
	EXPECT_EQ(per * nh, ok);
}

/*
 * ordsched.h:127-131 "EBUSY: ORDSCHED_MAX_WAITERS_HANDLE threads already
 * sleep on the handle ... (also for the sleeps of
 * ORDSCHED_IOC_COMPLETE_WAIT and ORDSCHED_IOC_RING_WAIT)": RING_WAIT
 * sleepers fill the handle's quota for ORDSCHED_IOC_WAIT.
 */
TEST_F_TIMEOUT(dom, ebusy_counts_ring_wait_sleepers, 60)
{
	const int n = ORDSCHED_MAX_WAITERS_HANDLE;
	struct ordsched_ring_wait rw;
	struct async *a;
	struct dom d;
	__u64 t;
	int b, ok = 0;

	if (!variant->ring)
		SKIP(return, "ring domains only");
	open_dom(_metadata, &d);
	a = calloc(n, sizeof(*a));
	ASSERT_NE(NULL, a);
	b = new_handle(_metadata, d.fd);
	t = take(_metadata, d.fd, 1);		/* t: d */
	take(_metadata, b, n + 1);		/* t+1 .. t+n+1: b */
	for (int i = 0; i < n; i++) {
		memset(&a[i], 0, sizeof(a[i]));
		a[i].fd = b;
		a[i].cmd = ORDSCHED_IOC_RING_WAIT;
		a[i].arg.rw.ticket = t + 1 + i;
		a[i].arg.rw.deadline_ns = in_ms(5 * LONG_MS);
		async_start(_metadata, &a[i]);
	}
	sleepers(d.fd, n);
	usleep(100 * 1000);
	EXPECT_EQ(-EBUSY, dev_wait(b, t + n + 1, in_ms(LONG_MS)));
	rw = (struct ordsched_ring_wait){
		.ticket = t + n + 1, .deadline_ns = in_ms(LONG_MS),
	};
	EXPECT_EQ(-EBUSY, dev_ioctl(b, ORDSCHED_IOC_RING_WAIT, &rw));
	/* "A wait whose deadline is in the past answers it too" */
	EXPECT_EQ(-EBUSY, dev_wait(b, t + n + 1, 0));
	rw.deadline_ns = 0;
	EXPECT_EQ(-EBUSY, dev_ioctl(b, ORDSCHED_IOC_RING_WAIT, &rw));
	/* let them through, one turn at a time */
	ASSERT_EQ(0, dev_complete(d.fd, t, 1));
	for (int i = 0; i < n; i++) {
		if (!async_join(&a[i], 2 * LONG_MS) || a[i].ret)
			break;
		ok++;
		ASSERT_EQ(0, dev_complete(b, t + 1 + i, 1));
	}
	EXPECT_EQ(n, ok) TH_LOG("ticket %llu: %d", (unsigned long long)(t + 1 + ok),
				a[ok < n ? ok : 0].ret);
}

struct hammer {
	int fd;
	__u64 ticket;
	int stop;
	__u64 tries, busy;
};

static void *hammer_main(void *arg)
{
	struct hammer *h = arg;

	while (!__atomic_load_n(&h->stop, __ATOMIC_RELAXED)) {
		int ret = dev_wait(h->fd, h->ticket, in_ms(2));

		h->tries++;
		if (ret == -EBUSY)
			h->busy++;
	}
	return NULL;
}

/*
 * ordsched.h:127-132 "EBUSY: ... when the wait begins ...: never once it
 * slept"; ordsched.h:212-218 the wake-up at a turn "also wakes the
 * waiters of the next ticket ... then asleep again": 128 sleepers woken
 * ahead while another thread keeps trying to wait on the same handle;
 * none of the 128 may answer EBUSY. Catching a race is luck; passing is
 * not.
 */
TEST_F_TIMEOUT(dom, ebusy_never_once_slept, 90)
{
	const int n = ORDSCHED_MAX_WAITERS_HANDLE, rounds = 2;
	struct async *a;
	struct hammer h = { 0 };
	pthread_t hth;
	struct dom d;
	int b, c, bad = 0;
	__u64 t;

	open_dom(_metadata, &d);
	a = calloc(n, sizeof(*a));
	ASSERT_NE(NULL, a);
	b = new_handle(_metadata, d.fd);
	c = new_handle(_metadata, d.fd);
	for (int r = 0; r < rounds; r++) {
		t = take(_metadata, d.fd, 1);	/* t: d */
		take(_metadata, c, 1);		/* t+1: c */
		take(_metadata, b, 2);		/* t+2, t+3: b */
		struct ordsched_stats st;

		stats(_metadata, d.fd, &st);
		for (int i = 0; i < n; i++)
			start_wait(_metadata, &a[i], b, t + 2, in_ms(4 * LONG_MS));
		sleepers(d.fd, st.waits + n);
		h.fd = b;
		h.ticket = t + 3;
		h.stop = 0;
		ASSERT_EQ(0, pthread_create(&hth, NULL, hammer_main, &h));
		usleep(20 * 1000);
		/* t+1's turn: t+2's sleepers are woken ahead */
		ASSERT_EQ(0, dev_complete(d.fd, t, 1));
		usleep(200 * 1000);
		ASSERT_EQ(0, dev_complete(c, t + 1, 1));
		for (int i = 0; i < n; i++) {
			ASSERT_TRUE(async_join(&a[i], 5 * LONG_MS));
			if (a[i].ret)
				bad++;
			if (a[i].ret && bad < 4)
				TH_LOG("round %d sleeper %d: %d", r, i, a[i].ret);
		}
		__atomic_store_n(&h.stop, 1, __ATOMIC_RELAXED);
		pthread_join(hth, NULL);
		ASSERT_EQ(0, dev_complete(b, t + 2, 2));
	}
	EXPECT_EQ(0, bad);
	TH_LOG("other waits: %llu tried, %llu EBUSY", (unsigned long long)h.tries,
	       (unsigned long long)h.busy);
}

TEST_HARNESS_MAIN
