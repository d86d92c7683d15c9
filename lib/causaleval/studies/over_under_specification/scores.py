"""Study 3's scores: the over- and under-specified models of each treatment, scored against the
consistent model by SID, SHD and summed TVs, and Table 2 (min, median and max over the treatments)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from causaleval import metrics
from causaleval.datasets import consistent
from causaleval.effects import bn
from causaleval.graphs import CausalGraph
from causaleval.studies.software_tvd import Domain

MODELS = ("over-specify", "under-specify")
#: Table 2's statistics over treatments, in the paper's column order
STATS = ("min", "median", "max")


def altered_dags(dag: Any, treatments: Sequence[str], outcomes: Sequence[str]) -> list[tuple[str, str, Any]]:
    """``(treatment, model type, DAG)`` for the over- and the under-specified DAG of every treatment."""
    out = []
    for t in treatments:
        out.append((t, "over-specify", consistent.over_specified(dag, t, outcomes)))
        out.append((t, "under-specify", consistent.under_specified(dag, t)))
    return out


def without(graph: CausalGraph, node: str) -> CausalGraph:
    """``graph`` with ``node`` and its edges removed (the induced subgraph on the others)."""
    keep = [i for i, v in enumerate(graph.nodes) if v != node]
    graph.index(node)  # names the graph when the node is missing
    return CausalGraph([graph.nodes[i] for i in keep], graph.matrix[np.ix_(keep, keep)], graph.name)


def sid_both_ways(dag: CausalGraph, altered: CausalGraph, covariate: str) -> dict[str, float]:
    """SID(G, G') on the whole DAG and on the DAG without the biasing covariate's node.
    The covariate (a parent of every treatment) adds ordered pairs whose parent adjustment
    an alteration can spoil, e.g. (C, O) when O loses its only path from C."""
    return {"sid_with_covariate": float(metrics.sid(dag, altered)),
            "sid_without_covariate": float(metrics.sid(without(dag, covariate), without(altered, covariate)))}


def alteration_scores(domain: Domain, dag: Any, sample: pd.DataFrame, *, smoothing: str, ess: float,
                      level: int = 1, sid_covariate: bool = False, structure: bool = True) -> pd.DataFrame:
    """SID, SHD and summed TVs of every altered DAG, all fitted to ``sample``.

    One row per (treatment, model type), plus one row ``model="consistent"`` (treatment
    empty) for the consistent model itself. ``tvd`` is against the consistent model
    fitted to the same sample (the paper's reference), ``tvd_truth`` against the truth
    read off the factorial data; both sum ``TV_{T'=level}(O)`` over every pair (T', O).
    ``sid`` is ``sid_with_covariate`` or ``sid_without_covariate`` (both are kept) as
    ``sid_covariate`` says. ``structure=False`` leaves SID and SHD out (NaN): they do not depend on
    the sample, so repeated samples need them once.
    """
    fit = dict(smoothing=smoothing, ess=ess, cards=domain.cards)
    reference = bn.fit(dag, sample, **fit).tables(domain.pairs)
    base = {"domain": domain.name, "subjects": len(sample)}
    chosen = "sid_with_covariate" if sid_covariate else "sid_without_covariate"
    rows = [{**base, "treatment": "", "model": "consistent", "sid": 0.0, "shd": 0.0, "tvd": 0.0,
             "tvd_truth": metrics.total_tvd(domain.truth, reference, level),
             "sid_with_covariate": 0.0, "sid_without_covariate": 0.0}]
    for t, kind, altered in altered_dags(dag, domain.data.treatments, domain.data.outcomes):
        estimate = bn.fit(altered, sample, **fit).tables(domain.pairs)
        sids = (sid_both_ways(dag, altered, domain.covariate) if structure else
                dict.fromkeys(("sid_with_covariate", "sid_without_covariate"), np.nan))
        rows.append({**base, "treatment": t, "model": kind, "sid": sids[chosen],
                     "shd": float(metrics.shd_dag(dag, altered)) if structure else np.nan,
                     "tvd": metrics.total_tvd(reference, estimate, level),
                     "tvd_truth": metrics.total_tvd(domain.truth, estimate, level), **sids})
    return pd.DataFrame(rows)


def sid_fit(scores: pd.DataFrame, paper: pd.DataFrame) -> pd.DataFrame:
    """Which SID the paper's Table 2 fits: per way of counting, how many of our
    under-specification SIDs (one per treatment) lie inside the range the paper prints for
    under-specification over all its domains (its smallest min to its largest max), and
    our median beside the paper's medians. Over-specification SID is 0 either way."""
    low, high = paper["sid_min"][paper["model"] == "under-specify"].min(), \
        paper["sid_max"][paper["model"] == "under-specify"].max()
    medians = paper.loc[paper["model"] == "under-specify", "sid_median"]
    under = scores[scores["model"] == "under-specify"]
    rows = []
    for column in ("sid_with_covariate", "sid_without_covariate"):
        values = under[column]
        inside = int(values.between(low, high).sum())
        rows.append({"SID counted": column.replace("sid_", "").replace("_", " "),
                     "our values": ", ".join(f"{v:g}" for v in values),
                     "paper's range": f"{low:g}-{high:g}", "inside": f"{inside} of {len(values)}",
                     "inside share": inside / len(values) if len(values) else np.nan,
                     "our median": float(values.median()),
                     "paper's medians": ", ".join(f"{v:g}" for v in medians)})
    return pd.DataFrame(rows).set_index("SID counted")


def table2(scores: pd.DataFrame) -> pd.DataFrame:
    """Paper layout: per (domain, subjects, model type), min / median / max over treatments
    of SID, SHD and TVD; columns ``("SID", "min")``, ... ."""
    altered = scores[scores["model"].isin(MODELS)].rename(columns={"sid": "SID", "shd": "SHD", "tvd": "TVD"})
    table = altered.groupby(["domain", "subjects", "model"], sort=False)[["SID", "SHD", "TVD"]].agg(list(STATS))
    table.index = table.index.set_names("model type", level="model")
    return table


def paper_table2(paper: pd.DataFrame) -> pd.DataFrame:
    """The paper's Table 2 (``data/paper_values/gentzel_supp_table2.csv``) in :func:`table2`'s layout."""
    table = paper.set_index(["domain", "subjects", "model"])
    table.columns = pd.MultiIndex.from_tuples([(c.split("_")[0].upper(), c.split("_")[1]) for c in table.columns])
    table.index = table.index.set_names("model type", level="model")
    return table.loc[:, [(m, s) for m in ("SID", "SHD", "TVD") for s in STATS]]


def beside_paper(ours: pd.DataFrame, paper: pd.DataFrame) -> pd.DataFrame:
    """Our rows and the paper's rows in one table, told apart by the first index level."""
    return pd.concat({"paper": paper, "ours": ours}, names=["values"])
