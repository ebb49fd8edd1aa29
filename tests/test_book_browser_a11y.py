"""Accessibility of the built book (WCAG 2.1 AA), checked in Chromium on every page.

- **The audit.** axe-core, from the PyPI package ``axe-playwright-python`` (which ships
  ``axe.min.js``; it is injected into the page, so nothing is fetched and the audit runs
  offline like the other browser tests), runs on every page of the table of contents in the
  light and in the dark theme (the page loads once; the reader's system setting then flips to
  dark, and the theme follows it as it does for a reader). Any violation of impact "serious" or
  "critical" fails the page.
  Every violation found, at any impact, is written with its rule and elements to
  ``_build/screenshots/a11y.txt``. Rules are never switched off; the one-rule, one-page
  exceptions are in ``EXCEPTIONS`` below, each with its reason.
- **Math is read aloud.** MathJax's assistive MathML is on: every typeset formula carries a
  hidden ``<math>`` copy for screen readers, and the visual rendering is hidden from them.
- **Exercises and solutions by keyboard.** Every solution toggle can be reached with Tab,
  opens with Enter, and announces its state (``aria-expanded`` or ``<details open>``).
- **Widgets by keyboard.** In every chapter with widget controls (``input[type=range]``,
  ``select``, ``button``, ``[role=slider]`` inside a widget area), the first one is reached
  with Tab alone, has an accessible name, and a slider or a select moves with the arrow keys.
- **Dark mode shows figures.** Figures (transparent PNGs drawn for a white page) sit on a
  light card in the dark theme; screenshots of one chapter in both themes are saved.

Skipped with a message when the book is not built or Chromium is missing, except under
``BOOK_HTML_TESTS=required`` (``.ci/run``), where both are failures.
"""

from __future__ import annotations

import re
from collections import Counter

import pytest
from _browser import (
    OPEN_SIDE_PATHS,
    SHOTS,
    WIDGETS_SERVED,
    PlaywrightTimeout,
    Visit,
    screenshot,
    wait_for_math,
    wait_until_drawn,
)
from _site import built, is_chapter, require_build, source, toc_docnames

pytestmark = [pytest.mark.slow, pytest.mark.browser]

DOCNAMES = toc_docnames()
CHAPTERS = [d for d in DOCNAMES if is_chapter(d)]
THEMES = ("light", "dark")
FAILING_IMPACTS = {"serious", "critical"}
IMPACT_ORDER = {"critical": 0, "serious": 1, "moderate": 2, "minor": 3, None: 4}

# (docname, rule id) -> why the rule does not apply to that page. One rule, one page, a reason.
# Nothing is excepted today; add an entry only with a reason a reviewer can check.
EXCEPTIONS: dict[tuple[str, str], str] = {}

# Where widget controls live: ipywidgets' own DOM (``.jupyter-widgets``, ``.widget-*``), and
# any precomputed stand-in that marks its container with ``data-widget`` or a ``widget`` class.
WIDGET_AREAS = ".jupyter-widgets, .widget-area, .widget-subarea, [data-widget], .widget, .book-widget"
CONTROLS = "input[type=range], select, button, [role=slider], input[type=checkbox], input[type=radio]"


def _axe():
    try:
        from axe_playwright_python.sync_playwright import Axe
    except ImportError:  # pragma: no cover
        pytest.fail("axe-playwright-python is missing: `python -m pip install -r requirements.txt`")
    return Axe()


def _open(browser, site, docname, theme):
    """A page in the given theme (the theme follows the reader's system setting by default)."""
    visit = Visit(browser, f"{site}{docname}.html", color_scheme=theme)
    page = visit.page
    wait_for_math(page)
    wait_until_drawn(page)  # audited as it is if it never settles; the keyboard test names an undrawn widget
    shown = page.evaluate("() => document.documentElement.dataset.theme")
    assert shown == theme, f"{docname}: asked for the {theme} theme, the page shows {shown!r}"
    page.wait_for_timeout(300)  # the theme's colour transition: contrast is measured after it
    return visit


@pytest.fixture(scope="session")
def a11y_report():
    """Every violation of every page and theme; written to _build/screenshots/a11y.txt."""
    found: dict[tuple[str, str], list[dict]] = {}
    yield found
    SHOTS.mkdir(parents=True, exist_ok=True)
    totals = Counter()
    lines = []
    for (docname, theme), violations in sorted(found.items()):
        lines.append(f"{docname} [{theme}]: {len(violations)} rule(s) violated")
        for v in sorted(violations, key=lambda v: (IMPACT_ORDER.get(v["impact"], 4), v["id"])):
            totals[(v["impact"], v["id"])] += len(v["nodes"])
            excepted = EXCEPTIONS.get((docname, v["id"]))
            note = f"  (excepted: {excepted})" if excepted else ""
            lines.append(f"  {v['impact']}: {v['id']} on {len(v['nodes'])} element(s): {v['help']}{note}")
            for node in v["nodes"][:8]:
                lines.append(f"      {' '.join(map(str, node['target']))}")
                lines.append("        " + re.sub(r"\s+", " ", node.get("html", ""))[:160])
            if len(v["nodes"]) > 8:
                lines.append(f"      ... and {len(v['nodes']) - 8} more")
    head = ["axe-core audit of every page of the table of contents, light and dark theme",
            "(tests/test_book_browser_a11y.py). Elements per rule, all pages and themes:"]
    head += [f"  {impact}: {rule}: {n}" for (impact, rule), n in
             sorted(totals.items(), key=lambda kv: (IMPACT_ORDER.get(kv[0][0], 4), kv[0][1]))] or ["  none"]
    (SHOTS / "a11y.txt").write_text("\n".join(head + [""] + lines) + "\n")


# --------------------------------------------------------------------------- the audit


#: The rules whose result can depend on the theme: the theme changes colours only (pydata-sphinx-theme
#: switches CSS custom properties on ``<html data-theme>``), never the elements, their roles or names
#: (``test_page_passes_axe`` checks that the page has the same elements in both).
COLOUR_RULES = ("color-contrast", "link-in-text-block")
#: Widget areas with a background of their own: the theme paints them in its light text colour in the
#: dark theme, a slab around the frame's own card, unless _static/layout.css takes it off.
SLABS = """() => [...document.querySelectorAll('div.cell_output .widget-subarea')]
    .filter(e => getComputedStyle(e).backgroundColor !== 'rgba(0, 0, 0, 0)').length"""
ELEMENTS = "() => document.querySelectorAll('*:not(#no-transitions)').length"  # not the audit's own style


def _audit(visit, rules: tuple[str, ...] | None = None) -> list[dict]:
    """axe-core's violations on the page as it is now (every rule, or only ``rules``); fails if the
    audit fetched anything from outside."""
    blocked = len(visit.outside)
    options = {"runOnly": {"type": "rule", "values": list(rules)}} if rules else None
    results = _axe().run(visit.page, options=options).response
    fetched = visit.outside[blocked:]
    assert not fetched, f"the audit asked for outside resources, which an offline CI cannot reach: {fetched}"
    return results["violations"]


def _switch_theme(page, docname, theme):
    """The reader's system setting changes: the theme follows it on the open page (pydata-sphinx-theme's
    "auto" mode listens to ``prefers-color-scheme``), as after a reload."""
    # the theme eases colours over 0.2-0.4 s; on a loaded machine 300 ms did not always see the end
    # (a search field's text caught half-way failed contrast): the audit sees the colours at rest
    page.evaluate("""() => { if (!document.getElementById('no-transitions')) {
        const s = document.createElement('style'); s.id = 'no-transitions';
        s.textContent = '*, *::before, *::after { transition: none !important; }';
        document.head.appendChild(s); } }""")
    page.emulate_media(color_scheme=theme)
    try:
        page.wait_for_function("t => document.documentElement.dataset.theme === t", arg=theme, timeout=5_000)
    except PlaywrightTimeout:
        shown = page.evaluate("() => document.documentElement.dataset.theme")
        pytest.fail(f"{docname}: the system setting changed to {theme}; after 5 s the page still shows {shown!r}")
    page.wait_for_timeout(300)  # the theme's colour transition: contrast is measured after it


@pytest.mark.parametrize("docname", DOCNAMES)
def test_page_passes_axe(docname, pages, a11y_report):
    """Every rule in the light theme, then the colour rules in the dark one (the system setting flips;
    the elements stay the same), then back to light for the tests that share the page."""
    visit = pages.visit(docname)
    visit.page.evaluate(OPEN_SIDE_PATHS)  # their contents too: ch06's citation in an opened side path
    visit.page.wait_for_timeout(300)
    shown = visit.page.evaluate("() => document.documentElement.dataset.theme")
    assert shown == THEMES[0], f"{docname}: opened in the {THEMES[0]} theme, the page shows {shown!r}"
    elements = visit.page.evaluate(ELEMENTS)
    a11y_report[(docname, THEMES[0])] = _audit(visit)
    _switch_theme(visit.page, docname, THEMES[1])
    assert visit.page.evaluate(ELEMENTS) == elements, f"{docname}: the dark theme changed the page's elements"
    a11y_report[(docname, THEMES[1])] = _audit(visit, COLOUR_RULES)
    slabs = visit.page.evaluate(SLABS)
    assert not slabs, f"{docname}: in the dark theme {slabs} widget area(s) sit on a painted slab (_static/layout.css)"
    _switch_theme(visit.page, docname, THEMES[0])
    failing = [(theme, v) for theme in THEMES for v in a11y_report[(docname, theme)]
               if v["impact"] in FAILING_IMPACTS and (docname, v["id"]) not in EXCEPTIONS]
    assert not failing, f"{docname}: serious or critical accessibility violations:\n" + "\n".join(
        f"  [{theme}] {v['impact']}: {v['id']} ({v['help']}) on {len(v['nodes'])} element(s), e.g. "
        f"{' '.join(map(str, v['nodes'][0]['target']))}" for theme, v in failing)


def test_exceptions_name_real_pages_and_reasons():
    for (docname, rule), reason in EXCEPTIONS.items():
        assert docname in DOCNAMES, f"exception for {docname!r}, which is not in _toc.yml"
        assert re.fullmatch(r"[a-z0-9-]+", rule), f"exception for {rule!r}: not an axe rule id"
        assert len(reason.split()) >= 5, f"exception for {docname} / {rule} needs a reason"


@pytest.mark.parametrize("docname", DOCNAMES)
def test_page_ids_are_unique(docname):
    """An id names one element: labels, aria references and links resolve to it (book_web.py)."""
    require_build()
    ids = Counter(re.findall(r'\sid="([^"]+)"', built(docname).read_text(errors="replace")))
    repeated = sorted(name for name, n in ids.items() if n > 1)
    assert not repeated, f"{docname}: ids used more than once: {repeated[:10]}"


# --------------------------------------------------------------------------- math


MATH = r"""() => {
  const containers = [...document.querySelectorAll("mjx-container")];
  return {
    formulas: containers.length,
    without_mml: containers.filter(c => !c.querySelector(":scope > mjx-assistive-mml > math")).length,
    visual_not_hidden: containers.filter(c => {
      const visual = c.querySelector(":scope > mjx-math");
      return visual && visual.getAttribute("aria-hidden") !== "true";
    }).length,
    mml_hidden: [...document.querySelectorAll("mjx-assistive-mml")]
                  .filter(m => m.closest("[aria-hidden=true]")).length,
    example: (document.querySelector("mjx-assistive-mml math") || {}).outerHTML || "",
  };
}"""


@pytest.mark.parametrize("docname", [d for d in DOCNAMES
                                     if "\\(" in source(d).read_text() or "$" in source(d).read_text()])
def test_math_has_assistive_mathml(docname, pages):
    info = pages.visit(docname).page.evaluate(MATH)
    assert info["formulas"] > 0, f"{docname}: no typeset math"
    assert info["without_mml"] == 0, (
        f"{docname}: {info['without_mml']} of {info['formulas']} formulas lack assistive MathML")
    assert info["visual_not_hidden"] == 0, f"{docname}: {info['visual_not_hidden']} visual formulas are not aria-hidden"
    assert info["mml_hidden"] == 0, (
        f"{docname}: {info['mml_hidden']} assistive MathML copies are hidden from screen readers")
    assert "<mi" in info["example"] or "<mn" in info["example"], info["example"][:200]


# --------------------------------------------------------------------------- keyboard


# While Tab is pressed in batches: once the focus is inside the selector, further Tabs are held
# there (their default action, moving the focus, is prevented), so the focus stops where Tab alone
# first reached. The guard removes itself when the walk ends.
HOLD = r"""(sel) => {
  const hold = (e) => {
    if (e.key === "Tab" && document.activeElement && document.activeElement.closest(sel)) e.preventDefault();
  };
  window.__holdTab && document.removeEventListener("keydown", window.__holdTab, true);
  window.__holdTab = hold;
  document.addEventListener("keydown", hold, true);
}"""
RELEASE = """() => { document.removeEventListener("keydown", window.__holdTab, true); window.__holdTab = null; }"""
AT = "(sel) => !!(document.activeElement && document.activeElement.closest(sel))"


def _tab_to(page, selector: str, limit: int = 1500, batch: int = 20) -> bool:
    """Press Tab from the top of the page until the focus is inside ``selector`` (at most ``limit``
    times; checked after every ``batch`` presses, the focus held at the first element reached)."""
    page.evaluate("() => { document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0); }")
    page.locator("body").focus()
    page.evaluate(HOLD, selector)
    try:
        for _ in range(0, limit, batch):
            for _ in range(batch):
                page.keyboard.press("Tab")
            if page.evaluate(AT, selector):
                return True
        return False
    finally:
        page.evaluate(RELEASE)


FOCUSED = r"""() => {
  const e = document.activeElement;
  return {tag: e.tagName.toLowerCase(), type: e.type || "", role: e.getAttribute("role") || "",
          expanded: e.getAttribute("aria-expanded"),
          open: e.tagName === "SUMMARY" ? e.parentElement.open : null,
          value: "value" in e ? String(e.value) : e.getAttribute("aria-valuenow"),
          index: "selectedIndex" in e ? e.selectedIndex : null,
          options: e.options ? e.options.length : null,
          max: e.max || e.getAttribute("aria-valuemax"),
          html: e.outerHTML.slice(0, 200)};
}"""

SOLUTIONS = ".solution.dropdown, details.toggle-details, details.sd-dropdown"
# What a keyboard reader operates: sphinx-togglebutton's button in a solution's title (the
# title's link to its exercise comes first in the Tab order and must not be taken for it), or
# the <summary> of a <details> dropdown.
TOGGLES = ".solution.dropdown button.toggle-button, details.toggle-details > summary, details.sd-dropdown > summary"
SHOWN = r"""() => {
  const t = document.activeElement.closest(".solution.dropdown, details");
  const c = t && t.querySelector(":scope > section, :scope > .toggle-details__container, :scope > .sd-summary-content");
  return !!c && c.getBoundingClientRect().height > 0 && getComputedStyle(c).visibility !== "hidden";
}"""


def _chapters_with(text: str) -> list[str]:
    return [d for d in CHAPTERS if text in source(d).read_text()]


@pytest.mark.parametrize("docname", _chapters_with("{solution}"))
def test_solution_toggles_work_by_keyboard(docname, pages):
    page = pages.visit(docname).page
    assert page.locator(SOLUTIONS).count() > 0, f"{docname}: no solution dropdowns on the page"
    assert _tab_to(page, TOGGLES), f"{docname}: Tab never reaches a solution toggle"
    before = page.evaluate(FOCUSED)
    name = page.evaluate(f"(e) => ({NAME})(document.activeElement)")
    shown_before = page.evaluate(SHOWN)
    page.keyboard.press("Enter")
    page.wait_for_timeout(300)
    after = page.evaluate(FOCUSED)
    shown_after = page.evaluate(SHOWN)
    assert name, f"{docname}: the solution toggle has no accessible name: {before['html']}"
    if before["tag"] == "summary":
        assert (before["open"], after["open"]) == (False, True), (before, after)
    else:
        assert (before["expanded"], after["expanded"]) == ("false", "true"), (
            f"{docname}: the solution toggle does not announce its state: {before} -> {after}")
    assert (shown_before, shown_after) == (False, True), (
        f"{docname}: Enter on the solution toggle did not show the hidden solution ({shown_before} -> {shown_after})")


def _widget_chapters() -> list[str]:
    return [d for d in CHAPTERS if "application/vnd.jupyter.widget-view+json" in source(d).read_text()
            or "attnlib.widgets" in source(d).read_text()]


NAME = r"""(e) => {
  const text = (s) => (s || "").replace(/\s+/g, " ").trim();
  if (e.getAttribute("aria-labelledby"))
    return text(e.getAttribute("aria-labelledby").split(/\s+/)
                 .map(id => (document.getElementById(id) || {}).textContent).join(" "));
  if (e.getAttribute("aria-label")) return text(e.getAttribute("aria-label"));
  if (e.labels && e.labels.length) return text([...e.labels].map(l => l.textContent).join(" "));
  if (e.tagName === "BUTTON") return text(e.textContent) || text(e.title);
  return text(e.title);
}"""


MOVABLE = "input[type=range], select, [role=slider]"


def _within_widgets(controls: str) -> str:
    return ", ".join(f"{area} :is({controls})" for area in WIDGET_AREAS.split(", "))


@pytest.mark.parametrize("docname", _widget_chapters())
def test_widget_controls_work_by_keyboard(docname, pages):
    """Every control is in the Tab order and named; the first slider or select (else the first
    control) is reached by Tab alone from the top of the page and moves with the arrow keys."""
    page = pages.visit(docname).page
    controls = page.locator(_within_widgets(CONTROLS))
    served = page.evaluate(WIDGETS_SERVED)
    if controls.count() == 0:
        assert not served, f"{docname}: the page serves its widget manager but shows no widget controls"
        pytest.skip(f"{docname}: no widget controls: this build loads the widget manager from a CDN, "
                    "which the tests block (an offline reader sees the static figure and its note)")
    described = controls.evaluate_all(
        f"(cs) => cs.map(e => ({{name: ({NAME})(e), tab: e.tabIndex, disabled: !!e.disabled,"
        " html: e.outerHTML.slice(0, 160)}))")
    target = _within_widgets(MOVABLE) if page.locator(_within_widgets(MOVABLE)).count() else _within_widgets(CONTROLS)
    reached = _tab_to(page, target)
    focused = page.evaluate(FOCUSED)
    moved = None
    if reached and (focused["type"] == "range" or focused["role"] == "slider"):
        key = "ArrowLeft" if focused["value"] == focused["max"] else "ArrowRight"
        page.keyboard.press(key)
        page.wait_for_timeout(200)
        moved = page.evaluate(FOCUSED)["value"] != focused["value"]
    elif reached and focused["tag"] == "select" and (focused["options"] or 0) > 1:
        key = "ArrowUp" if focused["index"] == focused["options"] - 1 else "ArrowDown"
        page.keyboard.press(key)
        page.wait_for_timeout(200)
        moved = page.evaluate(FOCUSED)["index"] != focused["index"]
    unnamed = [c["html"] for c in described if not c["name"]]
    untabbable = [c["html"] for c in described if c["tab"] < 0 and not c["disabled"]]
    assert not unnamed, f"{docname}: widget controls without an accessible name: {unnamed}"
    assert not untabbable, f"{docname}: widget controls out of the Tab order: {untabbable}"
    assert reached, f"{docname}: Tab never reaches a widget control"
    assert moved is not False, f"{docname}: the arrow keys do not move the focused control {focused['html']}"


# --------------------------------------------------------------------------- dark mode figures


FIGURES = r"""() => [...document.querySelectorAll(".cell_output img, figure img")].map(img => {
  const styles = [img, img.parentElement].map(e => getComputedStyle(e).backgroundColor);
  return {src: img.getAttribute("src"), backgrounds: styles, filter: getComputedStyle(img).filter};
})"""


def _luminance(rgb: str) -> float | None:
    values = [float(v) for v in re.findall(r"[\d.]+", rgb)]
    if len(values) == 4 and values[3] == 0:
        return None  # transparent
    r, g, b = values[:3]
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255


def test_figures_sit_on_a_light_card_in_dark_mode(site, browser):
    chapter = next(d for d in CHAPTERS if "image/svg+xml" in source(d).read_text())
    figures = {}
    for theme in THEMES:
        visit = _open(browser, site, chapter, theme)
        try:
            figures[theme] = visit.page.evaluate(FIGURES)
            screenshot(visit.page, SHOTS / f"a11y-{chapter.split('/')[-1]}-{theme}.png")
        finally:
            visit.close()
    assert figures["dark"], f"{chapter}: no figures found"
    dark_cards = []
    for fig in figures["dark"]:
        lights = [lum for lum in map(_luminance, fig["backgrounds"]) if lum is not None]
        # A near-white card, and the figure not dimmed (a filter would grey its labels and
        # shift its colour-blind-safe palette).
        if not lights or lights[0] < 0.9 or fig["filter"] != "none":
            dark_cards.append(fig)
    assert not dark_cards, f"{chapter}: figures without a light background in the dark theme: {dark_cards[:3]}"
