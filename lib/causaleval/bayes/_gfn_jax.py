"""JAX internals of :mod:`causaleval.bayes.dag_gflownet` (environment, policy, loss, training
loop, sampling); formulas in that module's notes. Callers pass the ``jax`` and ``optax``
modules in, so importing this file needs neither."""

from __future__ import annotations

from typing import Any

import numpy as np


def _init(jax, d: int, hidden: int, key) -> dict:
    jnp = jax.numpy
    sizes = [d * d, hidden, hidden, d * d + 1]
    params = {}
    for k, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        key, sub = jax.random.split(key)
        params[f"w{k}"] = jax.random.normal(sub, (a, b)) * jnp.sqrt(2.0 / a)
        params[f"b{k}"] = jnp.zeros(b)
    params["w2"] = params["w2"] * 0.01  # near-uniform policy at the start
    return params


def _log_policy(jax, params: dict, adj, mask):
    """``(B, d*d + 1)`` log P_F over (edges, stop); -inf on disallowed edges."""
    jnp = jax.numpy
    b, d = adj.shape[0], adj.shape[1]
    h = adj.reshape(b, d * d)
    h = jax.nn.relu(h @ params["w0"] + params["b0"])
    h = jax.nn.relu(h @ params["w1"] + params["b1"])
    out = h @ params["w2"] + params["b2"]
    flat = mask.reshape(b, d * d)
    logits = jnp.where(flat, out[:, :-1], -jnp.inf)
    any_edge = flat.any(axis=1)
    log_stop = jnp.where(any_edge, jax.nn.log_sigmoid(out[:, -1]), 0.0)
    log_go = jnp.where(any_edge, jax.nn.log_sigmoid(-out[:, -1]), -jnp.inf)
    safe = jnp.where(any_edge[:, None], logits, 0.0)
    log_edges = jnp.where(flat, log_go[:, None] + jax.nn.log_softmax(safe, axis=1), -jnp.inf)
    return jnp.concatenate([log_edges, log_stop[:, None]], axis=1)


def _mask(adj, closure):
    """Allowed edges: absent and not closing a cycle (``j`` does not reach ``i``)."""
    return ~adj & ~closure.transpose(0, 2, 1)


def _add(jax, adj, closure, action, active):
    """Add edge ``action`` (flat ``i * d + j``) where ``active``, updating the closure."""
    jnp = jax.numpy
    d = adj.shape[1]
    i, j = action // d, action % d
    rows = jnp.arange(adj.shape[0])
    onehot = (jnp.arange(d)[None, :, None] == i[:, None, None]) & (jnp.arange(d)[None, None, :] == j[:, None, None])
    into_i = closure[rows, :, i]  # (B, d): nodes reaching i
    from_j = closure[rows, j, :]  # (B, d): nodes j reaches
    new_closure = closure | (into_i[:, :, None] & from_j[:, None, :])
    act = active[:, None, None]
    return jnp.where(act, adj | onehot, adj), jnp.where(act, new_closure, closure)


def _delta(jax, table, adj, action):
    """``bge(j, Pa(j) + i) - bge(j, Pa(j))`` for each edge ``i -> j`` added to ``adj``."""
    jnp = jax.numpy
    d = adj.shape[1]
    i, j = action // d, action % d
    masks = jnp.einsum("bij,i->bj", adj.astype(jnp.int32), 2 ** jnp.arange(d, dtype=jnp.int32))
    pa = masks[jnp.arange(adj.shape[0]), j]
    return table[j, pa | (1 << i)] - table[j, pa]


def _draw(jax, params, adj, closure, epsilon, key):
    jnp = jax.numpy
    b, d = adj.shape[0], adj.shape[1]
    logp = _log_policy(jax, params, adj.astype(jnp.float32), _mask(adj, closure))
    allowed = jnp.isfinite(logp)
    k1, k2, k3 = jax.random.split(key, 3)
    greedy = jax.random.categorical(k1, logp, axis=1)
    uniform = jax.random.categorical(k2, jnp.where(allowed, 0.0, -jnp.inf), axis=1)
    explore = jax.random.uniform(k3, (b,)) < epsilon
    return jnp.where(explore, uniform, greedy)


def train(jax, optax, table: np.ndarray, opts: dict[str, Any], key) -> dict:
    """Fit the forward policy by the detailed-balance loss (module notes of dag_gflownet)."""
    jnp = jax.numpy
    d = table.shape[0]
    b, cap = opts["gfn_batch"], opts["gfn_replay"]
    table = jnp.asarray(table, dtype=jnp.float32)
    key, init_key = jax.random.split(key)
    params = _init(jax, d, opts["gfn_hidden"], init_key)
    opt = optax.adam(opts["gfn_lr"])
    eye = jnp.broadcast_to(jnp.eye(d, dtype=bool), (b, d, d))
    empty = jnp.zeros((b, d, d), dtype=bool)

    def loss_fn(p, adj, action, nxt, delta):
        f = jnp.float32
        lp = _log_policy(jax, p, adj.astype(f), _mask(adj, _closure(jax, adj)))
        lq = _log_policy(jax, p, nxt.astype(f), _mask(nxt, _closure(jax, nxt)))
        rows = jnp.arange(adj.shape[0])
        log_pb = -jnp.log(nxt.sum(axis=(1, 2)).astype(f))
        diff = delta + log_pb + lp[:, -1] - lp[rows, action] - lq[:, -1]
        return optax.huber_loss(diff, delta=1.0).mean()

    def step(carry, k):
        p, state, adj, closure, buf, count = carry
        k_act, k_batch = jax.random.split(k)
        action = _draw(jax, p, adj, closure, opts["gfn_epsilon"], k_act)
        is_edge = action < d * d
        nxt, nclosure = _add(jax, adj, closure, jnp.minimum(action, d * d - 1), is_edge)
        delta = _delta(jax, table, adj, jnp.minimum(action, d * d - 1))
        # store the edge transitions; a stop stores nothing (its slot is out of range, dropped)
        order = jnp.cumsum(is_edge) - 1
        slots = jnp.where(is_edge, (count + order) % cap, cap)
        buf = {"adj": buf["adj"].at[slots].set(adj, mode="drop"),
               "action": buf["action"].at[slots].set(action, mode="drop"),
               "next": buf["next"].at[slots].set(nxt, mode="drop"),
               "delta": buf["delta"].at[slots].set(delta, mode="drop")}
        count = count + is_edge.sum()
        idx = jax.random.randint(k_batch, (b,), 0, jnp.maximum(jnp.minimum(count, cap), 1))
        grads = jax.grad(loss_fn)(p, buf["adj"][idx], buf["action"][idx], buf["next"][idx], buf["delta"][idx])
        updates, state = opt.update(grads, state, p)
        p = jax.tree_util.tree_map(lambda w, u: jnp.where(count > 0, w + u, w), p, updates)
        stop = ~is_edge
        adj = jnp.where(stop[:, None, None], empty, nxt)
        closure = jnp.where(stop[:, None, None], eye, nclosure)
        return (p, state, adj, closure, buf, count), None

    buf = {"adj": jnp.zeros((cap, d, d), dtype=bool), "action": jnp.zeros(cap, dtype=jnp.int32),
           "next": jnp.zeros((cap, d, d), dtype=bool), "delta": jnp.zeros(cap, dtype=jnp.float32)}
    carry = (params, opt.init(params), empty, eye, buf, jnp.int32(0))
    keys = jax.random.split(key, opts["gfn_steps"])
    carry, _ = jax.jit(lambda c, ks: jax.lax.scan(step, c, ks))(carry, keys)
    return carry[0]


def _closure(jax, adj):
    """Reflexive transitive closure of a ``(B, d, d)`` bool stack (d boolean squarings)."""
    jnp = jax.numpy
    d = adj.shape[1]
    reach = adj | jnp.eye(d, dtype=bool)
    for _ in range(max(1, int(np.ceil(np.log2(d))))):
        r = reach.astype(jnp.float32)
        reach = (r @ r) > 0
    return reach


def sample(jax, params: dict, d: int, n: int, key):
    """``n`` DAGs grown by the forward policy from the empty graph (epsilon 0)."""
    jnp = jax.numpy

    def body(carry, k):
        adj, closure, done = carry
        action = _draw(jax, params, adj, closure, 0.0, k)
        done = done | (action == d * d)
        adj, closure = _add(jax, adj, closure, jnp.minimum(action, d * d - 1), ~done)
        return (adj, closure, done), None

    start = (jnp.zeros((n, d, d), dtype=bool), jnp.broadcast_to(jnp.eye(d, dtype=bool), (n, d, d)),
             jnp.zeros(n, dtype=bool))
    keys = jax.random.split(key, d * (d - 1) // 2 + 1)
    (adj, _, _), _ = jax.jit(lambda c, ks: jax.lax.scan(body, c, ks))(start, keys)
    return adj
