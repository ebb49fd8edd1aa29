"""The browser under the tests of the built book: Chromium through Playwright, the book served
on localhost, and every request to another host blocked.

Each ``tests/test_book_browser*.py`` file imports the fixtures ``site`` and ``browser`` and
the ``Visit`` class from here (``from _browser import ...``), so that the pages are served,
and outside hosts blocked, the same way in every test. ``.ci/run`` runs every such file.
"""

from __future__ import annotations

import functools
import http.server
import os
import re
import shutil
import threading
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from _site import HTML, ROOT, require_build, skip_or_fail

try:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
except ImportError:  # the browser fixture skips (or fails in CI) with a message
    PlaywrightTimeout = TimeoutError

SHOTS = ROOT / "_build" / "screenshots"
LAUNCH_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
LOCAL = {"127.0.0.1", "localhost"}
# Requests to outside hosts that pages make and an offline reader cannot satisfy. None: the
# ipywidgets manager is served with the book (book/_ext/widget_manager.py). Anything here
# must also be listed in CONTRIBUTING.md under "Reading offline".
OUTSIDE: tuple[re.Pattern, ...] = ()


def chromium_path() -> str | None:
    for candidate in (os.environ.get("CHROMIUM"), "/usr/bin/chromium", shutil.which("chromium"),
                      shutil.which("chromium-browser")):
        if candidate and Path(candidate).exists():
            return candidate
    return None


# --------------------------------------------------------------------------- fixtures


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def site():
    """The built book served on localhost; yields its base URL."""
    require_build()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(HTML)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:  # pragma: no cover
        skip_or_fail("the playwright package is missing: `python -m pip install -r requirements.txt`")
    executable = chromium_path()
    if executable is None:
        skip_or_fail("Chromium is not installed: run `bash scripts/install_chromium.sh` "
                     "(or `sudo apt-get install chromium`), or set CHROMIUM=/path/to/chromium")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=LAUNCH_ARGS)
        yield browser
        browser.close()


#: a phone's viewport in CSS px (an iPhone 12 to 15), at its device pixel ratio
PHONE = {"width": 390, "height": 844, "scale": 3}


class Visit:
    """One page opened in a fresh browser context with outside hosts blocked (a 1280 x 900 window by default)."""

    def __init__(self, browser, url: str, *, color_scheme: str = "light", width: int = 1280, height: int = 900,
                 scale: float = 1):
        self.context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=color_scheme,
                                           device_scale_factor=scale)
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.outside: list[str] = []
        self.errors: list[str] = []          # errors from the book's own pages and scripts
        self.outside_errors: list[str] = []  # console errors caused by blocked outside requests
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda exc: self.errors.append(f"uncaught: {exc}"))
        self.page.goto(url, wait_until="load", timeout=60_000)

    def _route(self, route):
        host = urlsplit(route.request.url).hostname
        if route.request.url.startswith(("data:", "blob:")) or host in LOCAL:
            route.continue_()
        else:
            self.outside.append(route.request.url)
            route.abort("internetdisconnected")

    def _console(self, msg):
        if msg.type != "error":
            return
        where = (msg.location or {}).get("url", "")
        text = f"{msg.text} [{where}]"
        if where and urlsplit(where).hostname not in LOCAL:
            self.outside_errors.append(text)
        else:
            self.errors.append(text)

    def close(self):
        self.context.close()


def wait_for_math(page) -> bool:
    """Wait for MathJax's first typesetting pass; False if the page loads no MathJax."""
    if not page.evaluate("() => !!document.querySelector('script[src*=\"mathjax\" i]')"):
        return False
    try:
        page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise", timeout=20_000)
    except Exception:
        return False
    page.evaluate("() => MathJax.startup.promise")
    return True


def screenshot(page, path: Path) -> None:
    """A full-page screenshot from the top, so the sticky header and sidebars sit where a reader sees them."""
    page.evaluate("() => { window.scrollTo(0, 0); document.activeElement && document.activeElement.blur(); }")
    page.wait_for_timeout(200)
    path.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path), full_page=True, timeout=120_000)  # the long API page, on a busy machine


