"""Checks for the coding exercises on linear attention as a linear model (chapters 3-5).

The features, their kernel, the coefficients of a layer, the fold back to heads,
the regression, and the second moment behind the certificate. Feature order is
the book's (Algorithm 2): the Gram pairs (j, k) with j < k row by row, then the
diagonal; feature ``p * d + l`` is pair p times coordinate l of the last token.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_flag
from ..attention import attention
from ..heads import Heads
from ._core import Case, CheckFailure, case_rng, returned_heads, run_check

_ORDER = ("use Algorithm 2's order: the pairs (j, k) with j < k row by row, then the diagonal (j, j); "
          "feature p * d + l is pair p times x_n[l].")


def _rkhs():
    from .. import rkhs  # lazily: scipy is imported on first use

    return rkhs


def _psi(d: int) -> int:
    return d * d * (d + 1) // 2


def _feature_batches(rng):
    return [("Gaussian, N=4, n=5, d=3", rng.normal(size=(4, 5, 3))),
            ("Boolean, N=3, n=4, d=4", rng.choice([-1.0, 1.0], size=(3, 4, 4))),
            ("one token per sequence, d=2", rng.normal(size=(5, 1, 2))),
            ("d=1", rng.normal(size=(3, 6, 1))),
            ("long sequences, N=2, n=30, d=2", rng.normal(size=(2, 30, 2)))]


def check_cubic_features(fn, *, causal: bool = False) -> None:
    """Check the cubic features: ``fn(X)`` with X of shape (N, n, d).

    Returns Phi of shape (N, psi) with ``psi = d^2 (d + 1) / 2`` for the last
    token, or, with ``causal=True``, of shape (N, n, psi), row t built from the
    prefix Gram matrix of tokens 1..t. ``Phi[..., p * d + l] = G[j_p, k_p] x[l]``
    with the pairs in Algorithm 2's order (j < k row by row, then the diagonal).

    Examples
    --------
    >>> from attnlib.rkhs import cubic_features
    >>> check_cubic_features(cubic_features)
    check_cubic_features: all 5 cases passed.
    >>> check_cubic_features(lambda X: cubic_features(X, causal=True), causal=True)
    check_cubic_features(causal=True): all 5 cases passed.
    """
    causal = check_flag("causal", causal)
    name = "check_cubic_features(causal=True)" if causal else "check_cubic_features"
    rkhs = _rkhs()
    cases = [Case(label, (X,), rkhs.cubic_features(X, causal=causal)) for label, X in _feature_batches(case_rng(201))]

    def convert(got, case):
        X = case.args[0]
        d = X.shape[-1]
        shape = np.shape(got)
        if shape and shape[-1] == d**3 != _psi(d):
            raise CheckFailure(f"{name}: on case '{case.name}', your features have {d**3} = d^3 columns: keep one "
                               f"feature per pair j <= k, psi = d^2 (d + 1) / 2 = {_psi(d)} in all.")
        return got

    run_check(name, fn, cases, ["X"], rtol=1e-9, atol=1e-10, convert=convert, label="Phi", order_hint=_ORDER)


def check_kernel(fn) -> None:
    """Check the kernel of the cubic features without forming them: ``fn(X, X2)``.

    X and X2 are batches of shape (N, n, d) and (N2, n2, d), possibly of
    different lengths n and n2; the result K of shape (N, N2) has
    ``K[i, j] = <phi(X[i]), phi(X2[j])>`` for the features of
    :func:`check_cubic_features`.

    Examples
    --------
    >>> from attnlib.rkhs import kernel
    >>> check_kernel(kernel)
    check_kernel: all 4 cases passed.
    """
    rng = case_rng(202)
    specs = [("n=5 against n=5, d=3", (4, 5, 3), (3, 5, 3)), ("n=2 against n=9, d=2", (3, 2, 2), (5, 9, 2)),
             ("one token against n=4, d=4", (2, 1, 4), (3, 4, 4)), ("Boolean, d=3", (3, 4, 3), (2, 6, 3))]
    rkhs = _rkhs()
    cases = []
    for i, (label, a, b) in enumerate(specs):
        if i == 3:
            X, X2 = rng.choice([-1.0, 1.0], size=a), rng.choice([-1.0, 1.0], size=b)
        else:
            X, X2 = rng.normal(size=a), rng.normal(size=b)
        cases.append(Case(label, (X, X2), rkhs.kernel(X, X2)))
    run_check("check_kernel", fn, cases, ["X", "X2"], rtol=1e-9, atol=1e-9, label="K")


def check_parameter_map(fn) -> None:
    """Check the coefficients p(Theta) of a layer: ``fn(Theta, W)`` with Theta, W of shape (m, d, d).

    Returns C of shape (psi, d) such that ``cubic_features(X) @ C`` is the
    last-token output of the linear layer, for every X; rows in the order of
    the features.

    Examples
    --------
    >>> from attnlib.rkhs import parameter_map
    >>> check_parameter_map(lambda Theta, W: parameter_map(Heads(Theta, W)))
    check_parameter_map: all 5 cases passed.
    """
    rng = case_rng(203)
    rkhs = _rkhs()
    specs = [("one head, d=3", 1, 3), ("three heads, d=2", 3, 2), ("d=1", 2, 1), ("two heads, d=4", 2, 4),
             ("non-symmetric Theta, one head, d=3", 1, 3)]
    cases = []
    for label, m, d in specs:
        Theta, W = rng.normal(size=(m, d, d)), rng.normal(size=(m, d, d))
        cases.append(Case(label, (Theta, W), rkhs.parameter_map(Heads(Theta, W))))
    run_check("check_parameter_map", fn, cases, ["Theta", "W"], rtol=1e-9, atol=1e-10, label="C")


def check_heads_from_coef(fn) -> None:
    """Check the fold from coefficients back to heads: ``fn(C)`` with C of shape (psi, d).

    Returns a layer, as ``attnlib.Heads`` or a pair ``(Theta, W)`` of arrays of
    shape (m, d, d), with at most d^2 heads, whose coefficients p(Theta) equal
    C. Any such layer passes: the heads are not unique, the function is.

    Examples
    --------
    >>> from attnlib.rkhs import heads_from_coef
    >>> check_heads_from_coef(heads_from_coef)
    check_heads_from_coef: all 4 cases passed.
    """
    rng = case_rng(204)
    rkhs = _rkhs()
    specs = [("random C, d=2", rng.normal(size=(_psi(2), 2))), ("random C, d=3", rng.normal(size=(_psi(3), 3))),
             ("C of a one-head layer, d=3", rkhs.parameter_map(Heads(rng.normal(size=(3, 3)),
                                                                     rng.normal(size=(3, 3))))),
             ("d=1", rng.normal(size=(1, 1)))]
    cases = [Case(label, (C,), C) for label, C in specs]

    def convert(got, case):
        C = case.args[0]
        d = C.shape[1]
        heads = returned_heads("check_heads_from_coef", got, case, d)
        if heads.m > d * d:
            raise CheckFailure(f"check_heads_from_coef: on case '{case.name}', your layer has {heads.m} heads; "
                               f"at most d^2 = {d * d} are needed.")
        return rkhs.parameter_map(heads)

    run_check("check_heads_from_coef", fn, cases, ["C"], rtol=1e-7, atol=1e-9, convert=convert,
              label="p(Theta) of your heads")


def check_fit_coefficients(fn) -> None:
    """Check least squares on the cubic features (Algorithm 1, steps 1-2): ``fn(X, Y)``.

    X has shape (N, n, d) and Y, the last-token targets, shape (N, d). Returns
    C of shape (psi, d) minimising ``||Phi C - Y||_F^2``; every case has more
    examples than features, so C is unique.

    Examples
    --------
    >>> from attnlib.rkhs import fit_linear_attention
    >>> check_fit_coefficients(lambda X, Y: fit_linear_attention(X, Y).coef)
    check_fit_coefficients: all 4 cases passed.
    """
    rng = case_rng(205)
    rkhs = _rkhs()
    cases = []
    for label, N, n, d, kind, noise in [("two-head linear teacher, d=2", 40, 5, 2, "linear", 0.0),
                                        ("noisy targets, d=3", 120, 6, 3, "linear", 0.1),
                                        ("softmax teacher (agnostic), d=2", 60, 4, 2, "softmax", 0.0),
                                        ("just more examples than features, d=3", 20, 7, 3, "linear", 0.0)]:
        X = rng.normal(size=(N, n, d))
        teacher = Heads(rng.normal(size=(2, d, d)), rng.normal(size=(2, d, d)))
        Y = attention(X, teacher, kind=kind)[:, -1] + noise * rng.normal(size=(N, d))
        Phi = rkhs.cubic_features(X)
        C, *_ = np.linalg.lstsq(Phi, Y, rcond=None)
        cases.append(Case(label, (X, Y), C))
    run_check("check_fit_coefficients", fn, cases, ["X", "Y"], rtol=1e-6, atol=1e-7, label="C")


def check_second_moment(fn) -> None:
    """Check the matrix of the certificate: ``fn(X)`` with X of shape (N, n, d).

    Returns ``Lambda_D = Phi^T Phi / N`` of shape (psi, psi), the *uncentred*
    second moment of the last-token cubic features (Algorithm 2, Lemma A.3).

    Examples
    --------
    >>> from attnlib.rkhs import cubic_features
    >>> check_second_moment(lambda X: cubic_features(X).T @ cubic_features(X) / len(X))
    check_second_moment: all 4 cases passed.
    """
    rng = case_rng(206)
    rkhs = _rkhs()
    cases = []
    for label, X in [("Gaussian, N=50, d=2", rng.normal(size=(50, 4, 2))),
                     ("Boolean, N=30, d=3", rng.choice([-1.0, 1.0], size=(30, 5, 3))),
                     ("shifted tokens (features with nonzero mean), d=2", rng.normal(size=(40, 3, 2)) + 1.0),
                     ("fewer examples than features, d=3", rng.normal(size=(7, 4, 3)))]:
        Phi = rkhs.cubic_features(X)
        cases.append(Case(label, (X,), Phi.T @ Phi / len(X)))
    run_check("check_second_moment", fn, cases, ["X"], rtol=1e-8, atol=1e-10, label="Lambda_D")
