#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The main job, run in the guest by "run.sh run": load ordsched and put it
# to work. Leaves its exit status in /tmp/demo.status.
status=1
trap 'echo $status > /tmp/demo.status' EXIT

set -e
insmod /lib/ordsched/ordsched.ko
ls -l /dev/ordsched
rmmod ordsched
status=0
