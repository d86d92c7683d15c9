"""Study 6's tables: per seed, the summary the paper's Tables 1-3 report, the paper's layout with
its values beside ours, and the agreement cell by cell (:func:`causaleval.verdicts.agreement`)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from causaleval import verdicts
from causaleval.studies.bayesian_cd_ate.data import settings
from causaleval.studies.bayesian_cd_ate.paper import (
    METRICS, PAPER_SCALE, PAPER_TABLES, SEVEN, TABLE_SETTINGS, other_draws, paper_name, paper_table, paper_value,
)

COLUMNS = dict(zip(METRICS, ("wd", "precision", "recall"), strict=True))


def per_seed(pairs: pd.DataFrame) -> pd.DataFrame:
    """Mean over pairs per (setting, method, seed, density), with the pairs left out counted."""
    g = pairs.groupby(["setting", "method", "seed", "density"], sort=False)
    out = g[["wd", "precision", "recall"]].mean()
    for col in ("wd", "precision", "recall"):
        out[f"pair_sd_{col}"] = g[col].std(ddof=1)
    out["pairs"] = g.size()
    out["no_learned_mode"] = g["precision"].apply(lambda s: int(s.isna().sum()))
    out["no_true_mode"] = g["recall"].apply(lambda s: int(s.isna().sum()))
    return out.reset_index()


def summary_table(seeds: pd.DataFrame) -> pd.DataFrame:
    """Long table (setting, method, density, metric) from :func:`per_seed`'s table: ``mean`` over seeds of the per-seed
    means over pairs and ``spread`` with its kind: the standard error over seeds (``se_seeds``; the seeds are the
    independent runs, Sachs's too, where a seed is the methods' own randomness) or, with one seed, the
    standard deviation over the pairs (``sd_pairs``, as the paper's Table 3 gives it)."""
    rows = []
    for (setting, method, density), g in seeds.groupby(["setting", "method", "density"], sort=False):
        for metric, col in COLUMNS.items():
            if len(g) > 1:
                spread, kind = g[col].std(ddof=1) / np.sqrt(len(g)), "se_seeds"
            else:
                spread, kind = float(g[f"pair_sd_{col}"].iloc[0]), "sd_pairs"
            left = {"WD": 0, "Precision": int(g["no_learned_mode"].sum()), "Recall": int(g["no_true_mode"].sum())}
            rows.append({"setting": setting, "method": method, "density": density, "metric": metric,
                         "mean": g[col].mean(), "spread": spread, "spread_kind": kind, "seeds": len(g),
                         "pairs": int(g["pairs"].iloc[0]), "left_out": left[metric]})
    return pd.DataFrame(rows)


def table_setting(name: str, p: Mapping[str, Any]) -> str | None:
    """The setting of our run that the paper's table ``name`` reports, if it was run."""
    wanted = TABLE_SETTINGS[name]
    return wanted if wanted in settings(p) else None


def layout(summary: pd.DataFrame, name: str, setting: str, not_run: Mapping[str, str]) -> pd.DataFrame:
    """The paper's layout: one row per method, the paper's seven first, then any of one's own; each
    metric as ``mean ± spread`` for us (or why the method did not run) and for the paper, the paper's
    as it prints them."""
    ours = summary[(summary["setting"] == setting) & (summary["density"] == 0)]
    paper = paper_table(name)
    rows = []
    for method in [*SEVEN, *[m for m in dict.fromkeys(ours["method"]) if m not in SEVEN]]:
        row = {"method": paper_name(method)}
        for metric in METRICS:
            o = ours[(ours["method"] == method) & (ours["metric"] == metric)]
            q = paper[(paper["method"] == paper_name(method)) & (paper["metric"] == metric)]
            row[f"{metric} (ours)"] = (_pm(o["mean"].iloc[0], o["spread"].iloc[0]) if len(o)
                                       else not_run.get(method, "not run"))
            row[f"{metric} (paper)"] = f"{q['printed'].iloc[0]} ± {q['printed_spread'].iloc[0]}" if len(q) else "--"
        rows.append(row)
    return pd.DataFrame(rows)


def _pm(mean: float, spread: float) -> str:
    return f"{mean:.3f} ± {spread:.4f}" if np.isfinite(spread) else f"{mean:.3f}"


def agreement(seeds: pd.DataFrame, p: Mapping[str, Any]) -> pd.DataFrame:
    """Every cell of Tables 1-3 of a method we ran, judged by :func:`causaleval.verdicts.agreement`:
    the paper's value (as printed) against our per-seed means over pairs, the seeds being the
    independent runs, in the interval of :func:`comparison_interval` (one seed: the printed precision
    alone decides). The resolution of a cell is the
    spread of the paper's own means over its methods in that table and metric (max - min): an interval
    wider than that cannot tell the paper's methods apart, so a match within it is ``undecided``.
    ``scale`` says how far the run is from the paper's protocol (the seeds this table's setting ran,
    against the paper's: one run for Table 3); a method the paper lacks is left out. ``seeds``:
    :func:`per_seed`'s table. A run that draws another number of DAGs per posterior than the paper's
    (``n_posterior``) shows its cells as ``not comparable``, never judged: precision and recall count
    the distinct ATE values of the drawn DAGs (modes), and fewer DAGs give fewer modes (20 DAGs can
    hold at most 20); the WD of an empirical distribution is biased upwards by few draws (two equal
    modes 1 apart, drawn exactly: about 0.09 at 21 DAGs, 0.01 at 1,000)."""
    seeds = seeds[seeds["density"] == 0]
    rows = []
    for name in PAPER_TABLES:
        setting = table_setting(name, p)
        if setting is None:
            continue
        paper = paper_table(name)
        resolution = paper.groupby("metric")["mean"].agg(lambda v: float(v.max() - v.min()))
        for method in dict.fromkeys(seeds.loc[seeds["setting"] == setting, "method"]):
            runs = seeds[(seeds["setting"] == setting) & (seeds["method"] == method)]
            scale = (f"{runs['seed'].nunique()} seed(s) against the paper's {PAPER_SCALE['runs'][name]}, "
                     f"{p['n_posterior']} posterior DAGs against its {PAPER_SCALE['n_posterior']}")
            for metric, col in COLUMNS.items():
                cell = paper_value(name, method, metric)
                if cell is None:
                    continue
                item = f"{name} {paper_name(method)} {metric}"
                if other_draws(p):
                    row = verdicts.not_comparable(item, float(runs[col].mean()), float(cell["printed"]), (
                        f"{other_draws(p)}: precision and recall count modes, and the WD of few draws is biased "
                        "upwards"))
                    row["n_runs"] = len(runs)
                else:
                    interval, kind = comparison_interval(runs[col], cell, PAPER_SCALE["runs"][name])
                    row = verdicts.agreement(interval, cell["printed"], item=item, resolution=resolution[metric],
                                             kind=kind)
                rows.append({"table": name, "method": paper_name(method), "metric": metric, **row, "scale": scale})
    return verdicts.agreement_table(rows) if rows else pd.DataFrame(columns=["table", "method", "metric", "status"])


def comparison_interval(values: pd.Series, cell: pd.Series, paper_runs: int,
                        level: float = verdicts.LEVEL) -> tuple[verdicts.Interval, str]:
    """The interval around our mean (``values``: one per seed) that the paper's value is judged in,
    and its kind (named in the agreement table's ``rule``).

    * The paper's mean over ``paper_runs`` > 1 seeds with its standard error ``se_p`` (``spread_kind``
      ``se_seeds``, Tables 1-2): both means carry sampling error, so the two-sample (Welch) interval
      ``mean +/- t_df sqrt(s^2 / n + se_p^2)``, ``df`` by Welch-Satterthwaite,
      ``(a + b)^2 / (a^2 / (n - 1) + b^2 / (paper_runs - 1))`` with ``a = s^2 / n``, ``b = se_p^2``.
    * One paper run (Table 3): its value is one draw of a run, not a mean, so the prediction interval
      of one run, ``mean +/- t_{n-1} s sqrt(1 + 1 / n)``.
    * Otherwise (a paper mean without its standard error) the t interval of our mean.

    Undefined (NaN bounds) with fewer than two seeds of ours; of zero width only when neither side
    varies. A NaN per-seed value is refused (:func:`causaleval.verdicts.mean_interval`)."""
    from scipy import stats

    plain = verdicts.mean_interval(values, level)  # refuses NaNs
    n, mean = plain.n, plain.mean
    if n < 2:
        return plain, "interval"
    s2 = float(values.to_numpy(dtype=float).var(ddof=1))
    se_p = float(cell["spread"])
    if paper_runs > 1 and cell["spread_kind"] == "se_seeds" and math.isfinite(se_p):
        a, b = s2 / n, se_p ** 2
        se, kind = math.sqrt(a + b), "Welch interval with the paper's standard error"
        df = (a + b) ** 2 / (a ** 2 / (n - 1) + b ** 2 / (paper_runs - 1)) if se > 0 else n - 1
    elif paper_runs == 1:
        se, df, kind = math.sqrt(s2 * (1 + 1 / n)), n - 1, "prediction interval of one run"
    else:
        return plain, "interval"
    half = float(stats.t.ppf((1 + level) / 2, df)) * se
    return verdicts.Interval(mean, mean - half, mean + half, n, level), kind


def left_out(summary: pd.DataFrame) -> pd.DataFrame:
    """Pairs left out of the precision (no learned mode survives the filter) and recall (no true
    mode survives) means, per setting, method and density."""
    s = summary[summary["metric"] != "WD"]
    table = s.pivot_table(index=["setting", "method", "density"], columns="metric", values="left_out",
                          aggfunc="sum", sort=False)
    first = s.groupby(["setting", "method", "density"], sort=False)[["pairs", "seeds"]].first()
    table["of pairs x seeds"] = first["pairs"] * first["seeds"]
    return table.rename(columns={"Precision": "no learned mode", "Recall": "no true mode"}).reset_index()


def seed_values(seeds: pd.DataFrame, setting: str, method: str, metric: str, density: float = 0.0) -> pd.Series:
    """Per-seed means over pairs of one metric, indexed by seed (empty when not run)."""
    s = seeds[(seeds["setting"] == setting) & (seeds["method"] == method) & (seeds["density"] == density)]
    return s.set_index("seed")[COLUMNS[metric]]


def methods_run(summary: pd.DataFrame, settings_: Sequence[str]) -> list[str]:
    """The methods with results in every one of ``settings_``."""
    have = [set(summary.loc[summary["setting"] == s, "method"]) for s in settings_]
    return [m for m in dict.fromkeys(summary["method"]) if all(m in h for h in have)]
