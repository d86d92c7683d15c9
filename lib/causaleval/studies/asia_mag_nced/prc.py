"""Readings of the PRC AUC of Rehak et al. (2024, Sec. 2.2) tried against the paper's own Table 2,
and what each says about Figure 6(a)'s statement that the PRC AUC is not linear along TP -> FN.

The curve runs through three graphs: the empty one (recall 0), the learned one (recall R,
precision P) and the complete one (recall 1, precision pi, the truth's edge density over ordered
pairs). The paper does not say how the area under these points is taken; each reading below is
one way, all computed from the same R, P and pi:

* ``step-wise``: R P + (1 - R) pi (the kit's :func:`causaleval.metrics.prc_auc`, equal to
  scikit-learn's ``average_precision_score`` on 0/1 scores);
* ``trapezoid from (0, 1)``: R (1 + P) / 2 + (1 - R) (P + pi) / 2 (scikit-learn's ``auc`` of
  ``precision_recall_curve``, which starts the curve at recall 0, precision 1);
* ``trapezoid from (0, P)``: R P + (1 - R) (P + pi) / 2 (the curve flat from recall 0 to R);
* ``interpolated``: R max(P, pi) + (1 - R) pi (precision replaced by its maximum at any
  larger recall, as in the Pascal VOC average precision).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from causaleval import metrics as M
from causaleval.graphs import CausalGraph
from causaleval.studies.asia_mag_nced.figures import random_path
from causaleval.studies.asia_mag_nced.tables import FITS

Reading = Callable[[np.ndarray, np.ndarray, float], np.ndarray]

#: The readings of the PRC AUC, each a function of (R, P, pi); the first is the kit's.
PRC_READINGS: dict[str, Reading] = {
    "step-wise": lambda r, p, pi: r * p + (1 - r) * pi,
    "trapezoid from (0, 1)": lambda r, p, pi: r * (1 + p) / 2 + (1 - r) * (p + pi) / 2,
    "trapezoid from (0, P)": lambda r, p, pi: r * p + (1 - r) * (p + pi) / 2,
    "interpolated": lambda r, p, pi: r * np.maximum(p, pi) + (1 - r) * pi,
}


def prc_readings(paper2: pd.DataFrame, truths: dict[str, CausalGraph], half: float = 0.005) -> pd.DataFrame:
    """For every Table 2 row with PRC AUC, TPR and F1 printed, and every reading of
    :data:`PRC_READINGS`: the interval the reading implies from the printed TPR and F1 (each the
    interval it rounds from, +-``half``; R = TPR, P = F1 R / (2 R - F1)), the printed PRC AUC and
    whether its rounding interval meets the implied one (:data:`FITS`, with ``misses_by``)."""
    t2 = paper2.pivot_table(index=["network", "algorithm"], columns="metric", values="value")
    rows = []
    needed = ["PRC AUC", "TPR", "F1"]
    for (net, alg), row in t2.reindex(columns=needed).dropna().iterrows():
        n = truths[net].n
        pi = truths[net].directed_matrix().sum() / (n * (n - 1))
        r, f = np.meshgrid(np.linspace(row["TPR"] - half, row["TPR"] + half, 41),
                           np.linspace(row["F1"] - half, row["F1"] + half, 41))
        ok = (2 * r - f > 0) & (r > 0)
        p = np.clip(f * r / np.where(ok, 2 * r - f, 1), 0, 1)
        for reading, fn in PRC_READINGS.items():
            auc = np.where(ok, fn(r, p, pi), np.nan)
            lo, hi = float(np.nanmin(auc)), float(np.nanmax(auc))
            miss = max(0.0, lo - (row["PRC AUC"] + half), (row["PRC AUC"] - half) - hi)
            rows.append(dict(network=net, algorithm=alg, reading=reading, implied=f"[{lo:.3f}, {hi:.3f}]",
                             printed=f"{row['PRC AUC']:.2f}", **{FITS: miss < 1e-12}, misses_by=miss))
    return pd.DataFrame(rows, columns=["network", "algorithm", "reading", "implied", "printed", FITS,
                                       "misses_by"])


def prc_figure6_linear(truth: CausalGraph, seed: int) -> dict[str, bool]:
    """Per reading: is the PRC AUC linear along Figure 6(a)'s path TP -> FN (the truth's edges
    removed one by one in :func:`random_path`'s order, down to the empty graph; the empty graph's
    precision taken as 0, as in the kit)? The paper states it is not."""
    path = random_path(truth, "G*", "G_e", seed)
    r = np.asarray(M.tpr(truth, path), dtype=float)
    p = np.asarray(M.precision(truth, path), dtype=float)
    n = truth.n
    pi = truth.directed_matrix().sum() / (n * (n - 1))
    out = {}
    for reading, fn in PRC_READINGS.items():
        d = np.diff(fn(r, p, pi))
        out[reading] = bool(np.all(np.abs(d - d[0]) < 1e-12))
    return out


def prc_support(readings: pd.DataFrame, linear: dict[str, bool]) -> pd.DataFrame:
    """Per reading: in how many Table 2 rows the paper's printed PRC AUC agrees with the value
    the reading implies from its own TPR and F1, and whether the reading makes the PRC AUC
    linear along Figure 6(a)'s path (the paper: not linear)."""
    support = readings.groupby("reading", sort=False).agg(rows=(FITS, "size"), agree=(FITS, "sum"),
                                                          largest_miss=("misses_by", "max")).reset_index()
    support["linear along Figure 6(a)"] = support["reading"].map(linear)
    return support
