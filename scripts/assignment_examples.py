"""The autograder zip, grading with it, and the example submissions of a class.

Part of ``scripts/assignments.py`` (which see): the plugin and the assignment's given code put in
otter's zip, one submission graded as ``scripts/grade_class.py`` grades it, and the example
submissions (correct, wrong, raising, looping, tampering, ...) written, graded and checked.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import copying
import yaml
from assignment_attacks import (
    ANSWER_ATTACKS,
    DEFINITION_ATTACKS,
    PACKAGE_FOLDER,
    answer_attack,
    attack_flags,
    otter_log,
    pasted_library,
    renamed_copy,
)
from assignment_variants import (
    GRADING,
    ROOT,
    SUPPORT,
    AssignmentError,
    _load,
    _raw_marker,
    _source,
    canonical_master,
    grading_module,
    master_parts,
    questions_of,
    variant_module,
)

# --- the autograder zip: the plugin and the assignment's given code -----------------------------


def _grader_call(node: ast.stmt) -> bool:
    """``grader.check("q1")``, ``grader.check_all()``, the hand-in: what the grader never runs."""
    if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
        return False
    func = ast.unparse(node.value.func)
    return func.startswith("grader.") or func == "assignment_support.hand_in"


def given_code(student_nb: dict, name: str, master: dict, wheel: Path) -> dict:
    """What the plugin needs: the student version's own code (run before the student's definitions at
    grading), the statements it consists of (not flagged, not 'rebinding'), the names it binds
    (protected) and the questions. Nothing of a solution: students get this file too."""
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
            "files": [SUPPORT.name, GRADING.name, grading.GIVEN_FILE, wheel.name, "requirements.txt"]}


def patch_autograder(zip_path: Path, given: dict, references: dict) -> None:
    """Put the plugin at the zip's root (on sys.path on Gradescope) and list it, with its configuration; and the
    copying references (scripts/copying.py) beside it, for scripts/grade_class.py: the autograder zip only."""
    grading = grading_module()
    with zipfile.ZipFile(zip_path) as z:
        entries = {info.filename: z.read(info.filename) for info in z.infolist()}
    config = json.loads(entries["otter_config.json"])
    config["plugins"] = [{grading.PLUGIN: {"given": given}}]
    entries["otter_config.json"] = json.dumps(config, indent=2).encode()
    entries[GRADING.name] = GRADING.read_bytes()
    entries[f"files/{grading.GIVEN_FILE}"] = json.dumps(given, indent=1).encode()
    entries[copying.REFERENCES_FILE] = json.dumps(references).encode()
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
            "renamed": "smith_1234_late.ipynb", "honest": "honest.ipynb", "hidden_copy": "hidden_copy.ipynb",
            "attacks": "attacks.ipynb", "package": "package_beside.zip"}


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
        raise AssignmentError(f"{name}: {len(tagged)} solution cells in the graded notebook, {len(public)} in the "
                              "master")
    honest = variant_module(name).honest(values)
    about = variant_module(name).ABOUT
    of_function = {f: q for q, fs in function_questions(master).items() for f in fs}
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    paths = {}
    for kind, filename in examples(separate_tampering).items():
        if kind in NEW_KINDS:
            paths[kind] = write_new_kind(kind, folder / filename, nb, blank, names, honest, about, of_function)
            continue
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


#: Words the flags of the copy with renamed locals and pasted library source must contain.
COPY_WORDS = ("matches the variant's reference solution", "matches attnlib.")
#: Kinds written by ``write_new_kind``: honest answers, copies that hide their source, attacks, a package.
NEW_KINDS = ("honest", "hidden_copy", "attacks", "package")


def _write_nb(path: Path, nb: dict) -> Path:
    path.write_text(json.dumps(nb, indent=1))
    return path


def write_new_kind(kind: str, path: Path, reference: dict, blank: dict, names: list[str], honest: dict,
                   about: dict, of_function: dict) -> Path:
    """One example of ``NEW_KINDS``, written to ``path`` (see scripts/assignment_attacks.py)."""
    nb = json.loads(json.dumps(blank if kind in ("attacks", "package") else reference))
    code = [c for c in nb["cells"] if c["cell_type"] == "code"]
    if kind == "honest":
        for cell in code:
            try:
                cell["source"] = example_cell(_source(cell), "library", names, honest)
            except SyntaxError:  # IPython magics: not an answer cell
                pass
    elif kind == "hidden_copy":  # the reference, locals renamed, with the library's source pasted above it
        for cell in code:
            try:
                defined = [n.name for n in ast.parse(_source(cell)).body if isinstance(n, ast.FunctionDef)]
            except SyntaxError:
                continue
            answers = [f for f in defined if f in names]
            if answers:
                pasted = tuple(d for f in answers for d in about.get(of_function.get(f), ()))
                cell["source"] = pasted_library(renamed_copy(_source(cell)), pasted)
    elif kind in ("attacks", "package"):
        cells = nb["cells"]
        if kind == "attacks":  # each answer attack replaces one answer; the definitions go in a cell of their own
            for attack, function in zip(ANSWER_ATTACKS, names, strict=False):
                cells.insert(len(cells) - 1, _code_cell(answer_attack(attack, function)))
            for code_text, _ in DEFINITION_ATTACKS.values():
                cells.insert(len(cells) - 1, _code_cell(code_text))
        else:
            with zipfile.ZipFile(path, "w") as z:
                z.writestr(f"{names[0]}_submission.ipynb", json.dumps(nb, indent=1))
                for member, text in PACKAGE_FOLDER.items():
                    z.writestr(member, text)
                z.writestr(".OTTER_LOG", otter_log())
            return path
    return _write_nb(path, nb)


def new_kind_problems(by: dict, total: float, blank: dict, copy_words: tuple[str, ...]) -> list[str]:
    """What the ``NEW_KINDS`` must score and how they must be flagged (the list of what does not hold)."""
    problems = []
    honest = by["honest"]
    if honest["status"] != "graded" or honest["total"] != total or honest["flags"]:
        problems.append(f"the honest submission: {honest['status']}, {honest['total']} of {total} (full marks, no "
                        f"flag required); flags {honest['flags']!r}")
    hidden = by["hidden_copy"]
    missing = [w for w in copy_words if w not in (hidden["flags"] or "")]
    if missing:
        problems.append(f"the copy with renamed locals and pasted library source is not flagged {missing} "
                        f"(flags: {hidden['flags']!r})")
    for kind in ("attacks", "package"):
        got = {q: by[kind].get(q) for q in blank}
        if by[kind]["status"] != "graded" or got != blank:
            problems.append(f"{kind}: {by[kind]['status']}, {got}; a blank notebook scores {blank}")
    wanted = [f for k in (*ANSWER_ATTACKS, *DEFINITION_ATTACKS) for f in attack_flags(k)]
    missing = [f for f in dict.fromkeys(wanted) if f not in (by["attacks"]["flags"] or "")]
    if missing:
        problems.append(f"the attacks are not flagged {missing} (flags: {by['attacks']['flags']!r})")
    if "besides the notebook" not in (by["package"]["flags"] or ""):
        problems.append(f"the package handed in beside the notebook is not flagged ({by['package']['flags']!r})")
    return problems


def autograded_cells(master: dict, region: str):
    """(question, cell) for each cell of a master inside a ``region`` block ("SOLUTION", "TESTS") of an
    autograded question."""
    block, question = [], None
    for cell in master["cells"]:
        marker = _raw_marker(cell)
        if marker:
            kind, what = marker.split()
            block = block + [what] if kind == "BEGIN" else block[:-1]
            if marker == "BEGIN QUESTION":
                config = yaml.safe_load(_source(cell).split("\n", 1)[1])
                question = None if config.get("manual") else config["name"]
        elif question and block[-1:] == [region]:
            yield question, cell


def question_allows(master: dict) -> dict[str, set[str]]:
    """Autograded question -> the attnlib names its tests allow (``allow=(...)`` of its test cells)."""
    out = {}
    for question, cell in autograded_cells(master, "TESTS"):
        for found in re.findall(r"allow=\(([^)]*)\)", _source(cell)):
            out.setdefault(question, set()).update(re.findall(r"[\"'](\w+)[\"']", found))
    return out


def _public_library_names() -> set[str]:
    """Every name in the ``__all__`` of attnlib's public modules (the checks aside)."""
    import importlib
    import pkgutil

    import attnlib

    names = set(attnlib.__all__)
    for info in pkgutil.walk_packages(attnlib.__path__, "attnlib."):
        if not any(part.startswith("_") for part in info.name.split(".")) and ".checks" not in info.name:
            names.update(getattr(importlib.import_module(info.name), "__all__", ()))
    return names


def library_calls(source: str) -> set[str]:
    """The public attnlib names a piece of code calls, however it reached them (``attnlib.x.f(...)``, a name
    imported by the code itself or by the notebook's given code, ``lb.f(...)``)."""
    called = {ast.unparse(n.func).split(".")[-1] for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Call)}
    return called & _public_library_names()


def library_must_be_zero(master: dict, library: dict) -> list[str]:
    """Questions the library example must score zero on: every one whose answers all call attnlib, with a
    called name that its tests do not allow."""
    allows = question_allows(master)
    out = []
    for q, functions in function_questions(master).items():
        if functions and all(f in library for f in functions):
            called = set().union(*(library_calls(library[f]) for f in functions))
            if called - allows.get(q, set()):
                out.append(q)
    return out


def function_questions(master: dict) -> dict[str, list[str]]:
    """Autograded question -> the functions its solution defines (the ones a looping function zeroes)."""
    out = {}
    for question, cell in autograded_cells(master, "SOLUTION"):
        source = _source(cell)
        if "# BEGIN SOLUTION" in source:
            found = [n.name for n in ast.parse(source).body if isinstance(n, ast.FunctionDef)
                     and "# BEGIN SOLUTION" in ast.get_source_segment(source, n)]
            if found:
                out.setdefault(question, []).extend(found)
    return out


def questions_with_functions(master: dict) -> list[str]:
    """Autograded questions whose solution defines a function."""
    return list(function_questions(master))


def grade_examples(name: str, zip_path: Path, master: dict, paths: dict[str, Path], total: float,
                   blank: dict, values: dict, timeout: float = 240, jobs: int = 1) -> dict:
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
    zero = library_must_be_zero(master, variant_module(name).library(values))
    scored = {q: by["library"].get(q) for q in zero}
    if not zero or any(v != 0 for v in scored.values()):
        problems.append(f"the library example must score 0 on {zero} (its calls are not allowed there): {scored}")
    problems += new_kind_problems(by, total, blank, COPY_WORDS)
    # Gradescope unpacks a zip upload beside the notebook: graded so, the package must be deleted unused
    direct = gradescope_row(zip_path, paths["package"], timeout)
    if {q: direct.get(q) for q in blank} != blank:
        problems.append(f"the zip with a package beside the notebook, graded as Gradescope unpacks it: "
                        f"{ {q: direct.get(q) for q in blank} }; a blank notebook scores {blank}")
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


def gradescope_row(zip_path: Path, upload: Path, timeout: float) -> dict:
    """Question -> score of an upload graded by ``otter run`` on the upload itself (a zip is unpacked beside
    the notebook, as on Gradescope), not through scripts/grade_class.py, which takes the notebook alone."""
    with tempfile.TemporaryDirectory() as tmp:
        with zipfile.ZipFile(zip_path) as z:  # the plugin at the zip's root is on Gradescope's sys.path
            (Path(tmp) / GRADING.name).write_bytes(z.read(GRADING.name))
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [tmp, os.environ.get("PYTHONPATH")]))}
        done = subprocess.run([sys.executable, "-m", "otter", "run", "-a", str(zip_path.resolve()), "-o", tmp,
                               str(upload.resolve())], cwd=tmp, capture_output=True, text=True, timeout=timeout,
                              env=env)
        results = Path(tmp) / "results.json"
        if not results.exists():
            return {"status": f"error: {done.stdout[-500:]} {done.stderr[-1500:]}"}
        return {q: s for q, (s, _) in scores(json.loads(results.read_text())).items()}


def _zip_tests(zip_path: Path) -> dict[str, str]:
    with zipfile.ZipFile(zip_path) as z:
        return {n: z.read(n).decode() for n in z.namelist() if n.startswith("tests/") and n.endswith(".py")}


def _copy_flag(flag: str) -> bool:
    """A flag of scripts/copying.py: a match with a reference, or code shared with another submission."""
    return " matches " in flag or flag.startswith("shares ")


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
    for kind in ("copied",):
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
        # made from the reference solutions, these match them (and each other): only other flags are stray
        stray = [f for f in (by[kind]["flags"] or "").split("; ") if f and not _copy_flag(f)]
        if stray:
            problems.append(f"the {kind} submission is flagged: {stray}")
    if "public master" not in (by["copied"]["flags"] or ""):
        problems.append(f"the copied submission is not flagged as similar to the public master "
                        f"({by['copied']['flags']!r})")
    slow = {k: r["seconds"] for k, r in by.items() if r["seconds"] is not None and r["seconds"] >= timeout}
    if slow:
        problems.append(f"submissions that reached the {timeout:g} s limit: {slow}")
    return problems
