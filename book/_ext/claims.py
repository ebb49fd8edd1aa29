"""The claims index: every statement of the book, its source and the cells that witness it.

Loaded through ``_config.yml``. Three parts:

- **Two options for every ``prf`` directive.** ``:source:`` says where a statement comes from
  (``ours``, ``reconstruction``, ``standard``, or a text with a ``{cite}`` role and the place, e.g.
  ``Lemma A.3 of {cite:t}`yau2025linear```); ``:no-witness: <reason>`` says, in one line, why a
  statement has no witness cell (a definition, an identity proved in the text). sphinx-proof
  0.4.0 ignores options it does not know only if they are declared, so they are added to its
  directives' ``option_spec``; they change nothing on the statement's own page.
- **Anchors on witness cells.** A code cell tagged ``witness:<label>`` gets the label
  ``witness-<chapter>-<cell>`` (a target at the start of the cell), so the index links to it in
  the HTML and in the PDF.
- **The** ``claims-index`` **directive** (on ``book/claims.md``) reads every page of the table
  of contents with ``prose.py`` (the parser the tests use), and lists per chapter each
  statement with a link to it, its source and links to its witnesses, or its reason for having
  none. It is built at build time from the chapters' sources, so it cannot go stale.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml
from docutils import nodes
from docutils.statemachine import StringList
from sphinx.transforms import SphinxTransform
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

try:  # loaded by Sphinx as a local extension (book/_ext on sys.path)
    import prose
except ImportError:  # imported as book._ext.claims
    from . import prose

ROOT = Path(__file__).resolve().parents[2]


def witness_label(page: str, cell: int) -> str:
    """The label of the anchor on a witness cell, e.g. ``witness-ch08-sculpting-13``."""
    return f"witness-{Path(page).name.replace('_', '-')}-{cell}".lower()


def chapter_numbers(root: Path) -> dict[str, int]:
    """The number of each chapter of a numbered part of ``_toc.yml`` ("book/ch05_certificate" -> 5)."""
    toc = yaml.safe_load((root / "_toc.yml").read_text())
    numbered = [c["file"] for part in toc.get("parts", []) if part.get("numbered") for c in part.get("chapters", [])]
    return {f: k for k, f in enumerate(numbered, start=1)}


def toc_pages(root: Path) -> list[Path]:
    """The chapter notebooks and markdown pages of ``_toc.yml``, in reading order."""
    toc = yaml.safe_load((root / "_toc.yml").read_text())
    files = [toc["root"]] + [c["file"] for part in toc.get("parts", []) for c in part.get("chapters", [])]
    pages = []
    for f in files:
        for suffix in (".ipynb", ".md"):
            if (root / f"{f}{suffix}").exists():
                pages.append(root / f"{f}{suffix}")
                break
    return pages


# --------------------------------------------------------------------------- witness anchors


class WitnessAnchors(SphinxTransform):
    """A target at the start of every witness cell, registered as an explicit label."""

    default_priority = 200

    def apply(self) -> None:
        docname = self.env.docname
        for cell in self.document.findall(nodes.container):
            if cell.get("nb_element") != "cell_code":
                continue
            tags = cell.get("cell_metadata", {}).get("tags", [])
            if not any(t.startswith(prose.WITNESS_TAG) for t in tags):
                continue
            name = witness_label(docname, cell["cell_index"])
            target = nodes.target("", "", ids=[name], names=[name])
            self.document.note_explicit_target(target, target)
            cell.insert(0, target)


# --------------------------------------------------------------------------- the index


def _printed_lines(page: prose.Page, cell: int) -> list[str]:
    """The non-blank lines a cell printed, across all its stdout outputs."""
    c = json.loads(page.path.read_text())["cells"][cell]
    text = "".join("".join(o["text"]) for o in c.get("outputs", []) if o.get("name") == "stdout")
    return [line for line in text.splitlines() if line.strip()]


def is_table_header(line: str, following: str | None) -> bool:
    """Whether a printed line heads a table: three or more columns (gaps of two or more spaces), and the next
    line has as many columns, one of them a number. Such a line says nothing as a witness's label."""
    columns = re.split(r"\s{2,}", line.strip())
    if len(columns) < 3 or following is None:
        return False
    below = re.split(r"\s{2,}", following.strip())
    return len(below) == len(columns) and any(re.fullmatch(r"[-+]?[\d.]+(e[-+]?\d+)?", c) for c in below)


def _first_line(page: prose.Page, cell: int) -> str:
    """What a reader sees of a witness cell: its first printed line, else its first code line."""
    printed = _printed_lines(page, cell)
    if printed:
        return printed[0]
    c = json.loads(page.path.read_text())["cells"][cell]
    code = [line for line in "".join(c["source"]).splitlines() if line.strip() and not line.startswith("#")]
    return code[0] if code else f"cell {cell}"


def _link_text(text: str, limit: int = 64) -> str:
    text = " ".join(text.split()).rstrip(":")
    if len(text) > limit:
        text = text[: limit - 1].rsplit(" ", 1)[0] + "…"
    # the text of a {ref} role: no backticks, no angle brackets
    for a, b in (("<=", "≤"), (">=", "≥"), ("->", "→"), ("`", "'"), ("<", "‹"), (">", "›")):
        text = text.replace(a, b)
    return text


def chapter_title(page: prose.Page) -> str:
    for _, text in page.markdown:
        for line in text.splitlines():
            if line.startswith("# "):
                return line[2:].strip()
    return page.name


def _entries(root: Path):
    """(pages, {label: witnesses}) of the table of contents."""
    pages = [prose.read_page(p, root) for p in toc_pages(root)]
    by_label: dict[str, list[prose.Witness]] = {}
    for page in pages:
        for w in prose.witnesses(page):
            by_label.setdefault(w.label, []).append(w)
    return pages, by_label


def index_markdown(root: Path) -> tuple[str, list[Path]]:
    """The MyST source of the index (a section per chapter), and the files it was read from."""
    pages, by_label = _entries(root)
    pages_by_name = {p.name: p for p in pages}
    numbers = chapter_numbers(root)
    lines = []
    for page in pages:
        found = prose.statements(page)
        if not found:
            continue
        number = f"{numbers[page.name]}. " if page.name in numbers else ""
        lines += [f"## {number}{chapter_title(page)}", ""]
        for s in found:
            source = prose.source_kind(s.source) or "**source not stated**"
            ws = by_label.get(s.label, [])
            if ws:
                links = ", ".join(
                    f"{{ref}}`{_link_text(_first_line(pages_by_name[w.page], w.cell))} "
                    f"<{witness_label(w.page, w.cell)}>`" for w in ws)
                evidence = f"Witnessed by: {links}."
            elif s.no_witness:
                evidence = f"No witness: {s.no_witness.rstrip('.')}."
            else:
                evidence = "**No witness and no reason.**"
            title = f" *{s.title}*" if s.title else ""
            lines.append(f"- {{prf:ref}}`{s.label}`{title}. Source: {source}. {evidence}")
        lines.append("")
    return "\n".join(lines), [p.path for p in pages]


def summary_markdown(root: Path) -> tuple[str, list[Path]]:
    """A table: per chapter, its statements, how many are witnessed, how many say why not."""
    pages, by_label = _entries(root)
    numbers = chapter_numbers(root)
    rows, totals = [], [0, 0, 0]
    for page in pages:
        found = prose.statements(page)
        if not found:
            continue
        counts = [len(found), sum(1 for s in found if by_label.get(s.label)),
                  sum(1 for s in found if not by_label.get(s.label) and s.no_witness)]
        totals = [a + b for a, b in zip(totals, counts, strict=True)]
        number = f"{numbers[page.name]}. " if page.name in numbers else ""
        rows.append(f"| {number}{chapter_title(page)} | {counts[0]} | {counts[1]} | {counts[2]} |")
    head = ["| chapter | statements | witnessed | no witness, with a reason |", "|---|---|---|---|"]
    foot = [f"| **all** | **{totals[0]}** | **{totals[1]}** | **{totals[2]}** |"]
    return "\n".join(head + rows + foot), [p.path for p in pages]


class ClaimsIndex(SphinxDirective):
    """``claims-index``: every statement of the book, built from the chapters' sources.

    With the flag ``:summary:``, a table of counts per chapter instead of the list.
    """

    has_content = False
    option_spec = {"summary": lambda value: True}

    def run(self) -> list[nodes.Node]:
        root = Path(self.env.srcdir)
        make = summary_markdown if "summary" in self.options else index_markdown
        text, files = make(root)
        for f in files:
            self.env.note_dependency(str(f))
        container = nodes.container(classes=["claims-index"])
        nested_parse_with_titles(self.state, StringList(text.splitlines(), source="claims-index"), container)
        return container.children


def setup(app):
    from sphinx_proof.directive import ElementDirective

    ElementDirective.option_spec = {
        **ElementDirective.option_spec,
        "source": lambda value: (value or "").strip(),
        "no-witness": lambda value: (value or "").strip(),
    }
    app.add_transform(WitnessAnchors)
    app.add_directive("claims-index", ClaimsIndex)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
