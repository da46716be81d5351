#!/usr/bin/env python3
"""The signal and supervisor tests under load: test_signals.py (its
SupervisorTest and ToolTest) run RUNS times in a row while stress-ng keeps
every core busy (one CPU worker per core, and as many again). Each run must
pass: a tool that leaves a process behind only when the machine is loaded is
what this is for.

    python3 common/stress_signals.py [--runs 20]      (CTest: stress_signals, label stress;
                                                       not in the default preset: ctest --preset stress)

Exit 0: every run passed; 1: one or more failed (their output is printed);
77 (Skipped): no stress-ng here (Debian/Ubuntu: apt-get install stress-ng).
stress-ng runs through common/supervisor.py: it is stopped on the way out,
also on SIGINT, SIGTERM, SIGHUP and SIGQUIT.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import supervisor  # noqa: E402  (first: the signal handlers are in place before any other import)
import shutil
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import arguments  # noqa: E402


def main():
    ap = arguments.Parser(prog="stress_signals.py", description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=arguments.whole(1, 1000, "a number of runs"), default=20)
    ap.add_argument("--workers-per-core", type=arguments.whole(1, 16, "a number of workers"), default=2)
    a = ap.parse_args()
    stress = shutil.which("stress-ng")
    if stress is None:
        print("SKIPPED: stress-ng was not found (Debian/Ubuntu: apt-get install stress-ng)")
        return 77
    return supervisor.main(lambda: stressed(stress, a.runs, a.workers_per_core), "stress_signals.py",
                           "stress-ng and the tests were stopped")


def stressed(stress, runs, per_core):
    cores = os.cpu_count() or 1
    load = supervisor.start([stress, "--cpu", str(cores * per_core), "--timeout", "3600", "--quiet"],
                            grace=2, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    print("stress-ng: %d CPU workers on %d cores" % (cores * per_core, cores), flush=True)
    passed = 0
    try:
        for i in range(1, runs + 1):
            start = time.monotonic()
            test = supervisor.start([sys.executable, "-S", os.path.join(HERE, "test_signals.py"),
                                     "--only", "SupervisorTest", "--only", "ToolTest"],
                                    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            out, _ = test.communicate()
            supervisor.stop(test)
            ok = test.returncode == 0
            passed += ok
            print("run %2d of %d: %s in %.1f s (load %.1f)" % (i, runs, "passed" if ok else "FAILED",
                                                               time.monotonic() - start, os.getloadavg()[0]),
                  flush=True)
            if not ok:
                print(out.decode(errors="replace")[-6000:], flush=True)
            if load.poll() is not None:
                print("FAIL: stress-ng ended early (exit %s)" % load.returncode)
                return 1
    finally:
        supervisor.stop(load)
    print("%d of %d runs passed with every core busy" % (passed, runs))
    return 0 if passed == runs else 1


if __name__ == "__main__":
    sys.exit(main())
