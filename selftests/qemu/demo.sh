#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The main job, run in the guest by "run.sh run" (and as a test by "run.sh
# check"): load ordsched and put it to real ordered work, checking every
# result against a standard tool. Leaves its exit status in
# /tmp/demo.status.
status=1
trap 'echo $status > /tmp/demo.status' EXIT
set -e

DBG=/sys/kernel/debug
MODDIR=/lib/ordsched

echo "== loading ordsched"
insmod $MODDIR/ordsched.ko
ls -l /dev/ordsched

# In-kernel: CRC32 of a stream in parallel blocks, combined in order by the
# ordsched pipeline; gzip's trailer holds the CRC32 of the same bytes.
echo "== in-kernel pipeline: CRC32 of 8 MiB in 4 KiB blocks, parallel then in order"
insmod $MODDIR/ordsched_example.ko block_size=4096
dd if=/dev/urandom of=/tmp/input bs=65536 count=128 2>/dev/null
EVENTS=$DBG/tracing/events/ordsched
# Without recording task names, enabling our events patches only our own
# tracepoint sites: recording them registers probes on sched_wakeup, and
# the patching of that site in try_to_wake_up() back and forth is where
# a 6.12-rt guest under TCG twice stopped on a stale int3 (RIP
# ttwu_do_activate, an idle CPU's wake-up, the site already restored).
[ -w $DBG/tracing/options/record-cmd ] &&
	echo 0 > $DBG/tracing/options/record-cmd
[ -w $EVENTS/enable ] && echo 1 > $EVENTS/enable
cat /tmp/input > $DBG/ordsched_example/data
result=$(cat $DBG/ordsched_example/result)
if [ -w $EVENTS/enable ]; then
	echo 0 > $EVENTS/enable
	# One ordsched_seq_run event per block's serial step, no more.
	runs=$(grep -c ' ordsched_seq_run: ' $DBG/tracing/trace)
	blocks=${result#*blocks }
	echo "tracepoints: $runs ordsched_seq_run events for ${blocks%% *} blocks"
	[ "$runs" = "${blocks%% *}" ]
	echo > $DBG/tracing/trace
fi
echo "ordsched_example: $result"
ooo=${result#*out_of_order }
echo "${ooo%% *} blocks finished their parallel step out of order and were still folded in order"
head -n 3 $DBG/ordsched_example/log
echo "..."
tail -n 1 $DBG/ordsched_example/log
got=${result##*crc32 }
want=$(gzip -c /tmp/input | tail -c 8 | head -c 4 | od -An -tx4 | tr -d ' \n')
echo "gzip says crc32 $want"
[ "$got" = "$want" ]
echo "sequencer statistics:"
cat $DBG/ordsched/seq/pcrc.*/stats | tr '\n' ' '
echo
rmmod ordsched_example
rm -f /tmp/input

# Userspace: gzip a file in parallel chunks through /dev/ordsched, the
# members written in input order; busybox gunzip must give the input back.
echo "== /dev/ordsched: ordsched-pgzip, 4 threads, 128 KiB chunks"
{ seq 1 300000; dd if=/dev/urandom bs=65536 count=16 2>/dev/null; } > /tmp/pgzip.in
ordsched-pgzip -v -j 4 -b 128 /tmp/pgzip.in /tmp/pgzip.gz
gunzip -c /tmp/pgzip.gz > /tmp/pgzip.out
cmp /tmp/pgzip.in /tmp/pgzip.out
echo "gunzip gives back all $(wc -c < /tmp/pgzip.in) bytes from $(wc -c < /tmp/pgzip.gz)"
# Its waits have no deadline (a pager may hold its output): bound it here.
timeout 60 ordschedctl demo -t 4 -n 8
rm -f /tmp/pgzip.in /tmp/pgzip.gz /tmp/pgzip.out

echo "== unloading ordsched"
rmmod ordsched
status=0
