"""Saving tables and figures with a provenance stamp, and joining paper values.

Every output ``<dir>/<name>.<ext>`` gets a sidecar ``<name>.provenance.json`` with the
study, the parameters and their hash, the git commit (and whether the tree was dirty)
and the versions of the packages that made it. Files are written atomically (to a
temporary file, then renamed), so an interrupted run never leaves half a table.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import tempfile
from collections.abc import Callable, Mapping
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import pandas as pd

from causaleval import paths

PACKAGES = ("causaleval", "numpy", "pandas", "scipy", "matplotlib", "pgmpy", "causal-learn", "gadjid")


def output_dir(study: str, override: str | os.PathLike | None = None) -> Path:
    """``figures/<study>`` unless the study was given an explicit output folder."""
    return Path(override) if override else paths.figures_root() / study


def parameter_hash(params: Mapping[str, Any]) -> str:
    """A short hash of the parameters, independent of their order."""
    return hashlib.sha256(_canonical(params).encode()).hexdigest()[:12]


def provenance(study: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """The stamp written beside every output."""
    return {
        "study": study,
        "parameters": json.loads(_canonical(params)),
        "parameter_hash": parameter_hash(params),
        "git": _git_state(),
        "versions": {p: _version(p) for p in PACKAGES},
    }


def save_table(
    table: pd.DataFrame, name: str, *, study: str, params: Mapping[str, Any],
    out: str | os.PathLike | None = None, float_format: str = "{:.3f}",
) -> list[Path]:
    """Write ``table`` as CSV (full precision), LaTeX and Markdown (rounded) plus provenance."""
    folder = output_dir(study, out)
    fmt = float_format.format
    written = [
        atomic_write(folder / f"{name}.csv", lambda p: table.to_csv(p)),
        atomic_write(folder / f"{name}.tex", lambda p: Path(p).write_text(
            table.to_latex(float_format=fmt, na_rep="--"))),
        atomic_write(folder / f"{name}.md", lambda p: Path(p).write_text(
            table.reset_index().to_markdown(index=False, floatfmt=float_format.strip("{}:")) + "\n")),
    ]
    written.append(_stamp(folder, name, study, params))
    return written


def save_figure(
    fig: Any, name: str, *, study: str, params: Mapping[str, Any],
    out: str | os.PathLike | None = None,
) -> list[Path]:
    """Write a matplotlib figure as PNG and PDF (no timestamps, so reruns are identical)."""
    folder = output_dir(study, out)
    written = [
        atomic_write(folder / f"{name}.png", lambda p: fig.savefig(
            p, format="png", dpi=150, bbox_inches="tight", metadata={"Software": None})),
        atomic_write(folder / f"{name}.pdf", lambda p: fig.savefig(
            p, format="pdf", bbox_inches="tight", metadata={"CreationDate": None, "Creator": None})),
    ]
    written.append(_stamp(folder, name, study, params))
    return written


def paper_values(name: str) -> pd.DataFrame:
    """A table of published values from ``data/paper_values/<name>.csv``."""
    path = paths.PAPER_VALUES / f"{name}.csv"
    if not path.exists():
        raise ValueError(f"no paper values {name!r}: expected {paths.display(path)}")
    return pd.read_csv(path, comment="#")


def beside(ours: pd.DataFrame, paper: pd.DataFrame, on: list[str], value: str = "value") -> pd.DataFrame:
    """Join our long table with the paper's on the key columns: ``ours``, ``paper``, ``diff``."""
    merged = ours.rename(columns={value: "ours"}).merge(
        paper.rename(columns={value: "paper"})[on + ["paper"]], on=on, how="left")
    merged["diff"] = merged["ours"] - merged["paper"]
    return merged


def _canonical(params: Mapping[str, Any]) -> str:
    return json.dumps(dict(params), sort_keys=True, default=str)


def _stamp(folder: Path, name: str, study: str, params: Mapping[str, Any]) -> Path:
    text = json.dumps(provenance(study, params), indent=2, sort_keys=True) + "\n"
    return atomic_write(folder / f"{name}.provenance.json", lambda p: Path(p).write_text(text))


def cached_frame(study: str, name: str, params: Mapping[str, Any],
                 compute: Callable[[], pd.DataFrame]) -> pd.DataFrame:
    """``compute()``, or the table a previous call with the same parameters stored under
    ``runs/cache/<study>/<name>-<parameter hash>.csv`` (so a rerun that only changes a
    plot does not recompute the trials; ``CAUSALEVAL_CACHE`` moves the folder). Delete
    the file to force a recomputation. Floats are read back bit for bit (``round_trip``),
    so a cached rerun gives the same tables as the first run: a last-bit difference can
    turn a tie between learners into a non-tie and change a rank test."""
    path = paths.cache_root() / study / f"{name}-{parameter_hash(params)}.csv"
    if path.exists():
        return pd.read_csv(path, float_precision="round_trip")
    frame = compute()
    atomic_write(path, lambda p: frame.to_csv(p, index=False))
    return frame


def atomic_write(path: Path, write: Callable[[str], Any]) -> Path:
    """Call ``write(tmp)`` on a temporary file beside ``path``, then rename it into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=path.suffix)
    os.close(fd)
    try:
        write(tmp)
        os.chmod(tmp, 0o644)  # mkstemp makes files private; outputs are for reading
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return path


def _git_state() -> dict[str, Any]:
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=paths.ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()

    try:
        return {"commit": git("rev-parse", "HEAD"), "dirty": bool(git("status", "--porcelain"))}
    except (OSError, subprocess.CalledProcessError):
        return {"commit": None, "dirty": None}


def _version(pkg: str) -> str | None:
    try:
        return version(pkg)
    except PackageNotFoundError:
        return None
