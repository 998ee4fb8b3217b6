#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The goals of several benchmark boots side by side.

usage: bench_boots.py RESULTS_JSON...

Each RESULTS_JSON is what bench_report.py wrote for one boot. A goal is
judged within a boot, where its contenders ran interleaved; across boots
of the same build its value moves with the host and with where the guest
happened to place things (2-4x for some ratios on a shared host). So this
prints, per goal, its value in every boot, the median of those values and
how many boots met it: a goal met in one boot and missed in the next is
not met.

Exit status 1 if a file holds no goals, 2 on bad usage.
"""
import json
import statistics
import sys


def load(paths):
    """Each boot's goals by name, in the order of the first boot."""
    order, boots = [], []
    for path in paths:
        with open(path) as f:
            goals = json.load(f).get("goals", [])
        if not goals:
            print("bench_boots: no goals in %s" % path, file=sys.stderr)
            return None, None
        boots.append({g["goal"]: g for g in goals})
        order += [g["goal"] for g in goals if g["goal"] not in order]
    return order, boots


def row(name, boots):
    """One goal: its values per boot (None where absent or n/a)."""
    goals = [b.get(name) for b in boots]
    values = [g["value"] if g else None for g in goals]
    known = [v for v in values if v is not None]
    met = sum(1 for g in goals if g and g["value"] is not None and g["met"])
    med = statistics.median(known) if known else None
    return values, med, met, len(known)


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    order, boots = load(sys.argv[1:])
    if order is None:
        return 1
    n = len(boots)
    print("Goals across %d boots: the value in each boot, their median, and "
          "in how many boots the goal was met" % n)
    head = " ".join("%6s" % ("boot%d" % (i + 1)) for i in range(n))
    print("  %-70s %s %6s %s" % ("goal", head, "median", "met"))
    for name in order:
        values, med, met, known = row(name, boots)
        cells = " ".join("%6s" % ("n/a" if v is None else "%.2f" % v)
                         for v in values)
        print("  %-70s %s %6s %d/%d" % (name, cells,
                                        "n/a" if med is None else "%.2f" % med,
                                        met, known))
    return 0


if __name__ == "__main__":
    sys.exit(main())
