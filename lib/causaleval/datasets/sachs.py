"""Sachs et al. (2005) flow-cytometry data, read from the file the cdt 0.6.0 wheel ships.

K. Sachs, O. Perez, D. Pe'er, D. A. Lauffenburger, G. P. Nolan, "Causal protein-signaling
networks derived from multiparameter single-cell data", Science 308(5721):523-529, 2005
(doi:10.1126/science.1105809). ``cdt/data/resources/cyto_full_data.csv`` (Causal Discovery
Toolbox 0.6.0) holds 7,466 rows x 11 proteins: the nine conditions in file order, the first
853 rows being the CD3/CD28 observational condition that Deleu et al. (2022) and Emezue et
al. (2023) use. The file is located with ``importlib.util.find_spec`` (which does not import
cdt and its heavy dependencies); columns are renamed to the node names of pgmpy's ``sachs``
network, whose DAG is the 17-edge consensus graph (the wheel's ``cyto_full_target.csv`` is
not: it has 18 edges and a cycle).
"""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

import pandas as pd


FILE = Path("data") / "resources" / "cyto_full_data.csv"
COLUMNS = {"praf": "Raf", "pmek": "Mek", "plcg": "Plcg", "PIP2": "PIP2", "PIP3": "PIP3", "p44/42": "Erk",
           "pakts473": "Akt", "PKA": "PKA", "PKC": "PKC", "P38": "P38", "pjnk": "Jnk"}
NODES = tuple(COLUMNS.values())
ROWS, OBSERVATIONAL = 7466, 853


def data_path() -> Path:
    """Where the installed cdt wheel keeps the file (cdt is not imported)."""
    spec = importlib.util.find_spec("cdt")
    if spec is None or spec.origin is None:
        raise ImportError("the Sachs data come from the cdt 0.6.0 wheel: pip install cdt==0.6.0")
    return Path(spec.origin).parent / FILE


@functools.lru_cache(maxsize=2)
def load_sachs(path: str | None = None) -> pd.DataFrame:
    """The 853 observational (CD3/CD28) rows, columns named as pgmpy's ``sachs`` nodes,
    raw (not standardised). Refuses a file whose header, row count or values differ."""
    file = Path(path) if path else data_path()
    if not file.exists():
        raise FileNotFoundError(f"Sachs data: {file} does not exist (expected in the cdt 0.6.0 wheel)")
    table = pd.read_csv(file, float_precision="round_trip")
    if list(table.columns) != list(COLUMNS):
        raise ValueError(f"Sachs data {file}: columns {list(table.columns)}; expected {list(COLUMNS)}")
    if len(table) != ROWS:
        raise ValueError(f"Sachs data {file}: {len(table)} rows; expected {ROWS} (nine conditions)")
    bad = [c for c in table.columns
           if not pd.api.types.is_float_dtype(table[c]) and not pd.api.types.is_integer_dtype(table[c])]
    if bad or table.isna().any().any():
        column = (bad or list(table.columns[table.isna().any()]))[0]
        raise ValueError(f"Sachs data {file}: column {column!r} holds missing or non-numeric values")
    return table.iloc[:OBSERVATIONAL].rename(columns=COLUMNS).astype(float).reset_index(drop=True)
