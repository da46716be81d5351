#!/usr/bin/env python3
"""Check that one listing still builds and runs on its own, with the commands
printed under it in the book.

    standalone_build.py --compiler g++ --source ch12/58_bitonic_split_cpu_baseline.cpp \\
        --scratch build/standalone/58 --golden expected_output/58_....txt [--run-arg=--replay]

A student copies ch12/ (and common/, which the listings include as
../common/cli.h and ../common/cuda_check.h) and types the commands printed
under the listing. This script does exactly that in a scratch folder:

  .cpp   g++ -std=c++17 -Wall -Wextra -O2 X.cpp -o X          then ./X
  .cu    NVDIR=/usr/local/lib/python3.11/dist-packages/nvidia/cu13
         $NVDIR/bin/nvcc -arch=sm_80 -I$NVDIR/include -L$NVDIR/lib -lcudart X.cu -o X
         LD_LIBRARY_PATH=$NVDIR/lib ./X

The one thing that may differ is NVDIR: the book's NVDIR is where the CUDA
wheel of pip puts the toolkit. When that folder holds an nvcc, it is used as
printed; otherwise NVDIR is the toolkit of the given nvcc (e.g. /usr/local/cuda),
and the script says so. The check fails if a compile command fails or prints
anything at all (a warning counts), or if the run's stdout differs from the
golden. (The .cu listings are run with --replay, the book's CPU replay, so the
check needs no GPU; their GPU runs are the golden tests.)
"""

import argparse
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
BOOK_NVDIR = "/usr/local/lib/python3.11/dist-packages/nvidia/cu13"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--compiler", required=True, help="g++ (or a compatible C++ compiler), or nvcc")
    p.add_argument("--source", required=True, help="the listing, e.g. ch12/58_....cpp")
    p.add_argument("--scratch", required=True, help="a folder this script may wipe")
    p.add_argument("--golden", required=True, help="what the run must print")
    p.add_argument("--run-arg", action="append", default=[], help="an argument of the run (e.g. --run-arg=--replay)")
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
                    ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    workdir = os.path.join(scratch, "ch12")
    env = dict(os.environ)

    if ext == ".cpp":
        command = [args.compiler, "-std=c++17", "-Wall", "-Wextra", "-O2", stem + ext, "-o", stem]
    elif ext == ".cu":
        if os.access(os.path.join(BOOK_NVDIR, "bin", "nvcc"), os.X_OK):
            nvdir = BOOK_NVDIR
            print("NVDIR=%s (the book's)" % nvdir)
        else:
            nvdir = os.path.dirname(os.path.dirname(os.path.realpath(args.compiler)))
            print("NVDIR=%s (the book's %s holds no nvcc here: this toolkit stands in)" % (nvdir, BOOK_NVDIR))
        command = [os.path.join(nvdir, "bin", "nvcc"), "-arch=sm_80", "-I" + os.path.join(nvdir, "include"),
                   "-L" + os.path.join(nvdir, "lib"), "-lcudart", stem + ext, "-o", stem]
        env["LD_LIBRARY_PATH"] = os.path.join(nvdir, "lib") + (
            ":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
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
        print("FAIL: cannot run %s: %s" % (command[0], e.strerror))
        return 1
    output = proc.stdout.decode("utf-8", errors="backslashreplace")
    if proc.returncode != 0:
        print("FAIL: the book's compile command exited with status %d:\n%s" % (proc.returncode, output))
        return 1
    if output.strip():
        print("FAIL: the book's compile command printed warnings or other output:\n" + output)
        return 1
    print("PASS: compiled with no output")

    run = [os.path.join(workdir, stem)] + args.run_arg
    print("./%s %s" % (stem, " ".join(args.run_arg)))
    compare = [sys.executable, os.path.join(HERE, "compare_output.py"), "--golden", os.path.abspath(args.golden)]
    if env.get("LD_LIBRARY_PATH") != os.environ.get("LD_LIBRARY_PATH"):
        compare += ["--env", "LD_LIBRARY_PATH=" + env["LD_LIBRARY_PATH"]]
    return subprocess.run(compare + ["--"] + run).returncode


if __name__ == "__main__":
    sys.exit(main())
