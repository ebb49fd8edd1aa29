"""The chapters as a Binder reader meets them: JupyterLab with jupyterlab-myst, in a real browser.

Binder builds its image from ``binder/`` alone. This test starts JupyterLab from such an
environment (``BINDER_PYTHON``, the ``python`` of a venv made from ``binder/requirements.txt``;
``.ci/run`` makes one) on localhost, over a copy of ``book/`` and the benchmark results (a
running notebook autosaves, and the committed chapters must not change), and opens two chapters
in Chromium with every request to another host blocked. For each it checks that

- every markdown cell rendered, with no raw MyST left in it: no directive fence (`````{``,
  ``:::{``), no directive option line (``:label:``, ``:class:``, ...), no role syntax, and no
  directive that jupyterlab-myst does not know ("Unknown Directive");
- every proof directive (``prf:``) became a proof box, every exercise and solution an exercise
  box, and every admonition an admonition box, as many as the chapter's markdown has;
- every cross-reference left unresolved points outside the chapter's markdown (a statement of
  another chapter, a figure named in a code cell's metadata, which only myst-nb reads) or is a
  citation.

Every chapter's source is checked, without a browser, for inline roles that are neither rendered
by jupyterlab-myst (``LAB_ROLES``) nor left to the book build (``BUILD_ONLY_ROLES``, each with its
reason; JupyterLab shows their target's name). In chapter 1 the test then runs the cells above the
first widget and the widget's cell in the live kernel, and moves the widget's slider from the
keyboard: the figure must change.

Without ``BINDER_PYTHON`` the test is skipped, except under ``BOOK_HTML_TESTS=required``.
Screenshots: ``_build/screenshots/binder/``.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
from _browser import SHOTS, Visit
from _site import ROOT, skip_or_fail
from test_book_browser_widgets import CONTROLS, figure_key, move

CHAPTERS = ["book/ch05_certificate.ipynb", "book/ch01_attention.ipynb"]
WIDGET_CHAPTER = "book/ch01_attention.ipynb"
#: Roles that jupyterlab-myst renders in JupyterLab (checked on the chapters by this test).
LAB_ROLES = {"cite", "cite:t", "cite:p", "prf:ref", "numref", "ref", "doc", "math", "eq", "sub", "sup", "term", "index"}
#: Roles that only the book build can resolve; JupyterLab shows their target's name instead.
BUILD_ONLY_ROLES = {
    "glue:text": "the value is glued by myst-nb during the book build; JupyterLab shows its key, and the "
                 "cell above prints the value",
}
ADMONITIONS = ("note", "tip", "hint", "important", "warning", "caution", "attention", "danger", "error",
               "seealso", "admonition")
RAW = [
    (re.compile(r"(`{3,}|:{3,})\s*\{"), "a directive fence"),
    (re.compile(r"(?m)^\s*:(label|class|source|no-witness|name|nonumber|open|width|align):"), "a directive option"),
    (re.compile(r"\{[a-z][\w:-]*\}`"), "role syntax"),
    (re.compile(r"Unknown Directive|Unknown Role", re.I), "a directive jupyterlab-myst does not know"),
]
SHOTS_DIR = SHOTS / "binder"


def markdown(path: Path) -> str:
    cells = json.loads(path.read_text())["cells"]
    return "\n\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")


def labels_of_the_book() -> set[str]:
    """Every label a cross-reference may name: directive labels, targets, figure names, citation keys."""
    labels = set()
    for path in [*(ROOT / "book").glob("*.ipynb"), *(ROOT / "book").glob("*.md")]:
        text = path.read_text()
        labels |= set(re.findall(r":label:\s*([\w.-]+)", text))
        labels |= set(re.findall(r"\(([\w.-]+)\)=", text))
        labels |= set(re.findall(r'"name":\s*"(fig-[\w.-]+)"', text))
    labels |= set(re.findall(r"@\w+\{([^,\s]+),", (ROOT / "book" / "references.bib").read_text()))
    return labels


def expected_boxes(text: str) -> dict[str, int]:
    """How many boxes of each kind the chapter's markdown asks for."""
    fences = re.findall(r"(?m)^\s*(?:`{3,}|:{3,})\s*\{([\w:-]+)\}", text)
    return {"proof": sum(f.startswith("prf:") for f in fences),
            # a gated solution renders its start and its end as boxes of their own
            "exercise": sum(f in ("exercise", "solution", "solution-start", "solution-end") for f in fences),
            "admonition": sum(f in ADMONITIONS for f in fences)}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab from the Binder environment over a copy of the book; yields (base URL, token)."""
    python = os.environ.get("BINDER_PYTHON")
    if not python or not Path(python).exists():
        skip_or_fail("no Binder environment: make a venv from binder/requirements.txt alone and set "
                     "BINDER_PYTHON to its python (.ci/run does)")
    home = tmp_path_factory.mktemp("binder-lab")
    root = home / "repository"
    shutil.copytree(ROOT / "book", root / "book", ignore=shutil.ignore_patterns("_ext", ".ipynb_checkpoints"))
    shutil.copytree(ROOT / "benchmarks" / "results", root / "benchmarks" / "results")
    settings = home / "config" / "lab" / "user-settings" / "@jupyterlab"
    # render every cell (JupyterLab 4 otherwise draws only the cells in view), and no news pop-up
    (settings / "notebook-extension").mkdir(parents=True)
    (settings / "notebook-extension" / "tracker.jupyterlab-settings").write_text('{"windowingMode": "none"}')
    (settings / "apputils-extension").mkdir(parents=True)
    (settings / "apputils-extension" / "notification.jupyterlab-settings").write_text(
        '{"fetchNews": "false", "checkForUpdates": false}')
    port, token = free_port(), secrets.token_hex(16)
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(home / "config"), "JUPYTER_DATA_DIR": str(home / "data"),
           "JUPYTER_RUNTIME_DIR": str(home / "runtime"), "IPYTHONDIR": str(home / "ipython")}
    env.pop("MPLBACKEND", None)  # the reader's kernel draws with the inline backend
    log = (home / "lab.log").open("w")
    server = subprocess.Popen(
        [python, "-m", "jupyterlab", "--no-browser", "--allow-root", "--ip=127.0.0.1", f"--port={port}",
         f"--ServerApp.root_dir={root}", f"--IdentityProvider.token={token}", "--LabApp.news_url=None",
         "--LabApp.extension_manager=readonly"],
        cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(240):
            try:
                with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2):
                    break
            except OSError:
                if server.poll() is not None:
                    break
                time.sleep(0.5)
        else:
            pytest.fail("JupyterLab did not answer within 120 s")
        if server.poll() is not None:
            pytest.fail(f"JupyterLab stopped: {(home / 'lab.log').read_text()[-3000:]}")
        yield base, token
    finally:
        server.terminate()  # the server shuts its kernels down on SIGTERM
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


def open_chapter(browser, lab, chapter: str) -> Visit:  # noqa: F811 (the browser fixture, passed on)
    base, token = lab
    visit = Visit(browser, f"{base}/lab/tree/{chapter}?reset&token={token}")
    n_markdown = sum(c["cell_type"] == "markdown" for c in json.loads((ROOT / chapter).read_text())["cells"])
    rendered = ".jp-MarkdownCell .myst, .jp-MarkdownCell .jp-RenderedMarkdown"
    visit.page.wait_for_function(f"() => document.querySelectorAll('{rendered}').length >= {n_markdown}",
                                 timeout=120_000)
    visit.page.wait_for_timeout(2000)  # the last cells' math
    by_myst = visit.page.locator(".jp-MarkdownCell .myst").count()
    assert by_myst == n_markdown, f"jupyterlab-myst rendered {by_myst} of the {n_markdown} markdown cells"
    return visit


RENDERED = r"""() => [...document.querySelectorAll('.jp-MarkdownCell .myst')].map(cell => {
  const copy = cell.cloneNode(true);
  copy.querySelectorAll('.katex, .MathJax, mjx-container').forEach(m => m.remove());  // TeX source of math
  return copy.innerText;
})"""
UNRESOLVED = r"""() => [...document.querySelectorAll('.jp-MarkdownCell [title="Cross Reference Not Found"]')]
  .map(e => e.textContent.trim())"""  # textContent: a reference in a folded dropdown has no innerText
BOXES = r"""() => ({
  proof: document.querySelectorAll('.jp-MarkdownCell .myst-proof').length,
  exercise: document.querySelectorAll('.jp-MarkdownCell .myst-exercise').length,
  admonition: document.querySelectorAll('.jp-MarkdownCell .myst-admonition').length,
})"""


@pytest.mark.parametrize("chapter", sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "book").glob("ch*.ipynb")))
def test_every_chapter_uses_roles_jupyterlab_renders_or_the_build_alone_resolves(chapter):
    """Checked on the sources of every chapter, without a browser: a new role needs a decision here."""
    roles = set(re.findall(r"\{([a-z][\w:-]*)\}`", markdown(ROOT / chapter)))
    unknown = roles - LAB_ROLES - set(BUILD_ONLY_ROLES)
    assert not unknown, f"{chapter} uses roles this test has not classified: {sorted(unknown)}"


@pytest.mark.slow
@pytest.mark.browser
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_chapter_myst_renders_in_jupyterlab(chapter, lab, browser):  # noqa: F811 (fixture)
    text = markdown(ROOT / chapter)
    visit = open_chapter(browser, lab, chapter)
    try:
        page = visit.page
        problems = []
        for i, rendered in enumerate(page.evaluate(RENDERED)):
            for pattern, what in RAW:
                match = pattern.search(rendered)
                if match:
                    at = rendered[max(0, match.start() - 60):match.end() + 60].replace("\n", " ")
                    problems.append(f"markdown cell {i}: {what} left raw: ...{at}...")
        boxes, expected = page.evaluate(BOXES), expected_boxes(text)
        problems += [f"{expected[kind]} {kind} directives, {boxes[kind]} {kind} boxes rendered"
                     for kind in expected if boxes[kind] != expected[kind]]
        here = set(re.findall(r":label:\s*([\w.-]+)", text)) | set(re.findall(r"\(([\w.-]+)\)=", text))
        everywhere = labels_of_the_book()
        for target in page.evaluate(UNRESOLVED):
            if target in here:
                problems.append(f"a reference to {target!r}, defined in this chapter's markdown, did not resolve")
            elif target not in everywhere:
                problems.append(f"a reference to {target!r}, which no page of the book defines")
        SHOTS_DIR.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS_DIR / f"{Path(chapter).stem}.png"))
        problems += [f"console: {e}" for e in visit.errors if "Cross reference target was not found" not in e]
        assert not problems, f"{chapter} in JupyterLab:\n  " + "\n  ".join(problems)
    finally:
        visit.close()


def run_command(page, label: str) -> None:
    """A command of JupyterLab's Run menu, clicked as a reader would."""
    page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(f"^{re.escape(label)}$")).click()


@pytest.mark.slow
@pytest.mark.browser
def test_a_widget_runs_in_the_live_kernel_and_moves(lab, browser):  # noqa: F811 (fixture)
    cells = json.loads((ROOT / WIDGET_CHAPTER).read_text())["cells"]
    index = next(i for i, c in enumerate(cells) if c["cell_type"] == "code" and any(
        "application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in c["outputs"]))
    visit = open_chapter(browser, lab, WIDGET_CHAPTER)
    try:
        page = visit.page
        page.wait_for_function("() => [...document.querySelectorAll('.jp-StatusBar-TextItem')]"
                               ".some(e => e.textContent.includes('Idle'))", timeout=120_000)  # the kernel
        cell = page.locator(".jp-Notebook .jp-Cell").nth(index)
        cell.scroll_into_view_if_needed()
        cell.locator(".jp-InputPrompt").first.click()
        run_command(page, "Run All Above Selected Cell")
        run_command(page, "Run Selected Cell")
        box = cell.locator(".attnlib-frames")
        box.wait_for(timeout=300_000)  # the cells above run first (about a minute on a busy machine)
        box.scroll_into_view_if_needed()
        controls = box.evaluate(CONTROLS)
        assert controls, "the live widget drew no controls"
        before = figure_key(box)
        SHOTS_DIR.mkdir(parents=True, exist_ok=True)
        box.screenshot(path=str(SHOTS_DIR / "widget-before.png"))
        move(page, box.locator(".widget-slider, .widget-toggle-buttons, .widget-dropdown").first,
             controls[0]["kind"])
        for _ in range(50):
            page.wait_for_timeout(100)
            if figure_key(box) != before:
                break
        box.screenshot(path=str(SHOTS_DIR / "widget-after.png"))
        assert figure_key(box) != before, f"moving {controls[0]['name']!r} did not change the figure"
        errors = [e for e in cell.locator(".jp-OutputArea-output[data-mime-type*='stderr'], "
                                          ".jp-RenderedText[data-mime-type='application/vnd.jupyter.error']")
                  .all_inner_texts() if e.strip()]
        assert not errors, f"the cell wrote errors: {errors[:3]}"
    finally:
        visit.close()
