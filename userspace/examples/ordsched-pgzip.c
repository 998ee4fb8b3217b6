// SPDX-License-Identifier: GPL-2.0
/*
 * ordsched-pgzip: compress a file with gzip on every CPU, writing the
 * compressed stream in input order.
 *
 * The input is cut into chunks; worker threads compress chunks in
 * parallel, each into a complete gzip member (RFC 1952 allows several
 * members in a row and gunzip decompresses them into one stream). The
 * chunk a worker compresses is the one its ticket names: taking ticket t
 * assigns chunk t, so there is no shared cursor, no queue and no reorder
 * buffer. When the compressed member is ready the worker waits for its
 * ticket's turn, writes the member and completes the ticket, which hands
 * the turn to the next chunk's worker. A worker whose chunk is out of
 * the file trashes its ticket and stops.
 *
 * Where the kernel offers the shared ring, taking, completing and a wait
 * whose turn comes while it spins cost no system call: the only ones left
 * are the sleeps of a worker whose turn is far, and the wake-up its
 * predecessor gives it. -v says which path ran and how often a worker
 * slept in the kernel.
 *
 * usage: ordsched-pgzip [-j THREADS] [-b CHUNK_KIB] [-l LEVEL] [-v]
 *                       INPUT [OUTPUT]
 * OUTPUT defaults to standard output.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "libordsched.h"

#define MAX_THREADS	64

struct job {
	struct ordsched *os;
	int in, out;
	off_t size;
	size_t chunk;
	uint64_t chunks;	/* at least one: an empty file gives one member */
	int level;
	uint64_t first;		/* the ticket of chunk 0 */
	int err;		/* first error, -errno or a zlib code */
	uint64_t bytes_out;	/* written so far, only in turn */
	uint64_t waited;	/* waits that found the turn not yet come */
};

struct worker {
	struct job *job;
	unsigned char *in, *out;
	size_t out_size;
	z_stream zs;
};

static void job_fail(struct job *job, int err)
{
	int zero = 0;

	__atomic_compare_exchange_n(&job->err, &zero, err, 0,
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
	ssize_t w;

	while (n) {
		w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w;
		n -= w;
	}
	return 0;
}

static ssize_t read_chunk(struct worker *w, off_t off)
{
	size_t want = w->job->chunk, got = 0;
	ssize_t r;

	if ((off_t)want > w->job->size - off)
		want = w->job->size - off;
	while (got < want) {
		r = pread(w->job->in, w->in + got, want - got, off + got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -EIO;	/* the file shrank under us */
		got += r;
	}
	return got;
}

/* One gzip member for one chunk; returns its length or a negative code. */
static ssize_t compress_chunk(struct worker *w, size_t len)
{
	int ret = deflateReset(&w->zs);

	if (ret != Z_OK)
		return -EPROTO;
	w->zs.next_in = w->in;
	w->zs.avail_in = len;
	w->zs.next_out = w->out;
	w->zs.avail_out = w->out_size;
	ret = deflate(&w->zs, Z_FINISH);
	/* out_size is deflateBound(): everything fits in one call. */
	if (ret != Z_STREAM_END)
		return -EPROTO;
	return w->out_size - w->zs.avail_out;
}

static int do_chunk(struct worker *w, uint64_t t)
{
	struct job *job = w->job;
	off_t off = (off_t)(t - job->first) * job->chunk;
	ssize_t len, clen;
	int ret;

	len = read_chunk(w, off);
	if (len < 0)
		return len;
	clen = compress_chunk(w, len);
	if (clen < 0)
		return clen;
	if (!ordsched_is_turn(job->os, t))
		__atomic_fetch_add(&job->waited, 1, __ATOMIC_RELAXED);
	ret = ordsched_wait(job->os, t, ORDSCHED_NO_DEADLINE);
	if (ret)
		return ret;
	/* Our turn: every earlier chunk is written, no later one is. */
	ret = write_all(job->out, w->out, clen);
	if (ret)
		return ret;
	job->bytes_out += clen;
	return ordsched_complete(job->os, t);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct job *job = w->job;
	uint64_t t;
	int ret;

	for (;;) {
		ret = ordsched_take(job->os, &t);
		if (ret)
			break;
		/* Past the end, or another worker failed: stop here. */
		if (t - job->first >= job->chunks ||
		    __atomic_load_n(&job->err, __ATOMIC_RELAXED)) {
			ret = ordsched_trash(job->os, t);
			break;
		}
		ret = do_chunk(w, t);
		if (ret) {
			/* Trash it, so that nobody waits for us (may fail). */
			ordsched_trash(job->os, t);
			break;
		}
	}
	if (ret)
		job_fail(job, ret);
	return NULL;
}

static int worker_init(struct worker *w, struct job *job)
{
	memset(w, 0, sizeof(*w));
	w->job = job;
	/* windowBits 15 + 16: a gzip header and trailer around deflate. */
	if (deflateInit2(&w->zs, job->level, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	w->out_size = deflateBound(&w->zs, job->chunk);
	w->in = malloc(job->chunk);
	w->out = malloc(w->out_size);
	if (!w->in || !w->out)
		return -ENOMEM;
	return 0;
}

static void worker_fini(struct worker *w)
{
	deflateEnd(&w->zs);
	free(w->in);
	free(w->out);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: ordsched-pgzip [-j THREADS] [-b CHUNK_KIB] [-l LEVEL] [-v] INPUT [OUTPUT]\n"
		"  compress INPUT to gzip in parallel chunks, written in order\n"
		"  -j  worker threads (default: online CPUs, at most %d)\n"
		"  -b  chunk size in KiB (default 256)\n"
		"  -l  compression level 1-9 (default 6)\n"
		"  -v  print what was done to standard error\n",
		MAX_THREADS);
}

static int parse_args(int argc, char **argv, struct job *job, long *threads,
		      int *verbose)
{
	long kib = 256;
	int opt;

	*threads = sysconf(_SC_NPROCESSORS_ONLN);
	job->level = 6;
	while ((opt = getopt(argc, argv, "j:b:l:vh")) != -1) {
		switch (opt) {
		case 'j':
			*threads = strtol(optarg, NULL, 10);
			break;
		case 'b':
			kib = strtol(optarg, NULL, 10);
			break;
		case 'l':
			job->level = strtol(optarg, NULL, 10);
			break;
		case 'v':
			*verbose = 1;
			break;
		default:
			return -1;
		}
	}
	if (*threads < 1)
		*threads = 1;
	if (*threads > MAX_THREADS)
		*threads = MAX_THREADS;
	if (kib < 1 || kib > 65536 || job->level < 1 || job->level > 9 ||
	    optind >= argc || argc - optind > 2)
		return -1;
	job->chunk = kib * 1024;
	return 0;
}

static int open_files(struct job *job, int argc, char **argv)
{
	const char *out = optind + 1 < argc ? argv[optind + 1] : "-";
	struct stat st;

	job->in = open(argv[optind], O_RDONLY | O_CLOEXEC);
	if (job->in < 0 || fstat(job->in, &st)) {
		fprintf(stderr, "ordsched-pgzip: %s: %s\n", argv[optind],
			strerror(errno));
		return -1;
	}
	job->size = st.st_size;
	job->out = strcmp(out, "-") ? open(out, O_WRONLY | O_CREAT | O_TRUNC |
					   O_CLOEXEC, 0644) : STDOUT_FILENO;
	if (job->out < 0) {
		fprintf(stderr, "ordsched-pgzip: %s: %s\n", out, strerror(errno));
		return -1;
	}
	return 0;
}

static int run(struct job *job, long threads)
{
	struct worker w[MAX_THREADS];
	pthread_t th[MAX_THREADS];
	long i, started = 0;
	int ret = 0;

	for (i = 0; i < threads && !ret; i++) {
		ret = worker_init(&w[i], job);
		if (!ret)
			ret = -pthread_create(&th[i], NULL, worker_main, &w[i]);
		if (!ret)
			started++;
		else
			worker_fini(&w[i]);
	}
	if (ret)
		job_fail(job, ret);
	for (i = 0; i < started; i++) {
		pthread_join(th[i], NULL);
		worker_fini(&w[i]);
	}
	return job->err;
}

int main(int argc, char **argv)
{
	struct job job = { 0 };
	struct ordsched_stats st;
	long threads;
	int verbose = 0, ret;
	uint64_t t0;

	if (parse_args(argc, argv, &job, &threads, &verbose)) {
		usage();
		return 2;
	}
	if (open_files(&job, argc, argv))
		return 1;
	ret = ordsched_open(&job.os);
	if (ret) {
		fprintf(stderr, "ordsched-pgzip: /dev/ordsched: %s\n", strerror(-ret));
		return 1;
	}
	job.first = ordsched_head(job.os);
	job.chunks = job.size ? (job.size + job.chunk - 1) / job.chunk : 1;
	t0 = ordsched_now();
	ret = run(&job, threads);
	if (ret) {
		fprintf(stderr, "ordsched-pgzip: %s\n", ret == -EPROTO ?
			"compression failed" : strerror(-ret));
		return 1;
	}
	if (job.out != STDOUT_FILENO && close(job.out)) {
		perror("ordsched-pgzip: close");
		return 1;
	}
	if (verbose && !ordsched_stats(job.os, &st))
		fprintf(stderr,
			"ordsched-pgzip: %lld bytes in %llu chunks of %zu KiB -> %llu bytes, %ld threads, %llu ms; ordered %s: %llu turns waited for, %llu in the kernel\n",
			(long long)job.size,
			(unsigned long long)job.chunks, job.chunk / 1024,
			(unsigned long long)job.bytes_out, threads,
			(unsigned long long)(ordsched_now() - t0) / 1000000,
			ordsched_uses_ring(job.os) ?
			"on the shared ring" : "by system calls",
			(unsigned long long)job.waited,
			(unsigned long long)st.waits);
	ordsched_close(job.os);
	return 0;
}
