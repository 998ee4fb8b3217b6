// SPDX-License-Identifier: GPL-2.0
/*
 * ring_check: an exhaustive interleaving checker of the shared ring's
 * protocol, module/ring_proto.h, run on the host (no kernel needed).
 *
 * It compiles the protocol header itself, with ORDSCHED_RING_LOAD, _CAS,
 * _WAKE and _SLEEP routed to a scheduler: every shared access is one step,
 * and every order of the steps of all actors is explored. An actor is a
 * participant running a small script (take, wait, commit, complete, trash)
 * or the kernel releasing a dead participant's handle. The kernel's sleep
 * is modelled as ring.c does it: queue (prepare_to_wait), wait_check,
 * sleep until woken, again. Any participant may die before any step
 * (also while asleep), after which its release runs, interleaved with the
 * others; a sleeper may time out. A scribbler may write adversarial values
 * into the page between any two steps.
 *
 * The state is explicit: the page, the kernel's wait queue, each actor's
 * script position, and the results of the accesses its current operation
 * has made so far. An operation is deterministic given those results, so a
 * step re-runs it from the start, answering the recorded accesses from the
 * record, performs one new access and stops (longjmp) before the next one.
 * States are hashed (64 bits) and each is expanded once.
 *
 * A take that finds the window full (EAGAIN) blocks until the page
 * changes, as a library waiting for room would: a take blocked for good is
 * a stall. The scripts never fill the window for good.
 *
 * Checked, in every state reached:
 *  - a commit happens at the committer's turn (tail == its ticket), in
 *    strictly increasing ticket order, each ticket once;
 *  - tail <= head <= tail + R, and every slot holds a word of the ticket
 *    (or lap) the invariants of ring_proto.h allow;
 *  - every page access is inside the page (head, tail, slot[0..R-1]);
 *  - an operation finishes within a bound of accesses (kernel ones always);
 *  - when a release has finished, no slot is owned by the dead handle;
 *  - a participant wakes a ticket only if its operation moved the tail;
 * and in every final state (nothing can move):
 *  - every participant is done or dead and every release finished: no
 *    sleeper whose turn came is left asleep, no stall;
 *  - every wait of a surviving participant ended in a commit;
 *  - tail == head, and every slot is free (or retired and passed).
 * Scribble runs check only what the trust model promises: accesses in
 * bounds and kernel operations bounded; kernel.scribbled also runs the
 * kernel's operations on 200000 random and near-valid pages and bounds
 * their accesses by 2R + 6 budget + 3.
 *
 * Deaths at every step are explored with one or two participants (three
 * actors with the release); three participants run without deaths, their
 * state space with a death exceeds the table (25M states). Every
 * participant is a handle of its own, but in one-handle-tail: two threads
 * of one handle, one completing whatever ticket is at the tail, which
 * may be a claim its taker has not handed out yet (race (d) and the head
 * check of ordsched_ring_complete()); their commits are not logged, as a
 * ticket may be retired under its committer there.
 *
 * Usage: ring_check [-c CONFIG] [-m MUTANT] [-l]. Prints TAP; exits 1 on
 * a failure, 2 on a checker error (state table full). With -m the checker
 * runs a deliberately broken variant and must fail (ring_check.sh checks
 * that each does); -l lists the variants.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/ordsched_ring.h>

static __u64 chk_load(const __u64 *p);
static bool chk_cas(__u64 *p, __u64 old, __u64 new);
static void chk_wake(void *ctx, __u64 t);
static int chk_sleep(void *ctx, __u64 t);

#define ORDSCHED_RING_LOAD(p)		chk_load(p)
#define ORDSCHED_RING_CAS(p, o, n)	chk_cas((p), (o), (n))
#define ORDSCHED_RING_WAKE(ctx, t)	chk_wake((ctx), (t))
#define ORDSCHED_RING_SLEEP(ctx, t)	chk_sleep((ctx), (t))
#define ORDSCHED_RING_RELAX()		do { } while (0)
#include "../../module/ring_proto.h"

/* The layout is ABI: the same on every architecture, no implicit padding. */
_Static_assert(sizeof(struct ordsched_ring_hdr) == 32, "ring hdr size");
_Static_assert(sizeof(struct ordsched_ring_setup) == 48, "ring setup size");
_Static_assert(sizeof(struct ordsched_ring_wait) == 24, "ring wait size");
_Static_assert(sizeof(struct ordsched_ring_wake) == 16, "ring wake size");

#define MAXR	4
#define MAXP	3		/* participants */
#define MAXA	(2 * MAXP + 1)	/* + their releases + a scribbler */
#define MAXREC	40		/* accesses of one operation */
#define MAXOPS	12
#define MAXLOG	8

/* Broken variants, each must make some configuration fail. */
enum mutant {
	M_NONE,
	M_NO_FLAG,	/* the SLEEPING flag is never stored */
	M_NO_RECHECK,	/* the kernel sleeps without checking the tail */
	M_DROP_BUDGET,	/* release gives up when its budget runs out */
	M_NO_ADVANCE,	/* complete retires but does not move the tail */
	M_UNMASKED,	/* the kernel's view spans more slots than exist */
	M_NO_HELP,	/* advance does not help the head past a retired slot */
	M_NO_LATE_FREE,	/* take never frees a slot the tail passed */
	M_LAZY_RELEASE,	/* release wakes only if it moved the tail itself */
	M_NO_TRASH,	/* release does not trash the dead handle's slots */
	M_EAGER_WAKE,	/* complete wakes the tail's sleeper, moved or not */
	M_HEAD_FIRST,	/* take moves the head, then claims the slot */
	M_FREE_FIRST,	/* at the turn, the slot is freed before the tail moves */
	M_TURN_NO_ADVANCE, /* at the turn, the tail moves by one and no more */
	M_TURN_NO_HEAD,	/* the turn's tail move does not look at the head */
	M_COUNT,
};

static const char *const mutant_names[] = {
	"none", "no-flag", "no-recheck", "drop-budget", "no-advance",
	"unmasked", "no-help", "no-late-free", "lazy-release", "no-trash",
	"eager-wake", "head-first", "free-first", "turn-no-advance",
	"turn-no-head",
};

enum op {
	OP_END,
	OP_TAKE,	/* take into tk[arg] */
	OP_WAIT,	/* wait for tk[arg], then commit it */
	OP_COMPLETE,	/* complete tk[arg] */
	OP_TRASH,	/* trash tk[arg] (before its turn: early) */
	OP_TAIL,	/* complete whatever ticket the tail is at */
};

enum status { ST_IDLE, ST_RUN, ST_DONE, ST_DEAD, ST_STUCK };
enum kind { K_PART, K_RELEASE, K_SCRIBBLE };

struct script {
	unsigned char op[MAXOPS];
	unsigned char arg[MAXOPS];
};

struct config {
	const char *name;
	unsigned int slots;
	unsigned int parts;
	__u64 start;			/* first ticket */
	/*
	 * Per participant, words of an op letter and a tk[] index:
	 * t take, w wait and commit, c complete, x trash, T complete the
	 * ticket at the tail (the index unused).
	 */
	const char *prog[MAXP];
	struct script script[MAXP];	/* parsed from prog */
	unsigned int can_die;		/* bit per participant */
	unsigned int max_deaths;
	unsigned int max_timeouts;	/* per participant */
	unsigned int scribbles;		/* writes by the scribbler */
	unsigned int release_budget;
	/*
	 * All participants are threads of one handle (id 1), without
	 * deaths: a ticket may be retired by another thread, and a wait
	 * or a complete of it answer EALREADY; commits are not logged.
	 */
	bool one_handle;
};

/* One actor's part of the state; all bytes are hashed, keep it zeroed. */
struct actor {
	unsigned char status;
	unsigned char pc;
	unsigned char nrec;
	unsigned char at_sleep;		/* stopped before a sleep access */
	unsigned char queued;		/* on the kernel's wait queue */
	unsigned char woken;
	unsigned char timeouts;
	unsigned char taken;		/* bit per tk[] that was taken */
	unsigned char blocked;		/* take found the window full */
	unsigned char pad[5];
	unsigned short committed;	/* bit per script op that committed */
	__u64 page[2 + MAXR];		/* head, tail, slots when blocked */
	__u64 qticket;
	__u64 tk[4];
	__u64 rec[MAXREC];
};

struct world {
	__u64 head;
	__u64 pad0[7];
	__u64 tail;
	__u64 pad1[7];
	__u64 slots[MAXR];
	struct actor a[MAXA];
	__u64 log[MAXLOG];
	unsigned char nlog;
	unsigned char deaths;
	unsigned char pad2[6];
};

static const struct config *cfg;
static enum mutant mutant;
static unsigned int nactors;

/* The step being run. */
static struct world *W;
static int cur;			/* actor index */
static unsigned int acc;	/* accesses answered so far in this run */
static bool live_done;		/* the one new access was made */
static int choice;		/* for the sleep access: 0 woken, 1 timeout */
static bool op_moved_tail;	/* a tail CAS of this operation succeeded */
static jmp_buf stop;
static const char *failure;
static char failbuf[256];

static struct ordsched_ring_view uview, kview;

enum { STOP_PAUSE = 1, STOP_FAIL };

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(failbuf, sizeof(failbuf), fmt, ap);
	va_end(ap);
	failure = failbuf;
	longjmp(stop, STOP_FAIL);
}

static struct actor *A(void)
{
	return &W->a[cur];
}

static enum kind actor_kind(int i)
{
	if (i < (int)cfg->parts)
		return K_PART;
	if (i < 2 * (int)cfg->parts)
		return K_RELEASE;
	return K_SCRIBBLE;
}

/* Inside the page? The scribbler may not be the only one out of bounds. */
static void check_bounds(const __u64 *p)
{
	if (p == &W->head || p == &W->tail)
		return;
	if (p >= W->slots && p < W->slots + cfg->slots)
		return;
	fail("actor %d accessed the page out of bounds (offset %td)", cur,
	     (const char *)p - (const char *)W);
}

/*
 * The gate of every access: answer it from the record, or make it the one
 * new access of this step, or stop before it.
 */
static bool direct;		/* kernel fuzz: plain accesses, counted */
static unsigned long direct_accesses;

static bool replaying(bool is_sleep)
{
	struct actor *a = A();

	if (direct) {
		direct_accesses++;
		return false;
	}

	if (acc < a->nrec)
		return true;
	if (live_done) {
		a->at_sleep = is_sleep;
		longjmp(stop, STOP_PAUSE);
	}
	if (a->nrec == MAXREC) {
		if (actor_kind(cur) == K_RELEASE || !cfg->scribbles)
			fail("actor %d: an operation did not finish in %d accesses",
			     cur, MAXREC);
		a->status = ST_STUCK;
		longjmp(stop, STOP_PAUSE);
	}
	return false;
}

static __u64 record(__u64 v)
{
	struct actor *a = A();

	if (direct)
		return v;
	if (acc < a->nrec)
		return a->rec[acc++];
	a->rec[a->nrec++] = v;
	acc++;
	live_done = true;
	return v;
}

static __u64 chk_load(const __u64 *p)
{
	if (replaying(false))
		return record(0);
	check_bounds(p);
	return record(*p);
}

static bool is_slot(const __u64 *p)
{
	return p >= W->slots && p < W->slots + MAXR;
}

/* Does mutant @m refuse this CAS (leave the word, answer failure)? */
static bool refused(const __u64 *p, __u64 old, __u64 new)
{
	enum kind k = actor_kind(cur);
	unsigned int op = k == K_PART ? cfg->script[cur].op[A()->pc] : 0;

	switch (mutant) {
	case M_NO_HELP:
		/* Only help_head() CASes the head in complete and release. */
		return p == &W->head &&
		       (k == K_RELEASE || op == OP_COMPLETE || op == OP_TRASH ||
			op == OP_TAIL);
	case M_NO_LATE_FREE:
		return is_slot(p) && k == K_PART && op == OP_TAKE &&
		       ordsched_ring_diff(new, old) > 0 &&
		       ordsched_ring_state(old) != ORDSCHED_RING_FREE;
	case M_NO_TRASH:
		return is_slot(p) && k == K_RELEASE && ordsched_ring_owned(old) &&
		       ordsched_ring_state(new) == ORDSCHED_RING_RETIRED;
	default:
		return false;
	}
}

static bool chk_cas(__u64 *p, __u64 old, __u64 new)
{
	bool ok;

	if (replaying(false)) {
		ok = record(0);
		op_moved_tail |= ok && p == &W->tail;
		return ok;
	}
	check_bounds(p);
	ok = *p == old && !refused(p, old, new);
	if (ok && !(mutant == M_NO_FLAG && is_slot(p) &&
		    ordsched_ring_state(new) == ORDSCHED_RING_SLEEPING))
		*p = new;
	op_moved_tail |= ok && p == &W->tail;
	return record(ok);
}

/* ORDSCHED_IOC_RING_WAKE: wake the waiters of t, nobody else. */
static void chk_wake(void *ctx, __u64 t)
{
	unsigned int i;

	(void)ctx;
	if (replaying(false)) {
		record(0);
		return;
	}
	if (mutant == M_LAZY_RELEASE && actor_kind(cur) == K_RELEASE &&
	    !op_moved_tail) {
		record(0);
		return;
	}
	/*
	 * A participant wakes only the sleeper it moved the tail onto (a
	 * thread is never woken by its own handle's retire here: one thread
	 * per handle).
	 */
	if (actor_kind(cur) == K_PART && !op_moved_tail && !cfg->scribbles)
		fail("actor %d woke ticket %" PRIu64
		     " without moving the tail: a wake-up for nothing", cur,
		     (uint64_t)t);
	for (i = 0; i < cfg->parts; i++)
		if (W->a[i].queued && W->a[i].qticket == t)
			W->a[i].woken = 1;
	record(0);
}

/* prepare_to_wait(): queue, and forget earlier wake-ups. */
static void kq_arm(__u64 t)
{
	struct actor *a = A();

	if (replaying(false)) {
		record(0);
		return;
	}
	a->queued = 1;
	a->woken = 0;
	a->qticket = t;
	record(0);
}

static void kq_disarm(void)
{
	if (replaying(false)) {
		record(0);
		return;
	}
	A()->queued = 0;
	A()->woken = 0;
	record(0);
}

/* schedule(): runs only once woken, or as a timeout; 1 if timed out. */
static int kq_sleep(void)
{
	struct actor *a = A();

	if (replaying(true))
		return record(0);
	a->at_sleep = 0;
	if (choice == 1) {
		a->timeouts++;
		return record(1);
	}
	if (!a->woken)
		fail("actor %d ran a sleep without a wake-up", cur);
	return record(0);
}

/* The kernel's ORDSCHED_IOC_RING_WAIT, as ring.c does it. */
static int chk_sleep(void *ctx, __u64 t)
{
	__u32 id = cur + 1;
	int ret;
	bool first = true;

	(void)ctx;
	for (;;) {
		kq_arm(t);
		if (mutant == M_NO_RECHECK && first)
			ret = -EAGAIN;
		else
			ret = ordsched_ring_wait_check(&kview, id, t);
		first = false;
		if (ret != -EAGAIN)
			break;
		if (kq_sleep()) {
			ret = -ETIMEDOUT;
			break;
		}
	}
	kq_disarm();
	return ret;
}

static void commit(__u64 t)
{
	unsigned int i;

	if (W->tail != t)
		fail("actor %d committed ticket %" PRIu64 " at tail %" PRIu64,
		     cur, (uint64_t)t, (uint64_t)W->tail);
	for (i = 0; i < W->nlog; i++)
		if (W->log[i] == t)
			fail("ticket %" PRIu64 " committed twice", (uint64_t)t);
	if (W->nlog && (__s64)(t - W->log[W->nlog - 1]) <= 0)
		fail("ticket %" PRIu64 " committed after %" PRIu64,
		     (uint64_t)t, (uint64_t)W->log[W->nlog - 1]);
	if (W->nlog == MAXLOG)
		fail("commit log full");
	W->log[W->nlog++] = t;
}

/* No slot owned by handle @id survives its release. */
static void check_released(__u32 id)
{
	unsigned int i;

	for (i = 0; i < cfg->slots; i++)
		if (ordsched_ring_owned(W->slots[i]) &&
		    ordsched_ring_owner(W->slots[i]) == id)
			fail("slot %u still owned by released handle %u", i, id);
}

static void next_op(void)
{
	struct actor *a = A();

	a->pc++;
	a->nrec = 0;
	memset(a->rec, 0, sizeof(a->rec));
}

/*
 * The head-first mutant's take: the ticket exists before its owner is
 * recorded, so a taker dying in between leaves a FREE slot the tail
 * waits on forever.
 */
static int take_head_first(__u32 id, __u64 *ticket)
{
	__u64 h, w, *slot;

	for (;;) {
		h = chk_load(uview.head);
		slot = ordsched_ring_slot(&uview, h);
		w = chk_load(slot);
		if (w != ordsched_ring_word(h, 0, ORDSCHED_RING_FREE))
			return -EAGAIN;
		if (!chk_cas(uview.head, h, h + 1))
			continue;
		chk_cas(slot, w, ordsched_ring_word(h, id, ORDSCHED_RING_OWNED));
		*ticket = h;
		return 0;
	}
}

/*
 * The turn's mutants of ordsched_ring_complete(): free-first frees the
 * slot for the next lap while the tail still waits on it (a taker may
 * claim it, the ticket's word is gone); turn-no-advance moves the tail
 * off the completed ticket and neither wakes the next one's sleeper nor
 * passes the retired tickets behind it.
 */
static int complete_turn_mutant(__u32 id, __u64 t)
{
	__u64 *slot = ordsched_ring_slot(&uview, t);
	__u64 w = chk_load(slot);
	int ret = ordsched_ring_check(w, t, id);

	if (ret)
		return ret;
	if (chk_load(uview.tail) == t) {
		if (mutant == M_FREE_FIRST) {
			chk_cas(slot, w, ordsched_ring_word(t + cfg->slots, 0,
							    ORDSCHED_RING_FREE));
			chk_cas(uview.tail, t, t + 1);
			ordsched_ring_advance(&uview, ~0U, true, NULL);
			return 0;
		}
		if (chk_cas(uview.tail, t, t + 1))
			return ordsched_ring_free_turn(&uview, id, t, w, NULL);
	}
	ret = ordsched_ring_retire(&uview, id, t, NULL);
	if (!ret)
		ordsched_ring_advance(&uview, ~0U, false, NULL);
	return ret;
}

/*
 * The turn-no-head mutant's complete: the fast path of an earlier
 * ordsched_ring_complete(), which moved the tail off a claimed ticket
 * whose head CAS had not come yet (another thread of the handle
 * completing the tail): the tail passes the head.
 */
static int complete_no_head(__u32 id, __u64 t)
{
	__u64 w = chk_load(ordsched_ring_slot(&uview, t));

	if (ordsched_ring_mine(w, t, id) && chk_load(uview.tail) == t &&
	    chk_cas(uview.tail, t, t + 1))
		return ordsched_ring_turn_passed(&uview, id, t, w, NULL);
	return ordsched_ring_complete_early(&uview, id, t, w, NULL);
}

/* Complete @t of handle @id, as the mutant in force does. */
static int complete(__u32 id, __u64 t)
{
	int ret;

	switch (mutant) {
	case M_NO_ADVANCE:
		return ordsched_ring_retire(&uview, id, t, NULL);
	case M_EAGER_WAKE:
		ret = ordsched_ring_retire(&uview, id, t, NULL);
		if (!ret)
			ordsched_ring_advance(&uview, ~0U, true, NULL);
		return ret;
	case M_FREE_FIRST:
	case M_TURN_NO_ADVANCE:
		return complete_turn_mutant(id, t);
	case M_TURN_NO_HEAD:
		return complete_no_head(id, t);
	default:
		return ordsched_ring_complete(&uview, id, t, NULL);
	}
}

/* One operation of a participant's script, from its start. */
static void run_part(void)
{
	struct actor *a = A();
	unsigned int arg = cfg->script[cur].arg[a->pc];
	__u32 id = cfg->one_handle ? 1 : cur + 1;
	__u64 t;
	int ret;

	switch (cfg->script[cur].op[a->pc]) {
	case OP_END:
		a->status = ST_DONE;
		return;
	case OP_TAKE:
		if (mutant == M_HEAD_FIRST)
			ret = take_head_first(id, &t);
		else
			ret = ordsched_ring_take(&uview, id, &t);
		if (ret == -EAGAIN) {
			/*
			 * The window is full: as a library would, try again
			 * once the page changed. A take blocked for good in a
			 * final state is a stall (the scripts never fill the
			 * window).
			 */
			a->blocked = 1;
			memcpy(a->page, &W->head, sizeof(__u64));
			memcpy(a->page + 1, &W->tail, sizeof(__u64));
			memcpy(a->page + 2, W->slots, sizeof(W->slots));
			a->nrec = 0;
			memset(a->rec, 0, sizeof(a->rec));
			return;
		}
		if (ret == -EIO && cfg->scribbles)
			break;
		if (ret)
			fail("actor %d: take returned %d", cur, ret);
		a->tk[arg] = t;
		a->taken |= 1 << arg;
		break;
	case OP_WAIT:
		if (!(a->taken & 1 << arg))
			break;
		/*
		 * The second participant keeps its flag at the turn, as a
		 * pollable handle's waits do: both ways are explored.
		 */
		ret = __ordsched_ring_wait(&uview, id, a->tk[arg], 1, cur == 1,
					   NULL);
		if (ret == -ETIMEDOUT) {
			/* Wait again, from the start of the operation. */
			a->nrec = 0;
			memset(a->rec, 0, sizeof(a->rec));
			return;
		}
		if (cfg->scribbles)
			break;
		/*
		 * Threads of one handle, one completing the tail: it may
		 * retire a ticket before, or while, its waiter commits (a
		 * program's race, not the protocol's): the answer is all
		 * there is to check.
		 */
		if ((!ret || ret == -EALREADY) && cfg->one_handle) {
			a->committed |= 1 << a->pc;
			break;
		}
		if (ret)
			fail("actor %d: wait for %" PRIu64 " returned %d", cur,
			     (uint64_t)a->tk[arg], ret);
		commit(a->tk[arg]);
		a->committed |= 1 << a->pc;
		break;
	case OP_COMPLETE:
	case OP_TRASH:
		if (!(a->taken & 1 << arg))
			break;
		ret = complete(id, a->tk[arg]);
		if (ret == -EALREADY && cfg->one_handle)
			break;
		if (ret && !cfg->scribbles)
			fail("actor %d: complete of %" PRIu64 " returned %d", cur,
			     (uint64_t)a->tk[arg], ret);
		break;
	case OP_TAIL:
		/*
		 * A ticket this thread may never have been told of: a claim
		 * not yet handed out is EINVAL, one retired is EALREADY.
		 */
		t = chk_load(uview.tail);
		ret = complete(id, t);
		if (ret && ret != -EINVAL && ret != -EALREADY)
			fail("actor %d: complete of the tail %" PRIu64
			     " returned %d", cur, (uint64_t)t, ret);
		break;
	}
	next_op();
}

/*
 * The kernel releasing participant cur - parts: release, then, while the
 * budget runs out, a work item that goes on advancing.
 */
static void run_release(void)
{
	struct actor *a = A();
	__u32 id = cur - cfg->parts + 1;
	bool done;

	if (!a->pc)
		done = ordsched_ring_release(&kview, id, cfg->release_budget,
					     NULL);
	else
		done = ordsched_ring_advance(&kview, cfg->release_budget, true,
					     NULL);
	if (!done && mutant != M_DROP_BUDGET) {
		a->pc = 1;
		a->nrec = 0;
		memset(a->rec, 0, sizeof(a->rec));
		return;
	}
	a->status = ST_DONE;
	a->nrec = 0;
	memset(a->rec, 0, sizeof(a->rec));
	if (!cfg->scribbles)
		check_released(id);
}

/* Adversarial values for the scribbler. */
static __u64 scribble_value(unsigned int v)
{
	static const __u64 vals[] = {
		~0ULL, 1ULL << 63, 0,
		ORDSCHED_RING_WORD(5, 1, ORDSCHED_RING_OWNED),
		ORDSCHED_RING_WORD(3, 0, ORDSCHED_RING_RETIRED),
	};

	return vals[v % 5];
}

#define SCRIBBLE_CHOICES(r)	((2 + (r)) * 5)

static void run_scribble(void)
{
	struct actor *a = A();
	unsigned int where = choice / 5, v = choice % 5;
	__u64 *p = where == 0 ? &W->head : where == 1 ? &W->tail :
		   &W->slots[where - 2];

	*p = scribble_value(v);
	if (++a->pc == cfg->scribbles)
		a->status = ST_DONE;
}

/*
 * After every step (but of a scribble run): tail <= head <= tail + R, and
 * the slot of each ticket t in [tail, tail + R) holds a taken word of t
 * if t < head; at the head, that or FREE(t); after it, FREE(t), a
 * RETIRED(t - R) whose freeing is late, or an owned word of t - R that a
 * completion at the turn has not freed yet.
 */
static bool check_invariants(void)
{
	__u64 R = cfg->slots, t, w;
	unsigned int i;

	if (cfg->scribbles)
		return true;
	if (W->head - W->tail > R)
		fail("head %" PRIu64 ", tail %" PRIu64 ": outside the window",
		     (uint64_t)W->head, (uint64_t)W->tail);
	for (i = 0; i < R; i++) {
		t = W->tail + i;
		w = W->slots[ORDSCHED_RING_INDEX(t, R)];
		if (t - W->tail < W->head - W->tail) {
			if (ordsched_ring_diff(w, t) == 0 &&
			    ordsched_ring_state(w) != ORDSCHED_RING_FREE)
				continue;
		} else {
			if (w == ordsched_ring_word(t, 0, ORDSCHED_RING_FREE) ||
			    w == ordsched_ring_word(t - R, 0,
						    ORDSCHED_RING_RETIRED))
				continue;
			if (ordsched_ring_diff(w, t - R) == 0 &&
			    ordsched_ring_owned(w))
				continue;
			if (t == W->head && ordsched_ring_diff(w, t) == 0)
				continue;
		}
		fail("slot of ticket %" PRIu64 " is %#" PRIx64 " (head %" PRIu64
		     ", tail %" PRIu64 ")", (uint64_t)t, (uint64_t)w,
		     (uint64_t)W->head, (uint64_t)W->tail);
	}
	return true;
}

/* Point the views at @w, the world a step runs in. */
static void rebase(struct world *w)
{
	uview.head = kview.head = &w->head;
	uview.tail = kview.tail = &w->tail;
	uview.slots = kview.slots = w->slots;
}

/* Run one step of actor @i in @w with @ch; false if it failed. */
static bool step(struct world *w, int i, int ch)
{
	int r;

	W = w;
	rebase(w);
	cur = i;
	acc = 0;
	live_done = false;
	choice = ch;
	op_moved_tail = false;
	if (actor_kind(i) == K_PART)
		w->a[i].blocked = 0;
	r = setjmp(stop);
	if (r == STOP_FAIL)
		return false;
	if (r == STOP_PAUSE)
		return check_invariants();
	switch (actor_kind(i)) {
	case K_PART:
		run_part();
		break;
	case K_RELEASE:
		run_release();
		break;
	case K_SCRIBBLE:
		run_scribble();
		break;
	}
	return check_invariants();
}

/* A participant dies: the kernel's release of its handle begins. */
static void die(struct world *w, int i)
{
	struct actor *a = &w->a[i];

	/* Nothing of it matters any more: forget it, states merge. */
	memset(a, 0, sizeof(*a));
	a->status = ST_DEAD;
	w->a[i + cfg->parts].status = ST_RUN;
	w->deaths++;
}

/* The final state: nothing can move any more. */
static bool check_final(const struct world *w)
{
	unsigned int i, k;

	/* The trust model promises no progress to a scribbled domain. */
	if (cfg->scribbles)
		return true;
	for (i = 0; i < nactors; i++) {
		const struct actor *a = &w->a[i];

		if (a->status == ST_RUN) {
			snprintf(failbuf, sizeof(failbuf),
				 "actor %u can never move again (%s, pc %u, head %" PRIu64 ", tail %" PRIu64 "): a lost wake-up or a stall",
				 i, a->at_sleep ? "asleep" :
				 a->blocked ? "blocked in take" : "running",
				 a->pc, (uint64_t)w->head, (uint64_t)w->tail);
			failure = failbuf;
			return false;
		}
	}
	for (i = 0; i < cfg->parts; i++) {
		const struct actor *a = &w->a[i];

		if (a->status != ST_DONE)
			continue;
		for (k = 0; k < MAXOPS; k++) {
			if (cfg->script[i].op[k] != OP_WAIT ||
			    a->committed & 1 << k)
				continue;
			snprintf(failbuf, sizeof(failbuf),
				 "survivor %u never committed at its op %u", i,
				 k);
			failure = failbuf;
			return false;
		}
	}
	if (w->tail != w->head) {
		snprintf(failbuf, sizeof(failbuf),
			 "final tail %" PRIu64 " != head %" PRIu64,
			 (uint64_t)w->tail, (uint64_t)w->head);
		failure = failbuf;
		return false;
	}
	for (i = 0; i < cfg->slots; i++) {
		__u64 s = w->slots[i];
		__u64 next = w->tail + ((i - w->tail) & (cfg->slots - 1));

		if (s == ordsched_ring_word(next, 0, ORDSCHED_RING_FREE))
			continue;
		if (s == ordsched_ring_word(next - cfg->slots, 0,
					    ORDSCHED_RING_RETIRED))
			continue;
		snprintf(failbuf, sizeof(failbuf),
			 "final slot %u is %#" PRIx64 ", not free", i,
			 (uint64_t)s);
		failure = failbuf;
		return false;
	}
	return true;
}

/* The visited set: 64-bit hashes, open addressing. */
#define HBITS	25
static uint64_t *table;
static uint64_t nstates, nsteps, nfinal;

static uint64_t mix(uint64_t h, const void *p, size_t len)
{
	const unsigned char *b = p;
	uint64_t v;
	size_t i;

	for (i = 0; i < len; i += 8) {
		memcpy(&v, b + i, 8);
		h = (h ^ v) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 32;
	}
	return h;
}

/* Hashes what can differ: the fixed fields and the record in use. */
static uint64_t hash(const struct world *w)
{
	uint64_t h = 0xcbf29ce484222325ULL, v;
	unsigned int i;

	_Static_assert(offsetof(struct actor, rec) % 8 == 0, "actor in words");
	h = mix(h, &w->head, 8);
	h = mix(h, &w->tail, 8);
	h = mix(h, w->slots, sizeof(w->slots));
	for (i = 0; i < nactors; i++) {
		h = mix(h, &w->a[i], offsetof(struct actor, rec));
		h = mix(h, w->a[i].rec, 8 * w->a[i].nrec);
	}
	/* Commits only ever compare with the last one. */
	if (w->nlog)
		h = mix(h, &w->log[w->nlog - 1], 8);
	v = w->deaths;
	h = mix(h, &v, 8);
	h ^= h >> 31;
	h *= 0x7fb5d329728ea185ULL;
	h ^= h >> 27;
	return h | 1;
}

/* True if @w was not seen before (and marks it seen). */
static bool visit(const struct world *w)
{
	uint64_t h = hash(w), mask = (1ULL << HBITS) - 1, i = h & mask;

	while (table[i]) {
		if (table[i] == h)
			return false;
		i = (i + 1) & mask;
	}
	table[i] = h;
	if (++nstates > (mask >> 1) + (mask >> 2)) {
		fprintf(stderr, "state table full\n");
		exit(2);
	}
	return true;
}

/* The path to the current state, for the report. */
struct move {
	int actor;
	int choice;	/* -1: death */
};

static struct move path[4096];
static int depth;

static void print_path(void)
{
	int i;

	printf("#   path (%d steps):", depth);
	for (i = 0; i < depth; i++)
		printf(" %d%s", path[i].actor,
		       path[i].choice < 0 ? "+" : path[i].choice ? "t" : "");
	printf("\n#   (+ death, t timeout or scribble choice)\n");
}

static bool explore(const struct world *w);

static bool page_changed(const struct world *w, const struct actor *a)
{
	return a->page[0] != w->head || a->page[1] != w->tail ||
	       memcmp(a->page + 2, w->slots, sizeof(w->slots));
}

static bool try_move(const struct world *w, int i, int ch)
{
	struct world n = *w;

	if (ch < 0) {
		die(&n, i);
	} else if (!step(&n, i, ch)) {
		path[depth].actor = i;
		path[depth].choice = ch;
		depth++;
		return false;
	}
	nsteps++;
	if (depth == (int)(sizeof(path) / sizeof(path[0]))) {
		failure = "path too long";
		return false;
	}
	path[depth].actor = i;
	path[depth].choice = ch;
	depth++;
	if (!explore(&n))
		return false;
	depth--;
	return true;
}

static bool explore(const struct world *w)
{
	bool moved = false;
	unsigned int i;
	int c;

	if (!visit(w))
		return true;
	for (i = 0; i < nactors; i++) {
		const struct actor *a = &w->a[i];

		if (a->status != ST_RUN)
			continue;
		switch (actor_kind(i)) {
		case K_PART:
			if (a->blocked && !page_changed(w, a)) {
				/* Only death moves it before the page changes. */
			} else if (!a->at_sleep || a->woken) {
				moved = true;
				if (!try_move(w, i, 0))
					return false;
			}
			if (a->at_sleep && a->timeouts < cfg->max_timeouts) {
				moved = true;
				if (!try_move(w, i, 1))
					return false;
			}
			if ((cfg->can_die >> i & 1) &&
			    w->deaths < cfg->max_deaths) {
				moved = true;
				if (!try_move(w, i, -1))
					return false;
			}
			break;
		case K_RELEASE:
			moved = true;
			if (!try_move(w, i, 0))
				return false;
			break;
		case K_SCRIBBLE:
			for (c = 0; c < (int)SCRIBBLE_CHOICES(cfg->slots); c++) {
				moved = true;
				if (!try_move(w, i, c))
					return false;
			}
			break;
		}
	}
	if (!moved) {
		nfinal++;
		return check_final(w);
	}
	return true;
}

static void init_world(struct world *w)
{
	unsigned int i;

	memset(w, 0, sizeof(*w));
	w->head = cfg->start;
	w->tail = cfg->start;
	for (i = 0; i < cfg->slots; i++) {
		__u64 t = cfg->start + i;

		w->slots[ORDSCHED_RING_INDEX(t, cfg->slots)] =
			ordsched_ring_word(t, 0, ORDSCHED_RING_FREE);
	}
	for (i = 0; i < cfg->parts; i++)
		w->a[i].status = ST_RUN;
	if (cfg->scribbles)
		w->a[2 * cfg->parts].status = ST_RUN;
}

/* Parse @c's programs into its scripts; false (and a message) if malformed. */
static bool parse(struct config *c)
{
	unsigned int i, n;
	const char *p;

	for (i = 0; i < c->parts; i++) {
		p = c->prog[i];
		for (n = 0; *p; n++) {
			while (*p == ' ')
				p++;
			if (!*p)
				break;
			if (n == MAXOPS - 1 || p[1] < '0' || p[1] > '3')
				return false;
			switch (p[0]) {
			case 't':
				c->script[i].op[n] = OP_TAKE;
				break;
			case 'w':
				c->script[i].op[n] = OP_WAIT;
				break;
			case 'c':
				c->script[i].op[n] = OP_COMPLETE;
				break;
			case 'x':
				c->script[i].op[n] = OP_TRASH;
				break;
			case 'T':
				c->script[i].op[n] = OP_TAIL;
				break;
			default:
				return false;
			}
			c->script[i].arg[n] = p[1] - '0';
			p += 2;
		}
	}
	return true;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool run_config(const struct config *c, unsigned int num)
{
	static struct world w;
	static struct config pc;
	double t0 = now();
	bool ok;

	pc = *c;
	if (!parse(&pc)) {
		printf("not ok %u - %s # bad script\n", num, c->name);
		return false;
	}
	cfg = &pc;
	nactors = 2 * c->parts + 1;
	memset(table, 0, sizeof(*table) << HBITS);
	nstates = nsteps = nfinal = 0;
	depth = 0;
	failure = NULL;
	init_world(&w);
	/* The views: the library's and the kernel's, built from trusted sizes. */
	uview = (struct ordsched_ring_view){
		.head = &w.head, .tail = &w.tail, .slots = w.slots,
		.mask = c->slots - 1,
	};
	kview = uview;
	if (mutant == M_UNMASKED)
		kview.mask = 2 * c->slots - 1;
	/* Each step points the views at its own copy of the world. */
	ok = explore(&w);
	printf("%sok %u - %s # %" PRIu64 " states, %" PRIu64 " steps, %"
	       PRIu64 " final states, %.1f s\n", ok ? "" : "not ", num,
	       c->name, nstates, nsteps, nfinal, now() - t0);
	if (!ok) {
		printf("#   %s\n", failure);
		print_path();
	}
	fflush(stdout);
	return ok;
}

/*
 * The scribbler against the kernel alone: random and near-valid words in
 * every place of the page, and the kernel's operations (release, the work
 * item's advance, the wait test) run on them directly. Each must stay in
 * the page and finish within a bound of accesses fixed by the slot count
 * and the budget, whatever it reads.
 */
static uint64_t rnd_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static __u64 fuzz_word(__u64 base)
{
	switch (rnd() % 4) {
	case 0:
		return rnd();
	case 1:
		return base + rnd() % 9 - 4;
	default:
		return ordsched_ring_word(base + rnd() % 9 - 4, rnd() % 4,
					  rnd() % 4);
	}
}

static bool fuzz_kernel(unsigned int num, unsigned int rounds)
{
	static const __u64 bases[] = { 0, 1ULL << 46, 0, 5 };
	static struct config fc = {
		.name = "kernel.scribbled", .parts = 3, .scribbles = 1,
		.prog = { "", "", "" },
	};
	static struct world w;
	unsigned int n, i, budget, bound, slots;
	volatile unsigned int round = 0;
	__u64 base;
	__u32 id;

	cfg = &fc;
	nactors = 2 * fc.parts + 1;
	W = &w;
	cur = fc.parts;		/* a release actor */
	direct = true;
	failure = NULL;
	if (setjmp(stop))
		goto out;
	for (; round < rounds; round++) {
		slots = round & 1 ? 4 : 2;
		fc.slots = slots;
		memset(&w, 0, sizeof(w));
		rebase(&w);
		kview.mask = mutant == M_UNMASKED ? 2 * slots - 1 : slots - 1;
		base = bases[round % 4] - (round % 4 == 2) * 3;
		w.head = fuzz_word(base);
		w.tail = rnd() % 2 ? w.head - rnd() % 6 : fuzz_word(base);
		for (i = 0; i < slots; i++)
			w.slots[i] = fuzz_word(base);
		id = rnd() % 4;
		budget = rnd() % (slots + 1);
		/* The scan, then per move 6 accesses, the last look, a wake. */
		bound = 2 * slots + 6 * budget + 3;
		for (n = 0; n < 3; n++) {
			direct_accesses = 0;
			if (n == 0)
				ordsched_ring_release(&kview, id, budget, NULL);
			else if (n == 1)
				ordsched_ring_advance(&kview, budget, true, NULL);
			else
				ordsched_ring_wait_check(&kview, id,
							 fuzz_word(base));
			if (direct_accesses > bound) {
				snprintf(failbuf, sizeof(failbuf),
					 "kernel operation %u made %lu accesses, bound %u",
					 n, direct_accesses, bound);
				failure = failbuf;
				goto out;
			}
		}
	}
out:
	direct = false;
	printf("%sok %u - %s # %u rounds\n", failure ? "not " : "", num,
	       fc.name, round);
	if (failure)
		printf("#   round %u: %s\n", round, failure);
	fflush(stdout);
	return !failure;
}

#define U64_NEAR_WRAP	(~0ULL - 1)
#define W46_NEAR_WRAP	((1ULL << 46) - 2)

/* The tickets at the edges, for the word checks below. */
static const __u64 edge_tickets[] = {
	0, 1, 5, W46_NEAR_WRAP, W46_NEAR_WRAP + 1, W46_NEAR_WRAP + 2,
	U64_NEAR_WRAP, U64_NEAR_WRAP + 1,
};

#define NEDGE	(sizeof(edge_tickets) / sizeof(edge_tickets[0]))

/* A word of the ticket @dt after @t (dt 3: a 2^46 wrap off), owner @id. */
static __u64 word_near(__u64 t, int dt, __u32 id, unsigned int state)
{
	return ordsched_ring_word(t + dt + (dt == 3 ? (1ULL << 46) - 3 : 0),
				  id, state);
}

/*
 * ordsched_ring_mine(), the fast paths' test, against
 * ordsched_ring_check() == 0, the exact answer: every word of the tickets
 * around t (both wraps included), of every state and of ids around the
 * caller's, for tickets and ids at the edges.
 */
static bool check_mine(unsigned int num)
{
	static const __u32 ids[] = { 1, 2, 0x7fff, ORDSCHED_RING_ID_MASK };
	unsigned int ti, ii, state, n = 0;
	__u64 t, w;
	int dt, di;
	__u32 id;

	for (ti = 0; ti < NEDGE; ti++)
		for (ii = 0; ii < sizeof(ids) / sizeof(ids[0]); ii++)
			for (dt = -3; dt <= 3; dt++)
				for (di = -2; di <= 2; di++)
					for (state = 0; state < 4; state++) {
		t = edge_tickets[ti];
		id = ids[ii];
		w = word_near(t, dt, (id + di) & ORDSCHED_RING_ID_MASK, state);
		n++;
		if (ordsched_ring_mine(w, t, id) !=
		    !ordsched_ring_check(w, t, id)) {
			printf("not ok %u - mine # word %#llx, ticket %#llx, id %#x\n",
			       num, (unsigned long long)w,
			       (unsigned long long)t, id);
			return false;
		}
	}
	printf("ok %u - mine # %u words\n", num, n);
	return true;
}

/*
 * ordsched_ring_next_acts(), the completion's test of the next slot,
 * against its definition: the word's ticket is t and its state SLEEPING
 * or RETIRED. The same words as check_mine(), with owner 0 too.
 */
static bool check_next(unsigned int num)
{
	static const __u32 ids[] = { 0, 1, 0x7fff, ORDSCHED_RING_ID_MASK };
	unsigned int ti, ii, state, n = 0;
	__u64 t, w;
	bool want;
	int dt;

	for (ti = 0; ti < NEDGE; ti++)
		for (ii = 0; ii < sizeof(ids) / sizeof(ids[0]); ii++)
			for (dt = -3; dt <= 3; dt++)
				for (state = 0; state < 4; state++) {
		t = edge_tickets[ti];
		w = word_near(t, dt, ids[ii], state);
		want = ordsched_ring_diff(w, t) == 0 &&
		       (state == ORDSCHED_RING_SLEEPING ||
			state == ORDSCHED_RING_RETIRED);
		n++;
		if (ordsched_ring_next_acts(w, t) != want) {
			printf("not ok %u - next # word %#llx, ticket %#llx\n",
			       num, (unsigned long long)w,
			       (unsigned long long)t);
			return false;
		}
	}
	printf("ok %u - next # %u words\n", num, n);
	return true;
}

static const struct config configs[] = {
	{ .name = "one.2slots.laps", .slots = 2, .parts = 1,
	  .prog = { "t0 w0 c0 t0 w0 c0 t0 w0 c0" },
	  .can_die = 1, .max_deaths = 1, .max_timeouts = 1,
	  .release_budget = 4 },
	{ .name = "one.2slots.early", .slots = 2, .parts = 1, .start = 7,
	  .prog = { "t0 t1 c1 w0 c0 t0 x0 t1 w1 c1" },
	  .can_die = 1, .max_deaths = 1, .max_timeouts = 1,
	  .release_budget = 4 },
	{ .name = "two.2slots", .slots = 2, .parts = 2,
	  .prog = { "t0 w0 c0 t0 w0 c0", "t0 w0 c0 t0 w0 c0" },
	  .can_die = 3, .max_deaths = 1, .max_timeouts = 1,
	  .release_budget = 4 },
	{ .name = "two.2slots.early-trash", .slots = 2, .parts = 2, .start = 3,
	  .prog = { "t0 c0 t0 w0 c0", "t0 w0 c0 t0 x0" },
	  .can_die = 3, .max_deaths = 1, .max_timeouts = 1,
	  .release_budget = 4 },
	{ .name = "two.4slots.hold2", .slots = 4, .parts = 2,
	  .prog = { "t0 t1 c1 w0 c0", "t0 w0 c0 t0 w0 c0" },
	  .can_die = 3, .max_deaths = 1, .max_timeouts = 1,
	  .release_budget = 4 },
	{ .name = "two.4slots.budget1", .slots = 4, .parts = 2,
	  .prog = { "t0 w0 c0", "t0 c0 t0 c0" },
	  .can_die = 1, .max_deaths = 1, .max_timeouts = 0,
	  .release_budget = 1 },
	{ .name = "two.2slots.wrap64", .slots = 2, .parts = 2,
	  .start = U64_NEAR_WRAP,
	  .prog = { "t0 w0 c0 t0 w0 c0", "t0 w0 c0 t0 x0" },
	  .can_die = 3, .max_deaths = 1, .max_timeouts = 1,
	  .release_budget = 4 },
	{ .name = "two.4slots.wrap46", .slots = 4, .parts = 2,
	  .start = W46_NEAR_WRAP,
	  .prog = { "t0 w0 c0 t0 w0 c0", "t0 c0 t0 w0 c0" },
	  .can_die = 3, .max_deaths = 1, .max_timeouts = 1,
	  .release_budget = 4 },
	{ .name = "two.2slots.scribbled", .slots = 2, .parts = 2,
	  .prog = { "t0 w0 c0", "t0 w0 c0" }, .scribbles = 1,
	  .can_die = 3, .max_deaths = 1, .max_timeouts = 1,
	  .release_budget = 2 },
	{ .name = "one.2slots.scribbled2", .slots = 2, .parts = 1,
	  .prog = { "t0 w0 c0 t0 w0 c0" }, .scribbles = 2,
	  .can_die = 1, .max_deaths = 1, .max_timeouts = 1,
	  .release_budget = 2 },
	{ .name = "two.2slots.one-handle-tail", .slots = 2, .parts = 2,
	  .prog = { "t0 w0 c0 t0 w0 c0", "T0 T0" }, .one_handle = true,
	  .release_budget = 4 },
	{ .name = "three.4slots", .slots = 4, .parts = 3,
	  .prog = { "t0 w0 c0", "t0 w0 c0", "t0 w0 c0" },
	  .can_die = 0, .max_deaths = 0, .max_timeouts = 0,
	  .release_budget = 4 },
	{ .name = "three.4slots.trash", .slots = 4, .parts = 3,
	  .prog = { "t0 w0 c0", "t0 x0", "t0 c0" },
	  .can_die = 0, .max_deaths = 0, .max_timeouts = 0,
	  .release_budget = 4 },
};

#define NCONFIGS	(sizeof(configs) / sizeof(configs[0]))
#define FUZZ_ROUNDS	200000

static void usage(void)
{
	fprintf(stderr,
		"usage: ring_check [-c NAME] [-m MUTANT]\n"
		"       ring_check -l    (list the mutants)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *only = NULL;
	unsigned int i, num = 0, failed = 0;
	int opt;

	while ((opt = getopt(argc, argv, "c:m:l")) != -1) {
		switch (opt) {
		case 'c':
			only = optarg;
			break;
		case 'm':
			for (i = 1; i < M_COUNT; i++)
				if (!strcmp(optarg, mutant_names[i]))
					mutant = i;
			if (!mutant)
				usage();
			break;
		case 'l':
			for (i = 1; i < M_COUNT; i++)
				printf("%s\n", mutant_names[i]);
			return 0;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	table = calloc(1ULL << HBITS, sizeof(*table));
	if (!table) {
		perror("ring_check");
		return 2;
	}
	if (!only)
		printf("1..%zu\n", NCONFIGS + 3);
	if (mutant)
		printf("# mutant %s: some configuration must fail\n",
		       mutant_names[mutant]);
	for (i = 0; i < NCONFIGS; i++) {
		if (only && strcmp(only, configs[i].name))
			continue;
		if (!run_config(&configs[i], ++num))
			failed++;
		/* A mutant is caught at its first failure. */
		if (failed && mutant)
			return 1;
	}
	if (!only || !strcmp(only, "kernel.scribbled"))
		if (!fuzz_kernel(++num, FUZZ_ROUNDS))
			failed++;
	if ((!only || !strcmp(only, "mine")) && !check_mine(++num))
		failed++;
	if ((!only || !strcmp(only, "next")) && !check_next(++num))
		failed++;
	return failed ? 1 : 0;
}
