"""Sculpting (the book's reconstruction of Chen and Li) against local optimisation, phase by phase.

    python benchmarks/sculpt.py                 # the full record the chapters quote (writes the results file)
    python benchmarks/sculpt.py --jobs 2        # the same, seeds spread over 2 processes (same numbers)
    python benchmarks/sculpt.py --quick         # a few seeds of each part, printed only
    python benchmarks/sculpt.py --parts sizes --seeds 5 --no-write     # any part, printed only

For each size -- small (d=4, n=3, m=2, N=3000) and large (d=8, n=4, m=3,
N=10000) -- every method learns the same planted instances (attnlib.sculpt.
planted_instance, scale 4, shared 0.6) and is scored on 2000 fresh examples:

* sculpt + polish, and sculpt without polish (the phase-5 candidate of the same run, sculpted
  again on the same random stream so that each method is timed on its own);
* the same Levenberg-Marquardt polish from up to 5 random starts;
* L-BFGS from up to 5 random starts;
* Adam (attnlib.train, full batch, cosine schedule) from up to 5 random starts.

Every method has the same budget of 5 starts and the same acceptance rule, the rule of
attnlib.sculpt.learn: W refit by least squares on all the training data, and a relative
training residual of that layer <= 1e-6 accepts the start and stops the restarts.
Sculpting's starts are the polish runs of learn: its two candidates, then perturbations
of the better one by Gaussian noise of half the RMS entry of each Theta_i. So with
restarts, "sculpt + polish" is Levenberg-Marquardt with restarts, one of whose starts
comes from sculpting. It prints, per method, successes with restarts (relative test
error <= 1e-3), the starts used (total and most), the accepted starts among them, median
error and median time (all starts), the ratio of sculpting's time to the random-start
polish's time, and the per-phase diagnostics of the sculpting runs (part ``sizes``). Part
``phase3`` measures phase 3 on instances with a large shared component (20 seeds each); part
``sweep`` prints the success rate of each method over attention sharpness and sample size
(d=4; Adam only with --sweep-adam). Part ``single`` measures the success rate of a *single*
polish start of each kind (attnlib.sculpt.single_starts: the sculpted candidate, the
other candidate, 4 half-RMS and 4 0.05-RMS perturbations of it, 4 random heads), over
--single-start-seeds instances of each setting of --single-start-settings (a setting written
name:K gets K), with 95% Wilson intervals (attnlib.sculpt.binomial_interval).

The machine is shared and has 2 cores, so BLAS is limited to one thread (set
OPENBLAS_NUM_THREADS yourself to override) and times are medians over seeds. ``--jobs J``
spreads the seeds over J processes (each seed draws from its own generator, so the numbers
are those of a serial run; the times are those of J busy cores).

The default run is the full record the chapters read: the sizes (20 small and 3 large seeds),
phase 3 (20 seeds per case), the sweep (3 seeds per cell) and the single starts (100 instances of
the small setting, 20 of d6 and 40 of each other). Only a run of every part with at least those
seeds writes the results file; anything less prints and leaves it alone.

Results file
------------
It writes benchmarks/results/sculpt.json (benchmarks/_results.write_results: the results
below plus command, date, commit, machine, threads and source hashes). Keys are
identifiers; display text is in "label" fields. ``results`` holds:

* ``config``: ``accept`` (1e-6), ``success`` (1e-3), ``restarts`` (5), ``test_examples``,
  ``planted_scale``, ``shared``, ``rule`` (the acceptance rule in words).
* ``sizes.<size>`` for size in ``small``, ``large`` (those run): ``d, n, m, N,
  adam_epochs, seeds``; ``methods.<method>`` for method in ``sculpt_polish,
  sculpt_no_polish, polish_random, lbfgs, adam``, each with ``label, successes, runs,
  starts, most_starts, accepted_starts, median_error, median_seconds`` and per seed
  ``errors, seconds, starts_per_seed``; ``time_ratio`` (median seconds of sculpt_polish /
  polish_random); ``restarted_seeds.<method>`` (seeds that used more than one start);
  ``sculpting_failures`` (list of ``{seed, phase}``); ``diagnostics.<group>.<key>`` for
  group in ``sum_W, geometry, errors, seconds`` with ``label, median, min, max``
  (keys e.g. ``sum_W.crude``, ``sum_W.phase_3``, ``geometry.proxy_cosine``,
  ``geometry.span``, ``geometry.random_span``, ``errors.pre_polish``,
  ``seconds.phase_4``); ``proxy_cosine_ge_0_9``, ``slice_sum_W_within_1pct`` (each
  ``{count, of}``); ``halfspaces`` (``{median, min, max}``).
* ``phase3`` (with --phase3): ``seeds``, ``cases.<case>`` for case in
  ``d4_scale6_shared90, d6_scale4_shared80, d6_scale4_shared60``, each with ``label, d, n,
  N, scale, shared, within_1pct, median_error, proxy_cosine_ge_0_9, median_cosine``.
* ``sweep`` (with --sweep): ``d, n, m, shared, seeds, scales, sizes`` and
  ``methods.<method>`` with ``label, success`` (list over scales of lists over sizes),
  ``failed_cells`` (list of ``{scale, N, failed_seeds}``), ``starts, runs, most_starts``.
* ``single_start`` (with --single-start-seeds): ``rule, accept, confidence (0.95),
  interval ("wilson")``, and ``settings.<setting>`` (e.g. ``small``) with ``label, d, n, m,
  N, scale, shared, seeds, sculpting_failed`` and ``starts.<kind>`` for kind in
  ``sculpted, other, perturbed, perturbed_small, random``, each with ``label, successes,
  trials, rate, low, high, test_successes`` (test error <= success) and
  ``median_seconds``; ``sculpt_seconds`` is the median time of phases 1-5.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import multiprocessing  # noqa: E402
import re  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from concurrent.futures import ProcessPoolExecutor  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _results import write_results  # noqa: E402

from attnlib import attention, boolean_inputs  # noqa: E402
from attnlib.sculpt import (  # noqa: E402
    METHOD_LABELS,
    METHODS,
    START_KINDS,
    START_LABELS,
    binomial_interval,
    carve,
    compare_methods,
    min_norm_point,
    planted_instance,
    single_starts,
    sweep,
)
from attnlib.sculpt.diagnostics import cosine, phase_diagnostics, phase_report_entries, relative  # noqa: E402

ACCEPT, SUCCESS, RESTARTS, TEST_EXAMPLES, SCALE, SHARED = 1e-6, 1e-3, 5, 2000, 4.0, 0.6
RULE = ("a start is accepted when the relative residual ||F(X) - Y|| / ||Y|| on all the training "
        "examples, after refitting W by least squares, is at most 1e-6")
SIZES = {
    "small": {"d": 4, "n": 3, "m": 2, "N": 3000, "adam_epochs": 1000},
    "large": {"d": 8, "n": 4, "m": 3, "N": 10000, "adam_epochs": 300},
}
PHASE3 = {
    "d4_scale6_shared90": {"d": 4, "n": 3, "N": 3000, "scale": 6.0, "shared": 0.9},
    "d6_scale4_shared80": {"d": 6, "n": 3, "N": 5000, "scale": 4.0, "shared": 0.8},
    "d6_scale4_shared60": {"d": 6, "n": 3, "N": 5000, "scale": 4.0, "shared": 0.6},
}
# settings of the single-start measurement: the comparison's small size, then the corners of the
# sweep where a method failed (soft attention and few examples; very sharp attention and few
# examples), fewer examples at the usual sharpness, and a larger d
SINGLE_START = {
    "small": {"d": 4, "n": 3, "m": 2, "N": 3000, "scale": 4.0, "shared": 0.6},
    "soft": {"d": 4, "n": 3, "m": 2, "N": 1000, "scale": 0.5, "shared": 0.6},
    "sharp": {"d": 4, "n": 3, "m": 2, "N": 500, "scale": 32.0, "shared": 0.6},
    "few_examples": {"d": 4, "n": 3, "m": 2, "N": 500, "scale": 4.0, "shared": 0.6},
    "d6": {"d": 6, "n": 3, "m": 2, "N": 5000, "scale": 4.0, "shared": 0.6},
}


def fmt(x):
    return "nan" if not np.isfinite(x) else f"{x:.2g}"


def ident(label: str) -> str:
    """A display label as an identifier: "proxy cosine" -> "proxy_cosine", "phases 2-3" -> "phases_2_3"."""
    return re.sub(r"[^0-9a-zA-Z]+", "_", label).strip("_").lower()


def number(x):
    """A float for JSON (None for nan or inf)."""
    x = float(x)
    return x if np.isfinite(x) else None


def size_seed(spec, seed):
    """One instance of a size: every method on it, and the phase diagnostics of sculpting."""
    d, n, m, N = spec["d"], spec["n"], spec["m"], spec["N"]
    rng = np.random.default_rng(seed)
    teacher = planted_instance(m, d, rng=rng)
    X = boolean_inputs(N, n, d, rng=rng)
    X_test = boolean_inputs(TEST_EXAMPLES, n, d, rng=rng)
    Y_test = attention(X_test, teacher)
    res = compare_methods(X, attention(X, teacher), m, X_test, Y_test, restarts=RESTARTS, accept=ACCEPT,
                          adam_epochs=spec["adam_epochs"], rng=rng)
    sculpted = res["sculpt_polish"]
    body = None if sculpted.report.sculpted is None else sculpted.report.sculpted.body
    return {"runs": {k: (res[k].error, res[k].seconds, res[k].starts, res[k].certified) for k in METHODS},
            "failed_phase": sculpted.failed_phase,
            "diagnostics": phase_report_entries(phase_diagnostics(sculpted.report, teacher, X_test, Y_test)),
            "halfspaces": 0 if body is None else body.n_constraints}


def run_size(name, spec, seeds, pool):
    d, n, m, N = spec["d"], spec["n"], spec["m"], spec["N"]
    print(f"\n== {name}: d={d}, n={n}, m={m}, N={N}, planted scale 4, shared 0.6, {seeds} seeds ==")
    errors = {k: [] for k in METHODS}
    seconds = {k: [] for k in METHODS}
    starts = {k: [] for k in METHODS}
    certified = {k: [] for k in METHODS}
    diags, halfspaces = [], []
    failures = []
    for seed, one in enumerate(pool.map(size_seed, [spec] * seeds, range(seeds))):
        for k, (error, secs, used, accepted) in one["runs"].items():
            errors[k].append(error)
            seconds[k].append(secs)
            starts[k].append(used)
            certified[k].append(accepted)
        if one["failed_phase"]:
            failures.append((seed, one["failed_phase"]))
        diags.append(one["diagnostics"])
        halfspaces.append(one["halfspaces"])
        print(f"  seed {seed:2d}: " + ", ".join(f"{METHOD_LABELS[k]} {fmt(errors[k][-1])} ({starts[k][-1]})"
                                                 for k in METHODS), flush=True)
    out = {**spec, "seeds": seeds, "methods": {}, "restarted_seeds": {}}
    print(f"\n  {'method':22s} {'success':>9s} {'starts':>7s} {'most':>5s} {'accepted':>9s} "
          f"{'median error':>13s} {'median s':>9s}")
    for k in METHODS:
        e = np.array(errors[k], dtype=float)
        ok = int(np.sum(np.nan_to_num(e, nan=np.inf) <= SUCCESS))
        used = int(np.sum(starts[k]))
        accepted = int(np.sum(certified[k]))
        print(f"  {METHOD_LABELS[k]:22s} {ok:4d}/{len(e):<4d} {used:7d} {max(starts[k]):5d} "
              f"{f'{accepted}/{used}':>9s} {fmt(np.nanmedian(e)):>13s} {np.median(seconds[k]):9.2f}")
        out["methods"][k] = {
            "label": METHOD_LABELS[k], "successes": ok, "runs": len(e), "starts": used,
            "most_starts": int(max(starts[k])),
            "accepted_starts": accepted, "median_error": number(np.nanmedian(e)),
            "median_seconds": float(np.median(seconds[k])), "errors": [number(v) for v in e],
            "seconds": [float(v) for v in seconds[k]], "starts_per_seed": [int(v) for v in starts[k]],
        }
        out["restarted_seeds"][k] = [s for s, v in enumerate(starts[k]) if v > 1]
    ratio = np.median(seconds["sculpt_polish"]) / np.median(seconds["polish_random"])
    out["time_ratio"] = float(ratio)
    print(f"  time ratio, sculpt + polish / polish from random starts: {ratio:.1f}")
    out["sculpting_failures"] = [{"seed": s, "phase": p} for s, p in failures]
    if failures:
        print(f"  sculpting raised in: {failures}")
    print("\n  per-phase diagnostics of the sculpting runs (median over seeds [min, max])")
    out["diagnostics"] = {}
    for group in ("sum_W", "geometry", "errors", "seconds"):
        keys = sorted({k for dg in diags for k in dg[group]}, key=lambda k: list(diags[0][group]).index(k)
                      if k in diags[0][group] else 99)
        out["diagnostics"][group] = {}
        for k in keys:
            v = np.array([dg[group][k] for dg in diags if k in dg[group]], dtype=float)
            print(f"    {group:8s} {k:14s} {fmt(np.median(v)):>8s}  [{fmt(v.min())}, {fmt(v.max())}]")
            out["diagnostics"][group][ident(k)] = {"label": k, "median": float(np.median(v)),
                                                   "min": float(v.min()), "max": float(v.max())}
    geo = [dg["geometry"].get("proxy cosine", 0) for dg in diags]
    out["proxy_cosine_ge_0_9"] = {"count": int(sum(g >= 0.9 for g in geo)), "of": len(geo)}
    print(f"    proxy cosine >= 0.9 in {sum(g >= 0.9 for g in geo)}/{len(geo)} seeds")
    out["halfspaces"] = {"median": float(np.median(halfspaces)), "min": int(min(halfspaces)),
                         "max": int(max(halfspaces))}
    print(f"    halfspaces in the body: median {int(np.median(halfspaces))} [{min(halfspaces)}, {max(halfspaces)}]")
    slices = [dg["sum_W"].get("phase 3", np.inf) for dg in diags]
    out["slice_sum_W_within_1pct"] = {"count": int(sum(e <= 0.01 for e in slices)), "of": len(slices)}
    print(f"    phase-3 slice estimate of sum W within 1% in {sum(e <= 0.01 for e in slices)}/{len(slices)} seeds")
    return out


def phase3_seed(case, seed):
    """Phase 3 on one instance of a case: the slice's estimate of sum W and the proxy's cosine."""
    c = PHASE3[case]
    rng = np.random.default_rng(seed)
    teacher = planted_instance(2, c["d"], scale=c["scale"], shared=c["shared"], rng=rng)
    X = boolean_inputs(c["N"], c["n"], c["d"], rng=rng)
    res = carve(X, attention(X, teacher)).sculpted
    return relative(res.slice.estimate, teacher.W.sum(0)), cosine(res.proxy, min_norm_point(teacher.Theta)[0])


def run_phase3(seeds, pool):
    print("\n== phase 3 on instances with a large shared component (refined sum W from the slices alone) ==")
    out = {"seeds": seeds, "cases": {}}
    for case, c in PHASE3.items():
        d, n, N, scale, shared = c["d"], c["n"], c["N"], c["scale"], c["shared"]
        errs, coss = zip(*pool.map(phase3_seed, [case] * seeds, range(seeds)), strict=True)
        errs, coss = np.array(errs), np.array(coss)
        label = f"d={d} n={n} N={N} scale={scale:g} shared={shared:g}"
        print(f"  {label}: error <= 1% in {np.sum(errs <= 0.01)}/{seeds}"
              f" (median {fmt(np.median(errs))}), proxy cosine >= 0.9 in {np.sum(coss >= 0.9)}/{seeds}"
              f" (median {np.median(coss):.3f})")
        out["cases"][case] = {"label": label, **c, "within_1pct": int(np.sum(errs <= 0.01)),
                              "median_error": float(np.median(errs)),
                              "proxy_cosine_ge_0_9": int(np.sum(coss >= 0.9)), "median_cosine": float(np.median(coss))}
    return out


SWEEP_SCALES, SWEEP_SIZES = [0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0], [500, 1000, 3000]


def sweep_methods(adam):
    return METHODS if adam else METHODS[:4]


def measure_sweep(seeds, adam):
    """The sweep itself (one task: its seeds share one generator)."""
    return sweep(SWEEP_SCALES, SWEEP_SIZES, seeds=seeds, methods=sweep_methods(adam), rng=0, adam_epochs=1000,
                 restarts=RESTARTS, accept=ACCEPT, success=SUCCESS)


def run_sweep(seeds, adam, res):
    scales, sizes = SWEEP_SCALES, SWEEP_SIZES
    methods = sweep_methods(adam)
    print(f"\n== sweep, d=4, n=3, m=2, shared 0.6, {seeds} seeds per cell, up to 5 starts each: success rate ==")
    out = {"d": 4, "n": 3, "m": 2, "shared": 0.6, "seeds": seeds, "scales": scales, "sizes": sizes, "methods": {}}
    for k in methods:
        starts = res.starts[k]
        print(f"  {METHOD_LABELS[k]}: {int(starts.sum())} starts in {starts.size} runs, at most {int(starts.max())}")
        print(f"  {METHOD_LABELS[k]}")
        print("    scale \\ N " + "".join(f"{s:>7d}" for s in sizes))
        for a, scale in enumerate(scales):
            print(f"    {scale:9g} " + "".join(f"{v:7.2f}" for v in res.success[k][a]))
        ok = np.nan_to_num(res.errors[k], nan=np.inf) <= SUCCESS
        failed = [{"scale": scales[a], "N": sizes[b], "failed_seeds": int(seeds - ok[a, b].sum())}
                  for a in range(len(scales)) for b in range(len(sizes)) if not ok[a, b].all()]
        out["methods"][k] = {
            "label": METHOD_LABELS[k], "success": [[float(v) for v in row] for row in res.success[k]],
            "failed_cells": failed,
            "starts": int(starts.sum()), "runs": int(starts.size), "most_starts": int(starts.max()),
        }
    return out


def single_seed(name, seed):
    """Every kind of single start on one instance of a setting."""
    c = SINGLE_START[name]
    rng = np.random.default_rng(10_000 + seed)
    teacher = planted_instance(c["m"], c["d"], scale=c["scale"], shared=c["shared"], check=False, rng=rng)
    X = boolean_inputs(c["N"], c["n"], c["d"], rng=rng)
    X_test = boolean_inputs(TEST_EXAMPLES, c["n"], c["d"], rng=rng)
    return single_starts(X, attention(X, teacher), c["m"], X_test, attention(X_test, teacher), rng=rng)


def run_single_start(settings, pool):
    print(f"\n== single starts: one polish run per start; {RULE} ==")
    out = {"rule": RULE, "accept": ACCEPT, "success": SUCCESS, "confidence": 0.95, "interval": "wilson",
           "settings": {}}
    for name, seeds in settings.items():
        c = SINGLE_START[name]
        d, n, m, N, scale, shared = c["d"], c["n"], c["m"], c["N"], c["scale"], c["shared"]
        label = f"d={d}, n={n}, m={m}, N={N}, scale {scale:g}, shared {shared:g}"
        print(f"\n  {name}: {label}, {seeds} instances")
        runs, failed = [], 0
        for seed, r in enumerate(pool.map(single_seed, [name] * seeds, range(seeds))):
            runs.append(r)
            failed += r.failed_phase is not None
            print(f"    seed {seed:3d}: " + " ".join(f"{k} {v}" for k, v in r.successes(ACCEPT).items()), flush=True)
        res = {"label": label, **c, "seeds": seeds, "sculpting_failed": failed,
               "sculpt_seconds": float(np.median([r.sculpt_seconds for r in runs])), "starts": {}}
        for kind in START_KINDS:
            k = sum(r.successes(ACCEPT)[kind] for r in runs)
            t = sum(r.trials()[kind] for r in runs)
            test = int(sum(np.sum(np.nan_to_num(r.errors[kind], nan=np.inf) <= SUCCESS) for r in runs))
            low, high = binomial_interval(k, t)
            secs = np.concatenate([r.seconds[kind] for r in runs])
            res["starts"][kind] = {"label": START_LABELS[kind], "successes": int(k), "trials": int(t),
                                   "rate": k / t, "low": low, "high": high, "test_successes": test,
                                   "median_seconds": number(np.nanmedian(secs)) if np.isfinite(secs).any() else None}
            print(f"    {START_LABELS[kind]:24s} {k:4d}/{t:<4d} = {k / t:.3f}  95% [{low:.3f}, {high:.3f}]"
                  f"  (test error <= 1e-3: {test})")
        out["settings"][name] = res
    return out


PARTS = ("sizes", "phase3", "sweep", "single")
FULL = {"seeds": 20, "large_seeds": 3, "phase3_seeds": 20, "sweep_seeds": 3, "single_start_seeds": 40,
        "single_start_settings": "small:100,soft,sharp,few_examples,d6:20"}
QUICK = {"seeds": 2, "large_seeds": 1, "phase3_seeds": 2, "sweep_seeds": 1, "single_start_seeds": 2,
         "single_start_settings": ",".join(SINGLE_START)}


class Serial:
    """``map`` in this process, for --jobs 1."""

    map = staticmethod(lambda func, *items: map(func, *items))

    def submit(self, func, *args):
        value = func(*args)
        return type("Done", (), {"result": staticmethod(lambda: value)})()

    def shutdown(self):
        pass


def full_record(args, parts) -> bool:
    """Whether this run measured everything the chapters read, with at least the full record's seeds."""
    settings = dict(item.partition(":")[::2] for item in FULL["single_start_settings"].split(","))
    asked = dict(item.partition(":")[::2] for item in args.single_start_settings.split(",") if item)
    enough = all(name in asked and int(asked[name] or args.single_start_seeds) >= int(n or FULL["single_start_seeds"])
                 for name, n in settings.items())
    return (set(parts) == set(PARTS) and args.sizes.split(",") == ["small", "large"] and enough
            and all(getattr(args, k) >= FULL[k] for k in ("seeds", "large_seeds", "phase3_seeds", "sweep_seeds")))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default=",".join(PARTS), help=f"any of {','.join(PARTS)}")
    parser.add_argument("--seeds", type=int, default=FULL["seeds"])
    parser.add_argument("--large-seeds", type=int, default=FULL["large_seeds"])
    parser.add_argument("--sizes", default="small,large")
    parser.add_argument("--phase3-seeds", type=int, default=FULL["phase3_seeds"])
    parser.add_argument("--sweep-seeds", type=int, default=FULL["sweep_seeds"])
    parser.add_argument("--sweep-adam", action="store_true",
                        help="include Adam in the sweep (5 starts x 1000 epochs per run: slow)")
    parser.add_argument("--single-start-seeds", type=int, default=FULL["single_start_seeds"],
                        help="instances per setting of the single-start measurement")
    parser.add_argument("--single-start-settings", default=FULL["single_start_settings"],
                        help=f"any of {','.join(SINGLE_START)}, each optionally with its own seeds: small:100,d6:40")
    parser.add_argument("--quick", action="store_true", help="a few seeds of every part, printed only")
    parser.add_argument("--jobs", type=int, default=1, help="processes to spread the seeds over")
    parser.add_argument("--no-write", action="store_true",
                        help="print only; leave benchmarks/results/sculpt.json alone")
    args = parser.parse_args()
    if args.quick:
        for key, value in QUICK.items():
            setattr(args, key, value)
    parts = [p for p in args.parts.split(",") if p]
    unknown = set(parts) - set(PARTS)
    if unknown:
        parser.error(f"--parts: unknown {sorted(unknown)}; choose from {','.join(PARTS)}")
    start = time.perf_counter()
    pool = (ProcessPoolExecutor(args.jobs, mp_context=multiprocessing.get_context("fork")) if args.jobs > 1
            else Serial())
    sweep_task = pool.submit(measure_sweep, args.sweep_seeds, args.sweep_adam) if "sweep" in parts else None
    results = {"config": {"accept": ACCEPT, "success": SUCCESS, "restarts": RESTARTS, "test_examples": TEST_EXAMPLES,
                          "planted_scale": SCALE, "shared": SHARED, "rule": RULE, "jobs": args.jobs}, "sizes": {}}
    if "sizes" in parts:
        for name in filter(None, args.sizes.split(",")):
            seeds = args.seeds if name == "small" else args.large_seeds
            results["sizes"][name] = run_size(name, SIZES[name], seeds, pool)
    if "phase3" in parts:
        results["phase3"] = run_phase3(args.phase3_seeds, pool)
    if "single" in parts:
        settings = {}
        for item in filter(None, args.single_start_settings.split(",")):
            name, _, seeds = item.partition(":")
            settings[name] = int(seeds) if seeds else args.single_start_seeds
        results["single_start"] = run_single_start(settings, pool)
    if sweep_task is not None:
        results["sweep"] = run_sweep(args.sweep_seeds, args.sweep_adam, sweep_task.result())
    pool.shutdown()
    total = time.perf_counter() - start
    results["seconds"] = total
    print(f"\ntotal {total:.0f} s")
    if args.no_write or args.quick:
        return
    if not full_record(args, parts):
        print("a partial run: benchmarks/results/sculpt.json, which the chapters read whole, is left as it was")
        return
    print(f"wrote {write_results('sculpt', results)}")


if __name__ == "__main__":
    main()
