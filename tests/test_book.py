"""Checks on the book's sources: the conventions of BOOK.md, enforced.

nbval re-executes the chapters and compares their outputs; these tests check
what nbval cannot: the table of contents, the one repository URL, witnesses after
claims, exercises with solutions, and the rules for randomness and ignored cells.
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
    code = [c for c in load(path)["cells"] if c["cell_type"] == "code" and source(c).strip()]
    counts = [c["execution_count"] for c in code]
    assert None not in counts, "commit the executed notebook"
    assert counts == sorted(counts) and len(set(counts)) == len(counts)
    assert not any(o["output_type"] == "error" for c in code for o in c["outputs"])


@pytest.mark.parametrize("path", CHAPTERS, ids=IDS)
def test_chapter_opens_with_title_and_colab_install_cell(path):
    cells = load(path)["cells"]
    assert cells[0]["cell_type"] == "markdown" and source(cells[0]).startswith("# ")
    setup = next(c for c in cells if c["cell_type"] == "code")
    assert "hide-cell" in setup["metadata"].get("tags", [])
    url = CONFIG["repository"]["url"]
    assert f'"attnlib[viz] @ git+{url}"' in source(setup), "the Colab install cell must use _config.yml's URL"


@pytest.mark.parametrize("path", CHAPTERS, ids=IDS)
def test_randomness_is_one_seeded_generator(path):
    code = "\n".join(source(c) for c in load(path)["cells"] if c["cell_type"] == "code")
    assert len(re.findall(r"default_rng\(", code)) == 1, "one rng = np.random.default_rng(SEED) per chapter"
    assert not re.search(r"np\.random\.(seed|rand|randn|normal|uniform|choice|randint|permutation|shuffle)\(",
                         code)


@pytest.mark.parametrize("path", CHAPTERS, ids=IDS)
def test_ignored_outputs_are_only_widgets_and_timings(path):
    for cell in load(path)["cells"]:
        text = source(cell)
        if cell["cell_type"] == "code" and "NBVAL_IGNORE_OUTPUT" in text:
            assert re.search(r"widgets?\w*[._]|perf_counter|timeit|\.seconds", text), text[:200]


CLAIM = re.compile(r"```\{prf:(theorem|lemma|proposition|corollary)\}")


@pytest.mark.parametrize("path", CHAPTERS, ids=IDS)
def test_every_claim_is_followed_by_a_witness(path):
    cells = load(path)["cells"]
    for i, cell in enumerate(cells):
        if cell["cell_type"] != "markdown":
            continue
        for match in CLAIM.finditer(source(cell)):
            later = cells[i + 1:]
            stop = next((j for j, c in enumerate(later) if c["cell_type"] == "markdown" and CLAIM.search(source(c))),
                        len(later))
            witnesses = [c for c in later[:stop] if c["cell_type"] == "code" and "assert" in source(c)]
            assert witnesses, f"{path.name}: the {match.group(1)} in cell {i} has no witness cell after it"


@pytest.mark.parametrize("path", CHAPTERS, ids=IDS)
def test_exercises_have_solutions_difficulty_and_time(path):
    text = "\n".join(source(c) for c in load(path)["cells"] if c["cell_type"] == "markdown")
    exercises = re.findall(r"```\{exercise\}([^\n]*)\n:label: ([\w-]+)", text)
    assert len(exercises) >= 4, f"{path.name} has {len(exercises)} exercises; at least 4 are expected"
    solutions = set(re.findall(r"```\{solution\} ([\w-]+)\n:class: dropdown", text))
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
