"""The release's files agree with each other and with what they describe.

- One version: ``pyproject.toml``, the installed metadata (``attnlib.__version__``), the latest
  entry of ``CHANGELOG.md``, ``CITATION.cff`` and the BibTeX blocks of the README and the preface.
- One Python floor: ``requires-python``, the README, ``binder/runtime.txt`` and ruff's target.
- The changelog's tables of moved names: every new path resolves and no old one does.
- ``CITATION.cff`` is valid (cffconvert, when installed: ``.ci/run``'s release step installs it and
  requires this test) and says what the other files say (title, version, date, licences, URLs).
- The book's address is derived from ``repository.url`` as the launch buttons are, and every file
  that states it states the same one.
- The README is a front door (at most 150 lines) whose two commands are the ones ``.ci/run`` runs;
  ``CONTRIBUTING.md`` names every script and every step of ``.ci/run``.
- The dependency floors are what ``scripts/lowest_requirements.py`` installs.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import inspect
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml
from _site import skip_or_fail

import attnlib

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book"))  # bookkit, the book's helpers, is among the changelog's new paths
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text())
CITATION = yaml.safe_load((ROOT / "CITATION.cff").read_text())
README = (ROOT / "README.md").read_text()
CHANGELOG = (ROOT / "CHANGELOG.md").read_text()
CONTRIBUTING = (ROOT / "CONTRIBUTING.md").read_text()
INTRO = (ROOT / "book" / "intro.md").read_text()
CI = (ROOT / ".ci" / "run").read_text()
VERSION = PYPROJECT["project"]["version"]


def book_url() -> str:
    """``https://<owner>.github.io/<name>/`` from ``repository.url``, as GitHub Pages serves it."""
    owner, name = re.fullmatch(r"https://github\.com/([\w.-]+)/([\w.-]+)", CONFIG["repository"]["url"]).groups()
    return f"https://{owner.lower()}.github.io/{name}/"


def bibtex(text: str) -> str:
    blocks = re.findall(r"```bibtex\n(.*?)```", text, re.S)
    assert len(blocks) == 1, "one BibTeX block"
    return blocks[0]


def releases() -> list[tuple[str, str]]:
    """``(version, date)`` of every released entry of the changelog, newest first."""
    return re.findall(r"(?m)^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$", CHANGELOG)


# --------------------------------------------------------------------------- one version


def test_the_version_is_one_across_the_release_files():
    assert attnlib.__version__ == importlib.metadata.version("attnlib") == VERSION, (
        "attnlib.__version__ is read from the installed metadata: reinstall (pip install -e .) after changing "
        "pyproject.toml's version")
    assert releases()[0][0] == VERSION, "the changelog's latest release is pyproject.toml's version"
    assert str(CITATION["version"]) == VERSION
    assert str(CITATION["date-released"]) == releases()[0][1], "CITATION.cff's date is the release's"
    for where, text in (("README.md", README), ("book/intro.md", INTRO)):
        assert f"note         = {{Version {VERSION}}}" in bibtex(text), where


def test_the_changelog_keeps_a_changelog():
    assert CHANGELOG.startswith("# Changelog\n")
    assert "## [Unreleased]" in CHANGELOG
    versions = [v for v, _ in releases()]
    assert versions == sorted(versions, key=lambda v: tuple(map(int, v.split("."))), reverse=True)
    dates = [d for _, d in releases()]
    assert dates == sorted(dates, reverse=True)
    url = CONFIG["repository"]["url"]
    for version in versions:
        assert f"[{version}]: {url}/releases/tag/v{version}" in CHANGELOG, f"the link of [{version}]"
    assert f"[Unreleased]: {url}/compare/v{versions[0]}...HEAD" in CHANGELOG


# --------------------------------------------------------------------------- moved names


def resolve(path: str):
    """The object at a dotted path: the longest importable module, then attributes. Raises if none."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        module = ".".join(parts[:cut])
        try:
            obj = importlib.import_module(module)
        except ModuleNotFoundError:
            continue
        for attribute in parts[cut:]:
            obj = getattr(obj, attribute)  # AttributeError: the name is not there
        return obj
    raise ModuleNotFoundError(path)


def moved() -> list[tuple[str, str]]:
    """The rows of the changelog's tables of moved and renamed names (`old` | `new`)."""
    rows = re.findall(r"(?m)^\| `([\w.]+(?:\(\w+=\))?)` \| (`[^|]+`) \|$", CHANGELOG)
    return [(old, new) for old, news in rows for new in re.findall(r"`([\w.]+(?:\(\w+=\))?)`", news)]


def test_the_changelog_lists_the_names_that_moved():
    rows = moved()
    assert len(rows) >= 30
    assert ("attnlib.viz_rkhs", "attnlib.viz.rkhs") in rows
    assert ("attnlib.sculpt.sculpt", "attnlib.sculpt.carve") in rows


@pytest.mark.parametrize(("old", "new"), moved())
def test_a_moved_name_is_at_its_new_path_only(old, new):
    keyword = re.fullmatch(r"([\w.]+)\((\w+)=\)", new)
    if keyword:  # a renamed keyword of a function that stayed
        function, name = keyword.groups()
        old_name = re.fullmatch(r"[\w.]+\((\w+)=\)", old).group(1)
        parameters = inspect.signature(resolve(function)).parameters
        assert name in parameters and old_name not in parameters
        return
    assert resolve(new) is not None
    with pytest.raises((ImportError, AttributeError)):
        resolve(old)


def test_no_deprecation_layer_remains():
    assert importlib.util.find_spec("attnlib._deprecated") is None
    sources = "\n".join(p.read_text() for p in (ROOT / "attnlib").rglob("*.py"))
    assert "moved_names" not in sources and "renamed_keyword" not in sources


# --------------------------------------------------------------------------- citation, licences, URLs


def test_citation_cff_is_valid():
    command = os.environ.get("CFFCONVERT") or (
        str(Path(sys.executable).parent / "cffconvert") if (Path(sys.executable).parent / "cffconvert").exists()
        else None)
    if command is None:
        skip_or_fail("cffconvert is not installed here (it pins jsonschema < 4, which the book's tools cannot use); "
                     ".ci/run's release step installs it in its own venv and sets CFFCONVERT")
    done = subprocess.run([command, "--validate", "--infile", str(ROOT / "CITATION.cff")], capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_citation_says_what_the_other_files_say():
    assert CITATION["cff-version"] == "1.2.0"
    assert CITATION["license"] == ["MIT", "CC-BY-4.0"]
    assert CITATION["repository-code"] == CONFIG["repository"]["url"]
    assert CITATION["url"] == book_url()
    assert [a["name"] for a in CITATION["authors"]] == [a["name"] for a in PYPROJECT["project"]["authors"]]
    assert CITATION["authors"][0]["name"] == CONFIG["author"]
    for text in (bibtex(README), bibtex(INTRO)):
        assert f"title        = {{{CITATION['title']}}}" in text
        assert f"year         = {{{str(CITATION['date-released'])[:4]}}}" in text
    assert bibtex(README) == bibtex(INTRO), "the README and the preface give the same BibTeX"


def test_every_address_is_derived_from_repository_url():
    url, book = CONFIG["repository"]["url"], book_url()
    assert f"**Read the book: <{book}>**" in README
    urls = PYPROJECT["project"]["urls"]
    assert urls["Book"] == book and urls["Source"] == url and urls["Issues"] == f"{url}/issues"
    assert urls["Changelog"] == f"{url}/blob/{CONFIG['repository']['branch']}/CHANGELOG.md"
    for where, text in (("README.md", README), ("book/intro.md", INTRO), ("README.pypi.md",
                                                                           (ROOT / "README.pypi.md").read_text())):
        found = set(re.findall(r"https://[\w.-]+\.github\.io/[\w.-]+/?|https://github\.com/[\w.-]+/[\w.-]+", text))
        assert found <= {book, url}, f"{where} names another address: {sorted(found - {book, url})}"


def test_licences_are_stated_and_shipped():
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    assert "Attribution 4.0 International Public License" in (ROOT / "LICENSE-BOOK").read_text()
    assert PYPROJECT["project"]["license"] == "MIT" and PYPROJECT["project"]["license-files"] == ["LICENSE"]
    for where, text in (("README.md", README), ("book/intro.md", INTRO)):
        assert "CC BY 4.0" in text and "MIT" in text and "LICENSE-BOOK" in text, where


# --------------------------------------------------------------------------- Python, floors, commands


def test_one_python_floor():
    floor = re.fullmatch(r">=(\d+\.\d+)", PYPROJECT["project"]["requires-python"]).group(1)
    assert (ROOT / "binder" / "runtime.txt").read_text().strip() == f"python-{floor}"
    assert f"Python {floor} or newer" in README and f"Python {floor} or newer" in INTRO
    assert PYPROJECT["tool"]["ruff"]["target-version"] == f"py{floor.replace('.', '')}"
    assert f"Programming Language :: Python :: {floor}" in PYPROJECT["project"]["classifiers"]
    assert sys.version_info[:2] >= tuple(map(int, floor.split(".")))


def _lowest():
    spec = importlib.util.spec_from_file_location("lowest_requirements", ROOT / "scripts" / "lowest_requirements.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_dependency_has_the_floor_ci_installs():
    lowest = _lowest()
    pins = lowest.lowest(PYPROJECT, ["viz"])
    deps = [*PYPROJECT["project"]["dependencies"], *PYPROJECT["project"]["optional-dependencies"]["viz"]]
    assert len(pins) == len(deps)
    for pin, dep in zip(pins, deps, strict=True):
        name, version = pin.split("==")
        assert dep.replace(" ", "") == f"{name}>={version}"
    broken = {"project": {"dependencies": ["numpy"], "optional-dependencies": {}}}
    with pytest.raises(ValueError, match="'numpy' in pyproject.toml has no floor"):
        lowest.lowest(broken, [])
    with pytest.raises(ValueError, match="extras must be among"):
        lowest.lowest(PYPROJECT, ["nothing"])


def test_the_readme_commands_are_the_ones_ci_runs():
    commands = re.findall(r"```bash\n(.*?)```", README, re.S)[0].strip().splitlines()
    assert commands == ["python -m pip install -r requirements.txt && jupyter-book build .",
                        "python -m pip install -r requirements.txt && python -m pytest"]
    assert f"step \"README test command\" bash -c '{commands[1]}'" in CI
    assert 'step "strict book build" book_build' in CI
    assert re.search(r"^book_build\(\) \{\n  jupyter-book build \. -W -n --keep-going ", CI, re.M), \
        ".ci/run's book build is the README's, made strict"
    assert "```bash\n" + "\n".join(commands) + "\n```" in INTRO.replace("   ", "")


def test_the_readme_is_a_front_door():
    lines = README.splitlines()
    assert len(lines) <= 150, f"README.md has {len(lines)} lines; developer material belongs in CONTRIBUTING.md"
    example = re.findall(r"```python\n(.*?)```", README, re.S)
    assert len(example) == 1 and 8 <= example[0].count(">>> ") <= 12, "one doctested example of about ten lines"
    for heading in ("## Use `attnlib` in your own code", "## How to cite", "## Licences", "## Read more"):
        assert heading in README


def test_contributing_names_every_script_and_every_ci_step():
    scripts = sorted(p.name for p in (ROOT / "scripts").iterdir() if p.suffix in (".py", ".sh"))
    missing = [s for s in scripts if s not in CONTRIBUTING]
    assert not missing, f"CONTRIBUTING.md does not describe {missing}"
    names = dict(re.findall(r'^(\w+)="([^"]+)"$', CI, re.M))
    steps = re.findall(r'^\s*(?:step|start_beside) "([^"$]+)"', CI, re.M)
    steps += [names[variable] for variable in re.findall(r'^\s*(?:step|start_beside) "\$(\w+)"', CI, re.M)]
    assert len(steps) >= 20
    missing = [s for s in steps if f"| `{s}` |" not in CONTRIBUTING]
    assert not missing, f"CONTRIBUTING.md's table of .ci/run leaves out {missing}"


# --------------------------------------------------------------------------- the pinned release


def _git(*args: str) -> str | None:
    done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else None


def _pins() -> dict[str, list[tuple[str, str]]]:
    """Where attnlib is installed, or the book's helpers downloaded, from the repository: file -> [(url, ref)].

    A chapter's install cell does both on Colab: ``%pip install "attnlib[viz] @ git+<url>@<ref>"`` and
    ``!curl -sSfO <raw url>/<ref>/book/bookkit.py`` (the book's own helpers, not part of attnlib).
    """
    pin = re.compile(r'git\+(https://github\.com/[\w.-]+/[\w.-]+?)(?:@([\w.-]+))?"')
    helpers = re.compile(r"https://raw\.githubusercontent\.com/([\w.-]+/[\w.-]+)/([\w.-]+)/book/bookkit\.py")
    found = {"README.md": pin.findall(README)}
    for chapter in sorted((ROOT / "book").glob("ch*.ipynb")):
        cells = json.loads(chapter.read_text())["cells"]
        setup = "".join(next(c for c in cells if c["cell_type"] == "code")["source"])
        found[f"book/{chapter.name}"] = pin.findall(setup) + [
            (f"https://github.com/{repo}", ref) for repo, ref in helpers.findall(setup)]
    return found


def test_the_readme_and_every_chapter_install_the_newest_release():
    """One commit pinned everywhere: the one that released the changelog's newest version, with the
    library and the book's helpers of the chapters (``python scripts/pin_release.py`` writes the pins;
    CONTRIBUTING, Releasing)."""
    pins = _pins()
    url = CONFIG["repository"]["url"]
    for where, found in pins.items():
        want = [url] if where == "README.md" else [url, url]  # a chapter: attnlib, then book/bookkit.py
        assert [u for u, _ in found] == want, (
            f"{where}: installs attnlib (a chapter: and downloads book/bookkit.py) from {found}, not once from {url}")
    refs = {ref for found in pins.values() for _, ref in found}
    assert len(refs) == 1 and re.fullmatch(r"[0-9a-f]{40}", next(iter(refs))), (
        f"the installs pin {sorted(refs)}: pin every one to the release's full commit (scripts/pin_release.py)")
    commit = refs.pop()
    if _git("rev-parse", "--git-dir") is None:
        skip_or_fail("not a git checkout: the pinned commit cannot be checked")
    if _git("cat-file", "-e", f"{commit}^{{commit}}") is None:
        if _git("rev-parse", "--is-shallow-repository") == "true":
            skip_or_fail(f"a shallow clone: {commit[:12]} is not in it")
        pytest.fail(f"the pinned commit {commit[:12]} is not in this repository's history")
    assert _git("merge-base", "--is-ancestor", commit, "HEAD") is not None, f"{commit[:12]} is not an ancestor of HEAD"
    newest = releases()[0][0]
    pinned = tomllib.loads(_git("show", f"{commit}:pyproject.toml"))["project"]["version"]
    assert pinned == newest, f"the pinned commit {commit[:12]} has version {pinned}, the newest release is {newest}"
    changed = _git("diff", "--name-only", commit, "HEAD", "--", "attnlib", "book/bookkit.py")
    assert not changed, (
        f"attnlib or book/bookkit.py changed since the pinned release {newest} ({commit[:12]}): "
        f"{changed.splitlines()[:5]}. Colab readers would run the chapters on the released code: release the "
        "change (CONTRIBUTING.md, Releasing)")


def test_the_pin_check_can_fail(tmp_path, monkeypatch):
    """A chapter pinned to a branch, or to another URL, is found."""
    book = tmp_path / "book"
    book.mkdir()
    cell = {"cell_type": "code", "source": ['%pip install -q "attnlib[viz] @ git+https://github.com/o/r@main"\n',
                                           "!curl -sSfO https://raw.githubusercontent.com/o/r/main/book/bookkit.py\n"]}
    (book / "ch01_x.ipynb").write_text(json.dumps({"cells": [cell]}))
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    monkeypatch.setattr(sys.modules[__name__], "README",
                        'pip install "attnlib @ git+https://github.com/o/r@' + "a" * 40 + '"')
    assert _pins() == {"README.md": [("https://github.com/o/r", "a" * 40)],
                       "book/ch01_x.ipynb": [("https://github.com/o/r", "main"), ("https://github.com/o/r", "main")]}
    monkeypatch.setattr(sys.modules[__name__], "CONFIG", {"repository": {"url": "https://github.com/o/r"}})
    with pytest.raises(AssertionError, match="pin every one to the release's full commit"):
        test_the_readme_and_every_chapter_install_the_newest_release()
    monkeypatch.setattr(sys.modules[__name__], "CONFIG", {"repository": {"url": "https://github.com/o/other"}})
    with pytest.raises(AssertionError, match="not once from https://github.com/o/other"):
        test_the_readme_and_every_chapter_install_the_newest_release()


def test_pin_release_pins_the_install_and_the_helpers_of_a_chapter_together():
    """scripts/pin_release.py rewrites both pins of each chapter's install cell, and only those."""
    spec = importlib.util.spec_from_file_location("pin_release", ROOT / "scripts" / "pin_release.py")
    pin_release = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pin_release)
    cells = json.loads((ROOT / "book" / "ch01_attention.ipynb").read_text())["cells"]
    setup = "".join(pin_release.setup_cell({"cells": cells})["source"])
    commit = "0123456789abcdef" * 2 + "01234567"
    text, installs = pin_release.pin(setup, commit)
    text, downloads = pin_release.pin_helpers(text, commit)
    assert (installs, downloads) == (1, 1)
    url = CONFIG["repository"]["url"]
    raw = url.replace("https://github.com/", "https://raw.githubusercontent.com/")
    assert f"git+{url}@{commit}" in text and f"{raw}/{commit}/book/bookkit.py" in text
    assert text.replace(commit, "X") == re.sub(r"(?<=@)[0-9a-f]{40}|(?<=/)[0-9a-f]{40}(?=/book/)", "X", setup)


def _exact_pins(path: Path) -> dict[str, str]:
    lines = (line.split("#")[0].strip() for line in path.read_text().splitlines())
    return dict(line.lower().split("==", 1) for line in lines if re.fullmatch(r"[A-Za-z0-9_.-]+==\S+", line))


def test_binder_pins_what_attnlib_needs_as_requirements_txt_does():
    """The reader's environment (binder/requirements.txt) pins every distribution attnlib and its viz extra
    need, at requirements.txt's version: else repo2docker takes whatever is newest for the unpinned one."""
    binder, full = _exact_pins(ROOT / "binder" / "requirements.txt"), _exact_pins(ROOT / "requirements.txt")
    project = PYPROJECT["project"]
    needed = {re.match(r"[A-Za-z0-9_.-]+", spec).group(0).lower()
              for spec in project["dependencies"] + project["optional-dependencies"]["viz"]}
    assert needed >= {"numpy", "threadpoolctl", "matplotlib"}
    assert not needed - set(binder), f"binder/requirements.txt does not pin {sorted(needed - set(binder))}"
    differ = {name: (binder[name], full[name]) for name in set(binder) & set(full) if binder[name] != full[name]}
    assert not differ, f"binder/requirements.txt and requirements.txt pin differently: {differ}"
