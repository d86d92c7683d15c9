"""GES: the kit's ``causaleval.learn.ges`` vs causal-learn's ``ges`` (BDeu), time and result.

    python benchmarks/bench_ges.py [--samples 3] [--networks 5] [--no-pgmpy]

Data, at the defaults of notebook 02's parameters cell: ``--samples`` pseudo-observational
samples (Algorithm 1, seeds ``seed, seed + 1, ...``) of each of study 2's domains, and the
first ``--networks`` random networks of its Figure 2 (``effects.sampling.dirichlet_sample`` with
seed ``seed + index``, as the study draws them). Each data set is
learned once by each side, after a warm-up run; printed: CPU seconds per run (all three are
single-threaded Python), the ratio, the kit's local scores computed and served from its
cache, and the SHD (one per differing node pair, ``metrics.shd_pairs``) between the two
CPDAGs, which must be 0 (the script fails otherwise). pgmpy's ``GES``
(``causal_discovery.GES``, its BDeu with its own equivalent sample size, integer column
labels so its ties do not follow the hash seed) is timed as a reference only.
"""

from __future__ import annotations

import argparse
import ast
import time
import warnings

import causaleval  # noqa: F401,I001  (first: the kit's numerical environment, causaleval.numenv)

import pandas as pd

from causaleval import metrics
from causaleval.learn.ges import ges
from causaleval.graphs import CausalGraph
from causaleval.learn.learners import learn


def notebook_defaults() -> dict:
    from causaleval import paths
    from causaleval.app import cli

    declared = cli.declared_parameters(paths.NOTEBOOKS / "02_software_tvd.ipynb")
    return {name: ast.literal_eval(spec["default"]) for name, spec in declared.items()}


def datasets(p: dict, samples: int, networks: int) -> list[tuple[str, pd.DataFrame]]:
    from causaleval.effects.sampling import dirichlet_sample
    from causaleval.studies import software_tvd as S

    out = []
    for name in p["domains"]:
        domain = S.load_domain(p["source"], name, covariate=p["covariates"][name],
                               outcomes=p["outcomes"].get(name), bins=p["bins"], beta=p["beta"])
        out += [(f"{name} sample {k}", S.empirical_sample(domain, p["beta"], p["seed"] + k)) for k in range(samples)]
    for index in range(networks):
        seed = p["seed"] + index
        _, sample = dirichlet_sample(p["n_nodes"], p["expected_neighbours"], p["node_cards"], p["n_samples"], seed,
                                     p["concentration"])
        out.append((f"Figure 2 network {index}", sample))
    return out


def pgmpy_ges(data: pd.DataFrame) -> CausalGraph:
    from pgmpy.causal_discovery import GES

    names = [str(c) for c in data.columns]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = GES(scoring_method="bdeu", return_type="pdag").fit(data.set_axis(range(len(names)), axis=1))
    graph = model.causal_graph_
    undirected = {tuple(sorted(e)) for e in graph.undirected_edges}
    return CausalGraph.from_edge_lists(names, [(names[u], names[v]) for u, v in graph.directed_edges],
                                       [(names[u], names[v]) for u, v in undirected], name="pgmpy")


def timed(fn, *args, **kwargs):
    """The result and the process's CPU seconds (steadier than wall time on a shared machine)."""
    start = time.process_time()
    result = fn(*args, **kwargs)
    return result, time.process_time() - start


def bench(label: str, data: pd.DataFrame, with_pgmpy: bool) -> dict:
    ours, kit_s = timed(ges, data)
    theirs, cl_s = timed(learn, "ges_causallearn", data)
    row = {"data": label, "rows x vars": f"{data.shape[0]:,} x {data.shape[1]}", "kit s": kit_s,
           "causal-learn s": cl_s, "x causal-learn": cl_s / kit_s, "scores computed": ours.computed,
           "served from cache": ours.served, "SHD kit vs causal-learn": int(metrics.shd_pairs(theirs, ours.graph))}
    if with_pgmpy:
        reference, pgmpy_s = timed(pgmpy_ges, data)
        row |= {"pgmpy s": pgmpy_s, "SHD kit vs pgmpy": int(metrics.shd_pairs(reference, ours.graph))}
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=3, help="pseudo-observational samples per domain")
    parser.add_argument("--networks", type=int, default=5, help="Figure 2 random networks")
    parser.add_argument("--no-pgmpy", action="store_true", help="skip pgmpy's GES")
    args = parser.parse_args()
    cases = datasets(notebook_defaults(), args.samples, args.networks)
    ges(cases[0][1])  # warm-up: imports and first calls
    learn("ges_causallearn", cases[0][1])
    table = pd.DataFrame([bench(label, data, not args.no_pgmpy) for label, data in cases])
    total = table["causal-learn s"].sum() / table["kit s"].sum()
    print(table.to_markdown(index=False, floatfmt=".3g"))
    print(f"\ntotal: kit {table['kit s'].sum():.2f} s, causal-learn {table['causal-learn s'].sum():.1f} s, "
          f"{total:.1f}x; per run {table['x causal-learn'].min():.1f}x to {table['x causal-learn'].max():.1f}x; "
          f"identical CPDAGs: {int((table['SHD kit vs causal-learn'] == 0).sum())} of {len(table)}")
    if (table["SHD kit vs causal-learn"] != 0).any():
        raise SystemExit("the kit's GES and causal-learn's differ on some data set")


if __name__ == "__main__":
    main()
