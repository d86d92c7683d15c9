"""The kit's DAG-GFlowNet (Deleu et al. 2022), registered as posterior method ``dag_gflownet``.

Written from the paper (Deleu, Gois, Emezue, Rankawat, Lacoste-Julien, Bauer and Bengio 2022,
"Bayesian structure learning with generative flow networks", UAI; REFERENCES.md), in JAX.
Tested with jax 0.10.2, jaxlib 0.10.2, optax 0.2.8 (the optional ``bayes`` extra:
``pip install -e ".[bayes]"``); jax is imported only inside the functions.

* **States** are DAGs, built from the empty graph by adding one edge at a time; every state
  may also terminate (action ``stop``). An edge ``i -> j`` is allowed when it is absent and
  ``j`` does not reach ``i``: the reflexive transitive closure ``C`` (``C[a, b]``: a path
  a -> ... -> b) is kept incrementally, ``C' = C | C[:, i] C[j, :]^T`` after adding ``i -> j``,
  so the mask is ``~A & ~C^T`` (no self-loops, duplicates or cycles).
* **Reward** ``R(G) = exp(S(G))`` with the BGe score ``S`` of :class:`causaleval.learn.ges.BGeScore`
  and a uniform prior over DAGs (the target of ``mc3`` and of :mod:`causaleval.bayes.exact`).
  Its modularity gives ``log R(G') - log R(G) = bge(j, Pa(j) + i) - bge(j, Pa(j))`` for
  ``G' = G + (i -> j)``; all local scores are tabulated once (``d 2^(d-1)`` of them, so
  ``d <= 12``).
* **Loss**: the detailed-balance condition for DAGs where every state is terminal (paper,
  eq. 6), ``R(G') P_B(G | G') P_F(stop | G) = R(G) P_F(G' | G) P_F(stop | G')``, enforced by
  the Huber loss (delta 1, as in the paper) of the difference of the two sides' logarithms,
  averaged over a minibatch of transitions drawn uniformly from a replay buffer.
* **Policies**: the backward policy is uniform over the edges of ``G'`` (``1 / |E(G')|``).
  The forward policy is ``P_F(stop | G) = sigmoid(s(G))`` and ``P_F(G + e | G) = (1 -
  sigmoid(s(G))) softmax_e(l(G))`` over the allowed edges (stop is certain when none is
  allowed). Deviation: the paper's ``s`` and ``l`` come from a linear transformer over edge
  embeddings; here a small MLP (two hidden layers of ``gfn_hidden`` ReLU units) over the
  flattened adjacency matrix gives the ``d^2`` edge logits and the stop logit.
* **Exploration**: ``gfn_batch`` graphs are grown in parallel; with probability
  ``gfn_epsilon`` a step takes an action uniformly among the allowed ones (stop included),
  else it samples ``P_F``. A graph that stops starts again from the empty graph. Each step adds
  its ``gfn_batch`` edge transitions to the buffer and takes one Adam step.
* **Samples**: after training, ``n_samples`` graphs are grown by ``P_F`` alone (epsilon 0).

Options (``options`` mapping; the defaults train in a few seconds on one CPU at d = 5..11):

* ``gfn_steps`` (int >= 1, default 3000): training steps (one Adam update each).
* ``gfn_batch`` (int >= 1, default 32): parallel graphs, and transitions per minibatch.
* ``gfn_lr`` (float > 0, default 1e-3): Adam learning rate.
* ``gfn_epsilon`` (float in [0, 1], default 0.1): exploration probability.
* ``gfn_replay`` (int >= ``gfn_batch``, default 10000): replay-buffer capacity (transitions).
* ``gfn_hidden`` (int >= 1, default 128): units of each hidden layer.

Measured (one CPU, 200 samples): at d = 4..5 the defaults match the exact posterior's edge
marginals to a mean absolute error of 0.01-0.03 (tests/test_dag_gflownet.py,
benchmarks/bench_bayes_exact.py) in 2-3 s. At d = 11 (study 6's linear-Gaussian data, seed 0,
standardised) the defaults are undertrained: 31 edges per sample against MC3's 15 (mean
absolute edge-marginal difference 0.26); ``gfn_lr = 1e-4`` with ``gfn_steps = 10000`` (7 s)
gives 21 edges and 0.13; the paper trains 10^5 steps at learning rate 1e-5 with a target
network (not implemented here). Larger ``d`` needs longer, slower training than these defaults.

Deterministic for a seed: all randomness comes from ``jax.random.PRNGKey(seed)`` and XLA on
CPU is deterministic.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from causaleval.bayes.posteriors import integer_options, register_posterior

MAX_NODES = 12
DEFAULTS: dict[str, Any] = {"gfn_steps": 3000, "gfn_batch": 32, "gfn_lr": 1e-3, "gfn_epsilon": 0.1,
                            "gfn_replay": 10000, "gfn_hidden": 128}


def gfn_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The ``gfn_*`` options of ``options`` over :data:`DEFAULTS`, checked (module notes)."""
    out = dict(DEFAULTS)
    out.update({k: v for k, v in options.items() if k in DEFAULTS})
    counts = {k: DEFAULTS[k] for k in ("gfn_steps", "gfn_batch", "gfn_replay", "gfn_hidden")}
    out.update({k: int(v) for k, v in integer_options("dag_gflownet", options, counts).items()})
    if out["gfn_replay"] < out["gfn_batch"]:
        raise ValueError(f"dag_gflownet option gfn_replay={out['gfn_replay']}: expected at least "
                         f"gfn_batch={out['gfn_batch']} (the buffer must hold one step's transitions)")
    lr, eps = out["gfn_lr"], out["gfn_epsilon"]
    if isinstance(lr, bool) or not isinstance(lr, (int, float)) or not 0 < lr < np.inf:
        raise ValueError(f"dag_gflownet option gfn_lr={lr!r}: expected a positive finite number")
    if isinstance(eps, bool) or not isinstance(eps, (int, float)) or not 0 <= eps <= 1:
        raise ValueError(f"dag_gflownet option gfn_epsilon={eps!r}: expected a number in [0, 1]")
    out["gfn_lr"], out["gfn_epsilon"] = float(lr), float(eps)
    return out


def score_table(data: pd.DataFrame) -> np.ndarray:
    """``table[v, mask]``: the BGe local score of ``v`` with the parents in bit mask ``mask``."""
    from causaleval.learn.ges import BGeScore

    local = BGeScore(data.to_numpy(dtype=float))
    d = data.shape[1]
    table = np.zeros((d, 1 << d))
    for v in range(d):
        others = [u for u in range(d) if u != v]
        for k in range(d):
            for pa in itertools.combinations(others, k):
                table[v, sum(1 << u for u in pa)] = local(v, pa)
    return table


def _import_jax():
    try:
        import jax
        import optax
    except ImportError as err:
        raise ImportError("dag_gflownet needs jax and optax: pip install -e \".[bayes]\"") from err
    return jax, optax


@register_posterior("dag_gflownet")
def dag_gflownet(data: pd.DataFrame, *, n_samples: int, seed: int, options: Mapping[str, Any]) -> np.ndarray:
    """Train a DAG-GFlowNet on ``data`` and return ``n_samples`` DAGs from it (module notes)."""
    opts = gfn_options(options)
    d = data.shape[1]
    if not 2 <= d <= MAX_NODES:
        raise ValueError(f"dag_gflownet: data has {d} columns; expected 2..{MAX_NODES} "
                         f"(the BGe table has d 2^(d-1) entries)")
    jax, optax = _import_jax()
    from causaleval.bayes import _gfn_jax

    table = score_table(data)
    key = jax.random.PRNGKey(seed)
    train_key, sample_key = jax.random.split(key)
    params = _gfn_jax.train(jax, optax, table, opts, train_key)
    return np.asarray(_gfn_jax.sample(jax, params, d, n_samples, sample_key), dtype=bool)


dag_gflownet.max_nodes = MAX_NODES  # read by the studies: a larger data set is not run, and says why
