"""Checks for the coding exercises of Part III (chapters 7-9): the book's reconstruction of sculpting.

Logit gaps, the halfspaces of certified rows, and least squares for the
projections given the attention matrices (the certificate of a candidate).
"""

from __future__ import annotations

import numpy as np

from .._arguments import arguments
from ..attention import attention
from ..heads import Heads
from ..inputs import boolean_inputs
from ._core import Case, CheckFailure, case_rng, run_check

__all__ = ["check_fit_W", "check_halfspaces", "check_logit_gaps", "check_min_norm_point", "check_W_from_labels"]


@arguments(fn="function")
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


@arguments(fn="function")
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


@arguments(fn="function")
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


@arguments(fn="function")
def check_min_norm_point(fn) -> None:
    """Check the point of a body nearest the origin: ``fn(Z, gamma)``.

    Z has shape (K, d, d): the normals of the halfspaces ``<Theta, Z_k>_F >= gamma``
    of a body, with ``gamma > 0``. Return the point Theta of shape (d, d) of smallest
    Frobenius norm that lies in every halfspace (the body's min-norm point). In every
    case the body is not empty, so this point exists and is unique.

    Examples
    --------
    >>> from attnlib.sculpt import Body, min_norm_proxy
    >>> check_min_norm_point(lambda Z, gamma: min_norm_proxy(Body(Z, gamma=gamma, bound=None, certified=len(Z))))
    check_min_norm_point: all 5 cases passed.
    """
    from ..sculpt import Body, min_norm_proxy  # the reference, read lazily

    rng = case_rng(604)
    two = np.zeros((2, 2, 2))
    two[0, 0, 0], two[1, 1, 1] = 1.0, 1.0                             # Theta_11 >= 1, Theta_22 >= 1
    corner = np.array([np.diag(z) for z in ((1.0, 1.0), (1.0, 3.0), (3.0, 1.0))])
    heads = rng.normal(size=(2, 3, 3))
    gaussian = rng.normal(size=(200, 3, 3))
    gaussian = gaussian[np.einsum("kpq,ipq->ki", gaussian, heads).min(axis=1) >= 1.0]
    cube = np.array([np.outer(a, b) for a in ((1, 1), (1, -1)) for b in ((2, 0), (0, 2), (2, 2))], float)
    cube = cube[np.einsum("kpq,pq->k", cube, np.array([[1.0, 0.5], [0.2, 1.0]])) > 0]
    specs = [("two coordinates, d=2", two, 1.0),
             ("one halfspace, gamma=2", rng.normal(size=(1, 3, 3)), 2.0),
             ("three diagonal normals, d=2", corner, 1.0),
             ("features where two heads have gap >= 1, d=3", gaussian, 1.0),
             ("cube gap features, d=2, gamma=0.5", cube, 0.5)]
    cases = []
    for name, Z, gamma in specs:
        expected = min_norm_proxy(Body(Z, gamma=gamma, bound=None, certified=len(Z)))
        cases.append(Case(name, (Z, gamma), expected))
    run_check("check_min_norm_point", fn, cases, ["Z", "gamma"], rtol=1e-3, atol=1e-3, label="Theta",
              slip="the nearest point of the body to the origin: minimise ||Theta||_F subject to "
                   "<Theta, Z_k>_F >= gamma for every k (a small quadratic programme), not a mean of the normals.")


@arguments(fn="function")
def check_W_from_labels(fn) -> None:
    """Check step 2 of the exact single-head learner: ``fn(X, Y)`` returns W of shape (d, d).

    X and Y have shape (N, n, d) with n <= d, and ``Y = softmax(X Theta X^T) X W``
    for one head with W invertible. Keep the sequences whose n tokens are linearly
    independent; for each, ``q(X) = X^T (X X^T)^{-1} 1``; every row a of every kept
    sequence gives the equation ``Y_a V q(X) = 1``, linear in ``V = W^{-1}``;
    solve them by least squares and return ``W = V^{-1}``.

    Examples
    --------
    >>> from attnlib.sculpt import learn_single_head
    >>> check_W_from_labels(lambda X, Y: learn_single_head(X, Y).W[0])
    check_W_from_labels: all 4 cases passed.
    """
    rng = case_rng(604)
    cases = []
    for name, N, n, d, boolean in [("Gaussian tokens, N=40, n=3, d=4 (every sequence usable)", 40, 3, 4, False),
                                   ("Boolean, N=120, n=4, d=6 (some sequences have dependent tokens: skip them)",
                                    120, 4, 6, True),
                                   ("Boolean, N=200, n=4, d=4 (about two thirds dependent: skip them)",
                                    200, 4, 4, True),
                                   ("Gaussian tokens, N=30, n=2, d=3", 30, 2, 3, False)]:
        Theta = 2.0 * rng.normal(size=(d, d)) / np.sqrt(d)
        W = np.eye(d) + 0.5 * rng.normal(size=(d, d)) / np.sqrt(d)          # invertible, well conditioned
        X = boolean_inputs(N, n, d, rng=rng) if boolean else rng.normal(size=(N, n, d))
        Y = attention(X, Heads(Theta[None], W[None]))
        cases.append(Case(name, (X, Y), W))

    def convert(got, case):
        where = f"check_W_from_labels: on case '{case.name}'"
        W = case.expected
        try:
            G = np.asarray(got, dtype=float)
        except (TypeError, ValueError):
            raise CheckFailure(f"{where}, return W as an array of shape {W.shape}") from None
        if G.shape == (1,) + W.shape:
            G = G[0]                                                        # Heads-style (1, d, d) is fine
        if G.shape == W.shape and np.all(np.isfinite(G)) and not np.allclose(G, W, rtol=1e-6, atol=1e-8):
            if np.allclose(G, np.linalg.inv(W), rtol=1e-6, atol=1e-8):
                raise CheckFailure(f"{where}, you returned V = W^-1, the solution of the row equations; "
                                   "return its inverse W")
            if np.allclose(G, W.T, rtol=1e-6, atol=1e-8) or np.allclose(G, np.linalg.inv(W).T, rtol=1e-6, atol=1e-8):
                raise CheckFailure(f"{where}, your W is transposed: with V[p, r] the unknowns, row a of sequence k "
                                   "gives the equation sum_(p, r) Y[k, a, p] V[p, r] q[k, r] = 1 (flatten Y_a q^T, "
                                   "not q Y_a^T)")
        return G

    run_check("check_W_from_labels", fn, cases, ["X", "Y"], rtol=1e-6, atol=1e-8, convert=convert, label="W",
              slip="skip sequences whose tokens are dependent (matrix_rank(X) < n); one equation per row a, with "
                   "coefficients F(X)_a q(X)^T flattened like V; solve for V = W^-1, then return its inverse.")
