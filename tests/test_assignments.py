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
            current["solution"] = text
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
    assert config["files"] == ["assignment_support.py"], "the autograder's copy of the support file wins"
    assert config["requirements"] == "requirements.txt" and config["autograder_files"] == ["{{wheel}}"]
    assert config["export_cell"] is False, "otter's export fails on Colab: the hand-in cell replaces it"
    code = [assignments._source(c) for c in cells if c["cell_type"] == "code"]
    install = code[0]
    assert '"google.colab" in sys.modules' in install and "otter-grader==7.0.0" in install
    assert "@{{attnlib_ref}}" in install, "Colab installs the attnlib the assignment was built with"
    assert f"{path.stem}-student.zip" in install
    assert "assignment_support.arm_cells()" in code[1]
    assert code[-1] == f'assignment_support.hand_in(grader, "{path.stem}")'
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
            rubric = re.search(r"\*\*Rubric \((\d+) points\)\.\*\*(.*)", q["solution"], flags=re.S)
            assert rubric and int(rubric.group(1)) == points, f"{name}: the reference answer ends with its rubric"
            shares = [float(x) for x in re.findall(r"(\d+(?:\.\d+)?): ", rubric.group(2))]
            assert sum(shares) == points, f"{name}: the rubric's shares {shares} do not add up to {points}"
        else:
            assert q["public"] >= 1 and q["hidden"] >= 1, f"{name}: public and hidden tests"
    assert 90 <= minutes <= 150, f"{path.stem}: {minutes} minutes of work; 90-150 expected"
    assert "About 2 hours" in assignments._source(cells[1])
    assert any(q["config"].get("manual") for q in qs) and any(not q["config"].get("manual") for q in qs)


@pytest.mark.parametrize("path", MASTERS, ids=[p.stem for p in MASTERS])
def test_tests_go_through_the_support_file(path):
    """Every test that calls a student's function does it through assignment_support (time limit, no library)."""
    names = assignments.solution_functions(json.loads(path.read_text()))
    assert names
    block = []
    for cell in cells_of(path):
        marker = assignments._raw_marker(cell)
        if marker:
            kind, what = marker.split()
            block = block + [what] if kind == "BEGIN" else block[:-1]
            continue
        if block[-1:] == ["TESTS"]:
            text = assignments._source(cell)
            for line in text.splitlines():
                line = re.sub(r'"[^"]*"', '""', line)  # not in messages
                for name in names:
                    # _s.call(name, ...) and _s.check(book_check, lambda ...: name(...)) are guarded
                    direct = re.search(rf"(?<![\w.]){name}\(", line) and "_s.check(" not in line
                    assert not direct, f"{path.stem}: a test calls {name}(...) directly: {line}"


@pytest.mark.parametrize("path", MASTERS, ids=[p.stem for p in MASTERS])
def test_tests_print_nothing(path):
    """otter's doctest-style cases fail on any output: tests are bare asserts."""
    for q_cell in cells_of(path):
        text = assignments._source(q_cell)
        if q_cell["cell_type"] == "code" and text.startswith("# HIDDEN"):
            assert "print(" not in text


def test_course_extra_installs_what_its_commands_need():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    course = project["optional-dependencies"]["course"]
    assert "otter-grader[grading]==7.0.0" in course
    assert any(r.startswith("ipykernel") for r in course), "otter runs notebooks on a python3 kernel"
    assert any(r.startswith("pyyaml") for r in course) and any(r.startswith("setuptools") for r in course)
    assert "otter" not in (ROOT / "requirements.txt").read_text()


# --- variants from a secret seed ----------------------------------------------------------------


@pytest.mark.parametrize("path", MASTERS, ids=[p.stem for p in MASTERS])
def test_variants_render_every_placeholder_and_differ(path):
    master = json.loads(path.read_text())
    extra = {"variant": "x", "repository": "https://example.org/r", "attnlib_ref": "abc", "wheel": "a.whl"}
    rendered = []
    for seed in (assignments.DEMO_SEED, "a course seed of some length"):
        values = assignments.variant_module(path.stem).parameters(assignments.variant_rng(seed, path.stem))
        nb = assignments.render(master, {**values, **extra})
        text = "\n".join(assignments._source(c) for c in nb["cells"])
        assert not assignments.PLACEHOLDER.search(text)
        rendered.append(values)
    assert rendered[0] != rendered[1], "two seeds give the same variant"
    again = assignments.variant_module(path.stem).parameters(assignments.variant_rng("a course seed of some length",
                                                                                      path.stem))
    assert again == rendered[1], "a seed must always give the same variant"


def test_render_refuses_unknown_and_unused_names():
    nb = {"cells": [cell("code", "x = {{a}}")]}
    assert assignments._source(assignments.render(nb, {"a": 1})["cells"][0]) == "x = 1"
    with pytest.raises(assignments.AssignmentError, match="uses {{a}}, which the variant does not define"):
        assignments.render(nb, {})
    with pytest.raises(assignments.AssignmentError, match=r"defines \['b'\], which the master never uses"):
        assignments.render(nb, {"a": 1, "b": 2})


def test_seed_stays_outside_the_repository(tmp_path, monkeypatch):
    monkeypatch.delenv(assignments.SEED_ENV, raising=False)
    assert assignments.read_seed(None) == assignments.DEMO_SEED
    inside = ROOT / "_build" / "test.seed"
    with pytest.raises(assignments.AssignmentError, match="is inside the repository"):
        assignments.read_seed(str(inside))
    short = tmp_path / "short.seed"
    short.write_text("abc\n")
    with pytest.raises(assignments.AssignmentError, match="use at least 12"):
        assignments.read_seed(str(short))
    good = tmp_path / "course.seed"
    good.write_text("9f2c41d7a0be55e3\n")
    assert assignments.read_seed(str(good)) == "9f2c41d7a0be55e3"
    monkeypatch.setenv(assignments.SEED_ENV, "another course seed")
    assert assignments.read_seed(None) == "another course seed"
    assert assignments.variant_id("another course seed") not in ("demo", "another course seed")


# --- example submissions ------------------------------------------------------------------------

SOLUTION = """from attnlib.rkhs import cubic_features


def fit(X, Y):
    # BEGIN SOLUTION
    return np.linalg.lstsq(cubic_features(X), Y, rcond=None)[0]
    # END SOLUTION
"""


@pytest.mark.parametrize("kind, expected", [
    ("raising", 'raise RuntimeError("a bug in fit")'),
    ("looping", "while True:"),
    ("library", "return fit_linear_attention(X, Y).coef"),
    ("wrong", "return _perturbed(_right_fit(*args, **kwargs))"),
])
def test_example_cells(kind, expected):
    library = {"fit": "def fit(X, Y):\n    return fit_linear_attention(X, Y).coef"}
    out = assignments.example_cell(SOLUTION, kind, ["fit"], library)
    assert expected in out and out.startswith("from attnlib.rkhs import cubic_features")
    if kind != "wrong":
        assert "lstsq" not in out
    namespace = {}
    exec(compile(out.replace("while True:", "while False:"), "cell", "exec"), namespace)
    assert callable(namespace["fit"])


def test_wrong_example_perturbs_every_kind_of_answer():
    out = assignments.example_cell("def f(x):\n    # BEGIN SOLUTION\n    return x\n    # END SOLUTION", "wrong",
                                   ["f"], {})
    namespace = {"np": __import__("numpy")}
    exec(out, namespace)
    f = namespace["f"]
    assert f(True) is False and f(3) == 4 and f((1, 2)) == (2, 3) and list(f([0.0, 1.0])) == [0.5, 1.5]


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
