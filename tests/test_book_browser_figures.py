"""The chapter figures as a reader sees them in the browser (issues 14, 18 and 29).

On every chapter page, at a 1280 x 900 window, every image of a cell output must

- sit in a ``<figure>`` whose caption starts with its number, "Figure N.k", N the chapter;
- carry alt text that describes it (``tests/_figures.py``: a sentence, not a file name or hash);
- be cited in the text: a link "Figure N.k" to the figure's anchor ({numref});
- be crisp on a screen of device pixel ratio 2: an SVG, or a PNG of at least twice as many
  pixels as the CSS px it is shown at (a widget's frames are drawn at ``FRAME_DPI``);
- be shown at its natural size, not shrunk into the column, so that text drawn at the book's
  smallest figure font (``attnlib.viz._style.MIN_PT``) is at least as large on the page as the
  body text.

At a 390 x 844 phone viewport the same figures, and the frames of the widgets, shrink to the
column; their smallest text must stay at ``PHONE_MIN_PX`` (9 CSS px) or more.

The text size is ``MIN_PT / 72`` inches of the figure times its CSS px per inch as shown:
``shown / natural * ppi``, where ``ppi`` is 96 for an SVG (the size a browser gives it) and
``FRAME_DPI`` for a widget's frame. The sizes go to ``_build/screenshots/figures.txt`` and
``figures-phone.txt``, and a screenshot of each figure to ``_build/screenshots/figures/`` (desktop)
and ``figures-phone/``. Skipped like ``test_book_browser.py`` when the book is not built or Chromium
is missing, except under ``BOOK_HTML_TESTS=required``.
"""

from __future__ import annotations

import re

import pytest
from _browser import OPEN_SIDE_PATHS, SHOTS
from _figures import alt_problem
from _site import is_chapter, toc_docnames

from attnlib.viz._style import DPI, FRAME_DPI, MIN_PT, PHONE_MIN_PX

pytestmark = [pytest.mark.slow, pytest.mark.browser]

CHAPTERS = [d for d in toc_docnames() if is_chapter(d)]

MEASURE = r"""() => {
  const body = parseFloat(getComputedStyle(document.querySelector("main p") || document.body).fontSize);
  const describe = (img, k) => {
    const figure = img.closest("figure");
    const caption = figure ? figure.querySelector("figcaption") : null;
    const column = img.closest(".cell_output").getBoundingClientRect().width;
    const id = figure ? figure.id : "";
    const cited = id ? [...document.querySelectorAll(`a[href="#${id}"]`)]
                        .filter(a => !a.closest("figure")).map(a => a.textContent.trim()) : [];
    const src = img.getAttribute("src") || "";
    return {k, src: src.startsWith("blob:") ? "frame" : src, alt: img.getAttribute("alt"), natural: img.naturalWidth,
            shown: img.getBoundingClientRect().width, column, id, cited,
            svg: /\.svg$/i.test(src), frame: !!img.closest(".jupyter-widgets"),
            caption: caption ? caption.textContent.replace(/\s+/g, " ").trim() : null};
  };
  // a widget's frames are not chapter figures: the static figure above it is (its frames carry
  // their own alt text, and tests/test_book_browser_widgets.py checks them); the visible frame of
  // each widget is measured for its sharpness and text size
  const images = [...document.querySelectorAll(".cell_output img")]
    .filter(img => !img.closest(".jupyter-widgets") && !img.src.startsWith("blob:"));
  const frames = [...document.querySelectorAll(".attnlib-frames img")]
    .filter(img => img.offsetParent !== null && img.naturalWidth > 0);
  return {body, images: images.map(describe), frames: frames.map(describe)};
}"""


def text_px(image: dict) -> float:
    """CSS px of MIN_PT text in the image as shown (96 px per inch of an SVG; FRAME_DPI for a frame)."""
    ppi = FRAME_DPI if image["frame"] else DPI
    return MIN_PT / 72 * ppi * image["shown"] / max(image["natural"], 1)


def crisp(image: dict) -> bool:
    """Sharp at device pixel ratio 2: vector, or at least two image pixels per CSS px."""
    return image["svg"] or image["natural"] >= 2 * image["shown"] - 1


def figure_problems(image: dict, body: float, *, phone: bool) -> list[str]:
    """What is wrong with one image as shown: soft at 2x, shrunk on the desktop, text too small."""
    where = f"{'frame' if image['frame'] else 'image'} {image['k'] + 1} ({image['src'][-40:]})"
    found = []
    if not crisp(image):
        found.append(f"{where}: a {image['natural']} px raster shown at {image['shown']:.0f} px is soft at "
                     "device pixel ratio 2 (draw it as SVG, or at twice the pixels)")
    px = text_px(image)
    if phone and px < PHONE_MIN_PX - 0.05:  # side paths too: on a phone their boxes give the column
        found.append(f"{where}: on a phone its {MIN_PT} pt text is {px:.1f} CSS px, below {PHONE_MIN_PX:g}")
    if not phone and not image["frame"]:
        natural_css = image["natural"] if image["svg"] else image["natural"] * DPI / FRAME_DPI
        if image["shown"] < natural_css - 0.5:
            found.append(f"{where}: {natural_css:.0f} px wide, shown at {image['shown']:.0f} px in a "
                         f"{image['column']:.0f} px column: its smallest text is {px:.1f} px")
        elif px < body - 0.5:
            found.append(f"{where}: figure text renders at {px:.1f} px, below the body's {body:.0f} px")
    return found


def test_the_figure_checks_can_fail():
    svg = {"k": 0, "src": "a.svg", "svg": True, "frame": False, "natural": 576, "shown": 576, "column": 672}
    assert figure_problems(svg, 16, phone=False) == []
    assert figure_problems({**svg, "shown": 342}, 16, phone=True) == []          # 9.5 px on a phone
    assert any("below 9" in p for p in figure_problems({**svg, "shown": 274}, 16, phone=True))  # a side path's old box
    old = {**svg, "src": "a.png", "svg": False, "natural": 651, "shown": 651}    # the old 1x PNGs
    assert any("soft" in p for p in figure_problems(old, 16, phone=False))
    assert any("below 9" in p for p in figure_problems({**svg, "natural": 640, "shown": 342}, 16, phone=True))
    frame = {**svg, "src": "frame", "svg": False, "frame": True, "natural": 1152, "shown": 576}
    assert figure_problems(frame, 16, phone=False) == []
    assert figure_problems({**frame, "shown": 358}, 16, phone=True) == []
    assert any("soft" in p for p in figure_problems({**frame, "natural": 640, "shown": 640}, 16, phone=False))


@pytest.fixture(scope="session")
def sizes():
    rows: dict[str, list[str]] = {"desktop": [], "phone": []}
    yield rows
    SHOTS.mkdir(parents=True, exist_ok=True)
    for name, header in (("desktop", "a 1280 px window"), ("phone", "a 390 px phone")):
        text = [f"chapter figures and visible widget frames at {header}: natural and shown width (px), column "
                f"width, and the size on the page of {MIN_PT} pt figure text (CSS px)", *rows[name]]
        (SHOTS / ("figures.txt" if name == "desktop" else "figures-phone.txt")).write_text("\n".join(text) + "\n")


def _measure(pages, docname, *, phone: bool):
    page = pages.visit(docname, phone=phone).page
    folder = SHOTS / ("figures-phone" if phone else "figures")
    folder.mkdir(parents=True, exist_ok=True)
    page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
    if page.locator(".cell_output script[type*=widget-view]").count():
        try:  # the widgets' frames, drawn by the manager
            page.wait_for_selector(".attnlib-frames img", timeout=30_000)
        except Exception:  # noqa: BLE001 (the widget test reports a widget that never draws)
            pass
    page.evaluate(OPEN_SIDE_PATHS)  # figures in the folded boxes for readers of the paper are measured too
    page.wait_for_timeout(300)
    info = page.evaluate(MEASURE)
    info["light_captions"] = page.evaluate(
        "() => [...document.querySelectorAll('main figure figcaption')]"
        ".filter(c => Number(getComputedStyle(c).fontWeight) < 400).map(c => c.textContent.trim().slice(0, 40))")
    figures = page.locator(".cell_output figure")
    for k in range(figures.count()):
        figures.nth(k).screenshot(path=str(folder / f"{docname.split('/')[-1]}-{k + 1}.png"))
    return info


def _record(sizes, key, docname, image):
    label = (image["caption"] or "widget frame")[:12]
    sizes[key].append(f"{docname.split('/')[-1]:22} {label:12} natural {image['natural']:4d}  shown "
                      f"{image['shown']:6.1f}  column {image['column']:6.1f}  {'svg' if image['svg'] else 'png'}  "
                      f"{MIN_PT} pt -> {text_px(image):4.1f} px")


@pytest.mark.parametrize("docname", CHAPTERS)
def test_chapter_figures_are_numbered_described_cited_crisp_and_legible(docname, pages, sizes):  # noqa: F811
    chapter = int(re.search(r"ch(\d\d)", docname).group(1))
    info = _measure(pages, docname, phone=False)
    problems = []
    for image in info["images"]:
        _record(sizes, "desktop", docname, image)
        where = f"image {image['k'] + 1} ({image['src']})"
        number = re.match(rf"Figure ({chapter}\.\d+)\.? \S", image["caption"] or "")
        if not number:
            problems.append(f"{where}: not in a figure captioned 'Figure {chapter}.k ...': {image['caption']!r}")
        elif f"Figure {number.group(1)}" not in image["cited"]:
            problems.append(f"{where}: the text never cites Figure {number.group(1)} (links: {image['cited']})")
        if problem := alt_problem(image["alt"]):
            problems.append(f"{where}: {problem}")
        problems += figure_problems(image, info["body"], phone=False)
    for frame in info["frames"]:
        _record(sizes, "desktop", docname, frame)
        problems += figure_problems(frame, info["body"], phone=False)
    problems += [f"caption set lighter than the text (font weight under 400): {c!r}" for c in info["light_captions"]]
    assert not problems, f"{docname}:\n  " + "\n  ".join(problems)


@pytest.mark.parametrize("docname", CHAPTERS)
def test_chapter_figures_read_on_a_phone(docname, pages, sizes):  # noqa: F811
    info = _measure(pages, docname, phone=True)
    problems = []
    for image in [*info["images"], *info["frames"]]:
        _record(sizes, "phone", docname, image)
        problems += figure_problems(image, info["body"], phone=True)
    assert info["images"], f"{docname}: no figure measured on the phone"
    assert not problems, f"{docname}:\n  " + "\n  ".join(problems)
