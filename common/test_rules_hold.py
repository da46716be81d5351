#!/usr/bin/env python3
"""The rules of common/ hold where a tool could go around them: each case is a
way a file was once lost or a process left running, tried again the way it
was found (each failed before the fix), and tool_rules.py catches the code
that goes around a rule.

    python3 common/test_rules_hold.py

Nothing here synchronizes by sleeping: every wait is for a process to end, or
for a file to appear, with a deadline.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import unittest
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import suite  # noqa: E402
from testing_support import git, snapshot, starter_fields, wait_for  # noqa: E402

PY = sys.executable
COMPARE = os.path.join(HERE, "compare_output.py")
WRITE_POLICY = os.path.join(HERE, "write_policy.py")
TOOL_RULES = os.path.join(HERE, "tool_rules.py")
RUN_ALL = os.path.join(REPO, "run_all.sh")
DRAW = os.path.join(REPO, "ch12", "web", "tools", "draw_pictures.js")


def run(cmd, timeout=300, **kwargs):
    kwargs.setdefault("stdout", subprocess.PIPE)
    kwargs.setdefault("stderr", subprocess.PIPE)
    kwargs.setdefault("stdin", subprocess.DEVNULL)
    p = subprocess.run(cmd, timeout=timeout, **kwargs)
    out = p.stdout.decode(errors="replace") if isinstance(p.stdout, bytes) else p.stdout
    err = p.stderr.decode(errors="replace") if isinstance(p.stderr, bytes) else p.stderr
    return p.returncode, out, err


def processes_with(mark):
    """pids of the processes whose command line holds mark."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                with open("/proc/%s/cmdline" % entry, "rb") as f:
                    if mark.encode() in f.read():
                        found.append(int(entry))
            except OSError:
                pass
    return found


class Case(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ch12 rules ")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def path(self, *parts):
        return os.path.join(self.tmp, *parts)

    def write(self, path, data):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb" if isinstance(data, bytes) else "w") as f:
            f.write(data)
        return path

    def stand_in_build(self, build, source_dir=REPO):
        """A stand-in build folder for run_all.sh: its table holds exercise 1's
        starter, as shipped (its file as it is now), not built."""
        row = {"id": "ex1", "name": "ex1_descending", "section": "12.3", "kind": "GPU", "group": "exercise",
               "what": "exercise 1", "of": "", "starter_as_shipped": True, "expect_lines": [], **starter_fields(),
               "runs": [{"mode": "run", "record": {"unbuilt": "ex1_descending: a stand-in"}}]}
        self.write(os.path.join(build, "ch12_programs.json"),
                   json.dumps({"source_dir": source_dir, "cuda": {"configured": False, "reason": "a stand-in"},
                               "rows": [row]}))
        return build


class ProcessTest(Case):
    def test_item1_a_process_that_drops_its_environment_and_session_is_still_stopped(self):
        # `env -i setsid sleep 321 &`: the leftover has no variable of the supervisor's, a session of its own.
        mark = "ch12-left-%s" % uuid.uuid4().hex
        script = ("env -i setsid %s -c 'import time; time.sleep(321)' %s </dev/null >/dev/null 2>&1 & "
                  "echo started" % (PY, mark))
        rc, out, err = run([PY, "-S", COMPARE, "--expect-line", "started", "--", "sh", "-c", script])
        left = processes_with(mark)
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        self.assertEqual(rc, 0, out + err)
        self.assertEqual(left, [], "the process that dropped its environment outlived compare_output.py")

    def test_item1_the_same_through_a_signal_to_the_tool(self):
        mark = "ch12-left-%s" % uuid.uuid4().hex
        ready = self.path("ready")
        script = ("env -i setsid %s -c 'import time; time.sleep(321)' %s </dev/null >/dev/null 2>&1 & "
                  "touch '%s'; sleep 300" % (PY, mark, ready))
        tool = subprocess.Popen([PY, "-S", COMPARE, "--expect-line", "x", "--", "sh", "-c", script],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        try:
            self.assertTrue(wait_for(lambda: os.path.exists(ready) and processes_with(mark), 120),
                            "the program did not start within 120 s")
            tool.send_signal(signal.SIGTERM)
            out, err = tool.communicate(timeout=120)
        finally:
            if tool.poll() is None:
                tool.kill()
        left = processes_with(mark)
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        self.assertEqual(tool.returncode, 143, err)
        self.assertEqual(left, [], "the tool said it stopped everything, and this ran on")
        self.assertIn("were stopped", err.decode())


class BystanderTest(Case):
    """What the supervisor must NOT stop: what is not its child's (found in review)."""

    def test_a_job_the_tool_inherited_through_exec_is_left_running(self):
        mark = "ch12-job-%s" % uuid.uuid4().hex
        script = ("%s -c 'import time; time.sleep(300)' %s </dev/null >/dev/null 2>&1 & "
                  "exec '%s' -S '%s' --expect-empty-stdout -- true") % (
            PY, mark, PY, COMPARE)
        try:
            rc, out, err = run(["sh", "-c", script])
            alive = processes_with(mark)
        finally:
            for pid in processes_with(mark):
                os.kill(pid, signal.SIGKILL)
        self.assertEqual(rc, 0, out + err)
        self.assertTrue(alive, "the shell's own job was stopped by the tool it exec'd")

    def test_a_process_forked_by_the_tool_itself_is_not_an_orphan(self):
        code = ("import multiprocessing, sys, time\n"
                "sys.path.insert(0, %r)\n"
                "import supervisor\n"
                "def work(q):\n"
                "    time.sleep(1); q.put('alive')\n"
                "if __name__ == '__main__':\n"
                "    multiprocessing.set_start_method('fork')\n"
                "    q = multiprocessing.Queue()\n"
                "    p = multiprocessing.Process(target=work, args=(q,)); p.start()\n"
                "    supervisor.run(['true'])\n"
                "    print(q.get(timeout=60)); p.join()\n" % HERE)
        script = self.write(self.path("forks.py"), code)
        rc, out, err = run([PY, "-S", script])
        self.assertEqual((rc, out.strip()), (0, "alive"), err)


class StreamTest(Case):
    def test_item3_dev_stdout_is_written_to_not_replaced(self):
        log = self.write(self.path("log"), "a\nb\n")
        with open(log, "ab") as f:
            p = subprocess.run([PY, "-S", COMPARE, "--stdout-to", "/dev/stdout", "--", "echo", "x"], stdout=f,
                               stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(log) as f:
            text = f.read()
        self.assertTrue(text.startswith("a\nb\nx\n"), text)

    def test_item3_a_named_descriptor_and_a_link_to_dev_stdout(self):
        link = self.path("out")
        os.symlink("/dev/stdout", link)
        log = self.write(self.path("log"), "kept\n")
        with open(log, "ab") as f:
            p = subprocess.run([PY, "-S", COMPARE, "--stdout-to", link, "--", "echo", "through a link"], stdout=f,
                               stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(log) as f:
            self.assertTrue(f.read().startswith("kept\nthrough a link\n"))
        self.assertTrue(os.path.islink(link))

    def test_item3_every_name_of_a_descriptor_appends(self):
        d = self.path("D")
        os.symlink("/dev/fd", d)
        m = self.path("M")
        os.symlink("/proc/self", m)
        for target in ("/proc/thread-self/fd/1", "/dev/fd/01", "//dev/stdout", os.path.join(d, "1"),
                       os.path.join(m, "fd", "1")):
            log = self.write(self.path("log"), "a\nb\n")
            with open(log, "ab") as f:
                p = subprocess.run([PY, "-S", COMPARE, "--stdout-to", target, "--", "echo", "x"], stdout=f,
                                   stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=120)
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(log) as f:
                self.assertTrue(f.read().startswith("a\nb\nx\n"), target)

    def test_item3_another_processes_descriptor_is_refused(self):
        rc, out, err = run([PY, "-S", COMPARE, "--stdout-to", "/proc/1/fd/1", "--", "echo", "x"])
        self.assertEqual(rc, 2, out + err)
        self.assertIn("another process", err)

    def test_item3_run_all_json_to_dev_stdout_appends(self):
        build = self.stand_in_build(self.path("build"))
        log = self.write(self.path("log"), "before\n")
        with open(log, "ab") as f:
            subprocess.run([RUN_ALL, "--no-build", "--exercises", "--json", "/dev/stdout"], stdout=f,
                           stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=300,
                           env=dict(os.environ, CH12_BUILD_DIR=build))
        with open(log) as f:
            text = f.read()
        self.assertTrue(text.startswith("before\n"), text)
        self.assertIn('"result"', text)

    def test_minor_stdout_to_a_script_run_by_an_interpreter_is_refused(self):
        script = self.write(self.path("s.sh"), "echo hi\n")
        rc, out, err = run([PY, "-S", COMPARE, "--stdout-to", script, "--", "bash", script])
        self.assertEqual(rc, 2, out + err)
        with open(script) as f:
            self.assertEqual(f.read(), "echo hi\n")

    def test_minor_ch12_python_that_is_no_python_is_refused(self):
        rc, out, err = run([RUN_ALL, "--help"], env=dict(os.environ, CH12_PYTHON="/bin/true"))
        self.assertEqual(rc, 1, out + err)
        self.assertIn("not a Python", err)

    def test_item4_a_closed_pipe_ends_the_tool_quietly(self):
        golden = self.write(self.path("golden.txt"), "one line\n")
        p = subprocess.run("'%s' -S '%s' --golden '%s' -- seq 1 100000 | head -1" % (PY, COMPARE, golden), shell=True,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=120,
                           executable="/bin/bash")
        self.assertEqual(p.stderr, b"")
        self.assertNotIn(b"Traceback", p.stdout)

    def test_item5_output_without_end_costs_bounded_memory(self):
        # `yes` for 3 s, under an address-space limit far below what it prints: the tool's verdict, no MemoryError.
        p = subprocess.run("ulimit -v 1500000; '%s' -S '%s' --timeout 3 --expect-empty-stdout -- yes" % (PY, COMPARE),
                           shell=True, executable="/bin/bash", stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           stdin=subprocess.DEVNULL, timeout=300)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn(b"ran past the 3 s timeout", p.stdout)
        self.assertNotIn(b"Traceback", p.stdout + p.stderr)

    def test_item5_lines_are_checked_as_they_stream(self):
        rc, out, err = run([PY, "-S", COMPARE, "--expect-line", "99999", "--expect-line-prefix", "5000",
                            "--expect-stderr-lines", "0", "--", "seq", "1", "100000"])
        self.assertEqual(rc, 0, out + err)
        rc, out, err = run([PY, "-S", COMPARE, "--expect-line", "100001", "--", "seq", "1", "100000"])
        self.assertEqual(rc, 1)
        self.assertIn("stdout has no line '100001'", out)


class MinorCaseTest(Case):
    """The minor cases of the same kinds, each as it was found."""

    def test_json_is_never_one_of_the_builds_own_files(self):
        build = self.stand_in_build(self.path("build"))
        self.write(os.path.join(build, "CMakeCache.txt"), "# a stand-in cache\n")
        for name in ("ch12_programs.json", "CMakeCache.txt"):
            target = os.path.join(build, name)
            with open(target, "rb") as f:
                before = f.read()
            rc, out, err = run([RUN_ALL, "--no-build", "--exercises", "--json", target],
                               env=dict(os.environ, CH12_BUILD_DIR=build))
            self.assertEqual(rc, 2, out + err)
            self.assertEqual(out, "")
            with open(target, "rb") as f:
                self.assertEqual(f.read(), before)

    def test_a_program_killed_by_sigxfsz_leaves_the_file_as_it_was(self):
        out_file = self.write(self.path("out.txt"), "what was there\n")
        rc, out, err = run([PY, "-S", COMPARE, "--stdout-to", out_file, "--", "sh", "-c",
                            "ulimit -f 8; exec yes"])
        self.assertNotEqual(rc, 0, out + err)
        with open(out_file) as f:
            self.assertEqual(f.read(), "what was there\n")
        rc, out, err = run([PY, "-S", COMPARE, "--stdout-to", out_file, "--", "sh", "-c", "echo half; exit 1"])
        self.assertNotEqual(rc, 0, out + err)
        with open(out_file) as f:
            self.assertEqual(f.read(), "what was there\n")

    def standalone(self, scratch, compiler="g++", golden=None):
        return run([PY, "-S", os.path.join(HERE, "standalone_build.py"), "--compiler", compiler,
                    "--source", os.path.join(REPO, "ch12", "58_bitonic_split_cpu_baseline.cpp"),
                    "--scratch", scratch,
                    "--golden", golden or os.path.join(REPO, "expected_output", "58_bitonic_split_cpu_baseline.txt")])

    def test_a_users_file_in_a_scratch_folders_ch12_is_not_deleted(self):
        if not shutil.which("g++"):
            self.skipTest("no g++")
        scratch = self.path("scratch")
        rc, out, err = self.standalone(scratch)
        self.assertEqual(rc, 0, out + err)
        mine = self.write(os.path.join(scratch, "ch12", "my notes.txt"), "mine\n")
        rc, out, err = self.standalone(scratch)
        self.assertEqual(rc, 2, out + err)
        self.assertIn("did not put there", err)
        with open(mine) as f:
            self.assertEqual(f.read(), "mine\n")

    def test_a_missing_compiler_or_golden_is_found_before_anything_is_made(self):
        scratch = self.path("scratch")
        rc, out, err = self.standalone(scratch, compiler=self.path("no-such-compiler"))
        self.assertEqual(rc, 2, out + err)
        self.assertFalse(os.path.exists(scratch))
        rc, out, err = self.standalone(scratch, golden=self.path("no-such-golden.txt"))
        self.assertEqual(rc, 2, out + err)
        self.assertNotIn("compiled", out)
        self.assertFalse(os.path.exists(scratch))

    def test_remove_scratch_of_a_link_with_a_trailing_slash_is_refused(self):
        folder = self.path("theirs")
        self.write(os.path.join(folder, "keep.txt"), "theirs\n")
        self.write(os.path.join(folder, ".m"), "not a marker\n")
        link = self.path("link")
        os.symlink(folder, link)
        rc, out, err = run([PY, "-S", os.path.join(HERE, "delete_policy.py"), "remove-scratch", "--tool", "t",
                            "--marker", ".m", link + "/"])
        self.assertEqual(rc, 2, out + err)
        self.assertTrue(os.path.isfile(os.path.join(folder, "keep.txt")))

    def test_a_marker_outside_the_folder_is_refused(self):
        scratch = self.path("s", "scratch")
        rc, out, err = run([PY, "-S", os.path.join(HERE, "delete_policy.py"), "make-scratch", "--tool", "t",
                            "--marker", "../x", scratch])
        self.assertEqual(rc, 2, out + err)
        self.assertFalse(os.path.exists(self.path("s", "x")))

    def test_a_tool_killed_outright_takes_its_program_with_it(self):
        mark = "ch12-orphan-%s" % uuid.uuid4().hex
        tool = subprocess.Popen([PY, "-S", COMPARE, "--expect-line", "x", "--", PY, "-c",
                                 "import time; time.sleep(300)", mark],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            self.assertTrue(wait_for(lambda: processes_with(mark), 120), "the program did not start")
            tool.kill()
            tool.wait(60)
            gone = wait_for(lambda: not processes_with(mark), 60)
        finally:
            for pid in processes_with(mark):
                os.kill(pid, signal.SIGKILL)
        self.assertTrue(gone, "the program ran on after its tool was killed")

    def test_a_bad_argument_is_2_even_when_the_stderr_reader_has_gone(self):
        for _ in range(5):
            r, w = os.pipe()
            os.close(r)
            p = subprocess.Popen([PY, "-S", COMPARE, "--no-such-option"], stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=w)
            os.close(w)
            self.assertEqual(p.wait(120), 2)

    def test_a_closed_stdout_stdin_or_stderr_is_no_traceback(self):
        # (`tool >&-`: stdout was None inside the tool, and --show, or the last flush, a traceback)
        for closed, argv, want in ((1, ["--show", "--expect-line", "hi", "--", "echo", "hi"], 0),
                                   (1, ["--expect-line", "ho", "--", "echo", "hi"], 1),
                                   (0, ["--expect-line", "hi", "--", "echo", "hi"], 0),
                                   (2, ["--expect-line", "hi", "--", "echo", "hi"], 0)):
            with self.subTest(closed=closed, argv=argv):
                close = {0: "<&-", 1: ">&-", 2: "2>&-"}[closed]
                p = subprocess.run(["bash", "-c", '"$@" ' + close, "bash", PY, "-S", COMPARE] + argv,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   timeout=120)
                self.assertEqual(p.returncode, want, p.stderr.decode(errors="replace"))
                self.assertNotIn(b"Traceback", p.stderr)
        # ...and a stdout the caller closed is no place to write: refused, not written into /dev/null
        for argv in (["check", "/dev/stdout"], ["write"]):
            with self.subTest(write_policy=argv):
                p = subprocess.run(["bash", "-c", '"$@" >&-', "bash", PY, "-S", WRITE_POLICY] + argv,
                                   input=b'[["/dev/stdout", "important\\n"]]', stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, timeout=120)
                self.assertEqual(p.returncode, 2, p.stderr.decode(errors="replace"))
                self.assertIn(b"closed when the tool started", p.stderr)


class EarlySignalTest(Case):
    """A signal at any import of a tool -- from the supervisor's first line on
    -- ends it as a signal does later: 128 + the signal, one line, no
    traceback. (Before that first line the interpreter itself is starting:
    Python's own, which no script reaches.)"""

    TOOLS = ["common/compare_output.py", "common/run_all.py", "common/sanitize.py", "common/write_policy.py"]

    def imports_of(self, tool):
        """The modules a tool imports after the supervisor's first line, in order."""
        code = ("import os, sys, importlib.abc, runpy\n"
                "seen = []\n"
                "class F(importlib.abc.MetaPathFinder):\n"
                "    def find_spec(self, name, path, target=None):\n"
                "        seen.append(name)\n"
                "sys.meta_path.insert(0, F())\n"
                "sys.argv = [%r, '--help']\n"
                "try:\n"
                "    runpy.run_path(%r, run_name='__main__')\n"
                "except SystemExit:\n"
                "    pass\n"
                "sys.stderr.write('\\nIMPORTS ' + ' '.join(seen) + '\\n')\n" % (tool, tool))
        rc, out, err = run([PY, "-S", "-c", code])
        names = err.rsplit("IMPORTS ", 1)[1].split()
        self.assertIn("supervisor", names)
        return names[names.index("supervisor") + 1:]

    def test_item6_a_signal_at_each_import_is_no_traceback(self):
        for rel in self.TOOLS:
            tool = os.path.join(REPO, rel)
            names = self.imports_of(tool)
            self.assertTrue(names, rel)
            for name in names:
                code = ("import os, sys, importlib.abc, runpy\n"
                        "class F(importlib.abc.MetaPathFinder):\n"
                        "    def find_spec(self, name, path, target=None):\n"
                        "        if name == %r:\n"
                        "            os.kill(os.getpid(), 2)\n"
                        "sys.meta_path.insert(0, F())\n"
                        "sys.argv = [%r, '--help']\n"
                        "runpy.run_path(%r, run_name='__main__')\n" % (name, tool, tool))
                rc, out, err = run([PY, "-S", "-c", code])
                self.assertNotIn("Traceback", err, "%s, SIGINT at the import of %s:\n%s" % (rel, name, err))
                self.assertEqual(rc, 130, "%s, SIGINT at the import of %s: exit %d\n%s" % (rel, name, rc, err))


class WriteTest(Case):
    def clone(self):
        """A git checkout holding a copy of the project's tools and pictures (never the real one at risk)."""
        repo = self.path("repo")
        for rel in ("common", os.path.join("ch12", "web")):
            shutil.copytree(os.path.join(REPO, rel), os.path.join(repo, rel),
                            ignore=shutil.ignore_patterns("__pycache__", "node_modules"))
        for rel in ("README.md", ".gitignore"):
            shutil.copy(os.path.join(REPO, rel), os.path.join(repo, rel))
        os.makedirs(os.path.join(repo, "expected_output"))
        shutil.copy(os.path.join(REPO, "expected_output", "58_bitonic_split_cpu_baseline.txt"),
                    os.path.join(repo, "expected_output"))
        git(repo, "init", "-q", "--template=")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "a checkout to endanger")
        return repo

    def draw(self, out, script=DRAW):
        if not shutil.which("node"):
            self.skipTest("no node")
        return run(["node", script, "--out", out], env=dict(os.environ, CH12_PYTHON=PY))

    def test_item2_draw_pictures_refuses_a_link_to_a_tracked_file_or_a_golden(self):
        repo = self.clone()
        before = snapshot(repo)
        for name, target in (("class/README.md", os.path.join(repo, "README.md")),
                             ("network_n16.svg", os.path.join(repo, "expected_output",
                                                              "58_bitonic_split_cpu_baseline.txt"))):
            out = self.path("out-%s" % uuid.uuid4().hex)
            os.makedirs(os.path.join(out, "class"))
            os.symlink(target, os.path.join(out, name))
            rc, stdout, err = self.draw(out, os.path.join(repo, "ch12", "web", "tools", "draw_pictures.js"))
            self.assertEqual(rc, 2, stdout + err)
            self.assertIn("refused", err)
            self.assertEqual(sorted(os.listdir(os.path.join(out, "class"))), ["README.md"] if "class" in name else [])
        self.assertEqual(snapshot(repo), before)

    def test_item2_draw_pictures_refuses_another_clones_tracked_pictures(self):
        other = self.clone()
        svg = os.path.join(other, "ch12", "web", "pictures", "network_n16.svg")
        with open(svg, "a") as f:
            f.write("<!-- a change of the other clone's own -->\n")
        before = snapshot(other)
        rc, out, err = self.draw(os.path.join(other, "ch12", "web", "pictures"))
        self.assertEqual(rc, 2, out + err)
        self.assertEqual(snapshot(other), before)

    def test_item2_draw_pictures_writes_a_new_folder(self):
        out = self.path("pictures")
        rc, stdout, err = self.draw(out)
        self.assertEqual(rc, 0, stdout + err)
        self.assertTrue(os.path.isfile(os.path.join(out, "network_n16.svg")))
        with open(os.path.join(out, "network_n16.svg"), "rb") as a, \
                open(os.path.join(REPO, "ch12", "web", "pictures", "network_n16.svg"), "rb") as b:
            self.assertEqual(a.read(), b.read())

    def copy_without_git(self, inside=None):
        """This checkout's files, as `git archive` gives them, in a folder of no git checkout -- or in a
        folder inside another repository (inside: that repository), which ignores it."""
        if inside is None:
            root = self.path("zip")
        else:
            os.makedirs(inside)
            git(inside, "init", "-q", "--template=")
            self.write(os.path.join(inside, ".gitignore"), "companion/\n")
            self.write(os.path.join(inside, "notes.md"), "the course's own\n")
            git(inside, "add", "-A")
            git(inside, "commit", "-q", "-m", "a course")
            root = os.path.join(inside, "companion")
        files = subprocess.run(["git", "-C", REPO, "ls-files", "-z"], stdout=subprocess.PIPE,
                               check=True).stdout.decode().split("\0")
        for rel in filter(None, files):
            src = os.path.join(REPO, rel)
            if os.path.isfile(src) and (rel.startswith(("common/", "run_all.sh", "README.md", "expected_output/",
                                                        "CMakePresets.json", ".gitignore", "ch12/exercises/"))):
                os.makedirs(os.path.dirname(os.path.join(root, rel)) or root, exist_ok=True)
                shutil.copy2(src, os.path.join(root, rel))
        return root

    def assert_readme_survives(self, root):
        readme = os.path.join(root, "README.md")
        with open(readme, "rb") as f:
            before = f.read()
        rc, out, err = run([PY, "-S", os.path.join(root, "common", "compare_output.py"), "--stdout-to", readme,
                            "--", "echo", "replaced"])
        self.assertEqual(rc, 2, out + err)
        self.assertIn("a file of this project", err)
        rc, out, err = run([os.path.join(root, "run_all.sh"), "--no-build", "--json", readme],
                           env=dict(os.environ, CH12_BUILD_DIR=os.path.join(root, "build")))
        self.assertEqual(rc, 2, out + err)
        with open(readme, "rb") as f:
            self.assertEqual(f.read(), before)
        # What a tool may write there: a new file, and what is in build/.
        os.makedirs(os.path.join(root, "build"), exist_ok=True)
        self.write(os.path.join(root, "build", "old.txt"), "a tool's earlier output\n")
        rc, out, err = run([PY, "-S", os.path.join(root, "common", "write_policy.py"), "check",
                            os.path.join(root, "build", "old.txt"), os.path.join(root, "new.json")])
        self.assertEqual(rc, 0, err)

    def test_a_copy_without_git_keeps_its_files(self):
        self.assert_readme_survives(self.copy_without_git())

    def test_a_copy_inside_a_repository_that_ignores_it_keeps_its_files(self):
        self.assert_readme_survives(self.copy_without_git(inside=self.path("course")))


class HandoutTest(Case):
    def test_item7_handout_with_no_build_reads_the_starters_as_they_are(self):
        # The ex1 solution copied over its starter, in a copy of the project, with a table that says "as shipped".
        root = self.path("repo")
        for rel in ("common", "ch12/exercises"):
            shutil.copytree(os.path.join(REPO, rel), os.path.join(root, rel),
                            ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copy(RUN_ALL, root)
        shutil.copy(os.path.join(REPO, ".gitignore"), root)
        build = self.stand_in_build(os.path.join(root, "build"), source_dir=root)
        shutil.copy(os.path.join(root, "ch12", "exercises", "solutions", "ex1_descending.cuh"),
                    os.path.join(root, "ch12", "exercises", "1_descending", "ex1_descending.cuh"))
        handout = self.path("handout")
        rc, out, err = run([os.path.join(root, "run_all.sh"), "--no-build", "--handout", handout],
                           env=dict(os.environ, CH12_BUILD_DIR=build))
        self.assertNotEqual(rc, 0, out)
        self.assertIn("not the starter as shipped", err)
        self.assertFalse(os.path.exists(handout))
        # --exercises with --no-build: the table is stale, and says so.
        rc, out, err = run([os.path.join(root, "run_all.sh"), "--no-build", "--exercises"],
                           env=dict(os.environ, CH12_BUILD_DIR=build))
        self.assertNotEqual(rc, 0, out)
        self.assertIn("changed since the build's table was made", err)


class ToolRulesTest(Case):
    """tool_rules.py passes on this checkout, and fails on code that goes around a rule."""

    def copy(self):
        root = self.path("repo")
        for rel in ("common", "ch12/web/tools", "ch12/extras/support"):
            shutil.copytree(os.path.join(REPO, rel), os.path.join(root, rel),
                            ignore=shutil.ignore_patterns("__pycache__"))
        os.makedirs(os.path.join(root, "ch12", "extras", "sort"))
        shutil.copy(os.path.join(REPO, "ch12", "extras", "sort", "gpu_experiment.sh"),
                    os.path.join(root, "ch12", "extras", "sort"))
        for rel in ("run_all.sh", ".gitignore"):
            shutil.copy(os.path.join(REPO, rel), root)
        os.makedirs(os.path.join(root, ".ci"))
        shutil.copy(os.path.join(REPO, ".ci", "run"), os.path.join(root, ".ci"))
        return root

    def rules(self, root):
        return run([PY, "-S", TOOL_RULES, "--repo", root])

    def test_this_checkout_keeps_the_rules(self):
        rc, out, err = run([PY, "-S", TOOL_RULES])
        self.assertEqual(rc, 0, out + err)
        self.assertRegex(out, r"tool_rules: \d+ tools read, 0 places outside the rules")

    def test_code_going_around_a_rule_is_found(self):
        cases = [
            ("common/sanitize.py", "\nopen('/tmp/x', 'w').write('x')\n", "file write"),
            ("common/sanitize.py", "\nimport subprocess\nsubprocess.Popen(['true'])\n", "process start"),
            ("common/sanitize.py", "\nos.kill(1, 0)\n", "signal"),
            ("common/sanitize.py", "\nimport argparse\n", "argument parser"),
            ("common/sanitize.py", "\nos.unlink('/tmp/x')\n", "delete"),
            ("ch12/web/tools/draw_pictures.js", "\nwriteFileSync('x', 'y');\n", "file write"),
            ("run_all.sh", "\nrm -rf build\n", "delete"),
            ("run_all.sh", "\nif command rm -f x; then :; fi\n", "delete"),
            ("run_all.sh", "\necho x > notes.txt\n", "file write"),   # (run_all.sh never asks the write rule)
            ("common/sanitize.py", "\nfrom os import remove\nremove('x')\n", "delete"),
            ("common/sanitize.py", "\nimport os as o\no.unlink('x')\n", "delete"),
            ("common/sanitize.py", "\nfrom shutil import copyfile as cf\ncf('a', 'b')\n", "file write"),
            ("common/sanitize.py", "\nfrom subprocess import run as r\nr(['x'])\n", "process start"),
            ("common/sanitize.py", "\nimport subprocess\np = subprocess.Popen\n", "process start"),
            ("common/sanitize.py", "\nimport pathlib\npathlib.Path('x').open('w')\n", "file write"),
            ("common/sanitize.py", "\ngetattr(os, 'unlink')('x')\n", "dynamic access"),
            ("common/sanitize.py", "\nimport multiprocessing\nmultiprocessing.Process(target=print)\n",
             "process start"),
            ("common/sanitize.py", "\nflags = 1\nos.open('x', flags)\n", "file write"),
            ("common/sanitize.py", "\nimport signal\nsignal.raise_signal(2)\n", "signal"),
            ("ch12/web/tools/draw_pictures.js", "\nconst u = 'http://a'; fs.rmSync(u);\n", "delete"),
            ("ch12/extras/support/sort_programs.h", "\nvoid f() { ::kill(1, 9); }\n", "signal"),
            (".ci/run", "\nrm -rf build\n", "delete"),
        ]
        for rel, added, kind in cases:
            root = self.copy()
            with open(os.path.join(root, rel), "a") as f:
                f.write(added)
            rc, out, err = self.rules(root)
            self.assertEqual(rc, 1, "%s with %r: %s" % (rel, added, out + err))
            self.assertIn("%s:" % rel, out)
            self.assertIn(kind, out)
            shutil.rmtree(root)

    def test_an_allowance_that_matches_nothing_is_a_finding(self):
        root = self.copy()
        path = os.path.join(root, "ch12", "extras", "sort", "gpu_experiment.sh")
        with open(path) as f:
            text = f.read()
        with open(path, "w") as f:
            f.write(text.replace('kill -TERM "$p"', ': "$p"'))
        rc, out, err = self.rules(root)
        self.assertEqual(rc, 1, out)
        self.assertIn("no longer there", out)


if __name__ == "__main__":
    suite.run([ProcessTest, BystanderTest, StreamTest, MinorCaseTest, EarlySignalTest, WriteTest, HandoutTest, ToolRulesTest], min_tests=33)
