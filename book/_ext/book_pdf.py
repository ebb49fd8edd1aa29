"""The PDF edition (``jupyter-book build . --builder pdflatex``, run by ``scripts/book_pdf.py``).

Loaded through ``_config.yml`` for every build; each part acts only where it belongs:

- Widgets (LaTeX builder). An interactive output cannot be printed. myst-nb would fall back to
  its ``text/plain`` form (``interactive(children=(FloatSlider(...``), so every output bundle
  that :func:`is_widget_output` recognises (an ipywidgets view, or HTML that needs a script,
  such as a precomputed-frames player) is replaced by a one-line note that points to the page
  of the web edition. The static figure the chapter draws above each widget is an ordinary
  image output and stays. ``tests/test_book_pdf.py`` counts figures with the same function.
- Solutions (LaTeX builder, full edition). They move out of the chapters into an appendix
  "Solutions to the exercises", each under a heading naming its exercise, so a printed
  chapter does not give its answers away on the same page. The student edition has none
  (``hide_solutions``).
- Download button (HTML builder). The theme's download menu gets a "Book (PDF)" entry that
  points at ``book_pdf_name`` at the root of the site, where ``scripts/book_pdf.py`` copies the
  built PDF.
"""

from __future__ import annotations

import re
from typing import Any

from docutils import nodes
from sphinx.transforms.post_transforms import SphinxPostTransform

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


def is_widget_output(data: dict[str, Any]) -> bool:
    """Whether a notebook output's mime bundle is interactive (a widget), not a static figure.

    ``data`` maps mime types to content (an output's ``data``). A widget view, any other
    ``application/vnd.jupyter.widget*`` type, or HTML that carries a ``<script>`` (a JavaScript
    player of precomputed frames) counts as interactive.
    """
    if any(mime.startswith("application/vnd.jupyter.widget") for mime in data):
        return True
    html = data.get("text/html", "")
    html = "".join(html) if isinstance(html, list) else str(html)
    return bool(re.search(r"<script\b", html, re.I))


def web_url(config) -> str:
    """The web edition's address: ``html_baseurl``, or the GitHub Pages site of the repository."""
    base = (getattr(config, "html_baseurl", "") or "").strip()
    if base:
        return base.rstrip("/") + "/"
    repo = (config.html_theme_options or {}).get("repository_url", "")
    match = re.match(r"https?://github\.com/([^/]+)/([^/#?]+)", repo or "")
    if match:
        return f"https://{match.group(1)}.github.io/{match.group(2)}/"
    return ""


class DropWidgetOutputs(SphinxPostTransform):
    """Replace interactive output bundles by a note pointing to the web edition (LaTeX only)."""

    default_priority = 3  # before myst-nb's SelectMimeType (4) picks text/plain for them
    builders = ("latex",)

    def run(self, **kwargs: Any) -> None:
        for bundle in list(self.document.findall(nodes.container)):
            if bundle.get("nb_element") != "mime_bundle":
                continue
            mimes = {child.get("mime_type", ""): child.astext() for child in bundle.children}
            if not is_widget_output(mimes):
                continue
            docname = self.env.docname if hasattr(self.env, "docname") else ""
            source = bundle.get("source") or ""
            match = re.search(r"(book/[^/\s]+?)\.(ipynb|md)", str(source))
            page = match.group(1) if match else docname
            url = web_url(self.config)
            note = nodes.paragraph(classes=["widget-note"])
            note += nodes.emphasis(text="Interactive figure: move its controls in the web edition")
            if url and page:
                target = f"{url}{page}.html"
                note += nodes.Text(", ")
                note += nodes.reference(target, target, refuri=target)
            note += nodes.Text(". The figure above shows its default setting.")
            bundle.replace_self(note)


class SolutionsToAppendix(SphinxPostTransform):
    """Move every solution into a closing appendix chapter (LaTeX, one assembled document)."""

    default_priority = 5
    builders = ("latex",)

    def run(self, **kwargs: Any) -> None:
        solutions = [n for n in self.document.findall(nodes.Element)
                     if type(n).__name__ in ("solution_node", "SolutionNode")]
        if not solutions or self.document.get("book_pdf_solutions_moved"):
            return
        # Only the assembled book (the LaTeX builder's single tree) has a bibliography chapter
        # or many chapters; a page on its own keeps its solutions in place.
        sections = [s for s in self.document.children if isinstance(s, nodes.section)]
        if not sections:
            return
        self.document["book_pdf_solutions_moved"] = True
        appendix = nodes.section(ids=["book-pdf-solutions"], names=["solutions to the exercises"])
        appendix += nodes.title(text="Solutions to the exercises")
        appendix += nodes.paragraph(text=(
            "The solutions of every chapter's exercises, in the order of the book. The student "
            "edition leaves them out."))
        for solution in solutions:
            solution.parent.remove(solution)
            appendix += solution
        sections[-1].parent.insert(sections[-1].parent.index(sections[-1]), appendix)


def add_pdf_download(app, pagename, templatename, context, doctree) -> None:
    """Add the book's PDF to the theme's download menu."""
    name = app.config.book_pdf_name
    if not name:
        return
    for button in context.get("header_buttons", []):
        if button.get("label") == "download-buttons":
            button["buttons"].append({
                "type": "link",
                "url": context["pathto"](name, 1),
                "text": "Book (PDF)",
                "tooltip": "Download the whole book as one PDF",
                "icon": "fas fa-book",
                "label": "download-book-pdf-button",
            })


def setup(app):
    app.add_config_value("book_pdf_name", "learning-attention-provably.pdf", "html")
    app.add_post_transform(DropWidgetOutputs)
    app.connect("html-page-context", add_pdf_download, priority=502)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
