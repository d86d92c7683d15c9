"""Causal graphs in the universal {-1, 0, 1} notation of Rehak et al. (paper 003, Sec. 3.1).

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
(no self-loops). Paper 003 reads ``m[i, j]`` as the edge ``e_{i,j}`` "from i to j"
being present (1), absent (0) or undirected (-1): the same matrix.

The encoding does not tell a CPDAG's undirected edge from a PAG's ``o-o`` edge,
nor a tail-tail edge from an undirected one; paper 003 needs neither distinction.

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

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from functools import cached_property
from typing import Any

import numpy as np

ARROW, NONE, CIRCLE = 1, 0, -1


class GraphError(ValueError):
    """A graph, edge string or node name the kit cannot take. The message names the graph
    and the culprit (edge string, node, matrix entry, or graph of a batch) and says what
    was expected."""


class GraphClass(IntEnum):
    """What a mark matrix is, as the metrics need to know it (see :func:`classify`)."""

    DAG = 0  #: directed edges only, no directed cycle
    PDAG = 1  #: directed and undirected edges, no directed cycle (CPDAGs among them)
    CYCLIC = 2  #: directed and undirected edges only, with a directed cycle
    MIXED = 3  #: some bidirected or circle-marked edge (a MAG, PAG or ADMG)


CLASS_TEXT = {
    GraphClass.DAG: "a DAG",
    GraphClass.PDAG: "a CPDAG/PDAG (directed and undirected edges, no directed cycle)",
    GraphClass.CYCLIC: "a directed or partially directed graph with a directed cycle",
    GraphClass.MIXED: "a graph with bidirected or circle-marked edges (a MAG or PAG)",
}

#: the graph classes a learner declares (and a metric accepts), by name
GRAPH_CLASSES = ("DAG", "CPDAG", "PAG", "MAG")

#: edge token -> (mark at the left node's end, mark at the right node's end)
EDGE_MARKS: dict[str, tuple[int, int]] = {
    "->": (NONE, ARROW),
    "<-": (ARROW, NONE),
    "<->": (ARROW, ARROW),
    "-": (CIRCLE, CIRCLE),
    "--": (CIRCLE, CIRCLE),
    "o-o": (CIRCLE, CIRCLE),
    "o->": (CIRCLE, ARROW),
    "<-o": (ARROW, CIRCLE),
    "o-": (CIRCLE, NONE),
    "-o": (NONE, CIRCLE),
}
#: canonical token for each pair of marks, used when printing edges
_TOKEN = {marks: tok for tok, marks in EDGE_MARKS.items() if tok not in ("--", "o-o")}
_MIRROR = {"<-": "->", "<-o": "o->", "-o": "o-"}
#: marks the compact form (no spaces) may use: none has a circle, as node names may hold "o"
_COMPACT_MARKS = ("->", "<-", "<->", "-", "--")
_MARK_RUN = re.compile(r"[<>-]+")
_GRAMMAR = ("expected '<node> <mark> <node>' with spaces around the mark (marks: "
            + ", ".join(EDGE_MARKS) + ") or, without spaces, 'a->b', 'a<-b', 'a<->b', 'a-b'")


def node_names(nodes: Any, label: str) -> tuple[str, ...]:
    """Node names as a tuple of strings, or a :class:`GraphError` naming ``label`` and the name.

    A name is a ``str`` (an integer label, e.g. a DataFrame's column number, becomes its
    decimal string); it is not empty, not only whitespace, has no leading or trailing
    whitespace, and appears once."""
    if isinstance(nodes, str) or not isinstance(nodes, Iterable):
        raise GraphError(f"{label}: node names must be a sequence of strings, got {nodes!r}")
    out = []
    for v in nodes:
        if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
            v = str(v)
        elif not isinstance(v, str):
            raise GraphError(f"{label}: node name {v!r} is a {type(v).__name__}; expected a string")
        if not v.strip() or v != v.strip():
            raise GraphError(f"{label}: node name {v!r} (position {len(out)}) is empty or starts or ends "
                             "with whitespace; expected a non-empty name without surrounding spaces")
        out.append(v)
    if len(set(out)) != len(out):
        dup = sorted({v for v in out if out.count(v) > 1})
        raise GraphError(f"{label}: duplicate node names {dup}; each node needs its own name")
    return tuple(out)


def mark_stack(matrices: Any, nodes: tuple[str, ...], names: Sequence[str], label: str) -> np.ndarray:
    """A validated read-only int8 copy of a (B, N, N) stack of mark matrices.

    Refuses (with a :class:`GraphError` naming ``label``, the graph and the entry by its
    nodes) a wrong shape, non-numeric dtypes, entries other than -1, 0, 1 (NaN, inf, 0.5,
    2, ...) and a nonzero diagonal (a self-loop). Integer stacks are range-checked by one
    min/max pass; the caller's array is never modified or frozen."""
    m = np.asarray(matrices)
    n = len(nodes)
    if m.ndim != 3 or m.shape[1:] != (n, n):
        shape = m.shape[1:] if m.ndim == 3 else m.shape
        raise GraphError(f"{label}: expected a square {n}x{n} matrix (a row and a column per node), got shape {shape}")
    if m.dtype.kind == "O":  # e.g. numbers in an object column: take them if they are numbers
        try:
            m = m.astype(float)
        except (TypeError, ValueError):
            pass
    if m.dtype.kind not in "biuf":
        raise GraphError(f"{label}: matrix holds {m.dtype} values; expected the numbers -1, 0, 1")
    if m.dtype.kind in "iu":
        bad_any = m.size > 0 and (m.min() < -1 or m.max() > 1)
    else:
        bad_any = m.dtype.kind == "f" and not ((m == -1) | (m == 0) | (m == 1)).all()
    if bad_any:
        b, i, j = (int(x[0]) for x in np.nonzero(~((m == -1) | (m == 0) | (m == 1))))
        raise GraphError(f"{label}: {_who(names, b)}entry [{nodes[i]}, {nodes[j]}] is {m[b, i, j].item()!r}; "
                         "expected -1, 0 or 1")
    diag = np.diagonal(m, axis1=1, axis2=2)
    if diag.any():
        b, i = (int(x[0]) for x in np.nonzero(diag))
        raise GraphError(f"{label}: {_who(names, b)}self-loop at node {nodes[i]!r} (diagonal entry "
                         f"{m[b, i, i].item()!r}); the diagonal must be 0")
    out = np.array(m, dtype=np.int8)  # always a copy: the caller keeps a writable array
    out.setflags(write=False)
    return out


def _who(names: Sequence[str], b: int) -> str:
    """The graph of a batch an error is about (``names`` empty: the label names it already)."""
    return f"graph {names[b]!r}: " if names else ""


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
def to_cpdag(dag: CausalGraph) -> CausalGraph:
    """The CPDAG (essential graph) of a DAG's Markov equivalence class.

    Keeps the skeleton, orients the v-structures ``a -> c <- b`` (a, b non-adjacent)
    and then closes under Meek's (1995) rules R1-R3, which suffice when starting from
    the v-structures of a DAG. Every other edge becomes undirected.
    """
    dag.require_dag("to_cpdag")
    d = dag.directed_matrix()
    adj = d | d.T
    n = dag.n
    # compelled[i, j]: i -> j is oriented in the CPDAG
    compelled = np.zeros((n, n), dtype=bool)
    for c in range(n):
        parents = np.flatnonzero(d[:, c])
        for x in range(len(parents)):
            for y in range(x + 1, len(parents)):
                a, b = parents[x], parents[y]
                if not adj[a, b]:
                    compelled[a, c] = compelled[b, c] = True
    changed = True
    while changed:
        changed = False
        undirected = adj & ~compelled & ~compelled.T
        for i, j in zip(*np.nonzero(undirected)):
            if compelled[i, j] or compelled[j, i]:
                continue
            # R1: k -> i - j with k, j non-adjacent  =>  i -> j
            r1 = np.any(compelled[:, i] & ~adj[:, j] & (np.arange(n) != j))
            # R2: i -> k -> j and i - j  =>  i -> j
            r2 = np.any(compelled[i, :] & compelled[:, j])
            # R3: i - k1 -> j, i - k2 -> j, k1, k2 non-adjacent, i - j  =>  i -> j
            ks = np.flatnonzero(undirected[i, :] & compelled[:, j])
            r3 = any(not adj[a, b] for x, a in enumerate(ks) for b in ks[x + 1:])
            if r1 or r2 or r3:
                compelled[i, j] = True
                changed = True
    m = np.where(compelled, ARROW, 0)
    m = np.where(adj & ~compelled & ~compelled.T, CIRCLE, m).astype(np.int8)
    return CausalGraph(dag.nodes, m, f"CPDAG({dag.name})")


def latent_projection(dag: CausalGraph, latent: Iterable[str], name: str | None = None) -> CausalGraph:
    """The MAG over the observed variables of a DAG with the given latent variables.

    Richardson and Spirtes (2002, Ancestral graph Markov models, Sec. 4.2.1), no
    selection variables: observed a, b are adjacent iff there is an inducing path
    between them relative to the latents, which holds iff they are d-connected given
    ``Z = (An({a, b}) & O) \\ {a, b}`` (their Theorem 4.2 / Lemma used by ``dag2mag``).
    The edge is ``a -> b`` if a is an ancestor of b in the DAG, ``b -> a`` if b is one
    of a, and ``a <-> b`` otherwise.
    """
    import networkx as nx

    dag.require_dag("latent_projection")
    if isinstance(latent, str):
        raise GraphError(f"graph {dag.name!r}: latent variables given as one string {latent!r}; "
                         "expected a list of node names")
    latent = list(latent)
    for v in latent:
        dag.index(v)
    observed = [v for v in dag.nodes if v not in set(latent)]
    g = nx.DiGraph(dag.directed_edges())
    g.add_nodes_from(dag.nodes)
    anc = {v: nx.ancestors(g, v) for v in dag.nodes}
    obs = set(observed)
    m = np.zeros((len(observed), len(observed)), dtype=np.int8)
    for x, a in enumerate(observed):
        for y in range(x + 1, len(observed)):
            b = observed[y]
            z = ((anc[a] | anc[b]) & obs) - {a, b}
            if nx.is_d_separator(g, {a}, {b}, z):
                continue
            a_anc_b, b_anc_a = a in anc[b], b in anc[a]
            m[x, y] = ARROW if not b_anc_a else NONE
            m[y, x] = ARROW if not a_anc_b else NONE
    return CausalGraph(tuple(observed), m, name or f"MAG({dag.name}; latent {', '.join(latent)})")


# ---------------------------------------------------------------------- helpers
def _parse_edge(text: Any, label: str) -> tuple[str, tuple[int, int], str]:
    """(node, (mark at its end, mark at the other's end), node) of one edge string, by the
    grammar of :meth:`CausalGraph.from_edges`; a :class:`GraphError` otherwise."""
    if not isinstance(text, str):
        raise GraphError(f"{label}: edge {text!r} is a {type(text).__name__}; expected a string such as "
                         "'a -> b' (pairs (u, v) go to CausalGraph.from_edge_lists)")
    tokens = text.split()
    bad = f"{label}: cannot read edge {text!r}:"
    if len(tokens) == 3:
        a, mark, b = tokens
        if mark not in EDGE_MARKS:
            raise GraphError(f"{bad} {mark!r} is not an edge mark; {_GRAMMAR}")
        for v in (a, b):
            if "<" in v or ">" in v or v[0] == "-" or v[-1] == "-":
                raise GraphError(f"{bad} node {v!r} holds '<' or '>' or starts or ends with '-' (a chain such as "
                                 f"'a->b->c'? one edge per string); {_GRAMMAR}")
        return a, EDGE_MARKS[mark], b
    if len(tokens) != 1:
        raise GraphError(f"{bad} {'it is empty' if not tokens else f'{len(tokens)} words'}; {_GRAMMAR}")
    token = tokens[0]
    runs = list(_MARK_RUN.finditer(token))
    if len(runs) != 1:
        raise GraphError(f"{bad} {'no' if not runs else 'more than one'} edge mark (one edge per string; a node "
                         f"name with '-' needs spaces around the mark, e.g. 'x-ray -> b'); {_GRAMMAR}")
    run = runs[0]
    mark, a, b = run.group(), token[:run.start()], token[run.end():]
    if mark not in _COMPACT_MARKS:
        raise GraphError(f"{bad} {mark!r} is not an edge mark; {_GRAMMAR}")
    if not a or not b:
        raise GraphError(f"{bad} no node {'before' if not a else 'after'} {mark!r}; {_GRAMMAR}")
    readings = [f"'{a} {mark} {b}'"]
    if a[-1] == "o" and len(a) > 1 and "o" + mark in EDGE_MARKS:
        readings.append(f"'{a[:-1]} o{mark} {b}'")
    if b[0] == "o" and len(b) > 1 and mark + "o" in EDGE_MARKS:
        readings.append(f"'{a} {mark}o {b[1:]}'")
    if len(readings) == 3 and f"o{mark}o" in EDGE_MARKS:
        readings.append(f"'{a[:-1]} o{mark}o {b[1:]}'")
    if len(readings) > 1:
        raise GraphError(f"{bad} ambiguous, an 'o' touching the mark may be a letter or a circle mark: "
                         f"{' or '.join(readings)}? Write it with spaces around the mark")
    return a, EDGE_MARKS[mark], b


def _integer_label(v: Any) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _lookup(index: dict[str, int], node: Any, label: str) -> int:
    try:
        return index[str(node) if _integer_label(node) else node]
    except (KeyError, TypeError):
        known = list(index) if len(index) <= 20 else f"{len(index)} nodes"
        raise GraphError(f"{label}: edge mentions {node!r}, not among its nodes {known}") from None


def _square(matrix: Any, nodes: tuple[str, ...], label: str) -> np.ndarray:
    """One validated read-only N x N mark matrix (:func:`mark_stack` on a stack of one).

    A labelled matrix (a pandas DataFrame) is aligned by its labels, never read by position:
    its row and column labels (as strings) must each be the nodes, in any order."""
    if hasattr(matrix, "index") and hasattr(matrix, "columns"):
        matrix = _aligned(matrix, nodes, label)
    m = np.asarray(matrix)
    if m.ndim != 2:
        raise GraphError(f"{label}: expected a square {len(nodes)}x{len(nodes)} matrix, got shape {m.shape}")
    return mark_stack(m[None], nodes, (), label)[0]


def _aligned(frame: Any, nodes: tuple[str, ...], label: str) -> np.ndarray:
    """The values of a DataFrame ``frame`` with rows and columns put in ``nodes`` order by label."""
    axes = {"row": [str(v) for v in frame.index], "column": [str(v) for v in frame.columns]}
    for axis, labels in axes.items():
        if sorted(labels) != sorted(nodes):
            raise GraphError(f"{label}: the matrix's {axis} labels {labels} are not the nodes {list(nodes)}; a "
                             "DataFrame is aligned by its labels (pass .to_numpy() to read it in node order)")
    rows, cols = ([labels.index(v) for v in nodes] for labels in axes.values())
    return np.asarray(frame)[np.ix_(rows, cols)]


def _permutation(current: Sequence[str], target: Sequence[str], label: str) -> list[int]:
    """Indices that put ``current`` in ``target`` order; a GraphError if the sets differ."""
    if set(target) != set(current) or len(target) != len(current):
        missing = sorted(set(target) - set(current))
        extra = sorted(set(current) - set(target))
        raise GraphError(
            f"{label}: node sets differ (missing {missing}, unexpected {extra}); "
            "metrics compare graphs on the same variables"
        )
    return [list(current).index(v) for v in target]


def classify(m: np.ndarray) -> np.ndarray:
    """The :class:`GraphClass` code (int8) of every graph of a (B, N, N) mark stack.

    Vectorized over the batch, with the costly checks only where needed: a graph with no
    -1 entry is a DAG iff its arrowheads (entries 1) have no directed cycle, because a
    bidirected edge is a cycle of two arrowheads; only graphs with -1 entries or a cycle
    are tested for bidirected edges and for circle marks without a matching circle
    (``o->``, ``o-``), which make them MIXED.
    """
    b = len(m)
    circles = (m.reshape(b, -1).min(axis=1) < 0) if m.size else np.zeros(b, bool)
    cyclic = ~_acyclic(m == ARROW if circles.any() else m)  # no -1 entry: nonzero means arrowhead
    codes = np.where(cyclic, GraphClass.CYCLIC, np.where(circles, GraphClass.PDAG, GraphClass.DAG)).astype(np.int8)
    check = np.flatnonzero(circles | cyclic)
    if check.size:
        s = m[check]
        t = np.swapaxes(s, 1, 2)
        odd = ((s == ARROW) & (t == ARROW)) | ((s == CIRCLE) & (t != CIRCLE))
        codes[check[odd.reshape(len(check), -1).any(axis=1)]] = GraphClass.MIXED
    return codes


def _bitsets(x: np.ndarray) -> np.ndarray:
    """(..., N) booleans as (..., ceil(N / 64)) uint64 bit sets: bit k of word w is entry 64 w + k.

    Rows are padded to whole bytes and packed as one flat array (``np.packbits`` along a
    short last axis is ten times slower), then padded to whole words."""
    n = x.shape[-1]
    if n % 8:
        x = _pad_last(x, 8 * -(-n // 8))
    p = np.packbits(x.reshape(-1), bitorder="little").reshape(x.shape[:-1] + (-1,))
    return _pad_last(p, 8 * -(-n // 64)).view("<u8")


def _pad_last(x: np.ndarray, size: int) -> np.ndarray:
    """``x`` with its last axis zero-padded to ``size``."""
    if x.shape[-1] == size:
        return x
    out = np.zeros(x.shape[:-1] + (size,), x.dtype)
    out[..., :x.shape[-1]] = x
    return out


def _acyclic(d: np.ndarray) -> np.ndarray:
    """Whether each graph of a (B, N, N) stack (``d[b, i, j]`` nonzero: an arrow i -> j) has
    no directed cycle, vectorized over the batch.

    Peels sinks round by round: every node none of whose children remains is removed. A
    DAG always has a sink, so it loses all its nodes; the nodes of a cycle never become
    sinks. Children and remaining nodes are 64-bit bit sets, so a round costs
    B * N * N / 64 word operations, and a graph leaves the loop once empty or once a
    round removes nothing.
    """
    b, n = d.shape[:2]
    acyclic = np.ones(b, bool)
    if n == 0:
        return acyclic
    children = np.ascontiguousarray(np.moveaxis(_bitsets(d), 2, 0))  # (words, B, N): word-major
    remaining = _bitsets(np.ones((b, n), bool))
    todo = np.arange(b)
    while todo.size:
        # a remaining node stays iff it has a remaining child (a removed node has none left)
        stays = (children[0] & remaining[:, None, 0]) != 0
        for w in range(1, len(children)):  # word by word: no reduction over a short axis
            stays |= (children[w] & remaining[:, None, w]) != 0
        after = _bitsets(stays)
        left, progressed = _any_word(after), _any_word(after ^ remaining)
        acyclic[todo[left & ~progressed]] = False
        going = left & progressed
        if not going.all():
            todo, children, after = todo[going], children[:, going], after[going]
        remaining = after
    return acyclic


def _any_word(x: np.ndarray) -> np.ndarray:
    """Per row of a (B, W) word array, whether any bit is set."""
    acc = x[:, 0].copy()
    for w in range(1, x.shape[1]):
        acc |= x[:, w]
    return acc != 0


def _is_acyclic(d: np.ndarray) -> bool:
    """:func:`_acyclic` of one boolean adjacency matrix."""
    return bool(_acyclic(d[None])[0])


def _directed_cycle(d: np.ndarray) -> list[int]:
    """One directed cycle of a boolean adjacency matrix as node indices, its first node
    repeated at the end: peel sinks, then walk along remaining children until a node repeats."""
    alive = np.ones(len(d), bool)
    while (sinks := alive & ~(d & alive).any(axis=1)).any():
        alive &= ~sinks
    path: list[int] = []
    v = int(np.flatnonzero(alive)[0])
    while v not in path:
        path.append(v)
        v = int(np.flatnonzero(d[v] & alive)[0])
    return path[path.index(v):] + [v]


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
