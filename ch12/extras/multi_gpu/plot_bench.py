#!/usr/bin/env python3
"""Draw bitonic_sort_multi_gpu --bench's CSV as a PNG, three panels:
  1. time against n: bitonic on 1 GPU, on P GPUs, and CUB's radix sort;
  2. where the time goes: local sort, exchange, compare-split, merge, for
     1 GPU and P GPUs;
  3. the exchange's achieved bandwidth against n, beside the NVLink figure
     when one is given (--link-gbps: from nvidia-smi, per direction).

    python3 plot_bench.py multi_gpu_bench.csv multi_gpu_bench.png [--link-gbps 450]

Needs matplotlib. Without it, it says so and exits with 77 (the "skipped"
status of the rest of the companion). --link-gbps is a finite number > 0.
OUT.png is written through common/write_policy.py, decided before anything
is read: never the CSV itself, a file git tracks (a source, a golden), or a
folder (exit 2); the PNG goes to a temporary file in the same folder
(never a file of yours, such as OUT.png.tmp), renamed over OUT.png at the end.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "common"))
import supervisor  # noqa: E402  (first: the signal handlers are in place before any other import)
import csv
import math

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "common"))
import arguments  # noqa: E402
import write_policy  # noqa: E402


def read(path):
    title, lines = "", []
    with open(path, newline="") as f:
        for line in f:
            if line.startswith("#"):
                title = title or line[1:].strip()
            else:
                lines.append(line)
    rows = []
    for r in csv.DictReader(lines):
        if r["verified"] != "yes":
            continue  # skipped (memory) or wrong: nothing to draw
        r["n"] = int(r["n"])
        r["gpus"] = int(r["gpus"])
        for k in ("total_ms", "sort_ms", "exchange_ms", "compare_split_ms", "merge_ms", "exchange_gb_per_s"):
            r[k] = float(r[k])
        rows.append(r)
    return rows, title


def main(argv):
    ap = arguments.Parser(prog="plot_bench.py", usage="%(prog)s BENCH.csv OUT.png [--link-gbps GB/s]")
    ap.add_argument("csv", type=arguments.path)
    ap.add_argument("png", type=arguments.path)
    ap.add_argument("--link-gbps", type=arguments.positive("a bandwidth in GB/s"))
    a = ap.parse_args(argv[1:])
    try:
        target = write_policy.check(a.png, inputs=[a.csv], what="plot")
    except write_policy.Refused as e:
        ap.error(str(e))
    return supervisor.main(lambda: plot([a.csv, a.png], a.link_gbps, target), "plot_bench.py")


def plot(args, link, target):
    try:
        rows, title = read(args[0])
    except (OSError, KeyError, ValueError, TypeError, UnicodeDecodeError) as e:
        print("plot_bench.py: cannot read %s: %s" % (args[0], e), file=sys.stderr)
        return 1
    if not rows:
        print("plot_bench.py: %s has no checked results to draw" % args[0], file=sys.stderr)
        return 1
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_bench.py: skipped: matplotlib is not installed (pip install matplotlib)", file=sys.stderr)
        return 77

    def series(method, gpus, key):
        pts = sorted((r["n"], r[key]) for r in rows if r["method"] == method and r["gpus"] == gpus)
        return [p[0] for p in pts], [p[1] for p in pts]

    many = sorted({r["gpus"] for r in rows if r["method"] == "bitonic" and r["gpus"] > 1})
    configs = [("bitonic", 1)] + [("bitonic", g) for g in many]
    fig, ax = plt.subplots(1, 3, figsize=(17, 5))

    for method, gpus, style in configs_styles(configs):
        x, y = series(method, gpus, "total_ms")
        ax[0].plot(x, y, style, label="bitonic, %d GPU%s" % (gpus, "" if gpus == 1 else "s"))
    x, y = series("cub", 1, "total_ms")
    ax[0].plot(x, y, "k^--", label="CUB radix sort, 1 GPU")
    ax[0].set_title("time")
    ax[0].set_ylabel("ms")

    phases = [("sort_ms", "local sort"), ("exchange_ms", "exchange"), ("compare_split_ms", "compare-split"),
              ("merge_ms", "merge")]
    markers = ["o", "s", "D", "v"]
    for (method, gpus), line in zip(configs, ["-", "--", ":"]):
        for (key, name), m in zip(phases, markers):
            x, y = series(method, gpus, key)
            pts = [(a, b) for a, b in zip(x, y) if b > 0 and not math.isnan(b)]
            if pts:
                ax[1].plot([p[0] for p in pts], [p[1] for p in pts], m + line,
                           label="%s, %d GPU%s" % (name, gpus, "" if gpus == 1 else "s"))
    ax[1].set_title("phases (the slowest GPU; exchange: the least-waiting)")
    ax[1].set_ylabel("ms")

    for gpus in many:
        x, y = series("bitonic", gpus, "exchange_gb_per_s")
        ax[2].plot(x, y, "o-", label="exchange, %d GPUs (per direction)" % gpus)
    if link:
        ax[2].axhline(link, color="k", linestyle="--", label="NVLink, nvidia-smi: %g GB/s" % link)
    ax[2].set_title("exchange bandwidth")
    ax[2].set_ylabel("GB/s")
    ax[2].set_yscale("linear")

    for a in ax:
        a.set_xscale("log", base=2)
        a.set_xlabel("n (keys)")
        a.grid(True, which="both", alpha=0.3)
        if a is not ax[2]:
            a.set_yscale("log")
        if a.lines:
            a.legend(fontsize=7)
    fig.suptitle("bitonic sort across GPUs -- " + title)
    fig.tight_layout()
    try:
        with write_policy.Output(target, recheck={"inputs": [args[0]], "what": "plot"}) as out:
            fig.savefig(out.file, dpi=120, format="png")
            out.commit()
    except (OSError, write_policy.Refused) as e:
        print("plot_bench.py: cannot write %s: %s" % (args[1], e), file=sys.stderr)
        return 1
    print("wrote %s" % args[1])
    return 0


def configs_styles(configs):
    styles = ["bo-", "rs-", "gD-", "mv-"]
    return [(m, g, styles[i % len(styles)]) for i, (m, g) in enumerate(configs)]


if __name__ == "__main__":
    sys.exit(main(sys.argv))
