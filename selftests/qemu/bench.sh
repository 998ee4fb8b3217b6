#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
#
# The benchmarks, in the guest: init.sh runs this in ordsched_mode=bench
# with stdout on the results port. Besides the protocol of init.sh (plan,
# ok, not ok, log), one line per run for the host (bench_report.py):
#
#	bench meta KEY=VALUE ...		kernel, CPUs, clock source
#	bench PART KEY=VALUE ... rep=R as=LABEL	one run's result
#
# At every setting of a part, each contender runs once per repetition, in
# orders that give the first place to every contender in turn, so that a
# slow phase of the host does not always hit the same contender, and
# change every contender's neighbours from one repetition to the next, so
# that no contender always runs right after the same other one (order()
# below; bench_check.sh checks both for the repetition counts used). A
# run whose checks fail (order, results, count) fails the part: it is an
# error, not a number.
#
# Kernel command line: ordsched_reps=N repetitions (default 5),
# ordsched_filter=PREFIX[,PREFIX...] runs only the parts whose names start
# with one of them;
# some parts take more (see each part). run.sh passes ORDSCHED_BENCH_ARGS.

B=/sys/kernel/debug/ordsched_bench
MODDIR=/lib/ordsched
reps=${ordsched_reps:-5}

say() { echo "$*"; }

# rotate N WORD...: the words, rotated left N times.
rotate() {
	n=$1
	shift
	while [ "$n" -gt 0 ]; do
		set -- "$@" "$1"
		shift
		n=$((n - 1))
	done
	echo "$@"
}

# shuffle K WORD...: the words in the K-th of a fixed series of orders:
# as given for K = 0, else shuffled by awk's generator seeded with K (the
# same in every boot).
shuffle() {
	k=$1
	shift
	[ "$k" = 0 ] && { echo "$@"; return; }
	echo "$@" | awk -v k="$k" '{
		srand(k)
		for (i = NF; i > 1; i--) {
			j = int(rand() * i) + 1
			t = $i; $i = $j; $j = t
		}
		print
	}'
}

# order REP WORD...: the order of repetition REP: row REP % n of a
# Williams design over the n words (row k: the word at (b_i + k) % n, b =
# 0, 1, n-1, 2, n-2, ...), in which every word comes first once and every
# two words stand side by side twice in n rows; the next n rows are the
# same reversed; then the words are shuffled anew (seeded: the same in
# every boot). Any run of repetitions, from 1 as bench.sh counts them and
# fewer than the words, so keeps no word first and no two words neighbours
# throughout. (Rotating one order, as before, kept every word's neighbours
# for the whole round, and with repetitions fewer than the words it never
# shuffled.)
order() {
	r=$1
	shift
	set -- $(shuffle $((r / (2 * $#) + 1)) "$@")
	echo "$@" | awk -v r="$r" '{
		n = NF
		k = r % n
		rev = int(r / n) % 2
		for (i = 0; i < n; i++) {
			b = (i % 2) ? (i + 1) / 2 : (n - i / 2) % n
			o[i] = $((b + k) % n + 1)
		}
		s = ""
		for (i = 0; i < n; i++)
			s = s (i ? " " : "") (rev ? o[n - 1 - i] : o[i])
		print s
	}'
}

# counts: the system-wide context switches and cross-CPU interrupts
# (rescheduling and function-call IPIs: x86's RES and CAL, arm64's IPI0
# and IPI1) so far. Counts, unlike times, do not depend on how fast the
# host runs the guest; -1 where the kernel has no such line.
counts() {
	awk '$1 == "ctxt" { print $2 }' /proc/stat
	awk 'BEGIN { n = -1 }
	     $1 == "RES:" || $1 == "CAL:" || $1 == "IPI0:" || $1 == "IPI1:" {
		if (n < 0)
			n = 0
		for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++)
			n += $i
	     }
	     END { print n }' /proc/interrupts
}

# run PART LABEL REP ARGS...: one run; its result goes to the host, with
# the context switches (csw=) and IPIs (ipis=) of the whole run, set-up
# included: the shell only waits in its write meanwhile.
run() {
	part=$1 label=$2 rep=$3
	shift 3
	set -- $(counts) "$@"
	csw=$1 ipis=$2
	shift 2
	if echo "$part $*" > $B/run; then
		set -- $(counts)
		[ "$ipis" -ge 0 ] && ipis=$(($2 - ipis))
		say "bench $(cat $B/run) rep=$rep as=$label" \
			"csw=$(($1 - csw)) ipis=$ipis"
	else
		say "log bench: $part $* failed: $(cat $B/run)"
		failed=1
	fi
}

# Part 1: ordered execution, W in ns. Enough items that the fastest
# contender runs for about 0.1 s at least (a few scheduler ticks of the
# emulated guest), yet padata at W = 0 finishes in seconds.
ORDERED_WORK="0 1000 5000 20000 50000"

ordered_items() {
	case $1 in
	0 | 1000) echo 60000 ;;
	5000) echo 40000 ;;
	20000) echo 20000 ;;
	*) echo 8000 ;;
	esac
}

part_ordered() {
	# "single": the lock with one producer, the one-CPU rate.
	contenders="$(sed -n 's/^ordered //p' $B/contenders) single"
	rep=1
	while [ $rep -le "$reps" ]; do
		for w in $ORDERED_WORK; do
			items=$(ordered_items "$w")
			for c in $(order $rep $contenders); do
				case $c in
				single) args="contender=lock producers=1" ;;
				*) args="contender=$c" ;;
				esac
				run ordered "$c" $rep $args work_ns=$w items=$items
			done
		done
		rep=$((rep + 1))
	done
}

# Part 2: many streams. 10,000 streams, 10 items each, no work: creation,
# memory, throughput and kworkers of the ordering machinery itself.
part_streams() {
	contenders=$(sed -n 's/^streams //p' $B/contenders)
	rep=1
	while [ $rep -le "$reps" ]; do
		for c in $(order $rep $contenders); do
			run streams "$c" $rep contender=$c streams=10000 rounds=10
		done
		rep=$((rep + 1))
	done
}

# Part 4: delays. Cost: submit+cancel pairs with 10^3, 10^5 and 10^6
# tasks pending (10^6: a few hundred MB and seconds per fill under TCG,
# so it runs DELAYS_BIG_REPS times, not ordsched_reps). Lateness: one
# task re-submitted 200 times per run, sub-jiffy delays and 1 ms.
# Cpus: the cost pairs from a producer on every CPU at once, 10^5 pending.
# hrwq (an hrtimer queueing a work item) and delay-irq (the scheduler with
# interrupt tasks) are there for lateness only: their costs are the
# hrtimer's and delay's. For A/B runs, comma lists replace the settings:
# ordsched_delays_pending=, _cpus= (pending counts of the every-CPU run)
# and _late= (delays in ns); "none" leaves that mode out.
delays_list() {
	[ "$1" = none ] || echo "$1" | tr , ' '
}
DELAYS_PENDING=$(delays_list "${ordsched_delays_pending:-1000,100000,1000000}")
DELAYS_CPUS_PENDING=$(delays_list "${ordsched_delays_cpus:-100000}")
DELAYS_BIG_REPS=${ordsched_delays_big_reps:-2}
DELAYS_LATE=$(delays_list "${ordsched_delays_late:-50000,200000,1000000}")

part_delays() {
	late=$(sed -n 's/^delays //p' $B/contenders)
	contenders=$(echo $late | tr ' ' '\n' | grep -vx -e hrwq -e delay-irq |
		tr '\n' ' ')
	rep=1
	while [ $rep -le "$reps" ]; do
		for n in $DELAYS_PENDING; do
			[ "$n" -ge 1000000 ] && [ $rep -gt "$DELAYS_BIG_REPS" ] &&
				continue
			for c in $(order $rep $contenders); do
				run delays "$c" $rep mode=cost contender=$c \
					pending=$n ops=10000
			done
		done
		for n in $DELAYS_CPUS_PENDING; do
			for c in $(order $rep $contenders); do
				run delays "$c" $rep mode=cpus contender=$c \
					pending=$n ops=10000
			done
		done
		for d in $DELAYS_LATE; do
			for c in $(order $rep $late); do
				run delays "$c" $rep mode=late contender=$c \
					delay_ns=$d count=200
			done
		done
		rep=$((rep + 1))
	done
}

# Part 3: keys. 20,000 tasks over 1,000 Zipf-ranked keys per producer,
# 1 in 100 a rollup over 4 keys, 1 us of work each; striping over 16
# ordered workqueues against the keyed executor.
part_keys() {
	contenders=$(sed -n 's/^keys //p' $B/contenders)
	rep=1
	while [ $rep -le "$reps" ]; do
		for c in $(order $rep $contenders); do
			run keys "$c" $rep contender=$c items=20000 keys=1000 \
				stripes=16 work_ns=1000
		done
		rep=$((rep + 1))
	done
}

# Part 5: ordered commit in userspace, a process per run (it prints its
# own result line and fails if the commit order broke). T = 2, 4, 8
# threads on the guest's CPUs; W = 1 and 10 us of work per item.
# ordsched_commit_contenders=, _threads= and _work= (comma-separated)
# narrow it down, for a quick A/B of two contenders.
COMMIT_CONTENDERS=$(echo "${ordsched_commit_contenders:-ordsched ordsched-ioctl condvar futex ring ring-again ring-owned ring-local ring-ahead spin}" | tr , ' ')
COMMIT_THREADS=$(echo "${ordsched_commit_threads:-2 4 8}" | tr , ' ')
COMMIT_WORK=$(echo "${ordsched_commit_work:-1000 10000}" | tr , ' ')

part_commit() {
	# One work loop for every run: the fastest of three calibrations.
	lpu=0
	for i in 1 2 3; do
		l=$(ordsched-bench-commit calibrate) || l=0
		[ "$l" -gt "$lpu" ] && lpu=$l
	done
	say "log bench: commit: $lpu work loops per us"
	rep=1
	while [ $rep -le "$reps" ]; do
		for t in $COMMIT_THREADS; do
			for w in $COMMIT_WORK; do
				for c in $(order $rep $COMMIT_CONTENDERS); do
					args="contender=$c threads=$t work_ns=$w"
					args="$args duration_ms=300 loops_per_us=$lpu"
					if out=$(ordsched-bench-commit $args); then
						say "bench $out rep=$rep as=$c"
					else
						say "log bench: commit $args failed"
						failed=1
					fi
				done
			done
		done
		rep=$((rep + 1))
	done
}

# wanted NAME: true unless ordsched_filter, a comma-separated list of
# prefixes, has none that NAME starts with.
wanted() {
	[ -z "${ordsched_filter:-}" ] && return 0
	for f in $(echo "$ordsched_filter" | tr , ' '); do
		case $1 in "$f"*) return 0 ;; esac
	done
	return 1
}

part() { # part NAME: run part_NAME unless filtered out
	wanted "$1" || return 0
	say "plan bench.$1"
	failed=0
	start=$(date +%s)
	part_"$1"
	say "log bench: $1 took $(($(date +%s) - start)) s"
	if [ $failed = 0 ]; then say "ok bench.$1"; else say "not ok bench.$1"; fi
}

say "plan bench.load"
insmod $MODDIR/ordsched.ko && insmod $MODDIR/ordsched_bench.ko
st=$?
if [ $st = 0 ]; then say "ok bench.load"; else say "not ok bench.load"; fi
[ $st = 0 ] || exit 0

clk=/sys/devices/system/clocksource/clocksource0/current_clocksource
say "bench meta kernel=$(uname -r) cpus=$(grep -c ^processor /proc/cpuinfo)" \
	"clocksource=$(cat $clk) reps=$reps" \
	"$(dmesg | sed -n 's/.*ordsched_bench: work loop: \([0-9]*\) .*/loops_per_ms=\1/p' | tail -n1)"

part ordered
part streams
part keys
part delays
part commit

say "plan bench.unload"
rmmod ordsched_bench && rmmod ordsched
if [ $? = 0 ]; then say "ok bench.unload"; else say "not ok bench.unload"; fi
