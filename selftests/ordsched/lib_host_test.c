// SPDX-License-Identifier: GPL-2.0
/*
 * libordsched on the host, against a device it cannot tell from the real
 * one: a memfd is the status page and --wrap=ioctl answers the handshake.
 * For what the module never does today but the headers allow, or what
 * needs a descriptor number to change hands at an exact moment; the
 * guest's tests cover the rest against the real module.
 *
 * Prints TAP-style "ok"/"not ok" lines; exits 1 if one failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <libordsched.h>

#define PAGE	4096

/* The handshake's offsets; the page may say others. */
#define API_TAIL	128
#define API_HEAD	256

static int failed;

/* -1: answer every handshake; else answer this one with EBADF first. */
static int ebadf_fd = -1;
/* The descriptor that took ebadf_fd's number meanwhile. */
static int stolen_fd = -1;

int __real_ioctl(int fd, unsigned long cmd, ...);

int __wrap_ioctl(int fd, unsigned long cmd, ...)
{
	struct ordsched_api *a;
	va_list ap;

	va_start(ap, cmd);
	a = va_arg(ap, struct ordsched_api *);
	va_end(ap);
	if (cmd != ORDSCHED_IOC_API) {
		errno = ENOTTY;
		return -1;
	}
	if (fd == ebadf_fd) {
		/* Another thread's open() takes the free number now. */
		stolen_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		errno = EBADF;
		return -1;
	}
	memset(a, 0, sizeof(*a));
	a->version = ORDSCHED_API_VERSION;
	a->features = ORDSCHED_FEAT_STATUS_PAGE;
	a->status_size = PAGE;
	a->status_tail_offset = API_TAIL;
	a->status_head_offset = API_HEAD;
	a->window = 64;
	a->max_batch = 16;
	a->max_held = 64;
	return 0;
}

static void check(bool ok, const char *name, const char *why)
{
	printf("%sok lib_host_test.%s%s%s\n", ok ? "" : "not ", name,
	       ok ? "" : " # ", ok ? "" : why);
	failed |= !ok;
}

/*
 * A status page whose struct ordsched_status puts the tail at @tail_off
 * and the head at @head_off, holding 7 and 9; the handshake's words hold
 * 1 and 2. A descriptor, or -1.
 */
static int fake_page(unsigned int tail_off, unsigned int head_off)
{
	struct ordsched_status st = {
		.version = ORDSCHED_API_VERSION, .size = PAGE,
		.features = ORDSCHED_FEAT_STATUS_PAGE, .window = 64,
		.tail_offset = tail_off, .head_offset = head_off,
	};
	uint64_t tail = 7, head = 9, api_tail = 1, api_head = 2;
	int fd = memfd_create("ordsched-status", MFD_CLOEXEC);

	if (fd < 0 || ftruncate(fd, PAGE) ||
	    pwrite(fd, &st, sizeof(st), 0) != sizeof(st) ||
	    pwrite(fd, &api_tail, 8, API_TAIL) != 8 ||
	    pwrite(fd, &api_head, 8, API_HEAD) != 8 ||
	    (tail_off <= PAGE - 8 && pwrite(fd, &tail, 8, tail_off) != 8) ||
	    (head_off <= PAGE - 8 && pwrite(fd, &head, 8, head_off) != 8)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/*
 * uapi/linux/ordsched.h, struct ordsched_status: "Read the three from the
 * page, not from the handshake". The handle reads the tail and the head
 * where the page says they are, also when the page moves them after the
 * handshake.
 */
static void tail_and_head_from_the_page(void)
{
	int fd = fake_page(192, 320), ret;
	struct ordsched *os = NULL;
	struct ordsched_status st;
	uint64_t t1, h1, t2, h2;

	if (fd < 0) {
		check(false, "tail_and_head_from_the_page", "memfd");
		return;
	}
	ret = ordsched_from_fd_flags(dup(fd), ORDSCHED_OPEN_NO_RING, &os);
	if (ret) {
		check(false, "tail_and_head_from_the_page", "from_fd failed");
		close(fd);
		return;
	}
	t1 = ordsched_tail(os);
	h1 = ordsched_head(os);
	/* The page moves its words back where the handshake had them. */
	pread(fd, &st, sizeof(st), 0);
	st.tail_offset = API_TAIL;
	st.head_offset = API_HEAD;
	pwrite(fd, &st, sizeof(st), 0);
	t2 = ordsched_tail(os);
	h2 = ordsched_head(os);
	printf("# tail %llu head %llu, then %llu %llu\n",
	       (unsigned long long)t1, (unsigned long long)h1,
	       (unsigned long long)t2, (unsigned long long)h2);
	check(t1 == 7 && h1 == 9 && t2 == 1 && h2 == 2,
	      "tail_and_head_from_the_page",
	      "read the handshake's offsets, not the page's");
	ordsched_close(os);
	close(fd);
}

/* A page that puts its tail past its end is refused: EPROTO, fd closed. */
static void page_offset_outside_refused(void)
{
	int fd = fake_page(PAGE - 4, 320), copy, ret;
	struct ordsched *os = NULL;

	if (fd < 0) {
		check(false, "page_offset_outside_refused", "memfd");
		return;
	}
	copy = dup(fd);
	ret = ordsched_from_fd_flags(copy, ORDSCHED_OPEN_NO_RING, &os);
	printf("# from_fd %d\n", ret);
	check(ret == -EPROTO && fcntl(copy, F_GETFD) == -1 && errno == EBADF,
	      "page_offset_outside_refused",
	      "not EPROTO, or the adopted descriptor left open");
	close(fd);
}

/*
 * libordsched.h, ordsched_from_fd(): "-EBADF when @fd is not an open
 * descriptor". The number is nobody's when the call starts; another
 * thread's open() takes it before the call returns. The call must not
 * close that thread's file.
 */
static void ebadf_closes_nothing(void)
{
	struct ordsched *os = NULL;
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC), ret;
	bool open_after;

	if (fd < 0) {
		check(false, "ebadf_closes_nothing", "open");
		return;
	}
	close(fd);
	ebadf_fd = fd;
	ret = ordsched_from_fd(fd, &os);
	ebadf_fd = -1;
	open_after = stolen_fd == fd && fcntl(fd, F_GETFD) != -1;
	printf("# from_fd %d; number %d taken by %d, still open: %d\n", ret,
	       fd, stolen_fd, open_after);
	check(ret == -EBADF && open_after, "ebadf_closes_nothing",
	      "closed a descriptor another thread had just opened");
	if (stolen_fd >= 0)
		close(stolen_fd);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	tail_and_head_from_the_page();
	page_offset_outside_refused();
	ebadf_closes_nothing();
	return failed;
}
