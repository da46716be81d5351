#!/usr/bin/env python3
"""The process rules, tried with signals (issue 25, items 13-15): every tool
stops what it started -- processes in sessions of their own too -- on
SIGINT, SIGTERM, SIGHUP and SIGQUIT and on a timeout, gives a program the
grace to clean up, exits 128 + the signal, and leaves nothing running. After
each case, no process that carries the case's mark in its environment may
still run (testing_support.leftovers).

    python3 common/test_signals.py [--only CLASS]...

  SupervisorTest  the supervisor itself, through compare_output.py
  ToolTest        every tool that starts programs, with each of the four signals
  WebTest         page_output.py, test_web.py, wrong_pages.py and render_png.py
                  with Chromium (Skipped without it)

CTest: unit_signals (SupervisorTest, ToolTest), web_signals (WebTest); the
`stress` label runs them 20 times with every core busy (stress_signals.py).
"""

import argparse
import json
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
from testing_support import (REPO, starter_fields, carriers, cleaner, git, leak_env, leftovers, run, signalled,  # noqa: E402
                             sleeper, until_ready, wait_for)

HERE = os.path.join(REPO, "common")
PY = sys.executable
COMPARE = os.path.join(HERE, "compare_output.py")
SIGNALS = ((signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129), (signal.SIGQUIT, 131))
PAGE_OUTPUT = os.path.join(REPO, "ch12", "web", "tests", "page_output.py")
TEST_WEB = os.path.join(REPO, "ch12", "web", "tests", "test_web.py")
WRONG_PAGES = os.path.join(REPO, "ch12", "web", "tests", "wrong_pages.py")


class Case(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="ch12 signals ")
        self.addCleanup(self.tmp.cleanup)
        self.t = self.tmp.name

    def path(self, *parts):
        return os.path.join(self.t, *parts)

    def assertStopped(self, command, sig, status, env=None, cwd=None, tag=""):
        """command, once its program runs, gets sig: it exits status within
        60 s, with no traceback, and nothing it started is left running."""
        marks = leak_env()
        pidfile = self.path("pids.%s%d" % (tag, sig))
        try:
            rc, out, err, pids = signalled(command, sig, dict(marks, **(env or {})), pidfile, cwd=cwd)
        finally:
            left = leftovers(marks)
        name = signal.Signals(sig).name
        self.assertEqual(rc, status, "%s: %s" % (name, (out + err)[-3000:]))
        self.assertNotIn("Traceback", out + err, name)
        self.assertEqual(left, [], "%s left processes running: %s" % (name, left))
        return out, err


def write_build(folder, rows):
    """A stand-in build folder for run_all.sh: its table holds rows."""
    os.makedirs(folder, exist_ok=True)
    table = {"format": "ch12-programs 1", "source_dir": REPO, "build_dir": folder,
             "cuda": {"configured": True, "compiler": "nvcc", "reason": ""},
             "vulkan": {"configured": True, "compiler": "glslc", "reason": ""}, "rows": rows, "tests": []}
    with open(os.path.join(folder, "ch12_programs.json"), "w") as f:
        json.dump(table, f)


def row(program):
    record = {"test": "58_x", "unbuilt": None, "target": "", "compare": [PY, COMPARE],
              "check": ["--timeout", "100", "--expect-line=x"], "program": program, "args": []}
    return {"id": "58", "name": "58_bitonic_split_cpu_baseline", "section": "12.1", "kind": "CPU",
            "group": "lesson", "what": "a stand-in", "runs": [{"mode": "run", "record": record}]}


def tool_wrapper(path, setup):
    """Writes at `path` a script that runs `setup` (Python lines, with os,
    signal, subprocess, sys and sig = $CH12_TEST_SIGNAL at hand), then the tool
    its first argument names, as __main__, with the arguments after it."""
    with open(path, "w") as f:
        f.write("import os, runpy, signal, subprocess, sys\n"
                "sig = int(os.environ['CH12_TEST_SIGNAL'])\n" + setup +
                "sys.argv = sys.argv[1:]\n"
                "runpy.run_path(sys.argv[0], run_name='__main__')\n")
    return path


class SupervisorTest(Case):
    """common/supervisor.py through compare_output.py."""

    def test_item13_a_signal_right_after_the_start_still_stops_the_program(self):
        # The wrapper sends the signal from inside subprocess.Popen, just after
        # the fork: where the old code had not yet reached its try/finally.
        wrapper = tool_wrapper(self.path("signal_in_popen.py"),
                               "real = subprocess.Popen.__init__\n"
                               "def init(self, *a, **k):\n"
                               "    real(self, *a, **k)\n"
                               "    if 'sleeper' in str(a[0]):\n"
                               "        open(os.environ['CH12_TEST_PIDFILE'], 'w').write(str(self.pid))\n"
                               "        os.kill(os.getpid(), sig)\n"
                               "subprocess.Popen.__init__ = init\n")
        prog = sleeper(self.t)
        for sig, status in SIGNALS:
            marks = leak_env()
            pidfile = self.path("p%d" % sig)
            rc, out, err = run([PY, wrapper, COMPARE, "--timeout", "60", "--expect-line=x", "--", PY, prog],
                               env=dict(marks, CH12_TEST_SIGNAL=str(int(sig)), CH12_TEST_PIDFILE=pidfile))
            left = leftovers(marks)
            self.assertEqual(rc, status, out + err)
            self.assertNotIn("Traceback", err)
            self.assertEqual(left, [], "%s: the program started just before the signal was left running"
                             % signal.Signals(sig).name)

    def test_a_signal_while_the_tool_still_imports_its_modules(self):
        # Found by unit_policy_properties (SIGQUIT 0.333 s after compare_output
        # started): the signal came during `import write_policy`, after
        # supervisor had put its handlers in place and before main(); the tool
        # ended with status 1 and a traceback. The wrapper sends the signal
        # exactly there.
        wrapper = tool_wrapper(self.path("signal_in_import.py"),
                               "class Hook:\n"
                               "    def find_spec(self, name, path, target=None):\n"
                               "        if name == 'write_policy':\n"
                               "            os.kill(os.getpid(), sig)\n"
                               "        return None\n"
                               "sys.meta_path.insert(0, Hook())\n")
        for sig, status in SIGNALS:
            rc, out, err = run([PY, wrapper, COMPARE, "--timeout", "60", "--expect-line=x", "--", "/bin/true"],
                               env=dict(os.environ, CH12_TEST_SIGNAL=str(int(sig))))
            self.assertEqual(rc, status, "%s: %s%s" % (signal.Signals(sig).name, out, err))
            self.assertNotIn("Traceback", err)
            self.assertIn("interrupted by %s" % signal.Signals(sig).name, err)

    def test_item14_a_timeout_gives_the_program_its_grace_to_clean_up(self):
        cleaned = self.path("cleaned")
        marks = leak_env()
        env = dict(marks, CH12_TEST_PIDFILE=self.path("pids"), CH12_TEST_CLEANED=cleaned)
        # The cleaner must have set up its handler before the timeout fires
        # (it writes its pid file then): until_ready() gives it more time on a
        # loaded machine.
        def attempt(timeout):
            for stale in (env["CH12_TEST_PIDFILE"], cleaned):   # (what an attempt that was not ready left)
                if os.path.exists(stale):
                    os.remove(stale)
            return run([PY, COMPARE, "--timeout", "%g" % timeout, "--expect-line=x", "--", PY, cleaner(self.t)],
                       env=env)

        (rc, out, err), timeout, took = until_ready(attempt, lambda: os.path.exists(env["CH12_TEST_PIDFILE"]))
        left = leftovers(marks)
        self.assertGreaterEqual(took, timeout, "the timeout fired early")
        self.assertTrue(os.path.exists(env["CH12_TEST_PIDFILE"]), "the cleaner never got ready: " + out + err)
        self.assertEqual(rc, 1, out + err)
        self.assertIn("ran past the %g s timeout" % timeout, out)
        self.assertTrue(os.path.exists(cleaned), "the program was killed before it could clean up")
        self.assertEqual(left, [])

    def test_item14_an_interrupt_gives_the_program_its_grace_to_clean_up(self):
        for sig, status in SIGNALS:
            cleaned = self.path("cleaned.%d" % sig)
            self.assertStopped([PY, COMPARE, "--timeout", "100", "--expect-line=x", "--", PY, cleaner(self.t)],
                               sig, status, env={"CH12_TEST_CLEANED": cleaned})
            self.assertTrue(os.path.exists(cleaned), "%s: no grace to clean up" % signal.Signals(sig).name)

    def test_a_program_that_ignores_sigterm_is_killed_after_the_grace(self):
        prog = self.path("stubborn.py")
        with open(prog, "w") as f:
            f.write("import os, signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
                    "p = os.environ['CH12_TEST_PIDFILE']\nopen(p + '.tmp', 'w').write(str(os.getpid()))\n"
                    "os.rename(p + '.tmp', p)\ntime.sleep(600)\n")
        # It sleeps 600 s and ignores SIGTERM: only the SIGKILL after the grace
        # (10 s) ends it within the 60 s that assertStopped allows after the signal.
        self.assertStopped([PY, COMPARE, "--timeout", "600", "--expect-line=x", "--", PY, prog], signal.SIGTERM, 143)

    def test_a_second_signal_during_the_stop_is_no_traceback_and_still_stops_everything(self):
        marks = leak_env()
        pidfile = self.path("pids")
        env = dict(os.environ, CH12_TEST_PIDFILE=pidfile, CH12_TEST_CLEANED=self.path("c"), **marks)
        tool = subprocess.Popen([PY, COMPARE, "--timeout", "100", "--expect-line=x", "--", PY, cleaner(self.t)],
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.assertTrue(wait_for(lambda: os.path.exists(pidfile)))
        tool.send_signal(signal.SIGINT)
        tool.send_signal(signal.SIGINT)
        tool.send_signal(signal.SIGTERM)
        out, err = tool.communicate(timeout=60)
        left = leftovers(marks)
        self.assertEqual(tool.returncode, 130, err)
        self.assertNotIn(b"Traceback", out + err)
        self.assertEqual(left, [])

    def test_a_program_in_a_session_of_its_own_is_stopped_with_its_parent(self):
        self.assertStopped([PY, COMPARE, "--timeout", "100", "--expect-line=x", "--", PY, sleeper(self.t)],
                           signal.SIGTERM, 143)


class ToolTest(Case):
    """Item 15: every tool that starts programs, with each of the four signals."""

    def test_compare_output(self):
        for sig, status in SIGNALS:
            out, err = self.assertStopped([PY, COMPARE, "--timeout", "100", "--expect-line=x", "--", PY,
                                           sleeper(self.t)], sig, status)
            self.assertIn("interrupted by " + signal.Signals(sig).name, err)

    def test_run_all(self):
        build = self.path("build")
        write_build(build, [row([PY, sleeper(self.t)])])
        for sig, status in SIGNALS:
            self.assertStopped([os.path.join(REPO, "run_all.sh"), "--no-build", "58"], sig, status,
                               env={"CH12_BUILD_DIR": build})

    def test_standalone_build(self):
        compiler = self.path("slow compiler")
        with open(compiler, "w") as f:
            f.write("#!/bin/sh\nexec '%s' '%s'\n" % (PY, sleeper(self.t)))
        os.chmod(compiler, 0o755)
        for sig, status in SIGNALS:
            self.assertStopped([PY, os.path.join(HERE, "standalone_build.py"), "--compiler", compiler,
                                "--source", os.path.join(REPO, "ch12", "58_bitonic_split_cpu_baseline.cpp"),
                                "--scratch", self.path("s%d" % sig),
                                "--golden", os.path.join(REPO, "expected_output", "58_bitonic_split_cpu_baseline.txt")],
                               sig, status)

    def test_sanitize(self):
        tools = self.path("tools")
        os.makedirs(tools)
        fake = os.path.join(tools, "compute-sanitizer")
        with open(fake, "w") as f:  # skips its own six options, then runs the program
            f.write("#!/bin/sh\nshift 6\nexec \"$@\"\n")
        os.chmod(fake, 0o755)
        for sig, status in SIGNALS:
            self.assertStopped([PY, os.path.join(HERE, "sanitize.py"), "--tool", "memcheck", "--", PY,
                                sleeper(self.t)], sig, status,
                               env={"PATH": tools + os.pathsep + os.environ.get("PATH", "")})

    def test_compare_tree_runs(self):
        for sig, status in SIGNALS:
            self.assertStopped([PY, os.path.join(REPO, "ch12", "extras", "tree", "compare_tree_runs.py"),
                                "--reference", "/bin/true", "--depths", "1", "--", PY, sleeper(self.t)], sig, status)

    def slow(self, name):
        """A stand-in program (node, cmake) that starts children and sleeps."""
        path = self.path(name)
        with open(path, "w") as f:
            f.write("#!/bin/sh\nexec '%s' '%s'\n" % (PY, sleeper(self.t)))
        os.chmod(path, 0o755)
        return path

    def test_check_pictures(self):
        # node (draw_pictures.js) through the supervisor; its scratch folder through the delete policy.
        tmpdir = self.path("tmp")
        os.makedirs(tmpdir)
        for sig, status in SIGNALS:
            self.assertStopped([PY, os.path.join(REPO, "ch12", "web", "tests", "check_pictures.py"),
                                "--node", self.slow("slow node")], sig, status, env={"TMPDIR": tmpdir})
            self.assertEqual(os.listdir(tmpdir), [], "%s: its scratch folder was left" % signal.Signals(sig).name)

    def test_exercise_handout(self):
        # The handout made from a stand-in build table, then the configure step (a stand-in cmake) interrupted:
        # the build under way stopped, the scratch folder with the handout removed.
        build = self.path("build")
        starter = {"id": "ex1", "name": "ex1_descending", "section": "12.1", "kind": "GPU", "group": "exercise",
                   "what": "exercise 1", "of": "", "starter_as_shipped": True, "expect_lines": [],
                   **starter_fields(),
                   "runs": [{"mode": "run", "record": {"unbuilt": "ex1_descending: a stand-in"}}]}
        write_build(build, [starter])
        tmpdir = self.path("tmp")
        os.makedirs(tmpdir)
        for sig, status in SIGNALS:
            self.assertStopped([PY, os.path.join(HERE, "test_handout.py"), "--build-dir", build,
                                "--cmake", self.slow("slow cmake")], sig, status, env={"TMPDIR": tmpdir})
            self.assertEqual(os.listdir(tmpdir), [], "%s: the handout was left" % signal.Signals(sig).name)

    def test_a_program_it_started_that_started_a_daemon_leaves_nothing(self):
        # A program that exits at once, leaving a process in a session of its own behind.
        prog = self.path("daemon.py")
        with open(prog, "w") as f:
            f.write("import subprocess, sys\nsubprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'],"
                    " start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\nprint('x')\n")
        marks = leak_env()
        rc, out, err = run([PY, COMPARE, "--timeout", "60", "--expect-line=x", "--", PY, prog], env=marks)
        self.assertEqual(rc, 0, out + err)
        self.assertEqual(leftovers(marks), [])


def read(path):
    with open(path, "rb") as f:
        return f.read()


def browser():
    return ((shutil.which("chromium") or shutil.which("chromium-browser") or os.environ.get("CH12_CHROMIUM"))
            and (shutil.which("chromedriver") or os.environ.get("CH12_CHROMEDRIVER")))


class WebTest(Case):
    """page_output.py and test_web.py: the browser closes, the profile goes."""

    def setUp(self):
        super().setUp()
        if not browser():
            self.skipTest("no chromium and chromedriver here")
        self.tmpdir = self.path("tmp")   # the tools' temporary folders go here: it must end empty
        os.makedirs(self.tmpdir)

    def start_browser_tool(self, command, env=None):
        marks = leak_env()
        tool = subprocess.Popen(command, env=dict(os.environ, TMPDIR=self.tmpdir, **marks, **(env or {})),
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        browsing = wait_for(lambda: tool.poll() is not None or
                            any("/chromium" in c for _, c in carriers(marks)), 90)
        self.assertTrue(browsing and tool.poll() is None, "the browser never started")
        return tool, marks

    def assertClosed(self, tool, marks, status, what):
        out, err = tool.communicate(timeout=90)
        left = leftovers(marks)
        self.assertEqual(tool.returncode, status, "%s: %s" % (what, (out + err)[-3000:]))
        self.assertNotIn(b"Traceback", out + err, what)
        self.assertEqual(left, [], "%s: left running" % what)
        self.assertEqual(os.listdir(self.tmpdir), [], "%s: left its temporary folders" % what)

    def test_page_output_closes_its_browser_on_each_signal(self):
        for sig, status in SIGNALS:
            tool, marks = self.start_browser_tool([PY, PAGE_OUTPUT, "--program", "63"])
            tool.send_signal(sig)
            self.assertClosed(tool, marks, status, signal.Signals(sig).name)

    def test_page_output_closes_its_browser_when_ctrl_c_comes_twice(self):
        tool, marks = self.start_browser_tool([PY, PAGE_OUTPUT, "--program", "63"])
        tool.send_signal(signal.SIGINT)
        tool.send_signal(signal.SIGINT)
        self.assertClosed(tool, marks, 130, "SIGINT twice")

    def test_compare_output_gives_page_output_the_grace_to_close_its_browser(self):
        tool, marks = self.start_browser_tool([PY, COMPARE, "--timeout", "100", "--expect-line=x", "--",
                                               PY, PAGE_OUTPUT, "--program", "63"])
        tool.send_signal(signal.SIGTERM)
        self.assertClosed(tool, marks, 143, "compare_output, SIGTERM")

    def test_test_web_exits_143_on_sigterm_and_closes_its_browser(self):
        for sig, status in ((signal.SIGTERM, 143), (signal.SIGHUP, 129)):
            tool, marks = self.start_browser_tool([PY, TEST_WEB, "sort"])
            tool.send_signal(sig)
            self.assertClosed(tool, marks, status, signal.Signals(sig).name)


    def test_wrong_pages_closes_its_browser_and_removes_its_broken_copy(self):
        tool, marks = self.start_browser_tool([PY, WRONG_PAGES, "the kernel note gives j for k"])
        tool.send_signal(signal.SIGTERM)
        self.assertClosed(tool, marks, 143, "wrong_pages.py, SIGTERM")

    # render_png.py replaces committed files by design: it runs on a copy of
    # the web folder in a throw-away git checkout, never on this one.
    def web_copy(self):
        repo = self.path("repo")
        shutil.copytree(os.path.join(REPO, "ch12", "web"), os.path.join(repo, "ch12", "web"),
                        ignore=shutil.ignore_patterns("node_modules", "__pycache__"))
        shutil.copytree(HERE, os.path.join(repo, "common"), ignore=shutil.ignore_patterns("__pycache__", "test_*"))
        shutil.copy(os.path.join(REPO, "README.md"), os.path.join(repo, "README.md"))
        git(repo, "init", "-q", "--template=")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "a checkout to endanger")
        return repo, os.path.join(repo, "ch12", "web", "pictures", "class")

    def test_render_png_writes_its_pictures_only_through_the_write_policy(self):
        repo, folder = self.web_copy()
        tool = os.path.join(repo, "ch12", "web", "tools", "render_png.py")
        png = os.path.join(folder, "12-1_split.png")
        # A PNG that is a link to another tracked file: refused before the browser starts.
        readme = os.path.join(repo, "README.md")
        with open(readme, "rb") as f:
            before = f.read()
        os.rename(png, png + ".kept")
        os.symlink(os.path.join("..", "..", "..", "..", "README.md"), png)
        marks = leak_env()
        rc, out, err = run([PY, tool], env=dict(marks, TMPDIR=self.tmpdir))
        self.assertEqual(rc, 2, out + err)
        self.assertIn("tracked by git", err)
        self.assertTrue(os.path.islink(png))
        with open(readme, "rb") as f:
            self.assertEqual(f.read(), before)
        self.assertEqual(leftovers(marks), [])
        os.unlink(png)
        os.rename(png + ".kept", png)
        # A run to its end: every PNG replaced in place, its mode kept, no temporary file left.
        os.chmod(png, 0o600)
        rc, out, err = run([PY, tool], env=dict(marks, TMPDIR=self.tmpdir))
        self.assertEqual(rc, 0, out + err)
        self.assertEqual(stat.S_IMODE(os.stat(png).st_mode), 0o600)
        self.assertEqual([n for n in os.listdir(folder) if n.startswith(".")], [])
        self.assertEqual(os.listdir(self.tmpdir), [])

    def test_render_png_closes_its_browser_on_sigterm(self):
        repo, folder = self.web_copy()
        svgs = {n: read(os.path.join(folder, n)) for n in os.listdir(folder) if n.endswith(".svg")}
        tool, marks = self.start_browser_tool([PY, os.path.join(repo, "ch12", "web", "tools", "render_png.py")])
        tool.send_signal(signal.SIGTERM)
        self.assertClosed(tool, marks, 143, "render_png.py, SIGTERM")
        self.assertEqual([n for n in os.listdir(folder) if n.startswith(".")], [], "a temporary file was left")
        self.assertEqual({n: read(os.path.join(folder, n)) for n in svgs}, svgs)


CLASSES = {"SupervisorTest": SupervisorTest, "ToolTest": ToolTest, "WebTest": WebTest}

if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", action="append", choices=sorted(CLASSES), default=[])
    a = ap.parse_args()
    cases = [CLASSES[c] for c in (a.only or sorted(CLASSES))]
    suite.run(cases, sum(unittest.defaultTestLoader.loadTestsFromTestCase(c).countTestCases() for c in cases))
