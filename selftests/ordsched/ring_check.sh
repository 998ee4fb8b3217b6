#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The shared ring's protocol model check, on the host (no kernel needed):
# ring_check over every configuration, then each of its mutants, which must
# make some configuration fail; then lib_wait_replay. Prints TAP-style
# "ok"/"not ok" lines (the ones CI counts); exits non-zero if anything
# failed.
#
# usage: ring_check.sh [RING_CHECK_BINARY]   (default: build it in a temp dir)
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-}
tmp=
if [ -z "$bin" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	if ! make -s -C "$here" OUTPUT="$tmp" "$tmp/ring_check" >"$tmp/log" 2>&1; then
		echo "not ok ring_check.build"
		sed 's/^/#   /' "$tmp/log"
		exit 1
	fi
	bin=$tmp/ring_check
fi

failed=0
"$bin" | sed 's/^\(\(not \)\{0,1\}ok\) [0-9]* - /\1 ring_check./' || failed=1

# A mutant is caught when ring_check reports a failure (exit 1); a crash,
# a full state table (exit 2) or a pass is not.
mutants=$("$bin" -l)
# No mutant listed would make this check vacuous.
if [ "$(wc -w <<<"$mutants")" -lt 5 ]; then
	echo "not ok ring_check.mutants # $(wc -w <<<"$mutants") mutants listed, 5 at least expected"
	failed=1
fi
for m in $mutants; do
	out=$("$bin" -m "$m" 2>&1)
	st=$?
	if [ $st = 1 ]; then
		why=$(grep -m1 -A1 '^not ok' <<<"$out" | sed -n 's/^#   //p')
		echo "ok ring_check.mutant.$m # caught: $why"
	else
		echo "not ok ring_check.mutant.$m # not caught (exit $st)"
		failed=1
	fi
done

# The library's wrapper around the protocol's wait, which ring_check does
# not model: its interleavings replayed against a mock kernel.
replay=$(mktemp -d)
if make -s -C "$here" OUTPUT="$replay" "$replay/lib_wait_replay" \
	>"$replay/log" 2>&1; then
	# Without an argument it names its scenarios; each runs alone. A
	# listing that came back short would pass by running nothing.
	scenarios=$("$replay/lib_wait_replay")
	if [ "$(wc -w <<<"$scenarios")" -lt 3 ]; then
		echo "not ok lib_wait_replay.scenarios # listed: $scenarios"
		failed=1
	fi
	for s in $scenarios; do
		"$replay/lib_wait_replay" "$s" || failed=1
	done
else
	echo "not ok lib_wait_replay.build"
	sed 's/^/#   /' "$replay/log"
	failed=1
fi

# The library against a fake device: what the module does not do today
# but the headers allow (a status page that moves its words), and a
# descriptor number that changes hands in the middle of a call.
if make -s -C "$here" OUTPUT="$replay" "$replay/lib_host_test" \
	>"$replay/log" 2>&1; then
	"$replay/lib_host_test" || failed=1
else
	echo "not ok lib_host_test.build"
	sed 's/^/#   /' "$replay/log"
	failed=1
fi
rm -rf "$replay"
exit $failed
