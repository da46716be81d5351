#!/usr/bin/env python3
"""Draw the benchmark's CSV as a PNG: keys/s against n for single arrays, and
keys/s against the array length for the batched section (one panel per total
and kind), every axis log scale. A bitonic design's floor (its plan's trips
at the measured copy bandwidth, as a rate) is its dashed line.

    python3 ch12/extras/sort/plot_bench.py bitonic_bench.csv bitonic_bench.png

Needs matplotlib. Without it, it says how to get it and exits with 77
(the "skipped" status the rest of the companion uses). OUT.png is written
through common/write_policy.py, decided before anything is read: never the
CSV itself, a file git tracks (a source, a golden), or a folder (exit 2);
the PNG goes to a temporary file in the same folder, renamed over OUT.png at
the end (its mode kept): a run that fails or is interrupted leaves an
existing OUT.png as it was, and no file of yours is taken for the temporary one.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "common"))
import supervisor  # noqa: E402  (first: the signal handlers are in place before any other import)
import csv

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "common"))
import arguments  # noqa: E402
import write_policy  # noqa: E402


def read(path):
    rows, title, lines = [], "", []
    with open(path, newline="") as f:
        for line in f:
            if line.startswith("#"):
                title = title or line[1:].strip()  # "# device; date"
            else:
                lines.append(line)
    for row in csv.DictReader(lines):
        rows.append(row)
    return rows, title


def main(argv):
    ap = arguments.Parser(prog="plot_bench.py", usage="%(prog)s BENCH.csv OUT.png")
    ap.add_argument("csv", type=arguments.path)
    ap.add_argument("png", type=arguments.path)
    a = ap.parse_args(argv[1:])
    try:
        target = write_policy.check(a.png, inputs=[a.csv], what="plot")
    except write_policy.Refused as e:
        ap.error(str(e))
    return supervisor.main(lambda: plot([argv[0], a.csv, a.png], target), "plot_bench.py")


def plot(argv, target):
    try:
        rows, title = read(argv[1])
        for r in rows:
            r["n"], r["len"], r["g"] = int(r["n"]), int(r["len"]), float(r["gkeys_per_s"])
            # The roofline (newer CSVs): the rate at the floor of the method's plan.
            floor = r.get("floor_ms") or ""
            r["floor_g"] = r["n"] / (float(floor) * 1e-3) / 1e9 if floor else None
    except (OSError, KeyError, ValueError, TypeError, UnicodeDecodeError, ZeroDivisionError) as e:
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
    single = [r for r in rows if r["section"] == "single"]
    panels = sorted({(r["n"], r["kind"]) for r in rows if r["section"] == "batched"})
    count = (1 if single else 0) + len(panels)
    if count == 0:
        print("plot_bench.py: %s holds no measurements" % argv[1], file=sys.stderr)
        return 1
    cols = min(count, 3)
    rows_n = (count + cols - 1) // cols
    fig, axes = plt.subplots(rows_n, cols, figsize=(5 * cols, 4 * rows_n), squeeze=False)
    axes = [a for row in axes for a in row]

    def draw(ax, data, x, xlabel, heading):
        for method in dict.fromkeys(r["method"] for r in data):
            pts = sorted((r[x], r["g"]) for r in data if r["method"] == method)
            line, = ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=method)
            floor = sorted((r[x], r["floor_g"]) for r in data if r["method"] == method and r["floor_g"])
            if floor:  # its floor: its trips' bytes at the measured copy bandwidth
                ax.plot([p[0] for p in floor], [p[1] for p in floor], linestyle="--", color=line.get_color(),
                        label=method + " floor")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("Gkeys/s (median)")
        ax.set_title(heading, fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)

    i = 0
    if single:
        draw(axes[i], single, "n", "n (keys)", "one array of uint32 keys")
        i += 1
    for total, kind in panels:
        data = [r for r in rows if r["section"] == "batched" and r["n"] == total and r["kind"] == kind]
        draw(axes[i], data, "len", "len (keys per array)", "batches, 2^%d keys in all, %s" % (total.bit_length() - 1, kind))
        i += 1
    for ax in axes[i:]:
        ax.axis("off")
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    try:
        with write_policy.Output(target, recheck={"inputs": [argv[1]], "what": "plot"}) as out:
            fig.savefig(out.file, format="png", dpi=110)
            out.commit()
    except (OSError, write_policy.Refused) as e:
        print("plot_bench.py: cannot write %s: %s" % (argv[2], e), file=sys.stderr)
        return 1
    print("wrote %s" % argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
