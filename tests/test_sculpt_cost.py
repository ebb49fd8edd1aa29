"""benchmarks/sculpt_cost.py without its full run: its helpers against independent oracles, and the keys the
chapters read, in a tiny run and in the committed results file."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import sculpt_cost  # noqa: E402

from attnlib import attention, boolean_inputs  # noqa: E402
from attnlib.sculpt import learn, net_candidates, planted_instance, random_span  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "sculpt_cost.json"
PHASE_KEYS = {"phase_1", "phases_2_3", "phase_4", "phase_5", "polish"}
#: the keys the chapters read, by part (the schema the chapters are written against)
SCHEMA = {
    "": {"config", "over_m", "over_d", "theory", "seconds"},
    "over_m": {"d", "n", "m", "N", "seeds", "seconds", "median_seconds", "successes", "phases", "growth", "skipped"},
    "over_d": {"m", "n", "d", "N", "seeds", "seconds", "median_seconds", "successes", "phases", "growth"},
    "theory": {"over_m", "over_d"},
}
GROWTH = {"slope", "low", "high", "intercept", "points", "confidence", "log_x"}


def missing_keys(results: dict) -> list[str]:
    """The keys of SCHEMA (and of each phase and fit) that ``results`` lacks."""
    missing = [f"{part}.{key}".lstrip(".") for part, keys in SCHEMA.items()
               for key in sorted(keys - set(results.get(part, {}) if part else results))]
    for part in ("over_m", "over_d"):
        phases = results.get(part, {}).get("phases", {})
        missing += [f"{part}.phases.{key}" for key in sorted(PHASE_KEYS - set(phases))]
        missing += [f"{part}.phases.{key}.{field}" for key, phase in sorted(phases.items())
                    for field in ("label", "median_seconds") if field not in phase]
        fit = results.get(part, {}).get("growth") or {}
        missing += [f"{part}.growth.{key}" for key in sorted(GROWTH - set(fit))]
    if "factor" not in (results.get("over_m", {}).get("growth") or {}):
        missing.append("over_m.growth.factor")
    return missing


@pytest.fixture(scope="module")
def quick():
    """The --quick run's results (a few seconds: d=3..4, m=1..2, 2 seeds)."""
    return sculpt_cost.run(sculpt_cost.QUICK, jobs=1)


def test_the_sample_size_passes_through_the_books_sizes():
    assert sculpt_cost.sample_size(4) == 3000 and sculpt_cost.sample_size(8) == 10000
    for d in range(3, 17):
        # the same power written the other way round: (d/4)^log2(10/3) = (10/3)^log2(d/4)
        assert sculpt_cost.sample_size(d) == 500 * round(3000 * (10 / 3) ** math.log2(d / 4) / 500)
    sizes = [sculpt_cost.sample_size(d) for d in range(3, 17)]
    assert all(a < b for a, b in zip(sizes, sizes[1:], strict=False)) and all(N % 500 == 0 for N in sizes)


@pytest.mark.parametrize("m", [1, 2, 3, 4])
def test_the_net_size_is_the_librarys(m):
    span = random_span(np.eye(3), m, rng=0)
    full, tried = sculpt_cost.net_size(m, 9, 500)
    assert len(net_candidates(span, m, rng=1)) == tried
    assert full == (1 if m == 1 else 9 ** (m * (m - 1)))
    assert len(net_candidates(span, m, steps=2, budget=10**4, rng=1)) == sculpt_cost.net_size(m, 2, 10**4)[1]


def test_polish_examples_by_hand():
    # 30 residuals per parameter: 30 * 2 m d^2 / (n d), at least 200
    assert sculpt_cost.polish_examples(2, 4, 3) == 200  # 160
    assert sculpt_cost.polish_examples(5, 4, 3) == 400
    assert sculpt_cost.polish_examples(2, 10, 3) == 400


def test_counting_sees_each_phases_work_and_changes_nothing():
    teacher = planted_instance(2, 4, rng=0)
    X = boolean_inputs(3000, 3, 4, rng=1)
    Y = attention(X, teacher)
    plain = learn(X, Y, 2, rng=2)
    lp = sculpt_cost.body_module.linprog_highs
    with sculpt_cost.counting({}) as tally:
        counted = learn(X, Y, 2, rng=2)
    assert sculpt_cost.body_module.linprog_highs is lp  # restored
    np.testing.assert_array_equal(counted.heads.Theta, plain.heads.Theta)
    body = plain.report.sculpted.body
    assert body.n_constraints <= 3000  # one LP per direction: 32 m of phase 4, both ends of the segment in phase 5
    assert tally["lps_phase_4"] == 64 and tally["lps_phase_5"] == 2 and tally["net_tuples"] == 36
    assert tally["lp_rows_phase_4"] == body.n_constraints + 1  # the halfspaces and the cap
    dropped = plain.report.sculpted.dropped  # one pruning LP per certification, more when it drops halfspaces
    assert tally["lps_phases_2_3"] >= len(dropped) and (any(dropped) or tally["lps_phases_2_3"] == len(dropped))
    # the net's fits (36 tuples x 9 scales) plus best_scale's, twice (face and net winner)
    assert tally["fits_phase_5"] > 36 * 9


def test_the_quick_run_has_every_key_the_chapters_read(quick):
    assert missing_keys(quick) == []
    broken = {**quick, "over_m": {k: v for k, v in quick["over_m"].items() if k != "skipped"}}
    assert missing_keys(broken) == ["over_m.skipped"]


def test_the_quick_runs_summaries_follow_from_its_seeds(quick):
    for part, axis in (("over_m", "m"), ("over_d", "d")):
        res = quick[part]
        x = np.repeat(res[axis], [len(row) for row in res["seconds"]])
        y = np.log(np.concatenate(res["seconds"]))
        slope = np.polyfit(x if axis == "m" else np.log(x), y, 1)[0]
        assert res["growth"]["slope"] == pytest.approx(slope, rel=1e-9)
        assert res["growth"]["low"] < slope < res["growth"]["high"]
        assert res["median_seconds"] == pytest.approx([np.median(row) for row in res["seconds"]])
        assert res["N"] == [sculpt_cost.sample_size(d) for d in ([res["d"]] * len(res["m"]) if axis == "m"
                                                                 else res["d"])]
        assert all(len(row) == res["seeds"] for row in res["seconds"])
        ok = [sum(e is not None and e <= 1e-3 for e in row) for row in res["errors"]]
        assert res["successes"] == ok
        phases = sum(np.array([[v or 0.0 for v in row] for row in p["seconds"]]) for p in res["phases"].values())
        assert np.all(phases <= np.array(res["seconds"]))  # the phases are inside the timed run
    assert quick["over_m"]["growth"]["factor"] == pytest.approx(math.exp(quick["over_m"]["growth"]["slope"]))
    assert quick["theory"]["net_tuples"] == [1, 36]


@pytest.mark.skipif(not RESULTS.exists(), reason="no committed results file yet")
def test_the_committed_results_have_every_key_the_chapters_read():
    results = json.loads(RESULTS.read_text())["results"]
    assert missing_keys(results) == []
    assert results["over_m"]["m"][:3] == [1, 2, 3] and results["over_d"]["d"][:3] == [4, 6, 8]
    assert results["over_d"]["N"][:3] == [3000, 6000, 10000]
