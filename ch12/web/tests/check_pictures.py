#!/usr/bin/env python3
"""The pictures (ch12/web/pictures/*.svg, the README's, and
pictures/class/*.svg with their index README.md) are what
tools/draw_pictures.js draws from the page's own modules today: draws them
again into a scratch folder and compares, byte for byte. And each class
picture's PNG was made from the SVG committed beside it: pictures/class/
png.sha256 (written by tools/render_png.py) names the SHA-256 of the SVG each
PNG was rendered from, and the PNG is twice the SVG's size.

    check_pictures.py [--node PATH]

Exit 0: no drift; 1: a picture differs, is missing or is extra (redraw them
with `node ch12/web/tools/draw_pictures.js`, render the PNGs with
`python3 ch12/web/tools/render_png.py`, and commit); 77 (Skipped): no node;
2: a bad command line; 128 + the signal on SIGINT, SIGTERM, SIGHUP or
SIGQUIT. node runs through common/supervisor.py (stopped on a signal or
after 120 s), and draws into a scratch folder made and removed through
common/delete_policy.py (also on a signal).

Wrong pictures it catches: a committed SVG edited by hand or left behind
after the schedule changed; a PNG not rendered again after its SVG changed
(its SVG's hash differs from png.sha256); a class picture with no PNG.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "common"))
import supervisor  # noqa: E402  (first: the signal handlers are in place before any other import)
import difflib
import hashlib
import re
import shutil
import struct
import subprocess

WEB = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(WEB, "..", "..", "common"))
import arguments  # noqa: E402
import delete_policy  # noqa: E402
PICTURES = os.path.join(WEB, "pictures")
DRAWN = (".svg", ".md")


def listing(root):
    """The drawn files under root (SVGs and the index), as relative paths."""
    found = []
    for folder in ("", "class"):
        path = os.path.join(root, folder)
        if os.path.isdir(path):
            found += [os.path.join(folder, n) if folder else n for n in os.listdir(path) if n.endswith(DRAWN)]
    return sorted(found)


def png_problems(pictures=PICTURES):
    """Each class SVG has a PNG made from it (png.sha256), twice its size."""
    folder = os.path.join(pictures, "class")
    problems = []
    try:
        with open(os.path.join(folder, "png.sha256"), encoding="utf-8") as f:
            made_from = dict(reversed(line.split("  ", 1)) for line in f.read().splitlines() if line)
    except OSError:
        return ["pictures/class/png.sha256 is missing: run tools/render_png.py"]
    for name in sorted(n for n in os.listdir(folder) if n.endswith(".svg")):
        png = name[:-4] + ".png"
        with open(os.path.join(folder, name), "rb") as f:
            svg = f.read()
        if not os.path.exists(os.path.join(folder, png)):
            problems.append(f"pictures/class/{png} is missing")
            continue
        if made_from.get(png) != hashlib.sha256(svg).hexdigest():
            problems.append(f"pictures/class/{png} was not made from today's {name} (png.sha256)")
        with open(os.path.join(folder, png), "rb") as f:
            head = f.read(24)
        m = re.search(rb'<svg[^>]* width="([\d.]+)" height="([\d.]+)"', svg)
        if head[:8] != b"\x89PNG\r\n\x1a\n" or not m:
            problems.append(f"pictures/class/{png} is not a PNG, or {name} has no size")
            continue
        width, height = struct.unpack(">II", head[16:24])
        want = (2 * int(float(m.group(1)) + 0.999), 2 * int(float(m.group(2)) + 0.999))
        if (width, height) != want:
            problems.append(f"pictures/class/{png} is {width} x {height}, not twice its SVG's size {want}")
    extra = sorted(set(made_from) - {n[:-4] + ".png" for n in os.listdir(folder) if n.endswith(".svg")})
    if extra:
        problems.append(f"png.sha256 names PNGs of no SVG: {extra}")
    return problems


def main(argv=None):
    parser = arguments.Parser(prog="check_pictures.py")
    parser.add_argument("--node", type=arguments.path, help="the node program (default: node on PATH)")
    parser.add_argument("--pictures", default=PICTURES, type=arguments.path,
                        help="the folder checked (default: ch12/web/pictures)")
    args = parser.parse_args(argv)
    if not os.path.isdir(args.pictures):
        parser.error(f"--pictures: no folder {args.pictures}")
    return supervisor.main(lambda: check(args), "check_pictures.py")


def check(args):
    pictures = args.pictures
    node = args.node or shutil.which("node") or shutil.which("nodejs")
    if not node or not os.access(node, os.X_OK):
        print("SKIPPED: node was not found: install Node.js (Debian/Ubuntu: apt-get install nodejs)")
        return 77
    scratch = delete_policy.temporary_folder("ch12-web-pictures-")
    try:
        try:
            run = supervisor.run([node, os.path.join(WEB, "tools", "draw_pictures.js"), "--out", scratch], timeout=120,
                                 stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        except subprocess.TimeoutExpired:
            print("FAIL: draw_pictures.js ran past 120 s (stopped)")
            return 1
        except OSError as e:
            print(f"FAIL: {node} could not be started: {e.strerror}")
            return 1
        if run.returncode != 0:
            print(f"FAIL: draw_pictures.js exited {run.returncode}:\n{run.stdout}{run.stderr}")
            return 1
        drawn = listing(scratch)
        committed = listing(pictures)
        failures = 0
        if drawn != committed:
            print(f"FAIL: the script draws {drawn}, the folder holds {committed}")
            failures += 1
        for name in sorted(set(drawn) & set(committed)):
            with open(os.path.join(scratch, name), encoding="utf-8") as f:
                new = f.read()
            with open(os.path.join(pictures, name), encoding="utf-8") as f:
                old = f.read()
            if new == old:
                print(f"{name}: as drawn ({len(new)} bytes)")
                continue
            failures += 1
            print(f"FAIL: pictures/{name} differs from what draw_pictures.js draws now:")
            for line in list(difflib.unified_diff(old.splitlines(), new.splitlines(), "committed", "drawn now",
                                                  lineterm="", n=1))[:40]:
                print("  " + line)
        for problem in png_problems(pictures):
            failures += 1
            print(f"FAIL: {problem}")
        if failures:
            print("redraw them with `node ch12/web/tools/draw_pictures.js`, render the PNGs with "
                  "`python3 ch12/web/tools/render_png.py`, and commit the result")
            return 1
        if not drawn:
            print("FAIL: no picture was drawn")
            return 1
        print("the PNGs of pictures/class/: each made from its SVG as committed")
        return 0
    finally:
        delete_policy.remove(scratch)


if __name__ == "__main__":
    sys.exit(main())
