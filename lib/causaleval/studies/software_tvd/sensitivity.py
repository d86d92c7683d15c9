"""Study 2's sensitivity table: the random-network experiment under the switches named as possible
causes of its result."""

from __future__ import annotations

from typing import Any

import pandas as pd

from causaleval.studies.software_tvd.figure1 import paired_orders
from causaleval.studies.software_tvd.figure2 import (
    MEASURES, correlations, figure2_results, headline, measure_long, pairwise_calls,
)


#: switches of study 2's random-network experiment re-run at a reduced scale
SENSITIVITY = {
    "cpdag_rule = mec_average": {"cpdag_rule": "mec_average"},
    "E[N] = 2 parents per node (expected_neighbours = 4)": {"expected_neighbours": 4.0},
    "Dirichlet concentration 0.5": {"concentration": 0.5},
    "Dirichlet concentration 5": {"concentration": 5.0},
    "logistic tables (cpd_scheme = logistic)": {"cpd_scheme": "logistic"},
}


def sensitivity_results(base: dict[str, Any], n_dags: int, *, n_jobs: int = -1,
                        progress: bool = True) -> pd.DataFrame:
    """:func:`figure2_results` on the first ``n_dags`` networks under each setting of
    :data:`SENSITIVITY` (the other arguments from ``base``), one column ``setting``."""
    frames = [figure2_results(**{**base, **change, "n_dags": n_dags}, n_jobs=n_jobs, progress=progress)
              .assign(setting=name) for name, change in SENSITIVITY.items()]
    return pd.concat(frames, ignore_index=True)


def sensitivity_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Per setting: the orders under SHD, SID and TVD, the headline verdict (:func:`headline`),
    whether GES is best by every measure, and GES's SHD-TVD correlation with its interval."""
    rows = []
    for setting, group in runs.groupby("setting", sort=False):
        calls = pairwise_calls(measure_long(group), ["measure"], "value", "dag", holm=True)
        orders = paired_orders(measure_long(group), ["measure"], "value", "dag").set_index("measure")["order"]
        corr = correlations(group).set_index(["learner", "measures"])
        verdict, _ = headline(calls)
        ges_best = {m: bool(len(calls[(calls["measure"] == m) & calls["pair"].str.contains("ges")])
                            and (calls.loc[(calls["measure"] == m) & calls["pair"].str.contains("ges"), "call"]
                                 .str.startswith("ges <")).all()) for m in MEASURES}
        row = {"setting": setting, "networks": group["dag"].nunique(),
               **{f"order by {m.upper()}": orders[m] for m in MEASURES},
               "TVD orders differently": verdict,
               "GES significantly best by": ", ".join(m.upper() for m in MEASURES if ges_best[m]) or "none"}
        if ("ges", "SHD-TVD") in corr.index:
            c = corr.loc[("ges", "SHD-TVD")]
            row["GES r(SHD, TVD) [95%]"] = f"{c['pearson']:.2f} [{c['95% low']:.2f}, {c['95% high']:.2f}]"
        rows.append(row)
    return pd.DataFrame(rows).set_index("setting")
