"""Sculpting (the book's reconstruction of Chen and Li) against local optimisation, phase by phase.

    python benchmarks/sculpt.py [--seeds 20] [--large-seeds 5] [--sizes small,large] [--phase3] [--sweep]

For each size -- small (d=4, n=3, m=2, N=3000) and large (d=8, n=4, m=3,
N=10000) -- every method learns the same planted instances (attnlib.sculpt.
planted_instance, scale 4, shared 0.6) and is scored on 2000 fresh examples:

* sculpt + polish, and sculpt without polish (the phase-5 candidate of the same run);
* the same Levenberg-Marquardt polish from up to 5 random starts;
* L-BFGS from up to 5 random starts;
* Adam (attnlib.train, full batch, cosine schedule) from up to 5 random starts.

Every method has the same budget of 5 starts and the same acceptance rule (relative
training residual <= 1e-6 stops the restarts); sculpting's starts are the polish runs
of attnlib.sculpt.learn (its two candidates, then perturbations of the better one).
It prints, per method, successes with restarts (relative test error <= 1e-3), the
starts used (total and most), the success rate of a single start (accepted starts /
starts run, the estimate for restarts that stop at the first success), median error
and median time (all starts), the ratio of sculpting's time to the random-start polish's time,
and the per-phase diagnostics of the sculpting runs. --phase3 measures phase 3
on instances with a large shared component (20 seeds each); --sweep prints the
success rate of each method over attention sharpness and sample size (d=4; Adam
only with --sweep-adam).

The machine is shared and has 2 cores, so BLAS is limited to one thread (set
OPENBLAS_NUM_THREADS yourself to override) and times are medians over seeds.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from attnlib import attention, boolean_inputs  # noqa: E402
from attnlib.sculpt import METHODS, compare_methods, min_norm_point, planted_instance, carve, sweep  # noqa: E402
from attnlib.sculpt.diagnostics import cosine, phase_diagnostics, relative  # noqa: E402

SIZES = {
    "small": {"d": 4, "n": 3, "m": 2, "N": 3000, "adam_epochs": 1000},
    "large": {"d": 8, "n": 4, "m": 3, "N": 10000, "adam_epochs": 300},
}


def fmt(x):
    return "nan" if not np.isfinite(x) else f"{x:.2g}"


def run_size(name, spec, seeds):
    d, n, m, N = spec["d"], spec["n"], spec["m"], spec["N"]
    print(f"\n== {name}: d={d}, n={n}, m={m}, N={N}, planted scale 4, shared 0.6, {seeds} seeds ==")
    errors = {k: [] for k in METHODS}
    seconds = {k: [] for k in METHODS}
    starts = {k: [] for k in METHODS}
    certified = {k: [] for k in METHODS}
    diags, halfspaces = [], []
    failures = []
    for seed in range(seeds):
        rng = np.random.default_rng(seed)
        teacher = planted_instance(m, d, rng=rng)
        X = boolean_inputs(N, n, d, rng=rng)
        X_test = boolean_inputs(2000, n, d, rng=rng)
        Y_test = attention(X_test, teacher)
        res = compare_methods(X, attention(X, teacher), m, X_test, Y_test, adam_epochs=spec["adam_epochs"], rng=rng)
        for k in METHODS:
            errors[k].append(res[k].error)
            seconds[k].append(res[k].seconds)
            starts[k].append(res[k].starts)
            certified[k].append(res[k].certified)
        sculpted = res["sculpt + polish"]
        if sculpted.failed_phase:
            failures.append((seed, sculpted.failed_phase))
        diags.append(phase_diagnostics(sculpted.report, teacher, X_test, Y_test))
        halfspaces.append(sculpted.report.n_constraints or 0)
        print(f"  seed {seed:2d}: " + ", ".join(f"{k} {fmt(res[k].error)} ({res[k].starts})" for k in METHODS),
              flush=True)
    print(f"\n  {'method':22s} {'success':>9s} {'starts':>7s} {'most':>5s} {'per start':>10s} "
          f"{'median error':>13s} {'median s':>9s}")
    for k in METHODS:
        e = np.array(errors[k], dtype=float)
        ok = int(np.sum(np.nan_to_num(e, nan=np.inf) <= 1e-3))
        used = int(np.sum(starts[k]))
        per_start = f"{int(np.sum(certified[k]))}/{used}"
        print(f"  {k:22s} {ok:4d}/{len(e):<4d} {used:7d} {max(starts[k]):5d} {per_start:>10s} "
              f"{fmt(np.nanmedian(e)):>13s} {np.median(seconds[k]):9.2f}")
    ratio = np.median(seconds["sculpt + polish"]) / np.median(seconds["polish from random"])
    print(f"  time ratio, sculpt + polish / polish from random starts: {ratio:.1f}")
    if failures:
        print(f"  sculpting raised in: {failures}")
    print("\n  per-phase diagnostics of the sculpting runs (median over seeds [min, max])")
    for group in ("sum_W", "geometry", "errors", "seconds"):
        keys = sorted({k for dg in diags for k in dg[group]}, key=lambda k: list(diags[0][group]).index(k)
                      if k in diags[0][group] else 99)
        for k in keys:
            v = np.array([dg[group][k] for dg in diags if k in dg[group]], dtype=float)
            print(f"    {group:8s} {k:14s} {fmt(np.median(v)):>8s}  [{fmt(v.min())}, {fmt(v.max())}]")
    geo = [dg["geometry"].get("proxy cosine", 0) for dg in diags]
    print(f"    proxy cosine >= 0.9 in {sum(g >= 0.9 for g in geo)}/{len(geo)} seeds")
    print(f"    halfspaces in the body: median {int(np.median(halfspaces))} [{min(halfspaces)}, {max(halfspaces)}]")
    slices = [dg["sum_W"].get("phase 3", np.inf) for dg in diags]
    print(f"    phase-3 slice estimate of sum W within 1% in {sum(e <= 0.01 for e in slices)}/{len(slices)} seeds")


def run_phase3(seeds):
    print("\n== phase 3 on instances with a large shared component (refined sum W from the slices alone) ==")
    for d, n, N, scale, shared in [(4, 3, 3000, 6.0, 0.9), (6, 3, 5000, 4.0, 0.8), (6, 3, 5000, 4.0, 0.6)]:
        errs, coss = [], []
        for seed in range(seeds):
            rng = np.random.default_rng(seed)
            teacher = planted_instance(2, d, scale=scale, shared=shared, rng=rng)
            X = boolean_inputs(N, n, d, rng=rng)
            out = carve(X, attention(X, teacher))
            errs.append(relative(out.sum_W_slice, teacher.W.sum(0)))
            coss.append(cosine(out.proxy, min_norm_point(teacher.Theta)[0]))
        errs, coss = np.array(errs), np.array(coss)
        print(f"  d={d} n={n} N={N} scale={scale:g} shared={shared:g}: error <= 1% in {np.sum(errs <= 0.01)}/{seeds}"
              f" (median {fmt(np.median(errs))}), proxy cosine >= 0.9 in {np.sum(coss >= 0.9)}/{seeds}"
              f" (median {np.median(coss):.3f})")


def run_sweep(seeds, adam):
    scales, sizes = [0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0], [500, 1000, 3000]
    methods = METHODS if adam else METHODS[:4]
    print(f"\n== sweep, d=4, n=3, m=2, shared 0.6, {seeds} seeds per cell, up to 5 starts each: success rate ==")
    out = sweep(scales, sizes, seeds=seeds, methods=methods, rng=0, adam_epochs=1000)
    for k in methods:
        starts = out.starts[k]
        print(f"  {k}: {int(starts.sum())} starts in {starts.size} runs, at most {int(starts.max())}")
        print(f"  {k}")
        print("    scale \\ N " + "".join(f"{s:>7d}" for s in sizes))
        for a, scale in enumerate(scales):
            print(f"    {scale:9g} " + "".join(f"{v:7.2f}" for v in out.success[k][a]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--large-seeds", type=int, default=5)
    parser.add_argument("--sizes", default="small,large")
    parser.add_argument("--phase3", action="store_true")
    parser.add_argument("--sweep", action="store_true")
    parser.add_argument("--sweep-seeds", type=int, default=3)
    parser.add_argument("--sweep-adam", action="store_true", help="include Adam in the sweep (5 starts x 1000 epochs per run: slow)")
    args = parser.parse_args()
    start = time.perf_counter()
    for name in args.sizes.split(","):
        if name:
            run_size(name, SIZES[name], args.seeds if name == "small" else args.large_seeds)
    if args.phase3:
        run_phase3(20)
    if args.sweep:
        run_sweep(args.sweep_seeds, args.sweep_adam)
    print(f"\ntotal {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
