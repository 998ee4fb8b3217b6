#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
#
# /init of the test guest. Loads the modules, runs the in-kernel and the
# userspace tests, unloads, checks for leaks and powers off. Results go to
# the second serial port (/dev/ttyS1), one per line, for run.sh to judge:
#
#	plan NAME		a result named NAME must follow
#	plan-count PREFIX N	N results named PREFIX.* must follow
#	ok NAME | not ok NAME | skip NAME [# why]
#	log TEXT		diagnostics, shown by run.sh
#	time NAME SECONDS	how long a test took (run.sh names the slowest)
#	expect-splat NAME RE	a console line of this boot must match the
#				extended regular expression RE (a case that
#				warns on purpose: its warning came)
#	END			the guest finished (a missing END is a crash or hang)
#
# The kernel command line chooses what to do: ordsched_mode=check|run|
# selfcheck|warncheck|bench; for the self-check, ordsched_fault=FAULTS,
# some of warn,leak,uaf,odebug,nokmemleak,hang; ordsched_filter=PREFIX to run
# only the tests whose names start with it;
# ordsched_modparams=NAME=VALUE[,...] for the parameters of ordsched.ko in
# the test modes; ordsched_kmemleak=required where the kernel must have
# kmemleak on.

export PATH=/bin:/sbin:/usr/bin:/usr/sbin
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug
# The debug kernels' injected user copy faults (a test's fail-nth): one
# line each in the log, not a stack dump that reads as a splat.
FAIL_USERCOPY=/sys/kernel/debug/fail_usercopy
[ -w $FAIL_USERCOPY/verbose ] && echo 1 > $FAIL_USERCOPY/verbose
mount -t tmpfs tmpfs /tmp
mkdir -p /dev/pts /dev/shm && mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm

TAINT_BOOT=$(cat /proc/sys/kernel/tainted)
stty -F /dev/ttyS1 raw -echo 2>/dev/null
exec 3>/dev/ttyS1

MODDIR=/lib/ordsched
TESTDIR=/usr/lib/ordsched/selftests
KMEMLEAK=/sys/kernel/debug/kmemleak

say() { echo "$*" >&3; }
uptime_s() { cut -d' ' -f1 /proc/uptime; }
took() { # took NAME START: the time since START (uptime_s) of NAME
	say "time $1 $(awk -v a="$2" -v b="$(uptime_s)" 'BEGIN { printf "%.1f", b - a }')"
}
# report_taint: the kernel's taint flags now and when /init started, for
# the host to judge (a backstop for a report the console lost).
report_taint() {
	say "taint $(cat /proc/sys/kernel/tainted) $TAINT_BOOT"
}
res() { # res STATUS NAME: STATUS is a command's exit code
	if [ "$1" = 0 ]; then say "ok $2"; else say "not ok $2 # exit $1"; fi
}
finish() {
	# A callback left running in the unloaded module's text (RCU, timer,
	# work) oopses a little after the last rmmod: give it the time to,
	# as kmemleak's wait does where it is on.
	[ -e $KMEMLEAK ] || sleep 3
	report_taint
	say END
	sync
	reboot -f
	sleep 60
}

# guarded NAME SECONDS COMMAND...: run COMMAND, but give up waiting for
# it after SECONDS: its kernel stack and the blocked tasks go to the log,
# and the exit code is 124 (as timeout(1)'s). A command stuck in the
# kernel cannot be killed, and a wait that is killable, idle or retried
# on a timeout is one the hung task detector never reports: without this
# the boot would hold until the host's limit, with no trace of where.
guarded() {
	_name=$1 _secs=$2 _n=0
	shift 2
	"$@" 3>&- &
	_pid=$!
	while kill -0 $_pid 2>/dev/null; do
		if [ $_n -ge "$_secs" ]; then
			say "log watchdog: $_name still running after $_secs s; its kernel stack:"
			sed 's/^/log watchdog:   /' /proc/$_pid/stack >&3 2>/dev/null
			echo w > /proc/sysrq-trigger 2>/dev/null
			return 124
		fi
		sleep 1
		_n=$((_n + 1))
	done
	wait $_pid
}

# Hung tasks are reported after 10 s instead of 120 s; any report fails
# the run on the host side.
echo 10 > /proc/sys/kernel/hung_task_timeout_secs 2>/dev/null
echo 1 > /proc/sys/kernel/hung_task_panic 2>/dev/null

say "log kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs"
# The races the tests set up need two CPUs; with one they would skip.
say "plan guest.cpus"
[ "$(grep -c ^processor /proc/cpuinfo)" -ge 2 ]
res $? guest.cpus
# Tests the filter let run (mode_check): none at all is a mistake.
tests=0
say "time boot $(uptime_s)"

# Forget leak suspects from boot: only what the tests leave counts.
kmemleak_reset() {
	[ -w $KMEMLEAK ] || return 0
	echo scan > $KMEMLEAK
	echo clear > $KMEMLEAK
}

# On a kernel whose boot says ordsched_kmemleak=required (the debug
# kernels), a kmemleak that is missing or turned itself off (it refuses
# scans then) is a failure, not a check quietly left out.
kmemleak_check() { # kmemleak_check [NAME]: the result's name
	check=${1:-kmemleak.clean}
	[ "$ordsched_kmemleak" = required ] || [ -w $KMEMLEAK ] || return 0
	say "plan $check"
	start=$(uptime_s)
	# kmemleak ignores objects younger than 5 s; an object must then look
	# unreferenced in two scans to be reported.
	sleep 6
	if ! { echo scan > $KMEMLEAK && echo scan > $KMEMLEAK; } 2>/dev/null; then
		say "not ok $check # no kmemleak to scan with: missing, or it turned itself off"
		return 0
	fi
	# debugfs files have size 0: read the report itself.
	leaks=$(cat $KMEMLEAK)
	if [ -n "$leaks" ]; then
		echo "kmemleak: suspected leaks after the run:"
		echo "$leaks"
		echo "$leaks" | sed 's/^/log /' >&3
		say "not ok $check"
	else
		say "ok $check"
	fi
	took $check "$start"
}

# Debug objects print five reports a boot, then only count them: the
# warncheck boot's own reports use those five up. The count, against
# what the test module expects of the cases that ran (a range, from
# /tmp/ktest.tap), tells whether any other report came, printed or not.
# Taken last, after the leak check's wait, so that frees deferred past
# the unload are in it.
ODEBUG=/sys/kernel/debug/debug_objects/stats
odebug_count() { sed -n 's/^warnings *://p' $ODEBUG 2>/dev/null; }
odebug_base=$(odebug_count)

odebug_check() {
	[ -r $ODEBUG ] || return 0
	say "plan debug_objects.count"
	n=$(($(odebug_count) - ${odebug_base:-0}))
	range=$(sed -n 's/^# debug-object reports expected: //p' /tmp/ktest.tap 2>/dev/null)
	range=${range:-0-0}
	if [ "$n" -ge "${range%-*}" ] && [ "$n" -le "${range#*-}" ]; then
		say "ok debug_objects.count"
	else
		say "not ok debug_objects.count # $n debug-object reports in this boot, $range expected"
	fi
}

# Forward the results of a (K)TAP file as PREFIX.NAME results, its plan as
# a count of them, its comments as logs.
forward_tap() { # forward_tap PREFIX FILE
	while read -r line; do
		case "$line" in
		1..*) say "plan-count $1 ${line#1..}" ;;
		"not ok "*) set -- "$1" $line; say "not ok $1.$5" ;;
		"ok "*"# SKIP"*) set -- "$1" $line; say "skip $1.$4 # ${line#*# SKIP }" ;;
		# The kselftest harness's expected failures: none is expected
		# here, and an unexpected pass is no pass either.
		"ok "*"# XFAIL"* | "ok "*"# XPASS"*)
			set -- "$1" $line; say "not ok $1.$4 # ${line#*# }" ;;
		"ok "*) set -- "$1" $line; say "ok $1.$4" ;;
		# A case's own report, which the host must find (ktest.h).
		"# expect-splat "*)
			line=${line#"# expect-splat "}
			say "expect-splat $1.${line%% *} ${line#* }"
			;;
		"#"*) say "log $1: $line" ;;
		esac
	done < "$2"
}

# Run the in-kernel test module and forward its KTAP lines.
run_ktest() { # run_ktest [MODULE PARAMETERS]
	say "plan ktest.load"
	dmesg -c > /dev/null
	start=$(uptime_s)
	# Every case together takes 2 minutes on the debug kernel.
	guarded ktest.load 600 insmod $MODDIR/ordsched_test.ko \
		filter="$ordsched_filter" "$@"
	st=$?
	dmesg | sed -n 's/^.*ordsched_test: //p' > /tmp/ktest.tap
	forward_tap ktest /tmp/ktest.tap
	n=$(sed -n 's/^1\.\.//p' /tmp/ktest.tap | head -n 1)
	# The cases of the other boot (warn on purpose, or not) count too.
	other=$(sed -n 's/^# the filter matches \([0-9]*\) cases that .*/\1/p' \
		/tmp/ktest.tap | head -n 1)
	tests=$((tests + ${n:-0} + ${other:-0}))
	# Without its plan, results lost from the log would go unmissed.
	if [ $st = 0 ] && ! grep -q '^1\.\.' /tmp/ktest.tap; then
		say "plan ktest.plan"
		say "not ok ktest.plan # no '1..N' line from the test module in the kernel log"
	fi
	# Each case's time: from the previous result's printk to its own.
	dmesg | awk -v prev="$start" '
		match($0, /ordsched_test: (not )?ok [0-9]+ [^ ]+/) {
			ts = substr($0, 2, index($0, "]") - 2) + 0
			n = split(substr($0, RSTART, RLENGTH), f, " ")
			printf "time ktest.%s %.1f\n", f[n], ts - prev
			prev = ts
		}' >&3
	res $st ktest.load
	# Stuck in the kernel: what would follow could only hang too.
	[ $st = 124 ] && finish
	if [ $st = 0 ]; then
		say "plan ktest.unload"
		rmmod ordsched_test
		res $? ktest.unload
	fi
}

# Wait up to a minute for the users of the ordsched module to go. When a
# test outlives its timeout, the harness SIGKILLs it but does not reap it:
# the harness moves on while the killed test still closes its handles, and
# the next test (or the unload) would race with it. After the wait, a user
# left is a leaked reference, and the unload reports it (once it leaked,
# later tests do not wait).
settle() { # settle NAME
	n=0
	while [ "$(cat /sys/module/ordsched/refcnt 2>/dev/null || echo 0)" != 0 ]; do
		[ $n -ge 600 ] || [ -n "$leaked_ref" ] && break
		sleep 0.1
		n=$((n + 1))
	done
	[ $n = 600 ] && leaked_ref=$1
	[ $n = 0 ] || say "log $1: waited $((n * 100)) ms for the module's users to go"
}

# Run one kselftest_harness program and forward its TAP lines.
run_selftest() {
	prog=$1
	name=${prog##*/}
	timeout=$(sed -n 's/^timeout=//p' $TESTDIR/settings 2>/dev/null)
	say "plan $name.exit"
	start=$(uptime_s)
	# Not the results' channel (3): only this script writes results.
	ORDSCHED_MODDIR=$MODDIR timeout "${timeout:-300}" "$prog" > /tmp/$name.tap 2>&1 3>&-
	st=$?
	took "$name" "$start"
	forward_tap "$name" "/tmp/$name.tap"
	# kselftest exit codes: 0 pass, 4 skip (every test in it skipped);
	# anything else is a failure.
	if [ $st = 4 ]; then
		say "skip $name.exit # every test skipped"
	else
		res $st $name.exit
	fi
	settle $name
}

# A client module destroys each kind of instance with work in flight and
# unloads at once: a worker still calling into it would oops.
run_clients() {
	for kind in seq pipeline stream keyed spread delay; do
		case "client.$kind" in "$ordsched_filter"*) ;; *) continue ;; esac
		say "plan client.$kind"
		tests=$((tests + 1))
		start=$(uptime_s)
		st=0
		for round in 1 2 3; do
			insmod $MODDIR/ordsched_client.ko kind=$kind || { st=$?; break; }
			rmmod ordsched_client || { st=$?; break; }
		done
		res $st client.$kind
		took "client.$kind" "$start"
	done
}

# Load ordsched.ko with the parameters ordsched_modparams names, and check
# that each took (insmod ignores one it does not know).
load_ordsched() {
	say "plan module.load"
	insmod $MODDIR/ordsched.ko $(echo "$ordsched_modparams" | tr , ' ')
	res $? module.load
	for p in $(echo "$ordsched_modparams" | tr , ' '); do
		say "plan module.param.${p%%=*}"
		[ "$(cat /sys/module/ordsched/parameters/${p%%=*} 2>/dev/null)" = "${p#*=}" ]
		res $? "module.param.${p%%=*}"
	done
}

mode_check() {
	kmemleak_reset
	load_ordsched
	run_ktest
	run_clients
	say "plan selftests.list"
	[ -s $TESTDIR.list ]
	res $? selftests.list
	for name in $(cat $TESTDIR.list 2>/dev/null); do
		case "$name" in "$ordsched_filter"*) ;; *) continue ;; esac
		tests=$((tests + 1))
		if [ -x "$TESTDIR/$name" ]; then
			run_selftest "$TESTDIR/$name"
		else
			say "plan $name.exit"
			say "not ok $name.exit # not in the guest's initrd"
		fi
	done
	say "plan module.unload"
	rmmod ordsched
	res $? module.unload
	run_demo
	if [ "$tests" = 0 ]; then
		say "plan filter.matched"
		say "not ok filter.matched # no test name starts with '$ordsched_filter'"
	fi
	kmemleak_check
	odebug_check
}

# The cases that trigger a WARN on purpose; the host checks that the
# kernel log shows those warnings and nothing else.
mode_warncheck() {
	kmemleak_reset
	load_ordsched
	run_ktest warns=1
	say "plan module.unload"
	rmmod ordsched
	res $? module.unload
	kmemleak_check
	odebug_check
}

# The main job: real ordered work, each result checked by a standard tool.
run_demo() {
	case demo in "$ordsched_filter"*) ;; *) return 0 ;; esac
	tests=$((tests + 1))
	say "plan demo"
	start=$(uptime_s)
	/usr/lib/ordsched/demo.sh 2>&1 3>&- | sed 's/^/log demo: /' >&3
	# pipefail is not in busybox sh: demo.sh leaves its status here.
	res "$(cat /tmp/demo.status 2>/dev/null || echo 1)" demo
	took demo "$start"
}

mode_run() {
	run_demo
	kmemleak_check
}

# Every fault of ordsched_fault (a list separated by commas) in one boot:
# the host finds each one's report in the log. A hang never returns, so it
# comes last, after the leak checks; nokmemleak is no module, but
# kmemleak turned off before a second leak check.
mode_selfcheck() {
	kmemleak_reset
	for f in $(echo "$ordsched_fault" | tr , ' '); do
		case $f in hang | nokmemleak) continue ;; esac
		say "plan faulty.$f"
		insmod $MODDIR/ordsched_faulty.ko fault="$f"
		res $? faulty.$f
		rmmod ordsched_faulty
	done
	kmemleak_check
	odebug_check
	# kmemleak turned off (as it does itself after an internal error):
	# the next check must fail, not pass for want of a scanner.
	case ",$ordsched_fault," in
	*,nokmemleak,*)
		echo off > $KMEMLEAK 2>/dev/null
		kmemleak_check kmemleak.off
		;;
	esac
	# A step that never ends, not even for the hung task detector (a
	# FIFO's open waits interruptibly for a writer): guarded() must give
	# up on it, and the boot go on.
	case ",$ordsched_fault," in
	*,stuck,*)
		say "plan faulty.stuck"
		mkfifo /tmp/stuck
		guarded faulty.stuck 5 cat /tmp/stuck
		res $? faulty.stuck
		;;
	esac
	# The hang never ends the boot: the taint so far, which the warn
	# fault set, is reported before it.
	report_taint
	case ",$ordsched_fault," in
	*,hang,*)
		say "plan faulty.hang"
		insmod $MODDIR/ordsched_faulty.ko fault=hang
		res $? faulty.hang
		;;
	esac
}

case "$ordsched_mode" in
check) mode_check ;;
run) mode_run ;;
selfcheck) mode_selfcheck ;;
warncheck) mode_warncheck ;;
bench) /usr/lib/ordsched/bench.sh >&3 ;;
*) say "not ok guest.mode # unknown ordsched_mode '$ordsched_mode'" ;;
esac
finish
