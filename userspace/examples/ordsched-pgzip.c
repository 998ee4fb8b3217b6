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
 * Failures. A worker that fails notes the error first, then trashes its
 * ticket: the turn moves on, so no worker waits for it, and every later
 * worker, at its turn, finds the error (the turn's acquire orders the
 * note before) and trashes its ticket instead of writing. So nothing is
 * written after a hole. OUTPUT is written as a temporary file beside it
 * and renamed over it only on success: on any error, or a fatal signal,
 * it is left as it was.
 *
 * Where the kernel offers the shared ring, taking, completing and a wait
 * whose turn comes while it spins cost no system call: the only ones left
 * are the sleeps of a worker whose turn is far, and the wake-up its
 * predecessor gives it. -v says which path ran and how often a worker
 * slept in the kernel.
 *
 * usage: ordsched-pgzip [-j THREADS] [-b CHUNK_KIB] [-l LEVEL] [-v]
 *                       INPUT [OUTPUT]
 * OUTPUT defaults to standard output; "-" names standard input or output.
 */
/* sched_getaffinity() */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "libordsched.h"

#define MAX_THREADS	64

/* Where an error came from: the file or device that report_error() names. */
enum err_from { ERR_INPUT, ERR_OUTPUT, ERR_DEVICE, ERR_START };

struct job {
	struct ordsched *os;
	int in, out;
	off_t base;	/* where INPUT starts: standard input's offset */
	off_t size;	/* from there */
	size_t chunk;
	uint64_t chunks;	/* at least one: an empty file gives one member */
	int level;
	uint64_t first;		/* the ticket of chunk 0 */
	int err;		/* first error, -errno or a zlib code */
	uint64_t err_chunk;	/* the chunk it came from, if any */
	enum err_from err_from;	/* what failed: see report_error() */
	const char *err_op;	/* the call, for ERR_DEVICE and ERR_START */
	uint64_t bytes_out;	/* written so far, only in turn */
	uint64_t waited;	/* waits that found the turn not yet come */
};

struct worker {
	struct job *job;
	unsigned char *in, *out;
	size_t out_size;
	z_stream zs;
};

/*
 * Note the first error, of chunk @chunk (UINT64_MAX: of none), which
 * came from @from; @op names the call that failed, for the device and
 * the start.
 */
static void job_fail(struct job *job, int err, uint64_t chunk,
		     enum err_from from, const char *op)
{
	int zero = 0;

	if (__atomic_compare_exchange_n(&job->err, &zero, err, 0,
					__ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
		job->err_chunk = chunk;
		job->err_from = from;
		job->err_op = op;
	}
}

/* A failed call of the library: noted as the device's error. */
static int dev_fail(struct job *job, int err, uint64_t chunk, const char *op)
{
	if (err)
		job_fail(job, err, chunk, ERR_DEVICE, op);
	return err;
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
		r = pread(w->job->in, w->in + got, want - got,
			  w->job->base + off + got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -ENODATA;	/* the file shrank under us */
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
	uint64_t chunk = t - job->first;
	off_t off = (off_t)chunk * job->chunk;
	ssize_t len, clen;
	int ret;

	len = read_chunk(w, off);
	if (len < 0) {
		job_fail(job, len, chunk, ERR_INPUT, NULL);
		return len;
	}
	clen = compress_chunk(w, len);
	if (clen < 0) {
		job_fail(job, clen, chunk, ERR_INPUT, NULL);
		return clen;
	}
	if (!ordsched_is_turn(job->os, t))
		__atomic_fetch_add(&job->waited, 1, __ATOMIC_RELAXED);
	ret = ordsched_wait(job->os, t, ORDSCHED_NO_DEADLINE);
	if (ret)
		return dev_fail(job, ret, chunk, "waiting for its turn");
	/* An earlier chunk failed: writing ours would leave a hole. */
	if (__atomic_load_n(&job->err, __ATOMIC_RELAXED))
		return dev_fail(job, ordsched_trash(job->os, t), chunk,
				"trashing its ticket");
	/* Our turn: every earlier chunk is written, no later one is. */
	ret = write_all(job->out, w->out, clen);
	if (ret) {
		job_fail(job, ret, chunk, ERR_OUTPUT, NULL);
		return ret;
	}
	job->bytes_out += clen;
	return dev_fail(job, ordsched_complete(job->os, t), chunk,
			"completing its ticket");
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct job *job = w->job;
	uint64_t t;
	int ret;

	for (;;) {
		ret = ordsched_take(job->os, &t);
		if (ret) {
			dev_fail(job, ret, UINT64_MAX, "taking a ticket");
			break;
		}
		/* Past the end, or another worker failed: stop here. */
		if (t - job->first >= job->chunks ||
		    __atomic_load_n(&job->err, __ATOMIC_RELAXED)) {
			dev_fail(job, ordsched_trash(job->os, t), UINT64_MAX,
				 "trashing a ticket");
			break;
		}
		/*
		 * A failure is noted (do_chunk()) before the trash hands the
		 * turn on: the later chunks see it at their turn and write
		 * nothing.
		 */
		if (do_chunk(w, t)) {
			ordsched_trash(job->os, t);
			break;
		}
	}
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

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ordsched-pgzip [-j THREADS] [-b CHUNK_KIB] [-l LEVEL] [-v] INPUT [OUTPUT]\n"
		"  compress INPUT (- for standard input) to gzip in parallel chunks,\n"
		"  written in order to OUTPUT (default, or -: standard output)\n"
		"  -j  worker threads (default: the CPUs it may run on, at most %d)\n"
		"  -b  chunk size in KiB (default 256)\n"
		"  -l  compression level 1-9 (default 6)\n"
		"  -v  print what was done to standard error\n"
		"  -h  print this and exit\n",
		MAX_THREADS);
}

/* A decimal number from @min to @max, all of @s; else a message. */
static int parse_num(int opt, const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "ordsched-pgzip: -%c %s: not a number from %ld to %ld\n",
			opt, s, min, max);
		return -1;
	}
	*out = v;
	return 0;
}

/* The CPUs this process may run on (taskset, cpusets), else the online. */
static long usable_cpus(void)
{
	cpu_set_t set;
	long n;

	if (!sched_getaffinity(0, sizeof(set), &set))
		return CPU_COUNT(&set);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n;
}

static int parse_args(int argc, char **argv, struct job *job, long *threads,
		      int *verbose)
{
	long kib = 256, level = 6;
	int opt;

	*threads = usable_cpus();
	if (*threads > MAX_THREADS)
		*threads = MAX_THREADS;
	while ((opt = getopt(argc, argv, "j:b:l:vh")) != -1) {
		switch (opt) {
		case 'j':
			if (parse_num(opt, optarg, 1, MAX_THREADS, threads))
				return -1;
			break;
		case 'b':
			if (parse_num(opt, optarg, 1, 65536, &kib))
				return -1;
			break;
		case 'l':
			if (parse_num(opt, optarg, 1, 9, &level))
				return -1;
			break;
		case 'v':
			*verbose = 1;
			break;
		case 'h':
			return 1;
		default:
			return -1;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "ordsched-pgzip: missing INPUT\n");
		return -1;
	}
	if (argc - optind > 2) {
		fprintf(stderr, "ordsched-pgzip: extra operand '%s'\n",
			argv[optind + 2]);
		return -1;
	}
	/* An empty OUTPUT ("$OUT" unset) was found out only at the rename. */
	if (!argv[optind][0] ||
	    (optind + 1 < argc && !argv[optind + 1][0])) {
		fprintf(stderr, "ordsched-pgzip: an empty %s name\n",
			argv[optind][0] ? "OUTPUT" : "INPUT");
		return -1;
	}
	job->level = level;
	job->chunk = kib * 1024;
	return 0;
}

/* What messages call INPUT. */
static const char *in_name(const char *in)
{
	return strcmp(in, "-") ? in : "standard input";
}

/*
 * INPUT: a regular file, whose size tells the chunks; "-" is standard
 * input, as for gzip, which must then be a regular file too (< FILE).
 */
static int open_input(struct job *job, const char *in, struct stat *st)
{
	job->in = strcmp(in, "-") ? open(in, O_RDONLY | O_CLOEXEC) :
		  STDIN_FILENO;
	if (job->in < 0 || fstat(job->in, st)) {
		fprintf(stderr, "ordsched-pgzip: %s: %s\n", in_name(in),
			strerror(errno));
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		fprintf(stderr, "ordsched-pgzip: %s: not a regular file (pipes and devices have no size to cut into chunks)\n",
			in_name(in));
		return -1;
	}
	/*
	 * Standard input from where its offset stands, as gzip reads it (a
	 * caller may have consumed a header); a file from its start.
	 */
	if (!strcmp(in, "-")) {
		job->base = lseek(STDIN_FILENO, 0, SEEK_CUR);
		if (job->base < 0)
			job->base = 0;
		if (job->base > st->st_size)
			job->base = st->st_size;
	}
	job->size = st->st_size - job->base;
	return 0;
}

/* OUTPUT must not be the input: the rename would replace it. */
static int check_output(const char *out, const struct stat *in)
{
	struct stat st;

	if (!strcmp(out, "-")) {
		/* As gzip: compressed data on a terminal helps nobody. */
		if (isatty(STDOUT_FILENO)) {
			fprintf(stderr, "ordsched-pgzip: standard output: a terminal (name OUTPUT or redirect)\n");
			return -1;
		}
		if (fstat(STDOUT_FILENO, &st) || st.st_dev != in->st_dev ||
		    st.st_ino != in->st_ino)
			return 0;
		fprintf(stderr, "ordsched-pgzip: standard output: is the input file\n");
		return -1;
	}
	if (stat(out, &st))
		return 0;
	if (st.st_dev == in->st_dev && st.st_ino == in->st_ino) {
		fprintf(stderr, "ordsched-pgzip: %s: is the input file\n", out);
		return -1;
	}
	/* Renamed over, a directory or a device would be lost. */
	if (!S_ISREG(st.st_mode)) {
		fprintf(stderr, "ordsched-pgzip: %s: %s (write to standard output instead)\n",
			out, S_ISDIR(st.st_mode) ? strerror(EISDIR) :
			"not a regular file");
		return -1;
	}
	return 0;
}

/*
 * The temporary file while it exists, for a fatal signal to remove: the
 * handler unlinks it, then dies of the signal as it would have.
 */
static char *volatile cleanup_path;

static void on_fatal_signal(int sig)
{
	char *path = cleanup_path;

	if (path)
		unlink(path);
	signal(sig, SIG_DFL);
	raise(sig);
}

static const int fatal_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

/*
 * Hold the fatal signals off (the mask before in *@old, for
 * sigprocmask(SIG_SETMASK) to restore), around the creation of the
 * temporary file and its record in cleanup_path: one that came in between
 * would leave the file behind. Only the main thread runs then.
 */
static void fatal_signals_hold(sigset_t *old)
{
	sigset_t set;
	unsigned int i;

	sigemptyset(&set);
	for (i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++)
		sigaddset(&set, fatal_signals[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

static void catch_fatal_signals(void)
{
	struct sigaction sa = { .sa_handler = on_fatal_signal }, old;
	unsigned int i;

	/* Past the file size limit, a write fails (EFBIG) instead of killing. */
	signal(SIGXFSZ, SIG_IGN);
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++) {
		/* A signal ignored from the start (nohup) stays ignored. */
		if (!sigaction(fatal_signals[i], NULL, &old) && old.sa_handler == SIG_IGN)
			continue;
		sigaction(fatal_signals[i], &sa, NULL);
	}
}

/*
 * The file that @out, a symbolic link, points to, following a chain of
 * links: a name relative to the current folder where the links are
 * relative. Not realpath(), which fails where the current folder's
 * absolute name is longer than PATH_MAX, though every name here is short.
 * NULL with errno set on failure.
 */
static char *link_target(const char *out)
{
	char *path = strdup(out), *next, link[PATH_MAX];
	const char *slash;
	unsigned int i;
	struct stat st;
	ssize_t n;

	/* As many links as the kernel follows in a name (ELOOP past it). */
	for (i = 0; path && i < 40; i++) {
		if (lstat(path, &st) || !S_ISLNK(st.st_mode))
			return path;
		n = readlink(path, link, sizeof(link) - 1);
		if (n < 0)
			break;
		link[n] = '\0';
		slash = strrchr(path, '/');
		if (link[0] == '/' || !slash)
			next = strdup(link);
		else if (asprintf(&next, "%.*s%s", (int)(slash - path + 1), path,
				  link) < 0)
			next = NULL;
		free(path);
		path = next;
	}
	if (path) {
		if (i == 40)
			errno = ELOOP;
		free(path);
	}
	return NULL;
}

/*
 * OUTPUT: standard output, or a temporary file beside the file @out names
 * (in @tmp; *@target the name to rename it to: @out, or the file a
 * symbolic link @out points to, so that the link stays), renamed over it
 * by finish_output(). An existing OUTPUT keeps its permissions where the
 * file system lets them be set (else a warning), and its owner and group
 * as far as this process may give them. Whether it
 * exists is what stat() says, as check_output() asked.
 */
static int open_output(struct job *job, const char *out, char **tmp,
		       char **target)
{
	struct stat st;
	int exists = 0;
	mode_t mask, mode;
	sigset_t sigs;

	*tmp = NULL;
	*target = NULL;
	if (!strcmp(out, "-")) {
		job->out = STDOUT_FILENO;
		return 0;
	}
	if (!stat(out, &st) && S_ISREG(st.st_mode)) {
		exists = 1;
		*target = link_target(out);
		if (!*target) {
			fprintf(stderr, "ordsched-pgzip: %s: %s\n", out,
				strerror(errno));
			return -1;
		}
	} else {
		/* Renamed over, the link would go: its target is not known. */
		if (!lstat(out, &st) && S_ISLNK(st.st_mode)) {
			fprintf(stderr, "ordsched-pgzip: %s: a symbolic link to no file (name the file itself)\n",
				out);
			return -1;
		}
		*target = strdup(out);
	}
	/*
	 * A short name in the same folder (rename() stays in one file
	 * system): OUTPUT's own name plus a suffix may be too long.
	 */
	if (!*target || asprintf(tmp, "%.*s.ordsched-pgzip.XXXXXX",
				 (int)(strrchr(*target, '/') ?
				       strrchr(*target, '/') - *target + 1 : 0),
				 *target) < 0) {
		*tmp = NULL;
		fprintf(stderr, "ordsched-pgzip: %s\n", strerror(ENOMEM));
		return -1;
	}
	fatal_signals_hold(&sigs);
	job->out = mkstemp(*tmp);
	if (job->out < 0) {
		int err = errno;

		sigprocmask(SIG_SETMASK, &sigs, NULL);
		fprintf(stderr, "ordsched-pgzip: %s: cannot create a temporary file beside it: %s\n",
			out, strerror(err));
		free(*tmp);
		*tmp = NULL;
		return -1;
	}
	cleanup_path = *tmp;
	sigprocmask(SIG_SETMASK, &sigs, NULL);
	if (exists) {
		/* Best effort: only root may give a file away. */
		if (fchown(job->out, st.st_uid, st.st_gid))
			(void)!fchown(job->out, -1, st.st_gid);
		mode = st.st_mode & 07777;
	} else {
		/* What open(O_CREAT, 0666) would give, not mkstemp()'s 0600. */
		mask = umask(0);
		umask(mask);
		mode = 0666 & ~mask;
	}
	/*
	 * Not a reason to give up: some file systems (vfat, exfat, network
	 * shares) refuse it to whoever may write there, as gzip only warns.
	 */
	if (fchmod(job->out, mode))
		fprintf(stderr, "ordsched-pgzip: warning: %s: cannot set its mode to %04o: %s\n",
			out, (unsigned int)mode, strerror(errno));
	return 0;
}

/* Put the temporary file in place, or drop it (@ok false): 0 or -1. */
static int finish_output(struct job *job, const char *out, char *tmp,
			 char *target, int ok)
{
	int ret = 0, held = 0;
	sigset_t sigs;

	if (!tmp) {
		free(target);
		return 0;
	}
	if (ok) {
		int err = fsync(job->out) ? errno : 0;

		if (close(job->out) && !err)
			err = errno;
		/*
		 * A fatal signal must find OUTPUT as it was, or the run
		 * done: held off across the rename, and for good once it
		 * is done (the process exits 0). Only this thread is left.
		 */
		fatal_signals_hold(&sigs);
		held = 1;
		if (err) {
			fprintf(stderr, "ordsched-pgzip: %s: writing it: %s\n",
				out, strerror(err));
		} else if (rename(tmp, target)) {
			err = errno;
			fprintf(stderr, "ordsched-pgzip: %s: replacing it with the output written beside it: %s\n",
				out, strerror(err));
		}
		if (err) {
			ok = 0;
			ret = -1;
		}
	} else {
		close(job->out);
	}
	if (!ok)
		unlink(tmp);
	cleanup_path = NULL;
	/* Not renamed: a signal held off meanwhile kills now, as it would. */
	if (held && !ok)
		sigprocmask(SIG_SETMASK, &sigs, NULL);
	free(tmp);
	free(target);
	return ret;
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
		job_fail(job, ret, UINT64_MAX, ERR_START,
			 ret == -ENOMEM ? "buffers for the threads (-j) and chunks (-b)" :
			 "starting a thread");
	for (i = 0; i < started; i++) {
		pthread_join(th[i], NULL);
		worker_fini(&w[i]);
	}
	return job->err;
}

/*
 * Name what failed: INPUT (reading a chunk, or compressing it), OUTPUT
 * (writing a chunk), the device (a call of the library: taking, waiting,
 * completing, trashing) or the start of the threads.
 */
static void report_error(const struct job *job, const char *in,
			 const char *out, int err)
{
	const char *what = err == -EPROTO ? "compression failed" :
			   strerror(-err);

	if (job->err_from == ERR_START)
		fprintf(stderr, "ordsched-pgzip: %s: %s\n", job->err_op, what);
	else if (job->err_from == ERR_DEVICE && job->err_chunk == UINT64_MAX)
		fprintf(stderr, "ordsched-pgzip: /dev/ordsched: %s: %s\n",
			job->err_op, what);
	else if (job->err_from == ERR_DEVICE)
		fprintf(stderr, "ordsched-pgzip: /dev/ordsched: chunk %llu: %s: %s\n",
			(unsigned long long)job->err_chunk, job->err_op, what);
	else if (job->err_from == ERR_OUTPUT)
		fprintf(stderr, "ordsched-pgzip: %s: writing chunk %llu: %s\n",
			strcmp(out, "-") ? out : "standard output",
			(unsigned long long)job->err_chunk, what);
	else if (err == -ENODATA)
		fprintf(stderr, "ordsched-pgzip: %s: chunk %llu: the file shrank while it was read\n",
			in, (unsigned long long)job->err_chunk);
	else
		fprintf(stderr, "ordsched-pgzip: %s: chunk %llu: %s\n", in,
			(unsigned long long)job->err_chunk, what);
}

/*
 * Data past the size the chunks were cut by: the file grew while it was
 * read, or its size means nothing (a file of /proc or /sys says 0). The
 * archive would be cut short: refuse it.
 */
static bool input_longer(const struct job *job)
{
	ssize_t r;
	char c;

	do
		r = pread(job->in, &c, 1, job->base + job->size);
	while (r < 0 && errno == EINTR);
	return r > 0;
}

int main(int argc, char **argv)
{
	struct job job = { 0 };
	struct ordsched_stats st;
	const char *in, *out;
	struct stat in_st;
	char *tmp = NULL, *target = NULL;
	long threads;
	int verbose = 0, ret;
	uint64_t t0;

	ret = parse_args(argc, argv, &job, &threads, &verbose);
	if (ret < 0) {
		usage(stderr);
		return 2;
	}
	if (ret) {
		/* -h: the usage is the output, and it must get out. */
		usage(stdout);
		if (fflush(stdout) || ferror(stdout)) {
			perror("ordsched-pgzip: standard output");
			return 1;
		}
		return 0;
	}
	in = argv[optind];
	out = optind + 1 < argc ? argv[optind + 1] : "-";
	/* Closed, it would be the next file opened: the input. */
	if (!strcmp(out, "-") && fcntl(STDOUT_FILENO, F_GETFD) < 0) {
		perror("ordsched-pgzip: standard output");
		return 1;
	}
	/* Everything that can fail before OUTPUT is touched. */
	if (open_input(&job, in, &in_st) || check_output(out, &in_st))
		return 1;
	ret = ordsched_open(&job.os);
	if (ret) {
		fprintf(stderr, "ordsched-pgzip: /dev/ordsched: %s%s\n",
			strerror(-ret), ret == -ENOENT ?
			" (is the module loaded? modprobe ordsched)" :
			ret == -EINVAL ?
			" (the module speaks another API version)" : "");
		return 1;
	}
	catch_fatal_signals();
	if (open_output(&job, out, &tmp, &target)) {
		finish_output(&job, out, tmp, target, 0);
		return 1;
	}
	job.first = ordsched_head(job.os);
	job.chunks = job.size ? (job.size + job.chunk - 1) / job.chunk : 1;
	t0 = ordsched_now();
	ret = run(&job, threads);
	if (ret) {
		report_error(&job, in_name(in), out, ret);
	} else if (input_longer(&job)) {
		fprintf(stderr, "ordsched-pgzip: %s: more data than its size, %lld bytes, said: it grew while read, or its size means nothing (as in /proc)\n",
			in_name(in), (long long)job.size);
		ret = -EIO;
	}
	if (finish_output(&job, out, tmp, target, !ret) || ret)
		return 1;
	if (job.out == STDOUT_FILENO && close(job.out)) {
		perror("ordsched-pgzip: standard output");
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
