"""How fast is learning linear attention by regression? Five comparisons, measured in one run.

    python benchmarks/linear_regression.py            # all five parts
    python benchmarks/linear_regression.py --part a   # or any of a, b, c, d, e

(a) ``fit_linear_attention`` against the products that bound it below, on the same
    features (d = 16, N = 17,408, n = 16), at 1 and at 2 BLAS threads (each in a
    fresh process): a dense GEMM ``Phi.T @ Phi2`` (2 N psi^2 flops) and numpy's
    ``Phi.T @ Phi``, which numpy recognises as a symmetric rank-N update (dsyrk,
    N psi (psi + 1) flops, half the GEMM's). The fit builds the normal equations in
    Kronecker form (2 N P(P+1)/2 d(d+1)/2 flops, P = d(d+1)/2: 0.54 of the symmetric
    update's at d = 16), solves them by Cholesky (psi^3 / 3), folds the SVD into
    heads and computes the loss. It prints each one's flop rate.
(b) Regression against the Adam baseline (``attnlib.train`` with d^2 heads) as
    the time to reach a relative test error of 1e-6 (d = 8).
(c) Regression against ``np.linalg.lstsq`` on the same features as (a).
(d) Peak memory of a fit at N = 200,000, d = 16, in a fresh subprocess: the
    process's peak resident size and the peak of the fit's own allocations.
(e) The certificate of a fit's data (``fit.certificate()``: lambda_min of Lambda_D from
    the normal equations the fit already formed, bracketed with its Cholesky factor)
    against the plain way of getting a smallest eigenvalue from features already built:
    the centred covariance in float32 and ``np.linalg.eigh``, at d = 16 and N = 4,000,
    10,000 and 50,000.

Timings interleave the contenders and report medians over repeats, because
the machine is shared and noisy. The first line prints the core count, the load
average and the BLAS thread setting, which the ratios depend on.

A run of all five parts writes what it printed, as numbers, to
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


def kronecker_flops(N: int, d: int, d_out: int) -> dict:
    """Flops of the fit's stages and of the two products it is measured against."""
    P = d * (d + 1) // 2
    psi = n_features(d)
    return {"normal_equations": 2 * N * (P * (P + 1) // 2) * (d * (d + 1) // 2) + 2 * N * P * d * d_out,
            "cholesky": psi**3 / 3, "dense_gemm": 2 * N * psi**2, "symmetric": N * psi * (psi + 1)}


PART_A_CHILD = textwrap.dedent("""
    import json, sys
    sys.path.insert(0, {here!r})
    import numpy as np
    from linear_regression import part_a_here
    print(json.dumps(part_a_here({repeats})))
""")


def part_a_here(repeats: int) -> dict:
    """Part (a) at this process's BLAS threads: medians of the fit, the dense GEMM and the symmetric product."""
    d, N, n = 16, 17_408, 16
    _, X, Y = teacher_data(N, n, d, np.random.default_rng(0))
    Phi = cubic_features(X)
    Phi2 = Phi.copy()  # a second buffer: numpy runs Phi.T @ Phi2 as a general GEMM
    fit_linear_attention(X[:3000], Y[:3000])  # warm-up: imports, caches
    t = interleaved({"fit": lambda: fit_linear_attention(X, Y), "gemm": lambda: Phi.T @ Phi2,
                     "symmetric": lambda: Phi.T @ Phi}, repeats)
    flops = kronecker_flops(N, d, d)
    fit_flops = flops["normal_equations"] + flops["cholesky"]
    return {"d": d, "N": N, "n": n, "psi": n_features(d),
            "fit_seconds": t["fit"], "gemm_seconds": t["gemm"], "symmetric_seconds": t["symmetric"],
            "fit_over_gemm": t["fit"] / t["gemm"], "fit_over_symmetric": t["fit"] / t["symmetric"],
            "fit_gflops": fit_flops / t["fit"] / 1e9, "gemm_gflops": flops["dense_gemm"] / t["gemm"] / 1e9,
            "symmetric_gflops": flops["symmetric"] / t["symmetric"] / 1e9,
            "flop_floor_over_symmetric": fit_flops / flops["symmetric"]}


def part_a(repeats: int, threads=(1, 2)) -> dict:
    """Part (a) at each BLAS thread count, each in a fresh process (OpenBLAS fixes its threads at start)."""
    out = {}
    here = os.path.dirname(os.path.abspath(__file__))
    for k in threads:
        env = {**os.environ, "OPENBLAS_NUM_THREADS": str(k), "OMP_NUM_THREADS": str(k)}
        done = subprocess.run([sys.executable, "-c", PART_A_CHILD.format(here=here, repeats=repeats)],
                              capture_output=True, text=True, check=True, env=env)
        r = json.loads(done.stdout.strip().splitlines()[-1])
        print(f"(a) {k} BLAS thread{'s' * (k > 1)}, d={r['d']}, N={r['N']:,}, n={r['n']}, psi={r['psi']}: "
              f"fit {r['fit_seconds']:.2f} s ({r['fit_gflops']:.1f} GFlop/s in its normal equations and Cholesky), "
              f"dense GEMM {r['gemm_seconds']:.2f} s ({r['gemm_gflops']:.1f} GFlop/s), "
              f"symmetric Phi.T @ Phi {r['symmetric_seconds']:.2f} s ({r['symmetric_gflops']:.1f} GFlop/s)"
              f"\n    ->  fit / dense GEMM = {r['fit_over_gemm']:.2f} (target <= 0.6), "
              f"fit / symmetric product = {r['fit_over_symmetric']:.2f} "
              f"(its flops alone: {r['flop_floor_over_symmetric']:.2f})")
        out[str(k)] = r
    return out


def part_e(repeats: int, rng) -> dict:
    """The certificate from a fit against a float32 covariance and eigh on features already built."""
    d, n = 16, 16
    out = []
    for N in (4_000, 10_000, 50_000):
        _, X, Y = teacher_data(N, n, d, rng)
        fit = fit_linear_attention(X, Y)
        F = cubic_features(X).astype(np.float32)
        del X, Y

        def covariance_eigh(F=F, N=N):  # bound now: the loop rebinds (and deletes) F
            Fc = F - F.mean(axis=0)
            w, _ = np.linalg.eigh(Fc.T @ Fc / np.float32(N))
            return w[0]

        t = interleaved({"certificate": fit.certificate, "float32": covariance_eigh}, repeats)
        ratio = t["float32"] / t["certificate"]
        print(f"(e) d={d}, N={N:,}: certificate from the fit {t['certificate']:.2f} s, float32 covariance + eigh on "
              f"the features {t['float32']:.2f} s  ->  float32 / certificate = {ratio:.1f}  (target >= 2)")
        out.append({"N": N, "certificate_seconds": t["certificate"], "float32_seconds": t["float32"],
                    "float32_over_certificate": ratio})
        del F, fit, covariance_eigh  # the function's default holds F: free it before the next N
    return {"d": d, "n": n, "runs": out}


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


def part_c(repeats: int, rng) -> dict:
    d, N, n = 16, 17_408, 16
    _, X, Y = teacher_data(N, n, d, rng)
    Phi = cubic_features(X)
    t = interleaved({"fit": lambda: fit_linear_attention(X, Y),
                     "lstsq": lambda: np.linalg.lstsq(Phi, Y, rcond=None)}, max(1, repeats // 2))
    print(f"(c) d={d}, N={N:,}, n={n}: fit {t['fit']:.3f} s, np.linalg.lstsq on the features {t['lstsq']:.3f} s "
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


PARTS = ["a", "b", "c", "d", "e"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", nargs="*", default=PARTS, choices=PARTS)
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
    if "a" in args.part:
        results["a"] = part_a(args.repeats)
    if "b" in args.part:
        results["b"] = part_b(args.repeats, rng, args.budget)
    if "c" in args.part:
        results["c"] = part_c(args.repeats, rng)
    if "d" in args.part:
        results["d"] = part_d()
    if "e" in args.part:
        results["e"] = part_e(args.repeats, rng)
    end = ", ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "unknown"
    results["load_average_end"] = end
    print(f"load average at the end {end}")
    if set(args.part) == set(PARTS):  # only a full run replaces the file chapter 4 quotes
        results["seconds"] = time.perf_counter() - started
        print(f"results written to {write_results('linear_regression', results)}")
    else:
        print("a partial run (--part): benchmarks/results/linear_regression.json is left as it was")


if __name__ == "__main__":
    main()
