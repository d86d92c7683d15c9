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
  Its modularity gives ``log R(G') - log R(G) = bge(j, Pa(j) | {i}) - bge(j, Pa(j))`` for
  ``G' = G + (i -> j)``: only ``j``'s family changes. With ``R`` the BGe matrix
  (``t I + X_c^T X_c + n alpha_mu / (n + alpha_mu) m m^T``), ``L(S) = log det R[S, S]``
  (``L({}) = 0``), ``k = |P|`` and ``a_k = alpha_w - d + k + 1``,
  ``bge(j, P) = g[k] - (n + a_k) / 2 (L(P + j) - L(P)) - L(P) / 2``, where ``g[k]`` (the
  constant, ``lgamma((n + a_k) / 2) - lgamma(a_k / 2)`` and ``(a_k + k) / 2 log t``) depends
  on ``k`` only. **Delta scores on the fly**: ``L(S)`` is the log-determinant of
  ``R m m^T + diag(1 - m)`` (``m`` the 0/1 membership vector: non-members' rows and columns
  become the identity's), by Cholesky (``2 sum log diag``); the four sets ``P``, ``P + j``,
  ``P + i``, ``P + i + j`` of every transition of a training step go through one jitted batched
  factorisation of ``4 B`` matrices ``d x d``, in float64 (training runs under
  ``jax.enable_x64``; the network stays float32). They equal ``BGeScore`` differences to about
  1e-13 relative (tests). Nothing is tabulated, so there is no size limit (the old table of
  ``d 2^(d-1)`` local scores capped ``d`` at 12). No cache: at d = 20 the delta scores of a
  step take about 0.1 ms of its 1.1-1.3 ms (the network's passes are the rest), so a cache
  could save at most that share.
* **Loss**: the detailed-balance condition for DAGs where every state is terminal (paper,
  eq. 6), ``R(G') P_B(G | G') P_F(stop | G) = R(G) P_F(G' | G) P_F(stop | G')``, enforced by
  the Huber loss (delta 1, as in the paper) of the difference of the two sides' logarithms,
  averaged over a minibatch of transitions drawn uniformly from a replay buffer, one Adam step
  per training step. With ``gfn_target_every = k > 0`` the next-state term
  ``log P_F(stop | G')`` comes from a target network (no gradient through it), a copy of the
  online network refreshed every ``k`` steps, as in the paper and its code; with ``k = 0``
  (default) it comes from the online network, gradient included.
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

Deviations from the paper and its code (tristandeleu/jax-dag-gflownet, read to check details
only): the MLP above instead of the linear transformer; a constant ``gfn_epsilon`` instead of
their schedule (1,000 prefill steps of the uniform policy, then exploration annealed linearly
from 1 to 0.1 over half the steps); ``gfn_batch`` parallel graphs (theirs: 8 environments, a
minibatch of 32); no ``zero_nans`` in the optimiser; and, by default, the training budget
below with no target network.

Options (``options`` mapping; defaults chosen for what works best per second on one CPU, see
Measured):

* ``gfn_steps`` (int >= 1, default 3000; paper 100000): training steps (one Adam update each).
* ``gfn_batch`` (int >= 1, default 32; paper 32): parallel graphs, and transitions per minibatch.
* ``gfn_lr`` (float > 0, default 2e-4; paper 1e-5): Adam learning rate.
* ``gfn_epsilon`` (float in [0, 1], default 0.1; paper 0.1 at the end of its schedule):
  exploration probability.
* ``gfn_replay`` (int >= ``gfn_batch``, default 10000; paper 100000): replay-buffer capacity
  (transitions).
* ``gfn_hidden`` (int >= 1, default 128): units of each hidden layer.
* ``gfn_target_every`` (int >= 0, default 0; paper 1000): steps between refreshes of the
  target network of the loss's next-state term; 0 for none (module notes).

The paper's settings are therefore ``{"gfn_lr": 1e-5, "gfn_steps": 100000, "gfn_target_every":
1000, "gfn_replay": 100000}`` (43 s per trial at d = 11 and 83-111 s at d = 20 on one core here).

Measured (one core, beside other work; seconds per trial include JAX compilation). Against the
exact posterior (chain data of the tests, 1,000 samples) the defaults give a mean absolute
edge-marginal error of 0.010 at d = 4 and 0.016 at d = 5 in about 2 s (the old learning rate
1e-3: 0.016 and 0.015). Against MC3 (``mc3_burn_in`` 20000, ``mc3_thin`` 50, 200 DAGs, seed
0) on study 6's data, standardised, ``n_samples`` 1000 (with 21 samples each trial is 0.7-1.7 s
shorter; 6.4 s at d = 20):

* Sachs, d = 11 (MC3: 10.5 edges per sample): defaults 5.7 s, 14.8 edges, mean absolute
  edge-marginal difference 0.123; 20000 steps 11.5 s, 55 edges (the complete DAG every time),
  0.455; the paper's settings 43 s, 14.1 edges, 0.108; the old defaults (lr 1e-3) 55 edges, 0.457.
* synthetic, d = 20, n = 100, 40 expected edges, noise sd 0.1, seed 0 (MC3: 63.4 edges):
  defaults 8.1 s, 45.6 edges, 0.180; 20000 steps 23.9 s, 105 edges, 0.260; the paper's
  settings 111 s, 84 edges, 0.288; the old defaults 91 edges, 0.248.

For scale, a sampler that always returns the empty graph differs from MC3 by 0.096 (d = 11) and
0.167 (d = 20): at d = 11 and 20 none of these runs approximates the posterior. The
detailed-balance loss stays far from 0 (mean Huber loss 2.5-6 per transition after 10^4 steps
or more at learning rates of 3e-4 and above; rising, to 100-200 on Sachs, at lower rates as the
sampler reaches denser graphs): an added edge changes the log-reward by a few nats typically
but by tens (d = 20; 95th percentile 28 on random transitions) or hundreds (Sachs, 853 rows;
330) for strongly dependent pairs, and the Huber loss caps each transition's gradient. Longer
training at the defaults' rate drifts to dense graphs. Learning rates 1e-4 and 3e-5 stay sparser (Sachs 0.05-0.06, d = 20 0.14-0.15, near the empty
graph's) but miss at d = 5 (0.046 at 1e-4); 2e-4 is the default as the best where the
truth is known and far better than 1e-3 at d = 11 and 20. A target network (every 10, 100 or
1000 steps, lr 1e-4, 10000 steps at d = 20) made the loss and the edge counts worse than none
(94-152 edges against 69), so the default is none.

Deterministic for a seed: all randomness comes from ``jax.random.PRNGKey(seed)`` and XLA on
CPU is deterministic.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from causaleval.bayes.posteriors import integer_options, optional_modules, register_posterior

DEFAULTS: dict[str, Any] = {"gfn_steps": 3000, "gfn_batch": 32, "gfn_lr": 2e-4, "gfn_epsilon": 0.1,
                            "gfn_replay": 10000, "gfn_hidden": 128, "gfn_target_every": 0}


def gfn_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """The ``gfn_*`` options of ``options`` over :data:`DEFAULTS`, checked (module notes)."""
    out = dict(DEFAULTS)
    out.update({k: v for k, v in options.items() if k in DEFAULTS})
    counts = {k: DEFAULTS[k] for k in ("gfn_steps", "gfn_batch", "gfn_replay", "gfn_hidden")}
    out.update({k: int(v) for k, v in integer_options("dag_gflownet", options, counts).items()})
    every = out["gfn_target_every"]
    if isinstance(every, bool) or not isinstance(every, (int, np.integer)) or every < 0:
        raise ValueError(f"dag_gflownet option gfn_target_every={every!r}: expected a non-negative integer "
                         "(0: no target network)")
    out["gfn_target_every"] = int(every)
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


def delta_scores(data: pd.DataFrame, adj: np.ndarray, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    """``bge(j, Pa(j) | {i}) - bge(j, Pa(j))`` (float64) for each graph of the ``(B, d, d)`` stack
    ``adj`` and its edge ``i[b] -> j[b]`` (absent), by the batched masked log-determinants the
    training uses (module notes)."""
    (jax,) = optional_modules("dag_gflownet", "jax")
    from causaleval.bayes import _gfn_jax

    terms = _gfn_jax.bge_terms(data.to_numpy(dtype=float))
    with jax.enable_x64(True):
        out = jax.jit(lambda a, x, y: _gfn_jax.delta_score(jax, terms, a, x, y))(
            np.asarray(adj, dtype=bool), np.asarray(i), np.asarray(j))
        return np.asarray(out, dtype=float)


@register_posterior("dag_gflownet")
def dag_gflownet(data: pd.DataFrame, *, n_samples: int, seed: int, options: Mapping[str, Any]) -> np.ndarray:
    """Train a DAG-GFlowNet on ``data`` and return ``n_samples`` DAGs from it (module notes)."""
    opts = gfn_options(options)
    d = data.shape[1]
    if d < 2:
        raise ValueError(f"dag_gflownet: data has {d} columns; expected at least 2")
    jax, optax = optional_modules("dag_gflownet", "jax", "optax")
    from causaleval.bayes import _gfn_jax

    terms = _gfn_jax.bge_terms(data.to_numpy(dtype=float))
    key = jax.random.PRNGKey(seed)
    train_key, sample_key = jax.random.split(key)
    with jax.enable_x64(True):  # the delta scores in float64; the network stays float32
        params, _ = _gfn_jax.train(jax, optax, terms, opts, train_key)
    return np.asarray(_gfn_jax.sample(jax, params, d, n_samples, sample_key), dtype=bool)
