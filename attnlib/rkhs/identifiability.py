"""Does the data pin down the function? The certificate Lambda_D (Algorithm 2, Lemma A.3; chapter 5).

The certificate of linear attention's cubic features (:func:`certificate`, and its span form for
singular data), and the general one of any model linear in a fixed feature map
(:func:`polynomial_certificate`, Lemma E.1). What a positive certificate bounds (how far approximate
minimisers can be) is in :mod:`attnlib.rkhs.bounds`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np

from .._arguments import arguments
from .._linalg import Cholesky, cholesky, largest_eigenvalue, smallest_eigenvalue
from . import _normal_equations as _ne
from . import _sequences as _seq
from .features import n_features

__all__ = ["Certificate", "PolynomialCertificate", "certificate", "polynomial_certificate"]

#: Up to this many features the certificate computes the whole spectrum by a dense ``eigh`` (cheap there);
#: above, a positive definite Lambda_D gets its smallest eigenvalue bracketed through a Cholesky factor.
_DENSE_UP_TO = 1000

_EPS = np.finfo(float).eps


class _SecondMoment:
    """The pass a certificate came from, and its spectrum once computed (a private, growing cache)."""

    def __init__(self, ne: _ne.NormalEquations, spectrum: tuple | None = None):
        self.ne = ne
        self.spectrum = spectrum  # (eigenvalues, eigenvectors) of Lambda_D from a dense eigh, when made

    def lam(self) -> np.ndarray:
        return self.ne.gram() / self.ne.rows

    def eigenvalues(self) -> np.ndarray:
        if self.spectrum is None:
            return np.linalg.eigvalsh(self.lam())
        return self.spectrum[0]


@dataclass(frozen=True, eq=False)
class Certificate:
    """The identifiability certificate of a data set (Algorithm 2, Lemma A.3).

    Attributes
    ----------
    lam_min, lam_max : float
        Smallest and largest eigenvalue of ``Lambda_D = Phi^T Phi / N`` (uncentred;
        ``lam_min`` is 0 when not identifiable).
    rank : int
        Numerical rank of ``Lambda_D`` (eigenvalues above ``psi * eps * lam_max``).
    psi : int
        Number of features; identifiable exactly when ``rank == psi``.
    N : int
        Number of feature rows (examples, or tokens if causal).
    identifiable : bool
        Certified: every empirical risk minimiser computes the same function on
        every input of every length (for realisable data, or any data with d^2
        heads). False means *not certified*, which is weaker than not
        identifiable: with fewer than d^2 heads the minimisers can still agree.
    causal : bool
        Whether the features are those of every prefix.
    scale : float
        The power of two the data were divided by (1 for data of ordinary size):
        ``lam_min``, ``lam_max``, ``lam_min_bounds`` and ``eigenvalues`` are those
        of ``X / scale``, and ``Lambda_D`` of ``X`` itself has ``scale**6`` times them.
    lam_min_bounds : (float, float)
        ``lower <= lambda_min <= upper``. With ``method == "cholesky"`` a proof
        for the float64 ``Lambda_D`` formed from the data (see
        :func:`attnlib._linalg.smallest_eigenvalue`); with ``"eigh"``,
        ``lam_min -+ psi * eps * lam_max``, the usual error of a backward-stable
        eigensolver (an estimate, not a proof).
    method : {"eigh", "cholesky"}
        How ``lam_min`` was found: a dense eigendecomposition (small psi, or a
        singular or nearly singular ``Lambda_D``), or the Cholesky bracket.
    eigenvalues : ndarray of shape (psi,)
        The whole spectrum of ``Lambda_D``, ascending (computed on first use
        after a ``"cholesky"`` certificate).
    """

    lam_min: float
    lam_max: float
    rank: int
    psi: int
    N: int
    identifiable: bool
    causal: bool
    scale: float = 1.0
    lam_min_bounds: tuple = (0.0, 0.0)
    method: str = "eigh"
    _moment: _SecondMoment | None = field(default=None, repr=False)

    @property
    def data_lam_min(self) -> float:
        """``lambda_min(Lambda_D)`` of the data themselves: ``lam_min`` is that of ``X / scale``."""
        return float(_seq.sixth_power(self.lam_min, self.scale))

    @functools.cached_property
    def eigenvalues(self) -> np.ndarray:
        """The whole spectrum of ``Lambda_D``, ascending."""
        return self._moment.eigenvalues()

    @functools.cached_property
    def _basis(self) -> np.ndarray | None:
        """(psi, rank) orthonormal columns spanning the range of ``Lambda_D``; None when it is all of R^psi."""
        if self.identifiable:
            return None
        w, V = self._moment.spectrum
        return V[:, w > self.psi * _EPS * max(float(w[-1]), 0.0)]

    @arguments(X=_seq.SEQUENCES)
    def span_residual(self, X):
        """Relative distance of each test feature vector from the span of the training features.

        Parameters
        ----------
        X : array_like of shape (n, d) or (N, n, d), or a list of (n_i, d) arrays

        Returns
        -------
        ndarray of shape (N,) (or (N, n) if causal)
            ``||(I - P) phi|| / ||phi||``, P the projection on the range of
            ``Lambda_D`` (0 for a zero feature vector, and everywhere when the
            certificate is positive: the range is then all of R^psi). Where it is
            0, every least-squares fit of these training data gives the same output.
        """
        seqs = _seq.check_dimension(X, _ne.d_from_psi(self.psi))
        V = self._basis
        mode = "causal" if self.causal else "last"

        def residual(g, x):
            if V is None:
                return np.zeros((g.shape[0], 1))
            Phi = _ne.features(g, x)
            R = Phi - (Phi @ V) @ V.T
            norm = np.linalg.norm(Phi, axis=1)
            return (np.linalg.norm(R, axis=1) / np.where(norm > 0, norm, 1.0))[:, None]

        out = _ne.map_rows(seqs, mode, residual, 1)
        return [r[:, 0] for r in out] if isinstance(out, list) else out[..., 0]

    @arguments(X=_seq.SEQUENCES, tol="tol")
    def covers(self, X, *, tol: float = 1e-6):
        """Whether every least-squares fit agrees on each test input: ``span_residual(X) <= tol``."""
        r = self.span_residual(X)
        return [v <= tol for v in r] if isinstance(r, list) else r <= tol

    def __repr__(self) -> str:
        verdict = "identifiable" if self.identifiable else "not certified"
        scaled = "" if self.scale == 1.0 else f", of X / {self.scale:.3g}"
        return (f"Certificate({verdict}, lam_min={self.lam_min:.3g}{scaled}, rank={self.rank} of psi={self.psi}, "
                f"N={self.N})")


@arguments(X=_seq.SEQUENCES, causal="flag")
def certificate(X, *, causal: bool = False) -> Certificate:
    """Does the data set pin down the function? The spectrum of ``Lambda_D``.

    Parameters
    ----------
    X : array_like of shape (N, n, d), or a list of (n_i, d) arrays
        Training inputs (targets are not needed).
    causal : bool, default False
        Certify last-token features (False) or every prefix (True).

    Returns
    -------
    Certificate
        ``.lam_min``, ``.rank``, ``.psi``, ``.identifiable``, and the span form
        ``.span_residual(X_test)`` / ``.covers(X_test)`` for singular ``Lambda_D``.

    See Also
    --------
    LinearFit.certificate : the same certificate from a fit, without a second pass over the data.

    Notes
    -----
    ``Lambda_D = (1/N) sum_i phi(X_i) phi(X_i)^T`` with the features of
    :func:`cubic_features` (eqs. 9-10 of Yau et al. 2025). If its smallest
    eigenvalue is positive and the data are realisable, every empirical risk
    minimiser computes the same function (Lemma A.3): a sufficient condition,
    and not a necessary one for fewer than d^2 heads. One-hot and ±1 inputs
    always give a singular ``Lambda_D`` for d >= 2: then the span form certifies
    agreement on the test inputs whose features lie in its range. Chapter 5.

    Up to 1000 features the whole spectrum comes from a dense ``eigh``. Above,
    a positive definite ``Lambda_D`` has its smallest eigenvalue bracketed by
    its Cholesky factor, a Lanczos iteration and the factorisation of
    ``Lambda_D - tau I`` (:func:`attnlib._linalg.smallest_eigenvalue`), its
    largest found by Lanczos, and the spectrum computed only if asked for;
    a singular or nearly singular one (rank within rounding of deficient)
    takes the dense path.

    The certificate is scale-invariant: the features are cubic, so ``c X`` has
    ``Lambda_D`` equal to ``c**6`` times that of ``X``, with the same rank, the
    same range (span form) and the same verdict. Data whose largest entry lies
    outside [2**-16, 2**16] are divided by a power of two ``scale`` (exact in
    floating point) before ``Lambda_D`` is formed, so that ``c**6`` neither
    overflows nor underflows; the eigenvalues are then reported for
    ``X / scale`` (attribute ``scale``).

    Examples
    --------
    >>> from attnlib.rkhs import certificate
    >>> certificate(gaussian_inputs(200, 5, 2, rng=0)).identifiable
    True
    >>> certificate(boolean_inputs(200, 5, 2, rng=0))
    Certificate(not certified, lam_min=0, rank=4 of psi=6, N=200)
    """
    scale = _seq.power_of_two_scale(X)
    seqs = _seq.rescaled(X, scale)
    d = seqs.d
    _ne.check_memory("certificate", _ne.solve_memory(d, 0), d)
    return certify(_ne.normal_equations(seqs, "causal" if causal else "last"), scale)


def certify(ne: _ne.NormalEquations, scale: float = 1.0, factor: Cholesky | None = None) -> Certificate:
    """The certificate of the pass ``ne`` (``mode`` "last" or "causal"), of data divided by ``scale``.

    ``factor`` is the equilibrated Cholesky factor of ``ne.gram()`` if a fit made it.
    """
    if ne.mode not in ("last", "causal"):
        raise ValueError(f"the certificate covers last-token or causal features; these normal equations are of "
                         f"mode {ne.mode!r}")
    causal = ne.mode == "causal"
    psi, rows = n_features(ne.d), ne.rows
    if psi > _DENSE_UP_TO and rows >= psi:
        A = ne.gram()
        factor = cholesky(A) if factor is None else factor
        bracket = None if factor is None else smallest_eigenvalue(A, factor=factor)
        # the verdict of the dense path, proved: lambda_min > psi eps trace >= psi eps lambda_max
        if bracket is not None and bracket.lower > psi * _EPS * float(np.trace(A)):
            top = largest_eigenvalue(A) / rows
            low, high = float(bracket.lower) / rows * (1 - 2 * _EPS), bracket.upper / rows * (1 + 2 * _EPS)
            return Certificate(bracket.value / rows, top, psi, psi, rows, True, causal, scale, (low, high),
                               "cholesky", _SecondMoment(ne))
    moment = _SecondMoment(ne)
    w, V = np.linalg.eigh(moment.lam())
    moment.spectrum = (w, V)
    top = max(float(w[-1]), 0.0)
    tol = psi * _EPS * top
    rank = int(np.sum(w > tol))
    identifiable = rank == psi
    lam_min = float(max(w[0], 0.0)) if identifiable else 0.0
    bounds = (max(float(w[0]) - tol, 0.0), max(float(w[0]), 0.0) + tol)
    return Certificate(lam_min, top, rank, psi, rows, identifiable, causal, scale, bounds, "eigh", moment)


def require_identifiable(cert: Certificate, what: str) -> Certificate:
    """``cert``, after checking that it is positive: otherwise no ``what`` exists (a ValueError says so)."""
    if not cert.identifiable:
        raise ValueError(f"Lambda_D is singular (rank {cert.rank} of psi={cert.psi}): {what} exists; "
                         "use Certificate.span_residual for the test inputs it still covers")
    return cert


def over_lam_min(value: float, cert: Certificate) -> float:
    """``value / lambda_min`` of the data, as ``(value / cert.lam_min) / scale**6`` (no overflow on the way)."""
    if cert.scale == 1.0:
        return value / cert.lam_min
    return float(_seq.sixth_power(value / cert.lam_min, 1.0 / cert.scale))


@dataclass(frozen=True, eq=False)
class PolynomialCertificate:
    """The general certificate for any model linear in a fixed feature map (Lemma E.1 of Yau et al.).

    Attributes
    ----------
    lam_min : float
        Smallest eigenvalue of ``E_D[H H^T]`` (0 if the rank is deficient).
    rank, psi, N : int
    identifiable : bool
        ``rank == psi``: every realisable minimiser computes the same function.
    """

    lam_min: float
    rank: int
    psi: int
    N: int
    identifiable: bool

    def __repr__(self) -> str:
        verdict = "identifiable" if self.identifiable else "not certified"
        return (f"PolynomialCertificate({verdict}, lam_min={self.lam_min:.3g}, rank={self.rank} of psi={self.psi}, "
                f"N={self.N})")


@arguments(H="array")
def polynomial_certificate(H) -> PolynomialCertificate:
    """Lemma E.1: the certificate for a model ``y_a = <p_a(theta), H(Z)>`` with any feature map H.

    Parameters
    ----------
    H : array_like of shape (N, psi)
        The features ``H(Z_i)`` of the training inputs, one row each, from any
        fixed feature map (polynomial in Lemma E.1; the proof uses only linearity
        in the parameters' image ``p(theta)``).

    Returns
    -------
    PolynomialCertificate
        Positive ``lam_min`` of ``H^T H / N``: if the data are realisable by the
        model, every empirical risk minimiser has the same ``p(theta)`` and so
        computes the same function. Algorithm 2 (:func:`certificate`) is the case
        H = the cubic features of linear attention.

    Examples
    --------
    >>> from attnlib.rkhs import cubic_features, polynomial_certificate
    >>> X = gaussian_inputs(200, 5, 2, rng=0)
    >>> polynomial_certificate(cubic_features(X)).rank == certificate(X).rank
    True
    >>> polynomial_certificate(np.ones((10, 2)))
    PolynomialCertificate(not certified, lam_min=0, rank=1 of psi=2, N=10)
    """
    if H.ndim != 2 or H.shape[0] == 0 or H.shape[1] == 0:
        raise ValueError(f"H must be a non-empty feature matrix of shape (N, psi); received shape {H.shape}")
    N, psi = H.shape
    w = np.linalg.eigvalsh(H.T @ H / N)
    top = max(float(w[-1]), 0.0)
    rank = int(np.sum(w > psi * np.finfo(float).eps * top))
    identifiable = rank == psi
    return PolynomialCertificate(float(max(w[0], 0.0)) if identifiable else 0.0, rank, psi, N, identifiable)
