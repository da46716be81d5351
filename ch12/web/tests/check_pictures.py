#!/usr/bin/env python3
"""The README's pictures (ch12/web/pictures/*.svg) are what
tools/draw_pictures.js draws from the page's own modules today: draws them
again into a scratch folder and compares, byte for byte.

    check_pictures.py [--node PATH]

Exit 0: no drift; 1: a picture differs, is missing or is extra (redraw them
with `node ch12/web/tools/draw_pictures.js` and commit); 77 (Skipped): no node.
"""

import argparse
import difflib
import os
import shutil
import subprocess
import sys
import tempfile

WEB = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PICTURES = os.path.join(WEB, "pictures")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="check_pictures.py")
    parser.add_argument("--node", help="the node program (default: node on PATH)")
    args = parser.parse_args(argv)
    node = args.node or shutil.which("node") or shutil.which("nodejs")
    if not node or not os.access(node, os.X_OK):
        print("SKIPPED: node was not found: install Node.js (Debian/Ubuntu: apt-get install nodejs)")
        return 77
    scratch = tempfile.mkdtemp(prefix="ch12-web-pictures-")
    try:
        run = subprocess.run([node, os.path.join(WEB, "tools", "draw_pictures.js"), "--out", scratch],
                             capture_output=True, text=True, timeout=120)
        if run.returncode != 0:
            print(f"FAIL: draw_pictures.js exited {run.returncode}:\n{run.stdout}{run.stderr}")
            return 1
        drawn = sorted(os.listdir(scratch))
        committed = sorted(n for n in os.listdir(PICTURES) if n.endswith(".svg"))
        failures = 0
        if drawn != committed:
            print(f"FAIL: the script draws {drawn}, the folder holds {committed}")
            failures += 1
        for name in sorted(set(drawn) & set(committed)):
            with open(os.path.join(scratch, name), encoding="utf-8") as f:
                new = f.read()
            with open(os.path.join(PICTURES, name), encoding="utf-8") as f:
                old = f.read()
            if new == old:
                print(f"{name}: as drawn ({len(new)} bytes)")
                continue
            failures += 1
            print(f"FAIL: pictures/{name} differs from what draw_pictures.js draws now:")
            for line in list(difflib.unified_diff(old.splitlines(), new.splitlines(), "committed", "drawn now",
                                                  lineterm="", n=1))[:40]:
                print("  " + line)
        if failures:
            print("redraw them with `node ch12/web/tools/draw_pictures.js` and commit the result")
            return 1
        if not drawn:
            print("FAIL: no picture was drawn")
            return 1
        return 0
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
