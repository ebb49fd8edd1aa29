"""Grade a whole class: every submission in a folder, each with a time limit, into a CSV of scores.

    python scripts/grade_class.py AUTOGRADER_ZIP SUBMISSIONS_FOLDER [--timeout 300] [--csv scores.csv] [--jobs 1]

A submission is a notebook (``.ipynb``) or the zip a student hands in (only the notebook inside is
used). Each is copied to the assignment's own file name (``<assignment>.ipynb``; students and LMSs
rename files) and graded by its own ``otter run -a AUTOGRADER_ZIP`` process (the grading
environment must have otter-grader and the autograder's requirements installed:
``pip install -e ".[course]"`` does it here). The zip's plugin (``assignment_grading``, put on
``PYTHONPATH`` from the zip) grades only what the student defines; inside, every call of the
student's code is stopped after ``assignment_support.SECONDS`` seconds, so an infinite loop costs
the loop's question and grading goes on. The process as a whole is also stopped after
``--timeout`` seconds (with every process it started), so no submission can stall the class: such
a submission is listed with status ``timeout`` and the scores of the questions graded before it
stopped.

A run is ``graded`` only if otter finished cleanly: exit status 0, a ``results.json`` with every
autograded question, no traceback in its output. Anything else is an ``error`` with no scores (the
reason is in the flags); the progress file the plugin writes is read only for a ``timeout``.

The CSV has one row per submission: its file name, ``status`` (graded, timeout, error),
``seconds``, ``total`` and ``max`` (the autograded points), one column per autograded question,
an empty column per written question (``q3 (written /4)``) for the instructor's points, then
``flags`` (code that reaches for the grader, files besides the notebook, copying: read those
notebooks) and ``similarity`` (the highest share of a reference's fingerprints found in the
submission, see ``scripts/copying.py``: the variant's reference solutions, the public master's, the
library functions the questions are about, stored in the autograder zip as
``copying_references.json``; each match at or above ``copying.THRESHOLD`` is a flag naming what it
matched). Submissions of the class are also compared with each other, question by question. It is
also printed.
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
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:  # copying.py beside this script (scripts/ is no package), when it is loaded from a file
    sys.path.insert(0, HERE)

import copying  # noqa: E402

SUFFIXES = (".ipynb", ".zip")
PLUGIN_MODULE = "assignment_grading"


class GradingError(RuntimeError):
    """The autograder zip or a submission could not be read."""


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


# --- the autograder zip -------------------------------------------------------------------------


def read_autograder(autograder: Path) -> dict:
    """The assignment's name, the plugin's configuration and the plugin module's text, from the zip."""
    try:
        with zipfile.ZipFile(autograder) as z:
            config = json.loads(z.read("otter_config.json"))
            plugin = z.read(f"{PLUGIN_MODULE}.py").decode() if f"{PLUGIN_MODULE}.py" in z.namelist() else None
            references = (json.loads(z.read(copying.REFERENCES_FILE)) if copying.REFERENCES_FILE in z.namelist()
                          else None)
    except (zipfile.BadZipFile, KeyError, json.JSONDecodeError, OSError) as err:
        raise GradingError(f"{autograder} is not an autograder zip written by otter assign ({err})") from None
    if references is not None and (not isinstance(references, dict) or references.get("format") != copying.FORMAT):
        raise GradingError(f"{autograder}: {copying.REFERENCES_FILE} is not of format {copying.FORMAT}; "
                           "build the assignment again")
    given = {}
    for entry in config.get("plugins", []):
        if isinstance(entry, dict) and f"{PLUGIN_MODULE}.GradeDefinitions" in entry:
            given = entry[f"{PLUGIN_MODULE}.GradeDefinitions"].get("given", {})
    return {"name": config.get("assignment_name") or given.get("assignment"), "given": given, "plugin": plugin,
            "references": references}


def _plugin_module(text: str | None, folder: Path):
    """The zip's assignment_grading module, written to ``folder`` and imported from there."""
    if text is None:
        return None
    import importlib.util

    path = folder / f"{PLUGIN_MODULE}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(f"{PLUGIN_MODULE}_from_zip", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def notebook_of(submission: Path) -> tuple[dict, list[str]]:
    """The notebook of a submission (the only .ipynb in a zip) and every other entry a zip holds, folders
    included (those a file's path implies too): none of them reaches the grader."""
    if submission.suffix == ".zip":
        try:
            with zipfile.ZipFile(submission) as z:
                names = z.namelist()
                notebooks = [n for n in names if n.endswith(".ipynb") and not n.startswith("__MACOSX")]
                if len(notebooks) != 1:
                    raise GradingError(f"{submission.name}: {len(notebooks)} notebooks in the zip; expected one")
                text = z.read(notebooks[0]).decode()
                folders = {"/".join(n.split("/")[:i]) + "/" for n in names for i in range(1, n.count("/") + 1)}
                others = sorted((set(names) | folders) - {notebooks[0]})
        except zipfile.BadZipFile:
            raise GradingError(f"{submission.name}: not a zip file") from None
    else:
        text, others = submission.read_text(), []
    try:
        return json.loads(text), others
    except json.JSONDecodeError as err:
        raise GradingError(f"{submission.name}: not a notebook ({err.msg})") from None


# --- grading ------------------------------------------------------------------------------------


def grade_one(autograder: Path, submission: Path, timeout: float, command=otter_command,
              info: dict | None = None) -> dict:
    """Grade one submission in its own process group; a row of the CSV."""
    start = time.monotonic()
    info = info if info is not None else read_autograder(autograder) if zipfile.is_zipfile(autograder) else {}
    name = info.get("name") or submission.stem
    flags, per_question, public, status = [], {}, "", "error"
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "out").mkdir()
        (tmp / "path").mkdir()
        plugin = _plugin_module(info.get("plugin"), tmp / "path")
        try:
            nb, others = notebook_of(submission)
        except GradingError as err:
            nb, others, log = None, [], str(err)
        if nb is not None:
            copy = tmp / f"{name}.ipynb"  # the assignment's own name, whatever the student called it
            copy.write_text(json.dumps(nb))
            if others:
                flags.append("files besides the notebook (not graded): " + ", ".join(others))
            if plugin is not None:
                flags += plugin.flags(nb, info.get("given", {}))
            progress = tmp / "progress.json"
            env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(tmp / "path"),
                                                                              os.environ.get("PYTHONPATH")])),
                   "ATTNLIB_GRADING_PROGRESS": str(progress)}
            proc = subprocess.Popen(command(autograder, copy, str(tmp / "out")), cwd=tmp, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, text=True, start_new_session=True, env=env)
            try:
                log, _ = proc.communicate(timeout=timeout)
                status = "graded"
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)  # otter and the kernel it started
                log, _ = proc.communicate()
                status = "timeout"
            if status == "timeout":
                if progress.exists():  # stopped: the questions graded before that
                    per_question = read_progress(progress)
            else:
                per_question, public, failed = read_results(tmp / "out" / "results.json", proc.returncode, log,
                                                            info.get("given", {}))
                if failed:
                    status, per_question, public = "error", {}, ""
                    flags.append("grading failed, no score: " + "; ".join(failed))
    given = info.get("given", {})
    share = None
    if nb is not None and info.get("references") is None:
        flags.append(f"no {copying.REFERENCES_FILE} in the autograder zip (built before copying detection): "
                     "copying not checked")
    elif nb is not None:
        found = copying.scores(nb, info["references"])
        share = max((m.score for m in found), default=0.0)
        flags += [str(m) for m in sorted(found, key=lambda m: -m.score) if m.score >= copying.THRESHOLD]
    row = {"submission": submission.name, "status": status, "seconds": round(time.monotonic() - start, 1),
           "total": sum(s for s, _ in per_question.values()) if per_question else "",
           "max": sum(m for _, m in per_question.values()) if status == "graded" else "",
           "flags": "; ".join(flags), "similarity": "" if share is None else share}
    row.update({q: round(s, 5) for q, (s, _) in sorted(per_question.items())})
    row.update({written_column(q): "" for q in given.get("questions", []) if q.get("manual")})
    row["log"], row["public_output"] = log, public
    return row


def read_progress(path: Path) -> dict:
    """Question -> (score, max) from the plugin's progress file (a timeout's questions graded before the stop)."""
    try:
        return {q: (float(s), float(m)) for q, (s, m) in json.loads(path.read_text()).items()}
    except (ValueError, TypeError, AttributeError, OSError):
        return {}


def read_results(results: Path, returncode: int, log: str, given: dict) -> tuple[dict, str, list[str]]:
    """The scores and public-test output of a finished otter run, and why it cannot be trusted (if it cannot)."""
    failed, per_question, public = [], {}, ""
    if returncode != 0:
        failed.append(f"otter exited with status {returncode}")
    if "Traceback (most recent call last)" in log:
        failed.append("a traceback in otter's output")
    try:
        data = json.loads(results.read_text())
        per_question = scores(data)
        public = next((t.get("output", "") for t in data.get("tests", []) if t.get("name") == "Public Tests"), "")
    except FileNotFoundError:
        failed.append("no results.json")
    except (ValueError, TypeError, AttributeError, KeyError, OSError) as err:
        failed.append(f"results.json unreadable ({err})")
    expected = {q["name"] for q in given.get("questions", []) if not q.get("manual")}
    missing = sorted(expected - set(per_question))
    if missing and not any(f.startswith(("no results", "results.json")) for f in failed):
        failed.append("results without " + ", ".join(missing))
    if not per_question and not failed:
        failed.append("no question graded")
    return per_question, public, failed


def written_column(question: dict) -> str:
    return f"{question['name']} (written /{question['points']:g})"


def columns(rows: list[dict], questions: list[dict] | None = None) -> list[str]:
    fixed = ["submission", "status", "seconds", "total", "max"]
    if questions:
        names = [written_column(q) if q.get("manual") else q["name"] for q in questions]
    else:
        names = sorted({k for r in rows for k in r} - set(fixed) - {"flags", "similarity", "log", "public_output"},
                       key=lambda q: (len(q), q))
    return [*fixed, *names, "flags", "similarity"]


def to_csv(rows: list[dict], questions: list[dict] | None = None) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, columns(rows, questions), extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def flag_shared(rows: list[dict], submissions: list[Path], references: dict | None) -> None:
    """Flag, on both rows, each pair of submissions whose answers to a question share at least the threshold.
    Without references (an old zip, flagged on every row) nothing is compared: the code every student
    receives, which they store, is not known, and every pair would share it."""
    if references is None:
        return
    notebooks = {}
    for sub in submissions:
        try:
            notebooks[sub.name] = notebook_of(sub)[0]
        except GradingError:
            continue
    by_name = {row["submission"]: row for row in rows}
    for a, b, question, share in copying.pairwise(notebooks, references):
        for one, other in ((a, b), (b, a)):
            row = by_name[one]
            row["flags"] = "; ".join(filter(None, [row["flags"], f"shares {share:.2f} of {question} with {other}"]))


def grade_folder(autograder: Path, folder: Path, *, timeout: float = 300, csv_path: Path | None = None,
                 jobs: int = 1) -> list[dict]:
    """Grade every submission in ``folder`` (sorted by name); write the CSV if ``csv_path`` is given."""
    info = read_autograder(Path(autograder))
    submissions = sorted(p for p in Path(folder).iterdir() if p.suffix in SUFFIXES)
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        rows = list(pool.map(lambda sub: grade_one(Path(autograder), sub, timeout, info=info), submissions))
    flag_shared(rows, submissions, info.get("references"))
    if csv_path is not None:
        Path(csv_path).write_text(to_csv(rows, info["given"].get("questions")))
    return rows


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("autograder", type=Path, help="the autograder zip written by otter assign")
    parser.add_argument("submissions", type=Path, help="a folder of submissions (.ipynb or .zip)")
    parser.add_argument("--timeout", type=float, default=300, help="seconds per submission (default 300)")
    parser.add_argument("--csv", type=Path, default=None, help="where to write the CSV (default: "
                                                                 "<submissions>/scores.csv)")
    parser.add_argument("--jobs", type=int, default=1, help="submissions graded at once (default 1)")
    args = parser.parse_args(argv)
    if not args.autograder.is_file() or not zipfile.is_zipfile(args.autograder):
        print(f"expected the autograder zip written by otter assign; got {args.autograder}")
        return 2
    if not args.submissions.is_dir():
        print(f"expected a folder of submissions; got {args.submissions}")
        return 2
    if args.timeout <= 0 or args.jobs < 1:
        print(f"--timeout must be positive and --jobs at least 1; got {args.timeout:g} and {args.jobs}")
        return 2
    csv_path = args.csv or args.submissions / "scores.csv"
    try:
        rows = grade_folder(args.autograder, args.submissions, timeout=args.timeout, csv_path=csv_path,
                            jobs=args.jobs)
    except GradingError as err:
        print(err)
        return 2
    if not rows:
        print(f"no submissions (.ipynb or .zip) in {args.submissions}")
        return 2
    print(csv_path.read_text(), end="")
    print(f"{len(rows)} submissions: {sum(r['status'] == 'graded' for r in rows)} graded, "
          f"{sum(r['status'] == 'timeout' for r in rows)} stopped at {args.timeout:g} s, "
          f"{sum(r['status'] == 'error' for r in rows)} with errors, {sum(bool(r['flags']) for r in rows)} "
          f"flagged (read those); CSV in {csv_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
