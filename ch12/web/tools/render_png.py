#!/usr/bin/env python3
"""The PNGs of the class pictures (ch12/web/pictures/class/*.png), made from
their SVGs in headless Chromium (tests/webdriver.py: the same browser as the
page's tests), at twice the SVG's size, for slides.

    python3 ch12/web/tools/render_png.py

Run it after `node ch12/web/tools/draw_pictures.js` has changed an SVG. It
writes each NAME.png beside NAME.svg, and png.sha256: the SHA-256 of the SVG
each PNG was made from, which `web_pictures` compares with the SVG committed
(PNG bytes differ from one Chromium to the next; the SVG is what is checked).

The PNGs and png.sha256 are files git tracks, replaced by design: they are
the files common/write_policy.py lets this tool draw (GENERATED), and only
they. Each is written through the policy -- a temporary file beside it,
renamed over it once rendered, its mode kept -- and every one is checked
before the browser starts (a PNG that is a link to another file is refused).

Exit status: 0 done; 77 without Chromium and chromedriver (how to install
them is printed); 1 when a picture could not be rendered; 2 for a bad
command line or a target the write policy refuses; 128 + the signal on
SIGINT, SIGTERM, SIGHUP or SIGQUIT, after closing the browser (a PNG being
written is left as it was).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "common"))
import supervisor  # noqa: E402  (first: the signal handlers are in place before any other import)
import base64
import hashlib

WEB = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(WEB, "tests"))
import webdriver  # noqa: E402
import arguments  # noqa: E402  (common/, put on the path by webdriver)
import write_policy  # noqa: E402

NAME = "render_png.py"
FOLDER = os.path.join(WEB, "pictures", "class")
MANIFEST = os.path.join(FOLDER, "png.sha256")
SCALE = 2


def write(target, data):
    with write_policy.Output(target, recheck={"regenerates": NAME, "what": "picture"}) as out:
        out.file.write(data)
        out.commit()


def svg_size(text):
    import re
    m = re.search(r'<svg[^>]* width="([\d.]+)" height="([\d.]+)"', text)
    if not m:
        raise ValueError("no width and height on the <svg> element")
    return float(m.group(1)), float(m.group(2))


def main(argv):
    parser = arguments.Parser(prog=NAME, description="Renders every pictures/class/*.svg as a PNG beside it "
                              "(no arguments).")
    parser.parse_args(argv)
    names = sorted(n for n in os.listdir(FOLDER) if n.endswith(".svg"))
    try:   # every file it will write, decided before the browser starts
        targets = {name: write_policy.check(os.path.join(FOLDER, name[:-4] + ".png"), regenerates=NAME, what="picture")
                   for name in names}
        manifest = write_policy.check(MANIFEST, regenerates=NAME, what="picture")
    except write_policy.Refused as e:
        parser.error(str(e))
    return supervisor.main(lambda: render(names, targets, manifest), NAME,
                           "the browser was closed; the picture being written was left as it was")


def render(names, targets, manifest):
    webdriver.install_signal_handlers()
    lines = []
    try:
        with webdriver.Page(webgpu=False) as page:
            for name in names:
                with open(os.path.join(FOLDER, name), "rb") as f:
                    svg = f.read()
                width, height = svg_size(svg.decode("utf-8"))
                page.cdp("Emulation.setDeviceMetricsOverride",
                         {"width": int(width + 0.999), "height": int(height + 0.999), "deviceScaleFactor": SCALE,
                          "mobile": False})
                page.open(f"pictures/class/{name}")
                shot = page.cdp("Page.captureScreenshot", {
                    "format": "png", "captureBeyondViewport": True,
                    "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}})
                png = base64.b64decode(shot["data"])
                write(targets[name], png)
                lines.append(f"{hashlib.sha256(svg).hexdigest()}  {name[:-4]}.png")
                print(f"pictures/class/{name[:-4]}.png: {len(png)} bytes, {int(width) * SCALE} x {int(height) * SCALE}")
    except webdriver.Unavailable as e:
        print(f"SKIPPED: {e}")
        return webdriver.SKIP
    except (webdriver.WebDriverError, ValueError, OSError, write_policy.Refused) as e:
        print(f"FAIL: {e}")
        return 1
    try:
        write(manifest, ("\n".join(lines) + "\n").encode())
    except (OSError, write_policy.Refused) as e:
        print(f"FAIL: {e}")
        return 1
    print(f"pictures/class/png.sha256: {len(lines)} PNGs, each with the SVG it was made from")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
