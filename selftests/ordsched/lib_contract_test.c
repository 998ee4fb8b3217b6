// SPDX-License-Identifier: GPL-2.0
/*
 * libordsched as a client that knows only its public headers sees it:
 * every test checks one promise (or a small group) written in
 * userspace/include/libordsched.h (h:LINE), uapi/linux/ordsched.h (u:LINE),
 * uapi/linux/ordsched_ring.h (r:LINE) or userspace/man/libordsched.3
 * (man), quoted above it. The fixture "lc" runs each case on both paths:
 * the shared ring (the default) and ORDSCHED_OPEN_NO_RING.
 *
 * Nothing here passes or fails on timing: waits that must time out use
 * short deadlines and only the "never early" side is checked; waits that
 * must end are bounded by deadlines of several seconds.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/ordsched.h>
#include <linux/ordsched_ring.h>

#include "libordsched.h"
#include "kselftest_harness.h"

#define DEV "/dev/" ORDSCHED_DEVICE_NAME
#define MS 1000000ULL
#define SEC 1000000000ULL
#define LONG_NS (10 * SEC)	/* a deadline that must never be reached */

/* SKIP(), unless an EXPECT already failed: SKIP() would make that a skip. */
#define SKIP_UNLESS_FAILED(statement, fmt, ...) do {			\
	if (_metadata->exit_code == KSFT_FAIL) {			\
		statement;						\
	}								\
	SKIP(statement, fmt, ##__VA_ARGS__);				\
} while (0)

extern char **environ;

/* ------------------------------------------------------------------ */
/* Helpers                                                             */

static uint64_t mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * SEC + ts.tv_nsec;
}

static int raw_api(int fd, struct ordsched_api *api)
{
	memset(api, 0, sizeof(*api));
	api->version = ORDSCHED_API_VERSION;
	return ioctl(fd, ORDSCHED_IOC_API, api) ? -errno : 0;
}

static int kernel_has_ring(void)
{
	static int cached = -1;

	if (cached < 0) {
		struct ordsched_api api;
		int fd = open(DEV, O_RDWR | O_CLOEXEC);

		cached = fd >= 0 && !raw_api(fd, &api) &&
			 (api.features & ORDSCHED_FEAT_RING);
		if (fd >= 0)
			close(fd);
	}
	return cached;
}

/* A fresh descriptor of /dev/ordsched, or -errno. */
static int raw_open(void)
{
	int fd = open(DEV, O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* A raw ORDSCHED_IOC_NEW_HANDLE on @os's domain: a descriptor or -errno. */
static int raw_new_handle(int fd)
{
	struct ordsched_new_handle nh = { .flags = ORDSCHED_HANDLE_CLOEXEC };
	int ret = ioctl(fd, ORDSCHED_IOC_NEW_HANDLE, &nh);

	return ret < 0 ? -errno : ret;
}

static int fd_is_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0 || errno != EBADF;
}

/*
 * The window of @os's domain: on the ring, ordsched_status.window (r:164
 * "also the window ... and ordsched_status.window of a ring domain");
 * otherwise ordsched_api.window.
 */
static uint32_t domain_window(struct ordsched *os)
{
	const struct ordsched_status *st;
	uint32_t w;

	if (!ordsched_uses_ring(os))
		return ordsched_api(os)->window;
	st = mmap(NULL, ordsched_api(os)->status_size, PROT_READ, MAP_SHARED,
		  ordsched_fd(os), 0);
	if (st == MAP_FAILED)
		return 0;
	w = st->window;
	munmap((void *)st, ordsched_api(os)->status_size);
	return w;
}

static struct ordsched_stats stats_of(struct ordsched *os)
{
	struct ordsched_stats st;

	memset(&st, 0, sizeof(st));
	if (ordsched_stats(os, &st))
		st.handles = ~0U;
	return st;
}

/*
 * Until the domain has counted @want waits that slept (at most 5 s), then
 * a little longer so that the sleepers are in the queue. False if they
 * never all slept: the case would test a wake-up that no sleeper needed.
 */
static bool sleepers_reach(struct ordsched *os, uint64_t want)
{
	uint64_t t0 = mono();
	bool reached = false;

	while (mono() - t0 < 5 * SEC) {
		reached = stats_of(os).waits >= want;
		if (reached)
			break;
		usleep(5000);
	}
	usleep(50 * 1000);
	return reached;
}

/* A thread that waits (or polls) for a ticket. */
enum { W_WAIT, W_POLL, W_EPOLL, W_CWAIT };

struct waiter {
	pthread_t th;
	struct ordsched *os;
	uint64_t ticket;	/* W_CWAIT: the ticket to complete */
	uint64_t next;		/* W_CWAIT: the ticket to wait for */
	uint64_t deadline;
	int kind;
	int complete_after;	/* complete @ticket when the wait gives 0 */
	int fd;			/* W_POLL, W_EPOLL: this descriptor if >= 0 */
	int rc;			/* ordsched_wait's, or poll's revents */
	int rc2;		/* ordsched_complete's after the wait */
	uint64_t end;		/* mono() when it returned */
	atomic_int done;
};

static void *waiter_fn(void *p)
{
	struct waiter *w = p;

	switch (w->kind) {
	case W_WAIT:
		w->rc = ordsched_wait(w->os, w->ticket, w->deadline);
		break;
	case W_CWAIT:
		w->rc = ordsched_complete_wait(w->os, &w->ticket, w->next,
					       w->deadline);
		break;
	case W_POLL: {
		struct pollfd pfd = { .events = POLLIN };
		int n;

		pfd.fd = w->fd >= 0 ? w->fd : ordsched_fd(w->os);
		n = poll(&pfd, 1, (int)((w->deadline - mono()) / MS));

		w->rc = n == 1 ? pfd.revents : n < 0 ? -errno : 0;
		break;
	}
	case W_EPOLL: {
		struct epoll_event ev = { .events = EPOLLIN };
		int ep = epoll_create1(EPOLL_CLOEXEC);
		int n;

		epoll_ctl(ep, EPOLL_CTL_ADD,
			  w->fd >= 0 ? w->fd : ordsched_fd(w->os), &ev);
		n = epoll_wait(ep, &ev, 1, (int)((w->deadline - mono()) / MS));
		w->rc = n == 1 ? (int)ev.events : n < 0 ? -errno : 0;
		close(ep);
		break;
	}
	}
	w->end = mono();
	if (w->complete_after && w->rc == 0)
		w->rc2 = ordsched_complete(w->os, w->ticket);
	atomic_store(&w->done, 1);
	return NULL;
}

static int waiter_start(struct waiter *w, int kind, struct ordsched *os,
			uint64_t ticket, uint64_t deadline)
{
	w->kind = kind;
	w->os = os;
	w->ticket = ticket;
	w->deadline = deadline;
	w->rc = -9999;
	w->rc2 = -9999;
	w->fd = -1;
	w->complete_after = 0;
	atomic_store(&w->done, 0);
	return pthread_create(&w->th, NULL, waiter_fn, w);
}

/*
 * After joining a waiter that must have been woken: it returned well
 * before its deadline. A lost wake-up ends at the deadline, where the
 * kernel looks at the turn once more and answers as if woken (0, POLLIN,
 * -EALREADY): its result alone cannot tell.
 */
#define EXPECT_WOKEN(w)							\
	EXPECT_GT((w).deadline, (w).end + SEC)				\
		TH_LOG("returned %lld ms before its deadline",		\
		       (long long)((w).deadline - (w).end) / 1000000)

/* Joins @w within @secs; -1 if it did not return (it is left running). */
static int waiter_join(struct waiter *w, unsigned int secs)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += secs;
	return pthread_timedjoin_np(w->th, NULL, &ts) ? -1 : 0;
}

/*
 * Counting system calls: the body runs in a child traced by the caller;
 * MARK() separates the measured steps, counts[i] is the number of system
 * calls the child's main thread made between mark i and mark i + 1.
 */
#define MARK() syscall(SYS_getppid)
#define MAX_MARKS 16

static int count_syscalls(int (*fn)(void *), void *arg, long *counts,
			  int *nmarks)
{
	int status, marks = 0;
	pid_t pid;

	memset(counts, 0, sizeof(*counts) * MAX_MARKS);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		raise(SIGSTOP);
		_exit(fn(arg));
	}
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))
		return -1;
	ptrace(PTRACE_SETOPTIONS, pid, 0,
	       (void *)(long)(PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL));
	ptrace(PTRACE_SYSCALL, pid, 0, 0);
	for (;;) {
		int sig = 0;

		if (waitpid(pid, &status, 0) != pid)
			return -1;
		if (WIFEXITED(status))
			break;
		if (WIFSIGNALED(status))
			return -1;
		if (WSTOPSIG(status) == (SIGTRAP | 0x80)) {
			struct __ptrace_syscall_info info;

			memset(&info, 0, sizeof(info));
			ptrace(PTRACE_GET_SYSCALL_INFO, pid,
			       (void *)sizeof(info), &info);
			if (info.op == PTRACE_SYSCALL_INFO_ENTRY) {
				if (info.entry.nr == SYS_getppid)
					marks++;
				else if (marks >= 1 && marks <= MAX_MARKS)
					counts[marks - 1]++;
			}
		} else {
			sig = WSTOPSIG(status);
		}
		ptrace(PTRACE_SYSCALL, pid, 0, (void *)(long)sig);
	}
	*nmarks = marks;
	return WEXITSTATUS(status);
}

/* Re-executes this program as "--probe ARGS..." with ORDSCHED_NO_RING=@env
 * (NULL: unset); returns its exit status or -1. */
static int run_probe(const char *env, const char *const *args)
{
	char *envp[256], envbuf[128];
	char *argv[8];
	int n = 0, status, i;
	pid_t pid;

	for (i = 0; environ[i] && n < 250; i++)
		if (strncmp(environ[i], "ORDSCHED_NO_RING=", 17))
			envp[n++] = environ[i];
	if (env) {
		snprintf(envbuf, sizeof(envbuf), "ORDSCHED_NO_RING=%s", env);
		envp[n++] = envbuf;
	}
	envp[n] = NULL;
	argv[0] = "lib_contract_test";
	argv[1] = "--probe";
	for (i = 0; args[i] && i < 5; i++)
		argv[i + 2] = (char *)args[i];
	argv[i + 2] = NULL;
	pid = fork();
	if (pid == 0) {
		execve("/proc/self/exe", argv, envp);
		_exit(120);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * The probe side (argv[1] == "--probe"):
 *   uses          bit 0: ordsched_open() on the ring, bit 1: its
 *                 ordsched_new_handle(), bit 2: ordsched_from_fd() of a
 *                 fresh descriptor; 64: an operation failed
 *   pass first|new  open, then hand the first handle's descriptor (first)
 *                 or a new handle's (new) to "adopt" with ORDSCHED_NO_RING
 *                 unset; its status
 *   adopt FD      ordsched_uses_ring() of ordsched_from_fd(FD); 64 failed
 */
static int probe_ops(struct ordsched *os)
{
	uint64_t t;

	if (ordsched_take(os, &t) || ordsched_wait(os, t, mono() + LONG_NS) ||
	    ordsched_complete(os, t))
		return 64;
	return 0;
}

static int probe(int argc, char **argv)
{
	struct ordsched *a, *h;
	int r = 0, fd;

	if (argc >= 3 && !strcmp(argv[2], "uses")) {
		if (ordsched_open(&a) || ordsched_new_handle(a, &h))
			return 64;
		r |= ordsched_uses_ring(a) ? 1 : 0;
		r |= ordsched_uses_ring(h) ? 2 : 0;
		r |= probe_ops(a) | probe_ops(h);
		fd = raw_open();
		if (fd < 0 || ordsched_from_fd(fd, &h))
			return 64;
		r |= ordsched_uses_ring(h) ? 4 : 0;
		r |= probe_ops(h);
		return r;
	}
	if (argc >= 4 && !strcmp(argv[2], "pass")) {
		char buf[16];
		const char *args[3] = { "adopt", buf, NULL };

		if (ordsched_open(&a))
			return 64;
		if (!strcmp(argv[3], "new")) {
			if (ordsched_new_handle(a, &h))
				return 64;
			fd = dup(ordsched_fd(h));
		} else {
			fd = dup(ordsched_fd(a));
		}
		snprintf(buf, sizeof(buf), "%d", fd);
		return run_probe(NULL, args);
	}
	if (argc >= 4 && !strcmp(argv[2], "adopt")) {
		if (ordsched_from_fd(atoi(argv[3]), &a))
			return 64;
		return ordsched_uses_ring(a) | probe_ops(a);
	}
	return 127;
}

/* ------------------------------------------------------------------ */
/* The fixture: two handles a and b on one domain, on either path.     */

FIXTURE(lc) {
	struct ordsched *a, *b;
	int ring;
};

FIXTURE_VARIANT(lc) {
	unsigned int flags;
};

FIXTURE_VARIANT_ADD(lc, ring) { .flags = 0 };
FIXTURE_VARIANT_ADD(lc, ioctl) { .flags = ORDSCHED_OPEN_NO_RING };

FIXTURE_SETUP(lc)
{
	if (!variant->flags && !kernel_has_ring())
		SKIP(return, "the kernel does not offer ORDSCHED_FEAT_RING");
	ASSERT_EQ(0, ordsched_open_flags(&self->a, variant->flags));
	ASSERT_EQ(0, ordsched_new_handle(self->a, &self->b));
	self->ring = ordsched_uses_ring(self->a);
}

FIXTURE_TEARDOWN(lc)
{
	ordsched_close(self->b);
	ordsched_close(self->a);
}

#define TAKE(os, tp) ASSERT_EQ(0, ordsched_take((os), (tp)))

/* ------------------------------------------------------------------ */
/* ordsched_open(), _open_flags(), paths                               */

/*
 * h:28 "When the kernel offers ORDSCHED_FEAT_RING, a domain that
 * ordsched_open() creates is a ring domain"; h:37 "ordsched_uses_ring()
 * tells which path a handle takes"; h:87 "With ORDSCHED_OPEN_NO_RING the
 * new domain never gets a ring"; h:142 new handle "takes the ring when
 * @os does"; man: new_handle "gives the new handle the path of the old one".
 */
TEST_F(lc, paths)
{
	struct ordsched *h;

	ASSERT_EQ(!variant->flags && kernel_has_ring(), self->ring);
	EXPECT_EQ(self->ring, ordsched_uses_ring(self->b));
	ASSERT_EQ(0, ordsched_new_handle(self->b, &h));
	EXPECT_EQ(self->ring, ordsched_uses_ring(h));
	ordsched_close(h);
}

/* h:94 "Return: as ordsched_open(); -EINVAL for an unknown flag." */
TEST(open_flags_unknown)
{
	unsigned int bad[] = { 2, 4, 0x80000000U, ~0U, ORDSCHED_OPEN_NO_RING | 2 };
	struct ordsched *os;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		os = NULL;
		EXPECT_EQ(-EINVAL, ordsched_open_flags(&os, bad[i]))
			TH_LOG("flags %#x", bad[i]);
	}
}

/*
 * The LIBORDSCHED_1.0 versions of ordsched_open() and ordsched_from_fd(),
 * what a program linked before 1.2 calls (handle.c): the names they have
 * in the objects, as this static build cannot bind a non-default version.
 */
int ordsched_open_1_0(struct ordsched **os);
int ordsched_from_fd_1_0(int fd, struct ordsched **os);

/*
 * h: "A program linked against a libordsched older than 1.2 calls the
 * LIBORDSCHED_1.0 versions ..., which act as with ORDSCHED_OPEN_NO_RING":
 * one written before the ring relies on real batches, which a ring domain
 * answers with EINVAL.
 */
TEST(v1_0_binaries_keep_the_ioctl_path)
{
	struct ordsched *os = NULL, *a = NULL, *b = NULL;
	uint64_t first;
	int fd;

	ASSERT_EQ(0, ordsched_open_1_0(&os));
	EXPECT_EQ(0, ordsched_uses_ring(os));
	EXPECT_EQ(0, ordsched_take_batch(os, 8, &first));
	EXPECT_EQ(0, ordsched_complete_batch(os, first, 8));
	ordsched_close(os);
	/*
	 * A fresh descriptor adopted by 1.0 does not get a ring either, nor
	 * from a program built since that adopts it next, before 1.0's
	 * first take ("unless another program made them ring domains
	 * first": none did).
	 */
	fd = open(DEV, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ordsched_from_fd_1_0(fd, &a));
	EXPECT_EQ(0, ordsched_uses_ring(a));
	ASSERT_EQ(0, ordsched_from_fd(dup(fd), &b));
	EXPECT_EQ(0, ordsched_uses_ring(b));
	EXPECT_EQ(0, ordsched_take_batch(a, 8, &first));
	EXPECT_EQ(0, ordsched_complete_batch(a, first, 8));
	ordsched_close(b);
	ordsched_close(a);
	/* Built since, the same calls take the ring where there is one. */
	b = NULL;
	ASSERT_EQ(0, ordsched_open(&b));
	EXPECT_EQ(kernel_has_ring() && !getenv("ORDSCHED_NO_RING"),
		  ordsched_uses_ring(b));
	ordsched_close(b);
}

/*
 * h:72 "-ENOENT when the module is not loaded; ... or an error of open(2)":
 * without the device node (a private /dev), open(2) itself says ENOENT.
 */
TEST(open_enoent)
{
	struct ordsched *os;

	if (unshare(CLONE_NEWNS))
		SKIP(return, "unshare(CLONE_NEWNS): %s", strerror(errno));
	ASSERT_EQ(0, mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
	ASSERT_EQ(0, mount("none", "/dev", "tmpfs", 0, NULL));
	EXPECT_EQ(-ENOENT, ordsched_open(&os));
	EXPECT_EQ(-ENOENT, ordsched_open_flags(&os, ORDSCHED_OPEN_NO_RING));
}

/*
 * h:74 ordsched_open: "or an error of open(2)"; h:149 new_handle:
 * "Return: 0; -EMFILE, -ENFILE; ..." with no descriptor left.
 */
TEST_F(lc, emfile)
{
	struct rlimit rl = { 64, 64 };
	struct ordsched *os = NULL;
	int fd, n = 0;

	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &rl));
	while (n < 100 && (fd = open("/dev/null", O_RDONLY)) >= 0)
		n++;
	ASSERT_EQ(EMFILE, errno);
	EXPECT_EQ(-EMFILE, ordsched_new_handle(self->a, &os));
	EXPECT_EQ(-EMFILE, ordsched_open(&os));
	EXPECT_EQ(-EMFILE, ordsched_open_flags(&os, ORDSCHED_OPEN_NO_RING));
}

/*
 * h:187 ordsched_api: "the limits (window, max_batch, max_held), the
 * features and the status page layout" "what the kernel reported in the
 * handshake"; "On a handle that uses the ring, window is not the
 * handshake's but the ring's number of slots".
 */
TEST_F(lc, api_is_handshake)
{
	const struct ordsched_api *api = ordsched_api(self->a);
	struct ordsched_api k;

	ASSERT_NE(NULL, api);
	ASSERT_EQ(0, raw_api(ordsched_fd(self->b), &k));
	EXPECT_EQ(ORDSCHED_API_VERSION, api->version);
	EXPECT_EQ(k.features, api->features);
	EXPECT_EQ(k.ioctls, api->ioctls);
	/* The harness's EXPECT_*() is an if of its own: braces. */
	if (self->ring) {
		EXPECT_EQ(domain_window(self->a), api->window);
	} else {
		EXPECT_EQ(k.window, api->window);
	}
	EXPECT_EQ(k.max_batch, api->max_batch);
	EXPECT_EQ(k.max_held, api->max_held);
	EXPECT_EQ(k.status_size, api->status_size);
	EXPECT_EQ(k.status_tail_offset, api->status_tail_offset);
	EXPECT_EQ(k.status_head_offset, api->status_head_offset);
	EXPECT_NE(0, api->max_batch);
	EXPECT_NE(0, api->window);
	EXPECT_NE(0, api->max_held);
}

/*
 * h:46 "Every function returning int returns 0 (or a non-negative value)
 * on success and a negative errno on failure; none sets errno."
 */
#define ERRNO_KEPT(call, want) do {					\
	errno = 4242;							\
	EXPECT_EQ((want), (call));					\
	EXPECT_EQ(4242, errno) TH_LOG("%s changed errno", #call);	\
} while (0)

TEST_F(lc, errno_untouched)
{
	struct ordsched *os = NULL;
	struct ordsched_stats st;
	uint64_t t0, t1, t2, done;
	int fds[2];

	TAKE(self->a, &done);
	ASSERT_EQ(0, ordsched_complete(self->a, done));
	ERRNO_KEPT(ordsched_take(self->b, &t0), 0);
	ERRNO_KEPT(ordsched_take(self->a, &t1), 0);
	ERRNO_KEPT(ordsched_take(self->a, &t2), 0);
	ERRNO_KEPT(ordsched_wait(self->a, t1, 0), -ETIMEDOUT);
	ERRNO_KEPT(ordsched_wait(self->a, t1, mono() + 20 * MS), -ETIMEDOUT);
	ERRNO_KEPT(ordsched_wait(self->a, t0, 0), -EPERM);
	ERRNO_KEPT(ordsched_wait(self->a, done, 0), -EALREADY);
	ERRNO_KEPT(ordsched_wait(self->a, t2 + 1000, 0), -EINVAL);
	ERRNO_KEPT(ordsched_complete(self->a, t0), -EPERM);
	ERRNO_KEPT(ordsched_complete(self->a, done), -EALREADY);
	ERRNO_KEPT(ordsched_trash(self->a, t2 + 1000), -EINVAL);
	ERRNO_KEPT(ordsched_take_batch(self->a, 0, &t0), -EINVAL);
	ERRNO_KEPT(ordsched_complete_batch(self->a, t1, 0), -EINVAL);
	ERRNO_KEPT(ordsched_trash_batch(self->a, done, 1), -EALREADY);
	ERRNO_KEPT(ordsched_stats(self->a, &st), 0);
	ERRNO_KEPT(ordsched_open_flags(&os, 0x100), -EINVAL);
	ASSERT_EQ(0, pipe(fds));
	close(fds[1]);
	ERRNO_KEPT(ordsched_from_fd(fds[0], &os), -ENOTTY);
	ERRNO_KEPT(ordsched_complete(self->b, t0), 0);
	ERRNO_KEPT(ordsched_wait(self->a, t1, mono() + LONG_NS), 0);
	ERRNO_KEPT(ordsched_is_turn(self->a, t1), 1);
	ERRNO_KEPT(ordsched_complete_batch(self->a, t1, 2), 0);
	ERRNO_KEPT(ordsched_new_handle(self->a, &os), 0);
	ordsched_close(os);
	ERRNO_KEPT(ordsched_open_flags(&os, variant->flags), 0);
	ordsched_close(os);
}

/* ------------------------------------------------------------------ */
/* Take, wait, complete: the basic promises                            */

/*
 * h:6-9 tickets in order, a ticket's turn when every earlier one is
 * completed or trashed; h:263 is_turn "1 if @ticket is the tail, 0 if
 * not" (@os: "a handle of the domain"); h:341 tail "the oldest ticket not
 * completed or trashed"; h:353 head "the next ticket the domain will hand
 * out"; h:249 wait "0 when it is @ticket's turn"; u:119 "a deadline in
 * the past only checks".
 */
TEST_F(lc, order_basics)
{
	uint64_t h0 = ordsched_head(self->a), t0, t1, t2;

	EXPECT_EQ(h0, ordsched_tail(self->a));
	TAKE(self->b, &t0);
	TAKE(self->a, &t1);
	TAKE(self->a, &t2);
	EXPECT_EQ(h0, t0);
	EXPECT_EQ(t0 + 1, t1);
	EXPECT_EQ(t1 + 1, t2);
	EXPECT_EQ(t2 + 1, ordsched_head(self->a));
	EXPECT_EQ(t2 + 1, ordsched_head(self->b));
	EXPECT_EQ(t0, ordsched_tail(self->a));
	EXPECT_EQ(1, ordsched_is_turn(self->a, t0));
	EXPECT_EQ(1, ordsched_is_turn(self->b, t0));
	EXPECT_EQ(0, ordsched_is_turn(self->a, t1));
	EXPECT_EQ(0, ordsched_is_turn(self->a, t2 + 1));
	EXPECT_EQ(0, ordsched_is_turn(self->a, ORDSCHED_NO_TICKET));
	EXPECT_EQ(0, ordsched_wait(self->b, t0, 0));
	EXPECT_EQ(0, ordsched_wait(self->b, t0, ORDSCHED_NO_DEADLINE));
	EXPECT_EQ(-ETIMEDOUT, ordsched_wait(self->a, t1, 0));
	EXPECT_EQ(0, ordsched_complete(self->b, t0));
	EXPECT_EQ(t1, ordsched_tail(self->a));
	EXPECT_EQ(0, ordsched_is_turn(self->a, t0));
	EXPECT_EQ(1, ordsched_is_turn(self->b, t1));
	EXPECT_EQ(0, ordsched_wait(self->a, t1, 0));
	EXPECT_EQ(0, ordsched_trash(self->a, t1));
	EXPECT_EQ(0, ordsched_wait(self->a, t2, 0));
	EXPECT_EQ(0, ordsched_complete(self->a, t2));
	EXPECT_EQ(t2 + 1, ordsched_tail(self->a));
	EXPECT_EQ(t2 + 1, ordsched_head(self->a));
}

/*
 * h:249-252 wait: "-EPERM when another handle holds @ticket; -EALREADY
 * when it was completed or trashed ...; -EINVAL when it was never handed
 * out"; h:246 "On the ring the spin answers for any handle's ticket, from
 * the ring's slot words (the same answers as the kernel's)".
 */
TEST_F(lc, wait_errors)
{
	uint64_t t0, t1, t2, t3;

	TAKE(self->b, &t0);
	TAKE(self->a, &t1);
	TAKE(self->a, &t2);
	TAKE(self->b, &t3);
	/* Another handle's ticket, at its turn and not. */
	EXPECT_EQ(-EPERM, ordsched_wait(self->a, t0, 0));
	EXPECT_EQ(-EPERM, ordsched_wait(self->a, t0, mono() + LONG_NS));
	EXPECT_EQ(-EPERM, ordsched_wait(self->a, t3, 0));
	EXPECT_EQ(-EPERM, ordsched_wait(self->a, t3, mono() + LONG_NS));
	EXPECT_EQ(-EPERM, ordsched_wait(self->b, t1, mono() + LONG_NS));
	/* Never handed out. */
	EXPECT_EQ(-EINVAL, ordsched_wait(self->a, t3 + 1, 0));
	EXPECT_EQ(-EINVAL, ordsched_wait(self->a, t3 + 1, mono() + LONG_NS));
	EXPECT_EQ(-EINVAL, ordsched_wait(self->a, t3 + 100000, 0));
	EXPECT_EQ(-EINVAL, ordsched_wait(self->a, ORDSCHED_NO_TICKET, 0));
	/* Completed early, trashed early: not passed by the tail yet. */
	ASSERT_EQ(0, ordsched_complete(self->a, t1));
	ASSERT_EQ(0, ordsched_trash(self->a, t2));
	EXPECT_EQ(-EALREADY, ordsched_wait(self->a, t1, 0));
	EXPECT_EQ(-EALREADY, ordsched_wait(self->a, t2, mono() + LONG_NS));
	EXPECT_EQ(t0, ordsched_tail(self->a));
	/* The tail passes them without a stop. */
	ASSERT_EQ(0, ordsched_complete(self->b, t0));
	EXPECT_EQ(t3, ordsched_tail(self->a));
	EXPECT_EQ(-EALREADY, ordsched_wait(self->b, t0, 0));
	EXPECT_EQ(-EALREADY, ordsched_wait(self->a, t1, mono() + LONG_NS));
	EXPECT_EQ(0, ordsched_wait(self->b, t3, 0));
}

/*
 * h:48 "Deadlines are absolute CLOCK_MONOTONIC times in nanoseconds";
 * h:249 "-ETIMEDOUT": never before the deadline, with any spin setting
 * (h:195 "@spins: ... 0 never spins").
 */
TEST_F(lc, wait_timeout_never_early)
{
	unsigned int spins[] = { ORDSCHED_DEFAULT_SPIN, 0, 1, 100000 };
	uint64_t t0, t1, dl;
	unsigned int i;

	TAKE(self->b, &t0);
	TAKE(self->a, &t1);
	for (i = 0; i < sizeof(spins) / sizeof(spins[0]); i++) {
		ordsched_set_spin(self->a, spins[i]);
		dl = ordsched_now() + (50 + 50 * i) * MS;
		EXPECT_EQ(-ETIMEDOUT, ordsched_wait(self->a, t1, dl));
		EXPECT_LE(dl, mono()) TH_LOG("spins %u: early", spins[i]);
		EXPECT_LE(dl, ordsched_now());
		dl = mono() + 30 * MS;
		EXPECT_EQ(-ETIMEDOUT, ordsched_wait(self->a, t1, dl));
		EXPECT_LE(dl, mono());
	}
	/* A deadline in the past only checks. */
	EXPECT_EQ(-ETIMEDOUT, ordsched_wait(self->a, t1, 1));
	EXPECT_EQ(-ETIMEDOUT, ordsched_wait(self->a, t1, mono() - SEC));
}

/*
 * h:17 + h:32: a sleeping wait returns 0 when the turn is handed over,
 * whichever handle completes or trashes, at any spin setting; h:48
 * "Deadlines are absolute CLOCK_MONOTONIC times ..., ORDSCHED_NO_DEADLINE
 * for none": far-future deadlines (2^63, UINT64_MAX - 1) are deadlines
 * that do not come, not ones that passed.
 */
TEST_F(lc, wait_wakes_at_turn)
{
	const uint64_t far[] = { 0, ORDSCHED_NO_DEADLINE, ORDSCHED_NO_DEADLINE - 1,
				 1ULL << 63, (1ULL << 63) - 1, 1ULL << 62 };
	struct waiter w;
	uint64_t t0, t1, base, dl;
	int i;

	for (i = 0; i < 12; i++) {
		ordsched_set_spin(self->a, i & 1 ? 0 : ORDSCHED_DEFAULT_SPIN);
		TAKE(self->b, &t0);
		TAKE(self->a, &t1);
		base = stats_of(self->a).waits;
		dl = far[i % 6] ?: mono() + LONG_NS;
		memset(&w, 0, sizeof(w));
		w.next = t1;
		ASSERT_EQ(0, waiter_start(&w, i >= 6 ? W_CWAIT : W_WAIT, self->a,
					  i >= 6 ? ORDSCHED_NO_TICKET : t1, dl));
		EXPECT_TRUE(sleepers_reach(self->a, base + 1));
		ASSERT_EQ(0, i & 2 ? ordsched_trash(self->b, t0) :
				     ordsched_complete(self->b, t0));
		ASSERT_EQ(0, waiter_join(&w, 15));
		EXPECT_WOKEN(w);
		EXPECT_EQ(0, w.rc) TH_LOG("round %d, deadline %#llx", i,
					   (unsigned long long)dl);
		ASSERT_EQ(0, ordsched_complete(self->a, t1));
	}
}

/*
 * h:250 "-EALREADY when it was completed or trashed (also during the
 * wait)".
 */
TEST_F(lc, wait_ealready_during)
{
	struct waiter w;
	uint64_t t0, t1, base;
	int i;

	TAKE(self->b, &t0);
	for (i = 0; i < 2; i++) {
		TAKE(self->a, &t1);
		base = stats_of(self->a).waits;
		ASSERT_EQ(0, waiter_start(&w, W_WAIT, self->a, t1,
					  mono() + LONG_NS));
		EXPECT_TRUE(sleepers_reach(self->a, base + 1));
		ASSERT_EQ(0, i ? ordsched_trash(self->a, t1) :
				 ordsched_complete(self->a, t1));
		ASSERT_EQ(0, waiter_join(&w, 15));
		EXPECT_WOKEN(w);
		EXPECT_EQ(-EALREADY, w.rc) TH_LOG("%s", i ? "trash" : "complete");
	}
}

static atomic_int sig_count;

static void on_sig(int sig)
{
	atomic_fetch_add(&sig_count, 1);
}

static void set_handler(int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sig;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
}

/* Signals @w's thread every 20 ms until it returns or @until passes. */
static void pester(struct waiter *w, uint64_t until)
{
	while (!atomic_load(&w->done) && mono() < until) {
		pthread_kill(w->th, SIGUSR1);
		usleep(20 * 1000);
	}
}

/* h:250 "-EINTR when a signal handler without SA_RESTART ran". */
TEST_F(lc, wait_eintr)
{
	struct waiter w;
	uint64_t t0, t1;
	int kind;

	set_handler(0);
	TAKE(self->b, &t0);
	for (kind = 0; kind < 2; kind++) {
		TAKE(self->a, &t1);
		w.next = t1;
		ASSERT_EQ(0, waiter_start(&w, kind ? W_CWAIT : W_WAIT, self->a,
					  kind ? ORDSCHED_NO_TICKET : t1,
					  mono() + LONG_NS));
		usleep(50 * 1000);
		pester(&w, mono() + 12 * SEC);
		ASSERT_EQ(0, waiter_join(&w, 15));
		EXPECT_EQ(-EINTR, w.rc) TH_LOG("%s",
			kind ? "complete_wait" : "wait");
		EXPECT_LT(0, atomic_load(&sig_count));
	}
}

/*
 * h:250 EINTR only "when a signal handler without SA_RESTART ran"; with
 * SA_RESTART the wait goes on, and u:124 "the deadline being absolute, a
 * restart does not stretch it".
 */
TEST_F(lc, wait_sa_restart)
{
	uint64_t t0, t1, dl, wait_ns = 500 * MS;
	struct waiter w;

	set_handler(SA_RESTART);
	TAKE(self->b, &t0);
	TAKE(self->a, &t1);
	/* A round that no signal reached in time proves nothing: again. */
	for (int round = 0; round < 4; round++, wait_ns *= 2) {
		atomic_store(&sig_count, 0);
		dl = mono() + wait_ns;
		ASSERT_EQ(0, waiter_start(&w, W_WAIT, self->a, t1, dl));
		usleep(20 * 1000);
		pester(&w, dl + 8 * SEC);
		ASSERT_EQ(0, waiter_join(&w, 15));
		EXPECT_EQ(-ETIMEDOUT, w.rc);
		EXPECT_LE(dl, w.end);
		EXPECT_GT(dl + 8 * SEC, w.end)
			TH_LOG("restarts stretched the deadline");
		if (atomic_load(&sig_count))
			break;
		TH_LOG("no signal within %llu ms: again",
		       (unsigned long long)(wait_ns / MS));
	}
	EXPECT_LT(0, atomic_load(&sig_count));
}

/*
 * h:252 "-EBUSY when it would sleep while too many threads already sleep
 * on the handle or its domain (ORDSCHED_MAX_WAITERS_HANDLE ...)"; u:131
 * "a wait that finds its turn at once never answers it".
 */
#define NSLEEP ORDSCHED_MAX_WAITERS_HANDLE

TEST_F(lc, wait_ebusy)
{
	static struct waiter w[NSLEEP];
	uint64_t t0, t, extra, base;
	pthread_attr_t attr;
	int i, rc = 0, tries;

	if (domain_window(self->a) < NSLEEP + 4)
		SKIP(return, "window %u", domain_window(self->a));
	ordsched_set_spin(self->a, 0);
	TAKE(self->b, &t0);
	base = stats_of(self->a).waits;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (i = 0; i < NSLEEP; i++) {
		TAKE(self->a, &t);
		w[i].kind = W_WAIT;
		w[i].os = self->a;
		w[i].ticket = t;
		w[i].deadline = mono() + 25 * SEC;
		w[i].complete_after = 1;
		w[i].rc = -9999;
		ASSERT_EQ(0, pthread_create(&w[i].th, &attr, waiter_fn, &w[i]));
	}
	TAKE(self->a, &extra);
	EXPECT_TRUE(sleepers_reach(self->a, base + NSLEEP));
	for (tries = 0; tries < 5; tries++) {
		rc = ordsched_wait(self->a, extra, mono() + 500 * MS);
		if (rc != -ETIMEDOUT)
			break;
	}
	EXPECT_EQ(-EBUSY, rc);
	/* The tail's holder, on the other handle: never -EBUSY. */
	EXPECT_EQ(0, ordsched_wait(self->b, t0, mono() + LONG_NS));
	ASSERT_EQ(0, ordsched_complete(self->b, t0));
	for (i = 0; i < NSLEEP; i++) {
		ASSERT_EQ(0, waiter_join(&w[i], 25));
		EXPECT_WOKEN(w[i]);
		EXPECT_EQ(0, w[i].rc) TH_LOG("waiter %d", i);
		EXPECT_EQ(0, w[i].rc2);
	}
	EXPECT_EQ(0, ordsched_wait(self->a, extra, mono() + LONG_NS));
	EXPECT_EQ(0, ordsched_complete(self->a, extra));
}

/*
 * h:272 "Completing a ticket before its turn is allowed: the tail passes
 * it without a stop, as for a trashed one"; h:280 "-EPERM when another
 * handle holds it; -EALREADY when it was already completed or trashed;
 * -EINVAL when it was never handed out"; h:306 trash "as
 * ordsched_complete()".
 */
TEST_F(lc, complete_trash_errors)
{
	int (*op[2])(struct ordsched *, uint64_t) = {
		ordsched_complete, ordsched_trash };
	uint64_t t0, t1, t2, t3;
	int i;

	for (i = 0; i < 2; i++) {
		TAKE(self->b, &t0);
		TAKE(self->a, &t1);
		TAKE(self->a, &t2);
		TAKE(self->a, &t3);
		EXPECT_EQ(-EPERM, op[i](self->a, t0));
		EXPECT_EQ(-EPERM, op[i](self->b, t1));
		EXPECT_EQ(-EINVAL, op[i](self->a, t3 + 1));
		EXPECT_EQ(-EINVAL, op[i](self->a, t3 + 5000));
		EXPECT_EQ(-EINVAL, op[i](self->a, ORDSCHED_NO_TICKET));
		/* Early, out of turn. */
		EXPECT_EQ(0, op[i](self->a, t2));
		EXPECT_EQ(t0, ordsched_tail(self->a));
		EXPECT_EQ(-EALREADY, op[i](self->a, t2));
		EXPECT_EQ(-EALREADY, op[!i](self->a, t2));
		EXPECT_EQ(0, op[i](self->b, t0));
		EXPECT_EQ(t1, ordsched_tail(self->a));
		EXPECT_EQ(-EALREADY, op[i](self->b, t0));
		EXPECT_EQ(0, op[!i](self->a, t1));
		/* t2 was retired early: the tail passes it. */
		EXPECT_EQ(t3, ordsched_tail(self->a));
		EXPECT_EQ(1, ordsched_is_turn(self->a, t3));
		EXPECT_EQ(0, ordsched_wait(self->a, t3, 0));
		EXPECT_EQ(0, op[i](self->a, t3));
		EXPECT_EQ(-EALREADY, op[i](self->a, t1));
		EXPECT_EQ(t3 + 1, ordsched_tail(self->a));
	}
}

/*
 * h:275 "Two threads that complete (or trash) the same ticket at once get
 * one 0 and one -EALREADY ... The ticket is retired once either way."
 */
struct racer {
	struct ordsched *os;
	uint64_t ticket;
	int trash;
	pthread_barrier_t *bar;
	int rc;
};

static void *racer_fn(void *p)
{
	struct racer *r = p;

	pthread_barrier_wait(r->bar);
	r->rc = r->trash ? ordsched_trash(r->os, r->ticket) :
			   ordsched_complete(r->os, r->ticket);
	return NULL;
}

TEST_F(lc, complete_race)
{
	pthread_barrier_t bar;
	struct racer r[2];
	pthread_t th[2];
	uint64_t t, keep;
	int round, i, zeros;

	for (round = 0; round < 60; round++) {
		/* Even rounds: the ticket is the tail; odd: out of turn. */
		if (round & 1)
			TAKE(self->b, &keep);
		TAKE(self->a, &t);
		ASSERT_EQ(0, pthread_barrier_init(&bar, NULL, 3));
		for (i = 0; i < 2; i++) {
			r[i] = (struct racer){ self->a, t, (round >> 1) & i, &bar, -9999 };
			ASSERT_EQ(0, pthread_create(&th[i], NULL, racer_fn, &r[i]));
		}
		pthread_barrier_wait(&bar);
		for (i = 0; i < 2; i++)
			pthread_join(th[i], NULL);
		pthread_barrier_destroy(&bar);
		zeros = (r[0].rc == 0) + (r[1].rc == 0);
		EXPECT_EQ(1, zeros) TH_LOG("round %d: %d %d", round, r[0].rc, r[1].rc);
		EXPECT_TRUE(r[0].rc == -EALREADY || r[1].rc == -EALREADY);
		if (round & 1) {
			EXPECT_EQ(keep, ordsched_tail(self->a));
			EXPECT_EQ(0, ordsched_complete(self->b, keep));
		}
		EXPECT_EQ(t + 1, ordsched_tail(self->a));
		EXPECT_EQ(t + 1, ordsched_head(self->a));
		if (_metadata->exit_code)
			break;
	}
}

/*
 * h:226-233 take_batch: "@count: 1 to api->max_batch", "the handle holds
 * @first to @first + @count - 1", "-EINVAL for a bad @count, and on the
 * ring for any @count but 1"; h:89 NO_RING: "ordsched_take_batch() takes
 * real batches".
 */
TEST_F(lc, take_batch)
{
	const struct ordsched_api *api = ordsched_api(self->a);
	uint64_t first = 77, h;
	unsigned int n;

	EXPECT_EQ(-EINVAL, ordsched_take_batch(self->a, 0, &first));
	EXPECT_EQ(-EINVAL, ordsched_take_batch(self->a, api->max_batch + 1, &first));
	EXPECT_EQ(-EINVAL, ordsched_take_batch(self->a, ~0U, &first));
	EXPECT_EQ(ordsched_tail(self->a), ordsched_head(self->a));
	h = ordsched_head(self->a);
	ASSERT_EQ(0, ordsched_take_batch(self->a, 1, &first));
	EXPECT_EQ(h, first);
	EXPECT_EQ(1, stats_of(self->a).held);
	n = api->max_batch;
	if (n > api->max_held - 1)
		n = api->max_held - 1;
	if (n > domain_window(self->a) - 1)
		n = domain_window(self->a) - 1;
	if (n < 2)
		SKIP_UNLESS_FAILED(return, "max_batch %u", api->max_batch);
	h = ordsched_head(self->a);
	if (self->ring) {
		EXPECT_EQ(-EINVAL, ordsched_take_batch(self->a, 2, &first));
		EXPECT_EQ(-EINVAL, ordsched_take_batch(self->a, n, &first));
		EXPECT_EQ(h, ordsched_head(self->a));
		return;
	}
	ASSERT_EQ(0, ordsched_take_batch(self->a, n, &first));
	EXPECT_EQ(h, first);
	EXPECT_EQ(h + n, ordsched_head(self->a));
	EXPECT_EQ(1 + n, stats_of(self->a).held);
	EXPECT_EQ(-EPERM, ordsched_complete(self->b, first + n - 1));
	EXPECT_EQ(0, ordsched_complete(self->a, first - 1));
	EXPECT_EQ(0, ordsched_complete_batch(self->a, first, n));
	EXPECT_EQ(first + n, ordsched_tail(self->a));
}

/*
 * h:291 complete_batch "All or nothing: if one ticket cannot be
 * completed, none is"; h:296 "as ordsched_complete(); -EINVAL for a bad
 * @count"; h:316 trash_batch "as ordsched_complete_batch()".
 */
TEST_F(lc, range_all_or_nothing)
{
	int (*op[2])(struct ordsched *, uint64_t, unsigned int) = {
		ordsched_complete_batch, ordsched_trash_batch };
	const struct ordsched_api *api = ordsched_api(self->a);
	uint64_t t[5], x;
	int i, k;

	if (api->max_batch < 4 || api->max_held < 6)
		SKIP(return, "max_batch %u", api->max_batch);
	for (k = 0; k < 2; k++) {
		/* a: t0 t1 [b: t2] t3 t4 */
		TAKE(self->a, &t[0]);
		TAKE(self->a, &t[1]);
		TAKE(self->b, &t[2]);
		TAKE(self->a, &t[3]);
		TAKE(self->a, &t[4]);
		EXPECT_EQ(-EINVAL, op[k](self->a, t[0], 0));
		EXPECT_EQ(-EINVAL, op[k](self->a, t[0], api->max_batch + 1));
		EXPECT_EQ(-EPERM, op[k](self->a, t[0], 4));
		EXPECT_EQ(-EPERM, op[k](self->a, t[1], 2));
		EXPECT_EQ(-EINVAL, op[k](self->a, t[3], 3));
		EXPECT_EQ(t[0], ordsched_tail(self->a));
		EXPECT_EQ(4, stats_of(self->a).held);
		/* One retired early: the range that holds it does nothing. */
		ASSERT_EQ(0, ordsched_trash(self->a, t[1]));
		EXPECT_EQ(-EALREADY, op[k](self->a, t[0], 2));
		EXPECT_EQ(t[0], ordsched_tail(self->a));
		EXPECT_EQ(3, stats_of(self->a).held);
		/* Still held: each completes on its own. */
		EXPECT_EQ(0, ordsched_wait(self->a, t[0], 0));
		EXPECT_EQ(0, op[k](self->a, t[0], 1));
		EXPECT_EQ(t[2], ordsched_tail(self->a));
		EXPECT_EQ(0, ordsched_complete(self->b, t[2]));
		EXPECT_EQ(0, op[k](self->a, t[3], 2));
		EXPECT_EQ(t[4] + 1, ordsched_tail(self->a));
		EXPECT_EQ(0, stats_of(self->a).held);
		EXPECT_EQ(-EALREADY, op[k](self->a, t[3], 2));
		/* The whole range, out of turn, then at its turn. */
		TAKE(self->b, &x);
		for (i = 0; i < 4; i++)
			TAKE(self->a, &t[i]);
		EXPECT_EQ(0, op[k](self->a, t[0], 4));
		EXPECT_EQ(x, ordsched_tail(self->a));
		EXPECT_EQ(-EALREADY, ordsched_complete(self->a, t[3]));
		EXPECT_EQ(0, ordsched_complete(self->b, x));
		EXPECT_EQ(t[3] + 1, ordsched_tail(self->a));
	}
}

/*
 * h:322-335 complete_wait: "@ticket: in: the ticket to complete, or
 * ORDSCHED_NO_TICKET; out: set to ORDSCHED_NO_TICKET once completed";
 * "@next: the ticket to wait for, or ORDSCHED_NO_TICKET"; "When it fails,
 * *@ticket tells whether the completion was done, so that calling again
 * after -EINTR or -ETIMEDOUT only waits"; "Return: as ordsched_complete()
 * for the completion (nothing done), then as ordsched_wait() for the
 * wait".
 */
TEST_F(lc, complete_wait)
{
	uint64_t t0, t1, t2, t3, x, dl;

	TAKE(self->a, &t0);
	TAKE(self->b, &t1);
	TAKE(self->a, &t2);
	/* Errors of the completion: nothing done, *ticket unchanged. */
	x = t1;
	EXPECT_EQ(-EPERM, ordsched_complete_wait(self->a, &x, t2, 0));
	EXPECT_EQ(t1, x);
	x = t2 + 1;
	EXPECT_EQ(-EINVAL, ordsched_complete_wait(self->a, &x, t2, 0));
	EXPECT_EQ(t2 + 1, x);
	EXPECT_EQ(t0, ordsched_tail(self->a));
	EXPECT_EQ(2, stats_of(self->a).held);
	/* Completed, then the wait times out: *ticket says it was done. */
	x = t0;
	dl = mono() + 100 * MS;
	EXPECT_EQ(-ETIMEDOUT, ordsched_complete_wait(self->a, &x, t2, dl));
	EXPECT_EQ(ORDSCHED_NO_TICKET, x);
	EXPECT_LE(dl, mono());
	EXPECT_EQ(t1, ordsched_tail(self->a));
	x = t0;
	EXPECT_EQ(-EALREADY, ordsched_complete_wait(self->a, &x, t2, 0));
	EXPECT_EQ(t0, x);
	/* Calling again only waits. */
	x = ORDSCHED_NO_TICKET;
	EXPECT_EQ(-ETIMEDOUT, ordsched_complete_wait(self->a, &x, t2, 0));
	EXPECT_EQ(ORDSCHED_NO_TICKET, x);
	ASSERT_EQ(0, ordsched_complete(self->b, t1));
	EXPECT_EQ(0, ordsched_complete_wait(self->a, &x, t2, 0));
	/* Completion, then the wait's own errors. */
	TAKE(self->b, &t3);
	x = t2;
	EXPECT_EQ(-EPERM, ordsched_complete_wait(self->a, &x, t3, 0));
	EXPECT_EQ(ORDSCHED_NO_TICKET, x);
	EXPECT_EQ(t3, ordsched_tail(self->a));
	TAKE(self->a, &t0);
	x = t0;
	EXPECT_EQ(-EINVAL, ordsched_complete_wait(self->a, &x, t0 + 1, 0));
	EXPECT_EQ(ORDSCHED_NO_TICKET, x);
	/* Neither, and only a completion. */
	x = ORDSCHED_NO_TICKET;
	EXPECT_EQ(0, ordsched_complete_wait(self->a, &x, ORDSCHED_NO_TICKET, 0));
	ASSERT_EQ(0, ordsched_complete(self->b, t3));
	EXPECT_EQ(ordsched_head(self->a), ordsched_tail(self->a));
	TAKE(self->a, &t0);
	TAKE(self->a, &t1);
	x = t0;
	EXPECT_EQ(0, ordsched_complete_wait(self->a, &x, ORDSCHED_NO_TICKET, 0));
	EXPECT_EQ(ORDSCHED_NO_TICKET, x);
	EXPECT_EQ(t1, ordsched_tail(self->a));
	/* The loop's step: complete the turn's ticket, wait for the next. */
	x = t1;
	TAKE(self->a, &t2);
	EXPECT_EQ(0, ordsched_complete_wait(self->a, &x, t2, mono() + LONG_NS));
	EXPECT_EQ(ORDSCHED_NO_TICKET, x);
	EXPECT_EQ(t2, ordsched_tail(self->a));
}

/* complete_wait's wait sleeps and is woken at its turn (h:322, h:244). */
TEST_F(lc, complete_wait_wakes)
{
	struct waiter w;
	uint64_t t0, t1, t2, base;

	TAKE(self->a, &t0);
	TAKE(self->b, &t1);
	TAKE(self->a, &t2);
	base = stats_of(self->a).waits;
	memset(&w, 0, sizeof(w));
	w.next = t2;
	ASSERT_EQ(0, waiter_start(&w, W_CWAIT, self->a, t0, mono() + LONG_NS));
	EXPECT_TRUE(sleepers_reach(self->a, base + 1));
	ASSERT_EQ(0, ordsched_complete(self->b, t1));
	ASSERT_EQ(0, waiter_join(&w, 15));
	EXPECT_WOKEN(w);
	EXPECT_EQ(0, w.rc);
	EXPECT_EQ(ORDSCHED_NO_TICKET, w.ticket);
	EXPECT_EQ(t2, ordsched_tail(self->a));
}

/*
 * h:216 take: "-EAGAIN when the handle holds api->max_held tickets or the
 * domain's window is full"; h:218 "On the ring: -EAGAIN only when the
 * ring's window (its slots) is full"; h:38 "the kernel no longer enforces
 * api->max_held, only the ring's window"; u:74 "Tickets completed or
 * trashed early, out of turn, still count until the tail passes them";
 * h:217 "(wait for earlier tickets to retire)".
 */
TEST_F(lc, take_eagain)
{
	const struct ordsched_api *api = ordsched_api(self->a);
	uint32_t window = domain_window(self->a), held_max = api->max_held;
	struct ordsched *extra[64];
	int nextra = 0, rc, i;
	uint64_t first, t, n = 0, per;

	ASSERT_NE(0, window);
	if (window > 70000)
		SKIP(return, "window %u", window);
	TH_LOG("window %u max_held %u ring %d", window, held_max, self->ring);
	ASSERT_EQ(0, ordsched_take(self->a, &first));
	n = 1;
	/* One handle takes all it may. */
	while ((rc = ordsched_take(self->a, &t)) == 0 && n < window + 5)
		n++;
	EXPECT_EQ(-EAGAIN, rc);
	per = self->ring || held_max >= window ? window : held_max;
	EXPECT_EQ(per, n) TH_LOG("one handle took %lu", (unsigned long)n);
	if (n < window) {
		/* Other handles fill the window. */
		while (n < window && nextra < 64) {
			ASSERT_EQ(0, ordsched_new_handle(self->a, &extra[nextra]));
			while (n < window && !(rc = ordsched_take(extra[nextra], &t)))
				n++;
			nextra++;
		}
		if (n < window)
			SKIP_UNLESS_FAILED(goto out, "window too large for max_held");
		EXPECT_EQ(-EAGAIN, ordsched_take(self->b, &t));
	}
	EXPECT_EQ(-EAGAIN, ordsched_take(self->b, &t));
	EXPECT_EQ(-EAGAIN, ordsched_take_batch(self->b, 1, &t));
	/* The last ticket, retired early, still counts. */
	ASSERT_EQ(0, ordsched_trash(nextra ? extra[nextra - 1] : self->a,
				    first + window - 1));
	EXPECT_EQ(-EAGAIN, ordsched_take(self->b, &t));
	/* The tail moves: one more. */
	ASSERT_EQ(0, ordsched_complete(self->a, first));
	EXPECT_EQ(0, ordsched_take(self->b, &t));
	EXPECT_EQ(first + window, t);
	EXPECT_EQ(-EAGAIN, ordsched_take(self->b, &t));
out:
	for (i = 0; i < nextra; i++)
		ordsched_close(extra[i]);
}

/* ------------------------------------------------------------------ */
/* poll(2), epoll, ordsched_fd()                                       */

/*
 * h:168 "For poll(2), select(2) and epoll: it reports POLLIN while the
 * handle holds the tail, i.e. when the turn of its oldest ticket has
 * come. On a handle that uses the ring, the first call makes the handle
 * pollable: from then on, each of its tickets is flagged in the ring, so
 * that the thread that hands the turn over to it (from any handle) enters
 * the kernel to wake the pollers".
 */
static void poll_case(struct __test_metadata *_metadata, struct ordsched *p,
		      struct ordsched *other, int kind, int fd_before)
{
	struct pollfd pfd = { .events = POLLIN };
	uint64_t t0, t1, t2;
	struct waiter w;

	if (fd_before)
		pfd.fd = ordsched_fd(p);
	TAKE(other, &t0);
	TAKE(p, &t1);
	TAKE(p, &t2);
	if (!fd_before)
		pfd.fd = ordsched_fd(p);
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	ASSERT_EQ(0, waiter_start(&w, kind, p, 0, mono() + LONG_NS));
	usleep(200 * 1000);
	ASSERT_EQ(0, ordsched_complete(other, t0));
	ASSERT_EQ(0, waiter_join(&w, 15));
	EXPECT_WOKEN(w);
	EXPECT_TRUE(w.rc > 0 && (w.rc & POLLIN))
		TH_LOG("%s: %d", kind == W_POLL ? "poll" : "epoll", w.rc);
	EXPECT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_TRUE(pfd.revents & POLLIN);
	/* Its oldest ticket's turn: still there after the first goes. */
	ASSERT_EQ(0, ordsched_complete(p, t1));
	EXPECT_EQ(1, poll(&pfd, 1, 0));
	ASSERT_EQ(0, ordsched_complete(p, t2));
	EXPECT_EQ(0, poll(&pfd, 1, 0));
}

TEST_F(lc, poll_fd_first)
{
	poll_case(_metadata, self->a, self->b, W_POLL, 1);
}

TEST_F(lc, epoll_fd_first)
{
	poll_case(_metadata, self->a, self->b, W_EPOLL, 1);
}

/* Same, with ordsched_fd() first called while the handle holds tickets. */
TEST_F(lc, poll_fd_after_take)
{
	poll_case(_metadata, self->a, self->b, W_POLL, 0);
}

/*
 * h:104 from_fd: "The handle is pollable from the start: see
 * ordsched_fd()"; h:176 "A handle adopted with ordsched_from_fd() is
 * pollable from the start (the caller knows the descriptor)": poll the
 * adopted descriptor without ever calling ordsched_fd().
 */
/*
 * A thread polls @fd, @p's descriptor, for the turn of its ticket after
 * @t0; @b completes @t0, and the poll must report POLLIN.
 */
static void poll_woken_by(struct __test_metadata *_metadata,
			  struct ordsched *p, int fd, struct ordsched *b,
			  uint64_t t0)
{
	struct waiter w = {
		.kind = W_POLL, .os = p, .fd = fd,
		.deadline = mono() + LONG_NS, .rc = -9999,
	};

	atomic_store(&w.done, 0);
	ASSERT_EQ(0, pthread_create(&w.th, NULL, waiter_fn, &w));
	usleep(200 * 1000);
	ASSERT_EQ(0, ordsched_complete(b, t0));
	ASSERT_EQ(0, waiter_join(&w, 15));
	EXPECT_WOKEN(w);
	EXPECT_TRUE(w.rc > 0 && (w.rc & POLLIN)) TH_LOG("poll: %d", w.rc);
}

/*
 * h: ordsched_wait() "-EPERM when another handle holds @ticket", on the
 * ioctl path too, whose spin answers for the tickets this process took:
 * not for the ticket one window after one it took, which a child
 * completed through the same handle (the kernel answers EPERM there).
 */
TEST_F(lc, wait_eperm_a_window_on)
{
	uint64_t t0, t, w;
	int status;
	pid_t pid;

	if (self->ring)
		SKIP(return, "the ioctl path's spin");
	w = ordsched_api(self->a)->window;
	TAKE(self->a, &t0);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(ordsched_complete(self->a, t0) ? 1 : 0);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	/* b's tickets, one after another, up to t0 + window. */
	for (;;) {
		TAKE(self->b, &t);
		if (t == t0 + w)
			break;
		ASSERT_EQ(0, ordsched_complete(self->b, t));
	}
	ASSERT_EQ(t0 + w, ordsched_tail(self->a));
	EXPECT_EQ(-EPERM, ordsched_wait(self->a, t0 + w, mono() + LONG_NS));
	EXPECT_EQ(0, ordsched_complete(self->b, t0 + w));
}

TEST_F(lc, poll_adopted)
{
	struct pollfd pfd = { .events = POLLIN };
	struct ordsched *p;
	uint64_t t0, t1;
	int fd;

	fd = raw_new_handle(ordsched_fd(self->a));
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ordsched_from_fd_flags(fd, variant->flags, &p));
	EXPECT_EQ(self->ring, ordsched_uses_ring(p));
	pfd.fd = fd;
	TAKE(self->b, &t0);
	TAKE(p, &t1);
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	/* A thread polls the adopted descriptor; ordsched_fd() is never
	 * called on p. */
	poll_woken_by(_metadata, p, fd, self->b, t0);
	EXPECT_EQ(0, ordsched_complete(p, t1));
	ordsched_close(p);
}

/*
 * As poll_adopted, with a descriptor whose handle already holds a ticket
 * when it is adopted, taken by a library handle that was never pollable
 * (its slot not flagged): adopting it must flag the held ticket as
 * ordsched_fd() would, or the completion before it wakes no poller.
 */
TEST_F(lc, poll_adopted_holding)
{
	struct pollfd pfd = { .events = POLLIN };
	struct ordsched *q, *p;
	uint64_t t0, t1;
	int fd, qfd;

	/*
	 * q's descriptor, without ordsched_fd(q), which would make q
	 * pollable: a new descriptor is the lowest free one.
	 */
	qfd = dup(ordsched_fd(self->a));
	ASSERT_LE(0, qfd);
	close(qfd);
	ASSERT_EQ(0, ordsched_new_handle(self->a, &q));
	ASSERT_TRUE(fd_is_open(qfd));
	ASSERT_NE(ordsched_fd(self->a), qfd);
	ASSERT_NE(ordsched_fd(self->b), qfd);
	TAKE(self->b, &t0);
	TAKE(q, &t1);
	fd = dup(qfd);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ordsched_from_fd_flags(fd, variant->flags, &p));
	EXPECT_EQ(self->ring, ordsched_uses_ring(p));
	pfd.fd = fd;
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	poll_woken_by(_metadata, p, fd, self->b, t0);
	EXPECT_EQ(0, ordsched_complete(p, t1));
	ordsched_close(p);
	ordsched_close(q);
}

/* ------------------------------------------------------------------ */
/* Handles: new_handle, from_fd, close, death                          */

/*
 * h:140 "@out: ... its descriptor is close-on-exec"; h:142 "The new
 * handle holds no ticket; it takes the ring when @os does".
 */
TEST_F(lc, new_handle)
{
	struct ordsched *h;
	struct ordsched_stats st;
	uint64_t t;

	TAKE(self->a, &t);
	ASSERT_EQ(0, ordsched_new_handle(self->a, &h));
	EXPECT_EQ(self->ring, ordsched_uses_ring(h));
	EXPECT_TRUE(fcntl(ordsched_fd(h), F_GETFD) & FD_CLOEXEC);
	EXPECT_NE(ordsched_fd(self->a), ordsched_fd(h));
	st = stats_of(h);
	EXPECT_EQ(0, st.held);
	EXPECT_EQ(0, st.handle_taken);
	EXPECT_EQ(3, st.handles);
	EXPECT_EQ(-EPERM, ordsched_complete(h, t));
	ordsched_close(h);
	EXPECT_EQ(2, stats_of(self->a).handles);
	EXPECT_EQ(0, ordsched_complete(self->a, t));
}

/*
 * h:106 from_fd: "-ENOTTY when @fd is not an ordsched handle"; h:101
 * "the handle owns it from now on, even on failure"; h:123 from_fd_flags:
 * "-EINVAL for an unknown flag (@fd is closed)".
 */
TEST(from_fd_errors)
{
	struct ordsched *os;
	int fds[2], fd;

	ASSERT_EQ(0, pipe(fds));
	EXPECT_EQ(-ENOTTY, ordsched_from_fd(fds[0], &os));
	EXPECT_FALSE(fd_is_open(fds[0]));
	EXPECT_EQ(-ENOTTY, ordsched_from_fd_flags(fds[1], ORDSCHED_OPEN_NO_RING, &os));
	EXPECT_FALSE(fd_is_open(fds[1]));
	fd = open("/dev/null", O_RDWR);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-ENOTTY, ordsched_from_fd(fd, &os));
	EXPECT_FALSE(fd_is_open(fd));
	fd = raw_open();
	ASSERT_LE(0, fd);
	EXPECT_EQ(-EINVAL, ordsched_from_fd_flags(fd, 2, &os));
	EXPECT_FALSE(fd_is_open(fd));
	fd = raw_open();
	EXPECT_EQ(-EINVAL, ordsched_from_fd_flags(fd, ~0U, &os));
	EXPECT_FALSE(fd_is_open(fd));
	ASSERT_EQ(0, pipe(fds));
	EXPECT_EQ(-EINVAL, ordsched_from_fd_flags(fds[0], 0x10, &os));
	EXPECT_FALSE(fd_is_open(fds[0]));
	close(fds[1]);
	/* h:118 "-EBADF when @fd is not an open descriptor". */
	EXPECT_EQ(-EBADF, ordsched_from_fd(-1, &os));
	EXPECT_EQ(-EBADF, ordsched_from_fd(fds[1], &os));
	EXPECT_EQ(-EBADF, ordsched_from_fd_flags(fds[1], ORDSCHED_OPEN_NO_RING,
						 &os));
	/*
	 * An O_PATH descriptor of the device is open (ioctl(2) answers it
	 * EBADF too): no handle, and the library's to close.
	 */
	fd = open(DEV, O_PATH | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-ENOTTY, ordsched_from_fd(fd, &os));
	EXPECT_FALSE(fd_is_open(fd));
}

/* A handle adopted from a descriptor works: take, wait, complete. */
static void use_handle(struct __test_metadata *_metadata, struct ordsched *os)
{
	uint64_t t;

	TAKE(os, &t);
	EXPECT_EQ(0, ordsched_wait(os, t, mono() + LONG_NS));
	EXPECT_EQ(0, ordsched_complete(os, t));
	EXPECT_EQ(t + 1, ordsched_tail(os));
}

/* Adopt @fd with @flags: the ring or not as @ring says, and it works. */
static void adopt_use(struct __test_metadata *_metadata, int fd,
		      unsigned int flags, int ring)
{
	struct ordsched *x;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ordsched_from_fd_flags(fd, flags, &x));
	EXPECT_EQ(ring, ordsched_uses_ring(x));
	use_handle(_metadata, x);
	ordsched_close(x);
}

/*
 * h:116 from_fd_flags: "Without ORDSCHED_OPEN_NO_RING ..., the handle
 * uses the ring when its domain has one, or can still get one (its first
 * handle, before any other handle or ticket): adopting a fresh descriptor
 * of /dev/ordsched open for reading and writing makes its domain a ring
 * domain (the kernel gives a ring to no other: one open for reading only
 * takes the ioctl path). With it, the handle takes the ioctl path, which
 * works in any domain"; h:87 NO_RING: "the new domain never gets a ring,
 * whoever its handles are passed to".
 */
TEST(from_fd_ring_rules)
{
	struct ordsched *os, *h;
	uint64_t t;
	int fd;

	if (!kernel_has_ring())
		SKIP(return, "no ORDSCHED_FEAT_RING");
	/* A fresh descriptor: its domain becomes a ring domain. */
	fd = raw_open();
	ASSERT_EQ(0, ordsched_from_fd(fd, &os));
	EXPECT_EQ(1, ordsched_uses_ring(os));
	ASSERT_EQ(0, ordsched_new_handle(os, &h));
	EXPECT_EQ(1, ordsched_uses_ring(h));
	use_handle(_metadata, os);
	use_handle(_metadata, h);
	/* A ring domain's handle adopted with NO_RING: ioctl path, works. */
	fd = raw_new_handle(ordsched_fd(h));
	ASSERT_LE(0, fd);
	adopt_use(_metadata, fd, ORDSCHED_OPEN_NO_RING, 0);
	/* ... and without: the ring. */
	adopt_use(_metadata, raw_new_handle(ordsched_fd(h)), 0, 1);
	ordsched_close(h);
	ordsched_close(os);

	/* A fresh descriptor with NO_RING: ioctl path. */
	adopt_use(_metadata, raw_open(), ORDSCHED_OPEN_NO_RING, 0);

	/* Open for reading only: the ioctl path, and the domain has no ring. */
	fd = open("/dev/ordsched", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ordsched_from_fd(fd, &os));
	EXPECT_EQ(0, ordsched_uses_ring(os));
	use_handle(_metadata, os);
	{
		struct ordsched_ring_setup rs = { 0 };
		int fd2 = raw_new_handle(ordsched_fd(os));

		/* Its new handles are read-only too (ordsched.h). */
		ASSERT_LE(0, fd2);
		EXPECT_EQ(-1, ioctl(fd2, ORDSCHED_IOC_RING_SETUP, &rs));
		EXPECT_EQ(EBADF, errno);
		close(fd2);
	}
	ASSERT_EQ(0, ordsched_new_handle(os, &h));
	EXPECT_EQ(0, ordsched_uses_ring(h));
	use_handle(_metadata, h);
	ordsched_close(h);
	ordsched_close(os);

	/* A domain that handed out a ticket can no longer get a ring. */
	fd = raw_open();
	{
		struct ordsched_take tk = { .count = 1 };

		ASSERT_EQ(0, ioctl(fd, ORDSCHED_IOC_TAKE, &tk));
		t = tk.first;
	}
	ASSERT_EQ(0, ordsched_from_fd(fd, &os));
	EXPECT_EQ(0, ordsched_uses_ring(os));
	EXPECT_EQ(0, ordsched_wait(os, t, mono() + LONG_NS));
	EXPECT_EQ(0, ordsched_complete(os, t));
	use_handle(_metadata, os);
	ordsched_close(os);

	/* Nor one with a second handle. */
	fd = raw_open();
	ASSERT_LE(0, fd);
	if (fd >= 0) {
		int fd2 = raw_new_handle(fd);

		ASSERT_LE(0, fd2);
		ASSERT_EQ(0, ordsched_from_fd(fd, &os));
		EXPECT_EQ(0, ordsched_uses_ring(os));
		ASSERT_EQ(0, ordsched_from_fd(fd2, &h));
		EXPECT_EQ(0, ordsched_uses_ring(h));
		use_handle(_metadata, os);
		use_handle(_metadata, h);
		ordsched_close(h);
		ordsched_close(os);
	}

	/* NO_RING domains never get a ring, whoever adopts their handles. */
	ASSERT_EQ(0, ordsched_open_flags(&os, ORDSCHED_OPEN_NO_RING));
	EXPECT_EQ(0, ordsched_uses_ring(os));
	adopt_use(_metadata, raw_new_handle(ordsched_fd(os)), 0, 0);
	adopt_use(_metadata, dup(ordsched_fd(os)), 0, 0);
	ordsched_close(os);
}

/*
 * h:119-121 "With it, the handle takes the ioctl path, which works in any
 * domain (in a ring domain the kernel runs the ring's protocol for it)":
 * ring and ioctl handles of one domain hand turns to each other, wake
 * each other's sleepers, and check each other's ownership.
 */
TEST(mixed_paths)
{
	struct ordsched *r, *k;
	struct waiter w;
	uint64_t t0, t1, base;
	int i;

	if (!kernel_has_ring())
		SKIP(return, "no ORDSCHED_FEAT_RING");
	ASSERT_EQ(0, ordsched_open(&r));
	ASSERT_EQ(0, ordsched_from_fd_flags(raw_new_handle(ordsched_fd(r)),
					    ORDSCHED_OPEN_NO_RING, &k));
	ASSERT_EQ(1, ordsched_uses_ring(r));
	ASSERT_EQ(0, ordsched_uses_ring(k));
	for (i = 0; i < 6; i++) {
		/* i even: the ioctl handle hands the turn to the ring's. */
		struct ordsched *first = i & 1 ? r : k, *second = i & 1 ? k : r;
		int kind = i >= 4 ? W_POLL : W_WAIT;

		ordsched_set_spin(second, i & 2 ? 0 : ORDSCHED_DEFAULT_SPIN);
		if (kind == W_POLL)
			ordsched_fd(second);
		TAKE(first, &t0);
		TAKE(second, &t1);
		EXPECT_EQ(-EPERM, ordsched_wait(second, t0, 0));
		EXPECT_EQ(-EPERM, ordsched_complete(second, t0));
		EXPECT_EQ(-EPERM, ordsched_trash(first, t1));
		EXPECT_EQ(1, ordsched_is_turn(second, t0));
		base = stats_of(r).waits;
		ASSERT_EQ(0, waiter_start(&w, kind, second, t1, mono() + LONG_NS));
		if (kind == W_POLL)
			usleep(200 * 1000);
		else
			EXPECT_TRUE(sleepers_reach(r, base + 1));
		ASSERT_EQ(0, ordsched_complete(first, t0));
		ASSERT_EQ(0, waiter_join(&w, 15));
		EXPECT_WOKEN(w);
		EXPECT_EQ(kind == W_POLL ? POLLIN : 0, w.rc) TH_LOG("round %d", i);
		EXPECT_EQ(0, ordsched_complete(second, t1));
		EXPECT_EQ(t1 + 1, ordsched_tail(first));
		EXPECT_EQ(t1 + 1, ordsched_tail(second));
		EXPECT_EQ(t1 + 1, ordsched_head(second));
	}
	ordsched_close(k);
	ordsched_close(r);
}

/*
 * A thread of k spins in ordsched_wait() for t1 while t1 is retired
 * early, by ordsched_trash() (@by_cwait 0) or by ordsched_complete_wait()
 * on a third thread that then waits for t2 in the kernel (@by_cwait 1),
 * and r completes t0: the spin must never answer 0 (timing-dependent, so
 * 500 rounds), and complete_wait's wait for t2 must come to its turn.
 */
static void wait_retired_during(struct __test_metadata *_metadata,
				int by_cwait)
{
	int i, zeros = 0, other = 0, bad_cwait = 0;
	uint64_t t0, t1, t2, done, start;
	struct ordsched *r, *k;
	struct waiter w, c;

	if (!kernel_has_ring())
		SKIP(return, "no ORDSCHED_FEAT_RING");
	ASSERT_EQ(0, ordsched_open(&r));
	ASSERT_EQ(0, ordsched_from_fd_flags(raw_new_handle(ordsched_fd(r)),
					    ORDSCHED_OPEN_NO_RING, &k));
	ordsched_set_spin(k, 1u << 22);
	for (i = 0; i < 500; i++) {
		TAKE(r, &t0);
		TAKE(k, &t1);
		if (by_cwait)
			TAKE(k, &t2);
		ASSERT_EQ(0, waiter_start(&w, W_WAIT, k, t1, mono() + LONG_NS));
		usleep(50);
		if (by_cwait) {
			done = stats_of(k).completed;
			c.next = t2;
			ASSERT_EQ(0, waiter_start(&c, W_CWAIT, k, t1,
						  mono() + LONG_NS));
			/* t1 retired early by c's ioctl, c now waits for t2. */
			start = mono();
			while (stats_of(k).completed == done &&
			       mono() - start < 5 * SEC)
				sched_yield();
			ASSERT_EQ(done + 1, stats_of(k).completed);
		} else {
			ASSERT_EQ(0, ordsched_trash(k, t1));
		}
		ASSERT_EQ(0, ordsched_complete(r, t0));
		ASSERT_EQ(0, waiter_join(&w, 15));
		EXPECT_WOKEN(w);
		zeros += w.rc == 0;
		other += w.rc != 0 && w.rc != -EALREADY;
		if (by_cwait) {
			ASSERT_EQ(0, waiter_join(&c, 15));
			bad_cwait += c.rc != 0 || c.ticket != ORDSCHED_NO_TICKET;
			ASSERT_EQ(0, ordsched_complete(k, t2));
		}
	}
	EXPECT_EQ(0, zeros) TH_LOG("%d of 500 waits answered 0", zeros);
	EXPECT_EQ(0, other);
	EXPECT_EQ(0, bad_cwait);
	EXPECT_EQ(ordsched_head(r), ordsched_tail(r));
	ordsched_close(k);
	ordsched_close(r);
}

/*
 * h:282 wait "-EALREADY when the ticket was completed or trashed, also
 * during the wait", on the ioctl path in a ring domain, where the tail
 * steps onto a ticket trashed early for a moment. A thread of k spins on
 * the tail for t1 while another trashes t1 and r completes t0: the spin
 * used to answer 0 when it caught the tail on t1 (timing-dependent, so
 * 500 rounds; a correct library never answers 0).
 */
TEST(mixed_wait_trashed_during)
{
	wait_retired_during(_metadata, 0);
}

/*
 * The same, t1 completed early by ordsched_complete_wait() in a third
 * thread, which then waits for t2 in the kernel: h:364 complete_wait
 * "complete a ticket, then wait for another", h:376 "Return: as
 * ordsched_complete() for the completion ... then as ordsched_wait()",
 * so the spinning waiter of t1 must answer as if t1 had been completed
 * alone. The library used to forget t1 only when the whole call
 * returned, after the wait for t2.
 */
TEST(mixed_wait_complete_wait_during)
{
	wait_retired_during(_metadata, 1);
}

/* Shared mappings in /proc/self/maps (the status page and the ring are
 * MAP_SHARED: u:261, r:23). */
static int dev_mappings(void)
{
	char line[512], perms[8];
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %7s", perms) == 1 && perms[3] == 's')
			n++;
	fclose(f);
	return n;
}

/*
 * h:69 open "Opens /dev/ordsched, ... and maps the domain's status page";
 * h:158 close "Unmaps the status page (and the ring) and closes the
 * descriptor"; h:89 "(the library makes and drops a second handle at
 * once ...)".
 */
TEST_F(lc, open_close_maps)
{
	int before = dev_mappings(), fd;
	struct ordsched *os, *h;

	ASSERT_LE(0, before);
	ASSERT_EQ(0, ordsched_open_flags(&os, variant->flags));
	EXPECT_LT(before, dev_mappings());
	EXPECT_EQ(1, stats_of(os).handles);
	ASSERT_EQ(0, ordsched_new_handle(os, &h));
	fd = ordsched_fd(h);
	ordsched_close(h);
	EXPECT_FALSE(fd_is_open(fd));
	fd = ordsched_fd(os);
	ordsched_close(os);
	EXPECT_FALSE(fd_is_open(fd));
	EXPECT_EQ(before, dev_mappings());
}

/*
 * h:158 close: "tickets the handle still holds are trashed by the kernel
 * once no other descriptor of it is open"; h:156 "@os: the handle, or
 * NULL"; h:22 "the kernel trashes the tickets it still holds, so the
 * others never wait for a dead holder".
 */
TEST_F(lc, close_trashes)
{
	struct ordsched *h;
	struct waiter w;
	uint64_t t0, t1, t2, base;
	int dupfd;

	ordsched_close(NULL);
	ASSERT_EQ(0, ordsched_new_handle(self->a, &h));
	TAKE(h, &t0);
	TAKE(self->a, &t1);
	TAKE(h, &t2);
	dupfd = dup(ordsched_fd(h));
	ASSERT_LE(0, dupfd);
	ordsched_close(h);
	/* Another descriptor of it is open: still held. */
	EXPECT_EQ(-ETIMEDOUT, ordsched_wait(self->a, t1, mono() + 100 * MS));
	EXPECT_EQ(t0, ordsched_tail(self->a));
	base = stats_of(self->a).waits;
	ASSERT_EQ(0, waiter_start(&w, W_WAIT, self->a, t1, mono() + LONG_NS));
	EXPECT_TRUE(sleepers_reach(self->a, base + 1));
	close(dupfd);
	ASSERT_EQ(0, waiter_join(&w, 15));
	EXPECT_WOKEN(w);
	EXPECT_EQ(0, w.rc);
	EXPECT_LE(2, stats_of(self->a).released);
	EXPECT_EQ(0, ordsched_complete(self->a, t1));
	EXPECT_EQ(t2 + 1, ordsched_tail(self->a));
	EXPECT_EQ(t2 + 1, ordsched_head(self->a));
	EXPECT_EQ(2, stats_of(self->a).handles);
}

/*
 * h:22-26 "when its last descriptor is closed (or its process dies) the
 * kernel trashes the tickets it still holds, so the others never wait
 * for a dead holder. ... processes get their own with
 * ordsched_new_handle() and pass its descriptor (fork, SCM_RIGHTS)";
 * h:145 "Give it to another process (fork ...) so that its tickets are
 * trashed when that process dies".
 */
static void death_case(struct __test_metadata *_metadata, struct ordsched *a,
		       int by_kill)
{
	struct ordsched *h;
	struct waiter w;
	uint64_t t, t1, base;
	int pfd[2], status;
	pid_t pid;

	ASSERT_EQ(0, ordsched_new_handle(a, &h));
	ASSERT_EQ(0, pipe(pfd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		uint64_t mine[2];

		if (ordsched_take(h, &mine[0]) || ordsched_take(h, &mine[1]))
			_exit(1);
		if (write(pfd[1], mine, sizeof(mine)) != sizeof(mine))
			_exit(2);
		if (by_kill)
			pause();
		_exit(0);
	}
	close(pfd[1]);
	ordsched_close(h);
	{
		uint64_t mine[2];

		ASSERT_EQ(sizeof(mine), read(pfd[0], mine, sizeof(mine)));
		t = mine[0];
	}
	close(pfd[0]);
	TAKE(a, &t1);
	EXPECT_EQ(t + 2, t1);
	base = stats_of(a).waits;
	ASSERT_EQ(0, waiter_start(&w, W_WAIT, a, t1, mono() + LONG_NS));
	if (by_kill) {
		EXPECT_TRUE(sleepers_reach(a, base + 1));
		kill(pid, SIGKILL);
	}
	ASSERT_EQ(0, waiter_join(&w, 15));
	EXPECT_WOKEN(w);
	EXPECT_EQ(0, w.rc);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, ordsched_complete(a, t1));
	EXPECT_LE(2, stats_of(a).released);
	EXPECT_EQ(2, stats_of(a).handles);
}

TEST_F(lc, death_exit)
{
	death_case(_metadata, self->a, 0);
}

TEST_F(lc, death_kill)
{
	death_case(_metadata, self->a, 1);
}

/*
 * h:25 "pass its descriptor (... SCM_RIGHTS), adopting it with
 * ordsched_from_fd()"; h:145 "ordsched_fd() over a UNIX socket": the
 * adopted handle takes part in the order and takes the domain's path.
 */
TEST_F(lc, scm_rights)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct ordsched *h;
	struct msghdr msg;
	struct cmsghdr *cm;
	struct iovec iov;
	uint64_t t, t1;
	int sv[2], status;
	char c = 'x';
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		SKIP(return, "socketpair(AF_UNIX): %s", strerror(errno));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct ordsched *mine;
		uint64_t tk;
		int fd;

		memset(&msg, 0, sizeof(msg));
		iov.iov_base = &c;
		iov.iov_len = 1;
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		msg.msg_control = cbuf;
		msg.msg_controllen = sizeof(cbuf);
		if (recvmsg(sv[1], &msg, MSG_CMSG_CLOEXEC) != 1)
			_exit(1);
		cm = CMSG_FIRSTHDR(&msg);
		if (!cm)
			_exit(2);
		memcpy(&fd, CMSG_DATA(cm), sizeof(fd));
		if (ordsched_from_fd(fd, &mine))
			_exit(3);
		if (ordsched_take(mine, &tk))
			_exit(4);
		if (write(sv[1], &tk, sizeof(tk)) != sizeof(tk))
			_exit(5);
		if (read(sv[1], &c, 1) != 1)
			_exit(6);
		if (ordsched_wait(mine, tk, mono() + LONG_NS))
			_exit(7);
		if (ordsched_complete(mine, tk))
			_exit(8);
		_exit(10 + ordsched_uses_ring(mine));
	}
	ASSERT_EQ(0, ordsched_new_handle(self->a, &h));
	memset(&msg, 0, sizeof(msg));
	iov.iov_base = &c;
	iov.iov_len = 1;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = cbuf;
	msg.msg_controllen = sizeof(cbuf);
	cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	{
		int fd = ordsched_fd(h);

		memcpy(CMSG_DATA(cm), &fd, sizeof(fd));
	}
	ASSERT_EQ(1, sendmsg(sv[0], &msg, 0));
	ordsched_close(h);
	ASSERT_EQ(sizeof(t), read(sv[0], &t, sizeof(t)));
	TAKE(self->a, &t1);
	EXPECT_EQ(t + 1, t1);
	EXPECT_EQ(-ETIMEDOUT, ordsched_wait(self->a, t1, mono() + 50 * MS));
	ASSERT_EQ(1, write(sv[0], &c, 1));
	EXPECT_EQ(0, ordsched_wait(self->a, t1, mono() + LONG_NS));
	EXPECT_EQ(0, ordsched_complete(self->a, t1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(10 + self->ring, WEXITSTATUS(status));
	EXPECT_EQ(0, stats_of(self->a).released);
}

/* ------------------------------------------------------------------ */
/* Threads and processes in order                                      */

/*
 * h:24 "Threads may share a handle"; h:49 "All functions but
 * ordsched_close() may be called from several threads on the same handle
 * at once"; h:6-9 the ordered steps run in ticket order.
 */
struct order_ctx {
	struct ordsched *os;
	int items;
	uint64_t *next;		/* the ticket whose ordered step is due */
	atomic_int *errors;
	int use_cwait;
};

static int ordered_loop(struct order_ctx *c)
{
	uint64_t t, dead = mono() + 20 * SEC;
	int i, rc;

	for (i = 0; i < c->items; i++) {
		while ((rc = ordsched_take(c->os, &t)) == -EAGAIN && mono() < dead)
			sched_yield();
		if (rc)
			return 1;
		if (ordsched_wait(c->os, t, mono() + LONG_NS))
			return 2;
		if (__atomic_load_n(c->next, __ATOMIC_RELAXED) != t)
			return 3;
		__atomic_store_n(c->next, t + 1, __ATOMIC_RELAXED);
		if (c->use_cwait && (i & 1)) {
			uint64_t x = t;

			if (ordsched_complete_wait(c->os, &x, ORDSCHED_NO_TICKET, 0) ||
			    x != ORDSCHED_NO_TICKET)
				return 4;
		} else if (ordsched_complete(c->os, t)) {
			return 5;
		}
	}
	return 0;
}

static void *ordered_thread(void *p)
{
	struct order_ctx *c = p;

	if (ordered_loop(c))
		atomic_fetch_add(c->errors, 1);
	return NULL;
}

TEST_F(lc, threads_share_handle)
{
	struct order_ctx c;
	atomic_int errors = 0;
	uint64_t next = ordsched_head(self->a), start = next;
	pthread_t th[4];
	int i;

	c = (struct order_ctx){ self->a, 100, &next, &errors, 1 };
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, pthread_create(&th[i], NULL, ordered_thread, &c));
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	EXPECT_EQ(0, atomic_load(&errors));
	EXPECT_EQ(next, ordsched_tail(self->a));
	EXPECT_EQ(next, ordsched_head(self->a));
	EXPECT_EQ(start + 400, next);
}

TEST_F(lc, processes_in_order)
{
	uint64_t *next = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct order_ctx c;
	atomic_int errors = 0;
	pid_t pid[2];
	int i, status;
	uint64_t start;

	ASSERT_NE(MAP_FAILED, next);
	*next = start = ordsched_head(self->a);
	for (i = 0; i < 2; i++) {
		struct ordsched *h;

		ASSERT_EQ(0, ordsched_new_handle(self->a, &h));
		pid[i] = fork();
		ASSERT_LE(0, pid[i]);
		if (pid[i] == 0) {
			c = (struct order_ctx){ h, 80, next, &errors, i };
			_exit(ordered_loop(&c));
		}
		ordsched_close(h);
	}
	c = (struct order_ctx){ self->a, 80, next, &errors, 0 };
	EXPECT_EQ(0, ordered_loop(&c));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(pid[i], waitpid(pid[i], &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
			TH_LOG("child %d: %#x", i, status);
	}
	EXPECT_EQ(start + 240, *next);
	EXPECT_EQ(*next, ordsched_tail(self->a));
	EXPECT_EQ(0, stats_of(self->a).released);
}

/* ------------------------------------------------------------------ */
/* Stats, time                                                         */

/*
 * h:361 stats "counters of the domain and of the handle", "Return: 0";
 * r:37 "ORDSCHED_IOC_STATS reports the tail, the head and the handle's
 * held tickets as the page says".
 */
TEST_F(lc, stats)
{
	struct ordsched_stats sa, sb;
	uint64_t t0, t1, t2;

	TAKE(self->a, &t0);
	TAKE(self->b, &t1);
	TAKE(self->a, &t2);
	ASSERT_EQ(0, ordsched_complete(self->a, t2));
	ASSERT_EQ(0, ordsched_stats(self->a, &sa));
	ASSERT_EQ(0, ordsched_stats(self->b, &sb));
	EXPECT_EQ(2, sa.handles);
	EXPECT_EQ(sa.domain_id, sb.domain_id);
	EXPECT_EQ(ordsched_tail(self->a), sa.tail);
	EXPECT_EQ(ordsched_head(self->a), sa.head);
	EXPECT_EQ(t0, sa.tail);
	EXPECT_EQ(t2 + 1, sa.head);
	EXPECT_EQ(1, sa.held);
	EXPECT_EQ(1, sb.held);
	EXPECT_EQ(sa.tail, sb.tail);
	if (self->ring) {
		/* h:365 "On the ring, taken, completed and trashed count only
		 * the operations that went through the kernel": none did. */
		EXPECT_EQ(0, sa.taken);
		EXPECT_EQ(0, sa.completed);
	} else {
		EXPECT_EQ(2, sa.handle_taken);
		EXPECT_EQ(3, sa.taken);
		EXPECT_EQ(1, sa.completed);
	}
}

/*
 * h:375 now: "the current CLOCK_MONOTONIC time"; h:383 deadline_in:
 * "ordsched_now() + @ns, or ORDSCHED_NO_DEADLINE if that overflows".
 */
TEST(now_and_deadline_in)
{
	uint64_t before, got, after;

	before = mono();
	got = ordsched_now();
	after = mono();
	EXPECT_LE(before, got);
	EXPECT_GE(after, got);
	before = mono();
	got = ordsched_deadline_in(SEC);
	after = mono();
	EXPECT_LE(before + SEC, got);
	EXPECT_GE(after + SEC, got);
	EXPECT_EQ(ORDSCHED_NO_DEADLINE, ordsched_deadline_in(UINT64_MAX));
	EXPECT_EQ(ORDSCHED_NO_DEADLINE, ordsched_deadline_in(UINT64_MAX - 1));
	EXPECT_EQ(ORDSCHED_NO_DEADLINE, ordsched_deadline_in(UINT64_MAX - after + 1));
	got = ordsched_deadline_in(0);
	EXPECT_LE(after, got);
	EXPECT_GT(mono() + 1, got);
}

/* ------------------------------------------------------------------ */
/* Spinning                                                            */

/*
 * h:197 "On the ring, a wait does not spin when the process may run on a
 * single CPU, nor while the domain has more tickets out than the process
 * has CPUs ...: it sleeps in the kernel." With spins set to UINT_MAX, a
 * wait that spins reads the tail ~4e9 times before its system call; one
 * that does not enters the kernel at once, which the domain counts in
 * its stats' waits (r:41). Bound: 3 s for the count to move, then the
 * turn is handed over so that a spinning wait ends too.
 */
static void nospin_case(struct __test_metadata *_metadata, struct ordsched *a,
			struct ordsched *b, int extra)
{
	uint64_t t0, t1, t, base, t_start;
	struct waiter w;
	int i, slept = 0;

	ordsched_set_spin(a, ~0U);
	TAKE(b, &t0);
	for (i = 0; i < extra; i++)
		TAKE(b, &t);
	TAKE(a, &t1);
	base = stats_of(a).waits;
	ASSERT_EQ(0, waiter_start(&w, W_WAIT, a, t1, mono() + LONG_NS));
	t_start = mono();
	while (mono() - t_start < 3 * SEC && !slept) {
		usleep(10 * 1000);
		slept = stats_of(a).waits > base;
	}
	{
		struct timespec cpu = { 0, 0 };
		clockid_t cid;

		if (!pthread_getcpuclockid(w.th, &cid))
			clock_gettime(cid, &cpu);
		EXPECT_TRUE(slept) TH_LOG("the wait did not sleep in 3 s; "
			"waiter's CPU time %ld ms", cpu.tv_sec * 1000L +
			cpu.tv_nsec / 1000000L);
	}
	ASSERT_EQ(0, ordsched_complete(b, t0));
	for (i = 0; i < extra; i++)
		ASSERT_EQ(0, ordsched_complete(b, t0 + 1 + i));
	ASSERT_EQ(0, waiter_join(&w, 15));
	EXPECT_WOKEN(w);
	EXPECT_EQ(0, w.rc);
}

static void pin_one_cpu(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(sched_getcpu(), &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/*
 * Pinned after the domain was opened: h "The CPUs the process may run on
 * are counted when the handle is made": a handle made after the pinning
 * does not spin.
 */
TEST_F(lc, nospin_one_cpu)
{
	struct ordsched *c;

	if (!self->ring)
		SKIP(return, "the ring's promise");
	pin_one_cpu();
	ASSERT_EQ(0, ordsched_new_handle(self->a, &c));
	nospin_case(_metadata, c, self->b, 0);
	ordsched_close(c);
}

/* Pinned before the domain is opened. */
TEST(nospin_one_cpu_from_start)
{
	struct ordsched *a, *b;

	if (!kernel_has_ring())
		SKIP(return, "no ORDSCHED_FEAT_RING");
	pin_one_cpu();
	ASSERT_EQ(0, ordsched_open(&a));
	ASSERT_EQ(0, ordsched_new_handle(a, &b));
	nospin_case(_metadata, a, b, 0);
	ordsched_close(b);
	ordsched_close(a);
}

TEST_F(lc, nospin_many_out)
{
	cpu_set_t set;

	if (!self->ring)
		SKIP(return, "the ring's promise");
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(set), &set));
	nospin_case(_metadata, self->a, self->b, CPU_COUNT(&set) + 1);
}

/* ------------------------------------------------------------------ */
/* System calls                                                        */

/*
 * h:30 "take, complete, trash and a wait whose turn comes while it spins
 * cost no system call"; h:258 is_turn "without a system call"; h:344/356
 * tail, head "from the status page"; h:177 "A handle that is not pollable
 * pays none of this"; h:329 complete_wait "none on the ring unless the
 * wait sleeps or the completion wakes a sleeper".
 */
static int ring_costs_body(void *arg)
{
	struct ordsched *a, *b;
	uint64_t t0, t1, t2, t3, x;
	int r = 0;

	if (ordsched_open(&a) || ordsched_new_handle(a, &b))
		return 100;
	if (!ordsched_uses_ring(a) || !ordsched_uses_ring(b))
		return 101;
	MARK();					/* 0: the first take */
	r |= ordsched_take(a, &t0);
	MARK();					/* 1: take */
	r |= ordsched_take(b, &t1);
	MARK();					/* 2: take */
	r |= ordsched_take(a, &t2);
	MARK();					/* 3: wait at the turn */
	r |= ordsched_wait(a, t0, ORDSCHED_NO_DEADLINE);
	MARK();					/* 4: is_turn, tail, head */
	r |= ordsched_is_turn(a, t0) != 1;
	r |= ordsched_tail(b) != t0;
	r |= ordsched_head(b) != t2 + 1;
	MARK();					/* 5: complete, to b */
	r |= ordsched_complete(a, t0);
	MARK();					/* 6: trash, to a */
	r |= ordsched_trash(b, t1);
	MARK();					/* 7: take */
	r |= ordsched_take(a, &t3);
	MARK();					/* 8: complete_wait */
	x = t2;
	r |= ordsched_complete_wait(a, &x, t3, ORDSCHED_NO_DEADLINE);
	MARK();					/* 9: complete early */
	r |= ordsched_take(a, &t0) | ordsched_take(b, &t1);
	MARK();					/* 10 */
	r |= ordsched_complete(b, t1);
	MARK();					/* 11: trash at the turn */
	r |= ordsched_trash(a, t3);
	MARK();					/* 12: take_batch of 1 */
	r |= ordsched_take_batch(b, 1, &t1);
	MARK();					/* 13: complete_batch of 1 */
	r |= ordsched_complete_batch(a, t0, 1);
	MARK();
	r |= ordsched_trash_batch(b, t1, 1);
	MARK();					/* end of 14 */
	return r ? 1 : 0;
}

TEST(ring_syscalls)
{
	long counts[MAX_MARKS];
	int nmarks, i;

	if (!kernel_has_ring())
		SKIP(return, "no ORDSCHED_FEAT_RING");
	ASSERT_EQ(0, count_syscalls(ring_costs_body, NULL, counts, &nmarks));
	ASSERT_EQ(16, nmarks);
	for (i = 0; i < 15; i++)
		EXPECT_EQ(0, counts[i]) TH_LOG("step %d: %ld system calls", i, counts[i]);
}

/*
 * h:31 "A wait that has to sleep flags its ticket and sleeps in the
 * kernel; a completion that moves the turn onto a sleeping ticket wakes
 * its owner with one system call."
 */
static int ring_wake_body(void *arg)
{
	struct ordsched *a, *b;
	uint64_t t0, t1, base;
	struct waiter w;
	int r = 0;

	if (ordsched_open(&a) || ordsched_new_handle(a, &b))
		return 100;
	ordsched_set_spin(b, 0);
	if (ordsched_take(a, &t0) || ordsched_take(b, &t1))
		return 101;
	base = stats_of(a).waits;
	if (waiter_start(&w, W_WAIT, b, t1, mono() + LONG_NS))
		return 102;
	if (!sleepers_reach(a, base + 1))
		return 104;
	MARK();
	r |= ordsched_complete(a, t0);
	MARK();
	if (waiter_join(&w, 15))
		return 103;
	return r ? 1 : w.rc ? 2 : 0;
}

TEST(ring_wake_syscall)
{
	long counts[MAX_MARKS];
	int nmarks;

	if (!kernel_has_ring())
		SKIP(return, "no ORDSCHED_FEAT_RING");
	ASSERT_EQ(0, count_syscalls(ring_wake_body, NULL, counts, &nmarks));
	ASSERT_EQ(2, nmarks);
	EXPECT_EQ(1, counts[0]);
}

/*
 * h:35 "Set the environment variable ORDSCHED_NO_RING ..., or open with
 * ORDSCHED_OPEN_NO_RING, to use one system call per operation as before";
 * h:329 complete_wait "One system call for the two steps".
 */
static int ioctl_costs_body(void *arg)
{
	struct ordsched *a;
	uint64_t t0, t1, x;
	int r = 0;

	if (ordsched_open_flags(&a, ORDSCHED_OPEN_NO_RING))
		return 100;
	MARK();					/* 0: take */
	r |= ordsched_take(a, &t0);
	MARK();					/* 1: take */
	r |= ordsched_take(a, &t1);
	MARK();					/* 2: complete */
	r |= ordsched_complete(a, t0);
	MARK();					/* 3: trash */
	r |= ordsched_trash(a, t1);
	MARK();					/* 4: take_batch */
	r |= ordsched_take_batch(a, 2, &t0);
	MARK();					/* 5: complete_batch */
	r |= ordsched_complete_batch(a, t0, 1);
	MARK();					/* 6: trash_batch */
	r |= ordsched_trash_batch(a, t0 + 1, 1);
	MARK();					/* 7: take */
	r |= ordsched_take(a, &t0) | ordsched_take(a, &t1);
	MARK();					/* 8: complete_wait */
	x = t0;
	r |= ordsched_complete_wait(a, &x, t1, ORDSCHED_NO_DEADLINE);
	MARK();					/* 9: wait at the turn */
	r |= ordsched_wait(a, t1, ORDSCHED_NO_DEADLINE);
	MARK();
	return r ? 1 : 0;
}

TEST(ioctl_syscalls)
{
	long counts[MAX_MARKS];
	int nmarks, i;

	ASSERT_EQ(0, count_syscalls(ioctl_costs_body, NULL, counts, &nmarks));
	ASSERT_EQ(11, nmarks);
	for (i = 0; i < 9; i++)
		if (i != 7)
			EXPECT_EQ(1, counts[i]) TH_LOG("step %d: %ld", i, counts[i]);
	EXPECT_GE(1, counts[9]);
}

/* ------------------------------------------------------------------ */
/* The environment                                                     */

/*
 * h:34 "Set the environment variable ORDSCHED_NO_RING (to anything but ""
 * or "0") ... to use one system call per operation"; man ENVIRONMENT
 * "handles use one system call per operation, never the shared ring".
 */
TEST(env_no_ring)
{
	static const char *const uses[] = { "uses", NULL };
	struct { const char *val; int ring; } cases[] = {
		{ NULL, 7 }, { "", 7 }, { "0", 7 }, { "1", 0 }, { "yes", 0 },
		{ "00", 0 }, { "false", 0 }, { " ", 0 }, { "0x", 0 },
	};
	unsigned int i;

	if (!kernel_has_ring())
		SKIP(return, "no ORDSCHED_FEAT_RING");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *val = cases[i].val;
		int want = cases[i].ring;

		EXPECT_EQ(want, run_probe(val, uses))
			TH_LOG("ORDSCHED_NO_RING=%s", val ?: "(unset)");
	}
}

/*
 * h "The environment variable ORDSCHED_NO_RING keeps this process's
 * handles off the ring ... but does not bind them as the flag does: a
 * domain opened under it gets a ring from a process without it only in
 * the case that ordsched_from_fd_flags() describes (its first handle,
 * before any other handle or ticket), so a handle made with
 * ordsched_new_handle() and passed on takes the ioctl path."
 */
TEST(env_only_this_process)
{
	static const char *const first[] = { "pass", "first", NULL };
	static const char *const newh[] = { "pass", "new", NULL };

	if (!kernel_has_ring())
		SKIP(return, "no ORDSCHED_FEAT_RING");
	EXPECT_EQ(1, run_probe("1", first)) TH_LOG("the first handle");
	EXPECT_EQ(0, run_probe("1", newh)) TH_LOG("a new handle");
	/* Control: without the variable. */
	EXPECT_EQ(1, run_probe(NULL, newh));
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "--probe"))
		return probe(argc, argv);
	return test_harness_run(argc, argv);
}
