"""A user's own ground truth and data (issue 15, item 2): BIF/XMLBIF files, edge lists with
observations, factorial data in the long CSV layout, through the commands of
data/examples/README.md, and damaged files refused with the file named.

Three notebook runs through the CLI at small sizes (about 25-50 s each), the commands taken
from data/examples/README.md."""

import re
import shlex
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

from causaleval import paths
from causaleval.app import cli
from causaleval.datasets import (
    DataFileError,
    load_factorial_csv,
    network_graph,
    read_bif,
    read_edge_list,
    read_observations,
)
from causaleval.datasets.networks import draw_samples
from causaleval.datasets.user import disjoint_samples
from causaleval.params import ParameterError

EXAMPLES = paths.DATA / "examples"
BIF, EDGES, OBS = (str(EXAMPLES / f"sprinkler.{s}") for s in ("bif", "edges", "csv"))
TAG = "test-user-data"


def readme_commands() -> dict[str, list[str]]:
    """study -> the arguments after ``run STUDY`` of each command in data/examples/README.md."""
    text = (EXAMPLES / "README.md").read_text()
    found = {}
    for line in re.findall(r"^python -m causaleval run .*$", text, flags=re.M):
        words = shlex.split(line)
        found[words[4]] = words[5:]
    return found


def overrides(args: list[str]) -> list[tuple[str, str]]:
    assert args[::3] == ["-p"] * (len(args) // 3) and len(args) % 3 == 0, args
    return [(args[i + 1], args[i + 2]) for i in range(0, len(args), 3)]


def run_cli(study: str, args: list[str], out) -> None:
    done = subprocess.run([sys.executable, "-m", "causaleval", "run", study, *args, "-p", "output_dir", str(out),
                           "--tag", TAG, "--force"], cwd=paths.ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]


def test_the_readme_shows_a_command_per_study():
    assert set(readme_commands()) == {"asia_mag_nced", "software_tvd", "over_under_specification"}


# ------------------------------------------------------------------ study 1
def test_study1_runs_on_a_bif_file_written_here_and_an_edge_list_with_observations(tmp_path):
    from pgmpy.readwrite import BIFWriter

    written = tmp_path / "sprinkler_written.bif"
    BIFWriter(read_bif(BIF)).write_bif(str(written))  # pgmpy's writer, not the example's hand-written text
    args = readme_commands()["asia_mag_nced"]
    args[args.index(str(BIF.removeprefix(str(paths.ROOT) + "/")))] = str(written)
    run_cli("asia_mag_nced", args, tmp_path / "out")
    t1 = pd.read_csv(tmp_path / "out" / "table1_nced_mag.csv")
    assert set(t1["network"]) == {str(written)} and len(t1) == 3 * 6  # hc, pc, fci at six k
    assert t1["ours"].between(0, 1).all() and t1["paper"].isna().all()  # the paper has no such network
    t2 = pd.read_csv(tmp_path / "out" / "table2_all_metrics.csv")
    assert set(t2["network"]) == {str(written), "data/examples/sprinkler.edges"}
    shd = t2[(t2["network"] == "data/examples/sprinkler.edges") & (t2["metric"] == "SHD (DAG)")]
    assert shd.set_index("algorithm")["ours"].notna().to_dict() == {"hc": True, "pc": False, "fci": False}
    notebook = (paths.RUNS / "asia_mag_nced" / TAG / "01_asia_mag_nced.ipynb").read_text()
    assert "The paper reports no values for this run" in notebook


def test_edge_list_observations_and_disjoint_samples():
    graph = read_edge_list(EDGES)
    assert graph == network_graph(BIF) and graph.name == "sprinkler"
    data = read_observations(OBS, graph)
    assert list(data.columns) == list(graph.nodes) and len(data) == 600 and data.dtypes.eq("int64").all()
    samples = disjoint_samples(data, 200, 3, seed=1)
    keys = [set(map(tuple, s.to_numpy())) for s in samples]
    rows = pd.concat(samples)
    assert sum(map(len, samples)) == 600
    assert rows.sort_values(list(rows.columns)).to_numpy().tolist() == data.sort_values(
        list(data.columns)).to_numpy().tolist()  # a partition of the rows: none twice, none left out
    assert keys[0] != keys[1]
    again = draw_samples(EDGES, ["cloudy"], 200, 3, seed=1, data_file=OBS)
    assert again[2].equals(samples[2].drop(columns="cloudy"))  # deterministic, latent column removed
    with pytest.raises(ValueError, match="3 disjoint sample.* of 250 rows need 750 rows; the file has 600"):
        disjoint_samples(data, 250, 3, seed=0)


def test_xmlbif_and_an_isolated_node(tmp_path):
    from pgmpy.readwrite import XMLBIFWriter

    XMLBIFWriter(read_bif(BIF)).write_xmlbif(str(tmp_path / "s.xmlbif"))
    assert network_graph(str(tmp_path / "s.xmlbif")) == network_graph(BIF)
    (tmp_path / "g.edges").write_text("cause,effect\na,b\nlonely,\n")
    g = read_edge_list(tmp_path / "g.edges")
    assert g.nodes == ("a", "lonely", "b") and g.directed_edges() == [("a", "b")]


@pytest.mark.parametrize("change, message", [
    ({"n_samples": 700}, "parameter n_samples: 1 disjoint sample.* of 700 rows need 700 rows; second_data_file"),
    ({"sensitivity_sample_sizes": [500, 700]}, "parameter sensitivity_sample_sizes = 700: 1 disjoint"),
    ({"second_data_file": None}, "parameter second_network = .*is an edge list: .*parameter data_file"),
    ({"network": "data/examples/nope.bif"}, "parameter network = 'data/examples/nope.bif': .*nope.bif: no such file"),
    ({"network": "asai"}, "parameter network = 'asai': unknown network 'asai'; pgmpy ships: .*asia"),
    ({"network": "data/examples/sprinkler.edges", "data_file": None, "latent": []},
     "parameter network = .*is an edge list"),
    ({"network": "data/examples/sprinkler.bif", "second_network": "data/examples/sprinkler.bif",
      "second_data_file": "data/examples/sprinkler.csv"},
     "parameter second_data_file = .*second_network is network .*data_file = None; give the same file"),
    ({"second_data_file": "data/examples/sprinkler.edges"},
     r"parameter second_data_file = .*sprinkler.edges: missing columns \['cloudy'"),
])
def test_study1_refuses_what_does_not_fit_before_the_kernel_starts(change, message):
    args = dict(overrides(readme_commands()["asia_mag_nced"]))
    values = cli.parse_overrides(cli.study_notebook("asia_mag_nced"), list(args.items()))
    with pytest.raises(ParameterError, match="study asia_mag_nced: " + message):
        cli.check_study("asia_mag_nced", {**values, **change})


# ------------------------------------------------------------------ studies 2 and 3
def test_study3_runs_on_the_factorial_csv(tmp_path):
    run_cli("over_under_specification", readme_commands()["over_under_specification"], tmp_path)
    domains = pd.read_csv(tmp_path / "domains.csv")
    assert domains["domain"].tolist() == ["demo"] and int(domains["subjects"].iloc[0]) == 40
    notebook = (paths.RUNS / "over_under_specification" / TAG / "03_over_under_specification.ipynb").read_text()
    assert "factorial data of the user's own (demo, long CSV files)" in notebook


def test_study2_runs_on_the_factorial_csv_and_an_edge_list_with_observations(tmp_path):
    run_cli("software_tvd", readme_commands()["software_tvd"], tmp_path)
    domains = pd.read_csv(tmp_path / "domains.csv")
    assert domains["domain"].tolist() == ["demo"] and int(domains["subjects"].iloc[0]) == 40
    assert set(pd.read_csv(tmp_path / "figure1_mean_tvd.csv")["domain"]) == {"demo"}
    measures = pd.read_csv(tmp_path / "figure2_measures.csv")
    assert sorted(measures["learner"]) == ["ges", "mmhc", "pc"] and (measures["networks"] == 4).all()
    notebook = (paths.RUNS / "software_tvd" / TAG / "02_software_tvd.ipynb").read_text()
    assert "on the samples of data/examples/sprinkler.edges the true DAG" in notebook


def test_study2_parts_on_user_data():
    from causaleval.studies import software_tvd as S

    p = cli.parse_overrides(cli.study_notebook("software_tvd"), overrides(readme_commands()["software_tvd"]))
    fit = dict(alpha=0.05, ci_test="chi_square", cpdag_rule="extension", smoothing="bdeu", ess=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        domain = S.load_domain("csv", "demo", covariate="num_joins", outcomes=None, bins=3, beta=1.0,
                               data_dir=p["data_dir"])
        fig1 = S.figure1_results([domain], ground_truth_learners=["pc"], learners=["pc", "ges"], n_trials=2,
                                 beta=1.0, seed=0, n_jobs=1, progress=False, **fit)
        fig2 = S.figure2_results(n_dags=p["n_dags"], n_nodes=14, expected_neighbours=2, cards=2, concentration=1,
                                 n_samples=p["n_samples"], learners=["pc", "ges"], seed=0, network=p["network"],
                                 data_file=p["data_file"], n_jobs=1, progress=False, **fit)
    assert domain.data.treatments == ("cache", "index") and domain.data.outcomes == ("runtime_ms", "io_reads")
    assert set(domain.truth) == {(t, o) for t in ("cache", "index") for o in ("runtime_ms", "io_reads")}
    assert len(fig1) == 2 * 2 * 2 and fig1["mean_tvd"].between(0, 1).all()
    assert len(fig2) == 4 * 2 and (fig2["edges"] == 4).all()  # the user's DAG in every row, not a random one
    assert fig2["tvd_true_dag"].nunique() == 4  # four disjoint samples, four fits of the true DAG
    with pytest.raises(ParameterError, match="study software_tvd: parameter source = 'csv' needs data_dir"):
        cli.check_study("software_tvd", {**p, "data_dir": None})


def test_factorial_csv_layout():
    data = load_factorial_csv("demo", EXAMPLES / "factorial")
    assert (data.subject, data.trial) == ("subject", "trial")
    assert data.covariates == ("num_joins",) and len(data.frame) == 160 and data.levels["cache"] == (0, 1)
    assert len(data.complete().subjects) == 40


# ------------------------------------------------------------------ damaged files
GOOD_FACTORIAL = ("subject,trial,treatment:t,outcome:y,covariate:c\n"
                  "s1,0,0,1.5,3\ns1,0,1,2.5,3\ns2,0,0,1.0,4\ns2,0,1,0.5,4\n")


@pytest.mark.parametrize("name, text, message", [
    ("g.edges", "cause,effect\na,b\nb,c\nc,a\n", "the directed cycle"),
    ("g.edges", "cause,effect\na,b\na,b\n", r"duplicate \('cause', 'effect'\) values \[\('a', 'b'\)\].*line \[3\]"),
    ("g.edges", "cause,effect\na,b\nb,a\n", "joins the same nodes"),
    ("g.edges", "cause,effect\na,b\n,c\n", r"1 row\(s\) without a cause \(line \[3\]\)"),
    ("g.edges", "from,to\na,b\n", r"missing columns \['cause', 'effect'\]"),
    ("g.edges", "cause,effect\na,b", "line 2 \\(the last\\) has no line end"),
    ("n.bif", "network x {\n}\nvariable a {\n  type discrete [ 2 ] { u, v };\n}\n",
     "line 3, column 10: variable 'a' has no probability block"),
    ("n.bif", "hello\n", "line 1, column 1: found 'hello'; expected a block"),
    ("n.bif", "network x {\n}\n", "holds a network of 0 variable"),
    ("d/f.csv", GOOD_FACTORIAL.replace("covariate:c", "c"), "column 'c' has no role"),
    ("d/f.csv", GOOD_FACTORIAL.replace("s2,0,1,0.5", "s2,0,0,0.5"), r"duplicate .*line \[5\]"),
    ("d/f.csv", GOOD_FACTORIAL.replace("s2,0,1,0.5,4", "s2,0,1,0.5,5"),
     "covariate 'c' takes 2 values for subject 's2'"),
    ("d/f.csv", GOOD_FACTORIAL.replace("2.5", "fast"), r"column 'y' holds 'fast' \(line \[3\]"),
    ("d/f.csv", "subject,trial,treatment:t,outcome:y\ns1,0,0,1\ns2,0,0,2\n", "treatment 't' takes the single level 0"),
    ("d/f.csv", GOOD_FACTORIAL.replace("outcome:y", "covariate:y"), "no 'outcome:<name>' column"),
    ("d/f.csv", GOOD_FACTORIAL.replace(",3\ns1", ",3\ns1,0\ns1", 1), r"too few fields \(line \[3\]"),
])
def test_damaged_user_files_are_refused_naming_the_file(tmp_path, name, text, message):
    path = tmp_path / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(text)
    with pytest.raises(DataFileError, match=message) as err:
        if name.endswith(".edges"):
            read_edge_list(path)
        elif name.endswith(".bif"):
            read_bif(path)
        else:
            load_factorial_csv("f", path.parent)
    assert str(path) in str(err.value)


@pytest.mark.parametrize("text, message", [
    ("cloudy,sprinkler,rain\n0,1,0\n1,0,1\n", r"missing columns \['wet_grass'\]"),
    ("cloudy,sprinkler,rain,wet_grass,x\n0,1,0,1,0\n1,0,1,0,1\n", r"unexpected column\(s\) \['x'\]"),
    ("cloudy,sprinkler,rain,wet_grass\n0,1,0,1\n1,0.5,1,0\n", r"column 'sprinkler' holds 0.5 \(line \[3\]\)"),
    ("cloudy,sprinkler,rain,wet_grass\n0,1,0,1\n1,,1,0\n", r"column 'sprinkler' has 1 empty cell\(s\) \(line \[3\]\)"),
    ("cloudy,sprinkler,rain,wet_grass\n0,1,0,1\n1,-1,1,0\n", r"column 'sprinkler' holds -1.0 \(line \[3\]"),
    ("cloudy,sprinkler,rain,wet_grass\n0,1,0,1\n1,on,1,0\n", r"column 'sprinkler' holds 'on' \(line \[3\]"),
    ("cloudy,sprinkler,rain,wet_grass\n0,1,0,1\n0,0,1,0\n", "column 'cloudy' holds the single value 0"),
])
def test_damaged_observations_are_refused_naming_file_column_and_line(tmp_path, text, message):
    path = tmp_path / "obs.csv"
    path.write_text(text)
    with pytest.raises(DataFileError, match=message) as err:
        read_observations(path, read_edge_list(EDGES))
    assert str(path) in str(err.value)


def test_a_changed_file_is_read_again(tmp_path):
    path = tmp_path / "g.edges"
    path.write_text("cause,effect\na,b\n")
    assert read_edge_list(path).directed_edges() == [("a", "b")]
    path.write_text("cause,effect\na,b\nb,c\n")
    assert read_edge_list(path).directed_edges() == [("a", "b"), ("b", "c")]
    assert np.array_equal(read_edge_list(path).matrix, read_edge_list(str(path)).matrix)
