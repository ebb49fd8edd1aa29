"""The assignments' masters, and the checks of scripts/assignments.py, without running otter.

`python scripts/assignments.py` runs otter itself (CI does, after installing the course
extra); these tests check the masters' structure, that every variant asks every code question in
a form other than the one the published solutions answer, that times, limits and chapters agree
wherever they are stated, and that the leak detector finds solutions, markers and hidden tests,
and only those.
"""

import ast
import importlib.metadata
import importlib.util
import io
import json
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("assignments", ROOT / "scripts" / "assignments.py")
assignments = importlib.util.module_from_spec(spec)
spec.loader.exec_module(assignments)
support = assignments.support_module()

MASTERS = sorted((ROOT / "assignments").glob("*/*.ipynb"))
#: A wheel as scripts/assignments.py names it: the release, then the commit it was built from.
WHEEL = "attnlib-0.2.0+g1a2b3c4d5e6f-py3-none-any.whl"
SEEDS = [assignments.DEMO_SEED] + [f"course seed number {i:03d}" for i in range(12)]


def cells_of(path):
    return json.loads(path.read_text())["cells"]


def demo_cells(path):
    """The master rendered for the public demo variant (its code parses)."""
    master = json.loads(path.read_text())
    values = {**assignments.variant_values(path.stem, assignments.DEMO_SEED),
              **assignments.fixed_values(master, WHEEL, assignments.DEMO_SEED)}
    return assignments.render(master, values)["cells"]


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
                               "hidden": 0, "solution_cells": 0, "tests": []}
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
            current["tests"].append(text)
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
    assert config["files"] == ["assignment_support.py", "assignment_grading.py"], "the autograder's copies win"
    assert config["requirements"] == "requirements.txt" and config["autograder_files"] == ["{{wheel}}"]
    assert config["python_version"] == "{{python_version}}", "the grading image runs the Python that CI tests"
    assert config["export_cell"] is False, "otter's export fails on Colab: the hand-in cell replaces it"
    code = [assignments._source(c) for c in cells if c["cell_type"] == "code"]
    install = code[0]
    assert '"google.colab" in sys.modules' in install and "otter-grader==7.0.0" in install
    assert "git+" not in install and "{{repository}}" not in install, "students download nothing of attnlib"
    lines = install.splitlines()
    at = lines.index('if _installed != "{{attnlib_version}}":')
    assert lines[at + 1] == "    %pip install -q {{wheel}}", "attnlib comes from the wheel in the student zip"
    assert lines.index(f"    !unzip -oq {path.stem}-student.zip") < at, "on Colab the zip is unpacked first"
    setup = [line for line in code[1].splitlines() if line.strip() and not line.startswith("#")]
    assert setup[:2] == ["import assignment_support", "assignment_support.arm_cells()" + setup[1][30:]], \
        "the cell limit is armed before anything that can fail"
    assert f'assignment_support.notebook("{path.stem}")' in code[1] and "otter.Notebook(" not in code[1]
    assert code[-1] == f'assignment_support.hand_in(grader, "{path.stem}")'
    qs = questions(cells)
    assert len(qs) >= 5
    minutes = 0
    for q, demo in zip(qs, questions(demo_cells(path)), strict=True):
        name, points = q["config"]["name"], assignments.question_points(q["config"])
        stated = assignments.STATED.search(q["prompt"])
        assert stated, f"{path.stem} {name}: the prompt must say (kind, N points, M min)"
        assert float(stated.group(2)) == points, f"{name}: prompt says {stated.group(2)} points, config {points}"
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
            case_points = q["config"]["points"]
            assert isinstance(case_points, list) and len(case_points) == q["public"] + q["hidden"], \
                f"{name}: one point value per test case"
            for test, value in zip(demo["tests"], case_points, strict=True):
                values = ("expect_close", "expect_equal", "_s.check(", "isclose", "allclose", "raises", "norm(")
                only_shape = not any(v in line for line in test.splitlines() if line.startswith("assert")
                                     for v in values)
                if only_shape:
                    assert value == 0, f"{name}: a test of shapes and types only carries points ({test!r})"
    assert 120 <= minutes <= 180, f"{path.stem}: {minutes} minutes of work; 2-3 hours expected"
    assert "{{duration}}" in assignments._source(cells[1]), "the header states the sum of the questions' minutes"
    assert any(q["config"].get("manual") for q in qs) and any(not q["config"].get("manual") for q in qs)


def test_duration_is_the_sum_of_the_minutes():
    nb = {"cells": [cell("raw", "# BEGIN QUESTION\nname: q1\npoints: 1"), cell("markdown", "(code, 1 point, 25 min)"),
                    cell("raw", "# END QUESTION"), cell("raw", "# BEGIN QUESTION\nname: q2\npoints: [1, 2]"),
                    cell("markdown", "(written, 3 points, 100 min)"), cell("raw", "# END QUESTION")]}
    assert assignments.duration(nb).startswith("About 2 h 05 min")
    assert [q["points"] for q in assignments.questions_of(nb)] == [1.0, 3.0]


@pytest.mark.parametrize("path", MASTERS, ids=[p.stem for p in MASTERS])
def test_chapters_named_in_prompts_are_in_the_header(path):
    """A question that needs a chapter says so, and the header lists it (A2 once left out chapter 8)."""
    cells = cells_of(path)
    header = re.search(r"\(chapters? ([^)]*)\)", assignments._source(cells[1])).group(1)

    def numbers(text):
        out = set()
        for a, b in re.findall(r"(\d+)(?:[–-](\d+))?", text):
            out.update(range(int(a), int(b or a) + 1))
        return out

    listed = numbers(header)
    mentioned = set()
    for q in questions(cells):
        for span in re.findall(r"[Cc]hapters? ((?:\d+(?:[–-]\d+)?(?:, | and )?)+)", q["prompt"]):
            mentioned |= numbers(span)
    assert mentioned <= listed, (f"{path.stem}: prompts need chapters {sorted(mentioned - listed)}, the header "
                                 f"lists {header}")


def test_time_limits_are_stated_as_the_support_file_sets_them():
    for path in MASTERS:
        text = " ".join(assignments._source(c) for c in cells_of(path))
        assert "{{test_seconds}}" in text and "{{cell_seconds}}" in text
        assert not re.search(r"ten seconds|two minutes|\b\d+ s\b(?! )", text.replace("{{", "")), path.stem
    values = assignments.fixed_values(json.loads(MASTERS[0].read_text()), WHEEL, assignments.DEMO_SEED)
    assert values["test_seconds"] == f"{support.SECONDS:g}" and values["cell_seconds"] == f"{support.CELL_SECONDS:g}"
    guide = (ROOT / "book" / "instructors.md").read_text()
    grade_class = (ROOT / "scripts" / "grade_class.py").read_text()
    assert "ten seconds" not in guide + grade_class
    assert f"{support.SECONDS:g} s" in guide and f"{support.CELL_SECONDS:g} s" in guide


@pytest.mark.parametrize("path", MASTERS, ids=[p.stem for p in MASTERS])
def test_the_guide_table_matches_the_masters(path):
    cells = cells_of(path)
    qs = questions(cells)
    auto = sum(assignments.question_points(q["config"]) for q in qs if not q["config"].get("manual"))
    written = sum(assignments.question_points(q["config"]) for q in qs if q["config"].get("manual"))
    header = re.search(r"\(chapters? ([^)]*)\)", assignments._source(cells[1])).group(1)
    # the guide's table is a MyST list-table: a row is "* - `name`" and its "  - cell" lines
    lines = (ROOT / "book" / "instructors.md").read_text().splitlines()
    start = lines.index(f"* - `{path.stem}`")
    entries = [line for line in lines[start + 1:start + 4] if line.startswith("  - ")]
    assert len(entries) == 3, lines[start:start + 4]
    row = " | ".join(entries)
    assert f"{auto:g} + {written:g}" in row and header in row
    assert assignments.duration(json.loads(path.read_text())).split(" of work")[0].replace("About ", "") in row


@pytest.mark.parametrize("path", MASTERS, ids=[p.stem for p in MASTERS])
def test_tests_go_through_the_support_file(path):
    """Every test that calls a student's function does it through assignment_support (time limit, no library)."""
    names = assignments.solution_functions({"cells": demo_cells(path)})
    assert names
    block = []
    for cell in demo_cells(path):
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


#: The scripts an instructor runs from the guide, with every module they load from scripts/.
COURSE_SCRIPTS = ("assignments.py", "assignment_variants.py", "assignment_examples.py", "assignment_attacks.py",
                  "grade_class.py", "copying.py", "student_setup.py", "clean_grader.py")


def _distribution(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_course_extra_installs_every_package_the_course_scripts_import():
    """What the guide's commands import (and read with importlib.metadata) is installed by
    `pip install -e ".[course]"`: the extra, or attnlib's own dependencies. (sphinx-mathjax-offline, read
    for the offline handout, was missing: the build failed after minutes on a fresh venv.)"""
    import importlib.metadata
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    installed = {_distribution(re.split(r"[\[<>=!~ ;]", r)[0]) for r in
                 project["dependencies"] + project["optional-dependencies"]["course"]}
    local = {p.stem for p in (ROOT / "scripts").glob("*.py")} | {"assignment_support", "assignment_grading",
                                                                  "attnlib", "variant"}
    owners = importlib.metadata.packages_distributions()
    needed = {}
    for script in COURSE_SCRIPTS:
        path = ROOT / "scripts" / script
        if not path.exists():
            continue
        text = path.read_text()
        tree = ast.parse(text)
        modules = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        modules |= {n.module.split(".")[0] for n in ast.walk(tree)
                    if isinstance(n, ast.ImportFrom) and n.module and not n.level}
        for module in modules - set(sys.stdlib_module_names) - local:
            for dist in owners.get(module, [module]):
                needed.setdefault(_distribution(dist), script)
        for dist in re.findall(r'distribution\("([\w.-]+)"\)', text):
            needed.setdefault(_distribution(dist), script)
    needed.pop("otter-grader", None)  # imported as otter; in the extra as otter-grader[grading]
    missing = {dist: script for dist, script in needed.items() if dist not in installed | {"otter-grader"}}
    assert not missing, f"imported by the course scripts but not installed by the course extra: {missing}"


# --- variants from a secret seed ----------------------------------------------------------------


def extra(path):
    return assignments.fixed_values(json.loads(path.read_text()), WHEEL, assignments.DEMO_SEED)


@pytest.mark.parametrize("path", MASTERS, ids=[p.stem for p in MASTERS])
def test_variants_render_every_placeholder_and_differ(path):
    master = json.loads(path.read_text())
    rendered = []
    for seed in (assignments.DEMO_SEED, "a course seed of some length"):
        values = assignments.variant_values(path.stem, seed)
        nb = assignments.render(master, {**values, **extra(path)})
        text = "\n".join(assignments._source(c) for c in nb["cells"])
        assert not assignments.PLACEHOLDER.search(text)
        rendered.append(values)
    assert rendered[0] != rendered[1], "two seeds give the same variant"
    assert assignments.variant_values(path.stem, "a course seed of some length") == rendered[1], \
        "a seed must always give the same variant"


def _by_question(keys):
    out = {}
    for key in keys:
        question = re.match(r"q\d+", key)
        if question:
            out.setdefault(question.group(0), []).append(key)
    return out


@pytest.mark.parametrize("path", MASTERS, ids=[p.stem for p in MASTERS])
def test_every_code_question_changes_form_and_never_asks_the_published_one(path):
    """The published solutions answer the canonical form; every variant asks another one, of several."""
    module = assignments.variant_module(path.stem)
    canonical = module.canonical()
    groups = _by_question(canonical)
    master = json.loads(path.read_text())
    autograded = set(assignments.master_parts(master)["questions"])
    assert set(groups) == autograded, f"questions without forms: {sorted(autograded - set(groups))}"
    seen = {q: set() for q in groups}
    for seed in SEEDS:
        values = assignments.variant_values(path.stem, seed)
        for q, keys in groups.items():
            form = tuple(str(values[k]) for k in keys)
            assert form != tuple(str(canonical[k]) for k in keys), f"{seed!r} asks the published form of {q}"
            seen[q].add(form)
    assert all(len(forms) >= 2 for forms in seen.values()), {q: len(f) for q, f in seen.items()}
    # the solution code as published uses only the canonical form's values
    published = assignments.render(master, {**assignments.variant_values(path.stem, SEEDS[1]), **extra(path),
                                            **canonical}, strict=False)
    asked = assignments.render(master, {**assignments.variant_values(path.stem, SEEDS[1]), **extra(path)})
    assert assignments.solution_cells(published) != assignments.solution_cells(asked)


def test_render_indents_lines_of_code():
    nb = {"cells": [cell("code", "def f(x):\n    {{body}}\n    return {{out}}")]}
    out = assignments.render(nb, {"body": "y = x\nz = y", "out": "z"})
    assert assignments._source(out["cells"][0]) == "def f(x):\n    y = x\n    z = y\n    return z"
    empty = assignments.render(nb, {"body": "", "out": "x"})
    assert assignments._source(empty["cells"][0]) == "def f(x):\n\n    return x"


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
    with pytest.raises(assignments.AssignmentError, match="no seed file at .* --new-seed"):
        assignments.read_seed(str(tmp_path / "missing.seed"))
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


def test_new_seed_creates_its_folder(tmp_path, capsys):
    target = tmp_path / "private" / "deeper" / "course.seed"
    assert assignments.main(["--new-seed", str(target)]) == 0
    assert len(target.read_text().strip()) == 32 and oct(target.stat().st_mode)[-3:] == "600"
    assert assignments.read_seed(str(target)) == target.read_text().strip()
    assert assignments.main(["--new-seed", str(target)]) == 1, "an existing seed is never overwritten"
    assert "exists" in capsys.readouterr().out
    assert assignments.main(["--new-seed", str(ROOT / "_build" / "x.seed")]) == 1
    assert assignments.main(["no_such_assignment", "--no-examples"]) == 2


def _git(repo, *args):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args], cwd=repo, check=True,
                   capture_output=True)


def test_a_checkout_with_changes_is_refused_naming_them(tmp_path, tmp_path_factory):
    _git(tmp_path, "init", "-q")
    (tmp_path / ".gitignore").write_text("_build/\n")
    (tmp_path / "a.py").write_text("x = 1\n")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-q", "-m", "start")
    (tmp_path / "_build").mkdir()
    (tmp_path / "_build" / "out.txt").write_text("built")  # ignored: a build's own output is not a change
    assert assignments.require_clean_tree(False, tmp_path) is False
    (tmp_path / "a.py").write_text("x = 2\n")
    (tmp_path / "new").mkdir()
    (tmp_path / "new" / "b.py").write_text("y = 1\n")
    with pytest.raises(assignments.AssignmentError, match=r"(?s)has changes.*a\.py.*new/b\.py"):
        assignments.require_clean_tree(False, tmp_path)
    assert assignments.require_clean_tree(True, tmp_path) is True
    with pytest.raises(assignments.AssignmentError, match="cannot tell"):
        assignments.require_clean_tree(False, tmp_path_factory.mktemp("not_a_checkout"))


def test_the_grader_runs_the_python_ci_tests(tmp_path, monkeypatch):
    runtime = (ROOT / "binder" / "runtime.txt").read_text().strip()
    assert runtime == f"python-{sys.version_info.major}.{sys.version_info.minor}", "CI runs binder's Python"
    assert assignments.python_version() == runtime.removeprefix("python-")
    (tmp_path / "binder").mkdir()
    (tmp_path / "binder" / "runtime.txt").write_text("python-3.13\n")
    monkeypatch.setattr(sys.modules["assignment_variants"], "ROOT", tmp_path)  # where python_version reads it
    with pytest.raises(assignments.AssignmentError, match="runs Python 3.13 .* run the script with python3.13"):
        assignments.python_version()


def test_the_wheel_version_names_the_commit():
    assert assignments.wheel_version(Path(WHEEL)) == "0.2.0+g1a2b3c4d5e6f"
    values = assignments.fixed_values(json.loads(MASTERS[0].read_text()), WHEEL, assignments.DEMO_SEED)
    assert values["attnlib_version"] == "0.2.0+g1a2b3c4d5e6f" and values["wheel"] == WHEEL


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
    ("swallowing", "except:"),
    ("library", "return fit_linear_attention(X, Y).coef"),
    ("wrong", "return _perturbed(_right_fit(*args, **kwargs))"),
    ("zeros", "return _zeroed(_right_fit(*args, **kwargs))"),
    ("scipy", "from scipy.linalg import lu_factor"),
])
def test_example_cells(kind, expected):
    library = {"fit": "def fit(X, Y):\n    return fit_linear_attention(X, Y).coef"}
    out = assignments.example_cell(SOLUTION, kind, ["fit"], library)
    assert expected in out and out.startswith("from attnlib.rkhs import cubic_features")
    if kind not in ("wrong", "zeros", "scipy"):
        assert "lstsq" not in out
    namespace = {}
    exec(compile(out.replace("while True:", "while False:"), "cell", "exec"), namespace)
    assert callable(namespace["fit"])


def test_wrong_and_zero_examples_change_every_kind_of_answer():
    np = pytest.importorskip("numpy")
    for kind, expected in (("wrong", (False, 4, (2, 3), [0.5, 1.5])), ("zeros", (False, 0, (0, 0), [0.0, 0.0]))):
        out = assignments.example_cell("def f(x):\n    # BEGIN SOLUTION\n    return x\n    # END SOLUTION", kind,
                                       ["f"], {})
        namespace = {"np": np}
        exec(out, namespace)
        f = namespace["f"]
        assert (f(True), f(3), f((1, 2)), list(f([0.0, 1.0]))) == expected


def test_every_tampering_example_expects_flags_the_plugin_raises():
    grading = assignments.grading_module()
    for kind, (code, expected) in assignments.TAMPERING.items():
        nb = {"cells": [cell("code", code.replace("{name}", "answer"))]}
        found = " ".join(grading.flags(nb, {}))
        assert all(flag in found for flag in expected), (kind, found)


def test_every_attack_expects_flags_the_plugin_raises():
    """Each attack of the example class is flagged by the plugin's review of its code alone."""
    attacks = sys.modules["assignment_attacks"]
    grading = assignments.grading_module()
    for kind in (*attacks.ANSWER_ATTACKS, *attacks.DEFINITION_ATTACKS):
        code = (attacks.answer_attack(kind, "answer") if kind in attacks.ANSWER_ATTACKS
                else attacks.DEFINITION_ATTACKS[kind][0])
        found = " ".join(grading.flags({"cells": [cell("code", code)]}, {}))
        assert all(flag in found for flag in attacks.attack_flags(kind)), (kind, found)


def test_the_guide_names_every_example_of_the_class():
    """The guide's table of the example class lists every kind the build writes (by kind or file name)."""
    examples = sys.modules["assignment_examples"]
    guide = (ROOT / "book" / "instructors.md").read_text()
    table = guide[guide.index("* - example"):guide.index("```", guide.index("* - example"))]
    named = set(re.findall(r"`([\w.*]+)`", table))
    kinds = {**examples.examples(True), **examples.examples(False)}
    missing = [k for k, f in kinds.items() if not {k, Path(f).stem, f} & named
               and not (k.startswith("tamper_") and "tamper_*" in named)]
    assert not missing, f"example kinds the guide does not describe: {missing}"


# --- the instructors' handout -------------------------------------------------------------------

PAGE = ('<html><head><script src="https://cdnjs.cloudflare.com/ajax/libs/require.js/2.1.10/require.min.js"></script>\n'
        '<script src="https://cdnjs.cloudflare.com/ajax/libs/mathjax/2.7.7/latest.js?config=TeX-AMS_CHTML-full,Safe"> '
        '</script>\n<script type="text/x-mathjax-config">MathJax.Hub.Config({});</script></head>'
        '<script type="module">\nconst m = await import("https://cdnjs.cloudflare.com/ajax/libs/mermaid/11.10.0/mermaid.esm.min.mjs");'
        '\n</script><body><p>Inline $x^2$ and display $$\\sum_i a_i$$</p></body></html>')


def test_the_handout_loads_nothing_from_the_network():
    html = assignments.offline_math(PAGE, "/* mathjax */")
    assert "https://" not in html and "/* mathjax */" in html and "inlineMath" in html
    with pytest.raises(assignments.AssignmentError, match="still loads"):
        assignments.offline_math(PAGE.replace("</head>", '<link href="https://x.org/a.css"></head>'), "")


def test_the_handout_renders_math_offline(tmp_path):
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        pytest.skip("no Chromium here")
    page = tmp_path / "page.html"
    page.write_text(assignments.offline_math(PAGE, assignments.mathjax_file().read_text()))
    done = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=10000",
                           "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120)
    assert done.stdout.count("<mjx-container") == 2 and "$x^2$" not in done.stdout


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
     "x.ipynb: solution line 'return tripled'"),
    (lambda nb: nb["cells"][2].update(source="def triple(x):\n    # BEGIN SOLUTION\n    ...\n    # END SOLUTION"),
     "x.ipynb: marker 'BEGIN SOLUTION'"),
    (lambda nb: nb["cells"][5].update(source="Because multiplication by three is linear."),
     "x.ipynb: solution line 'Because multiplication by three is linear.'"),
    (lambda nb: nb["cells"].append(cell("code", "# HIDDEN\nassert triple(-2) == -6")),
     "x.ipynb: hidden test line 'assert triple(-2) == -6'"),
])
def test_leaks_are_found(tmp_path, change, expected):
    nb = json.loads(json.dumps(CLEAN_STUDENT))
    change(nb)
    assert expected in assignments.leaks(MASTER, student_folder(tmp_path, nb))


def test_hidden_test_in_the_student_tests_is_found(tmp_path):
    folder = student_folder(tmp_path, CLEAN_STUDENT, tests="test = {'cases': ['assert triple(-2) == -6']}")
    assert assignments.leaks(MASTER, folder) == ["tests/q1.py: hidden test line 'assert triple(-2) == -6'"]


def test_every_file_of_the_student_zip_is_read_even_inside_a_wheel(tmp_path):
    """A solution in a JSON file beside the notebook, or in a file inside the wheel, is a leak too."""
    (tmp_path / "s").mkdir()
    folder = student_folder(tmp_path / "s", CLEAN_STUDENT)
    (folder / "assignment_given.json").write_text(json.dumps({"public_lines": ["return tripled"]}, indent=1))
    wheel = io.BytesIO()
    with zipfile.ZipFile(wheel, "w") as w:
        w.writestr("pkg/solutions.txt", "answer = 42\n")
    (folder / "pkg-1.0-py3-none-any.whl").write_bytes(wheel.getvalue())
    student_zip = tmp_path / "a1-student.zip"
    with zipfile.ZipFile(student_zip, "w") as z:
        for path in sorted(folder.rglob("*")):
            z.write(path, path.relative_to(folder))
    expected = ["a1-student.zip/assignment_given.json: solution line 'return tripled'",
                "a1-student.zip/pkg-1.0-py3-none-any.whl/pkg/solutions.txt: solution line 'answer = 42'"]
    assert assignments.leaks(MASTER, student_zip) == expected


def test_scores_leave_out_the_public_summary():
    results = {"tests": [{"name": "Public Tests", "visibility": "visible", "status": "passed"},
                         {"name": "q1", "score": 2.0, "max_score": 2.0},
                         {"name": "q2", "score": 0, "max_score": 3.0}]}
    assert assignments.scores(results) == {"q1": (2.0, 2.0), "q2": (0.0, 3.0)}


def test_a_line_the_public_library_has_is_no_leak_inside_its_wheel(tmp_path):
    """The wheel ships attnlib's sources: a solution line that the library itself has is public there."""
    library_line = next(line for line in sorted(assignments.library_lines()) if line.startswith("return "))
    master = json.loads(json.dumps(MASTER))
    master["cells"][5]["source"] = master["cells"][5]["source"].replace("return tripled", library_line)
    wheel = io.BytesIO()
    with zipfile.ZipFile(wheel, "w") as w:
        w.writestr("attnlib/core.py", f"def f():\n    {library_line}\n")
    folder = tmp_path / "s"
    folder.mkdir()
    (folder / "attnlib-1.0-py3-none-any.whl").write_bytes(wheel.getvalue())
    assert assignments.leaks(master, folder) == []
    (folder / "notes.txt").write_text(library_line)
    assert assignments.leaks(master, folder) == [f"notes.txt: solution line {library_line!r}"]


def test_the_colab_student_venv_has_every_dependency_attnlib_declares():
    """The offline run of a student zip's set-up cell (scripts/student_setup.py) starts from what Colab
    has: every distribution the installed attnlib requires (its metadata, not pyproject.toml, which
    ``pins`` reads), at requirements.txt's pin. Without threadpoolctl there, the offline pip could not
    install the zip's wheel (CI of 2026-12-07)."""
    spec = importlib.util.spec_from_file_location("student_setup", ROOT / "scripts" / "student_setup.py")
    student_setup = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(student_setup)
    requires = [r for r in importlib.metadata.requires("attnlib") if "extra ==" not in r]
    required = {re.match(r"[A-Za-z0-9_.-]+", r).group(0).lower() for r in requires}
    pinned = {line.split("==")[0].lower(): line for line in (ROOT / "requirements.txt").read_text().split()
              if "==" in line}
    pins = student_setup.pins()
    assert required >= {"numpy", "scipy"} and {pinned[name] for name in required} <= set(pins)
    assert any(p.startswith("ipython==") for p in pins)
