"""How a page teaches, held mechanically (issues 37 and 38): scripts/pedagogy.py's rules on every
chapter, each rule shown to catch what it guards on a small notebook, and the chapter map current."""

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import chapter_map  # noqa: E402
import pedagogy  # noqa: E402


@pytest.mark.parametrize("path", pedagogy.CHAPTERS, ids=[p.stem for p in pedagogy.CHAPTERS])
def test_every_chapter_keeps_the_rules(path):
    page = pedagogy.walk(path)
    assert page.problems == [], "\n".join(page.problems)


def test_the_chapter_map_is_current_and_points_forward():
    assert chapter_map.recorded() == chapter_map.describe(chapter_map.edges()), (
        "python scripts/chapter_map.py --write")
    order = [stem for _, stems in chapter_map.parts() for stem in stems]
    assert all(order.index(a) < order.index(b) for a, b in chapter_map.edges())
    needing = {b for _, b in chapter_map.edges()}
    assert needing == set(order[1:]), "every chapter after the first needs an earlier one"


def test_the_two_roads_the_map_caption_and_the_instructors_describe():
    """The preface's caption and the instructors' guide say: Parts II and III both start from Part I
    and need nothing of each other; chapter 10 needs Part III (chapters 8 and 9); chapter 11 needs
    both roads directly, through chapters 5 and 10."""
    parts = dict(chapter_map.parts())
    by_part = {stem: caption.split(":")[0] for caption, stems in parts.items() for stem in stems}
    linear = {s for s, p in by_part.items() if p == "Part II"}
    softmax = {s for s, p in by_part.items() if p in ("Part III", "Part IV")} - {"ch11_two_roads"}
    edges = chapter_map.edges()
    assert not [(a, b) for a, b in edges if {a, b} & linear and {a, b} & softmax]
    for road in (linear, softmax):
        assert {by_part[a] for a, b in edges if b in road and a not in road} == {"Part I"}
    assert {"ch08_sculpting", "ch09_heads"} <= {a for a, b in edges if b == "ch10_lower_bounds"}
    direct = chapter_map.direct(edges)
    assert {a for a, b in direct if b == "ch11_two_roads"} == {"ch05_certificate", "ch10_lower_bounds"}
    assert ("ch04_regression", "ch05_certificate") in direct and ("ch03_linear_model", "ch05_certificate") not in direct


# --- each rule on a small notebook of its own ------------------------------------------------

FIRST = """# A chapter

```{admonition} What you will learn
:class: tip
Plain words.
```

```{admonition} Before you start
:class: note
**Needs:** {doc}`ch01_attention` (heads).
STUDY
```

```{admonition} Symbols in this chapter
:class: dropdown
| Symbol | Meaning |
|---|---|
| $d$ | the width; indices count from 1 |
```
"""


def md(text):
    return {"cell_type": "markdown", "metadata": {}, "source": text}


def code(text, *tags):
    return {"cell_type": "code", "metadata": {"tags": list(tags)}, "source": text, "outputs": [],
            "execution_count": None}


def good_cells():
    return [
        md(FIRST),
        code("import numpy as np\nrng = np.random.default_rng(0)", "hide-input"),
        md("## A section\n\nSome words.\n\n```{exercise} Build it (★★, 10 min)\n:label: ex-x-build\n\n"
           "*Coding.* Write it.\n```"),
        code("def my_it():\n    raise NotImplementedError", "skip-execution", "nbval-skip", "raises-exception"),
        md("```{admonition} Hint\n:class: hint dropdown\n\nLook.\n```\n\n"
           "```{solution-start} ex-x-build\n:class: dropdown\n```"),
        code("sol_rng = np.random.default_rng(1)\nmy_it = sol_rng.normal()"),
        md("```{solution-end}\n```\n\n```{admonition} Key idea\n:class: tip\nOne sentence.\n```"),
        code("x = rng.normal()"),
        md("## Summary\n\n- It.\n\n## Check yourself\n\n" + "".join(
            f"**{i}.** Why?\n\n```{{admonition}} Answer\n:class: dropdown\n\nBecause.\n```\n\n" for i in (1, 2, 3))),
        md("## Exercises\n\n```{exercise} Prove it (★★★, 30 min)\n:label: ex-x-prove\n\n*Pen and paper.* Go.\n```\n\n"
           "```{admonition} Hint\n:class: hint dropdown\n\nThink.\n```\n\n"
           "```{solution} ex-x-prove\n:class: dropdown\n\nDone.\n```"),
    ]


def problems(tmp_path, cells, study=True):
    path = tmp_path / "ch99_x.ipynb"
    nb = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(nb))
    if study:
        line = pedagogy.walk(path).study_line() if "STUDY" in cells[0]["source"] else None
        if line:
            cells[0] = md(cells[0]["source"].replace("STUDY", line))
            path.write_text(json.dumps(nb))
    return pedagogy.walk(path).problems


def test_a_page_that_keeps_every_rule_has_no_problems(tmp_path):
    assert problems(tmp_path, good_cells()) == []


def edit(index, old, new):
    def change(cells):
        cells[index] = {**cells[index], "source": cells[index]["source"].replace(old, new)}
        return cells
    return change


BROKEN = {
    "core path of": lambda c: c[:2] + [md("## Long\n\n" + "word " * (pedagogy.CORE_WORDS + 1)
                                          + "\n```{admonition} Key idea\n:class: tip\nOne.\n```")] + c[2:],
    "words on the core path": lambda c: c[:2] + [md("## Long\n\n" + "word " * (pedagogy.CELL_WORDS + 1))] + c[2:],
    "no 'Symbols in this chapter' box": edit(0, "Symbols in this chapter", "Notation"),
    "has no **Needs:** line": edit(0, "**Needs:**", "Needs"),
    "line splits a paragraph": edit(0, "(heads).\nSTUDY", "(heads,\nSTUDY\nand values)."),
    "study time is not current": edit(0, "STUDY", "**Study time:** about 9 hours: reading 1 min, the code 1 min, "
                                                  "the exercises 1 min."),
    "does not end with a Key idea box": edit(6, "Key idea", "Note"),
    "'Check yourself' has 2 folded answers": edit(8, "**3.** Why?\n\n```{admonition} Answer",
                                                  "**3.** Why?\n\n```{admonition} Note"),
    "no folded hint before its solution": edit(9, "{admonition} Hint", "{admonition} Note"),
    "a hint that is not folded": edit(4, ":class: hint dropdown", ":class: hint"),
    "a solution with code that does not run": edit(9, "Done.", "    print(42)"),
    "no exercise at the point of use": lambda c: c[:3] + [code("def my_it():\n    pass", "nbval-skip")] + c[4:],
    "a stub needs the tags": lambda c: c[:3] + [code("def my_it():\n    pass", "skip-execution", "nbval-skip")] + c[4:],
    "rebinds what the chapter imported: np": lambda c: c + [code("np = 3")],
    "only glues numbers or reads results files": lambda c: c[:7] + [code(
        'record = benchmark_results("x").results\nprint("took", glue("ch99-s", record["s"], ".1f"), "s")')] + c[7:],
    "removed from the page but defines": lambda c: [c[0], {**c[1], "metadata": {"tags": ["remove-input"]}}] + c[2:],
    "(a solution) uses the chapter's rng": edit(5, "sol_rng = np.random.default_rng(1)\nmy_it = sol_rng",
                                                "my_it = rng"),
    "(a solution) defines what a later cell uses": lambda c: c + [code("print(sol_rng)")],
}


@pytest.mark.parametrize("words", list(BROKEN))
def test_each_rule_catches_what_it_guards(tmp_path, words):
    found = problems(tmp_path, BROKEN[words](good_cells()))
    assert any(words in p for p in found), found


def test_the_study_time_goes_after_a_wrapped_needs_paragraph(tmp_path):
    cells = good_cells()
    cells[0] = md(FIRST.replace("(heads).\nSTUDY", "(heads,\nand values).\n"))
    path = tmp_path / "ch99_x.ipynb"
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    assert pedagogy.write_study_time(pedagogy.walk(path))
    first = pedagogy.source(json.loads(path.read_text())["cells"][0])
    assert "(heads,\nand values).\n**Study time:** about" in first
    assert pedagogy.walk(path).problems == []


def test_a_cell_that_fails_when_run_again_is_named(tmp_path):
    """scripts/rerun_cells.py (run by scripts/check_kernels.sh on the chapters) on a small notebook:
    a later cell rebinds an imported name, so the earlier cell that calls it fails the second time."""
    import nbformat
    import rerun_cells

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("from math import sqrt", metadata={"tags": ["hide-input"]}),
                nbformat.v4.new_code_cell("root = sqrt(4.0)"),
                nbformat.v4.new_code_cell("sqrt = root")]
    path = tmp_path / "twice.ipynb"
    nbformat.write(nb, path)
    failures = rerun_cells.rerun(path)
    assert len(failures) == 1 and "code cell 1" in failures[0] and "TypeError" in failures[0]
    nb.cells[2].source = "side = root"
    nbformat.write(nb, path)
    assert rerun_cells.rerun(path) == []
