"""What the tests of the grader share: loading the support files, and a small assignment's given code."""

import ast
import importlib.util
from pathlib import Path

SUPPORT_DIR = Path(__file__).resolve().parents[1] / "assignments" / "_support"

#: The code a small assignment's student version gives: set-up, data, and an answer to write.
GIVEN_CELLS = ["import assignment_support\nassignment_support.arm_cells()\ngrader = assignment_support.notebook('a')",
               "import numpy as np\nfrom attnlib import attention\nrng = np.random.default_rng(1)",
               "def answer(x):\n    ..."]


def load(name: str, module_name: str | None = None):
    """``assignments/_support/<name>.py`` as a module (the folder is no package), under ``module_name``."""
    spec = importlib.util.spec_from_file_location(module_name or name, SUPPORT_DIR / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def given(grading) -> dict:
    """The plugin's configuration for GIVEN_CELLS, as the build writes it (scripts/assignment_examples.py)."""
    keys, protected, modules = [], set(), set()
    for code in GIVEN_CELLS:
        for node in ast.parse(code).body:
            keys.append(grading.statement_key(node))
            if not isinstance(node, ast.FunctionDef):
                protected.update(grading.bound_names(node))
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                modules.update(grading.bound_names(node))
    return {"preamble": GIVEN_CELLS, "statements": keys, "protected": sorted(protected), "modules": sorted(modules)}


def notebook(*cells) -> dict:
    return {"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": c}
                      for c in cells], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
