"""Build a course's variant of the autograded assignments with otter-grader, and prove that it works.

    python -m pip install -e ".[course]"                       # otter-grader 7.0.0 and a kernel, once
    python scripts/assignments.py                              # the public demo variant (not for credit)
    python scripts/assignments.py --seed-file ~/private/course.seed          # the course's own variant
    ATTNLIB_COURSE_SEED=... python scripts/assignments.py a3_lower_bounds

The masters in ``assignments/<name>/`` are generators: ``<name>.ipynb`` leaves data, constants and
targets as ``{{name}}`` placeholders, and ``variant.py`` draws their values from a secret seed (a
text kept outside the repository; its hash names the variant). For each master this

1. renders the course's variant into ``_build/assignments/<name>/master/``, next to the grading
   support file (``assignments/_support/assignment_support.py``), a wheel of this checkout's
   ``attnlib`` and the autograder's ``requirements.txt``, which pins that wheel by its hash;
2. runs ``otter assign`` into ``_build/assignments/<name>/`` (``student/`` for the students,
   ``autograder/`` with the graded solutions and the autograder zip);
3. grades the reference solutions with ``otter run -a <autograder zip>`` and requires full marks,
   and the unsolved student version, which must score less;
4. checks that the student version holds no solution: no line written between the BEGIN/END
   SOLUTION markers (code, or the markdown of written answers and their rubrics), no marker text
   and no hidden test;
5. writes the example submissions of a class (correct, wrong, raising, looping, library-calling)
   into ``examples/``, grades them with ``scripts/grade_class.py`` (a time limit per submission)
   into ``examples/scores.csv``, and requires: the correct one full marks, the looping one graded
   with every looping question at zero, the library-calling one below half;
6. writes ``<name>-student.zip`` (the notebook and its public tests, the file students open on
   Colab, Binder or a laptop) and, for instructors only, ``instructor/<name>-solutions.html``
   (the reference solutions and the rubrics of the written answers).

Before that, a self-test runs ``otter assign`` on a tiny master whose solution cell sits outside
its raw BEGIN/END SOLUTION block, and requires step 4 to catch it. ``--no-examples`` skips step 5.
Any failure stops with a message and a non-zero exit status.
"""

from __future__ import annotations

import argparse
import ast
import csv
import io
import hashlib
import importlib.util
import json
import os
import re
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
OUTPUT = ROOT / "_build" / "assignments"
SEED_ENV = "ATTNLIB_COURSE_SEED"
#: The public variant: CI and the repository's own checks use it; never give it for credit.
DEMO_SEED = "public demo variant"

#: Text that must never reach a student: otter's solution and hidden-test markers.
MARKERS = ("BEGIN SOLUTION", "END SOLUTION", "# SOLUTION", "# HIDDEN", "BEGIN TESTS", "END TESTS")
PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")


class AssignmentError(RuntimeError):
    """An assignment failed one of the checks."""


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


def master_parts(nb: dict) -> dict:
    """Solution lines, hidden and public test lines, and autograded questions of a master notebook.

    Returns a dict with ``solution_lines`` (stripped lines written between the solution
    markers: in any code cell between ``# BEGIN SOLUTION`` / ``# END SOLUTION`` comment lines
    or ending in ``# SOLUTION``, and every line of a markdown cell in a raw solution block),
    ``hidden_lines`` and ``public_lines`` (stripped lines of the test cells) and
    ``questions`` (name -> points of the questions that have tests).
    """
    solution, hidden, public, questions = set(), set(), set(), {}
    block, question = [], None
    for cell in nb["cells"]:
        marker = _raw_marker(cell)
        if marker:
            kind, what = marker.split()
            if kind == "BEGIN":
                block.append(what)
                if what == "QUESTION":
                    config = dict(re.findall(r"^(\w+):\s*(.+?)\s*$", _source(cell), flags=re.M))
                    question = (config.get("name"), float(config.get("points", 0)))
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
                    solution.add(line)
                elif line.endswith("# SOLUTION"):
                    solution.add(line[: -len("# SOLUTION")].strip())
        elif block and block[-1] == "TESTS" and cell["cell_type"] == "code":
            is_hidden = lines and lines[0].startswith("# HIDDEN")
            target = hidden if is_hidden else public
            target.update(line for line in lines[1 if is_hidden else 0:] if _meaningful(line))
            if question and question[0]:
                questions[question[0]] = question[1]
    return {"solution_lines": solution, "hidden_lines": hidden - public, "public_lines": public,
            "questions": questions}


def student_text(student_dir: Path) -> tuple[set, str]:
    """Stripped lines and full text of everything in a student folder (notebooks and tests)."""
    texts = []
    for path in sorted(student_dir.rglob("*")):
        if path.suffix == ".ipynb":
            nb = json.loads(path.read_text())
            texts.extend(_source(c) for c in nb["cells"])
            texts.append(json.dumps(nb.get("metadata", {})))
        elif path.suffix == ".py" and path.name != SUPPORT.name:  # the support file is public code
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
        seed = path.read_text().strip()
    else:
        seed = os.environ.get(SEED_ENV, "").strip()
    if not seed:
        return DEMO_SEED
    if len(seed) < 12:
        raise AssignmentError(f"the course seed has {len(seed)} characters; use at least 12 "
                              "(for example: python -c 'import secrets; print(secrets.token_hex(16))')")
    return seed


def variant_id(seed: str) -> str:
    """A public name of the variant (a hash of the seed, which cannot be turned back into it)."""
    return "demo" if seed == DEMO_SEED else hashlib.sha256(seed.encode()).hexdigest()[:10]


def variant_module(name: str):
    spec = importlib.util.spec_from_file_location(f"variant_{name}", MASTERS / name / "variant.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def variant_rng(seed: str, name: str) -> np.random.Generator:
    words = [int.from_bytes(hashlib.sha256(f"{seed}\n{name}".encode()).digest()[:16], "little")]
    return np.random.default_rng(np.random.SeedSequence(words))


def render(nb: dict, values: dict) -> dict:
    """The master with every ``{{name}}`` replaced; an unknown or unused name is an error."""
    out = json.loads(json.dumps(nb))
    used = set()

    def sub(match):
        key = match.group(1)
        if key not in values:
            raise AssignmentError(f"the master uses {{{{{key}}}}}, which the variant does not define")
        used.add(key)
        return str(values[key])

    for cell in out["cells"]:
        cell["source"] = PLACEHOLDER.sub(sub, _source(cell))
    unused = set(values) - used
    if unused:
        raise AssignmentError(f"the variant defines {sorted(unused)}, which the master never uses")
    return out


def repository_url() -> str:
    return yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]["url"]


def attnlib_ref() -> str:
    done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else "main"


def pins() -> list[str]:
    """numpy and scipy as requirements.txt pins them."""
    lines = (ROOT / "requirements.txt").read_text().splitlines()
    return [line.strip() for line in lines if re.match(r"(numpy|scipy)==", line.strip())]


def build_wheel(folder: Path) -> Path:
    """A wheel of this checkout's attnlib: the autograder installs exactly this code."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "src"
        shutil.copytree(ROOT / "attnlib", src / "attnlib", ignore=shutil.ignore_patterns("__pycache__"))
        for f in ("pyproject.toml", "README.md", "LICENSE"):
            shutil.copy(ROOT / f, src / f)
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


def prepare_master(name: str, seed: str, wheel: Path, folder: Path) -> tuple[dict, dict]:
    """Render the course's variant of a master into ``folder``; returns (rendered master, values)."""
    master = json.loads((MASTERS / name / f"{name}.ipynb").read_text())
    values = variant_module(name).parameters(variant_rng(seed, name))
    values = {**values, "variant": variant_id(seed), "repository": repository_url(), "attnlib_ref": attnlib_ref(),
              "wheel": wheel.name}
    rendered = render(master, values)
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    (folder / f"{name}.ipynb").write_text(json.dumps(rendered, indent=1, ensure_ascii=False))
    shutil.copy(SUPPORT, folder / SUPPORT.name)
    shutil.copy(wheel, folder / wheel.name)
    (folder / "requirements.txt").write_text(requirements(wheel))
    return rendered, values


# --- grading ------------------------------------------------------------------------------------


def _grade_class():
    """scripts/grade_class.py as a module (scripts/ is not a package)."""
    spec = importlib.util.spec_from_file_location("grade_class", ROOT / "scripts" / "grade_class.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def scores(results: dict) -> dict:
    """Question name -> (score, max score) from otter's results.json: the one reading, in grade_class."""
    return _grade_class().scores(results)


def _otter(*args: str, cwd: Path, timeout: float | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "otter", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)


def grade(zip_path: Path, notebook: Path) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        done = _otter("run", "-a", str(zip_path), "-o", tmp, str(notebook), cwd=notebook.parent)
        results = Path(tmp) / "results.json"
        if done.returncode != 0 or not results.exists():
            raise AssignmentError(f"otter run failed on {notebook}:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
        return scores(json.loads(results.read_text()))


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


PERTURB = '''

def _perturbed(result):
    if isinstance(result, tuple):
        return tuple(_perturbed(r) for r in result)
    if isinstance(result, (bool, np.bool_)):
        return not result
    if isinstance(result, (int, np.integer)):
        return result + 1
    return np.asarray(result, dtype=float) + 0.5'''

BODIES = {
    "raising": 'raise RuntimeError("a bug in {name}")',
    "looping": "steps = 0\n    while True:\n        steps += 1",
}


def example_cell(source: str, kind: str, names: list[str], library: dict) -> str:
    """A solution cell rewritten as one kind of example submission."""
    tree = ast.parse(source)
    defined = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name in names]
    if not defined:
        return source
    lines = source.splitlines()
    out, last = [], 0
    for node in defined:
        start = (node.decorator_list[0].lineno if node.decorator_list else node.lineno) - 1
        out += lines[last:start]
        original = lines[start:node.end_lineno]
        if kind == "library":
            out += (library.get(node.name) or "\n".join(original)).splitlines()
        elif kind == "wrong":
            out += ["\n".join(original).replace(f"def {node.name}(", f"def _right_{node.name}(", 1),
                    f"\n\ndef {node.name}(*args, **kwargs):", f"    return _perturbed(_right_{node.name}(*args, **kwargs))"]
        else:
            out += [original[node.lineno - 1 - start]] + ["    " + BODIES[kind].format(name=node.name)]
        last = node.end_lineno
    out += lines[last:]
    text = "\n".join(out)
    return text + PERTURB if kind == "wrong" else text


EXAMPLE_KINDS = ("correct", "wrong", "raising", "looping", "library")


def write_examples(name: str, master: dict, solution_nb: Path, folder: Path) -> list[Path]:
    """The example submissions of a class, made from the reference solutions."""
    names = solution_functions(master)
    library = getattr(variant_module(name), "LIBRARY", {})
    missing = [f for f in library if f not in names]
    if missing:
        raise AssignmentError(f"{name}: variant.LIBRARY answers {missing}, which no solution cell defines")
    nb = json.loads(solution_nb.read_text())
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    paths = []
    for kind in EXAMPLE_KINDS:
        copy = json.loads(json.dumps(nb))
        for cell in copy["cells"]:
            if cell["cell_type"] == "code" and kind != "correct":
                try:
                    cell["source"] = example_cell(_source(cell), kind, names, library)
                except SyntaxError:  # IPython magics: not a solution cell
                    pass
        path = folder / f"{kind}.ipynb"
        path.write_text(json.dumps(copy, indent=1))
        paths.append(path)
    return paths


def grade_examples(name: str, zip_path: Path, master: dict, folder: Path, total: float) -> dict:
    """Grade the examples with scripts/grade_class.py and check what each must score."""
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "grade_class.py"), str(zip_path), str(folder),
                           "--timeout", "240", "--csv", str(folder / "scores.csv")], capture_output=True, text=True)
    print(done.stdout, end="")
    if done.returncode != 0 or not (folder / "scores.csv").exists():
        raise AssignmentError(f"{name}: scripts/grade_class.py failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    rows = list(csv.DictReader(io.StringIO((folder / "scores.csv").read_text())))
    for row in rows:
        row.update({k: float(v) for k, v in row.items() if v and k not in ("submission", "status")})
    by = {Path(r["submission"]).stem: r for r in rows}
    questions = master_parts(master)["questions"]
    problems = []
    if by["correct"]["total"] != total:
        problems.append(f"the correct submission scores {by['correct']['total']} of {total}")
    if by["library"]["total"] >= total / 2:
        problems.append(f"the library-calling submission scores {by['library']['total']} of {total}: not below half")
    for kind in ("raising", "looping", "wrong"):
        if by[kind]["status"] != "graded" or by[kind]["total"] >= total:
            problems.append(f"the {kind} submission: {by[kind]['status']}, {by[kind]['total']} of {total}")
    code_questions = questions_with_functions(master)
    loops = {q: by["looping"].get(q) for q in code_questions}
    if any(v != 0 for v in loops.values()):
        problems.append(f"looping questions not at zero: {loops}")
    if problems:
        raise AssignmentError(f"{name}: the example submissions: " + "; ".join(problems))
    return by


def questions_with_functions(master: dict) -> list[str]:
    """Autograded questions whose solution defines a function (the ones a looping function zeroes)."""
    out, block, question = [], [], None
    for cell in master["cells"]:
        marker = _raw_marker(cell)
        if marker:
            kind, what = marker.split()
            block = block + [what] if kind == "BEGIN" else block[:-1]
            if marker == "BEGIN QUESTION":
                config = yaml.safe_load(_source(cell).split("\n", 1)[1])
                question = None if config.get("manual") else config["name"]
            continue
        if question and block[-1:] == ["SOLUTION"] and "def " in _source(cell) and "# BEGIN SOLUTION" in _source(cell):
            if re.search(r"^def \w+\(.*\n(?:    .*\n|\n)*?    # BEGIN SOLUTION", _source(cell), flags=re.M):
                out.append(question)
    return out


def solutions_handout(solution_nb: Path, folder: Path, name: str) -> Path:
    """The reference solutions and the rubrics, as one HTML page for instructors."""
    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run([sys.executable, "-m", "jupyter", "nbconvert", "--to", "html", "--output-dir", str(folder),
                           "--output", f"{name}-solutions", str(solution_nb)], capture_output=True, text=True)
    page = folder / f"{name}-solutions.html"
    if done.returncode != 0 or not page.exists():
        raise AssignmentError(f"{name}: could not write the solutions handout:\n{done.stderr[-2000:]}")
    return page


def build(name: str, seed: str, wheel: Path, examples: bool = True) -> dict:
    out = OUTPUT / name
    shutil.rmtree(out, ignore_errors=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    master, values = prepare_master(name, seed, wheel, OUTPUT / "_masters" / name)
    master_path = OUTPUT / "_masters" / name / f"{name}.ipynb"

    # (a) otter assign succeeds and writes both versions
    done = _otter("assign", str(master_path), str(out), cwd=master_path.parent)
    student_nb = out / "student" / f"{name}.ipynb"
    solution_nb = out / "autograder" / f"{name}.ipynb"
    zips = sorted((out / "autograder").glob(f"{name}-autograder_*.zip"))
    if done.returncode != 0 or not student_nb.exists() or not solution_nb.exists() or len(zips) != 1:
        raise AssignmentError(f"otter assign failed for {name}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    with zipfile.ZipFile(zips[0]) as z:
        environment = z.read("environment.yml").decode() if "environment.yml" in z.namelist() else ""
        if f"files/{wheel.name}" not in z.namelist() or f"files/{wheel.name}#sha256=" not in environment:
            raise AssignmentError(f"{name}: the autograder zip does not ship and pin {wheel.name}")
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
    if examples:
        write_examples(name, master, solution_nb, out / "examples")
        scored = grade_examples(name, zips[0], master, out / "examples", total)

    # the file students open, and the instructors' handout
    student_zip = out / f"{name}-student.zip"
    with zipfile.ZipFile(student_zip, "w", zipfile.ZIP_DEFLATED) as z:
        for path in sorted((out / "student").rglob("*")):
            if path.is_file():
                z.write(path, path.relative_to(out / "student"))
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


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="assignments to build (default: every folder in assignments/)")
    parser.add_argument("--seed-file", help=f"file holding the course's secret seed (else ${SEED_ENV}; "
                                            "else the public demo variant)")
    parser.add_argument("--no-examples", action="store_true", help="skip grading the example submissions")
    args = parser.parse_args(argv)
    names = args.names or sorted(p.name for p in MASTERS.iterdir() if (p / f"{p.name}.ipynb").exists())
    if not names:
        print(f"no master notebooks in {MASTERS}")
        return 2
    try:
        seed = read_seed(args.seed_file)
        self_test()
        print("self-test: a solution cell outside its raw solution block is caught in the student version")
        wheel = build_wheel(OUTPUT / "_wheel")
    except AssignmentError as err:
        print(f"FAILED {err}")
        return 1
    if seed == DEMO_SEED:
        print("variant: the public demo variant (its answers can be rebuilt by anyone: not for credit; "
              f"see --seed-file or ${SEED_ENV})")
    else:
        print(f"variant: {variant_id(seed)} (from the course's secret seed)")
    for name in names:
        start = time.perf_counter()
        try:
            r = build(name, seed, wheel, examples=not args.no_examples)
        except AssignmentError as err:
            print(f"FAILED {err}")
            return 1
        print(f"{name}: otter assign ok; reference solutions {r['total']:g}/{r['total']:g} on {r['questions']} "
              f"autograded questions; unsolved student version {r['blank']:g}/{r['total']:g}; none of "
              f"{r['solution_lines']} solution lines, no marker and no hidden test in the student version; "
              f"{r['zip'].relative_to(ROOT)}; instructors only: {r['handout'].relative_to(ROOT)} "
              f"({time.perf_counter() - start:.0f} s)")
        if r["examples"]:
            print("  example submissions (" + ", ".join(
                f"{k} {v['total']:g}/{r['total']:g}" + ("" if v["status"] == "graded" else f" [{v['status']}]")
                + f" in {v['seconds']:.0f} s" for k, v in r["examples"].items()) + ")")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
