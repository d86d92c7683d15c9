"""Strict reading of the kit's data files: the one place for the rules every loader shares.

The KDL files (:mod:`causaleval.datasets.kdl`), the collected snapshots
(:mod:`causaleval.datasets.software`) and the IBM benchmarking files
(:mod:`causaleval.metrics.ibm`) are read through :func:`read_table` and
:func:`read_manifest`, so a damaged file is refused the same way everywhere, with a
:class:`DataFileError` naming the file, the line (1-based, the header being line 1) or
column, what was found and what was expected:

* the file exists and is not empty; a ``.gz`` file decompresses completely (a truncated or
  corrupt stream is refused, never read in part);
* the text is UTF-8 (a byte-order mark is allowed); ``\\r\\n`` line ends are fine, a carriage
  return elsewhere is not;
* the file has a header and at least one row; the header names each column once and has
  more than one field (a single field holding ``;``, ``|``, a tab or a comma means another
  separator); ``required`` columns are present and, with ``exact``, no others;
* the last line ends with a newline: a file cut inside its last row is refused with that
  line's number, unless ``allow_truncated=True``, which drops the cut row with a note;
* every row has as many fields as the header (blank lines in the middle included); trailing
  blank lines are ignored;
* an empty cell is a missing value, and only an empty cell: pandas' missing-value words (``NA``,
  ``N/A``, ``NULL``, ``None``, ``nan``, ``<NA>``, ...) are read as the text they are, so in a
  ``numeric`` column they are refused as ``N/A!`` is, and so are ``nan`` and ``inf``; ``numeric``
  columns hold finite numbers only, ``nonnegative`` ones no value below zero.

Keys (no missing value, no repeated key, with counts) and treatment levels are checked by
:func:`check_keys` and :func:`check_levels` on the frame a loader has built.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import re
import shlex
import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

WHITESPACE = r"\s+"
_OTHER_SEPARATORS = (";", "|", "\t", ",")


class DataFileError(ValueError):
    """A data file that does not hold what its layout says; the message names the file and,
    where it can, the line, row or column, what was found and what was expected."""


@dataclass(frozen=True)
class Table:
    """A file read by :func:`read_table`: its frame (default index: row ``i`` of the frame is
    data row ``i``), what reading it noted, and how rows map to lines of the file."""

    path: Path
    frame: pd.DataFrame
    notes: tuple[str, ...]
    line_per_row: bool  # False when quoted fields hold line breaks

    def where(self, rows: Iterable[int], limit: int = 5) -> str:
        """``lines [2, 7]`` (or ``data rows [...]`` when rows span several lines) for frame rows."""
        rows = list(rows)[:limit]
        if self.line_per_row:
            return f"line{'s' if len(rows) > 1 else ''} {[int(r) + 2 for r in rows]}"
        return f"data row{'s' if len(rows) > 1 else ''} {[int(r) + 1 for r in rows]}"


def read_bytes(path: str | Path, expected: str = "a header line and rows") -> bytes:
    """The file's bytes, decompressed when it ends in ``.gz``; refused when missing, empty
    (``expected`` says what it should hold), or a truncated or corrupt gzip stream."""
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(f"{path}: a folder, not a file; expected a file holding {expected}")
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file")
    data = path.read_bytes()
    if path.suffix == ".gz":
        try:
            data = gzip.decompress(data)
        except (EOFError, OSError, zlib.error) as err:
            raise DataFileError(f"{path}: truncated or corrupt gzip stream ({type(err).__name__}: "
                                f"{err}); expected a complete gzip file") from err
    if not data.strip():
        raise DataFileError(f"{path}: the file is empty; expected {expected}")
    return data


def read_manifest(path: str | Path, required: Mapping[str, type | tuple[type, ...]]) -> dict:
    """A JSON object with ``required`` keys of the given types; refused (naming the file and
    the key) when missing, empty, truncated, not an object, or a key is absent or mistyped."""
    path = Path(path)
    data = read_bytes(path, "a JSON object")
    try:
        manifest = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise DataFileError(f"{path}: not valid JSON ({err}); the file may be truncated or "
                            "corrupt, expected the JSON object the collector writes") from err
    if not isinstance(manifest, dict):
        raise DataFileError(f"{path}: holds a JSON {type(manifest).__name__}; expected an object")
    for key, kind in required.items():
        if key not in manifest:
            raise DataFileError(f"{path}: no key {key!r}; expected keys {sorted(required)}")
        if not isinstance(manifest[key], kind):
            raise DataFileError(f"{path}: key {key!r} holds {manifest[key]!r}; expected "
                                f"{getattr(kind, '__name__', kind)}")
    return manifest


def read_table(
    path: str | Path, *, sep: str | None = ",", required: Sequence[str] = (), exact: bool = False,
    numeric: Sequence[str] = (), nonnegative: Sequence[str] = (),
    text: Sequence[str] | Callable[[str], bool] = (),
    row_names: bool = False, allow_truncated: bool = False,
) -> Table:
    """Read a delimited text file (optionally ``.gz``) by the rules of this module.

    ``sep=None`` picks ``,`` if the header holds one, else a tab, else runs of whitespace
    (the text R's ``write.table`` writes). ``row_names=True`` accepts R's row names (every
    data row one field longer than the header; the names are dropped). Columns are named as in
    the header; ``required``, ``numeric``, ``nonnegative`` and ``text`` (read as strings, so
    an identifier ``007`` stays ``"007"``) refer to those names; ``text`` may also be a
    predicate on the header's names (for a layout whose column names vary in case).
    """
    path = Path(path)
    data = read_bytes(path)
    header_line = data[: data.find(b"\n") if b"\n" in data else len(data)]
    header_text = _decode(path, header_line).lstrip("\ufeff").rstrip("\r")
    if sep is None:
        sep = "," if "," in header_text else ("\t" if "\t" in header_text else WHITESPACE)
    header = _fields(header_text, sep)
    _check_header(path, header, header_text, sep, required, exact)
    stray = re.search(rb"\r(?!\n)", data) if b"\r" in data else None
    if stray:
        line = data.count(b"\n", 0, stray.start()) + 1
        raise DataFileError(f"{path}: a carriage return inside line {line}; expected lines ending "
                            "in \\n or \\r\\n only")
    notes = []
    if not data.endswith(b"\n"):
        lines = data.count(b"\n") + 1
        if not allow_truncated or lines < 2:
            raise DataFileError(
                f"{path}: line {lines} (the last) has no line end: the file is cut off inside "
                f"that row; expected complete rows ending in a newline (allow_truncated=True "
                "drops the cut row)")
        data = data[: data.rfind(b"\n") + 1]
        notes.append(f"{path.name}: dropped line {lines}, cut off without a line end (allow_truncated)")
    if data.endswith((b"\n\n", b"\n\r\n")):
        data = data.rstrip(b"\r\n") + b"\n"
    try:
        # round_trip: every float exactly as written (the default parser can be one ULP off,
        # so a file the kit wrote would not read back bit for bit)
        frame = pd.read_csv(io.BytesIO(data), sep=sep, low_memory=False, skip_blank_lines=False,
                            dtype=_text_dtypes(header, text) or None, float_precision="round_trip",
                            keep_default_na=False, na_values=[""])
    except UnicodeDecodeError as err:
        _decode(path, data)  # names the line
        raise DataFileError(f"{path}: bytes that are not UTF-8 text; expected a UTF-8 text file") from err
    except pd.errors.ParserError as err:
        raise DataFileError(f"{path}: not a readable table ({str(err).strip()}); expected "
                            f"{len(header)} fields per line separated by {sep!r}") from err
    has_row_names = not isinstance(frame.index, pd.RangeIndex)
    if has_row_names and not row_names:
        raise DataFileError(f"{path}: line 2 has {len(header) + 1} fields, the header {len(header)}; "
                            "expected the same number of fields on every line")
    if frame.empty:
        raise DataFileError(f"{path}: a header and no rows; expected at least one row")
    frame = frame.reset_index(drop=True)
    table = Table(path, frame, tuple(notes), data.count(b"\n") == len(frame) + 1)
    _check_field_counts(table, data, sep, len(header) + has_row_names)
    check_numbers(table, numeric, nonnegative)
    return table


def _text_dtypes(header: Sequence[str], text: Sequence[str] | Callable[[str], bool]) -> dict[str, type]:
    """``read_csv``'s dtype mapping reading the ``text`` columns as strings."""
    return {c: str for c in header if text(c)} if callable(text) else {c: str for c in text}


def check_keys(table: Table, keys: Sequence[str], frame: pd.DataFrame | None = None,
               what: str = "row") -> None:
    """No missing key value, and each ``keys`` combination once; the error gives the number
    of repeated keys, how many repeat a whole row, and the first lines."""
    frame = table.frame if frame is None else frame
    empty = frame[list(keys)].isna()
    if empty.to_numpy().any():
        column = empty.any().idxmax()
        rows = np.flatnonzero(empty[column].to_numpy())
        raise DataFileError(f"{table.path}: {len(rows)} {what}(s) without a {column!r} value "
                            f"({table.where(rows)}); expected a value in every key column "
                            f"{list(keys)} (the file may be cut off or malformed)")
    repeated = frame.duplicated(list(keys), keep="first").to_numpy()
    if repeated.any():
        copies = int(frame.duplicated(keep="first").to_numpy().sum())
        rows = np.flatnonzero(repeated)
        values = frame.iloc[rows[:5]][list(keys)]
        examples = values.iloc[:, 0].tolist() if len(keys) == 1 else list(values.itertuples(index=False, name=None))
        label = keys[0] if len(keys) == 1 else tuple(keys)
        raise DataFileError(
            f"{table.path}: duplicate {label} values {examples} in {len(rows)} {what}(s) ({copies} of "
            f"them identical copies of an earlier row; {table.where(rows)}); expected each key once")


def check_levels(table: Table, column: str, expected: Sequence, frame: pd.DataFrame | None = None,
                 hint: str = "") -> None:
    """Every value of ``column`` is one of the ``expected`` levels; the error lists the
    unexpected levels with their counts and the first lines."""
    values = (table.frame if frame is None else frame)[column]
    outside = ~values.isin(list(expected)).to_numpy()
    if outside.any():
        counts = values[outside].value_counts(dropna=False).sort_index()
        found = ", ".join(f"{level!r}: {n} rows" for level, n in counts.items())
        raise DataFileError(f"{table.path}: column {column!r} has levels outside the expected "
                            f"ones ({found}; {table.where(np.flatnonzero(outside))}); expected "
                            f"levels {list(expected)}{hint}")


def check_numbers(table: Table, numeric: Sequence[str], nonnegative: Sequence[str] = (),
                  frame: pd.DataFrame | None = None, whole: Sequence[str] = ()) -> None:
    """``numeric`` columns hold finite numbers or nothing (an empty cell); ``nonnegative`` ones
    nothing below 0; ``whole`` ones (trial numbers) only whole numbers."""
    frame = table.frame if frame is None else frame
    for column in numeric:
        values = frame[column]
        if pd.api.types.is_bool_dtype(values):  # True/False in a numeric column
            bad = np.arange(len(values))
        elif not pd.api.types.is_numeric_dtype(values):
            parsed = pd.to_numeric(values, errors="coerce")
            bad = np.flatnonzero((parsed.isna() & values.notna()).to_numpy())  # nan and NA words too
            values = parsed
        else:
            bad = ()
        if len(bad):
            raise DataFileError(f"{table.path}: column {column!r} holds {frame[column].iloc[bad[0]]!r} "
                                f"({table.where(bad)}; {len(bad)} such cell(s)); expected numbers "
                                "(only an empty cell is a missing value)")
        array = values.to_numpy(dtype=float)
        infinite = np.flatnonzero(np.isinf(array))
        if len(infinite):
            raise DataFileError(f"{table.path}: column {column!r} holds {float(array[infinite[0]])!r} "
                                f"({table.where(infinite)}); expected finite numbers")
        if column in whole:
            fractional = np.flatnonzero(np.isfinite(array) & (array != np.round(array)))
            if len(fractional):
                raise DataFileError(f"{table.path}: column {column!r} holds {float(array[fractional[0]])!r} "
                                    f"({table.where(fractional)}; {len(fractional)} such cell(s)); "
                                    "expected whole numbers")
        if column in nonnegative:
            negative = np.flatnonzero(array < 0)
            if len(negative):
                raise DataFileError(f"{table.path}: column {column!r} holds {float(array[negative[0]])!r} "
                                    f"({table.where(negative)}; {len(negative)} negative cell(s)); "
                                    "expected values >= 0")


# ---------------------------------------------------------------------------- helpers
def _decode(path: Path, raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw.count(b"\n", 0, err.start) + 1
        raise DataFileError(f"{path}: bytes {raw[err.start:err.end]!r} that are not UTF-8 text on "
                            f"line {line}; expected a UTF-8 text file (the file may be corrupt)") from err


def _fields(line: str, sep: str) -> list[str]:
    """The fields of one line as the reader splits them (quotes removed)."""
    if sep == WHITESPACE:
        try:
            return shlex.split(line, posix=True)
        except ValueError:  # an unbalanced quote: counted as the plain split would
            return line.split()
    return next(csv.reader([line], delimiter=sep), [])


def _check_header(path: Path, header: list[str], text: str, sep: str, required: Sequence[str],
                  exact: bool) -> None:
    if len(header) == 1:
        other = [s for s in _OTHER_SEPARATORS if s != sep and s in text]
        hint = f" (it holds {other[0]!r}: another separator?)" if other else ""
        wanted = f"columns {list(required)}" if required else "several columns"
        raise DataFileError(f"{path}: the header {text!r} is a single field{hint}; expected "
                            f"{wanted} separated by {sep!r}")
    repeated = sorted({h for h in header if header.count(h) > 1})
    if repeated:
        raise DataFileError(f"{path}: the header names column(s) {repeated} more than once; "
                            "expected each column once")
    missing = [c for c in required if c not in header]
    if missing:
        raise DataFileError(f"{path}: missing columns {missing}; expected {list(required)}, "
                            f"the header has {header}")
    extra = [c for c in header if c not in required]
    if exact and extra:
        raise DataFileError(f"{path}: unexpected column(s) {extra}; expected exactly {list(required)}")


def _check_field_counts(table: Table, data: bytes, sep: str, expected: int) -> None:
    """A row with fewer fields than the header is padded with missing values by pandas, so
    its last column is empty: count the fields of exactly those rows' lines."""
    candidates = np.flatnonzero(table.frame.iloc[:, -1].isna().to_numpy())
    if not len(candidates):
        return
    if table.line_per_row:
        counts = _line_field_counts(table.path, data, sep, candidates + 1)
    else:  # quoted line breaks: let the csv module find the records
        records = list(csv.reader(io.StringIO(_decode(table.path, data)), delimiter=sep))[1:]
        counts = np.array([len(records[r]) for r in candidates])
    short = counts != expected
    if short.any():
        rows = candidates[short]
        raise DataFileError(f"{table.path}: {len(rows)} row(s) with too few fields "
                            f"({table.where(rows)}: {counts[short][:5].tolist()} fields); expected "
                            f"{expected} fields on every line (a blank or cut line?)")


def _line_field_counts(path: Path, data: bytes, sep: str, lines: np.ndarray) -> np.ndarray:
    """Fields on each of ``lines`` (0-based, increasing; ``data`` ends in a newline):
    separators counted with numpy, lines holding a quote (or split on whitespace) parsed."""
    buf = np.frombuffer(data, np.uint8)
    ends = np.flatnonzero(buf == ord("\n"))
    starts = np.concatenate([[0], ends[:-1] + 1])[lines]
    stops = ends[lines]
    bounds = np.column_stack([starts, stops]).ravel()  # sums over [start, stop) at even places
    if sep == WHITESPACE:
        parse = np.ones(len(lines), dtype=bool)
        counts = np.zeros(len(lines), dtype=np.int64)
    else:
        counts = np.add.reduceat(buf == ord(sep), bounds, dtype=np.int64)[::2] + 1
        parse = np.add.reduceat(buf == ord('"'), bounds, dtype=np.int64)[::2] > 0
    counts[starts == stops] = 0  # blank lines
    for i in np.flatnonzero(parse):
        counts[i] = len(_fields(_decode(path, data[starts[i]:stops[i]]).rstrip("\r"), sep))
    return counts
