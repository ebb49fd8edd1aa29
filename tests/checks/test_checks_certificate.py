"""Tests for attnlib.checks.certificate: the second moment, the certificate and its span form (chapter 5).

The references are written from the definitions (a loop over examples, eigvalsh, least squares on the
training rows), on the features of the references in test_checks_rkhs.py, never with attnlib.rkhs.
"""

import numpy as np
import pytest
from test_checks_rkhs import good_features, raw_features

from attnlib.checks import CheckFailure, check_certificate, check_second_moment, check_span_cover


def good_second_moment(X):
    Phi = good_features(X)
    return Phi.T @ Phi / len(Phi)


def test_second_moment_reference_passes(capsys):
    check_second_moment(good_second_moment)
    assert capsys.readouterr().out == "check_second_moment: all 4 cases passed.\n"


@pytest.mark.parametrize("wrong, message", [
    (lambda X: np.cov(good_features(X), rowvar=False, bias=True),
     r"'shifted tokens \(features with nonzero mean\), d=2'|'Gaussian, N=50, d=2'"),                 # centred
    (lambda X: good_features(X).T @ good_features(X) / (len(X) - 1), r"'Gaussian, N=50, d=2'.*Lambda_D at index"),
    (lambda X: good_features(X).T @ good_features(X), r"'Gaussian, N=50, d=2'.*Lambda_D at index"),      # no 1/N
    (lambda X: raw_features(X).T @ raw_features(X) / len(X), r"Lambda_D has shape \(8, 8\); expected shape \(6, 6\)"),
])
def test_second_moment_check_rejects(wrong, message):
    with pytest.raises(CheckFailure, match=message):
        check_second_moment(wrong)


# --- the certificate and its span form (chapter 5's point-of-use exercise) ---------------------------


EPS = np.finfo(float).eps


def good_certificate(Phi):
    """From the definition: Lambda_D by a loop over examples, its spectrum by eigvalsh, zero below psi eps lam_max."""
    N, psi = Phi.shape
    Lam = sum(np.outer(row, row) for row in Phi) / N
    w = np.linalg.eigvalsh(Lam)
    rank = int(np.sum(w > psi * EPS * w[-1]))
    return Lam, rank, (w[0] if rank == psi else 0.0)


def matrix_rank_certificate(Phi):
    """A correct variant: numpy's matrix_rank on Lambda_D uses the same threshold, psi eps sigma_max."""
    Lam = np.einsum("Np,Nq->pq", Phi, Phi) / len(Phi)
    rank = np.linalg.matrix_rank(Lam)
    return Lam, rank, (np.linalg.eigh(Lam)[0][0] if rank == len(Lam) else 0.0)


def good_span_residual(Phi, phi):
    """A correct variant: least squares of each test vector on the training rows (lstsq, not solve)."""
    coef = np.linalg.lstsq(Phi.T, phi.T, rcond=None)[0]                    # (N, M)
    R = phi - (Phi.T @ coef).T
    return np.linalg.norm(R, axis=1) / np.linalg.norm(phi, axis=1)


def pinv_span_residual(Phi, phi):
    """Another correct variant: the projection P = pinv(Phi) Phi on the row space."""
    P = np.linalg.pinv(Phi) @ Phi
    return np.linalg.norm(phi - phi @ P, axis=1) / np.linalg.norm(phi, axis=1)


def test_certificate_and_span_references_pass(capsys):
    check_certificate(good_certificate)
    check_certificate(matrix_rank_certificate)
    check_span_cover(good_span_residual)
    check_span_cover(pinv_span_residual)
    assert capsys.readouterr().out.splitlines() == ["check_certificate: all 5 cases passed."] * 2 + [
        "check_span_cover: all 4 cases passed."] * 2


def test_certificate_check_agrees_with_the_library():
    """The check's threshold is attnlib.rkhs.certificate's: same rank and lam_min on the same inputs."""
    from attnlib.rkhs import certificate, cubic_features

    rng = np.random.default_rng(3)
    for X in (rng.normal(size=(60, 4, 2)), rng.choice([-1.0, 1.0], size=(80, 5, 3)), rng.normal(size=(5, 4, 3)),
              np.eye(3)[rng.integers(0, 3, size=(50, 4))]):
        _, rank, lam_min = good_certificate(cubic_features(X))
        cert = certificate(X)
        assert cert.rank == rank
        np.testing.assert_allclose(cert.lam_min, lam_min, rtol=1e-8, atol=1e-12)
    # the span form too: the check's residual is Certificate.span_residual
    X, X_test = rng.choice([-1.0, 1.0], size=(40, 5, 2)), rng.normal(size=(4, 9, 2))
    np.testing.assert_allclose(good_span_residual(cubic_features(X), cubic_features(X_test)),
                               certificate(X).span_residual(X_test), atol=1e-9)


def _cert_from(moment, threshold=lambda w, psi: psi * EPS * w[-1]):
    def fn(Phi):
        Lam = moment(Phi)
        w = np.linalg.eigvalsh(Lam)
        rank = int(np.sum(w > threshold(w, Lam.shape[0])))
        return Lam, rank, (w[0] if rank == Lam.shape[0] else 0.0)
    return fn


@pytest.mark.parametrize("wrong, message", [
    (_cert_from(lambda Phi: Phi.T @ Phi / (len(Phi) - 1)), r"you divided by N - 1; divide by N"),
    (_cert_from(lambda Phi: Phi.T @ Phi), r"you did not divide by N"),
    (_cert_from(lambda Phi: np.cov(Phi, rowvar=False, bias=True)), r"you removed the mean .*Lambda_D is uncentred"),
    (_cert_from(lambda Phi: np.cov(Phi, rowvar=False)), r"you removed the mean and divided by N - 1 \(np.cov\)"),
    (_cert_from(lambda Phi: Phi @ Phi.T / len(Phi)), r"that is Phi Phi\^T\. Lambda_D is Phi\^T Phi / N"),
    (_cert_from(lambda Phi: Phi.T @ Phi / len(Phi), lambda w, psi: EPS * w[-1]),
     r"'an eigenvalue of 4 eps lam_max.*misses the factor psi"),
    (_cert_from(lambda Phi: Phi.T @ Phi / len(Phi), lambda w, psi: 0.0), r"You counted every positive eigenvalue"),
    (lambda Phi: (Phi.T @ Phi / len(Phi), np.linalg.matrix_rank(Phi.T @ Phi / len(Phi)),
                  np.linalg.eigvalsh(Phi.T @ Phi / len(Phi))[-1]), r"lam_min"),              # the largest, not smallest
    (lambda Phi: (Phi.T @ Phi / len(Phi), np.linalg.matrix_rank(Phi)), r"return three things"),
])
def test_certificate_check_rejects(wrong, message):
    with pytest.raises(CheckFailure, match=message):
        check_certificate(wrong)


def _all_eigenvectors(Phi, phi):
    V = np.linalg.eigh(Phi.T @ Phi)[1]                                        # no threshold: all of R^psi
    return np.linalg.norm(phi - phi @ V @ V.T, axis=1) / np.linalg.norm(phi, axis=1)


def _column_space(Phi, phi):
    coef = np.linalg.lstsq(Phi, phi, rcond=None)[0]                            # shapes fail: the columns of Phi
    return np.linalg.norm(phi - Phi @ coef, axis=1) / np.linalg.norm(phi, axis=1)


def _solve_normal_equations(Phi, phi):                                         # Phi Phi^T is singular for N > psi
    coef = np.linalg.solve(Phi @ Phi.T, Phi @ phi.T)
    return np.linalg.norm(phi - (Phi.T @ coef).T, axis=1) / np.linalg.norm(phi, axis=1)


@pytest.mark.parametrize("wrong, message", [
    (lambda Phi, phi: good_span_residual(Phi, phi) * np.linalg.norm(phi, axis=1), r"not relative: divide by"),
    (lambda Phi, phi: good_span_residual(Phi, phi) ** 2, r"the squares of the expected ones"),
    (_all_eigenvectors, r"project on every eigenvector of Lambda_D"),
    (lambda Phi, phi: good_span_residual(Phi, phi) < 1e-6, r"you returned True/False"),
    (_column_space, r"your function raised|the residual r"),
    (_solve_normal_equations, r"raised LinAlgError|the residual r"),
    (lambda Phi, phi: 1 - good_span_residual(Phi, phi), r"the residual r at index"),           # share covered
])
def test_span_cover_check_rejects(wrong, message):
    with pytest.raises(CheckFailure, match=r"check_span_cover.*" + message):
        check_span_cover(wrong)
