#!/usr/bin/env python3
"""Check that an evaluator of the tree formulation agrees with the C++ reference.

    compare_tree_runs.py --reference build/tree_bitonic_cpu \\
        --candidate "build/tree_seed_grow_work" --depths 1-12,16,18

For each depth both commands run with "--depth D" added; their "checksum:"
and "nodes:" lines must be identical and both must exit 0. Exit 0: all
agree; 1: a disagreement or a failure; 77: the candidate could not run here
(no usable GPU, too little memory: it exited 77), reported as skipped.
"""
import argparse
import shlex
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
    out = p.stdout.decode()
    keep = [l for l in out.splitlines() if l.startswith("checksum:") or l.startswith("nodes:")]
    return p.returncode, keep, out, p.stderr.decode()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reference", required=True, help="the C++ reference program")
    ap.add_argument("--candidate", required=True, help="the command to check (split like a shell would)")
    ap.add_argument("--depths", default="1-12")
    ap.add_argument("--timeout", type=float, default=600)
    a = ap.parse_args()
    bad = 0
    for d in depths(a.depths):
        crc, ckeep, cout, cerr = run(shlex.split(a.candidate) + ["--depth", str(d)], a.timeout)
        if crc == 77:
            print("SKIPPED: " + cerr.strip())
            return 77
        rrc, rkeep, rout, rerr = run([a.reference, "--depth", str(d)], a.timeout)
        ok = crc == 0 and rrc == 0 and ckeep == rkeep and len(rkeep) == 2
        print("depth %2d: %s  reference %s | candidate %s" % (d, "agree" if ok else "DIFFER", " ".join(rkeep), " ".join(ckeep)))
        if not ok:
            bad += 1
            print("  reference exit %d, candidate exit %d\n  candidate output:\n%s%s" % (rrc, crc, cout, cerr))
    print("%d passed, %d failed" % (len(depths(a.depths)) - bad, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
