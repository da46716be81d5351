"""The sort panel, checked for what the GPU did rather than for what the page
says: the test reads the sorted array back from the GPU itself and checks
its order (IEEE 754 totalOrder) and its multiset against the input, which it
makes again here; sizes forced into the control; and a long sort on the
software adapter that must leave the page free and stop within a second of
Cancel.

Each check names, in its comment, the wrong page it catches; tests/
wrong_pages.py makes those pages and shows that the check fails on each."""

import re
import time

import page as ch12page
from checklib import cpp_input_kinds, make_input, order_key, page_session, require_webgpu

KINDS = cpp_input_kinds()  # the C++ programs' one list


def check_on_gpu(check, page, label, kind, n):
    """Order and multiset of what the GPU holds, checked here."""
    try:
        got_n, given, output = ch12page.sort_result_on_gpu(page)
    except RuntimeError as e:
        check.true(f"{label}: the test reads the result back from the GPU", False, str(e))
        return
    check.equal(f"{label}: the GPU holds n results", (got_n, len(output)), (n, n))
    want_input = make_input(kind, n)
    check.true(f"{label}: the page sorted the input it says ({kind}, made here again)", list(given) == want_input,
               f"first words: page {list(given[:4])}, here {want_input[:4]}")
    keys = [order_key(b) for b in output]
    bad = next((i for i in range(1, len(keys)) if keys[i - 1] > keys[i]), -1)
    check.true(f"{label}: the GPU's array is in totalOrder (checked here)", bad < 0 and len(keys) == n,
               f"out of order at {bad}: 0x{output[bad - 1]:08x} then 0x{output[bad]:08x}" if bad > 0 else f"{len(keys)} keys")
    check.true(f"{label}: the GPU's array holds the input's floats, bit for bit, each as often (checked here)",
               sorted(output) == sorted(want_input), "the multisets differ")


# Wrong pages caught: a broken sort kernel whose page still says "identical"
# (its check lying, or checking nothing); keys lost or doubled on the GPU; a
# page that sorts another input than the one it names; a rate printed as
# "0.0000238 Gkeys/s".
def check_sort(check):
    with page_session() as page:
        require_webgpu(ch12page.open_page(page))
        runs = [(10, "special"), (16, "uniform"), (16, "special"), (20, "uniform")] + \
               [(12, kind) for kind in KINDS if kind not in ("uniform", "special")]
        for log2n, kind in runs:
            label = f"sort of 2^{log2n} floats ({kind})"
            started = time.monotonic()
            result = ch12page.sort(page, log2n, kind)
            print(f"sort 2^{log2n} {kind}: {result['state']}, {result['check']} "
                  f"({time.monotonic() - started:.1f} s in all): {result['text']}")
            check.equal(f"{label}: ran", result["state"], "done")
            check_on_gpu(check, page, label, kind, 2 ** log2n)
            check.equal(f"{label}: the page's own verdict agrees", result["check"], "identical")
            check.true(f"{label}: a time is shown", result["ms"] != "" and float(result["ms"]) > 0, result["text"])
            rate = re.search(r"= ([\d.]+) (Gkeys/s|Mkeys/s|thousand keys/s|keys/s)\.", result["text"])
            check.true(f"{label}: the rate is a number from 1 to 999 with its unit",
                       rate and 1 <= float(rate.group(1)) < 1000, result["text"])


# Wrong pages caught: a size forced into the control
# ("abc", "-1", ...) that still reports "identical, bit for bit" with no float
# checked, or anything but a refusal that names the size.
def check_sort_sizes(check):
    with page_session() as page:
        require_webgpu(ch12page.open_page(page))
        for forced in ("abc", "-1", "", "9", "25", "10.5", "1e3", "NaN"):
            page.js("""
                const select = document.getElementById('sort-log2n');
                select.add(new Option('forced: ' + arguments[0], arguments[0]));
                select.value = arguments[0];""", forced)
            page.js("""const r = document.getElementById('sort-result');
                r.dataset.state = 'requested'; document.getElementById('sort-run').click();""")
            result = page.wait_for("""const r = document.getElementById('sort-result');
                return !['requested', 'running'].includes(r.dataset.state) &&
                    {state: r.dataset.state, check: r.dataset.check || '', text: r.textContent};""",
                                   what=f"the sort panel's answer to the size {forced!r}")
            label = f"the size {forced!r} forced into the control"
            check.equal(f"{label}: refused", result["state"], "invalid")
            check.true(f"{label}: never 'identical'", result["check"] != "identical" and "identical" not in result["text"],
                       result["text"])
            check.true(f"{label}: the message names what was asked", "Nothing was sorted" in result["text"]
                       and (forced in result["text"] or forced == ""), result["text"])
            page.js("const s = document.getElementById('sort-log2n'); s.remove(s.options.length - 1); s.value = '10';")
        # And the sort code itself, below the panel: no size it cannot sort.
        refused = page.js_async("""
            const done = arguments[arguments.length - 1];
            (async () => {
                const { gpuSort } = await import('./js/sort.js');
                const { openGpu } = await import('./js/webgpu.js');
                const gpu = await openGpu();
                const out = [];
                for (const bits of [new Uint32Array(0), new Uint32Array(2 ** 24 + 1), [1, 2, 3]]) {
                    try { await gpuSort(gpu, bits); out.push('sorted ' + bits.length); }
                    catch (e) { out.push(e.name + ': ' + e.message); }
                }
                done(out);
            })().catch(e => done(['failed: ' + e]));""")
        for what, answer in zip(("0 floats", "2^24 + 1 floats", "a plain array"), refused):
            check.true(f"gpuSort() refuses {what}", answer.split(":")[0] in ("RangeError", "TypeError"), answer)


def expected_seconds(estimate):
    """The seconds in the page's "expected to take about 1 min 10 s" (or
    "about 38.7 s", "about 950 ms"); 0 when it names no time."""
    m = re.search(r"about (?:(\d+) min )?([\d.]+) (s|ms)\b", estimate)
    if not m:
        return 0.0
    return 60 * int(m.group(1) or 0) + float(m.group(2)) / (1000 if m.group(3) == "ms" else 1)


# Wrong pages caught: a page whose long sort blocks it -- no progress, no
# Cancel, or a Cancel that takes longer than a second (one submit holding the
# whole sort); the Sort button still on during a sort (a second sort queued);
# the network or a lesson's trap not drawn while the sort runs; sizes past
# 2^20 offered on a software adapter with no warning and no expected time.
def check_responsive(check):
    with page_session() as page:
        status = ch12page.open_page(page)
        require_webgpu(status)
        software = page.js("return document.getElementById('gpu-status').dataset.software")
        check.equal("the tests' adapter (SwiftShader) is called a software adapter on the page", software, "true")
        sizes = page.js("return [...document.getElementById('sort-log2n').options].map(o => +o.value)")
        capped = check.equal("software adapter: the sizes offered stop at 2^20", max(sizes), 20)
        check.true("software adapter: the page says so", page.js(
            "const n = document.getElementById('sort-adapter-note'); return !n.hidden && /software/.test(n.textContent);"))
        page.click("#sort-larger")
        page.wait_for("return [...document.getElementById('sort-log2n').options].some(o => o.value === '24')",
                      what="the larger sizes")
        page.js("const s = document.getElementById('sort-log2n'); s.value = '22'; s.dispatchEvent(new Event('change'));")
        estimate = page.wait_for("""const e = document.getElementById('sort-estimate');
            return (!e.hidden && /expected to take about/.test(e.textContent) && e.textContent) || arguments[0];""",
                                 "" if capped else "(no warning: every size was offered)", timeout=120,
                                 what="the expected time of 2^22 here")
        print(f"the page says: {estimate}")
        check.true("2^22 on a software adapter: a warning with the expected time", re.search(r"about \d", estimate), estimate)
        expected_s = expected_seconds(estimate)

        # Sort, clicked twice at once: one sort, the button off while it runs.
        page.js("""window.__sortClicks = 0;
            const b = document.getElementById('sort-run'); b.click(); b.click();""")
        running = page.wait_for("""const r = document.getElementById('sort-result');
            return r.dataset.state === 'running' && +(r.dataset.passesDone || 0) > 0 &&
                {sortOff: document.getElementById('sort-run').disabled, cancelOn: !document.getElementById('sort-cancel').disabled,
                 status: document.getElementById('sort-status').textContent};""", timeout=120,
                                what="the 2^22 sort to be under way")
        check.equal("while a sort runs: Sort is off, Cancel on", (running["sortOff"], running["cancelOn"]), (True, True))
        m = re.match(r"(\d+) of (\d+) passes done", running["status"])
        check.true("while a sort runs: its progress, passes done of all (253 at 2^22)", m and m.group(2) == "253",
                   running["status"])
        first = float(page.js("return document.getElementById('sort-result').dataset.passesDone"))
        check.equal("two clicks on Sort started one sort", page.js("return window.ch12Sort.started"), 1)

        # The other panels answer while it runs.
        started = time.monotonic()
        ch12page.network(page, "63-8", timeout=120)
        redraw = time.monotonic() - started
        still = page.js("return document.getElementById('sort-result').dataset.state")
        check.equal("the network was drawn again while the sort ran", still, "running")
        print(f"the network (63, n = 8) drawn again in {redraw:.2f} s while the sort ran")
        # Promptly: the redraw's kernels wait behind the sort's piece in flight
        # (how long a piece holds the queue is checked below), and compiling
        # them is CPU work that a loaded machine slows as much as the sort
        # itself; so the bound grows with the time the page expects the whole
        # sort to take here.
        bound = max(5.0, expected_s / 4)
        check.true(f"the network was drawn again within {bound:.1f} s of the change (5 s, or a quarter of the "
                   "sort's expected time when that is longer)", redraw < bound, f"{redraw:.1f} s")
        rows = [s["values"] for s in ch12page.step_through(page)]
        check.equal("the network, stepped while the sort runs: the book's n = 8 input sorted at the end",
                    rows[-1], " ".join(str(v) for v in range(8)))
        started = time.monotonic()
        result = ch12page.lesson(page, "61", trap=True, timeout=120)
        check.equal("61's trap, ticked while the sort runs: its program printed", (result["state"], result["exit"]),
                    ("done", "1"))
        print(f"61's trap printed in {time.monotonic() - started:.2f} s while the sort ran")
        ch12page.lesson(page, "61", trap=False, timeout=120)
        later = float(page.wait_for("""const r = document.getElementById('sort-result');
            return +r.dataset.passesDone > +arguments[0] && r.dataset.passesDone;""", first, timeout=60,
                                    what="the sort's progress to move"))
        check.true("the progress moves on", later > first, f"{first} then {later}")

        # The sort reports its progress between two pieces of its work: the
        # gaps between reports, with nothing else on the page, are how long
        # one piece holds the GPU's queue (and so how long a redraw can wait).
        page.js("""const r = document.getElementById('sort-result');
            window.__progressAt = [performance.now()];
            window.__progressSeen = new MutationObserver(() => window.__progressAt.push(performance.now()));
            window.__progressSeen.observe(r, {attributes: true, attributeFilter: ['data-passes-done']});""")
        page.wait_for("""const at = window.__progressAt;
            return at.length > 8 || performance.now() - at[at.length - 1] > 2000 ||
                   document.getElementById('sort-result').dataset.state !== 'running';""", timeout=120,
                      what="eight more reports of the sort's progress (or 2 s without one)")
        gaps = page.js("""window.__progressSeen.disconnect();
            const at = [...window.__progressAt, performance.now()];
            return {longest: Math.max(...at.slice(1).map((t, i) => t - at[i])), reports: at.length - 2,
                    state: document.getElementById('sort-result').dataset.state};""")
        print(f"the sort's next {gaps['reports']} reports of its progress came at most {gaps['longest']:.0f} ms apart"
              + ("" if gaps["state"] == "running" else f"; then the sort was {gaps['state']}"))
        if not check.true("while the sort runs, each report of its progress comes within 2 s of the one before "
                          "(a piece of its work is about 0.1 s)", gaps["state"] == "running" and gaps["longest"] < 2000,
                          f"{gaps['longest']:.0f} ms, then {gaps['state']}"):
            return  # (Cancel cannot be timed on a sort that has ended)

        # Cancel: the test times it in the page, from the click to the page saying so.
        took = page.js_async("""
            const done = arguments[arguments.length - 1];
            const r = document.getElementById('sort-result');
            const t0 = performance.now();
            const seen = () => r.dataset.state === 'cancelled';
            new MutationObserver((_, o) => { if (seen()) { o.disconnect(); done(performance.now() - t0); } })
                .observe(r, {attributes: true});
            document.getElementById('sort-cancel').click();
            if (seen()) done(performance.now() - t0);""")
        print(f"cancelled {took:.0f} ms after the click")
        check.true("a 2^22 sort on the software adapter is cancelled within one second of the click", took < 1000,
                   f"{took:.0f} ms")
        after = page.js("""return {sortOn: !document.getElementById('sort-run').disabled,
            cancelOff: document.getElementById('sort-cancel').disabled, started: window.ch12Sort.started,
            text: document.getElementById('sort-result').textContent};""")
        check.equal("after Cancel: Sort on, Cancel off", (after["sortOn"], after["cancelOff"]), (True, True))
        check.equal("after Cancel: still one sort started", after["started"], 1)
        check.true("after Cancel: the page says how far it got", re.search(r"Cancelled after [\d.]+ of 253 passes", after["text"]),
                   after["text"])
