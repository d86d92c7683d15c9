"""``causaleval new``: a generated study runs and passes its tests and nbval unchanged."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from causaleval import paths
from causaleval.app import scaffold

COPIED = ("lib", "notebooks", "data/paper_values", "tests/conftest.py", "tests/nbval_sanitize.cfg",
          "pyproject.toml")


@pytest.fixture
def repo(tmp_path):
    """A copy of the parts of the repository a study needs, importable in place of the kit."""
    root = tmp_path / "repo"
    for part in COPIED:
        source, target = paths.ROOT / part, root / part
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "*.ipynb_checkpoints"))
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
    env = {**os.environ, "PYTHONPATH": str(root / "lib"), "CAUSALEVAL_FIGURES": str(tmp_path / "figures")}
    return root, env


def test_new_study_runs_and_passes_nbval(repo):
    root, env = repo
    made = subprocess.run([sys.executable, "-m", "causaleval", "new", "demo", "--paper", "Author et al. 2026"],
                          cwd=root, env=env, capture_output=True, text=True, timeout=300)
    assert made.returncode == 0, made.stderr
    number = scaffold.next_number(paths.NOTEBOOKS)
    notebook = root / "notebooks" / f"{number:02d}_demo.ipynb"
    cells = json.loads(notebook.read_text())["cells"]
    assert [c for c in cells if "parameters" in c["metadata"]["tags"]]
    assert all(c.get("outputs") for c in cells if "nbval-check-output" in c["metadata"]["tags"])
    listed = subprocess.run([sys.executable, "-m", "causaleval", "list"], cwd=root, env=env,
                            capture_output=True, text=True, timeout=120)
    assert "demo" in listed.stdout
    tested = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-o", "addopts=",
         "--nbval-lax", "--nbval-current-env", "--nbval-sanitize-with=tests/nbval_sanitize.cfg",
         str(notebook.relative_to(root)), "tests/test_study_demo.py"],
        cwd=root, env=env, capture_output=True, text=True, timeout=300)
    assert tested.returncode == 0, tested.stdout[-3000:]
    assert (tmp_path_figures := env["CAUSALEVAL_FIGURES"]) and os.path.isfile(
        os.path.join(tmp_path_figures, f"{number:02d}_demo", "claims.csv"))


@pytest.mark.parametrize("name, paper, message", [
    ("Demo", "A 2026", "lowercase"),
    ("1demo", "A 2026", "lowercase"),
    ("demo", "  ", "--paper"),
    ("asia_mag_nced", "A 2026", "exists already"),
])
def test_bad_new_study_requests_are_refused(tmp_path, name, paper, message):
    shutil.copytree(paths.NOTEBOOKS, tmp_path / "notebooks")
    with pytest.raises(ValueError, match=message):
        scaffold.new_study(name, paper, root=tmp_path)
    assert not (tmp_path / "lib").exists()


def test_existing_files_are_never_overwritten(tmp_path):
    (tmp_path / "notebooks").mkdir()
    test = tmp_path / "tests" / "test_study_demo.py"
    test.parent.mkdir()
    test.write_text("# mine\n")
    with pytest.raises(ValueError, match="refusing to overwrite"):
        scaffold.new_study("demo", "A 2026", root=tmp_path)
    assert test.read_text() == "# mine\n" and not list((tmp_path / "notebooks").iterdir())


def test_percent_cells_keep_their_kind_and_tags():
    nb = scaffold.notebook_from_percent('# %% [markdown]\n# # Title\n\n# %% tags=["parameters"]\nx = 1\n')
    assert [(c.cell_type, c.source, c.metadata["tags"]) for c in nb.cells] == [
        ("markdown", "# Title", []), ("code", "x = 1", ["parameters"])]
