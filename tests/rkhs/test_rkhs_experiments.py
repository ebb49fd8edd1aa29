"""Tests for attnlib.rkhs.experiments: the Part II experiments at tiny scale."""

import numpy as np
import pytest

from attnlib.rkhs import certificate, n_features
from attnlib.rkhs.experiments import (
    HeadsRace,
    adam_on_memories,
    heads_vs_regression,
    identifiability_sweep,
    learning_curve,
)
from attnlib.tasks.associative_memory import sample_memories


def test_learning_curve_is_exact_from_psi_examples_without_noise():
    Ns, errors = learning_curve(2, 0.0, rng=0)
    psi = n_features(2)
    assert np.all(errors[Ns >= psi] < 1e-9) and np.all(errors[Ns < psi] > 1e-3)
    _, noisy = learning_curve(2, 0.1, Ns=[12, 96], rng=0)
    assert noisy[1] < noisy[0] and noisy[1] > 1e-4  # noise: error falls with N but stays positive


def test_heads_vs_regression_records_every_run():
    race = heads_vs_regression(2, N=64, n=4, heads=(1, 4), seeds=2, epochs=5, rng=0)
    assert isinstance(race, HeadsRace)
    assert list(race.curves) == ["1 head", "4 heads"] and race.curves["1 head"].shape == (2, 6)
    assert not np.array_equal(*race.curves["4 heads"])  # two different initialisations
    assert race.regression < 1e-20 < min(c[:, -1].min() for c in race.curves.values())
    assert set(race.seconds) == {"regression", "1 head", "4 heads"}


def test_adam_on_memories_reports_distance_and_loss_per_head_count():
    data = sample_memories(64, 2, rng=0)
    runs = adam_on_memories(data, heads=(1, 2), epochs=3, rng=0)
    assert runs.heads == (1, 2) and runs.distance.shape == runs.loss.shape == (2,)
    # realisable targets: the training MSE is (p - p*)^T Lambda_D (p - p*) / d, so the distance in
    # p-space is pinned between sqrt(d MSE / lam_max) and sqrt(d MSE / lam_min) of the certificate
    cert, d = certificate(data.X), data.X.shape[-1]
    assert cert.identifiable
    for distance, loss in zip(runs.distance, runs.loss, strict=True):
        assert np.sqrt(d * loss / cert.lam_max) * (1 - 1e-9) <= distance
        assert distance <= np.sqrt(d * loss / cert.lam_min) * (1 + 1e-9)


def test_identifiability_sweep_names_shares_outside_0_1():
    with pytest.raises(ValueError, match=r"shares must lie in \[0, 1\]; received values 0.5 .. 1.5"):
        identifiability_sweep([0.5, 1.5], N=64, steps=2, N_test=8, rng=0)
