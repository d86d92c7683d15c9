"""Study 1's report tables: the agreement of every printed cell and the claims, in the kit's one
vocabulary (:mod:`causaleval.verdicts`)."""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from causaleval import paths, verdicts
from causaleval.graphs import CausalGraph, GraphBatch
from causaleval.learn.learners import get_learner
from causaleval.studies.asia_mag_nced.tables import COUNT_METRICS, FITS, compare, describe_highest, highest_by_k


#: the reading of :data:`READINGS` tested as the cause of the gaps (one of the readings tried)
CAUSE_READING = "causal-learn endpoint matrix"


def printed_values() -> pd.DataFrame:
    """The paper's Tables 1 and 2 as printed (text, so the last printed digit counts): ``network,
    algorithm, metric, printed``, Table 1's metric named ``nCED (k=<k>), MAG`` as in the spread table."""
    rows = []
    for name, metric in (("rehak_table1", None), ("rehak_table2", "metric")):
        path = paths.PAPER_VALUES / f"{name}.csv"
        text = "\n".join(line for line in path.read_text().splitlines() if not line.startswith("#"))
        table = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
        for r in table[table["value"] != ""].to_dict("records"):
            rows.append({"network": r["network"], "algorithm": r["algorithm"],
                         "metric": r[metric] if metric else f"nCED (k={float(r['k']):g}), MAG", "printed": r["value"]})
    return pd.DataFrame(rows)


def alternative_cells(truth_mag: CausalGraph, learned_mag: dict[str, GraphBatch], truths: dict[str, CausalGraph],
                      learned_full: dict[str, dict[str, GraphBatch]], ks: Sequence[float],
                      table2_ks: Sequence[float], paper1: pd.DataFrame, paper2: pd.DataFrame,
                      reading: str = CAUSE_READING) -> pd.DataFrame:
    """Every cell of Tables 1 and 2 (the [0, 1] metrics) under ``reading``: ``network, algorithm,
    metric, ours, sd``, for :func:`agreement` to judge cell by cell."""
    t1, t2 = compare(truth_mag, learned_mag, truths, learned_full, ks, table2_ks, paper1, paper2, reading)
    t1 = t1.assign(metric=[f"nCED (k={k:g}), MAG" for k in t1["k"]])
    return pd.concat([t1, t2])[["network", "algorithm", "metric", "ours", "sd"]].dropna(subset=["ours"])


def agreement(spread: pd.DataFrame, alternative: pd.DataFrame, consistency: pd.DataFrame, n_graphs: int,
              tried: int) -> pd.DataFrame:
    """Every cell of Tables 1 and 2 the paper prints, judged by the kit's one rule
    (:func:`causaleval.verdicts.agreement`: the paper's printed value in the t interval of our mean
    over the ``n_graphs`` graphs, or within half a unit of its last digit). A differing cell of
    causal-learn's learners is re-judged under :data:`CAUSE_READING` with that reading's value of the
    same cell (:func:`causaleval.verdicts.explained`; ``tried`` readings were tried in all). A cell the
    paper's own numbers contradict (a failed check of :func:`paper_consistency`) says so in
    ``reason``. ``single-graph sd`` is the spread of one graph, shown beside, never the verdict."""
    printed = printed_values().set_index(["network", "algorithm", "metric"])["printed"]
    alt = alternative.set_index(["network", "algorithm", "metric"])
    rows = []
    for cell in spread.to_dict("records"):
        key = (cell["network"], cell["algorithm"], cell["metric"])
        if key not in printed.index or pd.isna(cell["ours"]):
            continue
        n = int(cell["graphs"]) if pd.notna(cell.get("graphs")) else n_graphs
        item = " ".join(map(str, key))
        row = verdicts.agreement(verdicts.Interval.from_summary(cell["ours"], cell["sd"], n), printed[key], item=item)
        if row["status"] == verdicts.DIFFERS and key in alt.index and get_learner(key[1]).library == "causal-learn":
            other = alt.loc[key]
            row = verdicts.explained(row, printed[key], CAUSE_READING,
                                     verdicts.Interval.from_summary(other["ours"], other["sd"], n), tried)
        contradicted = _contradicted(cell, consistency)
        if contradicted:
            row["reason"] = "; ".join(filter(None, [row["reason"], contradicted]))
        rows.append({"network": key[0], "algorithm": key[1], "metric": key[2], **row,
                     "single-graph sd": cell["sd"]})
    if not rows:  # the paper prints nothing for these networks
        return pd.DataFrame(columns=["network", "algorithm", "metric", *verdicts.AGREEMENT_COLUMNS, "single-graph sd"])
    return verdicts.agreement_table(rows)


def _contradicted(cell: dict[str, Any], consistency: pd.DataFrame) -> str:
    """The failed checks of the paper's own numbers that bear on this printed cell."""
    failed = consistency[(consistency["table"].astype(str) == "2") & (consistency["kind"] == "the paper's definitions")
                         & (consistency["algorithm"] == cell["algorithm"]) & ~consistency[FITS].astype(bool)]
    found = []
    for c in failed.to_dict("records"):
        if cell["network"] not in str(c["network"]).split(" and "):
            continue
        if c["check"].startswith("nCED") and cell["metric"].startswith("nCED (k="):
            found.append(f"the paper contradicts itself: {c['check']} gives {c['implied']}, it prints {c['printed']}")
        if "count-based rows" in c["check"] and cell["metric"] in COUNT_METRICS:
            found.append(f"the paper prints the same count-based values for {cell['algorithm']} on {c['network']} "
                         f"({c['printed']})")
    return "; ".join(found)


def _yes_no(value: Any) -> str:
    return "yes" if bool(value) else "no"


#: Marks a check of :func:`paper_consistency` as one reading of a reversal's cost in SHD.
_REVERSAL = ", reversal costs "


def _consistency_groups(consistency: pd.DataFrame) -> list[tuple[str, list[dict[str, Any]]]]:
    """The checks of :func:`paper_consistency`, one group per claim: the readings of a reversal's
    cost in SHD (2 or 1) of one table row together, so neither is reported alone; every other
    check on its own."""
    groups: dict[tuple, tuple[str, list[dict[str, Any]]]] = {}
    for c in consistency.to_dict("records"):
        if _REVERSAL in c["check"]:
            key = (c["table"], c["network"], c["algorithm"], "reversal")
            what = "nCED and SHD (DAG) fit each other under either reading of a reversal's cost in SHD (2 or 1)"
        else:
            key, what = (c["table"], c["network"], c["algorithm"], c["check"]), c["check"]
        groups.setdefault(key, (what, []))[1].append(c)
    return list(groups.values())


def _consistency_evidence(c: dict[str, Any], named: bool) -> str:
    """One check's outcome; ``named``: prefixed by the check itself (a reading among several)."""
    misses = c["misses_by"]
    return ((f"{c['check']}: " if named else "")
            + f"{'agree' if c[FITS] else 'disagree'} ({c['kind']}): implied {c['implied']}, printed {c['printed']}"
            + (f" (misses by {misses:.4f})" if pd.notna(misses) and misses > 1e-9 else ""))


def _table1_highest(t1: pd.DataFrame, n_graphs: int) -> dict[str, Any]:
    """Table 1's order of the learners by nCED, tested. At each k the paper's highest learners
    (its printed values' maximum, :func:`highest_by_k`) must lie above every other learner, and
    tie each other. Against it: a learner significantly above one the paper puts highest (Welch,
    one-sided), or two the paper ties significantly apart (Welch, two-sided); for it: each of
    the paper's highest significantly above each other learner (one-sided). Each family is Holm-
    corrected over all k and pairs (:func:`causaleval.verdicts.holm`). ``does not hold`` when a test
    against rejects, ``holds`` when every test for rejects and the paper names no tie (a tie can
    only be contradicted), else ``undecided``: a tie at printed precision decides nothing."""
    by_k = highest_by_k(t1)
    cell = {(r["k"], r["algorithm"]): (float(r["ours"]), float(r["sd"]), n_graphs) for r in t1.to_dict("records")}
    against, support, ties = [], [], False
    for k, leaders in zip(by_k["k"], by_k["highest (paper)"]):
        others = [a for (kk, a) in cell if kk == k and a not in leaders]
        for lead in leaders:
            for other in others:
                against.append((f"k = {k:g}: {other} > {lead}",
                                verdicts.welch_p(cell[k, other], cell[k, lead], "greater")))
                support.append(verdicts.welch_p(cell[k, lead], cell[k, other], "greater"))
        for i, a in enumerate(leaders):
            for b in leaders[i + 1:]:
                ties = True
                against.append((f"k = {k:g}: {a} != {b}", verdicts.welch_p(cell[k, a], cell[k, b])))
    rejected = verdicts.holm([p for _, p in against])
    confirmed = verdicts.holm(support) if support else np.zeros(0, dtype=bool)
    verdict = (verdicts.DOES_NOT_HOLD if rejected.any() else
               verdicts.HOLDS if len(confirmed) and confirmed.all() and not ties else verdicts.UNDECIDED)
    found = ", ".join(f"{what} (p = {p:.3g})" for (what, p), r in zip(against, rejected) if r)
    return verdicts.claim(
        "table1_highest", "Table 1: which learner has the highest (worst) nCED at each k", verdict,
        f"paper: {describe_highest(by_k, 'paper')}; ours at the paper's precision: {describe_highest(by_k, 'ours')}; "
        f"against the paper's order: {int(rejected.sum())} of {len(rejected)} tests reject"
        f"{' (' + found + ')' if found else ''}; for it: {int(confirmed.sum())} of {len(confirmed)} reject"
        f"{'; the paper prints ties, which no test can confirm' if ties else ''}",
        source="Table 1", statistic=min((p for _, p in against), default=float("nan")),
        test=f"Welch t over {n_graphs} graphs per learner, Holm over all k and pairs at family-wise 0.05; "
             "statistic: the smallest p against the paper's order")


def claims(t1_cmp: pd.DataFrame, consistency: pd.DataFrame, shd: pd.DataFrame, behaviour: pd.DataFrame,
           table3: pd.DataFrame, n_graphs: int, prc: pd.DataFrame) -> pd.DataFrame:
    """The paper's statements, one row each in the kit's vocabulary (:mod:`causaleval.verdicts`).

    Evidence about the paper: Table 1's order of the learners by nCED (:func:`_table1_highest`, Welch
    tests over the ``n_graphs`` graphs, Holm-corrected). Checks of the paper against itself (``paper vs itself``): each
    relation its numbers must satisfy (:func:`paper_consistency`; the two readings of a reversal's cost in one
    row, neither alone), which SHD counting its printed values fit (:func:`shd_fit`), its Figure 6
    statements about its own metrics (:func:`figure6_behaviour`); Figure 6(a)'s PRC AUC statement
    under each reading of the curve's area (``prc``, :func:`prc_support`): ``depends on reading``
    when the readings give both outcomes. A Table 3 bound follows from the
    metric's definition, or has no upper end and cannot fail: its
    exhaustive check tests the kit's implementation (``by construction``), never the paper."""
    rows = []
    t1 = t1_cmp.dropna(subset=["paper"])
    if not len(t1):
        rows.append(verdicts.claim("table1_highest", "Table 1: which learner has the highest (worst) nCED at each k",
                                   verdicts.NOT_TESTED, "the paper reports no Table 1 for this network",
                                   source="Table 1"))
    else:
        rows.append(_table1_highest(t1, n_graphs))
    for i, (what, group) in enumerate(_consistency_groups(consistency), start=1):
        c = group[0]
        rows.append(verdicts.claim(
            f"consistency_{i:02d}", f"The paper's numbers agree with each other (Table {c['table']}, {c['network']}, "
            f"{c['algorithm']}): {what}", verdicts.PAPER_VS_ITSELF,
            "; ".join(_consistency_evidence(r, len(group) > 1) for r in group)
            + " (each printed value taken as the interval its printed digits round from)",
            source=f"Table {c['table']}"))
    term = shd[shd["variant"] == shd["column"]]

    def one_per_pair(r: dict) -> float:
        same_cell = ((shd["network"] == r["network"]) & (shd["algorithm"] == r["algorithm"])
                     & (shd["column"] == r["column"]))
        return shd[same_cell & (shd["variant"] != r["column"])]["ours"].iloc[0]

    fits = [f"{r['network']} {r['algorithm']} {r['column']}: paper {r['paper']:g}, term by term {r['ours']:.1f}, "
            f"one per pair {one_per_pair(r):.1f}" for r in term.to_dict("records")]
    rows.append(verdicts.claim(
        "shd_term_by_term", "Table 2's SHD values count eqs. (4)-(5) term by term over ordered pairs (closer to "
        "ours counted so than to ours counted one error per node pair)",
        verdicts.PAPER_VS_ITSELF if fits else verdicts.NOT_TESTED,
        (f"{'fits' if bool(term['closest'].astype(bool).all()) else 'does not fit'}: " + "; ".join(fits)) if fits
        else "no SHD cell printed for these networks", source="Table 2, eqs. 4-5"))
    for r in behaviour.to_dict("records"):
        for prop in ("sensitive", "linear"):
            said = r[f"paper {prop}"]
            if pd.isna(said):
                continue
            statement = (f"Figure 6{r['panel'][:3]}: {r['metric']} is {'' if bool(said) else 'not '}{prop} "
                         f"along {r['panel'][4:]}")
            claim_id = f"figure6_{r['panel'][1]}_{r['metric']}_{prop}"
            readings = (dict(zip(prc["reading"], prc["linear along Figure 6(a)"].astype(bool) == bool(said)))
                        if r["metric"] == "PRC AUC" and prop == "linear" and r["panel"].startswith("(a)") else {})
            depends, outcomes = verdicts.by_reading(readings)
            if depends:
                rows.append(verdicts.claim(claim_id, statement, depends, f"the area under the PRC curve has "
                                           f"{len(readings)} readings (table prc_support): the statement is {outcomes}",
                                           source="Figure 6, Sec. 5.3"))
                continue
            agrees = bool(r[prop]) == bool(said)
            rows.append(verdicts.claim(
                claim_id, statement, verdicts.PAPER_VS_ITSELF,
                f"{'agrees' if agrees else 'disagrees'} with the metric's own definition along the path"
                + (f" under every reading ({outcomes})" if readings else "")
                + f": sensitive {_yes_no(r['sensitive'])}, linear {_yes_no(r['linear'])}", source="Figure 6, Sec. 5.3"))
    for metric, g in table3.groupby("metric", sort=False):
        upper = g["upper_bound"].iloc[0]
        observed = "; ".join(f"observed {r['observed_min']:.3g} to {r['observed_max']:.3g} over {r['pairs']} pairs of "
                             f"{r['graphs']}" for r in g.to_dict("records"))
        within = bool(g["within claimed bounds"].astype(bool).all())
        rows.append(verdicts.claim(
            f"table3_{metric}", f"Table 3: {metric} lies in [{g['lower_bound'].iloc[0]:g}, "
            f"{'no upper bound' if pd.isna(upper) else f'{upper:g}'}]",
            verdicts.BY_CONSTRUCTION,
            ("a bound with no upper end and a lower end the metric's definition sets cannot fail; " if pd.isna(upper)
             else "the bounds follow from the metric's definition (a ratio or an area in the unit square), so the "
             f"enumeration checks the kit's implementation: {'within' if within else 'outside'} them, ") + observed,
            source="Table 3, Sec. 5.4"))
    return verdicts.claims_table(rows).set_index("claim")
