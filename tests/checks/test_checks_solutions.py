"""The book's own solutions to its coding exercises pass the checks that the exercises name.

For every exercise marked *Coding.*, the code of its dropdown solution is run in
a namespace holding the chapter's set-up cell (imports and the generator):
its imports, its function definitions and its calls to ``check_*``, nothing
else (the experiments after them need the chapter's state and time). Each check
must print its one line of success.
"""

import ast
import contextlib
import io
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXERCISE = re.compile(r"`{3,4}\{exercise\}([^\n]*)\n:label: ([\w-]+)\n(.*?)\n`{3,4}\n", re.S)
SOLUTION = re.compile(r"(`{3,4})\{solution\} ([\w-]+)\n(.*?)\n\1(?=\n|$)", re.S)
FENCED = re.compile(r"(?:```|~~~)python\n(.*?)\n(?:```|~~~)", re.S)


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


def chapters():
    toc = (ROOT / "_toc.yml").read_text()
    return [ROOT / f"{f}.ipynb" for f in re.findall(r"file: (book/ch\w+)", toc)]


def coding_exercises():
    for path in chapters():
        cells = json.loads(path.read_text())["cells"]
        text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
        solutions = {label: body for _, label, body in SOLUTION.findall(text)}
        for _, label, body in EXERCISE.findall(text):
            if body.lstrip().startswith(("*Coding.*", "*Pen and paper, then coding.*")):
                yield pytest.param(path, solutions[label], set(re.findall(r"\b(check_\w+)\(", body)), id=label)


def setup_namespace(path):
    cells = json.loads(path.read_text())["cells"]
    setup = next("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    # the Colab-only %pip line is IPython syntax; nothing runs it here
    setup = "\n".join(line[: len(line) - len(line.lstrip())] + "pass" if line.lstrip().startswith("%") else line
                      for line in setup.splitlines())
    namespace = {}
    exec(compile(setup, f"{path.name} set-up cell", "exec"), namespace)
    return namespace


@pytest.mark.parametrize("path, solution, named", list(coding_exercises()))
def test_solution_passes_its_checks(path, solution, named):
    tree = ast.parse(code_of(solution))
    kept = [node for node in tree.body
            if isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef))
            or (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
                and getattr(node.value.func, "id", "").startswith("check_"))]
    called = {node.value.func.id for node in kept if isinstance(node, ast.Expr)}
    assert called == named, f"the solution calls {sorted(called)}; the exercise names {sorted(named)}"
    namespace = setup_namespace(path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(ast.Module(kept, type_ignores=[]), "solution", "exec"), namespace)
    lines = out.getvalue().splitlines()
    assert len(lines) == len([n for n in kept if isinstance(n, ast.Expr)])
    assert all(re.fullmatch(r"check_\w+(\(causal=True\))?: all \d+ cases passed\.", line) for line in lines), lines
