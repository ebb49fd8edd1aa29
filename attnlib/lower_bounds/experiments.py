"""The gradient baseline on the parity family: Adam from random starts (chapter 10)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._arguments import arguments, choice
from ..attention import attention
from ..heads import Heads
from ..inputs import boolean_inputs
from ..training import SCHEDULES, train
from .family import ParityInstance, parity_instance

__all__ = ["GDRun", "gd_experiment"]


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


@arguments(d="size", s="size", N="size", N_test="size", epochs="size", lr="tol", batch_size="optsize", m="optsize",
           schedule=choice(*SCHEDULES), rng="rng")
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
    r_inst, r_train, r_test, r_fit = rng.spawn(4)
    instance = parity_instance(d, s, rng=r_inst)
    X = boolean_inputs(N, 2, d, rng=r_train)
    X_test = boolean_inputs(N_test, 2, d, rng=r_test)
    m = instance.m if m is None else m
    result = train(X, attention(X, instance.heads), m, epochs=epochs, lr=lr, batch_size=batch_size,
                   schedule=schedule, X_val=X_test, Y_val=attention(X_test, instance.heads), rng=r_fit)
    return GDRun(instance, result.heads, result.loss, result.val_loss, 2.0 / d, result.seconds)
