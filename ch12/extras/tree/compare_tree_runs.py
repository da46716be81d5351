#!/usr/bin/env python3
"""Check that an evaluator of the tree formulation agrees with the C++ reference.

    compare_tree_runs.py --reference build/tree_bitonic_cpu --depths 1-12,16,18 \\
        [--variant=--cutoff,3 ...] -- build/tree_bitonic_gpu [ARGS...]

The candidate is the program and arguments after "--", passed as they are
(no shell splitting: paths may hold spaces). For each depth, and for each
variant (a comma-separated list of extra arguments; none given: the candidate
as it is), the candidate and the reference run with "--depth D" added; their
"checksum:" and "nodes:" lines must be identical and both must exit 0.

Exit 0: all agree; 1: a disagreement or a failure; 2: a bad command line;
77: the candidate could not run here (no usable GPU, too little memory: it
exited 77) and nothing before that disagreed, reported as skipped; 130/143: interrupted (SIGINT/SIGTERM), after
stopping the program it was running.
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "common"))
import process_group  # noqa: E402

SKIP = 77


def depths(spec):
    out = []
    for part in spec.split(","):
        a, sep, b = part.partition("-")
        if not a.isdigit() or (sep and not b.isdigit()):
            raise argparse.ArgumentTypeError("depths look like 1-12,16,18, not %r" % spec)
        if sep and int(b) < int(a):
            raise argparse.ArgumentTypeError("%s-%s is an empty range" % (a, b))
        out.extend(range(int(a), int(b) + 1) if sep else [int(a)])
    if not out:
        raise argparse.ArgumentTypeError("no depth given")
    return out


def run(cmd, timeout):
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process_group.kill(proc)
        out, err = proc.communicate()
        err += b"\n(stopped after %g s)" % timeout
    finally:  # an interrupt, too: nothing the program started outlives it
        process_group.kill(proc)
    rc = proc.returncode
    text = out.decode(errors="backslashreplace")
    keep = [l for l in text.splitlines() if l.startswith("checksum:") or l.startswith("nodes:")]
    return rc, keep, text, err.decode(errors="backslashreplace")


def main():
    ap = argparse.ArgumentParser(usage="%(prog)s --reference PROGRAM [--depths SPEC] [--variant ARGS]... "
                                       "-- CANDIDATE [ARGS...]")
    ap.add_argument("--reference", required=True, help="the C++ reference program")
    ap.add_argument("--depths", type=depths, default=depths("1-12"))
    ap.add_argument("--variant", action="append", default=[],
                    help="extra candidate arguments, comma-separated (repeatable)")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("candidate", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    candidate = a.candidate[1:] if a.candidate[:1] == ["--"] else a.candidate
    if not candidate:
        ap.error("no candidate program after --")
    variants = [v.split(",") for v in a.variant] or [[]]
    reference = {}
    bad = total = 0
    for extra in variants:
        for d in a.depths:
            crc, ckeep, cout, cerr = run(candidate + extra + ["--depth", str(d)], a.timeout)
            if crc == SKIP:  # a disagreement seen before the skip is still a failure
                print("SKIPPED: " + cerr.strip())
                print("%d passed, %d failed before the skip" % (total - bad, bad))
                return 1 if bad else SKIP
            if d not in reference:
                reference[d] = run([a.reference, "--depth", str(d)], a.timeout)
            rrc, rkeep, _, rerr = reference[d]
            ok = crc == 0 and rrc == 0 and ckeep == rkeep and len(rkeep) == 2
            total += 1
            print("%s depth %2d: %s  reference %s | candidate %s" % (" ".join(extra) or "(as is)", d,
                  "agree" if ok else "DIFFER", " ".join(rkeep), " ".join(ckeep)))
            if not ok:
                bad += 1
                print("  reference exit %d, candidate exit %d\n  candidate output:\n%s%s%s"
                      % (rrc, crc, cout, cerr, rerr))
    print("%d passed, %d failed" % (total - bad, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    try:
        with process_group.signals_interrupt():
            status = main()
    except process_group.Interrupted as e:
        print("compare_tree_runs: interrupted; the program it was running was stopped", file=sys.stderr)
        status = e.exit_status
    sys.exit(status)
