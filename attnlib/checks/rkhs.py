"""Checks for the coding exercises on linear attention as a linear model (chapters 3-4).

The features, their kernel, the coefficients of a layer, the fold back to heads,
and the regression; the certificate of chapter 5 is checked in
:mod:`attnlib.checks.certificate`. Feature order is the book's (Algorithm 2): the
Gram pairs (j, k) with j < k row by row, then the diagonal; feature ``p * d + l``
is pair p times coordinate l of the last token.
"""

from __future__ import annotations

import inspect
from contextlib import contextmanager

import numpy as np

from .._arguments import arguments
from ..attention import attention
from ..heads import Heads
from . import _core
from ._core import Case, CheckFailure, Refused, case_rng, returned_heads, run_check
from ._features import lazy_rkhs, pair_groups, psi

__all__ = ["check_cubic_features", "check_fit_coefficients", "check_heads_from_coef", "check_kernel",
           "check_parameter_map"]

_ORDER = ("use Algorithm 2's order: the pairs (j, k) with j < k row by row, then the diagonal (j, j); "
          "feature p * d + l is pair p times x_n[l].")


def _phi(rkhs, X, x):
    """The features of the Gram matrix of X (N, n, d) with token x (N, d) in place of the last token."""
    alone = rkhs.cubic_features(x[:, None, :])
    return rkhs.cubic_features(np.concatenate([X, x[:, None, :]], axis=1)) - alone


def _count_hint(count: int, d: int) -> str:
    """What a wrong number of features suggests: the pairs or the diagonal left out, or every ordered pair."""
    readings = [(d**3, "every ordered pair (j, k): keep one feature per pair j <= k"),
                (d * d, "only the diagonal pairs (j, j): add the pairs j < k"),
                (d * d * (d - 1) // 2, "only the pairs j < k: add the diagonal (j, j)"),
                (d * (d + 1) // 2, "the Gram entries alone: multiply each by every coordinate of the last token")]
    found = [text for n, text in readings if n == count and n != psi(d)]
    return f" {count} features look like {' or '.join(found)}." if found else ""


def _feature_batches(rng):
    return [("Gaussian, N=4, n=5, d=3", rng.normal(size=(4, 5, 3))),
            ("Boolean, N=3, n=4, d=4", rng.choice([-1.0, 1.0], size=(3, 4, 4))),
            ("one token per sequence, d=2", rng.normal(size=(5, 1, 2))),
            ("d=1", rng.normal(size=(3, 6, 1))),
            ("long sequences, N=2, n=30, d=2", rng.normal(size=(2, 30, 2)))]


@arguments(fn="function", causal="flag")
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
    name = "check_cubic_features(causal=True)" if causal else "check_cubic_features"
    rkhs = lazy_rkhs()
    cases = [Case(label, (X,), rkhs.cubic_features(X, causal=causal)) for label, X in _feature_batches(case_rng(201))]

    def convert(got, case):
        X = case.args[0]
        d = X.shape[-1]
        shape = np.shape(got)
        if shape and shape[-1] == d**3 != psi(d):
            raise CheckFailure(f"{name}: on case '{case.name}', your features have {d**3} = d^3 columns: keep one "
                               f"feature per pair j <= k, psi = d^2 (d + 1) / 2 = {psi(d)} in all.")
        if shape and shape[-1] != psi(d) and _count_hint(shape[-1], d):
            raise CheckFailure(f"{name}: on case '{case.name}', Phi has shape {shape}, {shape[-1]} features; expected "
                               f"psi = d^2 (d + 1) / 2 = {psi(d)}.{_count_hint(shape[-1], d)}")
        return got

    def variants(case):
        X = case.args[0]
        n = X.shape[1]
        if n < 2:
            return {}
        if not causal:
            return {"the features built with the first token x_1 in place of the last token x_n":
                    _phi(rkhs, X, X[:, 0])}
        own = rkhs.cubic_features(X.reshape(-1, 1, X.shape[-1])).reshape(X.shape[:2] + (-1,))
        return {"an exclusive prefix (row t from tokens 1..t-1): row t's Gram matrix includes token t":
                rkhs.cubic_features(X, causal=True) - own,
                "the features with the full Gram matrix at every position, not the prefix of tokens 1..t":
                np.stack([_phi(rkhs, X, X[:, t]) for t in range(n)], axis=1)}

    run_check(name, fn, cases, ["X"], rtol=1e-9, atol=1e-10, convert=convert, label="Phi", order_hint=_ORDER,
              sizes=lambda case: dict(zip("nd", case.args[0].shape[1:], strict=True)), variants=variants,
              groups=lambda case, label: pair_groups(case.args[0].shape[-1], (-1, "features")),
              axes=("example", "position", "feature") if causal else ("example", "feature"),
              slip="G = X^T X is a sum over tokens (not a mean); each pair j < k once (no factor 2), then the "
                   "diagonal; feature p * d + l multiplies pair p by x[l] of the last token"
                   + (" (of token t, with the prefix Gram matrix of tokens 1..t)." if causal else "."))


#: The large case of check_kernel: psi = 871,200 features per sequence, 7 MB in float64, while the
#: Gram matrices of its four sequences take 0.46 MB.
_BIG_D, _BIG_N, _BIG_n = 120, 2, 3

_FORMS_FEATURES = ("check_kernel: your function calls cubic_features, which forms the psi = d^2 (d + 1) / 2 "
                   "features; this exercise asks for the kernel without them. Compute K from the Gram "
                   "matrices G = X^T X and the last tokens.")


@contextmanager
def _forbid_cubic_features(rkhs):
    """While the learner's function runs, ``attnlib.rkhs.cubic_features`` raises :class:`Refused`.

    The function object's code is swapped, not a module attribute, so that every reference to
    it is caught: ``rkhs.cubic_features``, a name imported with ``from attnlib.rkhs import
    cubic_features`` before the check, or an alias. Under a declaration (``@arguments``), the
    code swapped is the declared function's (``__wrapped__``), not the wrapper's, whose code
    has free variables of its own: the wrapper still checks the arguments, then the function
    refuses. The original code is put back on exit.
    """
    func = inspect.unwrap(rkhs.cubic_features)  # the function itself, under its declaration's wrapper

    def refuse(*args, **kwargs):  # runs with cubic_features' globals: reach Refused by import
        from attnlib.checks._core import Refused
        from attnlib.checks.rkhs import _FORMS_FEATURES

        raise Refused(_FORMS_FEATURES)

    original = func.__code__
    func.__code__ = refuse.__code__
    try:
        yield
    finally:
        func.__code__ = original


def _peak_bytes(fn, args, record: dict):
    """Run ``fn(*args)``; ``record["peak"]`` is the peak of the memory numpy and Python allocated meanwhile
    (:mod:`tracemalloc`), set even if ``fn`` fails or is stopped by the time limit."""
    import tracemalloc  # here, so that a Python without it (in the browser?) still imports the checks

    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start()
    base, _ = tracemalloc.get_traced_memory()
    tracemalloc.reset_peak()
    try:
        fn(*args)
    finally:
        record["peak"] = tracemalloc.get_traced_memory()[1] - base
        if started:
            tracemalloc.stop()


@arguments(fn="function")
def check_kernel(fn) -> None:
    """Check the kernel of the cubic features without forming them: ``fn(X, X2)``.

    X and X2 are batches of shape (N, n, d) and (N2, n2, d), possibly of
    different lengths n and n2; the result K of shape (N, N2) has
    ``K[i, j] = <phi(X[i]), phi(X2[j])>`` for the features of
    :func:`check_cubic_features`.

    An answer that forms the features is refused, in two ways. While ``fn`` runs,
    ``attnlib.rkhs.cubic_features`` raises (its code is swapped, so every reference to it is
    caught). And before the cases, ``fn`` runs once on two pairs of sequences of d = 120,
    where one sequence's features are psi = 871,200 numbers (7 MB) while its Gram matrix is
    14,400 (0.1 MB): ``fn``'s peak allocation there, measured with :mod:`tracemalloc` (which
    sees numpy's arrays), must stay below a third of one feature vector's bytes, so features
    written by hand (or all d^3 products) are refused too, float32 copies included, while every
    way through the Gram matrices (even an (N, N2, d, d) broadcast, 0.5 MB) stays far below.
    That run's value is not compared, and it may take 2 s: an error or a timeout there is left
    to the cases to report, but the peak reached until then still counts. (Patching alone would
    miss features written by hand; measuring alone would say less clearly what went wrong.)

    Examples
    --------
    >>> from attnlib.rkhs import kernel
    >>> check_kernel(kernel)
    check_kernel: all 4 cases passed.
    """
    rng = case_rng(202)
    specs = [("n=5 against n=5, d=3", (4, 5, 3), (3, 5, 3)), ("n=2 against n=9, d=2", (3, 2, 2), (5, 9, 2)),
             ("one token against n=4, d=4", (2, 1, 4), (3, 4, 4)), ("Boolean, d=3", (3, 4, 3), (2, 6, 3))]
    rkhs = lazy_rkhs()
    cases = []
    for i, (label, a, b) in enumerate(specs):
        if i == 3:
            X, X2 = rng.choice([-1.0, 1.0], size=a), rng.choice([-1.0, 1.0], size=b)
        else:
            X, X2 = rng.normal(size=a), rng.normal(size=b)
        cases.append(Case(label, (X, X2), rkhs.kernel(X, X2)))

    def guarded(X, X2):
        with _forbid_cubic_features(rkhs):
            return fn(X, X2)

    big = rng.normal(size=(2, _BIG_N, _BIG_n, _BIG_D)) / np.sqrt(_BIG_D)
    record = {}
    try:
        with np.errstate(all="ignore"):
            _core.call_with_timeout(_peak_bytes, (guarded, tuple(big), record), {}, min(_core.CASE_TIMEOUT, 2.0))
    except Refused:
        raise
    except (Exception, _core.CaseTimeout):  # an error or a timeout: the cases below will say what went wrong
        pass
    peak = record.get("peak", 0)
    if peak > 8 * psi(_BIG_D) // 3:
        raise Refused(f"check_kernel: on two sequences of d = {_BIG_D} tokens, your function allocated "
                      f"{peak / 1e6:.1f} MB at its peak, while one sequence's psi = {psi(_BIG_D)} features "
                      f"take {8 * psi(_BIG_D) / 1e6:.1f} MB and its Gram matrix 0.1 MB: it seems to form the "
                      "features. Compute K from the Gram matrices G = X^T X and the last tokens, never an "
                      "array of psi (or d^3) numbers.")

    def variants(case):
        X, X2 = case.args
        G, G2 = np.einsum("Nnj,Nnk->Njk", X, X), np.einsum("Nnj,Nnk->Njk", X2, X2)
        full = np.einsum("Njk,Mjk->NM", G, G2)
        diag = np.einsum("Njj,Mjj->NM", G, G2)
        dots = X[:, -1] @ X2[:, -1].T
        return {"<G, G'>_F <x, x'>, the kernel of all d^3 products (every pair j != k counted twice)": full * dots,
                "<G, G'>_F <x, x'> / 2, the term sum_j G_jj G'_jj is missing": full * dots / 2,
                "(<G, G'>_F + sum_j G_jj G'_jj) / 2 without the factor <x, x'> of the last tokens": (full + diag) / 2}

    run_check("check_kernel", guarded, cases, ["X", "X2"], rtol=1e-9, atol=1e-9, label="K",
              variants=variants,
              sizes=lambda case: {"d": case.args[0].shape[-1]}, axes=("row", "column"),
              slip="K = (<G, G'>_F + sum_j G_jj G'_jj) / 2 * <x_n, x'_n>: the pairs j < k once, the "
                   "diagonal once, and never the features themselves.")


@arguments(fn="function")
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
    rkhs = lazy_rkhs()
    specs = [("one head, d=3", 1, 3), ("three heads, d=2", 3, 2), ("d=1", 2, 1), ("two heads, d=4", 2, 4),
             ("non-symmetric Theta, one head, d=3", 1, 3)]
    cases = []
    for label, m, d in specs:
        Theta, W = rng.normal(size=(m, d, d)), rng.normal(size=(m, d, d))
        cases.append(Case(label, (Theta, W), rkhs.parameter_map(Heads(Theta, W))))

    def variants(case):
        Theta, W = case.args
        return {"p of the layer with every Theta_i transposed": rkhs.parameter_map(Heads(Theta.swapaxes(1, 2), W)),
                "p of the layer with every W_i transposed": rkhs.parameter_map(Heads(Theta, W.swapaxes(1, 2))),
                "p of the layer with Theta and W swapped": rkhs.parameter_map(Heads(W, Theta))}

    run_check("check_parameter_map", fn, cases, ["Theta", "W"], rtol=1e-9, atol=1e-10, label="C",
              variants=variants, groups=lambda case, label: pair_groups(case.args[0].shape[-1], (0, "rows")),
              sizes=lambda case: {"m": case.args[0].shape[0], "d": case.args[0].shape[-1]},
              axes=("feature", "output coordinate"),
              slip="the row of pair (j, k), j < k, collects both orders, Theta[l, j] W[k, e] + Theta[l, k] W[j, e], "
                   "and the diagonal row only Theta[l, j] W[j, e]; sum over the heads.")


@arguments(fn="function")
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
    rkhs = lazy_rkhs()
    specs = [("random C, d=2", rng.normal(size=(psi(2), 2))), ("random C, d=3", rng.normal(size=(psi(3), 3))),
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
              label="p(Theta) of your heads",
              groups=lambda case, label: pair_groups(case.args[0].shape[1], (0, "rows")),
              sizes=lambda case: {"d": case.args[0].shape[1]}, axes=("feature", "output coordinate"),
              slip="the coefficient of a pair j < k is the sum over its two orders (j, k) and (k, j) in M: "
                   "split it between them (all on one, or half on each), never the full value on both; then "
                   "fold M into at most d^2 heads.")


@arguments(fn="function")
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
    rkhs = lazy_rkhs()
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
        cases.append(Case(label, (X, Y), C, extra={"Phi": Phi}))

    def variants(case):
        Phi, Y = case.extra["Phi"], case.args[1]
        return {"Phi^T Y / N, a correlation, not the least-squares solution: solve (Phi^T Phi) C = Phi^T Y":
                Phi.T @ Y / len(Y), "Phi^T Y, not the least-squares solution: solve (Phi^T Phi) C = Phi^T Y": Phi.T @ Y}

    run_check("check_fit_coefficients", fn, cases, ["X", "Y"], rtol=1e-6, atol=1e-7, label="C", variants=variants,
              groups=lambda case, label: pair_groups(case.args[0].shape[-1], (0, "rows")),
              axes=("feature", "output coordinate"),
              sizes=lambda case: {"N": len(case.args[0]), "d": case.args[0].shape[-1]},
              slip="C = lstsq(Phi, Y) (or solve the normal equations Phi^T Phi C = Phi^T Y) with Phi the last-token "
                   "cubic features, Algorithm 2's order.")

