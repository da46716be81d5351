#!/usr/bin/env python3
"""Prints what the page (ch12/web/index.html) prints for one program, as the
page computed it in headless Chromium: the WGSL kernel on WebGPU, or with
--no-webgpu the book's replay in JavaScript (labelled as --replay labels it).

    page_output.py --program 59|61|63 [--trap] [--no-webgpu] [--adapter swiftshader|default]

stdout: the program's text, byte for byte as the page shows it (compare it
with expected_output/<program>.txt, or .replay.txt with --no-webgpu).
stderr: one line saying where it ran (the WebGPU adapter's vendor and
architecture), or why it could not run.

--trap          61's or 63's COMMON TRAP (61_trap_first_group_only, 63_trap_no_pair_guard)
--no-webgpu     the page with WebGPU switched off: the book's replay in JavaScript
--adapter A     swiftshader (default: Chromium's CPU implementation, on any machine)
                or default (the adapter Chromium picks: the machine's GPU, where
                Chromium can use it)

Exit status: the program's own (0 when its self-check says confirmed, 1 on
MISMATCH: the traps); 77 (Skipped) without Chromium and chromedriver, or
when WebGPU was asked for and the page found no adapter (it would have
printed the replay, which is not a GPU result); 2 for a bad command line (an
option given twice included); 1 when the page reports an error; 128 + the
signal on SIGINT (130), SIGTERM (143), SIGHUP (129) or SIGQUIT (131), after
closing the browser -- chromedriver, every Chromium process and the profile
folder (common/supervisor.py; a second signal does not cut that short).
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "common"))
import supervisor  # noqa: E402  (first: the signal handlers are in place before any other import)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import page as ch12page  # noqa: E402
import webdriver  # noqa: E402
import arguments  # noqa: E402  (common/, put on the path by webdriver)

NAME = "page_output.py"


class Parser(arguments.Parser):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, error_prefix=NAME, **kwargs)


def main(argv=None):
    parser = Parser(prog=NAME, description="Print one program's output as the page computed it.")
    parser.add_argument("--program", required=True, choices=["59", "61", "63"])
    parser.add_argument("--trap", action="store_true", help="the program's COMMON TRAP (61 and 63 only)")
    parser.add_argument("--no-webgpu", action="store_true", help="WebGPU switched off: the book's replay in JavaScript")
    parser.add_argument("--adapter", choices=["swiftshader", "default"], default="swiftshader")
    parser.add_argument("--timeout", type=arguments.whole(1, 86400, "a whole number of seconds"), default=120,
                        help="seconds to wait for the page (default 120)")
    args = parser.parse_args(argv)
    if args.trap and args.program == "59":
        parser.error("--trap: the page has the traps of 61 and 63, not 59's")
    return supervisor.main(lambda: show(args), NAME, "the browser was closed")


def show(args):
    webdriver.install_signal_handlers()
    try:
        with webdriver.Page(webgpu=not args.no_webgpu, adapter=args.adapter, timeout=args.timeout) as page:
            status = ch12page.open_page(page, webgpu=not args.no_webgpu)
            if not args.no_webgpu and status["source"] != "webgpu":
                sys.stderr.write(f"{NAME}: skipped: the page found no WebGPU adapter ({status['text']})\n")
                return webdriver.SKIP
            result = ch12page.lesson(page, args.program, args.trap, timeout=args.timeout)
    except webdriver.Unavailable as e:
        sys.stderr.write(f"{NAME}: skipped: {e}\n")
        return webdriver.SKIP
    except (webdriver.WebDriverError, OSError) as e:
        sys.stderr.write(f"{NAME}: {e}\n")
        return 1
    if result["state"] != "done":
        sys.stderr.write(f"{NAME}: the page reported: {result['text']}\n")
        return 1
    try:
        sys.stdout.write(result["text"])
        sys.stdout.flush()
    except OSError as e:
        sys.stderr.write(f"{NAME}: cannot write to standard output: {e}\n")
        return 1
    where = "the book's replay in JavaScript, no GPU" if result["source"] == "replay" else \
        f"WebGPU, adapter vendor {status['vendor']}, architecture {status['architecture']}"
    sys.stderr.write(f"{NAME}: {result['name']} as the page printed it ({where})\n")
    return int(result["exit"]) if result["exit"] in ("0", "1") else 1


if __name__ == "__main__":
    sys.exit(main())
