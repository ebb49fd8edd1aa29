"""What the autograder runs of a submission, and what it reports: an otter-grader plugin.

The autograder zip of every assignment lists ``assignment_grading.GradeDefinitions`` among its
plugins, so otter runs it wherever it grades: Gradescope (the module sits at the root of the
zip, which is on ``sys.path`` there), ``otter run`` and ``scripts/grade_class.py`` (which put
it on ``PYTHONPATH``). Before otter executes a submission the plugin

0. deletes everything uploaded beside the notebook, folders included (a ``numpy/`` package there
   would be imported instead of numpy), keeping only the autograder's own files (``clear_upload``);
1. rebuilds the notebook from the assignment's own set-up and given code, exactly as the student
   version has it (set-up cell, imports, the data a question gives), from the plugin's configuration;
2. and, from every code cell of the submission, only what *defines* something (``Review``, one
   decision for the graded code, the hand-in notes and the flags): imports, ``def``, ``class``, a
   ``lambda`` and a top-level ``name = value`` whose value is safe to evaluate in the grader
   (literals, the given data, earlier kept values, operators, and calls of functions of numpy,
   math, scipy and a few pure standard modules that touch no file, state or argument: never a
   function of the student's, never a method). A decorator or base class is kept only when it
   resolves to the real thing (``functools.cache`` imported under its own name, a builtin the
   notebook does not rebind); a definition that binds the name of a builtin, of a trusted
   decorator or base, or of a decorator or base the notebook uses, a class with
   ``__init_subclass__``, ``__set_name__``, ``__class_getitem__`` or a keyword (``metaclass=``),
   a default argument that runs code, and any rebinding of a name the assignment gives
   (``attention``, ``np``) are dropped and flagged. Everything else (loops, calls, prints,
   ``grader.check``) is dropped with a one-line reason the hand-in cell shows the student;
3. ends with a cell that runs each question's tests in turn, restores any test file changed on
   disk from the copy read before the student's code ran, and records each question's score
   as it is reached (``$ATTNLIB_GRADING_PROGRESS``), so a grading stopped by an outer time limit
   still reports the questions graded so far.

After grading it cuts the output of failed *public* tests (what a student sees) to the failing
line and the exception's own message (a book check's advice, the entry that differs), with no
line of any hidden test in it, at most ``PUBLIC_OUTPUT`` characters.

``flags`` scans a submission for code that reaches for the grader (otter, the support file,
test files, frames, code objects, ``exec``, signals, attribute assignment on a module, ...) and
adds the flagged drops above; the plugin's report adds what it deleted from the upload;
``scripts/grade_class.py`` writes them into the CSV. The grader is not a sandbox: a flagged
notebook must be read. This module needs only the standard library (and otter for the plugin
class itself; a kept value's module is imported to look its function up).
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import io
import json
import os
import pickle
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
#: Characters of a failed public test's output that a student sees (a book check's advice fits).
PUBLIC_OUTPUT = 1500

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

#: What a decorator or base class may be, by what its name resolves to (not by the name itself).
SAFE_DECORATORS = {"builtins.staticmethod", "builtins.classmethod", "builtins.property", "functools.cache",
                   "functools.lru_cache", "dataclasses.dataclass", "numpy.vectorize"}
SAFE_BASES = {f"builtins.{name}" for name in ("object", "Exception", "ValueError", "TypeError", "RuntimeError",
                                              "ArithmeticError", "tuple", "list", "dict")}
#: Class attributes through which Python runs a class's own code while other classes are being defined.
CLASS_HOOKS = {"__init_subclass__", "__set_name__", "__class_getitem__"}
#: Modules whose attributes a kept top-level value may use and call (pure computation).
VALUE_MODULES = {"numpy", "math", "cmath", "scipy", "fractions", "itertools", "functools", "operator", "collections",
                 "string"}
#: Parts of those modules (and everything below them) that touch files, the network, processes or global
#: state, reach attributes by name, or change their arguments in place: never in a kept value.
UNSAFE_PATHS = {
    "numpy.load", "numpy.save", "numpy.savez", "numpy.savez_compressed", "numpy.savetxt", "numpy.loadtxt",
    "numpy.genfromtxt", "numpy.fromfile", "numpy.fromregex", "numpy.memmap", "numpy.DataSource", "numpy.seterr",
    "numpy.seterrcall", "numpy.set_printoptions", "numpy.printoptions", "numpy.setbufsize",
    "numpy.set_string_function", "numpy.errstate", "numpy.copyto", "numpy.put", "numpy.place", "numpy.putmask",
    "numpy.put_along_axis", "numpy.fill_diagonal", "numpy.lib", "numpy.ctypeslib", "numpy.f2py", "numpy.distutils",
    "numpy.testing", "numpy.random", "numpy.show_config", "numpy.info", "numpy.lookfor", "numpy.source",
    "scipy.io", "scipy.datasets", "scipy.misc", "scipy.LowLevelCallable", "scipy.show_config",
    "operator.attrgetter", "operator.methodcaller", "operator.call", "operator.setitem", "operator.delitem",
    "functools.update_wrapper", "functools.wraps",
} | {f"operator.i{op}" for op in ("add", "and", "concat", "floordiv", "lshift", "mod", "mul", "matmul", "or", "pow",
                                  "rshift", "sub", "truediv", "xor")}
#: ... except these (a new generator of one's own leaves the global random state alone).
SAFE_PATHS = {"numpy.random.default_rng", "numpy.random.Generator", "numpy.random.PCG64", "numpy.random.SeedSequence"}
#: Builtins a kept value may call or use (pure, and they call nothing of the student's: no student
#: function can reach a kept value).
VALUE_BUILTINS = {"abs", "all", "any", "bool", "complex", "dict", "divmod", "enumerate", "filter", "float",
                  "frozenset", "int", "len", "list", "map", "max", "min", "pow", "range", "reversed", "round", "set",
                  "slice", "sorted", "str", "sum", "tuple", "zip", "True", "False", "None"}
#: Python's public builtins, the same in a plain interpreter (the grader's plugin) and in a Jupyter
#: kernel (the hand-in cell), which adds IPython's own (a module's ``__import__`` is not the one
#: ``import`` uses, so dunder names do not count).
BUILTIN_NAMES = frozenset(n for n in dir(builtins) if not n.startswith("_")) - {"display", "get_ipython", "dreload",
                                                                                "execfile", "runfile"}
#: Attributes a kept value may read from the given data or a kept value (an array's own numbers).
DATA_ATTRIBUTES = {"shape", "ndim", "size", "dtype", "T", "real", "imag"}


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


def _strip_annotations(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
    args = fn.args
    for a in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
        if a is not None:
            a.annotation = None
    fn.returns = None


def _imported(node) -> dict[str, str]:
    """What an import binds: local name -> the dotted name it stands for (``np`` -> ``numpy``)."""
    out = {}
    for a in node.names:
        if isinstance(node, ast.Import):
            out[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif a.name != "*":  # a relative import names no module the grader knows
            out[a.asname or a.name] = f"{node.module}.{a.name}" if node.level == 0 else f"<relative>.{a.name}"
        else:
            out.update(dict.fromkeys(_star_names(node), "<star>"))
    return out


def _star_names(node: ast.ImportFrom) -> list[str]:
    """The names ``from module import *`` binds (every builtin's, for a module that cannot be looked at)."""
    import importlib

    root = (node.module or "").split(".")[0]
    if node.level == 0 and root in VALUE_MODULES:
        try:
            module = importlib.import_module(node.module)
            return list(getattr(module, "__all__", [n for n in dir(module) if not n.startswith("_")]))
        except Exception:  # noqa: BLE001
            pass
    return sorted(BUILTIN_NAMES)


def _exact_import(node) -> bool:
    """``import functools`` or ``from functools import cache``: a standard or value module, under its own name."""
    if isinstance(node, ast.ImportFrom):
        root = (node.module or "").split(".")[0]
        return node.level == 0 and _trusted_module(root) and all(a.asname in (None, a.name) for a in node.names)
    return all(a.asname in (None, a.name) and _trusted_module(a.name.split(".")[0]) for a in node.names)


def _trusted_module(root: str) -> bool:
    import sys

    return root in VALUE_MODULES or root in getattr(sys, "stdlib_module_names", ())


def _unsafe_path(path: str) -> bool:
    parts = path.split(".")
    return path not in SAFE_PATHS and any(".".join(parts[:i]) in UNSAFE_PATHS for i in range(1, len(parts) + 1))


def _module_attribute(path: str) -> str | None:
    """None if ``path`` (``numpy.linalg.norm``) is a safe attribute of a value module, else why not.

    Every part but the last must be a module of VALUE_MODULES (``numpy.ndarray.fill`` is not: a
    method reached through a class), no part is private, and the path is not in UNSAFE_PATHS.
    """
    import importlib
    import inspect
    import types

    parts = path.split(".")
    if parts[0] not in VALUE_MODULES:
        return f"{parts[0]} is not a module a top-level value may use"
    if any(p.startswith("_") for p in parts):
        return f"{path} is private"
    if _unsafe_path(path):
        return f"{path} touches files, shared state or its arguments"
    real = parts[0]  # the path through the modules' own names (``fractions.sys`` is ``sys``)
    try:
        obj = importlib.import_module(parts[0])
        for i, part in enumerate(parts[1:], 1):
            if not isinstance(obj, types.ModuleType):
                return f"{'.'.join(parts[:i])} is not a module"
            if obj.__name__.split(".")[0] not in VALUE_MODULES:
                return f"{path} reaches the module {obj.__name__}"
            real = f"{obj.__name__}.{part}"
            obj = getattr(obj, part)
    except Exception as err:  # noqa: BLE001 (a name that does not exist, a submodule that does not import)
        return f"{path} cannot be looked up ({type(err).__name__})"
    if _unsafe_path(real):
        return f"{path} touches files, shared state or its arguments"
    if isinstance(obj, types.ModuleType) and (obj.__name__.split(".")[0] not in VALUE_MODULES
                                              or _unsafe_path(obj.__name__)):
        return f"{path} is the module {obj.__name__}"
    if inspect.isbuiltin(obj) and not isinstance(getattr(obj, "__self__", None), (types.ModuleType, type(None))):
        return f"{path} is a method of a shared object"
    return None


def _writes_into(path: str, call: ast.Call) -> bool:
    """Whether a call of the module function ``path`` passes its ``out`` parameter by position
    (``np.add(X, 1, X)`` writes into the given ``X``)."""
    import importlib
    import inspect

    obj = importlib.import_module(path.split(".")[0])
    for part in path.split(".")[1:]:
        obj = getattr(obj, part)
    starred = any(isinstance(a, ast.Starred) for a in call.args)
    try:
        params = inspect.signature(obj).parameters
    except (TypeError, ValueError):  # no signature: a ufunc's inputs come first, then its outputs
        nin = getattr(obj, "nin", None)
        return nin is not None and (len(call.args) > nin or starred)
    if starred:
        return "out" in params
    positional = [p.name for p in params.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return "out" in positional[:len(call.args)]


class Review:
    """A submission as the grader reads it, statement by statement, in order.

    It knows the given code (its imports, its data), and, over the whole submission, the names
    bound by something else than an import (a def, a class, an assignment, a loop) and the names
    used as decorators or base classes, so that a decorator or base is trusted for what it
    resolves to. As statements are kept, it follows which names hold plain values.
    """

    def __init__(self, trees: list, given: dict):
        self.given = given
        self.keys = set(given.get("statements", ()))
        self.protected = set(given.get("protected", ()))
        self.aliases, self.exact = {}, set()  # local name -> dotted name; names an exact import binds
        for source in given.get("preamble", ()):
            try:
                tree = ast.parse(cell_code(source))
            except SyntaxError:
                continue
            for node in tree.body:
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    self.aliases.update(_imported(node))
                    self.exact.update(_imported(node))  # the assignment's own imports are what they say
        # plain data usable in a kept value: what the given code binds besides imports and defs
        self.values = self.protected - set(given.get("modules", ())) - set(self.aliases)
        # over the whole submission: names bound otherwise than by one import of the real thing
        self.rebound, self.special, imports, conflicts = set(), set(), {}, set()
        for tree in trees:
            for node in tree.body:
                if statement_key(node) in self.keys:
                    continue
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    for name, target in _imported(node).items():
                        if imports.setdefault(name, target) != target or target == "<star>":
                            conflicts.add(name)
                        if not _exact_import(node):
                            self.rebound.add(name)
                else:
                    conflicts.update(_all_bound(node))
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    targets = [d.func if isinstance(d, ast.Call) else d for d in node.decorator_list]
                    targets += node.bases if isinstance(node, ast.ClassDef) else []
                    self.special.update(name.split(".")[0] for name in map(_dotted, targets) if name)
        self.rebound |= conflicts
        for name, target in imports.items():
            if name not in conflicts:
                self.aliases[name] = target  # usable in a kept value (if its module is a value module)
                if name not in self.rebound:
                    self.exact.add(name)  # trusted as a decorator or base
        self.shadowing = (set(BUILTIN_NAMES) | {p.rsplit(".", 1)[1] for p in SAFE_DECORATORS | SAFE_BASES}
                          | self.special)

    # --- resolving names ---------------------------------------------------------------------------

    def resolves(self, node) -> str | None:
        """The dotted name a decorator or base stands for, if the submission leaves it alone."""
        name = _dotted(node)
        if name is None:
            return None
        root, _, rest = name.partition(".")
        if root in self.rebound and root not in self.exact:
            return None
        if root in self.aliases and root in self.exact:
            return self.aliases[root] + (f".{rest}" if rest else "")
        if root in BUILTIN_NAMES and root not in self.rebound:
            return f"builtins.{name}"
        return None

    def shadows(self, node) -> str | None:
        """The name a statement binds that would stand in for a builtin, a safe decorator or base, or a
        decorator or base the submission uses (an import of the real thing under its own name excepted)."""
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if any(a.name == "*" for a in node.names):
                root = (node.module or "").split(".")[0] if isinstance(node, ast.ImportFrom) else ""
                return None if node.level == 0 and root in VALUE_MODULES else "*"
            bound = [] if _exact_import(node) else list(_imported(node))
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            bound = _direct_names(node)
        else:
            bound = _all_bound(node)
        return next((n for n in bound if n in self.shadowing), None)

    # --- values -------------------------------------------------------------------------------------

    def value_problem(self, node, local: frozenset = frozenset()) -> str | None:
        """None if evaluating ``node`` at the top level runs none of the student's code and touches
        nothing outside it; else why not (one line)."""
        problem = self.value_problem
        if isinstance(node, ast.Constant):
            return None
        if isinstance(node, ast.Name):
            if node.id in local or node.id in self.values:
                return None
            if node.id in self.aliases:
                return _module_attribute(self.aliases[node.id])
            if node.id in VALUE_BUILTINS and node.id not in self.rebound:
                return None
            return f"it uses {node.id}, which is not a plain value defined before it"
        if isinstance(node, ast.Attribute):
            name = _dotted(node)
            root = name.split(".")[0] if name else None
            if root in self.aliases and root not in local and root not in self.values:
                return _module_attribute(self.aliases[root] + name[len(root):])
            if isinstance(node.value, ast.Name) and node.attr in DATA_ATTRIBUTES:
                return problem(node.value, local)
            return f"it reads .{node.attr} of a value"
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Lambda):
                return "it calls a lambda"
            if not isinstance(node.func, (ast.Name, ast.Attribute)) or (
                    isinstance(node.func, ast.Name) and node.func.id in self.values | local):
                return f"it calls {ast.unparse(node.func)[:40]}, which is not a function of a module"
            if isinstance(node.func, ast.Attribute) and not (
                    _dotted(node.func) and _dotted(node.func).split(".")[0] in self.aliases):
                return f"it calls the method {ast.unparse(node.func)[:40]}"
            if any(k.arg == "out" for k in node.keywords):
                return "it writes into an argument (out=)"
            parts = [node.func] + node.args + [k.value for k in node.keywords]
            why = next(filter(None, (problem(p, local) for p in parts)), None)
            name = _dotted(node.func)
            if why is None and name.split(".")[0] in self.aliases:
                path = self.aliases[name.split(".")[0]] + name[len(name.split(".")[0]):]
                if _writes_into(path, node):
                    return "it writes into an argument (out, by position)"
            return why
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            inner = set(local)
            for gen in node.generators:
                if gen.is_async or any(not isinstance(t, (ast.Name, ast.Tuple, ast.Store)) for t in ast.walk(gen.target)
                                       if not isinstance(t, (ast.Load, ast.Store))):
                    return "a comprehension over something other than names"
                why = problem(gen.iter, frozenset(inner))
                inner.update(n.id for n in ast.walk(gen.target) if isinstance(n, ast.Name))
                why = why or next(filter(None, (problem(c, frozenset(inner)) for c in gen.ifs)), None)
                if why:
                    return why
            parts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            return next(filter(None, (problem(p, frozenset(inner)) for p in parts)), None)
        if isinstance(node, ast.Lambda):
            return "a lambda inside a value"
        if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp, ast.Tuple, ast.List,
                             ast.Set, ast.Dict, ast.Subscript, ast.Slice, ast.Starred, ast.JoinedStr,
                             ast.FormattedValue)):
            parts = [c for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr)]
            return next(filter(None, (problem(p, local) for p in parts)), None)
        return f"it contains {type(node).__name__.lower()}"

    def lambda_problem(self, node: ast.Lambda) -> str | None:
        defaults = node.args.defaults + [d for d in node.args.kw_defaults if d is not None]
        return next(filter(None, (self.value_problem(d) for d in defaults)), None)

    # --- statements ---------------------------------------------------------------------------------

    def decorator_problem(self, deco, owner: str) -> str | None:
        target = deco.func if isinstance(deco, ast.Call) else deco
        if self.resolves(target) not in SAFE_DECORATORS or (isinstance(deco, ast.Call) and not all(
                _literal(a) for a in deco.args + [k.value for k in deco.keywords])):
            return f"the decorator @{ast.unparse(deco)[:60]} of {owner} is not one the grader trusts (it runs code)"
        return None

    def function_problem(self, fn, owner: str | None = None) -> str | None:
        where = f"{owner}.{fn.name}" if owner else fn.name
        for deco in fn.decorator_list:
            why = self.decorator_problem(deco, where)
            if why:
                return why
        for default in fn.args.defaults + [d for d in fn.args.kw_defaults if d is not None]:
            if not (_literal(default) or _dotted(default) is not None) and self.value_problem(default):
                return f"the default {ast.unparse(default)[:60]} of {where} runs code when it is defined"
        return None

    def class_problem(self, node: ast.ClassDef) -> str | None:
        if node.keywords:
            return f"class {node.name}: {ast.unparse(node.keywords[0])[:40]} runs code when the class is made"
        for base in node.bases:
            if self.resolves(base) not in SAFE_BASES:
                return f"class {node.name}: the base {ast.unparse(base)[:40]} is not one the grader trusts"
        for deco in node.decorator_list:
            why = self.decorator_problem(deco, f"class {node.name}")
            if why:
                return why
        hooks = sorted(CLASS_HOOKS & {n for s in node.body for n in _all_bound(s)})
        if hooks:
            return f"class {node.name} defines {hooks[0]}, which runs when other classes are made"
        return None

    def class_body(self, node: ast.ClassDef) -> tuple[list, list]:
        kept, notes = [], []
        for part in node.body:
            if isinstance(part, (ast.FunctionDef, ast.AsyncFunctionDef)):
                why = self.function_problem(part, node.name)
                if why:
                    notes.append((why, True))
                    continue
                _strip_annotations(part)
                kept.append(part)
            elif isinstance(part, ast.Assign) and _literal(part.value) and all(
                    isinstance(t, ast.Name) for t in part.targets):
                kept.append(part)
            elif isinstance(part, ast.AnnAssign) and isinstance(part.target, ast.Name) and (
                    part.value is None or _literal(part.value)) and _dotted(part.annotation):
                kept.append(part)
            elif isinstance(part, ast.Pass) or (isinstance(part, ast.Expr) and isinstance(part.value, ast.Constant)
                                                and isinstance(part.value.value, str)):
                kept.append(part)
            else:
                notes.append((f"class {node.name} body: {ast.unparse(part).splitlines()[0][:80]}", False))
        return kept, notes

    def keep(self, node: ast.stmt) -> tuple[ast.stmt | None, list[tuple[str, bool]]]:
        """The statement as the grader runs it (None: dropped), and why parts were dropped: (note, flag)."""
        same_as_given = statement_key(node) in self.keys
        line = ast.unparse(node).splitlines()[0][:80]
        if same_as_given and not isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef,
                                                   ast.AsyncFunctionDef, ast.ClassDef)):
            return None, []  # the assignment's own statement: the grader runs it from its own copy
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            return None, []  # a docstring or a bare constant: nothing to run
        rebinds = [n for n in _direct_names(node) if n in self.protected] if not same_as_given else []
        if rebinds:
            return None, [(f"rebinds the given name {rebinds[0]}: {line}", True)]
        shadow = None if same_as_given else self.shadows(node)
        if shadow and isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef,
                                        ast.ClassDef, ast.Assign, ast.AnnAssign)):
            what = ("a star import of a module the grader does not trust" if shadow == "*"
                    else f"binds {shadow}, a name this notebook uses as a decorator or base class"
                    if shadow in self.special else f"binds {shadow}, the name of a Python builtin"
                    if shadow in BUILTIN_NAMES else f"binds {shadow}, a decorator or base the grader trusts")
            return None, [(f"{what}: {line}", True)]
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            self.values -= set(_imported(node))
            return node, []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            why = self.function_problem(node)
            if why:
                return None, [(why, True)]
            _strip_annotations(node)
            self.values.discard(node.name)
            return node, []
        if isinstance(node, ast.ClassDef):
            why = self.class_problem(node)
            if why:
                return None, [(why, True)]
            node.body, notes = self.class_body(node)
            node.body = node.body or [ast.Pass()]
            self.values.discard(node.name)
            return node, notes
        if isinstance(node, ast.AnnAssign) and node.value is not None and isinstance(node.target, ast.Name):
            node = ast.Assign(targets=[node.target], value=node.value, lineno=node.lineno)
        if isinstance(node, ast.Assign) and all(
                isinstance(t, ast.Name) or (isinstance(t, (ast.Tuple, ast.List))
                                            and all(isinstance(e, ast.Name) for e in t.elts))
                for t in node.targets):
            names = bound_names(node)
            if isinstance(node.value, ast.Lambda) and len(names) == 1 and isinstance(node.targets[0], ast.Name):
                why = self.lambda_problem(node.value)
                if why:
                    return None, [(f"the lambda {names[0]}: a default runs code ({why}): {line}", True)]
                self.values.discard(names[0])  # a function of the student's: never part of a kept value
                return node, []
            why = self.value_problem(node.value)
            if why:
                self.values -= set(names)
                return None, [(f"not a plain value ({why}): {line}", False)]
            self.values |= set(names)
            return node, []
        self.values -= set(_all_bound(node))
        return None, [(f"not a definition: {line}", False)]


def _direct_names(node: ast.stmt) -> list[str]:
    """The names a definition or an assignment binds itself (not ``np`` in ``np.isclose = None``)."""
    if isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return bound_names(node)
    targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
        node, (ast.AnnAssign, ast.AugAssign)) else []
    out, todo = [], list(targets)
    while todo:
        t = todo.pop(0)
        if isinstance(t, ast.Name):
            out.append(t.id)
        elif isinstance(t, (ast.Tuple, ast.List)):
            todo += t.elts
        elif isinstance(t, ast.Starred):
            todo.append(t.value)
    return out


def _all_bound(node: ast.stmt) -> list[str]:
    """Every name a top-level statement binds, at its top level (loops and ``with`` included)."""
    if isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return bound_names(node)
    out = []
    for sub in ast.walk(node):
        if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and sub is not node:
            out.append(sub.name)
        elif isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
            out.append(sub.id)
        elif isinstance(sub, (ast.Import, ast.ImportFrom)):
            out += bound_names(sub)
    return out


def review(nb: dict, given: dict) -> list[tuple[int, str, list[tuple[str, bool]]]]:
    """The one decision on a submission: for each code cell, (its index among all cells, the code the
    grader runs of it, [(why a statement was dropped, whether that is a flag)])."""
    parsed = list(code_cells(nb))
    state = Review([t for _, t in parsed if t is not None], given)
    out = []
    for i, tree in parsed:
        if tree is None:
            out.append((i, "", [("the cell does not parse: none of it is graded", False)]))
            continue
        kept, notes = [], []
        for node in tree.body:
            node_kept, node_notes = state.keep(node)
            if node_kept is not None:
                kept.append(node_kept)
            notes += node_notes
        module = ast.fix_missing_locations(ast.Module(body=kept, type_ignores=[]))
        out.append((i, ast.unparse(module) if kept else "", notes))
    return out


def definitions(code: str, given: dict) -> tuple[str, list[str]]:
    """The part of one cell's code the grader runs, and what it dropped (one note per statement)."""
    try:
        ast.parse(cell_code(code))
    except SyntaxError as err:
        return "", [f"the cell does not parse ({err.msg}, line {err.lineno}): none of it is graded"]
    ((_, kept, notes),) = review({"cells": [{"cell_type": "code", "source": code}]}, given)
    return kept, [note for note, _ in notes]


def dropped_notes(nb: dict, given: dict | None = None) -> list[str]:
    """For a student: the statements of their notebook that the grader will not run, and why (from
    ``review``, as grading decides; those also reported to the instructor say so)."""
    if given is None:
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), GIVEN_FILE)
        given = json.load(open(path)) if os.path.exists(path) else {}
    given_keys = set(given.get("statements", ()))
    numbers = {i: n + 1 for n, (i, _) in enumerate(code_cells(nb))}
    trees = dict(code_cells(nb))
    notes = []
    for i, _kept, cell_notes in review(nb, given):
        if trees[i] is None:
            notes.append(f"code cell {numbers[i]} does not parse: the grader runs none of it")
            continue
        if all(statement_key(n) in given_keys for n in trees[i].body):
            continue  # a cell of the assignment's own, unchanged
        for note, flagged in cell_notes:
            if note.startswith("not a definition") and "grader.check" in note:
                continue
            notes.append(f"code cell {numbers[i]}: {note}" + (" (reported to your instructor)" if flagged else ""))
    if notes:
        notes.insert(0, "At grading, only imports, def, class, lambdas and constants with plain values are kept; "
                        "these are not run:")
    return notes


def graded_notebook(nb: dict, given: dict, tests: dict[str, str], progress: str | None) -> tuple[dict, list[str]]:
    """The notebook the autograder executes (see the module docstring), and what was dropped."""
    cells, dropped = [], []

    def code(source):
        return {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": source}

    for source in given.get("preamble", []):
        cells.append(code(source))
    for i, kept, notes in review(nb, given):
        dropped += [f"cell {i + 1}: {note}" for note, _ in notes]
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
        spine = list(targets)  # what is assigned to, not the indices: `top[~np.isfinite(top)] = 0` is innocent
        while spine:
            t = spine.pop()
            if isinstance(t, (ast.Tuple, ast.List)):
                spine += t.elts
            elif isinstance(t, (ast.Subscript, ast.Starred)):
                spine.append(t.value)
            elif isinstance(t, ast.Attribute):
                if (_dotted(t.value) or "").split(".")[0] in modules:
                    out.append(f"attribute assignment on a module ({ast.unparse(t)})")
                    break
                spine.append(t.value)
    return out


def flags(nb: dict, given: dict | None = None) -> list[str]:
    """What in a submission reaches for the grader, cell by cell: ``["cell 7: open(, tests/", ...]``.

    The assignment's own code (the statements of the student version, unchanged) is not scanned.
    Besides the names and calls of ``_node_flags``, every definition ``review`` drops because it
    would run code or stand in for something else (a given name, a builtin, a decorator) is a flag.
    """
    given = given or {}
    keys = set(given.get("statements", ()))
    parsed = dict(code_cells(nb))
    modules = _module_names([t for t in parsed.values() if t is not None], given)
    out = []
    for i, _kept, notes in review(nb, given):
        tree, found = parsed[i], []
        for statement in tree.body if tree is not None else ():
            if statement_key(statement) in keys:
                continue
            for node in ast.walk(statement):
                for flag in _node_flags(node, modules):
                    if flag not in found:
                        found.append(flag)
        found += [note for note, flagged in notes if flagged and note not in found]
        if found:
            out.append(f"cell {i + 1}: " + ", ".join(found))
    return out


#: What otter's own export (``grader.export``) or a file manager puts beside a notebook: removed
#: like everything else, without a flag.
EXPORT_ARTEFACTS = {".OTTER_LOG", "__zip_filename__", ".ipynb_checkpoints", "__MACOSX", ".DS_Store"}


def clear_upload(folder: str, notebook: str, source: str | None, grader_files=()) -> list[str]:
    """Delete from a submission folder everything but the notebook and the autograder's own files.

    ``source`` is the autograder's folder (``<autograder>/source`` on Gradescope and under ``otter
    run``): by the time the plugin runs, otter has copied its ``files/`` beside the notebook (over
    any file of the same name) and replaced ``tests/`` with its own. Those are checked against the
    source and copied again if they differ; ``__init__.py`` (otter's) is emptied; every other entry,
    folders included, is deleted. Without a source folder, the files named in ``grader_files`` (the
    plugin configuration's list) are left as they are. Returns what the student added (for the
    flags): ``["numpy/", ...]``.
    """
    import shutil

    files = os.path.join(source, "files") if source else None
    grader = set(os.listdir(files)) if files and os.path.isdir(files) else set()
    removed = []
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        is_dir = os.path.isdir(path) and not os.path.islink(path)
        if name == notebook and os.path.isfile(path) and not os.path.islink(path):
            continue
        if name == "__init__.py" and not is_dir:
            with open(path, "rb") as f:
                if f.read().strip():
                    removed.append(name)
            os.remove(path)
            open(path, "w").close()
            continue
        if name == "tests" and source and os.path.isdir(os.path.join(source, "tests")):
            shutil.rmtree(path) if is_dir else os.remove(path)
            shutil.copytree(os.path.join(source, "tests"), path)
            continue
        if not grader and name in grader_files and os.path.isfile(path) and not os.path.islink(path):
            continue
        if name in grader:
            original = os.path.join(files, name)
            if not is_dir and os.path.isfile(original) and _same_file(path, original):
                continue
            shutil.rmtree(path) if is_dir else os.remove(path)
            (shutil.copytree if os.path.isdir(original) else shutil.copy)(original, path)
            removed.append(name + ("/" if is_dir else ""))
            continue
        shutil.rmtree(path) if is_dir else os.remove(path)
        if name not in EXPORT_ARTEFACTS and not name.endswith((".otter", ".pdf")):
            removed.append(name + ("/" if is_dir else ""))
    return removed


def _same_file(a: str, b: str) -> bool:
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return fa.read() == fb.read()


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


def raised(lines: list[str]) -> list[str]:
    """The exception's own lines (``CheckFailure: compute in float64``, and any further lines of its
    message) from doctest's "Exception raised:" block: what follows the last traceback's frames."""
    start = next((i for i in range(len(lines) - 1, -1, -1) if lines[i].strip() == "Exception raised:"), None)
    if start is None:
        return []
    block = []
    for line in lines[start + 1:]:
        if line.strip() and not line.startswith("    "):
            break  # the block ends where doctest's own indentation does
        block.append(line[4:])
    header = max((i for i, line in enumerate(block) if line.startswith("Traceback (most recent call last)")),
                 default=-1)
    body = block[header + 1:]
    first = next((i for i, line in enumerate(body) if line.strip() and not line.startswith(" ")), None)
    out = body[first:] if first is not None else [line for line in body if line.strip()][-1:]
    while out and not out[-1].strip():
        out.pop()
    return out


def public_message(message: str, hidden: set, limit: int = PUBLIC_OUTPUT) -> str:
    """What a student sees of a failed public test: the failing line and the exception's own message
    (the book check's advice, the entry that differs), never a line of a hidden test, at most
    ``limit`` characters."""
    lines = (message or "").splitlines()
    failed = max((i for i, line in enumerate(lines) if line.strip() == "Failed example:"), default=None)
    example = lines[failed + 1].strip() if failed is not None and failed + 1 < len(lines) else ""
    if any(line.strip() == "Got:" for line in lines):
        error = ["the test printed output (not shown)"]
    else:
        error = raised(lines) or [next((line.strip() for line in reversed(lines) if line.strip()), "")]
    out = [lines[0] if lines else "❌ Test case failed"]
    if example:
        out.append(f"    {example}")
    out += [f"    {line}" for line in error if line.strip()]
    text = "\n".join(out)
    for line in sorted(hidden, key=len, reverse=True):
        if line in text:
            text = text.replace(line, "[hidden test text removed]")
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --- the plugin ---------------------------------------------------------------------------------


class _PlainRecord(pickle.Unpickler):
    """A log record as Python's SocketHandler sends it: a dict of strings, numbers and None; no class."""

    def find_class(self, module, name):
        raise pickle.UnpicklingError(f"{module}.{name} in a log record: only plain data is accepted")


def plain_log_records() -> None:
    """Make otter's logging server, which unpickles in the grading process whatever reaches its socket,
    accept plain records only (the sandbox keeps answers off the socket; this holds whatever reaches it)."""
    try:
        from otter.execute import logging as otter_logging
    except ImportError:  # not otter's grading process
        return
    otter_logging.LogRecordStreamHandler.unpickle = lambda self, data: _PlainRecord(io.BytesIO(data)).load()


class GradeDefinitions(AbstractOtterPlugin):
    """Grade only what a student defines; keep hidden tests out of public output; report flags."""

    def __init__(self, submission_path, submission_metadata, plugin_config):
        self.submission_path = submission_path
        self.submission_metadata = submission_metadata
        self.plugin_config = plugin_config or {}
        self.tests = {}
        self.report = []
        plain_log_records()  # before otter starts its logging server for this submission

    def _clear_upload(self) -> str:
        """Clear the upload to the notebook (``clear_upload``), once; returns the submission's folder."""
        given = self.plugin_config.get("given", {})
        folder = os.path.dirname(os.path.abspath(self.submission_path))
        source = os.path.join(os.path.dirname(folder), "source")  # the autograder's own files (see clear_upload)
        # a package or module uploaded beside the notebook would be imported instead of numpy or the support file
        removed = clear_upload(folder, os.path.basename(self.submission_path),
                               source if os.path.isdir(source) else None, given.get("files", ()))
        if removed:
            self.report.append("removed from the upload (only the notebook is graded): " + ", ".join(removed))
        return folder

    def before_grading(self, config):
        """Before otter reads the upload: a crafted ``.OTTER_LOG`` beside the notebook would be unpickled (dill)
        in this process just after this hook, before any notebook runs."""
        self._clear_upload()

    def before_execution(self, submission):
        import nbformat

        given = self.plugin_config.get("given", {})
        folder = self._clear_upload()
        self.tests = {f"./tests/{os.path.basename(p)}": open(p).read()
                      for p in sorted(glob(os.path.join(folder, "tests", "*.py")))}
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
