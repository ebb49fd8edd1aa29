"""The assignments' masters, and the checks of scripts/assignments.py, without running otter.

`python scripts/assignments.py` runs otter itself (CI does, after installing the course
extra); these tests check the masters' structure and that the leak detector finds
solutions, markers and hidden tests, and only those.
"""

import importlib.util
import json
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("assignments", ROOT / "scripts" / "assignments.py")
assignments = importlib.util.module_from_spec(spec)
spec.loader.exec_module(assignments)

MASTERS = sorted((ROOT / "assignments").glob("*/*.ipynb"))


def cells_of(path):
    return json.loads(path.read_text())["cells"]


def questions(cells):
    """Per question: its config, prompt text, and how many public and hidden test cells it has."""
    found, current, block = [], None, []
    for cell in cells:
        marker = assignments._raw_marker(cell)
        text = assignments._source(cell)
        if marker:
            kind, what = marker.split()
            if kind == "BEGIN":
                block.append(what)
                if what == "QUESTION":
                    current = {"config": yaml.safe_load(text.split("\n", 1)[1]), "prompt": "", "public": 0,
                               "hidden": 0, "solution_cells": 0}
                    found.append(current)
            else:
                assert block and block.pop() == what, f"unbalanced {marker}"
            continue
        if current is None:
            continue
        if block == ["QUESTION"] and cell["cell_type"] == "markdown" and not current["prompt"]:
            current["prompt"] = text
        elif block[-1:] == ["SOLUTION"]:
            current["solution_cells"] += 1
        elif block[-1:] == ["TESTS"]:
            current["hidden" if text.startswith("# HIDDEN") else "public"] += 1
    assert not block, f"unclosed blocks {block}"
    return found


def test_three_masters_cover_the_parts():
    names = [p.stem for p in MASTERS]
    assert len(names) >= 3
    for name, path in zip(names, MASTERS, strict=True):
        assert path.parent.name == name, "a master lives in assignments/<name>/<name>.ipynb"
    text = " ".join(assignments._source(c) for p in MASTERS for c in cells_of(p)[:3])
    for part in ("Parts I–II", "Parts II–III", "Part IV"):
        assert part in text


@pytest.mark.parametrize("path", MASTERS, ids=[p.stem for p in MASTERS])
def test_master_structure(path):
    cells = cells_of(path)
    config = yaml.safe_load(assignments._source(cells[0]).split("\n", 1)[1])
    assert assignments._source(cells[0]).startswith("# ASSIGNMENT CONFIG") and cells[0]["cell_type"] == "raw"
    assert config["name"] == path.stem
    assert config["tests"]["files"] is True, "Colab needs the tests as files"
    assert config["init_cell"] is False, "our own init cell runs after the Colab install cell"
    install = next(assignments._source(c) for c in cells if c["cell_type"] == "code")
    assert '"google.colab" in sys.modules' in install and "otter-grader==7.0.0" in install
    assert f"{path.stem}-student.zip" in install
    qs = questions(cells)
    assert len(qs) >= 5
    minutes = 0
    for q in qs:
        name, points = q["config"]["name"], q["config"]["points"]
        stated = re.search(r"\((code|written|experiment), (\d+) points?, (\d+) min\)", q["prompt"])
        assert stated, f"{path.stem} {name}: the prompt must say (kind, N points, M min)"
        assert int(stated.group(2)) == points, f"{name}: prompt says {stated.group(2)} points, config {points}"
        minutes += int(stated.group(3))
        assert q["solution_cells"] == 1, f"{name}: one solution cell inside its raw BEGIN/END SOLUTION block"
        if q["config"].get("manual"):
            assert stated.group(1) == "written" and q["public"] == q["hidden"] == 0
        else:
            assert q["public"] >= 1 and q["hidden"] >= 1, f"{name}: public and hidden tests"
    assert 60 <= minutes <= 90, f"{path.stem}: {minutes} minutes of work; 60-90 expected"
    assert any(q["config"].get("manual") for q in qs) and any(not q["config"].get("manual") for q in qs)


@pytest.mark.parametrize("path", MASTERS, ids=[p.stem for p in MASTERS])
def test_tests_print_nothing(path):
    """otter's doctest-style cases fail on any output: tests are bare asserts."""
    for q_cell in cells_of(path):
        text = assignments._source(q_cell)
        if q_cell["cell_type"] == "code" and text.startswith("# HIDDEN"):
            assert "print(" not in text


def test_otter_is_a_course_extra_not_a_reader_requirement():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["optional-dependencies"]["course"] == ["otter-grader==7.0.0"]
    assert "otter" not in (ROOT / "requirements.txt").read_text()


# --- the leak detector, on a synthetic master ----------------------------------------------------


def cell(kind, text):
    out = {"cell_type": kind, "metadata": {}, "source": text}
    if kind == "code":
        out.update(outputs=[], execution_count=None)
    return out


MASTER = {"cells": [
    cell("raw", "# ASSIGNMENT CONFIG\nname: x"),
    cell("code", "import numpy as np"),
    cell("raw", "# BEGIN QUESTION\nname: q1\npoints: 2"),
    cell("markdown", "Write `triple(x)`."),
    cell("raw", "# BEGIN SOLUTION"),
    cell("code", "def triple(x):\n    # BEGIN SOLUTION\n    tripled = 3 * x\n    return tripled\n    # END SOLUTION"),
    cell("raw", "# END SOLUTION"),
    cell("raw", "# BEGIN TESTS"),
    cell("code", "assert triple(1) == 3"),
    cell("code", "# HIDDEN\nassert triple(-2) == -6"),
    cell("raw", "# END TESTS"),
    cell("raw", "# END QUESTION"),
    cell("raw", "# BEGIN QUESTION\nname: q2\npoints: 1\nmanual: true"),
    cell("markdown", "Why?"),
    cell("raw", "# BEGIN SOLUTION"),
    cell("markdown", "Because multiplication by three is linear."),
    cell("raw", "# END SOLUTION"),
    cell("raw", "# END QUESTION"),
    cell("code", "answer = 42  # SOLUTION"),
]}

CLEAN_STUDENT = {"cells": [cell("code", "import numpy as np"), cell("markdown", "Write `triple(x)`."),
                           cell("code", "def triple(x):\n    ..."), cell("code", 'grader.check("q1")'),
                           cell("markdown", "Why?"), cell("markdown", "_Type your answer here._"),
                           cell("code", "answer = ...")], "metadata": {}}


def student_folder(tmp_path, nb, tests="OK_FORMAT = True\ntest = {'cases': ['assert triple(1) == 3']}"):
    (tmp_path / "tests").mkdir()
    (tmp_path / "x.ipynb").write_text(json.dumps(nb))
    (tmp_path / "tests" / "q1.py").write_text(tests)
    return tmp_path


def test_master_parts():
    parts = assignments.master_parts(MASTER)
    assert parts["solution_lines"] == {"tripled = 3 * x", "return tripled", "answer = 42",
                                       "Because multiplication by three is linear."}
    assert parts["hidden_lines"] == {"assert triple(-2) == -6"}
    assert parts["questions"] == {"q1": 2.0}


def test_clean_student_version_has_no_leaks(tmp_path):
    assert assignments.leaks(MASTER, student_folder(tmp_path, CLEAN_STUDENT)) == []


@pytest.mark.parametrize("change, expected", [
    (lambda nb: nb["cells"][2].update(source="def triple(x):\n    tripled = 3 * x\n    return tripled"),
     "solution line in the student version: 'return tripled'"),
    (lambda nb: nb["cells"][2].update(source="def triple(x):\n    # BEGIN SOLUTION\n    ...\n    # END SOLUTION"),
     "marker 'BEGIN SOLUTION' left in the student version"),
    (lambda nb: nb["cells"][5].update(source="Because multiplication by three is linear."),
     "solution line in the student version: 'Because multiplication by three is linear.'"),
    (lambda nb: nb["cells"].append(cell("code", "# HIDDEN\nassert triple(-2) == -6")),
     "hidden test line in the student version: 'assert triple(-2) == -6'"),
])
def test_leaks_are_found(tmp_path, change, expected):
    nb = json.loads(json.dumps(CLEAN_STUDENT))
    change(nb)
    assert expected in assignments.leaks(MASTER, student_folder(tmp_path, nb))


def test_hidden_test_in_the_student_tests_is_found(tmp_path):
    folder = student_folder(tmp_path, CLEAN_STUDENT, tests="test = {'cases': ['assert triple(-2) == -6']}")
    assert assignments.leaks(MASTER, folder) == [
        "hidden test line in the student version: 'assert triple(-2) == -6'"]


def test_scores_leave_out_the_public_summary():
    results = {"tests": [{"name": "Public Tests", "visibility": "visible", "status": "passed"},
                         {"name": "q1", "score": 2.0, "max_score": 2.0},
                         {"name": "q2", "score": 0, "max_score": 3.0}]}
    assert assignments.scores(results) == {"q1": (2.0, 2.0), "q2": (0.0, 3.0)}
