// SPDX-License-Identifier: GPL-2.0
/*
 * The delayed scheduler: one hrtimer, a tree of the near deadlines,
 * coarse wheels of the far ones, one per CPU, and a work item that moves
 * wheel buckets into the tree and hands due tasks over to their targets
 * in batches. Lock order: d->lock, then a wheel's lock, then the target's
 * locks (workqueue pool, stream).
 *
 * Locking: d->lock protects the tree, the timer bookkeeping, the counters
 * and every task it guards (see below); each far wheel (struct
 * delay_base) has a lock of its own, which protects the wheel and the
 * tasks it guards. All are irq-safe because the hrtimer callback takes
 * d->lock in hard interrupt and queue and cancel may be called there, and
 * raw because a spinlock_t sleeps on PREEMPT_RT, where the callback runs
 * in hard interrupt too (see "Interrupt tasks"). Nothing under them may
 * sleep on RT either: they nest only raw locks (hrtimer base, workqueue
 * pool, stream), and the wake-up of flushes, whose wait queue has a
 * spinlock_t, is a work item queued from under them (see
 * delay_retire()). The hrtimer is only started with d->lock held, so the
 * callback, under it too, can tell whether somebody started it again
 * while it ran.
 *
 * Why per-CPU wheels. Most timeouts are cancelled long before they are
 * due, so submit+cancel of a far task is the operation that must scale.
 * With one lock, `make bench` (2-CPU TCG guest, 100,000 pending) measured
 * a pair at 470-740 ns with one CPU submitting and 2.2-2.8 us each with
 * both: the lock and the lines it guards bouncing between the CPUs
 * dominated. A far task now waits in the wheel of the CPU that queued it,
 * under that wheel's lock, and a pair on one CPU touches no lock or line
 * another CPU's pairs touch but the queueing number and the pending count
 * (two atomics, one cache line: see the end of struct ordsched_delay),
 * unless the two CPUs share a wheel (below).
 * Near tasks, due within about the horizon, keep one tree under d->lock:
 * they are few at a time, and one tree is what hands due tasks over in
 * one order, from one place. Measured on stock 6.1 (README.md, the delay
 * section): with both CPUs submitting, pairs/s per CPU went from
 * 0.66-0.68x delayed_work's to 1.07-1.27x; one CPU alone pays more per
 * pair than with the one lock (550-590 ns against 425-500 at 10^5 and
 * 10^6 pending), still below delayed_work's. That needs the helpers on
 * the submit and cancel paths inlined (__always_inline): as calls they
 * cost 150-300 ns a pair more under TCG (not profiled; the kernel has
 * retpolines and return thunks), above delayed_work's cost. There are
 * at most DELAY_MAX_WHEELS wheels, so that get_stats can hold all their
 * locks at once: on bigger machines CPU n queues into wheel n modulo
 * their number, and the CPUs that share a wheel share its lock, whichever
 * node they are on.
 *
 * Who guards a task: task->base says, 0 for d->lock and 1 + n for wheel n's
 * lock. A far task is guarded by its wheel's lock; a task in the
 * tree, handed over or moved by d->lock; an idle one by whichever guarded
 * it last. Every operation on a task locks what task->base names and
 * looks again, as lock_timer_base() does (delay_lock_task()). The task
 * changes hands only under the lock that guards it: d->lock to a wheel's
 * nested (the lock order), a wheel's to d->lock or to another wheel's
 * through DELAY_SWITCHING, when neither is held and whoever looks for the
 * task waits; the dispatch work, holding both, moves a task from a wheel
 * into the tree at once. So every change of a task's state happens under
 * the one lock that guards it then, as it did under the single lock.
 * A task is queued far in the wheel of the CPU queueing it (an idle task
 * last guarded by another wheel changes hands first); a modify of a
 * far task leaves it in its wheel.
 *
 * A task is in one of five states:
 *
 *	IDLE	not queued, started, or cancelled: the caller's
 *	PENDING	in the tree, waiting for its deadline
 *	FAR	in the wheel (see "Near and far"), waiting for its deadline
 *	HANDED	taken out of the tree and queued on its target
 *	MOVED	modified while its target was starting it: the target
 *		gives it back to the tree instead of running it
 *
 * FAR becomes PENDING when the dispatch work moves it into the tree, and
 * IDLE by a cancel or a CANCEL stop; a modify moves it like a PENDING one.
 * PENDING becomes IDLE by a cancel or a CANCEL stop, and HANDED by the
 * hrtimer callback or the dispatch work, either of which queues the task
 * on its target in the same hold of d->lock: there is no moment when a
 * task is off the tree but not yet on its target. HANDED becomes IDLE when
 * the target starts the task (the trampoline marks it IDLE before calling
 * its function, which may queue it again), or when a cancel, under
 * d->lock, takes it back from the target with cancel_work() or
 * ordsched_stream_cancel(), which only succeed if the target never started
 * it. Whether the target has started a task is decided under the target's
 * own lock; everything else under d->lock: each queueing ends exactly
 * once, run or cancelled.
 *
 * A modify moves a PENDING task within the tree, and takes a HANDED one
 * back from its target the same way as a cancel, into the tree. When the
 * target has already started it (cancel_work() fails, the trampoline has
 * not taken d->lock yet), the task cannot be taken back: it becomes MOVED
 * with its new deadline, and the trampoline, finding it MOVED, puts it in
 * the tree instead of running it. The queueing goes on either way: its
 * color and its debug object stay as they are.
 *
 * Moved tasks keep their place. A MOVED task sorts in the tree's order by
 * the deadline and seq its move gave it, but it is not in the tree until
 * its target gives it back, which takes as long as that worker takes to
 * reach d->lock. Meanwhile nothing that sorts after it may be handed
 * over, or a later task would reach the target first. So d->moved counts
 * the MOVED tasks and d->moved_deadline/seq keep the least of their
 * places; a hand-over stops at a task at or after it, and neither the
 * callback nor the re-arm wakes up for such a task. The first
 * DELAY_MOVED_KNOWN of them are on record (d->moved_task), so that the
 * place is recomputed as each is given back or moved again: a task given
 * back is not held by its own old place, and what sorted before the
 * others' goes on. Beyond that many at once, until none is left, the
 * place is the least any took (never later than theirs: it may hold back
 * more, never less). A task given back kicks the dispatch work if
 * anything was held back. The wait is bounded: the target has started
 * the task and only takes d->lock before anything else.
 *
 * Slack: the tree is ordered by deadline, so that ties and the deadline
 * order hold whatever the slack. The timer is armed for the range from the
 * earliest deadline to the earliest deadline + slack of any task (its
 * "latest"), so the wake-up comes by every task's latest. A new task can
 * only lower that minimum: queueing arms for its own latest if that is
 * earlier than what is armed. A removal could raise it: the re-arm after
 * an expiry or a dispatch walks the tree from the earliest deadline until
 * no later task can have an earlier latest, at most DELAY_SLACK_WALK
 * tasks; if it stops there, it arms for the deadline of the task it
 * stopped at, which is never later than what the walk would have found,
 * and that wake-up then hands over more than DELAY_SLACK_WALK tasks.
 *
 * cancel_sync also waits for runs that have started. A task's function
 * may free it, so nothing after the function may touch the task: the
 * trampoline, and a CANCEL stop reporting tasks to @cancelled, announce
 * what they are busy with in a record on their own stack, listed on
 * d->running while they are; cancel_sync waits until its task is in no
 * record and not HANDED or MOVED. Meanwhile the task's @cancelling flag
 * makes its queueings fail, so a function that queues itself again
 * cannot escape; one cancel_sync of a task at a time owns the flag.
 *
 * Every queue_work() and cancel_work() of a task's work item happens under
 * d->lock. That is required, not a convenience: cancel_work() owns the
 * PENDING bit for a moment even when it finds nothing to cancel, and a
 * queue_work() that ran into it would return false and drop the task.
 *
 * The hard interrupt does bounded work: it hands at most DELAY_DIRECT due
 * tasks straight to their targets (queue_work() and a stream's queueing
 * are irq-safe), and queues the dispatch work only if more are due; it
 * runs at most DELAY_IRQ_RUN interrupt tasks (below). The
 * common case, a few deadlines per wake-up, then costs one wake-up (the
 * target's worker) instead of two (the dispatch work's, then the
 * target's). The work hands due tasks over DELAY_CHUNK per hold of the
 * lock, which bounds the time with interrupts off. Emptying the tree in
 * the interrupt would be an O(n log n) loop with interrupts off whenever
 * many deadlines coincide. While the dispatch work is queued or running
 * it owns the timer: it arms it for the earliest deadline left when it
 * finishes, and the interrupt hands nothing over meanwhile, so that due
 * tasks still leave the tree in one order, from one place at a time.
 *
 * Never early: a task is handed over only by whoever finds its deadline
 * reached by ktime_get() under d->lock (the interrupt or the dispatch
 * work); the timer only says when to look.
 *
 * Interrupt tasks run in the hrtimer callback. It is set up and always
 * started in hard mode, so it runs in hard interrupt on PREEMPT_RT too:
 * every lock it takes is raw, and what it calls is legal there
 * (queue_work(), a stream's queueing under the stream's raw lock, debug
 * objects, tracepoints; wake-ups go through d->wake). Their target is
 * d->irq_due, a FIFO under d->lock: handing an interrupt task over, by
 * the callback or by the dispatch work, puts it HANDED at the tail, in
 * the order tasks leave the tree. The callback takes tasks off the head,
 * at most DELAY_IRQ_RUN per interrupt: under d->lock it unlinks one,
 * marks it IDLE and lists a busy record, as the trampoline does, then
 * drops the lock around the function (interrupts stay off) and retires
 * the queueing after it without touching the task. So a HANDED interrupt
 * task is on the FIFO and has not started: a cancel or a modify takes it
 * back by a list_del() under d->lock, and it is never MOVED; its function
 * finds it IDLE and may queue it again (into the tree, never straight
 * onto the FIFO: one interrupt runs each queueing at most once). One
 * hrtimer's callback never runs twice at once, so a scheduler's
 * interrupt tasks run one at a time, in hand-over order: by deadline,
 * ties in queueing order. cancel_sync waits for a running one by its busy
 * record, whose thread is NULL: in an interrupt, current is whoever was
 * interrupted, not the task's caller. A stop, in either mode, lets handed
 * interrupt tasks run as it does other targets' handed tasks, and cancels
 * the timer only once every queueing is over: the FIFO is empty then.
 *
 * Only the callback runs them, so whoever leaves the FIFO non-empty makes
 * the timer fire: the dispatch work, after handing some over to an empty
 * FIFO, arms it for now; the callback, leaving some for later, for later
 * (a non-empty FIFO is always armed for, and arming only ever brings the
 * timer forward until it fires, so the dispatch work does not override
 * the callback's "later" while a crowd goes through). Both go through
 * delay_arm_timer(), which arms even while the dispatch work owns the
 * timer (d->dispatching): the callback then runs the FIFO and hands
 * nothing over, and the work arms for the tree when it finishes, as
 * before. "Later" is no sooner than the round took, at least
 * DELAY_IRQ_GAP: with a crowd of due interrupt tasks the CPU still has
 * interrupts on half the time. Arming for now instead would make
 * hrtimer_interrupt() run the callback again at once, up to three times,
 * then take the CPU for hung, hold back all of its hrtimers and say so in
 * the log.
 *
 * Arming only brings the timer forward, so the timer may still fire
 * sooner, for another task or from another CPU, and the dispatch work may
 * hand a task over while a round has dropped the lock. What keeps a
 * polling task's rounds apart is therefore checked where tasks run: a
 * round records in d->irq_next when the next may start (its end plus its
 * length, DELAY_IRQ_GAP at least), a callback that fires sooner only arms
 * for then, and a round runs no queueing younger than itself (by d->seq,
 * taken at every queueing): a task that a round's function queues runs
 * in a later round.
 *
 * Near and far. Most timeouts are cancelled long before they are due, so
 * a far task should cost an O(1) list operation, as in the timer wheel,
 * and only the near ones the tree's O(log n) and its precision. Each
 * wheel's clock b->clk counts units of 2^DELAY_UNIT_SHIFT ns; a task
 * queued on a CPU goes in the tree if its deadline's unit is <= that
 * CPU's wheel clock (the "wheel floor" is (clk + 1) units) or <= the unit
 * of now + DELAY_HORIZON, now read coarsely from jiffies (see
 * delay_base_now()), else in the wheel. A wheel's clock stands still
 * while it waits for a far stop, so without the second test a short delay
 * queued meanwhile would wait in a bucket for a dispatch work to move it:
 * a hop and a wake-up more, and late by them. What follows is about one
 * wheel; each has its own. The wheel has DELAY_LEVELS levels of 64
 * buckets; a deadline goes in the bucket of the highest 6-bit digit where
 * its unit differs from the clock (level k, bucket = that digit), beyond
 * the last level in an overflow list, and KTIME_MAX, never due, in a list
 * that arms nothing. Submit and cancel of
 * a far task are a list_add_tail() or a list_del() and a bit in a level's
 * occupancy mask. The clock only moves on to where a bucket starts (the
 * lowest occupied one after it: delay_wheel_next()); that bucket, and
 * every bucket of the clock's new digit at each level, is spliced whole
 * onto b->rescan and its tasks placed again: in the tree if their unit is
 * now <= clk, else in a bucket of a lower level, since they now share the
 * clock's digit at their old level. So a task moves at most once per
 * level; the overflow is looked at once per turn of the last level. The
 * clock moves to a bucket's start DELAY_HORIZON before it is due, by the
 * hrtimer (armed for the earliest of the tree's first deadline and the
 * wheels' next stop) which kicks the dispatch work: the moves are bulk
 * work, done there in chunks of DELAY_CHUNK tasks per hold of d->lock
 * (and the wheel's, nested), never in hard interrupt. The work visits
 * every wheel, whether its CPUs are online or not, so a CPU going offline
 * strands nothing and needs no hotplug callback. With no bucket to stop
 * at before now + DELAY_HORIZON, the clock simply moves there: no task
 * changes place (none has a digit in between); an empty wheel lets the
 * clock go anywhere, so a submission finding it empty brings it up to
 * about now first (less the error of delay_base_now(), so never ahead).
 *
 * The wheels' next stop: each wheel keeps b->next, never after its next
 * stop, and d->wheel_next, under d->lock, is never after any b->next.
 * A queueing that makes its wheel's next stop earlier lowers b->next
 * under the wheel's lock, then, after dropping it, d->wheel_next under
 * d->lock, and arms the timer for it; every other far queueing takes no
 * d->lock at all. The dispatch work, when it finishes, sets every b->next
 * and d->wheel_next exactly, in one hold of d->lock.
 *
 * Deadline order across tree and wheels: the clocks of different wheels
 * differ and lag, so a task in the tree may be later than one in a
 * wheel (a near deadline queued while a wheel's clock lags). But a
 * wheel's task is never earlier than the start of its bucket, a stop of
 * that wheel, so while no stop is due by now + DELAY_HORIZON
 * (d->wheel_next above it) every wheel task is later than every task due
 * now. The interrupt hands tasks over itself only then; otherwise it
 * kicks the dispatch work, which moves every due bucket of every wheel
 * into the tree before it hands anything over, and owns the timer
 * meanwhile (d->dispatching): the interrupt hands nothing over. A
 * queueing concurrent with a hand-over, between lowering b->next and
 * d->wheel_next, is ordered after it, as if it came a moment later.
 * Never early does not depend on the wheels at all: only a task found due
 * in the tree is handed over; the horizon only decides how late a task
 * can be made by a dispatch work that runs late: not at all unless it is
 * DELAY_HORIZON late.
 *
 * Ties: the tree is ordered by deadline, then by task->seq, taken from
 * the atomic d->seq at each queueing and move, whichever lock the task is
 * under. So tasks with equal deadlines leave the tree in queueing order
 * whatever way each came into it: directly, or through the buckets of
 * any CPU's wheel and its rescan list in any order; and for queueings on
 * different CPUs ordered by happens-before, the atomic's order is theirs.
 * The case this is for: far task A is being moved (it waits on b->rescan,
 * the clock already past its unit) when task B, queued later for the same
 * deadline, goes straight into the tree; A arrives after B but sorts
 * before it. A FIFO rule alone would not do, even in one wheel. Tasks
 * are handed over under d->lock, earliest first, by the callback or the
 * dispatch work and never both at once (see above), so the targets
 * receive them in that order.
 *
 * Stop: a queueing reads d->stopped under the lock guarding its task,
 * maybe a wheel's. It runs with interrupts off from that check to its
 * last unlock, so the stop, after setting the flag, waits a grace period
 * (synchronize_rcu()) for those that read it clear to have placed their
 * task; only then it cancels or runs what is pending, everywhere.
 *
 * The parameters, from `make bench` on a loaded 2-CPU TCG guest: the
 * horizon must cover the wake-up latency of a worker, which `make bench`
 * measured at 0.4-4.5 ms p99 there (a task the hrtimer hands straight to
 * its worker), with a wide margin: a bucket that arrives late makes its
 * tasks late. DELAY_HORIZON is 4 units, 16.8 ms, and a unit 4.2 ms: the
 * tree then holds 17-21 ms of deadlines, which keeps it small for the
 * timeouts that matter here (tens of ms and more), and a level-0 bucket
 * is one wake-up per 4.2 ms at most, as a HZ=250 jiffy. Submit+cancel of
 * a far task then measured 470-1100 ns whatever the number pending (10^3
 * to 10^6), against 900-2600 ns for delayed_work. Four levels reach 2^46
 * ns (19.5 hours) before the overflow. A bucket's move costs a tree
 * insert per task, paid by the dispatch work instead of the submitters:
 * under TCG, 20,000 tasks for one deadline took about the horizon to move
 * (in far_ties, the pass that moved them also found them due), so such a
 * crowd can be late by what the move takes beyond the horizon.
 *
 * Flush uses colors, like workqueue flushes: a task takes the current
 * color when queued, inflight[color] counts queueings neither
 * finished nor cancelled, and a flush moves the color on and waits for
 * every other color to drain. The count is split over the locks: each
 * counts the queueings that began under it minus those that ended under
 * it, and only the sum means anything (delay_inflight_sum()). It waits for exactly the tasks queued
 * before it, whatever comes later. A killed flush leaves its color still
 * draining; with four colors the next flush still has one of its own.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/debugobjects.h>
#include <linux/err.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rbtree.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/wait.h>
#include <ordsched.h>

#include "compat.h"
#include "internal.h"
#include "trace.h"

/* Tasks taken out of the tree per hold of the lock: bounds irq-off time. */
#define DELAY_CHUNK	32
/*
 * Due tasks the hrtimer callback hands over itself, with interrupts off:
 * a timerqueue_del() and a queue_work() each, about a microsecond in all.
 */
#define DELAY_DIRECT	4

/*
 * Irq tasks the hrtimer callback runs per interrupt; more wait for the
 * next one, which comes no sooner than the callback took (at least
 * DELAY_IRQ_GAP ns): interrupts are on at least half the time.
 */
#define DELAY_IRQ_RUN	8
#define DELAY_IRQ_GAP	(5 * NSEC_PER_USEC)

/* Tasks the re-arm looks at for the earliest deadline + slack. */
#define DELAY_SLACK_WALK	16

/*
 * Moved tasks on record at once (each is one a worker has started and
 * not yet given back): their held place is exact, see delay_move().
 */
#define DELAY_MOVED_KNOWN	4

/*
 * Far wheels a scheduler has at most: one per possible CPU up to this
 * many, then CPUs share them (see "Why per-CPU wheels"). get_stats holds
 * every wheel's lock at once, with interrupts off, and each raw lock held
 * counts one in the 8-bit preemption count: with one wheel per possible
 * CPU, a machine with 245 possible CPUs (large VMs report that many) made
 * DEBUG_PREEMPT warn, and with 255 the count ran into the softirq bits.
 * The bound also keeps the dispatch work's walks of the wheels under
 * d->lock short, and a scheduler's memory (4.2 KiB a wheel) bounded. The
 * module parameter lowers it.
 */
#define DELAY_MAX_WHEELS	64
static_assert(DELAY_MAX_WHEELS + 1 <= (PREEMPT_MASK >> PREEMPT_SHIFT) / 2);

static unsigned int delay_max_wheels = DELAY_MAX_WHEELS;

/*
 * A value outside 1-64 fails the load (EINVAL; ERANGE past 32 bits, from
 * kstrtouint()), not clamped quietly.
 */
static int delay_max_wheels_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, DELAY_MAX_WHEELS);
}

static const struct kernel_param_ops delay_max_wheels_ops = {
	.set = delay_max_wheels_set,
	.get = param_get_uint,
};

module_param_cb(delay_max_wheels, &delay_max_wheels_ops, &delay_max_wheels,
		0444);
MODULE_PARM_DESC(delay_max_wheels,
		 "Far wheels per delayed scheduler at most, one per CPU up to it, then shared (1-64, default 64)");

/*
 * The far wheel (see "Near and far" above): units of 2^22 ns (4.2 ms),
 * four levels of 64 buckets, each 64 times coarser than the one below,
 * the last spanning 2^46 ns (19.5 hours); beyond, an overflow list. The
 * tree takes every deadline within DELAY_HORIZON of the wheel's clock.
 */
#define DELAY_UNIT_SHIFT	22
#define DELAY_LEVEL_BITS	6
#define DELAY_SLOTS		BIT(DELAY_LEVEL_BITS)
#define DELAY_LEVELS		4
#define DELAY_HORIZON		(4LL << DELAY_UNIT_SHIFT)
#define DELAY_TOP_SHIFT		(DELAY_LEVELS * DELAY_LEVEL_BITS)

#define DELAY_COLORS	4
#define DELAY_ALL_COLORS	(BIT(DELAY_COLORS) - 1)

enum delay_state {
	DELAY_IDLE,
	DELAY_PENDING,
	DELAY_FAR,
	DELAY_HANDED,
	DELAY_MOVED,
};

enum delay_target {
	DELAY_TARGET_WQ,
	DELAY_TARGET_STREAM,
	DELAY_TARGET_IRQ,
};

/* task->base: the scheduler's own lock, or changing hands (see above). */
#define DELAY_CENTRAL		0
#define DELAY_SWITCHING		U16_MAX

/* Counters each lock keeps for the tasks it guards; summed by get_stats. */
struct delay_counts {
	u64 queued;
	u64 modified;
	u64 cancels;
};

/*
 * A far wheel: the far tasks queued on its CPUs, and the idle tasks last
 * queued far there. Its lock guards everything here and every task whose
 * @base names it; counters are summed by get_stats. Allocated from a
 * cache aligned to cache lines, so that two wheels share none.
 */
struct delay_base {
	raw_spinlock_t lock;
	/*
	 * In wheel units: this wheel holds deadlines from (@clk + 1) <<
	 * DELAY_UNIT_SHIFT on, each in the bucket of the highest 6-bit digit
	 * where it differs from @clk. A bit of @occupied is set while its
	 * bucket has tasks.
	 */
	u64 clk;
	/* No stop of this wheel comes before @next (a lower bound). */
	u64 next;
	/*
	 * CLOCK_MONOTONIC minus jiffies in ns, as last read here: now, to a
	 * tick or so, without a call (see delay_base_now()).
	 */
	s64 jbase;
	u64 occupied[DELAY_LEVELS];
	struct list_head wheel[DELAY_LEVELS][DELAY_SLOTS];
	/* Beyond the last level; KTIME_MAX, never due; taken out to re-place. */
	struct list_head overflow;
	struct list_head never;
	struct list_head rescan;
	/* Tasks in the wheel, the overflow, @never and @rescan. */
	u64 far;
	struct delay_counts counts;
	/*
	 * Queueings that began here, minus those that ended here: only
	 * their sum over d and every wheel means anything (delay_drained()).
	 */
	long inflight[DELAY_COLORS];
};

/*
 * Fixed at module load, the same for every scheduler: how many wheels
 * each has, min(possible CPUs, delay_max_wheels); which one each CPU
 * queues into (CPU n: wheel n modulo their number); and the cache the
 * wheels come from, each from its first CPU's node, as per-CPU data would.
 */
static unsigned int delay_nr_wheels;
static DEFINE_PER_CPU(u8, delay_wheel_of);
static struct kmem_cache *delay_wheel_cache;

struct ordsched_delay {
	/* The tree, task states, timer bookkeeping, counters: see above. */
	raw_spinlock_t lock;
	/* The near tasks, by deadline, then queueing number. */
	struct rb_root_cached tree;
	/* No wheel stops before this (a lower bound); U64_MAX: none. */
	u64 wheel_next;
	struct hrtimer timer;
	/*
	 * The latest the timer is armed to fire at, never later than the
	 * earliest latest of the pending tasks; KTIME_MAX when not armed.
	 */
	ktime_t armed;
	u64 slack;
	/* The dispatch work is queued or running and will look again. */
	bool dispatching;
	/* Irq tasks handed over, in that order: the callback runs them. */
	struct list_head irq_due;
	/*
	 * The CPU whose callback is running irq tasks' functions, or -1;
	 * the time that callback fired.
	 */
	int irq_cpu;
	ktime_t irq_start;
	/* No round of irq tasks starts before this; see the top. */
	ktime_t irq_next;
	/* Tasks the current wake-up has handed over so far. */
	u64 batch;
	/* New queueings are refused. */
	bool stopped;
	/*
	 * The first stop was in CANCEL mode: nothing is handed over any
	 * more (the stop cancels what waits), and a moved task is cancelled
	 * when its target gives it back. Set with @stopped, in one hold of the
	 * lock, so that a moved task given back before a RUN stop sets
	 * @run_now runs, as the header says, instead of being cancelled: it
	 * goes back in the tree, where @run_now hands it over in order.
	 */
	bool stop_cancels;
	/* A RUN stop: every pending task is due now. */
	bool run_now;
	/*
	 * Tasks MOVED, not yet given back; the least deadline and seq of
	 * theirs; whether a hand-over stopped there; the first of them, and
	 * whether more came at once (the place is then a bound). See "Moved
	 * tasks keep their place" above.
	 */
	unsigned int moved;
	bool moved_held;
	bool moved_lost;
	ktime_t moved_deadline;
	u64 moved_seq;
	struct ordsched_delay_task *moved_task[DELAY_MOVED_KNOWN];
	u8 color;
	struct work_struct dispatch;
	/* Wakes @idle: wake_up() takes a spinlock_t, not under d->lock. */
	struct work_struct wake;
	wait_queue_head_t idle;
	/* Serializes flushes: each owns the color flip until drained. */
	struct mutex flush_mutex;
	/* The struct delay_busy records: runs and stop reports under way. */
	struct list_head running;
	/* cancel_syncs waiting for a record to go: wake them via @wake. */
	unsigned int sync_waiters;
	/* Flushes and stops waiting for colors to drain: the same. */
	unsigned int drain_waiters;
	/* The scheduler's own part of the inflight sums and counters. */
	long inflight[DELAY_COLORS];
	struct delay_counts counts;
	void (*cancelled)(struct ordsched_delay_task *task);
	struct ordsched_delay_stats stats;
	/* Name, id, debugfs; the counters above are under d->lock. */
	struct ordsched_instance inst;
	/*
	 * What every queueing and cancel touches, whatever lock it holds:
	 * one cache line, bounced by atomics instead of a lock.
	 */
	struct {
		atomic64_t seq;
		atomic_long_t pending;
		atomic_long_t peak;
	} ____cacheline_aligned_in_smp;
	/* The far wheels, delay_nr_wheels of them, each on its CPUs' node. */
	struct delay_base *bases[];
};

/*
 * Debug objects: a task is active from its queueing until it starts or is
 * cancelled. One freed or initialized again while active is reported on a
 * debug kernel and taken back first, so nothing touches its memory later.
 */
static const struct debug_obj_descr delay_task_debug_descr;
static bool delay_orphan_cancel(struct ordsched_delay *d,
				struct ordsched_delay_task *task);

static bool delay_task_fixup(void *addr, enum debug_obj_state state)
{
	struct ordsched_delay_task *task = addr;

	if (state != ODEBUG_STATE_ACTIVE)
		return false;
	if (task->delay && (ordsched_delay_cancel(task->delay, task) ||
			    delay_orphan_cancel(task->delay, task)))
		return true;
	/*
	 * Started, or not queued by ordsched at all: reported only. Left
	 * active, the free path would come back to it forever.
	 */
	debug_object_deactivate(task, &delay_task_debug_descr);
	return false;
}

static const struct debug_obj_descr delay_task_debug_descr = {
	.name		= "ordsched_delay_task",
	.fixup_init	= delay_task_fixup,
	.fixup_free	= delay_task_fixup,
};

/*
 * A waiting task's @rb and @entry lie over what only its target uses: a
 * work item's entry and function, a stream item's node and function (see
 * <ordsched/delay.h>). delay_hand_over() sets those again; nothing else
 * writes @rb or @entry but a queueing or a move, which happen while the
 * target does not have the task, or from the trampoline, after the target
 * has read the function and called it. The work item's data word, which
 * the workqueue keeps across runs, is never covered.
 */
static_assert(offsetof(struct ordsched_delay_task, rb) ==
	      offsetof(struct ordsched_delay_task, wq.work.entry));
static_assert(offsetofend(struct ordsched_delay_task, rb) <=
	      offsetofend(struct ordsched_delay_task, wq.work.func));
static_assert(offsetof(struct ordsched_delay_task, rb) ==
	      offsetof(struct ordsched_delay_task, stream.item.node));
static_assert(offsetofend(struct ordsched_delay_task, rb) <=
	      offsetofend(struct ordsched_delay_task, stream.item.fn));
static_assert(sizeof(struct list_head) <= sizeof(struct rb_node));

static void delay_work_fn(struct work_struct *work);
static void delay_stream_fn(struct ordsched_stream_item *item);

static struct ordsched_delay_task *node_to_task(struct rb_node *node)
{
	return rb_entry(node, struct ordsched_delay_task, rb);
}

/* The scheduler's order of places: deadline, then queueing number. */
static bool delay_place_before(ktime_t deadline, u64 seq, ktime_t other,
			       u64 other_seq)
{
	return deadline < other || (deadline == other && seq < other_seq);
}

/* The tree's order. */
static bool delay_before(struct rb_node *a, const struct rb_node *b)
{
	const struct ordsched_delay_task *x = node_to_task(a);
	const struct ordsched_delay_task *y = rb_entry(b, struct ordsched_delay_task, rb);

	return delay_place_before(x->deadline, x->seq, y->deadline, y->seq);
}

static struct ordsched_delay_task *delay_first(struct ordsched_delay *d)
{
	struct rb_node *node = rb_first_cached(&d->tree);

	return node ? node_to_task(node) : NULL;
}

/* Nothing that sorts at or after @task's place is handed over. */
static void delay_moved_hold_at(struct ordsched_delay *d,
				const struct ordsched_delay_task *task)
{
	d->moved_deadline = task->deadline;
	d->moved_seq = task->seq;
}

/* The place held: the least of the moved tasks on record. */
static void delay_moved_place(struct ordsched_delay *d)
{
	const struct ordsched_delay_task *t, *least = NULL;
	unsigned int i;

	lockdep_assert_held(&d->lock);
	for (i = 0; i < DELAY_MOVED_KNOWN; i++) {
		t = d->moved_task[i];
		if (t && (!least || delay_place_before(t->deadline, t->seq,
						       least->deadline,
						       least->seq)))
			least = t;
	}
	if (least)
		delay_moved_hold_at(d, least);
}

/* @task is MOVED now: on record if there is room, else the place a bound. */
static void delay_moved_add(struct ordsched_delay *d,
			    struct ordsched_delay_task *task)
{
	unsigned int i;

	lockdep_assert_held(&d->lock);
	d->moved++;
	for (i = 0; i < DELAY_MOVED_KNOWN; i++) {
		if (!d->moved_task[i]) {
			d->moved_task[i] = task;
			return;
		}
	}
	d->moved_lost = true;
}

/*
 * Must @task, due, wait? Once a CANCEL stop began, every task waits: the
 * stop cancels it, also one that fell due while the stop waited for a
 * grace period. Otherwise it waits for a moved task to be given back,
 * which may sort before it: noted, so that the next one given back kicks
 * the dispatch.
 */
static bool delay_held_back(struct ordsched_delay *d,
			    const struct ordsched_delay_task *task)
{
	lockdep_assert_held(&d->lock);
	if (d->stop_cancels)
		return true;
	if (likely(!d->moved))
		return false;
	if (delay_place_before(task->deadline, task->seq, d->moved_deadline,
			       d->moved_seq))
		return false;
	d->moved_held = true;
	return true;
}

/*
 * Tasks a thread is busy with, that a cancel_sync waits for: the task of a
 * run, from the start of its function until it returned, or a CANCEL
 * stop's batch until @cancelled returned for each. On that thread's stack,
 * on d->running under d->lock. The pointers are compared, never followed:
 * a function may have freed its task.
 */
struct delay_busy {
	struct list_head node;
	struct task_struct *thread;
	struct ordsched_delay_task **tasks;
	unsigned int n;
};

static __always_inline struct delay_base *
delay_base(struct ordsched_delay *d, u16 base)
{
	return d->bases[base - 1];
}

/* The @base of this CPU's wheel; interrupts are off, so the CPU stays. */
static __always_inline u16 delay_here(void)
{
	return 1 + this_cpu_read(delay_wheel_of);
}

static __always_inline raw_spinlock_t *
delay_lock_of(struct ordsched_delay *d, u16 base)
{
	return base == DELAY_CENTRAL ? &d->lock : &delay_base(d, base)->lock;
}

/* The counters of the lock @base: the scheduler's own, or a wheel's. */
static __always_inline struct delay_counts *
delay_counts(struct ordsched_delay *d, u16 base)
{
	return base == DELAY_CENTRAL ? &d->counts : &delay_base(d, base)->counts;
}

/*
 * Sparse cannot follow a task changing hands between locks: these keep
 * its books balanced where the lock is chosen at run time, or taken in
 * one function and dropped in another; lockdep checks the real thing.
 */
static __always_inline void
delay_raw_lock(raw_spinlock_t *lock)
{
	raw_spin_lock(lock);
	__release(lock);
}

static __always_inline void
delay_raw_unlock(raw_spinlock_t *lock)
{
	__acquire(lock);
	raw_spin_unlock(lock);
}

/* The inflight counts of the lock @base. */
static __always_inline long *
delay_inflight(struct ordsched_delay *d, u16 base)
{
	return base == DELAY_CENTRAL ? d->inflight :
				       delay_base(d, base)->inflight;
}

/*
 * Queue d->wake. Not on ordsched_wq, where the tasks of callers who bring
 * no workqueue run: its max_active (256, or what an administrator set
 * through sysfs) can be taken by such tasks, each in a flush or a
 * cancel_sync that waits for this wake-up, which would then wait behind
 * them for good. ordsched_wake_wq runs nothing else (main.c).
 */
static __always_inline void delay_kick_wake(struct ordsched_delay *d)
{
	queue_work(ordsched_wake_wq, &d->wake);
}

/*
 * A queueing ended, run or cancelled, under the lock @base, which guards
 * the task. Whether its color drained only the sum over every lock says,
 * so while a flush or a stop waits, every end wakes it through d->wake:
 * wake_up() takes the wait queue's spinlock_t, which must not nest in a
 * raw lock (it sleeps on RT), and cannot simply follow the unlock either:
 * the flush could see the drain, return, and its caller free d before a
 * late wake_up(). The work item is queued under the lock and flushed
 * before d is freed, after delay_barrier().
 */
static __always_inline void
delay_retire(struct ordsched_delay *d, u8 color, u64 n, u16 base)
{
	lockdep_assert_held(delay_lock_of(d, base));
	delay_inflight(d, base)[color] -= n;
	if (READ_ONCE(d->drain_waiters))
		delay_kick_wake(d);
}

static void delay_wake(struct work_struct *work)
{
	wake_up(&container_of(work, struct ordsched_delay, wake)->idle);
}

/* A busy record went, or a moved task came back: tell the cancel_syncs. */
static void delay_wake_sync(struct ordsched_delay *d)
{
	lockdep_assert_held(&d->lock);
	if (d->sync_waiters)
		delay_kick_wake(d);
}

/*
 * The queueings of @colors (a bit mask) not yet over, summed over d and
 * every wheel. d->lock is held throughout, so no task changes hands to or
 * from it meanwhile; a wheel's count changes after it is read only by
 * queueings that come later (of the color the flip made current, which
 * happened under d->lock before) or by ends of tasks counted already:
 * the sum is never below what was inflight when it began.
 */
static long delay_inflight_sum(struct ordsched_delay *d, unsigned int colors)
{
	struct delay_base *b;
	unsigned int w;
	long sum = 0;
	int c;

	lockdep_assert_held(&d->lock);
	for (c = 0; c < DELAY_COLORS; c++)
		if (colors & BIT(c))
			sum += d->inflight[c];
	for (w = 0; w < delay_nr_wheels; w++) {
		b = d->bases[w];
		raw_spin_lock(&b->lock);
		for (c = 0; c < DELAY_COLORS; c++)
			if (colors & BIT(c))
				sum += b->inflight[c];
		raw_spin_unlock(&b->lock);
	}
	return sum;
}

/* Are the queueings of every color in @colors (a bit mask) over? */
static bool delay_drained(struct ordsched_delay *d, unsigned int colors)
{
	bool drained;

	raw_spin_lock_irq(&d->lock);
	drained = !delay_inflight_sum(d, colors);
	raw_spin_unlock_irq(&d->lock);
	return drained;
}

/* Wait, killably or not, for the queueings of @colors to be over. */
static int delay_wait_drained(struct ordsched_delay *d, unsigned int colors,
			      bool killable)
{
	int ret = 0;

	raw_spin_lock_irq(&d->lock);
	d->drain_waiters++;
	raw_spin_unlock_irq(&d->lock);
	if (killable)
		ret = wait_event_killable(d->idle, delay_drained(d, colors));
	else
		wait_event_idle(d->idle, delay_drained(d, colors));
	raw_spin_lock_irq(&d->lock);
	d->drain_waiters--;
	raw_spin_unlock_irq(&d->lock);
	return ret;
}

/* The lock that guards @task as a task of @d: a task of another is new. */
static __always_inline u16
delay_task_base(struct ordsched_delay *d, struct ordsched_delay_task *task)
{
	/* Pairs with the release when the task joins d: then @base is d's. */
	if (smp_load_acquire(&task->delay) != d)
		return DELAY_CENTRAL;
	return READ_ONCE(task->base);
}

/*
 * Lock what guards @task, with interrupts off, as lock_timer_base() does
 * for a timer: read where the task is, lock that, and look again.
 */
static __always_inline u16
delay_lock_task(struct ordsched_delay *d, struct ordsched_delay_task *task,
		unsigned long *flags)
{
	u16 base;

	local_irq_save(*flags);
	for (;;) {
		base = delay_task_base(d, task);
		if (base != DELAY_SWITCHING) {
			delay_raw_lock(delay_lock_of(d, base));
			if (delay_task_base(d, task) == base)
				return base;
			delay_raw_unlock(delay_lock_of(d, base));
		}
		cpu_relax();
	}
}

/*
 * Hand @task over from the lock @from, held, to the lock @to, which is
 * then held instead; interrupts stay off. From the scheduler's lock to a
 * wheel's, nested (that is the lock order); the other ways never hold
 * both: meanwhile the task is DELAY_SWITCHING and whoever looks for it
 * waits, as for a timer changing bases. So it is always guarded.
 */
static __always_inline void
delay_switch(struct ordsched_delay *d, struct ordsched_delay_task *task,
	     u16 from, u16 to)
{
	if (from == to)
		return;
	if (from == DELAY_CENTRAL) {
		delay_raw_lock(delay_lock_of(d, to));
		WRITE_ONCE(task->base, to);
		delay_raw_unlock(&d->lock);
		return;
	}
	WRITE_ONCE(task->base, DELAY_SWITCHING);
	delay_raw_unlock(delay_lock_of(d, from));
	delay_raw_lock(delay_lock_of(d, to));
	WRITE_ONCE(task->base, to);
}

/*
 * Wait until every holder of a wheel's lock or of d->lock now has let it
 * go: their retirements have queued d->wake by then.
 */
static void delay_barrier(struct ordsched_delay *d)
{
	struct delay_base *b;
	unsigned int w;

	for (w = 0; w < delay_nr_wheels; w++) {
		b = d->bases[w];
		raw_spin_lock_irq(&b->lock);
		raw_spin_unlock_irq(&b->lock);
	}
	raw_spin_lock_irq(&d->lock);
	raw_spin_unlock_irq(&d->lock);
}

/* Deadline + slack: KTIME_MAX only for a task that is never due. */
static ktime_t delay_task_latest(const struct ordsched_delay_task *task)
{
	ktime_t deadline = task->deadline;

	if (deadline == KTIME_MAX)
		return KTIME_MAX;
	if (deadline > KTIME_MAX - 1 - (ktime_t)task->slack)
		return KTIME_MAX - 1;
	return deadline + task->slack;
}

/*
 * The latest the timer may fire at for the pending tasks: their earliest
 * latest, or, after DELAY_SLACK_WALK tasks, an earlier bound (see the top
 * of the file). Tasks are in deadline order and latest >= deadline: once
 * a deadline reaches the best latest so far, no later task beats it.
 */
static ktime_t delay_latest(struct ordsched_delay *d)
{
	struct rb_node *node = rb_first_cached(&d->tree);
	ktime_t latest = KTIME_MAX;
	unsigned int i;

	lockdep_assert_held(&d->lock);
	for (i = 0; node && node_to_task(node)->deadline < latest; i++) {
		if (i == DELAY_SLACK_WALK)
			return node_to_task(node)->deadline;
		latest = min(latest, delay_task_latest(node_to_task(node)));
		node = rb_next(node);
	}
	return latest;
}

/*
 * Start the timer to fire between @first and @latest, if that is earlier
 * than what is armed: also while the dispatch work owns the timer, for
 * due irq tasks only it can run. Always in hard mode, as it was set up:
 * PREEMPT_RT warns at a start in another mode.
 */
static void delay_arm_timer(struct ordsched_delay *d, ktime_t first,
			    ktime_t latest)
{
	ktime_t soonest;

	lockdep_assert_held(&d->lock);
	/*
	 * An irq task's function queueing a task due now, from the round
	 * that runs it: no sooner than the round's own arming would (see
	 * the top of the file), or a task that queues itself again at once
	 * would have hrtimer_interrupt() run the callback again at once.
	 * Only that round's CPU can hold d->lock there and then: the
	 * callback runs with interrupts off.
	 */
	if (unlikely(d->irq_cpu == raw_smp_processor_id())) {
		soonest = ktime_get();
		soonest += max_t(s64, soonest - d->irq_start, DELAY_IRQ_GAP);
		first = max(first, soonest);
		latest = max(latest, soonest);
	}
	if (latest >= d->armed)
		return;
	d->armed = latest;
	d->stats.rearms++;
	trace_ordsched_delay_arm(d->inst.id, first, latest - first);
	hrtimer_start_range_ns(&d->timer, first, latest - first,
			       HRTIMER_MODE_ABS_HARD);
}

/*
 * Arm the timer to fire between @first and @latest, if that is earlier
 * than what is armed, unless the dispatch work owns it.
 */
static void delay_arm(struct ordsched_delay *d, ktime_t first, ktime_t latest)
{
	lockdep_assert_held(&d->lock);
	if (!d->dispatching)
		delay_arm_timer(d, first, latest);
}

static void delay_kick(struct ordsched_delay *d)
{
	lockdep_assert_held(&d->lock);
	if (d->dispatching)
		return;
	d->dispatching = true;
	queue_work(ordsched_highpri_wq, &d->dispatch);
}

/* The wheel unit of a time: wheel positions are counted in these. */
static __always_inline u64
delay_unit(ktime_t t)
{
	return (u64)t >> DELAY_UNIT_SHIFT;
}

/* Note that it is @now, for delay_base_now(). */
static void delay_base_note(struct delay_base *b, ktime_t now)
{
	b->jbase = now - (s64)get_jiffies_64() * TICK_NSEC;
}

/*
 * Now, by jiffies, to about a tick either way (jiffies lag the clock by
 * up to a tick, at the note and now, while the tick keeps them up): as
 * coarse as ktime_get_coarse(), but a load and a multiply instead of a
 * call, which under TCG made a far task's submit+cancel cost 1.2-2x as much.
 * Jiffies follow CLOCK_MONOTONIC (the tick advances them by its own
 * readings), so @jbase does not drift; the dispatch work notes the time
 * again anyway.
 */
static __always_inline ktime_t delay_base_now(struct delay_base *b)
{
	return b->jbase + (s64)get_jiffies_64() * TICK_NSEC;
}

/* When the wheel's clock must reach @pos: DELAY_HORIZON before it. */
static ktime_t delay_wheel_time(u64 pos)
{
	return (ktime_t)(pos << DELAY_UNIT_SHIFT) - DELAY_HORIZON;
}

/*
 * The next position at which a wheel's clock must stop because a bucket
 * (or the overflow) is to be taken out there; U64_MAX if none. The buckets
 * of a level lie beyond the block the level below covers, so the lowest
 * level with an occupied bucket after the clock's own digit has it.
 */
static u64 delay_wheel_next(struct delay_base *b)
{
	unsigned int k, shift, digit;
	u64 mask;

	lockdep_assert_held(&b->lock);
	for (k = 0; k < DELAY_LEVELS; k++) {
		shift = k * DELAY_LEVEL_BITS;
		digit = (b->clk >> shift) & (DELAY_SLOTS - 1);
		if (digit == DELAY_SLOTS - 1)
			continue;
		mask = b->occupied[k] & (~0ULL << (digit + 1));
		if (mask)
			return (b->clk >> (shift + DELAY_LEVEL_BITS)
				       << (shift + DELAY_LEVEL_BITS)) |
			       ((u64)__ffs64(mask) << shift);
	}
	if (!list_empty(&b->overflow))
		return ((b->clk >> DELAY_TOP_SHIFT) + 1) << DELAY_TOP_SHIFT;
	return U64_MAX;
}

/* Put a task in the tree, which may bring the wake-up forward. */
static void delay_place_near(struct ordsched_delay *d,
			     struct ordsched_delay_task *task)
{
	lockdep_assert_held(&d->lock);
	task->state = DELAY_PENDING;
	rb_add_cached(&task->rb, &d->tree, delay_before);
	/* Any task, first or not, may bring the earliest latest forward. */
	delay_arm(d, delay_first(d)->deadline, delay_task_latest(task));
}

/*
 * Put a far task in the bucket of the highest digit where its deadline's
 * unit differs from the wheel's clock. Returns the bucket's start if it
 * is the wheel's earliest stop now (the timer must be armed to bring it
 * in DELAY_HORIZON before it is due: see delay_wheel_lower()), else
 * U64_MAX.
 */
static __always_inline u64
delay_place_far(struct delay_base *b, struct ordsched_delay_task *task)
{
	u64 unit = delay_unit(task->deadline), pos;
	unsigned int level, shift, slot;
	struct list_head *list;

	lockdep_assert_held(&b->lock);
	task->state = DELAY_FAR;
	b->far++;
	if (task->deadline == KTIME_MAX) {
		list_add_tail(&task->entry, &b->never);
		return U64_MAX;
	}
	level = (fls64(unit ^ b->clk) - 1) / DELAY_LEVEL_BITS;
	if (level >= DELAY_LEVELS) {
		list = &b->overflow;
		pos = ((b->clk >> DELAY_TOP_SHIFT) + 1) << DELAY_TOP_SHIFT;
	} else {
		shift = level * DELAY_LEVEL_BITS;
		slot = (unit >> shift) & (DELAY_SLOTS - 1);
		list = &b->wheel[level][slot];
		b->occupied[level] |= BIT_ULL(slot);
		pos = unit >> shift << shift;
	}
	list_add_tail(&task->entry, list);
	if (pos >= b->next)
		return U64_MAX;
	b->next = pos;
	return pos;
}

/* A wheel has a stop at @pos: arm the timer to bring it in on time. */
static void delay_wheel_lower(struct ordsched_delay *d, u64 pos)
{
	lockdep_assert_held(&d->lock);
	d->wheel_next = min(d->wheel_next, pos);
	delay_arm(d, delay_wheel_time(pos),
		  delay_wheel_time(pos) + DELAY_HORIZON / 2);
}

/*
 * Take a pending task out of the tree or its wheel. The last task of a
 * bucket takes the bucket's bit along, so that a cancelled timeout costs
 * no dispatch work later (the timer may still fire at the bucket's stop,
 * finds the wheels empty there when it counts again, and re-arms).
 */
static __always_inline void
delay_unlink(struct ordsched_delay *d, struct ordsched_delay_task *task,
	     u16 base)
{
	struct list_head *buckets, *head = task->entry.next;
	struct delay_base *b;
	unsigned long i;

	atomic_long_dec(&d->pending);
	if (task->state == DELAY_PENDING) {
		lockdep_assert_held(&d->lock);
		rb_erase_cached(&task->rb, &d->tree);
		return;
	}
	b = delay_base(d, base);
	lockdep_assert_held(&b->lock);
	buckets = &b->wheel[0][0];
	if (head == task->entry.prev && head >= buckets &&
	    head < buckets + DELAY_LEVELS * DELAY_SLOTS) {
		i = head - buckets;
		b->occupied[i / DELAY_SLOTS] &= ~BIT_ULL(i % DELAY_SLOTS);
	}
	list_del(&task->entry);
	b->far--;
}

/* No task in a bucket, the overflow or @rescan: the clock may jump. */
static __always_inline bool
delay_wheel_empty(struct delay_base *b)
{
	unsigned int k;

	for (k = 0; k < DELAY_LEVELS; k++)
		if (b->occupied[k])
			return false;
	return list_empty(&b->overflow) && list_empty(&b->rescan);
}

/* Move a wheel's clock to @pos and take out the buckets it reaches. */
static void delay_wheel_advance(struct delay_base *b, u64 pos)
{
	unsigned int k, slot;

	lockdep_assert_held(&b->lock);
	b->clk = pos;
	for (k = 0; k < DELAY_LEVELS; k++) {
		slot = (pos >> (k * DELAY_LEVEL_BITS)) & (DELAY_SLOTS - 1);
		if (b->occupied[k] & BIT_ULL(slot)) {
			list_splice_tail_init(&b->wheel[k][slot], &b->rescan);
			b->occupied[k] &= ~BIT_ULL(slot);
		}
	}
	if (!(pos & (BIT_ULL(DELAY_TOP_SHIFT) - 1)))
		list_splice_tail_init(&b->overflow, &b->rescan);
}

/* Take out every far task of a wheel, for a stop. */
static void delay_wheel_take_all(struct delay_base *b)
{
	unsigned int k, slot;

	lockdep_assert_held(&b->lock);
	for (k = 0; k < DELAY_LEVELS; k++) {
		while (b->occupied[k]) {
			slot = __ffs64(b->occupied[k]);
			list_splice_tail_init(&b->wheel[k][slot], &b->rescan);
			b->occupied[k] &= ~BIT_ULL(slot);
		}
	}
	list_splice_tail_init(&b->overflow, &b->rescan);
	list_splice_tail_init(&b->never, &b->rescan);
}

/*
 * Is a bucket of the wheel to be taken out by @now + DELAY_HORIZON? If
 * not, its clock moves on to there: no bucket is in between, so no task
 * changes place.
 */
static bool delay_wheel_due(struct delay_base *b, ktime_t now)
{
	u64 target = delay_unit(now + DELAY_HORIZON);

	lockdep_assert_held(&b->lock);
	if (!list_empty(&b->rescan) || delay_wheel_next(b) <= target)
		return true;
	b->clk = max(b->clk, target);
	return false;
}

/*
 * Bring a wheel's clock up to @now + DELAY_HORIZON (or take out every
 * task, for a RUN stop), placing at most *@budget tasks again: true when
 * done, and then every task of the wheel due by then is in the tree.
 */
static bool delay_migrate_base(struct ordsched_delay *d, struct delay_base *b,
			       ktime_t now, unsigned int *budget)
{
	struct ordsched_delay_task *task;

	lockdep_assert_held(&d->lock);
	lockdep_assert_held(&b->lock);
	delay_base_note(b, now);
	for (;;) {
		while ((task = list_first_entry_or_null(&b->rescan,
							struct ordsched_delay_task,
							entry))) {
			if (!*budget)
				return false;
			(*budget)--;
			list_del(&task->entry);
			b->far--;
			if (delay_unit(task->deadline) <= b->clk || d->run_now) {
				/* Both locks held: it changes hands at once. */
				WRITE_ONCE(task->base, DELAY_CENTRAL);
				delay_place_near(d, task);
			} else {
				/* Its stop is above the clock: no arming. */
				delay_place_far(b, task);
			}
		}
		if (d->run_now && b->far) {
			delay_wheel_take_all(b);
			continue;
		}
		if (!delay_wheel_due(b, now))
			return true;
		delay_wheel_advance(b, delay_wheel_next(b));
	}
}

/* Every wheel: true when done, see delay_migrate_base(). */
static bool delay_migrate(struct ordsched_delay *d, ktime_t now,
			  unsigned int *budget)
{
	struct delay_base *b;
	unsigned int w;
	bool done;

	lockdep_assert_held(&d->lock);
	for (w = 0; w < delay_nr_wheels; w++) {
		b = d->bases[w];
		raw_spin_lock(&b->lock);
		done = delay_migrate_base(d, b, now, budget);
		raw_spin_unlock(&b->lock);
		if (!done)
			return false;
	}
	return true;
}

/*
 * Is a wheel's stop due by @now + DELAY_HORIZON, as far as d->wheel_next
 * knows? While one is, the tree's earliest may not be everybody's.
 */
static bool delay_wheels_due(struct ordsched_delay *d, ktime_t now)
{
	lockdep_assert_held(&d->lock);
	return d->wheel_next <= delay_unit(now + DELAY_HORIZON);
}

/* Find every wheel's next stop again, after a dispatch moved them. */
static void delay_wheels_recount(struct ordsched_delay *d)
{
	struct delay_base *b;
	unsigned int w;
	u64 next = U64_MAX;

	lockdep_assert_held(&d->lock);
	for (w = 0; w < delay_nr_wheels; w++) {
		b = d->bases[w];
		raw_spin_lock(&b->lock);
		b->next = delay_wheel_next(b);
		next = min(next, b->next);
		raw_spin_unlock(&b->lock);
	}
	d->wheel_next = next;
}

/*
 * Arm the timer for the earliest of the tree's first deadline and the
 * wheels' next stop, by the earliest latest of both.
 */
static void delay_rearm(struct ordsched_delay *d)
{
	struct ordsched_delay_task *first = delay_first(d);
	ktime_t soon = KTIME_MAX, latest = KTIME_MAX, t;
	u64 pos = d->wheel_next;

	lockdep_assert_held(&d->lock);
	/*
	 * Not for one held back: a moved task's target kicks for it, and a
	 * CANCEL stop cancels it.
	 */
	if (first && !delay_held_back(d, first)) {
		soon = first->deadline;
		latest = delay_latest(d);
	}
	if (pos != U64_MAX) {
		t = delay_wheel_time(pos);
		soon = min(soon, t);
		latest = min(latest, t + DELAY_HORIZON / 2);
	}
	delay_arm(d, soon, latest);
}

/* Queue a due task on its target; from then on it may run and be freed. */
static void delay_hand_over(struct ordsched_delay *d,
			    struct ordsched_delay_task *task, ktime_t now)
{
	lockdep_assert_held(&d->lock);
	trace_ordsched_delay_dispatch(d->inst.id, task->seq, task->deadline,
				      ktime_sub(now, task->deadline));
	task->state = DELAY_HANDED;
	/* Set again what @rb or @entry took the place of. */
	if (task->target == DELAY_TARGET_IRQ) {
		/* The callback runs it; the caller makes the timer fire. */
		list_add_tail(&task->entry, &d->irq_due);
	} else if (task->target == DELAY_TARGET_STREAM) {
		ordsched_stream_item_init(&task->stream.item, delay_stream_fn);
		ordsched_stream_queue_untracked(task->stream.stream,
						&task->stream.item);
	} else {
		INIT_LIST_HEAD(&task->wq.work.entry);
		task->wq.work.func = delay_work_fn;
		queue_work(task->wq.wq, &task->wq.work);
	}
}

/*
 * Hand over up to @max tasks that are due at @now (all, if @all), earliest
 * first; they count in the current wake-up's batch.
 */
static unsigned int delay_hand_over_due(struct ordsched_delay *d, ktime_t now,
					unsigned int max, bool all)
{
	struct ordsched_delay_task *first;
	unsigned int n = 0;

	lockdep_assert_held(&d->lock);
	while (n < max && (first = delay_first(d)) &&
	       (all || first->deadline <= now) &&
	       !delay_held_back(d, first)) {
		rb_erase_cached(&first->rb, &d->tree);
		delay_hand_over(d, first, now);
		n++;
	}
	atomic_long_sub(n, &d->pending);
	d->stats.dispatched += n;
	d->batch += n;
	return n;
}

/* A wake-up has handed over all it will: count its batch. */
static void delay_end_batch(struct ordsched_delay *d)
{
	lockdep_assert_held(&d->lock);
	if (!d->batch)
		return;
	d->stats.batches++;
	d->stats.max_batch = max(d->stats.max_batch, d->batch);
	d->batch = 0;
}

static void delay_count_late(struct ordsched_delay *d, s64 late)
{
	lockdep_assert_held(&d->lock);
	if (late < 0)
		d->stats.run_early++;
	else
		d->stats.late[min_t(unsigned int, fls64(late),
				    ORDSCHED_DELAY_LATE_BUCKETS - 1)]++;
}

/*
 * @task is idle: the last the scheduler does with it. Idle, it may be
 * queued to another scheduler, under that one's locks, which do not
 * exclude ours: everything read from the task or done to it on its way
 * out (color, deadline, seq, debug objects) comes first.
 */
static __always_inline void delay_task_idle(struct ordsched_delay_task *task)
{
	debug_object_deactivate(task, &delay_task_debug_descr);
	/* Pairs with the acquire in ordsched_delay_queue_range(). */
	smp_store_release(&task->state, DELAY_IDLE);
}

/*
 * Run the due irq tasks, DELAY_IRQ_RUN at most, in the order they were
 * handed over, from the hrtimer callback that fired at @start: hard
 * interrupt, interrupts off, d->lock held and dropped around each
 * function; none queued after @start, and none before d->irq_next. If
 * some are left, arm the timer for them, no sooner than this round took:
 * see the top of the file. Each run is a busy record, as the
 * trampoline's, with no thread: an interrupt is nobody's cancel_sync.
 */
static void delay_irq_run(struct ordsched_delay *d, ktime_t start)
{
	struct ordsched_delay_task *task;
	struct delay_busy busy = {
		.tasks = &task,
		.n = 1,
	};
	ordsched_delay_fn fn;
	unsigned int n;
	ktime_t now;
	u64 youngest;
	u8 color;

	lockdep_assert_held(&d->lock);
	if (list_empty(&d->irq_due))
		return;
	if (start < d->irq_next) {
		d->stats.irq_deferred++;
		delay_arm_timer(d, d->irq_next, d->irq_next);
		return;
	}
	/* Queueings from now on, by this round's functions among others. */
	youngest = atomic64_read(&d->seq);
	d->irq_cpu = smp_processor_id();
	d->irq_start = start;
	for (n = 0; n < DELAY_IRQ_RUN; n++) {
		task = list_first_entry_or_null(&d->irq_due,
						struct ordsched_delay_task,
						entry);
		if (!task || task->seq > youngest)
			break;
		list_del(&task->entry);
		fn = task->fn;
		color = task->color;
		delay_count_late(d, ktime_sub(ktime_get(), task->deadline));
		delay_task_idle(task);
		list_add(&busy.node, &d->running);
		raw_spin_unlock(&d->lock);

		/* May free or requeue @task: do not touch it again. */
		fn(task);

		raw_spin_lock(&d->lock);
		list_del(&busy.node);
		delay_wake_sync(d);
		d->stats.ran++;
		d->stats.ran_irq++;
		delay_retire(d, color, 1, DELAY_CENTRAL);
	}
	d->irq_cpu = -1;
	now = ktime_get();
	d->irq_next = now + max_t(s64, now - start, DELAY_IRQ_GAP);
	if (list_empty(&d->irq_due))
		return;
	d->stats.irq_deferred++;
	delay_arm_timer(d, d->irq_next, d->irq_next);
}

static enum hrtimer_restart delay_expire(struct hrtimer *timer)
{
	struct ordsched_delay *d = container_of(timer, struct ordsched_delay,
						timer);
	struct ordsched_delay_task *first;
	ktime_t now = ktime_get();
	unsigned long flags;
	unsigned int n = 0;
	bool due, wheels;

	raw_spin_lock_irqsave(&d->lock, flags);
	if (!hrtimer_is_queued(timer))
		d->armed = KTIME_MAX;
	d->stats.expiries++;
	/* A wheel's task may be due before the tree's: the work sorts it. */
	wheels = delay_wheels_due(d, now);
	if (wheels && !d->dispatching) {
		/*
		 * Cancelled far tasks leave their stop behind (only the
		 * bucket's bit goes): look again before waking the work for
		 * an empty bucket, which would take a lone interrupt task
		 * through a worker. A few locks, once per stale stop.
		 */
		delay_wheels_recount(d);
		wheels = delay_wheels_due(d, now);
	}
	if (!d->dispatching && !wheels) {
		n = delay_hand_over_due(d, now, DELAY_DIRECT, false);
		d->stats.direct += n;
	}
	first = delay_first(d);
	/*
	 * Held back by a moved task: its target kicks the work for it. Held
	 * back by a CANCEL stop: the stop cancels it.
	 */
	due = first && first->deadline <= now && !delay_held_back(d, first);
	if (due || (!d->dispatching && wheels)) {
		delay_kick(d);		/* the batch goes on in the work */
	} else {
		if (n)
			delay_end_batch(d);
		/* The earliest was cancelled, or slack, or the wheel. */
		delay_rearm(d);
	}
	trace_ordsched_delay_expire(d->inst.id, now,
				    atomic_long_read(&d->pending), due);
	/* Also while the dispatch work owns the timer: it fired for them. */
	delay_irq_run(d, now);
	raw_spin_unlock_irqrestore(&d->lock, flags);
	return HRTIMER_NORESTART;
}

/*
 * Bring the wheel's buckets into the tree as they come within the
 * horizon, then hand over the due tasks: DELAY_CHUNK tasks moved or handed
 * over per call. The pass that does fewer is the last: it gives the timer
 * back, armed for what is left. True if there is more to do.
 */
static bool delay_dispatch_some(struct ordsched_delay *d)
{
	unsigned int budget = DELAY_CHUNK;
	bool more = true, irq_idle;
	ktime_t now;

	raw_spin_lock_irq(&d->lock);
	now = ktime_get();
	irq_idle = list_empty(&d->irq_due);
	if (delay_migrate(d, now, &budget))
		more = delay_hand_over_due(d, now, budget, d->run_now) == budget;
	/*
	 * Only the hrtimer callback runs irq tasks: have it fire now for
	 * the first; with some waiting already, it is armed for them.
	 */
	if (irq_idle && !list_empty(&d->irq_due)) {
		now = max(now, d->irq_next);
		delay_arm_timer(d, now, now);
	}
	if (!more) {
		d->dispatching = false;
		delay_end_batch(d);
		delay_wheels_recount(d);
		delay_rearm(d);
	}
	raw_spin_unlock_irq(&d->lock);
	return more;
}

static void delay_dispatch(struct work_struct *work)
{
	struct ordsched_delay *d = container_of(work, struct ordsched_delay,
						dispatch);

	while (delay_dispatch_some(d))
		cond_resched();
}

/* The most ever pending at once, now that @pending are. */
static __always_inline void
delay_note_peak(struct ordsched_delay *d, long pending)
{
	long peak = atomic_long_read(&d->peak);

	while (pending > peak &&
	       !atomic_long_try_cmpxchg(&d->peak, &peak, pending))
		;
}

/*
 * Put a task in the tree or a far wheel for @deadline and @slack, in the
 * place @seq gives it among the tasks of the same deadline: a queueing or
 * a move, under the lock *@base, which the task may change hands to (see
 * delay_switch()): a task the scheduler's lock guards goes to this CPU's
 * wheel if far, a wheel's task to the tree if near. Returns the stop the
 * caller must arm for with delay_unlock(), or U64_MAX.
 */
static __always_inline u64
__delay_insert(struct ordsched_delay *d, struct ordsched_delay_task *task,
	       u64 seq, ktime_t deadline, u32 slack, u16 *base)
{
	u64 unit = delay_unit(deadline), near = 0, pos;
	u16 to = *base;
	struct delay_base *b;
	ktime_t now;

	task->seq = seq;
	task->deadline = deadline;
	task->slack = slack;
	delay_note_peak(d, atomic_long_inc_return(&d->pending));
	if (to == DELAY_CENTRAL) {
		to = delay_here();
		delay_raw_lock(delay_lock_of(d, to));
	}
	b = delay_base(d, to);
	if (unit > b->clk) {
		/*
		 * Near is judged against now, not against a clock that lags
		 * while the wheel waits for a far stop; a tick more makes up
		 * for @now's error. An empty wheel may move its clock
		 * anywhere: bring it up to now as well, less a tick, so that
		 * it is never ahead.
		 */
		now = delay_base_now(b);
		near = delay_unit(now + DELAY_HORIZON + TICK_NSEC);
		if (delay_wheel_empty(b))
			b->clk = max(b->clk, delay_unit(now + DELAY_HORIZON -
							TICK_NSEC));
	}
	if (unit <= b->clk || unit <= near) {
		if (*base == DELAY_CENTRAL)
			delay_raw_unlock(&b->lock);
		else
			delay_switch(d, task, *base, DELAY_CENTRAL);
		*base = DELAY_CENTRAL;
		delay_place_near(d, task);
		return U64_MAX;
	}
	pos = delay_place_far(b, task);
	if (*base != DELAY_CENTRAL)
		return pos;
	/* Still under d->lock: arm now, then keep only the wheel's lock. */
	if (pos != U64_MAX)
		delay_wheel_lower(d, pos);
	WRITE_ONCE(task->base, to);
	delay_raw_unlock(&d->lock);
	*base = to;
	return U64_MAX;
}

/* __delay_insert() behind the tasks queued or moved so far. */
static __always_inline u64
delay_insert(struct ordsched_delay *d, struct ordsched_delay_task *task,
	     ktime_t deadline, u32 slack, u16 *base)
{
	return __delay_insert(d, task, atomic64_inc_return(&d->seq), deadline,
			      slack, base);
}

/*
 * Unlock the lock @base and restore the interrupts; then, if a far task
 * has made @pos the earliest stop of its wheel, arm the timer for it
 * under d->lock, which nests no wheel's lock the other way.
 */
static __always_inline void
delay_unlock(struct ordsched_delay *d, u16 base, u64 pos, unsigned long flags)
{
	delay_raw_unlock(delay_lock_of(d, base));
	if (pos != U64_MAX) {
		raw_spin_lock(&d->lock);
		delay_wheel_lower(d, pos);
		raw_spin_unlock(&d->lock);
	}
	local_irq_restore(flags);
}

/* @task will not run: it is the caller's again. */
static __always_inline void
delay_cancelled(struct ordsched_delay *d, struct ordsched_delay_task *task,
		bool handed, u16 base)
{
	u8 color = task->color;

	lockdep_assert_held(delay_lock_of(d, base));
	delay_counts(d, base)->cancels++;
	/* Only d->lock guards a handed task, and @stats. */
	if (handed)
		d->stats.cancels_handed++;
	trace_ordsched_delay_cancel(d->inst.id, task->seq, handed);
	delay_task_idle(task);
	delay_retire(d, color, 1, base);
}

/*
 * A moved task is back from its target, under d->lock, and is about to be
 * put in the tree again (or cancelled by a cancel_sync or a CANCEL stop):
 * what sorted before the place of the others may be handed over. Put back with
 * d->lock still held, so the dispatch kicked here finds it in the tree
 * (one held back is due, so it goes in the tree, not in a wheel); one
 * still held is noted again there.
 */
static void delay_moved_back(struct ordsched_delay *d,
			     struct ordsched_delay_task *task)
{
	unsigned int i;

	lockdep_assert_held(&d->lock);
	for (i = 0; i < DELAY_MOVED_KNOWN; i++)
		if (d->moved_task[i] == task)
			d->moved_task[i] = NULL;
	if (!--d->moved)
		d->moved_lost = false;
	else if (!d->moved_lost)
		delay_moved_place(d);
	if (!d->moved_held)
		return;
	d->moved_held = false;
	delay_kick(d);
}

/*
 * The target starts a task: run it, or, if a modify moved it meanwhile,
 * put it back in the tree (also during a RUN stop, which hands it over in
 * its place), unless a cancel_sync wants it cancelled or a CANCEL stop
 * wants it reported to @cancelled.
 */
static void delay_run(struct ordsched_delay_task *task)
{
	struct ordsched_delay *d = task->delay;
	ordsched_delay_fn fn = task->fn;
	struct delay_busy busy = {
		.thread = current,
		.tasks = &task,
		.n = 1,
	};
	u16 base = DELAY_CENTRAL;
	bool cancel = false;
	unsigned long flags;
	u8 color;

	/* A task handed over or moved is guarded by d->lock. */
	local_irq_save(flags);
	delay_raw_lock(&d->lock);
	if (task->state == DELAY_MOVED) {
		delay_moved_back(d, task);
		if (task->cancelling) {
			delay_cancelled(d, task, true, DELAY_CENTRAL);
			delay_wake_sync(d);
			delay_unlock(d, base, U64_MAX, flags);
			return;
		}
		if (!d->stop_cancels) {
			u64 next;

			/*
			 * In the place its move took: see delay_move(). A RUN
			 * stop hands it over from there, in order with the
			 * rest: kick its hand-over if already under way. The
			 * insert may move us to another lock (@base): its
			 * own statement, not an argument beside @base.
			 */
			if (d->run_now)
				delay_kick(d);
			next = __delay_insert(d, task, task->seq,
					      task->deadline, task->slack,
					      &base);
			delay_unlock(d, base, next, flags);
			return;
		}
		cancel = true;
	}
	color = task->color;
	if (cancel) {
		d->counts.cancels++;
		d->stats.cancels_handed++;
		trace_ordsched_delay_cancel(d->inst.id, task->seq, true);
		fn = d->cancelled;
	} else {
		delay_count_late(d, ktime_sub(ktime_get(), task->deadline));
	}
	delay_task_idle(task);
	list_add(&busy.node, &d->running);
	delay_unlock(d, base, U64_MAX, flags);

	/* May free or requeue @task: do not touch it again. */
	if (fn)
		fn(task);

	raw_spin_lock_irqsave(&d->lock, flags);
	list_del(&busy.node);
	delay_wake_sync(d);
	if (!cancel)
		d->stats.ran++;
	delay_retire(d, color, 1, DELAY_CENTRAL);
	raw_spin_unlock_irqrestore(&d->lock, flags);
}

static void delay_work_fn(struct work_struct *work)
{
	ordsched_fn_enter();
	delay_run(container_of(work, struct ordsched_delay_task, wq.work));
	ordsched_fn_leave();
}

static void delay_stream_fn(struct ordsched_stream_item *item)
{
	delay_run(container_of(item, struct ordsched_delay_task, stream.item));
}

static void delay_task_init_common(struct ordsched_delay_task *task,
				   ordsched_delay_fn fn, u8 target)
{
	debug_object_init(task, &delay_task_debug_descr);
	memset(task, 0, sizeof(*task));
	task->fn = fn;
	task->target = target;
}

void ordsched_delay_task_init(struct ordsched_delay_task *task,
			      ordsched_delay_fn fn,
			      struct workqueue_struct *wq)
{
	delay_task_init_common(task, fn, DELAY_TARGET_WQ);
	task->wq.wq = wq ?: ordsched_wq;
	INIT_WORK(&task->wq.work, delay_work_fn);
}
EXPORT_SYMBOL_GPL(ordsched_delay_task_init);

void ordsched_delay_task_init_irq(struct ordsched_delay_task *task,
				  ordsched_delay_fn fn)
{
	delay_task_init_common(task, fn, DELAY_TARGET_IRQ);
}
EXPORT_SYMBOL_GPL(ordsched_delay_task_init_irq);

void ordsched_delay_task_init_stream(struct ordsched_delay_task *task,
				     ordsched_delay_fn fn,
				     struct ordsched_stream *stream)
{
	/* Queued on it in hard interrupt, NULL would oops there. */
	if (WARN_ON_ONCE(!stream)) {
		ordsched_delay_task_init(task, fn, NULL);
		return;
	}
	delay_task_init_common(task, fn, DELAY_TARGET_STREAM);
	task->stream.stream = stream;
	ordsched_stream_item_init(&task->stream.item, delay_stream_fn);
}
EXPORT_SYMBOL_GPL(ordsched_delay_task_init_stream);

/*
 * Take a handed-over task back from its target, if it has not started.
 * Under d->lock, like every hand-over: cancel_work() briefly owns the
 * work's PENDING bit even when it fails, and a queue_work() that ran into
 * it would drop the task silently.
 */
static bool delay_target_cancel(struct ordsched_delay *d,
				struct ordsched_delay_task *task)
{
	lockdep_assert_held(&d->lock);
	if (task->target == DELAY_TARGET_IRQ) {
		/* Due irq tasks wait on d->irq_due until their run starts. */
		list_del(&task->entry);
		return true;
	}
	if (task->target == DELAY_TARGET_STREAM)
		return ordsched_stream_cancel(task->stream.stream,
					      &task->stream.item);
	return cancel_work(&task->wq.work);
}

/*
 * A queued task of @d, under the lock *@base: move it to @deadline and
 * @slack. Returns what delay_insert() does.
 */
static __always_inline u64
delay_move(struct ordsched_delay *d, struct ordsched_delay_task *task,
	   ktime_t deadline, u32 slack, u16 *base)
{
	delay_counts(d, *base)->modified++;
	switch (task->state) {
	case DELAY_PENDING:
	case DELAY_FAR:
		delay_unlink(d, task, *base);
		return delay_insert(d, task, deadline, slack, base);
	case DELAY_HANDED:
		if (delay_target_cancel(d, task))
			return delay_insert(d, task, deadline, slack, base);
		/* Started: the trampoline will put it back in the tree. */
		task->state = DELAY_MOVED;
		delay_moved_add(d, task);
		fallthrough;
	case DELAY_MOVED:
		/* Queued when moved: behind the tasks queued so far. */
		task->seq = atomic64_inc_return(&d->seq);
		task->deadline = deadline;
		task->slack = slack;
		/* Hand nothing over that sorts after it until it is back. */
		if (!d->moved_lost)
			delay_moved_place(d);
		else if (d->moved == 1 || deadline < d->moved_deadline)
			delay_moved_hold_at(d, task);
		break;
	}
	return U64_MAX;
}

bool ordsched_delay_queue_range(struct ordsched_delay *d,
				struct ordsched_delay_task *task, u64 when_ns,
				u64 slack_ns,
				enum ordsched_delay_queue_mode mode)
{
	ktime_t deadline = min_t(u64, when_ns, KTIME_MAX);
	u64 pos = U64_MAX;
	unsigned long flags;
	bool ret = false;
	u16 base, here;
	u32 slack;

	/* Queued, then answered false, the task would look free to free. */
	if (WARN_ON_ONCE(mode != ORDSCHED_DELAY_QUEUE_NEW &&
			 mode != ORDSCHED_DELAY_QUEUE_MOD))
		return false;
	base = delay_lock_task(d, task, &flags);
	if (slack_ns == ORDSCHED_DELAY_SLACK_DEFAULT)
		slack_ns = d->slack;
	slack = min_t(u64, slack_ns, U32_MAX);
	/* A stop waits for every queueing that did not see @stopped. */
	if (unlikely(READ_ONCE(d->stopped) || task->cancelling))
		goto unlock;
	/*
	 * Acquire: an idle task may have left another scheduler, whose
	 * locks we do not hold; see delay_task_idle().
	 */
	if (smp_load_acquire(&task->state) == DELAY_IDLE) {
		debug_object_activate(task, &delay_task_debug_descr);
		if (task->delay != d) {
			/* Under d->lock: the task joins d there. */
			task->base = DELAY_CENTRAL;
			/* @base first: see delay_task_base(). */
			smp_store_release(&task->delay, d);
		}
		/* An idle task last far in another wheel comes to this CPU's. */
		here = delay_here();
		if (base != DELAY_CENTRAL && base != here) {
			delay_switch(d, task, base, here);
			base = here;
		}
		task->color = READ_ONCE(d->color);
		delay_inflight(d, base)[task->color]++;
		delay_counts(d, base)->queued++;
		pos = delay_insert(d, task, deadline, slack, &base);
		ret = mode == ORDSCHED_DELAY_QUEUE_NEW;
	} else if (mode == ORDSCHED_DELAY_QUEUE_MOD && task->delay == d) {
		pos = delay_move(d, task, deadline, slack, &base);
		ret = true;
	}
unlock:
	delay_unlock(d, base, pos, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(ordsched_delay_queue_range);

/* Cancel a queued task of @d, under the lock @base, if not started. */
static __always_inline bool
delay_cancel_locked(struct ordsched_delay *d, struct ordsched_delay_task *task,
		    u16 base)
{
	lockdep_assert_held(delay_lock_of(d, base));
	if (task->state == DELAY_PENDING || task->state == DELAY_FAR) {
		delay_unlink(d, task, base);
		delay_cancelled(d, task, false, base);
		return true;
	}
	/* Only the target knows whether it has started the task. */
	if (task->state == DELAY_HANDED && delay_target_cancel(d, task)) {
		delay_cancelled(d, task, true, base);
		return true;
	}
	return false;
}

/*
 * Is @task handed over or moved, or in a busy record? *@self: in one of
 * the current thread's, which must not wait for itself. The records are
 * looked at whatever the state: a task whose function runs here may be
 * handed over again meanwhile (to another target, initialized anew), and
 * waiting for that run would wait for whoever waits for this thread.
 */
static bool delay_task_busy(struct ordsched_delay *d,
			    struct ordsched_delay_task *task, bool *self)
{
	bool found = task->state == DELAY_HANDED ||
		     task->state == DELAY_MOVED;
	struct delay_busy *busy;
	unsigned int i;

	lockdep_assert_held(&d->lock);
	list_for_each_entry(busy, &d->running, node) {
		for (i = 0; i < busy->n; i++) {
			if (busy->tasks[i] != task)
				continue;
			found = true;
			if (busy->thread == current) {
				*self = true;
				return true;
			}
		}
	}
	return found;
}

/* May a cancel_sync of @task on @d go: not @d's, or nobody's claim? */
static bool delay_sync_free(struct ordsched_delay *d,
			    struct ordsched_delay_task *task)
{
	unsigned long flags;
	bool free;
	u16 base;

	base = delay_lock_task(d, task, &flags);
	free = task->delay != d || !task->cancelling;
	delay_unlock(d, base, U64_MAX, flags);
	return free;
}

/* Is the current thread running @task's function (or @cancelled)? */
static bool delay_sync_self(struct ordsched_delay *d,
			    struct ordsched_delay_task *task)
{
	bool self = false;

	raw_spin_lock_irq(&d->lock);
	delay_task_busy(d, task, &self);
	raw_spin_unlock_irq(&d->lock);
	return self;
}

static bool delay_sync_idle(struct ordsched_delay *d,
			    struct ordsched_delay_task *task)
{
	bool busy, self = false;

	raw_spin_lock_irq(&d->lock);
	busy = delay_task_busy(d, task, &self);
	raw_spin_unlock_irq(&d->lock);
	return !busy || self;
}

static bool delay_cancel_sync(struct ordsched_delay *d,
			      struct ordsched_delay_task *task)
{
	bool removed, mine, self = false;
	unsigned long flags;
	u16 base;

	might_sleep();
	/*
	 * One cancel_sync of a task at a time: later ones wait their turn.
	 * The claim of @cancelling and the cancel in one hold of the task's
	 * lock: a moved task's trampoline, seeing the flag, cancels the task
	 * itself, and must not do it between the two (the task would be
	 * cancelled, and this call answer false).
	 */
	for (;;) {
		base = delay_lock_task(d, task, &flags);
		mine = task->delay == d;
		if (!mine || !task->cancelling)
			break;
		delay_unlock(d, base, U64_MAX, flags);
		/*
		 * From the task's own function, while the cancel_sync whose
		 * turn it is waits for that function: waiting for the turn
		 * would wait for ourselves (both threads hung). That one
		 * takes the task back; this one only warns.
		 */
		if (delay_sync_self(d, task)) {
			WARN_ONCE(1, "ordsched: cancel_sync of a delayed task from its own function\n");
			return false;
		}
		wait_event(d->idle, delay_sync_free(d, task));
	}
	if (!mine) {
		delay_unlock(d, base, U64_MAX, flags);
		return false;
	}
	task->cancelling = true;
	removed = delay_cancel_locked(d, task, base);
	/* Its trampoline cancels it now, seeing the flag: as good as done. */
	removed |= task->state == DELAY_MOVED;
	delay_unlock(d, base, U64_MAX, flags);
	/*
	 * With @cancelling set nothing can queue the task: it stays where
	 * it is, idle or handed over (d->lock), or idle in a wheel.
	 */
	raw_spin_lock_irq(&d->lock);
	while (delay_task_busy(d, task, &self) && !self) {
		d->sync_waiters++;
		raw_spin_unlock_irq(&d->lock);
		wait_event(d->idle, delay_sync_idle(d, task));
		raw_spin_lock_irq(&d->lock);
		d->sync_waiters--;
	}
	raw_spin_unlock_irq(&d->lock);
	base = delay_lock_task(d, task, &flags);
	task->cancelling = false;
	delay_unlock(d, base, U64_MAX, flags);
	/* The next cancel_sync of the task, if any, may go. */
	wake_up(&d->idle);
	WARN_ONCE(self, "ordsched: cancel_sync of a delayed task from its own function\n");
	return removed;
}

bool ordsched_delay_cancel_mode(struct ordsched_delay *d,
				struct ordsched_delay_task *task,
				enum ordsched_delay_cancel_mode mode)
{
	unsigned long flags;
	bool removed = false;
	u16 base;

	WARN_ONCE(mode != ORDSCHED_DELAY_CANCEL_NOWAIT &&
		  mode != ORDSCHED_DELAY_CANCEL_SYNC,
		  "ordsched: delay cancel mode %d is neither NOWAIT nor SYNC\n",
		  mode);
	if (mode == ORDSCHED_DELAY_CANCEL_SYNC)
		return delay_cancel_sync(d, task);
	base = delay_lock_task(d, task, &flags);
	if (task->delay == d)
		removed = delay_cancel_locked(d, task, base);
	delay_unlock(d, base, U64_MAX, flags);
	return removed;
}
EXPORT_SYMBOL_GPL(ordsched_delay_cancel_mode);

/*
 * For the debug objects fixup of a task freed while handed to a workqueue.
 * Freed memory's objects are fixed up newest first, so the workqueue's own
 * fixup may have cancelled the task's work before ours runs: the task is
 * then still HANDED but its work is neither pending nor running, and it
 * will never start. Count it cancelled, or every later flush of its
 * scheduler waits forever. work_busy() takes the pool's lock, after
 * d->lock as every hand-over does.
 */
static bool delay_orphan_cancel(struct ordsched_delay *d,
				struct ordsched_delay_task *task)
{
	unsigned long flags;
	bool orphan;

	raw_spin_lock_irqsave(&d->lock, flags);
	orphan = task->delay == d && task->base == DELAY_CENTRAL &&
		 task->state == DELAY_HANDED &&
		 task->target == DELAY_TARGET_WQ &&
		 !work_busy(&task->wq.work);
	if (orphan)
		delay_cancelled(d, task, true, DELAY_CENTRAL);
	raw_spin_unlock_irqrestore(&d->lock, flags);
	return orphan;
}

int ordsched_delay_flush(struct ordsched_delay *d)
{
	unsigned int next, others;
	int ret;

	if (mutex_lock_killable(&d->flush_mutex))
		return -EINTR;
	next = (d->color + 1) % DELAY_COLORS;
	others = DELAY_ALL_COLORS & ~BIT(next);
	/* Left there by killed flushes: those tasks came before us too. */
	ret = delay_wait_drained(d, BIT(next), true);
	if (!ret) {
		raw_spin_lock_irq(&d->lock);
		WRITE_ONCE(d->color, next);
		raw_spin_unlock_irq(&d->lock);
		ret = delay_wait_drained(d, others, true);
	}
	mutex_unlock(&d->flush_mutex);
	return ret ? -EINTR : 0;
}
EXPORT_SYMBOL_GPL(ordsched_delay_flush);

/* A far task of a wheel, for a stop; NULL if none. */
static struct ordsched_delay_task *delay_any_far(struct delay_base *b)
{
	lockdep_assert_held(&b->lock);
	if (list_empty(&b->rescan))
		delay_wheel_take_all(b);
	return list_first_entry_or_null(&b->rescan, struct ordsched_delay_task,
					entry);
}

/* Cancel a pending task for a CANCEL stop, under the lock @base. */
static void delay_stop_one(struct ordsched_delay *d,
			   struct ordsched_delay_task *task, u16 base,
			   unsigned int *per_color)
{
	delay_unlink(d, task, base);
	delay_counts(d, base)->cancels++;
	trace_ordsched_delay_cancel(d->inst.id, task->seq, false);
	/* Read now: the callback may free the task. */
	per_color[task->color]++;
	delay_task_idle(task);
}

/*
 * Cancel up to DELAY_CHUNK pending tasks, near ones first, reporting each
 * to @cancelled; false once none is left. The batch is a busy record
 * meanwhile, listed in the same hold of d->lock that took the far ones
 * out of their wheels.
 */
static bool delay_cancel_some(struct ordsched_delay *d)
{
	struct ordsched_delay_task *batch[DELAY_CHUNK], *task;
	struct delay_busy busy = {
		.thread = current,
		.tasks = batch,
	};
	unsigned int i, n = 0, per_color[DELAY_COLORS] = {};
	struct delay_base *b;
	unsigned int w;
	int c;

	raw_spin_lock_irq(&d->lock);
	while (n < DELAY_CHUNK && (task = delay_first(d))) {
		delay_stop_one(d, task, DELAY_CENTRAL, per_color);
		batch[n++] = task;
	}
	for (w = 0; w < delay_nr_wheels; w++) {
		b = d->bases[w];
		if (n == DELAY_CHUNK)
			break;
		raw_spin_lock(&b->lock);
		while (n < DELAY_CHUNK && (task = delay_any_far(b))) {
			delay_stop_one(d, task, 1 + w, per_color);
			batch[n++] = task;
		}
		raw_spin_unlock(&b->lock);
	}
	busy.n = n;
	list_add(&busy.node, &d->running);
	raw_spin_unlock_irq(&d->lock);

	if (d->cancelled)
		for (i = 0; i < n; i++)
			d->cancelled(batch[i]);

	/* Retired after the callbacks, so that a flush also waits for them. */
	raw_spin_lock_irq(&d->lock);
	list_del(&busy.node);
	delay_wake_sync(d);
	for (c = 0; c < DELAY_COLORS; c++)
		if (per_color[c])
			delay_retire(d, c, per_color[c], DELAY_CENTRAL);
	raw_spin_unlock_irq(&d->lock);
	return n > 0;
}

void ordsched_delay_stop(struct ordsched_delay *d,
			 enum ordsched_delay_stop_mode mode)
{
	/* Neither run nor cancelled, a task far off would be waited for. */
	if (WARN_ON_ONCE(mode != ORDSCHED_DELAY_RUN_PENDING &&
			 mode != ORDSCHED_DELAY_CANCEL_PENDING))
		mode = ORDSCHED_DELAY_CANCEL_PENDING;
	raw_spin_lock_irq(&d->lock);
	if (!d->stopped)
		d->stop_cancels = mode == ORDSCHED_DELAY_CANCEL_PENDING;
	WRITE_ONCE(d->stopped, true);
	raw_spin_unlock_irq(&d->lock);
	/*
	 * A queueing or move that read @stopped false may still be putting
	 * its task in a wheel: it runs with interrupts off from its check to
	 * its last unlock, so a grace period waits for it.
	 */
	synchronize_rcu();
	if (mode == ORDSCHED_DELAY_RUN_PENDING) {
		raw_spin_lock_irq(&d->lock);
		d->run_now = true;
		delay_kick(d);
		raw_spin_unlock_irq(&d->lock);
	}

	if (mode == ORDSCHED_DELAY_CANCEL_PENDING)
		while (delay_cancel_some(d))
			cond_resched();
	/*
	 * In RUN mode this waits for the targets to run every pending task:
	 * seconds for 100,000 under a debug kernel. Idle, not hung.
	 */
	delay_wait_drained(d, DELAY_ALL_COLORS, false);
	/* The last retirement has queued d->wake by then. */
	delay_barrier(d);

	/* Nothing can be pending now, so nothing can arm or kick again. */
	hrtimer_cancel(&d->timer);
	flush_work(&d->dispatch);
	flush_work(&d->wake);
	raw_spin_lock_irq(&d->lock);
	d->armed = KTIME_MAX;
	raw_spin_unlock_irq(&d->lock);
}
EXPORT_SYMBOL_GPL(ordsched_delay_stop);

void ordsched_delay_get_stats(struct ordsched_delay *d,
			      struct ordsched_delay_stats *stats)
{
	struct delay_base *b;
	unsigned int w;
	unsigned long flags;
	long inflight = 0;
	int c;

	/*
	 * Every counter changes under d->lock or a wheel's lock (far
	 * queueings and cancels take only their wheel's; @pending and
	 * @peak, atomic, also change under one of them): with all of them
	 * held at once, the stats are one snapshot. No other path holds
	 * two wheel locks, so taking them all in any order under d->lock
	 * cannot deadlock.
	 */
	raw_spin_lock_irqsave(&d->lock, flags);
	for (w = 0; w < delay_nr_wheels; w++) {
		b = d->bases[w];
		raw_spin_lock_nest_lock(&b->lock, &d->lock);
		__release(&b->lock);
	}
	*stats = d->stats;
	stats->queued = d->counts.queued;
	stats->modified = d->counts.modified;
	stats->cancels = d->counts.cancels;
	stats->armed = d->armed;
	for (c = 0; c < DELAY_COLORS; c++)
		inflight += d->inflight[c];
	for (w = 0; w < delay_nr_wheels; w++) {
		b = d->bases[w];
		stats->queued += b->counts.queued;
		stats->modified += b->counts.modified;
		stats->cancels += b->counts.cancels;
		for (c = 0; c < DELAY_COLORS; c++)
			inflight += b->inflight[c];
	}
	stats->pending = max(atomic_long_read(&d->pending), 0L);
	stats->peak_pending = atomic_long_read(&d->peak);
	stats->inflight = max(inflight, 0L);
	for (w = 0; w < delay_nr_wheels; w++) {
		b = d->bases[w];
		__acquire(&b->lock);
		raw_spin_unlock(&b->lock);
	}
	raw_spin_unlock_irqrestore(&d->lock, flags);
}
EXPORT_SYMBOL_GPL(ordsched_delay_get_stats);

/* The debugfs "stats" file: a snapshot taken under the lock. */
static void delay_show(struct seq_file *m, struct ordsched_instance *inst)
{
	struct ordsched_delay *d = container_of(inst, struct ordsched_delay,
						inst);
	struct ordsched_delay_stats *s;
	int i;

	/* Too big for the stack of a debugfs read. */
	s = kmalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return;
	ordsched_delay_get_stats(d, s);
	seq_printf(m, "queued: %llu\npending: %llu\npeak_pending: %llu\n",
		   s->queued, s->pending, s->peak_pending);
	seq_printf(m, "inflight: %llu\nexpiries: %llu\nrearms: %llu\n",
		   s->inflight, s->expiries, s->rearms);
	seq_printf(m, "batches: %llu\ndispatched: %llu (%llu direct)\n",
		   s->batches, s->dispatched, s->direct);
	seq_printf(m, "tasks_per_batch: %llu avg, %llu max\n",
		   s->batches ? div64_u64(s->dispatched, s->batches) : 0,
		   s->max_batch);
	seq_printf(m, "armed: %lld\nmodified: %llu\n", (s64)s->armed,
		   s->modified);
	seq_printf(m, "cancels: %llu (%llu after hand-over)\n", s->cancels,
		   s->cancels_handed);
	seq_printf(m, "ran: %llu (%llu in irq, %llu irq rounds deferred)\n",
		   s->ran, s->ran_irq, s->irq_deferred);
	seq_printf(m, "run_early: %llu\n", s->run_early);
	seq_puts(m, "lateness_ns:\n");
	for (i = 0; i < ORDSCHED_DELAY_LATE_BUCKETS; i++) {
		if (!s->late[i])
			continue;
		if (i == ORDSCHED_DELAY_LATE_BUCKETS - 1)
			seq_printf(m, "  >= %llu: %llu\n", BIT_ULL(i - 1),
				   s->late[i]);
		else
			seq_printf(m, "  < %llu: %llu\n", BIT_ULL(i),
				   s->late[i]);
	}
	kfree(s);
}

int __init ordsched_delay_init(void)
{
	unsigned int cpu;

	delay_nr_wheels = min(nr_cpu_ids, delay_max_wheels);
	for_each_possible_cpu(cpu)
		per_cpu(delay_wheel_of, cpu) = cpu % delay_nr_wheels;
	delay_wheel_cache = kmem_cache_create("ordsched_delay_wheel",
					      sizeof(struct delay_base), 0,
					      SLAB_HWCACHE_ALIGN, NULL);
	return delay_wheel_cache ? 0 : -ENOMEM;
}

void ordsched_delay_exit(void)
{
	kmem_cache_destroy(delay_wheel_cache);
}

static void delay_free(struct ordsched_delay *d)
{
	unsigned int w;

	for (w = 0; w < delay_nr_wheels; w++)
		if (d->bases[w])
			kmem_cache_free(delay_wheel_cache, d->bases[w]);
	kfree(d);
}

struct ordsched_delay *
ordsched_delay_create(const struct ordsched_delay_params *params)
{
	static const struct ordsched_delay_params defaults;
	struct ordsched_delay *d;
	ktime_t now = ktime_get();
	unsigned int i, slot, w;
	struct delay_base *b;
	int node;

	if (!params)
		params = &defaults;
	d = kzalloc(struct_size(d, bases, delay_nr_wheels), GFP_KERNEL);
	if (!d)
		return ERR_PTR(-ENOMEM);
	raw_spin_lock_init(&d->lock);
	d->tree = RB_ROOT_CACHED;
	for (w = 0; w < delay_nr_wheels; w++) {
		/* CPU w is the wheel's first; a CPU id may not be possible. */
		node = cpu_possible(w) ? cpu_to_node(w) : NUMA_NO_NODE;
		b = kmem_cache_alloc_node(delay_wheel_cache,
					  GFP_KERNEL | __GFP_ZERO, node);
		if (!b) {
			delay_free(d);
			return ERR_PTR(-ENOMEM);
		}
		d->bases[w] = b;
		raw_spin_lock_init(&b->lock);
		for (i = 0; i < DELAY_LEVELS; i++)
			for (slot = 0; slot < DELAY_SLOTS; slot++)
				INIT_LIST_HEAD(&b->wheel[i][slot]);
		INIT_LIST_HEAD(&b->overflow);
		INIT_LIST_HEAD(&b->never);
		INIT_LIST_HEAD(&b->rescan);
		b->clk = delay_unit(now + DELAY_HORIZON);
		delay_base_note(b, now);
		b->next = U64_MAX;
	}
	d->wheel_next = U64_MAX;
	/* Hard: irq tasks run in its callback, also on PREEMPT_RT. */
	ordsched_hrtimer_setup(&d->timer, delay_expire, CLOCK_MONOTONIC,
			       HRTIMER_MODE_ABS_HARD);
	d->armed = KTIME_MAX;
	d->slack = params->slack_ns;
	INIT_LIST_HEAD(&d->irq_due);
	d->irq_cpu = -1;
	INIT_WORK(&d->dispatch, delay_dispatch);
	INIT_WORK(&d->wake, delay_wake);
	init_waitqueue_head(&d->idle);
	mutex_init(&d->flush_mutex);
	INIT_LIST_HEAD(&d->running);
	d->cancelled = params->cancelled;
	if (ordsched_instance_init(&d->inst, ORDSCHED_KIND_DELAY, params->name,
				   NULL, delay_show)) {
		mutex_destroy(&d->flush_mutex);
		delay_free(d);
		return ERR_PTR(-ENOMEM);
	}
	return d;
}
EXPORT_SYMBOL_GPL(ordsched_delay_create);

void ordsched_delay_destroy(struct ordsched_delay *d)
{
	if (IS_ERR_OR_NULL(d))
		return;
	ordsched_delay_stop(d, ORDSCHED_DELAY_CANCEL_PENDING);
	ordsched_instance_exit(&d->inst);
	mutex_destroy(&d->flush_mutex);
	delay_free(d);
}
EXPORT_SYMBOL_GPL(ordsched_delay_destroy);
