"""Graphs: :class:`CausalGraph` (node names and the {-1, 0, 1} mark matrix of Rehak et al. 2024,
Sec. 3.1; :mod:`~causaleval.graphs.core`), the marks and graph classes
(:mod:`~causaleval.graphs.marks`), the edge grammar and validation on entry
(:mod:`~causaleval.graphs.grammar`), conversions (:mod:`~causaleval.graphs.conversions`), batches
(:mod:`~causaleval.graphs.batch`) and the members of an equivalence class
(:mod:`~causaleval.graphs.extensions`)."""

from causaleval.graphs.batch import GraphBatch, GraphLike, as_batch
from causaleval.graphs.conversions import latent_projection, to_cpdag
from causaleval.graphs.core import CausalGraph
from causaleval.graphs.grammar import EDGE_MARKS
from causaleval.graphs.marks import (
    ARROW, CIRCLE, CLASS_TEXT, GRAPH_CLASSES, NONE, GraphClass, GraphError, _acyclic, _is_acyclic, classify,
)

__all__ = ["ARROW", "CIRCLE", "CLASS_TEXT", "EDGE_MARKS", "GRAPH_CLASSES", "NONE", "CausalGraph", "GraphBatch",
           "GraphClass", "GraphError", "GraphLike", "_acyclic", "_is_acyclic", "as_batch", "classify",
           "latent_projection", "to_cpdag"]
