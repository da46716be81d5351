#!/usr/bin/env python3
"""The page's floats are the C++ programs' floats: the one generator of the
input kinds (ch12/extras/support/input_kinds.h, ch12::input_key) is written
again in JavaScript for the page (js/floats.js, inputKey) and in Python for
its tests (checklib.py, input_key). This runs the C++ test program's table
(input_kinds_test --table: key i of n of every kind, for a few n and seeds)
and asks both of the others for the same float keys, bit for bit.

    input_kinds_languages.py --table-program PATH [--node PATH]

Exit 0: the three agree; 1: a key differs (the first ones are printed);
77 (Skipped): no node -- the Python half is still checked first and a
difference there is still a failure; 2: a bad command line; 128 + the signal
on SIGINT, SIGTERM, SIGHUP or SIGQUIT. The programs run through
common/supervisor.py.

Wrong generators it catches: a kind made another way in one language (a
constant, a shift, the special list's order), a seed or index taken another
way (the upper half of i, seed 0), a float's bits from the order key undone
another way.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "common"))
import supervisor  # noqa: E402  (first: the signal handlers are in place before any other import)
import json
import pathlib
import shutil
import subprocess

TESTS = os.path.dirname(os.path.abspath(__file__))
WEB = os.path.dirname(TESTS)
sys.path.insert(0, TESTS)
import arguments  # noqa: E402
import checklib  # noqa: E402

# Reads [[kind, i, n, seed], ...] on stdin, prints the bits of each key.
NODE_SCRIPT = """
import { readFileSync } from "node:fs";
const { inputKey } = await import(process.argv[1]);
const keys = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(keys.map(([kind, i, n, seed]) => inputKey(kind, i, n, seed))));
"""


def run(argv, what, stdin_text=None):
    try:
        p = supervisor.run(argv, timeout=120, input=stdin_text, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, **({} if stdin_text is not None else {"stdin": subprocess.DEVNULL}))
    except subprocess.TimeoutExpired:
        raise SystemExit(f"FAIL: {what} ran past 120 s (stopped)")
    except OSError as e:
        raise SystemExit(f"FAIL: {what} could not be started: {e.strerror}")
    if p.returncode != 0:
        raise SystemExit(f"FAIL: {what} exited {p.returncode}:\n{p.stdout[-2000:]}{p.stderr[-2000:]}")
    return p.stdout


def compare(label, rows, got):
    """rows: (kind, n, seed, i, want); got: the other language's bits, in order."""
    bad = [(r, g) for r, g in zip(rows, got) if g != r[4]]
    if len(got) != len(rows):
        print(f"FAIL: {label}: {len(got)} keys for {len(rows)} asked")
        return False
    for (kind, n, seed, i, want), g in bad[:8]:
        print(f"FAIL: {label}: {kind}, n {n}, seed {seed}, key {i}: 0x{g:08x}, the C++ generator 0x{want:08x}")
    if bad:
        print(f"FAIL: {label}: {len(bad)} of {len(rows)} keys differ from the C++ generator's")
        return False
    print(f"{label}: all {len(rows)} keys are the C++ generator's, bit for bit")
    return True


def check(args):
    table = run([args.table_program, "--table"], "input_kinds_test --table")
    rows = []
    kinds = set()
    for line in table.splitlines():
        kind, key_type, n, seed, i, bits = line.split()
        kinds.add(kind)
        if key_type == "float32":
            rows.append((kind, int(n), int(seed), int(i), int(bits, 16)))
    want_kinds = set(checklib.cpp_input_kinds())
    if kinds != want_kinds or not rows:
        print(f"FAIL: the table holds the kinds {sorted(kinds)}, input_kinds.h lists {sorted(want_kinds)}")
        return 1
    print(f"the C++ generator's table: {len(rows)} float keys of {len(kinds)} kinds")
    ok = compare("checklib.py (Python)", rows, [checklib.input_key(k, i, n, s) for k, n, s, i, _ in rows])
    node = args.node or shutil.which("node") or shutil.which("nodejs")
    if not node or not os.access(node, os.X_OK):
        if not ok:
            return 1
        print("SKIPPED: node was not found, so js/floats.js was not compared: install Node.js "
              "(Debian/Ubuntu: apt-get install nodejs)")
        return 77
    floats_js = pathlib.Path(WEB, "js", "floats.js").resolve().as_uri()
    out = run([node, "--input-type=module", "-e", NODE_SCRIPT, floats_js], "node (js/floats.js)",
              stdin_text=json.dumps([[k, i, n, s] for k, n, s, i, _ in rows]))
    ok = compare("js/floats.js (JavaScript)", rows, json.loads(out)) and ok
    return 0 if ok else 1


def main(argv=None):
    parser = arguments.Parser(prog="input_kinds_languages.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--table-program", required=True, type=arguments.path,
                        help="the C++ generator's test program (input_kinds_test)")
    parser.add_argument("--node", type=arguments.path, help="the node program (default: node on PATH)")
    args = parser.parse_args(argv)
    if not os.access(args.table_program, os.X_OK):
        parser.error(f"--table-program: {args.table_program} is not a program")
    return supervisor.main(lambda: check(args), "input_kinds_languages.py")


if __name__ == "__main__":
    sys.exit(main())
