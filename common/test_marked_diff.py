#!/usr/bin/env python3
"""Tests of marked_diff.py and check_replay_goldens.py: on the repository's
own traps, exercises, claims copies and goldens, and on copies of them broken on purpose --
a drift that the tools do not catch is a failure.

    python3 common/test_marked_diff.py
"""

import glob
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_replay_goldens  # noqa: E402
import marked_diff  # noqa: E402
import suite  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def lines_of(rel):
    return marked_diff.read_lines(os.path.join(REPO, rel))


class TrapDiffTest(unittest.TestCase):
    LESSON = "ch12/61_bitonic_merge_multipass.cu"
    TRAP = "ch12/traps/61_trap_first_group_only.cu"

    def setUp(self):
        self.lesson = lines_of(self.LESSON)
        self.trap = lines_of(self.TRAP)

    def test_every_trap_holds_as_shipped(self):
        pairs = marked_diff.trap_pairs(REPO)
        self.assertEqual(len(pairs), 5)
        for lesson, trap in pairs:
            self.assertIsNotNone(lesson, trap)
            self.assertEqual(marked_diff.trap_problems(marked_diff.read_lines(lesson), marked_diff.read_lines(trap)),
                             [], trap)

    def test_a_lesson_line_edited_later_is_caught(self):
        i = self.lesson.index("    bool should_swap = ascending ? (lo > hi) : (lo < hi);".replace("    ", "            ", 1))
        lesson = list(self.lesson)
        lesson[i] = lesson[i].replace("(lo > hi)", "(lo >= hi)")
        problems = marked_diff.trap_problems(lesson, self.trap)
        self.assertTrue(any("not marked" in p and "lo > hi" in p for p in problems), problems)

    def test_a_lesson_line_added_later_is_caught(self):
        i = self.lesson.index("    int pass_num = 0;")
        lesson = self.lesson[:i] + ['    printf("a line the lesson gained\\n");'] + self.lesson[i:]
        problems = marked_diff.trap_problems(lesson, self.trap)
        self.assertTrue(any("missing from the trap" in p and "gained" in p for p in problems), problems)

    def test_an_unmarked_line_in_the_trap_is_caught(self):
        i = self.trap.index("    int pass_num = 0;")
        trap = self.trap[:i] + ["    pass_num_offset = 1;"] + self.trap[i:]
        problems = marked_diff.trap_problems(self.lesson, trap)
        self.assertTrue(any("pass_num_offset" in p for p in problems), problems)

    def test_a_marked_line_or_block_may_differ(self):
        trap = list(self.trap)
        inside = trap.index("    // ---- trap only: which group pass 2 (dist = 2) left out ----") + 1
        trap[inside] = trap[inside] + "  // changed inside a block"
        i = trap.index("    int pass_num = 0;")
        trap.insert(i, "    int unused = 0;  // <-- trap only: a marked line")
        self.assertEqual(marked_diff.trap_problems(self.lesson, trap), [])

    def test_an_unclosed_block_and_a_trap_without_its_line_are_caught(self):
        trap = [l for l in self.trap if "---- end of trap only" not in l]
        self.assertTrue(any("never closed" in p or "opens inside" in p for p in marked_diff.trap_problems(self.lesson, trap)))
        trap = [l.replace("<-- THE TRAP", "<-- trap only") for l in self.trap]
        self.assertTrue(any("THE TRAP" in p for p in marked_diff.trap_problems(self.lesson, trap)))

    def test_the_include_path_is_the_one_free_difference(self):
        trap = [l.replace('"../../common/cli.h"', '"../../common/other.h"') for l in self.trap]
        self.assertTrue(marked_diff.trap_problems(self.lesson, trap))


class ExerciseDiffTest(unittest.TestCase):
    STARTER = ["a", "// ---- exercise 1: your code ----", "todo", "// ---- end of your code ----", "b"]

    def test_every_solution_holds_as_shipped(self):
        pairs = marked_diff.exercise_pairs(REPO)
        self.assertEqual(len(pairs), 5)
        for starter, solution in pairs:
            self.assertIsNotNone(starter, solution)
            self.assertEqual(marked_diff.exercise_problems(marked_diff.read_lines(starter),
                                                           marked_diff.read_lines(solution)), [], solution)

    def test_only_the_region_may_differ(self):
        solution = list(self.STARTER)
        solution[2:3] = ["done", "and more"]
        self.assertEqual(marked_diff.exercise_problems(self.STARTER, solution), [])
        solution[-1] = "b changed"
        self.assertTrue(marked_diff.exercise_problems(self.STARTER, solution))

    def test_a_missing_region_is_caught(self):
        self.assertTrue(marked_diff.exercise_problems(["a"], ["a"]))
        self.assertTrue(marked_diff.exercise_problems(self.STARTER, ["a", "todo", "b"]))

    def test_the_command_line_fails_on_a_drifted_copy(self):
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copytree(os.path.join(REPO, "ch12"), os.path.join(tmp, "ch12"))
            tool = [sys.executable, "-S", os.path.join(HERE, "marked_diff.py")]
            self.assertEqual(subprocess.run(tool + ["traps", "--repo", tmp], stdout=subprocess.PIPE).returncode, 0)
            lesson = os.path.join(tmp, "ch12", "63_bitonic_sort_iterative.cu")
            with open(lesson) as f:
                text = f.read()
            with open(lesson, "w") as f:
                f.write(text.replace("bool ascending = ((i & k) == 0);", "bool ascending = ((i & k) == 1);", 1))
            p = subprocess.run(tool + ["traps", "--repo", tmp], stdout=subprocess.PIPE)
            self.assertEqual(p.returncode, 1)
            self.assertIn(b"63_trap_no_pair_guard.cu", p.stdout)


class CopyDiffTest(unittest.TestCase):
    CLAIMS = "ch12/extras/claims/chapter_claims.cpp"

    def setUp(self):
        self.claims = lines_of(self.CLAIMS)

    def test_every_copy_holds_as_shipped(self):
        blocks, problems = marked_diff.copy_blocks(self.claims)
        self.assertEqual(problems, [])
        self.assertEqual(len(blocks), 6)
        self.assertEqual(marked_diff.copy_problems(REPO, self.claims), [])

    def test_a_copied_line_edited_is_caught(self):
        i = self.claims.index("    int half = cnt / 2;")
        claims = list(self.claims)
        claims[i] = "    int half = cnt / 2 + 0;"
        problems = marked_diff.copy_problems(REPO, claims)
        self.assertTrue(any("bitonic_sort_cpu" in p and "not marked" in p for p in problems), problems)

    def test_a_lesson_line_edited_later_is_caught(self):
        with tempfile.TemporaryDirectory() as tmp:
            for rel in ("ch12/58_bitonic_split_cpu_baseline.cpp", "ch12/61_bitonic_merge_multipass.cu",
                        "ch12/62_bitonic_sort_cpu_baseline.cpp", "ch12/63_bitonic_sort_iterative.cu", self.CLAIMS):
                os.makedirs(os.path.dirname(os.path.join(tmp, rel)), exist_ok=True)
                shutil.copy(os.path.join(REPO, rel), os.path.join(tmp, rel))
            lesson = os.path.join(tmp, "ch12/58_bitonic_split_cpu_baseline.cpp")
            with open(lesson, encoding="utf-8") as f:
                text = f.read()
            with open(lesson, "w", encoding="utf-8") as f:
                f.write(text.replace("return i == n - 1;", "return i >= n - 1;"))
            p = subprocess.run([sys.executable, "-S", os.path.join(HERE, "marked_diff.py"), "copies", "--repo", tmp],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
            self.assertEqual(p.returncode, 1, p.stdout)
            self.assertIn(b"is_bitonic", p.stdout)

    def test_a_function_the_lesson_no_longer_has_is_caught(self):
        claims = [line.replace("copy of ch12/62_bitonic_sort_cpu_baseline.cpp: bitonic_merge_cpu",
                               "copy of ch12/62_bitonic_sort_cpu_baseline.cpp: bitonic_merge_gpu") for line in self.claims]
        problems = marked_diff.copy_problems(REPO, claims)
        self.assertTrue(any("has no function bitonic_merge_gpu" in p for p in problems), problems)


class ReplayGoldenTest(unittest.TestCase):
    def test_every_replay_golden_is_labelled_first_and_last(self):
        paths = glob.glob(os.path.join(REPO, "expected_output", "*.replay.txt"))
        self.assertGreaterEqual(len(paths), 6)
        for path in paths:
            self.assertEqual(check_replay_goldens.problems_of(path), [], path)

    def test_a_replay_without_its_closing_line_or_with_a_changed_book_line_fails(self):
        with tempfile.TemporaryDirectory() as tmp:
            for name in ("63_bitonic_sort_iterative.replay.txt", "63_bitonic_sort_iterative.txt"):
                shutil.copy(os.path.join(REPO, "expected_output", name), tmp)
            replay = os.path.join(tmp, "63_bitonic_sort_iterative.replay.txt")
            with open(replay) as f:
                lines = f.read().split("\n")
            with open(replay, "w") as f:
                f.write("\n".join(lines[:-2]) + "\n")  # the closing line dropped
            self.assertTrue(any("last line" in p for p in check_replay_goldens.problems_of(replay)))
            lines[3] = lines[3] + " changed"
            with open(replay, "w") as f:
                f.write("\n".join(lines))
            self.assertTrue(any("book's output" in p for p in check_replay_goldens.problems_of(replay)))


class HandoutAnswersTest(unittest.TestCase):
    TOOL = [sys.executable, "-S", os.path.join(HERE, "marked_diff.py"), "handout"]

    def test_this_checkouts_handout_holds_no_answer(self):
        p = subprocess.run(self.TOOL + ["--repo", REPO], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertEqual(p.returncode, 0, p.stdout.decode() + p.stderr.decode())
        self.assertIn(b"none found", p.stdout)

    def test_an_answer_anywhere_in_the_handout_is_found_and_what_is_handed_anyway_is_not(self):
        with tempfile.TemporaryDirectory() as tmp:   # (a copy without git: its files are walked)
            def put(rel, text):
                path = os.path.join(tmp, rel)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w") as f:
                    f.write(text)
            region = "    // ---- exercise 1: your code ----\n%s    // ---- end of your code ----\n"
            put("ch12/exercises/1_x/ex1_x.cuh", region % "    // TODO\n")
            put("ch12/exercises/solutions/ex1_x.cuh", region % (
                "    int answer = lookup(i) ^ flip;  // the answer\n"
                "    int k = 2;\n"                                     # under 16 characters
                "    for (int dist = n / 2; dist >= 1; dist /= 2) {\n"  # the book's
                "    }\n"))
            put("ch12/61_bitonic_merge_multipass.cu", "for (int dist = n / 2; dist >= 1; dist /= 2) {\n")
            put("notes/README.md", "The loop is `for (int dist = n / 2; dist >= 1; dist /= 2)`; int k = 2;\n")
            p = subprocess.run(self.TOOL + ["--repo", tmp], stdout=subprocess.PIPE)
            self.assertEqual(p.returncode, 0, p.stdout)
            put("common/test_x.py", 'f.write(text.replace("x", "int answer =  lookup(i) ^ flip;"))\n')
            p = subprocess.run(self.TOOL + ["--repo", tmp], stdout=subprocess.PIPE)
            self.assertEqual(p.returncode, 1, p.stdout)
            self.assertIn(b"common/test_x.py holds a line of ch12/exercises/solutions/ex1_x.cuh's region: "
                          b"int answer = lookup(i) ^ flip;", p.stdout)
            # The solutions themselves are not handed out.
            self.assertNotIn(b"solutions/ex1_x.cuh holds", p.stdout)


MIN_TESTS = 19

if __name__ == "__main__":
    suite.run([TrapDiffTest, ExerciseDiffTest, CopyDiffTest, ReplayGoldenTest, HandoutAnswersTest], MIN_TESTS)
