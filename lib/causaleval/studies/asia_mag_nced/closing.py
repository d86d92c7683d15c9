"""Study 1's closing comparison, every number and verdict taken from the tables."""

from __future__ import annotations

import numpy as np
import pandas as pd

from causaleval import verdicts
from causaleval.studies.asia_mag_nced.tables import FITS, count_within, describe_highest, highest_by_k


# ---------------------------------------------------------------------- closing comparison
def _of(pair: tuple[int, int]) -> str:
    return f"{pair[0]} of {pair[1]}"


def _spearman(ours: pd.Series, paper: pd.Series) -> str:
    """Spearman's r with its 95% interval (:func:`causaleval.verdicts.correlation_interval` with
    the spread 1.06 of Fieller, Hartley and Pearson 1957); undefined below four cells."""
    from scipy.stats import spearmanr

    r, n = float(spearmanr(ours, paper).statistic), len(ours)
    if n < 4 or not np.isfinite(r) or abs(r) == 1:
        return f"{r:.3f} (no interval: {n} cells)"
    low, high = verdicts.correlation_interval(r, n, spread=1.06)
    return f"{r:.3f} [{low:.3f}, {high:.3f}] over {n} cells"


def agreement_summary(
    t1_cmp: pd.DataFrame, t2_cmp: pd.DataFrame, table3: pd.DataFrame, behaviour: pd.DataFrame,
) -> dict[str, str]:
    """The comparisons the notebook's closing section speaks of, in words, computed from its
    tables.

    ``t1_cmp`` and ``t2_cmp`` are :func:`causaleval.report.beside` joins marked by
    :func:`mark_spread`, ``table3`` comes from :func:`check_bounds` and ``behaviour`` is
    :func:`figure6_behaviour` joined with the paper's statements (columns ``paper
    sensitive``, ``paper linear``).
    """
    summary: dict[str, str] = {}
    t1 = t1_cmp.dropna(subset=["paper"])
    if len(t1):
        by_k = highest_by_k(t1)
        summary |= {
            "Table 1: cells both report": str(len(t1)),
            "Table 1: mean |ours - paper|": f"{t1['diff'].abs().mean():.3f}",
            "Table 1: Spearman rank correlation of ours and paper (95% interval)": _spearman(t1["ours"], t1["paper"]),
            "Table 1: highest nCED, paper": describe_highest(by_k, "paper"),
            "Table 1: highest nCED, ours": describe_highest(by_k, "ours"),
            "Table 1: our cells within 2 sd of the paper value": _of(count_within(t1, "within 2 sd")),
            "Table 1: our cells within 2 se of the paper value": _of(count_within(t1, "within 2 se")),
        }
    else:
        summary["Table 1"] = "the paper reports no values for these parameters"
    reported = t2_cmp.dropna(subset=["paper", "ours"])
    bounded = reported[~reported["metric"].str.startswith("SHD")]
    summary["Table 2: cells both report"] = str(len(reported))
    if len(bounded):
        summary["Table 2: mean |ours - paper| over those in [0, 1] (all but SHD)"] = (
            f"{bounded['diff'].abs().mean():.3f}")
        summary["Table 2: our cells within 2 sd of the paper value"] = _of(count_within(reported, "within 2 sd"))
        summary["Table 2: our cells within 2 se of the paper value"] = _of(count_within(reported, "within 2 se"))
    stated = pd.concat([
        behaviour[[ours, f"paper {ours}"]].set_axis(["ours", "paper"], axis=1)
        for ours in ("sensitive", "linear")]).dropna()
    within = table3["within claimed bounds"]
    return summary | {
        "Table 3: metric rows whose observed values lie within the paper bounds":
            _of((int(within.sum()), len(within))),
        "Figure 6: paper statements confirmed": _of((int((stated["ours"] == stated["paper"]).sum()), len(stated))),
    }


def _comparison_paragraphs(summary: dict[str, str], agreement: pd.DataFrame, readings: pd.DataFrame,
                           sensitivity: pd.DataFrame) -> list[str]:
    """The closing paragraphs that compare our Tables 1 and 2 with the paper's, cell by cell (the
    ``agreement`` table of :func:`causaleval.studies.asia_mag_nced.claims.agreement`), and what the
    readings and the sweep measured."""
    lines = []
    table1 = agreement["metric"].str.endswith(", MAG")
    for name, cells in (("Table 1", agreement[table1]), ("Table 2", agreement[~table1])):
        if not len(cells):
            continue
        counts = ", ".join(f"{n} {status}" for status, n in cells["status"].value_counts().items())
        explained = cells[cells["status"] == verdicts.EXPLAINED]
        lines.append(f"**{name}.** Of {len(cells)} printed cells: {counts} (the paper's value in our 95% interval over "
                     "the graphs, or within half a unit of its last digit; *explained*: so under the reading named "
                     "in the row)." + (f" Explained cells: {', '.join(explained['item'])}." if len(explained) else ""))
    if "Table 1: highest nCED, paper" in summary:
        lines.append(f"**Table 1's order.** In the paper the highest (worst) nCED goes to "
                     f"{summary['Table 1: highest nCED, paper']}; in our run to "
                     f"{summary['Table 1: highest nCED, ours']}; Spearman's r of the cells "
                     f"{summary['Table 1: Spearman rank correlation of ours and paper (95% interval)']}.")
    kit = readings.set_index("reading").loc["kit"]
    sens = sensitivity[sensitivity["reading"] == "kit"].dropna(subset=["Table 1 gap", "Table 2 gap"])
    if len(sens):
        best = sens.loc[(sens["Table 1 gap"] + sens["Table 2 gap"]).idxmin()]
        lines.append(
            f"**The sweep.** Of the {len(sens)} settings swept (tests, alphas, sample sizes, on fewer graphs), the "
            f"closest to the paper under the kit's reading is {best['ci_test']} at alpha = {best['alpha']:g} on "
            f"{int(best['n_samples']):,} rows (mean Table 1 gap {best['Table 1 gap']:.3f}, Table 2 gap "
            f"{best['Table 2 gap']:.3f}; the main run: {kit['Table 1 gap']:.3f}, {kit['Table 2 gap']:.3f}).")
    return lines


def _prc_paragraph(prc: pd.DataFrame) -> str:
    """The PRC AUC readings (:func:`prc_support`) in one paragraph: how many Table 2 rows each
    reading reproduces from the paper's own TPR and F1, and which make Figure 6(a)'s statement
    (not linear along TP -> FN) true."""
    best = prc["agree"].max()
    nonlinear = prc.loc[~prc["linear along Figure 6(a)"].astype(bool), "reading"].tolist()
    full = prc.loc[prc["agree"] == prc["rows"], "reading"].tolist()
    verdict = (f"every row under {', '.join(full)}" if full else "no reading reproduces every row")
    return (f"**PRC AUC.** Of {len(prc)} readings of the area under the three-point curve, the paper's printed "
            f"PRC AUC agrees with its own TPR and F1 in at most {int(best)} of {int(prc['rows'].max())} rows ("
            + "; ".join(f"{r.reading} {int(r.agree)}" for r in prc.itertuples()) + f"): {verdict}; the kit's "
            f"tables use the {prc['reading'].iloc[0]} reading. Figure 6(a)'s statement that the PRC AUC is "
            "not linear along TP -> FN is true under " + (", ".join(nonlinear) if nonlinear else "none of them")
            + " and false under the others (table prc_support).")


def closing_markdown(
    summary: dict[str, str], agreement: pd.DataFrame, readings: pd.DataFrame, sensitivity: pd.DataFrame,
    consistency: pd.DataFrame, shd: pd.DataFrame, behaviour: pd.DataFrame, prc: pd.DataFrame | None = None,
) -> str:
    """The closing paragraphs of notebook 01, every number and verdict taken from the tables
    (on networks the paper does not report, a sentence saying so replaces the comparisons)."""
    lines = []
    if readings["Table 2 gap"].isna().all():
        lines.append("**Tables 1 and 2.** The paper reports no values for this run's networks, so no cell is "
                     "compared with it, and the readings and the sweep measure no gap.")
    else:
        lines += _comparison_paragraphs(summary, agreement, readings, sensitivity)
    own = consistency[consistency["kind"] == "the paper's definitions"]
    curves = consistency[consistency["kind"] != "the paper's definitions"]
    failed = own[~own[FITS]]
    lines.append(
        f"**The paper against itself.** {int(own[FITS].sum())} of {len(own)} relations that follow from its "
        "definitions hold; these do not: "
        + "; ".join(f"{r.check} ({r.network}, {r.algorithm}: implied {r.implied}, printed {r.printed})"
                    for r in failed.itertuples()) + ". "
        + "; ".join(f"{c.replace(' (our reading of the curve)', '')} (our reading of the curve) holds in "
                    f"{int(g[FITS].sum())} of {len(g)} rows"
                    + (f", missing by up to {g['misses_by'].max():.4f}" if not g[FITS].all() else "")
                    for c, g in curves.groupby("check", sort=False)) + ".")
    if prc is not None and len(prc):
        lines.append(_prc_paragraph(prc))
    picks = []
    for (net, alg, col), g in shd.groupby(["network", "algorithm", "column"], sort=False):
        best = g[g["closest"]].iloc[0]
        other = g[g["variant"] != best["variant"]].iloc[0]
        picks.append(f"{net} {alg} {col} {best['paper']:g}: {best['variant']} {best['ours']:.1f} "
                     f"(against {other['variant']} {other['ours']:.1f})")
    if picks:
        lines.append("**SHD.** For each SHD cell the paper prints, our closer counting: " + "; ".join(picks)
                     + ".")
    differ = []
    for prop in ("sensitive", "linear"):
        stated = behaviour.dropna(subset=[f"paper {prop}"])
        for _, r in stated[stated[prop].astype(bool) != stated[f"paper {prop}"].astype(bool)].iterrows():
            differ.append(f"{r['metric']} {prop} along {r['panel']} (paper: {'yes' if r[f'paper {prop}'] else 'no'},"
                          f" ours: {'yes' if r[prop] else 'no'})")
    lines.append(
        f"**Elsewhere.** {summary['Table 3: metric rows whose observed values lie within the paper bounds']} "
        "metric rows of Table 3 stay within the paper's bounds, and "
        f"{summary['Figure 6: paper statements confirmed']} statements the paper makes about Figure 6 are "
        "confirmed" + (f"; not: {'; '.join(differ)}." if differ else "."))
    return "\n\n".join(lines)
