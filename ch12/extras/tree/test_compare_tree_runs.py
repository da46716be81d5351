#!/usr/bin/env python3
"""compare_tree_runs.py's verdicts, with stand-in programs (no build needed).

    test_compare_tree_runs.py        (CTest: unit_compare_tree_runs)
"""
import os
import stat
import subprocess
import sys
import tempfile
import textwrap
import unittest

TOOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "compare_tree_runs.py")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "common"))
import supervisor  # noqa: E402  (the tool it runs: stopped with it)

# A stand-in evaluator: prints the lines the reference would, except as told
# by its own name's behaviour table (depth -> "ok", "wrong" or "skip").
STANDIN = textwrap.dedent("""\
    #!{python}
    import sys
    behaviour = {behaviour!r}
    d = int(sys.argv[sys.argv.index("--depth") + 1])
    what = behaviour.get(d, "ok")
    if what == "skip":
        print("stand-in: no usable CUDA GPU", file=sys.stderr)
        sys.exit(77)
    print("checksum: %d" % (d * 7 + (1 if what == "wrong" else 0)))
    print("nodes: gen %d, sort 0, total %d" % (d, d))
    """)


class CompareTreeRunsTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory(prefix="tree runs ")  # a space in every path
        self.reference = self.program("reference", {})

    def tearDown(self):
        self.dir.cleanup()

    def program(self, name, behaviour):
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as f:
            f.write(STANDIN.format(python=sys.executable, behaviour=behaviour))
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
        return path

    def compare(self, candidate, depths="1-4"):
        r = supervisor.run([sys.executable, "-S", TOOL, "--reference", self.reference, "--depths", depths, "--", candidate],
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        return r.returncode, (r.stdout + r.stderr).decode(errors="replace")

    def test_agreement_passes(self):
        rc, out = self.compare(self.program("good", {}))
        self.assertEqual(rc, 0, out)
        self.assertIn("4 passed, 0 failed", out)

    def test_a_wrong_checksum_fails(self):
        rc, out = self.compare(self.program("bad", {3: "wrong"}))
        self.assertEqual(rc, 1, out)
        self.assertIn("depth  3: DIFFER", out)

    def test_a_skip_is_a_skip_when_nothing_disagreed(self):
        rc, out = self.compare(self.program("skips", {1: "skip"}))
        self.assertEqual(rc, 77, out)

    def test_a_disagreement_before_a_skip_is_still_a_failure(self):
        rc, out = self.compare(self.program("bad then skips", {1: "wrong", 2: "skip"}))
        self.assertEqual(rc, 1, out)
        self.assertIn("1 failed before the skip", out)

    def test_an_empty_range_is_a_bad_command_line(self):
        rc, out = self.compare(self.program("good", {}), depths="5-1")
        self.assertEqual(rc, 2, out)
        self.assertIn("empty range", out)


if __name__ == "__main__":
    unittest.main(verbosity=2)
