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

The scratch folder is this tool's own: it refuses one that is, or holds, the
source, its checkout, common/, or an ancestor of any of them (exit 2), and one
that holds files it did not put there (it marks its scratch folders with a
file named .standalone_build). It deletes only what it made there. SIGINT or
SIGTERM stops the compiler or the program (its whole process group) and exits
130 or 143.
"""

import argparse
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import process_group  # noqa: E402

BOOK_NVDIR = "/usr/local/lib/python3.11/dist-packages/nvidia/cu13"
MARKER = ".standalone_build"   # in every scratch folder this tool made
MADE = ("ch12", "common")      # what it makes there, and so may delete


def within(path, folder):
    """True when path is folder or inside it (both real, absolute paths)."""
    return os.path.commonpath([path, folder]) == folder


def scratch_problem(scratch, keep):
    """Why scratch may not be this tool's scratch folder, or None."""
    for what, path in keep:
        if within(path, scratch):
            return "it %s %s %s" % ("is" if path == scratch else "holds", what, path)
        if what == "common/" and within(scratch, path):
            return "it is inside %s, which this tool copies into it" % path
    if os.path.lexists(scratch) and not os.path.isdir(scratch):
        return "it is not a folder"
    if os.path.isdir(scratch) and os.listdir(scratch) and not os.path.isfile(os.path.join(scratch, MARKER)) \
            and not made_before_markers(scratch):
        return "it holds files that this tool did not put there (its scratch folders hold a file %s)" % MARKER
    return None


def made_before_markers(scratch):
    """A scratch folder of this tool from before it marked them: ch12/ with one
    listing (and its program) and common/, nothing else."""
    if not set(os.listdir(scratch)) <= set(MADE):
        return False
    listing = os.path.join(scratch, "ch12")
    files = os.listdir(listing) if os.path.isdir(listing) else []
    stems = {os.path.splitext(f)[0] for f in files}
    return len(stems) <= 1 and all(os.path.splitext(f)[1] in ("", ".cpp", ".cu") for f in files)


class Timeout(Exception):
    pass


def run_group(command, timeout=None, **kw):
    """Runs command in a session of its own; a timeout or an interrupt kills its whole group."""
    proc = subprocess.Popen(command, start_new_session=True, **kw)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process_group.kill(proc)
        proc.communicate()
        raise Timeout()
    finally:
        process_group.kill(proc)
    return proc.returncode, out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--compiler", required=True, help="g++ (or a compatible C++ compiler), or nvcc")
    p.add_argument("--source", required=True, help="the listing, e.g. ch12/58_....cpp")
    p.add_argument("--scratch", required=True, help="a folder of this tool's own (made if missing)")
    p.add_argument("--golden", required=True, help="what the run must print")
    p.add_argument("--run-arg", action="append", default=[], help="an argument of the run (e.g. --run-arg=--replay)")
    p.add_argument("--timeout", type=float, default=600.0)
    args = p.parse_args()
    try:
        with process_group.signals_interrupt():
            return build_and_run(args)
    except process_group.Interrupted as e:
        print("standalone_build: interrupted by %s: the compiler or the program was stopped" % e.name,
              file=sys.stderr)
        return e.exit_status


def build_and_run(args) -> int:
    source = os.path.realpath(args.source)
    ch12_dir = os.path.dirname(source)
    checkout = os.path.dirname(ch12_dir)
    common_dir = os.path.join(checkout, "common")
    stem, ext = os.path.splitext(os.path.basename(source))

    scratch = os.path.realpath(os.path.abspath(args.scratch))
    keep = [("the source", source), ("the listing's folder", ch12_dir), ("its checkout", checkout),
            ("common/", os.path.realpath(common_dir)), ("this tool's checkout", os.path.dirname(HERE))]
    problem = scratch_problem(scratch, keep)
    if problem:
        print("standalone_build: ERROR: refusing --scratch %s: %s; give a folder of its own "
              "(e.g. build/standalone/%s)" % (args.scratch, problem, stem), file=sys.stderr)
        return 2
    if not os.path.isfile(source):
        print("standalone_build: ERROR: no source %s" % args.source, file=sys.stderr)
        return 2
    os.makedirs(scratch, exist_ok=True)
    with open(os.path.join(scratch, MARKER), "w") as f:
        f.write("made by common/standalone_build.py, which deletes only %s here\n" % " and ".join(MADE))
    for made in MADE:
        shutil.rmtree(os.path.join(scratch, made), ignore_errors=True)
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

    print("cd %s && %s" % (workdir, " ".join(command)), flush=True)
    try:
        rc, out = run_group(command, timeout=args.timeout, cwd=workdir, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    except Timeout:
        print("FAIL: the compile ran past %g s" % args.timeout)
        return 1
    except OSError as e:
        print("FAIL: cannot run %s: %s" % (command[0], e.strerror))
        return 1
    output = out.decode("utf-8", errors="backslashreplace")
    if rc != 0:
        print("FAIL: the book's compile command exited with status %d:\n%s" % (rc, output))
        return 1
    if output.strip():
        print("FAIL: the book's compile command printed warnings or other output:\n" + output)
        return 1
    print("PASS: compiled with no output")

    run = [os.path.join(workdir, stem)] + args.run_arg
    print("./%s %s" % (stem, " ".join(args.run_arg)), flush=True)
    compare = [sys.executable, os.path.join(HERE, "compare_output.py"), "--golden", os.path.abspath(args.golden)]
    if env.get("LD_LIBRARY_PATH") != os.environ.get("LD_LIBRARY_PATH"):
        compare += ["--env", "LD_LIBRARY_PATH=" + env["LD_LIBRARY_PATH"]]
    # compare_output.py stops the program itself when it is told to stop (SIGTERM).
    proc = subprocess.Popen(compare + ["--"] + run)
    try:
        return proc.wait()
    except process_group.Interrupted:
        proc.terminate()
        proc.wait()
        raise


if __name__ == "__main__":
    sys.exit(main())
