"""How the cost of sculpting (the book's reconstruction of Chen and Li) grows with the heads m and the dimension d.

    OPENBLAS_NUM_THREADS=1 python benchmarks/sculpt_cost.py --jobs 2    # the record the chapters read (writes it)
    python benchmarks/sculpt_cost.py --quick                            # a tiny version, printed only

Every run is sculpting end to end, phases 1-5 and the polish, timed as ``benchmarks/sculpt.py``
times it: ``attnlib.sculpt.compare_methods`` with the one method ``sculpt_polish`` (so
``attnlib.sculpt.learn`` with 5 polish starts and the acceptance rule 1e-6), on a planted instance
(``planted_instance``, scale 4, shared 0.6) drawn from ``np.random.default_rng(seed)``, scored on
2000 fresh examples; a run succeeds when its relative test error is at most 1e-3. At d=4, m=2,
N=3000 the runs are those of sculpt.py's small size, seed for seed.

* over m: m = 1, 2, 3 at d=4, n=3, N=3000, 10 seeds each.
* over d: m=2, n=3, d = 4, 6, 8, 4 seeds each (d=4 is over m's m=2, its first 4 runs).
* then, in turn, m=4, d=10, m=5 and d=12, each only if the trend of its series so far (the fit below)
  predicts that its seeds end, with a margin of x1.5, within 420 s of the start; a size that would
  not is not run, and ``skipped`` says why, with the prediction (so is every larger size).

N follows one rule through the book's two sizes (d=4 N=3000, d=8 N=10000): ``N = 3000
(d/4)^log2(10/3)``, rounded to a multiple of 500 (:func:`sample_size`): 6000 at d=6, 14500 at d=10.

Beside each run's seconds it counts, in the run, the work the theory counts: the body's halfspaces
and certified rows, the linear programs each phase solves (every HiGHS call, by phase, and the
most constraint rows of one), the tuples of phase 5's net and its least-squares fits, and the
polish's starts and function evaluations. Slopes are fitted by ``benchmarks/_growth.py``'s
``growth`` on every seed's time: over m on linear axes (a factor per extra head), over d on log
axes (an exponent); the same per phase where the phase does the same kind of work at every size.

The machine is shared and has 2 cores: BLAS gets one thread (set OPENBLAS_NUM_THREADS yourself to
override), ``--jobs J`` spreads the seeds over J processes (each seed has its own generator, so
the numbers are those of a serial run; the times are those of J busy cores), and the load average
is recorded at the start and the end.

Results file
------------
Only the full default run writes benchmarks/results/sculpt_cost.json (``_results.write_results``:
the results below plus command, date, commit, machine, threads and source hashes). ``results``:

* ``config``: ``d_over_m, n, N_over_m, m_over_d, sizes_m, sizes_d, optional`` (the optional sizes in
  the order tried, e.g. ``"m4"``, ``"d10"``), ``seeds_over_m, seeds_over_d, jobs, budget`` (seconds
  from the start within which an optional size must be predicted to end), ``margin`` (the factor on
  that prediction),
  ``success`` (1e-3), ``accept`` (1e-6), ``restarts`` (5), ``test_examples``, ``planted_scale``,
  ``shared``, ``N_rule`` (in words), ``N_exponent``, ``load_average`` (``start``, ``end``: 1, 5 and
  15 minutes), ``cores``.
* ``over_m``: ``d, n, m`` (list), ``N`` (per m), ``seeds``; per m: ``median_seconds``,
  ``successes``, ``failed_phases`` (the phase a failed run raised in, else None, per seed), and
  per m per seed ``seconds`` and ``errors`` (relative test errors); ``phases.<key>`` for key in
  ``phase_1, phases_2_3, phase_4, phase_5, polish`` with ``label``, ``median_seconds`` (per m),
  ``seconds`` (per m per seed), ``fit_from`` (the smallest size of its fit, or None) and
  ``growth`` (its fit, or None); ``counts.<key>`` for key in :data:`COUNTS` with ``label``,
  ``median`` (per m) and ``values`` (per m per seed); ``growth``: ``growth(m, seconds,
  log_x=False)`` over every seed (``factor`` is the cost of one more head); ``dominant``:
  ``{size, phase, label, share}``, the phase with the largest median at the largest size and its
  share of the median total; ``skipped``: ``{"4": "why"}`` or ``{}``, with ``predicted_seconds``
  (per seed, from the trend) for each size considered.
* ``over_d``: the same with ``m`` (2) and ``d`` (list) in place of ``d`` and ``m``, ``growth`` =
  ``growth(d, seconds)`` (``slope`` is the exponent of d), ``skipped`` keyed by d.
* ``theory``: ``over_m``, ``over_d``, ``paper``, ``lower_bound`` and ``phases.<key>`` (strings), and
  the numbers the code fixes: ``net_steps``, ``net_budget``, ``net_scales``,
  ``net_tuples_uncapped`` (per m of over_m), ``net_tuples`` (per m, after the cap and, at m=2, the
  ordering), ``phase_4_lps`` and ``phase_5_face_lps`` (per m), ``polish_parameters`` (per m and per
  d), ``polish_examples`` (per m and per d).
* ``seconds``: the whole run.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import inspect  # noqa: E402
import math  # noqa: E402
import multiprocessing  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from concurrent.futures import ProcessPoolExecutor  # noqa: E402
from contextlib import contextmanager  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _growth import growth  # noqa: E402
from _results import write_results  # noqa: E402
from sculpt import ACCEPT, RESTARTS, SCALE, SHARED, SUCCESS, TEST_EXAMPLES, Serial, ident, number  # noqa: E402

import attnlib.sculpt.body as body_module  # noqa: E402
import attnlib.sculpt.candidates as candidates_module  # noqa: E402
from attnlib import attention, boolean_inputs  # noqa: E402
from attnlib.sculpt import compare_methods, planted_instance  # noqa: E402
from attnlib.sculpt.diagnostics import PHASE_REPORT_LABELS  # noqa: E402
from attnlib.sculpt.pipeline import PHASES  # noqa: E402

#: the results' key of each phase of the report (PhaseSeconds' fields), as in sculpt.json's diagnostics
PHASE_KEYS = {name: ident(PHASE_REPORT_LABELS["seconds"][name]) for name in PHASES}
PHASE_LABELS = {PHASE_KEYS[name]: PHASE_REPORT_LABELS["seconds"][name] for name in PHASES}
#: what each run counts, by key: its label
COUNTS = {
    "certified_rows": "certified rows (final body)",
    "halfspaces": "halfspaces (final body)",
    "lps_phases_2_3": "LPs, phases 2-3 (pruning)",
    "lps_phase_4": "LPs, phase 4",
    "lps_phase_5": "LPs, phase 5",
    "lp_rows_phase_4": "most constraint rows of a phase-4 LP",
    "net_tuples": "tuples of the net (phase 5)",
    "fits_phase_5": "least-squares fits of W, phase 5",
    "polish_starts": "polish starts",
    "polish_evaluations": "polish function evaluations",
}
N_EXPONENT = math.log2(10 / 3)
N_RULE = ("N = 3000 (d/4)^log2(10/3), rounded to a multiple of 500: a power of d through the book's sizes "
          "d=4 N=3000 and d=8 N=10000")
#: the sizes of the record; the optional ones in the order they are tried ("m4": m=4 over m, "d10": d=10 over d)
FULL = {"d_over_m": 4, "n": 3, "m_over_d": 2, "sizes_m": [1, 2, 3], "sizes_d": [4, 6, 8],
        "optional": ["m4", "d10", "m5", "d12"], "seeds_over_m": 10, "seeds_over_d": 4, "budget": 420.0, "margin": 1.5}
QUICK = {"d_over_m": 3, "n": 3, "m_over_d": 2, "sizes_m": [1, 2], "sizes_d": [3, 4], "optional": [],
         "seeds_over_m": 2, "seeds_over_d": 2, "budget": 60.0, "margin": 1.5}


def sample_size(d: int) -> int:
    """Training examples at dimension d: ``3000 (d/4)^log2(10/3)`` rounded to a multiple of 500."""
    return int(500 * round(3000 * (d / 4) ** N_EXPONENT / 500))


def net_size(m: int, steps: int, budget: int) -> tuple[int, int]:
    """The tuples of phase 5's net (attnlib.sculpt.net_candidates): ``steps^(m (m-1))``, and how many are tried
    (a random ``budget`` of them when there are more; at m=2 the ordered pairs, beta_1 < beta_2)."""
    if m == 1:
        return 1, 1
    full = steps ** (m * (m - 1))
    if full > budget:
        return full, budget
    return full, (steps * (steps - 1) // 2 if m == 2 else full)


def polish_examples(m: int, d: int, n: int) -> int:
    """Examples one polish run fits on (attnlib.sculpt.polish's default): 30 residuals per parameter, >= 200."""
    return max(200, -(-30 * 2 * m * d * d // (n * d)))


@contextmanager
def counting(tally: dict):
    """Count, while it is open, every LP (by phase, and its most rows), phase 5's fits of W and its net's tuples.

    It wraps three names the library looks up at call time (``body.linprog_highs``, ``candidates.fit_W``,
    ``candidates.net_candidates``) and restores them on leaving; the library itself is unchanged.
    """
    lp, fit, net = body_module.linprog_highs, candidates_module.fit_W, candidates_module.net_candidates

    def counted_lp(c, A_ub, b_ub, bounds, *, phase, n_constraints):
        key = {"phase 2": "lps_phases_2_3", "phase 3": "lps_phases_2_3"}.get(phase, "lps_" + ident(phase))
        tally[key] = tally.get(key, 0) + 1
        if phase == "phase 4":
            tally["lp_rows_phase_4"] = max(tally.get("lp_rows_phase_4", 0), int(A_ub.shape[0]))
        return lp(c, A_ub, b_ub, bounds, phase=phase, n_constraints=n_constraints)

    def counted_fit(*args, **kwargs):
        tally["fits_phase_5"] = tally.get("fits_phase_5", 0) + 1
        return fit(*args, **kwargs)

    def counted_net(*args, **kwargs):
        tuples = net(*args, **kwargs)
        tally["net_tuples"] = tally.get("net_tuples", 0) + len(tuples)
        return tuples

    body_module.linprog_highs, candidates_module.fit_W = counted_lp, counted_fit
    candidates_module.net_candidates = counted_net
    try:
        yield tally
    finally:
        body_module.linprog_highs, candidates_module.fit_W, candidates_module.net_candidates = lp, fit, net


def cost_seed(m: int, d: int, n: int, N: int, seed: int) -> dict:
    """One planted instance, sculpted end to end and timed as sculpt.py times it; per-phase seconds and counts."""
    rng = np.random.default_rng(seed)
    teacher = planted_instance(m, d, scale=SCALE, shared=SHARED, rng=rng)
    X = boolean_inputs(N, n, d, rng=rng)
    X_test = boolean_inputs(TEST_EXAMPLES, n, d, rng=rng)
    with counting({key: 0 for key in COUNTS}) as tally:
        run = compare_methods(X, attention(X, teacher), m, X_test, attention(X_test, teacher),
                              methods=("sculpt_polish",), restarts=RESTARTS, accept=ACCEPT, rng=rng)["sculpt_polish"]
    report = run.report
    body = None if report.sculpted is None else report.sculpted.body
    tally["certified_rows"] = 0 if body is None else body.certified
    tally["halfspaces"] = 0 if body is None else body.n_constraints
    if report.polish is not None:
        tally["polish_starts"] = report.polish.starts
        tally["polish_evaluations"] = sum(info.nfev for info in report.polish.runs)
    return {"seconds": run.seconds, "error": number(run.error), "failed_phase": run.failed_phase,
            "phases": {PHASE_KEYS[name]: getattr(report.seconds, name) for name in PHASES}, "counts": tally}


def fit_slope(x, y, log_x: bool):
    """``growth`` on the points with a positive, finite y; None when they cannot give an interval."""
    pairs = [(a, b) for a, b in zip(x, y, strict=True) if b is not None and np.isfinite(b) and b > 0]
    if len(pairs) < 3 or len({a for a, _ in pairs}) < 2:
        return None
    return growth(*zip(*pairs, strict=True), log_x=log_x)


def predicted_seconds(fit: dict, x: float, log_x: bool) -> float:
    """A fit's prediction of one seed's seconds at x."""
    return float(np.exp(fit["intercept"] + fit["slope"] * (np.log(x) if log_x else x)))


def describe(fit: dict | None, log_x: bool) -> str:
    if fit is None:
        return "no fit"
    if log_x:
        return f"exponent {fit['slope']:.2f} [{fit['low']:.2f}, {fit['high']:.2f}]"
    return f"factor {fit['factor']:.2f} [{fit['factor_low']:.2f}, {fit['factor_high']:.2f}] per head"


class Series:
    """One axis of the measurement (over m or over d): sizes, their runs, their summary."""

    def __init__(self, axis: str, fixed: dict, seeds: int, log_x: bool):
        self.axis, self.fixed, self.seeds, self.log_x = axis, fixed, seeds, log_x
        self.sizes, self.runs, self.skipped, self.predicted = [], [], {}, {}

    def spec(self, x: int) -> tuple[int, int, int, int]:
        """(m, d, n, N) of the size x."""
        m, d = (x, self.fixed["d"]) if self.axis == "m" else (self.fixed["m"], x)
        return m, d, self.fixed["n"], sample_size(d)

    def add(self, x: int, runs: list[dict]):
        self.sizes.append(x)
        self.runs.append(runs)
        m, d, n, N = self.spec(x)
        secs = [r["seconds"] for r in runs]
        ok = sum(r["error"] is not None and r["error"] <= SUCCESS for r in runs)
        shares = "  ".join(f"{PHASE_LABELS[k]} {np.nanmedian([_nan(r['phases'][k]) for r in runs]):6.2f}"
                           for k in PHASE_LABELS)
        counts = ", ".join(f"{key.replace('_', ' ')} {np.median([r['counts'][key] for r in runs]):.0f}"
                           for key in ("halfspaces", "lps_phase_4", "net_tuples", "fits_phase_5", "polish_starts"))
        print(f"  {self.axis}={x:2d} (m={m}, d={d}, N={N:5d}): median {np.median(secs):7.2f} s "
              f"[{min(secs):.2f}, {max(secs):.2f}], {ok}/{len(runs)} succeed\n"
              f"        median s: {shares}\n        median counts: {counts}", flush=True)

    def fit(self):
        x = [s for s, runs in zip(self.sizes, self.runs, strict=True) for _ in runs]
        return fit_slope(x, [r["seconds"] for runs in self.runs for r in runs], self.log_x)

    def predict(self, x: int) -> float | None:
        fit = self.fit()
        if fit is None:
            return None
        self.predicted[str(x)] = predicted_seconds(fit, x, self.log_x)
        return self.predicted[str(x)]

    def summary(self) -> dict:
        other = "d" if self.axis == "m" else "m"
        out = {other: self.fixed[other], "n": self.fixed["n"], self.axis: list(self.sizes),
               "N": [self.spec(x)[3] for x in self.sizes], "seeds": self.seeds,
               "seconds": [[float(r["seconds"]) for r in runs] for runs in self.runs],
               "median_seconds": [float(np.median([r["seconds"] for r in runs])) for runs in self.runs],
               "errors": [[r["error"] for r in runs] for runs in self.runs],
               "successes": [int(sum(r["error"] is not None and r["error"] <= SUCCESS for r in runs))
                             for runs in self.runs],
               "failed_phases": [[r["failed_phase"] for r in runs] for runs in self.runs],
               "phases": {}, "counts": {}}
        for key, label in PHASE_LABELS.items():
            secs = [[_nan(r["phases"][key]) for r in runs] for runs in self.runs]
            start = self.phase_fit_from(key)
            x = [s for s, row in zip(self.sizes, secs, strict=True) if s >= start for _ in row]
            y = [v for s, row in zip(self.sizes, secs, strict=True) if s >= start for v in row]
            fit = fit_slope(x, y, self.log_x)
            out["phases"][key] = {"label": label, "median_seconds": [number(np.nanmedian(row)) for row in secs],
                                  "seconds": [[number(v) for v in row] for row in secs],
                                  "fit_from": start if fit is not None else None, "growth": fit}
        for key, label in COUNTS.items():
            values = [[int(r["counts"][key]) for r in runs] for runs in self.runs]
            out["counts"][key] = {"label": label, "median": [float(np.median(row)) for row in values],
                                  "values": values}
        out["growth"] = self.fit()
        last = {k: v["median_seconds"][-1] or 0.0 for k, v in out["phases"].items()}
        top = max(last, key=last.get)
        out["dominant"] = {"size": self.sizes[-1], "phase": top, "label": PHASE_LABELS[top],
                           "share": last[top] / out["median_seconds"][-1]}
        out["skipped"] = dict(self.skipped)
        out["predicted_seconds"] = dict(self.predicted)
        return out

    def phase_fit_from(self, key: str) -> int:
        """The smallest size from which a phase does the same kind of work: over m, phases 4 and 5 solve no LP
        and try no net at m=1 (one head is its own span), so their fits start at m=2."""
        return 2 if self.axis == "m" and key in ("phase_4", "phase_5") else min(self.sizes)


def _nan(v):
    return np.nan if v is None else float(v)


def theory(cfg: dict, over_m: Series, over_d: Series) -> dict:
    """What each phase's cost should grow like, read off the code, with the numbers the code fixes."""
    net = inspect.signature(candidates_module.net_candidates).parameters
    steps, budget = net["steps"].default, net["budget"].default
    scales = len(np.geomspace(0.5, 8.0, 9))  # certify_candidates' default scales
    ms, ds, n = over_m.sizes, over_d.sizes, cfg["n"]
    return {
        "paper": ("Chen and Li's abstract: time (dk)^O(m^3) (k tokens, our n), under non-degeneracy conditions; "
                  "where the m^3 comes from is not in any source available to us"),
        "lower_bound": ("in the worst case an exponential dependence on m is unavoidable (statistical "
                        "algorithms); the hard instances break the conditions our planted instances meet"),
        "over_m": (f"the reconstruction's only exponential in m is phase 5's net, {steps}^(m(m-1)) tuples, "
                   f"capped at {budget} drawn at random (so from m=3 on it is {budget} tuples x {scales} "
                   f"scales); every other count is polynomial in m: 32m LPs in phase 4, 3m in phase 5 "
                   f"(2 at m=2), a polish in 2md^2 parameters. So the code predicts a factor per head that "
                   f"falls once the cap binds, unlike (dk)^O(m^3)"),
        "over_d": (f"at fixed m, polynomial in d: LPs in d^2 variables over as many halfspaces as certified "
                   f"rows give (at most N n (n-1), N growing like d^{N_EXPONENT:.2f}), cutting planes past "
                   f"3000 of them; fits of W with m d unknowns; a polish Jacobian of max(200, 20 m d) n d rows (n=3) "
                   f"and 2 m d^2 columns, so about m^3 d^6 per step once 20 m d > 200"),
        "phases": {
            "phase_1": "linear in N n d^2 (correlation, trimmed regressions with d unknowns); no m",
            "phases_2_3": ("certify N n rows against n atoms (N n^2 d), dedupe the halfspaces, prune by LPs in "
                           "d^2 + K variables, min-norm point by NNLS over K halfspaces; 3 rounds; no m except "
                           "through how many rows all m heads certify"),
            "phase_4": "32 m LPs over the body (d^2 variables, K halfspaces + 1 cap); none at m=1",
            "phase_5": (f"2 (m=2) or 3m face LPs, one NNLS, and min({steps}^(m(m-1)), {budget}) net tuples x "
                        f"{scales} scales, each a least-squares fit of W with m d unknowns on 400 examples"),
            "polish": ("Levenberg-Marquardt in 2 m d^2 parameters on max(200, 20 m d) examples (n=3), "
                       f"up to 200 evaluations per start, at most {RESTARTS} starts"),
        },
        "net_steps": steps, "net_budget": budget, "net_scales": scales,
        "net_tuples_uncapped": [net_size(m, steps, budget)[0] for m in ms],
        "net_tuples": [net_size(m, steps, budget)[1] for m in ms],
        "phase_4_lps": [0 if m == 1 else 32 * m for m in ms],
        "phase_5_face_lps": [0 if m == 1 else (2 if m == 2 else 3 * m) for m in ms],
        "polish_parameters": {"over_m": [2 * m * cfg["d_over_m"] ** 2 for m in ms],
                              "over_d": [2 * cfg["m_over_d"] * d * d for d in ds]},
        "polish_examples": {"over_m": [polish_examples(m, cfg["d_over_m"], n) for m in ms],
                            "over_d": [polish_examples(cfg["m_over_d"], d, n) for d in ds]},
    }


def measure(cfg: dict, jobs: int, started: float) -> dict:
    """Both series: the required sizes first (all seeds submitted at once), then each optional one if the
    trend predicts it ends within ``cfg["budget"]`` seconds from ``started``."""
    cost_seed(2, 3, 3, 300, 0)  # lazy imports and first calls happen here, not in the first run of each worker
    pool = (ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) if jobs > 1 else Serial())
    over_m = Series("m", {"d": cfg["d_over_m"], "n": cfg["n"]}, cfg["seeds_over_m"], log_x=False)
    over_d = Series("d", {"m": cfg["m_over_d"], "n": cfg["n"]}, cfg["seeds_over_d"], log_x=True)
    shared = cfg["d_over_m"] in cfg["sizes_d"] and cfg["m_over_d"] in cfg["sizes_m"]
    tasks = {("m", m): [pool.submit(cost_seed, *over_m.spec(m), s) for s in range(over_m.seeds)]
             for m in cfg["sizes_m"]}
    tasks.update({("d", d): [pool.submit(cost_seed, *over_d.spec(d), s) for s in range(over_d.seeds)]
                  for d in cfg["sizes_d"] if not (shared and d == cfg["d_over_m"])})
    print(f"\n== over m: d={over_m.fixed['d']}, n={cfg['n']}, {over_m.seeds} seeds ==", flush=True)
    for m in cfg["sizes_m"]:
        over_m.add(m, [t.result() for t in tasks["m", m]])
    print(f"\n== over d: m={over_d.fixed['m']}, n={cfg['n']}, {over_d.seeds} seeds; {N_RULE} ==", flush=True)
    for d in cfg["sizes_d"]:
        if shared and d == cfg["d_over_m"]:
            over_d.add(d, over_m.runs[over_m.sizes.index(cfg["m_over_d"])][:over_d.seeds])
        else:
            over_d.add(d, [t.result() for t in tasks["d", d]])
    for item in cfg["optional"]:
        series, x = (over_m if item[0] == "m" else over_d), int(item[1:])
        if series.skipped:
            series.skipped[str(x)] = f"a smaller {series.axis} was skipped"
            continue
        per_seed = series.predict(x)
        wall = None if per_seed is None else per_seed * math.ceil(series.seeds / jobs)
        left = cfg["budget"] - (time.perf_counter() - started)
        if wall is None or cfg["margin"] * wall > left:
            why = ("no trend to predict it from" if wall is None else
                   f"the trend predicts {per_seed:.0f} s per seed, {wall:.0f} s for {series.seeds} seeds on "
                   f"{jobs} processes; with the margin x{cfg['margin']:g} that is more than the {max(left, 0):.0f} s "
                   f"left of the {cfg['budget']:.0f} s budget")
            series.skipped[str(x)] = why
            print(f"  {series.axis}={x}: skipped, {why}", flush=True)
            continue
        print(f"  {series.axis}={x}: the trend predicts {per_seed:.1f} s per seed", flush=True)
        series.add(x, list(pool.map(cost_seed, *zip(*[(*series.spec(x), s) for s in range(series.seeds)],
                                                      strict=True))))
    pool.shutdown()
    out = {"over_m": over_m.summary(), "over_d": over_d.summary()}
    print("\n== fitted slopes (every seed's seconds; 95% intervals) ==")
    for name, series in (("over m", over_m), ("over d", over_d)):
        summary = out[name.replace(" ", "_")]
        print(f"  {name}: {describe(summary['growth'], series.log_x)}")
        for ph in summary["phases"].values():
            if ph["growth"] is not None:
                print(f"    {ph['label']:10s} (from {series.axis}={ph['fit_from']}): "
                      f"{describe(ph['growth'], series.log_x)}")
        dom = summary["dominant"]
        print(f"    largest size {series.axis}={dom['size']}: {dom['label']} dominates, "
              f"{100 * dom['share']:.0f}% of the median time")
    out["theory"] = theory(cfg, over_m, over_d)
    return out


def load_average() -> list[float] | None:
    return [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None


def run(cfg: dict, jobs: int) -> dict:
    """The whole measurement at the sizes of ``cfg`` (:data:`FULL` or :data:`QUICK`): the results dict."""
    started = time.perf_counter()
    load = load_average()
    print(f"{os.cpu_count()} cores, load average {load}, {jobs} processes, "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}", flush=True)
    results = {"config": {**cfg, "N_over_m": sample_size(cfg["d_over_m"]), "jobs": jobs, "cores": os.cpu_count(),
                          "success": SUCCESS, "accept": ACCEPT, "restarts": RESTARTS,
                          "test_examples": TEST_EXAMPLES, "planted_scale": SCALE, "shared": SHARED,
                          "N_rule": N_RULE, "N_exponent": N_EXPONENT}}
    results.update(measure(cfg, jobs, started))
    results["config"]["load_average"] = {"start": load, "end": load_average()}
    results["seconds"] = time.perf_counter() - started
    print(f"\ntotal {results['seconds']:.0f} s, load average at the end {results['config']['load_average']['end']}")
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tiny version (d=3..4, m=1..2, 2 seeds), printed only")
    parser.add_argument("--jobs", type=int, default=1, help="processes to spread the seeds over")
    parser.add_argument("--no-write", action="store_true", help="print only; leave the results file alone")
    args = parser.parse_args()
    results = run(QUICK if args.quick else FULL, args.jobs)
    if args.quick or args.no_write:
        return
    print(f"wrote {write_results('sculpt_cost', results)}")


if __name__ == "__main__":
    main()
