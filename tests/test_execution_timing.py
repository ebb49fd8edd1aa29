"""Timing of notebook execution and the per-cell budget (book/_ext/execution_timing.py).

The report is checked against hand-computed values; the budget and the timing record
against a real kernel on tiny notebooks; the fix of the ~300 s stall (a shell reply that
a single long poll never notices, jupyter/nbclient#312) against a fake socket that never
wakes a pending poll, and against a real Output widget, which stalled most runs before it.
"""

import asyncio
import datetime as dt
import importlib.util
import json
import subprocess
import sys
import time
from pathlib import Path
from queue import Empty

import nbformat
import pytest
import yaml
from jupyter_cache.cache.main import JupyterCacheBase
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "_ext"))
import execution_timing as et  # noqa: E402


def load_script(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def notebook(*sources, markdown_first=True):
    cells = ([new_markdown_cell("# A chapter")] if markdown_first else []) + [new_code_cell(s) for s in sources]
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


# ---------------------------------------------------------------- the report, by hand


RECORDS = [
    {"notebook": "book/ch01_a.ipynb", "source": "executed", "executed": "2026-12-03T08:00:00Z", "total": 10.0,
     "kernel_start": 1.25, "kernel_info": 0.25, "cells_total": 7.5, "shutdown": 0.5, "cell_budget": 120,
     "error": None, "cells": [
         {"index": 1, "count": 1, "seconds": 0.5, "queued": 0.0, "kernel": 0.5, "finished": True, "stranded": 0.0,
          "first_line": "import numpy as np"},
         {"index": 3, "count": 2, "seconds": 7.0, "queued": 0.01, "kernel": 1.5, "finished": True,
          "stranded": 5.25, "first_line": "explorer(rng=rng)"}]},
    {"notebook": "book/ch02_b.ipynb", "source": "cached", "executed": "2026-12-02T07:00:00Z", "total": 4.0,
     "kernel_start": 1.0, "kernel_info": 0.0, "cells_total": 2.5, "shutdown": 0.25, "cell_budget": 120,
     "error": None, "cells": [
         {"index": 2, "count": 1, "seconds": 2.5, "queued": 0.0, "kernel": 2.5, "finished": True, "stranded": 0.0,
          "first_line": "fit = train(X, Y)"}]},
]


def test_report_has_every_phase_and_the_slow_cells_slowest_first():
    text = et.format_report(RECORDS)
    lines = text.splitlines()
    ch1 = next(line for line in lines if line.startswith("book/ch01_a.ipynb"))
    # other = 10 - (1.25 + 0.25 + 7.5 + 0.5) = 0.5
    assert ch1.split() == ["book/ch01_a.ipynb", "executed", "10.00", "1.25", "0.25", "7.50", "0.50", "0.50",
                           "2026-12-03T08:00:00Z"]
    ch2 = next(line for line in lines if line.startswith("book/ch02_b.ipynb"))
    assert ch2.split()[1:8] == ["cached", "4.00", "1.00", "0.00", "2.50", "0.25", "0.25"]
    slow = [line for line in lines if " cell " in line]
    # cells of 1 s or more, slowest first; the 0.5 s import is left out; cells numbered from 1
    assert len(slow) == 2
    assert "book/ch01_a.ipynb" in slow[0] and "cell   4" in slow[0] and "7.00 s" in slow[0]
    assert "[reply found 5.2 s late in the socket]" in slow[0]
    assert "book/ch02_b.ipynb" in slow[1] and "2.50 s" in slow[1] and "fit = train(X, Y)" in slow[1]
    assert "Per-cell budget: 120 s" in text


def test_report_names_a_failed_chapter_and_its_unfinished_cell():
    failed = {**RECORDS[1], "source": "executed", "error": "book/ch02_b.ipynb: cell 3 (In [1]: `x`) ran past ...",
              "cells": [{**RECORDS[1]["cells"][0], "seconds": 0.25, "finished": False}]}
    text = et.format_report([failed])
    assert "  FAILED: book/ch02_b.ipynb: cell 3 (In [1]: `x`) ran past ..." in text
    assert "[did not finish]" in text  # listed although faster than the slow-cell threshold


def test_slowest_cells_are_ordered_and_counted():
    lines = et.format_slowest(RECORDS, 2).splitlines()
    assert len(lines) == 3
    assert "7.00 s" in lines[1] and "2.50 s" in lines[2]
    assert "(no cell timing recorded)" in et.format_slowest([], 5)


def test_kernel_times_from_record_timing_stamps():
    sent = et._epoch("2026-12-03T08:00:00.000000Z")
    stamps = {"iopub.status.busy": "2026-12-03T08:00:00.250000Z",
              "iopub.execute_input": "2026-12-03T08:00:00.300000Z",
              "shell.execute_reply": "2026-12-03T08:00:02.050000Z",
              "iopub.status.idle": "2026-12-03T08:00:02.060000Z"}
    assert et.kernel_times(stamps, sent) == {"queued": 0.25, "kernel": 1.75}
    # a request the kernel never picked up has no busy stamp
    assert et.kernel_times({}, sent) == {"queued": None, "kernel": None}


def test_execution_times_script_prints_the_slowest_and_fails_over_the_limit(tmp_path, capsys):
    script = load_script("execution_times")
    path = tmp_path / "execution_times.json"
    path.write_text(json.dumps(RECORDS))
    assert script.main([str(path), "--slowest", "1"]) == 0
    out = capsys.readouterr().out
    assert "7.00 s" in out and "2.50 s" not in out
    # only chapters executed by the build count: ch02 came from the cache
    assert script.main([str(path), "--max-chapter", "3"]) == 1
    assert capsys.readouterr().err.strip() == "book/ch01_a.ipynb took 10.0 s, over 3 s"
    assert script.main([str(tmp_path / "missing.json")]) == 2


# ---------------------------------------------------------------- the fix: polling in slices


class NeverWokenSocket:
    """A shell channel whose pending poll is never woken by an arriving message: only the
    poll's own last check, at its timeout, sees it (what pyzmq does in jupyter/nbclient#312)."""

    def __init__(self, delay):
        self.arrival = time.monotonic() + delay
        self.msg = {"msg_type": "execute_reply",
                    "header": {"date": dt.datetime.fromtimestamp(time.time() + delay, dt.UTC)}}

    async def get_msg(self, timeout=None):
        if time.monotonic() < self.arrival:
            await asyncio.sleep(3600 if timeout is None else timeout)
        if time.monotonic() >= self.arrival:
            return self.msg
        raise Empty


def timed(coroutine):
    start = time.monotonic()
    result = asyncio.run(coroutine)
    return result, time.monotonic() - start


def test_a_single_poll_waits_out_its_timeout_for_a_reply_it_missed():
    # the bug, in the fake: the reply arrives after 0.05 s and is seen after the whole 1 s
    msg, seconds = timed(NeverWokenSocket(0.05).get_msg(timeout=1.0))
    assert msg["msg_type"] == "execute_reply" and seconds >= 1.0


def test_polling_in_slices_finds_the_missed_reply_within_a_slice():
    late = []
    get_msg = et.poll_in_slices(NeverWokenSocket(0.05).get_msg, step=0.3, on_stranded=late.append)
    msg, seconds = timed(get_msg(timeout=30))
    assert msg["msg_type"] == "execute_reply"
    assert 0.25 <= seconds < 1.0
    # it sat for the rest of the first slice, 0.3 - 0.05 s, and was reported so
    assert len(late) == 1 and 0.15 <= late[0] <= 0.6


def test_polling_in_slices_keeps_the_timeout_semantics():
    get_msg = et.poll_in_slices(NeverWokenSocket(3600).get_msg, step=0.1)
    start = time.monotonic()
    with pytest.raises(Empty):
        asyncio.run(get_msg(timeout=0.35))
    assert 0.3 <= time.monotonic() - start < 0.8
    # no timeout: wait as long as it takes, never Empty
    msg, seconds = timed(et.poll_in_slices(NeverWokenSocket(0.4).get_msg, step=0.1)(timeout=None))
    assert msg["msg_type"] == "execute_reply" and seconds < 1.0


def test_a_reply_behind_output_widget_messages_is_not_waited_out():
    # Regression for the stall: an Output widget receiving many outputs makes nbclient send
    # comm_msg updates on the shell socket while it polls it for the execute_reply. With a
    # single long poll, plain nbclient 0.11 waited out the whole timeout in 4 runs of 6 on
    # the 2-core test machine; polling in slices never did.
    source = ("import ipywidgets as w\nfrom IPython.display import display\nout = w.Output()\ndisplay(out)\n"
              "for i in range(200):\n    with out:\n        print(i)")
    for _ in range(3):
        nb = notebook(source)
        et.TimedNotebookClient(nb, timeout=30, cell_budget=None, kernel_name="python3").execute()
        (cell,) = nb.metadata[et.METADATA_KEY]["cells"]
        assert cell["seconds"] < 10, cell


# ---------------------------------------------------------------- a real kernel


def test_timing_record_of_a_run_and_the_cache_still_matches(tmp_path):
    nb = notebook("import time\ntime.sleep(0.6)", "print(6 * 7)")
    source = nbformat.from_dict(json.loads(nbformat.writes(nb)))
    et.TimedNotebookClient(nb, label="tiny.ipynb", timeout=60, kernel_name="python3").execute()
    record = nb.metadata[et.METADATA_KEY]
    assert record["notebook"] == "tiny.ipynb" and record["error"] is None
    sleep, answer = record["cells"]
    assert (sleep["index"], sleep["count"], answer["index"], answer["count"]) == (1, 1, 2, 2)
    assert sleep["first_line"] == "import time" and sleep["finished"]
    assert 0.6 <= sleep["seconds"] < 5 and 0.55 <= sleep["kernel"] <= sleep["seconds"] + 0.05
    assert 0 <= sleep["queued"] < 1
    assert record["cells_total"] == pytest.approx(sleep["seconds"] + answer["seconds"], abs=1e-3)
    phases = record["kernel_start"] + record["kernel_info"] + record["cells_total"] + record["shutdown"]
    # each of the five numbers is rounded to the millisecond: their sum may exceed the total by 5 half-ms
    assert record["kernel_start"] > 0 and record["shutdown"] > 0 and phases <= record["total"] + 2.5e-3
    assert nb.cells[2].outputs[0]["text"] == "42\n"
    # the kernel's per-cell stamps are gone again: jupyter-cache hashes cell metadata
    assert all("execution" not in cell.metadata for cell in nb.cells)
    cache = JupyterCacheBase(str(tmp_path / "cache"))
    assert cache.create_hashed_notebook(nb)[1] == cache.create_hashed_notebook(source)[1]


def test_a_cell_past_its_budget_fails_naming_the_notebook_and_the_cell():
    nb = notebook("x = 1", "import time\ntime.sleep(30)", "print('never')")
    client = et.TimedNotebookClient(nb, label="book/ch99_tiny.ipynb", cell_budget=2, timeout=300,
                                    kernel_name="python3")
    start = time.monotonic()
    with pytest.raises(et.CellBudgetExceeded, match=r"^book/ch99_tiny\.ipynb: cell 3 \(In \[2\]: `import time`\) "
                       r"ran past its per-cell budget of 2 s; the kernel was still running the cell"):
        client.execute()
    assert time.monotonic() - start < 20  # the budget, not the 300 s timeout, nor the 30 s sleep
    record = nb.metadata[et.METADATA_KEY]
    assert record["error"].startswith("book/ch99_tiny.ipynb: cell 3 (In [2]")
    assert [(c["index"], c["finished"]) for c in record["cells"]] == [(1, True), (2, False)]
    assert 2 <= record["cells"][1]["seconds"] < 10


def test_the_build_executes_through_the_timed_client():
    # install() is what the Sphinx extension runs: if an upgrade of jupyter-cache or myst-nb
    # moved what it patches, the guard and the fix would silently be gone
    import jupyter_cache.executors.utils as executor_utils
    from myst_nb.core.execute.cache import NotebookClientCache
    from myst_nb.core.execute.direct import NotebookClientDirect

    et.install()
    et.install()  # idempotent: no wrapper around a wrapper
    assert executor_utils.executenb is et.execute
    for cls in (NotebookClientCache, NotebookClientDirect):
        assert cls.start_client._execution_timing
        assert not getattr(cls.start_client.__wrapped__, "_execution_timing", False)


def test_budget_must_be_at_least_a_second():
    # nbclient's timeout is whole seconds and 0 means none: a 0.5 s budget would be no budget at all
    for bad in (-1, 0, 0.5):
        with pytest.raises(ValueError, match=rf"cell_budget must be at least 1 \(seconds\) or None, got {bad}"):
            et.TimedNotebookClient(notebook("1"), cell_budget=bad)
    assert et.TimedNotebookClient(notebook("1"), cell_budget=None, timeout=300).timeout == 300
    assert et.TimedNotebookClient(notebook("1"), cell_budget=90.5, timeout=300).timeout == 90
    assert et.TimedNotebookClient(notebook("1"), cell_budget=120, timeout=60).timeout == 60


def test_execute_notebooks_script_applies_the_budget(tmp_path, monkeypatch, capsys):
    script = load_script("execute_notebooks")
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert script.cell_budget() == config["sphinx"]["config"]["execution_cell_budget"]
    good, slow = tmp_path / "good.ipynb", tmp_path / "slow.ipynb"
    nbformat.write(notebook("print(6 * 7)"), good)
    nbformat.write(notebook("import time\ntime.sleep(30)"), slow)
    before = slow.read_bytes()
    monkeypatch.setattr(script, "cell_budget", lambda: 2)
    assert script.main([str(good), str(slow)]) == 1
    captured = capsys.readouterr()
    assert "good.ipynb: executed in" in captured.out
    assert f"FAILED: {slow}: cell 2 (In [1]: `import time`) ran past its per-cell budget of 2 s" in captured.err
    assert slow.read_bytes() == before  # a failed run saves nothing
    saved = nbformat.read(good, as_version=4)
    assert saved.cells[1].outputs[0]["text"] == "42\n"
    assert et.METADATA_KEY not in saved.metadata and "execution" not in saved.cells[1].metadata


# ---------------------------------------------------------------- the book build


@pytest.mark.slow
def test_build_writes_the_timing_file_and_fails_on_the_budget(tmp_path):
    book = tmp_path / "book"
    book.mkdir()
    nbformat.write(notebook("import time\ntime.sleep(1.5)", "print('done')"), book / "one.ipynb")
    (book / "intro.md").write_text("# Tiny\n")
    (book / "_toc.yml").write_text("format: jb-book\nroot: intro\nchapters:\n- file: one\n")
    config = ("title: tiny\nexecute:\n  execute_notebooks: cache\n  timeout: 300\nsphinx:\n  local_extensions:\n"
              f"    execution_timing: {ROOT / 'book' / '_ext'}\n  config:\n    nb_execution_raise_on_error: true\n"
              "    execution_cell_budget: {budget}\n")
    jupyter_book = str(Path(sys.executable).parent / "jupyter-book")

    (book / "_config.yml").write_text(config.format(budget=60))
    subprocess.run([jupyter_book, "build", str(book)], check=True, capture_output=True)
    text = (book / "_build" / "execution_times.txt").read_text()
    row = next(line for line in text.splitlines() if line.startswith("one.ipynb"))
    assert row.split()[1] == "executed" and float(row.split()[2]) >= 1.5
    assert "Per-cell budget: 60 s" in text and "cell   2  In [  1]" in text
    records = json.loads((book / "_build" / "execution_times.json").read_text())
    assert [r["notebook"] for r in records] == ["one.ipynb"]

    # the same notebook served from the jupyter cache keeps the times of the run that filled it
    for stale in ("html", ".doctrees"):
        subprocess.run(["rm", "-rf", str(book / "_build" / stale)], check=True)
    subprocess.run([jupyter_book, "build", str(book)], check=True, capture_output=True)
    (cached,) = json.loads((book / "_build" / "execution_times.json").read_text())
    assert cached["source"] == "cached" and cached["total"] == records[0]["total"]

    subprocess.run(["rm", "-rf", str(book / "_build")], check=True)
    (book / "_config.yml").write_text(config.format(budget=1))
    result = subprocess.run([jupyter_book, "build", str(book)], capture_output=True, text=True)
    assert result.returncode != 0
    message = "one.ipynb: cell 2 (In [1]: `import time`) ran past its per-cell budget of 1 s"
    assert message in result.stdout + result.stderr
    assert f"FAILED: {message}" in (book / "_build" / "execution_times.txt").read_text()
