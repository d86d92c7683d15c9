"""One entry per metric of the kit: name, task, formula, source, our function, and its
cross-checks, of two kinds kept apart: an *independent implementation* (a maintained library's
function on the same inputs) and a *hand-computed case* (our function on inputs whose value was
worked out by hand), the only check where no library has the metric.

``aliases`` are the names the surveys print (Cheng et al. Tables I-III, Gentzel et al. Sec. 2),
so their tables can say which function implements each entry (:func:`lookup`).
:func:`master_table` scores every entry on worked examples and against its cross-checks;
:func:`cross_check_counts` counts the two kinds apart.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from causaleval.graphs import CausalGraph
from causaleval.metrics import ate_distribution as ad
from causaleval.metrics import counterfactual as cf
from causaleval.metrics import effect as ef
from causaleval.metrics import fairness as fa
from causaleval.metrics import ibm, interventional, ranking, structural
from causaleval.metrics import refutation as rf


@dataclass(frozen=True)
class Metric:
    """A registered metric. ``reference`` takes the same arguments as ``function``;
    ``hand`` is ``(args, expected)``, a case worked out by hand."""

    name: str
    task: str
    formula: str
    source: str
    function: Callable[..., Any]
    cross_check: str
    reference: Callable[..., Any] | None = None
    hand: tuple[tuple, Any] | None = None
    aliases: tuple[str, ...] = field(default=())
    implemented_as: str = ""

    @property
    def qualname(self) -> str:
        """The kit function behind the entry (``implemented_as`` when ``function`` is an adapter)."""
        f = self.function
        return self.implemented_as or f"{f.__module__.replace('causaleval.', '')}.{f.__name__}"


# ------------------------------------------------------------------ independent implementations
def _sk(name: str) -> Callable[..., Any]:
    def call(*args, **kwargs):
        import sklearn.metrics

        return getattr(sklearn.metrics, name)(*args, **kwargs)
    return call


def _flat(truth: CausalGraph, learned: CausalGraph, counting: str = "directed") -> tuple[np.ndarray, np.ndarray]:
    """Off-diagonal 0/1 entries of two graphs, for scikit-learn's classification metrics."""
    off = ~np.eye(truth.n, dtype=bool)
    learned = learned.reorder(truth.nodes)
    pick = (lambda m: m == 1) if counting == "directed" else (lambda m: m != 0)
    return pick(truth.matrix)[off].astype(int), pick(learned.matrix)[off].astype(int)


def _sk_graph(name: str) -> Callable[..., float]:
    return lambda truth, learned: float(_sk(name)(*_flat(truth, learned), zero_division=0))


def _sk_fpr(truth: CausalGraph, learned: CausalGraph) -> float:
    tn, fp, _, _ = _sk("confusion_matrix")(*_flat(truth, learned), labels=[0, 1]).ravel()
    return fp / (fp + tn)


def _sk_scores(name: str) -> Callable[..., float]:
    def call(truth: CausalGraph, scores: np.ndarray) -> float:
        off = ~np.eye(truth.n, dtype=bool)
        return float(_sk(name)((truth.matrix == 1)[off].astype(int), np.asarray(scores)[off]))
    return call


def _adjacency(g: CausalGraph) -> np.ndarray:
    return (g.matrix != 0).astype(float)


def _gadjid_shd(truth: CausalGraph, learned: CausalGraph) -> float:
    import gadjid

    return float(gadjid.shd(truth.to_gadjid(), learned.reorder(truth.nodes).to_gadjid())[1])


def _statsmodels_granger(effect, cause, lags: int) -> float:
    import warnings

    from statsmodels.tsa.stattools import grangercausalitytests

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = grangercausalitytests(np.column_stack([effect, cause]), [lags])
    return float(res[lags][0]["ssr_ftest"][0])


def _sklift(name: str) -> Callable[..., np.ndarray]:
    def call(outcome, treatment, score) -> np.ndarray:
        import sklift.metrics

        x, y = getattr(sklift.metrics, name)(np.asarray(outcome), np.asarray(score), np.asarray(treatment))
        return np.interp(np.arange(len(outcome) + 1), x, y)  # sklift evaluates at tie-group ends only
    return call


def _sklift_area(name: str) -> Callable[..., float]:
    def call(outcome, treatment, score) -> float:
        import sklift.metrics

        x, y = getattr(sklift.metrics, name)(np.asarray(outcome), np.asarray(score), np.asarray(treatment))
        return float(np.trapezoid(y, x))
    return call


def _ndcg_sklearn(relevance, k: int) -> float:
    r = np.asarray(relevance, dtype=float)
    positions = np.tile(np.arange(r.shape[1], 0, -1), (r.shape[0], 1))  # the ranker's order as scores
    return float(_sk("ndcg_score")(2.0**r - 1, positions, k=k))


def _map_sklearn(relevant, k: int) -> float:
    r = np.asarray(relevant, dtype=int)
    if k != r.shape[1]:
        raise ValueError("the scikit-learn cross-check covers K = list length")
    positions = np.arange(r.shape[1], 0, -1)
    return float(np.mean([_sk("average_precision_score")(row, positions) if row.any() else 0.0 for row in r]))


def _cdist_mean(original, counterfactuals, p: float = 1.0) -> float:
    from scipy.spatial.distance import cdist

    return float(cdist(np.atleast_2d(original), np.atleast_2d(counterfactuals), "minkowski", p=p).mean())


def _pdist_mean(counterfactuals, p: float = 1.0) -> float:
    from scipy.spatial.distance import pdist

    return float(pdist(np.atleast_2d(counterfactuals), "minkowski", p=p).mean())


def _scipy_tv(p, q) -> float:
    from scipy.spatial.distance import cityblock

    return float(cityblock(p, q) / 2)


def _scipy_kl(p, q) -> float:
    from scipy.stats import entropy

    return float(entropy(p, q))


def _scipy_wasserstein(u, v) -> float:
    from scipy.stats import wasserstein_distance

    return float(wasserstein_distance(u, v))


def _scipy_ttest(a, b) -> float:
    from scipy.stats import ttest_ind

    return float(ttest_ind(a, b, equal_var=True).statistic)


def _sklearn_reconstruction(points, data, n_components: int) -> float:
    from sklearn.decomposition import PCA

    x, d = np.atleast_2d(np.asarray(points, float)), np.atleast_2d(np.asarray(data, float))
    pca = PCA(n_components=n_components).fit(d)
    return float(np.mean(np.sum((x - pca.inverse_transform(pca.transform(x))) ** 2, axis=1)))


def _refutation(test: str, dowhy: bool = False) -> Callable[..., float]:
    def call(data, treatment, outcome, common_causes, n_simulations, seed) -> float:
        run = rf.dowhy_refute if dowhy else rf.refute
        return run(data, treatment, outcome, common_causes, test, n_simulations=n_simulations, seed=seed).new_effect
    return call


# ------------------------------------------------------------------ IBM scores as single numbers
def _ibm_population(score: str) -> Callable[..., float]:
    def call(truth: pd.DataFrame, estimates: pd.DataFrame) -> float:
        return float(ibm.population_scores(ibm.population_statistics(truth, estimates))[0][score])
    call.__name__ = f"population_scores['{score}']"
    call.__module__ = ibm.__name__
    return call


def _ibm_individual(score: str) -> Callable[..., float]:
    def call(truth: Mapping[str, pd.DataFrame], estimates: Mapping[str, pd.DataFrame]) -> float:
        return float(ibm.individual_scores(ibm.individual_statistics(truth, estimates))[0][score])
    call.__name__ = f"individual_scores['{score}']"
    call.__module__ = ibm.__name__
    return call


def _g(*edges: str) -> CausalGraph:
    return CausalGraph.from_edge_lists(["a", "b", "c", "d"], directed=[tuple(e.split(">")) for e in edges])


#: a hand-worked IBM case: two instances of size 2 and one of size 4, so both sizes weigh
#: n |D_n| = 4; per instance bias 1, 0, -1, coverage 1, 1, 0 (see tests/test_survey_metrics.py)
_IBM_TRUTH = pd.DataFrame({"effect": [1.0, 2.0, 4.0], "size": [2, 2, 4]}, index=["u1", "u2", "u3"])
_IBM_EST = pd.DataFrame({"effect_size": [2.0, 2.0, 3.0], "li": [0.0, 1.0, 2.0], "ri": [4.0, 3.0, 3.5]},
                        index=["u1", "u2", "u3"])
_D = ibm.DELTA
#: a hand-worked individual case: one instance of two units, every estimated effect 1 too high
_IND_TRUTH = {"u1": pd.DataFrame({"y0": [0.0, 1.0], "y1": [1.0, 3.0]}, index=["a", "b"])}
_IND_EST = {"u1": pd.DataFrame({"y0": [0.0, 1.0], "y1": [2.0, 4.0]}, index=["a", "b"])}
_IND_ENORMSE = float(np.sqrt(((1 - (2 + _D) / (1 + _D)) ** 2 + (1 - (3 + _D) / (2 + _D)) ** 2) / 2))
_T4 = _g("a>b", "b>c", "c>d")
#: a hand-worked SCM: W = 2A + U_W, Y = A + 3W + U_Y, four units; per unit U_W = 1, 0, 0, 1 and
#: U_Y = 1, -1, 1, -1. Units with A = 0 (rows 1, 3): Y_{1,W_0} - Y_0 = 1, Y_{0,W_1} - Y_0 = 3 * 2;
#: units with A = 1: Y_0 = Y - 7 = -1, 2 (mean 0.5) against E[Y | A = 0] = 2.5, so Ctf-SE = -2;
#: the predictor A + 3W changes by 1 + 6 = 7 under A <- 1.
_FAIR_SCM = fa.LinearSCM.from_equations({"A": {}, "W": {"A": 2.0}, "Y": {"A": 1.0, "W": 3.0}}, binary=["A"])
_FAIR_DATA = pd.DataFrame({"A": [0, 1, 0, 1], "W": [1.0, 2.0, 0.0, 3.0], "Y": [4.0, 6.0, 1.0, 9.0]})

EFFECT, IBM, STRUCTURE, CAUSAL_ML, POSTERIOR = (
    "effect estimation", "effect estimation (IBM framework)", "structure learning",
    "causality-aware ML", "ATE distributions")

REGISTRY: tuple[Metric, ...] = (
    Metric("MAE (ATE)", EFFECT, r"\frac{1}{M}\sum_j |\tau_j-\hat\tau_j|", "Cheng et al. eq. 4", ef.mae_ate,
           "sklearn.metrics.mean_absolute_error", _sk("mean_absolute_error"), aliases=("MAE",)),
    Metric("MSE (ATE)", EFFECT, r"\frac{1}{M}\sum_j (\tau_j-\hat\tau_j)^2", "Cheng et al. eq. 5", ef.mse_ate,
           "sklearn.metrics.mean_squared_error", _sk("mean_squared_error"), aliases=("MSE",)),
    Metric("RMSE (ATE)", EFFECT, r"\sqrt{\frac{1}{M}\sum_j (\tau_j-\hat\tau_j)^2}", "Cheng et al. eq. 5", ef.rmse_ate,
           "sklearn.metrics.root_mean_squared_error", _sk("root_mean_squared_error"), aliases=("RMSE",)),
    Metric("PEHE", EFFECT, r"\frac{1}{n}\sum_i (y_i^1-y_i^0-\hat\tau(x_i))^2", "Cheng et al. eq. 6", ef.pehe,
           "sklearn.metrics.mean_squared_error of (y1 - y0, tau_hat)",
           lambda y1, y0, ite: _sk("mean_squared_error")(np.asarray(y1) - np.asarray(y0), ite), aliases=("PEHE",)),
    Metric("policy risk", EFFECT, r"1-(E[\tilde y|t{=}1,\pi{=}1]p(\pi{=}1)+E[\tilde y|t{=}0,\pi{=}0]p(\pi{=}0))",
           "Cheng et al. eq. 7", ef.policy_risk, "hand-computed case",
           hand=(([1, 1, 0, 0], [1, 0, 0, 1], [1.0, 0.0, 0.5, 0.25]), 0.25), aliases=("Policy Risk",)),
    Metric("uplift curve", EFFECT, r"(Y_b^1/N_b^1-Y_b^0/N_b^0)(N_b^1+N_b^0)", "Cheng et al. eq. 8", ef.uplift_curve,
           "sklift.metrics.uplift_curve", _sklift("uplift_curve")),
    Metric("uplift coefficient", EFFECT, r"\sum_{b=0}^{N-1}\tfrac12(U(b{+}1)+U(b))", "Cheng et al. eq. 10",
           ef.uplift_coefficient, "trapezoid area of sklift.metrics.uplift_curve", _sklift_area("uplift_curve"),
           aliases=("Uplift_Coef",)),
    Metric("Qini curve", EFFECT, r"Y_a^1-Y_a^0 N_a^1/N_a^0", "Cheng et al. eq. 9", ef.qini_curve,
           "sklift.metrics.qini_curve", _sklift("qini_curve")),
    Metric("Qini coefficient", EFFECT, r"\sum_{a=0}^{N-1}\tfrac12(Q(a{+}1)+Q(a))", "Cheng et al. eq. 10",
           ef.qini_coefficient, "trapezoid area of sklift.metrics.qini_curve", _sklift_area("qini_curve"),
           aliases=("Qini_Coef",)),
    Metric("F-test (Granger)", EFFECT, r"\frac{(RSS_R-RSS_{UR})/p}{RSS_{UR}/(T-2p-1)}", "Cheng et al. eqs. 11, 21",
           lambda effect, cause, lags: ef.granger_f_test(effect, cause, lags).statistic,
           "statsmodels grangercausalitytests ssr_ftest", _statsmodels_granger, aliases=("F-Test", "F-test"),
           implemented_as="metrics.effect.granger_f_test"),
    Metric("unpaired t-test", EFFECT, r"\frac{\bar x_1-\bar x_2}{\sqrt{(1/n_1+1/n_2)s_p^2}}", "Cheng et al. eq. 12",
           lambda a, b: ef.unpaired_t_test(a, b).statistic, "scipy.stats.ttest_ind(equal_var=True)", _scipy_ttest,
           aliases=("T-Test",), implemented_as="metrics.effect.unpaired_t_test"),
    Metric("FACE", CAUSAL_ML, r"E[Y^{(a_1)}-Y^{(a_0)}]", "Cheng et al. eq. 22", ef.face, "hand-computed case",
           hand=(([3.0, 1.0, 2.0], [1.0, 1.0, 0.0]), 4 / 3), aliases=("FACE",)),
    Metric("FACT", CAUSAL_ML, r"E[Y^{(a_1)}-Y^{(a_0)}\mid A=a_1]", "Cheng et al. eq. 23", ef.fact, "hand-computed case",
           hand=(([3.0, 1.0, 2.0], [1.0, 1.0, 0.0], [1, 0, 1]), 2.0), aliases=("FACT",)),
    Metric("ENoRMSE (population)", IBM, r"\sqrt{\tfrac{1}{|D_n|}\sum_j(1-\tfrac{\hat e_j+\delta}{e_j+\delta})^2}",
           "Shimoni et al. eqs. 1, 8", _ibm_population("enormse"), "hand-computed case",
           hand=((_IBM_TRUTH, _IBM_EST), float(np.sqrt((0.5 / (1 + _D) ** 2 + 1 / (4 + _D) ** 2) / 2))),
           aliases=("Aggregating Score",)),
    Metric("RMSE (population)", IBM, r"\sqrt{\tfrac{1}{|D_n|}\sum_j(\hat e_j-e_j)^2}", "Shimoni et al. eqs. 3, 8",
           _ibm_population("rmse"), "hand-computed case", hand=((_IBM_TRUTH, _IBM_EST), float(np.sqrt(6 / 8)))),
    Metric("bias (population)", IBM, r"\tfrac{1}{|D_n|}\sum_j(\hat e_j-e_j)", "Shimoni et al. eqs. 4, 9",
           _ibm_population("bias"), "hand-computed case", hand=((_IBM_TRUTH, _IBM_EST), -0.25), aliases=("Bias",)),
    Metric("coverage", IBM, r"\tfrac{1}{|D_n|}\sum_j 1[l_j\le e_j\le r_j]", "Shimoni et al. eqs. 5, 9",
           _ibm_population("coverage"), "hand-computed case", hand=((_IBM_TRUTH, _IBM_EST), 0.5),
           aliases=("Coverage",)),
    Metric("CIC", IBM, r"\tfrac{1}{|D_n|}\sum_j |\hat e_j-e_j|/(r_j-l_j)", "Shimoni et al. eqs. 6, 9",
           _ibm_population("cic"), "hand-computed case", hand=((_IBM_TRUTH, _IBM_EST), (0.125 + 2 / 3) / 2),
           aliases=("Confidence Interval",)),
    Metric("ENCIS", IBM, r"\tfrac{1}{|D_n|}\sum_j (r_j-l_j)/(|e_j|+\delta)", "Shimoni et al. eqs. 7, 9",
           _ibm_population("encis"), "hand-computed case",
           hand=((_IBM_TRUTH, _IBM_EST), ((4 / (1 + _D) + 2 / (2 + _D)) / 2 + 1.5 / (4 + _D)) / 2)),
    Metric("ENoRMSE (individual)", IBM,
           r"\sqrt{\tfrac{1}{|D_n|}\sum_j\tfrac1n\sum_i(1-\tfrac{\hat e_{ij}+\delta}{e_{ij}+\delta})^2}",
           "Shimoni et al. eqs. 2, 8", _ibm_individual("enormse"), "hand-computed case",
           hand=((_IND_TRUTH, _IND_EST), _IND_ENORMSE)),
    Metric("RMSE (individual)", IBM, r"\sqrt{\tfrac{1}{|D_n|}\sum_j\tfrac1n\sum_i(\hat e_{ij}-e_{ij})^2}",
           "Shimoni et al. eqs. 3, 8", _ibm_individual("rmse"), "hand-computed case",
           hand=((_IND_TRUTH, _IND_EST), 1.0)),
    Metric("bias (individual)", IBM, r"\tfrac{1}{|D_n|}\sum_j\tfrac1n\sum_i(\hat e_{ij}-e_{ij})",
           "Shimoni et al. eqs. 4, 9", _ibm_individual("bias"), "hand-computed case",
           hand=((_IND_TRUTH, _IND_EST), 1.0)),
    Metric("SHD (edits)", STRUCTURE, "A + D + I", "Cheng et al. eq. 13", structural.shd_pairs, "gadjid.shd",
           _gadjid_shd, hand=((_T4, _g("b>a", "b>c", "a>d")), 3.0), aliases=("SHD",)),
    Metric("Frobenius norm", STRUCTURE, r"\sqrt{\mathrm{tr}((B-\hat B)^T(B-\hat B))}", "Cheng et al. eq. 14",
           structural.frobenius, "numpy.linalg.norm(ord='fro')",
           lambda t, g: float(np.linalg.norm(_adjacency(t) - _adjacency(g.reorder(t.nodes)), "fro")),
           aliases=("Frobenius Norm",)),
    Metric("SID", STRUCTURE, r"\#\{(i,j): p(x_j|do(x_i)) \text{ wrong under } \hat G\}", "Cheng et al. eq. 15",
           structural.sid, "hand-computed case (gadjid computes it)",
           hand=((CausalGraph.from_edges(["C->T1", "C->T2", "T1->O1", "T2->O2"]),
                  CausalGraph.from_edges(["C->T1", "C->T2", "T2->O2"], nodes=["C", "T1", "T2", "O1", "O2"])), 4.0),
           aliases=("SID",)),
    Metric("precision", STRUCTURE, r"TP/(TP+FP)", "Cheng et al. Sec. III.A", structural.precision,
           "sklearn.metrics.precision_score", _sk_graph("precision_score"), aliases=("Precision", "Classification")),
    Metric("recall", STRUCTURE, r"TP/(TP+FN)", "Cheng et al. Sec. III.A", structural.recall,
           "sklearn.metrics.recall_score", _sk_graph("recall_score"), aliases=("Recall",)),
    Metric("F1", STRUCTURE, r"2PR/(P+R)", "Cheng et al. Sec. III.A", structural.f1, "sklearn.metrics.f1_score",
           _sk_graph("f1_score"), aliases=("F1",)),
    Metric("TPR", STRUCTURE, r"|E_M\cap E_{GT}|/|E_{GT}|", "Cheng et al. eq. 17", structural.tpr,
           "sklearn.metrics.recall_score", _sk_graph("recall_score"), aliases=("TPR",)),
    Metric("FPR", STRUCTURE, r"|E_M\setminus E_{GT}|/|E-E_{GT}|", "Cheng et al. eq. 16", structural.fpr,
           "sklearn.metrics.confusion_matrix", _sk_fpr, aliases=("FPR",)),
    Metric("adjacency MSE", STRUCTURE, r"\frac{1}{|T|}\sum (T-A)^2", "Cheng et al. eq. 18", structural.adjacency_mse,
           "sklearn.metrics.mean_squared_error",
           lambda t, g: float(_sk("mean_squared_error")(_adjacency(t).ravel(), _adjacency(g.reorder(t.nodes)).ravel())),
           aliases=("MSE",)),
    Metric("ROC AUC (edge scores)", STRUCTURE, r"\int TPR\,d\,FPR", "Cheng et al. Sec. III.A items 7-8",
           structural.edge_roc_auc, "sklearn.metrics.roc_auc_score", _sk_scores("roc_auc_score"),
           aliases=("AUC", "FPR-TPR Curve")),
    Metric("PR AUC (edge scores)", STRUCTURE, r"\sum_k (R_k-R_{k-1})P_k", "Cheng et al. Sec. III.A item 8",
           structural.edge_pr_auc, "sklearn.metrics.average_precision_score", _sk_scores("average_precision_score"),
           aliases=("Precision-Recall Curve",)),
    Metric("TVD", STRUCTURE, r"\tfrac12\sum_o|P(o|do(t))-\hat P(o|do(t))|",
           "Cheng et al. eq. 19; Gentzel et al. Sec. 5",
           lambda p, q: float(interventional.tvd(p, q)), "scipy.spatial.distance.cityblock / 2", _scipy_tv,
           aliases=("TVD",), implemented_as="metrics.interventional.tvd"),
    Metric("KL divergence", STRUCTURE, r"\sum_o P(o)\ln\frac{P(o)}{\hat P(o)}", "Cheng et al. eq. 20",
           lambda p, q: float(interventional.kl_divergence(p, q)), "scipy.stats.entropy", _scipy_kl,
           aliases=("KL-Divergence",), implemented_as="metrics.interventional.kl_divergence"),
    Metric("sparsity", CAUSAL_ML, r"\mathrm{mean}_c\|x'_c-x\|_0", "Cheng et al. Table II row 1", cf.sparsity,
           "hand-computed case", hand=(([0.0, 1.0, 2.0], [[0.0, 1.0, 3.0], [1.0, 0.0, 2.0]]), 1.5),
           aliases=("Sparsity",)),
    Metric("proximity", CAUSAL_ML, r"\mathrm{mean}_c\|x'_c-x\|_p", "Cheng et al. Table II row 3", cf.proximity,
           "scipy.spatial.distance.cdist (minkowski)", _cdist_mean, aliases=("Proximity",)),
    Metric("diversity", CAUSAL_ML, r"\mathrm{mean}_{a<b}\|x'_a-x'_b\|_p", "Cheng et al. Table II row 5", cf.diversity,
           "scipy.spatial.distance.pdist (minkowski)", _pdist_mean, aliases=("Diversity",)),
    Metric("NDCG@K", CAUSAL_ML, r"\frac{1}{IDCG@K}\sum_{i\le K}\frac{2^{r_i}-1}{\log_2(i+1)}", "Cheng et al. eq. 29",
           ranking.ndcg_at_k, "sklearn.metrics.ndcg_score with gains 2^r - 1", _ndcg_sklearn, aliases=("NDCG@K",)),
    Metric("MAP@K", CAUSAL_ML, r"\mathrm{mean}_q \sum_{i\le K} P@i\,rel_i/\min(K,R)", "Cheng et al. eq. 30",
           ranking.map_at_k, "sklearn.metrics.average_precision_score (K = list length)", _map_sklearn,
           hand=(([[1, 0, 1, 0]], 4), (1 + 2 / 3) / 2), aliases=("MAP@K",)),
    Metric("ARP@K", CAUSAL_ML, r"\frac{1}{|Q|}\sum_q\sum_{i\le K}\phi_i^q/K", "Cheng et al. eq. 31", ranking.arp_at_k,
           "hand-computed case", hand=(([[10, 2, 4], [1, 1, 7]], 2), 3.5), aliases=("ARP@K",)),
    Metric("APLT@K", CAUSAL_ML, r"\frac{1}{|Q|}\sum_q\sum_{i\le K}1(i\in LT)/K", "Cheng et al. eq. 32",
           ranking.aplt_at_k, "hand-computed case", hand=(([[0, 1, 1], [1, 1, 0]], 2), 0.75), aliases=("APLT@K",)),
    Metric("counterfactual fairness", CAUSAL_ML,
           r"\mathrm{mean}_{u: A=a_0}|\hat y_{A\leftarrow a_1}(u)-\hat y_{A\leftarrow a_0}(u)|",
           "Cheng et al. eq. 24; Kusner et al. 2017", fa.counterfactual_fairness, "hand-computed case",
           hand=((_FAIR_SCM, _FAIR_DATA, lambda v: v["A"] + 3 * v["W"], "A"), 7.0),
           aliases=("Counterfactual Fairness",)),
    Metric("PC-fairness", CAUSAL_ML, r"E[Y_{a_1|\pi,a_0|\bar\pi}|O]-E[Y_{a_0}|O]",
           "Cheng et al. eq. 25; Wu et al. 2019", fa.pc_fairness, "hand-computed case",
           hand=((_FAIR_SCM, _FAIR_DATA, "A", "Y", [("A", "W"), ("W", "Y")], 0, 1, {"A": 0}), 6.0),
           aliases=("PC-Fairness",)),
    Metric("Ctf-DE", CAUSAL_ML, r"E[Y_{x_1,W_{x_0}}|x]-E[Y_{x_0}|x]", "Cheng et al. eq. 26; Zhang and Bareinboim 2018",
           fa.ctf_de, "hand-computed case", hand=((_FAIR_SCM, _FAIR_DATA, "A", "Y", ["W"]), 1.0), aliases=("Ctf-DE",)),
    Metric("Ctf-IE", CAUSAL_ML, r"E[Y_{x_0,W_{x_1}}|x]-E[Y_{x_0}|x]", "Cheng et al. eq. 27; Zhang and Bareinboim 2018",
           fa.ctf_ie, "hand-computed case", hand=((_FAIR_SCM, _FAIR_DATA, "A", "Y", ["W"]), 6.0), aliases=("Ctf-IE",)),
    Metric("Ctf-SE", CAUSAL_ML, r"E[Y_{x_0}|x_1]-E[Y|x_0]", "Cheng et al. eq. 28; Zhang and Bareinboim 2018",
           fa.ctf_se, "hand-computed case", hand=((_FAIR_SCM, _FAIR_DATA, "A", "Y"), -2.0), aliases=("Ctf-SE",)),
    Metric("reconstruction error", CAUSAL_ML, r"\mathrm{mean}_x\|x-AE(x)\|_2^2",
           "Cheng et al. Table II row 2; Van Looveren and Klaise 2021",
           fa.reconstruction_error, "sklearn.decomposition.PCA inverse_transform", _sklearn_reconstruction,
           hand=(([[0.0, 3.0], [1.0, 1.0]], [[-1.0, 0.0], [1.0, 0.0], [-2.0, 0.0], [2.0, 0.0]], 1), 5.0),
           aliases=("Interpretability",)),
    Metric("placebo treatment", EFFECT, r"\mathrm{mean}_s\hat\tau(\text{permuted }T)", "Cheng et al. Table III; DoWhy",
           _refutation(rf.PLACEBO), "dowhy placebo_treatment_refuter (permute)", _refutation(rf.PLACEBO, dowhy=True),
           aliases=("Refutation",), implemented_as="metrics.refutation.refute"),
    Metric("random common cause", EFFECT, r"\mathrm{mean}_s\hat\tau(W\cup\{N(0,1)\})", "Cheng et al. Table III; DoWhy",
           _refutation(rf.RANDOM_COMMON_CAUSE), "dowhy random_common_cause refuter",
           _refutation(rf.RANDOM_COMMON_CAUSE, dowhy=True), aliases=("Refutation",),
           implemented_as="metrics.refutation.refute"),
    Metric("data subset", EFFECT, r"\mathrm{mean}_s\hat\tau(\text{random subset})", "Cheng et al. Table III; DoWhy",
           _refutation(rf.DATA_SUBSET), "dowhy data_subset_refuter", _refutation(rf.DATA_SUBSET, dowhy=True),
           aliases=("Refutation",), implemented_as="metrics.refutation.refute"),
    Metric("Wasserstein distance", POSTERIOR, r"\int|F(x)-G(x)|dx", "Emezue et al. Sec. 3.3", ad.wasserstein,
           "scipy.stats.wasserstein_distance", _scipy_wasserstein),
    Metric("mode precision", POSTERIOR, r"TP/(TP+FP) over isclose modes", "Emezue et al. Sec. 3.3, App. D",
           lambda t, learned, **kw: ad.mode_precision_recall(t, learned, **kw).precision, "hand-computed case",
           hand=(([1.0, 1.0 + 1e-9, 2.0], [1.0, 3.0, 3.0, 3.0 + 1e-8]), 0.5),
           implemented_as="metrics.ate_distribution.mode_precision_recall"),
    Metric("mode recall", POSTERIOR, r"TP/(TP+FN) over isclose modes", "Emezue et al. Sec. 3.3, App. D",
           lambda t, learned, **kw: ad.mode_precision_recall(t, learned, **kw).recall, "hand-computed case",
           hand=(([1.0, 1.0 + 1e-9, 2.0], [1.0, 3.0, 3.0, 3.0 + 1e-8]), 0.5),
           implemented_as="metrics.ate_distribution.mode_precision_recall"),
)


def lookup(alias: str) -> list[Metric]:
    """The entries a survey's printed name refers to (case-insensitive)."""
    key = alias.strip().lower()
    return [m for m in REGISTRY if key in (a.lower() for a in m.aliases) or key == m.name.lower()]


def table() -> pd.DataFrame:
    """The registry as a table: name, task, formula, source, function, cross-check."""
    return pd.DataFrame([{"metric": m.name, "task": m.task, "formula": m.formula, "source": m.source,
                          "function": m.qualname, "cross-checked against": m.cross_check}
                         for m in REGISTRY]).set_index("metric")


def _summary(value: Any) -> float:
    a = np.asarray(value, dtype=float)
    return float(a) if a.ndim == 0 else float(np.nanmax(a))


def master_table(examples: Mapping[str, tuple[str, Sequence[Any], Mapping[str, Any]]], *,
                 rtol: float = 1e-9, atol: float = 1e-12) -> pd.DataFrame:
    """Every registry entry on its worked example and against its cross-checks, kept apart:
    an *independent implementation* (another library's function on the same inputs) and a
    *hand-computed case* (the entry's function on inputs whose value was worked out by hand).

    ``examples`` maps a metric's name to ``(description, args, kwargs)``. Columns: value
    (a curve shows its maximum), the independent implementation, its value and whether ours
    equals it (``equals independent``); the hand case's expected value, ours, and whether they are equal
    (``equals hand case``). An entry
    with no example is listed with empty values, so a missing example is visible.
    """
    rows = []
    for m in REGISTRY:
        row: dict[str, Any] = {"metric": m.name, "task": m.task, "source": m.source, "example": "",
                               "independent implementation": m.cross_check if m.reference is not None else ""}
        if m.name in examples:
            description, args, kwargs = examples[m.name]
            ours = m.function(*args, **kwargs)
            row.update(example=description, value=_summary(ours))
            if m.reference is not None:
                theirs = m.reference(*args, **kwargs)
                row["independent value"] = _summary(theirs)
                row["equals independent"] = bool(np.allclose(np.asarray(ours, float), np.asarray(theirs, float),
                                                                  rtol=rtol, atol=atol, equal_nan=True))
        if m.hand is not None:
            args, expected = m.hand
            got = m.function(*args)
            row.update({"hand case expected": float(expected), "hand case ours": float(got),
                        "equals hand case": bool(np.isclose(got, expected, rtol=rtol, atol=atol))})
        rows.append(row)
    columns = ["task", "source", "example", "value", "independent implementation", "independent value",
               "equals independent", "hand case expected", "hand case ours", "equals hand case"]
    return pd.DataFrame(rows).set_index("metric").reindex(columns=columns)


def cross_check_counts(master: pd.DataFrame) -> pd.Series:
    """How many entries have a worked example, an independent implementation (and agree with
    it), a hand-computed case (and agree with it), and neither kind of check."""
    independent = master["equals independent"].dropna()
    hand = master["equals hand case"].dropna()
    neither = master["equals independent"].isna() & master["equals hand case"].isna()
    return pd.Series({"metrics": len(master), "with a worked example": int(master["value"].notna().sum()),
                      "checked against an independent implementation": len(independent),
                      "agreeing with it": int(independent.astype(bool).sum()),
                      "checked on a hand-computed case": len(hand),
                      "agreeing with it (hand)": int(hand.astype(bool).sum()),
                      "with no check of either kind": int(neither.sum())})
