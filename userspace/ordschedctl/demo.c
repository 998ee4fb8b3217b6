// SPDX-License-Identifier: GPL-2.0
/*
 * ordschedctl demo: worker threads take items in arrival order, "work"
 * on each for a random time, so they finish out of order, and print the
 * results in arrival order: the ticket's turn orders the printing.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "ctl.h"

struct demo {
	struct ordsched *os;
	unsigned int items;
	uint64_t first;		/* ticket of item 0 */
	uint64_t printed;	/* items printed, checked in order */
	int err;
};

struct worker {
	struct demo *d;
	unsigned int id;
	unsigned int seed;
};

static int demo_item(struct worker *w, uint64_t t)
{
	struct demo *d = w->d;
	unsigned int work = rand_r(&w->seed) % 3000;
	uint64_t t0;
	int ret;

	usleep(work);
	t0 = ordsched_now();
	/*
	 * No deadline: a worker that fails trashes its ticket, so nobody
	 * waits for it; the turn's owner may be held only by a full pipe
	 * (output into a pager nobody reads yet), which is no error.
	 */
	ret = ordsched_wait(d->os, t, ORDSCHED_NO_DEADLINE);
	if (ret)
		return ret;
	printf("item %3llu  worker %u  worked %4u us  waited %5llu us for its turn\n",
	       (unsigned long long)(t - d->first), w->id, work,
	       (unsigned long long)(ordsched_now() - t0) / 1000);
	if (t - d->first != d->printed)
		d->err = -EPROTO;
	d->printed++;
	return ordsched_complete(d->os, t);
}

static void *demo_thread(void *arg)
{
	struct worker *w = arg;
	struct demo *d = w->d;
	uint64_t t;
	int ret;

	for (;;) {
		ret = ordsched_take(d->os, &t);
		if (ret)
			break;
		if (t - d->first >= d->items) {
			ret = ordsched_trash(d->os, t);
			break;
		}
		ret = demo_item(w, t);
		if (ret) {
			/* Trashed, so the later items' workers do not wait. */
			ordsched_trash(d->os, t);
			break;
		}
	}
	if (ret)
		d->err = ret;
	return NULL;
}

/* A whole decimal number from @min to @max of -@opt, or -1 and a message. */
static long demo_num(int opt, const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (!errno && end != s && !*end && v >= min && v <= max)
		return v;
	fprintf(stderr, "%s: demo: -%c %s: not a number from %ld to %ld\n",
		prog, opt, s, min, max);
	return -1;
}

int cmd_demo(int argc, char **argv)
{
	struct demo d = { .items = 20 };
	long threads = 4, items = 20, i, started;
	struct worker w[64];
	pthread_t th[64];
	int opt, ret;

	opterr = 0;
	while ((opt = getopt(argc, argv, "t:n:")) != -1) {
		switch (opt) {
		case 't':
			threads = demo_num(opt, optarg, 1, 64);
			break;
		case 'n':
			items = demo_num(opt, optarg, 1, INT_MAX);
			break;
		default:
			fprintf(stderr, optopt == 't' || optopt == 'n' ?
				"%s: demo: -%c needs a number\n" :
				"%s: demo: -%c: no such option\n",
				prog, optopt);
			threads = 0;
			break;
		}
		if (threads < 1 || items < 1)
			break;
	}
	if (threads >= 1 && items >= 1 && optind != argc)
		fprintf(stderr, "%s: demo: extra operand '%s'\n", prog,
			argv[optind]);
	if (threads < 1 || items < 1 || optind != argc) {
		fprintf(stderr, "usage: %s demo [-t THREADS] [-n ITEMS]: 1 to 64 threads, 1 to %d items\n",
			prog, INT_MAX);
		return 2;
	}
	d.items = items;
	ret = ordsched_open(&d.os);
	if (ret)
		return fail("cannot open the device", ret);
	d.first = ordsched_head(d.os);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("%ld workers, %u items of 0-3 ms of work each, printed in order:\n",
	       threads, d.items);
	for (started = 0; started < threads; started++) {
		w[started] = (struct worker){ .d = &d, .id = started,
					      .seed = started * 7919 + 1 };
		ret = pthread_create(&th[started], NULL, demo_thread,
				     &w[started]);
		if (ret) {
			/* Those started finish the items alone. */
			if (!started) {
				ordsched_close(d.os);
				return fail("cannot start a thread", -ret);
			}
			break;
		}
	}
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	ordsched_close(d.os);
	if (d.err)
		return fail("demo", d.err);
	printf("%llu items, all in order\n", (unsigned long long)d.printed);
	return 0;
}
