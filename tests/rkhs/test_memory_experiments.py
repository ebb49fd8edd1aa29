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
