"""The course variant of assignment 2: every value the master leaves as ``{{name}}``.

``parameters(rng)`` draws them from the course's secret seed (``scripts/assignments.py`` passes a
generator seeded from it): the data of every question and the *form* of every code question (a
weighted or normalised second moment, the certificate's tolerance or the rank deficiency, the
convention of the logit gap, the layout of the labels, what the single-head learner returns and
how it refuses), never the canonical form the master's solutions are written for
(``CANONICAL_FORM``; ``canonical()`` gives its placeholders). ``library(values)`` is the example
submission that answers every coding question it can by calling attnlib (it must score below half).
"""

import numpy as np

CANONICAL_FORM = {"q1": "plain", "q2": "certified", "q4": "book", "q5": "rows", "q6": ("TW", "raise")}
EPS_RULE = "len(_ev) * np.finfo(float).eps * _ev[-1]"


def _q1(form: str) -> dict:
    words = {"plain": r"the matrix $\Lambda_D=\frac1N\sum_k\phi(X_k)\phi(X_k)^\top$ of chapter 5",
             "weighted": r"the weighted second moment $\Lambda_w=\sum_kw_k\,\phi(X_k)\phi(X_k)^\top/\sum_kw_k$, "
                         r"with positive weights `w` of shape `(N,)`",
             "normalised": r"the second moment $\frac1N\sum_ku_ku_k^\top$ of the *normalised* features "
                           r"$u_k=\phi(X_k)/\|\phi(X_k)\|$"}[form]
    line = {"plain": "",
            "weighted": "Phi = Phi * np.sqrt(len(Phi) * np.asarray(w, dtype=float) / np.sum(w))[:, None]",
            "normalised": "Phi = Phi / np.linalg.norm(Phi, axis=1, keepdims=True)"}[form]
    public = {
        "plain": "from attnlib.checks import check_second_moment\n"
                 "assert _s.check(check_second_moment, second_moment, allow=(\"cubic_features\",))",
        "weighted": "from attnlib.checks import check_second_moment\n"
                    "assert _s.check(check_second_moment, lambda X: second_moment(X, np.ones(len(X))), "
                    "allow=(\"cubic_features\",))",
        "normalised": "_L = _s.call(second_moment, gaussian_inputs(30, 4, 2, rng=5), allow=(\"cubic_features\",))\n"
                      "assert _s.expect_close(np.trace(_L), 1.0, \"the trace of the normalised second moment\")"}[form]
    expected = {"plain": "_expected = _Phi.T @ _Phi / len(_Phi)",
                "weighted": "_expected = (_Phi * _w[:, None]).T @ _Phi / _w.sum()",
                "normalised": "_U = _Phi / np.linalg.norm(_Phi, axis=1, keepdims=True)\n"
                              "_expected = _U.T @ _U / len(_U)"}
    return {"q1_args": "X, w" if form == "weighted" else "X", "q1_words": words, "q1_in": line,
            "q1_public": public, "q1_expected": expected[form], "q1_call": "_X, _w" if form == "weighted" else "_X"}


def _q2(form: str, tol: float) -> dict:
    if form == "deficiency":
        return {"q2_name": "rank_deficiency", "q2_in": "", "q2_out": "int(small.sum())",
                "q2_words": r"the number of eigenvalues of $\Lambda_D$ at most "
                            r"$\psi\,\varepsilon\,\lambda_{\max}$ (with "
                            r"$\varepsilon$ = `np.finfo(float).eps`), as a Python `int`: $\psi$ minus the numerical "
                            r"rank, and 0 exactly when $\Lambda_D$ has full rank",
                "q2_reference": f"int(np.sum(_ev <= {EPS_RULE}))"}
    if form == "tolerance":
        return {"q2_name": "certified", "q2_out": "bool(not small.any())",
                "q2_in": f"small = eigenvalues <= {tol:g} * eigenvalues[-1]      # this variant's tolerance",
                "q2_words": rf"`True` when $\Lambda_D$ has full rank at the tolerance $\tau={tol:g}$: "
                            r"when its smallest "
                            rf"eigenvalue exceeds $\tau\,\lambda_{{\max}}$",
                "q2_reference": f"bool(_ev[0] > {tol:g} * _ev[-1])"}
    return {"q2_name": "certified", "q2_in": "", "q2_out": "bool(not small.any())",
            "q2_words": r"`True` when $\Lambda_D$ has full rank, that is when its smallest eigenvalue exceeds "
                        r"$\psi\,\varepsilon\,\lambda_{\max}$ (with $\varepsilon$ = `np.finfo(float).eps`)",
            "q2_reference": f"bool(_ev[0] > {EPS_RULE})"}


def _q4(form: str) -> dict:
    words = {"book": r"$\log(A[a,b]/A[a,c])=x_a^\top\Theta(x_b-x_c)=\langle\Theta, Z\rangle$",
             "keys first": r"with the logits written key first, $A[a,b]\propto\exp(x_b^\top\Theta x_a)$ (the transpose "
                           r"of the book's $\Theta$), "
                           r"$\log(A[a,b]/A[a,c])=(x_b-x_c)^\top\Theta x_a=\langle\Theta, Z\rangle$",
             "reversed": r"$\log(A[a,c]/A[a,b])=\langle\Theta, Z\rangle$ (note the order: key $c$ over key $b$)"}[form]
    out = {"book": "Z", "keys first": "Z.T", "reversed": "-Z"}[form]
    Z = np.outer([1.0, -1.0], np.array([1.0, 1.0]) - np.array([-1.0, 1.0]))
    Z = {"book": Z, "keys first": Z.T, "reversed": -Z}[form]
    return {"q4_words": words, "q4_out": out, "q4_example": repr(Z.tolist()),
            "q4_theta": "_head.Theta[0].T" if form == "keys first" else "_head.Theta[0]",
            "q4_gap": "np.log(_A[1, 2] / _A[1, 0])" if form == "reversed" else "np.log(_A[1, 0] / _A[1, 2])"}


def _q5(form: str) -> dict:
    words = {"rows": "`X` has shape `(N, n, d)` and the labels `Y` = $F(X)$ shape `(N, n, d)`.",
             "last": "`X` has shape `(N, n, d)`; the labels `Y` hold only the output at the *last* token, shape "
                     "`(N, d)`.",
             "columns": "`X` and the labels `Y` = $F(X)$ come in Yau et al.'s layout, **tokens as columns**: shape "
                        "`(N, d, n)`, the transpose of the book's."}[form]
    line = {"rows": "", "last": "Y = np.asarray(Y)[:, None, :]                         # as the canonical form: rows",
            "columns": "X, Y = np.swapaxes(X, 1, 2), np.swapaxes(Y, 1, 2)    # as the canonical form: tokens as rows"}
    args = {"rows": "_X, _Y", "last": "_X, _Y[:, -1]", "columns": "_X.swapaxes(1, 2), _Y.swapaxes(1, 2)"}
    return {"q5_words": words, "q5_in": line[form], "q5_args": args[form]}


def _q6(order: str, failure: str) -> dict:
    fails = {"raise": "(lambda X, Y: _s.raises(ValueError, learn_single_head, X, Y))",
             "none": "(lambda X, Y: _s.call(learn_single_head, X, Y) is None)"}
    return {"q6_return": "Theta, W" if order == "TW" else "W, Theta",
            "q6_return_words": "the pair `(Theta, W)`" if order == "TW" else "the pair `(W, Theta)` (in that order)",
            "q6_unpack": "" if order == "TW" else "(lambda _pair: _pair[::-1])",
            "q6_fail": ("raise ValueError(why)" if failure == "raise"
                        else "return None  # this variant refuses with None"),
            "q6_fail_words": "(raises `ValueError`, saying which condition failed)" if failure == "raise"
            else "(returns `None`)",
            "q6_fails": fails[failure]}


def _sharp_head(rng, seed) -> dict:
    """A sharp head whose keys of tiny weight break a fixed pivot, while the largest-weight pivot works."""
    import warnings

    from attnlib import attention, boolean_inputs, random_heads
    from attnlib.sculpt import learn_single_head

    while True:
        scale, s1, s2 = float(rng.choice([10.0, 12.0])), seed(), seed()
        head, X = random_heads(1, 4, scale=scale, rng=s1), boolean_inputs(150, 3, 4, rng=s2)
        Y = attention(X, head)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                good = np.abs(learn_single_head(X, Y).Theta[0] - head.Theta[0]).max() < 1e-4
            except Exception:
                good = False
            keep = np.linalg.matrix_rank(X) == 3
            Xk, Yk = X[keep], Y[keep]
            P = np.linalg.solve(Xk @ Xk.swapaxes(1, 2), Xk).swapaxes(1, 2)
            rows = np.einsum("kap,kr->kapr", Yk, P.sum(axis=2)).reshape(-1, 16)
            V = np.linalg.lstsq(rows, np.ones(len(rows)), rcond=None)[0].reshape(4, 4)
            A = Yk @ V @ P
            gaps = np.log(A[:, :, 1:]) - np.log(A[:, :, :1])   # the first key as a fixed pivot
            Z = np.einsum("kaj,kbl->kabjl", Xk, Xk[:, 1:] - Xk[:, :1]).reshape(-1, 16)
            finite = np.all(np.isfinite(gaps))
            fixed = np.linalg.lstsq(Z, gaps.ravel(), rcond=None)[0] if finite else None
        broken = fixed is None or np.abs(fixed.reshape(4, 4) - head.Theta[0]).max() > 1e-2
        if good and broken:
            return {"scale_q6": scale, "seed_q6": s1, "seed_q6b": s2}


def _certificate_cases(rng, seed, form: str, tol: float) -> dict:
    """Data for the public tests of q2, and a nearly flat data set far from every threshold."""
    from attnlib import boolean_inputs, gaussian_inputs
    from attnlib.rkhs import cubic_features

    def answer(X):
        Phi = cubic_features(X)
        ev = np.linalg.eigvalsh(Phi.T @ Phi / len(Phi))
        return eval(_q2(form, tol)["q2_reference"], {"np": np, "_ev": ev})  # noqa: S307 (our own table)

    while True:
        thin, s = float(10 ** rng.uniform(-2.3, -1.3)), seed()
        B = np.linalg.qr(np.random.default_rng(s).normal(size=(3, 3)))[0]
        X = gaussian_inputs(150, 6, 3, rng=s) * np.array([1.0, 1.0, thin]) @ B.T
        Phi = cubic_features(X)
        ev = np.linalg.eigvalsh(Phi.T @ Phi / len(Phi))
        ratio, eps_rule = ev[0] / ev[-1], len(ev) * np.finfo(float).eps
        # full rank by the book's rule, far from it; and, for a tolerance, far below that tolerance
        between = 100 * eps_rule < ratio < tol / 100
        if between or (form == "deficiency" and ratio > 100 * eps_rule):
            return {"seed_q2e": s, "q2_thin": thin, "q2_public_gauss": repr(answer(gaussian_inputs(200, 5, 2, rng=3))),
                    "q2_public_signs": repr(answer(boolean_inputs(200, 5, 2, rng=4)))}


def parameters(rng: np.random.Generator) -> dict:
    seed = lambda: int(rng.integers(1000, 10**6))  # noqa: E731
    p = {name: seed() for name in ("seed_q1", "seed_q1b", "seed_q2", "seed_q2b", "seed_q2c", "seed_q2d",
                                   "seed_q4", "seed_q4b", "seed_q5", "seed_q5b", "seed_q5c", "seed_q5d",
                                   "seed_q6c", "seed_q6d", "seed_q6e", "seed_q6f", "seed_q6g", "seed_q6h")}
    p["N_q1"], p["shift_q1"] = int(rng.integers(30, 80)), round(float(rng.uniform(0.5, 2.0)), 2)
    p["N_q2"], p["d_q2"] = int(rng.integers(500, 2000)), int(rng.integers(2, 4))
    p["few_q2"] = int(rng.integers(5, 17))
    p["d_q4"] = int(rng.integers(3, 6))
    p["m_q5"], p["d_q5"], p["N_q5"] = int(rng.integers(2, 4)), int(rng.integers(2, 5)), int(rng.integers(500, 800))
    p["d_q6"], p["n_q6"] = int(rng.integers(5, 7)), int(rng.integers(3, 5))

    pick = lambda options: options[int(rng.integers(len(options)))]  # noqa: E731
    p.update(_q1(pick(["weighted", "normalised"])))
    q2, tol = pick(["tolerance", "deficiency"]), float(rng.choice([1e-8, 1e-9]))
    p.update(_q2(q2, tol))
    p.update(_certificate_cases(rng, seed, q2, tol))
    p.update(_q4(pick(["keys first", "reversed"])))
    p.update(_q5(pick(["last", "columns"])))
    p.update(_q6(*pick([("WT", "raise"), ("TW", "none"), ("WT", "none")])))
    p.update(_sharp_head(rng, seed))
    return p


def canonical() -> dict:
    """The form placeholders of the canonical form: the master's solutions as published."""
    return {**_q1("plain"), **_q2("certified", 0.0), **_q4("book"), **_q5("rows"), **_q6("TW", "raise")}


def library(v: dict) -> dict:
    """Answers that call attnlib's own implementation (in this variant's form)."""
    name = v["q2_name"]
    answer = "int(cert.psi - cert.rank)" if name == "rank_deficiency" else "bool(cert.identifiable)"
    return {
        "second_moment": f'''def second_moment({v["q1_args"]}):
    from attnlib.rkhs import certificate
    Phi = cubic_features(X)
    {v["q1_in"] or "pass"}
    return certificate(X).lam_max * 0 + Phi.T @ Phi / len(Phi)''',
        name: f'''def {name}(X):
    from attnlib.rkhs import certificate
    cert = certificate(X)
    return {answer}''',
        "sum_W_from_constant": f'''def sum_W_from_constant(X, Y):
    from attnlib import sculpt
    {v["q5_in"] or "pass"}
    return sculpt.constant_sum_W(X, Y)''',
        "learn_single_head": f'''def learn_single_head(X, Y):
    from attnlib import sculpt
    heads = sculpt.learn_single_head(X, Y)
    Theta, W = heads.Theta[0], heads.W[0]
    return {v["q6_return"]}''',
    }
