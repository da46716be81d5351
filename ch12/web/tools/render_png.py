#!/usr/bin/env python3
"""The PNGs of the class pictures (ch12/web/pictures/class/*.png), made from
their SVGs in headless Chromium (tests/webdriver.py: the same browser as the
page's tests), at twice the SVG's size, for slides.

    python3 ch12/web/tools/render_png.py

Run it after `node ch12/web/tools/draw_pictures.js` has changed an SVG. It
writes each NAME.png beside NAME.svg, and png.sha256: the SHA-256 of the SVG
each PNG was made from, which `web_pictures` compares with the SVG committed
(PNG bytes differ from one Chromium to the next; the SVG is what is checked).

Exit status: 0 done; 77 without Chromium and chromedriver (how to install
them is printed); 1 when a picture could not be rendered.
"""

import base64
import hashlib
import os
import sys
import tempfile

WEB = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(WEB, "tests"))
import webdriver  # noqa: E402

FOLDER = os.path.join(WEB, "pictures", "class")
MANIFEST = os.path.join(FOLDER, "png.sha256")
SCALE = 2


def write_atomically(path, data):
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def svg_size(text):
    import re
    m = re.search(r'<svg[^>]* width="([\d.]+)" height="([\d.]+)"', text)
    if not m:
        raise ValueError("no width and height on the <svg> element")
    return float(m.group(1)), float(m.group(2))


def main(argv):
    if argv:
        sys.stderr.write("usage: render_png.py   (no arguments: renders every pictures/class/*.svg)\n")
        return 0 if argv in (["--help"], ["-h"]) else 2
    names = sorted(n for n in os.listdir(FOLDER) if n.endswith(".svg"))
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
                write_atomically(os.path.join(FOLDER, name[:-4] + ".png"), png)
                lines.append(f"{hashlib.sha256(svg).hexdigest()}  {name[:-4]}.png")
                print(f"pictures/class/{name[:-4]}.png: {len(png)} bytes, {int(width) * SCALE} x {int(height) * SCALE}")
    except webdriver.Unavailable as e:
        print(f"SKIPPED: {e}")
        return webdriver.SKIP
    except (webdriver.WebDriverError, ValueError, OSError) as e:
        print(f"FAIL: {e}")
        return 1
    except KeyboardInterrupt:
        return 130
    write_atomically(MANIFEST, ("\n".join(lines) + "\n").encode())
    print(f"pictures/class/png.sha256: {len(lines)} PNGs, each with the SVG it was made from")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
