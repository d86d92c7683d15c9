"""Study 4's effect-estimation examples on the ACIC 2016 simulations (causallib's), the IBM file round
trip, and the CIC and coverage of intervals (Shimoni et al. 2018)."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from causaleval.metrics import effect, ibm
from causaleval.parallel import run_trials

ESTIMATORS = ("ipw", "standardization", "aipw")


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
                     "coverage (unweighted)": float(((g["li"] <= truth["effect"])
                                                     & (truth["effect"] <= g["ri"])).mean()),
                     "error > half-width": float((error.abs() > width / 2).mean()),
                     "mean bias": float(error.mean()),
                     "squared bias / MSE": float(error.mean() ** 2 / (error**2).mean()),
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
