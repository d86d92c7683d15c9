import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from causaleval import report  # noqa: E402
from causaleval.app import cli  # noqa: E402
from causaleval.studies import studies  # noqa: E402
from causaleval.parallel import run_trials  # noqa: E402


def test_save_table_and_figure_with_provenance(tmp_path):
    table = pd.DataFrame({"algorithm": ["pc", "hc"], "value": [0.123456, 0.5]}).set_index("algorithm")
    written = report.save_table(table, "t", study="s", params={"seed": 1}, out=tmp_path)
    assert sorted(p.name for p in written) == ["t.csv", "t.md", "t.provenance.json", "t.tex"]
    assert "0.123" in (tmp_path / "t.md").read_text() and "0.123456" in (tmp_path / "t.csv").read_text()
    stamp = json.loads((tmp_path / "t.provenance.json").read_text())
    assert stamp["parameters"] == {"seed": 1} and stamp["versions"]["numpy"]
    fig, ax = plt.subplots()
    ax.plot([0, 1])
    report.save_figure(fig, "f", study="s", params={}, out=tmp_path)
    first = (tmp_path / "f.pdf").read_bytes()
    report.save_figure(fig, "f", study="s", params={}, out=tmp_path)
    assert (tmp_path / "f.pdf").read_bytes() == first  # no timestamps: reruns are identical
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temp files left


def test_atomic_write_keeps_the_old_file_on_failure(tmp_path):
    report.save_table(pd.DataFrame({"v": [1]}), "t", study="s", params={}, out=tmp_path)
    before = (tmp_path / "t.csv").read_text()

    class Broken(pd.DataFrame):
        def to_csv(self, *a, **k):
            raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        report.save_table(Broken({"v": [2]}), "t", study="s", params={}, out=tmp_path)
    assert (tmp_path / "t.csv").read_text() == before


def test_paper_values_and_beside():
    paper = report.paper_values("rehak_table1")
    assert set(paper.columns) == {"network", "algorithm", "k", "value"}
    ours = pd.DataFrame({"network": ["asia"], "algorithm": ["pc"], "k": [0.2], "value": [0.2]})
    joined = report.beside(ours, paper, on=["network", "algorithm", "k"])
    assert joined.loc[0, "paper"] == 0.14 and joined.loc[0, "diff"] == pytest.approx(0.06)
    with pytest.raises(ValueError, match="no paper values 'nope'"):
        report.paper_values("nope")


def _square(x):
    return x * x


def test_run_trials_keeps_order():
    assert run_trials(_square, [{"x": i} for i in range(6)], n_jobs=2, progress=False) == [0, 1, 4, 9, 16, 25]


def test_run_trials_on_a_dask_cluster():
    from dask.distributed import LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        out = run_trials(_square, [{"x": i} for i in range(4)], scheduler=cluster.scheduler_address,
                         progress=False)
    assert out == [0, 1, 4, 9]


def test_cli_lists_studies_and_refuses_unknown_parameters(capsys):
    assert "asia_mag_nced" in studies()
    nb = cli.study_notebook("asia_mag_nced")
    assert {"network", "latent", "n_graphs", "ks", "seed"} <= set(cli.declared_parameters(nb))
    assert cli.parse_overrides(nb, [("n_graphs", "3"), ("latent", "[smoke, lung]")]) == {
        "n_graphs": 3, "latent": ["smoke", "lung"]}
    with pytest.raises(ValueError, match="unknown parameter.*n_grahps"):
        cli.parse_overrides(nb, [("n_grahps", "3")])
    assert cli.main(["run", "no_such_study"]) == 2
    assert "unknown study 'no_such_study'" in capsys.readouterr().err


def test_cached_frame_computes_once_and_reads_floats_back_bit_for_bit(tmp_path, monkeypatch):
    import numpy as np

    monkeypatch.setenv("CAUSALEVAL_CACHE", str(tmp_path))
    values = np.random.default_rng(0).random(200) / 3  # many floats the default parser rounds off
    calls = []

    def compute():
        calls.append(1)
        return pd.DataFrame({"trial": range(200), "tvd": values})

    first = report.cached_frame("s", "t", {"seed": 0}, compute)
    again = report.cached_frame("s", "t", {"seed": 0}, compute)
    assert len(calls) == 1
    assert (again["tvd"].to_numpy() == first["tvd"].to_numpy()).all()


def test_cached_frame_is_not_served_to_changed_code(tmp_path, monkeypatch):
    from causaleval import plugins

    monkeypatch.setenv("CAUSALEVAL_CACHE", str(tmp_path / "cache"))
    calls = []

    def compute():
        calls.append(1)
        return pd.DataFrame({"x": [len(calls)]})

    report.cached_frame("s", "t", {"seed": 0}, compute)
    monkeypatch.setattr(report, "kit_hash", lambda: "edited kit")
    report.cached_frame("s", "t", {"seed": 0}, compute)
    assert len(calls) == 2
    plugin = tmp_path / "cache_plugin.py"
    plugin.write_text("A = 1\n")
    monkeypatch.setattr(plugins, "_LOADED", {})
    plugins.load([str(plugin)])
    report.cached_frame("s", "t", {"seed": 0}, compute)
    monkeypatch.setattr(plugins, "_LOADED", {})  # a new process, where the plugin was edited
    plugin.write_text("A = 2\n")
    monkeypatch.delitem(sys.modules, next(m for m in sys.modules if m.startswith("causaleval_plugin_cache_plugin")))
    plugins.load([str(plugin)])
    assert report.cached_frame("s", "t", {"seed": 0}, compute)["x"].item() == 4
