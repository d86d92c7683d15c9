"""Metrics of the kit, one module per family (each function names its equation and paper):

* ``structural``: graph against graph (Rehak et al. 2024; Cheng et al. 2022);
* ``sid_bounds``: SID of a CPDAG as its bounds over the equivalence class (Peters and Buehlmann 2015);
* ``interventional``: distributions P(O | do(T)) against each other (Gentzel et al. 2019; Cheng et al. 2022);
* ``effect``: effect estimates against true effects, uplift and Qini, time-series tests, FACE/FACT (Cheng et al.
  (2022));
* ``ibm``: the IBM benchmarking framework's scores and file formats (Shimoni et al. (2018));
* ``ranking``: NDCG, MAP, ARP, APLT at K (Cheng et al. (2022));
* ``counterfactual``: sparsity, proximity, diversity of counterfactual explanations (Cheng et al. (2022));
* ``ate_distribution``: Wasserstein distance and mode precision/recall of ATE samples (Emezue et al. (2023));
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
    "shd_cpdag_pairs", "shd_pairs", "sid", "sid_bounds", "tpr", "tvd", "pairwise_tvd", "total_tvd", "mean_tvd",
    "kl_divergence", "GRAPH_METRICS", "get_metric", "register_metric",
]
