"""Emezue et al. (2023)'s numbers and names, read from ``data/paper_values/emezue_table*.csv``: the
paper's Tables 1-3 (mean and spread per method and metric), its method names beside the kit's, and
the paper's scale (26 seeds, 1,000 posterior DAGs: Sec. 3) and Figure 3's pair
(``emezue_figure3.csv``)."""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any

import pandas as pd

from causaleval import paths

PAPER_TABLES = {"Table 1": "emezue_table1", "Table 2": "emezue_table2", "Table 3": "emezue_table3"}
TABLE_SETTINGS = {"Table 1": "n=20", "Table 2": "n=100", "Table 3": "sachs"}
#: the kit's posterior method -> the paper's name for it
PAPER_NAMES = {"bootstrap_pc": "bootstrap-pc", "bootstrap_ges": "bootstrap-ges", "mc3": "mc3", "dibs": "dibs",
               "gadget": "gadget", "bcd_nets": "bcdnets", "dag_gflownet": "dag-gflownet"}
SEVEN = tuple(PAPER_NAMES)  # the paper's seven methods, by the kit's names
#: the paper's scale (Sec. 3): seeds and posterior DAGs, and the runs behind each table (Table 3, Sachs: one run,
#: its spread over the pairs)
PAPER_SCALE = {"seeds": 26, "n_posterior": 1000, "runs": {"Table 1": 26, "Table 2": 26, "Table 3": 1}}
METRICS = ("WD", "Precision", "Recall")


def other_draws(p: Mapping[str, Any]) -> str | None:
    """Why a run is not comparable with the paper's mode counts and distances, or ``None``: a run of
    parameters ``p`` that draws another number of DAGs per posterior than the paper's 1,000."""
    if p["n_posterior"] == PAPER_SCALE["n_posterior"]:
        return None
    return f"{p['n_posterior']} DAGs per posterior against the paper's {PAPER_SCALE['n_posterior']}"


def paper_name(method: str) -> str:
    return PAPER_NAMES.get(method, method)


def paper_table(name: str) -> pd.DataFrame:
    """The paper's Table 1, 2 or 3: ``method, metric, mean, spread, spread_kind``, with ``printed``
    and ``printed_spread`` the mean and spread as the paper prints them (text: the mean's last digit
    sets the precision of a match; both are shown as printed)."""
    path = paths.PAPER_VALUES / f"{PAPER_TABLES[name]}.csv"
    text = "\n".join(line for line in path.read_text().splitlines() if not line.startswith("#"))
    table = pd.read_csv(io.StringIO(text), dtype={"mean": str, "spread": str})
    return table.assign(printed=table["mean"], printed_spread=table["spread"], mean=table["mean"].astype(float),
                        spread=table["spread"].astype(float))


def paper_value(name: str, method: str, metric: str) -> pd.Series | None:
    """One row of the paper's table ``name`` (None when the paper has no such cell)."""
    table = paper_table(name)
    row = table[(table["method"] == paper_name(method)) & (table["metric"] == metric)]
    return row.iloc[0] if len(row) else None


#: the roles of Figure 3's pairs in the ``pair`` column of the distributions: the paper's own pair, and the
#: pair the run chose (the ``figure_pair`` parameter, else the pair whose true ATE has the most modes)
PAPER_PAIR, CHOSEN_PAIR = "the paper's pair", "the chosen pair"


def figure3_pair() -> tuple[str, str]:
    """Figure 3's (treatment, outcome) on Sachs as the paper's caption names it."""
    path = paths.PAPER_VALUES / "emezue_figure3.csv"
    row = pd.read_csv(path, comment="#").iloc[0]
    return str(row["treatment"]), str(row["outcome"])


def by_pair(distributions: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Figure 3's distributions per pair role (:data:`PAPER_PAIR`, :data:`CHOSEN_PAIR`); a run written
    before the roles were recorded holds the chosen pair alone."""
    if distributions.empty:
        return {}
    if "pair" not in distributions:
        return {CHOSEN_PAIR: distributions}
    return {role: g for role, g in distributions.groupby("pair", sort=False)}
