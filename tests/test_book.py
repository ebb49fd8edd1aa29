"""Checks on the book's sources: the conventions of BOOK.md, enforced.

nbval re-executes the chapters and compares their outputs; these tests check
what nbval cannot: the table of contents, the one repository URL, exercises with
solutions, and the rules for randomness and ignored cells.
"""

import json
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text())
TOC = yaml.safe_load((ROOT / "_toc.yml").read_text())


def toc_files():
    files = [TOC["root"]]
    for part in TOC.get("parts", []):
        for chapter in part.get("chapters", []):
            files.append(chapter["file"])
    return files


def chapter_paths():
    return [ROOT / f"{f}.ipynb" for f in toc_files() if (ROOT / f"{f}.ipynb").exists()]


CHAPTERS = chapter_paths()
IDS = [p.stem for p in CHAPTERS]


def load(path):
    return json.loads(path.read_text())


def source(cell):
    return "".join(cell["source"])


def test_every_toc_entry_exists():
    for f in toc_files():
        assert any((ROOT / f"{f}{ext}").exists() for ext in (".md", ".ipynb")), f"{f} is in _toc.yml but missing"


def test_every_chapter_notebook_is_in_the_toc():
    listed = set(toc_files())
    for path in (ROOT / "book").glob("*.ipynb"):
        assert f"book/{path.stem}" in listed, f"{path.name} is not in _toc.yml"


def test_toc_has_part_one():
    captions = [part["caption"] for part in TOC["parts"]]
    assert captions[0] == "Part I: Attention and learning"
    assert captions[-1] == "Appendices"


def test_repository_url_is_set_once_and_used_by_launch_buttons():
    url = CONFIG["repository"]["url"]
    assert re.fullmatch(r"https://github\.com/[\w.-]+/[\w.-]+", url)
    buttons = CONFIG["launch_buttons"]
    assert buttons["binderhub_url"] == "https://mybinder.org"
    assert buttons["colab_url"] == "https://colab.research.google.com"
    assert buttons["thebe"] is True


@pytest.mark.parametrize("path", CHAPTERS, ids=IDS)
def test_chapter_is_executed_in_order_without_errors(path):
    # a stub for the learner (tag skip-execution) is for them to run, not the build
    code = [c for c in load(path)["cells"] if c["cell_type"] == "code" and source(c).strip()
            and "skip-execution" not in c["metadata"].get("tags", [])]
    counts = [c["execution_count"] for c in code]
    assert None not in counts, "commit the executed notebook"
    assert counts == sorted(counts) and len(set(counts)) == len(counts)
    assert not any(o["output_type"] == "error" for c in code for o in c["outputs"])


@pytest.mark.parametrize("path", CHAPTERS, ids=IDS)
def test_chapter_opens_with_title_and_colab_install_cell(path):
    cells = load(path)["cells"]
    assert cells[0]["cell_type"] == "markdown" and source(cells[0]).startswith("# ")
    setup = next(c for c in cells if c["cell_type"] == "code")
    # it only installs and imports: its input is removed from the page and it prints nothing, so
    # it leaves no empty "Show code cell content" bar under the chapter's banner
    assert "remove-input" in setup["metadata"].get("tags", []) and not setup.get("outputs")
    url = CONFIG["repository"]["url"]
    install = re.search(rf'"attnlib\[viz\] @ git\+{re.escape(url)}@([0-9a-f]{{40}})"', source(setup))
    assert install, (
        "the Colab install cell must install the release pinned by its commit from _config.yml's URL "
        "(python scripts/pin_release.py)")
    # Colab has no checkout: the cell fetches the book's helpers from the same commit; elsewhere
    # book/bookkit.py is beside the chapter. Then every figure is stored as SVG and PDF.
    raw = url.replace("https://github.com/", "https://raw.githubusercontent.com/", 1)
    assert f"!curl -sSfO {raw}/{install.group(1)}/book/bookkit.py\n" in source(setup), (
        "the Colab install cell must download book/bookkit.py from the commit it installs attnlib from "
        "(python scripts/pin_release.py)")
    assert re.search(r"(?m)^import bookkit\n(.*\n)*bookkit\.show_as_vector\(\)", source(setup)), (
        "the set-up cell imports the book's helpers and stores figures as SVG and PDF: bookkit.show_as_vector()")


@pytest.mark.parametrize("path", CHAPTERS, ids=IDS)
def test_randomness_is_one_seeded_generator(path):
    """One generator for the chapter; a solution that runs (cut from the student edition, so it
    must not draw from the chapter's) seeds its own with a number."""
    cells, solutions, inside = load(path)["cells"], [], False
    for cell in cells:
        inside = inside or "{solution-start}" in source(cell)
        if inside and cell["cell_type"] == "code":
            solutions.append(source(cell))
        inside = inside and "{solution-end}" not in source(cell)
    code = "\n".join(source(c) for c in cells if c["cell_type"] == "code" and source(c) not in solutions)
    assert len(re.findall(r"default_rng\(", code)) == 1, "one rng = np.random.default_rng(SEED) per chapter"
    for text in solutions:
        assert all(re.fullmatch(r"\d+", seed.strip()) for seed in re.findall(r"default_rng\(([^)]*)\)", text)), (
            "a solution seeds its own generator with a number")
    code = "\n".join(source(c) for c in cells if c["cell_type"] == "code")
    assert not re.search(r"np\.random\.(seed|rand|randn|normal|uniform|choice|randint|permutation|shuffle)\(",
                         code)


@pytest.mark.parametrize("path", CHAPTERS, ids=IDS)
def test_ignored_outputs_are_only_widgets_and_timings(path):
    for cell in load(path)["cells"]:
        text = source(cell)
        if cell["cell_type"] != "code":
            continue
        # nbval reads the cell tag; the comment would show on the page as harness text.
        assert not re.search(r"NBVAL|#\s*noqa", text), f"harness text in a chapter cell: {text[:200]}"
        if "nbval-ignore-output" in cell["metadata"].get("tags", []):
            assert re.search(r"widgets?\w*[._]|perf_counter|timeit|\.seconds", text), text[:200]


# Witnesses of claims: tests/test_book_prose.py (every statement is witnessed by tagged cells, or says why).


@pytest.mark.parametrize("path", CHAPTERS, ids=IDS)
def test_exercises_have_solutions_difficulty_and_time(path):
    text = "\n".join(source(c) for c in load(path)["cells"] if c["cell_type"] == "markdown")
    exercises = re.findall(r"```\{exercise\}([^\n]*)\n:label: ([\w-]+)", text)
    assert len(exercises) >= 4, f"{path.name} has {len(exercises)} exercises; at least 4 are expected"
    # a solution in one block, or gated (solution-start ... solution-end around the code that runs)
    solutions = set(re.findall(r"```\{solution(?:-start)?\} ([\w-]+)\n:class: dropdown", text))
    for title, label in exercises:
        assert re.search(r"\((★{1,3}), \d+ min\)", title), f"{label}: title needs (★.., N min): {title!r}"
        assert label in solutions, f"{label} has no dropdown solution"


def test_labels_are_unique_across_the_book():
    seen = {}
    for path in CHAPTERS:
        text = "\n".join(source(c) for c in load(path)["cells"] if c["cell_type"] == "markdown")
        for label in re.findall(r"^:label: ([\w-]+)", text, flags=re.M):
            assert label not in seen, f"label {label} in {path.name} and {seen[label]}"
            seen[label] = path.name


def test_every_chapter_has_a_widget():
    for path in CHAPTERS:
        code = "\n".join(source(c) for c in load(path)["cells"] if c["cell_type"] == "code")
        assert re.search(r"widgets?\w*[._]\w+\(", code), f"{path.name} has no widget"


def test_citations_resolve():
    keys = set(re.findall(r"^@\w+\{([\w-]+),", (ROOT / "book" / "references.bib").read_text(), flags=re.M))
    pages = [*(ROOT / "book").glob("*.md"), *CHAPTERS]
    for page in pages:
        text = page.read_text()
        for group in re.findall(r"\{cite(?::[pt])?\}`([^`]+)`", text):
            for key in group.split(","):
                assert key.strip() in keys, f"{page.name} cites unknown key {key!r}"


# --- exercises for courses: kinds, checks, times ---------------------------------------------

EXERCISE = re.compile(r"`{3,4}\{exercise\}([^\n]*)\n:label: ([\w-]+)\n(.*?)\n`{3,4}\n", re.S)
#: Every exercise's text starts with its kind, in italics. "Pen and paper, then coding" counts as both.
KINDS = {
    "*Pen and paper.*": {"pen and paper"},
    "*Coding.*": {"coding"},
    "*Predict, then run.*": {"predict, then run"},
    "*Pen and paper, then coding.*": {"pen and paper", "coding"},
}


def exercises(path):
    """(title, label, kinds, body) of every exercise of a chapter, in order."""
    text = "\n".join(source(c) for c in load(path)["cells"] if c["cell_type"] == "markdown")
    found = []
    for title, label, body in EXERCISE.findall(text):
        lead = next((k for k in KINDS if body.lstrip().startswith(k)), None)
        found.append((title, label, KINDS.get(lead, set()), body))
    return found


@pytest.mark.parametrize("path", CHAPTERS, ids=IDS)
def test_every_exercise_says_its_kind(path):
    for _, label, kinds, body in exercises(path):
        assert kinds, f"{label} must start with one of {list(KINDS)}; starts with {body.lstrip()[:40]!r}"


@pytest.mark.parametrize("path", CHAPTERS, ids=IDS)
def test_every_chapter_mixes_all_three_kinds(path):
    present = set().union(*(kinds for _, _, kinds, _ in exercises(path)))
    missing = {"pen and paper", "coding", "predict, then run"} - present
    assert not missing, f"{path.name} has no exercise of kind {sorted(missing)}"


@pytest.mark.parametrize("path", CHAPTERS, ids=IDS)
def test_every_coding_exercise_names_an_existing_check(path):
    import attnlib.checks

    for _, label, kinds, body in exercises(path):
        names = set(re.findall(r"\b(check_\w+)\(", body))
        if "coding" in kinds:
            assert names, f"{label} is a coding exercise but tells the reader no check to call"
            assert re.search(r"from attnlib\.checks import check_\w+", body), \
                f"{label} must show the import: from attnlib.checks import check_x"
        for name in names:
            assert name in attnlib.checks.__all__, f"{label} names {name}, which attnlib.checks does not have"


def test_every_check_serves_an_exercise():
    import attnlib.checks

    named = set()
    for path in CHAPTERS:
        for *_, body in exercises(path):
            named |= set(re.findall(r"\b(check_\w+)\(", body))
    unused = [name for name in attnlib.checks.__all__ if name.startswith("check_") and name not in named]
    assert not unused, f"checks that no exercise mentions: {unused}"


def test_instructors_guide_has_the_current_exercise_table():
    import importlib.util

    spec = importlib.util.spec_from_file_location("exercise_times", ROOT / "scripts" / "exercise_times.py")
    times = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(times)
    guide = (ROOT / "book" / "instructors.md").read_text()
    assert times.guide_table(guide) == times.table(), "run python scripts/exercise_times.py --write"
    toc = [c["file"] for part in TOC["parts"] for c in part["chapters"]]
    assert toc.index("book/instructors") == toc.index("book/api") - 1, "the guide comes just before the API reference"
