// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/* libordsched: handles, their descriptors and the status page. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

#define DEVICE_PATH "/dev/" ORDSCHED_DEVICE_NAME

/* Handshake, then map the status page where the kernel says it is. */
static int os_setup(struct ordsched *os)
{
	const char *page;
	void *map;
	int ret;

	os->api.version = ORDSCHED_API_VERSION;
	ret = os_ioctl(os, ORDSCHED_IOC_API, &os->api);
	if (ret)
		return ret;
	if (!(os->api.features & ORDSCHED_FEAT_STATUS_PAGE) ||
	    os->api.status_tail_offset + sizeof(uint64_t) > os->api.status_size ||
	    os->api.status_head_offset + sizeof(uint64_t) > os->api.status_size)
		return -EPROTO;
	map = mmap(NULL, os->api.status_size, PROT_READ, MAP_SHARED, os->fd, 0);
	if (map == MAP_FAILED)
		return -errno;
	page = map;
	os->status = map;
	os->tail = (const uint64_t *)(page + os->api.status_tail_offset);
	os->head = (const uint64_t *)(page + os->api.status_head_offset);
	return 0;
}

int ordsched_from_fd(int fd, struct ordsched **out)
{
	struct ordsched *os = calloc(1, sizeof(*os));
	int ret;

	if (!os) {
		close(fd);
		return -ENOMEM;
	}
	os->fd = fd;
	os->spin = ORDSCHED_DEFAULT_SPIN;
	ret = os_setup(os);
	if (!ret) {
		os->owned = calloc((os->api.window + 63) / 64,
				   sizeof(*os->owned));
		if (!os->owned) {
			munmap((void *)os->status, os->api.status_size);
			ret = -ENOMEM;
		}
	}
	if (ret) {
		close(fd);
		free(os);
		return ret;
	}
	*out = os;
	return 0;
}

int ordsched_open(struct ordsched **os)
{
	int fd = open(DEVICE_PATH, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	return ordsched_from_fd(fd, os);
}

int ordsched_new_handle(struct ordsched *os, struct ordsched **out)
{
	struct ordsched_new_handle nh = { .flags = ORDSCHED_HANDLE_CLOEXEC };
	int fd = os_ioctl(os, ORDSCHED_IOC_NEW_HANDLE, &nh);

	if (fd < 0)
		return fd;
	return ordsched_from_fd(fd, out);
}

void ordsched_close(struct ordsched *os)
{
	if (!os)
		return;
	munmap((void *)os->status, os->api.status_size);
	close(os->fd);
	free(os->owned);
	free(os);
}

int ordsched_fd(const struct ordsched *os)
{
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
