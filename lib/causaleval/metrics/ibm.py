"""Scores of the IBM causal inference benchmarking framework (Shimoni et al. 2018, eqs. 1-9).

Follows the framework's public scorer (``causalbenchmark/evaluate.py``) where it differs from
the paper's text:

* the true effect of an instance is the mean of ``y1 - y0`` over its counterfactual file, and
  an instance's size n is that file's number of rows;
* ENoRMSE uses the ratio ``(e_hat + delta) / (e + delta)`` with ``delta = 1e-7`` added to the
  signed values; ENCIS divides by ``|e| + delta``;
* individual predictions are matched to the truth by ``sample_id``; individual ENoRMSE and
  RMSE are the square root of the size-level mean of per-instance mean squares.

Per size n, over the instances D_n: ``E_n = sqrt(mean_j (1 - ratio_j)^2)`` (eq. 1; eq. 2 for
individuals), ``RMSE_n = sqrt(mean_j (e_hat_j - e_j)^2)`` (eq. 3), ``B_n = mean_j (e_hat_j - e_j)``
(eq. 4), ``C_n = mean_j 1[l_j <= e_j <= r_j]`` (eq. 5), ``CIC_n = mean_j |e_hat_j - e_j| / (r_j - l_j)``
(eq. 6), ``ENCIS_n = mean_j (r_j - l_j) / (|e_j| + delta)`` (eq. 7). Sizes are aggregated with
weights ``w_n = n |D_n|``: squared accuracy scores as ``sqrt(sum w E_n^2 / sum w)`` (eq. 8), the
others as ``sum w P_n / sum w`` (eq. 9), plus one ``enormse_<n>`` row per size.

Where the public scorer silently returns garbage, these functions raise instead: an interval
with l > r, a zero-width interval (CIC divides by it), NaN or infinite estimates or true
values, missing, duplicate or unknown ufids and sample ids. A true effect of exactly zero is scored as the scorer does:
the ENoRMSE term becomes ``1 - (e_hat + delta) / delta``, about ``-e_hat * 1e7``, and the ENCIS term
``(r - l) / delta``, so one such instance dominates both scores (the paper's reason for adding
the plain RMSE).

File formats (all comma-separated with a header): population predictions ``ufid, effect_size,
li, ri``; individual predictions, one ``<ufid>.csv`` per instance with ``sample_id, y0, y1``;
factual files ``<ufid>.csv`` with ``sample_id, z, y``; counterfactual files ``<ufid>_cf.csv``
with ``sample_id, y0, y1``. Every file is read strictly
(:mod:`causaleval.datasets.readers`): exactly these columns, each named once; at least one
row; ids read as text, present and unique; every other cell a finite number (only a factual
``y`` may be empty: censored); a complete last line. An empty, header-only or damaged file is
refused with its path (and line or column).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from causaleval.datasets.readers import DataFileError, check_keys, read_table
from causaleval.report import atomic_write

DELTA = 1e-7
CF_SUFFIX = "_cf.csv"
POPULATION_COLUMNS = ("ufid", "effect_size", "li", "ri")
INDIVIDUAL_COLUMNS = ("sample_id", "y0", "y1")
FACTUAL_COLUMNS = ("sample_id", "z", "y")


# ---------------------------------------------------------------------------- files
def _read(path: str | os.PathLike, columns: tuple[str, ...], key: str,
          allow_missing: tuple[str, ...] = ()) -> pd.DataFrame:
    """One IBM file, read strictly (:mod:`causaleval.datasets.readers`): exactly ``columns``,
    at least one row, each ``key`` once and as written (read as text), the other columns
    finite numbers, missing only in ``allow_missing``."""
    values = [c for c in columns if c != key]
    table = read_table(path, required=columns, exact=True, numeric=values, text=[key])
    check_keys(table, [key])
    frame = table.frame[list(columns)]
    for column in values:
        empty = np.flatnonzero(frame[column].isna().to_numpy())
        if len(empty) and column not in allow_missing:
            ids = frame[key].iloc[empty[:5]].tolist()
            raise DataFileError(f"{table.path}: missing values for {key}s {ids} in column {column!r} "
                                f"({table.where(empty)}); expected a number in every cell")
    return frame.set_index(key)


def read_population(path: str | os.PathLike) -> pd.DataFrame:
    """A population prediction file: ``effect_size, li, ri`` indexed by ``ufid``."""
    return _read(path, POPULATION_COLUMNS, "ufid")


def read_individual(path: str | os.PathLike) -> pd.DataFrame:
    """An individual prediction file or a counterfactual file: ``y0, y1`` indexed by ``sample_id``."""
    return _read(path, INDIVIDUAL_COLUMNS, "sample_id")


def read_factual(path: str | os.PathLike) -> pd.DataFrame:
    """A factual (observation) file: ``z, y`` indexed by ``sample_id`` (y may be empty: censored)."""
    return _read(path, FACTUAL_COLUMNS, "sample_id", allow_missing=("y",))


def counterfactual_files(cf_dir: str | os.PathLike) -> dict[str, Path]:
    """``ufid -> path`` of every ``<ufid>_cf.csv`` in a folder."""
    folder = Path(cf_dir)
    if not folder.is_dir():
        raise ValueError(f"{folder}: not a folder of counterfactual files")
    found = {p.name[: -len(CF_SUFFIX)]: p for p in sorted(folder.iterdir()) if p.name.lower().endswith(CF_SUFFIX)}
    if not found:
        raise ValueError(f"{folder}: no counterfactual files (*{CF_SUFFIX})")
    return found


def _write_csv(frame: pd.DataFrame, path: Path) -> Path:
    return atomic_write(path, lambda p: frame.to_csv(p, index=False))


def write_population(estimates: pd.DataFrame, path: str | os.PathLike) -> Path:
    """Write ``effect_size, li, ri`` (indexed by ufid) as a population prediction file."""
    frame = estimates.rename_axis("ufid").reset_index()[list(POPULATION_COLUMNS)]
    return _write_csv(frame, Path(path))


def write_instances(frames: Mapping[str, pd.DataFrame], folder: str | os.PathLike, *, kind: str) -> list[Path]:
    """Write per-instance files: ``kind`` is ``"individual"`` (``<ufid>.csv`` with y0, y1),
    ``"counterfactual"`` (``<ufid>_cf.csv`` with y0, y1) or ``"factual"`` (``<ufid>.csv`` with z, y);
    each frame is indexed by sample_id."""
    columns, suffix = {"individual": (INDIVIDUAL_COLUMNS, ".csv"), "counterfactual": (INDIVIDUAL_COLUMNS, CF_SUFFIX),
                       "factual": (FACTUAL_COLUMNS, ".csv")}[kind]
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    return [_write_csv(f.rename_axis("sample_id").reset_index()[list(columns)], folder / f"{ufid}{suffix}")
            for ufid, f in frames.items()]


# ---------------------------------------------------------------------------- scores
def _weights(sizes: pd.Series) -> pd.Series:
    """``w_n = n |D_n|`` per distinct size n (eqs. 8-9)."""
    counts = sizes.value_counts().sort_index()
    return pd.Series(counts.index.to_numpy(float) * counts.to_numpy(), index=counts.index)


def aggregate(by_size: pd.DataFrame, sizes: pd.Series, squared: tuple[str, ...]) -> pd.Series:
    """Eqs. (8)-(9): one score per column of ``by_size`` (indexed by size n), weighted by
    ``n |D_n|``; ``squared`` columns are combined as root mean squares. With more than one
    size, ``enormse_<n>`` rows follow (as the public scorer)."""
    w = _weights(sizes).reindex(by_size.index)
    out = {}
    for column in by_size.columns:
        values = by_size[column]
        if column in squared:
            out[column] = float(np.sqrt((values**2 * w).sum() / w.sum()))
        else:
            out[column] = float((values * w).sum() / w.sum())
    result = pd.Series(out)
    if len(by_size) > 1:
        result = pd.concat([result, by_size["enormse"].rename(lambda n: f"enormse_{n}")])
    return result


def population_statistics(truth: pd.DataFrame, estimates: pd.DataFrame) -> pd.DataFrame:
    """Per instance: size, true effect, estimate, bias, ratio term, coverage, CIC and ENCIS terms.

    ``truth`` is indexed by ufid with ``effect`` (mean of y1 - y0) and ``size``; ``estimates``
    by ufid with ``effect_size, li, ri``.
    """
    unknown = sorted(set(estimates.index) - set(truth.index))
    missing = sorted(set(truth.index) - set(estimates.index))
    if missing:
        raise ValueError(f"population predictions: no row for ufids {missing[:5]} (counterfactual files exist)")
    if unknown:
        raise ValueError(f"population predictions: ufids {unknown[:5]} have no counterfactual file")
    est = estimates.loc[truth.index]
    nan = est.index[est[["effect_size", "li", "ri"]].isna().any(axis=1)].tolist()
    if nan:
        raise ValueError(f"population predictions: missing values for ufids {nan[:5]}")
    infinite = est.index[np.isinf(est[["effect_size", "li", "ri"]].to_numpy(float)).any(axis=1)].tolist()
    if infinite:
        raise ValueError(f"population predictions: infinite values for ufids {infinite[:5]}")
    unknown_truth = truth.index[~np.isfinite(truth["effect"].to_numpy(float))].tolist()
    if unknown_truth:
        raise ValueError(f"true effects: missing or infinite for ufids {unknown_truth[:5]}")
    reversed_ = est.index[est["li"] > est["ri"]].tolist()
    if reversed_:
        raise ValueError(f"population predictions: li > ri (an interval with its ends swapped) "
                         f"for ufids {reversed_[:5]}")
    zero = est.index[est["li"] == est["ri"]].tolist()
    if zero:
        raise ValueError(f"population predictions: zero-width interval (li == ri) for ufids {zero[:5]}; "
                         "CIC divides by the interval width")
    e, e_hat = truth["effect"], est["effect_size"]
    width = est["ri"] - est["li"]
    bias = e_hat - e
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        stats = pd.DataFrame({
            "size": truth["size"].astype(int), "effect": e, "effect_size": e_hat, "bias": bias,
            "enormse": 1.0 - (e_hat + DELTA) / (e + DELTA),
            "coverage": ((est["li"] <= e) & (e <= est["ri"])).astype(float),
            "cic": bias.abs() / width, "encis": width / (e.abs() + DELTA)})
    return _finite_terms(stats, "population")


def _finite_terms(stats: pd.DataFrame, kind: str) -> pd.DataFrame:
    """``stats`` (one row per ufid), or a ValueError naming the first ufid with a term that is
    not finite. The framework adds DELTA to avoid a division by zero (Shimoni et al. 2018, eq. 2) but
    does not define ENoRMSE for a true effect of exactly -DELTA (e + DELTA = 0), nor any
    score whose arithmetic overflows (y1 - y0 or e_hat - e past the float range)."""
    bad = ~np.isfinite(stats.to_numpy(float))
    if bad.any():
        row = int(np.flatnonzero(bad.any(axis=1))[0])
        columns = [c for c, b in zip(stats.columns, bad[row]) if b]
        raise ValueError(f"{kind} scores for ufid {stats.index[row]!r}: terms {columns} are not finite; "
                         f"ENoRMSE is undefined for a true effect of exactly -DELTA = {-DELTA} (e + DELTA = 0) "
                         f"and a difference of values near the float limit overflows; expected an instance "
                         f"whose scores are finite ({int(bad.any(axis=1).sum())} ufid(s) fail)")
    return stats


def population_scores(stats: pd.DataFrame) -> tuple[pd.Series, pd.DataFrame]:
    """Scores of :func:`population_statistics`: (aggregate, per-size table)."""
    g = stats.groupby("size")
    by_size = pd.DataFrame({
        "enormse": np.sqrt((stats["enormse"] ** 2).groupby(stats["size"]).mean()),
        "rmse": np.sqrt((stats["bias"] ** 2).groupby(stats["size"]).mean()),
        "bias": g["bias"].mean(), "coverage": g["coverage"].mean(),
        "encis": g["encis"].mean(), "cic": g["cic"].mean()})
    return aggregate(by_size, stats["size"], squared=("enormse", "rmse")), by_size


def individual_statistics(truth: Mapping[str, pd.DataFrame], estimates: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """Per instance: size, mean bias, mean squared error and mean squared ENoRMSE term of the
    individual effects, matched by sample_id (frames indexed by sample_id with y0, y1)."""
    missing = sorted(set(truth) - set(estimates))
    if missing:
        raise ValueError(f"individual predictions: no file for ufids {missing[:5]} (counterfactual files exist)")
    unknown = sorted(set(estimates) - set(truth))
    if unknown:
        raise ValueError(f"individual predictions: ufids {unknown[:5]} have no counterfactual file")
    rows = {}
    for ufid, gt in truth.items():
        est = estimates[ufid]
        lost, extra = gt.index.difference(est.index), est.index.difference(gt.index)
        if len(lost) or len(extra):
            raise ValueError(f"individual predictions for {ufid}: sample ids {list(lost[:3])} missing"
                             f" and {list(extra[:3])} unknown ({len(lost)} and {len(extra)} in all)")
        est = est.loc[gt.index]
        if not np.isfinite(est[["y0", "y1"]].to_numpy(float)).all():
            raise ValueError(f"individual predictions for {ufid}: missing or infinite y0 or y1 values")
        if not np.isfinite(gt[["y0", "y1"]].to_numpy(float)).all():
            raise ValueError(f"counterfactual truth for {ufid}: missing or infinite y0 or y1 values")
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            e, e_hat = gt["y1"] - gt["y0"], est["y1"] - est["y0"]
            rows[ufid] = {"size": len(gt), "bias": float((e_hat - e).mean()),
                          "mse": float(((e_hat - e) ** 2).mean()),
                          "enormse": float(((1 - (e_hat + DELTA) / (e + DELTA)) ** 2).mean())}
    return _finite_terms(pd.DataFrame.from_dict(rows, orient="index"), "individual")


def individual_scores(stats: pd.DataFrame) -> tuple[pd.Series, pd.DataFrame]:
    """Scores of :func:`individual_statistics`: (aggregate, per-size table)."""
    g = stats.groupby("size")
    by_size = pd.DataFrame({"enormse": np.sqrt(g["enormse"].mean()), "rmse": np.sqrt(g["mse"].mean()),
                            "bias": g["bias"].mean()})
    return aggregate(by_size, stats["size"], squared=("enormse", "rmse")), by_size


def _truth(cf_dir: str | os.PathLike) -> dict[str, pd.DataFrame]:
    return {ufid: read_individual(path) for ufid, path in counterfactual_files(cf_dir).items()}


def score_population(predictions: str | os.PathLike, cf_dir: str | os.PathLike) -> pd.Series:
    """Score a population prediction file against a folder of counterfactual files."""
    truth = {u: (f["y1"] - f["y0"]) for u, f in _truth(cf_dir).items()}
    table = pd.DataFrame({"effect": {u: float(v.mean()) for u, v in truth.items()},
                          "size": {u: len(v) for u, v in truth.items()}})
    return population_scores(population_statistics(table, read_population(predictions)))[0]


def score_individual(predictions_dir: str | os.PathLike, cf_dir: str | os.PathLike) -> pd.Series:
    """Score a folder of individual prediction files against a folder of counterfactual files."""
    folder = Path(predictions_dir)
    if not folder.is_dir():
        raise ValueError(f"{folder}: not a folder of individual prediction files")
    estimates = {p.stem: read_individual(p) for p in sorted(folder.glob("*.csv"))
                 if not p.name.lower().endswith(CF_SUFFIX)}
    return individual_scores(individual_statistics(_truth(cf_dir), estimates))[0]


def calibrated_cic(level: float = 0.95) -> float:
    """CIC (eq. 6 of Shimoni et al. 2018) of a calibrated normal interval: with
    ``e_hat - e ~ N(0, s^2)`` and width ``2 z s``, ``E|e_hat - e| / (r - l) = s sqrt(2/pi) / (2 z s)
    = sqrt(2/pi) / (2 z)``, ``z`` the normal quantile of ``0.5 + level / 2`` (0.204 at 95%)."""
    from scipy import stats

    return float(np.sqrt(2 / np.pi) / (2 * stats.norm.ppf(0.5 + level / 2)))
