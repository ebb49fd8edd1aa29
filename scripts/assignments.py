"""Build a course's variant of the autograded assignments with otter-grader, and prove that it works.

    python -m pip install -e ".[course]"                       # otter-grader 7.0.0 and a kernel, once
    python scripts/assignments.py                              # the public demo variant (not for credit)
    python scripts/assignments.py --new-seed ~/private/course.seed           # once per course
    python scripts/assignments.py --seed-file ~/private/course.seed          # the course's own variant
    ATTNLIB_COURSE_SEED=... python scripts/assignments.py a3_lower_bounds

The masters in ``assignments/<name>/`` are generators: ``<name>.ipynb`` leaves data, constants,
targets and the *form* of every code question as ``{{name}}`` placeholders, and ``variant.py`` draws
their values from a secret seed (a text kept outside the repository; its hash names the variant).
The master's solutions are written for a canonical form that no variant asks (``variant.canonical``),
so its published code, pasted into a variant, answers a different question. For each master this

1. renders the course's variant into ``_build/assignments/<name>/master/``, next to the grading
   support files (``assignments/_support/``: ``assignment_support.py``, which the tests call, and
   ``assignment_grading.py``, the otter plugin that grades only what a student defines), a wheel of
   this checkout's ``attnlib`` (version ``<release>+g<commit>``) and the autograder's
   ``requirements.txt``, which pins that wheel by its hash; the grading image's Python is the one
   CI tests (``binder/runtime.txt``), and the build must run it too;
2. runs ``otter assign`` into ``_build/assignments/<name>/`` (``student/`` for the students,
   ``autograder/`` with the graded solutions and the autograder zip), then adds the plugin and the
   assignment's given code to the zip (``otter_config.json``);
3. grades the reference solutions with the zip and requires full marks, and the unsolved student
   version, which must score less;
4. checks that the student version holds no solution: no line written between the BEGIN/END
   SOLUTION markers (code, or the markdown of written answers and their rubrics), no marker text
   and no hidden test;
5. writes the example submissions of a class into ``examples/`` (``EXAMPLES``: correct, wrong,
   raising, looping, library-calling, copied from the public master, an honest scipy import,
   zeros of the right shape, a swallowed time limit, a renamed file with a top-level loop, and one
   notebook per way of tampering with the grader), grades them with ``scripts/grade_class.py``
   into ``examples/scores.csv``, and requires of each what ``grade_examples`` lists;
6. writes ``<name>-student.zip`` (the notebook, its public tests and the same attnlib wheel, which
   the notebook's set-up cell installs on Colab, Binder or a laptop: students download nothing of
   the library) and, for instructors only, ``instructor/<name>-solutions.html`` (the reference
   solutions and the rubrics, with MathJax inlined so that the math renders offline).

Last, ``scripts/student_setup.py`` runs each student zip's set-up cell as on Colab, offline, in a
fresh virtual environment, and requires that it installs attnlib from the zip's wheel.

Before that, the script refuses a checkout with changes (it names the changed files): the wheel
records the commit it was built from, so a build must be that commit (``--allow-dirty`` builds
anyway, for trying a change, and marks the wheel ``.dirty``: never hand such a build out). A
self-test runs ``otter assign`` on a tiny master whose solution cell sits outside its raw
BEGIN/END SOLUTION block, and requires step 4 to catch it. ``--no-examples`` skips step 5. Any
failure stops with a message and a non-zero exit status.
"""

from __future__ import annotations

import argparse
import ast
import csv
import hashlib
import importlib.metadata
import importlib.util
import io
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[1]
MASTERS = ROOT / "assignments"
SUPPORT = MASTERS / "_support" / "assignment_support.py"
GRADING = MASTERS / "_support" / "assignment_grading.py"
OUTPUT = ROOT / "_build" / "assignments"
SEED_ENV = "ATTNLIB_COURSE_SEED"
#: The public variant: CI and the repository's own checks use it; never give it for credit.
DEMO_SEED = "public demo variant"

#: Text that must never reach a student: otter's solution and hidden-test markers.
MARKERS = ("BEGIN SOLUTION", "END SOLUTION", "# SOLUTION", "# HIDDEN", "BEGIN TESTS", "END TESTS")
PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")
#: A question's prompt states its kind, points and minutes: "(code, 3 points, 20 min)".
STATED = re.compile(r"\((code|written|experiment), (\d+(?:\.\d+)?) points?, (\d+) min\)")


class AssignmentError(RuntimeError):
    """An assignment failed one of the checks."""


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def support_module():
    """assignments/_support/assignment_support.py (its time limits are the ones the notebooks state)."""
    return _load(SUPPORT, "assignment_support_for_build")


def grading_module():
    """assignments/_support/assignment_grading.py, the plugin (its AST tools are used here too)."""
    return _load(GRADING, "assignment_grading_for_build")


# --- reading a master ---------------------------------------------------------------------------


def _source(cell) -> str:
    return cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])


def _raw_marker(cell) -> str | None:
    if cell["cell_type"] != "raw":
        return None
    first = _source(cell).strip().splitlines()[0] if _source(cell).strip() else ""
    match = re.fullmatch(r"#\s*(BEGIN|END)\s+(QUESTION|SOLUTION|TESTS|PROMPT)", first.strip(), flags=re.I)
    return f"{match.group(1).upper()} {match.group(2).upper()}" if match else None


def _meaningful(line: str) -> bool:
    """A line worth looking for: it has a letter or a digit (not only brackets or punctuation)."""
    return bool(re.search(r"[A-Za-z0-9]", line))


def question_points(config: dict) -> float:
    """A question's points: a number, or the list of its test cases' points (their sum)."""
    points = config.get("points", 0)
    return float(sum(points)) if isinstance(points, list) else float(points)


def questions_of(nb: dict) -> list[dict]:
    """Every question of a master, in order: name, points, manual, and the minutes its prompt states."""
    out, current = [], None
    for cell in nb["cells"]:
        if _raw_marker(cell) == "BEGIN QUESTION":
            config = yaml.safe_load(_source(cell).split("\n", 1)[1])
            current = {"name": config["name"], "points": question_points(config),
                       "manual": bool(config.get("manual")), "minutes": None}
            out.append(current)
        elif current is not None and current["minutes"] is None and cell["cell_type"] == "markdown":
            stated = STATED.search(_source(cell))
            if stated:
                current["minutes"] = int(stated.group(3))
    return out


def duration(nb: dict) -> str:
    """The header's estimate: the sum of the questions' stated minutes."""
    minutes = sum(q["minutes"] or 0 for q in questions_of(nb))
    hours, rest = divmod(minutes, 60)
    return (f"About {hours} h {rest:02d} min of work (the sum of the questions' estimates: {minutes} min)"
            if hours else f"About {minutes} min of work")


def master_parts(nb: dict) -> dict:
    """Solution lines, hidden and public test lines, and autograded questions of a master notebook.

    Returns a dict with ``solution_lines`` (stripped lines written between the solution
    markers: in any code cell between ``# BEGIN SOLUTION`` / ``# END SOLUTION`` comment lines
    or ending in ``# SOLUTION``, and every line of a markdown cell in a raw solution block),
    ``code_solution_lines`` (the code ones only), ``hidden_lines`` and ``public_lines``
    (stripped lines of the test cells) and ``questions`` (name -> points of the questions that
    have tests).
    """
    solution, code_solution, hidden, public, questions = set(), set(), set(), set(), {}
    block, question = [], None
    for cell in nb["cells"]:
        marker = _raw_marker(cell)
        if marker:
            kind, what = marker.split()
            if kind == "BEGIN":
                block.append(what)
                if what == "QUESTION":
                    config = yaml.safe_load(_source(cell).split("\n", 1)[1])
                    question = (config.get("name"), question_points(config))
            elif block and block[-1] == what:
                block.pop()
            continue
        text = _source(cell)
        lines = [line.strip() for line in text.splitlines()]
        if block and block[-1] == "SOLUTION" and cell["cell_type"] == "markdown":
            solution.update(line for line in lines if _meaningful(line))
        elif cell["cell_type"] == "code" and not (block and block[-1] == "TESTS"):
            # solution comments count wherever they are: a cell outside a raw block keeps them
            inside = False
            for line in lines:
                if line.startswith("# BEGIN SOLUTION"):
                    inside = True
                elif line.startswith("# END SOLUTION"):
                    inside = False
                elif inside and _meaningful(line):
                    code_solution.add(line)
                elif line.endswith("# SOLUTION"):
                    code_solution.add(line[: -len("# SOLUTION")].strip())
        elif block and block[-1] == "TESTS" and cell["cell_type"] == "code":
            is_hidden = lines and lines[0].startswith("# HIDDEN")
            target = hidden if is_hidden else public
            target.update(line for line in lines[1 if is_hidden else 0:] if _meaningful(line))
            if question and question[0]:
                questions[question[0]] = question[1]
    return {"solution_lines": solution | code_solution, "code_solution_lines": code_solution,
            "hidden_lines": hidden - public, "public_lines": public, "questions": questions}


def student_text(student_dir: Path) -> tuple[set, str]:
    """Stripped lines and full text of everything in a student folder (notebooks and tests)."""
    texts = []
    for path in sorted(student_dir.rglob("*")):
        if path.suffix == ".ipynb":
            nb = json.loads(path.read_text())
            texts.extend(_source(c) for c in nb["cells"])
            texts.append(json.dumps(nb.get("metadata", {})))
        elif path.suffix == ".py" and path.name not in (SUPPORT.name, GRADING.name):  # public support code
            texts.append(path.read_text())
    text = "\n".join(texts)
    return {line.strip() for line in text.splitlines()}, text


def leaks(master: dict, student_dir: Path) -> list[str]:
    """What of the master's solutions and hidden tests reached the student folder."""
    parts = master_parts(master)
    lines, text = student_text(student_dir)
    found = [f"solution line in the student version: {line!r}" for line in sorted(parts["solution_lines"])
             if line in lines]
    found += [f"hidden test line in the student version: {line!r}" for line in sorted(parts["hidden_lines"])
              if line in lines or line in text]
    found += [f"marker {marker!r} left in the student version" for marker in MARKERS if marker in text]
    return found


# --- variants: rendering a master from the secret seed ------------------------------------------


def read_seed(seed_file: str | None) -> str:
    """The course's secret seed: from ``--seed-file``, else ``$ATTNLIB_COURSE_SEED``, else the public demo."""
    if seed_file:
        path = Path(seed_file).expanduser().resolve()
        if path == ROOT or ROOT in path.parents:
            raise AssignmentError(f"the seed file {path} is inside the repository; keep it outside "
                                  "(anyone who can read the repository could rebuild the answers)")
        if not path.is_file():
            raise AssignmentError(f"no seed file at {path}; make one with: python scripts/assignments.py "
                                  f"--new-seed {seed_file}")
        seed = path.read_text().strip()
    else:
        seed = os.environ.get(SEED_ENV, "").strip()
    if not seed:
        if seed_file:
            raise AssignmentError(f"the seed file {seed_file} is empty")
        return DEMO_SEED
    if len(seed) < 12:
        raise AssignmentError(f"the course seed has {len(seed)} characters; use at least 12 "
                              "(for example: python scripts/assignments.py --new-seed ~/private/course.seed)")
    return seed


def new_seed(seed_file: str) -> Path:
    """Write a fresh secret seed to ``seed_file``, creating its folder (readable by its owner only)."""
    path = Path(seed_file).expanduser().resolve()
    if path == ROOT or ROOT in path.parents:
        raise AssignmentError(f"{path} is inside the repository; keep the seed outside it")
    if path.exists():
        raise AssignmentError(f"{path} exists; a new seed would change the course's variant (remove it first "
                              "if that is what you want)")
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    path.write_text(secrets.token_hex(16) + "\n")
    path.chmod(0o600)
    return path


def variant_id(seed: str) -> str:
    """A public name of the variant (a hash of the seed, which cannot be turned back into it)."""
    return "demo" if seed == DEMO_SEED else hashlib.sha256(seed.encode()).hexdigest()[:10]


def variant_module(name: str):
    return _load(MASTERS / name / "variant.py", f"variant_{name}")


def variant_rng(seed: str, name: str) -> np.random.Generator:
    words = [int.from_bytes(hashlib.sha256(f"{seed}\n{name}".encode()).digest()[:16], "little")]
    return np.random.default_rng(np.random.SeedSequence(words))


def render(nb: dict, values: dict, *, strict: bool = True) -> dict:
    """The master with every ``{{name}}`` replaced; an unknown or (if ``strict``) unused name is an error.

    A placeholder alone on its line may stand for several lines of code: they all get the line's
    indentation; an empty value leaves an empty line.
    """
    out = json.loads(json.dumps(nb))
    used = set()

    def value(key):
        if key not in values:
            raise AssignmentError(f"the master uses {{{{{key}}}}}, which the variant does not define")
        used.add(key)
        return str(values[key])

    def line_sub(line):
        alone = re.fullmatch(r"(\s*)\{\{(\w+)\}\}\s*", line)
        if alone:
            indent, text = alone.group(1), value(alone.group(2))
            return "\n".join((indent + part) if part.strip() else "" for part in text.split("\n"))
        return PLACEHOLDER.sub(lambda m: value(m.group(1)), line)

    for cell in out["cells"]:
        cell["source"] = "\n".join(line_sub(line) for line in _source(cell).split("\n"))
    unused = set(values) - used
    if strict and unused:
        raise AssignmentError(f"the variant defines {sorted(unused)}, which the master never uses")
    return out


def attnlib_ref() -> str:
    """The commit this checkout is at (the wheel's version says it, and so do the requirements)."""
    done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise AssignmentError(f"{ROOT} is not a git checkout ({done.stderr.strip()}): the build records the commit "
                              "it comes from; build from a clone")
    return done.stdout.strip()


def changed_files(root: Path = ROOT) -> list[str]:
    """The files of the checkout that differ from its commit: changed, staged, new (not ignored ones)."""
    done = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=root, capture_output=True,
                          text=True)
    if done.returncode != 0:
        raise AssignmentError(f"cannot tell whether {root} has changes ({done.stderr.strip()}); build from a clone")
    return [line[3:] for line in done.stdout.splitlines() if line.strip()]


def require_clean_tree(allow_dirty: bool, root: Path = ROOT) -> bool:
    """Refuse a checkout with changes, naming them, unless ``allow_dirty``; whether the tree is dirty."""
    changed = changed_files(root)
    if changed and not allow_dirty:
        listed = "\n  ".join(changed[:40]) + ("\n  ..." if len(changed) > 40 else "")
        raise AssignmentError(f"the checkout has changes, so the attnlib wheel would not be the commit it names; "
                              f"commit or stash them (or try a change with --allow-dirty, never for students):\n  "
                              f"{listed}")
    return bool(changed)


def python_version() -> str:
    """The grading image's Python: ``binder/runtime.txt``'s, the one CI tests; this build must run it."""
    pinned = (ROOT / "binder" / "runtime.txt").read_text().strip().removeprefix("python-")
    here = f"{sys.version_info.major}.{sys.version_info.minor}"
    if here != pinned:
        raise AssignmentError(f"the grader runs Python {pinned} (binder/runtime.txt, the one CI tests), and the "
                              f"build must grade with it too; this is Python {here}: run the script with "
                              f"python{pinned}")
    return pinned


def wheel_version(wheel: Path) -> str:
    """``0.2.0+g1a2b3c4d5e6f``: the version in the wheel's file name."""
    return wheel.name.split("-")[1]


def fixed_values(master: dict, wheel_name: str, seed: str) -> dict:
    """The values every master uses besides its variant's: build, time limits, duration."""
    support = support_module()
    return {"variant": variant_id(seed), "wheel": wheel_name, "attnlib_version": wheel_version(Path(wheel_name)),
            "python_version": python_version(), "test_seconds": f"{support.SECONDS:g}",
            "cell_seconds": f"{support.CELL_SECONDS:g}", "duration": duration(master)}


def pins() -> list[str]:
    """numpy and scipy as requirements.txt pins them."""
    lines = (ROOT / "requirements.txt").read_text().splitlines()
    return [line.strip() for line in lines if re.match(r"(numpy|scipy)==", line.strip())]


def build_wheel(folder: Path, dirty: bool = False) -> Path:
    """A wheel of this checkout's attnlib, versioned ``<release>+g<commit>`` (``.dirty`` for a tree with
    changes): the autograder and the students install exactly this code, and can tell it apart."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "src"
        shutil.copytree(ROOT / "attnlib", src / "attnlib", ignore=shutil.ignore_patterns("__pycache__"))
        for f in ("pyproject.toml", "README.pypi.md", "LICENSE"):
            shutil.copy(ROOT / f, src / f)
        local = f"+g{attnlib_ref()[:12]}" + (".dirty" if dirty else "")
        pyproject = (src / "pyproject.toml").read_text()
        versioned = re.sub(r'(?m)^version = "([^"+]+)"$', lambda m: f'version = "{m.group(1)}{local}"', pyproject)
        if versioned == pyproject:
            raise AssignmentError("pyproject.toml has no `version = \"...\"` line to mark with the commit")
        (src / "pyproject.toml").write_text(versioned)
        done = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                               "-w", str(folder), str(src)], capture_output=True, text=True)
    wheels = sorted(folder.glob("attnlib-*.whl"))
    if done.returncode != 0 or len(wheels) != 1:
        raise AssignmentError(f"could not build the attnlib wheel:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return wheels[0]


def requirements(wheel: Path) -> str:
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    return "\n".join([
        f"# attnlib exactly as this assignment was built (commit {attnlib_ref()}): the wheel ships in the",
        "# autograder zip (files/), which Gradescope unpacks into /autograder/source.",
        f"attnlib @ file:///autograder/source/files/{wheel.name}#sha256={digest}",
        *pins(), ""])


def variant_values(name: str, seed: str) -> dict:
    return variant_module(name).parameters(variant_rng(seed, name))


def prepare_master(name: str, seed: str, wheel: Path, folder: Path) -> tuple[dict, dict]:
    """Render the course's variant of a master into ``folder``; returns (rendered master, values)."""
    master = json.loads((MASTERS / name / f"{name}.ipynb").read_text())
    values = {**variant_values(name, seed), **fixed_values(master, wheel.name, seed)}
    rendered = render(master, values)
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    (folder / f"{name}.ipynb").write_text(json.dumps(rendered, indent=1, ensure_ascii=False))
    for path in (SUPPORT, GRADING):
        shutil.copy(path, folder / path.name)
    shutil.copy(wheel, folder / wheel.name)
    (folder / "requirements.txt").write_text(requirements(wheel))
    return rendered, values


def canonical_master(name: str, values: dict) -> dict:
    """The master with this variant's data but the canonical form: its published solutions."""
    master = json.loads((MASTERS / name / f"{name}.ipynb").read_text())
    return render(master, {**values, **variant_module(name).canonical()}, strict=False)


# --- the autograder zip: the plugin and the assignment's given code -----------------------------


def _grader_call(node: ast.stmt) -> bool:
    """``grader.check("q1")``, ``grader.check_all()``, the hand-in: what the grader never runs."""
    if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
        return False
    func = ast.unparse(node.value.func)
    return func.startswith("grader.") or func == "assignment_support.hand_in"


def public_solution_lines(name: str) -> list[str]:
    """The tracked master's code solution lines as published (placeholders left out), for similarity."""
    grade_class = _grade_class()
    master = json.loads((MASTERS / name / f"{name}.ipynb").read_text())
    lines = {grade_class.normalise(line) for line in master_parts(master)["code_solution_lines"]}
    return sorted(line for line in lines if len(line) >= 12 and "{{" not in line)


def given_code(student_nb: dict, name: str, master: dict, wheel: Path) -> dict:
    """What the plugin needs: the student version's own code (run before the student's definitions at
    grading), the statements it consists of (not flagged, not 'rebinding'), the names it binds
    (protected), the questions, and the public master's solution lines (for the similarity flag)."""
    grading = grading_module()
    preamble, keys, protected, modules = [], [], set(), set()
    for cell in student_nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        source = _source(cell)
        tree = ast.parse(grading.cell_code(source))
        keys += [grading.statement_key(node) for node in tree.body]
        if "%pip" in source:  # the install cell: nothing to do at grading
            continue
        kept = [node for node in tree.body if not _grader_call(node)]
        for node in kept:
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                protected.update(grading.bound_names(node))
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                modules.update(grading.bound_names(node))
        if kept:
            preamble.append(ast.unparse(ast.Module(body=kept, type_ignores=[])))
    questions = [{"name": q["name"], "points": q["points"], "manual": q["manual"]} for q in questions_of(master)]
    return {"assignment": name, "preamble": preamble, "statements": sorted(set(keys)),
            "protected": sorted(protected), "modules": sorted(modules), "questions": questions,
            "files": [SUPPORT.name, GRADING.name, grading.GIVEN_FILE, wheel.name, "requirements.txt"],
            "public_lines": public_solution_lines(name)}


def patch_autograder(zip_path: Path, given: dict) -> None:
    """Put the plugin at the zip's root (on sys.path on Gradescope) and list it, with its configuration."""
    grading = grading_module()
    with zipfile.ZipFile(zip_path) as z:
        entries = {info.filename: z.read(info.filename) for info in z.infolist()}
    config = json.loads(entries["otter_config.json"])
    config["plugins"] = [{grading.PLUGIN: {"given": given}}]
    entries["otter_config.json"] = json.dumps(config, indent=2).encode()
    entries[GRADING.name] = GRADING.read_bytes()
    entries[f"files/{grading.GIVEN_FILE}"] = json.dumps(given, indent=1).encode()
    with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED) as z:
        for filename, data in entries.items():
            z.writestr(filename, data)


# --- grading ------------------------------------------------------------------------------------


def _grade_class():
    """scripts/grade_class.py as a module (scripts/ is not a package)."""
    return _load(ROOT / "scripts" / "grade_class.py", "grade_class")


def scores(results: dict) -> dict:
    """Question name -> (score, max score) from otter's results.json: the one reading, in grade_class."""
    return _grade_class().scores(results)


def _otter(*args: str, cwd: Path, timeout: float | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "otter", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)


def grade_row(zip_path: Path, notebook: Path, timeout: float = 240, keep_name: bool = False) -> dict:
    """One submission graded as scripts/grade_class.py grades it (``keep_name``: under its own file name,
    as Gradescope does, instead of the assignment's)."""
    grade_class = _grade_class()
    info = grade_class.read_autograder(zip_path)
    if keep_name:
        info = {**info, "name": notebook.stem}
    return grade_class.grade_one(zip_path, notebook, timeout, info=info)


def grade(zip_path: Path, notebook: Path) -> dict:
    row = grade_row(zip_path, notebook)
    if row["status"] != "graded":
        raise AssignmentError(f"otter run failed on {notebook} ({row['status']}):\n{row['log'][-3000:]}")
    questions = [q for q in _grade_class().read_autograder(zip_path)["given"]["questions"] if not q["manual"]]
    return {q["name"]: (float(row[q["name"]]), q["points"]) for q in questions if q["name"] in row}


# --- example submissions of a class -------------------------------------------------------------


def solution_functions(master: dict) -> list[str]:
    """Names of the top-level functions written in the master's solution cells (in order)."""
    names, block = [], []
    for cell in master["cells"]:
        marker = _raw_marker(cell)
        if marker:
            kind, what = marker.split()
            block = block + [what] if kind == "BEGIN" else block[:-1]
            continue
        if block[-1:] == ["SOLUTION"] and cell["cell_type"] == "code":
            source = _source(cell)
            if "# BEGIN SOLUTION" in source:
                names += [n.name for n in ast.parse(source).body if isinstance(n, ast.FunctionDef)
                          and "# BEGIN SOLUTION" in ast.get_source_segment(source, n)]
    return names


def solution_cells(master: dict) -> list[str]:
    """The sources of the code cells in the master's raw solution blocks, in order."""
    out, block = [], []
    for cell in master["cells"]:
        marker = _raw_marker(cell)
        if marker:
            kind, what = marker.split()
            block = block + [what] if kind == "BEGIN" else block[:-1]
        elif block[-1:] == ["SOLUTION"] and cell["cell_type"] == "code":
            out.append(_source(cell))
    return out


PERTURB = '''

def _perturbed(result):
    if isinstance(result, tuple):
        return tuple(_perturbed(r) for r in result)
    if isinstance(result, (bool, np.bool_)):
        return not result
    if isinstance(result, (int, np.integer)):
        return result + 1
    return np.asarray(result, dtype=float) + 0.5'''

ZEROED = '''

def _zeroed(result):
    if isinstance(result, tuple):
        return tuple(_zeroed(r) for r in result)
    if isinstance(result, (bool, np.bool_)):
        return False
    if isinstance(result, (int, np.integer)):
        return 0
    return np.zeros_like(np.asarray(result, dtype=float))'''

BODIES = {
    "raising": 'raise RuntimeError("a bug in {name}")',
    "looping": "steps = 0\n    while True:\n        steps += 1",
    # a retry loop whose bare except swallows every time limit
    "swallowing": "while True:\n        try:\n            while True:\n                pass\n        except:\n"
                  "            pass",
}
SCIPY = "    from scipy.linalg import lu_factor as _lu_factor  # an honest import inside an answer"
TOP_LEVEL_LOOP = "attempts = 0\nwhile True:   # a top-level loop left in a renamed notebook\n    attempts += 1"

#: Ways to tamper with the grader from the top level of a notebook, each with the flags it must raise.
TAMPERING = {
    "tamper_tests": ('''import glob, os
for path in glob.glob("tests/q*.py"):
    with open(path, "w") as f:
        f.write("OK_FORMAT = True\\ntest = {'name': %r, 'points': 99, 'suites': [{'cases': [{'code': '>>> 1\\\\n1', "
                "'hidden': False, 'locked': False}], 'scored': True, 'setup': '', 'teardown': '', 'type': 'doctest'}]}"
                % os.path.basename(path)[:-3])''', ("open(", "tests/")),
    "tamper_doctest": ('''import otter.test_files.ok_test as ok_test
ok_test.run_doctest = lambda name, code, env: (True, "")''', ("otter", "attribute assignment on a module")),
    "tamper_support": ('''import assignment_support
assignment_support.call = lambda fn, *args, **kwargs: None
assignment_support.expect_close = lambda *args, **kwargs: True
assignment_support.check = lambda *args, **kwargs: True''', ("assignment_support", "attribute assignment on a module")),
    "tamper_isclose": ('''import numpy
numpy.isclose = lambda a, b, **kwargs: numpy.ones(numpy.broadcast(a, b).shape, dtype=bool)
numpy.allclose = lambda *args, **kwargs: True''', ("attribute assignment on a module",)),
    "tamper_hook": ('''import glob, pickle, tempfile
def _full_marks(result):
    for path in glob.glob(tempfile.gettempdir() + "/*.pkl"):
        results = pickle.load(open(path, "rb"))
        for test in results.results.values():
            test.update_score(test.possible)
        pickle.dump(results, open(path, "wb"))
get_ipython().events.register("post_run_cell", _full_marks)''', ("pickle", "get_ipython")),
    # a failing answer that puts the hidden tests into its error message, which a public test shows
    "tamper_print": ('''def {name}(*args, **kwargs):
    import glob
    raise ValueError("\\n".join(open(path).read() for path in sorted(glob.glob("tests/*.py"))))''',
                     ("open(", "tests/")),
}
#: Every example, by kind: the file it is written to. Tampering: one notebook per way, or all in one.
EXAMPLES = {"correct": "correct.ipynb", "wrong": "wrong.ipynb", "raising": "raising.ipynb",
            "looping": "looping.ipynb", "library": "library.ipynb", "copied": "copied.ipynb",
            "scipy": "scipy.ipynb", "zeros": "zeros.ipynb", "swallowing": "swallowing.ipynb",
            "renamed": "smith_1234_late.ipynb"}


def examples(separate_tampering: bool) -> dict[str, str]:
    """The example kinds of a class and their files: each way of tampering alone, or all in one notebook."""
    tampering = {k: f"{k}.ipynb" for k in TAMPERING} if separate_tampering else {"tampering": "tampering.ipynb"}
    return {**EXAMPLES, **tampering}


def tampering_cells(kind: str, first_function: str) -> list[str]:
    kinds = list(TAMPERING) if kind == "tampering" else [kind]
    return [TAMPERING[k][0].replace("{name}", first_function) for k in kinds]


def tampering_flags(kind: str) -> tuple[str, ...]:
    kinds = list(TAMPERING) if kind == "tampering" else [kind]
    return tuple(dict.fromkeys(f for k in kinds for f in TAMPERING[k][1]))


def example_cell(source: str, kind: str, names: list[str], library: dict, only: str | None = None) -> str:
    """A solution cell rewritten as one kind of example submission (``only``: just that function)."""
    tree = ast.parse(source)
    defined = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in names
               and (only is None or n.name == only)]
    if not defined:
        return source
    lines = source.splitlines()
    out, last = [], 0
    for node in defined:
        start = (node.decorator_list[0].lineno if node.decorator_list else node.lineno) - 1
        out += lines[last:start]
        original = lines[start:node.end_lineno]
        def_line = original[node.lineno - 1 - start]
        if kind == "library":
            out += (library.get(node.name) or "\n".join(original)).splitlines()
        elif kind in ("wrong", "zeros"):
            wrap = "_perturbed" if kind == "wrong" else "_zeroed"
            out += ["\n".join(original).replace(f"def {node.name}(", f"def _right_{node.name}(", 1),
                    f"\n\ndef {node.name}(*args, **kwargs):", f"    return {wrap}(_right_{node.name}(*args, **kwargs))"]
        elif kind == "scipy":
            out += original[: node.lineno - start] + [SCIPY] + original[node.lineno - start:]
        else:
            out += [def_line] + ["    " + BODIES[kind].format(name=node.name)]
        last = node.end_lineno
    out += lines[last:]
    text = "\n".join(out)
    return text + {"wrong": PERTURB, "zeros": ZEROED}.get(kind, "")


def _strip_markers(source: str) -> str:
    lines = [line for line in source.splitlines() if line.strip() not in ("# BEGIN SOLUTION", "# END SOLUTION")]
    return "\n".join(line[: -len("# SOLUTION")].rstrip() if line.rstrip().endswith("# SOLUTION") else line
                     for line in lines)


def _code_cell(source: str) -> dict:
    return {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": source}


def write_examples(name: str, master: dict, values: dict, solution_nb: Path, student_nb: Path,
                   folder: Path, separate_tampering: bool = True) -> dict[str, Path]:
    """The example submissions of a class (``examples``), made from the reference solutions."""
    names = solution_functions(master)
    library = variant_module(name).library(values)
    missing = [f for f in library if f not in names]
    if missing:
        raise AssignmentError(f"{name}: variant.library answers {missing}, which no solution cell defines")
    nb = json.loads(solution_nb.read_text())
    blank = json.loads(student_nb.read_text())
    tagged = [i for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code"
              and "otter_assign_solution_cell" in c.get("metadata", {}).get("tags", [])]
    public = [_strip_markers(s) for s in solution_cells(canonical_master(name, values))]
    if len(tagged) != len(public):
        raise AssignmentError(f"{name}: {len(tagged)} solution cells in the graded notebook, {len(public)} in the master")
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    paths = {}
    for kind, filename in examples(separate_tampering).items():
        tampering = kind in TAMPERING or kind == "tampering"
        copy = json.loads(json.dumps(blank if tampering else nb))
        cells = copy["cells"]
        if kind == "copied":  # the public master's solutions, with this variant's numbers
            for i, text in zip(tagged, public, strict=True):
                cells[i]["source"] = text
        elif kind == "renamed":
            cells.insert(3, _code_cell(TOP_LEVEL_LOOP))
        elif tampering:
            for code in tampering_cells(kind, names[0]):
                cells.insert(len(cells) - 1, _code_cell(code))
        elif kind != "correct":
            for cell in cells:
                if cell["cell_type"] == "code":
                    try:
                        cell["source"] = example_cell(_source(cell), kind, names, library,
                                                      only=names[0] if kind == "swallowing" else None)
                    except SyntaxError:  # IPython magics: not a solution cell
                        pass
        path = folder / filename
        path.write_text(json.dumps(copy, indent=1))
        paths[kind] = path
    return paths


def function_questions(master: dict) -> dict[str, list[str]]:
    """Autograded question -> the functions its solution defines (the ones a looping function zeroes)."""
    out, block, question = {}, [], None
    for cell in master["cells"]:
        marker = _raw_marker(cell)
        if marker:
            kind, what = marker.split()
            block = block + [what] if kind == "BEGIN" else block[:-1]
            if marker == "BEGIN QUESTION":
                config = yaml.safe_load(_source(cell).split("\n", 1)[1])
                question = None if config.get("manual") else config["name"]
            continue
        if question and block[-1:] == ["SOLUTION"] and "# BEGIN SOLUTION" in _source(cell):
            source = _source(cell)
            found = [n.name for n in ast.parse(source).body if isinstance(n, ast.FunctionDef)
                     and "# BEGIN SOLUTION" in ast.get_source_segment(source, n)]
            if found:
                out.setdefault(question, []).extend(found)
    return out


def questions_with_functions(master: dict) -> list[str]:
    """Autograded questions whose solution defines a function."""
    return list(function_questions(master))


def grade_examples(name: str, zip_path: Path, master: dict, paths: dict[str, Path], total: float,
                   blank: dict, timeout: float = 240, jobs: int = 1) -> dict:
    """Grade the examples as scripts/grade_class.py does (its CSV printed) and check what each must score."""
    grade_class = _grade_class()
    folder = paths["correct"].parent
    rows = grade_class.grade_folder(zip_path, folder, timeout=timeout, csv_path=folder / "scores.csv", jobs=jobs)
    print((folder / "scores.csv").read_text(), end="")
    kinds = {path.name: kind for kind, path in paths.items()}
    by = {}
    for row in rows:
        row = dict(row)
        for k in ("seconds", "total", "max", *blank):
            row[k] = float(row[k]) if row.get(k) not in (None, "") else None
        by[kinds[row["submission"]]] = row
    problems = check_examples(name, master, by, total, blank, timeout)
    # Gradescope grades a file under whatever name it was handed in with: so, once, does this
    as_is = grade_row(zip_path, paths["renamed"], timeout, keep_name=True)
    if as_is["status"] != "graded" or as_is["total"] != total:
        problems.append(f"the renamed submission graded under its own name: {as_is['status']}, {as_is['total']} "
                        f"of {total}")
    hidden = grading_module().hidden_lines(_zip_tests(zip_path))
    shown = "\n".join(r.get("public_output", "") for r in by.values()) + as_is["public_output"]
    leaked = [line for line in hidden if line in shown]
    if leaked:
        problems.append(f"hidden test text in the public output: {leaked[:3]}")
    if problems:
        raise AssignmentError(f"{name}: the example submissions: " + "; ".join(problems))
    by["renamed, under its own name"] = {"total": as_is["total"], "status": as_is["status"],
                                         "seconds": as_is["seconds"], "flags": as_is["flags"]}
    return by


def _zip_tests(zip_path: Path) -> dict[str, str]:
    with zipfile.ZipFile(zip_path) as z:
        return {n: z.read(n).decode() for n in z.namelist() if n.startswith("tests/") and n.endswith(".py")}


def check_examples(name: str, master: dict, by: dict, total: float, blank: dict, timeout: float) -> list[str]:
    """What each example must score (the list of what does not hold)."""
    problems = []
    full = {q: points for q, points in master_parts(master)["questions"].items()}

    def score(kind):
        return by[kind]["total"] if by[kind]["total"] is not None else float("nan")

    for kind in ("correct", "scipy", "renamed"):
        if by[kind]["status"] != "graded" or score(kind) != total:
            problems.append(f"the {kind} submission: {by[kind]['status']}, {score(kind)} of {total} (full marks "
                            "required)")
    for kind in ("library", "copied"):
        if not score(kind) < total / 2:
            problems.append(f"the {kind} submission scores {score(kind)} of {total}: not below half")
    if not score("zeros") <= total / 4:
        problems.append(f"answers of zeros of the right shape score {score('zeros')} of {total}: shape tests pay")
    for kind in ("raising", "looping", "wrong", "swallowing"):
        if by[kind]["status"] != "graded" or not score(kind) < total:
            problems.append(f"the {kind} submission: {by[kind]['status']}, {score(kind)} of {total}")
    functions = function_questions(master)
    loops = {q: by["looping"].get(q) for q in functions}
    if any(v != 0 for v in loops.values()):
        problems.append(f"looping questions not at zero: {loops}")
    first = solution_functions(master)[0]
    swallowed = [q for q, fs in functions.items() if first in fs]
    others = {q: by["swallowing"].get(q) for q in full if q not in swallowed}
    if any(by["swallowing"].get(q) != 0 for q in swallowed) or any(v != full[q] for q, v in others.items()):
        problems.append(f"a swallowed time limit in {first}: {swallowed} must be 0 and the others full, got "
                        f"{ {q: by['swallowing'].get(q) for q in full} }")
    for kind in [k for k in by if k in TAMPERING or k == "tampering"]:
        expected_flags = tampering_flags(kind)
        got = {q: by[kind].get(q) for q in blank}
        if by[kind]["status"] != "graded" or any(got[q] != blank[q] for q in blank):
            problems.append(f"{kind}: {by[kind]['status']}, {got}; a blank notebook scores {blank}")
        missing = [f for f in expected_flags if f not in (by[kind]["flags"] or "")]
        if missing:
            problems.append(f"{kind} is not flagged {missing} (flags: {by[kind]['flags']!r})")
    for kind in ("correct", "scipy", "wrong", "raising", "looping", "zeros", "swallowing"):
        stray = [f for f in (by[kind]["flags"] or "").split("; ") if f and "public master" not in f]
        if stray:
            problems.append(f"the {kind} submission is flagged: {stray}")
    if "public master" not in (by["copied"]["flags"] or ""):
        problems.append(f"the copied submission is not flagged as similar to the public master ({by['copied']['flags']!r})")
    slow = {k: r["seconds"] for k, r in by.items() if r["seconds"] is not None and r["seconds"] >= timeout}
    if slow:
        problems.append(f"submissions that reached the {timeout:g} s limit: {slow}")
    return problems


# --- the instructors' handout -------------------------------------------------------------------

#: MathJax 3 for ``$...$`` and ``$$...$$``, as the notebooks write math (inlined: no network).
MATHJAX_CONFIG = ("window.MathJax = {tex: {inlineMath: [['$', '$'], ['\\\\(', '\\\\)']], displayMath: "
                  "[['$$', '$$'], ['\\\\[', '\\\\]']], processEscapes: true}, svg: {fontCache: 'global'}};")


def mathjax_file() -> Path:
    """MathJax's self-contained SVG bundle, from the pinned sphinx-mathjax-offline (requirements.txt)."""
    try:
        files = importlib.metadata.distribution("sphinx-mathjax-offline").files or []
    except importlib.metadata.PackageNotFoundError:
        files = []
    for f in files:
        if str(f).endswith("static/mathjax/tex-svg.js"):
            return Path(f.locate())
    raise AssignmentError("MathJax for the offline handout comes from sphinx-mathjax-offline (requirements.txt), "
                          "which is not installed: python -m pip install -r requirements.txt")


def offline_math(html: str, mathjax: str) -> str:
    """nbconvert's page with MathJax inlined and no script or style loaded from the network."""
    html = re.sub(r'<script type="text/x-mathjax-config">.*?</script>', "", html, flags=re.S)
    html = re.sub(r'<script src="https?://[^"]*mathjax[^"]*">\s*</script>',
                  lambda m: f"<script>{MATHJAX_CONFIG}</script>\n<script>{mathjax}</script>", html, flags=re.I)
    html = re.sub(r'<script src="https?://[^"]*">\s*</script>', "", html)  # require.js: no widgets here
    # the template's Mermaid loader would import from a CDN if the page had diagrams; it has none
    html = re.sub(r'<script type="module">(?:(?!</script>).)*mermaid(?:(?!</script>).)*</script>', "", html, flags=re.S)
    remote = re.findall(r'<(?:script|link)[^>]+(?:src|href)="https?://[^"]*"', html)
    if remote:
        raise AssignmentError(f"the handout still loads {remote[:3]}")
    return html


def solutions_handout(solution_nb: Path, folder: Path, name: str) -> Path:
    """The reference solutions and the rubrics, as one self-contained HTML page for instructors."""
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run([sys.executable, "-m", "jupyter", "nbconvert", "--to", "html", "--output-dir", str(folder),
                           "--output", f"{name}-solutions", str(solution_nb)], capture_output=True, text=True)
    page = folder / f"{name}-solutions.html"
    if done.returncode != 0 or not page.exists():
        raise AssignmentError(f"{name}: could not write the solutions handout:\n{done.stderr[-2000:]}")
    page.write_text(offline_math(page.read_text(), mathjax_file().read_text()))
    return page


# --- building one assignment --------------------------------------------------------------------


def build(name: str, seed: str, wheel: Path, with_examples: bool = True, jobs: int = 1,
          separate_tampering: bool = True) -> dict:
    out = OUTPUT / name
    shutil.rmtree(out, ignore_errors=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    master, values = prepare_master(name, seed, wheel, OUTPUT / "_masters" / name)
    master_path = OUTPUT / "_masters" / name / f"{name}.ipynb"

    # (a) otter assign succeeds and writes both versions; the zip gets the plugin
    done = _otter("assign", str(master_path), str(out), cwd=master_path.parent)
    student_nb = out / "student" / f"{name}.ipynb"
    solution_nb = out / "autograder" / f"{name}.ipynb"
    zips = sorted((out / "autograder").glob(f"{name}-autograder_*.zip"))
    if done.returncode != 0 or not student_nb.exists() or not solution_nb.exists() or len(zips) != 1:
        raise AssignmentError(f"otter assign failed for {name}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    given = given_code(json.loads(student_nb.read_text()), name, master, wheel)
    patch_autograder(zips[0], given)
    (out / "student" / grading_module().GIVEN_FILE).write_text(json.dumps(given, indent=1))
    with zipfile.ZipFile(zips[0]) as z:
        environment = z.read("environment.yml").decode() if "environment.yml" in z.namelist() else ""
        if f"files/{wheel.name}" not in z.namelist() or f"files/{wheel.name}#sha256=" not in environment:
            raise AssignmentError(f"{name}: the autograder zip does not ship and pin {wheel.name}")
        if f"python={python_version()}" not in environment:
            raise AssignmentError(f"{name}: the grading image's Python is not this one ({python_version()})")
    questions = master_parts(master)["questions"]
    total = sum(questions.values())

    # (b) the reference solutions score full marks
    graded = grade(zips[0], solution_nb)
    if set(graded) != set(questions):
        raise AssignmentError(f"{name}: graded questions {sorted(graded)} differ from the master's {sorted(questions)}")
    got = sum(s for s, _ in graded.values())
    short = {q: s for q, s in graded.items() if s[0] < s[1]}
    if short or abs(got - total) > 1e-9:
        raise AssignmentError(f"{name}: the reference solutions score {got} of {total}; short on {short}")

    # (c) the unsolved student version scores less than full marks
    blank = grade(zips[0], student_nb)
    blank_total = sum(s for s, _ in blank.values())
    if blank_total >= total:
        raise AssignmentError(f"{name}: the unsolved student version scores {blank_total} of {total}: "
                              "the tests cannot fail")

    # (d) no solution, marker or hidden test in the student version
    found = leaks(master, out / "student")
    if found:
        raise AssignmentError(f"{name}: the student version leaks:\n  " + "\n  ".join(found[:30]))

    # (e) a class of example submissions, graded
    scored = None
    if with_examples:
        paths = write_examples(name, master, values, solution_nb, student_nb, out / "examples", separate_tampering)
        scored = grade_examples(name, zips[0], master, paths, total, {q: s for q, (s, _) in blank.items()},
                                jobs=jobs)

    # the file students open, with the wheel its set-up cell installs, and the instructors' handout
    student_zip = out / f"{name}-student.zip"
    with zipfile.ZipFile(student_zip, "w", zipfile.ZIP_DEFLATED) as z:
        for path in sorted((out / "student").rglob("*")):
            if path.is_file():
                z.write(path, path.relative_to(out / "student"))
        z.write(wheel, wheel.name)
    setup = next(_source(c) for c in json.loads(student_nb.read_text())["cells"] if c["cell_type"] == "code")
    if f"%pip install -q {wheel.name}" not in setup or f'"{wheel_version(wheel)}"' not in setup:
        raise AssignmentError(f"{name}: the student set-up cell does not install {wheel.name} from the zip")
    handout = solutions_handout(solution_nb, out / "instructor", name)
    return {"total": total, "blank": blank_total, "questions": len(questions),
            "solution_lines": len(master_parts(master)["solution_lines"]), "zip": student_zip,
            "examples": scored, "handout": handout, "variant": values["variant"]}


BROKEN_MASTER = [
    ("raw", "# ASSIGNMENT CONFIG\nname: broken\ninit_cell: false\nexport_cell: false\ntests:\n  files: true"),
    ("raw", "# BEGIN QUESTION\nname: q1\npoints: 1"),
    ("markdown", "Write `triple(x)`."),
    ("code", "def triple(x):\n    # BEGIN SOLUTION\n    return 3 * x\n    # END SOLUTION"),  # no raw block around it
    ("raw", "# BEGIN TESTS"),
    ("code", "assert triple(1) == 3"),
    ("code", "# HIDDEN\nassert triple(-2) == -6"),
    ("raw", "# END TESTS"),
    ("raw", "# END QUESTION"),
]


def self_test() -> None:
    """A solution cell outside its raw solution block survives ``otter assign``: the leak check must see it."""
    cells = [{"cell_type": kind, "metadata": {}, "source": text, "id": f"c{i}",
              **({"outputs": [], "execution_count": None} if kind == "code" else {})}
             for i, (kind, text) in enumerate(BROKEN_MASTER)]
    master = {"cells": cells, "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                          "language": "python"}},
              "nbformat": 4, "nbformat_minor": 5}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "broken.ipynb"
        path.write_text(json.dumps(master))
        done = _otter("assign", "--no-run-tests", str(path), str(Path(tmp) / "dist"), cwd=Path(tmp))
        if done.returncode != 0:
            raise AssignmentError(f"self-test: otter assign failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
        found = leaks(master, Path(tmp) / "dist" / "student")
    if not any("return 3 * x" in f for f in found) or not any("BEGIN SOLUTION" in f for f in found):
        raise AssignmentError(f"self-test: a misplaced solution cell went unnoticed (found: {found})")


def _summary(kind: str, row: dict, total: float) -> str:
    score = "-" if row["total"] is None else f"{row['total']:g}"
    status = "" if row["status"] == "graded" else f" [{row['status']}]"
    flags = [f for f in (row.get("flags") or "").split("; ") if f]
    flagged = (" flagged" if any("public master" not in f for f in flags) else "") + \
        (" similar" if any("public master" in f for f in flags) else "")
    return f"{kind} {score}/{total:g}{status}{flagged} in {row['seconds']:.0f} s"


def default_jobs() -> int:
    return max(1, min(4, (os.cpu_count() or 2) // 2))


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="assignments to build (default: every folder in assignments/)")
    parser.add_argument("--seed-file", help=f"file holding the course's secret seed (else ${SEED_ENV}; "
                                            "else the public demo variant)")
    parser.add_argument("--new-seed", metavar="FILE", help="write a new secret seed to FILE (creating its folder) "
                                                           "and stop")
    parser.add_argument("--no-examples", action="store_true", help="skip grading the example submissions")
    parser.add_argument("--jobs", type=int, default=default_jobs(),
                        help=f"example submissions graded at once (default {default_jobs()}: half the CPUs, at most 4)")
    parser.add_argument("--allow-dirty", action="store_true",
                        help="build from a checkout with changes, for trying one (the wheel is marked .dirty; never "
                             "hand such a build to students)")
    parser.add_argument("--tampering", choices=("first", "each", "combined"), default="first",
                        help="one example notebook per way of tampering (each), all ways in one notebook (combined), "
                             "or each for the first assignment and combined for the others (first, the default)")
    args = parser.parse_args(argv)
    if args.new_seed:
        try:
            path = new_seed(args.new_seed)
        except AssignmentError as err:
            print(f"FAILED {err}")
            return 1
        print(f"wrote a new course seed to {path}; back it up, keep it out of the repository, and build with "
              f"python scripts/assignments.py --seed-file {args.new_seed}")
        return 0
    available = sorted(p.name for p in MASTERS.iterdir() if (p / f"{p.name}.ipynb").exists())
    names = args.names or available
    unknown = [n for n in names if n not in available]
    if unknown or not names or args.jobs < 1:
        print(f"no such assignment: {unknown}; the masters are {available}" if unknown or not names
              else f"--jobs must be at least 1, got {args.jobs}")
        return 2
    try:
        dirty = require_clean_tree(args.allow_dirty)
        python_version()
        seed = read_seed(args.seed_file)
        self_test()
        print("self-test: a solution cell outside its raw solution block is caught in the student version")
        wheel = build_wheel(OUTPUT / "_wheel", dirty)
    except AssignmentError as err:
        print(f"FAILED {err}")
        return 1
    if seed == DEMO_SEED:
        print("variant: the public demo variant (its answers can be rebuilt by anyone: not for credit; "
              f"see --seed-file or ${SEED_ENV})")
    else:
        print(f"variant: {variant_id(seed)} (from the course's secret seed)")
    zips = []
    for i, name in enumerate(names):
        start = time.perf_counter()
        separate = args.tampering == "each" or (args.tampering == "first" and i == 0)
        try:
            r = build(name, seed, wheel, with_examples=not args.no_examples, jobs=args.jobs,
                      separate_tampering=separate)
        except AssignmentError as err:
            print(f"FAILED {err}")
            return 1
        print(f"{name}: otter assign ok; reference solutions {r['total']:g}/{r['total']:g} on {r['questions']} "
              f"autograded questions; unsolved student version {r['blank']:g}/{r['total']:g}; none of "
              f"{r['solution_lines']} solution lines, no marker and no hidden test in the student version; "
              f"{r['zip'].relative_to(ROOT)}; instructors only: {r['handout'].relative_to(ROOT)} "
              f"({time.perf_counter() - start:.0f} s)")
        if r["examples"]:
            print("  example submissions (" + ", ".join(_summary(k, v, r["total"]) for k, v in r["examples"].items())
                  + ")")
        zips.append(r["zip"])
    # the students' side: each zip's set-up cell, run as on Colab, offline, in a fresh venv
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "student_setup.py"), *map(str, zips)])
    return 0 if done.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
