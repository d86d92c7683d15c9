"""Typed study parameters, the CLI's runs (one-paragraph errors, tags that never mix),
atomic writes, provenance that identifies the code, and check-figures.

Only two tests start a kernel, on a two-cell notebook in a temporary folder."""

import inspect
import io
import json
import os
import re
import subprocess
import sys

import nbformat
import pandas as pd
import pytest
import yaml
from PIL import Image

from causaleval import params, paths, report
from causaleval.app import cli
from causaleval.studies import studies

ASIA = paths.NOTEBOOKS / "01_asia_mag_nced.ipynb"
SOFTWARE = paths.NOTEBOOKS / "02_software_tvd.ipynb"
SURVEY = paths.NOTEBOOKS / "04_survey_metric_tables.ipynb"


# ------------------------------------------------------------------- typed parameters
@pytest.mark.parametrize("notebook, name, text, found, expected", [
    # type
    (ASIA, "n_graphs", "abc", "'abc' (str)", "expected int >= 1"),
    (ASIA, "n_graphs", "2.5", "2.5 (float)", "expected int >= 1"),
    (ASIA, "n_graphs", "true", "True (bool)", "expected int >= 1"),
    (ASIA, "ci_test", "5", "5 (int)", "expected str among"),
    # range
    (ASIA, "n_graphs", "0", "0 (int)", "expected int >= 1"),
    (ASIA, "ks[1]", "[0.1, 1.5]", "1.5 (float)", "expected float in [0, 1]"),
    (ASIA, "alpha", ".nan", "nan (float)", "expected finite float in (0, 1)"),
    (ASIA, "alpha", "0", "0 (int)", "expected float in (0, 1)"),
    (ASIA, "n_jobs", "0", "0 (int)", "expected int >= -1 other than 0"),
    (SURVEY, "acic_sizes[1]", "[null, 0]", "0 (int)", "expected int >= 1"),
    (SURVEY, "acic_sizes", "[]", "[] (list)", "of at least 1 item"),
    # choice
    (ASIA, "ci_test", "nosuch", "'nosuch' (str)", "among 'fisher_z', 'chi_square', 'g_test'"),
    (ASIA, "algorithms[1]", "[pc, nope]", "'nope' (str)", "among 'hc', 'pc'"),
    # a scalar where a list is expected, also nested (dict of lists)
    (ASIA, "latent", "smoke", "'smoke' (str)", "expected list[str]; a single value is written as a list"),
    (SOFTWARE, "outcomes['sqlite']", "{sqlite: runtime_ms}", "'runtime_ms' (str)", "expected list[str]"),
    (SOFTWARE, "outcomes['sqlite'][1]", "{sqlite: [runtime_ms, 3]}", "3 (int)", "expected str"),
    (SOFTWARE, "outcomes", "[runtime_ms]", "['runtime_ms'] (list)", "expected dict[str, list[str]]"),
    (SOFTWARE, "covariates key", "{1: num_joins}", "1 (int)", "expected str"),
    # unknown name, not YAML
    (ASIA, "'n_grahps'", "3", "unknown parameter 'n_grahps'; did you mean 'n_graphs'?", "declared: network, latent"),
    (ASIA, "latent", "[smoke", "'[smoke' is not YAML", "while parsing"),
])
def test_bad_parameters_are_refused_naming_study_parameter_value_and_expectation(
        notebook, name, text, found, expected):
    pname = name.split("[")[0].split()[0].strip("'")
    with pytest.raises(params.ParameterError) as err:
        cli.parse_overrides(notebook, [(pname, text)])
    message = str(err.value)
    study = params.study_name(notebook.stem)
    assert message.startswith(f"study {study}: ")
    assert name in message and found in message and expected in message


def test_good_values_pass_and_a_parameter_given_twice_is_refused():
    assert cli.parse_overrides(ASIA, [("ks", "[0, 1]"), ("latent", "[smoke, lung]"), ("output_dir", "null")]) == {
        "ks": [0, 1], "latent": ["smoke", "lung"], "output_dir": None}  # ints where floats are declared
    assert cli.parse_overrides(SURVEY, [("acic_sizes", "[null, 100]")]) == {"acic_sizes": [None, 100]}
    params.check("02_software_tvd", {"outcomes": {"jdk": ["num_bytecode_ops"]}})  # the NN_ name works too
    with pytest.raises(params.ParameterError, match="parameter n_graphs is given twice"):
        cli.parse_overrides(ASIA, [("n_graphs", "2"), ("n_graphs", "3")])


def test_every_notebook_has_a_schema_naming_its_parameters_and_accepting_its_defaults():
    for notebook in studies().values():
        defaults = params.defaults(notebook)
        assert set(params.schema(notebook.stem)) == set(defaults), notebook.name
        params.check(notebook.stem, defaults)


def test_papermill_reads_every_parameter_of_every_notebook():
    """papermill parses the parameters cell line by line; a line it cannot parse (e.g. an ``=`` in its
    comment) drops that parameter from ``causaleval run --help``'s list and makes papermill call an
    injected value of it unknown."""
    for notebook in studies().values():
        assert set(cli.declared_parameters(notebook)) == set(params.defaults(notebook)), notebook.name


def test_every_committed_parameter_file_fits_its_study():
    """``notebooks/params/NN.*.yaml`` (the paper-scale and check runs the README names) pass the
    schema of study NN, so a run of one is not refused at its start."""
    notebooks = {path.stem[:2]: path for path in studies().values()}
    files = sorted((paths.NOTEBOOKS / "params").glob("*.yaml"))
    assert files
    for path in files:
        params.check(notebooks[path.name[:2]].stem, yaml.load(path.read_text(), Loader=cli._UniqueKeys))


def test_a_committed_run_was_made_with_its_parameter_file():
    """A parameter file whose ``output_dir`` is a folder of the kit's ``figures/`` (the paper-scale
    run) holds the values its committed outputs' provenance stamps record, so rerunning the README's
    command remakes those outputs (and an edit that drops or changes a value is caught)."""
    notebooks = {path.stem[:2]: path for path in studies().values()}
    checked = 0
    for path in sorted((paths.NOTEBOOKS / "params").glob("*.yaml")):
        values = yaml.load(path.read_text(), Loader=cli._UniqueKeys)
        out = values.get("output_dir")
        if not (out and out.startswith("../figures/")):
            continue
        run = params.defaults(notebooks[path.name[:2]]) | values  # what the file runs: the defaults it does not set
        stamps = sorted((paths.NOTEBOOKS / out).glob("*.provenance.json"))
        assert stamps, f"{path.name}: no committed outputs in {out}"
        for stamp in stamps:
            recorded = json.loads(stamp.read_text())["parameters"]
            differ = {k: (run.get(k), v) for k, v in recorded.items() if run.get(k) != v}
            assert not differ, f"{path.name} against {stamp.name}: (file, stamp) {differ}"
        checked += 1
    assert checked, "no parameter file writes into figures/"


@pytest.mark.parametrize("entry, problem", [
    ("{type: 'list[int'}", "unknown type"),
    ("{type: 'dict[str]'}", "type 'dict\\[str\\]': list takes one type argument, dict two"),
    ("{type: int, mn: 1}", r"unknown key\(s\) \['mn'\]"),
    ("int", "expected a mapping with a 'type'"),
])
def test_a_bad_schema_is_refused_naming_file_and_parameter(tmp_path, monkeypatch, entry, problem):
    monkeypatch.setattr(paths, "NOTEBOOKS", tmp_path)
    (tmp_path / "01_s.ipynb").write_text("{}")
    (tmp_path / "01_s.params.yaml").write_text(f"n: {entry}\n")
    with pytest.raises(ValueError, match=rf"01_s.params.yaml: parameter n: {problem}"):
        params.check("s", {"n": 1})


# ------------------------------------------------------------------- where outputs go
def test_output_dir_sends_non_default_runs_away_from_figures(tmp_path, monkeypatch):
    monkeypatch.setenv("CAUSALEVAL_FIGURES", str(tmp_path / "figs"))
    monkeypatch.setattr(paths, "RUNS", tmp_path / "runs")
    study = "01_asia_mag_nced"
    defaults = params.defaults(ASIA)
    at_defaults = {"n_graphs": defaults["n_graphs"], "latent": defaults["latent"]}
    assert report.output_dir(study, None, at_defaults) == tmp_path / "figs" / study
    changed = {**at_defaults, "n_graphs": defaults["n_graphs"] + 1}
    assert report.output_dir(study, None, changed) == (
        tmp_path / "runs" / "asia_mag_nced" / f"papermill-{report.parameter_hash(changed)}" / "figures")
    assert report.output_dir(study, None, {"seed": True}) != tmp_path / "figs" / study  # True is not 0
    assert report.output_dir(study, str(tmp_path / "mine"), changed) == tmp_path / "mine"


# ------------------------------------------------------------------- runs via the CLI
@pytest.fixture
def tiny(tmp_path, monkeypatch):
    """A two-cell study ``tiny`` whose second cell fails when n < 0 and saves a table."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    first = nbformat.v4.new_code_cell("n = 1  # a count\noutput_dir = None  # where outputs go")
    first.metadata["tags"] = ["parameters"]
    nb.cells = [first, nbformat.v4.new_code_cell(
        "import pandas as pd\nfrom causaleval import report\n"
        "if n < 0:\n    raise ValueError(f'n={n} is negative,\\nsee above')\n"
        "report.save_table(pd.DataFrame({'n': [n]}), 't', study='01_tiny', params=dict(n=n), out=output_dir)")]
    (tmp_path / "notebooks").mkdir()
    nbformat.write(nb, tmp_path / "notebooks" / "01_tiny.ipynb")
    (tmp_path / "notebooks" / "01_tiny.params.yaml").write_text(
        "n: {type: int, max: 5}\noutput_dir: {type: 'str | None'}\n")
    monkeypatch.setattr(paths, "NOTEBOOKS", tmp_path / "notebooks")
    monkeypatch.setattr(paths, "RUNS", tmp_path / "runs")
    monkeypatch.setenv("CAUSALEVAL_FIGURES", str(tmp_path / "figs"))
    return tmp_path


def test_a_failing_run_prints_one_paragraph_and_leaves_no_run_folder(tiny, capsys):
    assert cli.main(["run", "tiny", "-p", "n", "-1", "--tag", "neg"]) == 1
    err = capsys.readouterr().err
    failed = tiny / "runs" / "tiny" / "neg.failed" / "01_tiny.ipynb"
    lines = [line for line in err.splitlines() if line.startswith("causaleval:")]
    assert len(lines) == 1 and "Traceback" not in err and "-----" not in err
    assert "study tiny failed in cell" in lines[0]
    assert "ValueError: n=-1 is negative, see above" in lines[0] and str(failed) in lines[0]
    assert f"{tiny / 'runs' / 'tiny' / 'neg'} is unchanged" in lines[0]  # its tables went to its own folder
    assert failed.exists() and "n=-1 is negative" in failed.read_text()
    assert sorted(p.name for p in (tiny / "runs" / "tiny").iterdir()) == ["neg.failed"]  # no neg/, no temporaries
    assert not (tiny / "figs").exists()


def test_a_second_run_into_a_tag_refuses_and_force_replaces_it_cleanly(tiny, capsys):
    earlier = tiny / "runs" / "tiny" / "default"
    earlier.mkdir(parents=True)
    (earlier / "stale.txt").write_text("from an earlier run")
    (tiny / "figs" / "01_tiny").mkdir(parents=True)
    (tiny / "figs" / "01_tiny" / "stale.csv").write_text("x\n")
    assert cli.main(["run", "tiny"]) == 2
    assert "runs/tiny/default holds an earlier run; --force replaces it" in capsys.readouterr().err
    assert cli.main(["run", "tiny", "--force"]) == 0
    assert sorted(p.name for p in earlier.iterdir()) == ["01_tiny.html", "01_tiny.ipynb", "figures", "parameters.yaml"]
    made = ["t.csv", "t.md", "t.provenance.json", "t.tex"]
    assert sorted(p.name for p in (earlier / "figures").iterdir()) == made  # a run of one's own keeps its tables
    assert sorted(p.name for p in (tiny / "figs" / "01_tiny").iterdir()) == ["stale.csv"]  # figures/ only by reproduce
    assert sorted(p.name for p in (tiny / "runs" / "tiny").iterdir()) == ["default"]
    cli.run_study("tiny", {}, force=True, publish=True, quiet=True)  # as `reproduce` runs it
    assert sorted(p.name for p in (tiny / "figs" / "01_tiny").iterdir()) == made
    meta = json.loads((earlier / "01_tiny.ipynb").read_text())["metadata"]["papermill"]
    assert meta["output_path"] == "01_tiny.ipynb" and str(tiny) not in json.dumps(meta)


def test_an_empty_output_dir_keeps_the_run_in_its_own_folder(tiny, capsys):
    """``-p output_dir null`` is no shared folder: the run's tables land in its tag's folder."""
    assert cli.main(["run", "tiny", "-p", "n", "2", "-p", "output_dir", "null", "--tag", "nulled"]) == 0
    assert "runs/tiny/nulled/figures" in capsys.readouterr().err
    assert (tiny / "runs" / "tiny" / "nulled" / "figures" / "t.csv").exists()
    assert sorted(p.name for p in (tiny / "runs" / "tiny").iterdir()) == ["nulled"]


def _tiny_check_params(p):
    if p["n"] == 4:
        raise ValueError("parameter n=4: four is unlucky")


@pytest.mark.parametrize("argv, problem", [
    (["run", "tiny", "--tag", "../x"], "--tag '../x': expected letters"),
    (["run", "tiny", "-p", "n", "4"], "study tiny: parameter n=4: four is unlucky"),  # the study's own check
    (["run", "tiny", "--inplace", "-p", "n", "2"], "--inplace executes the committed notebook at its defaults"),
    (["run", "tiny", "-p", "n", "6"], "study tiny: parameter n = 6 (int): expected int <= 5"),
])
def test_refused_runs_start_no_kernel_and_write_nothing(tiny, capsys, monkeypatch, argv, problem):
    module = type(sys)("causaleval.studies.tiny")
    module.check_params = _tiny_check_params
    monkeypatch.setitem(sys.modules, "causaleval.studies.tiny", module)
    assert cli.main(argv) == 2
    assert problem in capsys.readouterr().err
    assert not (tiny / "runs").exists() and not (tiny / "figs").exists()


# ------------------------------------------------------------------- atomic writes
def test_atomic_write_removes_its_temporary_on_failure_and_stale_ones_on_the_next_write(tmp_path):
    target = tmp_path / "t.csv"

    def broken(tmp):
        open(tmp, "w").write("half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        report.atomic_write(target, broken)
    assert list(tmp_path.iterdir()) == []
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    stale = [f".t.csv.{gone.pid}.abcd_123.csv", ".t.csv.abcd_123.csv"]  # a dead writer's, an old unnamed one
    live = f".t.csv.{os.getppid()}.abcd_123.csv"  # a writer still running
    for name in [*stale, live, ".t.csv.bak", "t.csv.bak"]:
        (tmp_path / name).write_text("x")
    report.atomic_write(target, lambda tmp: open(tmp, "w").write("whole"))
    assert target.read_text() == "whole"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([live, ".t.csv.bak", "t.csv", "t.csv.bak"])


# ------------------------------------------------------------------- provenance
def _git(repo, *args):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=repo, check=True,
                   capture_output=True)


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """A git repository with a kit (lib/causaleval/*.py) and a notebook, all committed."""
    kit = tmp_path / "lib" / "causaleval"
    (kit / "sub").mkdir(parents=True)
    (kit / "a.py").write_text("A = 1\n")
    (kit / "sub" / "b.py").write_text("B = 2\n")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("x = 1"), nbformat.v4.new_markdown_cell("# text")]
    (tmp_path / "notebooks").mkdir()
    nbformat.write(nb, tmp_path / "notebooks" / "01_s.ipynb")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-q", "-m", "kit")
    for name, value in [("ROOT", tmp_path), ("KIT", kit), ("NOTEBOOKS", tmp_path / "notebooks")]:
        monkeypatch.setattr(paths, name, value)
    return tmp_path


def test_provenance_names_the_commit_the_code_started_from_and_what_changed(repo):
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True).stdout.strip()
    first = report.code_state("01_s")
    assert first["commit"] == head and first["dirty"] == [] and first["notebook"] == "notebooks/01_s.ipynb"
    assert report.provenance("01_s", {"n": 1})["code"] == first

    notebook = repo / "notebooks" / "01_s.ipynb"
    nb = nbformat.read(notebook, as_version=4)
    nb.cells[0].outputs = [nbformat.v4.new_output("stream", text="1\n")]
    nb.cells[0].execution_count = 7
    injected = nbformat.v4.new_code_cell("x = 2")
    injected.metadata["tags"] = ["injected-parameters"]
    nb.cells.insert(1, injected)
    nbformat.write(nb, notebook)
    assert report.code_state("01_s") == first  # outputs, counts and injected parameters do not count

    nb.cells[0].source = "x = 3"
    nbformat.write(nb, notebook)
    changed_notebook = report.code_state("01_s")
    assert changed_notebook["notebook_sha256"] != first["notebook_sha256"]
    assert changed_notebook["commit"] == head and changed_notebook["dirty"] == ["notebooks/01_s.ipynb"]
    assert not report.code_matches(first, "01_s") and report.code_matches(changed_notebook, "01_s")
    _git(repo, "checkout", "--", "notebooks")

    (repo / "lib" / "causaleval" / "__pycache__").mkdir()
    (repo / "lib" / "causaleval" / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"\0")
    assert report.kit_hash() == first["kit_sha256"]  # caches do not count (and are git-ignored in the kit)
    (repo / "lib" / "causaleval" / "sub" / "b.py").write_text("B = 3\n")
    assert report.kit_hash() == first["kit_sha256"]  # a running process keeps the hash of the code it imported
    assert not report.code_matches(first, "01_s")  # ... but a checkout is compared as it is now
    report._kit_start.cache_clear()  # a new process
    changed_kit = report.code_state("01_s")
    assert changed_kit["kit_sha256"] != first["kit_sha256"] and changed_kit["commit"] == head
    assert "lib/causaleval/sub/b.py" in changed_kit["dirty"]  # (the test repository ignores no caches)
    assert changed_kit["notebook_sha256"] == first["notebook_sha256"]


def test_a_commit_made_while_a_run_goes_on_is_not_named_as_its_code(repo):
    """The stamp names the commit the process started from and what differed then: a later commit
    (of the kit or not) or edit of the kit does not change it, but a new process sees it."""
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True).stdout.strip()
    started = report.code_state("01_s")
    (repo / "lib" / "causaleval" / "a.py").write_text("A = 5\n")
    (repo / "notes.txt").write_text("later\n")
    assert report.code_state("01_s") == started  # an edit of the kit after the import: not the running code
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "during the run")
    assert report.code_state("01_s") == started and started["commit"] == head and started["dirty"] == []
    report._kit_start.cache_clear()  # a new process
    later = report.code_state("01_s")
    assert later["commit"] != head and later["kit_sha256"] != started["kit_sha256"] and later["dirty"] == []


def test_outputs_made_before_their_commit_name_it_in_a_fresh_clone(repo, tmp_path_factory, monkeypatch):
    """The usual order: edit the code, run, commit code and outputs together. The stamp names the
    parent commit and the changed file; a fresh clone of the new commit holds the stamped code."""
    (repo / "lib" / "causaleval" / "a.py").write_text("A = 2\n")
    report._kit_start.cache_clear()
    stamp = report.provenance("01_s", {"n": 1})
    (repo / "figures").mkdir()
    (repo / "figures" / "t.provenance.json").write_text(json.dumps(stamp))
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "code and outputs")
    clone = tmp_path_factory.mktemp("clone") / "kit"
    subprocess.run(["git", "clone", "-q", str(repo), str(clone)], check=True, capture_output=True)
    new_head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=clone, capture_output=True, text=True).stdout.strip()
    for name, value in [("ROOT", clone), ("KIT", clone / "lib" / "causaleval"), ("NOTEBOOKS", clone / "notebooks")]:
        monkeypatch.setattr(paths, name, value)
    recorded = json.loads((clone / "figures" / "t.provenance.json").read_text())
    assert report.code_matches(recorded["code"], "01_s") and report.head() == new_head
    from causaleval.app import book

    assert book._commit(recorded["code"], "01_s").startswith(f"commit {new_head} ")
    (clone / "lib" / "causaleval" / "a.py").write_text("A = 3\n")
    assert book._commit(recorded["code"], "01_s").startswith("started from commit ")


def _png(color, compress):
    data = io.BytesIO()
    Image.new("RGB", (4, 4), color).save(data, format="png", compress_level=compress)
    return data.getvalue()


def test_check_figures_lists_outputs_that_differ_from_head(repo, monkeypatch, capsys):
    figs = repo / "figures" / "s"
    figs.mkdir(parents=True)
    pd.DataFrame({"v": [0.1]}).to_csv(figs / "t.csv")
    (figs / "f.png").write_bytes(_png("red", 9))
    (figs / "g.png").write_bytes(_png("red", 9))
    (figs / "gone.md").write_text("| v |\n")
    (figs / "t.provenance.json").write_text("{}\n")
    _git(repo, "add", "figures")
    _git(repo, "commit", "-q", "-m", "figures")
    monkeypatch.setenv("CAUSALEVAL_FIGURES", str(repo / "figures"))
    assert report.compare_figures() == ([], 4)

    pd.DataFrame({"v": [0.1 + 1e-6]}).to_csv(figs / "t.csv")  # beyond the relative 1e-9: changed
    (figs / "f.png").write_bytes(_png("red", 0))  # other bytes, the same pixels
    (figs / "g.png").write_bytes(_png("blue", 9))
    (figs / "gone.md").unlink()
    (figs / "new.csv").write_text("v\n1\n")
    (figs / "t.provenance.json").write_text('{"code": {}}\n')
    (figs / ".t.csv.123.abcdefgh.csv").write_text("a temporary")
    (repo / ".gitignore").write_text("figures/*/measured_*\n")
    (figs / "measured_runtime.csv").write_text("seconds\n0.31\n")  # varies by machine: not committed, not new
    assert (figs / "f.png").read_bytes() != _png("red", 9)
    rows, compared = report.compare_figures()
    assert compared == 4 and sorted(rows) == [
        ("changed", "figures/s/g.png"), ("changed", "figures/s/t.csv"),
        ("missing", "figures/s/gone.md"), ("new", "figures/s/new.csv")]
    assert cli.main(["check-figures"]) == 0
    out = capsys.readouterr().out
    assert "changed     figures/s/t.csv" in out and "2 changed" in out and "1 missing" in out and "; 1 new" in out
    assert cli.main(["check-figures", "--strict"]) == 1
    capsys.readouterr()

    _git(repo, "checkout", "--", "figures/s/g.png", "figures/s/gone.md")  # back to HEAD but the table's last digits
    (figs / "new.csv").unlink()
    (figs / "t.csv").write_text(",v\n0,0.10000000000000002\n")
    assert report.compare_figures() == ([("last digits", "figures/s/t.csv")], 4)
    assert cli.main(["check-figures", "--strict"]) == 0
    out = capsys.readouterr().out
    assert "has 0 changed" in out and "0 missing and 1 differing only in the last digits" in out


@pytest.mark.parametrize("old, new, status", [
    ("a,v\nx,0.08897738466319782\n", "a,v\nx,0.08897738466319781\n", "last digits"),
    ("a,v\nx,1e-17\n", "a,v\nx,0.0\n", "last digits"),  # near zero: within 1e-12
    ("a,n\nx,4943\n", "a,n\nx,4934\n", "changed"),  # a count
    ("a,p\nx,0.214\n", "a,p\nx,0.149\n", "changed"),  # a p-value that moved
    ("claim,verdict\nc,holds\n", "claim,verdict\nc,does not hold\n", "changed"),  # a verdict
    ("a,v\nx,0.1\ny,0.2\n", "a,v\ny,0.2\nx,0.1\n", "changed"),  # an order
    ("a,v\nx,0.1\n", "a,v\nx,0.1\nz,0.3\n", "changed"),  # a row more
    ("a,v\nx,nan\n", "a,v\nx,0.1\n", "changed"),
])
def test_check_figures_tells_last_digits_from_changed_decisions(old, new, status):
    assert report.compare_output(old.encode(), new.encode(), ".csv") == status
    assert report.compare_output(old.encode(), new.encode(), ".md") == "changed"  # printed precision: any change
    assert report.compare_output(old.encode(), old.encode(), ".csv") is None


def test_rows_saved_compressed_read_back_the_same_and_compare_by_their_text(tmp_path):
    """``save_rows`` writes a ``.csv.gz`` whose bytes depend on the rows alone (gzip records no time and
    no temporary file name), ``read_table`` reads it back bit for bit (empty cells of its ``text`` columns
    as ""), and check-figures compares the CSV text inside, not the compressor's bytes."""
    import gzip

    table = pd.DataFrame({"pair": ["a", "b"], "wd": [0.1 + 0.2, float("nan")], "note": ["", "x"]})
    written = report.save_rows(table, "rows", study="s", params={"seed": 0}, out=tmp_path / "one")
    again = report.save_rows(table, "rows", study="s", params={"seed": 0}, out=tmp_path / "two")
    first = written[0].read_bytes()
    assert written[0].name == "rows.csv.gz" and first == again[0].read_bytes()
    assert b"rows" not in first[:40]  # no file name in the gzip header
    back = report.read_table(tmp_path / "one", "rows")
    assert back["wd"].iloc[0] == 0.1 + 0.2 and back["wd"].isna().iloc[1] and list(back.columns) == list(table.columns)
    assert back["note"].isna().iloc[0]  # an empty cell is missing, but in a column named as text
    assert report.read_table(tmp_path / "one", "rows", text=["note", "absent"])["note"].tolist() == ["", "x"]
    assert report.read_stamp(tmp_path / "one", "rows")["parameters"] == {"seed": 0}
    other_bytes = gzip.compress(gzip.decompress(first), compresslevel=1, mtime=5)
    assert other_bytes != first and report.compare_output(first, other_bytes, ".gz") is None
    moved = gzip.compress(gzip.decompress(first).replace(b"0.30000000000000004", b"0.30000000000000003"))
    changed = gzip.compress(gzip.decompress(first).replace(b"b,", b"c,"))
    assert report.compare_output(first, moved, ".gz") == "last digits"
    assert report.compare_output(first, changed, ".gz") == "changed"
    assert report.compare_output(first, first[:20], ".gz") == "changed"  # cut short
    report.save_rows(pd.DataFrame(), "none", study="s", params={}, out=tmp_path)
    assert report.read_table(tmp_path, "none").empty


def test_an_unloaded_plugin_learner_is_refused_with_how_to_load_it(capsys):
    assert cli.main(["run", "asia_mag_nced", "-p", "algorithms", "[my_pc]"]) == 2
    err = capsys.readouterr().err
    assert "algorithms[0] = 'my_pc'" in err and "-p plugins '[path/to/file.py]'" in err


def test_list_prints_no_third_party_notes():
    done = subprocess.run([sys.executable, "-m", "causaleval", "list"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and "bayesian_cd_ate" in done.stdout
    assert "Unable to parse" not in done.stdout + done.stderr


def test_reproduce_runs_the_studies_on_the_papers_own_file_only_when_it_is_there(tmp_path, monkeypatch, capsys):
    from causaleval.datasets import kdl

    monkeypatch.setattr(kdl, "kdl_path", lambda domain, data_dir=None: tmp_path / domain / "results.csv")
    monkeypatch.delenv("CAUSALEVAL_FIGURES", raising=False)  # as make reproduce runs: into figures/
    assert cli._paper_data_runs() == []
    assert "skipped the runs on the papers' own files" in capsys.readouterr().err
    (tmp_path / "jdk").mkdir()
    (tmp_path / "jdk" / "results.csv").write_text("x\n")
    runs = cli._paper_data_runs()
    assert [(name, tag) for name, _, tag in runs] == [("software_tvd", "paper-data-kdl_jdk"),
                                                      ("over_under_specification", "paper-data-kdl_jdk")]
    assert runs[0][1] == {"source": "kdl", "domains": ["jdk"], "output_dir": "../figures/02_software_tvd/kdl_jdk"}


def test_a_run_at_the_defaults_keeps_the_studys_runs_on_other_data(tmp_path):
    """figures/<study>/kdl_jdk/ (the run on the paper's own file) survives a run at the defaults,
    which replaces figures/<study>/ as a whole."""
    old, new = tmp_path / "figures" / "02_s", tmp_path / "work" / "02_s"
    (old / "kdl_jdk").mkdir(parents=True)
    (old / "kdl_jdk" / "claims.csv").write_text("claim\n")
    (old / "stale.csv").write_text("gone\n")
    new.mkdir(parents=True)
    (new / "claims.csv").write_text("claim\n")
    cli._keep_variants(old, new)
    cli._replace_dir(new, old)
    assert (old / "kdl_jdk" / "claims.csv").read_text() == "claim\n" and not (old / "stale.csv").exists()


# ------------------------------------------------------------------- combinations, before the kernel
@pytest.mark.parametrize("study, pairs, message", [
    # D3: these passed the schema and failed in a cell, without naming the parameter
    ("software_tvd", [("n_dags", "1"), ("n_sensitivity", "0"), ("n_trials", "2"), ("n_samples", "1000")],
     "parameter n_dags = 1 (int): expected int >= 2"),
    ("software_tvd", [("bins", "1")], "parameter bins = 1 (int): expected int >= 2"),
    ("over_under_specification", [("bins", "1")], "parameter bins = 1 (int): expected int >= 2"),
    ("bayesian_cd_ate", [("sample_sizes", "[]"), ("sachs", "false"), ("exact_nodes", "[]")],
     "sample_sizes = [] and sachs = false: no data set to run"),
    # D4: study 6's method options, declared per method
    ("bayesian_cd_ate", [("method_options", "{dibs_stepz: 10}")],
     "parameter method_options key = 'dibs_stepz' (str): expected a declared option (did you mean 'dibs_steps'?)"),
    ("bayesian_cd_ate", [("method_options", "{pc_alpha: 5}")],
     "parameter method_options['pc_alpha'] = 5 (int): expected float in (0, 1)"),
    ("bayesian_cd_ate", [("method_options", "{dibs_steps: 0}")],
     "parameter method_options['dibs_steps'] = 0 (int): expected int >= 1"),
    ("bayesian_cd_ate", [("method_options", "{mc3_burn_in: -5}")],
     "parameter method_options['mc3_burn_in'] = -5 (int): expected int >= 0"),
    ("bayesian_cd_ate", [("method_options", "{gfn_lr: .inf}")],
     "parameter method_options['gfn_lr'] = inf (float): expected finite float > 0"),
    ("bayesian_cd_ate", [("method_options", "{ges_score: 3}")],
     "parameter method_options['ges_score'] = 3 (int): expected str among 'bic', 'bge'"),
    # a latent variable that is not in the network names the parameter
    ("asia_mag_nced", [("latent", "[smoke, cloudy]")],
     "parameter latent = ['smoke', 'cloudy']: ['cloudy'] not node(s) of network 'asia'"),
])
def test_settings_that_cannot_run_are_refused_before_the_kernel_naming_the_parameters(study, pairs, message):
    with pytest.raises(params.ParameterError) as err:
        cli.check_study(study, cli.parse_overrides(cli.study_notebook(study), pairs))
    assert str(err.value).startswith(f"study {study}: ") and message in str(err.value), str(err.value)


@pytest.mark.parametrize("study, pairs, note", [
    ("bayesian_cd_ate", [("seeds", "[0]"), ("sachs_seeds", "2")],
     "study bayesian_cd_ate: sachs_seeds = 2 is more than the 1 seed(s) of seeds = [0]: Sachs runs at those 1"),
    ("software_tvd", [("n_dags", "5")], "study software_tvd: n_sensitivity = 10 is more than n_dags = 5: the "
                                        "sensitivity table reruns the 5 networks there are"),
    ("software_tvd", [("network", "asia")], "study software_tvd: n_sensitivity = 10 is not run: with network = 'asia'"),
])
def test_a_clipped_count_or_a_skipped_part_is_announced_in_one_line(study, pairs, note, capsys):
    cli.check_study(study, cli.parse_overrides(cli.study_notebook(study), pairs))
    err = capsys.readouterr().err
    assert err.startswith(f"causaleval: note: {note}") and err.count("\n") == 1, err


def test_every_option_a_kit_method_reads_is_declared_and_a_plugins_own_are_checked():
    from causaleval.bayes import bcd_nets, dag_gflownet, dibs, gadget, posteriors
    from causaleval.studies.bayesian_cd_ate import POSTERIOR_OPTIONS

    groups = params.schema("bayesian_cd_ate")["method_options"].option_groups()
    declared = {group: set(specs) for group, specs in groups.items()}
    kit = {m.__name__.rsplit(".", 1)[1]: m for m in (bcd_nets, dag_gflownet, dibs, gadget)}
    assert set(declared) >= {"bootstrap_pc", "bootstrap_ges", "mc3", *kit}
    for name, module in kit.items():  # each reads its options through method_options, over its DEFAULTS
        source = inspect.getsource(module)
        assert declared[name] == set(module.DEFAULTS), name
        assert f'method_options("{name}", options, DEFAULTS)' in source, name
        assert not re.search(r"options(\.get\(|\[)", source), name
    assert set().union(*declared.values()) >= set(POSTERIOR_OPTIONS)
    with pytest.raises(params.ParameterError,
                       match=r"method_options\['dibs_particles'\] = 0 \(int\): expected int >= 1"):
        params.check("bayesian_cd_ate", {"method_options": {"dibs_particles": 0}})
    with pytest.raises(params.ParameterError, match=r"^dibs option dibs_particles=0 \(int\): expected int >= 1"):
        posteriors.method_options("dibs", {"dibs_particles": 0}, dibs.DEFAULTS)
    posteriors.register_posterior("_test_own", options={"own_steps": {"type": "int", "min": 1}})(lambda *a, **k: None)
    try:
        params.check("bayesian_cd_ate", {"method_options": {"own_steps": 3}})
        with pytest.raises(params.ParameterError,
                           match=r"method_options\['own_steps'\] = 0 \(int\): expected int >= 1"):
            params.check("bayesian_cd_ate", {"method_options": {"own_steps": 0}})
    finally:
        posteriors.POSTERIORS.pop("_test_own")
        posteriors.OPTIONS.pop("_test_own")


def test_a_parameter_given_twice_in_a_params_file_is_refused_with_its_line(tmp_path):
    """YAML keeps the last of two equal keys silently; a parameter file must not run a value its reader misses."""
    file = tmp_path / "twice.yaml"
    file.write_text("seeds: [0]\nsachs: true\nseeds: [0, 1]\n")
    with pytest.raises(ValueError, match=r"(?s)twice.yaml: cannot be read as YAML .*key 'seeds' given twice.*line 3"):
        cli._params_file(file)
    file.write_text("method_options:\n  dibs_steps: 5\n  dibs_steps: 6\n")
    with pytest.raises(ValueError, match=r"(?s)key 'dibs_steps' given twice.*line 3"):
        cli._params_file(file)
    file.write_text("seeds: [0]\nmethod_options: {dibs_steps: 5}\n")
    assert cli._params_file(file) == [("seeds", "[0]"), ("method_options", "{dibs_steps: 5}")]
    file.write_text("base: &b {dibs_steps: 5, dibs_particles: 2}\nmethod_options:\n  <<: *b\n  dibs_steps: 7\n")
    assert dict(cli._params_file(file))["method_options"] == "{dibs_particles: 2, dibs_steps: 7}"  # YAML's merge key


def test_a_dibs_prior_that_does_not_exist_at_a_runs_size_is_refused_before_the_kernel():
    """DiBS's 2 edges per node is no prior on 4 variables (edge probability 4/3): the exact check's size
    (the check run here: the committed one ran with other method options, so reading it back is refused)."""
    overrides = cli.parse_overrides(cli.study_notebook("bayesian_cd_ate"),
                                    [("method_options", "{dibs_edges_per_node: 2}"), ("checks_from", "null"),
                                     ("exact_nodes", "[4]")])
    with pytest.raises(params.ParameterError, match=r"method_options: dibs option dibs_edges_per_node=2: on 4 "
                                                    r"variables .* not below 1 .*\(a data set of this run has 4"):
        cli.check_study("bayesian_cd_ate", overrides)
    cli.check_study("bayesian_cd_ate", cli.parse_overrides(cli.study_notebook("bayesian_cd_ate"),
                                                           [("method_options", "{dibs_edges_per_node: 2}"),
                                                            ("checks_from", "null"), ("exact_nodes", "[]")]))
