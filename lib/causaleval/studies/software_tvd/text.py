"""Study 2's prose, computed from its tables."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from causaleval import verdicts



# ------------------------------------------------------------------------ text
def data_sentence(source: str, domains: Sequence[str]) -> str:
    """What the empirical panels ran on, from the parameters."""
    names = ", ".join(domains)
    if source == "kdl":
        return f"the paper's own KDL files ({names})"
    if source == "csv":
        return f"factorial data of the user's own ({names}, long CSV files), not the paper's systems"
    return (f"the kit's own factorial experiments ({names}: query engines on a generated database), "
            "not the paper's systems (JDK, Postgres on Stack Overflow queries, HTTP)")


def closing_text(source: str, domains: Sequence[str], claims: pd.DataFrame,
                 sensitivity: pd.DataFrame | None) -> str:
    """The notebook's closing paragraph, computed from the verdicts and the sensitivity table."""
    counts = claims["verdict"].value_counts()
    parts = [f"The empirical panels ran on {data_sentence(source, domains)}. Of the paper's {len(claims)} "
             "claims re-tested here: " + ", ".join(f"{counts.get(v, 0)} {v}" for v in verdicts.VERDICTS
                                                   if counts.get(v, 0)) + "."]
    head = claims.loc["tvd_orders_differently"] if "tvd_orders_differently" in claims.index else None
    if head is not None:
        parts.append(f"The headline of the random-network experiment, that TVD orders the learners "
                     f"differently from SHD and SID: {head['verdict']} at these parameters (pairwise calls, "
                     f"Holm-corrected: {head['evidence']}).")
    if sensitivity is not None and len(sensitivity):
        held = sensitivity.index[sensitivity["TVD orders differently"] == verdicts.HOLDS].tolist()
        networks = int(sensitivity["networks"].min())
        parts.append(f"Under the switches the notebook names as possible causes ({networks} networks each), "
                     f"it holds in {len(held)} of {len(sensitivity)} settings"
                     + (f" ({'; '.join(held)})" if held else "") + ".")
    failing = claims[claims["verdict"] == verdicts.DOES_NOT_HOLD]
    if len(failing):
        parts.append("Claims that do not hold here: " + "; ".join(
            f"\"{r['statement']}\" ({r['source']})" for _, r in failing.iterrows()) + ".")
    return " ".join(parts)
