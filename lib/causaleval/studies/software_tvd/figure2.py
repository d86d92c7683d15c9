"""Study 2's Figure 2 and supplement Figures 4-6: SHD, SID and summed TVs of the learners on random
networks, their correlations and the orders they imply."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from causaleval import metrics, verdicts
from causaleval.effects import bn
from causaleval.datasets.networks import draw_sample, load_network, network_graph
from causaleval.datasets.user import read_observations
from causaleval.graphs.extensions import consistent_extension
from causaleval.effects.extensions import interventional_tables
from causaleval.graphs import CausalGraph, GraphClass, to_cpdag
from causaleval.metrics.sid_bounds import as_pdag
from causaleval.graphs.batch import GraphBatch
from causaleval.learn.learners import get_learner, learn
from causaleval.parallel import run_trials
from causaleval.effects.sampling import dirichlet_network, random_dag
from causaleval.datasets.networks import forward_sample
from causaleval.studies.software_tvd.figure1 import paired_orders


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


def user_network(network: str, data_file: str | None, *, smoothing: str,
                 ess: float) -> tuple[CausalGraph, bn.DiscreteBN]:
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
                 own_metrics: Sequence[str] = (), **fit: Any) -> list[dict]:
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
                     "tvd": metrics.total_tvd(truth, estimate), "tvd_true_dag": baseline,
                     **own_scores(truth_dag, graph, learner, own_metrics)})
    return rows


def own_scores(truth: CausalGraph, graph: CausalGraph, learner: str, names: Sequence[str]) -> dict[str, float]:
    """Each registered metric in ``names`` (:func:`causaleval.metrics.register_metric`) of the
    learned ``graph`` against ``truth``; NaN where the learner's output class is not one the
    metric takes."""
    out = {}
    for name in names:
        metric = metrics.get_metric(name)
        ok = get_learner(learner).output in metric.graph_types
        out[name] = float(metric.score(truth, GraphBatch.from_graphs([graph], truth.nodes))[0]) if ok else np.nan
    return out


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
                    own_metrics: Sequence[str] = (), n_jobs: int = -1, progress: bool = True,
                    **fit: Any) -> pd.DataFrame:
    """One row per (random DAG, learner): SHD, SID (of the DAG fitted for TVD, and its
    bounds over the learned class), the sum of pairwise TVs, the same sum for the true
    DAG fitted to the same sample (``tvd_true_dag``: what estimation alone costs), and one
    column per registered metric in ``own_metrics`` (:func:`own_scores`).

    With ``network`` (a shipped name, a BIF file or an edge list with ``data_file``;
    :mod:`causaleval.datasets.networks`) every row is that one truth instead (the random
    networks' parameters are unused): ``dag`` i is its i-th sample, drawn with seed + i or the
    i-th of ``n_dags`` disjoint samples of the observations (truth tables: :func:`user_network`)."""
    jobs = [{"index": i, "n_nodes": n_nodes, "expected_neighbours": expected_neighbours,
             "cards": cards, "concentration": concentration, "cpd_scheme": cpd_scheme,
             "n_samples": n_samples, "learners": learners, "seed": seed, "network": network,
             "data_file": data_file, "n_dags": n_dags, "own_metrics": tuple(own_metrics), **fit}
            for i in range(n_dags)]
    rows = run_trials(_figure2_dag, jobs, n_jobs=n_jobs, desc="random DAGs", progress=progress)
    frame = pd.DataFrame([r for chunk in rows for r in chunk])
    return frame.assign(excess_tvd=frame["tvd"] - frame["tvd_true_dag"])


#: correlation classes (the paper's "strongly" and "very weakly correlated"; the kit's reading of them)
STRONG = 0.7
WEAK = 0.3
SIGNIFICANT = 0.05  # the level of every paired test


def strong(low: float, high: float) -> str:
    """The statement "strongly correlated" (r > :data:`STRONG`) judged by the correlation's interval
    (:func:`causaleval.verdicts.threshold_verdict`): ``holds``, ``does not hold`` or ``undecided``."""
    return verdicts.threshold_verdict(low, high, STRONG, ">")


def weak(low: float, high: float) -> str:
    """The statement "(very) weakly correlated" (-:data:`WEAK` < r < :data:`WEAK`) judged by the
    interval: ``holds`` when it lies inside, ``does not hold`` when it lies wholly outside on one side,
    else ``undecided``."""
    below = verdicts.threshold_verdict(low, high, WEAK, "<")
    above = verdicts.threshold_verdict(low, high, -WEAK, ">")
    if verdicts.DOES_NOT_HOLD in (below, above):
        return verdicts.DOES_NOT_HOLD
    if verdicts.NOT_TESTED in (below, above):
        return verdicts.NOT_TESTED
    return verdicts.HOLDS if below == above == verdicts.HOLDS else verdicts.UNDECIDED


#: the columns of :func:`correlations` that judge the paper's two statements about a correlation
STRONG_COLUMN, WEAK_COLUMN = f"strong (r > {STRONG:g})", f"weak (|r| < {WEAK:g})"


def correlations(results: pd.DataFrame, own_metrics: Sequence[str] = ()) -> pd.DataFrame:
    """Per learner: Pearson r with its 95% Fisher interval, the verdicts on "strong" and "weak" by that
    interval (:func:`strong`, :func:`weak`; ``not tested`` where undefined), and Spearman rho, of
    SHD-SID, SHD-TVD, SID-TVD and SHD against the TVD in excess of the true DAG's; then of
    each metric in ``own_metrics`` (a column of ``results``, :func:`figure2_results`) against
    TVD, over the networks where the metric is defined (at least three; else NaN)."""
    pairs = [("shd", "sid"), ("shd", "tvd"), ("sid", "tvd"), ("shd", "excess_tvd"), *((m, "tvd") for m in own_metrics)]
    rows = []
    for learner, all_rows in results.groupby("learner", sort=True):
        for a, b in pairs:
            group = all_rows[np.isfinite(all_rows[a])] if a in own_metrics else all_rows
            if a in own_metrics and (len(group) < 3 or group[a].nunique() < 2):
                rows.append({"learner": learner, "measures": f"{_label(a)}-{_label(b)}", "n": len(group),
                             STRONG_COLUMN: verdicts.NOT_TESTED, WEAK_COLUMN: verdicts.NOT_TESTED})
                continue
            r = float(stats.pearsonr(group[a], group[b]).statistic)
            low, high = verdicts.correlation_interval(r, len(group))
            rho = float(stats.spearmanr(group[a], group[b]).statistic)
            rho_low, rho_high = verdicts.correlation_interval(rho, len(group), spread=1.06)
            rows.append({"learner": learner, "measures": f"{_label(a)}-{_label(b)}",
                         "n": len(group), "pearson": r, "95% low": low, "95% high": high,
                         STRONG_COLUMN: strong(low, high), WEAK_COLUMN: weak(low, high), "spearman": rho,
                         "spearman 95% low": rho_low, "spearman 95% high": rho_high})
    return pd.DataFrame(rows)


def _label(column: str) -> str:
    """A measure's name in the correlation table: the kit's own in capitals, a registered metric's as given."""
    return column.upper().replace("_", " ") if column in (*MEASURES, "excess_tvd") else column


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


def pairwise_calls(results: pd.DataFrame, by: Sequence[str], value: str, unit: str, holm: bool = False) -> pd.DataFrame:
    """Per group and pair of learners (a, b in name order): the mean paired difference
    ``value(a) - value(b)`` over the ``unit``s, the two-sided Wilcoxon signed-rank p-value,
    and the call ``"a < b"`` or ``"b < a"`` (lower is better) when the test rejects at 0.05, else
    ``"tie"``. With ``holm`` the rejections are Holm-corrected over every row of the table (a claim
    resting on all of them), and the table says so in ``correction``."""
    rows = []
    for key, group in results.groupby(list(by), sort=True):
        wide = group.pivot(index=unit, columns="learner", values=value)
        for a, b in itertools.combinations(sorted(wide.columns), 2):
            diff = wide[a] - wide[b]
            p = 1.0 if np.allclose(diff, 0) else float(stats.wilcoxon(wide[a], wide[b]).pvalue)
            rows.append({**dict(zip(by, key if isinstance(key, tuple) else (key,))), "pair": f"{a}, {b}",
                         "mean difference": float(diff.mean()), "p": p, "a": a, "b": b})
    table = pd.DataFrame(rows)
    if table.empty:
        return table.assign(call=[], correction=[])
    reject = verdicts.holm(table["p"].tolist(), SIGNIFICANT) if holm else (table["p"] < SIGNIFICANT).to_numpy()
    table["call"] = [("tie" if not r else f"{a} < {b}" if d < 0 else f"{b} < {a}")
                     for r, a, b, d in zip(reject, table["a"], table["b"], table["mean difference"])]
    table["correction"] = f"Holm over {len(table)} tests" if holm else "none"
    return table.drop(columns=["a", "b"])


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
    and its SID call, the calls Holm-corrected over the table's tests (``calls`` is
    :func:`pairwise_calls` by ``measure`` with ``holm=True``); does not hold when every pair gets
    the same significant call under all three; else undecided (ties decide nothing)."""
    wide = calls.pivot(index="pair", columns="measure", values="call")
    differ = wide[(wide["tvd"] != wide["shd"]) & (wide["tvd"] != wide["sid"])]
    same = ((wide["tvd"] == wide["shd"]) & (wide["tvd"] == wide["sid"]) & (wide["tvd"] != "tie")).all()
    verdict = verdicts.HOLDS if len(differ) else verdicts.DOES_NOT_HOLD if same else verdicts.UNDECIDED
    evidence = "; ".join(f"{pair}: SHD {r.shd}, SID {r.sid}, TVD {r.tvd}" for pair, r in wide.iterrows())
    return verdict, evidence
