#!/usr/bin/env python3
"""The benchmark never loses the CSV it would replace.

    test_bench_csv.py --bench PATH --mode no_device|gpu

no_device  (runs on any machine) with CUDA_VISIBLE_DEVICES= the benchmark exits 77;
       an existing CSV survives byte for byte, no new file appears, and no
       temporary file is left; an unwritable --csv is exit 2 before any of it.
gpu    (a GPU test) a small successful run replaces the CSV (through a
       symbolic link too: the link stays, the file it names is replaced), keeps
       its permissions, and leaves no temporary file; exit 77 (skipped)
       without a usable GPU.
Prints PASS/FAIL lines; exit 0, 1, or 77.
"""
import argparse
import os
import stat
import subprocess
import sys
import tempfile

PRECIOUS = b"precious\n# results of a run that must not be lost\n1,2,3\n"
SMALL = ["--sizes", "10", "--runs", "3", "--only", "fast,cub_radix"]


def run(bench, args, env=None):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([bench] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=e, timeout=300)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", required=True)
    ap.add_argument("--mode", required=True, choices=("no_device", "gpu"))
    a = ap.parse_args()
    failures = []

    def check(ok, what):
        print(("PASS: " if ok else "FAIL: ") + what)
        if not ok:
            failures.append(what)

    with tempfile.TemporaryDirectory(prefix="bench csv ") as d:  # a space in the path, too
        csv = os.path.join(d, "bench.csv")
        with open(csv, "wb") as f:
            f.write(PRECIOUS)
        os.chmod(csv, 0o640)
        if a.mode == "no_device":
            p = run(a.bench, SMALL + ["--csv", csv], {"CUDA_VISIBLE_DEVICES": ""})
            check(p.returncode == 77, "no GPU: exit 77 (got %d)" % p.returncode)
            check(p.stdout == b"", "no GPU: nothing on stdout")
            with open(csv, "rb") as f:
                check(f.read() == PRECIOUS, "no GPU: the existing CSV is unchanged, byte for byte")
            check(sorted(os.listdir(d)) == ["bench.csv"], "no GPU: no other file in its folder: %s" % os.listdir(d))
            fresh = os.path.join(d, "fresh.csv")
            p = run(a.bench, SMALL + ["--csv", fresh], {"CUDA_VISIBLE_DEVICES": ""})
            check(p.returncode == 77 and not os.path.exists(fresh), "no GPU: a CSV that did not exist is not created")
            p = run(a.bench, SMALL + ["--csv", os.path.join(d, "no such folder", "x.csv")])
            check(p.returncode == 2 and b"does not exist" in p.stderr, "a CSV in a missing folder: exit 2, named")
            check(sorted(os.listdir(d)) == ["bench.csv"], "and nothing was created")
        else:
            p = run(a.bench, SMALL + ["--csv", csv])
            if p.returncode == 77:
                print("SKIPPED: " + p.stderr.decode(errors="replace").strip())
                return 77
            check(p.returncode == 0, "a run exits 0 (got %d): %s" % (p.returncode, p.stderr.decode(errors="replace")))
            with open(csv, "rb") as f:
                text = f.read()
            check(text.startswith(b"# ") and b"\nsection,n,len,kind,method," in text and b",fast," in text,
                  "the CSV was replaced by the run's results")
            check(stat.S_IMODE(os.stat(csv).st_mode) == 0o640, "its permissions were kept")
            check(sorted(os.listdir(d)) == ["bench.csv"], "no temporary file is left: %s" % os.listdir(d))
            link = os.path.join(d, "link.csv")
            os.symlink(csv, link)
            with open(csv, "wb") as f:
                f.write(PRECIOUS)
            p = run(a.bench, SMALL + ["--csv", link])
            with open(csv, "rb") as f:
                text = f.read()
            check(p.returncode == 0 and os.path.islink(link) and text.startswith(b"# "),
                  "through a link: the link stays, the file it names is replaced")
            check(sorted(os.listdir(d)) == ["bench.csv", "link.csv"], "no temporary file is left: %s" % os.listdir(d))
    if failures:
        print("%d checks failed" % len(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
