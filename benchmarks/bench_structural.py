"""Batched nCED and SHD against gadjid's per-pair ``shd``, as a throughput ratio in one run.

Workloads of issue 2: 10,000 random DAG pairs at 20 nodes, and 100 pairs at 1,000 nodes.
For the kit, the pairs are one (B, N, N) GraphBatch each side and each metric is one
vectorized call; gadjid is called once per pair on the same int8 matrices (its input
format). Times are the best of ``--repeat`` runs. Run: ``python benchmarks/bench_structural.py``.
"""

from __future__ import annotations

import argparse
import os
import time

import causaleval  # noqa: F401,I001  (first: the kit's numerical environment, causaleval.numenv)

import numpy as np

from causaleval import metrics as M
from causaleval.graphs import GraphBatch


def random_dags(b: int, n: int, edge_prob: float, rng: np.random.Generator) -> np.ndarray:
    """``b`` random DAGs (a random node order, each forward pair an edge with ``edge_prob``)."""
    upper = np.triu(rng.random((b, n, n)) < edge_prob, 1)
    out = np.empty((b, n, n), dtype=np.int8)
    for i in range(b):
        p = rng.permutation(n)
        out[i] = upper[i][np.ix_(p, p)]
    return out


def best_of(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def run(pairs: int, n: int, edge_prob: float, repeat: int, seed: int) -> dict[str, float]:
    import gadjid

    rng = np.random.default_rng(seed)
    t, m = random_dags(pairs, n, edge_prob, rng), random_dags(pairs, n, edge_prob, rng)
    nodes = tuple(f"x{i}" for i in range(n))
    tb, mb = GraphBatch(nodes, t), GraphBatch(nodes, m)
    t_c, m_c = [np.ascontiguousarray(x) for x in t], [np.ascontiguousarray(x) for x in m]

    def gadjid_shd() -> list:
        return [gadjid.shd(a, b) for a, b in zip(t_c, m_c)]

    # same answers where they must agree: ours counts a reversal twice, gadjid once
    ours = M.shd_dag(tb, mb)
    rev = np.count_nonzero((t == 1) & (np.swapaxes(m, 1, 2) == 1), axis=(1, 2))
    assert np.array_equal(ours, np.array([s[1] for s in gadjid_shd()]) + rev)
    g = best_of(gadjid_shd, repeat)
    shd = best_of(lambda: M.shd_dag(tb, mb), repeat)
    nced = best_of(lambda: M.nced(tb, mb, 0.2), repeat)
    return {"gadjid shd": g, "kit shd_dag": shd, "kit nced": nced}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    print(f"RAYON_NUM_THREADS={os.environ.get('RAYON_NUM_THREADS', 'unset (gadjid default)')}")
    print(f"{'workload':<22}{'metric':<14}{'seconds':>10}{'pairs/s':>12}{'x gadjid':>10}")
    for pairs, n, p in ((10_000, 20, 0.15), (100, 1_000, 0.004)):
        res = run(pairs, n, p, args.repeat, args.seed)
        label = f"{pairs} pairs, N={n}"
        base = res["gadjid shd"]
        for name, sec in res.items():
            print(f"{label:<22}{name:<14}{sec:>10.4f}{pairs / sec:>12.0f}{base / sec:>10.1f}")


if __name__ == "__main__":
    main()
