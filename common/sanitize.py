#!/usr/bin/env python3
"""Run one GPU program under compute-sanitizer and fail on any error it finds.

    sanitize.py --tool memcheck|racecheck|synccheck|initcheck [--expect-exit N] [--env NAME=VALUE] -- PROGRAM [ARGS...]

Exit status (what CTest sees):
    0   the tool reported 0 errors and the program exited with status N
    1   FAIL: the tool reported errors (or hazards), or the program exited
        otherwise than expected
    2   ERROR: bad arguments (decided before looking for compute-sanitizer)
    77  SKIPPED: no compute-sanitizer on this machine, or no usable GPU (the
        program itself exited 77): the reason is printed
    128 + the signal  interrupted (SIGINT 130, SIGTERM 143, SIGHUP 129,
        SIGQUIT 131): the sanitizer and the program, and all they started,
        were stopped first (common/supervisor.py); so are they on a timeout
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import supervisor  # noqa: E402  (first: the signal handlers are in place before any other import)
import re
import shutil
import subprocess

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import arguments  # noqa: E402

TOOLS = ("memcheck", "racecheck", "synccheck", "initcheck")


def find_sanitizer():
    found = shutil.which("compute-sanitizer")
    if found:
        return found
    homes = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"]
    nvcc = shutil.which("nvcc")
    if nvcc:
        homes.insert(0, os.path.dirname(os.path.dirname(os.path.realpath(nvcc))))
    for home in homes:
        if not home:
            continue
        for rel in ("bin/compute-sanitizer", "compute-sanitizer/compute-sanitizer"):
            path = os.path.join(home, rel)
            if os.access(path, os.X_OK):
                return path
    return None


def run(command, env, timeout):
    """(exit status, output) of command, run through the supervisor; (None,
    output) on a timeout, after it and all it started were stopped."""
    proc = supervisor.start(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            env=env)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        supervisor.stop(proc)
        out, _ = proc.communicate()
        return None, out
    supervisor.stop(proc)
    return proc.returncode, out


def main():
    ap = arguments.Parser(usage="%(prog)s --tool TOOL [--expect-exit N] [--timeout S] [--env NAME=VALUE]... "
                                "-- PROGRAM [ARGS...]", error_prefix="sanitize: ERROR")
    ap.add_argument("--tool", required=True, choices=TOOLS)
    ap.add_argument("--expect-exit", type=arguments.exit_status, default=0)
    ap.add_argument("--timeout", type=arguments.seconds, default=880)
    ap.add_argument("--env", action="append", default=[], metavar="NAME=VALUE", help="set for the program (repeatable)")
    ap.add_argument("command", nargs=arguments.REMAINDER)
    a = ap.parse_args()
    command = a.command[1:] if a.command[:1] == ["--"] else a.command
    if not command:
        ap.error("no program to run")
    env = dict(os.environ)
    for item in a.env:
        name, sep, value = item.partition("=")
        if not sep or not name:
            ap.error("--env wants NAME=VALUE, got %r" % item)
        env[name] = value
    return supervisor.main(lambda: sanitize(a, command, env), "sanitize",
                           "compute-sanitizer and the program were stopped")


def sanitize(a, command, env):
    tool = find_sanitizer()
    if tool is None:
        print("SKIPPED: compute-sanitizer was not found (it comes with the CUDA toolkit)")
        return 77
    full = [tool, "--tool", a.tool, "--error-exitcode", "99", "--print-limit", "20"] + command
    print("$ " + " ".join(["%s " % e for e in a.env]) + " ".join(full), flush=True)
    returncode, output = run(full, env, a.timeout)
    if returncode is None:
        print("FAIL: ran past %g s (compute-sanitizer and the program were stopped)" % a.timeout)
        return 1
    out = output.decode("utf-8", errors="backslashreplace")
    summary = [l for l in out.splitlines() if "ERROR SUMMARY" in l or "RACECHECK SUMMARY" in l]
    if returncode == 77 and a.expect_exit != 77:
        reason = [l for l in out.splitlines() if "skipped" in l]
        print("SKIPPED: " + (reason[-1] if reason else "the program found no usable GPU (exit 77)"))
        return 77
    errors = 0
    for line in summary:
        m = re.search(r"ERROR SUMMARY: (\d+) error", line)
        if m:
            errors += int(m.group(1))
        m = re.search(r"RACECHECK SUMMARY: (\d+) hazard", line)
        if m:
            errors += int(m.group(1))
    tail = "\n".join("    " + l for l in out.splitlines()[-40:])
    if returncode == 99 or errors > 0:
        print("FAIL: compute-sanitizer --tool %s reported errors:\n%s" % (a.tool, tail))
        return 1
    if not summary:
        print("FAIL: compute-sanitizer printed no summary (exit %d):\n%s" % (returncode, tail))
        return 1
    if returncode != a.expect_exit:
        print("FAIL: the program exited with status %d under the sanitizer (expected %d):\n%s"
              % (returncode, a.expect_exit, tail))
        return 1
    print("PASS: compute-sanitizer --tool %s: %s; the program exited %d as expected"
          % (a.tool, summary[-1].split("=========")[-1].strip(), returncode))
    return 0


if __name__ == "__main__":
    sys.exit(main())
