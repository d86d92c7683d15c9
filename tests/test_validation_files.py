"""Damaged data files, one case per class of damage: every one is refused with a
DataFileError naming the file and the line, row or column; harmless variants (BOM, CRLF,
trailing blank lines) load exactly as the clean file; the shipped snapshots load as a plain
pandas read of their files."""

import gzip
import json
import shutil

import numpy as np
import pandas as pd
import pytest
from test_kdl import _jdk, _postgres

from causaleval import paths
from causaleval.datasets import DataFileError, load_collected, load_kdl
from causaleval.datasets.readers import read_table
from causaleval.metrics import ibm

KDL_FILE = "results_abbrv_all.csv"


# ---------------------------------------------------------------------------- text edits
def _set(text: str, line: int, column: str, value: str, sep: str = ",") -> str:
    """Replace one cell: ``line`` is 1-based (the header is line 1); CRLF lines stay CRLF."""
    lines = text.split("\n")
    end = "\r" if lines[line - 1].endswith("\r") else ""
    index = lines[0].rstrip("\r").split(sep).index(column)
    fields = lines[line - 1].rstrip("\r").split(sep)
    fields[index] = value
    lines[line - 1] = sep.join(fields) + end
    return "\n".join(lines)


def _drop_column(text: str, column: str) -> str:
    lines = [line.split(",") for line in text.split("\n")]
    index = lines[0].index(column)
    return "\n".join(",".join(f[:index] + f[index + 1:]) if f != [""] else "" for f in lines)


def _insert(text: str, line: int, new: str) -> str:
    lines = text.split("\n")
    return "\n".join(lines[: line - 1] + [new] + lines[line - 1:])


def _line(text: str, line: int) -> str:
    return text.split("\n")[line - 1]


# ---------------------------------------------------------------------------- KDL files
KDL_CASES = {
    "non-numeric outcome": (lambda t: _set(t, 10, "runtime", "N/A!"),
                            r"column 'runtime' holds 'N/A!' \(line \[10\]; 1 such cell"),
    "infinite outcome": (lambda t: _set(t, 11, "shared_read_blocks", "inf"),
                         r"column 'shared_read_blocks' holds inf \(line \[11\]\); expected finite"),
    "negative run time": (lambda t: _set(t, 12, "runtime", "-3.5"),
                          r"column 'runtime' holds -3.5 \(line \[12\]; 1 negative"),
    "cut inside the last field": (lambda t: t[:-3],
                                  r"line 163 \(the last\) has no line end"),
    "row cut inside the outcomes": (lambda t: _insert(t, 40, _line(t, 40)[:30]),
                                    r"1 row\(s\) with too few fields \(line \[40\]"),
    "blank line in the middle": (lambda t: _insert(t, 50, ""),
                                 r"1 row\(s\) with too few fields \(line \[50\]: \[0\] fields\)"),
    "extra field in a row": (lambda t: _set(t, 30, "comment", "x,y"),
                             r"Expected 23 fields in line 30, saw 24"),
    "duplicated row": (lambda t: t + _line(t, 5) + "\n",
                       r"duplicate \('url', 'trial', 'index_level', 'page_cost', 'memory_level'\) "
                       r"values \[\('q0', 0, 0, 1, 0\)\] in 1 row\(s\) \(1 of them identical .* line \[164\]"),
    "treatment level outside the expected ones": (
        lambda t: t.replace(",0,0,0,1.0,", ",0,3,0,1.0,"),
        r"column 'page_cost' has levels outside the expected ones \(3: 1 rows; line \[2\]\); "
        r"expected levels \[0, 1, 2\]"),
    "missing key value": (lambda t: _set(t, 20, "URL", ""),
                          r"1 row\(s\) without a 'url' value \(line \[20\]\)"),
    "wrong separator": (lambda t: t.replace(",", ";"),
                        r"the header 'URL;Trial.*' is a single field \(it holds ';': another separator\?\)"),
    "duplicated header": (lambda t: t.replace(",comment\n", ",runtime\n", 1),
                          r"names column\(s\) \['runtime'\] more than once"),
    "missing column": (lambda t: _drop_column(t, "runtime"),
                       r"missing column\(s\) \['runtime'\] for the KDL postgres layout"),
    "corrupt bytes": (lambda t: t.encode()[:2000] + b"\xff\xfe" + t.encode()[2002:],
                      r"bytes b'\\xff' that are not UTF-8 text on line \d+"),
    "empty file": (lambda t: "", r"the file is empty"),
    "header only": (lambda t: _line(t, 1) + "\n", r"a header and no rows"),
}


@pytest.mark.parametrize("damage,message", KDL_CASES.values(), ids=KDL_CASES.keys())
def test_damaged_kdl_file_is_refused_naming_the_culprit(tmp_path, damage, message):
    _postgres(tmp_path)
    path = tmp_path / "postgres" / KDL_FILE
    damaged = damage(path.read_text())
    path.write_bytes(damaged if isinstance(damaged, bytes) else damaged.encode())
    with pytest.raises(DataFileError, match=message) as raised:
        load_kdl("postgres", tmp_path)
    assert str(path) in str(raised.value)


def test_kdl_jdk_level_outside_and_the_levels_option(tmp_path):
    _jdk(tmp_path)
    path = tmp_path / "jdk" / "results.csv"
    frame = pd.read_csv(path)
    frame.loc[frame["debug"] == 1, "debug"] = 2  # the flag coded 0/2: half the runs
    frame.to_csv(path, index=False)
    with pytest.raises(DataFileError, match=r"column 'debug' has levels outside the expected ones "
                                            r"\(2: 80 rows; lines \[10, 11, 12, 13, 14\]\); expected levels \[0, 1\]"):
        load_kdl("jdk", tmp_path)
    data = load_kdl("jdk", tmp_path, levels={"debug": (0, 2)})
    assert len(data.frame) == 160 and set(data.frame["debug"]) == {0, 1}
    with pytest.raises(ValueError, match=r"levels= names \['heap'\]"):
        load_kdl("jdk", tmp_path, levels={"heap": (0, 1)})


def test_kdl_cut_last_row_dropped_only_on_request(tmp_path):
    _postgres(tmp_path)
    path = tmp_path / "postgres" / KDL_FILE
    path.write_text(path.read_text()[:-40])
    data = load_kdl("postgres", tmp_path, allow_truncated=True)
    assert any(f"{KDL_FILE}: dropped line 163" in n for n in data.notes)
    assert len(data.missing_cells()) == 1


def test_kdl_missing_outcome_is_a_failed_run_with_a_note(tmp_path):
    _postgres(tmp_path)
    path = tmp_path / "postgres" / KDL_FILE
    path.write_text(_set(path.read_text(), 2, "runtime", ""))  # q0, trial 0, cell (0, 0, 0)
    data = load_kdl("postgres", tmp_path)
    assert any("1 row(s) with a missing outcome value (line [2])" in n for n in data.notes)
    assert data.missing_cells()[["url", "reason"]].values.tolist() == [["q0", "missing outcome"]]
    assert set(data.complete().frame["url"]) == {"q1", "q2"}


@pytest.mark.parametrize("variant", [
    lambda b: b"\xef\xbb\xbf" + b,           # byte-order mark
    lambda b: b.replace(b"\n", b"\r\n"),     # CRLF line ends
    lambda b: b + b"\n\n",                   # trailing blank lines
], ids=["BOM", "CRLF", "trailing blank lines"])
def test_harmless_kdl_variants_load_as_the_clean_file(tmp_path, variant):
    _postgres(tmp_path / "clean")
    clean = load_kdl("postgres", tmp_path / "clean")
    _postgres(tmp_path / "variant")
    path = tmp_path / "variant" / "postgres" / KDL_FILE
    path.write_bytes(variant(path.read_bytes()))
    data = load_kdl("postgres", tmp_path / "variant")
    pd.testing.assert_frame_equal(data.frame, clean.frame)
    assert data.notes == clean.notes


def test_networking_r_table_short_row_is_refused(tmp_path):
    header = ('"site" "url" "trial" "mobile_user_agent" "proxy" "compression" "elapsed" "html_attrs" '
              '"html_tags" "decompressed_content_length" "raw_content_length" "server" "server.class" '
              '"ping_time" "time"')
    rows = [f'"{i + 1}" "a.org" "http://a.org/x y" 0 {m} {p} {c} 0.5 1 2 3 4 "Apache x" "a" 3 "night"'
            for i, (m, p, c) in enumerate(np.ndindex(2, 2, 2))]
    rows[3] = rows[3].rsplit(" ", 3)[0]  # cut: three fields fewer
    (tmp_path / "networking").mkdir()
    (tmp_path / "networking" / "results2.dat").write_text("\n".join([header, *rows]) + "\n")
    with pytest.raises(DataFileError, match=r"results2.dat: 1 row\(s\) with too few fields \(line \[5\]: "
                                            r"\[13\] fields\); expected 16"):
        load_kdl("networking", tmp_path)


# ---------------------------------------------------------------------------- collected snapshots
@pytest.fixture
def small_collection(tmp_path):
    """Subjects 0-2 of the shipped sqlite snapshot with all their runs (144), as a collection."""
    source = paths.DATA / "software" / "sqlite"
    folder = tmp_path / "sqlite"
    folder.mkdir()
    subjects = gzip.decompress((source / "subjects.csv.gz").read_bytes()).decode().split("\n")
    runs = gzip.decompress((source / "runs.csv.gz").read_bytes()).decode().split("\n")
    keep = [runs[0]] + [r for r in runs[1:] if r and r.split(",")[2] in {"0", "1", "2"}]
    (folder / "subjects.csv.gz").write_bytes(gzip.compress(("\n".join(subjects[:4]) + "\n").encode()))
    (folder / "runs.csv.gz").write_bytes(gzip.compress(("\n".join(keep) + "\n").encode()))
    manifest = json.loads((source / "manifest.json").read_text())
    manifest.update(runs=len(keep) - 1, status_counts={"error": 0, "ok": len(keep) - 1, "timeout": 0})
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=2))
    return folder


def _edit_gz(path, edit):
    path.write_bytes(gzip.compress(edit(gzip.decompress(path.read_bytes()).decode()).encode()))


def _runs(edit):
    return lambda folder: _edit_gz(folder / "runs.csv.gz", edit)


COLLECTED_CASES = {
    "truncated gzip": (lambda f: (f / "runs.csv.gz").write_bytes((f / "runs.csv.gz").read_bytes()[:900]),
                       "runs.csv.gz", r"truncated or corrupt gzip stream \(EOFError"),
    "corrupt gzip bytes": (lambda f: (f / "runs.csv.gz").write_bytes(
        (f / "runs.csv.gz").read_bytes()[:600] + b"\x00" * 50 + (f / "runs.csv.gz").read_bytes()[650:]),
        "runs.csv.gz", r"truncated or corrupt gzip stream"),
    "empty manifest": (lambda f: (f / "manifest.json").write_text(""), "manifest.json", r"the file is empty"),
    "truncated manifest": (lambda f: (f / "manifest.json").write_text((f / "manifest.json").read_text()[:300]),
                           "manifest.json", r"not valid JSON .* the file may be truncated"),
    "manifest without a key": (lambda f: (f / "manifest.json").write_text(json.dumps(
        {k: v for k, v in json.loads((f / "manifest.json").read_text()).items() if k != "outcomes"})),
        "manifest.json", r"no key 'outcomes'"),
    "cut last row": (_runs(lambda t: t[:-12]), "runs.csv.gz", r"line 145 \(the last\) has no line end"),
    "row cut in the middle": (_runs(lambda t: _insert(t, 60, _line(t, 60).rsplit(",", 3)[0])),
                              "runs.csv.gz", r"1 row\(s\) with too few fields \(line \[60\]: \[14\] fields\)"),
    "duplicated runs": (_runs(lambda t: t + "\n".join(t.split("\n")[1:101]) + "\n"), "runs.csv.gz",
                        r"duplicate \('trial', 'subject', 'cache_size', 'index_level', 'statistics', "
                        r"'temp_store'\) values .* in 100 run\(s\) \(100 of them identical .* lines \[146, "),
    "unknown subject": (_runs(lambda t: _set(t, 7, "subject", "999")), "runs.csv.gz",
                        r"1 run\(s\) of subject\(s\) \[999\] that subjects.csv.gz does not list \(line \[7\]\)"),
    "level outside the manifest's": (_runs(lambda t: _set(t, 8, "cache_size", "5")), "runs.csv.gz",
                                     r"column 'cache_size' has levels outside .* \(5: 1 rows; line \[8\]\); "
                                     r"expected levels \[0, 1\]"),
    "unknown status": (_runs(lambda t: _set(t, 9, "status", "crashed")), "runs.csv.gz",
                       r"column 'status' has levels outside the expected ones \('crashed': 1 rows; line \[9\]\)"),
    "finished run without an outcome": (_runs(lambda t: _set(t, 10, "vm_steps", "")), "runs.csv.gz",
                                        r"1 finished run\(s\) \(status 'ok'\) without a 'vm_steps' value "
                                        r"\(line \[10\]\)"),
    "negative run time": (_runs(lambda t: _set(t, 11, "runtime_ms", "-0.5")), "runs.csv.gz",
                          r"column 'runtime_ms' holds -0.5 \(line \[11\]"),
    "non-numeric outcome": (_runs(lambda t: _set(t, 12, "sorts", "N/A!")), "runs.csv.gz",
                            r"column 'sorts' holds 'N/A!' \(line \[12\]"),
    "fewer runs than the manifest": (_runs(lambda t: "\n".join(t.split("\n")[:-2]) + "\n"), "runs.csv.gz",
                                     r"holds \{'runs': 143, 'error': 0, 'ok': 143, 'timeout': 0\}, .*manifest.json "
                                     r"states \{'runs': 144"),
    "extra column": (_runs(lambda t: t.replace("\r\n", ",x\r\n")), "runs.csv.gz", r"unexpected column\(s\) \['x'\]"),
    "carriage return inside a line": (_runs(lambda t: _set(t, 13, "error", "\r")), "runs.csv.gz",
                                      r"a carriage return inside line 13"),
    "extra field on the first row": (_runs(lambda t: _set(t, 2, "error", ",x")), "runs.csv.gz",
                                     r"line 2 has 18 fields, the header 17"),
    "duplicated subject": (lambda f: _edit_gz(f / "subjects.csv.gz", lambda t: t + _line(t, 3) + "\n"),
                           "subjects.csv.gz", r"duplicate subject values \[1\] in 1 subject\(s\) .* line \[5\]"),
}


@pytest.mark.parametrize("damage,culprit,message", COLLECTED_CASES.values(), ids=COLLECTED_CASES.keys())
def test_damaged_collection_is_refused_naming_the_culprit(small_collection, damage, culprit, message):
    assert len(load_collected("sqlite", path=small_collection).frame) == 144
    damage(small_collection)
    with pytest.raises(DataFileError, match=message) as raised:
        load_collected("sqlite", path=small_collection)
    assert str(small_collection / culprit) in str(raised.value)


def test_collection_cut_last_row_dropped_only_on_request(small_collection):
    _edit_gz(small_collection / "runs.csv.gz", lambda t: t[:-12])
    data = load_collected("sqlite", path=small_collection, allow_truncated=True)
    assert len(data.frame) == 143
    assert any("dropped line 145" in n for n in data.notes)
    assert any("states {'runs': 144" in n for n in data.notes)


@pytest.mark.parametrize("domain", ["sqlite", "postgres"])
def test_shipped_snapshots_load_as_a_plain_read_of_their_files(domain):
    folder = paths.DATA / "software" / domain
    manifest = json.loads((folder / "manifest.json").read_text())
    subjects = pd.read_csv(folder / "subjects.csv.gz")[["subject", *manifest["covariates"]]]
    plain = pd.read_csv(folder / "runs.csv.gz").merge(subjects, on="subject", how="left")
    data = load_collected(domain)
    pd.testing.assert_frame_equal(data.frame, plain.drop(columns=["seq", "error"]))
    assert data.notes == ()


# ---------------------------------------------------------------------------- IBM files
@pytest.fixture
def ibm_files(tmp_path):
    truth = {"u1": pd.DataFrame({"y0": [0.0, 1.0], "y1": [1.0, 3.0]}, index=["a", "b"]),
             "u2": pd.DataFrame({"y0": [0.0, 0.0], "y1": [2.0, 2.0]}, index=["a", "b"])}
    ibm.write_instances(truth, tmp_path / "cf", kind="counterfactual")
    estimates = pd.DataFrame({"effect_size": [2.0, 2.0], "li": [0.0, 1.0], "ri": [4.0, 3.0]},
                             index=pd.Index(["u1", "u2"], name="ufid"))
    ibm.write_population(estimates, tmp_path / "pop.csv")
    ibm.write_instances(truth, tmp_path / "ind", kind="individual")
    return tmp_path


def _edit(name, edit):
    def damage(folder):
        path = folder / name
        path.write_text(edit(path.read_text()))
    return damage


IBM_CASES = {
    "infinite estimate": (_edit("pop.csv", lambda t: _set(t, 2, "effect_size", "inf")), "pop.csv",
                          r"column 'effect_size' holds inf \(line \[2\]\); expected finite"),
    "NaN in the counterfactual truth": (_edit("cf/u1_cf.csv", lambda t: _set(t, 3, "y1", "")), "cf/u1_cf.csv",
                                        r"missing values for sample_ids \['b'\] in column 'y1' \(line \[3\]\)"),
    "header-only truth": (_edit("cf/u2_cf.csv", lambda t: _line(t, 1) + "\n"), "cf/u2_cf.csv",
                          r"a header and no rows"),
    "zero-byte predictions": (_edit("pop.csv", lambda t: ""), "pop.csv", r"the file is empty"),
    "missing id": (_edit("cf/u1_cf.csv", lambda t: _set(t, 2, "sample_id", "")), "cf/u1_cf.csv",
                   r"1 row\(s\) without a 'sample_id' value \(line \[2\]\)"),
    "duplicated id": (_edit("pop.csv", lambda t: t + _line(t, 2) + "\n"), "pop.csv",
                      r"duplicate ufid values \['u1'\] in 1 row\(s\) \(1 of them identical .* line \[4\]"),
    "extra column": (_edit("pop.csv", lambda t: t.replace("\n", ",0\n").replace("ri,0", "ri,note")), "pop.csv",
                     r"unexpected column\(s\) \['note'\]; expected exactly \['ufid', 'effect_size', 'li', 'ri'\]"),
    "duplicated header": (_edit("pop.csv", lambda t: t.replace("li,ri", "li,li", 1)), "pop.csv",
                          r"names column\(s\) \['li'\] more than once"),
    "wrong separator": (_edit("pop.csv", lambda t: t.replace(",", ";")), "pop.csv",
                        r"is a single field \(it holds ';': another separator\?\)"),
    "cut last line": (_edit("pop.csv", lambda t: t[:-2]), "pop.csv", r"line 3 \(the last\) has no line end"),
    "row cut short": (_edit("pop.csv", lambda t: _insert(t, 3, "u3,1.0")), "pop.csv",
                      r"1 row\(s\) with too few fields \(line \[3\]: \[2\] fields\); expected 4"),
    "non-numeric estimate": (_edit("pop.csv", lambda t: _set(t, 3, "li", "low")), "pop.csv",
                             r"column 'li' holds 'low' \(line \[3\]"),
}


@pytest.mark.parametrize("damage,culprit,message", IBM_CASES.values(), ids=IBM_CASES.keys())
def test_damaged_ibm_file_is_refused_naming_the_culprit(ibm_files, damage, culprit, message):
    ibm.score_population(ibm_files / "pop.csv", ibm_files / "cf")
    damage(ibm_files)
    with pytest.raises(DataFileError, match=message) as raised:
        ibm.score_population(ibm_files / "pop.csv", ibm_files / "cf")
    assert str(ibm_files / culprit) in str(raised.value)


def test_ibm_individual_file_with_an_infinite_value_is_refused(ibm_files):
    _edit("ind/u2.csv", lambda t: _set(t, 2, "y1", "-inf"))(ibm_files)
    with pytest.raises(DataFileError, match=r"u2.csv: column 'y1' holds -inf \(line \[2\]\)"):
        ibm.score_individual(ibm_files / "ind", ibm_files / "cf")


def test_ibm_infinite_values_in_memory_are_refused():
    truth = pd.DataFrame({"effect": [1.0], "size": [10]}, index=["u"])
    est = pd.DataFrame({"effect_size": [np.inf], "li": [0.0], "ri": [0.2]}, index=["u"])
    with pytest.raises(ValueError, match=r"infinite values for ufids \['u'\]"):
        ibm.population_statistics(truth, est)
    with pytest.raises(ValueError, match=r"true effects: missing or infinite for ufids \['u'\]"):
        ibm.population_statistics(truth.assign(effect=np.nan), est.assign(effect_size=0.1))


def test_ibm_harmless_variants_and_ids_kept_as_text(ibm_files):
    clean = ibm.score_population(ibm_files / "pop.csv", ibm_files / "cf")
    for name in ("pop.csv", "cf/u1_cf.csv"):
        path = ibm_files / name
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes().replace(b"\n", b"\r\n"))
    pd.testing.assert_series_equal(ibm.score_population(ibm_files / "pop.csv", ibm_files / "cf"), clean)
    shutil.move(ibm_files / "cf" / "u2_cf.csv", ibm_files / "cf" / "007_cf.csv")
    _edit("pop.csv", lambda t: t.replace("u2,", "007,"))(ibm_files)
    assert ibm.read_population(ibm_files / "pop.csv").index.tolist() == ["u1", "007"]
    pd.testing.assert_series_equal(ibm.score_population(ibm_files / "pop.csv", ibm_files / "cf"), clean)


def test_reader_rules_hold_without_a_loader(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a,b\n1,2\n3,4\n")
    assert read_table(path, required=["a", "b"], numeric=["a", "b"]).frame.values.tolist() == [[1, 2], [3, 4]]
    path.write_text("a,b\n1,2\n3,4,5,6\n")
    with pytest.raises(DataFileError, match=r"t.csv: not a readable table .*Expected 2 fields in line 3, saw 4"):
        read_table(path)
    with pytest.raises(FileNotFoundError, match="nothere.csv: no such file"):
        read_table(tmp_path / "nothere.csv")


def test_missing_covariate_is_noted_at_load_and_refused_when_discretized(tmp_path):
    from causaleval.datasets.factorial import discretize

    _postgres(tmp_path)
    path = tmp_path / "postgres" / KDL_FILE
    path.write_text(_set(path.read_text(), 2, "rows", ""))
    data = load_kdl("postgres", tmp_path)
    assert "covariate rows: 1 missing value(s)" in data.notes
    with pytest.raises(ValueError, match=r"kdl/postgres: 1 finished run\(s\) without a 'rows' value"):
        discretize(data.complete(), 3, columns=["rows", "runtime"])


# ---------------------------------------------------------------------------- treatment and subject kinds
def test_kdl_treatment_mixing_flags_and_numbers_names_the_culprit(tmp_path):
    """The culprit True was not named; the message listed the valid levels '0', '1', '2'."""
    frame = _postgres(tmp_path / "pg").astype({"Index_Level": object})
    frame.loc[5, "Index_Level"] = "True"
    frame.to_csv(tmp_path / "pg" / "postgres" / KDL_FILE, index=False)
    with pytest.raises(DataFileError, match=r"treatment 'index_level' holds the True/False values \['True'\] "
                                            r"\(line \[7\]\) among numbers; expected numeric levels only or "
                                            r"True/False only"):
        load_kdl("postgres", tmp_path / "pg")
    _jdk(tmp_path / "jdk")
    path = tmp_path / "jdk" / "jdk" / "results.csv"
    frame = pd.read_csv(path).astype({"debug": object})
    frame["debug"] = frame["debug"].map({0: "False", 1: "True"})
    frame.loc[3, "debug"] = "1"
    frame.to_csv(path, index=False)
    with pytest.raises(DataFileError, match=r"treatment 'debug' holds the numbers \['1'\] \(line \[5\]\) "
                                            r"among True/False values"):
        load_kdl("jdk", tmp_path / "jdk")


def test_kdl_subject_ids_stay_text(tmp_path):
    """Ids 001, 1 and 01 were read as the number 1 and reported as duplicates."""
    frame = _postgres(tmp_path)
    frame["URL"] = frame["URL"].map({"q0": "001", "q1": "1", "q2": "01"})
    frame.to_csv(tmp_path / "postgres" / KDL_FILE, index=False)
    data = load_kdl("postgres", tmp_path)
    assert sorted(set(data.frame["url"])) == ["001", "01", "1"]


# ---------------------------------------------------------------------------- IBM scores that are not finite
@pytest.mark.parametrize("which,truth,estimate,message", [
    ("population", "sample_id,y0,y1\na,0,-1e-7\nb,0,-1e-7\n", None,
     r"population scores for ufid 'u2': terms \['enormse'\] are not finite"),
    ("individual", "sample_id,y0,y1\na,0,-1e-7\nb,0,-1e-7\n", None,
     r"individual scores for ufid 'u2': terms \['enormse'\] are not finite"),
    ("individual", "sample_id,y0,y1\na,-1e308,1e308\nb,0,2\n", None,
     r"individual scores for ufid 'u2': terms \['bias', 'mse'\] are not finite"),
    ("individual", None, "sample_id,y0,y1\na,-1e308,1e308\nb,0,2\n",
     r"individual scores for ufid 'u2': terms \['bias', 'mse', 'enormse'\] are not finite"),
], ids=["true effect -DELTA, population", "true effect -DELTA, individual", "overflowing truth",
        "overflowing estimate"])
def test_ibm_scores_that_are_not_finite_are_refused(ibm_files, which, truth, estimate, message):
    """A true effect of exactly -DELTA made ENoRMSE inf; finite y0, y1 whose difference
    overflows made RMSE inf."""
    if truth:
        (ibm_files / "cf" / "u2_cf.csv").write_text(truth)
    if estimate:
        (ibm_files / "ind" / "u2.csv").write_text(estimate)
    score = ibm.score_population if which == "population" else ibm.score_individual
    with pytest.raises(ValueError, match=message):
        score(ibm_files / ("pop.csv" if which == "population" else "ind"), ibm_files / "cf")


@pytest.mark.parametrize("folder", ["predictions", "cf/x_cf.csv"])
def test_ibm_a_folder_where_a_file_is_expected_is_called_a_folder(ibm_files, folder):
    (ibm_files / folder).mkdir()
    predictions = ibm_files / ("predictions" if folder == "predictions" else "pop.csv")
    with pytest.raises(IsADirectoryError, match=rf"{ibm_files / folder}: a folder, not a file"):
        ibm.score_population(predictions, ibm_files / "cf")


def test_floats_read_back_bit_for_bit(tmp_path):
    """The IBM files the kit writes are read back exactly (pandas' default parser can be one ULP off)."""
    import numpy as np
    import pandas as pd

    from causaleval.datasets.readers import read_table

    values = np.random.default_rng(0).random(500) / 3
    path = tmp_path / "floats.csv"
    pd.DataFrame({"id": [f"u{i}" for i in range(500)], "x": values}).to_csv(path, index=False)
    assert (read_table(path, text=["id"]).frame["x"].to_numpy() == values).all()


# ---------------------------------------------------------------------------- pandas' missing-value words
NA_WORDS = ["NA", "N/A", "NULL", "None", "#N/A", "n/a", "nan", "NaN", "-nan", "<NA>"]


def _kdl_with(tmp_path, word):
    _postgres(tmp_path)
    path = tmp_path / "postgres" / KDL_FILE
    path.write_text(_set(path.read_text(), 10, "runtime", word))
    return path, "runtime", 10, lambda: load_kdl("postgres", tmp_path)


def _collected_with(tmp_path, word):
    folder = tmp_path / "sqlite"
    small_collection.__wrapped__(tmp_path)
    _runs(lambda t: _set(t, 12, "sorts", word))(folder)
    return folder / "runs.csv.gz", "sorts", 12, lambda: load_collected("sqlite", path=folder)


def _ibm_with(tmp_path, word):
    ibm_files.__wrapped__(tmp_path)
    _edit("cf/u1_cf.csv", lambda t: _set(t, 3, "y1", word))(tmp_path)
    return tmp_path / "cf" / "u1_cf.csv", "y1", 3, lambda: ibm.score_population(tmp_path / "pop.csv", tmp_path / "cf")


@pytest.mark.parametrize("kind, word", [("kdl", w) for w in NA_WORDS]
                         + [(k, w) for k in ("collected", "ibm") for w in ("NA", "nan", "None")])
def test_missing_value_words_in_a_number_column_are_refused_not_read_as_missing(tmp_path, kind, word):
    """Only an empty cell is a missing value (README): pandas' missing-value words are refused
    wherever a number is read, with file, column and line."""
    path, column, line, load = {"kdl": _kdl_with, "collected": _collected_with, "ibm": _ibm_with}[kind](tmp_path, word)
    with pytest.raises(DataFileError) as raised:
        load()
    assert str(path) in str(raised.value)
    assert (f"column {column!r} holds {word!r} (line [{line}]; 1 such cell(s)); expected numbers "
            "(only an empty cell is a missing value)") in str(raised.value)
