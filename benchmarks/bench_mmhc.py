"""MMHC: the kit's fast composition vs pgmpy's MmhcEstimator, time and result.

    python benchmarks/bench_mmhc.py [--rows 10000] [--pgmpy-timeout 120]

For each network, ``--rows`` samples (seed 0) are learned by ``causaleval.learn.mmhc.mmhc`` and
by pgmpy's ``MmhcEstimator().estimate()`` (the anchor; run in a child process that is
stopped after ``--pgmpy-timeout`` seconds). Both get integer column labels, so pgmpy's
tie-breaking does not depend on the hash seed. Printed: seconds, the ratio, and each
result's SHD to the true DAG (``causaleval.metrics.shd_dag``), plus the edges in which
the two results differ. A second table times the hill climbing alone inside the kit's skeleton,
scored by the kit's ``counted_bdeu`` and by pgmpy's ``BDeu`` (the anchor: the same scores bit
for bit, counted by a pandas group-by), and says whether the two DAGs are the same.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import time
import warnings

import causaleval  # noqa: F401,I001  (first: the kit's numerical environment, causaleval.numenv)

import pandas as pd

from causaleval import metrics
from causaleval.datasets import load_network, network_graph
from causaleval.graphs import CausalGraph
from causaleval.learn.mmhc import DiscreteData, climb, counted_bdeu, mmhc, mmpc_skeleton
from causaleval.datasets.networks import forward_sample


def _pgmpy(frame: pd.DataFrame, queue: mp.Queue) -> None:
    from pgmpy.estimators import MmhcEstimator

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        model = MmhcEstimator(frame).estimate()
    queue.put((time.perf_counter() - start, [(int(u), int(v)) for u, v in model.edges()]))


def bench(network: str, rows: int, timeout: float) -> dict:
    frame = forward_sample(load_network(network), rows, seed=0).astype("int64")
    names = list(frame.columns)
    truth = network_graph(network)
    start = time.perf_counter()
    ours = mmhc(frame)
    kit = time.perf_counter() - start
    queue: mp.Queue = mp.Queue()
    child = mp.get_context("fork").Process(target=_pgmpy, args=(frame.set_axis(range(len(names)), axis=1), queue))
    child.start()
    child.join(timeout)
    row = {"network": network, "rows": rows, "kit_s": round(kit, 2), "kit_shd": int(metrics.shd_dag(truth, ours))}
    if child.is_alive():
        child.terminate()
        return {**row, "pgmpy_s": f"> {timeout:.0f}", "speedup": f"> {timeout / kit:.0f}"}
    seconds, edges = queue.get()
    theirs = CausalGraph.from_edge_lists(names, [(names[u], names[v]) for u, v in edges])
    differ = (ours.directed_matrix() != theirs.directed_matrix()).sum()
    return {**row, "pgmpy_s": round(seconds, 1), "speedup": round(seconds / kit, 1),
            "pgmpy_shd": int(metrics.shd_dag(truth, theirs)), "differing_edge_marks": int(differ)}


def _timed_climb(frame: pd.DataFrame, skeleton, score) -> tuple[float, list]:
    start = time.perf_counter()
    edges = climb(frame, skeleton, score)
    return time.perf_counter() - start, edges


def bench_search(network: str, rows: int) -> dict:
    from pgmpy.structure_score import BDeu

    frame = forward_sample(load_network(network), rows, seed=0).astype("int64")
    frame = frame.set_axis(range(frame.shape[1]), axis=1)
    data = DiscreteData(frame)
    skeleton = mmpc_skeleton(data)
    kit, ours = _timed_climb(frame, skeleton, counted_bdeu(data, frame, 10.0))
    anchor, theirs = _timed_climb(frame, skeleton, BDeu(frame, equivalent_sample_size=10.0))
    return {"network": network, "rows": rows, "counted_bdeu_s": round(kit, 3), "pgmpy_bdeu_s": round(anchor, 3),
            "speedup": round(anchor / kit, 1), "same_dag": ours == theirs}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--pgmpy-timeout", type=float, default=120)
    parser.add_argument("--networks", nargs="+", default=["cancer", "earthquake", "survey", "asia", "sachs"])
    args = parser.parse_args()
    print(pd.DataFrame([bench(n, args.rows, args.pgmpy_timeout) for n in args.networks]).to_string(index=False))
    print()
    print(pd.DataFrame([bench_search(n, args.rows) for n in [*args.networks, "child", "alarm"]]).to_string(index=False))


if __name__ == "__main__":
    main()
