"""The page in a real browser: a static server for ch12/web/ and headless
Chromium driven through chromedriver, W3C WebDriver over plain HTTP and JSON
(Python's standard library only).

    with Page(webgpu=True) as page:        # server + chromedriver + Chromium
        page.open("index.html?run=59")
        text = page.js("return document.getElementById('out-59').textContent")

Everything started here is stopped on the way out -- also on SIGINT,
SIGTERM, SIGHUP and SIGQUIT (install_signal_handlers(): common/supervisor.py;
a second signal during the cleanup does not cut it short): the WebDriver
session, chromedriver and every Chromium process (chromedriver runs through
the supervisor, which stops everything descended from it, in sessions of
their own too; any process still running with this session's own
--user-data-dir is killed by pid as well), the server thread, and the
temporary profile folder (made and removed through common/delete_policy.py).

Without Chromium or chromedriver, Page() raises Unavailable, whose message
says what is missing and how to install it; the callers exit 77 (Skipped).
"""

import functools
import http.server
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

WEB_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(WEB_ROOT, "..", "..", "common"))
import delete_policy  # noqa: E402
import supervisor  # noqa: E402
SKIP = 77
INSTALL_HINT = ("install Chromium and chromedriver (Debian/Ubuntu: apt-get install chromium chromium-driver), "
                "or name them in CH12_CHROMIUM and CH12_CHROMEDRIVER")

# Chromium's flags. The machine may have no network at all: nothing in the
# browser may try to reach one. WebGPU runs on SwiftShader, Chromium's own
# CPU implementation of Vulkan, unless adapter="default".
BASE_FLAGS = [
    "--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-default-apps", "--disable-extensions", "--no-first-run",
    "--no-default-browser-check", "--disable-quic", "--metrics-recording-only",
    "--disable-breakpad", "--disable-crash-reporter",
    "--window-size=1280,1000",
]
WEBGPU_FLAGS = {
    "swiftshader": ["--enable-unsafe-webgpu", "--use-webgpu-adapter=swiftshader",
                    "--enable-features=Vulkan", "--use-vulkan=swiftshader"],
    "default": ["--enable-unsafe-webgpu", "--enable-features=Vulkan", "--ignore-gpu-blocklist"],
}
# WebGPU switched off in the browser itself: the page must fall back to the replay.
NO_WEBGPU_FLAGS = ["--disable-gpu", "--disable-features=WebGPU,Vulkan"]


class Unavailable(Exception):
    """No browser here: the test is Skipped (exit 77)."""


class WebDriverError(Exception):
    pass


def find_browser():
    """(chromium, chromedriver) paths, or Unavailable naming what is missing."""
    found, missing = [], []
    for env, names in (("CH12_CHROMIUM", ["chromium", "chromium-browser", "google-chrome"]),
                       ("CH12_CHROMEDRIVER", ["chromedriver"])):
        path = os.environ.get(env) or next(filter(None, map(shutil.which, names)), None)
        if path and os.access(path, os.X_OK):
            found.append(path)
        else:
            missing.append(os.environ.get(env) or names[0])
    if missing:
        raise Unavailable(f"{' and '.join(missing)} not found: {INSTALL_HINT}")
    return tuple(found)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".js": "text/javascript", ".wgsl": "text/plain; charset=utf-8",
                      ".svg": "image/svg+xml", ".json": "application/json"}

    def log_message(self, *args):
        pass

    def end_headers(self):
        self.send_header("Cache-Control", "no-store")
        super().end_headers()


class StaticServer:
    """ch12/web/ on http://127.0.0.1:<free port>/, from a thread of this process."""

    def __init__(self, root=WEB_ROOT):
        handler = functools.partial(_QuietHandler, directory=root)
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def install_signal_handlers():
    """SIGINT, SIGTERM (a CTest timeout), SIGHUP and SIGQUIT unwind like an
    exception (supervisor.Interrupted, a KeyboardInterrupt whose exit_status
    is 128 + the signal), so every `with Page()` block stops what it
    started; a further signal never interrupts that cleanup."""
    supervisor.install()


def _pids_with_arg(arg):
    """Processes whose command line holds `arg` (this session's unique profile folder)."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if arg.encode() in f.read():
                    pids.append(int(entry))
        except OSError:
            continue
    return pids


class Page:
    """A static server, chromedriver and one headless Chromium session."""

    def __init__(self, webgpu=True, adapter="swiftshader", timeout=120, root=WEB_ROOT):
        self.chromium, self.chromedriver = find_browser()
        self.root = root
        self.webgpu, self.adapter, self.timeout = webgpu, adapter, timeout
        self.server = self.driver = self.session = self.profile = None
        self.driver_log = None

    # ---- lifecycle
    def __enter__(self):
        try:
            self._start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc):
        self.close()

    def _start(self):
        self.server = StaticServer(self.root)
        self.profile = delete_policy.temporary_folder("ch12-web-chromium-")
        self.driver_log = os.path.join(self.profile, "chromedriver.log")
        port = free_port()
        self.base = f"http://127.0.0.1:{port}"
        # Chromium's own temporary folders go inside the profile folder too:
        # a browser that had to be killed leaves nothing behind in /tmp.
        browser_tmp = os.path.join(self.profile, "tmp")
        os.mkdir(browser_tmp)
        self.driver = supervisor.start(
            [self.chromedriver, f"--port={port}", f"--log-path={self.driver_log}"],
            grace=3, env=dict(os.environ, TMPDIR=browser_tmp),
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 90
        while True:
            try:
                if self._call("GET", "/status", timeout=2).get("ready"):
                    break
            except (OSError, WebDriverError):
                pass
            if self.driver.poll() is not None or time.monotonic() > deadline:
                raise WebDriverError(f"chromedriver did not start (exit {self.driver.poll()}); log: {self._log_tail()}")
            time.sleep(0.1)
        flags = BASE_FLAGS + [f"--user-data-dir={self.profile}/profile"]
        flags += WEBGPU_FLAGS[self.adapter] if self.webgpu else NO_WEBGPU_FLAGS
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": self.chromium, "args": flags},
        }}}
        value = self._call("POST", "/session", caps, timeout=90)
        self.session = value["sessionId"]
        self._call("POST", f"/session/{self.session}/timeouts",
                   {"script": self.timeout * 1000, "pageLoad": 60000})

    def close(self):
        """Stops everything started here. After a signal there is no polite
        goodbye to chromedriver (it may be what hangs): the supervisor stops
        it and every Chromium process at once."""
        if self.session and supervisor.received() is None:
            try:
                self._call("DELETE", f"/session/{self.session}", timeout=20)
            except (OSError, WebDriverError):
                pass
        self.session = None
        if self.driver:
            supervisor.stop(self.driver, grace=0 if supervisor.received() is not None else None)
            self.driver = None
        if self.profile:
            # Any Chromium process still running with this session's profile.
            for _ in range(2):
                pids = _pids_with_arg(f"--user-data-dir={self.profile}/")
                for pid in pids:
                    supervisor.signal_process(pid, signal.SIGKILL)
                if not pids:
                    break
                time.sleep(0.2)
            try:
                delete_policy.remove(self.profile)
            except OSError:
                pass
            self.profile = None
        if self.server:
            self.server.stop()
            self.server = None

    # ---- WebDriver
    def _call(self, method, path, body=None, timeout=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method,
                                         headers={"Content-Type": "application/json; charset=utf-8"})
        try:
            with urllib.request.urlopen(request, timeout=timeout or self.timeout + 30) as response:
                payload = json.loads(response.read().decode() or "{}")
        except urllib.error.HTTPError as e:
            try:
                payload = json.loads(e.read().decode())
            except ValueError:
                raise WebDriverError(f"{method} {path}: HTTP {e.code}") from None
            value = payload.get("value", {})
            raise WebDriverError(f"{method} {path}: {value.get('error')}: {value.get('message', '')[:2000]}") from None
        return payload.get("value")

    def _log_tail(self):
        try:
            with open(self.driver_log, errors="replace") as f:
                return f.read()[-2000:]
        except OSError:
            return "(none)"

    def open(self, path):
        """Loads ch12/web/<path> from the server."""
        self._call("POST", f"/session/{self.session}/url", {"url": self.server.url + path})

    def open_url(self, url):
        """Loads any URL (a file:// one, say)."""
        self._call("POST", f"/session/{self.session}/url", {"url": url})

    def js(self, script, *args):
        """Runs a function body in the page; returns its value."""
        return self._call("POST", f"/session/{self.session}/execute/sync", {"script": script, "args": list(args)})

    def js_async(self, script, *args):
        """Runs a function body whose last argument is the callback to call with the result."""
        return self._call("POST", f"/session/{self.session}/execute/async", {"script": script, "args": list(args)})

    def wait_for(self, script, *args, timeout=None, poll=0.2, what="the page"):
        """Polls `script` until it returns something truthy; returns that."""
        deadline = time.monotonic() + (timeout or self.timeout)
        while True:
            value = self.js(script, *args)
            if value:
                return value
            if time.monotonic() > deadline:
                raise WebDriverError(f"timed out waiting for {what}")
            time.sleep(poll)

    def cdp(self, command, params=None):
        """A Chrome DevTools Protocol command, through chromedriver (emulation, screenshots)."""
        return self._call("POST", f"/session/{self.session}/goog/cdp/execute",
                          {"cmd": command, "params": params or {}})

    def set_window(self, width, height):
        """The browser window's size in CSS pixels (a phone's width, say)."""
        self._call("POST", f"/session/{self.session}/window/rect", {"width": width, "height": height})

    def color_scheme(self, scheme):
        """Emulates prefers-color-scheme: 'light' or 'dark'."""
        self.cdp("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})

    def find(self, css):
        """The WebDriver reference of the first element matching `css`."""
        value = self._call("POST", f"/session/{self.session}/element", {"using": "css selector", "value": css})
        return next(iter(value.values()))

    def keys(self, *keys):
        """Real key presses (W3C actions) to the element that has focus: each item
        is a key ('\\ue014' ArrowRight, ' ' Space, ...)."""
        steps = []
        for key in keys:
            steps += [{"type": "keyDown", "value": key}, {"type": "keyUp", "value": key}]
        self._call("POST", f"/session/{self.session}/actions",
                   {"actions": [{"type": "key", "id": "keyboard", "actions": steps}]})

    def hover(self, css):
        """Moves the mouse (W3C actions) to the middle of the element matching `css`."""
        element = {"element-6066-11e4-a52e-4f735466cecf": self.find(css)}
        self._call("POST", f"/session/{self.session}/actions", {"actions": [{
            "type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
            "actions": [{"type": "pointerMove", "origin": element, "x": 0, "y": 0, "duration": 0}]}]})

    def click(self, css):
        """A real click (WebDriver element click: scrolled into view, hit-tested)."""
        self._call("POST", f"/session/{self.session}/element/{self.find(css)}/click", {})

    def console_errors(self):
        """The browser's console messages of level SEVERE (chromedriver's log endpoint)."""
        entries = self._call("POST", f"/session/{self.session}/se/log", {"type": "browser"}, timeout=60)
        return [e.get("message", "") for e in entries or [] if e.get("level") == "SEVERE"]
