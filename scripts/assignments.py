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
import importlib.metadata
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

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:  # the modules beside this script (scripts/ is no package), when it is loaded from a file
    sys.path.insert(0, HERE)

import copying  # noqa: E402
from assignment_examples import (  # noqa: E402
    TAMPERING,
    _copy_flag,
    _otter,
    example_cell,
    given_code,
    grade,
    grade_examples,
    patch_autograder,
    scores,
    solution_cells,
    solution_functions,
    write_examples,
)
from assignment_variants import (  # noqa: E402
    DEMO_SEED,
    MASTERS,
    OUTPUT,
    PLACEHOLDER,
    ROOT,
    SEED_ENV,
    STATED,
    AssignmentError,
    _raw_marker,
    _source,
    build_wheel,
    duration,
    fixed_values,
    grading_module,
    leaks,
    library_lines,
    master_parts,
    new_seed,
    prepare_master,
    python_version,
    question_points,
    questions_of,
    read_seed,
    render,
    require_clean_tree,
    support_module,
    variant_id,
    variant_module,
    variant_values,
    wheel_version,
)

#: Besides ``main``, what the tests read as ``assignments.<name>`` (defined in the two modules above).
__all__ = ["_raw_marker", "duration", "example_cell", "fixed_values", "leaks", "library_lines", "main",
           "PLACEHOLDER", "question_points", "questions_of", "render", "scores", "solution_cells",
           "solution_functions", "STATED", "support_module", "TAMPERING", "variant_module", "variant_values"]


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
    public = json.loads((MASTERS / name / f"{name}.ipynb").read_text())
    references = copying.references_from_masters(public, master, variant_module(name).ABOUT)
    # what every student receives includes the student version's stubs: no match, between students either
    references["given"] += "\n" + copying.notebook_code(json.loads(student_nb.read_text()))
    patch_autograder(zips[0], given, references)
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
        scored = grade_examples(name, zips[0], master, paths, total, {q: s for q, (s, _) in blank.items()}, values,
                                jobs=jobs)

    # the file students open, with the wheel its set-up cell installs, and the instructors' handout
    student_zip = out / f"{name}-student.zip"
    with zipfile.ZipFile(student_zip, "w", zipfile.ZIP_DEFLATED) as z:
        for path in sorted((out / "student").rglob("*")):
            if path.is_file():
                z.write(path, path.relative_to(out / "student"))
        z.write(wheel, wheel.name)
    found = leaks(master, student_zip)  # every file of it, the wheel's too
    if found:
        raise AssignmentError(f"{name}: the student zip leaks:\n  " + "\n  ".join(found[:30]))
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
    copied = [f for f in flags if _copy_flag(f)]
    flagged = (" flagged" if len(copied) < len(flags) else "") + (" copy" if copied else "")
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
