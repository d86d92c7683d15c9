"""MC3's chain compiled (numba): the loop of :func:`causaleval.bayes.posteriors.mc3`, step for step,
and its tempered copies (``posteriors.mc3``'s option ``mc3_copies``).

The compiled loop scores too. A family ``(v, Pa(v))`` scores by the BGe formula of
:class:`causaleval.learn.ges.BGeScore` (its module notes; Geiger and Heckerman 2002, Kuipers et al.
2014), ``S(v, Pa) = base_k - c_k (log det R[v, Pa] - log det R[Pa]) - log det R[Pa] / 2`` with
``k = |Pa|``, where the per-size terms ``base_k`` and ``c_k`` come from ``BGeScore.terms`` (computed
in Python, as its own ``compute`` does) and each ``log det`` of the submatrix of ``R`` on the family
``[v, *Pa]`` and on ``Pa`` (parents ascending, the order of ``BGeScore.compute``) is numba's
``np.linalg.slogdet``: LAPACK's ``dgetrf`` through SciPy's OpenBLAS, pinned to the same Haswell
kernels as NumPy's (:mod:`causaleval.numenv`), then the same sum of logs of the pivots. So each family
score is ``BGeScore``'s float, the proposals, the acceptance tests ``log u < sum of (new - old)
family scores`` (summed in the Python chain's order) and the kept states of one copy are the Python
chain's, bit for bit (``tests/test_bayes_exact.py``; tempered copies have no Python chain: their tests
check that states, scores and swaps carry across blocks and calls bit for bit, and that copy 0 samples
the exact posterior). Family scores are kept in a table keyed by ``(node, parent
bit mask)``, as the chain revisits families. Parent sets are ``int64`` bit masks, so the chain runs
on at most :data:`MAX_NODES` variables (``posteriors.mc3`` runs the Python chain beyond).
``benchmarks/bench_mc3_chain.py`` measures both.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import types

MAX_NODES = 62  # bit masks in int64, bit 63 (the sign) unused
CHUNK = 1_000_000  # steps per call at most (under a second): Python's signal handlers run between calls
KEY = types.UniTuple(types.int64, 2)


def new_table() -> numba.typed.Dict:
    """An empty table of family scores, ``(node, parent mask) -> score``."""
    return numba.typed.Dict.empty(key_type=KEY, value_type=types.float64)


@numba.njit(cache=True)
def _reaches(parents: np.ndarray, a: int, b: int) -> bool:
    """Is there a directed path from ``a`` to ``b``? (``posteriors._reaches``.)"""
    d = parents.shape[0]
    seen = frontier = np.int64(1) << b
    while frontier:
        step = np.int64(0)
        for v in range(d):
            if frontier >> v & 1:
                step |= parents[v]
        frontier = step & ~seen
        seen |= frontier
        if seen >> a & 1:
            return True
    return False


@numba.njit(cache=True)
def _logdet(r: np.ndarray, nodes: np.ndarray, k: int) -> float:
    """``log |det R[nodes[:k], nodes[:k]]|`` (0 for no nodes), as ``BGeScore._logdet``."""
    if k == 0:
        return 0.0
    sub = np.empty((k, k))
    for a in range(k):
        for b in range(k):
            sub[a, b] = r[nodes[a], nodes[b]]
    return np.linalg.slogdet(sub)[1]


@numba.njit(cache=True)
def family_score(r: np.ndarray, base: np.ndarray, coef: np.ndarray, node: int, mask: int) -> float:
    """The BGe score of ``node`` with the parents of the bit ``mask`` (module notes)."""
    d = r.shape[0]
    nodes = np.empty(d, np.int64)
    nodes[0] = node
    k = 0
    for u in range(d):
        if mask >> u & 1:
            k += 1
            nodes[k] = u
    family = _logdet(r, nodes, k + 1)
    given = _logdet(r, nodes[1:], k)
    return base[k] - coef[k] * (family - given) - given / 2


@numba.njit(cache=True)
def advance(parents: np.ndarray, score: np.ndarray, betas: np.ndarray, pairs: np.ndarray, log_u: np.ndarray,
            swap_pair: np.ndarray, swap_log_u: np.ndarray, offset: int, start: int, end: int, burn_in: int,
            thin: int, r: np.ndarray, base: np.ndarray, coef: np.ndarray, table: numba.typed.Dict,
            out: np.ndarray, swaps: np.ndarray) -> None:
    """Run the chain's ``K`` copies (``parents``, ``K x d`` bit masks, and their log ``score`` s, both
    changed in place; copy ``c`` at inverse temperature ``betas[c]``, ``K = 1`` and ``betas = [1]`` the
    plain chain) over the steps ``start:end`` of a block whose first is the chain's step ``offset``:
    per step each copy ``c`` proposes ``pairs[t, c]``, accepted when ``log_u[t, c] < betas[c] * delta``;
    then, with two copies or more, the states of copies ``a = swap_pair[t]`` and ``a + 1`` are swapped
    when ``swap_log_u[t] < (betas[a] - betas[a + 1]) * (score[a + 1] - score[a])``, counted in
    ``swaps[a]``. Copy 0's states are kept into ``out``; family scores by :func:`family_score` on ``r``,
    ``base`` and ``coef``, kept in ``table``."""
    n_copies, d = parents.shape
    one = np.int64(1)
    nodes = np.empty(2, np.int64)
    masks = np.empty(2, np.int64)
    for t in range(start, end):
        for c in range(n_copies):
            p = parents[c]
            i, j = divmod(pairs[t, c], d - 1)
            if j >= i:
                j += 1
            moves = 0
            if p[j] >> i & 1:  # delete i -> j
                nodes[0], masks[0], moves = j, p[j] & ~(one << i), 1
            elif p[i] >> j & 1:  # reverse j -> i into i -> j
                without_i = p[i] & ~(one << j)
                old_i = p[i]
                p[i] = without_i
                cycle = _reaches(p, j, i)
                p[i] = old_i
                if not cycle:
                    nodes[0], masks[0] = i, without_i
                    nodes[1], masks[1], moves = j, p[j] | one << i, 2
            elif not _reaches(p, j, i):  # add i -> j
                nodes[0], masks[0], moves = j, p[j] | one << i, 1
            if moves:
                for m in range(moves):
                    for mask in (masks[m], p[nodes[m]]):
                        if (nodes[m], mask) not in table:
                            table[(nodes[m], mask)] = family_score(r, base, coef, nodes[m], mask)
                delta = table[(nodes[0], masks[0])] - table[(nodes[0], p[nodes[0]])]
                if moves == 2:
                    delta = delta + (table[(nodes[1], masks[1])] - table[(nodes[1], p[nodes[1]])])
                if log_u[t, c] < betas[c] * delta:
                    for m in range(moves):
                        p[nodes[m]] = masks[m]
                    score[c] += delta
        if n_copies > 1:
            a = swap_pair[t]
            if swap_log_u[t] < (betas[a] - betas[a + 1]) * (score[a + 1] - score[a]):
                swaps[a] += 1
                for v in range(d):
                    parents[a, v], parents[a + 1, v] = parents[a + 1, v], parents[a, v]
                score[a], score[a + 1] = score[a + 1], score[a]
        step = offset + t
        if step >= burn_in and (step - burn_in + 1) % thin == 0:
            k = (step - burn_in) // thin
            for v in range(d):
                for u in range(d):
                    if parents[0, v] >> u & 1:
                        out[k, u, v] = True
