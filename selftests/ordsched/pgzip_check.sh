#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ordsched-pgzip's answer to each kind of failure, on the host: the
# program built over pgzip_fake.c, a stand-in for libordsched whose calls
# fail on demand (PGZIP_FAKE=CALL:N). A failed call of the library names
# the device and the call, not INPUT; OUTPUT is left as it was, with no
# temporary file beside it; a mode that the file system refuses to set is
# a warning. Prints "ok"/"not ok" lines; exits 1 if one failed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failed=0

if ! make -s -C "$here" OUTPUT="$dir" "$dir/pgzip_fake" >"$dir/log" 2>&1; then
	echo "not ok pgzip_check.build"
	sed 's/^/#   /' "$dir/log"
	exit 1
fi
pgzip=$dir/pgzip_fake
# 3.1 MB in 48 chunks of 64 KiB, on 4 threads.
head -c 2300000 /dev/urandom | base64 > "$dir/in"

# case NAME FAKE STATUS STDERR-REGEX: run with PGZIP_FAKE=FAKE into an
# OUTPUT that exists; check the status and the message (no message for an
# empty regex), and that OUTPUT holds INPUT compressed (status 0) or what
# it held (status 1), alone.
case_() {
	local name=$1 fake=$2 want=$3 re=$4 st why=
	rm -rf "$dir/o" && mkdir "$dir/o"
	echo before > "$dir/o/out.gz"
	PGZIP_FAKE=$fake "$pgzip" -j 4 -b 64 "$dir/in" "$dir/o/out.gz" \
		2> "$dir/err"
	st=$?
	if [ $st != "$want" ]; then
		why="exit $st, expected $want"
	elif [ -z "$re" ] && [ -s "$dir/err" ]; then
		why="a message"
	elif [ -n "$re" ] && { ! grep -Eq "$re" "$dir/err" ||
			       [ "$(wc -l < "$dir/err")" != 1 ]; }; then
		why="message not one line matching /$re/"
	elif [ "$(ls -A "$dir/o")" != out.gz ]; then
		why="left beside OUTPUT: $(ls -A "$dir/o" | tr '\n' ' ')"
	elif [ "$want" = 0 ] && ! gzip -dc "$dir/o/out.gz" | cmp -s - "$dir/in"; then
		why="OUTPUT is not INPUT compressed"
	elif [ "$want" = 1 ] && [ "$(cat "$dir/o/out.gz")" != before ]; then
		why="OUTPUT changed"
	fi
	if [ -z "$why" ]; then
		echo "ok pgzip_check.$name"
	else
		echo "not ok pgzip_check.$name # $why"
		sed 's/^/#   stderr: /' "$dir/err"
		failed=1
	fi
}

case_ runs '' 0 ''
case_ take_fails take:5 1 \
	'^ordsched-pgzip: /dev/ordsched: taking a ticket: Input/output error$'
case_ wait_fails wait:3 1 \
	'^ordsched-pgzip: /dev/ordsched: chunk [0-9]+: waiting for its turn: Input/output error$'
case_ complete_fails complete:3 1 \
	'^ordsched-pgzip: /dev/ordsched: chunk [0-9]+: completing its ticket: Input/output error$'
case_ mode_refused_warns fchmod:1 0 \
	"^ordsched-pgzip: warning: $dir/o/out.gz: cannot set its mode to 0[0-7]{3}: Operation not permitted\$"
# check NAME WHY: "ok" if WHY is empty, else "not ok" with WHY and stderr.
check() {
	if [ -z "$2" ]; then
		echo "ok pgzip_check.$1"
	else
		echo "not ok pgzip_check.$1 # $2"
		sed 's/^/#   stderr: /' "$dir/err"
		failed=1
	fi
}

# INPUT "-" is standard input, as for gzip: a regular file redirected.
rm -rf "$dir/o" && mkdir "$dir/o"
why=
"$pgzip" -j 4 -b 64 - "$dir/o/out.gz" < "$dir/in" 2> "$dir/err" ||
	why="exit $?"
[ -z "$why" ] && ! gzip -dc "$dir/o/out.gz" | cmp -s - "$dir/in" &&
	why="OUTPUT is not INPUT compressed"
check stdin_file "$why"

# From standard input's offset on, as gzip: a caller read a header first.
why=
{ head -c 1000 > /dev/null; "$pgzip" -j 4 -b 64 - "$dir/o/rest.gz"; } \
	< "$dir/in" 2> "$dir/err" || why="exit $?"
[ -z "$why" ] && ! gzip -dc "$dir/o/rest.gz" |
	cmp -s - <(tail -c +1001 "$dir/in") && why="not INPUT from byte 1000 on"
check stdin_from_its_offset "$why"

# A pipe has no size to cut into chunks: refused, naming standard input.
why=
cat "$dir/in" | "$pgzip" -b 64 - "$dir/o/pipe.gz" 2> "$dir/err" &&
	why="exit 0"
grep -q '^ordsched-pgzip: standard input: not a regular file' "$dir/err" ||
	why="${why:-message does not name standard input}"
[ -e "$dir/o/pipe.gz" ] && why="${why:-OUTPUT created}"
check stdin_pipe_refused "$why"

# -j's default: the CPUs the process may run on, not the online ones.
why=
taskset -c 0 "$pgzip" -v -b 64 "$dir/in" "$dir/o/one.gz" 2> "$dir/err" ||
	why="exit $?"
grep -q ', 1 threads,' "$dir/err" || why="${why:-not 1 thread on 1 CPU}"
check threads_follow_affinity "$why"
exit $failed
