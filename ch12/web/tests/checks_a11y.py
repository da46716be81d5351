"""Accessibility: axe-core (pinned in package.json and package-lock.json,
vendored unmodified in tests/vendor/axe-core/) in headless Chromium, in the
page's initial state and with each panel open, in the light and the dark
colour scheme; and the contrast of the network's marks (3:1) and text
(4.5:1) against what they are drawn on, measured here from the colours the
browser computes (axe does not measure drawn marks).

Each check names, in its comment, the wrong page it catches; tests/
wrong_pages.py makes those pages and shows that the check fails on each."""

import base64
import re
import hashlib
import json
import os

import checklib
import page as ch12page
from checklib import WEB, contrast, page_session, parse_color, require_webgpu

VENDOR = os.path.join(WEB, "tests", "vendor", "axe-core")


def axe_source(check):
    """The vendored axe.min.js, checked against the pinned version and its SRI."""
    with open(os.path.join(VENDOR, "axe.min.js"), "rb") as f:
        source = f.read()
    with open(os.path.join(WEB, "package-lock.json"), encoding="utf-8") as f:
        locked = json.load(f)["packages"]["node_modules/axe-core"]["version"]
    with open(os.path.join(WEB, "package.json"), encoding="utf-8") as f:
        pinned = json.load(f)["devDependencies"]["axe-core"]
    with open(os.path.join(VENDOR, "SRI"), encoding="utf-8") as f:
        sri = f.read().strip()
    check.equal("axe-core: package.json pins the version package-lock.json locks", pinned, locked)
    check.true(f"axe-core: the vendored axe.min.js is version {locked}",
               source.startswith(f"/*! axe v{locked}\n".encode()), source[:40])
    digest = "sha256-" + base64.b64encode(hashlib.sha256(source).digest()).decode()
    check.equal("axe-core: the vendored axe.min.js is axe-core's own (its SRI)", digest, sri)
    installed = os.path.join(WEB, "node_modules", "axe-core", "axe.min.js")
    if os.path.exists(installed):
        with open(installed, "rb") as f:
            check.true("axe-core: the vendored file is the one npm installed", f.read() == source)
    return source.decode("utf-8")


RUN_AXE = """
    const done = arguments[arguments.length - 1];
    if (!window.axe) (0, eval)(arguments[0]);
    window.axe.run(document, {resultTypes: ['violations']}).then(r => done(r.violations.map(v => ({
        id: v.id, impact: v.impact, help: v.help,
        nodes: v.nodes.slice(0, 5).map(n => n.target.join(' ') + ': ' + (n.failureSummary || '').split('\\n').slice(1, 3).join(' '))
    })))).catch(e => done([{id: 'axe-failed', impact: 'critical', help: String(e), nodes: []}]));"""


def axe(check, page, source, what):
    violations = page.js_async(RUN_AXE, source)
    detail = "\n  ".join(f"{v['id']} ({v['impact']}): {v['help']}\n    " + "\n    ".join(v["nodes"]) for v in violations)
    check.true(f"axe-core: no violation, {what}", not violations, detail)
    print(f"axe-core, {what}: {len(violations)} violations")


def accessible_names(page, css):
    """The names the browser gives to screen readers (Chromium's accessibility
    tree, through the DevTools protocol), for the elements matching `css`."""
    root = page.cdp("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
    ids = page.cdp("DOM.querySelectorAll", {"nodeId": root, "selector": css})["nodeIds"]
    names = []
    for node in ids:
        described = page.cdp("DOM.describeNode", {"nodeId": node})["node"]
        attrs = dict(zip(described.get("attributes", [])[::2], described.get("attributes", [])[1::2]))
        ax = page.cdp("Accessibility.getPartialAXTree", {"nodeId": node, "fetchRelatives": False})["nodes"]
        if ax and ax[0].get("ignored"):
            continue  # hidden: not there for anyone
        name = ax[0].get("name", {}).get("value", "") if ax else ""
        names.append((attrs.get("id") or described["nodeName"].lower(), name))
    return names


def fresh_page(page, scheme):
    """The page loaded anew in the colour scheme asked for. One browser
    serves both schemes: a blank page between them, so the second load is a
    new navigation (no reload, which could restore the first pass's form
    state), and nothing of the first pass -- a sort still running -- remains."""
    page.open_url("about:blank")
    page.color_scheme(scheme)
    require_webgpu(ch12page.open_page(page))


def settle(page):
    page.wait_for("""const ready = (id) => ['done', 'error'].includes(document.getElementById(id).dataset.state)
                                          && document.getElementById(id).dataset.pending === '0';
        return document.getElementById('gpu-status').dataset.state === 'done' && ready('out-59') && ready('out-61')
               && ready('out-63') && ready('net-svg');""", what="the page to finish drawing")


# Wrong pages caught: a control with no name (the step buttons' glyphs, the
# slider), text under 4.5:1 in either scheme, a live region or label that
# points at nothing, focusable things hidden from screen readers, an SVG
# with no role or title -- in any state a student can reach, not only the first.
def check_a11y(check):
    source = axe_source(check)
    with page_session() as page:
        for scheme in ("light", "dark"):
            fresh_page(page, scheme)
            settle(page)
            dark = page.js("return matchMedia('(prefers-color-scheme: dark)').matches")
            check.equal(f"{scheme}: the browser reports the colour scheme asked for", dark, scheme == "dark")
            axe(check, page, source, f"{scheme}, the initial state")
            if scheme == "light":
                # Names in words, not glyphs: axe takes "|◀" for a name; a screen reader user cannot.
                for element, name in accessible_names(page, "button, input, select, summary, progress"):
                    check.true(f"the control {element} is named in words ({name!r})",
                               len(re.findall(r"[A-Za-z]", name)) >= 3, name)
            # The network: a pass, its table open, a comparator focused (its details shown).
            page.click("#step-next")
            page.click("#step-next")
            page.click("#net-table-panel summary")
            page.js("document.querySelector('#net-svg g.pass.current g.cmp[tabindex=\"0\"]').focus();")
            axe(check, page, source, f"{scheme}, the network at pass 2, its table open, a comparator focused")
            ch12page.network(page, "61", trap61=True)
            ch12page.lesson(page, "61", trap=True)
            axe(check, page, source, f"{scheme}, 61's trap in the network and the lesson")
            page.js("document.getElementById('net-values').value = '1 2 3';")
            page.click("#net-values-draw")
            page.wait_for("return document.getElementById('net-svg').dataset.state === 'invalid'")
            axe(check, page, source, f"{scheme}, your own values refused, with the message")
            page.js("document.getElementById('net-values').value = '9 -4 7 0';")
            page.click("#net-values-draw")
            page.wait_for("const h = document.getElementById('net-svg'); return h.dataset.state === 'done' && h.dataset.n === '4'")
            axe(check, page, source, f"{scheme}, your own values drawn")
            # The sort: the larger sizes with their warning; a sort running; a sort done.
            page.click("#sort-larger")
            page.js("const s = document.getElementById('sort-log2n'); s.value = '22'; s.dispatchEvent(new Event('change'));")
            page.wait_for("return !document.getElementById('sort-estimate').hidden")
            axe(check, page, source, f"{scheme}, the sort's larger sizes and the warning")
            # (2^22, as above: on the software adapter it outlasts the scan, so Cancel has a sort to stop)
            page.click("#sort-run")
            page.wait_for("return +(document.getElementById('sort-result').dataset.passesDone || 0) > 0", timeout=120)
            axe(check, page, source, f"{scheme}, a sort running (progress, Cancel)")
            page.click("#sort-cancel")
            page.wait_for("return document.getElementById('sort-result').dataset.state === 'cancelled'")
            ch12page.sort(page, 10, "special")
            axe(check, page, source, f"{scheme}, a sort done")
            page.js("""const s = document.getElementById('sort-log2n'); s.add(new Option('abc', 'abc')); s.value = 'abc';
                document.getElementById('sort-run').click();""")
            axe(check, page, source, f"{scheme}, a size refused")
            # Without WebGPU: the replay's labels.
            ch12page.open_page(page, webgpu=False)
            settle(page)
            axe(check, page, source, f"{scheme}, the replay (?webgpu=off)")
            # Opened from the disk: the message and its command.
            page.open_url("file://" + os.path.join(checklib.SERVE_ROOT, "index.html"))
            page.wait_for("return !document.getElementById('load-problem').hidden", what="the file:// message")
            axe(check, page, source, f"{scheme}, opened from the disk (file://)")


MARKS = """
    const svg = document.querySelector('#net-svg svg');
    const filled = (r) => { const f = getComputedStyle(r).fill; return f !== 'none' && !/rgba\\(.*, 0\\)$/.test(f); };
    const grounds = [...svg.querySelectorAll('rect.bg, rect.stage, rect.lit')].filter(filled);
    const opacity = (el, kind) => {
        let o = 1;
        for (let e = el; e && e !== svg.parentNode; e = e.parentNode) {
            const s = getComputedStyle(e);
            o *= +s.opacity;
            if (e === el) o *= +(kind === 'stroke' ? s.strokeOpacity : s.fillOpacity);
        }
        return o;
    };
    const under = (el) => {
        const b = el.getBBox();
        const x = b.x + b.width / 2, y = b.y + b.height / 2;
        let hit = null;
        for (const r of grounds) {
            const g = r.getBBox();
            if (x >= g.x && x <= g.x + g.width && y >= g.y && y <= g.y + g.height) hit = r;
        }
        return hit ? getComputedStyle(hit).fill : getComputedStyle(svg.parentNode).backgroundColor;
    };
    const out = [];
    const add = (what, el, kind, min) => {
        if (getComputedStyle(el).display === 'none' || el.closest('[style*="display: none"], .hidden')) return;
        out.push({what, min, fg: getComputedStyle(el)[kind], alpha: opacity(el, kind), bg: under(el)});
    };
    for (const g of svg.querySelectorAll('g.pass')) {
        const state = g.classList.contains('current') ? 'current' : g.classList.contains('done') ? 'done' : 'future';
        for (const el of g.querySelectorAll('.stem')) add(`comparator line (${state} pass)`, el, 'stroke', 3);
        for (const el of g.querySelectorAll('.head')) add(`arrow head (${state} pass)`, el, 'fill', 3);
        for (const el of g.querySelectorAll('.tail')) add(`comparator dot (${state} pass)`, el, 'stroke', 3);
        for (const el of g.querySelectorAll('.swapbox')) add('swap box', el, 'stroke', 3);
    }
    for (const el of svg.querySelectorAll('g.key .head, g.key .swapbox')) add('key mark', el, el.classList.contains('head') ? 'fill' : 'stroke', 3);
    for (const el of svg.querySelectorAll('text.value')) add('value', el, 'fill', 4.5);
    for (const el of svg.querySelectorAll('text.label, text.title')) add('label', el, 'fill', 4.5);
    for (const el of svg.querySelectorAll('line.wire')) {
        for (const r of grounds) out.push({what: 'wire', min: 3, fg: getComputedStyle(el).stroke, alpha: opacity(el, 'stroke'),
                                           bg: getComputedStyle(r).fill});
    }
    return out;"""


def blend(fg, alpha, bg):
    return tuple(alpha * f + (1 - alpha) * b for f, b in zip(fg[:3], bg[:3]))


# Wrong pages caught: arrows or dots under 3:1 on their band (the orange of
# 2.97:1), passes still to come faded to 1.3-1.6:1, a swap halo drawn at a
# third of its colour, values or labels under 4.5:1 -- in either scheme.
def check_contrast(check):
    with page_session() as page:
        for scheme in ("light", "dark"):
            fresh_page(page, scheme)
            for view in ("63-16", "61"):
                ch12page.network(page, view)
                page.click("#step-first")
                for _ in range(3 if view == "63-16" else 2):
                    page.click("#step-next")
                worst = {}
                for m in page.js(MARKS):
                    fg, bg = parse_color(m["fg"]), parse_color(m["bg"])
                    ratio = contrast(blend(fg, m["alpha"] * fg[3], bg), bg)
                    key = (m["what"], m["min"])
                    if key not in worst or ratio < worst[key][0]:
                        worst[key] = (ratio, m["fg"], m["alpha"], m["bg"])
                for (what, least), (ratio, fg, alpha, bg) in sorted(worst.items()):
                    check.true(f"{scheme}, network {view}: every {what} at least {least}:1 against what is under it "
                               f"(lowest {ratio:.2f}:1)", ratio >= least,
                               f"{fg} at opacity {alpha:.2f} on {bg}: {ratio:.2f}:1")
                kinds = {what for what, _ in worst}
                check.true(f"{scheme}, network {view}: marks of every kind were measured",
                           {"comparator line (current pass)", "comparator line (future pass)", "arrow head (done pass)",
                            "value", "label", "wire", "swap box"} <= kinds, sorted(kinds))
