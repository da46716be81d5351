#!/usr/bin/env python3
"""The C++ programs' write rule (common/write_rule.h, SafeOutput's) and the
tools' (common/write_policy.py) give the same verdict, case for case: each
path below is asked of both -- write_rule_check PATH and write_policy.py
check PATH -- and each must also be the verdict written beside it.

    python3 common/test_write_rule.py --program PATH-TO-write_rule_check

The cases: a file git tracks (also through a link, and one deleted from the
working tree), an untracked file and a new one, in a checkout with a git
index of version 2 and of version 4 (names stored as prefixes), and in a
linked worktree (a .git file); goldens named after a listing or trap in an
expected_output/ folder and our own golden there; a .git folder's file; a
folder, a path ending in '/', a link to nothing, a missing folder; /dev/null,
a FIFO, this program's /dev/stdout and another process's descriptor; and a
copy of the project without git -- the one the checker belongs to, and
another -- its README, its sources and a file under its build/.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import suite  # noqa: E402
from testing_support import git  # noqa: E402

PROGRAM = None   # --program


def verdicts(argv, stdin=subprocess.DEVNULL):
    """A checker's exit status, stdout and stderr."""
    p = subprocess.run(argv, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def cpp_verdict(path, root=None, stdin=subprocess.DEVNULL):
    rc, out, err = verdicts([PROGRAM] + (["--root", root] if root else []) + [path], stdin)
    assert rc == 0, (rc, out, err)
    line = out.splitlines()[0]
    return ("ok" if line.startswith("ok ") else "refused"), line


def python_verdict(path, policy, stdin=subprocess.DEVNULL):
    rc, out, err = verdicts([sys.executable, policy, "check", path], stdin)
    assert rc in (0, 2), (rc, out, err)
    return ("ok" if rc == 0 else "refused"), err.strip()


class Agree(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="ch12-write-rule-")
        self.addCleanup(self.tmp.cleanup)
        self.root = os.path.realpath(self.tmp.name)

    def agree(self, cases, policy=os.path.join(HERE, "write_policy.py"), root=None, cwd=None, stdin=None):
        """cases: [(path, 'ok' | 'refused', what)]."""
        old = os.getcwd()
        if cwd:
            os.chdir(cwd)
        try:
            for path, want, what in cases:
                with self.subTest(what=what, path=path):
                    if stdin is not None:
                        stdin.seek(0)
                    cpp, cpp_line = cpp_verdict(path, root, stdin or subprocess.DEVNULL)
                    if stdin is not None:
                        stdin.seek(0)
                    py, py_line = python_verdict(path, policy, stdin or subprocess.DEVNULL)
                    self.assertEqual(cpp, py, "C++ and Python differ on %s (%s):\n  C++: %s\n  Python: %s"
                                     % (path, what, cpp_line, py_line))
                    self.assertEqual(cpp, want, "%s: %s, not %s: %s" % (what, cpp, want, cpp_line))
        finally:
            os.chdir(old)

    def checkout(self, name, index_version=None):
        top = os.path.join(self.root, name)
        os.makedirs(os.path.join(top, "deep", "er", "still"))
        os.makedirs(os.path.join(top, "expected_output"))
        git(top, "init", "-q")
        files = ["tracked.txt", "gone.txt", "deep/a.csv", "deep/er/b.csv", "deep/er/still/c.csv",
                 "deep/er/still/c2.csv", "expected_output/ours.txt", "expected_output/58_tracked_golden.txt"]
        for f in files:
            with open(os.path.join(top, f), "w") as out:
                out.write("committed\n")
        git(top, "add", "--", *files)
        if index_version:
            git(top, "update-index", "--index-version", str(index_version))
        git(top, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "files")
        os.remove(os.path.join(top, "gone.txt"))
        with open(os.path.join(top, "untracked.csv"), "w") as out:
            out.write("mine\n")
        with open(os.path.join(top, "expected_output", "61_new_trap.txt"), "w") as out:
            out.write("a trap's golden, not yet added\n")
        os.symlink(os.path.join(top, "tracked.txt"), os.path.join(top, "link_to_tracked.csv"))
        os.symlink(os.path.join(top, "nothing"), os.path.join(top, "link_to_nothing.csv"))
        return top

    def checkout_cases(self, top):
        j = lambda *p: os.path.join(top, *p)  # noqa: E731
        return [
            (j("tracked.txt"), "refused", "a file git tracks"),
            (j("deep", "er", "still", "c2.csv"), "refused", "a tracked file deep in folders"),
            (j("deep", "er", "b.csv"), "refused", "a tracked file one folder up"),
            (j("gone.txt"), "refused", "a tracked file deleted from the working tree"),
            (j("link_to_tracked.csv"), "refused", "a link to a tracked file"),
            (j("untracked.csv"), "ok", "an untracked file in a checkout"),
            (j("deep", "new.csv"), "ok", "a new file in a checkout"),
            (j("expected_output", "ours.txt"), "refused", "our own golden, tracked"),
            (j("expected_output", "58_tracked_golden.txt"), "refused", "a listing's golden, tracked"),
            (j("expected_output", "61_new_trap.txt"), "refused", "a trap's golden, untracked"),
            (j("expected_output", "new_ours.txt"), "ok", "a new golden of our own"),
            (j(".git", "config"), "refused", "a file in the .git folder"),
            (j("deep"), "refused", "a folder"),
            (j("deep") + "/", "refused", "a path ending in /"),
            (j("link_to_nothing.csv"), "refused", "a link to nothing"),
            (j("no_such_folder", "x.csv"), "refused", "a file in a folder that does not exist"),
        ]

    def test_a_checkout_with_an_index_of_version_2(self):
        self.agree(self.checkout_cases(self.checkout("v2")))

    def test_a_checkout_with_an_index_of_version_4(self):
        top = self.checkout("v4", index_version=4)
        with open(os.path.join(top, ".git", "index"), "rb") as f:
            self.assertEqual(f.read(8)[4:], b"\0\0\0\4", "the index is of version 4")
        self.agree(self.checkout_cases(top))

    def test_a_linked_worktree(self):
        top = self.checkout("main")
        other = os.path.join(self.root, "worktree")
        git(top, "worktree", "add", "-q", other)
        self.assertTrue(os.path.isfile(os.path.join(other, ".git")), "a worktree's .git is a file")
        self.agree([(os.path.join(other, "tracked.txt"), "refused", "a tracked file of a worktree"),
                    (os.path.join(other, "deep", "er", "still", "c.csv"), "refused", "a deep tracked file of a worktree"),
                    (os.path.join(other, "fresh.csv"), "ok", "a new file in a worktree")])

    def test_devices_descriptors_and_relative_paths(self):
        fifo = os.path.join(self.root, "fifo")
        os.mkfifo(fifo)
        top = self.checkout("rel")
        self.agree([("/dev/null", "ok", "a character device"),
                    (fifo, "ok", "a FIFO"),
                    ("/dev/stdout", "ok", "this program's stdout (a pipe)"),
                    ("/dev/fd/1", "ok", "this program's descriptor 1"),
                    ("/proc/1/fd/1", "refused", "another process's descriptor"),
                    ("tracked.txt", "refused", "a tracked file, named relative to the current folder"),
                    ("./deep/../untracked.csv", "ok", "an untracked file through .."),
                    ("", "refused", "an empty path")], cwd=top)

    def test_a_split_index_and_a_sha256_repository(self):
        split = self.checkout("split")
        git(split, "update-index", "--split-index")
        with open(os.path.join(split, "deep", "a.csv"), "a") as f:
            f.write("changed\n")
        git(split, "add", "deep/a.csv")
        self.assertTrue(any(n.startswith("sharedindex.") for n in os.listdir(os.path.join(split, ".git"))))
        sha256 = os.path.join(self.root, "sha256")
        os.makedirs(sha256)
        git(sha256, "init", "-q", "--object-format=sha256")
        with open(os.path.join(sha256, "tracked.txt"), "w") as f:
            f.write("x\n")
        git(sha256, "add", "tracked.txt")
        self.agree([(os.path.join(split, "tracked.txt"), "refused", "a tracked file, in the shared index"),
                    (os.path.join(split, "deep", "a.csv"), "refused", "a tracked file, in the split index"),
                    (os.path.join(split, "untracked.csv"), "ok", "an untracked file, split index"),
                    (os.path.join(sha256, "tracked.txt"), "refused", "a tracked file, SHA-256 objects"),
                    (os.path.join(sha256, "new.txt"), "ok", "a new file, SHA-256 objects")])

    def test_a_git_folder_that_is_not_there_and_a_deleted_tracked_folder(self):
        lost = os.path.join(self.root, "lost")
        os.makedirs(lost)
        with open(os.path.join(lost, ".git"), "w") as f:
            f.write("gitdir: /nonexistent/worktree\n")
        with open(os.path.join(lost, "file.csv"), "w") as f:
            f.write("x\n")
        top = self.checkout("folder")
        shutil.rmtree(os.path.join(top, "deep"))
        self.agree([(os.path.join(lost, "file.csv"), "refused", "a checkout whose git folder is not there"),
                    (os.path.join(top, "deep"), "refused", "a tracked folder deleted from the working tree")])

    def test_a_descriptor_open_for_reading_only(self):
        with open(os.path.join(self.root, "input.txt"), "w") as f:
            f.write("read me\n")
        with open(os.path.join(self.root, "input.txt"), "rb") as reading:
            self.agree([("/dev/stdin", "refused", "stdin, open for reading only"),
                        ("/dev/fd/0", "refused", "descriptor 0, open for reading only"),
                        ("/dev/stdout", "ok", "stdout beside it")], stdin=reading)

    def test_a_copy_without_git(self):
        copy = os.path.join(self.root, "download")
        shutil.copytree(HERE, os.path.join(copy, "common"),
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        os.makedirs(os.path.join(copy, "build"))
        os.makedirs(os.path.join(copy, "ch12"))
        with open(os.path.join(copy, ".gitignore"), "w") as f:
            f.write("/build/\n/build-*/\n")
        for name in ("README.md", "ch12/58_x.cpp", "build/bench.csv"):
            with open(os.path.join(copy, name), "w") as f:
                f.write("x\n")
        j = lambda *p: os.path.join(copy, *p)  # noqa: E731
        self.agree([(j("README.md"), "refused", "the copy's README"),
                    (j("ch12", "58_x.cpp"), "refused", "a source of the copy"),
                    (j("build", "bench.csv"), "ok", "a file under the copy's build/"),
                    (j("new.csv"), "ok", "a new file at the copy's root"),
                    (j("common", "write_rule.h"), "refused", "the write rule itself, in the copy")],
                   policy=j("common", "write_policy.py"), root=copy)

    def test_another_copy_without_git(self):
        # (asked from this checkout: the rule must know a copy of the project by itself, not only its own)
        copy = os.path.join(self.root, "another download")
        os.makedirs(os.path.join(copy, "common"))
        os.makedirs(os.path.join(copy, "build"))
        for name in ("common/write_policy.py", "run_all.sh", "README.md", "build/bench.csv"):
            with open(os.path.join(copy, name), "w") as f:
                f.write("x\n")
        j = lambda *p: os.path.join(copy, *p)  # noqa: E731
        self.agree([(j("README.md"), "refused", "another copy's README"),
                    (j("run_all.sh"), "refused", "another copy's script"),
                    (j("build", "bench.csv"), "ok", "a file under another copy's build/"),
                    (j("new.csv"), "ok", "a new file at another copy's root")])


MIN_TESTS = 9


def main():
    global PROGRAM
    args = sys.argv[1:]
    if len(args) != 2 or args[0] != "--program" or not os.access(args[1], os.X_OK):
        print("usage: test_write_rule.py --program PATH-TO-write_rule_check (a program)", file=sys.stderr)
        return 2
    PROGRAM = os.path.abspath(args[1])
    suite.run([Agree], MIN_TESTS)


if __name__ == "__main__":
    sys.exit(main())
