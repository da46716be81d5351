#!/usr/bin/env python3
"""Draw the benchmark's keys/s against n (both axes log scale) as a PNG.

    python3 ch12/extras/plot_bench.py bitonic_bench.csv bitonic_bench.png

Needs matplotlib. Without it, it says how to get it and exits with 77
(the "skipped" status the rest of the companion uses).
"""
import csv
import sys


def read(path):
    series, title, lines = {}, "", []
    with open(path, newline="") as f:
        for line in f:
            if line.startswith("#"):
                title = title or line[1:].strip()  # "# device; date"
            else:
                lines.append(line)
    for row in csv.DictReader(lines):
        series.setdefault(row["variant"], []).append((int(row["n"]), float(row["gkeys_per_s"])))
    return series, title


def main(argv):
    if len(argv) != 3:
        print("usage: plot_bench.py BENCH.csv OUT.png", file=sys.stderr)
        return 2
    try:
        series, title = read(argv[1])
    except (OSError, KeyError, ValueError) as e:
        print("plot_bench.py: cannot read %s: %s" % (argv[1], e), file=sys.stderr)
        return 1
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_bench.py: matplotlib is not installed, so no plot was drawn. Get it with\n"
              "  python3 -m pip install matplotlib     (or: apt-get install python3-matplotlib)\n"
              "and run this again; the numbers are all in %s." % argv[1], file=sys.stderr)
        return 77
    fig, ax = plt.subplots(figsize=(8, 5))
    for name, points in series.items():
        points.sort()
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=name)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("n (keys)")
    ax.set_ylabel("Gkeys/s (median)")
    ax.set_title("Sorting uint32 keys: " + title, fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(argv[2], dpi=120)
    print("wrote %s" % argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
