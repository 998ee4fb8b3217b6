// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in for libordsched under ordsched-pgzip on the host, where no
 * device is (pgzip_check.sh runs it): tickets handed out in order under a
 * mutex, whose calls fail on demand, so that the program's answer to each
 * failure can be checked. PGZIP_FAKE=CALL:N makes the Nth call of CALL
 * (take, wait, complete, fchmod) fail with EIO (fchmod: EPERM, as vfat
 * answers one who may write there but does not own the file).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <libordsched.h>

#define WINDOW	4096

struct ordsched {
	pthread_mutex_t lock;
	pthread_cond_t turn;
	uint64_t head, tail;
	unsigned char retired[WINDOW];
};

static unsigned long calls[4];
static const char *const names[4] = { "take", "wait", "complete", "fchmod" };

/* Is this the call of @what that PGZIP_FAKE says must fail? */
static int fail_now(unsigned int what)
{
	const char *spec = getenv("PGZIP_FAKE");
	size_t len = strlen(names[what]);

	if (!spec || strncmp(spec, names[what], len) || spec[len] != ':')
		return 0;
	return __atomic_add_fetch(&calls[what], 1, __ATOMIC_RELAXED) ==
	       strtoul(spec + len + 1, NULL, 10);
}

int ordsched_open(struct ordsched **os)
{
	*os = calloc(1, sizeof(**os));
	if (!*os)
		return -ENOMEM;
	pthread_mutex_init(&(*os)->lock, NULL);
	pthread_cond_init(&(*os)->turn, NULL);
	return 0;
}

void ordsched_close(struct ordsched *os)
{
	free(os);
}

int ordsched_take(struct ordsched *os, uint64_t *ticket)
{
	if (fail_now(0))
		return -EIO;
	pthread_mutex_lock(&os->lock);
	if (os->head - os->tail >= WINDOW) {
		pthread_mutex_unlock(&os->lock);
		return -EAGAIN;
	}
	*ticket = os->head++;
	pthread_mutex_unlock(&os->lock);
	return 0;
}

int ordsched_wait(struct ordsched *os, uint64_t ticket, uint64_t deadline_ns)
{
	(void)deadline_ns;
	if (fail_now(1))
		return -EIO;
	pthread_mutex_lock(&os->lock);
	while (os->tail != ticket)
		pthread_cond_wait(&os->turn, &os->lock);
	pthread_mutex_unlock(&os->lock);
	return 0;
}

static int retire(struct ordsched *os, uint64_t ticket)
{
	pthread_mutex_lock(&os->lock);
	if (ticket - os->tail >= os->head - os->tail ||
	    os->retired[ticket % WINDOW]) {
		pthread_mutex_unlock(&os->lock);
		return -EALREADY;
	}
	os->retired[ticket % WINDOW] = 1;
	while (os->tail != os->head && os->retired[os->tail % WINDOW])
		os->retired[os->tail++ % WINDOW] = 0;
	pthread_cond_broadcast(&os->turn);
	pthread_mutex_unlock(&os->lock);
	return 0;
}

int ordsched_complete(struct ordsched *os, uint64_t ticket)
{
	if (fail_now(2))
		return -EIO;
	return retire(os, ticket);
}

int ordsched_trash(struct ordsched *os, uint64_t ticket)
{
	return retire(os, ticket);
}

int ordsched_is_turn(const struct ordsched *os, uint64_t ticket)
{
	return __atomic_load_n(&os->tail, __ATOMIC_ACQUIRE) == ticket;
}

uint64_t ordsched_head(const struct ordsched *os)
{
	return __atomic_load_n(&os->head, __ATOMIC_ACQUIRE);
}

int ordsched_uses_ring(const struct ordsched *os)
{
	(void)os;
	return 0;
}

int ordsched_stats(struct ordsched *os, struct ordsched_stats *st)
{
	(void)os;
	memset(st, 0, sizeof(*st));
	return 0;
}

uint64_t ordsched_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int __real_fchmod(int fd, mode_t mode);

int __wrap_fchmod(int fd, mode_t mode)
{
	if (fail_now(3)) {
		errno = EPERM;
		return -1;
	}
	return __real_fchmod(fd, mode);
}
