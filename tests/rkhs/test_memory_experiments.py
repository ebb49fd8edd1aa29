"""The associative-memory experiments of chapter 5: the sweep records each fit's training loss."""

from __future__ import annotations

import numpy as np

from attnlib.rkhs.experiments import identifiability_sweep


def test_sweep_records_the_training_loss_of_every_fit():
    sweep = identifiability_sweep([0.0, 1.0], N=400, steps=50, N_test=50, rng=0)
    assert set(sweep.train_loss) == set(sweep.distance)
    assert all(v.shape == (2,) for v in sweep.train_loss.values())
    # realizable data: the exact fits reach zero loss, on singular data too; a short budget does not
    assert np.all(sweep.train_loss["exact"] < 1e-20) and np.all(sweep.train_loss["minimum norm"] < 1e-20)
    assert np.all(sweep.train_loss["iterative"] > sweep.train_loss["exact"])
    # the lam_min it reports is that of the data (ordinary scale: the certificate's own)
    assert sweep.lam_min[0] > 0 and sweep.lam_min[1] == 0.0


def test_an_explorer_reuses_the_exact_part_and_gets_the_sweep_to_the_last_bit():
    """The explorer's shortcut (data, certificates and exact fits once per size, then one fit per budget)
    against the oracle: each share's data fitted afresh, and certificate(X) walked afresh."""
    from attnlib.rkhs import certificate, fit_linear_attention
    from attnlib.rkhs.coefficients import parameter_distance
    from attnlib.rkhs.experiments import _ExactSweep

    shares = [0.9, 1.0]
    exact = _ExactSweep.run(shares, 300, 2, 40, np.random.default_rng(7))
    for steps in (5, 60):
        shortcut = exact.with_iterative(steps)
        full = identifiability_sweep(shares, N=300, steps=steps, N_test=40, rng=7)
        assert shortcut.steps == full.steps == steps
        assert np.array_equal(shortcut.lam_min, full.lam_min) and np.array_equal(shortcut.rank, full.rank)
        for got, want in ((shortcut.distance, full.distance), (shortcut.ood, full.ood),
                          (shortcut.train_loss, full.train_loss)):
            assert all(np.array_equal(got[k], want[k]) for k in want)
    for data, cert, share_lam, share_rank in zip(exact.data, exact.certificates, shortcut.lam_min, shortcut.rank,
                                                 strict=True):
        fresh = certificate(data.X)
        assert fresh.data_lam_min == cert.data_lam_min == share_lam and fresh.rank == cert.rank == share_rank
        iterative = fit_linear_attention(data.X, data.Y, steps=60, start=exact.start)
        assert parameter_distance(iterative, exact.heads) in shortcut.distance["iterative"]
    assert shortcut.rank.tolist() == [40, 36]  # share 1 is singular: both paths of the certificate are covered
