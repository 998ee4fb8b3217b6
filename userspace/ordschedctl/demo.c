// SPDX-License-Identifier: GPL-2.0
/*
 * ordschedctl demo: worker threads take items in arrival order, "work"
 * on each for a random time, so they finish out of order, and print the
 * results in arrival order: the ticket's turn orders the printing.
 */
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
	ret = ordsched_wait(d->os, t, ordsched_deadline_in(60000000000ULL));
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
		if (ret)
			break;
	}
	if (ret)
		d->err = ret;
	return NULL;
}

int cmd_demo(int argc, char **argv)
{
	struct demo d = { .items = 20 };
	unsigned int threads = 4, i;
	struct worker w[64];
	pthread_t th[64];
	int opt, ret;

	while ((opt = getopt(argc, argv, "t:n:")) != -1) {
		switch (opt) {
		case 't':
			threads = strtoul(optarg, NULL, 10);
			break;
		case 'n':
			d.items = strtoul(optarg, NULL, 10);
			break;
		default:
			fprintf(stderr, "usage: %s demo [-t THREADS] [-n ITEMS]\n", prog);
			return 2;
		}
	}
	if (!threads || threads > 64 || !d.items) {
		fprintf(stderr, "%s: demo: 1 to 64 threads, at least 1 item\n", prog);
		return 2;
	}
	ret = ordsched_open(&d.os);
	if (ret)
		return fail("cannot open the device", ret);
	d.first = ordsched_head(d.os);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("%u workers, %u items of 0-3 ms of work each, printed in order:\n",
	       threads, d.items);
	for (i = 0; i < threads; i++) {
		w[i] = (struct worker){ .d = &d, .id = i, .seed = i * 7919 + 1 };
		pthread_create(&th[i], NULL, demo_thread, &w[i]);
	}
	for (i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	ordsched_close(d.os);
	if (d.err)
		return fail("demo", d.err);
	printf("%llu items, all in order\n", (unsigned long long)d.printed);
	return 0;
}
