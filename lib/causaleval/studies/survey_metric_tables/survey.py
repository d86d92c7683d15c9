"""Study 4's survey tables: Gentzel et al. (2019) Tables 1-2 with the audit of every stated percentage
and count, and Cheng et al. (2022) Tables I-III with the implementing function of each metric and
their statements about tools against their own Table III."""

from __future__ import annotations


import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from causaleval.metrics import registry

#: why a metric a survey lists has no implementation here
NOT_IMPLEMENTED = {
    "Speed": "the run time of an explanation method, not a score of its output",
    "Visual Linguistic": "multimodal (image and text) explanations; the survey gives no formula",
    "Visual-Linguistic Counterfactuals": "multimodal (image and text) explanations; the survey gives no formula",
    "Pairwise": "the survey does not define it",
}
#: survey entries that name a group of metrics implemented under their own names
COVERED_ELSEWHERE = {"Standard and Heterogeneous Effect Metrics": "the effect metrics above, at each time step"}
#: Cheng Table I tasks and the registry tasks their metrics belong to
_TASKS = {"Causal Effect Estimation": (registry.EFFECT, registry.IBM),
          "Causal Structure Learning": (registry.STRUCTURE,),
          "Causal Interpretability and Fairness": (registry.CAUSAL_ML,),
          "Unbiased Interactive ML": (registry.CAUSAL_ML,)}


#: how a stated percentage relates to its count (:func:`percentage_audit`), named by what it measures
PERCENT_COLUMN = "stated % from count"
NEAREST, TRUNCATED, ROUNDED_UP, OFF, NO_COUNT = ("nearest integer", "truncated", "rounded up",
                                                 "a point or more off", "no count given")
#: how a statement of Cheng et al. on tools compares with their Table III (:func:`table3_claim_audit`)
TABLE3_COLUMN = "statement vs Table III"
CONSISTENT, INCONSISTENT, NO_ROW = "consistent", "inconsistent", "no Table III row"


# ============================================================ survey tables (Gentzel et al. 2019)
def gentzel_table1(counts: pd.DataFrame) -> pd.DataFrame:
    """Table 1 of Gentzel et al. (2019) (papers per venue and year) with totals computed from the counts."""
    table = counts.set_index("venue")
    table.columns = [str(c) for c in table.columns]
    table["Total"] = table.sum(axis=1)
    table.loc["Total"] = table.sum(axis=0)
    return table.astype(int)


def printed_totals(table1: pd.DataFrame, printed: pd.DataFrame) -> pd.DataFrame:
    """The totals printed in Table 1 against the sums of its cells."""
    computed = {**table1["Total"].drop("Total").to_dict(), **table1.loc["Total"].drop("Total").to_dict(),
                "all": int(table1.loc["Total", "Total"])}
    out = printed.assign(computed=printed["line"].astype(str).map(computed))
    return out.assign(**{"total equals sum": out["total"] == out["computed"]}).set_index("line")


def gentzel_table2(counts: pd.DataFrame) -> pd.DataFrame:
    """Table 2 of Gentzel et al. (2019): papers per evaluation measure and data source."""
    return counts.set_index("measure").astype(int)


def plot_survey(table1: pd.DataFrame, table2: pd.DataFrame) -> plt.Figure:
    """Papers per year stacked by venue (Table 1), and per measure and data source (Table 2)."""
    fig, (a, b) = plt.subplots(1, 2, figsize=(10, 3.6))
    body = table1.drop(index="Total", columns="Total")
    bottom = np.zeros(body.shape[1])
    for venue, row in body.iterrows():
        a.bar(body.columns, row.to_numpy(), bottom=bottom, label=venue)
        bottom += row.to_numpy()
    a.set_ylabel("papers")
    a.set_title("Table 1: surveyed papers by year and venue", fontsize=9)
    a.legend(fontsize=7)
    table2.plot.barh(ax=b)
    b.set_xlabel("papers")
    b.set_title("Table 2: evaluation measure by data source", fontsize=9)
    b.invert_yaxis()
    fig.tight_layout()
    return fig


def percentage_audit(statements: pd.DataFrame) -> pd.DataFrame:
    """Each stated percentage against 100 count / denominator.

    ``stated % from count`` (:data:`PERCENT_FORMS`): *nearest integer* when the stated value is the
    computed one rounded to the nearest integer; *truncated* when it is the computed value truncated
    instead; *rounded up* when rounded up instead; *a point or more off* when it is a whole point or
    more away; *no count given* when the text gives only a percentage. The verdict on each is the
    agreement table's (:func:`causaleval.studies.survey_metric_tables.claims.percent_row`).
    """
    out = statements.copy()
    exact = 100 * out["count"] / out["denominator"]
    out["computed %"] = exact
    diff = out["percent"] - exact
    out[PERCENT_COLUMN] = np.select(
        [out["count"].isna(), diff.abs() <= 0.5, (diff < 0) & (diff > -1), diff.abs() < 1],
        [NO_COUNT, NEAREST, TRUNCATED, ROUNDED_UP], default=OFF)
    return out


def count_checks(table2: pd.DataFrame, audit: pd.DataFrame) -> pd.DataFrame:
    """Relations between the survey's counts that must hold, each recomputed from its parts."""
    def count(fragment: str) -> float:
        rows = audit[audit["text"].str.contains(fragment, regex=False)]
        return float(rows["count"].iloc[0])

    synthetic, empirical, both = count("used synthetic data"), count("used empirical data"), count("used both")
    rows = [
        ("papers with evaluation = synthetic + empirical - both", count("reported any sort"),
         synthetic + empirical - both),
        ("only synthetic = synthetic - both", count("used only synthetic"), synthetic - both),
        ("only empirical = empirical - both", count("used only empirical"), empirical - both),
        ("distributional = observational + interventional", count("Distributional measures"),
         count("observational measures are used") + count("interventional measures are used")),
        ("structural on synthetic data: text vs Table 2", count("When synthetic data"),
         table2.loc["Structural", "Synthetic"]),
        ("structural on empirical data: text vs Table 2", count("when empirical data"),
         table2.loc["Structural", "Empirical"]),
        ("bivariate split 10% + 15% + 5% = 30%",
         float(audit.loc[audit["text"].str.contains("Bivariate"), "percent"].iloc[0]),
         float(audit.loc[audit["count"].isna(), "percent"].sum())),
    ]
    frame = pd.DataFrame(rows, columns=["check", "stated", "computed"])
    return frame.assign(**{"stated equals computed": frame["stated"] == frame["computed"]}).set_index("check")


# ============================================================ survey tables (Cheng et al. 2022)
def implementation(item: str, task: str | None = None) -> tuple[str, str]:
    """(function(s), cross-check(s)) of a metric a survey names, or ("not implemented: why", "")."""
    found = registry.lookup(item)
    if task is not None and len(found) > 1:
        same = [m for m in found if m.task in _TASKS.get(task, ())]
        found = same or found
    if item in COVERED_ELSEWHERE:
        return COVERED_ELSEWHERE[item], ""
    if not found:
        reason = NOT_IMPLEMENTED.get(item)
        return (f"not implemented: {reason}" if reason else "not implemented", "")
    return ("; ".join(dict.fromkeys(m.qualname for m in found)),
            "; ".join(dict.fromkeys(m.cross_check for m in found)))


def with_implementation(table: pd.DataFrame, item: str, *, task: str | None = None,
                        only: pd.Series | None = None) -> pd.DataFrame:
    """``table`` with two columns added for its metric rows (``only`` selects them):
    the implementing function and what it is cross-checked against."""
    rows = table.index if only is None else table.index[only]
    impl = pd.DataFrame("", index=table.index, columns=["implemented as", "cross-checked against"])
    for i in rows:
        impl.loc[i] = implementation(table.loc[i, item], table.loc[i, task] if task else None)
    return pd.concat([table, impl], axis=1)


def cheng_table3(raw: pd.DataFrame) -> pd.DataFrame:
    """Table III with check marks (1 in the data) as in the paper, and the kit's implementation
    of each metric row."""
    tools = [c for c in raw.columns if c not in ("section", "item")]
    marks = raw[tools].apply(lambda col: col.map(lambda v: "✓" if str(v) in ("1", "1.0") else
                                                  ("" if pd.isna(v) else str(v))))
    table = pd.concat([raw[["section", "item"]], marks], axis=1)
    return with_implementation(table, "item", only=raw["section"] == "Metrics").set_index(["section", "item"])


def cheng_table1_layout(long: pd.DataFrame) -> pd.DataFrame:
    """Table I in the paper's layout: one cell of items per (aspect, group) and task."""
    joined = long.fillna({"group": ""}).groupby(["aspect", "group", "task"], sort=False)["item"].agg(", ".join)
    return joined.unstack("task").reindex(columns=list(dict.fromkeys(long["task"]))).fillna("")


# ============================================================ Cheng et al. against their own Table III
def table3_claim_audit(raw: pd.DataFrame, claims: pd.DataFrame) -> pd.DataFrame:
    """Each statement of ``cheng_table3_claims.csv`` against the ticks of Table III: the tools
    that tick one of its metric rows, and how the statement and the ticks compare (``statement vs
    Table III``: *inconsistent*, *consistent*, or *no Table III row* when none of its items is one)."""
    metrics = raw[raw["section"] == "Metrics"].set_index("item")
    rows = []
    for _, c in claims.iterrows():
        tools, items = c["tools"].split(";"), c["items"].split(";")
        unknown = [t for t in tools if t not in metrics.columns]
        if unknown:
            raise ValueError(f"cheng_table3_claims.csv, claim {c['claim']!r}: tools {unknown} are not in Table III")
        present = [i for i in items if i in metrics.index]
        ticks = [f"{t}: {i}" for i in present for t in tools if str(metrics.loc[i, t]) in ("1", "1.0")]
        compared = (NO_ROW if not present else INCONSISTENT if (c["expected"] == "absent") == bool(ticks)
                    else CONSISTENT)
        rows.append({"claim": c["claim"], "expected": c["expected"], "Table III ticks": ", ".join(ticks) or "none",
                     TABLE3_COLUMN: compared})
    return pd.DataFrame(rows).set_index("claim")
