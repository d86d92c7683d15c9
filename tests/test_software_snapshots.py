"""The shipped collections in data/software/: complete, and what `make collect` would make."""

import json
import re

import numpy as np
import pandas as pd
import pytest

from causaleval import paths
from causaleval.collect import postgres, runner, sqlite, stackdb
from causaleval.datasets import collected_domains, load_collected

CELLS = {domain: int(np.prod([len(levels) for levels in engine.TREATMENTS.values()]))
         for domain, engine in (("sqlite", sqlite), ("postgres", postgres))}


def _make_settings() -> dict:
    args = re.search(r"^COLLECT_ARGS := (.*)$", (paths.ROOT / "Makefile").read_text(), re.M)[1]
    pairs = dict(re.findall(r"--(\w+) (\S+)", args))
    return {"subjects": int(pairs["subjects"]), "trials": int(pairs["trials"]),
            "scale": float(pairs["scale"]), "seed": int(pairs["seed"])}


@pytest.mark.parametrize("domain", ["sqlite", "postgres"])
def test_snapshot_is_complete_and_matches_make_collect(domain):
    assert domain in collected_domains(), f"data/software/{domain} is not shipped"
    manifest = json.loads((paths.DATA / "software" / domain / "manifest.json").read_text())
    settings = manifest["settings"]
    assert {k: settings[k] for k in ("subjects", "trials", "scale", "seed")} == _make_settings()
    data = load_collected(domain)
    assert len(data.frame) == settings["subjects"] * settings["trials"] * CELLS[domain]
    assert manifest["runs"] == len(data.frame)
    assert sum(manifest["status_counts"].values()) == len(data.frame)
    assert not data.frame[[data.subject, data.trial, *data.treatments]].duplicated().any()
    ok = data.ok()
    assert (ok["rows_returned"] == ok["rows"]).all()


def test_snapshot_subjects_are_what_the_seed_generates(tmp_path):
    settings = _make_settings()
    db = stackdb.generate(settings["seed"], settings["scale"])
    first = runner.prepare_subjects(db, 15, settings["seed"], tmp_path)
    shipped = pd.read_csv(paths.DATA / "software" / "sqlite" / "subjects.csv.gz")
    pd.testing.assert_frame_equal(first, shipped.head(15))
