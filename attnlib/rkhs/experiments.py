"""The experiments of Part II at reduced scale: learning curves, heads against regression, Adam on
memories, and the identifiability sweep.

Each function runs one experiment of chapters 4-5 and returns plain arrays,
which :mod:`attnlib.viz.rkhs` draws. They take ``rng`` like everything else,
so a chapter that passes one generator gets the same numbers on every run.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass

import numpy as np

from .._arguments import arguments, instance, interval
from ..attention import attention
from ..heads import Heads, random_heads
from ..inputs import gaussian_inputs
from ..tasks.associative_memory import Memories, memory_heads, sample_memories
from ..training import train
from .coefficients import heads_from_coef, parameter_distance, parameter_map
from .features import n_features
from .regression import fit_linear_attention
from .stack import train_stack

__all__ = ["HeadCount", "HeadsRace", "MemoryRuns", "Sweep", "adam_on_memories", "heads_vs_regression",
           "identifiability_sweep",
           "heads_and_layers", "learning_curve", "minimisers_by_heads"]

#: associative-memory tables with their teacher
MEMORIES = instance(Memories, where="attnlib.tasks.associative_memory.sample_memories")


@arguments(d="size", noise=interval(0.0, np.inf, high_open=True), Ns="optsizes", n="size", N_test="size", rng="rng")
def learning_curve(d: int, noise: float, *, Ns=None, n: int = 6, N_test: int = 200, rng=None):
    """Relative test error of regression against N, for a random 2-head teacher with label noise.

    Parameters
    ----------
    d : int
    noise : float
        Standard deviation of Gaussian noise added to the training targets,
        relative to their root mean square.
    Ns : array_like of int, optional
        Training set sizes; default from psi / 2 to 16 psi.
    n : int
        Tokens per training sequence (test sequences have 3n).
    N_test : int, default 200
        Test sequences.
    rng : int, numpy.random.Generator or None

    Returns
    -------
    Ns : ndarray
    errors : ndarray
        ``||F_hat - F|| / ||F||`` on fresh inputs, one per N.
    """
    psi = n_features(d)
    Ns = np.unique(np.geomspace(psi // 2, 16 * psi, 9).astype(int)) if Ns is None else np.asarray(Ns)
    teacher = random_heads(2, d, rng=rng)
    X_test = gaussian_inputs(N_test, 3 * n, d, rng=rng)
    truth = attention(X_test, teacher, kind="linear")[:, -1]
    errors = []
    for N in Ns:
        X = gaussian_inputs(int(N), n, d, rng=rng)
        Y = attention(X, teacher, kind="linear")[:, -1]
        Y = Y + noise * np.sqrt(np.mean(Y**2)) * rng.standard_normal(Y.shape)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # N < psi: the minimum-norm fit, as documented
            fit = fit_linear_attention(X, Y)
        errors.append(np.linalg.norm(fit.predict(X_test) - truth) / np.linalg.norm(truth))
    return Ns, np.array(errors)


@dataclass(frozen=True, eq=False)
class HeadsRace:
    """Adam with several head counts against regression on the same data (the paper's Fig. 1).

    Attributes
    ----------
    curves : dict of str -> ndarray of shape (seeds, epochs + 1)
        Validation MSE per epoch, by head count, one row per random initialisation.
    regression : float
        Validation MSE of :func:`attnlib.rkhs.fit_linear_attention` on the same data.
    seconds : dict of str -> float
        Wall-clock time of each run (summed over seeds), the regression included.
    """

    curves: dict
    regression: float
    seconds: dict

    def __repr__(self) -> str:
        return f"HeadsRace(runs={list(self.curves)}, regression={self.regression:.2g})"


def _race_data(teacher: Heads, N: int, n: int, n_val: int, rng: np.random.Generator):
    """Fig. 1's data: Gaussian tokens of variance 1/n, causal targets of ``teacher``, and regression's score.

    Returns X, Y, X_val, Y_val, the validation MSE of the regression fit, and ``{"regression": seconds}``.
    """
    d = teacher.d
    X = gaussian_inputs(N, n, d, rng=rng) / np.sqrt(n)
    X_val = gaussian_inputs(n_val, n, d, rng=rng) / np.sqrt(n)
    Y = attention(X, teacher, kind="linear", causal=True)
    Y_val = attention(X_val, teacher, kind="linear", causal=True)
    start = time.perf_counter()
    fit = fit_linear_attention(X, Y, causal=True)
    seconds = {"regression": time.perf_counter() - start}
    return X, Y, X_val, Y_val, float(np.mean((fit.predict(X_val) - Y_val) ** 2)), seconds


@arguments(d="size", N="size", n="size", heads="sizes", seeds="size", epochs="size", lr="tol", batch_size="optsize",
           n_val="size", rng="rng")
def heads_vs_regression(d: int, *, N: int, n: int, heads=(1, 2, 4, 8), seeds: int = 1, epochs: int = 100,
                        lr: float = 1e-2, batch_size: int = 64, n_val: int = 256, rng=None) -> HeadsRace:
    """Train causal linear attention with each head count by Adam, and fit it by regression.

    The setting of the paper's §4.1 at reduced scale: a random one-head
    teacher, Gaussian tokens with variance 1/n, targets at every position
    computed causally, validation MSE after every epoch.

    Parameters
    ----------
    d, N, n : int
        Token dimension, training sequences, tokens per sequence.
    heads : tuple of int
        Head counts of the students.
    seeds : int
        Random initialisations (and minibatch orders) per head count, on the same data.
    epochs, lr, batch_size
        Adam settings (:func:`attnlib.train`, cosine schedule).
    n_val : int
        Validation sequences.
    rng : int, numpy.random.Generator or None

    Returns
    -------
    HeadsRace
    """
    teacher = random_heads(1, d, rng=rng)
    X, Y, X_val, Y_val, regression, seconds = _race_data(teacher, N, n, n_val, rng)
    curves = {}
    for m, stream in zip(heads, rng.spawn(len(heads)), strict=True):
        label = f"{m} head" + ("s" if m > 1 else "")
        runs = [train(X, Y, m, kind="linear", causal=True, epochs=epochs, lr=lr, batch_size=batch_size,
                      schedule="cosine", X_val=X_val, Y_val=Y_val, rng=seed) for seed in stream.spawn(seeds)]
        curves[label] = np.array([run.val_loss for run in runs])
        seconds[label] = sum(run.seconds for run in runs)
    return HeadsRace(curves, regression, seconds)


@arguments(d="size", N="size", n="size", heads="sizes", layers="sizes", seeds="size", epochs="size", lr="tol",
           batch_size="size", n_val="size", rng="rng")
def heads_and_layers(d: int, *, N: int, n: int, heads=(1, 2, 4), layers=(2,), seeds: int = 3, epochs: int = 100,
                     lr: float = 1e-2, batch_size: int = 64, n_val: int = 256, rng=None) -> HeadsRace:
    """Fig. 1 with the paper's scalar teacher: heads against layers against regression.

    The teacher is one head whose projection has a single nonzero column
    (``V in R^{1 x d}`` in the paper's §4.1), so its targets are scalar; the
    other d - 1 output coordinates are identically 0 and every student must
    learn to leave them at 0. Inputs, targets, Adam and the cosine schedule are
    those of :func:`heads_vs_regression`.

    Parameters
    ----------
    d, N, n : int
    heads : tuple of int
        Head counts of one-layer students.
    layers : tuple of int
        Depths of the deeper students (one head per layer): a linear-attention
        stack, and a Transformer-style stack with MLP sublayers
        (:mod:`attnlib.rkhs.stack`).
    seeds, epochs, lr, batch_size, n_val, rng
        As in :func:`heads_vs_regression`.

    Returns
    -------
    HeadsRace
        Curves labelled "1 head", ..., "2 layers", "2 layers + MLP"; the MSE is
        the mean over all d output coordinates.

    Examples
    --------
    >>> from attnlib.rkhs.experiments import heads_and_layers
    >>> race = heads_and_layers(2, N=32, n=4, heads=(1,), layers=(2,), seeds=1, epochs=2, rng=0)
    >>> list(race.curves), race.curves["2 layers"].shape, bool(race.regression < 1e-20)
    (['1 head', '2 layers', '2 layers + MLP'], (1, 3), True)
    """
    one = random_heads(1, d, rng=rng)
    W = np.zeros_like(one.W)
    W[:, :, 0] = one.W[:, :, 0]                      # scalar targets: only output coordinate 0
    teacher = Heads(one.Theta, W)
    X, Y, X_val, Y_val, regression, seconds = _race_data(teacher, N, n, n_val, rng)
    curves = {}
    arms = [(f"{m} head" + ("s" if m > 1 else ""), "heads", m) for m in heads]
    arms += [(f"{L} layers", "stack", L) for L in layers] + [(f"{L} layers + MLP", "mlp", L) for L in layers]
    for (label, kind, size), stream in zip(arms, rng.spawn(len(arms)), strict=True):
        runs = []
        for seed in stream.spawn(seeds):
            if kind == "heads":
                runs.append(train(X, Y, size, kind="linear", causal=True, epochs=epochs, lr=lr, batch_size=batch_size,
                                  schedule="cosine", X_val=X_val, Y_val=Y_val, rng=seed))
            else:
                runs.append(train_stack(X, Y, layers=size, mlp=kind == "mlp", epochs=epochs, lr=lr,
                                        batch_size=batch_size, X_val=X_val, Y_val=Y_val, rng=seed))
        curves[label] = np.array([run.val_loss for run in runs])
        seconds[label] = sum(run.seconds for run in runs)
    return HeadsRace(curves, regression, seconds)


@dataclass(frozen=True, eq=False)
class MemoryRuns:
    """Adam on associative-memory tables (:func:`adam_on_memories`), one run per head count.

    Attributes
    ----------
    heads : tuple of int
        The head counts, in order.
    distance : ndarray of shape (H,)
        ``||p(Theta) - p(Theta_hat)||_F`` after training, per head count.
    loss : ndarray of shape (H,)
        Final training MSE, per head count (near 0 means an empirical risk minimiser).
    """

    heads: tuple
    distance: np.ndarray
    loss: np.ndarray

    def __repr__(self) -> str:
        return f"MemoryRuns(heads={self.heads})"


@arguments(data=MEMORIES, heads="sizes", epochs="size", lr="tol", batch_size="optsize", init_scale="tol", rng="rng")
def adam_on_memories(data, heads=(1, 2, 4, 8), *, epochs: int = 300, lr: float = 1e-2, batch_size=None,
                     init_scale: float = 1.0, rng=None) -> MemoryRuns:
    """Train linear attention by Adam on associative-memory tables; distance to the truth per head count.

    Parameters
    ----------
    data : attnlib.tasks.associative_memory.Memories
    heads : tuple of int
    epochs, lr, batch_size, init_scale
        Adam settings (:func:`attnlib.train`, cosine schedule).
    rng : int, numpy.random.Generator or None

    Returns
    -------
    MemoryRuns

    Examples
    --------
    >>> from attnlib.rkhs.experiments import adam_on_memories
    >>> from attnlib.tasks.associative_memory import sample_memories
    >>> runs = adam_on_memories(sample_memories(64, 2, rng=0), heads=(1, 2), epochs=3, rng=0)
    >>> runs.heads, runs.distance.shape
    ((1, 2), (2,))
    """
    distance, loss = [], []
    for m, stream in zip(heads, rng.spawn(len(heads)), strict=True):
        run = train(data.X, data.Y, m, kind="linear", epochs=epochs, lr=lr, batch_size=batch_size,
                    schedule="cosine", init_scale=init_scale, rng=stream)
        distance.append(parameter_distance(run.heads, data.heads))
        loss.append(float(run.loss[-1]))
    return MemoryRuns(heads, np.array(distance), np.array(loss))


@dataclass(frozen=True, eq=False)
class HeadCount:
    """Training loss and distance to the teacher of many runs, by head count.

    Attributes
    ----------
    loss : dict of int -> ndarray of shape (runs,)
        Final training MSE of each run, by head count.
    distance : dict of int -> ndarray of shape (runs,)
        ``||p(Theta) - p(Theta_star)||_F`` of each run.
    method : dict of int -> str
        "adam" (full-batch Adam from a random start) or "exact" (the least-squares
        minimiser nearest a random start, folded into at most d^2 heads by the SVD).
    """

    loss: dict
    distance: dict
    method: dict

    @arguments(H="size", tol="tol")
    def zero_loss(self, H: int, tol: float = 1e-12) -> np.ndarray:
        """Mask of the runs with H heads whose training MSE is at most ``tol`` (empirical risk minimisers)."""
        return self.loss[H] <= tol

    def __repr__(self) -> str:
        return f"HeadCount(heads={list(self.loss)}, runs={[v.size for v in self.loss.values()]})"


@arguments(data=MEMORIES, heads="sizes", seeds="size", epochs="size", lr="tol", rng="rng")
def minimisers_by_heads(data, heads=(1, 2, 16), *, seeds: int = 8, epochs: int = 3000, lr: float = 1e-2,
                        rng=None) -> HeadCount:
    """Empirical risk minimisers with each head count on realisable data, and their distance to the teacher.

    Parameters
    ----------
    data : attnlib.tasks.associative_memory.Memories
        Realisable data (``data.heads`` is the teacher), last-token targets.
    heads : tuple of int
        Head counts. A count below d^2 is trained by full-batch Adam with a
        constant step from ``seeds`` random starts; a count of at least d^2 gets
        ``seeds`` exact minimisers, the least-squares solutions nearest random
        starts, folded into heads (every coefficient matrix is a d^2-head layer).
    seeds : int
        Runs per head count.
    epochs, lr
        Adam settings for the counts below d^2.
    rng : int, numpy.random.Generator or None

    Returns
    -------
    HeadCount
        Adam runs that stall at a positive loss (at a local minimum or a
        saddle: the loss alone does not say which) are not minimisers; only
        the runs with ``zero_loss`` are empirical risk minimisers.

    Notes
    -----
    On singular data the set of minimisers of a class is the set of layers of
    that class whose coefficients lie in ``p_star + ker Lambda_D``. With d^2
    heads that is the whole affine space; with fewer heads it is its
    intersection with the coefficients of at most H heads, which can be the
    teacher alone. The certificate cannot tell these apart; this experiment
    samples them.

    Examples
    --------
    >>> from attnlib.rkhs.experiments import minimisers_by_heads
    >>> from attnlib.tasks.associative_memory import sample_memories
    >>> data = sample_memories(64, 2, orthogonal_share=1.0, rng=0)
    >>> runs = minimisers_by_heads(data, heads=(16,), seeds=2, rng=0)
    >>> bool(runs.zero_loss(16).all()), bool((runs.distance[16] > 0.1).all())
    (True, True)
    """
    d = data.X.shape[-1]
    truth = parameter_map(data.heads)
    scale = np.linalg.norm(truth) / np.sqrt(truth.size)
    loss, distance, method = {}, {}, {}
    for H, stream in zip(heads, rng.spawn(len(heads)), strict=True):
        losses, dists = [], []
        for seed in stream.spawn(seeds):
            if H >= d * d:
                with warnings.catch_warnings():
                    warnings.filterwarnings("ignore", message=".*not unique", category=RuntimeWarning)
                    fit = fit_linear_attention(data.X, data.Y, start=scale * seed.standard_normal(truth.shape))
                student = heads_from_coef(fit.coef)
            else:
                student = train(data.X, data.Y, H, kind="linear", epochs=epochs, lr=lr, rng=seed).heads
            out = attention(data.X, student, kind="linear")[:, -1]
            losses.append(float(np.mean((out - data.Y) ** 2)))
            dists.append(parameter_distance(student, data.heads))
        loss[H], distance[H] = np.array(losses), np.array(dists)
        method[H] = "exact" if H >= d * d else "adam"
    return HeadCount(loss, distance, method)


@dataclass(frozen=True, eq=False)
class Sweep:
    """Certificate against recovery over a range of orthogonal shares (the paper's Fig. 2).

    Every array has one entry per share.

    Attributes
    ----------
    shares : ndarray
    lam_min : ndarray
        Smallest eigenvalue of ``Lambda_D`` (0 where the rank is deficient).
    rank : ndarray of int
        Rank of ``Lambda_D``, out of psi = d^2 (d + 1) / 2.
    distance : dict of str -> ndarray
        ``||p(Theta) - p(Theta_hat)||_F`` for each solver: "minimum norm" (exact
        least squares, minimum-norm minimiser), "exact" (the exact minimiser
        gradient descent converges to from the random start) and "iterative"
        (``steps`` gradient-descent steps from that start).
    ood : dict of str -> ndarray
        Mean squared error of each fit on fresh tables from the Gaussian source.
    steps : int
    train_loss : dict of str -> ndarray, optional
        Training MSE of each fit (None for a sweep made without it).
    """

    shares: np.ndarray
    lam_min: np.ndarray
    rank: np.ndarray
    distance: dict
    ood: dict
    steps: int
    train_loss: dict | None = None

    def __repr__(self) -> str:
        return f"Sweep(shares={self.shares.size}, solvers={list(self.distance)}, steps={self.steps})"


@arguments(shares="axis", N="size", m="size", steps="size", N_test="size", rng="rng")
def identifiability_sweep(shares, *, N: int = 2**14, m: int = 2, steps: int = 1000, N_test: int = 2000,
                          rng=None) -> Sweep:
    """For each orthogonal share: certificate, distance to the truth, and out-of-distribution error.

    Parameters
    ----------
    shares : array_like of floats in [0, 1]
    N, m : int
        Tables per data set and pairs per table (the code layout of the paper's
        Fig. 2 is m = 2, N = 2**14).
    steps : int
        Budget of the iterative solver.
    N_test : int
        Fresh Gaussian-source tables for the out-of-distribution error.
    rng : int, numpy.random.Generator or None

    Returns
    -------
    Sweep

    Notes
    -----
    Every solver starts from the same random coefficients, of the same norm as
    the truth's. Exact least squares is all-or-nothing: on full-rank data it
    lands on the truth whatever the start, and on singular data it keeps the
    start's component in the null space of ``Lambda_D``, which no amount of
    data of that kind removes. A finite budget of gradient steps also leaves the
    directions with small eigenvalues unlearned, so its distance grows
    gradually as ``lam_min`` falls. The expected warnings about non-unique
    minimisers are silenced; ``rank`` records them.

    Examples
    --------
    >>> from attnlib.rkhs.experiments import identifiability_sweep
    >>> sweep = identifiability_sweep([0.0, 1.0], N=500, rng=0)
    >>> sweep.rank.tolist(), bool(sweep.distance["exact"][0] < 1e-10), bool(sweep.distance["exact"][1] > 0.1)
    ([40, 36], True, True)
    """
    if shares.min() < 0.0 or shares.max() > 1.0:
        raise ValueError(f"shares must lie in [0, 1]; received values {shares.min():g} .. {shares.max():g}")
    test = sample_memories(N_test, m, rng=rng)
    heads = memory_heads(m)
    truth = parameter_map(heads)
    start = rng.standard_normal(truth.shape) * np.linalg.norm(truth) / np.sqrt(truth.size)
    lam_min, rank = [], []
    distance = {"minimum norm": [], "exact": [], "iterative": []}
    ood = {key: [] for key in distance}
    train_loss = {key: [] for key in distance}
    for share in shares:
        data = sample_memories(N, m, orthogonal_share=share, rng=rng)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*not unique", category=RuntimeWarning)
            fits = {"minimum norm": fit_linear_attention(data.X, data.Y),
                    "exact": fit_linear_attention(data.X, data.Y, start=start)}
        # certificate(data.X), to the last bit, from the normal equations the fit has formed
        cert = fits["minimum norm"].certificate()
        lam_min.append(cert.data_lam_min)  # of data.X itself, not of data.X / cert.scale
        rank.append(cert.rank)
        fits["iterative"] = fit_linear_attention(data.X, data.Y, steps=steps, start=start)
        for key, fit in fits.items():
            distance[key].append(parameter_distance(fit, heads))
            ood[key].append(float(np.mean((fit.predict(test.X) - test.Y) ** 2)))
            train_loss[key].append(fit.train_loss)
    return Sweep(shares, np.array(lam_min), np.array(rank), {k: np.array(v) for k, v in distance.items()},
                 {k: np.array(v) for k, v in ood.items()}, steps, {k: np.array(v) for k, v in train_loss.items()})
