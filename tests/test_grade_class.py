"""scripts/grade_class.py: one row per submission, a time limit that kills the whole grading process."""

import importlib.util
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("grade_class", ROOT / "scripts" / "grade_class.py")
grade_class = importlib.util.module_from_spec(spec)
spec.loader.exec_module(grade_class)


def fake_otter(script):
    """A stand-in for ``otter run`` that runs ``script`` with the output folder as argv[1]."""
    def command(autograder, submission, output):
        return [sys.executable, "-c", script, output, submission.name]
    return command


RESULTS = '''import json, sys
json.dump({"tests": [{"name": "Public Tests"}, {"name": "q1", "score": 2.0, "max_score": 2.0},
                     {"name": "q2", "score": 0.5, "max_score": 3.0}]}, open(sys.argv[1] + "/results.json", "w"))
'''

# a grader that starts a child and then hangs: the child must die with it
HANGS = '''import subprocess, sys, time
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
time.sleep(60)
'''


def test_graded_row_and_csv(tmp_path):
    sub = tmp_path / "alice.ipynb"
    sub.write_text("{}")
    row = grade_class.grade_one(tmp_path / "ag.zip", sub, 30, command=fake_otter(RESULTS))
    assert row["status"] == "graded" and row["total"] == 2.5 and row["max"] == 5.0
    assert row["q1"] == 2.0 and row["q2"] == 0.5
    csv = grade_class.to_csv([row, {"submission": "bob.ipynb", "status": "timeout", "seconds": 9.0,
                                    "total": "", "max": ""}])
    assert csv.splitlines() == ["submission,status,seconds,total,max,q1,q2",
                                f"alice.ipynb,graded,{row['seconds']},2.5,5.0,2.0,0.5",
                                "bob.ipynb,timeout,9.0,,,,"]


def test_a_hanging_grader_is_stopped_at_the_timeout(tmp_path):
    sub = tmp_path / "loops.ipynb"
    sub.write_text("{}")
    start = time.monotonic()
    row = grade_class.grade_one(tmp_path / "ag.zip", sub, 1.5, command=fake_otter(HANGS))
    assert row["status"] == "timeout" and row["total"] == ""
    assert time.monotonic() - start < 10


def test_no_results_is_an_error(tmp_path):
    sub = tmp_path / "broken.zip"
    sub.write_text("")
    row = grade_class.grade_one(tmp_path / "ag.zip", sub, 30, command=fake_otter("print('otter failed')"))
    assert row["status"] == "error" and "otter failed" in row["log"]
