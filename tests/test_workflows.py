"""The GitHub Actions workflows publish what CI builds, and nothing else.

- ``scripts/changelog_section.py``, checked against small changelogs written here: the body of a
  released section, and the failures on a missing, unreleased or empty section and on a tag that is
  not ``v`` + pyproject.toml's version.
- The workflows build with the commands ``.ci/run`` runs (``CI_COMMANDS``), never a second recipe:
  every build line of a ``run:`` is one of them, and ``.ci/run`` runs each of them; the release tools
  have ``.ci/run``'s pins.
- Pages deploys ``_build/html``, where the book build writes and ``book_pdf.py`` copies the PDF, after
  both, on a push to the branch of ``repository.branch``.
- Every ``uses:`` is pinned by a full commit SHA with its version in a comment.
- PyPI gets the files by trusted publishing: ``id-token: write`` in the ``pypi`` environment, no
  password or token; every job states its permissions, and no checkout keeps its credentials.
- Each of these checks fails on a workflow or a ``.ci/run`` broken on purpose.

No network and no build: the workflows are read as YAML. ``scripts/check_workflows.sh`` (actionlint and
zizmor, run by ``.ci/run``) checks them further.
"""

from __future__ import annotations

import copy
import importlib.util
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml", reason="pyyaml reads the workflows (requirements.txt installs it with jupyter-book)")

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = ROOT / ".github" / "workflows"
CI = (ROOT / ".ci" / "run").read_text()
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text())
#: Where ``jupyter-book build .`` writes the HTML, which the tests of the built book read too (``tests/_site.py``).
HTML = "_build/html"

#: The commands a workflow may build with, and the workflow that must run each, as ``.ci/run`` runs them
#: (``build_release.sh`` takes the output folder as its one argument).
BUILD_COMMANDS = {
    "python -m pip install -r requirements.txt": "book.yml",
    "bash scripts/install_latex.sh": "book.yml",
    "jupyter-book build . -W -n --keep-going": "book.yml",
    "python scripts/book_pdf.py --require": "book.yml",
    "bash scripts/build_release.sh": "release.yml",
}
#: What ``.ci/run`` must run: the workflows' build commands, and the static check of the workflows.
CI_COMMANDS = [*BUILD_COMMANDS, "bash scripts/check_workflows.sh"]
#: A ``run:`` line that builds, installs a build's tools, or publishes: it must be one of BUILD_COMMANDS.
BUILDS = re.compile(r"jupyter-book|sphinx-build|book_pdf|student_edition|install_latex|build_release|"
                    r"python3? -m build\b|\btwine\b|setup\.py|pip wheel|ghp-import|pip install -r")
#: The release tools' install, whose pins pin_problems compares with .ci/run's.
TOOLS = re.compile(r"python -m pip install( (build|twine)==[\w.]+)+")
SHA_PIN = re.compile(r"[\w.-]+/[\w.-]+(/[\w./-]+)?@[0-9a-f]{40}")
TRUSTED_PUBLISHER = "pypa/gh-action-pypi-publish"


def _script(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


changelog_section = _script("changelog_section")


# --------------------------------------------------------------------------- the release notes


CHANGELOG = """\
# Changelog

Notes above the first section.

## [Unreleased]

### Changed

- Something not released yet.

## [1.1.0] - 2026-03-02

The second release.

### Added

- `thing`, with a [link](https://example.org).

## [1.0.0] - 2026-01-15

- The first release.

[Unreleased]: https://example.org/compare/v1.1.0...HEAD
[1.1.0]: https://example.org/releases/tag/v1.1.0
[1.0.0]: https://example.org/releases/tag/v1.0.0
"""


def pyproject(version: str) -> str:
    return f'[project]\nname = "attnlib"\nversion = "{version}"\n'


def test_the_section_is_the_body_under_its_heading():
    assert changelog_section.section(CHANGELOG, "1.1.0") == (
        "The second release.\n\n### Added\n\n- `thing`, with a [link](https://example.org).\n")


def test_the_last_section_ends_before_the_link_definitions():
    assert changelog_section.section(CHANGELOG, "1.0.0") == "- The first release.\n"


@pytest.mark.parametrize(("changelog", "version", "message"), [
    (CHANGELOG, "2.0.0", r"no section '## \[2.0.0\] - YYYY-MM-DD'"),
    (CHANGELOG, "1.0", r"no section '## \[1.0\]"),
    (CHANGELOG, "Unreleased", "has no date: it is not released"),
    (CHANGELOG.replace("- The first release.\n", ""), "1.0.0", "is empty"),
    (CHANGELOG + "\n## [1.0.0] - 2026-01-16\n\n- Again.\n", "1.0.0", r"2 sections '## \[1.0.0\]'"),
])
def test_a_missing_unreleased_empty_or_doubled_section_fails(changelog, version, message):
    with pytest.raises(changelog_section.ChangelogError, match=message):
        changelog_section.section(changelog, version)


def test_a_tag_releases_pyproject_version_with_its_section():
    assert changelog_section.check_tag("v1.1.0", CHANGELOG, pyproject("1.1.0")) == "1.1.0"


@pytest.mark.parametrize(("tag", "version", "message"), [
    ("v1.1.0", "1.2.0", r"the tag 'v1.1.0' is not 'v' \+ pyproject.toml's version '1.2.0'"),
    ("1.1.0", "1.1.0", r"the tag '1.1.0' is not 'v' \+"),
    ("v1.1", "1.1.0", r"the tag 'v1.1' is not"),
    ("v2.0.0", "2.0.0", r"no section '## \[2.0.0\]"),
])
def test_a_tag_that_is_not_the_released_version_fails(tag, version, message):
    with pytest.raises(changelog_section.ChangelogError, match=message):
        changelog_section.check_tag(tag, CHANGELOG, pyproject(version))


def test_the_command_line_prints_the_section_or_fails_with_a_message(tmp_path):
    (tmp_path / "CHANGELOG.md").write_text(CHANGELOG)
    (tmp_path / "pyproject.toml").write_text(pyproject("1.1.0"))
    files = ["--changelog", str(tmp_path / "CHANGELOG.md"), "--pyproject", str(tmp_path / "pyproject.toml")]

    def run(*args):
        return subprocess.run([sys.executable, str(ROOT / "scripts" / "changelog_section.py"), *args, *files],
                              capture_output=True, text=True)

    done = run("1.0.0")
    assert (done.returncode, done.stdout) == (0, "- The first release.\n")
    done = run("--check-tag", "v1.1.0")
    assert done.returncode == 0 and "v1.1.0" in done.stdout
    for args, message in ((["3.0.0"], "no section '## [3.0.0]"), (["--check-tag", "v1.0.0"], "is not 'v' + ")):
        done = run(*args)
        assert done.returncode == 1 and message in done.stderr and not done.stdout, (args, done)


def test_this_repository_can_release_its_version():
    """What the release workflow checks first, on this checkout: the tag of pyproject.toml's version passes."""
    version = PYPROJECT["project"]["version"]
    changelog, project = (ROOT / "CHANGELOG.md").read_text(), (ROOT / "pyproject.toml").read_text()
    assert changelog_section.check_tag(f"v{version}", changelog, project) == version
    assert changelog_section.section(changelog, version).strip()


# --------------------------------------------------------------------------- reading the workflows


def load_workflows() -> dict[str, dict]:
    return {path.name: yaml.safe_load(path.read_text()) for path in sorted(WORKFLOWS.glob("*.y*ml"))}


def triggers(workflow: dict) -> dict:
    return workflow.get("on", workflow.get(True))  # YAML 1.1 reads the key `on` as true


def steps(workflow: dict):
    """``(job name, job, step)`` of every step, in order."""
    for name, job in workflow["jobs"].items():
        for step in job.get("steps", []):
            yield name, job, step


def run_lines(workflow: dict) -> list[str]:
    """Every command line of every ``run:``, continuation lines joined, comments left out."""
    lines = []
    for _, _, step in steps(workflow):
        script = re.sub(r"\\\n\s*", "", step.get("run", ""))
        lines += [line.strip() for line in script.splitlines() if line.strip() and not line.strip().startswith("#")]
    return lines


def action(step: dict) -> str:
    return step.get("uses", "").split("@")[0]


def ci_runs(command: str, ci: str) -> bool:
    """Whether a command of ``.ci/run``, outside comments, is ``command`` (with arguments after it)."""
    code = "\n".join(line for line in ci.splitlines() if not line.lstrip().startswith("#"))
    return re.search(rf"(?m)(^|[\s'\"]){re.escape(command)}([\s'\"]|$)", code) is not None


def test_the_workflows_are_the_two_publishers():
    workflows = load_workflows()
    assert set(workflows) == {"book.yml", "release.yml"}
    assert triggers(workflows["book.yml"])["push"] == {"branches": [CONFIG["repository"]["branch"]]}
    assert "workflow_dispatch" in triggers(workflows["book.yml"])
    assert triggers(workflows["release.yml"]) == {"push": {"tags": ["v*"]}}


# --------------------------------------------------------------------------- the same targets as .ci/run


def build_problems(workflows: dict[str, dict]) -> list[str]:
    """Every build line is a command of BUILD_COMMANDS, and each workflow runs the ones it must."""
    problems = []
    for name, workflow in workflows.items():
        for line in run_lines(workflow):
            if not BUILDS.search(line) or TOOLS.fullmatch(line):
                continue
            exact = line in BUILD_COMMANDS and line != "bash scripts/build_release.sh"
            release = re.fullmatch(r"bash scripts/build_release\.sh [\w./$-]+", line)
            if not (exact or release):
                problems.append(f"{name} builds with {line!r}, which is not how .ci/run builds: use one of "
                                f"{list(BUILD_COMMANDS)}")
        ran = [next((c for c in BUILD_COMMANDS if line.startswith(c)), None) for line in run_lines(workflow)]
        for command, where in BUILD_COMMANDS.items():
            if where == name and command not in ran:
                problems.append(f"{name} does not run {command!r}")
    return problems


def ci_problems(ci: str) -> list[str]:
    return [f".ci/run does not run {command!r}" for command in CI_COMMANDS if not ci_runs(command, ci)]


def pin_problems(workflows: dict[str, dict], ci: str) -> list[str]:
    """The workflows install build and twine at the versions .ci/run installs."""
    wanted = set(re.findall(r"\b(build|twine)==([\w.]+)", ci))
    found = {pin for workflow in workflows.values() for line in run_lines(workflow)
             for pin in re.findall(r"\b(build|twine)==([\w.]+)", line)}
    unpinned = [line for workflow in workflows.values() for line in run_lines(workflow)
                if re.search(r"pip install .*\b(build|twine)\b(?!==)", line)]
    problems = [f"a workflow installs {line!r} without .ci/run's pins" for line in unpinned]
    if found != wanted or not wanted:
        problems.append(f"the workflows install {sorted(found)}, .ci/run {sorted(wanted)}")
    return problems


def python_problems(workflows: dict[str, dict]) -> list[str]:
    floor = re.fullmatch(r">=(\d+\.\d+)", PYPROJECT["project"]["requires-python"]).group(1)
    return [f"{name}: job {job_name} sets up Python {step['with']['python-version']}, not {floor}"
            for name, workflow in workflows.items() for job_name, _, step in steps(workflow)
            if action(step) == "actions/setup-python" and str(step["with"]["python-version"]) != floor]


def test_the_workflows_build_only_with_the_commands_of_ci():
    workflows = load_workflows()
    problems = build_problems(workflows)
    assert not problems, "\n".join(problems)
    problems = pin_problems(workflows, CI)
    assert not problems, "\n".join(problems)
    problems = python_problems(workflows)
    assert not problems, "\n".join(problems)


def test_ci_runs_every_command_the_workflows_build_with():
    """.ci/run builds (and checks the workflows) with the same lines: what CI passed is what is published."""
    problems = ci_problems(CI)
    assert not problems, "\n".join(problems)


def test_the_release_checks_the_tag_before_it_builds_and_takes_its_notes_from_the_changelog():
    lines = run_lines(load_workflows()["release.yml"])
    check = lines.index('python scripts/changelog_section.py --check-tag "$GITHUB_REF_NAME"')
    build = next(i for i, line in enumerate(lines) if line.startswith("bash scripts/build_release.sh "))
    assert check < build
    notes = next(line for line in lines if re.match(r"python scripts/changelog_section\.py \S+ > ", line))
    release = next(line for line in lines if line.startswith("gh release create "))
    # the build job writes the notes and uploads them; the release job downloads them to the same path
    assert f"--notes-file {notes.split('> ')[1]}" in release
    assert release.startswith('gh release create "$GITHUB_REF_NAME" dist/* ')


# --------------------------------------------------------------------------- the deployed book


def pages_problems(workflows: dict[str, dict]) -> list[str]:
    """The book job uploads _build/html after the build and the PDF; the deploy job deploys it."""
    workflow = workflows["book.yml"]
    problems = []
    uploads = [(job_name, step) for job_name, _, step in steps(workflow)
               if action(step) == "actions/upload-pages-artifact"]
    if len(uploads) != 1:
        return [f"book.yml uploads {len(uploads)} Pages artifacts, not one"]
    job_name, upload = uploads[0]
    path = str(upload.get("with", {}).get("path", "")).removeprefix("./").rstrip("/")
    if path != HTML:
        problems.append(f"book.yml uploads {path!r}, not {HTML!r} where the build writes")
    order = [step.get("run", action(step)) for _, _, step in steps({"jobs": {job_name: workflow["jobs"][job_name]}})]
    for command in ("jupyter-book build . -W -n --keep-going", "python scripts/book_pdf.py --require"):
        if command not in order or order.index(command) > order.index("actions/upload-pages-artifact"):
            problems.append(f"book.yml's job {job_name} uploads before {command!r} (or does not run it)")
    deploys = [(name, job) for name, job in workflow["jobs"].items()
               if any(action(step) == "actions/deploy-pages" for step in job.get("steps", []))]
    if len(deploys) != 1:
        return [*problems, f"book.yml deploys {len(deploys)} times, not once"]
    name, job = deploys[0]
    if job_name not in ([job.get("needs")] if isinstance(job.get("needs"), str) else job.get("needs", [])):
        problems.append(f"book.yml's deploy job {name} does not need the build job {job_name}")
    if job.get("permissions") != {"pages": "write", "id-token": "write"}:
        problems.append(f"book.yml's deploy job {name} has permissions {job.get('permissions')}")
    if (job.get("environment") or {}).get("name") != "github-pages":
        problems.append(f"book.yml's deploy job {name} is not in the environment github-pages")
    if "concurrency" not in workflow:
        problems.append("book.yml has no concurrency group: two deployments could race")
    return problems


def test_the_book_deploys_what_the_build_writes():
    import _site  # the built book's tests (it reads _config.yml with pyyaml, so only past the skip above)

    # `jupyter-book build .` (no --path-output) writes ./_build/html, which the built book's tests read
    assert _site.HTML == ROOT / HTML
    problems = pages_problems(load_workflows())
    assert not problems, "\n".join(problems)


# --------------------------------------------------------------------------- pins, permissions, publishing


def uses_problems(workflows: dict[str, dict], texts: dict[str, str]) -> list[str]:
    """Every ``uses:`` is a full commit SHA with a version comment, one per action across the workflows."""
    problems = [f"{name}: {job_name} uses {step['uses']!r}, not pinned by a full commit SHA"
                for name, workflow in workflows.items() for job_name, _, step in steps(workflow)
                if "uses" in step and not SHA_PIN.fullmatch(step["uses"])]
    problems += [f"{name}: job {job_name} uses {job['uses']!r}, not pinned by a full commit SHA"
                 for name, workflow in workflows.items() for job_name, job in workflow["jobs"].items()
                 if "uses" in job and not SHA_PIN.fullmatch(job["uses"])]
    pins: dict[str, set[str]] = {}
    for name, text in texts.items():
        for line in text.splitlines():
            if re.match(r"\s*(- )?uses:", line):
                pinned = re.fullmatch(r"\s*(?:- )?uses: (\S+)@([0-9a-f]{40}) # (v\d[\w.]*)\s*", line)
                if not pinned:
                    problems.append(f"{name}: {line.strip()!r} is not `uses: owner/action@<sha> # vX.Y.Z`")
                    continue
                pins.setdefault(pinned[1], set()).add(f"{pinned[2]} # {pinned[3]}")
    problems += [f"{uses} is pinned in two ways: {sorted(found)}" for uses, found in pins.items() if len(found) > 1]
    return problems


def permission_problems(workflows: dict[str, dict]) -> list[str]:
    """Read-only by default; every job says what it may do; no checkout keeps the token."""
    problems = []
    for name, workflow in workflows.items():
        if workflow.get("permissions") != {"contents": "read"}:
            problems.append(f"{name}: top-level permissions {workflow.get('permissions')}, not contents: read")
        for job_name, job in workflow["jobs"].items():
            if not isinstance(job.get("permissions"), dict):
                problems.append(f"{name}: job {job_name} does not state its permissions")
        for job_name, _, step in steps(workflow):
            if action(step) == "actions/checkout" and step.get("with", {}).get("persist-credentials") is not False:
                problems.append(f"{name}: job {job_name} checks out without persist-credentials: false")
    return problems


def publish_problems(workflows: dict[str, dict]) -> list[str]:
    """The PyPI job publishes by trusted publishing: an OIDC token, in the pypi environment, no secret."""
    jobs = [(name, job_name, job) for name, workflow in workflows.items()
            for job_name, job in workflow["jobs"].items()
            if any(action(step) == TRUSTED_PUBLISHER for step in job.get("steps", []))]
    if [name for name, _, _ in jobs] != ["release.yml"]:
        return [f"one job of release.yml publishes to PyPI, not {[(name, job) for name, job, _ in jobs]}"]
    _, job_name, job = jobs[0]
    problems = []
    if job.get("permissions") != {"id-token": "write"}:
        problems.append(f"the publish job {job_name} has permissions {job.get('permissions')}, not id-token: write")
    if (job.get("environment") or {}).get("name") != "pypi":
        problems.append(f"the publish job {job_name} is not in the environment pypi (the trusted publisher's)")
    for step in job["steps"]:
        inputs = {key.replace("_", "-") for key in step.get("with", {})}
        if action(step) == TRUSTED_PUBLISHER and inputs & {"password", "user", "username", "api-token"}:
            problems.append(f"the publish step passes {sorted(inputs)}: trusted publishing needs no password")
    if "secrets." in yaml.safe_dump(job):
        problems.append(f"the publish job {job_name} reads a secret")
    return problems


def test_every_action_is_pinned_by_a_commit_sha():
    texts = {path.name: path.read_text() for path in sorted(WORKFLOWS.glob("*.y*ml"))}
    problems = uses_problems(load_workflows(), texts)
    assert not problems, "\n".join(problems)


def test_every_job_has_least_permissions():
    problems = permission_problems(load_workflows())
    assert not problems, "\n".join(problems)


def test_pypi_gets_the_files_by_trusted_publishing():
    problems = publish_problems(load_workflows())
    assert not problems, "\n".join(problems)


# --------------------------------------------------------------------------- each check can fail


def _mutated(change):
    workflows = copy.deepcopy(load_workflows())
    change(workflows)
    return workflows


def _book_steps(workflows):
    return workflows["book.yml"]["jobs"]["build"]["steps"]


def _release_job(workflows, name):
    return workflows["release.yml"]["jobs"][name]


def _set_run(workflows, old, new):
    for _, _, step in steps(workflows["book.yml"]):
        if step.get("run") == old:
            step["run"] = new


def _first_checkout(workflows):
    return next(step for _, _, step in steps(workflows["release.yml"]) if action(step) == "actions/checkout")


def _publish_step(workflows):
    return next(step for _, _, step in steps(workflows["release.yml"]) if action(step) == TRUSTED_PUBLISHER)


BROKEN = {
    "a second recipe for the book": (build_problems, lambda w: _set_run(
        w, "jupyter-book build . -W -n --keep-going", "jupyter-book build .")),
    "the wheel built by hand": (build_problems, lambda w: _release_job(w, "build")["steps"].append(
        {"run": "python -m build --wheel"})),
    "no PDF": (build_problems, lambda w: _set_run(w, "python scripts/book_pdf.py --require", "echo no PDF")),
    "the release tools unpinned": (lambda w: pin_problems(w, CI), lambda w: _release_job(w, "build")["steps"].append(
        {"run": "python -m pip install build twine"})),
    "another Python": (python_problems, lambda w: _book_steps(w)[1]["with"].update({"python-version": "3.12"})),
    "the wrong folder deployed": (pages_problems, lambda w: next(
        s for s in _book_steps(w) if action(s) == "actions/upload-pages-artifact")["with"].update({"path": "_build"})),
    "deployed before the PDF": (pages_problems, lambda w: _book_steps(w).append(_book_steps(w).pop(-2))),
    "deploy without id-token": (pages_problems, lambda w: w["book.yml"]["jobs"]["deploy"]["permissions"].pop(
        "id-token")),
    "a job with default permissions": (permission_problems, lambda w: _release_job(w, "github-release").pop(
        "permissions")),
    "write access for every job": (permission_problems, lambda w: w["release.yml"].update(
        {"permissions": {"contents": "write"}})),
    "a checkout keeping the token": (permission_problems, lambda w: _first_checkout(w)["with"].pop(
        "persist-credentials")),
    "publishing with a token": (publish_problems, lambda w: _publish_step(w).setdefault("with", {}).update(
        {"password": "${{ secrets.PYPI_API_TOKEN }}"})),
    "publishing without id-token": (publish_problems, lambda w: _release_job(w, "publish").update(
        {"permissions": {"contents": "read"}})),
    "publishing outside the pypi environment": (publish_problems, lambda w: _release_job(w, "publish").pop(
        "environment")),
    "an action pinned by tag": (lambda w: uses_problems(w, {}), lambda w: _first_checkout(w).update(
        {"uses": "actions/checkout@v7"})),
}


@pytest.mark.parametrize("broken", sorted(BROKEN))
def test_each_check_fails_on_a_broken_workflow(broken):
    check, change = BROKEN[broken]
    assert check(load_workflows()) == []  # the workflows as they are pass
    assert check(_mutated(change)) != [], f"{broken}: the check did not notice"


def test_the_pin_check_reads_the_version_comments():
    texts = {path.name: path.read_text() for path in sorted(WORKFLOWS.glob("*.y*ml"))}
    book = texts["book.yml"]
    for broken in (re.sub(r"(uses: actions/checkout@[0-9a-f]{40}) # v[\d.]+", r"\1", book),
                   re.sub(r"(uses: actions/checkout@)[0-9a-f]{40}", r"\1v7", book),
                   re.sub(r"(uses: actions/checkout@)[0-9a-f]{40}", r"\g<1>" + "0" * 40, book)):
        assert broken != book
        assert uses_problems({}, {**texts, "book.yml": broken}) != []


def test_the_ci_check_fails_when_ci_leaves_out_a_command():
    ci = "\n".join(f'step "step {i}" {command}' for i, command in enumerate(CI_COMMANDS))
    assert ci_problems(ci) == []
    for command in CI_COMMANDS:
        assert ci_problems(ci.replace(f" {command}", " true")) == [f".ci/run does not run {command!r}"]
        commented = ci.replace(f'" {command}', f'" true\n# {command}')
        assert ci_problems(commented) == [f".ci/run does not run {command!r}"], "a comment is not a command"
