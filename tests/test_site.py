"""``causaleval report``: the site is built from the committed notebooks, every link resolves,
and the front page loads in a real headless Chromium without a console error."""

import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest

from causaleval.app import site

FIGURES = site.paths.ROOT / "figures"  # the committed outputs (the suite's CAUSALEVAL_FIGURES is a temporary folder)


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.links += [v for k, v in attrs if k in ("href", "src") and v]


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    return site.build(tmp_path_factory.mktemp("site") / "report", figures_root=FIGURES)


def test_every_link_of_the_front_page_resolves(index):
    parser = _Links()
    parser.feed(index.read_text())
    local = [link for link in parser.links if not re.match(r"[a-z]+:", link) and not link.startswith("#")]
    assert any(link.endswith(".html") for link in local) and any(link.endswith(".png") for link in local)
    missing = [link for link in local if not (index.parent / link.split("#")[0]).is_file()]
    assert not missing
    text = index.read_text()
    anchors = [link[1:] for link in parser.links if link.startswith("#")]
    assert anchors and all(f'id="{a}"' in text for a in anchors)


def test_front_page_shows_every_study_with_its_verdicts(index):
    text = index.read_text()
    for name in ("asia_mag_nced", "software_tvd", "over_under_specification", "survey_metric_tables"):
        assert f'id="{name}"' in text
    claims = site.read_claims(FIGURES / "02_software_tvd")
    assert claims is not None and set(claims["verdict"]) <= {"holds", "does not hold", "undecided", "not tested"}
    assert f"{(claims['verdict'] == 'holds').sum()} holds" in text


@pytest.mark.parametrize("cell, expected", [
    (True, "holds"), ("False", "does not hold"), (None, "not tested"), (float("nan"), "not tested"),
    ("Undecided", "undecided"), ("partly", "partly"),
])
def test_verdict_cells_are_read_as_words(cell, expected):
    assert site.verdict(cell) == expected


def test_a_claims_table_without_evidence_is_refused(tmp_path):
    pd.DataFrame({"statement": ["x"], "verdict": [True]}).to_csv(tmp_path / "claims.csv", index=False)
    with pytest.raises(ValueError, match=r"claims\.csv.*evidence"):
        site.read_claims(tmp_path)


def test_front_page_loads_in_headless_chromium_without_console_errors(index, request):
    browser = shutil.which("chromium")
    if browser is None:
        if os.environ.get("CAUSALEVAL_REQUIRE_BROWSER"):
            pytest.fail("CAUSALEVAL_REQUIRE_BROWSER is set but chromium is not installed")
        pytest.skip("chromium not installed (make test installs it)")
    shot = Path(request.config.rootpath) / "runs" / "test-output" / "report-front-page.png"
    shot.parent.mkdir(parents=True, exist_ok=True)
    profile = index.parent.parent / "chromium-profile"
    result = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0", "--window-size=1280,2400",
         f"--screenshot={shot}", index.as_uri()],
        capture_output=True, text=True, timeout=120)
    assert shot.is_file() and shot.stat().st_size > 10_000, result.stderr[-2000:]
    console = [line for line in result.stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]
    assert not console, console


def test_the_summary_is_plain_text_without_links_relative_to_the_notebook():
    nb = {"cells": [{"cell_type": "markdown", "source": ["# Study 9: X\n", "\n",
                                                          "Reproduces *A paper* (see [refs](../REFERENCES.md)) `code`."]}]}
    assert site._title_and_summary(nb) == ("Study 9: X", "Reproduces A paper (see refs) code.")


def test_a_studys_runs_on_other_data_are_shown_with_their_verdicts(tmp_path):
    """figures/<study>/<variant>/claims.csv (e.g. kdl_jdk, the paper's own file) gets a section and a
    dashboard cell of its own."""
    notebook = site.paths.NOTEBOOKS / "03_over_under_specification.ipynb"
    folder = tmp_path / notebook.stem / "kdl_jdk"
    folder.mkdir(parents=True)
    pd.DataFrame({"claim": ["c"], "statement": ["a claim"], "verdict": ["does not hold"],
                  "evidence": ["on the paper's data"]}).to_csv(folder / "claims.csv", index=False)
    index = site.build(tmp_path / "report", notebooks={"over_under_specification": notebook}, figures_root=tmp_path)
    text = index.read_text()
    assert "On other data: <code>kdl_jdk</code>" in text and "kdl_jdk: 0 holds, 1 does not hold" in text
