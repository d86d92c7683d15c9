"""Study 3: over- and under-specification (Gentzel, Garant, Jensen 2019, supplement Sec. 5, Table 2).

The pipeline of ``notebooks/03_over_under_specification.ipynb`` as functions. For one
domain (prepared as in study 2, :func:`causaleval.studies.software_tvd.load_domain`):

* the consistent DAG (covariate -> every treatment, T -> O for each related pair) is
  fitted to a pseudo-observational sample (Algorithm 1);
* for every treatment T, the over-specified DAG (T -> every outcome) and the
  under-specified DAG (no edge out of T) are fitted to the same sample;
* each altered DAG G' is scored against the consistent DAG G by SID(G, G') (with or
  without the biasing covariate's node, ``sid_covariate``), SHD(G, G')
  (directed, over ordered pairs) and ``TVD = sum_{T', O} TV_{P, P_hat, T'=1}(O)`` over every
  (treatment, outcome) pair, ``P`` from the fitted consistent model and ``P_hat`` from
  the fitted altered one (:func:`alteration_scores`);
* Table 2 gives min, median and max over the treatments (:func:`table2`).

Beyond the paper, :func:`subject_curve` repeats this on nested subsamples of subjects,
scoring also against the truth read off the factorial data, to test the paper's
explanation that over-specification costs statistical efficiency (its error should
fall like ``n^(-1/2)``) while under-specification costs bias (it should not fall).

The report's tables: :func:`claims` and :func:`agreement`, in the kit's vocabulary
(:mod:`.claims`); Table 2's row on the paper's own files under every combination of the choices the
paper leaves open, and what it does to the claim: :mod:`.grid`. The files: :mod:`.scores` (the
altered models and Table 2), :mod:`.curve` (the subject curve), :mod:`.claims`, :mod:`.grid`,
:mod:`.text`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd

from causaleval import params
from causaleval.studies.over_under_specification.claims import (
    PAPER_DOMAINS, agreement, claims, ratio_bounds, ratio_by_treatment, ratio_claim, repeat_ratios, reversal_summary,
)
from causaleval.studies.over_under_specification.curve import (
    REFERENCES, curve_means, error_floor, floor_shares, plot_curve, subject_curve,
)
from causaleval.studies.over_under_specification.grid import (
    AXES, REFERENCES as GRID_REFERENCES, SETTINGS as GRID_SETTINGS, grid_by_axis, grid_covariates, grid_summary,
    grid_table, plot_grid, with_readings,
)
from causaleval.studies.over_under_specification.scores import (
    MODELS, STATS, altered_dags, alteration_scores, beside_paper, paper_table2, sid_both_ways, sid_fit, table2, without,
)
from causaleval.studies.over_under_specification.text import (
    closing_text, grid_sentence, ratio_sentence, sid_fit_sentence,
)
from causaleval.studies.software_tvd import Domain, check_domains, domain_summary

STUDY = "03_over_under_specification"

__all__ = ["agreement", "alteration_scores", "altered_dags", "beside_paper", "check_params", "claims",
           "clip_subject_counts", "closing_text", "curve_means", "domain_table", "error_floor", "floor_shares",
           "grid_by_axis", "grid_covariates", "grid_sentence", "grid_summary", "grid_table", "paper_table2",
           "plot_curve", "plot_grid", "ratio_bounds", "ratio_by_treatment", "ratio_claim", "ratio_sentence",
           "repeat_ratios", "reversal_summary", "sid_both_ways", "sid_fit", "sid_fit_sentence", "subject_curve",
           "table2", "with_readings", "without", "AXES", "GRID_REFERENCES", "GRID_SETTINGS", "MODELS", "PAPER_DOMAINS",
           "REFERENCES", "STATS", "STUDY"]


def check_params(p: dict[str, Any]) -> None:
    """Raise a ValueError naming the first parameter of notebook 03 that does not fit: its
    declared type, range or choices (``notebooks/03_over_under_specification.params.yaml``),
    then what a schema cannot state (the domains exist and have a biasing covariate)."""
    params.check(STUDY, p)
    check_domains(p)


def clip_subject_counts(domain: Domain, counts: Sequence[int]) -> tuple[list[int], str]:
    """The subsample sizes that fit in the domain's complete subjects; sizes above them are
    replaced by the domain's own count (so the largest point uses every subject), with a
    note saying so ("" when nothing changed). The defaults adapt to the data: the paper's
    JDK file has 473 subjects, fewer than the default's largest size."""
    counts = sorted({int(n) for n in counts})
    kept = [n for n in counts if n <= domain.subjects]
    dropped = [n for n in counts if n > domain.subjects]
    if not dropped:
        return kept, ""
    if domain.subjects not in kept:
        kept.append(domain.subjects)
    return kept, (f"{domain.name}: subject_counts {dropped} exceed its {domain.subjects} complete "
                  f"subjects; using {kept}")


def domain_table(domains: Sequence[Domain], dags: Sequence[Any]) -> pd.DataFrame:
    """Study 2's summary of each domain plus its consistent DAG's treatment -> outcome edges."""
    edges = [", ".join(f"{t}->{o}" for t, o in dag.directed_edges() if t in d.data.treatments)
             for d, dag in zip(domains, dags, strict=True)]
    return domain_summary(domains).assign(**{"treatment -> outcome edges": edges})
