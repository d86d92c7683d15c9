"""The kit's BIF reader: the same model as pgmpy's reader on the networks pgmpy ships, errors with
line and column (and a hint for a misspelt keyword), and speed on a 100-node network."""

import gzip
import itertools

import numpy as np
import pytest

from causaleval.datasets.bif import parse_bif
from causaleval.datasets.networks import _model_dir
from causaleval.datasets.readers import DataFileError

GOOD = """network test {
}
variable rain {
  type discrete [ 2 ] { yes, no };
}
variable "wet grass" {
  type discrete [ 2 ] { yes, no };
  property weight = 1 ;
}
// a comment
probability ( rain ) {
  table 0.2, 0.8;
}
probability ( "wet grass" | rain ) {
  (yes) 0.9, 0.1;
  default 0.05, 0.95;
}
"""


def _same(ours, theirs) -> bool:
    if list(ours.nodes()) != list(theirs.nodes()) or sorted(ours.edges()) != sorted(theirs.edges()):
        return False
    for cpd in theirs.get_cpds():
        mine = ours.get_cpds(cpd.variable)
        if mine.variables != cpd.variables or mine.state_names != cpd.state_names:
            return False
        if not np.array_equal(mine.values, cpd.values):
            return False
    return True


@pytest.mark.parametrize("network", ["asia", "cancer", "sachs", "child", "insurance", "alarm"])
def test_the_same_model_as_pgmpys_reader(network):
    from pgmpy.readwrite import BIFReader

    path = _model_dir() / f"{network}.bif.gz"
    text = gzip.open(path).read().decode()
    assert _same(parse_bif(path, text), BIFReader(string=text).get_model())


def test_rows_default_quoted_names_and_comments(tmp_path):
    model = parse_bif(tmp_path / "net.bif", GOOD)
    cpd = model.get_cpds("wet grass")
    assert cpd.variables == ["wet grass", "rain"]
    assert cpd.values.tolist() == [[0.9, 0.05], [0.1, 0.95]]


@pytest.mark.parametrize("broken, where, message", [
    (GOOD.replace("probability ( rain )", "probabilty ( rain )"), "line 11, column 1", "did you mean 'probability'"),
    (GOOD.replace("type discrete", "typ discrete"), "line 4, column 3", "did you mean 'type'"),
    (GOOD.replace("table 0.2, 0.8;", "tabel 0.2, 0.8;"), "line 12, column 3", "did you mean 'table'"),
    (GOOD.replace("[ 2 ] { yes, no };\n}\nvariable", "[ 3 ] { yes, no };\n}\nvariable", 1), "line 4, column 19",
     "'3' states declared and 2 listed"),
    (GOOD.replace("table 0.2, 0.8;", "table 0.2, 0.9;"), "line 11", "sum to 1"),
    (GOOD.replace("table 0.2, 0.8;", "table 0.2, x;"), "line 12, column 14", "'x'"),
    (GOOD.replace("(yes) 0.9, 0.1;", "(maybe) 0.9, 0.1;"), "line 15, column 3", "state 'maybe' of 'rain'"),
    (GOOD.replace("| rain )", "| rian )"), "line 14, column 29", "did you mean 'rain'"),
    (GOOD.replace("  default 0.05, 0.95;\n", ""), "line 14", "no row for the parent states ('no',)"),
    (GOOD.replace("table 0.2, 0.8;", "table 0.2, 0.8"), "line 13, column 1", "';' ending the table of 'rain'"),
    (GOOD[:GOOD.index("probability ( \"wet")], "line 6", "has no probability block"),
    # numbers that are not finite, where they are written (a NaN passed the sum check and sampled as 0.8)
    (GOOD.replace("table 0.2, 0.8;", "table nan, 0.8;"), "line 12, column 9",
     "'nan'; expected a probability (a finite"),
    (GOOD.replace("table 0.2, 0.8;", "table 0.2, inf;"), "line 12, column 14", "'inf'"),
    (GOOD.replace("(yes) 0.9, 0.1;", "(no) nan, 0.2;"), "line 15, column 8", "'nan'"),  # was replaced by default
    (GOOD.replace("(yes) 0.9, 0.1;", "(yes) -NaN, 0.1;"), "line 15, column 9", "'-NaN'"),
    # a cycle, at the block that closes it
    (GOOD.replace("( rain ) {\n  table 0.2, 0.8;", "( rain | \"wet grass\" ) {\n  table 0.2, 0.3, 0.8, 0.7;"),
     "line 11, column 1", "directed cycle rain -> wet grass -> rain"),
    (GOOD.replace("| rain ) {\n  (yes) 0.9, 0.1;\n  default 0.05, 0.95;",
                  "| \"wet grass\" ) {\n  table 0.9, 0.2, 0.1, 0.8;"),
     "line 14, column 1", "directed cycle wet grass -> wet grass"),
])
def test_errors_name_line_and_column(tmp_path, broken, where, message):
    with pytest.raises(DataFileError) as err:
        parse_bif(tmp_path / "net.bif", broken)
    text = str(err.value)
    assert "net.bif" in text and where in text and message in text, text


def test_a_100_node_network_reads(tmp_path):
    """A 100-node network with two-parent tables parses whole (its speed is a benchmark's matter,
    not a timed test's)."""
    rng = np.random.default_rng(0)
    lines = ["network big {\n}"]
    lines += [f"variable v{i} {{\n  type discrete [ 3 ] {{ a, b, c }};\n}}" for i in range(100)]
    for i in range(100):
        parents = [f"v{j}" for j in sorted(rng.choice(i, size=min(i, 2), replace=False))] if i else []
        rows = []
        if parents:
            for states in itertools.product("abc", repeat=len(parents)):
                p = rng.dirichlet(np.ones(3))
                rows.append(f"  ({', '.join(states)}) {float(p[0])!r}, {float(p[1])!r}, {float(1 - p[0] - p[1])!r};")
            lines.append(f"probability ( v{i} | {', '.join(parents)} ) {{\n" + "\n".join(rows) + "\n}")
        else:
            lines.append(f"probability ( v{i} ) {{\n  table 0.2, 0.3, 0.5;\n}}")
    text = "\n".join(lines) + "\n"
    model = parse_bif(tmp_path / "big.bif", text)
    assert len(model.nodes()) == 100
    assert len(model.edges()) == 2 * 98 + 1
