#!/usr/bin/env python3
"""The CUDA kernels that the page shows beside its drawing, line by line
(js/cuda_kernels.js), taken from the programs' .cu files: the page cannot read
files outside ch12/web/, so it carries a copy, and this tool keeps the copy
true.

    kernel_text.py --check     exit 0 when js/cuda_kernels.js holds each
                               kernel exactly as its .cu file has it, 1 when
                               one differs (the test web_kernel_text)
    kernel_text.py --write     writes js/cuda_kernels.js from the .cu files

A kernel is the text from the line `__global__ void NAME(` to the first line
that is `}` alone: the .cu file's lines, companion comments included.

--write replaces js/cuda_kernels.js, a file git tracks, by design: it is one
of the files common/write_policy.py lets this tool draw (GENERATED), and the
only one. It is written through the policy: a temporary file beside it,
renamed over it at the end (its mode kept); an error or a signal leaves the
old file as it was. Exit status: 0, 1 (a kernel not found; a difference for
--check), 2 for a bad command line, 128 + the signal when interrupted.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "common"))
import supervisor  # noqa: E402  (first: the signal handlers are in place before any other import)
import json

WEB = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.dirname(os.path.dirname(WEB))
OUT = os.path.join(WEB, "js", "cuda_kernels.js")
sys.path.insert(0, os.path.join(REPO, "common"))
import arguments  # noqa: E402
import write_policy  # noqa: E402

# The kernels, by the page's name for them: (the .cu file, from the repository root; the kernel's name).
# If a lesson's kernel moves to another file, change its path here.
KERNELS = {
    "59": ("ch12/59_bitonic_split_kernel.cu", "compare_exchange_kernel"),
    "61": ("ch12/61_bitonic_merge_multipass.cu", "bitonic_merge_kernel"),
    "61-trap": ("ch12/traps/61_trap_first_group_only.cu", "bitonic_merge_kernel"),
    "63": ("ch12/63_bitonic_sort_iterative.cu", "bitonic_sort_kernel"),
    "63-trap": ("ch12/traps/63_trap_no_pair_guard.cu", "bitonic_sort_kernel"),
}

HEADER = """// ch12/web/js/cuda_kernels.js -- the CUDA kernels of 59, 61 and 63 (and of
// the traps of 61 and 63), as their .cu files have them, for the page's
// kernel pane. WRITTEN BY tools/kernel_text.py --write; the test
// web_kernel_text fails when a .cu file's kernel and this copy differ.
"""


class Problem(Exception):
    pass


def extract(path, name):
    try:
        with open(os.path.join(REPO, path), encoding="utf-8") as f:
            lines = f.read().split("\n")
    except OSError as e:
        raise Problem(f"{path}: cannot read it ({e.strerror})") from None
    start = next((i for i, line in enumerate(lines) if line.startswith(f"__global__ void {name}(")), None)
    if start is None:
        raise Problem(f"{path}: no line starts with '__global__ void {name}('")
    end = next((i for i in range(start, len(lines)) if lines[i] == "}"), None)
    if end is None:
        raise Problem(f"{path}: the kernel {name} has no closing '}}' on a line of its own")
    return "\n".join(lines[start:end + 1]) + "\n"


def render():
    body = {key: {"file": path, "kernel": name, "text": extract(path, name)} for key, (path, name) in KERNELS.items()}
    return HEADER + "\nexport const CUDA_KERNELS = " + json.dumps(body, indent=2, ensure_ascii=False) + ";\n"


def main(argv=None):
    parser = arguments.Parser(prog="kernel_text.py", description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true")
    mode.add_argument("--write", action="store_true")
    parser.add_argument("--js", default=OUT, type=arguments.path,
                        help="the file --check reads (default: js/cuda_kernels.js)")
    args = parser.parse_args(argv)
    if args.write and args.js != OUT:
        parser.error("--js names the file --check reads; --write writes js/cuda_kernels.js only")
    return supervisor.main(lambda: work(args), "kernel_text.py", "js/cuda_kernels.js was left as it was")


def work(args):
    try:
        text = render()
    except Problem as e:
        print(f"FAIL: {e}")
        return 1
    if args.write:
        try:
            write_policy.write_bytes(OUT, text.encode("utf-8"), regenerates="kernel_text.py")
        except (OSError, write_policy.Refused) as e:
            print(f"FAIL: cannot write {os.path.relpath(OUT, REPO)}: {e}")
            return 1
        print(f"wrote {os.path.relpath(OUT, REPO)}")
        return 0
    try:
        with open(args.js, encoding="utf-8", newline="") as f:
            current = f.read()
    except OSError:
        current = ""
    if current != text:
        print(f"FAIL: {args.js} is not the kernels of today's .cu files; "
              "run `python3 ch12/web/tools/kernel_text.py --write` and commit the result")
        import difflib
        for line in list(difflib.unified_diff(current.splitlines(), text.splitlines(), "committed", "from the .cu files",
                                              lineterm="", n=1))[:40]:
            print("  " + line)
        return 1
    for key, (path, name) in KERNELS.items():
        print(f"{key}: {name} of {path}: as in js/cuda_kernels.js")
    return 0


if __name__ == "__main__":
    sys.exit(main())
