"""Grade a whole class: every submission in a folder, each with a time limit, into a CSV of scores.

    python scripts/grade_class.py AUTOGRADER_ZIP SUBMISSIONS_FOLDER [--timeout 300] [--csv scores.csv]

A submission is a notebook (``.ipynb``) or the zip a student hands in. Each is graded by its own
``otter run -a AUTOGRADER_ZIP`` process (the grading environment must have otter-grader and the
autograder's requirements installed: ``pip install -e ".[course]"`` does it here). Inside, every
test stops the student's code after ten seconds (``assignment_support``), so an infinite loop
costs the loop's question and grading goes on; the process as a whole is also stopped after
``--timeout`` seconds (with every process it started), so no submission can stall the class. Such
a submission is listed with status ``timeout`` and no score, for a look by hand.

The CSV has one row per submission: its file name, ``status`` (graded, timeout, error),
``seconds``, ``total``, ``max``, then one column per question. It is also printed.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SUFFIXES = (".ipynb", ".zip")


def scores(results: dict) -> dict:
    """Question name -> (score, max score) from otter's results.json (the public-tests summary left out)."""
    out = {}
    for test in results.get("tests", []):
        if "max_score" in test and test.get("name") != "Public Tests":
            out[test["name"]] = (float(test.get("score") or 0.0), float(test["max_score"]))
    return out


def otter_command(autograder: Path, submission: Path, output: str) -> list[str]:
    return [sys.executable, "-m", "otter", "run", "-a", str(autograder.resolve()), "-o", output,
            str(submission.resolve())]


def grade_one(autograder: Path, submission: Path, timeout: float, command=otter_command) -> dict:
    """Grade one submission in its own process group; a row of the CSV."""
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.Popen(command(autograder, submission, tmp), cwd=tmp, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, start_new_session=True)
        try:
            log, _ = proc.communicate(timeout=timeout)
            status = "graded"
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)  # otter and the kernel it started
            log, _ = proc.communicate()
            status = "timeout"
        results = Path(tmp) / "results.json"
        per_question = scores(json.loads(results.read_text())) if status == "graded" and results.exists() else {}
    if status == "graded" and not per_question:
        status = "error"
    row = {"submission": submission.name, "status": status, "seconds": round(time.monotonic() - start, 1),
           "total": sum(s for s, _ in per_question.values()) if per_question else "",
           "max": sum(m for _, m in per_question.values()) if per_question else ""}
    row.update({q: s for q, (s, _) in sorted(per_question.items())})
    row["log"] = log
    return row


def to_csv(rows: list[dict]) -> str:
    questions = sorted({k for r in rows for k in r} - {"submission", "status", "seconds", "total", "max", "log"},
                       key=lambda q: (len(q), q))
    out = io.StringIO()
    writer = csv.DictWriter(out, ["submission", "status", "seconds", "total", "max", *questions],
                            extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def grade_folder(autograder: Path, folder: Path, *, timeout: float = 300, csv_path: Path | None = None) -> list[dict]:
    """Grade every submission in ``folder`` (sorted by name); write the CSV if ``csv_path`` is given."""
    submissions = sorted(p for p in Path(folder).iterdir() if p.suffix in SUFFIXES)
    rows = [grade_one(Path(autograder), sub, timeout) for sub in submissions]
    if csv_path is not None:
        Path(csv_path).write_text(to_csv(rows))
    return rows


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("autograder", type=Path, help="the autograder zip written by otter assign")
    parser.add_argument("submissions", type=Path, help="a folder of submissions (.ipynb or .zip)")
    parser.add_argument("--timeout", type=float, default=300, help="seconds per submission (default 300)")
    parser.add_argument("--csv", type=Path, default=None, help="where to write the CSV (default: "
                                                                 "<submissions>/scores.csv)")
    args = parser.parse_args(argv)
    if not args.autograder.is_file() or not args.submissions.is_dir():
        print(f"expected an autograder zip and a folder; got {args.autograder} and {args.submissions}")
        return 2
    csv_path = args.csv or args.submissions / "scores.csv"
    rows = grade_folder(args.autograder, args.submissions, timeout=args.timeout, csv_path=csv_path)
    if not rows:
        print(f"no submissions (.ipynb or .zip) in {args.submissions}")
        return 2
    print(csv_path.read_text(), end="")
    print(f"{len(rows)} submissions: {sum(r['status'] == 'graded' for r in rows)} graded, "
          f"{sum(r['status'] == 'timeout' for r in rows)} stopped at {args.timeout:g} s, "
          f"{sum(r['status'] == 'error' for r in rows)} with errors; CSV in {csv_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
