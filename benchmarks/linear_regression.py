"""How fast is learning linear attention by regression, and how does its cost grow? Six parts, one run.

    python benchmarks/linear_regression.py              # all six parts (about 20 minutes)
    python benchmarks/linear_regression.py --part a     # or any of a, b, c, d, e, f
    python benchmarks/linear_regression.py --no-large   # without d = 32 (printed only)

(a) ``fit_linear_attention`` against its flop floor: the flops of its normal equations in
    Kronecker form (2 N P(P+1)/2 d(d+1)/2, P = d(d+1)/2) and of their Cholesky factorisation
    (psi^3 / 3) at the machine's own dense-GEMM rate, measured in the same process on one GEMM
    ``Phi.T @ Phi2`` of the d = 16 features (N = 17,408, psi = 2176). At d = 16 (N = 17,408) and
    d = 32 (N = 2 psi = 33,792, psi = 16,896: a 2.3 GB Gram), at 1 and 2 BLAS threads (d = 32 at
    1 by default: ``--large-threads 1,2``), each in a fresh process, under the run's OpenBLAS kernel
    (``--kernels Haswell,SkylakeX`` adds the AVX-512 ones, through ``OPENBLAS_CORETYPE``). At d = 16
    it also prints the fit against that GEMM and against numpy's symmetric
    ``Phi.T @ Phi`` (a rank-N update, half the GEMM's flops); at d = 32 the process's peak memory,
    the error on held-out inputs of the noise-free teacher, the condition estimate and any warning.
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
(f) Cost curves: the fit and its certificate over d = 4, 8, 12, 16, 24 at N = 2 psi (each d in
    a fresh process; d = 32 from (a) at the command's kernel and threads), and over
    N = 2, 4, 8, 16, 32 psi at d = 16, with the slopes on log-log axes and their 95% intervals
    (``_growth.growth``): seconds against d (the flops grow like d^9), seconds against N (like N)
    and the fit's own peak allocation against N (flat: memory independent of N).

Timings interleave the contenders and report medians over repeats, because
the machine is shared and noisy. The first line prints the core count, the load
average and the BLAS thread setting, which the ratios depend on.

A run of all six parts writes what it printed, as numbers, to
``benchmarks/results/linear_regression.json`` (with ``_results.write_results``:
date, commit, machine, BLAS threads, the command and the hash of every source
file it ran), which chapters 4 and 11 and the README quote: ``a`` (d = 16 under the command's
kernel, by threads), ``floor.<kernel>.<threads>.<d>``, ``b`` to ``e``, and
``curves.over_d`` / ``curves.over_N``. On a shared machine run it as

    OPENBLAS_CORETYPE=Haswell OPENBLAS_NUM_THREADS=1 python benchmarks/linear_regression.py
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
from _growth import growth
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


CHILD = textwrap.dedent("""
    import json, sys
    sys.path.insert(0, {here!r})
    from linear_regression import {function}
    print(json.dumps({function}(**json.loads({spec!r}))))
""")


def in_child(function: str, spec: dict, *, threads: int | None = None, kernel: str | None = None) -> dict:
    """Run ``function(**spec)`` of this module in a fresh process (OpenBLAS fixes its threads and kernels at start)."""
    env = dict(os.environ)
    if threads is not None:
        env.update(OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
    if kernel is not None:
        env["OPENBLAS_CORETYPE"] = kernel
    here = os.path.dirname(os.path.abspath(__file__))
    done = subprocess.run([sys.executable, "-c", CHILD.format(here=here, function=function, spec=json.dumps(spec))],
                          capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"{function}({spec}) failed in its process:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def peak_rss() -> int:
    """This process's peak resident memory so far, in bytes."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def measure_fit(d: int, N: int, n: int, repeats: int, reference: bool, trace_memory: bool = False) -> dict:
    """One size, in this process: the fit and its certificate timed ``repeats`` times, interleaved (with
    ``reference``) with one dense GEMM and numpy's symmetric ``Phi.T @ Phi`` of the d = 16 features of
    part (a), the machine's own rates; the fit's accuracy on held-out inputs of the same teacher; its
    condition estimate and the warnings it raised; the process's peak resident memory, and (with
    ``trace_memory``) the peak of the fit's own allocations, and of the fit's and its certificate's."""
    import warnings

    rng = np.random.default_rng(d)
    teacher, X, Y = teacher_data(N, n, d, rng)
    funcs = {}
    if reference:
        _, X16, _ = teacher_data(17_408, 16, 16, np.random.default_rng(0))
        Phi = cubic_features(X16)
        Phi2 = Phi.copy()  # a second buffer: numpy runs Phi.T @ Phi2 as a general GEMM
        del X16
        funcs.update(gemm=lambda: Phi.T @ Phi2, symmetric=lambda: Phi.T @ Phi)
    with warnings.catch_warnings():  # warm-up (imports, caches), on too few rows to be unique
        warnings.simplefilter("ignore")
        fit_linear_attention(X[: max(40, N // 8)], Y[: max(40, N // 8)])
    fits, raised = [], []

    def fit():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fits.append(fit_linear_attention(X, Y))
        raised[:] = [str(w.message) for w in caught]

    times = {"fit": [], "certificate": [], **{k: [] for k in funcs}}
    for _ in range(repeats):
        for name, func in {"fit": fit, **funcs}.items():
            times[name].append(timed(func)[0])
        seconds, cert = timed(fits[-1].certificate)
        times["certificate"].append(seconds)
        del fits[:-1]
    memory = {}
    if trace_memory:  # one more fit and certificate, untimed: the peak of their own allocations
        import tracemalloc

        del fits[:]
        tracemalloc.start()
        fit()
        memory["fit"] = tracemalloc.get_traced_memory()[1]
        fits[-1].certificate()
        memory["with_certificate"] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    last = fits[-1]
    X_test = gaussian_inputs(200, n, d, rng=rng)
    truth = attention(X_test, teacher, kind="linear")[:, -1]
    error = np.linalg.norm(last.predict(X_test) - truth) / np.linalg.norm(truth)
    flops = kronecker_flops(N, d, d)
    out = {"d": d, "N": N, "n": n, "psi": n_features(d), "repeats": repeats,
           "fit_seconds": times["fit"], "certificate_seconds": times["certificate"],
           "median_seconds": float(np.median(times["fit"])),
           "fit_flops": flops["normal_equations"] + flops["cholesky"],
           "held_out_error": float(error), "solver": last.solver, "warnings": raised,
           "condition": float(last._factor.condition) if last._factor is not None else None,
           "lam_min": float(cert.lam_min), "peak_rss_bytes": peak_rss(),
           "fit_peak_bytes": memory.get("fit"), "certificate_peak_bytes": memory.get("with_certificate")}
    out["fit_gflops"] = out["fit_flops"] / out["median_seconds"] / 1e9
    if reference:
        ref = kronecker_flops(17_408, 16, 16)
        gemm, symmetric = float(np.median(times["gemm"])), float(np.median(times["symmetric"]))
        out.update(gemm_seconds=gemm, symmetric_seconds=symmetric, gemm_gflops=ref["dense_gemm"] / gemm / 1e9,
                   symmetric_gflops=ref["symmetric"] / symmetric / 1e9)
        # the fit's flops at the machine's own GEMM rate: no implementation of these flops runs faster
        out["flop_floor_seconds"] = out["fit_flops"] / (out["gemm_gflops"] * 1e9)
        out["fit_over_floor"] = out["median_seconds"] / out["flop_floor_seconds"]
        if d == 16 and N == 17_408:  # the features of the reference are the fit's own: part (a)
            out.update(fit_over_gemm=out["median_seconds"] / gemm, fit_over_symmetric=out["median_seconds"] / symmetric,
                       flop_floor_over_symmetric=out["fit_flops"] / ref["symmetric"])
    return out


KERNELS = ("Haswell", "SkylakeX")  # OpenBLAS's AVX2 and AVX-512 kernels; OPENBLAS_CORETYPE picks one
FLOOR_SIZES = {16: 17_408, 32: 2 * n_features(32)}


def part_a(repeats: int, large: bool, kernels: tuple, large_threads: tuple) -> dict:
    """The fit against its flop floor under each kernel at 1 and 2 BLAS threads, at d = 16 (and 32 at
    ``large_threads``)."""
    out = {}
    for kernel in kernels:
        for k in (1, 2):
            for d, N in FLOOR_SIZES.items():
                if d > 16 and (not large or k not in large_threads):
                    continue
                mine = kernel == os.environ.get("OPENBLAS_CORETYPE", KERNELS[0]) and str(k) == os.environ.get(
                    "OPENBLAS_NUM_THREADS", "1")  # the run whose d = 32 joins the curves of (f)
                r = in_child("measure_fit", {"d": d, "N": N, "n": 16, "repeats": repeats if d <= 16 else 1,
                                             "reference": True, "trace_memory": d > 16 and mine},
                             threads=k, kernel=kernel)
                out.setdefault(kernel, {}).setdefault(str(k), {})[str(d)] = r
                line = (f"(a) {kernel}, {k} BLAS thread{'s' * (k > 1)}, d={d}, N={N:,}: fit {r['median_seconds']:.2f} s"
                        f" ({r['fit_gflops']:.1f} GFlop/s), dense GEMM {r['gemm_gflops']:.1f} GFlop/s"
                        f"  ->  fit / flop floor = {r['fit_over_floor']:.2f} (target <= 1.3)")
                if "fit_over_gemm" in r:
                    line += (f", fit / dense GEMM = {r['fit_over_gemm']:.2f}, fit / symmetric product ="
                             f" {r['fit_over_symmetric']:.2f} (its flops alone: {r['flop_floor_over_symmetric']:.2f})")
                if d > 16:
                    own = "" if r["fit_peak_bytes"] is None else f"the fit's own {r['fit_peak_bytes'] / 1e9:.1f} GB, "
                    line += (f"; peak memory: {own}the process's {r['peak_rss_bytes'] / 1e9:.1f} GB, held-out error "
                             f"{r['held_out_error']:.1e}, condition {r['condition']:.2g}, warnings {r['warnings']}")
                print(line)
    return out


CURVE_D = (4, 8, 12, 16, 24)  # and 32, from part (a) at the command's own kernel and threads
CURVE_N_D = 16


def part_f(repeats: int, floor: dict | None) -> dict:
    """Cost curves: the fit and its certificate over d at N = 2 psi, and over N at d = 16, with fitted slopes."""
    over_d = []
    for d in CURVE_D:
        r = in_child("measure_fit", {"d": d, "N": 2 * n_features(d), "n": 16, "trace_memory": True,
                                     "repeats": repeats if d <= 16 else max(2, repeats // 2), "reference": False})
        over_d.append(r)
    kernel = os.environ.get("OPENBLAS_CORETYPE", KERNELS[0])
    threads = os.environ.get("OPENBLAS_NUM_THREADS", "1")
    if floor is not None and "32" in floor.get(kernel, {}).get(threads, {}):
        over_d.append(floor[kernel][threads]["32"])
    for r in over_d:
        print(f"(f) d={r['d']:>2}, N={r['N']:>6,} (2 psi): fit {r['median_seconds']:8.3f} s "
              f"({r['fit_gflops']:5.1f} GFlop/s), certificate {np.median(r['certificate_seconds']):7.3f} s, "
              f"the fit's peak memory {r['fit_peak_bytes'] / 1e9:5.2f} GB (with its certificate "
              f"{r['certificate_peak_bytes'] / 1e9:5.2f} GB), held-out error {r['held_out_error']:.0e}")
    ds = [r["d"] for r in over_d]
    from_d = 12
    pts = [(r["d"], t) for r in over_d if r["d"] >= from_d for t in r["fit_seconds"]]
    fit_growth = growth(*zip(*pts, strict=True))
    flops_growth = growth([r["d"] for r in over_d if r["d"] >= from_d],
                          [r["fit_flops"] for r in over_d if r["d"] >= from_d])
    print(f"    seconds ~ d^{fit_growth['slope']:.2f} (95% interval {fit_growth['low']:.2f} to "
          f"{fit_growth['high']:.2f}) for d >= {from_d}; the flop count ~ d^{flops_growth['slope']:.2f} there, "
          f"d^9 as d grows")
    curve_d = {"d": ds, "N": [r["N"] for r in over_d], "psi": [r["psi"] for r in over_d], "rows_per_feature": 2,
               "fit_seconds": [r["fit_seconds"] for r in over_d],
               "certificate_seconds": [r["certificate_seconds"] for r in over_d],
               "median_seconds": [r["median_seconds"] for r in over_d],
               "peak_bytes": [r["fit_peak_bytes"] for r in over_d],
               "certificate_peak_bytes": [r["certificate_peak_bytes"] for r in over_d],
               "process_peak_bytes": [r["peak_rss_bytes"] for r in over_d],
               "fit_gflops": [r["fit_gflops"] for r in over_d],
               "fit_flops": [r["fit_flops"] for r in over_d], "held_out_error": [r["held_out_error"] for r in over_d],
               "growth": fit_growth, "flops_growth": flops_growth, "from_d": from_d, "predicted": 9}
    r = in_child("measure_over_n", {"d": CURVE_N_D, "multiples": [2, 4, 8, 16, 32], "repeats": repeats})
    r["growth"] = growth(*zip(*[(N, t) for N, ts in zip(r["N"], r["fit_seconds"], strict=True) for t in ts],
                              strict=True))
    r["memory_growth"] = growth(r["N"], r["peak_bytes"])
    r["predicted"] = 1
    for N, t, m in zip(r["N"], r["median_seconds"], r["peak_bytes"], strict=True):
        print(f"(f) d={CURVE_N_D}, N={N:>6,}: fit {t:.3f} s, the fit's own peak allocation {m / 1e6:.0f} MB")
    print(f"    seconds ~ N^{r['growth']['slope']:.2f} ({r['growth']['low']:.2f} to {r['growth']['high']:.2f}), "
          f"memory ~ N^{r['memory_growth']['slope']:.3f}")
    return {"over_d": curve_d, "over_N": r}


def measure_over_n(d: int, multiples: list, repeats: int) -> dict:
    """Over N at one d, in this process: fit seconds (interleaved over N) and the fit's own peak allocation."""
    import tracemalloc

    psi = n_features(d)
    rng = np.random.default_rng(d)
    data = {m * psi: teacher_data(m * psi, 16, d, rng)[1:] for m in multiples}
    fit_linear_attention(*data[min(data)])  # warm-up
    times = {N: [] for N in data}
    for _ in range(repeats):
        for N, (X, Y) in data.items():
            times[N].append(timed(lambda X=X, Y=Y: fit_linear_attention(X, Y))[0])
    peaks = []
    for X, Y in data.values():
        tracemalloc.start()
        fit_linear_attention(X, Y)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    return {"d": d, "N": list(data), "fit_seconds": [times[N] for N in data],
            "median_seconds": [float(np.median(times[N])) for N in data], "peak_bytes": peaks}


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


REACH_D = (16, 24, 32, 36, 40, 48, 64)


def reach(gemm_gflops: float) -> dict:
    """What a fit at N = 2 psi needs as d grows: the memory ``fit_linear_attention`` checks for before it
    starts (``solve_memory``), the Gram alone, the flops and the hours they take at ``gemm_gflops``; and
    the largest d whose memory fits in 80% of this machine's (the check's own margin)."""
    from attnlib.rkhs._normal_equations import solve_memory

    total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    rows = []
    for d in REACH_D:
        psi = n_features(d)
        flops = kronecker_flops(2 * psi, d, d)
        total_flops = flops["normal_equations"] + flops["cholesky"]
        rows.append({"d": d, "psi": psi, "gram_bytes": 8 * psi * psi, "needs_bytes": solve_memory(d, d),
                     "flops": total_flops, "hours": total_flops / (gemm_gflops * 1e9) / 3600})
    largest = max(d for d in range(2, 200) if solve_memory(d, d) <= 0.8 * total)
    return {"memory_bytes": total, "largest_d": largest, "gemm_gflops": gemm_gflops, "rows": rows}


def reach_markdown(r: dict) -> str:
    """The table of ``benchmarks/README.md`` (a test keeps the two equal)."""
    lines = [f"On this machine ({r['memory_bytes'] / 2**30:.0f} GiB) the largest d is {r['largest_d']}; hours at "
             f"{r['gemm_gflops']:.0f} GFlop/s (its one-thread GEMM rate):", "",
             "| d | ψ | Gram | memory checked | flops at N = 2ψ | hours |", "|---|---|---|---|---|---|"]
    for row in r["rows"]:
        lines.append(f"| {row['d']} | {row['psi']:,} | {row['gram_bytes'] / 1e9:.3g} GB | "
                     f"{row['needs_bytes'] / 1e9:.3g} GB | {row['flops']:.2g} | {row['hours']:.2g} |")
    return "\n".join(lines)


PARTS = ["a", "b", "c", "d", "e", "f"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", nargs="*", default=PARTS, choices=PARTS)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--budget", type=float, default=120.0, help="seconds for each Adam run in (b)")
    parser.add_argument("--no-large", action="store_true", help="leave out d = 32 in (a) (minutes at each setting)")
    parser.add_argument("--kernels", default="", help="OpenBLAS kernels for (a), e.g. Haswell,SkylakeX (default: "
                        "the one this run uses); each d = 32 run takes minutes")
    parser.add_argument("--large-threads", default="1", help="BLAS threads at which (a) runs d = 32, e.g. 1,2")
    args = parser.parse_args()
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "unknown"
    print(f"{os.cpu_count()} cores, load average {load}; OPENBLAS_NUM_THREADS="
          f"{os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}. On a busy machine multithreaded LAPACK calls "
          f"(Cholesky, SVD) slow down far more than one large GEMM; compare with OPENBLAS_NUM_THREADS=1.")
    started = time.perf_counter()
    rng = np.random.default_rng(0)
    results = {"cores": os.cpu_count(), "load_average": load, "repeats": args.repeats, "budget": args.budget}
    if "a" in args.part:
        kernel = os.environ.get("OPENBLAS_CORETYPE", KERNELS[0])
        kernels = tuple(args.kernels.split(",")) if args.kernels else (kernel,)
        floor = part_a(args.repeats, large=not args.no_large, kernels=kernels,
                       large_threads=tuple(int(k) for k in args.large_threads.split(",")))
        results["floor"] = floor
        # the ratios chapter 4 and the README quote: d = 16 under the command's kernel
        kernel = os.environ.get("OPENBLAS_CORETYPE", KERNELS[0])
        results["a"] = {k: floor[kernel][k]["16"] for k in ("1", "2")}
    if "b" in args.part:
        results["b"] = part_b(args.repeats, rng, args.budget)
    if "c" in args.part:
        results["c"] = part_c(args.repeats, rng)
    if "d" in args.part:
        results["d"] = part_d()
    if "e" in args.part:
        results["e"] = part_e(args.repeats, rng)
    if "f" in args.part:
        results["curves"] = part_f(args.repeats, results.get("floor"))
    if "a" in args.part:
        results["reach"] = reach(results["a"]["1"]["gemm_gflops"])
        print(reach_markdown(results["reach"]))
    end = ", ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "unknown"
    results["load_average_end"] = end
    print(f"load average at the end {end}")
    if set(args.part) == set(PARTS) and not args.no_large:  # only a full run replaces the file the book quotes
        results["seconds"] = time.perf_counter() - started
        print(f"results written to {write_results('linear_regression', results)}")
    else:
        print("a partial run (--part): benchmarks/results/linear_regression.json is left as it was")


if __name__ == "__main__":
    main()
