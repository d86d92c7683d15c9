"""The fast MMHC: its tests equal pgmpy's, its MMPC equals a plain transcription of the paper."""

import itertools
import warnings

import numpy as np
import pytest
from scipy import stats

from causaleval.datasets import load_network
from causaleval.learn.mmhc import DiscreteData, mmhc, mmpc_skeleton
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
