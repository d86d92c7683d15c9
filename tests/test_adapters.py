"""The adapters to causal-learn's and pgmpy's other learners: each runs under the kit's signature,
returns a graph of its declared class (checked by ``learn``), the same graph for the same seed, and
leaves a constant column without edges; the exact searches refuse more variables than they take."""

import pandas as pd
import pytest

from causaleval.datasets.networks import draw_samples
from causaleval.learn import adapters
from causaleval.learn.learners import LEARNERS, learn

ADAPTED = ["pc_pgmpy", "ges_pgmpy", "exact_astar", "exact_dp", "grasp", "boss", "ica_lingam", "direct_lingam"]


@pytest.fixture(scope="module")
def asia():
    return draw_samples("asia", [], 600, 1, 0)[0]


@pytest.mark.parametrize("name", ADAPTED)
def test_an_adapter_is_registered_deterministic_and_isolates_constants(asia, name):
    assert LEARNERS[name].library in ("pgmpy", "causal-learn") and LEARNERS[name].constant_columns
    first = learn(name, asia, ci_test="chi_square", alpha=0.05, seed=1)
    assert first.nodes == tuple(asia.columns) and first.edges()
    assert (learn(name, asia, ci_test="chi_square", alpha=0.05, seed=1).matrix == first.matrix).all()
    constant = asia.assign(asia=0)
    graph = learn(name, constant, ci_test="chi_square", alpha=0.05, seed=1)
    assert not any("asia" in edge.split() for edge in graph.edges())


def test_exact_search_refuses_too_many_variables():
    wide = pd.DataFrame({f"x{i}": [0, 1] * 5 for i in range(adapters.EXACT_MAX_NODES + 1)})
    with pytest.raises(ValueError, match="exact_dp.*expected at most 12"):
        learn("exact_dp", wide, ci_test="chi_square", alpha=0.05, seed=0)
