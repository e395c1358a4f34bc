#!/usr/bin/env python3
"""Table of bench/run.sh results: summarize.py RESULTS_DIR SIZE…"""
import json
import os
import statistics
import sys


def load(res, name, n):
    path = os.path.join(res, f"{name}-{n}.json")
    if not os.path.exists(path):
        return None
    r = json.load(open(path))["results"][0]
    rss_path = os.path.join(res, f"{name}-{n}.rss")
    rss = None
    if os.path.exists(rss_path):
        try:
            rss = int(open(rss_path).read().split()[-1]) / 1024
        except (ValueError, IndexError):
            pass
    return {
        "wall": statistics.median(r["times"]),
        "min": min(r["times"]),
        "max": max(r["times"]),
        "cpu": r["user"] + r["system"],
        "rss": rss,
    }


def main():
    res, sizes = sys.argv[1], sys.argv[2:]
    print("| posts | tool | median wall (s) | min–max (s) | CPU (s) | peak RSS (MB) | vs sheaf |")
    print("|---|---|---|---|---|---|---|")
    for n in sizes:
        base = load(res, "sheaf", n)
        for name in ["sheaf", "sheaf1", "floor", "hugo"]:
            r = load(res, name, n)
            if not r:
                continue
            ratio = f"{r['wall'] / base['wall']:.1f}×" if base else "–"
            rss = f"{r['rss']:.0f}" if r["rss"] is not None else "–"
            label = {"sheaf1": "sheaf -j1"}.get(name, name)
            print(f"| {n} | {label} | {r['wall']:.3f} | {r['min']:.3f}–{r['max']:.3f} "
                  f"| {r['cpu']:.2f} | {rss} | {ratio} |")
    for n in sizes:
        p = os.path.join(res, f"sheaf-{n}.stats")
        if os.path.exists(p):
            print(f"\n`sheaf build --stats` at {n} posts (second build, nothing changed):\n")
            print("```\n" + open(p).read().strip() + "\n```")


if __name__ == "__main__":
    main()
