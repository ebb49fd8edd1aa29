"""Whether a benchmark's results are current: the code it measured has not changed since its run.

``_results.stale_sources`` names every recorded source whose bytes changed. A change to a module's
docstrings or comments alone does not change what the run measured, so ``stale_code`` keeps only the
files whose *code* changed: it finds the measured version in the repository's history (the commit
whose copy has the recorded SHA-256) and compares the two syntax trees without docstrings. A file
whose measured version is not in the history counts as changed. ``tests/test_benchmark_results.py``
reads this; no benchmark imports it, so it is not among the sources a record hashes.
"""

from __future__ import annotations

import ast
import hashlib
import subprocess
from pathlib import Path

import _results


def code_fingerprint(text: str) -> str | None:
    """SHA-256 of a Python file's code: its syntax tree without docstrings (comments are not in it);
    None if the text does not parse."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
    return hashlib.sha256(ast.dump(tree).encode()).hexdigest()


def measured_text(relative: str, digest: str, root: Path) -> str | None:
    """The text of ``relative`` as the run measured it (its SHA-256 is ``digest``), from the history."""
    def git(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)

    log = git("log", "--format=%H", "--", relative)
    for commit in log.stdout.split() if log.returncode == 0 else []:
        shown = git("show", f"{commit}:{relative}")
        if shown.returncode == 0 and hashlib.sha256(shown.stdout.encode()).hexdigest() == digest:
            return shown.stdout
    return None


def stale_code(record: dict, root: Path = _results.ROOT) -> list[str]:
    """The files of ``record["sources"]`` that are missing or whose code has changed since the run."""
    stale = []
    for entry in _results.stale_sources(record, root):
        if entry.endswith(" (removed)") or not entry.endswith(".py"):
            stale.append(entry)
            continue
        before = measured_text(entry, record["sources"][entry], root)
        now = code_fingerprint((root / entry).read_text())
        if before is None or now is None or code_fingerprint(before) != now:
            stale.append(entry)
    return stale
