"""Reading an assignment's master, and rendering a course's variant of it from the secret seed.

Part of ``scripts/assignments.py`` (which see): the paths and markers every step shares, the
master's questions and their points, the seed (read, created, never inside the repository), the
variant's values and its rendering, and the wheel of this checkout that the variant pins.
"""

from __future__ import annotations

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


def _texts(name: str, data: bytes):
    """(path, text) of one file, and of every file inside it when it is a zip (a wheel too), recursively."""
    if zipfile.is_zipfile(io.BytesIO(data)):
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            for entry in z.namelist():
                if not entry.endswith("/"):
                    yield from _texts(f"{name}/{entry}", z.read(entry))
        return
    text = data.decode("utf-8", errors="replace")
    if name.endswith(".ipynb"):
        nb = json.loads(text)
        text = "\n".join([*(_source(c) for c in nb["cells"]), json.dumps(nb.get("metadata", {}))])
    elif name.endswith(".json"):  # its strings, each a text of its own lines (a line inside quotes is a line)
        text = "\n".join(_strings(json.loads(text)))
    yield name, text


def _strings(value) -> list[str]:
    if isinstance(value, str):
        return [value]
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    return [s for item in items for s in _strings(item)]


def student_files(student: Path) -> dict[str, str]:
    """Path -> text of every file a student gets: a folder's files, or a zip's entries, any suffix, with
    the files inside any zip among them (the wheel). The public support code is left out."""
    raw = ({str(p.relative_to(student)): p.read_bytes() for p in sorted(student.rglob("*")) if p.is_file()}
           if student.is_dir() else {student.name: student.read_bytes()})
    return {path: text for name, data in raw.items() for path, text in _texts(name, data)
            if Path(path).name not in (SUPPORT.name, GRADING.name)}


def library_lines(root: Path = ROOT) -> set[str]:
    """Stripped lines of the public library as its wheel ships it (attnlib's sources, the package's page)."""
    files = [*sorted((root / "attnlib").rglob("*.py")), root / "README.pypi.md"]
    return {line.strip() for f in files if f.exists() for line in f.read_text().splitlines()}


def leaks(master: dict, student: Path) -> list[str]:
    """What of the master's solutions and hidden tests reached what students get: every file of a student
    folder or zip (``student_files``), named with the file it is in. Inside the attnlib wheel, a line the
    public library itself has (``return F``, an import) is no leak; any other line is."""
    parts = master_parts(master)
    public = library_lines()
    found = []
    for path, text in student_files(student).items():
        lines = {line.strip() for line in text.splitlines()}
        if ".whl/" in path:
            lines -= public
            text = "\n".join(lines)
        found += [f"{path}: solution line {line!r}" for line in sorted(parts["solution_lines"]) if line in lines]
        found += [f"{path}: hidden test line {line!r}" for line in sorted(parts["hidden_lines"])
                  if line in lines or line in text]
        found += [f"{path}: marker {marker!r}" for marker in MARKERS if marker in text]
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
