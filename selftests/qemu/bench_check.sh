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
#  - bench_boots.py puts two boots' goals side by side and counts a goal
#    met in one boot and missed in the other as met in 1 of 2.
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

# The private ring spins and never sleeps: with one CPU it must refuse.
private_refuses_one_cpu() {
	! taskset -c 0 "$bench" contender=ordsched-private threads=2 \
		work_ns=0 duration_ms=50 loops_per_us=100 2>&1 | grep -q '^commit'
}

# The library's instructions an item over the spin's: 117 with gcc 12 -O2.
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

check bench.private_order_w0 private_run 0
check bench.private_order_w1us private_run 1000
check bench.private_refuses_one_cpu private_refuses_one_cpu
check bench.lib_instructions lib_instructions && sed 's/^/#   /' "$tmp/out"
check bench.boots_count boots_count
exit $bad
