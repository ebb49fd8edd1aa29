"""Assignment 2's forms: the master's solutions (with the variant's reduction lines) and the honest answers
of ``variant.honest`` answer every form, checked against the mathematics each prompt states.

The oracles below are written from the prompts (softmax computed here, labels built from the stated
model, rank deficiencies known from chapter 5's count), not from the master's solutions.
"""

import importlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import assignment_examples  # noqa: E402
import assignment_variants as av  # noqa: E402

from attnlib import attention, boolean_inputs, gaussian_inputs, random_heads  # noqa: E402
from attnlib.rkhs import cubic_features  # noqa: E402

NAME = "a2_certificates_and_sculpting"
MODULE = av.variant_module(NAME)
MASTER = json.loads((av.MASTERS / NAME / f"{NAME}.ipynb").read_text())
DEMO = av.variant_values(NAME, av.DEMO_SEED)
SEEDS = [av.DEMO_SEED, "course one", "course two", "course three", "course four", "course five"]
PRELUDE = ("import numpy as np\nfrom attnlib import attention, attention_weights, boolean_inputs, "
           "gaussian_inputs, random_heads\nfrom attnlib.rkhs import cubic_features\n")
MAKERS = {"q1": MODULE._q1, "q2": MODULE._q2, "q4": MODULE._q4, "q5": MODULE._q5, "q6": MODULE._q6}
FORMS = {"q1": [("weighted",), ("normalised",), ("centred",)],
         "q2": [("tolerance", 1e-8), ("tolerance", 1e-9), ("deficiency", 0.0), ("singular", 1e-4),
                ("singular", 3e-5)],
         "q4": [("keys first",), ("reversed",), ("scaled",), ("bits",)],
         "q5": [("last",), ("residual",), ("bias",)],
         "q6": [(o, f, c) for o in ("TW", "WT") for f in ("raise", "none")
                for c in ("keys first", "scaled", "base 2", "residual")]}


def master_functions(values: dict) -> dict:
    """The master's solution cells rendered for ``values``, run: name -> function."""
    nb = av.render(MASTER, {**values, "wheel": "w.whl", "attnlib_version": "0", "python_version": "3",
                            "variant": "x", "duration": "", "test_seconds": "1", "cell_seconds": "1"}, strict=False)
    space = {}
    exec(PRELUDE, space)  # noqa: S102 (the repository's own master)
    for source in assignment_examples.solution_cells(nb):
        exec(source, space)  # noqa: S102
    return space


def honest_functions(values: dict) -> dict:
    space = master_functions(values)        # w_inverse, given in the set-up, stays
    for source in MODULE.honest(values).values():
        exec(source, space)  # noqa: S102
    return space


# --- oracles, from the prompts ------------------------------------------------------------------


def softmax_rows(logits):
    e = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def check_q1(form, space):
    X = gaussian_inputs(40, 4, 3, rng=21) + 1.3
    w = np.random.default_rng(22).uniform(0.1, 2.0, size=40)
    Phi = cubic_features(X)
    if form == "weighted":
        expected = sum(wk * np.outer(p, p) for wk, p in zip(w, Phi, strict=True)) / w.sum()
        got = space["second_moment"](X, w)
    else:
        if form == "normalised":
            rows = [p / np.sqrt(p @ p) for p in Phi]
        else:
            rows = [p - Phi.mean(axis=0) for p in Phi]
        expected = sum(np.outer(r, r) for r in rows) / len(rows)
        got = space["second_moment"](X)
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-8)


def flattened(thin, seed):
    B = np.linalg.qr(np.random.default_rng(seed).normal(size=(3, 3)))[0]
    X = gaussian_inputs(150, 6, 3, rng=seed) * np.array([1.0, 1.0, thin]) @ B.T
    sigma = np.linalg.svd(cubic_features(X), compute_uv=False)
    return X, (sigma[-1] / sigma[0]) ** 2          # lambda_min / lambda_max


def q2_cases(tol_lambda):
    """(X, rank deficiency, lambda_min / lambda_max clearly above tol_lambda): from chapter 5's count."""
    thin, ratio = flattened(0.01, 6)
    assert 1e-13 < ratio < 1e-11          # full rank by the eps rule, not at any of the variants' tolerances
    cases = [(gaussian_inputs(200, 5, 2, rng=3), 0, True), (boolean_inputs(300, 5, 2, rng=4), 2, False),
             (gaussian_inputs(10, 5, 3, rng=7), 18 - 10, False), (1e-3 * gaussian_inputs(100, 6, 3, rng=8), 0, True),
             (thin, 0, ratio > tol_lambda)]
    for width in (0.05, 0.08, 0.12, 0.15):  # ratios about 1e-9 to 1e-6: between t^2 and t for the singular forms
        X, ratio = flattened(width, 6)
        assert min(abs(np.log10(ratio / t)) for t in (1e-8, 1e-9, 9e-10)) > 0.3, ratio   # far from every threshold
        cases.append((X, 0, ratio > tol_lambda))
    return cases


def check_q2(form, tol, space):
    name = "rank_deficiency" if form == "deficiency" else "certified"
    tol_lambda = {"tolerance": tol, "singular": tol ** 2}.get(form, 0.0)
    for X, deficiency, clear in q2_cases(tol_lambda):
        got = space[name](X)
        if form == "deficiency":
            assert isinstance(got, (int, np.integer)) and int(got) == deficiency, (got, deficiency)
        else:
            assert isinstance(got, (bool, np.bool_)) and bool(got) == (deficiency == 0 and clear), (got, X.shape)


def check_q4(form, space):
    rng = np.random.default_rng(31)
    for d in (2, 3, 5):
        Theta = rng.normal(scale=2.0, size=(d, d))
        x = rng.choice([-1.0, 1.0], size=(3, d))
        logits = {"keys first": x @ Theta.T @ x.T, "scaled": x @ Theta @ x.T / np.sqrt(d)}.get(form, x @ Theta @ x.T)
        A = softmax_rows(logits)
        gap = {"reversed": np.log(A[0, 2] / A[0, 1]), "bits": np.log2(A[0, 1] / A[0, 2])}.get(
            form, np.log(A[0, 1] / A[0, 2]))
        Z = np.asarray(space["gap_feature"](x[0], x[1], x[2]))
        assert Z.shape == (d, d)
        assert np.isclose(gap, np.sum(Theta * Z), rtol=1e-5, atol=1e-8), (form, d)


def check_q5(form, space):
    for m, n, d, N, seed in ((2, 2, 3, 600, 1), (3, 3, 3, 3000, 2), (2, 2, 4, 800, 3)):
        layer = random_heads(m, d, scale=3.0, rng=seed)
        X = boolean_inputs(N, n, d, rng=seed + 10)
        F = attention(X, layer)
        b = np.random.default_rng(seed).normal(size=d)
        Y = {"last": F[:, -1], "residual": X + F, "bias": F + b}[form]
        np.testing.assert_allclose(space["sum_W_from_constant"](X, Y), layer.W.sum(axis=0), rtol=1e-6, atol=1e-8)


def check_q6(order, failure, convention, space, sharp):
    def labels(X, heads):
        return X + attention(X, heads) if convention == "residual" else attention(X, heads)

    def theta_of(lib):   # the question's Theta, for the library's head (logits x_a^T lib x_b)
        d = len(lib)
        return {"keys first": lib.T, "scaled": np.sqrt(d) * lib, "base 2": lib / np.log(2.0)}.get(convention, lib)

    def learn(X, Y):
        out = space["learn_single_head"](X, Y)
        assert isinstance(out, (tuple, list)) and len(out) == 2
        return tuple(out) if order == "TW" else tuple(out[::-1])

    def refused(X, Y):
        if failure == "raise":
            with pytest.raises(ValueError):
                space["learn_single_head"](X, Y)
            return True
        return space["learn_single_head"](X, Y) is None

    cases = [(random_heads(1, 4, scale=2.0, rng=13), boolean_inputs(100, 3, 4, rng=14), 1e-6),
             (random_heads(1, 5, scale=3.0, rng=15), boolean_inputs(200, 4, 5, rng=16), 1e-6),
             (random_heads(1, 4, scale=sharp["scale_q6"], rng=sharp["seed_q6"]),
              boolean_inputs(150, 3, 4, rng=sharp["seed_q6b"]), 1e-3)]
    for head, X, atol in cases:
        Theta, W = learn(X, labels(X, head))
        np.testing.assert_allclose(Theta, theta_of(head.Theta[0]), atol=atol, rtol=1e-6)
        np.testing.assert_allclose(W, head.W[0], atol=1e-6, rtol=1e-6)
    X = boolean_inputs(200, 3, 5, rng=17)
    assert refused(X, labels(X, random_heads(2, 5, scale=3.0, rng=18))), "two heads must be refused"
    X[:, :, 4] = 1.0
    assert refused(X, labels(X, random_heads(1, 5, scale=2.0, rng=19))), "Theta undetermined must be refused"


def check(question, form, space, values):
    if question == "q6":
        check_q6(*form, space, values)
    else:
        {"q1": check_q1, "q2": check_q2, "q4": check_q4, "q5": check_q5}[question](*form, space)


# --- the tests ----------------------------------------------------------------------------------


@pytest.mark.parametrize("question,form", [(q, f) for q, forms in FORMS.items() for f in forms],
                         ids=[f"{q}-{'-'.join(map(str, f))}" for q, forms in FORMS.items() for f in forms])
def test_the_master_with_the_reduction_lines_answers_every_form(question, form):
    values = {**DEMO, **MAKERS[question](*form)}
    check(question, form, master_functions(values), values)


@pytest.mark.parametrize("question,form", [(q, f) for q, forms in FORMS.items() for f in forms],
                         ids=[f"{q}-{'-'.join(map(str, f))}" for q, forms in FORMS.items() for f in forms])
def test_the_honest_answer_answers_every_form(question, form):
    values = {**DEMO, **MAKERS[question](*form)}
    check(question, form, honest_functions(values), values)


@pytest.mark.parametrize("question,form", [(q, f) for q, forms in FORMS.items() for f in forms],
                         ids=[f"{q}-{'-'.join(map(str, f))}" for q, forms in FORMS.items() for f in forms])
def test_the_library_example_is_right_but_for_the_guard(question, form):
    """The "library" example must be worth full marks without the guard, or its zero proves nothing."""
    values = {**DEMO, **MAKERS[question](*form)}
    space = master_functions(values)
    for source in MODULE.library(values).values():
        exec(source, space)  # noqa: S102
    check(question, form, space, values)


@pytest.mark.parametrize("seed", SEEDS)
def test_the_honest_answers_answer_their_variant(seed):
    values = av.variant_values(NAME, seed)
    space = honest_functions(values)
    for question in FORMS:
        check(question, MODULE._form_of(question, values), space, values)


def test_the_canonical_form_fails_the_oracles_of_other_forms():
    """The oracles can fail: the published solutions, unchanged, miss every other form of q4, q5 and q6."""
    canonical = {**DEMO, **MODULE.canonical()}
    space = master_functions(canonical)
    for question in ("q1", "q4", "q5", "q6"):
        for form in FORMS[question]:
            if question == "q6" and form[:2] != ("TW", "raise"):
                continue                        # another order or refusal fails for a reason of its own
            with pytest.raises((AssertionError, TypeError, ValueError)):
                check(question, form, space, {**DEMO, **MAKERS[question](*form)})


def test_every_variant_changes_the_mathematics_of_q5_and_q6():
    for seed in SEEDS:
        values = av.variant_values(NAME, seed)
        assert MODULE._form_of("q5", values)[0] in ("last", "residual", "bias")
        assert MODULE._form_of("q6", values)[2] != "book"


def test_about_names_resolve_and_summary_covers_the_code_questions():
    questions = set(av.master_parts(MASTER)["questions"])
    assert set(MODULE.ABOUT) == questions and set(MODULE.FORMS_SUMMARY) == questions
    for names in MODULE.ABOUT.values():
        for dotted in names:
            module, attr = dotted.rsplit(".", 1)
            assert callable(getattr(importlib.import_module(module), attr)), dotted


def test_honest_answers_define_what_the_solution_cells_define():
    for seed in SEEDS[:3]:
        values = av.variant_values(NAME, seed)
        nb = av.render(MASTER, {**values, **av.fixed_values(MASTER, "attnlib-0-py3-none-any.whl", seed)})
        assert set(MODULE.honest(values)) == set(assignment_examples.solution_functions(nb))

