"""The course variant of assignment 2: every value the master leaves as ``{{name}}``.

``parameters(rng)`` draws them from the course's secret seed (``scripts/assignments.py`` passes a
generator seeded from it): the data of every question and the *form* of every code question, never
the canonical form the master's solutions are written for (``CANONICAL_FORM``; ``canonical()``
gives its placeholders). The forms change the mathematics, so that going from the published
solution to the variant's answer is itself the exercise (``FORMS_SUMMARY`` says what differs):
another target quantity (q1), a tolerance on singular values rather than eigenvalues (q2), scaled
logits or a gap in bits (q4), residual or biased labels (q5), another logit convention or a
residual connection around the head (q6). The ``*_in`` / ``*_out`` lines that turn the master's
solution into the variant's are public: copying is detected (``ABOUT`` names the library functions
a submission is compared with), not prevented.

``library(values)`` is the example submission that answers every coding question by calling
attnlib, right in the variant's form, so that only the library guard stops it; ``honest(values)``
is one written independently from the prompts (loops, scipy, float32 where exact, a list for the
pair, top-level helpers), which must score full marks.
"""

import numpy as np

CANONICAL_FORM = {"q1": "plain", "q2": "certified", "q4": "book", "q5": "rows", "q6": ("TW", "raise", "book")}
EPS_RULE = "len(_ev) * np.finfo(float).eps * _ev[-1]"


def _q1(form: str) -> dict:
    words = {"plain": r"the matrix $\Lambda_D=\frac1N\sum_k\phi(X_k)\phi(X_k)^\top$ of chapter 5, an *uncentred* "
                      r"second moment",
             "weighted": r"the weighted (uncentred) second moment "
                         r"$\Lambda_w=\sum_kw_k\,\phi(X_k)\phi(X_k)^\top/\sum_kw_k$, "
                         r"with positive weights `w` of shape `(N,)`",
             "normalised": r"the (uncentred) second moment $\frac1N\sum_ku_ku_k^\top$ of the *normalised* features "
                           r"$u_k=\phi(X_k)/\|\phi(X_k)\|$",
             "centred": r"the *centred* covariance "
                        r"$\Sigma_D=\frac1N\sum_k(\phi(X_k)-\bar\phi)(\phi(X_k)-\bar\phi)^\top$ "
                        r"with $\bar\phi=\frac1N\sum_k\phi(X_k)$ (divided by $N$, not $N-1$)"}[form]
    line = {"plain": "",
            "weighted": "Phi = Phi * np.sqrt(len(Phi) * np.asarray(w, dtype=float) / np.sum(w))[:, None]",
            "normalised": "Phi = Phi / np.linalg.norm(Phi, axis=1, keepdims=True)",
            "centred": "Phi = Phi - Phi.mean(axis=0)"}[form]
    public = {
        "plain": "from attnlib.checks import check_second_moment\n"
                 "assert _s.check(check_second_moment, second_moment, allow=(\"cubic_features\",))",
        "weighted": "from attnlib.checks import check_second_moment\n"
                    "assert _s.check(check_second_moment, lambda X: second_moment(X, np.ones(len(X))), "
                    "allow=(\"cubic_features\",))",
        "normalised": "_L = _s.call(second_moment, gaussian_inputs(30, 4, 2, rng=5), allow=(\"cubic_features\",))\n"
                      "assert _s.expect_close(np.trace(_L), 1.0, \"the trace of the normalised second moment\")",
        "centred": "_L = _s.call(second_moment, np.repeat(gaussian_inputs(1, 4, 2, rng=5), 6, axis=0), "
                   "allow=(\"cubic_features\",))\n"
                   "assert _s.expect_close(_L, np.zeros((6, 6)), \"six copies of one sequence (no spread)\")"}[form]
    expected = {"plain": "_expected = _Phi.T @ _Phi / len(_Phi)",
                "weighted": "_expected = (_Phi * _w[:, None]).T @ _Phi / _w.sum()",
                "normalised": "_U = _Phi / np.linalg.norm(_Phi, axis=1, keepdims=True)\n"
                              "_expected = _U.T @ _U / len(_U)",
                "centred": "_C = _Phi - _Phi.mean(axis=0)\n"
                           "_expected = _C.T @ _C / len(_C)"}
    return {"q1_args": "X, w" if form == "weighted" else "X", "q1_words": words, "q1_in": line,
            "q1_public": public, "q1_expected": expected[form], "q1_call": "_X, _w" if form == "weighted" else "_X"}


def _lam_tol(form: str, tol: float) -> float:
    """The tolerance on lambda_min / lambda_max that a form's rule amounts to (singular values: its square)."""
    return float(f"{tol * tol:g}") if form == "singular" else tol


def _tex(x: float) -> str:
    r"""A tolerance as the prompts write it: 1e-08 as 10^{-8}, 3e-05 as 3\cdot10^{-5}."""
    mantissa, exponent = f"{x:e}".split("e")
    head = f"{float(mantissa):g}"
    power = "10^{" + str(int(exponent)) + "}"
    return power if head == "1" else head + r"\cdot" + power


def _q2(form: str, tol: float) -> dict:
    if form == "deficiency":
        return {"q2_name": "rank_deficiency", "q2_in": "", "q2_out": "int(small.sum())",
                "q2_words": r"the number of eigenvalues of $\Lambda_D$ at most "
                            r"$\psi\,\varepsilon\,\lambda_{\max}$ (with "
                            r"$\varepsilon$ = `np.finfo(float).eps`), as a Python `int`: $\psi$ minus the numerical "
                            r"rank, and 0 exactly when $\Lambda_D$ has full rank",
                "q2_reference": f"int(np.sum(_ev <= {EPS_RULE}))"}
    if form in ("tolerance", "singular"):
        lam = _lam_tol(form, tol)
        words = (rf"`True` when $\Lambda_D$ has full rank at the tolerance $\tau={_tex(tol)}$: when its smallest "
                 rf"eigenvalue exceeds $\tau\,\lambda_{{\max}}$" if form == "tolerance" else
                 rf"`True` when the $N\times\psi$ matrix $\Phi$ of the features (one row $\phi(X_k)^\top$ per "
                 rf"sequence, so $\Lambda_D=\Phi^\top\Phi/N$) has full column rank at the tolerance $t={_tex(tol)}$ on "
                 rf"its singular values: when the smallest of its $\psi$ singular values (zero when $N<\psi$) "
                 rf"exceeds $t$ times the largest")
        why = "this variant's tolerance" if form == "tolerance" else "sigma_min > t sigma_max: lambda = sigma^2 / N"
        return {"q2_name": "certified", "q2_out": "bool(not small.any())",
                "q2_in": f"small = eigenvalues <= {lam:g} * eigenvalues[-1]      # {why}",
                "q2_words": words, "q2_reference": f"bool(_ev[0] > {lam:g} * _ev[-1])"}
    return {"q2_name": "certified", "q2_in": "", "q2_out": "bool(not small.any())",
            "q2_words": r"`True` when $\Lambda_D$ has full rank, that is when its smallest eigenvalue exceeds "
                        r"$\psi\,\varepsilon\,\lambda_{\max}$ (with $\varepsilon$ = `np.finfo(float).eps`)",
            "q2_reference": f"bool(_ev[0] > {EPS_RULE})"}


def _q4(form: str) -> dict:
    words = {"book": r"$\log(A[a,b]/A[a,c])=x_a^\top\Theta(x_b-x_c)=\langle\Theta, Z\rangle$",
             "keys first": r"with the logits written key first, $A[a,b]\propto\exp(x_b^\top\Theta x_a)$ (the transpose "
                           r"of the book's $\Theta$), "
                           r"$\log(A[a,b]/A[a,c])=(x_b-x_c)^\top\Theta x_a=\langle\Theta, Z\rangle$",
             "reversed": r"$\log(A[a,c]/A[a,b])=\langle\Theta, Z\rangle$ (note the order: key $c$ over key $b$)",
             "scaled": r"with the *scaled* logits of the transformer, $A[a,b]\propto\exp(x_a^\top\Theta x_b/\sqrt d)$ "
                       r"($d$ the length of a token), $\log(A[a,b]/A[a,c])=\langle\Theta, Z\rangle$",
             "bits": r"with the book's logits $A[a,b]\propto\exp(x_a^\top\Theta x_b)$ but the gap measured in *bits*, "
                     r"$\log_2(A[a,b]/A[a,c])=\langle\Theta, Z\rangle$"}[form]
    out = {"book": "Z", "keys first": "Z.T", "reversed": "-Z", "scaled": "Z / np.sqrt(len(x_a))",
           "bits": "Z / np.log(2.0)"}[form]
    Z = np.outer([1.0, -1.0], np.array([1.0, 1.0]) - np.array([-1.0, 1.0]))
    Z = {"book": Z, "keys first": Z.T, "reversed": -Z, "scaled": Z / np.sqrt(2.0), "bits": Z / np.log(2.0)}[form]
    theta = {"keys first": "_head.Theta[0].T", "scaled": "np.sqrt(len(_head.Theta[0])) * _head.Theta[0]"}
    gap = {"reversed": "np.log(_A[1, 2] / _A[1, 0])", "bits": "np.log2(_A[1, 0] / _A[1, 2])"}
    return {"q4_words": words, "q4_out": out, "q4_example": repr(Z.tolist()),
            "q4_theta": theta.get(form, "_head.Theta[0]"), "q4_gap": gap.get(form, "np.log(_A[1, 0] / _A[1, 2])")}


def _q5(form: str) -> dict:
    words = {"rows": "`X` has shape `(N, n, d)` and the labels `Y` = $F(X)$ shape `(N, n, d)`.",
             "last": "`X` has shape `(N, n, d)`; the labels `Y` hold only the output at the *last* token, shape "
                     "`(N, d)`.",
             "residual": r"`X` has shape `(N, n, d)`; the labels come from a layer with a *residual connection*: "
                         r"`Y` = $X+F(X)$, shape `(N, n, d)`.",
             "bias": r"`X` has shape `(N, n, d)`; the labels carry an unknown *bias*: `Y` = $F(X)+\mathbf 1b^\top$, "
                     r"the same vector $b\in\mathbb R^d$ added to every output row, shape `(N, n, d)`. Return "
                     r"$\sum_iW_i$ only (not $b$)."}[form]
    line = {"rows": "", "last": "Y = np.asarray(Y)[:, None, :]                         # as the canonical form: rows",
            "residual": "Y = np.asarray(Y) - X                                 # F(X) = Y - X",
            "bias": "X = np.concatenate([X, np.ones(X.shape[:2] + (1,))], axis=2)   # an intercept: b is S's last row"}
    labels = {"residual": "_X + attention(_X, _layer)", "bias": "attention(_X, _layer) + _layer.W[0, 0]"}
    return {"q5_words": words, "q5_in": line[form], "q5_out": "S[:-1]" if form == "bias" else "S",
            "q5_args": "_X, _Y[:, -1]" if form == "last" else "_X, _Y",
            "q5_labels": labels.get(form, "attention(_X, _layer)")}


def _q6(order: str, failure: str, convention: str) -> dict:
    fails = {"raise": "(lambda X, Y: _s.raises(ValueError, learn_single_head, X, Y))",
             "none": "(lambda X, Y: _s.call(learn_single_head, X, Y) is None)"}
    model = {"book": r"$F(X)=A(X)XW$ with $A[a,b]\propto\exp(x_a^\top\Theta x_b)$",
             "keys first": r"$F(X)=A(X)XW$ with the logits written key first, $A[a,b]\propto\exp(x_b^\top\Theta x_a)$ "
                           r"(this $\Theta$ is the transpose of the book's)",
             "scaled": r"$F(X)=A(X)XW$ with the *scaled* logits of the transformer, "
                       r"$A[a,b]\propto\exp(x_a^\top\Theta x_b/\sqrt d)$",
             "base 2": r"$F(X)=A(X)XW$ with weights in base 2, "
                       r"$A[a,b]=2^{x_a^\top\Theta x_b}/\sum_c2^{x_a^\top\Theta x_c}$",
             "residual": r"$Y=X+F(X)$, the output of a *residual connection* around $F(X)=A(X)XW$, with "
                         r"$A[a,b]\propto\exp(x_a^\top\Theta x_b)$"}[convention]
    out = {"keys first": "Theta = Theta.T                                                # logits x_b^T Theta x_a",
           "scaled": "Theta = np.sqrt(d) * Theta                                     # logits / sqrt(d)",
           "base 2": "Theta = Theta / np.log(2.0)                                    # 2^s = exp(s log 2)"}
    theta = {"keys first": "np.transpose", "scaled": "(lambda _T: np.sqrt(len(_T)) * _T)",
             "base 2": "(lambda _T: _T / np.log(2.0))"}
    return {"q6_return": "Theta, W" if order == "TW" else "W, Theta",
            "q6_return_words": "the pair `(Theta, W)`" if order == "TW" else "the pair `(W, Theta)` (in that order)",
            "q6_unpack": "" if order == "TW" else "(lambda _pair: _pair[::-1])",
            "q6_fail": ("raise ValueError(why)" if failure == "raise"
                        else "return None  # this variant refuses with None"),
            "q6_fail_words": "(raises `ValueError`, saying which condition failed)" if failure == "raise"
            else "(returns `None`)",
            "q6_fails": fails[failure], "q6_model": model,
            "q6_in": "Y = Y - X                                                     # F(X) = Y - X"
            if convention == "residual" else "",
            "q6_out": out.get(convention, ""), "q6_theta": theta.get(convention, ""),
            "q6_labels": "(lambda _X, _h: _X + attention(_X, _h))" if convention == "residual" else "attention"}


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


def _flattened(rng, seed, low: float, high: float) -> tuple[int, float]:
    """Gaussian data squeezed along one direction so that lambda_min / lambda_max lies in (low, high)."""
    from attnlib import gaussian_inputs
    from attnlib.rkhs import cubic_features

    exponents = (np.log10(low) / 6 - 0.2, np.log10(high) / 6 + 0.2)   # the ratio goes about as thin^6
    while True:
        thin, s = float(10 ** rng.uniform(*exponents)), seed()
        B = np.linalg.qr(np.random.default_rng(s).normal(size=(3, 3)))[0]
        Phi = cubic_features(gaussian_inputs(150, 6, 3, rng=s) * np.array([1.0, 1.0, thin]) @ B.T)
        ev = np.linalg.eigvalsh(Phi.T @ Phi / len(Phi))
        if low < ev[0] / ev[-1] < high:
            return s, thin


def _certificate_cases(rng, seed, form: str, tol: float) -> dict:
    """Data for the public tests of q2, and two flattened data sets far from every threshold.

    The first is full rank by the book's rule but far below the variant's tolerance (on the
    eigenvalues: the square of a tolerance on singular values); the second lies ten to a hundred
    times above that tolerance, so that a tolerance on singular values applied to the eigenvalues
    without squaring it gives the wrong answer.
    """
    from attnlib import boolean_inputs, gaussian_inputs
    from attnlib.rkhs import cubic_features

    def answer(X):
        Phi = cubic_features(X)
        ev = np.linalg.eigvalsh(Phi.T @ Phi / len(Phi))
        return eval(_q2(form, tol)["q2_reference"], {"np": np, "_ev": ev})  # noqa: S307 (our own table)

    eps_rule = 18 * np.finfo(float).eps                      # psi = 18 at d = 3
    lam = _lam_tol(form, tol) if form != "deficiency" else 1e-8
    s, thin = _flattened(rng, seed, 100 * eps_rule, lam / 100)
    s2, thin2 = _flattened(rng, seed, 10 * lam, 100 * lam)
    return {"seed_q2e": s, "q2_thin": thin, "seed_q2f": s2, "q2_thin2": thin2,
            "q2_public_gauss": repr(answer(gaussian_inputs(200, 5, 2, rng=3))),
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
    p.update(_q1(pick(["weighted", "normalised", "centred"])))
    q2 = pick(["tolerance", "deficiency", "singular"])
    tol = float(rng.choice([1e-4, 3e-5] if q2 == "singular" else [1e-8, 1e-9]))
    p.update(_q2(q2, tol))
    p.update(_certificate_cases(rng, seed, q2, tol))
    p.update(_q4(pick(["keys first", "reversed", "scaled", "bits"])))
    p.update(_q5(pick(["last", "residual", "bias"])))
    p.update(_q6(pick(["TW", "WT"]), pick(["raise", "none"]), pick(["keys first", "scaled", "base 2", "residual"])))
    p.update(_sharp_head(rng, seed))
    return p


def canonical() -> dict:
    """The form placeholders of the canonical form: the master's solutions as published."""
    return {**_q1("plain"), **_q2("certified", 0.0), **_q4("book"), **_q5("rows"),
            **_q6("TW", "raise", "book")}


def library(v: dict) -> dict:
    """Answers that call attnlib's own implementation, right in this variant's form (only the guard stops them)."""
    q2, tol = _form_of("q2", v)
    q4, = _form_of("q4", v)
    q5, = _form_of("q5", v)
    order, failure, convention = _form_of("q6", v)
    answer = {"deficiency": "int(cert.psi - cert.rank)", "certified": "bool(cert.identifiable)"}.get(
        q2, f"bool(cert.lam_min > {_lam_tol(q2, tol)!r} * cert.lam_max)")
    gap = {"book": "Z", "keys first": "Z.T", "reversed": "-Z", "scaled": "Z / np.sqrt(len(x_a))",
           "bits": "Z / np.log(2.0)"}[q4]
    labels = {"rows": "Y", "last": "np.repeat(np.asarray(Y)[:, None, :], X.shape[1], axis=1)",
              "residual": "np.asarray(Y) - X", "bias": "Y"}[q5]
    if q5 == "bias":
        sum_w = ("    keep = sculpt.constant_sequences(X)\n"
                 "    x, y = X[keep, 0], np.asarray(Y)[keep, 0]\n"
                 "    return np.linalg.lstsq(x - x.mean(axis=0), y - y.mean(axis=0), rcond=None)[0]")
    else:
        sum_w = f"    return sculpt.constant_sum_W(X, {labels})"
    theta = {"book": "T", "keys first": "T.T", "scaled": "np.sqrt(len(T)) * T", "base 2": "T / np.log(2.0)",
             "residual": "T"}[convention]
    refuse = "raise ValueError(str(err)) from None" if failure == "raise" else "return None"
    return {
        "second_moment": f'''def second_moment({v["q1_args"]}):
    from attnlib.rkhs import certificate
    Phi = cubic_features(X)
    {v["q1_in"] or "pass"}
    return certificate(X).lam_max * 0 + Phi.T @ Phi / len(Phi)''',
        v["q2_name"]: f'''def {v["q2_name"]}(X):
    from attnlib.rkhs import certificate
    cert = certificate(X)
    return {answer}''',
        "gap_feature": f'''def gap_feature(x_a, x_b, x_c):
    from attnlib import sculpt
    Z = sculpt.gap_feature(x_a, x_b, x_c)
    return {gap}''',
        "sum_W_from_constant": f'''def sum_W_from_constant(X, Y):
    from attnlib import sculpt
{sum_w}''',
        "learn_single_head": f'''def learn_single_head(X, Y):
    from attnlib import sculpt
    try:
        heads = sculpt.learn_single_head(X, {"np.asarray(Y) - X" if convention == "residual" else "Y"})
    except Exception as err:
        {refuse}
    T, W = heads.Theta[0], heads.W[0]
    Theta = {theta}
    return {v["q6_return"]}''',
    }


#: The attnlib functions that implement what each code question asks (the copy detector compares
#: a submission with their source).
ABOUT = {"q1": ("attnlib.rkhs.certificate",),
         "q2": ("attnlib.rkhs.certificate",),
         "q4": ("attnlib.sculpt.gap_feature", "attnlib.sculpt.logit_gaps"),
         "q5": ("attnlib.sculpt.constant_sum_W", "attnlib.sculpt.constant_sequences"),
         "q6": ("attnlib.sculpt.learn_single_head",)}

#: How many forms each code question has and what differs between them (quoted in the closing note).
FORMS_SUMMARY = {
    "q1": "3 forms, each another target quantity: a weighted second moment (weights w), the second moment of the "
          "normalised features, or the centred covariance (the published form, uncentred Lambda_D, is never asked)",
    "q2": "3 forms: full rank at a relative tolerance tau on the eigenvalues of Lambda_D (1e-8 or 1e-9), full "
          "column rank of Phi at a tolerance t on its singular values (1e-4 or 3e-5: the student must square it, "
          "and count the zero singular values when N < psi), or the rank deficiency as an int",
    "q4": "4 forms of the logit gap: keys-first logits (Z transposed), the gap c over b (sign), the transformer's "
          "logits scaled by 1/sqrt(d), or the gap in bits (log base 2)",
    "q5": "3 forms: labels only at the last token, labels with a residual connection (Y = X + F(X)), or labels "
          "with an unknown bias row b (an intercept in the least squares)",
    "q6": "16 forms: the logit convention (keys first: transpose; scaled by 1/sqrt(d); weights in base 2; or a "
          "residual connection around the head) times the return order ((Theta, W) or (W, Theta)) times the "
          "refusal (ValueError or None)",
}


def _form_of(question: str, v: dict) -> tuple:
    """Which form of a question the values ``v`` ask (the arguments of ``_q1`` ... ``_q6``)."""
    options = {"q1": [(f,) for f in ("plain", "weighted", "normalised", "centred")],
               "q2": [("deficiency", 0.0), ("certified", 0.0)]
               + [("tolerance", t) for t in (1e-8, 1e-9)] + [("singular", t) for t in (1e-4, 3e-5)],
               "q4": [(f,) for f in ("book", "keys first", "reversed", "scaled", "bits")],
               "q5": [(f,) for f in ("rows", "last", "residual", "bias")],
               "q6": [(o, f, c) for o in ("TW", "WT") for f in ("raise", "none")
                      for c in ("book", "keys first", "scaled", "base 2", "residual")]}[question]
    make = {"q1": _q1, "q2": _q2, "q4": _q4, "q5": _q5, "q6": _q6}[question]
    for args in options:
        if all(v.get(k) == value for k, value in make(*args).items()):
            return args
    raise ValueError(f"the values ask no known form of {question}")


def honest(v: dict) -> dict:
    """Answers a careful student writes from the prompts of the variant ``v`` (not from the master's solutions)."""
    q1, = _form_of("q1", v)
    q2, tol = _form_of("q2", v)
    q4, = _form_of("q4", v)
    q5, = _form_of("q5", v)
    order, failure, convention = _form_of("q6", v)
    moment = {"plain": "    L = np.einsum('ki,kj->ij', Phi, Phi) / N",
              "weighted": "    p = np.asarray(w, dtype=np.float64)\n    p = p / p.sum()\n"
                          "    L = np.einsum('k,ki,kj->ij', p, Phi, Phi)",
              "normalised": "    U = Phi / np.sqrt(np.sum(Phi ** 2, axis=1))[:, None]\n"
                            "    L = np.einsum('ki,kj->ij', U, U) / N",
              "centred": "    mean = Phi.sum(axis=0) / N\n    L = np.zeros((psi, psi))\n    for k in range(N):\n"
                         "        r = Phi[k] - mean\n        L += np.outer(r, r)\n    L = L / N"}[q1]
    rank = {"deficiency": "    lam = np.linalg.eigvalsh(L)\n"
                          "    return int(np.count_nonzero(lam <= psi * np.finfo(np.float64).eps * lam.max()))",
            "certified": "    lam = np.linalg.eigvalsh(L)\n"
                         "    return bool(lam.min() > psi * np.finfo(np.float64).eps * lam.max())",
            "tolerance": f"    from scipy.linalg import eigvalsh\n    lam = eigvalsh(L)\n"
                         f"    return bool(lam.min() > {tol!r} * lam.max())",
            "singular": f"    if N < psi:\n        return False            # some of the psi singular values are 0\n"
                        f"    sigma = np.linalg.svd(Phi, compute_uv=False)\n"
                        f"    return bool(sigma.min() > {tol!r} * sigma.max())"}[q2]
    gap = {"book": "Z", "keys first": "Z.T", "reversed": "-Z", "scaled": "Z / np.sqrt(np.float64(len(Z)))",
           "bits": "Z / LN2"}[q4]
    labels = {"rows": "Y[k, 0]", "last": "Y[k]", "residual": "Y[k, 0] - X[k, 0]", "bias": "Y[k, 0]"}[q5]
    solve = ("    # centred, the bias drops out\n"
             "    inputs, outputs = inputs - inputs.mean(axis=0), outputs - outputs.mean(axis=0)\n"
             if q5 == "bias" else "")
    refuse = "raise ValueError(reason)" if failure == "raise" else "return None"
    theta = {"book": "M", "keys first": "M.T", "scaled": "np.sqrt(d) * M", "base 2": "M / LN2",
             "residual": "M"}[convention]
    start = "    Y = Y - X                   # the residual connection: F(X) = Y - X\n" * (convention == "residual")
    pair = "[Theta, W]" if order == "TW" else "(W, Theta)"
    n_in = "(N, d)" if q5 == "last" else "(N, n, d)"
    return {
        "second_moment": f'''def second_moment({v["q1_args"]}):
    Phi = cubic_features(np.asarray(X, dtype=np.float64))
    N, psi = Phi.shape
{moment}
    return L''',
        v["q2_name"]: f'''def {v["q2_name"]}(X):
    Phi = cubic_features(np.asarray(X, dtype=np.float64))
    N, psi = Phi.shape
    L = np.einsum('ki,kj->ij', Phi, Phi) / N
{rank}''',
        "gap_feature": f'''LN2 = np.log(2.0)
_outer = lambda u, v: np.multiply.outer(u, v)


def gap_feature(x_a, x_b, x_c):
    # entries are 0 and +-2 on the hypercube (products of small numbers): exact in float32
    Z = _outer(np.asarray(x_a, dtype=np.float32), np.asarray(x_b, dtype=np.float32) - np.asarray(x_c, dtype=np.float32))
    return {gap}''',
        "sum_W_from_constant": f'''def sum_W_from_constant(X, Y):
    from scipy import linalg
    X, Y = np.asarray(X, dtype=float), np.asarray(Y, dtype=float)   # Y: {n_in}
    inputs, outputs = [], []
    for k in range(len(X)):
        if np.all(X[k] == X[k, 0]):
            inputs.append(X[k, 0])
            outputs.append({labels})
    inputs, outputs = np.array(inputs), np.array(outputs)
{solve}    return linalg.lstsq(inputs, outputs)[0]''',
        "learn_single_head": f'''LN2 = np.log(2.0)


def learn_single_head(X, Y):
    from scipy import linalg
    X, Y = np.asarray(X, dtype=float), np.asarray(Y, dtype=float)
{start}    N, n, d = X.shape

    def refuse(reason):
        {refuse}

    good = [k for k in range(N) if np.linalg.matrix_rank(X[k]) == n]
    if not good:
        return refuse("no sequence with independent tokens")
    V = w_inverse(X[good], Y[good])
    if V is None:
        return refuse("no W^-1")
    weights = [Y[k] @ V @ np.linalg.pinv(X[k]) for k in good]
    biggest = max(np.abs(A).max() for A in weights)
    if min(A.min() for A in weights) < -1e-8 * biggest:
        return refuse("negative attention weight: not one head")
    rows, gaps = [], []
    for k, A in zip(good, weights, strict=True):
        x = X[k]
        for a in range(n):
            c = int(np.argmax(A[a]))
            for b in range(n):
                if b != c and A[a, b] > 1e-12 * A[a, c]:
                    rows.append(np.outer(x[a], x[b] - x[c]).ravel())
                    gaps.append(np.log(A[a, b] / A[a, c]))
    if not rows or np.linalg.matrix_rank(np.array(rows)) < d * d:
        return refuse("the gaps do not determine Theta")
    M = linalg.lstsq(np.array(rows), np.array(gaps))[0].reshape(d, d)
    Theta, W = {theta}, np.linalg.inv(V)
    return {pair}''',
    }
