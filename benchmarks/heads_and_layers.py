"""The paper's Fig. 1 at the book's scale: Adam on heads and layers against one regression, the record chapter 4 draws.

    python benchmarks/heads_and_layers.py               # the record (twelve seeds per arm, about 45 s)
    python benchmarks/heads_and_layers.py --seeds 3     # printed only; the results file is left alone

Every arm trains on the same data from a random one-head teacher with scalar targets
(``attnlib.rkhs.experiments.heads_and_layers``: d = 2, N = 256 sequences of n = 16 tokens, Adam with
a cosine schedule from 0.01, batches of 64, 100 epochs): one layer with 1, 2 and 4 heads, two
layers of one head, and two layers with MLP sublayers. Regression fits the same data by least
squares. The comparison, in one run: the validation MSE each arm reaches, and the time of one Adam
run against the regression's, as a ratio.

Chapter 4 runs the first three seeds of the same race in its own cell (the seeds are children of
one generator, so the first three of twelve are those of a three-seed run) and draws the figure
from this file: twelve seeds per arm take about 45 s, more than a reader should wait. The results
(``results`` in ``benchmarks/results/heads_and_layers.json``):

* ``config``: the race's arguments, ``seed`` the integer its generator starts from;
* ``regression``: the regression's validation MSE and ``regression_seconds`` its time;
* ``arms.<label>``: ``final`` (the last epoch's validation MSE, one per seed), ``curves`` (the
  validation MSE after every epoch, one row per seed, to 4 significant digits) and ``seconds``
  (summed over the seeds);
* ``adam_over_regression``: the median time of one Adam run over all arms, divided by the
  regression's time.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from _results import write_results

from attnlib import attention, gaussian_inputs, random_heads
from attnlib.rkhs import fit_linear_attention
from attnlib.rkhs.experiments import heads_and_layers

#: the race chapter 4 draws (``seeds`` is the record's; the chapter runs fewer)
CONFIG = {"d": 2, "N": 256, "n": 16, "heads": [1, 2, 4], "layers": [2], "seeds": 12, "epochs": 100, "lr": 0.01,
          "seed": 4}


def race(seeds: int):
    """``heads_and_layers`` with :data:`CONFIG` and ``seeds`` seeds per arm."""
    c = CONFIG
    return heads_and_layers(c["d"], N=c["N"], n=c["n"], heads=tuple(c["heads"]), layers=tuple(c["layers"]),
                            seeds=seeds, epochs=c["epochs"], lr=c["lr"], rng=c["seed"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=CONFIG["seeds"],
                        help=f"seeds per arm (the record has {CONFIG['seeds']}; fewer are printed only)")
    args = parser.parse_args()
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "unknown"
    print(f"{os.cpu_count()} cores, load average {load}; OPENBLAS_NUM_THREADS="
          f"{os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}")
    started = time.perf_counter()
    # a first fit loads what the regression needs (about 0.3 s), which the race's one timed fit must not count
    X = gaussian_inputs(64, CONFIG["n"], CONFIG["d"], rng=0)
    fit_linear_attention(X, attention(X, random_heads(1, CONFIG["d"], rng=1), kind="linear", causal=True), causal=True)
    result = race(args.seeds)
    runs = {label: result.seconds[label] / args.seeds for label in result.curves}
    ratio = float(np.median(list(runs.values()))) / result.seconds["regression"]
    print(f"regression: validation MSE {result.regression:.1e} in {1e3 * result.seconds['regression']:.1f} ms")
    print(f"{'arm':16s} {'median final MSE':>17s} {'range over seeds':>20s} {'s per run':>10s}")
    arms = {}
    for label, curves in result.curves.items():
        final = curves[:, -1]
        print(f"{label:16s} {np.median(final):17.1e} {final.min():9.1e} to {final.max():.1e} {runs[label]:10.2f}")
        arms[label] = {"final": final.tolist(), "curves": [[float(f"{v:.4g}") for v in row] for row in curves],
                       "seconds": result.seconds[label]}
    print(f"one Adam run (median over the arms) / the regression: {ratio:.0f}")
    if args.seeds != CONFIG["seeds"]:
        print(f"{args.seeds} seeds, not the record's {CONFIG['seeds']}: "
              "benchmarks/results/heads_and_layers.json is left as it was")
        return
    results = {"config": CONFIG, "regression": result.regression,
               "regression_seconds": result.seconds["regression"], "arms": arms,
               "adam_over_regression": ratio, "load_average": load,
               "seconds": time.perf_counter() - started}
    print(f"results written to {write_results('heads_and_layers', results)}")


if __name__ == "__main__":
    main()
