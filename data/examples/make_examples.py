"""Write the example files of data/examples/ (see README.md there); deterministic.

    .venv/bin/python data/examples/make_examples.py
"""

from pathlib import Path

import numpy as np
import pandas as pd

from causaleval.datasets import network_graph
from causaleval.datasets.networks import load_network
from causaleval.datasets.networks import forward_sample

HERE = Path(__file__).resolve().parent

#: The four-variable sprinkler network (cloudy -> sprinkler, cloudy -> rain, both -> wet_grass).
SPRINKLER_BIF = """network sprinkler {
}
variable cloudy {
  type discrete [ 2 ] { no, yes };
}
variable sprinkler {
  type discrete [ 2 ] { off, on };
}
variable rain {
  type discrete [ 2 ] { no, yes };
}
variable wet_grass {
  type discrete [ 2 ] { no, yes };
}
probability ( cloudy ) {
  table 0.5, 0.5;
}
probability ( sprinkler | cloudy ) {
  (no) 0.5, 0.5;
  (yes) 0.9, 0.1;
}
probability ( rain | cloudy ) {
  (no) 0.8, 0.2;
  (yes) 0.2, 0.8;
}
probability ( wet_grass | sprinkler, rain ) {
  (off, no) 1.0, 0.0;
  (on, no) 0.1, 0.9;
  (off, yes) 0.1, 0.9;
  (on, yes) 0.01, 0.99;
}
"""


def network_examples(rows: int = 600) -> None:
    """sprinkler.bif, its DAG as sprinkler.edges and ``rows`` observations in sprinkler.csv."""
    (HERE / "sprinkler.bif").write_text(SPRINKLER_BIF)
    graph = network_graph(str(HERE / "sprinkler.bif"))
    edges = pd.DataFrame(graph.directed_edges(), columns=["cause", "effect"])
    edges.to_csv(HERE / "sprinkler.edges", index=False)
    forward_sample(load_network(str(HERE / "sprinkler.bif")), rows, seed=0).to_csv(
        HERE / "sprinkler.csv", index=False)


def factorial_example(subjects: int = 40, seed: int = 0) -> None:
    """factorial/demo.csv: every subject (a query) under the four cells of two binary
    treatments, one trial; runtime depends on both treatments and on the query's joins,
    io_reads on the index only."""
    rng = np.random.default_rng(seed)
    joins = rng.integers(0, 4, subjects)
    rows = []
    for s in range(subjects):
        for cache in (0, 1):
            for index in (0, 1):
                runtime = (5 + 3 * joins[s]) * (1.6 - 0.5 * cache) * (1.5 - 0.6 * index) * rng.lognormal(0, 0.2)
                reads = (40 + 25 * joins[s]) * (1.4 - 0.8 * index) * rng.lognormal(0, 0.3)
                rows.append({"subject": f"q{s:03d}", "trial": 0, "treatment:cache": cache, "treatment:index": index,
                             "outcome:runtime_ms": round(runtime, 2), "outcome:io_reads": int(reads),
                             "covariate:num_joins": int(joins[s])})
    (HERE / "factorial").mkdir(exist_ok=True)
    pd.DataFrame(rows).to_csv(HERE / "factorial" / "demo.csv", index=False)


if __name__ == "__main__":
    network_examples()
    factorial_example()
