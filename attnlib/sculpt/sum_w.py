"""Phase 1 of the book's reconstruction: estimates of ``S = sum_i W_i`` from the data alone.

Phase 3 refines these estimates on a slice of the body (:mod:`attnlib.sculpt.proxy`).
"""

from __future__ import annotations

import numpy as np

from .._linalg import lstsq
from .._validation import check_positive_float, check_positive_int
from ._common import SculptError, check_data, check_matrix, gather_tokens, singular_values
from .hypercube import constant_sequences


def crude_sum_W(X, Y) -> np.ndarray:
    """The correlation estimate ``mean_N X^T F(X)`` of ``sum_i W_i``.

    Parameters
    ----------
    X : array_like of shape (N, n, d), entries ±1
    Y : array_like of shape (N, n, d)

    Returns
    -------
    ndarray of shape (d, d)

    Notes
    -----
    ``E[X^T F(X)] = sum_i E[X^T A_i(X) X] W_i``; at Theta_i = 0 every
    ``A_i = 1 1^T / n`` and ``E[X^T 1 1^T X] / n = I``, so the estimate is unbiased.
    When attention is sharp, A_i correlates with X and the bias is of the order
    of S itself (chapter 8).

    Examples
    --------
    >>> from attnlib.sculpt import crude_sum_W
    >>> heads = Heads(np.zeros((2, 3, 3)), random_heads(2, 3, rng=0).W)
    >>> X = boolean_inputs(20000, 4, 3, rng=1)
    >>> bool(np.abs(crude_sum_W(X, attention(X, heads)) - heads.W.sum(0)).max() < 0.05)
    True
    """
    X, Y = check_data(X, Y)
    return np.einsum("Nap,Naq->pq", X, Y) / X.shape[0]


def constant_sum_W(X, Y) -> np.ndarray:
    """The exact value of ``sum_i W_i`` read off the sequences whose tokens are all equal.

    Parameters
    ----------
    X : array_like of shape (N, n, d), entries ±1
    Y : array_like of shape (N, n, d)

    Returns
    -------
    ndarray of shape (d, d)

    Raises
    ------
    SculptError
        (phase 1) if the constant sequences do not span R^d; they occur with
        probability ``2^(-(n-1) d)`` each, so this needs about
        ``d 2^((n-1) d)`` examples: fine for d = 4, n = 3, hopeless soon after.

    Examples
    --------
    >>> from attnlib.sculpt import constant_sum_W, planted_instance
    >>> heads = planted_instance(2, 4, rng=0)
    >>> X = boolean_inputs(4000, 3, 4, rng=1)
    >>> bool(np.allclose(constant_sum_W(X, attention(X, heads)), heads.W.sum(0)))
    True
    """
    X, Y = check_data(X, Y)
    N, n, d = X.shape
    same = constant_sequences(X)
    tokens, labels = X[same, 0], Y[same, 0]  # (k, d)
    rank = np.linalg.matrix_rank(tokens) if len(tokens) else 0
    if rank < d:
        raise SculptError(
            "phase 1",
            f"{int(same.sum())} of {N} sequences are constant and their tokens span {rank} < d = {d} "
            f"dimensions; expected about N 2^(-(n-1) d) = {N * 2.0 ** (-(n - 1) * d):.3g} of them",
        )
    return lstsq(tokens, labels).x


def spanning_prefix(tokens: np.ndarray, order: np.ndarray, count: int, *, phase: str) -> np.ndarray:
    """The first ``count`` or more rows of ``order`` whose tokens span R^d with condition number <= 30.

    A regression on tokens that do not span R^d leaves part of S undetermined,
    so the slice grows (by half each time) until they do.
    """
    d = tokens.shape[-1]
    count = min(max(count, d), len(order))
    while True:
        rows = order[:count]
        sv = singular_values(tokens[rows])
        if len(sv) == d and sv[-1] >= sv[0] / 30.0:
            return rows
        if count == len(order):
            raise SculptError(phase, f"the tokens of all {len(order)} candidate rows do not span R^{d}")
        count = min(len(order), count + max(count // 2, d))


def atom_residuals(X, Y, sum_W) -> tuple[np.ndarray, np.ndarray]:
    """For every row, the nearest atom ``x_b^T S`` and its distance.

    Returns
    -------
    b : ndarray of int, shape (N, n)
        The token whose atom is nearest to ``Y[N, a]``.
    r : ndarray of shape (N, n)
        ``min_b ||Y[N, a] - x_b^T S||``.
    """
    X, Y = check_data(X, Y)
    S = check_matrix("sum_W", sum_W, X.shape[-1])
    R = np.linalg.norm(Y[:, :, None, :] - (X @ S)[:, None, :, :], axis=-1)  # (N, a, b)
    return R.argmin(axis=-1), R.min(axis=-1)


def atom_score(X, Y, sum_W, *, q: float = 0.05) -> float:
    """How close the nearest rows come to atoms ``x_b^T S``: a data-only score of an estimate S.

    Parameters
    ----------
    X, Y : array_like of shape (N, n, d)
    sum_W : array_like of shape (d, d)
    q : float, default 0.05
        Which quantile of the distances to report.

    Returns
    -------
    float
        The q-quantile of ``min_b ||Y[N, a] - x_b^T S||`` over rows, divided by
        the median atom norm ``||x^T S||``. With sharp attention a fraction of the
        labels are (nearly) atoms of the true sum, so a good S scores near 0.
        Some wrong matrices, such as ``W_1 - W_2``, are exact atoms of a few rows
        (those whose heads attend to opposite tokens) and score near 0 at q = 0.05
        too, but not at q = 0.2; :func:`estimate_sum_W` therefore ranks by the sum
        of both (chapter 8).
    """
    X, Y = check_data(X, Y)
    S = check_matrix("sum_W", sum_W, X.shape[-1])
    q = check_positive_float("q", q)
    if q > 1:
        raise ValueError(f"q must be a quantile in (0, 1]; received {q}")
    score = _atom_score(X, Y, S, q)
    if not np.isfinite(score):
        raise ValueError("sum_W maps most tokens to zero (median atom norm 0), so the atom score is undefined")
    return score


def _atom_score(X: np.ndarray, Y: np.ndarray, S: np.ndarray, q: float = 0.05) -> float:
    """:func:`atom_score` on checked arrays; inf (the worst score) when the median atom norm is 0."""
    b, r = atom_residuals(X, Y, S)
    scale = float(np.median(np.linalg.norm(X @ S, axis=-1)))
    return float(np.quantile(r, q) / scale) if scale > 0 else float("inf")


def trimmed_sum_W(X, Y, init, *, keep: float = 0.2, iterations: int = 30, anchors=None) -> np.ndarray:
    """Robust estimate of ``sum_i W_i`` from the rows that look like atoms (trimmed regression).

    Parameters
    ----------
    X : array_like of shape (N, n, d), entries ±1
    Y : array_like of shape (N, n, d)
    init : array_like of shape (d, d)
        Starting estimate, e.g. :func:`crude_sum_W`.
    keep : float in (0, 1], default 0.2
        Fraction of rows kept at each step: those nearest to an atom.
    iterations : int, default 30
    anchors : (ndarray of shape (k, d), ndarray of shape (k, d)), optional
        Pairs (x, x^T S) known exactly, e.g. from constant sequences; they are
        imposed on the start and kept in every fit with a large weight.

    Returns
    -------
    ndarray of shape (d, d)

    Notes
    -----
    Alternate: give each row its nearest atom ``x_b^T S``; keep the fraction
    ``keep`` of rows with the smallest distance; refit S by least squares of
    ``Y[N, a]`` on ``x_b``. Stops when S no longer changes. A local method: it
    needs a start in the basin of the true S (chapter 8 measures when it has one).

    Examples
    --------
    >>> from attnlib.sculpt import crude_sum_W, planted_instance, trimmed_sum_W
    >>> heads = planted_instance(2, 8, scale=6.0, rng=0)
    >>> X = boolean_inputs(4000, 4, 8, rng=1)
    >>> Y = attention(X, heads)
    >>> S = trimmed_sum_W(X, Y, crude_sum_W(X, Y))
    >>> bool(np.linalg.norm(S - heads.W.sum(0)) < 0.1 * np.linalg.norm(heads.W.sum(0)))
    True
    """
    X, Y = check_data(X, Y)
    S = check_matrix("init", init, X.shape[-1])
    keep = check_positive_float("keep", keep)
    if keep > 1:
        raise ValueError(f"keep must be in (0, 1]; received {keep}")
    iterations = check_positive_int("iterations", iterations)
    d = X.shape[-1]
    T, L = (np.zeros((0, d)), np.zeros((0, d))) if anchors is None else (np.asarray(a, dtype=float) for a in anchors)
    if len(T):
        S = S + lstsq(T, L - T @ S, min_norm=True).x  # nearest start that fits the anchors
    weight = 1e3
    N, n, _ = X.shape
    for _ in range(iterations):
        b, r = atom_residuals(X, Y, S)
        tokens = gather_tokens(X, b).reshape(N * n, d)
        rows = spanning_prefix(tokens, np.argsort(r.ravel()), int(np.ceil(keep * N * n)), phase="phase 1")
        A = np.vstack([tokens[rows], weight * T])
        B = np.vstack([Y.reshape(N * n, d)[rows], weight * L])
        new = lstsq(A, B).x
        if np.allclose(new, S, rtol=1e-12, atol=1e-14):
            break
        S = new
    return S


def estimate_sum_W(X, Y) -> tuple[np.ndarray, dict]:
    """Phase 1: the best data-only estimate of ``sum_i W_i`` among the crude, trimmed and exact ones.

    The trimmed regression starts from the crude estimate and is anchored on
    the constant sequences, if there are any; the exact estimate
    (:func:`constant_sum_W`) is a candidate when they span R^d.

    Parameters
    ----------
    X : array_like of shape (N, n, d), entries ±1
    Y : array_like of shape (N, n, d)

    Returns
    -------
    S : ndarray of shape (d, d)
    info : dict
        ``"candidates"`` (name -> estimate), ``"atom_score"`` (name -> the sum
        of :func:`atom_score` at q = 0.05 and q = 0.2) and ``"chosen"``: the
        candidate with the lowest score.

    Examples
    --------
    >>> from attnlib.sculpt import estimate_sum_W, planted_instance
    >>> heads = planted_instance(2, 4, rng=0)
    >>> X = boolean_inputs(4000, 3, 4, rng=1)
    >>> S, info = estimate_sum_W(X, attention(X, heads))
    >>> sorted(info["candidates"]), bool(np.allclose(S, heads.W.sum(0)))
    (['constant', 'crude', 'trimmed'], True)
    """
    X, Y = check_data(X, Y)
    crude = crude_sum_W(X, Y)
    same = constant_sequences(X)
    anchors = (X[same, 0], Y[same, 0]) if same.any() else None
    candidates = {"crude": crude, "trimmed": trimmed_sum_W(X, Y, crude, anchors=anchors)}
    try:
        candidates["constant"] = constant_sum_W(X, Y)
    except SculptError:
        pass
    scores = {name: _atom_score(X, Y, S) + _atom_score(X, Y, S, q=0.2) for name, S in candidates.items()}
    chosen = min(scores, key=lambda name: (scores[name], name != "constant"))
    return candidates[chosen], {"candidates": candidates, "atom_score": scores, "chosen": chosen}
