"""Software-system data the kit collected itself (``data/software/<domain>/``).

Each folder is what :mod:`causaleval.collect` writes: ``manifest.json`` (roles, levels,
settings, versions), ``subjects.csv.gz`` (queries and their covariates) and
``runs.csv.gz`` (one row per run, failures included). :func:`load_collected` joins runs
and covariates into a :class:`~causaleval.datasets.factorial.FactorialData` whose
``status`` column keeps timeouts and errors (their outcomes are missing).

The three files are read strictly (:mod:`causaleval.datasets.readers`) and checked against
the manifest: a truncated or corrupt gzip stream, an empty or truncated manifest, a cut last
row, a repeated (trial, subject, treatments) key, a run of a subject ``subjects.csv.gz`` does
not list, a treatment level or status the manifest does not name, a finished run without an
outcome, a negative or non-numeric outcome, or a number of runs other than the manifest's
are refused with the file, line and column. ``allow_truncated=True`` drops a cut last row
instead, with a note.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from causaleval import paths
from causaleval.datasets.factorial import FactorialData, binarize, select_treatments
from causaleval.datasets.readers import (
    DataFileError,
    Table,
    check_keys,
    check_levels,
    read_manifest,
    read_table,
)

SNAPSHOTS = paths.DATA / "software"
MANIFEST_KEYS = {"subject": str, "trial": str, "treatments": dict, "outcomes": list,
                 "covariates": list, "runs": int, "status_counts": dict}


def collected_domains(root: str | Path | None = None) -> list[str]:
    """Domains with a finished collection under ``root`` (default ``data/software``)."""
    root = Path(root or SNAPSHOTS)
    return sorted(p.parent.name for p in root.glob("*/runs.csv.gz"))


def load_collected(
    domain: str, root: str | Path | None = None, *, path: str | Path | None = None,
    treatments: Sequence[str] | None = None, fixed: Mapping[str, object] | None = None,
    binary: Mapping[str, Mapping | str] | bool = False, allow_truncated: bool = False,
) -> FactorialData:
    """One collected domain, from ``path`` or ``<root>/<domain>`` (root: ``data/software``).

    ``treatments`` and ``fixed`` select treatments as in
    :func:`~causaleval.datasets.factorial.select_treatments`; ``binary=True`` (or a dict
    of rules) makes them binary with :func:`~causaleval.datasets.factorial.binarize`.
    ``allow_truncated=True`` drops a last run cut off without a line end (and accepts fewer
    runs than the manifest counts), with a note, instead of refusing the collection.
    """
    folder = Path(path) if path else Path(root or SNAPSHOTS) / domain
    manifest_file, runs_file = folder / "manifest.json", folder / "runs.csv.gz"
    if not manifest_file.exists() or not runs_file.exists():
        known = collected_domains(root) if not path else []
        raise FileNotFoundError(
            f"no finished collection at {folder} (needs manifest.json and runs.csv.gz); "
            f"collected domains: {known or 'none'}. Collect one with "
            f"`python -m causaleval collect {domain} --out {folder}`.")
    manifest = read_manifest(manifest_file, MANIFEST_KEYS)
    subject, trial, levels = manifest["subject"], manifest["trial"], manifest["treatments"]
    outcomes, covariates = list(manifest["outcomes"]), list(manifest["covariates"])
    runs = read_table(runs_file, required=["seq", trial, subject, *levels, "status", *outcomes, "error"],
                      exact=True, numeric=["seq", trial, *levels, *outcomes],
                      nonnegative=["seq", trial, *outcomes], allow_truncated=allow_truncated)
    subjects = read_table(folder / "subjects.csv.gz", required=[subject, "template", "sql", *covariates],
                          exact=True, numeric=covariates)
    check_keys(subjects, [subject], what="subject")
    notes = [*runs.notes, *_check_runs(runs, manifest, subjects, allow_truncated)]
    frame = runs.frame.merge(subjects.frame[[subject, *covariates]], on=subject, how="left",
                             validate="many_to_one")
    data = FactorialData(
        name=f"collected/{folder.name}", frame=frame.drop(columns=["seq", "error"]),
        subject=subject, trial=trial, treatments=tuple(levels), outcomes=tuple(outcomes),
        covariates=tuple(covariates), levels={t: tuple(v) for t, v in levels.items()},
        notes=tuple(notes))
    data = select_treatments(data, treatments, fixed)
    if binary is False:
        return data
    return binarize(data, None if binary is True else binary)


def _check_runs(runs: Table, manifest: dict, subjects: Table, allow_truncated: bool) -> list[str]:
    """Runs against the manifest and the subjects: keys once, known levels, statuses and
    subjects, outcomes of every finished run, the manifest's counts."""
    frame, subject = runs.frame, manifest["subject"]
    check_keys(runs, [manifest["trial"], subject, *manifest["treatments"]], what="run")
    for t, expected in manifest["treatments"].items():
        check_levels(runs, t, expected, hint=f" (the levels in {runs.path.parent / 'manifest.json'})")
    check_levels(runs, "status", list(manifest["status_counts"]))
    unknown = ~frame[subject].isin(subjects.frame[subject]).to_numpy()
    if unknown.any():
        found = sorted(frame.loc[unknown, subject].unique().tolist())
        raise DataFileError(f"{runs.path}: {int(unknown.sum())} run(s) of subject(s) {found[:5]} that "
                            f"{subjects.path.name} does not list ({runs.where(np.flatnonzero(unknown))}); "
                            "expected only the collection's subjects")
    ok = (frame["status"] == "ok").to_numpy()
    for o in manifest["outcomes"]:
        lost = np.flatnonzero(ok & frame[o].isna().to_numpy())
        if len(lost):
            raise DataFileError(f"{runs.path}: {len(lost)} finished run(s) (status 'ok') without a "
                                f"{o!r} value ({runs.where(lost)}); expected every outcome of a finished run")
    counts = frame["status"].value_counts().reindex(list(manifest["status_counts"]), fill_value=0)
    found = {"runs": len(frame), **{s: int(n) for s, n in counts.items()}}
    stated = {"runs": manifest["runs"], **manifest["status_counts"]}
    if found == stated:
        return []
    message = f"{runs.path}: holds {found}, {runs.path.parent / 'manifest.json'} states {stated}"
    if allow_truncated and len(frame) < manifest["runs"]:
        return [f"{message} (allow_truncated)"]
    raise DataFileError(f"{message}; expected the manifest's counts (a cut or spliced file?)")
