"""The original KDL software-system data (Gentzel, Garant, Jensen 2019, supplement Sec. 1).

The three factorial data sets of the paper (PostgreSQL queries, JDK projects, HTTP
requests) were published by the Knowledge Discovery Laboratory (KDL) of UMass Amherst.
They cannot be downloaded by the kit: place them as

    <data_dir>/postgres/results_abbrv_all.csv
    <data_dir>/jdk/results.csv
    <data_dir>/networking/results2.dat

(``data_dir`` defaults to ``data/kdl/``, which git ignores) and :func:`load_kdl` returns
each as a :class:`~causaleval.datasets.factorial.FactorialData`.

Column names are matched case-insensitively with ``.``, ``-`` and spaces read as ``_``
(so ``server.class`` matches ``server_class``). Missing columns are an error naming
them; columns the schema does not know are dropped with a note; constant columns (the
Postgres ``local_*`` blocks, ``record.count``) are dropped with a note.

The file is read strictly (:mod:`causaleval.datasets.readers`: complete last line, same
field count on every line, each column named once), then checked against the layout: trial,
outcomes and numeric covariates hold finite numbers (outcomes none below zero); every row
has a subject, trial and treatments; each (subject, trial, treatments) key appears once;
treatments take only the layout's levels (``levels=`` states others). A row without some
outcome value is kept as a failed run (``status`` ``"missing outcome"``, with a note), so
``.ok()`` and ``.complete()`` leave it out.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from causaleval import paths
from causaleval.datasets.factorial import FactorialData, binarize, select_treatments
from causaleval.datasets.readers import (
    DataFileError,
    Table,
    check_keys,
    check_levels,
    check_numbers,
    read_table,
)

DEFAULT_DIR = paths.DATA / "kdl"


def kdl_dir() -> Path:
    """The folder of the KDL files: ``CAUSALEVAL_KDL_DIR`` when set, else ``data/kdl/`` (git-ignored:
    the files' licence is unknown, so the kit never ships them)."""
    return Path(os.environ.get("CAUSALEVAL_KDL_DIR") or DEFAULT_DIR)


@dataclass(frozen=True)
class KdlSchema:
    """The columns of one KDL file and their roles."""

    domain: str
    file: str
    subject: str
    treatments: tuple[str, ...]
    outcomes: tuple[str, ...]
    covariates: tuple[str, ...]
    levels: Mapping[str, tuple] = field(default_factory=dict)  # treatment levels (True/False as 1/0)
    text: tuple[str, ...] = ()  # covariates that are not numbers
    extras: tuple[str, ...] = ()  # known columns that take no role (identifiers, metadata)
    trial: str = "trial"


SCHEMAS = {
    "postgres": KdlSchema(
        "postgres", "postgres/results_abbrv_all.csv", subject="url",
        treatments=("index_level", "page_cost", "memory_level"),
        outcomes=("runtime", "shared_hit_blocks", "shared_read_blocks", "temp_read_blocks",
                  "temp_written_blocks", "local_hit_blocks", "local_read_blocks",
                  "local_written_blocks"),
        covariates=("rows", "creation_year", "num_ref_tables", "num_joins", "num_group_by",
                    "queries_by_user", "length_chars", "total_ref_rows", "favorite_count"),
        levels={"index_level": (0, 1, 2), "page_cost": (0, 1, 2), "memory_level": (0, 1, 2)}),
    "jdk": KdlSchema(
        "jdk", "jdk/results.csv", subject="repo_name",
        treatments=("debug", "obfuscate", "optimize", "parallelgc"),
        outcomes=("num_bytecode_ops", "total_unit_test_time", "allocated_bytes",
                  "jar_file_size_bytes", "compile_time_ms"),
        covariates=("source_ncss", "test_classes", "test_functions", "test_ncss", "test_javadocs"),
        levels={t: (0, 1) for t in ("debug", "obfuscate", "optimize", "parallelgc")}),
    "networking": KdlSchema(
        "networking", "networking/results2.dat", subject="site",
        treatments=("mobile_user_agent", "proxy", "compression"),
        outcomes=("elapsed", "html_attrs", "html_tags", "decompressed_content_length",
                  "raw_content_length"),
        covariates=("server", "server_class", "time", "ping_time"),
        levels={t: (0, 1) for t in ("mobile_user_agent", "proxy", "compression")},
        text=("server", "server_class", "time"), extras=("url", "content_type", "record_count")),
}

_BOOLEAN = {"true": 1, "false": 0, "t": 1, "f": 0, "yes": 1, "no": 0}


def kdl_domains() -> list[str]:
    return sorted(SCHEMAS)


def canonical(name: str) -> str:
    """Lower case, with runs of characters other than letters and digits read as ``_``."""
    return re.sub(r"[^0-9a-z]+", "_", str(name).strip().lower()).strip("_")


def kdl_path(domain: str, data_dir: str | Path | None = None) -> Path:
    schema = _schema(domain)
    return Path(data_dir or kdl_dir()) / schema.file


def load_kdl(
    domain: str, data_dir: str | Path | None = None, *,
    treatments: Sequence[str] | None = None,
    fixed: Mapping[str, object] | None = None,
    binary: Mapping[str, Mapping | str] | None = None,
    levels: Mapping[str, Sequence] | None = None,
    allow_truncated: bool = False,
) -> FactorialData:
    """Read one KDL domain into the kit's factorial layout, with binary treatments.

    ``treatments`` picks which of the schema's treatments to keep (default: all); the
    others are held at one level, ``fixed[t]`` or else their first (control) level, and
    dropped as columns. ``binary`` gives per-treatment rules for
    :func:`~causaleval.datasets.factorial.binarize` (default ``"extremes"``: lowest level
    -> 0, highest -> 1, as the paper's two-setting design). True/False flags become 1/0.
    ``levels[t]`` replaces the layout's expected levels of treatment ``t`` (a file coded
    otherwise); ``allow_truncated=True`` drops a last row cut off without a line end, with
    a note, instead of refusing the file.
    """
    schema = _schema(domain)
    path = kdl_path(domain, data_dir)
    if not path.exists():
        raise FileNotFoundError(
            f"KDL {domain} data not found at {path}. Put the file from the KDL software-systems "
            f"data sets (Gentzel, Garant, Jensen 2019; UMass Amherst Knowledge Discovery "
            f"Laboratory) there, or pass data_dir= the folder holding {schema.file}.")
    table = read_table(path, sep=None, row_names=True, allow_truncated=allow_truncated,
                       text=lambda column: canonical(column) == schema.subject)  # ids 001 and 1 differ
    frame, notes = _match_columns(table.frame, schema, path)
    notes = [*table.notes, *notes]
    check_keys(table, [schema.subject, schema.trial, *schema.treatments], frame)
    numeric = [schema.trial, *schema.outcomes, *(c for c in schema.covariates if c not in schema.text)]
    check_numbers(table, [c for c in numeric if c in frame], schema.outcomes, frame, whole=[schema.trial])
    frame, more = _to_flags(frame, schema, table)
    notes += more
    _check_levels(table, frame, schema, levels)
    frame, more = _drop_constant(frame, schema)
    notes += more
    frame, more = _mark_missing(table, frame, schema)
    notes += more
    present = set(frame.columns)
    data = FactorialData(
        name=f"kdl/{domain}", frame=frame.reset_index(drop=True),
        subject=schema.subject, trial=schema.trial, treatments=schema.treatments,
        outcomes=tuple(c for c in schema.outcomes if c in present),
        covariates=tuple(c for c in schema.covariates if c in present),
        notes=tuple(notes))
    return binarize(select_treatments(data, treatments, fixed), binary)


def _schema(domain: str) -> KdlSchema:
    if domain not in SCHEMAS:
        raise ValueError(f"unknown KDL domain {domain!r}; known: {', '.join(kdl_domains())}")
    return SCHEMAS[domain]


def _match_columns(frame: pd.DataFrame, schema: KdlSchema, path: Path) -> tuple[pd.DataFrame, list[str]]:
    known = [schema.subject, schema.trial, *schema.treatments, *schema.outcomes,
             *schema.covariates, *schema.extras]
    by_key: dict[str, str] = {}
    for column in frame.columns:
        key = canonical(column)
        if key in by_key:
            raise DataFileError(f"{path}: columns {by_key[key]!r} and {column!r} both read as {key!r}")
        by_key[key] = column
    required = [schema.subject, schema.trial, *schema.treatments, *schema.outcomes]
    missing = [c for c in required if c not in by_key]
    if missing:
        raise DataFileError(f"{path}: missing column(s) {missing} for the KDL {schema.domain} layout; "
                         f"the file has {list(frame.columns)}")
    notes = []
    absent = [c for c in schema.covariates if c not in by_key]
    if absent:
        notes.append(f"covariate column(s) {absent} not in the file")
    unexpected = [by_key[k] for k in by_key if k not in known]
    if unexpected:
        notes.append(f"dropped column(s) the {schema.domain} layout does not know: {unexpected}")
    renamed = {by_key[c]: c for c in known if c in by_key and by_key[c] != c}
    if renamed:
        notes.append(f"renamed columns {renamed}")
    keep = [by_key[c] for c in known if c in by_key and c not in schema.extras]
    return frame[keep].rename(columns=renamed), notes


def _check_levels(table: Table, frame: pd.DataFrame, schema: KdlSchema,
                  levels: Mapping[str, Sequence] | None) -> None:
    """Each treatment at the layout's levels, or ``levels[t]`` where given."""
    levels = dict(levels or {})
    stray = sorted(set(levels) - set(schema.treatments))
    if stray:
        raise ValueError(f"levels= names {stray}, which are not treatments of the KDL "
                         f"{schema.domain} layout ({list(schema.treatments)})")
    for t in schema.treatments:
        expected = tuple(levels.get(t, schema.levels[t]))
        check_levels(table, t, expected, frame,
                     hint=f" (the KDL {schema.domain} layout; pass levels={{{t!r}: [...]}} if "
                          "the file codes this treatment otherwise)")


def _mark_missing(table: Table, frame: pd.DataFrame, schema: KdlSchema) -> tuple[pd.DataFrame, list[str]]:
    """Rows without some outcome are kept as failed runs (``status``); missing covariate
    values are counted in a note."""
    notes = []
    outcomes = [c for c in schema.outcomes if c in frame]
    partial = frame[outcomes].isna().any(axis=1).to_numpy()
    if partial.any():
        rows = np.flatnonzero(partial)
        frame = frame.assign(status=np.where(partial, "missing outcome", "ok"))
        notes.append(f"{len(rows)} row(s) with a missing outcome value ({table.where(rows)}) kept "
                     "with status 'missing outcome': .ok() and .complete() leave them out")
    covariates = [c for c in schema.covariates if c in frame]
    empty = frame[covariates].isna().sum()
    for column, n in empty[empty > 0].items():
        notes.append(f"covariate {column}: {int(n)} missing value(s)")
    return frame, notes


def _drop_constant(frame: pd.DataFrame, schema: KdlSchema) -> tuple[pd.DataFrame, list[str]]:
    droppable = [c for c in (*schema.outcomes, *schema.covariates) if c in frame]
    constant = [c for c in droppable if _is_constant(frame[c])]
    if not constant:
        return frame, []
    return frame.drop(columns=constant), [f"dropped constant column(s) {constant}"]


def _is_constant(column: pd.Series) -> bool:
    """One value (or none) throughout; cheaper than ``nunique`` on millions of rows."""
    missing = column.isna()
    if missing.all():
        return True
    return not missing.any() and bool((column == column.iloc[0]).all())


def _to_flags(frame: pd.DataFrame, schema: KdlSchema, table: Table) -> tuple[pd.DataFrame, list[str]]:
    """Treatments written as True/False (or yes/no) become 1/0; numeric levels stay."""
    notes = []
    for t in schema.treatments:
        column = frame[t]
        if pd.api.types.is_bool_dtype(column):
            frame[t] = column.astype("int8")
            notes.append(f"treatment {t}: True/False read as 1/0")
        elif not pd.api.types.is_numeric_dtype(column):
            mapped = column.astype(str).str.strip().str.lower().map(_BOOLEAN)
            number = pd.to_numeric(column, errors="coerce").notna().to_numpy()
            flag = mapped.notna().to_numpy()
            if number.any() and flag.any():  # the fewer kind is the culprit
                culprit, kind, other = ((flag, "True/False values", "numbers") if flag.sum() <= number.sum()
                                        else (number, "numbers", "True/False values"))
                bad = sorted(column[culprit].astype(str).unique())[:5]
                raise DataFileError(f"{table.path}: treatment {t!r} holds the {kind} {bad} "
                                    f"({table.where(np.flatnonzero(culprit))}) among {other}; expected numeric "
                                    "levels only or True/False only")
            unknown = ~flag & ~number
            if unknown.any():
                bad = sorted(column[unknown].astype(str).unique())[:5]
                raise DataFileError(f"{table.path}: treatment {t!r} has values {bad} "
                                    f"({table.where(np.flatnonzero(unknown))}); expected numeric "
                                    "levels or True/False")
            frame[t] = mapped.astype("int8")
            notes.append(f"treatment {t}: True/False read as 1/0")
    return frame, notes
