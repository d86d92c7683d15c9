"""Study 6: distribution-level ATE evaluation of Bayesian causal discovery, the pipeline of
``notebooks/06_bayesian_cd_ate.ipynb``.

Reproduces Tables 1-3 and Figures 2-3 of Emezue, Drouin, Deleu, Bauer and Bengio, "Benchmarking
Bayesian causal discovery methods for downstream treatment effect estimation", ICML 2023 workshop
on Structured Probabilistic Inference and Generative Modeling, arXiv:2307.04988 (REFERENCES.md).

One *trial* is a data set (a synthetic seed at one sample size, or Sachs) run through every
posterior method:

1. **Data.** Synthetic (seed ``s``): ``d`` nodes, each of the ``d(d-1)/2`` lower-triangular
   entries ``A[i, j]`` (``i > j``, meaning ``i -> j``) present with probability
   ``expected_edges / (d(d-1)/2)``, then the nodes randomly permuted; weights ``N(0, 1)``,
   noise ``N(0, noise_sd^2)``, no intercept, no standardisation; ``X = E (I - W)^{-1}``. The graph,
   weights and permutation are drawn first from ``default_rng(s)``, so both sample sizes of a
   seed share the graph. Sachs: the 853 CD3/CD28 rows (:mod:`causaleval.datasets.sachs`),
   z-scored (``ddof = 0``), truth = pgmpy's 17-edge ``sachs`` DAG.
2. **Truth.** Every DAG of the true graph's Markov equivalence class (CPDAG by
   :func:`graphs.to_cpdag`, members by :func:`extensions.mec_members`), each counted once.
3. **Posterior.** ``n_posterior`` DAGs per method (:mod:`causaleval.bayes.posteriors`; seed ``s``).
4. **ATE** of every ordered pair in every DAG, on the trial's data (:mod:`causaleval.effects.ate`).
5. **Metrics per pair** (:mod:`causaleval.metrics.ate_distribution`): the Wasserstein distance
   of the raw samples; precision and recall of the ATE modes after ``numpy.isclose``
   regrouping, for each density filter (0 = no filter). A pair whose filtered *learned* modes
   are empty has an undefined precision, one whose filtered *true* modes are empty an
   undefined recall: they are left out of the means and counted (``no_learned_mode``,
   ``no_true_mode``), never set to 0 silently.
6. **Tables.** Per (method, seed) the mean over pairs, then mean and standard error over the
   seeds (Tables 1-2); on Sachs (one seed) the mean and standard deviation over pairs (Table 3).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from causaleval import params, parallel, plugins, report
from causaleval.bayes import posteriors
from causaleval.effects.ate import LinearATE
from causaleval.graphs.extensions import mec_members
from causaleval.graphs import CausalGraph, to_cpdag
from causaleval.metrics import ate_distribution as ad

STUDY = "06_bayesian_cd_ate"
PAPER_TABLES = {"Table 1": "emezue_table1", "Table 2": "emezue_table2", "Table 3": "emezue_table3"}
PAPER_NAMES = {"bootstrap_pc": "bootstrap-pc", "bootstrap_ges": "bootstrap-ges", "mc3": "mc3"}
NOT_REPRODUCED = {
    "bcdnets": "BCDNets (Cundy et al. 2021): no package on PyPI; the authors' research code targets GPU JAX",
    "dibs": "DiBS (Lorch et al. 2021): dibs-lib 1.3.3 resolves with the project's pins but brings jax/jaxlib 0.10.2 "
            "and jupyter/notebook as run-time requirements, and 1,000 particles at d = 20 on two CPU cores did not fit "
            "this round; not installed",
    "gadget": "Gadget (Viinikka et al. 2020): sumu 0.1.2 is a source distribution with C++ extensions; not built in this round",
    "dag-gflownet": "DAG-GFlowNet (Deleu et al. 2022): research code on GPU JAX, not a package; training one GFlowNet per data set on two CPU cores was out of this round's budget",
}
METRICS = ("WD", "Precision", "Recall")
POSTERIOR_OPTIONS = ("pc_alpha", "ges_score", "cpdag_rule", "mc3_burn_in", "mc3_thin")
PAPER_SCALE = {"seeds": 26, "n_posterior": 1000}


def check_params(p: Mapping[str, Any]) -> None:
    """Check the notebook's parameters against the schema, then what it cannot state."""
    params.check(STUDY, p)
    if len(set(p["seeds"])) != len(p["seeds"]):
        raise params.ParameterError(f"seeds: {p['seeds']} repeats a seed")
    if len(p["figure_pair"]) != 2 or p["figure_pair"][0] == p["figure_pair"][1]:
        raise params.ParameterError(f"figure_pair: {p['figure_pair']}; expected two different Sachs nodes")


# ------------------------------------------------------------------------------ data
def synthetic(seed: int, n: int, n_nodes: int, expected_edges: float, noise_sd: float) -> tuple[CausalGraph, pd.DataFrame]:
    """The true DAG and ``n`` rows of the linear-Gaussian model of seed ``seed`` (module notes)."""
    rng = np.random.default_rng(seed)
    d = n_nodes
    p_edge = expected_edges / (d * (d - 1) / 2)
    if not 0 <= p_edge <= 1:
        raise ValueError(f"expected_edges={expected_edges}: more than the {d * (d - 1) // 2} possible edges of {d} nodes")
    lower = np.tril(rng.random((d, d)) < p_edge, k=-1)
    weights = np.where(lower, rng.standard_normal((d, d)), 0.0)
    order = rng.permutation(d)
    adjacency, weights = lower[np.ix_(order, order)], weights[np.ix_(order, order)]
    noise = rng.normal(scale=noise_sd, size=(n, d))
    data = noise @ np.linalg.inv(np.eye(d) - weights)
    names = [f"X{i}" for i in range(d)]
    return (CausalGraph.from_adjacency(adjacency.astype(np.int8), names, name=f"synthetic seed {seed}"),
            pd.DataFrame(data, columns=names))


def sachs() -> tuple[CausalGraph, pd.DataFrame]:
    """pgmpy's 17-edge Sachs DAG and the 853 observational rows, z-scored (``ddof = 0``)."""
    from causaleval.datasets.networks import network_graph
    from causaleval.datasets.sachs import load_sachs

    raw = load_sachs()
    truth = network_graph("sachs").reorder(list(raw.columns))
    return truth, (raw - raw.mean()) / raw.std(ddof=0)


def settings(p: Mapping[str, Any]) -> list[str]:
    """The data settings of a run: ``n=<size>`` per sample size, then ``sachs``."""
    return [f"n={n}" for n in p["sample_sizes"]] + (["sachs"] if p["sachs"] else [])


def trial_data(setting: str, seed: int, config: Mapping[str, Any]) -> tuple[CausalGraph, pd.DataFrame]:
    if setting == "sachs":
        return sachs()
    return synthetic(seed, int(setting.removeprefix("n=")), config["n_nodes"], config["expected_edges"], config["noise_sd"])


# ------------------------------------------------------------------------------ metrics
def weighted_unique(values: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct values in order of first appearance, with their summed weights."""
    uniq, first, inverse = np.unique(values, return_index=True, return_inverse=True)
    order = np.argsort(first)
    totals = np.bincount(inverse.reshape(-1), weights=weights, minlength=len(uniq))
    return uniq[order], totals[order]


def pair_scores(true_values: np.ndarray, true_weights: np.ndarray, learned_values: np.ndarray,
                learned_weights: np.ndarray, densities: Sequence[float]) -> list[dict[str, float]]:
    """WD and, per density, mode precision and recall of one pair's two weighted samples.

    The same numbers as :func:`ad.wasserstein` and :func:`ad.mode_precision_recall` on the
    samples with every value repeated ``weight`` times (regrouping each distinct value once,
    in order of first appearance, gives the modes those functions give), except that an
    empty filtered side gives NaN (module notes) instead of 0.
    """
    tv, tw = weighted_unique(true_values, true_weights)
    lv, lw = weighted_unique(learned_values, learned_weights)
    wd = ad.wasserstein(np.repeat(tv, tw.astype(int)), np.repeat(lv, lw.astype(int)))
    modes: list[float] = []
    true_share = _shares(ad.regroup(tv, modes=modes), tw)
    learned_share = _shares(ad.regroup(lv, modes=modes), lw)
    rows = []
    for density in densities:
        t = {m for m, s in true_share.items() if s >= density}
        g = {m for m, s in learned_share.items() if s >= density}
        tp = len(t & g)
        rows.append({"density": density, "wd": wd,
                     "precision": tp / len(g) if g else np.nan, "recall": tp / len(t) if t else np.nan})
    return rows


def _shares(grouped: np.ndarray, weights: np.ndarray) -> dict[float, float]:
    modes, inverse = np.unique(grouped, return_inverse=True)
    share = np.bincount(inverse.reshape(-1), weights=weights) / weights.sum()
    return dict(zip(modes.tolist(), share.tolist()))


# ------------------------------------------------------------------------------ trials
def config(p: Mapping[str, Any]) -> dict[str, Any]:
    """The parameters a trial needs (plain values, so a Dask worker can take them)."""
    keys = ("methods", "n_posterior", "densities", "figure_pair", "n_nodes", "expected_edges", "noise_sd", "plugins",
            *POSTERIOR_OPTIONS)
    return {k: p[k] for k in keys}


def run_trial(setting: str, seed: int, config: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    """One data set through every method: per-pair scores, run counts and, on Sachs, the
    ATE distributions of ``figure_pair``."""
    plugins.load(config["plugins"])
    truth, data = trial_data(setting, seed, config)
    members = np.stack([m.directed_matrix() for m in mec_members(to_cpdag(truth))])
    estimator = LinearATE(data.to_numpy())
    pairs = estimator.pairs()
    true_effects = estimator.effects(members)
    options = {k: config[k] for k in POSTERIOR_OPTIONS}
    names = list(data.columns)
    rows, counts, dists = [], [], []
    figure = tuple(names.index(v) for v in config["figure_pair"]) if setting == "sachs" else None
    if figure is not None:
        dists.append(_distribution("MEC (truth)", true_effects[:, pairs.index(figure)], np.ones(len(members))))
    for method in config["methods"]:
        dags = posteriors.sample_posterior(method, data, n_samples=config["n_posterior"], seed=seed, options=options)
        flat = dags.reshape(len(dags), -1)
        _, first, inverse, weight = np.unique(flat, axis=0, return_index=True, return_inverse=True, return_counts=True)
        order = np.argsort(first)
        unique_dags, weight = dags[first[order]], weight[order].astype(float)
        solved_before = estimator.solved
        effects = estimator.effects(unique_dags)
        for k, (t, y) in enumerate(pairs):
            for r in pair_scores(true_effects[:, k], np.ones(len(members)), effects[:, k], weight, config["densities"]):
                rows.append({"method": method, "treatment": names[t], "outcome": names[y], **r})
        counts.append({"method": method, "posterior_dags": len(dags), "distinct_dags": len(unique_dags),
                       "mec_size": len(members), "effects": len(unique_dags) * len(pairs),
                       "regressions_solved": estimator.solved - solved_before})
        if figure is not None:
            dists.append(_distribution(method, effects[:, pairs.index(figure)], weight))
    tag = {"setting": setting, "seed": seed}
    return {"pairs": pd.DataFrame(rows).assign(**tag), "counts": pd.DataFrame(counts).assign(**tag),
            "distributions": pd.concat(dists, ignore_index=True).assign(**tag) if dists else pd.DataFrame()}


def _distribution(method: str, values: np.ndarray, weights: np.ndarray) -> pd.DataFrame:
    v, w = weighted_unique(values, weights)
    return pd.DataFrame({"method": method, "ate": v, "mass": w / w.sum()})


def grid(p: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One trial per (synthetic setting, seed), plus one Sachs trial (seed: the first seed)."""
    c = config(p)
    return [{"setting": s, "seed": seed, "config": c} for s in settings(p)
            for seed in (p["seeds"][:1] if s == "sachs" else p["seeds"])]


def run(p: Mapping[str, Any]) -> dict[str, pd.DataFrame]:
    """Every trial through :func:`parallel.run_trials` (joblib, or Dask when
    ``CAUSALEVAL_DASK_SCHEDULER`` is set), results concatenated in grid order."""
    results = parallel.run_trials(run_trial, grid(p), n_jobs=p["n_jobs"], progress=False, desc="data sets")
    return {k: pd.concat([r[k] for r in results], ignore_index=True) for k in ("pairs", "counts", "distributions")}


# ------------------------------------------------------------------------------ tables
def per_seed(pairs: pd.DataFrame) -> pd.DataFrame:
    """Mean over pairs per (setting, method, seed, density), with the pairs left out counted."""
    g = pairs.groupby(["setting", "method", "seed", "density"], sort=False)
    out = g[["wd", "precision", "recall"]].mean()
    out["pair_sd_wd"] = g["wd"].std(ddof=1)
    out["pair_sd_precision"] = g["precision"].std(ddof=1)
    out["pair_sd_recall"] = g["recall"].std(ddof=1)
    out["pairs"] = g.size()
    out["no_learned_mode"] = g["precision"].apply(lambda s: int(s.isna().sum()))
    out["no_true_mode"] = g["recall"].apply(lambda s: int(s.isna().sum()))
    return out.reset_index()


def summary_table(pairs: pd.DataFrame) -> pd.DataFrame:
    """Long table (setting, method, density, metric): ``mean`` and ``spread`` with its kind:
    the standard error over seeds (``se_seeds``) when a setting has several seeds, else the
    standard deviation over pairs (``sd_pairs``), as in the paper's Tables 1-3."""
    seeds = per_seed(pairs)
    rows = []
    for (setting, method, density), g in seeds.groupby(["setting", "method", "density"], sort=False):
        for metric, col in zip(METRICS, ("wd", "precision", "recall"), strict=True):
            if len(g) > 1:
                spread, kind = g[col].std(ddof=1) / np.sqrt(len(g)), "se_seeds"
            else:
                spread, kind = float(g[f"pair_sd_{col}"].iloc[0]), "sd_pairs"
            rows.append({"setting": setting, "method": method, "density": density, "metric": metric,
                         "mean": g[col].mean(), "spread": spread, "spread_kind": kind, "seeds": len(g),
                         "pairs": int(g["pairs"].iloc[0]), "left_out": int(g["no_learned_mode" if metric == "Precision"
                                                                         else "no_true_mode"].sum()) if metric != "WD" else 0})
    return pd.DataFrame(rows)


def paper_table(name: str) -> pd.DataFrame:
    """The paper's Table 1, 2 or 3 (``data/paper_values/emezue_table*.csv``)."""
    return report.paper_values(PAPER_TABLES[name])


def table_setting(name: str, p: Mapping[str, Any]) -> str | None:
    """The setting of our run that the paper's table ``name`` reports, if it was run."""
    wanted = {"Table 1": "n=20", "Table 2": "n=100", "Table 3": "sachs"}[name]
    return wanted if wanted in settings(p) else None


def layout(summary: pd.DataFrame, name: str, setting: str) -> pd.DataFrame:
    """The paper's layout: one row per method (ours, then the paper's others), each metric as
    ``mean ± spread`` for us and for the paper."""
    paper = paper_table(name)
    ours = summary[(summary["setting"] == setting) & (summary["density"] == 0)]
    rows = []
    for method in list(dict.fromkeys(ours["method"])) + [m for m in NOT_REPRODUCED if m in set(paper["method"])]:
        paper_name = PAPER_NAMES.get(method, method)
        row = {"method": paper_name}
        for metric in METRICS:
            o = ours[(ours["method"] == method) & (ours["metric"] == metric)]
            q = paper[(paper["method"] == paper_name) & (paper["metric"] == metric)]
            row[f"{metric} (ours)"] = _pm(o["mean"].iloc[0], o["spread"].iloc[0]) if len(o) else "not reproduced"
            row[f"{metric} (paper)"] = _pm(q["mean"].iloc[0], q["spread"].iloc[0]) if len(q) else "--"
        rows.append(row)
    return pd.DataFrame(rows)


def _pm(mean: float, spread: float) -> str:
    return f"{mean:.3f} ± {spread:.4f}" if np.isfinite(spread) else f"{mean:.3f}"


def agreement(summary: pd.DataFrame, p: Mapping[str, Any], tolerance_se: float) -> pd.DataFrame:
    """Every compared cell of Tables 1-3, ours beside the paper's, with a ``status``.

    The paper's spreads are standard errors over seeds (Tables 1-2) or standard deviations over
    the 110 pairs (Table 3, turned into a standard error by ``/ sqrt(110)``); ours likewise.
    A cell *matches* when ``|ours - paper| <= tolerance_se * sqrt(se_ours^2 + se_paper^2)``,
    else it *differs, unexplained* (no computed reason is attached here; ``scale`` says how
    far our run is from the paper's protocol); a method of ours the paper lacks is *not in
    the paper*."""
    rows = []
    scale = (f"{len(p['seeds'])} of {PAPER_SCALE['seeds']} seeds, {p['n_posterior']} of "
             f"{PAPER_SCALE['n_posterior']} posterior DAGs")
    for name in PAPER_TABLES:
        setting = table_setting(name, p)
        if setting is None:
            continue
        paper = paper_table(name)
        ours = summary[(summary["setting"] == setting) & (summary["density"] == 0)]
        for r in ours.itertuples():
            q = paper[(paper["method"] == PAPER_NAMES.get(r.method, r.method)) & (paper["metric"] == r.metric)]
            se = _as_se(r.spread, r.spread_kind, r.pairs)
            row = {"table": name, "method": PAPER_NAMES.get(r.method, r.method), "metric": r.metric,
                   "ours": r.mean, "se_ours": se, "paper": np.nan, "se_paper": np.nan, "diff": np.nan,
                   "band": np.nan, "status": "not in the paper", "scale": scale}
            if len(q):
                paper_se = _as_se(q["spread"].iloc[0], q["spread_kind"].iloc[0], r.pairs)
                band = tolerance_se * float(np.hypot(se if np.isfinite(se) else 0.0, paper_se))
                diff = r.mean - q["mean"].iloc[0]
                row.update(paper=q["mean"].iloc[0], se_paper=paper_se, diff=diff, band=band,
                           status="matches" if abs(diff) <= band else "differs, unexplained")
            rows.append(row)
    return pd.DataFrame(rows)


def _as_se(spread: float, kind: str, pairs: int) -> float:
    return float(spread) if kind == "se_seeds" else float(spread) / np.sqrt(pairs)


def _value(summary: pd.DataFrame, setting: str, method: str, metric: str, density: float = 0.0) -> float:
    s = summary[(summary["setting"] == setting) & (summary["method"] == method)
                & (summary["metric"] == metric) & (summary["density"] == density)]
    return float(s["mean"].iloc[0]) if len(s) else np.nan


def claims(summary: pd.DataFrame, p: Mapping[str, Any]) -> pd.DataFrame:
    """The paper's claims (Sec. 4, 4.1), each with a computed verdict and its evidence;
    verdict empty when the run lacks what the claim needs."""
    ms = list(p["methods"])
    have = set(settings(p))
    rows = []

    def add(claim: str, statement: str, needs: bool | str, verdict: Any, evidence: str) -> None:
        """``needs``: True when the run can test the claim, else False or the reason it cannot."""
        reason = "not run with these parameters" if needs is False else needs
        rows.append({"claim": claim, "statement": statement, "verdict": bool(verdict) if needs is True else None,
                     "evidence": evidence if needs is True else reason})

    core = {"bootstrap_pc", "bootstrap_ges"} <= set(ms)
    wd20 = {m: _value(summary, "n=20", m, "WD") for m in ms}
    add("table1_wd_order", "Table 1 (n = 20): bootstrap PC has the lowest WD and bootstrap GES the highest "
        "(among the methods run here)", core and "n=20" in have,
        core and "n=20" in have and min(wd20, key=wd20.get) == "bootstrap_pc" and max(wd20, key=wd20.get) == "bootstrap_ges",
        "; ".join(f"{m} {v:.3f}" for m, v in wd20.items()))
    both = {"n=20", "n=100"} <= have
    lower = {m: (_value(summary, "n=20", m, "WD"), _value(summary, "n=100", m, "WD")) for m in ms}
    add("wd_lower_n100", "WD is lower with n = 100 than with n = 20 for every method (Table 2 vs Table 1)", both,
        all(b < a for a, b in lower.values()), "; ".join(f"{m} {a:.3f} -> {b:.3f}" for m, (a, b) in lower.items()))
    others = [m for m in ("bootstrap_ges", "mc3") if m in ms]
    prec = {(s, m): _value(summary, s, m, "Precision") for s in settings(p) for m in ["bootstrap_pc", *others]}
    add("pc_precision", "Bootstrap PC's precision is above bootstrap GES's and MC3's in every setting (Tables 1-3)",
        "bootstrap_pc" in ms and bool(others),
        all(prec[(s, "bootstrap_pc")] > prec[(s, m)] for s in settings(p) for m in others),
        "; ".join(f"{s} {m} {v:.2f}" for (s, m), v in prec.items()))
    synth = [s for s in settings(p) if s != "sachs"]
    rec = {(s, m): _value(summary, s, m, "Recall") for s in synth for m in ms}
    add("high_recall", "All methods attain relatively high recall on synthetic data (the paper's lowest is 0.75)",
        bool(synth), all(v >= 0.75 for v in rec.values()), "; ".join(f"{s} {m} {v:.2f}" for (s, m), v in rec.items()))
    wds = {m: _value(summary, "sachs", m, "WD") for m in ms}
    spread = max(wds.values()) - min(wds.values()) if wds else np.nan
    add("sachs_wd_range", "On Sachs the methods' WDs are comparable: their range is at most the paper's 0.004",
        "sachs" in have and len(ms) > 1, spread <= 0.004, f"range {spread:.4f} over " + ", ".join(f"{m} {v:.4f}" for m, v in wds.items()))
    dens = max(p["densities"])
    low = [(s, m) for s in settings(p) for m in ms if _value(summary, s, m, "Precision") < 0.5]
    raised = {(s, m): (_value(summary, s, m, "Precision"), _value(summary, s, m, "Precision", dens)) for s, m in low}
    add("density_filter", f"Filtering modes below density {dens:g} raises the precision of every method whose "
        "unfiltered precision is low (below 0.5; Sec. 4.1, Figure 2)",
        _filter_testable(p, dens, bool(low)),
        all(b > a for a, b in raised.values()), "; ".join(f"{s} {m} {a:.2f} -> {b:.2f}" for (s, m), (a, b) in raised.items()))
    return pd.DataFrame(rows)


def summary_text(table: pd.DataFrame) -> str:
    """The closing paragraph, computed from the agreement table."""
    counts = table["status"].value_counts()
    parts = [f"{n} {status}" for status, n in counts.items()]
    return (f"Of {len(table)} cells of Tables 1-3 compared ({table['scale'].iloc[0]}): {', '.join(parts)}."
            if len(table) else "No table of the paper was run.")


# ------------------------------------------------------------------------------ figures
def figure2(pairs: pd.DataFrame) -> Any:
    """Precision (top) and recall (bottom) against the density filter, one column per
    setting, one line per method: mean and standard deviation over all (seed, pair) values."""
    import matplotlib.pyplot as plt

    settings_ = list(dict.fromkeys(pairs["setting"]))
    fig, axes = plt.subplots(2, len(settings_), figsize=(3.2 * len(settings_), 5), squeeze=False, sharex=True)
    for c, setting in enumerate(settings_):
        sub = pairs[pairs["setting"] == setting]
        for method, g in sub.groupby("method", sort=False):
            stats = g.groupby("density")[["precision", "recall"]].agg(["mean", "std"])
            for r, metric in enumerate(("precision", "recall")):
                axes[r, c].errorbar(stats.index, stats[(metric, "mean")], yerr=stats[(metric, "std")],
                                    marker="o", capsize=3, label=PAPER_NAMES.get(method, method))
        axes[0, c].set_title(setting)
        axes[1, c].set_xlabel("density filter")
    axes[0, 0].set_ylabel("precision")
    axes[1, 0].set_ylabel("recall")
    axes[0, -1].legend(fontsize=7)
    fig.tight_layout()
    return fig


def figure3(distributions: pd.DataFrame, pair: Sequence[str]) -> Any:
    """The ATE distribution of ``pair`` on Sachs per method: a stem of height = mass at each
    distinct value (the distributions are discrete), on a common symmetric axis at least
    [-0.5, 0.5] wide, so a distribution with all its mass at one value stays readable."""
    import matplotlib.pyplot as plt

    methods = list(dict.fromkeys(distributions["method"]))
    fig, axes = plt.subplots(len(methods), 1, figsize=(6, 1.4 * len(methods)), sharex=True, squeeze=False)
    reach = max(0.5, 1.1 * float(distributions["ate"].abs().max()))
    for ax, method in zip(axes[:, 0], methods):
        g = distributions[distributions["method"] == method]
        color = "C0" if method.startswith("MEC") else "C1"
        ax.vlines(g["ate"], 0, g["mass"], color=color, lw=2)
        ax.plot(g["ate"], g["mass"], "o", color=color, ms=4)
        top = g.loc[g["mass"].idxmax()]
        ax.annotate(f"{top['mass']:.2f} at {top['ate']:.3g}", (0.99, 0.8), xycoords="axes fraction",
                    ha="right", fontsize=7)
        ax.set_xlim(-reach, reach)
        ax.set_ylim(0, 1.05)
        ax.set_ylabel(PAPER_NAMES.get(method, method), rotation=0, ha="right", fontsize=8)
    axes[-1, 0].set_xlabel(f"ATE of {pair[0]} on {pair[1]} (z-scored data)")
    fig.tight_layout()
    return fig


# ------------------------------------------------------------------------------ text
def describe_run(p: Mapping[str, Any]) -> str:
    """What this run does, against the paper's protocol (for the notebook's Markdown)."""
    synth = ", ".join(str(n) for n in p["sample_sizes"]) or "none"
    return (f"This run: synthetic data with d = {p['n_nodes']} nodes, about {p['expected_edges']:g} expected edges, "
            f"noise sd {p['noise_sd']:g}, sample sizes {synth}, seeds {p['seeds']} "
            f"({len(p['seeds'])} of the paper's {PAPER_SCALE['seeds']}); Sachs {'included' if p['sachs'] else 'left out'}. "
            f"Each posterior holds {p['n_posterior']} DAGs (the paper: {PAPER_SCALE['n_posterior']}); "
            f"bootstrap PC at alpha = {p['pc_alpha']:g}, bootstrap GES with the {p['ges_score'].upper()} score, "
            f"CPDAGs to DAGs by `{p['cpdag_rule']}`; MC3 with {p['mc3_burn_in']} burn-in steps, keeping every "
            f"{p['mc3_thin']}th state. Density filters {p['densities']}. The paper's scale is "
            "`notebooks/params/06.paper.yaml`.")


def methods_table(p: Mapping[str, Any]) -> pd.DataFrame:
    """The paper's seven methods: run here (and how) or not reproduced (and why)."""
    how = {"bootstrap_pc": f"PC-stable, Fisher-z at alpha {p['pc_alpha']:g} (causal-learn), {p['n_posterior']} bootstrap resamples",
           "bootstrap_ges": f"the kit's GES, {p['ges_score'].upper()} score, {p['n_posterior']} bootstrap resamples",
           "mc3": f"the kit's structure MCMC with the BGe score, {p['n_posterior']} states kept"}
    rows = [{"method": PAPER_NAMES.get(m, m), "status": "run", "how / why not": how.get(m, "plugin method")}
            for m in p["methods"]]
    rows += [{"method": m, "status": "not reproduced", "how / why not": why} for m, why in NOT_REPRODUCED.items()]
    return pd.DataFrame(rows)


def left_out(summary: pd.DataFrame) -> pd.DataFrame:
    """Pairs left out of the precision (no learned mode survives the filter) and recall (no
    true mode survives) means, per setting, method and density."""
    s = summary[summary["metric"] != "WD"]
    table = s.pivot_table(index=["setting", "method", "density"], columns="metric", values="left_out",
                          aggfunc="sum", sort=False)
    first = s.groupby(["setting", "method", "density"], sort=False)[["pairs", "seeds"]].first()
    table["of pairs x seeds"] = first["pairs"] * first["seeds"]
    return table.rename(columns={"Precision": "no learned mode", "Recall": "no true mode"}).reset_index()


def _filter_testable(p: Mapping[str, Any], density: float, low: bool) -> bool | str:
    """Can the density claim be tested? A filter at or below ``1 / n_posterior`` removes no
    learned mode (every DAG carries that mass), so it cannot change a precision."""
    if density <= 1 / p["n_posterior"]:
        return (f"untestable here: with {p['n_posterior']} posterior DAGs every learned mode holds at least "
                f"1/{p['n_posterior']} = {1 / p['n_posterior']:.3f} >= the largest density filter {density:g}")
    return True if low else "no method has an unfiltered precision below 0.5 in this run"


def claims_text(table: pd.DataFrame) -> str:
    """One sentence per claim verdict, computed from the claims table."""
    word = {True: "holds", False: "does not hold"}
    return " ".join(f"*{r.claim}*: {word.get(r.verdict, 'not tested')} ({r.evidence})." for r in table.itertuples())
