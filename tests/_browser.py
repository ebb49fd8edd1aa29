"""The browser under the tests of the built book: Chromium through Playwright, the book served
on localhost, and every request to another host blocked.

The fixtures ``site``, ``browser`` and ``pages`` (``tests/conftest.py``, one of each for the whole
run) come from here, and each ``tests/test_book_browser*.py`` file imports the ``Visit`` class, so
that the pages are served, and outside hosts blocked, the same way in every test. ``.ci/run`` runs
every such file.

Loading a page is most of a browser test's time (MathJax typesets it, the widget manager draws its
explorers), so the tests of one page share it: ``pages.visit(docname)`` loads a page once per
viewport and hands the same loaded page to every test of that page, and ``order_by_page`` (called
from ``tests/conftest.py``) runs those tests one after the other, in the order of ``SHARED``: the
tests that only read the page first, those that change it (keys pressed, the theme switched,
every dropdown opened) last.
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
#: Open every folded side path (book/_ext/audit.py: an admonition that sphinx-togglebutton folds):
#: what a reader sees who opens them, measured and audited too.
OPEN_SIDE_PATHS = """() => {
  for (const box of document.querySelectorAll('.admonition.audit.toggle-hidden')) {
    const button = box.querySelector(':scope > .admonition-title button.toggle-button, button.toggle-button');
    if (button) button.click();
  }
}"""
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


def serve():
    """The built book served on localhost; yields its base URL (the ``site`` fixture of tests/conftest.py)."""
    require_build()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(HTML)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def launch():
    """Chromium, headless and offline; yields the browser (the ``browser`` fixture of tests/conftest.py)."""
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


def wait_until_drawn(page) -> None:
    """Wait for the late requests (MathJax's fonts, the widget manager and its frames) and for the
    widget manager to draw its views; a page that does neither in time is tested as it is."""
    try:
        page.wait_for_load_state("networkidle", timeout=60_000)  # a loaded machine needs more than 20 s
    except PlaywrightTimeout:
        pass
    if page.evaluate(WIDGETS_SERVED):
        try:
            page.wait_for_function("() => document.querySelector('.jupyter-widgets')", timeout=15_000)
        except PlaywrightTimeout:
            pass  # then the tests say which widget never drew


# A page that serves an ipywidgets manager itself (not from a CDN, which the tests block).
WIDGETS_SERVED = """() => !!document.querySelector('script[type="application/vnd.jupyter.widget-view+json"]')
  && [...document.scripts].some(s => s.src && s.src.startsWith(location.origin) && /embed|html-manager/.test(s.src))"""

#: The tests that share a loaded page, in the order they run on it: reading first, changing last.
#: Every control is moved once before the keyboard test moves the first one back or on, and the
#: theme is back to light before every dropdown is opened.
SHARED = (
    "test_math_has_assistive_mathml",
    "test_page_reads_well",
    "test_chapter_figures_are_numbered_described_cited_crisp_and_legible",
    "test_solution_toggles_work_by_keyboard",
    "test_every_widget_moves_offline",
    "test_widget_controls_work_by_keyboard",
    "test_page_passes_axe",
    "test_chapter_fits_the_column",
    "test_chapter_figures_read_on_a_phone",
    "test_page_fits_a_phone_and_has_one_search_box",
)


class Pages:
    """The loaded pages the tests share: one per viewport (desktop, phone) at a time, opened in the
    light theme and made ready (math typeset, late requests done, widgets drawn) before its first test."""

    def __init__(self, browser, site: str):
        self.browser, self.site = browser, site
        self.open: dict[bool, tuple[str, Visit]] = {}

    def visit(self, docname: str, *, phone: bool = False) -> Visit:
        if phone in self.open and self.open[phone][0] == docname:
            return self.open[phone][1]
        self.close(phone)
        visit = Visit(self.browser, f"{self.site}{docname}.html", **(PHONE if phone else {}))
        wait_for_math(visit.page)
        wait_until_drawn(visit.page)
        self.open[phone] = (docname, visit)
        return visit

    def close(self, phone: bool | None = None) -> None:
        for key in [k for k in self.open if phone is None or k == phone]:
            self.open.pop(key)[1].close()


def order_by_page(items: list) -> None:
    """Reorder the collected tests in place: the SHARED tests of one page run together, page by page
    in reading order, in SHARED's order; every other test keeps its place."""
    from _site import toc_docnames

    order = {name: k for k, name in enumerate(toc_docnames())}
    slots = [k for k, item in enumerate(items) if getattr(item, "originalname", None) in SHARED
             and "docname" in getattr(getattr(item, "callspec", None), "params", {})]
    shared = sorted((items[k] for k in slots),
                    key=lambda item: (order.get(item.callspec.params["docname"], len(order)),
                                      SHARED.index(item.originalname)))
    for k, item in zip(slots, shared, strict=True):
        items[k] = item


# Boxes that may scroll sideways and their cues (_static/layout.css, book-web.js): display equations,
# printed outputs and tables; how wide each is, whether it shows a cue (a mask fading an edge) or a
# cover painted over it, and whether an output keeps its lines.
# An equation is measured in whichever box scrolls (its overflow-x is auto or scroll): the equation's
# div.math, or MathJax's container inside it, which once took the overflow unmarked.
SCROLL_CUES = r"""() => [["math", 'main div.math, main mjx-container[display="true"]'],
                         ["output", "main div.cell_output pre"],
                         ["table", "main .pst-scrollable-table-container"]].flatMap(([kind, sel]) =>
  [...document.querySelectorAll(sel)].filter(b => b.offsetParent !== null)
  .filter(b => kind !== "math" || ["auto", "scroll"].includes(getComputedStyle(b).overflowX)).map(b => {
    const style = getComputedStyle(b);
    const mask = style.maskImage || style.webkitMaskImage || "none";
    return {kind, text: b.textContent.replace(/\s+/g, " ").trim().slice(0, 50), scroll: b.scrollWidth,
            box: b.clientWidth, painted: kind === "math" && style.backgroundImage !== "none",
            masked: mask !== "none", marked: b.classList.contains("scrolls-sideways"),
            focusable: b.tabIndex >= 0, wraps: kind === "output" && style.whiteSpace !== "pre"};
  }))"""


def scroll_cue_problems(boxes: list[dict], *, phone: bool) -> list[str]:
    """What is wrong with the boxes of a page that may scroll sideways: on a desktop, an equation wider
    than its box; anywhere, a cover painted over an equation, a printed output that wraps its lines,
    a cue on a box that fits, or a box that scrolls without a cue or without keyboard access."""
    found = []
    for b in boxes:
        wide = b["scroll"] > b["box"] + 1
        what = f"{b['kind']} {b['text']!r}"
        if wide and not phone and b["kind"] == "math":
            found.append(f"display equation {b['scroll']}px wide in a {b['box']}px box at desktop width: {b['text']!r}")
        if b["painted"]:
            found.append(f"a cover is painted over the {what}")
        if b["wraps"]:
            found.append(f"the {what} wraps its lines instead of keeping them and scrolling")
        if b["masked"] and not wide:
            found.append(f"a scroll cue on a {what} that fits ({b['scroll']}px in {b['box']}px)")
        if wide and not (b["marked"] and b["masked"] and b["focusable"]):
            found.append(f"the {what} scrolls ({b['scroll']}px in {b['box']}px) without a visible cue or keyboard "
                         f"access (marked {b['marked']}, masked {b['masked']}, focusable {b['focusable']})")
    return found


# Punctuation after inline math that starts a line of its own: the first mark after each inline
# formula, measured against the formula's own box.
ORPHANED_PUNCTUATION = r"""() => [...document.querySelectorAll("main span.math")].filter(m => m.offsetParent !== null)
  .map(m => {
    let node = m.nextSibling;
    if (!node && m.parentElement.classList.contains("math-nowrap")) node = m.parentElement.nextSibling;
    if (!node || node.nodeType !== Node.TEXT_NODE || !/^[.,;:!?]/.test(node.data)) return null;
    const range = document.createRange();
    range.setStart(node, 0);
    range.setEnd(node, 1);
    const mark = range.getBoundingClientRect(), box = m.getBoundingClientRect();
    return mark.top >= box.bottom - 2 || mark.left < box.left ? m.textContent.slice(0, 40) + node.data[0] : null;
  }).filter(x => x)"""
