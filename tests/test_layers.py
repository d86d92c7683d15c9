"""The layer contract of ARCHITECTURE.md (``[tool.importlinter]`` in pyproject.toml): kept by the
kit, and broken by a deliberately wrong import, so the check itself is known to work."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT = Path(sys.executable).with_name("lint-imports")

pytestmark = pytest.mark.skipif(not LINT.exists(), reason="import-linter is not installed (pip install -e '.[dev]')")


def _lint(tree: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(tree / "lib")}
    return subprocess.run([str(LINT), "--config", str(tree / "pyproject.toml"), "--no-cache"],
                          capture_output=True, text=True, env=env, cwd=tree, timeout=120)


def _copy(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "lib" / "causaleval", tmp_path / "lib" / "causaleval",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def test_the_kit_keeps_its_layers():
    result = _lint(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("module, wrong", [
    ("graphs/core.py", "from causaleval.app import cli"),             # the ground floor reaches the face
    ("datasets/networks.py", "from causaleval.effects import bn"),     # datasets import effects
    ("metrics/structural.py", "import causaleval.learn.learners"),     # a metric imports a learner
])
def test_a_wrong_import_breaks_the_contract(tmp_path, module, wrong):
    tree = _copy(tmp_path)
    path = tree / "lib" / "causaleval" / module
    path.write_text(path.read_text() + f"\n\ndef _wrong():\n    {wrong}\n")
    result = _lint(tree)
    assert result.returncode != 0 and "BROKEN" in result.stdout, result.stdout + result.stderr
