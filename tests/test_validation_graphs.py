"""Bad graph input is refused at the boundary with one GraphError naming the culprit (issue 12).

One case per class of damaged input: edge strings, node names, mark matrices, batches,
edge lists, degenerate graphs and graph classes the metrics need. Each case asserts the
error type and that the message names the graph and the edge string, node or entry.
Valid unusual inputs are checked to still work.
"""

import networkx as nx
import numpy as np
import pytest

from causaleval import metrics as M
from causaleval.graphs import CausalGraph, GraphBatch, GraphClass, GraphError


def _refused(call, *culprits):
    """``call()`` raises a GraphError whose message contains every culprit verbatim."""
    with pytest.raises(GraphError) as info:
        call()
    for c in culprits:
        assert c in str(info.value), f"{c!r} not named in: {info.value}"
    return str(info.value)


# ---------------------------------------------------------------------- edge strings
@pytest.mark.parametrize("edge,reason", [
    ("a->", "no node after '->'"),                       # missing node
    ("->b", "no node before '->'"),
    ("a-->b", "'-->' is not an edge mark"),              # malformed mark
    ("a->>b", "'->>' is not an edge mark"),
    ("a<-->b", "'<-->' is not an edge mark"),
    ("a => b", "'=>' is not an edge mark"),
    ("a->b->c", "more than one edge mark"),              # chain
    ("x-ray->b", "more than one edge mark"),             # hyphenated name, compact form
    ("a->b -> c", "node 'a->b' holds '<' or '>'"),       # chain in the spaced form
    ("-a -> b", "node '-a'"),                            # name starting with a mark character
    ("a - > b", "4 words"),                              # mark split by a space
    ("a o-> b c", "4 words"),
    ("a ->b", "2 words"),                                # spaces on one side only
    ("ab", "no edge mark"),
    ("   ", "it is empty"),
    ("ao->b", "ambiguous"),                              # 'o' touching a mark: ao -> b or a o-> b?
    ("a<-ob", "ambiguous"),
    ("a-ob", "ambiguous"),
    ("ao-b", "ambiguous"),
])
def test_malformed_edge_strings_are_refused(edge, reason):
    msg = _refused(lambda: CausalGraph.from_edges(["u->v", edge], name="g1"), "graph 'g1'", repr(edge))
    assert reason in msg


@pytest.mark.parametrize("edges,culprits", [
    ([("a", "b")], ["('a', 'b')", "is a tuple"]),                         # not a string
    ([5], ["edge 5 is a int"]),
    ("a->b", ["one string 'a->b'"]),                                       # a string, not a list
    (["a->a"], ["'a->a'", "self-loop on 'a'"]),
    (["a->b", "b->a"], ["'a->b'", "'b->a'", "at most one edge per pair"]),  # both directions
    (["a->b", "a - b"], ["'a->b'", "'a - b'"]),                            # two kinds on one pair
    (["a->b", "a->b"], ["at most one edge per pair"]),                     # repeated
])
def test_impossible_edge_lists_are_refused(edges, culprits):
    _refused(lambda: CausalGraph.from_edges(edges, name="g1"), "graph 'g1'", *culprits)


def test_edge_to_a_node_outside_the_given_nodes():
    _refused(lambda: CausalGraph.from_edges(["a->z"], nodes=["a", "b"], name="g1"), "graph 'g1'", "'a->z'", "'z'")


@pytest.mark.parametrize("edge,expected", [
    ("x-ray -> dysp", [("x-ray", "dysp")]),            # hyphenated names with spaces
    ("a-b - c-d", []),                                  # undirected, hyphenated names
    ("o -> b", [("o", "b")]),                           # a node named o
    ("o->b", [("o", "b")]),
    ("foo -> bar", [("foo", "bar")]),                   # names ending or starting with o, spaced
    ("CO->BP", [("CO", "BP")]),                         # capital O is a letter, never a circle
    ("\tα\t->\tβ  ", [("α", "β")]),                     # tabs, padding, non-ASCII names
])
def test_unusual_but_valid_edge_strings(edge, expected):
    g = CausalGraph.from_edges([edge])
    assert g.directed_edges() == expected
    assert CausalGraph.from_edges(g.edges(), nodes=g.nodes) == g


def test_circle_marks_next_to_a_node_named_o():
    g = CausalGraph.from_edges(["a o-> o", "o <-o b"])
    assert sorted(g.edges()) == ["a o-> o", "b o-> o"]


# ---------------------------------------------------------------------- node names and matrices
OK = np.array([[0, 1], [0, 0]])


@pytest.mark.parametrize("nodes,matrix,culprits", [
    (("a", "a"), OK, ["duplicate node names ['a']"]),
    (("a", ""), OK, ["node name ''"]),                                   # empty
    (("a", "  "), OK, ["node name '  '"]),                               # whitespace only
    (("a", " b"), OK, ["node name ' b'"]),                               # padded
    (("a", None), OK, ["node name None is a NoneType"]),                 # not a string
    (("a", 1.5), OK, ["node name 1.5 is a float"]),
    (("a", True), OK, ["node name True is a bool"]),
    ("ab", OK, ["sequence of strings, got 'ab'"]),                       # names as one string
    (("a", "b", "c"), OK, ["square 3x3", "(2, 2)"]),                     # count mismatch
    (("a", "b"), np.zeros((2, 3)), ["square 2x2", "(2, 3)"]),            # not square
    (("a", "b"), np.zeros((1, 2, 2)), ["square 2x2", "(1, 2, 2)"]),      # not 2-D
    (("a", "b"), np.array([[0, np.nan], [0, 0]]), ["entry [a, b] is nan"]),
    (("a", "b"), np.array([[0, 0], [np.inf, 0]]), ["entry [b, a] is inf"]),
    (("a", "b"), np.array([[0, 0.5], [0, 0]]), ["entry [a, b] is 0.5"]),
    (("a", "b"), np.array([[0, 2], [0, 0]]), ["entry [a, b] is 2"]),
    (("a", "b"), np.array([[0, 0], [-2, 0]], dtype=np.int8), ["entry [b, a] is -2"]),
    (("a", "b"), np.array([["0", "1"], ["0", "0"]]), ["<U1 values"]),   # text
    (("a", "b"), np.array([[0, "x"], [0, 0]], dtype=object), ["object values"]),
    (("a", "b"), np.array([[0, None], [0, 0]], dtype=object), ["entry [a, b] is nan"]),
    (("a", "b"), np.array([[0, 1], [3, 0]], dtype=object), ["entry [b, a] is 3.0"]),
    (("a", "b"), np.array([[0, 0], [0, 1]]), ["self-loop at node 'b'"]),
])
def test_bad_names_and_matrices_are_refused(nodes, matrix, culprits):
    _refused(lambda: CausalGraph(nodes, matrix, name="g2"), "graph 'g2'", *culprits)


def test_integer_labels_become_strings_and_numeric_dtypes_are_accepted():
    g = CausalGraph.from_edge_lists([0, np.int64(1)], [(0, 1)])
    assert g.nodes == ("0", "1") and g.directed_edges() == [("0", "1")]
    as_bool = CausalGraph(("a", "b"), np.array([[False, True], [False, False]]))
    as_float = CausalGraph(("a", "b"), np.array([[0.0, 1.0], [-0.0, 0.0]]))
    as_object = CausalGraph(("a", "b"), np.array([[0, 1], [0, 0]], dtype=object))
    assert as_bool == as_float == as_object == CausalGraph.from_edges(["a->b"])
    names = ("lung cancer", "x")  # a name with an inner space: fine outside edge strings
    assert CausalGraph(names, OK).directed_edges() == [("lung cancer", "x")]


# ---------------------------------------------------------------------- batches
def _stack(*mats):
    return np.stack([np.asarray(m, dtype=np.int8) for m in mats])


@pytest.mark.parametrize("nodes,matrices,names,culprits", [
    (("x", "x"), _stack(OK), (), ["duplicate node names ['x']"]),
    (("a", "b"), _stack(OK, [[0, 0], [0, 1]]), ("fine", "looped"), ["'looped'", "self-loop at node 'b'"]),
    (("a", "b"), np.stack([OK, [[0, np.nan], [0, 0]]]), ("fine", "holed"), ["'holed'", "entry [a, b] is nan"]),
    (("a", "b"), OK, (), ["(2, 2)"]),                                    # one matrix, not a stack
    (("a", "b"), np.zeros((0, 2, 2)), (), ["at least one", "(0, 2, 2)"]),
    (("a", "b", "c"), _stack(OK), (), ["square 3x3", "(2, 2)"]),
    (("a", "b"), _stack(OK, OK), ("only one",), ["1 names for 2 graphs"]),
])
def test_bad_batches_are_refused(nodes, matrices, names, culprits):
    _refused(lambda: GraphBatch(nodes, matrices, names), "graph batch", *culprits)


def test_pickled_graphs_come_back_checked_and_read_only():
    import pickle

    g = CausalGraph.from_edges(["a->b", "b - c"], name="p")
    batch = GraphBatch.from_graphs([g, g])
    assert g.graph_class == GraphClass.PDAG and batch.classes.tolist() == [1, 1]
    g2, batch2 = pickle.loads(pickle.dumps((g, batch)))  # as joblib workers get them
    assert g2 == g and g2.name == "p" and batch2.names == batch.names
    assert not g2.matrix.flags.writeable and not batch2.matrices.flags.writeable


def test_batch_copies_the_callers_array():
    m = _stack(OK, OK.T)
    batch = GraphBatch(("a", "b"), m)
    assert m.flags.writeable and not batch.matrices.flags.writeable
    m[0, 0, 1] = 0  # the caller's later edits do not reach the batch
    assert batch.matrices[0, 0, 1] == 1
    assert GraphBatch.from_graphs([batch[0]]).matrices.tolist() == [OK.tolist()]


@pytest.mark.parametrize("build,culprits", [
    (lambda: CausalGraph.from_edge_lists(["a", "b"], [("a", "b"), ("b", "a")], name="g3"),
     ["directed edge ('b', 'a')", "directed edge ('a', 'b')"]),                          # 2-cycle
    (lambda: CausalGraph.from_edge_lists(["a", "b"], [("a", "b")], [("b", "a")], name="g3"),
     ["undirected edge ('b', 'a')"]),                                                   # two kinds
    (lambda: CausalGraph.from_edge_lists(["a", "b"], [("a", "a")], name="g3"), ["('a', 'a')", "self-loop"]),
    (lambda: CausalGraph.from_edge_lists(["a", "b"], [("a", "z")], name="g3"), ["'z'"]),
    (lambda: CausalGraph.from_edge_lists(["a", "b"], ["ab"], name="g3"), ["edge 'ab' is not a pair"]),
    (lambda: CausalGraph.from_edge_lists(["a", "b"], [("a", "b", "c")], name="g3"), ["('a', 'b', 'c')"]),
    (lambda: CausalGraph.from_adjacency([[0, -1], [0, 0]], ["a", "b"], name="g3"), ["entry [a, b] is -1"]),
    (lambda: CausalGraph.from_adjacency([[0, np.nan], [0, 0]], ["a", "b"], name="g3"), ["entry [a, b] is nan"]),
    (lambda: CausalGraph.from_networkx(_partly_marked(), name="g3"), ["('b', 'c')", "no 'mark'"]),
    (lambda: CausalGraph.from_networkx(nx.DiGraph([("a", "b", {"mark": "x"})]), name="g3"), ["mark 'x'"]),
])
def test_bad_edge_lists_and_converter_input_are_refused(build, culprits):
    _refused(build, "graph 'g3'", *culprits)


def _partly_marked():
    g = nx.DiGraph()
    g.add_edge("a", "b", mark=1)
    g.add_edge("b", "c")
    return g


@pytest.mark.parametrize("call,culprits", [
    (lambda g: g.to_gadjid(), ["to_gadjid", "directed cycle a -> b -> c -> a"]),   # gadjid: bare RuntimeError
    (lambda g: g.to_pgmpy(), ["to_pgmpy", "directed cycle"]),
    (lambda g: g.reorder("cba"), ["sequence of strings, got 'cba'"]),               # a string, not names
    (lambda g: GraphBatch.from_graphs([g], nodes="cba"), ["graph batch", "got 'cba'"]),
])
def test_conversions_refuse_what_they_cannot_represent(call, culprits):
    cycle = CausalGraph.from_edges(["a->b", "b->c", "c->a"], name="g4")
    _refused(lambda: call(cycle), *culprits)


def test_latent_variables_given_as_one_string():
    from causaleval.graphs import latent_projection

    dag = CausalGraph.from_edges(["smoke->lung", "smoke->bronc"], name="g5")
    _refused(lambda: latent_projection(dag, "smoke"), "graph 'g5'", "one string 'smoke'")


# ---------------------------------------------------------------------- metrics: degenerate graphs
METRICS = [M.tpr, M.fpr, M.precision, M.f1, M.roc_auc, M.prc_auc, M.shd_dag, M.shd_cpdag, M.ced, M.nced,
           M.sid, M.shd_pairs, M.frobenius, M.adjacency_mse]


@pytest.mark.parametrize("n", [0, 1])
@pytest.mark.parametrize("metric", METRICS, ids=lambda f: f.__name__)
def test_graphs_under_two_nodes_are_refused_by_every_metric(metric, n):
    """Including gadjid's SID: a Rust panic (a BaseException) would escape pytest.raises."""
    g = CausalGraph.empty(["a"][:n], name="tiny")
    _refused(lambda: metric(g, g), f"{metric.__name__}: truth graph 'tiny' has {n} node(s)", "at least 2")


def test_edge_score_aucs_refuse_a_one_node_truth():
    g = CausalGraph.empty(["a"], name="tiny")
    _refused(lambda: M.edge_roc_auc(g, [[0.0]]), "truth graph 'tiny' has 1 node(s)")


@pytest.mark.parametrize("metric", METRICS, ids=lambda f: f.__name__)
def test_two_nodes_is_enough_for_every_metric(metric):
    truth = CausalGraph.from_edges(["a->b"], name="truth")
    assert metric(truth, truth) == (1.0 if metric in (M.tpr, M.precision, M.f1, M.roc_auc, M.prc_auc) else 0.0)


# ---------------------------------------------------------------------- metrics: graph classes
CYCLE = CausalGraph.from_edges(["a->b", "b->c", "c->a"], name="cyc")
DAG = CausalGraph.from_edges(["a->b", "b->c", "a->c"], name="dag")


def _g(name, *edges):
    return CausalGraph.from_edges(list(edges), nodes=("a", "b", "c"), name=name)


@pytest.mark.parametrize("metric,truth,learned,culprits", [
    (M.shd_cpdag, DAG, CYCLE, ["learned graph 'cyc'", "directed cycle a -> b -> c -> a"]),
    (M.shd_cpdag, DAG, _g("pag", "a o-> b"), ["learned graph 'pag'", "partially oriented edge a o-> b"]),
    (M.shd_cpdag, DAG, _g("mag", "a <-> b"), ["learned graph 'mag'", "bidirected edge a <-> b"]),
    (M.shd_cpdag, _g("pag-truth", "b o-o c", "a o- b"), DAG, ["truth graph 'pag-truth'", "partially oriented"]),
    (M.shd_dag, DAG, _g("cpdag", "a - b"), ["learned graph 'cpdag'", "undirected edge a - b"]),
    (M.shd_dag, DAG, CYCLE, ["learned graph 'cyc'", "directed cycle"]),
    (M.shd_dag, DAG, _g("mag", "a <-> b"), ["learned graph 'mag'", "bidirected edge a <-> b"]),
    (M.shd_dag, _g("mag-truth", "a <-> b"), DAG, ["truth graph 'mag-truth'", "bidirected"]),
    (M.sid, DAG, CYCLE, ["learned graph 'cyc'", "directed cycle"]),
    (M.sid, _g("cpdag-truth", "a - b"), DAG, ["truth graph 'cpdag-truth'", "undirected edge a - b"]),
])
def test_metrics_refuse_graph_classes_they_are_not_defined_on(metric, truth, learned, culprits):
    _refused(lambda: metric(truth, learned), f"{metric.__name__} needs", *culprits)


def test_a_batch_names_its_first_offending_graph_and_counts_them():
    batch = GraphBatch.from_graphs([DAG, CYCLE.renamed("cyc1"), DAG, CYCLE.renamed("cyc2")])
    _refused(lambda: M.shd_dag(DAG, batch), "learned graph 'cyc1'", "(2 of the 4 learned graphs fail)")


@pytest.mark.parametrize("truth,learned,culprits", [
    (DAG, CausalGraph.from_edges(["a->b", "b->d"], name="other"), ["truth 'dag'", "missing ['c']", "unexpected ['d']"]),
    (DAG, np.zeros((3, 3)), ["truth 'dag'", "got a ndarray"]),
    ("a->b", DAG, ["truth", "got a str"]),
    (DAG, [DAG, "a->b"], ["'a->b' is a str"]),
    (GraphBatch.from_graphs([DAG, DAG]), [DAG, DAG, DAG], ["2 truth graphs for 3 learned graphs"]),
])
def test_misaligned_or_mistyped_pairs_are_refused(truth, learned, culprits):
    _refused(lambda: M.nced(truth, learned), "nced", *culprits)


def test_a_gadjid_panic_never_escapes(monkeypatch):
    import gadjid

    class PanicException(BaseException):  # what pyo3 raises; `except Exception` misses it
        pass

    def panic(*args, **kwargs):
        raise PanicException("graph must contain at least 2 nodes")

    monkeypatch.setattr(gadjid, "sid", panic)
    with pytest.raises(RuntimeError, match="gadjid's sid panicked"):
        M.sid(DAG, DAG)


# ---------------------------------------------------------------------- the vectorized class check
def test_batch_classes_match_a_per_graph_check_with_networkx():
    rng = np.random.default_rng(7)
    mats = rng.choice(np.array([-1, 0, 1], dtype=np.int8), p=[0.05, 0.8, 0.15], size=(400, 7, 7))
    mats[:200] = np.where(mats[:200] < 0, 0, mats[:200])  # half without circle marks
    mats[:, np.arange(7), np.arange(7)] = 0
    batch = GraphBatch(tuple("abcdefg"), mats)
    for m, cls in zip(mats, batch.classes):
        arrow, circle = m == 1, m == -1
        mixed = (arrow & arrow.T).any() or (circle != circle.T).any()
        acyclic = nx.is_directed_acyclic_graph(nx.DiGraph(arrow.astype(int)))
        expected = (GraphClass.MIXED if mixed else GraphClass.CYCLIC if not acyclic
                    else GraphClass.PDAG if circle.any() else GraphClass.DAG)
        assert cls == expected
    assert len(set(batch.classes.tolist())) == 4  # every class occurs
    assert batch.reorder(tuple("gfedcba")).classes is batch.classes  # relabelling keeps them


def test_large_graphs_get_their_class_and_a_true_cycle_as_witness():
    rng = np.random.default_rng(3)
    n = 130  # bit sets of three 64-bit words
    order = rng.permutation(n)
    dag = np.triu(rng.random((n, n)) < 0.05, 1)[np.ix_(order, order)].astype(np.int8)
    u, x = next((u, x) for u, x in np.argwhere(dag) if dag[x].any())
    w = int(np.flatnonzero(dag[x])[0])
    cyclic = dag.copy()
    cyclic[u, w], cyclic[w, u] = 0, 1  # u -> x -> w -> u
    batch = GraphBatch(tuple(f"v{k}" for k in range(n)), np.stack([dag, cyclic, dag]))
    assert batch.classes.tolist() == [GraphClass.DAG, GraphClass.CYCLIC, GraphClass.DAG]
    cycle = batch[1].witness().removeprefix("the directed cycle ").split(" -> ")
    assert cycle[0] == cycle[-1] and len(cycle) > 2
    assert all(batch[1].matrix[batch[1].index(a), batch[1].index(b)] == 1 for a, b in zip(cycle, cycle[1:]))


# ---------------------------------------------------------------------- labelled matrices
def _labelled(labels, rows=None):
    import pandas as pd

    return pd.DataFrame([[0, 1], [0, 0]], index=rows or labels, columns=labels)


@pytest.mark.parametrize("build", [
    lambda df: CausalGraph.from_adjacency(df, ["a", "b"]),
    lambda df: CausalGraph(("a", "b"), df),
], ids=["from_adjacency", "constructor"])
def test_a_labelled_matrix_is_aligned_by_its_labels(build):
    """Row b, column a set means b -> a, whatever the DataFrame's order (it was read by
    position, giving a -> b)."""
    assert build(_labelled(["b", "a"])).edges() == ["b -> a"]
    assert build(_labelled(["a", "b"])).edges() == ["a -> b"]


@pytest.mark.parametrize("frame,culprits", [
    (_labelled([0, 1]), ["row labels ['0', '1'] are not the nodes ['a', 'b']"]),
    (_labelled(["a", "c"]), ["row labels ['a', 'c']"]),
    (_labelled(["a", "a"], rows=["a", "b"]), ["column labels ['a', 'a'] are not the nodes"]),
], ids=["unlabelled", "other node", "repeated label"])
def test_a_matrix_labelled_otherwise_than_the_nodes_is_refused(frame, culprits):
    _refused(lambda: CausalGraph.from_adjacency(frame, ["a", "b"], name="lab"), "graph 'lab'", *culprits)


@pytest.mark.parametrize("metric", [M.edge_roc_auc, M.edge_pr_auc])
@pytest.mark.parametrize("scores,message", [
    ({"a": 1}, r"edge scores for graph 'dag': got a dict; expected a 3x3 matrix"),
    ([["x"] * 3] * 3, r"edge scores for graph 'dag': not a matrix of numbers"),
], ids=["dict", "text"])
def test_edge_scores_of_the_wrong_kind_are_refused(metric, scores, message):
    with pytest.raises(ValueError, match=message):
        metric(DAG, scores)


# ---------------------------------------------------------------------- SID bounds
@pytest.mark.parametrize("truth,learned,culprits", [
    (DAG, CYCLE, ["learned graph 'cyc'", "directed cycle a -> b -> c -> a"]),
    (DAG, _g("pag", "a o-> b", "b -> c"), ["learned graph 'pag'", "partially oriented edge a o-> b"]),
    (_g("cpdag-truth", "a - b"), DAG, ["truth graph 'cpdag-truth'", "needs a DAG", "undirected edge a - b"]),
    (DAG, CausalGraph.from_edges(["a->b", "b->d"], name="other"), ["missing ['c']"]),
], ids=["cycle", "PAG", "CPDAG truth", "other nodes"])
def test_sid_bounds_refuses_graphs_the_sid_is_not_defined_on(truth, learned, culprits):
    """A learned cycle scored sid_min = sid_max = 0 with members 0 (a perfect score), and a
    PAG was read as a CPDAG."""
    from causaleval.metrics import sid_bounds

    _refused(lambda: sid_bounds(truth, learned), *culprits)


def test_sid_bounds_still_reads_bidirected_edges_as_pc_conflicts():
    from causaleval.metrics import sid_bounds

    assert sid_bounds(DAG, _g("pc", "a <-> b", "b -> c", "a -> c"))["members"] >= 1


def test_shd_cpdag_pairs_checks_its_graphs_like_every_metric():
    from causaleval.metrics import shd_cpdag_pairs

    one = CausalGraph.from_edges([], nodes=["a"])
    with pytest.raises(GraphError, match="shd_cpdag_pairs"):
        shd_cpdag_pairs(one, one)
