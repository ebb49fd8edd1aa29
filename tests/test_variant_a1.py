"""Assignment 1's variants: every form is answered by the reference and by an honest answer, not by the master.

Each code question is run in plain Python, form by form (``variant.FORMS_Q*``): the master rendered
with the demo variant's data and that form, its solution cell, then its tests (public and hidden, the
variant's own oracles) through the real support file. The published solution (the canonical form's
code) must fail some test of every form, so that no form is a renaming of the master's; and
``variant.honest(v)``, written from the prompts, must pass them all.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
NAME = "a1_attention_and_regression"
sys.path.insert(0, str(ROOT / "assignments" / "_support"))
_spec = importlib.util.spec_from_file_location("assignments", ROOT / "scripts" / "assignments.py")
assignments = importlib.util.module_from_spec(_spec)
sys.modules["assignments"] = assignments
_spec.loader.exec_module(assignments)

MASTER = json.loads((ROOT / "assignments" / NAME / f"{NAME}.ipynb").read_text())
VARIANT = assignments.variant_module(NAME)
WHEEL = "attnlib-0.2.0+g1a2b3c4d5e6f-py3-none-any.whl"
MAKE = {"q1": VARIANT._q1, "q2": VARIANT._q2, "q4": VARIANT._q4, "q5": VARIANT._q5}
FORMS = {"q1": VARIANT.FORMS_Q1, "q2": VARIANT.FORMS_Q2, "q4": VARIANT.FORMS_Q4, "q5": VARIANT.FORMS_Q5,
         "q6": VARIANT.FORMS_Q6}
CASES = [(q, form) for q, forms in FORMS.items() for form in forms]
SETUP = ("import numpy as np\nfrom attnlib import attention, gaussian_inputs, random_heads\n"
         "from attnlib.rkhs import cubic_features\n")  # q6 uses the import of q5's cell


def _values(question: str, form) -> dict:
    """The demo variant's values with ``form`` for ``question`` (q6's form is its function's name)."""
    fixed = assignments.fixed_values(MASTER, WHEEL, assignments.DEMO_SEED)
    if question == "q6":  # its answers are computed for the variant's own form: find a seed that asks it
        for seed in [assignments.DEMO_SEED] + [f"course seed number {i:03d}" for i in range(12)]:
            values = assignments.variant_values(NAME, seed)
            if values["q6_name"] == form:
                return {**values, **fixed}
        raise AssertionError(f"no seed asks q6 in the form {form}")
    return {**assignments.variant_values(NAME, assignments.DEMO_SEED), **fixed, **MAKE[question](*form)}


def _cells(nb: dict, question: str) -> tuple[list[str], list[str]]:
    """The solution cells and the test cells of ``question`` in a rendered notebook."""
    solution, tests, current, block = [], [], None, []
    for cell in nb["cells"]:
        text = assignments._source(cell)
        marker = assignments._raw_marker(cell)
        if marker:
            kind, what = marker.split()
            if kind == "BEGIN" and what == "QUESTION":
                current = yaml.safe_load(text.split("\n", 1)[1])["name"]
            if kind == "BEGIN":
                block.append(what)
            elif block and block[-1] == what:
                block.pop()
            continue
        if cell["cell_type"] == "code" and current == question and block:
            (solution if block[-1] == "SOLUTION" else tests).append(text)
    return solution, tests


def _run(solution: list[str], extra: str, tests: list[str]) -> list[str]:
    """Run the solution cells (then ``extra``, answers that replace their functions), then each test cell.

    Returns the failures, one line per failed test cell."""
    import assignment_support

    assignment_support.ISOLATE = False
    env = {"__name__": "__main__"}
    exec(SETUP, env)  # noqa: S102 (our own master)
    for code in solution:
        exec(code, env)  # noqa: S102
    if extra:
        exec(extra, env)  # noqa: S102
    failures = []
    for i, code in enumerate(tests):
        try:
            exec(code, dict(env))  # noqa: S102
        except Exception as error:  # noqa: BLE001 (a failed test, whatever it raised)
            failures.append(f"test {i}: {type(error).__name__}: {str(error)[:200]}")
    return failures


def _rendered(values: dict) -> dict:
    return assignments.render(MASTER, values, strict=False)


@pytest.mark.parametrize("question, form", CASES, ids=[f"{q}-{f}" for q, f in CASES])
def test_the_reference_answers_every_form(question, form):
    values = _values(question, form)
    solution, tests = _cells(_rendered(values), question)
    assert tests, f"{question} has no tests"
    assert _run(solution, "", tests) == []


@pytest.mark.parametrize("question, form", CASES, ids=[f"{q}-{f}" for q, f in CASES])
def test_an_honest_answer_written_from_the_prompt_scores_full(question, form):
    values = _values(question, form)
    solution, tests = _cells(_rendered(values), question)
    defined = [name for name in VARIANT.honest(values) if any(f"def {name}(" in code for code in solution)]
    assert defined, f"honest() answers nothing of {question}"
    extra = "\n\n\n".join(VARIANT.honest(values)[name] for name in defined)
    assert _run(solution, extra, tests) == []


@pytest.mark.parametrize("question, form", CASES, ids=[f"{q}-{f}" for q, f in CASES])
def test_the_published_solution_fails_every_form(question, form):
    """The master's solution code as published (the canonical form), pasted into this form, loses points."""
    values = _values(question, form)
    published, _ = _cells(_rendered({**values, **VARIANT.canonical()}), question)
    _, tests = _cells(_rendered(values), question)
    if question == "q6":  # the function's name is the form: the published one has another name
        published = [code.replace(f"def {VARIANT.CANONICAL_FORM['q6']}(", f"def {values['q6_name']}(")
                     for code in published]
    assert _run(published, "", tests), f"the published solution answers {question} in the form {form}"


def test_every_form_changes_the_mathematics():
    """No form of q1, q2, q4, q5 keeps the master's mathematics (base e, sums, last-token kernel, last token)."""
    assert all(base != "e" for *_, base in VARIANT.FORMS_Q1)
    assert all(norm == "mean" for _, norm in VARIANT.FORMS_Q2)
    assert all((t, g) != ("last", "sum") for *_, t, g in VARIANT.FORMS_Q4)
    assert all(t != "last" for t, *_ in VARIANT.FORMS_Q5)


def test_forms_summary_and_about_cover_every_code_question():
    questions = set(assignments.master_parts(MASTER)["questions"])
    assert set(VARIANT.FORMS_SUMMARY) == questions
    assert set(VARIANT.ABOUT) == questions
    for q, text in VARIANT.FORMS_SUMMARY.items():
        assert text.startswith(f"{len(FORMS[q])} forms:"), (q, text)
    for q, names in VARIANT.ABOUT.items():
        for dotted in names:
            module, _, attribute = dotted.rpartition(".")
            assert callable(getattr(importlib.import_module(module), attribute)), f"{q}: {dotted}"


def test_honest_answers_define_every_solution_function_with_a_top_level_helper():
    values = assignments.variant_values(NAME, assignments.DEMO_SEED)
    answers = VARIANT.honest(values)
    expected = {"masked_softmax", "masked_linear_attention", "iso_features", "fit", "predict", values["q6_name"]}
    assert set(answers) == expected, set(answers)
    assert "SQRT2 = np.sqrt(2.0)" in answers["iso_features"] and "lambda" in answers["iso_features"]
