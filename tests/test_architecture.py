"""The layout's rules, checked on the source: every import, at module and at function level.

The rules (also in the docstring of ``attnlib/__init__.py``):

1. ``import attnlib`` loads numpy only (and the standard library);
2. the core definitions (heads, inputs, attention, validation) import no learner;
3. ``rkhs`` and ``sculpt`` never import each other;
4. no algorithm imports ``checks``;
5. no part of the library imports a view (``viz``, ``widgets``);
6. no module imports a private module of another subpackage;
7. no module takes a private name (``_name``) from another module, inside its own subpackage
   too: ``from .body import _helper`` and ``body._helper`` after ``from . import body`` both
   break it. A helper that several modules share has a public name, in a private module.

Imports are read with ``ast``, so an import inside a function counts as much as one at the
top of a file (rule 1 counts only what runs on ``import attnlib``). A broken rule fails with
the route of imports that breaks it, file and line at every step. The last tests run the
checker on a small package in ``tmp_path`` that breaks every rule, so the checker can fail.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Edge:
    """``source`` imports ``target`` (a module of the package, or an outside top-level module)."""

    source: str
    target: str
    names: tuple[str, ...]  # the names taken from the target by ``from target import ...``
    line: int
    top_level: bool  # runs when ``source`` is imported (not inside a function)
    path: Path

    def __str__(self) -> str:
        where = "" if self.top_level else ", inside a function"
        what = f" ({', '.join(self.names)})" if self.names else ""
        return f"{self.source} -> {self.target}{what}   [{self.path.name}:{self.line}{where}]"


@dataclass
class Package:
    """The modules of a package and every import between them."""

    name: str
    modules: dict[str, Path] = field(default_factory=dict)  # dotted name -> file
    edges: list[Edge] = field(default_factory=list)

    @classmethod
    def read(cls, directory: Path, name: str | None = None) -> Package:
        name = name or directory.name
        package = cls(name)
        for path in sorted(directory.rglob("*.py")):
            parts = list(path.relative_to(directory.parent).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            package.modules[".".join(parts)] = path
        for module, path in package.modules.items():
            package.edges += package._imports(module, path)
        return package

    def is_package(self, module: str) -> bool:
        return self.modules[module].name == "__init__.py"

    def _resolve(self, module: str, level: int, target: str | None) -> str:
        if level == 0:
            return target or ""
        base = module.split(".")
        base = base if self.is_package(module) else base[:-1]
        base = base[: len(base) - (level - 1)]
        return ".".join(base + ([target] if target else []))

    def _imports(self, module: str, path: Path) -> list[Edge]:
        tree = ast.parse(path.read_text(), filename=str(path))
        inside = {id(n) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                  for n in ast.walk(f) if n is not f}
        edges, aliases = [], {}  # aliases: a local name bound to a module of the package -> that module
        for node in ast.walk(tree):
            top = id(node) not in inside
            if isinstance(node, ast.Import):
                for alias in node.names:
                    edges.append(self._edge(module, alias.name, (), node.lineno, top, path))
                    if alias.asname and alias.name in self.modules:
                        aliases[alias.asname] = alias.name
            elif isinstance(node, ast.ImportFrom):
                target = self._resolve(module, node.level, node.module)
                plain = []
                for alias in node.names:
                    sub = f"{target}.{alias.name}"
                    if sub in self.modules:  # ``from . import viz``: the submodule itself
                        edges.append(self._edge(module, sub, (), node.lineno, top, path))
                        aliases[alias.asname or alias.name] = sub
                    else:
                        plain.append(alias.name)
                if plain or not node.names:
                    edges.append(self._edge(module, target, tuple(plain), node.lineno, top, path))
        # ``body._helper`` after ``from . import body``: a private name taken through the module
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
                edges.append(Edge(module, aliases[node.value.id], (node.attr,), node.lineno,
                                  id(node) not in inside, path))
        return [e for e in edges if e.target != "__future__"]

    def _edge(self, module, target, names, line, top, path) -> Edge:
        if target != self.name and not target.startswith(self.name + "."):
            target = target.split(".")[0]  # an outside module: its top-level name
        else:
            while target not in self.modules and "." in target:
                target = target.rsplit(".", 1)[0]
        return Edge(module, target, names, line, top, path)

    def route(self, starts, goal, *, top_level_only: bool = False, avoid=()) -> list[Edge] | None:
        """The shortest chain of imports from any of ``starts`` to a module for which ``goal`` holds."""
        out: dict[str, list[Edge]] = {}
        for e in self.edges:
            if e.top_level or not top_level_only:
                out.setdefault(e.source, []).append(e)
        # importing a.b.c runs a/__init__ and a/b/__init__ first
        for module in self.modules:
            parent = module.rsplit(".", 1)[0] if "." in module else None
            if parent and parent in self.modules:
                out.setdefault(module, []).append(Edge(module, parent, (), 0, True, self.modules[parent]))
        queue = deque((s, []) for s in starts)
        seen = set(starts)
        while queue:
            module, path = queue.popleft()
            for e in out.get(module, []):
                if e.target in seen or e.target in avoid:
                    continue
                if goal(e.target):
                    return path + [e]
                seen.add(e.target)
                if e.target in self.modules:
                    queue.append((e.target, path + [e]))
        return None


def _in(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _show(route: list[Edge]) -> str:
    return "\n    " + "\n    ".join(str(e) for e in route if e.line)  # the implicit parent imports have line 0


STDLIB = set(sys.stdlib_module_names)


@dataclass
class Rules:
    """Which modules play which part. The defaults describe ``attnlib``."""

    core: tuple[str, ...] = ("heads", "inputs", "attention", "_validation")
    learners: tuple[str, ...] = ("training", "landscape", "rkhs", "sculpt", "lower_bounds")
    views: tuple[str, ...] = ("viz", "widgets")
    checks: str = "checks"
    apart: tuple[str, str] = ("rkhs", "sculpt")
    allowed_outside: tuple[str, ...] = ("numpy",)


def violations(package: Package, rules: Rules | None = None) -> dict[str, list[str]]:
    """Every broken rule, with the route that breaks it."""
    rules = rules or Rules()
    name = package.name
    full = lambda short: f"{name}.{short}"  # noqa: E731
    found: dict[str, list[str]] = {}

    def fail(rule, text):
        found.setdefault(rule, []).append(text)

    # 1. import attnlib loads numpy only: the imports that run on ``import <name>``
    outside = lambda m: m not in package.modules and m not in STDLIB and m not in rules.allowed_outside  # noqa: E731
    route = package.route([name], outside, top_level_only=True)
    if route:
        fail("import loads numpy only", f"`import {name}` loads {route[-1].target}:" + _show(route))

    # 2. the core definitions import no learner
    learners = [full(m) for m in rules.learners]
    for core in rules.core:
        start = full(core)
        if start in package.modules:
            route = package.route([start], lambda m: any(_in(m, lrn) for lrn in learners), avoid={name})
            if route:
                fail("core imports no learner", f"{start} imports the learner {route[-1].target}:" + _show(route))

    # 3. rkhs and sculpt never import each other
    a, b = (full(m) for m in rules.apart)
    for x, y in ((a, b), (b, a)):
        starts = [m for m in package.modules if _in(m, x)]
        route = package.route(starts, lambda m, y=y: _in(m, y), avoid={name})
        if route:
            fail("rkhs and sculpt apart", f"{x} imports {y}:" + _show(route))

    # 4. no algorithm imports checks; 5. no part imports a view
    checks = full(rules.checks)
    views = [full(v) for v in rules.views]
    for module in package.modules:
        if module == name:
            continue
        if not _in(module, checks):
            route = package.route([module], lambda m: _in(m, checks), avoid={name})
            if route and not any(_in(module, v) for v in views):
                fail("no algorithm imports checks", f"{module} imports {route[-1].target}:" + _show(route))
        if not any(_in(module, v) for v in views) and not _in(module, checks):
            route = package.route([module], lambda m: any(_in(m, v) for v in views), avoid={name})
            if route:
                fail("no part imports a view", f"{module} imports the view {route[-1].target}:" + _show(route))

    # 6. no private module of another subpackage; 7. no private name of another module, anywhere
    for e in package.edges:
        if e.target not in package.modules:
            continue
        owner = _owner(package, e.target)
        private_module = any(part.startswith("_") for part in e.target.split(".")[1:])
        private_names = [n for n in e.names if _private(n)]
        if private_module and not _in(e.source, owner):
            fail("no private module across subpackages",
                 f"{e.source} imports the private module {e.target} of {owner}:" + _show([e]))
        if private_names and e.target != e.source:
            fail("no private name across modules",
                 f"{e.source} takes the private name {', '.join(private_names)} of {e.target}:" + _show([e]))
    return found


def _private(name: str) -> bool:
    """``_name`` is private; ``__name__`` and ``__all__`` (dunders) are not."""
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _owner(package: Package, module: str) -> str:
    """The (sub)package a module belongs to: itself if it is a package, else its parent."""
    if package.is_package(module):
        return module
    owner = module.rsplit(".", 1)[0]
    while any(part.startswith("_") for part in owner.split(".")[1:]):
        owner = owner.rsplit(".", 1)[0]
    return owner


def _report(found: dict[str, list[str]]) -> str:
    return "\n".join(f"[{rule}] {text}" for rule, texts in found.items() for text in texts)


# --------------------------------------------------------------------------- attnlib itself


def test_attnlib_keeps_every_rule():
    found = violations(Package.read(ROOT / "attnlib"))
    assert not found, "the layout's rules are broken:\n" + _report(found)


def test_import_attnlib_loads_numpy_only_when_run():
    # what numpy itself loads (Cython's runtime in numpy 1.x) is numpy's
    code = ("import sys, numpy; before = set(sys.modules); import attnlib; "
            "print(sorted({m.split('.')[0] for m in set(sys.modules) - before}))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    outside = set(eval(loaded)) - STDLIB - {"attnlib", "numpy"}  # noqa: S307 (our own printed list)
    assert not outside, f"import attnlib loads {sorted(outside)}"


def test_the_reader_sees_every_module():
    package = Package.read(ROOT / "attnlib")
    for module in ("attnlib.rkhs.regression", "attnlib.sculpt.sum_w", "attnlib.viz.rkhs", "attnlib.widgets._core"):
        assert module in package.modules
    assert any(e.source == "attnlib.rkhs.experiments" and e.target == "attnlib.tasks.associative_memory"
               for e in package.edges)


def test_every_name_in_every_all_exists():
    """A name listed in a module's __all__ but defined elsewhere breaks the API reference's build."""
    import importlib

    missing = []
    for module in sorted(Package.read(ROOT / "attnlib").modules):
        mod = importlib.import_module(module)
        missing += [f"{module}.{name}" for name in getattr(mod, "__all__", []) if not hasattr(mod, name)]
    assert not missing, f"listed in __all__ but not defined: {missing}"


#: the longest library module a reader can hold (issue "One validation boundary", item 6)
MODULE_LINES = 500


def test_no_library_module_is_longer_than_a_reader_can_hold():
    long = {str(path.relative_to(ROOT)): n for path in sorted((ROOT / "attnlib").rglob("*.py"))
            if (n := len(path.read_text().splitlines())) > MODULE_LINES}
    assert not long, f"modules over {MODULE_LINES} lines (split along a seam a reader recognises): {long}"


def blank_runs(text: str) -> list[int]:
    """The lines that start a run of three or more blank lines (what deleted code leaves behind)."""
    lines, found, run = text.splitlines(), [], 0
    for number, line in enumerate(lines, 1):
        run = run + 1 if not line.strip() else 0
        if run == 3:
            found.append(number - 2)
    return found


def test_no_runs_of_blank_lines_are_left_behind():
    assert blank_runs("a\n\n\nb\n\n\n\nc\n") == [5]
    folders = ("attnlib", "tests", "scripts", "benchmarks", "book/_ext")
    runs = {str(path.relative_to(ROOT)): found for folder in folders for path in sorted((ROOT / folder).rglob("*.py"))
            if (found := blank_runs(path.read_text()))}
    assert not runs, f"runs of three or more blank lines (file: first line of each run): {runs}"


# --------------------------------------------------------------------------- the checker can fail


BROKEN = {
    "__init__.py": "from .heads import Heads\n",
    "_validation.py": "def check():\n    return 1\n",
    "heads.py": "import scipy\n\nclass Heads:\n    pass\n",
    "attention.py": "def attention():\n    from .training import train\n    return train\n",
    "training.py": "from ._validation import check\n\ndef train():\n    return check\n",
    "inputs.py": "",
    "landscape.py": "",
    "rkhs/__init__.py": "from .regression import fit\n",
    "rkhs/regression.py": (
        "from ..viz.figures import plot\n\ndef fit():\n    from ..sculpt.body import cut\n    return plot, cut\n"),
    "sculpt/__init__.py": "",
    "sculpt/_common.py": "def _helper():\n    return 0\n\ndef shared():\n    return 1\n",
    "sculpt/body.py": (
        "from ._common import _helper\n\ndef cut():\n    from ..checks import grade\n    return grade, _helper\n"),
    "sculpt/span.py": "from . import body\n\ndef face():\n    return body._cut_private(), body.__name__\n",
    "lower_bounds/__init__.py": "from ..sculpt._common import shared\nfrom ..training import _private\n",
    "checks/__init__.py": "def grade():\n    return 0\n",
    "viz/__init__.py": "",
    "viz/figures.py": "from ..checks import grade\n\ndef plot():\n    return grade\n",
    "widgets/__init__.py": "",
}


def _write(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "attnlib"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(textwrap.dedent(text))
    return root


def test_the_checker_finds_every_broken_rule_with_its_route(tmp_path):
    found = violations(Package.read(_write(tmp_path, BROKEN)))
    report = _report(found)
    assert set(found) == {"import loads numpy only", "core imports no learner", "rkhs and sculpt apart",
                          "no algorithm imports checks", "no part imports a view",
                          "no private module across subpackages", "no private name across modules"}, report
    # each failure names the route, step by step, with file and line
    assert "`import attnlib` loads scipy:\n    attnlib -> attnlib.heads (Heads)   [__init__.py:1]\n" \
           "    attnlib.heads -> scipy   [heads.py:1]" in report, report
    assert "attnlib.attention imports the learner attnlib.training:\n" \
           "    attnlib.attention -> attnlib.training (train)   [attention.py:2, inside a function]" in report, report
    assert "attnlib.rkhs imports attnlib.sculpt:" in report and \
           "attnlib.rkhs.regression -> attnlib.sculpt.body (cut)   [regression.py:4, inside a function]" in report
    assert "attnlib.sculpt.body imports attnlib.checks:" in report, report
    assert "attnlib.rkhs.regression imports the view attnlib.viz.figures:" in report, report
    assert "attnlib.lower_bounds imports the private module attnlib.sculpt._common of attnlib.sculpt" in report
    assert "attnlib.lower_bounds takes the private name _private of attnlib.training" in report, report
    # inside its own subpackage too, imported by name or taken through the module; a dunder is not private
    assert "attnlib.sculpt.body takes the private name _helper of attnlib.sculpt._common:\n" \
           "    attnlib.sculpt.body -> attnlib.sculpt._common (_helper)   [body.py:1]" in report, report
    assert "attnlib.sculpt.span takes the private name _cut_private of attnlib.sculpt.body:\n" \
           "    attnlib.sculpt.span -> attnlib.sculpt.body (_cut_private)   [span.py:4, inside a function]" in report
    assert "__name__" not in report
    # a shared private module inside its own subpackage is allowed, and a view may import a part
    assert "private module attnlib.sculpt._common of attnlib.sculpt:" not in report.replace(
        "attnlib.lower_bounds imports the private module attnlib.sculpt._common of attnlib.sculpt", "")
    assert "attnlib.viz.figures imports" not in report, report


def test_the_checker_passes_a_package_that_keeps_the_rules(tmp_path):
    good = {path: text for path, text in BROKEN.items()}
    good["heads.py"] = "class Heads:\n    pass\n"
    good["attention.py"] = "from .heads import Heads\n"
    good["rkhs/regression.py"] = "from ..training import train\n\ndef fit():\n    return train\n"
    good["sculpt/_common.py"] = "def helper():\n    return 0\n"
    good["sculpt/body.py"] = "from ._common import helper\n\ndef cut():\n    return helper, _own()\n\n" \
                             "def _own():\n    return 1\n"
    good["sculpt/span.py"] = "from . import body\n\ndef face():\n    return body.cut(), body.__name__\n"
    good["lower_bounds/__init__.py"] = "from ..training import train\n"
    assert violations(Package.read(_write(tmp_path, good))) == {}
