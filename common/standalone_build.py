#!/usr/bin/env python3
"""Check that one listing still builds on its own, with the book's printed command.

    standalone_build.py --compiler g++ --source ch12/58_bitonic_split_cpu_baseline.cpp \
        --scratch build/standalone/58 [--golden expected_output/58_....txt]

A student copies ch12/ (and common/, which the CUDA listings include as
../common/cuda_check.h) and types the command printed under the listing.
This script does exactly that in a scratch folder, so the source tree stays
clean:

    g++ -std=c++17 -Wall -Wextra -O2 X.cpp -o X     (for a .cpp listing)
    nvcc -arch=sm_80 X.cu -o X                       (for a .cu listing)

run from <scratch>/ch12. The check fails if the command fails or prints
anything at all (a warning counts). With --golden it then runs ./X and
compares its stdout with the golden through compare_output.py (the book's
.cpp listings); the .cu listings are only compiled here, since their golden
tests already run them.
"""

import argparse
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--compiler", required=True, help="g++ (or a compatible C++ compiler) or nvcc")
    p.add_argument("--source", required=True, help="the listing, e.g. ch12/58_....cpp")
    p.add_argument("--scratch", required=True, help="a folder this script may wipe")
    p.add_argument("--golden", help="run the program and compare its stdout with this file")
    p.add_argument("--timeout", type=float, default=600.0)
    args = p.parse_args()

    source = os.path.abspath(args.source)
    ch12_dir = os.path.dirname(source)
    common_dir = os.path.join(os.path.dirname(ch12_dir), "common")
    stem, ext = os.path.splitext(os.path.basename(source))

    scratch = os.path.abspath(args.scratch)
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(os.path.join(scratch, "ch12"))
    shutil.copy2(source, os.path.join(scratch, "ch12"))
    shutil.copytree(common_dir, os.path.join(scratch, "common"),
                    ignore=shutil.ignore_patterns("__pycache__"))
    workdir = os.path.join(scratch, "ch12")

    if ext == ".cpp":
        command = [args.compiler, "-std=c++17", "-Wall", "-Wextra", "-O2", stem + ext, "-o", stem]
    elif ext == ".cu":
        command = [args.compiler, "-arch=sm_80", stem + ext, "-o", stem]
    else:
        print("standalone_build: ERROR: %s is neither .cpp nor .cu" % source, file=sys.stderr)
        return 2

    print("cd %s && %s" % (workdir, " ".join(command)))
    try:
        proc = subprocess.run(command, cwd=workdir, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        print("FAIL: the compile ran past %g s" % args.timeout)
        return 1
    except OSError as e:
        print("FAIL: cannot run %s: %s" % (args.compiler, e.strerror))
        return 1
    output = proc.stdout.decode("utf-8", errors="backslashreplace")
    if proc.returncode != 0:
        print("FAIL: the book's compile command exited with status %d:\n%s" % (proc.returncode, output))
        return 1
    if output.strip():
        print("FAIL: the book's compile command printed warnings or other output:\n" + output)
        return 1
    print("PASS: compiled with no output")

    if args.golden:
        compare = [sys.executable, os.path.join(HERE, "compare_output.py"),
                   "--golden", os.path.abspath(args.golden), "--", os.path.join(workdir, stem)]
        return subprocess.run(compare).returncode
    return 0


if __name__ == "__main__":
    sys.exit(main())
