"""Batches of graphs on one node set: one validated, immutable ``B x N x N`` stack, classified
once (:func:`~causaleval.graphs.marks.classify`), for the vectorized metrics."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from causaleval.graphs.core import CausalGraph
from causaleval.graphs.grammar import _permutation, mark_stack, node_names
from causaleval.graphs.marks import GraphError, classify

@dataclass(frozen=True, eq=False)
class GraphBatch:
    """A stack of graphs on one node order: ``matrices[b]`` is graph b's mark matrix.

    The batch form every metric vectorizes over. Build it with :meth:`from_graphs`
    (aligns each graph to one node order by name) or directly from a (B, N, N) array,
    which is validated in one vectorized pass (:func:`mark_stack`; node names by
    :func:`node_names`) and copied, so the batch is immutable and the caller's array
    stays as it was. Its :attr:`classes` are computed once, when a metric first needs them.
    """

    nodes: tuple[str, ...]
    matrices: np.ndarray
    names: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        label = "graph batch"
        nodes = node_names(self.nodes, label)
        m = np.asarray(self.matrices)
        if m.ndim != 3 or m.shape[0] == 0:
            raise GraphError(f"{label}: expected a (B, {len(nodes)}, {len(nodes)}) stack of at least one "
                             f"matrix, got shape {m.shape}")
        names = tuple(map(str, self.names)) or tuple(f"graph {b}" for b in range(m.shape[0]))
        if len(names) != m.shape[0]:
            raise GraphError(f"{label}: {len(names)} names for {m.shape[0]} graphs")
        object.__setattr__(self, "nodes", nodes)
        object.__setattr__(self, "matrices", mark_stack(m, nodes, names, label))
        object.__setattr__(self, "names", names)

    @cached_property
    def classes(self) -> np.ndarray:
        """The :class:`GraphClass` code of every graph (read-only int8), computed once."""
        codes = classify(self.matrices)
        codes.setflags(write=False)
        return codes

    @classmethod
    def from_graphs(cls, graphs: Iterable[CausalGraph], nodes: Sequence[str] | None = None) -> GraphBatch:
        graphs = list(graphs)
        if not graphs:
            raise GraphError("graph batch: no graphs given")
        for g in graphs:
            if not isinstance(g, CausalGraph):
                raise GraphError(f"graph batch: {g!r:.80} is a {type(g).__name__}; expected CausalGraphs")
        order = node_names(nodes, "graph batch") if nodes is not None else graphs[0].nodes
        mats = np.stack([g.reorder(order).matrix for g in graphs])
        return cls(order, mats, tuple(g.name for g in graphs))

    def __len__(self) -> int:
        return self.matrices.shape[0]

    def __reduce__(self) -> tuple:
        """Pickle through the constructor, so a copy comes back checked and read-only."""
        return type(self), (self.nodes, self.matrices, self.names)

    def __getitem__(self, b: int) -> CausalGraph:
        return CausalGraph(self.nodes, self.matrices[b], self.names[b])

    def __iter__(self):
        return (self[b] for b in range(len(self)))

    def reorder(self, nodes: Sequence[str]) -> GraphBatch:
        """The same graphs with nodes in the given order (node sets must match)."""
        nodes = node_names(nodes, "graph batch")
        if nodes == self.nodes:
            return self
        p = _permutation(self.nodes, nodes, "graph batch")
        out = GraphBatch(nodes, self.matrices[:, p][:, :, p], self.names)
        if "classes" in self.__dict__:  # a relabelling keeps every graph's class
            out.__dict__["classes"] = self.classes
        return out


GraphLike = CausalGraph | GraphBatch | Sequence[CausalGraph]


def as_batch(graphs: GraphLike, nodes: Sequence[str] | None = None) -> GraphBatch:
    """Any graph, list of graphs or batch as a :class:`GraphBatch`, in ``nodes`` order."""
    if isinstance(graphs, GraphBatch):
        return graphs if nodes is None else graphs.reorder(nodes)
    if isinstance(graphs, CausalGraph):
        graphs = [graphs]
    elif isinstance(graphs, (str, np.ndarray)) or not isinstance(graphs, Iterable):
        raise GraphError(f"expected a CausalGraph, a GraphBatch or a list of CausalGraphs, "
                         f"got a {type(graphs).__name__}")
    return GraphBatch.from_graphs(graphs, nodes)
