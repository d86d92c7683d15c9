"""Study 2: Gentzel, Garant, Jensen (2019), TVD on software-system data (paper 001).

The pipeline of ``notebooks/02_software_tvd.ipynb`` as functions:

* :func:`load_domain`: one factorial domain made ready (complete subjects, binary
  treatments, discretized outcomes and covariates, the biasing covariate) with its
  interventional truth read off the factorial data;
* :func:`figure1_results`: mean TVD of each learner per trial on pseudo-observational
  samples of the empirical data (panel ``empirical``) and on synthetic data sampled from
  a model a learner fitted to the empirical data (panels ``synthetic-pc``, ...;
  ``synthetic-mmhc`` is supplement Figure 7);
* :func:`figure2_results`: SHD, SID and the sum of pairwise TVs on random Dirichlet
  networks (Figure 2 and supplement Figures 4-6);
* orders of learners with paired tests, correlations, and the plots.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from causaleval import bn, consistent, metrics
from causaleval.datasets import FactorialData, load_collected, load_kdl
from causaleval.datasets.factorial import discretize
from causaleval.extensions import RULES, consistent_extension, interventional_tables
from causaleval.graphs import CausalGraph, to_cpdag
from causaleval.learners import get_learner, learn
from causaleval.parallel import run_trials
from causaleval.sampling import dirichlet_network, forward_sample, pseudo_observational, random_dag

STUDY = "02_software_tvd"
SOURCES = ("collected", "kdl")


@dataclass(frozen=True)
class Domain:
    """A domain ready for the experiments: integer-coded data restricted to the biasing
    covariate, the treatments and the outcomes, and the truth ``P(O | do(T))``."""

    name: str
    data: FactorialData
    covariate: str
    cards: dict[str, int]
    truth: dict[tuple[str, str], np.ndarray]

    @property
    def columns(self) -> list[str]:
        return [self.covariate, *self.data.treatments, *self.data.outcomes]

    @property
    def pairs(self) -> list[tuple[str, str]]:
        return list(self.truth)

    @property
    def subjects(self) -> int:
        return len(self.data.subjects)


def check_params(p: dict[str, Any]) -> None:
    """Raise a ValueError naming the first parameter of notebook 02 that is out of range."""
    if p["source"] not in SOURCES:
        raise ValueError(f"parameter source={p['source']!r}: expected one of {SOURCES}")
    for name in [*p["learners"], *p["ground_truth_learners"]]:
        get_learner(name)
    if p["cpdag_rule"] not in RULES:
        raise ValueError(f"parameter cpdag_rule={p['cpdag_rule']!r}: expected one of {RULES}")
    if p["beta"] < 0:
        raise ValueError(f"parameter beta={p['beta']}: Algorithm 1 needs beta >= 0")
    for key in ("n_trials", "bins", "n_dags", "n_nodes", "n_samples"):
        if int(p[key]) < 1:
            raise ValueError(f"parameter {key}={p[key]!r}: expected a positive integer")
    unknown = set(p["domains"]) - set(p["covariates"])
    if unknown:
        raise ValueError(f"parameter covariates: no biasing covariate for domains {sorted(unknown)}")


def load_domain(source: str, name: str, *, covariate: str, outcomes: Sequence[str] | None,
                bins: int, beta: float, data_dir: str | None = None) -> Domain:
    """Complete subjects, binary treatments (extremes), quantile bins; truth under Algorithm 1."""
    if source == "kdl":
        data = load_kdl(name, data_dir)
    elif source == "collected":
        data = load_collected(name, data_dir, binary=True)
    else:
        raise ValueError(f"unknown data source {source!r}; expected one of {SOURCES}")
    keep = list(outcomes or data.outcomes)
    missing = [c for c in [covariate, *keep] if c not in data.frame.columns]
    if missing:
        raise ValueError(f"{data.name}: columns {missing} not in the data; outcomes: "
                         f"{list(data.outcomes)}, covariates: {list(data.covariates)}")
    data = data.complete()
    data = discretize(data, bins, columns=[covariate, *keep])
    data = data.with_notes(frame=data.frame[[data.subject, data.trial, *data.treatments, covariate, *keep]],
                           outcomes=tuple(keep), covariates=(covariate,))
    cards = {c: int(data.frame[c].max()) + 1 for c in [covariate, *data.treatments, *keep]}
    truth = {(t, o): consistent.factorial_interventional(
        data, t, o, card=cards[o], biasing_covariate=covariate, beta=beta)
        for t in data.treatments for o in keep}
    return Domain(name, data, covariate, cards, truth)


def domain_summary(domains: Sequence[Domain]) -> pd.DataFrame:
    """Subjects, runs, treatments, outcomes and biasing covariate of each prepared domain."""
    return pd.DataFrame([{
        "domain": d.name, "subjects": d.subjects, "runs": len(d.data.frame),
        "treatments": ", ".join(d.data.treatments), "outcomes": ", ".join(d.data.outcomes),
        "biasing covariate": f"{d.covariate} ({d.cards[d.covariate]} levels)"} for d in domains]
    ).set_index("domain")


def related_table(domain: Domain, alpha: float) -> pd.DataFrame:
    """The Friedman test of every (treatment, outcome) pair of a domain."""
    return consistent.related_pairs(domain.data, alpha=alpha).assign(domain=domain.name)


def empirical_sample(domain: Domain, beta: float, seed: int) -> pd.DataFrame:
    """One pseudo-observational data set (Algorithm 1), integer codes of the model's columns."""
    sample = pseudo_observational(domain.data, domain.covariate, beta, seed)
    return sample[domain.columns].astype("int64")


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
                    n_jobs: int = -1, **fit: Any) -> pd.DataFrame:
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
    rows = run_trials(_figure1_trial, jobs, n_jobs=n_jobs, desc="figure 1 trials")
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


# ---------------------------------------------------------------- Figure 2 and 4-6
def _figure2_dag(index: int, *, n_nodes: int, expected_neighbours: float, cards: int,
                 concentration: float, n_samples: int, learners: Sequence[str], seed: int,
                 **fit: Any) -> list[dict]:
    dag_seed = seed + index
    truth_dag = random_dag(n_nodes, expected_neighbours, dag_seed)
    net = dirichlet_network(truth_dag, cards, concentration, dag_seed)
    sample = forward_sample(net.to_pgmpy(), n_samples, dag_seed)[list(truth_dag.nodes)].astype("int64")
    pairs = list(itertools.permutations(truth_dag.nodes, 2))
    truth = net.tables(pairs)
    rows = []
    for learner in learners:
        graph = learn(learner, sample, ci_test=fit["ci_test"], alpha=fit["alpha"], seed=dag_seed)
        dag = consistent_extension(graph)  # the DAG TVD uses under the "extension" rule
        estimate = interventional_tables(graph, sample, pairs, rule=fit["cpdag_rule"],
                                         smoothing=fit["smoothing"], ess=fit["ess"],
                                         cards={v: cards for v in truth_dag.nodes})
        rows.append({"dag": index, "learner": learner, "edges": int(truth_dag.directed_matrix().sum()),
                     "shd": structural_hamming(truth_dag, graph), "sid": float(metrics.sid(truth_dag, dag)),
                     "tvd": metrics.total_tvd(truth, estimate)})
    return rows


def structural_hamming(truth: CausalGraph, learned: CausalGraph) -> int:
    """SHD between the true CPDAG and the learned graph's (a learned DAG is first turned
    into its CPDAG): one error per node pair whose edge differs in presence, direction or
    kind (Tsamardinos et al. 2006). PC's conflict marks (bidirected edges) count as a kind."""
    learned = to_cpdag(learned) if learned.is_dag() else learned
    return int(metrics.shd_pairs(to_cpdag(truth), learned))


def figure2_results(*, n_dags: int, n_nodes: int, expected_neighbours: float, cards: int,
                    concentration: float, n_samples: int, learners: Sequence[str], seed: int,
                    n_jobs: int = -1, **fit: Any) -> pd.DataFrame:
    """One row per (random DAG, learner): SHD, SID and the sum of pairwise TVs."""
    jobs = [{"index": i, "n_nodes": n_nodes, "expected_neighbours": expected_neighbours,
             "cards": cards, "concentration": concentration, "n_samples": n_samples,
             "learners": learners, "seed": seed, **fit} for i in range(n_dags)]
    rows = run_trials(_figure2_dag, jobs, n_jobs=n_jobs, desc="random DAGs")
    return pd.DataFrame([r for chunk in rows for r in chunk])


def correlations(results: pd.DataFrame) -> pd.DataFrame:
    """Per learner: Pearson and Spearman correlation of SHD-SID, SHD-TVD and SID-TVD."""
    rows = []
    for learner, group in results.groupby("learner", sort=True):
        for a, b in (("shd", "sid"), ("shd", "tvd"), ("sid", "tvd")):
            rows.append({"learner": learner, "measures": f"{a.upper()}-{b.upper()}",
                         "pearson": float(stats.pearsonr(group[a], group[b]).statistic),
                         "spearman": float(stats.spearmanr(group[a], group[b]).statistic)})
    return pd.DataFrame(rows)


def measure_orders(results: pd.DataFrame) -> pd.DataFrame:
    """The learners ordered under each measure, with paired Wilcoxon tests over the DAGs."""
    long = results.melt(id_vars=["dag", "learner"], value_vars=["shd", "sid", "tvd"], var_name="measure")
    return paired_orders(long, ["measure"], "value", "dag")


# ------------------------------------------------------------------------ plots
def plot_figure1(results: pd.DataFrame, panels: Sequence[str]):
    import matplotlib.pyplot as plt
    import seaborn as sns

    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.6), sharey=False, squeeze=False)
    for ax, panel in zip(axes[0], panels):
        sub = results[results["panel"] == panel]
        sns.boxplot(data=sub, x="domain", y="mean_tvd", hue="learner", ax=ax, fliersize=2)
        ax.set_title(panel)
        ax.set_xlabel("")
        ax.set_ylabel("mean TVD")
    fig.tight_layout()
    return fig


def plot_measures(results: pd.DataFrame, learner: str):
    import matplotlib.pyplot as plt

    sub = results[results["learner"] == learner]
    fig, axes = plt.subplots(1, 3, figsize=(11, 3.4))
    for ax, (a, b) in zip(axes, (("shd", "sid"), ("shd", "tvd"), ("sid", "tvd"))):
        ax.scatter(sub[a], sub[b], s=14)
        r = stats.pearsonr(sub[a], sub[b]).statistic
        ax.set_xlabel(a.upper())
        ax.set_ylabel(b.upper())
        ax.set_title(f"{learner}: r = {r:.2f}")
    fig.tight_layout()
    return fig


def plot_orders(results: pd.DataFrame):
    import matplotlib.pyplot as plt
    import seaborn as sns

    fig, axes = plt.subplots(1, 3, figsize=(11, 3.4))
    for ax, measure in zip(axes, ("shd", "sid", "tvd")):
        sns.boxplot(data=results, x="learner", y=measure, ax=ax, fliersize=2)
        ax.set_title(measure.upper())
        ax.set_xlabel("")
    fig.tight_layout()
    return fig


# ----------------------------------------------------------------------- claims
STRONG, WEAK, SIGNIFICANT = 0.7, 0.3, 0.05


def claims_table(claims: pd.DataFrame, fig1: pd.DataFrame, fig2: pd.DataFrame,
                 orders: pd.DataFrame, corr: pd.DataFrame) -> pd.DataFrame:
    """Each claim of the paper with the computed evidence and whether it holds here."""
    pearson = corr.set_index(["learner", "measures"])["pearson"]
    by_measure = measure_orders(fig2).set_index("measure")
    empirical = orders[orders["panel"] == "empirical"].set_index("domain")
    agreement = order_agreement(orders)

    def r(learner: str, measures: str) -> float:
        return float(pearson.get((learner, measures), np.nan))

    def first(measure: str) -> str:
        return by_measure.loc[measure, "order"].split(" < ")[0]

    checks = {
        "shd_sid_strong": lambda: (all(r(l, "SHD-SID") >= STRONG for l in fig2["learner"].unique()),
                                   ", ".join(f"{l}: {r(l, 'SHD-SID'):.2f}" for l in sorted(fig2["learner"].unique()))),
        "shd_tvd_weak_ges": lambda: (abs(r("ges", "SHD-TVD")) < WEAK, f"ges: r = {r('ges', 'SHD-TVD'):.2f}"),
        "shd_tvd_strong_pc": lambda: (r("pc", "SHD-TVD") >= STRONG, f"pc: r = {r('pc', 'SHD-TVD'):.2f}"),
        "ges_best_tvd_synthetic": lambda: (first("tvd") == "ges" and by_measure.loc["tvd", "p first pair"] < SIGNIFICANT,
                                           by_measure.loc["tvd", "adjacent pairs"]),
        "ges_not_best_structural": lambda: (first("shd") != "ges" and first("sid") != "ges",
                                            f"SHD: {by_measure.loc['shd', 'order']}; SID: {by_measure.loc['sid', 'order']}"),
        "orders_differ_empirical_synthetic": lambda: (bool((~agreement["same order"]).any()),
                                                      f"{int((~agreement['same order']).sum())} of {len(agreement)} synthetic panels order the learners differently"),
        "ges_best_empirical": lambda: (all(o.split(" < ")[0] == "ges" for o in empirical["order"]),
                                       "; ".join(f"{d}: {o}" for d, o in empirical["order"].items())),
    }
    rows = []
    for claim in claims.itertuples():
        if claim.claim not in checks:
            raise ValueError(f"gentzel_claims.csv: no check for claim {claim.claim!r}")
        holds, evidence = checks[claim.claim]()
        rows.append({"claim": claim.claim, "paper": claim.source, "statement": claim.statement,
                     "holds here": bool(holds), "evidence": evidence})
    return pd.DataFrame(rows).set_index("claim")
