#!/usr/bin/env python3
"""Shows that each check of the page fails on the wrong page it names: makes a
copy of ch12/web/, breaks it in one way (a few lines changed, each of which
must still be found exactly once, so a case cannot quietly stop applying),
runs the check against the copy -- the same check functions the CTests run
-- and requires a failure whose words say it was caught for that reason.

    wrong_pages.py [--list] [NAME-PART ...]    (CTest: web_wrong_pages, labels web and long)

Prints CAUGHT or MISSED for each case. Exit 0 when every case was caught, 1
when one was missed (or no longer applies), 77 without Chromium (Skipped), 2
for a bad command line, 128 + the signal on SIGINT, SIGTERM, SIGHUP or
SIGQUIT. Each broken copy is a scratch folder made, written and removed
through common/delete_policy.py and write_policy.py (also on a signal); the
browsers and check_pictures.py run through common/supervisor.py.
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "common"))
import supervisor  # noqa: E402  (first: the signal handlers are in place before any other import)
import shutil
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import checklib  # noqa: E402
import checks_a11y  # noqa: E402
import checks_network  # noqa: E402
import checks_page  # noqa: E402
import checks_sort  # noqa: E402
import page as ch12page  # noqa: E402
import webdriver  # noqa: E402
from checklib import Check, WEB  # noqa: E402
import arguments  # noqa: E402  (common/, put on the path by webdriver)
import delete_policy  # noqa: E402
import write_policy  # noqa: E402


# ---- the checks, as the CTests run them (some on fewer sizes or views) ---------------------------
def session_on(view_check):
    def run(check):
        with checklib.page_session() as page:
            checklib.require_webgpu(ch12page.open_page(page))
            view_check(page, check)
    return run


def sort_small(check):
    with checklib.page_session() as page:
        checklib.require_webgpu(ch12page.open_page(page))
        for log2n, kind in ((10, "special"), (12, "uniform")):
            result = ch12page.sort(page, log2n, kind)
            check.equal(f"sort of 2^{log2n}: ran", result["state"], "done")
            checks_sort.check_on_gpu(check, page, f"sort of 2^{log2n} floats ({kind})", kind, 2 ** log2n)


def replay_box(check):
    with webdriver.Page(webgpu=False, root=checklib.SERVE_ROOT) as page:
        ch12page.open_page(page)
        box = page.js("const b = document.getElementById('use-webgpu'); return {checked: b.checked, disabled: b.disabled};")
        check.equal("without WebGPU: its box is unticked and off", box, {"checked": False, "disabled": True})


def pictures(check):
    node = shutil.which("node") or shutil.which("nodejs")
    if not node:
        raise webdriver.Unavailable("node not found")
    try:
        run = supervisor.run([sys.executable, "-S", os.path.join(HERE, "check_pictures.py"), "--node", node,
                              "--pictures", os.path.join(checklib.SERVE_ROOT, "pictures")], timeout=300,
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    except subprocess.TimeoutExpired:
        check.true("check_pictures.py ran past 300 s", False)
        return
    for line in run.stdout.splitlines():
        if line.startswith("FAIL"):
            check.true(line[6:], False)
    check.equal("check_pictures.py exits 0", run.returncode, 0)


# ---- the wrong pages ----------------------------------------------------------------------------
# (the CTest whose check catches it, what is wrong, the check, [(file, text, replacement)], words of the failure)
CASES = [
    ("web_sort", "the sort kernel orders its tiles backwards, and the page's own check lies ('identical')", sort_small,
     [("wgsl/sort_local.wgsl", "if ((key_i > key_partner) == ascending) {", "if ((key_i < key_partner) == ascending) {"),
      ("js/floats.js", "  if (diff < 0 && output.length !== want.length) diff = checked;", "  diff = -1;")],
     "in totalOrder (checked here)"),
    ("web_sort", "keys doubled on the GPU (one lost), and the page's check lies", sort_small,
     [("wgsl/sort_global.wgsl", "elements[partner] = bits_i;", "elements[partner] = bits_partner;"),
      ("js/floats.js", "  if (diff < 0 && output.length !== want.length) diff = checked;", "  diff = -1;")],
     "holds the input's floats"),
    ("web_sort", "the page sorts another input than the one it names", sort_small,
     [("js/sort_panel.js", 'cpu.call({ op: "input", kind, n, seed: 12 })', 'cpu.call({ op: "input", kind, n, seed: 13 })')],
     "sorted the input it says"),
    ("web_network", "◀ steps forward", session_on(lambda p, c: checks_network.every_control(p, c, "63-16")),
     [("js/network_panel.js", '$("step-prev").addEventListener("click", () => setStep(step - 1));',
       '$("step-prev").addEventListener("click", () => setStep(step + 1));')],
     "after prev"),
    ("web_network", "▶| stops one pass short", session_on(lambda p, c: checks_network.every_control(p, c, "63-16")),
     [("js/network_panel.js", "setStep(net ? net.passes.length : 0)", "setStep(net ? net.passes.length - 1 : 0)")],
     "after last"),
    ("web_network", "the slider draws the step after the one it is at",
     session_on(lambda p, c: checks_network.every_control(p, c, "63-16")),
     [("js/network_panel.js", '$("step").addEventListener("input", () => setStep(Number($("step").value)));',
       '$("step").addEventListener("input", () => setStep(Number($("step").value) + 1));')],
     "slider"),
    ("web_network", "the ← key steps forward", session_on(lambda p, c: checks_network.every_control(p, c, "63-16")),
     [("js/network_panel.js", 'case "ArrowLeft": setStep(step - 1); break;', 'case "ArrowLeft": setStep(step + 1); break;')],
     "key left"),
    ("web_network", "play skips every other pass", session_on(lambda p, c: checks_network.every_control(p, c, "63-16")),
     [("js/network_panel.js", "    setStep(step + 1, { keepPlaying: true });\n    if (step",
       "    setStep(step + 2, { keepPlaying: true });\n    if (step")],
     "play visits every pass"),
    ("web_network", "the drawing shows the values of the pass before", session_on(
        lambda p, c: checks_network.every_control(p, c, "61")),
     [("js/network_svg.js", "out.push(`<g class=\"values\" data-after=\"${c}\"${hidden}>`);",
       "out.push(`<g class=\"values\" data-after=\"${Math.min(c + 1, values.length - 1)}\"${hidden}>`);")],
     "the values drawn on the wires"),
    ("web_network", "the slider's value text missing", session_on(lambda p, c: checks_network.every_control(p, c, "61")),
     [("js/network_panel.js", 'slider.setAttribute("aria-valuetext", step ? `after pass ${step} of ${last} (${pass.label})` : "the input");',
       "")],
     "value text"),
    ("web_network", "the kernel pane lights another line than the pairing", session_on(checks_network.lit_lines),
     [("js/kernel_pane.js", "cudaLines: [/int l = i \\^ j;/, /if \\(l > i\\) \\{/,", "cudaLines: [/int i = threadIdx.x;/, /if \\(l > i\\) \\{/,")],
     "the CUDA lines lit"),
    ("web_network", "the kernel note gives j for k", session_on(checks_network.lit_lines),
     [("js/kernel_pane.js", "This dispatch: k = ${pass.k}, j = ${pass.j};", "This dispatch: k = ${pass.j}, j = ${pass.j};")],
     "the note gives k"),
    ("web_network", "a disabled trap box keeps its tick", session_on(checks_network.small_items),
     [("js/network_panel.js", "    if (box.disabled) box.checked = false;\n", "")],
     "off and unticked"),
    ("web_network", "the key lists a direction the drawing does not have", session_on(checks_network.small_items),
     [("js/network_svg.js", "const directions = [...new Set(passes.flatMap((p) => p.comparators.map((c) => c.dirBit)))].sort();",
       "const directions = [0, 1];")],
     "its key names the directions"),
    ("web_network_input", "the student's values ignored (the book's input drawn)", checks_network.check_network_input,
     [("js/network_panel.js", "return parsed.error ? null : parsed.values;",
       "return parsed.error ? null : Array.from({ length: parsed.values.length }, (_, i) => (i * 13 + 5) % parsed.values.length);")],
     "the last column is the values sorted"),
    ("web_network_input", "3 values accepted", checks_network.check_network_input,
     [("js/schedule.js", "export const OWN_SIZES = [2, 4, 8, 16, 32];", "export const OWN_SIZES = [2, 3, 4, 8, 16, 32];")],
     "refused"),
    ("web_network_input", "\"1 invocations\"", checks_network.check_network_input,
     [("js/network_panel.js", '${plural(compared, "invocation")} compared a pair', "${compared} invocations compared a pair")],
     "1 invocation"),
    ("web_comparator", "a comparator's values before and after swapped", checks_network.check_comparator,
     [("js/network_panel.js", "Before the pass: ${pair(before)}. After it: ${pair(after)}",
       "Before the pass: ${pair(after)}. After it: ${pair(before)}")],
     "the details say 'Before"),
    ("web_comparator", "a comparator's direction bit wrong", checks_network.check_comparator,
     [("js/network_panel.js", "elements ${c.lo} and ${c.hi}, direction bit ${c.dirBit} ",
       "elements ${c.lo} and ${c.hi}, direction bit ${1 - c.dirBit} ")],
     "direction bit"),
    ("web_comparator", "comparators no keyboard reaches", checks_network.check_comparator,
     [("js/network_panel.js", 'c.setAttribute("tabindex", index === 0 ? "0" : "-1");', "")],
     "one tab stop"),
    ("web_phone", "the current pass not scrolled into view", checks_network.check_phone,
     [("js/network_panel.js", "  scrollToStep();\n", "")],
     "the current pass is in view"),
    ("web_phone", "the caption above the drawing, wrapping as it changes", checks_network.check_phone,
     [("index.html", '  <p id="step-caption" aria-live="polite"></p>\n', ""),
      ("index.html", '  <div class="net-figure">', '  <p id="step-caption" aria-live="polite"></p>\n  <div class="net-figure">')],
     "stays where it is"),
    ("web_sort_sizes", "no size checked: 2^NaN floats 'identical, bit for bit'",
     checks_sort.check_sort_sizes,
     [("js/sort_panel.js", "  if (!/^\\d+$/.test(raw)) return", "  if (false) return"),
      ("js/sort_panel.js", "  if (log2n < MIN_LOG2 || log2n > MAX_LOG2) return", "  if (false) return"),
      ("js/sort_panel.js", "  if (log2n > limit) {", "  if (false) {"),
      ("js/floats.js", '  if (typeof n !== "number" || !Number.isInteger(n)) return', "  if (false) return"),
      ("js/floats.js", "  if (n < 1) return", "  if (false) return"),
      ("js/floats.js", "  if (want.length === 0) diff = 0;\n", ""),
      ("js/sort_panel.js", "verdict.firstDifference < 0 && verdict.checked === n && n > 0", "verdict.firstDifference < 0")],
     "never 'identical'"),
    ("web_responsive", "the whole sort in one submit: no progress between, Cancel waits for the end",
     checks_sort.check_responsive,
     [("js/sort.js", "onProgress = () => {}, budgetMs = 100 }", "onProgress = () => {}, budgetMs = 1e9 }")],
     "within"),
    ("web_responsive", "Sort stays on while a sort runs: a second click starts a second sort",
     checks_sort.check_responsive,
     [("js/sort_panel.js", '  $("sort-run").disabled = running;', '  $("sort-run").disabled = false;'),
      ("js/sort_panel.js", "  if (job) return;  // one sort at a time", "  // one sort at a time")],
     "Sort is off"),
    ("web_responsive", "every size offered on the software adapter, no warning", checks_sort.check_responsive,
     [("js/sort_panel.js", "const SOFTWARE_MAX_LOG2 = 20;", "const SOFTWARE_MAX_LOG2 = 24;")],
     "stop at 2^20"),
    ("web_a11y", "the step buttons named by their glyphs", checks_a11y.check_a11y,
     [("index.html", ' aria-label="first: the input"', ""), ("index.html", ' aria-label="previous pass"', "")],
     "named in words"),
    ("web_a11y", "the slider with no name", checks_a11y.check_a11y,
     [("index.html", '<label for="step" class="visually-hidden">pass</label>', "")],
     "axe-core: no violation"),
    ("web_a11y", "grey text under 4.5:1 (the running output's #888)", checks_a11y.check_a11y,
     [("style.css", "--fg: #1d1d1f; --muted: #555555;", "--fg: #1d1d1f; --muted: #999999;")],
     "axe-core: no violation"),
    ("web_contrast", "the orange arrows at 2.97:1 on their band", checks_a11y.check_contrast,
     [("style.css", "--asc: #1f5fbf; --desc: #b04f00;", "--asc: #1f5fbf; --desc: #d9730d;")],
     "at least 3:1"),
    ("web_contrast", "the passes still to come faded (opacity 0.25)", checks_a11y.check_contrast,
     [("style.css", "#net-svg .pass.future .stem {", "#net-svg .pass.future { opacity: 0.25; }\n#net-svg .pass.future .stem {")],
     "future pass"),
    ("web_contrast", "dark scheme: the values drawn dark on dark", checks_a11y.check_contrast,
     [("style.css", "--wire: #8f98a3; --value: #eeeeee;", "--wire: #8f98a3; --value: #333333;")],
     "every value"),
    ("web_load_failures", "no message on the page: 'Looking for WebGPU...' forever", checks_page.check_load_failures,
     [("index.html", 'document.addEventListener("DOMContentLoaded", function () {',
       'document.addEventListener("DOMContentLoaded-never", function () {')],
     "cannot run"),
    ("web_load_failures", "the file:// command serves another folder", checks_page.check_load_failures,
     [("index.html", '"python3 -m http.server -d " + quote(folder()) + " 8000"', '"python3 -m http.server -d ch12/web 8000"')],
     "the command"),
    ("web_input_kinds", "a kind of input the C++ programs have and the page does not", checks_page.check_input_kinds,
     [("js/floats.js", '  { name: "equal", text: "equal (one value, n times)" },\n', "")],
     "kinds of input are the C++ programs'"),
    ("web_kernel_text", "a CUDA kernel on the page edited by hand", checks_page.check_kernel_text,
     [("js/cuda_kernels.js", "    int l = i ^ j;\\n    if (l > i) {", "    int l = i ^ k;\\n    if (l > i) {")],
     "holds each kernel"),
    ("web_replay", "the WebGPU box still ticked where there is no adapter", replay_box,
     [("js/main.js", "      box.checked = false;\n", "")],
     "unticked and off"),
    ("web_pictures", "a class picture edited by hand", pictures,
     [("pictures/class/12-1_split.svg", "left half 2 4 5 3 (max 5)", "left half 2 4 5 3 (max 4)")],
     "differs from what draw_pictures.js draws"),
    ("web_pictures", "a PNG left from an older SVG", pictures,
     [("pictures/class/png.sha256", "  12-2_merge.png", "0  12-2_merge.png")],
     "was not made from today's 12-2_merge.svg"),
]


class NoLongerApplies(Exception):
    pass


def broken_copy(scratch, changes):
    """A copy of ch12/web in scratch (a folder made in this run), with changes made."""
    copy = os.path.join(scratch, "web")
    write_policy.copy_tree(WEB, copy, ignore=shutil.ignore_patterns("node_modules", "__pycache__"))
    for name, text, replacement in changes:
        path = os.path.join(copy, name)
        with open(path, encoding="utf-8") as f:
            content = f.read()
        count = content.count(text)
        if count != 1:
            raise NoLongerApplies(f"{name}: the text to change is found {count} times, not once: {text[:80]!r}")
        write_policy.write_bytes(path, content.replace(text, replacement).encode("utf-8"), what="broken copy")
    return copy


def run_case(test, what, run, changes, words):
    scratch = delete_policy.temporary_folder("ch12-web-wrong-")
    started = time.monotonic()
    try:
        checklib.SERVE_ROOT = broken_copy(scratch, changes)
        check = Check(quiet=True)
        error = ""
        try:
            run(check)
        except webdriver.WebDriverError as e:
            error = str(e)
        except SystemExit as e:
            if e.code == webdriver.SKIP:
                raise webdriver.Unavailable("no WebGPU adapter in the browser") from None
            error = f"exit {e.code}"
        said = check.failures + ([error] if error else [])
        caught = [s for s in said if words in s]
        took = time.monotonic() - started
        if caught:
            print(f"CAUGHT by {test} ({took:.0f} s): {what}\n    {caught[0][:200]}")
            return True
        print(f"MISSED by {test} ({took:.0f} s): {what}: no failure says '{words}'; it said: {said[:3]}")
        return False
    except NoLongerApplies as e:
        print(f"MISSED by {test}: {what}: the wrong page could not be made: {e}")
        return False
    finally:
        checklib.SERVE_ROOT = WEB
        delete_policy.remove(scratch)


def main(argv):
    parser = arguments.Parser(prog="wrong_pages.py", description="Each check of the page fails on its wrong page.")
    parser.add_argument("--list", action="store_true", help="list the cases and stop")
    parser.add_argument("parts", nargs="*", metavar="NAME-PART", help="run the cases whose test or text holds one")
    args = parser.parse_args(argv)
    if args.list:
        for test, what, *_ in CASES:
            print(f"{test}: {what}")
        return 0
    chosen = [c for c in CASES if not args.parts or any(a in c[0] or a in c[1] for a in args.parts)]
    if not chosen:
        parser.error(f"nothing matches {args.parts}")
    return supervisor.main(lambda: run_cases(chosen), "wrong_pages.py",
                           "the browser was closed and the broken copy removed")


def run_cases(chosen):
    webdriver.install_signal_handlers()
    missed = 0
    try:
        for case in chosen:
            missed += not run_case(*case)
    except webdriver.Unavailable as e:
        print(f"SKIPPED: {e}")
        return webdriver.SKIP
    print(f"{len(chosen) - missed} of {len(chosen)} wrong pages caught")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
