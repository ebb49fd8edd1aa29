"""What the prose of a chapter says, read from its source: statements, witnesses, glue, numbers.

One parser, used by the claims index (``book/_ext/claims.py``, at build time) and by the test that
keeps the prose bound to the computation (``tests/test_book_prose.py``), so the two cannot read
the chapters differently. It reads notebooks as JSON and markdown pages as text; nothing here
imports Sphinx.

The conventions it reads (CONTRIBUTING.md, "Prose bound to the computation"):

- A statement is a ``prf`` directive with a ``:label:``. It names its ``:source:`` (``ours``,
  ``reconstruction``, ``standard``, or text with a ``{cite}`` role and the place in the paper),
  and either has witness cells or says why not with ``:no-witness: <reason>``.
- A witness cell is a code cell with the tag ``witness:<label>`` (one tag per statement it
  checks).
- A number the prose reports from a computation is ``{glue:text}`key``` of a value the chapter
  glued with ``glue`` of the book's helpers, ``book/bookkit.py``.
- A result-like number (a decimal, a percentage, scientific notation, a ``k/N`` or ``k of N``
  count, an ``N×`` ratio) that is none of these must be in a sentence with a citation, equal to a
  literal of the chapter's code (a constant the code states, or a threshold it asserts), or on
  the allow-list with a reason.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

#: statement kinds of sphinx-proof that the claims index lists (``proof`` is not a statement)
KINDS = ("theorem", "lemma", "proposition", "corollary", "algorithm", "definition", "conjecture",
         "remark", "example", "property", "observation", "criterion", "axiom", "assumption",
         "notation")
#: kinds that assert something numerically checkable: their witnesses must contain an ``assert``
ASSERTING = ("theorem", "lemma", "proposition", "corollary")
#: the words a ``:source:`` may be, besides a text with a citation
SOURCE_WORDS = {
    "ours": "ours",
    "reconstruction": "the book's reconstruction",
    "standard": "standard",
}
WITNESS_TAG = "witness:"

_DIRECTIVE = re.compile(
    r"^(?P<fence>`{3,})\{prf:(?P<kind>\w+)\}(?P<title>[^\n]*)\n(?P<body>.*?)^(?P=fence)\s*$",
    re.M | re.S,
)
_OPTION = re.compile(r"^:(?P<name>[\w-]+):(?:[ \t]+(?P<value>[^\n]*))?$", re.M)
_GLUE_ROLE = re.compile(r"\{glue(?::text)?\}`(?P<key>[^`:]+)(?::[^`]*)?`")
_CITE = re.compile(r"\{cite(?::\w+)?\}`[^`]+`")


@dataclass(frozen=True)
class Statement:
    """One ``prf`` directive of a page."""

    page: str  # e.g. "book/ch05_certificate"
    cell: int  # index of its markdown cell (0 for a markdown page)
    kind: str
    label: str
    title: str
    source: str | None
    no_witness: str | None


@dataclass(frozen=True)
class Witness:
    """One witness tag of a code cell."""

    page: str
    cell: int
    label: str
    has_assert: bool


@dataclass
class Page:
    """The parts of one chapter (notebook) or markdown page that the prose rules read."""

    path: Path
    name: str  # "book/ch05_certificate"
    markdown: list[tuple[int, str]] = field(default_factory=list)  # (cell index, source)
    code: list[tuple[int, str, list[str]]] = field(default_factory=list)  # (cell index, source, tags)
    captions: list[tuple[int, str, str]] = field(default_factory=list)  # (code cell, "caption" or "alt", text)
    glued: dict[str, int] = field(default_factory=dict)  # key -> cell index that glued it
    duplicate_glue: list[str] = field(default_factory=list)


def _source(cell) -> str:
    text = cell.get("source", "")
    return "".join(text) if isinstance(text, list) else text


def read_page(path: Path, root: Path) -> Page:
    """Read a chapter notebook or a markdown page."""
    path = Path(path)
    name = path.relative_to(root).with_suffix("").as_posix()
    page = Page(path=path, name=name)
    if path.suffix == ".md":
        page.markdown.append((0, path.read_text()))
        return page
    notebook = json.loads(path.read_text())
    for i, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] == "markdown":
            page.markdown.append((i, _source(cell)))
        elif cell["cell_type"] == "code":
            page.code.append((i, _source(cell), list(cell.get("metadata", {}).get("tags", []))))
            mystnb = cell.get("metadata", {}).get("mystnb", {})
            for kind, text in (("caption", mystnb.get("figure", {}).get("caption")),
                               ("alt", mystnb.get("image", {}).get("alt"))):
                if text:
                    page.captions.append((i, kind, text))
            for output in cell.get("outputs", []):
                key = output.get("metadata", {}).get("scrapbook", {}).get("name")
                if key is None:
                    continue
                if key in page.glued:
                    page.duplicate_glue.append(key)
                page.glued[key] = i
    return page


def statements(page: Page) -> list[Statement]:
    """Every ``prf`` statement of the page, in order (proofs are not statements)."""
    found = []
    for i, text in page.markdown:
        for match in _DIRECTIVE.finditer(text):
            kind = match["kind"]
            if kind not in KINDS:
                continue
            options = {m["name"]: (m["value"] or "").strip() for m in _OPTION.finditer(_options_block(match["body"]))}
            found.append(Statement(page.name, i, kind, options.get("label", ""), match["title"].strip(),
                                   options.get("source"), options.get("no-witness")))
    return found


def _options_block(body: str) -> str:
    lines = []
    for line in body.splitlines():
        if not line.startswith(":"):
            break
        lines.append(line)
    return "\n".join(lines)


def witnesses(page: Page) -> list[Witness]:
    """Every ``witness:<label>`` tag of the page's code cells."""
    found = []
    for i, text, tags in page.code:
        for tag in tags:
            if tag.startswith(WITNESS_TAG):
                found.append(Witness(page.name, i, tag[len(WITNESS_TAG):], bool(re.search(r"\bassert\b", text))))
    return found


def glue_references(page: Page) -> list[tuple[int, str]]:
    """(cell, key) of every ``{glue:text}`` role of the page that reads this page's glue."""
    texts = list(page.markdown) + [(i, text) for i, kind, text in page.captions if kind == "caption"]
    return [(i, m["key"]) for i, text in texts for m in _GLUE_ROLE.finditer(text) if "::" not in m["key"]]


def source_kind(source: str | None) -> str | None:
    """How a ``:source:`` reads in the index, or None if it is not one of the accepted forms."""
    if not source:
        return None
    if source in SOURCE_WORDS:
        return SOURCE_WORDS[source]
    return source if _CITE.search(source) else None


# --- result-like numbers in prose -----------------------------------------------------------

_WORD_NUMBERS = ("one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
                 "sixteen seventeen eighteen nineteen twenty").split()
_COUNT_WORD = r"(?:\d+|" + "|".join(_WORD_NUMBERS) + r")"
_REFERENCE = (r"(?:Lemma|Lemmas|Theorem|Thm\.?|Proposition|Prop\.?|Corollary|Cor\.?|Section|Sec\.?|§|Figure|Figures|"
              r"Fig\.?|Table|Algorithm|Alg\.?|Definition|Defs?\.?|Eq\.?|eq\.?|equation|Appendix|App\.?|chapter|"
              r"Chapter|version|v|Remark|Example|Exercise|Step|Claim|Part|Python|numpy|NumPy|"
              r"Jupyter|Book|pandoc|MathJax|ipywidgets|nbclient|myst-nb|OpenBLAS)")
#: a reference and the references chained to it: "Lemmas 5.1 and 5.2", "Figs. 2.1-2.3"
_REFERENCES = re.compile(_REFERENCE + r"\s*[A-Z]?\d+(?:\.\d+)+(?:\s*(?:,|and|to|or|–|-)\s*[A-Z]?\d+(?:\.\d+)+)*")
#: result-like numbers, in the order they are tried (the first that matches a span wins)
_RESULT = re.compile(
    r"(?P<count>(?<![\w.])" + _COUNT_WORD + r"\s+of\s+(?:the\s+)?" + _COUNT_WORD + r"(?![\w.]))"
    r"|(?P<sci>(?<![\w.])\d+(?:\.\d+)?\s?(?:[eE][-+−]?\d+|×\s?10[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+|×\s?10\^?\{?[-−]?\d+\}?))"
    r"|(?P<ratio_shape>(?<![\w.])\d+\s?[×x]\s?\d+(?![\w.]))"
    r"|(?P<power>(?<![\w.])10[⁻][⁰¹²³⁴⁵⁶⁷⁸⁹]+)"
    r"|(?P<percent>(?<![\w.])\d+(?:\.\d+)?(?:\s?[–-]\s?\d+(?:\.\d+)?)?\s?%)"
    r"|(?P<fraction>(?<![\w./])\d+/\d+(?![\w/]))"
    r"|(?P<ratio>(?<![\w.])\d+(?:\.\d+)?\s?×(?!\s?\d))"
    r"|(?P<decimal>(?<![\w.])\d*\.\d+(?!\w|\.\d))",
    re.I,
)
_MATH_BLOCK = re.compile(r"\$\$.*?\$\$|\\begin\{(\w+\*?)\}.*?\\end\{\1\}", re.S)
_MATH_INLINE = re.compile(r"(?<![\\$])\$(?!\$)(?P<body>[^$\n]+?)(?<!\\)\$")
#: inline math that is nothing but a number: a result typed into math is still a typed result
_BARE_NUMBER = re.compile(
    r"^\s*(?:\\approx|\\le|\\ge|<|>|\\sim|~)?\s*(?:[-+]?\d*\.?\d+\s*(?:\\times|\\cdot)?\s*)?"
    r"(?:10\^\{?[-−]?\d+\}?)?\s*(?:\\%)?\s*$"
)


@dataclass(frozen=True)
class Number:
    """A result-like number in a page's prose that nothing binds."""

    page: str
    cell: int
    text: str  # the number as written
    sentence: str  # its sentence, with markup removed

    def __str__(self) -> str:
        return f"{self.page} cell {self.cell}: {self.text!r} in {self.sentence[:160]!r}"


def _strip_code(text: str) -> tuple[str, list[str]]:
    """Remove code (fences, indented blocks, inline code) from markdown; return it separately."""
    code = []

    def keep(match):
        code.append(match.group(0))
        return " "

    text = re.sub(r"^(`{3,}|~{3,})(?!\{)[^\n]*\n.*?^\1\s*$", keep, text, flags=re.M | re.S)
    lines, out, blank = text.split("\n"), [], True
    in_block = False
    for line in lines:
        if (in_block or blank) and re.match(r"^( {4,}|\t)\S", line):
            code.append(line)
            in_block = True
            out.append("")
            continue
        in_block = in_block and line.strip() == ""
        blank = line.strip() == ""
        out.append(line)
    text = "\n".join(out)
    text = re.sub(r"``[^`]+``|`[^`\n]+`", keep, text)
    return text, code


def _clean(text: str) -> str:
    """Prose of one markdown cell, with what cannot hold a typed result removed."""
    text = re.sub(r"<!--.*?-->", " ", text, flags=re.S)
    text = re.sub(r"^`{3,}\{[^}]+\}[^\n]*$|^`{3,}\s*$|^:[\w-]+:[^\n]*$|^%[^\n]*$", " ", text, flags=re.M)
    return text


_ROLE = re.compile(r"\{[\w:-]+\}`[^`]*`")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")


def literals(page: Page, cell: int | None = None) -> set[float]:
    """Numeric literals of the code that states the setup of markdown cell ``cell``.

    That is the chapter's first code cell (its set-up), the code cells just before and just after
    ``cell``, and the code inside the markdown cell itself (an exercise's or a solution's). With
    ``cell=None``, every literal of the page's code.
    """
    if cell is None:
        code = [text for _, text, _ in page.code]
        code.extend(c for _, text in page.markdown for c in _strip_code(_clean(text))[1])
    else:
        before = [text for i, text, _ in page.code if i < cell]
        at = [text for i, text, _ in page.code if i == cell]  # a figure's caption: its own cell
        after = [text for i, text, _ in page.code if i > cell]
        code = before[:1] + before[-1:] + at + after[:1]
        code.extend(c for i, text in page.markdown if i == cell for c in _strip_code(_clean(text))[1])
    values = set()
    for text in code:
        for token in re.findall(r"(?<![\w.])\d[\d_]*(?:\.\d*)?(?:[eE][-+]?\d+)?"
                                r"|(?<![\w.])\.\d+(?:[eE][-+]?\d+)?", text):
            try:
                values.add(float(token.replace("_", "")))
            except ValueError:
                pass
    return values


_SUPERSCRIPT = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")


def value_of(text: str) -> list[float]:
    """The numeric values a result-like token may stand for (a percentage also as a fraction)."""
    t = text.replace("−", "-").translate(_SUPERSCRIPT).replace(" ", "")
    t = re.sub(r"\\times|\\cdot|×", "*", t).replace("\\%", "%").replace("{", "").replace("}", "").replace("^", "**")
    t = t.replace("\\approx", "").replace("\\le", "").replace("\\ge", "").replace("<", "").replace(">", "")
    t = t.lstrip("~").replace("\\sim", "")
    out = []
    if t.endswith("%"):
        try:
            v = float(t[:-1])
            return [v, v / 100]
        except ValueError:
            return []
    m = re.fullmatch(r"(\d*\.?\d+)[eE]([-+]?\d+)", t)
    if m:
        return [float(t)]
    m = re.fullmatch(r"(?:(\d*\.?\d+)\*)?10(?:\*\*)?(-?\d+)", t)
    if m:
        return [float(m[1] or 1) * 10.0 ** int(m[2])]
    try:
        out.append(float(t))
    except ValueError:
        pass
    return out


_ABBREVIATION = re.compile(r"\b(App|Fig|Figs|Sec|Eq|Eqs|Thm|Prop|Cor|Alg|Def|Defs|Lem|Ex"
                           r"|cf|e\.g|i\.e|vs|al|approx|resp|No)\.\s")


def _sentences(text: str) -> list[str]:
    text = _ABBREVIATION.sub(lambda m: m.group(0)[:-1] + "\u00a0", text)  # "Fig. 1" does not end a sentence
    # a sentence ends at ., ! or ? followed by space and a capital, a newline pair, a list item or a table row
    parts = re.split(r"(?<=[.!?])\s+(?=[A-Z*({$])|\n\s*\n|\n(?=\s*(?:[-*+]|\d+\.)\s)|\n(?=\|)", text)
    return [p for p in parts if p.strip()]


def unbound_numbers(page: Page, allowed: dict[tuple[str, str], str] | None = None) -> list[Number]:
    """Result-like numbers of the page's prose that are not glued, cited, stated by code or allowed.

    ``allowed`` maps ``(page name, number as written)`` to the reason it may stay.
    """
    allowed = allowed or {}
    found = []
    texts = list(page.markdown) + [(i, text) for i, _, text in page.captions]
    for i, raw in texts:
        constants = literals(page, i) if page.code else set()
        # roles first (their argument is in backticks, like inline code): a citation marks its
        # sentence, a glued value is bound, any other role holds no typed result
        text = _CITE.sub(" CITATION ", _clean(raw))
        text = _GLUE_ROLE.sub(" ", text)
        text = _ROLE.sub(" ", text)
        text, _ = _strip_code(text)
        text = _MATH_BLOCK.sub(" ", text)
        # bare-number inline math is prose; other math is mathematics
        text = _MATH_INLINE.sub(lambda m: m["body"] if _BARE_NUMBER.match(m["body"]) and re.search(r"\d", m["body"])
                                else " ", text)
        for sentence in _sentences(text):
            if "CITATION" in sentence:
                continue
            plain = _LINK.sub(r"\1", sentence)
            plain = _REFERENCES.sub(" ", plain)  # "Lemma 5.3", "Figs. 2.1 and 2.2"
            plain = re.sub(r"\b[A-Z]\.\d+(?:\.\d+)*\b", " ", plain)  # "A.3", "E.2", "G.1"
            plain = re.sub(r"\b\d+(?:\.\d+){2,}\b", " ", plain)  # versions, "1.0.15"
            plain = re.sub(r"\\times|\\cdot", "×", plain)
            for match in _RESULT.finditer(plain):
                if match["ratio_shape"]:
                    continue  # a shape or a grid, "2×2"
                token = match.group(0).strip()
                if (page.name, token) in allowed:
                    continue
                if match["count"] is None and match["fraction"] is None:
                    if any(any(abs(v - c) <= 1e-12 * max(1.0, abs(c)) for c in constants) for v in value_of(token)):
                        continue
                found.append(Number(page.name, i, token, " ".join(plain.split())))
    return found
