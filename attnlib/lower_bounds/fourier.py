"""Fourier analysis on the Boolean hypercube, and the low-degree regression baseline.

A function f of n tokens in {-1, +1}^d is a polynomial in the K = n*d entries
of X, ``f = sum_T f_hat(T) chi_T`` with ``chi_T(X) = prod_{k in T} X_k`` and
``f_hat(T) = E[f chi_T]`` under the uniform distribution. The monomials are
orthonormal, so the best approximation of degree <= D keeps the terms with
|T| <= D and leaves the error ``sum_{|T|>D} f_hat(T)^2``. Chapter 10 of the book
uses this to show that a parity hidden in attention heads is invisible to every
low-degree statistic. Everything here enumerates or samples the hypercube; the
enumeration needs n*d <= 20.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from .._arguments import arguments, choice, structure
from .._linalg import lstsq
from .._validation import as_float_array, check_sequences
from ..attention import attention
from ..heads import Heads, as_heads

#: largest number of Boolean variables n * d that the enumeration functions accept.
MAX_CUBE_VARIABLES = 20
#: fall back from the normal equations to an SVD solve above this (estimated) condition number.


@arguments(n="size", d="size")
def boolean_cube(n: int, d: int) -> np.ndarray:
    """Every sequence of n tokens in {-1, +1}^d, in Walsh-Hadamard order.

    Returns
    -------
    X : ndarray of shape (2**(n*d), n, d)
        Sequence t has ``X[t, a, j] = -1`` exactly when bit ``a*d + j`` of t is set.

    Examples
    --------
    >>> boolean_cube(1, 2)[:, 0]
    array([[ 1.,  1.],
           [-1.,  1.],
           [ 1., -1.],
           [-1., -1.]])
    """
    K = n * d
    if K > MAX_CUBE_VARIABLES:
        raise ValueError(f"enumerating the hypercube needs n*d <= {MAX_CUBE_VARIABLES} variables "
                         f"(2**{MAX_CUBE_VARIABLES} inputs); received n={n}, d={d} ({K} variables)")
    bits = (np.arange(2**K)[:, None] >> np.arange(K)[None, :]) & 1  # (2**K, K)
    return (1.0 - 2.0 * bits).reshape(2**K, n, d)


@arguments(values="array")
def walsh_hadamard(values) -> np.ndarray:
    """Fourier coefficients of a function on {-1, +1}^K from its values on :func:`boolean_cube`.

    Parameters
    ----------
    values : array_like of shape (2**K,)
        ``values[t] = f(x(t))`` in the order of :func:`boolean_cube`.

    Returns
    -------
    coefficients : ndarray of shape (2**K,)
        ``coefficients[T] = E_x[f(x) chi_T(x)]``, where the bits of T name the
        variables in the monomial ``chi_T(x) = prod_{k in T} x_k``.

    Notes
    -----
    The fast transform: K butterflies of cost 2**K each, each halving its inputs
    first. Halving is exact in floating point, so this equals the transform
    divided by 2**K at the end, but no partial sum exceeds ``max |values|``:
    values near the float64 limit (1e308) give finite coefficients.

    Examples
    --------
    >>> x = boolean_cube(1, 2)[:, 0]
    >>> walsh_hadamard(x[:, 0] * x[:, 1] + 0.5)
    array([0.5, 0. , 0. , 1. ])
    """
    h = values.copy()
    size = h.size
    K = size.bit_length() - 1
    if h.ndim != 1 or size != 2**K:
        raise ValueError(f"values must have shape (2**K,) for some K; received shape {h.shape}")
    for k in range(K):
        h = h.reshape(-1, 2, 2**k) * 0.5  # axis 1 is bit k
        h = np.concatenate([h[:, :1] + h[:, 1:], h[:, :1] - h[:, 1:]], axis=1)
    return h.reshape(size)


def _popcount(idx: np.ndarray, K: int) -> np.ndarray:
    return sum((idx >> k) & 1 for k in range(K))


@dataclass(frozen=True, eq=False)
class FourierSpectrum:
    """The Fourier coefficients of one output entry, over the n*d Boolean variables of X.

    Attributes
    ----------
    coefficients : ndarray of shape (2**(n*d),)
        Indexed by bit masks: bit ``a*d + j`` stands for the variable
        ``X[a, j]`` (token a, coordinate j, 0-based).
    n, d : int
    """

    coefficients: np.ndarray
    n: int
    d: int

    def __post_init__(self):
        if self.coefficients.shape != (2 ** (self.n * self.d),):
            raise ValueError(f"coefficients must have shape (2**(n*d),) = ({2 ** (self.n * self.d)},) for n={self.n}, "
                             f"d={self.d}; received shape {self.coefficients.shape}")

    @property
    def degrees(self) -> np.ndarray:
        """Degree (number of variables) of every monomial; shape (2**(n*d),)."""
        return _popcount(np.arange(self.coefficients.size), self.n * self.d)

    def weight_by_degree(self) -> np.ndarray:
        """Sum of squared coefficients at each degree 0..n*d; sums to E[f^2] (Parseval)."""
        return np.bincount(self.degrees, weights=self.coefficients**2, minlength=self.n * self.d + 1)

    def max_abs_by_degree(self) -> np.ndarray:
        """Largest |coefficient| at each degree 0..n*d."""
        out = np.zeros(self.n * self.d + 1)
        np.maximum.at(out, self.degrees, np.abs(self.coefficients))
        return out

    @arguments(degree="count")
    def truncation_error(self, degree: int) -> float:
        """``E[(f - f_{<=D})^2]``: the error of the best polynomial of degree <= D."""
        return float(self.weight_by_degree()[degree + 1:].sum())

    @arguments(monomial=structure("a sequence of (a, j) pairs"))
    def coefficient(self, monomial) -> float:
        """The coefficient of ``prod X[a, j]`` over the (a, j) pairs in ``monomial``."""
        if isinstance(monomial, (str, bytes)) or not hasattr(monomial, "__iter__"):
            raise TypeError(f"monomial must be a sequence of (a, j) pairs; received {monomial!r}")
        mask = 0
        for pair in monomial:
            if not (isinstance(pair, (tuple, list)) and len(pair) == 2
                    and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in pair)):
                raise TypeError(f"monomial must hold pairs (a, j) of ints; received {pair!r}")
            a, j = pair
            if not (0 <= a < self.n and 0 <= j < self.d):
                raise ValueError(f"monomial entries must be pairs (a, j) with 0 <= a < {self.n} and "
                                 f"0 <= j < {self.d}; received {(a, j)}")
            mask |= 1 << (a * self.d + j)
        return float(self.coefficients[mask])

    @arguments(tol="score")
    def support(self, tol: float = 1e-9) -> list:
        """The monomials with |coefficient| > tol, as (((a, j), ...), coefficient), by degree."""
        idx = np.flatnonzero(np.abs(self.coefficients) > tol)
        idx = idx[np.argsort(self.degrees[idx], kind="stable")]
        K = self.n * self.d
        return [(tuple(divmod(k, self.d) for k in range(K) if (t >> k) & 1), float(self.coefficients[t]))
                for t in idx]

    def __repr__(self) -> str:
        return f"FourierSpectrum(n={self.n}, d={self.d}, terms={len(self.support())})"


@arguments(target=structure("Heads, or a function of a batch (N, n, d) to values (N,)"), n="size", d="optsize",
           position="index", coordinate="index", kind=choice("softmax", "linear"))
def fourier_spectrum(target, *, n: int = 2, d: int | None = None, position: int = 0, coordinate: int = 0,
                     kind: str = "softmax") -> FourierSpectrum:
    """Exact Fourier coefficients of one output entry, by enumerating all 2**(n*d) inputs.

    Parameters
    ----------
    target : Heads or callable
        Heads (the entry ``F(X)[position, coordinate]`` is analysed), or a
        function mapping a batch of shape (N, n, d) to values of shape (N,).
    n : int, default 2
        Tokens per sequence.
    d : int, optional
        Token dimension; taken from the heads when ``target`` is a Heads.
    position, coordinate : int, default 0
        Which output entry.
    kind : {"softmax", "linear"}

    Returns
    -------
    FourierSpectrum

    Notes
    -----
    ``f_hat(T) = 2**(-n d) sum_X f(X) chi_T(X)``, computed by :func:`walsh_hadamard`.
    Needs n*d <= 20. Section 10.2 of the book.

    Examples
    --------
    >>> fourier_spectrum(lambda X: X[:, 0, 0] * X[:, 1, 1] + 0.5, d=2).support()
    [((), 0.5), (((0, 0), (1, 1)), 1.0)]
    >>> uniform = Heads(np.zeros((1, 2, 2)), np.eye(2))  # F(X)[0, 0] = (X[0, 0] + X[1, 0]) / 2
    >>> fourier_spectrum(uniform).weight_by_degree()[:3]
    array([0. , 0.5, 0. ])
    """
    if isinstance(target, Heads):
        if d is not None and d != target.d:
            raise ValueError(f"d={d} but the heads have d={target.d}")
        d = target.d
    if d is not None and not (position < n and coordinate < d):
        raise ValueError(f"position must be in [0, {n}) and coordinate in [0, {d}); "
                         f"received position={position}, coordinate={coordinate}")
    if isinstance(target, Heads):
        heads = as_heads(target)
        X = boolean_cube(n, d)
        values = attention(X, heads, kind=kind)[:, position, coordinate]
    elif callable(target):
        if d is None:
            raise ValueError("give the token dimension d when target is a function")
        X = boolean_cube(n, d)
        values = as_float_array("target(X)", target(X))
        if values.shape != (X.shape[0],):
            raise ValueError(f"target must map a batch of shape {X.shape} to values of shape ({X.shape[0]},); "
                             f"received shape {values.shape}")
    else:
        raise TypeError(f"target must be an attnlib.Heads or a callable; received {type(target).__name__}")
    coefficients = walsh_hadamard(values)
    coefficients.setflags(write=False)
    return FourierSpectrum(coefficients, n, d)


# --- the low-degree regression baseline --------------------------------------------------------


@arguments(num_vars="size", degree="count")
def n_monomials(num_vars: int, degree: int) -> int:
    """Number of multilinear monomials of degree <= D in K variables: sum_{k<=D} C(K, k).

    The number of features of :func:`monomial_features` (named like
    :func:`attnlib.rkhs.n_features`, the number of cubic features).

    Examples
    --------
    >>> from attnlib.lower_bounds import n_monomials
    >>> n_monomials(12, 5)
    1586
    """
    return sum(math.comb(num_vars, k) for k in range(min(degree, num_vars) + 1))


def _monomials(K: int, degree: int) -> list:
    """All subsets of range(K) of size <= degree, by size then lexicographically."""
    out = [()]
    layer = [()]
    for _ in range(min(degree, K)):
        layer = [m + (k,) for m in layer for k in range((m[-1] + 1) if m else 0, K)]
        out.extend(layer)
    return out


@arguments(X="array", degree="count")
def monomial_features(X, degree: int) -> tuple[np.ndarray, list]:
    """The multilinear monomials of degree <= D in the entries of X.

    Parameters
    ----------
    X : array_like of shape (N, n, d)
        Boolean sequences; the n*d entries of each are the variables.
    degree : int

    Returns
    -------
    Phi : ndarray of shape (N, p)
        ``Phi[:, q] = prod_{k in monomials[q]} X_flat[:, k]``, p = :func:`n_monomials`.
    monomials : list of tuple of int
        Flat variable indices ``a*d + j`` of every column.

    Examples
    --------
    >>> Phi, mons = monomial_features(boolean_inputs(5, 2, 3, rng=0), 2)
    >>> Phi.shape, mons[:3]
    ((5, 22), [(), (0,), (1,)])
    """
    X3, _ = check_sequences(X)
    Z = X3.reshape(X3.shape[0], -1)  # (N, K)
    monomials = _monomials(Z.shape[1], degree)
    Phi = np.empty((Z.shape[0], len(monomials)))
    column = {}
    for q, mono in enumerate(monomials):
        Phi[:, q] = 1.0 if not mono else Z[:, mono[0]] if len(mono) == 1 else Phi[:, column[mono[:-1]]] * Z[:, mono[-1]]
        column[mono] = q
    return Phi, monomials


@dataclass(frozen=True, eq=False)
class LowDegreeFit:
    """A least-squares polynomial of degree <= D on Boolean inputs.

    Attributes
    ----------
    degree : int
    monomials : list of tuple of int
    coefficients : ndarray of shape (p,)
    train_mse : float
    test_mse : float or None
    """

    degree: int
    monomials: list
    coefficients: np.ndarray
    train_mse: float
    test_mse: float | None

    @property
    def features(self) -> int:
        return len(self.monomials)

    @arguments(X="array")
    def predict(self, X) -> np.ndarray:
        """Predictions on a batch X of shape (N, n, d); shape (N,)."""
        return monomial_features(X, self.degree)[0] @ self.coefficients

    def __repr__(self) -> str:
        test = "None" if self.test_mse is None else f"{self.test_mse:.3g}"
        return f"LowDegreeFit(degree={self.degree}, features={self.features}, train_mse={self.train_mse:.3g}, " \
               f"test_mse={test})"


def _check_targets(Phi: np.ndarray, y, name: str = "y") -> np.ndarray:
    y = as_float_array(name, y)
    if y.shape != (Phi.shape[0],):
        raise ValueError(f"{name} must have shape ({Phi.shape[0]},) for X with {Phi.shape[0]} sequences; "
                         f"received shape {y.shape}")
    return y


def _warn_if_underdetermined(N: int, p: int, degree: int) -> None:
    if N < p:
        warnings.warn(f"only N={N} examples for {p} monomial features of degree <= {degree}: the fit "
                      f"interpolates and will not generalise", RuntimeWarning, stacklevel=3)


def _test_features(X_test, y_test, degree: int, p: int):
    if X_test is None and y_test is None:
        return None, None
    if X_test is None or y_test is None:
        raise ValueError("give both X_test and y_test, or neither")
    Phi_test = monomial_features(X_test, degree)[0]
    if Phi_test.shape[1] != p:
        raise ValueError(f"X_test must have the same number of entries per sequence as X: it gives "
                         f"{Phi_test.shape[1]} features of degree <= {degree} instead of {p}")
    return Phi_test, _check_targets(Phi_test, y_test, "y_test")


@arguments(X="array", y="array", degree="count", X_test="optarray", y_test="optarray")
def low_degree_regression(X, y, degree: int, *, X_test=None, y_test=None) -> LowDegreeFit:
    """Fit a polynomial of degree <= D in the Boolean entries of X by least squares.

    Parameters
    ----------
    X : array_like of shape (N, n, d)
    y : array_like of shape (N,)
    degree : int
    X_test, y_test : array_like, optional
        A held-out set for ``test_mse``.

    Returns
    -------
    LowDegreeFit

    Warns
    -----
    RuntimeWarning
        If N is smaller than the number of features (the fit then interpolates).

    Notes
    -----
    The regression behind every low-degree algorithm: on uniform inputs the
    monomials are orthonormal, so with many samples the fit converges to the
    Fourier truncation ``f_{<=D}`` and its error to ``sum_{|T|>D} f_hat(T)^2``.
    Its cost is ``N p^2`` with ``p = sum_{k<=D} C(n d, k)``. Section 10.3.

    Examples
    --------
    >>> X = boolean_inputs(400, 2, 3, rng=0)
    >>> y = X[:, 0, 0] * X[:, 1, 2]
    >>> float(round(low_degree_regression(X, y, 2).train_mse, 12))
    0.0
    """
    Phi, monomials = monomial_features(X, degree)
    y = _check_targets(Phi, y)
    _warn_if_underdetermined(*Phi.shape, degree)
    Phi_test, y_test = _test_features(X_test, y_test, degree, Phi.shape[1])
    coef = lstsq(Phi, y).x
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused just below, naming y
        train_mse = float(np.mean((Phi @ coef - y) ** 2))
        test_mse = None if Phi_test is None else float(np.mean((Phi_test @ coef - y_test) ** 2))
    _check_finite_errors(coef, train_mse, test_mse)
    coef.setflags(write=False)
    return LowDegreeFit(degree, monomials, coef, train_mse, test_mse)


def _check_finite_errors(coef, *errors) -> None:
    """Raise if the fit or its squared errors overflowed: never a silent inf or NaN."""
    if not (np.isfinite(coef).all() and all(e is None or np.isfinite(e) for e in errors)):
        raise ValueError("the fit's coefficients or squared errors overflow float64 (labels y too large); "
                         "rescale y (and y_test)")


@dataclass(frozen=True, eq=False)
class LowDegreeCurve:
    """Errors of the least-squares fits of degree 0, 1, ..., D on one data set.

    Attributes
    ----------
    degrees : ndarray of shape (D + 1,)
    features : ndarray of shape (D + 1,)
        Number of monomials of degree <= each degree.
    train_mse, test_mse : ndarray of shape (D + 1,)
        ``test_mse`` is None without a test set.
    """

    degrees: np.ndarray
    features: np.ndarray
    train_mse: np.ndarray
    test_mse: np.ndarray | None

    def __repr__(self) -> str:
        return f"LowDegreeCurve(degrees=0..{self.degrees[-1]}, features up to {self.features[-1]})"


@arguments(X="array", y="array", max_degree="count", X_test="optarray", y_test="optarray")
def low_degree_curve(X, y, max_degree: int, *, X_test=None, y_test=None) -> LowDegreeCurve:
    """:func:`low_degree_regression` at every degree 0..D, sharing one Gram matrix.

    Parameters
    ----------
    X : array_like of shape (N, n, d)
    y : array_like of shape (N,)
    max_degree : int
    X_test, y_test : array_like, optional

    Returns
    -------
    LowDegreeCurve

    Notes
    -----
    The monomials are ordered by degree, so the features of degree <= D' are
    the first ``n_monomials(n d, D')`` columns, and their Gram matrix is the
    leading block of the Gram matrix at degree D. One product ``Phi^T Phi``
    serves every degree.

    Examples
    --------
    >>> X = boolean_inputs(300, 2, 3, rng=0)
    >>> curve = low_degree_curve(X, X[:, 0, 0] * X[:, 1, 1] * X[:, 1, 2], 3)
    >>> curve.features
    array([ 1,  7, 22, 42])
    >>> bool(curve.train_mse[2] > 0.5 and curve.train_mse[3] < 1e-20)
    True
    """
    X3, _ = check_sequences(X)
    Phi, _ = monomial_features(X3, max_degree)
    y = _check_targets(Phi, y)
    K = X3.shape[1] * X3.shape[2]
    degrees = np.arange(max_degree + 1)
    counts = np.array([n_monomials(K, D) for D in degrees])
    _warn_if_underdetermined(Phi.shape[0], int(counts[-1]), max_degree)
    Phi_test, y_test = _test_features(X_test, y_test, max_degree, Phi.shape[1])
    G, b = Phi.T @ Phi, Phi.T @ y  # (p, p), (p,)
    train, test = [], []
    for p in counts:
        coef = lstsq(Phi[:, :p], y, gram=G[:p, :p], rhs=b[:p]).x
        with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused just below, naming y
            train.append(np.mean((Phi[:, :p] @ coef - y) ** 2))
            if Phi_test is not None:
                test.append(np.mean((Phi_test[:, :p] @ coef - y_test) ** 2))
        _check_finite_errors(coef, train[-1], test[-1] if test else None)
    return LowDegreeCurve(degrees, counts, np.array(train), None if Phi_test is None else np.array(test))
