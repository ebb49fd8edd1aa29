"""Tests for scripts/student_edition.py: the leak detector finds solution text, and only that."""

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("student_edition", ROOT / "scripts" / "student_edition.py")
student_edition = importlib.util.module_from_spec(spec)
spec.loader.exec_module(student_edition)

PAGE = """# A chapter

Some text that mentions gradient descent and the squared loss of the layer.

```{exercise} Sum of squares (★, 5 min)
:label: ex-x

Show that the squared loss of the layer is nonnegative.
```

```{solution} ex-x
:class: dropdown

Every term is a square of a real number, so the whole sum is nonnegative as claimed.
```
"""


@pytest.fixture
def book(tmp_path):
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "x.md").write_text(PAGE)
    (tmp_path / "html").mkdir()
    return tmp_path


def test_solution_bodies_and_fingerprints(book):
    (body,) = student_edition.solution_texts(book)
    assert body.startswith(":class: dropdown")
    assert student_edition.fingerprints(body) == ["Every term is a square of"]


def test_leak_is_found_in_html(book):
    (book / "html" / "x.html").write_text(
        "<p>Every term is a <em>square</em> of a real number, so the whole sum</p>")
    assert student_edition.leaks(book / "html", book) == ["x.html: 'Every term is a square of'"]


def test_rendered_solution_element_is_found(book):
    (book / "html" / "x.html").write_text('<div class="solution dropdown admonition">hidden?</div>')
    assert student_edition.leaks(book / "html", book) == ["x.html: a solution element is rendered"]


def test_clean_page_and_public_text_are_not_leaks(book):
    # the exercise statement and the prose are public, even if a solution repeats them
    (book / "html" / "x.html").write_text(
        "<p>Some text that mentions gradient descent and the squared loss of the layer.</p>"
        "<p>Show that the squared loss of the layer is nonnegative.</p>")
    assert student_edition.leaks(book / "html", book) == []


def test_student_config_derives_from_the_main_config():
    config = student_edition.student_config()
    assert config["sphinx"]["config"]["hide_solutions"] is True
    assert config["title"].endswith("(student edition)")
    main = student_edition.yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]
    assert config["repository"] == {**main, "branch": student_edition.STUDENT_BRANCH}


def test_the_student_build_renders_the_committed_outputs_without_executing():
    """The student build does not run the chapters: it renders the outputs they are committed
    with, and cutting solutions leaves every other code cell and its outputs as they are."""
    assert student_edition.student_config()["execute"]["execute_notebooks"] == "off"
    chapters = sorted((ROOT / "book").glob("ch*.ipynb"))
    assert chapters
    for chapter in chapters:
        full = json.loads(chapter.read_text())["cells"]
        student = student_edition.strip_notebook(json.loads(chapter.read_text()))["cells"]
        inside, expected = False, []
        for cell in full:  # a naive scan: the code cells outside solution-start ... solution-end
            text = "".join(cell["source"])
            inside = inside or "{solution-start}" in text
            if cell["cell_type"] == "code" and not inside:
                expected.append(cell)
            inside = inside and "{solution-end}" not in text
        assert [c for c in student if c["cell_type"] == "code"] == expected, chapter.name


GATED = [
    {"cell_type": "markdown", "metadata": {},
     "source": "Exercise text.\n\n```{solution-start} ex-g\n:class: dropdown\n```\n\nWe build it:"},
    {"cell_type": "code", "metadata": {}, "source": "secret_solution_value = 41 + 1", "outputs": [],
     "execution_count": 1},
    {"cell_type": "markdown", "metadata": {},
     "source": "Then the rest of the gated solution here.\n\n```{solution-end}\n```\n\nThe chapter goes on."},
    {"cell_type": "code", "metadata": {}, "source": "1 + 1", "outputs": [], "execution_count": 2},
]


def test_gated_solutions_are_cut_with_their_code_cells():
    cells, bodies = student_edition.strip_gated([dict(c) for c in GATED])
    assert [c["source"] for c in cells] == ["Exercise text.\n\n", "\nThe chapter goes on.", "1 + 1"]
    assert len(bodies) == 1 and "secret_solution_value" in bodies[0] and "rest of the gated" in bodies[0]


def test_a_gated_solution_without_its_end_is_an_error():
    with pytest.raises(ValueError, match="without its"):
        student_edition.strip_gated([dict(GATED[0]), dict(GATED[1])])


def test_gated_solutions_are_solutions_for_the_leak_check(tmp_path):
    (tmp_path / "book").mkdir()
    nb = {"cells": GATED, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "book" / "ch.ipynb").write_text(json.dumps(nb))
    (tmp_path / "attnlib").mkdir()
    texts = student_edition.solution_texts(tmp_path)
    assert any("Then the rest of the gated solution here" in t for t in texts)
    public = student_edition.public_text(tmp_path)
    assert "secret solution value" not in public and "The chapter goes on" in public
    (tmp_path / "html").mkdir()
    (tmp_path / "html" / "x.html").write_text("<p>Then the rest of the gated solution here.</p>")
    assert student_edition.leaks(tmp_path / "html", tmp_path)


# --- the solution-free sources, and the launch and download targets -------------------------------

NESTED = """Before.

````{solution} ex-y
:class: dropdown

```python
secret = 42
```
Then the rest of the solution.
````

After.
"""


def test_strip_solutions_handles_nested_fences():
    assert student_edition.strip_solutions(PAGE).count("{solution}") == 0
    assert "Every term is a square" not in student_edition.strip_solutions(PAGE)
    assert "Show that the squared loss" in student_edition.strip_solutions(PAGE)
    assert student_edition.strip_solutions(NESTED) == "Before.\n\n\nAfter.\n"


def test_student_sources_leave_out_solutions_and_private_folders(tmp_path):
    root = tmp_path / "repo"
    (root / "book").mkdir(parents=True)
    (root / "assignments" / "a1").mkdir(parents=True)
    (root / "book" / "x.md").write_text(PAGE)
    nb = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": NESTED},
                    {"cell_type": "code", "metadata": {}, "source": "1 + 1", "outputs": [], "execution_count": None}],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (root / "book" / "ch.ipynb").write_text(student_edition.json.dumps(nb))
    (root / "assignments" / "a1" / "a1.ipynb").write_text("# BEGIN SOLUTION")
    (root / "_config.yml").write_text("title: x")
    dest = tmp_path / "src"
    cut = student_edition.write_student_sources(dest, root, ["book/x.md", "book/ch.ipynb", "assignments/a1/a1.ipynb",
                                                             "_config.yml"])
    assert cut == 2
    assert not (dest / "assignments").exists() and (dest / "_config.yml").exists()
    copied = student_edition.json.loads((dest / "book" / "ch.ipynb").read_text())
    assert "secret" not in copied["cells"][0]["source"] and copied["cells"][1]["source"] == "1 + 1"
    assert "{solution}" not in (dest / "book" / "x.md").read_text()


def launch_page(branch="student", download="../_sources/book/x.md"):
    base = "https://github.com/o/r"
    return (f'<a href="https://mybinder.org/v2/gh/o/r/{branch}?urlpath=tree/book/x.md">Binder</a>'
            f'<a href="https://colab.research.google.com/github/o/r/blob/{branch}/book/x.md">Colab</a>'
            f'<a href="{download}" download>.ipynb</a><a href="{base}">repo</a>')


@pytest.fixture
def student_build(book, tmp_path):
    html, src = tmp_path / "build", tmp_path / "src"
    (html / "book").mkdir(parents=True)
    (html / "_sources" / "book").mkdir(parents=True)
    student_edition.write_student_sources(src, book, ["book/x.md"])
    (html / "_sources" / "book" / "x.md").write_text((src / "book" / "x.md").read_text())
    (html / "book" / "x.html").write_text(launch_page())
    return html, src


def test_launch_targets_are_read_from_the_links(student_build):
    html, _ = student_build
    assert student_edition.launch_targets(html) == [
        ("book/x.html", "Binder", "student", "book/x.md"), ("book/x.html", "Colab", "student", "book/x.md"),
        ("book/x.html", "download", "", "_sources/book/x.md")]


def test_clean_targets_pass(student_build, book):
    html, src = student_build
    assert student_edition.target_leaks(html, src, book) == []


def test_a_target_with_solutions_is_found(student_build, book):
    html, src = student_build
    (html / "_sources" / "book" / "x.md").write_text(PAGE)         # the full source was served
    assert student_edition.target_leaks(html, src, book) == [
        "book/x.html: the download target _sources/book/x.md holds 'Every term is a square of'",
        "book/x.html: the download target _sources/book/x.md holds 'a {solution} directive'"]


def test_a_button_to_the_main_branch_is_found(student_build, book):
    html, src = student_build
    (html / "book" / "x.html").write_text(launch_page(branch="main"))
    problems = student_edition.target_leaks(html, src, book)
    assert "book/x.html: the Binder button opens branch 'main', not 'student'" in problems
    assert "book/x.html: the Colab button opens branch 'main', not 'student'" in problems


def test_student_config_points_the_buttons_at_the_student_branch():
    assert student_edition.student_config()["repository"]["branch"] == student_edition.STUDENT_BRANCH
