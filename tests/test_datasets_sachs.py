"""causaleval.datasets.sachs: the CD3/CD28 rows of the cdt wheel's cytometry file."""

import subprocess
import sys

import pytest

from causaleval.datasets import sachs
from causaleval.datasets.networks import network_graph


def test_observational_rows_named_as_the_pgmpy_network():
    pytest.importorskip("pgmpy")
    if sachs.importlib.util.find_spec("cdt") is None:
        pytest.skip("cdt 0.6.0 is not installed")
    data = sachs.load_sachs()
    assert data.shape == (853, 11)
    assert set(data.columns) == set(network_graph("sachs").nodes)
    assert data.loc[0, "Raf"] == 26.4 and data.loc[0, "PKA"] == 414.0  # the file's first row
    assert data.notna().all().all()


def test_cdt_is_not_imported():
    code = "import sys; from causaleval.datasets.sachs import data_path; data_path(); print('cdt' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    if out.returncode:
        pytest.skip(out.stderr.strip().splitlines()[-1])
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize(("text", "message"), [
    ("a,b\n1,2\n", "columns"),
    (",".join(sachs.COLUMNS) + "\n" + ",".join(["1.0"] * 11) + "\n", "1 rows; expected 7466"),
])
def test_a_damaged_file_is_refused_with_its_path(tmp_path, text, message):
    path = tmp_path / "cyto.csv"
    path.write_text(text)
    with pytest.raises(ValueError, match=message) as err:
        sachs.load_sachs(str(path))
    assert str(path) in str(err.value)


def test_missing_values_are_named(tmp_path):
    rows = [",".join(["1.0"] * 11)] * (sachs.ROWS - 1) + [",".join(["1.0"] * 10 + [""])]
    path = tmp_path / "cyto.csv"
    path.write_text(",".join(sachs.COLUMNS) + "\n" + "\n".join(rows) + "\n")
    with pytest.raises(ValueError, match="'pjnk' holds missing"):
        sachs.load_sachs(str(path))
