// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/* libordsched: handles, their descriptors and the status page. */
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

#define DEVICE_PATH "/dev/" ORDSCHED_DEVICE_NAME

/*
 * The tail (or, with @head, the head) where the status page says it is
 * now: the handshake's offsets are those of the moment it answered, and a
 * domain becomes a ring domain after it (struct ordsched_status). NULL
 * for an offset the page cannot hold, or not aligned: a ring domain's
 * participants can write the page.
 */
const uint64_t *ordsched__status_word(const struct ordsched *os, bool head)
{
	const volatile struct ordsched_status *st = os->status;
	uint32_t off = head ? st->head_offset : st->tail_offset;

	if (off % sizeof(uint64_t) ||
	    off > os->api.status_size - sizeof(uint64_t))
		return NULL;
	return (const uint64_t *)((const char *)os->status + off);
}

/* Handshake, then map the status page and find its words in it. */
static int os_setup(struct ordsched *os)
{
	void *map;
	int ret;

	os->api.version = ORDSCHED_API_VERSION;
	ret = os_ioctl(os, ORDSCHED_IOC_API, &os->api);
	if (ret)
		return ret;
	if (!(os->api.features & ORDSCHED_FEAT_STATUS_PAGE) ||
	    os->api.status_size < sizeof(struct ordsched_status))
		return -EPROTO;
	map = mmap(NULL, os->api.status_size, PROT_READ, MAP_SHARED, os->fd, 0);
	if (map == MAP_FAILED)
		return -errno;
	os->status = map;
	os->tail = ordsched__status_word(os, false);
	os->head = ordsched__status_word(os, true);
	if (!os->tail || !os->head) {
		munmap(map, os->api.status_size);
		os->status = NULL;
		return -EPROTO;
	}
	return 0;
}

/* ORDSCHED_NO_RING set to anything but "" or "0" forces the ioctl path. */
static bool os_want_ring(unsigned int flags)
{
	const char *env = getenv("ORDSCHED_NO_RING");

	if (flags & ORDSCHED_OPEN_NO_RING)
		return false;
	/*
	 * The ring's words are shared with the kernel and other processes:
	 * an atomic that libatomic emulates with a lock of this process's
	 * own would not be one there.
	 */
	if (!__atomic_always_lock_free(sizeof(__u64), 0))
		return false;
	return !env || !*env || !strcmp(env, "0");
}

/* The CPUs this process may run on: spinning needs a second one. */
static unsigned int os_cpus(void)
{
	cpu_set_t set;
	long n;

	if (!sched_getaffinity(0, sizeof(set), &set))
		return CPU_COUNT(&set);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? n : 1;
}

/*
 * Give the handle an id in the domain's ring and map the ring page. Three
 * answers leave the handle on the ioctl path, which works in every
 * domain: EBUSY (a domain that never had a ring and can no longer get
 * one), EBADF (a descriptor not open for reading and writing, which
 * only a domain without a ring can have), and a page whose layout makes no sense (the
 * handle has its id, which the kernel's commands use). Every other failure refuses the
 * handle, as libordsched.h says ("takes the ring when @os does"): ENOSPC
 * (a ring domain with no free id left, where every command of the ioctl
 * path would need one too), ENOMEM from the kernel or here, and a failed
 * mmap(2) of the ring page.
 */
static int os_ring_setup(struct ordsched *os)
{
	struct ordsched_ring_setup rs = { 0 };
	char *page;
	void *map;
	int ret;

	if (!(os->api.features & ORDSCHED_FEAT_RING))
		return 0;
	ret = os_ioctl(os, ORDSCHED_IOC_RING_SETUP, &rs);
	if (ret)
		return ret == -EBUSY || ret == -EBADF ? 0 : ret;
	if (!rs.id || !rs.slots || (rs.slots & (rs.slots - 1)) ||
	    rs.head_offset % 8 || rs.tail_offset % 8 || rs.slots_offset % 8 ||
	    rs.head_offset + 8 > rs.size || rs.tail_offset + 8 > rs.size ||
	    rs.slots_offset > rs.size ||
	    (rs.size - rs.slots_offset) / 8 < rs.slots)
		return 0;
	os->ring_waiters = calloc(rs.slots, sizeof(*os->ring_waiters));
	if (!os->ring_waiters)
		return -ENOMEM;
	map = mmap(NULL, rs.size, PROT_READ | PROT_WRITE, MAP_SHARED, os->fd,
		   rs.mmap_offset);
	if (map == MAP_FAILED) {
		ret = -errno;
		free(os->ring_waiters);
		os->ring_waiters = NULL;
		return ret;
	}
	page = map;
	os->ring_size = rs.size;
	os->ring_id = rs.id;
	os->view.head = (__u64 *)(page + rs.head_offset);
	os->view.tail = (__u64 *)(page + rs.tail_offset);
	os->view.slots = (__u64 *)(page + rs.slots_offset);
	os->view.mask = rs.slots - 1;
	/* The status page's words are the ring's: read them here. */
	os->tail = (const uint64_t *)os->view.tail;
	os->head = (const uint64_t *)os->view.head;
	/*
	 * A ring domain's window is its number of slots, not the handshake's
	 * (which sized os->owned, used only on the ioctl path): ordsched_api()
	 * tells the caller the window its takes meet.
	 */
	os->api.window = rs.slots;
	os->ring_map = map;
	return 0;
}

/*
 * The program may poll(2) the handle from now on: on the ring, flag the
 * handle's tickets (os->pollable is the library's own state, not part of
 * what the const of ordsched_fd() promises the caller). The seq_cst store
 * before the scan pairs with a take's claim before its load of
 * os->pollable (see ordsched__ring_flag()). Tickets of another process sharing
 * the handle may get flagged too: that costs them a wake-up call, no
 * more.
 */
static void os_set_pollable(struct ordsched *os)
{
	__u64 t, tail, n, i;

	if (!os_ring(os) || __atomic_load_n(&os->pollable, __ATOMIC_RELAXED))
		return;
	__atomic_store_n(&os->pollable, 1, __ATOMIC_SEQ_CST);
	/*
	 * From the tail to the head included: a taker that claimed the slot
	 * at the head and has not moved it yet may have read pollable 0.
	 */
	tail = os_ring_load(os->view.tail);
	n = os_ring_load(os->view.head) - tail;
	/*
	 * A tail read long before the head (we were preempted while others
	 * took and retired a window's worth): every live ticket is among
	 * the last slots + 1 up to the head, and a slot that names another
	 * ticket is skipped below.
	 */
	if (n > os->view.mask + 1) {
		tail += n - (os->view.mask + 1);
		n = os->view.mask + 1;
	}
	for (i = 0; i <= n; i++) {
		t = tail + i;
		if (os_ring_load(ordsched_ring_slot(&os->view, t)) ==
		    ordsched_ring_word(t, os->ring_id, ORDSCHED_RING_OWNED))
			ordsched__ring_flag(os, t);
	}
}

/*
 * An open descriptor of O_PATH: ioctl(2) answers it EBADF, as it answers
 * a number that is not open, which the library must not close. Asked
 * before the first ioctl, while the number is still the caller's.
 */
static bool os_is_path_fd(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl >= 0 && (fl & O_PATH);
}

static int os_from_fd_errno(int fd, unsigned int flags, int pollable,
			    struct ordsched **out)
{
	struct ordsched *os;
	int ret;

	if (flags & ~ORDSCHED_OPEN_NO_RING) {
		close(fd);
		return -EINVAL;
	}
	/* Adopted (@pollable): maybe O_PATH; the library's own open() is not. */
	if (pollable && os_is_path_fd(fd)) {
		close(fd);
		return -ENOTTY;
	}
	os = calloc(1, sizeof(*os));

	if (!os) {
		close(fd);
		return -ENOMEM;
	}
	os->fd = fd;
	os->spin = ORDSCHED_DEFAULT_SPIN;
	os->ncpus = os_cpus();
	ret = os_setup(os);
	if (ret)
		goto out_free;
	os->owned = calloc(os->api.window, sizeof(*os->owned));
	if (!os->owned) {
		ret = -ENOMEM;
		goto out_unmap;
	}
	if (os_want_ring(flags)) {
		ret = os_ring_setup(os);
		if (ret)
			goto out_owned;
	}
	/*
	 * A descriptor passed on may come with tickets its handle already
	 * holds: flag them too, as ordsched_fd() does.
	 */
	if (pollable)
		os_set_pollable(os);
	*out = os;
	return 0;

out_owned:
	free(os->owned);
out_unmap:
	munmap((void *)os->status, os->api.status_size);
out_free:
	/*
	 * The handshake's EBADF: @fd is no open descriptor, so there is
	 * nothing to close, and its number may be another thread's by now.
	 */
	if (ret != -EBADF || os->status)
		close(fd);
	free(os);
	return ret;
}

/*
 * os_from_fd_errno(), and errno as it found it: the calloc(), mmap() and
 * close() there may change it whether they fail or not.
 */
static int os_from_fd(int fd, unsigned int flags, int pollable,
		      struct ordsched **out)
{
	int saved = errno, ret = os_from_fd_errno(fd, flags, pollable, out);

	errno = saved;
	return ret;
}

/* The caller knows the descriptor: it may poll it from the start. */
int ordsched_from_fd_flags(int fd, unsigned int flags, struct ordsched **out)
{
	return os_from_fd(fd, flags, 1, out);
}

/*
 * Two versions each of ordsched_from_fd() and ordsched_open(). Programs
 * linked against 1.0 call the LIBORDSCHED_1.0 ones. Some of them were
 * written before the ring existed, and rely on what the ioctl path gives
 * (ordsched_take_batch() takes real batches, the kernel checks
 * ownership): those versions take it, as ORDSCHED_OPEN_NO_RING does. The
 * rest, linked while the ring was already the default, only lose its
 * speed. Programs built since get the ring by default, through the
 * LIBORDSCHED_1.2 ones (the default version, which a static link gets
 * too): a new node, as a node once shipped never gains a symbol (a
 * program that needs LIBORDSCHED_1.1 must run with any library that has
 * it). Builds between 46ee4c2 and f1661a1 (labelled 0.2.0 too) put the
 * ring-default versions in LIBORDSCHED_1.1: programs linked against
 * them need ordsched_open@LIBORDSCHED_1.1, which stays, the same as
 * 1.2's. GCC's attribute survives LTO; clang before 15 knows only the
 * assembler directive.
 */
#ifndef __has_attribute
#define __has_attribute(x) 0
#endif
/*
 * The archive's objects (ORDSCHED_LIB_STATIC) carry no versions: linked
 * into a shared object of the user's, versions would need the library's
 * version nodes there ("version node not found"). There the current
 * versions simply bear the plain names, the ones that a program linked
 * statically has always bound to (the default version).
 */
#if defined(ORDSCHED_LIB_STATIC)
#define OS_SYMVER(fn, ver) extern __typeof__(fn) fn
#elif __has_attribute(symver)
#define OS_SYMVER(fn, ver) extern __typeof__(fn) fn __attribute__((symver(ver)))
#else
#define OS_SYMVER(fn, ver) __asm__(".symver " #fn ", " ver)
#endif

int ordsched_from_fd_1_0(int fd, struct ordsched **os);
int ordsched_from_fd_1_2(int fd, struct ordsched **os);
int ordsched_open_1_0(struct ordsched **os);
int ordsched_open_1_2(struct ordsched **os);
int ordsched_from_fd_1_1(int fd, struct ordsched **os);
int ordsched_open_1_1(struct ordsched **os);
OS_SYMVER(ordsched_from_fd_1_0, "ordsched_from_fd@LIBORDSCHED_1.0");
OS_SYMVER(ordsched_from_fd_1_1, "ordsched_from_fd@LIBORDSCHED_1.1");
OS_SYMVER(ordsched_from_fd_1_2, "ordsched_from_fd@@LIBORDSCHED_1.2");
OS_SYMVER(ordsched_open_1_0, "ordsched_open@LIBORDSCHED_1.0");
OS_SYMVER(ordsched_open_1_1, "ordsched_open@LIBORDSCHED_1.1");
OS_SYMVER(ordsched_open_1_2, "ordsched_open@@LIBORDSCHED_1.2");

/*
 * A domain that has had a second handle can never become a ring domain:
 * so that nobody @os is passed to can make it one (and the ownership
 * checks stay the kernel's), make one and drop it. A module without rings
 * (nor, maybe, ORDSCHED_IOC_NEW_HANDLE) has nothing to guard against. On
 * failure @os is closed and *@out cleared.
 */
static int os_bind_no_ring(struct ordsched **out, int saved)
{
	struct ordsched_new_handle nh = { .flags = ORDSCHED_HANDLE_CLOEXEC };
	int fd;

	if (!((*out)->api.features & ORDSCHED_FEAT_RING))
		return 0;
	fd = os_ioctl(*out, ORDSCHED_IOC_NEW_HANDLE, &nh);
	if (fd < 0) {
		ordsched_close(*out);
		*out = NULL;
		return fd;
	}
	close(fd);
	errno = saved;
	return 0;
}

/*
 * A program of 1.0 keeps the kernel's ownership checks and real batches
 * in the domains it adopts too, unless they are ring domains already:
 * bound as ordsched_open_1_0() binds the domains it opens.
 */
int ordsched_from_fd_1_0(int fd, struct ordsched **os)
{
	int saved = errno, ret = os_from_fd(fd, ORDSCHED_OPEN_NO_RING, 1, os);

	return ret ? ret : os_bind_no_ring(os, saved);
}

int ordsched_from_fd_1_2(int fd, struct ordsched **os)
{
	return os_from_fd(fd, 0, 1, os);
}

int ordsched_from_fd_1_1(int fd, struct ordsched **os)
{
	return ordsched_from_fd_1_2(fd, os);
}

#ifdef ORDSCHED_LIB_STATIC
extern __typeof__(ordsched_from_fd) ordsched_from_fd
	__attribute__((alias("ordsched_from_fd_1_2")));
#endif

int ordsched_open_flags(struct ordsched **os, unsigned int flags)
{
	int fd, ret, saved = errno;

	if (flags & ~ORDSCHED_OPEN_NO_RING)
		return -EINVAL;
	fd = open(DEVICE_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return os_errno(saved);
	ret = os_from_fd(fd, flags, 0, os);
	if (ret || !(flags & ORDSCHED_OPEN_NO_RING))
		return ret;
	return os_bind_no_ring(os, saved);
}

int ordsched_open_1_0(struct ordsched **os)
{
	return ordsched_open_flags(os, ORDSCHED_OPEN_NO_RING);
}

int ordsched_open_1_2(struct ordsched **os)
{
	return ordsched_open_flags(os, 0);
}

int ordsched_open_1_1(struct ordsched **os)
{
	return ordsched_open_1_2(os);
}

#ifdef ORDSCHED_LIB_STATIC
extern __typeof__(ordsched_open) ordsched_open
	__attribute__((alias("ordsched_open_1_2")));
#endif

int ordsched_uses_ring(const struct ordsched *os)
{
	return os_ring(os);
}

int ordsched_new_handle(struct ordsched *os, struct ordsched **out)
{
	struct ordsched_new_handle nh = { .flags = ORDSCHED_HANDLE_CLOEXEC };
	int fd = os_ioctl(os, ORDSCHED_IOC_NEW_HANDLE, &nh);

	if (fd < 0)
		return fd;
	/* The new handle takes the path of the one it comes from. */
	return os_from_fd(fd, os_ring(os) ? 0 : ORDSCHED_OPEN_NO_RING, 0, out);
}

void ordsched_close(struct ordsched *os)
{
	int saved = errno;

	if (!os)
		return;
	if (os->ring_map)
		munmap(os->ring_map, os->ring_size);
	munmap((void *)os->status, os->api.status_size);
	close(os->fd);
	free(os->ring_waiters);
	free(os->owned);
	free(os);
	errno = saved;
}

/* Whoever asks for the descriptor may poll it: see os_set_pollable(). */
int ordsched_fd(const struct ordsched *os)
{
	os_set_pollable((struct ordsched *)os);
	return os->fd;
}

const struct ordsched_api *ordsched_api(const struct ordsched *os)
{
	return &os->api;
}

void ordsched_set_spin(struct ordsched *os, unsigned int spins)
{
	__atomic_store_n(&os->spin, spins, __ATOMIC_RELAXED);
}

int ordsched_stats(struct ordsched *os, struct ordsched_stats *st)
{
	memset(st, 0, sizeof(*st));
	return os_ioctl(os, ORDSCHED_IOC_STATS, st);
}
