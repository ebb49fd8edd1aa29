"""A hard family for learning softmax attention: a parity hidden in m heads.

The book's own construction (chapter 10), in the spirit of the statistical-query
lower bound of Chen and Li; it is not their construction, which was not
available to us. Two tokens (n = 2), a hidden set S of s coordinates, a
read-out coordinate r outside S, and m = s + 1 heads

    Theta_i = beta_i diag(1_S),    W_i = c_i e_r e_0^T.

With z = x_1 * x_2 (entrywise), the logit gap of head i in row 1 is
beta_i u, u = sum_{j in S} (1 - z_j) = 2 #{j in S : z_j = -1}, so
A_i[0, 0] = sigmoid(beta_i u). The weights c solve

    sum_i c_i sigmoid(2 beta_i j) = (-1)^j,   j = 0, ..., s,

and then, exactly,

    F(X)[0, 0] = 2 x_{2,r} + (x_{1,r} - x_{2,r}) chi_S(x_1) chi_S(x_2),

a linear term plus two parities of degree 2s + 1 (row 2 is the mirror image;
every other output entry is 0). This module builds the family, does the
statistical-query count and runs the gradient baseline on it. The exact Fourier
spectra and the low-degree regression baseline live in
:mod:`attnlib.boolean_fourier`, the parity learners in :mod:`attnlib.parities`;
both are re-exported here.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from ._validation import as_float_array, check_positive_float, check_positive_int, check_sequences
from .attention import attention
from .boolean_fourier import (
    FourierSpectrum,
    LowDegreeCurve,
    LowDegreeFit,
    boolean_cube,
    feature_count,
    fourier_spectrum,
    low_degree_curve,
    low_degree_regression,
    monomial_features,
    walsh_hadamard,
)
from .heads import Heads
from .inputs import boolean_inputs
from .parities import parity_by_elimination, parity_by_enumeration
from .training import train

__all__ = [
    "FourierSpectrum",
    "GDRun",
    "LowDegreeCurve",
    "LowDegreeFit",
    "ParityInstance",
    "alternating_sigmoid_sum",
    "boolean_cube",
    "decode_parity_examples",
    "feature_count",
    "fourier_spectrum",
    "gd_experiment",
    "low_degree_curve",
    "low_degree_regression",
    "monomial_features",
    "parity_betas",
    "parity_by_elimination",
    "parity_by_enumeration",
    "parity_coefficients",
    "parity_heads",
    "parity_instance",
    "sq_correlations",
    "sq_dimension",
    "sq_query_lower_bound",
    "walsh_hadamard",
]

#: beta of the last head: sigmoid(2 * 20) rounds to 1 in float64, so that head attends hard.
HARD_BETA = 20.0
#: scale b of the default spacing beta_k = b k / (s - k).
BETA_SCALE = 0.35
#: cond(M) * eps above this value triggers a warning: c is then accurate to fewer than 8 digits.
_RELATIVE_ACCURACY = 1e-8


def _sigmoid(t: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * t))


def _check_s(s) -> int:
    if isinstance(s, (int, np.integer)) and not isinstance(s, bool) and s < 1:
        raise ValueError(f"s (the size of the hidden set, m = s + 1 heads) must be at least 1; received s={s}")
    return check_positive_int("s", s)


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
    minimises ``sum_i |c_i|`` (found by a numerical search); it stays within a
    factor 1.2 of that minimum for s <= 6. Scales of both signs do better (4
    instead of 10 at s = 1), but no scales go below ``2**(s + 1)``
    (:func:`alternating_sigmoid_sum`). Section 10.1 of the book.

    Examples
    --------
    >>> parity_betas(2)
    array([ 0.  ,  0.35, 20.  ])
    """
    s = _check_s(s)
    k = np.arange(s, dtype=float)
    return np.append(BETA_SCALE * k / (s - k), HARD_BETA)


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
    s = _check_s(s)
    betas = parity_betas(s) if betas is None else as_float_array("betas", betas)
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
    s = _check_s(s)
    betas = as_float_array("betas", betas)
    k = np.arange(s + 1)
    weights = np.array([math.comb(s, int(j)) * (-1.0) ** j for j in k])  # (s + 1,)
    return _sigmoid(2.0 * betas[..., None] * k) @ weights  # (..., s + 1) @ (s + 1,)


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

    @property
    def s(self) -> int:
        return len(self.support)

    @property
    def d(self) -> int:
        return self.heads.d

    @property
    def m(self) -> int:
        return self.heads.m

    def parity(self, X) -> np.ndarray:
        """``chi_S(x_1) chi_S(x_2)`` for each sequence of a batch X of shape (N, 2, d); shape (N,)."""
        X = _check_pairs(X, self.d)
        return np.prod(X[:, 0, list(self.support)] * X[:, 1, list(self.support)], axis=1)

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
    rng = np.random.default_rng(rng)
    d = check_positive_int("d", d)
    s = _check_s(s)
    if d < s + 1:
        raise ValueError(f"d={d} is too small for s={s}: the hidden set S needs s coordinates besides the "
                         f"read-out coordinate r, so d must be at least s + 1 = {s + 1}")
    betas = parity_betas(s) if betas is None else as_float_array("betas", betas)
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


def parity_heads(d: int, s: int, *, rng=None) -> Heads:
    """The heads of :func:`parity_instance` (m = s + 1 heads, for n = 2 tokens).

    Examples
    --------
    >>> parity_heads(5, 3, rng=0)
    Heads(m=4, d=5)
    """
    return parity_instance(d, s, rng=rng).heads


# --- the statistical-query count ---------------------------------------------------------------


def sq_dimension(d: int, s: int) -> int:
    """Number of pairwise orthogonal parity parts in the family with read-out r fixed: C(d - 1, s).

    Examples
    --------
    >>> sq_dimension(6, 2), sq_dimension(100, 3)
    (10, 156849)
    """
    d = check_positive_int("d", d)
    s = _check_s(s)
    if d < s + 1:
        raise ValueError(f"d={d} is too small for s={s}: d must be at least s + 1 = {s + 1}")
    return math.comb(d - 1, s)


def sq_query_lower_bound(d: int, s: int, tolerance: float) -> int:
    """Correlational statistical queries needed to single out the hidden set S.

    Parameters
    ----------
    d, s : int
    tolerance : float
        The accuracy tau of each answer, in (0, 1].

    Returns
    -------
    int
        ``ceil((D - 1) tau^2 / 2)`` with D = :func:`sq_dimension`.

    Notes
    -----
    A query g with E[g^2] <= 1 asks for E[g(X) y]. The label is
    ``y = 2 x_{2,r} + sqrt(2) psi_S(X)`` with orthonormal parity parts psi_S, so
    an adversary who answers E[g(X) 2 x_{2,r}] is within tau of the truth
    unless ``|<g, psi_S>| > tau / sqrt(2)``. By Bessel's inequality
    ``sum_S <g, psi_S>^2 <= 1``, that happens for at most ``2 / tau^2`` sets S.
    So q queries rule out at most ``2 q / tau^2`` of the D candidates, and
    identifying S needs ``q >= (D - 1) tau^2 / 2``. Section 10.5 of the book.

    Examples
    --------
    >>> sq_query_lower_bound(100, 3, 0.01)
    8
    >>> sq_query_lower_bound(100, 3, 0.1)
    785
    """
    tolerance = check_positive_float("tolerance", tolerance)
    if tolerance > 1:
        raise ValueError(f"tolerance must be in (0, 1]; received {tolerance}")
    D = sq_dimension(d, s)
    return math.ceil((D - 1) * tolerance**2 / 2)


def sq_correlations(values, d: int, s: int) -> np.ndarray:
    """Correlations ``<g, psi_S>`` of a query with every normalised parity part of the family.

    Parameters
    ----------
    values : array_like of shape (2**(2 d),)
        The query g on :func:`boolean_cube` (2, d).
    d, s : int

    Returns
    -------
    ndarray of shape (C(d - 1, s),)
        One entry per hidden set S (in ``itertools.combinations`` order), where
        ``psi_S = (x_{1,r} - x_{2,r}) chi_S(x_1) chi_S(x_2) / sqrt(2)``, r = d - 1.

    Examples
    --------
    >>> X = boolean_cube(2, 4)
    >>> g = X[:, 0, 3] * X[:, 0, 1] * X[:, 1, 1]
    >>> (sq_correlations(g, 4, 1) ** 2).round(3)
    array([0. , 0.5, 0. ])
    """
    from itertools import combinations

    D = sq_dimension(d, s)
    coefficients = walsh_hadamard(values)
    if coefficients.size != 4**d:
        raise ValueError(f"values must hold the query on all 2**(2*d) = {4**d} inputs; received {coefficients.size}")
    r = d - 1
    out = np.empty(D)
    for q, S in enumerate(combinations(range(d - 1), s)):
        both = sum((1 << j) | (1 << (d + j)) for j in S)
        out[q] = (coefficients[both | (1 << r)] - coefficients[both | (1 << (d + r))]) / np.sqrt(2.0)
    return out


# --- beyond statistical queries: the parity is noiseless, so linear algebra finds it ----------


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
    y = as_float_array("y", y)
    if y.shape != (X3.shape[0],):
        raise ValueError(f"y must have shape ({X3.shape[0]},); received shape {y.shape}")
    if not (isinstance(readout, (int, np.integer)) and 0 <= readout < d):
        raise ValueError(f"readout must be a coordinate in [0, {d}); received {readout!r}")
    x1, x2 = X3[:, 0, readout], X3[:, 1, readout]
    keep = x1 != x2
    Z = np.delete(X3[keep, 0] * X3[keep, 1], readout, axis=1)  # (M, d - 1)
    chi = np.where((y[keep] - 2.0 * x2[keep]) / (x1[keep] - x2[keep]) >= 0, 1.0, -1.0)
    return Z, chi


# --- the gradient baseline on the family -------------------------------------------------------


@dataclass(frozen=True, eq=False)
class GDRun:
    """One fixed-budget gradient run on a parity instance.

    Attributes
    ----------
    instance : ParityInstance
        The teacher.
    heads : Heads
        The trained student (m heads).
    loss, test_loss : ndarray of shape (epochs + 1,)
        Mean squared error over all output entries, on the training and test sets.
    trivial : float
        ``2 / d``: the error of predicting the linear term and nothing of the parity.
    seconds : float
    """

    instance: ParityInstance
    heads: Heads
    loss: np.ndarray
    test_loss: np.ndarray
    trivial: float
    seconds: float

    @property
    def relative_test_loss(self) -> np.ndarray:
        """``test_loss / trivial``: 1 means no part of the parity was learned, 0 all of it."""
        return self.test_loss / self.trivial

    def __repr__(self) -> str:
        return (f"GDRun(d={self.instance.d}, s={self.instance.s}, m={self.heads.m}, epochs={self.loss.size - 1}, "
                f"final relative test loss={self.relative_test_loss[-1]:.3g})")


def gd_experiment(d: int, s: int, *, N: int = 1024, N_test: int = 512, epochs: int = 200, lr: float = 0.03,
                  batch_size: int | None = 128, m: int | None = None, schedule: str = "cosine",
                  rng=None) -> GDRun:
    """Adam (:func:`attnlib.train`) on a parity instance with a fixed budget.

    Parameters
    ----------
    d, s : int
        The instance (:func:`parity_instance`).
    N, N_test : int
        Training and test examples, uniform on {-1, +1}^(2 x d); targets at every position.
    epochs, lr, batch_size, schedule
        The budget, passed to :func:`attnlib.train`.
    m : int, optional
        Heads of the student; default s + 1, as the teacher.
    rng : int, numpy.random.Generator or None
        Split into independent streams for the instance, the data and the training.

    Returns
    -------
    GDRun

    Notes
    -----
    The test loss is compared with ``2 / d``, the error of a predictor that has
    the linear term ``2 x_{2,r}`` (and its mirror) but nothing of the parity:
    every polynomial of degree <= 2s does at best that. Section 10.4.

    Examples
    --------
    >>> run = gd_experiment(4, 1, N=64, N_test=64, epochs=3, rng=0)
    >>> run.loss.shape, run.heads
    ((4,), Heads(m=2, d=4))
    """
    rng = np.random.default_rng(rng)
    N, N_test = check_positive_int("N", N), check_positive_int("N_test", N_test)
    r_inst, r_train, r_test, r_fit = rng.spawn(4)
    instance = parity_instance(d, s, rng=r_inst)
    X = boolean_inputs(N, 2, d, rng=r_train)
    X_test = boolean_inputs(N_test, 2, d, rng=r_test)
    m = instance.m if m is None else check_positive_int("m", m)
    result = train(X, attention(X, instance.heads), m, epochs=epochs, lr=lr, batch_size=batch_size,
                   schedule=schedule, X_val=X_test, Y_val=attention(X_test, instance.heads), rng=r_fit)
    return GDRun(instance, result.heads, result.loss, result.val_loss, 2.0 / d, result.seconds)
