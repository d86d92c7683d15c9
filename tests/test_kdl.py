"""The KDL loader on small hand-made files in each original layout, quirks included."""

import itertools

import numpy as np
import pandas as pd
import pytest

from causaleval.datasets.factorial import FactorialData, binarize, normalize_outcomes, select_treatments
from causaleval.datasets.kdl import load_kdl


def _postgres(folder, subjects=3, trials=2, drop=None):
    rows = []
    for s, t, (i, p, m) in itertools.product(range(subjects), range(trials),
                                             itertools.product(range(3), repeat=3)):
        rows.append({"URL": f"q{s}", "Trial": t, "Index_Level": i, "page_cost": p,
                     "memory_level": m, "runtime": 1.0 + s + 0.5 * i + 0.1 * t,
                     "shared_hit_blocks": 10 * s, "shared_read_blocks": 5 + i,
                     "temp_read_blocks": m, "temp_written_blocks": 0 if s else 1,
                     "local_hit_blocks": 0, "local_read_blocks": 0, "local_written_blocks": 0,
                     "rows": 7 * s, "creation_year": 2010 + s, "num_ref_tables": 1 + s,
                     "num_joins": s, "num_group_by": 0 if s else 1, "queries_by_user": 3,
                     "length_chars": 40 + s, "total_ref_rows": 100 * (s + 1),
                     "favorite_count": s, "comment": "x"})
    frame = pd.DataFrame(rows)
    if drop is not None:
        frame = frame.drop(index=drop)
    (folder / "postgres").mkdir(parents=True)
    frame.to_csv(folder / "postgres" / "results_abbrv_all.csv", index=False)
    return frame


def test_postgres_layout_extremes_give_the_papers_2_cubed_design(tmp_path):
    _postgres(tmp_path)
    data = load_kdl("postgres", tmp_path)
    assert isinstance(data, FactorialData)
    assert data.subject == "url" and data.treatments == ("index_level", "page_cost", "memory_level")
    # 3 subjects x 2 trials x 2^3 cells (middle levels dropped), as 11,252 x 8 = 90,016 in the paper
    assert len(data.frame) == 3 * 2 * 8
    assert set(data.frame["index_level"]) == {0, 1}
    notes = " ".join(data.notes)
    assert "local_hit_blocks" in notes and "queries_by_user" in notes  # constants dropped
    assert "comment" in notes  # unknown column reported
    assert "local_read_blocks" not in data.outcomes and "queries_by_user" not in data.covariates
    assert data.missing_cells().empty


def test_missing_cells_are_reported_and_complete_drops_the_subject(tmp_path):
    frame = _postgres(tmp_path, drop=[0])  # q0, trial 0, cell (0, 0, 0)
    assert frame.iloc[0]["URL"] == "q0"
    data = load_kdl("postgres", tmp_path)
    gaps = data.missing_cells()
    assert gaps[["url", "trial", "index_level", "page_cost", "memory_level"]].values.tolist() == [["q0", 0, 0, 0, 0]]
    complete = data.complete()
    assert set(complete.frame["url"]) == {"q1", "q2"}
    assert "left out 1 of 3 subjects" in complete.notes[-1]


def test_missing_required_column_and_absent_file(tmp_path):
    frame = _postgres(tmp_path)
    frame.drop(columns="runtime").to_csv(tmp_path / "postgres" / "results_abbrv_all.csv", index=False)
    with pytest.raises(ValueError, match=r"missing column\(s\) \['runtime'\]"):
        load_kdl("postgres", tmp_path)
    with pytest.raises(FileNotFoundError, match=r"jdk/results.csv"):
        load_kdl("jdk", tmp_path)
    with pytest.raises(ValueError, match="unknown KDL domain 'mysql'"):
        load_kdl("mysql", tmp_path)


def test_a_fractional_trial_number_is_refused_naming_the_line(tmp_path):
    frame = _postgres(tmp_path)
    frame["Trial"] = frame["Trial"].astype(float)
    frame.loc[4, "Trial"] = 1.5
    frame.to_csv(tmp_path / "postgres" / "results_abbrv_all.csv", index=False)
    with pytest.raises(ValueError, match=r"column 'trial' holds 1.5 \(line \[6\].*expected whole numbers"):
        load_kdl("postgres", tmp_path)


def test_cut_off_and_garbled_files(tmp_path):
    _postgres(tmp_path)
    path = tmp_path / "postgres" / "results_abbrv_all.csv"
    text = path.read_text()
    last = text.rindex("\n", 0, len(text) - 1)
    path.write_text(text[: last + 14])  # last row cut among its outcomes: refused, or dropped on request
    with pytest.raises(ValueError, match=r"line 163 \(the last\) has no line end"):
        load_kdl("postgres", tmp_path)
    data = load_kdl("postgres", tmp_path, allow_truncated=True)
    assert any("dropped line 163" in n for n in data.notes) and len(data.missing_cells()) == 1
    path.write_text(text[: last + 6] + "\n")  # cut after its trial, line end added: fields missing
    with pytest.raises(ValueError, match=r"1 row\(s\) with too few fields \(line \[163\]"):
        load_kdl("postgres", tmp_path)
    path.write_bytes(b"")
    with pytest.raises(ValueError, match="the file is empty"):
        load_kdl("postgres", tmp_path)


def _jdk(folder):
    rows = []
    for s, t, flags in itertools.product(range(2), range(5), itertools.product((0, 1), repeat=4)):
        debug, obfuscate, optimize, gc = flags
        rows.append({"repo_name": f"r{s}", "trial": t, "source_ncss": 100 * (s + 1),
                     "test_classes": 3, "test_functions": 10 + s, "test_ncss": 50, "test_javadocs": s,
                     "debug": debug, "obfuscate": obfuscate, "optimize": optimize, "parallelgc": gc,
                     "num_bytecode_ops": 1000 + 10 * debug, "total_unit_test_time": 2.0 + gc + 0.01 * t,
                     "allocated_bytes": 5000, "jar_file_size_bytes": 900 + 50 * obfuscate + s,
                     "compile_time_ms": 300 + t})
    (folder / "jdk").mkdir(parents=True)
    pd.DataFrame(rows).to_csv(folder / "jdk" / "results.csv", index=False)


def test_jdk_full_2_to_the_4_design_and_choosing_treatments(tmp_path):
    _jdk(tmp_path)
    full = load_kdl("jdk", tmp_path)
    assert len(full.frame) == 2 * 5 * 16  # 473 x 80 rows in the original
    three = load_kdl("jdk", tmp_path, treatments=["debug", "obfuscate", "parallelgc"], fixed={"optimize": 1})
    assert three.treatments == ("debug", "obfuscate", "parallelgc")
    assert "optimize" not in three.frame and len(three.frame) == 2 * 5 * 8
    assert any("optimize held at 1" in n for n in three.notes)
    with pytest.raises(ValueError, match="not unchosen treatments"):
        load_kdl("jdk", tmp_path, treatments=["debug"], fixed={"debug": 1})
    with pytest.raises(ValueError, match="non-empty subset"):
        load_kdl("jdk", tmp_path, treatments=["heap_size"])


def test_networking_r_table_with_row_names_and_true_false_flags(tmp_path):
    lines = ['"site" "url" "trial" "mobile_user_agent" "proxy" "compression" "elapsed" '
             '"html_attrs" "html_tags" "decompressed_content_length" "raw_content_length" '
             '"server" "server.class" "ping_time" "time" "content_type" "record.count"']
    n = 0
    for site, trial, (m, p, c) in itertools.product(("a.org", "b.net"), range(2),
                                                    itertools.product(("TRUE", "FALSE"), repeat=3)):
        n += 1
        lines.append(f'"{n}" "{site}" "http://{site}/x y" {trial} {m} {p} {c} {0.1 * n:.2f} '
                     f'{20 + n} {10 + n} {1000 + n} {400 + n} "Apache {site}" "{site[0]}" {len(site) + n % 3} '
                     f'"{"night" if trial else "morning"}" "text/html" 1')
    (tmp_path / "networking").mkdir()
    (tmp_path / "networking" / "results2.dat").write_text("\n".join(lines) + "\n")
    data = load_kdl("networking", tmp_path)
    assert len(data.frame) == 2 * 2 * 8 and data.levels["proxy"] == (0, 1)
    assert set(data.frame["compression"]) == {0, 1}
    assert data.covariates == ("server", "server_class", "time", "ping_time")
    assert data.frame["site"].tolist()[:2] == ["a.org", "a.org"]  # R's row names are not a column
    assert not {"url", "content_type", "record_count"} & set(data.frame)
    assert any("True/False read as 1/0" in n for n in data.notes)


def test_bad_treatment_values_are_named(tmp_path):
    _jdk(tmp_path)
    frame = pd.read_csv(tmp_path / "jdk" / "results.csv")
    frame["debug"] = frame["debug"].map({0: "off", 1: "maybe"})
    frame.to_csv(tmp_path / "jdk" / "results.csv", index=False)
    with pytest.raises(ValueError, match=r"treatment 'debug' has values \['maybe', 'off'\]"):
        load_kdl("jdk", tmp_path)


def _toy(levels=(0, 1, 2)) -> FactorialData:
    rows = [{"s": s, "trial": 0, "t": lv, "y": (s + 1) * (1 + lv)} for s in range(2) for lv in levels]
    return FactorialData("toy", pd.DataFrame(rows), "s", "trial", ("t",), ("y",), ())


def test_binarize_with_a_mapping_and_bad_rules():
    data = binarize(_toy(), {"t": {0: 0, 1: 1, 2: 1}})
    assert data.frame["t"].tolist() == [0, 1, 1, 0, 1, 1]
    with pytest.raises(ValueError, match="expected only 0 and 1"):
        binarize(_toy(), {"t": {0: 0, 2: 2}})
    with pytest.raises(ValueError, match="not treatments"):
        binarize(_toy(), {"u": "extremes"})


def test_normalize_by_median_control_outcome_per_subject():
    data = normalize_outcomes(_toy((0, 1)))
    # subject 0: y = 1, 2 -> 1, 2; subject 1: y = 2, 4 -> 1, 2
    assert data.frame["y"].tolist() == [1.0, 2.0, 1.0, 2.0]
    zero = FactorialData("zero", pd.DataFrame({"s": [0, 0], "trial": 0, "t": [0, 1], "y": [0, 3]}),
                         "s", "trial", ("t",), ("y",), ())
    with pytest.raises(ValueError, match="zero control-case median"):
        normalize_outcomes(zero)
    assert np.allclose(normalize_outcomes(zero, offset=1).frame["y"], [1.0, 4.0])


def test_roles_must_name_existing_distinct_columns():
    frame = pd.DataFrame({"s": [0], "trial": [0], "t": [0], "y": [1.0]})
    with pytest.raises(ValueError, match=r"columns \['z'\] are missing"):
        FactorialData("bad", frame, "s", "trial", ("t",), ("z",), ())
    with pytest.raises(ValueError, match="more than one role"):
        FactorialData("bad", frame, "s", "trial", ("t",), ("t",), ())
    with pytest.raises(ValueError, match="has no level 5"):
        select_treatments(FactorialData("two", frame.assign(u=0), "s", "trial", ("t", "u"), ("y",), ()),
                          ["t"], {"u": 5})


def test_discretize_by_quantiles_ties_and_few_values():
    from causaleval.datasets.factorial import discretize

    frame = pd.DataFrame({"s": range(9), "trial": 0, "t": [0, 1] * 4 + [0],
                          "y": [1.0, 2, 3, 4, 5, 6, 7, 8, 9], "z": [0, 0, 0, 0, 0, 0, 5, 7, 9],
                          "c": ["b", "a", "b", "a", "b", "a", "b", "a", "c"]})
    data = discretize(FactorialData("d", frame, "s", "trial", ("t",), ("y", "z"), ("c",)), bins=3)
    assert data.frame["y"].tolist() == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    # cut points 0, 1.67 -> bins (-inf, 0], (0, 1.67], (1.67, inf): the tied zeros stay together
    assert data.frame["z"].tolist() == [0, 0, 0, 0, 0, 0, 2, 2, 2]
    assert data.frame["c"].tolist() == [1, 0, 1, 0, 1, 0, 1, 0, 2]
    with pytest.raises(ValueError, match="not \\['t'\\]"):
        discretize(data, columns=["t"])
