"""The kit's BCD Nets (causaleval.bayes.bcd_nets): determinism, output class, bad options, the
authors' Horseshoe scale, missing extra, and the distance to the exact BGe posterior at d = 4."""

from __future__ import annotations

import numpy as np
import pytest

from causaleval.bayes import check, exact, sample_posterior
from causaleval.bayes.bcd_nets import bcd_nets, bcd_options, horseshoe_scale
from causaleval.graphs import _acyclic
from chains import chain_data

pytest.importorskip("jax", reason="bcd_nets needs the bayes extra: pip install -e \".[bayes]\"")
pytest.importorskip("optax", reason="bcd_nets needs the bayes extra: pip install -e \".[bayes]\"")


SMALL = {"bcd_steps": 200, "bcd_batch": 8}


def test_same_seed_same_sample_and_a_dag_stack():
    data = chain_data(6)
    a = sample_posterior("bcd_nets", data, n_samples=40, seed=3, options=SMALL)
    b = bcd_nets(data, n_samples=40, seed=3, options=SMALL)
    assert a.dtype == bool and a.shape == (40, 6, 6)
    assert _acyclic(a).all()
    np.testing.assert_array_equal(a, b)
    c = bcd_nets(data, n_samples=40, seed=4, options=SMALL)
    assert not np.array_equal(a, c)


@pytest.mark.parametrize("factorized", [False, True])
def test_threshold_zero_gives_complete_dags(factorized):
    """Every weight of ``L`` is non-zero almost surely: at threshold 0 each sample is a complete
    DAG (d(d-1)/2 edges), still acyclic, with q(P | L) and with the factorised q(P)."""
    data = chain_data(5)
    options = {**SMALL, "bcd_threshold": 0, "bcd_factorized": factorized}
    dags = bcd_nets(data, n_samples=20, seed=0, options=options)
    assert (dags.sum(axis=(1, 2)) == 10).all()
    assert _acyclic(dags).all()
    np.testing.assert_array_equal(dags, bcd_nets(data, n_samples=20, seed=0, options=options))


def test_the_authors_horseshoe_scale():
    """2 k / (sqrt(n) (d - 1 - 2 k)), and 1 / (2 d) where the denominator is not positive."""
    assert horseshoe_scale(11, 100, 1.0) == pytest.approx(0.025)
    assert horseshoe_scale(20, 100, 2.0) == pytest.approx(0.4 / 15)
    assert horseshoe_scale(3, 100, 1.0) == pytest.approx(1 / 6)
    assert horseshoe_scale(2, 100, 1.0) == pytest.approx(0.25)
    assert bcd_options({})["bcd_horseshoe_scale"] is None
    assert bcd_options({"bcd_horseshoe_scale": 1})["bcd_horseshoe_scale"] == 1.0


@pytest.mark.parametrize(("options", "message"), [
    ({"bcd_steps": 0}, r"bcd_nets option bcd_steps=0 \(int\): expected int >= 1"),
    ({"bcd_batch": 2.5}, r"bcd_nets option bcd_batch=2.5 \(float\): expected int >= 1"),
    ({"bcd_sinkhorn_iters": True}, r"bcd_nets option bcd_sinkhorn_iters=True \(bool\): expected int >= 1"),
    ({"bcd_lr": -1.0}, r"bcd_nets option bcd_lr=-1.0 \(float\): expected float > 0"),
    ({"bcd_temperature": 0}, r"bcd_nets option bcd_temperature=0 \(int\): expected float > 0"),
    ({"bcd_horseshoe_scale": float("inf")},
     r"bcd_horseshoe_scale=inf \(float\): expected finite float > 0 \| None"),
    ({"bcd_horseshoe_scale": "auto"}, r"bcd_horseshoe_scale='auto' \(str\): expected float > 0 \| None"),
    ({"bcd_edges_per_node": 0}, r"bcd_nets option bcd_edges_per_node=0 \(int\): expected float > 0"),
    ({"bcd_threshold": -0.1}, r"bcd_nets option bcd_threshold=-0.1 \(float\): expected float >= 0"),
    ({"bcd_threshold": "0.3"}, r"bcd_threshold='0.3' \(str\): expected float >= 0"),
    ({"bcd_lr": False}, r"bcd_lr=False \(bool\): expected float > 0"),
    ({"bcd_factorized": "yes"}, r"bcd_nets option bcd_factorized='yes' \(str\): expected bool"),
    ({"bcd_factorized": 1}, r"bcd_nets option bcd_factorized=1 \(int\): expected bool"),
])
def test_bad_options_are_refused(options, message):
    with pytest.raises(ValueError, match=message):
        bcd_options(options)


def test_missing_jax_names_the_install_command(monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "optax", None)
    with pytest.raises(ImportError, match=r'pip install -e "\.\[bayes\]"'):
        bcd_nets(chain_data(3), n_samples=1, seed=0, options={})


def test_distance_to_the_exact_posterior():
    """Measured on this d = 4 chain (x0 -> x1 -> x2, x3 isolated; seed 0, 1000 samples, 500 steps
    of batch 16, about 8 s): DAG TV 0.83 against a floor of 0.058 (the untrained model, 1 step:
    0.93; the defaults: 0.78), adjacencies x0-x1 and x1-x2 0.89 and 0.91, x3's at most 0.02, but
    x0-x2 0.89 where the exact posterior has 0.10. Required: it learns the skeleton (true
    adjacencies > 0.8, x3's < 0.1) and is, as measured, no sampler of the exact posterior (TV
    more than 4 floors, x0-x2 > 0.5); TV < 0.9 (below the untrained model's)."""
    data = chain_data(4)
    sample = bcd_nets(data, n_samples=1000, seed=0, options={"bcd_steps": 500, "bcd_batch": 16})
    freq = sample.mean(axis=0)
    adjacency = freq + freq.T
    assert adjacency[0, 1] > 0.8 and adjacency[1, 2] > 0.8
    assert adjacency[3, :3].max() < 0.1
    assert adjacency[0, 2] > 0.5 > exact.edge_marginals(data)[[0, 2], [2, 0]].sum()
    tv = exact.dag_tv(sample, data)
    assert 4 * check.tv_floor(data, 1000, 0) < tv < 0.9
