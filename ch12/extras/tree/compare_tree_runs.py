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
import signal
import subprocess
import sys

SKIP = 77
current = None  # the program running now, in a process group of its own


def stop_and_exit(signum, _frame):
    if current is not None and current.poll() is None:
        try:
            os.killpg(current.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    print("compare_tree_runs: interrupted; the program it was running was stopped", file=sys.stderr)
    sys.exit(128 + signum)


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
    global current
    current = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = current.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(current.pid, signal.SIGKILL)
        out, err = current.communicate()
        err += b"\n(stopped after %g s)" % timeout
    rc = current.returncode
    current = None
    text = out.decode(errors="backslashreplace")
    keep = [l for l in text.splitlines() if l.startswith("checksum:") or l.startswith("nodes:")]
    return rc, keep, text, err.decode(errors="backslashreplace")


def main():
    signal.signal(signal.SIGINT, stop_and_exit)
    signal.signal(signal.SIGTERM, stop_and_exit)
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
    sys.exit(main())
