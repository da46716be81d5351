#!/usr/bin/env python3
"""Keeps the copies of a file from drifting away from what they copy: each
COMMON TRAP from its lesson, each exercise solution from its starter, each
lesson function that an extra copies from its lesson.

    marked_diff.py traps [--repo DIR]       every ch12/traps/NN_trap_*.c* against ch12/NN_*.c*
    marked_diff.py exercises [--repo DIR]   every ch12/exercises/solutions/* against its starter
    marked_diff.py copies [--repo DIR]      every marked copy of a lesson's function in
                                            ch12/extras/claims/chapter_claims.cpp against it
    marked_diff.py handout [--repo DIR]     no line of a solution's region in any file of
                                            the student handout (./run_all.sh --handout)

A trap is its lesson with a few lines changed on purpose. Every line of the
trap that differs from the lesson must be marked, one of three ways:

    ... // <-- THE TRAP: ...          the wrong line itself
    ... // <-- trap only: ...         a line changed to show or search for the damage
    // ---- trap only: <what> ----    a block of such lines, down to and including
    ...                               the line
    // ---- end of trap only ----

and a lesson line the trap leaves out may only be missing right next to a
marked line or block (which says what replaces it). Blank lines may come and
go. Anything else -- a lesson
line edited after the trap was made, a line added to the trap without a mark --
is reported with both files' line numbers. The one difference allowed without
a mark: a trap sits a folder deeper, so its `#include "../../common/...`
stands for the lesson's `#include "../common/...`.

A solution is its starter with the code between

    // ---- exercise N: your code ... ----
    ...
    // ---- end of your code ----

filled in: outside those regions the two files must be identical, line for line.

A copy of a lesson's function stands between

    // ---- copy of ch12/<lesson file>: <function> ----
    ...
    // ---- end of copy ----

and is that function of the lesson (from the line that names it to its
closing brace) with the lines marked `// <-- claims only: ...` changed, as a
trap is its lesson with marked lines: an unmarked line that differs, or a
lesson line missing with no mark beside it, is reported.

The handout holds no answer: each line of each solution's region, as code
(its // comment and its spaces dropped), is looked for in every file of the
handout (as run_all.sh --handout would make it from this checkout, the
whitespace of each file collapsed too) -- except the lines a student is
handed anyway: those of the exercise's starter, those of the book's programs
(ch12/NN_*, ch12/traps/NN_*: the lessons the exercises build on), lines
under 16 characters (`int pass = 0;`, `pass++;`), too short to give an answer
away, and the lines of NOT_AN_ANSWER below, each with why. Each one found is
reported with the file that holds it.

Exit status: 0 when every pair holds, 1 when one does not (each problem is
printed), 2 when a pair cannot be found or read.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import supervisor  # noqa: E402  (first: the signal handlers are in place before any other import)
import arguments  # noqa: E402  (the command line)
import difflib
import glob
import re

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

TRAP_LINE = re.compile(r"<-- (THE TRAP|trap only)\b")
TRAP_BEGIN = re.compile(r"^\s*// ---- trap only\b")
TRAP_END = re.compile(r"^\s*// ---- end of trap only\b")
YOURS_BEGIN = re.compile(r"^\s*// ---- exercise \d+: your code\b")
YOURS_END = re.compile(r"^\s*// ---- end of your code\b")
COPY_LINE = re.compile(r"<-- claims only\b")
COPY_BEGIN = re.compile(r"^// ---- copy of (\S+): (\w+) ----\s*$")
COPY_END = re.compile(r"^// ---- end of copy ----\s*$")
COPIERS = ("ch12/extras/claims/chapter_claims.cpp",)


def read_lines(path):
    with open(path, encoding="utf-8", newline="") as f:
        return f.read().replace("\r\n", "\n").split("\n")


def trap_marks(trap):
    """Which lines of the trap are marked (a list of bools), and the problems
    with the marks themselves (a block never closed, an end with no begin)."""
    marked, problems, open_at = [], [], None
    for number, line in enumerate(trap, 1):
        if TRAP_BEGIN.search(line):
            if open_at is not None:
                problems.append("line %d: a trap-only block opens inside the one opened at line %d" % (number, open_at))
            open_at = number
            marked.append(True)
        elif TRAP_END.search(line):
            if open_at is None:
                problems.append("line %d: 'end of trap only' with no block open" % number)
            open_at = None
            marked.append(True)
        else:
            marked.append(open_at is not None or bool(TRAP_LINE.search(line)))
    if open_at is not None:
        problems.append("line %d: a trap-only block is never closed" % open_at)
    return marked, problems


def normalise_trap_line(line):
    return line.replace('#include "../../common/', '#include "../common/', 1) if line.startswith("#include") else line


def trap_problems(lesson, trap):
    """The differences between a lesson and its trap (lists of lines) that
    no mark allows. An empty list: the trap is its lesson plus marked lines."""
    marked, problems = trap_marks(trap)
    if not any("<-- THE TRAP" in line for line in trap):
        problems.append("no line is marked '<-- THE TRAP': which line is wrong on purpose?")
    normalised = [normalise_trap_line(line) for line in trap]
    return problems + marked_problems(lesson, normalised, trap, marked)


def marked_problems(lesson, copy, shown, marked):
    """The differences between lesson and copy (lists of lines; `shown`: the
    copy's lines as reported) that the marks (a bool per copy line) do not
    allow: an unmarked line that differs, or a lesson line missing with no
    mark beside it. Blank lines may come and go."""
    problems = []
    trap = shown
    matcher = difflib.SequenceMatcher(None, lesson, copy, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        unmarked = [j for j in range(j1, j2) if not marked[j] and trap[j].strip()]
        for j in unmarked:
            problems.append("trap line %d differs from the lesson and is not marked: %s" % (j + 1, trap[j].strip()))
        if tag == "delete":
            beside_a_mark = (j1 > 0 and marked[j1 - 1]) or (j1 < len(trap) and marked[j1])
            if not beside_a_mark:
                for i in [i for i in range(i1, i2) if lesson[i].strip()]:
                    problems.append("lesson line %d is missing from the trap (at trap line %d), with no mark beside it: %s"
                                    % (i + 1, j1 + 1, lesson[i].strip()))
    return problems


def function_lines(lines, name):
    """The lines of the function `name` in a file: from the line at column 0
    that names it and opens its body, to its closing brace at column 0.
    None when there is no such function."""
    start = re.compile(r"^[A-Za-z_].*\b%s\s*\(.*\{\s*$" % re.escape(name))
    for i, line in enumerate(lines):
        if start.search(line):
            for j in range(i + 1, len(lines)):
                if lines[j].rstrip() == "}":
                    return lines[i:j + 1]
    return None


def copy_blocks(copier):
    """The marked copies in a file: (lesson file, function, first line number, lines), and the problems with the marks."""
    blocks, problems, open_at = [], [], None
    for number, line in enumerate(copier, 1):
        begin = COPY_BEGIN.search(line)
        if begin:
            if open_at is not None:
                problems.append("line %d: a copy opens inside the one opened at line %d" % (number, open_at[0]))
            open_at = (number, begin.group(1), begin.group(2), [])
        elif COPY_END.search(line):
            if open_at is None:
                problems.append("line %d: 'end of copy' with no copy open" % number)
            else:
                blocks.append((open_at[1], open_at[2], open_at[0] + 1, open_at[3]))
            open_at = None
        elif open_at is not None:
            open_at[3].append(line)
    if open_at is not None:
        problems.append("line %d: a copy is never closed" % open_at[0])
    return blocks, problems


def copy_problems(repo, copier):
    """Every marked copy in `copier` (a list of lines) against its lesson's function."""
    blocks, problems = copy_blocks(copier)
    if not blocks:
        problems.append("no '// ---- copy of <lesson>: <function> ----' block: what does it copy?")
    for lesson_file, name, first, block in blocks:
        path = os.path.join(repo, lesson_file)
        if not os.path.isfile(path):
            problems.append("line %d: %s does not exist" % (first - 1, lesson_file))
            continue
        original = function_lines(read_lines(path), name)
        if original is None:
            problems.append("line %d: %s has no function %s" % (first - 1, lesson_file, name))
            continue
        code = [line for line in block if line.strip()]
        while block and not block[-1].strip():
            block = block[:-1]
        marked = [bool(COPY_LINE.search(line)) for line in block]
        for p in marked_problems(original, block, block, marked):
            problems.append("%s's %s, copied at line %d: %s" % (lesson_file, name, first,
                                                                p.replace("trap line", "copy line").replace("the trap", "the copy")))
        if not code:
            problems.append("line %d: the copy of %s is empty" % (first - 1, name))
    return problems


def regions(lines, begin, end, what):
    """Splits lines into [outside, inside, outside, inside, ..., outside]."""
    parts, current, inside, problems = [], [], False, []
    for number, line in enumerate(lines, 1):
        if begin.search(line):
            if inside:
                problems.append("%s line %d: a region opens inside another" % (what, number))
            current.append(line)
            parts.append(current)
            current, inside = [], True
        elif end.search(line):
            if not inside:
                problems.append("%s line %d: a region ends that never began" % (what, number))
            parts.append(current)
            current, inside = [line], False
        else:
            current.append(line)
    if inside:
        problems.append("%s: a region is never closed" % what)
    parts.append(current)
    return parts, problems


def exercise_problems(starter, solution):
    """The differences between a starter and its solution outside the
    regions the student fills in. An empty list: they differ only there."""
    s_parts, problems = regions(starter, YOURS_BEGIN, YOURS_END, "starter")
    o_parts, more = regions(solution, YOURS_BEGIN, YOURS_END, "solution")
    problems += more
    if len(s_parts) < 3:
        problems.append("the starter has no '// ---- exercise N: your code' region")
    if len(s_parts) != len(o_parts):
        problems.append("the starter has %d region(s) to fill in, the solution %d"
                        % (len(s_parts) // 2, len(o_parts) // 2))
        return problems
    s_line = o_line = 1
    for k, (s, o) in enumerate(zip(s_parts, o_parts)):
        if k % 2 == 0 and s != o:
            for line in difflib.unified_diff(s, o, "starter (from line %d)" % s_line,
                                             "solution (from line %d)" % o_line, lineterm="", n=1):
                problems.append("outside the exercise's region: " + line)
        s_line += len(s)
        o_line += len(o)
    return problems


def trap_pairs(repo):
    pairs = []
    for trap in sorted(glob.glob(os.path.join(repo, "ch12", "traps", "[0-9][0-9]_trap_*.c*"))):
        number = os.path.basename(trap)[:2]
        lessons = [p for p in glob.glob(os.path.join(repo, "ch12", number + "_*.c*"))
                   if os.path.splitext(p)[1] in (".cpp", ".cu")]
        pairs.append((lessons[0] if len(lessons) == 1 else None, trap))
    return pairs


def exercise_pairs(repo):
    pairs = []
    for solution in sorted(glob.glob(os.path.join(repo, "ch12", "exercises", "solutions", "*.c*"))):
        if not solution.endswith((".cuh", ".cpp")):
            continue  # (mutants.cmake: the simulator's tests)
        name = os.path.basename(solution)
        starters = glob.glob(os.path.join(repo, "ch12", "exercises", "*", name))
        starters = [s for s in starters if os.sep + "solutions" + os.sep not in s]
        pairs.append((starters[0] if len(starters) == 1 else None, solution))
    return pairs


def copies_main(repo):
    failed = False
    for rel in COPIERS:
        path = os.path.join(repo, rel)
        if not os.path.isfile(path):
            print("marked_diff.py: %s does not exist" % rel, file=sys.stderr)
            return 2
        lines = read_lines(path)
        problems = copy_problems(repo, lines)
        blocks, _ = copy_blocks(lines)
        print("%s: %d copies of the lessons' functions: %s" % (rel, len(blocks),
                                                              "only marked differences" if not problems
                                                              else "%d problem(s)" % len(problems)))
        for p in problems:
            print("  " + p)
        failed = failed or bool(problems)
    return 1 if failed else 0


def code_of(line):
    """A line as code: its // comment and its runs of spaces dropped."""
    return " ".join(re.sub(r"//.*$", "", line).split())


# Lines of a solution that other files of the handout may hold, each with why
# it gives no answer away.
NOT_AN_ANSWER = {
    "while (padded < n) padded *= 2;": "rounding up to a power of two is exercise 2's hint in its README, and how "
                                        "the GLSL host and the page pad their own arrays; the answer is what follows",
}


def answer_lines(repo):
    """[(solution, line)]: the lines of each solution's region that would give
    an answer away (see the top of this file)."""
    handed, book_text = set(NOT_AN_ANSWER), ""
    for book in sorted(glob.glob(os.path.join(repo, "ch12", "[0-9][0-9]_*.c*")) +
                       glob.glob(os.path.join(repo, "ch12", "traps", "[0-9][0-9]_*.c*"))):
        code = [code_of(line) for line in read_lines(book)]
        handed |= set(code)
        book_text += " " + " ".join(code)
    out = []
    for starter, solution in exercise_pairs(repo):
        if starter is None:
            raise OSError("cannot tell which starter %s fills in" % os.path.relpath(solution, repo))
        mine = handed | {code_of(line) for line in read_lines(starter)}
        parts, _ = regions(read_lines(solution), YOURS_BEGIN, YOURS_END, "solution")
        for k in range(1, len(parts), 2):
            for line in parts[k]:
                code = code_of(line)
                if len(code) >= 16 and code not in mine and code not in book_text and (solution, code) not in out:
                    out.append((solution, code))
    return out


def handout_main(repo):
    import run_all  # (the handout's file list: the one run_all.sh --handout copies)
    try:
        answers = answer_lines(repo)
        files = run_all.handout_files(repo)
    except OSError as e:
        print("marked_diff.py: %s" % e, file=sys.stderr)
        return 2
    if not answers:
        print("marked_diff.py: no solution region found under %s" % repo, file=sys.stderr)
        return 2
    found = []
    for rel in files:
        path = os.path.join(repo, rel)
        if not os.path.isfile(path) or os.path.islink(path):
            continue
        with open(path, "rb") as f:
            text = " ".join(f.read().decode("utf-8", "replace").split())
        found += [(rel, solution, code) for solution, code in answers if code in text]
    print("the handout's %d files against %d answer lines of %d solutions: %s"
          % (len(files), len(answers), len({s for s, _ in answers}),
             "none found" if not found else "%d found" % len(found)))
    for rel, solution, code in found:
        print("  %s holds a line of %s's region: %s" % (rel, os.path.relpath(solution, repo), code))
    return 1 if found else 0


def main():
    parser = arguments.Parser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=["traps", "exercises", "copies", "handout"])
    parser.add_argument("--repo", default=REPO)
    args = parser.parse_args()
    if args.what == "copies":
        return copies_main(args.repo)
    if args.what == "handout":
        return handout_main(args.repo)
    pairs = trap_pairs(args.repo) if args.what == "traps" else exercise_pairs(args.repo)
    check = trap_problems if args.what == "traps" else exercise_problems
    if not pairs:
        print("marked_diff.py: no %s found under %s" % (args.what, args.repo), file=sys.stderr)
        return 2
    failed = False
    for original, copy in pairs:
        rel = os.path.relpath(copy, args.repo)
        if original is None:
            print("marked_diff.py: %s: cannot tell which file it copies" % rel, file=sys.stderr)
            return 2
        problems = check(read_lines(original), read_lines(copy))
        print("%s against %s: %s" % (rel, os.path.relpath(original, args.repo),
                                     "only marked differences" if not problems else "%d problem(s)" % len(problems)))
        for p in problems:
            print("  " + p)
        failed = failed or bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
