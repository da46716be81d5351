#!/usr/bin/env python3
"""Check that an evaluator of the tree formulation agrees with the C++ reference.

    compare_tree_runs.py --reference build/tree_bitonic_cpu --depths 1-12,16,18 \\
        [--variant=--cutoff,3 ...] -- build/tree_bitonic_gpu [ARGS...]

The candidate is the program and arguments after "--", passed as they are
(no shell splitting: paths may hold spaces). For each depth, and for each
variant (a comma-separated list of extra arguments; none given: the candidate
as it is), the candidate and the reference run with "--depth D" added; their
"checksum:" and "nodes:" lines must be identical and both must exit 0.

Exit 0: all agree; 1: a disagreement or a failure; 2: a bad command line
(depths from 1 to 30, a reference and a candidate that exist and may be run,
a finite positive timeout); 77: the candidate could not run here (no usable
GPU, too little memory: it exited 77) and nothing before that disagreed,
reported as skipped; 128 + the signal: interrupted (SIGINT 130, SIGTERM 143,
SIGHUP 129, SIGQUIT 131), after stopping the program it was running and all
it started (common/supervisor.py).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "common"))
import supervisor  # noqa: E402  (first: the signal handlers are in place before any other import)
import subprocess

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "common"))
import arguments  # noqa: E402

SKIP = 77
MAX_DEPTH = 30   # what the evaluators take


def depths(spec):
    out = []
    for part in spec.split(","):
        a, sep, b = part.partition("-")
        if not a.isdigit() or (sep and not b.isdigit()) or not a.isascii() or not b.isascii():
            raise arguments.ArgumentTypeError("depths look like 1-12,16,18, not %r" % spec)
        for d in (a, b) if sep else (a,):
            if not 1 <= int(d) <= MAX_DEPTH:
                raise arguments.ArgumentTypeError("a depth is a whole number from 1 to %d, not %s" % (MAX_DEPTH, d))
        if sep and int(b) < int(a):
            raise arguments.ArgumentTypeError("%s-%s is an empty range" % (a, b))
        out.extend(range(int(a), int(b) + 1) if sep else [int(a)])
    if not out:
        raise arguments.ArgumentTypeError("no depth given")
    return out


def run(cmd, timeout):
    try:  # (nothing the program started outlives it)
        proc = supervisor.run(cmd, timeout=timeout, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
        rc, out, err = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as e:
        rc, out, err = e.returncode, e.stdout, e.stderr + b"\n(stopped after %g s)" % timeout
    text = out.decode(errors="backslashreplace")
    keep = [l for l in text.splitlines() if l.startswith("checksum:") or l.startswith("nodes:")]
    return rc, keep, text, err.decode(errors="backslashreplace")


def main():
    ap = arguments.Parser(usage="%(prog)s --reference PROGRAM [--depths SPEC] [--variant ARGS]... "
                                "-- CANDIDATE [ARGS...]")
    ap.add_argument("--reference", required=True, type=arguments.program, help="the C++ reference program")
    ap.add_argument("--depths", type=depths, default=depths("1-12"))
    ap.add_argument("--variant", action="append", default=[],
                    help="extra candidate arguments, comma-separated (repeatable)")
    ap.add_argument("--timeout", type=arguments.seconds, default=600)
    ap.add_argument("candidate", nargs=arguments.REMAINDER)
    a = ap.parse_args()
    candidate = a.candidate[1:] if a.candidate[:1] == ["--"] else a.candidate
    if not candidate:
        ap.error("no candidate program after --")
    try:
        arguments.program(candidate[0])
    except arguments.ArgumentTypeError as e:
        ap.error("the candidate: %s" % e)
    if any(not v for v in a.variant):
        ap.error("--variant wants a comma-separated list of arguments, not an empty one")
    return supervisor.main(lambda: compare(a, candidate), "compare_tree_runs",
                           "the program it was running was stopped")


def compare(a, candidate):
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
