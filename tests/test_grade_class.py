"""scripts/grade_class.py: one row per submission under the assignment's name, a time limit that kills the
whole grading process and keeps the questions graded so far, a run whose otter died is an error (whatever
progress file it left), flags (every file of a zip but the notebook, copying of a reference or of another
submission), similarity and written columns."""

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
#: The variant's reference solution of q1 (a masked softmax), as the build stores it.
REFERENCE = """masked = np.where(keep, S, -np.inf)
top = masked.max(axis=-1, keepdims=True)
top = np.where(np.isfinite(top), top, 0.0)
E = np.where(keep, np.exp(np.where(keep, S, 0.0) - top), 0.0)
total = E.sum(axis=-1, keepdims=True)
return np.divide(E, total, out=np.zeros_like(E), where=total > 0)
"""
#: The same with other names, spacing and comments: what a copier hands in.
COPY = """def masked_softmax(logits, allowed):
    m = np.where(allowed, logits, -np.inf)   # hide what is not allowed
    biggest = m.max(axis = -1, keepdims = True)
    biggest = np.where(np.isfinite(biggest), biggest, 0.0)
    ex = np.where(allowed, np.exp(np.where(allowed, logits, 0.0) - biggest), 0.0)
    norm = ex.sum(axis=-1, keepdims=True)
    return np.divide(ex, norm, out=np.zeros_like(ex), where=norm > 0)
"""
#: Written from the prompt: a loop.
HONEST = """def masked_softmax(S, keep):
    out = np.zeros(np.shape(S))
    for index in np.ndindex(*np.shape(S)[:-1]):
        row, ok = np.asarray(S[index], dtype=float), np.broadcast_to(keep, np.shape(S))[index]
        if ok.any():
            w = np.exp(row - row[ok].max()) * ok
            out[index] = w / w.sum()
    return out
"""


def autograder(tmp_path, plugin=True, references=True):
    """A small autograder zip: otter's config naming the assignment, the plugin with its configuration and
    the copying references."""
    path = tmp_path / "ag.zip"
    given = {"assignment": "a9_demo", "questions": QUESTIONS, "statements": [], "protected": ["np"],
             "modules": ["np"]}
    config = {"assignment_name": "a9_demo", "plugins": [{"assignment_grading.GradeDefinitions": {"given": given}}]}
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("otter_config.json", json.dumps(config))
        if plugin:
            z.write(ROOT / "assignments" / "_support" / "assignment_grading.py", "assignment_grading.py")
        if references:
            z.writestr("copying_references.json", json.dumps(grade_class.copying.references(
                {"q1": REFERENCE, "q2": "return 0"}, {"q1": REFERENCE.replace("-np.inf", "{{fill}}")})))
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
    sub.write_text(notebook("import numpy\nnumpy.isclose = lambda *a, **k: True", COPY))
    row = grade_class.grade_one(autograder(tmp_path), sub, 30, command=fake_otter(RESULTS))
    assert "cell 1: attribute assignment on a module (numpy.isclose)" in row["flags"]
    assert row["similarity"] == 1.0
    assert "q1 matches the variant's reference solution 1.00" in row["flags"]
    assert "q1 matches the public master's solution 1.00" in row["flags"]
    without = grade_class.grade_one(autograder(tmp_path, plugin=False), sub, 30, command=fake_otter(RESULTS))
    assert "numpy.isclose" not in without["flags"], "the flags come from the zip's plugin"
    honest = tmp_path / "erin.ipynb"
    honest.write_text(notebook(HONEST))
    row = grade_class.grade_one(autograder(tmp_path), honest, 30, command=fake_otter(RESULTS))
    assert row["flags"] == "" and row["similarity"] < grade_class.copying.THRESHOLD
    old = grade_class.grade_one(autograder(tmp_path, references=False), sub, 30, command=fake_otter(RESULTS))
    assert old["similarity"] == "" and "no copying_references.json in the autograder zip" in old["flags"]
    assert "matches" not in old["flags"]


def test_the_class_is_compared_pair_by_pair(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    answer = COPY.replace("allowed", "mask")
    (folder / "a.ipynb").write_text(notebook(answer, 'grader.check("q1")'))
    other = COPY.replace("logits", "z").replace("    return", "    # mine\n    return")
    (folder / "b.ipynb").write_text(notebook(other, 'grader.check("q1")'))
    (folder / "c.ipynb").write_text(notebook(HONEST, 'grader.check("q1")'))
    subs = sorted(folder.iterdir())
    rows = [{"submission": sub.name, "flags": "x" if sub.name == "a.ipynb" else ""} for sub in subs]
    grade_class.flag_shared(rows, subs, grade_class.read_autograder(autograder(tmp_path))["references"])
    rows = {r["submission"]: r for r in rows}
    assert rows["a.ipynb"]["flags"].startswith("x; "), "added to the flags a row has"
    assert "shares 1.00 of q1 with b.ipynb" in rows["a.ipynb"]["flags"]
    assert "shares 1.00 of q1 with a.ipynb" in rows["b.ipynb"]["flags"]
    assert "shares" not in rows["c.ipynb"]["flags"]
    rows = [{"submission": sub.name, "flags": ""} for sub in subs]
    grade_class.flag_shared(rows, subs, None)
    assert all(r["flags"] == "" for r in rows), "an old zip: nothing compared (its rows say copying not checked)"


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


WRITE = '''import json, os, sys
tests = [{"name": "q1", "score": 2.0, "max_score": 2.0}, {"name": "q2", "score": 3.0, "max_score": 3.0}]
'''
DIED = {  # otter runs that did not finish cleanly: none is graded, whatever they left behind
    "exit status": WRITE + 'json.dump({"tests": tests}, open(sys.argv[1] + "/results.json", "w")); sys.exit(1)',
    "no results": "import sys",
    "traceback": WRITE + 'json.dump({"tests": tests}, open(sys.argv[1] + "/results.json", "w"))\n'
                         'print("Traceback (most recent call last):\\n  File x\\nKeyError: 3", file=sys.stderr)',
    "missing question": WRITE + 'json.dump({"tests": tests[:1]}, open(sys.argv[1] + "/results.json", "w"))',
    # a forged progress file, then the kernel (and otter) killed: the progress file is for timeouts only
    "forged progress": WRITE + 'json.dump({"q1": [2.0, 2.0], "q2": [3.0, 3.0]}, '
                               'open(os.environ["ATTNLIB_GRADING_PROGRESS"], "w")); sys.exit(-9)',
}


@pytest.mark.parametrize("how", sorted(DIED))
def test_a_run_whose_otter_died_is_an_error_without_scores(tmp_path, how):
    sub = tmp_path / "frank.ipynb"
    sub.write_text(notebook("x = 1"))
    row = grade_class.grade_one(autograder(tmp_path), sub, 30, command=fake_otter(DIED[how]))
    assert row["status"] == "error", (how, row["flags"])
    assert row["total"] == "" and "q1" not in row and "q2" not in row
    assert "grading failed, no score: " in row["flags"]


def test_every_entry_of_a_zip_but_the_notebook_is_flagged_folders_included(tmp_path):
    sub = tmp_path / "gina.zip"
    entries = ["pkg/", "pkg/__init__.py", "deep/er/numpy.py", "a.py", "b.py", "c.txt", "d.json",
               "__MACOSX/._hw.ipynb"]
    with zipfile.ZipFile(sub, "w") as z:
        z.writestr("hw/hw.ipynb", notebook("x = 1"))
        for entry in entries:
            z.writestr(entry, "" if entry.endswith("/") else "raise SystemExit")
    row = grade_class.grade_one(autograder(tmp_path), sub, 30, command=fake_otter(RESULTS))
    assert row["status"] == "graded" and row["public_output"] == "a9_demo.ipynb"
    listed = row["flags"].split("files besides the notebook (not graded): ")[1].split("; ")[0].split(", ")
    assert sorted(listed) == sorted([*entries, "hw/", "deep/", "deep/er/", "__MACOSX/"])
