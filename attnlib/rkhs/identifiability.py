"""Does the data pin down the function? The certificate Lambda_D (Algorithm 2, Lemma A.3; chapter 5)."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np

from .._linalg import Cholesky, cholesky, largest_eigenvalue, smallest_eigenvalue
from .._validation import as_float_array, check_flag, check_real
from . import _normal_equations as _ne
from .features import cubic_features, n_features

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
        return float(_ne.sixth_power(self.lam_min, self.scale))

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
        seqs = _ne.as_sequences(X, d=_d_from_psi(self.psi))
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

    def covers(self, X, *, tol: float = 1e-6):
        """Whether every least-squares fit agrees on each test input: ``span_residual(X) <= tol``."""
        r = self.span_residual(X)
        return [v <= tol for v in r] if isinstance(r, list) else r <= tol

    def __repr__(self) -> str:
        verdict = "identifiable" if self.identifiable else "not certified"
        scaled = "" if self.scale == 1.0 else f", of X / {self.scale:.3g}"
        return (f"Certificate({verdict}, lam_min={self.lam_min:.3g}{scaled}, rank={self.rank} of psi={self.psi}, "
                f"N={self.N})")


def _d_from_psi(psi: int) -> int:
    return next(k for k in range(1, 10_000) if n_features(k) >= psi)


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
    seqs = _ne.as_sequences(X)
    causal = check_flag("causal", causal)
    scale = _ne.power_of_two_scale(seqs)
    seqs = _ne.rescaled(seqs, scale)
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


def _identifiable_certificate(X, what: str) -> Certificate:
    return _require_identifiable(certificate(X), what)


def _require_identifiable(cert: Certificate, what: str) -> Certificate:
    if not cert.identifiable:
        raise ValueError(f"Lambda_D is singular (rank {cert.rank} of psi={cert.psi}): {what} exists; "
                         "use Certificate.span_residual for the test inputs it still covers")
    return cert


def _feature_norms2(X, d: int) -> np.ndarray:
    """``||phi(X_i)||^2`` of each test input (N,), computed on ``X / s`` and scaled back by ``s**6``."""
    seqs = _ne.as_sequences(X, name="X_test", d=d)
    scale = _ne.power_of_two_scale(seqs)
    Phi = _ne.map_rows(_ne.rescaled(seqs, scale), "last", _ne.features, n_features(d))
    out = _ne.sixth_power(np.sum(Phi**2, axis=-1), scale)
    return float(out) if seqs.single else out






@dataclass(frozen=True, eq=False)
class NoisyBound:
    """The certificate under label noise: the book's bound (not Lemma E.2 of Yau et al., false as stated).

    Attributes
    ----------
    bound : float
        Upper bound on ``||p(Theta) - p(Theta_star)||_F^2`` for a layer with
        training MSE ``epsilon`` on targets ``f_star(X) + noise``:
        ``d (eta + sqrt(eta^2 + excess))^2 / lam_min``.
    excess : float
        ``epsilon - s`` with ``s = mean(noise^2)``: the paper's numerator without
        its concentration term. It is ``-eta^2`` (negative) at the least-squares fit.
    cross : float
        ``eta = ||P noise||_F / sqrt(N d)``, P the projection on the span of the
        training features: the part of the noise a fit can absorb. For i.i.d.
        noise of variance sigma^2, ``eta^2`` is about ``sigma^2 psi / N``, the
        usual variance of least squares.
    lam_min : float
        Smallest eigenvalue of ``Lambda_D`` of the data X themselves (for data
        outside [2**-16, 2**16], not the rescaled value ``certificate(X).lam_min``).
    """

    bound: float
    excess: float
    cross: float
    lam_min: float

    def __repr__(self) -> str:
        return (f"NoisyBound(bound={self.bound:.3g}, excess={self.excess:.3g}, cross={self.cross:.3g}, "
                f"lam_min={self.lam_min:.3g})")


def noisy_label_bound(X, noise, epsilon: float) -> NoisyBound:
    """How far from the teacher can a layer with training MSE epsilon be, when the labels are noisy?

    An analysis tool, not a certificate: it needs the noise vector itself, which
    a learner never sees. :func:`pairwise_bound` is the form computable from the
    data alone.

    Parameters
    ----------
    X : array_like of shape (N, n, d), or a list of (n_i, d) arrays
        Training inputs, with a positive certificate.
    noise : array_like of shape (N, d)
        The label noise: the targets are ``y_i = f_star(X_i) + noise_i`` at the last token.
    epsilon : float
        Training MSE (over all ``N d`` target entries) of the layer to bound.

    Returns
    -------
    NoisyBound
        ``.bound`` bounds ``||p(Theta) - p(Theta_star)||_F^2``; outputs then obey
        ``||y_Theta(Z) - y_star(Z)||^2 <= bound * ||phi(Z)||^2`` on every input.

    Raises
    ------
    ValueError
        If ``Lambda_D`` is singular (no bound on the parameters exists), or
        ``epsilon`` is below the least-squares loss (no layer has it).

    Notes
    -----
    With ``Delta = p(Theta) - p(Theta_star)`` and ``u^2 = ||Phi Delta||^2 / (N d)``,
    expanding the loss gives ``u^2 = epsilon - mean(noise^2) + 2 <Phi Delta, noise> / (N d)``,
    and the cross term is at most ``2 u eta``. So ``u <= eta + sqrt(eta^2 + excess)``
    and ``||Delta||_F^2 <= d u^2 / lam_min``. Lemma E.2 of Yau et al. (2025) has
    the numerator ``epsilon - (1/N) sum zeta_i^2 + (B^2 / N) log(1/delta)``: the
    same excess, plus a term that does not bound ``eta^2`` (the book's chapter 5
    shows the lemma fails as stated). At the least-squares fit ``excess = -eta^2``
    and ``u = eta`` exactly, so the cross term cannot be dropped.

    Examples
    --------
    >>> from attnlib.rkhs import noisy_label_bound
    >>> X = gaussian_inputs(300, 5, 2, rng=0)
    >>> noise = 0.1 * np.random.default_rng(1).standard_normal((300, 2))
    >>> b = noisy_label_bound(X, noise, epsilon=np.mean(noise**2))   # the teacher's own loss
    >>> round(b.excess, 12), bool(0 < b.cross < 0.1), bool(b.bound > 0)
    (0.0, True, True)
    """
    seqs = _ne.as_sequences(X)
    d = seqs.d
    noise = as_float_array("noise", noise)
    if noise.shape != (seqs.N, d):
        raise ValueError(f"noise must have shape (N, d) = ({seqs.N}, {d}), one row per sequence; "
                         f"received shape {noise.shape}")
    epsilon = check_real("epsilon", epsilon, low=0.0)
    cert = _identifiable_certificate(X, "no layer-independent bound on the parameters")
    # the projection on the span of the features is that of X / scale: the span does not change
    rows = np.atleast_2d(_ne.map_rows(_ne.rescaled(seqs, cert.scale), "last", _ne.features, cert.psi))
    proj = rows @ np.linalg.lstsq(rows, noise, rcond=None)[0]
    a2 = float(np.sum(proj**2)) / noise.size
    excess = epsilon - float(np.mean(noise**2))
    if a2 + excess < -1e-12 * max(a2, 1.0):
        raise ValueError(f"epsilon={epsilon:.3g} is below the least-squares loss {epsilon - a2 - excess:.3g}; "
                         "no layer reaches it")
    u = np.sqrt(a2) + np.sqrt(max(a2 + excess, 0.0))
    lam_min = cert.data_lam_min  # of X itself: cert.lam_min is of X / scale (issue 24)
    return NoisyBound(_over_lam_min(d * u**2, cert), excess, float(np.sqrt(a2)), lam_min)


def _over_lam_min(value: float, cert: Certificate) -> float:
    """``value / lambda_min`` of the data, as ``(value / cert.lam_min) / scale**6`` (no overflow on the way)."""
    return float(_ne.sixth_power(value / cert.lam_min, 1.0 / cert.scale)) if cert.scale != 1.0 else value / cert.lam_min


@dataclass(frozen=True, eq=False)
class StoppingBound:
    """How far from the teacher a layer stopped early can be (Lemma A.7 of Yau et al., restated).

    Attributes
    ----------
    bound : float
        ``d epsilon / lam_min``: an upper bound on ``||p(Theta) - p(Theta_star)||_F^2``
        for every layer with training MSE at most ``epsilon`` on data realizable
        by ``Theta_star``.
    epsilon : float
        The training MSE bounded (over all ``N d`` target entries).
    lam_min : float
        Smallest eigenvalue of ``Lambda_D`` of the training inputs themselves.
    """

    bound: float
    epsilon: float
    lam_min: float
    _psi: int = field(default=0, repr=False)

    def output_bound(self, X):
        """Bound on ``||y_Theta(X) - y_star(X)||^2`` for each test input: ``bound * ||phi(X)||^2``.

        Parameters
        ----------
        X : array_like of shape (n, d) or (N, n, d), or a list of (n_i, d) arrays

        Returns
        -------
        float or ndarray of shape (N,)
            At most ``bound * ||X||_F^6`` (the paper's form).
        """
        return self.bound * _feature_norms2(X, _d_from_psi(self._psi))

    def __repr__(self) -> str:
        return f"StoppingBound(bound={self.bound:.3g}, epsilon={self.epsilon:.3g}, lam_min={self.lam_min:.3g})"


def stopping_bound(X, epsilon: float) -> StoppingBound:
    """Lemma A.7: a layer with training MSE epsilon on realizable data is within ``d epsilon / lam_min`` of the truth.

    Parameters
    ----------
    X : array_like of shape (N, n, d), or a list of (n_i, d) arrays
        Training inputs, with a positive certificate. The targets are not
        needed: the data are assumed realizable, so the teacher has loss 0.
    epsilon : float
        Training MSE (over all ``N d`` target entries) of the layer to bound,
        e.g. ``fit.train_loss`` of an iterative fit stopped early.

    Returns
    -------
    StoppingBound
        ``.bound`` bounds ``||p(Theta) - p(Theta_star)||_F^2``, and
        ``.output_bound(X_test)`` the squared output error on test inputs.

    Raises
    ------
    ValueError
        If ``Lambda_D`` is singular: no layer-independent bound exists.

    Notes
    -----
    With ``Delta = p(Theta) - p(Theta_star)``, realizability makes the loss
    ``epsilon = (1/d) sum_a Delta_a^T Lambda_D Delta_a >= (lam_min / d) ||Delta||_F^2``.
    The bound is attained by a layer that differs from the teacher along the
    eigenvector of ``lam_min`` only. Yau et al. (2025) state the output form as
    ``epsilon / lam_min ||Z||_F^6`` for two minimisers; their loss sums over the
    d outputs, and two minimisers are ``4 d epsilon / lam_min`` apart at most.
    Chapter 5 of the book.

    Examples
    --------
    >>> from attnlib.rkhs import stopping_bound
    >>> X = gaussian_inputs(300, 5, 2, rng=0)
    >>> b = stopping_bound(X, 1e-4)
    >>> bool(np.isclose(b.bound, 2 * 1e-4 / b.lam_min)), b.output_bound(X[:3]).shape
    (True, (3,))
    """
    seqs = _ne.as_sequences(X)
    epsilon = check_real("epsilon", epsilon, low=0.0)
    cert = _identifiable_certificate(X, "no layer-independent bound on the parameters")
    return StoppingBound(_over_lam_min(seqs.d * epsilon, cert), epsilon, cert.data_lam_min, cert.psi)


@dataclass(frozen=True, eq=False)
class PairwiseBound:
    """How far apart two layers with training MSE at most epsilon can be, for any targets.

    The book's repair of Lemma E.2 of Yau et al.: no realizability, no noise model, computable from
    the data alone.

    Attributes
    ----------
    bound : float
        ``4 d (epsilon - ls_loss) / lam_min``: an upper bound on
        ``||p(Theta) - p(Theta')||_F^2`` for every two layers (any head counts)
        with training MSE at most ``epsilon``.
    to_least_squares : float
        ``d (epsilon - ls_loss) / lam_min``: the bound on the squared distance
        of one such layer to the least-squares fit.
    ls_loss : float
        The least-squares training MSE, the smallest loss any layer reaches.
    epsilon : float
    lam_min : float
        Smallest eigenvalue of ``Lambda_D`` of the training inputs themselves.
    """

    bound: float
    to_least_squares: float
    ls_loss: float
    epsilon: float
    lam_min: float
    _psi: int = field(default=0, repr=False)

    def output_bound(self, X):
        """Bound on ``||y_Theta(X) - y_Theta'(X)||^2`` for each test input: ``bound * ||phi(X)||^2``.

        Parameters
        ----------
        X : array_like of shape (n, d) or (N, n, d), or a list of (n_i, d) arrays

        Returns
        -------
        float or ndarray of shape (N,)
        """
        return self.bound * _feature_norms2(X, _d_from_psi(self._psi))

    def __repr__(self) -> str:
        return (f"PairwiseBound(bound={self.bound:.3g}, ls_loss={self.ls_loss:.3g}, epsilon={self.epsilon:.3g}, "
                f"lam_min={self.lam_min:.3g})")


def pairwise_bound(X, Y, epsilon: float) -> PairwiseBound:
    """Two layers with training MSE at most epsilon are within ``4 d (epsilon - L_LS) / lam_min`` of each other.

    Parameters
    ----------
    X : array_like of shape (N, n, d), or a list of (n_i, d) arrays
        Training inputs, with a positive certificate.
    Y : array_like of shape (N, d)
        Last-token targets, any real numbers (noisy, or from no layer at all).
    epsilon : float
        Training MSE (over all ``N d`` target entries) that both layers reach.

    Returns
    -------
    PairwiseBound
        ``.bound`` bounds ``||p(Theta) - p(Theta')||_F^2``, ``.to_least_squares``
        the squared distance of each to the least-squares fit, and
        ``.output_bound(X_test)`` the squared output gap on test inputs.

    Raises
    ------
    ValueError
        If ``Lambda_D`` is singular, or ``epsilon`` is below the least-squares
        loss (no layer reaches it).

    Notes
    -----
    The residual of the least-squares fit ``C_LS`` is orthogonal to the span of
    the features, so every coefficient matrix C has training MSE
    ``L_LS + ||Phi (C - C_LS)||_F^2 / (N d) >= L_LS + (lam_min / d) ||C - C_LS||_F^2``.
    A layer with MSE at most epsilon is therefore within
    ``sqrt(d (epsilon - L_LS) / lam_min)`` of ``C_LS``, and two of them, by the
    triangle inequality through ``C_LS``, within twice that. The constant 4 is
    attained by ``C_LS +- t v`` along the eigenvector v of ``lam_min``. With
    noisy realizable targets ``epsilon - L_LS = epsilon - s + eta^2`` in the
    notation of :func:`noisy_label_bound`. Chapter 5 of the book.

    Examples
    --------
    >>> from attnlib.rkhs import fit_linear_attention, pairwise_bound
    >>> X = gaussian_inputs(300, 5, 2, rng=0)
    >>> Y = np.random.default_rng(1).standard_normal((300, 2))          # targets from no layer
    >>> ls = fit_linear_attention(X, Y).train_loss
    >>> b = pairwise_bound(X, Y, ls + 1e-3)
    >>> bool(np.isclose(b.ls_loss, ls)), bool(np.isclose(b.bound, 4 * b.to_least_squares))
    (True, True)
    """
    seqs = _ne.as_sequences(X)
    if seqs.single:
        raise ValueError("X must be a batch of shape (N, n, d) or a list of sequences; received one sequence")
    kind, targets = _ne.as_targets(Y, seqs)
    if kind != "last":
        raise ValueError(f"Y must hold last-token targets of shape ({seqs.N}, {seqs.d}); received a target "
                         "at every token, which the last-token certificate does not cover")
    epsilon = check_real("epsilon", epsilon, low=0.0)
    # one pass for both the certificate and the least-squares loss (of X / scale, which is that of X: the
    # coefficients absorb scale**3)
    scale = _ne.power_of_two_scale(seqs)
    scaled = _ne.rescaled(seqs, scale)
    _ne.check_memory("pairwise_bound", _ne.solve_memory(seqs.d, seqs.d), seqs.d)
    ne = _ne.normal_equations(scaled, "last", targets)
    factor = cholesky(ne.gram(), overwrite=True) if ne.rows >= n_features(seqs.d) else None
    cert = _require_identifiable(certify(ne, scale, factor), "no layer-independent bound on the parameters")
    ls_loss = float(_ne.solve(scaled, "last", targets, ne=ne, factor=factor).loss)
    yy = float(np.mean(np.concatenate(targets) ** 2))
    room = epsilon - ls_loss
    if room < -1e-10 * max(yy, ls_loss, 1e-300):
        raise ValueError(f"epsilon={epsilon:.3g} is below the least-squares loss {ls_loss:.3g}; no layer reaches it")
    room = max(room, 0.0)
    to_ls = _over_lam_min(seqs.d * room, cert)
    return PairwiseBound(4 * to_ls, to_ls, ls_loss, epsilon, cert.data_lam_min, cert.psi)


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
        return f"PolynomialCertificate({verdict}, lam_min={self.lam_min:.3g}, rank={self.rank} of psi={self.psi}, N={self.N})"


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
    H = as_float_array("H", H)
    if H.ndim != 2 or H.shape[0] == 0 or H.shape[1] == 0:
        raise ValueError(f"H must be a non-empty feature matrix of shape (N, psi); received shape {H.shape}")
    N, psi = H.shape
    w = np.linalg.eigvalsh(H.T @ H / N)
    top = max(float(w[-1]), 0.0)
    rank = int(np.sum(w > psi * np.finfo(float).eps * top))
    identifiable = rank == psi
    return PolynomialCertificate(float(max(w[0], 0.0)) if identifiable else 0.0, rank, psi, N, identifiable)
