"""Study 4's worked examples of the surveyed metrics: structure on Asia, ranking, time series,
counterfactual explanations, ATE distributions, and the master table's inputs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from causaleval import metrics
from causaleval.report import MISSING
from causaleval.effects import bn
from causaleval.learn import learners
from causaleval.graphs.extensions import consistent_extension, mec_members
from causaleval.graphs import CausalGraph, to_cpdag
from causaleval.metrics import ate_distribution, ranking
from causaleval.effects.sampling import position_based_clicks, random_dag
from causaleval.datasets.networks import forward_sample
from causaleval.effects.ate import lstsq_effect
from causaleval.studies.survey_metric_tables.acic import Instance, acic_truth
from causaleval.studies.survey_metric_tables.scm import FAIRNESS_WEIGHTS, fairness_scm

GRADE_SHARES = (0.4, 0.25, 0.15, 0.12, 0.08)  # relevance grades 0-4 of the ranking example's items
AR_COEFFICIENT = 0.3  # autoregression of the time-series example's two series
BAR_STEP = 0.22  # horizontal offset between the estimators' bars of the ACIC figure



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
    squares of O on T and T's parents (:func:`causaleval.effects.ate.lstsq_effect`; 0 when O is a
    parent of T)."""
    parents = [dag.nodes[i] for i in np.flatnonzero(dag.directed_matrix()[:, dag.index(treatment)])]
    if outcome in parents:
        return 0.0
    columns = list(data.columns)
    return lstsq_effect(data.to_numpy(), columns.index(treatment), columns.index(outcome),
                        [columns.index(p) for p in parents])


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
    ``digits`` significant digits, booleans as yes/no, missing values as :data:`causaleval.report.MISSING`."""
    def cell(v: Any) -> Any:
        if isinstance(v, (bool, np.bool_)):
            return "yes" if v else "no"
        if isinstance(v, (float, np.floating)):
            return MISSING if np.isnan(v) else f"{v:.{digits}g}"
        return MISSING if v is None else v
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
