#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest harness's judge, on the host: lib.sh's evaluate() and judge()
# fed made-up boots (results.log, console.log, qemu.status), each with
# one defect that must fail the boot, and one clean boot that must pass.
# The guest self-check proves that kernel faults are caught; this proves
# the bookkeeping: a result planned and never reported, a plan's count
# short, a result reported twice, a crash or a hang, a skip not listed,
# a warning expected and missing, a race never won, taint.
# Prints one "ok"/"not ok" line per case; exits non-zero if any failed.
#
# usage: judge_check.sh
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=selftests/qemu/lib.sh
. "$here/lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck disable=SC2034 # read by judge() in lib.sh
mode=check
failed=0

# boot_of LABEL STATUS: a made-up boot, its results.log from standard input;
# its console.log is CONSOLE (default: a clean one).
boot_of() {
	local out=$work/logs/$1
	mkdir -p "$out"
	cat > "$out/results.log"
	echo "$2" > "$out/qemu.status"
	printf '%s\n' "[    0.000000] Linux version 6.1.0" \
		"${CONSOLE:-[    1.000000] ordsched: loaded}" > "$out/console.log"
}

# expect CASE LABEL WANT_FAILED PATTERN [EXPECTED_RE]: judge the boot;
# WANT_FAILED results must fail (0: none), and a line of the output must
# match PATTERN.
expect() {
	local name=$1 label=$2 want=$3 pat=$4 out before=$FAILED
	# Not in a $(...): the counts judge() keeps would stay there.
	judge test "$label" "${5:-}" > "$work/out" 2>&1
	out=$(cat "$work/out")
	if [ $((FAILED - before)) = "$want" ] && grep -qE -- "$pat" <<<"$out"; then
		echo "ok judge_check.$name"
	else
		echo "not ok judge_check.$name # $((FAILED - before)) failed, $want expected; no line matches '$pat'"
		sed 's/^/#   /' <<<"$out" | head -n 20
		failed=1
	fi
}

# judged NAME STATUS WANT_FAILED PATTERN RESULTS: a boot (its qemu
# status, its results.log), judged as expect() says.
judged() {
	printf '%s\n' "$5" | boot_of "$1" "$2"
	expect "$1" "$1" "$3" "$4"
}

CLEAN=$'plan a.one\nok a.one\nplan-count b 2\nok b.x\nok b.y\ntaint 0 0\nEND'
T=$'taint 0 0\nEND'

judged clean 0 0 '^ok test: guest.kernel_log' "$CLEAN"
judged planned_never_reported 0 1 'a.two # planned, never reported' \
	$'plan a.one\nplan a.two\nok a.one\n'"$T"
judged plan_count_short 0 1 'b.plan # 3 planned, 2 reported' \
	$'plan-count b 3\nok b.x\nok b.y\n'"$T"
judged reported_twice 0 1 'b.x # reported twice' $'plan-count b 2\nok b.x\nok b.x\n'"$T"
judged crash 1 1 'guest.finished # the guest stopped early' $'plan a.one\nok a.one\ntaint 0 0'
judged hang 124 1 'guest.finished # timed out' $'plan a.one\nok a.one\ntaint 0 0'
CONSOLE='[    2.000000] BUG: kernel NULL pointer dereference, address: 0' \
	judged splat 0 1 'guest.kernel_log # 1 splat lines' "$CLEAN"
judged unlisted_skip 0 1 'a.one # skipped, and not a skip listed' \
	$'plan a.one\nskip a.one # no reason anyone listed\n'"$T"
# A warning expected of a case: its message on a console line passes;
# the line that names the expectation does not count.
CONSOLE='[    2.000000] ordsched: the warning came' \
	judged expected_warning 0 0 'ok test: w.case.splat1' \
	$'ok w.case\nexpect-splat w.case the warning came\n'"$T"
CONSOLE='[    2.000000] # expect-splat w.case the warning came' \
	judged expected_warning_missing 0 1 'w.case.splat1 # no console line matches' \
	$'ok w.case\nexpect-splat w.case the warning came\n'"$T"
# The warncheck boot's expected warnings are excused at their own site
# only: another warning of the same function (or of a helper inlined
# into it) is a splat. Names the site as lib.sh does, from the source.
site=$(warn_at seq.c 'WARN_ONCE(1, "ordsched: ticket %llu of %s handed in twice' |
	sed 's/.*seq\.c:\([0-9]*\) .*/\1/')
WARNED=$'ok ktest.s.c\ntaint 512 0\nEND'
CONSOLE=$'[    2.000000] WARNING: CPU: 0 PID: 9 at /w/mod/module/seq.c:'"$site"$' seq_hand_in+0x1/0x2\n[    2.100000] Call Trace:' \
	boot_of site_warning 0 <<<"$WARNED"
expect site_warning site_warning 0 '^ok test: guest.kernel_log' "$EXPECTED_WARN_RE"
CONSOLE=$'[    2.000000] WARNING: CPU: 0 PID: 9 at /w/mod/module/seq.c:'"$site"$' seq_hand_in+0x1/0x2\n[    2.100000] Call Trace:\n[    2.200000] WARNING: CPU: 0 PID: 9 at /w/mod/module/seq.c:251 seq_hand_in+0x3/0x4\n[    2.300000] Call Trace:' \
	boot_of other_warning_same_function 0 <<<"$WARNED"
expect other_warning_same_function other_warning_same_function 1 \
	'guest.kernel_log # 2 splat lines' "$EXPECTED_WARN_RE"
# A boot of another kernel than the one its results are labelled with.
K_KVER[test]=6.1.0-57-amd64
judged kernel_booted 0 0 '^ok test: guest.kernel$' \
	$'log kernel 6.1.0-57-amd64, 2 CPUs\nplan a.one\nok a.one\n'"$T"
judged kernel_other 0 1 'guest.kernel # booted 6.12.117' \
	$'log kernel 6.12.117, 2 CPUs\nplan a.one\nok a.one\n'"$T"
unset 'K_KVER[test]'
# W (512) gained, no warning expected.
judged taint 0 1 'guest.taint # the kernel gained taint W' \
	$'plan a.one\nok a.one\ntaint 512 0\nEND'
# A race lost on every kernel that ran it fails once, over the run.
judged race_skip 0 0 'skip test: ktest.promise_delay.x' \
	$'plan-count ktest 1\nskip ktest.promise_delay.x # too slow to queue before the deadline\n'"$T"
before=$FAILED
races_ran > "$work/out"
out=$(cat "$work/out")
if [ $((FAILED - before)) = 1 ] && grep -q 'promise_delay.x # skipped for its race' <<<"$out"; then
	echo "ok judge_check.race_never_won"
else
	echo "not ok judge_check.race_never_won # $out"
	failed=1
fi
exit $failed
