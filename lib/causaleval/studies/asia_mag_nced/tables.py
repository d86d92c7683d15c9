"""Study 1's Tables 1 and 2 (Rehak et al. 2024): nCED on the Asia MAG with its ties, every metric on
Asia and Sachs, the readings of the learned graphs and the gaps to the paper."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from causaleval import metrics as M, report
from causaleval.graphs import CausalGraph, GraphBatch
from causaleval.learn.learners import get_learner
from causaleval.metrics.structural import KOutsideRecommendedRange


# ---------------------------------------------------------------------- Table 1
def _sd(v: np.ndarray) -> float:
    return float(np.std(v, ddof=1)) if len(v) > 1 else 0.0


def table1(truth: CausalGraph, learned: dict[str, GraphBatch], ks: Sequence[float],
           reading: str = "kit") -> pd.DataFrame:
    """Long table: algorithm, k, mean and standard deviation of nCED over the graphs
    (each learned graph read as :func:`read_graphs` says)."""
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KOutsideRecommendedRange)  # the paper's own k = 0, 0.5
        for alg, batch in learned.items():
            batch, _ = read_graphs(alg, batch, reading)
            for k in ks:
                v = M.nced(truth, batch, k)
                rows.append(dict(algorithm=alg, k=round(float(k), 3), value=v.mean(), sd=_sd(v)))
    return pd.DataFrame(rows)


def highest_by_k(t1_cmp: pd.DataFrame, decimals: int = 2) -> pd.DataFrame:
    """Per k, the algorithms with the highest (worst) nCED, ours and the paper's, every
    algorithm that ties for the maximum listed. Both are compared at the paper's printed
    precision (``decimals``), so a tie in the paper is a tie of its printed values."""
    rows = []
    for k, g in t1_cmp.groupby("k", sort=True):
        row: dict[str, Any] = {"k": k}
        for who in ("ours", "paper"):
            v = g[who].round(decimals)
            row[f"highest ({who})"] = (
                tuple(g.loc[v == v.max(), "algorithm"]) if v.notna().any() else ())
        rows.append(row)
    return pd.DataFrame(rows)


def _names(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def describe_highest(by_k: pd.DataFrame, who: str) -> str:
    """A sentence from :func:`highest_by_k`: consecutive k with the same leaders merged,
    e.g. "hc alone at k = 0 to 0.3; hc, pc and fci tie at k = 0.4"."""
    col = f"highest ({who})"
    if not any(by_k[col]):
        return "no values"
    parts, start = [], 0
    ks, leaders = by_k["k"].tolist(), by_k[col].tolist()
    for i in range(1, len(ks) + 1):
        if i == len(ks) or leaders[i] != leaders[start]:
            span = f"k = {ks[start]:g}" if i - 1 == start else f"k = {ks[start]:g} to {ks[i - 1]:g}"
            lead = leaders[start]
            parts.append(f"{lead[0]} alone at {span}" if len(lead) == 1
                         else f"{_names(lead)} tie at {span}")
            start = i
    return "; ".join(parts)


#: the column of the paper's checks against itself (:func:`paper_consistency`, :func:`prc_readings`): whether
#: the interval a printed value rounds from meets the value its other numbers imply
FITS = "printed fits implied"


# ---------------------------------------------------------------------- Table 2
COUNT_METRICS = ("ROC AUC", "PRC AUC", "F1", "TPR", "FPR")

#: Readings of how the paper turned a learned graph into its {-1, 0, 1} matrix; each
#: applies to the graphs of causal-learn's learners (PC, FCI). See :func:`read_graphs`.
READINGS = {
    "kit": "the kit's notation (m[i, j] = the mark at j's end; an undirected or circle mark is -1 and "
           "counts as no edge in the directed-only metrics)",
    "undirected as both directions": "as the kit, but the count-based metrics count a -1 mark as an edge "
                                     "(counting='undirected': a - b claims a -> b and b -> a)",
    "transposed": "the kit's matrix transposed (each mark read at the other end of its edge)",
    "causal-learn endpoint matrix": "causal-learn's own matrix G.graph taken as the {-1, 0, 1} matrix: "
                                    "graph[x, y] is the mark at x's end (1 arrow, -1 tail, a circle's 2 read "
                                    "as -1), so x -> y puts -1 at [x, y] and 1 at [y, x]",
}


def causallearn_matrix(batch: GraphBatch) -> GraphBatch:
    """The matrix causal-learn stores for each graph (``G.graph[x, y]`` = the endpoint at
    x's end: 1 arrow, -1 tail, 2 circle), with a circle's 2 read as -1: entry [x, y] is 1
    where the kit has an arrowhead at x, -1 where x and y are adjacent otherwise, else 0."""
    m = batch.matrices
    mt = np.swapaxes(m, 1, 2)
    adjacent = (m != 0) | (mt != 0)
    return GraphBatch(batch.nodes, np.where(mt == 1, 1, np.where(adjacent, -1, 0)).astype(np.int8),
                      batch.names)


def read_graphs(algorithm: str, batch: GraphBatch, reading: str,
                counting: str = "directed") -> tuple[GraphBatch, str]:
    """(graphs, counting) as ``reading`` (a key of :data:`READINGS`) takes a learner's output.

    Only causal-learn's learners are re-read: the paper's DAG learner (hill climbing) comes
    from another library and gives plain adjacency matrices under every reading.
    """
    if reading not in READINGS:
        raise ValueError(f"reading {reading!r}: expected one of {list(READINGS)}")
    if reading == "kit" or get_learner(algorithm).library != "causal-learn":
        return batch, counting
    if reading == "undirected as both directions":
        return batch, "undirected"
    if reading == "transposed":
        return GraphBatch(batch.nodes, np.swapaxes(batch.matrices, 1, 2), batch.names), counting
    return causallearn_matrix(batch), counting


def bounded_scores(
    truth: CausalGraph, learned: dict[str, GraphBatch], ks: Sequence[float], counting: str = "directed",
    reading: str = "kit",
) -> pd.DataFrame:
    """The Table 2 columns that lie in [0, 1] (the count-based metrics and nCED): algorithm,
    metric, mean and sd over the graphs, starred, graphs (how many were scored).

    ``starred`` marks, as the paper does, a count-based metric computed with directed-only
    counting on graphs that are not DAGs.
    """
    fns = {"ROC AUC": M.roc_auc, "PRC AUC": M.prc_auc, "F1": M.f1, "TPR": M.tpr, "FPR": M.fpr}
    rows = []
    for alg, batch in learned.items():
        star = counting == "directed" and get_learner(alg).output != "DAG"
        batch, count = read_graphs(alg, batch, reading, counting)
        for metric, fn in fns.items():
            v = fn(truth, batch, count)
            rows.append((alg, metric, v.mean(), _sd(v), star, len(batch)))
        for k in ks:
            v = M.nced(truth, batch, k)
            rows.append((alg, f"nCED (k={k:g})", v.mean(), _sd(v), False, len(batch)))
    return pd.DataFrame(rows, columns=["algorithm", "metric", "value", "sd", "starred", "graphs"])


def _in_class(g: CausalGraph, kinds: tuple[str, ...]) -> bool:
    """Whether ``g`` is of a class an SHD is defined on: a DAG, or (for "CPDAG") directed and
    undirected edges whose directed part has no cycle. PC can return a graph with a directed
    cycle, which is neither."""
    if g.is_dag():
        return True
    return "CPDAG" in kinds and g.is_cpdag_like() and CausalGraph(g.nodes, g.directed_matrix()).is_dag()


def table2_scores(
    truth: CausalGraph, learned: dict[str, GraphBatch], ks: Sequence[float], counting: str = "directed",
    metrics: Sequence[str] = (),
) -> pd.DataFrame:
    """Long table of every Table 2 column (mean and sd over the graphs, and how many graphs
    were scored), plus each SHD counted one error per node pair
    (:func:`causaleval.metrics.shd_pairs` on DAGs, :func:`causaleval.metrics.shd_cpdag_pairs`
    on CPDAGs) beside the paper's eqs. (4) and (5) read term by term over ordered pairs.
    ``metrics`` adds columns of one's own (:func:`causaleval.metrics.register_metric`, e.g.
    from a plugin), named "<metric> (<lower|higher> is better)", for the learners whose output
    class the metric accepts.

    SHD (DAG) is defined for DAG learners only and SHD (CPDAG) for DAG and CPDAG learners:
    elsewhere the value is NaN (the paper's "-"). A learned graph outside the class (PC can
    return one with a directed cycle) is left out of the mean; ``graphs`` says how many count.
    """
    shd = {"SHD (DAG)": (M.shd_dag, ("DAG",)), "SHD (DAG, one per pair)": (M.shd_pairs, ("DAG",)),
           "SHD (CPDAG)": (M.shd_cpdag, ("DAG", "CPDAG")),
           "SHD (CPDAG, one per pair)": (M.shd_cpdag_pairs, ("DAG", "CPDAG"))}
    rows = []
    for alg, batch in learned.items():
        kind = get_learner(alg).output
        for metric, (fn, kinds) in shd.items():
            keep = np.array([_in_class(g, kinds) for g in batch]) if kind in kinds else np.zeros(len(batch), bool)
            v = fn(truth, GraphBatch(batch.nodes, batch.matrices[keep])) if keep.any() else np.full(1, np.nan)
            rows.append((alg, metric, v.mean(), _sd(v), False, int(keep.sum())))
    own = [M.get_metric(name) for name in metrics]
    for alg, batch in learned.items():
        for metric in own:
            ok = get_learner(alg).output in metric.graph_types
            v = metric.score(truth, batch) if ok else np.full(1, np.nan)
            rows.append((alg, f"{metric.name} ({metric.better} is better)", v.mean(), _sd(v), False,
                         len(batch) if ok else 0))
    extra = pd.DataFrame(rows, columns=["algorithm", "metric", "value", "sd", "starred", "graphs"])
    order = [*COUNT_METRICS, *shd, *(f"nCED (k={k:g})" for k in ks),
             *(f"{m.name} ({m.better} is better)" for m in own)]
    out = pd.concat([bounded_scores(truth, learned, ks, counting), extra], ignore_index=True)
    out["metric"] = pd.Categorical(out["metric"], order, ordered=True)
    out = out.sort_values(["algorithm", "metric"], key=lambda c: c.map(
        {a: i for i, a in enumerate(learned)}) if c.name == "algorithm" else c, kind="stable")
    return out.assign(metric=out["metric"].astype(str)).reset_index(drop=True)


def table2_display(comparison: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Per network, metrics x (ours | paper) x algorithm as text: two decimals, the paper's
    ``*`` on starred values, empty where a metric is undefined or the paper has "-"."""
    def cell(v: float, star: bool = False) -> str:
        return "" if v != v else f"{v:.2f}{'*' if star else ''}"

    out = {}
    for net, g in comparison.groupby("network", sort=False):
        g = g.assign(ours=[cell(v, s) for v, s in zip(g["ours"], g["starred"])],
                     paper=g["paper"].map(cell))
        out[net] = g.pivot_table(index="algorithm", columns="metric", values=["ours", "paper"],
                                 aggfunc="first", sort=False).T
    return out


# ---------------------------------------------------------------------- spread
def mark_spread(cmp: pd.DataFrame, n_graphs: int, width: float = 2.0) -> pd.DataFrame:
    """Add to a :func:`causaleval.report.beside` join (with our per-graph ``sd``) whether
    each of our means lies within the run-to-run spread of the paper's value.

    * ``within 2 sd``: |ours - paper| <= width * sd, sd being the standard deviation of
      our single learned graphs (how far one graph strays from sample to sample);
    * ``within 2 se``: |ours - paper| <= width * sd * sqrt(2 / n_graphs), the stricter
      test of two means over ``n_graphs`` graphs each, assuming the paper's graphs
      spread as ours do (the paper reports no spread).

    Both are NaN where the paper has no value.
    """
    diff = (cmp["ours"] - cmp["paper"]).abs()
    has = cmp["paper"].notna() & cmp["ours"].notna()
    out = cmp.copy()
    for col, scale in (("within 2 sd", 1.0), ("within 2 se", np.sqrt(2 / n_graphs))):
        out[col] = (diff <= width * scale * cmp["sd"] + 1e-12).where(has)
    return out


def count_within(marked: pd.DataFrame, col: str) -> tuple[int, int]:
    """(cells within, cells with a paper value) of a :func:`mark_spread` column."""
    v = marked[col].dropna()
    return int(v.astype(bool).sum()), len(v)


def gaps(t1_cmp: pd.DataFrame, t2_cmp: pd.DataFrame) -> dict[str, float]:
    """Mean |ours - paper| over the cells both report: Table 1; Table 2 over the metrics in
    [0, 1] (all but SHD); and the paper's starred cells (count-based metrics of the
    learners that do not output DAGs)."""
    t2 = t2_cmp.dropna(subset=["paper", "ours"])
    bounded = t2[~t2["metric"].str.startswith("SHD")]
    starred = bounded[bounded["metric"].isin(COUNT_METRICS)
                      & bounded["algorithm"].map(lambda a: get_learner(a).output != "DAG")]
    return {"Table 1 gap": float(t1_cmp["diff"].abs().mean()),
            "Table 2 gap": float(bounded["diff"].abs().mean()),
            "starred-cell gap": float(starred["diff"].abs().mean())}


def compare(
    truth_mag: CausalGraph, learned_mag: dict[str, GraphBatch], truths: dict[str, CausalGraph],
    learned_full: dict[str, dict[str, GraphBatch]], ks: Sequence[float], table2_ks: Sequence[float],
    paper1: pd.DataFrame, paper2: pd.DataFrame, reading: str = "kit", counting: str = "directed",
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Table 1 and the [0, 1] columns of Table 2 under ``reading``, each joined with the
    paper's values (``ours``, ``paper``, ``diff``)."""
    network = truths and next(iter(truths))
    t1 = table1(truth_mag, learned_mag, ks, reading).assign(network=network)
    t2 = pd.concat([bounded_scores(truths[net], learned_full[net], table2_ks, counting, reading)
                    .assign(network=net) for net in truths], ignore_index=True)
    return (report.beside(t1, paper1, on=["network", "algorithm", "k"]),
            report.beside(t2, paper2.drop(columns="starred"), on=["network", "algorithm", "metric"]))


def reading_table(truth_mag: CausalGraph, learned_mag: dict[str, GraphBatch], truths: dict[str, CausalGraph],
                  learned_full: dict[str, dict[str, GraphBatch]], ks: Sequence[float],
                  table2_ks: Sequence[float], paper1: pd.DataFrame, paper2: pd.DataFrame) -> pd.DataFrame:
    """The gaps of :func:`gaps` under every reading of :data:`READINGS`."""
    rows = []
    for reading in READINGS:
        t1, t2 = compare(truth_mag, learned_mag, truths, learned_full, ks, table2_ks, paper1, paper2, reading)
        rows.append({"reading": reading, **gaps(t1, t2)})
    return pd.DataFrame(rows)
