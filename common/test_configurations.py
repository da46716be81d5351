#!/usr/bin/env python3
"""The suite on a machine that lacks something: each configuration below is
configured in a build folder of its own, and must keep every test of the
reference build (same names), with what cannot run reporting Skipped --
never Failed -- and saying why.

    test_configurations.py --config cuda_off|no_tools_on_path|cudacxx_false|copy_without_git \\
        --reference-build build [--cmake cmake] [--ctest ctest]

  cuda_off          -DCH12_CUDA=OFF
  no_tools_on_path  no nvcc, glslc or node on PATH (nor in nvcc's usual homes:
                    CH12_NVCC_HOMES is pointed elsewhere, as on a laptop
                    without the CUDA toolkit)
  cudacxx_false     CUDACXX=/bin/false: a CUDACXX that exists but is not nvcc;
                    the reason must say what CUDACXX names and why it failed,
                    and with CH12_REQUIRE_CUDA (CI=true) configuring fails
                    with that text
  copy_without_git  a copy of the files git lists in a folder of no checkout
                    (GitHub's "Download ZIP"), -DCH12_CUDA=OFF: configured,
                    built and tested from the copy, its tools and their
                    tests included; its README.md survives run_all.sh --json
                    and compare_output.py --stdout-to

To stay affordable (CI's machine has 2 cores), each builds only what its
checks run -- 58, and exercise 2 and its solution -- and runs a subset of
its suite: every test that this configuration cannot build (each must be
Skipped, with the configuration's reason), every test of 58, and run_all.sh
and its unit tests against that build (test_tools.py's RunAllTest). No
nested run starts another (these tests are never part of the subset).

no_tools_on_path is also the laptop without nvcc that a course's students
have: there every exercise must run, 1, 3, 4 and 5 in the block simulator --
./run_all.sh --exercises --json shows each starter TODO with its check's
NOT YET line and each reference solution PASS.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import supervisor  # noqa: E402  (cmake, ctest and run_all.sh: stopped with it, on a timeout or a signal)
import run_all  # noqa: E402  (source_files(): what a copy of the project holds)

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
BUILT = ["58_bitonic_split_cpu_baseline", "ex2_any_n", "ex2_any_n_solution"]
SIMULATED = ["ex1_descending", "ex3_merge_across_blocks", "ex4_one_launch", "ex5_per_element"]

CONFIGS = {
    "cuda_off": {"defs": ["-DCH12_CUDA=OFF"], "env": {},
                 "cuda_reason": "CUDA is turned off in this build (CH12_CUDA=OFF)"},
    "no_tools_on_path": {"defs": ["-DCH12_NVCC_HOMES=/nonexistent/cuda/bin"], "env": {}, "hide": ("nvcc", "glslc", "node", "nodejs"),
                         "cuda_reason": "no nvcc was found on PATH",
                         # (glslc alone, or the headers too where they came from VULKAN_SDK)
                         "vulkan_reason": ("glslc not found", "glslc and the Vulkan headers (vulkan/vulkan.h) not found"),
                         "node_reason": "node was not found"},
    "cudacxx_false": {"defs": [], "env": {"CUDACXX": "/bin/false"},
                      "cuda_reason": "CUDACXX names '/bin/false', which is not nvcc: '/bin/false --version' exited "
                                     "with status"},
    # GitHub's "Download ZIP" (the files git lists, in a folder of no checkout), with CUDA off to
    # stay quick: configured, built and tested from that copy, its own tools and tool tests
    # included, and its README.md survives --json and --stdout-to.
    "copy_without_git": {"defs": ["-DCH12_CUDA=OFF"], "env": {}, "copy": True,
                         "cuda_reason": "CUDA is turned off in this build (CH12_CUDA=OFF)"},
}


def copy_of_the_project(dest):
    """The project's files (run_all.source_files: git's list, as `git archive
    HEAD` gives them with what is staged -- or, where this copy has no git,
    every file but the tools' own folders), copied to dest."""
    for rel in run_all.source_files(REPO):
        src = os.path.join(REPO, rel)
        if os.path.islink(src) or os.path.isfile(src):
            os.makedirs(os.path.dirname(os.path.join(dest, rel)) or dest, exist_ok=True)
            shutil.copy2(src, os.path.join(dest, rel), follow_symlinks=False)


def says(text, want):
    """Whether text holds want (a string, or a tuple of alternatives)."""
    return any(w in text for w in (want if isinstance(want, tuple) else (want,)))


def run(cmd, env, cwd=None, timeout=900):
    start = time.monotonic()
    p = supervisor.run(cmd, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=timeout)
    print("(%.1f s: %s)" % (time.monotonic() - start, " ".join(os.path.basename(c) for c in cmd[:3])), flush=True)
    return p.returncode, p.stdout.decode("utf-8", errors="replace")


def path_without(names, folder):
    """A folder of links to every program on PATH but `names`: the PATH of a machine without them."""
    os.makedirs(folder)
    for d in os.environ.get("PATH", "").split(os.pathsep):
        if not os.path.isdir(d):
            continue
        for entry in os.listdir(d):
            target = os.path.join(d, entry)
            link = os.path.join(folder, entry)
            if entry in names or os.path.lexists(link) or not os.access(target, os.X_OK) or os.path.isdir(target):
                continue
            os.symlink(target, link)
    return folder


def test_names(ctest, build, env):
    rc, out = run([ctest, "--test-dir", build, "--show-only=json-v1"], env)
    if rc != 0:
        raise SystemExit("FAIL: ctest --show-only in %s:\n%s" % (build, out))
    return {t["name"]: t.get("command") or [] for t in json.loads(out)["tests"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", required=True, choices=sorted(CONFIGS))
    ap.add_argument("--reference-build", required=True, help="the build of this suite (every test declared)")
    ap.add_argument("--cmake", default="cmake")
    ap.add_argument("--ctest", default="ctest")
    a = ap.parse_args()
    if os.environ.get("CH12_NESTED_CONFIGURATION"):
        print("SKIPPED: already inside a nested configuration (%s)" % os.environ["CH12_NESTED_CONFIGURATION"])
        return 77
    cfg = CONFIGS[a.config]
    failures = []

    def check(ok, message):
        if not ok:
            failures.append(message)
            print("FAIL: " + message, flush=True)

    tmp = tempfile.TemporaryDirectory(prefix="ch12 %s " % a.config)
    with tmp:
        env = dict(os.environ, CH12_NESTED_CONFIGURATION=a.config)
        for name in ("CUDACXX", "CUDA_HOME", "CUDA_PATH", "CH12_BUILD_DIR"):
            env.pop(name, None)
        if "glslc" in cfg.get("hide", ()):  # glslc is also looked for in VULKAN_SDK
            env.pop("VULKAN_SDK", None)
        env.update(cfg["env"])
        cmake, ctest = shutil.which(a.cmake) or a.cmake, shutil.which(a.ctest) or a.ctest
        if "hide" in cfg:  # (make cannot run a compiler whose path holds a space: no space here)
            tools = tempfile.TemporaryDirectory(prefix="ch12_path_")
            env["PATH"] = path_without(cfg["hide"], os.path.join(tools.name, "bin"))
            for tool in cfg["hide"]:
                check(shutil.which(tool, path=env["PATH"]) is None, "%s is still on the PATH" % tool)
        build = os.path.join(tmp.name, "nested build")
        source = REPO
        if cfg.get("copy"):
            source = os.path.join(tmp.name, "download", "chapter12-main")
            copy_of_the_project(source)
            check(not os.path.exists(os.path.join(source, ".git")), "the copy has a .git")

        # ---- configure: it succeeds, and says what is missing and why
        rc, out = run([cmake, "-S", source, "-B", build] + cfg["defs"], env)
        print("$ cmake -S %s -B '%s' %s  (%s)" % (source, build, " ".join(cfg["defs"]),
                                                  ", ".join("%s=%s" % kv for kv in cfg["env"].items()) or "PATH as is"))
        if rc != 0:
            print(out)
            print("FAIL: configuring failed")
            return 1
        with open(os.path.join(build, "ch12_programs.json")) as f:
            table = json.load(f)
        check(not table["cuda"]["configured"], "CUDA is configured")
        check(cfg["cuda_reason"] in table["cuda"]["reason"],
              "the CUDA reason %r does not say %r" % (table["cuda"]["reason"], cfg["cuda_reason"]))
        if "vulkan_reason" in cfg:
            check(says(table["vulkan"]["reason"], cfg["vulkan_reason"]),
                  "the Vulkan reason %r does not say %r" % (table["vulkan"]["reason"], cfg["vulkan_reason"]))
        if "node_reason" in cfg:
            node = [t for t in table["tests"] if t["test"] == "usage_bitonic_js_depth_word"]
            check(node and cfg["node_reason"] in (node[0]["unbuilt"] or ""),
                  "usage_bitonic_js_depth_word is not Skipped for want of node: %r" % node)
        if a.config == "cudacxx_false":
            # With CH12_REQUIRE_CUDA (what CI=true sets through the preset): fatal, with the same reason.
            rc, out = run([cmake, "-S", REPO, "-B", os.path.join(tmp.name, "required"), "-DCH12_REQUIRE_CUDA=ON"], env)
            flat = " ".join(out.split())
            check(rc != 0 and "CH12_REQUIRE_CUDA is on but" in flat and cfg["cuda_reason"] in flat,
                  "with CH12_REQUIRE_CUDA=ON, configuring did not fail naming CUDACXX:\n" + out[-2000:])

        # ---- every test of the reference build is declared here too, by the same name
        names = test_names(ctest, build, env)
        reference = test_names(ctest, a.reference_build, env)
        check(set(names) == set(reference),
              "the tests differ from the reference build's: missing here %s; only here %s"
              % (sorted(set(reference) - set(names)), sorted(set(names) - set(reference))))

        # ---- build what the checks run
        built = list(BUILT)
        if a.config == "no_tools_on_path":
            built += [p + s for p in SIMULATED for s in ("_sim", "_solution_sim")]
        rc, out = run([cmake, "--build", build, "-j2"] + sum((["--target", t] for t in built), []), env)
        if rc != 0:
            print(out)
            print("FAIL: building %s failed" % ", ".join(built))
            return 1

        # ---- the subset: what this build cannot make (Skipped, with the reason), and 58
        unbuilt = {t["test"]: t["unbuilt"] for t in table["tests"] if t["unbuilt"]}
        stubs = sorted(unbuilt)
        reasons = [cfg[k] for k in ("cuda_reason", "vulkan_reason", "node_reason") if k in cfg]
        # What this machine lacks for the reference build too (glslc, node: a
        # student's laptop, a GPU machine without the Vulkan tools) is Skipped
        # here for the same reason, word for word: that is not this
        # configuration's doing.
        with open(os.path.join(a.reference_build, "ch12_programs.json")) as f:
            shared = {t["test"]: t["unbuilt"] for t in json.load(f)["tests"] if t["unbuilt"]}
        for n in stubs:
            check(any(says(unbuilt[n], r) for r in reasons) or shared.get(n) == unbuilt[n],
                  "%s is Skipped for another reason: %r" % (n, unbuilt[n]))
        ours = [n for n in names if "58_bitonic_split_cpu_baseline" in n and not n.startswith("sanitize")]
        check(len(stubs) > 50, "only %d tests are Skipped stubs here" % len(stubs))
        subset = sorted(set(stubs) | set(ours) | {"replay_goldens_labelled"})
        regex = "^(%s)$" % "|".join(re.escape(n) for n in subset)
        rc, out = run([ctest, "--test-dir", build, "-j2", "-R", regex, "--output-on-failure"], env)
        results = dict(re.findall(r"Test +#\d+: (\S+) \.+[ *]*(Passed|Skipped|Failed|Not Run|Timeout)", out))
        for n in subset:
            want = "Skipped" if n in stubs else "Passed"
            check(results.get(n) == want, "%s: %s, not %s" % (n, results.get(n, "did not run"), want))
        check(rc == 0, "ctest on the subset:\n" + out[-4000:])
        print("ctest: %d tests of this build: %d Passed, %d Skipped, none Failed"
              % (len(subset), sum(1 for v in results.values() if v == "Passed"),
                 sum(1 for v in results.values() if v == "Skipped")) if rc == 0 else "ctest: see above")

        # ---- run_all.sh and its unit tests, on this build
        if cfg.get("copy"):
            # ---- the copy's own files are no tool's to replace
            readme = os.path.join(source, "README.md")
            with open(readme, "rb") as f:
                before = f.read()
            rc, out = run([os.path.join(source, "run_all.sh"), "--no-build", "--json", readme, "58"],
                          dict(env, CH12_BUILD_DIR=build))
            check(rc == 2 and "a file of this project" in out, "run_all.sh --json README.md in the copy: exit %d:\n%s"
                  % (rc, out[-2000:]))
            rc, out = run([sys.executable, "-S", os.path.join(source, "common", "compare_output.py"), "--stdout-to",
                           readme, "--", "echo", "replaced"], env)
            check(rc == 2 and "a file of this project" in out, "compare_output.py --stdout-to README.md in the copy: "
                  "exit %d:\n%s" % (rc, out[-2000:]))
            with open(readme, "rb") as f:
                check(f.read() == before, "the copy's README.md was changed")
        rc, out = run([os.path.join(source, "run_all.sh"), "--no-build", "58", "59"],
                      dict(env, CH12_BUILD_DIR=build, CUDA_VISIBLE_DEVICES=""))
        check(rc == 0 and re.search(r"\n58 +12\.1 +CPU +PASS", out) and
              re.search(r"\n59 +12\.1 +GPU +SKIP .*%s" % re.escape(cfg["cuda_reason"][:40]), out) and
              re.search(r"\n59 \(replay\) +12\.1 +CPU +SKIP", out),
              "run_all.sh --no-build 58 59 on this build:\n" + out[-3000:])
        if a.config == "no_tools_on_path":
            # ---- every exercise without nvcc: the starters TODO, the solutions PASS
            results = os.path.join(tmp.name, "exercises.json")
            rc, out = run([os.path.join(source, "run_all.sh"), "--no-build", "--quiet", "--exercises", "--json", results],
                          dict(env, CH12_BUILD_DIR=build))
            check(rc == 0, "run_all.sh --no-build --exercises without nvcc:\n" + out[-3000:])
            with open(results) as f:
                data = json.load(f)
            got = {e["id"]: e for e in data["exercises"] + data["solutions"]}
            for n in range(1, 6):
                e, sol = got.get("ex%d" % n, {}), got.get("ex%d solution" % n, {})
                check(e.get("result") == "TODO" and re.match(r"check \d+, .*: NOT YET -- ", e.get("message", "")),
                      "exercise %d without nvcc: %s, %r (want TODO with its NOT YET line)" % (n, e.get("result"),
                                                                                            e.get("message")))
                check(sol.get("result") == "PASS", "exercise %d's solution without nvcc: %s" % (n, sol.get("result")))
                if n != 2:
                    check(any(r["mode"] == "sim" and r["result"] in ("TODO", "PASS") for r in e.get("runs", [])),
                          "exercise %d ran in the block simulator: %r" % (n, e.get("runs")))
            print("exercises without nvcc: %s" % ", ".join("%s %s" % (k, v["result"]) for k, v in sorted(got.items())))

        rc, out = run([sys.executable, "-S", os.path.join(source, "common", "test_tools.py"), "--build-dir", build,
                       "--cmake", cmake, "--only", "RunAllTest"], env)
        first = out.find("=" * 70)   # (unittest's first failure block: its name and traceback, not a long tail)
        check(rc == 0, "test_tools.py RunAllTest on this build:\n" + (out[first:first + 6000] if first >= 0 else out[-4000:]))
        print(out.strip().splitlines()[-1] if out.strip() else "")

    if failures:
        print("%s: %d problem(s)" % (a.config, len(failures)))
        return 1
    print("PASS: %s: every test declared, those that cannot run Skipped with the reason, none Failed" % a.config)
    return 0


if __name__ == "__main__":
    sys.exit(supervisor.main(main, "test_configurations.py", "cmake, ctest and what they ran were stopped"))
