"""Assignment 3's forms, run in plain Python (no otter): the master's solution, turned into each form by the
variant's lines, passes that form's tests; so do the variant's honest answers, written from the prompts
alone; and the solution as published (the canonical form) fails every form a variant can ask.

The tests of a question are the master's own test cells, rendered for the form, and they compare with
independent computations (attnlib's attention weights and spectra, the noise operator's matrix, the
instance's hidden set), so a form whose lines or prompt drifted from its tests fails here.
"""

import ast
import importlib
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
for folder in (ROOT / "scripts", ROOT / "assignments" / "_support"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))

import assignment_variants as av  # noqa: E402

NAME = "a3_lower_bounds"
MASTER = json.loads((av.MASTERS / NAME / f"{NAME}.ipynb").read_text())
VARIANT = av.variant_module(NAME)
#: The values every master uses besides its variant's (the build's; their text does not matter here).
EXTRA = {k: "" for k in ("python_version", "wheel", "attnlib_version", "test_seconds", "cell_seconds", "duration",
                         "variant")}
SEEDS = (av.DEMO_SEED, "a course seed of some length", "another course's seed, long enough")


def _values(seed: str = av.DEMO_SEED, q: str | None = None, form=None) -> dict:
    """The values of a seed's variant, with question ``q`` asked in ``form`` instead of the drawn one."""
    v = av.variant_values(NAME, seed)
    if q == "q1":
        v.update(VARIANT._q1(*form))
    elif q == "q2":
        v.update(VARIANT._q2(*form))
        v["S_q2"] = (1, 2)  # contains neither read-out coordinate
    elif q == "q3":
        v.update(VARIANT._q3(form))
    elif q == "q4":
        answers = {k: repr(VARIANT._q4_value(form, v[f"d_q4{b}"], v[f"S_q4{b}"], v[f"betas_q4{b}"],
                                             v[f"q4_digits{'_b' if b else ''}"]))
                   for k, b in (("q4_answer", ""), ("q4_answer_b", "b"))}
        v.update({"q4_name": form, "q4_words": VARIANT.Q4[form][0], "q4_out": VARIANT.Q4[form][1], **answers})
    elif q == "q6":
        v.update(VARIANT._q6(*form))
        v["q6_public"] = VARIANT._q6_public(v)
    return v


def _cells(nb: dict) -> list[tuple[str | None, str, str]]:
    """(question, "solution" | "test" | "setup", source) of every code cell that the tests need."""
    out, block, question = [], [], None
    for cell in nb["cells"]:
        marker = av._raw_marker(cell)
        if marker:
            kind, what = marker.split()
            if kind == "BEGIN":
                block.append(what)
                if what == "QUESTION":
                    question = av._source(cell).split("name:")[1].split()[0]
            else:
                block.pop()
            continue
        source = av._source(cell)
        if cell["cell_type"] != "code":
            continue
        if "SOLUTION" in block:
            out.append((question, "solution", source))
        elif "TESTS" in block:
            out.append((question, "test", source))
        elif source.startswith("import numpy as np"):
            out.append((None, "setup", source))
    return out


def _outcomes(values: dict, answers: dict[str, str] | None = None, published: bool = False) -> dict:
    """question -> list of (passed, message) of its test cells, the solution cells run first.

    ``answers`` (function name -> source) replaces the solution's definitions; ``published`` runs the
    solution cells of the canonical form (the master as published) against this variant's tests.
    """
    asked = av.render(MASTER, {**values, **EXTRA})
    solution_nb = av.render(MASTER, {**values, **EXTRA, **VARIANT.canonical()}, strict=False) if published else asked
    namespace: dict = {}
    solutions = [s for q, k, s in _cells(solution_nb) if k in ("setup", "solution")]
    for source in solutions:
        exec(compile(source, "<solution>", "exec"), namespace)  # noqa: S102 (the master's own code)
    for source in (answers or {}).values():
        exec(compile(source, "<answer>", "exec"), namespace)  # noqa: S102 (the variant's own answers)
    results: dict = {}
    for q, kind, source in _cells(asked):
        if kind != "test":
            continue
        try:
            exec(compile(source, f"<test of {q}>", "exec"), dict(namespace))  # noqa: S102
            results.setdefault(q, []).append((True, ""))
        except Exception as err:  # noqa: BLE001 (a failed test, whatever it raised)
            results.setdefault(q, []).append((False, f"{type(err).__name__}: {err}"))
    return results


CASES = [(q, form) for q, forms in VARIANT.FORMS.items() for form in forms]


def test_forms_summary_and_about_cover_every_code_question():
    autograded = set(av.master_parts(MASTER)["questions"])
    assert set(VARIANT.FORMS) == set(VARIANT.FORMS_SUMMARY) == set(VARIANT.ABOUT) == autograded
    for q, forms in VARIANT.FORMS.items():
        assert VARIANT.FORMS_SUMMARY[q].startswith(f"{len(forms)} forms:"), (q, len(forms))
        assert VARIANT.CANONICAL_FORM[q] not in forms, f"{q} can ask the published form"
        assert len(set(forms)) == len(forms)


def test_about_names_resolve_to_attnlib_functions():
    for q, names in VARIANT.ABOUT.items():
        for dotted in names:
            parts = dotted.split(".")
            for cut in range(len(parts), 0, -1):  # the longest importable prefix, then attributes
                try:
                    obj = importlib.import_module(".".join(parts[:cut]))
                    break
                except ModuleNotFoundError:
                    continue
            for attr in parts[cut:]:
                obj = getattr(obj, attr)
            assert parts[0] == "attnlib" and callable(obj), (q, dotted)


@pytest.mark.parametrize(("q", "form"), CASES, ids=[f"{q}-{f}" for q, f in CASES])
def test_every_form_is_answered_by_the_reference_and_by_the_honest_answers(q, form):
    values = _values(q=q, form=form)
    for answers in (None, VARIANT.honest(values)):
        got = _outcomes(values, answers)[q]
        assert all(ok for ok, _ in got), (q, form, "honest" if answers else "reference", got)


@pytest.mark.parametrize(("q", "form"), CASES, ids=[f"{q}-{f}" for q, f in CASES])
def test_the_published_solution_fails_every_form(q, form):
    got = _outcomes(_values(q=q, form=form), published=True)[q]
    assert not all(ok for ok, _ in got), f"the published solution answers {q} in the form {form}"


@pytest.mark.parametrize("seed", SEEDS)
def test_honest_answers_score_full_on_drawn_variants(seed):
    values = _values(seed)
    got = _outcomes(values, VARIANT.honest(values))
    assert all(ok for results in got.values() for ok, _ in results), got


def test_honest_answers_are_written_independently_and_as_students_write():
    values = _values()
    answers = VARIANT.honest(values)
    published = av.render(MASTER, {**values, **EXTRA, **VARIANT.canonical()}, strict=False)
    master_lines = av.master_parts(published)["code_solution_lines"]
    shared = {line.strip() for text in answers.values() for line in text.splitlines()
              if len(line.split()) > 1} & master_lines  # not a lone `continue`
    assert not shared, f"honest answers repeat the master's solution lines: {shared}"
    text = "\n".join(answers.values())
    trees = [ast.parse(source) for source in answers.values()]
    top = [node for tree in trees for node in tree.body]
    assert any(isinstance(n, ast.Assign) and isinstance(n.value, ast.Lambda) for n in top), "a top-level lambda"
    assert any(isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) for n in top), "a computed constant"
    assert "from scipy" in text and "float32" in text and "return [" in text
    solution_defs = {node.name for _, kind, source in _cells(published) if kind == "solution"
                     for node in ast.parse(source).body if isinstance(node, ast.FunctionDef)}
    assert set(answers) == {values["q4_name"] if name == "linear_weight" else name for name in solution_defs}


def test_a_wrong_form_line_is_caught():
    """The tests can fail: the master's solution with another form's line fails this form's tests."""
    values = _values(q="q1", form=("difference", 0, "Nm"))
    values["q1_in"] = VARIANT._q1("other", 0, "Nm")["q1_in"]
    assert not all(ok for ok, _ in _outcomes(values)["q1"])
    values = _values(q="q3", form="noisy_half")
    values["q3_out"] = VARIANT._q3("noisy_four_fifths")["q3_out"]
    assert not all(ok for ok, _ in _outcomes(values)["q3"])
    values = _values(q="q6", form=("d - 1", "tuple", 2))
    values["q6_in"] = ""
    assert not all(ok for ok, _ in _outcomes(values)["q6"])


@pytest.mark.parametrize(("q", "form"), CASES, ids=[f"{q}-{f}" for q, f in CASES])
def test_the_library_example_parses_in_every_form(q, form):
    """``library(v)`` is pasted into the example class: a form's lines must land inside the function."""
    for name, source in VARIANT.library(_values(q=q, form=form)).items():
        tree = ast.parse(source)
        assert [type(node) for node in tree.body] == [ast.FunctionDef] and tree.body[0].name == name, source


@pytest.mark.parametrize(("q", "form"), CASES, ids=[f"{q}-{f}" for q, f in CASES])
def test_no_hidden_line_is_in_what_students_see(q, form):
    """The build's leak check looks for every hidden test line in the student version's text (prompts and
    public tests): in no form may a hidden line be part of what the student sees."""
    nb = av.render(MASTER, {**_values(q=q, form=form), **EXTRA})
    hidden = av.master_parts(nb)["hidden_lines"]
    seen = []
    for cell in nb["cells"]:
        text = av._source(cell)
        if cell["cell_type"] == "markdown" or (cell["cell_type"] == "code" and not text.startswith("# HIDDEN")):
            seen.append(text)
    text = "\n".join(seen)
    assert not [line for line in hidden if line in text]
