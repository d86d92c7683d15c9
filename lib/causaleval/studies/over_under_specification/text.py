"""Study 3's prose, computed from its tables."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from causaleval import verdicts
from causaleval.studies.over_under_specification.claims import ratio_bounds


def sid_fit_sentence(fit: pd.DataFrame, sid_covariate: bool) -> str:
    """Which way of counting SID the paper's Table 2 fits, from :func:`sid_fit`."""
    best = fit["inside share"].idxmax()
    other = fit.index[fit.index != best][0]
    tied = fit.loc[best, "inside share"] == fit.loc[other, "inside share"]
    used = "with covariate" if sid_covariate else "without covariate"
    span = fit.loc[best, "paper's range"]
    found = (f"Both ways put {fit.loc[best, 'inside']} of our under-specification SIDs inside the paper's "
             f"range, so the table cannot tell them apart." if tied else
             f"Counted {best}, {fit.loc[best, 'inside']} of our under-specification SIDs lie inside the "
             f"range the paper prints ({span}); counted {other}, "
             f"{fit.loc[other, 'inside']}. The paper's table fits the count {best} better.")
    return f"{found} Table 2 below counts SID {used} (`sid_covariate={sid_covariate}`)."


def ratio_sentence(ratio: pd.DataFrame, reversal: pd.DataFrame) -> str:
    """The ratio claim in words: the paper's own ratios against its stated range, and ours by medians
    and per treatment."""
    low, high = ratio_bounds()
    paper = ratio[ratio["values"] == "paper"]
    outside = paper[~paper["ratio in range"]]
    parts = [f"The paper's own medians give ratios {', '.join(f'{r.domain} {r.ratio:.1f}' for r in paper.itertuples())}"
             + (f"; {', '.join(outside['domain'])} lies outside its stated {low:g}-{high:g}x." if len(outside)
                else f", all inside its stated {low:g}-{high:g}x.")]
    for r in ratio[ratio["values"] == "ours"].itertuples():
        rev = reversal.loc[r.domain] if r.domain in reversal.index else None
        parts.append(f"Ours on {r.domain}: median ratio {r.ratio:.2f}"
                     + (f", while {rev['summary']}" if rev is not None else "") + ".")
    return " ".join(parts)


def closing_text(source: str, domains: Sequence[str], claims: pd.DataFrame, agreement: pd.DataFrame,
                 notes: Sequence[str]) -> str:
    """The notebook's closing paragraph, computed from the claims and agreement tables."""
    from causaleval.studies.software_tvd import data_sentence

    parts = [f"This run used {data_sentence(source, domains)}."]
    for kind in ("ratio", "under_costs_more", "over_tvd", "efficiency"):
        rows = claims[claims.index.str.startswith(f"{kind}_") & (claims.index != "ratio_paper_table")]
        if len(rows):
            parts.append(f"{rows['statement'].iloc[0].split(', on ')[0]}: "
                         + "; ".join(f"{c.split('_')[-1]} {r.verdict}" for c, r in rows.iterrows()) + ".")
    counts = agreement["status"].value_counts()
    parts.append("Table 2's cells against the paper's: " + ", ".join(f"{n} {s}" for s, n in counts.items())
                 + (" (only the paper's own files are comparable)"
                    if verdicts.NOT_COMPARABLE in counts.index else "") + ".")
    if notes:
        parts.append("The subsample sizes were adapted to the data: " + "; ".join(notes) + ".")
    return " ".join(parts)


def grid_sentence(summary: dict, domain: str, n_samples: int) -> str:
    """What the readings grid says about the "2-5x" claim (:func:`~.grid.grid_summary`), computed."""
    low, high = ratio_bounds()
    p = summary["protocol"]
    return (f"On {domain}, {summary['readings']} readings, {n_samples} samples each. Under the stated protocol "
            f"(normalisation per {p['normalize']}, the {p['test']} test at {p['alpha']:g}, {p['bins']} bins, "
            f"beta {p['beta']:g}, covariate {p['covariate']}, all treatments, the consistent model fitted to the "
            f"sample as reference) the median ratio under / over is {p['ratio mean']:.2f} "
            f"[{p['ratio low']:.2f}, {p['ratio high']:.2f}]: {p['ratio in 2-5']} against the stated {low:g}-{high:g}x, "
            f"with {p['cells matching']} of the paper's TVD cells reproduced. Over the grid the mean ratio ranges "
            f"{summary['low']:.2f}-{summary['high']:.2f}; {summary['inside']} of {summary['readings']} readings "
            f"({summary['inside'] / summary['readings']:.0%}) have it inside {low:g}-{high:g}; readings by their "
            "interval: " + ", ".join(f"{v} {n}" for v, n in summary["by verdict"].items())
            + (f", so the claim's verdict is '{verdicts.DEPENDS_ON_READING}'." if summary["both"] else "."))
