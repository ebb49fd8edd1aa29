"""The prose cannot drift from the computation: numbers glued, statements sourced and witnessed.

The rules (CONTRIBUTING.md, "Prose bound to the computation"), read with the same parser as the claims
index (``book/_ext/prose.py``):

1. A result-like number in a page's prose (a decimal, a percentage, scientific notation, a
   ``k/N`` or ``k of N`` count, an ``N×`` ratio) is glued from the kernel, inside mathematics,
   in a sentence with a citation, a literal of the code that sets it up, or on ``ALLOWED`` below
   with its reason.
2. Every ``prf`` statement says its ``:source:``.
3. Every ``prf`` statement has a witness cell (tag ``witness:<label>``) or a ``:no-witness:``
   reason; a witness of a theorem, lemma, proposition or corollary asserts, and comes after it.
4. A witness tag names a statement that exists.
5. Every ``{glue:text}`` key a page shows is glued by that page (or by the page it names), once,
   under the page's prefix (``ch09-``).

The second half of the file breaks each rule on a small page and checks that the rule fails.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "_ext"))

import claims  # noqa: E402
import prose  # noqa: E402

PAGES = [prose.read_page(p, ROOT) for p in claims.toc_pages(ROOT)]
PROSE_PAGES = [p for p in PAGES if p.name.startswith("book/ch") or p.name == "book/intro"]
IDS = [p.name.split("/")[-1] for p in PROSE_PAGES]

#: (page, number as written) -> why it may stay as typed. Keep this short: each entry is a number a
#: reader cannot check against the page.
ALLOWED: dict[tuple[str, str], str] = {
    ("book/intro", "4.0"): "the version of the licence of the text (CC BY 4.0), not a result",
    ("book/ch11_two_roads", "2601.16873"): "an arXiv identifier, the source of the sentence, not a result",
}


def _all_statements():
    return [s for page in PAGES for s in prose.statements(page)]


@pytest.mark.parametrize("page", PROSE_PAGES, ids=IDS)
def test_no_result_number_in_the_prose_is_typed_by_hand(page):
    found = prose.unbound_numbers(page, ALLOWED)
    assert not found, (
        f"{len(found)} result-like numbers in {page.name} are typed by hand; glue them from the cell that computes "
        "them (glue from book/bookkit.py and {glue:text}`key`), cite their source in the sentence, or add them to "
        "ALLOWED with a reason:\n" + "\n".join(f"  {n}" for n in found))


def test_allowed_numbers_are_still_there():
    for (name, token), reason in ALLOWED.items():
        assert reason.strip(), f"ALLOWED[{name!r}, {token!r}] needs a reason"
        page = next(p for p in PAGES if p.name == name)
        assert any(token in text for _, text in page.markdown), f"ALLOWED[{name!r}, {token!r}] is no longer in the page"


@pytest.mark.parametrize("page", PROSE_PAGES, ids=IDS)
def test_every_statement_says_its_source(page):
    bad = [f"{s.label or s.title}: source {s.source!r}" for s in prose.statements(page)
           if not prose.source_kind(s.source)]
    assert not bad, ("statements without an accepted :source: (ours, reconstruction, standard, or a text with "
                     "a {cite} role and the place):\n  " + "\n  ".join(bad))


@pytest.mark.parametrize("page", PROSE_PAGES, ids=IDS)
def test_every_statement_has_a_label(page):
    assert all(s.label for s in prose.statements(page)), [s.title for s in prose.statements(page) if not s.label]


def _witness_problems(pages):
    labels = {s.label: s for page in pages for s in prose.statements(page)}
    witnesses = [w for page in pages for w in prose.witnesses(page)]
    by_label = {}
    for w in witnesses:
        by_label.setdefault(w.label, []).append(w)
    problems = []
    for w in witnesses:
        if w.label not in labels:
            problems.append(f"{w.page} cell {w.cell}: tag witness:{w.label} names no statement")
    for label, s in labels.items():
        ws = by_label.get(label, [])
        if not ws and not s.no_witness:
            problems.append(f"{s.page}: {s.kind} {label} has no witness cell and no :no-witness: reason")
        if ws and s.no_witness:
            problems.append(f"{s.page}: {s.kind} {label} has witness cells and a :no-witness: reason")
        for w in ws:
            if s.kind in prose.ASSERTING and not w.has_assert:
                problems.append(f"{w.page} cell {w.cell} witnesses {s.kind} {label} without an assert")
            if w.page == s.page and w.cell < s.cell:
                problems.append(f"{w.page} cell {w.cell} witnesses {label}, stated later (cell {s.cell})")
    return problems


def test_every_statement_is_witnessed_or_says_why():
    problems = _witness_problems(PAGES)
    assert not problems, "\n".join(problems)


def test_no_witness_is_labelled_by_a_table_header():
    """The claims index labels a witness by the first line its cell prints: a table's header says nothing there,
    so such a cell prints a title line first."""
    headed = []
    for page in PAGES:
        for w in prose.witnesses(page):
            printed = claims._printed_lines(page, w.cell)
            if printed and claims.is_table_header(printed[0], printed[1] if len(printed) > 1 else None):
                headed.append(f"{page.name} cell {w.cell}: {printed[0]!r}")
    assert not headed, "print a title before the table:\n" + "\n".join(headed)


@pytest.mark.parametrize("first, second, header", [
    ("s   max |T_s|   sum |c_i|", "1     0.5000       10", True),
    ("s = 1: degree   features   test MSE", "            0          1       5.81", True),
    ("cubic_features: (200, 18)   psi = 18   equals the naive loops: True", "next: 3", False),
    ("d  psi  N", None, False),                      # nothing below it
    ("training loss 27 -> below 1e-20: True", "  a   b   c", False),   # one column
    ("a   b   c", "x   y   z", False),                 # no number below
])
def test_a_table_header_is_told_from_a_sentence(first, second, header):
    assert claims.is_table_header(first, second) is header


def _glue_problems(pages):
    problems = []
    glued = {p.name: p.glued for p in pages}
    for page in pages:
        prefix = page.name.split("/")[-1].split("_")[0] + "-"
        for key in page.duplicate_glue:
            problems.append(f"{page.name}: {key} is glued twice")
        for key in page.glued:
            if not key.startswith(prefix):
                problems.append(f"{page.name}: glue key {key!r} must start with {prefix!r}")
        for cell, kind, text in page.captions:
            if kind == "alt" and "{" in text:
                problems.append(f"{page.name} cell {cell}: alt text is plain text, "
                                f"a role in it shows raw: {text[:80]!r}")
        for cell, key in prose.glue_references(page):
            if key not in page.glued:
                problems.append(f"{page.name} cell {cell}: {{glue:text}}`{key}` is glued by no cell of the page")
        for _, text in page.markdown:
            for other, key in __import__("re").findall(
                    r"\{glue(?::text)?\}`([\w./-]+?)\.(?:ipynb|md)?::([^`:]+)", text):
                target = "book/" + Path(other).name if not other.startswith("book/") else other
                if key not in glued.get(target, {}):
                    problems.append(f"{page.name}: {{glue:text}}`{other}::{key}` is glued by no cell of {target}")
    return problems


def test_every_glued_number_in_the_prose_is_computed_once_by_its_page():
    problems = _glue_problems(PAGES)
    assert not problems, "\n".join(problems)


# --- each rule, broken on a small page ------------------------------------------------------


def _page(markdown, code=(), name="book/ch99_test", glued=None):
    page = prose.Page(path=Path(f"{name}.ipynb"), name=name)
    page.markdown = list(enumerate(markdown))
    start = len(markdown)
    page.code = [(start + k, text, tags) for k, (text, tags) in enumerate(code)]
    page.glued = dict(glued or {})
    return page


@pytest.mark.parametrize("sentence", [
    "The error was 0.82 on the test set.",
    "It succeeded in 18 of 20 seeds.",
    "It succeeded in two of three runs.",
    "It succeeded 3/3 times.",
    "The polish is 6× faster.",
    "About 44% of the tables.",
    "Phase 1 is often 30–50% off.",
    "The median error is $8\\times10^{-15}$.",
    "The cosine is about $0.95$.",
    "It ended at 2e-34.",
    "The floor is 10⁻³².",
    "| sculpt | 20/20 | 0.82 s |",
])
def test_a_number_typed_into_the_prose_fails(sentence):
    assert prose.unbound_numbers(_page([sentence])), sentence


@pytest.mark.parametrize("sentence, code", [
    ("The error was {glue:text}`ch99-error` on the test set.", ""),
    ("The paper reports 0.82 {cite:p}`yau2025linear`.", ""),
    ("Math is mathematics: $\\|x\\|\\le 0.5\\,d$.", ""),
    ("Lemma A.3 and Theorem 2.2 and Figure 5.2 are references; jupyter-book 1.0.4 is a version.", ""),
    ("A grid of 2×2 panels.", ""),
    ("With shared component 0.6, as the cell states.", "planted_instance(2, 4, shared=0.6)"),
    ("An error below $10^{-3}$ counts as a success.", "assert err <= 1e-3"),
])
def test_a_bound_or_stated_number_passes(sentence, code):
    code_cells = [(code, [])] if code else []
    assert not prose.unbound_numbers(_page([sentence], code_cells)), sentence


def test_a_count_is_never_excused_by_a_code_literal():
    # "3 of 3" must be glued even when 3 appears in the code
    assert prose.unbound_numbers(_page(["It worked in 3 of 3 seeds."], [("seeds = 3", [])]))


def test_the_allow_list_excuses_exactly_its_entry():
    page = _page(["It took 0.82 s and 0.5 s."])
    left = prose.unbound_numbers(page, {("book/ch99_test", "0.82"): "a reason"})
    assert [n.text for n in left] == ["0.5"]


STATEMENT = "```{prf:lemma} A lemma\n:label: lem-99-a\n:source: ours\n\nIt holds.\n```"


def test_a_statement_without_a_source_fails():
    page = _page([STATEMENT.replace(":source: ours\n", "")])
    assert prose.source_kind(prose.statements(page)[0].source) is None
    page = _page([STATEMENT.replace(":source: ours", ":source: a paper")])  # no citation, no place
    assert prose.source_kind(prose.statements(page)[0].source) is None
    page = _page([STATEMENT.replace(":source: ours", ":source: Lemma A.3 of {cite:t}`yau2025linear`")])
    assert prose.source_kind(prose.statements(page)[0].source)


def test_an_unwitnessed_statement_fails_and_a_reason_or_witness_fixes_it():
    assert _witness_problems([_page([STATEMENT])])
    reasoned = STATEMENT.replace(":source: ours", ":source: ours\n:no-witness: an identity proved in the text")
    assert not _witness_problems([_page([reasoned])])
    assert not _witness_problems([_page([STATEMENT], [("assert True", ["witness:lem-99-a"])])])


def test_a_witness_of_a_lemma_must_assert_and_follow_it():
    assert _witness_problems([_page([STATEMENT], [("print(1)", ["witness:lem-99-a"])])])
    early = _page([STATEMENT])
    early.code = [(-1, "assert True", ["witness:lem-99-a"])]
    assert _witness_problems([early])


def test_a_witness_naming_no_statement_fails():
    problems = _witness_problems([_page([STATEMENT], [("assert True", ["witness:lem-99-a", "witness:lem-99-typo"])])])
    assert problems == ["book/ch99_test cell 1: tag witness:lem-99-typo names no statement"]


def test_a_glue_reference_without_its_value_fails():
    page = _page(["It was {glue:text}`ch99-x`."], glued={})
    assert _glue_problems([page])
    assert not _glue_problems([_page(["It was {glue:text}`ch99-x`."], glued={"ch99-x": 1})])
    assert _glue_problems([_page(["It was {glue:text}`ch99-x`."], glued={"ch99-x": 1, "ch98-y": 1})])


def test_the_parser_reads_a_real_chapter():
    """The rules above run on what the parser finds: it must find the statements and the code."""
    page = next(p for p in PAGES if p.name == "book/ch08_sculpting")
    labels = [s.label for s in prose.statements(page)]
    assert "prop-08-crude" in labels and "alg-08-sculpt" in labels
    assert len(page.code) >= 10
    notebook = json.loads(page.path.read_text())
    assert len(page.markdown) == sum(c["cell_type"] == "markdown" for c in notebook["cells"])
