#!/usr/bin/env python3
"""Run one program and compare its stdout, byte for byte, with a golden file.

    compare_output.py --golden expected_output/58_bitonic_split_cpu_baseline.txt \
        -- build/ch12/58_bitonic_split_cpu_baseline [args...]

Exit status (what CTest sees):
    0   the program exited as expected and its stdout equals the golden
    1   FAIL: a stdout difference (a unified diff is printed, with trailing
        spaces shown as '·', line ends as '$' and a missing final newline
        spelled out), an unexpected exit status, a death by signal, a timeout,
        or a missing "--expect-line"
    2   ERROR: bad arguments, a missing or unreadable golden, a program that
        cannot be started -- never reported as a pass
    77  SKIPPED: the program itself exited 77 ("no usable GPU here"), which the
        golden tests register with CTest as SKIP_RETURN_CODE

The program's stdout is read as bytes; CRLF line ends (a Windows build) are
read as LF, in the program's output and in the golden alike.

--update rewrites the golden with the program's stdout, but only when the
program exited 0. It is for programs whose goldens are ours (the extras); the
book's six goldens are the book's sample output and never need it.

Options for the trap runs and the no-GPU check:
    --expect-exit N      the exit status that counts as success (default 0);
                         with N = 77, exit 77 is a pass, not a skip
    --expect-line TEXT   stdout must contain this exact line (repeatable)
    --expect-empty-stdout  stdout must be empty (the no-GPU rule)
    --expect-stderr-lines N  stderr must hold exactly N lines
    --show               print the program's output first (run_all.sh uses it)
"""

import argparse
import difflib
import os
import signal
import subprocess
import sys

SKIP = 77
PASS, FAIL, ERROR = 0, 1, 2


def normalise(data: bytes) -> bytes:
    return data.replace(b"\r\n", b"\n")


def visible_lines(data: bytes):
    """Lines for the diff, with every invisible difference made visible."""
    text = data.decode("utf-8", errors="backslashreplace")
    out = []
    for line in text.splitlines(keepends=True):
        has_newline = line.endswith("\n")
        body = line[:-1] if has_newline else line
        stripped = body.rstrip(" ")
        body = stripped + "·" * (len(body) - len(stripped))
        body = body.replace("\t", "→")
        out.append(body + ("$\n" if has_newline else "   [no newline at end of file]\n"))
    return out


def describe_exit(returncode: int) -> str:
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = "signal %d" % -returncode
        return "was killed by %s" % name
    return "exited with status %d" % returncode


def tail(data: bytes, lines: int = 20) -> str:
    text = data.decode("utf-8", errors="backslashreplace").rstrip("\n")
    if not text:
        return "    (nothing)"
    return "\n".join("    " + l for l in text.splitlines()[-lines:])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description="Run a program and compare its stdout with a golden file.",
        usage="%(prog)s [options] -- PROGRAM [ARGS...]")
    parser.add_argument("--golden", help="the expected stdout, byte for byte")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds (default 60)")
    parser.add_argument("--update", action="store_true",
                        help="rewrite the golden from the program's stdout (only if it exited 0)")
    parser.add_argument("--expect-exit", type=int, default=0, metavar="N")
    parser.add_argument("--expect-line", action="append", default=[], metavar="TEXT")
    parser.add_argument("--expect-empty-stdout", action="store_true")
    parser.add_argument("--expect-stderr-lines", type=int, metavar="N")
    parser.add_argument("--show", action="store_true",
                        help="print the program's stdout (and stderr) before the verdict")
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                        help="set an environment variable for the program (repeatable)")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)

    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.print_usage(sys.stderr)
        print("compare_output: ERROR: no program to run", file=sys.stderr)
        return ERROR
    if args.update and not args.golden:
        print("compare_output: ERROR: --update needs --golden", file=sys.stderr)
        return ERROR
    if not (args.golden or args.expect_line or args.expect_empty_stdout):
        print("compare_output: ERROR: nothing to check (give --golden, --expect-line "
              "or --expect-empty-stdout)", file=sys.stderr)
        return ERROR

    golden = None
    if args.golden and not args.update:
        try:
            with open(args.golden, "rb") as f:
                golden = normalise(f.read())
        except OSError as e:
            print("compare_output: ERROR: cannot read golden %s: %s" % (args.golden, e.strerror),
                  file=sys.stderr)
            return ERROR

    env = dict(os.environ)
    for item in args.env:
        name, sep, value = item.partition("=")
        if not sep or not name:
            print("compare_output: ERROR: --env wants NAME=VALUE, got %r" % item, file=sys.stderr)
            return ERROR
        env[name] = value

    name = os.path.basename(command[0])
    try:
        proc = subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=args.timeout, env=env)
    except subprocess.TimeoutExpired as e:
        print("FAIL: %s ran past the %g s timeout and was stopped" % (name, args.timeout))
        print("  stdout so far:\n" + tail(e.stdout or b""))
        return FAIL
    except OSError as e:
        print("compare_output: ERROR: cannot run %s: %s" % (command[0], e.strerror),
              file=sys.stderr)
        return ERROR

    stdout = normalise(proc.stdout)
    rc = proc.returncode
    if args.show:
        sys.stdout.write(stdout.decode("utf-8", errors="backslashreplace"))
        if rc != SKIP:  # a skip's reason is printed once, on the SKIPPED line
            sys.stdout.write(proc.stderr.decode("utf-8", errors="backslashreplace"))
        sys.stdout.flush()

    if rc == SKIP and args.expect_exit != SKIP:
        reason = proc.stderr.decode("utf-8", errors="backslashreplace").strip() or "exit 77"
        print("SKIPPED: %s" % reason)
        return SKIP

    if rc != args.expect_exit:
        print("FAIL: %s %s (expected status %d)" % (name, describe_exit(rc), args.expect_exit))
        print("  stderr:\n" + tail(proc.stderr))
        print("  stdout (last lines):\n" + tail(stdout))
        return FAIL

    if args.update:
        if rc != 0:
            print("compare_output: ERROR: --update refuses to write a golden from a run that "
                  "%s" % describe_exit(rc), file=sys.stderr)
            return ERROR
        with open(args.golden, "wb") as f:
            f.write(stdout)
        print("UPDATED: %s (%d bytes)" % (args.golden, len(stdout)))
        return PASS

    failures = []
    if golden is not None and stdout != golden:
        diff = difflib.unified_diff(visible_lines(golden), visible_lines(stdout),
                                    fromfile="expected: %s" % args.golden,
                                    tofile="actual: stdout of %s" % name)
        failures.append("stdout differs from the golden "
                        "('·' = trailing space, '$' = end of line):\n" + "".join(diff))
    lines = stdout.decode("utf-8", errors="backslashreplace").splitlines()
    for want in args.expect_line:
        if want not in lines:
            failures.append("stdout has no line %r" % want)
    if args.expect_empty_stdout and stdout:
        failures.append("stdout should be empty but holds %d bytes:\n%s" % (len(stdout), tail(stdout)))
    if args.expect_stderr_lines is not None:
        err_lines = proc.stderr.decode("utf-8", errors="backslashreplace").splitlines()
        if len(err_lines) != args.expect_stderr_lines:
            failures.append("stderr should hold %d line(s) but holds %d:\n%s"
                            % (args.expect_stderr_lines, len(err_lines), tail(proc.stderr)))

    if failures:
        for f in failures:
            print("FAIL: " + f)
        return FAIL
    print("PASS: %s %s and printed what was expected" % (name, describe_exit(rc)))
    return PASS


if __name__ == "__main__":
    sys.exit(main())
