"""The fast MMHC: its tests equal pgmpy's, its MMPC equals a plain transcription of the paper, its
BDeu and log p values are pgmpy's and scipy's bit for bit, and so is its search."""

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from causaleval.datasets import load_network
from causaleval.learn.mmhc import DiscreteData, chi2_logsf, climb, counted_bdeu, mmhc, mmpc_skeleton
from causaleval.datasets.networks import forward_sample


@pytest.fixture(scope="module")
def asia():
    return forward_sample(load_network("asia"), 2000, seed=1).astype("int64")


def test_chi_square_equals_pgmpy_and_g_test_equals_scipy(asia):
    from pgmpy.estimators.CITests import chi_square

    data = DiscreteData(asia)
    names = list(asia.columns)
    rng = np.random.default_rng(0)
    for _ in range(60):
        x, y, *zs = (int(v) for v in rng.choice(len(names), size=2 + rng.integers(0, 3), replace=False))
        statistic, dof, log_p = data.ci_test(x, y, tuple(zs))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            chi, p, pgmpy_dof = chi_square(names[x], names[y], [names[z] for z in zs], asia, boolean=False)
        assert dof == pgmpy_dof and statistic == pytest.approx(chi, abs=1e-9)
        if dof:
            assert np.exp(log_p) == pytest.approx(p, abs=1e-12)
    table = np.histogram2d(asia["smoke"], asia["bronc"], bins=2)[0]
    g, p, _, _ = stats.chi2_contingency(table, lambda_="log-likelihood", correction=False)
    statistic, _, log_p = data.ci_test(names.index("smoke"), names.index("bronc"), (), "g_test")
    assert statistic == pytest.approx(g) and np.exp(log_p) == pytest.approx(p)


def _reference_mmpc(data: DiscreteData, target: int, alpha: float) -> set[int]:
    """MMPC as Tsamardinos et al. (2006) write it: minimum association over every subset
    of the candidate set, recomputed from scratch at every step (no caching)."""
    def assoc(x, zs):
        _, dof, log_p = data.ci_test(x, target, tuple(sorted(zs)))
        if dof == 0:
            return np.inf
        return 0.0 if log_p >= np.log(alpha) else -log_p

    def min_assoc(x, cpc):
        return min(assoc(x, zs) for size in range(len(cpc) + 1) for zs in itertools.combinations(cpc, size))

    cpc = []
    while True:
        scores = {x: min_assoc(x, cpc) for x in range(len(data.names)) if x != target and x not in cpc}
        live = {x: s for x, s in scores.items() if s > 0}
        if not live:
            break
        cpc.append(min(live, key=lambda x: (-live[x], x)))
    for x in list(cpc):
        others = [z for z in cpc if z != x]
        if min_assoc(x, others) == 0:
            cpc.remove(x)
    return set(cpc)


@pytest.mark.parametrize("network,n", [("asia", 2000), ("cancer", 3000), ("survey", 3000)])
def test_mmpc_skeleton_equals_the_plain_transcription(network, n):
    frame = forward_sample(load_network(network), n, seed=2).astype("int64")
    data = DiscreteData(frame)
    k = len(data.names)
    pcs = [_reference_mmpc(data, t, 0.01) for t in range(k)]
    expected = np.array([[t in pcs[x] and x in pcs[t] for x in range(k)] for t in range(k)])
    np.testing.assert_array_equal(mmpc_skeleton(data, 0.01), expected)


def test_mmhc_recovers_cancer_and_stays_in_its_skeleton():
    model = load_network("cancer")
    frame = forward_sample(model, 50000, seed=3).astype("int64")
    dag = mmhc(frame)
    learned = {frozenset(e) for e in zip(*[np.array(dag.nodes)[i] for i in np.nonzero(dag.directed_matrix())])}
    assert learned == {frozenset(map(str, e)) for e in model.edges()}
    skeleton = mmpc_skeleton(DiscreteData(frame))
    assert not (dag.directed_matrix() & ~skeleton).any()
    with pytest.raises(ValueError, match="unknown test"):
        mmhc(frame, test="fisher_z")


def _families(k: int, rng: np.random.Generator, n: int):
    for _ in range(n):
        variable, *parents = (int(v) for v in rng.choice(k, size=1 + rng.integers(0, 4), replace=False))
        yield variable, tuple(parents)


@pytest.mark.parametrize("source", ["alarm", "random codes"])
def test_counted_bdeu_is_pgmpys_bdeu_bit_for_bit(source):
    """The counts are taken another way, in the layout pandas gives pgmpy (columns in order of first
    appearance for several parents, row- or column-major): the scores must not differ in a bit,
    or the hill climbing could break a tie otherwise. Unseen configurations are common here."""
    from pgmpy.structure_score import BDeu

    rng = np.random.default_rng(4)
    if source == "alarm":
        frame = forward_sample(load_network("alarm"), 700, seed=5).astype("int64")
    else:  # gaps in the codes, a deterministic column
        frame = pd.DataFrame(rng.integers(0, 3, (150, 6)) * np.array([1, 1, 1, 5, 2, 1]))
        frame[5] = (frame[0] + frame[1]) % 3
    frame = frame.set_axis(range(frame.shape[1]), axis=1)
    ours, pgmpys = counted_bdeu(DiscreteData(frame), frame, 10.0), BDeu(frame, equivalent_sample_size=10.0)
    differ = [(v, ps) for v, ps in _families(frame.shape[1], rng, 400)
              if ours._local_score(v, ps) != pgmpys._local_score(v, ps)]
    assert differ == []


def test_chi2_logsf_is_scipys_bit_for_bit():
    rng = np.random.default_rng(1)
    statistics = np.concatenate([rng.exponential(10, 3000), rng.uniform(0, 3, 1000),
                                 [0.0, -1.0, 1e-300, 1e300, np.inf]])
    dofs = rng.integers(1, 60, len(statistics))
    assert [chi2_logsf(float(x), int(k)) for x, k in zip(statistics, dofs)] == \
        [float(stats.chi2.logsf(x, int(k))) for x, k in zip(statistics, dofs)]
    assert np.isnan(chi2_logsf(float("nan"), 3))


def test_the_search_is_pgmpys_with_its_own_bdeu():
    """The same DAG as pgmpy's HillClimbSearch scored by pgmpy's BDeu, inside the same skeleton."""
    from pgmpy.structure_score import BDeu

    frame = forward_sample(load_network("child"), 500, seed=6).astype("int64")
    dag = mmhc(frame)
    names = list(frame.columns)
    numbered = frame.set_axis(range(len(names)), axis=1)
    edges = climb(numbered, mmpc_skeleton(DiscreteData(frame)), BDeu(numbered, equivalent_sample_size=10.0))
    assert sorted((names[u], names[v]) for u, v in edges) == sorted(dag.directed_edges())
