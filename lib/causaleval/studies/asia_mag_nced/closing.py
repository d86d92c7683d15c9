"""Study 1's closing comparison, every number and verdict taken from the tables."""

from __future__ import annotations


import pandas as pd

from causaleval.studies.asia_mag_nced.sweep import closest_settings
from causaleval.studies.asia_mag_nced.tables import count_within, describe_highest, highest_by_k


# ---------------------------------------------------------------------- closing comparison
def _of(pair: tuple[int, int]) -> str:
    return f"{pair[0]} of {pair[1]}"


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
    from scipy.stats import spearmanr

    summary: dict[str, str] = {}
    t1 = t1_cmp.dropna(subset=["paper"])
    if len(t1):
        by_k = highest_by_k(t1)
        summary |= {
            "Table 1: cells both report": str(len(t1)),
            "Table 1: mean |ours - paper|": f"{t1['diff'].abs().mean():.3f}",
            "Table 1: Spearman rank correlation of ours and paper":
                f"{spearmanr(t1['ours'], t1['paper']).statistic:.3f}",
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


def _comparison_paragraphs(summary: dict[str, str], readings: pd.DataFrame, sensitivity: pd.DataFrame) -> list[str]:
    """The closing paragraphs that compare our Tables 1 and 2 with the paper's, and explain the gaps."""
    kit = readings.set_index("reading").loc["kit"]
    best = readings.loc[readings["Table 2 gap"].idxmin()]
    sens = sensitivity[sensitivity["reading"] == "kit"]
    closest = closest_settings(sensitivity).set_index("reading")

    def setting(r: pd.Series) -> str:
        return (f"{r['ci_test']} at alpha = {r['alpha']:g} on {int(r['n_samples']):,} rows (Table 1 gap "
                f"{r['Table 1 gap']:.3f}, Table 2 gap {r['Table 2 gap']:.3f})")

    lines = []
    if "Table 1: highest nCED, paper" in summary:
        lines.append(
            f"**Table 1.** In the paper the highest (worst) nCED goes to {summary['Table 1: highest nCED, paper']}; "
            f"in our run to {summary['Table 1: highest nCED, ours']}. "
            f"{summary['Table 1: our cells within 2 sd of the paper value']} Table 1 cells lie within 2 sd (of "
            f"a single graph) of the paper's value, {summary['Table 1: our cells within 2 se of the paper value']}"
            " within 2 standard errors of a difference of means.")
    lines.append(
        f"**Table 2.** {summary.get('Table 2: our cells within 2 sd of the paper value', 'no')} cells lie within "
        f"2 sd, {summary.get('Table 2: our cells within 2 se of the paper value', 'no')} within 2 se (mean gap {kit['Table 2 gap']:.3f} over the cells in [0, 1], {kit['starred-cell gap']:.3f} on "
        "the starred cells).")
    lines.append(
        f"**Why the numbers differ.** Of the {len(sens)} settings swept (tests, alphas, sample sizes, on fewer "
        f"graphs), the closest to the paper under the kit's reading is {setting(closest.loc['kit'])}; none "
        f"brings the starred cells below a gap of {sens['starred-cell gap'].min():.3f}. Reading the graphs of "
        f"causal-learn's learners as the \"{best['reading']}\" instead brings, on the main run's graphs, the "
        f"Table 2 gap from {kit['Table 2 gap']:.3f} to {best['Table 2 gap']:.3f}, the starred-cell gap from "
        f"{kit['starred-cell gap']:.3f} to {best['starred-cell gap']:.3f} and the Table 1 gap from "
        f"{kit['Table 1 gap']:.3f} to {best['Table 1 gap']:.3f}; under that reading the closest setting is "
        f"{setting(closest.loc[best['reading']])}. Averaged over tests and alphas, the kit-reading Table 1 gap is "
        + ", ".join(f"{g:.3f} on {int(n):,} rows" for n, g in sens.groupby("n_samples")["Table 1 gap"].mean().items())
        + ". So the paper's numbers fit a PC and FCI whose correctly "
        "oriented edges were scored as reversed. This is our inference from the numbers; the paper does not "
        "say how it built its matrices.")
    return lines


def closing_markdown(
    summary: dict[str, str], readings: pd.DataFrame, sensitivity: pd.DataFrame,
    consistency: pd.DataFrame, shd: pd.DataFrame, behaviour: pd.DataFrame,
) -> str:
    """The closing paragraphs of notebook 01, every number and verdict taken from the tables
    (on networks the paper does not report, a sentence saying so replaces the comparisons)."""
    lines = []
    if readings["Table 2 gap"].isna().all():
        lines.append("**Tables 1 and 2.** The paper reports no values for this run's networks, so no cell is "
                     "compared with it, and the readings and the sweep measure no gap.")
    else:
        lines += _comparison_paragraphs(summary, readings, sensitivity)
    own = consistency[consistency["kind"] == "the paper's definitions"]
    curves = consistency[consistency["kind"] != "the paper's definitions"]
    failed = own[~own["holds"]]
    lines.append(
        f"**The paper against itself.** {int(own['holds'].sum())} of {len(own)} relations that follow from its "
        "definitions hold; these do not: "
        + "; ".join(f"{r.check} ({r.network}, {r.algorithm}: implied {r.implied}, printed {r.printed})"
                    for r in failed.itertuples()) + ". "
        + "; ".join(f"{c.replace(' (our reading of the curve)', '')} (our reading of the curve) holds in {int(g['holds'].sum())} of {len(g)} rows"
                    + (f", missing by up to {g['misses_by'].max():.4f}" if not g["holds"].all() else "")
                    for c, g in curves.groupby("check", sort=False)) + ".")
    picks = []
    for (net, alg, col), g in shd.groupby(["network", "algorithm", "column"], sort=False):
        best = g[g["closest"]].iloc[0]
        other = g[g["variant"] != best["variant"]].iloc[0]
        picks.append(f"{net} {alg} {col} {best['paper']:g}: {best['variant']} {best['ours']:.1f} "
                     f"(against {other['variant']} {other['ours']:.1f})")
    if picks:
        lines.append("**SHD.** For each SHD cell the paper prints, our closer counting: " + "; ".join(picks)
                     + ". Our graphs differ from the paper's, so this is weak evidence either way.")
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
