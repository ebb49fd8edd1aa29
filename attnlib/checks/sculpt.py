"""Checks for the coding exercises of Part III (chapters 7-9): the book's reconstruction of sculpting.

Logit gaps, the halfspaces of certified rows, and least squares for the
projections given the attention matrices (the certificate of a candidate).
"""

from __future__ import annotations

import numpy as np

from ..attention import attention
from ..heads import Heads
from ..inputs import boolean_inputs
from ._core import Case, CheckFailure, case_rng, run_check

__all__ = ["check_fit_W", "check_halfspaces", "check_logit_gaps"]


def check_logit_gaps(fn) -> None:
    """Check all logit gaps of one head: ``fn(X, Theta)`` with X (N, n, d) and Theta (d, d).

    Returns G of shape (N, n, n, n) with ``G[N, a, b, c] = x_a^T Theta (x_b - x_c)``,
    which equals ``log A[a, b] - log A[a, c]`` for ``A = softmax(X Theta X^T)``.

    Examples
    --------
    >>> from attnlib.sculpt import logit_gaps
    >>> check_logit_gaps(logit_gaps)
    check_logit_gaps: all 4 cases passed.
    """
    rng = case_rng(601)
    specs = [("Boolean, N=3, n=3, d=4", boolean_inputs(3, 3, 4, rng=rng)),
             ("Boolean, n=4 > d=2", boolean_inputs(2, 4, 2, rng=rng)),
             ("Gaussian, N=2, n=2, d=3", rng.normal(size=(2, 2, 3))),
             ("one token", boolean_inputs(2, 1, 3, rng=rng))]
    cases = []
    for name, X in specs:
        d = X.shape[-1]
        Theta = rng.normal(size=(d, d))                            # not symmetric: order matters
        S = np.einsum("Nap,pq,Nbq->Nab", X, Theta, X)
        cases.append(Case(name, (X, Theta), S[:, :, :, None] - S[:, :, None, :]))

    def variants(case):
        X, Theta = case.args
        S = np.einsum("Nap,pq,Nbq->Nab", X, Theta, X)
        T = S.swapaxes(1, 2)                                         # x_b^T Theta x_a
        return {"the gaps with Theta transposed (x_b^T Theta x_a - x_c^T Theta x_a): the query is on the left":
                T[:, :, :, None] - T[:, :, None, :],
                "the logits x_a^T Theta x_b themselves, repeated over c, not their differences":
                np.broadcast_to(S[:, :, :, None], case.expected.shape)}

    run_check("check_logit_gaps", fn, cases, ["X", "Theta"], rtol=1e-9, atol=1e-10, label="G", variants=variants,
              sizes=lambda case: dict(zip("nd", case.args[0].shape[1:], strict=True)),
              axes=("example", "query a", "token b", "competitor c"),
              slip="G[i, a, b, c] = x_a^T Theta (x_b - x_c): the query x_a on the left of Theta, b minus c.")


def check_fit_W(fn) -> None:
    """Check least squares for the projections given the attention matrices: ``fn(X, Y, Theta)``.

    X and Y have shape (N, n, d), Theta shape (m, d, d). Returns ``(W, residual)``:
    W of shape (m, d, d) minimising ``||F(X) - Y||`` over all projections, with
    ``F(X) = sum_i softmax(X Theta_i X^T) X W_i``, and the relative residual
    ``||F(X) - Y||_F / ||Y||_F`` of that fit. In every case the minimiser is unique.

    Examples
    --------
    >>> from attnlib.sculpt import fit_W
    >>> check_fit_W(fit_W)
    check_fit_W: all 4 cases passed.
    """
    rng = case_rng(602)
    cases = []
    for name, N, n, d, m, noise, wrong in [("the true Theta of two heads, d=3", 200, 3, 3, 2, 0.0, 0.0),
                                           ("one head, noisy labels, d=4", 150, 3, 4, 1, 0.1, 0.0),
                                           ("a wrong Theta (residual > 0), d=3", 200, 3, 3, 2, 0.0, 1.0),
                                           ("three heads, n=4, d=4", 300, 4, 4, 3, 0.0, 0.0)]:
        teacher = Heads(2.0 * rng.normal(size=(m, d, d)) / np.sqrt(d), rng.normal(size=(m, d, d)))
        X = boolean_inputs(N, n, d, rng=rng)
        Y = attention(X, teacher) + noise * rng.normal(size=(N, n, d))
        Theta = teacher.Theta + wrong * rng.normal(size=(m, d, d))
        AX = np.stack([attention(X, Heads(Theta[i], np.eye(d))) for i in range(m)], axis=2)  # (N, n, m, d)
        design = AX.reshape(N * n, m * d)
        W, *_ = np.linalg.lstsq(design, Y.reshape(N * n, d), rcond=None)
        residual = np.linalg.norm(design @ W - Y.reshape(N * n, d)) / np.linalg.norm(Y)
        cases.append(Case(name, (X, Y, Theta), (W.reshape(m, d, d), np.array(residual)), names=("W", "residual")))
    def variants(case):
        X, Y, Theta = case.args
        W, residual = case.expected
        return {"the absolute residual ||F(X) - Y||_F: divide by ||Y||_F": (None, residual * np.linalg.norm(Y)),
                "the squared relative residual: take the square root": (None, residual**2)}

    run_check("check_fit_W", fn, cases, ["X", "Y", "Theta"], rtol=1e-6, atol=1e-8, variants=variants,
              sizes=lambda case: {"N": case.args[0].shape[0], "m": case.args[2].shape[0]},
              slip="fit all heads' W together, one least-squares problem whose design puts the m blocks "
                   "softmax(X Theta_i X^T) X side by side (not one head at a time); residual = "
                   "||F(X) - Y||_F / ||Y||_F.")


def check_halfspaces(fn) -> None:
    """Check the halfspace normals of certified rows: ``fn(X, example, query, token)``.

    X has shape (N, n, d); the integer arrays ``example``, ``query``, ``token`` of
    length C say that row ``query`` of sequence ``example`` attends to token
    ``token``. Return the distinct normals ``Z = x_a (x_b - x_c)^T`` (a the query,
    b the token) for every certified row and every competitor c whose token
    differs from x_b, as an array of shape (K, d, d) in any order.

    Examples
    --------
    >>> from attnlib.sculpt import Certificates, halfspaces
    >>> check_halfspaces(lambda X, e, a, b: halfspaces(X, Certificates(e, a, b, 0.0 * e, 1.0, X[..., 0].size)))
    check_halfspaces: all 4 cases passed.
    """
    rng = case_rng(603)
    specs = []
    for name, N, n, d, C in [("six rows, n=3, d=3", 5, 3, 3, 6), ("repeated rows, n=2, d=2", 4, 2, 2, 8),
                             ("one row, n=4, d=3", 2, 4, 3, 1), ("many rows, n=3, d=4", 20, 3, 4, 25)]:
        X = boolean_inputs(N, n, d, rng=rng)
        X[0, 1] = X[0, 0]                                             # a competitor equal to the attended token
        e = np.concatenate([[0], rng.integers(0, N, size=C - 1)])
        a, b = rng.integers(0, n, size=C), np.concatenate([[0], rng.integers(0, n, size=C - 1)])
        specs.append((name, X, e, a, b))
    cases = []
    for name, X, e, a, b in specs:
        Z = [np.outer(X[i, q], X[i, t] - X[i, c]) for i, q, t in zip(e, a, b, strict=True)
             for c in range(X.shape[1]) if np.any(X[i, c] != X[i, t])]
        d = X.shape[-1]
        expected = np.unique(np.array(Z).reshape(-1, d * d), axis=0) if Z else np.zeros((0, d * d))
        cases.append(Case(name, (X, e, a, b), expected.reshape(-1, d, d)))

    def convert(got, case):
        d = case.args[0].shape[-1]
        where = f"check_halfspaces: on case '{case.name}'"
        try:
            Z = np.asarray(got, dtype=float)
        except (TypeError, ValueError):
            raise CheckFailure(f"{where}, return an array of normals of shape (K, {d}, {d})") from None
        if Z.ndim != 3 or Z.shape[1:] != (d, d):
            raise CheckFailure(f"{where}, the normals have shape {Z.shape}; expected (K, {d}, {d})")
        flat = Z.reshape(len(Z), d * d)
        unique = np.unique(flat, axis=0)
        expected = case.expected.reshape(len(case.expected), d * d)
        for slip, turned in [("each normal is transposed: Z = x_a (x_b - x_c)^T, the query's token on the left",
                              Z.swapaxes(1, 2)),
                             ("each normal has the wrong sign: Z = x_a (x_b - x_c)^T, b the attended token, c the "
                              "competitor", -Z)]:
            if len(unique) == len(expected) and not np.array_equal(unique, expected) and np.array_equal(
                    np.unique(turned.reshape(len(Z), d * d), axis=0), expected):
                raise CheckFailure(f"{where}, the sorted normals differ: {slip}.")
        if len(unique) < len(flat):
            raise CheckFailure(f"{where}, your {len(flat)} normals hold only {len(unique)} distinct ones: "
                               "remove the duplicates")
        if not np.any(flat, axis=1).all() and len(flat):
            raise CheckFailure(f"{where}, a normal is the zero matrix: skip competitors c with x_c = x_b")
        if len(unique) != len(expected):
            raise CheckFailure(f"{where}, you returned {len(unique)} distinct normals; expected {len(expected)}. "
                               "Every certified row gives one normal per competitor c with x_c != x_b.")
        return unique.reshape(-1, d, d)                               # sorted like the reference

    run_check("check_halfspaces", fn, cases, ["X", "example", "query", "token"], rtol=1e-12, atol=1e-12,
              convert=convert, label="the sorted normals",
              slip="one normal Z = x_a (x_b - x_c)^T per certified row (a the query, b the attended token) and "
                   "per competitor c with x_c != x_b, each distinct normal once.")
