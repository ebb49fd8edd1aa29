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


def test_the_sweep_certifies_its_own_data():
    """The sweep takes each share's certificate from its fit's normal equations. The oracle replays the
    sweep's draws from the same seed and walks each data set afresh with certificate(X)."""
    from attnlib.rkhs import certificate
    from attnlib.rkhs.coefficients import parameter_map
    from attnlib.tasks.associative_memory import memory_heads, sample_memories

    shares, N, N_test = [0.9, 1.0], 300, 40
    sweep = identifiability_sweep(shares, N=N, steps=5, N_test=N_test, rng=7)
    replay = np.random.default_rng(7)
    sample_memories(N_test, 2, rng=replay)  # the out-of-distribution tables
    replay.standard_normal(parameter_map(memory_heads(2)).shape)  # the solvers' start
    for share, lam_min, rank in zip(shares, sweep.lam_min, sweep.rank, strict=True):
        fresh = certificate(sample_memories(N, 2, orthogonal_share=share, rng=replay).X)
        assert fresh.data_lam_min == lam_min and fresh.rank == rank
    assert sweep.rank.tolist() == [40, 36]  # share 1 is singular: both paths of the certificate are covered
