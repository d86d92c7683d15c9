"""Progress on the command line: the cell a run is in, named by its section, and the trials of
``run_trials`` read from the kernel's progress file, with their rate and the time left."""

import io
import json
import re

import nbformat

from tqdm_lines import RATE

from causaleval import parallel
from causaleval.app import progress


def _square(x, network="asia"):
    return x * x


def _cells():
    return [nbformat.v4.new_markdown_cell("# Study\n\n## Table 2\n\ntext"),
            nbformat.v4.new_code_cell("x = 1", metadata={"tags": ["parameters"]}),
            nbformat.v4.new_code_cell("table = make()"),
            nbformat.v4.new_markdown_cell("no heading"),
            nbformat.v4.new_code_cell("# a comment\nshow(table)")]


def test_cells_are_named_by_their_tag_or_the_heading_above():
    cells = _cells()
    assert [progress.cell_label(cells, i) for i in (1, 2, 4)] == ["parameters", "Table 2", "Table 2"]
    assert progress.cell_label([nbformat.v4.new_code_cell("# note\nfit(data)")], 0) == "fit(data)"


def test_trials_reported_by_the_kernel_show_as_lines_with_count_rate_and_item(tmp_path, monkeypatch):
    channel = tmp_path / "progress.jsonl"
    out = io.StringIO()
    with progress.RunProgress("demo", channel, stream=out) as shown:
        monkeypatch.setenv(progress.CHANNEL, shown.environ()[progress.CHANNEL])
        shown.cell_start(_cells(), 2)
        results = parallel.run_trials(_square, [dict(x=i, network="asia") for i in range(4)], n_jobs=1,
                                      progress=False, desc="learning")
    assert results == [0, 1, 4, 9]
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("demo: cell 2/3 (Table 2) at 00:")
    assert any(line.startswith("demo: learning: 100%") and "4/4" in line and re.search(rf"{RATE}\]", line)
               and "(last: x=3, network=asia)" in line for line in lines), lines
    events = [json.loads(line) for line in channel.read_text().splitlines()]
    assert [e["n"] for e in events] == [0, 1, 2, 3, 4] and {e["total"] for e in events} == {4}


def test_quiet_shows_nothing_and_sets_no_channel(tmp_path):
    out = io.StringIO()
    with progress.RunProgress("demo", tmp_path / "p.jsonl", quiet=True, stream=out) as shown:
        shown.cell_start(_cells(), 2)
        assert shown.environ() == {}
    assert out.getvalue() == "" and not (tmp_path / "p.jsonl").exists()


def test_without_a_channel_run_trials_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.delenv(progress.CHANNEL, raising=False)
    assert parallel.run_trials(_square, [dict(x=2)], n_jobs=1, progress=False) == [4]
    assert not list(tmp_path.iterdir())
