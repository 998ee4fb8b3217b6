/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ordsched_bench: what the benchmark files share. Not part of the product:
 * this module exists to compare ordsched with what a user would pick
 * instead, side by side in one boot.
 */
#ifndef _ORDSCHED_BENCH_H
#define _ORDSCHED_BENCH_H

#include <linux/completion.h>
#include <linux/types.h>

#define BENCH_MAX_ARGS	16

/* A command written to the run file: "NAME key=value ...". */
struct bench_args {
	unsigned int nr;
	char *key[BENCH_MAX_ARGS];
	char *val[BENCH_MAX_ARGS];
};

int bench_arg_u64(const struct bench_args *args, const char *key, u64 def,
		  u64 *val);
const char *bench_arg_str(const struct bench_args *args, const char *key);

/* The result line of the last run, "key=value ..." (main.c). */
struct bench_out {
	char *buf;
	size_t size;
	size_t len;
};

__printf(2, 3) void bench_printf(struct bench_out *out, const char *fmt, ...);

/* measure.c: wall clock and CPU time of all CPUs, kworkers included. */
struct bench_clock {
	u64 wall_ns;
	u64 idle_ns;
	unsigned int cpus;
};

void bench_clock_start(struct bench_clock *c);
int bench_clock_stop(struct bench_clock *c, u64 *wall_ns, u64 *busy_ns);
void bench_sort_u32(u32 *v, size_t n);
u32 bench_percentile(const u32 *sorted, size_t n, unsigned int pct);

/*
 * threads.c: @nr kthreads, thread i bound to the i-th online CPU (modulo
 * their number), created first and released at once by bench_threads_go().
 */
struct bench_threads;

struct bench_threads *bench_threads_create(unsigned int nr,
					   int (*fn)(void *data,
						     unsigned int idx),
					   void *data);
void bench_threads_go(struct bench_threads *th);
int bench_threads_wait(struct bench_threads *th);
int bench_measure(unsigned int nr, int (*fn)(void *data, unsigned int idx),
		  void *data, struct completion *all_done, const u64 *t_end,
		  u64 *wall_ns, u64 *busy_ns);

/* One benchmark, selected by the first word of a command. */
struct bench_def {
	const char *name;
	/* Names of the contenders, separated by spaces, for the script. */
	const char *(*contenders)(void);
	int (*run)(const struct bench_args *args, struct bench_out *out);
};

/* ordered.c */
extern const struct bench_def bench_ordered;
void bench_ordered_calibrate(void);

/* streams.c */
extern const struct bench_def bench_streams;

/* delays.c */
extern const struct bench_def bench_delays;

/* keys.c */
extern const struct bench_def bench_keys;

#endif /* _ORDSCHED_BENCH_H */
