"""Metrics of the kit, one module per family (each function names its equation and paper):

* ``structural``: graph against graph (papers 003 and 000);
* ``sid_bounds``: SID of a CPDAG as its bounds over the equivalence class (Peters and Buehlmann 2015);
* ``interventional``: distributions P(O | do(T)) against each other (papers 001 and 000);
* ``effect``: effect estimates against true effects, uplift and Qini, time-series tests, FACE/FACT (paper 000);
* ``ibm``: the IBM benchmarking framework's scores and file formats (paper 002);
* ``ranking``: NDCG, MAP, ARP, APLT at K (paper 000);
* ``counterfactual``: sparsity, proximity, diversity of counterfactual explanations (paper 000);
* ``ate_distribution``: Wasserstein distance and mode precision/recall of ATE samples (paper 004);
* ``fairness``: counterfactual fairness, PC-fairness, Ctf-DE/IE/SE on a linear SCM, and the
  reconstruction error of counterfactual explanations (Cheng et al. eqs. 24-28);
* ``refutation``: placebo treatment, random common cause and data subset refutation tests;
* ``registry``: one entry per metric with its formula, source and cross-check;
* ``custom``: graph metrics of one's own, registered by plugins and added to study tables by name.
"""

from causaleval.metrics.custom import GRAPH_METRICS, get_metric, register_metric

from causaleval.metrics.interventional import kl_divergence, mean_tvd, pairwise_tvd, total_tvd, tvd
from causaleval.metrics.sid_bounds import sid_bounds
from causaleval.metrics.structural import (
    Confusion,
    KOutsideRecommendedRange,
    adjacency_mse,
    ced,
    confusion,
    edge_pr_auc,
    edge_roc_auc,
    f1,
    fpr,
    frobenius,
    nced,
    prc_auc,
    precision,
    recall,
    roc_auc,
    shd_cpdag,
    shd_cpdag_pairs,
    shd_dag,
    shd_pairs,
    sid,
    tpr,
)

__all__ = [
    "Confusion", "KOutsideRecommendedRange", "adjacency_mse", "ced", "confusion", "edge_pr_auc", "edge_roc_auc",
    "f1", "fpr", "frobenius", "nced", "prc_auc", "precision", "recall", "roc_auc", "shd_cpdag", "shd_dag",
    "shd_cpdag_pairs", "shd_pairs", "sid", "sid_bounds", "tpr", "tvd", "pairwise_tvd", "total_tvd", "mean_tvd", "kl_divergence",
    "GRAPH_METRICS", "get_metric", "register_metric",
]
