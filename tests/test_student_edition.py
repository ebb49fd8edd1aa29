"""Tests for scripts/student_edition.py: the leak detector finds solution text, and only that."""

import importlib.util
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
    assert config["repository"] == student_edition.yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]
