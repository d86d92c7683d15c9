import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from causaleval.graphs import CausalGraph, GraphBatch, latent_projection, to_cpdag

TOKENS = {  # token -> (m[a, b], m[b, a]) in the kit's encoding (mark at the second index's end)
    "->": (1, 0), "<-": (0, 1), "<->": (1, 1), "-": (-1, -1), "o-o": (-1, -1),
    "o->": (1, -1), "<-o": (-1, 1), "o-": (0, -1), "-o": (-1, 0),
}


@pytest.mark.parametrize("token,marks", TOKENS.items())
def test_edge_strings_follow_the_encoding(token, marks):
    g = CausalGraph.from_edges([f"a {token} b"])
    assert (g.matrix[0, 1], g.matrix[1, 0]) == marks


def test_compact_edge_strings_and_round_trip(asia_edges):
    g = CausalGraph.from_edges(asia_edges + ["x<->y", "u-v"])
    assert CausalGraph.from_edges(g.edges(), nodes=g.nodes) == g
    assert "x <-> y" in g.edges() and "u - v" in g.edges()


@pytest.mark.parametrize("bad,msg", [
    (["a => b"], "cannot read edge"), (["a->a"], "self-loop"), (["a->b", "b->a"], "at most one edge per pair"),
    (["a o-> b c"], "cannot read edge"),
])
def test_bad_edge_strings_name_the_graph(bad, msg):
    with pytest.raises(ValueError, match=f"'g1'.*{msg}|{msg}"):
        CausalGraph.from_edges(bad, name="g1")


@pytest.mark.parametrize("matrix,msg", [
    (np.zeros((2, 3)), "square"), (np.array([[0, 2], [0, 0]]), r"entry \[a, b\] is 2; expected -1, 0 or 1"),
    (np.array([[1, 0], [0, 0]]), "self-loop"),
])
def test_bad_matrices(matrix, msg):
    with pytest.raises(ValueError, match=msg):
        CausalGraph(("a", "b"), matrix, name="bad")


def test_batch_validation_names_the_graph():
    m = np.zeros((3, 2, 2), dtype=np.int8)
    m[2, 0, 0] = 1
    with pytest.raises(ValueError, match="'graph 2': self-loop at node 'a'"):
        GraphBatch(("a", "b"), m)


def test_cyclic_graph_is_refused_where_a_dag_is_needed():
    g = CausalGraph.from_edges(["a->b", "b->c", "c->a"], name="cycle")
    assert not g.is_dag()
    with pytest.raises(ValueError, match="'cycle'.*directed cycle"):
        to_cpdag(g)


def test_pgmpy_conversions(asia_edges):
    from pgmpy.base import DAG, PDAG

    dag = DAG([tuple(e.split("->")) for e in asia_edges])
    g = CausalGraph.from_pgmpy(dag)
    assert g == CausalGraph.from_edges(asia_edges)
    assert CausalGraph.from_pgmpy(g.to_pgmpy()) == g
    pdag = PDAG(directed_ebunch=[("a", "b")], undirected_ebunch=[("b", "c")])
    p = CausalGraph.from_pgmpy(pdag)
    assert p == CausalGraph.from_edges(["a->b", "b - c"])
    assert CausalGraph.from_pgmpy(p.to_pgmpy()) == p


def test_causallearn_endpoints_are_transposed_into_the_kit_encoding():
    from causallearn.graph.GraphNode import GraphNode
    from causallearn.graph.GeneralGraph import GeneralGraph

    nodes = [GraphNode(n) for n in "abcd"]
    G = GeneralGraph(nodes)
    # causal-learn: graph[x, y] is the endpoint at x's end; -1 tail, 1 arrow, 2 circle
    G.graph[0, 1], G.graph[1, 0] = -1, 1      # a --> b
    G.graph[1, 2], G.graph[2, 1] = 1, 1       # b <-> c
    G.graph[2, 3], G.graph[3, 2] = 2, 1       # c o-> d
    G.graph[0, 3], G.graph[3, 0] = -1, -1     # a --- d
    g = CausalGraph.from_causallearn(G)
    assert sorted(g.edges()) == ["a - d", "a -> b", "b <-> c", "c o-> d"]


def test_networkx_round_trip_and_plain_digraph():
    import networkx as nx

    g = CausalGraph.from_edges(["a->b", "b <-> c", "c o-> d", "d - e"])
    assert CausalGraph.from_networkx(g.to_networkx()) == g
    plain = nx.DiGraph([("a", "b"), ("b", "c"), ("c", "b")])
    assert sorted(CausalGraph.from_networkx(plain).edges()) == ["a -> b", "b - c"]
    assert CausalGraph.from_networkx(nx.Graph([("a", "b")])).edges() == ["a - b"]


def test_gadjid_format():
    g = CausalGraph.from_edges(["a->b", "b - c"])
    assert g.to_gadjid().tolist() == [[0, 1, 0], [0, 0, 2], [0, 2, 0]]
    with pytest.raises(ValueError, match="'pag'.*DAG or CPDAG"):
        CausalGraph.from_edges(["a o-> b"], name="pag").to_gadjid()


def test_asia_cpdag(asia_edges):
    cp = to_cpdag(CausalGraph.from_edges(asia_edges))
    assert sorted(cp.undirected_edges()) == [("asia", "tub"), ("smoke", "bronc"), ("smoke", "lung")]
    assert len(cp.directed_edges()) == 5


def test_asia_latent_projection(asia_edges):
    mag = latent_projection(CausalGraph.from_edges(asia_edges), ["smoke"])
    assert "smoke" not in mag.nodes
    assert "lung <-> bronc" in mag.edges()
    others = {e for e in asia_edges if "smoke" not in e}
    assert {e.replace(" ", "") for e in mag.edges()} - {"lung<->bronc"} == others


def test_latent_projection_of_a_mediator_and_of_nothing():
    chain = CausalGraph.from_edges(["a->m", "m->b", "a->c"])
    assert sorted(latent_projection(chain, ["m"]).edges()) == ["a -> b", "a -> c"]
    assert latent_projection(chain, []) == chain
    with pytest.raises(ValueError, match="no node 'zz'"):
        latent_projection(chain, ["zz"])


@st.composite
def random_dags(draw, max_nodes=7):
    n = draw(st.integers(2, max_nodes))
    upper = draw(st.lists(st.booleans(), min_size=n * (n - 1) // 2, max_size=n * (n - 1) // 2))
    perm = draw(st.permutations(range(n)))
    a = np.zeros((n, n), dtype=np.int8)
    a[np.triu_indices(n, 1)] = upper
    a = a[np.ix_(perm, perm)]
    return CausalGraph(tuple(f"x{i}" for i in range(n)), a)


@settings(max_examples=60, deadline=None)
@given(random_dags())
def test_cpdag_matches_causallearn(dag):
    from causallearn.graph.Dag import Dag
    from causallearn.graph.GraphNode import GraphNode
    from causallearn.utils.DAG2CPDAG import dag2cpdag

    nodes = [GraphNode(v) for v in dag.nodes]
    cl = Dag(nodes)
    for u, v in dag.directed_edges():
        cl.add_directed_edge(nodes[dag.index(u)], nodes[dag.index(v)])
    assert to_cpdag(dag) == CausalGraph.from_causallearn(dag2cpdag(cl))


@settings(max_examples=40, deadline=None)
@given(random_dags(), st.data())
def test_projection_is_ancestral(dag, data):
    """Every projected edge points along an ancestral relation of the DAG, and observed
    adjacencies of the DAG survive."""
    import networkx as nx

    latent = data.draw(st.lists(st.sampled_from(dag.nodes), unique=True, max_size=dag.n - 2))
    mag = latent_projection(dag, latent)
    g = nx.DiGraph(dag.directed_edges())
    g.add_nodes_from(dag.nodes)
    for u, v in mag.directed_edges():
        assert u in nx.ancestors(g, v)
    for u, v in dag.directed_edges():
        if u not in latent and v not in latent:
            assert mag.skeleton()[mag.index(u), mag.index(v)]
