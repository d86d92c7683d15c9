"""Metrics of the kit. ``structural``: graph against graph (paper 003 and friends);
``interventional``: distributions P(O | do(T)) against each other (paper 001)."""

from causaleval.metrics.interventional import mean_tvd, pairwise_tvd, total_tvd, tvd
from causaleval.metrics.structural import (
    Confusion,
    KOutsideRecommendedRange,
    ced,
    confusion,
    f1,
    fpr,
    nced,
    prc_auc,
    precision,
    recall,
    roc_auc,
    shd_cpdag,
    shd_dag,
    sid,
    tpr,
)

__all__ = [
    "Confusion", "KOutsideRecommendedRange", "ced", "confusion", "f1", "fpr", "nced",
    "prc_auc", "precision", "recall", "roc_auc", "shd_cpdag", "shd_dag", "sid", "tpr",
    "tvd", "pairwise_tvd", "total_tvd", "mean_tvd",
]
