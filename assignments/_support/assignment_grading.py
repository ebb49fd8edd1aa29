"""What the autograder runs of a submission, and what it reports: an otter-grader plugin.

The autograder zip of every assignment lists ``assignment_grading.GradeDefinitions`` among its
plugins, so otter runs it wherever it grades: Gradescope (the module sits at the root of the
zip, which is on ``sys.path`` there), ``otter run`` and ``scripts/grade_class.py`` (which put
it on ``PYTHONPATH``). Before otter executes a submission the plugin rebuilds the notebook:

1. the assignment's own set-up and given code, exactly as the student version has it (set-up
   cell, imports, the data a question gives), from the plugin's configuration;
2. from every code cell of the submission, only what *defines* something: imports, ``def``,
   ``class`` and constants written as literals (``N = 23``). Everything else (loops, calls,
   prints, attribute assignments, ``grader.check``) is dropped, and so is a definition that
   would run code while being defined (a decorator, a default argument or a base class that is
   not a plain name) or that rebinds a name the assignment gives (``attention``, ``np``);
3. a last cell that runs each question's tests in turn, restores any test file changed on
   disk from the copy read before the student's code ran, and records each question's score
   as it is reached (``$ATTNLIB_GRADING_PROGRESS``), so a grading stopped by an outer time limit
   still reports the questions graded so far.

After grading it cuts the output of failed *public* tests (what a student sees) to the error
line, with no line of any hidden test in it.

``flags`` scans a submission for code that reaches for the grader (otter, the support file,
test files, frames, code objects, ``exec``, signals, attribute assignment on a module, ...);
``scripts/grade_class.py`` writes them into the CSV. The grader is not a sandbox: a flagged
notebook must be read. This module needs only the standard library (and otter for the plugin
class itself).
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import json
import os
import re
from glob import glob

try:
    from otter.plugins import AbstractOtterPlugin
except ImportError:  # the AST tools below work without otter (tests, students' hand-in)
    AbstractOtterPlugin = object

#: The plugin's importable name, as otter_config.json lists it.
PLUGIN = "assignment_grading.GradeDefinitions"
#: The file the build writes next to the support file (for the hand-in notes on a student's side).
GIVEN_FILE = "assignment_given.json"
PROGRESS_ENV = "ATTNLIB_GRADING_PROGRESS"
#: Characters of a failed public test's output that a student sees.
PUBLIC_OUTPUT = 600

#: Decorators that only wrap (and run no student code while a function is defined).
SAFE_DECORATORS = {"staticmethod", "classmethod", "property", "cache", "lru_cache", "functools.cache",
                   "functools.lru_cache", "dataclass", "dataclasses.dataclass", "np.vectorize", "numpy.vectorize"}
#: Base classes a student's class may have (a student's own base could run code at class creation).
SAFE_BASES = {"object", "Exception", "ValueError", "TypeError", "RuntimeError", "ArithmeticError", "tuple",
              "list", "dict"}


# --- reading cells ------------------------------------------------------------------------------


def cell_code(source: str) -> str:
    """A code cell as Python: IPython's magics (``%pip``, ``!unzip``) become calls."""
    try:
        from IPython.core.inputtransformer2 import TransformerManager

        return TransformerManager().transform_cell(source)
    except Exception:  # no IPython: drop the magic lines
        return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in source.splitlines())


def _source(cell) -> str:
    return cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])


def statement_key(node: ast.AST) -> str:
    return hashlib.sha256(ast.dump(node).encode()).hexdigest()[:16]


def code_cells(nb: dict):
    """(index, parsed module or None) for every code cell of a notebook."""
    for i, cell in enumerate(nb.get("cells", [])):
        if cell.get("cell_type") != "code":
            continue
        try:
            yield i, ast.parse(cell_code(_source(cell)))
        except SyntaxError:
            yield i, None


def bound_names(node: ast.AST) -> list[str]:
    """The names a top-level statement binds."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [(a.asname or a.name).split(".")[0] for a in node.names]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
    out = []
    for t in targets:
        for sub in ast.walk(t) if t is not None else ():
            if isinstance(sub, ast.Name):
                out.append(sub.id)
    return out


# --- what the grader keeps ----------------------------------------------------------------------


def _literal(node) -> bool:
    try:
        ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def _dotted(node) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return f"{head}.{node.attr}" if head else None
    return None


def _plain_name_or_literal(node) -> bool:
    return _literal(node) or _dotted(node) is not None


def _strip_annotations(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
    args = fn.args
    for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
        if a is not None:
            a.annotation = None
    fn.returns = None


def _why_function_runs_code(fn, own: set) -> str | None:
    for deco in fn.decorator_list:
        target = deco.func if isinstance(deco, ast.Call) else deco
        name = _dotted(target)
        if (name not in SAFE_DECORATORS or name.split(".")[0] in own
                or (isinstance(deco, ast.Call)
                    and not all(_literal(a) for a in deco.args + [k.value for k in deco.keywords]))):
            return f"the decorator @{ast.unparse(deco)} runs code when {fn.name} is defined"
    for default in fn.args.defaults + [d for d in fn.args.kw_defaults if d is not None]:
        if not _plain_name_or_literal(default):
            return f"the default {ast.unparse(default)} of {fn.name} runs code when it is defined"
    return None


def _keep_class_body(body: list, own: set) -> tuple[list, list]:
    kept, notes = [], []
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            why = _why_function_runs_code(node, own)
            if why:
                notes.append(why)
                continue
            _strip_annotations(node)
            kept.append(node)
        elif (isinstance(node, ast.Assign) and _literal(node.value)
              and all(isinstance(t, ast.Name) for t in node.targets)):
            kept.append(node)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and (
                node.value is None or _literal(node.value)) and _dotted(node.annotation):
            kept.append(node)
        elif isinstance(node, (ast.Pass, ast.Expr)) and (isinstance(node, ast.Pass) or (
                isinstance(node.value, ast.Constant) and isinstance(node.value.value, str))):
            kept.append(node)
        else:
            notes.append(f"class body: {ast.unparse(node).splitlines()[0][:80]}")
    return kept, notes


def keep_statement(node: ast.stmt, given: dict, own: set) -> tuple[ast.stmt | None, str | None]:
    """The statement as the grader runs it (None: dropped) and, if dropped, why."""
    protected = set(given.get("protected", ()))
    same_as_given = statement_key(node) in set(given.get("statements", ()))
    rebinds = [n for n in bound_names(node) if n in protected] if not same_as_given else []
    line = ast.unparse(node).splitlines()[0][:80] if not isinstance(node, ast.FunctionDef) else f"def {node.name}"
    if same_as_given and not isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef,
                                               ast.ClassDef)):
        return None, None  # the assignment's own statement: the grader runs it from its own copy
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        if rebinds:
            return None, f"rebinds the given name {rebinds[0]}: {line}"
        return node, None
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        if rebinds:
            return None, f"rebinds the given name {node.name}: def {node.name}"
        why = _why_function_runs_code(node, own)
        if why:
            return None, why
        _strip_annotations(node)
        return node, None
    if isinstance(node, ast.ClassDef):
        if rebinds:
            return None, f"rebinds the given name {node.name}: class {node.name}"
        bad = [b for b in node.bases if _dotted(b) not in SAFE_BASES] or node.keywords
        if bad or any(_dotted(d) not in SAFE_DECORATORS for d in node.decorator_list):
            return None, f"class {node.name}: a base class, metaclass or decorator that runs code"
        node.body, notes = _keep_class_body(node.body, own)
        node.body = node.body or [ast.Pass()]
        return node, ("; ".join(notes) or None)
    if isinstance(node, ast.Assign) and _literal(node.value) and all(
            isinstance(t, ast.Name)
            or (isinstance(t, (ast.Tuple, ast.List)) and all(isinstance(e, ast.Name) for e in t.elts))
            for t in node.targets):
        if rebinds:
            return None, f"rebinds the given name {rebinds[0]}: {line}"
        return node, None
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None \
            and _literal(node.value):
        if rebinds:
            return None, f"rebinds the given name {rebinds[0]}: {line}"
        return ast.Assign(targets=[node.target], value=node.value, lineno=node.lineno), None
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
        return None, None  # a docstring or a bare constant: nothing to run
    return None, f"not a definition: {line}"


def definitions(code: str, given: dict) -> tuple[str, list[str]]:
    """The part of a cell's code the grader runs, and what it dropped (one note per statement)."""
    try:
        tree = ast.parse(cell_code(code))
    except SyntaxError as err:
        return "", [f"the cell does not parse ({err.msg}, line {err.lineno}): none of it is graded"]
    own = {n for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
           for n in bound_names(node)}
    kept, notes = [], []
    for node in tree.body:
        out, note = keep_statement(node, given, own)
        if out is not None:
            kept.append(out)
        if note:
            notes.append(note)
    module = ast.Module(body=kept, type_ignores=[])
    return (ast.unparse(ast.fix_missing_locations(module)) if kept else ""), notes


def dropped_notes(nb: dict, given: dict | None = None) -> list[str]:
    """For a student: the statements of their notebook that the grader will not run."""
    if given is None:
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), GIVEN_FILE)
        given = json.load(open(path)) if os.path.exists(path) else {}
    notes = []
    for number, cell in enumerate(c for c in nb.get("cells", []) if c.get("cell_type") == "code"):
        code = _source(cell)
        try:
            tree = ast.parse(cell_code(code))
        except SyntaxError:
            notes.append(f"code cell {number + 1} does not parse: the grader runs none of it")
            continue
        given_keys = set(given.get("statements", ()))
        if all(statement_key(n) in given_keys for n in tree.body):
            continue  # a cell of the assignment's own, unchanged
        for note in definitions(code, given)[1]:
            if note.startswith("not a definition") and "grader.check" in note:
                continue
            notes.append(f"code cell {number + 1}: {note}")
    if notes:
        notes.insert(0, "At grading, only imports, def, class and literal constants are kept; these are not run:")
    return notes


def graded_notebook(nb: dict, given: dict, tests: dict[str, str], progress: str | None) -> tuple[dict, list[str]]:
    """The notebook the autograder executes (see the module docstring), and what was dropped."""
    cells, dropped = [], []

    def code(source):
        return {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": source}

    for source in given.get("preamble", []):
        cells.append(code(source))
    for i, _module in code_cells(nb):
        kept, notes = definitions(_source(nb["cells"][i]), given)
        dropped += [f"cell {i + 1}: {n}" for n in notes]
        if kept.strip():
            cells.append(code(kept))
    cells.append(code(progress_cell(tests, progress)))
    metadata = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                "language_info": {"name": "python"}}
    return {"cells": cells, "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}, dropped


def progress_cell(tests: dict[str, str], progress: str | None) -> str:
    """The last cell: every test file, in order, from the copy read before any student code ran."""
    return "\n".join([
        "# assignment_grading: each question's tests in turn, recording the scores reached",
        "import json as _ag_json, os as _ag_os",
        "from otter.execute import Checker as _ag_Checker",
        f"_ag_tests = {tests!r}",
        f"_ag_progress = {progress!r}",
        "for _ag_path, _ag_text in _ag_tests.items():",
        "    try:",
        "        with open(_ag_path) as _ag_f:",
        "            _ag_changed = _ag_f.read() != _ag_text",
        "    except OSError:",
        "        _ag_changed = True",
        "    if _ag_changed:",
        "        with open(_ag_path, 'w') as _ag_f:",
        "            _ag_f.write(_ag_text)",
        "    _ag_Checker.check_if_not_already_checked(_ag_path)",
        "    if _ag_progress:",
        "        with open(_ag_progress + '.tmp', 'w') as _ag_f:",
        "            _ag_json.dump({_t.name: [_t.score, _t.possible] for _t in _ag_Checker.get_results()}, _ag_f)",
        "        _ag_os.replace(_ag_progress + '.tmp', _ag_progress)",
    ])


# --- flags --------------------------------------------------------------------------------------

FLAG_MODULES = {"otter", "assignment_support", "assignment_grading", "pickle", "dill", "inspect", "signal",
                "importlib", "builtins", "ctypes", "subprocess", "multiprocessing", "gc"}
FLAG_NAMES = {"otter", "assignment_support", "assignment_grading", "get_ipython", "exec", "eval", "compile",
              "__import__", "globals", "__builtins__"}
FLAG_ATTRS = {"_getframe": "sys._getframe", "__globals__": "__globals__", "__code__": "__code__",
              "__closure__": "__closure__", "__builtins__": "__builtins__", "f_globals": "frames (f_globals)",
              "f_locals": "frames (f_locals)", "f_back": "frames (f_back)"}
FLAG_METHODS = {"__eq__", "__ne__", "__array__", "__array_ufunc__", "__array_function__"}
FILE_METHODS = {"open", "read_text", "write_text", "read_bytes", "write_bytes"}


def _module_names(trees: list, given: dict) -> set:
    names = set(given.get("modules", ()))
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.update((a.asname or a.name).split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                names.update(a.asname or a.name for a in node.names)
    return names - {n for n in dir(builtins)}


def _node_flags(node, modules: set) -> list[str]:
    out = []
    if isinstance(node, ast.Import):
        out += [a.name.split(".")[0] for a in node.names if a.name.split(".")[0] in FLAG_MODULES]
    elif isinstance(node, ast.ImportFrom):
        root = (node.module or "").split(".")[0]
        if root in FLAG_MODULES:
            out.append(root)
        if root == "os" and any(a.name in ("_exit", "fork") for a in node.names):
            out.append("os._exit" if any(a.name == "_exit" for a in node.names) else "os.fork")
        if root == "sys" and any(a.name in ("_getframe", "modules") for a in node.names):
            out.append("sys._getframe")
    elif isinstance(node, ast.Name) and node.id in FLAG_NAMES:
        out.append(node.id if node.id != "__builtins__" else "builtins")
    elif isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        if node.attr in FLAG_ATTRS:
            out.append(FLAG_ATTRS[node.attr])
        elif node.attr in ("_exit", "fork") and base == "os":
            out.append(f"os.{node.attr}")
        elif node.attr == "modules" and base == "sys":
            out.append("sys.modules")
    elif isinstance(node, ast.Call):
        name = _dotted(node.func) or ""
        if name.split(".")[-1] in FILE_METHODS:
            out.append("open(")
        if name in ("setattr", "delattr") and node.args and (_dotted(node.args[0]) or "").split(".")[0] in modules:
            out.append(f"attribute assignment on a module ({ast.unparse(node.args[0])})")
    elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
          and re.search(r"(^|[/\\])tests[/\\]", node.value)):
        out.append("tests/")
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in FLAG_METHODS:
        out.append(node.name)
    if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
        targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
        for t in targets:
            for sub in ast.walk(t):
                if isinstance(sub, ast.Attribute) and (_dotted(sub.value) or "").split(".")[0] in modules:
                    out.append(f"attribute assignment on a module ({ast.unparse(sub)})")
                    break
    return out


#: Notes of ``keep_statement`` that are flags too: a definition built to run code, or to shadow a given name.
DEFINITION_FLAGS = ("the decorator", "the default", "class ", "rebinds the given name")


def flags(nb: dict, given: dict | None = None) -> list[str]:
    """What in a submission reaches for the grader, cell by cell: ``["cell 7: open(, tests/", ...]``.

    The assignment's own code (the statements of the student version, unchanged) is not scanned.
    Besides the names and calls of ``_node_flags``, a definition the grader drops because it would
    run code or shadow a given name is a flag.
    """
    import copy

    given = given or {}
    keys = set(given.get("statements", ()))
    parsed = list(code_cells(nb))
    trees = [t for _, t in parsed if t is not None]
    modules = _module_names(trees, given)
    out = []
    for i, tree in parsed:
        if tree is None:
            continue
        found = []
        for statement in tree.body:
            if statement_key(statement) in keys:
                continue
            for node in ast.walk(statement):
                for flag in _node_flags(node, modules):
                    if flag not in found:
                        found.append(flag)
            own = {n for s in tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                   for n in bound_names(s)}
            _, note = keep_statement(copy.deepcopy(statement), given, own)
            for part in (note or "").split("; "):
                if part.startswith(DEFINITION_FLAGS) and part not in found:
                    found.append(part)
        if found:
            out.append(f"cell {i + 1}: " + ", ".join(found))
    return out


def extra_files(folder: str, keep: set) -> list[str]:
    """Files in a submission folder besides the notebook, the tests and the grader's own files."""
    out = []
    for name in sorted(os.listdir(folder)):
        if name in keep or name.endswith(".ipynb") or name in ("tests", "__init__.py", "__pycache__"):
            continue
        out.append(name)
    return out


# --- public test output -------------------------------------------------------------------------


def hidden_lines(tests: dict[str, str]) -> set:
    """Stripped lines (8 characters or more) of every hidden test case, from the test files' text."""
    lines = set()
    for text in tests.values():
        scope = {}
        try:
            exec(compile(text, "<test>", "exec"), scope)  # an OK-format test file: a dict literal
        except Exception:
            continue
        for suite in scope.get("test", {}).get("suites", []):
            for case in suite.get("cases", []):
                if case.get("hidden", True):
                    for line in case.get("code", "").splitlines():
                        line = line.strip().removeprefix(">>>").removeprefix("...").strip()
                        if len(line) >= 8:
                            lines.add(line)
    return lines


def public_message(message: str, hidden: set, limit: int = PUBLIC_OUTPUT) -> str:
    """What a student sees of a failed public test: the failing line and the error, no hidden text."""
    lines = (message or "").splitlines()
    failed = next((i for i, line in enumerate(lines) if line.startswith("Failed example:")), None)
    example = lines[failed + 1].strip() if failed is not None and failed + 1 < len(lines) else ""
    if any(line.strip() == "Got:" for line in lines):
        error = "the test printed output (not shown)"
    else:
        errors = [line.strip() for line in lines
                  if re.match(r"\s*[A-Za-z_.]*(Error|Exception|Exceeded|Forbidden)\b.*:", line)]
        error = errors[-1] if errors else (lines[-1].strip() if lines else "")
    out = [lines[0] if lines else "❌ Test case failed"]
    if example:
        out.append(f"    {example}")
    if error:
        out.append(f"    {error}")
    text = "\n".join(out)
    for line in hidden:
        if line in text:
            text = text.replace(line, "[hidden test text removed]")
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --- the plugin ---------------------------------------------------------------------------------


class GradeDefinitions(AbstractOtterPlugin):
    """Grade only what a student defines; keep hidden tests out of public output; report flags."""

    def __init__(self, submission_path, submission_metadata, plugin_config):
        self.submission_path = submission_path
        self.submission_metadata = submission_metadata
        self.plugin_config = plugin_config or {}
        self.tests = {}
        self.report = []

    def before_execution(self, submission):
        import nbformat

        given = self.plugin_config.get("given", {})
        folder = os.path.dirname(self.submission_path) or "."
        self.tests = {f"./tests/{os.path.basename(p)}": open(p).read()
                      for p in sorted(glob(os.path.join(folder, "tests", "*.py")))}
        own = set(given.get("files", ())) | {os.path.basename(self.submission_path)}
        for name in extra_files(folder, own):  # a module shipped with the notebook could shadow numpy
            path = os.path.join(folder, name)
            if os.path.isfile(path) and name.endswith((".py", ".pth", ".so")):
                os.remove(path)
                self.report.append(f"removed {name} (only the notebook is graded)")
        nb = submission if isinstance(submission, dict) else json.loads(nbformat.writes(submission))
        self.report += flags(nb, given)
        graded, dropped = graded_notebook(nb, given, self.tests, os.environ.get(PROGRESS_ENV) or None)
        return nbformat.from_dict(graded)

    def after_grading(self, results):
        hidden = hidden_lines(self.tests)
        for test_file in getattr(results, "results", {}).values():
            for result in test_file.test_case_results:
                if not result.test_case.hidden and not result.passed:
                    result.message = public_message(result.message, hidden)
        if hasattr(results, "set_plugin_data"):
            results.set_plugin_data(PLUGIN, {"flags": self.report})

    def generate_report(self):
        return "flags: " + ("; ".join(self.report) if self.report else "none")
