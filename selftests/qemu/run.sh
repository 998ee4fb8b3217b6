#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build everything, boot it in QEMU and judge what the guest reports.
#
# usage: run.sh [-k KERNELS] [-f PREFIX] [-S] [-v] check|run|selfcheck|bench
#
#   check      the harness self-check, then every
#              in-kernel and userspace test, on each kernel (default: all)
#   run        the main job: the module doing ordered work (default: 6.1)
#   selfcheck  only the self-check: faulty modules must be caught
#   bench      the benchmarks (-f: parts), tables and plots in WORK/bench
#
#   -k KERNELS the kernels, separated by commas or spaces, from: 6.1,
#              6.12, 6.12-rt, 6.1-rt (Debian's stock and PREEMPT_RT
#              kernels), debug (built here: KASAN, lockdep with raw lock
#              nesting, kmemleak, UBSAN), debug-rt (the same with
#              PREEMPT_RT), or "all": all of these but debug-rt
#   -f PREFIX  run only the tests whose names start with PREFIX (in-kernel
#              cases are named suite.case, userspace ones by program)
#   -S         skip the self-check (for quick iterations, not for CI)
#   -v         print every guest console log
#
# Every result is printed by name; the last line is "N passed, N failed,
# N skipped" and the exit status is non-zero if anything failed. A result
# fails on "not ok", when it was planned but never reported, when the guest
# did not finish (crash, hang, timeout), and when the kernel log shows a
# splat (BUG, WARNING, Oops, KASAN, UBSAN, lockdep, kmemleak, hung task,
# RCU stall, ...). -v prints every guest console log.
#
# Environment: ORDSCHED_BUILD (build directory), ORDSCHED_WORK (logs and
# reports), ORDSCHED_BENCH_REPS (repetitions, default 5),
# ORDSCHED_BENCH_BOOTS (boots of the benchmarks, default 1; with more, the
# goals of every boot side by side) and ORDSCHED_BENCH_ARGS (more guest
# command line words for bench.sh, e.g.
# "ordsched_commit_threads=2,8 ordsched_commit_contenders=ordsched,ring").
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${ORDSCHED_BUILD:-$top/build}
work=${ORDSCHED_WORK:-$build}
kernels=
verbose=0
filter=
skip_selfcheck=0

while getopts "k:f:Sv" opt; do
	case $opt in
	k) kernels=$OPTARG ;;
	f) filter=$OPTARG ;;
	S) skip_selfcheck=1 ;;
	v) verbose=1 ;;
	*) sed -n '5,36s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
mode=${1:-}
case "$mode" in
check | selfcheck) : "${kernels:=all}" ;;
run | bench) : "${kernels:=6.1}" ;;
*) sed -n '5,36s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
esac
die() { echo "run.sh: $*" >&2; exit 1; }
step() { echo "== $*" >&2; }

# shellcheck source=selftests/qemu/lib.sh
. "$here/lib.sh"

kernels=${kernels//,/ }
[ "$kernels" = all ] && kernels=$ALL_KERNELS
for k in $kernels; do
	case " $KNOWN_KERNELS " in
	*" $k "*) ;;
	*) echo "run.sh: unknown kernel '$k' (known: $KNOWN_KERNELS)" >&2; exit 2 ;;
	esac
done

step "dependencies"
"$here/deps.sh" "$build" > /dev/null || die "installing dependencies failed"

step "userspace (static, -Werror)"
build_userspace || die "userspace build failed"

# prepare KERNEL: fetch or build the kernel, then build the modules for
# it. A kernel that cannot be fetched or built for is a failed result; the
# others still run.
prepare() {
	local k=$1
	step "$k kernel: fetch or build"
	if ! prepare_kernel "$k"; then
		result "not ok" "$k: kernel # cannot fetch or build the kernel"
		return 1
	fi
	step "$k kernel $(kernel_var "$k" KVER): modules (W=1, -Werror)"
	if build_modules "$k" 2> "$work/$k.build.log" && build_initrd "$k"; then
		result ok "$k: build # modules for $(kernel_var "$k" KVER)"
		return 0
	fi
	result "not ok" "$k: build # modules for $(kernel_var "$k" KVER)"
	awk '{ print "#   " $0 }' "$work/$k.build.log" | tail -n 40
	return 1
}

# The debug kernels take minutes to build, and a stock kernel's guest
# leaves about half of the CPUs idle: build them in the background from
# the start, at the lowest priority, so that they cost the guests next to
# nothing. prepare_kernel then finds the build done, or waits for it
# (debug-kernel.sh holds a lock), or builds it again if it failed.
for k in $kernels; do
	case $k in
	debug | debug-rt)
		(renice -n 19 -p "$BASHPID" > /dev/null
		 build_debug_kernel "$k") > "$work/$k.kernel.log" 2>&1 &
		;;
	esac
done

# bench_boots KERNEL: ORDSCHED_BENCH_BOOTS boots (default 1) of the
# benchmarks, each reported on its own; with more than one, the goals of
# all boots side by side (bench_boots.py), since a ratio measured in one
# boot can move far in the next.
bench_boots() {
	local k=$1 boots=${ORDSCHED_BENCH_BOOTS:-1} i label dir reports=()

	[[ $boots =~ ^[1-9][0-9]*$ ]] || die "ORDSCHED_BENCH_BOOTS: not a count: $boots"
	for ((i = 1; i <= boots; i++)); do
		label=$k/bench dir=$work/bench/$k
		if [ "$boots" -gt 1 ]; then
			label=$k/bench-$i dir=$work/bench/$k/boot-$i
		fi
		# The TSC of TCG's vCPUs is one host clock: trust it, so that
		# reading the time costs no emulated HPET access.
		step "$k kernel: benchmarks, boot $i of $boots"
		boot "$k" bench 1800 "$label" tsc=reliable \
			"ordsched_filter=$filter" "ordsched_reps=${ORDSCHED_BENCH_REPS:-5}" \
			${ORDSCHED_BENCH_ARGS:-}
		judge "$k" "$label"
		if python3 "$here/bench_report.py" "$work/logs/$label/results.log" "$dir"; then
			reports+=("$dir/results.json")
		else
			result "not ok" "$k: bench.report # boot $i"
		fi
	done
	[ "$boots" -gt 1 ] && [ ${#reports[@]} -gt 0 ] || return 0
	python3 "$here/bench_boots.py" "${reports[@]}" | tee "$work/bench/$k/boots.txt" ||
		result "not ok" "$k: bench.boots"
}

# The parameters of ordsched.ko in a kernel's tests. On 6.12 the delayed
# schedulers get one far wheel, which both CPUs share, as CPUs do on
# machines with more CPUs than wheels; elsewhere, the debug kernel's
# lockdep included, one wheel per CPU.
modparams() {
	[ "$1" = 6.12 ] && echo "ordsched_modparams=delay_max_wheels=1"
}

for k in $kernels; do
	prepare "$k" || continue
	case $mode in
	check)
		[ $skip_selfcheck = 1 ] || selfcheck "$k"
		step "$k kernel: tests"
		boot "$k" check 1500 "$k/check" "ordsched_filter=$filter" \
			$(modparams "$k")
		judge "$k" "$k/check"
		step "$k kernel: tests that warn on purpose"
		boot "$k" warncheck 600 "$k/warncheck" nowarnpanic \
			"ordsched_filter=$filter"
		judge "$k" "$k/warncheck" "$EXPECTED_WARN_RE"
		;;
	selfcheck) selfcheck "$k" ;;
	bench)
		bench_boots "$k"
		;;
	run)
		step "$k kernel: main job"
		boot "$k" run 600 && judge "$k" "$k/run"
		;;
	esac
done

summary
