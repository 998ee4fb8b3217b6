#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The benchmark tools, checked on the host (no guest, no module):
#  - ordsched-bench-commit's ordsched-private contender runs libordsched's
#    own take, wait and complete on a private ring with two threads for
#    real: the program exits 1 if a ticket was committed out of order,
#    twice or never, and the ring must cost no system call;
#  - it refuses more threads than CPUs, where nothing could wake a waiter;
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
check bench.boots_count boots_count
exit $bad
