"""Study 1's checks of the paper against itself: relations its own numbers must satisfy, and which SHD
counting its printed values fit."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
import pandas as pd

from causaleval.graphs import CausalGraph
from causaleval.studies.asia_mag_nced.tables import COUNT_METRICS, FITS


# ---------------------------------------------------------------------- the paper against itself
def _miss(lo: float, hi: float, printed: float, half: float) -> float:
    """How far the implied interval [lo, hi] lies from the printed value's rounding
    interval [printed - half, printed + half]; 0 when they overlap."""
    return max(0.0, lo - (printed + half), (printed - half) - hi)


def _linear_fit(k: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    """(a, b, r): the line a + b k (b >= 0) with the smallest largest residual r."""
    from scipy.optimize import linprog

    # variables a, b, r; minimise r subject to |a + b k_i - y_i| <= r
    ones = np.ones_like(k)
    a_ub = np.vstack([np.c_[ones, k, -ones], np.c_[-ones, -k, -ones]])
    b_ub = np.r_[y, -y]
    res = linprog([0, 0, 1], A_ub=a_ub, b_ub=b_ub, bounds=[(None, None), (0, None), (0, None)])
    return float(res.x[0]), float(res.x[1]), float(res.x[2])


def paper_consistency(paper1: pd.DataFrame, paper2: pd.DataFrame, truths: dict[str, CausalGraph],
                      dag_learners: Sequence[str] = ("hc",)) -> pd.DataFrame:
    """Relations the paper's own numbers must satisfy, checked with each printed value taken
    as the interval it rounds from (two decimals: +-0.005; SHD printed as an integer: +-0.5).

    * a DAG learner has no -1 entries, so its nCED does not depend on k (eq. 7);
    * for a DAG learner nCED = CED / N(N-1) and CED = SHD (DAG) when a reversed edge costs
      2 (the kit's counting over ordered pairs); if the paper's SHD counts a reversal once,
      nCED lies between SHD / N(N-1) and 2 SHD / N(N-1);
    * ROC AUC = (1 + TPR - FPR) / 2 and PRC AUC = R P + (1 - R) pi (the curves through the
      empty, learned and complete graph, P from F1 and R), pi the truth's edge density;
    * nCED(k) = (hard + soft k) / N(N-1) is a line in k with a slope >= 0 (Table 1 rows);
    * two different networks do not give identical count-based rows.

    One row per check: what it rests on (``kind``: the paper's definitions, or our reading of
    its ROC/PRC curves), the implied interval, the printed value, whether they overlap (:data:`FITS`) and by
    how much they miss each other (``misses_by``, NaN for checks that are not intervals).
    """
    rows = []
    t2 = paper2.pivot_table(index=["network", "algorithm"], columns="metric", values="value")

    def add(table: str, net: str, alg: str, check: str, implied: str, printed: str,
            agrees: bool | None = None, miss: float = np.nan) -> None:
        kind = "our reading of a curve" if "our reading" in check else "the paper's definitions"
        rows.append(dict(table=table, network=net, algorithm=alg, kind=kind, check=check, implied=implied,
                         printed=printed, **{FITS: bool(miss < 1e-12 if agrees is None else agrees)}, misses_by=miss))

    for alg, g in paper1.groupby("algorithm", sort=False):
        net = g["network"].iloc[0]
        if alg in dag_learners:
            add("1", net, alg, "DAG learner: nCED the same at every k", "one value",
                ", ".join(f"{v:.2f}" for v in g["value"].unique()), g["value"].nunique() == 1)
        else:
            a, b, r = _linear_fit(g["k"].to_numpy(float), g["value"].to_numpy(float))
            add("1", net, alg, "nCED a line in k with slope >= 0 (eq. 7)",
                f"best line {a:.3f} + {b:.3f} k misses by {r:.4f}",
                ", ".join(f"{v:.2f}" for v in g["value"]), miss=max(0.0, r - 0.005))
    for (net, alg), row in t2.iterrows():
        n = truths[net].n
        pairs = n * (n - 1)
        nced_cols = [c for c in row.index if c.startswith("nCED") and row.notna()[c]]
        if alg in dag_learners:
            vals = row[nced_cols]
            add("2", net, alg, "DAG learner: nCED the same at every k", "one value",
                ", ".join(f"{v:.2f}" for v in vals), vals.nunique() == 1)
            shd = row.get("SHD (DAG)", np.nan)
            if shd == shd:
                v = float(vals.iloc[0])
                lo, hi = (shd - 0.5) / pairs, (shd + 0.5) / pairs
                add("2", net, alg, f"nCED = SHD (DAG) / N(N-1), N = {n}, reversal costs 2 in SHD",
                    f"{shd / pairs:.3f} (in [{lo:.3f}, {hi:.3f}]) from SHD {shd:g}", f"{v:.2f}",
                    miss=_miss(lo, hi, v, 0.005))
                hi2 = 2 * (shd + 0.5) / pairs
                add("2", net, alg, "nCED between SHD / N(N-1) and 2 SHD / N(N-1), reversal costs 1 in SHD",
                    f"[{lo:.3f}, {hi2:.3f}] from SHD {shd:g}", f"{v:.2f}",
                    miss=_miss(lo, hi2, v, 0.005))
        tpr, fpr, f1 = row.get("TPR"), row.get("FPR"), row.get("F1")
        if pd.notna(row.get("ROC AUC")) and pd.notna(tpr) and pd.notna(fpr):
            lo, hi = (1 + tpr - fpr - 0.01) / 2, (1 + tpr - fpr + 0.01) / 2
            add("2", net, alg, "ROC AUC = (1 + TPR - FPR) / 2 (our reading of the curve)",
                f"[{lo:.3f}, {hi:.3f}]", f"{row['ROC AUC']:.2f}", miss=_miss(lo, hi, row["ROC AUC"], 0.005))
        if pd.notna(row.get("PRC AUC")) and pd.notna(tpr) and pd.notna(f1):
            pi = truths[net].directed_matrix().sum() / pairs
            r, f = np.meshgrid(np.linspace(tpr - 0.005, tpr + 0.005, 41),
                               np.linspace(f1 - 0.005, f1 + 0.005, 41))
            ok = (2 * r - f > 0) & (r > 0)
            p = np.clip(f * r / np.where(ok, 2 * r - f, 1), 0, 1)
            prc = np.where(ok, r * p + (1 - r) * pi, np.nan)
            lo, hi = float(np.nanmin(prc)), float(np.nanmax(prc))
            add("2", net, alg, "PRC AUC = R P + (1 - R) pi, P from F1, R = TPR (our reading of the curve)",
                f"[{lo:.3f}, {hi:.3f}]", f"{row['PRC AUC']:.2f}", miss=_miss(lo, hi, row["PRC AUC"], 0.005))
    nets = list(t2.index.get_level_values("network").unique())
    for alg in t2.index.get_level_values("algorithm").unique():
        for a_net, b_net in itertools.combinations(nets, 2):
            if (a_net, alg) in t2.index and (b_net, alg) in t2.index:
                same = int((t2.loc[(a_net, alg), list(COUNT_METRICS)]
                            == t2.loc[(b_net, alg), list(COUNT_METRICS)]).sum())
                add("2", f"{a_net} and {b_net}", alg, "different networks give different count-based rows",
                    "not all five equal", f"{same} of 5 equal", same < len(COUNT_METRICS))
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------- SHD variants
def shd_fit(t2_cmp: pd.DataFrame) -> pd.DataFrame:
    """For every SHD cell the paper prints: the paper's value beside ours under each SHD
    variant of that column, and which variant lies closest (``closest``).

    SHD (DAG): eq. (4) over ordered pairs (a reversal costs 2) against one error per node
    pair (a reversal costs 1). SHD (CPDAG): eq. (5) term by term over ordered pairs (a pair
    can cost 3) against one error per node pair (Tsamardinos et al. 2006).
    """
    variants = {"SHD (DAG)": ["SHD (DAG)", "SHD (DAG, one per pair)"],
                "SHD (CPDAG)": ["SHD (CPDAG)", "SHD (CPDAG, one per pair)"]}
    rows = []
    cells = t2_cmp.dropna(subset=["paper"])
    cells = cells[cells["metric"].isin(variants)]
    ours = t2_cmp.set_index(["network", "algorithm", "metric"])
    for _, c in cells.iterrows():
        for v in variants[c["metric"]]:
            val = float(ours.loc[(c["network"], c["algorithm"], v), "ours"])
            rows.append(dict(network=c["network"], algorithm=c["algorithm"], column=c["metric"],
                             paper=c["paper"], variant=v, ours=val, distance=abs(val - c["paper"])))
    out = pd.DataFrame(rows, columns=["network", "algorithm", "column", "paper", "variant", "ours", "distance"])
    out["closest"] = out.groupby(["network", "algorithm", "column"])["distance"].transform("min") == out["distance"]
    return out
