"""Metrics of the kit. ``structural``: graph against graph (paper 003 and friends)."""

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
]
