"""Checks for the coding exercises on the certificate of identifiability (chapter 5).

The second moment behind the certificate, the certificate itself (its rank and smallest
eigenvalue) and its span form, on the cubic features of :mod:`attnlib.checks.rkhs` (Algorithm
2's order).
"""

from __future__ import annotations

import numpy as np

from .._arguments import arguments
from ._core import Case, CheckFailure, case_rng, run_check
from ._features import lazy_rkhs, pair_groups

__all__ = ["check_certificate", "check_second_moment", "check_span_cover"]


@arguments(fn="function")
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
    rkhs = lazy_rkhs()
    cases = []
    for label, X in [("Gaussian, N=50, d=2", rng.normal(size=(50, 4, 2))),
                     ("Boolean, N=30, d=3", rng.choice([-1.0, 1.0], size=(30, 5, 3))),
                     ("shifted tokens (features with nonzero mean), d=2", rng.normal(size=(40, 3, 2)) + 1.0),
                     ("fewer examples than features, d=3", rng.normal(size=(7, 4, 3)))]:
        Phi = rkhs.cubic_features(X)
        cases.append(Case(label, (X,), Phi.T @ Phi / len(X), extra={"Phi": Phi}))

    def variants(case):
        Phi = case.extra["Phi"]
        centred = Phi - Phi.mean(axis=0)
        return {"the centred covariance (Phi - mean)^T (Phi - mean) / N: Lambda_D is uncentred":
                centred.T @ centred / len(Phi),
                "the centred covariance with N - 1 (np.cov): Lambda_D is uncentred, divided by N":
                centred.T @ centred / max(len(Phi) - 1, 1)}

    run_check("check_second_moment", fn, cases, ["X"], rtol=1e-8, atol=1e-10, label="Lambda_D", variants=variants,
              groups=lambda case, label: pair_groups(case.args[0].shape[-1], (0, "rows"), (1, "columns")),
              axes=("feature", "feature"),
              sizes=lambda case: {"N": len(case.args[0])},
              slip="uncentred and divided by N: Lambda_D = Phi^T Phi / N, a psi x psi matrix (not Phi Phi^T).")


_EPS = np.finfo(float).eps

_CERTIFICATE_SLIP = ("the certificate is the uncentred second moment Lambda_D = Phi^T Phi / N (psi x psi, divided by "
                     "N, no mean removed); an eigenvalue counts as zero when it is at most psi * eps * lam_max.")


def _certificate_reference(Phi):
    """(Lambda_D, rank, lam_min) from the definition: eigvalsh of Phi^T Phi / N, zero below psi * eps * lam_max."""
    N, psi = Phi.shape
    Lam = Phi.T @ Phi / N
    w = np.linalg.eigvalsh(Lam)                                             # ascending
    top = max(float(w[-1]), 0.0)
    rank = int(np.sum(w > psi * _EPS * top))
    lam_min = float(max(w[0], 0.0)) if rank == psi else 0.0
    return Lam, np.asarray(rank), np.asarray(lam_min)


def _threshold_design(rng):
    """Features (N=12, psi=6) whose Lambda_D is diagonal with eigenvalues 1, ..., and 4 eps: exact in float64.

    The smallest eigenvalue is 4 eps times the largest: above ``eps * lam_max``, below ``psi * eps * lam_max``,
    so the certificate counts it as zero (rank 5) and a threshold without the factor psi does not.
    """
    s = np.array([1.0, 0.5, 2.0**-3, 0.25, 2.0**-25, 2.0**-1])               # squares: eigenvalue ratios, exact
    Phi = np.vstack([np.diag(s), np.diag(s)])                                 # (12, 6): each column twice
    return Phi[rng.permutation(12)][:, rng.permutation(6)]


def _features(X):
    return lazy_rkhs().cubic_features(X)


@arguments(fn="function")
def check_certificate(fn) -> None:
    """Check the certificate of identifiability (Algorithm 2): ``fn(Phi)`` with Phi of shape (N, psi).

    Phi holds the cubic features of N training inputs, one row each. Returns a
    triple ``(Lambda_D, rank, lam_min)``: the uncentred second moment
    ``Lambda_D = Phi^T Phi / N`` of shape (psi, psi); its numerical rank, the
    number of eigenvalues above ``psi * eps * lam_max`` (``eps`` the machine
    epsilon of float64, ``lam_max`` the largest eigenvalue), the threshold of
    :func:`attnlib.rkhs.certificate`; and ``lam_min``, the smallest eigenvalue
    when the rank is psi and 0 otherwise.

    Examples
    --------
    >>> def my_certificate(Phi):
    ...     Lam = Phi.T @ Phi / len(Phi)
    ...     w = np.linalg.eigvalsh(Lam)
    ...     rank = int(np.sum(w > Lam.shape[0] * np.finfo(float).eps * w[-1]))
    ...     return Lam, rank, (w[0] if rank == Lam.shape[0] else 0.0)
    >>> check_certificate(my_certificate)
    check_certificate: all 5 cases passed.
    """
    rng = case_rng(207)
    specs = [("Gaussian tokens, N=60, d=2", _features(rng.normal(size=(60, 4, 2)))),
             ("sign tokens (never certified), N=80, d=3", _features(rng.choice([-1.0, 1.0], size=(80, 5, 3)))),
             ("an eigenvalue of 4 eps lam_max, below the threshold psi eps lam_max, psi=6", _threshold_design(rng)),
             ("fewer examples than features, N=5, d=3", _features(rng.normal(size=(5, 4, 3)))),
             ("tokens with a nonzero mean, N=40, d=2", _features(rng.normal(size=(40, 3, 2)) + 1.0))]
    cases = [Case(label, (Phi,), _certificate_reference(Phi), names=("Lambda_D", "rank", "lam_min"))
             for label, Phi in specs]

    def convert(got, case):
        if not (isinstance(got, (tuple, list)) and len(got) == 3):
            raise CheckFailure(f"check_certificate: on case '{case.name}', return three things, "
                               f"(Lambda_D, rank, lam_min); received {type(got).__name__}"
                               + (f" of length {len(got)}" if isinstance(got, (tuple, list)) else ""))
        Phi = case.args[0]
        N, psi = Phi.shape
        Lam = np.asarray(got[0], dtype=float) if np.ndim(got[0]) == 2 else None
        where = f"check_certificate: on case '{case.name}' (Phi of shape {Phi.shape})"
        if Lam is not None and Lam.shape == (N, N) and N != psi:
            raise CheckFailure(f"{where}, Lambda_D has shape {Lam.shape}, one entry per pair of examples: that is "
                               f"Phi Phi^T. Lambda_D is Phi^T Phi / N, one entry per pair of features, shape "
                               f"({psi}, {psi}).")
        expected = case.expected[0]
        if Lam is not None and Lam.shape == expected.shape and not np.allclose(Lam, expected, rtol=1e-8, atol=1e-10):
            centred = np.cov(Phi, rowvar=False, bias=True)
            for guess, slip in ((expected * N / (N - 1) if N > 1 else None, "you divided by N - 1; divide by N"),
                                (expected * N, "you did not divide by N"),
                                (centred, "you removed the mean (a centred covariance); Lambda_D is uncentred"),
                                (centred * N / (N - 1) if N > 1 else None,
                                 "you removed the mean and divided by N - 1 (np.cov); Lambda_D is uncentred, / N")):
                if guess is not None and np.allclose(Lam, guess, rtol=1e-8, atol=1e-10):
                    raise CheckFailure(f"{where}, Lambda_D is wrong: {slip}. {_CERTIFICATE_SLIP}")
        if Lam is not None and np.allclose(Lam, expected, rtol=1e-8, atol=1e-10):
            rank = got[1]
            w = np.linalg.eigvalsh(expected)
            top = max(float(w[-1]), 0.0)
            right = int(case.expected[1])
            if np.ndim(rank) == 0 and np.isfinite(float(rank)) and int(rank) != right:
                if int(rank) == int(np.sum(w > _EPS * top)):
                    raise CheckFailure(f"{where}, rank is {int(rank)}; expected {right}. Your threshold looks like "
                                       "eps * lam_max: it misses the factor psi, so an eigenvalue of a few eps "
                                       "lam_max (rounding) counts. Use psi * eps * lam_max.")
                if int(rank) == int(np.sum(w > 0)):
                    raise CheckFailure(f"{where}, rank is {int(rank)}; expected {right}. You counted every "
                                       "positive eigenvalue: rounding leaves eigenvalues of order eps * lam_max "
                                       "where the exact ones are 0. Count those above psi * eps * lam_max.")
        return got

    run_check("check_certificate", fn, cases, ["Phi"], rtol=1e-8, atol=1e-10, convert=convert)


def _span_reference(Phi, phi):
    """Relative residual of each test feature vector against the range of Lambda_D (the library's basis)."""
    N, psi = Phi.shape
    w, V = np.linalg.eigh(Phi.T @ Phi / N)
    V = V[:, w > psi * _EPS * max(float(w[-1]), 0.0)]                          # (psi, rank)
    R = phi - (phi @ V) @ V.T
    norm = np.linalg.norm(phi, axis=1)
    return np.linalg.norm(R, axis=1) / np.where(norm > 0, norm, 1.0)


@arguments(fn="function")
def check_span_cover(fn) -> None:
    """Check the span form of the certificate: ``fn(Phi, phi)``, training features and test features.

    Phi has shape (N, psi), one row of features per training input; phi has
    shape (M, psi), one row per test input. Returns r of shape (M,):
    ``r[i] = ||phi_i - P phi_i|| / ||phi_i||``, P the orthogonal projection
    on the span of the training features (the rows of Phi, the range of
    Lambda_D). Where r is 0, every least-squares fit of the training data gives
    the same output on test input i (it is *covered*).

    Examples
    --------
    >>> def my_span_residual(Phi, phi):
    ...     coef = np.linalg.lstsq(Phi.T, phi.T, rcond=None)[0]      # best mix of training rows
    ...     R = phi - (Phi.T @ coef).T
    ...     return np.linalg.norm(R, axis=1) / np.linalg.norm(phi, axis=1)
    >>> check_span_cover(my_span_residual)
    check_span_cover: all 4 cases passed.
    """
    rng = case_rng(208)
    signs = lambda *shape: rng.choice([-1.0, 1.0], size=shape)  # noqa: E731
    onehot = lambda N, n, d: np.eye(d)[rng.integers(0, d, size=(N, n))]  # noqa: E731
    specs = [("trained on signs of length 5, tested on 3 sign and 3 Gaussian inputs of length 9, d=2",
              signs(40, 5, 2), [signs(3, 9, 2), rng.normal(size=(3, 9, 2))]),
             ("trained on one-hot tokens, tested on one-hot and Gaussian inputs, d=3",
              onehot(60, 4, 3), [onehot(3, 6, 3), 5.0 * rng.normal(size=(2, 6, 3))]),
             ("trained on Gaussian inputs (certified: every residual is 0), d=2",
              rng.normal(size=(30, 4, 2)), [10.0 * rng.normal(size=(4, 7, 2))]),
             ("trained on signs, d=3, tested on signs and scaled Gaussian inputs",
              signs(200, 6, 3), [signs(2, 4, 3), 0.1 * rng.normal(size=(3, 5, 3))])]
    cases = []
    for label, X, X_test in specs:
        Phi, phi = _features(X), np.concatenate([_features(batch) for batch in X_test])
        cases.append(Case(label, (Phi, phi), _span_reference(Phi, phi)))

    def convert(got, case):
        Phi, phi = case.args
        got_arr = np.asarray(got)
        where = f"check_span_cover: on case '{case.name}'"
        if got_arr.dtype.kind == "b":
            raise CheckFailure(f"{where}, you returned True/False: return the residual itself, a number per test "
                               "input (the chapter's covers() thresholds it).")
        if got_arr.shape == case.expected.shape and got_arr.dtype.kind in "iuf":
            expected = case.expected
            if np.allclose(got_arr, expected**2, atol=1e-8) and not np.allclose(got_arr, expected, atol=1e-8):
                raise CheckFailure(f"{where}, your residuals are the squares of the expected ones: return "
                                   "||phi - P phi|| / ||phi||, not its square.")
            absolute = expected * np.linalg.norm(phi, axis=1)
            if np.allclose(got_arr, absolute, atol=1e-8) and not np.allclose(got_arr, expected, atol=1e-8):
                raise CheckFailure(f"{where}, your residuals are ||phi - P phi||, not relative: divide by ||phi||, "
                                   "so that the residual does not depend on the scale of the test input.")
            if np.all(np.abs(got_arr) < 1e-8) and np.any(expected > 1e-6):
                raise CheckFailure(f"{where}, every residual you return is 0, but some test inputs lie off the "
                                   "training span: did you project on every eigenvector of Lambda_D, including "
                                   "those of the eigenvalues the certificate counts as zero?")
        return got

    run_check("check_span_cover", fn, cases, ["Phi", "phi"], rtol=1e-6, atol=1e-8, convert=convert,
              label="the residual r")
