#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The benchmark tools, checked on the host (no guest, no module):
#  - ordsched-bench-commit's ordsched-private contender runs libordsched's
#    own take, wait and complete on a private ring with two threads for
#    real: the program exits 1 if a ticket was committed out of order,
#    twice or never, and the ring must cost no system call;
#  - it refuses more threads than CPUs, where nothing could wake a waiter;
#  - the instructions an item costs, counted by valgrind's lackey with
#    one thread, no work and a fixed number of items: libordsched's take, wait and complete on the
#    private ring, over what the plain spin's cost (the loop, the work
#    call and the commit, which every contender pays), must stay within
#    LIB_INSNS_MAX. The hot path's budget (README.md, "What is left at
#    T = 2 is instructions"), counted the same way on every host; the
#    futex ring's is printed beside it;
#  - bench.sh counts context switches and IPIs around each in-kernel run,
#    and bench_report.py gives them per item;
#  - bench_boots.py puts two boots' goals side by side and counts a goal
#    met in one boot and missed in the other as met in 1 of 2, and
#    reports the ratios of a run that has no goals;
#  - the A/A control: "ring-again" is the futex ring under another name
#    (it runs, in order); bench_report.py reports its ratio to "ring" as
#    it reports ordsched's (median of medians, worst repetition), and
#    bench_boots.py carries it across boots; likewise "ring-owned", the
#    futex ring with ordsched's ownership record at take, and "ring-local",
#    the record in a line of the taker's own.
#
# usage: bench_check.sh BENCH_BINARY
# Prints "ok NAME" or "not ok NAME" per check; exit status 1 if any failed.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
bench=${1:?usage: bench_check.sh BENCH_BINARY}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0

check() { # check NAME COMMAND...: one result
	local name=$1
	shift
	if "$@" > "$tmp/out" 2>&1; then
		echo "ok $name"
	else
		echo "not ok $name"
		sed 's/^/#   /' "$tmp/out" | tail -n 20
		bad=1
		return 1
	fi
}

# private_run WORK_NS: two threads for 200 ms; every ticket once, in order
# (the program's own check), at least one item, and no system call.
private_run() {
	local out
	out=$("$bench" contender=ordsched-private threads=2 work_ns="$1" \
		duration_ms=200 loops_per_us=100) || return 1
	echo "$out"
	[[ $out =~ \ items=[1-9][0-9]*\  ]] && [[ $out =~ \ syscalls=0\  ]]
}

# The private ring spins and never sleeps: with one CPU it must refuse,
# at init (exit 1, EINVAL), not crash.
private_refuses_one_cpu() {
	local out st
	out=$(taskset -c 0 "$bench" contender=ordsched-private threads=2 \
		work_ns=0 duration_ms=50 loops_per_us=100 2>&1)
	st=$?
	echo "$out"
	[ "$st" = 1 ] && [[ $out == *"ordsched-private: init: Invalid argument"* ]]
}

# The library's instructions an item over the spin's: 131 with gcc 12 -O2.
LIB_INSNS_MAX=135

# insns CONTENDER: guest instructions an item at T = 1, W = 0, the slope
# between a run of 20000 items and one of 60000 (the set-up cancels out).
insns() {
	local n out i c items=() counts=()

	for n in 20000 60000; do
		out=$(valgrind --tool=lackey "$bench" contender="$1" threads=1 \
			work_ns=0 items=$n loops_per_us=100 2>&1) || return 1
		i=$(sed -n 's/^commit .* items=\([0-9]*\) .*/\1/p' <<< "$out")
		c=$(sed -n 's/.*guest instrs: *\([0-9,]*\).*/\1/p' <<< "$out" | tr -d ,)
		[ -n "$i" ] && [ -n "$c" ] || return 1
		items+=("$i")
		counts+=("$c")
	done
	[ "${items[1]}" -gt "${items[0]}" ] || return 1
	echo $(((counts[1] - counts[0]) / (items[1] - items[0])))
}

lib_instructions() {
	local spin ring lib

	spin=$(insns spin) && ring=$(insns ring) &&
		lib=$(insns ordsched-private) || return 1
	echo "instructions an item: spin $spin, futex ring $ring, libordsched $lib"
	echo "over the spin's: futex ring $((ring - spin)), libordsched $((lib - spin)) (at most $LIB_INSNS_MAX)"
	[ $((lib - spin)) -le $LIB_INSNS_MAX ]
}

boots_count() {
	local g1='{"goals": [{"goal": "g: a >= 1.0x", "value": 1.2, "target": 1.0, "met": true}, {"goal": "g: b >= 1.0x", "value": 1.1, "target": 1.0, "met": true}]}'
	local g2='{"goals": [{"goal": "g: a >= 1.0x", "value": 0.8, "target": 1.0, "met": false}, {"goal": "g: b >= 1.0x", "value": 1.3, "target": 1.0, "met": true}]}'
	echo "$g1" > "$tmp/1.json"
	echo "$g2" > "$tmp/2.json"
	python3 "$here/bench_boots.py" "$tmp/1.json" "$tmp/2.json" > "$tmp/boots" || return 1
	cat "$tmp/boots"
	grep -qE '^  g: a >= 1.0x +1.20 +0.80 +1.00 1/2$' "$tmp/boots" &&
		grep -qE '^  g: b >= 1.0x +1.10 +1.30 +1.20 2/2$' "$tmp/boots"
}

# boots_ratios: boots with ratios and no goal (a delays-only run) are
# reported, not refused: per ratio the value in each boot and the median,
# met counted where it is an issue's target; a boot with nothing fails.
boots_ratios() {
	local r='{"goal": "d: x", "value": %s, "target": 1.0, "met": %s}, {"goal": "d: y <= 2x", "value": %s, "target": 2.0, "met": %s, "issue": true}'

	printf "{\"delays_ratios\": [$r]}\n" 0.8 false 1.2 true > "$tmp/r1.json"
	printf "{\"delays_ratios\": [$r]}\n" 1.2 true 2.5 false > "$tmp/r2.json"
	echo '{}' > "$tmp/r3.json"
	python3 "$here/bench_boots.py" "$tmp/r1.json" "$tmp/r2.json" > "$tmp/rboots" || return 1
	cat "$tmp/rboots"
	grep -qE '^  d: x +0.80 +1.20 +1.00 -$' "$tmp/rboots" &&
		grep -qE '^  d: y <= 2x +1.20 +2.50 +1.85 1/2$' "$tmp/rboots" &&
		! python3 "$here/bench_boots.py" "$tmp/r1.json" "$tmp/r3.json"
}

# control_runs NAME: a control contender runs and commits in order.
control_runs() {
	local out

	out=$("$bench" contender="$1" threads=2 work_ns=1000 \
		duration_ms=100 loops_per_us=100) || return 1
	echo "$out"
	[[ $out =~ ^commit\ contender=$1\ .*\ items=[1-9][0-9]*\  ]]
}

# aa_report: three repetitions of ring, ring-again and ring-owned, made up:
# per rep ring-again / ring = 1.0, 0.5 and 6.0, both medians 2000 items/s;
# ring-owned / ring = 0.9, 0.75 and 0.95: its median, 1500 items/s, is
# 0.75x the ring's (the medians' ratio is the control's value, as for
# the goals, not the median of the ratios, 0.90) and its worst
# repetition 0.75x. ring-local / ring = 1.0, 1.0, 0.5: median 1.00x,
# worst 0.50x.
aa_report() {
	local r c items w=1000 rep

	echo "bench meta cpus=2" > "$tmp/aa.log"
	for r in "1 ring 2000" "1 ring-again 2000" "2 ring 2000" \
		"2 ring-again 1000" "3 ring 1000" "3 ring-again 6000" \
		"1 ring-owned 1800" "2 ring-owned 1500" "3 ring-owned 950" \
		"1 ring-local 2000" "2 ring-local 2000" "3 ring-local 500"; do
		set -- $r
		rep=$1 c=$2 items=$3
		echo "bench commit contender=$c threads=2 work_ns=$w items=$items ns=1000000000 cpu_ns=1 syscalls=0 vcsw=0 ivcsw=0 rep=$rep as=$c" >> "$tmp/aa.log"
	done
	python3 "$here/bench_report.py" "$tmp/aa.log" "$tmp/aa" > "$tmp/aa.txt" ||
		return 1
	cat "$tmp/aa.txt"
	grep -qE '^ +commit T=2 W=1us: futex ring vs itself \(A/A\), median +1\.00$' "$tmp/aa.txt" &&
		grep -qE '^ +commit T=2 W=1us: futex ring vs itself \(A/A\), worst repetition +0\.50$' "$tmp/aa.txt" &&
		grep -qE '^ +commit T=2 W=1us: ring-owned vs futex ring, median +0\.75$' "$tmp/aa.txt" &&
		grep -qE '^ +commit T=2 W=1us: ring-owned vs futex ring, worst repetition +0\.75$' "$tmp/aa.txt" &&
		grep -qE '^ +commit T=2 W=1us: ring-local vs futex ring, median +1\.00$' "$tmp/aa.txt" &&
		grep -qE '^ +commit T=2 W=1us: ring-local vs futex ring, worst repetition +0\.50$' "$tmp/aa.txt"
}

# aa_boots: the control across two boots, with its median; then the
# repetitions of both boots pooled: a goal's ratios 0.9, 1.1 | 1.3 (median
# 1.10), the control's 1.0 x 20 | 1.0 x 20 (an interval of one point).
aa_boots() {
	local g='{"goal": "g: a >= 1.0x", "value": 1.2, "target": 1.0, "met": true'
	local ones
	ones=$(printf '1.0, %.0s' {1..19})1.0

	echo "{\"goals\": [$g, \"reps\": [0.9, 1.1]}], \"controls\": [{\"control\": \"c: A/A\", \"value\": 0.9, \"reps\": [$ones]}]}" > "$tmp/c1.json"
	echo "{\"goals\": [$g, \"reps\": [1.3]}], \"controls\": [{\"control\": \"c: A/A\", \"value\": 1.3, \"reps\": [$ones]}]}" > "$tmp/c2.json"
	python3 "$here/bench_boots.py" "$tmp/c1.json" "$tmp/c2.json" > "$tmp/cboots" || return 1
	cat "$tmp/cboots"
	grep -qE '^  c: A/A +0.90 +1.30 +1.10$' "$tmp/cboots" &&
		grep -qE '^  g: a >= 1.0x +1.10  0.90-1.30 +3$' "$tmp/cboots" &&
		grep -qE '^  c: A/A +1.00  1.00-1.00 +40$' "$tmp/cboots"
}

# counts_proc: bench.sh's counts(), run on this host's /proc: the
# context switches so far, then the IPIs (-1 only without RES/CAL lines),
# and more of both after a few hundred context switches of our own.
counts_proc() {
	local a b i

	eval "$(sed -n '/^counts() {$/,/^}$/p' "$here/bench.sh")"
	a=$(counts | tr '\n' ' ')
	for i in $(seq 200); do sleep 0.001; done
	b=$(counts | tr '\n' ' ')
	echo "before: $a, after: $b"
	set -- $a $b
	[ $# = 4 ] && [ "$1" -gt 0 ] && [ "$3" -ge $(($1 + 200)) ] &&
		{ ! grep -q '^ *RES:' /proc/interrupts || [ "$2" -ge 0 ]; } &&
		[ "$4" -ge "$2" ]
}

# counts_report: the counts a run line carries, per item in the tables:
# seq's csw 500 and 700 over 1,000 items (median 0.600) without IPIs
# (ipis=-1: "-"); padata's line has no counts at all; a late run's 400
# and 50 over its 200 runs of the function.
counts_report() {
	local o='bench ordered work_ns=0 producers=2 items=1000 window=128 loops=0 loops_per_ms=1 ns=1000000 busy_ns=100 lat_p50_ns=1 lat_p99_ns=2 depth=3'

	{
		echo "bench meta cpus=2"
		echo "$o contender=seq rep=1 as=seq csw=500 ipis=-1"
		echo "$o contender=seq rep=2 as=seq csw=700 ipis=-1"
		echo "$o contender=padata rep=1 as=padata"
		echo "bench delays mode=late contender=delay delay_ns=50000 count=200 early=0 late_p50_ns=1 late_p99_ns=2 late_max_ns=3 dispatched=200 direct=100 rep=1 as=delay csw=400 ipis=50"
	} > "$tmp/cnt.log"
	python3 "$here/bench_report.py" "$tmp/cnt.log" "$tmp/cnt" > "$tmp/cnt.txt" ||
		return 1
	cat "$tmp/cnt.txt"
	grep -qE '^ +0 seq .* 0\.600 +-$' "$tmp/cnt.txt" &&
		grep -qE '^ +0 padata .* - +-$' "$tmp/cnt.txt" &&
		grep -qE '^ +50 delay .* 2\.000 +0\.250$' "$tmp/cnt.txt"
}

# bench.sh's order of contenders: over two rounds of repetitions, every
# contender comes first as often as any other, and (from four up) not
# always between the same two. Two contenders once kept one order for
# good, and more their neighbours (rotated, and reversed in turn).
contender_order() {
	local n m r words firsts pairs most
	# shellcheck source=/dev/null
	source <(sed -n '/^rotate()/,/^}/p;/^shuffle()/,/^}/p;/^order()/,/^}/p' \
		"$here/bench.sh")
	# The repetitions as bench.sh counts them, 1 to m, for the counts
	# in use (5 by default, 11 and 15 for the goals) and every number
	# of contenders a part has.
	for m in 5 11 15; do
		for n in 2 3 4 5 6 7 8 9 10; do
			words=$(seq -s ' ' 1 "$n")
			firsts=
			pairs=
			for r in $(seq 1 "$m"); do
				set -- $(order "$r" $words)
				[ "$(printf '%s\n' "$@" | sort -n | tr '\n' ' ')" = "$words " ] ||
					{ echo "n=$n rep $r: not an order of $words: $*"; return 1; }
				firsts="$firsts $1"
				pairs="$pairs $(echo "$@" | awk '{ for (i = 1; i < NF; i++)
					print ($i < $(i + 1)) ? $i "," $(i + 1) : $(i + 1) "," $i }')"
			done
			# First at most once more than an even share.
			most=$(tr ' ' '\n' <<< "$firsts" | grep . | sort | uniq -c |
				awk '$1 > m { m = $1 } END { print m + 0 }')
			[ "$most" -le $(((m + n - 1) / n + 1)) ] ||
				{ echo "n=$n, $m reps: one contender first $most times:$firsts"; return 1; }
			# Two contenders side by side at most twice in up to n
			# reps (a Williams design's rows), and not much more often
			# than chance (2 m / n) over more, shuffled anew.
			[ "$n" -lt 4 ] && continue
			most=$(tr ' ' '\n' <<< "$pairs" | grep . | sort | uniq -c |
				awk '$1 > m { m = $1 } END { print m + 0 }')
			[ "$most" -le $((m <= n ? 2 : 2 * ((m + n - 1) / n) + 2)) ] ||
				{ echo "n=$n, $m reps: two contenders side by side $most times"; return 1; }
		done
	done
	echo "orders balanced for 2 to 10 contenders over 5, 11 and 15 repetitions"
}

check bench.contender_order contender_order
check bench.private_order_w0 private_run 0
check bench.private_order_w1us private_run 1000
check bench.private_refuses_one_cpu private_refuses_one_cpu
check bench.lib_instructions lib_instructions && sed 's/^/#   /' "$tmp/out"
check bench.boots_count boots_count
check bench.boots_ratios boots_ratios
check bench.ring_again control_runs ring-again
check bench.ring_owned control_runs ring-owned
check bench.ring_local control_runs ring-local
check bench.aa_report aa_report
check bench.aa_boots aa_boots
check bench.counts_proc counts_proc
check bench.counts_report counts_report
exit $bad
