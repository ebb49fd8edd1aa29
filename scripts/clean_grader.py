"""Grade a submission the way a clean grader (Gradescope, Docker) would: a fresh environment with only
what the autograder zip itself asks for.

    python scripts/clean_grader.py AUTOGRADER_ZIP SUBMISSION

It unpacks the zip as Gradescope does (into ``<tmp>/autograder/source``), makes a fresh virtual
environment, installs the ``pip:`` entries of the zip's ``environment.yml`` (otter-grader, numpy,
scipy and the attnlib wheel from ``files/``, pinned by its hash; ``/autograder/source`` is read as
the unpacked folder), grades SUBMISSION with that environment's ``otter run`` and prints the
score. Conda itself is not used (the machine may have no internet): the Python packages are the
same, the Python version is this one.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import venv
import zipfile
from pathlib import Path

import yaml


def pip_requirements(environment: dict, source: Path) -> list[str]:
    """The pip entries of otter's environment.yml, with /autograder/source pointing at ``source``."""
    entries = []
    for dep in environment.get("dependencies", []):
        if isinstance(dep, dict) and "pip" in dep:
            entries += [str(e).replace("/autograder/source", str(source)) for e in dep["pip"]]
    return entries


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__)
        return 2
    zip_path, submission = Path(argv[0]).resolve(), Path(argv[1]).resolve()
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "autograder" / "source"
        with zipfile.ZipFile(zip_path) as z:
            z.extractall(source)
        requirements = pip_requirements(yaml.safe_load((source / "environment.yml").read_text()), source)
        print("installing:", *requirements, sep="\n  ")
        env = Path(tmp) / "venv"
        venv.create(env, with_pip=True)
        python = env / "bin" / "python"
        (Path(tmp) / "requirements.txt").write_text("\n".join(requirements) + "\n")
        subprocess.run([str(python), "-m", "pip", "install", "-q", "-r", str(Path(tmp) / "requirements.txt")],
                       check=True)
        where = subprocess.run([str(python), "-c", "import attnlib; print(attnlib.__file__)"], cwd=tmp,
                               capture_output=True, text=True, check=True).stdout.strip()
        print("attnlib in the grader:", where)
        if not where.startswith(str(env)):
            print("attnlib does not come from the clean environment")
            return 1
        out = Path(tmp) / "out"
        out.mkdir()
        done = subprocess.run([str(python), "-m", "otter", "run", "-a", str(zip_path), "-o", str(out),
                               str(submission)], cwd=tmp, capture_output=True, text=True, timeout=600)
        results = out / "results.json"
        if done.returncode != 0 or not results.exists():
            print(done.stdout[-3000:], done.stderr[-3000:])
            return 1
        tests = [t for t in json.loads(results.read_text())["tests"] if "max_score" in t and t["name"] != "Public Tests"]
        score, total = sum(t.get("score") or 0 for t in tests), sum(t["max_score"] for t in tests)
        print(f"{submission.name}: {score:g}/{total:g} in a clean grader " +
              " ".join(f"{t['name']}={t.get('score') or 0:g}" for t in tests))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
