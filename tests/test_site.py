"""``causaleval report``: a Sphinx + myst-nb site built from the stored notebooks; every local link
of its pages resolves, the dashboard counts every study's verdicts and shows its key figure at the
page's width, and the pages load in a real headless Chromium without a console error."""

import re
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest

import browser
from causaleval.app import book, site

FIGURES = site.paths.ROOT / "figures"  # the committed outputs (the suite's CAUSALEVAL_FIGURES is a temporary folder)


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.links += [v for k, v in attrs if k in ("href", "src") and v]


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    return book.build(tmp_path_factory.mktemp("site") / "report", figures_root=FIGURES)


def _local_links(page: Path) -> list[str]:
    parser = _Links()
    parser.feed(page.read_text())
    return [link.split("#")[0].split("?")[0] for link in parser.links
            if not re.match(r"[a-z]+:", link) and not link.startswith("#")]


@pytest.mark.parametrize("page", ["index.html", "studies/02_software_tvd.html", "search.html"])
def test_every_local_link_of_a_page_resolves(index, page):
    path = index.parent / page
    links = _local_links(path)
    assert links
    missing = [link for link in links if link and not (path.parent / link).exists()]
    assert not missing


def test_the_dashboard_counts_every_studys_verdicts_and_links_its_page(index):
    text = index.read_text()
    for stem in ("01_asia_mag_nced", "02_software_tvd", "03_over_under_specification", "04_survey_metric_tables"):
        assert f'href="studies/{stem}.html"' in text and (index.parent / "studies" / f"{stem}.html").is_file()
    claims = site.read_claims(FIGURES / "02_software_tvd")
    assert claims is not None and set(claims["verdict"]) <= {"holds", "does not hold", "undecided", "not tested"}
    assert f"{(claims['verdict'] == 'holds').sum()} holds" in text
    assert text.count('style="width: 100%;"') >= 4  # a key figure per study at the page's width
    assert (index.parent / "search.html").is_file() and (index.parent / "searchindex.js").is_file()


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


def test_a_studys_runs_on_other_data_are_counted_on_the_dashboard(tmp_path):
    """figures/<study>/<variant>/claims.csv (e.g. kdl_jdk, the paper's own file) gets a dashboard cell."""
    notebook = site.paths.NOTEBOOKS / "03_over_under_specification.ipynb"
    folder = tmp_path / notebook.stem / "kdl_jdk"
    folder.mkdir(parents=True)
    pd.DataFrame({"claim": ["c"], "statement": ["a claim"], "verdict": ["does not hold"],
                  "evidence": ["on the paper's data"]}).to_csv(folder / "claims.csv", index=False)
    pages = [site.study_page("over_under_specification", notebook, tmp_path)]
    assert "| `kdl_jdk`: 1 does not hold |" in book.dashboard(pages)


def test_pages_load_in_headless_chromium_without_console_errors_and_figures_are_readable(index, request):
    shots = Path(request.config.rootpath) / "runs" / "test-output"
    profile = index.parent.parent / "chromium-profile"
    for page, name in ((index, "report-front-page.png"), (index.parent / "studies" / "01_asia_mag_nced.html",
                                                           "report-study-1.png")):
        result = browser.screenshot(page, shots / name, profile)
        assert (shots / name).stat().st_size > 10_000, result.stderr[-2000:]
        errors = [line for line in result.stderr.splitlines()
                  if re.search(r"Uncaught|Error|Failed to load|net::ERR_", line)]  # the theme's notes are no errors
        assert not errors, errors
    widths = browser.image_widths(index, profile)
    assert len(widths) >= 4 and min(widths) >= 600, widths  # key figures at the page's width, not thumbnails
