"""Study 2's domains: a factorial data set made ready (complete subjects, binary treatments, quantile
bins, the biasing covariate) with its interventional truth, and its pseudo-observational samples."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from causaleval.datasets import consistent
from causaleval.datasets import (
    FactorialData, collected_domains, csv_domains, kdl_domains, load_collected, load_factorial_csv, load_kdl,
)
from causaleval.datasets.user import resolve
from causaleval.datasets.factorial import NORMALIZATIONS, discretize, normalize_outcomes, zero_baseline_offsets
from causaleval.effects.sampling import pseudo_observational

SOURCES = ("collected", "kdl", "csv")


@dataclass(frozen=True)
class Domain:
    """A domain ready for the experiments: integer-coded data restricted to the biasing
    covariate, the treatments and the outcomes, and the truth ``P(O | do(T))``."""

    name: str
    data: FactorialData
    covariate: str
    cards: dict[str, int]
    truth: dict[tuple[str, str], np.ndarray]

    @property
    def columns(self) -> list[str]:
        return [self.covariate, *self.data.treatments, *self.data.outcomes]

    @property
    def pairs(self) -> list[tuple[str, str]]:
        return list(self.truth)

    @property
    def subjects(self) -> int:
        return len(self.data.subjects)


def check_domains(p: dict[str, Any]) -> None:
    """Every name in ``domains`` must be a domain of ``source`` and have a biasing covariate;
    ``source="csv"`` needs ``data_dir``, the folder of ``<domain>.csv`` files."""
    data_dir = resolve(p["data_dir"]) if p.get("data_dir") else None
    if p["source"] == "csv" and data_dir is None:
        raise ValueError("parameter source = 'csv' needs data_dir, the folder of <domain>.csv files "
                         "(data/examples/README.md); data_dir is None")
    if p["source"] == "kdl":
        known = kdl_domains()
    elif p["source"] == "csv":
        known = csv_domains(data_dir)
    else:
        known = collected_domains(data_dir)
    unknown = [d for d in p["domains"] if d not in known]
    if unknown:
        raise ValueError(f"parameter domains: unknown domain(s) {unknown} for source={p['source']!r}; "
                         f"known: {known}")
    missing = [d for d in p["domains"] if d not in p["covariates"]]
    if missing:
        raise ValueError(f"parameter covariates: no biasing covariate for domains {missing}")
    # a misspelt key would be ignored and its domain silently keep all its outcomes
    anywhere = {*kdl_domains(), *collected_domains(None), *known}
    for key in ("outcomes", "covariates"):
        stray = [d for d in p.get(key, {}) if d not in anywhere]
        if stray:
            raise ValueError(f"parameter {key}: {stray} name no domain of any source; known: {sorted(anywhere)}")
    empty = [d for d, names in p.get("outcomes", {}).items() if not names]
    if empty:
        raise ValueError(f"parameter outcomes: no outcome listed for {empty}; list at least one, or leave "
                         "the domain out of outcomes to keep all of its outcomes")


def data_fingerprint(domains: Sequence[Domain]) -> str:
    """SHA-256 over each prepared domain's name and rows (pandas' row hashes, in order), for
    cache keys: a domain whose files changed under the same parameters (a recollection, a
    replaced KDL file) is not served the trial tables of the old data."""
    digest = hashlib.sha256()
    for domain in domains:
        rows = pd.util.hash_pandas_object(domain.data.frame[domain.columns], index=False).to_numpy()
        digest.update(domain.name.encode() + b"\0" + rows.tobytes())
    return digest.hexdigest()


def load_domain(source: str, name: str, *, covariate: str, outcomes: Sequence[str] | None,
                bins: int, beta: float, data_dir: str | None = None,
                treatments: Sequence[str] | None = None, normalize: str = "none") -> Domain:
    """Complete subjects, binary treatments (extremes), outcomes divided by their median
    control-case value (``normalize``: ``"subject"`` or ``"dataset"``, the paper's supplement Sec. 1,
    :func:`causaleval.datasets.factorial.normalize_outcomes`, with an offset of 1 on outcomes whose
    baseline is zero somewhere; ``"none"`` leaves them), quantile bins; truth under Algorithm 1.
    ``data_dir`` (relative: from the repository root) holds the source's files; ``source="csv"``
    reads ``<data_dir>/<name>.csv`` (:func:`causaleval.datasets.load_factorial_csv`). ``treatments``
    keeps some of a KDL file's treatments (the others held at their control level)."""
    if normalize not in NORMALIZATIONS:
        raise ValueError(f"normalize={normalize!r}: expected one of {', '.join(NORMALIZATIONS)}")
    data = raw_data(source, name, data_dir, treatments)
    keep = list(outcomes or data.outcomes)
    missing = [c for c in [covariate, *keep] if c not in data.frame.columns]
    if missing:
        raise ValueError(f"{data.name}: columns {missing} not in the data; outcomes: "
                         f"{list(data.outcomes)}, covariates: {list(data.covariates)}")
    data = data.complete()
    if normalize != "none":
        data = normalize_outcomes(data, keep, per=normalize, offset=zero_baseline_offsets(data, keep, normalize))
    data = discretize(data, bins, columns=[covariate, *keep])
    data = data.with_notes(frame=data.frame[[data.subject, data.trial, *data.treatments, covariate, *keep]],
                           outcomes=tuple(keep), covariates=(covariate,))
    cards = {c: int(data.frame[c].max()) + 1 for c in [covariate, *data.treatments, *keep]}
    truth = {(t, o): consistent.factorial_interventional(
        data, t, o, card=cards[o], biasing_covariate=covariate, beta=beta)
        for t in data.treatments for o in keep}
    return Domain(name, data, covariate, cards, truth)


def raw_data(source: str, name: str, data_dir: str | None = None,
             treatments: Sequence[str] | None = None) -> FactorialData:
    """Domain ``name`` of ``source`` as read, before :func:`load_domain` prepares it."""
    data_dir = resolve(data_dir) if data_dir else None
    if treatments is not None and source != "kdl":
        raise ValueError(f"treatments={list(treatments)}: only the KDL files' treatments can be chosen")
    if source == "kdl":
        return load_kdl(name, data_dir, treatments=treatments)
    if source == "collected":
        return load_collected(name, data_dir, binary=True)
    if source == "csv":
        return load_factorial_csv(name, data_dir)
    raise ValueError(f"unknown data source {source!r}; expected one of {SOURCES}")


def domain_summary(domains: Sequence[Domain]) -> pd.DataFrame:
    """Subjects, runs, treatments, outcomes and biasing covariate of each prepared domain."""
    return pd.DataFrame([{
        "domain": d.name, "subjects": d.subjects, "runs": len(d.data.frame),
        "treatments": ", ".join(d.data.treatments), "outcomes": ", ".join(d.data.outcomes),
        "biasing covariate": f"{d.covariate} ({d.cards[d.covariate]} levels)"} for d in domains]
    ).set_index("domain")


def related_table(domain: Domain, alpha: float, test: str = "friedman") -> pd.DataFrame:
    """The relatedness test (the Friedman test by default) of every (treatment, outcome) pair of a domain."""
    return consistent.related_pairs(domain.data, alpha=alpha, test=test).assign(domain=domain.name)


def empirical_sample(domain: Domain, beta: float, seed: int) -> pd.DataFrame:
    """One pseudo-observational data set (Algorithm 1), integer codes of the model's columns."""
    sample = pseudo_observational(domain.data, domain.covariate, beta, seed)
    return sample[domain.columns].astype("int64")
