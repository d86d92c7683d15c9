"""Study 3's readings grid: Table 2's over/under-specification row of Gentzel, Garant and Jensen
(2019, supplement Sec. 5) under every combination of the choices the paper leaves open.

The axes (:data:`AXES`, :func:`grid_table`), each a choice the supplement states only in part:

* ``normalize``: outcomes divided by their median control-case value (supp. Sec. 1) per subject,
  per data set, or not at all (:func:`causaleval.datasets.factorial.normalize_outcomes`);
* ``test`` and ``alpha``: which (treatment, outcome) pairs are "causally related" in the consistent
  model (supp. Sec. 2: "the Friedman test for blocked difference in means"), by the tests of
  :data:`causaleval.datasets.consistent.RELATEDNESS_TESTS` at levels 0.01, 0.05, 0.1;
* ``bins``: quantile bins of the outcomes and the biasing covariate (the paper made every variable
  discrete, with no count given);
* ``beta``: the biasing strength of Algorithm 1;
* ``covariate``: the domain's biasing covariate, or the data's first other covariate;
* ``treatments``: all of the file's, or the ones the paper's Figure 1 draws (JDK only,
  ``data/paper_values/gentzel_supp_figure1.csv``);
* ``reference``: the distribution ``P`` of ``TV_{P, P_hat}``: the consistent model fitted to the
  same pseudo-observational sample (the kit's reading), the consistent model fitted to the factorial
  data (supp. Sec. 2 computes "ground truth interventional distributions" on "the resulting model"),
  or the factorial data itself, weighted as Algorithm 1 samples it.

Per reading: Table 2's six TVD cells (min, median, max over treatments of
``TVD = sum_{T', O} TV_{P, P_hat, T'=1}(O)``) on the one sample at ``seed``, as the paper's table
comes from one sample; the medians of SHD and SID over treatments; the ratio of the median under-
to the median over-specification TVD on that sample and its mean with the t interval over
``n_samples`` samples (seeds ``seed``, ``seed + 1``, ...), judged against the stated "2-5x" as the
claims table judges it; the paper's cells it reproduces by the study's agreement rule
(:func:`causaleval.verdicts.agreement` on the one sample, like with like) and the summed absolute
distance of its six cells to the paper's.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from causaleval import metrics, verdicts
from causaleval.datasets import consistent
from causaleval.datasets.factorial import NORMALIZATIONS
from causaleval.effects import bn
from causaleval.parallel import run_trials
from causaleval.studies.over_under_specification.claims import (
    PAPER_DOMAINS, in_range, ratio_bounds, report_csv, stats_of,
)
from causaleval.studies.over_under_specification.scores import MODELS, STATS, altered_dags, sid_both_ways
from causaleval.studies.software_tvd import empirical_sample, load_domain, raw_data

AXES: dict[str, tuple[Any, ...]] = {
    "normalize": NORMALIZATIONS, "test": consistent.RELATEDNESS_TESTS, "alpha": (0.01, 0.05, 0.1),
    "bins": (3, 5, 10), "beta": (0.5, 1.0, 2.0),
}
REFERENCES = {"sample fit": "consistent model fitted to the sample (the kit's reading)",
              "factorial fit": "consistent model fitted to the factorial data",
              "factorial data": "the factorial data, weighted as Algorithm 1 samples it"}
SETTINGS = ("normalize", "test", "alpha", "bins", "beta", "covariate", "treatments", "reference")
TVD_CELLS = [f"{model} {stat}" for model in MODELS for stat in STATS]


def figure1_treatments(name: str) -> list[str] | None:
    """The treatments the paper's Figure 1 draws for domain ``name``; None for a domain it does not draw."""
    table = report_csv("gentzel_supp_figure1")
    drawn = table.loc[table["domain"] == name, "treatment"].tolist()
    return drawn or None


def grid_covariates(source: str, name: str, covariate: str, data_dir: str | None = None) -> list[str]:
    """The biasing covariates the grid tries: the domain's, then the data's first other covariate."""
    others = [c for c in raw_data(source, name, data_dir).covariates if c != covariate]
    return [covariate, *others[:1]]


def protocol(base: Mapping[str, Any]) -> dict[str, Any]:
    """The grid's reading the study's own parameters make (the claims' stated protocol)."""
    return {"normalize": base["normalize"], "test": "friedman", "alpha": base["alpha"], "bins": base["bins"],
            "beta": base["beta"], "covariate": base["covariate"], "treatments": "all", "reference": "sample fit"}


def grid_table(source: str, name: str, base: Mapping[str, Any], covariates: list[str], *,
               data_dir: str | None = None, n_samples: int = 5, axes: Mapping[str, tuple] = AXES,
               n_jobs: int = -1, progress: bool = False) -> pd.DataFrame:
    """One row per reading (:data:`SETTINGS`) of domain ``name``, sorted by distance to the paper's
    Table 2 row (module notes). ``base`` holds the study's parameters (``seed``, ``outcomes``,
    ``smoothing``, ``ess``, ``level``, ``sid_covariate`` and the protocol's settings);
    ``covariates`` the biasing covariates to try; ``axes`` the values of the other axes (default
    :data:`AXES`; the protocol's own values are added, so its reading is always in the grid). The
    domain's preparations run in parallel."""
    if n_samples < 2:
        raise ValueError(f"grid_samples={n_samples}: the ratio's interval needs at least 2 samples")
    axes = {**axes, **{k: tuple(dict.fromkeys([*axes[k], base[k]])) for k in ("normalize", "bins", "beta", "alpha")}}
    axes["test"] = tuple(dict.fromkeys(["friedman", *axes["test"]]))  # the stated protocol is always a reading
    sets: dict[str, list[str] | None] = {"all": None}
    drawn = figure1_treatments(name)
    if drawn is not None:
        sets["as in Figure 1"] = drawn
    loads = [dict(normalize=n, bins=b, beta=beta, covariate=c, treatments=label)
             for n, b, beta, c, label in itertools.product(axes["normalize"], axes["bins"], axes["beta"],
                                                           covariates, sets)]
    rows = run_trials(_load_rows, [dict(source=source, name=name, data_dir=data_dir, base=dict(base), load=load,
                                        treatments=sets[load["treatments"]], n_samples=n_samples,
                                        tests=tuple(axes["test"]), alphas=tuple(axes["alpha"]))
                                   for load in loads], n_jobs=n_jobs, progress=progress, desc="readings")
    grid = pd.DataFrame([row for part in rows for row in part])
    return _beside_paper(grid, name).sort_values(["distance to paper", *SETTINGS], kind="stable",
                                                 ignore_index=True)


def _load_rows(source: str, name: str, data_dir: str | None, base: dict[str, Any], load: dict[str, Any],
               treatments: list[str] | None, n_samples: int, tests: tuple[str, ...],
               alphas: tuple[float, ...]) -> list[dict[str, Any]]:
    """Every reading of one prepared domain: each test, level and reference."""
    domain = load_domain(source, name, covariate=load["covariate"], outcomes=base["outcomes"], bins=load["bins"],
                         beta=load["beta"], data_dir=data_dir, treatments=treatments, normalize=load["normalize"])
    samples = [empirical_sample(domain, load["beta"], base["seed"] + i) for i in range(n_samples)]
    fit = dict(smoothing=base["smoothing"], ess=base["ess"], cards=domain.cards)
    fitted: dict[tuple, dict] = {}  # by (edges, sample): the readings' DAGs share most altered models

    def tables(dag: Any, i: int) -> dict:
        key = (tuple(sorted(dag.directed_edges())), i)
        if key not in fitted:
            fitted[key] = bn.fit(dag, samples[i], **fit).tables(domain.pairs)
        return fitted[key]

    scored: dict[tuple, dict[str, dict[str, Any]]] = {}  # by the consistent DAG's edges: levels often agree
    rows = []
    for test in tests:
        tested = consistent.related_pairs(domain.data, test=test)  # p-values; each level thresholds them
        for alpha in alphas:
            dag = consistent.consistent_dag(domain.data, domain.covariate,
                                            tested.assign(related=tested["p_value"] < alpha))
            key = tuple(sorted(dag.directed_edges()))
            if key not in scored:
                scored[key] = _reading_scores(domain, dag, n_samples, tables, fit, base)
            rows += [{**load, "test": test, "alpha": alpha, "reference": reference, **values}
                     for reference, values in scored[key].items()]
    return rows


def _reading_scores(domain: Any, dag: Any, n_samples: int, tables: Any, fit: Mapping[str, Any],
                    base: Mapping[str, Any]) -> dict[str, dict]:
    """Per reference: the six TVD cells of the first sample, SHD/SID medians, the ratio per sample
    (``tables(dag, i)``: a DAG's interventional tables fitted to sample ``i`` with ``fit``'s smoothing)."""
    altered = altered_dags(dag, domain.data.treatments, domain.data.outcomes)
    factorial = bn.fit(dag, domain.data.frame[domain.columns].astype("int64"), **fit).tables(domain.pairs)
    sid = "sid_with_covariate" if base["sid_covariate"] else "sid_without_covariate"
    structure = pd.DataFrame([{"model": kind, "shd": float(metrics.shd_dag(dag, g)),
                               "sid": sid_both_ways(dag, g, domain.covariate)[sid]} for _, kind, g in altered])
    per_sample: dict[str, list[pd.DataFrame]] = {r: [] for r in REFERENCES}
    for i in range(n_samples):
        references = {"sample fit": tables(dag, i), "factorial fit": factorial, "factorial data": domain.truth}
        estimates = [(kind, tables(g, i)) for _, kind, g in altered]
        for reference, p in references.items():
            per_sample[reference].append(pd.DataFrame(
                [{"model": kind, "tvd": metrics.total_tvd(p, est, base["level"])} for kind, est in estimates]))
    out = {}
    for reference, frames in per_sample.items():
        row: dict[str, Any] = {}
        for model in MODELS:
            cells = stats_of(frames[0].loc[frames[0]["model"] == model, "tvd"])
            row.update({f"{model} {stat}": cells[stat] for stat in STATS})
            row[f"SHD {model} median"] = float(structure.loc[structure["model"] == model, "shd"].median())
            row[f"SID {model} median"] = float(structure.loc[structure["model"] == model, "sid"].median())
        ratios = [_ratio(frame) for frame in frames]
        row.update({"ratio (one sample)": ratios[0], "ratios": ratios})
        out[reference] = row
    return out


def _ratio(tvds: pd.DataFrame) -> float:
    """The median under-specification TVD over the median over-specification TVD (inf when the latter is 0)."""
    over, under = (float(tvds.loc[tvds["model"] == m, "tvd"].median()) for m in MODELS)
    return under / over if over > 0 else np.inf


def _beside_paper(grid: pd.DataFrame, name: str) -> pd.DataFrame:
    """The ratio's interval and verdict per reading, and its agreement with the paper's Table 2 row."""
    low, high = ratio_bounds()
    judged = [_judge(ratios, low, high) for ratios in grid.pop("ratios")]
    grid["ratio mean"], grid["ratio low"], grid["ratio high"], grid["ratio in 2-5"] = zip(*judged)
    paper_name = PAPER_DOMAINS.get(name)
    if paper_name is None:
        grid["cells matching"], grid["distance to paper"] = "no paper row", np.nan
        return grid
    printed = report_csv("gentzel_supp_table2").set_index(["domain", "model"])
    paper = {f"{m} {s}": printed.loc[(paper_name, m), f"tvd_{s}"] for m in MODELS for s in STATS}
    matching = sum((grid[c].map(lambda v, p=paper[c]: verdicts.agreement(v, p, item=c)["status"])
                    == verdicts.MATCHES).astype(int) for c in TVD_CELLS)
    grid["cells matching"] = matching.map(lambda k: f"{k} of {len(TVD_CELLS)}")
    grid["distance to paper"] = sum((grid[c] - float(paper[c])).abs() for c in TVD_CELLS)
    return grid


def _judge(ratios: list[float], low: float, high: float) -> tuple[float, float, float, str]:
    """Mean, interval and verdict of the ratio over the samples; a sample whose over-specification
    TVD is 0 has no ratio, and the reading is then undecided."""
    if not np.isfinite(ratios).all():
        return np.inf, np.nan, np.nan, verdicts.UNDECIDED
    verdict, interval = in_range(np.asarray(ratios), low, high)
    return interval.mean, interval.low, interval.high, verdict


def grid_summary(grid: pd.DataFrame, base: Mapping[str, Any]) -> dict[str, Any]:
    """What the grid says about the "2-5x" claim: the stated protocol's row, the range of the ratio's
    mean, and the readings by verdict (:func:`causaleval.verdicts.by_reading` over the decided ones)."""
    chosen = protocol(base)
    row = grid.loc[np.logical_and.reduce([grid[k] == v for k, v in chosen.items()])].iloc[0]
    finite = grid["ratio mean"][np.isfinite(grid["ratio mean"])]
    counts = grid["ratio in 2-5"].value_counts()
    decided = {f"reading {i}": v == verdicts.HOLDS for i, v in enumerate(grid["ratio in 2-5"])
               if v in (verdicts.HOLDS, verdicts.DOES_NOT_HOLD)}
    both, _ = verdicts.by_reading(decided) if decided else (None, "")
    return {"protocol": row, "readings": len(grid), "low": float(finite.min()), "high": float(finite.max()),
            "inside": int(((grid["ratio mean"] >= ratio_bounds()[0])
                           & (grid["ratio mean"] <= ratio_bounds()[1])).sum()),
            "by verdict": {v: int(counts.get(v, 0))
                           for v in (verdicts.HOLDS, verdicts.DOES_NOT_HOLD, verdicts.UNDECIDED)},
            "both": both == verdicts.DEPENDS_ON_READING}


def with_readings(claims: pd.DataFrame, grid: pd.DataFrame, base: Mapping[str, Any], domain: str,
                  n_samples: int) -> pd.DataFrame:
    """The claims with the ``ratio_<domain>`` row carrying the grid: its evidence adds the stated
    protocol's grid row, the range of the ratio over every reading and the share inside the stated
    range; its verdict becomes ``depends on reading`` when decided readings go both ways."""
    claim_id = f"ratio_{domain}"
    if claim_id not in claims.index:
        return claims
    s = grid_summary(grid, base)
    low, high = ratio_bounds()
    p = s["protocol"]
    text = (f"; readings grid ({s['readings']} readings of the open choices, {n_samples} samples each): under the "
            f"stated protocol the ratio is {p['ratio mean']:.2f} "
            f"[{p['ratio low']:.2f}, {p['ratio high']:.2f}] ({p['ratio in 2-5']}); over the grid the mean ratio "
            f"ranges {s['low']:.2f}-{s['high']:.2f}, {s['inside']} of {s['readings']} "
            f"({s['inside'] / s['readings']:.0%}) inside {low:g}-{high:g}; readings by their interval: "
            + ", ".join(f"{v} {n}" for v, n in s["by verdict"].items()))
    out = claims.copy()
    out.loc[claim_id, "evidence"] = f"{out.loc[claim_id, 'evidence']}{text}"
    if s["both"]:
        out.loc[claim_id, "verdict"] = verdicts.DEPENDS_ON_READING
    return out


def grid_by_axis(grid: pd.DataFrame) -> pd.DataFrame:
    """Per value of each setting: how many readings, the median of their mean ratios, and how many
    hold, do not hold or are undecided against the stated range (which choices move the claim)."""
    rows = []
    for axis in SETTINGS:
        for value, part in grid.groupby(axis, sort=True):
            counts = part["ratio in 2-5"].value_counts()
            rows.append({"setting": axis, "value": str(value), "readings": len(part),
                         "median ratio": float(part["ratio mean"].median()),
                         **{v: int(counts.get(v, 0)) for v in (verdicts.HOLDS, verdicts.DOES_NOT_HOLD,
                                                              verdicts.UNDECIDED)}})
    return pd.DataFrame(rows)


def plot_grid(grid: pd.DataFrame, base: Mapping[str, Any]) -> plt.Figure:
    """The ratio's mean and interval for every reading, sorted, one panel per reference, with the
    stated range shaded and the stated protocol marked."""
    low, high = ratio_bounds()
    chosen = protocol(base)
    fig, axes = plt.subplots(1, len(REFERENCES), figsize=(4.5 * len(REFERENCES), 3.5), sharey=True)
    for ax, reference in zip(axes, REFERENCES):
        part = grid[grid["reference"] == reference].sort_values("ratio mean", kind="stable").reset_index(drop=True)
        finite = np.isfinite(part["ratio mean"])
        x = np.arange(len(part))[finite]
        ax.axhspan(low, high, color="tab:green", alpha=0.2, label=f"stated {low:g}-{high:g}x")
        ax.vlines(x, part["ratio low"][finite], part["ratio high"][finite], color="0.7", lw=0.5)
        ax.plot(x, part["ratio mean"][finite], ".", ms=1.5, color="tab:blue", label="reading (mean, interval)")
        mine = np.logical_and.reduce([part[k] == v for k, v in chosen.items() if k != "reference"])
        ax.plot(np.flatnonzero(mine & finite), part["ratio mean"][mine & finite], "o", color="tab:red", ms=5,
                label="stated protocol")
        ax.axhline(1.0, color="0.3", lw=0.6, ls=":")
        ax.set_yscale("log")
        ax.set_title(f"reference: {reference}", fontsize=9)
        off = int((~finite | (part["ratio mean"] <= 0)).sum())
        ax.set_xlabel("readings, by ratio" + (f" ({off} with ratio 0 or none not drawn)" if off else ""))
    axes[0].set_ylabel("median TVD under / over")
    axes[0].legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    return fig
