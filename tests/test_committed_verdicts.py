"""Every committed claims and agreement table, and every side table beside them, read as a referee
would (issue 35): only the kit's vocabulary (:mod:`causaleval.verdicts`); no ``holds`` or ``does not
hold`` without the test or interval that decided it; one cell, one verdict across a study's tables;
true/false columns named by what they measure; Markdown showing a missing value as a dash and a
true/false value as yes/no.

These read ``figures/`` as committed, so they pass on outputs regenerated from the current code."""

import re
from pathlib import Path

import pandas as pd
import pytest

from causaleval import paths, verdicts
from causaleval.report import MISSING
from committed import committed_figures

FIGURES = paths.ROOT / "figures"  # the committed outputs (the suite's CAUSALEVAL_FIGURES is a temporary folder)


def _committed(pattern: str) -> list[Path]:
    """The committed files of ``figures/`` matching ``pattern`` (:mod:`committed`); all of them outside
    a git checkout."""
    tracked = committed_figures()
    if tracked is None:
        return sorted(FIGURES.rglob(pattern))
    return sorted(paths.ROOT / name for name in tracked if Path(name).match(pattern))


CLAIMS = _committed("claims.csv")
AGREEMENTS = _committed("agreement.csv")
TABLES = _committed("*.csv")
MARKDOWN = _committed("*.md")
#: verdict-like names a true/false column must not carry: such a column judges, and judging is the
#: claims' and agreement tables' (in the vocabulary); a side table names what it measures
JUDGING_NAMES = {"agrees", "agree", "holds", "hold", "follows", "verdict", "status", "matches", "differs"}
WORDS = set(verdicts.VERDICTS) | set(verdicts.AGREEMENT)


def _label(path: Path) -> str:
    return path.relative_to(FIGURES).as_posix()


@pytest.mark.parametrize("path", CLAIMS, ids=_label)
def test_claims_speak_the_vocabulary_and_name_their_test(path):
    table = pd.read_csv(path)
    verdicts.check_claims(table, _label(path))
    decided = table[table["verdict"].isin([verdicts.HOLDS, verdicts.DOES_NOT_HOLD])]
    untested = decided[decided["test"].isna() & (decided["low"].isna() | decided["high"].isna())]
    assert untested.empty, f"{_label(path)}: decided without a test or an interval: {untested['claim'].tolist()}"


@pytest.mark.parametrize("path", AGREEMENTS, ids=_label)
def test_agreement_speaks_the_vocabulary_with_one_status_per_cell(path):
    table = pd.read_csv(path)
    assert set(table["status"]) <= set(verdicts.AGREEMENT), _label(path)
    keys = [c for c in table.columns if c not in verdicts.AGREEMENT_COLUMNS and table[c].dtype == object
            and c not in ("source", "single-graph sd")] + ["item"]
    statuses = table.groupby(keys, dropna=False)["status"].nunique()
    assert (statuses <= 1).all(), f"{_label(path)}: cells with two statuses: {statuses[statuses > 1].index.tolist()}"


@pytest.mark.parametrize("path", CLAIMS, ids=_label)
def test_a_claim_on_a_compared_cell_quotes_its_status(path):
    """A claim whose statement quotes an agreement row's item (the same printed number) states that
    row's status in its evidence, so the cell has one verdict."""
    agreement = path.with_name("agreement.csv")
    if not agreement.exists():
        pytest.skip("no agreement table beside these claims")
    items = pd.read_csv(agreement)[["item", "status"]].dropna()
    items = items[items["item"].astype(str).str.len() >= 20]  # a quoted sentence, not a short label
    claims = pd.read_csv(path)
    found = []
    for claim in claims.itertuples():
        for item in items.itertuples():
            if str(item.item) in str(claim.statement) and not str(claim.evidence).startswith(str(item.status)):
                found.append(f"{claim.claim}: agreement says {item.status!r}, evidence {str(claim.evidence)[:60]!r}")
    assert not found, f"{_label(path)}: {found}"


@pytest.mark.parametrize("path", TABLES, ids=_label)
def test_side_tables_judge_only_in_the_vocabulary(path):
    table = pd.read_csv(path)
    for column in table.columns:
        values = set(table[column].dropna().astype(str))
        if str(column).strip().lower() in ("verdict", "status"):
            assert values <= WORDS, f"{_label(path)}: column {column!r} holds {sorted(values - WORDS)}"
        if values and values <= {"True", "False"}:
            assert str(column).strip().lower() not in JUDGING_NAMES, (
                f"{_label(path)}: true/false column {column!r} judges; name it by what it measures")


@pytest.mark.parametrize("path", MARKDOWN, ids=_label)
def test_markdown_shows_missing_as_a_dash_and_booleans_as_yes_no(path):
    cells = [c.strip() for line in path.read_text().splitlines()[2:] for c in line.strip("|").split("|")]
    bad = sorted({c for c in cells if c in ("nan", "NaN", "None", "True", "False")})
    assert not bad, f"{_label(path)}: cells {bad} (a missing value is {MISSING!r}, true/false is yes/no)"


def test_the_vocabulary_has_one_word_for_a_reading_dependent_claim():
    assert verdicts.DEPENDS_ON_READING in verdicts.VERDICTS
    assert verdicts.DEPENDS_ON_READING not in verdicts.EVIDENCE
    assert verdicts.by_reading({"a": True, "b": False})[0] == verdicts.DEPENDS_ON_READING
    assert verdicts.by_reading({"a": True, "b": True})[0] is None  # the readings agree: judge it as one
    assert re.search(r"true under a \(1 of 2", verdicts.by_reading({"a": True, "b": False})[1])


#: column names of a run-time measurement: it varies by run and machine, so it belongs in an output
#: named ``measured_*`` (git ignores those), never in a committed table that must rerun bit for bit
TIMING = re.compile(r"second|runtime|cpu|wall|elapsed|\btime\b|duration", re.IGNORECASE)


@pytest.mark.parametrize("path", [p for p in TABLES if not p.name.startswith("measured_")], ids=_label)
def test_committed_tables_hold_no_run_time(path):
    timing = [c for c in pd.read_csv(path, nrows=0).columns if TIMING.search(str(c))]
    assert not timing, f"{_label(path)}: run-time columns {timing} change on every rerun; save them as measured_*"
