"""DiBS and Gadget posterior methods (causaleval.bayes.dibs, .gadget): determinism, output class, bad options, missing
extra."""

import builtins

import numpy as np
import pandas as pd
import pytest

from causaleval.bayes import POSTERIORS
from causaleval.graphs.marks import _acyclic

pytest.importorskip("dibs", reason='dibs-lib not installed: pip install -e ".[bayes]"')


def _data(d: int = 4) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    x = rng.normal(size=(80, d))
    x[:, 1] += 2 * x[:, 0]
    return pd.DataFrame(x, columns=[f"x{i}" for i in range(d)])


def test_dibs_deterministic_acyclic_bool_stack():
    opts = {"dibs_steps": 50}
    a = POSTERIORS["dibs"](_data(), n_samples=6, seed=3, options=opts)
    b = POSTERIORS["dibs"](_data(), n_samples=6, seed=3, options=opts)
    assert a.shape == (6, 4, 4) and a.dtype == bool
    assert np.array_equal(a, b)
    assert _acyclic(a).all()


def test_dibs_particles_are_drawn_in_turn():
    """``dibs_particles = k``: a run of ``k`` particles, sample ``j`` is particle ``j mod k``."""
    opts = {"dibs_steps": 50, "dibs_particles": 2}
    particles = POSTERIORS["dibs"](_data(), n_samples=2, seed=3, options={"dibs_steps": 50})
    drawn = POSTERIORS["dibs"](_data(), n_samples=5, seed=3, options=opts)
    assert np.array_equal(drawn, particles[[0, 1, 0, 1, 0]])


@pytest.mark.parametrize("bad", [{"dibs_steps": 0}, {"dibs_steps": 2.5}, {"dibs_edges_per_node": True},
                                 {"dibs_particles": 0}, {"dibs_particles": 1.5}])
def test_dibs_refuses_bad_options(bad):
    key = next(iter(bad))
    with pytest.raises(ValueError, match=key):
        POSTERIORS["dibs"](_data(), n_samples=2, seed=0, options=bad)


@pytest.mark.parametrize(("d", "expected"), [(4, 1), (5, 1), (6, 2), (11, 2), (20, 2)])
def test_dibs_prior_is_the_authors_two_edges_per_node_where_that_is_a_prior(d, expected):
    """dibs-lib's default of 2 edges per node has edge probability 4 / (d - 1), not below 1 for d <= 5."""
    from causaleval.bayes.dibs import edges_per_node

    assert edges_per_node(d, None) == expected
    assert edges_per_node(d, 1) == 1


def test_dibs_hands_its_prior_to_dibs_lib(monkeypatch):
    """The method builds dibs-lib's Erdos-Renyi prior with :func:`edges_per_node`'s choice."""
    import dibs.models

    class Built(Exception):  # stops the run once the prior is built: sampling is not under test
        pass

    def prior(n_vars, n_edges_per_node):
        raise Built(n_vars, n_edges_per_node)

    monkeypatch.setattr(dibs.models, "ErdosReniDAGDistribution", prior)
    seen = []
    for d, options in ((6, {}), (6, {"dibs_edges_per_node": 1}), (4, {})):
        with pytest.raises(Built) as built:
            POSTERIORS["dibs"](_data(d), n_samples=2, seed=0, options={"dibs_steps": 2, **options})
        seen.append(built.value.args)
    assert seen == [(6, 2), (6, 1), (4, 1)]


@pytest.mark.parametrize(("d", "k", "message"), [(5, 2, "expected at most 1 or None"),
                                                 (3, 1, "needs at least 4 variables"),
                                                 (3, None, "needs at least 4 variables")])
def test_dibs_refuses_a_prior_whose_edge_probability_is_not_below_one(d, k, message):
    with pytest.raises(ValueError,
                       match=rf"dibs_edges_per_node={k}( \(k = 1\))?: on {d} variables .* not below 1 .*{message}"):
        POSTERIORS["dibs"](_data(d), n_samples=2, seed=0, options={"dibs_steps": 5, "dibs_edges_per_node": k})


def test_dibs_names_the_extra_when_missing(monkeypatch):
    real = builtins.__import__

    def fake(name, *args, **kwargs):
        if name.startswith("dibs"):
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake)
    with pytest.raises(ImportError, match=r'pip install -e "\.\[bayes\]"'):
        POSTERIORS["dibs"](_data(), n_samples=2, seed=0, options={})


def test_gadget_deterministic_acyclic_bool_stack():
    pytest.importorskip("sumu", reason='sumu not installed: pip install -e ".[bayes]"')
    opts = {"gadget_burn_in": 200}
    a = POSTERIORS["gadget"](_data(), n_samples=20, seed=3, options=opts)
    b = POSTERIORS["gadget"](_data(), n_samples=20, seed=3, options=opts)
    assert a.shape == (20, 4, 4) and a.dtype == bool
    assert np.array_equal(a, b)
    assert _acyclic(a).all()
    assert (a[:, 0, 1] | a[:, 1, 0]).mean() > 0.9  # the strong x0 - x1 dependence is found


@pytest.mark.parametrize("bad", [{"gadget_thin": 0}, {"gadget_burn_in": "10"}, {"gadget_K": False}])
def test_gadget_refuses_bad_options(bad):
    key = next(iter(bad))
    with pytest.raises(ValueError, match=key):
        POSTERIORS["gadget"](_data(), n_samples=2, seed=0, options=bad)


def test_gadget_names_the_extra_when_missing(monkeypatch):
    real = builtins.__import__

    def fake(name, *args, **kwargs):
        if name.startswith("sumu"):
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake)
    with pytest.raises(ImportError, match=r'pip install -e "\.\[bayes\]"'):
        POSTERIORS["gadget"](_data(), n_samples=2, seed=0, options={})
