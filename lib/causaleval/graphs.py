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
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

ARROW, NONE, CIRCLE = 1, 0, -1

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
_COMPACT = re.compile(r"^(?P<a>.+?)(?P<edge><->|<-|->|--|-)(?P<b>.+)$")


def _as_matrix(matrix: Any, name: str) -> np.ndarray:
    m = np.asarray(matrix)
    if m.ndim != 2 or m.shape[0] != m.shape[1]:
        raise ValueError(f"graph {name!r}: expected a square matrix, got shape {m.shape}")
    if not np.isin(m, (-1, 0, 1)).all():
        bad = sorted(set(np.unique(m).tolist()) - {-1, 0, 1})
        raise ValueError(f"graph {name!r}: matrix entries must be -1, 0 or 1, found {bad}")
    if np.any(np.diag(m) != 0):
        i = int(np.flatnonzero(np.diag(m))[0])
        raise ValueError(f"graph {name!r}: self-loop at node index {i} (the diagonal must be 0)")
    return m.astype(np.int8)


@dataclass(frozen=True, eq=False)
class CausalGraph:
    """Node names plus the {-1, 0, 1} mark matrix (see the module docstring).

    Build one with :meth:`from_edges`, :meth:`from_pgmpy`, :meth:`from_causallearn`,
    :meth:`from_networkx` or directly from a matrix. Immutable; ``name`` is only
    used in error messages and reports.
    """

    nodes: tuple[str, ...]
    matrix: np.ndarray
    name: str = field(default="graph")

    def __post_init__(self) -> None:
        nodes = tuple(str(v) for v in self.nodes)
        if len(set(nodes)) != len(nodes):
            dup = sorted({v for v in nodes if nodes.count(v) > 1})
            raise ValueError(f"graph {self.name!r}: duplicate node names {dup}")
        m = _as_matrix(self.matrix, self.name)
        if m.shape[0] != len(nodes):
            raise ValueError(
                f"graph {self.name!r}: {len(nodes)} node names for a {m.shape[0]}x{m.shape[0]} matrix"
            )
        m.setflags(write=False)
        object.__setattr__(self, "nodes", nodes)
        object.__setattr__(self, "matrix", m)

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_edges(
        cls, edges: Iterable[str], nodes: Sequence[str] | None = None, name: str = "graph"
    ) -> CausalGraph:
        """Build from strings such as ``"a->b"``, ``"a <-> b"``, ``"a - b"``, ``"a o-> b"``.

        Circle marks need spaces around the edge token (``"a o-o b"``) because node
        names may contain the letter o. ``nodes`` fixes the node order and may add
        isolated nodes; otherwise nodes appear in the order first mentioned.
        """
        parsed = [_parse_edge(e, name) for e in edges]
        order = list(nodes) if nodes is not None else []
        for a, _, b in parsed:
            for v in (a, b):
                if v not in order:
                    if nodes is not None:
                        raise ValueError(f"graph {name!r}: edge mentions {v!r}, not among the given nodes")
                    order.append(v)
        index = {v: i for i, v in enumerate(order)}
        m = np.zeros((len(order), len(order)), dtype=np.int8)
        for a, (mark_a, mark_b), b in parsed:
            i, j = index[a], index[b]
            if i == j:
                raise ValueError(f"graph {name!r}: self-loop {a!r} (edges need two distinct nodes)")
            if m[i, j] or m[j, i]:
                raise ValueError(f"graph {name!r}: more than one edge between {a!r} and {b!r}")
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
        a = np.asarray(adjacency)
        if a.ndim != 2 or a.shape[0] != a.shape[1] or not np.isin(a, (0, 1)).all():
            raise ValueError(f"graph {name!r}: expected a square 0/1 adjacency matrix")
        a = a.astype(np.int8)
        both = (a == 1) & (a.T == 1)
        return cls(tuple(nodes), np.where(both, CIRCLE, a).astype(np.int8), name)

    @classmethod
    def from_pgmpy(cls, model: Any, name: str = "graph") -> CausalGraph:
        """From a pgmpy ``DAG``, ``DiscreteBayesianNetwork`` or ``PDAG``."""
        nodes = [str(v) for v in model.nodes()]
        directed = getattr(model, "directed_edges", None)
        undirected = getattr(model, "undirected_edges", None)
        if directed is None:
            directed, undirected = list(model.edges()), []
        return cls.from_edge_lists(nodes, directed, undirected, name)

    @classmethod
    def from_edge_lists(
        cls,
        nodes: Sequence[str],
        directed: Iterable[tuple[Any, Any]],
        undirected: Iterable[tuple[Any, Any]] = (),
        name: str = "graph",
    ) -> CausalGraph:
        """From lists of directed ``(u, v)`` (meaning u -> v) and undirected pairs."""
        index = {str(v): i for i, v in enumerate(nodes)}
        m = np.zeros((len(nodes), len(nodes)), dtype=np.int8)
        for u, v in directed:
            m[_lookup(index, u, name), _lookup(index, v, name)] = ARROW
        for u, v in undirected:
            i, j = _lookup(index, u, name), _lookup(index, v, name)
            m[i, j] = m[j, i] = CIRCLE
        return cls(tuple(str(v) for v in nodes), m, name)

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
            raise ValueError(f"graph {name!r}: unknown causal-learn endpoint codes {unknown}")
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
        """
        nodes = list(graph.nodes())
        index = {v: i for i, v in enumerate(nodes)}
        if not graph.is_directed():
            m = np.zeros((len(nodes), len(nodes)), dtype=np.int8)
            for u, v in graph.edges():
                m[index[u], index[v]] = m[index[v], index[u]] = CIRCLE
            return cls(tuple(map(str, nodes)), m, name)
        marks = [d.get("mark") for _, _, d in graph.edges(data=True)]
        if marks and all(mk is not None for mk in marks):
            m = np.zeros((len(nodes), len(nodes)), dtype=np.int8)
            for u, v, d in graph.edges(data=True):
                m[index[u], index[v]] = d["mark"]
            return cls(tuple(map(str, nodes)), m, name)
        import networkx as nx

        return cls.from_adjacency(nx.to_numpy_array(graph, nodelist=nodes, weight=None) != 0,
                                  list(map(str, nodes)), name)

    # ------------------------------------------------------------------ export
    def edges(self) -> list[str]:
        """Edge strings, e.g. ``["asia -> tub", "lung <-> bronc"]``, arrows pointing right."""
        out = []
        m = self.matrix
        for i, j in zip(*np.nonzero(np.triu(self.skeleton(), 1))):
            token = _TOKEN[(int(m[j, i]), int(m[i, j]))]
            if token in _MIRROR:  # print "b -> a" rather than "a <- b"
                i, j, token = j, i, _MIRROR[token]
            out.append(f"{self.nodes[i]} {token} {self.nodes[j]}")
        return out

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
            raise ValueError(f"graph {self.name!r} has no node {node!r}; its nodes: {list(self.nodes)}") from None

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

    def is_cpdag_like(self) -> bool:
        """Only directed and undirected edges (a DAG, CPDAG or PDAG; no <-> nor o->)."""
        return bool(np.array_equal(self.skeleton(), self.directed_matrix() | self.directed_matrix().T
                                   | self.undirected_matrix()))

    def is_dag(self) -> bool:
        """Only directed edges and no directed cycle."""
        d = self.directed_matrix()
        return bool(np.array_equal(self.skeleton(), d | d.T)) and _is_acyclic(d)

    def reorder(self, nodes: Sequence[str]) -> CausalGraph:
        """The same graph with its nodes in the given order (the node sets must match)."""
        nodes = tuple(nodes)
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

    def __repr__(self) -> str:
        edges = self.edges()
        shown = ", ".join(edges[:8]) + (", ..." if len(edges) > 8 else "")
        return f"CausalGraph({self.name!r}, {self.n} nodes, {len(edges)} edges: {shown})"

    def _require_cpdag_like(self, what: str) -> None:
        if not self.is_cpdag_like():
            raise ValueError(
                f"graph {self.name!r}: {what} needs a DAG or CPDAG (directed and undirected edges "
                f"only), but it has bidirected or partially oriented edges"
            )

    def require_dag(self, what: str) -> None:
        """Raise a ValueError naming the graph unless it is a DAG."""
        if not self.is_dag():
            kind = "a directed cycle" if self.is_cpdag_like() and not self.undirected_matrix().any() \
                else "edges that are not directed"
            raise ValueError(f"graph {self.name!r}: {what} needs a DAG, but the graph has {kind}")


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
def _parse_edge(text: str, graph: str) -> tuple[str, tuple[int, int], str]:
    tokens = text.split()
    if len(tokens) == 3 and tokens[1] in EDGE_MARKS:
        a, tok, b = tokens
    else:
        match = _COMPACT.match(text.strip()) if len(tokens) == 1 else None
        if match is None:
            raise ValueError(
                f"graph {graph!r}: cannot read edge {text!r}; expected 'a->b', 'a<-b', 'a<->b', "
                f"'a-b', or with spaces 'a o-> b', 'a o-o b', 'a <-o b', 'a o- b', 'a -o b'"
            )
        a, tok, b = match["a"], match["edge"], match["b"]
    return a, EDGE_MARKS[tok], b


def _lookup(index: dict[str, int], node: Any, graph: str) -> int:
    try:
        return index[str(node)]
    except KeyError:
        raise ValueError(f"graph {graph!r}: edge mentions {node!r}, not among its nodes") from None


def _permutation(current: Sequence[str], target: Sequence[str], label: str) -> list[int]:
    """Indices that put ``current`` in ``target`` order; a ValueError if the sets differ."""
    if set(target) != set(current) or len(target) != len(current):
        missing = sorted(set(target) - set(current))
        extra = sorted(set(current) - set(target))
        raise ValueError(
            f"{label}: node sets differ (missing {missing}, unexpected {extra}); "
            "metrics compare graphs on the same variables"
        )
    return [list(current).index(v) for v in target]


def _is_acyclic(d: np.ndarray) -> bool:
    """Kahn's algorithm on a boolean adjacency matrix."""
    indeg = d.sum(axis=0)
    stack = list(np.flatnonzero(indeg == 0))
    seen = 0
    indeg = indeg.copy()
    while stack:
        v = stack.pop()
        seen += 1
        for w in np.flatnonzero(d[v]):
            indeg[w] -= 1
            if indeg[w] == 0:
                stack.append(w)
    return seen == d.shape[0]



@dataclass(frozen=True, eq=False)
class GraphBatch:
    """A stack of graphs on one node order: ``matrices[b]`` is graph b's mark matrix.

    The batch form every metric vectorizes over. Build it with :meth:`from_graphs`
    (aligns each graph to one node order by name) or directly from a (B, N, N) array,
    which is validated in one vectorized pass.
    """

    nodes: tuple[str, ...]
    matrices: np.ndarray
    names: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        m = np.asarray(self.matrices)
        label = "graph batch"
        if m.ndim != 3 or m.shape[1] != m.shape[2] or m.shape[1] != len(self.nodes):
            raise ValueError(
                f"{label}: expected shape (B, {len(self.nodes)}, {len(self.nodes)}), got {m.shape}"
            )
        bad = ~((m == -1) | (m == 0) | (m == 1))
        if bad.any():
            b = int(np.flatnonzero(bad.any(axis=(1, 2)))[0])
            raise ValueError(f"{label}: graph {b} has entries other than -1, 0, 1")
        diag = np.diagonal(m, axis1=1, axis2=2)
        if diag.any():
            b = int(np.flatnonzero(diag.any(axis=1))[0])
            raise ValueError(f"{label}: graph {b} has a self-loop (nonzero diagonal)")
        names = tuple(self.names) or tuple(f"graph {b}" for b in range(m.shape[0]))
        if len(names) != m.shape[0]:
            raise ValueError(f"{label}: {len(names)} names for {m.shape[0]} graphs")
        m = m.astype(np.int8, copy=False)
        m.setflags(write=False)
        object.__setattr__(self, "nodes", tuple(map(str, self.nodes)))
        object.__setattr__(self, "matrices", m)
        object.__setattr__(self, "names", names)

    @classmethod
    def from_graphs(cls, graphs: Iterable[CausalGraph], nodes: Sequence[str] | None = None) -> GraphBatch:
        graphs = list(graphs)
        if not graphs:
            raise ValueError("graph batch: no graphs given")
        order = tuple(nodes) if nodes is not None else graphs[0].nodes
        mats = np.stack([g.reorder(order).matrix for g in graphs])
        return cls(order, mats, tuple(g.name for g in graphs))

    def __len__(self) -> int:
        return self.matrices.shape[0]

    def __getitem__(self, b: int) -> CausalGraph:
        return CausalGraph(self.nodes, self.matrices[b], self.names[b])

    def __iter__(self):
        return (self[b] for b in range(len(self)))

    def reorder(self, nodes: Sequence[str]) -> GraphBatch:
        """The same graphs with nodes in the given order (node sets must match)."""
        nodes = tuple(nodes)
        if nodes == self.nodes:
            return self
        p = _permutation(self.nodes, nodes, "graph batch")
        return GraphBatch(nodes, self.matrices[:, p][:, :, p], self.names)


GraphLike = CausalGraph | GraphBatch | Sequence[CausalGraph]


def as_batch(graphs: GraphLike, nodes: Sequence[str] | None = None) -> GraphBatch:
    """Any graph, list of graphs or batch as a :class:`GraphBatch`, in ``nodes`` order."""
    if isinstance(graphs, GraphBatch):
        return graphs if nodes is None else graphs.reorder(nodes)
    if isinstance(graphs, CausalGraph):
        graphs = [graphs]
    return GraphBatch.from_graphs(graphs, nodes)
