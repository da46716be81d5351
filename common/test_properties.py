#!/usr/bin/env python3
"""Property tests of the write, delete and process rules (issue 25), with
Hypothesis: generated cases instead of the ones someone thought of.

  * Paths: generated shapes -- links (to goldens, sources, folders, nothing,
    other links), '..', '.', trailing slashes, another clone, folders, tracked
    sources, goldens, a user's files, names like temporary files, .git --
    given to each tool as its output (the write policy itself, compare_output
    --stdout-to and --update, both plot_bench.py, standalone_build --scratch,
    the delete policy's command). Afterwards no tracked file changed, no file
    the tool did not create is gone or changed (but the one output it was
    told to write), and nothing new is left but that output.
  * Signals: each tool that starts programs gets SIGINT, SIGTERM, SIGHUP or
    SIGQUIT 0 to 2 s after it starts: no process it started outlives it, and
    it exits 128 + the signal (or, before its handlers are in place, dies of
    the signal, having started nothing).

Hypothesis is Debian's python3-hypothesis, which imports in /usr/bin/python3
(not in another python3 first on PATH): run as a script, this file moves to
an interpreter that has it, and without one it reports Skipped (77).

    python3 common/test_properties.py        (CTest: unit_policy_properties)
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP = 77


def _find_hypothesis():
    """Makes sure this runs in an interpreter with Hypothesis, or exits 77."""
    try:
        import hypothesis  # noqa: F401
        return
    except ImportError:
        pass
    if os.environ.get("CH12_HYPOTHESIS_REEXEC"):
        candidates = []
    else:
        candidates = [c for c in ("/usr/bin/python3", shutil.which("python3")) if c and
                      os.path.realpath(c) != os.path.realpath(sys.executable)]
    for python in candidates:
        if subprocess.run([python, "-c", "import hypothesis"], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0:
            os.environ["CH12_HYPOTHESIS_REEXEC"] = "1"
            os.execv(python, [python, os.path.abspath(__file__)] + sys.argv[1:])
    others = "" if os.path.realpath(sys.executable) == "/usr/bin/python3" else " nor /usr/bin/python3"
    print("SKIPPED: Hypothesis is not installed for %s%s (Debian/Ubuntu: apt-get install python3-hypothesis)"
          % (sys.executable, others))
    sys.exit(SKIP)


if __name__ == "__main__":
    _find_hypothesis()

from hypothesis import HealthCheck, example, given, settings, strategies as st  # noqa: E402

sys.path.insert(0, HERE)
import suite  # noqa: E402
import write_policy  # noqa: E402
from testing_support import (BOOK_GOLDEN, BOOK_SOURCE, REPO, starter_fields, fake_checkout, leak_env, leftovers,  # noqa: E402
                             sleeper, stub_matplotlib)

PY = sys.executable
COMPARE = os.path.join(HERE, "compare_output.py")
SORT_CSV = "# H200; 2026-01-01\nsection,n,len,kind,method,gkeys_per_s\nsingle,1024,1024,keys,fast,1.5\n"
MGPU_CSV = ("# H200; 2026-01-01\nmethod,gpus,n,verified,total_ms,sort_ms,exchange_ms,compare_split_ms,merge_ms,"
            "exchange_gb_per_s\nbitonic,1,1024,yes,1,1,0,0,0,0\n")

# ---- the world every generated path lands in -------------------------------------------------

BASES = ["A", "B", "user", "links", "A/expected_output", "A/ch12", "B/expected_output", "user/sub", "", "new",
         "A/.git", "links/to_dir"]
NAMES = [BOOK_GOLDEN, BOOK_SOURCE, "58_bitonic_split_cpu_baseline.replay.txt", "chapter_claims.txt", "README.md",
         "data.csv", "mgpu.csv", "notes.txt", "out.png", "out.png.tmp", ".out.png.x1y2.partial", ".golden.abc123",
         "to_golden", "to_source", "to_dir", "dangling", "to_user", "to_link", "to_B_readme", "new.png", "new.txt",
         "..", ".", "sub", "inner.txt", ".git", "HEAD", "config", "scratch", ".standalone_build", "ch12", "common"]


def build_template(folder):
    """A and B: two clones (tracked listing, book golden, a golden of our own,
    README.md); user/: a user's files, among them names that look like
    temporary files and a folder that looks like a scratch folder; links/:
    links to all of those, to nothing, and to each other."""
    fake_checkout(os.path.join(folder, "A"))
    fake_checkout(os.path.join(folder, "B"))
    user = os.path.join(folder, "user")
    os.makedirs(os.path.join(user, "sub"))
    os.makedirs(os.path.join(user, "scratch", "ch12"))
    for rel, text in (("data.csv", SORT_CSV), ("mgpu.csv", MGPU_CSV), ("notes.txt", "my notes\n"),
                      ("out.png", "an old picture"), ("out.png.tmp", "mine, not a temporary file"),
                      (".out.png.x1y2.partial", "mine too"), (".golden.abc123", "and this"),
                      ("sub/inner.txt", "inner\n"), ("scratch/ch12/" + BOOK_SOURCE, "my edited listing\n"),
                      ("scratch/.standalone_build", "{}\n")):
        with open(os.path.join(user, rel), "w") as f:
            f.write(text)
    # a scratch folder that standalone_build made in an earlier run (its marker names it)
    import delete_policy
    delete_policy.Scratch(os.path.join(user, "ours"), tool="standalone_build", marker=".standalone_build")
    os.makedirs(os.path.join(user, "ours", "ch12"))
    with open(os.path.join(user, "ours", "ch12", BOOK_SOURCE), "w") as f:
        f.write("made by standalone_build in an earlier run\n")
    links = os.path.join(folder, "links")
    os.makedirs(links)
    for name, target in (("to_golden", "../A/expected_output/" + BOOK_GOLDEN), ("to_source", "../A/ch12/" + BOOK_SOURCE),
                         ("to_dir", "../A/ch12"), ("dangling", "../nowhere/at/all"), ("to_user", "../user/data.csv"),
                         ("to_link", "to_golden"), ("to_B_readme", "../B/README.md")):
        os.symlink(target, os.path.join(links, name))


def state(root):
    """{path: (kind, content, mode)} of everything under root, .git included."""
    found = {}
    for d, dirs, files in os.walk(root):
        for name in files + dirs:
            p = os.path.join(d, name)
            rel = os.path.relpath(p, root)
            if os.path.islink(p):
                found[rel] = ("link", os.readlink(p), None)
            elif os.path.isdir(p):
                found[rel] = ("dir", None, None)
            else:
                with open(p, "rb") as f:
                    found[rel] = ("file", f.read(), os.stat(p).st_mode & 0o7777)
    return found


def tracked(root):
    """The files git tracks in A and B, as paths relative to root."""
    out = []
    for clone in ("A", "B"):
        names = subprocess.run(["git", "-C", os.path.join(root, clone), "ls-files", "-z"], stdout=subprocess.PIPE,
                               check=True).stdout.split(b"\0")
        out += [os.path.join(clone, n.decode()) for n in names if n]
    return out


# The shapes that once lost data, reached every way: directly, through links
# and chains of links, through '..', with './' and a trailing slash.
DANGEROUS = ["A/README.md", "A/ch12/" + BOOK_SOURCE, "A/expected_output/" + BOOK_GOLDEN,
             "A/expected_output/chapter_claims.txt", "B/README.md", "B/expected_output/" + BOOK_GOLDEN,
             "links/to_golden", "links/to_source", "links/to_link", "links/to_B_readme", "links/to_user",
             "links/to_dir/" + BOOK_SOURCE, "links/dangling", "A/ch12/../README.md", "user/sub/../data.csv",
             "user/data.csv", "user/mgpu.csv", "user/out.png", "user/out.png.tmp", "user/.golden.abc123",
             "user/scratch", "user/scratch/ch12", "user/ours", "user/sub", "A/.git/config", "A/.git/HEAD",
             "A/expected_output", "A", "user", "new/out.png", "user/new.png"]
composed = st.builds(lambda base, names: "/".join([b for b in [base] + names if b != ""]),
                     st.sampled_from(BASES), st.lists(st.sampled_from(NAMES), min_size=1, max_size=3))
paths = st.builds(lambda p, dot, slash: ("./" if dot else "") + p + ("/" if slash else ""),
                  st.one_of(st.sampled_from(DANGEROUS), composed), st.booleans(),
                  st.sampled_from([False, False, False, True]))


class World:
    """One world per test class, put back as it was after each case (only what
    the case changed is written again: cheaper than a copy per case)."""
    root = None

    @classmethod
    def make(cls):
        if cls.root is None:
            cls.keep = tempfile.TemporaryDirectory(prefix="ch12 properties ")
            cls.root = os.path.join(cls.keep.name, "world")
            build_template(cls.root)
            cls.stubs = stub_matplotlib(cls.keep.name)
            cls.pristine = state(cls.root)
            cls.tracked = tracked(cls.root)
        return cls.root

    @classmethod
    def reset(cls):
        """Everything under the world as it was made: what is new removed, what
        changed or went written again."""
        root, now = cls.root, state(cls.root)
        for rel in sorted((r for r in now if r not in cls.pristine), key=len, reverse=True):
            p = os.path.join(root, rel)
            if os.path.isdir(p) and not os.path.islink(p):
                shutil.rmtree(p)
            elif os.path.lexists(p):
                os.unlink(p)
        for rel, (kind, content, mode) in sorted(cls.pristine.items()):
            p = os.path.join(root, rel)
            if now.get(rel) == (kind, content, mode):
                continue
            if os.path.lexists(p) and (os.path.islink(p) or not os.path.isdir(p)):
                os.unlink(p)
            elif os.path.isdir(p) and kind != "dir":
                shutil.rmtree(p)
            if kind == "dir":
                os.makedirs(p, exist_ok=True)
            elif kind == "link":
                os.symlink(content, p)
            else:
                with open(p, "wb") as f:
                    f.write(content)
                os.chmod(p, mode)


def check_world(test, root, before, tracked_files, allowed):
    """No tracked file changed; nothing that was there is gone or changed but
    what `allowed` names (real paths the tool was told to write or make);
    nothing new but those."""
    after = state(root)
    for rel in tracked_files:
        test.assertEqual(after.get(rel), before.get(rel), "the tracked file %s changed" % rel)
    for rel in (".git/HEAD", ".git/config", ".git/index"):
        for clone in ("A", "B"):
            key = os.path.join(clone, rel)
            test.assertEqual(after.get(key), before.get(key), "git's own %s changed" % key)

    def is_allowed(rel, new_folder=False):
        real = os.path.realpath(os.path.join(root, rel))
        return any(real == a or real.startswith(a + os.sep) or (new_folder and a.startswith(real + os.sep))
                   for a in allowed)
    for rel, what in before.items():
        if rel not in after:
            test.assertTrue(is_allowed(rel), "%s, which the tool did not create, is gone" % rel)
        elif after[rel] != what and what[0] != "dir":
            test.assertTrue(is_allowed(rel), "%s, which the tool was not told to write, changed" % rel)
    for rel in after:
        if rel not in before:   # (a folder on the way to what it was told to make may be made too)
            test.assertTrue(is_allowed(rel, new_folder=after[rel][0] == "dir"), "the tool left %s behind" % rel)


def target_of(root, path):
    return os.path.realpath(os.path.join(root, path))


def tracked_update_keeps(root, tracked_files, real):
    """The tracked files that an --update write to `real` must leave as they
    were. Its one exception: a golden of our own (in an expected_output/
    folder, not a book's or a trap's name) may be replaced."""
    if write_policy.is_golden(real) and not write_policy.PROTECTED_NAME.match(os.path.basename(real)):
        return [t for t in tracked_files if target_of(root, t) != real]
    return tracked_files


PROPERTY_SETTINGS = dict(deadline=None, database=None, suppress_health_check=list(HealthCheck))


class WritePolicyProperties(unittest.TestCase):
    """The write policy itself, in this process: fast, so many cases."""

    @settings(max_examples=120, **PROPERTY_SETTINGS)
    @given(path=paths, update=st.booleans(), input_path=st.sampled_from(["user/data.csv", "links/to_user", None]))
    def test_a_write_through_the_policy_loses_nothing(self, path, update, input_path):
        root = World.make()
        before, tracked_files = World.pristine, World.tracked
        cwd = os.getcwd()
        os.chdir(root)
        try:
            try:
                write_policy.write_bytes(path, b"written\n", inputs=[input_path] if input_path else [],
                                         update_golden=update)
                wrote = True
            except (write_policy.Refused, OSError):
                wrote = False
        finally:
            os.chdir(cwd)
        real = target_of(root, path)
        if wrote and input_path:
            self.assertNotEqual(real, target_of(root, input_path), "it wrote over its input")
        if wrote:
            self.assertNotIn(os.path.relpath(real, root), tracked_files if not update else
                             [t for t in tracked_files if "expected_output/chapter_claims" not in t])
        if wrote and update and write_policy.is_golden(real):
            self.assertFalse(write_policy.PROTECTED_NAME.match(os.path.basename(real)), path)
            tracked_files = tracked_update_keeps(root, tracked_files, real)
        try:
            check_world(self, root, before, tracked_files, [real])
        finally:
            World.reset()


class ToolPathProperties(unittest.TestCase):
    """Each tool, given generated paths as its output."""

    def tool_command(self, tool, path, root):
        """(command, what it may write or delete -- real paths --, its inputs)."""
        real = target_of(root, path)
        ours = os.path.join(root, "user", "ours")
        if tool == "stdout_to":
            return [PY, COMPARE, "--stdout-to", path, "--", "echo", "written"], [real], []
        if tool == "update":
            return [PY, COMPARE, "--update", "--golden", path, "--", "echo", "written"], [real], []
        if tool == "plot_sort":
            csv = os.path.join(root, "user", "data.csv")
            return [PY, os.path.join(REPO, "ch12", "extras", "sort", "plot_bench.py"), csv, path], [real], [csv]
        if tool == "plot_multi_gpu":
            csv = os.path.join(root, "user", "mgpu.csv")
            return ([PY, os.path.join(REPO, "ch12", "extras", "multi_gpu", "plot_bench.py"), csv, path], [real],
                    [csv])
        # The scratch tools may change a scratch folder only when it is new, or
        # their own (user/ours); a folder of anyone else's must stay as it is.
        scratch_ok = [real] if (not os.path.lexists(real) or real == ours) else []
        if tool == "standalone":
            return [PY, os.path.join(HERE, "standalone_build.py"), "--compiler", "/bin/true", "--source",
                    os.path.join(REPO, "ch12", BOOK_SOURCE), "--scratch", path, "--golden",
                    os.path.join(REPO, "expected_output", BOOK_GOLDEN), "--timeout", "60"], scratch_ok, []
        if tool == "remove_scratch":
            return [PY, os.path.join(HERE, "delete_policy.py"), "remove-scratch", "--tool", "standalone_build",
                    "--marker", ".standalone_build", path], scratch_ok, []
        if tool == "run_all_json":
            return [os.path.join(REPO, "run_all.sh"), "--no-build", "--exercises", "--json", path], [real], []
        if tool == "run_all_handout":   # (a new folder only: never one that was there)
            return ([os.path.join(REPO, "run_all.sh"), "--no-build", "--handout", path],
                    [] if os.path.lexists(real) else [real], [])
        raise AssertionError(tool)

    @classmethod
    def run_all_build(cls):
        """A stand-in build folder for run_all.sh, outside the world: one exercise, not built."""
        if getattr(cls, "build", None) is None:
            cls.keep_build = tempfile.TemporaryDirectory(prefix="ch12 properties build ")
            cls.build = cls.keep_build.name
            row = {"id": "ex1", "name": "ex1_descending", "section": "12.1", "kind": "GPU", "group": "exercise",
                   "what": "exercise 1", "of": "", "starter_as_shipped": True, "expect_lines": [],
                   **starter_fields(),
                   "runs": [{"mode": "run", "record": {"unbuilt": "ex1_descending: a stand-in"}}]}
            with open(os.path.join(cls.build, "ch12_programs.json"), "w") as f:
                json.dump({"source_dir": REPO, "cuda": {"configured": False, "reason": "a stand-in"}, "rows": [row]}, f)
        return cls.build

    @settings(max_examples=40, **PROPERTY_SETTINGS)
    @given(tool=st.sampled_from(["stdout_to", "update", "plot_sort", "plot_multi_gpu", "standalone",
                                 "remove_scratch", "run_all_json", "run_all_handout"]), path=paths)
    # Found by this test on a loaded machine: '..' after a link was taken as
    # text (os.path.abspath), so the scratch folder, the handout and the JSON
    # went beside the link, not where the system puts 'link/../x'.
    @example(tool="standalone", path="links/to_dir/../" + BOOK_GOLDEN)
    @example(tool="run_all_handout", path="links/to_dir/../handout")
    @example(tool="run_all_json", path="links/to_dir/../table.json")
    # Found by CI: --update may replace a golden of our own, tracked or not
    # (tracked_update_keeps); a book's golden it never replaces.
    @example(tool="update", path="A/expected_output/chapter_claims.txt")
    @example(tool="update", path="B/expected_output/" + BOOK_GOLDEN)
    def test_no_tool_loses_what_it_did_not_make(self, tool, path):
        root = World.make()
        before, tracked_files = World.pristine, World.tracked
        command, allowed, inputs = self.tool_command(tool, path, root)
        if tool == "update":
            tracked_files = tracked_update_keeps(root, tracked_files, target_of(root, path))
        env = dict(os.environ, PYTHONPATH=World.stubs, CH12_BUILD_DIR=self.run_all_build())
        p = subprocess.run(command, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
        err = p.stderr.decode(errors="replace")
        try:
            self.assertNotIn("Traceback", err, "%s %s" % (tool, path))
            self.assertIn(p.returncode, (0, 1, 2, 77), "%s %s: %s" % (tool, path, err))
            for i in inputs:   # an input never changes, not even when it is also named as the output
                rel = os.path.relpath(i, root)
                self.assertEqual(state(root).get(rel), before.get(rel), "%s %s: its input %s changed" % (tool, path, rel))
            check_world(self, root, before, tracked_files, allowed)
        finally:
            World.reset()


def signal_command(tool, folder):
    prog = sleeper(folder)
    if tool == "compare_output":
        return [PY, COMPARE, "--timeout", "100", "--expect-line=x", "--", PY, prog], {}
    if tool == "standalone_build":
        compiler = os.path.join(folder, "slow-compiler")
        if not os.path.exists(compiler):
            with open(compiler, "w") as f:
                f.write("#!/bin/sh\nexec '%s' '%s'\n" % (PY, prog))
            os.chmod(compiler, 0o755)
        return [PY, os.path.join(HERE, "standalone_build.py"), "--compiler", compiler, "--source",
                os.path.join(REPO, "ch12", BOOK_SOURCE), "--scratch", os.path.join(folder, "scratch"),
                "--golden", os.path.join(REPO, "expected_output", BOOK_GOLDEN)], {}
    if tool == "sanitize":
        tools = os.path.join(folder, "tools")
        if not os.path.exists(tools):
            os.makedirs(tools)
            with open(os.path.join(tools, "compute-sanitizer"), "w") as f:
                f.write("#!/bin/sh\nshift 6\nexec \"$@\"\n")
            os.chmod(os.path.join(tools, "compute-sanitizer"), 0o755)
        return ([PY, os.path.join(HERE, "sanitize.py"), "--tool", "memcheck", "--", PY, prog],
                {"PATH": tools + os.pathsep + os.environ.get("PATH", "")})
    if tool == "compare_tree_runs":
        return [PY, os.path.join(REPO, "ch12", "extras", "tree", "compare_tree_runs.py"), "--reference", "/bin/true",
                "--depths", "1", "--", PY, prog], {}
    if tool == "run_all":
        import json
        build = os.path.join(folder, "build")
        if not os.path.exists(build):
            os.makedirs(build)
            record = {"test": "x", "unbuilt": None, "target": "", "compare": [PY, COMPARE],
                      "check": ["--timeout", "100", "--expect-line=x"], "program": [PY, prog], "args": []}
            table = {"source_dir": REPO, "rows": [{"id": "58", "name": "58_bitonic_split_cpu_baseline",
                                                   "section": "12.1", "kind": "CPU", "group": "lesson", "what": "x",
                                                   "runs": [{"mode": "run", "record": record}]}], "tests": []}
            with open(os.path.join(build, "ch12_programs.json"), "w") as f:
                json.dump(table, f)
        # python3 as this one (first on PATH): a pyenv shim -- a bash script between run_all.sh
        # and Python -- takes a SIGINT sent to it alone as handled once its child exits
        # normally (bash's rule), so the signal would never reach the tool. (From a terminal,
        # Ctrl-C reaches the whole process group, the shim's child included.)
        path = os.path.dirname(PY) + os.pathsep + os.environ.get("PATH", "")
        return [os.path.join(REPO, "run_all.sh"), "--no-build", "58"], {"CH12_BUILD_DIR": build, "PATH": path}
    raise AssertionError(tool)


class SignalProperties(unittest.TestCase):
    """Each tool that starts programs, a signal at a generated moment."""

    @classmethod
    def setUpClass(cls):
        cls.keep = tempfile.TemporaryDirectory(prefix="ch12 signal properties ")

    @classmethod
    def tearDownClass(cls):
        cls.keep.cleanup()

    @settings(max_examples=14, **PROPERTY_SETTINGS)
    @given(tool=st.sampled_from(["compare_output", "run_all", "standalone_build", "sanitize", "compare_tree_runs"]),
           sig=st.sampled_from([signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT]),
           delay=st.floats(min_value=0, max_value=2))
    def test_no_process_outlives_the_tool(self, tool, sig, delay):
        command, env = signal_command(tool, self.keep.name)
        marks = leak_env()
        env = dict(os.environ, CH12_TEST_PIDFILE=os.path.join(self.keep.name, "pids"), **marks, **env)
        errors = tempfile.TemporaryFile()
        proc = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=errors, start_new_session=True)
        time.sleep(delay)   # the generated moment of the signal (not a synchronization)
        proc.send_signal(sig)
        swallowed = False
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            # Python's own SIGINT handler is in charge until the tool's first import:
            # its KeyboardInterrupt, raised in the middle of an import, may be swallowed
            # there ("Exception ignored in ..."). That signal never reached the tool;
            # the next one must stop it, and all it started, as any other.
            errors.seek(0)
            said = errors.read()
            swallowed = sig == signal.SIGINT and b"KeyboardInterrupt" in said and b"interrupted by" not in said
            if swallowed:
                proc.send_signal(sig)
            try:
                proc.wait(timeout=40)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                leftovers(marks)
                self.fail("%s, %s after %.3f s: still running 60 s later" % (tool, signal.Signals(sig).name, delay))
        errors.seek(0)
        out, err = b"", errors.read()
        errors.close()
        left = leftovers(marks)
        self.assertEqual(left, [], "%s, %s after %.3f s: left running" % (tool, signal.Signals(sig).name, delay))
        # A signal in the first milliseconds lands before the tool's handlers, even before Python
        # has started: it then dies of it (or Python stops its start-up, exit 1: "Fatal Python
        # error: init...", "failed to set __main__.__loader__"), having started nothing.
        early = proc.returncode == 1 and b"interrupted by" not in err and any(
            w in err for w in (b"Fatal Python error: init", b"__main__.__loader__", b"KeyboardInterrupt"))
        self.assertTrue(proc.returncode in (128 + sig, -sig) or early, "%s, %s after %.3f s: exit %d: %s"
                        % (tool, signal.Signals(sig).name, delay, proc.returncode,
                           (out + err).decode(errors="replace")[-2000:]))
        if proc.returncode == 128 + sig and not swallowed:
            self.assertNotIn(b"Traceback", err)


if __name__ == "__main__":
    suite.run([WritePolicyProperties, ToolPathProperties, SignalProperties], 3)
