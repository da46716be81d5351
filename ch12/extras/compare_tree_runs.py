#!/usr/bin/env python3
"""Check that the GPU evaluator agrees with the CPU reference of the tree formulation.

    compare_tree_runs.py --cpu build/tree_bitonic_cpu --gpu build/tree_bitonic_gpu --depths 1-12,16,18

For each depth both programs run; their "checksum:" and "nodes:" lines must be
identical and both must exit 0. Exit 0: all agree; 1: a disagreement or a
failure; 77: the GPU program found no usable GPU (CTest: Skipped).
"""
import argparse
import subprocess
import sys


def depths(spec):
    out = []
    for part in spec.split(","):
        if "-" in part:
            a, b = part.split("-")
            out.extend(range(int(a), int(b) + 1))
        else:
            out.append(int(part))
    return out


def run(cmd, timeout):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    lines = p.stdout.decode().splitlines()
    keep = [l for l in lines if l.startswith("checksum:") or l.startswith("nodes:")]
    return p.returncode, keep, p.stdout.decode(), p.stderr.decode()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cpu", required=True)
    ap.add_argument("--gpu", required=True)
    ap.add_argument("--depths", default="1-12")
    ap.add_argument("--gpu-args", default="", help="extra arguments for the GPU program, e.g. '--cutoff 2'")
    ap.add_argument("--timeout", type=float, default=600)
    a = ap.parse_args()
    bad = 0
    for d in depths(a.depths):
        grc, gkeep, gout, gerr = run([a.gpu, "--depth", str(d)] + a.gpu_args.split(), a.timeout)
        if grc == 77:
            print("SKIPPED: " + gerr.strip())
            return 77
        crc, ckeep, cout, cerr = run([a.cpu, "--depth", str(d)], a.timeout)
        ok = grc == 0 and crc == 0 and gkeep == ckeep and len(ckeep) == 2
        print("depth %2d: %s  cpu %s | gpu %s" % (d, "agree" if ok else "DIFFER", " ".join(ckeep), " ".join(gkeep)))
        if not ok:
            bad += 1
            print("  cpu exit %d, gpu exit %d\n  gpu output:\n%s%s" % (crc, grc, gout, gerr))
    print("%d passed, %d failed" % (len(depths(a.depths)) - bad, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
