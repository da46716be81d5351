#!/usr/bin/env python3
"""Issue 25, item by item: each defect found in the tools, tried again the way
it was found, against the one write policy, delete policy, supervisor and
argument parser of common/ (their signals: test_signals.py; generated cases:
test_properties.py). Every case runs against copies -- a throw-away git
checkout -- never against this checkout's files.

    python3 common/test_policies.py        (CTest: unit_policies)
"""

import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import suite  # noqa: E402
from testing_support import (BOOK_GOLDEN, BOOK_SOURCE, REPO, fake_checkout, run, snapshot,  # noqa: E402
                             stub_matplotlib, wait_for)

HERE = os.path.join(REPO, "common")
PY = sys.executable
COMPARE = os.path.join(HERE, "compare_output.py")
STANDALONE = os.path.join(HERE, "standalone_build.py")
SANITIZE = os.path.join(HERE, "sanitize.py")
RUN_ALL = os.path.join(REPO, "run_all.sh")
PLOTS = {"sort": os.path.join(REPO, "ch12", "extras", "sort", "plot_bench.py"),
         "multi_gpu": os.path.join(REPO, "ch12", "extras", "multi_gpu", "plot_bench.py")}
SORT_CSV = "# H200; 2026-01-01\nsection,n,len,kind,method,gkeys_per_s\nsingle,1024,1024,keys,fast,1.5\n"
MGPU_CSV = ("# H200; 2026-01-01\nmethod,gpus,n,verified,total_ms,sort_ms,exchange_ms,compare_split_ms,merge_ms,"
            "exchange_gb_per_s\nbitonic,1,1024,yes,1,1,0,0,0,0\n")
GPU_EXPERIMENTS = os.path.join(REPO, "ch12", "extras", "tree", "gpu_experiments.sh")
TREE_RUNS = os.path.join(REPO, "ch12", "extras", "tree", "compare_tree_runs.py")
TOO_FEW = os.path.join(REPO, "ch12", "extras", "multi_gpu", "expect_too_few_gpus.py")
GPU_RUN = os.path.join(REPO, "ch12", "extras", "multi_gpu", "gpu_run.sh")
LIBRARY_RULES = os.path.join(REPO, "ch12", "extras", "sort", "library_rules.py")
PAGE_OUTPUT = os.path.join(REPO, "ch12", "web", "tests", "page_output.py")
DRAW = os.path.join(REPO, "ch12", "web", "tools", "draw_pictures.js")
NODE = shutil.which("node") or shutil.which("nodejs")


class Case(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="ch12 policies ")  # a space in every path
        self.addCleanup(self.tmp.cleanup)
        self.t = self.tmp.name

    def path(self, *parts):
        return os.path.join(self.t, *parts)

    def write(self, path, data=b"precious\n", mode=None):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode())
        if mode is not None:
            os.chmod(path, mode)
        return path

    def read(self, path):
        with open(path, "rb") as f:
            return f.read()

    def assertOneLineError(self, rc, out, err, status=2):
        self.assertEqual(rc, status, out + err)
        self.assertNotIn("Traceback", out + err)
        self.assertTrue(err.strip(), "nothing said on stderr")


# ---- data loss -----------------------------------------------------------------------------

class StandaloneScratchTest(Case):
    """Items 1 and 2: standalone_build.py's scratch folder and its marker."""

    def setUp(self):
        super().setUp()
        self.clone = fake_checkout(self.path("clone"), with_common=True)
        self.source = os.path.join(self.clone, "ch12", BOOK_SOURCE)

    def standalone(self, scratch, *extra):
        return run([PY, STANDALONE, "--compiler", "/bin/true", "--source", self.source, "--scratch", scratch,
                    "--golden", os.path.join(self.clone, "expected_output", BOOK_GOLDEN)] + list(extra))

    def test_item1_a_folder_that_looks_like_an_old_scratch_is_not_deleted(self):
        for name, files in (("edited", {"ch12/" + BOOK_SOURCE: "my edited listing\n"}),
                            ("notes", {"common/notes.txt": "my notes\n"}),
                            ("both", {"ch12/" + BOOK_SOURCE: "mine\n", "ch12/58_bitonic_split_cpu_baseline": "x",
                                      "common/cli.h": "mine too\n"})):
            scratch = self.path(name)
            for rel, text in files.items():
                self.write(os.path.join(scratch, rel), text)
            before = snapshot(scratch)
            rc, out, err = self.standalone(scratch)
            self.assertEqual(rc, 2, name + out + err)
            self.assertIn("refusing --scratch", err)
            self.assertNotIn("Traceback", err)
            self.assertEqual(snapshot(scratch), before, name)

    def test_item2_a_marker_that_is_a_link_is_refused_and_its_target_kept(self):
        golden = os.path.join(self.clone, "expected_output", BOOK_GOLDEN)
        before = self.read(golden)
        for case in ("empty", "made"):
            scratch = self.path("scratch " + case)
            os.makedirs(scratch)
            if case == "made":
                os.makedirs(os.path.join(scratch, "ch12"))
            os.symlink(golden, os.path.join(scratch, ".standalone_build"))
            rc, out, err = self.standalone(scratch)
            self.assertEqual(rc, 2, out + err)
            self.assertEqual(self.read(golden), before, "the golden behind the marker's link was overwritten")
            self.assertTrue(os.path.islink(os.path.join(scratch, ".standalone_build")))

    def test_a_copied_or_moved_scratch_is_not_the_tools(self):
        scratch = self.path("s")
        rc, out, err = self.standalone(scratch)   # (the stand-in compiler makes no program: the run fails)
        self.assertIn("PASS: compiled with no output", out, err)
        self.write(os.path.join(scratch, "ch12", "mine.txt"), "kept?\n")
        shutil.copytree(scratch, self.path("copy"), symlinks=True)
        rc, out, err = self.standalone(self.path("copy"))
        self.assertEqual(rc, 2, out + err)
        self.assertIn("no marker", err.replace("not this tool's", "no marker"))
        self.assertTrue(os.path.exists(self.path("copy", "ch12", "mine.txt")))
        # its own, made in an earlier run, holding a file a user added since: refused, the file kept (issue 43)
        rc, out, err = self.standalone(scratch)
        self.assertEqual(rc, 2, out + err)
        self.assertIn("did not put there", err)
        self.assertTrue(os.path.exists(os.path.join(scratch, "ch12", "mine.txt")))
        # and without it: what it made there is made again
        os.unlink(os.path.join(scratch, "ch12", "mine.txt"))
        rc, out, err = self.standalone(scratch)
        self.assertIn("PASS: compiled with no output", out, err)
        self.assertNotIn("refusing", err)

    def test_minor_a_scratch_it_cannot_make_and_a_source_outside_a_checkout_are_one_line(self):
        for scratch in ("/sys/ch12-standalone-scratch", "/proc/ch12-standalone"):
            rc, out, err = self.standalone(scratch)
            self.assertOneLineError(rc, out, err)
        loose = self.write(self.path("loose", "58_x.cpp"), "int main() {}\n")
        rc, out, err = run([PY, STANDALONE, "--compiler", "/bin/true", "--source", loose, "--scratch",
                            self.path("s2"), "--golden", loose])
        self.assertOneLineError(rc, out, err)
        self.assertIn("not a listing of a checkout", err)
        for bad in ("nan", "-1", "0", "inf"):
            rc, out, err = self.standalone(self.path("s3"), "--timeout", bad)
            self.assertOneLineError(rc, out, err)
        self.assertFalse(os.path.exists(self.path("s3")), "it made a scratch folder for a bad command line")


class CompareOutputWriteTest(Case):
    """Items 3, 4 and 7: compare_output.py's --stdout-to and --update."""

    def setUp(self):
        super().setUp()
        self.clone = fake_checkout(self.path("clone"))
        self.golden = os.path.join(self.clone, "expected_output", BOOK_GOLDEN)

    def compare(self, *argv, env=None):
        return run([PY, COMPARE] + list(argv), env=env)

    def test_item3_stdout_to_a_golden_or_a_tracked_file_is_refused(self):
        before = snapshot(self.clone)
        for target in (self.golden, os.path.join(self.clone, "expected_output", "chapter_claims.txt"),
                       os.path.join(self.clone, "README.md"), os.path.join(self.clone, "ch12", BOOK_SOURCE)):
            rc, out, err = self.compare("--stdout-to", target, "--", "echo", "hi")
            self.assertEqual(rc, 2, target + out + err)
            self.assertNotIn("PASS", out)
        link = self.path("innocent.txt")
        os.symlink(self.golden, link)
        rc, out, err = self.compare("--stdout-to", link, "--", "echo", "hi")
        self.assertEqual(rc, 2, out + err)
        self.assertEqual(snapshot(self.clone), before)

    def test_item3_a_program_that_cannot_start_leaves_the_output_file_as_it_was(self):
        user = self.write(self.path("user.csv"), "a,b\n1,2\n", mode=0o640)
        rc, out, err = self.compare("--stdout-to", user, "--", "/nonexistent/program")
        self.assertEqual(rc, 2, out + err)
        self.assertEqual(self.read(user), b"a,b\n1,2\n")
        self.assertEqual(sorted(os.listdir(self.t)), ["clone", "user.csv"])
        # one that runs: the file is its output, with the file's mode; nothing else is left
        rc, out, err = self.compare("--stdout-to", user, "--", "echo", "hi")
        self.assertEqual(rc, 0, out + err)
        self.assertEqual(self.read(user), b"hi\n")
        self.assertEqual(stat.S_IMODE(os.stat(user).st_mode), 0o640)
        self.assertEqual(sorted(os.listdir(self.t)), ["clone", "user.csv"])

    def test_item4_update_refuses_a_tracked_source_and_readme(self):
        before = snapshot(self.clone)
        for target in (os.path.join(self.clone, "ch12", BOOK_SOURCE), os.path.join(self.clone, "README.md")):
            rc, out, err = self.compare("--update", "--golden", target, "--", "echo", "wiped")
            self.assertEqual(rc, 2, out + err)
            self.assertIn("tracked by git", err)
            self.assertNotIn("UPDATED", out)
        self.assertEqual(snapshot(self.clone), before)
        # the golden of our own, tracked, is what --update is for
        rc, out, err = self.compare("--update", "--golden", os.path.join(self.clone, "expected_output",
                                                                         "chapter_claims.txt"), "--", "echo", "new")
        self.assertEqual(rc, 0, out + err)

    def test_item4_an_updated_golden_keeps_its_mode_and_a_new_one_is_0644(self):
        old = self.write(self.path("goldens", "ours.txt"), "old\n", mode=0o664)
        rc, out, err = self.compare("--update", "--golden", old, "--", "echo", "new")
        self.assertEqual(rc, 0, out + err)
        self.assertEqual(self.read(old), b"new\n")
        self.assertEqual(stat.S_IMODE(os.stat(old).st_mode), 0o664)
        new = self.path("goldens", "fresh.txt")
        rc, out, err = self.compare("--update", "--golden", new, "--", "echo", "fresh")
        self.assertEqual(rc, 0, out + err)
        self.assertEqual(stat.S_IMODE(os.stat(new).st_mode), 0o644)
        self.assertEqual(sorted(os.listdir(self.path("goldens"))), ["fresh.txt", "ours.txt"])

    def test_item7_an_interrupt_while_the_golden_is_written_leaves_no_temporary_file(self):
        # A signal that lands just as the temporary file is made: the wrapper
        # sends it from inside os.fdopen, which both the old and new code call.
        golden = self.write(self.path("goldens", "big.txt"), "old\n")
        wrapper = self.write(self.path("interrupt_in_fdopen.py"), (
            "import os, runpy, signal, sys\n"
            "real = os.fdopen\n"
            "def fdopen(*a, **k):\n"
            "    f = real(*a, **k)\n"
            "    if 'w' in (a[1] if len(a) > 1 else k.get('mode', 'r')):\n"
            "        os.kill(os.getpid(), signal.SIGINT)\n"
            "    return f\n"
            "os.fdopen = fdopen\n"
            "sys.argv = sys.argv[1:]\n"
            "runpy.run_path(sys.argv[0], run_name='__main__')\n"))
        rc, out, err = run([PY, wrapper, COMPARE, "--update", "--golden", golden, "--", PY, "-c",
                            "import sys; sys.stdout.write('x' * 5000000)"])
        self.assertEqual(rc, 130, out + err)
        self.assertNotIn("Traceback", err)
        self.assertEqual(os.listdir(self.path("goldens")), ["big.txt"], "a temporary file was left")
        self.assertEqual(self.read(golden), b"old\n")

    def test_minor_numbers_past_what_the_os_takes_and_nonsense_are_one_line(self):
        for argv in (["--limit-memory", str(2 ** 63)], ["--limit-memory", str(2 ** 64 + 5)],
                     ["--expect-exit", "256"], ["--expect-exit", "-1"], ["--timeout", "nan"],
                     ["--timeout", "-1"], ["--timeout", "0"], ["--timeout", "1e300"]):
            rc, out, err = self.compare(*argv, "--expect-empty-stdout", "--", "true")
            self.assertOneLineError(rc, out, err)
            self.assertEqual(out, "", argv)

    def test_minor_a_stdout_that_is_not_utf8_gets_no_traceback(self):
        golden = self.write(self.path("g.txt"), "a \n")
        rc, out, err = self.compare("--golden", golden, "--", "printf", "a\\n", env={"PYTHONIOENCODING": "ascii"})
        self.assertEqual(rc, 1, out + err)
        self.assertNotIn("Traceback", out + err)
        self.assertIn("\\xb7", out)   # the trailing space's '·', escaped


class PlotTest(Case):
    """Item 5: both plot_bench.py scripts write only through the write policy."""

    def setUp(self):
        super().setUp()
        self.clone = fake_checkout(self.path("clone"))
        self.env = {"PYTHONPATH": stub_matplotlib(self.path("m"))}

    def plot(self, which, csv, png, *extra):
        return run([PY, PLOTS[which], csv, png] + list(extra), env=self.env)

    def csv(self, which):
        return self.write(self.path("data", which + ".csv"), SORT_CSV if which == "sort" else MGPU_CSV)

    def test_item5_output_equal_to_input_linked_to_a_golden_or_a_source_is_refused(self):
        for which in PLOTS:
            csv = self.csv(which)
            before, clone_before = self.read(csv), snapshot(self.clone)
            link = self.path("data", "to_golden.png")
            if not os.path.lexists(link):
                os.symlink(os.path.join(self.clone, "expected_output", BOOK_GOLDEN), link)
            for png in (csv, link, os.path.join(self.clone, "ch12", BOOK_SOURCE),
                        os.path.join(self.clone, "README.md"), self.path("data")):
                rc, out, err = self.plot(which, csv, png)
                self.assertOneLineError(rc, out, err)
            self.assertEqual(self.read(csv), before)
            self.assertEqual(snapshot(self.clone), clone_before)

    def test_item5_a_users_tmp_file_is_not_taken_and_the_png_keeps_its_mode(self):
        for which in PLOTS:
            csv = self.csv(which)
            png = self.path("out", which + ".png")
            mine = self.write(png + ".tmp", "my notes\n")
            self.write(png, "old picture", mode=0o600)
            rc, out, err = self.plot(which, csv, png)
            self.assertEqual(rc, 0, out + err)
            self.assertEqual(self.read(png), b"PNG stand-in")
            self.assertEqual(stat.S_IMODE(os.stat(png).st_mode), 0o600)
            self.assertEqual(self.read(mine), b"my notes\n")
        self.assertEqual(sorted(os.listdir(self.path("out"))),
                         ["multi_gpu.png", "multi_gpu.png.tmp", "sort.png", "sort.png.tmp"])

    def test_minor_a_link_bandwidth_must_be_a_positive_number(self):
        csv = self.csv("multi_gpu")
        for bad in ("-5", "nan", "inf", "0", "fast"):
            rc, out, err = self.plot("multi_gpu", csv, self.path("o.png"), "--link-gbps", bad)
            self.assertOneLineError(rc, out, err)
        self.assertFalse(os.path.exists(self.path("o.png")))


class CiScriptsTest(Case):
    """Item 6: .ci/run and the verify script delete only a build/ that CI made,
    in the repository they belong to."""

    def setUp(self):
        super().setUp()
        self.repo = self.path("repo")
        os.makedirs(os.path.join(self.repo, ".ci"))
        for name in ("run", "verify_on_gpu_machine.sh"):
            shutil.copy(os.path.join(REPO, ".ci", name), os.path.join(self.repo, ".ci", name))
        shutil.copytree(HERE, os.path.join(self.repo, "common"), ignore=shutil.ignore_patterns("__pycache__"))
        # stand-ins: cmake records that it ran; glslc and the rest are "installed"; no apt-get
        self.bin = self.path("bin")
        os.makedirs(self.bin)
        self.ran = self.path("cmake.ran")
        for tool in ("cmake", "glslc", "chromium", "chromedriver", "stress-ng"):
            self.write(os.path.join(self.bin, tool), "#!/bin/sh\necho \"$0 $*\" >> '%s'\nexit 0\n" % self.ran, 0o755)
        for tool in ("bash", "sh", "python3", "dirname", "id", "ls", "date", "cat", "tee", "grep", "mkdir", "rm", "mv",
                     "cp", "sed", "awk", "head", "tail", "wc", "sort", "touch", "env"):
            # python3: this interpreter itself (a launcher such as a pyenv shim needs more than this PATH)
            found = PY if tool == "python3" else shutil.which(tool)
            if found and not os.path.exists(os.path.join(self.bin, tool)):
                os.symlink(found, os.path.join(self.bin, tool))
        self.env = {"PATH": self.bin, "CI": "true"}

    def ci_run(self, cwd=None):
        return run(["bash", os.path.join(self.repo, ".ci", "run")], env=self.env, cwd=cwd or self.repo)

    def test_item6_ci_run_keeps_a_build_folder_it_did_not_make(self):
        csv = self.write(os.path.join(self.repo, "build", "gpu_check", "check_h200.csv"), "method,ms\nfast,1\n")
        rc, out, err = self.ci_run()
        self.assertEqual(rc, 2, out + err)
        self.assertIn("not made by ci-build", err)
        self.assertEqual(self.read(csv), b"method,ms\nfast,1\n")
        self.assertFalse(os.path.exists(self.ran), "it ran the workflow over a build/ it refused")

    def test_item6_ci_run_deletes_and_remakes_its_own_build_folder(self):
        rc, out, err = self.ci_run()
        self.assertEqual(rc, 0, out + err)
        self.assertIn("--workflow --preset default", self.read(self.ran).decode())
        self.write(os.path.join(self.repo, "build", "CMakeCache.txt"), "made by cmake\n")
        rc, out, err = self.ci_run()
        self.assertEqual(rc, 0, out + err)
        self.assertFalse(os.path.exists(os.path.join(self.repo, "build", "CMakeCache.txt")))

    def test_item6_the_verify_workflow_works_in_its_repository_not_where_it_was_started(self):
        elsewhere = self.path("elsewhere")
        mine = self.write(os.path.join(elsewhere, "build", "precious.txt"), "mine\n")
        theirs = self.write(os.path.join(self.repo, "build", "results.csv"), "a\n")
        out_dir = self.path("logs")
        rc, out, err = run(["bash", os.path.join(self.repo, ".ci", "verify_on_gpu_machine.sh"), "workflow"],
                           env=dict(self.env, OUT=out_dir), cwd=elsewhere)
        self.assertEqual(rc, 1, out + err)   # the repository's build/ is not CI's: refused, a failed step
        self.assertEqual(self.read(mine), b"mine\n")
        self.assertEqual(self.read(theirs), b"a\n")
        self.assertIn("overall status 1", self.read(os.path.join(out_dir, "summary.txt")).decode())

    def test_item9_setup_without_its_files_is_a_failed_step(self):
        out_dir = self.path("logs")
        rc, out, err = run(["bash", os.path.join(self.repo, ".ci", "verify_on_gpu_machine.sh"), "setup"],
                           env=dict(self.env, OUT=out_dir), cwd=self.repo)
        summary = self.read(os.path.join(out_dir, "summary.txt")).decode()
        self.assertEqual(rc, 1, out + err + summary)
        self.assertIn("setup: FAILED", summary)
        self.assertNotIn("overall status 0", summary)
        self.assertIn("overall status 1", summary)
        self.assertNotIn("dpkg", out + err)


class RunAllOutputsTest(Case):
    """run_all.sh's --json FILE and --handout FOLDER (issue 26) through the
    write and delete policies: refused before anything runs; a handout that
    cannot be finished leaves nothing."""

    def setUp(self):
        super().setUp()
        # A checkout of its own: run_all.sh and common/, so that "this
        # checkout" is one the test may endanger.
        self.repo = self.path("repo")
        os.makedirs(self.repo)
        shutil.copy(RUN_ALL, os.path.join(self.repo, "run_all.sh"))
        shutil.copytree(HERE, os.path.join(self.repo, "common"), ignore=shutil.ignore_patterns("__pycache__", "test_*"))
        self.write(os.path.join(self.repo, "ch12", "exercises", "1_descending", "ex1_descending.cuh"), "// TODO\n")
        self.write(os.path.join(self.repo, "ch12", "exercises", "solutions", "ex1_descending.cuh"), "// done\n")
        self.write(os.path.join(self.repo, "README.md"), "# a checkout\n")
        from testing_support import git, starter_fields
        git(self.repo, "init", "-q", "--template=")
        git(self.repo, "add", "-A")
        git(self.repo, "commit", "-q", "-m", "a checkout to endanger")
        self.run_all = os.path.join(self.repo, "run_all.sh")
        self.build = self.path("build")
        self.write(os.path.join(self.build, "ch12_programs.json"), json_text({
            "source_dir": self.repo, "cuda": {"configured": False, "reason": "none here"},
            "rows": [{"id": "ex1", "name": "ex1_descending", "section": "12.1", "kind": "GPU", "group": "exercise",
                      "what": "exercise 1", "of": "", "starter_as_shipped": True, "expect_lines": [],
                      **starter_fields(self.repo),
                      "runs": [{"mode": "run", "record": {"unbuilt": "ex1_descending: no CUDA here"}}]}]}))
        self.env = {"CH12_BUILD_DIR": self.build}

    def test_json_a_file_git_tracks_in_another_checkout_is_refused_before_anything_runs(self):
        other = fake_checkout(self.path("other clone"))
        before = snapshot(other)
        for target in (os.path.join(other, "README.md"), os.path.join(other, "expected_output", BOOK_GOLDEN)):
            rc, out, err = run([self.run_all, "--no-build", "--exercises", "--json", target], env=self.env)
            self.assertOneLineError(rc, out, err, 2)
            self.assertEqual(out, "")   # (nothing ran: refused before the run, not after it)
        self.assertEqual(snapshot(other), before)

    def test_json_through_a_link_to_a_golden_of_a_copy_without_git_is_refused(self):
        golden = self.write(self.path("copy", "expected_output", BOOK_GOLDEN), "the book's output\n")
        link = self.path("results.json")
        os.symlink(golden, link)
        rc, out, err = run([self.run_all, "--no-build", "--exercises", "--json", link], env=self.env)
        self.assertOneLineError(rc, out, err, 2)
        self.assertEqual(self.read(golden), b"the book's output\n")

    def test_json_and_handout_values_go_through_the_argument_parser(self):
        for args in (["--json="], ["--handout="], ["--json", "a\x01b", "--json", "c"]):
            rc, out, err = run([self.run_all, "--no-build"] + args, env=self.env)
            self.assertOneLineError(rc, out, err, 2)

    def test_handout_into_this_checkout_through_a_link_is_refused(self):
        link = self.path("a link into the checkout")
        os.symlink(os.path.join(self.repo, "ch12"), link)
        rc, out, err = run([self.run_all, "--no-build", "--handout", os.path.join(link, "handout")], env=self.env)
        self.assertOneLineError(rc, out, err, 2)
        self.assertIn("inside this checkout", err)
        self.assertFalse(os.path.lexists(os.path.join(self.repo, "ch12", "handout")))

    def test_handout_made_and_a_handout_that_cannot_be_finished_leaves_nothing(self):
        handout = self.path("handout")
        rc, out, err = run([self.run_all, "--no-build", "--handout", handout], env=self.env)
        self.assertEqual(rc, 0, out + err)
        self.assertTrue(os.path.isfile(os.path.join(handout, "ch12", "exercises", "1_descending", "ex1_descending.cuh")))
        self.assertFalse(os.path.exists(os.path.join(handout, "ch12", "exercises", "solutions")))
        self.assertTrue(os.access(os.path.join(handout, "run_all.sh"), os.X_OK))
        # A tracked file that is now a FIFO: it cannot be copied (and must not be waited on).
        readme = os.path.join(self.repo, "README.md")
        os.unlink(readme)
        os.mkfifo(readme)
        second = self.path("handout 2")
        rc, out, err = run([self.run_all, "--no-build", "--handout", second], env=self.env, timeout=120)
        self.assertOneLineError(rc, out, err, 1)
        self.assertIn("README.md is not a regular file", err)
        self.assertFalse(os.path.lexists(second), "the unfinished handout was left")
        self.assertTrue(os.path.isdir(handout), "the earlier handout is not this run's to delete")

    def test_a_folder_made_unfinished_is_removed_on_a_signal_and_kept_when_finished(self):
        script = ("import os, signal, sys; sys.path.insert(0, %r); import delete_policy, supervisor, write_policy\n"
                  "def work():\n"
                  "    f = delete_policy.made_folder(sys.argv[1], unfinished=True)\n"
                  "    write_policy.new_file(os.path.join(f, 'a.txt'), b'x')\n"
                  "    if sys.argv[2] == 'done':\n"
                  "        delete_policy.finished(f)\n"
                  "        return 0\n"
                  "    os.kill(os.getpid(), signal.SIGTERM)\n"
                  "    return 0\n"
                  "sys.exit(supervisor.main(work, 'test'))\n" % HERE)
        rc, out, err = run([PY, "-c", script, self.path("cut"), "cut"])
        self.assertEqual(rc, 143, out + err)
        self.assertFalse(os.path.lexists(self.path("cut")))
        rc, out, err = run([PY, "-c", script, self.path("done"), "done"])
        self.assertEqual(rc, 0, out + err)
        self.assertEqual(self.read(self.path("done", "a.txt")), b"x")
        # new_file() writes nowhere else: not over a file, not outside such a folder.
        outside = ("import sys; sys.path.insert(0, %r); import write_policy\n"
                   "try:\n    write_policy.new_file(sys.argv[1], b'y')\nexcept write_policy.Refused:\n    sys.exit(2)\n"
                   % HERE)
        rc, out, err = run([PY, "-c", outside, self.path("done", "a.txt")])
        self.assertEqual(rc, 2, out + err)
        self.assertEqual(self.read(self.path("done", "a.txt")), b"x")


class GeneratedFilesTest(Case):
    """kernel_text.py --write (and render_png.py, the same rule, in
    test_signals.py's WebTest): a tool that draws committed files replaces
    those files of its own checkout and no other, through the write policy."""

    def setUp(self):
        super().setUp()
        self.repo = self.path("repo")
        for rel in ("ch12/59_bitonic_split_kernel.cu", "ch12/61_bitonic_merge_multipass.cu",
                    "ch12/traps/61_trap_first_group_only.cu", "ch12/63_bitonic_sort_iterative.cu",
                    "ch12/traps/63_trap_no_pair_guard.cu", "ch12/web/tools/kernel_text.py",
                    "ch12/web/js/cuda_kernels.js", "README.md"):
            os.makedirs(os.path.dirname(os.path.join(self.repo, rel)), exist_ok=True)
            shutil.copy(os.path.join(REPO, rel), os.path.join(self.repo, rel))
        shutil.copytree(HERE, os.path.join(self.repo, "common"), ignore=shutil.ignore_patterns("__pycache__", "test_*"))
        from testing_support import git, starter_fields
        git(self.repo, "init", "-q", "--template=")
        git(self.repo, "add", "-A")
        git(self.repo, "commit", "-q", "-m", "a checkout to endanger")
        self.tool = os.path.join(self.repo, "ch12", "web", "tools", "kernel_text.py")
        self.js = os.path.join(self.repo, "ch12", "web", "js", "cuda_kernels.js")

    def test_kernel_text_write_keeps_the_mode_and_leaves_no_temporary_file(self):
        os.chmod(self.js, 0o600)
        with open(self.js, "ab") as f:
            f.write(b"// edited by hand\n")
        rc, out, err = run([PY, self.tool, "--write"])
        self.assertEqual(rc, 0, out + err)
        self.assertEqual(stat.S_IMODE(os.stat(self.js).st_mode), 0o600)
        self.assertEqual(self.read(self.js), self.read(os.path.join(REPO, "ch12", "web", "js", "cuda_kernels.js")))
        self.assertEqual(sorted(os.listdir(os.path.dirname(self.js))), ["cuda_kernels.js"])
        rc, out, err = run([PY, self.tool, "--check"])
        self.assertEqual(rc, 0, out + err)

    def test_kernel_text_write_through_a_link_to_another_tracked_file_is_refused(self):
        readme = os.path.join(self.repo, "README.md")
        before = self.read(readme)
        os.unlink(self.js)
        os.symlink(os.path.join("..", "..", "..", "README.md"), self.js)
        rc, out, err = run([PY, self.tool, "--write"])
        self.assertEqual(rc, 1, out + err)
        self.assertIn("tracked by git", out)
        self.assertEqual(self.read(readme), before)
        self.assertTrue(os.path.islink(self.js), "the link was replaced by a file")

    def test_generated_files_are_only_the_tools_own(self):
        import write_policy
        for tool, rel, allowed in (("kernel_text.py", "ch12/web/js/cuda_kernels.js", True),
                                   ("kernel_text.py", "ch12/web/js/main.js", False),
                                   ("render_png.py", "ch12/web/pictures/class/12-1_split.png", True),
                                   ("render_png.py", "ch12/web/pictures/class/12-1_split.svg", False),
                                   ("render_png.py", "ch12/web/pictures/class/deeper/x.png", False),
                                   ("draw_pictures.js", "ch12/web/pictures/class/README.md", True),
                                   ("draw_pictures.js", "ch12/web/README.md", False)):
            self.assertEqual(write_policy.generated_by(tool, os.path.join(REPO, rel)), allowed, (tool, rel))
        # Another checkout's copy of a generated file is not this tool's to draw.
        self.assertFalse(write_policy.generated_by("kernel_text.py", self.js))


def json_text(data):
    import json
    return json.dumps(data)


# ---- wrong results and statuses -------------------------------------------------------------

class GpuExperimentsTest(Case):
    """Item 8: the tree's GPU script counts its failures in the shell."""

    def setUp(self):
        super().setUp()
        self.bin = self.path("bin")
        os.makedirs(self.bin)
        for name in ("tree_bitonic_cpu", "tree_bitonic_gpu", "tree_seed_grow_work"):
            self.write(os.path.join(self.bin, name), "#!/bin/sh\necho 'checksum: 1'\nexit 1\n", 0o755)

    def experiments(self, out, repeats="1", steps=("time",)):
        return ["bash", GPU_EXPERIMENTS, self.bin] + list(steps), {"OUT": out, "REPEATS": repeats}

    def test_item8_every_failed_run_is_counted(self):
        cmd, env = self.experiments(self.path("out"))
        rc, out, err = run(cmd, env=env)
        self.assertEqual(rc, 1, out + err)
        self.assertIn("failed runs: 14", out)

    def test_item8_an_out_it_cannot_write_is_refused_not_a_pass(self):
        self.write(self.path("a file"), "x")
        for out_dir in (self.path("a file", "out"), self.path("a file")):
            cmd, env = self.experiments(out_dir)
            rc, out, err = run(cmd, env=env)
            self.assertEqual(rc, 2, out + err)
            self.assertNotIn("failed runs: 0", out)

    def test_item8_two_runs_sharing_out_each_count_their_own(self):
        cmd, env = self.experiments(self.path("shared"))
        runs = [subprocess.Popen(cmd, env=dict(os.environ, **env), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                for _ in range(2)]
        for p in runs:
            out, err = p.communicate(timeout=120)
            self.assertEqual(p.returncode, 1, (out + err).decode())
            self.assertIn(b"failed runs: 14", out)

    def test_item8_a_bad_repeats_runs_nothing_and_is_exit_2(self):
        for bad in ("0", "abc", "-1", "1.5", "00"):
            cmd, env = self.experiments(self.path("o"), repeats=bad)
            rc, out, err = run(cmd, env=env)
            self.assertEqual(rc, 2, bad + out + err)
            self.assertIn("REPEATS", err)
            self.assertFalse(os.path.exists(self.path("o", "tree.txt")))


class SortGpuExperimentTest(Case):
    """ch12/extras/sort/gpu_experiment.sh (issue 29) keeps gpu_experiments.sh's
    rules: OUT checked by the write policy, failures counted in the shell, only
    its own temporary files deleted. Stand-in programs in a throw-away checkout."""

    CSV = ("# H200; 2026-01-01\nsection,n,len,kind,method,best_ms,verified,trips,efficiency,copy_gbps\n"
           "single,1048576,1048576,keys,fast,1.0,yes,4,0.5,3000\nsingle,1048576,1048576,keys,window,0.9,yes,3,0.6,3000\n")

    def setUp(self):
        super().setUp()
        self.repo = self.path("repo")
        script = os.path.join(self.repo, "ch12", "extras", "sort", "gpu_experiment.sh")
        os.makedirs(os.path.dirname(script))
        shutil.copy(os.path.join(REPO, "ch12", "extras", "sort", "gpu_experiment.sh"), script)
        shutil.copytree(HERE, os.path.join(self.repo, "common"), ignore=shutil.ignore_patterns("__pycache__", "test_*"))
        from testing_support import git, starter_fields
        git(self.repo, "init", "-q", "--template=")
        git(self.repo, "add", "-A")
        git(self.repo, "commit", "-q", "-m", "a checkout to endanger")
        build = os.path.join(self.repo, "build")
        bench = ("#!/bin/sh\nwhile [ $# -gt 0 ]; do [ \"$1\" = --csv ] && printf '%s' '" + self.CSV.replace("\n", "\\n") +
                 "' > \"$2\"; shift; done\necho 'bitonic sort benchmark: every result checked'\n")
        self.write(os.path.join(build, "bitonic_sort_bench"), bench, 0o755)
        self.write(os.path.join(build, "bitonic_sort_run"), "#!/bin/sh\nexit 0\n", 0o755)
        self.stand_in_tests_exit(0)
        self.script = script

    def stand_in_tests_exit(self, status):
        self.write(os.path.join(self.repo, "build", "bitonic_sort_test"), "#!/bin/sh\nexit %d\n" % status, 0o755)

    def experiment(self, out, **env):
        return run(["bash", self.script], env=dict({"OUT": out, "SKIP_BUILD": "1", "PATH": "/usr/bin:/bin"}, **env))

    def test_a_run_that_passes_and_a_failed_test_run_counted_in_the_shell(self):
        out_dir = self.path("out")
        rc, out, err = self.experiment(out_dir)
        self.assertEqual(rc, 0, out + err)
        self.assertIn("gpu_experiment: ok", out)
        self.stand_in_tests_exit(1)   # fails, and prints nothing about it
        rc, out, err = self.experiment(out_dir)
        self.assertEqual(rc, 1, out + err)
        self.assertIn("gpu_experiment: FAILED", out)
        self.assertEqual([n for n in os.listdir(out_dir) if n.startswith(".tests_")], [])

    def test_a_tests_log_it_cannot_write_is_refused_not_a_pass(self):
        out_dir = self.path("out")
        os.makedirs(os.path.join(out_dir, "tests.log"))   # (its tests' verdicts were read back from that file)
        self.stand_in_tests_exit(1)
        rc, out, err = self.experiment(out_dir)
        self.assertEqual(rc, 2, out + err)
        self.assertNotIn("gpu_experiment: ok", out)

    def test_a_users_files_in_out_are_not_deleted(self):
        out_dir = self.path("out")
        mine = [self.write(os.path.join(out_dir, "tests_%d.tmp" % i), "mine\n") for i in range(3)]
        rc, out, err = self.experiment(out_dir)
        self.assertEqual(rc, 0, out + err)
        for path in mine:
            self.assertEqual(self.read(path), b"mine\n")

    def test_a_bad_skip_build_or_argument_is_exit_2(self):
        for env, args in (({"SKIP_BUILD": "yes"}, []), ({}, ["now"])):
            rc, out, err = run(["bash", self.script] + args, env=dict({"OUT": self.path("o")}, **env))
            self.assertEqual(rc, 2, out + err)
            self.assertFalse(os.path.exists(self.path("o", "bench.log")))


class SortGpuCheckTest(Case):
    """ch12/extras/sort/gpu_check.sh: STOP_AFTER (the seconds its tests get)
    went to `date -d` unchecked; a bad one is exit 2 before anything runs or
    is written."""

    def test_a_bad_stop_after_is_exit_2(self):
        for value in ("abc", "0", "-5", "08", "1e3", "9999999"):
            rc, out, err = run(["bash", os.path.join(REPO, "ch12", "extras", "sort", "gpu_check.sh"),
                                "--out", self.path("o"), "bench"], env={"STOP_AFTER": value})
            self.assertEqual(rc, 2, value + out + err)
            self.assertIn("STOP_AFTER", err)
            self.assertEqual(out, "")
            self.assertFalse(os.path.exists(self.path("o")))


class TreeFastExperimentsTest(Case):
    """ch12/extras/tree/fast_experiments.sh (issue 30): its numbers are whole
    numbers without leading zeros (REPEATS=08 ran nothing and passed), OUT is
    checked by the write policy, failures are counted in the shell."""

    def setUp(self):
        super().setUp()
        self.bin = self.path("bin")
        want = ("checksum: 4027056128\nnodes: gen 1048575, sort 401604605, total 402653180\n"
                "every reserved heap node written: yes\ntime (ms): gen 1.0, sort 11.4, total 12.4\n")
        self.write(os.path.join(self.bin, "tree_bitonic_gpu"), "#!/bin/sh\nprintf '%s'\n" % want.replace("\n", "\\n"),
                   0o755)

    def experiments(self, out, **env):
        base = {"OUT": out, "BUILD_DIR": self.bin, "STEPS": "time", "DEPTHS": "20", "REPEATS": "2",
                "DESIGNS": "default|\nclassic kernel (as it was)|--kernel classic"}
        return run(["bash", os.path.join("ch12", "extras", "tree", "fast_experiments.sh")], cwd=REPO,
                   env=dict(base, **env))

    def test_runs_counted_and_a_failed_run_is_exit_1(self):
        rc, out, err = self.experiments(self.path("out"))
        self.assertEqual(rc, 0, out + err)
        self.assertIn("median of 2", out)
        self.assertIn("failed: 0", out)
        self.write(os.path.join(self.bin, "tree_bitonic_gpu"), "#!/bin/sh\necho 'checksum: 1'\nexit 1\n", 0o755)
        rc, out, err = self.experiments(self.path("out"))
        self.assertEqual(rc, 1, out + err)
        self.assertIn("failed: 4", out)

    def test_numbers_with_leading_zeros_or_out_of_range_are_exit_2(self):
        for name, value in (("REPEATS", "08"), ("TIME_S", "09"), ("REPEATS", "0"), ("JOBS", "1.5"),
                            ("TESTS_S", "99999999999999999999"), ("PROBE_BIG_MB", "abc")):
            rc, out, err = self.experiments(self.path("o"), **{name: value})
            self.assertEqual(rc, 2, name + value + out + err)
            self.assertIn(name, err)
            self.assertFalse(os.path.exists(self.path("o", "runs.log")))

    def test_an_out_it_cannot_write_or_holding_a_tracked_file_is_refused(self):
        self.write(self.path("a file"), "x")
        for out_dir in (self.path("a file"), self.path("a file", "out"), ""):
            rc, out, err = self.experiments(out_dir)
            self.assertEqual(rc, 2, out + err)
        self.assertEqual(self.read(self.path("a file")), b"x")
        # OUT = a folder of the checkout where table.txt is tracked: a copy with git, never this checkout.
        other = fake_checkout(self.path("other"))
        self.write(os.path.join(other, "table.txt"), "tracked\n")
        from testing_support import git
        git(other, "add", "table.txt")
        git(other, "commit", "-q", "-m", "a table")
        rc, out, err = self.experiments(other)
        self.assertEqual(rc, 2, out + err)
        self.assertEqual(self.read(os.path.join(other, "table.txt")), b"tracked\n")


class LibraryRulesTest(Case):
    """Item 11: library_rules.py finds every way to end the process."""

    def library(self, files):
        lib = self.path("lib")
        for rel, text in files.items():
            self.write(os.path.join(lib, rel), text)
        return lib

    def rules(self, lib, *extra):
        return run([PY, LIBRARY_RULES, "--library-dir", lib, "--also", os.devnull] + list(extra))

    def test_item11_terminate_raise_and_a_file_in_a_subfolder_are_found(self):
        # The library is its folder's include/ (the API) and src/ (its own), subfolders included.
        for rel, text in (("src/a.cuh", "void f() { std::terminate(); }\n"),
                          ("include/bitonic/b.h", "#include <csignal>\nvoid g() { raise(SIGKILL); }\n"),
                          ("src/deep/inside/c.cpp", "void h() { exit(3); }\n"),
                          ("include/bitonic/deep/c2.h", "inline void h2() { std::_Exit(3); }\n"),
                          ("src/d.cu", "__device__ void k() { __trap(); }\n"),
                          ("src/e.cpp", "void m() { ::kill(0, 9); }\n")):
            lib = self.library({rel: text, "src/ok.cu": "int ok() { return 0; }\n"})
            rc, out, err = self.rules(lib)
            self.assertEqual(rc, 1, rel + out + err)
            self.assertIn(os.path.basename(rel), out)
            shutil.rmtree(lib)
        lib = self.library({"src/ok.cu": "// std::terminate() in a comment\nint ok() { return 0; }\n"})
        rc, out, err = self.rules(lib)
        self.assertEqual(rc, 0, out + err)

    def test_item11_what_the_library_includes_is_read_as_the_library(self):
        # A header of the programs (support/), reached from the library by a
        # relative #include, would be compiled into it unread.
        lib = self.library({"src/ok.cu": '#include "../support/helper.h"\nint ok() { return helper(); }\n',
                            "support/helper.h": "inline int helper() { exit(1); return 0; }\n"})
        rc, out, err = self.rules(lib)
        self.assertEqual(rc, 1, out + err)
        self.assertIn("helper.h", out)
        self.assertIn("not one of the library's files", out)

    def test_item11_the_compiled_objects_symbols_are_read(self):
        compiler = shutil.which("c++") or shutil.which("g++")
        if not compiler or not shutil.which("nm"):
            self.skipTest("no C++ compiler or nm here")
        lib = self.library({"src/ok.cu": "int ok() { return 0; }\n"})
        for name, code in (("bitonic_sort.cu", "#include <csignal>\nint f() { return std::raise(SIGKILL); }\n"),
                           ("sort_request.cpp", "#include <exception>\nvoid g() { std::terminate(); }\n")):
            src = self.write(self.path("objs", name + ".cpp"), code)
            obj = self.path("objs", name + ".o")
            subprocess.run([compiler, "-c", "-x", "c++", src, "-o", obj], check=True)
            rc, out, err = self.rules(lib, "--objects", obj)
            self.assertEqual(rc, 1, out + err)
            self.assertIn("needs", out)


# ---- bad command lines ------------------------------------------------------------------------

class CommandLineTest(Case):
    """The minor items: one line, no traceback, exit 2, decided before anything runs."""

    def test_run_all_a_build_dir_that_is_a_file_or_cannot_be_made_or_a_bad_table(self):
        f = self.write(self.path("not a folder"), "x")
        rc, out, err = run([RUN_ALL, "58"], env={"CH12_BUILD_DIR": f})
        self.assertOneLineError(rc, out, err, 2)
        rc, out, err = run([RUN_ALL, "--no-build"], env={"CH12_BUILD_DIR": "/sys/ch12 build"})
        self.assertOneLineError(rc, out, err, 1)
        rc, out, err = run([RUN_ALL], env={"CH12_BUILD_DIR": "/sys/ch12 build/inner"})
        self.assertOneLineError(rc, out, err, 1)
        self.assertIn("cannot make the build folder", err)
        for table in ('[]', '{"rows": 5}', '{"rows": [{"id": "58"}]}', '{"rows": [7]}'):
            build = self.path("b%d" % len(table))
            self.write(os.path.join(build, "ch12_programs.json"), table)
            rc, out, err = run([RUN_ALL, "--no-build"], env={"CH12_BUILD_DIR": build})
            self.assertOneLineError(rc, out, err, 1)
            self.assertIn("not one this run_all.sh can read", err)

    def test_sanitize_checks_its_arguments_before_looking_for_the_sanitizer(self):
        empty = self.path("empty")
        os.makedirs(empty)
        env = {"PATH": empty, "CUDA_HOME": empty, "CUDA_PATH": empty}
        for argv in (["--timeout", "nan"], ["--timeout", "-1"], ["--expect-exit", "256"], ["--env", "novalue"]):
            rc, out, err = run([PY, SANITIZE, "--tool", "memcheck"] + argv + ["--", "/bin/true"], env=env)
            self.assertOneLineError(rc, out, err)
            self.assertNotIn("SKIPPED", out)

    def test_compare_tree_runs_missing_program_huge_range_nan(self):
        for argv in (["--reference", "/nonexistent/ref", "--", "/bin/true"],
                     ["--reference", "/bin/true", "--", "/nonexistent/candidate"],
                     ["--reference", "/bin/true", "--depths", "1-999999999999", "--", "/bin/true"],
                     ["--reference", "/bin/true", "--depths", "0", "--", "/bin/true"],
                     ["--reference", "/bin/true", "--timeout", "nan", "--", "/bin/true"],
                     ["--reference", "/bin/true", "--timeout", "-1", "--", "/bin/true"],
                     ["--reference", "/bin/true", "--reference", "/bin/false", "--", "/bin/true"]):
            rc, out, err = run([PY, TREE_RUNS] + argv, timeout=60)
            self.assertOneLineError(rc, out, err)

    def test_expect_too_few_gpus_missing_program_and_value(self):
        for argv in (["/nonexistent/program", "--gpus", "64"], [PY, "--gpus"], [PY, "--gpus", "0"],
                     [PY, "--gpus", "x"], []):
            rc, out, err = run([PY, TOO_FEW] + argv, timeout=60)
            self.assertOneLineError(rc, out, err)

    def test_gpu_run_an_empty_step(self):
        for argv in ([""], ["build", ""], ["build test"]):
            rc, out, err = run(["bash", GPU_RUN] + argv, env={"OUT": self.path("o")})
            self.assertOneLineError(rc, out, err)
            self.assertFalse(os.path.exists(self.path("o")))

    def test_page_output_a_repeated_program_and_a_bad_timeout(self):
        for argv in (["--program", "59", "--program", "61"], ["--program", "59", "--timeout", "0"],
                     ["--program", "59", "--timeout", "-1"], ["--program", "59", "--timeout", "nan"]):
            rc, out, err = run([PY, PAGE_OUTPUT] + argv, env={"CH12_CHROMIUM": "/nonexistent"})
            self.assertOneLineError(rc, out, err)

    def test_draw_pictures_out_a_file_or_empty(self):
        if not NODE:
            self.skipTest("no node here")
        f = self.write(self.path("a file"), "x")
        for argv in (["--out", f], ["--out", ""], ["--out", os.path.join(f, "sub")]):
            rc, out, err = run([NODE, DRAW] + argv)
            self.assertOneLineError(rc, out, err)
            self.assertEqual(out, "")
        self.assertEqual(self.read(f), b"x")


class PropertyTestSkipTest(Case):
    """test_properties.py without Hypothesis reports Skipped (77), never Passed."""

    def test_without_hypothesis_it_is_skipped(self):
        # -S: no site-packages, so no Hypothesis; the variable stops it looking for another python.
        rc, out, err = run([PY, "-S", os.path.join(HERE, "test_properties.py")], env={"CH12_HYPOTHESIS_REEXEC": "1"})
        self.assertEqual(rc, 77, out + err)
        self.assertIn("SKIPPED: Hypothesis is not installed", out)


MIN_TESTS = 50
CASES = [StandaloneScratchTest, CompareOutputWriteTest, PlotTest, CiScriptsTest, RunAllOutputsTest, GeneratedFilesTest,
         GpuExperimentsTest, SortGpuExperimentTest, SortGpuCheckTest, TreeFastExperimentsTest, LibraryRulesTest,
         CommandLineTest, PropertyTestSkipTest]

if __name__ == "__main__":
    suite.run(CASES, MIN_TESTS)
