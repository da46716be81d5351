#!/usr/bin/env python3
"""The page in headless Chromium, WebGPU on SwiftShader: the CTest label `web`.

    test_web.py lessons     59, 61, 63 as the page prints them from WebGPU,
                            against the book's goldens, byte for byte; the
                            adapter shown beside each; nothing loaded from
                            another site
    test_web.py traps       61's trap against its golden; 63's (a data race on
                            a GPU) against the trap program's text around what
                            the GPU left, which must be consistent
    test_web.py network     the drawn comparators against 63's (k, j) loop, 61's
                            passes and 59's split, enumerated here in Python,
                            for n = 8, 16, 32, with and without the traps; and
                            stepping with every control (|< < > >|, the
                            slider, the keys, play): the values drawn after
                            each step against the loops run here; the
                            kernel's lines lit for each pass
    test_web.py sort        the sort panel at 2^10 to 2^20, every kind of
                            input: the GPU's array read back by the test and
                            checked here (totalOrder, the same multiset)
    test_web.py replay      WebGPU switched off (in the browser, and by the
                            page's own switch): the JavaScript replay against
                            the .replay.txt goldens
    test_web.py self-contained   (no browser) the page's files refer to
                            nothing outside ch12/web/
    test_web.py network-input    the student's own values: drawn, sorted in
                            the last column; bad ones refused, with why
    test_web.py comparator  hover and focus on a comparator: its pair, values
                            and direction bit, against the loop run here
    test_web.py phone       400 px wide: the current pass in view, the drawing
                            still from step to step, no page wider than that
    test_web.py sort-sizes  sizes forced into the control: refused, never
                            "identical"
    test_web.py responsive  a 2^22 sort on the software adapter: the warning,
                            progress, the other panels drawn meanwhile,
                            Cancel within one second
    test_web.py a11y        axe-core: no violation, light and dark, in the
                            initial state and with each panel open
    test_web.py contrast    the network's marks 3:1, its text 4.5:1, light and dark
    test_web.py load-failures    file://, a missing and a broken module: said on
                            the page, with the command that serves the folder
    test_web.py input-kinds the sort's kinds of input against the C++ list
    test_web.py kernel-text (no browser) the CUDA kernels the page shows
                            against the .cu files

Each check says, in a comment, the wrong page it catches; wrong_pages.py
breaks a copy of the page in each of those ways and shows each check fail.

Exit status: 0 pass, 1 fail, 77 (Skipped) without Chromium and chromedriver
-- with how to install them -- or with no WebGPU adapter in the browser.
"""

import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import page as ch12page  # noqa: E402
import webdriver  # noqa: E402
from checklib import (  # noqa: E402
    REPO, WEB, Check, expected_59, expected_61, expected_63, golden, page_session, require_webgpu, run_passes)
import checks_network  # noqa: E402
import checks_sort  # noqa: E402
import checks_a11y  # noqa: E402
import checks_page  # noqa: E402


def drawn(net):
    return sorted((c["pass"], c["thread"], c["lo"], c["hi"], c["max"], c["dir"]) for c in net["comparators"])


# ---- the checks -------------------------------------------------------------------------------
def check_lessons(check):
    with page_session() as page:
        status = ch12page.open_page(page)
        require_webgpu(status)
        check.true("the adapter names its vendor", status["vendor"] != "", status["text"])
        for program in ("59", "61", "63"):
            started = time.monotonic()
            result = ch12page.lesson(page, program)
            name = result["name"]
            print(f"{name}: {result['state']} from {result['source']} in {time.monotonic() - started:.2f} s")
            check.equal(f"{name}: the page's output against expected_output/{name}.txt",
                        result["text"], golden(f"{name}.txt"))
            check.equal(f"{name}: computed by WebGPU", result["source"], "webgpu")
            check.equal(f"{name}: the self-check passed (exit 0)", result["exit"], "0")
            check.true(f"{name}: the adapter is shown beside the output (vendor and architecture)",
                       f"vendor {status['vendor']}" in result["ran_on"]
                       and f"architecture {status['architecture']}" in result["ran_on"], result["ran_on"])
        # Everything the page loaded came from its own server.
        resources = page.js("return performance.getEntriesByType('resource').map(e => e.name)")
        origin = page.js("return location.origin")
        foreign = [r for r in resources if not r.startswith(origin + "/")]
        check.true("every file the page loaded came from its own folder", not foreign and resources,
                   f"from elsewhere: {foreign}")
        errors = page.console_errors()
        check.true("no errors in the browser's console", not errors, "\n  ".join(errors))


def check_traps(check):
    with page_session() as page:
        require_webgpu(ch12page.open_page(page))
        result = ch12page.lesson(page, "61", trap=True)
        check.equal("61_trap_first_group_only: the page against expected_output/61_trap_first_group_only.txt",
                    result["text"], golden("61_trap_first_group_only.txt"))
        check.equal("61's trap: exit 1 (MISMATCH)", result["exit"], "1")
        check.equal("61's trap: computed by WebGPU", result["source"], "webgpu")

        # 63's trap on a GPU is a data race: no golden. The text around what
        # the GPU left must be the trap program's, and consistent with it.
        result = ch12page.lesson(page, "63", trap=True)
        text = result["text"]
        m = re.search(r"^after iterative bitonic sort \(10 passes total\): \n  ((?:-?\d+ ){16})\n", text, re.M)
        if check.true("63's trap: the page prints the array the racy kernel left", m, text):
            left = [int(x) for x in m.group(1).split()]
            print(f"63_trap_no_pair_guard: this GPU left {' '.join(map(str, left))}")
            check.equal("63_trap_no_pair_guard: the page's text around the race's outcome",
                        text, expected_63_trap_gpu_text(left))
            # As for the CUDA trap program: whatever the race left, it must not pass.
            check.true("63's trap: the racy kernel did not sort (the trap program's MISMATCH)",
                       left != sorted(left), f"the GPU left {left}")
            check.equal("63's trap: exit 1 (MISMATCH)", result["exit"], "1")
        check.equal("63's trap: computed by WebGPU", result["source"], "webgpu")

        # Switched off again, the lessons print the book's output.
        for program in ("61", "63"):
            name = ch12page.PROGRAM_NAMES[(program, False)]
            result = ch12page.lesson(page, program, trap=False)
            check.equal(f"{name} after its trap is switched off", result["text"], golden(f"{name}.txt"))


def race_lines_of_63_trap():
    """What 63_trap_no_pair_guard.cu prints on a GPU about the race (the printf
    calls of its `} else {` branch after `if (replay) {`), in WGSL's words: the
    page says "dispatch" where CUDA says "launch", and "WGSL" for "CUDA"."""
    with open(os.path.join(REPO, "ch12", "traps", "63_trap_no_pair_guard.cu"), encoding="utf-8") as f:
        source = f.read()
    branch = re.search(r"if \(replay\) \{\n(?:\s*printf\(.*\n)+\s*\} else \{\n((?:\s*printf\(.*\n)+)\s*\}", source)
    if not branch:
        raise SystemExit("FAIL: 63_trap_no_pair_guard.cu: its race branch (if (replay) { ... } else { ... }) not found")
    text = "".join(re.findall(r'printf\("((?:[^"\\]|\\.)*)"\);', branch.group(1))).replace("\\n", "\n")
    words = {"same launch": "same dispatch", "CUDA does not define": "WGSL does not define"}
    for cuda, wgsl in words.items():
        if cuda not in text:
            raise SystemExit(f"FAIL: 63_trap_no_pair_guard.cu's race lines no longer say '{cuda}': {text!r}")
        text = text.replace(cuda, wgsl)
    return text


def expected_63_trap_gpu_text(left):
    """63_trap_no_pair_guard's GPU text (its printf calls; its race lines read
    from the .cu, in WGSL's words), around the array `left`."""
    row = lambda v: "".join(f"{x} " for x in v)  # noqa: E731
    start = [(i * 13 + 5) % 16 for i in range(16)]
    ref = sorted(start)
    is_sorted = left == sorted(left)
    kept = sorted(left) == ref
    return ("=== Section 12.3 COMMON TRAP on the GPU: the kernel without if (l > i) ===\n\n"
            + race_lines_of_63_trap() +
            f"input (fixed permutation of 0..15, a[i] = (i*13+5) mod 16):\n  {row(start)}\n\n"
            f"after iterative bitonic sort (10 passes total): \n  {row(left)}\n\n"
            "reference (via std::sort, independent check -- 16 elements/10 passes\n"
            f"is too large to hand-trace fully):\n  {row(ref)}\n\n"
            "total passes = sum over stages k=2,4,8,16 of log2(k) passes each\n"
            "             = 1 + 2 + 3 + 4 = 10, confirmed: yes\n"
            f"\nis the result sorted: {'yes' if is_sorted else 'no'}; are the input's 16 keys all still there: "
            f"{'yes' if kept else 'no -- keys were lost or duplicated'}\n"
            "only the guard if (l > i) -- one writer per pair -- makes the outcome fixed,\nand right.\n"
            "\nself-check: iterative kernel result matches std::sort reference: "
            f"{'confirmed' if is_sorted and kept else 'MISMATCH'}\n")


def check_network(check):
    with page_session() as page:
        require_webgpu(ch12page.open_page(page))
        views = [("59", False, False, expected_59(8), [2, 4, 6, 8, 9, 7, 5, 3]),
                 ("61", False, False, expected_61(8), [2, 4, 6, 8, 9, 7, 5, 3]),
                 ("61", True, False, expected_61(8, trap=True), [2, 4, 6, 8, 9, 7, 5, 3])]
        for n in (8, 16, 32):
            start = [(i * 13 + 5) % n for i in range(n)]
            views.append((f"63-{n}", False, False, expected_63(n), start))
            views.append((f"63-{n}", False, True, expected_63(n, trap=True), start))
        for view, trap61, trap63, want, start in views:
            trap = trap61 or trap63
            label = f"network {view}{' with its trap' if trap else ''}"
            net = ch12page.network(page, view, trap61=trap61, trap63=trap63)
            if not check.equal(f"{label}: drawn", net["state"], "done"):
                print("  " + net["text"])
                continue
            check.equal(f"{label}: the values come from WebGPU", net["source"], "webgpu")
            passes = max(c[0] for c in want)
            check.equal(f"{label}: number of passes", net["passes"], passes)
            check.equal(f"{label}: the comparators (pass, thread, pair, where the max goes, direction bit) "
                        "against the C++ kernel's loop", drawn(net), want)
            steps = ch12page.step_through(page)
            check.equal(f"{label}: stepping visits the input and every pass", [s["step"] for s in steps],
                        list(range(passes + 1)))
            for s in steps:
                check.equal(f"{label}, step {s['step']}: the values drawn on the wires are the caption's",
                            s["drawn"], s["values"])
                check.equal(f"{label}, step {s['step']}: the value columns shown", s["visible"],
                            list(range(s["step"] + 1)))
                check.equal(f"{label}, step {s['step']}: the pass highlighted", s["current"],
                            [s["step"]] if s["step"] else [])
            rows = [[int(x) for x in s["values"].split()] for s in steps]
            if view == "63-16" and trap63:
                print(f"{label}: after each dispatch: " + " | ".join(s["values"] for s in steps[1:]))
            if trap63:
                # A race: nothing to predict but that the GPU left some array of n values.
                check.true(f"{label}: each step shows n values", all(len(r) == len(start) for r in rows))
                check.true(f"{label}: the race leaves the values unsorted", rows[-1] != sorted(rows[-1]), rows[-1])
                continue
            want_rows = run_passes(start, want, passes)
            check.equal(f"{label}: the values after each pass (what the GPU left) against the loop run here",
                        rows, want_rows)
            # The swaps shown: those the values say happened.
            want_swapped = sorted((p, lo) for (p, _, lo, hi, mx, _) in want
                                  if want_rows[p][lo] != want_rows[p - 1][lo])
            got_swapped = sorted((c["pass"], c["lo"]) for c in net["comparators"] if c["swapped"])
            check.equal(f"{label}: the comparators marked as swapped", got_swapped, want_swapped)
        # The trap's pass lines, as 61_trap_first_group_only prints them.
        net = ch12page.network(page, "61", trap61=True)
        rows = [s["values"] for s in ch12page.step_through(page)][1:]
        lines = re.findall(r"^pass \d \(dist=\d\): ((?:\d )+)$", golden("61_trap_first_group_only.txt"), re.M)
        check.equal("61_trap_first_group_only.txt: three pass lines found", len(lines), 3)
        check.equal("network 61 with its trap: the passes as 61_trap_first_group_only prints them",
                    rows, [line.strip() for line in lines])
        # Every control -- |< < > >|, the slider, the keys, play -- on two views: after each
        # step, the values drawn against the loops run here (checks_network.py).
        for view in ("63-16", "61"):
            checks_network.every_control(page, check, view)
        checks_network.lit_lines(page, check)
        checks_network.small_items(page, check)


def check_sort(check):
    # The GPU's array read back by the test itself: see checks_sort.py.
    checks_sort.check_sort(check)


def check_replay(check):
    programs = [("59", False), ("61", False), ("61", True), ("63", False), ("63", True)]
    # 1. A browser with WebGPU switched off: the page falls back by itself.
    with page_session(webgpu=False) as page:
        status = ch12page.open_page(page)
        print(f"without WebGPU the page says: {status['text']}")
        check.equal("without WebGPU: the page says it runs the replay", status["source"], "replay")
        # Wrong page caught: the WebGPU box still ticked, and the headings still saying
        # "on your GPU", where there is no adapter.
        box = page.js("const b = document.getElementById('use-webgpu'); return {checked: b.checked, disabled: b.disabled};")
        check.equal("without WebGPU: its box is unticked and off", box, {"checked": False, "disabled": True})
        heading = page.js("return document.getElementById('lessons-heading').textContent")
        check.true("without WebGPU: the lessons' heading says replayed, not on your GPU",
                   "replayed" in heading and "on your GPU" not in heading, heading)
        for program, trap in programs:
            result = ch12page.lesson(page, program, trap)
            name = result["name"]
            check.equal(f"{name}: the JavaScript replay against expected_output/{name}.replay.txt",
                        result["text"], golden(f"{name}.replay.txt"))
            check.equal(f"{name} replay: labelled a replay", result["source"], "replay")
            check.equal(f"{name} replay: the exit status", result["exit"], "1" if trap else "0")
            check.true(f"{name} replay: says no GPU was used", "no GPU was used" in result["ran_on"], result["ran_on"])
        net = ch12page.network(page, "63-16")
        check.equal("without WebGPU: the network's values come from the replay", net["source"], "replay")
        result = ch12page.sort(page, 10)
        check.equal("without WebGPU: the sort panel says it needs WebGPU", result["state"], "unavailable")
    # 2. The page's own switch, in a browser that has WebGPU.
    with page_session(webgpu=True) as page:
        status = ch12page.open_page(page, webgpu=False)
        check.equal("?webgpu=off: the page runs the replay", status["source"], "replay")
        for program, trap in (("63", False), ("61", True)):
            result = ch12page.lesson(page, program, trap)
            check.equal(f"?webgpu=off: {result['name']} against its .replay.txt", result["text"],
                        golden(f"{result['name']}.replay.txt"))
        ch12page.set_checkbox(page, "use-webgpu", True)
        page.wait_for("return document.getElementById('gpu-status').dataset.state === 'done'")
        if ch12page.gpu_status(page)["source"] == "webgpu":
            result = ch12page.lesson(page, "63")
            check.equal("switched back on: 63 from WebGPU", (result["source"], result["text"]),
                        ("webgpu", golden("63_bitonic_sort_iterative.txt")))


def check_self_contained(check):
    """No file of the page refers to another site, or outside its folder."""
    pattern = re.compile(r"""(?:src|href)\s*=\s*["']([^"']+)|import\s[^'"]*["']([^"']+)|"""
                         r"""import\(\s*["']([^"']+)|url\(\s*["']?([^"')]+)|fetch\(\s*["']([^"']+)""")
    for folder in ("", "js"):
        for name in sorted(os.listdir(os.path.join(WEB, folder))):
            if not name.endswith((".html", ".js", ".css")):
                continue
            path = os.path.join(WEB, folder, name)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            refs = [next(g for g in m.groups() if g) for m in pattern.finditer(text)]
            for ref in (r for r in refs if not r.startswith("#")):  # a place on the same page
                ok = not re.match(r"^[a-z]+:|^//", ref, re.I) or ref.startswith("data:")
                if ok and not ref.startswith("data:"):
                    target = os.path.normpath(os.path.join(os.path.dirname(path), ref.split("?")[0].split("#")[0]))
                    ok = target.startswith(WEB + os.sep) and os.path.exists(target)
                check.true(f"{os.path.relpath(path, WEB)} refers to '{ref}', a file of ch12/web/", ok)
            check.true(f"{os.path.relpath(path, WEB)} names no other site",
                       not re.search(r"https?://(?!www\.w3\.org/2000/svg|localhost)", text),
                       re.findall(r"https?://\S+", text))


CHECKS = {"lessons": check_lessons, "traps": check_traps, "network": check_network, "sort": check_sort,
          "replay": check_replay, "self-contained": check_self_contained,
          "network-input": checks_network.check_network_input, "comparator": checks_network.check_comparator,
          "phone": checks_network.check_phone, "sort-sizes": checks_sort.check_sort_sizes,
          "responsive": checks_sort.check_responsive, "a11y": checks_a11y.check_a11y,
          "contrast": checks_a11y.check_contrast, "load-failures": checks_page.check_load_failures,
          "input-kinds": checks_page.check_input_kinds, "kernel-text": checks_page.check_kernel_text}


def main(argv):
    if len(argv) != 1 or argv[0] not in CHECKS:
        sys.stderr.write(f"usage: test_web.py {{{'|'.join(CHECKS)}}}\n")
        return 2
    webdriver.install_signal_handlers()
    check = Check()
    started = time.monotonic()
    try:
        CHECKS[argv[0]](check)
    except webdriver.Unavailable as e:
        print(f"SKIPPED: {e}")
        return webdriver.SKIP
    except webdriver.WebDriverError as e:
        print(f"FAIL: {e}")
        return 1
    except KeyboardInterrupt as e:  # supervisor.Interrupted: 128 + the signal (SIGTERM: 143)
        webdriver.supervisor.stop_all()
        print(f"INTERRUPTED ({e}): the server, chromedriver and Chromium it started are stopped")
        return getattr(e, "exit_status", 130)
    print(f"{argv[0]}: {check.passed} checks passed, {len(check.failures)} failed "
          f"({time.monotonic() - started:.1f} s)")
    if check.passed == 0 and not check.failures:
        print("FAIL: nothing was checked")
        return 1
    return 1 if check.failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
