"""Collection throughput of the query domains, and the load time of a KDL-sized file.

    python benchmarks/bench_collect.py [--rows 1500000] [--subjects 40]

1. KDL loader: writes a synthetic file in the PostgreSQL KDL layout with ``--rows`` rows
   (the original has about 1.5 million) and times ``load_kdl`` (read, match columns, drop
   constants, binarize) against the anchor, a bare ``pandas.read_csv`` of the same file.
2. Collection: runs/second of ``collect_domain`` for sqlite and postgres on the snapshot's
   database (scale 0.5) with ``--subjects`` queries and one trial, timed over the runs
   only (the manifest's ``runs_per_second``), next to the shipped snapshots' own figures.
"""

from __future__ import annotations

import argparse
import itertools
import json
import tempfile
import time
from pathlib import Path

import causaleval  # noqa: F401,I001  (first: the kit's numerical environment, causaleval.numenv)

import numpy as np
import pandas as pd

from causaleval.collect import collect_domain
from causaleval.datasets.kdl import SCHEMAS, load_kdl
from causaleval.datasets.software import SNAPSHOTS


def kdl_file(folder: Path, rows: int) -> Path:
    schema = SCHEMAS["postgres"]
    rng = np.random.default_rng(0)
    cells = np.array(list(itertools.product(range(3), repeat=3)))
    per_subject = 27 * 5
    n_subjects = rows // per_subject + 1
    subject = np.repeat(np.arange(n_subjects), per_subject)[:rows]
    cell = np.tile(np.repeat(np.arange(27), 5), n_subjects)[:rows]
    frame = pd.DataFrame({"url": "https://data.stackexchange.com/q/" + pd.Series(subject).astype(str),
                          "trial": np.tile(np.arange(5), rows // 5 + 1)[:rows]})
    for j, t in enumerate(schema.treatments):
        frame[t] = cells[cell, j]
    for o in schema.outcomes:
        frame[o] = 0 if o.startswith("local") else rng.lognormal(3, 1, rows).round(3)
    for c in schema.covariates:
        frame[c] = rng.integers(0, 1000, n_subjects)[subject]
    frame["local_hit_blocks"] = 0
    path = folder / schema.file
    path.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(path, index=False)
    return path


def bench_kdl(rows: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        path = kdl_file(Path(tmp), rows)
        start = time.perf_counter()
        pd.read_csv(path)
        anchor = time.perf_counter() - start
        start = time.perf_counter()
        data = load_kdl("postgres", tmp)
        ours = time.perf_counter() - start
    return {"rows": rows, "rows_after_binarizing": len(data.frame), "read_csv_s": round(anchor, 2),
            "load_kdl_s": round(ours, 2), "ratio": round(ours / anchor, 2)}


def bench_collection(domain: str, subjects: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        collect_domain(domain, subjects=subjects, trials=1, scale=0.5, out=tmp, progress=False)
        total = time.perf_counter() - start
        manifest = json.loads((Path(tmp) / "manifest.json").read_text())
    shipped = SNAPSHOTS / domain / "manifest.json"
    snapshot = json.loads(shipped.read_text()) if shipped.exists() else {}
    return {"domain": domain, "runs": manifest["runs"], "runs_per_second": manifest["runs_per_second"],
            "total_s_with_setup": round(total, 1),
            "snapshot_runs_per_second": snapshot.get("runs_per_second")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_500_000)
    parser.add_argument("--subjects", type=int, default=40)
    args = parser.parse_args()
    print(pd.DataFrame([bench_kdl(args.rows)]).to_string(index=False))
    print()
    print(pd.DataFrame([bench_collection(d, args.subjects) for d in ("sqlite", "postgres")]).to_string(index=False))


if __name__ == "__main__":
    main()
