"""scripts/grade_class.py: one row per submission under the assignment's name, a time limit that kills the
whole grading process and keeps the questions graded so far, flags, similarity and written columns."""

import importlib.util
import json
import sys
import time
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("grade_class", ROOT / "scripts" / "grade_class.py")
grade_class = importlib.util.module_from_spec(spec)
spec.loader.exec_module(grade_class)

QUESTIONS = [{"name": "q1", "points": 2.0, "manual": False}, {"name": "q2", "points": 3.0, "manual": False},
             {"name": "q3", "points": 4.0, "manual": True}]
PUBLIC_LINES = ["masked = np.where(keep, S, -np.inf)", "top = masked.max(axis=-1, keepdims=True)"]


def autograder(tmp_path, plugin=True):
    """A small autograder zip: otter's config naming the assignment, and the plugin with its configuration."""
    path = tmp_path / "ag.zip"
    given = {"assignment": "a9_demo", "questions": QUESTIONS, "public_lines": PUBLIC_LINES, "statements": [],
             "protected": ["np"], "modules": ["np"]}
    config = {"assignment_name": "a9_demo", "plugins": [{"assignment_grading.GradeDefinitions": {"given": given}}]}
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("otter_config.json", json.dumps(config))
        if plugin:
            z.write(ROOT / "assignments" / "_support" / "assignment_grading.py", "assignment_grading.py")
    return path


def notebook(*sources):
    return json.dumps({"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                                  "source": s} for s in sources], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def fake_otter(script):
    """A stand-in for ``otter run`` that runs ``script`` with the output folder and the graded file as argv."""
    def command(autograder, submission, output):
        return [sys.executable, "-c", script, output, str(submission)]
    return command


RESULTS = '''import json, os, sys
name = os.path.basename(sys.argv[2])
json.dump({"tests": [{"name": "Public Tests", "output": name}, {"name": "q1", "score": 2.0, "max_score": 2.0},
                     {"name": "q2", "score": 0.5, "max_score": 3.0}]}, open(sys.argv[1] + "/results.json", "w"))
'''

# a grader that records q1, starts a child and then hangs: the child must die with it, q1 must stay
HANGS = '''import json, os, subprocess, sys, time
json.dump({"q1": [2.0, 2.0]}, open(os.environ["ATTNLIB_GRADING_PROGRESS"], "w"))
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
time.sleep(60)
'''


def test_graded_row_and_csv(tmp_path):
    sub = tmp_path / "alice.ipynb"
    sub.write_text(notebook("x = 1"))
    info = grade_class.read_autograder(autograder(tmp_path))
    row = grade_class.grade_one(tmp_path / "ag.zip", sub, 30, command=fake_otter(RESULTS), info=info)
    assert row["status"] == "graded" and row["total"] == 2.5 and row["max"] == 5.0
    assert row["q1"] == 2.0 and row["q2"] == 0.5 and row["flags"] == "" and row["similarity"] == 0.0
    assert row["public_output"] == "a9_demo.ipynb", "graded under the assignment's name, not alice.ipynb"
    csv = grade_class.to_csv([row, {"submission": "bob.ipynb", "status": "timeout", "seconds": 9.0,
                                    "total": "", "max": "", "flags": "", "similarity": ""}], QUESTIONS)
    assert csv.splitlines() == ["submission,status,seconds,total,max,q1,q2,q3 (written /4),flags,similarity",
                                f"alice.ipynb,graded,{row['seconds']},2.5,5.0,2.0,0.5,,,0.0",
                                "bob.ipynb,timeout,9.0,,,,,,,"]


def test_a_hanging_grader_is_stopped_and_keeps_the_questions_graded(tmp_path):
    sub = tmp_path / "loops.ipynb"
    sub.write_text(notebook("x = 1"))
    start = time.monotonic()
    row = grade_class.grade_one(autograder(tmp_path), sub, 1.5, command=fake_otter(HANGS))
    assert row["status"] == "timeout" and row["q1"] == 2.0 and row["total"] == 2.0 and "q2" not in row
    assert time.monotonic() - start < 10


def test_a_zip_is_graded_by_its_notebook_only(tmp_path):
    sub = tmp_path / "carol.zip"
    with zipfile.ZipFile(sub, "w") as z:
        z.writestr("whatever.ipynb", notebook("x = 1"))
        z.writestr("numpy.py", "raise SystemExit")  # would shadow numpy next to the notebook
    row = grade_class.grade_one(autograder(tmp_path), sub, 30, command=fake_otter(RESULTS))
    assert row["status"] == "graded" and row["public_output"] == "a9_demo.ipynb"
    assert "files besides the notebook (not graded): numpy.py" in row["flags"]


def test_flags_and_similarity(tmp_path):
    sub = tmp_path / "dave.ipynb"
    sub.write_text(notebook("import numpy\nnumpy.isclose = lambda *a, **k: True",
                            "def f(S, keep):\n    masked = np.where(keep, S, -np.inf)\n"
                            "    top = masked.max(axis=-1, keepdims=True)   # copied"))
    row = grade_class.grade_one(autograder(tmp_path), sub, 30, command=fake_otter(RESULTS))
    assert "cell 1: attribute assignment on a module (numpy.isclose)" in row["flags"]
    assert row["similarity"] == 1.0 and "shares 100% of the public master's solution lines" in row["flags"]
    without = grade_class.grade_one(autograder(tmp_path, plugin=False), sub, 30, command=fake_otter(RESULTS))
    assert "numpy.isclose" not in without["flags"], "the flags come from the zip's plugin"


def test_bad_input(tmp_path, capsys):
    broken = tmp_path / "broken.zip"
    broken.write_text("")
    row = grade_class.grade_one(autograder(tmp_path), broken, 30, command=fake_otter(RESULTS))
    assert row["status"] == "error" and "not a zip file" in row["log"]
    nonsense = tmp_path / "nonsense.ipynb"
    nonsense.write_text("{")
    assert "not a notebook" in grade_class.grade_one(autograder(tmp_path), nonsense, 30,
                                                     command=fake_otter(RESULTS))["log"]
    assert grade_class.main([str(broken), str(tmp_path)]) == 2
    assert "expected the autograder zip written by otter assign" in capsys.readouterr().out
    assert grade_class.main([str(autograder(tmp_path)), str(tmp_path / "missing")]) == 2
    assert "expected a folder of submissions" in capsys.readouterr().out
    assert grade_class.main([str(autograder(tmp_path)), str(tmp_path), "--timeout", "0"]) == 2
    not_otter = tmp_path / "plain.zip"
    with zipfile.ZipFile(not_otter, "w") as z:
        z.writestr("readme.txt", "hi")
    with pytest.raises(grade_class.GradingError, match="not an autograder zip"):
        grade_class.read_autograder(not_otter)
