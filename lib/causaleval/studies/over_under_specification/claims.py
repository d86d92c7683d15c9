"""Study 3's claims and agreement (Gentzel, Garant, Jensen 2019, supplement Sec. 5), in the kit's one
vocabulary (:mod:`causaleval.verdicts`). Intervals are over the repeated pseudo-observational samples
of the subject curve at each domain's full subject count (the independent runs)."""

from __future__ import annotations

import io
from collections.abc import Sequence

import numpy as np
import pandas as pd

from causaleval import paths, verdicts
from causaleval.studies.over_under_specification.scores import MODELS, STATS

#: the paper's name of each KDL domain its Table 2 reports
PAPER_DOMAINS = {"postgres": "Postgres", "jdk": "JDK", "networking": "HTTP"}
#: "mostly bias" against "mostly estimation error": the share of the TVD the error floor keeps
FLOOR_SPLIT = 0.5


def ratio_bounds() -> tuple[float, float]:
    """The "2-5x" of the supplement's Sec. 5, read from ``data/paper_values/gentzel_supp_sec5.csv``."""
    row = report_csv("gentzel_supp_sec5").set_index("claim").loc["ratio"]
    return float(row["low"]), float(row["high"])


def report_csv(name: str) -> pd.DataFrame:
    """A paper-values file as printed (text), comment lines dropped."""
    path = paths.PAPER_VALUES / f"{name}.csv"
    text = "\n".join(line for line in path.read_text().splitlines() if not line.startswith("#"))
    return pd.read_csv(io.StringIO(text), dtype=str)


def ratio_claim(ours: pd.DataFrame, paper: pd.DataFrame) -> pd.DataFrame:
    """Per domain, the ratio of the median under- to the median over-specification TVD (medians,
    because Table 2 reports no means), for the paper's own table and for ours, and whether it lies
    in the paper's stated range (:func:`ratio_bounds`)."""
    low, high = ratio_bounds()
    rows = []
    for label, table in (("paper", paper), ("ours", ours)):
        tvd = table[("TVD", "median")].unstack("model type")
        for (domain, subjects), row in tvd.iterrows():
            ratio = row["under-specify"] / row["over-specify"] if row["over-specify"] > 0 else np.inf
            rows.append({"values": label, "domain": domain, "subjects": subjects,
                         "median TVD over": row["over-specify"], "median TVD under": row["under-specify"],
                         "ratio": ratio, "under > over": bool(ratio > 1), "ratio in range": bool(low <= ratio <= high)})
    return pd.DataFrame(rows)


def ratio_by_treatment(scores: pd.DataFrame) -> pd.DataFrame:
    """Per treatment, the under- and over-specification TVD and their ratio. Medians over
    treatments can hide a reversal: a domain's median ratio can exceed 1 while most of its
    treatments cost more TVD when over-specified."""
    wide = scores[scores["model"].isin(MODELS)].pivot_table(
        index=["domain", "treatment"], columns="model", values="tvd", sort=False)
    out = wide.rename(columns={"over-specify": "TVD over", "under-specify": "TVD under"})
    with np.errstate(divide="ignore", invalid="ignore"):
        out["ratio"] = out["TVD under"] / out["TVD over"]
    out["costs more"] = np.where(out["TVD under"] > out["TVD over"], "under-specification",
                                 np.where(out["TVD under"] < out["TVD over"], "over-specification", "tie"))
    return out.reset_index()


def reversal_summary(by_treatment: pd.DataFrame) -> pd.DataFrame:
    """Per domain: in how many treatments over-specification costs more TVD than under-specification."""
    rows = []
    for domain, g in by_treatment.groupby("domain", sort=False):
        over = int((g["costs more"] == "over-specification").sum())
        rows.append({"domain": domain, "treatments": len(g), "over costs more": over,
                     "summary": f"over-specification costs more TVD for {over} of {len(g)} treatments"})
    return pd.DataFrame(rows).set_index("domain")


def _full(curve: pd.DataFrame) -> pd.DataFrame:
    """The curve's rows at each domain's largest subject count (the whole domain), altered models only."""
    largest = curve.groupby("domain")["subjects"].transform("max")
    return curve[(curve["subjects"] == largest) & curve["model"].isin(MODELS)]


def repeat_ratios(curve: pd.DataFrame) -> pd.DataFrame:
    """Per (domain, repeat) at the full subject count: the median over treatments of the under- and
    over-specification TVDs and their ratio (Table 2's statistic, once per independent sample)."""
    medians = _full(curve).groupby(["domain", "repeat", "model"])["tvd"].median().unstack("model")
    return medians.assign(ratio=medians["under-specify"] / medians["over-specify"]).reset_index()


def in_range(values: np.ndarray, low: float, high: float) -> tuple[str, verdicts.Interval]:
    """The mean of ``values`` (one per independent sample) in ``[low, high]``: holds when its interval
    lies inside, does not hold when it lies wholly beyond one end, else undecided."""
    interval = verdicts.mean_interval(values)
    above = verdicts.threshold_verdict(interval.low, interval.high, low, ">")
    below = verdicts.threshold_verdict(interval.low, interval.high, high, "<")
    if verdicts.DOES_NOT_HOLD in (above, below):
        return verdicts.DOES_NOT_HOLD, interval
    return (verdicts.HOLDS if above == below == verdicts.HOLDS else verdicts.UNDECIDED), interval


def claims(ratio: pd.DataFrame, curve: pd.DataFrame, scores: pd.DataFrame, shares: pd.DataFrame) -> pd.DataFrame:
    """The supplement's Sec. 5 statements, one row each (index ``claim``).

    * ``ratio_paper_table``: the paper's "2-5x" against its own Table 2 (``paper vs itself``);
    * ``ratio_<domain>``: the median ratio of Table 2 in the stated range, its interval over the
      repeated samples deciding (both ends inside: holds; wholly outside one end: does not hold);
    * ``under_costs_more_<domain>``: per treatment, under-specification costs more TVD than
      over-specification (one-sided t over the repeats, Holm over the treatments);
    * ``zero_sid_<domain>``: over-specification has zero SID: true by the definition of SID (edges out
      of a treatment into outcomes keep every parent set a valid adjustment set), ``by construction``;
    * ``over_tvd_<domain>``: over-specification costs TVD on finite data, for every treatment whose
      model differs (Holm over treatments);
    * ``efficiency_<domain>``: over-specification error mostly falls with more subjects (floor share
      below one half) and under-specification error mostly stays (above one half), intervals over
      the repeats (:func:`~causaleval.studies.over_under_specification.curve.floor_shares`).
    """
    low, high = ratio_bounds()
    said = f"under-specification has {low:g}-{high:g}x the TVD of over-specification"
    rows = []
    paper = ratio[ratio["values"] == "paper"]
    inside = int(paper["ratio in range"].sum())
    rows.append(verdicts.claim(
        "ratio_paper_table", f"Supp. Sec. 5: {said}, on the paper's own Table 2 (median over treatments)",
        verdicts.PAPER_VS_ITSELF, f"{inside} of {len(paper)} of its domains inside: " + "; ".join(
            f"{r['domain']} {r['median TVD under']:.2f} / {r['median TVD over']:.2f} = {r['ratio']:.1f}"
            for r in paper.to_dict("records")), source="supp. Sec. 5, Table 2"))
    runs = repeat_ratios(curve)
    full = _full(curve)
    for domain in dict.fromkeys(full["domain"]):
        values = runs.loc[runs["domain"] == domain, "ratio"].to_numpy(float)
        values = values[np.isfinite(values)]
        verdict, interval = in_range(values, low, high)
        rows.append(verdicts.claim(
            f"ratio_{domain}", f"Supp. Sec. 5: {said}, on {domain}", verdict,
            f"median TVD under / over per sample: mean {interval.mean:.2f} [{interval.low:.2f}, {interval.high:.2f}] "
            f"over {interval.n} samples", source="supp. Sec. 5", statistic=interval.mean, low=interval.low,
            high=interval.high, test="t interval over samples in the stated range"))
        g = full[full["domain"] == domain].pivot_table(index=["treatment", "repeat"], columns="model", values="tvd")
        diffs = {t: (d["under-specify"] - d["over-specify"]).to_numpy(float) for t, d in g.groupby(level="treatment")}
        verdict, tested = verdicts.all_greater(diffs)
        rows.append(verdicts.claim(f"under_costs_more_{domain}", f"Supp. Sec. 5: under-specifying a treatment costs "
                                   f"more TVD than over-specifying it, for every treatment, on {domain}", verdict,
                                   tested, source="supp. Sec. 5", test="one-sided t over samples, Holm"))
        over = scores[(scores["domain"] == domain) & (scores["model"] == "over-specify")]
        rows.append(verdicts.claim(
            f"zero_sid_{domain}", f"Supp. Sec. 5: over-specified models have zero SID, on {domain}",
            verdicts.BY_CONSTRUCTION, f"largest over-specification SID {over['sid'].max():g} over {len(over)} "
            "treatments: edges out of a treatment into outcomes keep every parent set a valid adjustment set",
            source="supp. Sec. 5"))
        differing = set(over.loc[over["shd"] > 0, "treatment"])
        over_runs = full[(full["domain"] == domain) & (full["model"] == "over-specify")]
        verdict, tested = verdicts.all_greater({t: g["tvd"].to_numpy(float)
                                                for t, g in over_runs.groupby("treatment") if t in differing})
        rows.append(verdicts.claim(f"over_tvd_{domain}", "Supp. Sec. 5: over-specified models have non-zero TVD "
                                   f"(lost statistical efficiency), on {domain}", verdict, tested,
                                   source="supp. Sec. 5", test="one-sided t over samples, Holm"))
        rows.append(_efficiency(domain, shares))
    return verdicts.claims_table(rows).set_index("claim")


def _efficiency(domain: str, shares: pd.DataFrame) -> dict:
    """What the paper says and no more: over-specification's TVD comes from lost statistical
    efficiency, so most of it falls with more subjects (its floor share below one half)."""
    v = shares[(shares["domain"] == domain) & (shares["model"] == "over-specify")]["floor share"].dropna()
    interval = verdicts.mean_interval(v.to_numpy(float))
    verdict = verdicts.threshold_verdict(interval.low, interval.high, FLOOR_SPLIT, "<")
    return verdicts.claim(
        f"efficiency_{domain}", "Supp. Sec. 5: over-specification costs TVD through lost statistical efficiency (it "
        f"falls with more subjects), on {domain}", verdict,
        f"over-specify floor share {interval.mean:.2f} [{interval.low:.2f}, {interval.high:.2f}] over {interval.n} "
        f"samples (share of the TVD at the fewest subjects left at infinitely many; below {FLOOR_SPLIT:g}: "
        "estimation error)", source="supp. Sec. 5", statistic=interval.mean, low=interval.low,
        high=interval.high, threshold=FLOOR_SPLIT, test="t interval over samples")


def agreement(table: pd.DataFrame, curve: pd.DataFrame, source: str) -> pd.DataFrame:
    """Every cell of our Table 2 beside the paper's cell of the same domain, model type, metric and
    statistic. Only the paper's own files (``source="kdl"``) are comparable: there a cell is judged by
    :func:`causaleval.verdicts.agreement`, like with like: ours is Table 2's own value, from the one
    sample at ``seed`` as the paper's comes from one sample, and a TVD cell's interval is the range
    of single samples (:func:`causaleval.verdicts.sample_spread` over the curve's repeated samples at
    the full subject count), not the interval of their mean; SID and SHD do not depend on the sample.
    Any other data are ``not comparable``, with why. ``ours is`` says which kind each value is."""
    printed = report_csv("gentzel_supp_table2").set_index(["domain", "model"])
    ours = table.xs("ours", level="values")
    full = _full(curve)
    rows = []
    for (domain, subjects, model), row in ours.iterrows():
        paper_name = PAPER_DOMAINS.get(str(domain).lower())
        key = (paper_name, model)
        for (metric, stat), value in row.items():
            item = f"{domain} {model} {metric} {stat}"
            base = {"domain": domain, "model type": model, "metric": metric, "statistic": stat,
                    "subjects": f"ours {subjects}"}
            if source != "kdl" or key not in printed.index:
                reason = (f"the kit's own {source} domain {domain!r}, not the paper's {paper_name} file"
                          if paper_name else f"{domain!r} is not a domain of the paper")
                paper_value = float(printed.loc[key, f"{metric.lower()}_{stat}"]) if key in printed.index else np.nan
                rows.append({**base, **verdicts.not_comparable(item, float(value), paper_value, reason),
                             "ours is": "one sample"})
                continue
            text = printed.loc[key, f"{metric.lower()}_{stat}"]
            if metric == "TVD":
                runs = full[(full["domain"] == domain) & (full["model"] == model)].groupby("repeat")["tvd"]
                singles = getattr(runs, stat)().to_numpy(float)
                ours_value = verdicts.sample_spread(float(value), singles)
                kind = (f"one sample; interval: the middle {ours_value.level:.0%} of {ours_value.n} single samples")
            else:
                ours_value, kind = float(value), "the same on every sample"
            rows.append({**base, **verdicts.agreement(ours_value, text, item=item),
                         "subjects": f"ours {subjects}, paper {printed.loc[key, 'subjects']}", "ours is": kind})
    return verdicts.agreement_table(rows)


def stats_of(values: Sequence[float]) -> dict[str, float]:
    """Table 2's statistics of a set of values."""
    v = np.asarray(values, dtype=float)
    return {s: float(getattr(np, s)(v)) for s in STATS}
