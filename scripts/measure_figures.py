"""Measure the chapter figures of a built book as a reader's browser shows them.

    python scripts/measure_figures.py [_build/html] [--width 1280]

For every image in a chapter's cell outputs (the figures, and each widget's visible frame) it
prints the page, the image's natural and rendered width in CSS px, the width of the text column,
the scale (rendered / natural), and the size in px at which text drawn at the book's smallest
figure font (``attnlib.viz._style.MIN_PT``) lands on the page: ``pt * ppi / 72 * scale``, where
``ppi`` is the image's pixels per inch of the figure: 96 for an SVG (the size a browser gives it),
``attnlib.viz._style.FRAME_DPI`` for a widget's frame, ``--dpi`` for any other raster. It also
prints the numbered caption and the alt text, if any. Use ``--width 390`` for a phone. Chromium at
``/usr/bin/chromium`` (or ``$CHROMIUM``) is driven by Playwright; the site is served on localhost and
outside hosts are blocked.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MEASURE = r"""() => {
  const column = document.querySelector("main .bd-article, main article, main");
  const out = [];
  for (const img of document.querySelectorAll(".cell_output img, .output img")) {
    if (img.offsetParent === null || img.naturalWidth === 0) continue;  // a hidden frame of a widget
    const fig = img.closest("figure");
    const cap = fig ? fig.querySelector("figcaption") : null;
    out.push({src: img.getAttribute("src"), natural: img.naturalWidth, rendered: img.getBoundingClientRect().width,
              frame: !!img.closest(".jupyter-widgets"),
              column: column.getBoundingClientRect().width, alt: img.getAttribute("alt") || "",
              caption: cap ? cap.textContent.trim().replace(/\s+/g, " ") : null});
  }
  return out;
}"""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("html", nargs="?", default=str(ROOT / "_build" / "html"))
    parser.add_argument("--width", type=int, default=1280, help="browser viewport width in CSS px")
    parser.add_argument("--pt", type=float, default=None,
                        help="font size in pt to convert (default attnlib.viz._style.MIN_PT, else 10)")
    parser.add_argument("--dpi", type=float, default=96.0, help="pixels per inch of a raster that is not a frame")
    args = parser.parse_args(argv)
    pt = args.pt
    if pt is None:
        try:
            sys.path.insert(0, str(ROOT))
            from attnlib.viz._style import MIN_PT as pt
        except ImportError:
            pt = 10.0
    try:
        from attnlib.viz._style import FRAME_DPI
    except ImportError:
        FRAME_DPI = 192.0
    html = Path(args.html).resolve()
    pages = sorted(html.glob("book/ch*.html"))
    if not pages:
        print(f"no chapter pages under {html}", file=sys.stderr)
        return 2

    from playwright.sync_api import sync_playwright

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Quiet, directory=str(html)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    chromium = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    smallest = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=["--headless", "--no-sandbox", "--disable-gpu"])
        context = browser.new_context(viewport={"width": args.width, "height": 900})
        context.route("**/*", lambda r: r.continue_() if r.request.url.startswith(base) else r.abort())
        print(f"{'page':22} {'natural':>7} {'shown':>6} {'column':>6} {'scale':>5} {pt:g}pt->px  caption / alt")
        for path in pages:
            page = context.new_page()
            page.goto(base + str(path.relative_to(html)), wait_until="load")
            page.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
            page.wait_for_timeout(1500)  # the widget manager draws the frames
            for row in page.evaluate(MEASURE):
                scale = row["rendered"] / max(row["natural"], 1)
                ppi = 96.0 if (row["src"] or "").endswith(".svg") else FRAME_DPI if row["frame"] else args.dpi
                px = pt * ppi / 72 * scale
                smallest.append(px)
                print(f"{path.stem:22} {row['natural']:7d} {row['rendered']:6.0f} {row['column']:6.0f} "
                      f"{scale:5.2f} {px:8.1f}  {(row['caption'] or '(no caption)')[:60]!s}")
                print(f"{'':22} alt: {row['alt'][:100]!r}")
            page.close()
        browser.close()
    server.shutdown()
    print(f"\n{len(smallest)} images; {pt:g} pt figure text renders at "
          f"{min(smallest):.1f}-{max(smallest):.1f} px (median {sorted(smallest)[len(smallest) // 2]:.1f})")
    return 0


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


if __name__ == "__main__":
    sys.exit(main())
