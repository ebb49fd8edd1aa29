"""Run the book's exercise solutions as a reader would: the helpers of ``test_checks_solutions.py``.

A solution runs in a namespace holding what a reader who ran its chapter would have: the chapter's
set-up cell and the code cells before it that define the names the solution reads (the slice of
the chapter it depends on, found by reading the cells' code, :func:`chapter_slice`), not the
whole chapter. :func:`run` returns what it printed and the namespace it left; :class:`Run` reads
numbers from the solution's prose and from its output.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import copy
import functools
import io
import json
import re
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

from attnlib.checks import CheckFailure

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "book"))  # the chapters import bookkit from their folder, as their kernel does
EXERCISE = re.compile(r"`{3,4}\{exercise\}([^\n]*)\n:label: ([\w-]+)\n(.*?)\n`{3,4}\n", re.S)
SOLUTION = re.compile(r"(`{3,4})\{solution\} ([\w-]+)\n(.*?)\n\1(?=\n|$)", re.S)
FENCED = re.compile(r"(?:```|~~~)python\n(.*?)\n(?:```|~~~)", re.S)
BUILTINS = set(dir(builtins))


# --- the chapters' exercises and solutions ------------------------------------------------------


def code_of(body):
    """The fenced ```python / ~~~python blocks and the indented blocks of a markdown text."""
    blocks = FENCED.findall(body)
    current = []
    for line in FENCED.sub("", body).split("\n") + ["<end>"]:
        if line.startswith("    ") or (current and not line.strip()):
            current.append(line[4:])
            continue
        if any(x.strip() for x in current):
            blocks.append("\n".join(current))
        current = []
    return "\n".join(blocks)


def prose_of(body, indented_code=True):
    """A solution's text without its code, as one line of words; ``indented_code=False`` for a gated
    solution's markdown, whose indented lines are prose (its code is in its code cells)."""
    text = FENCED.sub(" ", body)
    text = "\n".join(line for line in text.split("\n")
                     if not (indented_code and line.startswith("    ")) and not line.startswith(":"))
    return " ".join(text.split())


def chapters():
    toc = (ROOT / "_toc.yml").read_text()
    return [ROOT / f"{f}.ipynb" for f in re.findall(r"file: (book/ch\w+)", toc)]


@dataclass(frozen=True)
class Solution:
    """One exercise with its solution, and where the solution sits in its chapter."""

    path: Path
    cell: int  # the markdown cell that holds the solution
    label: str
    exercise: str
    body: str
    cells: tuple | None = None  # a gated solution's code cells; its body is then all markdown

    @property
    def code(self):
        return code_of(self.body) if self.cells is None else "\n\n".join(self.cells)

    @property
    def prose(self):
        return prose_of(self.body, indented_code=self.cells is None)

    @property
    def coding(self):
        return self.exercise.lstrip().startswith(("*Coding.*", "*Pen and paper, then coding.*"))


GATE_START = re.compile(r"^`{3,4}\{solution-start\} ([\w-]+)\n(?::[^\n]*\n)*`{3,4}\n?(.*)\Z", re.S | re.M)
GATE_END = re.compile(r"\A\s*`{3,4}\{solution-end\}\n`{3,4}\n?(.*)\Z", re.S)
#: where the prose after a ``{solution-end}`` stops being the solution's: a heading, the next exercise or gate
AFTER_GATE = re.compile(r"\n\n(?:#|`{3,4}\{(?:exercise|solution-start)\})")


def solutions():
    """Every solution: a ``{solution}`` block in a markdown cell, or a gated one, ``{solution-start}``
    and ``{solution-end}`` around code cells that run in the build. A gated solution's body is its
    markdown (the cells inside the gate and the text after its end, up to a heading or the next
    exercise), all of it prose, even an indented line; its code is its code cells and nothing else.
    It sits at its start cell, so that the chapter's slice ends before it."""
    found = []
    for path in chapters():
        cells = json.loads(path.read_text())["cells"]
        exercises, gate = {}, None
        for i, cell in enumerate(cells):
            text = "".join(cell["source"])
            if gate is not None:
                if cell["cell_type"] == "code":
                    gate[3].append(text)
                    continue
                end = GATE_END.match(text)
                if not end:
                    gate[2].append(text)
                    continue
                start, label, parts, code = gate
                parts.append(AFTER_GATE.split(end.group(1), 1)[0])
                found.append(Solution(path, start, label, exercises[label], "\n\n".join(parts), tuple(code)))
                gate, text = None, end.group(1)  # the cell goes on: exercises, hints, the next gate
            if cell["cell_type"] != "markdown":
                continue
            # an exercise may end its cell without a newline after the closing fence
            exercises.update({label: body for _, label, body in EXERCISE.findall(text + "\n")})
            for _, label, body in SOLUTION.findall(text):
                found.append(Solution(path, i, label, exercises[label], body))
            start = GATE_START.search(text)
            if start:
                gate = (i, start.group(1), [start.group(2)], [])
    return found


SOLUTIONS = {s.label: s for s in solutions()}


# --- the slice of a chapter that a solution uses ------------------------------------------------


def _without_magics(source):
    """A code cell as plain Python: the Colab-only ``%pip`` and ``!curl`` lines become ``pass``."""
    return "\n".join(line[: len(line) - len(line.lstrip())] + "pass" if line.lstrip().startswith(("%", "!")) else line
                     for line in source.splitlines())


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
           ast.GeneratorExp)


def _own_names(node):
    """The names a function, lambda or comprehension binds for itself."""
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        return {n.id for g in node.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)}
    a = node.args
    names = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg] if x}
    for stmt in node.body if isinstance(node.body, list) else [node.body]:
        for n in ast.walk(stmt):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                names.add(n.id)
            elif isinstance(n, (ast.FunctionDef, ast.ClassDef)):
                names.add(n.name)
            elif isinstance(n, (ast.Import, ast.ImportFrom)):
                names |= {(x.asname or x.name).split(".")[0] for x in n.names}
    return names


def _reads(node):
    """The names a piece of code reads from the module's scope (a function's too: it reads them when called)."""
    if isinstance(node, ast.Name):
        return set() if isinstance(node.ctx, ast.Store) else {node.id}
    names = set().union(*(_reads(child) for child in ast.iter_child_nodes(node)))
    return names - _own_names(node) if isinstance(node, _SCOPES) else names


def _writes(stmt):
    """(bound, changed): the names a statement binds, and those whose object it changes in place."""
    bound, changed = set(), set()

    def target(t):
        if isinstance(t, ast.Name):
            bound.add(t.id)
        elif isinstance(t, (ast.Tuple, ast.List)):
            for e in t.elts:
                target(e)
        elif isinstance(t, ast.Starred):
            target(t.value)
        elif isinstance(t, (ast.Subscript, ast.Attribute)):
            while isinstance(t, (ast.Subscript, ast.Attribute)):
                t = t.value
            if isinstance(t, ast.Name):
                changed.add(t.id)

    if isinstance(stmt, ast.Assign):
        for t in stmt.targets:
            target(t)
    elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor)):
        target(stmt.target)
    elif isinstance(stmt, (ast.With, ast.AsyncWith)):
        for item in stmt.items:
            if item.optional_vars:
                target(item.optional_vars)
    elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        bound.add(stmt.name)
    elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
        bound |= {(a.asname or a.name).split(".")[0] for a in stmt.names}
    return bound, changed


@dataclass
class Names:
    """What a piece of code reads before binding it, binds, and changes in place."""

    free: set = field(default_factory=set)
    bound: set = field(default_factory=set)
    changed: set = field(default_factory=set)

    def scan(self, stmts, local):
        for stmt in stmts:
            if isinstance(stmt, (ast.For, ast.AsyncFor)):
                heads = [stmt.iter]
            elif isinstance(stmt, (ast.If, ast.While)):
                heads = [stmt.test]
            elif isinstance(stmt, (ast.With, ast.AsyncWith)):
                heads = [item.context_expr for item in stmt.items]
            elif isinstance(stmt, ast.Try):
                heads = []
            else:
                heads = [stmt]
            for h in heads:
                self.free |= _reads(h) - local
            bound, changed = _writes(stmt)
            if isinstance(stmt, ast.AugAssign):
                self.free |= bound - local
            self.free |= changed - local
            local |= bound
            self.bound |= bound
            self.changed |= changed
            for body in ("body", "orelse", "finalbody"):
                if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    self.scan(getattr(stmt, body, []), local)
            for handler in getattr(stmt, "handlers", []):
                if handler.type is not None:
                    self.free |= _reads(handler.type) - local
                if handler.name:
                    local.add(handler.name)
                    self.bound.add(handler.name)
                self.scan(handler.body, local)
        return self


def names_of(source):
    names = Names().scan(ast.parse(source).body, set())
    names.free -= BUILTINS
    return names


@functools.cache
def code_cells(path):
    """(index, source) of a chapter's code cells, as plain Python; a learner's stub (``skip-execution``,
    which the build never runs) is not one of them."""
    cells = json.loads(path.read_text())["cells"]
    return tuple((i, _without_magics("".join(c["source"]))) for i, c in enumerate(cells)
                 if c["cell_type"] == "code" and "skip-execution" not in c.get("metadata", {}).get("tags", []))


def chapter_slice(solution):
    """The chapter's set-up cell and the code cells before the solution that define what it reads.

    Walking back from the solution, a cell is kept when it binds a name still needed or changes
    one in place; its own reads become needed in turn.
    """
    setup, *cells = [c for c in code_cells(solution.path) if c[0] < solution.cell]
    needed, kept = names_of(solution.code).free, []
    for index, source in reversed(cells):
        names = names_of(source)
        if (names.bound | names.changed) & needed:
            kept.append(index)
            needed = (needed - names.bound) | names.free
    missing = needed - names_of(setup[1]).bound
    assert not missing, f"{solution.label} reads {sorted(missing)}, which no earlier cell of its chapter defines"
    return (setup[0], *sorted(kept))


@functools.cache
def _chapter_state(path, cells):
    import matplotlib.pyplot as plt

    namespace = {"__name__": "__chapter__"}
    sources = dict(code_cells(path))
    with contextlib.redirect_stdout(io.StringIO()):
        for index in cells:
            exec(compile(sources[index], f"{path.name} cell {index}", "exec"), namespace)
    plt.close("all")
    return namespace


def chapter_state(solution):
    """A fresh namespace holding the chapter's slice; its generators are copies, so order of tests is moot."""
    state = _chapter_state(solution.path, chapter_slice(solution))
    return {k: copy.deepcopy(v) if isinstance(v, np.random.Generator) else v for k, v in state.items()}


# --- running a solution -------------------------------------------------------------------------


def number(text):
    """A number as the prose writes it: '83%' -> 0.83, '1.8×10⁴' -> 18000.0, '131{,}072' -> 131072.0."""
    text = text.translate(str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")).replace("{,}", "").replace(",", "")
    if text.endswith("%"):
        return float(text[:-1]) / 100
    mantissa, _, exponent = text.partition("×10")
    return float(mantissa) * 10.0 ** int(exponent or 0)


@dataclass
class Run:
    """A solution's run: what it printed and the namespace it left."""

    solution: Solution
    out: str
    namespace: dict
    seconds: float

    @property
    def lines(self):
        return self.out.splitlines()

    def says(self, *phrases):
        """Fail unless the solution's prose still says each phrase (a claim the caller then checks)."""
        for phrase in phrases:
            assert phrase in self.solution.prose, f"{self.solution.label}: the prose no longer says {phrase!r}"

    def stated(self, pattern, convert=number):
        """The groups of ``pattern`` in the solution's prose, converted; fails if the prose no longer says it."""
        match = re.search(pattern, self.solution.prose)
        assert match, f"{self.solution.label}: the prose no longer says {pattern!r}"
        values = [convert(g) if g is not None else None for g in match.groups()]
        return values[0] if len(values) == 1 else values

    def printed(self, pattern, convert=float):
        """The groups of ``pattern`` in every printed line that matches it, one list per line."""
        rows = [re.search(pattern, line) for line in self.lines]
        rows = [[convert(g) for g in m.groups()] for m in rows if m]
        assert rows, f"{self.solution.label}: nothing printed matches {pattern!r}:\n{self.out}"
        return rows

    def gives(self, what, convert=float):
        """What the run gives, as ``compare_prediction(..., what=what)`` printed it: one value per
        predicted value (never the prediction), converted. Fails if the run printed no such comparison."""
        lines = self.lines
        assert f"{what}:" in lines, f"{self.solution.label}: no comparison of {what!r} printed:\n{self.out}"
        values = []
        for line in lines[lines.index(f"{what}:") + 1:]:
            match = re.fullmatch(r"  (?:value \d+: )?you predicted .*, the run gives (.*)", line)
            if match:
                values.append(convert(match.group(1).strip("'")))
            elif not line.startswith("    "):  # a verdict line, or the comparison is over
                break
        assert values, f"{self.solution.label}: the comparison of {what!r} shows no value:\n{self.out}"
        return values

    def rerun(self, seed):
        """The solution run again on the same chapter state, with ``rng`` drawn afresh from ``seed``."""
        return execute(self.solution, {**chapter_state(self.solution), "rng": np.random.default_rng(seed)})


def execute(solution, namespace):
    out = io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(solution.code, f"solution {solution.label}", "exec"), namespace)
    return Run(solution, out.getvalue(), namespace, time.perf_counter() - start)


@functools.cache
def run(label):
    solution = SOLUTIONS[label]
    return execute(solution, chapter_state(solution) if solution.code.strip() else {})


def glued(chapter, name):
    """The number a chapter glues under ``name``, read from its committed outputs."""
    path = next(p for p in chapters() if p.name.startswith(chapter))
    for cell in json.loads(path.read_text())["cells"]:
        for output in cell.get("outputs", []):
            if output.get("metadata", {}).get("scrapbook", {}).get("name") == name:
                return number(ast.literal_eval(output["data"]["application/papermill.record/text/plain"]))
    raise AssertionError(f"{chapter} glues no {name!r}")


def first_failure(check, fn):
    """The message with which ``check`` rejects ``fn``, and the number of cases it ran to get there."""
    calls = []

    def counted(*args, **kwargs):
        calls.append(1)
        return fn(*args, **kwargs)

    with contextlib.redirect_stdout(io.StringIO()), pytest.raises(CheckFailure) as failure:
        check(counted)
    return str(failure.value), len(calls)


def close(value, stated, rel):
    """``value`` rounds to ``stated`` within the relative margin ``rel``."""
    return abs(value - stated) <= rel * abs(stated)
