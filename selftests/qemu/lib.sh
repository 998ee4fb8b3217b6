# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers of run.sh: build, boot and judge. Sourced, not run.

PASSED=0
FAILED=0
SKIPPED=0
# Over every boot of the run: results that passed somewhere, and results
# skipped for a race (the skips file's "race" lines); see races_ran().
declare -A RAN=() RACED=()

# Every make below (and the kernel's, and the packaging tools') builds on
# all CPUs, one job more to cover I/O, unless the caller chose.
export MAKEFLAGS=${MAKEFLAGS:--j$(($(nproc) + 1))}

# What ends a run as failed whatever the tests said: any report of the
# kernel's own checkers in the guest console.
SPLAT_RE='BUG:|WARNING:|Oops|general protection fault|kernel BUG|KASAN:|UBSAN:'
SPLAT_RE+='|possible circular locking|possible recursive locking'
SPLAT_RE+='|inconsistent lock state|suspicious RCU usage|ODEBUG: [a-z]'
SPLAT_RE+='|blocked for more than|self-detected stall|rcu_.*detected stalls'
SPLAT_RE+='|soft lockup|hard LOCKUP|workqueue lockup|unreferenced object'
SPLAT_RE+='|new suspected memory leak|Kernel panic|list_add corruption'
SPLAT_RE+='|list_del corruption|scheduling while atomic'
SPLAT_RE+='|sleeping function called from invalid context|Call Trace:'
# Softirq work left pending, or a preempt count leaked by a softirq
# handler: no trace, no taint.
SPLAT_RE+='|NOHZ tick-stop error|huh, entered softirq'
# Reports whose only other matching line would be a Call Trace:, and lost
# console messages, which may have held one.
SPLAT_RE+='|detected expedited stalls|non-static key|invoked oom-killer'
SPLAT_RE+='|page allocation failure|memory leak detector disabled'
SPLAT_RE+='|printk messages dropped|ODEBUG disabled'
# The module's own report of a destroy that waits (every 10 s): a wake-up
# lost in a hand-in or drain shows only there, the destroy's timed wait
# ending it anyway.
SPLAT_RE+='|destroying (sequencer|keyed executor|a stream of set) '

# warn_at FILE TEXT: a WARNING at the line of module/FILE that holds TEXT
# (a WARN macro's first line), as a console line names it: the site, not
# the function, which another warning of the function (or of a helper
# inlined into it) would match too.
warn_at() {
	local line
	line=$(grep -nF -- "$2" "$(dirname "${BASH_SOURCE[0]}")/../../module/$1" |
		head -n 1 | cut -d: -f1)
	if [ -z "$line" ]; then
		echo "lib.sh: no '$2' in module/$1" >&2
		line=none
	fi
	printf 'WARNING: CPU: [0-9]+ PID: [0-9]+ at [^ ]*/module/%s:%s ' "$1" "$line"
}

# The warnings the warncheck boot triggers on purpose. Each excuses the
# one Call Trace: that follows it, no more (see evaluate()).
# A ticket handed in twice or never taken (seq misuse cases).
EXPECTED_WARN_RE=$(warn_at seq.c 'WARN_ONCE(1, "ordsched: ticket %llu of %s handed in twice')
EXPECTED_WARN_RE+='|WARNING: CPU: [0-9]+ PID: [0-9]+ at lib/debugobjects.c:[0-9]+ debug_print_object\+'
# A delayed task's cancel_sync from its own function (delay suite).
EXPECTED_WARN_RE+="|$(warn_at delay.c 'WARN_ONCE(1, "ordsched: cancel_sync of a delayed task')"
EXPECTED_WARN_RE+="|$(warn_at delay.c 'WARN_ONCE(self, "ordsched: cancel_sync of a delayed task')"
# Modes none of their enum's values, and a NULL stream (delay suite).
EXPECTED_WARN_RE+="|$(warn_at delay.c 'if (WARN_ON_ONCE(mode != ORDSCHED_DELAY_QUEUE_NEW &&')"
EXPECTED_WARN_RE+="|$(warn_at delay.c 'WARN_ONCE(mode != ORDSCHED_DELAY_CANCEL_NOWAIT &&')"
EXPECTED_WARN_RE+="|$(warn_at delay.c 'if (WARN_ON_ONCE(mode != ORDSCHED_DELAY_RUN_PENDING &&')"
EXPECTED_WARN_RE+="|$(warn_at delay.c 'if (WARN_ON_ONCE(!stream)) {')"
EXPECTED_WARN_RE+='|ODEBUG: free active .* object type: (ordsched_(delay_task|keyed_task|stream_item|seq_item|job)|work_struct) '
# A pipeline job, keyed task or sequencer item queued again while in
# flight (promise and contract suites).
EXPECTED_WARN_RE+='|ODEBUG: activate active .* object type: ordsched_(job|keyed_task|seq_item) '
# A destroy waiting for a ticket never handed in, on purpose (promise suite).
EXPECTED_WARN_RE+='|destroying sequencer promise: waiting [0-9]+ s for ticket 7770000077,'

# The kernels a run may boot, in the order "all" boots them: Debian's stock
# kernels (headers and image unpacked by kernel-fetch.sh) and the debug
# kernel the project builds (debug-kernel.sh). debug-rt, the debug kernel
# with PREEMPT_RT, is not in "all": on a slower CI host its build and
# tests took about 35 minutes, which put a full CI run at the 90-minute
# limit. Name it (-k debug-rt) to run it.
ALL_KERNELS="6.1 6.12 6.12-rt 6.1-rt debug"
KNOWN_KERNELS="$ALL_KERNELS debug-rt"

declare -A K_KVER=() K_KDIR=() K_IMAGE=() K_APPEND=()

kernel_var() { # kernel_var KERNEL NAME: NAME is KVER, KDIR, IMAGE or APPEND
	local -n var=K_$2
	echo "${var[$1]:-}"
}

# build_debug_kernel debug|debug-rt: debug-kernel.sh's build (or its cached
# result) of that kernel; prints KDIR=, IMAGE=, KVER=.
build_debug_kernel() {
	"$here/debug-kernel.sh" "$build" "$([ "$1" = debug-rt ] && echo rt)"
}

prepare_kernel() { # prepare_kernel KERNEL: fills K_{KVER,KDIR,IMAGE,APPEND}
	local k=$1 out
	case $k in
	debug | debug-rt)
		step "$k kernel"
		out=$(build_debug_kernel "$k") || return 1
		K_APPEND[$k]="panic_on_warn=1"
		;;
	*)
		out=$("$here/kernel-fetch.sh" "$build" "$k") || return 1
		K_APPEND[$k]=
		;;
	esac
	K_KDIR[$k]=$(sed -n 's/^KDIR=//p' <<<"$out")
	K_IMAGE[$k]=$(sed -n 's/^IMAGE=//p' <<<"$out")
	K_KVER[$k]=$(sed -n 's/^KVER=//p' <<<"$out")
}

build_userspace() {
	local src ksft=$build/kselftest
	src=$("$here/kernel-source.sh" "$build") || return 1
	mkdir -p "$ksft"
	cp "$src"/tools/testing/selftests/{kselftest_harness.h,kselftest.h} "$ksft/"
	rm -rf "$work/user" && mkdir -p "$work/user"
	make -s -C "$top/selftests/ordsched" OUTPUT="$work/user/selftests" \
		KSFT_DIR="$ksft" LDFLAGS=-static >&2 || return 1
	make -s -C "$top/userspace" OUTPUT="$work/user" LDFLAGS=-static >&2
}

# Copy the module sources aside: one tree builds against one kernel.
copy_sources() { # copy_sources DEST PATH...
	local dest=$1
	shift
	rm -rf "$dest" && mkdir -p "$dest"
	tar -C "$top" --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' \
		--exclude='*.mod' --exclude='*.mod.c' --exclude='.*.d' \
		-cf - "$@" | tar -C "$dest" -xf -
}

build_modules() { # build_modules KERNEL
	local k=$1 kdir
	kdir=$(kernel_var "$k" KDIR)
	copy_sources "$work/$k/mod" Kbuild module uapi || return 1
	make -s -C "$kdir" M="$work/$k/mod" W=1 KCFLAGS=-Werror modules >&2 || return 1
	copy_sources "$work/$k/faulty" selftests/qemu/faulty || return 1
	make -s -C "$kdir" M="$work/$k/faulty/selftests/qemu/faulty" \
		W=1 KCFLAGS=-Werror modules >&2
}

build_initrd() { # build_initrd KERNEL
	local k=$1 root=$work/$1/initrd
	rm -rf "$root"
	mkdir -p "$root"/{bin,dev,proc,sys,tmp,lib/ordsched,usr/bin}
	mkdir -p "$root/usr/lib/ordsched/selftests"
	cp /bin/busybox "$root/bin/busybox"
	mknod -m 600 "$root/dev/console" c 5 1
	cp "$here/init.sh" "$root/init"
	cp "$here/demo.sh" "$root/usr/lib/ordsched/demo.sh"
	cp "$here/bench.sh" "$root/usr/lib/ordsched/bench.sh"
	cp "$work/$k"/mod/*.ko "$work/$k"/faulty/selftests/qemu/faulty/*.ko \
		"$root/lib/ordsched/" || return 1
	cp "$work/user/selftests"/* "$root/usr/lib/ordsched/selftests/" || return 1
	cp "$top/selftests/ordsched/settings" "$root/usr/lib/ordsched/selftests/" ||
		return 1
	# What the guest must run: a program missing from it is a failure.
	make -s --no-print-directory -C "$top/selftests/ordsched" list \
		> "$root/usr/lib/ordsched/selftests.list" || return 1
	find "$work/user" -maxdepth 1 -type f -perm -u+x \
		-exec cp {} "$root/usr/bin/" \;
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) \
		> "$work/$k/initrd.gz"
}

# boot KERNEL MODE TIMEOUT [LABEL [nowarnpanic] [APPEND...]]: results in
# $work/logs/LABEL. nowarnpanic leaves out the kernel's own extra options
# (panic_on_warn on the debug kernel), for boots that warn on purpose.
boot() {
	local k=$1 mode=$2 limit=$3 label=${4:-$1/$2}
	local out=$work/logs/$label kappend attempt t0=$SECONDS
	shift 4 2>/dev/null || shift $#
	kappend=$(kernel_var "$k" APPEND)
	if [ "${1:-}" = nowarnpanic ]; then
		kappend=
		shift
	fi
	# The debug kernels are built with kmemleak: its leak check must run.
	case $k in debug*) kappend+=" ordsched_kmemleak=required" ;; esac
	rm -rf "$out" && mkdir -p "$out"
	for attempt in 1 2; do
		timeout --foreground -k 10 "$limit" qemu-system-x86_64 \
			-accel tcg -cpu max -smp 2 -m 2G -nodefaults \
			-display none -no-reboot -monitor none \
			-kernel "$(kernel_var "$k" IMAGE)" \
			-initrd "$work/$k/initrd.gz" \
			-serial "file:$out/console.raw" \
			-serial "file:$out/results.raw" \
			-append "console=ttyS0 panic=-1 oops=panic log_buf_len=4M \
$kappend ordsched_mode=$mode $*" \
			</dev/null >"$out/qemu.log" 2>&1
		echo $? > "$out/qemu.status"
		# Without NULs: grep would call the log binary and print no
		# line of it.
		tr -d '\r\000' < "$out/console.raw" > "$out/console.log"
		# The kernel died before /init said a word: nothing of
		# ordsched had run (init loads it). Seen once: an int3 oops
		# in the stock 6.12 kernel's own boot under TCG, while it
		# patched a static key. Boot once more, and keep the log.
		if [ "$attempt" = 2 ] || [ -s "$out/results.raw" ] ||
			! grep -qE "$SPLAT_RE" "$out/console.log"; then
			break
		fi
		mv "$out/console.log" "$out/console.boot-crash.log"
		echo "# $label: the kernel crashed before /init ran ($(grep -m1 -E "$SPLAT_RE" "$out/console.boot-crash.log" | cut -c1-100)); booting again" >&2
	done
	tr -d '\r' < "$out/results.raw" > "$out/results.log"
	echo $((SECONDS - t0)) > "$out/seconds"
	[ "$verbose" = 1 ] && sed "s|^|[$label] |" "$out/console.log" >&2
	return 0
}

# evaluate LABEL [EXPECTED_RE]: turn what the guest said into $out/verdict,
# one result a line, "ok NAME", "not ok NAME # why" or "skip NAME # why".
# Splat lines matching EXPECTED_RE are expected, and at least one must be
# there.
evaluate() {
	local out=$work/logs/$1 expected=${2:-} line name prefix why ended=0 status
	local ran=0 taint= re n=0
	local -a want=()
	local -A planned=() seen=() pcount=() count=()
	local -a order=()
	: > "$out/verdict"
	: > "$out/diag"
	while IFS= read -r line; do
		case "$line" in
		"plan-count "*)
			set -- $line
			pcount[$2]=$3
			;;
		"plan "*)
			name=${line#plan }
			planned[$name]=1
			order+=("$name")
			;;
		"ok "* | "not ok "* | "skip "*)
			name=${line#not }
			name=${name#ok }
			name=${name#skip }
			name=${name%% *}
			# Counted by number, a repeated result could stand in
			# for a missing one.
			[ -z "${seen[$name]:-}" ] ||
				echo "not ok $name # reported twice" >> "$out/verdict"
			seen[$name]=1
			# In-kernel cases (ktest.SUITE.CASE) that ran, not skipped.
			case "$name" in
			ktest.*.*) [ "${line#skip }" != "$line" ] || ran=$((ran + 1)) ;;
			esac
			if [ -z "${planned[$name]:-}" ]; then
				prefix=${name%%.*}
				count[$prefix]=$((${count[$prefix]:-0} + 1))
			fi
			echo "$line" >> "$out/verdict"
			;;
		"log "*) echo "${line#log }" >> "$out/diag" ;;
		"taint "*) taint=${line#taint } ;;
		"expect-splat "*) want+=("${line#expect-splat }") ;;
		END) ended=1 ;;
		esac
	done < "$out/results.log"

	for name in "${order[@]}"; do
		[ -n "${seen[$name]:-}" ] ||
			echo "not ok $name # planned, never reported" >> "$out/verdict"
	done
	for prefix in "${!pcount[@]}"; do
		[ "${count[$prefix]:-0}" = "${pcount[$prefix]}" ] ||
			echo "not ok $prefix.plan # ${pcount[$prefix]} planned, ${count[$prefix]:-0} reported" >> "$out/verdict"
	done

	status=$(cat "$out/qemu.status")
	if [ $ended = 1 ]; then
		echo "ok guest.finished" >> "$out/verdict"
	elif [ "$status" = 124 ] || [ "$status" = 137 ]; then
		echo "not ok guest.finished # timed out: the guest hung" >> "$out/verdict"
	else
		echo "not ok guest.finished # the guest stopped early (qemu exit $status): crash?" >> "$out/verdict"
	fi

	LC_ALL=C grep -anE "$SPLAT_RE" "$out/console.log" > "$out/splats"
	# Each case that warns on purpose names its own report: one line of
	# the boot's console must match it (a warning that stopped coming
	# would otherwise hide behind another case's). The console, not the
	# splats alone: a WARN's message is on a line of its own, and tells
	# apart two warnings of one function. Not the lines that name the
	# expectations, which would match themselves.
	LC_ALL=C grep -av ' expect-splat ' "$out/console.log" > "$out/reports"
	for line in "${want[@]}"; do
		name=${line%% *} re=${line#* } n=$((n + 1))
		if LC_ALL=C grep -qaE -- "$re" "$out/reports"; then
			echo "ok $name.splat$n" >> "$out/verdict"
		else
			echo "not ok $name.splat$n # no console line matches: $re" >> "$out/verdict"
		fi
	done
	rm -f "$out/reports"
	# Expect the warnings only if a case that warns on purpose ran (a
	# filter may leave none, or only cases this kernel skips).
	if [ -n "$expected" ] && [ "$ran" -gt 0 ]; then
		if LC_ALL=C grep -qaE "$expected" "$out/splats"; then
			echo "ok guest.expected_warning" >> "$out/verdict"
		else
			echo "not ok guest.expected_warning # the warning did not come" >> "$out/verdict"
		fi
		# An expected line goes, and with it, for a WARNING or ODEBUG
		# line, the next Call Trace: line, its own (an ODEBUG line and
		# its WARNING share one); an expected line of the module's own
		# (pr_warn) has no trace to excuse. Any other trace stays, a
		# splat.
		EXPECTED="$expected" LC_ALL=C awk '
			$0 ~ ENVIRON["EXPECTED"] {
				if ($0 ~ /WARNING:|ODEBUG:/)
					traces = 1
				next
			}
			/Call Trace:/ && traces > 0 { traces--; next }
			{ print }' "$out/splats" > "$out/splats.unexpected"
		mv "$out/splats.unexpected" "$out/splats"
	fi
	taint_verdict "$taint" "$expected" $ended >> "$out/verdict"
	if [ -s "$out/splats" ]; then
		why=$(head -n1 "$out/splats" | cut -d: -f2- | sed 's/^\[[ 0-9.]*\] //')
		echo "not ok guest.kernel_log # $(wc -l < "$out/splats") splat lines, first: $why" >> "$out/verdict"
	else
		echo "ok guest.kernel_log" >> "$out/verdict"
	fi
}

# taint_verdict "NOW BOOT" EXPECTED_RE ENDED: the guest.taint result. The
# taint flags the kernel gained while /init ran, other than O and E (an
# out-of-tree, unsigned module: ours), N (a test module: the in-kernel
# tests') and, in a boot that warns on purpose, W, fail the boot: a
# backstop for a splat that the console lost or that SPLAT_RE does not
# know. Nothing when the guest did not finish (guest.finished says so).
taint_verdict() {
	local now=${1% *} boot=${1#* } allowed letters=PFSRMBUDAWCIOELKXTN i gained
	local flags=
	if [ -z "$1" ]; then
		[ "$3" = 1 ] && echo "not ok guest.taint # the guest did not report its taint flags"
		return 0
	fi
	allowed=$(((1 << 12) | (1 << 13) | (1 << 18)))
	[ -n "$2" ] && allowed=$((allowed | (1 << 9)))
	gained=$((now & ~boot & ~allowed))
	if [ "$gained" = 0 ]; then
		echo "ok guest.taint"
		return 0
	fi
	for ((i = 0; i < ${#letters}; i++)); do
		((gained & (1 << i))) && flags+=${letters:i:1}
	done
	echo "not ok guest.taint # the kernel gained taint ${flags:-?} ($gained; $now now, $boot at boot)"
}

result() { # result STATUS NAME [# why]
	case "$1" in
	ok) PASSED=$((PASSED + 1)) ;;
	skip) SKIPPED=$((SKIPPED + 1)) ;;
	*) FAILED=$((FAILED + 1)) ;;
	esac
	echo "$*"
}

# timing LABEL: a comment line saying where a boot's time went: its wall
# time, the kernel's boot, and the five slowest tests that took a second
# or more (init.sh's "time" lines).
timing() {
	local out=$work/logs/$1
	awk -v label="$1" -v wall="$(cat "$out/seconds" 2>/dev/null)" '
		$1 == "time" && $2 == "boot" { boot = $3; next }
		$1 == "time" && $3 >= 1 { t[$2] = $3 }
		END {
			line = "# " label ": " wall " s, the kernel booted in " boot " s"
			for (i = 0; i < 5; i++) {
				best = ""
				for (n in t)
					if (best == "" || t[n] + 0 > t[best] + 0)
						best = n
				if (best == "")
					break
				line = line (i ? ", " : "; slowest: ") best " " t[best] " s"
				delete t[best]
			}
			print line
		}' "$out/results.log"
}

# skip_expected KERNEL NAME REASON: is a skip of NAME on KERNEL, for
# REASON, listed in $here/skips? SKIP_KIND is then the line's fourth
# field ("race", or empty).
skip_expected() {
	local kglob nglob rglob kind
	while IFS=$'\t' read -r kglob nglob rglob kind; do
		case $kglob in '' | '#'*) continue ;; esac
		# shellcheck disable=SC2053 # globs, on purpose
		if [[ $1 == $kglob && $2 == $nglob && $3 == $rglob ]]; then
			SKIP_KIND=$kind
			return 0
		fi
	done < "$here/skips"
	return 1
}

# races_ran: one result per case skipped for its race on every kernel
# that ran it in this run (no kernel passed it): a case whose race never
# came proved nothing, and a probe that stops catching its moment would
# otherwise skip for good, unnoticed.
races_ran() {
	local name
	for name in "${!RACED[@]}"; do
		[ -n "${RAN[$name]:-}" ] && continue
		result "not ok" "$name # skipped for its race on every kernel that ran it (${RACED[$name]% })"
	done
}

# judge KERNEL LABEL [EXPECTED_RE]: print every result of a boot, with
# diagnostics (guest log, splats, console tail) when anything failed, and
# where its time went.
judge() {
	local k=$1 label=$2 out=$work/logs/$2 line st rest why bad=0 first booted
	evaluate "$label" "${3:-}"
	timing "$label"
	# The kernel that booted is the one the results are labelled with
	# (a metapackage that moved on would otherwise pass for the other).
	booted=$(sed -n 's/^log kernel \([^,]*\),.*/\1/p' "$out/results.log" | head -n 1)
	if [ -n "${K_KVER[$k]:-}" ] && [ -n "$booted" ]; then
		if [ "$booted" = "${K_KVER[$k]}" ]; then
			echo "ok guest.kernel" >> "$out/verdict"
		else
			echo "not ok guest.kernel # booted $booted, built for ${K_KVER[$k]}" >> "$out/verdict"
		fi
	fi
	while IFS= read -r line; do
		case "$line" in
		"not ok "*) st="not ok" rest=${line#not ok } bad=1 ;;
		"ok "*)
			st=ok rest=${line#ok }
			RAN[${rest%% *}]=1
			;;
		"skip "*)
			st=skip rest=${line#skip }
			why=
			[[ $rest == *" # "* ]] && why=${rest#*" # "}
			if ! skip_expected "$k" "${rest%% *}" "$why"; then
				st="not ok" bad=1
				rest="${rest%% *} # skipped, and not a skip listed in selftests/qemu/skips:${rest#"${rest%% *}"}"
			elif [ "$SKIP_KIND" = race ]; then
				RACED[${rest%% *}]+="$k "
			fi
			;;
		esac
		result "$st" "$k: $rest"
	done < "$out/verdict"
	# The first splat's report (RIP, call trace) comes first: a reader
	# who sees only the head of the output still sees what crashed.
	if [ $bad = 1 ] && [ -s "$out/splats" ]; then
		first=$(head -n1 "$out/splats" | cut -d: -f1)
		echo "# the first kernel splat, from line $first of $out/console.log:"
		tail -n "+$first" "$out/console.log" | head -n 60 | awk '{ print "#   " $0 }'
		echo "# every splat line:"
		head -n 40 "$out/splats" | sed 's/^/#   /'
	fi
	if [ "$mode" = run ] || [ $bad = 1 ]; then
		sed 's/^/# /' "$out/diag"
	fi
	[ $bad = 1 ] || return 0
	echo "# last lines of $out/console.log:"
	tail -n 60 "$out/console.log" | awk '{ print "#   " $0 }'
}

# The self-check: boot once with every fault the kernel can report (a
# faulty module loaded for each), and demand that the judge finds each
# one's report: a failed run that names one fault proves nothing of the
# others. Without panic_on_warn, so that the boot goes on past the WARN.
# selfcheck_caught FAULT PATTERN: one result, the fault's report in the
# boot's verdict or its splat lines.
selfcheck_caught() {
	local out=$work/logs/$k/selfcheck
	if grep -qE "$2" "$out/verdict" "$out/splats"; then
		result ok "$k: selfcheck.$1 # caught: $(grep -h -m1 -E "$2" "$out/verdict" "$out/splats" | head -n1 | cut -c1-120)"
	else
		result "not ok" "$k: selfcheck.$1 # a faulty module went unnoticed"
		bad=1
	fi
}

selfcheck() { # selfcheck KERNEL
	local k=$1 faults=warn,stuck,hang bad=0 label=$1/selfcheck
	step "$k kernel: harness self-check (each fault must be caught)"
	[ "${k%-rt}" = debug ] && faults=warn,leak,uaf,odebug,nokmemleak,stuck,hang
	boot "$k" selfcheck 180 "$label" nowarnpanic "ordsched_fault=$faults"
	evaluate "$label"
	timing "$label"
	selfcheck_caught judge '^not ok guest.kernel_log'
	selfcheck_caught warn 'WARNING:.* ordsched_faulty_init\+'
	selfcheck_caught hang 'blocked for more than|^not ok guest.finished # timed out'
	selfcheck_caught stuck '^not ok faulty.stuck # exit 124'
	selfcheck_caught taint '^not ok guest.taint # the kernel gained taint [A-Z]*W'
	if [ "${k%-rt}" = debug ]; then
		selfcheck_caught leak '^not ok kmemleak.clean$'
		selfcheck_caught uaf 'KASAN:'
		selfcheck_caught odebug '^not ok debug_objects.count # 1 debug-object'
		selfcheck_caught nokmemleak '^not ok kmemleak.off # no kmemleak'
	fi
	[ $bad = 0 ] || sed 's/^/#   /' "$work/logs/$label/verdict"
}

summary() {
	races_ran
	echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
	[ "$FAILED" = 0 ] && [ "$PASSED" -gt 0 ]
}
