"""Software-system data the kit collected itself (``data/software/<domain>/``).

Each folder is what :mod:`causaleval.collect` writes: ``manifest.json`` (roles, levels,
settings, versions), ``subjects.csv.gz`` (queries and their covariates) and
``runs.csv.gz`` (one row per run, failures included). :func:`load_collected` joins runs
and covariates into a :class:`~causaleval.datasets.factorial.FactorialData` whose
``status`` column keeps timeouts and errors (their outcomes are missing).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from causaleval import paths
from causaleval.datasets.factorial import FactorialData, binarize, select_treatments

SNAPSHOTS = paths.DATA / "software"


def collected_domains(root: str | Path | None = None) -> list[str]:
    """Domains with a finished collection under ``root`` (default ``data/software``)."""
    root = Path(root or SNAPSHOTS)
    return sorted(p.parent.name for p in root.glob("*/runs.csv.gz"))


def load_collected(
    domain: str, root: str | Path | None = None, *, path: str | Path | None = None,
    treatments: Sequence[str] | None = None, fixed: Mapping[str, object] | None = None,
    binary: Mapping[str, Mapping | str] | bool = False,
) -> FactorialData:
    """One collected domain, from ``path`` or ``<root>/<domain>`` (root: ``data/software``).

    ``treatments`` and ``fixed`` select treatments as in
    :func:`~causaleval.datasets.factorial.select_treatments`; ``binary=True`` (or a dict
    of rules) makes them binary with :func:`~causaleval.datasets.factorial.binarize`.
    """
    folder = Path(path) if path else Path(root or SNAPSHOTS) / domain
    manifest_file, runs_file = folder / "manifest.json", folder / "runs.csv.gz"
    if not manifest_file.exists() or not runs_file.exists():
        known = collected_domains(root) if not path else []
        raise FileNotFoundError(
            f"no finished collection at {folder} (needs manifest.json and runs.csv.gz); "
            f"collected domains: {known or 'none'}. Collect one with "
            f"`python -m causaleval collect {domain} --out {folder}`.")
    manifest = json.loads(manifest_file.read_text())
    runs = pd.read_csv(runs_file)
    subjects = pd.read_csv(folder / "subjects.csv.gz")
    covariates = list(manifest["covariates"])
    frame = runs.merge(subjects[["subject", *covariates]], on="subject", how="left",
                       validate="many_to_one")
    treatments_all = manifest["treatments"]
    data = FactorialData(
        name=f"collected/{folder.name}", frame=frame.drop(columns=["seq", "error"]),
        subject=manifest["subject"], trial=manifest["trial"],
        treatments=tuple(treatments_all), outcomes=tuple(manifest["outcomes"]),
        covariates=tuple(covariates), levels={t: tuple(v) for t, v in treatments_all.items()})
    data = select_treatments(data, treatments, fixed)
    if binary is False:
        return data
    return binarize(data, None if binary is True else binary)
