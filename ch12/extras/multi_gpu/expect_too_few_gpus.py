#!/usr/bin/env python3
"""Runs bitonic_sort_multi_gpu asking for more GPUs than the machine has, and
checks the rule: exit 77, nothing on stdout, one line on stderr that says how
many GPUs were asked for and how many there are.

    expect_too_few_gpus.py PROGRAM --gpus 64 [ARGS...]

Exit 0: the rule holds. 77 (Skipped): the machine has no usable GPU at all,
so the rule cannot be seen here. 1: anything else.
"""
import subprocess
import sys


def main(argv):
    if len(argv) < 4 or "--gpus" not in argv:
        print("usage: expect_too_few_gpus.py PROGRAM --gpus P [ARGS...]", file=sys.stderr)
        return 2
    asked = argv[argv.index("--gpus") + 1]
    r = subprocess.run(argv[1:], capture_output=True, text=True, timeout=100)
    lines = r.stderr.splitlines()
    if r.returncode == 77 and "no usable CUDA GPU" in r.stderr:
        print("SKIPPED: no usable GPU here: " + r.stderr.strip())
        return 77
    want = "asks for %s GPUs, but this machine has" % asked
    if r.returncode == 77 and r.stdout == "" and len(lines) == 1 and want in lines[0]:
        print("ok: " + lines[0])
        return 0
    print("FAIL: expected exit 77, empty stdout and one stderr line containing %r" % want)
    print("exit status: %d\n--- stdout ---\n%s--- stderr ---\n%s" % (r.returncode, r.stdout, r.stderr))
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
