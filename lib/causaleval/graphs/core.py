"""Causal graphs in the universal {-1, 0, 1} notation of Rehak et al. (2024, Sec. 3.1).

Encoding
--------
A graph on nodes ``v_0 .. v_{N-1}`` is an ``N x N`` int8 matrix ``m`` in which
``m[i, j]`` is the *mark at the j end* of the edge between i and j:

====  =====================================================
 1    arrowhead at j
 0    no edge, or a tail at j
-1    circle at j (an undirected / unknown end)
====  =====================================================

So ``a -> b``: m[a,b]=1, m[b,a]=0; ``a <-> b``: both 1; ``a - b`` (CPDAG) and
``a o-o b`` (PAG): both -1; ``a o-> b``: m[a,b]=1, m[b,a]=-1. The diagonal is 0
(no self-loops). Rehak et al. (2024) reads ``m[i, j]`` as the edge ``e_{i,j}`` "from i to j"
being present (1), absent (0) or undirected (-1): the same matrix.

The encoding does not tell a CPDAG's undirected edge from a PAG's ``o-o`` edge,
nor a tail-tail edge from an undirected one; Rehak et al. (2024) needs neither distinction.

Converters: edge strings, pgmpy DAG/PDAG, causal-learn ``GeneralGraph`` (CPDAG and
PAG endpoints), networkx, and gadjid's int8 input. Algorithms: DAG -> CPDAG
(v-structures plus Meek's rules R1-R3) and the latent projection of a DAG onto
observed variables, which gives the MAG (Richardson and Spirtes 2002).

Validation happens here, on entry, once per input kind: node names (:func:`node_names`),
mark matrices and stacks (:func:`mark_stack`), edge strings (the grammar in
:meth:`CausalGraph.from_edges`) and edge lists. Every refusal is a :class:`GraphError`
(a ``ValueError``) naming the graph and the edge string, node or entry. The class of a
graph (:class:`GraphClass`: DAG, PDAG, with a directed cycle, or mixed) is computed by
:func:`classify`, vectorized over a batch and cached, for the metrics that need one.
"""


from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from causaleval.graphs.grammar import (
    _MIRROR, _TOKEN, _lookup, _parse_edge, _permutation, _square, node_names,
)
from causaleval.graphs.marks import ARROW, CIRCLE, NONE, GraphClass, GraphError, _directed_cycle, classify

@dataclass(frozen=True, eq=False)
class CausalGraph:
    """Node names plus the {-1, 0, 1} mark matrix (see the module docstring).

    Build one with :meth:`from_edges`, :meth:`from_pgmpy`, :meth:`from_causallearn`,
    :meth:`from_networkx` or directly from a matrix. Immutable (the matrix is a read-only
    copy); ``name`` is only used in error messages and reports. Node names and the matrix
    are checked on entry (:func:`node_names`, :func:`mark_stack`); a
    :class:`GraphError` names what is wrong.
    """

    nodes: tuple[str, ...]
    matrix: np.ndarray
    name: str = field(default="graph")

    def __post_init__(self) -> None:
        label = f"graph {self.name!r}"
        nodes = node_names(self.nodes, label)
        object.__setattr__(self, "nodes", nodes)
        object.__setattr__(self, "matrix", _square(self.matrix, nodes, label))

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_edges(
        cls, edges: Iterable[str], nodes: Sequence[str] | None = None, name: str = "graph"
    ) -> CausalGraph:
        """Build from edge strings such as ``"a->b"``, ``"a <-> b"``, ``"x-ray - b"``, ``"a o-> b"``.

        Grammar of one edge string (surrounding whitespace is ignored)::

            edge     = node, spaces, mark, spaces, node      (spaced form)
                     | node, compact-mark, node             (compact form, no whitespace)
            mark     = "->" | "<-" | "<->" | "-" | "--" | "o->" | "<-o" | "o-o" | "o-" | "-o"
            compact-mark = "->" | "<-" | "<->" | "-" | "--"
            node     = one or more characters, no whitespace, no "<" or ">", not starting
                       or ending with "-"; in the compact form no "-" at all

        ``-`` and ``--`` are the undirected (CPDAG) edge, ``o-o`` the PAG's (both are -1 at
        both ends). So a name with a hyphen is written with spaces (``"x-ray -> dysp"``);
        ``"a->b->c"``, ``"a-->b"``, ``"a->"`` or ``"a - > b"`` are refused, never read as
        other nodes. Circle marks exist only in the spaced form, and a compact string whose
        node touches the mark with an ``o`` that would make a circle mark (``"ao->b"``:
        ``ao -> b`` or ``a o-> b``?) is refused as ambiguous. Names with whitespace, ``<`` or
        ``>`` cannot be written here: use :meth:`from_edge_lists` or the constructor.

        ``nodes`` fixes the node order and may add isolated nodes; otherwise nodes appear
        in the order first mentioned. At most one edge per pair of nodes (``"a->b"`` with
        ``"b->a"`` is refused: write ``"a <-> b"`` for a bidirected edge). Every refusal
        is a :class:`GraphError` naming the graph and the edge string.
        """
        label = f"graph {name!r}"
        if isinstance(edges, str):
            raise GraphError(f"{label}: edges given as one string {edges!r}; expected a list of edge strings")
        parsed = [(e, *_parse_edge(e, label)) for e in edges]
        order = list(node_names(nodes, label)) if nodes is not None else []
        known = set(order)
        for e, a, _, b in parsed:
            for v in (a, b):
                if v not in known:
                    if nodes is not None:
                        raise GraphError(f"{label}: edge {e!r} mentions {v!r}, not among the given nodes {order}")
                    order.append(v)
                    known.add(v)
        index = {v: i for i, v in enumerate(order)}
        m = np.zeros((len(order), len(order)), dtype=np.int8)
        given: dict[frozenset[int], str] = {}
        for e, a, (mark_a, mark_b), b in parsed:
            i, j = index[a], index[b]
            if i == j:
                raise GraphError(f"{label}: edge {e!r} is a self-loop on {a!r}; an edge joins two distinct nodes")
            pair = frozenset((i, j))
            if pair in given:
                raise GraphError(f"{label}: edges {given[pair]!r} and {e!r} both join {a!r} and {b!r}; at most "
                                 "one edge per pair (write 'a <-> b' for a bidirected edge)")
            given[pair] = e
            m[j, i], m[i, j] = mark_a, mark_b
        return cls(tuple(order), m, name)

    @classmethod
    def empty(cls, nodes: Sequence[str], name: str = "empty") -> CausalGraph:
        return cls(tuple(nodes), np.zeros((len(nodes), len(nodes)), dtype=np.int8), name)

    @classmethod
    def from_adjacency(
        cls, adjacency: Any, nodes: Sequence[str], name: str = "graph"
    ) -> CausalGraph:
        """From a 0/1 adjacency matrix, ``a[i, j] = 1`` meaning ``i -> j``.

        A pair with both ``a[i, j]`` and ``a[j, i]`` set becomes undirected ``i - j``
        (the convention of pgmpy's PDAG and of most CPDAG matrices).
        """
        label = f"graph {name!r}"
        names = node_names(nodes, label)
        a = _square(adjacency, names, label)
        if (a < 0).any():
            i, j = (int(x[0]) for x in np.nonzero(a < 0))
            raise GraphError(f"{label}: adjacency entry [{names[i]}, {names[j]}] is -1; expected 0 or 1")
        both = (a == 1) & (a.T == 1)
        return cls(names, np.where(both, CIRCLE, a).astype(np.int8), name)

    @classmethod
    def from_pgmpy(cls, model: Any, name: str = "graph") -> CausalGraph:
        """From a pgmpy ``DAG``, ``DiscreteBayesianNetwork`` or ``PDAG``."""
        directed = getattr(model, "directed_edges", None)
        undirected = getattr(model, "undirected_edges", None)
        if directed is None:
            directed, undirected = list(model.edges()), []
        return cls.from_edge_lists(list(model.nodes()), directed, undirected, name)

    @classmethod
    def from_edge_lists(
        cls,
        nodes: Sequence[str],
        directed: Iterable[tuple[Any, Any]],
        undirected: Iterable[tuple[Any, Any]] = (),
        name: str = "graph",
    ) -> CausalGraph:
        """From lists of directed ``(u, v)`` (meaning u -> v) and undirected pairs.

        Names follow :func:`node_names` (integer labels become strings, in ``nodes`` and in
        the pairs alike). A self-loop, a pair given twice, in both directions or both
        directed and undirected is refused with a :class:`GraphError`."""
        label = f"graph {name!r}"
        names = node_names(nodes, label)
        index = {v: i for i, v in enumerate(names)}
        m = np.zeros((len(names), len(names)), dtype=np.int8)
        given: dict[frozenset[int], str] = {}
        for kind, pairs, marks in (("directed", directed, (ARROW, NONE)), ("undirected", undirected, (CIRCLE, CIRCLE))):
            for pair in pairs:
                try:
                    u, v = (None, None, None) if isinstance(pair, (str, bytes)) else pair
                except (TypeError, ValueError):
                    raise GraphError(f"{label}: {kind} edge {pair!r} is not a pair (u, v)") from None
                i, j = _lookup(index, u, label), _lookup(index, v, label)
                edge = f"{kind} edge {(u, v)!r}"
                if i == j:
                    raise GraphError(f"{label}: {edge} is a self-loop; an edge joins two distinct nodes")
                if frozenset((i, j)) in given:
                    raise GraphError(f"{label}: {edge} joins the same nodes as {given[frozenset((i, j))]}; "
                                     "at most one edge per pair")
                given[frozenset((i, j))] = edge
                m[i, j], m[j, i] = marks
        return cls(names, m, name)

    @classmethod
    def from_causallearn(cls, graph: Any, name: str = "graph") -> CausalGraph:
        """From a causal-learn ``GeneralGraph`` (the ``G`` of PC's or FCI's result).

        causal-learn stores at ``graph[x, y]`` the endpoint at *x's* end
        (-1 tail, 1 arrow, 2 circle), the transpose of this kit's layout. A tail-tail
        edge (PC's undirected edge) becomes -1 at both ends.
        """
        g = np.asarray(graph.graph)
        nodes = [n.get_name() for n in graph.get_nodes()]
        unknown = sorted(set(np.unique(g).tolist()) - {-1, 0, 1, 2})
        if unknown:
            raise GraphError(f"graph {name!r}: unknown causal-learn endpoint codes {unknown}; expected -1, 1, 2")
        end = g.T  # end[x, y] = endpoint at y's end
        m = np.select([end == 1, end == 2], [ARROW, CIRCLE], NONE).astype(np.int8)
        tail_tail = (end == -1) & (end.T == -1)
        m[tail_tail] = CIRCLE
        return cls(tuple(nodes), m, name)

    @classmethod
    def from_networkx(cls, graph: Any, name: str = "graph") -> CausalGraph:
        """From a networkx graph.

        ``nx.Graph``: every edge undirected. ``nx.DiGraph``: if the edges carry a
        ``mark`` attribute (as :meth:`to_networkx` writes), edge ``(u, v)`` puts that
        mark at v's end; otherwise ``u -> v``, and a reciprocal pair is undirected.
        Some edges with a ``mark`` and some without is refused.
        """
        label = f"graph {name!r}"
        nodes = list(graph.nodes())
        names = node_names(nodes, label)
        index = {v: i for i, v in enumerate(nodes)}
        m = np.zeros((len(nodes), len(nodes)), dtype=np.int8)
        if not graph.is_directed():
            for u, v in graph.edges():
                m[index[u], index[v]] = m[index[v], index[u]] = CIRCLE
            return cls(names, m, name)
        edges = list(graph.edges(data=True))
        marked = [d.get("mark") is not None for _, _, d in edges]
        if edges and all(marked):
            marks = np.zeros(m.shape)
            for u, v, d in edges:
                if isinstance(d["mark"], (bool, np.bool_)) or not isinstance(d["mark"], (int, float, np.number)):
                    raise GraphError(f"{label}: edge ({u!r}, {v!r}) has mark {d['mark']!r}; expected -1, 0 or 1")
                marks[index[u], index[v]] = d["mark"]
            return cls(names, marks, name)  # the constructor checks the values
        if any(marked):
            u, v, _ = edges[marked.index(False)]
            raise GraphError(f"{label}: edge ({u!r}, {v!r}) has no 'mark' attribute while others have one; "
                             "expected marks on every edge or on none")
        import networkx as nx

        return cls.from_adjacency(nx.to_numpy_array(graph, nodelist=nodes, weight=None) != 0, names, name)

    # ------------------------------------------------------------------ export
    def edges(self) -> list[str]:
        """Edge strings, e.g. ``["asia -> tub", "lung <-> bronc"]``, arrows pointing right."""
        return [self._edge_text(i, j) for i, j in zip(*np.nonzero(np.triu(self.skeleton(), 1)))]

    def _edge_text(self, i: int, j: int) -> str:
        """The edge between nodes i and j as a string, arrows pointing right."""
        m = self.matrix
        token = _TOKEN[(int(m[j, i]), int(m[i, j]))]
        if token in _MIRROR:  # print "b -> a" rather than "a <- b"
            i, j, token = j, i, _MIRROR[token]
        return f"{self.nodes[i]} {token} {self.nodes[j]}"

    def to_networkx(self) -> Any:
        """``nx.DiGraph`` with an edge (u, v) carrying ``mark=m[u, v]`` for every nonzero mark,
        plus ``mark=0`` edges for tails of directed edges, so it round-trips."""
        import networkx as nx

        g = nx.DiGraph()
        g.add_nodes_from(self.nodes)
        adj = (self.matrix != 0) | (self.matrix.T != 0)
        for i, j in zip(*np.nonzero(adj)):
            g.add_edge(self.nodes[i], self.nodes[j], mark=int(self.matrix[i, j]))
        return g

    def to_pgmpy(self) -> Any:
        """A pgmpy ``DAG`` (for a DAG) or ``PDAG`` (for a CPDAG-like graph)."""
        from pgmpy.base import DAG, PDAG

        if self.is_dag():
            dag = DAG()
            dag.add_nodes_from(self.nodes)
            dag.add_edges_from(self.directed_edges())
            return dag
        self._require_cpdag_like("to_pgmpy")
        return PDAG(directed_ebunch=self.directed_edges(), undirected_ebunch=self.undirected_edges())

    def to_gadjid(self) -> np.ndarray:
        """gadjid's int8 input (``edge_direction="from row to column"``):
        1 for ``i -> j``, 2 for ``i - j``. Only DAGs and CPDAG-like graphs have one."""
        self._require_cpdag_like("to_gadjid")
        d = np.ascontiguousarray(self.directed_matrix(), dtype=np.int8)  # gadjid wants C order
        d[self.undirected_matrix()] = 2
        return d

    # ------------------------------------------------------------------ views
    @property
    def n(self) -> int:
        return len(self.nodes)

    def index(self, node: str) -> int:
        try:
            return self.nodes.index(node)
        except ValueError:
            raise GraphError(f"graph {self.name!r} has no node {node!r}; its nodes: {list(self.nodes)}") from None

    def directed_matrix(self) -> np.ndarray:
        """Boolean ``d[i, j]``: the edge ``i -> j`` (arrow at j, tail at i)."""
        m = self.matrix
        return (m == ARROW) & (m.T == NONE)

    def undirected_matrix(self) -> np.ndarray:
        """Boolean, symmetric: the edge ``i - j`` (circle marks at both ends)."""
        m = self.matrix
        return (m == CIRCLE) & (m.T == CIRCLE)

    def skeleton(self) -> np.ndarray:
        """Boolean, symmetric adjacency."""
        return (self.matrix != 0) | (self.matrix.T != 0)

    def directed_edges(self) -> list[tuple[str, str]]:
        return [(self.nodes[i], self.nodes[j]) for i, j in zip(*np.nonzero(self.directed_matrix()))]

    def undirected_edges(self) -> list[tuple[str, str]]:
        u = np.triu(self.undirected_matrix(), 1)
        return [(self.nodes[i], self.nodes[j]) for i, j in zip(*np.nonzero(u))]

    @cached_property
    def graph_class(self) -> GraphClass:
        """DAG, PDAG, CYCLIC or MIXED (:class:`GraphClass`), computed once."""
        return GraphClass(int(classify(self.matrix[None])[0]))

    def witness(self) -> str:
        """An edge or cycle that puts the graph in its class, for messages: ``"the directed
        cycle a -> b -> a"``, ``"the bidirected edge a <-> b"``, ``"the undirected edge a - b"``
        (empty for a DAG)."""
        m, cls = self.matrix, self.graph_class
        if cls == GraphClass.CYCLIC:
            return "the directed cycle " + " -> ".join(self.nodes[i] for i in _directed_cycle(m == ARROW))
        if cls == GraphClass.DAG:
            return ""
        odd = ((m == ARROW) & (m.T == ARROW)) | ((m == CIRCLE) & (m.T != CIRCLE))
        i, j = (int(x[0]) for x in np.nonzero(odd if cls == GraphClass.MIXED else m == CIRCLE))
        kind = "undirected" if cls == GraphClass.PDAG else "bidirected" if m[i, j] == m[j, i] else "partially oriented"
        return f"the {kind} edge {self._edge_text(i, j)}"

    def is_cpdag_like(self) -> bool:
        """Only directed and undirected edges (a DAG, CPDAG or PDAG, or such a graph with a
        directed cycle; no <-> nor circle-marked edge)."""
        return self.graph_class != GraphClass.MIXED

    def is_dag(self) -> bool:
        """Only directed edges and no directed cycle."""
        return self.graph_class == GraphClass.DAG

    def reorder(self, nodes: Sequence[str]) -> CausalGraph:
        """The same graph with its nodes in the given order (the node sets must match)."""
        nodes = node_names(nodes, f"graph {self.name!r}")
        if nodes == self.nodes:
            return self
        p = _permutation(self.nodes, nodes, f"graph {self.name!r}")
        return CausalGraph(nodes, self.matrix[np.ix_(p, p)], self.name)

    def renamed(self, name: str) -> CausalGraph:
        return CausalGraph(self.nodes, self.matrix, name)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CausalGraph) or set(other.nodes) != set(self.nodes):
            return False
        return bool(np.array_equal(other.reorder(self.nodes).matrix, self.matrix))

    def __hash__(self) -> int:
        return hash((self.nodes, self.matrix.tobytes()))

    def __reduce__(self) -> tuple:
        """Pickle through the constructor, so a copy comes back checked and read-only."""
        return type(self), (self.nodes, self.matrix, self.name)

    def __repr__(self) -> str:
        edges = self.edges()
        shown = ", ".join(edges[:8]) + (", ..." if len(edges) > 8 else "")
        return f"CausalGraph({self.name!r}, {self.n} nodes, {len(edges)} edges: {shown})"

    def _require_cpdag_like(self, what: str) -> None:
        """Refuse all but DAGs and CPDAGs/PDAGs (gadjid rejects a directed cycle with a bare RuntimeError)."""
        if self.graph_class not in (GraphClass.DAG, GraphClass.PDAG):
            raise GraphError(f"graph {self.name!r}: {what} needs a DAG or CPDAG (directed and undirected "
                             f"edges, no directed cycle), but it has {self.witness()}")

    def require_dag(self, what: str) -> None:
        """Raise a :class:`GraphError` naming the graph and its offending edge or cycle unless it is a DAG."""
        if not self.is_dag():
            raise GraphError(f"graph {self.name!r}: {what} needs a DAG, but the graph has {self.witness()}")


# ---------------------------------------------------------------------- algorithms
