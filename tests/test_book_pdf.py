"""The PDF edition as a reader gets it: read back from the built PDF with poppler's tools.

Needs ``_build/latex/book.pdf`` from ``python scripts/book_pdf.py`` (and, for the student
edition, ``_build/student/_build/latex/book.pdf`` from ``python scripts/book_pdf.py --student``)
and poppler-utils (``pdftotext``, ``pdfinfo``, ``pdfimages``, ``pdftoppm``; installed by
``scripts/install_latex.sh``). Without them the tests are skipped with a message saying so,
except under ``BOOK_HTML_TESTS=required`` (CI), where that is a failure.

The first page of every chapter is rendered to ``_build/screenshots/pdf/`` for a person to look at.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest
from _site import HTML, ROOT, is_chapter, skip_or_fail, source, toc_docnames, toc_top_docnames

sys.path.insert(0, str(ROOT / "book" / "_ext"))
from book_pdf import is_widget_output  # noqa: E402

PDF = ROOT / "_build" / "latex" / "book.pdf"
LOG = ROOT / "_build" / "latex" / "book.log"
STUDENT_PDF = ROOT / "_build" / "student" / "_build" / "latex" / "book.pdf"
SHOTS = ROOT / "_build" / "screenshots" / "pdf"
TOOLS = ("pdftotext", "pdfinfo", "pdfimages", "pdftoppm")
PRF = re.compile(r"^(`{3,}|:{3,})\{prf:(\w+)\}[ \t]*([^\n]*)\n(?::label:[ \t]*(\S+))?", re.M)


def require_pdf(pdf: Path = PDF) -> None:
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        skip_or_fail(f"{', '.join(missing)} not found: install poppler-utils (bash scripts/install_latex.sh)")
    if not pdf.exists():
        flag = " --student" if pdf == STUDENT_PDF else ""
        skip_or_fail(f"no PDF at {pdf.relative_to(ROOT)}: build it with `python scripts/book_pdf.py{flag}`")
    stale = [d for d in toc_docnames() if source(d).stat().st_mtime > pdf.stat().st_mtime]
    if stale and pdf == PDF:
        skip_or_fail(f"{pdf.relative_to(ROOT)} is older than {source(stale[0]).relative_to(ROOT)}: rebuild it")


def run(*args: str) -> str:
    return subprocess.run(args, capture_output=True, text=True, check=True).stdout


@cache
def pages(pdf: Path = PDF) -> list[str]:
    """The text of each page (pdftotext separates pages by form feeds)."""
    return run("pdftotext", "-enc", "UTF-8", str(pdf), "-").split("\f")[:-1]


def squash(text: str) -> str:
    """Letters and digits only, lower case: immune to line breaks, hyphenation and spacing."""
    return re.sub(r"[^0-9a-z]+", "", text.lower())


def markdown(docname: str) -> str:
    path = source(docname)
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text())["cells"]
        return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    return path.read_text()


def title(docname: str) -> str:
    match = re.search(r"^#\s+(.+)$", markdown(docname), re.M)
    assert match, f"{docname} has no title"
    return match.group(1).strip()


def prose_words(text: str) -> list[str]:
    """The parts of a title outside its inline math and roles, squashed (math is typeset differently)."""
    text = re.sub(r"\$[^$]*\$|\{[\w:-]+\}`[^`]*`|`[^`]*`", "\0", text)
    return [s for s in (squash(part) for part in text.split("\0")) if len(s) >= 3]


def proof_directives() -> list[tuple[str, str, str, str]]:
    """(docname, kind, title, label) of every sphinx-proof directive in the toc's pages."""
    return [(d, kind, head, label or "") for d in toc_docnames()
            for _, kind, head, label in PRF.findall(markdown(d))]


def static_figures(docname: str) -> int:
    """Image outputs of a chapter a printed page can show: widget outputs are not counted."""
    count = 0
    for cell in json.loads(source(docname).read_text())["cells"]:
        tags = set(cell.get("metadata", {}).get("tags", []))
        if cell["cell_type"] != "code" or {"remove-output", "remove-cell"} & tags:
            continue
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if is_widget_output(data):
                continue
            if any(key in data for key in ("image/png", "image/jpeg", "image/svg+xml", "application/pdf")):
                count += 1
    return count


@cache
def first_pages() -> dict[str, int]:
    """docname -> 1-based page number where the chapter (or appendix) starts in the PDF."""
    found, start = {}, 0
    texts = [squash(p) for p in pages()]
    for docname in toc_top_docnames()[1:]:
        want = squash(title(docname))
        for number in range(start, len(texts)):
            # A chapter opens with "CHAPTER ONE" or "APPENDIX A", then its title.
            where = texts[number].find(want)
            if texts[number].startswith(("chapter", "appendix")) and 0 < where <= 20:
                found[docname] = number + 1
                start = number + 1
                break
    return found


def test_every_chapter_title_is_in_the_pdf():
    require_pdf()
    text = squash("".join(pages()))
    missing = [title(d) for d in toc_docnames() if squash(title(d)) not in text]
    assert not missing, f"chapter titles missing from the PDF: {missing}"


def test_every_chapter_opens_a_page_in_reading_order():
    require_pdf()
    found = first_pages()
    missing = [d for d in toc_top_docnames()[1:] if d not in found]
    assert not missing, f"no chapter-opening page found for {missing}"
    order = [found[d] for d in toc_top_docnames()[1:]]
    assert order == sorted(order), f"chapters out of order: {dict(zip(toc_top_docnames()[1:], order, strict=True))}"


def test_every_theorem_of_the_toc_is_typeset_with_its_title():
    require_pdf()
    directives = proof_directives()
    assert len(directives) >= 30, f"only {len(directives)} prf directives found in the sources"
    text = squash("".join(pages()))
    missing = [(d, label or head) for d, kind, head, label in directives
               if not all(word in text for word in prose_words(head))]
    assert not missing, f"theorem titles missing from the PDF: {missing[:10]}"
    # Each directive is typeset as an environment: its kind and number ("Lemma 5.2").
    typeset = len(re.findall(r"\b(?:Theorem|Lemma|Proposition|Definition|Algorithm|Corollary|Remark|"
                             r"Example|Conjecture|Criterion|Assumption|Axiom|Observation|Property|"
                             r"Proof|Note)\s+\d+\.\d+\b", "\n".join(pages())))
    assert typeset >= len(directives), f"{typeset} numbered environments for {len(directives)} directives"


INCLUDE = re.compile(r"\\sphinxincludegraphics(?:\[[^\]]*\])?\{\{?([^{}]+?)\}?(\.\w+)\}")


def test_every_static_figure_is_in_the_pdf_as_vector_graphics():
    """Each chapter figure is typeset from its PDF output (vector), none from a screen-resolution PNG."""
    require_pdf()
    want = sum(static_figures(d) for d in toc_docnames() if is_chapter(d))
    # and the figures of the other pages' markdown (the preface's chapter map)
    want += sum(len(re.findall(r"^(?:`{3,}|:{3,})\{figure\}", markdown(d), re.M)) for d in toc_docnames()
                if not is_chapter(d))
    includes = INCLUDE.findall((PDF.parent / "book.tex").read_text())
    assert want > 0
    assert len(includes) == want, f"{len(includes)} figures in the PDF, {want} static figures in the sources"
    raster = [name + ext for name, ext in includes if ext.lower() != ".pdf"]
    assert not raster, f"figures typeset from raster images, not vector PDF: {raster[:5]}"


def test_images_inside_the_figures_are_sharp_or_drawn_as_cells():
    """A raster inside a figure (a heat map) is at least 200 dpi, or a small matrix drawn cell by cell.

    ``pdfimages -list`` gives each image's resolution as placed on the page and whether viewers may
    interpolate it; a matrix of a few cells, shown large, is sharp only if they may not.
    """
    require_pdf()
    rows = [row.split() for row in run("pdfimages", "-list", str(PDF)).splitlines()[2:]]
    assert soft_images(rows) == [], f"images below 200 dpi (page, width, height, x-ppi, y-ppi): {soft_images(rows)[:5]}"


def soft_images(rows: list[list[str]], dpi: float = 200, cells: int = 256) -> list[tuple]:
    """Rows of ``pdfimages -list`` that are blurred or pixelated in print.

    A picture below ``dpi``, unless it is a matrix of at most ``cells`` cells a side that
    viewers may not interpolate (each cell a sharp square).
    """
    return [(r[0], r[3], r[4], r[12], r[13]) for r in rows
            if r[2] == "image" and min(float(r[12]), float(r[13])) < dpi
            and not (int(r[3]) <= cells and int(r[4]) <= cells and r[9] == "no")]


def test_the_resolution_check_can_fail():
    screen = "16 0 image 660 582 rgb 3 8 image no 241 0 101 101 61.0K 5.4%".split()
    matrix = "20 3 image 4 4 rgb 3 8 image no 250 0 12 12 100B 5%".split()
    sharp = "21 4 image 1320 900 rgb 3 8 image yes 251 0 203 203 90K 5%".split()
    assert soft_images([screen, matrix, sharp]) == [("16", "660", "582", "101", "101")]


def test_widget_outputs_are_replaced_by_a_note():
    require_pdf()
    text = "\n".join(pages())
    widgets = sum(1 for d in toc_docnames() if is_chapter(d)
                  for c in json.loads(source(d).read_text())["cells"] if c["cell_type"] == "code"
                  for o in c.get("outputs", []) if is_widget_output(o.get("data", {})))
    assert "interactive(children" not in text and "VBox(children" not in text
    assert text.count("Interactive figure: move its controls in the web edition") == widgets
    # Each note sends the reader to the page of its own chapter: the first chapter page named after
    # the note (a page break may put the running foot and head inside the address).
    notes = "".join(text.split()).split("Interactivefigure:moveitscontrolsinthewebedition")[1:]
    linked = ["book/" + m.group(1) for m in (re.search(r"(ch\d\d_\w+?)\.html", n[:400]) for n in notes) if m]
    want = [d for d in toc_docnames() if is_chapter(d)
            for c in json.loads(source(d).read_text())["cells"] if c["cell_type"] == "code"
            for o in c.get("outputs", []) if is_widget_output(o.get("data", {}))]
    assert [d for d in linked if d in want or d == "book/intro"] == want


@pytest.mark.parametrize("raw", ["{prf:", "{glue:", ":::", "$$", "```", "{solution}", "{exercise}", "\ufffd", "??"])
def test_no_raw_markup_in_the_pdf(raw):
    require_pdf()
    # code that calls glue(...) is not markup; the API reference no longer documents the glue role
    # (glue is the book's own helper, book/bookkit.py, outside the library), so no page may show it
    hits = [n + 1 for n, page in enumerate(pages()) if raw in page]
    assert not hits, f"raw {raw!r} on pages {hits[:10]} ('??' is an unresolved reference)"


def test_no_missing_glyphs_and_nothing_much_wider_than_the_text():
    require_pdf()
    log = LOG.read_text(errors="replace")
    missing = sorted(set(re.findall(r"Missing character: There is no (.+?) in font", log)))
    assert not missing, f"glyphs missing from the fonts (they vanish from the PDF): {missing}"
    wide = [float(w) for w in re.findall(r"Overfull \\hbox \((\d+(?:\.\d+)?)pt too wide", log)]
    assert not [w for w in wide if w > 20], f"lines wider than the text by more than 20pt: {sorted(wide)[-5:]}"


TABLES = re.compile(r"\\(begin|end)\{(tabulary|tabular|tabularx|longtable)\}")
OVERFULL = re.compile(r"Overfull \\hbox \(([\d.]+)pt too wide\) in (?:paragraph|alignment) at lines (\d+)--(\d+)\n"
                      r"([^\n]*)")


def table_lines(tex: str) -> list[tuple[int, int]]:
    """The (first, last) line of every table environment of the LaTeX source, 1-based, outermost."""
    ranges, depth, start = [], 0, 0
    for number, line in enumerate(tex.splitlines(), start=1):
        for kind, _ in TABLES.findall(line):
            if kind == "begin":
                depth, start = depth + 1, start if depth else number
            elif depth:
                depth -= 1
                if not depth:
                    ranges.append((start, number))
    return ranges


def clipped_in_tables(log: str, tex: str, tolerance: float = 0.1) -> list[str]:
    """Text wider than its table cell: an overfull box (LaTeX's log) set inside a table of the source.

    A word wider than its column runs into the next cell, where the next cell's text or the row's
    colour covers it: "Model" printed as "Mod". LaTeX reports each such line as an overfull box at
    the lines of the table (tabulary: at its end).
    """
    tables = table_lines(tex)
    found = []
    for width, first, last, text in OVERFULL.findall(log):
        first, last = int(first), int(last)
        if float(width) > tolerance and any(lo <= first and last <= hi for lo, hi in tables):
            words = re.sub(r"\\TU/[^ ]+ |\[\]|\|", "", text).strip()
            found.append(f"{float(width):.1f}pt too wide at line {first} of book.tex: {words[:50]!r}")
    return found


def test_the_table_check_finds_clipped_cells():
    tex = "text\n\\begin{tabulary}{\\linewidth}[t]{TT}\nModel & x\n\\end{tabulary}\nmore\n"
    log = ("Overfull \\hbox (11.96pt too wide) in paragraph at lines 4--4\n[]\\TU/FreeSerif(0)/b/n/10 Model|\n"
           "Overfull \\hbox (3.0pt too wide) in paragraph at lines 5--5\n[]\\TU/FreeSerif(0)/m/n/10 more\n")
    assert table_lines(tex) == [(2, 4)]
    found = clipped_in_tables(log, tex)
    assert len(found) == 1 and "Model" in found[0] and "11.96" not in found[0] and "12.0pt" in found[0]


def test_no_text_is_clipped_in_a_table_cell():
    require_pdf()
    found = clipped_in_tables(LOG.read_text(errors="replace"), (PDF.parent / "book.tex").read_text())
    assert not found, "table cells whose text is wider than the cell (give the table :widths:):\n  " + \
        "\n  ".join(found[:12])


def test_no_page_is_wider_than_the_paper():
    require_pdf()
    info = run("pdfinfo", "-f", "1", "-l", str(len(pages())), str(PDF))
    sizes = set(re.findall(r"Page\s+\d+ size:\s+([\d.]+) x ([\d.]+)", info))
    assert len(sizes) == 1, f"pages of different sizes: {sizes}"
    width = float(next(iter(sizes))[0])
    html = run("pdftotext", "-bbox", str(PDF), "-")
    beyond = [(w, x) for x, w in re.findall(r'<word xMin="[\d.-]+" yMin="[\d.-]+" xMax="([\d.-]+)"[^>]*>([^<]*)<', html)
              if float(x) > width - 20]
    assert not beyond, f"text runs into the paper's edge (width {width}pt): {beyond[:5]}"


LINE = re.compile(r'<line xMin="[\d.-]+" yMin="([\d.-]+)" xMax="[\d.-]+" yMax="([\d.-]+)">(.*?)</line>', re.S)


def footer_intrusions(bbox_layout: str) -> list[str]:
    """Pages where text reaches the footer band: a line in the band above the footer's line that is
    not the footer itself, or a line below the footer (a caption pushed past the text block).

    ``bbox_layout`` is ``pdftotext -bbox-layout``'s output. The footer's line is where most pages'
    lowest line starts (the running head and page number); the band is 8pt above it to the paper's
    edge. Body text, captions and code end above the band on every page that keeps its margins."""
    pages_lines = []
    for page in bbox_layout.split("<page ")[1:]:
        pages_lines.append([(float(a), float(b), " ".join(re.findall(r">([^<]*)</word>", words)))
                            for a, b, words in LINE.findall(page)])
    lowest = [round(max(lines, key=lambda line: line[1])[0]) for lines in pages_lines if lines]
    if not lowest:
        return []
    top = max(set(lowest), key=lowest.count)  # the footer line's top, on most pages
    bottom = max(b for lines in pages_lines for a, b, _ in lines if abs(a - top) <= 1.5 and b < top + 14)
    found = []
    for number, lines in enumerate(pages_lines, start=1):
        bad = [text for a, b, text in lines
               if b > bottom + 3 or (a > top - 8 and abs(a - top) > 1.5)]
        if bad:
            found.append(f"page {number}: {bad[0][:60]!r}")
    return found


def test_the_footer_check_finds_a_caption_over_the_footer():
    def page(*lines):
        return "<page >" + "".join(f'<line xMin="0" yMin="{a}" xMax="1" yMax="{a + 10}"><word>{t}</word></line>'
                                   for a, t in lines)
    clean = page((700, "body"), (796, "12"), (796, "Chapter 1")) * 3
    assert footer_intrusions(clean) == []
    caption = page((700, "body"), (786, "Figure 9.4: a long"), (798, "caption"), (796, "13"), (810, "ends here"))
    found = footer_intrusions(clean + caption)
    assert found == ["page 4: 'caption'"]


def test_no_text_reaches_the_footer():
    require_pdf()
    found = footer_intrusions(run("pdftotext", "-bbox-layout", str(PDF), "-"))
    assert not found, ("text printed over or below the page footer (a figure too tall for the page pushes its "
                       "caption down: cap its height):\n  " + "\n  ".join(found))


def test_first_page_of_each_chapter_rendered_to_png():
    require_pdf()
    SHOTS.mkdir(parents=True, exist_ok=True)
    for docname, number in first_pages().items():
        stem = SHOTS / Path(docname).name
        run("pdftoppm", "-f", str(number), "-l", str(number), "-r", "70", "-png", "-singlefile", str(PDF), str(stem))
        assert stem.with_suffix(".png").stat().st_size > 5000, f"{stem}.png looks empty"


def test_full_edition_has_exercises_and_solutions():
    require_pdf()
    text = "\n".join(pages())
    exercises = sum(len(re.findall(r"\{exercise\}", markdown(d))) for d in toc_docnames())
    assert len(re.findall(r"Exercise \d+\.\d+\.\d+", text)) >= exercises
    assert squash(text).count("solutionstotheexercises") >= 2  # in the contents and as an appendix
    assert text.count("Solution to Exercise") == sum(len(re.findall(r"\{solution(?:-start)?\}", markdown(d)))
                                                     for d in toc_docnames())  # folded and gated solutions


def test_student_pdf_has_the_exercises_but_no_solution():
    require_pdf(STUDENT_PDF)
    text = "\n".join(pages(STUDENT_PDF))
    assert "Solution to Exercise" not in text
    exercises = sum(len(re.findall(r"\{exercise\}", markdown(d))) for d in toc_docnames())
    assert len(set(re.findall(r"Exercise \d+\.\d+\.\d+", text))) >= exercises
    assert "student edition" in text
    html = STUDENT_PDF.parents[1] / "html"
    if (html / "book" / "ch01_attention.html").exists():   # its download menu links its own PDF
        page = (html / "book" / "ch01_attention.html").read_text()
        match = re.search(r'href="([^"]+\.pdf)"[^>]*>(?:(?!</a>).)*Book \(PDF\)', page, re.S)
        assert match, "no 'Book (PDF)' entry in the student edition's download menu"
        assert (html / "book" / match.group(1)).resolve().read_bytes() == STUDENT_PDF.read_bytes()


def test_html_links_the_pdf_from_the_download_menu():
    """Every page's download menu links the PDF just built (the browser test, which may run before the
    PDF exists, leaves this link to here)."""
    require_pdf()
    if not (HTML / "index.html").exists():
        skip_or_fail("no built HTML in _build/html: build it with `jupyter-book build .`")
    pdf = PDF.read_bytes()
    for docname in toc_docnames():
        path = HTML / f"{docname}.html"
        match = re.search(r'href="([^"]+\.pdf)"[^>]*>(?:(?!</a>).)*Book \(PDF\)', path.read_text(), re.S)
        assert match, f"no 'Book (PDF)' entry in the download menu of {docname}"
        target = (path.parent / match.group(1)).resolve()
        assert target.is_file(), f"{docname}'s download menu links {match.group(1)}, which is not in _build/html"
        assert target.read_bytes() == pdf, f"{docname}'s download menu links another PDF than _build/latex/book.pdf"


def test_warning_boxes_print_as_warnings():
    """Part III's "the book's reconstruction" notices (``:class: warning``) stand out in print."""
    require_pdf()
    tex = (PDF.parent / "book.tex").read_text()
    warnings = sum(len(re.findall(r"^(`{3,}|:{3,})\{admonition\}[^\n]*\n:class:[^\n]*\bwarning\b", markdown(d), re.M))
                   for d in toc_docnames())
    assert warnings >= 3, f"only {warnings} warning admonitions in the sources"
    assert tex.count(r"\begin{sphinxadmonition}{warning}") >= warnings
    assert "reconstruction" in squash("\n".join(pages()))


@pytest.mark.parametrize("pdf", [PDF, STUDENT_PDF], ids=["full", "student"])
def test_the_claims_index_lists_every_statement(pdf):
    """The appendix built from the chapters is in both editions, one entry per statement."""
    require_pdf(pdf)
    text = "\n".join(pages(pdf))
    start = re.search(r"Every\s+theorem,\s+lemma,\s+proposition,\s+corollary,\s+definition", text)
    assert start, "the claims index is not in the PDF"
    index = text[start.start():]
    statements = [d for d in proof_directives() if d[1] != "proof"]
    entries = len(re.findall(r"Witnessed\s+by:|No\s+witness:", index))
    assert entries == len(statements), f"{entries} entries in the claims index for {len(statements)} statements"
    assert "No witness and no reason" not in index and "source not stated" not in index
