"""JAX internals of :mod:`causaleval.bayes.dag_gflownet` (BGe delta scores by masked
log-determinants, environment, policy, loss, training loop, sampling); formulas in that module's
notes. Callers pass the ``jax`` and ``optax`` modules in, so importing this file needs neither."""

from __future__ import annotations

import math
from typing import Any

import numpy as np


TN_STD = 0.87962566103423978  # sd of a standard normal truncated to [-2, 2] (haiku's TruncatedNormal)


def _normal(jax, key, shape, std: float):
    """Truncated normal at ``[-2 std, 2 std]`` with standard deviation ``std`` (haiku's initialiser)."""
    return jax.random.truncated_normal(key, -2.0, 2.0, shape, jax.numpy.float32) * np.float32(std / TN_STD)


def _linear(jax, key, fan_in: int, fan_out: int, scale: float | None = None) -> dict:
    """A dense layer: variance scaling ``scale / fan_in`` when ``scale`` is given, else sd ``1 / sqrt(fan_in)``."""
    std = math.sqrt((1.0 if scale is None else scale) / fan_in)
    return {"w": _normal(jax, key, (fan_in, fan_out), std), "b": jax.numpy.zeros(fan_out, jax.numpy.float32)}


def _norm(jax, size: int) -> dict:
    return {"scale": jax.numpy.ones(size, jax.numpy.float32), "offset": jax.numpy.zeros(size, jax.numpy.float32)}


def _block_init(jax, key, width: int, scale: float) -> dict:
    """One linear-transformer block: embedding ``width`` of the adjacency bit, hidden size ``2 width``
    (4 heads of key size ``width / 2``), dense part widened twice (module notes of dag_gflownet)."""
    e, m = width, 2 * width
    keys = jax.random.split(key, 8)
    return {"in1": _linear(jax, keys[0], 1, e, scale), "ln1": _norm(jax, e + m),
            "q": _linear(jax, keys[1], e + m, m, scale), "k": _linear(jax, keys[2], e + m, m, scale),
            "v": _linear(jax, keys[3], e + m, m, scale), "o": _linear(jax, keys[4], m, m, scale),
            "in2": _linear(jax, keys[5], 1, e, scale), "ln2": _norm(jax, e + m),
            "d1": _linear(jax, keys[6], e + m, 2 * m, scale), "d2": _linear(jax, keys[7], 2 * m, m, scale)}


def _mlp_init(jax, key, sizes: list[int]) -> list[dict]:
    keys = jax.random.split(key, len(sizes) - 1)
    return [_linear(jax, k, a, b) for k, a, b in zip(keys, sizes[:-1], sizes[1:])]


def _init(jax, d: int, opts: dict[str, Any], key) -> dict:
    """The policy network's parameters (module notes of dag_gflownet)."""
    width, body, head = opts["gfn_width"], opts["gfn_layers"], opts["gfn_head_layers"]
    if opts["gfn_network"] == "mlp":
        return {"mlp": _mlp_init(jax, key, [d * d] + [width] * body + [d * d + 1])}
    scale = 2.0 / (body + head)
    k_embed, k_body, k_logits, k_stop, k_mlp1, k_mlp2 = jax.random.split(key, 6)
    mlp = [2 * width, 2 * width, width, 1]
    return {"embed": _normal(jax, k_embed, (2 * d, width), 1.0),
            "body": [_block_init(jax, k, width, scale) for k in jax.random.split(k_body, body)],
            "logits": [_block_init(jax, k, width, scale) for k in jax.random.split(k_logits, head)],
            "stop": [_block_init(jax, k, width, scale) for k in jax.random.split(k_stop, head)],
            "logits_mlp": _mlp_init(jax, k_mlp1, mlp), "stop_mlp": _mlp_init(jax, k_mlp2, mlp)}


def _dense(layer: dict, x):
    return x @ layer["w"] + layer["b"]


def _layer_norm(jax, p: dict, x):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) * jax.lax.rsqrt(var + 1e-5) * p["scale"] + p["offset"]


def _attention(jax, p: dict, x, heads: int):
    """Linear attention (Katharopoulos et al. 2020) over the edge tokens: feature map ``elu + 1``,
    ``out_t = phi(q_t) sum_s phi(k_s) v_s^T / (phi(q_t) . sum_s phi(k_s))``."""
    jnp = jax.numpy
    t = x.shape[0]

    def split(y):
        return y.reshape(t, heads, -1)

    q = jax.nn.elu(split(_dense(p["q"], x))) + 1.0
    k = jax.nn.elu(split(_dense(p["k"], x))) + 1.0
    v = split(_dense(p["v"], x))
    # broadcast products, not einsum: for these small sizes XLA's batched matrix products cost
    # more than the arithmetic (measured 3x slower per policy evaluation)
    kv = (k[:, :, None, :] * v[:, :, :, None]).sum(axis=0)  # (h, k, d): sum_s phi(k_s) v_s^T
    norm = 1.0 / ((q * k.sum(axis=0)[None]).sum(axis=-1) + 1e-6)  # (t, h)
    out = (q[:, :, None, :] * kv[None]).sum(axis=-1) * norm[:, :, None]
    return _dense(p["o"], out.reshape(t, -1))


def _block(jax, p: dict, h, bits):
    """``h + attention(LN([embed(bits), h]))``, then ``h + dense(LN([embed'(bits), h]))``: each
    block sees the adjacency bits again through its own embedding (module notes)."""
    jnp = jax.numpy
    x = _layer_norm(jax, p["ln1"], jnp.concatenate([_dense(p["in1"], bits), h], axis=-1))
    h = h + _attention(jax, p, x, 4)
    x = _layer_norm(jax, p["ln2"], jnp.concatenate([_dense(p["in2"], bits), h], axis=-1))
    return h + _dense(p["d2"], jax.nn.gelu(_dense(p["d1"], x)))


def _mlp(jax, layers: list[dict], x):
    for layer in layers[:-1]:
        x = jax.nn.relu(_dense(layer, x))
    return _dense(layers[-1], x)


def _network(jax, params: dict, adj):
    """Edge logits ``(d*d,)`` and stop logit ``()`` for one ``(d, d)`` graph: tokens are the
    ``d^2`` edges, each the embeddings of its source and target concatenated (module notes)."""
    d = adj.shape[0]
    if "mlp" in params:
        out = _mlp(jax, params["mlp"], adj.reshape(d * d))
        return out[:-1], out[-1]
    idx = np.arange(d * d)
    h = params["embed"][np.stack([idx // d, d + idx % d], axis=1)].reshape(d * d, -1)
    bits = adj.reshape(d * d, 1)
    for p in params["body"]:
        h = _block(jax, p, h, bits)
    g = h
    for p in params["logits"]:
        g = _block(jax, p, g, bits)
    for p in params["stop"]:
        h = _block(jax, p, h, bits)
    return _mlp(jax, params["logits_mlp"], g)[:, 0], _mlp(jax, params["stop_mlp"], h.mean(axis=0))[0]


def _log_policy(jax, params: dict, adj, mask):
    """``(B, d*d + 1)`` log P_F over (edges, stop); -inf on disallowed edges; stop is certain
    where no edge is allowed."""
    jnp = jax.numpy
    b, d = adj.shape[0], adj.shape[1]
    logits, stop = jax.vmap(lambda a: _network(jax, params, a))(adj.astype(jnp.float32))
    flat = mask.reshape(b, d * d)
    any_edge = flat.any(axis=1)
    log_stop = jnp.where(any_edge, jax.nn.log_sigmoid(stop), 0.0)
    log_go = jnp.where(any_edge, jax.nn.log_sigmoid(-stop), -jnp.inf)
    safe = jnp.where(flat, logits, -jnp.inf)
    safe = jnp.where(any_edge[:, None], safe, 0.0)
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


def bge_terms(values: np.ndarray) -> dict[str, np.ndarray]:
    """The data-dependent constants of the BGe score of :class:`causaleval.learn.ges.BGeScore`
    (the same ``R``, ``t``, ``alpha_w``): ``r`` (d x d) and, by parent count ``k = 0..d``,
    ``g[k]`` (the terms that do not depend on ``R``) and ``c[k] = (n + a_k) / 2``."""
    from causaleval.learn.ges import BGeScore

    bge = BGeScore(np.asarray(values, dtype=float))
    k = np.arange(bge.p + 1)
    a = bge.alpha_w - bge.p + k + 1
    lg = np.vectorize(math.lgamma)
    g = bge.constant + lg((bge.n + a) / 2) - lg(a / 2) + (a + k) / 2 * math.log(bge.t)
    return {"r": bge.r, "g": g, "c": (bge.n + a) / 2}


def _masked_logdet(jax, r, m):
    """``log det R[m, m]`` for each row of the ``(B, d)`` bool stack ``m`` (0 for an empty
    set): the log-determinant of ``R m m^T + diag(1 - m)``, whose non-member rows and columns
    are those of the identity, by a batched Cholesky factorisation (``R`` is positive definite)."""
    jnp = jax.numpy
    f = m.astype(r.dtype)
    mats = r[None] * f[:, :, None] * f[:, None, :] + jax.vmap(jnp.diag)(1.0 - f)
    chol = jnp.linalg.cholesky(mats)
    return 2.0 * jnp.log(jnp.diagonal(chol, axis1=1, axis2=2)).sum(axis=1)


def delta_score(jax, terms: dict, adj, i, j):
    """``bge(j, Pa(j) | {i}) - bge(j, Pa(j))`` for each edge ``i -> j`` added to the ``(B, d, d)``
    stack ``adj``: only ``j``'s family changes. With ``L(S) = log det R[S, S]``, ``k = |Pa(j)|``
    and ``P = Pa(j)``, ``bge(j, P) = g[k] - c[k] (L(P + j) - L(P)) - L(P) / 2``; the four
    log-determinants of all ``B`` transitions are one batched Cholesky call of ``4 B`` matrices
    (float64 needs x64). Swapping ``j`` last to read ``L(P + i)`` and ``L(P + i + j)`` off one
    factor halves the factorisations but measured slower (the gather costs more)."""
    jnp = jax.numpy
    b, d = adj.shape[0], adj.shape[1]
    r, g, c = (jnp.asarray(terms[key]) for key in ("r", "g", "c"))
    rows = jnp.arange(b)
    pa = adj[rows, :, j]  # (B, d): parents of j
    e_i = jnp.arange(d)[None, :] == i[:, None]
    e_j = jnp.arange(d)[None, :] == j[:, None]
    logdets = _masked_logdet(jax, r, jnp.concatenate([pa, pa | e_j, pa | e_i, pa | e_i | e_j]))
    l_p, l_pj, l_pi, l_pij = logdets.reshape(4, b)
    k = pa.sum(axis=1)
    before = g[k] - c[k] * (l_pj - l_p) - l_p / 2
    after = g[k + 1] - c[k + 1] * (l_pij - l_pi) - l_pi / 2
    return after - before


def _draw(jax, params, adj, closure, explore_p, key):
    """One action per graph: uniform over the allowed actions (stop included) with probability
    ``explore_p``, else from ``P_F``."""
    jnp = jax.numpy
    b = adj.shape[0]
    logp = _log_policy(jax, params, adj, _mask(adj, closure))
    allowed = jnp.isfinite(logp)
    k1, k2, k3 = jax.random.split(key, 3)
    policy = jax.random.categorical(k1, logp, axis=1)
    uniform = jax.random.categorical(k2, jnp.where(allowed, 0.0, -jnp.inf), axis=1)
    explore = jax.random.uniform(k3, (b,)) < explore_p
    return jnp.where(explore, uniform, policy)


def exploration(jnp, t, opts: dict[str, Any]):
    """Probability of a uniform action at iteration ``t``: 1 over the ``gfn_prefill`` iterations,
    then down linearly to ``gfn_min_exploration`` over ``gfn_steps // 2`` iterations, then constant
    (Deleu et al.'s schedule)."""
    ramp = jnp.clip((t - opts["gfn_prefill"]) / max(opts["gfn_steps"] // 2, 1), 0.0, 1.0)
    return 1.0 - (1.0 - opts["gfn_min_exploration"]) * ramp


_COMPILED: dict[tuple, Any] = {}  # jitted training and sampling functions, by (kind, shape, options)


def _compiled(jax, kind: str, key: tuple, build):
    """One jitted function per ``(kind, key)``, kept for the process: a study's trials of one size
    compile once (their data enter as arguments)."""
    if (kind, key) not in _COMPILED:
        _COMPILED[kind, key] = jax.jit(build())
    return _COMPILED[kind, key]


def train(jax, optax, terms: dict, opts: dict[str, Any], key) -> tuple:
    """Fit the forward policy by the detailed-balance loss (module notes of dag_gflownet);
    ``terms`` from :func:`bge_terms`. Call under ``jax.enable_x64(True)``: the delta scores are
    float64, the network float32. Returns the online parameters and, per iteration, the minibatch
    loss (0 during the prefill) and the share of edge (not stop) actions."""
    fn = train_program(jax, optax, terms["r"].shape[0], opts)
    return fn({name: np.asarray(v) for name, v in terms.items()}, key)


def train_program(jax, optax, d: int, opts: dict[str, Any]):
    """The jitted training function :func:`train` calls for ``d`` variables and ``opts``, called as
    ``(terms, key)`` (kept for the process; ``.lower(terms, key).compile()`` compiles it ahead of time)."""
    return _compiled(jax, "train", (d, tuple(sorted(opts.items()))),
                     lambda: lambda t, k: _train(jax, optax, t, dict(opts), k))


def _train(jax, optax, terms: dict, opts: dict[str, Any], key) -> tuple:
    jnp = jax.numpy
    f32 = jnp.float32
    d = terms["r"].shape[0]
    envs, b, cap = opts["gfn_envs"], opts["gfn_batch"], opts["gfn_replay"]
    every, prefill = opts["gfn_target_every"], opts["gfn_prefill"]
    key, init_key = jax.random.split(key)
    params = _init(jax, d, opts, init_key)
    lr = opts["gfn_lr"]
    if opts["gfn_lr_end"] is not None:  # cosine decay over the updates (module notes)
        lr = optax.cosine_decay_schedule(lr, opts["gfn_steps"], opts["gfn_lr_end"] / lr)
    opt = optax.chain(optax.adam(lr), optax.zero_nans())
    eye = jnp.broadcast_to(jnp.eye(d, dtype=bool), (envs, d, d))
    empty = jnp.zeros((envs, d, d), dtype=bool)

    def loss_fn(p, target, adj, action, nxt, delta):
        lp = _log_policy(jax, p, adj, _mask(adj, _closure(jax, adj)))
        if every is None:  # no target network: the full gradient of the loss (module notes)
            lq = _log_policy(jax, p, nxt, _mask(nxt, _closure(jax, nxt)))
        else:
            lq = jax.lax.stop_gradient(_log_policy(jax, target, nxt, _mask(nxt, _closure(jax, nxt))))
        rows = jnp.arange(adj.shape[0])
        log_pb = -jnp.log1p(adj.sum(axis=(1, 2)).astype(f32))  # uniform over the edges of the next state
        diff = delta + log_pb - lp[rows, action] + lp[:, -1] - lq[:, -1]
        return optax.huber_loss(diff, delta=1.0).mean()

    def learn(p, target, state, updates_done, buf, count, k):
        idx = jax.random.randint(k, (b,), 0, jnp.minimum(count, cap))
        loss, grads = jax.value_and_grad(loss_fn)(p, target, buf["adj"][idx], buf["action"][idx],
                                                  buf["next"][idx], buf["delta"][idx])
        updates, state = opt.update(grads, state, p)
        p = optax.apply_updates(p, updates)
        updates_done = updates_done + 1
        if every is not None:
            target = optax.periodic_update(p, target, updates_done, every)
        return p, target, state, updates_done, loss

    def step(carry, xs):
        t, k = xs
        p, target, state, updates_done, adj, closure, buf, count = carry
        k_act, k_batch = jax.random.split(k)
        action = _draw(jax, p, adj, closure, exploration(jnp, t, opts), k_act)
        is_edge = action < d * d
        edge = jnp.minimum(action, d * d - 1)
        nxt, nclosure = _add(jax, adj, closure, edge, is_edge)
        delta = delta_score(jax, terms, adj, edge // d, edge % d).astype(f32)
        # store the edge transitions; a stop stores nothing (its slot is out of range, dropped)
        order = jnp.cumsum(is_edge) - 1
        slots = jnp.where(is_edge, (count + order) % cap, cap)
        buf = {"adj": buf["adj"].at[slots].set(adj, mode="drop"),
               "action": buf["action"].at[slots].set(action.astype(jnp.int32), mode="drop"),
               "next": buf["next"].at[slots].set(nxt, mode="drop"),
               "delta": buf["delta"].at[slots].set(delta, mode="drop")}
        count = count + is_edge.sum(dtype=jnp.int32)
        p, target, state, updates_done, loss = jax.lax.cond(
            (t >= prefill) & (count >= b), learn,
            lambda p, target, state, u, *_: (p, target, state, u, jnp.float32(0.0)),
            p, target, state, updates_done, buf, count, k_batch)
        stop = ~is_edge
        adj = jnp.where(stop[:, None, None], empty, nxt)
        closure = jnp.where(stop[:, None, None], eye, nclosure)
        return (p, target, state, updates_done, adj, closure, buf, count), (loss, is_edge.mean())

    buf = {"adj": jnp.zeros((cap, d, d), dtype=bool), "action": jnp.zeros(cap, dtype=jnp.int32),
           "next": jnp.zeros((cap, d, d), dtype=bool), "delta": jnp.zeros(cap, dtype=f32)}
    carry = (params, params, opt.init(params), jnp.int32(0), empty, eye, buf, jnp.int32(0))
    total = prefill + opts["gfn_steps"]
    xs = (jnp.arange(total, dtype=jnp.int32), jax.random.split(key, total))
    carry, trace = jax.lax.scan(step, carry, xs)
    return carry[0], trace


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
    """``n`` DAGs grown by the forward policy from the empty graph (no exploration)."""
    shapes = tuple((path, leaf.shape) for path, leaf in jax.tree_util.tree_leaves_with_path(params))
    fn = _compiled(jax, "sample", (d, n, str(shapes)), lambda: lambda p, k: _sample(jax, p, d, n, k))
    return fn(params, key)


def _sample(jax, params: dict, d: int, n: int, key):
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
    (adj, _, _), _ = jax.lax.scan(body, start, keys)
    return adj
