"""Study 2: Gentzel, Garant, Jensen (NeurIPS 2019, arXiv:1910.05387), TVD on software-system data.

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

import hashlib
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from causaleval import metrics, params
from causaleval.effects import bn
from causaleval.datasets import consistent
from causaleval.datasets import (
    FactorialData,
    collected_domains,
    csv_domains,
    kdl_domains,
    load_collected,
    load_factorial_csv,
    load_kdl,
)
from causaleval.datasets.networks import check_network, draw_sample, load_network, network_graph
from causaleval.datasets.user import read_observations, resolve
from causaleval.datasets.factorial import discretize
from causaleval.graphs.extensions import consistent_extension
from causaleval.effects.extensions import interventional_tables
from causaleval.graphs import CausalGraph, GraphClass, to_cpdag
from causaleval.metrics.sid_bounds import as_pdag
from causaleval.learn.learners import learn
from causaleval.parallel import run_trials
from causaleval.effects.sampling import dirichlet_network, pseudo_observational, random_dag
from causaleval.datasets.networks import forward_sample

STUDY = "02_software_tvd"
SOURCES = ("collected", "kdl", "csv")


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
    """Raise a ValueError naming the first parameter of notebook 02 that does not fit: its
    declared type, range or choices (``notebooks/02_software_tvd.params.yaml``), then what
    a schema cannot state (the domains exist in the source and have a biasing covariate; a
    user's network for Figure 2 is readable, and its observations fit it and hold ``n_dags``
    disjoint samples of ``n_samples`` rows)."""
    params.check(STUDY, p)
    check_domains(p)
    if p.get("network") is not None:
        check_network(p["network"], p.get("data_file"), {"n_samples": (p["n_samples"], p["n_dags"])})


def check_domains(p: dict[str, Any]) -> None:
    """Every name in ``domains`` must be a domain of ``source`` and have a biasing covariate;
    ``source="csv"`` needs ``data_dir``, the folder of ``<domain>.csv`` files."""
    data_dir = resolve(p["data_dir"]) if p.get("data_dir") else None
    if p["source"] == "csv" and data_dir is None:
        raise ValueError("parameter source = 'csv' needs data_dir, the folder of <domain>.csv files "
                         "(data/examples/README.md); data_dir is None")
    if p["source"] == "kdl":
        known = kdl_domains()
    elif p["source"] == "csv":
        known = csv_domains(data_dir)
    else:
        known = collected_domains(data_dir)
    unknown = [d for d in p["domains"] if d not in known]
    if unknown:
        raise ValueError(f"parameter domains: unknown domain(s) {unknown} for source={p['source']!r}; "
                         f"known: {known}")
    missing = [d for d in p["domains"] if d not in p["covariates"]]
    if missing:
        raise ValueError(f"parameter covariates: no biasing covariate for domains {missing}")
    # a misspelt key would be ignored and its domain silently keep all its outcomes
    anywhere = {*kdl_domains(), *collected_domains(None), *known}
    for key in ("outcomes", "covariates"):
        stray = [d for d in p.get(key, {}) if d not in anywhere]
        if stray:
            raise ValueError(f"parameter {key}: {stray} name no domain of any source; known: {sorted(anywhere)}")
    empty = [d for d, names in p.get("outcomes", {}).items() if not names]
    if empty:
        raise ValueError(f"parameter outcomes: no outcome listed for {empty}; list at least one, or leave "
                         "the domain out of outcomes to keep all of its outcomes")


def data_fingerprint(domains: Sequence[Domain]) -> str:
    """SHA-256 over each prepared domain's name and rows (pandas' row hashes, in order), for
    cache keys: a domain whose files changed under the same parameters (a recollection, a
    replaced KDL file) is not served the trial tables of the old data."""
    digest = hashlib.sha256()
    for domain in domains:
        rows = pd.util.hash_pandas_object(domain.data.frame[domain.columns], index=False).to_numpy()
        digest.update(domain.name.encode() + b"\0" + rows.tobytes())
    return digest.hexdigest()


def load_domain(source: str, name: str, *, covariate: str, outcomes: Sequence[str] | None,
                bins: int, beta: float, data_dir: str | None = None,
                treatments: Sequence[str] | None = None) -> Domain:
    """Complete subjects, binary treatments (extremes), quantile bins; truth under Algorithm 1.
    ``data_dir`` (relative: from the repository root) holds the source's files; ``source="csv"``
    reads ``<data_dir>/<name>.csv`` (:func:`causaleval.datasets.load_factorial_csv`). ``treatments``
    keeps some of a KDL file's treatments (the others held at their control level)."""
    data_dir = resolve(data_dir) if data_dir else None
    if treatments is not None and source != "kdl":
        raise ValueError(f"treatments={list(treatments)}: only the KDL files' treatments can be chosen")
    if source == "kdl":
        data = load_kdl(name, data_dir, treatments=treatments)
    elif source == "collected":
        data = load_collected(name, data_dir, binary=True)
    elif source == "csv":
        data = load_factorial_csv(name, data_dir)
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


# ---------------------------------------------------------------- Figure 2 and 4-6
#: how the random networks get their tables ("dirichlet": the paper's; "logistic": the kit's alternative)
SCHEMES = ("dirichlet", "logistic")
MEASURES = ("shd", "sid", "tvd")
LABELS = {"shd": "SHD (CPDAG, one error per pair)", "sid": "SID (DAG fitted for TVD)",
          "sid_min": "SID lower bound (class)", "sid_max": "SID upper bound (class)",
          "tvd": "TVD: sum over ordered pairs of mean TV",
          "excess_tvd": "TVD minus the true DAG's TVD"}


def logistic_network(dag: CausalGraph, seed: int) -> bn.DiscreteBN:
    """Binary variables with ``P(X = 1 | pa) = 1 / (1 + exp(-(w_0 + sum_k w_k (pa_k - 1/2))))``,
    ``w_0 ~ U(-1, 1)``, ``w_k = s_k u_k`` with random signs ``s_k`` and ``u_k ~ U(0.5, 2)``: additive effects of
    a fixed size, no interactions, no near-deterministic tables. Gentzel et al.'s supplement
    (Sec. 5, Fig. 4) generates parameters "using each of the synthetic data techniques" but
    names only the Dirichlet one; this scheme is the kit's choice of a second one."""
    import networkx as nx

    rng = np.random.default_rng(seed)
    parents = bn.parents_of(dag)
    cpds = {}
    for v in dag.nodes:
        k = len(parents[v])
        w = rng.choice([-1.0, 1.0], k) * rng.uniform(0.5, 2.0, k)
        configs = np.array(list(itertools.product((0, 1), repeat=k)), dtype=float).reshape(2**k, k)
        p1 = 1 / (1 + np.exp(-(rng.uniform(-1, 1) + (configs - 0.5) @ w)))
        cpds[v] = np.stack([1 - p1, p1]).reshape((2, *([2] * k)))
    order = list(nx.topological_sort(nx.DiGraph(dag.directed_edges())))
    order += [v for v in dag.nodes if v not in order]
    return bn.DiscreteBN(tuple(order), parents, {v: 2 for v in dag.nodes}, cpds)


def random_network(scheme: str, dag: CausalGraph, cards: int, concentration: float, seed: int) -> bn.DiscreteBN:
    """The random network's tables under ``scheme`` (see :data:`SCHEMES`)."""
    if scheme == "dirichlet":
        return dirichlet_network(dag, cards, concentration, seed)
    if scheme == "logistic":
        if cards != 2:
            raise ValueError(f"cpd_scheme='logistic' makes binary variables; node_cards={cards}")
        return logistic_network(dag, seed)
    raise ValueError(f"cpd_scheme={scheme!r}: expected one of {SCHEMES}")


def user_network(network: str, data_file: str | None, *, smoothing: str, ess: float) -> tuple[CausalGraph, bn.DiscreteBN]:
    """A user's ground truth for Figure 2 (parameters ``network``, ``data_file``): its DAG, and
    the tables TVD is measured against: the network's own (a shipped name or a BIF file) or,
    with observations, the true DAG fitted to all of them (``smoothing``, ``ess``)."""
    dag = network_graph(network)
    if data_file is None:
        return dag, bn.from_pgmpy(load_network(network))
    return dag, bn.fit(dag, read_observations(data_file, dag), smoothing=smoothing, ess=ess)


def _figure2_dag(index: int, *, n_nodes: int, expected_neighbours: float, cards: int,
                 concentration: float, cpd_scheme: str, n_samples: int, learners: Sequence[str], seed: int,
                 network: str | None = None, data_file: str | None = None, n_dags: int = 1,
                 **fit: Any) -> list[dict]:
    dag_seed = seed + index
    if network is None:
        truth_dag = random_dag(n_nodes, expected_neighbours, dag_seed)
        net = random_network(cpd_scheme, truth_dag, cards, concentration, dag_seed)
        sample = forward_sample(net.to_pgmpy(), n_samples, dag_seed)[list(truth_dag.nodes)]
    else:
        truth_dag, net = user_network(network, data_file, smoothing=fit["smoothing"], ess=fit["ess"])
        sample = draw_sample(network, (), n_samples, n_dags, index, seed, data_file)
    sample = sample.astype("int64")
    pairs = list(itertools.permutations(truth_dag.nodes, 2))
    truth = net.tables(pairs)
    node_cards = dict(net.cards)
    true_fit = bn.fit(truth_dag, sample, smoothing=fit["smoothing"], ess=fit["ess"], cards=node_cards)
    baseline = metrics.total_tvd(truth, true_fit.tables(pairs))  # estimation error alone
    rows = []
    for learner in learners:
        graph = learn(learner, sample, ci_test=fit["ci_test"], alpha=fit["alpha"], seed=dag_seed)
        dag = consistent_extension(graph)  # the DAG TVD uses under the "extension" rule
        estimate = interventional_tables(graph, sample, pairs, rule=fit["cpdag_rule"],
                                         smoothing=fit["smoothing"], ess=fit["ess"], cards=node_cards)
        sid = float(metrics.sid(truth_dag, dag))
        rows.append({"dag": index, "learner": learner, "edges": int(truth_dag.directed_matrix().sum()),
                     "shd": structural_hamming(truth_dag, graph), "sid": sid,
                     **class_sid_bounds(truth_dag, graph, sid),
                     "tvd": metrics.total_tvd(truth, estimate), "tvd_true_dag": baseline})
    return rows


def class_sid_bounds(truth: CausalGraph, learned: CausalGraph, fallback_sid: float) -> dict[str, float | int]:
    """:func:`causaleval.metrics.sid_bounds` of the learned graph, or, for a PC output with a
    directed cycle (which has no equivalence class), the SID of the fallback DAG the study
    fits for TVD as both bounds with ``members`` 0, the same convention ``sid_bounds`` uses
    for a PDAG without a consistent extension; :func:`measure_summary` counts these graphs."""
    if as_pdag(learned).graph_class in (GraphClass.DAG, GraphClass.PDAG):
        return metrics.sid_bounds(truth, learned)
    return {"sid_min": fallback_sid, "sid_max": fallback_sid, "members": 0}


def structural_hamming(truth: CausalGraph, learned: CausalGraph) -> int:
    """SHD between the true CPDAG and the learned graph's (a learned DAG is first turned
    into its CPDAG): one error per node pair whose edge differs in presence, direction or
    kind (Tsamardinos et al. 2006). PC's conflict marks (bidirected edges) count as a kind."""
    learned = to_cpdag(learned) if learned.is_dag() else learned
    return int(metrics.shd_pairs(to_cpdag(truth), learned))


def figure2_results(*, n_dags: int, n_nodes: int, expected_neighbours: float, cards: int,
                    concentration: float, n_samples: int, learners: Sequence[str], seed: int,
                    cpd_scheme: str = "dirichlet", network: str | None = None, data_file: str | None = None,
                    n_jobs: int = -1, progress: bool = True, **fit: Any) -> pd.DataFrame:
    """One row per (random DAG, learner): SHD, SID (of the DAG fitted for TVD, and its
    bounds over the learned class), the sum of pairwise TVs, and the same sum for the true
    DAG fitted to the same sample (``tvd_true_dag``: what estimation alone costs).

    With ``network`` (a shipped name, a BIF file or an edge list with ``data_file``;
    :mod:`causaleval.datasets.networks`) every row is that one truth instead (the random
    networks' parameters are unused): ``dag`` i is its i-th sample, drawn with seed + i or the
    i-th of ``n_dags`` disjoint samples of the observations (truth tables: :func:`user_network`)."""
    jobs = [{"index": i, "n_nodes": n_nodes, "expected_neighbours": expected_neighbours,
             "cards": cards, "concentration": concentration, "cpd_scheme": cpd_scheme,
             "n_samples": n_samples, "learners": learners, "seed": seed, "network": network,
             "data_file": data_file, "n_dags": n_dags, **fit} for i in range(n_dags)]
    rows = run_trials(_figure2_dag, jobs, n_jobs=n_jobs, desc="random DAGs", progress=progress)
    frame = pd.DataFrame([r for chunk in rows for r in chunk])
    return frame.assign(excess_tvd=frame["tvd"] - frame["tvd_true_dag"])


def fisher_interval(r: float, n: int, level: float = 0.95) -> tuple[float, float]:
    """Interval for a Pearson correlation by Fisher's z: ``tanh(atanh(r) -+ z_q / sqrt(n - 3))``,
    ``z_q`` the ``(1 + level) / 2`` normal quantile (Fisher 1921)."""
    if n < 4:
        return (np.nan, np.nan)
    half = stats.norm.ppf((1 + level) / 2) / np.sqrt(n - 3)
    z = np.arctanh(np.clip(r, -1 + 1e-12, 1 - 1e-12))
    return float(np.tanh(z - half)), float(np.tanh(z + half))


STRONG, WEAK, SIGNIFICANT = 0.7, 0.3, 0.05


def strength(low: float, high: float) -> str:
    """A correlation's class, decided only when its whole interval is on one side:
    ``strong`` (low >= 0.7), ``weak`` (-0.3 < low, high < 0.3), ``neither`` (within
    [0.3, 0.7) or (-0.7, -0.3]), otherwise ``undecided``."""
    if low >= STRONG:
        return "strong"
    if -WEAK < low and high < WEAK:
        return "weak"
    if (WEAK <= low and high < STRONG) or (-STRONG < low and high <= -WEAK):
        return "neither"
    return "undecided"


def correlations(results: pd.DataFrame) -> pd.DataFrame:
    """Per learner: Pearson r with its 95% Fisher interval and class, and Spearman rho, of
    SHD-SID, SHD-TVD, SID-TVD and SHD against the TVD in excess of the true DAG's."""
    rows = []
    for learner, group in results.groupby("learner", sort=True):
        for a, b in (("shd", "sid"), ("shd", "tvd"), ("sid", "tvd"), ("shd", "excess_tvd")):
            r = float(stats.pearsonr(group[a], group[b]).statistic)
            low, high = fisher_interval(r, len(group))
            rows.append({"learner": learner, "measures": f"{a.upper()}-{b.upper().replace('_', ' ')}",
                         "n": len(group), "pearson": r, "95% low": low, "95% high": high,
                         "class": strength(low, high),
                         "spearman": float(stats.spearmanr(group[a], group[b]).statistic)})
    return pd.DataFrame(rows)


def measure_summary(results: pd.DataFrame) -> pd.DataFrame:
    """Per learner, over the random networks: mean SHD, SID of the fitted DAG and its class
    bounds, mean TVD beside the true DAG's TVD on the same samples (the part of TVD that
    estimation alone costs) and, among the networks where the learner found the true CPDAG
    (SHD 0), how many still get SID > 0 from the one DAG fitted and from the class's best."""
    rows = []
    for learner, g in results.groupby("learner", sort=True):
        exact = g[g["shd"] == 0]
        rows.append({"learner": learner, "networks": len(g), "SHD": g["shd"].mean(), "SID": g["sid"].mean(),
                     "SID min": g["sid_min"].mean(), "SID max": g["sid_max"].mean(),
                     "TVD": g["tvd"].mean(), "true DAG TVD": g["tvd_true_dag"].mean(),
                     "true DAG TVD range": f"{g['tvd_true_dag'].min():.2f}-{g['tvd_true_dag'].max():.2f}",
                     "SHD 0": len(exact), "SHD 0, TVD range": _span(exact["tvd"]),
                     "SHD 0, true DAG TVD range": _span(exact["tvd_true_dag"]),
                     "SHD 0, SID > 0": int((exact["sid"] > 0).sum()),
                     "SHD 0, SID min > 0": int((exact["sid_min"] > 0).sum()),
                     "classes past the limit": int((g["members"] < 0).sum()),
                     "no class (fallback DAG's SID)": int((g["members"] == 0).sum())})
    return pd.DataFrame(rows).set_index("learner")


def _span(values: pd.Series) -> str:
    return f"{values.min():.2f}-{values.max():.2f}" if len(values) else ""


def baseline_sentence(summary: pd.DataFrame) -> str:
    """What the true DAG's TVD says about each learner's TVD at SHD 0 (from :func:`measure_summary`)."""
    parts = []
    for learner, r in summary[summary["SHD 0"] > 0].iterrows():
        parts.append(f"{learner} found the true CPDAG on {r['SHD 0']} of {r['networks']} networks; there its "
                     f"TVD spans {r['SHD 0, TVD range']} against {r['SHD 0, true DAG TVD range']} for the true "
                     f"DAG fitted to the same samples")
    if not parts:
        return "No learner found the true CPDAG on any network."
    return ("; ".join(parts) + ". Estimation alone costs the true DAG's TVD; what a learner with the right "
            "CPDAG adds to it comes from fitting another member of the true class (one extension under "
            "`cpdag_rule='extension'`, the class average under `'mec_average'`): members of one class can "
            "disagree on P(X_j | do(X_i)).")


def pairwise_calls(results: pd.DataFrame, by: Sequence[str], value: str, unit: str) -> pd.DataFrame:
    """Per group and pair of learners (a, b in name order): the mean paired difference
    ``value(a) - value(b)`` over the ``unit``s, the two-sided Wilcoxon signed-rank p-value,
    and the call ``"a < b"`` or ``"b < a"`` (lower is better) when p < 0.05, else ``"tie"``."""
    rows = []
    for key, group in results.groupby(list(by), sort=True):
        wide = group.pivot(index=unit, columns="learner", values=value)
        for a, b in itertools.combinations(sorted(wide.columns), 2):
            diff = wide[a] - wide[b]
            p = 1.0 if np.allclose(diff, 0) else float(stats.wilcoxon(wide[a], wide[b]).pvalue)
            call = "tie" if p >= SIGNIFICANT else (f"{a} < {b}" if diff.mean() < 0 else f"{b} < {a}")
            rows.append({**dict(zip(by, key if isinstance(key, tuple) else (key,))), "pair": f"{a}, {b}",
                         "mean difference": float(diff.mean()), "p": p, "call": call})
    return pd.DataFrame(rows)


def measure_long(results: pd.DataFrame, measures: Sequence[str] = MEASURES) -> pd.DataFrame:
    """The Figure 2 table with one row per (DAG, learner, measure)."""
    return results.melt(id_vars=["dag", "learner"], value_vars=list(measures), var_name="measure")


def measure_orders(results: pd.DataFrame, measures: Sequence[str] = (*MEASURES, "sid_min", "sid_max")) -> pd.DataFrame:
    """The learners ordered under each measure, with paired Wilcoxon tests over the DAGs."""
    return paired_orders(measure_long(results, measures), ["measure"], "value", "dag")


def headline(calls: pd.DataFrame) -> tuple[str, str]:
    """Supp. Sec. 5: "TVD does imply a very different ordering of the relative performance
    of different learning algorithms than that implied by SHD and SID". Holds when some pair
    of learners gets a TVD call (``a < b``, ``b < a`` or tie) that differs from both its SHD
    and its SID call. ``calls`` is :func:`pairwise_calls` by ``measure``."""
    wide = calls.pivot(index="pair", columns="measure", values="call")
    differ = wide[(wide["tvd"] != wide["shd"]) & (wide["tvd"] != wide["sid"])]
    verdict = "holds" if len(differ) else "does not hold"
    evidence = "; ".join(f"{pair}: SHD {r.shd}, SID {r.sid}, TVD {r.tvd}" for pair, r in wide.iterrows())
    return verdict, evidence


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
        calls = pairwise_calls(measure_long(group), ["measure"], "value", "dag")
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


# ------------------------------------------------------------------------ plots
def plot_figure1(results: pd.DataFrame, panels: Sequence[str]):
    """Boxes of each trial's mean TV (over the (T, O) pairs and both values of T), one
    panel per data kind, on one shared scale."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.6), sharey=True, squeeze=False)
    for ax, panel in zip(axes[0], panels):
        sub = results[results["panel"] == panel]
        sns.boxplot(data=sub, x="domain", y="mean_tvd", hue="learner", ax=ax, fliersize=2,
                    hue_order=sorted(results["learner"].unique()))
        ax.set_title(panel)
        ax.set_xlabel("")
        ax.set_ylabel("mean TV over (T, O) pairs and t")
        handles, labels = ax.get_legend_handles_labels()
        ax.get_legend().remove()
    fig.legend(handles, labels, title="learner", loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.tight_layout()
    return fig


def plot_measures(results: pd.DataFrame, learner: str):
    """SHD-SID, SHD-TVD and SID-TVD of one learner over the random networks. On the SHD-SID
    panel, vertical bars span the SID bounds over the learned class; on the TVD panels,
    grey crosses mark the true DAG fitted to the same sample (SHD = SID = 0)."""
    import matplotlib.pyplot as plt

    sub = results[results["learner"] == learner]
    fig, axes = plt.subplots(1, 3, figsize=(11, 3.4))
    for ax, (a, b) in zip(axes, (("shd", "sid"), ("shd", "tvd"), ("sid", "tvd"))):
        ax.scatter(sub[a], sub[b], s=14, label=learner)
        if b == "sid":
            ax.vlines(sub[a], sub["sid_min"], sub["sid_max"], color="tab:blue", alpha=0.35, lw=1,
                      label="SID bounds over the class")
            ax.legend(fontsize=7, loc="best")
        if b == "tvd":
            ax.scatter(np.zeros(len(sub)), sub["tvd_true_dag"], s=14, marker="x", color="grey",
                       label="true DAG, same sample")
            ax.legend(fontsize=7, loc="best")
        r = stats.pearsonr(sub[a], sub[b]).statistic
        low, high = fisher_interval(r, len(sub))
        ax.set_xlabel(LABELS[a])
        ax.set_ylabel(LABELS[b])
        ax.set_title(f"{learner}: r = {r:.2f} [{low:.2f}, {high:.2f}]", fontsize=9)
    fig.tight_layout()
    return fig


def plot_orders(results: pd.DataFrame):
    """Supp. Figure 4: each measure per learner over the random networks; the TVD panel
    adds the true DAG fitted to the same samples."""
    import matplotlib.pyplot as plt
    import seaborn as sns

    fig, axes = plt.subplots(1, 3, figsize=(11, 3.4))
    baseline = results.drop_duplicates("dag").assign(learner="true DAG", tvd=lambda f: f["tvd_true_dag"])
    for ax, measure in zip(axes, MEASURES):
        data = pd.concat([results, baseline]) if measure == "tvd" else results
        sns.boxplot(data=data, x="learner", y=measure, ax=ax, fliersize=2)
        ax.set_ylabel(LABELS[measure])
        ax.set_xlabel("")
    fig.tight_layout()
    return fig


# ----------------------------------------------------------------------- claims
def _calls_with(calls: pd.DataFrame, learner: str) -> pd.Series:
    return calls.loc[calls["pair"].str.split(", ").map(lambda p: learner in p), "call"]


def _best(calls: pd.DataFrame, learner: str) -> bool:
    """``learner`` is significantly better than every other learner in ``calls``."""
    own = _calls_with(calls, learner)
    return bool(len(own)) and bool(own.str.startswith(f"{learner} <").all())


def _worst(calls: pd.DataFrame, learner: str) -> bool:
    own = _calls_with(calls, learner)
    return bool(len(own)) and bool(own.str.endswith(f"< {learner}").all())


def _correlation_claim(corr: pd.DataFrame, learners: Sequence[str], measures: str, want: str) -> tuple[str, str]:
    """``want`` = "strong" or "weak" for every learner: holds when every interval says so,
    does not hold when one interval excludes it, else undecided."""
    sub = corr[(corr["measures"] == measures) & corr["learner"].isin(learners)]
    excluded = {"strong": lambda r: r["95% high"] < STRONG,
                "weak": lambda r: r["95% low"] >= WEAK or r["95% high"] <= -WEAK}[want]
    if len(sub) and (sub["class"] == want).all():
        verdict = "holds"
    elif any(excluded(r) for _, r in sub.iterrows()):
        verdict = "does not hold"
    else:
        verdict = "undecided"
    evidence = "; ".join(f"{r['learner']}: r = {r['pearson']:.2f} [{r['95% low']:.2f}, {r['95% high']:.2f}] "
                         f"({r['class']})" for _, r in sub.iterrows())
    return verdict, evidence or "no such learner"


def claims_table(claims: pd.DataFrame, fig1: pd.DataFrame, fig2: pd.DataFrame, corr: pd.DataFrame) -> pd.DataFrame:
    """Each claim of the paper with the computed evidence and its verdict here: ``holds``,
    ``does not hold`` or ``undecided`` (a correlation interval straddling the threshold).
    Orders use :func:`pairwise_calls` (Wilcoxon over paired trials or networks, p < 0.05)."""
    by_measure = pairwise_calls(measure_long(fig2), ["measure"], "value", "dag")
    panels = pairwise_calls(fig1, ["domain", "panel"], "mean_tvd", "trial")
    learners = sorted(fig2["learner"].unique())

    def calls(**where: str) -> pd.DataFrame:
        """Rows of the measure calls (if ``measure`` is given) or the panel calls matching ``where``."""
        frame = by_measure if "measure" in where else panels
        return frame[(frame[list(where)] == pd.Series(where)).all(axis=1)]

    def listing(frame: pd.DataFrame, label: str) -> str:
        return "; ".join(f"{getattr(r, label)} {r.pair}: {r.call} (p={r.p:.2g})" for r in frame.itertuples())

    def verdict(ok: bool) -> str:
        return "holds" if ok else "does not hold"

    def panel_differences(a: str, b: str) -> tuple[str, str]:
        """Pairs whose call differs between panels ``a`` and ``b`` of the same domain."""
        wide = panels[panels["panel"].isin([a, b])].pivot(index=["domain", "pair"], columns="panel", values="call")
        if a not in wide or b not in wide:
            return "untested", f"needs panels {a} and {b}"
        differ = wide[wide[a] != wide[b]]
        return verdict(len(differ) > 0), (f"{b} vs {a}: {len(differ)} of {len(wide)} (domain, pair) calls differ"
                                          + "".join(f"; {d} {p}: {r[a]} vs {r[b]}" for (d, p), r in differ.iterrows()))

    def empirical_vs_synthetic() -> tuple[str, str]:
        results = [panel_differences("empirical", p) for p in sorted(set(panels["panel"]) - {"empirical"})]
        ok = any(v == "holds" for v, _ in results)
        return verdict(ok), " | ".join(e for _, e in results)

    def structural_mmhc_pc() -> tuple[str, str]:
        shd, sid, tvd = (calls(measure=m, pair="mmhc, pc")["call"].tolist() for m in MEASURES)
        if not (shd and sid and tvd):
            return "untested", "needs mmhc and pc"
        ok = shd == sid == ["mmhc < pc"] and tvd == ["tie"]
        return verdict(ok), f"SHD: {shd[0]}; SID: {sid[0]}; TVD: {tvd[0]}"

    def pc_worst(panel: str) -> tuple[str, str]:
        sub = panels[panels["panel"] == panel]
        if sub.empty:
            return "untested", f"no panel {panel}"
        ok = all(_worst(g, "pc") for _, g in sub.groupby("domain"))
        return verdict(ok), listing(sub, "domain")

    checks = {
        "shd_sid_strong": lambda: _correlation_claim(corr, learners, "SHD-SID", "strong"),
        "shd_tvd_weak_ges": lambda: _correlation_claim(corr, ["ges"], "SHD-TVD", "weak"),
        "shd_tvd_strong_pc": lambda: _correlation_claim(corr, ["pc"], "SHD-TVD", "strong"),
        "ges_best_tvd_synthetic": lambda: (verdict(_best(calls(measure="tvd"), "ges")),
                                           listing(calls(measure="tvd"), "measure")),
        "ges_not_best_structural": lambda: (
            verdict(not any((_calls_with(calls(measure=m), "ges").str.startswith("ges <")).any()
                            for m in ("shd", "sid"))),
            listing(pd.concat([calls(measure="shd"), calls(measure="sid")]), "measure")),
        "tvd_orders_differently": lambda: headline(by_measure),
        "mmhc_beats_pc_structural_not_tv": structural_mmhc_pc,
        "orders_differ_empirical_synthetic": empirical_vs_synthetic,
        "generators_differ": lambda: panel_differences("synthetic-pc", "synthetic-ges"),
        "pc_worst_mmhc_generated": lambda: pc_worst("synthetic-mmhc"),
        "ges_best_empirical": lambda: (
            verdict(all(_best(g, "ges") for _, g in panels[panels["panel"] == "empirical"].groupby("domain"))),
            listing(panels[panels["panel"] == "empirical"], "domain")),
    }
    rows = []
    for claim in claims.itertuples():
        if claim.claim not in checks:
            raise ValueError(f"gentzel_claims.csv: no check for claim {claim.claim!r}")
        outcome, evidence = checks[claim.claim]()
        rows.append({"claim": claim.claim, "paper": claim.source, "statement": claim.statement,
                     "verdict": outcome, "evidence": evidence})
    return pd.DataFrame(rows).set_index("claim")


# ------------------------------------------------------------------------ text
def data_sentence(source: str, domains: Sequence[str]) -> str:
    """What the empirical panels ran on, from the parameters."""
    names = ", ".join(domains)
    if source == "kdl":
        return f"the paper's own KDL files ({names})"
    if source == "csv":
        return f"factorial data of the user's own ({names}, long CSV files), not the paper's systems"
    return (f"the kit's own factorial experiments ({names}: query engines on a generated database), "
            "not the paper's systems (JDK, Postgres on Stack Overflow queries, HTTP)")


def closing_text(source: str, domains: Sequence[str], claims: pd.DataFrame,
                 sensitivity: pd.DataFrame | None) -> str:
    """The notebook's closing paragraph, computed from the verdicts and the sensitivity table."""
    counts = claims["verdict"].value_counts()
    parts = [f"The empirical panels ran on {data_sentence(source, domains)}. Of the paper's {len(claims)} "
             f"claims re-tested here, {counts.get('holds', 0)} hold, {counts.get('does not hold', 0)} do not "
             f"and {counts.get('undecided', 0)} are undecided (a correlation interval straddles the threshold)."]
    head = claims.loc["tvd_orders_differently"] if "tvd_orders_differently" in claims.index else None
    if head is not None:
        state = "reproduces" if head["verdict"] == "holds" else "does not reproduce"
        parts.append(f"The headline of the random-network experiment, that TVD orders the learners "
                     f"differently from SHD and SID, {state} at these parameters (pairwise calls: "
                     f"{head['evidence']}).")
    if sensitivity is not None and len(sensitivity):
        held = sensitivity.index[sensitivity["TVD orders differently"] == "holds"].tolist()
        networks = int(sensitivity["networks"].min())
        parts.append(f"Under the switches the notebook names as possible causes ({networks} networks each), "
                     f"it holds in {len(held)} of {len(sensitivity)} settings"
                     + (f" ({'; '.join(held)})" if held else "") + ".")
    failing = claims[claims["verdict"] == "does not hold"]
    if len(failing):
        parts.append("Claims that do not hold here: " + "; ".join(
            f"\"{r['statement']}\" ({r['paper']})" for _, r in failing.iterrows()) + ".")
    return " ".join(parts)
