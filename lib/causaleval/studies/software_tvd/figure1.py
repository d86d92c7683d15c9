"""Study 2's Figure 1: mean TVD of each learner on pseudo-observational samples of the empirical data
and on synthetic data from models the learners fitted to it, the consistent model's own gap, and the
orders of the learners."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from causaleval import metrics
from causaleval.effects import bn
from causaleval.datasets import consistent
from causaleval.graphs.extensions import consistent_extension
from causaleval.effects.extensions import interventional_tables
from causaleval.learn.learners import learn
from causaleval.parallel import run_trials
from causaleval.datasets.networks import forward_sample
from causaleval.studies.software_tvd.data import Domain, empirical_sample


def learned_tables(learner: str, sample: pd.DataFrame, domain_pairs: Sequence[tuple[str, str]],
                   cards: dict[str, int], *, alpha: float, ci_test: str, cpdag_rule: str,
                   smoothing: str, ess: float, seed: int) -> dict[tuple[str, str], np.ndarray]:
    """Learn a graph on ``sample``, fit it, and return its ``P_hat(O | do(T))`` tables."""
    graph = learn(learner, sample, ci_test=ci_test, alpha=alpha, seed=seed)
    return interventional_tables(graph, sample, domain_pairs, rule=cpdag_rule, smoothing=smoothing,
                                 ess=ess, cards=cards)


def synthetic_model(domain: Domain, learner: str, *, beta: float, seed: int, **fit: Any) -> bn.DiscreteBN:
    """The "realistic synthetic" ground truth: ``learner``'s graph on one empirical
    pseudo-observational sample, extended to a DAG and fitted to that sample."""
    sample = empirical_sample(domain, beta, seed)
    graph = learn(learner, sample, ci_test=fit["ci_test"], alpha=fit["alpha"], seed=seed)
    return bn.fit(consistent_extension(graph), sample, smoothing=fit["smoothing"], ess=fit["ess"], cards=domain.cards)


def _figure1_trial(domain: Domain, panel: str, model: Any, truth: dict, trial: int, *,
                   learners: Sequence[str], beta: float, seed: int, **fit: Any) -> list[dict]:
    """One trial of one panel: ``model`` is the synthetic ground truth as a pgmpy network
    (None for the empirical panel) and ``truth`` its (or the factorial data's) tables."""
    trial_seed = seed + 1000 * (trial + 1)
    if model is None:
        sample = empirical_sample(domain, beta, trial_seed)
    else:
        sample = forward_sample(model, domain.subjects, trial_seed)[domain.columns].astype("int64")
    rows = []
    for learner in learners:
        estimate = learned_tables(learner, sample, domain.pairs, domain.cards, seed=trial_seed, **fit)
        rows.append({"domain": domain.name, "panel": panel, "trial": trial, "learner": learner,
                     "mean_tvd": metrics.mean_tvd(truth, estimate)})
    return rows


def figure1_results(domains: Sequence[Domain], *, ground_truth_learners: Sequence[str],
                    learners: Sequence[str], n_trials: int, beta: float, seed: int,
                    n_jobs: int = -1, progress: bool = True, **fit: Any) -> pd.DataFrame:
    """One row per (domain, panel, trial, learner) with the trial's mean TVD."""
    jobs = []
    for domain in domains:
        panels = {"empirical": (None, domain.truth)}
        for gt in ground_truth_learners:
            net = synthetic_model(domain, gt, beta=beta, seed=seed, **fit)
            panels[f"synthetic-{gt}"] = (net.to_pgmpy(),
                                         net.tables(domain.pairs))
        for (panel, (model, truth)), trial in itertools.product(panels.items(), range(n_trials)):
            jobs.append({"domain": domain, "panel": panel, "model": model, "truth": truth,
                         "trial": trial, "learners": learners, "beta": beta, "seed": seed, **fit})
    rows = run_trials(_figure1_trial, jobs, n_jobs=n_jobs, desc="figure 1 trials", progress=progress)
    return pd.DataFrame([r for chunk in rows for r in chunk])


def consistency_check(domain: Domain, related: pd.DataFrame, *, beta: float, seed: int,
                      smoothing: str = "bdeu", ess: float = 1.0) -> pd.DataFrame:
    """How far the consistent model (supplement Sec. 2), fitted to one pseudo-observational
    sample, is from the truth read off the factorial data: TV per (T, O) pair, with and
    without covariate -> outcome edges. ``related`` is the domain's :func:`related_table`."""
    sample = empirical_sample(domain, beta, seed)
    rows = []
    for with_c in (False, True):
        dag = consistent.consistent_dag(domain.data, domain.covariate, related, covariate_to_outcomes=with_c)
        net = bn.fit(dag, sample, smoothing=smoothing, ess=ess, cards=domain.cards)
        for t, o in domain.pairs:
            rows.append({"domain": domain.name, "model": "C -> T, T -> O" + (", C -> O" if with_c else ""),
                         "treatment": t, "outcome": o,
                         "tv": float(metrics.tvd(domain.truth[t, o], net.interventional(t, o)).mean())})
    return pd.DataFrame(rows)


def paired_orders(results: pd.DataFrame, by: Sequence[str], value: str, unit: str) -> pd.DataFrame:
    """Per group: learners from best (lowest mean ``value``) to worst, and for each adjacent
    pair the two-sided Wilcoxon signed-rank p-value over the paired ``unit``s (trials or DAGs)."""
    rows = []
    for key, group in results.groupby(list(by), sort=True):
        wide = group.pivot(index=unit, columns="learner", values=value)
        order = wide.mean().sort_values().index.tolist()
        ps = [1.0 if np.allclose(wide[a] - wide[b], 0) else float(stats.wilcoxon(wide[a], wide[b]).pvalue)
              for a, b in zip(order, order[1:])]
        rows.append({**dict(zip(by, key if isinstance(key, tuple) else (key,))),
                     "order": " < ".join(order),
                     "adjacent pairs": "; ".join(f"{a} < {b} (p={p:.3g})" for a, b, p in zip(order, order[1:], ps)),
                     "p first pair": ps[0] if ps else np.nan})
    return pd.DataFrame(rows)


def order_agreement(orders: pd.DataFrame) -> pd.DataFrame:
    """For each domain and synthetic panel: its learner order beside the empirical one."""
    empirical = orders[orders["panel"] == "empirical"].set_index("domain")["order"]
    synthetic = orders[orders["panel"] != "empirical"]
    return pd.DataFrame([{"domain": r.domain, "panel": r.panel, "order": r.order,
                          "empirical order": empirical.get(r.domain),
                          "same order": r.order == empirical.get(r.domain)}
                         for r in synthetic.itertuples()])
