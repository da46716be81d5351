#!/usr/bin/env python3
"""Tests of compare_output.py. Run it as a script: it fails unless at least
MIN_TESTS tests ran.

    python3 common/test_compare_output.py
"""

import contextlib
import io
import os
import signal
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_output  # noqa: E402
import suite  # noqa: E402
from testing_support import atomic_pid_write, signalled, until_ready  # noqa: E402


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

    def test_crlf_output_does_not_equal_an_lf_golden(self):
        # Issue 16, item 18: "byte for byte" is true -- a CRLF line end is a difference, shown.
        g = self.golden(b"line one\nline two \n")
        rc, out, _ = self.run_tool("--golden", g, *program(write_stdout(b"line one\r\nline two \r\n")))
        self.assertEqual(rc, 1, out)
        self.assertIn("+line one␍$", out)
        self.assertIn("CRLF", out)
        rc, out, _ = self.run_tool("--golden", g, *program(write_stdout(b"line one\nline two \n")))
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

    def test_update_keeps_a_masked_line_masked(self):
        # (the GLSL golden's "device: *": an update on one machine must not write that machine's device)
        path = os.path.join(self.tmp.name, "masked_golden.txt")
        rc, out, _ = self.run_tool("--update", "--golden", path, "--mask-line-prefix", "device: ",
                                   *program(write_stdout(b"a\ndevice: llvmpipe\nb\n")))
        self.assertEqual(rc, 0, out)
        with open(path, "rb") as f:
            self.assertEqual(f.read(), b"a\ndevice: *\nb\n")
        rc, out, _ = self.run_tool("--golden", path, "--mask-line-prefix", "device: ",
                                   *program(write_stdout(b"a\ndevice: NVIDIA H200\nb\n")))
        self.assertEqual(rc, 0, out)

    def test_env_is_passed_to_the_program(self):
        rc, out, _ = self.run_tool("--env", "CUDA_VISIBLE_DEVICES=", "--expect-line", "[]", *program(
            "import os; print(repr(os.environ['CUDA_VISIBLE_DEVICES']).replace(\"''\", '[]'))"))
        self.assertEqual(rc, 0, out)

    # ---- issue: the tools must never lose a golden or leave a process behind

    def test_update_refuses_the_books_golden(self):
        book = os.path.join(compare_output.REPO, "expected_output", "58_bitonic_split_cpu_baseline.txt")
        with open(book, "rb") as f:
            before = f.read()
        rc, out, err = self.run_tool("--update", "--golden", book, *program(write_stdout(b"not the book\n")))
        self.assertEqual(rc, 2)
        self.assertIn("book", err)
        self.assertNotIn("UPDATED", out)
        with open(book, "rb") as f:
            self.assertEqual(f.read(), before)

    def test_update_refuses_a_link_to_the_books_golden(self):
        book = os.path.join(compare_output.REPO, "expected_output", "61_bitonic_merge_multipass.replay.txt")
        link = os.path.join(self.tmp.name, "innocent.txt")
        os.symlink(book, link)
        with open(book, "rb") as f:
            before = f.read()
        rc, _, _ = self.run_tool("--update", "--golden", link, *program(write_stdout(b"x\n")))
        self.assertEqual(rc, 2)
        with open(book, "rb") as f:
            self.assertEqual(f.read(), before)

    def test_every_lesson_and_trap_golden_is_protected_and_the_others_are_not(self):
        names = compare_output.book_golden_names()
        for n in ("58_bitonic_split_cpu_baseline", "59_bitonic_split_kernel", "60_bitonic_merge_cpu_baseline",
                  "61_bitonic_merge_multipass", "62_bitonic_sort_cpu_baseline", "63_bitonic_sort_iterative"):
            self.assertIn(n + ".txt", names)
            self.assertIn(n + ".replay.txt", names)
            self.assertTrue(compare_output.is_protected_golden(n + ".txt"))
            self.assertTrue(compare_output.is_protected_golden(n + ".replay.txt"))
        golden_dir = os.path.join(compare_output.REPO, "expected_output")
        for trap in ("58_trap_adjacent_pairs.txt", "61_trap_first_group_only.replay.txt"):
            self.assertTrue(compare_output.is_protected_golden(os.path.join(golden_dir, trap)))
        for ours in ("chapter_claims.txt", "glsl_bitonic_sort.txt", "bitonic_per_element_pass.replay.txt"):
            self.assertFalse(compare_output.is_protected_golden(os.path.join(golden_dir, ours)), ours)

    def test_update_refuses_a_book_golden_of_another_clone_by_its_name(self):
        # Issue 16, item 3: the guard protected only the checkout the script lives in.
        other = os.path.join(self.tmp.name, "cloneB", "expected_output")
        os.makedirs(other)
        for name in ("58_bitonic_split_cpu_baseline.txt", "63_bitonic_sort_iterative.replay.txt",
                     "62_trap_no_pair_guard.txt"):
            path = os.path.join(other, name)
            with open(path, "wb") as f:
                f.write(b"the book\n")
            rc, out, err = self.run_tool("--update", "--golden", path, *program(write_stdout(b"x\n")))
            self.assertEqual(rc, 2, name)
            self.assertIn("numbered listing or trap", err)
            self.assertNotIn("UPDATED", out)
            with open(path, "rb") as f:
                self.assertEqual(f.read(), b"the book\n", name)
        # a link with an innocent name to one of them is refused too
        link = os.path.join(self.tmp.name, "innocent.txt")
        os.symlink(os.path.join(other, "58_bitonic_split_cpu_baseline.txt"), link)
        rc, _, _ = self.run_tool("--update", "--golden", link, *program(write_stdout(b"x\n")))
        self.assertEqual(rc, 2)
        # and a golden that is not numbered is written
        ours = os.path.join(other, "chapter_claims.txt")
        rc, out, _ = self.run_tool("--update", "--golden", ours, *program(write_stdout(b"ours\n")))
        self.assertEqual(rc, 0, out)

    # ---- issue 16, item 18: the golden tool's own messages

    def test_stdout_to_an_unopenable_file_is_an_error_that_does_not_blame_the_program(self):
        path = os.path.join(self.tmp.name, "nonexistent", "d", "f")
        rc, out, err = self.run_tool("--stdout-to", path, *program("print('x')"))
        self.assertEqual(rc, 2)
        self.assertIn("cannot open --stdout-to %s" % path, err)
        self.assertNotIn("cannot run", err)

    def test_update_of_a_folder_is_an_error_and_leaves_no_temporary_file(self):
        folder = os.path.join(self.tmp.name, "goldens")
        os.makedirs(folder)
        rc, out, err = self.run_tool("--update", "--golden", folder, *program(write_stdout(b"x\n")))
        self.assertEqual(rc, 2)
        self.assertIn("is a folder", err)
        self.assertNotIn("Traceback", out + err)
        self.assertEqual(os.listdir(self.tmp.name), ["goldens"])
        self.assertEqual(os.listdir(folder), [])

    def test_limit_memory_zero_is_refused_not_taken_as_no_limit(self):
        with self.assertRaises(SystemExit) as cm, contextlib.redirect_stderr(io.StringIO()) as err:
            compare_output.main(["--limit-memory", "0", "--expect-empty-stdout", "--", sys.executable, "-c", "pass"])
        self.assertEqual(cm.exception.code, 2)
        self.assertIn("positive number of bytes", err.getvalue())

    @unittest.skipIf(os.name == "nt", "POSIX sessions")
    def test_a_child_in_a_session_of_its_own_holding_stdout_is_reported_not_waited_for(self):
        # Issue 25, item 14: a process in a session of its own is no longer out
        # of reach: the supervisor stops it with the program (it was left running).
        # The program must have started that process before the timeout fires:
        # until_ready() gives it more time on a loaded machine.
        pid_file = os.path.join(self.tmp.name, "escaped.pid")
        code = ("import subprocess, sys, time; "
                "c = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)'], start_new_session=True); "
                + atomic_pid_write(pid_file, "c.pid") + "; time.sleep(300)")
        (rc, out, _), timeout, took = until_ready(
            lambda timeout: self.run_tool("--timeout", "%g" % timeout, "--expect-empty-stdout", *program(code)),
            lambda: os.path.exists(pid_file))
        self.assertTrue(os.path.exists(pid_file), "the program never started its child: " + out)
        with open(pid_file) as f:
            escaped = int(f.read())
        alive = wait_gone(escaped)
        if alive:
            os.kill(escaped, 9)
        self.assertEqual(rc, 1, out)
        self.assertGreaterEqual(took, timeout, "the timeout fired early")
        self.assertLess(took, timeout + 60, "it waited for the escaped process (which sleeps 300 s)")
        self.assertIn("ran past the %g s timeout" % timeout, out)
        self.assertIn("sessions of their own", out)
        self.assertFalse(alive, "the process in a session of its own was left running")

    @unittest.skipIf(os.name == "nt", "POSIX sessions")
    def test_a_program_that_exits_leaving_a_process_holding_its_output_fails_and_that_process_is_stopped(self):
        pid_file = os.path.join(self.tmp.name, "left.pid")
        code = ("import subprocess, sys; "
                "c = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)'], start_new_session=True); "
                + atomic_pid_write(pid_file, "c.pid") + "; print('done')")
        start = time.monotonic()
        rc, out, _ = self.run_tool("--timeout", "200", "--expect-line", "done", *program(code))
        took = time.monotonic() - start
        with open(pid_file) as f:
            left = int(f.read())
        alive = wait_gone(left)
        if alive:
            os.kill(left, 9)
        self.assertEqual(rc, 1, out)
        # (the process it left sleeps 300 s: a tool that waited for it would take that long)
        self.assertLess(took, 100, "it waited for the process left holding its output")
        self.assertIn("still held its output open", out)
        self.assertFalse(alive, "the process it left was not stopped")

    @unittest.skipIf(os.name == "nt", "POSIX signals")
    def test_sigint_and_sigterm_stop_the_program_and_exit_130_or_143(self):
        # Issue 16, item 10: an interrupt killed compare_output but left the program running.
        for sig, status in ((signal.SIGINT, 130), (signal.SIGTERM, 143)):
            pid_file = os.path.join(self.tmp.name, "prog.%d.pid" % sig)
            code = ("import os, subprocess, sys, time; "
                    "c = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
                    "open(%r + '.tmp', 'w').write('%%d %%d' %% (os.getpid(), c.pid)); "
                    "os.rename(%r + '.tmp', %r); time.sleep(60)" % (pid_file, pid_file, pid_file))
            rc, out, err, pids = signalled([sys.executable, "-S", compare_output.__file__, "--timeout", "60",
                                            "--expect-empty-stdout", "--", sys.executable, "-c", code],
                                           sig, {}, pid_file)
            self.assertEqual(rc, status, err)
            self.assertNotIn("Traceback", out + err)
            self.assertIn("interrupted by " + signal.Signals(sig).name, err)
            for pid in pids:
                deadline = time.time() + 5
                while time.time() < deadline and process_alive(pid):
                    time.sleep(0.05)
                self.assertFalse(process_alive(pid), "%s left process %d running" % (signal.Signals(sig).name, pid))

    def test_update_into_a_missing_folder_is_an_error_not_a_traceback(self):
        path = os.path.join(self.tmp.name, "no", "such", "folder", "g.txt")
        rc, out, err = self.run_tool("--update", "--golden", path, *program(write_stdout(b"x\n")))
        self.assertEqual(rc, 2)
        self.assertIn("does not exist", err)
        self.assertNotIn("Traceback", out + err)

    def test_bad_timeouts_are_rejected(self):
        for bad in ("-1", "0", "nan", "inf", "soon"):
            with self.assertRaises(SystemExit) as cm, contextlib.redirect_stderr(io.StringIO()):
                compare_output.main(["--timeout", bad, "--expect-empty-stdout", "--", sys.executable, "-c", "pass"])
            self.assertEqual(cm.exception.code, 2, bad)

    @unittest.skipIf(os.name == "nt", "POSIX process groups")
    def test_timeout_kills_the_whole_process_group(self):
        pid_file = os.path.join(self.tmp.name, "child.pid")
        code = ("import subprocess, sys, time; "
                "c = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(300)']); "
                + atomic_pid_write(pid_file, "c.pid") + "; time.sleep(300)")
        (rc, out, _), timeout, took = until_ready(
            lambda timeout: self.run_tool("--timeout", "%g" % timeout, "--expect-empty-stdout", *program(code)),
            lambda: os.path.exists(pid_file), first=1.5)
        self.assertTrue(os.path.exists(pid_file), "the program never started its child: " + out)
        with open(pid_file) as f:
            child = int(f.read())
        alive = wait_gone(child, 5)
        if alive:
            os.kill(child, 9)
        self.assertEqual(rc, 1)
        self.assertIn("ran past the %g s timeout" % timeout, out)
        self.assertGreaterEqual(took, timeout, "the timeout fired early")
        # (the grandchild sleeps 300 s: a tool that waited for it, or for the
        # output it holds, would take that long)
        self.assertLess(took, timeout + 60, "it waited for the grandchild")
        self.assertFalse(alive, "the grandchild outlived the timeout")

    def test_stdout_to_dev_full_sees_the_exit_status(self):
        rc, out, _ = self.run_tool("--stdout-to", os.devnull, "--expect-exit", "3", *program("import sys; sys.exit(3)"))
        self.assertEqual(rc, 0, out)

    def test_expect_stderr_contains(self):
        code = "import sys; sys.stderr.write('prog: unknown option --bogus\\nusage: prog\\n'); sys.exit(2)"
        rc, out, _ = self.run_tool("--expect-exit", "2", "--expect-empty-stdout",
                                   "--expect-stderr-contains", "usage: prog",
                                   "--expect-stderr-contains=--bogus", *program(code))
        self.assertEqual(rc, 0, out)
        rc, out, _ = self.run_tool("--expect-exit", "2", "--expect-stderr-contains=--other", *program(code))
        self.assertEqual(rc, 1)
        self.assertIn("does not contain", out)

    def test_expect_stderr_contains_past_what_is_kept_and_across_chunks(self):
        # 12 MiB of stderr (more than is kept), the text split over two writes, and at the very end
        code = ("import sys, os; e = sys.stderr.buffer; e.write(b'x' * (12 << 20)); e.flush(); "
                "e.write(b'...needle in the'); e.flush(); "
                "e.write(b' haystack\\n'); e.flush(); sys.exit(2)")
        rc, out, _ = self.run_tool("--expect-exit", "2", "--expect-stderr-contains", "needle in the haystack",
                                   *program(code))
        self.assertEqual(rc, 0, out)
        rc, out, _ = self.run_tool("--expect-exit", "2", "--expect-stderr-contains", "needle in a haystack",
                                   *program(code))
        self.assertEqual(rc, 1, out)
        self.assertIn("does not contain", out)

    def test_expect_line_prefix(self):
        code = write_stdout(b"usage: prog [--replay]\n  more\n")
        rc, out, _ = self.run_tool("--expect-line-prefix", "usage: prog", *program(code))
        self.assertEqual(rc, 0, out)
        rc, out, _ = self.run_tool("--expect-line-prefix", "usage: other", *program(code))
        self.assertEqual(rc, 1)

    def test_mask_line_prefix(self):
        g = self.golden(b"device: *\nsorted: yes\n")
        rc, out, _ = self.run_tool("--golden", g, "--mask-line-prefix", "device: ",
                                   *program(write_stdout(b"device: llvmpipe (LLVM 15)\nsorted: yes\n")))
        self.assertEqual(rc, 0, out)
        rc, out, _ = self.run_tool("--golden", g, "--mask-line-prefix", "device: ",
                                   *program(write_stdout(b"device: NVIDIA H200\nsorted: no\n")))
        self.assertEqual(rc, 1)

    @unittest.skipIf(os.name == "nt", "POSIX resource limits")
    def test_limit_memory(self):
        code = "x = bytearray(1 << 30); print('allocated')"
        rc, out, _ = self.run_tool("--limit-memory", str(256 << 20), "--expect-line", "allocated", *program(code))
        self.assertEqual(rc, 1, out)


def wait_gone(pid, seconds=10):
    """Waits until pid no longer runs (or seconds pass); True if it still runs."""
    deadline = time.time() + seconds
    while time.time() < deadline and process_alive(pid):
        time.sleep(0.05)
    return process_alive(pid)


def process_alive(pid):
    """True while pid runs (a zombie, killed but not yet reaped, is not alive)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        return state not in ("Z", "X")
    except OSError:
        return False


# The number of tests this file defines, at least: a run with fewer (an empty
# discovery, a renamed class) is a failure, never a pass.
MIN_TESTS = 36

if __name__ == "__main__":
    suite.run([CompareOutputTest], MIN_TESTS)
