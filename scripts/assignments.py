"""Build the autograded assignments with otter-grader, and prove that they work.

    python -m pip install -e ".[course]"     # otter-grader 7.0.0, once
    python scripts/assignments.py            # every master in assignments/
    python scripts/assignments.py a3_lower_bounds

For each master notebook ``assignments/<name>/<name>.ipynb`` this

1. runs ``otter assign`` into ``_build/assignments/<name>/`` (``student/`` for the
   students, ``autograder/`` with the graded solutions and the autograder zip);
2. grades the reference solutions with ``otter run -a <autograder zip>`` and
   requires full marks on every autograded question;
3. grades the unsolved student version the same way and requires less than full
   marks (so the tests can fail);
4. checks that the student version holds no solution: no line written between the
   BEGIN/END SOLUTION markers of the master (code, or the markdown of written
   answers) appears in the student notebook or its tests, no marker text remains
   (otter leaves a solution cell that sits outside a raw BEGIN/END SOLUTION block
   untouched, markers included), and no hidden test is shipped;
5. zips the student folder into ``<name>-student.zip`` (the notebook and its public
   ``tests/``), the file students open on Colab, Binder or a laptop.

Before that, a self-test runs ``otter assign`` on a tiny master whose solution cell
sits outside its raw BEGIN/END SOLUTION block, and requires step 4 to catch it.

Any failure stops with a message and a non-zero exit status.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MASTERS = ROOT / "assignments"
OUTPUT = ROOT / "_build" / "assignments"

#: Text that must never reach a student: otter's solution and hidden-test markers.
MARKERS = ("BEGIN SOLUTION", "END SOLUTION", "# SOLUTION", "# HIDDEN", "BEGIN TESTS", "END TESTS")


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
        elif path.suffix == ".py":
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


# --- grading ------------------------------------------------------------------------------------


def scores(results: dict) -> dict:
    """Question name -> (score, max score) from otter's results.json (the public-tests summary left out)."""
    out = {}
    for test in results.get("tests", []):
        if "max_score" in test and test.get("name") != "Public Tests":
            out[test["name"]] = (float(test.get("score") or 0.0), float(test["max_score"]))
    return out


def _otter(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "otter", *args], cwd=cwd, capture_output=True, text=True)


def grade(zip_path: Path, notebook: Path) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        done = _otter("run", "-a", str(zip_path), "-o", tmp, str(notebook), cwd=notebook.parent)
        results = Path(tmp) / "results.json"
        if done.returncode != 0 or not results.exists():
            raise AssignmentError(f"otter run failed on {notebook}:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
        return scores(json.loads(results.read_text()))


def build(name: str) -> dict:
    master_path = MASTERS / name / f"{name}.ipynb"
    master = json.loads(master_path.read_text())
    out = OUTPUT / name
    shutil.rmtree(out, ignore_errors=True)
    out.parent.mkdir(parents=True, exist_ok=True)

    # (a) otter assign succeeds and writes both versions
    done = _otter("assign", str(master_path), str(out), cwd=master_path.parent)
    student_nb = out / "student" / f"{name}.ipynb"
    solution_nb = out / "autograder" / f"{name}.ipynb"
    zips = sorted((out / "autograder").glob(f"{name}-autograder_*.zip"))
    if done.returncode != 0 or not student_nb.exists() or not solution_nb.exists() or len(zips) != 1:
        raise AssignmentError(f"otter assign failed for {name}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
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

    # the file students open
    student_zip = out / f"{name}-student.zip"
    with zipfile.ZipFile(student_zip, "w", zipfile.ZIP_DEFLATED) as z:
        for path in sorted((out / "student").rglob("*")):
            if path.is_file():
                z.write(path, path.relative_to(out / "student"))
    return {"total": total, "blank": blank_total, "questions": len(questions),
            "solution_lines": len(master_parts(master)["solution_lines"]), "zip": student_zip}


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
    args = parser.parse_args(argv)
    names = args.names or sorted(p.name for p in MASTERS.iterdir() if (p / f"{p.name}.ipynb").exists())
    if not names:
        print(f"no master notebooks in {MASTERS}")
        return 2
    try:
        self_test()
    except AssignmentError as err:
        print(f"FAILED {err}")
        return 1
    print("self-test: a solution cell outside its raw solution block is caught in the student version")
    for name in names:
        start = time.perf_counter()
        try:
            r = build(name)
        except AssignmentError as err:
            print(f"FAILED {err}")
            return 1
        print(f"{name}: otter assign ok; reference solutions {r['total']:g}/{r['total']:g} on {r['questions']} "
              f"autograded questions; unsolved student version {r['blank']:g}/{r['total']:g}; none of "
              f"{r['solution_lines']} solution lines, no marker and no hidden test in the student version; "
              f"{r['zip'].relative_to(ROOT)} ({time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
