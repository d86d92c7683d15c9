"""Exact P(O | do(T = t)) for every ordered pair and treatment value: kit vs pgmpy.

    python benchmarks/bench_do_inference.py [--networks asia sachs alarm study:sqlite study:postgres]

``study:<domain>`` is study 2's consistent model of a collected domain. For each network,
every ordered pair (T, O) of distinct nodes and every state t of T is
asked of ``causaleval.effects.bn.DiscreteBN.interventional`` (one table [t, o] per pair) and of
the anchor, pgmpy's ``CausalInference.query(variables=[O], do={T: t})``, on the same
network (the shipped BIF tables renormalized to sum to one, as ``bn.from_pgmpy`` does). The script
prints, per network, the queries asked, how many pgmpy answered, the largest absolute
difference over the answered ones, both total times and the ratio.
"""

from __future__ import annotations

import argparse
import itertools
import re
import time
import warnings

import causaleval  # noqa: F401,I001  (first: the kit's numerical environment, causaleval.numenv)

import numpy as np
import pandas as pd

from causaleval.effects import bn
from causaleval.datasets import load_network


def study_network(domain: str) -> bn.DiscreteBN:
    """Study 2's consistent model of a collected domain, fitted to one pseudo-observational
    sample, at the defaults of the notebook's parameters cell."""
    import ast

    from causaleval import paths
    from causaleval.app import cli
    from causaleval.datasets import consistent
    from causaleval.studies import software_tvd as S

    declared = cli.declared_parameters(paths.NOTEBOOKS / "02_software_tvd.ipynb")
    p = {name: ast.literal_eval(spec["default"]) for name, spec in declared.items()}
    d = S.load_domain("collected", domain, covariate=p["covariates"][domain],
                      outcomes=p["outcomes"].get(domain), bins=p["bins"], beta=p["beta"])
    dag = consistent.consistent_dag(d.data, d.covariate, consistent.related_pairs(d.data, p["alpha"]))
    return bn.fit(dag, S.empirical_sample(d, p["beta"], p["seed"]), smoothing=p["smoothing"],
                  ess=p["ess"], cards=d.cards)


def bench(network: str) -> dict:
    from pgmpy.inference import CausalInference

    if network.startswith("study:"):
        net = study_network(network.split(":", 1)[1])
    else:
        net = bn.from_pgmpy(load_network(network))
    model = net.to_pgmpy()  # both sides on the same tables, renormalized as from_pgmpy does
    pairs = list(itertools.permutations(net.nodes, 2))
    start = time.perf_counter()
    ours = {(t, o): net.interventional(t, o) for t, o in pairs}
    kit_seconds = time.perf_counter() - start

    inference = CausalInference(model)
    answered, refused, worst = 0, {}, 0.0
    start = time.perf_counter()
    for t, o in pairs:
        states = model.get_cpds(t).state_names[t]
        order = model.get_cpds(o).state_names[o]
        for i, s in enumerate(states):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    factor = inference.query([o], do={t: s}, show_progress=False)
            except ValueError as err:
                reason = re.sub(r"'[^']*'", "X", str(err)).split(".")[0]
                refused[reason] = refused.get(reason, 0) + 1
                continue
            values = factor.values[[factor.state_names[o].index(x) for x in order]]
            worst = max(worst, float(np.abs(values - ours[t, o][i]).max()))
            answered += 1
    pgmpy_seconds = time.perf_counter() - start
    queries = sum(net.cards[t] for t, _ in pairs)
    return {"network": network, "nodes": len(net.nodes), "queries": queries,
            "pgmpy_answered": answered, "max_abs_diff": worst,
            "kit_s": round(kit_seconds, 3), "pgmpy_s": round(pgmpy_seconds, 1),
            "speedup": round(pgmpy_seconds / kit_seconds, 1),
            "pgmpy_refusals": "; ".join(f"{n} x {r}" for r, n in refused.items())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--networks", nargs="+",
                        default=["asia", "sachs", "alarm", "study:sqlite", "study:postgres"])
    args = parser.parse_args()
    rows = [bench(n) for n in args.networks]
    frame = pd.DataFrame(rows)
    total = frame["pgmpy_s"].sum() / frame["kit_s"].sum()
    print(frame.drop(columns="pgmpy_refusals").to_string(index=False))
    print(f"\ntotal speedup: {total:.0f}x")
    for row in rows:
        print(f"{row['network']}: pgmpy refused {row['pgmpy_refusals'] or 'nothing'}")


if __name__ == "__main__":
    main()
