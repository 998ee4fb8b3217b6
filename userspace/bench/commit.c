// SPDX-License-Identifier: GPL-2.0
/*
 * ordsched-bench-commit: ordered commit in userspace, side by side.
 *
 * T threads loop: take a ticket, do W nanoseconds of work, wait for the
 * ticket's turn, commit (append the ticket to a log), complete the ticket.
 * Contenders, each a sequencer a user could write or link:
 *
 *	ordsched	libordsched on /dev/ordsched as linked by default: on
 *			the shared ring when the kernel offers it (take,
 *			complete and a wait that ends while spinning make no
 *			system call; a sleep in the kernel that only the
 *			turn's owner is woken from, one RING_WAKE by the
 *			completer that hands it over); robust to death
 *	ordsched-ioctl	the same library with ORDSCHED_OPEN_NO_RING: tickets
 *			from the kernel, one system call per take and
 *			complete, a short spin on the mapped tail, then a
 *			sleep that only the turn's owner is woken from
 *	condvar		a counter under a pthread mutex, one condition
 *			variable, broadcast at every completion
 *	futex		an atomic counter, FUTEX_WAIT on it, FUTEX_WAKE of all
 *			waiters at a completion when there are any
 *	ring		the per-ticket futex ring, the best a user could write
 *			by hand: a short spin on the shared tail, then a sleep
 *			on the ticket's own futex word in a ring of cache-line
 *			slots; a completion wakes the next ticket's owner only,
 *			and makes no system call when that owner does not
 *			sleep. Not robust: a thread that dies holding a ticket
 *			stalls every later ticket for ever
 *	ring-again	the same ring, the same code, under another name: an
 *			A/A control. Its ratio to "ring" in the same boot is
 *			what the host's noise alone makes of two identical
 *			contenders, the yardstick for every other ratio
 *	ring-owned	the same ring, whose take also writes who holds the
 *			ticket into the ticket's slot, as ordsched's take
 *			claims its slot: what that one write costs, the
 *			record that robustness to death needs. Not robust
 *			either: nothing reads the record
 *	ring-local	the same ring, whose take records its holder in a
 *			cache line of the thread's own instead: "taking"
 *			before the ticket's atomic add, the ticket after it.
 *			The cheapest ownership record known, a lower bound
 *			for any robust design; not robust either
 *	ring-ahead	the ring whose completion also wakes the sleeper of
 *			the ticket after next, which spins (sched_yield())
 *			for at most 100 us before sleeping again: ordsched's
 *			wake-ahead at T > CPUs, as userspace can do it
 *	spin		an atomic counter, waiters spin on it (the hand-off
 *			limit while threads <= CPUs; with more threads, a
 *			waiter burns the CPU its predecessor needs)
 *	ordsched-private
 *			libordsched's own take, wait and complete, on a ring
 *			in this process's memory instead of the device's
 *			page: the protocol's cost where /dev/ordsched is not
 *			loaded (on the build host, natively, beside "ring").
 *			No kernel behind it, so no sleep: it spins, and
 *			refuses more threads than the CPUs it may run on
 *			(EINVAL). Not a sequencer
 *			anyone would deploy: a measuring instrument
 *
 * A run lasts about duration_ms: the threads stop taking tickets then, and
 * finish the ones they hold. With items=N it lasts until N items were
 * committed instead, whatever the time (so that a count of instructions,
 * under valgrind, does not depend on how threads were scheduled). Output, one line: items/s inputs (items, wall
 * ns), the process's CPU time (all threads, user + system), voluntary and
 * involuntary context switches, and the system calls the sequencer made:
 * counted at the ioctl() the library calls (linked with --wrap=ioctl) and
 * at our futex calls (the spin makes none: 0). The condvar's futex calls
 * are inside libc and are not counted (syscalls=-1).
 *
 * Every run checks that the log holds every ticket exactly once, in
 * order; a run that fails the check exits 1 and prints no result.
 *
 * The work is a loop calibrated in loops per microsecond. Calibrated in
 * every run, it would differ between contenders whenever the host is busy:
 * the script calibrates once ("calibrate" prints the rate) and passes the
 * same loops_per_us to every run.
 *
 * usage: ordsched-bench-commit contender=NAME threads=T work_ns=W
 *	[duration_ms=MS | items=N] [loops_per_us=L]
 *	ordsched-bench-commit calibrate
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <libordsched.h>

/* ordsched-private builds a handle by hand: the library's private view. */
#include "../lib/internal.h"

#define MAX_THREADS	64
/* As many slots as the module gives a ring, in a page of our own. */
#define ORDSCHED_RING_PRIVATE_SLOTS	256

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#endif
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* System calls of the sequencer, per thread, summed at the end. */
static __thread uint64_t nr_syscalls;
static uint64_t total_syscalls;

/* The library's every system call goes through ioctl(): count them. */
int __real_ioctl(int fd, unsigned long req, ...);

int __wrap_ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);
	nr_syscalls++;
	return __real_ioctl(fd, req, arg);
}

/* --- the run, shared by every contender ------------------------------- */

/*
 * Every word that the threads of a run write is alone on a pair of cache
 * lines (adjacent-line prefetch pairs them): sharing one with another
 * variable would tax whoever reads that variable, a contender's sequencer
 * or the loop itself, for nothing a user's program would do. The run's
 * settings, read at every item, and the log, written at every commit,
 * are apart for the same reason.
 */
#define SHARED	__attribute__((aligned(128)))

struct seq_ops;

static struct {
	const struct seq_ops *ops;
	unsigned int threads;
	uint64_t work_loops;
	int stop;
	/* Ticket of the first item; the log is written in ticket order. */
	uint64_t base;
	/* items=N: stop after N commits rather than after duration_ms. */
	uint64_t max_items;
	int error;
	/* The futex rings' spin: see RING_SPIN. */
	unsigned int ring_spin;
} run SHARED;

/* The log: the serial step of every item, one after another. */
static struct {
	uint64_t committed;
	uint64_t sum;
} commit_log SHARED;

struct seq_ops {
	const char *name;
	int (*init)(void);
	int (*take)(uint64_t *t);
	int (*wait)(uint64_t t);
	int (*complete)(uint64_t t);
	int counts_syscalls;
};

/* --- ordsched --------------------------------------------------------- */

static struct ordsched *os;

/* ordsched: the library's default, the shared ring when the kernel has it. */
static int os_init(void)
{
	int ret = ordsched_open(&os);

	if (ret)
		return ret;
	run.base = ordsched_tail(os);
	return 0;
}

/* ordsched-ioctl: the library forced onto one system call per step. */
static int os_init_ioctl(void)
{
	int ret = ordsched_open_flags(&os, ORDSCHED_OPEN_NO_RING);

	if (ret)
		return ret;
	run.base = ordsched_tail(os);
	return 0;
}

static int os_take(uint64_t *t)
{
	return ordsched_take(os, t);
}

static int os_wait(uint64_t t)
{
	return ordsched_wait(os, t, ORDSCHED_NO_DEADLINE);
}

static int os_complete(uint64_t t)
{
	return ordsched_complete(os, t);
}

static const struct seq_ops seq_ordsched = {
	"ordsched", os_init, os_take, os_wait, os_complete, 1,
};

static const struct seq_ops seq_ordsched_ioctl = {
	"ordsched-ioctl", os_init_ioctl, os_take, os_wait, os_complete, 1,
};

/*
 * ordsched-private: a handle whose ring is a page of ours, laid out and
 * initialised as the kernel does (every slot FREE for the ticket of its
 * first lap, head and tail each on a line pair of their own). Its spin
 * never ends, so a wait never asks a kernel that is not there.
 */
static int os_init_private(void)
{
	static __u64 page[4096 / sizeof(__u64)] __attribute__((aligned(4096)));
	static unsigned int waiters[ORDSCHED_RING_PRIVATE_SLOTS];
	static struct ordsched priv;
	cpu_set_t set;
	unsigned int cpus;
	__u64 t;

	/* A spinner must never wait for a holder that has no CPU. */
	if (sched_getaffinity(0, sizeof(set), &set))
		return -errno;
	cpus = CPU_COUNT(&set);
	if (cpus < 2 || run.threads > cpus)
		return -EINVAL;
	priv.fd = -1;
	priv.spin = UINT_MAX;
	priv.ncpus = cpus;
	priv.ring_map = page;
	priv.ring_size = sizeof(page);
	priv.ring_id = 1;
	priv.ring_waiters = waiters;
	priv.view.head = &page[128 / sizeof(__u64)];
	priv.view.tail = &page[256 / sizeof(__u64)];
	priv.view.slots = &page[512 / sizeof(__u64)];
	priv.view.mask = ORDSCHED_RING_PRIVATE_SLOTS - 1;
	priv.head = (const uint64_t *)priv.view.head;
	priv.tail = (const uint64_t *)priv.view.tail;
	for (t = 0; t <= priv.view.mask; t++)
		*ordsched_ring_slot(&priv.view, t) =
			ordsched_ring_word(t, 0, ORDSCHED_RING_FREE);
	os = &priv;
	run.base = 0;
	return 0;
}

static const struct seq_ops seq_ordsched_private = {
	"ordsched-private", os_init_private, os_take, os_wait, os_complete, 1,
};

/* --- the userspace sequencers share a ticket dispenser ----------------- */

static uint64_t next_ticket SHARED;

static int user_take(uint64_t *t)
{
	*t = __atomic_fetch_add(&next_ticket, 1, __ATOMIC_RELAXED);
	return 0;
}

/* --- condvar ---------------------------------------------------------- */

static pthread_mutex_t cv_lock SHARED = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv_turn SHARED = PTHREAD_COND_INITIALIZER;
static uint64_t cv_next SHARED;

static int cv_init(void)
{
	return 0;
}

static int cv_wait(uint64_t t)
{
	pthread_mutex_lock(&cv_lock);
	while (cv_next != t)
		pthread_cond_wait(&cv_turn, &cv_lock);
	pthread_mutex_unlock(&cv_lock);
	return 0;
}

static int cv_complete(uint64_t t)
{
	pthread_mutex_lock(&cv_lock);
	cv_next = t + 1;
	pthread_cond_broadcast(&cv_turn);
	pthread_mutex_unlock(&cv_lock);
	return 0;
}

static const struct seq_ops seq_condvar = {
	"condvar", cv_init, user_take, cv_wait, cv_complete, 0,
};

/* --- futex ------------------------------------------------------------ */

/* The low 32 bits of the next turn: the futex word. */
/* Both sides touch both words: one line for the two. */
static struct {
	uint32_t next;
	uint32_t waiters;
} fx SHARED;

static long futex(uint32_t *word, int op, uint32_t val)
{
	nr_syscalls++;
	return syscall(SYS_futex, word, op, val, NULL, NULL, 0);
}

static int fx_init(void)
{
	return 0;
}

static int fx_wait(uint64_t t)
{
	uint32_t v;

	while ((v = __atomic_load_n(&fx.next, __ATOMIC_ACQUIRE)) != (uint32_t)t) {
		/* Announce first: a completion after the load sees us. */
		__atomic_fetch_add(&fx.waiters, 1, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&fx.next, __ATOMIC_SEQ_CST) == v)
			futex(&fx.next, FUTEX_WAIT_PRIVATE, v);
		__atomic_fetch_sub(&fx.waiters, 1, __ATOMIC_RELAXED);
	}
	return 0;
}

static int fx_complete(uint64_t t)
{
	/* Pairs with the waiter's increment then load: one of us sees. */
	__atomic_store_n(&fx.next, (uint32_t)(t + 1), __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&fx.waiters, __ATOMIC_SEQ_CST))
		futex(&fx.next, FUTEX_WAKE_PRIVATE, INT_MAX);
	return 0;
}

static const struct seq_ops seq_futex = {
	"futex", fx_init, user_take, fx_wait, fx_complete, 1,
};

/* --- ring ------------------------------------------------------------- */

/*
 * One futex word per ticket, in a ring of cache lines: RING >= threads, so
 * the tickets held at any time have a slot each. A waiter stores its mark
 * in its slot before it sleeps; the mark holds the ticket, so a mark that
 * ticket t left behind never looks like ticket t + RING's, and it is never
 * 0 (0: nobody sleeps).
 */
#define RING		128
/*
 * The spin before the sleep, the better of two measured at each setting
 * (docs/bench/results-commit.txt, session 36). With threads <= CPUs, the
 * library's default: the "about 100" ran 0.97x and 0.96x a spin of
 * 200 and of 400 at T = 2, W = 1 us, its rare sleeps costing it. With more
 * threads than CPUs, 100: there a longer spin takes the CPU from the
 * holder of the tail (ordsched ran 2.4-3.2x a ring spinning 200 at T = 8,
 * 1.8-2.5x one spinning 100).
 */
#define RING_SPIN		ORDSCHED_DEFAULT_SPIN
#define RING_SPIN_CROWDED	100

_Static_assert(RING >= MAX_THREADS && !(RING & (RING - 1)),
	       "a slot per held ticket, indexed by a mask");

struct rg_slot {
	uint32_t word;
	/* ring-owned only: who holds the ticket, written at its take. */
	uint64_t owner;
} __attribute__((aligned(64)));

static struct rg_slot rg_ring[RING] SHARED;
static uint64_t rg_tail SHARED;

static inline uint32_t rg_mark(uint64_t t)
{
	return (uint32_t)t << 1 | 1;
}

static int rg_init(void)
{
	cpu_set_t set;

	run.ring_spin = RING_SPIN;
	if (!sched_getaffinity(0, sizeof(set), &set) &&
	    run.threads > (unsigned int)CPU_COUNT(&set))
		run.ring_spin = RING_SPIN_CROWDED;
	return 0;
}

static int rg_wait(uint64_t t)
{
	struct rg_slot *s = &rg_ring[t & (RING - 1)];
	uint32_t mark = rg_mark(t);
	unsigned int i;

	for (i = 0; i < run.ring_spin; i++) {
		if (__atomic_load_n(&rg_tail, __ATOMIC_ACQUIRE) == t)
			return 0;
		cpu_relax();
	}
	while (__atomic_load_n(&rg_tail, __ATOMIC_ACQUIRE) != t) {
		/*
		 * Mark, then read the tail; the completion writes the tail,
		 * then reads the mark: one of us sees the other's store.
		 */
		__atomic_store_n(&s->word, mark, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&rg_tail, __ATOMIC_SEQ_CST) == t)
			break;
		/* Returns at once if the completion cleared the mark. */
		futex(&s->word, FUTEX_WAIT_PRIVATE, mark);
	}
	return 0;
}

static int rg_complete(uint64_t t)
{
	struct rg_slot *s = &rg_ring[(t + 1) & (RING - 1)];

	__atomic_store_n(&rg_tail, t + 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&s->word, __ATOMIC_SEQ_CST) != rg_mark(t + 1))
		return 0;
	/*
	 * Clear before the wake: a waiter not yet asleep then finds the word
	 * changed and does not sleep on a wake that already went by.
	 */
	__atomic_store_n(&s->word, 0, __ATOMIC_SEQ_CST);
	futex(&s->word, FUTEX_WAKE_PRIVATE, 1);
	return 0;
}

static const struct seq_ops seq_ring = {
	"ring", rg_init, user_take, rg_wait, rg_complete, 1,
};

static const struct seq_ops seq_ring_again = {
	"ring-again", rg_init, user_take, rg_wait, rg_complete, 1,
};

/*
 * ring-ahead: the futex ring with the trick credited for ordsched's lead
 * at T > CPUs, done in userspace: a completion also wakes the sleeper of
 * the ticket after next, whose turn comes one hand-over later, so that it
 * is on a CPU by then; woken ahead, a waiter spins, yielding its CPU to
 * whatever else is runnable there, for at most RING_AHEAD_NS, then sleeps
 * again. (The kernel's spin stops as soon as something else is runnable;
 * sched_yield() is what userspace has.)
 */
#define RING_AHEAD_NS	100000

static bool rg_sleep(struct rg_slot *s, uint64_t t, uint32_t mark)
{
	__atomic_store_n(&s->word, mark, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&rg_tail, __ATOMIC_SEQ_CST) == t)
		return false;
	futex(&s->word, FUTEX_WAIT_PRIVATE, mark);
	return true;
}

static int ra_wait(uint64_t t)
{
	struct rg_slot *s = &rg_ring[t & (RING - 1)];
	uint32_t mark = rg_mark(t);
	uint64_t until;
	unsigned int i;

	for (i = 0; i < run.ring_spin; i++) {
		if (__atomic_load_n(&rg_tail, __ATOMIC_ACQUIRE) == t)
			return 0;
		cpu_relax();
	}
	while (__atomic_load_n(&rg_tail, __ATOMIC_ACQUIRE) != t) {
		if (!rg_sleep(s, t, mark))
			break;
		/* Woken: at the turn, or ahead of it; spin a while then. */
		until = now_ns() + RING_AHEAD_NS;
		while (__atomic_load_n(&rg_tail, __ATOMIC_ACQUIRE) != t &&
		       now_ns() < until) {
			nr_syscalls++;
			sched_yield();
		}
	}
	return 0;
}

static void ra_wake(uint64_t t)
{
	struct rg_slot *s = &rg_ring[t & (RING - 1)];

	if (__atomic_load_n(&s->word, __ATOMIC_SEQ_CST) != rg_mark(t))
		return;
	__atomic_store_n(&s->word, 0, __ATOMIC_SEQ_CST);
	futex(&s->word, FUTEX_WAKE_PRIVATE, 1);
}

static int ra_complete(uint64_t t)
{
	__atomic_store_n(&rg_tail, t + 1, __ATOMIC_SEQ_CST);
	ra_wake(t + 1);
	ra_wake(t + 2);
	return 0;
}

static const struct seq_ops seq_ring_ahead = {
	"ring-ahead", rg_init, user_take, ra_wait, ra_complete, 1,
};

/*
 * ring-owned: the futex ring that also records, at every take, who holds
 * the ticket, in the ticket's slot: the store with which ordsched's take
 * claims its slot (module/ring_proto.h), so that the kernel can find a
 * dead holder's tickets. Nothing reads it here: a measuring instrument,
 * the futex ring plus the one write robustness adds where ordsched puts
 * it. The completer then reads a line that the next ticket's taker has
 * just written, as ordsched's does.
 */
static __thread char ro_me;

static int ro_take(uint64_t *t)
{
	user_take(t);
	/* The thread (the address of its own variable) and the ticket. */
	__atomic_store_n(&rg_ring[*t & (RING - 1)].owner,
			 (uint64_t)(uintptr_t)&ro_me ^ *t << 40,
			 __ATOMIC_SEQ_CST);
	return 0;
}

static const struct seq_ops seq_ring_owned = {
	"ring-owned", rg_init, ro_take, rg_wait, rg_complete, 1,
};

/*
 * ring-local: the futex ring whose take records who holds the ticket in a
 * line of the taking thread's own, which no other thread writes or reads
 * while it runs: "taking" before the atomic add, so that a holder dying
 * between the add and the second store is still found, then the ticket.
 * Two stores to a line in the taker's cache, ordered as a kernel reading
 * the line after the thread's death needs (the add is a full barrier on
 * x86, and seq_cst orders the first store before it in C11). What a
 * per-thread record would cost, the cheapest there is: the yardstick for
 * the gap ring-owned measures.
 */
static __thread struct {
	uint64_t word;
} rl_line SHARED;

#define RL_TAKING	(~0ULL)

static int rl_take(uint64_t *t)
{
	__atomic_store_n(&rl_line.word, RL_TAKING, __ATOMIC_RELAXED);
	*t = __atomic_fetch_add(&next_ticket, 1, __ATOMIC_SEQ_CST);
	__atomic_store_n(&rl_line.word, *t, __ATOMIC_RELEASE);
	return 0;
}

static const struct seq_ops seq_ring_local = {
	"ring-local", rg_init, rl_take, rg_wait, rg_complete, 1,
};

/* --- spin ------------------------------------------------------------- */

static uint64_t sp_next SHARED;

static int sp_init(void)
{
	return 0;
}

static int sp_wait(uint64_t t)
{
	while (__atomic_load_n(&sp_next, __ATOMIC_ACQUIRE) != t)
		cpu_relax();
	return 0;
}

static int sp_complete(uint64_t t)
{
	__atomic_store_n(&sp_next, t + 1, __ATOMIC_RELEASE);
	return 0;
}

static const struct seq_ops seq_spin = {
	"spin", sp_init, user_take, sp_wait, sp_complete, 1,
};

static const struct seq_ops *const contenders[] = {
	&seq_ordsched, &seq_ordsched_ioctl, &seq_condvar, &seq_futex, &seq_ring,
	&seq_ring_again, &seq_ring_owned, &seq_ring_local, &seq_ring_ahead,
	&seq_spin, &seq_ordsched_private,
};

/* --- work, commit, threads -------------------------------------------- */

/* Each thread's own: the work shares nothing. */
static __thread volatile uint64_t work_sink;

static void work(uint64_t loops, uint64_t t)
{
	uint64_t x = t, i;

	for (i = 0; i < loops; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	work_sink = x;
}

/* The fastest of a few 10 ms rounds: loops per microsecond. */
static uint64_t calibrate(void)
{
	uint64_t best = 0, loops, t0, el;
	int round;

	for (round = 0; round < 5; round++) {
		loops = 0;
		t0 = now_ns();
		do {
			work(1000, loops);
			loops += 1000;
			el = now_ns() - t0;
		} while (el < 10000000);
		if (loops * 1000 / el > best)
			best = loops * 1000 / el;
	}
	return best ? best : 1;
}

/* Serialized by the sequencer: the check needs no lock of its own. */
static void commit(uint64_t t)
{
	if (t - run.base != commit_log.committed)
		run.error = 1;
	commit_log.committed++;
	commit_log.sum += t - run.base;
	if (commit_log.committed == run.max_items)
		__atomic_store_n(&run.stop, 1, __ATOMIC_RELAXED);
}

static void *worker(void *arg)
{
	const struct seq_ops *ops = run.ops;
	uint64_t t;
	int ret = 0;

	(void)arg;
	while (!__atomic_load_n(&run.stop, __ATOMIC_RELAXED)) {
		ret = ops->take(&t);
		if (ret)
			break;
		work(run.work_loops, t);
		ret = ops->wait(t);
		if (ret)
			break;
		commit(t);
		ret = ops->complete(t);
		if (ret)
			break;
	}
	if (ret) {
		fprintf(stderr, "%s: error %d\n", ops->name, ret);
		__atomic_store_n(&run.error, 1, __ATOMIC_RELAXED);
	}
	__atomic_fetch_add(&total_syscalls, nr_syscalls, __ATOMIC_RELAXED);
	return NULL;
}

static int arg_u64(int argc, char **argv, const char *key, uint64_t *val)
{
	size_t len = strlen(key);
	int i;

	for (i = 1; i < argc; i++)
		if (!strncmp(argv[i], key, len) && argv[i][len] == '=') {
			*val = strtoull(argv[i] + len + 1, NULL, 0);
			return 1;
		}
	return 0;
}

static const char *arg_str(int argc, char **argv, const char *key)
{
	size_t len = strlen(key);
	int i;

	for (i = 1; i < argc; i++)
		if (!strncmp(argv[i], key, len) && argv[i][len] == '=')
			return argv[i] + len + 1;
	return NULL;
}

static uint64_t tv_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000000ULL + tv->tv_usec * 1000ULL;
}

int main(int argc, char **argv)
{
	const char *name = arg_str(argc, argv, "contender");
	uint64_t threads = 0, work_ns = 0, duration_ms = 300, t0, wall, lpu;
	pthread_t tid[MAX_THREADS];
	struct rusage r0, r1;
	struct timespec nap;
	unsigned int i;
	int ret;

	if (argc == 2 && !strcmp(argv[1], "calibrate")) {
		printf("%llu\n", (unsigned long long)calibrate());
		return 0;
	}
	for (i = 0; name && i < sizeof(contenders) / sizeof(*contenders); i++)
		if (!strcmp(contenders[i]->name, name))
			run.ops = contenders[i];
	arg_u64(argc, argv, "threads", &threads);
	arg_u64(argc, argv, "work_ns", &work_ns);
	arg_u64(argc, argv, "duration_ms", &duration_ms);
	arg_u64(argc, argv, "items", &run.max_items);
	if (!run.ops || !threads || threads > MAX_THREADS || !duration_ms) {
		fprintf(stderr,
			"usage: %s contender=ordsched|ordsched-ioctl|condvar|futex|ring|ring-again|ring-owned|ring-local|ring-ahead|spin|ordsched-private threads=T work_ns=W [duration_ms=MS | items=N]\n",
			argv[0]);
		return 2;
	}
	run.threads = threads;
	if (!arg_u64(argc, argv, "loops_per_us", &lpu) || !lpu)
		lpu = calibrate();
	run.work_loops = work_ns * lpu / 1000;
	ret = run.ops->init();
	if (ret) {
		fprintf(stderr, "%s: init: %s\n", run.ops->name, strerror(-ret));
		return 1;
	}

	getrusage(RUSAGE_SELF, &r0);
	t0 = now_ns();
	for (i = 0; i < threads; i++)
		if (pthread_create(&tid[i], NULL, worker, NULL)) {
			fprintf(stderr, "pthread_create failed\n");
			return 1;
		}
	if (!run.max_items) {
		nap.tv_sec = duration_ms / 1000;
		nap.tv_nsec = duration_ms % 1000 * 1000000;
		nanosleep(&nap, NULL);
		__atomic_store_n(&run.stop, 1, __ATOMIC_RELAXED);
	}
	for (i = 0; i < threads; i++)
		pthread_join(tid[i], NULL);
	wall = now_ns() - t0;
	getrusage(RUSAGE_SELF, &r1);

	/* Every ticket once, in order: the sum says none was counted twice. */
	if (run.error || !commit_log.committed ||
	    commit_log.sum != commit_log.committed * (commit_log.committed - 1) / 2) {
		fprintf(stderr, "%s: commit order check failed (%llu items)\n",
			run.ops->name, (unsigned long long)commit_log.committed);
		return 1;
	}
	printf("commit contender=%s threads=%u work_ns=%llu loops_per_us=%llu items=%llu ns=%llu cpu_ns=%llu syscalls=%lld vcsw=%ld ivcsw=%ld sys_ns=%llu\n",
	       run.ops->name, run.threads, (unsigned long long)work_ns,
	       (unsigned long long)lpu, (unsigned long long)commit_log.committed,
	       (unsigned long long)wall,
	       (unsigned long long)(tv_ns(&r1.ru_utime) + tv_ns(&r1.ru_stime) -
				    tv_ns(&r0.ru_utime) - tv_ns(&r0.ru_stime)),
	       run.ops->counts_syscalls ? (long long)total_syscalls : -1LL,
	       r1.ru_nvcsw - r0.ru_nvcsw, r1.ru_nivcsw - r0.ru_nivcsw,
	       (unsigned long long)(tv_ns(&r1.ru_stime) - tv_ns(&r0.ru_stime)));
	return 0;
}
