#!/usr/bin/env python3
"""Runs bitonic_sort_multi_gpu asking for more GPUs than the machine has, and
checks the rule: exit 77, nothing on stdout, one line on stderr that says how
many GPUs were asked for and how many there are.

    expect_too_few_gpus.py PROGRAM --gpus 64 [ARGS...]

Exit 0: the rule holds. 77 (Skipped): the machine has no usable GPU at all,
so the rule cannot be seen here. 1: anything else. 2: a bad command line (no
such PROGRAM, no --gpus P with P a whole number > 0). The program runs
through common/supervisor.py: at most 100 s, and SIGINT, SIGTERM, SIGHUP or
SIGQUIT stop it (exit 128 + the signal).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "common"))
import supervisor  # noqa: E402  (first: the signal handlers are in place before any other import)
import re
import subprocess

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "common"))

USAGE = "usage: expect_too_few_gpus.py PROGRAM --gpus P [ARGS...]"
TIMEOUT = 100


def bad(problem):
    print("%s\nexpect_too_few_gpus.py: %s" % (USAGE, problem), file=sys.stderr)
    return 2


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        if argv[1:2] in (["-h"], ["--help"]):
            print(USAGE)
            return 0
        return bad("no PROGRAM")
    program = argv[1]
    if not (os.path.isfile(program) and os.access(program, os.X_OK)):
        return bad("no program %s (or it may not be run)" % program)
    given = [i for i, a in enumerate(argv) if a == "--gpus"]
    if len(given) != 1 or given[0] + 1 >= len(argv):
        return bad("give --gpus P once, with a value")
    asked = argv[given[0] + 1]
    if not re.fullmatch(r"[1-9][0-9]*", asked):
        return bad("--gpus wants a whole number > 0, not %r" % asked)
    return supervisor.main(lambda: check(argv[1:], asked), "expect_too_few_gpus.py")


def check(command, asked):
    try:
        proc = supervisor.run(command, timeout=TIMEOUT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
    except subprocess.TimeoutExpired:
        print("FAIL: %s ran past %d s (it was stopped)" % (command[0], TIMEOUT))
        return 1
    out, err = proc.stdout, proc.stderr
    stdout = out.decode(errors="backslashreplace")
    stderr = err.decode(errors="backslashreplace")
    lines = stderr.splitlines()
    if proc.returncode == 77 and "no usable CUDA GPU" in stderr:
        print("SKIPPED: no usable GPU here: " + stderr.strip())
        return 77
    want = "asks for %s GPUs, but this machine has" % asked
    if proc.returncode == 77 and stdout == "" and len(lines) == 1 and want in lines[0]:
        print("ok: " + lines[0])
        return 0
    print("FAIL: expected exit 77, empty stdout and one stderr line containing %r" % want)
    print("exit status: %d\n--- stdout ---\n%s--- stderr ---\n%s" % (proc.returncode, stdout, stderr))
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
