"""The PDF edition (``jupyter-book build . --builder pdflatex``, run by ``scripts/book_pdf.py``).

Loaded through ``_config.yml`` for every build; each part acts only where it belongs:

- Widgets (LaTeX builder). An interactive output cannot be printed. myst-nb would fall back to
  its ``text/plain`` form (``interactive(children=(FloatSlider(...``), so every output bundle
  that :func:`is_widget_output` recognises (an ipywidgets view, or HTML that needs a script,
  such as a precomputed-frames player) is replaced by a one-line note that points to the page
  of the web edition. The static figure a chapter draws above a widget is an ordinary
  image output and stays (not every widget has one: chapter 11 reuses chapter 10's).
  ``tests/test_book_pdf.py`` counts figures with the same function.
- Solutions (LaTeX builder, full edition). They move out of the chapters into an appendix
  "Solutions to the exercises", each under a heading naming its exercise, so a printed
  chapter does not give its answers away on the same page. The student edition has none
  (``hide_solutions``).
- Warning boxes (LaTeX builder). A generic admonition with ``:class: warning`` prints as a
  warning, not as a note (Part III's reconstruction notices).
- Download button (HTML builder). The theme's download menu gets a "Book (PDF)" entry that
  points at ``book_pdf_name`` at the root of the site, where ``scripts/book_pdf.py`` copies the
  built PDF.
"""

from __future__ import annotations

import re
from typing import Any

from docutils import nodes
from sphinx import addnodes
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
        where = _docnames(self.document)
        for bundle in list(self.document.findall(nodes.container)):
            if bundle.get("nb_element") != "mime_bundle":
                continue
            mimes = {child.get("mime_type", ""): child.astext() for child in bundle.children}
            if not is_widget_output(mimes):
                continue
            page = where.get(id(bundle), "")  # the chapter's file scope in the assembled book
            url = web_url(self.config)
            note = nodes.paragraph(classes=["widget-note"])
            note += nodes.emphasis(text="Interactive figure: move its controls in the web edition")
            if url and page:
                target = f"{url}{page}.html"
                note += nodes.Text(", ")
                note += nodes.reference(target, target, refuri=target)
            note += nodes.Text(".")
            bundle.replace_self(note)


class BookStructure(SphinxPostTransform):
    """Shape the assembled book (LaTeX): part titles, appendices, and the solutions appendix.

    Runs on the single tree the LaTeX builder assembles, after sphinx-jupyterbook-latex (700)
    has turned the toc's captions into part sections. The captions say "Part I: ..." and the
    class prints "Part I" above them, so the prefix goes; ``\\appendix`` goes before the
    "Appendices" part, so its chapters are lettered; and every solution moves out of its
    chapter into a closing appendix "Solutions to the exercises" (the student edition has none).
    """

    default_priority = 710
    builders = ("latex",)

    def run(self, **kwargs: Any) -> None:
        parts = [s for s in self.document.findall(nodes.section)
                 if isinstance(s.parent, addnodes.start_of_file) and s.parent.get("docname") == s.get("docname")
                 and s.children and isinstance(s.children[0], nodes.title)
                 and s.get("docname") == s.children[0].astext()]
        if not parts:
            return
        appendix_part = None
        for part in parts:
            title = part.children[0]
            text = title.astext()
            if text.strip().lower() in ("appendices", "appendix"):
                appendix_part = part
                holder = part.parent.parent
                holder.parent.insert(holder.parent.index(holder),
                                     nodes.raw("", "\\appendix\n", format="latex"))
            short = re.sub(r"^Part\s+[IVXLC\d]+\s*[:.]\s*", "", text)
            if short != text:
                title.children = [nodes.Text(short)]
        where = _docnames(self.document)
        self.label_exercises(where)
        solutions = [n for n in self.document.findall(nodes.Element) if type(n).__name__ == "solution_node"]
        if not solutions or appendix_part is None:
            return
        chapter = nodes.section(ids=["book-pdf-solutions"], names=["solutions to the exercises"])
        chapter += nodes.title(text="Solutions to the exercises")
        chapter += nodes.paragraph(text=(
            "The solutions to every chapter's exercises, in the order of the book; each names its "
            "exercise. The student edition of the book leaves them out."))
        for solution in solutions:
            # Kept inside its chapter's file scope, so its links to that chapter still resolve.
            scope = addnodes.start_of_file(docname=where.get(id(solution), ""))
            solution.parent.remove(solution)
            scope += solution
            chapter += scope
        appendix_part += chapter

    def label_exercises(self, where: dict[int, str]) -> None:
        """Give each numbered exercise the LaTeX label that references to it use.

        sphinx-exercise 1.2.1 labels an exercise ``exercise:<label>`` but writes references as
        ``<docname>:<label>``, so "Exercise ??" stood wherever another page cites an exercise.
        """
        for node in list(self.document.findall(nodes.Element)):
            if type(node).__name__ != "exercise_enumerable_node" or not node.get("label"):
                continue
            titles = [c for c in node.children if isinstance(c, nodes.title)]
            number = re.search(r"Exercise\s+(\d+(?:\.\d+)*)", titles[0].astext() if titles else "")
            label = f"{where.get(id(node), '')}:{node['label']}"
            text = number.group(1) if number else ""
            raw = (f"{{\\phantomsection\\expandafter\\def\\csname @currentlabel\\endcsname{{{text}}}"
                   f"\\label{{\\detokenize{{{label}}}}}}}\n")
            node.parent.insert(node.parent.index(node), nodes.raw("", raw, format="latex"))


def _docnames(document) -> dict[int, str]:
    """id(node) -> the page each node of the assembled book came from.

    Found by walking down from the root along ``children`` (what the LaTeX writer follows):
    sphinx-jupyterbook-latex re-creates some nodes, and their descendants' ``parent`` links
    then lead to a detached copy, not to the ``start_of_file`` the node sits in.
    """
    found: dict[int, str] = {}

    def walk(element, docname):
        if isinstance(element, addnodes.start_of_file):
            docname = element.get("docname", docname)
        found[id(element)] = docname
        for child in getattr(element, "children", ()):
            walk(child, docname)

    walk(document, "")
    return found


#: Classes of a generic ``{admonition}`` that Sphinx's LaTeX writer can style as their own kind.
_KINDS = ("warning", "caution", "danger", "attention", "important", "error", "hint", "tip")


#: A box with this title holds a chapter's table of symbols, which may be longer than what is left of a page.
SYMBOLS_TITLE = "Symbols in this chapter"
#: The share of the text width each column of the symbols table gets (symbol, meaning).
SYMBOLS_COLUMNS = (28, 72)


def _unboxed(node) -> bool:
    """Whether an admonition prints as a titled paragraph with a table that breaks across pages, not as a box.

    A table inside a box cannot break across pages in LaTeX, so a chapter's symbols table ran into the foot of
    its first page. Printed outside a box, as a longtable with set column widths, it continues on the next.
    """
    title = node.next_node(nodes.title)
    return title is not None and title.astext().strip() == SYMBOLS_TITLE and bool(list(node.findall(nodes.table)))


def visit_admonition(self, node) -> None:
    """A generic admonition in LaTeX, typed by its class (Sphinx always types it "note").

    Part III's ":class: warning" boxes ("the book's reconstruction of the idea") then print in
    the warning style set by ``sphinxsetup`` in ``_config.yml``, distinct from notes. A chapter's
    symbols table prints unboxed, so that it can break across pages (:func:`_unboxed`).
    """
    if _unboxed(node):
        for table in node.findall(nodes.table):
            table["classes"] = [*table.get("classes", []), "longtable", "colwidths-given"]
            for colspec, width in zip(table.findall(nodes.colspec), SYMBOLS_COLUMNS, strict=False):
                colspec["colwidth"] = width
        self.body.append("\n\\par\\medskip\\noindent\\sphinxstyletopictitle")  # the title follows as {...}
        return
    kind = next((c for c in node.get("classes", []) if c in _KINDS), "note")
    self.body.append(f"\n\\begin{{sphinxadmonition}}{{{kind}}}")
    self.no_latex_floats += 1
    if self.table:
        self.table.has_problematic = True


def depart_admonition(self, node) -> None:
    if _unboxed(node):
        self.body.append("\\par\\medskip\n")
        return
    self.body.append("\\end{sphinxadmonition}\n")
    self.no_latex_floats -= 1


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
    app.add_post_transform(BookStructure)
    app.add_node(nodes.admonition, override=True, latex=(visit_admonition, depart_admonition))
    app.connect("html-page-context", add_pdf_download, priority=502)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
