// SPDX-License-Identifier: GPL-2.0
/*
 * What a run costs: wall time, and CPU time over all CPUs (whoever spent
 * it: producers, kworkers, softirqs), as the CPUs' non-idle time. The idle
 * time comes from the nohz idle accounting, exact to the microsecond, and
 * from the tick-sampled idle counter if nohz is off.
 */
#include <linux/cpumask.h>
#include <linux/kernel_stat.h>
#include <linux/sort.h>
#include <linux/tick.h>
#include <linux/timekeeping.h>

#include "bench.h"

static u64 bench_idle_ns(unsigned int *cpus)
{
	u64 sum = 0, us;
	int cpu;

	*cpus = 0;
	for_each_online_cpu(cpu) {
		us = get_cpu_idle_time_us(cpu, NULL);
		if (us == (u64)-1)
			sum += kcpustat_cpu(cpu).cpustat[CPUTIME_IDLE];
		else
			sum += us * NSEC_PER_USEC;
		us = get_cpu_iowait_time_us(cpu, NULL);
		if (us != (u64)-1)
			sum += us * NSEC_PER_USEC;
		(*cpus)++;
	}
	return sum;
}

void bench_clock_start(struct bench_clock *c)
{
	c->idle_ns = bench_idle_ns(&c->cpus);
	c->wall_ns = ktime_get_ns();
}

/*
 * Return: 0, or -EAGAIN if a CPU went on or offline meanwhile (the busy
 * time would be meaningless).
 */
int bench_clock_stop(struct bench_clock *c, u64 *wall_ns, u64 *busy_ns)
{
	u64 wall = ktime_get_ns() - c->wall_ns, idle;
	unsigned int cpus;

	idle = bench_idle_ns(&cpus) - c->idle_ns;
	if (cpus != c->cpus)
		return -EAGAIN;
	*wall_ns = wall;
	/* The two clocks are read a few microseconds apart: clamp. */
	*busy_ns = wall * cpus > idle ? wall * cpus - idle : 0;
	return 0;
}

static int bench_cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

void bench_sort_u32(u32 *v, size_t n)
{
	sort(v, n, sizeof(*v), bench_cmp_u32, NULL);
}

/* The @pct-th percentile of @n sorted values (nearest rank). */
u32 bench_percentile(const u32 *sorted, size_t n, unsigned int pct)
{
	size_t rank;

	if (!n)
		return 0;
	rank = DIV_ROUND_UP(n * pct, 100);
	return sorted[rank ? rank - 1 : 0];
}
