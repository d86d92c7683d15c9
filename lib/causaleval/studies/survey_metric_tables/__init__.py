"""Study 4: the survey metric tables (Cheng et al. 2022; Gentzel et al. 2019; Shimoni et al. 2018; Emezue et al. 2023) and worked examples of every metric.

The pipeline of ``notebooks/04_survey_metric_tables.ipynb`` as functions:

* Gentzel et al. (Gentzel et al. 2019) survey Tables 1 and 2 from the published counts, and an audit of
  every percentage the text states (:func:`percentage_audit`, :func:`count_checks`);
* Cheng et al. (Cheng et al. 2022) Tables I-III from structured data, with the kit's implementation and
  its cross-check beside each metric (:func:`with_implementation`);
* worked examples on real or simulated data: effect estimators of causallib on the ACIC 2016
  data the causallib wheel ships (:func:`acic_results`), graphs learned from Asia
  (:func:`asia_example`), a position-biased click log (:func:`ranking_example`), time series
  with a known effect (:func:`time_series_example`), counterfactual explanations of a linear
  classifier (:func:`counterfactual_example`) and ATE distributions of a bootstrapped PC
  against the true Markov equivalence class (:func:`ate_posterior_example`).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from causaleval import metrics, params, report, verdicts
from causaleval.effects import bn
from causaleval.learn import learners
from causaleval.graphs.extensions import consistent_extension, mec_members
from causaleval.graphs import CausalGraph, to_cpdag
from causaleval.metrics import ate_distribution, effect, ibm, ranking, registry
from causaleval.parallel import run_trials
from causaleval.effects.sampling import position_based_clicks, random_dag
from causaleval.datasets.networks import forward_sample

STUDY = "04_survey_metric_tables"


def check_params(p: dict[str, Any]) -> None:
    """Raise a ParameterError naming the first parameter of notebook 04 that does not fit its
    declared type, range or choices (``notebooks/04_survey_metric_tables.params.yaml``)."""
    params.check(STUDY, p)


ESTIMATORS = ("ipw", "standardization", "aipw")
GRADE_SHARES = (0.4, 0.25, 0.15, 0.12, 0.08)  # relevance grades 0-4 of the ranking example's items
AR_COEFFICIENT = 0.3  # autoregression of the time-series example's two series
BAR_STEP = 0.22  # horizontal offset between the estimators' bars of the ACIC figure

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
    return out.assign(follows=out["total"] == out["computed"]).set_index("line")


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

    ``verdict``: *follows* when the stated value is the computed one rounded to the nearest
    integer; *rounded down* when it is the computed value truncated instead; *does not follow*
    when it is a whole point or more away; *no count* when the text gives only a percentage.
    """
    out = statements.copy()
    exact = 100 * out["count"] / out["denominator"]
    out["computed %"] = exact
    diff = out["percent"] - exact
    out["verdict"] = np.select(
        [out["count"].isna(), diff.abs() <= 0.5, (diff < 0) & (diff > -1), diff.abs() < 1],
        ["no count", "follows", "rounded down", "rounded up"], default="does not follow")
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
    return frame.assign(holds=frame["stated"] == frame["computed"]).set_index("check")


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


# ============================================================ ACIC 2016 (causallib)
@dataclass(frozen=True)
class Instance:
    """One data instance of the IBM-style benchmark built from ACIC 2016."""

    ufid: str
    X: pd.DataFrame
    a: pd.Series
    y: pd.Series
    y0: pd.Series
    y1: pd.Series


def acic_instances(dgps: Sequence[int], sizes: Sequence[int | None], seed: int) -> list[Instance]:
    """One instance per (ACIC 2016 simulation in the causallib wheel, size): a seeded subsample
    of ``size`` rows (None: all 4,802). Potential outcomes ``y0, y1`` are the simulation's
    noisy ones (the IBM framework's counterfactual files), so the true effect of an instance is
    the mean of ``y1 - y0``."""
    from causallib.datasets import load_acic16

    out = []
    for dgp in dgps:
        data = load_acic16(instance=int(dgp))
        _, zymu = load_acic16(instance=int(dgp), raw=True)
        for size in sizes:
            n = len(data.X) if size is None else int(size)
            if not 0 < n <= len(data.X):
                raise ValueError(f"parameter sizes: {size} is not in 1..{len(data.X)} (ACIC 2016 rows)")
            rows = np.sort(np.random.default_rng([seed, int(dgp), n]).choice(len(data.X), n, replace=False))
            ids = pd.Index([f"s{i}" for i in rows], name="sample_id")
            a, y, y0, y1 = (pd.Series(np.asarray(s)[rows], index=ids) for s in (data.a, data.y, zymu["y0"], zymu["y1"]))
            out.append(Instance(f"acic{dgp}_n{n}", data.X.iloc[rows].set_axis(ids), a.astype(int), y, y0, y1))
    return out


def _estimator(name: str) -> Any:
    from causallib.estimation import AIPW, IPW, StratifiedStandardization
    from sklearn.linear_model import LinearRegression, LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    propensity = lambda: IPW(make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)))  # noqa: E731
    if name == "ipw":
        return propensity()
    if name == "standardization":
        return StratifiedStandardization(LinearRegression())
    if name == "aipw":
        return AIPW(StratifiedStandardization(LinearRegression()), propensity())
    raise ValueError(f"unknown estimator {name!r}; expected one of {ESTIMATORS}")


def _ate(name: str, X: pd.DataFrame, a: pd.Series, y: pd.Series) -> tuple[float, pd.DataFrame | None]:
    model = _estimator(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X, a, y)
        outcome = model.estimate_population_outcome(X, a, y)
        individual = None if name == "ipw" else model.estimate_individual_outcome(X, a)
    return float(outcome[1] - outcome[0]), individual


def _instance_estimates(instance: Instance, estimators: Sequence[str], n_bootstrap: int, seed: int) -> list[dict]:
    rows = []
    rng = np.random.default_rng([seed, *instance.ufid.encode()])  # seeded by the instance, not the order
    draws = [rng.integers(0, len(instance.a), len(instance.a)) for _ in range(n_bootstrap)]
    for name in estimators:
        ate, individual = _ate(name, instance.X, instance.a, instance.y)
        boot = [_ate(name, instance.X.iloc[d], instance.a.iloc[d], instance.y.iloc[d])[0] for d in draws]
        lo, hi = np.percentile(boot, [2.5, 97.5])
        rows.append({"ufid": instance.ufid, "size": len(instance.a), "estimator": name, "effect_size": ate,
                     "li": float(lo), "ri": float(hi),
                     "individual": None if individual is None else individual.rename(columns={0: "y0", 1: "y1"})})
    return rows


def acic_results(instances: Sequence[Instance], estimators: Sequence[str], *, n_bootstrap: int, seed: int,
                 n_jobs: int = -1, progress: bool = True) -> pd.DataFrame:
    """Each estimator's ATE on each instance with a percentile bootstrap 95% interval
    (``n_bootstrap`` resamples of the rows), plus its individual outcome predictions
    (``progress=False``: no progress bar, e.g. in a stored notebook)."""
    unknown = set(estimators) - set(ESTIMATORS)
    if unknown:
        raise ValueError(f"parameter estimators: unknown {sorted(unknown)}; expected some of {ESTIMATORS}")
    jobs = [{"instance": i, "estimators": estimators, "n_bootstrap": n_bootstrap, "seed": seed} for i in instances]
    chunks = run_trials(_instance_estimates, jobs, n_jobs=n_jobs, desc="ACIC instances", progress=progress)
    return pd.DataFrame([r for chunk in chunks for r in chunk])


def acic_truth(instances: Sequence[Instance]) -> pd.DataFrame:
    """True effect (mean of y1 - y0) and size per instance, indexed by ufid."""
    return pd.DataFrame({"effect": [float((i.y1 - i.y0).mean()) for i in instances],
                         "size": [len(i.a) for i in instances]}, index=[i.ufid for i in instances])


def write_submission(instances: Sequence[Instance], results: pd.DataFrame, estimator: str, folder: Any) -> dict:
    """The framework's files for one estimator: factual and counterfactual files of every
    instance, the population prediction file and one individual prediction file per instance."""
    from pathlib import Path

    folder = Path(folder)
    rows = results[results["estimator"] == estimator].set_index("ufid")
    ibm.write_instances({i.ufid: pd.DataFrame({"z": i.a, "y": i.y}) for i in instances}, folder / "factual",
                        kind="factual")
    ibm.write_instances({i.ufid: pd.DataFrame({"y0": i.y0, "y1": i.y1}) for i in instances}, folder / "cf",
                        kind="counterfactual")
    ibm.write_population(rows[["effect_size", "li", "ri"]], folder / "population.csv")
    individual = rows["individual"].dropna()
    if len(individual):
        ibm.write_instances(individual.to_dict(), folder / "individual", kind="individual")
    return {"cf": folder / "cf", "population": folder / "population.csv",
            "individual": folder / "individual" if len(individual) else None}


def ibm_round_trip(instances: Sequence[Instance], results: pd.DataFrame, effects: pd.DataFrame,
                   folder: Any) -> pd.DataFrame:
    """Write every estimator's predictions in the IBM framework's formats under ``folder``,
    score them from the files and compare with the in-memory ``IBM ...`` scores of
    :func:`effect_table`: the number of scores and the largest absolute difference."""
    rows = []
    for name in dict.fromkeys(results["estimator"]):
        files = write_submission(instances, results, name, f"{folder}/{name}")
        from_files = ibm.score_population(files["population"], files["cf"])
        if files["individual"] is not None:
            individual = ibm.score_individual(files["individual"], files["cf"]).add_prefix("individual ")
            from_files = pd.concat([from_files, individual])
        in_memory = effects.loc[name].filter(like="IBM").rename(lambda c: c.replace("IBM ", ""))
        rows.append({"estimator": name, "scores": len(from_files),
                     "max |difference|": float((from_files - in_memory[from_files.index]).abs().max())})
    return pd.DataFrame(rows).set_index("estimator")


def effect_table(instances: Sequence[Instance], results: pd.DataFrame) -> pd.DataFrame:
    """Per estimator, over the instances as M experiments: MAE, MSE, RMSE of the ATE (eqs. 4-5),
    the mean PEHE (eq. 6), and IBM population and individual scores (Shimoni et al. 2018)."""
    truth = acic_truth(instances)
    by_id = {i.ufid: i for i in instances}
    rows = []
    for name, g in results.groupby("estimator", sort=False):
        g = g.set_index("ufid").loc[truth.index]
        row = {"estimator": name, "MAE": effect.mae_ate(truth["effect"], g["effect_size"]),
               "MSE": effect.mse_ate(truth["effect"], g["effect_size"]),
               "RMSE": effect.rmse_ate(truth["effect"], g["effect_size"])}
        pop, _ = ibm.population_scores(ibm.population_statistics(truth, g[["effect_size", "li", "ri"]]))
        row.update({f"IBM {k}": v for k, v in pop.items()})
        if g["individual"].notna().all():
            row["PEHE"] = float(np.mean([effect.pehe(by_id[u].y1, by_id[u].y0, f["y1"] - f["y0"])
                                         for u, f in g["individual"].items()]))
            ind, _ = ibm.individual_scores(ibm.individual_statistics(
                {u: pd.DataFrame({"y0": i.y0, "y1": i.y1}) for u, i in by_id.items()}, g["individual"].to_dict()))
            row.update({f"IBM individual {k}": v for k, v in ind.items()})
        rows.append(row)
    return pd.DataFrame(rows).set_index("estimator")


# ============================================================ structure: Asia
def asia_example(*, n_samples: int, n_bootstrap: int, seed: int) -> dict[str, Any]:
    """The Asia network, a sample, hill climbing's DAG on it, edge frequencies over bootstrap
    resamples (edge scores), and the true and fitted ``P(O | do(T))`` of every ordered pair."""
    from causaleval.datasets import load_network

    model = load_network("asia")
    truth = CausalGraph.from_pgmpy(model, name="asia")
    data = forward_sample(model, n_samples, seed)
    learned = learners.learn("hc", data, seed=seed)
    rng = np.random.default_rng(seed)
    freq = np.zeros((truth.n, truth.n))
    for _ in range(n_bootstrap):
        boot = data.iloc[rng.integers(0, len(data), len(data))].reset_index(drop=True)
        freq += learners.learn("hc", boot, seed=seed).reorder(truth.nodes).directed_matrix()
    scores = pd.DataFrame(freq / n_bootstrap, index=truth.nodes, columns=truth.nodes)
    true_bn = bn.from_pgmpy(model)
    fitted = bn.fit(learned.reorder(truth.nodes), data, cards=true_bn.cards)
    pairs = [(t, o) for t in truth.nodes for o in truth.nodes if t != o]
    truth_tables, fitted_tables = true_bn.tables(pairs), fitted.tables(pairs)
    tables = {p: (truth_tables[p], fitted_tables[p]) for p in pairs}
    return {"truth": truth, "learned": learned.reorder(truth.nodes), "scores": scores, "tables": tables}


def interventional_table(tables: dict) -> pd.DataFrame:
    """TV and KL of every ordered pair at each treatment value (eqs. 19-20)."""
    rows = []
    for (t, o), (p, q) in tables.items():
        for level in range(p.shape[0]):
            rows.append({"treatment": t, "outcome": o, "t": level,
                         "TV": float(metrics.tvd(p[level], q[level])),
                         "KL": float(metrics.kl_divergence(p[level], q[level]))})
    return pd.DataFrame(rows)


# ============================================================ ranking
def ranking_example(*, n_queries: int, n_items: int, sessions: int, k: int, seed: int) -> dict[str, Any]:
    """A simulated search log: per query ``n_items`` items with grades 0-4 and a popularity,
    shown in a logging ranker's order (grade plus noise) for ``sessions`` sessions, clicked by
    the position-based model (eqs. 33-34). Two rankers learn from the log: *naive* (by clicks)
    and *IPS* (clicks divided by the examination probability of the position they were shown
    at). Returns the grades, popularity and long-tail flags in each ranker's order."""
    rng = np.random.default_rng(seed)
    grades = rng.choice(5, size=(n_queries, n_items), p=list(GRADE_SHARES))
    popularity = rng.lognormal(3.0, 1.0, size=(n_queries, n_items))
    long_tail = popularity <= np.quantile(popularity, 0.8)
    logging_order = np.argsort(-(grades + rng.normal(0, 1.5, grades.shape)), axis=1)
    shown = np.take_along_axis(grades, logging_order, axis=1)
    examination = 1.0 / np.arange(1, n_items + 1)
    clicks = sum(position_based_clicks(shown, seed + s, examination=examination) for s in range(sessions))
    per_item = np.zeros(grades.shape)
    ips = np.zeros(grades.shape)
    np.put_along_axis(per_item, logging_order, clicks, axis=1)
    np.put_along_axis(ips, logging_order, clicks / examination, axis=1)
    out = {}
    for name, score in (("logging", None), ("naive", per_item), ("IPS", ips)):
        order = logging_order if score is None else np.argsort(-score, axis=1, kind="stable")  # ties: item order
        columns = {"grades": grades, "popularity": popularity, "long_tail": long_tail.astype(int)}
        out[name] = {key: np.take_along_axis(v, order, axis=1) for key, v in columns.items()}
    return out


def ranking_table(example: dict, k: int, relevant_from: int) -> pd.DataFrame:
    """NDCG@K, MAP@K (relevant: grade >= ``relevant_from``), ARP@K and APLT@K per ranker."""
    return pd.DataFrame([{
        "ranker": name, f"NDCG@{k}": ranking.ndcg_at_k(r["grades"], k),
        f"NDCG@{k} (printed IDCG)": ranking.ndcg_at_k(r["grades"], k, variant="printed"),
        f"MAP@{k}": ranking.map_at_k((r["grades"] >= relevant_from).astype(int), k),
        f"MAP@{k} (printed)": ranking.map_at_k((r["grades"] >= relevant_from).astype(int), k, variant="printed"),
        f"ARP@{k}": ranking.arp_at_k(r["popularity"], k), f"APLT@{k}": ranking.aplt_at_k(r["long_tail"], k)}
        for name, r in example.items()]).set_index("ranker")


# ============================================================ time series
def time_series_example(*, length: int, effect_size: float, lags: int, seed: int) -> dict[str, np.ndarray]:
    """``x`` Granger-causes ``y``: ``y_t = 0.5 y_{t-1} + effect x_{t-1} + e_t`` with AR(1) ``x``
    (coefficient 0.6); and a treated and a control series, each AR(1) noise (coefficient 0.3),
    the treated one shifted by ``effect_size``. All noise is standard normal."""
    rng = np.random.default_rng(seed)
    x, y, treated, control = (np.zeros(length) for _ in range(4))
    for t in range(1, length):
        x[t] = 0.6 * x[t - 1] + rng.normal()
        y[t] = 0.5 * y[t - 1] + effect_size * x[t - 1] + rng.normal()
        treated[t] = AR_COEFFICIENT * treated[t - 1] + rng.normal()
        control[t] = AR_COEFFICIENT * control[t - 1] + rng.normal()
    return {"x": x, "y": y, "treated": treated + effect_size, "control": control, "lags": lags}


# ============================================================ counterfactual explanations
def counterfactual_example(instance: Instance, *, n_features: int, seed: int) -> dict[str, Any]:
    """A logistic regression predicting treatment from the (standardized) covariates, one unit
    it assigns to control, and counterfactuals that flip the prediction with the smallest
    change of one feature (the ``n_features`` largest weights), and of two features sharing
    the change, each stepping 1% past the decision boundary."""
    from sklearn.linear_model import LogisticRegression

    X = instance.X.to_numpy(float)
    X = (X - X.mean(axis=0)) / np.where(X.std(axis=0) > 0, X.std(axis=0), 1)
    clf = LogisticRegression(max_iter=1000).fit(X, instance.a.to_numpy())
    w, b = clf.coef_[0], clf.intercept_[0]
    rng = np.random.default_rng(seed)
    negatives = np.flatnonzero(X @ w + b < 0)
    x = X[rng.choice(negatives)]
    margin = -(x @ w + b) * 1.01
    top = np.argsort(-np.abs(w))[:n_features]
    cfs = []
    for j in top:
        c = x.copy()
        c[j] += margin / w[j]
        cfs.append(c)
    for j1, j2 in zip(top[:-1], top[1:], strict=True):
        c = x.copy()
        c[j1] += margin / 2 / w[j1]
        c[j2] += margin / 2 / w[j2]
        cfs.append(c)
    cfs = np.array(cfs)
    return {"original": x, "counterfactuals": cfs, "flipped": bool((clf.predict(cfs) == 1).all())}


# ============================================================ ATE distributions (Emezue et al. 2023)
def _linear_sem(dag: CausalGraph, n: int, seed: int) -> pd.DataFrame:
    """``n`` rows of a linear Gaussian network on ``dag``: weights of random sign and size in
    [0.5, 1.5], standard normal noise."""
    import networkx as nx

    rng = np.random.default_rng(seed)
    d = dag.directed_matrix()
    weights = np.where(d, rng.choice([-1, 1], d.shape) * rng.uniform(0.5, 1.5, d.shape), 0.0)
    graph = nx.DiGraph(np.argwhere(d).tolist())
    graph.add_nodes_from(range(dag.n))
    order = list(nx.lexicographical_topological_sort(graph))
    x = np.zeros((n, dag.n))
    for j in order:
        x[:, j] = x @ weights[:, j] + rng.normal(size=n)
    return pd.DataFrame(x, columns=dag.nodes)


def _linear_ate(dag: CausalGraph, data: pd.DataFrame, treatment: str, outcome: str) -> float:
    """ATE of ``treatment`` on ``outcome`` under ``dag``: the coefficient of T in the least
    squares of O on T and T's parents (0 when O is a parent of T)."""
    parents = [dag.nodes[i] for i in np.flatnonzero(dag.directed_matrix()[:, dag.index(treatment)])]
    if outcome in parents:
        return 0.0
    design = np.column_stack([np.ones(len(data)), data[[treatment, *parents]].to_numpy()])
    return float(np.linalg.lstsq(design, data[outcome].to_numpy(), rcond=None)[0][1])


def ate_posterior_example(*, n_nodes: int, expected_neighbours: float, n_samples: int, n_bootstrap: int,
                          alpha: float, density: float, seed: int) -> pd.DataFrame:
    """Emezue et al.'s (2023) evaluation on a linear Gaussian network: the true ATE sample of a pair is one
    ATE per DAG of the true graph's equivalence class; the learned sample one per bootstrap
    resample (PC, Fisher z, extended to a DAG), every ATE estimated on the full data. Per
    ordered pair: Wasserstein distance, mode precision and recall without and with the
    ``density`` filter."""
    truth = random_dag(n_nodes, expected_neighbours, seed)
    data = _linear_sem(truth, n_samples, seed)
    members = mec_members(to_cpdag(truth))
    rng = np.random.default_rng(seed)
    sampled = []
    for _ in range(n_bootstrap):
        boot = data.iloc[rng.integers(0, n_samples, n_samples)].reset_index(drop=True)
        sampled.append(consistent_extension(learners.learn("pc", boot, ci_test="fisher_z", alpha=alpha, seed=seed)))
    rows = []
    for t in truth.nodes:
        for o in truth.nodes:
            if t == o:
                continue
            true_ates = [_linear_ate(g, data, t, o) for g in members]
            learned_ates = [_linear_ate(g, data, t, o) for g in sampled]
            plain = ate_distribution.mode_precision_recall(true_ates, learned_ates)
            relaxed = ate_distribution.mode_precision_recall(true_ates, learned_ates, density=density)
            rows.append({"treatment": t, "outcome": o, "true_ates": true_ates, "learned_ates": learned_ates,
                         "WD": ate_distribution.wasserstein(true_ates, learned_ates),
                         "precision": plain.precision, "recall": plain.recall,
                         f"precision (density {density})": relaxed.precision,
                         f"recall (density {density})": relaxed.recall})
    return pd.DataFrame(rows)


# ============================================================ the master table's inputs
def master_examples(instances: Sequence[Instance], results: pd.DataFrame, asia: dict, rankers: dict,
                    series: dict, explanation: dict, posterior: pd.DataFrame, *, k: int,
                    relevant_from: int) -> dict[str, tuple[str, tuple, dict]]:
    """The worked example of every registry entry: ``name -> (description, args, kwargs)``."""
    truth = acic_truth(instances)
    per = {name: g.set_index("ufid").loc[truth.index] for name, g in results.groupby("estimator")}
    first = instances[-1]
    model = "standardization" if "standardization" in per else next(iter(per))
    individual = per[model].loc[first.ufid, "individual"]
    ite = (individual["y1"] - individual["y0"]).to_numpy() if individual is not None else None
    ex: dict[str, tuple[str, tuple, dict]] = {}
    est = per.get("aipw", per[model])
    label = "aipw" if "aipw" in per else model
    for name in ("MAE (ATE)", "MSE (ATE)", "RMSE (ATE)"):
        ex[name] = (f"ACIC 2016, {len(truth)} instances, {label}", (truth["effect"].to_numpy(),
                                                                   est["effect_size"].to_numpy()), {})
    for name in ("ENoRMSE (population)", "RMSE (population)", "bias (population)", "coverage", "CIC", "ENCIS"):
        ex[name] = (f"ACIC 2016, {len(truth)} instances, {label} with bootstrap CIs",
                    (truth, est[["effect_size", "li", "ri"]]), {})
    if ite is not None:
        gt = {i.ufid: pd.DataFrame({"y0": i.y0, "y1": i.y1}) for i in instances}
        for name in ("ENoRMSE (individual)", "RMSE (individual)", "bias (individual)"):
            ex[name] = (f"ACIC 2016, {len(truth)} instances, {model}", (gt, per[model]["individual"].to_dict()), {})
        where = f"ACIC 2016 {first.ufid}, {model}"
        ex["PEHE"] = (where, (first.y1.to_numpy(), first.y0.to_numpy(), ite), {})
        ex["policy risk"] = (where + ", treat when the estimated effect > 0",
                             ((ite > 0).astype(int), first.a.to_numpy(), first.y.to_numpy()), {})
        success = (first.y > first.y.median()).astype(int).to_numpy()
        for name in ("uplift curve", "uplift coefficient", "Qini curve", "Qini coefficient"):
            ex[name] = (where + ", outcome y > median", (success, first.a.to_numpy(), ite), {})
    ex["FACE"] = (f"ACIC 2016 {first.ufid}, A = treatment", (first.y1.to_numpy(), first.y0.to_numpy()), {})
    ex["FACT"] = (f"ACIC 2016 {first.ufid}, A = treatment", (first.y1.to_numpy(), first.y0.to_numpy(),
                                                           first.a.to_numpy()), {})
    lags = int(series["lags"])
    ex["F-test (Granger)"] = (f"simulated x -> y, {len(series['y'])} steps, {lags} lags",
                              (series["y"], series["x"], lags), {})
    ex["unpaired t-test"] = ("simulated treated vs control series", (series["treated"], series["control"]), {})
    graphs = (asia["truth"], asia["learned"])
    for name in ("SHD (edits)", "Frobenius norm", "SID", "precision", "recall", "F1", "TPR", "FPR", "adjacency MSE"):
        ex[name] = ("Asia: hill climbing's DAG vs the true DAG", graphs, {})
    for name in ("ROC AUC (edge scores)", "PR AUC (edge scores)"):
        ex[name] = ("Asia: bootstrap edge frequencies of hill climbing", (asia["truth"], asia["scores"].to_numpy()), {})
    tv = interventional_table(asia["tables"]).sort_values(["TV", "treatment", "outcome", "t"]).iloc[-1]
    p, q = asia["tables"][(tv["treatment"], tv["outcome"])]
    where = f"Asia: P({tv['outcome']} | do({tv['treatment']} = {int(tv['t'])})), truth vs fitted hc DAG"
    ex["TVD"] = (where, (p[int(tv["t"])], q[int(tv["t"])]), {})
    ex["KL divergence"] = (where, (p[int(tv["t"])], q[int(tv["t"])]), {})
    where = f"linear classifier on ACIC {first.ufid}, {len(explanation['counterfactuals'])} counterfactuals"
    ex["sparsity"] = (where, (explanation["original"], explanation["counterfactuals"]), {})
    ex["proximity"] = (where, (explanation["original"], explanation["counterfactuals"]), {})
    ex["diversity"] = (where, (explanation["counterfactuals"],), {})
    ips = rankers["IPS"]
    n_items = ips["grades"].shape[1]
    where = f"simulated click log, IPS ranker, {len(ips['grades'])} queries"
    ex["NDCG@K"] = (where + f", K = {k}", (ips["grades"], k), {})
    ex["MAP@K"] = (where + f", K = {n_items} (relevant: grade >= {relevant_from})",
                   ((ips["grades"] >= relevant_from).astype(int), n_items), {})
    ex["ARP@K"] = (where + f", K = {k}", (ips["popularity"], k), {})
    ex["APLT@K"] = (where + f", K = {k}", (ips["long_tail"], k), {})
    worst = posterior.sort_values(["WD", "treatment", "outcome"]).iloc[-1]
    where = f"ATE of {worst['treatment']} on {worst['outcome']}: bootstrapped PC vs the true MEC"
    for name in ("Wasserstein distance", "mode precision", "mode recall"):
        ex[name] = (where, (worst["true_ates"], worst["learned_ates"]), {})
    return ex


def scm_examples(*, fairness_n: int, reconstruction: tuple[pd.DataFrame, pd.DataFrame], n_components: int,
                 refutation: pd.DataFrame, n_simulations: int, seed: int) -> dict[str, tuple[str, tuple, dict]]:
    """Worked examples of the fairness, interpretability and refutation entries: one sample of
    ``fairness_n`` units of :func:`fairness_scm`, the (points, data) of
    :func:`reconstruction_inputs`, and the refutation data."""
    scm = fairness_scm(**FAIRNESS_WEIGHTS)
    data = scm.sample(fairness_n, seed)
    w = FAIRNESS_WEIGHTS
    where = f"linear SCM C -> A -> W -> Y, C -> W, C -> Y; {fairness_n} units"
    full = lambda v: w["beta"] * v["A"] + w["delta"] * v["W"] + w["gamma_y"] * v["C"]  # noqa: E731
    ex: dict[str, tuple[str, tuple, dict]] = {
        "counterfactual fairness": (where + ", predictor on A, W, C", (scm, data, full, "A"), {}),
        "PC-fairness": (where + ", path A -> W -> Y given A = 0",
                        (scm, data, "A", "Y", [("A", "W"), ("W", "Y")], 0, 1, {"A": 0}), {}),
        "Ctf-DE": (where + ", given A = 0", (scm, data, "A", "Y", ["W"]), {}),
        "Ctf-IE": (where + ", given A = 0", (scm, data, "A", "Y", ["W"]), {}),
        "Ctf-SE": (where, (scm, data, "A", "Y"), {}),
    }
    points, rows = reconstruction
    ex["reconstruction error"] = (f"{len(points)} counterfactuals of X1 -> X2 -> X3, linear autoencoder "
                                  f"({n_components} component) of {len(rows)} rows", (points, rows, n_components), {})
    for name in ("placebo treatment", "random common cause", "data subset"):
        ex[name] = (f"simulated W -> T -> Y, W -> Y, {len(refutation)} units, {n_simulations} simulations",
                    (refutation, "T", "Y", ["W"], n_simulations, seed), {})
    return ex


def markdown(frame: pd.DataFrame, digits: int = 4) -> str:
    """``frame`` as a Markdown table for display: named index levels as columns, floats to
    ``digits`` significant digits, booleans as yes/no, missing values blank."""
    def cell(v: Any) -> Any:
        if isinstance(v, (bool, np.bool_)):
            return "yes" if v else "no"
        if isinstance(v, (float, np.floating)):
            return "" if np.isnan(v) else f"{v:.{digits}g}"
        return "" if v is None else v
    if any(name is not None for name in frame.index.names):
        return frame.reset_index().astype(object).map(cell).to_markdown(index=False)
    return frame.astype(object).map(cell).to_markdown()


def plot_acic(instances: Sequence[Instance], results: pd.DataFrame) -> plt.Figure:
    """Each estimator's ATE and bootstrap interval per instance, against the true effect."""
    truth = acic_truth(instances)
    estimators = list(dict.fromkeys(results["estimator"]))
    fig, ax = plt.subplots(figsize=(max(6, 0.45 * len(truth)), 3.6))
    x = np.arange(len(truth))
    for j, name in enumerate(estimators):
        g = results[results["estimator"] == name].set_index("ufid").loc[truth.index]
        offset = (j - (len(estimators) - 1) / 2) * BAR_STEP
        ax.errorbar(x + offset, g["effect_size"], yerr=[g["effect_size"] - g["li"], g["ri"] - g["effect_size"]],
                    fmt="o", ms=3, capsize=2, label=name)
    ax.scatter(x, truth["effect"], marker="_", s=200, color="black", label="true effect", zorder=3)
    ax.set_xticks(x, truth.index, rotation=90, fontsize=7)
    ax.set_ylabel("ATE")
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


# ============================================================ Cheng et al. against their own Table III
def table3_claim_audit(raw: pd.DataFrame, claims: pd.DataFrame) -> pd.DataFrame:
    """Each statement of ``cheng_table3_claims.csv`` against the ticks of Table III: the tools
    that tick one of its metric rows, and a verdict (*contradicted by Table III*, *consistent
    with Table III*, or *not checkable* when none of its items is a Table III row)."""
    metrics = raw[raw["section"] == "Metrics"].set_index("item")
    rows = []
    for _, c in claims.iterrows():
        tools, items = c["tools"].split(";"), c["items"].split(";")
        unknown = [t for t in tools if t not in metrics.columns]
        if unknown:
            raise ValueError(f"cheng_table3_claims.csv, claim {c['claim']!r}: tools {unknown} are not in Table III")
        present = [i for i in items if i in metrics.index]
        ticks = [f"{t}: {i}" for i in present for t in tools if str(metrics.loc[i, t]) in ("1", "1.0")]
        if not present:
            verdict = "not checkable (no Table III row)"
        elif (c["expected"] == "absent") == bool(ticks):
            verdict = "contradicted by Table III"
        else:
            verdict = "consistent with Table III"
        rows.append({"claim": c["claim"], "expected": c["expected"], "Table III ticks": ", ".join(ticks) or "none",
                     "verdict": verdict})
    return pd.DataFrame(rows).set_index("claim")


# ============================================================ CIC and coverage (Shimoni et al. 2018)
calibrated_cic = ibm.calibrated_cic  # used by notebook 04 and its claims


def _ols(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Least-squares coefficients and their classical standard errors."""
    beta, rss, *_ = np.linalg.lstsq(X, y, rcond=None)
    sigma2 = float(rss[0]) / (len(y) - X.shape[1])
    return beta, np.sqrt(np.diag(np.linalg.inv(X.T @ X)) * sigma2)


def interval_simulation(*, n: int, replications: int, n_bootstrap: Sequence[int], effect: float,
                        seed: int) -> pd.DataFrame:
    """Coverage and CIC (eqs. 5-6 of Shimoni et al. (2018)) of 95% intervals over ``replications`` data sets
    of ``n`` units: ``C ~ N(0, 1)``, ``T ~ Bernoulli(1 / (1 + exp(-2C)))``, and either a linear
    outcome ``Y = effect T + C + N(0, 1)`` or a misspecified one with ``+ exp(C)`` added. The
    estimator is least squares of Y on T and C (correct for the linear outcome, biased for
    the other); intervals are the normal one (estimate +- 1.96 SE) and percentile bootstraps
    with each of ``n_bootstrap`` resamples."""
    rng = np.random.default_rng(seed)
    z = 1.959963984540054
    rows = []
    for outcome in ("linear", "misspecified"):
        for r in range(replications):
            c = rng.normal(size=n)
            t = (rng.random(n) < 1 / (1 + np.exp(-2 * c))).astype(float)
            y = effect * t + c + rng.normal(size=n) + (np.exp(c) if outcome == "misspecified" else 0.0)
            X = np.column_stack([np.ones(n), t, c])
            beta, se = _ols(X, y)
            rows.append({"outcome": outcome, "interval": "normal (1.96 SE)", "replication": r,
                         "estimate": beta[1], "li": beta[1] - z * se[1], "ri": beta[1] + z * se[1]})
            draws = rng.integers(0, n, (max(n_bootstrap), n))
            Xd, yd = X[draws], y[draws]
            boot = np.linalg.solve(Xd.transpose(0, 2, 1) @ Xd, (Xd.transpose(0, 2, 1) @ yd[..., None]))[:, 1, 0]
            for b in n_bootstrap:
                lo, hi = np.percentile(boot[:b], [2.5, 97.5])
                rows.append({"outcome": outcome, "interval": f"percentile bootstrap, {b} resamples",
                             "replication": r, "estimate": beta[1], "li": lo, "ri": hi})
    frame = pd.DataFrame(rows)
    return frame.assign(covered=(frame["li"] <= effect) & (effect <= frame["ri"]),
                        cic=(frame["estimate"] - effect).abs() / (frame["ri"] - frame["li"]))


def interval_summary(simulation: pd.DataFrame) -> pd.DataFrame:
    """Coverage with its 95% Wilson interval, mean CIC and bias per (outcome, interval)."""
    from statsmodels.stats.proportion import proportion_confint

    g = simulation.groupby(["outcome", "interval"], sort=False)
    out = g.agg(replications=("covered", "size"), covered=("covered", "sum"), CIC=("cic", "mean"),
                bias=("estimate", "mean"))
    lo, hi = proportion_confint(out["covered"], out["replications"], alpha=0.05, method="wilson")
    out.insert(2, "coverage", out["covered"] / out["replications"])
    out.insert(3, "coverage 95% CI", [f"[{a:.3f}, {b:.3f}]" for a, b in zip(lo, hi, strict=True)])
    return out.drop(columns="covered")


def acic_interval_diagnosis(instances: Sequence[Instance], results: pd.DataFrame) -> pd.DataFrame:
    """Why the ACIC bootstrap intervals miss: per estimator, the coverage over instances (not
    weighted by size as the IBM score is), the share of instances whose error exceeds the
    interval's half-width, the share of the mean squared error that is squared mean bias, the
    spread of the errors against the standard error the intervals imply (width / 3.92), and how
    many times wider the intervals would have to be for the CIC of a calibrated interval."""
    truth = acic_truth(instances)
    rows = []
    for name, g in results.groupby("estimator", sort=False):
        g = g.set_index("ufid").loc[truth.index]
        error = g["effect_size"] - truth["effect"]
        width = g["ri"] - g["li"]
        cic = float((error.abs() / width).mean())
        interval_se = width / (2 * 1.959963984540054)
        rows.append({"estimator": name,
                     "coverage (unweighted)": float(((g["li"] <= truth["effect"]) & (truth["effect"] <= g["ri"])).mean()),
                     "error > half-width": float((error.abs() > width / 2).mean()),
                     "mean bias": float(error.mean()), "squared bias / MSE": float(error.mean() ** 2 / (error**2).mean()),
                     "error sd / interval SE": float(error.std(ddof=1) / interval_se.mean()),
                     "CIC": cic, "width factor needed": cic / calibrated_cic()})
    return pd.DataFrame(rows).set_index("estimator")


def _crossfit_instance(instance: Instance, max_iter: int, seed: int) -> dict:
    from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
    from threadpoolctl import threadpool_limits

    X, a, y = instance.X.to_numpy(float), instance.a.to_numpy(), instance.y.to_numpy(float)
    fold = np.random.default_rng([seed, *instance.ufid.encode()]).permutation(len(a)) % 2
    psi = np.zeros(len(a))
    with threadpool_limits(1):  # OpenMP threads of the boosted trees oversubscribe a shared machine
        for f in (0, 1):
            train, test = fold != f, fold == f
            boost = dict(max_iter=max_iter, random_state=seed)
            e = HistGradientBoostingClassifier(**boost).fit(X[train], a[train]).predict_proba(X[test])[:, 1]
            e = np.clip(e, 0.01, 0.99)
            m1, m0 = (HistGradientBoostingRegressor(**boost).fit(X[train & (a == arm)], y[train & (a == arm)])
                      .predict(X[test]) for arm in (1, 0))
            at, yt = a[test], y[test]
            psi[test] = m1 - m0 + at * (yt - m1) / e - (1 - at) * (yt - m0) / (1 - e)
    ate, se = float(psi.mean()), float(psi.std(ddof=1) / np.sqrt(len(psi)))
    z = 1.959963984540054
    return {"ufid": instance.ufid, "size": len(a), "estimator": "aipw, boosted, cross-fitted",
            "effect_size": ate, "li": ate - z * se, "ri": ate + z * se}


def crossfit_aipw(instances: Sequence[Instance], *, seed: int, max_iter: int = 100, n_jobs: int = -1) -> pd.DataFrame:
    """AIPW with cross-fitting on two folds (Chernozhukov et al. 2018, doi:10.1111/ectj.12097):
    gradient-boosted trees (``max_iter`` iterations, scikit-learn's default 100) for the
    propensity (clipped to [0.01, 0.99]) and for each arm's outcome, fitted on the other fold;
    the ATE is the mean of
    ``psi_i = m1 - m0 + a (y - m1) / e - (1 - a)(y - m0) / (1 - e)`` and its 95% interval
    ``mean +- 1.96 sd(psi) / sqrt(n)`` (the influence-function interval, no bootstrap)."""
    jobs = [{"instance": i, "max_iter": max_iter, "seed": seed} for i in instances]
    return pd.DataFrame(run_trials(_crossfit_instance, jobs, n_jobs=n_jobs, desc="cross-fitted AIPW", progress=False))


def interval_comparison(instances: Sequence[Instance], results: pd.DataFrame) -> pd.DataFrame:
    """Per estimator: the IBM coverage, CIC, bias and RMSE (size-weighted, eqs. 3-9 of Shimoni
    et al.), and the instances covered with a 95% Wilson interval of the coverage."""
    from statsmodels.stats.proportion import proportion_confint

    truth = acic_truth(instances)
    rows = []
    for name, g in results.groupby("estimator", sort=False):
        g = g.set_index("ufid").loc[truth.index]
        scores, _ = ibm.population_scores(ibm.population_statistics(truth, g[["effect_size", "li", "ri"]]))
        covered = int(((g["li"] <= truth["effect"]) & (truth["effect"] <= g["ri"])).sum())
        lo, hi = proportion_confint(covered, len(g), alpha=0.05, method="wilson")
        rows.append({"estimator": name, "IBM coverage": scores["coverage"], "IBM CIC": scores["cic"],
                     "IBM bias": scores["bias"], "IBM RMSE": scores["rmse"],
                     "instances covered": f"{covered} of {len(g)}", "coverage 95% CI": f"[{lo:.2f}, {hi:.2f}]"})
    return pd.DataFrame(rows).set_index("estimator")


# ============================================================ fairness on a linear SCM
#: the worked example's structural equations: C confounds the protected attribute A (binary)
#: and the outcome Y; W mediates A -> Y
FAIRNESS_WEIGHTS = {"alpha": 1.5, "gamma_w": 0.5, "beta": 0.5, "delta": 0.8, "gamma_y": 1.0}


def fairness_scm(alpha: float, gamma_w: float, beta: float, delta: float, gamma_y: float):
    """``C = U_C``, ``A = 1[C + U_A > 0]``, ``W = alpha A + gamma_w C + U_W``,
    ``Y = beta A + delta W + gamma_y C + U_Y``, all noises standard normal."""
    from causaleval.metrics.fairness import LinearSCM

    return LinearSCM.from_equations({"C": {}, "A": {"C": 1.0}, "W": {"A": alpha, "C": gamma_w},
                                     "Y": {"A": beta, "W": delta, "C": gamma_y}}, binary=["A"])


def fairness_truth(alpha: float, gamma_w: float, beta: float, delta: float, gamma_y: float) -> dict[str, float]:
    """Analytic values on :func:`fairness_scm` (x0 = 0, x1 = 1, conditioning on A = 0).
    ``E[C | A = 1] - E[C | A = 0] = 2 / sqrt(pi)`` (C and U_A standard normal, so
    ``E[C | C + U_A > 0] = phi(0) / (sqrt 2 * 1/2) = 1 / sqrt(pi)``)."""
    spurious = (gamma_y + delta * gamma_w) * 2 / np.sqrt(np.pi)
    return {"Ctf-DE": beta, "Ctf-IE": alpha * delta, "Ctf-SE": spurious,
            "PC-fairness, path A -> W -> Y": alpha * delta, "PC-fairness, path A -> Y": beta,
            "counterfactual fairness, predictor on A, W, C": abs(beta + delta * alpha),
            "counterfactual fairness, predictor on W, C (unaware)": abs(delta * alpha),
            "counterfactual fairness, predictor on C and U_W": 0.0,
            "total variation E[Y | A=1] - E[Y | A=0]": beta + delta * alpha + spurious}


def fairness_values(scm: Any, data: pd.DataFrame, weights: Mapping[str, float]) -> dict[str, float]:
    """Every fairness metric of :mod:`causaleval.metrics.fairness` on ``data``, named as in
    :func:`fairness_truth`."""
    from causaleval.metrics import fairness

    w = weights
    full = lambda v: w["beta"] * v["A"] + w["delta"] * v["W"] + w["gamma_y"] * v["C"]  # noqa: E731
    unaware = lambda v: w["delta"] * v["W"] + w["gamma_y"] * v["C"]  # noqa: E731
    fair = lambda v: w["gamma_y"] * v["C"] + (v["W"] - w["alpha"] * v["A"] - w["gamma_w"] * v["C"])  # noqa: E731
    given = {"A": 0}
    return {
        "Ctf-DE": fairness.ctf_de(scm, data, "A", "Y", ["W"]),
        "Ctf-IE": fairness.ctf_ie(scm, data, "A", "Y", ["W"]),
        "Ctf-SE": fairness.ctf_se(scm, data, "A", "Y"),
        "PC-fairness, path A -> W -> Y": fairness.pc_fairness(scm, data, "A", "Y", [("A", "W"), ("W", "Y")], given=given),
        "PC-fairness, path A -> Y": fairness.pc_fairness(scm, data, "A", "Y", [("A", "Y")], given=given),
        "counterfactual fairness, predictor on A, W, C": fairness.counterfactual_fairness(scm, data, full, "A"),
        "counterfactual fairness, predictor on W, C (unaware)": fairness.counterfactual_fairness(scm, data, unaware, "A"),
        "counterfactual fairness, predictor on C and U_W": fairness.counterfactual_fairness(scm, data, fair, "A"),
        "total variation E[Y | A=1] - E[Y | A=0]": float(data.loc[data["A"] == 1, "Y"].mean()
                                                         - data.loc[data["A"] == 0, "Y"].mean()),
    }


def fairness_example(*, n: int, replications: int, seed: int) -> pd.DataFrame:
    """Each fairness metric on ``replications`` samples of ``n`` units of :func:`fairness_scm`:
    the mean, its 95% interval (mean +- 1.96 sd / sqrt(replications)), the analytic value, and
    whether the interval holds it (a per-unit constant has sd 0: then equality to 1e-9)."""
    w = FAIRNESS_WEIGHTS
    scm = fairness_scm(**w)
    runs = pd.DataFrame([fairness_values(scm, scm.sample(n, seed + r), w) for r in range(replications)])
    truth = pd.Series(fairness_truth(**w))
    half = 1.959963984540054 * runs.std(ddof=1) / np.sqrt(replications)
    mean = runs.mean()
    return pd.DataFrame({"estimate": mean, "95% interval": [f"[{a:.3f}, {b:.3f}]" for a, b in
                                                            zip(mean - half, mean + half, strict=True)],
                         "analytic": truth,
                         "agrees": ((mean - truth).abs() <= half + 1e-9).to_numpy()}).rename_axis("metric")


def explanation_formula(*, n: int, seed: int) -> pd.Series:
    """Zhang and Bareinboim's Theorem 1 on one sample: ``TV = DE_{0,1}(y|0) - IE_{1,0}(y|0) -
    SE_{1,0}(y)``, both sides computed (they agree exactly on any sample of a linear SCM)."""
    from causaleval.metrics import fairness

    scm = fairness_scm(**FAIRNESS_WEIGHTS)
    data = scm.sample(n, seed)
    tv = float(data.loc[data["A"] == 1, "Y"].mean() - data.loc[data["A"] == 0, "Y"].mean())
    rhs = (fairness.ctf_de(scm, data, "A", "Y", ["W"], x0=0, x1=1, given=0)
           - fairness.ctf_ie(scm, data, "A", "Y", ["W"], x0=1, x1=0, given=0)
           - fairness.ctf_se(scm, data, "A", "Y", x0=1, x1=0))
    return pd.Series({"TV": tv, "DE - IE - SE": rhs, "|difference|": abs(tv - rhs)})


#: the reconstruction-error example: X1 -> X2 -> X3, standard normal noise
RECONSTRUCTION_EQUATIONS = {"X1": {}, "X2": {"X1": 1.0}, "X3": {"X2": -0.5}}


def reconstruction_inputs(*, n: int, n_points: int, shift: float, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``n`` rows of the SCM X1 -> X2 -> X3 and the counterfactuals ``do(X1 = X1 + shift)`` of
    its first ``n_points`` rows: (points, data)."""
    from causaleval.metrics import fairness

    scm = fairness.LinearSCM.from_equations(RECONSTRUCTION_EQUATIONS)
    data = scm.sample(n, seed)
    head = data.iloc[:n_points]
    return scm.counterfactual(head, {"X1": head["X1"].to_numpy() + shift}), data


def reconstruction_example(*, sizes: Sequence[int], n_points: int, shift: float, n_components: int,
                           seed: int) -> pd.DataFrame:
    """The reconstruction error of the counterfactual points of :func:`reconstruction_inputs`
    and of the same rows unchanged, under the linear autoencoder of the first ``n`` rows for
    each ``n`` in ``sizes``, beside the population value it converges to (the model's own
    principal components)."""
    from causaleval.metrics import fairness

    scm = fairness.LinearSCM.from_equations(RECONSTRUCTION_EQUATIONS)
    cf, data = reconstruction_inputs(n=max(sizes), n_points=n_points, shift=shift, seed=seed)
    points = {"counterfactual": cf, "factual": data.iloc[:n_points]}
    rows = [{"points": kind, "rows": n, "sample autoencoder": fairness.reconstruction_error(x, data.iloc[:n], n_components)}
            for kind, x in points.items() for n in sizes]
    out = pd.DataFrame(rows)
    analytic = {kind: fairness.population_reconstruction_error(scm, x, n_components) for kind, x in points.items()}
    return out.assign(**{"population (analytic)": out["points"].map(analytic)}).set_index(["points", "rows"])


# ============================================================ refutations (against DoWhy)
def refutation_data(*, n: int, effect: float, seed: int) -> pd.DataFrame:
    """``W ~ N(0, 1)``, ``T = 1[W + N(0, 1) > 0]``, ``Y = effect T + W + N(0, 1)``."""
    rng = np.random.default_rng(seed)
    w = rng.normal(size=n)
    t = (w + rng.normal(size=n) > 0).astype(int)
    return pd.DataFrame({"W": w, "T": t, "Y": effect * t + w + rng.normal(size=n)})


def refutation_table(data: pd.DataFrame, *, n_simulations: int, seed: int) -> pd.DataFrame:
    """The three refutation tests of the least-squares effect of T on Y (adjusting for W), by
    the kit and by DoWhy on the same draws, plus DoWhy's data-subset refuter with an integer
    seed."""
    from causaleval.metrics import refutation as rf

    rows = []
    for test in (rf.PLACEBO, rf.RANDOM_COMMON_CAUSE, rf.DATA_SUBSET):
        ours = rf.refute(data, "T", "Y", ["W"], test, n_simulations=n_simulations, seed=seed)
        theirs = rf.dowhy_refute(data, "T", "Y", ["W"], test, n_simulations=n_simulations, seed=seed)
        rows.append({"test": test, "estimate": ours.estimate, "new effect": ours.new_effect, "p-value": ours.p_value,
                     "DoWhy new effect": theirs.new_effect, "DoWhy p-value": theirs.p_value,
                     "agrees": bool(np.isclose(ours.new_effect, theirs.new_effect, rtol=1e-9, atol=1e-12)
                                    and np.isclose(ours.p_value, theirs.p_value, rtol=1e-6, atol=1e-9))})
    bug = rf.dowhy_refute(data, "T", "Y", ["W"], rf.DATA_SUBSET, n_simulations=n_simulations, seed=seed,
                          integer_seed=True)
    rows.append({"test": "data subset, DoWhy given an integer seed", "estimate": bug.estimate,
                 "DoWhy new effect": bug.new_effect, "DoWhy p-value": bug.p_value})
    return pd.DataFrame(rows).set_index("test")


# ============================================================ the report's claims and agreement tables
#: how a stated percentage relates to its count (the percentage audit's words): the paper's own numbers agree
_PERCENT_AGREES = {"follows": True, "rounded down": True, "rounded up": True, "does not follow": False}
_CHENG_AGREES = {"consistent with Table III": True, "contradicted by Table III": False}


def shimoni_cic() -> str:
    """Shimoni et al.'s stated CIC of a reliable 95% interval, as printed (``data/paper_values``)."""
    table = report.paper_values("ibm_benchmark_tracks_paper").set_index("item")
    return f"{float(table.at['cic_reliable_interval', 'value']):g}"


def _fraction(row: Mapping[str, Any]) -> str:
    return f"{row['count']:.0f}/{row['denominator']:.0f} = {row['computed %']:.1f}%"


def _percent_reason(row: Mapping[str, Any], denominators: Sequence[float]) -> str:
    """A computed reason why a stated percentage differs from 100 count / denominator, or ``""``:
    rounding (a truncated or rounded-up value within a point), or another denominator the text
    uses elsewhere from which the percentage does follow."""
    if row["verdict"] in ("rounded down", "rounded up"):
        how = "truncated" if row["verdict"] == "rounded down" else "rounded up"
        return f"{_fraction(row)}, {how} to {row['percent']:.0f} instead of rounded to the nearest integer"
    others = [d for d in denominators if d != row["denominator"] and abs(100 * row["count"] / d - row["percent"]) <= 0.5]
    if row["verdict"] == "does not follow" and others:
        d = others[0]
        return (f"{row['percent']:.0f}% follows from {row['count']:.0f}/{d:.0f} = {100 * row['count'] / d:.1f}% (a "
                f"denominator the text uses elsewhere), not from the printed {_fraction(row)}")
    return ""


def claims(audit: pd.DataFrame, claim_audit: pd.DataFrame, calibrated: float,
           simulated: Mapping[str, Any]) -> pd.DataFrame:
    """The papers' statements tested here, one row each (index ``claim``), in the kit's vocabulary.
    Every one checks a paper against its own numbers or definitions (``paper vs itself``; the row
    says whether they agree): Gentzel et al.'s (2019) stated percentages against their counts
    (:func:`percentage_audit`), Cheng et al.'s (2022) statements about their tools against their own
    Table III (:func:`table3_claim_audit`; several readings of one statement are rows of one claim),
    and Shimoni et al.'s (2018, Sec. 2.4.4) stated CIC of a reliable 95% interval against their eq. 6
    (:func:`calibrated_cic`, with the simulated normal interval ``simulated``: a row of
    :func:`interval_summary`). A percentage the text gives no count for is ``not tested``."""
    rows = []
    denominators = sorted(audit["denominator"].dropna().unique())
    for i, r in enumerate(audit.to_dict("records"), start=1):
        agrees = _PERCENT_AGREES.get(r["verdict"])
        reason = _percent_reason(r, denominators) if agrees is False else ""
        statement = f"Gentzel et al. Sec. {r['section']:g}: \"{r['text']}\""
        if agrees is None:
            rows.append(verdicts.claim(f"gentzel_percentage_{i:02d}", statement, verdicts.NOT_TESTED,
                                       "the text gives no count to recompute it from", source="Gentzel et al. 2019"))
            continue
        rows.append(verdicts.claim(f"gentzel_percentage_{i:02d}", statement, verdicts.PAPER_VS_ITSELF,
                                   f"{'agrees' if agrees else 'disagrees'}: {_fraction(r)} ({r['verdict']})"
                                   + (f"; {reason}" if reason else ""), source="Gentzel et al. 2019"))
    readings = len(claim_audit)
    for i, (reading, r) in enumerate(claim_audit.iterrows(), start=1):
        agrees = _CHENG_AGREES.get(r["verdict"])
        statement = f"Cheng et al. Sec. V, reading {i} of {readings} of its statements on tools: {reading}"
        if agrees is None:
            rows.append(verdicts.claim(f"cheng_tools_{i}", statement, verdicts.NOT_TESTED,
                                       f"{r['verdict']}: none of its metrics is a Table III row", source="Cheng et al. 2022"))
            continue
        rows.append(verdicts.claim(f"cheng_tools_{i}", statement, verdicts.PAPER_VS_ITSELF,
                                   f"{'agrees' if agrees else 'disagrees'}: the statement says the tools' metrics are "
                                   f"{r['expected']}; their ticks in Table III: {r['Table III ticks']}",
                                   source="Cheng et al. 2022"))
    stated = shimoni_cic()
    agrees = verdicts.agreement(calibrated, stated, item="CIC")["status"] == verdicts.MATCHES
    rows.append(verdicts.claim(
        "shimoni_cic", f"Shimoni et al. Sec. 2.4.4: the CIC (eq. 6) of a reliable 95% interval \"should approach "
        f"{stated}\"", verdicts.PAPER_VS_ITSELF,
        f"{'agrees' if agrees else 'disagrees'} with eq. 6: a calibrated 95% normal interval has CIC sqrt(2/pi) / "
        f"(2 x 1.96) = {calibrated:.3f}; simulated normal intervals cover {simulated['coverage']:.3f} (95% CI "
        f"{simulated['coverage 95% CI']}) with CIC {simulated['CIC']:.3f}", source="Shimoni et al. 2018"))
    return verdicts.claims_table(rows).set_index("claim")


def agreement(totals: pd.DataFrame, audit: pd.DataFrame, checks: pd.DataFrame, calibrated: float,
              simulated: Mapping[str, Any]) -> pd.DataFrame:
    """Every printed number compared with one computed from the paper's own parts, by the kit's rule
    (:func:`causaleval.verdicts.agreement`, at the printed precision): Gentzel et al.'s Table 1 totals
    (:func:`printed_totals`), the percentages of their text (:func:`percentage_audit`; those without a
    count are not compared; a differing one is *explained* only when a named alternative, truncation or
    another denominator of the text, gives its printed value, shown in the row), the counts their text
    and tables relate (:func:`count_checks`), and Shimoni et al.'s stated CIC against
    :func:`calibrated_cic` (it differs; the reason is a note)."""
    rows = [{"source": "Gentzel et al. Table 1", **verdicts.agreement(float(r["computed"]), f"{float(r['total']):g}",
                                                                      item=f"Total, {line}")}
            for line, r in totals.iterrows()]
    denominators = sorted(audit["denominator"].dropna().unique())
    for r in audit[audit["count"].notna()].to_dict("records"):
        printed = f"{float(r['percent']):g}"
        row = verdicts.agreement(float(r["computed %"]), printed, item=r["text"])
        if row["status"] == verdicts.DIFFERS:
            truncated = float(np.floor(r["computed %"])) if r["verdict"] == "rounded down" else float(np.ceil(r["computed %"]))
            alternatives = [("truncated" if r["verdict"] == "rounded down" else "rounded up", truncated)] + [
                (f"denominator {d:.0f}", 100 * r["count"] / d) for d in denominators if d != r["denominator"]]
            tried = len(alternatives)
            for name, value in alternatives:
                row = verdicts.explained(row, printed, name, value, tried)
                if row["status"] == verdicts.EXPLAINED:
                    break
        rows.append({"source": f"Gentzel et al. Sec. {r['section']:g}", **row})
    rows += [{"source": "Gentzel et al. counts", **verdicts.agreement(float(r["computed"]), f"{float(r['stated']):g}",
                                                                      item=check)} for check, r in checks.iterrows()]
    cic = verdicts.agreement(calibrated, shimoni_cic(), item="CIC of a reliable 95% interval")
    cic["reason"] = (f"a calibrated 95% normal interval gives E|e_hat - e| / (r - l) = sqrt(2/pi) / (2 x 1.96) = "
                     f"{calibrated:.3f}; the stated value is its coverage (simulated: {simulated['coverage']:.3f}, "
                     f"95% CI {simulated['coverage 95% CI']})")
    rows.append({"source": "Shimoni et al. Sec. 2.4.4", **cic})
    return verdicts.agreement_table(rows)
