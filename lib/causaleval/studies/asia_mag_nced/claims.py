"""Study 1's report tables: the agreement of every printed cell and the claims, in the kit's one
vocabulary (:mod:`causaleval.verdicts`)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from causaleval.learn.learners import get_learner
from causaleval.studies.asia_mag_nced.tables import COUNT_METRICS, describe_highest, highest_by_k


# ---------------------------------------------------------------------- the report's tables
#: the reading of :data:`READINGS` tested as the cause of the gaps, and by how much it must
#: shrink a group's mean gap (to at most this share of the kit's) to explain that group's cells
CAUSE_READING = "causal-learn endpoint matrix"
CLOSES = 0.5


def _gap_group(algorithm: str, metric: str) -> str | None:
    """The gap of :func:`gaps` (a column of :func:`reading_table`) that measures a cell's kind
    alone: Table 1 (nCED against the MAG) or the starred cells; None for the other Table 2
    cells, whose gap mixes them with the starred cells (it cannot explain them)."""
    if metric.endswith(", MAG"):
        return "Table 1 gap"
    if metric in COUNT_METRICS and get_learner(algorithm).output != "DAG":
        return "starred-cell gap"
    return None


def _reasons(cell: dict[str, Any], readings: pd.DataFrame, consistency: pd.DataFrame) -> list[str]:
    """Computed reasons why a cell differs from the paper: the reading :data:`CAUSE_READING`
    closes the mean gap of the cell's group (causal-learn's learners only), or the paper's own
    numbers contradict its printed value (a failed check of :func:`paper_consistency`)."""
    found = []
    group = _gap_group(cell["algorithm"], cell["metric"])
    if group and get_learner(cell["algorithm"]).library == "causal-learn":
        kit, other = readings.loc["kit", group], readings.loc[CAUSE_READING, group]
        if other <= CLOSES * kit:
            found.append(f"read as {CAUSE_READING}, the mean {group} falls from {kit:.3f} to {other:.3f}")
    failed = consistency[(consistency["table"].astype(str) == "2") & (consistency["kind"] == "the paper's definitions")
                         & (consistency["algorithm"] == cell["algorithm"]) & ~consistency["holds"].astype(bool)]
    for c in failed.to_dict("records"):
        if cell["network"] not in str(c["network"]).split(" and "):
            continue
        if c["check"].startswith("nCED") and cell["metric"].startswith("nCED (k=") and group is None:
            found.append(f"the paper contradicts itself: {c['check']} gives {c['implied']}, it prints {c['printed']}")
        if "count-based rows" in c["check"] and cell["metric"] in COUNT_METRICS:
            found.append(f"the paper prints the same count-based values for {cell['algorithm']} on {c['network']} "
                         f"({c['printed']})")
    return found


def agreement(spread: pd.DataFrame, readings: pd.DataFrame, consistency: pd.DataFrame) -> pd.DataFrame:
    """Every cell of Tables 1 and 2 the paper prints, ours beside it (``spread``: the
    notebook's spread table with columns network, algorithm, metric, ours, sd, paper, within
    2 sd). ``status``: *matches* within the run-to-run spread (|ours - paper| <= 2 sd), else
    *differs, explained* when :func:`_reasons` computes a reason from the readings table
    (:func:`reading_table`) or the paper's self-consistency checks (:func:`paper_consistency`),
    else *differs, unexplained*."""
    by_reading = readings.set_index("reading")
    rows = []
    for cell in spread.to_dict("records"):
        within = pd.notna(cell["within 2 sd"]) and bool(cell["within 2 sd"])
        reasons = [] if within else _reasons(cell, by_reading, consistency)
        rows.append({k: cell[k] for k in ("network", "algorithm", "metric", "ours", "sd", "paper")}
                    | {"status": "matches" if within else ("differs, explained" if reasons else "differs, unexplained"),
                       "reason": "; ".join(reasons)})
    return pd.DataFrame(rows, columns=["network", "algorithm", "metric", "ours", "sd", "paper", "status", "reason"])


def claims(t1_cmp: pd.DataFrame, consistency: pd.DataFrame, shd: pd.DataFrame, behaviour: pd.DataFrame,
           table3: pd.DataFrame) -> pd.DataFrame:
    """The paper's statements tested here, one row each (index ``claim``; ``statement``,
    ``verdict`` True / False / None when untestable, ``evidence``): Table 1's order of the
    learners by nCED (:func:`highest_by_k`), each self-consistency check of its numbers
    (:func:`paper_consistency`), that its SHD columns count eqs. (4)-(5) term by term
    (:func:`shd_fit`), its Figure 6 statements (:func:`figure6_behaviour` joined with
    them) and its Table 3 bounds (:func:`check_bounds`)."""
    rows = []
    t1 = t1_cmp.dropna(subset=["paper"])
    by_k = highest_by_k(t1) if len(t1) else None
    rows.append({"claim": "table1_highest",
                 "statement": "Table 1: which learner has the highest (worst) nCED at each k",
                 "verdict": None if by_k is None else bool((by_k["highest (ours)"] == by_k["highest (paper)"]).all()),
                 "evidence": "the paper reports no Table 1 for this network" if by_k is None else
                             f"paper: {describe_highest(by_k, 'paper')}; ours: {describe_highest(by_k, 'ours')}"})
    for i, c in enumerate(consistency.to_dict("records"), start=1):
        misses = c["misses_by"]
        rows.append({"claim": f"consistency_{i:02d}",
                     "statement": f"The paper's numbers agree with each other (Table {c['table']}, {c['network']}, "
                                  f"{c['algorithm']}): {c['check']}",
                     "verdict": bool(c["holds"]),
                     "evidence": f"{c['kind']}: implied {c['implied']}, printed {c['printed']}"
                                 + (f" (misses by {misses:.4f})" if pd.notna(misses) and misses > 1e-9 else "")})
    term = shd[shd["variant"] == shd["column"]]
    fits = [f"{r['network']} {r['algorithm']} {r['column']}: paper {r['paper']:g}, term by term {r['ours']:.1f}, "
            f"one per pair {shd[(shd['network'] == r['network']) & (shd['algorithm'] == r['algorithm']) & (shd['column'] == r['column']) & (shd['variant'] != r['column'])]['ours'].iloc[0]:.1f}"
            for r in term.to_dict("records")]
    rows.append({"claim": "shd_term_by_term",
                 "statement": "Table 2's SHD values count eqs. (4)-(5) term by term over ordered pairs (closer to "
                              "ours counted so than to ours counted one error per node pair)",
                 "verdict": bool(term["closest"].astype(bool).all()) if len(term) else None,
                 "evidence": "; ".join(fits) if fits else "no SHD cell printed for these networks"})
    for r in behaviour.to_dict("records"):
        for prop in ("sensitive", "linear"):
            said = r[f"paper {prop}"]
            if pd.isna(said):
                continue
            rows.append({"claim": f"figure6_{r['panel'][1]}_{r['metric']}_{prop}",
                         "statement": f"Figure 6{r['panel'][:3]}: {r['metric']} is {'' if bool(said) else 'not '}{prop} "
                                      f"along {r['panel'][4:]}",
                         "verdict": bool(r[prop]) == bool(said),
                         "evidence": f"ours along the path: sensitive {bool(r['sensitive'])}, linear {bool(r['linear'])}"})
    for metric, g in table3.groupby("metric", sort=False):
        upper = g["upper_bound"].iloc[0]
        rows.append({"claim": f"table3_{metric}",
                     "statement": f"Table 3: {metric} lies in [{g['lower_bound'].iloc[0]:g}, "
                                  f"{'no upper bound' if pd.isna(upper) else f'{upper:g}'}]",
                     "verdict": bool(g["within claimed bounds"].astype(bool).all()),
                     "evidence": "; ".join(f"observed {r['observed_min']:.3g} to {r['observed_max']:.3g} over "
                                           f"{r['pairs']} pairs of {r['graphs']}" for r in g.to_dict("records"))})
    return pd.DataFrame(rows).set_index("claim")
