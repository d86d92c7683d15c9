"""``causaleval new`` and the newcomer's path: in a folder of one's own outside the clone, a BIF
network, a plugin learner, a plugin metric and a new study; the new study and study 1 run with them
(the metric a column of study 1's Table 2), printing their progress; a grid of two adapted learners
over two networks runs from a params file; every printed path exists from the user's folder, where
runs, caches and the report stay; ``causaleval test`` passes on the new study; the report (a
notebook site) shows the user's run with its figure at a readable width in Chromium; the kit's hash
does not change."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import browser
from tqdm_lines import RATE

from causaleval import paths
from causaleval.app import scaffold

LEARNER = '''"""A newcomer's learner: hill climbing that may add no edge into its first column."""
from causaleval.learn.learners import learn, register_learner


@register_learner("my_hc", output="DAG", constant_columns=True)
def my_hc(data, *, ci_test, alpha, seed):
    graph = learn("hc", data, ci_test=ci_test, alpha=alpha, seed=seed)
    first = graph.nodes[0]
    return graph.__class__.from_edges([e for e in graph.edges() if not e.endswith(f"-> {first}")], nodes=graph.nodes,
                                      name="my_hc")
'''


#: study 1 (asia_mag_nced) at a small size, the path this test guards (not the paper's sizes): one
#: graph of 500 rows per learner, one sweep setting, two k values
STUDY1_SMALL = ["-p", "n_graphs", "1", "-p", "n_samples", "500", "-p", "sensitivity_graphs", "1",
                "-p", "sensitivity_sample_sizes", "[500]", "-p", "sensitivity_alphas", "[0.05]",
                "-p", "sensitivity_ci_tests", "[fisher_z]", "-p", "ks", "[0.0, 0.2]"]


def _kit_hash(env) -> str:
    code = "from causaleval import report; print(report.kit_hash())"
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          check=True).stdout.strip()


def _cli(args, cwd, env, timeout=600) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "causaleval", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)
    assert done.returncode == 0, f"causaleval {' '.join(args)} failed:\n{done.stderr[-3000:]}"
    return done


@pytest.fixture
def newcomer(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    shutil.copyfile(paths.DATA / "examples" / "sprinkler.bif", work / "net.bif")
    (work / "my_learner.py").write_text(LEARNER)
    ours = ("CAUSALEVAL_FIGURES", "CAUSALEVAL_STUDIES", "CAUSALEVAL_CALLER_CWD", "CAUSALEVAL_RUNS",
            "CAUSALEVAL_CACHE")
    env = {k: v for k, v in os.environ.items() if k not in ours}  # runs and caches go to work/runs
    return work, env, tmp_path


def _printed_paths(stderr: str) -> list[str]:
    """The paths the commands print: ``role: path`` of ``new``, ``running A -> B``, ``done: A; tables
    and figures in B``, ``report: A``."""
    found = []
    for line in stderr.splitlines():
        if m := re.fullmatch(r"(?:notebook|schema|module|paper_values|test|references|bibtex|report): (\S+)", line):
            found.append(m[1])
        elif m := re.fullmatch(r"running (\S+) -> (\S+)", line):
            found += [m[1], m[2]]
        elif m := re.fullmatch(r"study \w+ done: (\S+); tables and figures in (\S+)", line):
            found += [m[1], m[2]]
    return found


def test_a_newcomer_adapts_the_kit_without_touching_it(newcomer):
    work, env, tmp_path = newcomer
    before = _kit_hash(env)
    printed = [_cli(["new", "my_study", "--paper", "Newcomer et al. 2026"], work, env).stderr]
    folder = work / "studies"
    notebook = next(folder.glob("[0-9][0-9]_my_study.ipynb"))
    assert not list(paths.KIT.rglob("*my_study*"))  # nothing inside the kit
    assert "Newcomer et al. 2026" in (folder / "REFERENCES.md").read_text()
    assert "@misc{my_study" in (folder / "references.bib").read_text()
    cells = json.loads(notebook.read_text())["cells"]
    assert all(c.get("outputs") for c in cells if "nbval-check-output" in c["metadata"]["tags"])
    assert (folder / "figures" / notebook.stem / "claims.csv").is_file()  # written beside the study

    plugin = ["-p", "plugins", "[my_learner.py]"]
    mine = _cli(["run", "my_study", "-p", "networks", "[net.bif]", "-p", "learners", "[hc, my_hc]", *plugin,
                 "--tag", "mine"], work, env).stderr
    assert re.search(r"^my_study: cell 4/6 \(Table 1\) at \d\d:\d\d$", mine, re.M), mine
    assert re.search(rf"^my_study: learning on net\.bif: 100% 6/6 \[.*{RATE}\] \(last: learner=my_hc.*seed=2\)$",
                     mine, re.M), mine
    shutil.copyfile(paths.ROOT / "tests" / "plugins" / "edge_count_metric.py", work / "my_metric.py")
    study1 = _cli(["run", "asia_mag_nced", "-p", "network", "net.bif", "-p", "latent", "[cloudy]",
                   "-p", "algorithms", "[hc, pc, fci, my_hc]", "-p", "plugins", "[my_learner.py, my_metric.py]",
                   "-p", "metrics", "[edge count error]", *STUDY1_SMALL, "--tag", "mine", "--quiet"],
                  work, env).stderr
    assert "cell" not in study1 and "/trial" not in study1 and "trial/" not in study1  # --quiet: the result only
    (work / "grid.yaml").write_text("learners: [pc_pgmpy, grasp]\nnetworks: [net.bif, cancer]\n"
                                    "sample_sizes: [300]\nn_graphs: 2\n")
    grid = _cli(["run", "my_study", "--params-file", "grid.yaml", "--tag", "grid"], work, env).stderr
    printed += [mine, study1, grid, _cli(["report"], work, env).stderr]

    assert _kit_hash(env) == before
    runs = work / "runs"  # the user's folder, not the kit's
    table = pd.read_csv(runs / "my_study" / "mine" / "figures" / "table1.csv")
    assert "my_hc" in set(table["learner"])
    cells = pd.read_csv(runs / "my_study" / "grid" / "figures" / "table1.csv")
    assert set(zip(cells["network"], cells["learner"])) == {
        (net, learner) for net in ("net.bif", "cancer") for learner in ("pc_pgmpy", "grasp")}
    learned = " ".join(p.read_text() for p in (runs / "asia_mag_nced" / "mine" / "figures").glob("*.csv"))
    assert "my_hc" in learned
    table2 = pd.read_csv(runs / "asia_mag_nced" / "mine" / "figures" / "table2_all_metrics.csv")
    own = table2[table2["metric"] == "edge count error (lower is better)"].set_index("algorithm")["ours"]
    assert set(own.index) == {"hc", "pc", "fci", "my_hc"} and own.drop("fci").ge(0).all(), own  # the user's metric
    assert own["fci"].isna().all()  # its graph classes are DAG and CPDAG, not FCI's PAG
    index = (runs / "report" / "index.html").read_text()
    assert f'href="studies/{notebook.stem}.html"' in index and 'href="runs/my_study/mine.html"' in index
    run_page = runs / "report" / "runs" / "my_study" / "mine.html"
    assert "net.bif" in run_page.read_text() and "my_hc" in run_page.read_text()
    assert str(tmp_path) not in learned  # network names as given, never absolute paths
    assert (runs / "cache").is_dir() and not (paths.ROOT / "runs" / "my_study").exists()
    shown = [p for text in printed for p in _printed_paths(text)]
    assert len(shown) >= 14 and not [p for p in shown if p.startswith(str(tmp_path))]  # inside work: relative
    assert [p for p in shown if not (work / p).exists()] == []  # (the kit's notebooks: absolute paths)

    if shutil.which("chromium") or os.environ.get("CAUSALEVAL_REQUIRE_BROWSER"):  # the run's figure, readable
        shot = browser.screenshot(run_page, tmp_path / "run-page.png", tmp_path / "chromium")
        assert (tmp_path / "run-page.png").stat().st_size > 10_000, shot.stderr[-2000:]
        assert max(browser.image_widths(run_page, tmp_path / "chromium")) >= 500  # thumbnails were 12em (~190 px)

    claims = folder / "figures" / notebook.stem / "claims.csv"
    stored = claims.stat().st_mtime_ns
    tested = subprocess.run([sys.executable, "-m", "causaleval", "test"], cwd=work, env=env, capture_output=True,
                            text=True, timeout=600)
    assert tested.returncode == 0, tested.stdout[-3000:] + tested.stderr[-2000:]
    assert re.search(r"\b[0-9]+_my_study\.ipynb \.+", tested.stdout) and "test_my_study.py .... " in tested.stdout
    assert claims.stat().st_mtime_ns == stored  # nbval wrote its tables elsewhere


def test_a_second_run_into_a_running_tag_is_refused(newcomer):
    work, env, tmp_path = newcomer
    lock = work / "runs" / ".locks" / "asia_mag_nced.busy.lock"
    lock.parent.mkdir(parents=True)
    holder = subprocess.Popen([sys.executable, "-c", (
        "import fcntl, sys, time; f = open(sys.argv[1], 'a+'); fcntl.flock(f, fcntl.LOCK_EX); "
        "f.write('pid 1234'); f.flush(); print('locked', flush=True); time.sleep(3600)"),
        str(lock)],  # held until killed below
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        done = subprocess.run([sys.executable, "-m", "causaleval", "run", "asia_mag_nced", "-p", "n_graphs", "2",
                               "--tag", "busy"], cwd=work, env=env, capture_output=True, text=True, timeout=120)
    finally:
        holder.kill()
        holder.wait()
    assert done.returncode != 0 and "a run with tag 'busy' is already running (pid 1234)" in done.stderr
    assert not (work / "runs" / "asia_mag_nced" / "busy").exists()


def test_run_takes_a_params_file_and_minus_p_wins(newcomer, monkeypatch):
    from causaleval.app import cli

    work, env, tmp_path = newcomer
    file = work / "mine.yaml"
    file.write_text("n_graphs: 3\nlatent: [smoke]\n")
    seen = {}
    monkeypatch.setattr(cli, "run_study", lambda name, overrides, *a, **k: seen.update(overrides))
    assert cli.main(["run", "asia_mag_nced", "--params-file", str(file), "-p", "n_graphs", "2"]) == 0
    assert seen == {"n_graphs": 2, "latent": ["smoke"]}
    file.write_text("- not a mapping\n")
    assert cli.main(["run", "asia_mag_nced", "--params-file", str(file)]) == 2


def test_a_misspelt_name_in_a_params_file_names_the_file_and_the_closest_name(newcomer, monkeypatch, capsys):
    from causaleval.app import cli

    work, env, tmp_path = newcomer
    monkeypatch.chdir(work)
    (work / "mine.yaml").write_text("n_graph: 3\n")
    monkeypatch.setattr(cli, "run_study", lambda *a, **k: pytest.fail("a refused parameter must not run"))
    assert cli.main(["run", "asia_mag_nced", "--params-file", "mine.yaml"]) == 2
    err = capsys.readouterr().err
    assert "--params-file mine.yaml: study asia_mag_nced: unknown parameter 'n_graph'; did you mean 'n_graphs'?" in err
    assert cli.main(["run", "asia_mag_nced", "-p", "n_graph", "3"]) == 2
    assert "--params-file" not in capsys.readouterr().err


@pytest.mark.parametrize("name, paper, message", [
    ("Demo", "A 2026", "lowercase"),
    ("1demo", "A 2026", "lowercase"),
    ("demo", "  ", "--paper"),
    ("asia_mag_nced", "A 2026", "exists already"),
])
def test_bad_new_study_requests_are_refused(tmp_path, name, paper, message):
    with pytest.raises(ValueError, match=message):
        scaffold.new_study(name, paper, folder=tmp_path / "studies")
    assert not (tmp_path / "studies").exists()


def test_a_study_is_never_written_inside_the_kit():
    with pytest.raises(ValueError, match="outside the kit's package"):
        scaffold.new_study("demo", "A 2026", folder=paths.KIT / "studies")


def test_existing_files_are_never_overwritten(tmp_path):
    folder = tmp_path / "studies"
    folder.mkdir()
    (folder / "test_demo.py").write_text("# mine\n")
    with pytest.raises(ValueError, match="refusing to overwrite"):
        scaffold.new_study("demo", "A 2026", folder=folder)
    assert (folder / "test_demo.py").read_text() == "# mine\n" and not list(folder.glob("*.ipynb"))


def test_percent_cells_keep_their_kind_and_tags():
    nb = scaffold.notebook_from_percent('# %% [markdown]\n# # Title\n\n# %% tags=["parameters"]\nx = 1\n')
    assert [(c.cell_type, c.source, c.metadata["tags"]) for c in nb.cells] == [
        ("markdown", "# Title", []), ("code", "x = 1", ["parameters"])]


def test_a_user_study_may_not_take_a_kit_studys_name(tmp_path, monkeypatch):
    from causaleval.studies import studies

    (tmp_path / "01_asia_mag_nced.ipynb").write_text("{}")
    monkeypatch.setenv("CAUSALEVAL_STUDIES", str(tmp_path))
    with pytest.raises(ValueError, match="defined twice"):
        studies()
    assert Path(paths.NOTEBOOKS).is_dir()
