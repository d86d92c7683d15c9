"""The exact BGe posterior by enumeration (causaleval.bayes.exact) and MC3's convergence to it."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from causaleval.bayes import exact, posteriors
from causaleval.learn.ges import BGeScore


def chain_data(d: int, n: int = 100, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d))
    for v in range(1, min(d, 3)):
        x[:, v] += 0.8 * x[:, v - 1]
    return pd.DataFrame(x, columns=[f"x{v}" for v in range(d)])


def test_enumeration_counts_are_robinsons():
    # Robinson (1973): labelled DAGs on 1..5 nodes
    assert [len(exact.all_dags(d)) for d in range(1, 6)] == [1, 3, 25, 543, 29281]
    dags = exact.all_dags(4)
    assert len({a.tobytes() for a in dags}) == len(dags)
    assert not dags[:, np.arange(4), np.arange(4)].any()


def test_refuses_more_than_five_variables():
    with pytest.raises(ValueError, match="d = 6 variables; enumeration is limited to 1..5"):
        exact.edge_marginals(chain_data(6))


def test_posterior_sums_to_one_and_marginals_match_brute_force():
    data = chain_data(3)
    post = exact.exact_posterior(data)
    assert post.probs.sum() == pytest.approx(1.0, abs=1e-12)
    local = BGeScore(data.to_numpy())
    # brute force: every 0/1 matrix on 3 nodes, keep the acyclic ones, score by posteriors.log_score
    weights, mats = [], []
    pairs = [(i, j) for i in range(3) for j in range(3) if i != j]
    for bits in itertools.product([0, 1], repeat=len(pairs)):
        a = np.zeros((3, 3), dtype=bool)
        for b, (i, j) in zip(bits, pairs):
            a[i, j] = b
        if not np.linalg.matrix_power(a.astype(int), 3).any():  # nilpotent: acyclic
            mats.append(a)
            weights.append(posteriors.log_score(local, a))
    assert len(mats) == 25
    w = np.exp(np.array(weights) - max(weights))
    w /= w.sum()
    brute = np.einsum("k,kij->ij", w, np.array(mats, dtype=float))
    np.testing.assert_allclose(exact.edge_marginals(data), brute, atol=1e-12)


def test_ate_distribution_sums_to_one_and_weighs_the_no_path_dags():
    data = chain_data(4)
    values, probs = exact.ate_distribution(data, 0, 2)
    assert probs.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.all(np.diff(values) > 0)
    post = exact.exact_posterior(data)
    ates = exact.dag_ates(data, post.dags, 0, 2)
    assert probs[values == 0.0].sum() == pytest.approx(post.probs[ates == 0.0].sum(), abs=1e-12)
    with pytest.raises(ValueError, match="ATE pair"):
        exact.ate_distribution(data, 1, 1)


def test_distances_are_zero_at_the_mode_only_when_it_is_the_posterior():
    data = chain_data(3)
    post = exact.exact_posterior(data)
    mode = post.dags[[int(np.argmax(post.probs))]]
    assert exact.dag_tv(mode, data) == pytest.approx(1 - post.probs.max())
    assert exact.edge_distance(mode, data) > 0
    with pytest.raises(ValueError, match="stack of DAGs"):
        exact.edge_distance(np.zeros((0, 3, 3), dtype=bool), data)


def test_mc3_long_chain_converges_to_the_exact_marginals():
    """Tolerance from measurement: on this d = 4 data, 5000 samples (burn-in 2000, thin 10)
    of seeds 0..2 gave mean absolute edge errors 0.003-0.007 and max 0.007-0.016; with 20000
    samples we require mean < 0.01 and max < 0.03. A 100-step chain misses both."""
    data = chain_data(4)
    opts = {"mc3_burn_in": 2000, "mc3_thin": 10}
    sample = posteriors.mc3(data, n_samples=20000, seed=0, options=opts)
    error = np.abs(sample.mean(axis=0) - exact.edge_marginals(data))
    assert exact.edge_distance(sample, data) < 0.01
    assert error.max() < 0.03
    short = posteriors.mc3(data, n_samples=100, seed=0, options={"mc3_burn_in": 0, "mc3_thin": 1})
    assert (exact.edge_distance(short, data) > 0.01
            or np.abs(short.mean(axis=0) - exact.edge_marginals(data)).max() > 0.03)
    assert exact.ate_distance(sample, data, 0, 2) < 0.02
    assert math.isfinite(exact.dag_tv(sample, data))


def test_tempered_mc3s_cold_copy_samples_the_exact_posterior():
    """Copy 0 of four tempered copies keeps p(G | D): its marginals within the untempered chain's
    bound above (measured: mean 0.003, max 0.008). The hottest copy (beta = 0.125) spreads over about
    240 of the 543 DAGs; with the swap test's sign flipped, or a swap that left the scores behind, copy
    0's mean edge error was 0.15 and 0.09 (both checked by mutating the kernel). Swaps happen, not always."""
    data = chain_data(4)
    opts = {"mc3_burn_in": 2000, "mc3_thin": 10, "mc3_copies": 4, "mc3_beta_ratio": 0.5}
    sample = posteriors.mc3(data, n_samples=20000, seed=0, options=opts)
    error = np.abs(sample.mean(axis=0) - exact.edge_marginals(data))
    assert exact.edge_distance(sample, data) < 0.01 and error.max() < 0.03
    assert np.array_equal(sample, posteriors.mc3(data, n_samples=20000, seed=0, options=opts))
    steps, swaps = 2000 + 20000 * 10, np.zeros(3, dtype=np.int64)
    blocks = posteriors.mc3_proposals(np.random.default_rng(0), 4, steps, copies=4)
    kept = posteriors._mc3_compiled(BGeScore(data.to_numpy(float)), 4, blocks, 2000, 10, 20000,
                                    posteriors.mc3_betas(4, 0.5), swaps)
    assert np.array_equal(kept, sample)
    assert (swaps > 0.05 * steps / 3).all() and (swaps < 0.95 * steps / 3).all()


@pytest.mark.parametrize("copies", [2, 3])
def test_tempered_copies_carry_their_states_and_scores_across_blocks_and_calls(copies, monkeypatch):
    """The same proposals in one block, or cut into blocks of 7,001 steps run in calls of 977 copy
    steps: the same kept states and swaps, so the copies' states, scores and swap counts carry over both
    boundaries (a score reset per block or per call would change the swaps)."""
    data, steps = chain_data(9, n=60, seed=3), 30000
    local, betas = BGeScore(data.to_numpy(float)), posteriors.mc3_betas(copies, 0.6)
    whole = next(posteriors.mc3_proposals(np.random.default_rng(copies), 9, steps, copies))
    one_swaps, cut_swaps = np.zeros(copies - 1, np.int64), np.zeros(copies - 1, np.int64)
    one = posteriors._mc3_compiled(local, 9, [whole], 1000, 29, 1000, betas, one_swaps)
    monkeypatch.setattr(posteriors._mc3_jit, "CHUNK", 977)
    blocks = [tuple(a[at:at + 7001] for a in whole) for at in range(0, steps, 7001)]
    cut = posteriors._mc3_compiled(local, 9, blocks, 1000, 29, 1000, betas, cut_swaps)
    assert one.any() and np.array_equal(one, cut)
    assert (one_swaps > 0).all() and np.array_equal(one_swaps, cut_swaps)


def test_tempered_chain_refuses_a_block_whose_swap_proposals_do_not_fit_its_copies():
    """A hand-built block with fewer swap proposals than steps, or a swap of a pair past the last
    copy, is refused by name before the compiled loop reads past its arrays."""
    data = chain_data(5)
    local, betas = BGeScore(data.to_numpy(float)), posteriors.mc3_betas(3, 0.6)
    pairs, log_u, swap_pair, swap_log_u = next(posteriors.mc3_proposals(np.random.default_rng(0), 5, 100, 3))
    for bad in ((pairs, log_u, swap_pair[:50], swap_log_u[:50]), (pairs, log_u, swap_pair + 1, swap_log_u)):
        with pytest.raises(ValueError, match="needs as many swap proposals, each an adjacent pair 0 .. 1"):
            posteriors._mc3_compiled(local, 5, [bad], 0, 1, 100, betas)


def test_tempered_mc3_is_refused_beyond_the_compiled_chains_nodes_and_outside_its_ladder(monkeypatch):
    data = chain_data(5)
    for bad, expected in (({"mc3_copies": 0}, "mc3_copies"), ({"mc3_beta_ratio": 1.0}, "mc3_beta_ratio"),
                          ({"mc3_beta_ratio": 0.0}, "mc3_beta_ratio")):
        with pytest.raises(ValueError, match=expected):
            posteriors.mc3(data, n_samples=5, seed=0, options={"mc3_burn_in": 0, "mc3_thin": 1} | bad)
    monkeypatch.setattr(posteriors._mc3_jit, "MAX_NODES", 4)
    refused = "mc3: mc3_copies=2 \\(parallel tempering\\) runs on at most 4 variables, not 5"
    with pytest.raises(ValueError, match=refused):
        posteriors.check_size("mc3", 5, {"mc3_copies": 2})
    with pytest.raises(ValueError, match=refused):
        posteriors.mc3(data, n_samples=5, seed=0, options={"mc3_burn_in": 0, "mc3_thin": 1, "mc3_copies": 2})
    posteriors.check_size("mc3", 5, {"mc3_copies": 1})


@pytest.mark.parametrize("d, n", [(4, 50), (9, 200), (14, 30)])
def test_the_compiled_mc3_chain_keeps_the_python_chains_states_bit_for_bit(d, n, monkeypatch):
    """Same proposals, same accept tests, same kept states: the compiled chain is a re-expression,
    not another sampler. d = 14 at n = 30 gives a dense, fast-moving chain (many reversals); blocks
    of 7,001 proposals and calls of 977 steps put both boundaries inside the burn-in and between kept
    states."""
    monkeypatch.setattr(posteriors._mc3_jit, "CHUNK", 977)
    data = chain_data(d, n=n, seed=d)
    steps = 30000
    whole = next(posteriors.mc3_proposals(np.random.default_rng(d), d, steps))
    blocks = [tuple(a[at:at + 7001] for a in whole) for at in range(0, steps, 7001)]
    kept = [chain(BGeScore(data.to_numpy(float)), d, proposals, 1000, 29, 1000)
            for chain, proposals in ((posteriors.mc3_chain, [whole]), (posteriors._mc3_compiled, blocks))]
    assert kept[0].any() and kept[0].mean(axis=0).std() > 0
    assert np.array_equal(kept[0], kept[1])


@pytest.mark.parametrize("d, n", [(6, 12), (20, 20), (20, 500)])
def test_the_compiled_chains_family_scores_are_bges_bit_for_bit(d, n):
    """Numba's slogdet (LAPACK through SciPy's OpenBLAS) and the per-size terms give BGeScore's own
    floats (NumPy's slogdet) for every parent-set size, the empty set included."""
    local = BGeScore(chain_data(d, n=n, seed=n).to_numpy(float))
    base, coef = posteriors.bge_terms(local, d)
    rng = np.random.default_rng(d + n)
    for _ in range(400):
        node = int(rng.integers(d))
        others = [v for v in range(d) if v != node]
        parents = tuple(sorted(rng.choice(others, int(rng.integers(0, min(d - 1, 9) + 1)), replace=False).tolist()))
        mask = sum(1 << v for v in parents)
        assert posteriors._mc3_jit.family_score(local.r, base, coef, node, mask) == local.compute(node, parents)


def test_mc3_draws_its_proposals_in_blocks_of_bounded_size(monkeypatch):
    monkeypatch.setattr(posteriors, "MC3_BLOCK", 1000)
    blocks = list(posteriors.mc3_proposals(np.random.default_rng(0), 5, 2500))
    assert [p.shape for p, *_ in blocks] == [(1000, 1), (1000, 1), (500, 1)]
    assert all(u.shape == p.shape and len(a) == len(b) == 0 for p, u, a, b in blocks)
    pairs = np.concatenate([p for p, *_ in blocks])
    assert pairs.min() >= 0 and pairs.max() < 20 and all((u < 0).all() for _, u, *_ in blocks)
    tempered = list(posteriors.mc3_proposals(np.random.default_rng(0), 5, 2500, copies=4))  # 250 steps of 4 a block
    assert [p.shape for p, *_ in tempered] == [(250, 4)] * 10
    assert all(len(a) == len(b) == 250 and set(a) == {0, 1, 2} and (b < 0).all() for _, _, a, b in tempered)


def test_mc3_runs_the_python_chain_beyond_the_compiled_chains_nodes(monkeypatch):
    data = chain_data(5)
    compiled = posteriors.mc3(data, n_samples=50, seed=3, options={"mc3_burn_in": 100, "mc3_thin": 7})
    monkeypatch.setattr(posteriors._mc3_jit, "MAX_NODES", 4)
    monkeypatch.setattr(posteriors, "_mc3_compiled", None)  # would fail if called
    assert np.array_equal(posteriors.mc3(data, n_samples=50, seed=3, options={"mc3_burn_in": 100, "mc3_thin": 7}),
                          compiled)


def test_an_erdos_renyi_prior_reweighs_the_uniform_posterior_by_its_edges():
    data, p = chain_data(4), 0.3
    uniform, er = exact.exact_posterior(data), exact.exact_posterior(data, exact.erdos_renyi_prior(4, p))
    edges = uniform.dags.sum(axis=(1, 2))
    w = uniform.probs * p ** edges * (1 - p) ** (6 - edges)  # p^|E| (1 - p)^(d (d - 1) / 2 - |E|)
    np.testing.assert_allclose(er.probs, w / w.sum(), rtol=1e-10, atol=1e-15)
    assert er.dags.sum(axis=(1, 2)) @ er.probs < edges @ uniform.probs  # p < 1/2 favours fewer edges


def test_the_fair_prior_is_sumus_own_local_scores():
    sumu = pytest.importorskip("sumu", reason="sumu (Gadget's package, the bayes extra) is not installed")
    from sumu.gadget import LocalScore

    data = chain_data(4)
    local = LocalScore(data=sumu.Data(data.to_numpy(), discrete=False), scoref="bge", prior="fair", maxid=-1)
    post = exact.exact_posterior(data, exact.fair_prior(4))
    theirs = np.array([sum(local.local(v, np.flatnonzero(a[:, v]).astype(np.int32)) for v in range(4))
                       for a in post.dags])
    w = np.exp(theirs - theirs.max())
    np.testing.assert_allclose(post.probs, w / w.sum(), rtol=1e-9, atol=1e-15)


@pytest.mark.parametrize("bad", [[0.0, 1.0], [0.0, 1.0, 2.0, float("inf")]])
def test_a_log_prior_of_the_wrong_length_or_not_finite_is_refused(bad):
    with pytest.raises(ValueError, match=r"log_prior must give d = 4 finite values \(parent counts 0..3\)"):
        exact.dag_tv(exact.all_dags(4)[:3], chain_data(4), bad)
    with pytest.raises(ValueError, match="edge probability p = 1.5 on 4 nodes; expected 0 < p < 1"):
        exact.erdos_renyi_prior(4, 1.5)
