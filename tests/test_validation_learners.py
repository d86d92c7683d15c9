"""Bad learner input is refused at the boundary (issue 12): learners._check_data for the data,
learners._check_output for the graph a learner returns, mmhc.state_codes for MMHC's codes,
and ges._local_score for the kit's GES. Each case asserts the error type and that the
message names the culprit (column, learner, rows found and expected)."""

import numpy as np
import pandas as pd
import pytest

from causaleval.learn.ges import ges
from causaleval.graphs import CausalGraph, GraphError
from causaleval.learn.learners import LEARNERS, learn, register_learner
from causaleval.learn.mmhc import MAX_STATES, state_codes

RNG = np.random.default_rng(0)
N = 400
_A = RNG.integers(0, 2, N)
_B = (_A ^ (RNG.random(N) < 0.1)).astype(int)
_C = (_B ^ (RNG.random(N) < 0.1)).astype(int)
DISCRETE = pd.DataFrame({"a": _A, "b": _B, "c": _C})
_X = RNG.normal(size=N)
CONTINUOUS = pd.DataFrame({"a": _X, "b": _X + 0.5 * RNG.normal(size=N)})
CONTINUOUS["c"] = CONTINUOUS["b"] + 0.5 * RNG.normal(size=N)
DISCRETE_LEARNERS = ["pc", "fci", "ges", "ges_causallearn", "hc", "mmhc"]


# ------------------------------------------------------------------ constant columns
@pytest.mark.parametrize("name", ["pc", "fci"])
@pytest.mark.parametrize("data", [CONTINUOUS.assign(c=1.0), DISCRETE.assign(c=0)], ids=["continuous", "discrete"])
def test_fisher_z_leaves_a_constant_column_isolated(name, data):
    """Fisher z's correlation with a constant is NaN, which causal-learn read as dependence:
    the constant was joined to every variable (a - c, b - c)."""
    g = learn(name, data)
    assert g.nodes == ("a", "b", "c")
    assert not g.matrix[:, 2].any() and not g.matrix[2, :].any()
    assert g.matrix[0, 1] != 0


@pytest.mark.parametrize("name", DISCRETE_LEARNERS)
def test_discrete_learners_leave_a_constant_column_isolated(name):
    g = learn(name, DISCRETE.assign(c=0), ci_test="chi_square")
    assert not g.matrix[:, 2].any() and not g.matrix[2, :].any()


@pytest.mark.parametrize("name", ["pc", "fci"])
def test_pc_and_fci_unchanged_without_constants_and_with_all_constant(name):
    varying = learn(name, CONTINUOUS)
    assert set(varying.edges()) == {"a - b", "b - c"}
    assert not learn(name, DISCRETE.assign(a=0, b=0, c=0), ci_test="g_test").matrix.any()


def test_a_plugin_learner_gets_no_constant_column_unless_it_declares_it():
    @register_learner("h11_plain", output="DAG")
    def plain(data, *, ci_test, alpha, seed):
        return CausalGraph.empty(list(data.columns))

    try:
        with pytest.raises(ValueError, match=r"learner 'h11_plain': constant columns \['c'\]"):
            learn("h11_plain", DISCRETE.assign(c=0))
        assert not learn("h11_plain", DISCRETE).matrix.any()
    finally:
        del LEARNERS["h11_plain"]


# ------------------------------------------------------------------ degenerate data
CASES = {
    "zero rows": ("pc", DISCRETE.iloc[:0], dict(ci_test="chi_square"), r"found 0 rows, expected at least 2"),
    "one row pc": ("pc", DISCRETE.iloc[:1], dict(ci_test="chi_square"), r"'pc': found 1 rows, expected at least 2"),
    "one row fci": ("fci", DISCRETE.iloc[:1], dict(ci_test="g_test"), r"'fci': found 1 rows, expected at least 2"),
    "one row ges": ("ges", DISCRETE.iloc[:1], {}, r"'ges': found 1 rows, expected at least 2"),
    "zero rows mmhc": ("mmhc", DISCRETE.iloc[:0], dict(ci_test="g_test"), r"found 0 rows"),
    "fisher z on 2 rows": ("pc", CONTINUOUS.iloc[:2], {}, r"found 2 rows, expected at least 4 \(Fisher z's statistic"),
    "fisher z on 3 rows": ("fci", CONTINUOUS.iloc[:3], {}, r"'fci': found 3 rows, expected at least 4"),
    "fisher z with inf": ("pc", CONTINUOUS.assign(a=CONTINUOUS["a"].where(CONTINUOUS.index != 3, np.inf)), {},
                          r"infinite values in columns \['a'\]"),
    "names '1' and 1": ("pc", DISCRETE.set_axis(["1", 1, "c"], axis=1), dict(ci_test="chi_square"),
                        r"column names \['1'\] occur more than once"),
    "duplicate names": ("ges", DISCRETE.set_axis(["a", "a", "c"], axis=1), {}, r"column names \['a'\] occur"),
    "alpha as text": ("pc", DISCRETE, dict(ci_test="chi_square", alpha="0.05"),
                      r"alpha must be a number in \(0, 1\), got str '0.05'"),
    "alpha as bool": ("pc", DISCRETE, dict(ci_test="chi_square", alpha=True), r"alpha must be a number"),
    "not a DataFrame": ("hc", DISCRETE.to_numpy(), {}, r"'hc': data must be a DataFrame .* got ndarray"),
}


@pytest.mark.parametrize("name,data,kwargs,message", CASES.values(), ids=CASES.keys())
def test_degenerate_learner_data_is_refused(name, data, kwargs, message):
    with pytest.raises(ValueError, match=message):
        learn(name, data, **kwargs)


def test_fisher_z_runs_from_four_rows_and_in_the_small_sample_regime():
    """Four rows define the marginal tests; 20 rows of 20 variables (Emezue et al. 2023) run."""
    assert learn("pc", CONTINUOUS.iloc[:4]).nodes == ("a", "b", "c")
    wide = pd.DataFrame(np.random.default_rng(1).normal(size=(20, 20))).add_prefix("x")
    assert learn("pc", wide).nodes == tuple(wide.columns)


@pytest.mark.parametrize("score", ["bic", "bge"])
def test_kit_ges_with_gaussian_scores_needs_three_rows(score):
    with pytest.raises(ValueError, match=rf"the {score} score: found 2 rows, expected at least 3"):
        ges(CONTINUOUS.iloc[:2], score=score)
    assert ges(CONTINUOUS.iloc[:3], score=score).graph.nodes == ("a", "b", "c")


# ------------------------------------------------------------------ MMHC state codes
@pytest.mark.parametrize("codes,message", [
    ([0, -1, 1], r"column 'a' holds the negative code -1; expected state codes 0, 1"),
    (list(range(MAX_STATES + 1)), rf"column 'a' takes {MAX_STATES + 1} distinct states; expected at most {MAX_STATES}"),
    ([], r"found 0 rows of columns \['a', 'b'\]"),
], ids=["negative", "too many states", "no rows"])
def test_mmhc_state_codes_are_refused_naming_the_column(codes, message):
    with pytest.raises(ValueError, match=message):
        state_codes(pd.DataFrame({"a": codes, "b": 0}))


def test_mmhc_huge_codes_are_recoded_densely_not_allocated():
    """A code of 1e9 sized every table by it (23 GB); the check re-codes it (only the check
    is run here, never the learner on such data unguarded)."""
    codes = state_codes(pd.DataFrame({"a": [0, 10**9, 5, 10**9], "b": [0, 1, 2, 1]}))
    assert codes.tolist() == [[0, 0], [2, 1], [1, 2], [2, 1]]
    assert state_codes(DISCRETE).tolist() == DISCRETE.to_numpy().tolist()  # dense codes unchanged


def test_mmhc_gives_the_same_graph_for_gapped_codes():
    assert learn("mmhc", DISCRETE.assign(a=DISCRETE["a"] * 7), ci_test="g_test") == learn(
        "mmhc", DISCRETE, ci_test="g_test")


def test_mmhc_negative_codes_are_refused_through_learn():
    with pytest.raises(ValueError, match=r"column 'a' holds the negative code -5"):
        learn("mmhc", DISCRETE.assign(a=DISCRETE["a"] - 5), ci_test="chi_square")


# ------------------------------------------------------------------ declared output
@pytest.mark.parametrize("output,edges,message", [
    ("DAG", ["a - b"], r"learner 'h11_out' is declared output='DAG' but returned a CPDAG/PDAG .* "
                       r"undirected edge a - b"),
    ("DAG", ["a -> b", "b -> c", "c -> a"], r"declared output='DAG' but returned .* directed cycle a -> b -> c -> a"),
    ("DAG", ["a <-> b"], r"declared output='DAG' but returned .* bidirected edge a <-> b"),
    ("CPDAG", ["a o-> b"], r"declared output='CPDAG' but returned the circle-marked edge a o-> b"),
    ("MAG", ["a o- b"], r"declared output='MAG' but returned the circle-marked edge"),
])
def test_a_learner_returning_another_graph_class_is_refused(output, edges, message):
    @register_learner("h11_out", output=output, constant_columns=True)
    def wrong(data, *, ci_test, alpha, seed):
        return CausalGraph.from_edges(edges, nodes=list(data.columns))

    try:
        with pytest.raises(GraphError, match=message):
            learn("h11_out", DISCRETE)
    finally:
        del LEARNERS["h11_out"]


@pytest.mark.parametrize("output,edges", [("CPDAG", ["a -> b"]), ("CPDAG", ["a - b"]), ("PAG", ["a o-> b"]),
                                          ("MAG", ["a <-> b"])])
def test_a_learner_may_return_a_subclass_of_its_output(output, edges):
    @register_learner("h11_ok", output=output)
    def fine(data, *, ci_test, alpha, seed):
        return CausalGraph.from_edges(edges, nodes=list(data.columns))

    try:
        assert learn("h11_ok", DISCRETE).edges() == CausalGraph.from_edges(edges, nodes=["a", "b", "c"]).edges()
    finally:
        del LEARNERS["h11_ok"]


@pytest.mark.parametrize("output, edges, message", [
    ("CPDAG", ["a -> b", "b -> c", "c -> a"], "directed cycle"),
    ("MAG", ["a -> b", "b -> c", "c -> a"], "directed cycle"),
    ("MAG", ["a -> b", "b -> c", "a <-> c"], "ancestral"),
])
def test_a_plugin_learner_returning_a_graph_outside_its_class_is_refused(output, edges, message):
    """A plugin CPDAG with a directed cycle used to be accepted (its SHD NaN, 'graphs 0' in the table)."""
    from causaleval.api import learn_graphs
    from causaleval.learn.learners import LEARNERS, register_learner

    name = f"bad_{output.lower()}_{abs(hash(tuple(edges))) % 10_000}"

    @register_learner(name, output=output)
    def bad(data, *, ci_test, alpha, seed):
        return CausalGraph.from_edges(edges, nodes=["a", "b", "c"] + [c for c in data.columns if c not in "abc"])

    try:
        with pytest.raises(GraphError, match=rf"learner {name!r} on network 'cancer', seed 3: .*{message}"):
            learn_graphs("cancer", [name], n_samples=200, n_graphs=1, seed=3)
    finally:
        del LEARNERS[name]


# ------------------------------------------------------------------ an exception inside a plugin's learner
@pytest.mark.parametrize("error, shown", [
    (ZeroDivisionError("division by zero"), "ZeroDivisionError: division by zero"),
    (KeyError("x"), "KeyError: 'x'"),
    (ValueError("bad"), "ValueError: bad")])
def test_an_exception_inside_a_plugin_learner_names_the_learner(error, shown):
    from causaleval.learn.learners import LearnerFailed

    @register_learner("h37_boom", output="DAG")
    def boom(data, *, ci_test, alpha, seed):
        raise error

    try:
        with pytest.raises(LearnerFailed) as raised:
            learn("h37_boom", DISCRETE)
        assert str(raised.value) == (f"learner 'h37_boom' ({__name__}.test_an_exception_inside_a_plugin_learner_names_"
                                     f"the_learner.<locals>.boom, a plugin) raised {shown}")
        assert raised.value.__cause__ is error
    finally:
        LEARNERS.pop("h37_boom")
