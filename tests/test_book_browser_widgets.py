"""The explorers on the built pages move without a kernel and without the network.

Every chapter page is opened in Chromium with every request to another host blocked
(``tests/_browser.py``). For every widget on the page the test

- waits for the widget manager served with the book (``_static/widgets/embed.js``) to draw it;
- checks that it drew controls (a widget with none fails);
- moves each control from the keyboard, as a reader would: focus, then an arrow key
  (a slider or a drop-down) or Space on the next toggle button;
- checks that the figure shown changed: the source of the visible frame (each frame is
  its own image), or else a hash of the pixels of the widget's figure (a widget whose
  figure does not change fails);
- checks that the widget's one-line notes (``attnlib.widgets``: what each control changes)
  name every control, and that every control has an accessible name (``_static/widgets.js``
  gives the slider handle and the button group the control's description);
- checks that a slider's handle gives its value, not its position: ``aria-valuetext`` is the
  label shown beside it, and ``aria-valuenow`` that number where the labels are numbers;

Before/after screenshots of the first widget of each chapter are saved in
``_build/screenshots/widgets/``, and ``_build/screenshots/widgets.txt`` (and ``.json``) list
per chapter its widgets, their controls and frames, and the page's size (the HTML, which
holds the widget state with the frames, plus the images it loads from the book), with the
shared widget manager bundle counted once at the end. A chapter page over ``PAGE_BUDGET``
(``attnlib.widgets._core.PAGE_BUDGET_MB``) fails.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from pathlib import Path

import pytest
from _browser import SHOTS
from _site import HTML, is_chapter, toc_docnames

from attnlib.widgets._core import NOTES_CLASS, PAGE_BUDGET_MB

pytestmark = [pytest.mark.slow, pytest.mark.browser]

CHAPTERS = [d for d in toc_docnames() if is_chapter(d)]
PAGE_BUDGET = int(PAGE_BUDGET_MB * 1e6)  # bytes: a chapter page's HTML and images
WIDGETS = SHOTS / "widgets"
STATE = 'script[type="application/vnd.jupyter.widget-state+json"]'
VIEW = 'script[type="application/vnd.jupyter.widget-view+json"]'


def page_bytes(docname: str) -> dict:
    """The page's HTML and the book images it references (not the shared scripts and styles)."""
    html = HTML / f"{docname}.html"
    text = html.read_text(encoding="utf-8")
    images = set()
    for src in re.findall(r'<img[^>]+src="([^"#?]+)"', text):
        path = (html.parent / src).resolve()
        if path.is_file() and HTML.resolve() in path.parents:
            images.add(path)
    image_bytes = sum(p.stat().st_size for p in images)
    state = re.search(r'<script type="application/vnd\.jupyter\.widget-state\+json">(.*?)</script>', text, re.S)
    return {"html": html.stat().st_size, "images": image_bytes, "n_images": len(images),
            "state": len(state.group(1)) if state else 0, "total": html.stat().st_size + image_bytes}


@pytest.fixture(scope="session")
def report():
    pages: dict[str, dict] = {}
    yield pages
    WIDGETS.mkdir(parents=True, exist_ok=True)
    (SHOTS / "widgets.json").write_text(json.dumps(pages, indent=1, sort_keys=True))
    lines = ["Widgets on the chapter pages, offline (every outside host blocked), moved from the keyboard.",
             "page size = HTML (with the widget state and its frames, base64) + the book's images it loads.", ""]
    for name, info in pages.items():
        size = info.get("size", {})
        lines.append(f"{name}: {len(info.get('widgets', []))} widget(s), page {size.get('total', 0) / 1e6:.2f} MB "
                     f"(HTML {size.get('html', 0) / 1e6:.2f} MB of which widget state "
                     f"{size.get('state', 0) / 1e6:.2f} MB, "
                     f"{size.get('n_images', 0)} images {size.get('images', 0) / 1e6:.2f} MB)")
        for w in info.get("widgets", []):
            moved = ", ".join(f"{c['name']} ({c['kind']}, {'changed' if c['changed'] else 'UNCHANGED'})"
                              for c in w["controls"])
            lines.append(f"    widget {w['index']}: {w['frames']} frames; controls: {moved or 'NONE'}")
    manager = HTML / "_static" / "widgets" / "embed.js"
    if manager.is_file():
        lines += ["", f"shared by every page: _static/widgets/embed.js {manager.stat().st_size / 1e6:.2f} MB "
                      "(the widget manager, loaded once and cached)"]
    (SHOTS / "widgets.txt").write_text("\n".join(lines) + "\n")


VISIBLE_FIGURE = r"""(box) => {
  const imgs = [...box.querySelectorAll("img")].filter(i => i.offsetParent !== null && i.naturalWidth > 0);
  return imgs.map(i => i.currentSrc || i.src).join(" ");
}"""

CONTROLS = r"""(box) => [...box.querySelectorAll(".widget-slider, .widget-toggle-buttons, .widget-dropdown")]
  .map(c => {
    const handle = c.querySelector("[role='slider']");
    return {
      kind: c.classList.contains("widget-slider") ? "slider"
          : c.classList.contains("widget-toggle-buttons") ? "toggle" : "dropdown",
      name: (c.querySelector(".widget-label") || {}).textContent || "",
      accessible: (c.querySelector("[role='slider'][aria-label]") || {}).ariaLabel || c.getAttribute("aria-label")
                  || (c.querySelector("select[aria-label]") || {}).ariaLabel || "",
      shown: ((c.querySelector(".widget-readout") || {}).textContent || "").trim(),
      valuetext: handle ? handle.getAttribute("aria-valuetext") : null,
      valuenow: handle ? handle.getAttribute("aria-valuenow") : null,
    };
  })"""


def value_problems(control: dict) -> list[str]:
    """A slider handle must say its value: the label shown, and the number where the label is one."""
    if control["kind"] != "slider":
        return []
    found = []
    if control["valuetext"] != control["shown"]:
        found.append(f"aria-valuetext {control['valuetext']!r}, but the slider shows {control['shown']!r}")
    try:
        number = float(control["shown"].replace("\u2212", "-"))
    except ValueError:
        return found
    if control["valuenow"] is None or abs(float(control["valuenow"]) - number) > 1e-9 * max(1.0, abs(number)):
        found.append(f"aria-valuenow {control['valuenow']!r}, but the value is {control['shown']}")
    return found


def test_the_value_check_can_fail():
    slider = {"kind": "slider", "shown": "0.5", "valuetext": "0.5", "valuenow": "0.5"}
    assert value_problems(slider) == []
    assert value_problems({**slider, "valuenow": "3"})  # the position, not the value
    assert value_problems({**slider, "valuetext": None})
    assert value_problems({**slider, "shown": "none", "valuetext": "none", "valuenow": "0"}) == []


def figure_key(box) -> str:
    src = box.evaluate(VISIBLE_FIGURE)
    if src:
        return src
    return hashlib.sha256(box.screenshot()).hexdigest()  # no image shown: hash the pixels


def move(page, control, kind: str) -> None:
    """Move one control from the keyboard by one step, as a reader would."""
    if kind == "slider":
        handle = control.locator(".noUi-handle, [role='slider']").first
        handle.focus()
        now, top = handle.get_attribute("aria-valuenow"), handle.get_attribute("aria-valuemax")
        page.keyboard.press("ArrowLeft" if now is not None and now == top else "ArrowRight")
    elif kind == "toggle":
        buttons = control.locator("button")
        pressed = [i for i in range(buttons.count()) if "mod-active" in (buttons.nth(i).get_attribute("class") or "")]
        target = buttons.nth(((pressed[0] if pressed else 0) + 1) % buttons.count())
        target.focus()
        page.keyboard.press("Space")
    else:
        select = control.locator("select")
        select.focus()
        page.keyboard.press("ArrowDown")


#: The controls whose label sits above the control instead of on its line (attnlib.widgets stacks
#: its controls one per row, label left; the page's widget manager lays toggle buttons out as a
#: block, which _static/layout.css undoes).
LABEL_BESIDE = """(b) => [...b.firstElementChild.children].filter(c => {
    const label = c.querySelector(':scope > .widget-label');
    const rest = [...c.children].filter(e => e !== label && e.getBoundingClientRect().height > 0);
    if (!label || !rest.length) return false;
    const mid = (label.getBoundingClientRect().top + label.getBoundingClientRect().bottom) / 2;
    return !rest.some(e => e.getBoundingClientRect().top <= mid && mid <= e.getBoundingClientRect().bottom);
  }).map(c => c.querySelector(':scope > .widget-label').textContent.trim())"""


@pytest.mark.parametrize("docname", CHAPTERS)
def test_every_widget_moves_offline(docname, pages, report):
    start = time.perf_counter()
    visit = pages.visit(docname)
    page = visit.page
    info = {"widgets": [], "size": page_bytes(docname)}
    report[docname] = info
    problems = []
    n_views = page.locator(VIEW).count()
    if n_views:
        try:
            page.wait_for_function(f"() => document.querySelectorAll('.attnlib-frames').length >= {n_views}",
                                   timeout=60_000)
        except Exception:
            drawn = page.locator(".attnlib-frames").count()
            problems.append(f"the widget manager drew {drawn} of {n_views} widgets")
    boxes = page.locator(".attnlib-frames")
    notes = page.locator("p.widget-note")
    for index in range(boxes.count()):
        box = boxes.nth(index)
        box.scroll_into_view_if_needed()
        controls = box.evaluate(CONTROLS)
        entry = {"index": index, "controls": [], "frames": box.evaluate(
            "(b) => b.querySelectorAll('img').length")}
        frames = _frames_in_state(page, index)
        if frames is not None:
            entry["frames"] = frames
        info["widgets"].append(entry)
        if not controls:
            problems.append(f"widget {index} rendered no controls")
            continue
        problems += [f"widget {index}: control {c['name']!r} has no accessible name (aria-label)"
                     for c in controls if not c["accessible"].strip()]
        problems += [f"widget {index}: control {c['name']!r}: {p}" for c in controls for p in value_problems(c)]
        problems += [f"widget {index}: control {name!r} stands under its label, not beside it"
                     for name in box.evaluate(LABEL_BESIDE)]
        noted = box.evaluate(f"(b) => (b.querySelector('.{NOTES_CLASS}') || {{}}).textContent || ''")
        unnoted = [c["name"].strip() for c in controls if f"{c['name'].strip()}:" not in noted]
        if unnoted:
            problems.append(f"widget {index}: no one-line note for {unnoted}: {noted!r}")
        if index == 0:
            WIDGETS.mkdir(parents=True, exist_ok=True)
            box.screenshot(path=str(WIDGETS / f"{Path(docname).name}-before.png"))
        locators = box.locator(".widget-slider, .widget-toggle-buttons, .widget-dropdown")
        for c, control in enumerate(controls):
            before = figure_key(box)
            move(page, locators.nth(c), control["kind"])
            changed = False
            for _ in range(20):  # the manager switches frames at once; allow the image to decode
                page.wait_for_timeout(100)
                if figure_key(box) != before:
                    changed = True
                    break
            entry["controls"].append({"name": control["name"].strip(), "kind": control["kind"],
                                      "changed": changed})
            if not changed:
                problems.append(f"widget {index}: moving {control['name']!r} ({control['kind']}) "
                                "from the keyboard did not change the figure")
            moved = box.evaluate(CONTROLS)[c]
            problems += [f"widget {index}: control {c!r} after a move: {p}" for p in value_problems(moved)]
        if index == 0:
            box.screenshot(path=str(WIDGETS / f"{Path(docname).name}-after.png"))
        if index < notes.count() and len(notes.nth(index).inner_text()) > 120:
            problems.append(f"widget {index}: the note under it is longer than one line: "
                            f"{notes.nth(index).inner_text()!r}")
    info["seconds"] = time.perf_counter() - start
    widget_hosts = [u for u in visit.outside if re.search(r"jupyter-widgets|require\.js|requirejs", u)]
    problems += [f"request to an outside host for widgets: {u}" for u in widget_hosts]
    problems += [f"console: {e}" for e in visit.errors]
    if not info["widgets"]:
        problems.append("no widget on this chapter page (every chapter has at least one explorer)")
    if info["size"]["total"] > PAGE_BUDGET:
        problems.append(f"page is {info['size']['total'] / 1e6:.1f} MB with its images (budget "
                        f"{PAGE_BUDGET / 1e6:.0f} MB)")
    assert not problems, f"{docname}:\n  " + "\n  ".join(problems)


def _frames_in_state(page, index: int):
    """Distinct Image models under the index-th precomputed explorer, from the page's widget state."""
    return page.evaluate(
        r"""([stateSel, index]) => {
          const script = document.querySelector(stateSel);
          if (!script) return null;
          const state = JSON.parse(script.textContent).state;
          const roots = Object.keys(state).filter(k => (state[k].state._dom_classes || []).includes("attnlib-frames"));
          const views = [...document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]')]
            .map(v => JSON.parse(v.textContent).model_id).filter(id => roots.includes(id));
          const root = views[index];
          if (!root) return null;
          const seen = new Set(), images = new Set();
          const walk = (id) => {
            if (seen.has(id) || !state[id]) return;
            seen.add(id);
            if (state[id].model_name === "ImageModel") images.add(id);
            for (const c of state[id].state.children || []) walk(String(c).replace(/^IPY_MODEL_/, ""));
          };
          walk(root);
          return images.size;
        }""",
        [STATE, index],
    )
