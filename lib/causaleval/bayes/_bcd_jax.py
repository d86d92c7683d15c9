"""JAX internals of :mod:`causaleval.bayes.bcd_nets` (the permutation network, Gumbel-Sinkhorn,
Hungarian draws, Bethe permanent, ELBO, training loop, sampling); formulas in that module's notes.
Callers pass the ``jax`` and ``optax`` modules in, so importing this file needs neither."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.optimize import linear_sum_assignment

LOGIT_BOUND = 10.0  # logits are soft-clipped to (-10, 10), as the authors' logit_constraint
LOG_STD_BOUND = 10.0  # variational log-stds soft-clipped likewise (authors' log_stds_max)
BETHE_ITERS = 20  # fixed-point iterations of the Bethe permanent (authors' num_bethe_iters)
PRIOR_STD_LOG_SIGMA = 3.0  # p(s_j) = N(0, 3^2) (authors' s_prior_std)
HIDDEN = 128  # width of the permutation network's two hidden layers (authors' hidden_size)
BELIEF_EPS = 1e-8  # AdaBelief's epsilon (authors' scale_by_belief(eps=1e-8))


def hungarian(scores: np.ndarray) -> np.ndarray:
    """``(B, d, d)`` 0/1 permutation matrices ``P`` maximising ``sum P * scores`` (rows:
    positions, columns: nodes), one scipy ``linear_sum_assignment`` per matrix."""
    scores = np.asarray(scores, dtype=np.float64)
    out = np.zeros(scores.shape, dtype=np.float32)
    for k in range(scores.shape[0]):
        rows, cols = linear_sum_assignment(scores[k], maximize=True)
        out[k, rows, cols] = 1.0
    return out


def _bounded(jax, x, bound: float):
    return jax.numpy.tanh(x / bound) * bound


def _log_sinkhorn(jax, z, iters: int):
    """Log of the Sinkhorn (row, then column) normalisation of ``exp(z)``, ``iters`` rounds."""
    lse = jax.scipy.special.logsumexp

    def body(z, _):
        z = z - lse(z, axis=-1, keepdims=True)
        return z - lse(z, axis=-2, keepdims=True), None

    z, _ = jax.lax.scan(body, z, None, length=iters)
    return z


def _log_bethe_permanent(jax, theta):
    """Bethe approximation of ``log perm(exp(theta))`` for one ``d x d`` ``theta``: the Bethe free
    energy ``sum g theta - sum g log g + sum (1 - g) log(1 - g)`` at the doubly stochastic ``g`` of
    the fixed-point iteration ``g <- sinkhorn(exp(theta) / (1 - g))`` (Vontobel 2013). ``g`` is held
    constant (stop_gradient): at the optimum the gradient in ``theta`` is ``g`` (envelope)."""
    jnp = jax.numpy
    eps = 1e-20
    lse = jax.scipy.special.logsumexp

    def body(log_g, _):
        z = theta - jnp.log(-jnp.expm1(jnp.minimum(log_g, -1e-7)) + eps)
        z = z - lse(z, axis=-1, keepdims=True)
        return z - lse(z, axis=-2, keepdims=True), None

    log_g, _ = jax.lax.scan(body, theta - lse(theta, axis=-1, keepdims=True), None, length=BETHE_ITERS)
    g = jax.lax.stop_gradient(jnp.exp(log_g))
    return jnp.sum(g * theta) - jnp.sum(g * jnp.log(g + eps)) + jnp.sum((1 - g) * jnp.log(1 - g + eps))


def _log_horseshoe(jax, w, scale: float):
    """Horseshoe log density (Carvalho, Polson and Scott 2010): ``p(w) = exp(u) E1(u) /
    (scale sqrt(2 pi^3))``, ``u = w^2 / (2 scale^2)``, ``E1`` the exponential integral, here by
    the closed-form approximation of Barry, Parlange and Li (2000) that TensorFlow Probability's
    Horseshoe uses (relative error below 0.5%; no loop, finite for every ``u > 0``)."""
    jnp = jax.numpy
    g = math.exp(-0.5772156649015329)
    b = math.sqrt(2 * (1 - g) / (g * (2 - g)))
    h_inf = (1 - g) * (g * g - 6 * g + 12) / (3 * g * (2 - g) ** 2 * b)
    u = jnp.maximum(w**2 / (2 * scale**2), 1e-30)
    q = 20.0 / 47.0 * u ** math.sqrt(31.0 / 26.0)
    h = 1 / (1 + u * jnp.sqrt(u)) + h_inf * q / (1 + q)
    log_f = (-jnp.log(g + (1 - g) * jnp.exp(-u / (1 - g)))
             + jnp.log(jnp.log1p(g / u - (1 - g) / (h + b * u) ** 2)))  # log(exp(u) E1(u))
    return log_f - math.log(scale) - 0.5 * math.log(2 * math.pi**3)


def _init(jax, d: int, factorized: bool, key) -> dict:
    """Initial parameters: ``q(L, s)`` means 0 and log-stds -1 (as the authors' code); the
    permutation part either ``d x d`` zero logits (factorised) or the network's three dense
    layers, weights truncated normal (at 2 sd) with sd ``1 / sqrt(fan_in)`` and biases 0 (Haiku's
    ``Linear`` defaults, which the authors' network uses)."""
    jnp = jax.numpy
    m = d * (d - 1) // 2 + d  # strictly lower weights, then one log noise std per node
    if factorized:
        perm: Any = jnp.zeros((d, d))
    else:
        sizes = [m, HIDDEN, HIDDEN, d * d]
        keys = jax.random.split(key, len(sizes) - 1)
        perm = [{"w": jax.random.truncated_normal(k, -2.0, 2.0, (a, b)) / math.sqrt(a), "b": jnp.zeros(b)}
                for k, a, b in zip(keys, sizes[:-1], sizes[1:])]
    return {"perm": perm, "mean": jnp.zeros(m), "log_std": jnp.full(m, -1.0)}


def _logits(jax, perm, z, d: int, factorized: bool):
    """``(B, d, d)`` permutation logits, soft-clipped: the shared ``theta`` (factorised) or the
    network's output on each draw ``z = (L, s)`` (dense, GELU, dense, GELU, dense)."""
    if factorized:
        theta = jax.numpy.broadcast_to(perm, (z.shape[0], d, d))
    else:
        h = z
        for layer in perm[:-1]:
            h = jax.nn.gelu(h @ layer["w"] + layer["b"])
        theta = (h @ perm[-1]["w"] + perm[-1]["b"]).reshape(z.shape[0], d, d)
    return _bounded(jax, theta, LOGIT_BOUND)


def _weights(jax, perm, z, d: int):
    """``W = P^T L P`` for ``(B, d, d)`` permutations and ``(B, m)`` draws of ``(L, s)``."""
    jnp = jax.numpy
    rows, cols = np.tril_indices(d, -1)
    lower = jnp.zeros((z.shape[0], d, d), z.dtype).at[:, rows, cols].set(z[:, : len(rows)])
    return jnp.einsum("bai,bac,bcj->bij", perm, lower, perm)


def _loss(jax, params, gram, n: int, gumbel, eps, opts: dict[str, Any], horseshoe_scale: float):
    """The authors' training objective: ``-ELBO / tau + 1/2 ||phi||^2`` (``phi`` the permutation
    parameters), the ELBO estimated on ``B`` draws with the straight-through permutation."""
    jnp = jax.numpy
    d = gram.shape[0]
    b = gumbel.shape[0]
    tau = opts["bcd_temperature"]
    factorized = opts["bcd_factorized"]
    std = jnp.exp(_bounded(jax, params["log_std"], LOG_STD_BOUND))
    z = params["mean"][None] + std[None] * eps
    logits = _logits(jax, params["perm"], z, d, factorized)
    scores = logits + gumbel
    hard = jax.pure_callback(hungarian, jax.ShapeDtypeStruct((b, d, d), jnp.float32), jax.lax.stop_gradient(scores))
    soft = jnp.exp(_log_sinkhorn(jax, scores / tau, opts["bcd_sinkhorn_iters"]))
    perm = jax.lax.stop_gradient(hard - soft) + soft  # straight-through: hard forward, soft backward
    log_sigma = z[:, -d:]
    resid = jnp.eye(d)[None] - _weights(jax, perm, z, d)
    sq = jnp.einsum("bkj,kl,blj->bj", resid, gram, resid)  # ||X (I - W)_:j||^2
    loglik = -0.5 * jnp.sum(n * (math.log(2 * math.pi) + 2 * log_sigma) + sq * jnp.exp(-2 * log_sigma), axis=1)
    if factorized:
        log_perm = _log_bethe_permanent(jax, logits[0])
    else:
        log_perm = jax.vmap(lambda t: _log_bethe_permanent(jax, t))(logits)
    log_q_perm = jnp.sum(perm * logits, axis=(1, 2)) - log_perm
    log_prior_l = jnp.sum(_log_horseshoe(jax, z[:, :-d], horseshoe_scale), axis=1)
    log_prior_s = jnp.sum(-0.5 * (log_sigma / PRIOR_STD_LOG_SIGMA) ** 2, axis=1)  # up to a constant
    entropy = jnp.sum(jnp.log(std))  # of q(L, s), up to a constant
    elbo = jnp.mean(loglik + log_prior_l + log_prior_s - log_q_perm) - math.lgamma(d + 1) + entropy
    l2 = sum(jnp.sum(leaf**2) for leaf in jax.tree_util.tree_leaves(params["perm"]))
    return -elbo / tau + 0.5 * l2


def train(jax, optax, x: np.ndarray, opts: dict[str, Any], horseshoe_scale: float, key) -> dict:
    """Minimise :func:`_loss` by AdaBelief in one jitted ``lax.scan`` (module notes of bcd_nets)."""
    jnp = jax.numpy
    n, d = x.shape
    b = opts["bcd_batch"]
    m = d * (d - 1) // 2 + d
    gram = jnp.asarray(x.T @ x, dtype=jnp.float32)
    init_key, steps_key = jax.random.split(key)
    params = _init(jax, d, opts["bcd_factorized"], init_key)
    opt = optax.chain(optax.scale_by_belief(eps=BELIEF_EPS), optax.scale(-opts["bcd_lr"]))

    def step(carry, k):
        p, state = carry
        k_gumbel, k_eps = jax.random.split(k)
        gumbel = jax.random.gumbel(k_gumbel, (b, d, d))
        eps = jax.random.normal(k_eps, (b, m))
        grads = jax.grad(_loss, argnums=1)(jax, p, gram, n, gumbel, eps, opts, horseshoe_scale)
        updates, state = opt.update(grads, state, p)
        return (optax.apply_updates(p, updates), state), None

    keys = jax.random.split(steps_key, opts["bcd_steps"])
    (params, _), _ = jax.jit(lambda c, ks: jax.lax.scan(step, c, ks))((params, opt.init(params)), keys)
    return params


def sample(jax, params: dict, d: int, n: int, opts: dict[str, Any], key) -> np.ndarray:
    """``n`` DAGs ``|P^T L P| > threshold``: ``(L, s)`` drawn from the Gaussian ``q``, then ``P``
    a Gumbel-matching draw on its logits (Hungarian algorithm on logits plus Gumbel noise)."""
    jnp = jax.numpy
    k_gumbel, k_eps = jax.random.split(key)

    def draws(params, k_gumbel, k_eps):
        std = jnp.exp(_bounded(jax, params["log_std"], LOG_STD_BOUND))
        z = params["mean"][None] + std[None] * jax.random.normal(k_eps, (n, len(params["mean"])))
        scores = _logits(jax, params["perm"], z, d, opts["bcd_factorized"]) + jax.random.gumbel(k_gumbel, (n, d, d))
        return z, scores

    z, scores = jax.jit(draws)(params, k_gumbel, k_eps)
    perm = hungarian(np.asarray(scores)).astype(np.float64)
    rows, cols = np.tril_indices(d, -1)
    lower = np.zeros((n, d, d))
    lower[:, rows, cols] = np.asarray(z, dtype=np.float64)[:, : len(rows)]
    w = np.einsum("bai,bac,bcj->bij", perm, lower, perm)
    return np.abs(w) > opts["bcd_threshold"]
