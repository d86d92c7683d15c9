"""Study 6 at the paper's scale: the committed run of ``notebooks/params/06.paper_scale.yaml``.

That run is the notebook itself at Emezue et al. (2023)'s scale (d = 20 with n = 20 and 100,
Sachs, 1,000 DAGs per posterior) for the methods and the seeds it lists (the paper has 26 seeds;
the parameter file says how many it runs, and the stamp records them); it writes its outputs under
``figures/06_bayesian_cd_ate/paper_scale/``. The notebook at its defaults reads back the per-seed
means over pairs (``per_seed.csv``), Figure 3's distributions, the counts and MC3's two-run
diagnostic (``mc3_convergence.csv``), with the parameters from the provenance stamp, and recomputes
the tables and the claims from them with the same functions, so the claims are tested at the paper's
scale by the current code.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from causaleval import paths, report

#: where the paper-scale run's outputs are committed
PAPER_SCALE_DIR = paths.ROOT / "figures" / "06_bayesian_cd_ate" / "paper_scale"


@dataclass(frozen=True)
class ScaleRun:
    """A finished run read back: per-seed means, Figure 3's distributions, counts, parameters and MC3's
    two-run diagnostic at the run's own settings (:func:`.exact_check.mc3_convergence`; None when the
    run saved none, or when the saved one's parameter hash is not the per-seed table's: another run's)."""

    seeds: pd.DataFrame
    distributions: pd.DataFrame
    counts: pd.DataFrame
    params: dict[str, Any]
    convergence: pd.DataFrame | None


def load_run(folder: str | Path = PAPER_SCALE_DIR) -> ScaleRun | None:
    """The run written to ``folder``, or None when it holds no per-seed table."""
    folder = Path(folder)
    if not (folder / "per_seed.csv").exists():
        return None
    seeds_stamp = report.read_stamp(folder, "per_seed")
    params = seeds_stamp["parameters"]
    params.setdefault("standardize", False)  # a run from before the parameter: its methods had the raw columns
    counts = report.read_table(folder, "counts", text=["not run"])
    convergence = report.read_table(folder, "mc3_convergence")
    same_run = ((folder / "mc3_convergence.provenance.json").exists()
                and report.read_stamp(folder, "mc3_convergence").get("parameter_hash")
                == seeds_stamp.get("parameter_hash"))
    return ScaleRun(report.read_table(folder, "per_seed"), report.read_table(folder, "figure3_distributions"), counts,
                    params, convergence if same_run and not convergence.empty else None)


def is_scale_run(output_dir: str | Path | None) -> bool:
    """Whether a run writes to the paper-scale folder (then it does not read itself back); a relative
    ``output_dir`` is the kernel's, which runs in ``notebooks/``."""
    return output_dir is not None and Path(output_dir).resolve() == PAPER_SCALE_DIR.resolve()
