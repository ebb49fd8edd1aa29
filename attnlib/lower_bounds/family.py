"""The hard family: a parity hidden in m = s + 1 softmax heads (chapter 10; see :mod:`attnlib.lower_bounds`)."""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from .._arguments import arguments
from .._validation import check_sequences
from ..heads import Heads

__all__ = [
    "ParityInstance",
    "ScaleSearch",
    "alternating_sigmoid_sum",
    "decode_parity_examples",
    "parity_betas",
    "parity_coefficients",
    "parity_heads",
    "parity_instance",
    "search_parity_betas",
]

#: beta of the last head: sigmoid(2 * 20) rounds to 1 in float64, so that head attends hard.
HARD_BETA = 20.0
#: scale b of the default spacing beta_k = b k / (s - k).
BETA_SCALE = 0.35
#: cond(M) * eps above this value triggers a warning: c is then accurate to fewer than 8 digits.
_RELATIVE_ACCURACY = 1e-8


def _sigmoid(t: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * t))


@arguments(s="size")
def parity_betas(s: int) -> np.ndarray:
    """The default attention scales beta_0, ..., beta_s of the parity family.

    Parameters
    ----------
    s : int
        Size of the hidden set (m = s + 1 heads).

    Returns
    -------
    betas : ndarray of shape (s + 1,)
        ``beta_k = 0.35 k / (s - k)`` for k < s (head 0 attends uniformly), and
        ``beta_s = 20`` (a hard head).

    Notes
    -----
    The formula is a two-parameter fit to the non-negative spacing that
    minimises ``sum_i |c_i|`` (found by a numerical search,
    :func:`search_parity_betas`); it stays within a factor 1.2 of that minimum
    for s <= 6. Scales of both signs do better (4
    instead of 10 at s = 1), but no scales go below ``2**(s + 1)``
    (:func:`alternating_sigmoid_sum`). Section 10.1 of the book.

    Examples
    --------
    >>> parity_betas(2)
    array([ 0.  ,  0.35, 20.  ])
    """
    k = np.arange(s, dtype=float)
    return np.append(BETA_SCALE * k / (s - k), HARD_BETA)


@arguments(s="size", betas="optarray")
def parity_coefficients(s: int, *, betas=None) -> np.ndarray:
    """The projection weights c that turn s + 1 sigmoids into an alternating sign.

    Parameters
    ----------
    s : int
        Size of the hidden set.
    betas : array_like of shape (s + 1,), optional
        Distinct attention scales; default :func:`parity_betas`.

    Returns
    -------
    c : ndarray of shape (s + 1,)
        Solves ``sum_i c_i sigmoid(2 beta_i j) = (-1)**j`` for j = 0..s.
        The row j = 0 forces ``sum_i c_i = 2``.

    Warns
    -----
    RuntimeWarning
        If the system is ill-conditioned (``cond * eps > 1e-8``, from s = 10 with
        the default spacing): c, and the parity built from it, are then
        accurate to fewer than eight digits.

    Notes
    -----
    The matrix ``M[j, i] = sigmoid(2 beta_i j)`` is solved by LU
    (``np.linalg.solve``) with one step of iterative refinement. The weights
    grow exponentially in s: for any distinct real scales,
    ``sum |c_i| >= 2**(s + 1)`` (see :func:`alternating_sigmoid_sum`), and with
    the default spacing ``sum |c_i|`` is about 10, 28, 155, 711, 3.4e3, 1.8e4
    for s = 1..6 (measured: roughly a factor 5 per step).

    Examples
    --------
    >>> c = parity_coefficients(1)
    >>> c.round(6), float(c.sum())
    (array([ 6., -4.]), 2.0)
    """
    betas = parity_betas(s) if betas is None else betas
    if betas.shape != (s + 1,):
        raise ValueError(f"betas must have shape (s + 1,) = ({s + 1},) for s={s}; received shape {betas.shape}")
    if np.unique(betas).size != betas.size:
        raise ValueError(f"betas must be distinct (equal scales give equal heads and a singular system); "
                         f"received {betas}")
    j = np.arange(s + 1)
    M = _sigmoid(2.0 * np.outer(j, betas))  # (s + 1, s + 1): M[j, i] = A_i[0, 0] when u = 2j
    target = (-1.0) ** j
    try:
        c = np.linalg.solve(M, target)
        c = c + np.linalg.solve(M, target - M @ c)  # one step of iterative refinement
    except np.linalg.LinAlgError:
        raise ValueError(f"the system for the weights is singular for betas={betas}; use distinct, "
                         f"moderate scales (see parity_betas)") from None
    cond = np.linalg.cond(M)
    if not np.isfinite(cond) or cond * np.finfo(float).eps > _RELATIVE_ACCURACY:
        warnings.warn(
            f"the weight system for s={s} is ill-conditioned (condition number {cond:.2g}, sum |c| = "
            f"{np.abs(c).sum():.2g}): the weights and the parity they build are accurate only to about "
            f"{cond * np.finfo(float).eps:.1g}",
            RuntimeWarning,
            stacklevel=2,
        )
    return c


@arguments(s="size", betas="array")
def alternating_sigmoid_sum(s: int, betas) -> np.ndarray:
    """The alternating sum ``T(beta) = sum_k C(s, k) (-1)**k sigmoid(2 beta k)``, k = 0..s.

    Parameters
    ----------
    s : int
        Size of the hidden set, at least 1.
    betas : array_like
        Attention scales, any real numbers and any shape.

    Returns
    -------
    ndarray of the shape of betas
        ``T(beta)`` for each scale. It lies in [-1/2, 1/2]; it is 0 at beta = 0,
        odd in beta, and tends to -1/2 as beta -> +inf.

    Notes
    -----
    Combining the rows of the system of :func:`parity_coefficients` with the
    weights ``C(s, j) (-1)**j`` gives ``sum_i c_i T(beta_i) = 2**s``, so
    ``sum_i |c_i| >= 2**s / max_i |T(beta_i)| >= 2**(s + 1)``. Chapter 10 proves
    ``|T| <= 1/2`` (an alternating series in ``exp(-2 beta)``).

    Examples
    --------
    >>> alternating_sigmoid_sum(1, [0.0, 20.0, -20.0])
    array([ 0. , -0.5,  0.5])
    >>> c, betas = parity_coefficients(3), parity_betas(3)
    >>> round(float(c @ alternating_sigmoid_sum(3, betas)), 9)
    8.0
    """
    k = np.arange(s + 1)
    weights = np.array([math.comb(s, int(j)) * (-1.0) ** j for j in k])  # (s + 1,)
    return _sigmoid(2.0 * betas[..., None] * k) @ weights  # (..., s + 1) @ (s + 1,)


@dataclass(frozen=True, eq=False)
class ScaleSearch:
    """The smallest total weight a numerical search found for the parity family at one s.

    Attributes
    ----------
    s : int
        Size of the hidden set (m = s + 1 heads).
    signed : bool
        Whether the scales could take both signs (else they were kept >= 0).
    betas : ndarray of shape (s + 1,)
        The best scales found, sorted.
    total : float
        ``sum_i |c_i|`` at ``betas`` (:func:`parity_coefficients`).
    default_total : float
        ``sum_i |c_i|`` at the default scales :func:`parity_betas`.
    starts : int
        Local searches run: one from the default scales, the others random.
    """

    s: int
    signed: bool
    betas: np.ndarray
    total: float
    default_total: float
    starts: int

    @property
    def ratio(self) -> float:
        """``default_total / total``: how far the default scales are from the best found (>= 1)."""
        return self.default_total / self.total

    def __repr__(self) -> str:
        kind = "signed" if self.signed else "non-negative"
        return (f"ScaleSearch(s={self.s}, {kind}, sum|c|={self.total:.4g}, default {self.default_total:.4g}, "
                f"ratio {self.ratio:.3g})")


def _total_weight(s: int, signed: bool):
    """sum_i |c_i| and its gradient, as a function of u (betas = u, or u**2 when not signed)."""
    j = np.arange(s + 1.0)
    target = (-1.0) ** j

    def value_and_gradient(u):
        betas = u if signed else u**2
        T = np.tanh(np.outer(j, betas))  # (s + 1, s + 1): M = (1 + T) / 2 = sigmoid(2 beta_i j)
        M = 0.5 * (1.0 + T)
        try:
            c = np.linalg.solve(M, target)
            w = np.linalg.solve(M.T, np.sign(c))
        except np.linalg.LinAlgError:
            return 1e300, np.zeros_like(u)
        total = float(np.abs(c).sum())
        if not np.isfinite(total):
            return 1e300, np.zeros_like(u)
        # d c / d beta_i = -M^{-1} (dM/d beta_i) c, and dM/d beta_i has only column i
        dM = 0.5 * j[:, None] * (1.0 - T**2)  # dM[j, i] / d beta_i
        gradient = -c * (w @ dM)
        return total, (gradient if signed else 2.0 * u * gradient)

    return value_and_gradient


@arguments(s="size", signed="flag", starts="size", rng="rng")
def search_parity_betas(s: int, *, signed: bool = False, starts: int = 5, rng=None) -> ScaleSearch:
    """Search for the scales beta that make the weights of the parity family smallest.

    Minimises ``sum_i |c_i|`` over the scales by BFGS with the exact gradient,
    from the default scales and from ``starts - 1`` random ones, and keeps the best.

    Parameters
    ----------
    s : int
        Size of the hidden set (m = s + 1 heads).
    signed : bool, default False
        Let the scales take both signs; by default they stay non-negative (as
        the default scales do).
    starts : int, default 5
        Local searches: one from :func:`parity_betas`, the others from scales
        drawn uniformly in [0, 2] (or [-1, 2] when signed).
    rng : int, numpy.random.Generator or None
        Draws the random starts.

    Returns
    -------
    ScaleSearch
        The best scales found and their total weight, beside the default's.

    Notes
    -----
    A local search: the best it finds is an upper bound on the smallest total
    weight, never below ``2**(s + 1)`` (:func:`alternating_sigmoid_sum`). The
    search includes the default scales, so ``ratio >= 1``. Some optima lie at
    infinity (for s = 1 the scales -beta, beta with beta -> infinity approach
    the bound 4); BFGS then stops where the weights no longer change in float64.
    Section 10.1 of the book.

    Examples
    --------
    >>> found = search_parity_betas(1, rng=0)
    >>> round(found.total, 6), round(found.default_total, 6)
    (10.0, 10.0)
    >>> round(search_parity_betas(1, signed=True, rng=0).total, 6)
    4.0
    """
    from scipy.optimize import minimize

    f = _total_weight(s, signed)
    default = parity_betas(s)
    initial = [default] + [np.sort(rng.uniform(-1.0 if signed else 0.0, 2.0, s + 1)) for _ in range(starts - 1)]
    best_total, best_betas = np.inf, default
    for betas in initial:
        u0 = betas if signed else np.sqrt(betas)
        found = minimize(f, u0, jac=True, method="BFGS", options={"maxiter": 5000, "gtol": 1e-9})
        betas_found = found.x if signed else found.x**2
        if np.unique(betas_found).size < betas_found.size:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a far-out optimum may be ill-conditioned
            total = float(np.abs(parity_coefficients(s, betas=betas_found)).sum())
        if total < best_total:
            best_total, best_betas = total, np.sort(betas_found)
    default_total = float(np.abs(parity_coefficients(s)).sum())
    best_betas = best_betas.copy()
    best_betas.setflags(write=False)
    return ScaleSearch(s, signed, best_betas, min(best_total, default_total), default_total, starts)


@dataclass(frozen=True, eq=False)
class ParityInstance:
    """A member of the parity family, with its ground truth.

    Attributes
    ----------
    heads : Heads
        m = s + 1 heads of dimension d.
    support : tuple of int
        The hidden set S (0-based coordinates, sorted), of size s.
    readout : int
        The read-out coordinate r = d - 1.
    betas, coefficients : ndarray of shape (s + 1,)
        The attention scales beta_i and the weights c_i.
    """

    heads: Heads
    support: tuple
    readout: int
    betas: np.ndarray
    coefficients: np.ndarray

    def __post_init__(self):
        d, m = self.heads.d, self.heads.m
        support = self.support
        if not (isinstance(support, tuple) and all(isinstance(j, int) and 0 <= j < d for j in support)):
            raise ValueError(f"support must be a tuple of coordinates in 0 .. {d - 1}; received {support!r}")
        if not self.readout < d or self.readout in support:
            raise ValueError(f"readout must be a coordinate in 0 .. {d - 1} outside the support; received "
                             f"{self.readout}")
        if self.betas.shape != (m,) or self.coefficients.shape != (m,):
            raise ValueError(f"betas and coefficients must have one entry per head, shape ({m},); received shapes "
                             f"{self.betas.shape} and {self.coefficients.shape}")

    @property
    def s(self) -> int:
        return len(self.support)

    @property
    def d(self) -> int:
        return self.heads.d

    @property
    def m(self) -> int:
        return self.heads.m

    @arguments(X="array")
    def parity(self, X) -> np.ndarray:
        """``chi_S(x_1) chi_S(x_2)`` for each sequence of a batch X of shape (N, 2, d); shape (N,)."""
        X = _check_pairs(X, self.d)
        return np.prod(X[:, 0, list(self.support)] * X[:, 1, list(self.support)], axis=1)

    @arguments(X="array")
    def formula(self, X) -> np.ndarray:
        """The closed form of the layer's output on a batch X of shape (N, 2, d); shape (N, 2, d).

        Entry (0, 0) is ``2 x_{2,r} + (x_{1,r} - x_{2,r}) chi``, entry (1, 0) is
        ``2 x_{1,r} + (x_{2,r} - x_{1,r}) chi`` with ``chi = chi_S(x_1) chi_S(x_2)``,
        and every other entry is 0.
        """
        X = _check_pairs(X, self.d)
        chi = self.parity(X)
        x1, x2 = X[:, 0, self.readout], X[:, 1, self.readout]
        F = np.zeros_like(X)
        F[:, 0, 0] = 2.0 * x2 + (x1 - x2) * chi
        F[:, 1, 0] = 2.0 * x1 + (x2 - x1) * chi
        return F

    def __repr__(self) -> str:
        return (f"ParityInstance(d={self.d}, s={self.s}, m={self.m}, S={self.support}, r={self.readout}, "
                f"sum|c|={np.abs(self.coefficients).sum():.3g})")


def _check_pairs(X, d: int) -> np.ndarray:
    X3, _ = check_sequences(X, d=d)
    if X3.shape[1] != 2:
        raise ValueError(f"the parity family has n=2 tokens; received sequences of shape {X3.shape[1:]}")
    return X3


@arguments(d="size", s="size", betas="optarray", rng="rng")
def parity_instance(d: int, s: int, *, betas=None, rng=None) -> ParityInstance:
    """Draw a member of the parity family: m = s + 1 heads hiding a parity of degree 2s + 1.

    Parameters
    ----------
    d : int
        Token dimension; at least s + 1 (S and r must fit).
    s : int
        Size of the hidden set S, at least 1.
    betas : array_like of shape (s + 1,), optional
        Attention scales; default :func:`parity_betas`.
    rng : int, numpy.random.Generator or None
        Draws S uniformly among the s-subsets of {0, ..., d - 2}.

    Returns
    -------
    ParityInstance
        The heads ``Theta_i = beta_i diag(1_S)``, ``W_i = c_i e_r e_0^T`` with
        r = d - 1, and the ground truth S, r, beta, c.

    Notes
    -----
    The book's own hard family, not Chen and Li's construction (chapter 10).
    See the module docstring for the derivation of the output formula.

    Examples
    --------
    >>> inst = parity_instance(6, 2, rng=0)
    >>> inst.heads, inst.s, inst.readout
    (Heads(m=3, d=6), 2, 5)
    >>> X = boolean_inputs(100, 2, 6, rng=1)
    >>> bool(np.abs(attention(X, inst.heads) - inst.formula(X)).max() < 1e-12)
    True
    """
    if d < s + 1:
        raise ValueError(f"d={d} is too small for s={s}: the hidden set S needs s coordinates besides the "
                         f"read-out coordinate r, so d must be at least s + 1 = {s + 1}")
    betas = parity_betas(s) if betas is None else betas
    c = parity_coefficients(s, betas=betas)
    support = tuple(sorted(int(j) for j in rng.choice(d - 1, size=s, replace=False)))
    readout = d - 1
    mask = np.zeros(d)
    mask[list(support)] = 1.0
    Theta = betas[:, None, None] * np.diag(mask)[None]  # (m, d, d)
    W = np.zeros((s + 1, d, d))
    W[:, readout, 0] = c  # x @ W_i = c_i x_r e_0
    betas = betas.copy()
    betas.setflags(write=False)
    c.setflags(write=False)
    return ParityInstance(Heads(Theta, W), support, readout, betas, c)


@arguments(d="size", s="size", rng="rng")
def parity_heads(d: int, s: int, *, rng=None) -> Heads:
    """The heads of :func:`parity_instance` (m = s + 1 heads, for n = 2 tokens).

    Examples
    --------
    >>> parity_heads(5, 3, rng=0)
    Heads(m=4, d=5)
    """
    return parity_instance(d, s, rng=rng).heads


# --- beyond statistical queries: the parity is noiseless, so linear algebra finds it ----------


@arguments(X="array", y="array", readout="index")
def decode_parity_examples(X, y, *, readout: int):
    """The parity examples ``(z, chi_S(z))`` that labelled examples of the family reveal.

    Parameters
    ----------
    X : array_like of shape (N, 2, d)
    y : array_like of shape (N,)
        The output entry (0, 0): ``2 x_{2,r} + (x_{1,r} - x_{2,r}) chi_S(x_1 * x_2)``.
    readout : int
        The read-out coordinate r.

    Returns
    -------
    Z : ndarray of shape (M, d - 1)
        ``z = x_1 * x_2`` without coordinate r, for the M examples with
        ``x_{1,r} != x_{2,r}`` (about half).
    chi : ndarray of shape (M,)
        The sign of ``(y - 2 x_{2,r}) / (x_{1,r} - x_{2,r})``, which is
        ``chi_S(z)`` when the labels are exact.

    Examples
    --------
    >>> inst = parity_instance(5, 2, rng=0)
    >>> X = boolean_inputs(40, 2, 5, rng=1)
    >>> Z, chi = decode_parity_examples(X, attention(X, inst.heads)[:, 0, 0], readout=4)
    >>> bool(np.all(chi == np.prod(Z[:, list(inst.support)], axis=1)))
    True
    """
    X3, _ = check_sequences(X)
    if X3.shape[1] != 2:
        raise ValueError(f"the parity family has n=2 tokens; received sequences of shape {X3.shape[1:]}")
    d = X3.shape[2]
    if y.shape != (X3.shape[0],):
        raise ValueError(f"y must have shape ({X3.shape[0]},); received shape {y.shape}")
    if not readout < d:
        raise ValueError(f"readout must be a coordinate in [0, {d}); received {readout!r}")
    x1, x2 = X3[:, 0, readout], X3[:, 1, readout]
    keep = x1 != x2
    Z = np.delete(X3[keep, 0] * X3[keep, 1], readout, axis=1)  # (M, d - 1)
    chi = np.where((y[keep] - 2.0 * x2[keep]) / (x1[keep] - x2[keep]) >= 0, 1.0, -1.0)
    return Z, chi


