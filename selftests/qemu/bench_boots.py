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
not met. Then the controls (bench_report.py's A/A ratios, the same
contender twice: what the noise alone gives; and the futex ring with the
ownership record against the futex ring: what that write costs), and the
ratios that carry no goal of their own (the delays part's, met counted
only for those that are an issue's targets). Last, for every goal and control
that lists its repetitions' ratios, those of all boots pooled: their
median and a 95 % bootstrap interval of that median (resampled with a
fixed seed, so the same files print the same interval). An interval that
holds the target means the boots cannot tell whether the goal is met.

Exit status 1 if a file holds no goals, controls or ratios, 2 on bad
usage.
"""
import json
import random
import statistics
import sys

RESAMPLES = 2000


def load(paths):
    """
    Each boot's goals by name, in the order of the first boot; its
    controls (bench_report.py's A/A ratios) and its other ratios (the
    delays part's), likewise: three (order, boots) pairs, or None if a
    file has none of them (a run that measured nothing to compare).
    """
    groups = {k: ([], []) for k in ("goals", "controls", "delays_ratios")}
    for path in paths:
        with open(path) as f:
            report = json.load(f)
        if not any(report.get(k) for k in groups):
            print("bench_boots: no goals, controls or ratios in %s" % path,
                  file=sys.stderr)
            return None
        for k, (order, boots) in groups.items():
            index(report.get(k, []), "control" if k == "controls" else "goal",
                  order, boots)
    return groups["goals"], groups["controls"], groups["delays_ratios"]


def index(items, key, order, boots):
    """One boot's @items by their @key into @boots; new names onto @order."""
    boots.append({i[key]: i for i in items})
    order += [i[key] for i in items if i[key] not in order]


def fmt(v):
    return "n/a" if v is None else "%.2f" % v


def row(name, boots):
    """One goal or control: its values per boot (None where absent or n/a)."""
    goals = [b.get(name) for b in boots]
    values = [g["value"] if g else None for g in goals]
    known = [v for v in values if v is not None]
    met = sum(1 for g in goals
              if g and g["value"] is not None and g.get("met"))
    med = statistics.median(known) if known else None
    return values, med, met, len(known)


def cells(values):
    return " ".join("%6s" % fmt(v) for v in values)


def pooled(name, boots):
    """
    The per-repetition ratios of @name in every boot, pooled: (count,
    median, low, high), low-high the 95 % bootstrap interval of the
    median; None when no boot lists them.
    """
    reps = [r for b in boots for r in (b.get(name) or {}).get("reps", [])]
    if not reps:
        return None
    rng = random.Random(0)
    meds = sorted(statistics.median(rng.choices(reps, k=len(reps)))
                  for _ in range(RESAMPLES))
    return (len(reps), statistics.median(reps),
            meds[int(RESAMPLES * 0.025)], meds[int(RESAMPLES * 0.975) - 1])


def table(title, what, names, boots, counted):
    """
    One row per name: its value in each boot, their median, and in how
    many boots it was met, where counted(name) says that counts.
    """
    if not names:
        return
    head = " ".join("%6s" % ("boot%d" % (i + 1)) for i in range(len(boots)))
    print(title)
    print("  %-70s %s %6s %s" % (what, head, "median", "met"))
    for name in names:
        values, med, met, known = row(name, boots)
        print("  %-70s %s %6s %s" % (name, cells(values), fmt(med),
                                     "%d/%d" % (met, known)
                                     if counted(name) else "-"))


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    groups = load(sys.argv[1:])
    if groups is None:
        return 1
    (order, boots), (corder, cboots), (rorder, rboots) = groups
    n = len(boots)
    table("Goals across %d boots: the value in each boot, their median, "
          "and in how many boots the goal was met" % n, "goal", order, boots,
          lambda name: True)
    table("Ratios across %d boots, each as its name says (met: counted for "
          "an issue's targets only)" % n, "ratio", rorder, rboots,
          lambda name: any(b.get(name, {}).get("issue") for b in rboots))
    if corder:
        print("Controls (the futex ring against itself, and with the "
              "ownership record): the value in each boot and their median")
        for name in corder:
            values, med, _, _ = row(name, cboots)
            print("  %-70s %s %6s" % (name, cells(values), fmt(med)))
    rows = [(name, pooled(name, boots)) for name in order] + \
        [(name, pooled(name, cboots)) for name in corder]
    rows = [(name, p) for name, p in rows if p]
    if rows:
        print("Pooled over the boots: the median of every repetition's "
              "ratio, its 95 % interval, repetitions")
        for name, (n, med, low, high) in rows:
            print("  %-70s %6.2f  %.2f-%.2f %4d" % (name, med, low, high, n))
    return 0


if __name__ == "__main__":
    sys.exit(main())
