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
import stat
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import suite  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
RUN_ALL = os.path.join(REPO, "run_all.sh")
SANITIZE = os.path.join(HERE, "sanitize.py")
ARGS = None  # the command line's --build-dir and --cmake


def run(cmd, env=None, cwd=None, timeout=300):
    full_env = dict(os.environ)
    full_env.update(env or {})
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=full_env, cwd=cwd, timeout=timeout)
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
        rc, out, _ = run([sys.executable, SANITIZE, "--tool", "memcheck", "--", "/bin/true"], env=env)
        self.assertEqual(rc, 77, out)
        self.assertIn("SKIPPED", out)

    def test_errors_fail(self):
        rc, out, _ = run([sys.executable, SANITIZE, "--tool", "memcheck", "--", "/bin/true"],
                         env=self.fake_tool("ERROR SUMMARY: 2 errors", 99))
        self.assertEqual(rc, 1, out)
        rc, out, _ = run([sys.executable, SANITIZE, "--tool", "racecheck", "--", "/bin/true"],
                         env=self.fake_tool("RACECHECK SUMMARY: 3 hazards displayed (3 errors, 0 warnings)"))
        self.assertEqual(rc, 1, out)

    def test_no_errors_pass(self):
        rc, out, _ = run([sys.executable, SANITIZE, "--tool", "memcheck", "--", "/bin/true"],
                         env=self.fake_tool("ERROR SUMMARY: 0 errors"))
        self.assertEqual(rc, 0, out)

    def test_unexpected_exit_fails(self):
        rc, out, _ = run([sys.executable, SANITIZE, "--tool", "memcheck", "--expect-exit", "1", "--", "/bin/true"],
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

    def test_without_cuda_every_program_and_test_remains(self):
        with_cuda = sorted(run(["ctest", "--test-dir", ARGS.build_dir, "-N"])[1].splitlines()[1:-2])
        build = os.path.join(self.tmp.name, "b")
        rc, out, err = self.configure(build, "-DCH12_CUDA=OFF")
        self.assertEqual(rc, 0, out + err)
        self.assertEqual(self.cuda_state(build), "OFF")
        without = sorted(run(["ctest", "--test-dir", build, "-N"])[1].splitlines()[1:-2])
        strip = lambda lines: sorted(l.split(":", 1)[1].strip() for l in lines if ":" in l)
        self.assertEqual(strip(without), strip(with_cuda))
        # a CPU program is still built; a GPU test reports Skipped with the reason
        rc, out, err = run(["cmake", "--build", build, "--target", "tree_bitonic_cpu"], timeout=600)
        self.assertEqual(rc, 0, out + err)
        rc, out, err = run(["ctest", "--test-dir", build, "-R", "^no_gpu_59_bitonic_split_kernel$", "-V"])
        self.assertEqual(rc, 0, out + err)
        self.assertIn("Skipped", out)
        self.assertIn("CUDA is turned off in this build", out)


MIN_TESTS = 14

if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--cmake", default="cmake")
    ARGS, rest = ap.parse_known_args()
    ARGS.build_dir = os.path.abspath(ARGS.build_dir)
    suite.run([RunAllTest, SanitizeTest, CMakeTest], MIN_TESTS)
