"""How fast is learning linear attention by regression? Four ratios, measured in one run.

    python benchmarks/linear_regression.py            # all four parts
    python benchmarks/linear_regression.py --part a   # or any of a, b, c, d

(a) ``fit_linear_attention`` against one ``Phi.T @ Phi`` on the same features
    (d = 16, N = 17,408, n = 16). The fit builds the normal equations in
    Kronecker form, solves them, folds the SVD into heads and computes the loss;
    the GEMM alone is a lower bound for any method that forms Phi^T Phi.
(b) Regression against the Adam baseline (``attnlib.train`` with d^2 heads) as
    the time to reach a relative test error of 1e-6 (d = 8).
(c) Regression against ``np.linalg.lstsq`` on the same features as (a).
(d) Peak memory of a fit at N = 200,000, d = 16, in a fresh subprocess: the
    process's peak resident size and the peak of the fit's own allocations.

Timings interleave the two contenders and report medians over repeats, because
the machine is shared and noisy. The first line prints the core count, the load
average and the BLAS thread setting, which the ratios depend on.

A run of all four parts writes what it printed, as numbers, to
``benchmarks/results/linear_regression.json`` (with ``_results.write_results``:
date, commit, machine, BLAS threads, the command and the hash of every source
file it ran), which chapter 4 quotes. On a shared machine run it as

    OPENBLAS_NUM_THREADS=1 python benchmarks/linear_regression.py
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import textwrap
import time

import numpy as np

from _results import write_results
from attnlib import attention, gaussian_inputs, random_heads, train
from attnlib.rkhs import cubic_features, fit_linear_attention, n_features


def timed(func):
    start = time.perf_counter()
    out = func()
    return time.perf_counter() - start, out


def interleaved(funcs: dict, repeats: int) -> dict:
    """Median wall-clock seconds of each function, run alternately ``repeats`` times."""
    times = {name: [] for name in funcs}
    for _ in range(repeats):
        for name, func in funcs.items():
            times[name].append(timed(func)[0])
    return {name: float(np.median(t)) for name, t in times.items()}


def teacher_data(N, n, d, rng):
    teacher = random_heads(2, d, rng=rng)
    X = gaussian_inputs(N, n, d, rng=rng)
    return teacher, X, attention(X, teacher, kind="linear")[:, -1]


def part_a(repeats: int, rng) -> dict:
    d, N, n = 16, 17_408, 16
    _, X, Y = teacher_data(N, n, d, rng)
    Phi = cubic_features(X)
    fit_linear_attention(X[:500], Y[:500])  # warm-up: imports, caches
    t = interleaved({"fit": lambda: fit_linear_attention(X, Y), "gemm": lambda: Phi.T @ Phi}, repeats)
    print(f"(a) d={d}, N={N:,}, n={n}, psi={n_features(d)}: fit {t['fit']:.3f} s, "
          f"Phi.T @ Phi {t['gemm']:.3f} s  ->  fit / GEMM = {t['fit'] / t['gemm']:.2f}  (target <= 0.5, must be <= 1)")
    result = {"d": d, "N": N, "n": n, "psi": n_features(d), "fit_seconds": t["fit"], "gemm_seconds": t["gemm"],
              "fit_over_gemm": t["fit"] / t["gemm"]}
    return {"X": X, "Y": Y, "Phi": Phi, "fit": t["fit"]}, result


def part_b(repeats: int, rng, budget: float) -> dict:
    d, N, n = 8, 1_024, 8
    teacher, X, Y = teacher_data(N, n, d, rng)
    X_test = gaussian_inputs(512, 2 * n, d, rng=rng)
    truth = attention(X_test, teacher, kind="linear")[:, -1]

    def regression():
        fit = fit_linear_attention(X, Y)
        return np.linalg.norm(fit.predict(X_test) - truth) / np.linalg.norm(truth)

    fit_linear_attention(X[:400], Y[:400])
    t_reg = interleaved({"regression": regression}, repeats)["regression"]
    err_reg = regression()
    print(f"(b) d={d}, N={N:,}, n={n}: regression {t_reg:.3f} s to relative test error {err_reg:.1e} (target 1e-6)")
    target = 1e-6**2 * float(np.mean(truth**2))  # relative error 1e-6 <=> test MSE <= 1e-12 * mean(truth^2)
    # Adam with the teacher's head count (2) and with d^2 heads (the paper's best), full batch, cosine schedule,
    # sized to use about `budget` seconds each; the test error is recorded after every epoch
    result = {"d": d, "N": N, "n": n, "target": 1e-6, "regression_seconds": t_reg, "regression_error": float(err_reg),
              "adam": []}
    for m in (2, d * d):
        probe = train(X, Y, m, kind="linear", epochs=10, lr=1e-2, X_val=X_test, Y_val=truth, rng=rng)
        epochs = max(10, int(budget / (probe.seconds / 10)))
        run = train(X, Y, m, kind="linear", epochs=epochs, lr=1e-2, schedule="cosine", init_scale=0.5,
                    X_val=X_test, Y_val=truth, rng=rng)
        hit = np.flatnonzero(run.val_loss <= target)
        best = float(np.sqrt(run.val_loss.min() / np.mean(truth**2)))
        if hit.size:
            t_adam = hit[0] * run.seconds / epochs
            verdict = (f"reached 1e-6 after {hit[0]} epochs, {t_adam:.1f} s"
                       f"  ->  Adam / regression = {t_adam / t_reg:,.0f}")
        else:
            t_adam = run.seconds
            verdict = (f"did not reach 1e-6 in {epochs} epochs, {run.seconds:.0f} s (best relative error {best:.1e})"
                       f"  ->  Adam / regression > {run.seconds / t_reg:,.0f}")
        print(f"    Adam, {m} heads: {verdict}  (target >= 1000)")
        # reached: the seconds to the target; not reached: the seconds of the whole run, a lower bound
        result["adam"].append({"heads": m, "epochs": epochs, "run_seconds": run.seconds, "reached": bool(hit.size),
                               "epochs_to_target": int(hit[0]) if hit.size else None, "seconds": t_adam,
                               "best_error": best, "over_regression": t_adam / t_reg})
    return result


def part_c(data: dict, repeats: int) -> dict:
    X, Y, Phi = data["X"], data["Y"], data["Phi"]
    t = interleaved({"fit": lambda: fit_linear_attention(X, Y),
                     "lstsq": lambda: np.linalg.lstsq(Phi, Y, rcond=None)}, max(1, repeats // 2))
    print(f"(c) same data as (a): fit {t['fit']:.3f} s, np.linalg.lstsq on the features {t['lstsq']:.3f} s "
          f"(features already built)  ->  lstsq / fit = {t['lstsq'] / t['fit']:.1f}")
    return {"fit_seconds": t["fit"], "lstsq_seconds": t["lstsq"], "lstsq_over_fit": t["lstsq"] / t["fit"]}


MEMORY_SCRIPT = textwrap.dedent("""
    import json, resource, tracemalloc
    import numpy as np
    from attnlib import gaussian_inputs
    from attnlib.rkhs import fit_linear_attention
    rng = np.random.default_rng(0)
    N, n, d = {N}, {n}, {d}
    X = gaussian_inputs(N, n, d, rng=rng)
    Y = rng.standard_normal((N, d))
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    tracemalloc.start()
    fit = fit_linear_attention(X, Y)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({{"rss": rss * 1024, "before": before * 1024, "traced": peak, "inputs": X.nbytes + Y.nbytes}}))
""")


def part_d() -> dict:
    N, n, d = 200_000, 16, 16
    script = MEMORY_SCRIPT.format(N=N, n=n, d=d)
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    seconds = time.perf_counter() - start
    m = json.loads(out.stdout.strip().splitlines()[-1])
    phi = N * n_features(d) * 8
    print(f"(d) N={N:,}, n={n}, d={d}: peak resident memory {m['rss'] / 1e9:.2f} GB (of which the inputs X, Y are "
          f"{m['inputs'] / 1e9:.2f} GB); the fit itself allocated at most {m['traced'] / 1e9:.3f} GB "
          f"(the feature matrix alone would be {phi / 1e9:.1f} GB); {seconds:.0f} s in all  (target < 1 GB)")
    return {"N": N, "n": n, "d": d, "peak_rss_bytes": m["rss"], "inputs_bytes": m["inputs"],
            "fit_traced_bytes": m["traced"], "features_bytes": phi, "seconds": seconds}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", nargs="*", default=["a", "b", "c", "d"], choices=["a", "b", "c", "d"])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--budget", type=float, default=120.0, help="seconds for each Adam run in (b)")
    args = parser.parse_args()
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "unknown"
    print(f"{os.cpu_count()} cores, load average {load}; OPENBLAS_NUM_THREADS="
          f"{os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}. On a busy machine multithreaded LAPACK calls "
          f"(Cholesky, SVD) slow down far more than one large GEMM; compare with OPENBLAS_NUM_THREADS=1.")
    started = time.perf_counter()
    rng = np.random.default_rng(0)
    results = {"cores": os.cpu_count(), "load_average": load, "repeats": args.repeats, "budget": args.budget}
    data = None
    if "a" in args.part or "c" in args.part:
        data, results["a"] = part_a(args.repeats, rng)
    if "b" in args.part:
        results["b"] = part_b(args.repeats, rng, args.budget)
    if "c" in args.part:
        results["c"] = part_c(data, args.repeats)
    if "d" in args.part:
        results["d"] = part_d()
    if set(args.part) == {"a", "b", "c", "d"}:  # only a full run replaces the file chapter 4 quotes
        results["seconds"] = time.perf_counter() - started
        print(f"results written to {write_results('linear_regression', results)}")
    else:
        print("a partial run (--part): benchmarks/results/linear_regression.json is left as it was")


if __name__ == "__main__":
    main()
