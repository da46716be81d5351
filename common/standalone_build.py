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

The scratch folder is this tool's own (common/delete_policy.py): it refuses
one that is, or holds, the source, its checkout, common/, or an ancestor of
any of them (exit 2), and one that holds files unless this tool made it in an
earlier run -- its marker .standalone_build, a regular file (never a link),
records the folder's own identity. It deletes only what it made there (ch12/
and common/). SIGINT, SIGTERM, SIGHUP or SIGQUIT stops the compiler or the
program (and everything they started; common/supervisor.py) and exits 128 +
the signal (130, 143, 129, 131).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import supervisor  # noqa: E402  (first: the signal handlers are in place before any other import)
import shutil
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import arguments  # noqa: E402
import delete_policy  # noqa: E402
import write_policy  # noqa: E402  (the copies, made in its scratch folder)

BOOK_NVDIR = "/usr/local/lib/python3.11/dist-packages/nvidia/cu13"
MARKER = ".standalone_build"   # in every scratch folder this tool made
# What the marker said before it recorded its folder; a folder holding only that
# marker, ch12/ and common/ gets the new one (a build folder made before).
LEGACY_MARKER = ("made by common/standalone_build.py, which deletes only ch12 and common here\n", ("ch12", "common"))


def within(path, folder):
    """True when path is folder or inside it (both real, absolute paths)."""
    return os.path.commonpath([path, folder]) == folder


def scratch_problem(scratch, keep):
    """Why scratch may not be this tool's scratch folder, or None (the delete
    policy decides the rest: a folder holding files must carry the marker)."""
    for what, path in keep:
        if within(path, scratch):
            return "it %s %s %s" % ("is" if path == scratch else "holds", what, path)
        if what == "common/" and within(scratch, path):
            return "it is inside %s, which this tool copies into it" % path
    if os.path.lexists(scratch) and not os.path.isdir(scratch):
        return "it is not a folder"
    return None


def copied_names(folder, ignore):
    """The paths, relative to folder, that a copy of it with ignore holds."""
    names = set()
    for root, dirs, files in os.walk(folder):
        skipped = set(ignore(root, dirs + files))
        dirs[:] = [d for d in dirs if d not in skipped]
        names.update(os.path.relpath(os.path.join(root, n), folder) for n in dirs + files if n not in skipped)
    return names


def run_group(command, timeout=None, **kw):
    """(exit status, output) of command, run through the supervisor; (None,
    output) on a timeout, after stopping it and all it started."""
    try:
        proc = supervisor.run(command, timeout=timeout, **kw)
    except subprocess.TimeoutExpired as e:
        return None, e.stdout
    return proc.returncode, proc.stdout


def main() -> int:
    p = arguments.Parser(description=__doc__.splitlines()[0], error_prefix="standalone_build: ERROR")
    p.add_argument("--compiler", required=True, type=arguments.path,
                   help="g++ (or a compatible C++ compiler), or nvcc")
    p.add_argument("--source", required=True, type=arguments.path, help="the listing, e.g. ch12/58_....cpp")
    p.add_argument("--scratch", required=True, type=arguments.path,
                   help="a folder of this tool's own (made if missing)")
    p.add_argument("--golden", required=True, type=arguments.path, help="what the run must print")
    p.add_argument("--run-arg", action="append", default=[], help="an argument of the run (e.g. --run-arg=--replay)")
    p.add_argument("--timeout", type=arguments.seconds, default=600.0, help="seconds for the compile (default 600)")
    args = p.parse_args()
    return supervisor.main(lambda: build_and_run(args), "standalone_build", "the compiler or the program was stopped")


def refuse(message):
    print("standalone_build: ERROR: " + message, file=sys.stderr)
    return 2


def build_and_run(args) -> int:
    source = os.path.realpath(args.source)
    ch12_dir = os.path.dirname(source)
    checkout = os.path.dirname(ch12_dir)
    common_dir = os.path.join(checkout, "common")
    stem, ext = os.path.splitext(os.path.basename(source))
    if not os.path.isfile(source):
        return refuse("no source %s" % args.source)
    if ext not in (".cpp", ".cu"):
        return refuse("%s is neither .cpp nor .cu" % args.source)
    if os.path.basename(ch12_dir) != "ch12" or not os.path.isfile(os.path.join(common_dir, "cli.h")):
        return refuse("the source %s is not a listing of a checkout (ch12/NN_name%s, with common/ beside ch12/): "
                      "the book's commands need its ../common/" % (args.source, ext))

    # What the run needs is checked before anything is made or compiled.
    compiler = args.compiler if os.sep in args.compiler else shutil.which(args.compiler)
    if not compiler or not os.path.isfile(compiler) or not os.access(compiler, os.X_OK):
        return refuse("no compiler %s (not a program that can be run)" % args.compiler)
    if not os.path.isfile(args.golden) or not os.access(args.golden, os.R_OK):
        return refuse("no golden %s to compare the run with (not a readable file)" % args.golden)

    scratch = os.path.realpath(args.scratch)   # (not abspath first: 'link/..' is the link target's parent)
    keep = [("the source", source), ("the listing's folder", ch12_dir), ("its checkout", checkout),
            ("common/", os.path.realpath(common_dir)), ("this tool's checkout", os.path.dirname(HERE))]
    problem = scratch_problem(scratch, keep)
    if problem:
        return refuse("refusing --scratch %s: %s; give a folder of its own (e.g. build/standalone/%s)"
                      % (args.scratch, problem, stem))
    try:
        folder = delete_policy.Scratch(scratch, tool="standalone_build", marker=MARKER, legacy=LEGACY_MARKER)
        # What it puts there, and nothing else, may be deleted there: the
        # listing and its program in ch12/, copies of common/ in common/.
        skip = shutil.ignore_patterns("__pycache__", "*.py")
        folder.fresh("ch12", made={os.path.basename(source), stem})
        write_policy.new_file(os.path.join(scratch, "ch12", os.path.basename(source)), source=source)
        write_policy.copy_tree(common_dir, folder.fresh("common", made=copied_names(common_dir, skip)), ignore=skip)
    except delete_policy.Refused as e:
        return refuse("refusing --scratch %s: %s" % (args.scratch, e))
    except OSError as e:
        return refuse("cannot prepare the scratch folder %s: %s%s"
                      % (args.scratch, e.strerror or e, " (%s)" % e.filename if getattr(e, "filename", None) else ""))
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

    print("cd %s && %s" % (workdir, " ".join(command)), flush=True)
    try:
        rc, out = run_group(command, timeout=args.timeout, cwd=workdir, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    except OSError as e:
        print("FAIL: cannot run %s: %s" % (command[0], e.strerror))
        return 1
    if rc is None:
        print("FAIL: the compile ran past %g s (the compiler was stopped)" % args.timeout)
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
    compare = [sys.executable, "-S", os.path.join(HERE, "compare_output.py"), "--golden", os.path.abspath(args.golden)]
    if env.get("LD_LIBRARY_PATH") != os.environ.get("LD_LIBRARY_PATH"):
        compare += ["--env", "LD_LIBRARY_PATH=" + env["LD_LIBRARY_PATH"]]
    # compare_output.py stops the program itself when it is told to stop (SIGTERM, within the grace).
    proc = supervisor.start(compare + ["--"] + run)
    proc.wait()
    supervisor.stop(proc)
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
