"""Study 6's prose, computed: what a run does against the paper's protocol, the methods table, and the
closing sentences from the agreement and claims tables."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from causaleval import verdicts
from causaleval.bayes import posteriors
from causaleval.metrics import ate_distribution as ad
from causaleval.studies.bayesian_cd_ate.paper import PAPER_SCALE, SEVEN, by_pair, paper_name


def describe_run(p: Mapping[str, Any]) -> str:
    """What this run does, against the paper's protocol (for the notebook's Markdown)."""
    synth = ", ".join(str(n) for n in p["sample_sizes"]) or "none"
    pair = " -> ".join(p["figure_pair"]) if p["figure_pair"] else "the one whose true ATE has the most modes"
    return (f"This run: synthetic data with d = {p['n_nodes']} nodes, sample sizes {synth}, seeds {p['seeds']} "
            f"({len(p['seeds'])} of the paper's {PAPER_SCALE['seeds']}); "
            f"Sachs {'included' if p['sachs'] else 'left out'}"
            f"{_sachs_runs(p)}. The kit's choices, "
            f"where the paper defers to Deleu et al. (2022): about {p['expected_edges']:g} expected edges, weights "
            f"N(0, 1), noise sd {p['noise_sd']:g}; the methods score the {'z-scored' if p['standardize'] else 'raw'} "
            f"synthetic columns, the ATEs are computed on the raw ones. "
            f"Each posterior holds {p['n_posterior']} DAGs (the paper: "
            f"{PAPER_SCALE['n_posterior']}); methods {', '.join(paper_name(m) for m in p['methods'])}; bootstrap PC "
            f"at alpha = {p['pc_alpha']:g}, bootstrap GES with the {p['ges_score'].upper()} score, CPDAGs to DAGs by "
            f"`{p['cpdag_rule']}`; MC3 with {p['mc3_burn_in']:,} burn-in steps, "
            f"keeping every {p['mc3_thin']:,}th state; "
            f"further method options {dict(p['method_options']) or 'at their defaults'}. Density filters "
            f"{p['densities']}; Figure 3 shows the paper's pair and beside it {pair}. "
            f"The paper's scale is `notebooks/params/06.paper.yaml`.")


def _sachs_runs(p: Mapping[str, Any]) -> str:
    if not p["sachs"]:
        return ""
    runs = min(p["sachs_seeds"], len(p["seeds"]))
    return (f", at {runs} seed(s): the data are the same, a seed is the methods' own randomness (the paper: one run"
            f"{'' if runs == 1 else '; more give Table 3 an interval over runs'})")


def methods_table(p: Mapping[str, Any]) -> pd.DataFrame:
    """The paper's seven methods (and any of one's own run): run here, and how (each method's own
    first docstring line), or not, and why."""
    rows = []
    for method in [*SEVEN, *[m for m in p["methods"] if m not in SEVEN]]:
        fn = posteriors.POSTERIORS.get(method)
        how = (fn.__doc__ or "").strip().splitlines()[0] if fn is not None and fn.__doc__ else "a method of one's own"
        if method in p["methods"]:
            rows.append({"method": paper_name(method), "run": "yes", "how / why not": how})
        elif fn is None:
            rows.append({"method": paper_name(method), "run": "not available",
                         "how / why not": "not registered in this installation"})
        else:
            rows.append({"method": paper_name(method), "run": "no",
                         "how / why not": f"not in this run's `methods` ({how})"})
    return pd.DataFrame(rows)


def not_run(p: Mapping[str, Any], counts: pd.DataFrame, setting: str) -> dict[str, str]:
    """Why each of the seven methods has no results in ``setting``: not available here, not in
    ``methods``, or the reason its trials give (``counts``' ``not run`` column, e.g. too many variables)."""
    reasons = {}
    for method in SEVEN:
        said = counts.loc[(counts["setting"] == setting) & (counts["method"] == method), "not run"]
        if method not in posteriors.POSTERIORS:
            reasons[method] = "not available"
        elif method not in p["methods"]:
            reasons[method] = "not in `methods`"
        elif len(said) and said.iloc[0]:
            reasons[method] = f"not run: {said.iloc[0]}"
    return reasons


def summary_text(table: pd.DataFrame) -> str:
    """The closing paragraph, computed from the agreement table."""
    if not len(table):
        return "No table of the paper was run."
    counts = table["status"].value_counts()
    rules = table.loc[table["status"] == verdicts.MATCHES, "rule"].value_counts()
    scales = "; ".join(f"{name}: {scale}"
                       for name, scale in table.groupby("table", sort=False)["scale"].first().items())
    wide = int((table["status"] == verdicts.UNDECIDED).sum())
    apart = table.loc[table["status"] == verdicts.NOT_COMPARABLE, "reason"]
    return (f"Of {len(table)} cells of Tables 1-3 compared ({scales}): "
            f"{', '.join(f'{n} {status}' for status, n in counts.items())}"
            + (f" (matched by {', '.join(f'{r}: {n}' for r, n in rules.items())})" if len(rules) else "")
            + (f"; {wide} undecided: the paper's value lies in an interval wider than the spread of the paper's "
               "own methods in that column, which cannot tell them apart" if wide else "")
            + (f"; {verdicts.NOT_COMPARABLE}: {'; '.join(dict.fromkeys(apart))}" if len(apart) else "") + ".")


def figure3_text(distributions: pd.DataFrame) -> str:
    """What Figure 3's pairs are, computed from its distributions (first seed): each pair's true (MEC)
    ATE modes (``numpy.isclose`` regrouping) over the class's DAGs. The kit's ATE is 0 exactly where no
    directed path leads from the treatment to the outcome (:mod:`causaleval.effects.ate`), so a pair
    whose only true mode is 0 is one the treatment reaches in no DAG of the class: any learned DAG
    without such a path finds that mode, so "captures every true mode" is an easy test there, while the
    learned modes beside it (the paper's extra modes) still show."""
    parts = []
    for role, g in by_pair(distributions).items():
        first = g[(g["seed"] == g["seed"].min()) & (g["method"] == "MEC (truth)")]
        modes = sorted(set(ad.regroup(first["ate"].to_numpy(), modes=[]).tolist()))
        name = f"{first['treatment'].iloc[0]} -> {first['outcome'].iloc[0]}"
        text = (f"{role}, {name}: its true ATE has {len(modes)} mode(s) over the class's DAGs "
                f"({', '.join(f'{m:.6g}' for m in modes)})")
        if modes == [0.0]:
            text += (f"; every DAG of the class gives ATE 0, so none has a directed path from "
                     f"{first['treatment'].iloc[0]} to {first['outcome'].iloc[0]}: any learned DAG without such a "
                     "path finds this one mode, so capturing every true mode is easy here, while learned modes "
                     "beside it are the extra modes the paper describes")
        parts.append(text)
    return "Figure 3's pairs: " + "; ".join(parts) + "." if parts else "Sachs was not run: no Figure 3."
