#!/usr/bin/env python3
"""The student handout, made and used as a course would.

    test_handout.py --build-dir build [--cmake cmake] [--ctest ctest]

./run_all.sh --handout (with the configured build --build-dir) makes it in a
scratch folder; it must hold every exercise's starter as shipped and no
reference solution, no ANSWERS.md, no solution test. Configured on its own
(without CUDA, to stay quick: the exercises then run in the block simulator)
its ./run_all.sh --exercises --json must show every exercise as TODO, with the
line its check printed. Then, as a student would: exercise 4 written but for
its __syncthreads() must FAIL with the simulator's race message, and written
right must PASS.

Everything it starts (run_all.sh, cmake, ctest) runs through
common/supervisor.py, and its scratch folder is made and removed through
common/delete_policy.py: SIGINT, SIGTERM (a CTest timeout), SIGHUP or
SIGQUIT stop the build under way and remove the folder; exit 128 + the
signal.
"""

import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import arguments  # noqa: E402
import delete_policy  # noqa: E402
import supervisor  # noqa: E402
import write_policy  # noqa: E402
EXERCISES = os.path.join("ch12", "exercises")
STARTERS = {1: "1_descending/ex1_descending.cuh", 2: "2_any_n/ex2_any_n.cpp",
            3: "3_merge_across_blocks/ex3_merge_across_blocks.cuh", 4: "4_one_launch/ex4_one_launch.cuh",
            5: "5_per_element/ex5_per_element.cuh"}

failures = []


def check(ok, message):
    print(("ok: " if ok else "FAIL: ") + message, flush=True)
    if not ok:
        failures.append(message)
    return ok


def run(cmd, env=None, cwd=None, timeout=900):
    try:
        p = supervisor.run(cmd, env=env, cwd=cwd, timeout=timeout, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT)
    except subprocess.TimeoutExpired:
        return -1, "%s ran past %d s (stopped)" % (cmd[0], timeout)
    except OSError as e:
        return -1, "%s could not be started: %s" % (cmd[0], e.strerror)
    return p.returncode, p.stdout.decode("utf-8", errors="replace")


def results(path):
    with open(path) as f:
        data = json.load(f)
    return {e["id"]: e for e in data["exercises"] + data["solutions"]}


def main():
    ap = arguments.Parser(description=__doc__.splitlines()[0])
    ap.add_argument("--build-dir", required=True, type=arguments.path)
    ap.add_argument("--cmake", default="cmake", type=arguments.path)
    ap.add_argument("--ctest", default="ctest", type=arguments.path)
    a = ap.parse_args()
    return supervisor.main(lambda: handout(a), "test_handout.py", "the build under way was stopped")


def handout(a):
    env = dict(os.environ, CH12_BUILD_DIR=os.path.abspath(a.build_dir), CUDA_VISIBLE_DEVICES="")
    for name in ("CUDACXX",):
        env.pop(name, None)
    tmp = delete_policy.temporary_folder("ch12_handout_")   # (removed at exit, and on a signal)
    try:
        return check_handout(a, env, tmp)
    finally:
        delete_policy.remove(tmp)


def check_handout(a, env, tmp):
    handout = os.path.join(tmp, "bitonic handout")
    rc, out = run([os.path.join(REPO, "run_all.sh"), "--no-build", "--handout", handout], env)
    print(out)
    if not check(rc == 0 and os.path.isdir(handout), "run_all.sh --handout made the handout (exit %d)" % rc):
        return 1
    check(not os.path.exists(os.path.join(handout, EXERCISES, "solutions")), "no ch12/exercises/solutions/")
    check(not os.path.exists(os.path.join(handout, "ch12", "ANSWERS.md")), "no ch12/ANSWERS.md")
    check(not os.path.exists(os.path.join(handout, "ch12", "extras", "per_element")),
          "no ch12/extras/per_element/ (its kernel answers exercise 5)")
    check(os.path.isfile(os.path.join(handout, "HANDOUT.md")), "HANDOUT.md says what was left out")
    check(os.access(os.path.join(handout, "run_all.sh"), os.X_OK), "run_all.sh is still executable")
    for n, rel in STARTERS.items():
        with open(os.path.join(REPO, EXERCISES, rel), "rb") as f, \
                open(os.path.join(handout, EXERCISES, rel), "rb") as g:
            check(f.read() == g.read(), "exercise %d's starter is the one shipped" % n)
    rc, out = run([os.path.join(REPO, "run_all.sh"), "--no-build", "--handout", handout], env)
    check(rc == 2 and "already exists" in out, "a second --handout into the same folder is refused (exit %d)" % rc)

    # ---- configured and built on its own
    build = os.path.join(handout, "build")
    henv = dict(env, CH12_BUILD_DIR=build)
    rc, out = run([a.cmake, "-S", handout, "-B", build, "-DCH12_CUDA=OFF"], henv)
    if not check(rc == 0, "the handout configures"):
        print(out[-3000:])
        return 1
    rc, out = run([a.ctest, "--test-dir", build, "-N"], henv)
    names = re.findall(r"Test +#\d+: (\S+)", out)
    check(len(names) > 100 and not [t for t in names if "solution" in t],
          "its %d tests include no solution test (%s)" % (len(names), [t for t in names if "solution" in t][:3]))
    answers = os.path.join(tmp, "class", "student 1.json")
    os.mkdir(os.path.dirname(answers))   # (in the folder made above)
    rc, out = run([os.path.join(handout, "run_all.sh"), "--exercises", "--quiet", "--json", answers], henv)
    print(out)
    check(rc == 0, "./run_all.sh --exercises in the handout exits 0 (exit %d)" % rc)
    got = results(answers)
    check(sorted(got) == ["ex%d" % n for n in STARTERS], "its JSON lists exercises 1 to 5 and no solution: %s"
          % sorted(got))
    for n in STARTERS:
        e = got.get("ex%d" % n, {})
        check(e.get("result") == "TODO" and re.match(r"check \d+, .*: NOT YET -- ", e.get("message", "")),
              "exercise %d is TODO with its check's NOT YET line: %s, %r" % (n, e.get("result"), e.get("message")))
    summary = out.split("Summary")[-1]
    check(not re.search(r"\n\S+ solution", summary), "no solution row in its table")
    for n in (1, 3, 4, 5):
        check(re.search(r"\nex%d \(sim\) +\S+ +SIM +TODO" % n, summary) is not None,
              "exercise %d runs in the block simulator (no nvcc in this build): TODO" % n)

    # ---- a student's exercise 4: the loops right, the barrier forgotten; then the barrier
    with open(os.path.join(REPO, EXERCISES, "solutions", "ex4_one_launch.cuh")) as f:
        solution = f.read()
    # (Its barrier line taken from the solution here: this file is in the handout, which holds no answer.)
    found = re.search(r"^ *__syncthreads\(\);.*\n", solution.split("exercise 4: your code")[-1], re.M)
    barrier = found.group(0) if found else "(no barrier line)"
    check(found is not None, "the reference solution of exercise 4 has its barrier line")
    mine = os.path.join(handout, EXERCISES, STARTERS[4])
    for text, want, status in ((solution.replace(barrier, ""), "FAIL", 1), (solution, "PASS", 0)):
        write_policy.write_bytes(mine, text.encode("utf-8"), what="the student's exercise")
        rc, out = run([os.path.join(handout, "run_all.sh"), "ex4", "--json", answers], henv)
        e = results(answers).get("ex4", {})
        what = "without its barrier" if want == "FAIL" else "with its barrier"
        check(rc == status and e.get("result") == want, "exercise 4 %s: %s (exit %d), in the table: %s"
              % (what, e.get("result"), rc, re.findall(r"\nex4 \(sim\).*", out)))
        if want == "FAIL":
            check(re.match(r"check 1, 63's input, n = 16, pass by pass: NOT YET -- race on g_a\[\d+\]: thread \d+ "
                           r"(wrote|read) it and thread \d+ (wrote|read) it.* with no __syncthreads\(\) between them",
                           e.get("message", "")) is not None,
                  "its message is the simulator's race: %r" % e.get("message"))

    print("%s: the handout" % ("FAIL" if failures else "PASS"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
