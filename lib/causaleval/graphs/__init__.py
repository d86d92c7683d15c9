"""Graphs: :class:`CausalGraph` (node names and the {-1, 0, 1} mark matrix of Rehak et al. 2024,
Sec. 3.1), batches of graphs, conversions (CPDAG, latent projection) and the members of an
equivalence class (:mod:`causaleval.graphs.extensions`)."""

from causaleval.graphs.core import (
    ARROW, CIRCLE, CLASS_TEXT, GRAPH_CLASSES, CausalGraph, GraphBatch, GraphClass, GraphError, GraphLike, _acyclic, _is_acyclic,
    as_batch, latent_projection, to_cpdag,
)

__all__ = ["ARROW", "CIRCLE", "CLASS_TEXT", "GRAPH_CLASSES", "CausalGraph", "GraphBatch", "GraphClass", "GraphError", "GraphLike",
           "as_batch", "latent_projection", "to_cpdag"]
