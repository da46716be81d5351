#!/usr/bin/env python3
"""Checks that every --replay golden says, on its first and its last line,
that it is a CPU replay and that no kernel ran -- so that a reader who meets
"self-check: ... confirmed" in a replay's output knows what was confirmed --
and that a lesson's replay golden holds the book's output, unchanged, between
those two lines.

    check_replay_goldens.py [--golden-dir expected_output]

Exit status 0 when every replay golden holds, 1 when one does not (each
problem is printed), 2 when there are none.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import supervisor  # noqa: E402  (first: the signal handlers are in place before any other import)
import arguments  # noqa: E402  (the command line)
import glob
import re

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

# The first line: a book lesson's replay, or another program's.
FIRST = re.compile(r"^\[--replay: .*a host loop plays the kernel's threads; no GPU was used\]$")
# The last line, the same for every replay.
LAST = "[--replay: the checks above judged the host loop's result, on the CPU; no kernel ran]"
LESSON = re.compile(r"^[0-9][0-9]_(?!trap_)")


def problems_of(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    name = os.path.basename(path)
    found = []
    if not lines or not FIRST.match(lines[0]):
        found.append("%s: the first line is not a '[--replay: ...; no GPU was used]' label" % name)
    if not lines or lines[-1] != LAST:
        found.append("%s: the last line is not %r" % (name, LAST))
    book = os.path.join(os.path.dirname(path), name.replace(".replay.txt", ".txt"))
    if LESSON.match(name) and os.path.exists(book):
        with open(book, encoding="utf-8") as f:
            book_lines = f.read().split("\n")
        if book_lines and book_lines[-1] == "":
            book_lines.pop()
        if lines[1:-1] != book_lines:
            found.append("%s: between its label lines it is not the book's output (%s)"
                         % (name, os.path.basename(book)))
    return found


def main():
    parser = arguments.Parser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--golden-dir", default=os.path.join(REPO, "expected_output"))
    args = parser.parse_args()
    paths = sorted(glob.glob(os.path.join(args.golden_dir, "*.replay.txt")))
    if not paths:
        print("check_replay_goldens.py: no *.replay.txt in %s" % args.golden_dir, file=sys.stderr)
        return 2
    failed = False
    for path in paths:
        found = problems_of(path)
        print("%s: %s" % (os.path.basename(path), "labelled" if not found else "NOT labelled"))
        for p in found:
            print("  " + p)
        failed = failed or bool(found)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
