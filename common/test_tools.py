#!/usr/bin/env python3
"""Tests of the tools around the programs, tried as a hostile but fair user
would: run_all.sh, sanitize.py and the CMake configuration.

    python3 common/test_tools.py --build-dir build [--cmake cmake]

--build-dir is a configured build of this repository (its program table is
used). Fails unless at least MIN_TESTS tests ran.
"""

import argparse
import copy
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import suite  # noqa: E402
import supervisor  # noqa: E402  (the tools it runs: stopped with it)

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
RUN_ALL = os.path.join(REPO, "run_all.sh")
SANITIZE = os.path.join(HERE, "sanitize.py")
ARGS = None  # the command line's --build-dir and --cmake


def run(cmd, env=None, cwd=None, timeout=300):
    full_env = dict(os.environ)
    full_env.update(env or {})
    p = supervisor.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=full_env,
                       cwd=cwd, timeout=timeout)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def read_table(build):
    with open(os.path.join(build, "ch12_programs.json")) as f:
        return json.load(f)


def write_build(folder, rows, cuda_reason=None):
    """A stand-in build folder: its table holds the given rows (of the real
    build's table, changed as a test needs), and no CMakeCache.txt."""
    os.makedirs(folder, exist_ok=True)
    table = {"format": "ch12-programs 1", "source_dir": REPO, "build_dir": folder,
             "cuda": {"configured": cuda_reason is None, "compiler": "nvcc", "reason": cuda_reason or ""},
             "vulkan": {"configured": True, "compiler": "glslc", "reason": ""},
             "rows": rows, "tests": []}
    with open(os.path.join(folder, "ch12_programs.json"), "w") as f:
        json.dump(table, f)


def records(row):
    return {r["mode"]: r["record"] for r in row["runs"]}


class RunAllTest(unittest.TestCase):
    """run_all.sh: a missing program is a FAIL, SKIP says why, CH12_BUILD_DIR works."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        self.table = read_table(ARGS.build_dir)

    def row(self, name):
        return copy.deepcopy([r for r in self.table["rows"] if r["name"] == name][0])

    def built(self, name):
        """The row, or a skip of this test when this build could not make it."""
        r = self.row(name)
        if any(run["record"]["unbuilt"] for run in r["runs"]):
            self.skipTest("%s is not built in this build (%s)" % (name, r["runs"][0]["record"]["unbuilt"]))
        return r

    def test_no_build_folder_is_a_failure(self):
        rc, out, err = run([RUN_ALL, "--no-build", "59", "61", "63"], env={"CH12_BUILD_DIR": "/nonexistent/build"})
        self.assertEqual(rc, 1, out + err)
        self.assertIn("no build", err)

    def test_a_missing_gpu_binary_is_a_fail_when_cuda_is_configured(self):
        r = self.row("59_bitonic_split_kernel")
        for rec in records(r).values():  # the program: not there
            rec.update(unbuilt=None, target="59_bitonic_split_kernel",
                       program=[os.path.join(self.tmp.name, "gone", "59_bitonic_split_kernel")])
        build = os.path.join(self.tmp.name, "b")
        write_build(build, [r])
        rc, out, err = run([RUN_ALL, "--no-build", "59"], env={"CH12_BUILD_DIR": build})
        self.assertEqual(rc, 1, out + err)
        self.assertRegex(out, r"\n59 +12\.1 +GPU +FAIL +[0-9.]+ +not built")

    def test_skip_only_when_cuda_is_not_configured_and_it_says_how_to_fix_it(self):
        r = self.row("59_bitonic_split_kernel")
        reason = "59_bitonic_split_kernel: CUDA is not configured in this build (no nvcc was found): install the CUDA toolkit"
        for rec in records(r).values():
            rec["unbuilt"] = reason
        build = os.path.join(self.tmp.name, "b")
        write_build(build, [r], cuda_reason=reason)
        rc, out, err = run([RUN_ALL, "--no-build", "59"], env={"CH12_BUILD_DIR": build})
        self.assertEqual(rc, 0, out + err)
        self.assertRegex(out, r"\n59 +12\.1 +GPU +SKIP .*install the CUDA toolkit")

    def test_a_replay_is_its_own_cpu_row_and_never_a_gpu_pass(self):
        build = os.path.join(self.tmp.name, "b")
        write_build(build, [self.built("59_bitonic_split_kernel")])
        rc, out, err = run([RUN_ALL, "--no-build", "59"], env={"CH12_BUILD_DIR": build, "CUDA_VISIBLE_DEVICES": ""})
        self.assertEqual(rc, 0, out + err)
        self.assertRegex(out, r"\n59 \(replay\) +12\.1 +CPU +PASS")
        self.assertRegex(out, r"\n59 +12\.1 +GPU +SKIP")

    def test_a_relative_build_dir_is_taken_from_the_current_folder(self):
        os.makedirs(os.path.join(self.tmp.name, "here", "rel"))
        write_build(os.path.join(self.tmp.name, "here", "rel"), [self.built("58_bitonic_split_cpu_baseline")])
        rc, out, err = run([RUN_ALL, "--no-build", "58"], env={"CH12_BUILD_DIR": "rel"},
                           cwd=os.path.join(self.tmp.name, "here"))
        self.assertEqual(rc, 0, out + err)
        self.assertRegex(out, r"\n58 +12\.1 +CPU +PASS")

    def test_unknown_program_and_option_are_exit_2(self):
        for args in (["--no-build", "64"], ["--no-such-option"]):
            rc, out, err = run([RUN_ALL] + args, env={"CH12_BUILD_DIR": ARGS.build_dir})
            self.assertEqual(rc, 2, args)
            self.assertIn("Usage:", err)

    def test_help(self):
        rc, out, err = run([RUN_ALL, "--help"])
        self.assertEqual(rc, 0)
        self.assertIn("Usage:", out)
        self.assertEqual(err, "")
        # issue 18: a replay needs nvcc to be built (no GPU); it does not run "on any machine"
        self.assertNotIn("any machine", out)
        self.assertIn("it needs no GPU, but it is built by nvcc", " ".join(out.split()))

    def fake_row(self, like, check, program, args=()):
        """A row of the table (a copy of `like`'s) whose run is the given check of the given command."""
        r = self.row(like)
        rec = records(r)["run"]
        rec.update(unbuilt=None, target="", check=list(check), program=list(program), args=list(args))
        rec.setdefault("compare", [sys.executable, "-S", os.path.join(HERE, "compare_output.py")])  # an unbuilt record has none
        r["runs"] = [x for x in r["runs"] if x["mode"] == "run"]
        return r

    # ---- issue 18, item 7: the table flows one way

    def test_each_row_runs_exactly_its_ctest_command(self):
        rc, out, err = run(["ctest", "--test-dir", ARGS.build_dir, "--show-only=json-v1"])
        self.assertEqual(rc, 0, err)
        commands = {t["name"]: t.get("command") for t in json.loads(out)["tests"]}
        rows = 0
        for rec in self.table["tests"]:
            self.assertIn(rec["test"], commands)
            if rec["unbuilt"]:
                self.assertIn("SKIPPED", " ".join(commands[rec["test"]]), rec["test"])
                continue
            self.assertEqual(commands[rec["test"]], rec["compare"] + rec["check"] + ["--"] + rec["program"] + rec["args"],
                             rec["test"])
        for row in self.table["rows"]:
            for r in row["runs"]:
                self.assertIn(r["record"], self.table["tests"], row["name"])
                rows += 1
        self.assertGreater(rows, 20)

    def test_run_all_reads_the_programs_only_from_the_table(self):
        # Issue 27: no second reader of the declarations (run_all.py had its own CMake parser).
        with open(os.path.join(HERE, "run_all.py"), encoding="utf-8") as f:
            source = f.read()
        for word in ("_cmake_calls", "names_from_source", "def _value("):
            self.assertNotIn(word, source)
        r = self.fake_row("58_bitonic_split_cpu_baseline", ["--expect-line=hi"], [sys.executable, "-S", "-c", "print('hi')"])
        r.update(id="58x", name="a_program_only_this_table_has")
        build = os.path.join(self.tmp.name, "b")
        write_build(build, [r])
        rc, out, err = run([RUN_ALL, "--no-build", "a_program_only_this_table_has"], env={"CH12_BUILD_DIR": build})
        self.assertEqual(rc, 0, out + err)
        self.assertRegex(out, r"\n58x +12\.1 +CPU +PASS")

    # ---- issue 16, items 11-14: run_all.sh and its build folder

    def test_a_build_of_another_checkout_is_refused_with_what_to_do(self):
        build = os.path.join(self.tmp.name, "moved", "build")
        write_build(build, [self.built("58_bitonic_split_cpu_baseline")])
        with open(os.path.join(build, "CMakeCache.txt"), "w") as f:
            f.write("CMAKE_HOME_DIRECTORY:INTERNAL=%s\n" % os.path.join(self.tmp.name, "src"))
        for args in (["--no-build", "58"], ["58"]):
            rc, out, err = run([RUN_ALL] + args, env={"CH12_BUILD_DIR": build})
            self.assertEqual(rc, 1, out + err)
            self.assertIn("was configured for the source in %s" % os.path.join(self.tmp.name, "src"), err)
            self.assertIn("rm -rf '%s'" % build, err)
            self.assertNotIn("PASS", out)

    def test_two_runs_at_once_take_turns_on_the_build_folder(self):
        import fcntl
        build = os.path.join(self.tmp.name, "b")
        write_build(build, [self.built("58_bitonic_split_cpu_baseline")])
        with open(os.path.join(build, ".run_all.lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # another run_all.sh, building
            p = subprocess.Popen([RUN_ALL, "--no-build", "58"], env=dict(os.environ, CH12_BUILD_DIR=build),
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            # (no sleeping: it must say that it waits, and be still running when it has)
            said = b""
            while b"\n" not in said and p.poll() is None:
                said += p.stderr.read1(4096)
            self.assertIn(b"waiting: another run_all.sh is using the build folder", said)
            self.assertIsNone(p.poll(), "it did not wait for the lock")
        out, err = p.communicate(timeout=120)
        err = said + err
        self.assertEqual(p.returncode, 0, out + err)
        self.assertIn(b"waiting: another run_all.sh is using the build folder", err)
        self.assertRegex(out.decode(), r"\n58 +12\.1 +CPU +PASS")

    def test_an_unknown_program_is_exit_2_from_the_table_before_anything_is_built_or_run(self):
        build = os.path.join(self.tmp.name, "b")
        ran = os.path.join(self.tmp.name, "ran")
        r = self.fake_row("58_bitonic_split_cpu_baseline", ["--expect-exit", "0"],
                          [sys.executable, "-S", "-c", "open(%r, 'w')" % ran])
        write_build(build, [r])
        for args in (["--no-build", "58", "64"], ["--no-build", "64", "58"]):
            rc, out, err = run([RUN_ALL] + args, env={"CH12_BUILD_DIR": build})
            self.assertEqual(rc, 2, out + err)
            self.assertIn("no program '64'", err)
            self.assertEqual(out, "")
            self.assertFalse(os.path.exists(ran), "it ran a program before refusing a bad name")
        # Without a build and without CMake the names cannot be known: it says what is missing.
        tools = os.path.join(self.tmp.name, "bin")
        os.makedirs(tools)
        for tool in ("bash", "python3", "dirname", "env"):
            # python3: this interpreter itself (a launcher such as a pyenv shim needs more than this PATH)
            found = sys.executable if tool == "python3" else shutil.which(tool)
            if found:
                os.symlink(found, os.path.join(tools, tool))
        fresh = os.path.join(self.tmp.name, "fresh build")
        rc, out, err = run(["bash", RUN_ALL, "64"], env={"CH12_BUILD_DIR": fresh, "PATH": tools})
        self.assertEqual(rc, 1, out + err)
        self.assertIn("'cmake' was not found", err)

    def test_a_cmake_too_old_for_the_presets_is_named_before_configuring(self):
        # A stand-in cmake 3.22 (enough for 'cmake -S . -B build', not for the presets) and a stand-in C++
        # compiler: run_all.sh names the version and what to do, and asks cmake for nothing but its version.
        tools = os.path.join(self.tmp.name, "bin")
        os.makedirs(tools)
        calls = os.path.join(self.tmp.name, "cmake calls")
        with open(os.path.join(tools, "cmake"), "w") as f:
            f.write("#!/bin/sh\necho \"$*\" >> '%s'\necho 'cmake version 3.22.1'\n" % calls)
        os.chmod(os.path.join(tools, "cmake"), 0o755)
        os.symlink("/bin/true", os.path.join(tools, "c++"))
        for tool in ("bash", "python3", "dirname", "env"):
            found = sys.executable if tool == "python3" else shutil.which(tool)
            if found:
                os.symlink(found, os.path.join(tools, tool))
        fresh = os.path.join(self.tmp.name, "fresh build")
        rc, out, err = run(["bash", RUN_ALL, "58"], env={"CH12_BUILD_DIR": fresh, "PATH": tools})
        self.assertEqual(rc, 1, out + err)
        self.assertIn("CMake 3.22 is too old", err)
        self.assertIn("need CMake 3.25 or newer", err)
        self.assertIn("-DCMAKE_BUILD_TYPE=Release", err)
        with open(calls) as f:
            self.assertEqual(f.read(), "--version\n")
        self.assertFalse(os.path.exists(os.path.join(fresh, "CMakeCache.txt")), "it configured a build all the same")

    def test_quiet_prints_the_difference_of_a_failing_row(self):
        golden = os.path.join(self.tmp.name, "golden.txt")
        with open(golden, "w") as f:
            f.write("the golden line\n")
        r = self.fake_row("58_bitonic_split_cpu_baseline", ["--golden", golden],
                          [sys.executable, "-S", "-c", "print('another line')"])
        build = os.path.join(self.tmp.name, "b")
        write_build(build, [r])
        rc, out, err = run([RUN_ALL, "--no-build", "--quiet", "58"], env={"CH12_BUILD_DIR": build})
        self.assertEqual(rc, 1, out + err)
        self.assertRegex(out, r"\n58 +12\.1 +CPU +FAIL .*printed below the table")
        self.assertIn("---- 58: FAIL ----", out)
        self.assertIn("-the golden line$", out)
        self.assertIn("+another line$", out)
        self.assertNotIn("see above", out)

    # ---- issue 18, item 7: the exercises' and the web page's rows

    def test_exercises_run_with_their_flag_and_a_starter_says_what_its_check_said(self):
        build = os.path.join(self.tmp.name, "b")
        write_build(build, [self.built("58_bitonic_split_cpu_baseline"), self.built("ex2_any_n"),
                            self.built("ex2_any_n_solution")])
        rc, out, err = run([RUN_ALL, "--no-build"], env={"CH12_BUILD_DIR": build})
        self.assertEqual(rc, 0, out + err)
        self.assertNotIn("ex2", out.split("Summary")[1])
        rc, out, err = run([RUN_ALL, "--no-build", "--exercises"], env={"CH12_BUILD_DIR": build})
        self.assertEqual(rc, 0, out + err)
        summary = out.split("Summary")[1]
        self.assertRegex(summary, r"\nex2 +12\.3 +CPU +TODO .*as shipped -- its check said: check 1, n = 1 \.\. 300.*NOT YET")
        self.assertRegex(summary, r"\nex2 solution +12\.3 +CPU +PASS")
        self.assertNotRegex(summary, r"\n58 ")
        rc, out, err = run([RUN_ALL, "--no-build", "ex2"], env={"CH12_BUILD_DIR": build})
        self.assertRegex(out.split("Summary")[1], r"\nex2 +12\.3 +CPU +TODO")

    def test_web_rows_with_their_flag_say_how_to_install_what_is_missing(self):
        build = os.path.join(self.tmp.name, "b")
        write_build(build, [self.built("58_bitonic_split_cpu_baseline"), self.row("web_page_output_59"),
                            self.row("59_bitonic_split_kernel")])
        env = {"CH12_BUILD_DIR": build, "CH12_CHROMEDRIVER": "/nonexistent/chromedriver", "CUDA_VISIBLE_DEVICES": ""}
        rc, out, err = run([RUN_ALL, "--no-build", "59"], env=env)
        self.assertNotIn("(web)", out)
        rc, out, err = run([RUN_ALL, "--no-build", "--web", "59"], env=env)
        self.assertEqual(rc, 0, out + err)
        self.assertRegex(out.split("Summary")[1],
                         r"\n59 \(web\) +12\.1 +WEB +SKIP .*apt-get install chromium chromium-driver")

    # ---- issue 26: grading, the simulator's rows, the notes, the default run

    def compiled(self, name, mode):
        """The row, or a skip when this build has not compiled the program of its `mode` run."""
        r = self.row(name)
        rec = records(r).get(mode)
        if rec is None or rec["unbuilt"] or not os.access(rec["program"][0], os.X_OK):
            self.skipTest("%s's %s program is not built here" % (name, mode))
        return r

    def test_json_holds_each_exercise_result_message_time_and_check_version(self):
        r_todo = self.compiled("ex2_any_n", "run")
        r_pass = self.compiled("ex2_any_n_solution", "run")
        fail = self.fake_row("ex2_any_n", ["--expect-exit", "0", "--expect-line=exercise 4: PASS -- it works"],
                             [sys.executable, "-S", "-c", "print('check 1, four: NOT YET -- race on g_a[1]: ...'); "
                                                    "print('exercise 4: NOT YET -- 1 of 1 checks failed'); exit(1)"])
        fail.update(id="ex4", name="ex4_fake", starter_as_shipped=False, check_version="0123456789ab",
                    shipped_sha256="0" * 64)   # (its file is not as shipped: edited, as the row says)
        build = os.path.join(self.tmp.name, "b")
        write_build(build, [r_todo, r_pass, fail])
        out_file = os.path.join(self.tmp.name, "class", "student.json")
        os.makedirs(os.path.dirname(out_file))
        rc, out, err = run([RUN_ALL, "--no-build", "--quiet", "--exercises", "--json", out_file],
                           env={"CH12_BUILD_DIR": build})
        self.assertEqual(rc, 1, out + err)
        with open(out_file) as f:
            data = json.load(f)
        self.assertEqual(data["format"], "ch12-run-all-results 1")
        self.assertEqual(data["exit_status"], 1)
        self.assertRegex(data["finished"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
        for key in ("host", "source_dir", "build_dir", "cuda", "rows"):
            self.assertIn(key, data)
        got = {e["id"]: e for e in data["exercises"] + data["solutions"]}
        self.assertEqual(sorted(got), ["ex2", "ex2 solution", "ex4"])
        self.assertEqual([e["id"] for e in data["solutions"]], ["ex2 solution"])
        for e in got.values():
            self.assertEqual(set(e), {"exercise", "id", "name", "solution", "result", "message", "seconds",
                                      "check_version", "runs"})
            self.assertIsInstance(e["seconds"], float)
            self.assertRegex(e["check_version"], r"^[0-9a-f]{12}$")
            for run_ in e["runs"]:
                self.assertEqual(set(run_), {"label", "mode", "kind", "result", "message", "seconds"})
        self.assertEqual((got["ex2"]["exercise"], got["ex2"]["result"]), (2, "TODO"))
        self.assertRegex(got["ex2"]["message"], r"^check 1, n = 1 \.\. 300.*: NOT YET -- ")
        self.assertEqual((got["ex2 solution"]["result"], got["ex2 solution"]["message"]),
                         ("PASS", "exercise 2: PASS -- every length sorts, through the network"))
        self.assertEqual((got["ex4"]["exercise"], got["ex4"]["result"]), (4, "FAIL"))
        self.assertEqual(got["ex4"]["message"], "check 1, four: NOT YET -- race on g_a[1]: ...")
        self.assertEqual(got["ex4"]["check_version"], "0123456789ab")
        self.assertEqual(os.stat(out_file).st_mode & 0o777, 0o644)
        self.assertEqual(sorted(os.listdir(os.path.dirname(out_file))), ["student.json"])  # no temporary left

    def test_json_and_handout_arguments_are_checked_first(self):
        folder = os.path.join(self.tmp.name, "there")
        os.makedirs(folder)
        for args, said in ((["--json"], "option '--json' needs a value"),
                           (["--json", folder], "is a folder"),
                           (["--json", os.path.join(self.tmp.name, "no", "x.json")], "does not exist"),
                           (["--json", "a.json", "--json", "b.json"], "was given twice"),
                           (["--handout", folder], "already exists"),
                           (["--handout", os.path.join(self.tmp.name, "new"), "ex1"], "runs nothing"),
                           (["--handout", os.path.join(REPO, "handout")], "inside this checkout")):
            rc, out, err = run([RUN_ALL, "--no-build"] + args, env={"CH12_BUILD_DIR": "/nonexistent/build"})
            self.assertEqual(rc, 2, (args, out, err))
            self.assertIn(said, err)
            self.assertEqual(out, "")
        self.assertEqual(os.listdir(folder), [])

    def test_a_json_file_of_the_checkout_is_never_replaced(self):
        r = self.compiled("58_bitonic_split_cpu_baseline", "run")
        build = os.path.join(self.tmp.name, "b")
        write_build(build, [r])
        golden = os.path.join(REPO, "expected_output", "58_bitonic_split_cpu_baseline.txt")
        with open(golden, "rb") as f:
            before = f.read()
        rc, out, err = run([RUN_ALL, "--no-build", "--quiet", "58", "--json", golden], env={"CH12_BUILD_DIR": build})
        # Refused by common/write_policy.py before anything runs (exit 2, nothing run), not after the run.
        self.assertEqual(rc, 2, out + err)
        self.assertIn("a golden named after a numbered listing", err)
        self.assertEqual(out, "")
        readme = os.path.join(REPO, "README.md")
        with open(readme, "rb") as f:
            readme_before = f.read()
        rc, out, err = run([RUN_ALL, "--no-build", "--quiet", "58", "--json", readme], env={"CH12_BUILD_DIR": build})
        self.assertEqual(rc, 2, out + err)
        # (a checkout: git tracks it; a copy without git, config_copy_without_git: a file of the project)
        self.assertTrue("tracked by git" in err or "is a file of this project" in err, err)
        with open(readme, "rb") as f:
            self.assertEqual(f.read(), readme_before)
        with open(golden, "rb") as f:
            self.assertEqual(f.read(), before)

    def test_a_kernel_exercise_has_a_gpu_row_and_a_simulator_row(self):
        r = self.compiled("ex4_one_launch_solution", "sim")
        build = os.path.join(self.tmp.name, "b")
        write_build(build, [r])
        rc, out, err = run([RUN_ALL, "--no-build", "ex4 solution"], env={"CH12_BUILD_DIR": build, "CUDA_VISIBLE_DEVICES": ""})
        self.assertEqual(rc, 0, out + err)
        summary = out.split("Summary")[1]
        self.assertRegex(summary, r"\nex4 solution +12\.3 +GPU +(SKIP|PASS) ")
        self.assertRegex(summary, r"\nex4 solution \(sim\) +12\.3 +SIM +PASS .*the block simulator")
        self.assertIn("[block simulator: the kernels run on the CPU", out)

    def test_notes_say_whose_replay_and_which_traps_differ_from_the_book(self):
        def passing(name, check, mode="run", **fields):
            r = self.row(name)
            rec = records(r)[mode]
            status = int(check[check.index("--expect-exit") + 1])
            rec.update(unbuilt=None, target="", check=list(check) + ["--expect-empty-stdout"], args=[],
                       program=[sys.executable, "-S", "-c", "import sys; sys.exit(%d)" % status])
            rec.setdefault("compare", [sys.executable, "-S", os.path.join(HERE, "compare_output.py")])
            r["runs"] = [x for x in r["runs"] if x["mode"] == mode]
            r.update(fields)
            return r
        rows = [passing("58_bitonic_split_cpu_baseline", ["--expect-exit", "0"]),
                passing("58_trap_adjacent_pairs", ["--expect-exit", "1"]),
                passing("61_bitonic_merge_multipass", ["--expect-exit", "0"]),
                passing("61_trap_first_group_only", ["--expect-exit", "1"]),
                passing("bitonic_per_element_pass", ["--expect-exit", "0"], mode="replay")]
        self.assertEqual(rows[1]["errata"], "3")
        build = os.path.join(self.tmp.name, "b")
        write_build(build, rows)
        rc, out, err = run([RUN_ALL, "--no-build", "--traps", "58", "61 trap", "per_element"], env={"CH12_BUILD_DIR": build})
        self.assertEqual(rc, 0, out + err)
        summary = out.split("Summary")[1]
        self.assertRegex(summary, r"\n58 trap .*PASS .*failed as it must \(MISMATCH, exit 1\), not quite as the book "
                                  r"says: ch12/ERRATA\.md, entry 3")
        self.assertRegex(summary, r"\n61 trap .*PASS .*failed as the book says")
        self.assertRegex(summary, r"\nper_element \(replay\) .*PASS .*a CPU replay \(a host loop")
        self.assertNotRegex(summary, r"per_element \(replay\).*the book's")

    def test_the_default_run_leaves_out_what_is_slow_to_build_unless_named(self):
        r = self.fake_row("58_bitonic_split_cpu_baseline", ["--expect-line=x"], [sys.executable, "-S", "-c", "print('x')"])
        slow = self.fake_row("bitonic_per_element_pass", ["--expect-line=x"], [sys.executable, "-S", "-c", "print('x')"])
        self.assertFalse(slow["by_default"])
        build = os.path.join(self.tmp.name, "b")
        write_build(build, [r, slow])
        rc, out, err = run([RUN_ALL, "--no-build"], env={"CH12_BUILD_DIR": build})
        self.assertEqual(rc, 0, out + err)
        self.assertNotIn("per_element", out.split("Summary")[1])
        rc, out, err = run([RUN_ALL, "--no-build", "per_element"], env={"CH12_BUILD_DIR": build})
        self.assertRegex(out.split("Summary")[1], r"\nper_element +extra +GPU +PASS")

    # ---- issue 16, item 10: an interrupt stops what runs

    def test_sigint_and_sigterm_stop_the_program_and_exit_130_or_143(self):
        r = self.fake_row("58_bitonic_split_cpu_baseline", ["--timeout", "100", "--expect-line=x"],
                          [sys.executable, "-S", sleeper(self.tmp.name)])
        build = os.path.join(self.tmp.name, "b")
        write_build(build, [r])
        assert_stopped_by_signals(self, [RUN_ALL, "--no-build", "58"], {"CH12_BUILD_DIR": build}, self.tmp.name)


def sleeper(folder):
    """A program that starts a child and sleeps, having written both pids to $CH12_TEST_PIDFILE."""
    path = os.path.join(folder, "sleeper.py")
    with open(path, "w") as f:
        f.write("import os, subprocess, sys, time\n"
                "c = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])\n"
                "p = os.environ['CH12_TEST_PIDFILE']\n"
                "open(p + '.tmp', 'w').write('%d %d' % (os.getpid(), c.pid))\n"
                "os.rename(p + '.tmp', p)\n"
                "time.sleep(120)\n")
    return path


def process_alive(pid):
    """True while pid runs (a zombie, killed but not yet reaped, is not alive)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def assert_stopped_by_signals(test, command, env, folder):
    """command, once its program runs, gets SIGINT (then, again, SIGTERM): it
    must exit 130 (143) with no traceback, and leave no process behind."""
    for sig, status in ((signal.SIGINT, 130), (signal.SIGTERM, 143)):
        pidfile = os.path.join(folder, "pids.%d" % sig)
        tool = subprocess.Popen(command, env=dict(os.environ, CH12_TEST_PIDFILE=pidfile, **env),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.time() + 60
        while not os.path.exists(pidfile) and time.time() < deadline and tool.poll() is None:
            time.sleep(0.05)
        if not os.path.exists(pidfile):
            tool.kill()
            test.fail("the program never started: %r" % (tool.communicate(),))
        with open(pidfile) as f:
            pids = [int(x) for x in f.read().split()]
        tool.send_signal(sig)
        out, err = tool.communicate(timeout=30)
        test.assertEqual(tool.returncode, status, (out + err).decode(errors="replace"))
        test.assertNotIn(b"Traceback", out + err)
        for pid in pids:
            deadline = time.time() + 10
            while time.time() < deadline and process_alive(pid):
                time.sleep(0.05)
            test.assertFalse(process_alive(pid), "%s left process %d running" % (signal.Signals(sig).name, pid))


class MetaUsageTest(unittest.TestCase):
    """check_usage_tests.py: a usage check that the usage alone satisfies is named; a real one is not."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def test_a_check_that_the_usage_alone_satisfies_is_caught(self):
        prog = os.path.join(self.tmp.name, "fake.py")
        with open(prog, "w") as f:
            f.write("import sys\nu = 'usage: fake [--n N]   (Section 12.1)\\n'\n"
                    "if '--help' in sys.argv: sys.stdout.write(u); sys.exit(0)\n"
                    "sys.stderr.write(\"fake: --n: 'x' is not a number\\n\" + u); sys.exit(2)\n")
        compare = [sys.executable, "-S", os.path.join(HERE, "compare_output.py")]

        def record(name, problem):
            return {"test": name, "labels": ["usage"], "bad_command_line": True, "unbuilt": None, "target": "",
                    "compare": compare, "program": [sys.executable, "-S", prog], "args": ["--n", "x"],
                    "check": ["--timeout", "60", "--expect-exit", "2", "--expect-empty-stdout",
                              "--expect-stderr-contains=usage: fake", "--expect-stderr-contains=" + problem]}
        for tests, status in (([record("usage_fake_weak", "12"), record("usage_fake_named", "--n: 'x' is not a number")], 1),
                              ([record("usage_fake_named", "--n: 'x' is not a number")], 0)):
            build = os.path.join(self.tmp.name, "b%d" % status)
            write_build(build, [])
            with open(os.path.join(build, "ch12_programs.json")) as f:
                table = json.load(f)
            table["tests"] = tests
            with open(os.path.join(build, "ch12_programs.json"), "w") as f:
                json.dump(table, f)
            rc, out, err = run([sys.executable, "-S", os.path.join(HERE, "check_usage_tests.py"), "--build-dir", build])
            self.assertEqual(rc, status, out + err)
            if status:
                self.assertIn("FAIL: usage_fake_weak: passes with only the usage on stderr", out)
                self.assertNotIn("usage_fake_named:", out)


class StandaloneBuildTest(unittest.TestCase):
    """standalone_build.py: its scratch folder is its own (issue 16, item 2)."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)
        # a checkout of our own to be endangered: ch12/ with one listing, common/
        self.repo = os.path.join(self.tmp.name, "clone")
        os.makedirs(os.path.join(self.repo, "ch12"))
        shutil.copy(os.path.join(REPO, "ch12", "58_bitonic_split_cpu_baseline.cpp"), os.path.join(self.repo, "ch12"))
        shutil.copytree(os.path.join(REPO, "common"), os.path.join(self.repo, "common"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        self.source = os.path.join(self.repo, "ch12", "58_bitonic_split_cpu_baseline.cpp")

    def standalone(self, scratch, compiler="/bin/true", env=None):
        return run([sys.executable, "-S", os.path.join(HERE, "standalone_build.py"), "--compiler", compiler,
                    "--source", self.source, "--scratch", scratch,
                    "--golden", os.path.join(REPO, "expected_output", "58_bitonic_split_cpu_baseline.txt")], env=env)

    def files(self):
        return sorted(os.path.relpath(os.path.join(d, f), self.tmp.name)
                      for d, _, fs in os.walk(self.tmp.name) for f in fs)

    def test_a_scratch_that_is_or_holds_the_source_or_its_checkout_is_refused(self):
        before = self.files()
        unmarked = os.path.join(self.tmp.name, "mine")
        os.makedirs(unmarked)
        with open(os.path.join(unmarked, "notes.txt"), "w") as f:
            f.write("precious\n")
        for scratch in (os.path.join(self.repo, "ch12"), self.repo, self.tmp.name, "/",
                        os.path.join(self.repo, "common", "x"), unmarked, os.path.join(self.repo, "ch12", "..")):
            rc, out, err = self.standalone(scratch)
            self.assertEqual(rc, 2, scratch + out + err)
            self.assertIn("refusing --scratch", err)
            self.assertNotIn("Traceback", err)
        self.assertEqual(self.files(), sorted(before + ["mine/notes.txt"]))

    def test_it_deletes_only_what_it_made(self):
        scratch = os.path.join(self.tmp.name, "scratch")
        self.standalone(scratch)
        self.assertTrue(os.path.isfile(os.path.join(scratch, ".standalone_build")))
        with open(os.path.join(scratch, "mine.txt"), "w") as f:
            f.write("precious\n")
        self.standalone(scratch)
        self.assertTrue(os.path.isfile(os.path.join(scratch, "mine.txt")))
        self.assertTrue(os.path.isfile(os.path.join(scratch, "ch12", "58_bitonic_split_cpu_baseline.cpp")))

    def test_sigint_and_sigterm_stop_the_compiler_and_exit_130_or_143(self):
        compiler = os.path.join(self.tmp.name, "slow-compiler")
        with open(compiler, "w") as f:
            f.write("#!/bin/sh\nexec %s %s\n" % (sys.executable, sleeper(self.tmp.name)))
        os.chmod(compiler, 0o755)
        command = [sys.executable, "-S", os.path.join(HERE, "standalone_build.py"), "--compiler", compiler,
                   "--source", self.source, "--scratch", os.path.join(self.tmp.name, "s"),
                   "--golden", os.path.join(REPO, "expected_output", "58_bitonic_split_cpu_baseline.txt")]
        assert_stopped_by_signals(self, command, {}, self.tmp.name)


class SanitizeTest(unittest.TestCase):
    """sanitize.py: Skipped without the tool, FAIL on any error, PASS on none."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def fake_tool(self, summary, exit_code=0):
        path = os.path.join(self.tmp.name, "compute-sanitizer")
        with open(path, "w") as f:
            f.write("#!/bin/sh\necho '========= COMPUTE-SANITIZER'\necho '========= %s'\nexit %d\n" % (summary, exit_code))
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
        return {"PATH": self.tmp.name + os.pathsep + os.environ.get("PATH", "")}

    def test_no_tool_is_skipped(self):
        empty = os.path.join(self.tmp.name, "empty")
        os.makedirs(empty)
        env = {"PATH": empty, "CUDA_HOME": empty, "CUDA_PATH": empty}
        if os.path.exists("/usr/local/cuda/bin/compute-sanitizer"):
            self.skipTest("compute-sanitizer is installed in /usr/local/cuda here")
        rc, out, _ = run([sys.executable, "-S", SANITIZE, "--tool", "memcheck", "--", "/bin/true"], env=env)
        self.assertEqual(rc, 77, out)
        self.assertIn("SKIPPED", out)

    def test_errors_fail(self):
        rc, out, _ = run([sys.executable, "-S", SANITIZE, "--tool", "memcheck", "--", "/bin/true"],
                         env=self.fake_tool("ERROR SUMMARY: 2 errors", 99))
        self.assertEqual(rc, 1, out)
        rc, out, _ = run([sys.executable, "-S", SANITIZE, "--tool", "racecheck", "--", "/bin/true"],
                         env=self.fake_tool("RACECHECK SUMMARY: 3 hazards displayed (3 errors, 0 warnings)"))
        self.assertEqual(rc, 1, out)

    def test_no_errors_pass(self):
        rc, out, _ = run([sys.executable, "-S", SANITIZE, "--tool", "memcheck", "--", "/bin/true"],
                         env=self.fake_tool("ERROR SUMMARY: 0 errors"))
        self.assertEqual(rc, 0, out)

    def test_sigint_and_sigterm_stop_the_sanitizer_and_program_and_exit_130_or_143(self):
        tool = os.path.join(self.tmp.name, "compute-sanitizer")
        with open(tool, "w") as f:  # skips its own six options, then runs the program
            f.write("#!/bin/sh\nshift 6\nexec \"$@\"\n")
        os.chmod(tool, 0o755)
        env = {"PATH": self.tmp.name + os.pathsep + os.environ.get("PATH", "")}
        assert_stopped_by_signals(self, [sys.executable, "-S", SANITIZE, "--tool", "memcheck", "--", sys.executable,
                                         sleeper(self.tmp.name)], env, self.tmp.name)

    def test_unexpected_exit_fails(self):
        rc, out, _ = run([sys.executable, "-S", SANITIZE, "--tool", "memcheck", "--expect-exit", "1", "--", "/bin/true"],
                         env=self.fake_tool("ERROR SUMMARY: 0 errors", 0))
        self.assertEqual(rc, 1, out)


class CMakeTest(unittest.TestCase):
    """The configuration: nvcc found in its usual homes, a stale NOTFOUND
    re-checked, a wrong CUDACXX warned about, and a build without CUDA that
    keeps every program and test."""

    NVCC = "/usr/local/cuda/bin/nvcc"

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.addCleanup(self.tmp.cleanup)

    def configure(self, build, *defs, env=None):
        return run([ARGS.cmake, "-S", REPO, "-B", build] + list(defs), env=env, timeout=600)

    def cuda_state(self, build):
        return "ON" if read_table(build)["cuda"]["configured"] else "OFF"

    def path_without_nvcc(self):
        keep = [p for p in os.environ.get("PATH", "").split(os.pathsep)
                if p and not os.path.exists(os.path.join(p, "nvcc"))]
        return os.pathsep.join(keep)

    def test_nvcc_is_found_in_its_usual_home_and_notfound_does_not_stick(self):
        if not os.access(self.NVCC, os.X_OK):
            self.skipTest("no nvcc in /usr/local/cuda/bin here")
        build = os.path.join(self.tmp.name, "b")
        env = {"PATH": self.path_without_nvcc()}
        rc, out, err = self.configure(build, "-DCMAKE_CUDA_COMPILER=NOTFOUND", env=env)
        self.assertEqual(rc, 0, out + err)
        self.assertEqual(self.cuda_state(build), "ON", out)
        self.assertIn(self.NVCC, out)

    def test_a_wrong_cudacxx_is_warned_about(self):
        build = os.path.join(self.tmp.name, "b")
        rc, out, err = self.configure(build, "-DCH12_CUDA=ON", env={"CUDACXX": "/nonexistent/nvcc"})
        self.assertEqual(rc, 0, out + err)
        self.assertIn("CUDACXX names '/nonexistent/nvcc', which does not exist", err)

    def test_a_cudacxx_that_is_not_nvcc_is_named_with_why(self):
        # Issue 16, item 9: it was "no nvcc was found". (CUDACXX=/bin/false: config_cudacxx_false.)
        build = os.path.join(self.tmp.name, "b")
        rc, out, err = self.configure(build, env={"CUDACXX": "/usr/bin/g++"})
        if not os.path.exists("/usr/bin/g++"):
            self.skipTest("no /usr/bin/g++ here")
        self.assertEqual(rc, 0, out + err)
        self.assertEqual(self.cuda_state(build), "OFF")
        reason = read_table(build)["cuda"]["reason"]
        self.assertIn("CUDACXX names '/usr/bin/g++', which is not nvcc: '/usr/bin/g++ --version' printed 'g++", reason)
        self.assertNotIn("no nvcc was found", reason)


class LabelTest(unittest.TestCase):
    """Labels are regular expressions to ctest -L: none may be found inside another (issue 16, item 16)."""

    def test_no_label_is_a_substring_of_another(self):
        rc, out, err = run(["ctest", "--test-dir", ARGS.build_dir, "--show-only=json-v1"])
        self.assertEqual(rc, 0, err)
        labels = set()
        for t in json.loads(out)["tests"]:
            for p in t.get("properties", []):
                if p["name"] == "LABELS":
                    labels.update(p["value"])
        self.assertIn("gpu", labels)
        self.assertNotIn("nogpu", labels)
        clashes = sorted("%s in %s" % (a, b) for a in labels for b in labels if a != b and a in b)
        self.assertEqual(clashes, [], "ctest -L <a> would also select the tests labelled <b>")


MIN_TESTS = 36
CASES = [RunAllTest, SanitizeTest, CMakeTest, MetaUsageTest, StandaloneBuildTest, LabelTest]

if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--cmake", default="cmake")
    ap.add_argument("--only", action="append", default=[], metavar="CLASS",
                    help="run only this class of tests (repeatable): e.g. RunAllTest, against a nested build")
    ARGS, rest = ap.parse_known_args()
    ARGS.build_dir = os.path.abspath(ARGS.build_dir)
    cases = [c for c in CASES if not ARGS.only or c.__name__ in ARGS.only]
    if len(cases) < len(ARGS.only or CASES) and ARGS.only:
        ap.error("--only: no such class among %s" % ", ".join(c.__name__ for c in CASES))
    minimum = MIN_TESTS if not ARGS.only else sum(
        unittest.defaultTestLoader.loadTestsFromTestCase(c).countTestCases() for c in cases)
    suite.run(cases, minimum)
