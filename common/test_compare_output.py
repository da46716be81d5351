#!/usr/bin/env python3
"""Tests of compare_output.py:  python3 -m unittest discover -s common -p 'test_*.py'"""

import contextlib
import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_output  # noqa: E402


def program(code):
    """A command line that runs the given Python snippet as 'the program'."""
    return ["--", sys.executable, "-c", code]


def write_stdout(data: bytes):
    return "import sys; sys.stdout.buffer.write(%r)" % data


class CompareOutputTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def golden(self, data: bytes, name="golden.txt"):
        path = os.path.join(self.tmp.name, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def run_tool(self, *argv):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = compare_output.main(list(argv))
        return rc, out.getvalue(), err.getvalue()

    def test_match(self):
        g = self.golden(b"a 1 2 \nself-check: confirmed\n")
        rc, out, _ = self.run_tool("--golden", g, *program(write_stdout(b"a 1 2 \nself-check: confirmed\n")))
        self.assertEqual(rc, 0, out)
        self.assertIn("PASS", out)

    def test_mismatch_shows_diff(self):
        g = self.golden(b"pass 1: 2 4 5 3\npass 2: 2 3 5 4\n")
        rc, out, _ = self.run_tool("--golden", g, *program(write_stdout(b"pass 1: 2 4 5 3\npass 2: 9 9 9 9\n")))
        self.assertEqual(rc, 1)
        self.assertIn("-pass 2: 2 3 5 4$", out)
        self.assertIn("+pass 2: 9 9 9 9$", out)

    def test_trailing_space_only_difference_is_visible(self):
        g = self.golden(b"input: 2 4 6 \n")
        rc, out, _ = self.run_tool("--golden", g, *program(write_stdout(b"input: 2 4 6\n")))
        self.assertEqual(rc, 1)
        self.assertIn("-input: 2 4 6·$", out)
        self.assertIn("+input: 2 4 6$", out)

    def test_missing_final_newline_is_visible(self):
        g = self.golden(b"done\n")
        rc, out, _ = self.run_tool("--golden", g, *program(write_stdout(b"done")))
        self.assertEqual(rc, 1)
        self.assertIn("no newline at end of file", out)

    def test_crlf_is_read_as_lf(self):
        g = self.golden(b"line one\nline two \n")
        rc, out, _ = self.run_tool("--golden", g, *program(write_stdout(b"line one\r\nline two \r\n")))
        self.assertEqual(rc, 0, out)

    def test_nonzero_exit_fails(self):
        g = self.golden(b"self-check: MISMATCH\n")
        rc, out, _ = self.run_tool("--golden", g, *program(
            write_stdout(b"self-check: MISMATCH\n") + "; sys.exit(1)"))
        self.assertEqual(rc, 1)
        self.assertIn("exited with status 1", out)

    @unittest.skipIf(os.name == "nt", "POSIX signals")
    def test_crash_fails(self):
        g = self.golden(b"x\n")
        rc, out, _ = self.run_tool("--golden", g, *program("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"))
        self.assertEqual(rc, 1)
        self.assertIn("killed by SIGSEGV", out)

    def test_timeout_fails(self):
        g = self.golden(b"x\n")
        rc, out, _ = self.run_tool("--timeout", "0.5", "--golden", g, *program("import time; time.sleep(30)"))
        self.assertEqual(rc, 1)
        self.assertIn("timeout", out)

    def test_skip_passes_77_through(self):
        g = self.golden(b"x\n")
        rc, out, _ = self.run_tool("--golden", g, *program(
            "import sys; sys.stderr.write('prog: skipped: no usable CUDA GPU (no device)\\n'); sys.exit(77)"))
        self.assertEqual(rc, 77)
        self.assertIn("SKIPPED", out)
        self.assertIn("no usable CUDA GPU", out)

    def test_expected_77_is_a_pass_not_a_skip(self):
        rc, out, _ = self.run_tool("--expect-exit", "77", "--expect-empty-stdout",
                                   "--expect-stderr-lines", "1", *program(
            "import sys; sys.stderr.write('prog: skipped: no usable CUDA GPU (x)\\n'); sys.exit(77)"))
        self.assertEqual(rc, 0, out)

    def test_expected_empty_stdout_fails_when_something_is_printed(self):
        rc, out, _ = self.run_tool("--expect-exit", "77", "--expect-empty-stdout", *program(
            "import sys; print('=== header ==='); sys.exit(77)"))
        self.assertEqual(rc, 1)
        self.assertIn("should be empty", out)

    def test_missing_golden_is_an_error(self):
        rc, out, err = self.run_tool("--golden", os.path.join(self.tmp.name, "nope.txt"),
                                     *program(write_stdout(b"x\n")))
        self.assertEqual(rc, 2)
        self.assertIn("cannot read golden", err)
        self.assertNotIn("PASS", out)

    def test_unreadable_golden_is_an_error(self):
        # a directory in place of the golden file cannot be read as one
        rc, _, err = self.run_tool("--golden", self.tmp.name, *program(write_stdout(b"x\n")))
        self.assertEqual(rc, 2)
        self.assertIn("cannot read golden", err)

    def test_expect_line(self):
        code = write_stdout(b"self-check: kernel result: MISMATCH\n") + "; sys.exit(1)"
        rc, out, _ = self.run_tool("--expect-exit", "1", "--expect-line",
                                   "self-check: kernel result: MISMATCH", *program(code))
        self.assertEqual(rc, 0, out)
        rc, out, _ = self.run_tool("--expect-exit", "1", "--expect-line",
                                   "self-check: kernel result: confirmed", *program(code))
        self.assertEqual(rc, 1)

    def test_update_writes_only_after_exit_0(self):
        path = os.path.join(self.tmp.name, "new_golden.txt")
        rc, _, _ = self.run_tool("--update", "--golden", path, *program(write_stdout(b"fresh \n")))
        self.assertEqual(rc, 0)
        with open(path, "rb") as f:
            self.assertEqual(f.read(), b"fresh \n")
        rc, _, err = self.run_tool("--update", "--golden", path, *program(
            write_stdout(b"broken\n") + "; sys.exit(1)"))
        self.assertNotEqual(rc, 0)
        with open(path, "rb") as f:
            self.assertEqual(f.read(), b"fresh \n")

    def test_env_is_passed_to_the_program(self):
        rc, out, _ = self.run_tool("--env", "CUDA_VISIBLE_DEVICES=", "--expect-line", "[]", *program(
            "import os; print(repr(os.environ['CUDA_VISIBLE_DEVICES']).replace(\"''\", '[]'))"))
        self.assertEqual(rc, 0, out)


if __name__ == "__main__":
    unittest.main()
