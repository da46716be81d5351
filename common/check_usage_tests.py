#!/usr/bin/env python3
"""The meta-test of the bad-command-line tests: each must fail against a
stand-in that prints only the program's usage.

    check_usage_tests.py --build-dir build [--ctest ctest]

A usage test (usage_<program>_<what>, BAD_ARGS in ch12_program()) must
require the line that names the problem -- not a word that the usage text
happens to hold ("12" in "Section 12.1"). For every such test this build
recorded (<build>/ch12_programs.json), this runs the test's own check with
the program replaced by a stand-in that prints the program's --help text on
stderr, and nothing else, and exits 2: the check must FAIL. A check that
passes is named, with the text that the usage alone satisfied.

It also requires that every test named usage_* is one of the recorded ones
(so none escapes), when --ctest is given.

Exit status: 0 every check failed against its stand-in; 1 one passed (or a
usage_* test is not recorded, or a program gave no usage); 77 nothing could
be checked (no program with a bad-command-line test was built).

    check_usage_tests.py --stand-in FILE [ARGS...]
is the stand-in itself: it prints FILE (what the program's --help printed)
on stderr, ignores its arguments, and exits 2.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import supervisor  # noqa: E402  (first: the signal handlers are in place before any other import)
import arguments  # noqa: E402  (the command line)
import delete_policy  # noqa: E402  (its scratch folder)
import write_policy  # noqa: E402  (the usages kept there)
import concurrent.futures
import json
import subprocess

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def stand_in(usage_file):
    with open(usage_file, "rb") as f:
        sys.stderr.buffer.write(f.read())
    return 2


def main():
    if sys.argv[1:2] == ["--stand-in"]:
        return stand_in(sys.argv[2])
    ap = arguments.Parser(description="Every usage test must fail against the usage alone.")
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--ctest", help="ctest, to list the tests named usage_* (each must be recorded)")
    a = ap.parse_args()
    with open(os.path.join(a.build_dir, "ch12_programs.json"), encoding="utf-8") as f:
        table = json.load(f)
    recorded = [t for t in table["tests"] if t.get("bad_command_line")]
    problems = []

    if a.ctest:
        p = supervisor.run([a.ctest, "--test-dir", a.build_dir, "--show-only=json-v1"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
        names = {t["name"] for t in json.loads(p.stdout.decode())["tests"]}
        known = {t["test"] for t in recorded}
        for name in sorted(names):
            if name.startswith("usage_") and name not in known:
                problems.append("%s: not made by BAD_ARGS or ch12_test(... BAD_COMMAND_LINE), so this "
                                "meta-test cannot check it" % name)

    usages = {}  # program -> (its --help text, a file holding it), each program run once

    def usage_of(program):
        key = tuple(program)
        if key not in usages:
            helped = supervisor.run(program + ["--help"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, timeout=60)
            text = helped.stdout.decode("utf-8", errors="replace")
            if helped.returncode != 0 or "usage:" not in text.lower():
                usages[key] = (None, "%s --help printed no usage (exit %d)" % (" ".join(program), helped.returncode))
            else:
                path = write_policy.new_file(os.path.join(scratch, "usage%d.txt" % len(usages)), helped.stdout)
                usages[key] = (text, path)
        return usages[key]

    def check_one(t):
        """None when the check failed against the stand-in, as it must; else the problem."""
        usage, where = usage_of(t["program"])
        if usage is None:
            return "%s: %s" % (t["test"], where)
        # (a shell where there is one: it starts in a millisecond, and there are some 130 of these)
        standin = (["/bin/sh", "-c", 'cat "$0" >&2; exit 2', where] if os.path.exists("/bin/sh") else
                   [sys.executable, "-S", os.path.abspath(__file__), "--stand-in", where])
        p = supervisor.run(t["compare"] + t["check"] + ["--"] + standin + t["args"], stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120)
        if p.returncode == 0:
            found = [c.split("=", 1)[1] for c in t["check"]
                     if c.startswith("--expect-stderr-contains=") and c.split("=", 1)[1] in usage]
            return ("%s: passes with only the usage on stderr: the usage already holds %s -- give the line that "
                    "names the problem as '=<text>' (what the program prints after its name)"
                    % (t["test"], ", ".join(repr(x) for x in found)))
        if p.returncode != 1:
            return "%s: its check did not run against the stand-in (exit %d):\n%s" % (
                t["test"], p.returncode, p.stdout.decode("utf-8", errors="replace"))
        return None

    runnable = [t for t in recorded if not t["unbuilt"]]
    skipped = len(recorded) - len(runnable)
    scratch = delete_policy.temporary_folder("ch12-usage-")   # (removed at exit, and on a signal)
    for t in runnable:  # the usages first, one program at a time
        usage_of(t["program"])
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        results = list(pool.map(check_one, runnable))
    delete_policy.remove(scratch)
    checked = len(runnable)
    weak = [r for r in results if r]
    problems += weak

    for line in problems:
        print("FAIL: " + line)
    print("%d bad-command-line checks run against the usage alone: %d failed it as they must; "
          "%d not built in this build" % (checked, checked - len(weak), skipped))
    if problems:
        return 1
    if checked == 0:
        print("SKIPPED: no program with a bad-command-line test was built")
        return 77
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--stand-in"]:
        sys.exit(stand_in(sys.argv[2]))
    sys.exit(supervisor.main(main, "check_usage_tests.py"))
