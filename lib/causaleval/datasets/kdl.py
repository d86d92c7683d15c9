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
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from causaleval import paths
from causaleval.datasets.factorial import FactorialData, binarize, select_treatments

DEFAULT_DIR = paths.DATA / "kdl"


@dataclass(frozen=True)
class KdlSchema:
    """The columns of one KDL file and their roles."""

    domain: str
    file: str
    subject: str
    treatments: tuple[str, ...]
    outcomes: tuple[str, ...]
    covariates: tuple[str, ...]
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
                    "queries_by_user", "length_chars", "total_ref_rows", "favorite_count")),
    "jdk": KdlSchema(
        "jdk", "jdk/results.csv", subject="repo_name",
        treatments=("debug", "obfuscate", "optimize", "parallelgc"),
        outcomes=("num_bytecode_ops", "total_unit_test_time", "allocated_bytes",
                  "jar_file_size_bytes", "compile_time_ms"),
        covariates=("source_ncss", "test_classes", "test_functions", "test_ncss", "test_javadocs")),
    "networking": KdlSchema(
        "networking", "networking/results2.dat", subject="site",
        treatments=("mobile_user_agent", "proxy", "compression"),
        outcomes=("elapsed", "html_attrs", "html_tags", "decompressed_content_length",
                  "raw_content_length"),
        covariates=("server", "server_class", "time", "ping_time"),
        extras=("url", "content_type", "record_count")),
}

_BOOLEAN = {"true": 1, "false": 0, "t": 1, "f": 0, "yes": 1, "no": 0}


def kdl_domains() -> list[str]:
    return sorted(SCHEMAS)


def canonical(name: str) -> str:
    """Lower case, with runs of characters other than letters and digits read as ``_``."""
    return re.sub(r"[^0-9a-z]+", "_", str(name).strip().lower()).strip("_")


def kdl_path(domain: str, data_dir: str | Path | None = None) -> Path:
    schema = _schema(domain)
    return Path(data_dir or DEFAULT_DIR) / schema.file


def load_kdl(
    domain: str, data_dir: str | Path | None = None, *,
    treatments: Sequence[str] | None = None,
    fixed: Mapping[str, object] | None = None,
    binary: Mapping[str, Mapping | str] | None = None,
) -> FactorialData:
    """Read one KDL domain into the kit's factorial layout, with binary treatments.

    ``treatments`` picks which of the schema's treatments to keep (default: all); the
    others are held at one level, ``fixed[t]`` or else their first (control) level, and
    dropped as columns. ``binary`` gives per-treatment rules for
    :func:`~causaleval.datasets.factorial.binarize` (default ``"extremes"``: lowest level
    -> 0, highest -> 1, as the paper's two-setting design). True/False flags become 1/0.
    """
    schema = _schema(domain)
    path = kdl_path(domain, data_dir)
    if not path.exists():
        raise FileNotFoundError(
            f"KDL {domain} data not found at {path}. Put the file from the KDL software-systems "
            f"data sets (Gentzel, Garant, Jensen 2019; UMass Amherst Knowledge Discovery "
            f"Laboratory) there, or pass data_dir= the folder holding {schema.file}.")
    frame = _read(path)
    frame, notes = _match_columns(frame, schema, path)
    notes += _check_rows(frame, schema, path)
    frame, more = _drop_constant(frame, schema)
    notes += more
    frame, more = _to_flags(frame, schema, path)
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


def _read(path: Path) -> pd.DataFrame:
    """CSV, or the whitespace/tab separated text R writes (``.dat``, maybe with row names)."""
    with open(path, encoding="utf-8", errors="replace") as fh:
        header = fh.readline()
    if not header.strip():
        raise ValueError(f"{path}: the file is empty")
    sep = "," if header.count(",") else ("\t" if "\t" in header else r"\s+")
    try:
        frame = pd.read_csv(path, sep=sep, low_memory=False)
    except (pd.errors.ParserError, UnicodeDecodeError) as err:
        raise ValueError(f"{path}: not a readable {'CSV' if sep == ',' else 'table'} file: {err}") from err
    return frame.reset_index(drop=True)  # R's row names, when the header is one short


def _match_columns(frame: pd.DataFrame, schema: KdlSchema, path: Path) -> tuple[pd.DataFrame, list[str]]:
    known = [schema.subject, schema.trial, *schema.treatments, *schema.outcomes,
             *schema.covariates, *schema.extras]
    by_key: dict[str, str] = {}
    for column in frame.columns:
        key = canonical(column)
        if key in by_key:
            raise ValueError(f"{path}: columns {by_key[key]!r} and {column!r} both read as {key!r}")
        by_key[key] = column
    required = [schema.subject, schema.trial, *schema.treatments, *schema.outcomes]
    missing = [c for c in required if c not in by_key]
    if missing:
        raise ValueError(f"{path}: missing column(s) {missing} for the KDL {schema.domain} layout; "
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


def _check_rows(frame: pd.DataFrame, schema: KdlSchema, path: Path) -> list[str]:
    """Rows without subject, trial or a treatment are an error (a cut or garbled file);
    rows without some outcome are kept, with a note."""
    keys = [schema.subject, schema.trial, *schema.treatments]
    broken = frame[keys].isna().any(axis=1)
    if broken.any():
        lines = (broken[broken].index[:5] + 2).tolist()  # 1-based, after the header
        raise ValueError(f"{path}: {int(broken.sum())} row(s) lack a subject, trial or treatment "
                         f"value (lines {lines}...); the file may be cut off or malformed")
    outcomes = [c for c in schema.outcomes if c in frame]
    partial = int(frame[outcomes].isna().any(axis=1).sum())
    return [f"{partial} row(s) with a missing outcome value"] if partial else []


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


def _to_flags(frame: pd.DataFrame, schema: KdlSchema, path: Path) -> tuple[pd.DataFrame, list[str]]:
    """Treatments written as True/False (or yes/no) become 1/0; numeric levels stay."""
    notes = []
    for t in schema.treatments:
        column = frame[t]
        if pd.api.types.is_bool_dtype(column):
            frame[t] = column.astype("int8")
            notes.append(f"treatment {t}: True/False read as 1/0")
        elif not pd.api.types.is_numeric_dtype(column):
            mapped = column.astype(str).str.strip().str.lower().map(_BOOLEAN)
            if mapped.isna().any():
                bad = sorted(column[mapped.isna()].astype(str).unique())[:5]
                raise ValueError(f"{path}: treatment {t!r} has values {bad}; expected numeric "
                                 "levels or True/False")
            frame[t] = mapped.astype("int8")
            notes.append(f"treatment {t}: True/False read as 1/0")
        if frame[t].isna().any():
            raise ValueError(f"{path}: treatment {t!r} has {int(frame[t].isna().sum())} empty values")
    return frame, notes
